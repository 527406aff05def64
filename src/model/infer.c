/* Shape and type inference for the operators of ops.def, as the ONNX operator specification
 * defines them (docs/models.md states each rule), with parameter and MAC counts; and the
 * cheap constant folding (Constant, Identity, Reshape, Flatten, Transpose, QuantizeLinear and
 * DequantizeLinear of constants). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/checked.h"
#include "model/internal.h"
#include "onnx.pb-c.h"

typedef struct ctx {
    npk_reader *r;
    int idx;
    npk_node *n;
    npk_model *m;
} ctx;

#define FAIL(c, ...) npk_model_fail((c)->r, (c)->idx, __VA_ARGS__)

static npk_value *in(ctx *c, int k)
{
    return k < c->n->n_in && c->n->in[k] >= 0 ? &c->m->values[c->n->in[k]] : NULL;
}

static npk_value *out(ctx *c, int k)
{
    return k < c->n->n_out && c->n->out[k] >= 0 ? &c->m->values[c->n->out[k]] : NULL;
}

static int64_t attr_int(ctx *c, const char *name, int64_t def)
{
    const npk_attr *a = npk_node_attr(c->n, name);
    return a && a->kind == NPK_ATTR_INT ? a->i : def;
}

/* An ints attribute of exactly `count` entries (count < 0: any), or NULL when absent. */
static int attr_ints(ctx *c, const char *name, int count, const int64_t **v, size_t *n)
{
    const npk_attr *a = npk_node_attr(c->n, name);
    *v = NULL;
    *n = 0;
    if (!a)
        return 0;
    if (a->kind != NPK_ATTR_INTS || (count >= 0 && a->n != (size_t)count))
        return FAIL(c, "attribute '%s' must be a list of %d integers", name, count);
    *v = a->ints;
    *n = a->n;
    return 0;
}

static bool is_float(npk_dtype t)
{
    return t == NPK_DT_FLOAT || t == NPK_DT_DOUBLE || t == NPK_DT_FLOAT16 || t == NPK_DT_BFLOAT16;
}

static bool is_q8(npk_dtype t)
{
    return t == NPK_DT_INT8 || t == NPK_DT_UINT8;
}

static void shape_str(const npk_value *v, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < v->rank && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? "," : "",
                                 (long long)v->dims[i]);
    if (used < size)
        snprintf(buf + used, size - used, "]");
}

/* Inputs between lo and hi (counting omitted optional ones), the first `need` present. */
static int check_arity(ctx *c, int lo, int hi, int need, int max_out)
{
    if (c->n->n_in < lo || c->n->n_in > hi)
        return FAIL(c, "takes %d to %d inputs, has %d", lo, hi, c->n->n_in);
    for (int k = 0; k < need; k++)
        if (!in(c, k))
            return FAIL(c, "input %d is required", k);
    if (c->n->n_out < 1 || c->n->n_out > max_out || !out(c, 0))
        return FAIL(c, "has %d outputs (1 to %d, the first named)", c->n->n_out, max_out);
    return 0;
}

static int set_out(ctx *c, int k, npk_dtype t, int rank, const int64_t *dims)
{
    npk_value *o = out(c, k);
    if (!o)
        return 0;
    o->dtype = t;
    return npk_model_set_shape(c->r, c->idx, o, rank, dims);
}

static int same_as(ctx *c, const npk_value *x)
{
    return set_out(c, 0, x->dtype, x->rank, x->dims);
}

static int norm_axis(ctx *c, int64_t axis, int rank, int extra, int *out_axis)
{
    *out_axis = 0;
    if (axis < -(int64_t)rank || axis >= rank + extra)
        return FAIL(c, "axis %lld is out of range for rank %d", (long long)axis, rank);
    *out_axis = (int)(axis < 0 ? axis + rank : axis);
    return 0;
}

static int mul_ok(ctx *c, uint64_t *acc, uint64_t f)
{
    if (!npk_mul_u64_ok(*acc, f, acc))
        return FAIL(c, "its MAC count overflows 64 bits");
    return 0;
}

/* ONNX multidirectional (NumPy) broadcasting of a and b into dims/rank. */
static int broadcast(ctx *c, const npk_value *a, const npk_value *b, int64_t *dims, int *rank)
{
    *rank = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < *rank; i++) {
        int ia = a->rank - *rank + i, ib = b->rank - *rank + i;
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1) {
            char sa[128], sb[128];
            shape_str(a, sa, sizeof sa);
            shape_str(b, sb, sizeof sb);
            return FAIL(c, "shapes %s ('%s') and %s ('%s') do not broadcast", sa, a->name, sb,
                        b->name);
        }
        dims[i] = da == 1 ? db : da;
    }
    return 0;
}

/* b unidirectionally broadcastable to the shape (rank, dims): right-aligned, equal or 1. */
static int unidir(ctx *c, const npk_value *b, int rank, const int64_t *dims, const char *what)
{
    bool ok = b->rank <= rank;
    for (int i = 0; ok && i < b->rank; i++) {
        int64_t d = b->dims[b->rank - 1 - i];
        ok = d == 1 || d == dims[rank - 1 - i];
    }
    if (!ok) {
        char s[128];
        shape_str(b, s, sizeof s);
        return FAIL(c, "%s '%s' of shape %s does not broadcast to the %s", what, b->name, s,
                    "output");
    }
    return 0;
}

/* NumPy matmul of a and b (1-D operands promoted and their dimension dropped again). */
static int matmul_shape(ctx *c, const npk_value *a, const npk_value *b, npk_dtype t)
{
    if (a->rank < 1 || b->rank < 1)
        return FAIL(c, "MatMul operands must have rank 1 or more");
    int64_t m = a->rank > 1 ? a->dims[a->rank - 2] : 1, k = a->dims[a->rank - 1];
    int64_t k2 = b->rank > 1 ? b->dims[b->rank - 2] : b->dims[0];
    int64_t nn = b->rank > 1 ? b->dims[b->rank - 1] : 1;
    if (k != k2) {
        char sa[128], sb[128];
        shape_str(a, sa, sizeof sa);
        shape_str(b, sb, sizeof sb);
        return FAIL(c, "inner dimensions differ: '%s' %s and '%s' %s", a->name, sa, b->name, sb);
    }
    npk_value ba = *a, bb = *b;   /* batch parts */
    ba.rank = a->rank > 2 ? a->rank - 2 : 0;
    bb.rank = b->rank > 2 ? b->rank - 2 : 0;
    int64_t dims[NPK_MODEL_MAX_RANK + 2];
    int rank;
    if (broadcast(c, &ba, &bb, dims, &rank) != 0)
        return -1;
    uint64_t macs = 1;
    for (int i = 0; i < rank; i++)
        if (mul_ok(c, &macs, (uint64_t)dims[i]) != 0)
            return -1;
    if (a->rank > 1)
        dims[rank++] = m;
    if (b->rank > 1)
        dims[rank++] = nn;
    if (mul_ok(c, &macs, (uint64_t)m) || mul_ok(c, &macs, (uint64_t)nn) || mul_ok(c, &macs, (uint64_t)k))
        return -1;
    c->n->macs = macs;
    return set_out(c, 0, t, rank, dims);
}

