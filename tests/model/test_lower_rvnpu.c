/* The rvnpu lowering (src/targets/rvnpu/lower.c) on hand-built plans: an MLP and a small CNN
 * (conv, max pool, strided padded conv, average pool, ReLU, dense, softmax), int8 and fp32,
 * seed and rev2. The simulator's outputs must equal, bit for bit, a host model written here
 * from docs/models.md "Lowering to rvnpu" (the firmware's integer and float arithmetic), and
 * agree with a float64 run within the error bound the test propagates through the layers.
 * Also: the compiled ELF run through the public API, and the errors; and the sequence models
 * named on the command line (fp32, against a host model of the firmware's float ops). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "model/lower.h"
#include "model/npy.h"
#include "npukit/npukit.h"
#include "test.h"

/* ---- plans -------------------------------------------------------------------------------- */

#define MAXL 8

typedef struct tplan {
    npk_plan p;
    npk_layer l[MAXL];
    npk_ptensor t[MAXL + 1];
    float *mem[8 * MAXL];
    size_t n_mem;
} tplan;

static uint32_t rng_state = 12345;

static double urand(void) /* uniform in [-1, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return (double)(rng_state >> 8) / 8388608.0 - 1.0;
}

static void *keep(tplan *tp, size_t bytes)
{
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p || tp->n_mem == sizeof tp->mem / sizeof tp->mem[0]) {
        fprintf(stderr, "test_lower_rvnpu: out of memory\n");
        exit(2);
    }
    tp->mem[tp->n_mem++] = p;
    return p;
}

static void tensor(tplan *tp, int i, int rank, int d0, int d1, int d2)
{
    npk_ptensor *t = &tp->t[i];
    t->rank = rank;
    t->dims[0] = d0;
    t->dims[1] = d1;
    t->dims[2] = d2;
    t->elems = (size_t)d0 * (size_t)(rank == 3 ? d1 * d2 : 1);
}

static npk_layer *layer(tplan *tp, npk_layer_kind kind, npk_act act, const char *op)
{
    int i = (int)tp->p.n_layers++;
    npk_layer *l = &tp->l[i];
    l->kind = kind;
    l->act = act;
    l->node = 10 + i;
    l->name = "n";
    l->op = op;
    l->in = i;
    l->out = i + 1;
    l->sh = l->sw = l->kh = l->kw = 1;
    tp->p.n_tensors = (size_t)i + 2;
    return l;
}

/* Random weights (scaled by 1/sqrt(fan-in)) and biases for a DENSE (k = n_in) or CONV layer. */
static void weights(tplan *tp, npk_layer *l, size_t k)
{
    size_t m = (size_t)l->n_out;
    float *w = keep(tp, m * k * sizeof *w), *b = keep(tp, m * sizeof *b);
    for (size_t i = 0; i < m * k; i++)
        w[i] = (float)(urand() * 1.5 / sqrt((double)k));
    for (size_t o = 0; o < m; o++)
        b[o] = (float)(urand() * 0.2);
    l->w = w;
    l->b = b;
}

static void dense(tplan *tp, int n_in, int n_out, npk_act act)
{
    npk_layer *l = layer(tp, NPK_LAYER_DENSE, act, "Gemm");
    l->n_in = n_in;
    l->n_out = n_out;
    tensor(tp, l->out, 1, n_out, 1, 1);
    weights(tp, l, (size_t)n_in);
}

static int out_dim(int in, int k, int s, int pa, int pb)
{
    return (in + pa + pb - k) / s + 1;
}

static void conv(tplan *tp, int m, int k, int s, int pad, npk_act act)
{
    npk_layer *l = layer(tp, NPK_LAYER_CONV, act, "Conv");
    const npk_ptensor *in = &tp->t[l->in];
    l->n_in = in->dims[0];
    l->n_out = m;
    l->kh = l->kw = k;
    l->sh = l->sw = s;
    l->pt = l->pl = l->pb = l->pr = pad;
    tensor(tp, l->out, 3, m, out_dim(in->dims[1], k, s, pad, pad),
           out_dim(in->dims[2], k, s, pad, pad));
    weights(tp, l, (size_t)(l->n_in * k * k));
}

static void pool(tplan *tp, npk_layer_kind kind, int k, int s, int pad, int count_pad)
{
    npk_layer *l = layer(tp, kind, NPK_ACT_NONE, kind == NPK_LAYER_MAXPOOL ? "MaxPool"
                                                                            : "AveragePool");
    const npk_ptensor *in = &tp->t[l->in];
    l->n_in = l->n_out = in->dims[0];
    l->kh = l->kw = k;
    l->sh = l->sw = s;
    l->pt = l->pl = l->pb = l->pr = pad;
    l->count_include_pad = count_pad;
    tensor(tp, l->out, 3, in->dims[0], out_dim(in->dims[1], k, s, pad, pad),
           out_dim(in->dims[2], k, s, pad, pad));
}

static void elementwise(tplan *tp, npk_layer_kind kind, npk_act act, double alpha)
{
    npk_layer *l = layer(tp, kind, act, kind == NPK_LAYER_SOFTMAX ? "Softmax" : "Relu");
    l->alpha = alpha;
    tp->t[l->out] = tp->t[l->in];
    l->row = (int)tp->t[l->in].elems;
}

static void tplan_init(tplan *tp, int rank, int d0, int d1, int d2)
{
    memset(tp, 0, sizeof *tp);
    tp->p.layers = tp->l;
    tp->p.tensors = tp->t;
    tensor(tp, 0, rank, d0, d1, d2);
    tp->p.n_tensors = 1;
}

static void tplan_free(tplan *tp)
{
    while (tp->n_mem)
        free(tp->mem[--tp->n_mem]);
}

/* ---- where each output reads (shared by the references below) ------------------------------ */

/* Output element o of a (C, H, W) tensor as (c, y, x). */
static void pos3(const npk_ptensor *t, size_t o, int *c, int *y, int *x)
{
    size_t plane = (size_t)t->dims[1] * (size_t)t->dims[2];
    *c = (int)(o / plane);
    *y = (int)(o % plane / (size_t)t->dims[2]);
    *x = (int)(o % (size_t)t->dims[2]);
}

/* The input index of kernel/window tap (c, ky, kx) of the output at (oy, ox), -1 in the
 * padding. */
static long tap(const npk_layer *l, const npk_ptensor *t, int c, int ky, int kx, int oy, int ox)
{
    int y = oy * l->sh - l->pt + ky, x = ox * l->sw - l->pl + kx;
    if (y < 0 || y >= t->dims[1] || x < 0 || x >= t->dims[2])
        return -1;
    return ((long)c * t->dims[1] + y) * t->dims[2] + x;
}

/* Dense/conv: the weight row of output o, and the input index term i reads (-1: padding). */
static size_t row_of(const npk_layer *l, const npk_ptensor *to, size_t o)
{
    return l->kind == NPK_LAYER_DENSE ? o : o / ((size_t)to->dims[1] * (size_t)to->dims[2]);
}

