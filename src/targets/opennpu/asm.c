/* opennpu's assembler (spec §7), disassembler (§8) and canonical encoder (§4.6). Mnemonics,
 * operand kinds and options come from isa.def; this file says how opennpu spells them
 * (vxN/veN/vrN, `off(vrN)`, `.sat.rtz`, `#`/`;` comments, no labels) and plugs that into the
 * shared engine in src/asm. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "asm/asm.h"
#include "npukit/npukit.h" /* NPK_INPUT_MAX */
#include "targets/opennpu/opennpu.h"

/* ---- canonical encoding (§4.6) --------------------------------------------------------------- */

static const uint8_t canon_f7[ONPU_N_OPS] = {
#define ONPU_CANON_F7(id, funct7) [ONPU_OP_##id] = funct7,
#include "targets/opennpu/isa.def"
};

static unsigned opcode_of(unsigned op)
{
    return onpu_insns[op].match & 0x7F;
}

uint32_t onpu_encode(const onpu_decoded *d)
{
    if (d->op >= ONPU_N_OPS)
        return 0;
    const onpu_insn_info *in = &onpu_insns[d->op];
    uint32_t w = in->match;
    bool has_w = false;
    const uint8_t regs[4] = {d->rd, d->rs1, d->rs2, d->rs3};
    onpu_kind k[ONPU_MAX_OPERANDS];
    const int nk = onpu_operands((onpu_op)d->op, k);
    for (int i = 0; i < nk; i++) {
        const onpu_kind_info *ki = &onpu_kinds[k[i]];
        has_w |= ki->cls == ONPU_CLS_WIDTH;
        if (ki->field >= 0)
            w |= (uint32_t)(k[i] == ONPU_K_VRD && d->op == ONPU_OP_MMA ? d->mma_rd
                                                                        : regs[ki->field])
                 << onpu_field_lsb[ki->field];
        if (ki->imm)
            w |= ((uint32_t)d->imm & 0xFFF) << 20;
    }
    const unsigned opts = onpu_options((onpu_op)d->op);
    const unsigned sat = opts & ONPU_OPT_SAT ? d->sat & 1u : 0,
                   keep = opts & ONPU_OPT_KEEP ? d->keep & 1u : 0,
                   round = opts & ONPU_OPT_ROUND ? d->round & 3u : 0,
                   var = opts & ONPU_OPT_VAR ? d->var & 1u : 0;
    switch (in->fmt) {
    case ONPU_FMT_R:
        w |= (uint32_t)(canon_f7[d->op] | (has_w ? d->cls & 3u : 0) | round << 2 | sat << 4 |
                        keep << 4)
             << 25;
        break;
    case ONPU_FMT_RC: w |= (uint32_t)(sat << 3 | round << 4 | var << 6) << 25; break;
    case ONPU_FMT_S: w |= (uint32_t)round << 25; break;
    case ONPU_FMT_N: case ONPU_FMT_I: break;
    }
    return w;
}

/* ---- names the engine needs ------------------------------------------------------------------ */

/* Mnemonic options: sat, keep, the rounding group, the variant group. */
enum { OPT_SAT, OPT_KEEP, OPT_RNE, OPT_RTZ, OPT_FLOOR, OPT_CEIL, OPT_E4M3, OPT_E5M2, N_OPTS };
static const npk_asm_opt oa_opts[N_OPTS] = {{"sat", 0},   {"keep", 0}, {"rne", 1},  {"rtz", 1},
                                            {"floor", 1}, {"ceil", 1}, {"e4m3", 2}, {"e5m2", 2}};

/* The engine's option bits allowed by a row's ONPU_OPT_* set. */
static uint64_t allowed_opts(unsigned opts)
{
    uint64_t m = 0;
    if (opts & ONPU_OPT_SAT)
        m |= 1u << OPT_SAT;
    if (opts & ONPU_OPT_KEEP)
        m |= 1u << OPT_KEEP;
    if (opts & ONPU_OPT_ROUND)
        m |= 1u << OPT_RNE | 1u << OPT_RTZ | 1u << OPT_FLOOR | 1u << OPT_CEIL;
    if (opts & ONPU_OPT_VAR)
        m |= 1u << OPT_E4M3 | 1u << OPT_E5M2;
    return m;
}