static int infer_gemm(ctx *c)
{
    const npk_value *a = in(c, 0), *b = in(c, 1), *cc = in(c, 2);
    if (a->rank != 2 || b->rank != 2)
        return FAIL(c, "A and B must be matrices (ranks %d and %d)", a->rank, b->rank);
    if (a->dtype != b->dtype)
        return FAIL(c, "A is %s but B is %s", npk_dtype_name(a->dtype), npk_dtype_name(b->dtype));
    bool ta = attr_int(c, "transA", 0) != 0, tb = attr_int(c, "transB", 0) != 0;
    int64_t m = a->dims[ta ? 1 : 0], k = a->dims[ta ? 0 : 1];
    int64_t k2 = b->dims[tb ? 1 : 0], nn = b->dims[tb ? 0 : 1];
    if (k != k2)
        return FAIL(c, "inner dimensions differ: A gives K=%lld, B gives K=%lld", (long long)k,
                    (long long)k2);
    int64_t dims[2] = {m, nn};
    if (cc && unidir(c, cc, 2, dims, "C") != 0)
        return -1;
    uint64_t macs = (uint64_t)m;
    if (mul_ok(c, &macs, (uint64_t)nn) || mul_ok(c, &macs, (uint64_t)k))
        return -1;
    c->n->macs = macs;
    return set_out(c, 0, a->dtype, 2, dims);
}

/* The 2-D window arithmetic shared by Conv, QLinearConv and the pools: X is (N, C, H, W), the
 * window kh x kw; the output's H and W into oh/ow. */
static int window(ctx *c, const npk_value *x, const int64_t *kernel, bool pool, int64_t *oh,
                  int64_t *ow)
{
    const int64_t *strides, *pads, *dil;
    size_t ns, np, nd;
    if (x->rank != 4)
        return FAIL(c, "only 2-D windows: X must have rank 4 (N, C, H, W), has rank %d", x->rank);
    if (attr_ints(c, "strides", 2, &strides, &ns) || attr_ints(c, "pads", 4, &pads, &np) ||
        attr_ints(c, "dilations", 2, &dil, &nd))
        return -1;
    const npk_attr *ap = npk_node_attr(c->n, "auto_pad");
    const char *auto_pad = ap && ap->kind == NPK_ATTR_STRING ? ap->s : "NOTSET";
    bool ceil_mode = pool && attr_int(c, "ceil_mode", 0) != 0;
    for (int d = 0; d < 2; d++) {
        int64_t s = strides ? strides[d] : 1, dl = dil ? dil[d] : 1, k = kernel[d];
        int64_t pb = pads ? pads[d] : 0, pe = pads ? pads[d + 2] : 0, size = x->dims[2 + d];
        if (s < 1 || dl < 1 || k < 1 || pb < 0 || pe < 0 || s > (1 << 30) || dl > (1 << 30) ||
            k > (1 << 30) || pb > (1 << 30) || pe > (1 << 30))
            return FAIL(c, "window attributes out of range (kernel %lld, stride %lld, dilation "
                        "%lld, pads %lld/%lld)", (long long)k, (long long)s, (long long)dl,
                        (long long)pb, (long long)pe);
        int64_t eff = dl * (k - 1) + 1, o;
        if (strcmp(auto_pad, "SAME_UPPER") == 0 || strcmp(auto_pad, "SAME_LOWER") == 0) {
            o = (size + s - 1) / s;
        } else if (strcmp(auto_pad, "VALID") == 0 || strcmp(auto_pad, "NOTSET") == 0) {
            if (auto_pad[0] == 'V')
                pb = pe = 0;
            int64_t span = size + pb + pe - eff;
            if (span < 0)
                return FAIL(c, "the window (%lld with dilation) is larger than the padded input "
                            "(%lld)", (long long)eff, (long long)(size + pb + pe));
            o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
            if (ceil_mode && (o - 1) * s >= size + pb)
                o--;   /* the last window must start inside the input or its leading pad */
        } else {
            return FAIL(c, "auto_pad '%s' is not NOTSET, VALID, SAME_UPPER or SAME_LOWER",
                        auto_pad);
        }
        *(d ? ow : oh) = o;
    }
    return 0;
}

/* Conv and QLinearConv: X, W and an optional bias, by their input positions. */
static int infer_conv(ctx *c, int xi, int wi, int bi, npk_dtype t)
{
    const npk_value *x = in(c, xi), *w = in(c, wi), *b = in(c, bi);
    if (w->rank != 4)
        return FAIL(c, "only 2-D convolution: W must have rank 4, has rank %d", w->rank);
    int64_t group = attr_int(c, "group", 1);
    const int64_t *ks;
    size_t nk;
    if (attr_ints(c, "kernel_shape", 2, &ks, &nk) != 0)
        return -1;
    if (ks && (ks[0] != w->dims[2] || ks[1] != w->dims[3]))
        return FAIL(c, "kernel_shape %lldx%lld differs from W's %lldx%lld", (long long)ks[0],
                    (long long)ks[1], (long long)w->dims[2], (long long)w->dims[3]);
    int64_t oh, ow;
    if (window(c, x, w->dims + 2, false, &oh, &ow) != 0)
        return -1;
    if (group < 1 || x->dims[1] % group != 0 || w->dims[0] % group != 0 ||
        w->dims[1] != x->dims[1] / group)
        return FAIL(c, "channels do not match: X has %lld, W expects %lld per group in %lld "
                    "groups", (long long)x->dims[1], (long long)w->dims[1], (long long)group);
    if (b && (b->rank != 1 || b->dims[0] != w->dims[0]))
        return FAIL(c, "bias '%s' must have shape [%lld]", b->name, (long long)w->dims[0]);
    int64_t dims[4] = {x->dims[0], w->dims[0], oh, ow};
    uint64_t macs = (uint64_t)dims[0];
    for (int i = 1; i < 4; i++)
        if (mul_ok(c, &macs, (uint64_t)dims[i]))
            return -1;
    if (mul_ok(c, &macs, (uint64_t)w->dims[1]) || mul_ok(c, &macs, (uint64_t)w->dims[2]) ||
        mul_ok(c, &macs, (uint64_t)w->dims[3]))
        return -1;
    c->n->macs = macs;
    return set_out(c, 0, t, 4, dims);
}

static int infer_pool(ctx *c)
{
    const npk_value *x = in(c, 0);
    const int64_t *ks;
    size_t nk;
    if (attr_ints(c, "kernel_shape", 2, &ks, &nk) != 0)
        return -1;
    if (!ks)
        return FAIL(c, "attribute 'kernel_shape' (2 integers) is required");
    int64_t oh, ow;
    if (window(c, x, ks, true, &oh, &ow) != 0)
        return -1;
    int64_t dims[4] = {x->dims[0], x->dims[1], oh, ow};
    if (set_out(c, 0, x->dtype, 4, dims) != 0)
        return -1;
    return set_out(c, 1, NPK_DT_INT64, 4, dims);   /* MaxPool's optional Indices */
}

static int infer_layer_norm(ctx *c)
{
    const npk_value *x = in(c, 0), *scale = in(c, 1), *bias = in(c, 2);
    int axis;
    if (norm_axis(c, attr_int(c, "axis", -1), x->rank, 0, &axis) != 0)
        return -1;
    int nrank = x->rank - axis;
    if (unidir(c, scale, nrank, x->dims + axis, "Scale") != 0 ||
        (bias && unidir(c, bias, nrank, x->dims + axis, "B") != 0))
        return -1;
    int64_t stat[NPK_MODEL_MAX_RANK];
    for (int i = 0; i < x->rank; i++)
        stat[i] = i < axis ? x->dims[i] : 1;
    if (same_as(c, x) != 0 || set_out(c, 1, NPK_DT_FLOAT, x->rank, stat) != 0)
        return -1;
    return set_out(c, 2, NPK_DT_FLOAT, x->rank, stat);
}

