/* pccx's assembler (spec §13) on the shared engine in src/asm. Mnemonics, operand keys, flag
 * words, CVO functions and MEMCPY routes come from the isa.def tables; the §4.8 validity rules
 * come from pccx_effective. Besides instruction words, a program carries host-DDR and L2
 * initial data, INT4 weight tensors, BF16 views, the weight-queue order and window changes. */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "asm/asm.h"
#include "num/num.h"
#include "targets/pccx/isa.h"
#include "targets/pccx/prog.h"

#define L2_BYTES ((uint64_t)PCCX_L2_WORDS * 16)
#define HOST_DEFAULT ((uint64_t)64 << 20)
#define HOST_MAX ((uint64_t)1 << 32)
#define INSN_SPACE ((uint64_t)1 << 28) /* 32 Mi instructions */
#define DIM_MAX 65535

/* MEMSET dest_cache words of the named form (§4.4: 0 = fmap, 1 = weight). isa.def names the
 * BANK print kind but has no table of these words. */
#define bank_words pccx_bank_names
#define N_BANK_WORDS PCCX_N_BANKS

/* ---- per-pass state ------------------------------------------------------------------------ */

/* A run of initial data at consecutive addresses of one target. */
typedef struct pa_block {
    uint64_t addr;
    uint8_t *bytes;
    size_t size, cap;
    const char *file;        /* where it starts (valid during the run) */
    unsigned line;
} pa_block;

typedef struct pa_data {
    const char *name;        /* "host DDR", "L2" */
    pa_block *b;
    size_t n, cap;
    uint64_t cur;            /* cursor (bytes) */
    int open;                /* writes extend b[n - 1] (it ends at cur) */
} pa_data;

/* The `.weight` block being read. */
typedef struct pa_weight {
    int active, bad;         /* bad: header rejected, the body is skipped */
    size_t tensor;
    uint32_t scales, rows;
    int hex;                 /* -1: no row yet, 0: .row, 1: .rowhex */
    size_t codes_cap;
    const char *file;
    unsigned line;
} pa_weight;

typedef struct pa_state {
    int ext_cli, hw_cli;     /* command-line overrides (-1: the file decides) */
    int ext, hw;             /* in effect */
    int has_profile, has_mode, has_hostsize;
    uint64_t host_bytes;
    pa_data host, l2, *target;
    pccx_tensor *t;
    size_t nt, capt, nviews;
    npk_name_index tensor_index; /* name -> position in t */
    size_t *push;
    size_t npush, cappush;
    pccx_window_change *win;
    size_t nwin, capwin;
    uint64_t words, gemx;    /* instructions so far, and how many are GEMV/GEMM */
    pa_weight w;
    int fit_reported;        /* one "does not fit" per directive */
    int oom;
} pa_state;

static void data_free(pa_data *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->b[i].bytes);
    free(d->b);
    d->b = NULL;
    d->n = d->cap = 0;
    d->cur = 0;
    d->open = 0;
}

static void state_free(pa_state *st)
{
    data_free(&st->host);
    data_free(&st->l2);
    for (size_t i = 0; i < st->nt; i++)
        pccx_tensor_free(&st->t[i]);
    free(st->t);
    npk_name_free(&st->tensor_index);
    free(st->push);
    free(st->win);
    int ext = st->ext_cli, hw = st->hw_cli, oom = st->oom;
    memset(st, 0, sizeof *st);
    st->ext_cli = ext;
    st->hw_cli = hw;
    st->oom = oom;
    st->host.name = "host DDR";
    st->l2.name = "L2";
    st->ext = ext > 0;
    st->hw = hw > 0;
}

static int no_memory(npk_asm *a, pa_state *st)
{
    st->oom = 1;
    return npk_asm_error(a, NULL, 0, "out of memory");
}

/* Room for `need` elements of `size` bytes at p (capacity *cap): the array, or NULL (p kept). */
static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : 8;
    while (c < need) {
        if (c > SIZE_MAX / 2)
            return NULL;
        c *= 2;
    }
    if (c > SIZE_MAX / size)
        return NULL;
    void *q = realloc(p, c * size);
    if (q)
        *cap = c;
    return q;
}

#define GROW(a, st, arr, cap, need)                                                 \
    do {                                                                            \
        void *q_ = grow((arr), &(cap), (need), sizeof *(arr));                      \
        if (!q_)                                                                    \
            return no_memory((a), (st));                                            \
        (arr) = q_;                                                                 \
    } while (0)

/* ---- small parsing helpers ----------------------------------------------------------------- */

/* End of the comma-separated element at p (outside parentheses). */
static const char *elem_end(const char *p, const char *end)
{
    int depth = 0;
    for (; p < end; p++) {
        if (*p == '(')
            depth++;
        else if (*p == ')' && depth > 0)
            depth--;
        else if (*p == ',' && depth == 0)
            break;
    }
    return p;
}

typedef int (*elem_fn)(npk_asm *a, pa_state *st, npk_cur *e, size_t index);

/* Each comma-separated element of a list; every element is visited even after errors. */
static int each_elem(npk_asm *a, pa_state *st, npk_cur *c, const char *dir, elem_fn fn)
{
    if (npk_cur_eol(c))
        return npk_asm_error(a, c->p, 1, "'%s' needs at least one value", dir);
    int rc = 0;
    for (size_t i = 0;; i++) {
        npk_cur e = {c->p, elem_end(c->p, c->end)};
        if (fn(a, st, &e, i) || npk_asm_end(a, &e))
            rc = -1;
        c->p = e.end;
        if (c->p >= c->end)
            break;
        c->p++;
    }
    return rc;
}

static int expr_in(npk_asm *a, npk_cur *c, int64_t lo, int64_t hi, const char *what, int64_t *v)
{
    npk_expr e;
    if (npk_asm_expr_full(a, c, 0, &e) || npk_asm_check_range(a, &e, lo, hi, what))
        return -1;
    *v = e.value;
    return 0;
}

/* `NAME` of a weight tensor or view: its index, or -1. */
static long tensor_find(const pa_state *st, const char *s, size_t n)
{
    size_t i;
    return npk_name_find(&st->tensor_index, s, n, &i) ? (long)i : -1;
}