/* The three register classes for configuration c (count 0: any number, for name checks). */
static void regsets(const onpu_cfg *c, npk_regset rs[3])
{
    static const char *const what[3] = {"vx register", "ve register", "vr register"};
    for (int i = 0; i < 3; i++) {
        npk_regset r = {onpu_class_names[i], c ? onpu_nregs(c, (onpu_class)i) : 0, NULL, NULL, 0,
                        what[i]};
        rs[i] = r;
    }
}

/* ---- assembler ------------------------------------------------------------------------------- */

static const char *oa_reserved(npk_asm *a, const char *name, size_t len)
{
    (void)a;
    npk_regset rs[3];
    regsets(NULL, rs);
    unsigned num;
    bool bad;
    for (int i = 0; i < 3; i++)
        if (npk_regset_match(&rs[i], name, len, &num, &bad))
            return "a register name";
    for (size_t i = 0; i < ONPU_N_OPS; i++)
        if (npk_eq_nocase(name, len, onpu_mnemonics[i]))
            return "a mnemonic";
    for (size_t i = 0; i < N_OPTS; i++)
        if (npk_eq_nocase(name, len, oa_opts[i].name))
            return "an option word";
    if (memchr(name, '.', len))
        return "not a valid name here (opennpu names have no dots)";
    return NULL;
}

/* The operands of a row as §7.4 writes them ("R, R, R", "vrD, vxA, vxB" style), for
 * operand-count messages. */
static void operand_list(const onpu_kind *k, int n, const onpu_decoded *d, char *buf,
                         size_t size)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && o < size; i++) {
        const onpu_kind_info *ki = &onpu_kinds[k[i]];
        char reg[8];
        const char *s = k[i] == ONPU_K_MEM ? "off(vrN)" : k[i] == ONPU_K_SEG ? "segment" : "value";
        if (ki->cls == ONPU_CLS_WIDTH)
            s = "R";
        else if (!ki->imm && ki->field >= 0)
            s = (snprintf(reg, sizeof reg, "%sN", onpu_class_names[onpu_kind_class(k[i], d)]), reg);
        o += (size_t)snprintf(buf + o, size - o, "%s%s", i ? ", " : "", s);
    }
}

/* One register operand of class `want` (-1: any; *cls gets the class found). */
static int reg_operand(npk_asm *a, npk_cur *c, const npk_regset rs[3], int want, unsigned *cls,
                       unsigned *num, const char *mnem)
{
    const npk_regset *sets[3] = {&rs[0], &rs[1], &rs[2]};
    npk_cur_ws(c);
    const char *at = c->p;
    size_t set;
    if (npk_asm_reg_any(a, c, sets, 3, &set, num))
        return -1;
    if (want >= 0 && set != (size_t)want)
        return npk_asm_error(a, at, (size_t)(c->p - at),
                             "'%s' needs a %s register here, not '%.*s'", mnem,
                             onpu_class_names[want], (int)(c->p - at), at);
    *cls = (unsigned)set;
    return 0;
}

/* A non-register operand (memory, segment, immediate) of kind k into d. */
static int imm_operand(npk_asm *a, npk_cur *c, const onpu_cfg *cfg, const npk_regset *vr,
                       onpu_kind k, onpu_decoded *d)
{
    int64_t v = 0;
    unsigned base = 0;
    int rc;
    switch (k) {
    case ONPU_K_MEM: rc = npk_asm_mem(a, c, vr, -2048, 2047, &v, &base); break;
    case ONPU_K_SEG: rc = npk_asm_imm(a, c, 0, 64 / cfg->K - 1, "LUT segment", &v); break;
    case ONPU_K_IMM8: rc = npk_asm_imm(a, c, -128, 255, "immediate", &v); break;
    default: rc = npk_asm_imm(a, c, -2048, 2047, "immediate", &v); break;
    }
    d->imm = (int32_t)v;
    if (k == ONPU_K_MEM)
        d->rs1 = (uint8_t)base;
    return rc;
}