/* ReduceMean with axes from the attribute (opset < 18) or a constant input (opset 18). */
static int infer_reduce_mean(ctx *c)
{
    const npk_value *x = in(c, 0), *ax = in(c, 1);
    const int64_t *axes = NULL;
    size_t na = 0;
    if (ax) {
        if (!ax->data || ax->dtype != NPK_DT_INT64 || ax->rank != 1)
            return FAIL(c, "axes '%s' must be a constant 1-D int64 tensor", ax->name);
        axes = ax->data;
        na = (size_t)ax->elems;
    } else if (attr_ints(c, "axes", -1, &axes, &na) != 0) {
        return -1;
    }
    bool keep = attr_int(c, "keepdims", 1) != 0, reduce[NPK_MODEL_MAX_RANK] = {false};
    for (size_t i = 0; i < na; i++) {
        int a;
        if (norm_axis(c, axes[i], x->rank, 0, &a) != 0)
            return -1;
        reduce[a] = true;
    }
    int64_t dims[NPK_MODEL_MAX_RANK];
    int rank = 0;
    for (int i = 0; i < x->rank; i++) {
        bool r = na == 0 || reduce[i];
        if (!r)
            dims[rank++] = x->dims[i];
        else if (keep)
            dims[rank++] = 1;
    }
    return set_out(c, 0, x->dtype, rank, dims);
}

static int infer_reshape(ctx *c)
{
    const npk_value *x = in(c, 0), *s = in(c, 1);
    if (!s->data || s->dtype != NPK_DT_INT64 || s->rank != 1)
        return FAIL(c, "the shape input '%s' must be a constant 1-D int64 tensor", s->name);
    if (s->elems > NPK_MODEL_MAX_RANK)
        return FAIL(c, "the new shape has %llu dimensions (at most %d)",
                    (unsigned long long)s->elems, NPK_MODEL_MAX_RANK);
    bool allowzero = attr_int(c, "allowzero", 0) != 0;
    int64_t dims[NPK_MODEL_MAX_RANK];
    memcpy(dims, s->data, (size_t)s->elems * sizeof *dims);
    int rank = (int)s->elems, minus = -1;
    uint64_t known = 1;
    for (int i = 0; i < rank; i++) {
        if (dims[i] == 0 && !allowzero) {
            if (i >= x->rank)
                return FAIL(c, "shape entry %d is 0 (copy) but the input has rank %d", i, x->rank);
            dims[i] = x->dims[i];
        }
        if (dims[i] == -1) {
            if (minus >= 0)
                return FAIL(c, "the new shape has more than one -1");
            minus = i;
            continue;
        }
        if (dims[i] < 0)
            return FAIL(c, "shape entry %d is %lld", i, (long long)dims[i]);
        if (!npk_mul_u64_ok(known, (uint64_t)dims[i], &known) || known > NPK_MODEL_MAX_ELEMS)
            return FAIL(c, "the new shape is too large");
    }
    if (minus >= 0) {
        if (known == 0 || x->elems % known != 0)
            return FAIL(c, "cannot reshape %llu elements with a -1 into a multiple of %llu",
                        (unsigned long long)x->elems, (unsigned long long)known);
        dims[minus] = (int64_t)(x->elems / known);
        known = x->elems;
    }
    if (known != x->elems) {
        char sx[128];
        shape_str(x, sx, sizeof sx);
        return FAIL(c, "cannot reshape '%s' %s (%llu elements) into %llu elements", x->name, sx,
                    (unsigned long long)x->elems, (unsigned long long)known);
    }
    return set_out(c, 0, x->dtype, rank, dims);
}

static int infer_transpose(ctx *c, int *perm)
{
    const npk_value *x = in(c, 0);
    const int64_t *p;
    size_t np;
    if (attr_ints(c, "perm", x->rank, &p, &np) != 0)
        return -1;
    bool seen[NPK_MODEL_MAX_RANK] = {false};
    int64_t dims[NPK_MODEL_MAX_RANK];
    for (int i = 0; i < x->rank; i++) {
        int64_t a = p ? p[i] : x->rank - 1 - i;
        if (a < 0 || a >= x->rank || seen[a])
            return FAIL(c, "perm is not a permutation of 0..%d", x->rank - 1);
        seen[a] = true;
        perm[i] = (int)a;
        dims[i] = x->dims[a];
    }
    return set_out(c, 0, x->dtype, x->rank, dims);
}

/* Scale and zero point of a (de)quantisation: scalars, or 1-D along `axis` of x. */
static int check_qparams(ctx *c, const npk_value *x, const npk_value *scale, const npk_value *zp)
{
    if (!is_float(scale->dtype))
        return FAIL(c, "scale '%s' must be a float tensor", scale->name);
    if (scale->elems != 1) {
        int axis;
        if (norm_axis(c, attr_int(c, "axis", 1), x->rank, 0, &axis) != 0)
            return -1;
        if (scale->rank != 1 || scale->dims[0] != x->dims[axis])
            return FAIL(c, "scale '%s' must be a scalar or 1-D of length %lld (axis %d)",
                        scale->name, (long long)x->dims[axis], axis);
    }
    if (zp && (zp->elems != scale->elems || zp->rank != scale->rank))
        return FAIL(c, "zero point '%s' and scale '%s' differ in shape", zp->name, scale->name);
    return 0;
}

static int constant_value(ctx *c, const Onnx__NodeProto *np)
{
    npk_value *o = out(c, 0);
    for (size_t i = 0; i < np->n_attribute; i++) {
        const Onnx__AttributeProto *a = np->attribute[i];
        const char *nm = a->name ? a->name : "";
        if (strcmp(nm, "value") == 0 && a->t)
            return npk_model_set_tensor(c->r, c->idx, o, a->t);
        bool one = strcmp(nm, "value_float") == 0 || strcmp(nm, "value_int") == 0;
        bool many = strcmp(nm, "value_floats") == 0 || strcmp(nm, "value_ints") == 0;
        if (!one && !many)
            continue;
        bool fl = nm[6] == 'f';
        size_t n = one ? 1 : fl ? a->n_floats : a->n_ints;
        int64_t dim = (int64_t)n;
        o->dtype = fl ? NPK_DT_FLOAT : NPK_DT_INT64;
        if (npk_model_set_shape(c->r, c->idx, o, one ? 0 : 1, &dim) != 0)
            return -1;
        o->data = malloc(n ? n * (fl ? 4 : 8) : 1);
        if (!o->data)
            return FAIL(c, "out of memory");
        if (n)
            memcpy(o->data, one ? (fl ? (const void *)&a->f : (const void *)&a->i)
                                : (fl ? (const void *)a->floats : (const void *)a->ints),
                   n * (fl ? 4 : 8));
        return 0;
    }
    return FAIL(c, "has no value attribute npukit reads (value, value_float(s), value_int(s))");
}

/* The data of output 0 (its shape set), elements of `es` bytes; NULL (with the message) when
 * out of memory. */
static void *out_data(ctx *c, size_t es)
{
    npk_value *o = out(c, 0);
    o->data = malloc(o->elems ? (size_t)o->elems * es : 1);
    if (!o->data)
        FAIL(c, "out of memory");
    return o->data;
}

/* Row-major strides of x's dimensions, in elements. */
static void strides(const npk_value *x, int64_t *stride)
{
    int64_t s = 1;
    for (int i = x->rank - 1; i >= 0; i--) {
        stride[i] = s;
        s *= x->dims[i];   /* no wrap: the product is x->elems */
    }
}

