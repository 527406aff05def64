/* tinytpu assembly (spec B7.3): the assembler (text -> tt_program, on the shared engine of
 * src/asm, so diagnostics are file:line:col with a caret), its listing with cycle numbers, the
 * Q8.8 literal conversion of A3, and the disassembler (tt_program -> text with `@k` after idle
 * runs and level directives rebuilt from the level fields). Field limits come from fields.def. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "asm/asm.h"
#include "targets/tinytpu/tinytpu.h"

/* ---- Q8.8 literals (A3) ---------------------------------------------------------------------- */

#define Q88_FRAC_DIGITS 200 /* exact digits; later ones only decide an exact tie (sticky) */

static int parse_q88(const char *s, size_t len, bool allow_int, uint16_t *out)
{
    if (!s || !len)
        return -1;
    if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        uint32_t v = 0;
        for (size_t i = 2; i < len; i++) {
            char ch = s[i];
            int d = ch >= '0' && ch <= '9'   ? ch - '0'
                    : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                    : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                             : -1;
            if (d < 0)
                return -1;
            v = v * 16 + (uint32_t)d;
            if (v > 0xFFFF)
                return -1;
        }
        *out = (uint16_t)v;
        return 0;
    }
    size_t i = 0;
    bool neg = false;
    if (s[i] == '+' || s[i] == '-')
        neg = s[i++] == '-';
    uint32_t ip = 0; /* integer part, capped (anything above 128 saturates anyway) */
    size_t ndig = 0, nfrac = 0;
    uint8_t frac[Q88_FRAC_DIGITS];
    bool point = false, sticky = false;
    for (; i < len; i++) {
        char ch = s[i];
        if (ch == '.' && !point) {
            point = true;
            continue;
        }
        if (ch < '0' || ch > '9')
            return -1;
        ndig++;
        if (!point) {
            ip = ip * 10 + (uint32_t)(ch - '0');
            if (ip > 100000)
                ip = 100000;
        } else if (nfrac < Q88_FRAC_DIGITS) {
            frac[nfrac++] = (uint8_t)(ch - '0');
        } else if (ch != '0') {
            sticky = true;
        }
    }
    if (!ndig)
        return -1;
    if (!point && ip != 0 && !allow_int)
        return -1; /* a bare integer: raw bits or a value? refused (see tinytpu.h) */
    /* fraction * 256 = carry + remaining fraction, digit by digit from the right */
    uint32_t carry = 0;
    for (size_t k = nfrac; k-- > 0;) {
        uint32_t v = frac[k] * 256u + carry;
        frac[k] = (uint8_t)(v % 10);
        carry = v / 10;
    }
    int half = 0; /* remaining fraction vs 1/2: -1 below, 0 tie, 1 above */
    if (nfrac) {
        if (frac[0] != 5) {
            half = frac[0] > 5 ? 1 : -1;
        } else {
            half = sticky ? 1 : 0;
            for (size_t k = 1; k < nfrac && !half; k++)
                if (frac[k])
                    half = 1;
        }
    } else {
        half = -1;
    }
    int64_t mag = (int64_t)ip * 256 + carry;
    if (half > 0 || (half == 0 && (mag & 1)))
        mag++;
    int64_t v = neg ? -mag : mag;
    if (v > 32767)
        v = 32767;
    if (v < -32768)
        v = -32768;
    *out = (uint16_t)(int16_t)v;
    return 0;
}

int tt_parse_q88(const char *s, size_t len, uint16_t *out)
{
    return parse_q88(s, len, false, out);
}

int tt_parse_q88_value(const char *s, size_t len, uint16_t *out)
{
    return parse_q88(s, len, true, out);
}

/* ---- the assembler --------------------------------------------------------------------------- */

typedef struct levels {
    uint8_t pathway;
    uint16_t leak, inv, lr;
} levels;

/* What one source line produced, for the listing (cycle numbers from 1; 0: none). */
typedef struct line_cycles {
    uint32_t fill_first, fill_last, first, last;
} line_cycles;

typedef struct tt_as {
    tt_program *p;
    size_t n0, hw0;
    unsigned N;
    uint16_t lr0;
    tt_format check_param;  /* caller's check format (TT_FMT_ASM: none) */
    tt_format check_dir;    /* `.format` (TT_FMT_ASM: none) */
    levels dir;             /* directive levels in force */
    line_cycles *lines;     /* per source line, when a listing is wanted */
    size_t n_lines;
    uint32_t max;           /* longest program (cycles) */
    bool want_lines, oom;
    bool over;              /* the program outgrew max: said once, the rest is skipped */
} tt_as;

static int as_oom(npk_asm *a, tt_as *s)
{
    s->oom = true;
    return npk_asm_error(a, NULL, 0, "out of memory");
}

