/* Generic operand parsers: registers from a register class, memory `expr(reg)`, pc-relative
 * targets, mnemonics with dot options, and key=value / flag-word lists. */
#include <inttypes.h>
#include <string.h>

#include "asm/internal.h"

/* ---- registers ------------------------------------------------------------------------------ */

int npk_regset_match(const npk_regset *rs, const char *s, size_t n, unsigned *num,
                     bool *range_err)
{
    *range_err = false;
    for (size_t i = 0; i < rs->n_aliases; i++)
        if (npk_eq_nocase(s, n, rs->aliases[i].name)) {
            *num = rs->aliases[i].num;
            *range_err = *num >= rs->count;
            return 1;
        }
    if (rs->names)
        for (unsigned i = 0; i < rs->count; i++)
            if (rs->names[i] && npk_eq_nocase(s, n, rs->names[i])) {
                *num = i;
                return 1;
            }
    if (!rs->prefix)
        return 0;
    size_t pl = strlen(rs->prefix);
    if (n <= pl || !npk_eq_nocase(s, pl, rs->prefix))
        return 0;
    const char *d = s + pl;
    size_t nd = n - pl;
    if (nd > 1 && d[0] == '0')
        return 0;
    unsigned long v = 0;
    for (size_t i = 0; i < nd; i++) {
        if (d[i] < '0' || d[i] > '9')
            return 0;
        if (v < 100000000ul)
            v = v * 10 + (unsigned long)(d[i] - '0');
    }
    *num = v > 0xffffffffu ? 0xffffffffu : (unsigned)v;
    *range_err = v >= rs->count;
    return 1;
}

const char *npk_regset_name(const npk_regset *rs, unsigned num, char *buf, size_t n)
{
    if (rs->names && num < rs->count && rs->names[num])
        snprintf(buf, n, "%s", rs->names[num]);
    else
        snprintf(buf, n, "%s%u", rs->prefix ? rs->prefix : "", num);
    return buf;
}

static const char *what_of(const npk_regset *rs)
{
    return rs->what ? rs->what : "register";
}

static int found_instead(npk_asm *a, npk_cur *c, const char *what)
{
    npk_cur_ws(c);
    if (c->p >= c->end)
        return npk_asm_error(a, c->p, 1, "expected %s at end of line", what);
    const char *s = c->p;
    while (s < c->end && *s != ',' && *s != ' ' && *s != '\t' && *s != '(' && *s != ')')
        s++;
    size_t n = s > c->p ? (size_t)(s - c->p) : 1;
    return npk_asm_error(a, c->p, n, "expected %s, found '%.*s'", what, (int)n, c->p);
}

static int range_msg(npk_asm *a, const npk_regset *rs, const char *s, size_t n)
{
    char lo[32], hi[32];
    if (rs->count == 0)
        return npk_asm_error(a, s, n, "%s '%.*s' does not exist here", what_of(rs), (int)n, s);
    npk_regset_name(rs, 0, lo, sizeof lo);
    npk_regset_name(rs, rs->count - 1, hi, sizeof hi);
    return npk_asm_error(a, s, n, "%s '%.*s' out of range (%s..%s)", what_of(rs), (int)n, s, lo,
                         hi);
}

int npk_asm_reg_any(npk_asm *a, npk_cur *c, const npk_regset *const *sets, size_t nsets,
                    size_t *set, unsigned *num)
{
    npk_cur save = *c;
    const char *s;
    size_t n = npk_cur_ident(c, &s);
    for (size_t i = 0; n && i < nsets; i++) {
        bool bad;
        if (npk_regset_match(sets[i], s, n, num, &bad)) {
            if (bad)
                return range_msg(a, sets[i], s, n);
            if (set)
                *set = i;
            return 0;
        }
    }
    *c = save;
    char what[128];
    size_t o = 0;
    for (size_t i = 0; i < nsets && o < sizeof what; i++) {
        const char *pre = i == 0 ? "a " : (i + 1 == nsets ? " or " : ", ");
        o += (size_t)snprintf(what + o, sizeof what - o, "%s%s", pre, what_of(sets[i]));
    }
    if (nsets == 0)
        snprintf(what, sizeof what, "a register");
    return found_instead(a, c, what);
}

int npk_asm_reg(npk_asm *a, npk_cur *c, const npk_regset *rs, unsigned *num)
{
    return npk_asm_reg_any(a, c, &rs, 1, NULL, num);
}

