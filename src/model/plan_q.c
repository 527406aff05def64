/* Models that carry their own int8 quantisation (docs/models.md, "int8 models"): the QDQ
 * form (QuantizeLinear/DequantizeLinear pairs on the activations, int8 weights behind a
 * DequantizeLinear, which the reader folds) and the QLinear form (QLinearConv, QLinearMatMul
 * on int8 tensors). Their layers take the model's int8 weights, weight scales, biases and
 * activation scales, so the plan is calibrated by the model; the float64 run computes what the
 * graph says, rounding every quantised tensor as QuantizeLinear does (the NumPy reference's
 * conventions, tests/model/ref/onnx_ref.py). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/lower.h"
#include "model/plan_q.h"

/* A tensor's quantisation as a QuantizeLinear gives it. */
typedef struct qparams {
    double scale;
    int zp, qmin, qmax;
} qparams;

static const npk_value *val(struct builder *b, int ni, int k)
{
    const npk_node *n = &npk_pb_model(b)->nodes[ni];
    return k < n->n_in && n->in[k] >= 0 ? &npk_pb_model(b)->values[n->in[k]] : NULL;
}

/* The per-tensor scale (input k) and zero point (input k + 1, or uint8 0) of node ni. */
static int tensor_qparams(struct builder *b, int ni, int k, npk_dtype type, qparams *q)
{
    const npk_value *s = val(b, ni, k), *z = val(b, ni, k + 1);
    if (!s || !s->data || s->dtype != NPK_DT_FLOAT || (z && !z->data))
        return npk_pb_fail(b, ni, "its scale and zero point must be float32 and integer "
                           "constants");
    if (s->elems != 1 || (z && z->elems != 1))
        return npk_pb_fail(b, ni, "scale '%s' has %llu elements: activations are quantised per "
                           "tensor in the plan", s->name, (unsigned long long)s->elems);
    q->scale = ((const float *)s->data)[0];
    if (!(q->scale > 0) || !isfinite(q->scale))
        return npk_pb_fail(b, ni, "scale '%s' is %g: it must be positive and finite", s->name,
                           q->scale);
    if (z)
        type = z->dtype;
    if (type != NPK_DT_INT8 && type != NPK_DT_UINT8)
        return npk_pb_fail(b, ni, "quantises to %s: the plan takes int8 and uint8 tensors",
                           npk_dtype_name(type));
    q->zp = z ? (int)npk_value_int(z, 0) : 0;
    q->qmin = type == NPK_DT_INT8 ? -128 : 0;
    q->qmax = type == NPK_DT_INT8 ? 127 : 255;
    return 0;
}

static void set_quant(npk_ptensor *t, const qparams *q)
{
    t->quant = 1;
    t->qscale = q->scale;
    t->zp = q->zp;
    t->qmin = q->qmin;
    t->qmax = q->qmax;
}

static int same_quant(const npk_ptensor *t, const qparams *q)
{
    return t->quant && t->qscale == q->scale && t->zp == q->zp && t->qmin == q->qmin;
}

/* The tensors whose quantisation follows from the layer writing them get it (a QLinear
 * layer's output; a max pool's, since max commutes with (q - zp) * scale), in layer order;
 * settle(): that, for the tensor of value x (*t; closing the layer that reached it). */
static void propagate(npk_plan *p)
{
    for (size_t i = 0; i < p->n_layers; i++) {
        const npk_layer *l = &p->layers[i];
        if (l->out < 0 || p->tensors[l->out].quant)
            continue;
        npk_ptensor *t = &p->tensors[l->out];
        if (l->q && l->q->linear) {
            qparams q = {l->q->y_scale, l->q->y_zp, l->q->y_min, l->q->y_max};
            set_quant(t, &q);
        } else if (l->kind == NPK_LAYER_MAXPOOL && p->tensors[l->in].quant) {
            const npk_ptensor *s = &p->tensors[l->in];
            qparams q = {s->qscale, s->zp, s->qmin, s->qmax};
            set_quant(t, &q);
        }
    }
}

static npk_ptensor *settle(struct builder *b, int ni, int x, int *t)
{
    npk_plan *p = npk_pb_plan(b);
    if ((*t = npk_pb_tensor_of(b, ni, x)) < 0)
        return NULL;
    propagate(p);
    return &p->tensors[*t];
}

