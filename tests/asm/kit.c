/* "kit": a test target written the way opennpu, pccx, tinytpu and rvnpu will use the engine
 * (no labels, no forward references, exact division, key=value operands and flags in any
 * order, register classes, option groups, bf16/f32 literals, several output spaces, 64- and
 * 130-bit words, blank-separated clauses with @k placement, a .weight ... .endweight block).
 * Layouts are made up for the tests. */
#include <stdio.h>
#include <string.h>

#include "kit.h"

const npk_regset vx = {"vx", 32, NULL, NULL, 0, "vx register"};
static const npk_regset ve = {"ve", 16, NULL, NULL, 0, "ve register"};
static const npk_regset vr = {"vr", 8, NULL, NULL, 0, "vr register"};

/* pccx-like GEMV: [3:0] opcode 1, [4] findemax, [5] accm, [21:6] dst, [37:22] src,
 * [45:38] size, [53:46] shape, [61:54] lanes */
static const npk_kvspec gemv_spec[] = {
    {"dst", NPK_KV_REQUIRED, 0, 0xFFFF}, {"src", NPK_KV_REQUIRED, 0, 0xFFFF},
    {"size", NPK_KV_REQUIRED, 0, 255},   {"shape", NPK_KV_REQUIRED, 0, 255},
    {"lanes", 0, 0, 255},                {"findemax", NPK_KV_FLAG, 0, 0},
    {"accm", NPK_KV_FLAG, 0, 0},
};

/* opennpu-like VADD: [3:0] opcode 2, [5:4] class, [6] sat, [8:7] rnd, [13:9] rd,
 * [18:14] rs1, [23:19] rs2 */
static const char *const kit_mnems[] = {"gemv", "vadd", "vadd.last"};
static const npk_asm_opt kit_opts[] = {{"sat", 0}, {"rne", 1}, {"rtz", 1}, {"floor", 1},
                                       {"ceil", 1}, {"keep", 0}};

/* tinytpu-like 130-bit cycle word: sw 0, start 1, T 2, hv0 3, hv1 4, cols 20:5, rows 36:21,
 * addr 52:37, sel 61:53, hd0 77:62, hd1 93:78 */
static const char *const channels[] = {"input", "weight", "bias", "y", "h", "gbias", "gweight"};
static const npk_kvspec read_spec[] = {
    {"addr", 0, 0, 0xFFFF}, {"rows", 0, 0, 0xFFFF}, {"cols", 0, 0, 0xFFFF}, {"t", NPK_KV_FLAG, 0, 0}};

static int emit_in(npk_asm *a, int space, const uint64_t *w, size_t nw, unsigned nbytes)
{
    int prev = npk_asm_space_select(a, space);
    int rc = npk_asm_emit_bits(a, w, nw, nbytes);
    npk_asm_space_select(a, prev);
    return rc;
}

static int kit_gemv(npk_asm *a, npk_cur *c, const npk_mnem *m)
{
    npk_kvres kv;
    uint64_t w = 0;
    int rc = npk_asm_kvlist(a, c, gemv_spec, 7, NPK_KV_COMMAS, m->at, &kv);
    if (rc == 0) {
        npk_bits_put(&w, 1, 0, 4, 1);
        npk_bits_put(&w, 1, 4, 1, (uint64_t)kv.val[5]);
        npk_bits_put(&w, 1, 5, 1, (uint64_t)kv.val[6]);
        npk_bits_put(&w, 1, 6, 16, (uint64_t)kv.val[0]);
        npk_bits_put(&w, 1, 22, 16, (uint64_t)kv.val[1]);
        npk_bits_put(&w, 1, 38, 8, (uint64_t)kv.val[2]);
        npk_bits_put(&w, 1, 46, 8, (uint64_t)kv.val[3]);
        npk_bits_put(&w, 1, 54, 8, (uint64_t)kv.val[4]);
    }
    emit_in(a, SP_INSN, &w, 1, 8);
    return rc;
}