static long term(const npk_layer *l, const npk_ptensor *ti, const npk_ptensor *to, size_t o,
                 size_t i)
{
    if (l->kind == NPK_LAYER_DENSE)
        return (long)i;
    int m, oy, ox, khw = l->kh * l->kw;
    pos3(to, o, &m, &oy, &ox);
    return tap(l, ti, (int)(i / (size_t)khw), (int)(i % (size_t)khw) / l->kw,
               (int)(i % (size_t)l->kw), oy, ox);
}

static size_t terms(const npk_layer *l)
{
    return (size_t)l->n_in * (size_t)(l->kh * l->kw);
}

#define MAXWIN 64 /* the largest pool window these tests build is 3 x 3 */

/* Pools: the input indices of output o's window (padding skipped) and the divisor. */
static int window(const npk_layer *l, const npk_ptensor *ti, const npk_ptensor *to, size_t o,
                  long *idx, int *div)
{
    int c, oy, ox, n = 0;
    pos3(to, o, &c, &oy, &ox);
    for (int ky = 0; ky < l->kh; ky++)
        for (int kx = 0; kx < l->kw; kx++) {
            long i = tap(l, ti, c, ky, kx, oy, ox);
            if (i >= 0 && n < MAXWIN)
                idx[n++] = i;
        }
    *div = l->count_include_pad ? l->kh * l->kw : n;
    return n;
}


/* ---- float64 reference of the plan (plan.h's definitions) ---------------------------------- */

static double act64(npk_act a, double v, double alpha)
{
    switch (a) {
    case NPK_ACT_RELU: return v > 0 ? v : 0;
    case NPK_ACT_LEAKY_RELU: return v < 0 ? alpha * v : v;
    case NPK_ACT_GELU: return 0.5 * v * (1 + erf(v / sqrt(2.0)));
    case NPK_ACT_TANH: return tanh(v);
    case NPK_ACT_SIGMOID: return 1 / (1 + exp(-v));
    default: return v;
    }
}

/* Every tensor of the plan: v[t] (the caller's arrays of each tensor's size). */
static void run_f64(const tplan *tp, const float *x, double **v)
{
    const npk_plan *p = &tp->p;
    long idx[MAXWIN];
    int n, div;
    for (size_t i = 0; i < p->tensors[0].elems; i++)
        v[0][i] = x[i];
    for (size_t li = 0; li < p->n_layers; li++) {
        const npk_layer *l = &p->layers[li];
        const npk_ptensor *ti = &p->tensors[l->in], *to = &p->tensors[l->out];
        const double *a = v[l->in];
        double *y = v[l->out];
        for (size_t o = 0; o < to->elems; o++) {
            if (l->kind == NPK_LAYER_DENSE || l->kind == NPK_LAYER_CONV) {
                size_t m = row_of(l, to, o), k = terms(l);
                double s = l->b ? l->b[m] : 0;
                for (size_t i = 0; i < k; i++) {
                    long j = term(l, ti, to, o, i);
                    s += (j < 0 ? 0 : a[j]) * l->w[m * k + i];
                }
                y[o] = act64(l->act, s, l->alpha);
            } else if (l->kind == NPK_LAYER_MAXPOOL || l->kind == NPK_LAYER_AVGPOOL) {
                double best = -INFINITY, sum = 0;
                n = window(l, ti, to, o, idx, &div);
                for (int i = 0; i < n; i++) {
                    sum += a[idx[i]];
                    best = a[idx[i]] > best ? a[idx[i]] : best;
                }
                y[o] = l->kind == NPK_LAYER_MAXPOOL ? best : sum / div;
            } else if (l->kind == NPK_LAYER_ACT) {
                y[o] = act64(l->act, a[o], l->alpha);
            } else { /* softmax */
                size_t r = o - o % (size_t)l->row;
                double mx = -INFINITY, s = 0;
                for (int i = 0; i < l->row; i++)
                    mx = fmax(mx, a[r + (size_t)i]);
                for (int i = 0; i < l->row; i++)
                    s += exp(a[r + (size_t)i] - mx);
                y[o] = exp(a[o] - mx) / s;
            }
        }
    }
}

typedef struct tvals {
    double *v[MAXL + 1];
} tvals;

static void tvals_init(tvals *tv, const tplan *tp)
{
    for (size_t t = 0; t < tp->p.n_tensors; t++)
        tv->v[t] = calloc(tp->p.tensors[t].elems, sizeof(double));
}

static void tvals_free(tvals *tv, const tplan *tp)
{
    for (size_t t = 0; t < tp->p.n_tensors; t++)
        free(tv->v[t]);
}

/* plan.h's calibration: max |value| per tensor over the inputs, scale max/127; per-channel
 * weights wq = round(w / wscale), wscale = max|w[o]| / 127; bq = round(b / (s_in wscale)). */
static void calibrate(tplan *tp, const float *xs, int count)
{
    npk_plan *p = &tp->p;
    tvals tv;
    tvals_init(&tv, tp);
    for (int k = 0; k < count; k++) {
        run_f64(tp, xs + (size_t)k * p->tensors[0].elems, tv.v);
        for (size_t t = 0; t < p->n_tensors; t++)
            for (size_t i = 0; i < p->tensors[t].elems; i++)
                if (fabs(tv.v[t][i]) > p->tensors[t].max_abs)
                    p->tensors[t].max_abs = fabs(tv.v[t][i]);
    }
    tvals_free(&tv, tp);
    for (size_t t = 0; t < p->n_tensors; t++)
        p->tensors[t].scale = p->tensors[t].max_abs > 0 ? p->tensors[t].max_abs / 127 : 1.0 / 127;
    for (size_t li = 0; li < p->n_layers; li++) {
        npk_layer *l = &p->layers[li];
        if (l->kind != NPK_LAYER_DENSE && l->kind != NPK_LAYER_CONV)
            continue;
        size_t m = (size_t)l->n_out, k = (size_t)l->n_in * (size_t)(l->kh * l->kw);
        l->wq = keep(tp, m * k);
        l->wscale = keep(tp, m * sizeof(double));
        l->bq = keep(tp, m * sizeof(int32_t));
        for (size_t o = 0; o < m; o++) {
            double mx = 0;
            for (size_t i = 0; i < k; i++)
                mx = fmax(mx, fabs(l->w[o * k + i]));
            l->wscale[o] = mx > 0 ? mx / 127 : 1;
            for (size_t i = 0; i < k; i++)
                l->wq[o * k + i] = (int8_t)lround(l->w[o * k + i] / l->wscale[o]);
            l->bq[o] = (int32_t)lround(l->b[o] / (p->tensors[l->in].scale * l->wscale[o]));
        }
    }
    p->calibrated = 1;
}

/* ---- the host model of the firmware (docs/models.md "Lowering to rvnpu") --------------------
 * int8: x -> clamp(rne(x * (float)(1/s0)), -127, 127); DENSE/CONV: acc = sum q * wq + bias,
 * bias = rne(b / (s_in wscale)); int8 result: clamp(round_half_up(acc * mult / 2^shift), -128,
 * 127), ReLU, with s_in wscale / s_out = mult 2^-shift, mult in [2^30, 2^31); pools and ReLU
 * keep their input's scale; avg = s / n rounded half away from zero; the last dense/conv keeps
 * acc (ReLU'd), out = (float)acc * (float)(s_in wscale); otherwise out = (float)q * (float)s.
 * Softmax in float: max, x - max, (float)exp(double), sum in double rounded once, divide. */