/* Output 0 as a constant gathered from input 0's data: output element (i0, i1, ...) is input
 * element base + sum(i_k * step[k]) (steps in elements, negative for a reversed slice). */
static int fold_strided(ctx *c, int64_t base, const int64_t *step)
{
    const npk_value *x = in(c, 0);
    npk_value *o = out(c, 0);
    size_t es = npk_dtype_size(x->dtype);
    if (!out_data(c, es))
        return -1;
    uint64_t idx[NPK_MODEL_MAX_RANK] = {0};
    for (uint64_t e = 0; e < o->elems; e++) {
        int64_t src = base;
        for (int i = 0; i < o->rank; i++)
            src += (int64_t)idx[i] * step[i];
        memcpy((uint8_t *)o->data + e * es, (const uint8_t *)x->data + (uint64_t)src * es, es);
        for (int i = o->rank - 1; i >= 0 && ++idx[i] == (uint64_t)o->dims[i]; i--)
            idx[i] = 0;
    }
    c->n->folded = true;
    return 0;
}

/* The output as a constant: a copy of input 0's data, permuted when perm is given. */
static int fold(ctx *c, const int *perm)
{
    const npk_value *x = in(c, 0);
    npk_value *o = out(c, 0);
    if (!perm) {
        size_t es = npk_dtype_size(x->dtype);
        if (!out_data(c, es))
            return -1;
        memcpy(o->data, x->data, (size_t)x->elems * es);
        c->n->folded = true;
        return 0;
    }
    int64_t stride[NPK_MODEL_MAX_RANK], step[NPK_MODEL_MAX_RANK];
    strides(x, stride);
    for (int i = 0; i < o->rank; i++)
        step[i] = stride[perm[i]];
    return fold_strided(c, 0, step);
}


/* Transposes are folded up to this many elements (a weight matrix; not a data set). */
#define FOLD_MAX_ELEMS (UINT64_C(1) << 26)

/* QuantizeLinear or DequantizeLinear of constants, folded as the NumPy reference computes
 * them (docs/models.md, "int8 models"): q = saturate(rne(x / scale) + zp) with the division in
 * float64; (q - zp) * scale in float64, stored as float32. Per tensor or along `axis`. Not
 * folded (the node stays, and the plan refuses it) when a scale is not positive and finite
 * or an input of QuantizeLinear is not finite. */
static int fold_quant(ctx *c, bool q)
{
    const npk_value *x = in(c, 0), *sc = in(c, 1), *zp = in(c, 2);
    npk_value *o = out(c, 0);
    uint64_t inner = 1, n_axis = 1;
    if (sc->elems != 1) {
        int axis;
        if (norm_axis(c, attr_int(c, "axis", 1), x->rank, 0, &axis) != 0)
            return -1;
        for (int i = axis + 1; i < x->rank; i++)
            inner *= (uint64_t)x->dims[i];   /* no wrap: a factor of x->elems */
        n_axis = (uint64_t)x->dims[axis];
    }
    const float *s = sc->data;
    for (uint64_t k = 0; k < sc->elems; k++)
        if (!(s[k] > 0) || !isfinite(s[k]))
            return 0;
    for (uint64_t e = 0; q && e < x->elems; e++)
        if (!isfinite(((const float *)x->data)[e]))
            return 0;
    if (!out_data(c, npk_dtype_size(o->dtype)))   /* o->elems == x->elems */
        return -1;
    double lo = o->dtype == NPK_DT_INT8 ? -128 : o->dtype == NPK_DT_UINT8 ? 0 : -2147483648.0;
    double hi = o->dtype == NPK_DT_INT8 ? 127 : o->dtype == NPK_DT_UINT8 ? 255 : 2147483647.0;
    for (uint64_t e = 0; e < x->elems; e++) {
        uint64_t k = sc->elems == 1 ? 0 : e / inner % n_axis;
        double z = zp ? (double)npk_value_int(zp, k) : 0.0;
        if (!q) {
            ((float *)o->data)[e] = (float)(((double)npk_value_int(x, e) - z) * (double)s[k]);
            continue;
        }
        double v = npk_onnx_quantize((double)((const float *)x->data)[e] / (double)s[k], z, lo, hi);
        if (o->dtype == NPK_DT_INT8)
            ((int8_t *)o->data)[e] = (int8_t)v;
        else if (o->dtype == NPK_DT_UINT8)
            ((uint8_t *)o->data)[e] = (uint8_t)v;
        else
            ((int32_t *)o->data)[e] = (int32_t)v;
    }
    c->n->folded = true;
    return 0;
}

/* The output of a Gather or Concat along `axis` of x allocated, and x's element counts before
 * (outer) and after (inner) the axis; NULL after the message when out of memory. */
static uint8_t *fold_alloc(ctx *c, const npk_value *x, int axis, uint64_t *outer,
                           uint64_t *inner)
{
    *outer = *inner = 1;
    for (int i = 0; i < axis; i++)
        *outer *= (uint64_t)x->dims[i];   /* no wrap: products of x's dimensions */
    for (int i = axis + 1; i < x->rank; i++)
        *inner *= (uint64_t)x->dims[i];
    return out_data(c, npk_dtype_size(x->dtype));
}

/* Shape (start, end): the input's dimensions as a constant 1-D int64 tensor (static shapes:
 * a symbolic batch dimension is the 1 the reader took for it). */
static int infer_shape_op(ctx *c)
{
    const npk_value *x = in(c, 0);
    int64_t r = x->rank, s = attr_int(c, "start", 0), e = attr_int(c, "end", r);
    s = s < 0 ? s + r : s;
    e = e < 0 ? e + r : e;
    s = s < 0 ? 0 : s > r ? r : s;
    e = e < 0 ? 0 : e > r ? r : e;
    int64_t n = e > s ? e - s : 0;
    if (set_out(c, 0, NPK_DT_INT64, 1, &n) != 0)
        return -1;
    if (!out_data(c, 8))
        return -1;
    if (n)
        memcpy(out(c, 0)->data, x->dims + s, (size_t)n * 8);
    c->n->folded = true;
    return 0;
}

/* Gather (axis): data[..., indices, ...]; folded when data and indices are constants. */
static int infer_gather(ctx *c)
{
    const npk_value *x = in(c, 0), *ix = in(c, 1);
    int axis;
    if (ix->dtype != NPK_DT_INT64 && ix->dtype != NPK_DT_INT32)
        return FAIL(c, "indices '%s' are %s (int32 or int64)", ix->name, npk_dtype_name(ix->dtype));
    if (x->rank < 1)
        return FAIL(c, "data '%s' is a scalar", x->name);
    if (norm_axis(c, attr_int(c, "axis", 0), x->rank, 0, &axis) != 0)
        return -1;
    if (x->rank - 1 + ix->rank > NPK_MODEL_MAX_RANK)
        return FAIL(c, "the output would have rank %d (at most %d)", x->rank - 1 + ix->rank,
                    NPK_MODEL_MAX_RANK);
    int64_t dims[NPK_MODEL_MAX_RANK];
    int rank = 0;
    for (int i = 0; i < axis; i++)
        dims[rank++] = x->dims[i];
    for (int i = 0; i < ix->rank; i++)
        dims[rank++] = ix->dims[i];
    for (int i = axis + 1; i < x->rank; i++)
        dims[rank++] = x->dims[i];
    if (set_out(c, 0, x->dtype, rank, dims) != 0)
        return -1;
    if (!ix->data)
        return 0;
    int64_t d = x->dims[axis];
    for (uint64_t k = 0; k < ix->elems; k++) {
        int64_t v = npk_value_int(ix, k);
        if (v < -d || v >= d)
            return FAIL(c, "index %lld (element %llu of '%s') is out of range for dimension %lld",
                        (long long)v, (unsigned long long)k, ix->name, (long long)d);
    }
    npk_value *o = out(c, 0);
    if (!x->data || o->elems > FOLD_MAX_ELEMS)
        return 0;
    size_t es = npk_dtype_size(x->dtype);
    uint64_t outer, inner;
    uint8_t *dst = fold_alloc(c, x, axis, &outer, &inner);
    if (!dst)
        return -1;
    for (uint64_t a = 0; a < outer; a++)
        for (uint64_t k = 0; k < ix->elems; k++) {
            int64_t v = npk_value_int(ix, k);
            uint64_t row = (uint64_t)(v < 0 ? v + d : v);
            memcpy(dst, (const uint8_t *)x->data + ((a * (uint64_t)d + row) * inner) * es,
                   (size_t)(inner * es));
            dst += inner * es;
        }
    c->n->folded = true;
    return 0;
}