/* settle(), and the tensor reached must be quantised as q says (node ni `verb`s it so). */
static npk_ptensor *settle_as(struct builder *b, int ni, int cur, const qparams *q,
                              const char *verb, int *ti)
{
    npk_ptensor *t = settle(b, ni, cur, ti);
    if (t && !same_quant(t, q)) {
        const char *name = npk_pb_model(b)->values[cur].name;
        if (t->quant)
            npk_pb_fail(b, ni, "%s '%s' with scale %g and zero point %d, but it was quantised "
                        "with %g and %d", verb, name, q->scale, q->zp, t->qscale, t->zp);
        else
            npk_pb_fail(b, ni, "%s '%s' with scale %g and zero point %d, but no "
                        "QuantizeLinear or QLinear operator quantised it", verb, name,
                        q->scale, q->zp);
        return NULL;
    }
    return t;
}

static int quantize(struct builder *b, int ni, int x)
{
    const npk_node *n = &npk_pb_model(b)->nodes[ni];
    qparams q;
    int ti;
    if (tensor_qparams(b, ni, 1, NPK_DT_UINT8, &q) != 0)
        return -1;
    npk_ptensor *t = settle(b, ni, x, &ti);
    if (!t)
        return -1;
    if (t->quant && !same_quant(t, &q))
        return npk_pb_fail(b, ni, "quantises '%s' a second time, with scale %g (it has %g): "
                           "not lowered", npk_pb_model(b)->values[x].name, q.scale, t->qscale);
    set_quant(t, &q);
    npk_pb_view(b, n->out[0], ti);
    return 0;
}

static int dequantize(struct builder *b, int ni, int xv)
{
    const npk_model *m = npk_pb_model(b);
    const npk_node *n = &m->nodes[ni];
    qparams q;
    int ti;
    if (tensor_qparams(b, ni, 1, m->values[xv].dtype, &q) != 0 ||
        !settle_as(b, ni, xv, &q, "dequantises", &ti))
        return -1;
    npk_pb_view(b, n->out[0], ti);
    return 0;
}

static npk_qlayer *new_qlayer(struct builder *b, int ni, npk_layer *l, size_t per)
{
    size_t n = per * (size_t)l->n_out;
    npk_qlayer *q = calloc(1, sizeof *q);
    if (q)
        l->q = q;
    l->wq = malloc(n ? n : 1);
    l->wscale = malloc((size_t)l->n_out * sizeof *l->wscale);
    l->bq = calloc((size_t)l->n_out, sizeof *l->bq);
    float *wf = malloc((n ? n : 1) * sizeof *wf);
    if (q) {
        q->bias = calloc((size_t)l->n_out, sizeof *q->bias);
        q->mul = calloc((size_t)l->n_out, sizeof *q->mul);
        q->shadow.w = wf;
    }
    if (!q || !l->wq || !l->wscale || !l->bq || !wf || !q->bias || !q->mul) {
        if (!q)
            free(wf);
        npk_pb_fail(b, ni, "out of memory (%zu weights)", n);
        return NULL;
    }
    return q;
}

/* The int8 weights w (constant) with scales s and zero points zp, as [out][in...] codes:
 * element (o, i) of the layer is w[o * so + i * si]; the scale per tensor or along the output
 * axis `oaxis` of w. */