static int kit_vadd(npk_asm *a, npk_cur *c, const npk_mnem *m)
{
    static const npk_regset *const classes[] = {&vx, &ve, &vr};
    uint64_t w = 0;
    size_t cls[3];
    unsigned r[3];
    int rc = npk_asm_opts_allowed(a, m, m->index == 1 ? 0x1F : 0x20, kit_opts, 6);
    for (int i = 0; rc == 0 && i < 3; i++) {
        if (i && npk_asm_expect(a, c, ','))
            return -1;
        npk_cur_ws(c);
        const char *at = c->p;
        if (npk_asm_reg_any(a, c, classes, 3, &cls[i], &r[i]))
            return -1;
        if (cls[i] != cls[0])
            rc = npk_asm_error(a, at, (size_t)(c->p - at), "register class mismatch: %s, then %s",
                               classes[cls[0]]->what, classes[cls[i]]->what);
    }
    if (rc == 0) {
        unsigned rnd = 0;
        for (unsigned j = 1; j <= 4; j++)
            if (m->opts >> j & 1)
                rnd = j - 1;
        npk_bits_put(&w, 1, 0, 4, 2);
        npk_bits_put(&w, 1, 4, 2, cls[0]);
        npk_bits_put(&w, 1, 6, 1, m->opts & 1);
        npk_bits_put(&w, 1, 7, 2, rnd);
        npk_bits_put(&w, 1, 9, 5, r[0]);
        npk_bits_put(&w, 1, 14, 5, r[1]);
        npk_bits_put(&w, 1, 19, 5, r[2]);
    }
    emit_in(a, SP_INSN, &w, 1, 8);
    return rc;
}

static int kit_cycle(npk_asm *a, npk_cur *c)
{
    kit_state *st = npk_asm_user(a);
    npk_bits w = {{0}};
    int rc = 0;
    long at_cycle = st->cycle + 1;
    if (npk_cur_accept(c, '@')) {
        int64_t k;
        const char *p = c->p;
        if (npk_asm_imm(a, c, 0, 1000000, "cycle", &k))
            return -1;
        if (k <= st->cycle)
            return npk_asm_error(a, p, (size_t)(c->p - p), "cycle %lld is not after cycle %ld",
                                 (long long)k, st->cycle);
        at_cycle = (long)k;
    }
    bool any = false;
    while (rc == 0 && !npk_cur_eol(c)) {
        const char *s;
        npk_cur save = *c;
        size_t n = npk_cur_ident(c, &s);
        if (n && npk_eq_nocase(s, n, "sw")) {
            npk_bits_put(w.w, 4, 0, 1, 1);
        } else if (n && npk_eq_nocase(s, n, "read")) {
            const char *ch;
            size_t cn = npk_cur_ident(c, &ch);
            size_t sel = 0;
            while (sel < 7 && !(cn && npk_eq_nocase(ch, cn, channels[sel])))
                sel++;
            if (sel == 7)
                return npk_asm_error(a, cn ? ch : c->p, cn ? cn : 1, "expected a channel name");
            npk_kvres kv;
            if (npk_asm_kvlist(a, c, read_spec, 4, NPK_KV_BLANKS | NPK_KV_STOP, s, &kv))
                return -1;
            npk_bits_put(w.w, 4, 1, 1, 1);
            npk_bits_put(w.w, 4, 2, 1, (uint64_t)kv.val[3]);
            npk_bits_put(w.w, 4, 5, 16, (uint64_t)kv.val[2]);
            npk_bits_put(w.w, 4, 21, 16, (uint64_t)kv.val[1]);
            npk_bits_put(w.w, 4, 37, 16, (uint64_t)kv.val[0]);
            npk_bits_put(w.w, 4, 53, 9, sel);
        } else if (n == 5 && (npk_eq_nocase(s, n, "host0") || npk_eq_nocase(s, n, "host1"))) {
            unsigned lane = s[4] - '0';
            int64_t v;
            if (npk_asm_expect(a, c, '=') || npk_asm_imm(a, c, 0, 0xFFFF, "host data", &v))
                return -1;
            npk_bits_put(w.w, 4, 3 + lane, 1, 1);
            npk_bits_put(w.w, 4, 62 + 16 * lane, 16, (uint64_t)v);
        } else {
            *c = save;
            return npk_asm_error(a, c->p, n ? n : 1, "expected a clause (sw, read, host0=, host1=)");
        }
        any = true;
    }
    if (!any)
        return npk_asm_error(a, c->p, 1, "empty cycle line");
    uint64_t idle[3] = {0, 0, 0};
    for (long k = st->cycle + 1; k < at_cycle; k++)
        emit_in(a, SP_WIDE, idle, 3, 17);
    emit_in(a, SP_WIDE, w.w, 4, 17);
    st->cycle = at_cycle;
    return rc;
}

