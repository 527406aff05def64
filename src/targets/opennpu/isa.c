/* opennpu: the tables of isa.def as data, and the parsing of its operand and option lists.
 * The decoder, assembler, disassembler, machine, statistics and generated docs read these
 * (docs/spec/opennpu.md §4, §7). */
#include <string.h>

#include "targets/opennpu/opennpu.h"

const onpu_insn_info onpu_insns[ONPU_N_OPS] = {
#define ONPU_INSN(id, mnemonic, match, mask, format, operands, options, unit, latency, summary) \
    {mnemonic, match, mask, ONPU_FMT_##format, operands, options, ONPU_U_##unit,               \
     ONPU_LAT_##latency, summary},
#include "targets/opennpu/isa.def"
};

const char *const onpu_mnemonics[ONPU_N_OPS] = {
#define ONPU_INSN(id, mnemonic, match, mask, format, operands, options, unit, latency, summary) \
    mnemonic,
#include "targets/opennpu/isa.def"
};

const char *const onpu_unit_names[ONPU_N_UNITS] = {"none", "valu", "mma", "mem"};

const onpu_cvt_fmt onpu_cvt_fmts[6] = {
#define ONPU_CVT_FMT(code, name, bits, cls) [code] = {name, bits, ONPU_##cls},
#include "targets/opennpu/isa.def"
};

const onpu_mem_shape onpu_mem_shapes[ONPU_N_OPS] = {
#define ONPU_MEM(id, store, vector) [ONPU_OP_##id] = {1, store, vector},
#include "targets/opennpu/isa.def"
};

const char *const onpu_kind_names[ONPU_N_KINDS] = {
    "wd", "ws1", "ws2", "vxd", "vxs1", "vxs2", "ved", "vrd", "vrs1", "vrs2", "vrs3",
    "cvtd", "cvts", "mem", "seg", "imm8", "imm12"};

const onpu_kind_info onpu_kinds[ONPU_N_KINDS] = {
    [ONPU_K_WD] = {0, ONPU_CLS_WIDTH, 0},     [ONPU_K_WS1] = {1, ONPU_CLS_WIDTH, 0},
    [ONPU_K_WS2] = {2, ONPU_CLS_WIDTH, 0},    [ONPU_K_VXD] = {0, ONPU_VX, 0},
    [ONPU_K_VXS1] = {1, ONPU_VX, 0},          [ONPU_K_VXS2] = {2, ONPU_VX, 0},
    [ONPU_K_VED] = {0, ONPU_VE, 0},           [ONPU_K_VRD] = {0, ONPU_VR, 0},
    [ONPU_K_VRS1] = {1, ONPU_VR, 0},          [ONPU_K_VRS2] = {2, ONPU_VR, 0},
    [ONPU_K_VRS3] = {3, ONPU_VR, 0},          [ONPU_K_CVTD] = {0, ONPU_CLS_CVT_DST, 0},
    [ONPU_K_CVTS] = {1, ONPU_CLS_CVT_SRC, 0}, [ONPU_K_MEM] = {1, ONPU_VR, 1},
    [ONPU_K_SEG] = {-1, ONPU_CLS_NONE, 1},    [ONPU_K_IMM8] = {-1, ONPU_CLS_NONE, 1},
    [ONPU_K_IMM12] = {-1, ONPU_CLS_NONE, 1},
};
const unsigned onpu_field_lsb[4] = {7, 15, 20, 27};

const char *const onpu_option_names[ONPU_N_OPTIONS] = {"sat", "keep", "round", "var"};
const char *const onpu_round_names[4] = {"rne", "rtz", "floor", "ceil"};
const char *const onpu_class_names[3] = {"vx", "ve", "vr"};

/* Index in names[0..n) of each comma-separated word of list; the count, or -1 when a word is
 * unknown or there are more than max. */
static int each_name(const char *list, const char *const *names, size_t n, int max, int *out)
{
    int k = 0;
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        size_t i = 0;
        while (i < n && !(strlen(names[i]) == len && memcmp(names[i], p, len) == 0))
            i++;
        if (i == n || k == max)
            return -1;
        out[k++] = (int)i;
        p = e ? e + 1 : p + len;
    }
    return k;
}

int onpu_operands(onpu_op op, onpu_kind out[ONPU_MAX_OPERANDS])
{
    int idx[ONPU_MAX_OPERANDS];
    int n = each_name(onpu_insns[op].operands, onpu_kind_names, ONPU_N_KINDS, ONPU_MAX_OPERANDS,
                      idx);
    for (int i = 0; i < n; i++)
        out[i] = (onpu_kind)idx[i];
    return n;
}

unsigned onpu_options(onpu_op op)
{
    int idx[ONPU_N_OPTIONS];
    int n = each_name(onpu_insns[op].options, onpu_option_names, ONPU_N_OPTIONS, ONPU_N_OPTIONS,
                      idx);
    unsigned mask = 0;
    for (int i = 0; i < n; i++)
        mask |= 1u << idx[i];
    return mask;
}
