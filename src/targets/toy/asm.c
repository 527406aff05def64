/* toy's assembler and disassembler: every mnemonic, field, operand kind and option comes from
 * isa.def; this file only says how toy spells them (r0..r7, `off(rN)`, `.sat`, `#`/`;`
 * comments, labels) and plugs that into the shared engine. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/target.h"
#include "targets/toy/asm.h"
#include "targets/asm_image.h"
#include "targets/toy/toy.h"

#define TOY_WORD_BYTES 4 /* a PCREL offset counts words (isa.def) */

/* ---- the engine's view of isa.def's tables (toy.h, isa.c) ---------------------------------- */

/* Option names for npk_asm_mnemonic, in toy_option_id order; all independent (group 0). */
static const npk_asm_opt ta_optdefs[TOY_N_OPTIONS + 1] = {
#define TOY_OPTION(name, field) {#name, 0},
#include "targets/toy/isa.def"
    {NULL, 0}};

/* The register class of a field: r0 .. r(2^width - 1). */
static npk_regset ta_regs(toy_field f)
{
    npk_regset rs = {"r", 1u << toy_fields[f].width, NULL, NULL, 0, "register"};
    return rs;
}

static void signed_range(toy_field f, int64_t *lo, int64_t *hi)
{
    *hi = ((int64_t)1 << (toy_fields[f].width - 1)) - 1;
    *lo = -*hi - 1;
}

/* ---- assembler ------------------------------------------------------------------------------ */

static const char *ta_reserved(npk_asm *a, const char *name, size_t len)
{
    (void)a;
    npk_regset rs = {"r", 0, NULL, NULL, 0, NULL};
    unsigned num;
    bool bad;
    if (npk_regset_match(&rs, name, len, &num, &bad))
        return "a register name";
    for (size_t i = 0; i < TOY_N_OPS; i++)
        if (npk_eq_nocase(name, len, toy_mnemonics[i]))
            return "a mnemonic";
    return NULL;
}

static void operand_names(const toy_operand_id *ops, int n, char *buf, size_t size)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && o < size; i++)
        o += (size_t)snprintf(buf + o, size - o, "%s%s", i ? ", " : "", toy_operands[ops[i]].name);
}