/* Unsqueeze (axes: an attribute before opset 13, a constant input from 13) and Squeeze (axes
 * optional: none removes every dimension of 1). */
static int infer_squeeze(ctx *c, bool un)
{
    const npk_value *x = in(c, 0), *ax = in(c, 1);
    int64_t axes[NPK_MODEL_MAX_RANK];
    size_t na = 0;
    if (ax) {
        if (!ax->data || ax->dtype != NPK_DT_INT64 || ax->rank > 1)
            return FAIL(c, "axes '%s' must be a constant 1-D int64 tensor", ax->name);
        if (ax->elems > NPK_MODEL_MAX_RANK)
            return FAIL(c, "%llu axes (at most %d)", (unsigned long long)ax->elems,
                        NPK_MODEL_MAX_RANK);
        na = (size_t)ax->elems;
        for (size_t i = 0; i < na; i++)
            axes[i] = npk_value_int(ax, i);
    } else {
        const int64_t *a;
        if (attr_ints(c, "axes", -1, &a, &na) != 0)
            return -1;
        if (na > NPK_MODEL_MAX_RANK)
            return FAIL(c, "%zu axes (at most %d)", na, NPK_MODEL_MAX_RANK);
        if (na)
            memcpy(axes, a, na * sizeof *a);
    }
    if (un && na == 0)
        return FAIL(c, "has no axes");
    int rank = un ? x->rank + (int)na : x->rank;
    if (rank > NPK_MODEL_MAX_RANK)
        return FAIL(c, "the output would have rank %d (at most %d)", rank, NPK_MODEL_MAX_RANK);
    bool mark[NPK_MODEL_MAX_RANK] = {false};
    for (size_t i = 0; i < na; i++) {
        int a;
        if (norm_axis(c, axes[i], rank, 0, &a) != 0)
            return -1;
        if (mark[a])
            return FAIL(c, "axis %lld is named twice", (long long)axes[i]);
        if (!un && x->dims[a] != 1)
            return FAIL(c, "cannot squeeze axis %d of size %lld", a, (long long)x->dims[a]);
        mark[a] = true;
    }
    int64_t dims[NPK_MODEL_MAX_RANK];
    int n = 0;
    for (int i = 0, k = 0; i < rank; i++) {
        if (un)
            dims[n++] = mark[i] ? 1 : x->dims[k++];
        else if (!(na ? mark[i] : x->dims[i] == 1))
            dims[n++] = x->dims[i];
    }
    return set_out(c, 0, x->dtype, n, dims);
}

/* Concat (axis): inputs of one type and rank, equal but along axis; folded when all are
 * constants. */
static int infer_concat(ctx *c)
{
    const npk_value *x = in(c, 0);
    int axis;
    if (x->rank < 1)
        return FAIL(c, "input '%s' is a scalar", x->name);
    if (!npk_node_attr(c->n, "axis"))
        return FAIL(c, "has no axis attribute");
    if (norm_axis(c, attr_int(c, "axis", 0), x->rank, 0, &axis) != 0)
        return -1;
    int64_t dims[NPK_MODEL_MAX_RANK];
    memcpy(dims, x->dims, sizeof dims);
    dims[axis] = 0;
    bool all_const = true;
    for (int k = 0; k < c->n->n_in; k++) {
        const npk_value *v = in(c, k);
        if (!v)
            return FAIL(c, "input %d is omitted", k);
        if (v->dtype != x->dtype || v->rank != x->rank)
            return FAIL(c, "input '%s' is %s of rank %d, input '%s' %s of rank %d", v->name,
                        npk_dtype_name(v->dtype), v->rank, x->name, npk_dtype_name(x->dtype),
                        x->rank);
        for (int i = 0; i < x->rank; i++)
            if (i != axis && v->dims[i] != x->dims[i])
                return FAIL(c, "input '%s' differs from '%s' in dimension %d", v->name,
                            x->name, i);
        if (v->dims[axis] > (int64_t)NPK_MODEL_MAX_ELEMS - dims[axis])
            return FAIL(c, "the output is too large");
        dims[axis] += v->dims[axis];
        all_const = all_const && v->data;
    }
    if (set_out(c, 0, x->dtype, x->rank, dims) != 0)
        return -1;
    npk_value *o = out(c, 0);
    if (!all_const || o->elems > FOLD_MAX_ELEMS)
        return 0;
    size_t es = npk_dtype_size(x->dtype);
    uint64_t outer, inner;
    uint8_t *dst = fold_alloc(c, x, axis, &outer, &inner);
    if (!dst)
        return -1;
    for (uint64_t a = 0; a < outer; a++)
        for (int k = 0; k < c->n->n_in; k++) {
            const npk_value *v = in(c, k);
            size_t len = (size_t)((uint64_t)v->dims[axis] * inner * es);
            memcpy(dst, (const uint8_t *)v->data + a * len, len);
            dst += len;
        }
    c->n->folded = true;
    return 0;
}

/* A constant int64/int32 1-D (or scalar) input of at most `max` elements into v; its count in
 * *n. */
static int const_ints(ctx *c, const npk_value *x, const char *what, size_t max, int64_t *v,
                      size_t *n)
{
    if (!x->data || (x->dtype != NPK_DT_INT64 && x->dtype != NPK_DT_INT32) || x->rank > 1)
        return FAIL(c, "%s '%s' must be a constant 1-D int64 tensor", what, x->name);
    if (x->elems > max)
        return FAIL(c, "%s '%s' has %llu elements (at most %zu)", what, x->name,
                    (unsigned long long)x->elems, max);
    *n = (size_t)x->elems;
    for (size_t i = 0; i < *n; i++)
        v[i] = npk_value_int(x, i);
    return 0;
}

/* ConstantOfShape (value: a one-element tensor, float 0 when absent): a constant tensor of the
 * shape given by the constant input. */
