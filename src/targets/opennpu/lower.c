/* Lowering a calibrated plan (model/plan.h) to one straight-line opennpu program and a data
 * image (docs/models.md, "Lowering to opennpu"; opennpu spec §5, §6.3).
 *
 * Every activation tensor is int8 in data memory, laid out for the layer that reads it:
 * element (c, y, x) at addr + c*cs + (y + pt)*rs + x + pl, with zero padding around it when
 * the reader is a padded Conv or AveragePool, plain row-major otherwise. Per layer:
 *   DENSE   y = W x as a GEMM on the MMA array with x as the 1 x n_in left matrix (the library
 *           generator of include/npukit/opennpu.h): the program copies x into the A panel
 *           (ld.w/st.w), the host packs W^T as the B panels; C is one int32 row.
 *   CONV    im2col by the program into the GEMM's B panels (ld.vx of K neighbouring inputs
 *           per row of the im2col matrix; ld.ve/ld.vr and vmov split strides 2 and 4), the
 *           weights as A, C = [M][oH * Wv] with Wv = oW rounded up to K.
 *   both    requantisation per output channel o: q = sat8(rne(f32(sat32(acc + bq[o])) *
 *           m[o])), m[o] = f32(in_scale * wscale[o] / out_scale) (vadd.sat, vcvt_f32_s32,
 *           vfmul, vcvt_s8_f32.sat), LeakyReLU as vfmax/vfmin(v, v * alpha) before the
 *           conversion, ReLU as vmax with 0 after it; Tanh, Sigmoid, Gelu as a LUT after a
 *           requantisation to a pre-activation scale (pre_scale).
 *   MAXPOOL vmax over the window (strides 1, 2, 4 by the byte-planar loads), then a LUT when
 *           the output's scale differs from the input's.
 *   AVGPOOL sum in int32 (vcvt_s32_s8, vadd), times f32(in_scale / (out_scale * kh * kw)).
 *   ACT     a 256-entry LUT (vlut.a) from the input's to the output's scale.
 * The last layer that runs on the NPU leaves its int32 accumulators (plus bias) when it is a
 * Dense or Conv layer, dequantised on the host as (acc + bq) * in_scale * wscale[o] with the
 * activation then applied in double; trailing Softmax layers run on the host. */
#include "targets/opennpu/lower.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/npukit.h"
#include "npukit/opennpu.h"
#include "num/num.h"

enum { ONPU_L = 32 };   /* the register file the lowering is written for (8 VR registers) */
/* The most instructions a layer may take (a 16 M-word program is 64 MiB of image and about
 * 600 MiB of assembly text). */
#define ONPU_MAX_INSNS (UINT64_C(1) << 24)
/* The most elements of one tensor (the data memory is at most 2 GiB, and shapes stay in int). */
#define ONPU_MAX_ELEMS (UINT64_C(1) << 28)

/* An int8 tensor in data memory. */
typedef struct lay {
    uint64_t addr, end;  /* end: one past the slack after it */
    int C, H, W, pt, pl;
    uint64_t rs, cs;
} lay;

static uint64_t lay_at(const lay *t, int c, int y, int x)
{
    return t->addr + (uint64_t)c * t->cs + (uint64_t)(y + t->pt) * t->rs + (uint64_t)(x + t->pl);
}

static int lay_plain(const lay *t)
{
    return t->pt == 0 && t->pl == 0 && t->rs == (uint64_t)t->W && t->cs == (uint64_t)t->H * t->rs;
}

/* Per NPU layer. */
typedef struct lstep {
    npk_opennpu_gemm_plan g;     /* DENSE, CONV */
    int H, W, oH, oW, Wv;
    uint64_t bias, scale, cst, lut;
    int use_lut;
} lstep;

typedef struct build {
    const npk_plan *p;
    unsigned K, lat;
    size_t n_npu;                /* layers 0 .. n_npu-1 run on the NPU, the rest on the host */
    lay *t;                      /* tensors 0 .. n_npu (t[n_npu] unused when out_acc) */
    lay pad0;                    /* padded copy of the input when layer 0 needs one */
    int copy_in;
    lstep *ls;
    int out_acc;                 /* the NPU output is int32 accumulators (Dense/Conv last) */
    uint64_t out_addr, out_bytes;
    uint64_t masks, at, mem_size;
    uint8_t *img;
    char *prog;
    npk_opennpu_gemm_counts cnt;
    uint64_t macs;
    int bad_access;
} build;

/* ---- shared arithmetic (the program's and the host model's) ---------------------------------- */

/* Round to nearest, ties to even, then clamp to [lo, hi]; independent of the FP environment. */
static int32_t rne_sat(double v, int32_t lo, int32_t hi)
{
    if (v != v)
        return 0;
    if (v <= lo)
        return lo;
    if (v >= hi)
        return hi;
    double f = floor(v), d = v - f;
    if (d > 0.5 || (d == 0.5 && fmod(f, 2.0) != 0))
        f += 1;
    return (int32_t)f;
}