/* A new tensor named s[0..n) (error on a duplicate); its index in *idx. */
static int tensor_new(npk_asm *a, pa_state *st, const char *s, size_t n, size_t *idx)
{
    if (tensor_find(st, s, n) >= 0)
        return npk_asm_error(a, s, n, "weight tensor '%.*s' is already defined", (int)n, s);
    GROW(a, st, st->t, st->capt, st->nt + 1);
    pccx_tensor *t = &st->t[st->nt];
    memset(t, 0, sizeof *t);
    t->name = malloc(n + 1);
    if (!t->name)
        return no_memory(a, st);
    memcpy(t->name, s, n);
    t->name[n] = '\0';
    if (npk_name_put(&st->tensor_index, t->name, n, st->nt) != 0) {
        free(t->name);
        t->name = NULL;
        return no_memory(a, st);
    }
    *idx = st->nt++;
    return 0;
}

/* ---- floats (§3.2: text -> binary64 -> binary32 RNE -> BF16 RNE) ----------------------------- */

static int pa_float_bits(npk_asm *a, const char *text, size_t len, double value, npk_fmt fmt,
                         uint64_t *bits)
{
    uint64_t d;
    memcpy(&d, &value, sizeof d);
    npk_fenv env;
    npk_fenv_init(&env, NPK_RM_RNE);
    uint32_t f = npk_f64bits_to_f32(d, &env);
    const char *name = "f32";
    if (fmt == NPK_FMT_BF16) {
        *bits = npk_f32_to_bf16(f, &env);
        name = "bf16";
    } else if (fmt == NPK_FMT_F32) {
        *bits = f;
    } else {
        return npk_asm_error(a, text, len, "pccx has no %u-bit float literals",
                             npk_fmt_width(fmt));
    }
    unsigned w = npk_fmt_width(fmt);
    uint64_t mag = *bits & ((((uint64_t)1) << (w - 1)) - 1);
    if ((env.flags & NPK_FLAG_OF) && npk_fmt_is_inf(fmt, *bits))
        npk_asm_warning(a, text, len, "'%.*s' overflows %s and becomes infinity", (int)len, text,
                        name);
    else if (value != 0 && value == value && mag == 0)
        npk_asm_warning(a, text, len, "'%.*s' underflows %s to zero", (int)len, text, name);
    return 0;
}

/* ---- instructions ---------------------------------------------------------------------------- */

/* What a mnemonic selects: an opcode, and for the named forms a MEMCPY route or CVO function. */
typedef struct form {
    unsigned op;
    int route, func;         /* -1: raw form (`memcpy from=..`, `cvo func=..`) or n/a */
} form;

static int find_form(npk_asm *a, const char *s, size_t n, form *f)
{
    f->route = f->func = -1;
    for (unsigned op = 0; op < PCCX_N_OPS; op++)
        if (npk_eq_nocase(s, n, pccx_ops[op].mnemonic)) {
            f->op = op;
            return 0;
        }
    const char *mc = pccx_ops[PCCX_OP_MEMCPY].mnemonic;
    size_t ml = strlen(mc);
    if (n > ml + 1 && s[ml] == '.' && npk_eq_nocase(s, ml, mc)) {
        for (int r = 0; r < PCCX_N_ROUTES; r++)
            if (pccx_routes[r].suffix[0] &&
                npk_eq_nocase(s + ml + 1, n - ml - 1, pccx_routes[r].suffix)) {
                f->op = PCCX_OP_MEMCPY;
                f->route = r;
                return 0;
            }
        char names[64];
        size_t o = 0;
        for (int r = 0; r < PCCX_N_ROUTES && o < sizeof names; r++)
            if (pccx_routes[r].suffix[0])
                o += (size_t)snprintf(names + o, sizeof names - o, "%s.%s", o ? ", " : "",
                                      pccx_routes[r].suffix);
        return npk_asm_error(a, s + ml, n - ml, "unknown %s route '%.*s' (expected %s)", mc,
                             (int)(n - ml), s + ml, names);
    }
    for (int fn = 0; fn < PCCX_N_CVO_FUNCS; fn++)
        if (npk_eq_nocase(s, n, pccx_cvos[fn].mnemonic)) {
            f->op = PCCX_OP_CVO;
            f->func = fn;
            return 0;
        }
    return npk_asm_error(a, s, n, "unknown mnemonic '%.*s'", (int)n, s);
}

/* How an operand of the key list lands in the instruction. */
enum { K_FIELD, K_FLAG, K_BANK_WORD };
typedef struct kvmap {
    int kind;
    int field;               /* pccx_field_id */
    unsigned value;          /* K_FLAG: field mask; K_BANK_WORD: dest_cache */
} kvmap;

/* The operands of form f from the tables: value keys in table order (the bank words first),
 * then the named flags in table order, then `async`. */
static size_t form_spec(const form *f, npk_kvspec *spec, kvmap *map)
{
    const pccx_layout l = pccx_ops[f->op].layout;
    const int zero = f->route >= 0 ? pccx_routes[f->route].zero_field : PCCX_F_NONE;
    size_t n = 0;
    for (int i = 0; i < PCCX_N_FIELDS; i++) {
        const pccx_field_info *fi = &pccx_fields[i];
        unsigned fl = NPK_KV_REQUIRED;
        if (fi->layout != l)
            continue;
        switch (fi->print) {
        case PCCX_P_HEX:
        case PCCX_P_DEC:
            if (i == zero)
                continue;
            if (i == PCCX_F_G_LANES)
                fl = 0; /* omitted lanes is 0 (§13.1) */
            break;
        case PCCX_P_ROUTE:
            if (f->route >= 0)
                continue;
            break;
        case PCCX_P_FUNC:
            if (f->func >= 0)
                continue;
            break;
        case PCCX_P_BANK:
            for (unsigned b = 0; b < N_BANK_WORDS; b++) {
                spec[n] = (npk_kvspec){bank_words[b], NPK_KV_FLAG, 0, 0};
                map[n++] = (kvmap){K_BANK_WORD, i, b};
            }
            fl = 0; /* exactly one of the words or bank= (checked by the caller) */
            break;
        default:
            continue;
        }
        spec[n] = (npk_kvspec){fi->key, fl, 0, (int64_t)((((uint64_t)1) << fi->width) - 1)};
        map[n++] = (kvmap){K_FIELD, i, 0};
    }
    for (int i = 0; i < PCCX_N_FIELDS; i++) {
        const pccx_field_info *fi = &pccx_fields[i];
        if (fi->layout == l && fi->print == PCCX_P_FLAGS) {
            for (int j = 0; j < PCCX_N_FLAGS; j++)
                if (pccx_flags[j].layout == l) {
                    spec[n] = (npk_kvspec){pccx_flags[j].name, NPK_KV_FLAG, 0, 0};
                    map[n++] = (kvmap){K_FLAG, i, pccx_flags[j].mask};
                }
        }
    }
    for (int i = 0; i < PCCX_N_FIELDS; i++) {
        const pccx_field_info *fi = &pccx_fields[i];
        if (fi->layout == l && fi->print == PCCX_P_ASYNC) {
            spec[n] = (npk_kvspec){fi->key, NPK_KV_FLAG, 0, 1};
            map[n++] = (kvmap){K_FIELD, i, 0};
        }
    }
    return n;
}

