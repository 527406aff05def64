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
    static const char *const names[] = {"dense", "conv", "maxpool", "avgpool", "softmax", "act"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

const char *npk_act_name(npk_act a)
{
    static const char *const names[] = {"none", "relu", "leaky_relu", "gelu", "tanh", "sigmoid"};
    return (unsigned)a < sizeof names / sizeof names[0] ? names[a] : "?";
}

/* A tensor of the plan from an IR value of shape [1, F] or [1, C, H, W]. */
static int add_tensor(builder *b, int node, const npk_value *v)
{
    npk_plan *p = b->p;
    if (v->rank != 2 && v->rank != 4)
        return bfail(b, node, "'%s' has rank %d: the plan takes [1, F] and [1, C, H, W] tensors",
                     v->name, v->rank);
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
        if (!l) {
            bfail(b, node, "out of memory");
            return NULL;
        }
        p->layers = l;
        b->cap_layers = cap;
    }
    npk_layer *l = &p->layers[p->n_layers++];
    memset(l, 0, sizeof *l);
    l->kind = kind;
    l->node = node;
    l->name = b->m->nodes[node].name;
    l->op = npk_op_name(b->m->nodes[node].op);
    l->in = (int)p->n_tensors - 1;
    l->out = -1;   /* open until the next layer or a view closes it (close_layer) */
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

static int build_dense(builder *b, int ni, int *cur)
{
    const npk_model *m = b->m;
    const npk_node *n = &m->nodes[ni];
    const npk_value *x = &m->values[*cur];
    int gemm = n->op == NPK_OP_GEMM;
    const npk_value *w = const_f32(b, ni, 1, "weight");
    if (!w)
        return -1;
    if (w->rank != 2 || x->rank != 2)
        return bfail(b, ni, "the plan takes [1, K] x [K, N] products (input rank %d, weight "
                     "rank %d)", x->rank, w->rank);
    int trans_b = gemm && attr_i(n, "transB", 0) != 0;
    if (gemm && attr_i(n, "transA", 0) != 0)
        return bfail(b, ni, "transA = 1 is not lowered (the activation must be [1, K])");
    double alpha = gemm ? attr_f(n, "alpha", 1.0) : 1.0, beta = gemm ? attr_f(n, "beta", 1.0) : 1.0;
    if (!isfinite(alpha) || !isfinite(beta))
        return bfail(b, ni, "alpha %g and beta %g must be finite", alpha, beta);
    int k_in = (int)(trans_b ? w->dims[1] : w->dims[0]);
    int n_out = (int)(trans_b ? w->dims[0] : w->dims[1]);
    npk_layer *l = add_layer(b, ni, NPK_LAYER_DENSE);
    if (!l)
        return -1;
    l->n_in = k_in;
    l->n_out = n_out;
    float *wt = fdup(b, ni, (size_t)k_in * (size_t)n_out);
    if (!wt)
        return -1;
    l->w = wt;
    const float *src = w->data;
    for (int o = 0; o < n_out; o++)
        for (int i = 0; i < k_in; i++)
            wt[(size_t)o * k_in + i] = (float)(alpha * (trans_b ? src[(size_t)o * k_in + i]
                                                                : src[(size_t)i * n_out + o]));
    int out = n->out[0];
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
    *cur = out;
    return 0;
}

/* An Add right after a MatMul (or a Gemm without C) whose other operand is a constant: the
 * layer's bias. Returns 1 when merged, 0 when not this pattern, -1 on error. */
static int merge_bias(builder *b, int ni, int *cur)
{
    const npk_model *m = b->m;
    const npk_node *n = &m->nodes[ni];
    npk_plan *p = b->p;
    if (n->op != NPK_OP_ADD || !p->n_layers)
        return 0;
    npk_layer *l = &p->layers[p->n_layers - 1];
    if (l->kind != NPK_LAYER_DENSE || l->b || l->act != NPK_ACT_NONE ||
        m->nodes[l->node].out[0] != *cur)
        return 0;
    int other = n->in[0] == *cur ? 1 : n->in[1] == *cur ? 0 : -1;
    if (other < 0 || !m->values[n->in[other]].data)
        return 0;
    const npk_value *c = const_f32(b, ni, other, "bias");
    if (!c || dense_bias(b, ni, c, l) != 0)
        return -1;
    *cur = n->out[0];
    return 1;
}

static int close_layer(builder *b, int node, int cur);

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

static int build_conv(builder *b, int ni, int *cur)
{
    const npk_node *n = &b->m->nodes[ni];
    if (attr_i(n, "group", 1) != 1)
        return bfail(b, ni, "group %lld is not lowered (group 1 is)", (long long)attr_i(n, "group", 1));
    const npk_value *w = const_f32(b, ni, 1, "weight");
    if (!w)
        return -1;
    npk_layer *l = add_layer(b, ni, NPK_LAYER_CONV);
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
    *cur = n->out[0];
    return 0;
}

static int build_pool(builder *b, int ni, int *cur)
{
    const npk_node *n = &b->m->nodes[ni];
    const npk_attr *k = npk_node_attr(n, "kernel_shape");
    if (!k || k->kind != NPK_ATTR_INTS || k->n != 2)
        return bfail(b, ni, "needs a 2-D kernel_shape");
    if (n->n_out > 1 && n->out[1] >= 0 && b->m->values[n->out[1]].is_output)
        return bfail(b, ni, "the Indices output is not lowered");
    npk_layer *l = add_layer(b, ni, n->op == NPK_OP_MAX_POOL ? NPK_LAYER_MAXPOOL
                                                              : NPK_LAYER_AVGPOOL);
    if (!l || window_attrs(b, ni, l, k->ints) != 0)
        return -1;
    l->count_include_pad = (int)attr_i(n, "count_include_pad", 0);
    l->n_in = l->n_out = (int)b->m->values[*cur].dims[1];
    *cur = n->out[0];
    return 0;
}

/* An activation node: merged into the layer before when that layer produced `cur` and has
 * none yet (dense, conv), else an ACT layer of its own. */
/* Apply activation `act` to the chain's value, node `ni` (for messages) ending at value
 * `out`: merged into the layer before when that layer produced the value and has none yet
 * (dense, conv), else an ACT layer of its own. */
static int apply_act(builder *b, int ni, npk_act act, double alpha, int *cur, int out)
{
    npk_plan *p = b->p;
    npk_layer *last = p->n_layers ? &p->layers[p->n_layers - 1] : NULL;
    if (last && (last->kind == NPK_LAYER_DENSE || last->kind == NPK_LAYER_CONV) &&
        last->act == NPK_ACT_NONE && last->out < 0) {
        last->act = act;
        last->alpha = alpha;
        *cur = out;
        return 0;
    }
    if (close_layer(b, ni, *cur) != 0)
        return -1;
    npk_layer *l = add_layer(b, ni, NPK_LAYER_ACT);
    if (!l)
        return -1;
    l->act = act;
    l->alpha = alpha;
    *cur = out;
    return 0;
}

/* An activation node. */
static int build_act(builder *b, int ni, int *cur)
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
    return apply_act(b, ni, act, alpha, cur, n->out[0]);
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

/* The erf form of GELU as PyTorch exports it (docs/models.md, "The plan"):
 *   d = Div(x, sqrt 2); e = Erf(d); a = Add(e, 1); m = Mul(x, a); y = Mul(m, 0.5)
 * with the operands of Add and the Muls in either order, each intermediate read only by the
 * next node and x read only by the Div and the first Mul. Returns 1 and the five node indices
 * when node `ni` starts it on value x. */
static int match_gelu(const npk_model *m, int ni, int x, int nodes[5])
{
    const npk_node *n0 = &m->nodes[ni];
    if (n0->op != NPK_OP_DIV || n0->n_in != 2 || n0->in[0] != x ||
        !const_is(m, n0->in[1], sqrt(2.0)))
        return 0;
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
    int readers_x = 0;
    for (size_t i = 0; i < m->n_nodes; i++) {
        const npk_node *n = &m->nodes[i];
        int reads = 0;
        for (int j = 0; !n->folded && j < n->n_in; j++)
            reads |= n->in[j] == x;
        if (reads && (int)i != nodes[0] && (int)i != nodes[3])
            return 0;
        readers_x += reads;
    }
    return readers_x == 2;
}

/* Close the last layer: its output tensor is the value `cur` now holds. */
static int close_layer(builder *b, int node, int cur)
{
    npk_plan *p = b->p;
    if (!p->n_layers || p->layers[p->n_layers - 1].out >= 0)
        return 0;
    int t = add_tensor(b, node, &b->m->values[cur]);
    if (t < 0)
        return -1;
    npk_layer *l = &p->layers[p->n_layers - 1];
    l->out = t;
    if (l->kind == NPK_LAYER_SOFTMAX)
        l->row = (int)b->m->values[cur].dims[b->m->values[cur].rank - 1];
    return 0;
}

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
    if (!b.p)
        return bfail(&b, -1, "out of memory");
    npk_plan *p = b.p;
    p->model = m;
    int cur = m->inputs[0];
    unsigned char *skip = calloc(m->n_nodes ? m->n_nodes : 1, 1);   /* nodes a pattern took */
    if (!skip) {
        bfail(&b, -1, "out of memory");
        goto fail;
    }
    if (add_tensor(&b, -1, vin) < 0)
        goto fail;
    for (size_t i = 0; i < m->n_nodes; i++) {
        const npk_node *n = &m->nodes[i];
        int ni = (int)i;
        if (n->folded || skip[i])
            continue;
        int gelu[5];
        if (match_gelu(m, ni, cur, gelu)) {
            for (int k = 0; k < 5; k++)
                skip[gelu[k]] = 1;
            if (apply_act(&b, ni, NPK_ACT_GELU, 0.0, &cur, m->nodes[gelu[4]].out[0]) != 0)
                goto fail;
            continue;
        }
        if (n->op == NPK_OP_DEQUANTIZE && npk_plan_q_weight(&b, ni, cur) != 0)
            goto fail;
        /* a chain: the node reads the current value (and constants), and the value before it
         * is read by nobody else */
        int reads_cur = 0;
        for (int j = 0; j < n->n_in; j++) {
            int v = n->in[j];
            if (v < 0)
                continue;
            if (v == cur)
                reads_cur = 1;
            else if (!m->values[v].data) {
                bfail(&b, ni, "reads '%s' beside '%s': the plan takes chains of layers (one "
                      "activation in, one out); residual and attention graphs are not lowered "
                      "yet", m->values[v].name, m->values[cur].name);
                goto fail;
            }
        }
        if (!reads_cur) {
            bfail(&b, ni, "does not read '%s', the value the chain has reached",
                  m->values[cur].name);
            goto fail;
        }
        if (readers(m, cur) != 1 || (m->values[cur].is_output && cur != m->outputs[0])) {
            bfail(&b, ni, "'%s' is read by more than one node: the plan takes chains of layers",
                  m->values[cur].name);
            goto fail;
        }
        int r = 0;
        switch (n->op) {
        case NPK_OP_GEMM:
        case NPK_OP_MATMUL:
            if ((r = close_layer(&b, ni, cur)) == 0)
                r = build_dense(&b, ni, &cur);
            break;
        case NPK_OP_ADD:
            r = merge_bias(&b, ni, &cur);
            if (r == 0)
                r = bfail(&b, ni, "only a constant bias right after a MatMul is lowered");
            else if (r > 0)
                r = 0;
            break;
        case NPK_OP_CONV:
            if ((r = close_layer(&b, ni, cur)) == 0)
                r = build_conv(&b, ni, &cur);
            break;
        case NPK_OP_MAX_POOL:
        case NPK_OP_AVG_POOL:
            if ((r = close_layer(&b, ni, cur)) == 0)
                r = build_pool(&b, ni, &cur);
            break;
        case NPK_OP_RELU:
        case NPK_OP_LEAKY_RELU:
        case NPK_OP_GELU:
        case NPK_OP_TANH:
        case NPK_OP_SIGMOID:
            r = build_act(&b, ni, &cur);
            break;
        case NPK_OP_FLATTEN:
        case NPK_OP_RESHAPE:
        case NPK_OP_IDENTITY:
            /* views: the row-major order is kept; the layer before keeps its own shape and
             * the next layer reads the elements in that order */
            if ((r = close_layer(&b, ni, cur)) == 0)
                cur = n->out[0];
            if (r == 0 && p->tensors[p->n_tensors - 1].elems != m->values[cur].elems)
                r = bfail(&b, ni, "changes the element count");
            break;
        case NPK_OP_SOFTMAX: {
            const npk_value *x = &m->values[cur];
            int64_t axis = attr_i(n, "axis", m->opset < 13 ? 1 : -1);
            if (axis < 0)
                axis += x->rank;
            if (axis != x->rank - 1) {
                r = bfail(&b, ni, "softmax over axis %lld of a rank-%d tensor: the plan takes the "
                          "last axis", (long long)axis, x->rank);
                break;
            }
            if ((r = close_layer(&b, ni, cur)) == 0) {
                npk_layer *l = add_layer(&b, ni, NPK_LAYER_SOFTMAX);
                r = l ? 0 : -1;
                cur = n->out[0];
            }
            break;
        }
        case NPK_OP_QUANTIZE:
        case NPK_OP_DEQUANTIZE:
        case NPK_OP_QLINEAR_CONV:
        case NPK_OP_QLINEAR_MATMUL:
            r = npk_plan_q_node(&b, ni, &cur);
            break;
        default:
            r = bfail(&b, ni, "no lowering takes this operator yet (the plan takes chains of "
                      "Gemm, MatMul with a bias Add, Conv, Relu, LeakyRelu, Gelu, Tanh, "
                      "Sigmoid, MaxPool, AveragePool, Flatten, Reshape and Softmax)");
        }
        if (r != 0)
            goto fail;
    }
    if (close_layer(&b, -1, cur) != 0)
        goto fail;
    if (cur != m->outputs[0]) {
        bfail(&b, -1, "the chain ends at '%s', not at the output '%s'", m->values[cur].name,
              m->values[m->outputs[0]].name);
        goto fail;
    }
    if (!p->n_layers) {
        bfail(&b, -1, "the model has no layer to lower");
        goto fail;
    }
    /* shapes each layer needs, checked once */
    for (size_t i = 0; i < p->n_layers; i++) {
        npk_layer *l = &p->layers[i];
        const npk_ptensor *x = &p->tensors[l->in], *y = &p->tensors[l->out];
        int bad = 0;
        uint64_t macs = 0;
        switch (l->kind) {
        case NPK_LAYER_DENSE:
            bad = x->elems != (size_t)l->n_in || y->elems != (size_t)l->n_out;
            macs = (uint64_t)l->n_in * (uint64_t)l->n_out;
            break;
        case NPK_LAYER_CONV:
        case NPK_LAYER_MAXPOOL:
        case NPK_LAYER_AVGPOOL:
            bad = x->rank != 3 || y->rank != 3 || x->dims[0] != l->n_in || y->dims[0] != l->n_out;
            if (l->kind == NPK_LAYER_CONV)
                macs = (uint64_t)y->elems * (uint64_t)l->n_in * (uint64_t)(l->kh * l->kw);
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
    *out = p;
    return 0;
fail:
    free(skip);
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

static void run_layer(const npk_plan *p, const npk_layer *l, const double *x, double *y)
{
    const npk_ptensor *tx = &p->tensors[l->in], *ty = &p->tensors[l->out];
    switch (l->kind) {
    case NPK_LAYER_DENSE:
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
    size_t most = 0;
    for (size_t i = 0; i < p->n_tensors; i++)
        most = p->tensors[i].elems > most ? p->tensors[i].elems : most;
    double *buf = malloc(2 * most * sizeof *buf);
    if (!buf)
        return -1;
    double *a = buf, *b = buf + most;
    memcpy(a, x, p->tensors[0].elems * sizeof *a);
    npk_plan_q_round(&p->tensors[0], a);
    if (obs)
        observe(&p->tensors[0], a);
    for (size_t i = 0; i < p->n_layers; i++) {
        const npk_layer *l = &p->layers[i];
        if (l->q)
            npk_plan_q_run(p, l, a, b, run_layer);
        else
            run_layer(p, l, a, b);
        npk_plan_q_round(&p->tensors[l->out], b);
        if (obs)
            observe(&p->tensors[l->out], b);
        double *t = a;
        a = b;
        b = t;
    }
    memcpy(y, a, p->tensors[p->n_tensors - 1].elems * sizeof *y);
    free(buf);
    return 0;
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

int npk_pb_close(builder *b, int node, int cur)
{
    return close_layer(b, node, cur);
}

npk_layer *npk_pb_add_layer(builder *b, int node, npk_layer_kind kind)
{
    return add_layer(b, node, kind);
}

int npk_pb_window(builder *b, int node, npk_layer *l, const int64_t *kernel)
{
    return window_attrs(b, node, l, kernel);
}
