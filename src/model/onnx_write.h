/* Writing trained dense-layer parameters back into an ONNX file (docs/models.md, "Training on
 * tinytpu"): a copy of the model with the initializers of each dense layer's weight and bias
 * replaced, everything else byte for byte as protobuf-c re-packs it. No global state. */
#ifndef NPK_MODEL_ONNX_WRITE_H
#define NPK_MODEL_ONNX_WRITE_H

#include <stddef.h>

#include "model/plan.h"

/* Read the ONNX file in_path (the model p was built from), replace the weights and biases of
 * every dense layer i of p with w[i] ([n_out][n_in], the plan's layout) and b[i] (n_out), in the
 * layout of the node's own initializers (Gemm: B as transB says, divided by alpha, and C
 * divided by beta; MatMul: B [in][out] and the bias Add's constant), and write out_path.
 * 0, or -1 with the reason (naming the node) in err: a weight or bias that is not a float32
 * initializer of the file of one value per output (computed by nodes, broadcast, absent). */
int npk_onnx_write_dense(const char *in_path, const char *out_path, const npk_plan *p,
                         float *const *w, float *const *b, char *err, size_t err_size);

#endif
