/* Exact int64 integer expressions (opennpu §7.2 precedence: | ^ & << >> + - * / % unary),
 * with errors for overflow, division by zero, shift counts outside 0..63 and bad symbols. */
#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "asm/internal.h"

#define MAX_NESTING 100

typedef struct val {
    int64_t v;
    bool big;     /* an unsigned literal >= 2^63; v holds its bits */
} val;

static int parse_or(npk_asm *a, npk_cur *c, unsigned fl, val *out);

static int too_big(npk_asm *a, const char *at, size_t len, val x)
{
    return npk_asm_error(a, at, len, "value %" PRIu64 " does not fit in a signed 64-bit integer",
                         (uint64_t)x.v);
}

static int overflow(npk_asm *a, const char *op, size_t oplen)
{
    return npk_asm_error(a, op, oplen, "integer overflow in '%.*s'", (int)oplen, op);
}

static int64_t asr(int64_t x, unsigned n)
{
    return x >= 0 ? x >> n : ~(~x >> n);
}

static int parse_number(npk_asm *a, npk_cur *c, val *out)
{
    const char *start = c->p, *p = c->p;
    unsigned base = 10;
    if (c->end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        base = 16, p += 2;
    else if (c->end - p >= 2 && p[0] == '0' && (p[1] == 'b' || p[1] == 'B'))
        base = 2, p += 2;
    const char *digits = p;
    uint64_t v = 0;
    bool ovf = false;
    while (p < c->end && asm_is_ident_char((unsigned char)*p)) {
        int ch = (unsigned char)*p, d;
        if (ch >= '0' && ch <= '9')
            d = ch - '0';
        else if (ch >= 'a' && ch <= 'f')
            d = ch - 'a' + 10;
        else if (ch >= 'A' && ch <= 'F')
            d = ch - 'A' + 10;
        else
            d = 99;
        if ((unsigned)d >= base) {
            const char *e = p;
            while (e < c->end && asm_is_ident_char((unsigned char)*e))
                e++;
            return npk_asm_error(a, start, (size_t)(e - start),
                                 "invalid digit '%c' in number '%.*s'", ch, (int)(e - start),
                                 start);
        }
        if (v > (UINT64_MAX - (unsigned)d) / base)
            ovf = true;
        v = v * base + (unsigned)d;
        p++;
    }
    if (p == digits)
        return npk_asm_error(a, start, (size_t)(p - start), "number '%.*s' has no digits",
                             (int)(p - start), start);
    if (ovf)
        return npk_asm_error(a, start, (size_t)(p - start), "integer literal '%.*s' is too large",
                             (int)(p - start), start);
    c->p = p;
    out->big = v > (uint64_t)INT64_MAX;
    out->v = out->big ? (int64_t)(v - (uint64_t)INT64_MAX - 1) + INT64_MIN : (int64_t)v;
    return 0;
}

static int parse_char(npk_asm *a, npk_cur *c, val *out)
{
    const char *start = c->p, *p = c->p + 1;
    int v;
    if (p >= c->end)
        return npk_asm_error(a, start, 1, "unterminated character constant");
    if (*p == '\\') {
        p++;
        if (p >= c->end)
            return npk_asm_error(a, start, 1, "unterminated character constant");
        switch (*p) {
        case 'n': v = '\n'; break;
        case 't': v = '\t'; break;
        case 'r': v = '\r'; break;
        case '0': v = 0; break;
        case 'a': v = '\a'; break;
        case 'b': v = '\b'; break;
        case 'f': v = '\f'; break;
        case 'v': v = '\v'; break;
        case 'e': v = 0x1b; break;
        case '\\': case '\'': case '"': v = (unsigned char)*p; break;
        default:
            return npk_asm_error(a, p - 1, 2, "unknown escape sequence in character constant");
        }
        p++;
    } else if (*p == '\'') {
        return npk_asm_error(a, start, 2, "empty character constant");
    } else {
        v = (unsigned char)*p++;
    }
    if (p >= c->end || *p != '\'')
        return npk_asm_error(a, start, (size_t)(p - start), "unterminated character constant");
    c->p = p + 1;
    out->v = v;
    out->big = false;
    return 0;
}

static int parse_symbol(npk_asm *a, const char *s, size_t n, unsigned fl, val *out)
{
    asm_sym *sym = asm_sym_find(a, s, n);
    if (!sym || sym->def_pass == 0) {
        const char *why = a->t->reserved ? a->t->reserved(a, s, n) : NULL;
        if (why)
            return npk_asm_error(a, s, n, "expected a value, found %s '%.*s'", why, (int)n, s);
        a->unresolved++;
        return npk_asm_error(a, s, n, "undefined symbol '%.*s'", (int)n, s);
    }
    bool here = sym->def_pass == a->pass;
    if (!here && ((a->t->flags & NPK_ASM_NO_FORWARD) || (fl & NPK_EXPR_NO_FORWARD)))
        return npk_asm_error(a, s, n, "'%.*s' is used before its definition%s", (int)n, s,
                             a->t->flags & NPK_ASM_NO_FORWARD ? "" : " (not allowed here)");
    if (sym->state == SYM_POISONED)
        return -1; /* its definition was reported */
    if (sym->state == SYM_PENDING) {
        a->unresolved++;
        return npk_asm_error(a, s, n, "'%.*s' cannot be resolved (circular definition?)",
                             (int)n, s);
    }
    out->v = sym->value;
    out->big = false;
    return 0;
}

static int parse_pc(npk_asm *a, val *out)
{
    uint64_t pc = npk_asm_pc(a);
    out->v = (int64_t)pc;
    out->big = false;
    return 0;
}

static int parse_unary(npk_asm *a, npk_cur *c, unsigned fl, val *out)
{
    npk_cur_ws(c);
    if (c->p >= c->end)
        return npk_asm_error(a, c->p, 1, "expected an expression at end of line");
    if (++a->expr_depth > MAX_NESTING) {
        a->expr_depth--;
        return npk_asm_error(a, c->p, 1, "expression nested too deeply");
    }
    int rc = 0;
    const char *op = c->p;
    char ch = *c->p;
    if (ch == '-' || ch == '~' || ch == '+') {
        c->p++;
        val x;
        rc = parse_unary(a, c, fl, &x);
        if (rc == 0) {
            if (ch == '+') {
                *out = x;
            } else if (ch == '-') {
                if (x.big && (uint64_t)x.v == (uint64_t)1 << 63) {
                    out->v = INT64_MIN, out->big = false;
                } else if (x.big) {
                    rc = too_big(a, op, 1, x);
                } else if (x.v == INT64_MIN) {
                    rc = overflow(a, op, 1);
                } else {
                    out->v = -x.v, out->big = false;
                }
            } else {
                if (x.big)
                    rc = too_big(a, op, 1, x);
                else
                    out->v = ~x.v, out->big = false;
            }
        }
    } else if (ch == '(') {
        c->p++;
        rc = parse_or(a, c, fl, out);
        if (rc == 0 && !npk_cur_accept(c, ')')) {
            npk_cur_ws(c);
            rc = c->p >= c->end ? npk_asm_error(a, op, 1, "missing ')'")
                                : npk_asm_error(a, c->p, 1, "expected ')'");
        }
    } else if (ch >= '0' && ch <= '9') {
        rc = parse_number(a, c, out);
    } else if (ch == '\'') {
        rc = parse_char(a, c, out);
    } else if (ch == '$' && (a->t->flags & NPK_ASM_PC_DOLLAR)) {
        c->p++;
        rc = parse_pc(a, out);
    } else if (asm_is_ident_start((unsigned char)ch)) {
        const char *s;
        size_t n = npk_cur_ident(c, &s);
        if (n == 1 && s[0] == '.' && (a->t->flags & NPK_ASM_PC_DOT))
            rc = parse_pc(a, out);
        else
            rc = parse_symbol(a, s, n, fl, out);
    } else {
        rc = npk_asm_error(a, c->p, 1, "expected an expression, found '%c'",
                           isprint((unsigned char)ch) ? ch : '?');
    }
    a->expr_depth--;
    return rc;
}

/* Binary levels, lowest first. */
enum { L_OR, L_XOR, L_AND, L_SHIFT, L_ADD, L_MUL, L_UNARY };

/* The operator at the cursor for `level`, or 0; *len = its length. */
static int binop_at(const npk_cur *c, int level, size_t *len)
{
    const char *p = c->p;
    if (p >= c->end)
        return 0;
    char ch = *p, nx = p + 1 < c->end ? p[1] : 0;
    *len = 1;
    switch (level) {
    case L_OR: return ch == '|' && nx != '|' ? '|' : 0;
    case L_XOR: return ch == '^' ? '^' : 0;
    case L_AND: return ch == '&' && nx != '&' ? '&' : 0;
    case L_SHIFT:
        *len = 2;
        if (ch == '<' && nx == '<')
            return 'l';
        if (ch == '>' && nx == '>')
            return 'r';
        return 0;
    case L_ADD: return ch == '+' || ch == '-' ? ch : 0;
    case L_MUL: return ch == '*' || ch == '/' || ch == '%' ? ch : 0;
    default: return 0;
    }
}

static int apply(npk_asm *a, int op, const char *at, size_t oplen, val x, val y, val *out)
{
    if (x.big)
        return too_big(a, at, oplen, x);
    if (y.big)
        return too_big(a, at, oplen, y);
    int64_t l = x.v, r = y.v, v = 0;
    switch (op) {
    case '|': v = l | r; break;
    case '^': v = l ^ r; break;
    case '&': v = l & r; break;
    case 'l':
    case 'r':
        if (r < 0 || r > 63)
            return npk_asm_error(a, at, oplen, "shift count %" PRId64 " out of range (0..63)", r);
        if (op == 'r') {
            v = asr(l, (unsigned)r);
        } else {
            if (l > asr(INT64_MAX, (unsigned)r) || l < asr(INT64_MIN, (unsigned)r))
                return overflow(a, at, oplen);
            v = (int64_t)((uint64_t)l << r);
        }
        break;
    case '+':
        if ((r > 0 && l > INT64_MAX - r) || (r < 0 && l < INT64_MIN - r))
            return overflow(a, at, oplen);
        v = l + r;
        break;
    case '-':
        if ((r < 0 && l > INT64_MAX + r) || (r > 0 && l < INT64_MIN + r))
            return overflow(a, at, oplen);
        v = l - r;
        break;
    case '*':
        if (l > 0 ? (r > 0 ? l > INT64_MAX / r : r < INT64_MIN / l)
                  : (r > 0 ? l < INT64_MIN / r : (l != 0 && r < INT64_MAX / l)))
            return overflow(a, at, oplen);
        v = l * r;
        break;
    case '/':
    case '%':
        if (r == 0)
            return npk_asm_error(a, at, oplen, "division by zero");
        if (l == INT64_MIN && r == -1) {
            if (op == '/')
                return overflow(a, at, oplen);
            v = 0;
        } else if (op == '/') {
            if ((a->t->flags & NPK_ASM_EXACT_DIV) && l % r != 0)
                return npk_asm_error(a, at, oplen, "%" PRId64 " / %" PRId64 " is not exact", l, r);
            v = l / r;
        } else {
            v = l % r;
        }
        break;
    default: break;
    }
    out->v = v;
    out->big = false;
    return 0;
}

static int parse_level(npk_asm *a, npk_cur *c, unsigned fl, int level, val *out)
{
    if (level == L_UNARY)
        return parse_unary(a, c, fl, out);
    if (parse_level(a, c, fl, level + 1, out))
        return -1;
    for (;;) {
        npk_cur_ws(c);
        size_t oplen;
        int op = binop_at(c, level, &oplen);
        if (!op)
            return 0;
        const char *at = c->p;
        c->p += oplen;
        val y;
        if (parse_level(a, c, fl, level + 1, &y))
            return -1;
        if (apply(a, op, at, oplen, *out, y, out))
            return -1;
    }
}

static int parse_or(npk_asm *a, npk_cur *c, unsigned fl, val *out)
{
    return parse_level(a, c, fl, L_OR, out);
}

int npk_asm_expr_full(npk_asm *a, npk_cur *c, unsigned flags, npk_expr *e)
{
    npk_cur_ws(c);
    const char *start = c->p;
    val v = {0, false};
    a->expr_depth = 0;
    int rc = parse_or(a, c, flags, &v);
    const char *end = c->p;
    while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    e->at = start;
    e->len = (size_t)(end - start);
    e->value = v.v;
    e->u64 = v.big;
    if (rc)
        return -1;
    if (v.big && !(flags & NPK_EXPR_U64))
        return too_big(a, start, e->len, v);
    return 0;
}

int npk_asm_expr(npk_asm *a, npk_cur *c, int64_t *v)
{
    npk_expr e;
    if (npk_asm_expr_full(a, c, 0, &e))
        return -1;
    *v = e.value;
    return 0;
}

int npk_asm_check_range(npk_asm *a, const npk_expr *e, int64_t lo, int64_t hi,
                        const char *what)
{
    if (e->u64)
        return npk_asm_error(a, e->at, e->len,
                             "%s %" PRIu64 " out of range (%" PRId64 "..%" PRId64 ")", what,
                             (uint64_t)e->value, lo, hi);
    if (e->value < lo || e->value > hi)
        return npk_asm_error(a, e->at, e->len,
                             "%s %" PRId64 " out of range (%" PRId64 "..%" PRId64 ")", what,
                             e->value, lo, hi);
    return 0;
}

int npk_asm_imm(npk_asm *a, npk_cur *c, int64_t lo, int64_t hi, const char *what,
                int64_t *v)
{
    npk_expr e;
    if (npk_asm_expr_full(a, c, 0, &e) || npk_asm_check_range(a, &e, lo, hi, what))
        return -1;
    *v = e.value;
    return 0;
}