/* Parse the operands of form f and encode the word. */
static int insn_word(npk_asm *a, npk_cur *c, const form *f, const char *m, size_t ml,
                     uint64_t *w)
{
    npk_kvspec spec[NPK_KV_MAX];
    kvmap map[NPK_KV_MAX];
    npk_kvres kv;
    size_t n = form_spec(f, spec, map);
    if (npk_asm_kvlist(a, c, spec, n, NPK_KV_COMMAS, m, &kv))
        return -1;
    pccx_insn_t d;
    memset(&d, 0, sizeof d);
    d.opcode = f->op;
    if (f->route >= 0) {
        pccx_field_set(&d, PCCX_F_M_FROM, pccx_routes[f->route].from);
        pccx_field_set(&d, PCCX_F_M_TO, pccx_routes[f->route].to);
    }
    if (f->func >= 0)
        pccx_field_set(&d, PCCX_F_C_FUNC, (uint64_t)f->func);
    unsigned flags = 0;
    int flags_field = -1, banks = 0;
    const char *second_bank = NULL;
    for (size_t j = 0; j < n; j++) {
        if (!(kv.present >> j & 1))
            continue;
        const pccx_field_info *fi = &pccx_fields[map[j].field];
        switch (map[j].kind) {
        case K_FLAG:
            flags |= map[j].value;
            flags_field = map[j].field;
            break;
        case K_BANK_WORD:
            pccx_field_set(&d, (pccx_field_id)map[j].field, map[j].value);
            break;
        default:
            pccx_field_set(&d, (pccx_field_id)map[j].field, (uint64_t)kv.val[j]);
            break;
        }
        if (fi->print == PCCX_P_BANK && banks++ == 1)
            second_bank = kv.at[j];
    }
    if (flags_field >= 0)
        pccx_field_set(&d, (pccx_field_id)flags_field, flags);
    if (pccx_ops[f->op].layout == PCCX_L_MEMSET && banks != 1) {
        if (banks == 0)
            return npk_asm_error(a, m, ml, "'%.*s' needs a bank: %s, %s or bank=E", (int)ml, m,
                                 bank_words[0], bank_words[1]);
        return npk_asm_error(a, second_bank, 1, "'%.*s' takes one bank (%s, %s or bank=E)",
                             (int)ml, m, bank_words[0], bank_words[1]);
    }
    const char *why = NULL;
    if (pccx_encode(&d, w, &why) != PCCX_OK) /* values are range-checked above */
        return npk_asm_error(a, m, ml, "value does not fit field '%s'", why ? why : "?");
    return 0;
}

/* §4.8 for the program's profile and mode: errors in strict, warnings in hw-compat (E_ROUTE is
 * an error in both). */
static int check_valid(npk_asm *a, const pa_state *st, uint64_t w, const char *m, size_t ml)
{
    pccx_insn_t d;
    char why[200];
    int dropped = 0;
    pccx_unpack(w, &d);
    int err = pccx_effective(&d, st->ext, st->hw, NULL, &dropped, why, sizeof why);
    const char *hint = "";
    if (d.opcode == PCCX_OP_CVO && d.func < PCCX_N_CVO_FUNCS && pccx_cvos[d.func].ext && !st->ext)
        hint = " (enable it with '.profile ext')";
    /* "exp: recip_scale is ...", but not "memcpy: memcpy.h2l: ..." */
    size_t k = 0;
    while (k < ml && why[k] && tolower((unsigned char)why[k]) == tolower((unsigned char)m[k]))
        k++;
    const int pl = k == ml ? 0 : (int)ml;
    const char *sep = pl ? ": " : "";
    if (err != PCCX_OK)
        return npk_asm_error(a, m, ml, "%.*s%s%s%s [%s]", pl, m, sep, why, hint,
                             pccx_error_name(err));
    if (dropped)
        npk_asm_warning(a, m, ml, "%.*s%s%s%s; hw-compat mode drops this instruction", pl, m,
                        sep, why, hint);
    else if (why[0])
        npk_asm_warning(a, m, ml, "%.*s%s%s; ignored in hw-compat mode (executes as if zero)",
                        pl, m, sep, why);
    return 0;
}

static int emit_word(npk_asm *a, pa_state *st, uint64_t w, int count)
{
    int rc = npk_asm_emit_le(a, w, 8);
    st->words++;
    if (count && (w >> 60 == PCCX_OP_GEMV || w >> 60 == PCCX_OP_GEMM))
        st->gemx++;
    return rc;
}

static int weight_open_error(npk_asm *a, pa_state *st, const char *at, size_t len,
                             const char *what)
{
    const char *name = st->w.bad ? "" : st->t[st->w.tensor].name;
    return npk_asm_error(a, at, len,
                         "%s inside .weight%s%s (started at line %u; missing .endweight?)", what,
                         name[0] ? " " : "", name, st->w.line);
}