static line_cycles *line_rec(tt_as *s, unsigned line)
{
    if (!s->want_lines || line == 0)
        return NULL;
    if (line > s->n_lines) {
        size_t n = s->n_lines ? s->n_lines : 64;
        while (n < line)
            n *= 2;
        line_cycles *l = realloc(s->lines, n * sizeof *l);
        if (!l)
            return NULL;
        memset(l + s->n_lines, 0, (n - s->n_lines) * sizeof *l);
        s->lines = l;
        s->n_lines = n;
    }
    return &s->lines[line - 1];
}

/* The program outgrew the max_cycles limit: one error (at `at`), then every later line is
 * skipped, since each would only repeat it. */
static int too_long(npk_asm *a, tt_as *s, const char *at, size_t len)
{
    if (!s->over)
        npk_asm_error(a, at, len,
                      "program longer than %u cycles: the rest of the file is not read (the "
                      "limit is the max_cycles setting, at most %u)",
                      s->max, TT_MAX_CYCLES_LIMIT);
    s->over = true;
    return -1;
}

/* Append cycle c (the current line's; fill = an idle cycle of an `@k` gap). */
static int emit(npk_asm *a, tt_as *s, tt_cycle *c, const tt_hostw *hw, unsigned nh, bool fill)
{
    if (s->over || s->p->n - s->n0 >= s->max)
        return too_long(a, s, NULL, 0);
    c->line = npk_asm_line(a);
    if (tt_program_add(s->p, c, hw, nh))
        return as_oom(a, s);
    uint32_t k = (uint32_t)(s->p->n - s->n0);
    line_cycles *l = line_rec(s, c->line);
    if (l) {
        uint32_t *first = fill ? &l->fill_first : &l->first;
        uint32_t *last = fill ? &l->fill_last : &l->last;
        if (!*first)
            *first = k;
        *last = k;
    }
    return 0;
}

static tt_cycle idle_with(const levels *lv)
{
    tt_cycle c;
    memset(&c, 0, sizeof c);
    c.pathway = lv->pathway;
    c.leak = lv->leak;
    c.inv = lv->inv;
    c.lr = lv->lr;
    return c;
}

/* Levels of the last cycle so far (the initial levels before cycle 1). */
static levels last_levels(const tt_as *s)
{
    if (s->p->n == s->n0)
        return (levels){0, 0, 0, s->lr0};
    const tt_cycle *c = &s->p->c[s->p->n - 1];
    return (levels){c->pathway, c->leak, c->inv, c->lr};
}

static size_t cycles(const tt_as *s)
{
    return s->p->n - s->n0;
}

/* Largest value of field f in format fmt (for N lanes). */
static uint64_t field_max(tt_format fmt, unsigned N, unsigned f)
{
    unsigned lsb, width;
    if (tt_field_pos(fmt, N, f, 0, &lsb, &width))
        return 0;
    return (UINT64_C(1) << width) - 1;
}

/* A Q8.8 value as one word of the line (error at it otherwise). */
static int q88_operand(npk_asm *a, npk_cur *c, const char *what, uint16_t *v)
{
    npk_cur_ws(c);
    const char *w;
    size_t n = npk_cur_word(c, &w);
    if (!n)
        return npk_asm_error(a, c->p, 1, "%s needs a Q8.8 value (0x00C0 or 0.75)", what);
    if (tt_parse_q88(w, n, v) == 0)
        return 0;
    bool integer = true;
    for (size_t i = (w[0] == '-' || w[0] == '+'); i < n; i++)
        integer &= w[i] >= '0' && w[i] <= '9';
    if (integer && n > (size_t)(w[0] == '-' || w[0] == '+'))
        return npk_asm_error(a, w, n,
                             "Q8.8 value '%.*s' is ambiguous: write %.*s.0 for the number or "
                             "0x%04X for raw bits",
                             (int)n, w, (int)n, w, (unsigned)(strtol(w, NULL, 10) & 0xFFFF));
    return npk_asm_error(a, w, n,
                         "'%.*s' is not a Q8.8 value (hex raw bits 0x0000..0xFFFF, or a decimal "
                         "with a point such as 0.75)",
                         (int)n, w);
}

/* The format checks in force: param and `.format`. */
static int check_fields(npk_asm *a, tt_as *s, const uint64_t *val, const char *const *at,
                        const unsigned *fields, size_t nf)
{
    const tt_format chk[2] = {s->check_param, s->check_dir};
    int rc = 0;
    for (int k = 0; k < 2; k++) {
        if (chk[k] > TT_FMT_WFULL || (k == 1 && chk[1] == chk[0]))
            continue;
        for (size_t i = 0; i < nf; i++) {
            uint64_t max = field_max(chk[k], s->N, fields[i]);
            if (val[i] > max)
                rc = npk_asm_error(a, at[i], 0, "%s %llu does not fit the %s format (0..%llu)",
                                   tt_fields[fields[i]].name, (unsigned long long)val[i],
                                   tt_format_names[chk[k]], (unsigned long long)max);
        }
    }
    return rc;
}

