/* The ONNX reader: a ModelProto (protobuf-c, generated at build time from Debian's onnx.proto)
 * converted into npukit's model IR, checked and ordered; shapes are inferred by infer.c. Every
 * error names the file and, for a node, its index, name and op. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/checked.h"
#include "core/file.h"
#include "model/internal.h"
#include "onnx.pb-c.h"

/* Nesting deeper than this (subgraphs in attributes, type protos) is refused before protobuf-c
 * unpacks it, whose recursion has no limit of its own. */
#define ONNX_MAX_DEPTH 32
/* Files bigger than this are refused (the IR caps tensors at NPK_MODEL_MAX_ELEMS anyway). */
#define ONNX_MAX_FILE (UINT64_C(1) << 32)

static const char *const op_names[] = {
#define NPK_OP(id, name) name,
#include "model/ops.def"
#undef NPK_OP
};

const char *npk_op_name(npk_op op)
{
    return op < NPK_OP_COUNT ? op_names[op] : "?";
}

const char *npk_dtype_name(npk_dtype t)
{
    switch (t) {
    case NPK_DT_FLOAT: return "float32";
    case NPK_DT_UINT8: return "uint8";
    case NPK_DT_INT8: return "int8";
    case NPK_DT_INT32: return "int32";
    case NPK_DT_INT64: return "int64";
    case NPK_DT_BOOL: return "bool";
    case NPK_DT_FLOAT16: return "float16";
    case NPK_DT_DOUBLE: return "float64";
    case NPK_DT_BFLOAT16: return "bfloat16";
    default: return "undefined";
    }
}

size_t npk_dtype_size(npk_dtype t)
{
    switch (t) {
    case NPK_DT_UINT8: case NPK_DT_INT8: case NPK_DT_BOOL: return 1;
    case NPK_DT_FLOAT16: case NPK_DT_BFLOAT16: return 2;
    case NPK_DT_FLOAT: case NPK_DT_INT32: return 4;
    case NPK_DT_INT64: case NPK_DT_DOUBLE: return 8;
    default: return 0;
    }
}

const npk_attr *npk_node_attr(const npk_node *n, const char *name)
{
    for (size_t i = 0; i < n->n_attrs; i++)
        if (strcmp(n->attrs[i].name, name) == 0)
            return &n->attrs[i];
    return NULL;
}

int npk_model_fail(npk_reader *r, int node, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (node >= 0 && r->m && (size_t)node < r->m->n_nodes) {
        const npk_node *n = &r->m->nodes[node];
        snprintf(r->err, r->err_size, "%s: node %d '%s' (%s): %s", r->name, node, n->name,
                 npk_op_name(n->op), msg);
    } else {
        snprintf(r->err, r->err_size, "%s: %s", r->name, msg);
    }
    return -1;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s ? s : "") + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s ? s : "", n);
    return d;
}

/* ---- protobuf wire walk: the nesting depth, checked before unpacking ---- */

static int read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*p >= end)
            return -1;
        uint8_t b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return 0;
    }
    return -1;
}

/* Walks the fields of one message of type `d`; message-typed fields are entered. Malformed
 * wire data is left for protobuf-c to reject; only the depth is judged here. */
static int wire_depth_ok(const ProtobufCMessageDescriptor *d, const uint8_t *p, const uint8_t *end,
                         int depth)
{
    if (depth > ONNX_MAX_DEPTH)
        return 0;
    while (p < end) {
        uint64_t key, v;
        if (read_varint(&p, end, &key) != 0)
            return 1;
        switch (key & 7) {
        case 0:
            if (read_varint(&p, end, &v) != 0)
                return 1;
            break;
        case 1:
            if (end - p < 8)
                return 1;
            p += 8;
            break;
        case 5:
            if (end - p < 4)
                return 1;
            p += 4;
            break;
        case 2: {
            if (read_varint(&p, end, &v) != 0 || v > (uint64_t)(end - p))
                return 1;
            const ProtobufCFieldDescriptor *f =
                protobuf_c_message_descriptor_get_field(d, (unsigned)(key >> 3));
            if (f && f->type == PROTOBUF_C_TYPE_MESSAGE &&
                !wire_depth_ok(f->descriptor, p, p + v, depth + 1))
                return 0;
            p += v;
            break;
        }
        default:
            return 1;
        }
    }
    return 1;
}