static int pa_statement(npk_asm *a, npk_cur *c)
{
    pa_state *st = npk_asm_user(a);
    uint64_t w = 0;
    int rc;
    npk_cur_ws(c);
    const char *m;
    size_t ml = npk_cur_ident(c, &m);
    form f;
    if (!ml) {
        const char *p = c->p;
        while (p < c->end && *p != ' ' && *p != '\t' && *p != ',')
            p++;
        rc = npk_asm_error(a, c->p, (size_t)(p - c->p), "expected a mnemonic or directive");
    } else if (st->w.active) {
        rc = weight_open_error(a, st, m, ml, "instruction");
    } else {
        rc = find_form(a, m, ml, &f);
        if (rc == 0)
            rc = insn_word(a, c, &f, m, ml, &w);
        if (rc == 0)
            rc = check_valid(a, st, w, m, ml);
    }
    /* a word even after an error, so that window positions stay right */
    emit_word(a, st, rc ? 0 : w, rc == 0);
    if (rc)
        c->p = c->end;
    return rc;
}

/* ---- data ---------------------------------------------------------------------------------- */

/* n bytes (zeros when bytes is NULL) at the data cursor; at/len locate errors. */
static int data_put(npk_asm *a, pa_state *st, const uint8_t *bytes, uint64_t n, const char *at,
                    size_t len)
{
    pa_data *d = st->target;
    if (!d || n == 0)
        return 0;
    uint64_t limit = d == &st->l2 ? L2_BYTES : st->has_hostsize ? st->host_bytes : HOST_MAX;
    if (d->cur > limit || n > limit - d->cur) {
        int rc = -1;
        if (!st->fit_reported)
            rc = npk_asm_error(a, at, len,
                               "%s data at 0x%" PRIx64 " (%" PRIu64 " bytes) does not fit %s "
                               "(%" PRIu64 " bytes%s)",
                               d->name, d->cur, n, d->name, limit,
                               d == &st->host && st->has_hostsize ? ", .hostsize" : "");
        st->fit_reported = 1;
        d->cur = d->cur > UINT64_MAX - n ? UINT64_MAX : d->cur + n;
        d->open = 0;
        return rc;
    }
    if (!d->open) {
        GROW(a, st, d->b, d->cap, d->n + 1);
        pa_block *b = &d->b[d->n++];
        memset(b, 0, sizeof *b);
        b->addr = d->cur;
        b->file = npk_asm_file(a);
        b->line = npk_asm_line(a);
        d->open = 1;
    }
    pa_block *b = &d->b[d->n - 1];
    if (n > SIZE_MAX - b->size)
        return no_memory(a, st);
    GROW(a, st, b->bytes, b->cap, b->size + (size_t)n);
    if (bytes)
        memcpy(b->bytes + b->size, bytes, (size_t)n);
    else
        memset(b->bytes + b->size, 0, (size_t)n);
    b->size += (size_t)n;
    d->cur += n;
    return 0;
}

static void le_bytes(uint8_t *out, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        out[i] = (uint8_t)(v >> (8 * i));
}

static int int_elem(npk_asm *a, pa_state *st, npk_cur *e, unsigned nbytes)
{
    int64_t v = 0;
    npk_cur_ws(e);
    const char *at = e->p;
    int rc = expr_in(a, e, 0, (int64_t)((((uint64_t)1) << (8 * nbytes)) - 1), "value", &v);
    uint8_t b[8];
    le_bytes(b, rc ? 0 : (uint64_t)v, nbytes);
    if (data_put(a, st, b, nbytes, at, (size_t)(e->p - at)))
        rc = -1;
    return rc;
}

static int float_elem(npk_asm *a, pa_state *st, npk_cur *e, npk_fmt fmt)
{
    uint64_t bits = 0;
    npk_cur_ws(e);
    const char *at = e->p;
    int rc = npk_asm_float_bits(a, e, fmt, &bits);
    unsigned nb = npk_fmt_width(fmt) / 8;
    uint8_t b[8];
    le_bytes(b, rc ? 0 : bits, nb);
    if (data_put(a, st, b, nb, at, (size_t)(e->p - at)))
        rc = -1;
    return rc;
}

static int u8_elem(npk_asm *a, pa_state *st, npk_cur *e, size_t i)
{
    (void)i;
    return int_elem(a, st, e, 1);
}
static int h16_elem(npk_asm *a, pa_state *st, npk_cur *e, size_t i)
{
    (void)i;
    return int_elem(a, st, e, 2);
}
static int bf16_elem(npk_asm *a, pa_state *st, npk_cur *e, size_t i)
{
    (void)i;
    return float_elem(a, st, e, NPK_FMT_BF16);
}
static int f32_elem(npk_asm *a, pa_state *st, npk_cur *e, size_t i)
{
    (void)i;
    return float_elem(a, st, e, NPK_FMT_F32);
}

static int dir_data(npk_asm *a, pa_state *st, npk_cur *c, const npk_asm_dir *d, elem_fn fn)
{
    if (!st->target) {
        npk_cur_ws(c);
        return npk_asm_error(a, NULL, strlen(d->name),
                             "'%s' has no data target: select one with '.host byte=E' or "
                             "'.l2 word=E'",
                             d->name);
    }
    return each_elem(a, st, c, d->name, fn);
}

static int dir_zero(npk_asm *a, pa_state *st, npk_cur *c, const npk_asm_dir *d)
{
    npk_cur_ws(c);
    const char *at = c->p;
    int64_t n;
    if (expr_in(a, c, 0, (int64_t)HOST_MAX, "size", &n))
        return -1;
    if (!st->target)
        return npk_asm_error(a, NULL, strlen(d->name),
                             "'%s' has no data target: select one with '.host byte=E' or "
                             "'.l2 word=E'",
                             d->name);
    return data_put(a, st, NULL, (uint64_t)n, at, (size_t)(c->p - at));
}

static void set_cursor(pa_data *d, uint64_t cur)
{
    d->cur = cur;
    d->open = d->n && d->b[d->n - 1].addr + d->b[d->n - 1].size == cur;
}

static int dir_host(npk_asm *a, pa_state *st, npk_cur *c, const npk_asm_dir *d)
{
    const npk_kvspec spec[] = {{"byte", NPK_KV_REQUIRED, 0, (int64_t)HOST_MAX}};
    npk_kvres kv;
    if (npk_asm_kvlist(a, c, spec, 1, NPK_KV_COMMAS, NULL, &kv))
        return -1;
    (void)d;
    st->target = &st->host;
    set_cursor(&st->host, (uint64_t)kv.val[0]);
    return 0;
}

