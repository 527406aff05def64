/* npukit's model front end as a library (docs/models.md): open an ONNX model, read what it is
 * (inputs, outputs, the layers it is grouped into), calibrate its int8 scales on a set of
 * inputs, compile it for a target, and run it, one input at a time, on the host (float64) or on
 * a simulated NPU, with what each inference cost. What `npukit model-info`, `npukit run-model`
 * and `npukit compile MODEL.onnx` do, for programs (the Python package's npukit.Model).
 *
 * Handles are opaque. Every call returns an npk_status; a call on a handle that fails leaves
 * its message there (npk_nn_error, npk_nn_session_error), calls without one write it to `err`.
 * Messages name the model file, and for a model at fault the node (index, name, operator) and
 * the reason, with the sizes involved. No global state: handles may be used from several
 * threads, one thread at a time per model (its sessions included). C linkage, C11.
 *
 * Without ONNX support in the build (the Debian packages libprotobuf-c-dev,
 * protobuf-c-compiler and libonnx-dev were missing) every call exists and fails with
 * NPK_ERR_UNSUPPORTED and a message saying so; npk_nn_supported() tells beforehand. */
#ifndef NPUKIT_MODEL_H
#define NPUKIT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "npukit/npukit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct npk_nn npk_nn;                  /* an opened model */
typedef struct npk_nn_session npk_nn_session;  /* a model prepared for one target */

#define NPK_NN_MAX_RANK 8

/* 1 when this library was built with ONNX support, else 0. */
NPK_API int npk_nn_supported(void);

/* The targets a model runs on: "host" (the float64 run of the plan, the reference of the
 * others) and every target with a lowering ("pccx", "rvnpu", "tinytpu", "opennpu"); none
 * without ONNX support. */
NPK_API size_t npk_nn_target_count(void);
NPK_API const char *npk_nn_target_name(size_t i);   /* NULL past the end */

/* ---- opening ------------------------------------------------------------------------------ */

/* Read an ONNX model file (regular file, at most NPK_INPUT_MAX bytes), or `size` bytes of one
 * from memory (`name` is used in messages; NULL: "<buffer>"). The model is read, its shapes
 * inferred, and grouped into the chain of layers the lowerings take (the plan); a model that
 * reads but cannot be grouped still opens (npk_nn_info says why in plan_error, and the calls
 * that need layers fail with that message). On failure *out is NULL and err holds the
 * message (NPK_ERR_IO: the file; NPK_ERR_FORMAT: not a model npukit reads). */
NPK_API npk_status npk_nn_open(npk_nn **out, const char *path, char *err, size_t err_size);
NPK_API npk_status npk_nn_open_buffer(npk_nn **out, const void *bytes, size_t size,
                                      const char *name, char *err, size_t err_size);
/* Release the model. Sessions still open keep what they need: the model's memory goes when the
 * last of them is closed. NULL is ignored. */
NPK_API void npk_nn_close(npk_nn *m);
/* The message of the last failing call on the model ("" when none). */
NPK_API const char *npk_nn_error(const npk_nn *m);

/* ---- what the model is ------------------------------------------------------------------- */

typedef struct npk_nn_info {
    const char *name;         /* the file (or the buffer's name) */
    const char *producer;     /* the file's producer_name, "" when none */
    int64_t ir_version, opset;
    size_t n_inputs, n_outputs;   /* graph inputs and outputs (npk_nn_input, npk_nn_output) */
    size_t n_nodes;           /* nodes in topological order, constant-folded ones included */
    uint64_t params;          /* elements of the nodes' constant inputs */
    uint64_t macs;            /* multiply-accumulates of one evaluation of the graph */
    /* The plan (NULL plan_error): the layers, and the elements of one input and one output of
     * an inference (the batch dimension dropped), with their shapes: the output's is the
     * graph output's (a trailing Reshape or Flatten included), the input's the first layer's. */
    const char *plan_error;   /* why the model cannot be grouped into layers, or NULL */
    size_t n_layers;
    size_t input_elems, output_elems;
    int input_rank, output_rank;
    int64_t input_dims[NPK_NN_MAX_RANK], output_dims[NPK_NN_MAX_RANK];
    int calibrated;           /* int8 scales calibrated (npk_nn_calibrate) */
} npk_nn_info;