static void softmax_f32(float *y, size_t n)
{
    float mx = y[0];
    for (size_t i = 1; i < n; i++)
        if (y[i] > mx)
            mx = y[i];
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        y[i] = (float)exp((double)(y[i] - mx));
        s += y[i];
    }
    float fs = (float)s;
    for (size_t i = 0; i < n; i++)
        y[i] = y[i] / fs;
}

static void softmax_rows(const tplan *tp, float *out)
{
    const npk_layer *l = &tp->p.layers[tp->p.n_layers - 1];
    size_t n = tp->p.tensors[tp->p.n_tensors - 1].elems;
    if (l->kind == NPK_LAYER_SOFTMAX)
        for (size_t r = 0; r < n; r += (size_t)l->row)
            softmax_f32(out + r, (size_t)l->row);
}

static float act32(npk_act a, float v, double alpha);

/* int8: an activation the integer NPU lacks runs in binary32 between a dequantisation and a
 * quantisation to the output's scale: clamp(rne(act((float)q * (float)s) * (float)(1/s_out))) */
static int float_act(npk_act a)
{
    return a != NPK_ACT_NONE && a != NPK_ACT_RELU;
}

static int64_t q8(float v, float inv)
{
    long q = lrintf(v * inv);
    return q > 127 ? 127 : q < -127 ? -127 : q;
}

static void host_int8(const tplan *tp, const float *x, float *out)
{
    const npk_plan *p = &tp->p;
    size_t nl = p->n_layers, last = p->layers[nl - 1].kind == NPK_LAYER_SOFTMAX ? nl - 2 : nl - 1;
    int64_t *v[MAXL + 1];
    double s[MAXL + 1], *acc_scale = NULL; /* the last dense/conv's s_in * wscale[m] */
    long idx[MAXWIN];
    int n, div;
    for (size_t t = 0; t < p->n_tensors; t++)
        v[t] = calloc(p->tensors[t].elems, sizeof(int64_t));
    s[0] = p->tensors[0].scale;
    float inv = (float)(1.0 / s[0]);
    for (size_t i = 0; i < p->tensors[0].elems; i++)
        v[0][i] = q8(x[i], inv);
    for (size_t li = 0; li <= last; li++) {
        const npk_layer *l = &p->layers[li];
        const npk_ptensor *ti = &p->tensors[l->in], *to = &p->tensors[l->out];
        const int64_t *a = v[l->in];
        int64_t *y = v[l->out];
        int wsum = l->kind == NPK_LAYER_DENSE || l->kind == NPK_LAYER_CONV;
        int fact = float_act(l->act);
        float inv_out = (float)(1.0 / to->scale);
        s[l->out] = wsum || fact ? to->scale : s[l->in];
        if (wsum) {
            free(acc_scale);
            acc_scale = calloc((size_t)l->n_out, sizeof *acc_scale);
        }
        for (size_t o = 0; o < to->elems; o++) {
            if (wsum) {
                size_t m = row_of(l, to, o), k = terms(l);
                acc_scale[m] = s[l->in] * l->wscale[m];
                int ex;
                double f = frexp(acc_scale[m] / to->scale, &ex);
                int64_t mult = (int64_t)nearbyint(ldexp(f, 31)), shift = 31 - ex;
                if (mult == INT64_C(1) << 31) {
                    mult >>= 1;
                    shift--;
                }
                int64_t acc = (int64_t)nearbyint(l->b[m] / acc_scale[m]);
                for (size_t i = 0; i < k; i++) {
                    long j = term(l, ti, to, o, i);
                    acc += (j < 0 ? 0 : a[j]) * l->wq[m * k + i];
                }
                if (li != last && fact) {
                    acc = q8(act32(l->act, (float)acc * (float)acc_scale[m], l->alpha), inv_out);
                } else if (li != last) {
                    acc = (acc * mult + (INT64_C(1) << (shift - 1))) >> shift;
                    acc = acc > 127 ? 127 : acc < -128 ? -128 : acc;
                }
                y[o] = l->act == NPK_ACT_RELU && acc < 0 ? 0 : acc;
            } else if (l->kind == NPK_LAYER_ACT && fact) {
                y[o] = q8(act32(l->act, (float)a[o] * (float)s[l->in], l->alpha), inv_out);
            } else if (l->kind == NPK_LAYER_ACT) {
                y[o] = l->act == NPK_ACT_RELU && a[o] < 0 ? 0 : a[o];
            } else {
                int64_t best = -128, sum = 0;
                n = window(l, ti, to, o, idx, &div);
                for (int i = 0; i < n; i++) {
                    sum += a[idx[i]];
                    best = a[idx[i]] > best ? a[idx[i]] : best;
                }
                /* half away from zero */
                int64_t avg = sum >= 0 ? (2 * sum + div) / (2 * div)
                                       : -((-2 * sum + div) / (2 * div));
                y[o] = l->kind == NPK_LAYER_MAXPOOL ? best : avg;
            }
        }
    }
    const npk_layer *l = &p->layers[last];
    const npk_ptensor *tl = &p->tensors[last + 1];
    int acc_out = l->kind == NPK_LAYER_DENSE || l->kind == NPK_LAYER_CONV;
    for (size_t o = 0; o < tl->elems; o++) {
        out[o] = (float)v[last + 1][o] *
                 (float)(acc_out ? acc_scale[row_of(l, tl, o)] : s[last + 1]);
        if (acc_out && float_act(l->act))
            out[o] = act32(l->act, out[o], l->alpha);
    }
    softmax_rows(tp, out);
    for (size_t t = 0; t < p->n_tensors; t++)
        free(v[t]);
    free(acc_scale);
}

/* fp32: FVMAC sums w*x in binary64 in index order (padding included as 0), rounded once, then
 * + bias in binary32; activations: FRELU, FGELU (binary64 erf), LeakyReLU v * alpha,
 * sigmoid 1 / (1 + e^-v), tanh 2 / (1 + e^-2v) - 1 with e^ = (float)exp(double); pools in
 * binary32 (average: sum / (float)n). */
static float act32(npk_act a, float v, double alpha)
{
    switch (a) {
    case NPK_ACT_RELU: return v > 0 ? v : 0.0f;
    case NPK_ACT_LEAKY_RELU: return v < 0.0f ? v * (float)alpha : v;
    case NPK_ACT_GELU: {
        double d = v;
        return (float)((0.5 * d) * (1.0 + erf(d / sqrt(2.0))));
    }
    case NPK_ACT_SIGMOID: return 1.0f / (1.0f + (float)exp(-(double)v));
    case NPK_ACT_TANH: {
        float d = 1.0f + (float)exp((double)(-2.0f * v));
        return 2.0f / d - 1.0f;
    }
    default: return v;
    }
}

