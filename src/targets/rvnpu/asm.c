/* rvnpu's assembler and disassembler: every mnemonic, encoding and operand kind comes from
 * isa.def; this file only says how RISC-V assembly spells them (ABI and xN/fN names,
 * `off(reg)`, absolute branch targets, an optional trailing rounding mode, `.insn`) and plugs
 * that into the shared engine. One encoder serves both directions, so the disassembler can
 * check that its text reassembles to the word. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/target.h"
#include "targets/rvnpu/asm.h"
#include "targets/asm_image.h"
#include "targets/rvnpu/rvnpu.h"

/* ---- register classes -------------------------------------------------------------------------- */

static const npk_regalias x_alias[] = {
#define RVNPU_XREG(num, abi) {abi, num},
#define RVNPU_ALIAS(name, num) {name, num},
#include "targets/rvnpu/isa.def"
};
static const npk_regalias f_alias[] = {
#define RVNPU_FREG(num, abi) {abi, num},
#include "targets/rvnpu/isa.def"
};

static const npk_regset xregs = {"x", 32, rvnpu_xnames, x_alias,
                                 sizeof x_alias / sizeof x_alias[0], "integer register"};
static const npk_regset fregs = {"f", 32, rvnpu_fnames, f_alias,
                                 sizeof f_alias / sizeof f_alias[0], "FP register"};
static const npk_regset vregs = {"v", 4, NULL, NULL, 0, "NPU vector register"};

/* ---- one encoder for both directions ----------------------------------------------------------- */

/* Operand values of one instruction: v[i] for operand i; for mem_i/mem_s v is the offset and
 * r the base register. */
typedef struct operand_vals {
    int64_t v[RVNPU_MAX_OPERANDS];
    unsigned r[RVNPU_MAX_OPERANDS];
} operand_vals;

static uint32_t put_imm(uint32_t w, rvnpu_fmt f, uint32_t imm)
{
    switch (f) {
    case RVNPU_FMT_I: return w | imm << 20;
    case RVNPU_FMT_S: return w | (imm & 0xFE0) << 20 | (imm & 0x1F) << 7;
    case RVNPU_FMT_B:
        return w | (imm & 0x1000) << 19 | (imm & 0x7E0) << 20 | (imm & 0x1E) << 7 |
               (imm & 0x800) >> 4;
    case RVNPU_FMT_J:
        return w | (imm & 0x100000) << 11 | (imm & 0x7FE) << 20 | (imm & 0x800) << 9 |
               (imm & 0xFF000);
    default: return w;
    }
}

static uint32_t encode(rvnpu_op op, const rvnpu_kind *k, int n, const operand_vals *o)
{
    const rvnpu_insn_info *in = &rvnpu_insns[op];
    uint32_t w = in->match;
    for (int i = 0; i < n; i++) {
        uint32_t v = (uint32_t)o->v[i];
        switch (k[i]) {
        case RVNPU_K_XD: case RVNPU_K_FD: case RVNPU_K_XCNT: case RVNPU_K_VD:
            w |= (v & 31) << 7; break;
        case RVNPU_K_XS1: case RVNPU_K_FS1: case RVNPU_K_ZIMM: w |= (v & 31) << 15; break;
        case RVNPU_K_XS2: case RVNPU_K_FS2: case RVNPU_K_VS2: case RVNPU_K_SHAMT:
            w |= (v & 31) << 20; break;
        case RVNPU_K_FS3: w |= (v & 31) << 27; break;
        case RVNPU_K_IMM12: case RVNPU_K_CSR: w = put_imm(w, RVNPU_FMT_I, v & 0xFFF); break;
        case RVNPU_K_UIMM20: w |= (v & 0xFFFFF) << 12; break;
        case RVNPU_K_PCREL13: w = put_imm(w, RVNPU_FMT_B, v & 0x1FFF); break;
        case RVNPU_K_PCREL21: w = put_imm(w, RVNPU_FMT_J, v & 0x1FFFFF); break;
        case RVNPU_K_MEM_I: w = put_imm(w, RVNPU_FMT_I, v & 0xFFF) | (o->r[i] & 31) << 15; break;
        case RVNPU_K_MEM_S: w = put_imm(w, RVNPU_FMT_S, v & 0xFFF) | (o->r[i] & 31) << 15; break;
        case RVNPU_K_RM: w |= (v & 7) << 12; break;
        default: break;
        }
    }
    return w;
}

