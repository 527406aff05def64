/* A model as the lowerings see it (docs/models.md, "Lowering"): the IR's nodes grouped into
 * layers (a Gemm or MatMul with its bias Add and activation is one dense layer; a Conv with its
 * activation is one conv layer; Flatten/Reshape that keep the row-major order are views), each
 * with its float weights; the layers form a DAG in topological order (a layer reads one or two
 * tensors written before it), and the int8 quantisation the integer targets start from: symmetric
 * per-output-channel weights and per-tensor activation scales calibrated on a set of inputs.
 * Built once per model (npk_plan_build), quantised once (npk_plan_calibrate), then handed to a
 * target's lowering (src/targets/<t>/lower.c through lower.h). No global state. */
#ifndef NPK_MODEL_PLAN_H
#define NPK_MODEL_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

typedef enum {
    NPK_ACT_NONE,
    NPK_ACT_RELU,
    NPK_ACT_LEAKY_RELU,   /* alpha */
    NPK_ACT_GELU,         /* the erf form */
    NPK_ACT_TANH,
    NPK_ACT_SIGMOID
} npk_act;

typedef enum {
    /* y[o] = act(sum_i x[i] * w[o * n_in + i] + b[o]), x of n_in, y of n_out elements */
    NPK_LAYER_DENSE,
    /* y[m][oy][ox] = act(b[m] + sum_{c,ky,kx} x[c][oy*sh - pt + ky][ox*sw - pl + kx]
     *                                     * w[((m * C + c) * kh + ky) * kw + kx]),
     * x (C, H, W), y (M, oH, oW), positions outside x are 0 (padding); group 1, dilation 1 */
    NPK_LAYER_CONV,
    /* y[c][oy][ox] = max / mean over the window at (oy*sh - pt, ox*sw - pl) of size kh x kw;
     * padded positions are skipped by max and, for the mean, counted only when
     * count_include_pad is 1 */
    NPK_LAYER_MAXPOOL,
    NPK_LAYER_AVGPOOL,
    NPK_LAYER_SOFTMAX,    /* over the last dimension: rows of `row` elements */
    NPK_LAYER_ACT,        /* y = act(x), elementwise (an activation not merged into a layer) */
    /* The kinds below come from sequence models (the transformer block); the chain lowerings
     * refuse them (npk_lower_chain_only). Rows are the last dimension, `row` = n_in elements:
     * LAYERNORM: y = (x - mean) / sqrt(var + eps) * w[i] + b[i] (var the biased variance,
     * b may be NULL); RMSNORM: y = x / sqrt(mean(x^2) + eps) * w[i] (w NULL: no gain) */
    NPK_LAYER_LAYERNORM,
    NPK_LAYER_RMSNORM,
    /* two activations, batched: y[h][r][o] = sum_i x[h][r][i] * x2[h][i][o], h < batch,
     * r < rows, i < n_in, o < n_out (attention's Q K^T and P V) */
    NPK_LAYER_MATMUL,
    /* y = x viewed as dims[0..trank) with its axes permuted: y's axis a is x's axis perm[a] */
    NPK_LAYER_TRANSPOSE,
    NPK_LAYER_ADD,        /* y = x + x2, elementwise, the same shape (a residual) */
    NPK_LAYER_SCALE       /* y = x * factor (Mul or Div by a constant scalar) */
} npk_layer_kind;

/* One activation tensor of the plan (batch 1): its shape without the batch dimension, its
 * element count, and its int8 scale once calibrated (real value = scale * q, q in -127..127).
 * Ranks: 1 [F] features; 2 [S, D] a sequence of S rows of D; 3 [C, H, W] an image, or
 * [H, S, dh] attention heads (or [S, H, dh] before their Transpose): the layers reading a
 * tensor say which. */
typedef struct npk_ptensor {
    int rank;             /* 1, 2 or 3 */
    int dims[3];
    size_t elems;
    double max_abs;       /* largest |value| seen in calibration */
    double scale;         /* max_abs / 127 (1/127 when max_abs is 0) */
    /* set when the model quantises this tensor itself (QuantizeLinear, a QLinear operator's
     * output; plan_q.c): the float64 run rounds it to q = clamp(rne(v / qscale) + zp, qmin,
     * qmax), value (q - zp) * qscale, as ONNX does */
    int quant;
    double qscale;
    int zp, qmin, qmax;
} npk_ptensor;

struct npk_qlayer;   /* a layer quantised by the model itself (plan_q.c) */