static int infer_constant_of_shape(ctx *c, const Onnx__NodeProto *np)
{
    const npk_value *s = in(c, 0);
    npk_value *o = out(c, 0);
    int64_t dims[NPK_MODEL_MAX_RANK];
    size_t rank;
    if (const_ints(c, s, "shape", NPK_MODEL_MAX_RANK, dims, &rank) != 0)
        return -1;
    for (size_t i = 0; i < rank; i++)
        if (dims[i] < 0)
            return FAIL(c, "dimension %zu of the shape '%s' is %lld", i, s->name,
                        (long long)dims[i]);
    uint8_t fill[8] = {0};
    npk_dtype t = NPK_DT_FLOAT;
    for (size_t i = 0; i < np->n_attribute; i++) {
        const Onnx__AttributeProto *a = np->attribute[i];
        if (!a->name || strcmp(a->name, "value") != 0)
            continue;
        if (!a->t)
            return FAIL(c, "attribute 'value' is not a tensor");
        if (npk_model_set_tensor(c->r, c->idx, o, a->t) != 0)
            return -1;
        if (o->elems != 1) {
            free(o->data);
            o->data = NULL;
            return FAIL(c, "attribute 'value' has %llu elements (one)",
                        (unsigned long long)o->elems);
        }
        t = o->dtype;
        memcpy(fill, o->data, npk_dtype_size(t));
        free(o->data);
        o->data = NULL;
    }
    if (set_out(c, 0, t, (int)rank, dims) != 0)
        return -1;
    if (o->elems > FOLD_MAX_ELEMS)
        return FAIL(c, "the output has %llu elements (at most %llu are folded)",
                    (unsigned long long)o->elems, (unsigned long long)FOLD_MAX_ELEMS);
    size_t es = npk_dtype_size(t);
    if (!out_data(c, es))
        return -1;
    for (uint64_t e = 0; e < o->elems; e++)
        memcpy((uint8_t *)o->data + e * es, fill, es);
    c->n->folded = true;
    return 0;
}

/* Slice (starts, ends, axes, steps: constant inputs from opset 10, attributes before): the
 * ONNX clamping rules; folded when the data is a constant. */
static int infer_slice(ctx *c)
{
    const npk_value *x = in(c, 0);
    int64_t st[NPK_MODEL_MAX_RANK], en[NPK_MODEL_MAX_RANK], ax[NPK_MODEL_MAX_RANK],
        sp[NPK_MODEL_MAX_RANK];
    size_t ns, ne, na, np = 0;
    const char *names[4] = {"starts", "ends", "axes", "steps"};
    int64_t *dst[4] = {st, en, ax, sp};
    size_t *cnt[4] = {&ns, &ne, &na, &np};
    for (int k = 0; k < 4; k++) {
        *cnt[k] = 0;
        if (c->r->m->opset >= 10) {
            const npk_value *v = in(c, k + 1);
            if (k < 2 && !v)
                return FAIL(c, "input '%s' is required", names[k]);
            if (v && const_ints(c, v, names[k], NPK_MODEL_MAX_RANK, dst[k], cnt[k]) != 0)
                return -1;
        } else {
            const int64_t *a;
            if (attr_ints(c, names[k], -1, &a, cnt[k]) != 0)
                return -1;
            if (k < 2 && !a)
                return FAIL(c, "attribute '%s' is required", names[k]);
            if (*cnt[k] > NPK_MODEL_MAX_RANK)
                return FAIL(c, "attribute '%s' has %zu entries (at most %d)", names[k],
                            *cnt[k], NPK_MODEL_MAX_RANK);
            if (*cnt[k])
                memcpy(dst[k], a, *cnt[k] * sizeof *a);
        }
    }
    if (ne != ns || (na && na != ns) || (np && np != ns))
        return FAIL(c, "starts, ends, axes and steps have %zu, %zu, %zu and %zu entries", ns,
                    ne, na, np);
    int64_t lo[NPK_MODEL_MAX_RANK], step[NPK_MODEL_MAX_RANK], dims[NPK_MODEL_MAX_RANK];
    bool seen[NPK_MODEL_MAX_RANK] = {false};
    for (int i = 0; i < x->rank; i++) {
        lo[i] = 0;
        step[i] = 1;
        dims[i] = x->dims[i];
    }
    for (size_t i = 0; i < ns; i++) {
        int a;
        if (norm_axis(c, na ? ax[i] : (int64_t)i, x->rank, 0, &a) != 0)
            return -1;
        if (seen[a])
            return FAIL(c, "axis %d is named twice", a);
        seen[a] = true;
        int64_t d = x->dims[a], s = np ? sp[i] : 1, b = st[i], e = en[i];
        if (s == 0)
            return FAIL(c, "step %zu is 0", i);
        /* negative indices count from the end; then clamp to [0, d] (step > 0) or
         * [-1, d - 1] (step < 0); saturating: the file may hold INT64_MIN/MAX */
        b = b < 0 ? (b < -d ? -d - 1 : b + d) : b;
        e = e < 0 ? (e < -d ? -d - 1 : e + d) : e;
        if (s > 0) {
            b = b < 0 ? 0 : b > d ? d : b;
            e = e < 0 ? 0 : e > d ? d : e;
        } else {
            b = b < 0 ? 0 : b > d - 1 ? d - 1 : b;
            e = e < -1 ? -1 : e > d - 1 ? d - 1 : e;
        }
        int64_t span = s > 0 ? e - b : b - e, as = s > 0 ? s : -s;
        lo[a] = b;
        step[a] = s;
        dims[a] = span > 0 ? (span - 1) / as + 1 : 0;
    }
    if (set_out(c, 0, x->dtype, x->rank, dims) != 0)
        return -1;
    if (!x->data || out(c, 0)->elems > FOLD_MAX_ELEMS)
        return 0;
    int64_t stride[NPK_MODEL_MAX_RANK], base = 0;
    strides(x, stride);
    for (int i = 0; i < x->rank; i++) {
        base += lo[i] * stride[i];
        step[i] *= stride[i];
    }
    return fold_strided(c, base, step);
}

static bool cast_type(npk_dtype t)
{
    return t == NPK_DT_FLOAT || t == NPK_DT_DOUBLE || t == NPK_DT_INT8 || t == NPK_DT_UINT8 ||
           t == NPK_DT_INT32 || t == NPK_DT_INT64 || t == NPK_DT_BOOL;
}

/* Cast (to) between float, double, int8, uint8, int32, int64 and bool; folded when the input
 * is a constant. Integers convert exactly, floats to integers truncate toward zero (as NumPy's
 * astype); a value the target type cannot hold (or a NaN) is refused, naming the element. */
