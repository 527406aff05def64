/* Generic directives a target can enable under any name: .equ, .include, integer, float and
 * string data, .space, .align, .org. Lists are split at top-level commas first, so one bad
 * element is reported and the others still assemble (and the layout stays the same). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "asm/internal.h"
#include "num/num.h"

/* End of the comma-separated element starting at p (outside parentheses and quotes). */
static const char *elem_end(const char *p, const char *end)
{
    int depth = 0;
    while (p < end) {
        char ch = *p;
        if (ch == '"' || ch == '\'') {
            p++;
            while (p < end && *p != ch)
                p += *p == '\\' && p + 1 < end ? 2 : 1;
            if (p < end)
                p++;
            continue;
        }
        if (ch == '(')
            depth++;
        else if (ch == ')' && depth > 0)
            depth--;
        else if (ch == ',' && depth == 0)
            return p;
        p++;
    }
    return end;
}

typedef int (*elem_fn)(npk_asm *a, npk_cur *e, const npk_asm_dir *d);

static int each_elem(npk_asm *a, npk_cur *c, const npk_asm_dir *d, elem_fn fn)
{
    if (npk_cur_eol(c))
        return npk_asm_error(a, c->p, 1, "'%s' needs at least one value", d->name);
    int rc = 0;
    for (;;) {
        npk_cur e = {c->p, elem_end(c->p, c->end)};
        if (fn(a, &e, d) || npk_asm_end(a, &e))
            rc = -1;
        c->p = e.end;
        if (c->p >= c->end || a->stopped)
            break;
        c->p++;
    }
    c->p = c->end;
    return rc;
}

/* ---- .equ, .include ---------------------------------------------------------------------- */

int npk_asm_dir_equ(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    const char *s;
    size_t n = npk_cur_ident(c, &s);
    if (!n || s[0] == '.') {
        npk_cur_ws(c);
        return npk_asm_error(a, n ? s : c->p, n ? n : 1, "expected a symbol name after '%s'",
                             d->name);
    }
    const char *why = a->t->reserved ? a->t->reserved(a, s, n) : NULL;
    if (why) {
        c->p = c->end;
        return npk_asm_error(a, s, n, "'%.*s' is %s and cannot be defined", (int)n, s, why);
    }
    unsigned before = a->unresolved;
    npk_expr e;
    if (npk_asm_expect(a, c, ',') || npk_asm_expr_full(a, c, 0, &e)) {
        asm_define_failed(a, s, n, NPK_SYM_EQU, a->unresolved > before, s);
        return -1;
    }
    return npk_asm_define(a, s, n, e.value, NPK_SYM_EQU, s);
}

int npk_asm_dir_include(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    (void)d;
    npk_cur_ws(c);
    const char *at = c->p, *str;
    size_t len;
    if (npk_asm_string(a, c, &str, &len) || npk_asm_end(a, c))
        return -1;
    size_t span = (size_t)(c->p - at);
    if (len == 0 || memchr(str, '\0', len))
        return npk_asm_error(a, at, span, "invalid file name");
    char *rel = asm_strndup(a, str, len);
    if (!rel)
        return -1;
    unsigned max = a->opts.max_include_depth ? a->opts.max_include_depth : 16;
    if (a->depth >= max) {
        free(rel);
        return npk_asm_error(a, at, span, ".include nested too deeply (limit %u)", max);
    }
    char *path = asm_path_join(a, a->files[a->frame->file].key, rel);
    free(rel);
    if (!path)
        return -1;
    for (asm_frame *f = a->frame; f; f = f->parent)
        if (strcmp(a->files[f->file].key, path) == 0) {
            int rc = npk_asm_error(a, at, span, "recursive .include of '%s'", path);
            free(path);
            return rc;
        }
    long idx = asm_load_file(a, path, at, span);
    free(path);
    if (idx < 0)
        return -1;
    asm_process_file(a, (size_t)idx);
    return 0;
}

/* ---- data ------------------------------------------------------------------------------- */

static int int_elem(npk_asm *a, npk_cur *e, const npk_asm_dir *d)
{
    unsigned nb = d->arg >= 1 && d->arg <= 8 ? (unsigned)d->arg : 4;
    npk_expr x;
    int rc = npk_asm_expr_full(a, e, nb == 8 ? NPK_EXPR_U64 : 0, &x);
    if (rc == 0 && nb < 8) {
        int64_t lo = -((int64_t)1 << (8 * nb - 1)), hi = (int64_t)(((uint64_t)1 << (8 * nb)) - 1);
        rc = npk_asm_check_range(a, &x, lo, hi, "value");
    }
    npk_asm_emit_le(a, rc ? 0 : (uint64_t)x.value, nb);
    return rc;
}

int npk_asm_dir_int(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    return each_elem(a, c, d, int_elem);
}

static const char *fmt_name(npk_fmt f)
{
    switch (f) {
    case NPK_FMT_F32: return "f32";
    case NPK_FMT_BF16: return "bf16";
    case NPK_FMT_E4M3: return "e4m3";
    case NPK_FMT_E5M2: return "e5m2";
    default: return "f64";
    }
}