/* `read <chan>|sel=<n> addr= rows= cols= [t]` after the `read` keyword. */
enum { KV_SEL, KV_ADDR, KV_ROWS, KV_COLS, KV_T };
static int read_clause(npk_asm *a, npk_cur *c, tt_as *s, const char *kw, tt_cycle *cy)
{
    static const npk_kvspec spec[] = {{"sel", 0, 0, 511},
                                      {"addr", 0, 0, 65535},
                                      {"rows", 0, 0, 65535},
                                      {"cols", 0, 0, 65535},
                                      {"t", NPK_KV_FLAG, 0, 1}};
    npk_cur save = *c;
    const char *w;
    size_t n = npk_cur_ident(c, &w);
    int chan = -1;
    for (int i = 0; n && i < TT_N_CHANNELS; i++)
        if (npk_eq_nocase(w, n, tt_channel_names[i]))
            chan = i;
    if (chan < 0) {
        bool key = false;
        for (size_t i = 0; n && i < 5; i++)
            key |= npk_eq_nocase(w, n, spec[i].key);
        if (n && !key)
            return npk_asm_error(a, w, n,
                                 "unknown channel '%.*s' (input weight bias y h gbias gweight, "
                                 "or sel=<0..511>)",
                                 (int)n, w);
        *c = save;
    }
    npk_kvres kv;
    if (npk_asm_kvlist(a, c, spec, 5, NPK_KV_BLANKS | NPK_KV_STOP, kw, &kv))
        return -1;
    if (chan >= 0 && (kv.present >> KV_SEL & 1))
        return npk_asm_error(a, kv.at[KV_SEL], 3, "give a channel name or sel=, not both");
    if (chan < 0 && !(kv.present >> KV_SEL & 1))
        return npk_asm_error(a, kw, 4,
                             "'read' needs a channel (input weight bias y h gbias gweight) or "
                             "sel=<0..511>");
    cy->start = 1;
    cy->sel = (uint16_t)(chan >= 0 ? chan : kv.val[KV_SEL]);
    cy->addr = (uint16_t)kv.val[KV_ADDR];
    cy->rows = (uint16_t)kv.val[KV_ROWS];
    cy->cols = (uint16_t)kv.val[KV_COLS];
    cy->T = (uint8_t)kv.val[KV_T];
    const unsigned f[4] = {TT_F_SEL, TT_F_ADDR, TT_F_ROWS, TT_F_COLS};
    const uint64_t v[4] = {cy->sel, cy->addr, cy->rows, cy->cols};
    const char *at[4] = {kv.present & 1 ? kv.at[KV_SEL] : w, kv.at[KV_ADDR], kv.at[KV_ROWS],
                         kv.at[KV_COLS]};
    return check_fields(a, s, v, at, f, 4);
}