/* ---- values by name ---- */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211u;
    return h;
}

int npk_model_find(npk_reader *r, const char *name)
{
    if (!r->slots)
        return -1;
    for (size_t i = hash_str(name) & (r->n_slots - 1);; i = (i + 1) & (r->n_slots - 1)) {
        int v = r->slots[i];
        if (v < 0)
            return -1;
        if (strcmp(r->m->values[v].name, name) == 0)
            return v;
    }
}

/* A new value named `name` (must not exist yet); its index, or -1 out of memory. */
int npk_model_add_value(npk_reader *r, const char *name)
{
    npk_model *m = r->m;
    if (m->n_values == r->cap_values) {
        size_t cap = r->cap_values ? 2 * r->cap_values : 16;
        npk_value *nv = realloc(m->values, cap * sizeof *nv);
        if (!nv)
            return -1;
        m->values = nv;
        r->cap_values = cap;
    }
    if (2 * (m->n_values + 1) > r->n_slots) {
        size_t ns = r->n_slots ? 2 * r->n_slots : 64;
        int *slots = malloc(ns * sizeof *slots);
        if (!slots)
            return -1;
        for (size_t i = 0; i < ns; i++)
            slots[i] = -1;
        free(r->slots);
        r->slots = slots;
        r->n_slots = ns;
        for (size_t v = 0; v < m->n_values; v++) {
            size_t i = hash_str(m->values[v].name) & (ns - 1);
            while (slots[i] >= 0)
                i = (i + 1) & (ns - 1);
            slots[i] = (int)v;
        }
    }
    npk_value *val = &m->values[m->n_values];
    memset(val, 0, sizeof *val);
    val->producer = -1;
    val->name = dup_str(name);
    if (!val->name)
        return -1;
    size_t i = hash_str(name) & (r->n_slots - 1);
    while (r->slots[i] >= 0)
        i = (i + 1) & (r->n_slots - 1);
    r->slots[i] = (int)m->n_values;
    return (int)m->n_values++;
}

/* Set a value's shape from dims, checking each dimension and the element count. */
int npk_model_set_shape(npk_reader *r, int node, npk_value *v, int rank, const int64_t *dims)
{
    if (rank < 0 || rank > NPK_MODEL_MAX_RANK)
        return npk_model_fail(r, node, "'%s' has rank %d (at most %d)", v->name, rank,
                              NPK_MODEL_MAX_RANK);
    /* The bound holds for the product of the non-zero dimensions too, so that no product of
     * some of them (Flatten's, a stride) can overflow even when another dimension is 0. */
    uint64_t elems = 1, nonzero = 1;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0)
            return npk_model_fail(r, node, "'%s' has a negative dimension %lld", v->name,
                                  (long long)dims[i]);
        elems *= (uint64_t)dims[i];   /* no wrap: at most nonzero */
        if (dims[i] && (!npk_mul_u64_ok(nonzero, (uint64_t)dims[i], &nonzero) ||
                        nonzero > NPK_MODEL_MAX_ELEMS))
            return npk_model_fail(r, node, "'%s' is too large: more than 2^40 elements", v->name);
    }
    v->rank = rank;
    if (rank)
        memcpy(v->dims, dims, (size_t)rank * sizeof *dims);
    v->elems = elems;
    return 0;
}

static int supported_dtype(int32_t t)
{
    return npk_dtype_size((npk_dtype)t) != 0;
}

