/* rvnpu: the tables of isa.def as data, register and rounding-mode names, immediate layouts
 * of the RISC-V formats and the timing unit of each instruction. The decoder, assembler,
 * disassembler, timing model and statistics all read these. */
#include <string.h>

#include "targets/rvnpu/rvnpu.h"

const rvnpu_insn_info rvnpu_insns[RVNPU_N_OPS] = {
#define RVNPU_INSN(id, mnemonic, match, mask, format, operands, class, rev, count, elem, summary) \
    {mnemonic, match, mask, RVNPU_FMT_##format, operands, RVNPU_CLASS_##class, RVNPU_REV_##rev,   \
     elem, summary},
#include "targets/rvnpu/isa.def"
};

const char *const rvnpu_mnemonics[RVNPU_N_OPS] = {
#define RVNPU_INSN(id, mnemonic, match, mask, format, operands, class, rev, count, elem, summary) \
    mnemonic,
#include "targets/rvnpu/isa.def"
};

/* In rvnpu_kind order; these are the names isa.def's operand lists use. */
const char *const rvnpu_kind_names[RVNPU_N_KINDS] = {
    "xd", "xs1", "xs2", "fd", "fs1", "fs2", "fs3", "xcnt", "vd", "vs2", "imm12", "shamt",
    "uimm20", "pcrel13", "pcrel21", "csr", "zimm", "mem_i", "mem_s", "rm"};

const char *const rvnpu_xnames[32] = {
#define RVNPU_XREG(num, abi) [num] = abi,
#include "targets/rvnpu/isa.def"
};

const char *const rvnpu_fnames[32] = {
#define RVNPU_FREG(num, abi) [num] = abi,
#include "targets/rvnpu/isa.def"
};

/* rm field values; 5 and 6 are reserved (NULL). */
const char *const rvnpu_rm_names[8] = {"rne", "rtz", "rdn", "rup", "rmm", NULL, NULL, "dyn"};

const char *const rvnpu_unit_names[RVNPU_N_UNITS] = {"alu", "branch", "mul", "div", "lsu",
                                                     "fpu", "fdiv", "npu", "fnpu", "sys"};

const char *const rvnpu_extra_names[RVNPU_N_EXTRAS] = {
    "insns_rv32i", "insns_m", "insns_f", "insns_npu", "insns_fnpu", "npu_elements",
    "loads", "stores", "stall_cycles", "traps"};

int rvnpu_operands(rvnpu_op op, rvnpu_kind *out)
{
    int n = 0;
    for (const char *p = rvnpu_insns[op].operands; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        unsigned k = 0;
        while (k < RVNPU_N_KINDS &&
               !(strlen(rvnpu_kind_names[k]) == len && memcmp(rvnpu_kind_names[k], p, len) == 0))
            k++;
        if (k == RVNPU_N_KINDS || n == RVNPU_MAX_OPERANDS)
            return -1;
        out[n++] = (rvnpu_kind)k;
        p = e ? e + 1 : p + len;
    }
    return n;
}

int32_t rvnpu_imm(uint32_t w, rvnpu_fmt f)
{
    switch (f) {
    case RVNPU_FMT_I: return (int32_t)w >> 20;
    case RVNPU_FMT_S: return ((int32_t)(w & 0xFE000000u) >> 20) | (int32_t)((w >> 7) & 0x1F);
    case RVNPU_FMT_B:
        return ((int32_t)(w & 0x80000000u) >> 19) | (int32_t)((w & 0x80) << 4) |
               (int32_t)((w >> 20) & 0x7E0) | (int32_t)((w >> 7) & 0x1E);
    case RVNPU_FMT_U: return (int32_t)(w & 0xFFFFF000u);
    case RVNPU_FMT_J:
        return ((int32_t)(w & 0x80000000u) >> 11) | (int32_t)(w & 0xFF000) |
               (int32_t)((w >> 9) & 0x800) | (int32_t)((w >> 20) & 0x7FE);
    default: return 0;
    }
}

/* Which functional unit an instruction occupies: its class, refined by what it does
 * (memory operands, control transfer, division). */
rvnpu_unit rvnpu_unit_of(rvnpu_op op)
{
    if (op >= RVNPU_N_OPS)
        return RVNPU_U_SYS;
    const rvnpu_insn_info *in = &rvnpu_insns[op];
    switch (in->cls) {
    case RVNPU_CLASS_NPU: return RVNPU_U_NPU;
    case RVNPU_CLASS_FNPU: return RVNPU_U_FNPU;
    case RVNPU_CLASS_ZICSR:
    case RVNPU_CLASS_SYS: return RVNPU_U_SYS;
    default: break;
    }
    if (strstr(in->operands, "mem_"))
        return op == RVNPU_OP_JALR ? RVNPU_U_BRANCH : RVNPU_U_LSU;
    if (in->fmt == RVNPU_FMT_B || in->fmt == RVNPU_FMT_J)
        return RVNPU_U_BRANCH;
    if (in->cls == RVNPU_CLASS_M)
        return (in->match >> 12 & 7) >= 4 ? RVNPU_U_DIV : RVNPU_U_MUL;
    if (in->cls == RVNPU_CLASS_F)
        return op == RVNPU_OP_FDIV_S || op == RVNPU_OP_FSQRT_S ? RVNPU_U_FDIV : RVNPU_U_FPU;
    if (op == RVNPU_OP_FENCE || op == RVNPU_OP_FENCE_I)
        return RVNPU_U_SYS;
    return RVNPU_U_ALU;
}