static int32_t sat32(int64_t v)
{
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

/* An FP32 constant of the program: subnormals become 0 as the VALU's input rule does (§5.8). */
static float f32_const(double v)
{
    float f = (float)v;
    return fabsf(f) < 1.17549435e-38f ? 0.0f : f;
}

/* f32 product rounded once (the exact double product of two floats, then RNE to float). */
static float fmul32(float a, float b)
{
    return (float)((double)a * (double)b);
}

/* vcvt_s8_f32.sat of one lane (§5.6): src/num's conversion, as the VALU's own. */
static int32_t cvt_s8_f32_sat(float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    npk_fenv e;
    npk_fenv_init(&e, NPK_RM_RNE);
    return npk_f32_to_int(u, 8, NPK_CVT_SAT_NAN0, &e);
}

/* The requantisation of one accumulator: q = sat8(rne(act(f32(acc) * m))). */
static int8_t requant(int32_t accb, float m, npk_act act, float alpha)
{
    float v = fmul32((float)(double)accb, m);
    if (act == NPK_ACT_LEAKY_RELU) {
        float u = fmul32(v, alpha);
        v = alpha <= 1.0f ? (u > v ? u : v) : (u < v ? u : v);
    }
    int32_t q = cvt_s8_f32_sat(v);
    if (act == NPK_ACT_RELU && q < 0)
        q = 0;
    return (int8_t)q;
}

/* T[u8(q)] = sat8(rne(act(q * s_in) / s_out)) for q = -128 .. 127. */
static void make_lut(uint8_t T[256], double s_in, double s_out, npk_act a, double alpha)
{
    for (int q = -128; q < 128; q++)
        T[(uint8_t)q] =
            (uint8_t)(int8_t)rne_sat(npk_act_f64(a, alpha, q * s_in) / s_out, -128, 127);
}

static int8_t quant_in(float x, double scale)
{
    return (int8_t)rne_sat((double)x / scale, -127, 127);
}

/* ---- what the lowering takes ----------------------------------------------------------------- */

static void dims3(const npk_ptensor *t, int *C, int *H, int *W)
{
    if (t->rank == 3)
        *C = t->dims[0], *H = t->dims[1], *W = t->dims[2];
    else
        *C = 1, *H = 1, *W = (int)t->elems;
}

static int act_inline(npk_act a)
{
    return a == NPK_ACT_NONE || a == NPK_ACT_RELU || a == NPK_ACT_LEAKY_RELU;
}

/* The scale of the int8 pre-activation values of a Dense/Conv layer whose activation is a LUT
 * (Tanh, Sigmoid, Gelu): the range R they are clamped to, / 127. Tanh: atanh of the output's
 * calibrated max |y| (the largest |pre-activation| seen), at most 4 (tanh(4) is within 7e-4 of
 * 1); Sigmoid: 8 (the output range says nothing about the negative side); Gelu: max(4, max |y|
 * / 0.99) (Gelu(v) >= 0.99 v above 2.4, and below -4 it is within 1.3e-4 of 0). */
static double pre_scale(const npk_plan *p, const npk_layer *l)
{
    double m = p->tensors[l->out].max_abs, R;
    if (l->act == NPK_ACT_TANH)
        R = m >= tanh(4.0) ? 4.0 : m > 1e-3 ? atanh(m) : 1e-3;
    else if (l->act == NPK_ACT_SIGMOID)
        R = 8.0;
    else
        R = m / 0.99 > 4.0 ? m / 0.99 : 4.0;
    return R / 127;
}

/* The window of a Conv or pool layer: shapes, strides, padding opennpu's lowering takes. */
static int check_window(const npk_plan *p, size_t i, char *err, size_t n)
{
    const npk_layer *l = &p->layers[i];
    const npk_ptensor *ti = &p->tensors[l->in], *to = &p->tensors[l->out];
    if (ti->rank != 3 || to->rank != 3)
        return npk_lower_fail(err, n, p, i, "needs (C, H, W) tensors");
    if (l->kh > 65535 || l->kw > 65535 || l->sh > 65535 || l->pt > 65535 || l->pl > 65535 ||
        l->pb > 65535 || l->pr > 65535)
        return npk_lower_fail(err, n, p, i, "window, stride or padding beyond 65535");
    if (l->sw != 1 && l->sw != 2 && l->sw != 4)
        return npk_lower_fail(err, n, p, i,
                              "horizontal stride %d is not supported on opennpu (1, 2 or 4: the "
                              "byte-planar loads split strides 2 and 4)", l->sw);
    int pad = l->pt || l->pl || l->pb || l->pr;
    if (l->kind == NPK_LAYER_MAXPOOL && pad)
        return npk_lower_fail(err, n, p, i, "MaxPool with padding is not supported on opennpu "
                              "(the padded layout holds zeros, not -inf)");
    if (l->kind == NPK_LAYER_AVGPOOL && pad && !l->count_include_pad)
        return npk_lower_fail(err, n, p, i, "AveragePool with padding and count_include_pad=0 "
                              "is not supported on opennpu (one divisor per layer)");
    if (l->kh < 1 || l->kw < 1 || l->sh < 1 || l->pt < 0 || l->pl < 0 || l->pb < 0 ||
        l->pr < 0 || ti->dims[1] + l->pt + l->pb < l->kh ||
        ti->dims[2] + l->pl + l->pr < l->kw ||
        to->dims[1] != (ti->dims[1] + l->pt + l->pb - l->kh) / l->sh + 1 ||
        to->dims[2] != (ti->dims[2] + l->pl + l->pr - l->kw) / l->sw + 1)
        return npk_lower_fail(err, n, p, i, "window %dx%d, stride %dx%d, pads %d %d %d %d do "
                              "not give the output shape", l->kh, l->kw, l->sh, l->sw, l->pt,
                              l->pl, l->pb, l->pr);
    return 0;
}

/* Check the plan; n_npu: the layers that run on the NPU (trailing Softmax layers do not). */
static int analyse(const npk_plan *p, size_t *n_npu, char *err, size_t n)
{
    if (npk_lower_chain_only(p, "opennpu", "its int8 VALU has no exp, division or square root "
                             "for softmax and the normalisations inside a model, and no int8 "
                             "product of two activations is lowered", err, n))
        return -1;
    if (!p->calibrated) {
        snprintf(err, n, "%s", NPK_LOWER_NOT_CALIBRATED);
        return -1;
    }
    if (npk_plan_q_symmetric(p, err, n) != 0)   /* a model's own int8 scales */
        return -1;
    size_t k = p->n_layers;
    while (k > 0 && p->layers[k - 1].kind == NPK_LAYER_SOFTMAX)
        k--;
    if (k == 0) {
        snprintf(err, n, "no layer of the model runs on the NPU");
        return -1;
    }
    for (size_t i = 0; i < k; i++) {
        const npk_layer *l = &p->layers[i];
        const npk_ptensor *ti = &p->tensors[l->in], *to = &p->tensors[l->out];
        if (l->in != (int)i || l->out != (int)i + 1)
            return npk_lower_fail(err, n, p, i, "opennpu takes a chain of layers only");
        if (ti->elems == 0 || to->elems == 0)
            return npk_lower_fail(err, n, p, i, "an empty tensor");
        if (ti->elems > ONPU_MAX_ELEMS || to->elems > ONPU_MAX_ELEMS)
            return npk_lower_fail(err, n, p, i, "a tensor of %zu elements: the lowering takes "
                                  "at most %llu", ti->elems > to->elems ? ti->elems : to->elems,
                                  (unsigned long long)ONPU_MAX_ELEMS);
        if (!(ti->scale > 0) || !(to->scale > 0))
            return npk_lower_fail(err, n, p, i, "activation scale %g -> %g is not positive",
                                  ti->scale, to->scale);
        switch (l->kind) {
        case NPK_LAYER_SOFTMAX:
            return npk_lower_fail(err, n, p, i,
                                  "Softmax runs on the host and only at the end of the model on "
                                  "opennpu (the VALU has no exp and no division)");
        case NPK_LAYER_DENSE:
            if ((size_t)l->n_in != ti->elems || (size_t)l->n_out != to->elems)
                return npk_lower_fail(err, n, p, i, "dense %d -> %d does not match the tensors "
                                      "(%zu -> %zu elements)", l->n_in, l->n_out, ti->elems,
                                      to->elems);
            if (!l->wq || !l->wscale)
                return npk_lower_fail(err, n, p, i, "no int8 weights (not calibrated)");
            break;
        case NPK_LAYER_CONV:
            if (ti->rank != 3 || to->rank != 3 || ti->dims[0] != l->n_in ||
                to->dims[0] != l->n_out)
                return npk_lower_fail(err, n, p, i, "conv needs (C, H, W) tensors");
            if (!l->wq || !l->wscale)
                return npk_lower_fail(err, n, p, i, "no int8 weights (not calibrated)");
            if (check_window(p, i, err, n))
                return -1;
            break;
        case NPK_LAYER_MAXPOOL:
        case NPK_LAYER_AVGPOOL:
            if (check_window(p, i, err, n))
                return -1;
            if (ti->dims[0] != to->dims[0])
                return npk_lower_fail(err, n, p, i, "pooling changes the channel count");
            break;
        case NPK_LAYER_ACT:
            if (ti->elems != to->elems)
                return npk_lower_fail(err, n, p, i, "activation changes the element count");
            break;
        default: /* refused by npk_lower_chain_only */
            return npk_lower_fail(err, n, p, i, "no opennpu lowering for a %s layer",
                                  npk_layer_kind_name(l->kind));
        }
        if (l->kind != NPK_LAYER_ACT && l->kind != NPK_LAYER_DENSE &&
            l->kind != NPK_LAYER_CONV && l->act != NPK_ACT_NONE)
            return npk_lower_fail(err, n, p, i, "an activation after pooling is not supported");
        if (l->act == NPK_ACT_LEAKY_RELU && !(l->alpha >= 0))
            return npk_lower_fail(err, n, p, i, "LeakyRelu alpha %g: must be at least 0",
                                  l->alpha);
    }
    *n_npu = k;
    return 0;
}

/* The per-channel FP32 multiplier of a Dense/Conv layer's requantisation: to the output's
 * scale, or to pre_scale when a LUT does the activation. */
static float chan_mult(const npk_plan *p, const npk_layer *l, int o)
{
    double to = act_inline(l->act) ? p->tensors[l->out].scale : pre_scale(p, l);
    return f32_const(p->tensors[l->in].scale * l->wscale[o] / to);
}

/* ---- layout and image ------------------------------------------------------------------------ */

static uint64_t take(build *b, uint64_t n)
{
    uint64_t a = (b->at + 3) & ~(uint64_t)3;
    b->at = a + n;
    return a;
}

static void make_lay(build *b, lay *t, int C, int H, int W, int pt, int pl, int pb, int pr,
                     int kw)
{
    memset(t, 0, sizeof *t);
    t->C = C, t->H = H, t->W = W, t->pt = pt, t->pl = pl;
    t->rs = (uint64_t)(W + pl + pr);
    t->cs = (uint64_t)(H + pt + pb) * t->rs;
    uint64_t size = t->cs * (uint64_t)C;
    t->addr = take(b, size + 4ull * b->K + 2ull * (uint64_t)kw + 64);
    t->end = b->at;
}

/* The layout layer i wants for its input. */
static void consumer_lay(build *b, size_t i, lay *t)
{
    const npk_layer *l = &b->p->layers[i];
    int C, H, W;
    dims3(&b->p->tensors[l->in], &C, &H, &W);
    if (l->kind == NPK_LAYER_CONV || l->kind == NPK_LAYER_AVGPOOL ||
        l->kind == NPK_LAYER_MAXPOOL)
        make_lay(b, t, C, H, W, l->pt, l->pl, l->pb, l->pr, l->kw);
    else
        make_lay(b, t, C, H, W, 0, 0, 0, 0, 0);
}

static void put32(uint8_t *d, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        d[k] = (uint8_t)(v >> 8 * k);
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* An upper estimate of the instructions layer i's code takes (the program has no loops, so
 * every tile and vector is written out): GEMM feeds, loads, stores and base setup per tile,
 * im2col, requantisation and pooling per vector. */
static uint64_t insn_estimate(const build *b, size_t i)
{
    const npk_layer *l = &b->p->layers[i];
    const lstep *s = &b->ls[i];
    uint64_t K = b->K, vec = 0, per = 0;
    int C, H, W;
    dims3(&b->p->tensors[i + 1], &C, &H, &W);
    vec = (uint64_t)C * (uint64_t)H * ((uint64_t)W + K - 1) / K;
    if (l->kind == NPK_LAYER_DENSE || l->kind == NPK_LAYER_CONV) {
        uint64_t tiles = (uint64_t)s->g.tiles_m * s->g.tiles_n, q = s->g.quads;
        per = tiles * (q * 12 + 2 * K + 16) + s->g.tiles_n * q * 12 + q * 4;
        vec *= 16;
    } else {
        vec *= 4 * (uint64_t)l->kh * (uint64_t)l->kw + 16;
    }
    return per + vec;
}

static int plan_layout(build *b, char *err, size_t n)
{
    const npk_plan *p = b->p;
    unsigned K = b->K;
    b->t = calloc(b->n_npu + 1, sizeof *b->t);
    b->ls = calloc(b->n_npu, sizeof *b->ls);
    if (!b->t || !b->ls) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    b->masks = take(b, (uint64_t)K * K);
    /* the input as the host writes it (plain), and the layouts the layers read */
    int C, H, W;
    dims3(&p->tensors[0], &C, &H, &W);
    make_lay(b, &b->t[0], C, H, W, 0, 0, 0, 0, 0);
    consumer_lay(b, 0, &b->pad0);
    b->copy_in = !lay_plain(&b->pad0);
    if (!b->copy_in)
        b->pad0 = b->t[0];
    for (size_t i = 1; i < b->n_npu; i++)
        consumer_lay(b, i, &b->t[i]);
    const npk_layer *last = &p->layers[b->n_npu - 1];
    b->out_acc = last->kind == NPK_LAYER_DENSE || last->kind == NPK_LAYER_CONV;
    if (!b->out_acc) {
        dims3(&p->tensors[b->n_npu], &C, &H, &W);
        make_lay(b, &b->t[b->n_npu], C, H, W, 0, 0, 0, 0, 0);
    }
    for (size_t i = 0; i < b->n_npu; i++) {
        const npk_layer *l = &p->layers[i];
        lstep *s = &b->ls[i];
        const npk_ptensor *ti = &p->tensors[i], *to = &p->tensors[i + 1];
        dims3(ti, &C, &s->H, &s->W);
        int oC;
        dims3(to, &oC, &s->oH, &s->oW);
        s->Wv = (int)((s->oW + K - 1) / K * K);
        char gerr[256];
        unsigned M, N, Kd, entries;
        if (l->kind == NPK_LAYER_DENSE || l->kind == NPK_LAYER_CONV) {
            if (l->kind == NPK_LAYER_DENSE)
                M = 1, N = (unsigned)l->n_out, Kd = (unsigned)l->n_in;
            else
                M = (unsigned)l->n_out, N = (unsigned)(s->oH * s->Wv),
                Kd = (unsigned)(l->n_in * l->kh * l->kw);
            if (npk_opennpu_gemm_plan_make(&s->g, M, N, Kd, K, ONPU_L, 0, gerr, sizeof gerr))
                return npk_lower_fail(err, n, p, i, "GEMM %ux%ux%u: %s", M, Kd, N, gerr);
            s->g.a_addr = take(b, s->g.a_panel * s->g.tiles_m);
            s->g.b_addr = take(b, s->g.b_panel * s->g.tiles_n);
            s->g.c_addr = take(b, s->g.ldc * M + 4ull * K);
            /* int32 biases and f32 multipliers: per lane (Dense) or K copies per channel */
            entries = l->kind == NPK_LAYER_DENSE ? s->g.tiles_n * K : M * K;
            s->bias = take(b, 4ull * entries);
            s->scale = take(b, 4ull * entries);
            if (l->act == NPK_ACT_LEAKY_RELU)
                s->cst = take(b, 4ull * K);
            s->use_lut = !act_inline(l->act) && i + 1 < b->n_npu;
            if (s->use_lut)
                s->lut = take(b, 256);
            if (l->kind == NPK_LAYER_DENSE)
                b->macs += (uint64_t)l->n_in * (uint64_t)l->n_out;
            else
                b->macs += (uint64_t)Kd * M * (uint64_t)s->oH * (uint64_t)s->oW;
            if (i + 1 == b->n_npu) {
                b->out_bytes = l->kind == NPK_LAYER_DENSE ? 4ull * K * s->g.tiles_n
                                                          : 4ull * M * s->oH * s->Wv;
                b->out_addr = take(b, b->out_bytes);
            }
        } else if (l->kind == NPK_LAYER_AVGPOOL) {
            s->cst = take(b, 4ull * K);
        } else {
            s->use_lut = l->kind == NPK_LAYER_ACT || ti->scale != to->scale;
            if (s->use_lut)
                s->lut = take(b, 256);
        }
        if (l->kind == NPK_LAYER_DENSE && i + 1 < b->n_npu && !lay_plain(&b->t[i + 1]))
            return npk_lower_fail(err, n, p, i, "a dense layer feeding a padded layer is not "
                                  "supported on opennpu");
    }
    for (size_t i = 0; i < b->n_npu; i++) {
        uint64_t est = insn_estimate(b, i);
        if (est > ONPU_MAX_INSNS)
            return npk_lower_fail(err, n, p, i, "the straight-line program would need up to "
                                  "about %llu instructions for this layer alone (the "
                                  "lowering's "
                                  "limit is %llu)", (unsigned long long)est,
                                  (unsigned long long)ONPU_MAX_INSNS);
    }
    b->at = (b->at + 4095) & ~(uint64_t)4095;
    if (b->at > ((uint64_t)1 << 31))
        return npk_lower_fail(err, n, p, b->n_npu - 1, "the model needs %llu bytes of data "
                              "memory; opennpu's lowering addresses at most 2 GiB",
                              (unsigned long long)b->at);
    b->mem_size = (uint64_t)1 << 20;
    while (b->mem_size < b->at)
        b->mem_size *= 2;
    return 0;
}

static int fill_image(build *b, char *err, size_t n)
{
    const npk_plan *p = b->p;
    unsigned K = b->K;
    b->img = calloc(1, b->at);
    if (!b->img) {
        snprintf(err, n, "out of memory for a %llu-byte image",
                 (unsigned long long)b->at);
        return -1;
    }
    for (unsigned v = 1; v < K; v++)
        memset(b->img + b->masks + (uint64_t)(v - 1) * K, 0xFF, v);
    for (size_t i = 0; i < b->n_npu; i++) {
        const npk_layer *l = &p->layers[i];
        lstep *s = &b->ls[i];
        double si = p->tensors[i].scale, so = p->tensors[i + 1].scale;
        if (l->kind == NPK_LAYER_DENSE || l->kind == NPK_LAYER_CONV) {
            int dense = l->kind == NPK_LAYER_DENSE;
            size_t Kd = s->g.Kd, M = (size_t)l->n_out;
            int8_t *tmp = calloc(dense ? Kd * M : Kd, 1);
            if (!tmp) {
                snprintf(err, n, "out of memory");
                return -1;
            }
            if (dense) { /* A: x (zero here, the index word set), B: W^T */
                npk_opennpu_gemm_pack_a(&s->g, tmp, b->img + s->g.a_addr);
                for (size_t o = 0; o < M; o++)
                    for (size_t k = 0; k < Kd; k++)
                        tmp[k * M + o] = l->wq[o * Kd + k];
                npk_opennpu_gemm_pack_b(&s->g, tmp, b->img + s->g.b_addr);
            } else {
                npk_opennpu_gemm_pack_a(&s->g, l->wq, b->img + s->g.a_addr);
            }
            free(tmp);
            for (size_t o = 0; o < M; o++) {
                float m = chan_mult(p, l, (int)o);
                if (!isfinite(m) || fabsf(m) > 1e30f)
                    return npk_lower_fail(err, n, p, i, "channel %zu: requantisation "
                                          "multiplier %g is out of range", o, (double)m);
                for (unsigned k = 0; k < (dense ? 1u : K); k++) {
                    uint64_t at = 4 * (dense ? o : o * K + k);
                    put32(b->img + s->bias + at, l->bq ? (uint32_t)l->bq[o] : 0);
                    put32(b->img + s->scale + at, f32_bits(m));
                }
            }
            if (l->act == NPK_ACT_LEAKY_RELU)
                for (unsigned k = 0; k < K; k++)
                    put32(b->img + s->cst + 4 * k, f32_bits(f32_const(l->alpha)));
            if (s->use_lut)
                make_lut(b->img + s->lut, pre_scale(p, l), so, l->act, l->alpha);
        } else if (l->kind == NPK_LAYER_AVGPOOL) {
            float f = f32_const(si / (so * l->kh * l->kw));
            for (unsigned k = 0; k < K; k++)
                put32(b->img + s->cst + 4 * k, f32_bits(f));
        } else if (s->use_lut) {
            make_lut(b->img + s->lut, si, so, l->kind == NPK_LAYER_ACT ? l->act : NPK_ACT_NONE,
                     l->alpha);
        }
    }
    return 0;
}

/* ---- the program ----------------------------------------------------------------------------- */

typedef npk_opennpu_gen gen;

/* A load or store of n bytes at addr with register text `reg` ("vx5", "vr2"), whose VR is
 * `vr` (never used as the base). */
static void mem_op(build *b, gen *g, const char *op, const char *reg, unsigned vr, uint64_t addr,
                   uint64_t n)
{
    long long off;
    if (addr + n > b->at)
        b->bad_access = 1;
    unsigned base = npk_opennpu_gen_base(g, addr, 1u << vr, &off);
    npk_opennpu_gen_insn(g, "%s %s, %lld(vr%u)", op, reg, off, base);
}

static void ld_vx(build *b, gen *g, unsigned vx, uint64_t addr)
{
    char r[16];
    snprintf(r, sizeof r, "vx%u", vx);
    mem_op(b, g, "ld.vx", r, vx / 4, addr, b->K);
}

static void vr_op(build *b, gen *g, const char *op, unsigned vr, uint64_t addr)
{
    char r[16];
    snprintf(r, sizeof r, "vr%u", vr);
    mem_op(b, g, op, r, vr, addr, 4ull * b->K);
}

/* Load sw bytes per lane (sw = 1, 2, 4) at addr into VR s: lane j of VX[4s + ph] is then the
 * byte at addr + sw*j + ph. */
static void ld_strided(build *b, gen *g, unsigned s, int sw, uint64_t addr)
{
    char r[16];
    snprintf(r, sizeof r, sw == 1 ? "vx%u" : sw == 2 ? "ve%u" : "vr%u",
             sw == 1 ? 4 * s : sw == 2 ? 2 * s : s);
    mem_op(b, g, sw == 1 ? "ld.vx" : sw == 2 ? "ld.ve" : "ld.vr", r, s, addr,
           (uint64_t)sw * b->K);
}

static unsigned grab(gen *g)
{
    unsigned r = npk_opennpu_gen_reg(g, 0);
    npk_opennpu_gen_busy(g, r, 1);
    return r;
}

static void release_all(gen *g)
{
    for (unsigned r = 0; r < ONPU_L / 4; r++)
        npk_opennpu_gen_busy(g, r, 0);
}

/* Constants of a store phase in VR c: VX[4c] the mask of `valid` lanes (when valid < K),
 * VX[4c + 1] zero. */
static void consts(build *b, gen *g, unsigned c, int valid)
{
    if (valid > 0 && valid < (int)b->K)
        ld_vx(b, g, 4 * c, b->masks + (uint64_t)(valid - 1) * b->K);
    npk_opennpu_gen_insn(g, "vbcast.imm vx%u, 0", 4 * c + 1);
}

/* Store the K lanes of VX[vx] as elements (c, y, x0 ..) of Y, `valid` of them real: the others
 * are zeroed (vand with the mask in VX[4*cst]) so that they land as zeros in Y's padding or in
 * elements written later in program order. */
static void store_vec(build *b, gen *g, const lay *Y, int c, int y, int x0, unsigned vx,
                      int valid, unsigned cst)
{
    if (valid < (int)b->K)
        npk_opennpu_gen_insn(g, "vand vx%u, vx%u, vx%u", vx, vx, 4 * cst);
    char r[16];
    snprintf(r, sizeof r, "vx%u", vx);
    mem_op(b, g, "st.vx", r, vx / 4, lay_at(Y, c, y, x0), b->K);
}

static void load_lut(build *b, gen *g, uint64_t addr)
{
    unsigned s = grab(g);
    for (unsigned seg = 0; seg < 64 / b->K; seg++) {
        vr_op(b, g, "ld.vr", s, addr + 4ull * b->K * seg);
        npk_opennpu_gen_insn(g, "vsetlut.a vr%u, %u", s, seg);
    }
    npk_opennpu_gen_busy(g, s, 0);
}

/* Elementwise from X to Y (same shape, any layouts): a copy, or through LUT bank A. */
static void gen_map(build *b, gen *g, const lay *X, const lay *Y, int lut)
{
    unsigned K = b->K;
    unsigned a = grab(g), c = grab(g);
    consts(b, g, c, X->W % (int)K);
    for (int ch = 0; ch < X->C; ch++)
        for (int y = 0; y < X->H; y++)
            for (int x0 = 0; x0 < X->W; x0 += (int)K) {
                ld_vx(b, g, 4 * a, lay_at(X, ch, y, x0));
                if (lut)
                    npk_opennpu_gen_insn(g, "vlut.a vx%u, vx%u", 4 * a, 4 * a);
                store_vec(b, g, Y, ch, y, x0, 4 * a, X->W - x0 < (int)K ? X->W - x0 : (int)K, c);
            }
    release_all(g);
}

/* The registers of a bias-and-requantisation phase: t the vector, bb the biases and ss the
 * multipliers (loaded once while a Conv channel lasts), c the constants (consts), al the
 * LeakyReLU alpha and u its scratch. */
typedef struct rq {
    unsigned t, bb, ss, c, al, u;
    uint64_t have_bias, have_scale;
    int lut;  /* the activation through LUT bank A after the conversion */
} rq;

static rq rq_begin(build *b, gen *g, const npk_layer *l, const lstep *s, int valid)
{
    rq r = {0, 0, 0, 0, 0, 0, UINT64_MAX, UINT64_MAX, s->use_lut};
    if (s->use_lut)
        load_lut(b, g, s->lut);
    npk_opennpu_gen_text(g, "# bias and requantisation\n");
    r.t = grab(g), r.bb = grab(g), r.ss = grab(g), r.c = grab(g);
    if (l->act == NPK_ACT_LEAKY_RELU) {
        r.al = grab(g), r.u = grab(g);
        vr_op(b, g, "ld.vr", r.al, s->cst);
    }
    consts(b, g, r.c, valid);
    return r;
}

/* One vector of K accumulators at acc: add the biases at `bias`; then either store the int32
 * sums at `final` (the last NPU layer) or requantise them with the multipliers at `scale`
 * (q = sat8(rne(act(f32(acc + bias) * m)))) and store them as elements (ch, y, x0 ..) of Y. */
static void rq_vec(build *b, gen *g, const npk_layer *l, rq *r, uint64_t acc, uint64_t bias,
                   uint64_t scale, uint64_t final, const lay *Y, int ch, int y, int x0, int valid)
{
    vr_op(b, g, "ld.vr", r->t, acc);
    if (r->have_bias != bias)
        vr_op(b, g, "ld.vr", r->bb, bias), r->have_bias = bias;
    npk_opennpu_gen_insn(g, "vadd.sat vr%u, vr%u, vr%u", r->t, r->t, r->bb);
    if (final != UINT64_MAX) {
        vr_op(b, g, "st.vr", r->t, final);
        return;
    }
    npk_opennpu_gen_insn(g, "vcvt_f32_s32 vr%u, vr%u", r->t, r->t);
    if (r->have_scale != scale)
        vr_op(b, g, "ld.vr", r->ss, scale), r->have_scale = scale;
    npk_opennpu_gen_insn(g, "vfmul vr%u, vr%u, vr%u", r->t, r->t, r->ss);
    if (l->act == NPK_ACT_LEAKY_RELU) {
        npk_opennpu_gen_insn(g, "vfmul vr%u, vr%u, vr%u", r->u, r->t, r->al);
        npk_opennpu_gen_insn(g, "%s vr%u, vr%u, vr%u", l->alpha <= 1 ? "vfmax" : "vfmin", r->t,
                             r->t, r->u);
    }
    npk_opennpu_gen_insn(g, "vcvt_s8_f32.sat vx%u, vr%u", 4 * r->t, r->t);
    if (l->act == NPK_ACT_RELU)
        npk_opennpu_gen_insn(g, "vmax vx%u, vx%u, vx%u", 4 * r->t, 4 * r->t, 4 * r->c + 1);
    if (r->lut)
        npk_opennpu_gen_insn(g, "vlut.a vx%u, vx%u", 4 * r->t, 4 * r->t);
    store_vec(b, g, Y, ch, y, x0, 4 * r->t, valid, r->c);
}

static void gen_dense(build *b, gen *g, size_t i)
{
    const npk_layer *l = &b->p->layers[i];
    lstep *s = &b->ls[i];
    const lay *X = i == 0 ? &b->pad0 : &b->t[i];
    unsigned K = b->K;
    int last = i + 1 == b->n_npu;
    npk_opennpu_gen_text(g, "# layer %zu: dense %d -> %d (%s)\n# x into the A panel\n", i,
                         l->n_in, l->n_out, npk_act_name(l->act));
    unsigned r = grab(g);
    for (unsigned u = 0; u < s->g.quads; u++) {
        vr_op(b, g, "ld.w", r, X->addr + 4ull * u);
        vr_op(b, g, "st.w", r, s->g.a_addr + 4 + 4ull * K * u);
    }
    release_all(g);
    npk_opennpu_gen_gemm(g, &s->g);
    rq r4 = rq_begin(b, g, l, s, l->n_out % (int)K);
    for (unsigned v = 0; v < s->g.tiles_n; v++) {
        int x0 = (int)(K * v);
        rq_vec(b, g, l, &r4, s->g.c_addr + 4ull * K * v, s->bias + 4ull * K * v,
               s->scale + 4ull * K * v, last ? b->out_addr + 4ull * K * v : UINT64_MAX,
               &b->t[i + 1], 0, 0, x0, l->n_out - x0 < (int)K ? l->n_out - x0 : (int)K);
    }
    release_all(g);
}

static void gen_conv(build *b, gen *g, size_t i)
{
    const npk_layer *l = &b->p->layers[i];
    lstep *s = &b->ls[i];
    const lay *X = i == 0 ? &b->pad0 : &b->t[i];
    unsigned K = b->K, per_row = (unsigned)s->Wv / K;
    int last = i + 1 == b->n_npu, sw = l->sw;
    npk_opennpu_gen_text(g, "# layer %zu: conv %d -> %d, %dx%d, stride %dx%d (%s)\n# im2col\n",
                         i, l->n_in, l->n_out, l->kh, l->kw, l->sh, l->sw, npk_act_name(l->act));
    unsigned r = grab(g), st = grab(g);
    for (unsigned J = 0; J < s->g.tiles_n; J++) {
        int oy = (int)(J / per_row), ox0 = (int)(J % per_row * K);
        uint64_t have = UINT64_MAX; /* what VR st holds */
        for (unsigned q4 = 0; q4 < s->g.quads; q4++) {
            for (unsigned bt = 0; bt < 4 && 4 * q4 + bt < s->g.Kd; bt++) {
                int t = (int)(4 * q4 + bt), c = t / (l->kh * l->kw);
                int ky = t / l->kw % l->kh, kx = t % l->kw;
                uint64_t row = X->addr + (uint64_t)c * X->cs + (uint64_t)(oy * l->sh + ky) * X->rs;
                if (sw == 1) {
                    ld_vx(b, g, 4 * r + bt, row + (uint64_t)(ox0 + kx));
                    continue;
                }
                uint64_t a = row + (uint64_t)sw * (uint64_t)(ox0 + kx / sw);
                if (a != have)
                    ld_strided(b, g, st, sw, a), have = a;
                npk_opennpu_gen_insn(g, "vmov vx%u, vx%u", 4 * r + bt, 4 * st + kx % sw);
            }
            vr_op(b, g, "st.vr", r, s->g.b_addr + J * s->g.b_panel + 4ull * K * q4);
        }
    }
    release_all(g);
    npk_opennpu_gen_gemm(g, &s->g);
    rq r4 = rq_begin(b, g, l, s, s->oW % (int)K);
    for (int m = 0; m < l->n_out; m++)
        for (int oy = 0; oy < s->oH; oy++)
            for (int ox0 = 0; ox0 < s->oW; ox0 += (int)K) {
                uint64_t n0 = (uint64_t)oy * (uint64_t)s->Wv + (uint64_t)ox0, mm = (uint64_t)m;
                rq_vec(b, g, l, &r4, s->g.c_addr + mm * s->g.ldc + 4 * n0,
                       s->bias + 4ull * K * mm, s->scale + 4ull * K * mm,
                       last ? b->out_addr + 4 * (mm * (uint64_t)s->oH * (uint64_t)s->Wv + n0)
                            : UINT64_MAX,
                       &b->t[i + 1], m, oy, ox0, s->oW - ox0 < (int)K ? s->oW - ox0 : (int)K);
            }
    release_all(g);
}

static void gen_pool(build *b, gen *g, size_t i)
{
    const npk_layer *l = &b->p->layers[i];
    lstep *s = &b->ls[i];
    const lay *X = i == 0 ? &b->pad0 : &b->t[i], *Y = &b->t[i + 1];
    unsigned K = b->K;
    int avg = l->kind == NPK_LAYER_AVGPOOL, sw = l->sw;
    npk_opennpu_gen_text(g, "# layer %zu: %s %dx%d, stride %dx%d\n", i, avg ? "avgpool" : "maxpool",
                         l->kh, l->kw, l->sh, l->sw);
    if (s->use_lut)
        load_lut(b, g, s->lut);
    unsigned st = grab(g), a = grab(g), c = grab(g), w = 0, f = 0;
    if (avg) {
        w = grab(g), f = grab(g);
        vr_op(b, g, "ld.vr", f, s->cst);
    }
    consts(b, g, c, s->oW % (int)K);
    for (int ch = 0; ch < X->C; ch++)
        for (int oy = 0; oy < s->oH; oy++)
            for (int ox0 = 0; ox0 < s->oW; ox0 += (int)K) {
                int first = 1;
                for (int ky = 0; ky < l->kh; ky++) {
                    uint64_t row = X->addr + (uint64_t)ch * X->cs +
                                   (uint64_t)(oy * l->sh + ky) * X->rs;
                    for (int q = 0; q * sw < l->kw; q++) {
                        ld_strided(b, g, st, sw, row + (uint64_t)sw * (uint64_t)(ox0 + q));
                        for (int ph = 0; ph < sw && q * sw + ph < l->kw; ph++) {
                            unsigned src = 4 * st + (unsigned)ph;
                            if (avg && first)
                                npk_opennpu_gen_insn(g, "vcvt_s32_s8 vr%u, vx%u", a, src);
                            else if (avg) {
                                npk_opennpu_gen_insn(g, "vcvt_s32_s8 vr%u, vx%u", w, src);
                                npk_opennpu_gen_insn(g, "vadd vr%u, vr%u, vr%u", a, a, w);
                            }
                            else if (first)
                                npk_opennpu_gen_insn(g, "vmov vx%u, vx%u", 4 * a, src);
                            else
                                npk_opennpu_gen_insn(g, "vmax vx%u, vx%u, vx%u", 4 * a, 4 * a, src);
                            first = 0;
                        }
                    }
                }
                if (avg) {
                    npk_opennpu_gen_insn(g, "vcvt_f32_s32 vr%u, vr%u", a, a);
                    npk_opennpu_gen_insn(g, "vfmul vr%u, vr%u, vr%u", a, a, f);
                    npk_opennpu_gen_insn(g, "vcvt_s8_f32.sat vx%u, vr%u", 4 * a, a);
                } else if (s->use_lut) {
                    npk_opennpu_gen_insn(g, "vlut.a vx%u, vx%u", 4 * a, 4 * a);
                }
                store_vec(b, g, Y, ch, oy, ox0, 4 * a, s->oW - ox0 < (int)K ? s->oW - ox0 : (int)K,
                          c);
            }
    release_all(g);
}

static void gen_act(build *b, gen *g, size_t i)
{
    const npk_layer *l = &b->p->layers[i];
    npk_opennpu_gen_text(g, "# layer %zu: %s by LUT\n", i, npk_act_name(l->act));
    load_lut(b, g, b->ls[i].lut);
    gen_map(b, g, i == 0 ? &b->pad0 : &b->t[i], &b->t[i + 1], 1);
}

static int gen_program(build *b, char *err, size_t n)
{
    gen *g = npk_opennpu_gen_new(b->K, ONPU_L);
    if (!g) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    npk_opennpu_gen_text(g, "# %zu layers on opennpu K=%u L=%u (npukit compile)\n", b->n_npu,
                         b->K, ONPU_L);
    if (b->copy_in) {
        npk_opennpu_gen_text(g, "# the input into the padded layout of layer 0\n");
        gen_map(b, g, &b->t[0], &b->pad0, 0);
    }
    for (size_t i = 0; i < b->n_npu; i++)
        switch (b->p->layers[i].kind) {
        case NPK_LAYER_DENSE: gen_dense(b, g, i); break;
        case NPK_LAYER_CONV: gen_conv(b, g, i); break;
        case NPK_LAYER_MAXPOOL:
        case NPK_LAYER_AVGPOOL: gen_pool(b, g, i); break;
        case NPK_LAYER_ACT: gen_act(b, g, i); break;
        default: break; /* softmax runs on the host; analyse refused the rest */
        }
    b->prog = npk_opennpu_gen_finish(g, &b->cnt);
    if (!b->prog) {
        snprintf(err, n, "out of memory for the program");
        return -1;
    }
    if (b->bad_access) {
        snprintf(err, n, "internal error: the program reaches past the data image");
        return -1;
    }
    return 0;
}

static void build_free(build *b)
{
    free(b->t);
    free(b->ls);
    free(b->img);
    free(b->prog);
    memset(b, 0, sizeof *b);
}

static int parse_settings(const char *set, unsigned *K, unsigned *lat, char *err, size_t n)
{
    *K = 8, *lat = 1;
    const char *s = set ? set : "";
    while (*s) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        char item[64];
        if (len >= sizeof item)
            len = sizeof item - 1;
        memcpy(item, s, len);
        item[len] = 0;
        char *end;
        if (!strncmp(item, "K=", 2)) {
            unsigned long v = strtoul(item + 2, &end, 10);
            if (*end || (v != 4 && v != 8)) {
                snprintf(err, n, "K=%s: the lowering takes K=4 or K=8 (L=32: a K x K "
                         "tile must drain into the 8 VR registers)", item + 2);
                return -1;
            }
            *K = (unsigned)v;
        } else if (!strncmp(item, "mem_latency=", 12)) {
            unsigned long v = strtoul(item + 12, &end, 10);
            if (*end || v < 1 || v > 65535) {
                snprintf(err, n, "mem_latency=%s: must be 1 .. 65535", item + 12);
                return -1;
            }
            *lat = (unsigned)v;
        } else if (item[0]) {
            snprintf(err, n, "unknown setting '%s' (K=4|8, mem_latency=N)", item);
            return -1;
        }
        s += len + (e != NULL);
    }
    return 0;
}