/* An initializer or a Constant's tensor into value v: type, shape and little-endian data. */
int npk_model_set_tensor(npk_reader *r, int node, npk_value *v, const void *tensor)
{
    const Onnx__TensorProto *t = tensor;
    if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        return npk_model_fail(r, node, "tensor '%s' keeps its data in an external file, which "
                              "npukit does not read", v->name);
    if (!t->has_data_type || !supported_dtype(t->data_type))
        return npk_model_fail(r, node, "tensor '%s' has element type %d, which npukit does not "
                              "hold", v->name, t->has_data_type ? (int)t->data_type : 0);
    if (t->n_dims > NPK_MODEL_MAX_RANK)
        return npk_model_fail(r, node, "tensor '%s' has rank %zu (at most %d)", v->name,
                              t->n_dims, NPK_MODEL_MAX_RANK);
    if (npk_model_set_shape(r, node, v, (int)t->n_dims, t->dims) != 0)
        return -1;
    v->dtype = (npk_dtype)t->data_type;
    size_t es = npk_dtype_size(v->dtype);
    uint64_t bytes = v->elems * es;     /* no wrap: elems <= 2^40, es <= 8 */
    size_t have;
    if (t->has_raw_data) {
        have = t->raw_data.len / es;
        if (t->raw_data.len != bytes)
            goto count;
    } else {
        switch (v->dtype) {
        case NPK_DT_FLOAT: have = t->n_float_data; break;
        case NPK_DT_DOUBLE: have = t->n_double_data; break;
        case NPK_DT_INT64: have = t->n_int64_data; break;
        default: have = t->n_int32_data; break;
        }
        if (have != v->elems)
            goto count;
    }
    v->data = malloc(bytes ? bytes : 1);
    if (!v->data)
        return npk_model_fail(r, node, "out of memory for tensor '%s'", v->name);
    if (t->has_raw_data) {
        memcpy(v->data, t->raw_data.data, bytes);   /* ONNX raw data is little-endian, as is the host */
        return 0;
    }
    for (uint64_t i = 0; i < v->elems; i++) {
        uint8_t *d = (uint8_t *)v->data + i * es;
        switch (v->dtype) {
        case NPK_DT_FLOAT: memcpy(d, &t->float_data[i], 4); break;
        case NPK_DT_DOUBLE: memcpy(d, &t->double_data[i], 8); break;
        case NPK_DT_INT64: memcpy(d, &t->int64_data[i], 8); break;
        case NPK_DT_INT32: memcpy(d, &t->int32_data[i], 4); break;
        case NPK_DT_FLOAT16: case NPK_DT_BFLOAT16: {
            uint16_t h = (uint16_t)t->int32_data[i];
            memcpy(d, &h, 2);
            break;
        }
        default: *d = (uint8_t)t->int32_data[i]; break;
        }
    }
    return 0;
count:
    return npk_model_fail(r, node, "tensor '%s' holds %zu elements, its shape says %llu", v->name,
                          have, (unsigned long long)v->elems);
}

/* A graph input's or output's declared type and shape; symbolic dimensions are taken as 1. */
static int set_value_info(npk_reader *r, npk_value *v, const Onnx__ValueInfoProto *vi)
{
    const Onnx__TypeProto *tp = vi->type;
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
        return npk_model_fail(r, -1, "graph input or output '%s' is not a tensor", v->name);
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    if (!tt->has_elem_type || !supported_dtype(tt->elem_type))
        return npk_model_fail(r, -1, "'%s' has element type %d, which npukit does not hold",
                              v->name, tt->has_elem_type ? (int)tt->elem_type : 0);
    if (!tt->shape)
        return npk_model_fail(r, -1, "'%s' has no shape; npukit needs static shapes", v->name);
    size_t rank = tt->shape->n_dim;
    if (rank > NPK_MODEL_MAX_RANK)
        return npk_model_fail(r, -1, "'%s' has rank %zu (at most %d)", v->name, rank,
                              NPK_MODEL_MAX_RANK);
    int64_t dims[NPK_MODEL_MAX_RANK];
    for (size_t i = 0; i < rank; i++) {
        const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            dims[i] = d->dim_value;
        } else {
            dims[i] = 1;
            v->sym_batch = true;
        }
    }
    v->dtype = (npk_dtype)tt->elem_type;
    return npk_model_set_shape(r, -1, v, (int)rank, dims);
}