static int tt_statement(npk_asm *a, npk_cur *c)
{
    tt_as *s = npk_asm_user(a);
    const char *at_k = NULL;
    int64_t k = 0;
    if (s->over) {
        c->p = c->end;
        return 0;
    }
    npk_cur_ws(c);
    if (*c->p == '@') {
        at_k = c->p++;
        npk_expr e;
        if (npk_asm_expr_full(a, c, NPK_EXPR_NO_FORWARD, &e) ||
            npk_asm_check_range(a, &e, 1, s->max, "cycle"))
            goto bad;
        k = e.value;
        if ((size_t)k <= cycles(s)) {
            npk_asm_error(a, at_k, (size_t)(c->p - at_k),
                          "@%lld is not after the previous cycle (%zu)", (long long)k, cycles(s));
            goto bad;
        }
    }
    npk_cur_ws(c);
    const char *kw = c->p;
    if (npk_cur_keyword(c, "nop")) {
        if (at_k) {
            npk_asm_error(a, kw, 3, "'nop' cannot be placed with @ (write the idle gap as @k)");
            goto bad;
        }
        int64_t n = 1;
        if (!npk_cur_eol(c)) {
            npk_expr e;
            if (npk_asm_expr_full(a, c, NPK_EXPR_NO_FORWARD, &e))
                goto bad;
            if (e.value > 0 && (uint64_t)e.value > s->max - cycles(s))
                return too_long(a, s, e.at, e.len);
            if (npk_asm_check_range(a, &e, 1, s->max, "nop count"))
                goto bad;
            n = e.value;
        }
        if (cycles(s) + (size_t)n > s->max)
            return too_long(a, s, kw, 3);
        for (int64_t i = 0; i < n; i++) {
            tt_cycle cy = idle_with(&s->dir);
            if (emit(a, s, &cy, NULL, 0, false))
                return -1;
        }
        return 0;
    }
    tt_cycle cy = idle_with(&s->dir);
    tt_hostw hw[TT_MAX_N];
    unsigned nh = 0;
    const char *read_at = NULL;
    bool sw = false;
    while (!npk_cur_eol(c)) {
        const char *w;
        size_t n = npk_cur_ident(c, &w);
        if (!n) {
            npk_asm_error(a, c->p, 1, "expected a clause (sw, read ..., host<i>=<value>)");
            goto bad;
        }
        if (npk_eq_nocase(w, n, "sw")) {
            if (sw) {
                npk_asm_error(a, w, n, "'sw' given twice");
                goto bad;
            }
            sw = true;
            cy.sw = 1;
        } else if (npk_eq_nocase(w, n, "read")) {
            if (read_at) {
                npk_asm_error(a, w, n, "a cycle has at most one read");
                goto bad;
            }
            read_at = w;
            if (read_clause(a, c, s, w, &cy))
                goto bad;
        } else if (n > 4 && npk_eq_nocase(w, 4, "host")) {
            unsigned lane = 0;
            bool digits = n - 4 <= 4 && (n == 5 || w[4] != '0');
            for (size_t i = 4; i < n && digits; i++) {
                digits = w[i] >= '0' && w[i] <= '9';
                lane = lane * 10 + (unsigned)(w[i] - '0');
            }
            if (!digits) {
                npk_asm_error(a, w, n, "unknown clause '%.*s' (host lanes are host0, host1, ...)",
                              (int)n, w);
                goto bad;
            }
            if (lane >= s->N) {
                npk_asm_error(a, w, n, "host lane %u does not exist (N = %u)", lane, s->N);
                goto bad;
            }
            for (unsigned i = 0; i < nh; i++)
                if (hw[i].lane == lane) {
                    npk_asm_error(a, w, n, "host lane %u written twice in one cycle", lane);
                    goto bad;
                }
            if (!npk_cur_accept(c, '=')) {
                npk_asm_error(a, w, n, "'%.*s' needs a value ('%.*s=0x00C0' or '%.*s=0.75')",
                              (int)n, w, (int)n, w, (int)n, w);
                goto bad;
            }
            uint16_t v;
            if (q88_operand(a, c, "a host write", &v))
                goto bad;
            hw[nh++] = (tt_hostw){(uint16_t)lane, v};
        } else {
            npk_asm_error(a, w, n, "unknown clause '%.*s' (sw, read, host<i>=, or nop)", (int)n, w);
            goto bad;
        }
    }
    if (at_k) {
        levels prev = last_levels(s);
        while (cycles(s) + 1 < (size_t)k) {
            tt_cycle f = idle_with(&prev);
            if (emit(a, s, &f, NULL, 0, true))
                return -1;
        }
    }
    return emit(a, s, &cy, hw, nh, false);
bad:
    c->p = c->end;
    if (at_k && (size_t)k > cycles(s)) {
        levels prev = last_levels(s);
        while (cycles(s) + 1 < (size_t)k) {
            tt_cycle f = idle_with(&prev);
            if (emit(a, s, &f, NULL, 0, true))
                return -1;
        }
    }
    /* a cycle is still counted, so later lines keep their cycle numbers (at the limit, the
     * rest is skipped: this line's error is the one to see) */
    if (cycles(s) >= s->max) {
        s->over = true;
        return -1;
    }
    tt_cycle idle = idle_with(&s->dir);
    emit(a, s, &idle, NULL, 0, false);
    return -1;
}

/* ---- directives ------------------------------------------------------------------------------ */

enum { LV_PATHWAY, LV_LEAK, LV_INV, LV_LR };

static int dir_level(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    tt_as *s = npk_asm_user(a);
    if (d->arg == LV_PATHWAY) {
        npk_cur_ws(c);
        const char *w;
        size_t n = npk_cur_word(c, &w);
        unsigned v = 0;
        bool ok = n == 4;
        for (size_t i = 0; i < n && ok; i++) {
            ok = w[i] == '0' || w[i] == '1';
            v = v * 2 + (unsigned)(w[i] == '1');
        }
        if (!ok)
            return npk_asm_error(a, n ? w : c->p, n,
                                 ".pathway needs 4 binary digits {bias lrelu loss deriv}, e.g. "
                                 "1100");
        s->dir.pathway = (uint8_t)v;
        return 0;
    }
    uint16_t v;
    if (q88_operand(a, c, d->name, &v))
        return -1;
    if (d->arg == LV_LEAK)
        s->dir.leak = v;
    else if (d->arg == LV_INV)
        s->dir.inv = v;
    else
        s->dir.lr = v;
    return 0;
}