int npk_asm_float_bits(npk_asm *a, npk_cur *c, npk_fmt fmt, uint64_t *bits)
{
    double v;
    const char *text;
    size_t len;
    if (npk_asm_float(a, c, &v, &text, &len))
        return -1;
    if (a->t->float_bits)
        return a->t->float_bits(a, text, len, v, fmt, bits);
    uint64_t d;
    memcpy(&d, &v, sizeof d);
    npk_fenv env;
    npk_fenv_init(&env, NPK_RM_RNE);
    *bits = npk_fmt_convert(fmt, NPK_FMT_F64, d, 0, &env);
    if ((env.flags & NPK_FLAG_OF) && npk_fmt_is_inf(fmt, *bits))
        npk_asm_warning(a, text, len, "'%.*s' overflows %s and becomes infinity", (int)len, text,
                        fmt_name(fmt));
    else if ((env.flags & NPK_FLAG_OF))
        npk_asm_warning(a, text, len, "'%.*s' overflows %s", (int)len, text, fmt_name(fmt));
    unsigned w = npk_fmt_width(fmt);
    uint64_t mag = *bits & ((((uint64_t)1) << (w - 1)) - 1);
    if (v != 0 && mag == 0)
        npk_asm_warning(a, text, len, "'%.*s' underflows %s to zero", (int)len, text,
                        fmt_name(fmt));
    return 0;
}

static int float_elem(npk_asm *a, npk_cur *e, const npk_asm_dir *d)
{
    uint64_t bits = 0;
    npk_fmt f = (npk_fmt)d->arg;
    int rc = npk_asm_float_bits(a, e, f, &bits);
    npk_asm_emit_le(a, rc ? 0 : bits, npk_fmt_width(f) / 8);
    return rc;
}

int npk_asm_dir_float(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    return each_elem(a, c, d, float_elem);
}

static int ascii_elem(npk_asm *a, npk_cur *e, const npk_asm_dir *d)
{
    const char *s;
    size_t len;
    if (npk_asm_string(a, e, &s, &len))
        return -1;
    if (npk_asm_emit(a, s, len))
        return -1;
    return d->arg ? npk_asm_emit_fill(a, 0, 1) : 0;
}

int npk_asm_dir_ascii(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    return each_elem(a, c, d, ascii_elem);
}

/* ---- layout ------------------------------------------------------------------------------- */

/* `expr` that must be known now (no forward references), in lo..hi. */
static int layout_expr(npk_asm *a, npk_cur *c, int64_t lo, int64_t hi, const char *what,
                       npk_expr *e)
{
    if (npk_asm_expr_full(a, c, NPK_EXPR_NO_FORWARD, e) ||
        npk_asm_check_range(a, e, lo, hi, what))
        return -1;
    return 0;
}

static int opt_fill(npk_asm *a, npk_cur *c, int64_t *fill)
{
    npk_expr e;
    *fill = 0;
    if (!npk_cur_accept(c, ','))
        return 0;
    if (layout_expr(a, c, -128, 255, "fill byte", &e))
        return -1;
    *fill = e.value;
    return 0;
}

int npk_asm_dir_space(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    (void)d;
    npk_expr n;
    int64_t fill;
    if (layout_expr(a, c, 0, INT64_MAX, "size", &n) || opt_fill(a, c, &fill))
        return -1;
    return npk_asm_emit_fill(a, (uint8_t)fill, (uint64_t)n.value);
}

int npk_asm_dir_align(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    npk_expr n;
    int64_t fill;
    uint64_t align;
    if (d->arg == NPK_ALIGN_POW2) {
        if (layout_expr(a, c, 0, 30, "alignment exponent", &n))
            return -1;
        align = (uint64_t)1 << n.value;
    } else {
        if (layout_expr(a, c, 1, (int64_t)1 << 30, "alignment", &n))
            return -1;
        if (n.value & (n.value - 1))
            return npk_asm_error(a, n.at, n.len, "alignment %" PRId64 " is not a power of two",
                                 n.value);
        align = (uint64_t)n.value;
    }
    if (opt_fill(a, c, &fill))
        return -1;
    uint64_t pc = npk_asm_pc(a);
    uint64_t pad = (align - pc % align) % align;
    return pad ? npk_asm_emit_fill(a, (uint8_t)fill, pad) : 0;
}

int npk_asm_dir_org(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    (void)d;
    npk_expr addr;
    if (layout_expr(a, c, 0, INT64_MAX, "address", &addr))
        return -1;
    return npk_asm_set_pc(a, (uint64_t)addr.value);
}

/* ---- .target ---------------------------------------------------------------------------- */

int npk_asm_dir_target(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    (void)d;
    const char *s;
    size_t n = npk_cur_ident(c, &s);
    if (!n)
        return npk_asm_error(a, c->p, 1, "expected a target name");
    const char *name = a->t->name ? a->t->name : "";
    if (!npk_eq_nocase(s, n, name))
        return npk_asm_error(a, s, n, "this source is for target '%.*s', not '%s'", (int)n, s,
                             name);
    if (a->statements > 1)
        return npk_asm_error(a, NULL, 7, "'.target' must come before everything else");
    return 0;
}