typedef struct npk_layer {
    npk_layer_kind kind;
    int node;             /* the IR node it starts at, for messages */
    const char *name;     /* that node's name (may be "") */
    const char *op;       /* that node's operator name */
    int in, out;          /* tensor indices (in = out - 1 for a chain) */
    int in2;              /* MATMUL, ADD: the second operand's tensor (-1 for the others) */
    int rows;             /* DENSE: rows of n_in the weights apply to (S of a sequence; 1 for
                           * features); MATMUL: rows of each batch. 0 counts as 1 (plans
                           * built field by field) */
    int batch;            /* MATMUL: products (heads); 1 (or 0) for the others */
    double eps;           /* LAYERNORM, RMSNORM */
    double factor;        /* SCALE */
    int trank;            /* TRANSPOSE: the input viewed as dims[trank], permuted by perm */
    int tdims[3], perm[3];
    npk_act act;
    double alpha;         /* LeakyRelu */
    /* DENSE: n_in, n_out; CONV: n_in = C, n_out = M, kernel; pools: kernel, n_in = n_out = C */
    int n_in, n_out;
    int kh, kw, sh, sw, pt, pl, pb, pr;
    int count_include_pad;
    int row;              /* SOFTMAX, LAYERNORM, RMSNORM: elements per row */
    const float *w;       /* float weights as in the model (DENSE: [n_out][n_in]; CONV:
                           * [M][C][kh][kw]; LAYERNORM, RMSNORM: the gain [row]) */
    const float *b;       /* n_out biases (LAYERNORM: [row]), or NULL */
    /* int8 quantisation (npk_plan_calibrate): per output channel o,
     * w[o][...] ~ wscale[o] * wq[o][...], wq in -127..127, wscale[o] = max|w[o]| / 127 (1 when
     * the row is 0); bq[o] = round(b[o] / (in_scale * wscale[o])), the bias in the units of
     * the int32 accumulator. */
    int8_t *wq;
    double *wscale;
    int32_t *bq;
    /* non-NULL when the model gives the int8 weights and scales (QDQ or QLinear; plan_q.c) */
    struct npk_qlayer *q;
} npk_layer;

typedef struct npk_plan {
    const npk_model *model;
    size_t n_layers, n_tensors;
    npk_layer *layers;    /* in topological order; a chain: layer i reads tensor i, writes
                           * tensor i + 1 */
    npk_ptensor *tensors; /* tensor 0 the model's input, the last the model's output; a layer
                           * writes a tensor of a higher index than those it reads */
    int calibrated;
    int qmodel;           /* the scales are the model's own (QDQ or QLinear): no calibration */
    uint64_t macs;        /* multiply-accumulates of one inference */
} npk_plan;

/* Group the model's nodes into layers. Returns 0, or -1 with a message naming the node, its
 * operator and the reason (an operator, attribute or shape no lowering takes yet). The plan
 * points into `m`, which must outlive it. */
int npk_plan_build(const npk_model *m, npk_plan **out, char *err, size_t err_size);
void npk_plan_free(npk_plan *p);

/* The shape of one inference's output as the model gives it, the batch dropped: the graph
 * output's dimensions after the batch when they hold the last tensor's elements (a trailing
 * Reshape or Flatten is a view the plan's tensor skips: lenet_qlinear's last 1x1 convolution
 * writes [10, 1, 1], its output is [N, 10]), else the last tensor's. Returns the rank (at
 * most NPK_MODEL_MAX_RANK - 1) and writes dims. */
int npk_plan_output_dims(const npk_plan *p, int64_t *dims);

/* Run the plan in float64 (the host reference of the lowerings): x and y of the first and the
 * last tensor's element count. When `observe` is non-zero the tensors' max_abs are raised to
 * what this input gives. Returns -1 when out of memory. */
int npk_plan_run_f64(npk_plan *p, const double *x, double *y, int observe);

/* Calibrate on `count` inputs (each of the input tensor's element count, float32, one after the
 * other) and quantise: activation scales from the largest |value| of each tensor over the set,
 * per-channel int8 weights and int32 biases. */
int npk_plan_calibrate(npk_plan *p, const float *inputs, size_t count, char *err, size_t err_size);

const char *npk_layer_kind_name(npk_layer_kind k);
const char *npk_act_name(npk_act a);
/* The activation in float64, as the plan's run computes it (alpha: LeakyRelu's). */
double npk_act_f64(npk_act a, double alpha, double x);

/* Models quantised by themselves (QDQ and QLinear, plan_q.c; docs/models.md, "int8 models").
 * For the int8 lowerings: 0, or -1 with the tensor and the reason when a tensor's quantisation
 * is not symmetric int8 (a zero point other than 0, uint8). */
int npk_plan_q_symmetric(const npk_plan *p, char *err, size_t err_size);
/* The output's own quantisation (a QLinear model's last QuantizeLinear) applied to a target's
 * outputs y (the output tensor's element count); nothing when the model has none. */
void npk_plan_q_output(const npk_plan *p, float *y);

#endif
