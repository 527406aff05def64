/* Builders of small ONNX models for the tests of src/model (test_onnx.c, test_plan.c): protobuf-c's
 * generated structs filled from short descriptions, serialised to temporary files. Every
 * allocation goes to one pool, freed after each model is read back. */
#ifndef NPK_TESTS_MODEL_ONNX_BUILD_H
#define NPK_TESTS_MODEL_ONNX_BUILD_H

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model.h"
#include "onnx.pb-c.h"

/* Every allocation of one model under construction, freed together. */
static void *pool[4096];
static size_t pool_n;

static inline void *alloc(size_t size)
{
    void *p = calloc(1, size ? size : 1);
    if (!p || pool_n == sizeof pool / sizeof pool[0]) {
        fprintf(stderr, "onnx_build: out of memory\n");
        exit(2);
    }
    return pool[pool_n++] = p;
}

static inline void pool_free(void)
{
    while (pool_n)
        free(pool[--pool_n]);
}

static inline char *str(const char *s)
{
    char *d = alloc(strlen(s) + 1);
    memcpy(d, s, strlen(s));
    return d;
}

/* A float tensor of the given dims whose element i is i / 100 (or an int64 one: data). */
static inline Onnx__TensorProto *tensor(const char *name, int dtype, int rank, const int64_t *dims,
                                 const int64_t *data)
{
    Onnx__TensorProto *t = alloc(sizeof *t);
    onnx__tensor_proto__init(t);
    t->name = str(name);
    t->has_data_type = 1;
    t->data_type = dtype;
    t->n_dims = (size_t)rank;
    t->dims = alloc((size_t)rank * sizeof *t->dims);
    size_t n = 1;
    for (int i = 0; i < rank; i++) {
        t->dims[i] = dims[i];
        n *= (size_t)dims[i];
    }
    if (dtype == NPK_DT_FLOAT) {
        t->n_float_data = n;
        t->float_data = alloc(n * sizeof(float));
        for (size_t i = 0; i < n; i++)
            t->float_data[i] = (float)i / 100;
    } else if (dtype == NPK_DT_INT64) {
        t->n_int64_data = n;
        t->int64_data = alloc(n * sizeof(int64_t));
        memcpy(t->int64_data, data, n * sizeof(int64_t));
    } else {
        t->n_int32_data = n;
        t->int32_data = alloc(n * sizeof(int32_t));
    }
    return t;
}

#define DIMS(...) (sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__}
#define SCALAR 0, NULL

/* A graph input or output; a dimension of -1 is written as the symbolic "N". */
static inline Onnx__ValueInfoProto *vinfo(const char *name, int dtype, int rank, const int64_t *dims)
{
    Onnx__ValueInfoProto *v = alloc(sizeof *v);
    onnx__value_info_proto__init(v);
    v->name = str(name);
    Onnx__TypeProto *tp = alloc(sizeof *tp);
    onnx__type_proto__init(tp);
    Onnx__TypeProto__Tensor *tt = alloc(sizeof *tt);
    onnx__type_proto__tensor__init(tt);
    tt->has_elem_type = 1;
    tt->elem_type = dtype;
    tt->shape = alloc(sizeof *tt->shape);
    onnx__tensor_shape_proto__init(tt->shape);
    tt->shape->n_dim = (size_t)rank;
    tt->shape->dim = alloc((size_t)rank * sizeof *tt->shape->dim);
    for (int i = 0; i < rank; i++) {
        Onnx__TensorShapeProto__Dimension *d = alloc(sizeof *d);
        onnx__tensor_shape_proto__dimension__init(d);
        if (dims[i] < 0) {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            d->dim_param = str("N");
        } else {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            d->dim_value = dims[i];
        }
        tt->shape->dim[i] = d;
    }
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    v->type = tp;
    return v;
}