/* Parse the operands of row d->op into d (its cls/src_cls already set for VALU_CVT). */
static int oa_operands(npk_asm *a, npk_cur *c, const onpu_cfg *cfg, const npk_mnem *m,
                       onpu_decoded *d)
{
    const onpu_insn_info *in = &onpu_insns[d->op];
    onpu_kind k[ONPU_MAX_OPERANDS];
    const int n = onpu_operands((onpu_op)d->op, k);
    char names[96];
    if (n < 0)
        return npk_asm_error(a, m->at, m->len, "isa.def: bad operand list for '%s'",
                             in->mnemonic);
    npk_regset rs[3];
    regsets(cfg, rs);
    const char *wat = NULL; /* the first "w" operand, which sets the class */
    size_t wlen = 0;
    for (int i = 0; i < n; i++) {
        if (npk_cur_eol(c) || (i > 0 && !npk_cur_peek(c, ','))) {
            if (!npk_cur_eol(c))
                return npk_asm_expect(a, c, ',');
            operand_list(k, n, d, names, sizeof names);
            return npk_asm_error(a, c->p, 1, "'%s' needs %d operand%s (%s)", in->mnemonic, n,
                                 n == 1 ? "" : "s", names);
        }
        if (i > 0)
            c->p++; /* ',' */
        npk_cur_ws(c);
        const char *at = c->p;
        const onpu_kind_info *ki = &onpu_kinds[k[i]];
        if (ki->imm) {
            if (imm_operand(a, c, cfg, &rs[ONPU_VR], k[i], d))
                return -1;
            continue;
        }
        const bool w = ki->cls == ONPU_CLS_WIDTH;
        unsigned cls, num;
        if (reg_operand(a, c, rs, w ? -1 : (int)onpu_kind_class(k[i], d), &cls, &num,
                        in->mnemonic))
            return -1;
        if (w && wat && cls != d->cls)
            return npk_asm_error(a, at, (size_t)(c->p - at),
                                 "register class mismatch: '%.*s' is a %s register but '%.*s' "
                                 "is a %s register",
                                 (int)(c->p - at), at, onpu_class_names[cls], (int)wlen, wat,
                                 onpu_class_names[d->cls]);
        if (w && !wat) {
            wat = at;
            wlen = (size_t)(c->p - at);
            d->cls = (uint8_t)cls;
        }
        if (k[i] == ONPU_K_VRD && d->op == ONPU_OP_MMA)
            d->mma_rd = (uint8_t)num;
        else
            *onpu_reg(d, ki->field) = (uint8_t)num;
    }
    if (n == 0 && !npk_cur_eol(c))
        return npk_asm_error(a, c->p, 1, "'%s' takes no operands", in->mnemonic);
    if (npk_cur_peek(c, ',')) {
        operand_list(k, n, d, names, sizeof names);
        return npk_asm_error(a, c->p, 1, "too many operands: '%s' takes %d (%s)", in->mnemonic,
                             n, names);
    }
    if (opcode_of(d->op) == 0x12) /* VALU_REDUCE: the source class */
        d->src_cls = d->cls;
    return 0;
}

static int oa_statement(npk_asm *a, npk_cur *c)
{
    const onpu_cfg *cfg = npk_asm_user(a); /* onpu_assemble's copy */
    npk_mnem m;
    onpu_decoded d;
    memset(&d, 0, sizeof d);
    int rc = npk_asm_mnemonic(a, c, onpu_mnemonics, ONPU_N_OPS, oa_opts, N_OPTS, &m);
    if (rc == 0) {
        d.op = (uint16_t)m.index;
        const onpu_insn_info *in = &onpu_insns[d.op];
        rc = npk_asm_opts_allowed(a, &m, allowed_opts(onpu_options((onpu_op)d.op)), oa_opts,
                                  N_OPTS);
        if (in->fmt == ONPU_FMT_RC) {
            d.cvt_dst = (uint8_t)(in->match >> 12 & 7);
            d.cvt_src = (uint8_t)(in->match >> 25 & 7);
            d.cls = (uint8_t)onpu_cvt_fmts[d.cvt_dst].cls;
            d.src_cls = (uint8_t)onpu_cvt_fmts[d.cvt_src].cls;
        }
        d.sat = (uint8_t)(m.opts >> OPT_SAT & 1);
        d.keep = (uint8_t)(m.opts >> OPT_KEEP & 1);
        for (unsigned r = 0; r < 4; r++)
            if (m.opts >> (OPT_RNE + r) & 1)
                d.round = (uint8_t)r;
        d.var = (uint8_t)(m.opts >> OPT_E5M2 & 1);
        if (rc == 0)
            rc = oa_operands(a, c, cfg, &m, &d);
        if (rc == 0 && d.op == ONPU_OP_MMA_LAST && cfg->K > cfg->L / 4)
            npk_asm_warning(a, m.at, m.len,
                            "mma.last drains %u columns into %u vr registers (K > L/4): they "
                            "wrap around and only the last %u columns survive",
                            cfg->K, cfg->L / 4, cfg->L / 4);
    }
    /* a word is emitted even after an error so that later words keep their positions */
    npk_asm_emit_le(a, rc ? 0 : onpu_encode(&d), 4);
    if (rc)
        c->p = c->end;
    return rc;
}