/* The operand values a word holds (inverse of encode for canonical words). */
static void extract(uint32_t w, const rvnpu_kind *k, int n, operand_vals *o)
{
    for (int i = 0; i < n; i++) {
        int64_t v = 0;
        switch (k[i]) {
        case RVNPU_K_XD: case RVNPU_K_FD: case RVNPU_K_XCNT: v = w >> 7 & 31; break;
        case RVNPU_K_VD: v = w >> 7 & 3; break;
        case RVNPU_K_XS1: case RVNPU_K_FS1: case RVNPU_K_ZIMM: v = w >> 15 & 31; break;
        case RVNPU_K_XS2: case RVNPU_K_FS2: case RVNPU_K_SHAMT: v = w >> 20 & 31; break;
        case RVNPU_K_VS2: v = w >> 20 & 3; break;
        case RVNPU_K_FS3: v = w >> 27; break;
        case RVNPU_K_IMM12: v = rvnpu_imm(w, RVNPU_FMT_I); break;
        case RVNPU_K_CSR: v = w >> 20; break;
        case RVNPU_K_UIMM20: v = w >> 12; break;
        case RVNPU_K_PCREL13: v = rvnpu_imm(w, RVNPU_FMT_B); break;
        case RVNPU_K_PCREL21: v = rvnpu_imm(w, RVNPU_FMT_J); break;
        case RVNPU_K_MEM_I: v = rvnpu_imm(w, RVNPU_FMT_I); o->r[i] = w >> 15 & 31; break;
        case RVNPU_K_MEM_S: v = rvnpu_imm(w, RVNPU_FMT_S); o->r[i] = w >> 15 & 31; break;
        case RVNPU_K_RM: v = w >> 12 & 7; break;
        default: break;
        }
        o->v[i] = v;
    }
}

uint32_t rvnpu_encode_canonical(uint32_t word, int op)
{
    rvnpu_kind k[RVNPU_MAX_OPERANDS];
    int n = rvnpu_operands((rvnpu_op)op, k);
    operand_vals o;
    memset(&o, 0, sizeof o);
    if (n < 0)
        return word;
    extract(word, k, n, &o);
    return encode((rvnpu_op)op, k, n, &o);
}

/* ---- assembler ---------------------------------------------------------------------------------- */

static const char *ra_reserved(npk_asm *a, const char *name, size_t len)
{
    (void)a;
    unsigned num;
    bool bad;
    if (npk_regset_match(&xregs, name, len, &num, &bad) ||
        npk_regset_match(&fregs, name, len, &num, &bad))
        return "a register name";
    for (size_t i = 0; i < RVNPU_N_OPS; i++)
        if (npk_eq_nocase(name, len, rvnpu_mnemonics[i]))
            return "a mnemonic";
    return NULL;
}

/* A pc-relative target: an expression giving an absolute address (32-bit wrap-around, so a
 * disassembled target below 0 or above 2^32 - 1 reassembles too). */
static int pcrel(npk_asm *a, npk_cur *c, uint64_t pc, int bits, int64_t *off)
{
    npk_expr e;
    if (npk_asm_expr_full(a, c, 0, &e))
        return -1;
    int64_t d = (int32_t)(uint32_t)((uint64_t)e.value - pc);
    int64_t lim = (int64_t)1 << (bits - 1);
    if (d & 1)
        return npk_asm_error(a, e.at, e.len, "branch target 0x%" PRIx64 " is not 2-byte aligned",
                             (uint64_t)e.value);
    if (d < -lim || d >= lim)
        return npk_asm_error(a, e.at, e.len,
                             "branch target 0x%" PRIx64 " out of range (offset %" PRId64
                             ", must lie in %" PRId64 "..%" PRId64 ")",
                             (uint64_t)e.value, d, -lim, lim - 2);
    *off = d;
    return 0;
}

static int csr_operand(npk_asm *a, npk_cur *c, int64_t *v)
{
    npk_cur save = *c;
    const char *s;
    size_t len = npk_cur_ident(c, &s);
    if (len) {
        for (size_t i = 0; i < rvnpu_n_csrs; i++)
            if (npk_eq_nocase(s, len, rvnpu_csrs[i].name)) {
                *v = rvnpu_csrs[i].addr;
                return 0;
            }
        *c = save;
    }
    return npk_asm_imm(a, c, 0, 4095, "CSR number", v);
}

static int rm_operand(npk_asm *a, npk_cur *c, int64_t *v)
{
    npk_cur_ws(c);
    const char *s;
    size_t len = npk_cur_ident(c, &s);
    for (unsigned i = 0; len && i < 8; i++)
        if (rvnpu_rm_names[i] && npk_eq_nocase(s, len, rvnpu_rm_names[i])) {
            *v = i;
            return 0;
        }
    return npk_asm_error(a, len ? s : c->p, len ? len : 1,
                         "expected a rounding mode (rne, rtz, rdn, rup, rmm, dyn)");
}