static int build_all(build *b, const npk_plan *p, const char *settings, char *err, size_t n)
{
    memset(b, 0, sizeof *b);
    b->p = p;
    if (parse_settings(settings, &b->K, &b->lat, err, n) || analyse(p, &b->n_npu, err, n) ||
        plan_layout(b, err, n) || fill_image(b, err, n) || gen_program(b, err, n)) {
        build_free(b);
        return -1;
    }
    return 0;
}

/* ---- host side: input, output, tail ---------------------------------------------------------- */

/* The quantised input in the plain layout of tensor 0 (t[0].end - t[0].addr bytes). */
static void pack_input(const build *b, const float *x, uint8_t *dst)
{
    const lay *X = &b->t[0];
    memset(dst, 0, X->end - X->addr);
    double sc = b->p->tensors[0].scale;
    for (size_t k = 0; k < b->p->tensors[0].elems; k++)
        dst[k] = (uint8_t)quant_in(x[k], sc);
}

/* The host tail: y (the last NPU tensor's elements, float64) through trailing Softmax layers,
 * into out (float). */
static void host_tail(const npk_plan *p, size_t n_npu, double *y, float *out)
{
    size_t n = p->tensors[n_npu].elems;
    for (size_t i = n_npu; i < p->n_layers; i++) {
        const npk_layer *l = &p->layers[i];
        size_t row = l->row > 0 ? (size_t)l->row : n;
        for (size_t r0 = 0; r0 + row <= n; r0 += row) {
            double mx = y[r0], sum = 0;
            for (size_t k = 1; k < row; k++)
                mx = y[r0 + k] > mx ? y[r0 + k] : mx;
            for (size_t k = 0; k < row; k++)
                sum += y[r0 + k] = exp(y[r0 + k] - mx);
            for (size_t k = 0; k < row; k++)
                y[r0 + k] /= sum;
        }
    }
    for (size_t k = 0; k < n; k++)
        out[k] = (float)y[k];
}

