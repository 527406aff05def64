/* Narrow floating-point formats: bfloat16 and OCP FP8 (E4M3, E5M2, OFP8 v1.0), and a generic
 * conversion between any two npk_fmt formats. Decoding a narrow format to binary32 is exact;
 * narrowing rounds once with e->rm and can saturate on overflow. */
#ifndef NPK_NUM_NARROW_H
#define NPK_NUM_NARROW_H

#include <stdint.h>

#include "num/fenv.h"

/* Largest finite encodings (positive), for callers that clamp by hand. */
enum { NPK_BF16_MAX = 0x7F7F, NPK_E4M3_MAX = 0x7E, NPK_E5M2_MAX = 0x7B };

/* Narrowing rules shared by every npk_f32_to_* and npk_fmt_convert call:
 * - finite x: rounded to the format by e->rm with gradual underflow (subnormals), tininess
 *   after rounding, flags as IEEE 754. If the rounded value exceeds the largest finite value M
 *   (decided after rounding: E4M3 464 -> 448 with RNE, 465 overflows) the result is, with
 *   saturation (the `saturate` argument or NPK_OPT_SATURATE), ±M; without, as IEEE 754 for the
 *   rounding direction: ±M where the mode rounds that sign toward zero, else ±infinity, which
 *   for E4M3 (no infinity) is the NaN 0x7F/0xFF. OF and NX in every case.
 * - ±infinity: ±infinity; with saturation ±M and NX; E4M3 without saturation: NaN 0x7F/0xFF
 *   with NV (the value has no representation, as for integer conversions).
 * - NaN: NV if signalling. Canonical mode: bf16 0x7FC0, FP8 0x7F, binary32 e->dnan. With
 *   NPK_OPT_NAN_PROPAGATE: sign and the top payload bits kept, quiet bit set (bf16 from binary32
 *   is (x >> 16) | 0x0040); FP8 gives 0x7F | sign << 7 (the E4M3 NaN, also an E5M2 NaN).
 * - ±0: ±0. */

/* bfloat16 */
uint16_t npk_f32_to_bf16(uint32_t a, npk_fenv *e);
uint16_t npk_f32_to_bf16_sat(uint32_t a, int saturate, npk_fenv *e);
/* Exact: the 16 bits become the top half (NaN payloads and signalling NaNs moved as bits). */
uint32_t npk_bf16_to_f32(uint16_t h);

/* OCP FP8 */
uint8_t npk_f32_to_e4m3(uint32_t a, int saturate, npk_fenv *e);
uint8_t npk_f32_to_e5m2(uint32_t a, int saturate, npk_fenv *e);
/* Exact decode. NaN gives 0x7FC00000 | sign << 31; E5M2 infinities give binary32 infinities. */
uint32_t npk_e4m3_to_f32(uint8_t b);
uint32_t npk_e5m2_to_f32(uint8_t b);

/* Between narrow formats: one rounding (the widening step is exact). */
uint8_t npk_bf16_to_e4m3(uint16_t h, int saturate, npk_fenv *e);
uint8_t npk_bf16_to_e5m2(uint16_t h, int saturate, npk_fenv *e);
uint16_t npk_e4m3_to_bf16(uint8_t b); /* exact */
uint16_t npk_e5m2_to_bf16(uint8_t b); /* exact */
uint8_t npk_e4m3_to_e5m2(uint8_t b, int saturate, npk_fenv *e);
uint8_t npk_e5m2_to_e4m3(uint8_t b, int saturate, npk_fenv *e);

/* Generic conversion of encoding x (low bits) from format `from` to format `to` under the
 * rules above; widening is exact except that signalling NaNs are quieted with NV (IEEE
 * convertFormat). Use this for assembler literals: strtod -> binary64 bits -> any format. */
uint64_t npk_fmt_convert(npk_fmt to, npk_fmt from, uint64_t x, int saturate, npk_fenv *e);
/* Exact decode of any format's encoding to binary64 bits (for printing and tests); NaNs keep
 * sign and top payload bits, quieted. */
uint64_t npk_fmt_to_f64bits(npk_fmt from, uint64_t x);
/* Encoding facts: total bits, largest finite encoding, and whether x encodes a NaN / infinity. */
unsigned npk_fmt_width(npk_fmt f);
uint64_t npk_fmt_max(npk_fmt f);
int npk_fmt_is_nan(npk_fmt f, uint64_t x);
int npk_fmt_is_inf(npk_fmt f, uint64_t x);

#endif