static int kit_statement(npk_asm *a, npk_cur *c)
{
    npk_cur save = *c;
    const char *s;
    size_t n = npk_cur_ident(c, &s);
    *c = save;
    if (n && (npk_eq_nocase(s, n, "gemv") || npk_eq_nocase(s, n, "vadd") ||
              (n > 5 && npk_eq_nocase(s, 5, "vadd.")))) {
        npk_mnem m;
        if (npk_asm_mnemonic(a, c, kit_mnems, 3, kit_opts, 6, &m))
            return -1;
        return m.index == 0 ? kit_gemv(a, c, &m) : kit_vadd(a, c, &m);
    }
    return kit_cycle(a, c);
}

static const char *kit_reserved(npk_asm *a, const char *name, size_t len)
{
    (void)a;
    static const npk_regset *const classes[] = {&vx, &ve, &vr};
    unsigned num;
    bool bad;
    for (int i = 0; i < 3; i++)
        if (npk_regset_match(classes[i], name, len, &num, &bad))
            return "a register name";
    for (size_t i = 0; i < 6; i++)
        if (npk_eq_nocase(name, len, kit_opts[i].name))
            return "an option word";
    return NULL;
}

/* .word: one raw 64-bit instruction word, whatever the current data space is */
static int dir_word(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    (void)d;
    static const npk_asm_dir d8 = {".word", npk_asm_dir_int, 8};
    int prev = npk_asm_space_select(a, SP_INSN);
    int rc = npk_asm_dir_int(a, c, &d8);
    npk_asm_space_select(a, prev);
    return rc;
}

static int dir_host(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    (void)d;
    static const npk_kvspec spec[] = {{"byte", NPK_KV_REQUIRED, 0, 0xFFFFFF}};
    npk_kvres kv;
    if (npk_asm_kvlist(a, c, spec, 1, NPK_KV_COMMAS, NULL, &kv))
        return -1;
    npk_asm_space_select(a, SP_HOST);
    return npk_asm_set_pc(a, (uint64_t)kv.val[0]);
}

static int dir_l2(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    (void)d;
    static const npk_kvspec spec[] = {{"word", 0, 0, 4095}, {"elem", 0, 0, 32767}};
    npk_kvres kv;
    if (npk_asm_kvlist(a, c, spec, 2, NPK_KV_COMMAS, NULL, &kv))
        return -1;
    if (kv.present != 1 && kv.present != 2)
        return npk_asm_error(a, NULL, 3, "'.l2' needs exactly one of word= and elem=");
    npk_asm_space_select(a, SP_L2);
    return npk_asm_set_pc(a, (uint64_t)(kv.present == 1 ? 16 * kv.val[0] : 2 * kv.val[1]));
}

static int dir_w130(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    (void)d;
    kit_state *st = npk_asm_user(a);
    uint64_t w[3];
    if (npk_asm_hexbits(a, c, w, 3, 130))
        return -1;
    st->cycle++;
    return emit_in(a, SP_WIDE, w, 3, 17);
}

