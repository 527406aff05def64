/* The lexer side of the toolkit: a cursor over one statement, identifiers, words, strings,
 * float literals and wide hex literals. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "asm/internal.h"

bool asm_is_ident_start(int ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || ch == '.';
}

bool asm_is_ident_char(int ch)
{
    return asm_is_ident_start(ch) || (ch >= '0' && ch <= '9');
}

static bool is_blank(int ch)
{
    return ch == ' ' || ch == '\t' || ch == '\f' || ch == '\v' || ch == '\r';
}

void npk_cur_ws(npk_cur *c)
{
    while (c->p < c->end && is_blank((unsigned char)*c->p))
        c->p++;
}

bool npk_cur_eol(npk_cur *c)
{
    npk_cur_ws(c);
    return c->p >= c->end;
}

bool npk_cur_peek(npk_cur *c, char ch)
{
    npk_cur_ws(c);
    return c->p < c->end && *c->p == ch;
}

bool npk_cur_accept(npk_cur *c, char ch)
{
    if (!npk_cur_peek(c, ch))
        return false;
    c->p++;
    return true;
}

size_t npk_cur_ident(npk_cur *c, const char **s)
{
    npk_cur_ws(c);
    const char *p = c->p;
    if (p >= c->end || !asm_is_ident_start((unsigned char)*p))
        return 0;
    while (p < c->end && asm_is_ident_char((unsigned char)*p))
        p++;
    *s = c->p;
    size_t n = (size_t)(p - c->p);
    c->p = p;
    return n;
}

size_t npk_cur_word(npk_cur *c, const char **s)
{
    npk_cur_ws(c);
    const char *p = c->p;
    while (p < c->end && !is_blank((unsigned char)*p) && *p != ',')
        p++;
    *s = c->p;
    size_t n = (size_t)(p - c->p);
    c->p = p;
    return n;
}

bool npk_eq_nocase(const char *s, size_t n, const char *lit)
{
    size_t i = 0;
    for (; i < n; i++) {
        if (!lit[i] || tolower((unsigned char)s[i]) != tolower((unsigned char)lit[i]))
            return false;
    }
    return lit[i] == '\0';
}

bool npk_cur_keyword(npk_cur *c, const char *kw)
{
    npk_cur save = *c;
    const char *s;
    size_t n = npk_cur_ident(c, &s);
    if (n && npk_eq_nocase(s, n, kw))
        return true;
    *c = save;
    return false;
}

/* Length of the token at p, for "unexpected 'x'" messages. */
static size_t token_len(const char *p, const char *end)
{
    if (p >= end)
        return 0;
    const char *q = p;
    if (asm_is_ident_char((unsigned char)*q)) {
        while (q < end && asm_is_ident_char((unsigned char)*q))
            q++;
    } else {
        q++;
    }
    return (size_t)(q - p);
}

int npk_asm_expect(npk_asm *a, npk_cur *c, char ch)
{
    if (npk_cur_accept(c, ch))
        return 0;
    if (c->p >= c->end)
        return npk_asm_error(a, c->p, 1, "expected '%c' at end of line", ch);
    size_t n = token_len(c->p, c->end);
    return npk_asm_error(a, c->p, n, "expected '%c' before '%.*s'", ch, (int)n, c->p);
}

int npk_asm_end(npk_asm *a, npk_cur *c)
{
    if (npk_cur_eol(c))
        return 0;
    size_t n = token_len(c->p, c->end);
    return npk_asm_error(a, c->p, n, "unexpected '%.*s'", (int)n, c->p);
}