static int convert_attrs(npk_reader *r, int idx, npk_node *n, const Onnx__NodeProto *np)
{
    n->attrs = calloc(np->n_attribute ? np->n_attribute : 1, sizeof *n->attrs);
    if (!n->attrs)
        return npk_model_fail(r, idx, "out of memory");
    for (size_t i = 0; i < np->n_attribute; i++) {
        const Onnx__AttributeProto *a = np->attribute[i];
        npk_attr *d = &n->attrs[n->n_attrs++];
        d->name = dup_str(a->name);
        if (!d->name)
            return npk_model_fail(r, idx, "out of memory");
        switch (a->has_type ? a->type : ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED) {
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
            d->kind = NPK_ATTR_INT;
            d->i = a->i;
            break;
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
            d->kind = NPK_ATTR_FLOAT;
            d->f = a->f;
            break;
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
            d->kind = NPK_ATTR_INTS;
            d->n = a->n_ints;
            d->ints = malloc((a->n_ints ? a->n_ints : 1) * sizeof *d->ints);
            if (!d->ints)
                return npk_model_fail(r, idx, "out of memory");
            if (a->n_ints)
                memcpy(d->ints, a->ints, a->n_ints * sizeof *d->ints);
            break;
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
            d->kind = NPK_ATTR_FLOATS;
            d->n = a->n_floats;
            d->floats = malloc((a->n_floats ? a->n_floats : 1) * sizeof *d->floats);
            if (!d->floats)
                return npk_model_fail(r, idx, "out of memory");
            if (a->n_floats)
                memcpy(d->floats, a->floats, a->n_floats * sizeof *d->floats);
            break;
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
            d->kind = NPK_ATTR_STRING;
            d->s = malloc(a->s.len + 1);
            if (!d->s)
                return npk_model_fail(r, idx, "out of memory");
            if (a->s.len)
                memcpy(d->s, a->s.data, a->s.len);
            d->s[a->s.len] = 0;
            break;
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
            d->kind = NPK_ATTR_TENSOR;   /* Constant's value: read by infer.c from the proto */
            break;
        default:
            d->kind = NPK_ATTR_OTHER;
            break;
        }
    }
    return 0;
}

static int op_from_name(const Onnx__NodeProto *np)
{
    if (np->domain && np->domain[0] && strcmp(np->domain, "ai.onnx") != 0)
        return -1;
    for (int i = 0; i < NPK_OP_COUNT; i++)
        if (strcmp(np->op_type ? np->op_type : "", op_names[i]) == 0)
            return i;
    return -1;
}

/* A graph output's declared element type and fixed dimensions (symbolic ones and an absent
 * type or shape say nothing) must be what inference computed. */
static int check_declared(npk_reader *r, const npk_value *v, const Onnx__ValueInfoProto *vi)
{
    const Onnx__TypeProto *tp = vi->type;
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
        return 0;
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    if (tt->has_elem_type && tt->elem_type != (int32_t)v->dtype)
        return npk_model_fail(r, -1, "graph output '%s' is declared with element type %d but "
                              "computes %s", v->name, (int)tt->elem_type,
                              npk_dtype_name(v->dtype));
    if (!tt->shape)
        return 0;
    bool same = tt->shape->n_dim == (size_t)v->rank;
    for (size_t d = 0; same && d < tt->shape->n_dim; d++)
        same = tt->shape->dim[d]->value_case !=
                   ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ||
               tt->shape->dim[d]->dim_value == v->dims[d];
    if (!same)
        return npk_model_fail(r, -1, "graph output '%s' is declared with another shape than "
                              "the %d-D one inferred for it", v->name, v->rank);
    return 0;
}