static void host_fp32(const tplan *tp, const float *x, float *out)
{
    const npk_plan *p = &tp->p;
    float *v[MAXL + 1];
    long idx[MAXWIN];
    int n, div;
    for (size_t t = 0; t < p->n_tensors; t++)
        v[t] = calloc(p->tensors[t].elems, sizeof(float));
    memcpy(v[0], x, p->tensors[0].elems * sizeof(float));
    for (size_t li = 0; li < p->n_layers; li++) {
        const npk_layer *l = &p->layers[li];
        const npk_ptensor *ti = &p->tensors[l->in], *to = &p->tensors[l->out];
        const float *a = v[l->in];
        float *y = v[l->out];
        for (size_t o = 0; o < to->elems; o++) {
            if (l->kind == NPK_LAYER_DENSE || l->kind == NPK_LAYER_CONV) {
                size_t m = row_of(l, to, o), k = terms(l);
                double facc = 0.0;
                for (size_t i = 0; i < k; i++) {
                    long j = term(l, ti, to, o, i);
                    facc += (double)(j < 0 ? 0.0f : a[j]) * (double)l->w[m * k + i];
                }
                y[o] = act32(l->act, (float)facc + l->b[m], l->alpha);
            } else if (l->kind == NPK_LAYER_ACT) {
                y[o] = act32(l->act, a[o], l->alpha);
            } else if (l->kind == NPK_LAYER_SOFTMAX) {
                y[o] = a[o];
                if ((o + 1) % (size_t)l->row == 0)
                    softmax_f32(y + o + 1 - (size_t)l->row, (size_t)l->row);
            } else {
                float best = -INFINITY, sum = 0.0f;
                n = window(l, ti, to, o, idx, &div);
                for (int i = 0; i < n; i++) {
                    sum += a[idx[i]];
                    best = a[idx[i]] > best ? a[idx[i]] : best;
                }
                y[o] = l->kind == NPK_LAYER_MAXPOOL ? best : sum / (float)div;
            }
        }
    }
    memcpy(out, v[p->n_tensors - 1], p->tensors[p->n_tensors - 1].elems * sizeof(float));
    for (size_t t = 0; t < p->n_tensors; t++)
        free(v[t]);
}

/* ---- the error bound of the int8 lowering against float64 ----------------------------------
 * Per element, propagated layer by layer: input rounding s0/2; dense/conv: sum |w||dx| +
 * sum (|x| + |dx|) wscale/2 (weight rounding) + s_in wscale/2 (bias rounding) + s_out/2
 * (requantisation, not for the last layer), with a 1 % margin for the float32 output
 * conversion; ReLU, max pool and average pool do not grow it (1-Lipschitz), the average's
 * rounding adds s/2; softmax: |dp| <= e^(2 max|dz|) - 1. Clamping toward [-128, 127] s only
 * moves a value toward the calibrated range, so it does not add error. */
/* The steepest slope of an activation: how much it can grow an error. GELU's is 1.129 (at
 * x = 2.42). */
static double lipschitz(npk_act a, double alpha)
{
    switch (a) {
    case NPK_ACT_LEAKY_RELU: return fmax(1, fabs(alpha));
    case NPK_ACT_GELU: return 1.13;
    case NPK_ACT_SIGMOID: return 0.25;
    default: return 1;
    }
}

static void int8_bound(const tplan *tp, const float *x, double *bound)
{
    const npk_plan *p = &tp->p;
    tvals tv;
    tvals_init(&tv, tp);
    run_f64(tp, x, tv.v);
    double *e[MAXL + 1], s[MAXL + 1];
    long idx[MAXWIN];
    int n, div;
    for (size_t t = 0; t < p->n_tensors; t++)
        e[t] = calloc(p->tensors[t].elems, sizeof(double));
    s[0] = p->tensors[0].scale;
    for (size_t i = 0; i < p->tensors[0].elems; i++)
        e[0][i] = s[0] / 2;
    size_t nl = p->n_layers;
    for (size_t li = 0; li < nl; li++) {
        const npk_layer *l = &p->layers[li];
        const npk_ptensor *ti = &p->tensors[l->in], *to = &p->tensors[l->out];
        const double *ea = e[l->in], *a = tv.v[l->in];
        double *ey = e[l->out];
        int last = li + 1 == nl || (li + 2 == nl && p->layers[nl - 1].kind == NPK_LAYER_SOFTMAX);
        int wsum = l->kind == NPK_LAYER_DENSE || l->kind == NPK_LAYER_CONV;
        int fact = float_act(l->act);
        double lip = lipschitz(l->act, l->alpha), yv;
        s[l->out] = wsum || fact ? to->scale : s[l->in];
        double emax = 0;
        for (size_t i = 0; i < ti->elems; i++)
            emax = fmax(emax, ea[i]);
        for (size_t o = 0; o < to->elems; o++) {
            if (wsum) {
                size_t m = row_of(l, to, o), k = terms(l);
                double b = s[l->in] * l->wscale[m] / 2;
                for (size_t i = 0; i < k; i++) {
                    long j = term(l, ti, to, o, i);
                    double xi = j < 0 ? 0 : a[j], dx = j < 0 ? 0 : ea[j];
                    b += fabs(l->w[m * k + i]) * dx + (fabs(xi) + dx) * l->wscale[m] / 2;
                }
                /* the activation's slope, the requantisation, binary32 rounding */
                yv = tv.v[l->out][o];
                ey[o] = lip * b * 1.01 + (last ? 0 : s[l->out] / 2) + 1e-6 * (1 + fabs(yv));
            } else if (l->kind == NPK_LAYER_SOFTMAX) {
                ey[o] = expm1(2 * emax) + 1e-6;
            } else if (l->kind == NPK_LAYER_ACT) {
                yv = tv.v[l->out][o];
                ey[o] = lip * ea[o] + (fact ? s[l->out] / 2 + 1e-6 * (1 + fabs(yv)) : 0);
            } else {
                double mx = 0;
                n = window(l, ti, to, o, idx, &div);
                for (int i = 0; i < n; i++)
                    mx = fmax(mx, ea[idx[i]]);
                ey[o] = mx + (l->kind == NPK_LAYER_AVGPOOL ? s[l->in] / 2 : 0);
            }
        }
    }
    memcpy(bound, e[p->n_tensors - 1], p->tensors[p->n_tensors - 1].elems * sizeof(double));
    for (size_t t = 0; t < p->n_tensors; t++)
        free(e[t]);
    tvals_free(&tv, tp);
}

/* ---- the checks ----------------------------------------------------------------------------- */

#define NX 6 /* inputs: the first 4 calibrate */

/* Run `count` inputs on rvnpu with `settings`: equal to the host model bit for bit, within the
 * bound of float64 (int8) or 1e-5 relative (fp32). Returns the instructions of one inference. */
