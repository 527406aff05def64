/* The pccx lowering of a plan (docs/models.md, "Lowering to pccx"): BF16 activations, INT4
 * weights with one binary32 scale per output row (spec §5.4). The table entry is
 * npk_lower_pccx (src/model/lower.c); the quantiser is shared with the tests' host model. */
#ifndef NPK_PCCX_LOWER_H
#define NPK_PCCX_LOWER_H

#include <stddef.h>
#include <stdint.h>

#include "model/lower.h"

extern const npk_lower_target npk_lower_pccx;

/* Per-row symmetric INT4 quantisation of `rows` rows of `cols` floats: scale[r] =
 * max|w[r]| / 7 rounded to binary32 (1 when the row is 0), codes[r][i] = w[r][i] / scale[r]
 * rounded to nearest, ties to even, in -7..7. */
void npk_pccx_quant_rows(const float *w, size_t rows, size_t cols, int8_t *codes, float *scale);

#endif