static int convert(npk_reader *r, const Onnx__ModelProto *mp)
{
    npk_model *m = r->m;
    if (!mp->graph)
        return npk_model_fail(r, -1, "not an ONNX model: no graph");
    m->ir_version = mp->has_ir_version ? mp->ir_version : 0;
    m->producer = dup_str(mp->producer_name);
    for (size_t i = 0; i < mp->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *o = mp->opset_import[i];
        if ((!o->domain || !o->domain[0] || strcmp(o->domain, "ai.onnx") == 0) && o->has_version)
            m->opset = o->version;
    }
    if (m->opset == 0)
        return npk_model_fail(r, -1, "not an ONNX model: no opset_import for the default domain");
    const Onnx__GraphProto *g = mp->graph;
    if (g->n_node > 1000000 || g->n_initializer > 1000000)
        return npk_model_fail(r, -1, "the graph has %zu nodes and %zu initializers (at most "
                              "1000000 each)", g->n_node, g->n_initializer);
    if (g->n_sparse_initializer)
        return npk_model_fail(r, -1, "sparse initializers are not supported");
    for (size_t i = 0; i < g->n_initializer; i++) {
        const char *name = g->initializer[i]->name ? g->initializer[i]->name : "";
        if (!name[0])
            return npk_model_fail(r, -1, "initializer %zu has no name", i);
        if (npk_model_find(r, name) >= 0)
            return npk_model_fail(r, -1, "initializer '%s' is defined twice", name);
        int v = npk_model_add_value(r, name);
        if (v < 0)
            return npk_model_fail(r, -1, "out of memory");
        if (npk_model_set_tensor(r, -1, &m->values[v], g->initializer[i]) != 0)
            return -1;
    }
    m->inputs = malloc((g->n_input + 1) * sizeof *m->inputs);
    m->outputs = malloc((g->n_output + 1) * sizeof *m->outputs);
    if (!m->inputs || !m->outputs)
        return npk_model_fail(r, -1, "out of memory");
    for (size_t i = 0; i < g->n_input; i++) {
        const char *name = g->input[i]->name ? g->input[i]->name : "";
        if (npk_model_find(r, name) >= 0)
            continue;   /* an initializer listed as an input (IR < 4): a constant */
        int v = npk_model_add_value(r, name);
        if (v < 0)
            return npk_model_fail(r, -1, "out of memory");
        if (set_value_info(r, &m->values[v], g->input[i]) != 0)
            return -1;
        m->values[v].is_input = true;
        m->inputs[m->n_inputs++] = v;
    }
    if (m->n_inputs == 0)
        return npk_model_fail(r, -1, "the graph has no inputs");
    m->nodes = calloc(g->n_node ? g->n_node : 1, sizeof *m->nodes);
    if (!m->nodes)
        return npk_model_fail(r, -1, "out of memory");
    if (npk_model_order(r, g) != 0)
        return -1;
    for (size_t i = 0; i < g->n_output; i++) {
        const char *name = g->output[i]->name ? g->output[i]->name : "";
        int v = npk_model_find(r, name);
        if (v < 0)
            return npk_model_fail(r, -1, "graph output '%s' is computed by no node", name);
        if (check_declared(r, &m->values[v], g->output[i]) != 0)
            return -1;
        m->values[v].is_output = true;
        m->outputs[m->n_outputs++] = v;
    }
    if (m->n_outputs == 0)
        return npk_model_fail(r, -1, "the graph has no outputs");
    return 0;
}

/* Nodes into m->nodes in topological order (Kahn's algorithm over the file's nodes), their
 * inputs and outputs bound to values; then shapes inferred node by node. */