static int dir_l2(npk_asm *a, pa_state *st, npk_cur *c, const npk_asm_dir *d)
{
    const npk_kvspec spec[] = {{"word", 0, 0, PCCX_L2_WORDS}, {"elem", 0, 0, PCCX_L2_ELEMS}};
    npk_kvres kv;
    if (npk_asm_kvlist(a, c, spec, 2, NPK_KV_COMMAS, NULL, &kv))
        return -1;
    if (kv.present != 1 && kv.present != 2)
        return npk_asm_error(a, kv.present ? kv.at[1] : NULL, kv.present ? 4 : strlen(d->name),
                             "'%s' takes one of word=E or elem=E", d->name);
    st->target = &st->l2;
    set_cursor(&st->l2, kv.present == 1 ? 16 * (uint64_t)kv.val[0] : 2 * (uint64_t)kv.val[1]);
    return 0;
}

/* ---- program options ------------------------------------------------------------------------- */

/* `.profile` / `.mode`: one of two words; at most once, before the first instruction. */
static int dir_choice(npk_asm *a, pa_state *st, npk_cur *c, const npk_asm_dir *d,
                      const char *w0, const char *w1, int *has, int cli, int *value)
{
    const char *s;
    size_t n = npk_cur_word(c, &s);
    int v = npk_eq_nocase(s, n, w0) ? 0 : npk_eq_nocase(s, n, w1) ? 1 : -1;
    if (v < 0)
        return npk_asm_error(a, n ? s : c->p, n ? n : 1, "'%s' takes %s or %s", d->name, w0,
                             w1);
    if (*has)
        return npk_asm_error(a, NULL, strlen(d->name), "'%s' given twice", d->name);
    if (st->words || st->nviews)
        return npk_asm_error(a, NULL, strlen(d->name),
                             "'%s' must come before the first instruction%s", d->name,
                             value == &st->ext ? " and .wview" : "");
    *has = 1;
    if (cli < 0)
        *value = v;
    return 0;
}

static int dir_hostsize(npk_asm *a, pa_state *st, npk_cur *c, const npk_asm_dir *d)
{
    int64_t v;
    if (expr_in(a, c, 1, (int64_t)HOST_MAX, "host DDR size", &v))
        return -1;
    if (st->has_hostsize)
        return npk_asm_error(a, NULL, strlen(d->name), "'%s' given twice", d->name);
    st->has_hostsize = 1;
    st->host_bytes = (uint64_t)v;
    return 0;
}

static int dir_window(npk_asm *a, pa_state *st, npk_cur *c, const npk_asm_dir *d)
{
    (void)d;
    npk_expr e;
    if (npk_asm_expr_full(a, c, 0, &e) ||
        npk_asm_check_range(a, &e, 0, (int64_t)(HOST_MAX - 16), "window base"))
        return -1;
    if (e.value % 16)
        return npk_asm_error(a, e.at, e.len, "window base %" PRId64 " is not a multiple of 16",
                             e.value);
    if (st->nwin && st->win[st->nwin - 1].at == st->words) {
        st->win[st->nwin - 1].base = (uint64_t)e.value; /* the later one wins */
        return 0;
    }
    GROW(a, st, st->win, st->capwin, st->nwin + 1);
    st->win[st->nwin++] = (pccx_window_change){st->words, (uint64_t)e.value};
    return 0;
}

static int word_elem(npk_asm *a, pa_state *st, npk_cur *e, size_t i)
{
    (void)i;
    npk_expr x;
    int rc = npk_asm_expr_full(a, e, NPK_EXPR_U64, &x);
    emit_word(a, st, rc ? 0 : (uint64_t)x.value, rc == 0);
    return rc;
}

/* ---- weight tensors and views ---------------------------------------------------------------- */

static int dir_weight(npk_asm *a, pa_state *st, npk_cur *c, const npk_asm_dir *d)
{
    pa_weight *w = &st->w;
    memset(w, 0, sizeof *w);
    w->active = 1;
    w->bad = 1;
    w->hex = -1;
    w->file = npk_asm_file(a);
    w->line = npk_asm_line(a);
    const char *s;
    size_t n = npk_cur_ident(c, &s);
    if (!n)
        return npk_asm_error(a, c->p, 1, "expected a tensor name after '%s'", d->name);
    const npk_kvspec spec[] = {{"k", NPK_KV_REQUIRED, 1, DIM_MAX},
                               {"n", NPK_KV_REQUIRED, 1, DIM_MAX}};
    npk_kvres kv;
    size_t idx;
    if (npk_asm_expect(a, c, ',') || npk_asm_kvlist(a, c, spec, 2, NPK_KV_COMMAS, NULL, &kv) ||
        tensor_new(a, st, s, n, &idx))
        return -1;
    pccx_tensor *t = &st->t[idx];
    t->k = (uint32_t)kv.val[0];
    t->n = (uint32_t)kv.val[1];
    t->row_bytes = (t->k + 1) / 2;
    t->scale = calloc(t->n, sizeof *t->scale);
    if (!t->scale)
        return no_memory(a, st);
    w->bad = 0;
    w->tensor = idx;
    return 0;
}

static int scale_elem(npk_asm *a, pa_state *st, npk_cur *e, size_t i)
{
    (void)i;
    pccx_tensor *t = &st->t[st->w.tensor];
    uint64_t bits = 0;
    npk_cur_ws(e);
    const char *at = e->p;
    if (npk_asm_float_bits(a, e, NPK_FMT_F32, &bits))
        return -1;
    if (st->w.scales >= t->n)
        return npk_asm_error(a, at, (size_t)(e->p - at),
                             "too many scales: .weight %s has n=%" PRIu32 " rows", t->name, t->n);
    t->scale[st->w.scales++] = (uint32_t)bits;
    return 0;
}

/* Room for one more row of codes; returns its bytes (zeroed) or NULL after reporting. */
static uint8_t *new_row(npk_asm *a, pa_state *st, pccx_tensor *t)
{
    size_t need = ((size_t)st->w.rows + 1) * t->row_bytes;
    void *q = grow(t->codes, &st->w.codes_cap, need, 1);
    if (!q) {
        no_memory(a, st);
        return NULL;
    }
    t->codes = q;
    uint8_t *row = t->codes + (size_t)st->w.rows * t->row_bytes;
    memset(row, 0, t->row_bytes);
    return row;
}

