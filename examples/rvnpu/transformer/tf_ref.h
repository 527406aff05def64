/* Host reference of the transformer firmware (transformer.c): the same binary32 operations in
 * the same order, with the FP NPU instructions computed as spec §6.2 defines them (binary64
 * facc, the host's binary64 exp/erf/sqrt as npukit's simulator uses). Its output must equal
 * the firmware's stdout byte for byte. Build with -ffp-contract=off. */
#ifndef TF_REF_H
#define TF_REF_H

#include <stddef.h>
#include <stdint.h>

#include "tf_model.h"

/* Which firmware build to mirror. */
typedef enum tf_ref_mode {
    TF_REF_NPU,   /* transformer.elf and transformer_rev2.elf (identical results) */
    TF_REF_PLAIN  /* transformer_plain.elf (-DNO_NPU): binary32 accumulation, tf_plain_math.h */
} tf_ref_mode;

/* Reads the weight blob (exactly TF_FILE_SIZE bytes). On failure returns -1 and writes a
 * message to err. */
int tf_ref_load(const char *path, tf_weights *w, char *err, size_t err_size);

/* The firmware's state after a run (its globals tf_kcache, tf_vcache, tf_x): K and V of
 * every layer for positions 0..positions-1, and the residual stream of the last position. */
typedef struct tf_ref_state {
    float k[TF_LAYERS][TF_CTX][TF_DIM];
    float v[TF_LAYERS][TF_CTX][TF_DIM];
    float x[TF_DIM];
    int positions;
} tf_ref_state;

/* What the firmware prints for these inputs (spec §13.3): fills out (at least
 * TF_REF_MAX_OUTPUT bytes) and returns the byte count and *exit_status. n_tokens outside
 * 1..32 gives no output and status 1. If logits is not NULL it receives the logits of the
 * first prediction (after the prompt); if state is not NULL it receives the final state. */
#define TF_REF_MAX_OUTPUT (TF_CTX + 3 + TF_CTX + 1 + 1)
size_t tf_ref_run(const tf_weights *w, tf_ref_mode mode, const uint8_t *tokens, int32_t n_tokens,
                  int32_t n_generate, uint8_t *out, int *exit_status, float *logits,
                  tf_ref_state *state);

#endif
