/* toy decoder: word -> toy_decoded. The one place toy's legality rule lives: the opcode is
 * listed in isa.def, and every bit outside the fields its operands and options use is zero.
 * Which registers an instruction reads and writes also follows from its operand list. */
#include <stdio.h>
#include <string.h>

#include "targets/toy/toy.h"

static int illegal(char *why, size_t n, const char *fmt, uint32_t a, const char *mnemonic)
{
    if (why && n) {
        if (mnemonic)
            snprintf(why, n, fmt, mnemonic, a);
        else
            snprintf(why, n, fmt, a);
    }
    return -1;
}

int toy_decode(uint32_t w, toy_decoded *d, char *why, size_t why_size)
{
    memset(d, 0, sizeof *d);
    d->op = TOY_N_OPS;
    uint32_t opc = toy_get(w, TOY_F_OPC);
    unsigned i = 0;
    while (i < TOY_N_OPS && toy_insns[i].opcode != opc)
        i++;
    if (i == TOY_N_OPS)
        return illegal(why, why_size, "reserved opcode 0x%02x", opc, NULL);
    const toy_insn_info *in = &toy_insns[i];
    toy_operand_id ops[TOY_MAX_OPERANDS];
    int n = toy_operand_list(in->operands, ops);
    uint32_t opts;
    if (n < 0 || toy_option_mask(in->options, &opts) != 0)
        return illegal(why, why_size, "%s has a bad operand or option list in isa.def (0x%x)",
                       opc, in->mnemonic);
    uint32_t used = toy_field_mask(TOY_F_OPC);
    for (unsigned k = 0; k < TOY_N_OPTIONS; k++) {
        if (opts >> k & 1) {
            used |= toy_field_mask(toy_options[k].field);
            d->sat |= (uint8_t)toy_get(w, toy_options[k].field);
        }
    }
    for (int k = 0; k < n; k++) {
        const toy_operand_info *o = &toy_operands[ops[k]];
        used |= toy_field_mask(o->field) | toy_field_mask(o->field2);
        switch (o->kind) {
        case TOY_K_REG: {
            uint8_t r = (uint8_t)toy_get(w, o->field);
            if (o->field == TOY_F_RD) {
                d->rd = r;
                d->uses |= TOY_WRITES_RD;
            } else if (o->field == TOY_F_RS1) {
                d->rs1 = r;
                d->uses |= TOY_READS_RS1;
            } else {
                d->rs2 = r;
                d->uses |= TOY_READS_RS2;
            }
            break;
        }
        case TOY_K_UIMM: d->imm = (int32_t)toy_get(w, o->field); break;
        case TOY_K_SIMM:
        case TOY_K_PCREL: d->imm = toy_get_s(w, o->field); break;
        case TOY_K_MEM:
            d->imm = toy_get_s(w, o->field);
            d->rs1 = (uint8_t)toy_get(w, o->field2);
            d->uses |= TOY_READS_RS1;
            break;
        }
    }
    if (w & ~used)
        return illegal(why, why_size, "%s with nonzero bits in unused fields (0x%08x)",
                       w & ~used, in->mnemonic);
    d->op = (uint8_t)i;
    return 0;
}
