/* The int8 Fashion-MNIST MLP of models/mlp (784 -> 128 ReLU -> 10, quantised as rvnpu spec
 * §13.2 describes; weights file layout in examples/rvnpu/mlp/mlp_format.h) as one opennpu
 * program for a batch of images, on the K x K MMA array:
 *
 *   1. GEMM  C1 = W1q (128 x 784) * X' (784 x batch), X' = pixel - 128      (onpu_gemm)
 *   2. requantise per hidden unit h and image: ReLU(clamp8(floor((C1 + B1'[h]) / 2^SHIFT1)))
 *      with vadd (bias), vsra (shift), vcvt_s8_s32.sat (clamp to int8), vmax (ReLU), written
 *      straight into the packed B-panel layout of step 3 (four hidden units per st.vr)
 *   3. GEMM  C2 = W2q (10 x 128) * H (128 x batch)
 *   4. logits = C2 + B2 (vadd), stored row-major 10 x batch_pad (batch_pad = batch rounded up
 *      to a multiple of K).
 * The arithmetic is the integer network of examples/rvnpu/mlp/mlp_ref.c (B1' = B1q + 128 *
 * sum W1q makes the signed pixels give the same sums), so the logits must equal that host
 * reference exactly. */
#ifndef ONPU_MLP_H
#define ONPU_MLP_H

#include <stddef.h>
#include <stdint.h>

#include "mlp_ref.h"
#include "gemm_run.h"

typedef struct onpu_mlp_layout {
    unsigned batch, batch_pad, K, L;
    npk_opennpu_gemm_plan g1, g2;       /* the two GEMMs with their addresses filled in */
    uint64_t x_addr, x_size;     /* layer-1 B panels: the images (rewritten per batch) */
    uint64_t b1_addr, b2_addr;   /* biases, each repeated K times (one ld.vr per unit) */
    uint64_t logits_addr;        /* int32 [10][batch_pad] */
    uint64_t end;                /* data memory needed, from address 0 */
} onpu_mlp_layout;

int onpu_mlp_layout_make(onpu_mlp_layout *l, unsigned batch, unsigned K, unsigned L, char *err,
                         size_t err_size);
/* The whole data image [0, end): weights, biases, zeroed images and results. */
void onpu_mlp_pack_model(const onpu_mlp_layout *l, const mlp_model *m, uint8_t *mem);
/* The images' part (x_size bytes, to be written at x_addr): n <= batch images of 784 pixels;
 * missing images are zero. */
void onpu_mlp_pack_images(const onpu_mlp_layout *l, const uint8_t *images, unsigned n,
                          uint8_t *dst);
/* The program text (malloc'd, NULL when out of memory). */
char *onpu_mlp_program(const onpu_mlp_layout *l, int32_t shift1, npk_opennpu_gemm_counts *counts);
/* Logits of image i (0 <= i < batch) from the results region read at logits_addr
 * (10 * batch_pad * 4 bytes). */
void onpu_mlp_logits(const onpu_mlp_layout *l, const uint8_t *res, unsigned i, int32_t out[10]);

#endif