/* Common checks of `.row` / `.rowhex`: the row kind and count. */
static int row_start(npk_asm *a, pa_state *st, const npk_asm_dir *d, int hex)
{
    pccx_tensor *t = &st->t[st->w.tensor];
    if (st->w.hex >= 0 && st->w.hex != hex)
        return npk_asm_error(a, NULL, strlen(d->name),
                             ".weight %s mixes .row and .rowhex (use one kind for all rows)",
                             t->name);
    if (st->w.rows >= t->n)
        return npk_asm_error(a, NULL, strlen(d->name),
                             "too many rows: .weight %s has n=%" PRIu32, t->name, t->n);
    st->w.hex = hex;
    return 0;
}

static int dir_row(npk_asm *a, pa_state *st, npk_cur *c, const npk_asm_dir *d)
{
    if (row_start(a, st, d, 0))
        return -1;
    pccx_tensor *t = &st->t[st->w.tensor];
    uint8_t *row = new_row(a, st, t);
    if (!row)
        return -1;
    if (npk_cur_eol(c))
        return npk_asm_error(a, c->p, 1, "'%s' needs k=%" PRIu32 " codes", d->name, t->k);
    int rc = 0;
    size_t i = 0;
    for (;; i++) {
        npk_cur e = {c->p, elem_end(c->p, c->end)};
        npk_cur_ws(&e);
        if (i == t->k) {
            size_t more = 1;
            for (const char *p = e.end; p < c->end; p++)
                more += *p == ',';
            c->p = c->end;
            return npk_asm_error(a, e.p, (size_t)(c->end - e.p),
                                 "row has %zu codes, expected k=%" PRIu32, i + more, t->k);
        }
        int64_t v;
        if (expr_in(a, &e, -8, 7, "INT4 code", &v) || npk_asm_end(a, &e))
            rc = -1;
        else
            row[i / 2] |= (uint8_t)(((uint64_t)v & 15) << (4 * (i & 1)));
        c->p = e.end;
        if (c->p >= c->end)
            break;
        c->p++;
    }
    if (i + 1 != t->k)
        return npk_asm_error(a, c->p, 1, "row has %zu codes, expected k=%" PRIu32, i + 1, t->k);
    if (rc == 0)
        st->w.rows++;
    return rc;
}

static int dir_rowhex(npk_asm *a, pa_state *st, npk_cur *c, const npk_asm_dir *d)
{
    if (row_start(a, st, d, 1))
        return -1;
    pccx_tensor *t = &st->t[st->w.tensor];
    uint8_t *row = new_row(a, st, t);
    if (!row)
        return -1;
    npk_cur_ws(c);
    const char *start = c->p;
    if (c->end - c->p >= 2 && c->p[0] == '0' && (c->p[1] == 'x' || c->p[1] == 'X'))
        return npk_asm_error(a, c->p, 2,
                             "'%s' takes the packed bytes in order as hex digit pairs, "
                             "without 0x",
                             d->name);
    size_t digits = 0, want = 2 * t->row_bytes;
    for (; c->p < c->end; c->p++) {
        if (*c->p == ' ' || *c->p == '\t')
            continue;
        int h = npk_hex_digit((unsigned char)*c->p);
        if (h < 0)
            return npk_asm_error(a, c->p, 1, "'%c' is not a hexadecimal digit", *c->p);
        if (digits < want)
            row[digits / 2] |= (uint8_t)(h << (digits & 1 ? 0 : 4));
        digits++;
    }
    if (digits != want)
        return npk_asm_error(a, start, (size_t)(c->p - start),
                             "'%s' has %zu hex digits; k=%" PRIu32 " needs %zu (%zu bytes)",
                             d->name, digits, t->k, want, t->row_bytes);
    st->w.rows++;
    return 0;
}

static int dir_endweight(npk_asm *a, pa_state *st, const npk_asm_dir *d)
{
    pa_weight *w = &st->w;
    w->active = 0;
    if (w->bad)
        return 0;
    pccx_tensor *t = &st->t[w->tensor];
    int rc = 0;
    if (w->scales != t->n)
        rc = npk_asm_error(a, NULL, strlen(d->name),
                           ".weight %s has %" PRIu32 " scales, expected n=%" PRIu32, t->name,
                           w->scales, t->n);
    if (w->rows != t->n)
        rc = npk_asm_error(a, NULL, strlen(d->name),
                           ".weight %s has %" PRIu32 " rows, expected n=%" PRIu32, t->name,
                           w->rows, t->n);
    return rc;
}

static int dir_wview(npk_asm *a, pa_state *st, npk_cur *c, const npk_asm_dir *d)
{
    if (!st->ext)
        return npk_asm_error(a, NULL, strlen(d->name),
                             "'%s' needs the ext profile (enable it with '.profile ext')",
                             d->name);
    const char *s;
    size_t n = npk_cur_ident(c, &s);
    if (!n)
        return npk_asm_error(a, c->p, 1, "expected a view name after '%s'", d->name);
    const npk_kvspec spec[] = {{"host", NPK_KV_REQUIRED, 0, (int64_t)HOST_MAX - 1},
                               {"n", NPK_KV_REQUIRED, 1, DIM_MAX},
                               {"k", NPK_KV_REQUIRED, 1, DIM_MAX},
                               {"sn", NPK_KV_REQUIRED, INT64_MIN, INT64_MAX},
                               {"sk", NPK_KV_REQUIRED, INT64_MIN, INT64_MAX}};
    npk_kvres kv;
    size_t idx;
    if (npk_asm_expect(a, c, ',') || npk_asm_kvlist(a, c, spec, 5, NPK_KV_COMMAS, NULL, &kv))
        return -1;
    if (kv.val[0] % 2)
        return npk_asm_error(a, kv.at[0], 4, "view base host=%" PRId64 " must be even",
                             kv.val[0]);
    if (tensor_new(a, st, s, n, &idx))
        return -1;
    pccx_tensor *t = &st->t[idx];
    t->view = 1;
    t->base = (uint64_t)kv.val[0];
    t->n = (uint32_t)kv.val[1];
    t->k = (uint32_t)kv.val[2];
    t->sn = kv.val[3];
    t->sk = kv.val[4];
    st->nviews++;
    return 0;
}

