/* The plan (plan.h): the IR's nodes grouped into a chain of layers, the float64 host run, and
 * the int8 calibration. docs/models.md, "The plan", describes the grouping rules. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/plan.h"
#include "model/plan_q.h"

typedef struct builder {
    const npk_model *m;
    npk_plan *p;
    size_t cap_layers, cap_tensors;
    char *err;
    size_t err_size;
    int *vt;              /* per IR value: its tensor, or -1 */
    int *vl;              /* per IR value: the open layer it is the result of, or -1 */
    int *lval;            /* per layer (cap_layers): the value an open layer has reached */
} builder;

static int bfail(builder *b, int node, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int bfail(builder *b, int node, const char *fmt, ...)
{
    size_t n = 0;
    if (node >= 0) {
        const npk_node *nd = &b->m->nodes[node];
        int k = snprintf(b->err, b->err_size, "node %d '%s' (%s): ", node, nd->name,
                         npk_op_name(nd->op));
        n = k < 0 ? 0 : (size_t)k < b->err_size ? (size_t)k : b->err_size - 1;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->err + n, b->err_size - n, fmt, ap);
    va_end(ap);
    return -1;
}

const char *npk_layer_kind_name(npk_layer_kind k)
{
    static const char *const names[] = {"dense",   "conv",   "maxpool",   "avgpool",
                                        "softmax", "act",    "layernorm", "rmsnorm",
                                        "matmul",  "transpose", "add",    "scale"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

const char *npk_act_name(npk_act a)
{
    static const char *const names[] = {"none", "relu", "leaky_relu", "gelu", "tanh", "sigmoid"};
    return (unsigned)a < sizeof names / sizeof names[0] ? names[a] : "?";
}

/* A tensor of the plan from an IR value of shape [1, F], [1, S, D] or [1, C, H, W]. */
static int add_tensor(builder *b, int node, const npk_value *v)
{
    npk_plan *p = b->p;
    if (v->rank < 2 || v->rank > 4)
        return bfail(b, node, "'%s' has rank %d: the plan takes [1, F], [1, S, D] and "
                     "[1, C, H, W] tensors", v->name, v->rank);
    if (v->dims[0] != 1)
        return bfail(b, node, "'%s' has batch %lld: the plan runs one input at a time (batch 1)",
                     v->name, (long long)v->dims[0]);
    for (int i = 1; i < v->rank; i++)
        if (v->dims[i] < 1 || v->dims[i] > (1 << 24))
            return bfail(b, node, "'%s' has dimension %lld", v->name, (long long)v->dims[i]);
    if (v->elems > (1u << 26))
        return bfail(b, node, "'%s' has %llu elements, more than the plan takes (2^26)", v->name,
                     (unsigned long long)v->elems);
    if (p->n_tensors == b->cap_tensors) {
        size_t cap = b->cap_tensors ? 2 * b->cap_tensors : 8;
        npk_ptensor *t = realloc(p->tensors, cap * sizeof *t);
        if (!t)
            return bfail(b, node, "out of memory");
        p->tensors = t;
        b->cap_tensors = cap;
    }
    npk_ptensor *t = &p->tensors[p->n_tensors++];
    memset(t, 0, sizeof *t);
    t->rank = v->rank - 1;
    for (int i = 1; i < v->rank; i++)
        t->dims[i - 1] = (int)v->dims[i];
    t->elems = (size_t)v->elems;
    return (int)p->n_tensors - 1;
}

static npk_layer *add_layer(builder *b, int node, npk_layer_kind kind)
{
    npk_plan *p = b->p;
    if (p->n_layers == b->cap_layers) {
        size_t cap = b->cap_layers ? 2 * b->cap_layers : 8;
        npk_layer *l = realloc(p->layers, cap * sizeof *l);
        int *lv = l ? realloc(b->lval, cap * sizeof *lv) : NULL;
        if (l)
            p->layers = l;
        if (!lv) {
            bfail(b, node, "out of memory");
            return NULL;
        }
        b->lval = lv;
        b->cap_layers = cap;
    }
    npk_layer *l = &p->layers[p->n_layers++];
    memset(l, 0, sizeof *l);
    l->kind = kind;
    l->node = node;
    l->name = b->m->nodes[node].name;
    l->op = npk_op_name(b->m->nodes[node].op);
    l->in = l->in2 = -1;
    l->out = -1;   /* open until a node reads its result (close_at) */
    l->rows = l->batch = 1;
    l->sh = l->sw = 1;
    l->kh = l->kw = 1;
    return l;
}

static int64_t attr_i(const npk_node *n, const char *name, int64_t def)
{
    const npk_attr *a = npk_node_attr(n, name);
    return a && a->kind == NPK_ATTR_INT ? a->i : def;
}

static double attr_f(const npk_node *n, const char *name, double def)
{
    const npk_attr *a = npk_node_attr(n, name);
    return a && a->kind == NPK_ATTR_FLOAT ? a->f : def;
}

/* A constant float32 input of node `ni` (position k), or NULL with a message. */
static const npk_value *const_f32(builder *b, int ni, int k, const char *what)
{
    const npk_node *n = &b->m->nodes[ni];
    if (k >= n->n_in || n->in[k] < 0) {
        bfail(b, ni, "has no %s", what);
        return NULL;
    }
    const npk_value *v = &b->m->values[n->in[k]];
    if (!v->data) {
        bfail(b, ni, "its %s '%s' is not a constant: the plan takes weights from initializers",
              what, v->name);
        return NULL;
    }
    if (v->dtype != NPK_DT_FLOAT) {
        bfail(b, ni, "its %s '%s' is %s: the plan takes float32 weights, or int8 ones behind "
              "a DequantizeLinear or in a QLinear operator", what, v->name, npk_dtype_name(v->dtype));
        return NULL;
    }
    const float *f = v->data;
    for (uint64_t i = 0; i < v->elems; i++)
        if (!isfinite(f[i])) {
            bfail(b, ni, "its %s '%s' has %s at element %llu: weights must be finite", what,
                  v->name, isnan(f[i]) ? "NaN" : "an infinity", (unsigned long long)i);
            return NULL;
        }
    return v;
}

/* Owned float copies of a layer's weights and biases (freed by npk_plan_free). */
static float *fdup(builder *b, int node, size_t n)
{
    float *f = calloc(n ? n : 1, sizeof *f);
    if (!f)
        bfail(b, node, "out of memory (%zu weights)", n);
    return f;
}

/* The bias of a dense layer: a constant broadcastable to [n_out] ([n_out], [1, n_out], [1]). */
static int dense_bias(builder *b, int ni, const npk_value *c, npk_layer *l)
{
    size_t n = (size_t)l->n_out;
    if (c->elems != 1 && c->elems != n)
        return bfail(b, ni, "bias '%s' has %llu elements, the layer %zu outputs", c->name,
                     (unsigned long long)c->elems, n);
    float *bias = fdup(b, ni, n);
    if (!bias)
        return -1;
    const float *src = c->data;
    for (size_t o = 0; o < n; o++)
        bias[o] = c->elems == 1 ? src[0] : src[o];
    l->b = bias;
    return 0;
}

/* ---- values, tensors and open layers ----
 * Every IR value the plan computes maps to a tensor (vt) once it is materialised; a layer stays
 * open while a bias Add or an activation may still merge into it (vl: the open layer a value is
 * the result of; lval: the value an open layer has reached). A layer is closed, its output
 * tensor made from the value it reached, when a node reads that value for anything else, or
 * at the end. Nodes come in topological order, so layers and tensors do too. */

/* How many non-folded nodes read value v (a node reading it twice counts once). */
static int readers(const npk_model *m, int v)
{
    int k = 0;
    for (size_t i = 0; i < m->n_nodes; i++) {
        const npk_node *n = &m->nodes[i];
        if (n->folded)
            continue;
        int reads = 0;
        for (int j = 0; j < n->n_in; j++)
            reads |= n->in[j] == v;
        k += reads;
    }
    return k;
}

static int close_at(builder *b, int node, int li)
{
    npk_plan *p = b->p;
    int v = b->lval[li];
    int t = add_tensor(b, node, &b->m->values[v]);
    if (t < 0)
        return -1;
    npk_layer *l = &p->layers[li];
    l->out = t;
    if (l->kind == NPK_LAYER_SOFTMAX)
        l->row = (int)b->m->values[v].dims[b->m->values[v].rank - 1];
    b->vt[v] = t;
    b->vl[v] = -1;
    return t;
}

/* The tensor holding value v (closing the layer that reached it), or -1 with a message. */
static int tensor_of(builder *b, int node, int v)
{
    if (b->vt[v] >= 0)
        return b->vt[v];
    if (b->vl[v] >= 0)
        return close_at(b, node, b->vl[v]);
    const npk_value *x = &b->m->values[v];
    if (x->data)
        return bfail(b, node, "reads the constant '%s' where the plan takes an activation",
                     x->name);
    return bfail(b, node, "reads '%s', which no layer of the plan computes", x->name);
}

/* A new layer at node ni reading value x, open at value outv. */
static npk_layer *start_layer(builder *b, int ni, npk_layer_kind kind, int x, int outv)
{
    int t = tensor_of(b, ni, x);
    if (t < 0)
        return NULL;
    npk_layer *l = add_layer(b, ni, kind);
    if (!l)
        return NULL;
    l->in = t;
    b->lval[b->p->n_layers - 1] = outv;
    b->vl[outv] = (int)b->p->n_layers - 1;
    return l;
}

/* The open layer whose result is v, when a node may extend it (nothing else reads v and v is
 * not the graph's output; `sole` 0 when a pattern checked the readers itself), or NULL. */
static npk_layer *extendable(builder *b, int v, int sole)
{
    if (b->vl[v] < 0 || b->m->values[v].is_output || (sole && readers(b->m, v) != 1))
        return NULL;
    return &b->p->layers[b->vl[v]];
}

static void extend(builder *b, npk_layer *l, int v, int to)
{
    int li = (int)(l - b->p->layers);
    b->vl[v] = -1;
    b->vl[to] = li;
    b->lval[li] = to;
}

/* The IR dimensions of a value without the batch, their product over [from, to). */
static int64_t dims_prod(const npk_value *v, int from, int to)
{
    int64_t k = 1;
    for (int i = from; i < to; i++)
        k *= v->dims[i];
    return k;
}

static int build_dense(builder *b, int ni, int x_v)
{
    const npk_model *m = b->m;
    const npk_node *n = &m->nodes[ni];
    const npk_value *x = &m->values[x_v];
    int gemm = n->op == NPK_OP_GEMM;
    const npk_value *w = const_f32(b, ni, 1, "weight");
    if (!w)
        return -1;
    if (w->rank != 2 || (gemm ? x->rank != 2 : x->rank < 2 || x->rank > 4))
        return bfail(b, ni, "the plan takes [1, K] x [K, N] products%s (input rank %d, weight "
                     "rank %d)", gemm ? "" : " and [1, S, K] x [K, N] on sequences", x->rank,
                     w->rank);
    int trans_b = gemm && attr_i(n, "transB", 0) != 0;
    if (gemm && attr_i(n, "transA", 0) != 0)
        return bfail(b, ni, "transA = 1 is not lowered (the activation must be [1, K])");
    double alpha = gemm ? attr_f(n, "alpha", 1.0) : 1.0, beta = gemm ? attr_f(n, "beta", 1.0) : 1.0;
    if (!isfinite(alpha) || !isfinite(beta))
        return bfail(b, ni, "alpha %g and beta %g must be finite", alpha, beta);
    int k_in = (int)(trans_b ? w->dims[1] : w->dims[0]);
    int n_out = (int)(trans_b ? w->dims[0] : w->dims[1]);
    npk_layer *l = start_layer(b, ni, NPK_LAYER_DENSE, x_v, n->out[0]);
    if (!l)
        return -1;
    l->n_in = k_in;
    l->n_out = n_out;
    l->rows = (int)dims_prod(x, 1, x->rank - 1);
    float *wt = fdup(b, ni, (size_t)k_in * (size_t)n_out);
    if (!wt)
        return -1;
    l->w = wt;
    const float *src = w->data;
    for (int o = 0; o < n_out; o++)
        for (int i = 0; i < k_in; i++)
            wt[(size_t)o * k_in + i] = (float)(alpha * (trans_b ? src[(size_t)o * k_in + i]
                                                                : src[(size_t)i * n_out + o]));
    if (gemm && n->n_in > 2 && n->in[2] >= 0) {
        const npk_value *c = const_f32(b, ni, 2, "bias C");
        if (!c || dense_bias(b, ni, c, l) != 0)
            return -1;
        if (beta != 1.0)
            for (int o = 0; o < n_out; o++)
                ((float *)l->b)[o] = (float)(beta * l->b[o]);
    }
    for (size_t i = 0; i < (size_t)k_in * (size_t)n_out; i++)
        if (!isfinite(wt[i]))
            return bfail(b, ni, "alpha %g times the weights overflows float32", alpha);
    for (int o = 0; l->b && o < n_out; o++)
        if (!isfinite(l->b[o]))
            return bfail(b, ni, "beta %g times the bias overflows float32", beta);
    return 0;
}

/* An Add right after a MatMul (or a Gemm without C) whose other operand is a constant: the
 * layer's bias. Returns 1 when merged, 0 when not this pattern, -1 on error. */
static int merge_bias(builder *b, int ni, int x)
{
    const npk_model *m = b->m;
    const npk_node *n = &m->nodes[ni];
    npk_layer *l = extendable(b, x, 1);
    if (n->op != NPK_OP_ADD || !l || l->kind != NPK_LAYER_DENSE || l->b ||
        l->act != NPK_ACT_NONE || m->nodes[l->node].out[0] != x)
        return 0;
    int other = n->in[0] == x ? 1 : n->in[1] == x ? 0 : -1;
    if (other < 0 || !m->values[n->in[other]].data)
        return 0;
    const npk_value *c = const_f32(b, ni, other, "bias");
    if (!c || dense_bias(b, ni, c, l) != 0)
        return -1;
    extend(b, l, x, n->out[0]);
    return 1;
}

static int window_attrs(builder *b, int ni, npk_layer *l, const int64_t *kernel)
{
    const npk_node *n = &b->m->nodes[ni];
    const npk_attr *a = npk_node_attr(n, "auto_pad");
    if (a && a->kind == NPK_ATTR_STRING && strcmp(a->s, "NOTSET") != 0 && strcmp(a->s, "VALID"))
        return bfail(b, ni, "auto_pad %s is not lowered (explicit pads are)", a->s);
    const npk_attr *s = npk_node_attr(n, "strides"), *pd = npk_node_attr(n, "pads"),
                   *d = npk_node_attr(n, "dilations");
    if (d && d->kind == NPK_ATTR_INTS)
        for (size_t i = 0; i < d->n; i++)
            if (d->ints[i] != 1)
                return bfail(b, ni, "dilation %lld is not lowered", (long long)d->ints[i]);
    l->kh = (int)kernel[0];
    l->kw = (int)kernel[1];
    if (s && s->kind == NPK_ATTR_INTS && s->n == 2) {
        l->sh = (int)s->ints[0];
        l->sw = (int)s->ints[1];
    }
    if (pd && pd->kind == NPK_ATTR_INTS && pd->n == 4 && !(a && strcmp(a->s, "VALID") == 0)) {
        l->pt = (int)pd->ints[0];
        l->pl = (int)pd->ints[1];
        l->pb = (int)pd->ints[2];
        l->pr = (int)pd->ints[3];
    }
    return 0;
}

static int build_conv(builder *b, int ni, int x)
{
    const npk_node *n = &b->m->nodes[ni];
    if (attr_i(n, "group", 1) != 1)
        return bfail(b, ni, "group %lld is not lowered (group 1 is)", (long long)attr_i(n, "group", 1));
    const npk_value *w = const_f32(b, ni, 1, "weight");
    if (!w)
        return -1;
    npk_layer *l = start_layer(b, ni, NPK_LAYER_CONV, x, n->out[0]);
    if (!l || window_attrs(b, ni, l, w->dims + 2) != 0)
        return -1;
    l->n_out = (int)w->dims[0];
    l->n_in = (int)w->dims[1];
    float *wt = fdup(b, ni, (size_t)w->elems);
    if (!wt)
        return -1;
    memcpy(wt, w->data, (size_t)w->elems * sizeof *wt);
    l->w = wt;
    if (n->n_in > 2 && n->in[2] >= 0) {
        const npk_value *c = const_f32(b, ni, 2, "bias");
        if (!c || dense_bias(b, ni, c, l) != 0)
            return -1;
    }
    return 0;
}

static int build_pool(builder *b, int ni, int x)
{
    const npk_node *n = &b->m->nodes[ni];
    const npk_attr *k = npk_node_attr(n, "kernel_shape");
    if (!k || k->kind != NPK_ATTR_INTS || k->n != 2)
        return bfail(b, ni, "needs a 2-D kernel_shape");
    if (n->n_out > 1 && n->out[1] >= 0 && b->m->values[n->out[1]].is_output)
        return bfail(b, ni, "the Indices output is not lowered");
    npk_layer *l = start_layer(b, ni, n->op == NPK_OP_MAX_POOL ? NPK_LAYER_MAXPOOL
                                                                : NPK_LAYER_AVGPOOL, x, n->out[0]);
    if (!l || window_attrs(b, ni, l, k->ints) != 0)
        return -1;
    l->count_include_pad = (int)attr_i(n, "count_include_pad", 0);
    l->n_in = l->n_out = (int)b->m->values[x].dims[1];
    return 0;
}

/* Apply activation `act` to value x at node `ni`, ending at value `out`: merged into the
 * dense or conv layer that produced x when it has none yet and x has no other reader (`sole`:
 * check that here), else an ACT layer of its own. */
static int apply_act(builder *b, int ni, npk_act act, double alpha, int x, int out, int sole)
{
    npk_layer *last = extendable(b, x, sole);
    if (last && (last->kind == NPK_LAYER_DENSE || last->kind == NPK_LAYER_CONV) &&
        last->act == NPK_ACT_NONE) {
        last->act = act;
        last->alpha = alpha;
        extend(b, last, x, out);
        return 0;
    }
    npk_layer *l = start_layer(b, ni, NPK_LAYER_ACT, x, out);
    if (!l)
        return -1;
    l->act = act;
    l->alpha = alpha;
    return 0;
}

/* An activation node. */
static int build_act(builder *b, int ni, int x)
{
    const npk_node *n = &b->m->nodes[ni];
    npk_act act = n->op == NPK_OP_RELU         ? NPK_ACT_RELU
                  : n->op == NPK_OP_LEAKY_RELU ? NPK_ACT_LEAKY_RELU
                  : n->op == NPK_OP_GELU       ? NPK_ACT_GELU
                  : n->op == NPK_OP_TANH       ? NPK_ACT_TANH
                                               : NPK_ACT_SIGMOID;
    if (n->op == NPK_OP_GELU) {
        const npk_attr *a = npk_node_attr(n, "approximate");
        if (a && a->kind == NPK_ATTR_STRING && strcmp(a->s, "none") != 0)
            return bfail(b, ni, "approximate = '%s' is not lowered (the erf form is)", a->s);
    }
    double alpha = n->op == NPK_OP_LEAKY_RELU ? attr_f(n, "alpha", 0.01) : 0.0;
    if (!isfinite(alpha))
        return bfail(b, ni, "alpha %g must be finite", alpha);
    return apply_act(b, ni, act, alpha, x, n->out[0], 1);
}

/* The single non-folded node reading value v, or -1 (none, or more than one). */
static int sole_reader(const npk_model *m, int v)
{
    int found = -1;
    for (size_t i = 0; i < m->n_nodes; i++) {
        const npk_node *n = &m->nodes[i];
        if (n->folded)
            continue;
        for (int j = 0; j < n->n_in; j++)
            if (n->in[j] == v) {
                if (found >= 0 && found != (int)i)
                    return -1;
                found = (int)i;
            }
    }
    return found;
}

/* Is value v a float32 constant of one element equal to `want` (within 1e-6 relative)? */
static int const_is(const npk_model *m, int v, double want)
{
    if (v < 0 || !m->values[v].data || m->values[v].dtype != NPK_DT_FLOAT ||
        m->values[v].elems != 1)
        return 0;
    double c = ((const float *)m->values[v].data)[0];
    return fabs(c - want) <= 1e-6 * fabs(want);
}

/* The other input of binary node n beside value a, or -1 when n does not read a. */
static int other_input(const npk_node *n, int a)
{
    if (n->n_in != 2)
        return -1;
    return n->in[0] == a ? n->in[1] : n->in[1] == a ? n->in[0] : -1;
}

/* Do exactly the nodes of `nodes` (count k) read value x (and nothing else reads it)? */
static int read_only_by(const npk_model *m, int x, const int *nodes, int k)
{
    for (size_t i = 0; i < m->n_nodes; i++) {
        const npk_node *n = &m->nodes[i];
        int reads = 0, listed = 0;
        for (int j = 0; !n->folded && j < n->n_in; j++)
            reads |= n->in[j] == x;
        for (int j = 0; j < k; j++)
            listed |= nodes[j] == (int)i;
        if (reads != listed)
            return 0;
    }
    return !m->values[x].is_output;
}

/* The erf form of GELU as PyTorch exports it (docs/models.md, "The plan"):
 *   d = Div(x, sqrt 2); e = Erf(d); a = Add(e, 1); m = Mul(x, a); y = Mul(m, 0.5)
 * with the operands of Add and the Muls in either order, each intermediate read only by the
 * next node and x read only by the Div and the first Mul. Returns 1 and the five node indices
 * when node `ni` starts it. */
static int match_gelu(const npk_model *m, int ni, int nodes[5])
{
    const npk_node *n0 = &m->nodes[ni];
    if (n0->op != NPK_OP_DIV || n0->n_in != 2 || !const_is(m, n0->in[1], sqrt(2.0)))
        return 0;
    int x = n0->in[0];
    nodes[0] = ni;
    int v = n0->out[0];
    static const npk_op ops[4] = {NPK_OP_ERF, NPK_OP_ADD, NPK_OP_MUL, NPK_OP_MUL};
    for (int k = 1; k < 5; k++) {
        int r = sole_reader(m, v);
        if (r < 0 || m->nodes[r].op != ops[k - 1])
            return 0;
        const npk_node *n = &m->nodes[r];
        if (k == 1 && (n->n_in != 1 || n->in[0] != v))
            return 0;
        int o = k == 1 ? -2 : other_input(n, v);
        if ((k == 2 && !const_is(m, o, 1.0)) || (k == 3 && o != x) ||
            (k == 4 && !const_is(m, o, 0.5)))
            return 0;
        nodes[k] = r;
        v = n->out[0];
    }
    /* x feeds exactly the Div and the first Mul */
    int feeds[2] = {nodes[0], nodes[3]};
    return read_only_by(m, x, feeds, 2);
}

/* Is ReduceMean node n over the last axis only, keeping it? */
static int mean_last(const npk_model *m, const npk_node *n)
{
    if (n->op != NPK_OP_REDUCE_MEAN || attr_i(n, "keepdims", 1) != 1)
        return 0;
    int rank = m->values[n->in[0]].rank;
    const npk_attr *a = npk_node_attr(n, "axes");
    const int64_t *axes = NULL;
    size_t na = 0;
    if (a && a->kind == NPK_ATTR_INTS) {
        axes = a->ints;
        na = a->n;
    } else if (n->n_in > 1 && n->in[1] >= 0 && m->values[n->in[1]].data &&
               m->values[n->in[1]].dtype == NPK_DT_INT64) {
        axes = m->values[n->in[1]].data;
        na = (size_t)m->values[n->in[1]].elems;
    }
    return na == 1 && (axes[0] == -1 || axes[0] == rank - 1);
}

/* RMSNorm as PyTorch exports x * rsqrt(mean(x^2, -1, keepdim) + eps) * g and
 * x / sqrt(mean(x * x, -1, keepdim) + eps) * g (torch 1.13 and 2.x, opset 17):
 *   s = Pow(x, 2) or Mul(x, x); r = ReduceMean(s, axes [-1], keepdims 1); a = Add(r, eps);
 *   q = Sqrt(a); then n = Div(x, q), or d = Div(1, q) or Reciprocal(q) (the dynamo
 *   exporter's rsqrt) and n = Mul(x, d); then optionally
 *   y = Mul(n, g), g a float constant of the last dimension's size (or one element)
 * with the operands of Add and the Muls in either order, each intermediate read only by the
 * next node (x may have other readers: the layer reads it). Returns the count of nodes (in
 * `nodes`), 0 when node `ni` does not start it; *eps and *gain (a value, or -1). */
static int match_rms(const npk_model *m, int ni, int nodes[7], double *eps, int *gain)
{
    const npk_node *n0 = &m->nodes[ni];
    if (n0->n_in != 2 || !((n0->op == NPK_OP_POW && const_is(m, n0->in[1], 2.0)) ||
                           (n0->op == NPK_OP_MUL && n0->in[0] == n0->in[1])))
        return 0;
    int x = n0->in[0], k = 0, v = n0->out[0], r;
    const npk_value *xv = &m->values[x];
    if (xv->data || xv->dtype != NPK_DT_FLOAT || xv->rank < 2)
        return 0;
    nodes[k++] = ni;
    if ((r = sole_reader(m, v)) < 0 || !mean_last(m, &m->nodes[r]))
        return 0;
    nodes[k++] = r;
    v = m->nodes[r].out[0];
    if ((r = sole_reader(m, v)) < 0 || m->nodes[r].op != NPK_OP_ADD)
        return 0;
    int e = other_input(&m->nodes[r], v);
    if (e < 0 || !m->values[e].data || m->values[e].dtype != NPK_DT_FLOAT ||
        m->values[e].elems != 1)
        return 0;
    *eps = ((const float *)m->values[e].data)[0];
    nodes[k++] = r;
    v = m->nodes[r].out[0];
    if ((r = sole_reader(m, v)) < 0 || m->nodes[r].op != NPK_OP_SQRT)
        return 0;
    nodes[k++] = r;
    v = m->nodes[r].out[0];
    if ((r = sole_reader(m, v)) < 0 ||
        !(m->nodes[r].op == NPK_OP_RECIPROCAL ||
          (m->nodes[r].op == NPK_OP_DIV && m->nodes[r].in[1] == v)))
        return 0;
    int div = r;
    nodes[k++] = r;
    if (m->nodes[r].op == NPK_OP_RECIPROCAL || m->nodes[r].in[0] != x) {
        /* 1 / sqrt (Div of 1, or Reciprocal), then Mul by x */
        if (m->nodes[r].op == NPK_OP_DIV && !const_is(m, m->nodes[r].in[0], 1.0))
            return 0;
        v = m->nodes[r].out[0];
        if ((r = sole_reader(m, v)) < 0 || m->nodes[r].op != NPK_OP_MUL ||
            other_input(&m->nodes[r], v) != x)
            return 0;
        div = r;
        nodes[k++] = r;
    }
    v = m->nodes[div].out[0];
    *gain = -1;
    r = sole_reader(m, v);
    if (r >= 0 && m->nodes[r].op == NPK_OP_MUL && !m->values[v].is_output) {
        int g = other_input(&m->nodes[r], v);
        const npk_value *gv = g >= 0 ? &m->values[g] : NULL;
        if (gv && gv->data && gv->dtype == NPK_DT_FLOAT &&
            (gv->elems == 1 || (int64_t)gv->elems == xv->dims[xv->rank - 1])) {
            *gain = g;
            nodes[k++] = r;
        }
    }
    return k;
}

/* A normalisation layer over the last dimension of value x: the gain (a constant of that
 * many elements or one, or none) into w, the bias into b. */
static int build_norm(builder *b, int ni, npk_layer_kind kind, int x, int out, double eps,
                      int gk, int bk)
{
    const npk_value *xv = &b->m->values[x];
    if (xv->rank < 2)
        return bfail(b, ni, "normalises '%s' of rank %d: the plan takes [1, ..., D]", xv->name,
                     xv->rank);
    if (!(eps >= 0) || !isfinite(eps))
        return bfail(b, ni, "epsilon %g must be finite and not negative", eps);
    int d = (int)xv->dims[xv->rank - 1];
    const npk_value *g = gk >= 0 ? const_f32(b, ni, gk, "scale") : NULL;
    const npk_value *bv = bk >= 0 && b->m->nodes[ni].n_in > bk && b->m->nodes[ni].in[bk] >= 0
                              ? const_f32(b, ni, bk, "bias")
                              : NULL;
    if ((gk >= 0 && !g) || (bk >= 0 && !bv && b->m->nodes[ni].n_in > bk &&
                            b->m->nodes[ni].in[bk] >= 0))
        return -1;
    for (int k = 0; k < 2; k++) {
        const npk_value *c = k ? bv : g;
        if (c && c->elems != 1 && c->elems != (uint64_t)d)
            return bfail(b, ni, "its %s '%s' has %llu elements; the rows have %d",
                         k ? "bias" : "scale", c->name, (unsigned long long)c->elems, d);
    }
    npk_layer *l = start_layer(b, ni, kind, x, out);
    if (!l)
        return -1;
    l->row = l->n_in = l->n_out = d;
    l->eps = eps;
    for (int k = 0; k < 2; k++) {
        const npk_value *c = k ? bv : g;
        if (!c)
            continue;
        float *f = fdup(b, ni, (size_t)d);
        if (!f)
            return -1;
        for (int i = 0; i < d; i++)
            f[i] = ((const float *)c->data)[c->elems == 1 ? 0 : i];
        if (k)
            l->b = f;
        else
            l->w = f;
    }
    return 0;
}

static int build_layernorm(builder *b, int ni, int x)
{
    const npk_node *n = &b->m->nodes[ni];
    const npk_value *xv = &b->m->values[x];
    int64_t axis = attr_i(n, "axis", -1);
    if (axis != -1 && axis != xv->rank - 1)
        return bfail(b, ni, "normalises from axis %lld of a rank-%d tensor: the plan takes the "
                     "last axis", (long long)axis, xv->rank);
    for (int k = 1; k < n->n_out; k++)
        if (n->out[k] >= 0 && readers(b->m, n->out[k]) + b->m->values[n->out[k]].is_output)
            return bfail(b, ni, "its Mean and InvStdDev outputs are not lowered");
    return build_norm(b, ni, NPK_LAYER_LAYERNORM, x, n->out[0], attr_f(n, "epsilon", 1e-5), 1, 2);
}

/* MatMul of two activations: [1, (B,) M, K] x [1, (B,) K, N], the batch dimensions equal. */
static int build_matmul(builder *b, int ni)
{
    const npk_model *m = b->m;
    const npk_node *n = &m->nodes[ni];
    const npk_value *a = &m->values[n->in[0]], *c = &m->values[n->in[1]];
    if (a->rank != c->rank || a->rank < 3 || a->rank > 4)
        return bfail(b, ni, "multiplies '%s' (rank %d) by '%s' (rank %d): the plan takes "
                     "[1, M, K] x [1, K, N] and [1, B, M, K] x [1, B, K, N] of two activations",
                     a->name, a->rank, c->name, c->rank);
    if (a->rank == 4 && a->dims[1] != c->dims[1])
        return bfail(b, ni, "batches of %lld and %lld: the plan does not broadcast MatMul's "
                     "batch", (long long)a->dims[1], (long long)c->dims[1]);
    int in2 = tensor_of(b, ni, n->in[1]);
    if (in2 < 0)
        return -1;
    npk_layer *l = start_layer(b, ni, NPK_LAYER_MATMUL, n->in[0], n->out[0]);
    if (!l)
        return -1;
    l->in2 = in2;
    l->batch = a->rank == 4 ? (int)a->dims[1] : 1;
    l->rows = (int)a->dims[a->rank - 2];
    l->n_in = (int)a->dims[a->rank - 1];
    l->n_out = (int)c->dims[c->rank - 1];
    return 0;
}

static int build_transpose(builder *b, int ni, int x)
{
    const npk_node *n = &b->m->nodes[ni];
    const npk_value *xv = &b->m->values[x];
    const npk_attr *pa = npk_node_attr(n, "perm");
    int r = xv->rank;
    if (r < 2 || r > 4)
        return bfail(b, ni, "transposes a rank-%d tensor: the plan takes ranks 2 to 4", r);
    if (pa && (pa->kind != NPK_ATTR_INTS || pa->n != (size_t)r))
        return bfail(b, ni, "perm does not have %d entries", r);
    npk_layer *l = start_layer(b, ni, NPK_LAYER_TRANSPOSE, x, n->out[0]);
    if (!l)
        return -1;
    l->trank = r - 1;
    for (int i = 0; i < r; i++) {
        int64_t p = pa && pa->kind == NPK_ATTR_INTS && pa->n == (size_t)r ? pa->ints[i]
                                                                          : r - 1 - i;
        if ((i == 0) != (p == 0))
            return bfail(b, ni, "perm moves the batch axis (perm[%d] = %lld): the plan takes "
                         "permutations that keep axis 0 first", i, (long long)p);
        if (i > 0) {
            l->perm[i - 1] = (int)p - 1;
            l->tdims[i - 1] = (int)xv->dims[i];
        }
    }
    return 0;
}

/* Mul or Div of activation x by a constant scalar. */
static int build_scale(builder *b, int ni, int x)
{
    const npk_node *n = &b->m->nodes[ni];
    int c = other_input(n, x);
    const npk_value *cv = c >= 0 ? &b->m->values[c] : NULL;
    if (!cv || (n->op == NPK_OP_DIV && n->in[0] != x))
        return bfail(b, ni, "the plan takes %s of an activation by a constant",
                     n->op == NPK_OP_DIV ? "the division" : "the product");
    const npk_value *k = const_f32(b, ni, n->in[0] == x ? 1 : 0, "factor");
    if (!k)
        return -1;
    if (k->elems != 1)
        return bfail(b, ni, "by a constant of %llu elements: the plan takes a scalar (one "
                     "element)", (unsigned long long)k->elems);
    double f = ((const float *)k->data)[0];
    if (n->op == NPK_OP_DIV && f == 0.0)
        return bfail(b, ni, "divides by zero");
    npk_layer *l = start_layer(b, ni, NPK_LAYER_SCALE, x, n->out[0]);
    if (!l)
        return -1;
    l->factor = n->op == NPK_OP_DIV ? 1.0 / f : f;
    return 0;
}

/* Add of two activations of the same shape. */
static int build_add(builder *b, int ni)
{
    const npk_model *m = b->m;
    const npk_node *n = &m->nodes[ni];
    const npk_value *x = &m->values[n->in[0]], *y = &m->values[n->in[1]];
    int same = x->rank == y->rank;
    for (int i = 0; same && i < x->rank; i++)
        same = x->dims[i] == y->dims[i];
    if (!same)
        return bfail(b, ni, "adds '%s' and '%s' of different shapes: the plan does not "
                     "broadcast the Add of two activations", x->name, y->name);
    int in2 = tensor_of(b, ni, n->in[1]);
    if (in2 < 0)
        return -1;
    npk_layer *l = start_layer(b, ni, NPK_LAYER_ADD, n->in[0], n->out[0]);
    if (!l)
        return -1;
    l->in2 = in2;
    return 0;
}

/* A zero Pad of the two spatial axes of an (N, C, H, W) activation x, merged into the Conv or
 * AveragePool that alone reads it: its pads (top, left, bottom, right) are stored at
 * xpad[4 * reader] and the Pad's result is x's tensor. An AveragePool then counts the padded
 * positions (count_include_pad = 1, as the explicit zeros are values). MaxPool is refused: it
 * skips padded positions, the Pad makes them zeros that a window of negatives would take. */
static int build_pad(builder *b, int ni, int x, int *xpad)
{
    const npk_model *m = b->m;
    const npk_node *n = &m->nodes[ni];
    const npk_value *xv = &m->values[x];
    if (n->in[0] != x || xv->rank != 4)
        return bfail(b, ni, "pads '%s' of rank %d: the plan merges a Pad of an (N, C, H, W) "
                     "activation only", xv->name, xv->rank);
    /* the reader checked 8 pads: an int64 or int32 input from opset 11, an attribute before */
    int64_t pads[8];
    const npk_attr *pa = npk_node_attr(n, "pads");
    const npk_value *pv = n->n_in > 1 && n->in[1] >= 0 ? &m->values[n->in[1]] : NULL;
    for (int i = 0; i < 8; i++)
        pads[i] = pv ? npk_value_int(pv, (uint64_t)i) : pa->ints[i];
    if (pads[0] || pads[1] || pads[4] || pads[5])
        return bfail(b, ni, "pads the batch or channel axis (pads %lld,%lld,%lld,%lld of N and "
                     "C): the plan merges padding of H and W only", (long long)pads[0],
                     (long long)pads[4], (long long)pads[1], (long long)pads[5]);
    int y = n->out[0], r = sole_reader(m, y);
    const npk_node *rn = r >= 0 ? &m->nodes[r] : NULL;
    if (!rn || m->values[y].is_output || rn->in[0] != y ||
        (rn->op != NPK_OP_CONV && rn->op != NPK_OP_AVG_POOL && rn->op != NPK_OP_MAX_POOL))
        return bfail(b, ni, "its result '%s' is not read by one Conv or AveragePool alone: the "
                     "plan merges a Pad into the Conv or AveragePool that follows it",
                     m->values[y].name);
    if (rn->op == NPK_OP_MAX_POOL)
        return bfail(b, ni, "is followed by MaxPool node %d '%s': not merged (MaxPool skips "
                     "padded positions, the Pad makes them zeros that count)", r, rn->name);
    const npk_attr *own = npk_node_attr(rn, "pads");
    bool padded = false;
    for (size_t i = 0; own && own->kind == NPK_ATTR_INTS && i < own->n; i++)
        padded = padded || own->ints[i] != 0;
    if (rn->op == NPK_OP_AVG_POOL && padded && attr_i(rn, "count_include_pad", 0) == 0)
        return bfail(b, ni, "is followed by AveragePool node %d '%s' with pads of its own that "
                     "do not count (count_include_pad 0): the merged pads would count", r,
                     rn->name);
    for (int i = 0; i < 4; i++)
        if (pads[2 + (i & 1) + 4 * (i >> 1)] > 4096)
            return bfail(b, ni, "pads %lld: the plan merges pads of at most 4096",
                         (long long)pads[2 + (i & 1) + 4 * (i >> 1)]);
    xpad[4 * r + 0] = (int)pads[2];
    xpad[4 * r + 1] = (int)pads[3];
    xpad[4 * r + 2] = (int)pads[6];
    xpad[4 * r + 3] = (int)pads[7];
    int t = tensor_of(b, ni, x);
    if (t < 0)
        return -1;
    b->vt[y] = t;
    return 0;
}

/* Add the pads of a merged Pad (build_pad) to the layer just built for node ni. */
static void merge_pads(builder *b, int ni, const int *xpad)
{
    const int *d = xpad + 4 * ni;
    if (!(d[0] | d[1] | d[2] | d[3]))
        return;
    npk_layer *l = &b->p->layers[b->p->n_layers - 1];
    l->pt += d[0];
    l->pl += d[1];
    l->pb += d[2];
    l->pr += d[3];
    if (l->kind == NPK_LAYER_AVGPOOL)
        l->count_include_pad = 1;
}

int npk_plan_output_dims(const npk_plan *p, int64_t *dims)
{
    const npk_ptensor *o = &p->tensors[p->n_tensors - 1];
    const npk_model *m = p->model;
    const npk_value *ov = m->n_outputs ? &m->values[m->outputs[0]] : NULL;
    if (ov && ov->rank >= 2 && ov->dims[0] == 1 && ov->elems == o->elems) {
        for (int i = 1; i < ov->rank; i++)
            dims[i - 1] = ov->dims[i];
        return ov->rank - 1;
    }
    for (int i = 0; i < o->rank; i++)
        dims[i] = o->dims[i];
    return o->rank;
}

int npk_plan_build(const npk_model *m, npk_plan **out, char *err, size_t err_size)
{
    builder b = {.m = m, .err = err, .err_size = err_size};
    *out = NULL;
    if (m->n_inputs != 1 || m->n_outputs != 1)
        return bfail(&b, -1, "the plan takes models with one input and one output (this one has "
                     "%zu and %zu)", m->n_inputs, m->n_outputs);
    const npk_value *vin = &m->values[m->inputs[0]];
    if (vin->dtype != NPK_DT_FLOAT)
        return bfail(&b, -1, "input '%s' is %s: the plan takes float32 inputs", vin->name,
                     npk_dtype_name(vin->dtype));
    b.p = calloc(1, sizeof *b.p);
    size_t nv = m->n_values ? m->n_values : 1;
    b.vt = malloc(nv * sizeof *b.vt);
    b.vl = malloc(nv * sizeof *b.vl);
    unsigned char *skip = calloc(m->n_nodes ? m->n_nodes : 1, 1);   /* nodes a pattern took */
    int *xpad = calloc(m->n_nodes ? 4 * m->n_nodes : 1, sizeof *xpad);   /* merged Pads */
    npk_plan *p = b.p;
    if (!p || !b.vt || !b.vl || !skip || !xpad) {
        bfail(&b, -1, "out of memory");
        goto fail;
    }
    for (size_t v = 0; v < nv; v++)
        b.vt[v] = b.vl[v] = -1;
    p->model = m;
    if ((b.vt[m->inputs[0]] = add_tensor(&b, -1, vin)) < 0)
        goto fail;
    for (size_t i = 0; i < m->n_nodes; i++) {
        const npk_node *n = &m->nodes[i];
        int ni = (int)i;
        if (n->folded || skip[i])
            continue;
        int pat[7], gain;
        double eps;
        if (match_gelu(m, ni, pat)) {
            for (int k = 0; k < 5; k++)
                skip[pat[k]] = 1;
            if (apply_act(&b, ni, NPK_ACT_GELU, 0.0, n->in[0], m->nodes[pat[4]].out[0], 0) != 0)
                goto fail;
            continue;
        }
        int k = match_rms(m, ni, pat, &eps, &gain);
        if (k > 0) {
            for (int j = 0; j < k; j++)
                skip[pat[j]] = 1;
            /* the gain, when merged, is input 0 or 1 of the last Mul */
            int last = pat[k - 1], gk = -1;
            if (gain >= 0)
                gk = m->nodes[last].in[0] == gain ? 0 : 1;
            if (build_norm(&b, gain >= 0 ? last : ni, NPK_LAYER_RMSNORM, n->in[0],
                           m->nodes[last].out[0], eps, gk, -1) != 0)
                goto fail;
            p->layers[p->n_layers - 1].node = ni;
            p->layers[p->n_layers - 1].name = n->name;
            p->layers[p->n_layers - 1].op = npk_op_name(n->op);
            continue;
        }
        if (n->op == NPK_OP_DEQUANTIZE && npk_plan_q_weight(&b, ni) != 0)
            goto fail;
        /* the activations the node reads (the other inputs are constants) */
        int acts[2], na = 0;
        for (int j = 0; j < n->n_in; j++) {
            int v = n->in[j];
            if (v < 0 || m->values[v].data || (na && acts[na - 1] == v))
                continue;
            if (na == 2 || (na == 1 && n->op != NPK_OP_ADD && n->op != NPK_OP_MATMUL)) {
                bfail(&b, ni, "reads '%s' beside '%s': the plan takes %s of one activation "
                      "(and constants); of two, Add and MatMul only", m->values[v].name,
                      m->values[acts[0]].name, npk_op_name(n->op));
                goto fail;
            }
            acts[na++] = v;
        }
        if (!na) {
            bfail(&b, ni, "reads no activation (only constants that were not folded)");
            goto fail;
        }
        int x = acts[0], r = 0;
        switch (n->op) {
        case NPK_OP_GEMM:
            r = n->in[0] == x ? build_dense(&b, ni, x)
                              : bfail(&b, ni, "the activation must be input A");
            break;
        case NPK_OP_MATMUL:
            if (na == 2 && m->values[n->in[0]].rank >= 3)
                r = build_matmul(&b, ni);
            else if (n->in[0] == x)
                r = build_dense(&b, ni, x);
            else
                r = bfail(&b, ni, "multiplies the constant '%s' by an activation: the plan "
                          "takes the weight second", m->values[n->in[0]].name);
            break;
        case NPK_OP_ADD:
            if (na == 2) {
                r = build_add(&b, ni);
                break;
            }
            r = merge_bias(&b, ni, x);
            if (r == 0)
                r = bfail(&b, ni, "only a constant bias right after a MatMul is lowered");
            else if (r > 0)
                r = 0;
            break;
        case NPK_OP_MUL:
        case NPK_OP_DIV:
            r = build_scale(&b, ni, x);
            break;
        case NPK_OP_CONV:
            r = build_conv(&b, ni, x);
            if (r == 0)
                merge_pads(&b, ni, xpad);
            break;
        case NPK_OP_MAX_POOL:
        case NPK_OP_AVG_POOL:
            r = build_pool(&b, ni, x);
            if (r == 0)
                merge_pads(&b, ni, xpad);
            break;
        case NPK_OP_PAD:
            r = build_pad(&b, ni, x, xpad);
            break;
        case NPK_OP_RELU:
        case NPK_OP_LEAKY_RELU:
        case NPK_OP_GELU:
        case NPK_OP_TANH:
        case NPK_OP_SIGMOID:
            r = build_act(&b, ni, x);
            break;
        case NPK_OP_FLATTEN:
        case NPK_OP_RESHAPE:
        case NPK_OP_IDENTITY: {
            /* views: the row-major order is kept; the tensor keeps the shape of the value
             * before the view and the next layer reads its elements in that order */
            int t = tensor_of(&b, ni, x);
            if (t < 0)
                r = -1;
            else if (p->tensors[t].elems != m->values[n->out[0]].elems)
                r = bfail(&b, ni, "changes the element count");
            else
                b.vt[n->out[0]] = t;
            break;
        }
        case NPK_OP_TRANSPOSE:
            r = build_transpose(&b, ni, x);
            break;
        case NPK_OP_LAYER_NORM:
            r = build_layernorm(&b, ni, x);
            break;
        case NPK_OP_SOFTMAX: {
            const npk_value *xv = &m->values[x];
            int64_t axis = attr_i(n, "axis", m->opset < 13 ? 1 : -1);
            if (axis < 0)
                axis += xv->rank;
            if (axis != xv->rank - 1) {
                r = bfail(&b, ni, "softmax over axis %lld of a rank-%d tensor: the plan takes the "
                          "last axis", (long long)axis, xv->rank);
                break;
            }
            r = start_layer(&b, ni, NPK_LAYER_SOFTMAX, x, n->out[0]) ? 0 : -1;
            break;
        }
        case NPK_OP_QUANTIZE:
        case NPK_OP_DEQUANTIZE:
        case NPK_OP_QLINEAR_CONV:
        case NPK_OP_QLINEAR_MATMUL:
            r = npk_plan_q_node(&b, ni, x);
            break;
        default:
            r = bfail(&b, ni, "no lowering takes this operator yet (the plan takes Gemm, "
                      "MatMul, Add, Mul and Div by a scalar, Conv, Relu, LeakyRelu, Gelu, Tanh, "
                      "Sigmoid, MaxPool, AveragePool, a zero Pad before Conv or AveragePool, "
                      "Flatten, Reshape, Transpose, Softmax, "
                      "LayerNormalization and the Gelu and RMSNorm patterns)");
        }
        if (r != 0)
            goto fail;
    }
    if (!p->n_layers) {
        bfail(&b, -1, "the model has no layer to lower");
        goto fail;
    }
    for (size_t i = 0; i < p->n_layers; i++)
        if (p->layers[i].out < 0 && close_at(&b, -1, (int)i) < 0)
            goto fail;
    int yt = b.vt[m->outputs[0]];
    if (yt != (int)p->n_tensors - 1) {
        bfail(&b, -1, "the output '%s' is %s", m->values[m->outputs[0]].name,
              yt < 0 ? "not computed by the plan"
                     : "not the last tensor the plan computes (a layer's result is unused)");
        goto fail;
    }
    /* shapes each layer needs, checked once */
    for (size_t i = 0; i < p->n_layers; i++) {
        npk_layer *l = &p->layers[i];
        const npk_ptensor *x = &p->tensors[l->in], *y = &p->tensors[l->out];
        size_t x2 = l->in2 >= 0 ? p->tensors[l->in2].elems : 0;
        size_t rows = (size_t)l->rows * (size_t)l->batch;
        int bad = 0;
        uint64_t macs = 0;
        switch (l->kind) {
        case NPK_LAYER_DENSE:
            bad = x->elems != rows * (size_t)l->n_in || y->elems != rows * (size_t)l->n_out;
            macs = (uint64_t)rows * (uint64_t)l->n_in * (uint64_t)l->n_out;
            break;
        case NPK_LAYER_MATMUL:
            bad = x->elems != rows * (size_t)l->n_in || y->elems != rows * (size_t)l->n_out ||
                  x2 != (size_t)l->batch * (size_t)l->n_in * (size_t)l->n_out;
            macs = (uint64_t)rows * (uint64_t)l->n_in * (uint64_t)l->n_out;
            break;
        case NPK_LAYER_CONV:
        case NPK_LAYER_MAXPOOL:
        case NPK_LAYER_AVGPOOL:
            bad = x->rank != 3 || y->rank != 3 || x->dims[0] != l->n_in || y->dims[0] != l->n_out;
            if (l->kind == NPK_LAYER_CONV)
                macs = (uint64_t)y->elems * (uint64_t)l->n_in * (uint64_t)(l->kh * l->kw);
            break;
        case NPK_LAYER_LAYERNORM:
        case NPK_LAYER_RMSNORM:
            bad = x->elems != y->elems || l->row < 1 || x->elems % (size_t)l->row;
            break;
        case NPK_LAYER_TRANSPOSE: {
            size_t k = 1;
            for (int a = 0; a < l->trank; a++)
                k *= (size_t)l->tdims[a];
            bad = x->elems != k || y->elems != k;
            break;
        }
        case NPK_LAYER_ADD:
            bad = x->elems != y->elems || x2 != y->elems;
            break;
        default:
            bad = x->elems != y->elems;
        }
        if (bad) {
            npk_layer_kind k = l->kind;
            bfail(&b, l->node, "the %s layer's shapes do not fit the plan (input %zu elements, "
                  "output %zu)", npk_layer_kind_name(k), x->elems, y->elems);
            goto fail;
        }
        p->macs += macs;
    }
    if (npk_plan_q_finish(&b) != 0)
        goto fail;
    free(skip);
    free(xpad);
    free(b.vt);
    free(b.vl);
    free(b.lval);
    *out = p;
    return 0;
fail:
    free(skip);
    free(xpad);
    free(b.vt);
    free(b.vl);
    free(b.lval);
    npk_plan_free(p);
    return -1;
}

void npk_plan_free(npk_plan *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n_layers; i++) {
        npk_layer *l = &p->layers[i];
        free((void *)l->w);
        free((void *)l->b);
        free(l->wq);
        free(l->wscale);
        free(l->bq);
        npk_plan_q_free(l);
    }
    free(p->layers);
    free(p->tensors);
    free(p);
}

/* ---- the float64 host run ---- */

double npk_act_f64(npk_act a, double alpha, double x)
{
    switch (a) {
    case NPK_ACT_RELU:
        return x > 0 ? x : 0;
    case NPK_ACT_LEAKY_RELU:
        return x >= 0 ? x : alpha * x;
    case NPK_ACT_GELU:
        return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
    case NPK_ACT_TANH:
        return tanh(x);
    case NPK_ACT_SIGMOID:
        return 1.0 / (1.0 + exp(-x));
    default:
        return x;
    }
}

static void run_layer(const npk_plan *p, const npk_layer *l, const double *x, const double *x2,
                      double *y)
{
    const npk_ptensor *tx = &p->tensors[l->in], *ty = &p->tensors[l->out];
    switch (l->kind) {
    case NPK_LAYER_DENSE:
        for (int r = 0; r < (l->rows > 1 ? l->rows : 1); r++, x += l->n_in, y += l->n_out)
            for (int o = 0; o < l->n_out; o++) {
                double s = l->b ? l->b[o] : 0.0;
                const float *w = l->w + (size_t)o * l->n_in;
                for (int i = 0; i < l->n_in; i++)
                    s += x[i] * (double)w[i];
                y[o] = npk_act_f64(l->act, l->alpha, s);
            }
        break;
    case NPK_LAYER_CONV:
    case NPK_LAYER_MAXPOOL:
    case NPK_LAYER_AVGPOOL: {
        int C = tx->dims[0], H = tx->dims[1], W = tx->dims[2];
        int M = ty->dims[0], OH = ty->dims[1], OW = ty->dims[2];
        for (int mo = 0; mo < M; mo++)
            for (int oy = 0; oy < OH; oy++)
                for (int ox = 0; ox < OW; ox++) {
                    double s = l->kind == NPK_LAYER_CONV && l->b ? l->b[mo] : 0.0;
                    double mx = -DBL_MAX;
                    int count = 0;
                    for (int c = l->kind == NPK_LAYER_CONV ? 0 : mo;
                         c < (l->kind == NPK_LAYER_CONV ? C : mo + 1); c++)
                        for (int ky = 0; ky < l->kh; ky++)
                            for (int kx = 0; kx < l->kw; kx++) {
                                int iy = oy * l->sh - l->pt + ky, ix = ox * l->sw - l->pl + kx;
                                int inside = iy >= 0 && iy < H && ix >= 0 && ix < W;
                                if (!inside && !(l->kind == NPK_LAYER_AVGPOOL && l->count_include_pad &&
                                                 iy < H + l->pb && ix < W + l->pr))
                                    continue;
                                double v = inside ? x[((size_t)c * H + iy) * W + ix] : 0.0;
                                count++;
                                if (l->kind == NPK_LAYER_CONV)
                                    s += v * (double)l->w[(((size_t)mo * C + c) * l->kh + ky) *
                                                          l->kw + kx];
                                else if (v > mx)
                                    mx = v;
                                if (l->kind == NPK_LAYER_AVGPOOL)
                                    s += v;
                            }
                    double r = l->kind == NPK_LAYER_CONV      ? npk_act_f64(l->act, l->alpha, s)
                               : l->kind == NPK_LAYER_MAXPOOL ? mx
                                                              : (count ? s / count : 0.0);
                    y[((size_t)mo * OH + oy) * OW + ox] = r;
                }
        break;
    }
    case NPK_LAYER_SOFTMAX:
        for (size_t r0 = 0; r0 < tx->elems; r0 += (size_t)l->row) {
            double mx = -DBL_MAX, sum = 0.0;
            for (int i = 0; i < l->row; i++)
                mx = x[r0 + i] > mx ? x[r0 + i] : mx;
            for (int i = 0; i < l->row; i++)
                sum += (y[r0 + i] = exp(x[r0 + i] - mx));
            for (int i = 0; i < l->row; i++)
                y[r0 + i] /= sum;
        }
        break;
    case NPK_LAYER_ACT:
        for (size_t i = 0; i < tx->elems; i++)
            y[i] = npk_act_f64(l->act, l->alpha, x[i]);
        break;
    case NPK_LAYER_LAYERNORM:
    case NPK_LAYER_RMSNORM:
        for (size_t r0 = 0; r0 < tx->elems; r0 += (size_t)l->row) {
            double mean = 0.0, var = 0.0;
            if (l->kind == NPK_LAYER_LAYERNORM) {
                for (int i = 0; i < l->row; i++)
                    mean += x[r0 + i];
                mean /= l->row;
            }
            for (int i = 0; i < l->row; i++)
                var += (x[r0 + i] - mean) * (x[r0 + i] - mean);
            double inv = 1.0 / sqrt(var / l->row + l->eps);
            for (int i = 0; i < l->row; i++)
                y[r0 + i] = (x[r0 + i] - mean) * inv * (l->w ? (double)l->w[i] : 1.0) +
                            (l->b ? (double)l->b[i] : 0.0);
        }
        break;
    case NPK_LAYER_MATMUL:
        for (int h = 0; h < l->batch; h++)
            for (int r = 0; r < l->rows; r++)
                for (int o = 0; o < l->n_out; o++) {
                    const double *a = x + ((size_t)h * l->rows + r) * l->n_in;
                    const double *c = x2 + (size_t)h * l->n_in * l->n_out + o;
                    double s = 0.0;
                    for (int i = 0; i < l->n_in; i++)
                        s += a[i] * c[(size_t)i * l->n_out];
                    y[((size_t)h * l->rows + r) * l->n_out + o] = s;
                }
        break;
    case NPK_LAYER_TRANSPOSE: {
        /* y's index (j0, j1, j2) over dims tdims[perm[.]] reads x at the index whose axis
         * perm[a] is j_a */
        int d[3] = {1, 1, 1}, st[3] = {0, 0, 0};
        size_t stride = 1;
        for (int a = l->trank - 1; a >= 0; a--) {
            st[a] = (int)stride;
            stride *= (size_t)l->tdims[a];
        }
        int ys[3] = {0, 0, 0};
        for (int a = 0; a < l->trank; a++) {
            d[a] = l->tdims[l->perm[a]];
            ys[a] = st[l->perm[a]];
        }
        size_t k = 0;
        for (int j0 = 0; j0 < d[0]; j0++)
            for (int j1 = 0; j1 < d[1]; j1++)
                for (int j2 = 0; j2 < d[2]; j2++)
                    y[k++] = x[(size_t)j0 * ys[0] + (size_t)j1 * ys[1] + (size_t)j2 * ys[2]];
        break;
    }
    case NPK_LAYER_ADD:
        for (size_t i = 0; i < ty->elems; i++)
            y[i] = x[i] + x2[i];
        break;
    case NPK_LAYER_SCALE:
        for (size_t i = 0; i < ty->elems; i++)
            y[i] = x[i] * l->factor;
        break;
    }
}

static void observe(npk_ptensor *t, const double *v)
{
    for (size_t i = 0; i < t->elems; i++) {
        double a = fabs(v[i]);
        if (a > t->max_abs)
            t->max_abs = a;
    }
}

int npk_plan_run_f64(npk_plan *p, const double *x, double *y, int obs)
{
    /* each tensor in its own buffer, freed after the last layer that reads it (a DAG reads
     * tensors written long before: a residual's input) */
    size_t nt = p->n_tensors;
    double **v = calloc(nt, sizeof *v);
    size_t *last = calloc(nt, sizeof *last);
    int rc = v && last ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < p->n_layers; i++) {
        const npk_layer *l = &p->layers[i];
        last[l->in] = i;
        if (l->kind == NPK_LAYER_MATMUL || l->kind == NPK_LAYER_ADD)
            last[l->in2] = i;
    }
    if (rc == 0 && !(v[0] = malloc((p->tensors[0].elems ? p->tensors[0].elems : 1) * sizeof **v)))
        rc = -1;
    if (rc == 0) {
        memcpy(v[0], x, p->tensors[0].elems * sizeof *x);
        npk_plan_q_round(&p->tensors[0], v[0]);
        if (obs)
            observe(&p->tensors[0], v[0]);
    }
    for (size_t i = 0; rc == 0 && i < p->n_layers; i++) {
        const npk_layer *l = &p->layers[i];
        size_t n = p->tensors[l->out].elems;
        if (!(v[l->out] = malloc((n ? n : 1) * sizeof **v))) {
            rc = -1;
            break;
        }
        int two = l->kind == NPK_LAYER_MATMUL || l->kind == NPK_LAYER_ADD;
        if (l->q && npk_plan_q_run(p, l, v[l->in], v[l->out], run_layer) != 0) {
            rc = -1;
            break;
        }
        if (!l->q)
            run_layer(p, l, v[l->in], two ? v[l->in2] : NULL, v[l->out]);
        npk_plan_q_round(&p->tensors[l->out], v[l->out]);
        if (obs)
            observe(&p->tensors[l->out], v[l->out]);
        for (size_t t = 0; t + 1 < nt; t++)
            if (v[t] && last[t] == i && (int)t != l->out) {
                free(v[t]);
                v[t] = NULL;
            }
    }
    if (rc == 0)
        memcpy(y, v[nt - 1], p->tensors[nt - 1].elems * sizeof *y);
    for (size_t t = 0; v && t < nt; t++)
        free(v[t]);
    free(v);
    free(last);
    return rc;
}

/* ---- calibration and int8 quantisation ---- */

static int quantise_layer(npk_plan *p, npk_layer *l, char *err, size_t err_size)
{
    size_t per = l->kind == NPK_LAYER_DENSE ? (size_t)l->n_in
                                            : (size_t)l->n_in * (size_t)(l->kh * l->kw);
    size_t n = per * (size_t)l->n_out;
    l->wq = malloc(n ? n : 1);
    l->wscale = malloc((size_t)l->n_out * sizeof *l->wscale);
    l->bq = malloc((size_t)l->n_out * sizeof *l->bq);
    if (!l->wq || !l->wscale || !l->bq) {
        snprintf(err, err_size, "out of memory quantising node %d", l->node);
        return -1;
    }
    double in_scale = p->tensors[l->in].scale;
    for (int o = 0; o < l->n_out; o++) {
        const float *w = l->w + (size_t)o * per;
        double mx = 0.0;
        for (size_t i = 0; i < per; i++)
            mx = fabs((double)w[i]) > mx ? fabs((double)w[i]) : mx;
        double s = mx > 0.0 ? mx / 127.0 : 1.0;
        l->wscale[o] = s;
        for (size_t i = 0; i < per; i++) {
            double q = nearbyint((double)w[i] / s);   /* ties to even (default rounding) */
            l->wq[(size_t)o * per + i] = (int8_t)(q > 127 ? 127 : q < -127 ? -127 : q);
        }
        double bq = l->b ? nearbyint((double)l->b[o] / (in_scale * s)) : 0.0;
        if (!(fabs(bq) <= 2147483647.0)) {
            snprintf(err, err_size, "node %d '%s' (%s): bias %d is %g in accumulator units, "
                     "outside int32 (input scale %g, weight scale %g)", l->node, l->name, l->op,
                     o, bq, in_scale, s);
            return -1;
        }
        l->bq[o] = (int32_t)bq;
    }
    return 0;
}

int npk_plan_calibrate(npk_plan *p, const float *inputs, size_t count, char *err, size_t err_size)
{
    if (!count) {
        snprintf(err, err_size, "calibration needs at least one input");
        return -1;
    }
    if (p->qmodel) {
        snprintf(err, err_size, "the model carries its own int8 scales (QuantizeLinear/"
                 "DequantizeLinear or QLinear operators): it is not calibrated");
        return -1;
    }
    size_t nin = p->tensors[0].elems, nout = p->tensors[p->n_tensors - 1].elems;
    double *x = malloc(nin * sizeof *x), *y = malloc(nout * sizeof *y);
    if (!x || !y) {
        free(x);
        free(y);
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    for (size_t t = 0; t < p->n_tensors; t++)
        p->tensors[t].max_abs = 0.0;
    int rc = 0;
    for (size_t k = 0; k < count && rc == 0; k++) {
        for (size_t i = 0; i < nin; i++)
            x[i] = inputs[k * nin + i];
        rc = npk_plan_run_f64(p, x, y, 1);
    }
    free(x);
    free(y);
    if (rc) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    for (size_t t = 0; t < p->n_tensors; t++) {
        npk_ptensor *pt = &p->tensors[t];
        if (!isfinite(pt->max_abs)) {
            snprintf(err, err_size, "calibration: tensor %zu has a value that is not finite", t);
            return -1;
        }
        pt->scale = pt->max_abs > 0.0 ? pt->max_abs / 127.0 : 1.0 / 127.0;
    }
    for (size_t i = 0; i < p->n_layers; i++) {
        npk_layer *l = &p->layers[i];
        free(l->wq);
        free(l->wscale);
        free(l->bq);
        l->wq = NULL;
        l->wscale = NULL;
        l->bq = NULL;
        if ((l->kind == NPK_LAYER_DENSE || l->kind == NPK_LAYER_CONV) &&
            quantise_layer(p, l, err, err_size) != 0)
            return -1;
    }
    p->calibrated = 1;
    return 0;
}

/* ---- the builder, for plan_q.c (plan_q.h) ---- */

const npk_model *npk_pb_model(builder *b)
{
    return b->m;
}

npk_plan *npk_pb_plan(builder *b)
{
    return b->p;
}

int npk_pb_fail(builder *b, int node, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return bfail(b, node, "%s", msg);
}

int npk_pb_tensor_of(builder *b, int node, int v)
{
    return tensor_of(b, node, v);
}

void npk_pb_view(builder *b, int v, int t)
{
    b->vt[v] = t;
}

npk_layer *npk_pb_start_layer(builder *b, int node, npk_layer_kind kind, int x, int out)
{
    return start_layer(b, node, kind, x, out);
}

int npk_pb_window(builder *b, int node, npk_layer *l, const int64_t *kernel)
{
    return window_attrs(b, node, l, kernel);
}