static int dir_reset(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    (void)c, (void)d;
    tt_as *s = npk_asm_user(a);
    tt_cycle cy = idle_with(&s->dir);
    cy.rst = 1;
    return emit(a, s, &cy, NULL, 0, false);
}

static int dir_lanes(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    (void)d;
    tt_as *s = npk_asm_user(a);
    npk_expr e;
    if (npk_asm_expr_full(a, c, NPK_EXPR_NO_FORWARD, &e))
        return -1;
    if (e.value != (int64_t)s->N)
        return npk_asm_error(a, e.at, e.len, "'.lanes %lld' does not match the machine's N = %u",
                             (long long)e.value, s->N);
    return 0;
}

static int dir_format(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    (void)d;
    tt_as *s = npk_asm_user(a);
    npk_cur_ws(c);
    const char *w;
    size_t n = npk_cur_ident(c, &w);
    int f = -1;
    for (int i = 0; n && i <= TT_FMT_WFULL; i++)
        if (npk_eq_nocase(w, n, tt_format_names[i]))
            f = i;
    if (f < 0)
        return npk_asm_error(a, n ? w : c->p, n, ".format needs w88, w94, w130 or wfull");
    if (cycles(s))
        return npk_asm_error(a, w, n, ".format must come before the first cycle");
    if (!tt_format_bits((tt_format)f, s->N))
        return npk_asm_error(a, w, n, "%s words need N = 2 (N = %u; use wfull)",
                             tt_format_names[f], s->N);
    s->check_dir = (tt_format)f;
    return 0;
}

static int dir_word(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    tt_as *s = npk_asm_user(a);
    const tt_format f = (tt_format)d->arg;
    const unsigned bits = tt_format_bits(f, s->N);
    npk_cur_ws(c);
    const char *at = c->p;
    tt_packed w;
    memset(&w, 0, sizeof w);
    int rc = 0;
    if (!bits)
        rc = npk_asm_error(a, NULL, 0, "%s words need N = 2 (N = %u; use .wfull)", d->name + 1,
                           s->N);
    else
        rc = npk_asm_hexbits(a, c, w.w, TT_WORD_U64, bits);
    tt_cycle cy;
    tt_hostw hw[TT_MAX_N];
    unsigned nh = 0;
    if (rc) {
        c->p = c->end;
        cy = idle_with(&s->dir);
    } else {
        tt_decode(f, s->N, &w, &cy, hw, &nh);
        cy.lr = s->dir.lr; /* lr is in no word */
        const unsigned fl[4] = {TT_F_SEL, TT_F_ADDR, TT_F_ROWS, TT_F_COLS};
        const uint64_t v[4] = {cy.sel, cy.addr, cy.rows, cy.cols};
        const char *ats[4] = {at, at, at, at};
        rc = check_fields(a, s, v, ats, fl, 4);
    }
    if (emit(a, s, &cy, hw, nh, false))
        return -1;
    return rc;
}

static int tt_begin_pass(npk_asm *a)
{
    tt_as *s = npk_asm_user(a);
    s->p->n = s->n0;
    s->p->n_hw = s->hw0;
    s->dir = (levels){0, 0, 0, s->lr0};
    s->check_dir = TT_FMT_ASM;
    s->over = false;
    if (s->lines)
        memset(s->lines, 0, s->n_lines * sizeof *s->lines);
    if (s->check_param <= TT_FMT_WFULL && !tt_format_bits(s->check_param, s->N))
        npk_asm_error(a, NULL, 0, "%s words need N = 2 (N = %u; use wfull)",
                      tt_format_names[s->check_param], s->N);
    return 0;
}

static const npk_asm_dir tt_dirs[] = {
    {".pathway", dir_level, LV_PATHWAY}, {".leak", dir_level, LV_LEAK},
    {".inv", dir_level, LV_INV},         {".lr", dir_level, LV_LR},
    {".reset", dir_reset, 0},            {".lanes", dir_lanes, 0},
    {".format", dir_format, 0},          {".w88", dir_word, TT_FMT_W88},
    {".w94", dir_word, TT_FMT_W94},      {".w130", dir_word, TT_FMT_W130},
    {".wfull", dir_word, TT_FMT_WFULL},
};

static const npk_asm_target tt_target = {
    .name = "tinytpu",
    .comment_chars = ";",
    .flags = NPK_ASM_NO_FORWARD,
    .dirs = tt_dirs,
    .n_dirs = sizeof tt_dirs / sizeof tt_dirs[0],
    .statement = tt_statement,
    .begin_pass = tt_begin_pass,
};

