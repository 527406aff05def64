/* npukit's model IR and its ONNX reader (docs/models.md): values with element types and static
 * shapes, constant tensors, nodes in topological order with their attributes, shapes inferred
 * for the supported operators, initializer-only subgraphs folded. The lowerings to the targets
 * start from this IR. Internal to npukit (the CLI and tests link it); no global state. */
#ifndef NPK_MODEL_MODEL_H
#define NPK_MODEL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* Element types, numbered as ONNX's TensorProto.DataType numbers them. */
typedef enum {
    NPK_DT_UNDEFINED = 0,
    NPK_DT_FLOAT = 1,
    NPK_DT_UINT8 = 2,
    NPK_DT_INT8 = 3,
    NPK_DT_INT32 = 6,
    NPK_DT_INT64 = 7,
    NPK_DT_BOOL = 9,
    NPK_DT_FLOAT16 = 10,
    NPK_DT_DOUBLE = 11,
    NPK_DT_BFLOAT16 = 16
} npk_dtype;

#define NPK_MODEL_MAX_RANK 8
/* No tensor of the IR has more elements than this (2^40); products are checked against it. */
#define NPK_MODEL_MAX_ELEMS (UINT64_C(1) << 40)

typedef enum {
#define NPK_OP(id, name) NPK_OP_##id,
#include "model/ops.def"
#undef NPK_OP
    NPK_OP_COUNT
} npk_op;

typedef struct npk_value {
    char *name;
    npk_dtype dtype;
    int rank;
    int64_t dims[NPK_MODEL_MAX_RANK];
    uint64_t elems;          /* product of dims */
    bool sym_batch;          /* some dimension was symbolic in the file and is taken as 1 */
    bool is_input, is_output;
    void *data;              /* constant values (initializer or folded), little-endian; or NULL */
    int producer;            /* index of the node computing it, -1 for inputs and constants */
} npk_value;

typedef enum { NPK_ATTR_INT, NPK_ATTR_FLOAT, NPK_ATTR_INTS, NPK_ATTR_FLOATS, NPK_ATTR_STRING,
               NPK_ATTR_TENSOR, NPK_ATTR_OTHER } npk_attr_kind;

typedef struct npk_attr {
    char *name;
    npk_attr_kind kind;
    int64_t i;
    float f;
    size_t n;                /* count of ints/floats */
    int64_t *ints;
    float *floats;
    char *s;
} npk_attr;

typedef struct npk_node {
    char *name;              /* the file's node name, or "" */
    npk_op op;
    int n_in, n_out;
    int *in, *out;           /* value indices; -1 for an omitted optional input */
    size_t n_attrs;
    npk_attr *attrs;
    uint64_t params;         /* elements of the constant inputs (weights, biases) */
    uint64_t macs;           /* multiply-accumulates of one evaluation */
    bool folded;             /* computed at load time from constants (its outputs are constants) */
} npk_node;

typedef struct npk_model {
    char *producer;
    int64_t ir_version, opset;
    size_t n_values, n_nodes, n_inputs, n_outputs;
    npk_value *values;
    npk_node *nodes;         /* topological order */
    int *inputs, *outputs;   /* value indices of the graph's inputs and outputs */
} npk_model;

/* Read an ONNX model from memory (`name` is used in messages). Returns 0 and *out, or -1 with
 * "NAME: ..." in err (the node's index, name and op when a node is at fault). */
int npk_model_read(const void *buf, size_t size, const char *name, npk_model **out, char *err,
                   size_t err_size);
int npk_model_read_file(const char *path, npk_model **out, char *err, size_t err_size);
void npk_model_free(npk_model *m);

/* ONNX QuantizeLinear's rounding of a value already divided by its scale (or multiplied by
 * a requantisation factor): to the nearest integer, ties to even (the default rounding mode),
 * plus the zero point, saturated to [lo, hi]; NaN stays NaN. The one rule for the reader's
 * folding of constants and the plan's float64 run of int8 models (the NumPy reference's). */
static inline double npk_onnx_quantize(double r, double zp, double lo, double hi)
{
    double q = nearbyint(r) + zp;
    return q < lo ? lo : q > hi ? hi : q;
}

/* Element i of a constant integer value (int8, uint8, int32, int64 or bool data; 0 for other
 * element types): shapes, axes, pads, indices, zero points, int32 biases. */
static inline int64_t npk_value_int(const npk_value *v, uint64_t i)
{
    const uint8_t *p = v->data;
    switch (v->dtype) {
    case NPK_DT_INT8: return (int8_t)p[i];
    case NPK_DT_UINT8: case NPK_DT_BOOL: return p[i];
    case NPK_DT_INT32: { int32_t x; memcpy(&x, p + 4 * i, 4); return x; }
    case NPK_DT_INT64: { int64_t x; memcpy(&x, p + 8 * i, 8); return x; }
    default: return 0;
    }
}

const char *npk_op_name(npk_op op);
const char *npk_dtype_name(npk_dtype t);
size_t npk_dtype_size(npk_dtype t);   /* bytes per element, 0 for types the IR does not hold */
const npk_attr *npk_node_attr(const npk_node *n, const char *name);

#endif