static uint64_t check_plan(const char *what, tplan *tp, const float *xs, const char *settings)
{
    const npk_lower_target *t = npk_lower_find("rvnpu");
    NPK_CHECK(t != NULL);
    if (!t)
        return 0;
    int fp32 = strstr(settings, "fp32") != NULL;
    char err[512] = "";
    void *sess = NULL;
    int rc = t->open(&tp->p, settings, &sess, err, sizeof err);
    NPK_REPORT(rc == 0, "%s [%s]: open: %s\n", what, settings, err);
    if (rc)
        return 0;
    size_t n_in = tp->p.tensors[0].elems, n_out = tp->p.tensors[tp->p.n_tensors - 1].elems;
    float *y = calloc(n_out, sizeof *y), *h = calloc(n_out, sizeof *h);
    double *bound = calloc(n_out, sizeof *bound);
    tvals tv;
    tvals_init(&tv, tp);
    npk_lower_stats st = {0};
    for (int k = 0; k < NX; k++) {
        const float *x = xs + (size_t)k * n_in;
        rc = t->infer(sess, x, y, &st, err, sizeof err);
        NPK_REPORT(rc == 0, "%s [%s]: infer: %s\n", what, settings, err);
        if (fp32)
            host_fp32(tp, x, h);
        else {
            host_int8(tp, x, h);
            int8_bound(tp, x, bound);
        }
        run_f64(tp, x, tv.v);
        const double *f = tv.v[tp->p.n_tensors - 1];
        for (size_t i = 0; i < n_out; i++) {
            NPK_REPORT(memcmp(&y[i], &h[i], 4) == 0, "%s [%s] input %d: y[%zu] = %.9g, host "
                       "model %.9g\n", what, settings, k, i, y[i], h[i]);
            double tol = fp32 ? 1e-5 * (1 + fabs(f[i])) : bound[i];
            NPK_REPORT(fabs(y[i] - f[i]) <= tol, "%s [%s] input %d: y[%zu] = %.6g, float64 "
                       "%.6g, beyond %.3g\n", what, settings, k, i, y[i], f[i], tol);
        }
    }
    NPK_REPORT(st.instructions > 0 && st.cycles >= st.instructions && st.macs > 0,
               "%s [%s]: %llu instructions, %llu cycles, %llu MACs\n", what, settings,
               (unsigned long long)st.instructions, (unsigned long long)st.cycles,
               (unsigned long long)st.macs);
    NPK_CHECK(st.utilisation > 0 && st.utilisation <= 1);
    printf("%-8s [%s]: %llu instructions, %llu cycles, %llu MACs per inference\n", what,
           settings, (unsigned long long)st.instructions, (unsigned long long)st.cycles,
           (unsigned long long)st.macs);
    t->close(sess);
    tvals_free(&tv, tp);
    free(y);
    free(h);
    free(bound);
    return st.instructions;
}

static float *inputs(size_t n)
{
    float *xs = malloc(NX * n * sizeof *xs);
    for (size_t i = 0; i < NX * n; i++)
        xs[i] = (float)urand();
    return xs;
}

/* The compiled file: an ELF that runs with --write model_input / model_output through the
 * public API and gives what infer gives. */
static void check_compile(tplan *tp, const float *x)
{
    const npk_lower_target *t = npk_lower_find("rvnpu");
    char path[] = "/tmp/npk_lower_rvnpu_XXXXXX", err[512] = "";
    int fd = mkstemp(path);
    NPK_CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    FILE *note = tmpfile();
    NPK_CHECK(t->compile(&tp->p, "", path, note, err, sizeof err) == 0);
    char text[1024] = "";
    rewind(note);
    size_t nt = fread(text, 1, sizeof text - 1, note);
    text[nt] = '\0';
    fclose(note);
    NPK_CHECK_CONTAINS(text, "--write model_input:f32:X.npy --dump model_output:f32");
    size_t n_in = tp->p.tensors[0].elems, n_out = tp->p.tensors[tp->p.n_tensors - 1].elems;
    float *y = calloc(n_out, 4), *h = calloc(n_out, 4);
    host_int8(tp, x, h);
    npk_machine *m = NULL;
    npk_stop stop;
    NPK_CHECK(npk_create(&m, "rvnpu", NULL, err, sizeof err) == NPK_OK);
    NPK_REPORT(npk_load_file(m, path, stderr) == NPK_OK, "load %s: %s\n", path, npk_error(m));
    NPK_CHECK(npk_write_symbol(m, "model_input", x, n_in * 4) == NPK_OK);
    /* the symbol has the input's exact size: one float more is refused */
    float *big = calloc(n_in + 1, 4);
    NPK_CHECK(npk_write_symbol(m, "model_input", big, (n_in + 1) * 4) == NPK_ERR_RANGE);
    free(big);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT &&
              stop.exit_code == 0);
    NPK_CHECK(npk_read_symbol(m, "model_output", y, n_out * 4) == NPK_OK);
    NPK_CHECK(memcmp(y, h, n_out * 4) == 0);
    npk_destroy(m);
    if (!getenv("KEEP"))
        unlink(path);
    free(y);
    free(h);
}

static void check_errors(void)
{
    const npk_lower_target *t = npk_lower_find("rvnpu");
    char err[512] = "";
    void *sess = NULL;
    tplan tp;
    tplan_init(&tp, 3, 1, 4, 4);
    pool(&tp, NPK_LAYER_MAXPOOL, 2, 2, 0, 0);
    tp.l[0].act = NPK_ACT_TANH; /* no plan makes this: activations merge into dense/conv */
    float xs[4 * 16];
    for (int i = 0; i < 64; i++)
        xs[i] = (float)urand();
    calibrate(&tp, xs, 4);
    /* the layer, its node, operator and the reason; nothing is opened */
    NPK_CHECK(t->open(&tp.p, "", &sess, err, sizeof err) == -1 && sess == NULL);
    NPK_CHECK_CONTAINS(err, "layer 0 (node 10 'n', MaxPool): activation tanh after maxpool is "
                            "not supported");
    NPK_CHECK(t->open(&tp.p, "precision=fp32", &sess, err, sizeof err) == -1 && sess == NULL);
    NPK_CHECK(t->open(&tp.p, "precision=int4", &sess, err, sizeof err) == -1);
    NPK_CHECK_CONTAINS(err, "unknown setting 'precision=int4'");
    /* a softmax in the middle of an int8 plan */
    tplan_free(&tp);
    tplan_init(&tp, 1, 8, 1, 1);
    elementwise(&tp, NPK_LAYER_SOFTMAX, NPK_ACT_NONE, 0);
    dense(&tp, 8, 4, NPK_ACT_NONE);
    calibrate(&tp, xs, 4);
    NPK_CHECK(t->compile(&tp.p, "", "/nonexistent/x.elf", NULL, err, sizeof err) == -1);
    NPK_CHECK_CONTAINS(err, "layer 0 (node 10 'n', Softmax): int8: softmax only as the last");
    /* an int8 plan that was never calibrated */
    tp.p.calibrated = 0;
    NPK_CHECK(t->compile(&tp.p, "", "/nonexistent/x.elf", NULL, err, sizeof err) == -1);
    NPK_CHECK_CONTAINS(err, "int8 needs a calibrated plan");
    tplan_free(&tp);
    /* a dot product the 32-bit accumulator RSTACC returns might not hold: 131,001 terms of
     * up to 127 * 127 can reach 2.1 x 10^9 > 2^31 - 1 */
    tplan_init(&tp, 1, 131001, 1, 1);
    dense(&tp, 131001, 1, NPK_ACT_NONE);
    float *xk = inputs(131001);
    calibrate(&tp, xk, 1);
    NPK_CHECK(t->compile(&tp.p, "", "/nonexistent/x.elf", NULL, err, sizeof err) == -1);
    NPK_CHECK_CONTAINS(err, "layer 0 (node 10 'n', Gemm): int8: a dot product of 131001 "
                            "elements may overflow the 32-bit accumulator");
    /* fp32 has no such limit, and the file that cannot be written is named */
    NPK_CHECK(t->compile(&tp.p, "precision=fp32", "/nonexistent/x.elf", NULL, err,
                         sizeof err) == -1);
    NPK_CHECK_CONTAINS(err, "/nonexistent/x.elf: cannot write the firmware ELF");
    free(xk);
    tplan_free(&tp);
}

