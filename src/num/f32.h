/* IEEE 754 binary32 arithmetic in software: add, sub, mul, div, sqrt, fused multiply-add,
 * min/max, comparisons, classify and conversions to and from integers. Operands and results
 * are bit patterns; results and flags do not depend on the host's floating-point unit. */
#ifndef NPK_NUM_F32_H
#define NPK_NUM_F32_H

#include <stdint.h>

#include "num/fenv.h"

/* Arithmetic, one rounding each, rounding mode and flags from *e. */
uint32_t npk_f32_add(uint32_t a, uint32_t b, npk_fenv *e);
uint32_t npk_f32_sub(uint32_t a, uint32_t b, npk_fenv *e);
uint32_t npk_f32_mul(uint32_t a, uint32_t b, npk_fenv *e);
uint32_t npk_f32_div(uint32_t a, uint32_t b, npk_fenv *e);
uint32_t npk_f32_sqrt(uint32_t a, npk_fenv *e);
/* Fused: the exact a*b+c rounded once. The other three are RISC-V FMSUB (a*b-c),
 * FNMSUB (-(a*b)+c) and FNMADD (-(a*b)-c), computed by negating operands before the one
 * rounding, so exact zeros get the IEEE sign of that sum. */
uint32_t npk_f32_fma(uint32_t a, uint32_t b, uint32_t c, npk_fenv *e);
uint32_t npk_f32_fms(uint32_t a, uint32_t b, uint32_t c, npk_fenv *e);
uint32_t npk_f32_fnmsub(uint32_t a, uint32_t b, uint32_t c, npk_fenv *e);
uint32_t npk_f32_fnmadd(uint32_t a, uint32_t b, uint32_t c, npk_fenv *e);

/* IEEE 754-2019 minimumNumber/maximumNumber, as RISC-V FMIN.S/FMAX.S: -0 < +0, one NaN
 * operand gives the other operand, two NaNs give a NaN, NV for any signalling NaN. */
uint32_t npk_f32_min(uint32_t a, uint32_t b, npk_fenv *e);
uint32_t npk_f32_max(uint32_t a, uint32_t b, npk_fenv *e);
/* IEEE 754-2019 minimum/maximum (pccx "maximum"): a NaN operand gives a NaN; -0 < +0. */
uint32_t npk_f32_minimum(uint32_t a, uint32_t b, npk_fenv *e);
uint32_t npk_f32_maximum(uint32_t a, uint32_t b, npk_fenv *e);

/* Comparisons return 0 or 1, and 0 when either operand is NaN. eq is quiet (NV only for a
 * signalling NaN); lt and le signal NV for any NaN, as RISC-V FEQ/FLT/FLE. */
int npk_f32_eq(uint32_t a, uint32_t b, npk_fenv *e);
int npk_f32_lt(uint32_t a, uint32_t b, npk_fenv *e);
int npk_f32_le(uint32_t a, uint32_t b, npk_fenv *e);

/* RISC-V FCLASS.S mask: exactly one of these bits. */
enum {
    NPK_CLASS_NEG_INF = 1 << 0,
    NPK_CLASS_NEG_NORMAL = 1 << 1,
    NPK_CLASS_NEG_SUBNORMAL = 1 << 2,
    NPK_CLASS_NEG_ZERO = 1 << 3,
    NPK_CLASS_POS_ZERO = 1 << 4,
    NPK_CLASS_POS_SUBNORMAL = 1 << 5,
    NPK_CLASS_POS_NORMAL = 1 << 6,
    NPK_CLASS_POS_INF = 1 << 7,
    NPK_CLASS_SNAN = 1 << 8,
    NPK_CLASS_QNAN = 1 << 9
};
unsigned npk_f32_classify(uint32_t a);

/* Bit-level predicates and helpers; no flags. */
int npk_f32_is_nan(uint32_t a);
int npk_f32_is_snan(uint32_t a);
uint32_t npk_f32_quiet(uint32_t a); /* a NaN with the quiet bit set; other values unchanged */
/* opennpu tier-2 input sanitising (§5.8 rule 1): NaN, infinities and subnormals become a
 * zero with the same sign bit; zeros and normal numbers are unchanged. */
uint32_t npk_f32_zero_nonnormal(uint32_t a);

/* binary32 -> integer. Rounded by e->rm to an integer n, then, by `sat`:
 *   NPK_CVT_WRAP:      NaN and infinities give 0 and NV; finite values give n modulo 2^W
 *                      (two's complement), NV when n is outside the W-bit range;
 *   NPK_CVT_SAT:       RISC-V FCVT: out-of-range values (infinities included) clamp to the
 *                      range with NV; NaN gives the maximum (0x7FFFFFFF, 0xFFFFFFFF) with NV;
 *   NPK_CVT_SAT_NAN0:  as NPK_CVT_SAT, but NaN gives 0 (opennpu §5.6.5, D-9).
 * In range and inexact raises NX; NV is never combined with NX. Unsigned conversions of
 * values that round to 0 from below (e.g. -0.3 with RTZ) give 0 with NX only. */
typedef enum npk_cvt_mode { NPK_CVT_WRAP = 0, NPK_CVT_SAT = 1, NPK_CVT_SAT_NAN0 = 2 } npk_cvt_mode;
/* Generic forms: width is 1..32; the signed result is sign-extended from `width` bits. */
int32_t npk_f32_to_int(uint32_t a, unsigned width, npk_cvt_mode sat, npk_fenv *e);
uint32_t npk_f32_to_uint(uint32_t a, unsigned width, npk_cvt_mode sat, npk_fenv *e);
int8_t npk_f32_to_i8(uint32_t a, npk_cvt_mode sat, npk_fenv *e);
int16_t npk_f32_to_i16(uint32_t a, npk_cvt_mode sat, npk_fenv *e);
int32_t npk_f32_to_i32(uint32_t a, npk_cvt_mode sat, npk_fenv *e);
uint8_t npk_f32_to_u8(uint32_t a, npk_cvt_mode sat, npk_fenv *e);
uint16_t npk_f32_to_u16(uint32_t a, npk_cvt_mode sat, npk_fenv *e);
uint32_t npk_f32_to_u32(uint32_t a, npk_cvt_mode sat, npk_fenv *e);

/* integer -> binary32, rounded by e->rm (NX when inexact); 0 gives +0. int8/int16 values are
 * exact through npk_i32_to_f32. */
uint32_t npk_i32_to_f32(int32_t v, npk_fenv *e);
uint32_t npk_u32_to_f32(uint32_t v, npk_fenv *e);
uint32_t npk_i64_to_f32(int64_t v, npk_fenv *e);
uint32_t npk_u64_to_f32(uint64_t v, npk_fenv *e);

/* binary64 bit pattern -> binary32 in e->rm, one rounding, all flags (so strtod output can be
 * narrowed exactly); and the exact widening back. NaN payloads follow the NaN policy. */
uint32_t npk_f64bits_to_f32(uint64_t d, npk_fenv *e);
uint64_t npk_f32_to_f64bits(uint32_t a);

#endif