/* FENCE's ordering sets as GNU as writes them: `fence` (= `fence iorw, iorw`) or
 * `fence PRED, SUCC` with letters from "iorw". They are not in isa.def's operand kinds
 * because the instruction ignores them (it is a no-op here). */
static const char fence_letters[] = "iorw";

static int fence_set(npk_asm *a, npk_cur *c, uint32_t *bits)
{
    npk_cur_ws(c);
    const char *s;
    size_t len = npk_cur_ident(c, &s);
    *bits = 0;
    for (size_t i = 0; i < len; i++) {
        const char *p = strchr(fence_letters, s[i] | 0x20);
        if (!p)
            return npk_asm_error(a, s, len, "expected a fence set of the letters i, o, r, w");
        *bits |= 8u >> (p - fence_letters);
    }
    if (!len || !*bits)
        return npk_asm_error(a, len ? s : c->p, len ? len : 1,
                             "expected a fence set of the letters i, o, r, w");
    return 0;
}

static int fence_sets(npk_asm *a, npk_cur *c, uint32_t *bits)
{
    uint32_t pred, succ;
    if (npk_cur_eol(c)) {
        *bits = 0x0FF00000u;
        return 0;
    }
    if (fence_set(a, c, &pred) || npk_asm_expect(a, c, ',') || fence_set(a, c, &succ))
        return -1;
    *bits = pred << 24 | succ << 20;
    return 0;
}

static int ra_encode(npk_asm *a, npk_cur *c, const npk_mnem *m, uint64_t pc, uint32_t *word)
{
    rvnpu_op op = (rvnpu_op)m->index;
    const rvnpu_insn_info *in = &rvnpu_insns[op];
    rvnpu_kind k[RVNPU_MAX_OPERANDS];
    int n = rvnpu_operands(op, k);
    if (n < 0)
        return npk_asm_error(a, m->at, m->len, "isa.def: bad operand list for '%s'",
                             in->mnemonic);
    if (m->opts)
        return npk_asm_error(a, m->at, m->len, "'%s' takes no options", in->mnemonic);
    operand_vals o;
    memset(&o, 0, sizeof o);
    for (int i = 0; i < n; i++) {
        if (k[i] == RVNPU_K_RM) {
            o.v[i] = 7; /* dyn unless given */
            if (npk_cur_accept(c, ',')) {
                if (rm_operand(a, c, &o.v[i]))
                    return -1;
            }
            continue;
        }
        if (i > 0 && npk_asm_expect(a, c, ','))
            return -1;
        if (npk_cur_eol(c))
            return npk_asm_error(a, c->p, 1, "'%s' needs operands: %s", in->mnemonic,
                                 in->operands);
        unsigned r;
        switch (k[i]) {
        case RVNPU_K_XD: case RVNPU_K_XS1: case RVNPU_K_XS2: case RVNPU_K_XCNT:
            if (npk_asm_reg(a, c, &xregs, &r))
                return -1;
            o.v[i] = r;
            break;
        case RVNPU_K_FD: case RVNPU_K_FS1: case RVNPU_K_FS2: case RVNPU_K_FS3:
            if (npk_asm_reg(a, c, &fregs, &r))
                return -1;
            o.v[i] = r;
            break;
        case RVNPU_K_VD: case RVNPU_K_VS2:
            if (npk_asm_reg(a, c, &vregs, &r))
                return -1;
            o.v[i] = r;
            break;
        case RVNPU_K_IMM12:
            if (npk_asm_imm(a, c, -2048, 2047, "immediate", &o.v[i]))
                return -1;
            break;
        case RVNPU_K_SHAMT:
            if (npk_asm_imm(a, c, 0, 31, "shift amount", &o.v[i]))
                return -1;
            break;
        case RVNPU_K_ZIMM:
            if (npk_asm_imm(a, c, 0, 31, "immediate", &o.v[i]))
                return -1;
            break;
        case RVNPU_K_UIMM20:
            if (npk_asm_imm(a, c, 0, 0xFFFFF, "upper immediate", &o.v[i]))
                return -1;
            break;
        case RVNPU_K_PCREL13:
            if (pcrel(a, c, pc, 13, &o.v[i]))
                return -1;
            break;
        case RVNPU_K_PCREL21:
            if (pcrel(a, c, pc, 21, &o.v[i]))
                return -1;
            break;
        case RVNPU_K_CSR:
            if (csr_operand(a, c, &o.v[i]))
                return -1;
            break;
        case RVNPU_K_MEM_I:
        case RVNPU_K_MEM_S:
            if (npk_asm_mem(a, c, &xregs, -2048, 2047, &o.v[i], &o.r[i]))
                return -1;
            break;
        default: break;
        }
    }
    uint32_t fence_bits = 0;
    if (op == RVNPU_OP_FENCE && fence_sets(a, c, &fence_bits))
        return -1;
    if (npk_cur_peek(c, ','))
        return npk_asm_error(a, c->p, 1, "too many operands: '%s' takes %s", in->mnemonic,
                             in->operands[0] ? in->operands : "none");
    *word = encode(op, k, n, &o) | fence_bits;
    return 0;
}