/* An int8 model that carries its own scales (models/onnx/mlp_qdq.onnx, lenet_qlinear.onnx):
 * no calibration; 4 pixel-like inputs; the simulator equal to the host model of the firmware
 * bit for bit, and (once the output's own QuantizeLinear is applied, as run-model does) within
 * `tol` of the plan's float64 run, which is the model's int8 arithmetic as ONNX defines it. */
static void check_qmodel(const char *path, double tol)
{
    char err[512] = "";
    npk_model *m = NULL;
    npk_plan *p = NULL;
    int rc = npk_model_read_file(path, &m, err, sizeof err);
    rc = rc ? rc : npk_plan_build(m, &p, err, sizeof err);
    NPK_REPORT(rc == 0 && p->qmodel, "%s: %s\n", path, err);
    const npk_lower_target *t = npk_lower_find("rvnpu");
    void *sess = NULL;
    if (rc == 0 && p->qmodel && t->open(p, "", &sess, err, sizeof err) != 0) {
        NPK_REPORT(0, "%s: open: %s\n", path, err);
        rc = -1;
    }
    if (rc != 0 || !p->qmodel) {
        npk_plan_free(p);
        npk_model_free(m);
        return;
    }
    tplan tp;
    tp.p = *p;   /* host_int8 reads the plan only */
    size_t ni = p->tensors[0].elems, no = p->tensors[p->n_tensors - 1].elems;
    float *x = malloc(ni * 4), *y = malloc(no * 4), *h = malloc(no * 4);
    double *xd = malloc(ni * 8), *yd = malloc(no * 8), worst = 0;
    npk_lower_stats st;
    for (int k = 0; k < 4; k++) {
        for (size_t i = 0; i < ni; i++)
            xd[i] = x[i] = (float)((urand() + 1) / 2);
        NPK_CHECK(t->infer(sess, x, y, &st, err, sizeof err) == 0);
        host_int8(&tp, x, h);
        NPK_REPORT(memcmp(y, h, no * 4) == 0, "%s input %d: the simulator differs from the "
                   "host model (y[0] %.9g vs %.9g)\n", path, k, (double)y[0], (double)h[0]);
        NPK_CHECK(npk_plan_run_f64(p, xd, yd, 0) == 0);
        npk_plan_q_output(p, y);
        for (size_t i = 0; i < no; i++)
            worst = fabs(y[i] - yd[i]) > worst ? fabs(y[i] - yd[i]) : worst;
    }
    NPK_REPORT(worst <= tol, "%s: %g from the float64 run, beyond %g\n", path, worst, tol);
    printf("%s: 4 inputs equal to the host model; largest difference from the float64 run "
           "(the model's own int8 arithmetic) %g\n", path, worst);
    t->close(sess);
    free(x), free(y), free(h), free(xd), free(yd);
    npk_plan_free(p);
    npk_model_free(m);
}

/* ---- sequence models (models/onnx: the transformer block, the RMSNorm block), fp32 -------
 * The host model of the firmware's float ops (model_fw.c): DENSE per row as above; NORM: the
 * mean m = (float)(sum x, binary64) / (float)n (LayerNorm only), d = x - m, v = (float)(sum d*d,
 * binary64) / (float)n + eps, inv = 1 / sqrtf(v), y = (d * inv) * g + b, each operation
 * rounded to binary32; MATMUL: (float) of the binary64 sum in index order; TRANSPOSE a copy;
 * ADD x + x2 and SCALE x * (float)factor in binary32; SOFTMAX as softmax_f32. */
static void host_seq_fp32(const npk_plan *p, const float *x, float *out)
{
    float **v = calloc(p->n_tensors, sizeof *v);
    for (size_t t = 0; t < p->n_tensors; t++)
        v[t] = calloc(p->tensors[t].elems, sizeof(float));
    memcpy(v[0], x, p->tensors[0].elems * sizeof(float));
    for (size_t li = 0; li < p->n_layers; li++) {
        const npk_layer *l = &p->layers[li];
        const float *a = v[l->in], *b = l->in2 >= 0 ? v[l->in2] : NULL;
        float *y = v[l->out];
        size_t n = p->tensors[l->out].elems;
        switch (l->kind) {
        case NPK_LAYER_DENSE:
            for (int r = 0; r < l->rows; r++)
                for (int o = 0; o < l->n_out; o++) {
                    double facc = 0.0;
                    for (int i = 0; i < l->n_in; i++)
                        facc += (double)a[r * l->n_in + i] * (double)l->w[o * l->n_in + i];
                    y[r * l->n_out + o] = act32(l->act, (float)facc + l->b[o], l->alpha);
                }
            break;
        case NPK_LAYER_LAYERNORM:
        case NPK_LAYER_RMSNORM:
            for (size_t r0 = 0; r0 < n; r0 += (size_t)l->row) {
                float m = 0.0f;
                double s = 0.0;
                if (l->kind == NPK_LAYER_LAYERNORM) {
                    for (int i = 0; i < l->row; i++)
                        s += a[r0 + i];
                    m = (float)s / (float)l->row;
                }
                s = 0.0;
                for (int i = 0; i < l->row; i++) {
                    y[r0 + i] = a[r0 + i] - m;
                    s += (double)y[r0 + i] * (double)y[r0 + i];
                }
                float var = (float)s / (float)l->row + (float)l->eps;
                float inv = 1.0f / sqrtf(var);
                for (int i = 0; i < l->row; i++) {
                    float t = y[r0 + i] * inv;
                    if (l->w)
                        t = t * l->w[i];
                    y[r0 + i] = l->b ? t + l->b[i] : t;
                }
            }
            break;
        case NPK_LAYER_MATMUL:
            for (int h = 0; h < l->batch; h++)
                for (int r = 0; r < l->rows; r++)
                    for (int o = 0; o < l->n_out; o++) {
                        double facc = 0.0;
                        for (int i = 0; i < l->n_in; i++)
                            facc += (double)a[(h * l->rows + r) * l->n_in + i] *
                                    (double)b[(h * l->n_in + i) * l->n_out + o];
                        y[(h * l->rows + r) * l->n_out + o] = (float)facc;
                    }
            break;
        case NPK_LAYER_TRANSPOSE: {
            /* y's element (j0, j1, j2) is x's with axis perm[k] at j_k */
            int d[3] = {1, 1, 1}, j[3], at[3] = {0, 0, 0};
            for (int k = 0; k < l->trank; k++)
                d[k] = l->tdims[l->perm[k]];
            size_t o = 0;
            for (j[0] = 0; j[0] < d[0]; j[0]++)
                for (j[1] = 0; j[1] < d[1]; j[1]++)
                    for (j[2] = 0; j[2] < d[2]; j[2]++) {
                        for (int k = 0; k < l->trank; k++)
                            at[l->perm[k]] = j[k];
                        size_t src = 0;
                        for (int k = 0; k < l->trank; k++)
                            src = src * (size_t)l->tdims[k] + (size_t)at[k];
                        y[o++] = a[src];
                    }
            break;
        }
        case NPK_LAYER_ADD:
            for (size_t i = 0; i < n; i++)
                y[i] = a[i] + b[i];
            break;
        case NPK_LAYER_SCALE:
            for (size_t i = 0; i < n; i++)
                y[i] = a[i] * (float)l->factor;
            break;
        case NPK_LAYER_SOFTMAX:
            memcpy(y, a, n * sizeof *y);
            for (size_t r0 = 0; r0 < n; r0 += (size_t)l->row)
                softmax_f32(y + r0, (size_t)l->row);
            break;
        case NPK_LAYER_ACT:
            for (size_t i = 0; i < n; i++)
                y[i] = act32(l->act, a[i], l->alpha);
            break;
        default:
            NPK_REPORT(0, "layer %zu: no host model for %s\n", li, npk_layer_kind_name(l->kind));
        }
    }
    memcpy(out, v[p->n_tensors - 1], p->tensors[p->n_tensors - 1].elems * sizeof(float));
    for (size_t t = 0; t < p->n_tensors; t++)
        free(v[t]);
    free(v);
}