int npk_hex_digit(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

int npk_asm_string(npk_asm *a, npk_cur *c, const char **s, size_t *len)
{
    npk_cur_ws(c);
    if (c->p >= c->end || *c->p != '"')
        return npk_asm_error(a, c->p, 1, "expected a string in double quotes");
    const char *open = c->p;
    const char *p = c->p + 1;
    npk_sbuf *b = &a->scratch;
    b->len = 0;
    npk_sbuf_add(b, "", 0);
    for (;;) {
        if (p >= c->end)
            return npk_asm_error(a, open, 1, "missing closing '\"'");
        char ch = *p;
        if (ch == '"')
            break;
        if (ch != '\\') {
            npk_sbuf_add(b, &ch, 1);
            p++;
            continue;
        }
        const char *esc = p++;
        if (p >= c->end)
            return npk_asm_error(a, open, 1, "missing closing '\"'");
        char e = *p++;
        char out;
        switch (e) {
        case 'n': out = '\n'; break;
        case 't': out = '\t'; break;
        case 'r': out = '\r'; break;
        case 'a': out = '\a'; break;
        case 'b': out = '\b'; break;
        case 'f': out = '\f'; break;
        case 'v': out = '\v'; break;
        case 'e': out = 0x1b; break;
        case '\\': case '"': case '\'': out = e; break;
        case 'x': {
            int v = 0, nd = 0;
            while (nd < 2 && p < c->end && npk_hex_digit((unsigned char)*p) >= 0)
                v = v * 16 + npk_hex_digit((unsigned char)*p++), nd++;
            if (!nd)
                return npk_asm_error(a, esc, 2, "\\x needs hex digits");
            out = (char)v;
            break;
        }
        default:
            if (e >= '0' && e <= '7') {
                int v = e - '0', nd = 1;
                while (nd < 3 && p < c->end && *p >= '0' && *p <= '7')
                    v = v * 8 + (*p++ - '0'), nd++;
                if (v > 255)
                    return npk_asm_error(a, esc, (size_t)(p - esc), "octal escape out of range");
                out = (char)v;
                break;
            }
            return npk_asm_error(a, esc, 2, "unknown escape sequence '\\%c'",
                                 isprint((unsigned char)e) ? e : '?');
        }
        npk_sbuf_add(b, &out, 1);
    }
    c->p = p + 1;
    if (b->oom) {
        a->oom = a->stopped = true;
        return -1;
    }
    *s = b->s;
    *len = b->len;
    return 0;
}

static bool float_delim(const char *p, const char *end)
{
    return p >= end || is_blank((unsigned char)*p) || *p == ',' || *p == ')';
}

int npk_asm_float(npk_asm *a, npk_cur *c, double *v, const char **text, size_t *len)
{
    npk_cur_ws(c);
    const char *start = c->p, *p = c->p;
    bool neg = false;
    if (p < c->end && (*p == '-' || *p == '+'))
        neg = *p++ == '-';
    const char *body = p;
    const char *q = p;
    while (q < c->end && !float_delim(q, c->end))
        q++;
    size_t n = (size_t)(q - body);
    double val;
    if (n == 0)
        return npk_asm_error(a, start, 1, "expected a floating-point number");
    if (npk_eq_nocase(body, n, "inf") || npk_eq_nocase(body, n, "infinity")) {
        val = HUGE_VAL;
    } else if (npk_eq_nocase(body, n, "nan")) {
        val = NAN;
    } else {
        /* strtod on a bounded copy; only numeric spellings (no inf/nan(...) forms here) */
        char buf[128];
        bool ok = n < sizeof buf && (isdigit((unsigned char)body[0]) || body[0] == '.');
        if (ok) {
            memcpy(buf, body, n);
            buf[n] = '\0';
            char *e;
            val = strtod(buf, &e);
            ok = e == buf + n;
        }
        if (!ok)
            return npk_asm_error(a, start, (size_t)(q - start),
                                 "invalid floating-point number '%.*s'", (int)(q - start), start);
    }
    *v = neg ? -val : val;
    if (text)
        *text = start;
    if (len)
        *len = (size_t)(q - start);
    c->p = q;
    return 0;
}

int npk_asm_hexbits(npk_asm *a, npk_cur *c, uint64_t *w, size_t nw, unsigned nbits)
{
    npk_cur_ws(c);
    const char *start = c->p, *p = c->p;
    if (c->end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    const char *digits = p;
    while (p < c->end && asm_is_ident_char((unsigned char)*p))
        p++;
    size_t n = (size_t)(p - start);
    if (p == digits)
        return npk_asm_error(a, start, n ? n : 1, "expected hexadecimal digits");
    if (nbits > nw * 64)
        nbits = (unsigned)(nw * 64);
    for (size_t i = 0; i < nw; i++)
        w[i] = 0;
    size_t bit = 0;
    for (const char *q = p; q > digits; q--) {
        int d = npk_hex_digit((unsigned char)q[-1]);
        if (d < 0)
            return npk_asm_error(a, q - 1, 1, "invalid hexadecimal digit '%c'",
                                 isprint((unsigned char)q[-1]) ? q[-1] : '?');
        if (d) {
            if (bit >= nbits || (bit + 4 > nbits && (d >> (nbits - bit)) != 0))
                return npk_asm_error(a, start, n, "value does not fit in %u bits", nbits);
            npk_bits_put(w, nw, (unsigned)bit, (unsigned)(nbits - bit < 4 ? nbits - bit : 4),
                         (uint64_t)d);
        }
        bit += 4;
    }
    c->p = p;
    return 0;
}