/* Assemble one instruction of text (a pseudo-instruction's expansion) at pc into *word. */
static int encode_text(npk_asm *a, const char *text, uint64_t pc, uint32_t *word)
{
    npk_cur c = {text, text + strlen(text)};
    npk_mnem m;
    if (npk_asm_mnemonic(a, &c, rvnpu_mnemonics, RVNPU_N_OPS, NULL, 0, &m) ||
        ra_encode(a, &c, &m, pc, word))
        return -1;
    return npk_asm_end(a, &c);
}

/* Pseudo-instructions that expand to one base instruction: $n is operand n as written. */
static const struct {
    const char *name;
    int nops;
    const char *expansion;
} pseudos[] = {
    {"nop", 0, "addi zero, zero, 0"},   {"mv", 2, "addi $1, $2, 0"},
    {"not", 2, "xori $1, $2, -1"},      {"neg", 2, "sub $1, zero, $2"},
    {"seqz", 2, "sltiu $1, $2, 1"},     {"snez", 2, "sltu $1, zero, $2"},
    {"j", 1, "jal zero, $1"},           {"jr", 1, "jalr zero, 0($1)"},
    {"ret", 0, "jalr zero, 0(ra)"},     {"call", 1, "jal ra, $1"},
    {"beqz", 2, "beq $1, zero, $2"},    {"bnez", 2, "bne $1, zero, $2"},
    {"bltz", 2, "blt $1, zero, $2"},    {"bgez", 2, "bge $1, zero, $2"},
    {"blez", 2, "bge zero, $1, $2"},    {"bgtz", 2, "blt zero, $1, $2"},
    {"bgt", 3, "blt $2, $1, $3"},       {"ble", 3, "bge $2, $1, $3"},
    {"bgtu", 3, "bltu $2, $1, $3"},     {"bleu", 3, "bgeu $2, $1, $3"},
    {"csrr", 2, "csrrs $1, $2, zero"},  {"csrw", 2, "csrrw zero, $1, $2"},
    {"csrs", 2, "csrrs zero, $1, $2"},  {"csrc", 2, "csrrc zero, $1, $2"},
    {"csrwi", 2, "csrrwi zero, $1, $2"}, {"csrsi", 2, "csrrsi zero, $1, $2"},
    {"csrci", 2, "csrrci zero, $1, $2"}, {"frcsr", 1, "csrrs $1, fcsr, zero"},
    {"fscsr", 1, "csrrw zero, fcsr, $1"}, {"frrm", 1, "csrrs $1, frm, zero"},
    {"fsrm", 1, "csrrw zero, frm, $1"}, {"frflags", 1, "csrrs $1, fflags, zero"},
    {"fsflags", 1, "csrrw zero, fflags, $1"}, {"fmv.s", 2, "fsgnj.s $1, $2, $2"},
    {"fneg.s", 2, "fsgnjn.s $1, $2, $2"}, {"fabs.s", 2, "fsgnjx.s $1, $2, $2"},
};

/* Per-run assembler state: which `li` statements (in source order) ever needed two words.
 * A `li` only grows from one word to two across passes, never back, so label addresses
 * settle even when its value is a forward reference. */
typedef struct ra_state {
    uint8_t *wide;
    size_t cap, next;
    int rev; /* NPU revision: 0 seed, 1 rev2, -1 either (no revision warnings) */
} ra_state;

static int ra_begin_pass(npk_asm *a)
{
    ra_state *u = npk_asm_user(a);
    if (u)
        u->next = 0;
    return 0;
}

/* Does this li need two words? Sticky per statement when there is run state. */
static int li_wide(npk_asm *a, int needs)
{
    ra_state *u = npk_asm_user(a);
    if (!u)
        return needs;
    size_t k = u->next++;
    if (k >= u->cap) {
        size_t cap = u->cap ? 2 * u->cap : 64;
        uint8_t *w = realloc(u->wide, cap);
        if (!w)
            return 1;
        memset(w + u->cap, 0, cap - u->cap);
        u->wide = w;
        u->cap = cap;
    }
    u->wide[k] |= (uint8_t)needs;
    return u->wide[k];
}