static int ta_encode(npk_asm *a, npk_cur *c, const npk_mnem *m, uint64_t pc, uint32_t *word)
{
    const toy_insn_info *in = &toy_insns[m->index];
    toy_operand_id ops[TOY_MAX_OPERANDS];
    int n = toy_operand_list(in->operands, ops);
    uint32_t allowed;
    if (n < 0 || toy_option_mask(in->options, &allowed))
        return npk_asm_error(a, m->at, m->len, "isa.def: bad operand or option list for '%s'",
                             in->mnemonic);
    if (npk_asm_opts_allowed(a, m, allowed, ta_optdefs, TOY_N_OPTIONS))
        return -1;
    uint64_t w = 0;
    npk_bits_put(&w, 1, toy_fields[TOY_F_OPC].lsb, toy_fields[TOY_F_OPC].width, in->opcode);
    for (size_t j = 0; j < TOY_N_OPTIONS; j++)
        if (m->opts >> j & 1)
            npk_bits_put(&w, 1, toy_fields[toy_options[j].field].lsb,
                         toy_fields[toy_options[j].field].width, 1);
    char names[128];
    for (int i = 0; i < n; i++) {
        if (npk_cur_eol(c) || (i > 0 && !npk_cur_peek(c, ','))) {
            if (!npk_cur_eol(c))
                return npk_asm_expect(a, c, ',');
            operand_names(ops, n, names, sizeof names);
            return npk_asm_error(a, c->p, 1, "'%s' needs %d operand%s (%s)", in->mnemonic, n,
                                 n == 1 ? "" : "s", names);
        }
        if (i > 0)
            c->p++; /* ',' */
        const toy_operand_info *op = &toy_operands[ops[i]];
        const unsigned lsb = toy_fields[op->field].lsb, width = toy_fields[op->field].width;
        int64_t v, lo, hi;
        unsigned r;
        switch (op->kind) {
        case TOY_K_REG: {
            npk_regset rs = ta_regs(op->field);
            if (npk_asm_reg(a, c, &rs, &r))
                return -1;
            npk_bits_put(&w, 1, lsb, width, r);
            break;
        }
        case TOY_K_SIMM:
            signed_range(op->field, &lo, &hi);
            if (npk_asm_imm(a, c, lo, hi, "immediate", &v))
                return -1;
            npk_bits_put(&w, 1, lsb, width, (uint64_t)v);
            break;
        case TOY_K_UIMM:
            if (npk_asm_imm(a, c, 0, (int64_t)(((uint64_t)1 << width) - 1), "immediate", &v))
                return -1;
            npk_bits_put(&w, 1, lsb, width, (uint64_t)v);
            break;
        case TOY_K_MEM: {
            npk_regset rs = ta_regs(op->field2);
            signed_range(op->field, &lo, &hi);
            if (npk_asm_mem(a, c, &rs, lo, hi, &v, &r))
                return -1;
            npk_bits_put(&w, 1, lsb, width, (uint64_t)v);
            npk_bits_put(&w, 1, toy_fields[op->field2].lsb, toy_fields[op->field2].width, r);
            break;
        }
        case TOY_K_PCREL:
            signed_range(op->field, &lo, &hi);
            if (npk_asm_pcrel(a, c, pc, TOY_WORD_BYTES, TOY_WORD_BYTES, lo, hi, &v))
                return -1;
            npk_bits_put(&w, 1, lsb, width, (uint64_t)v);
            break;
        }
    }
    if (n == 0 && !npk_cur_eol(c))
        return npk_asm_error(a, c->p, 1, "'%s' takes no operands", in->mnemonic);
    if (npk_cur_peek(c, ',')) {
        operand_names(ops, n, names, sizeof names);
        return npk_asm_error(a, c->p, 1, "too many operands: '%s' takes %d (%s)", in->mnemonic,
                             n, names);
    }
    *word = (uint32_t)w;
    return 0;
}

static int ta_statement(npk_asm *a, npk_cur *c)
{
    uint64_t pc = npk_asm_pc(a);
    const char *at = c->p;
    npk_mnem m;
    uint32_t word = 0;
    int rc = npk_asm_mnemonic(a, c, toy_mnemonics, TOY_N_OPS, ta_optdefs, TOY_N_OPTIONS, &m);
    if (rc == 0)
        rc = ta_encode(a, c, &m, pc, &word);
    if (pc % TOY_WORD_BYTES)
        rc = npk_asm_error(a, at, m.len ? m.len : 1,
                           "instruction at unaligned address 0x%" PRIx64 " (use .align %d)", pc,
                           TOY_WORD_BYTES);
    /* a word is emitted even after an error so that later addresses stay right */
    npk_asm_emit_le(a, rc ? 0 : word, TOY_WORD_BYTES);
    if (rc)
        c->p = c->end;
    return rc;
}

static const npk_asm_dir ta_dirs[] = {
    {".equ", npk_asm_dir_equ, 0},
    {".include", npk_asm_dir_include, 0},
    {".word", npk_asm_dir_int, 4},
    {".half", npk_asm_dir_int, 2},
    {".byte", npk_asm_dir_int, 1},
    {".space", npk_asm_dir_space, 0},
    {".zero", npk_asm_dir_space, 0},
    {".align", npk_asm_dir_align, NPK_ALIGN_BYTES},
    {".org", npk_asm_dir_org, 0},
    {".ascii", npk_asm_dir_ascii, 0},
    {".asciz", npk_asm_dir_ascii, 1},
    {".f32", npk_asm_dir_float, NPK_FMT_F32},
    {".target", npk_asm_dir_target, 0},
};