static const npk_asm_dir oa_dirs[] = {
    {".equ", npk_asm_dir_equ, 0},
    {".word", npk_asm_dir_int, 4},
};

/* §3.5 sets no largest program; npukit's is the largest image it reads back (1 GiB,
 * 2^28 words). Memory stays bounded by the source: opennpu has no directive that fills. */
static const npk_asm_space_def oa_spaces[] = {{"prog", 0, NPK_INPUT_MAX}};

static const npk_asm_target oa_target = {
    .name = "opennpu",
    .comment_chars = "#;",
    .flags = NPK_ASM_NO_FORWARD,
    .dirs = oa_dirs,
    .n_dirs = sizeof oa_dirs / sizeof oa_dirs[0],
    .spaces = oa_spaces,
    .n_spaces = 1,
    .list_word_bytes = 4,
    .statement = oa_statement,
    .reserved = oa_reserved,
};

int onpu_assemble(const char *src, size_t len, const char *file, const onpu_cfg *c, FILE *diag,
                  struct npk_asm_result **r)
{
    return onpu_assemble_list(src, len, file, c, diag, NULL, r);
}

int onpu_assemble_list(const char *src, size_t len, const char *file, const onpu_cfg *c,
                       FILE *diag, FILE *listing, struct npk_asm_result **r)
{
    *r = NULL;
    if (c->L < 4 || c->L > 32 || c->L % 4 || c->K < 4 || c->K > 64 || (c->K & (c->K - 1))) {
        if (diag)
            fprintf(diag,
                    "%s: error: opennpu configuration L=%u K=%u is not legal (L: a multiple of 4 "
                    "from 4 to 32; K: a power of two from 4 to 64)\n",
                    file, c->L, c->K);
        return 1;
    }
    onpu_cfg cfg = *c;
    npk_asm_opts o;
    memset(&o, 0, sizeof o);
    o.diag = diag;
    o.listing = listing;
    return npk_asm_result_check(npk_asm_run(&oa_target, &cfg, src, len, file, &o), file, diag,
                                r);
}

/* ---- disassembler (§8) ----------------------------------------------------------------------- */

/* The instruction text of a legal decoded word. Returns false when the assembler would reject
 * it (an immediate outside the operand's range, the ignored rd of `mma` naming no register),
 * with the cause in bad. */