/* A graph input or output as the file declares it (a symbolic dimension taken as 1). */
typedef struct npk_nn_tensor {
    const char *name;
    const char *dtype;        /* "float32", "float64", "float16", "bfloat16", "int8", "uint8",
                                 "int32", "int64", "bool" */
    int rank;
    int64_t dims[NPK_NN_MAX_RANK];
    int symbolic;             /* some dimension was symbolic in the file */
} npk_nn_tensor;

/* One layer of the plan (docs/models.md, "The plan"). */
typedef struct npk_nn_layer {
    const char *kind;         /* "dense", "conv", "maxpool", "avgpool", "softmax", "act", ... */
    const char *act;          /* the activation applied at its end: "none", "relu", ... */
    double alpha;             /* LeakyRelu's */
    int node;                 /* the first IR node it is made from */
    const char *node_name;    /* that node's name ("" when the file has none) */
    const char *op;           /* that node's operator */
    int n_in, n_out;          /* dense: features; conv: channels; pools: channels */
    int kh, kw, sh, sw;       /* conv and pools: kernel and strides (0 otherwise) */
    int in_rank, out_rank;    /* the tensors it reads and writes, without the batch */
    int64_t in_dims[NPK_NN_MAX_RANK], out_dims[NPK_NN_MAX_RANK];
    double in_scale, out_scale; /* their int8 scales once calibrated, else 0 */
    /* How the layers connect (the plan is a graph: residual adds, attention's matmuls): the
     * plan's tensors the layer reads and writes. Tensor 0 is the model's input; every other
     * tensor is written by exactly one layer. in2_tensor is the second operand of an add or
     * a matmul of two activations, -1 for the other layers. */
    int in_tensor, in2_tensor, out_tensor;
} npk_nn_layer;

/* The pointers in these structs point into the model: valid until npk_nn_close. */
NPK_API npk_status npk_nn_info_get(npk_nn *m, npk_nn_info *info);
NPK_API npk_status npk_nn_input(npk_nn *m, size_t i, npk_nn_tensor *t);
NPK_API npk_status npk_nn_output(npk_nn *m, size_t i, npk_nn_tensor *t);
NPK_API npk_status npk_nn_layer_get(npk_nn *m, size_t i, npk_nn_layer *l);

/* ---- calibrating and compiling ----------------------------------------------------------- */

/* Calibrate the int8 scales (and quantise the weights) on `count` inputs of input_elems
 * float32 values each, one after the other: what the int8 targets (opennpu, rvnpu int8) need
 * before a session or a compile. Every value must be finite (else NPK_ERR_ARG naming the input
 * and the element). NPK_ERR_STATE while sessions of the model are open (their programs hold
 * the old scales). */
NPK_API npk_status npk_nn_calibrate(npk_nn *m, const float *inputs, size_t count);

/* Lower the model to `target` ("T" or "T:SETTINGS", as for `npukit compile -t`) and write what
 * runs it to `out_path`, in the target's own formats (more files may go beside it). When
 * `note` is not NULL, *note is set to the text saying what was written and how to run it
 * (release it with npk_free). */
NPK_API npk_status npk_nn_compile(npk_nn *m, const char *target, const char *out_path,
                                  char **note);

/* ---- running ----------------------------------------------------------------------------- */

/* Prepare the model for inferences on `target`: "host" or "T[:SETTINGS]" with a lowering. On
 * failure *out is NULL and the message is the model's (npk_nn_error). */
NPK_API npk_status npk_nn_session_open(npk_nn *m, const char *target, npk_nn_session **out);
NPK_API void npk_nn_session_close(npk_nn_session *s);
NPK_API const char *npk_nn_session_error(const npk_nn_session *s);

/* What one inference cost on the simulated target (all 0 on the host). */
typedef struct npk_nn_stats {
    uint64_t cycles;          /* the target's cycle (tick) model */
    uint64_t instructions;    /* retired instructions (control words on tinytpu) */
    uint64_t macs;            /* multiply-accumulates done */
    double utilisation;       /* macs / (cycles x peak MACs per cycle), 0..1 */
} npk_nn_stats;

/* One inference: x holds nx = input_elems float32 values (finite), y receives ny =
 * output_elems; `stats` may be NULL. Counts that differ from the model's are NPK_ERR_ARG. */
NPK_API npk_status npk_nn_infer(npk_nn_session *s, const float *x, size_t nx, float *y,
                                size_t ny, npk_nn_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
