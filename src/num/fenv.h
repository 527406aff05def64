/* The floating-point environment shared by every src/num operation: rounding mode, accrued
 * exception flags, options (NaN policy, flush-to-zero, saturation) and the format ids of the
 * generic conversion API. A plain struct owned by the caller, so there is no global state. */
#ifndef NPK_NUM_FENV_H
#define NPK_NUM_FENV_H

#include <stdint.h>

/* RISC-V frm order, so an instruction's rm field can be cast directly. opennpu's 2-bit round
 * field (RNE, RTZ, floor, ceil) is the first four. */
typedef enum npk_rm {
    NPK_RM_RNE = 0, /* to nearest, ties to even */
    NPK_RM_RTZ = 1, /* toward zero */
    NPK_RM_RDN = 2, /* down (floor, toward -inf) */
    NPK_RM_RUP = 3, /* up (ceil, toward +inf) */
    NPK_RM_RMM = 4  /* to nearest, ties away from zero (max magnitude) */
} npk_rm;

/* RISC-V fflags bit positions, so e->flags can be ORed into fflags unchanged. */
enum {
    NPK_FLAG_NX = 1,  /* inexact */
    NPK_FLAG_UF = 2,  /* underflow: tiny after rounding and inexact */
    NPK_FLAG_OF = 4,  /* overflow */
    NPK_FLAG_DZ = 8,  /* division by zero */
    NPK_FLAG_NV = 16  /* invalid operation */
};

/* Options in npk_fenv.opts. All off gives IEEE 754 with the RISC-V choices. */
enum {
    /* NaN results carry the first NaN operand's sign and payload (quieted) instead of the
     * canonical NaN. Invalid operations on non-NaN operands still give the canonical NaN. */
    NPK_OPT_NAN_PROPAGATE = 1,
    /* Flush to zero: a nonzero result whose magnitude, rounded with an unbounded exponent, is
     * below the smallest normal becomes a zero of the same sign (UF and NX raised). */
    NPK_OPT_FTZ = 2,
    /* Overflow gives the largest finite value of the result's sign in every rounding mode
     * (OF and NX raised). Applies to every rounding operation, conversions included. */
    NPK_OPT_SATURATE = 4,
    /* Denormals are zero: subnormal operands of arithmetic, comparisons and conversions are
     * read as zeros of the same sign (the exact decoders npk_*_to_f32 take no environment). */
    NPK_OPT_DAZ = 8
};

typedef struct npk_fenv {
    npk_rm rm;      /* rounding mode of every rounding operation */
    unsigned flags; /* accrued NPK_FLAG_* bits; operations only ever set bits */
    unsigned opts;  /* NPK_OPT_* bits */
    uint32_t dnan;  /* the binary32 canonical NaN; 0x7FC00000 (RISC-V) after init */
} npk_fenv;

/* rm, flags cleared, no options, RISC-V canonical NaN. */
void npk_fenv_init(npk_fenv *e, npk_rm rm);

/* Formats understood by the generic conversion API (narrow.h). */
typedef enum npk_fmt {
    NPK_FMT_F32 = 0,  /* IEEE binary32 */
    NPK_FMT_BF16 = 1, /* bfloat16: binary32's top 16 bits */
    NPK_FMT_E4M3 = 2, /* OCP FP8 E4M3: bias 7, max 448, no infinity, NaN S.1111.111 */
    NPK_FMT_E5M2 = 3, /* OCP FP8 E5M2: bias 15, max 57344, IEEE-style infinity and NaNs */
    NPK_FMT_F64 = 4   /* IEEE binary64 */
} npk_fmt;

#endif
