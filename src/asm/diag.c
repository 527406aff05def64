/* Diagnostics (file:line:col, the source line, a caret), growable text buffers and
 * allocation with out-of-memory tracking. Diagnostics of a pass are collected and only the
 * last pass's are shown. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "asm/internal.h"

void npk_sbuf_add(npk_sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    if (n)
        memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void npk_sbuf_vprintf(npk_sbuf *b, const char *fmt, va_list ap)
{
    char tmp[512];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        npk_sbuf_add(b, tmp, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->oom = true;
        return;
    }
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    npk_sbuf_add(b, big, (size_t)n);
    free(big);
}

void npk_sbuf_printf(npk_sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    npk_sbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

void npk_sbuf_free(npk_sbuf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
    b->oom = false;
}

void *asm_alloc(npk_asm *a, size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        a->oom = true;
        a->stopped = true;
    }
    return p;
}

void *asm_realloc(npk_asm *a, void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        a->oom = true;
        a->stopped = true;
    }
    return q;
}

char *asm_strndup(npk_asm *a, const char *s, size_t n)
{
    char *p = asm_alloc(a, n + 1);
    if (p && n)
        memcpy(p, s, n);
    return p;
}

/* Source text can be megabytes on one line (a 1 MB literal). A message quotes a token of it
 * and the diagnostic echoes the line; both are cut to a readable width, so the reason after a
 * quoted token is never lost and a bad line costs a few hundred bytes of output, not its
 * size twice over. */
enum {
    DIAG_RUN_MAX = 64,   /* a longer run without blank or quote in a message is cut ... */
    DIAG_RUN_KEEP = 32,  /* ... to its first 32 bytes and "..." */
    DIAG_LINE_MAX = 160, /* bytes of the source line echoed at most */
    DIAG_LEAD = 40       /* of which this many before the caret, when the line is cut */
};

static int utf8_continuation(char c)
{
    return ((unsigned char)c & 0xC0) == 0x80;
}

/* Cut, in place, every run of more than DIAG_RUN_MAX bytes containing no blank and no quote:
 * prose words are never that long, quoted tokens from the source can be. */
static void shorten_runs(char *s)
{
    char *out = s;
    while (*s) {
        size_t run = 0;
        while (s[run] && s[run] != ' ' && s[run] != '\'')
            run++;
        if (run > DIAG_RUN_MAX) {
            size_t keep = DIAG_RUN_KEEP;
            while (keep > 0 && utf8_continuation(s[keep])) /* whole UTF-8 characters only */
                keep--;
            memmove(out, s, keep);
            memcpy(out + keep, "...", 3);
            out += keep + 3;
        } else {
            memmove(out, s, run);
            out += run;
        }
        s += run;
        if (*s)
            *out++ = *s++;
    }
    *out = '\0';
}

static void add_source_char(npk_sbuf *b, char c)
{
    char ch = (c == '\t' || (unsigned char)c >= 0x20) && c != 0x7f ? c : '?';
    npk_sbuf_add(b, &ch, 1);
}

/* The source line [ls, le) (a window of it around the caret when it is long), then the caret
 * at `at` with `len` marks: for every diagnostic, also the NUL check's (a file of zeros is one
 * line of megabytes). */
static void echo_line(npk_sbuf *b, const char *ls, const char *le, const char *at, size_t len)
{
    const char *from = ls, *to = le;
    if (to - from > DIAG_LINE_MAX) {
        if (at - from > DIAG_LEAD)
            from = at - DIAG_LEAD;
        while (from > ls && utf8_continuation(*from))
            from--;
        if (to - from > DIAG_LINE_MAX)
            to = from + DIAG_LINE_MAX;
        while (to < le && utf8_continuation(*to))
            to++;
    }
    if (from > ls)
        npk_sbuf_add(b, "...", 3);
    for (const char *p = from; p < to; p++)
        add_source_char(b, *p);
    if (to < le)
        npk_sbuf_add(b, "...", 3);
    npk_sbuf_add(b, "\n", 1);
    if (from > ls)
        npk_sbuf_add(b, "   ", 3);
    for (const char *p = from; p < at; p++)
        npk_sbuf_add(b, *p == '\t' ? "\t" : " ", 1);
    npk_sbuf_add(b, "^", 1);
    size_t room = at < to ? (size_t)(to - at) : 0;
    for (size_t i = 1; i < len && i < room; i++)
        npk_sbuf_add(b, "~", 1);
    npk_sbuf_add(b, "\n", 1);
}