static int run_asm(const char *src, const char *name, unsigned N, uint16_t lr0,
                   const tt_asm_opts *opt, tt_program *p, FILE *diag, tt_as *s)
{
    const char *file = name ? name : "<input>";
    if (N < 2 || N > TT_MAX_N) {
        if (diag)
            fprintf(diag, "%s: error: N = %u is outside 2..%u\n", file, N, TT_MAX_N);
        return 1;
    }
    s->p = p;
    s->n0 = p->n;
    s->hw0 = p->n_hw;
    s->N = N;
    s->lr0 = lr0;
    s->check_param = opt->check;
    s->max = opt->max_cycles ? opt->max_cycles : TT_DEFAULT_MAX_CYCLES;
    if (s->max > TT_MAX_CYCLES_LIMIT)
        s->max = TT_MAX_CYCLES_LIMIT;
    npk_asm_opts o;
    memset(&o, 0, sizeof o);
    o.diag = diag;
    npk_asm_result *r = npk_asm_run(&tt_target, s, src, src ? strlen(src) : 0, file, &o), *ok;
    int e = npk_asm_result_check(r, file, diag, &ok);
    npk_asm_result_free(ok);
    if (!e && s->oom)
        e = 1;
    if (e) {
        p->n = s->n0;
        p->n_hw = s->hw0;
    }
    return e;
}

static void print_listing(const char *src, const char *name, const tt_program *p, size_t n0,
                          const tt_as *s, tt_format words, FILE *out);

int tt_assemble_opts(const char *src, const char *name, tt_format fmt, unsigned N, uint16_t lr0,
                     const tt_asm_opts *o, tt_program *p, FILE *diag)
{
    static const tt_asm_opts none = {TT_FMT_ASM, 0, NULL, TT_FMT_W130};
    if (!o)
        o = &none;
    if (fmt != TT_FMT_ASM)
        return tt_read_words_max(src, name, fmt, N, lr0, o->max_cycles, p, diag);
    tt_as s;
    memset(&s, 0, sizeof s);
    s.want_lines = o->listing != NULL;
    size_t n0 = p->n;
    int e = run_asm(src, name, N, lr0, o, p, diag, &s);
    if (!e && o->listing)
        print_listing(src, name, p, n0, &s, o->list_words, o->listing);
    free(s.lines);
    return e;
}

int tt_assemble_for(const char *src, const char *name, tt_format fmt, unsigned N, uint16_t lr0,
                    tt_format check, tt_program *p, FILE *diag)
{
    tt_asm_opts o = {check, 0, NULL, TT_FMT_W130};
    return tt_assemble_opts(src, name, fmt, N, lr0, &o, p, diag);
}

int tt_assemble(const char *src, const char *name, tt_format fmt, unsigned N, uint16_t lr0,
                tt_program *p, FILE *diag)
{
    return tt_assemble_for(src, name, fmt, N, lr0, TT_FMT_ASM, p, diag);
}

/* ---- listing --------------------------------------------------------------------------------- */

static void range_text(char *buf, size_t n, uint32_t a, uint32_t b)
{
    if (a == b)
        snprintf(buf, n, "%u", a);
    else
        snprintf(buf, n, "%u-%u", a, b);
}

/* One line per source line: its cycles, the word of its last cycle in format `words`, the line
 * number and the text (spec B7.3: the cycle number of every line). */
static void print_listing(const char *src, const char *name, const tt_program *p, size_t n0,
                          const tt_as *s, tt_format words, FILE *out)
{
    /* the word column is as wide as one word of the format */
    int width = (int)tt_cycle_text_width(words, p->N);
    fprintf(out, "%-16s %-*s %5s  source (%s; '*': the cycle's read issues)\n", "cycle", width,
            tt_format_names[words], "line", name ? name : "<input>");
    const char *q = src ? src : "";
    for (unsigned line = 1; *q; line++) {
        const char *nl = strchr(q, '\n');
        size_t len = nl ? (size_t)(nl - q) : strlen(q);
        /* the next line starts after the newline, or at the end: never at a '\r' left out of
         * the text (a last line "x\r" without a newline looped here, found by fuzzing) */
        const char *next = nl ? nl + 1 : q + len;
        if (len && q[len - 1] == '\r')
            len--;
        char col[96] = "", r1[32] = "", r2[32] = "";
        const line_cycles *l = line <= s->n_lines ? &s->lines[line - 1] : NULL;
        if (l && l->first) {
            range_text(r2, sizeof r2, l->first, l->last);
            const tt_cycle *c = &p->c[n0 + l->first - 1];
            bool issue = l->first == l->last &&
                         tt_read_issues(l->first > 1 ? c - 1 : NULL, c);
            if (l->fill_first)
                range_text(r1, sizeof r1, l->fill_first, l->fill_last);
            snprintf(col, sizeof col, "%s%s%s%s", r1, r1[0] ? " idle, " : "", r2,
                     issue ? "*" : "");
            fprintf(out, "%-16s ", col);
            tt_cycle_text(p, n0 + l->last - 1, words, width, out);
        } else {
            fprintf(out, "%-16s %-*s", "", width, "");
        }
        fprintf(out, " %5u  %.*s\n", line, (int)len, q);
        q = next;
    }
}