/* li rd, value (addi, or lui + addi) and la rd, address (auipc + addi). Returns -1 after an
 * error, else 0 with the words emitted. */
static int li_la(npk_asm *a, npk_cur *c, int is_la, uint64_t pc)
{
    unsigned rd;
    npk_expr e;
    if (npk_asm_reg(a, c, &xregs, &rd) || npk_asm_expect(a, c, ',') ||
        npk_asm_expr_full(a, c, 0, &e) ||
        (!is_la && npk_asm_check_range(a, &e, INT32_MIN, UINT32_MAX, "immediate"))) {
        /* two words (an unresolved forward reference in an early pass is an error too) */
        if (!is_la)
            li_wide(a, 1);
        npk_asm_emit_le(a, 0, 4);
        npk_asm_emit_le(a, 0, 4);
        return -1;
    }
    int64_t v = e.value;
    if (is_la)
        v = (int32_t)(uint32_t)((uint64_t)v - pc);
    uint32_t u = (uint32_t)v, lo = u & 0xFFF, hi = (u + 0x800) >> 12 & 0xFFFFF;
    int32_t slo = (int32_t)(lo ^ 0x800) - 0x800;
    if (!is_la && !li_wide(a, !((int32_t)u >= -2048 && (int32_t)u <= 2047)))
        return npk_asm_emit_le(a, 0x13 | rd << 7 | (u & 0xFFF) << 20, 4);
    uint32_t first = (is_la ? 0x17u : 0x37u) | rd << 7 | hi << 12;
    npk_asm_emit_le(a, first, 4);
    return npk_asm_emit_le(a, 0x13 | rd << 7 | rd << 15 | ((uint32_t)slo & 0xFFF) << 20, 4);
}

/* A pseudo-instruction at c (the cursor is after its name). 1: not a pseudo. */
static int pseudo(npk_asm *a, npk_cur *c, const char *name, size_t len, uint64_t pc)
{
    if (npk_eq_nocase(name, len, "li") || npk_eq_nocase(name, len, "la"))
        return li_la(a, c, name[1] == 'a' || name[1] == 'A', pc);
    size_t i = 0, np = sizeof pseudos / sizeof pseudos[0];
    while (i < np && !npk_eq_nocase(name, len, pseudos[i].name))
        i++;
    if (i == np)
        return 1;
    /* split the operands at top-level commas */
    const char *op[3];
    size_t opl[3];
    int n = 0;
    npk_cur_ws(c);
    const char *p = c->p;
    while (p < c->end && n < 4) {
        const char *q = p;
        int depth = 0;
        while (q < c->end && (depth || *q != ',')) {
            depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
            q++;
        }
        if (n == 3)
            return npk_asm_error(a, p, 1, "too many operands: '%s' takes %d", pseudos[i].name,
                                 pseudos[i].nops);
        while (p < q && (*p == ' ' || *p == '\t'))
            p++;
        const char *r = q;
        while (r > p && (r[-1] == ' ' || r[-1] == '\t'))
            r--;
        op[n] = p;
        opl[n++] = (size_t)(r - p);
        p = q < c->end ? q + 1 : q;
    }
    if (n != pseudos[i].nops)
        return npk_asm_error(a, name, len, "'%s' takes %d operand%s", pseudos[i].name,
                             pseudos[i].nops, pseudos[i].nops == 1 ? "" : "s");
    char text[256];
    size_t t = 0;
    for (const char *x = pseudos[i].expansion; *x && t + 1 < sizeof text; x++) {
        if (*x == '$' && x[1] >= '1' && x[1] <= '3') {
            int k = x[1] - '1';
            for (size_t j = 0; j < opl[k] && t + 1 < sizeof text; j++)
                text[t++] = op[k][j];
            x++;
        } else {
            text[t++] = *x;
        }
    }
    text[t] = '\0';
    c->p = c->end;
    uint32_t w = 0;
    int rc = encode_text(a, text, pc, &w);
    npk_asm_emit_le(a, rc ? 0 : w, 4);
    return rc;
}

/* An NPU mnemonic of the other revision assembles (its word exists), but the machine runs
 * that word as something else or traps on it: say which, from isa.def's rev column. */