static int infer_cast(ctx *c)
{
    const npk_value *x = in(c, 0);
    const npk_attr *a = npk_node_attr(c->n, "to");
    if (!a || a->kind != NPK_ATTR_INT)
        return FAIL(c, "attribute 'to' (an element type) is required");
    npk_dtype t = (npk_dtype)a->i;
    if (a->i < 0 || a->i > 64 || !cast_type(t) || !cast_type(x->dtype))
        return FAIL(c, "casts %s to element type %lld: npukit casts between float, double, "
                    "int8, uint8, int32, int64 and bool", npk_dtype_name(x->dtype),
                    (long long)a->i);
    if (set_out(c, 0, t, x->rank, x->dims) != 0)
        return -1;
    npk_value *o = out(c, 0);
    if (!x->data || o->elems > FOLD_MAX_ELEMS)
        return 0;
    size_t es = npk_dtype_size(t), xs = npk_dtype_size(x->dtype);
    if (!out_data(c, es))
        return -1;
    bool fl = is_float(x->dtype);
    for (uint64_t e = 0; e < x->elems; e++) {
        const uint8_t *p = (const uint8_t *)x->data + e * xs;
        double f = 0;
        int64_t i = 0;
        switch (x->dtype) {
        case NPK_DT_FLOAT: { float v; memcpy(&v, p, 4); f = v; break; }
        case NPK_DT_DOUBLE: memcpy(&f, p, 8); break;
        case NPK_DT_INT8: i = (int8_t)p[0]; break;
        case NPK_DT_UINT8: case NPK_DT_BOOL: i = p[0]; break;
        case NPK_DT_INT32: { int32_t v; memcpy(&v, p, 4); i = v; break; }
        default: memcpy(&i, p, 8); break;
        }
        uint8_t *q = (uint8_t *)o->data + e * es;
        if (t == NPK_DT_FLOAT || t == NPK_DT_DOUBLE) {
            double v = fl ? f : (double)i;
            if (t == NPK_DT_DOUBLE) {
                memcpy(q, &v, 8);
            } else {
                float g = (float)v;
                memcpy(q, &g, 4);
            }
            continue;
        }
        if (t == NPK_DT_BOOL) {
            q[0] = fl ? f != 0 : i != 0;
            continue;
        }
        int64_t lo = t == NPK_DT_INT8 ? -128 : t == NPK_DT_UINT8 ? 0
                     : t == NPK_DT_INT32 ? INT32_MIN : INT64_MIN;
        int64_t hi = t == NPK_DT_INT8 ? 127 : t == NPK_DT_UINT8 ? 255
                     : t == NPK_DT_INT32 ? INT32_MAX : INT64_MAX;
        /* floats: in range when -2^63 <= trunc(f) < 2^63 and within [lo, hi] */
        if (fl ? !(f > -9223372036854775809.0 && f < 9223372036854775808.0) : false)
            goto range;
        if (fl)
            i = (int64_t)f;
        if (i < lo || i > hi)
            goto range;
        switch (t) {
        case NPK_DT_INT8: case NPK_DT_UINT8: q[0] = (uint8_t)i; break;
        case NPK_DT_INT32: { int32_t v = (int32_t)i; memcpy(q, &v, 4); break; }
        default: memcpy(q, &i, 8); break;
        }
        continue;
    range:
        free(o->data);
        o->data = NULL;
        if (fl)
            return FAIL(c, "element %llu of '%s' (%g) does not fit %s", (unsigned long long)e,
                        x->name, f, npk_dtype_name(t));
        return FAIL(c, "element %llu of '%s' (%lld) does not fit %s", (unsigned long long)e,
                    x->name, (long long)i, npk_dtype_name(t));
    }
    c->n->folded = true;
    return 0;
}

/* Pad (mode constant; pads a constant input from opset 11, an attribute before; the value 0
 * or absent): each dimension grows by its begin and end pads (not negative). */
static int infer_pad(ctx *c)
{
    const npk_value *x = in(c, 0);
    const npk_attr *mode = npk_node_attr(c->n, "mode");
    if (mode && (mode->kind != NPK_ATTR_STRING || strcmp(mode->s, "constant") != 0))
        return FAIL(c, "mode '%s' is not read (mode constant is)",
                    mode->kind == NPK_ATTR_STRING ? mode->s : "?");
    int64_t pads[2 * NPK_MODEL_MAX_RANK];
    size_t n = 0;
    if (c->r->m->opset >= 11) {
        if (!in(c, 1))
            return FAIL(c, "input 'pads' is required");
        if (in(c, 3))
            return FAIL(c, "the axes input '%s' is not read (pads of every axis are)",
                        in(c, 3)->name);
        if (const_ints(c, in(c, 1), "pads", 2 * NPK_MODEL_MAX_RANK, pads, &n) != 0)
            return -1;
        const npk_value *v = in(c, 2);
        if (v) {
            if (!v->data || v->elems != 1)
                return FAIL(c, "the constant value '%s' must be a constant scalar", v->name);
            double f = 0;
            if (v->dtype == NPK_DT_FLOAT) {
                float g;
                memcpy(&g, v->data, 4);
                f = g;
            } else if (v->dtype == NPK_DT_DOUBLE) {
                memcpy(&f, v->data, 8);
            } else if (v->dtype == NPK_DT_INT64 || v->dtype == NPK_DT_INT32) {
                f = (double)npk_value_int(v, 0);
            } else {
                f = npk_dtype_size(v->dtype) == 1 ? ((const uint8_t *)v->data)[0] : 1;
            }
            if (f != 0)
                return FAIL(c, "pads with the value %g from '%s' (only 0 is read)", f, v->name);
        }
    } else {
        const int64_t *a;
        if (attr_ints(c, "pads", -1, &a, &n) != 0)
            return -1;
        if (!a)
            return FAIL(c, "attribute 'pads' is required");
        if (n > 2 * NPK_MODEL_MAX_RANK)
            return FAIL(c, "attribute 'pads' has %zu entries", n);
        memcpy(pads, a, n * sizeof *a);
        const npk_attr *val = npk_node_attr(c->n, "value");
        if (val && val->kind == NPK_ATTR_FLOAT && val->f != 0)
            return FAIL(c, "pads with the value %g (only 0 is read)", (double)val->f);
    }
    if (n != 2 * (size_t)x->rank)
        return FAIL(c, "has %zu pads for an input of rank %d (%d)", n, x->rank, 2 * x->rank);
    int64_t dims[NPK_MODEL_MAX_RANK];
    for (int i = 0; i < x->rank; i++) {
        int64_t b = pads[i], e = pads[i + x->rank];
        if (b < 0 || e < 0)
            return FAIL(c, "pads %lld and %lld of axis %d: negative pads (cropping) are not read",
                        (long long)b, (long long)e, i);
        if (b > (int64_t)NPK_MODEL_MAX_ELEMS || e > (int64_t)NPK_MODEL_MAX_ELEMS)
            return FAIL(c, "pads %lld and %lld of axis %d are too large", (long long)b,
                        (long long)e, i);
        dims[i] = x->dims[i] + b + e;
    }
    return set_out(c, 0, x->dtype, x->rank, dims);
}