static int dir_weight(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    (void)d;
    static const npk_kvspec spec[] = {{"k", NPK_KV_REQUIRED, 1, 16}, {"n", NPK_KV_REQUIRED, 1, 16}};
    kit_state *st = npk_asm_user(a);
    if (st->in_weight)
        return npk_asm_error(a, NULL, 7, "'.weight' inside '.weight' (opened at %s)", st->weight_at);
    const char *s;
    size_t n = npk_cur_ident(c, &s);
    npk_kvres kv;
    if (!n)
        return npk_asm_error(a, c->p, 1, "expected a weight name");
    if (npk_asm_expect(a, c, ',') || npk_asm_kvlist(a, c, spec, 2, NPK_KV_COMMAS, NULL, &kv))
        return -1;
    st->in_weight = 1;
    snprintf(st->weight_at, sizeof st->weight_at, "%s:%u", npk_asm_file(a), npk_asm_line(a));
    st->k = kv.val[0];
    st->n = kv.val[1];
    st->rows = 0;
    return 0;
}

static int dir_row(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    (void)d;
    kit_state *st = npk_asm_user(a);
    if (!st->in_weight)
        return npk_asm_error(a, NULL, 4, "'.row' outside '.weight'");
    if (st->rows >= st->n)
        return npk_asm_error(a, NULL, 4, "more than n = %lld rows", (long long)st->n);
    for (int64_t i = 0; i < st->k; i++) {
        int64_t v;
        if ((i && npk_asm_expect(a, c, ',')) || npk_asm_imm(a, c, -8, 7, "code", &v))
            return -1;
        st->codes[st->rows][i] = (int8_t)v;
    }
    st->rows++;
    return 0;
}

static int dir_endweight(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    (void)c;
    (void)d;
    kit_state *st = npk_asm_user(a);
    if (!st->in_weight)
        return npk_asm_error(a, NULL, 10, "'.endweight' without '.weight'");
    st->in_weight = 0;
    if (st->rows != st->n)
        return npk_asm_error(a, NULL, 10, "%lld rows, n = %lld", (long long)st->rows,
                             (long long)st->n);
    return 0;
}

static int kit_begin(npk_asm *a)
{
    kit_state *st = npk_asm_user(a);
    memset(st, 0, sizeof *st);
    st->cycle = -1;
    return 0;
}

static int kit_end(npk_asm *a)
{
    kit_state *st = npk_asm_user(a);
    if (st->in_weight)
        return npk_asm_error(a, NULL, 0, "missing '.endweight' for the '.weight' at %s",
                             st->weight_at);
    return 0;
}

static const npk_asm_dir kit_dirs[] = {
    {".target", npk_asm_dir_target, 0}, {".equ", npk_asm_dir_equ, 0},
    {".word", dir_word, 0},             {".host", dir_host, 0},
    {".l2", dir_l2, 0},                 {".bf16", npk_asm_dir_float, NPK_FMT_BF16},
    {".f32", npk_asm_dir_float, NPK_FMT_F32}, {".u8", npk_asm_dir_int, 1},
    {".h16", npk_asm_dir_int, 2},       {".zero", npk_asm_dir_space, 0},
    {".w130", dir_w130, 0},             {".weight", dir_weight, 0},
    {".row", dir_row, 0},               {".endweight", dir_endweight, 0},
    {".p2align", npk_asm_dir_align, NPK_ALIGN_POW2},
};

static const npk_asm_space_def kit_spaces[] = {
    {"insn", 0, 1 << 20}, {"host", 0, 1 << 24}, {"l2", 0, 1 << 16}, {"wide", 0, 1 << 20}};

const npk_asm_target kit_target = {
    .name = "kit",
    .comment_chars = ";",
    .flags = NPK_ASM_NO_FORWARD | NPK_ASM_EXACT_DIV | NPK_ASM_PC_DOLLAR,
    .dirs = kit_dirs,
    .n_dirs = sizeof kit_dirs / sizeof kit_dirs[0],
    .spaces = kit_spaces,
    .n_spaces = 4,
    .list_word_bytes = 8,
    .statement = kit_statement,
    .reserved = kit_reserved,
    .begin_pass = kit_begin,
    .end_pass = kit_end,
};

