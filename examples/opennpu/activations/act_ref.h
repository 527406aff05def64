/* Host C references of the opennpu activation and quantisation kernels: the same fixed-point
 * and FP32 arithmetic as the .s programs, computed independently in plain C, plus the data
 * layouts the programs use (they must match the .equ lines of the .s files). */
#ifndef ONPU_ACT_REF_H
#define ONPU_ACT_REF_H

#include <stdint.h>

#define ACT_K 8                /* the test preset: K = 8 lanes */

/* relu.s clamp.s tanh.s gelu.s softmax.s */
#define ACT_LUTA 0x000u        /* 256-byte table for bank A */
#define ACT_LUTB 0x100u        /* 256-byte table for bank B (softmax) */
#define ACT_IN 0x200u          /* K input bytes */
#define ACT_OUT 0x280u         /* K output bytes */
#define ACT_CLAMP_LO 0x300u    /* clamp.s: lower bound, then the upper bound at +1 */

/* quantize.s */
#define ACT_Q_AT 0x000u        /* A column by column (A transposed), K*K int8 */
#define ACT_Q_B 0x040u         /* B row by row, K*K int8 */
#define ACT_Q_SCALE 0x080u     /* K f32 */
#define ACT_Q_BIAS 0x0a0u      /* K f32 */
#define ACT_Q_OUT 0x100u       /* Y column by column (Y transposed), K*K int8 */
#define ACT_Q_IMAGE 0x0c0u     /* bytes of the input image (0 .. BIAS + 4K) */

int8_t act_ref_relu(int8_t x);
int8_t act_ref_clamp(int8_t x, int8_t lo, int8_t hi);
/* One vlut lookup: table[(uint8_t)x]. */
int8_t act_ref_lut(const uint8_t table[256], int8_t x);
/* gelu.s with the erf table of bank A. */
int8_t act_ref_gelu(const uint8_t erf_table[256], int8_t x);
/* softmax.s over K lanes with the exp (bank A) and recip (bank B) tables. */
void act_ref_softmax(const uint8_t exp_table[256], const uint8_t recip_table[256],
                     const int8_t x[ACT_K], int8_t y[ACT_K]);
/* quantize.s: a and b row-major K x K (a[i*K + t] = A[i][t], b[t*K + j] = B[t][j]);
 * y row-major (y[i*K + j] = Y[i][j]). */
void act_ref_quantize(const int8_t *a, const int8_t *b, const float scale[ACT_K],
                      const float bias[ACT_K], int8_t *y);

/* Floor division of a by 2^s for any sign (what vsra computes), without relying on the
 * implementation-defined right shift of negative numbers. */
int32_t act_floor_shift(int32_t a, unsigned s);

#endif