int npk_model_infer(npk_reader *r, int idx, const void *proto)
{
    ctx cx = {r, idx, &r->m->nodes[idx], r->m}, *c = &cx;
    npk_node *n = c->n;
    int perm[NPK_MODEL_MAX_RANK];
    int rc;
    switch (n->op) {
    case NPK_OP_CONSTANT:
        if (check_arity(c, 0, 0, 0, 1) || constant_value(c, proto))
            return -1;
        n->folded = true;
        return 0;
    case NPK_OP_ADD: case NPK_OP_SUB: case NPK_OP_MUL: case NPK_OP_DIV: case NPK_OP_POW: {
        if (check_arity(c, 2, 2, 2, 1) != 0)
            return -1;
        const npk_value *a = in(c, 0), *b = in(c, 1);
        if (n->op != NPK_OP_POW && a->dtype != b->dtype)
            return FAIL(c, "operands are %s and %s", npk_dtype_name(a->dtype),
                        npk_dtype_name(b->dtype));
        int64_t dims[NPK_MODEL_MAX_RANK];
        int rank;
        rc = broadcast(c, a, b, dims, &rank) || set_out(c, 0, a->dtype, rank, dims);
        break;
    }
    case NPK_OP_RELU: case NPK_OP_LEAKY_RELU: case NPK_OP_GELU: case NPK_OP_ERF:
    case NPK_OP_SQRT: case NPK_OP_RECIPROCAL: case NPK_OP_TANH: case NPK_OP_SIGMOID:
    case NPK_OP_IDENTITY:
        if (check_arity(c, 1, 1, 1, 1) != 0)
            return -1;
        if (n->op != NPK_OP_IDENTITY && n->op != NPK_OP_RELU && !is_float(in(c, 0)->dtype))
            return FAIL(c, "input is %s, a float type is required",
                        npk_dtype_name(in(c, 0)->dtype));
        rc = same_as(c, in(c, 0));
        if (rc == 0 && n->op == NPK_OP_IDENTITY && in(c, 0)->data)
            rc = fold(c, NULL);
        break;
    case NPK_OP_SOFTMAX: {
        int axis;
        if (check_arity(c, 1, 1, 1, 1) != 0)
            return -1;
        rc = norm_axis(c, attr_int(c, "axis", r->m->opset >= 13 ? -1 : 1), in(c, 0)->rank, 0,
                       &axis) || same_as(c, in(c, 0));
        break;
    }
    case NPK_OP_LAYER_NORM:
        rc = check_arity(c, 2, 3, 2, 3) || infer_layer_norm(c);
        break;
    case NPK_OP_REDUCE_MEAN:
        rc = check_arity(c, 1, 2, 1, 1) || infer_reduce_mean(c);
        break;
    case NPK_OP_GEMM:
        rc = check_arity(c, 2, 3, 2, 1) || infer_gemm(c);
        break;
    case NPK_OP_MATMUL:
        if (check_arity(c, 2, 2, 2, 1) != 0)
            return -1;
        if (in(c, 0)->dtype != in(c, 1)->dtype)
            return FAIL(c, "operands are %s and %s", npk_dtype_name(in(c, 0)->dtype),
                        npk_dtype_name(in(c, 1)->dtype));
        rc = matmul_shape(c, in(c, 0), in(c, 1), in(c, 0)->dtype);
        break;
    case NPK_OP_CONV:
        rc = check_arity(c, 2, 3, 2, 1) || infer_conv(c, 0, 1, 2, in(c, 0)->dtype);
        break;
    case NPK_OP_MAX_POOL: case NPK_OP_AVG_POOL:
        rc = check_arity(c, 1, 1, 1, n->op == NPK_OP_MAX_POOL ? 2 : 1) || infer_pool(c);
        break;
    case NPK_OP_FLATTEN: {
        int axis;
        if (check_arity(c, 1, 1, 1, 1) ||
            norm_axis(c, attr_int(c, "axis", 1), in(c, 0)->rank, 1, &axis))
            return -1;
        const npk_value *x = in(c, 0);
        int64_t dims[2] = {1, 1};
        for (int i = 0; i < x->rank; i++)
            dims[i >= axis] *= x->dims[i];   /* no wrap: the product of all is x->elems */
        rc = set_out(c, 0, x->dtype, 2, dims);
        if (rc == 0 && x->data)
            rc = fold(c, NULL);
        break;
    }
    case NPK_OP_RESHAPE:
        rc = check_arity(c, 2, 2, 2, 1) || infer_reshape(c);
        if (rc == 0 && in(c, 0)->data)
            rc = fold(c, NULL);
        break;
    case NPK_OP_TRANSPOSE:
        rc = check_arity(c, 1, 1, 1, 1) || infer_transpose(c, perm);
        if (rc == 0 && in(c, 0)->data && in(c, 0)->elems <= FOLD_MAX_ELEMS)
            rc = fold(c, perm);
        break;
    case NPK_OP_SHAPE:
        rc = check_arity(c, 1, 1, 1, 1) || infer_shape_op(c);
        break;
    case NPK_OP_GATHER:
        rc = check_arity(c, 2, 2, 2, 1) || infer_gather(c);
        break;
    case NPK_OP_UNSQUEEZE: case NPK_OP_SQUEEZE:
        rc = check_arity(c, 1, 2, 1, 1) || infer_squeeze(c, n->op == NPK_OP_UNSQUEEZE);
        if (rc == 0 && in(c, 0)->data)
            rc = fold(c, NULL);
        break;
    case NPK_OP_CONCAT:
        rc = check_arity(c, 1, 64, 1, 1) || infer_concat(c);
        break;
    case NPK_OP_CONSTANT_OF_SHAPE:
        rc = check_arity(c, 1, 1, 1, 1) || infer_constant_of_shape(c, proto);
        break;
    case NPK_OP_SLICE:
        rc = check_arity(c, r->m->opset >= 10 ? 3 : 1, r->m->opset >= 10 ? 5 : 1, 1, 1) ||
             infer_slice(c);
        break;
    case NPK_OP_CAST:
        rc = check_arity(c, 1, 1, 1, 1) || infer_cast(c);
        break;
    case NPK_OP_PAD:
        rc = check_arity(c, r->m->opset >= 11 ? 2 : 1, r->m->opset >= 11 ? 4 : 1, 1, 1) ||
             infer_pad(c);
        break;
    case NPK_OP_QUANTIZE: case NPK_OP_DEQUANTIZE: {
        if (check_arity(c, 2, 3, 2, 1) != 0)
            return -1;
        const npk_value *x = in(c, 0), *zp = in(c, 2);
        bool q = n->op == NPK_OP_QUANTIZE;
        if (q ? !is_float(x->dtype) && x->dtype != NPK_DT_INT32
              : !is_q8(x->dtype) && x->dtype != NPK_DT_INT32)
            return FAIL(c, "input '%s' is %s", x->name, npk_dtype_name(x->dtype));
        if (zp && !is_q8(zp->dtype) && zp->dtype != NPK_DT_INT32)
            return FAIL(c, "zero point '%s' is %s (int8, uint8 or int32)", zp->name,
                        npk_dtype_name(zp->dtype));
        if (!q && zp && zp->dtype != x->dtype)
            return FAIL(c, "zero point '%s' is %s but the input is %s", zp->name,
                        npk_dtype_name(zp->dtype), npk_dtype_name(x->dtype));
        if (check_qparams(c, x, in(c, 1), zp) != 0)
            return -1;
        npk_dtype t = q ? (zp ? zp->dtype : NPK_DT_UINT8) : NPK_DT_FLOAT;
        rc = set_out(c, 0, t, x->rank, x->dims);
        if (rc == 0 && x->data && in(c, 1)->data && (!zp || zp->data) &&
            in(c, 1)->dtype == NPK_DT_FLOAT && (!q || x->dtype == NPK_DT_FLOAT) &&
            x->elems <= FOLD_MAX_ELEMS)
            rc = fold_quant(c, q);
        break;
    }
    case NPK_OP_QLINEAR_MATMUL:
    case NPK_OP_QLINEAR_CONV: {
        bool conv = n->op == NPK_OP_QLINEAR_CONV;
        if (check_arity(c, 8, conv ? 9 : 8, 8, 1) != 0)
            return -1;
        const npk_value *x = in(c, 0), *w = in(c, 3), *yzp = in(c, 7);
        if (!is_q8(x->dtype) || !is_q8(w->dtype) || !is_q8(yzp->dtype))
            return FAIL(c, "operands must be int8 or uint8 (are %s, %s, output %s)",
                        npk_dtype_name(x->dtype), npk_dtype_name(w->dtype),
                        npk_dtype_name(yzp->dtype));
        if (in(c, 2)->dtype != x->dtype || in(c, 5)->dtype != w->dtype)
            return FAIL(c, "a zero point's type differs from its tensor's");
        const npk_value *b = in(c, 8);
        if (b && b->dtype != NPK_DT_INT32)
            return FAIL(c, "bias '%s' must be int32", b->name);
        rc = conv ? infer_conv(c, 0, 3, 8, yzp->dtype) : matmul_shape(c, x, w, yzp->dtype);
        break;
    }
    default:
        return FAIL(c, "operator not supported");
    }
    if (rc != 0)
        return -1;
    if (!n->folded)
        for (int k = 0; k < n->n_in; k++) {
            const npk_value *v = in(c, k);
            if (v && v->data && !(n->op == NPK_OP_RESHAPE && k == 1) && !(n->op == NPK_OP_PAD && k))
                n->params += v->elems;   /* no wrap: at most 9 tensors of 2^40 */
        }
    return 0;
}