/* Dequantise: accumulators (with bias) of the last Dense/Conv layer, or int8 of a last pool or
 * activation; acc[k] / q[k] in the plain order of the layer's output tensor. */
static void dequant(const npk_plan *p, size_t n_npu, const int32_t *acc, const int8_t *q,
                    double *y)
{
    const npk_layer *l = &p->layers[n_npu - 1];
    const npk_ptensor *to = &p->tensors[n_npu];
    size_t per = l->kind == NPK_LAYER_CONV ? to->elems / (size_t)l->n_out : 1;
    for (size_t k = 0; k < to->elems; k++) {
        if (acc) {
            size_t o = k / per;
            y[k] = npk_act_f64(l->act, l->alpha,
                           (double)acc[k] * p->tensors[n_npu - 1].scale * l->wscale[o]);
        } else {
            y[k] = q[k] * to->scale;
        }
    }
}

/* ---- the session ----------------------------------------------------------------------------- */

typedef struct session {
    build b;
    npk_machine *m;
    uint8_t *in, *out;
    int32_t *acc;
    int8_t *q;
    double *y;
} session;

static void onpu_close(void *sv)
{
    session *s = sv;
    if (!s)
        return;
    npk_destroy(s->m);
    build_free(&s->b);
    free(s->in), free(s->out), free(s->acc), free(s->q), free(s->y);
    free(s);
}