/* An attribute named `name` of type `type`, its value still to set. */
static inline Onnx__AttributeProto *attr_new(const char *name,
                                             Onnx__AttributeProto__AttributeType type)
{
    Onnx__AttributeProto *a = alloc(sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = str(name);
    a->has_type = 1;
    a->type = type;
    return a;
}

static inline Onnx__AttributeProto *attr_i(const char *name, int64_t v)
{
    Onnx__AttributeProto *a = attr_new(name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    a->has_i = 1;
    a->i = v;
    return a;
}

static inline Onnx__AttributeProto *attr_f(const char *name, float v)
{
    Onnx__AttributeProto *a = attr_new(name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    a->has_f = 1;
    a->f = v;
    return a;
}

static inline Onnx__AttributeProto *attr_is(const char *name, size_t n, const int64_t *v)
{
    Onnx__AttributeProto *a = attr_new(name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    a->n_ints = n;
    a->ints = alloc(n * sizeof *a->ints);
    memcpy(a->ints, v, n * sizeof *v);
    return a;
}

static inline Onnx__AttributeProto *attr_s(const char *name, const char *v)
{
    Onnx__AttributeProto *a = attr_new(name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
    a->has_s = 1;
    a->s.len = strlen(v);
    a->s.data = (uint8_t *)str(v);
    return a;
}

static inline Onnx__AttributeProto *attr_t(const char *name, Onnx__TensorProto *t)
{
    Onnx__AttributeProto *a = attr_new(name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
    a->t = t;
    return a;
}

/* node("Gemm", "fc1", "x,W,b", "h", attrs..., NULL): inputs and outputs comma-separated
 * ("" in a list is an omitted optional input). */
static inline Onnx__NodeProto *node(const char *op, const char *name, const char *ins, const char *outs,
                             ...)
{
    Onnx__NodeProto *n = alloc(sizeof *n);
    onnx__node_proto__init(n);
    n->op_type = str(op);
    n->name = str(name);
    const char *lists[2] = {ins, outs};
    for (int l = 0; l < 2; l++) {
        char **v = alloc(16 * sizeof *v);
        size_t k = 0;
        for (const char *p = lists[l]; *p && k < 16;) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            v[k] = alloc(len + 1);
            memcpy(v[k++], p, len);
            p += len + (e ? 1 : 0);
        }
        if (l == 0) {
            n->input = v;
            n->n_input = k;
        } else {
            n->output = v;
            n->n_output = k;
        }
    }
    n->attribute = alloc(8 * sizeof *n->attribute);
    va_list ap;
    va_start(ap, outs);
    for (Onnx__AttributeProto *a; (a = va_arg(ap, Onnx__AttributeProto *)) && n->n_attribute < 8;)
        n->attribute[n->n_attribute++] = a;
    va_end(ap);
    return n;
}

typedef struct graph {
    Onnx__NodeProto *nodes[16];
    Onnx__TensorProto *inits[16];
    Onnx__ValueInfoProto *ins[4], *outs[4];
    size_t n_nodes, n_inits, n_ins, n_outs;
} graph;

static char tmp_path[256];

/* Serialise g into `path`, or a temporary file when path is NULL (its first `keep` bytes when
 * keep > 0); the path. */
static inline const char *write_model(const graph *g, long keep, const char *path)
{
    Onnx__ModelProto mp;
    Onnx__GraphProto gp;
    Onnx__OperatorSetIdProto op;
    Onnx__OperatorSetIdProto *ops[1] = {&op};
    onnx__model_proto__init(&mp);
    onnx__graph_proto__init(&gp);
    onnx__operator_set_id_proto__init(&op);
    op.domain = str("");
    op.has_version = 1;
    op.version = 17;
    mp.has_ir_version = 1;
    mp.ir_version = 8;
    mp.producer_name = str("test_onnx");
    mp.n_opset_import = 1;
    mp.opset_import = ops;
    gp.name = str("g");
    gp.node = (Onnx__NodeProto **)g->nodes;
    gp.n_node = g->n_nodes;
    gp.initializer = (Onnx__TensorProto **)g->inits;
    gp.n_initializer = g->n_inits;
    gp.input = (Onnx__ValueInfoProto **)g->ins;
    gp.n_input = g->n_ins;
    gp.output = (Onnx__ValueInfoProto **)g->outs;
    gp.n_output = g->n_outs;
    mp.graph = &gp;
    size_t size = onnx__model_proto__get_packed_size(&mp);
    uint8_t *buf = alloc(size);
    onnx__model_proto__pack(&mp, buf);
    if (keep > 0 && (size_t)keep < size)
        size = (size_t)keep;
    const char *dir = getenv("TMPDIR");
    snprintf(tmp_path, sizeof tmp_path, "%s/npk_onnx_XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : mkstemp(tmp_path);
    if (fd < 0 || write(fd, buf, size) != (ssize_t)size || close(fd) != 0) {
        fprintf(stderr, "onnx_build: cannot write %s\n", path ? path : tmp_path);
        exit(2);
    }
    return path ? path : tmp_path;
}

/* Read g back; NULL (and err filled) on error. */
static inline npk_model *roundtrip(const graph *g, long keep, char *err, size_t n)
{
    npk_model *m;
    const char *path = write_model(g, keep, NULL);
    int rc = npk_model_read_file(path, &m, err, n);
    unlink(path);
    pool_free();
    return rc == 0 ? m : NULL;
}

#define F NPK_DT_FLOAT
#define ADD_NODE(g, n) ((g).nodes[(g).n_nodes++] = (n))
#define ADD_INIT(g, t) ((g).inits[(g).n_inits++] = (t))

#endif