static int take_weights(struct builder *b, int ni, npk_layer *l, const npk_value *w,
                        const npk_value *s, const npk_value *zp, int oaxis, int axis,
                        size_t so, size_t si, size_t per)
{
    if (!w->data || w->dtype != NPK_DT_INT8)
        return npk_pb_fail(b, ni, "weight '%s' is %s%s: the plan takes constant int8 weights",
                           w->name, w->data ? "" : "not a constant, ", npk_dtype_name(w->dtype));
    if (!s || !s->data || s->dtype != NPK_DT_FLOAT || (zp && !zp->data))
        return npk_pb_fail(b, ni, "the scale of weight '%s' must be a float32 constant",
                           w->name);
    if (s->elems != 1 && (s->elems != (uint64_t)l->n_out || axis != oaxis))
        return npk_pb_fail(b, ni, "weight '%s' is quantised along axis %d (%llu scales): the "
                           "plan takes one scale or one per output channel (axis %d)", w->name,
                           axis, (unsigned long long)s->elems, oaxis);
    for (uint64_t k = 0; zp && k < zp->elems; k++)
        if (npk_value_int(zp, k) != 0)
            return npk_pb_fail(b, ni, "weight '%s' has zero point %d at %llu: the plan takes "
                               "symmetric int8 weights (zero point 0)", w->name,
                               (int)npk_value_int(zp, k), (unsigned long long)k);
    npk_qlayer *q = l->q ? l->q : new_qlayer(b, ni, l, per);
    if (!q)
        return -1;
    const int8_t *src = w->data;
    for (int o = 0; o < l->n_out; o++) {
        double sc = ((const float *)s->data)[s->elems == 1 ? 0 : o];
        if (!(sc > 0) || !isfinite(sc))
            return npk_pb_fail(b, ni, "weight scale %d of '%s' is %g: it must be positive and "
                               "finite", o, w->name, sc);
        l->wscale[o] = sc;
        for (size_t i = 0; i < per; i++) {
            int8_t c = src[(size_t)o * so + i * si];
            l->wq[(size_t)o * per + i] = c;
            ((float *)q->shadow.w)[(size_t)o * per + i] = c;
        }
    }
    return 0;
}

/* QLinearConv and QLinearMatMul: a conv or dense layer whose output the operator requantises.
 * A 1x1 QLinearConv over a 1x1 map is a dense layer. */
static int qlinear(struct builder *b, int ni, int xv)
{
    const npk_model *m = npk_pb_model(b);
    const npk_node *n = &m->nodes[ni];
    int conv = n->op == NPK_OP_QLINEAR_CONV, ti;
    const npk_value *x = &m->values[xv], *w = val(b, ni, 3), *bias = val(b, ni, 8);
    if (n->in[0] != xv)
        return npk_pb_fail(b, ni, "the chain's value '%s' must be its first input", x->name);
    qparams qx, qy;
    if (!w || !val(b, ni, 4) || !val(b, ni, 7))
        return npk_pb_fail(b, ni, "has an omitted input");
    if (tensor_qparams(b, ni, 1, x->dtype, &qx) != 0 ||
        tensor_qparams(b, ni, 6, val(b, ni, 7)->dtype, &qy) != 0)
        return -1;
    if (!settle_as(b, ni, xv, &qx, "reads", &ti))
        return -1;
    npk_layer *l;
    size_t per;
    int dense_1x1 = conv && w->rank == 4 && w->dims[2] == 1 && w->dims[3] == 1 &&
                    x->rank == 4 && x->dims[2] == 1 && x->dims[3] == 1;
    if (conv) {
        const npk_attr *g = npk_node_attr(n, "group");
        if (g && g->kind == NPK_ATTR_INT && g->i != 1)
            return npk_pb_fail(b, ni, "group %lld is not lowered (group 1 is)", (long long)g->i);
        if (w->rank != 4)
            return npk_pb_fail(b, ni, "weight '%s' has rank %d", w->name, w->rank);
        l = npk_pb_start_layer(b, ni, dense_1x1 ? NPK_LAYER_DENSE : NPK_LAYER_CONV, xv,
                               n->out[0]);
        if (!l || npk_pb_window(b, ni, l, w->dims + 2) != 0)
            return -1;
        if (dense_1x1 && (l->pt || l->pl || l->pb || l->pr)) {
            l->kind = NPK_LAYER_CONV;
            dense_1x1 = 0;
        }
        if (dense_1x1)
            l->kh = l->kw = l->sh = l->sw = 1;
        l->n_out = (int)w->dims[0];
        l->n_in = (int)w->dims[1];
        per = (size_t)l->n_in * (size_t)(w->dims[2] * w->dims[3]);
        if (take_weights(b, ni, l, w, val(b, ni, 4), val(b, ni, 5), 0, 0, per, 1, per) != 0)
            return -1;
    } else {
        if (w->rank != 2 || x->rank != 2)
            return npk_pb_fail(b, ni, "the plan takes [1, K] x [K, N] products (input rank %d, "
                               "weight rank %d)", x->rank, w->rank);
        l = npk_pb_start_layer(b, ni, NPK_LAYER_DENSE, xv, n->out[0]);
        if (!l)
            return -1;
        l->n_in = (int)w->dims[0];
        l->n_out = (int)w->dims[1];
        per = (size_t)l->n_in;
        /* b's scale is per column (the output) */
        if (take_weights(b, ni, l, w, val(b, ni, 4), val(b, ni, 5), 1, 1, 1, (size_t)l->n_out,
                         per) != 0)
            return -1;
    }
    npk_qlayer *q = l->q;
    q->linear = 1;
    q->y_scale = qy.scale;
    q->y_zp = qy.zp;
    q->y_min = qy.qmin;
    q->y_max = qy.qmax;
    if (bias && (!bias->data || bias->dtype != NPK_DT_INT32 ||
                 bias->elems != (uint64_t)l->n_out))
        return npk_pb_fail(b, ni, "bias '%s' must be a constant int32 of %d elements",
                           bias->name, l->n_out);
    float *fw = malloc(per * (size_t)l->n_out * sizeof *fw);
    float *fb = bias ? malloc((size_t)l->n_out * sizeof *fb) : NULL;
    l->w = fw;
    l->b = fb;
    if (!fw || (bias && !fb))
        return npk_pb_fail(b, ni, "out of memory");
    for (int o = 0; o < l->n_out; o++) {
        double acc_scale = qx.scale * l->wscale[o];
        for (size_t i = 0; i < per; i++)
            fw[(size_t)o * per + i] = (float)(l->wq[(size_t)o * per + i] * l->wscale[o]);
        l->bq[o] = bias ? (int)npk_value_int(bias, (uint64_t)o) : 0;
        q->bias[o] = l->bq[o] * acc_scale;
        if (fb)
            fb[o] = (float)q->bias[o];
        q->mul[o] = acc_scale / qy.scale;   /* the reference's float64 multiplier */
    }
    /* Relu on the int8 output is max(q, 0): the real value's ReLU only when zp is 0 */
    for (size_t i = 0; qy.zp != 0 && i < m->n_nodes; i++)
        for (int j = 0; !m->nodes[i].folded && j < m->nodes[i].n_in; j++)
            if (m->nodes[i].in[j] == n->out[0] && m->nodes[i].op == NPK_OP_RELU)
                return npk_pb_fail(b, ni, "its output has zero point %d and a Relu reads it: "
                                   "not lowered (zero point 0 is)", qy.zp);
    return 0;
}