static int onpu_open(const npk_plan *p, const char *settings, void **out, char *err, size_t n)
{
    *out = NULL;
    session *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    if (build_all(&s->b, p, settings, err, n)) {
        free(s);
        return -1;
    }
    build *b = &s->b;
    size_t ne = p->tensors[b->n_npu].elems;
    s->in = malloc(b->t[0].end - b->t[0].addr);
    s->out = malloc(b->out_acc ? b->out_bytes : b->t[b->n_npu].end - b->t[b->n_npu].addr);
    s->acc = malloc(ne * sizeof *s->acc);
    s->q = malloc(ne);
    s->y = malloc((ne ? ne : 1) * sizeof *s->y);
    char cfg[96];
    snprintf(cfg, sizeof cfg, "K=%u,L=%d,mem_size=%llu,mem_latency=%u", b->K, ONPU_L,
             (unsigned long long)b->mem_size, b->lat);
    if (!s->in || !s->out || !s->acc || !s->q || !s->y) {
        snprintf(err, n, "out of memory");
        onpu_close(s);
        return -1;
    }
    if (npk_create(&s->m, "opennpu", cfg, err, n) != NPK_OK) {
        onpu_close(s);
        return -1;
    }
    if (npk_load_asm(s->m, b->prog, "model.s", NULL) != NPK_OK ||
        npk_mem_write(s->m, "mem", 0, b->img, b->at) != NPK_OK) {
        snprintf(err, n, "loading the lowered program: %s", npk_error(s->m));
        onpu_close(s);
        return -1;
    }
    free(b->img), b->img = NULL;
    *out = s;
    return 0;
}