static int dir_wpush(npk_asm *a, pa_state *st, npk_cur *c, const npk_asm_dir *d)
{
    const char *s;
    size_t n = npk_cur_ident(c, &s);
    if (!n)
        return npk_asm_error(a, c->p, 1, "expected a tensor name after '%s'", d->name);
    long i = tensor_find(st, s, n);
    if (i < 0)
        return npk_asm_error(a, s, n, "no .weight or .wview named '%.*s' before this line",
                             (int)n, s);
    GROW(a, st, st->push, st->cappush, st->npush + 1);
    st->push[st->npush++] = (size_t)i;
    return 0;
}

/* ---- directive table ------------------------------------------------------------------------- */

enum { D_TARGET, D_PROFILE, D_MODE, D_EQU, D_HOSTSIZE, D_HOST, D_L2, D_BF16, D_H16, D_F32,
       D_U8, D_ZERO, D_WINDOW, D_WEIGHT, D_SCALE, D_ROW, D_ROWHEX, D_ENDWEIGHT, D_WVIEW,
       D_WPUSH, D_WORD };

static int pa_dir(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    pa_state *st = npk_asm_user(a);
    const int in_block = d->arg == D_SCALE || d->arg == D_ROW || d->arg == D_ROWHEX ||
                         d->arg == D_ENDWEIGHT;
    int rc;
    st->fit_reported = 0;
    if (st->w.active && !in_block) {
        rc = weight_open_error(a, st, NULL, strlen(d->name), d->name);
    } else if (!st->w.active && in_block) {
        rc = npk_asm_error(a, NULL, strlen(d->name), "'%s' outside a .weight block", d->name);
    } else if (st->w.active && st->w.bad && d->arg != D_ENDWEIGHT) {
        c->p = c->end; /* the header was rejected: skip the body quietly */
        return 0;
    } else {
        switch (d->arg) {
        case D_TARGET: rc = npk_asm_dir_target(a, c, d); break;
        case D_PROFILE:
            rc = dir_choice(a, st, c, d, "base", "ext", &st->has_profile, st->ext_cli, &st->ext);
            break;
        case D_MODE:
            rc = dir_choice(a, st, c, d, "strict", "hw-compat", &st->has_mode, st->hw_cli,
                            &st->hw);
            break;
        case D_EQU: rc = npk_asm_dir_equ(a, c, d); break;
        case D_HOSTSIZE: rc = dir_hostsize(a, st, c, d); break;
        case D_HOST: rc = dir_host(a, st, c, d); break;
        case D_L2: rc = dir_l2(a, st, c, d); break;
        case D_BF16: rc = dir_data(a, st, c, d, bf16_elem); break;
        case D_H16: rc = dir_data(a, st, c, d, h16_elem); break;
        case D_F32: rc = dir_data(a, st, c, d, f32_elem); break;
        case D_U8: rc = dir_data(a, st, c, d, u8_elem); break;
        case D_ZERO: rc = dir_zero(a, st, c, d); break;
        case D_WINDOW: rc = dir_window(a, st, c, d); break;
        case D_WEIGHT: rc = dir_weight(a, st, c, d); break;
        case D_SCALE: rc = each_elem(a, st, c, d->name, scale_elem); break;
        case D_ROW: rc = dir_row(a, st, c, d); break;
        case D_ROWHEX: rc = dir_rowhex(a, st, c, d); break;
        case D_ENDWEIGHT: rc = dir_endweight(a, st, d); break;
        case D_WVIEW: rc = dir_wview(a, st, c, d); break;
        case D_WPUSH: rc = dir_wpush(a, st, c, d); break;
        case D_WORD: rc = each_elem(a, st, c, d->name, word_elem); break;
        default: rc = npk_asm_error(a, NULL, 0, "internal: directive %d", d->arg); break;
        }
    }
    if (rc)
        c->p = c->end;
    return rc;
}

static const npk_asm_dir pa_dirs[] = {
    {".target", pa_dir, D_TARGET},       {".profile", pa_dir, D_PROFILE},
    {".mode", pa_dir, D_MODE},           {".equ", pa_dir, D_EQU},
    {".hostsize", pa_dir, D_HOSTSIZE},   {".host", pa_dir, D_HOST},
    {".l2", pa_dir, D_L2},               {".bf16", pa_dir, D_BF16},
    {".h16", pa_dir, D_H16},             {".f32", pa_dir, D_F32},
    {".u8", pa_dir, D_U8},               {".zero", pa_dir, D_ZERO},
    {".window", pa_dir, D_WINDOW},       {".weight", pa_dir, D_WEIGHT},
    {".scale", pa_dir, D_SCALE},         {".row", pa_dir, D_ROW},
    {".rowhex", pa_dir, D_ROWHEX},       {".endweight", pa_dir, D_ENDWEIGHT},
    {".wview", pa_dir, D_WVIEW},         {".wpush", pa_dir, D_WPUSH},
    {".word", pa_dir, D_WORD},
};

/* ---- passes ---------------------------------------------------------------------------------- */

static int pa_begin(npk_asm *a)
{
    state_free(npk_asm_user(a));
    return 0;
}

static int block_cmp(const void *x, const void *y)
{
    const pa_block *p = x, *q = y;
    return p->addr < q->addr ? -1 : p->addr > q->addr;
}

/* Sort a target's blocks by address; overlapping data is an error. */
static int check_overlaps(npk_asm *a, pa_data *d)
{
    int rc = 0;
    if (d->n > 1)
        qsort(d->b, d->n, sizeof *d->b, block_cmp);
    for (size_t i = 1; i < d->n; i++) {
        const pa_block *p = &d->b[i - 1], *q = &d->b[i];
        if (q->addr < p->addr + p->size)
            rc = npk_asm_error(a, NULL, 0,
                               "%s data from %s:%u overlaps data from %s:%u at 0x%" PRIx64,
                               d->name, q->file, q->line, p->file, p->line, q->addr);
    }
    return rc;
}