/* ---- memory and pc-relative operands --------------------------------------------------------- */

int npk_asm_mem(npk_asm *a, npk_cur *c, const npk_regset *rs, int64_t lo, int64_t hi,
                int64_t *off, unsigned *reg)
{
    npk_cur_ws(c);
    *off = 0;
    bool has_off = true;
    if (c->p < c->end && *c->p == '(') {
        /* "(reg)" without offset, or an offset expression in parentheses */
        npk_cur t = {c->p + 1, c->end};
        const char *s;
        size_t n = npk_cur_ident(&t, &s);
        unsigned num;
        bool bad;
        if (n && npk_regset_match(rs, s, n, &num, &bad) && npk_cur_peek(&t, ')'))
            has_off = false;
    }
    if (has_off) {
        npk_expr e;
        if (npk_asm_expr_full(a, c, 0, &e) || npk_asm_check_range(a, &e, lo, hi, "offset"))
            return -1;
        *off = e.value;
        if (!npk_cur_peek(c, '('))
            return found_instead(a, c, "'(' and a base register");
    }
    c->p++; /* '(' */
    if (npk_asm_reg(a, c, rs, reg))
        return -1;
    return npk_asm_expect(a, c, ')');
}

static void hex_signed(char *buf, size_t n, int64_t v)
{
    if (v < 0)
        snprintf(buf, n, "-0x%" PRIx64, (uint64_t)0 - (uint64_t)v);
    else
        snprintf(buf, n, "0x%" PRIx64, (uint64_t)v);
}

int npk_asm_pcrel(npk_asm *a, npk_cur *c, uint64_t pc, unsigned align, unsigned scale,
                  int64_t lo, int64_t hi, int64_t *enc)
{
    npk_expr e;
    if (npk_asm_expr_full(a, c, 0, &e))
        return -1;
    char tgt[32];
    hex_signed(tgt, sizeof tgt, e.value);
    if (pc > (uint64_t)INT64_MAX)
        return npk_asm_error(a, e.at, e.len, "pc 0x%" PRIx64 " too large", pc);
    int64_t p = (int64_t)pc, diff;
    if ((p > 0 && e.value < INT64_MIN + p))
        return npk_asm_error(a, e.at, e.len, "branch target %s out of range", tgt);
    diff = e.value - p;
    if (align > 1 && diff % (int64_t)align != 0)
        return npk_asm_error(a, e.at, e.len, "branch target %s is not %u-byte aligned", tgt,
                             align);
    int64_t v = diff / (int64_t)(scale ? scale : 1);
    if (v < lo || v > hi)
        return npk_asm_error(a, e.at, e.len,
                             "branch target %s out of range (offset %" PRId64 ", range %" PRId64
                             "..%" PRId64 ")",
                             tgt, v, lo, hi);
    *enc = v;
    return 0;
}

/* ---- mnemonics and options ----------------------------------------------------------------- */

int npk_asm_mnemonic(npk_asm *a, npk_cur *c, const char *const *names, size_t n,
                     const npk_asm_opt *opts, size_t nopts, npk_mnem *m)
{
    memset(m, 0, sizeof *m);
    m->index = -1;
    if (nopts > NPK_ASM_MAX_OPTS)
        nopts = NPK_ASM_MAX_OPTS;
    const char *s;
    size_t len = npk_cur_ident(c, &s);
    if (!len)
        return found_instead(a, c, "a mnemonic");
    m->at = s;
    m->len = len;
    size_t k = len;
    for (; k > 0; k--) {
        if (k < len && s[k] != '.')
            continue;
        for (size_t i = 0; i < n; i++)
            if (npk_eq_nocase(s, k, names[i])) {
                m->index = (int)i;
                break;
            }
        if (m->index >= 0)
            break;
    }
    if (m->index < 0)
        return npk_asm_error(a, s, len, "unknown mnemonic '%.*s'", (int)len, s);
    m->base_len = k;
    int rc = 0;
    const char *p = s + k, *end = s + len;
    while (p < end) {
        p++; /* '.' */
        const char *o = p;
        while (p < end && *p != '.')
            p++;
        size_t ol = (size_t)(p - o);
        if (ol == 0) {
            rc = npk_asm_error(a, o - 1, 1, "empty option in '%.*s'", (int)len, s);
            continue;
        }
        size_t j = 0;
        while (j < nopts && !npk_eq_nocase(o, ol, opts[j].name))
            j++;
        if (j == nopts) {
            rc = npk_asm_error(a, o - 1, ol + 1, "unknown option '.%.*s' for '%.*s'", (int)ol, o,
                               (int)k, s);
            continue;
        }
        if (m->opts >> j & 1) {
            rc = npk_asm_error(a, o - 1, ol + 1, "option '.%s' given twice", opts[j].name);
            continue;
        }
        bool clash = false;
        for (size_t i = 0; opts[j].group && i < nopts; i++)
            if ((m->opts >> i & 1) && opts[i].group == opts[j].group) {
                rc = npk_asm_error(a, o - 1, ol + 1, "option '.%s' conflicts with '.%s'",
                                   opts[j].name, opts[i].name);
                clash = true;
            }
        if (clash)
            continue;
        m->opts |= (uint64_t)1 << j;
        m->opt_at[j] = o - 1;
        m->opt_len[j] = ol + 1;
    }
    return rc;
}