static bool insn_text(const onpu_decoded *d, const onpu_cfg *c, npk_dis *t, char *bad,
                      size_t nbad)
{
    static const npk_regset names[3] = {{"vx", 32, NULL, NULL, 0, NULL},
                                        {"ve", 32, NULL, NULL, 0, NULL},
                                        {"vr", 32, NULL, NULL, 0, NULL}};
    bool ok = true;
    const unsigned opts = onpu_options((onpu_op)d->op);
    npk_dis_puts(t, onpu_mnemonics[d->op]);
    if ((opts & ONPU_OPT_VAR) && d->var)
        npk_dis_opt(t, "e5m2");
    if ((opts & ONPU_OPT_SAT) && d->sat)
        npk_dis_opt(t, "sat");
    if ((opts & ONPU_OPT_KEEP) && d->keep)
        npk_dis_opt(t, "keep");
    if ((opts & ONPU_OPT_ROUND) && d->round)
        npk_dis_opt(t, onpu_round_names[d->round & 3]);
    const uint8_t regs[4] = {d->rd, d->rs1, d->rs2, d->rs3};
    onpu_kind k[ONPU_MAX_OPERANDS];
    const int nk = onpu_operands((onpu_op)d->op, k);
    for (int i = 0; i < nk; i++) {
        const onpu_kind_info *ki = &onpu_kinds[k[i]];
        npk_dis_sep(t);
        if (k[i] == ONPU_K_MEM) {
            npk_dis_mem(t, &names[ONPU_VR], d->imm, d->rs1);
        } else if (k[i] == ONPU_K_VRD && d->op == ONPU_OP_MMA) {
            npk_dis_reg(t, &names[ONPU_VR], d->mma_rd);
            if (d->mma_rd >= onpu_nregs(c, ONPU_VR)) {
                ok = false;
                snprintf(bad, nbad, "vr%u does not exist at L/4 = %u", d->mma_rd,
                         onpu_nregs(c, ONPU_VR));
            }
        } else if (ki->field >= 0) {
            npk_dis_reg(t, &names[onpu_kind_class(k[i], d)], regs[ki->field]);
        } else {
            if (k[i] == ONPU_K_IMM8 && (d->imm < -128 || d->imm > 255)) {
                ok = false;
                snprintf(bad, nbad, "immediate %d outside -128..255", (int)d->imm);
            }
            npk_dis_int(t, d->imm);
        }
    }
    return ok;
}

/* Why a legal word differs from its canonical word enc: the fields that differ, appended to
 * t as a comma-separated list. */
static void noncanonical(uint32_t w, uint32_t enc, onpu_fmt fmt, npk_dis *t)
{
    const uint32_t diff = w ^ enc;
    if (diff && fmt == ONPU_FMT_N) {
        npk_dis_printf(t, "bits [31:7] = 0x%07x", (unsigned)(w >> 7));
        return;
    }
    static const struct {
        uint32_t mask;
        unsigned lsb;
        const char *name;
    } fields[] = {{0xF80u, 7, "rd"},      {0xF8000u, 15, "rs1"}, {0x1F00000u, 20, "rs2"},
                  {0xF8000000u, 27, "rs3"}, {0xFE000000u, 25, "funct7"}};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const bool funct7 = fields[i].lsb == 25;
        if (!(diff & fields[i].mask) || (funct7 && fmt != ONPU_FMT_R && fmt != ONPU_FMT_RC) ||
            (fields[i].lsb == 27 && fmt != ONPU_FMT_S))
            continue;
        npk_dis_puts(t, t->len ? ", " : "");
        if (funct7)
            npk_dis_printf(t, "funct7 0x%02x, canonical 0x%02x", (unsigned)(w >> 25),
                           (unsigned)(enc >> 25));
        else
            npk_dis_printf(t, "%s field %u", fields[i].name, (unsigned)(w >> fields[i].lsb & 31));
    }
}

int onpu_disasm(uint32_t w, const onpu_cfg *c, char *out, size_t n)
{
    npk_dis dd;
    npk_dis_init(&dd, out, n);
    const uint64_t w64 = w;
    onpu_decoded d;
    char why[320] = "illegal: ";
    if (onpu_decode(w, c, &d, why + 9, sizeof why - 9) != 0) {
        npk_dis_word(&dd, &w64, 1, 32, '#', why);
        return npk_dis_done(&dd);
    }
    char text[128], bad[96] = "", nc[160];
    npk_dis t;
    npk_dis_init(&t, text, sizeof text);
    const uint32_t enc = onpu_encode(&d);
    if (insn_text(&d, c, &t, bad, sizeof bad) && enc == w) {
        npk_dis_puts(&dd, text);
        return npk_dis_done(&dd);
    }
    npk_dis why_nc;
    npk_dis_init(&why_nc, nc, sizeof nc);
    noncanonical(w, enc, onpu_insns[d.op].fmt, &why_nc);
    if (bad[0])
        npk_dis_printf(&why_nc, "%s%s", why_nc.len ? ", " : "", bad);
    snprintf(why, sizeof why, "%s (non-canonical: %s)", text, nc);
    npk_dis_word(&dd, &w64, 1, 32, '#', why);
    return npk_dis_done(&dd);
}