static int32_t get32(const uint8_t *d)
{
    uint32_t u = (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 |
                 (uint32_t)d[3] << 24;
    return u < 0x80000000u ? (int32_t)u : (int32_t)(u - 0x80000000u) - 0x7FFFFFFF - 1;
}

static int onpu_infer(void *sv, const float *x, float *y, npk_lower_stats *st, char *err,
                      size_t n)
{
    session *s = sv;
    build *b = &s->b;
    const npk_plan *p = b->p;
    pack_input(b, x, s->in);
    npk_stop stop;
    uint64_t out_addr = b->out_acc ? b->out_addr : b->t[b->n_npu].addr;
    uint64_t out_n = b->out_acc ? b->out_bytes : b->t[b->n_npu].end - b->t[b->n_npu].addr;
    if (npk_reset(s->m) != NPK_OK ||
        npk_mem_write(s->m, "mem", b->t[0].addr, s->in, b->t[0].end - b->t[0].addr) != NPK_OK ||
        npk_stats_enable(s->m, st != NULL) != NPK_OK || npk_run(s->m, 0, &stop) != NPK_OK ||
        npk_mem_read(s->m, "mem", out_addr, s->out, out_n) != NPK_OK) {
        snprintf(err, n, "%s", npk_error(s->m));
        return -1;
    }
    if (stop.reason != NPK_STOP_EXIT) {
        snprintf(err, n, "the lowered program stopped: %s", stop.message);
        return -1;
    }
    const npk_layer *l = &p->layers[b->n_npu - 1];
    size_t ne = p->tensors[b->n_npu].elems;
    if (b->out_acc && l->kind == NPK_LAYER_DENSE) {
        for (size_t k = 0; k < ne; k++)
            s->acc[k] = get32(s->out + 4 * k);
    } else if (b->out_acc) {
        const lstep *ls = &b->ls[b->n_npu - 1];
        size_t k = 0;
        for (int m = 0; m < l->n_out; m++)
            for (int oy = 0; oy < ls->oH; oy++)
                for (int ox = 0; ox < ls->oW; ox++)
                    s->acc[k++] = get32(s->out + 4 * (((size_t)m * (size_t)ls->oH + (size_t)oy) *
                                                      (size_t)ls->Wv + (size_t)ox));
    } else {
        const lay *Y = &b->t[b->n_npu];
        size_t k = 0;
        for (int c = 0; c < Y->C; c++)
            for (int yy = 0; yy < Y->H; yy++)
                for (int xx = 0; xx < Y->W; xx++)
                    s->q[k++] = (int8_t)s->out[lay_at(Y, c, yy, xx) - Y->addr];
    }
    dequant(p, b->n_npu, b->out_acc ? s->acc : NULL, s->q, s->y);
    host_tail(p, b->n_npu, s->y, y);
    if (st) {
        npk_stats ss;
        memset(st, 0, sizeof *st);
        if (npk_stats_get(s->m, &ss) == NPK_OK) {
            st->cycles = ss.cycles;
            st->instructions = ss.insns;
        }
        st->macs = b->macs;
        st->utilisation = st->cycles ? (double)b->macs / ((double)st->cycles * b->K * b->K) : 0;
    }
    return 0;
}

/* OUT with its extension replaced by .img (or .img appended). */
static void image_path(const char *out, char *dst, size_t n)
{
    const char *slash = strrchr(out, '/'), *dot = strrchr(out, '.');
    size_t keep = dot && (!slash || dot > slash + 1) ? (size_t)(dot - out) : strlen(out);
    snprintf(dst, n, "%.*s.img", (int)keep, out);
    if (!strcmp(dst, out))
        snprintf(dst, n, "%s.data.img", out);
}

static int write_file(const char *path, const void *data, size_t size, char *err, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        if (f)
            fclose(f);
        snprintf(err, n, "cannot write %s", path);
        return -1;
    }
    return 0;
}