int tt_listing(const char *src, const char *name, unsigned N, uint16_t lr0, tt_format words,
               FILE *out, FILE *diag)
{
    tt_program p;
    tt_program_init(&p, N);
    tt_asm_opts o = {TT_FMT_ASM, 0, out, words};
    int e = tt_assemble_opts(src, name, TT_FMT_ASM, N, lr0, &o, &p, diag);
    tt_program_free(&p);
    return e;
}

/* ---- disassembler ---------------------------------------------------------------------------- */

static levels levels_of(const tt_cycle *c)
{
    return (levels){c->pathway, c->leak, c->inv, c->lr};
}

static bool levels_eq(levels a, levels b)
{
    return a.pathway == b.pathway && a.leak == b.leak && a.inv == b.inv && a.lr == b.lr;
}

/* Can cycle c be a cycle line (clauses)? Everything a line cannot say needs a raw word. */
static bool line_ok(const tt_program *p, const tt_cycle *c)
{
    if (c->rst || c->sw > 1 || c->start > 1 || c->T > 1 || c->sel > 511 || c->pathway > 15)
        return false;
    if (!c->start && (c->T || c->sel || c->addr || c->rows || c->cols))
        return false;
    for (unsigned i = 0; i < c->n_host; i++) {
        if (p->hw[c->host + i].lane >= p->N)
            return false;
        for (unsigned j = 0; j < i; j++)
            if (p->hw[c->host + j].lane == p->hw[c->host + i].lane)
                return false;
    }
    return true;
}

static bool idle(const tt_program *p, const tt_cycle *c)
{
    return line_ok(p, c) && !c->start && !c->sw && !c->n_host;
}

static void put_q88(FILE *out, const char *dir, uint16_t v)
{
    fprintf(out, "%s 0x%04X ; %.8g\n", dir, v, (double)(int16_t)v / 256.0);
}

/* Directives that take the directive levels from *d to want. */
static void set_levels(FILE *out, levels *d, levels want)
{
    if (d->pathway != want.pathway)
        fprintf(out, ".pathway %u%u%u%u\n", want.pathway >> 3 & 1, want.pathway >> 2 & 1,
                want.pathway >> 1 & 1, want.pathway & 1);
    if (d->leak != want.leak)
        put_q88(out, ".leak", want.leak);
    if (d->inv != want.inv)
        put_q88(out, ".inv", want.inv);
    if (d->lr != want.lr)
        put_q88(out, ".lr", want.lr);
    *d = want;
}

static void put_nop(FILE *out, size_t n)
{
    if (n > 1)
        fprintf(out, "nop %zu\n", n);
    else
        fputs("nop\n", out);
}

/* The clauses of cycle c (host writes hw), separated by spaces, as snprintf: the full length
 * is returned. */
static size_t clause_text(char *out, size_t n, const tt_cycle *c, const tt_hostw *hw)
{
    size_t len = 0;
#define PUT(...)                                                                               \
    do {                                                                                       \
        int k_ = snprintf(len < n ? out + len : NULL, len < n ? n - len : 0, __VA_ARGS__);     \
        len += k_ > 0 ? (size_t)k_ : 0;                                                        \
    } while (0)
    if (n)
        out[0] = '\0';
    if (c->sw)
        PUT("sw");
    if (c->start) {
        PUT("%sread ", len ? " " : "");
        if (c->sel < TT_N_CHANNELS)
            PUT("%s", tt_channel_names[c->sel]);
        else
            PUT("sel=%u", c->sel);
        PUT(" addr=%u rows=%u cols=%u%s", c->addr, c->rows, c->cols, c->T ? " t" : "");
    }
    for (unsigned i = 0; i < c->n_host; i++)
        PUT("%shost%u=0x%04X", len ? " " : "", hw[i].lane, hw[i].value);
#undef PUT
    return len;
}

static void clauses(FILE *out, const tt_program *p, const tt_cycle *c, bool space)
{
    char buf[TT_MAX_N * 16 + 96]; /* every clause at the widest */
    clause_text(buf, sizeof buf, c, c->n_host ? p->hw + c->host : NULL);
    fprintf(out, "%s%s\n", space && buf[0] ? " " : "", buf);
}

