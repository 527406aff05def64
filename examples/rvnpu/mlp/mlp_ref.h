/* Host side of the rvnpu MLP (spec §13.2): the weights file, a reference of the firmware's
 * integer arithmetic, and the Fashion-MNIST IDX reader. Plain C11 + zlib. */
#ifndef MLP_REF_H
#define MLP_REF_H

#include <stddef.h>
#include <stdint.h>

#include "mlp_format.h"

typedef struct mlp_model {
    int32_t shift1;
    int32_t b1adj[MLP_N_HID]; /* B1' as shipped (checked against B1q and W1q on load) */
    int32_t b1q[MLP_N_HID];
    int32_t b2[MLP_N_OUT];
    int8_t w1[MLP_N_HID][MLP_N_IN];
    int8_t w2[MLP_N_OUT][MLP_N_HID];
} mlp_model;

/* Read and check models/mlp/mlp_weights.bin: size, magic, shape, SHIFT1 range, and that B1'
 * equals B1q + 128 * sum_j W1q[i][j] for every row. 0 on success; otherwise -1 and a message
 * naming the file and the reason in err. */
int mlp_model_load(mlp_model *m, const char *path, char *err, size_t err_size);
/* The same checks on the file's n bytes already in memory (path names them in messages). */
int mlp_model_parse(mlp_model *m, const uint8_t *buf, size_t n, const char *path, char *err,
                    size_t err_size);

/* The prediction (0..9) for one image of 784 pixels 0..255; logits (may be NULL) receives the
 * ten int32 logits. Layer 1 is computed the direct way, B1q + sum_j p[j] * W1q[i][j] with
 * unsigned pixels, in 64-bit arithmetic; the firmware's (p - 128) / B1' form gives the same
 * integers. Returns -1 if an intermediate value would not fit the firmware's 32-bit
 * registers (then the firmware's wrapped arithmetic could differ). */
int mlp_predict(const mlp_model *m, const uint8_t image[MLP_N_IN], int32_t logits[MLP_N_OUT]);

/* A Fashion-MNIST split read from the gzip'd IDX files <dir>/<prefix>-images-idx3-ubyte.gz and
 * <dir>/<prefix>-labels-idx1-ubyte.gz (prefix "t10k" or "train"). */
typedef struct mlp_dataset {
    size_t n;
    uint8_t *images; /* n * 784 */
    uint8_t *labels; /* n */
} mlp_dataset;

/* 0 on success; -1 on error with a message (file and reason); 1 if a file does not exist
 * (so tests can skip), also with a message. */
int mlp_dataset_load(mlp_dataset *d, const char *dir, const char *prefix, char *err,
                     size_t err_size);
void mlp_dataset_free(mlp_dataset *d);

#define MLP_DEFAULT_DATA_DIR "/usr/share/datasets/fashion-mnist"

#endif