int npk_model_order(npk_reader *r, const void *graph)
{
    const Onnx__GraphProto *g = graph;
    npk_model *m = r->m;
    size_t n = g->n_node;
    size_t *missing = calloc(n ? n : 1, sizeof *missing);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    int rc = -1;
    if (!missing || !order) {
        npk_model_fail(r, -1, "out of memory");
        goto out;
    }
    /* Each output name's producer first, so inputs can be counted as missing or present. */
    for (size_t i = 0; i < n; i++) {
        const Onnx__NodeProto *np = g->node[i];
        if (op_from_name(np) < 0) {
            npk_model_fail(r, -1, "node %zu '%s' (%s%s%s): operator not supported (docs/models.md "
                           "lists the supported operators)", i, np->name ? np->name : "",
                           np->domain && np->domain[0] ? np->domain : "",
                           np->domain && np->domain[0] ? "." : "", np->op_type ? np->op_type : "");
            goto out;
        }
        for (size_t o = 0; o < np->n_output; o++) {
            const char *name = np->output[o] ? np->output[o] : "";
            if (!name[0])
                continue;
            if (npk_model_find(r, name) >= 0) {
                npk_model_fail(r, -1, "node %zu '%s' (%s): output '%s' is already defined", i,
                               np->name ? np->name : "", np->op_type, name);
                goto out;
            }
            int v = npk_model_add_value(r, name);
            if (v < 0) {
                npk_model_fail(r, -1, "out of memory");
                goto out;
            }
            m->values[v].producer = -2 - (int)i;   /* file index, until ordered */
        }
    }
    for (size_t i = 0; i < n; i++) {
        const Onnx__NodeProto *np = g->node[i];
        for (size_t k = 0; k < np->n_input; k++) {
            const char *name = np->input[k] ? np->input[k] : "";
            if (!name[0])
                continue;
            int v = npk_model_find(r, name);
            if (v < 0) {
                npk_model_fail(r, -1, "node %zu '%s' (%s): input '%s' is defined nowhere", i,
                               np->name ? np->name : "", np->op_type, name);
                goto out;
            }
            if (m->values[v].producer <= -2)
                missing[i]++;
        }
    }
    /* Kahn's algorithm with a queue seeded in file order; consumers of each value in CSR
     * form (first[v] .. first[v + 1]). */
    size_t nv = m->n_values, edges = 0, head = 0, done = 0;
    size_t *first = calloc(nv + 1, sizeof *first);
    for (size_t i = 0; i < n; i++)
        edges += g->node[i]->n_input;
    size_t *cons = malloc((edges ? edges : 1) * sizeof *cons);
    if (!first || !cons) {
        free(first);
        free(cons);
        npk_model_fail(r, -1, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < g->node[i]->n_input; k++) {
            const char *name = g->node[i]->input[k];
            int v = name && name[0] ? npk_model_find(r, name) : -1;
            if (v >= 0)
                first[v + 1]++;
        }
    for (size_t v = 0; v < nv; v++)
        first[v + 1] += first[v];
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < g->node[i]->n_input; k++) {
            const char *name = g->node[i]->input[k];
            int v = name && name[0] ? npk_model_find(r, name) : -1;
            if (v >= 0)
                cons[first[v]++] = i;   /* first[v] ends as the start of v + 1 */
        }
    for (size_t v = nv; v > 0; v--)
        first[v] = first[v - 1];
    first[0] = 0;
    for (size_t i = 0; i < n; i++)
        if (!missing[i])
            order[done++] = i;
    for (; head < done; head++) {
        const Onnx__NodeProto *np = g->node[order[head]];
        for (size_t o = 0; o < np->n_output; o++) {
            int v = np->output[o] && np->output[o][0] ? npk_model_find(r, np->output[o]) : -1;
            for (size_t c = v >= 0 ? first[v] : 0; v >= 0 && c < first[v + 1]; c++)
                if (--missing[cons[c]] == 0)
                    order[done++] = cons[c];
        }
    }
    free(first);
    free(cons);
    if (done < n) {
        size_t i;
        for (i = 0; i < n && !missing[i]; i++)
            ;
        npk_model_fail(r, -1, "node %zu '%s' (%s): the graph has a cycle through it", i,
                       g->node[i]->name ? g->node[i]->name : "", g->node[i]->op_type);
        goto out;
    }
    for (size_t k = 0; k < n; k++) {
        const Onnx__NodeProto *np = g->node[order[k]];
        npk_node *d = &m->nodes[m->n_nodes++];
        d->op = (npk_op)op_from_name(np);
        d->name = dup_str(np->name);
        d->in = malloc((np->n_input + 1) * sizeof *d->in);
        d->out = malloc((np->n_output + 1) * sizeof *d->out);
        if (!d->name || !d->in || !d->out) {
            npk_model_fail(r, -1, "out of memory");
            goto out;
        }
        int idx = (int)(m->n_nodes - 1);
        d->n_in = (int)np->n_input;
        d->n_out = (int)np->n_output;
        for (size_t i = 0; i < np->n_input; i++)
            d->in[i] = np->input[i] && np->input[i][0] ? npk_model_find(r, np->input[i]) : -1;
        for (size_t i = 0; i < np->n_output; i++) {
            d->out[i] = np->output[i] && np->output[i][0] ? npk_model_find(r, np->output[i]) : -1;
            if (d->out[i] >= 0)
                m->values[d->out[i]].producer = idx;
        }
        if (convert_attrs(r, idx, d, np) != 0 || npk_model_infer(r, idx, np) != 0)
            goto out;
    }
    rc = 0;
out:
    free(missing);
    free(order);
    return rc;
}