static void check_rev(npk_asm *a, const npk_mnem *m)
{
    const ra_state *u = npk_asm_user(a);
    const rvnpu_insn_info *in = &rvnpu_insns[m->index];
    if (!u || u->rev < 0 || in->rev == RVNPU_REV_BOTH ||
        in->rev == (u->rev ? RVNPU_REV_REV2 : RVNPU_REV_SEED))
        return;
    rvnpu_decoded d;
    char there[96];
    if (rvnpu_decode(in->match, u->rev, &d, NULL, 0) == 0)
        snprintf(there, sizeof there, "its word executes as '%s'", rvnpu_mnemonics[d.op]);
    else
        snprintf(there, sizeof there, "its word is an illegal instruction (mcause 2)");
    npk_asm_warning(a, m->at, m->len,
                    "'%s' is a %s instruction; with isa_rev=%s %s (select isa_rev=%s)",
                    in->mnemonic, u->rev ? "seed" : "rev2", u->rev ? "rev2" : "seed", there,
                    u->rev ? "seed" : "rev2");
}

static int ra_statement(npk_asm *a, npk_cur *c)
{
    uint64_t pc = npk_asm_pc(a);
    const char *at = c->p;
    npk_mnem m;
    uint32_t word = 0;
    if (pc % 4 == 0) {
        npk_cur save = *c;
        const char *name;
        size_t len = npk_cur_ident(c, &name);
        int prc = len ? pseudo(a, c, name, len, pc) : 1;
        if (prc != 1) {
            if (prc)
                c->p = c->end;
            return prc;
        }
        *c = save;
    }
    int rc = npk_asm_mnemonic(a, c, rvnpu_mnemonics, RVNPU_N_OPS, NULL, 0, &m);
    if (rc == 0)
        rc = ra_encode(a, c, &m, pc, &word);
    if (rc == 0)
        check_rev(a, &m);
    if (pc % 4)
        rc = npk_asm_error(a, at, m.len ? m.len : 1,
                           "instruction at unaligned address 0x%" PRIx64 " (use .align 2)", pc);
    npk_asm_emit_le(a, rc ? 0 : word, 4);
    if (rc)
        c->p = c->end;
    return rc;
}

/* `.insn r OPCODE, F3, F7, RD, RS1, RS2`, `.insn i OPCODE, F3, RD, RS1, IMM`,
 * `.insn s OPCODE, F3, RS2, IMM(RS1)` (GNU as), registers integer or FP. */
static int insn_reg(npk_asm *a, npk_cur *c, int64_t *v)
{
    static const npk_regset *const sets[] = {&xregs, &fregs};
    size_t set;
    unsigned r;
    if (npk_asm_expect(a, c, ',') || npk_asm_reg_any(a, c, sets, 2, &set, &r))
        return -1;
    *v = r;
    return 0;
}

static int dir_insn(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    (void)d;
    npk_cur_ws(c);
    const char *s;
    size_t len = npk_cur_ident(c, &s);
    int64_t opc = 0, f3 = 0, f7 = 0, rd = 0, rs1 = 0, rs2 = 0, imm = 0;
    uint32_t w = 0;
    int rc = -1;
    unsigned r = 0;
    if (len == 1 && (s[0] == 'r' || s[0] == 'R')) {
        rc = npk_asm_imm(a, c, 0, 127, "opcode", &opc) || npk_asm_expect(a, c, ',') ||
             npk_asm_imm(a, c, 0, 7, "funct3", &f3) || npk_asm_expect(a, c, ',') ||
             npk_asm_imm(a, c, 0, 127, "funct7", &f7) || insn_reg(a, c, &rd) ||
             insn_reg(a, c, &rs1) || insn_reg(a, c, &rs2)
                 ? -1
                 : 0;
        w = (uint32_t)(opc | f3 << 12 | f7 << 25 | rd << 7 | rs1 << 15 | rs2 << 20);
    } else if (len == 1 && (s[0] == 'i' || s[0] == 'I')) {
        rc = npk_asm_imm(a, c, 0, 127, "opcode", &opc) || npk_asm_expect(a, c, ',') ||
             npk_asm_imm(a, c, 0, 7, "funct3", &f3) || insn_reg(a, c, &rd) ||
             insn_reg(a, c, &rs1) || npk_asm_expect(a, c, ',') ||
             npk_asm_imm(a, c, -2048, 2047, "immediate", &imm)
                 ? -1
                 : 0;
        w = put_imm((uint32_t)(opc | f3 << 12 | rd << 7 | rs1 << 15), RVNPU_FMT_I,
                    (uint32_t)imm & 0xFFF);
    } else if (len == 1 && (s[0] == 's' || s[0] == 'S')) {
        rc = npk_asm_imm(a, c, 0, 127, "opcode", &opc) || npk_asm_expect(a, c, ',') ||
             npk_asm_imm(a, c, 0, 7, "funct3", &f3) || insn_reg(a, c, &rs2) ||
             npk_asm_expect(a, c, ',') || npk_asm_mem(a, c, &xregs, -2048, 2047, &imm, &r)
                 ? -1
                 : 0;
        w = put_imm((uint32_t)(opc | f3 << 12 | rs2 << 20 | (int64_t)r << 15), RVNPU_FMT_S,
                    (uint32_t)imm & 0xFFF);
    } else {
        npk_asm_error(a, len ? s : c->p, len ? len : 1, "expected .insn r, i or s");
    }
    npk_asm_emit_le(a, rc ? 0 : w, 4);
    if (rc)
        c->p = c->end;
    return rc;
}