int npk_plan_q_node(struct builder *b, int ni, int x)
{
    switch (npk_pb_model(b)->nodes[ni].op) {
    case NPK_OP_QUANTIZE: return quantize(b, ni, x);
    case NPK_OP_DEQUANTIZE: return dequantize(b, ni, x);
    default: return qlinear(b, ni, x);
    }
}

int npk_plan_q_weight(struct builder *b, int ni)
{
    const npk_model *m = npk_pb_model(b);
    const npk_node *n = &m->nodes[ni];
    if (!m->values[n->in[0]].data)
        return 0;
    const npk_value *s = val(b, ni, 1);
    return npk_pb_fail(b, ni, "dequantises the constant '%s' but was not folded: a weight's "
                       "DequantizeLinear needs constant inputs and positive, finite scales "
                       "(scale '%s'%s)", m->values[n->in[0]].name, s ? s->name : "",
                       s && s->data ? "" : " is not a constant");
}

/* A dense or conv layer built by plan.c whose weight is a folded DequantizeLinear of int8
 * codes: the QDQ form. Returns 1 when it is, 0 when not, -1 on error. */
static int qdq_layer(struct builder *b, npk_layer *l)
{
    const npk_model *m = npk_pb_model(b);
    npk_plan *p = npk_pb_plan(b);
    const npk_node *n = &m->nodes[l->node];
    int wv = n->in[1], pr = m->values[wv].producer;
    if (pr < 0 || m->nodes[pr].op != NPK_OP_DEQUANTIZE)
        return 0;
    const npk_node *dq = &m->nodes[pr];
    const npk_value *w = &m->values[dq->in[0]];
    const npk_value *s = val(b, pr, 1), *zp = val(b, pr, 2);
    const npk_attr *ax = npk_node_attr(dq, "axis");
    int axis = ax && ax->kind == NPK_ATTR_INT ? (int)ax->i : 1;
    axis = axis < 0 ? axis + w->rank : axis;
    const npk_attr *tb = npk_node_attr(n, "transB"), *al = npk_node_attr(n, "alpha"),
                   *be = npk_node_attr(n, "beta");
    int trans = n->op == NPK_OP_GEMM && tb && tb->kind == NPK_ATTR_INT && tb->i;
    if (al && al->kind == NPK_ATTR_FLOAT && al->f != 1.0f)
        return npk_pb_fail(b, l->node, "alpha %g scales int8 weights: not lowered (alpha 1 is)",
                           (double)al->f);
    const npk_ptensor *tin = &p->tensors[l->in];
    if (!tin->quant)
        return npk_pb_fail(b, l->node, "its weights are int8 (DequantizeLinear '%s') but its "
                           "input is not quantised: weight-only quantisation is not lowered",
                           dq->name);
    size_t per = l->kind == NPK_LAYER_DENSE ? (size_t)l->n_in
                                            : (size_t)l->n_in * (size_t)(l->kh * l->kw);
    int rc;
    if (l->kind == NPK_LAYER_CONV)
        rc = take_weights(b, l->node, l, w, s, zp, 0, axis, per, 1, per);
    else if (trans)   /* [N, K] */
        rc = take_weights(b, l->node, l, w, s, zp, 0, axis, per, 1, per);
    else              /* [K, N] */
        rc = take_weights(b, l->node, l, w, s, zp, 1, axis, 1, (size_t)l->n_out, per);
    if (rc != 0)
        return -1;
    /* the bias in float64: the DequantizeLinear of its int32 codes when it is one, else the
     * float bias; in the accumulator's units for the int8 targets */
    int bv = n->op == NPK_OP_MATMUL || n->n_in < 3 ? -1 : n->in[2];
    int bp = bv >= 0 ? m->values[bv].producer : -1;
    const npk_node *bdq = bp >= 0 && m->nodes[bp].op == NPK_OP_DEQUANTIZE ? &m->nodes[bp] : NULL;
    const npk_value *bc = bdq ? &m->values[bdq->in[0]] : NULL, *bs = bdq ? val(b, bp, 1) : NULL,
                    *bz = bdq ? val(b, bp, 2) : NULL;
    int exact = bc && !(be && be->kind == NPK_ATTR_FLOAT && be->f != 1.0f) &&
                bc->elems == (uint64_t)l->n_out && bs->elems == bc->elems &&
                (!bz || bz->elems == bc->elems || bz->elems == 1);
    for (int o = 0; o < l->n_out; o++) {
        double acc_scale = tin->qscale * l->wscale[o];
        if (exact)
            l->q->bias[o] = ((double)npk_value_int(bc, (uint64_t)o) -
                             (bz ? npk_value_int(bz, bz->elems == 1 ? 0 : (uint64_t)o) : 0)) *
                            (double)((const float *)bs->data)[o];
        else
            l->q->bias[o] = l->b ? l->b[o] : 0.0;
        double bq = nearbyint(l->q->bias[o] / acc_scale);
        if (!(fabs(bq) <= 2147483647.0))
            return npk_pb_fail(b, l->node, "bias %d is %g in accumulator units, outside int32",
                               o, bq);
        l->bq[o] = (int32_t)bq;
    }
    return 1;
}