int npk_model_read(const void *buf, size_t size, const char *name, npk_model **out, char *err,
                   size_t err_size)
{
    npk_reader r = {.name = name ? name : "model", .err = err, .err_size = err_size};
    *out = NULL;
    if (err_size)
        err[0] = 0;
    if (size > ONNX_MAX_FILE)
        return npk_model_fail(&r, -1, "too large for an ONNX model (%zu bytes)", size);
    if (!wire_depth_ok(&onnx__model_proto__descriptor, buf, (const uint8_t *)buf + size, 0))
        return npk_model_fail(&r, -1, "not a usable ONNX model: messages nested more than %d "
                              "deep", ONNX_MAX_DEPTH);
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, size, buf);
    if (!mp)
        return npk_model_fail(&r, -1, "not an ONNX model: the protobuf data is malformed or "
                              "truncated");
    r.m = calloc(1, sizeof *r.m);
    int rc = r.m ? convert(&r, mp) : npk_model_fail(&r, -1, "out of memory");
    onnx__model_proto__free_unpacked(mp, NULL);
    free(r.slots);
    if (rc != 0) {
        npk_model_free(r.m);
        return -1;
    }
    *out = r.m;
    return 0;
}

int npk_model_read_file(const char *path, npk_model **out, char *err, size_t err_size)
{
    uint8_t *data;
    size_t size;
    *out = NULL;
    if (npk_file_read(path, 0, &data, &size, err, err_size) != NPK_OK)
        return -1;
    int rc = npk_model_read(data, size, path, out, err, err_size);
    free(data);
    return rc;
}

void npk_model_free(npk_model *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_values; i++) {
        free(m->values[i].name);
        free(m->values[i].data);
    }
    for (size_t i = 0; i < m->n_nodes; i++) {
        npk_node *n = &m->nodes[i];
        for (size_t a = 0; a < n->n_attrs; a++) {
            free(n->attrs[a].name);
            free(n->attrs[a].ints);
            free(n->attrs[a].floats);
            free(n->attrs[a].s);
        }
        free(n->attrs);
        free(n->name);
        free(n->in);
        free(n->out);
    }
    free(m->values);
    free(m->nodes);
    free(m->inputs);
    free(m->outputs);
    free(m->producer);
    free(m);
}