static void report(npk_asm *a, const char *kind, const char *at, size_t len, const char *fmt,
                   va_list ap)
{
    npk_sbuf *b = &a->diag;
    asm_frame *f = a->frame;
    /* the whole message first (its reason may follow a long token), then shortened */
    char small[1024], *big = NULL, *msg = small;
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n < 0)
        small[0] = '\0';
    else if ((size_t)n >= sizeof small && (big = malloc((size_t)n + 1)) != NULL) {
        vsnprintf(big, (size_t)n + 1, fmt, ap2);
        msg = big;
    }
    va_end(ap2);
    shorten_runs(msg);
    /* control characters (from malformed input) shown as '?' */
    for (char *p = msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    if (!f) {
        npk_sbuf_printf(b, "%s: %s: %s\n", a->main_name, kind, msg);
        free(big);
        return;
    }
    for (asm_frame *p = f->parent; p; p = p->parent)
        npk_sbuf_printf(b, "In file included from %s:%u:\n", a->files[p->file].path, p->line);
    if (!at || at < f->line_start || at > f->line_end)
        at = f->stmt_start;
    size_t col = (size_t)(at - f->line_start) + 1;
    npk_sbuf_printf(b, "%s:%u:%zu: %s: %s\n", a->files[f->file].path, f->line, col, kind, msg);
    free(big);
    echo_line(b, f->line_start, f->line_end, at, len);
}

int npk_asm_error(npk_asm *a, const char *at, size_t len, const char *fmt, ...)
{
    /* Past the limit errors are still counted but no longer shown. Assembly goes on to the
     * end of the input, because a pass must define every symbol for the next one. */
    unsigned max = a->opts.max_errors ? a->opts.max_errors : 50;
    a->errors++;
    if (a->errors > max)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    report(a, "error", at, len, fmt, ap);
    va_end(ap);
    if (a->errors == max)
        npk_sbuf_printf(&a->diag, "%s: error: too many errors (%u), not showing more\n",
                        a->main_name, max);
    return -1;
}

void npk_asm_warning(npk_asm *a, const char *at, size_t len, const char *fmt, ...)
{
    unsigned max = a->opts.max_errors ? a->opts.max_errors : 50;
    a->warnings++;
    if (a->errors >= max || a->warnings > 1000)
        return;
    va_list ap;
    va_start(ap, fmt);
    report(a, "warning", at, len, fmt, ap);
    va_end(ap);
}

unsigned npk_asm_errors(const npk_asm *a)
{
    return a->errors;
}

/* Like report(), for text outside a run (no context, no include stack). */
int npk_asm_check_nul(const char *text, size_t len, const char *name, FILE *diag)
{
    const char *nul = memchr(text, '\0', len);
    if (!nul)
        return 0;
    if (!diag)
        return -1;
    const char *ls = nul, *end = text + len;
    unsigned line = 1;
    for (const char *p = text; p < nul; p++)
        line += *p == '\n';
    while (ls > text && ls[-1] != '\n')
        ls--;
    const char *le = memchr(nul, '\n', (size_t)(end - nul));
    le = le ? le : end;
    if (le > nul && le[-1] == '\r')
        le--;
    fprintf(diag, "%s:%u:%zu: error: NUL byte in source\n", name, line, (size_t)(nul - ls) + 1);
    npk_sbuf b = {0};
    echo_line(&b, ls, le, nul, 1);
    if (b.s)
        fwrite(b.s, 1, b.len, diag);
    npk_sbuf_free(&b);
    return -1;
}