/* MODEL.onnx with its NAME_samples.npy on rvnpu fp32 (seed and rev2): equal to the host model
 * bit for bit and within 1e-5 (1 + |y|) of the plan's float64 run; int8 refuses it. */
static void check_seq_model(const char *path)
{
    char err[512] = "", xpath[600];
    npk_model *m = NULL;
    npk_plan *p = NULL;
    npk_npy_f32 xs = {0};
    snprintf(xpath, sizeof xpath, "%.*s_samples.npy", (int)(strlen(path) - 5), path);
    NPK_REPORT(npk_model_read_file(path, &m, err, sizeof err) == 0, "%s\n", err);
    NPK_REPORT(m && npk_plan_build(m, &p, err, sizeof err) == 0, "%s\n", err);
    NPK_REPORT(npk_npy_read_f32(xpath, &xs, err, sizeof err) == 0, "%s\n", err);
    const npk_lower_target *t = npk_lower_find("rvnpu");
    if (!p || !xs.data || !t) {
        npk_npy_free_f32(&xs);
        npk_plan_free(p);
        npk_model_free(m);
        return;
    }
    size_t nin = p->tensors[0].elems, nout = p->tensors[p->n_tensors - 1].elems;
    size_t count = xs.count / nin;
    float *y = calloc(nout, sizeof *y), *h = calloc(nout, sizeof *h);
    double *xd = calloc(nin, sizeof *xd), *f = calloc(nout, sizeof *f);
    static const char *const settings[] = {"precision=fp32", "precision=fp32,isa_rev=rev2"};
    for (int k = 0; k < 2; k++) {
        void *sess = NULL;
        int rc = t->open(p, settings[k], &sess, err, sizeof err);
        NPK_REPORT(rc == 0, "%s [%s]: %s\n", path, settings[k], err);
        double worst = 0.0;
        npk_lower_stats st = {0};
        for (size_t c = 0; rc == 0 && c < count; c++) {
            const float *x = xs.data + c * nin;
            NPK_REPORT(t->infer(sess, x, y, &st, err, sizeof err) == 0, "%s\n", err);
            host_seq_fp32(p, x, h);
            for (size_t i = 0; i < nin; i++)
                xd[i] = x[i];
            npk_plan_run_f64(p, xd, f, 0);
            size_t differ = 0;
            for (size_t i = 0; i < nout; i++) {
                differ += memcmp(&y[i], &h[i], 4) != 0;
                worst = fmax(worst, fabs(y[i] - f[i]));
                NPK_REPORT(fabs(y[i] - f[i]) <= 1e-5 * (1 + fabs(f[i])), "%s input %zu: y[%zu] "
                           "= %.9g, float64 %.9g\n", path, c, i, y[i], f[i]);
            }
            NPK_REPORT(differ == 0, "%s [%s] input %zu: %zu of %zu outputs differ from the host "
                       "model\n", path, settings[k], c, differ, nout);
        }
        printf("%s [%s]: %zu inputs equal to the host model, max |y - float64| %.3g; %llu "
               "cycles, %llu instructions, %llu MACs per inference\n", path, settings[k], count,
               worst, (unsigned long long)st.cycles, (unsigned long long)st.instructions,
               (unsigned long long)st.macs);
        if (rc == 0)
            t->close(sess);
    }
    /* int8 refuses the sequence layers, naming the first */
    NPK_CHECK(npk_plan_calibrate(p, xs.data, count, err, sizeof err) == 0);
    NPK_CHECK(t->compile(p, "", "/nonexistent/x.elf", NULL, err, sizeof err) != 0);
    NPK_CHECK_CONTAINS(err, "layer 0 (node ");
    NPK_CHECK_CONTAINS(err, "(int8: not lowered yet; precision=fp32 runs them)");
    free(y);
    free(h);
    free(xd);
    free(f);
    npk_npy_free_f32(&xs);
    npk_plan_free(p);
    npk_model_free(m);
}