/* Section and symbol-attribute directives of GNU as have no meaning in a flat image. */
static int dir_ignore(npk_asm *a, npk_cur *c, const npk_asm_dir *d)
{
    (void)a;
    (void)d;
    c->p = c->end;
    return 0;
}

static const npk_asm_dir ra_dirs[] = {
    {".equ", npk_asm_dir_equ, 0},        {".set", npk_asm_dir_equ, 0},
    {".include", npk_asm_dir_include, 0}, {".word", npk_asm_dir_int, 4},
    {".half", npk_asm_dir_int, 2},       {".short", npk_asm_dir_int, 2},
    {".byte", npk_asm_dir_int, 1},       {".space", npk_asm_dir_space, 0},
    {".zero", npk_asm_dir_space, 0},     {".align", npk_asm_dir_align, NPK_ALIGN_POW2},
    {".p2align", npk_asm_dir_align, NPK_ALIGN_POW2}, {".balign", npk_asm_dir_align, NPK_ALIGN_BYTES},
    {".org", npk_asm_dir_org, 0},        {".ascii", npk_asm_dir_ascii, 0},
    {".asciz", npk_asm_dir_ascii, 1},    {".string", npk_asm_dir_ascii, 1},
    {".float", npk_asm_dir_float, NPK_FMT_F32}, {".f32", npk_asm_dir_float, NPK_FMT_F32},
    {".target", npk_asm_dir_target, 0},  {".insn", dir_insn, 0},
    {".text", dir_ignore, 0},            {".data", dir_ignore, 0},
    {".bss", dir_ignore, 0},             {".section", dir_ignore, 0},
    {".globl", dir_ignore, 0},           {".global", dir_ignore, 0},
    {".type", dir_ignore, 0},            {".size", dir_ignore, 0},
};

static const npk_asm_space_def ra_spaces[] = {{"ram", RVNPU_RAM_BASE, RVNPU_ASM_DEFAULT_LIMIT}};

static const npk_asm_target ra_target = {
    .name = "rvnpu",
    .comment_chars = "#",
    .flags = NPK_ASM_LABELS | NPK_ASM_PC_DOT,
    .dirs = ra_dirs,
    .n_dirs = sizeof ra_dirs / sizeof ra_dirs[0],
    .spaces = ra_spaces,
    .n_spaces = 1,
    .list_word_bytes = 4,
    .statement = ra_statement,
    .reserved = ra_reserved,
    .begin_pass = ra_begin_pass,
};

const npk_asm_target *rvnpu_asm_target(void)
{
    return &ra_target;
}

static int assemble(const char *source, size_t len, const char *name, FILE *diag, int rev,
                    uint64_t limit, FILE *listing, npk_asm_result **out)
{
    npk_asm_opts o = {0};
    o.diag = diag;
    o.listing = listing;
    o.space0_limit = limit;
    o.space0_hint = "set ram_size=SIZE for a larger RAM";
    ra_state st = {NULL, 0, 0, rev};
    npk_asm_result *r = npk_asm_run(&ra_target, &st, source, len, name, &o);
    free(st.wide);
    return npk_asm_result_check(r, name, diag, out);
}

int rvnpu_assemble_rev(const char *source, size_t len, const char *name, FILE *diag, int rev,
                       npk_asm_result **out)
{
    return assemble(source, len, name, diag, rev, 0, NULL, out);
}

int rvnpu_assemble(const char *source, size_t len, const char *name, FILE *diag,
                   npk_asm_result **out)
{
    return assemble(source, len, name, diag, -1, 0, NULL, out);
}