int npk_asm_opts_allowed(npk_asm *a, const npk_mnem *m, uint64_t allowed,
                         const npk_asm_opt *opts, size_t nopts)
{
    int rc = 0;
    for (size_t j = 0; j < nopts && j < NPK_ASM_MAX_OPTS; j++)
        if ((m->opts >> j & 1) && !(allowed >> j & 1))
            rc = npk_asm_error(a, m->opt_at[j], m->opt_len[j],
                               "option '.%s' is not allowed on '%.*s'", opts[j].name,
                               (int)m->base_len, m->at);
    return rc;
}

/* ---- key=value lists ----------------------------------------------------------------------- */

int npk_asm_kvlist(npk_asm *a, npk_cur *c, const npk_kvspec *spec, size_t n, unsigned mode,
                   const char *mnem_at, npk_kvres *out)
{
    memset(out, 0, sizeof *out);
    if (n > NPK_KV_MAX)
        n = NPK_KV_MAX;
    bool blanks = mode & NPK_KV_BLANKS, stop = mode & NPK_KV_STOP;
    bool more = !npk_cur_eol(c);
    while (more) {
        npk_cur save = *c;
        const char *s;
        size_t len = npk_cur_ident(c, &s);
        size_t j = 0;
        while (len && j < n && !npk_eq_nocase(s, len, spec[j].key))
            j++;
        if (!len || j == n) {
            if (stop) {
                *c = save;
                break;
            }
            if (!len)
                return found_instead(a, c, "an operand");
            char keys[256];
            size_t o = 0;
            for (size_t i = 0; i < n && o < sizeof keys; i++)
                o += (size_t)snprintf(keys + o, sizeof keys - o, "%s%s", i ? ", " : "",
                                      spec[i].key);
            return npk_asm_error(a, s, len, "unknown operand '%.*s' (expected %s)", (int)len, s,
                                 n ? keys : "none");
        }
        if (out->present >> j & 1)
            return npk_asm_error(a, s, len, "operand '%s' given twice", spec[j].key);
        out->at[j] = s;
        if (spec[j].flags & NPK_KV_FLAG) {
            if (npk_cur_peek(c, '='))
                return npk_asm_error(a, c->p, 1, "'%s' is a flag and takes no value", spec[j].key);
            out->val[j] = 1;
        } else {
            npk_expr e;
            if (!npk_cur_peek(c, '='))
                return npk_asm_error(a, s, len, "operand '%s' needs a value ('%s=...')",
                                     spec[j].key, spec[j].key);
            c->p++;
            if (npk_asm_expr_full(a, c, 0, &e) ||
                npk_asm_check_range(a, &e, spec[j].lo, spec[j].hi, spec[j].key))
                return -1;
            out->val[j] = e.value;
        }
        out->present |= (uint64_t)1 << j;
        if (npk_cur_eol(c))
            break;
        if (!blanks) {
            if (!npk_cur_accept(c, ',')) {
                if (stop)
                    break;
                return npk_asm_expect(a, c, ',');
            }
            if (npk_cur_eol(c))
                return npk_asm_error(a, c->p, 1, "expected an operand after ','");
        }
    }
    int rc = 0;
    for (size_t j = 0; j < n; j++)
        if ((spec[j].flags & NPK_KV_REQUIRED) && !(out->present >> j & 1)) {
            npk_cur_ws(c);
            const char *at = mnem_at ? mnem_at : c->p;
            rc = npk_asm_error(a, at, 1, "missing operand '%s'", spec[j].key);
        }
    return rc;
}