static int onpu_compile(const npk_plan *p, const char *settings, const char *out_path,
                        FILE *note, char *err, size_t n)
{
    build b;
    if (build_all(&b, p, settings, err, n))
        return -1;
    char img[4096];
    image_path(out_path, img, sizeof img);
    int rc = write_file(out_path, b.prog, strlen(b.prog), err, n) ||
             write_file(img, b.img, b.at, err, n) ? -1 : 0;
    if (!rc && note) {
        const lay *X = &b.t[0];
        fprintf(note,
                "opennpu (K=%u, L=%d): %s (%llu instructions, %llu MMA feeds), data image %s "
                "(%llu bytes)\n"
                "input: %zu int8 at mem %llu, q = round(x / %.9g) clamped to -127..127\n",
                b.K, ONPU_L, out_path, (unsigned long long)b.cnt.insns,
                (unsigned long long)b.cnt.feeds, img, (unsigned long long)b.at,
                p->tensors[0].elems, (unsigned long long)X->addr, p->tensors[0].scale);
        if (b.out_acc)
            fprintf(note, "output: int32 accumulators (bias added) at mem %llu, %llu bytes; "
                    "npukit run-model dequantises them (acc * in_scale * wscale[o])%s\n",
                    (unsigned long long)b.out_addr, (unsigned long long)b.out_bytes,
                    b.n_npu < p->n_layers ? " and runs the final Softmax on the host" : "");
        else
            fprintf(note, "output: int8 at mem %llu, %llu bytes (x scale %.9g)\n",
                    (unsigned long long)b.t[b.n_npu].addr,
                    (unsigned long long)(b.t[b.n_npu].end - b.t[b.n_npu].addr),
                    p->tensors[b.n_npu].scale);
        fprintf(note,
                "run: npukit run -t opennpu --config K=%u,L=%d,mem_size=%llu --load mem:0:%s "
                "--load mem:%llu:INPUT.i8 --dump mem:%llu:%llu --stats %s\n",
                b.K, ONPU_L, (unsigned long long)b.mem_size, img, (unsigned long long)X->addr,
                b.out_acc ? (unsigned long long)b.out_addr : (unsigned long long)b.t[b.n_npu].addr,
                b.out_acc ? (unsigned long long)b.out_bytes
                          : (unsigned long long)(b.t[b.n_npu].end - b.t[b.n_npu].addr),
                out_path);
    }
    build_free(&b);
    return rc;
}

