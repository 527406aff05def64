/* An exact accumulator for sums of binary32 values and of exact products of two binary32
 * values, rounded once at the end: pccx's ExactSum (§3.3). The result does not depend on the
 * order of the terms. The accumulator is a 640-bit two's complement fixed-point number. */
#ifndef NPK_NUM_XSUM_H
#define NPK_NUM_XSUM_H

#include <stddef.h>
#include <stdint.h>

#include "num/fenv.h"

#define NPK_XSUM_LIMBS 10

typedef struct npk_xsum {
    uint64_t limb[NPK_XSUM_LIMBS]; /* bit i weighs 2^(i - 300), little-endian limbs */
    unsigned nan;                  /* a NaN term was added (or inf * 0) */
    unsigned invalid;              /* a signalling NaN or inf * 0 was seen: NV at the end */
    unsigned pinf, ninf;           /* +inf / -inf terms were added */
    unsigned all_negzero;          /* every term so far was -0 (true when empty) */
    unsigned all_poszero;          /* every term so far was +0 (true when empty) */
    uint64_t count;                /* number of terms; at most 2^64 - 1 */
} npk_xsum;

void npk_xsum_init(npk_xsum *s);
/* Add the binary32 value x. */
void npk_xsum_add_f32(npk_xsum *s, uint32_t x);
/* Add the exact product a*b (a zero product has sign(a) XOR sign(b); inf * 0 is a NaN). */
void npk_xsum_add_f32_mul(npk_xsum *s, uint32_t a, uint32_t b);
/* Round the sum to binary32 with e->rm: NaN (canonical or e->dnan) if any term was NaN or
 * both infinities were added (NV for inf - inf, inf * 0 and signalling NaNs); else the
 * infinity; else the exact sum rounded once. An exact zero sum is -0 when every term was -0,
 * +0 otherwise (RDN: -0 unless every term was +0, as IEEE 754 addition). */
uint32_t npk_xsum_to_f32(const npk_xsum *s, npk_fenv *e);

/* Exact dot products of a row of K bfloat16 values with INT4 weights (4-bit two's complement,
 * -8..7, packed two per byte: column 2j in the low nibble of byte j), rounded once to binary32
 * with round-to-nearest-even: pccx's GEMV/GEMM term sum (ExactSum, §3.3), the zero-sign rule
 * included (an exact zero is -0 only when every product is -0; a zero weight counts as +0).
 *
 * npk_xdot_prepare looks at the row once. Every product has at most 12 significant bits, so
 * when (largest - smallest exponent of the rows' nonzero values' last significand bits)
 * + 12 + ceil(log2 K) <= 53, every partial sum is exact in binary64: it converts the row to
 * binary64 into ad[0..K) and returns 1, and npk_xdot_bf16_i4_fast gives the exact result in any
 * order. Otherwise (or with an infinity or NaN in the row) it returns 0 and
 * npk_xdot_bf16_i4_exact (the accumulator above) must be used. */
int npk_xdot_prepare(const uint16_t *a, uint64_t K, double *ad);
uint32_t npk_xdot_bf16_i4_fast(const double *ad, const uint8_t *w, uint64_t K);
/* The fast path for NPK_XDOT_ROWS weight rows at once (row r at w + r * row_bytes) into
 * y[0..NPK_XDOT_ROWS), equal to npk_xdot_bf16_i4_fast per row: the prepared row is read once
 * for all of them, which is what makes a GEMV faster than row by row. */
#define NPK_XDOT_ROWS 8
void npk_xdot_bf16_i4_fast_rows(const double *ad, const uint8_t *w, size_t row_bytes,
                                uint64_t K, uint32_t y[NPK_XDOT_ROWS]);
/* Two windows: rows whose values span too many binades for one binary64 sum (values near zero
 * next to large ones) but fit two. npk_xdot_prepare2 splits the row's values by the exponent
 * of their last significand bit into a high window (hi[k], +0 where the value is in the other
 * window) and a low one (lo[k]), each within the one-window bound, and returns 1; 0 when two
 * windows are not enough (or with an infinity or NaN). The fast2 functions sum each window
 * exactly in binary64 and round the sum of the two once (round to odd, then RNE), with the
 * zero-sign rule of the one-window path: equal to npk_xdot_bf16_i4_exact. a is the row itself
 * (for the sign of an exact zero). */
int npk_xdot_prepare2(const uint16_t *a, uint64_t K, double *hi, double *lo);
uint32_t npk_xdot_bf16_i4_fast2(const double *hi, const double *lo, const uint16_t *a,
                                const uint8_t *w, uint64_t K);
void npk_xdot_bf16_i4_fast2_rows(const double *hi, const double *lo, const uint16_t *a,
                                 const uint8_t *w, size_t row_bytes, uint64_t K,
                                 uint32_t y[NPK_XDOT_ROWS]);
uint32_t npk_xdot_bf16_i4_exact(const uint16_t *a, const uint8_t *w, uint64_t K);
/* The exact dot product of two rows of K BF16 values (the BF16 weight views of pccx: ExactSum
 * of the products, pccx spec §3.3), rounded once to binary32 with RNE, zero-sign rule included: in binary64
 * when the products' exponents allow it (every partial sum exact), else with the accumulator
 * above; the same bits either way. */
uint32_t npk_xdot_bf16_bf16(const uint16_t *a, const uint16_t *w, uint64_t K);

#endif