static const npk_asm_target ta_target = {
    .name = "toy",
    .comment_chars = "#;",
    .flags = NPK_ASM_LABELS | NPK_ASM_PC_DOT,
    .dirs = ta_dirs,
    .n_dirs = sizeof ta_dirs / sizeof ta_dirs[0],
    .list_word_bytes = TOY_WORD_BYTES,
    .statement = ta_statement,
    .reserved = ta_reserved,
};

const npk_asm_target *toy_asm_target(void)
{
    return &ta_target;
}

int toy_assemble(const char *source, size_t len, const char *name, FILE *diag,
                 npk_asm_result **out)
{
    npk_asm_opts o = {0};
    o.diag = diag;
    return npk_asm_result_check(npk_asm_run(&ta_target, NULL, source, len, name, &o), name,
                                diag, out);
}

int toy_assemble_file(const char *path, FILE *diag, npk_asm_result **out)
{
    npk_asm_opts o = {0};
    o.diag = diag;
    return npk_asm_result_check(npk_asm_run_file(&ta_target, NULL, path, &o), path, diag, out);
}

npk_status toy_assemble_image(npk_machine *m, const char *source, const char *name, FILE *diag,
                              uint8_t **image, size_t *size)
{
    *image = NULL;
    *size = 0;
    if (!source)
        return npk_fail(m, NPK_ERR_ARG, "no assembly source");
    npk_asm_opts o = {0};
    o.diag = diag;
    o.listing = npk_listing_out(m);
    npk_asm_result *r;
    int errors = npk_asm_result_check(
        npk_asm_run(&ta_target, NULL, source, strlen(source), name, &o), name, diag, &r);
    return npk_target_asm_image(m, errors, r, name, 4, image, size);
}

/* ---- disassembler -------------------------------------------------------------------------- */

int toy_disasm(uint32_t word, uint32_t pc, char *out, size_t n)
{
    npk_dis d;
    npk_dis_init(&d, out, n);
    uint64_t w = word;
    toy_decoded dec;
    char why[112] = "illegal: ";
    toy_operand_id ops[TOY_MAX_OPERANDS];
    uint32_t allowed = 0;
    if (toy_decode(word, &dec, why + 9, sizeof why - 9) != 0) {
        npk_dis_word(&d, &w, 1, 32, '#', why);
        return npk_dis_done(&d);
    }
    const toy_insn_info *in = &toy_insns[dec.op];
    int nops = toy_operand_list(in->operands, ops); /* valid: toy_decode checked the lists */
    toy_option_mask(in->options, &allowed);
    npk_dis_puts(&d, in->mnemonic);
    for (size_t j = 0; j < TOY_N_OPTIONS; j++)
        if ((allowed >> j & 1) && toy_get(word, toy_options[j].field))
            npk_dis_opt(&d, ta_optdefs[j].name);
    for (int i = 0; i < nops; i++) {
        const toy_operand_info *op = &toy_operands[ops[i]];
        npk_dis_sep(&d);
        switch (op->kind) {
        case TOY_K_REG: {
            npk_regset rs = ta_regs(op->field);
            npk_dis_reg(&d, &rs, toy_get(word, op->field));
            break;
        }
        case TOY_K_SIMM: npk_dis_int(&d, toy_get_s(word, op->field)); break;
        case TOY_K_UIMM: npk_dis_int(&d, toy_get(word, op->field)); break;
        case TOY_K_MEM: {
            npk_regset rs = ta_regs(op->field2);
            npk_dis_mem(&d, &rs, toy_get_s(word, op->field), toy_get(word, op->field2));
            break;
        }
        case TOY_K_PCREL:
            npk_dis_hex(&d, (int64_t)pc + TOY_WORD_BYTES * toy_get_s(word, op->field));
            break;
        }
    }
    return npk_dis_done(&d);
}
