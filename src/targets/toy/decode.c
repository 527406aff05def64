/* toy decoder: word -> toy_decoded, with the legality rule of isa.def (known opcode, and every
 * bit outside the fields its operands and options use is zero). Tables come from isa.def. */
#include <string.h>

#include "targets/toy/toy.h"

const unsigned toy_field_lsb[TOY_N_FIELDS] = {
#define TOY_FIELD(name, lsb, width) lsb,
#include "targets/toy/isa.def"
};

const unsigned toy_field_width[TOY_N_FIELDS] = {
#define TOY_FIELD(name, lsb, width) width,
#include "targets/toy/isa.def"
};

const unsigned toy_unit_latency[TOY_N_UNITS] = {
#define TOY_UNIT(id, name, latency) latency,
#include "targets/toy/isa.def"
};

const toy_insn_info toy_insns[TOY_N_OPS] = {
#define TOY_INSN(id, mnemonic, opcode, operands, options, unit, summary)                      \
    {mnemonic, opcode, operands, options, TOY_U_##unit, summary},
#include "targets/toy/isa.def"
};

typedef enum { K_REG, K_SIMM, K_UIMM, K_MEM, K_PCREL } toy_kind;

typedef struct {
    const char *name;
    toy_kind kind;
    toy_field field, field2;
} toy_operand;

static const toy_operand operands[] = {
#define TOY_OPERAND(name, kind, field, field2) {#name, K_##kind, TOY_F_##field, TOY_F_##field2},
#include "targets/toy/isa.def"
};

static const struct {
    const char *name;
    toy_field field;
} options[] = {
#define TOY_OPTION(name, field) {#name, TOY_F_##field},
#include "targets/toy/isa.def"
};

static uint32_t field_mask(toy_field f)
{
    if (f == TOY_F_NONE)
        return 0;
    return ((1u << toy_field_width[f]) - 1u) << toy_field_lsb[f];
}

/* Apply each comma-separated name in `list` to the decoded word; returns the mask of bits the
 * names use. Operand names fill registers/immediates; option names set flags. */
static uint32_t apply_names(const char *list, int is_option, uint32_t w, toy_decoded *d)
{
    uint32_t used = 0;
    while (*list) {
        const char *end = strchr(list, ',');
        size_t len = end ? (size_t)(end - list) : strlen(list);
        if (is_option) {
            for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
                if (strlen(options[i].name) == len && !memcmp(options[i].name, list, len)) {
                    used |= field_mask(options[i].field);
                    d->sat = (uint8_t)toy_get(w, options[i].field);
                }
            }
        } else {
            for (size_t i = 0; i < sizeof operands / sizeof operands[0]; i++) {
                const toy_operand *o = &operands[i];
                if (strlen(o->name) != len || memcmp(o->name, list, len))
                    continue;
                used |= field_mask(o->field) | field_mask(o->field2);
                uint32_t v = toy_get(w, o->field);
                switch (o->kind) {
                case K_REG:
                    if (o->field == TOY_F_RD) {
                        d->rd = (uint8_t)v;
                        d->uses |= TOY_WRITES_RD;
                    } else if (o->field == TOY_F_RS1) {
                        d->rs1 = (uint8_t)v;
                        d->uses |= TOY_READS_RS1;
                    } else {
                        d->rs2 = (uint8_t)v;
                        d->uses |= TOY_READS_RS2;
                    }
                    break;
                case K_UIMM:
                    d->imm = (int32_t)v;
                    break;
                case K_SIMM:
                case K_PCREL:
                case K_MEM: {
                    unsigned width = toy_field_width[o->field];
                    int32_t x = (int32_t)v;
                    if (v >> (width - 1))
                        x -= (int32_t)(1u << width);
                    d->imm = x;
                    if (o->kind == K_MEM) {
                        d->rs1 = (uint8_t)toy_get(w, o->field2);
                        d->uses |= TOY_READS_RS1;
                    }
                    break;
                }
                }
            }
        }
        list += len;
        if (*list == ',')
            list++;
    }
    return used;
}

int toy_decode(uint32_t w, toy_decoded *d, const char **why)
{
    memset(d, 0, sizeof *d);
    d->op = TOY_N_OPS;
    uint32_t opc = toy_get(w, TOY_F_OPC);
    for (unsigned i = 0; i < TOY_N_OPS; i++) {
        if (toy_insns[i].opcode != opc)
            continue;
        uint32_t used = field_mask(TOY_F_OPC);
        used |= apply_names(toy_insns[i].operands, 0, w, d);
        used |= apply_names(toy_insns[i].options, 1, w, d);
        if (w & ~used) {
            *why = "nonzero bits in unused fields";
            d->op = TOY_N_OPS;
            return -1;
        }
        d->op = (uint8_t)i;
        return 0;
    }
    *why = "reserved opcode";
    return -1;
}