int main(int argc, char **argv)
{
    /* MLP 20 -> 16 ReLU -> 10 */
    tplan mlp;
    tplan_init(&mlp, 1, 20, 1, 1);
    dense(&mlp, 20, 16, NPK_ACT_RELU);
    dense(&mlp, 16, 10, NPK_ACT_NONE);
    float *xm = inputs(20);
    calibrate(&mlp, xm, 4);
    uint64_t seed_insns = check_plan("mlp", &mlp, xm, "");
    uint64_t rev2_insns = check_plan("mlp", &mlp, xm, "isa_rev=rev2");
    /* no vector above 256 here: rev2 costs at most its chunk tests (none with clang) */
    NPK_CHECK(seed_insns > 0 && rev2_insns >= seed_insns && rev2_insns < seed_insns + 100);
    check_plan("mlp", &mlp, xm, "precision=fp32");
    check_compile(&mlp, xm);
    /* int8 with sigmoid inside and tanh on the output (after the dequantisation) */
    mlp.l[0].act = NPK_ACT_SIGMOID;
    mlp.l[1].act = NPK_ACT_TANH;
    calibrate(&mlp, xm, 4);
    check_plan("mlp-acts", &mlp, xm, "");
    mlp.l[0].act = NPK_ACT_GELU;
    mlp.l[1].act = NPK_ACT_LEAKY_RELU;
    mlp.l[1].alpha = 0.2;
    calibrate(&mlp, xm, 4);
    check_plan("mlp-acts", &mlp, xm, "");

    /* rows longer than rev2's 256-byte vectors (300 int8, 300 floats > 64): chunked VMACs
     * and FVMACs, a few instructions more than seed's one per row */
    tplan wide;
    tplan_init(&wide, 1, 300, 1, 1);
    dense(&wide, 300, 3, NPK_ACT_NONE);
    float *xw = inputs(300);
    calibrate(&wide, xw, 4);
    seed_insns = check_plan("wide", &wide, xw, "");
    rev2_insns = check_plan("wide", &wide, xw, "isa_rev=rev2");
    NPK_CHECK(seed_insns > 0 && rev2_insns > seed_insns);
    seed_insns = check_plan("wide", &wide, xw, "precision=fp32");
    rev2_insns = check_plan("wide", &wide, xw, "precision=fp32,isa_rev=rev2");
    NPK_CHECK(seed_insns > 0 && rev2_insns > seed_insns);
    free(xw);
    tplan_free(&wide);

    /* CNN (2, 9, 9): conv 4 3x3 pad 1 ReLU -> (4, 9, 9); max pool 2/2 -> (4, 4, 4); conv 6
     * 3x3 stride 2 pad 1 -> (6, 2, 2); average pool 3/1 pad 1 (padding not counted) ->
     * (6, 2, 2); ReLU; dense 24 -> 5; softmax */
    tplan cnn;
    tplan_init(&cnn, 3, 2, 9, 9);
    conv(&cnn, 4, 3, 1, 1, NPK_ACT_RELU);
    pool(&cnn, NPK_LAYER_MAXPOOL, 2, 2, 0, 0);
    conv(&cnn, 6, 3, 2, 1, NPK_ACT_NONE);
    pool(&cnn, NPK_LAYER_AVGPOOL, 3, 1, 1, 0);
    elementwise(&cnn, NPK_LAYER_ACT, NPK_ACT_RELU, 0);
    dense(&cnn, 24, 5, NPK_ACT_NONE);
    elementwise(&cnn, NPK_LAYER_SOFTMAX, NPK_ACT_NONE, 0);
    NPK_CHECK(cnn.t[cnn.p.n_tensors - 2].elems == 5 && cnn.t[4].dims[1] == 2);
    float *xc = inputs(2 * 9 * 9);
    calibrate(&cnn, xc, 4);
    check_plan("cnn", &cnn, xc, "");
    check_plan("cnn", &cnn, xc, "isa_rev=rev2");
    check_plan("cnn", &cnn, xc, "precision=fp32");
    /* fp32 activations: GELU and LeakyReLU in layers, tanh and sigmoid alone; padded
     * positions counted by the average */
    cnn.l[0].act = NPK_ACT_GELU;
    cnn.l[2].act = NPK_ACT_LEAKY_RELU;
    cnn.l[2].alpha = 0.1;
    cnn.l[3].count_include_pad = 1;
    cnn.l[4].act = NPK_ACT_TANH;
    check_plan("cnn-acts", &cnn, xc, "precision=fp32,isa_rev=rev2");
    calibrate(&cnn, xc, 4); /* int8: each activation in binary32 between integer layers */
    check_plan("cnn-acts", &cnn, xc, "");
    cnn.l[4].act = NPK_ACT_SIGMOID;
    check_plan("cnn-acts", &cnn, xc, "precision=fp32");
    calibrate(&cnn, xc, 4);
    check_plan("cnn-acts", &cnn, xc, "isa_rev=rev2");

    /* LeNet-sized (1, 28, 28): conv 6 5x5 pad 2 ReLU, max pool 2, conv 16 5x5 ReLU, max pool
     * 2, dense 400 -> 120 ReLU -> 84 ReLU -> 10: about 416,000 MACs */
    tplan lenet;
    tplan_init(&lenet, 3, 1, 28, 28);
    conv(&lenet, 6, 5, 1, 2, NPK_ACT_RELU);
    pool(&lenet, NPK_LAYER_MAXPOOL, 2, 2, 0, 0);
    conv(&lenet, 16, 5, 1, 0, NPK_ACT_RELU);
    pool(&lenet, NPK_LAYER_MAXPOOL, 2, 2, 0, 0);
    dense(&lenet, 400, 120, NPK_ACT_RELU);
    dense(&lenet, 120, 84, NPK_ACT_RELU);
    dense(&lenet, 84, 10, NPK_ACT_NONE);
    float *xl = inputs(28 * 28);
    calibrate(&lenet, xl, 4);
    check_plan("lenet", &lenet, xl, "");
    check_plan("lenet", &lenet, xl, "precision=fp32,isa_rev=rev2");
    free(xl);
    tplan_free(&lenet);

    /* the output taken from the last layers' other forms: a convolution's int32 accumulators
     * (per-channel scales over each 3 x 3 plane, ReLU on them), and int8 values of a pool */
    tplan tail;
    tplan_init(&tail, 3, 2, 5, 5);
    conv(&tail, 3, 3, 1, 0, NPK_ACT_RELU);
    float *xt = inputs(2 * 5 * 5);
    calibrate(&tail, xt, 4);
    check_plan("conv-out", &tail, xt, "");
    check_plan("conv-out", &tail, xt, "precision=fp32");
    tail.l[0].act = NPK_ACT_NONE; /* negative values from here on */
    pool(&tail, NPK_LAYER_AVGPOOL, 2, 1, 0, 0);
    calibrate(&tail, xt, 4);
    check_plan("pool-out", &tail, xt, "");
    elementwise(&tail, NPK_LAYER_ACT, NPK_ACT_NONE, 0); /* an identity keeps the signs */
    calibrate(&tail, xt, 4);
    check_plan("pool-out", &tail, xt, "");
    free(xt);
    tplan_free(&tail);

    /* more than the default 4 MiB of RAM: 3.3 MB of int8 weights (13.2 MB as fp32); the
     * machine is made with a larger ram_size, and compile says to run with --ram-size */
    tplan big;
    tplan_init(&big, 1, 2200, 1, 1);
    dense(&big, 2200, 1500, NPK_ACT_NONE);
    float *xb = inputs(2200);
    calibrate(&big, xb, 4);
    check_plan("big", &big, xb, "");
    check_plan("big", &big, xb, "precision=fp32");
    char err[512] = "", text[1024] = "";
    FILE *note = tmpfile();
    NPK_CHECK(npk_lower_find("rvnpu")->compile(&big.p, "", "/dev/null", note, err,
                                               sizeof err) == 0);
    rewind(note);
    text[fread(text, 1, sizeof text - 1, note)] = '\0';
    fclose(note);
    /* 1 MiB of firmware region, then the blob: header 64 + 3 ops x 128 = 448, weights
     * 3,300,000, int32 biases 6,000 and output scales 6,000 (no multipliers: the last layer
     * keeps its accumulators) = 3,312,448; buffers: input 8,800 + output 6,000 + int8 input
     * 2,200 (16-aligned: 2,208) + int32 result 6,000 = 23,008; 4,384,032 bytes in all, in 4 KiB
     * pages 4,386,816 */
    NPK_CHECK_CONTAINS(text, "npukit run --ram-size 4386816 /dev/null");
    free(xb);
    tplan_free(&big);

    check_errors();
    for (int k = 1; k < argc; k++)
        if (strstr(argv[k], "_qdq") || strstr(argv[k], "_qlinear"))
            check_qmodel(argv[k], 0.05);   /* an int8 model with its own scales */
        else
            check_seq_model(argv[k]);
    free(xm);
    free(xc);
    tplan_free(&mlp);
    tplan_free(&cnn);
    return npk_test_done();
}
