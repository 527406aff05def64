/* Element-wise transcendental functions on binary32 bit patterns, rounded to nearest-even:
 * exp, sin, cos, tanh and the tanh form of GELU, as pccx's CVO unit (§6.5, §7.2) needs them.
 * Square root and reciprocal are exact IEEE operations: npk_f32_sqrt / npk_f32_div (f32.h). */
#ifndef NPK_NUM_FN_H
#define NPK_NUM_FN_H

#include <stdint.h>

/* Each returns RNE32(f(t)), the binary32 nearest to the exact value, ties to even, for every
 * binary32 t whose low 16 bits are zero (every bf16 value; checked exhaustively against MPFR)
 * and within one binary32 ulp of it for other operands. Overflow gives ±inf, underflow a
 * subnormal or a zero with the sign of the exact result. A NaN operand or result is the
 * canonical 0x7FC00000. No flags, no environment: the rounding is always to nearest-even.
 * The functions call the C library (binary64 exp, sin, cos, tanh) and assume the host's
 * default floating-point environment (round to nearest, no flush-to-zero). */

/* e^t; exp(±0) = 1, exp(+inf) = +inf, exp(-inf) = +0. */
uint32_t npk_f32_exp(uint32_t t);
/* sin t and cos t with exact argument reduction for every finite t; sin(±0) = ±0,
 * cos(±0) = 1, sin/cos(±inf) = NaN. */
uint32_t npk_f32_sin(uint32_t t);
uint32_t npk_f32_cos(uint32_t t);
/* tanh t; tanh(±0) = ±0, tanh(±inf) = ±1. */
uint32_t npk_f32_tanh(uint32_t t);
/* GELU, tanh approximation: (t/2)(1 + tanh(sqrt(2/pi)(t + 0.044715 t^3))) with both constants
 * exact reals. gelu(±0) = ±0, gelu(+inf) = +inf, gelu(-inf) = -0; tiny results keep the sign
 * of t (-0 on underflow). */
uint32_t npk_f32_gelu_tanh(uint32_t t);

#endif