npk_status rvnpu_assemble_image(npk_machine *m, const char *source, const char *name,
                                uint64_t ram_size, FILE *diag, int rev2, uint8_t **image,
                                size_t *size)
{
    *image = NULL;
    *size = 0;
    if (!source)
        return npk_fail(m, NPK_ERR_ARG, "no assembly source");
    npk_asm_result *r;
    /* the engine's 16 MiB, or the whole RAM when it is larger: a program that fits the
     * machine assembles, and the assembler's memory stays a small multiple of the RAM the user set */
    uint64_t limit = ram_size > RVNPU_ASM_DEFAULT_LIMIT ? ram_size : RVNPU_ASM_DEFAULT_LIMIT;
    int errors = assemble(source, strlen(source), name, diag, rev2 != 0, limit,
                          npk_listing_out(m), &r);
    return npk_target_asm_image(m, errors, r, name, 4, image, size);
}

/* ---- disassembler ------------------------------------------------------------------------------- */

static void dis_operands(npk_dis *d, rvnpu_op op, const rvnpu_kind *k, int n,
                         const operand_vals *o, uint32_t pc)
{
    npk_dis_puts(d, rvnpu_mnemonics[op]);
    for (int i = 0; i < n; i++) {
        int64_t v = o->v[i];
        if (k[i] == RVNPU_K_RM) {
            if (v != 7) {
                npk_dis_sep(d);
                npk_dis_puts(d, rvnpu_rm_names[v] ? rvnpu_rm_names[v] : "?");
            }
            continue;
        }
        npk_dis_sep(d);
        switch (k[i]) {
        case RVNPU_K_XD: case RVNPU_K_XS1: case RVNPU_K_XS2: case RVNPU_K_XCNT:
            npk_dis_reg(d, &xregs, (unsigned)v);
            break;
        case RVNPU_K_FD: case RVNPU_K_FS1: case RVNPU_K_FS2: case RVNPU_K_FS3:
            npk_dis_reg(d, &fregs, (unsigned)v);
            break;
        case RVNPU_K_VD: case RVNPU_K_VS2: npk_dis_reg(d, &vregs, (unsigned)v); break;
        case RVNPU_K_IMM12: case RVNPU_K_SHAMT: case RVNPU_K_ZIMM: npk_dis_int(d, v); break;
        case RVNPU_K_UIMM20: npk_dis_hex(d, v); break;
        case RVNPU_K_PCREL13:
        case RVNPU_K_PCREL21: npk_dis_hex(d, (int64_t)(uint32_t)(pc + (uint32_t)v)); break;
        case RVNPU_K_CSR: {
            const rvnpu_csr_info *c = rvnpu_csr_find((unsigned)v);
            if (c)
                npk_dis_puts(d, c->name);
            else
                npk_dis_hex(d, v);
            break;
        }
        case RVNPU_K_MEM_I:
        case RVNPU_K_MEM_S: npk_dis_mem(d, &xregs, v, o->r[i]); break;
        default: break;
        }
    }
}

int rvnpu_disasm(uint32_t word, uint32_t pc, int rev2, char *out, size_t n)
{
    npk_dis d;
    npk_dis_init(&d, out, n);
    uint64_t w = word;
    rvnpu_decoded dec;
    char why[160] = "illegal: ";
    if (rvnpu_decode(word, rev2, &dec, why + 9, sizeof why - 9) != 0) {
        npk_dis_word(&d, &w, 1, 32, '#', why);
        return npk_dis_done(&d);
    }
    rvnpu_op op = (rvnpu_op)dec.op;
    if (op == RVNPU_OP_FENCE && (word & 0xF00FFFFFu) == 0x0000000Fu && (word >> 24 & 15) &&
        (word >> 20 & 15)) {
        npk_dis_puts(&d, "fence");
        if ((word >> 20 & 0xFF) != 0xFF) {
            for (int set = 0; set < 2; set++) {
                unsigned b = word >> (set ? 20 : 24) & 15;
                npk_dis_sep(&d);
                for (int i = 0; i < 4; i++)
                    if (b & (8u >> i))
                        npk_dis_printf(&d, "%c", fence_letters[i]);
            }
        }
        return npk_dis_done(&d);
    }
    rvnpu_kind k[RVNPU_MAX_OPERANDS];
    int nk = rvnpu_operands(op, k);
    operand_vals o;
    memset(&o, 0, sizeof o);
    extract(word, k, nk, &o);
    if (encode(op, k, nk, &o) != word || op == RVNPU_OP_FENCE) { /* fence: see above */
        /* legal, but with ignored fields set: only .word gives these bits back */
        char text[128], note[160];
        npk_dis t;
        npk_dis_init(&t, text, sizeof text);
        dis_operands(&t, op, k, nk, &o, pc);
        snprintf(note, sizeof note, "%s (ignored fields set)", text);
        npk_dis_word(&d, &w, 1, 32, '#', note);
        return npk_dis_done(&d);
    }
    dis_operands(&d, op, k, nk, &o, pc);
    return npk_dis_done(&d);
}