const npk_lower_target npk_lower_opennpu = {
    .name = "opennpu",
    .compile = onpu_compile,
    .open = onpu_open,
    .infer = onpu_infer,
    .close = onpu_close,
};

/* ---- the host model -------------------------------------------------------------------------- */

int npk_lower_opennpu_reference(const npk_plan *p, const float *x, float *y, char *err,
                                size_t err_size)
{
    size_t n_npu;
    if (analyse(p, &n_npu, err, err_size))
        return -1;
    int8_t **t = calloc(n_npu + 1, sizeof *t);
    size_t ne = p->tensors[n_npu].elems;
    int32_t *acc = malloc((ne ? ne : 1) * sizeof *acc);
    double *yd = malloc((ne ? ne : 1) * sizeof *yd);
    int rc = -1;
    if (!t || !acc || !yd)
        goto out;
    for (size_t i = 0; i <= n_npu; i++)
        if (!(t[i] = calloc(p->tensors[i].elems + 1, 1)))
            goto out;
    for (size_t k = 0; k < p->tensors[0].elems; k++)
        t[0][k] = quant_in(x[k], p->tensors[0].scale);
    for (size_t i = 0; i < n_npu; i++) {
        const npk_layer *l = &p->layers[i];
        const int8_t *in = t[i];
        int8_t *o8 = t[i + 1];
        int last = i + 1 == n_npu, C, H, W, oC, oH, oW;
        dims3(&p->tensors[i], &C, &H, &W);
        dims3(&p->tensors[i + 1], &oC, &oH, &oW);
        size_t per = (size_t)oH * (size_t)oW;
        double si = p->tensors[i].scale, so = p->tensors[i + 1].scale;
        uint8_t T[256];
        if (l->kind == NPK_LAYER_DENSE || l->kind == NPK_LAYER_CONV) {
            if (!act_inline(l->act))
                make_lut(T, pre_scale(p, l), so, l->act, l->alpha);
            for (size_t k = 0; k < p->tensors[i + 1].elems; k++) {
                int64_t a = 0;
                if (l->kind == NPK_LAYER_DENSE) {
                    for (int j = 0; j < l->n_in; j++)
                        a += (int64_t)l->wq[k * (size_t)l->n_in + (size_t)j] * in[j];
                } else {
                    int m = (int)(k / per), oy = (int)(k % per) / oW, ox = (int)(k % per) % oW;
                    for (int c = 0; c < C; c++)
                        for (int ky = 0; ky < l->kh; ky++)
                            for (int kx = 0; kx < l->kw; kx++) {
                                int yy = oy * l->sh - l->pt + ky, xx = ox * l->sw - l->pl + kx;
                                if (yy < 0 || yy >= H || xx < 0 || xx >= W)
                                    continue;
                                a += (int64_t)l->wq[(((size_t)m * (size_t)C + (size_t)c) *
                                                     (size_t)l->kh + (size_t)ky) *
                                                        (size_t)l->kw + (size_t)kx] *
                                     in[((size_t)c * (size_t)H + (size_t)yy) * (size_t)W +
                                        (size_t)xx];
                            }
                }
                size_t o = l->kind == NPK_LAYER_DENSE ? k : k / per;
                int32_t accb = sat32((int64_t)(int32_t)(uint32_t)a + (l->bq ? l->bq[o] : 0));
                if (last)
                    acc[k] = accb;
                else if (act_inline(l->act))
                    o8[k] = requant(accb, chan_mult(p, l, (int)o), l->act, f32_const(l->alpha));
                else
                    o8[k] = (int8_t)T[(uint8_t)requant(accb, chan_mult(p, l, (int)o),
                                                       NPK_ACT_NONE, 0)];
            }
        } else if (l->kind == NPK_LAYER_ACT || l->kind == NPK_LAYER_MAXPOOL ||
                   l->kind == NPK_LAYER_AVGPOOL) {
            make_lut(T, si, so, l->kind == NPK_LAYER_ACT ? l->act : NPK_ACT_NONE, l->alpha);
            if (l->kind == NPK_LAYER_ACT) {
                for (size_t k = 0; k < p->tensors[i].elems; k++)
                    o8[k] = (int8_t)T[(uint8_t)in[k]];
                continue;
            }
            float f = f32_const(si / (so * l->kh * l->kw));
            for (size_t k = 0; k < p->tensors[i + 1].elems; k++) {
                int c = (int)(k / per), oy = (int)(k % per) / oW, ox = (int)(k % per) % oW;
                int32_t mx = -128, sum = 0;
                for (int ky = 0; ky < l->kh; ky++)
                    for (int kx = 0; kx < l->kw; kx++) {
                        int yy = oy * l->sh - l->pt + ky, xx = ox * l->sw - l->pl + kx;
                        int v = yy < 0 || yy >= H || xx < 0 || xx >= W
                                    ? 0
                                    : in[((size_t)c * (size_t)H + (size_t)yy) * (size_t)W +
                                         (size_t)xx];
                        mx = v > mx ? v : mx;
                        sum += v;
                    }
                if (l->kind == NPK_LAYER_AVGPOOL)
                    o8[k] = (int8_t)cvt_s8_f32_sat(fmul32((float)(double)sum, f));
                else
                    o8[k] = si != so ? (int8_t)T[(uint8_t)mx] : (int8_t)mx;
            }
        }
    }
    {
        const npk_layer *l = &p->layers[n_npu - 1];
        int accs = l->kind == NPK_LAYER_DENSE || l->kind == NPK_LAYER_CONV;
        dequant(p, n_npu, accs ? acc : NULL, t[n_npu], yd);
    }
    host_tail(p, n_npu, yd, y);
    rc = 0;
out:
    if (rc)
        snprintf(err, err_size, "out of memory");
    if (t)
        for (size_t i = 0; i <= n_npu; i++)
            free(t[i]);
    free(t), free(acc), free(yd);
    return rc;
}
