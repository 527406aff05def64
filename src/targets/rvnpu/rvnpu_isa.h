/* rvnpu: instruction ids generated from isa.def, shared by every rvnpu file. */
#ifndef NPK_RVNPU_ISA_H
#define NPK_RVNPU_ISA_H

typedef enum rvnpu_op {
#define RVNPU_INSN(id, mnemonic, match, mask, format, operands, class, rev, count, elem, summary) \
    RVNPU_OP_##id,
#include "targets/rvnpu/isa.def"
    RVNPU_N_OPS,
    RVNPU_OP_ILLEGAL = RVNPU_N_OPS
} rvnpu_op;

#endif