int npk_plan_q_finish(struct builder *b)
{
    npk_plan *p = npk_pb_plan(b);
    int any = 0, all = 1, first_float = -1;
    propagate(p);   /* every layer is closed */
    for (size_t i = 0; i < p->n_layers; i++) {
        npk_layer *l = &p->layers[i];
        if (l->kind != NPK_LAYER_DENSE && l->kind != NPK_LAYER_CONV)
            continue;
        int r = l->q ? 1 : qdq_layer(b, l);
        if (r < 0)
            return -1;
        any |= r;
        if (!r && first_float < 0)
            first_float = (int)i;
        all &= r;
    }
    if (!any)
        return 0;
    if (!all)
        return npk_pb_fail(b, p->layers[first_float].node, "has float weights in a model whose "
                           "other layers are int8: mixed models are not lowered");
    /* every tensor the int8 targets hold needs its scale: every layer's input, but a final
     * softmax's (the targets run it on the host, from the layer before's float output) */
    for (size_t i = 0; i < p->n_layers; i++) {
        const npk_layer *l = &p->layers[i];
        if (!p->tensors[l->in].quant && l->kind != NPK_LAYER_SOFTMAX)
            return npk_pb_fail(b, l->node, "its input is not quantised in this int8 model (no "
                               "QuantizeLinear before it): not lowered");
    }
    for (size_t t = 0; t < p->n_tensors; t++) {
        npk_ptensor *pt = &p->tensors[t];
        pt->scale = pt->quant ? pt->qscale : 1.0 / 127.0;
        pt->max_abs = pt->scale * 127.0;
    }
    for (size_t i = 0; i < p->n_layers; i++) {
        npk_layer *l = &p->layers[i];
        if (l->q) {   /* the layer on its integer codes, no bias, no activation */
            const float *codes = l->q->shadow.w;
            l->q->shadow = *l;
            l->q->shadow.w = codes;
            l->q->shadow.b = NULL;
            l->q->shadow.act = NPK_ACT_NONE;
            l->q->shadow.q = NULL;
        }
    }
    p->qmodel = 1;
    p->calibrated = 1;
    return 0;
}

