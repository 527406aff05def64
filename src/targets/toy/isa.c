/* toy: the tables of isa.def as data, and the parsing of its operand and option lists. The
 * decoder, the assembler, the disassembler and the statistics all read these. */
#include <string.h>

#include "targets/toy/toy.h"

const toy_field_info toy_fields[TOY_N_FIELDS] = {
#define TOY_FIELD(name, lsb, width) {#name, lsb, width},
#include "targets/toy/isa.def"
};

const toy_operand_info toy_operands[TOY_N_OPERANDS] = {
#define TOY_OPERAND(name, kind, field, field2) {#name, TOY_K_##kind, TOY_F_##field, TOY_F_##field2},
#include "targets/toy/isa.def"
};

const toy_option_info toy_options[TOY_N_OPTIONS + 1] = {
#define TOY_OPTION(name, field) {#name, TOY_F_##field},
#include "targets/toy/isa.def"
    {NULL, TOY_F_NONE}};

const toy_insn_info toy_insns[TOY_N_OPS] = {
#define TOY_INSN(id, mnemonic, opcode, operands, options, unit, summary)                      \
    {mnemonic, opcode, operands, options, TOY_U_##unit, summary},
#include "targets/toy/isa.def"
};

const char *const toy_mnemonics[TOY_N_OPS] = {
#define TOY_INSN(id, mnemonic, opcode, operands, options, unit, summary) mnemonic,
#include "targets/toy/isa.def"
};

const char *const toy_unit_names[TOY_N_UNITS] = {
#define TOY_UNIT(id, name, latency) name,
#include "targets/toy/isa.def"
};

const unsigned toy_unit_latency[TOY_N_UNITS] = {
#define TOY_UNIT(id, name, latency) latency,
#include "targets/toy/isa.def"
};

/* Calls fn(index) for each comma-separated name of `list` found in `names`; -1 if one is
 * unknown or there are more than `max`. */
static int each_name(const char *list, const char *(*name_of)(size_t), size_t n, size_t max,
                     int *out)
{
    int k = 0;
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        size_t i = 0;
        while (i < n && !(strlen(name_of(i)) == len && memcmp(name_of(i), p, len) == 0))
            i++;
        if (i == n || (size_t)k == max)
            return -1;
        out[k++] = (int)i;
        p = e ? e + 1 : p + len;
    }
    return k;
}

static const char *operand_name(size_t i)
{
    return toy_operands[i].name;
}

static const char *option_name(size_t i)
{
    return toy_options[i].name;
}

int toy_operand_list(const char *list, toy_operand_id *out)
{
    int idx[TOY_MAX_OPERANDS];
    int n = each_name(list, operand_name, TOY_N_OPERANDS, TOY_MAX_OPERANDS, idx);
    for (int i = 0; i < n; i++)
        out[i] = (toy_operand_id)idx[i];
    return n;
}

int toy_option_mask(const char *list, uint32_t *mask)
{
    int idx[32];
    int n = each_name(list, option_name, TOY_N_OPTIONS, 32, idx);
    *mask = 0;
    for (int i = 0; i < n; i++)
        *mask |= 1u << idx[i];
    return n < 0 ? -1 : 0;
}