int tt_cycle_line(const tt_cycle *c, const tt_hostw *hw, char *out, size_t n)
{
    size_t len = clause_text(out, n, c, hw);
    if (!len)
        len = (size_t)snprintf(out, n, "nop");
    int k = snprintf(len < n ? out + len : NULL, len < n ? n - len : 0,
                     " ; pathway=%u%u%u%u leak=0x%04X inv=0x%04X", c->pathway >> 3 & 1,
                     c->pathway >> 2 & 1, c->pathway >> 1 & 1, c->pathway & 1, c->leak, c->inv);
    len += k > 0 ? (size_t)k : 0;
    if (!c->start && (c->sel || c->addr || c->rows || c->cols || c->T)) {
        k = snprintf(len < n ? out + len : NULL, len < n ? n - len : 0,
                     " read fields with start 0: sel=%u addr=%u rows=%u cols=%u%s", c->sel,
                     c->addr, c->rows, c->cols, c->T ? " t" : "");
        len += k > 0 ? (size_t)k : 0;
    }
    return (int)len;
}

static int write_asm(const tt_program *p, FILE *out, char *err, size_t err_size)
{
    const unsigned N = p->N;
    if (N < 2 || N > TT_MAX_N) {
        if (err && err_size)
            snprintf(err, err_size, "N = %u is outside 2..%u", N, TT_MAX_N);
        return -1;
    }
    fprintf(out, "; tinytpu program, %zu cycles (disassembled; assumes lr = 0 before cycle 1)\n"
                 ".lanes %u\n",
            p->n, N);
    levels d = {0, 0, 0, 0}, e = d; /* directive levels; levels of the last cycle written */
    char msg[256];
    for (size_t i = 0; i < p->n;) {
        const tt_cycle *c = &p->c[i];
        if (idle(p, c) && levels_eq(levels_of(c), e)) {
            size_t j = i;
            while (j < p->n && idle(p, &p->c[j]) && levels_eq(levels_of(&p->c[j]), e))
                j++;
            if (j < p->n && line_ok(p, &p->c[j])) {
                set_levels(out, &d, levels_of(&p->c[j]));
                fprintf(out, "@%zu", j + 1);
                clauses(out, p, &p->c[j], true);
                e = d;
                i = j + 1;
            } else {
                set_levels(out, &d, e);
                put_nop(out, j - i);
                i = j;
            }
            continue;
        }
        if (c->rst) {
            set_levels(out, &d, levels_of(c));
            fprintf(out, ".reset\n");
            e = d;
        } else if (line_ok(p, c)) {
            set_levels(out, &d, levels_of(c));
            e = d;
            if (idle(p, c)) {
                /* idle with new levels: `nop n` when no cycle line follows the run */
                size_t j = i + 1;
                while (j < p->n && idle(p, &p->c[j]) && levels_eq(levels_of(&p->c[j]), e))
                    j++;
                if (j == p->n || !line_ok(p, &p->c[j])) {
                    put_nop(out, j - i);
                    i = j;
                    continue;
                }
                fprintf(out, "nop\n");
            } else {
                clauses(out, p, c, false);
            }
        } else {
            tt_packed w;
            const tt_hostw *hw = c->n_host ? p->hw + c->host : NULL;
            if (tt_encode(TT_FMT_WFULL, N, c, hw, &w, msg, sizeof msg)) {
                if (err && err_size) {
                    if (c->line)
                        snprintf(err, err_size, "cycle %zu (line %u): %s", i + 1,
                                 (unsigned)c->line, msg);
                    else
                        snprintf(err, err_size, "cycle %zu: %s", i + 1, msg);
                }
                return -1;
            }
            levels want = d;
            want.lr = c->lr;
            set_levels(out, &d, want);
            unsigned bits = tt_format_bits(TT_FMT_WFULL, N);
            char hex[TT_WORD_U64 * 16 + 1];
            npk_bits_hex(w.w, TT_WORD_U64, bits, hex, sizeof hex);
            for (char *h = hex; *h; h++)
                if (*h >= 'a' && *h <= 'f')
                    *h = (char)(*h - 'a' + 'A');
            fprintf(out, ".wfull 0x%s ; raw: start = 0 with read fields set\n", hex);
            e = levels_of(c);
        }
        i++;
    }
    return ferror(out) ? -1 : 0;
}

int tt_write_program(const tt_program *p, tt_format fmt, FILE *out, char *err, size_t err_size)
{
    if (fmt == TT_FMT_ASM)
        return write_asm(p, out, err, err_size);
    return tt_write_words(p, fmt, out, err, err_size);
}