/* QuantizeLinear then DequantizeLinear of one value, in float64 (the reference's rule). */
static double round_one(const npk_ptensor *t, double v)
{
    double q = npk_onnx_quantize(v / t->qscale, t->zp, t->qmin, t->qmax);
    return (q - t->zp) * t->qscale;
}

void npk_plan_q_round(const npk_ptensor *t, double *v)
{
    for (size_t i = 0; t->quant && i < t->elems; i++)
        v[i] = round_one(t, v[i]);
}

int npk_plan_q_run(const npk_plan *p, const npk_layer *l, const double *x, double *y,
                   void (*run)(const npk_plan *, const npk_layer *, const double *,
                               const double *, double *))
{
    const npk_ptensor *tx = &p->tensors[l->in], *ty = &p->tensors[l->out];
    const npk_qlayer *q = l->q;
    double *xi = malloc((tx->elems ? tx->elems : 1) * sizeof *xi);
    if (!xi)
        return -1;
    for (size_t i = 0; i < tx->elems; i++)
        xi[i] = nearbyint(x[i] / tx->qscale);   /* q - zp: the input is on its grid */
    run(p, &q->shadow, xi, NULL, y);            /* exact: integer sums below 2^53 */
    free(xi);
    /* dense: [rows][n_out]; conv: [n_out][oH][oW] */
    size_t per = ty->elems / (size_t)l->n_out;
    for (size_t e = 0; e < ty->elems; e++) {
        size_t o = l->kind == NPK_LAYER_DENSE ? e % (size_t)l->n_out : e / per;
        if (!q->linear) {
            y[e] = npk_act_f64(l->act, l->alpha, y[e] * (tx->qscale * l->wscale[o]) + q->bias[o]);
            continue;
        }
        double v = npk_onnx_quantize((y[e] + l->bq[o]) * q->mul[o], q->y_zp, q->y_min, q->y_max);
        if (l->act == NPK_ACT_RELU && v < 0)
            v = 0;
        y[e] = (v - q->y_zp) * q->y_scale;
    }
    return 0;
}

void npk_plan_q_free(npk_layer *l)
{
    if (!l->q)
        return;
    free((void *)l->q->shadow.w);
    free(l->q->bias);
    free(l->q->mul);
    free(l->q);
    l->q = NULL;
}

int npk_plan_q_symmetric(const npk_plan *p, char *err, size_t err_size)
{
    for (size_t t = 0; t < p->n_tensors; t++) {
        const npk_ptensor *pt = &p->tensors[t];
        if (pt->quant && (pt->zp != 0 || pt->qmin != -128)) {
            size_t l = 0;
            while (l < p->n_layers && p->layers[l].in != (int)t)
                l++;
            if (l == p->n_layers)
                l = p->n_layers - 1;
            return npk_lower_fail(err, err_size, p, l, "tensor %zu is quantised to %s with "
                                  "zero point %d: the int8 lowerings take symmetric int8 "
                                  "tensors (zero point 0)", t,
                                  pt->qmin == 0 ? "uint8" : "int8", pt->zp);
        }
    }
    return 0;
}

void npk_plan_q_output(const npk_plan *p, float *y)
{
    const npk_ptensor *t = &p->tensors[p->n_tensors - 1];
    if (!t->quant)
        return;
    for (size_t i = 0; i < t->elems; i++)
        y[i] = (float)round_one(t, y[i]);
}