static int pa_end(npk_asm *a)
{
    pa_state *st = npk_asm_user(a);
    if (st->w.active) {
        const char *name = st->w.bad ? "" : st->t[st->w.tensor].name;
        npk_asm_error(a, NULL, 0, ".weight%s%s at %s:%u has no .endweight", name[0] ? " " : "",
                      name, st->w.file, st->w.line);
        st->w.active = 0;
    }
    uint64_t size = st->has_hostsize ? st->host_bytes : HOST_DEFAULT;
    for (size_t i = 0; i < st->host.n; i++) {
        const pa_block *b = &st->host.b[i];
        if (b->addr + b->size > size)
            npk_asm_error(a, NULL, 0,
                          "host DDR data from %s:%u (0x%" PRIx64 "..0x%" PRIx64 ") does not fit "
                          "host DDR of %" PRIu64 " bytes%s",
                          b->file, b->line, b->addr, b->addr + b->size - 1, size,
                          st->has_hostsize ? " (.hostsize)" : " (the default; see .hostsize)");
    }
    check_overlaps(a, &st->host);
    check_overlaps(a, &st->l2);
    if (st->npush != st->gemx)
        npk_asm_warning(a, NULL, 0,
                        "%zu .wpush directive%s but %" PRIu64 " gemv/gemm instruction%s: each "
                        "gemv/gemm takes one tensor from the weight queue",
                        st->npush, st->npush == 1 ? "" : "s", st->gemx,
                        st->gemx == 1 ? "" : "s");
    return 0;
}

static const npk_asm_space_def pa_spaces[] = {{"insn", 0, INSN_SPACE}};

static const npk_asm_target pa_target = {
    .name = "pccx",
    .comment_chars = ";",
    .flags = NPK_ASM_EXACT_DIV,
    .dirs = pa_dirs,
    .n_dirs = sizeof pa_dirs / sizeof pa_dirs[0],
    .spaces = pa_spaces,
    .n_spaces = 1,
    .list_word_bytes = 8,
    .statement = pa_statement,
    .float_bits = pa_float_bits,
    .begin_pass = pa_begin,
    .end_pass = pa_end,
};

/* ---- the program ----------------------------------------------------------------------------- */

void pccx_tensor_free(pccx_tensor *t)
{
    if (!t)
        return;
    free(t->codes);
    free(t->scale);
    free(t->name);
    memset(t, 0, sizeof *t);
}

void pccx_prog_free(pccx_prog *p)
{
    if (!p)
        return;
    free(p->words);
    for (size_t i = 0; i < p->n_host; i++)
        free(p->host[i].bytes);
    for (size_t i = 0; i < p->n_l2; i++)
        free(p->l2[i].bytes);
    free(p->host);
    free(p->l2);
    for (size_t i = 0; i < p->n_tensors; i++)
        pccx_tensor_free(&p->tensors[i]);
    free(p->tensors);
    free(p->pushes);
    free(p->windows);
    free(p);
}

/* Move a target's blocks into a pccx_block array. */
static int take_blocks(pa_data *d, pccx_block **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!d->n)
        return 0;
    pccx_block *b = calloc(d->n, sizeof *b);
    if (!b)
        return -1;
    for (size_t i = 0; i < d->n; i++) {
        b[i] = (pccx_block){d->b[i].addr, d->b[i].bytes, d->b[i].size};
        d->b[i].bytes = NULL;
    }
    *out = b;
    *n = d->n;
    return 0;
}

static pccx_prog *make_prog(pa_state *st, const npk_asm_result *r)
{
    pccx_prog *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    size_t size = 0;
    const uint8_t *img = npk_asm_result_image(r, 0, &size, NULL, NULL);
    p->n_words = size / 8;
    p->words = malloc(p->n_words ? p->n_words * 8 : 1);
    if (!p->words) {
        pccx_prog_free(p);
        return NULL;
    }
    for (size_t i = 0; i < p->n_words; i++) {
        uint64_t w = 0;
        for (unsigned k = 0; k < 8; k++)
            w |= (uint64_t)img[8 * i + k] << (8 * k);
        p->words[i] = w;
    }
    p->ext = st->ext;
    p->hw_compat = st->hw;
    p->has_profile = st->has_profile;
    p->has_mode = st->has_mode;
    p->host_bytes = st->has_hostsize ? st->host_bytes : 0;
    if (take_blocks(&st->host, &p->host, &p->n_host) || take_blocks(&st->l2, &p->l2, &p->n_l2)) {
        pccx_prog_free(p);
        return NULL;
    }
    p->tensors = st->t;
    p->n_tensors = st->nt;
    st->t = NULL;
    st->nt = st->capt = 0;
    npk_name_clear(&st->tensor_index); /* the names went with the tensors */
    p->pushes = st->push;
    p->n_pushes = st->npush;
    st->push = NULL;
    st->npush = st->cappush = 0;
    p->windows = st->win;
    p->n_windows = st->nwin;
    st->win = NULL;
    st->nwin = st->capwin = 0;
    return p;
}

int pccx_assemble(const char *source, size_t len, const char *name, int ext, int hw_compat,
                  FILE *diag, FILE *listing, pccx_prog **out)
{
    const char *file = name ? name : "<input>";
    if (out)
        *out = NULL;
    pa_state st;
    memset(&st, 0, sizeof st);
    st.ext_cli = ext < 0 ? -1 : ext != 0;
    st.hw_cli = hw_compat < 0 ? -1 : hw_compat != 0;
    state_free(&st);
    npk_asm_opts o;
    memset(&o, 0, sizeof o);
    o.diag = diag;
    o.listing = listing;
    npk_asm_result *r = npk_asm_run(&pa_target, &st, source, len, file, &o);
    int rc;
    if (!r || st.oom) {
        if (diag)
            fprintf(diag, "%s: error: out of memory\n", file);
        rc = -1;
    } else if ((rc = (int)npk_asm_result_errors(r)) == 0) {
        pccx_prog *p = out ? make_prog(&st, r) : NULL;
        if (out && !p) {
            if (diag)
                fprintf(diag, "%s: error: out of memory\n", file);
            rc = -1;
        } else if (out) {
            *out = p;
        }
    }
    npk_asm_result_free(r);
    state_free(&st);
    return rc;
}
