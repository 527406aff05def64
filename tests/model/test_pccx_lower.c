/* The pccx lowering (src/targets/pccx/lower.c, docs/models.md "Lowering to pccx") on plans
 * built by hand with seeded weights: an MLP (dense + ReLU, dense + sigmoid, dense + tanh,
 * dense, softmax) and a CNN (conv + tanh with padding, max pool 3x3/2 with padding, conv +
 * ReLU, average pool with padding not counted, dense, softmax; and one whose conv (+ GELU) and
 * pool are GEMMs).
 * (1) The simulator's outputs equal, bit for bit, a host model written here from the spec:
 *     per layer BF16 activations, GEMV sums of BF16 x INT4 terms exact then rounded to binary32
 *     (§3.3, §6.4), times the row scale (binary32), plus the BF16 bias (binary32 add), rounded
 *     to BF16; CVO functions as §6.5/§7.2 define them.
 * (2) Against npk_plan_run_f64 on the same plan with the dequantised INT4 weights (code x
 *     scale) and the BF16-rounded input: only BF16 rounding separates them (each stored value
 *     within 2^-9 relative, through a few layers of gain of order one); both plans end in a
 *     softmax, whose outputs must agree within 2^-7 (measured: about 2^-8).
 * (3) Against npk_plan_run_f64 of the float weights, for one dense layer: |y - y64| <=
 *     sum_i |x_i| * s_o / 2 (INT4 rounding of each weight by at most half a step s_o)
 *     + 7 s_o 2^-9 sum_i |x_i| (the BF16 input, |code| <= 7) + 2^-8 |y64| + 2^-8 (the BF16
 *     result and bias) — the INT4 accuracy cost.
 * Plus: the program file that compile writes runs under npk_load_path with the same outputs;
 * a softmax over a feature map and a too-wide layer are refused with the layer named. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"

#include "model/lower.h"
#include "model/plan.h"
#include "npukit/npukit.h"
#include "targets/pccx/lower.h"

/* ---- hand-built plans --------------------------------------------------------------------- */

typedef struct hplan {
    npk_plan p;
    npk_layer l[8];
    npk_ptensor t[9];
    float *mem[16];
    int n_mem;
} hplan;

static uint64_t rng_state = 0x5EED;
static double uni(void)   /* splitmix64 -> [-1, 1) */
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-52 - 1.0;
}

static float *rnd(hplan *h, size_t n, double amp)
{
    float *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = (float)(amp * uni());
    h->mem[h->n_mem++] = v;
    return v;
}

static void tensor(hplan *h, int i, int rank, int d0, int d1, int d2)
{
    npk_ptensor *t = &h->t[i];
    t->rank = rank;
    t->dims[0] = d0, t->dims[1] = d1, t->dims[2] = d2;
    t->elems = (size_t)d0 * (size_t)(rank == 3 ? d1 * d2 : 1);
}

static npk_layer *layer(hplan *h, npk_layer_kind k, npk_act act, const char *name)
{
    npk_layer *l = &h->l[h->p.n_layers];
    memset(l, 0, sizeof *l);
    l->kind = k;
    l->act = act;
    l->node = (int)h->p.n_layers;
    l->name = name;
    l->op = k == NPK_LAYER_DENSE ? "Gemm" : k == NPK_LAYER_CONV ? "Conv"
          : k == NPK_LAYER_MAXPOOL ? "MaxPool" : k == NPK_LAYER_AVGPOOL ? "AveragePool"
          : "Softmax";
    l->in = (int)h->p.n_layers;
    l->out = l->in + 1;
    h->p.n_layers++;
    h->p.n_tensors = h->p.n_layers + 1;
    return l;
}

static void dense(hplan *h, int n_in, int n_out, npk_act act, double amp, const char *name)
{
    npk_layer *l = layer(h, NPK_LAYER_DENSE, act, name);
    l->n_in = n_in, l->n_out = n_out;
    l->w = rnd(h, (size_t)n_in * (size_t)n_out, amp);
    l->b = rnd(h, (size_t)n_out, 0.3);
    tensor(h, l->out, 1, n_out, 1, 1);
}

static void win(hplan *h, npk_layer_kind k, int m, int kh, int kw, int s, int pad, npk_act act,
                const char *name)
{
    npk_layer *l = layer(h, k, act, name);
    const npk_ptensor *x = &h->t[l->in];
    l->n_in = x->dims[0];
    l->n_out = k == NPK_LAYER_CONV ? m : x->dims[0];
    l->kh = kh, l->kw = kw, l->sh = l->sw = s;
    l->pt = l->pl = l->pb = l->pr = pad;
    if (k == NPK_LAYER_CONV) {
        l->w = rnd(h, (size_t)m * (size_t)(l->n_in * kh * kw), 0.5);
        l->b = rnd(h, (size_t)m, 0.2);
    }
    tensor(h, l->out, 3, l->n_out, (x->dims[1] + 2 * pad - kh) / s + 1,
           (x->dims[2] + 2 * pad - kw) / s + 1);
}

static void softmax(hplan *h)
{
    npk_layer *l = layer(h, NPK_LAYER_SOFTMAX, NPK_ACT_NONE, "sm");
    l->row = (int)h->t[l->in].elems;
    tensor(h, l->out, 1, l->row, 1, 1);
}

static void finish(hplan *h)
{
    h->p.layers = h->l;
    h->p.tensors = h->t;
}

/* 24 -> 16 ReLU -> 12 sigmoid -> 11 tanh -> 10 LeakyRelu(0.01) -> 9 LeakyRelu(0.3) -> softmax */
static void mlp(hplan *h)
{
    memset(h, 0, sizeof *h);
    tensor(h, 0, 1, 24, 1, 1);
    dense(h, 24, 16, NPK_ACT_RELU, 0.6, "fc1");
    dense(h, 16, 12, NPK_ACT_SIGMOID, 0.8, "fc2");
    dense(h, 12, 11, NPK_ACT_TANH, 1.0, "fc3");
    dense(h, 11, 10, NPK_ACT_LEAKY_RELU, 1.5, "fc4");
    h->l[3].alpha = 0.01;   /* 1/alpha = 100, a BF16 value: recip_scale */
    dense(h, 10, 9, NPK_ACT_LEAKY_RELU, 1.5, "fc5");
    h->l[4].alpha = 0.3;    /* 1/0.3 is not: the product with BF16(0.3) */
    softmax(h);
    finish(h);
}

/* (2, 9, 8) -> conv 3x3/1 pad 1 -> (3, 9, 8) tanh -> maxpool 3x3/2 pad 1 -> (3, 5, 4) (tanh
 * before it: windows at the edges whose elements are all negative must not see the padding as
 * 0) -> conv 3x3/1 pad 1 -> (4, 5, 4) ReLU -> avgpool 2x2/2 pad 1 (padding not counted) -> (4, 3, 3)
 * -> dense 36 -> 5 -> softmax */
static void cnn(hplan *h)
{
    memset(h, 0, sizeof *h);
    tensor(h, 0, 3, 2, 9, 8);
    win(h, NPK_LAYER_CONV, 3, 3, 3, 1, 1, NPK_ACT_TANH, "conv1");
    for (int m = 0; m < 3; m++)   /* biases of -0.8 or so: most of conv1's outputs negative */
        h->mem[h->n_mem - 1][m] -= 0.8f;
    win(h, NPK_LAYER_MAXPOOL, 0, 3, 3, 2, 1, NPK_ACT_NONE, "pool1");
    win(h, NPK_LAYER_CONV, 4, 3, 3, 1, 1, NPK_ACT_RELU, "conv2");
    win(h, NPK_LAYER_AVGPOOL, 0, 2, 2, 2, 1, NPK_ACT_NONE, "pool2");
    dense(h, 36, 5, NPK_ACT_NONE, 0.7, "fc");
    softmax(h);
    finish(h);
}

/* (1, 8, 8) -> conv 2x2/2 -> (4, 4, 4) GELU -> avgpool 2x2/2 -> (4, 2, 2) -> dense 16 -> 3
 * -> softmax: strides equal to the kernels and rows of a whole number of words, so the conv
 * and the pool are one GEMM each (the rows of cnn go through GEMVs) */
static void cnn_gemm(hplan *h)
{
    memset(h, 0, sizeof *h);
    tensor(h, 0, 3, 1, 8, 8);
    win(h, NPK_LAYER_CONV, 4, 2, 2, 2, 0, NPK_ACT_GELU, "conv");
    win(h, NPK_LAYER_AVGPOOL, 0, 2, 2, 2, 0, NPK_ACT_NONE, "pool");
    dense(h, 16, 3, NPK_ACT_NONE, 0.7, "fc");
    softmax(h);
    finish(h);
}

static void hfree(hplan *h)
{
    for (int i = 0; i < h->n_mem; i++)
        free(h->mem[i]);
}

/* ---- the host model ------------------------------------------------------------------------ */

static float bf(float f)   /* RNE16 (§3.2), as a float */
{
    uint32_t u;
    memcpy(&u, &f, 4);
    u = (u & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FC00000u
                                        : ((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16) << 16;
    memcpy(&f, &u, 4);
    return f;
}

/* ExactSum (§3.3) of terms in binary64: exact when the nonzero terms' exponents span at most
 * 53 - 12 - log2(count) bits (BF16 x INT4 products have 12-bit significands); *inexact is set
 * otherwise, and the test reports it rather than compare a wrong model. */
typedef struct xs {
    double s;
    int lo, hi, n, any;
} xs;
static void xs_add(xs *a, double t)
{
    a->n++;
    if (t != 0.0) {
        int e;
        frexp(t, &e);
        if (!a->any || e < a->lo)
            a->lo = e;
        if (!a->any || e > a->hi)
            a->hi = e;
        a->any = 1;
    }
    a->s += t;
}
static float xs_done(xs *a, int *inexact)
{
    int bits = 0;
    while ((1 << bits) < a->n)
        bits++;
    if (a->any && a->hi - a->lo + 12 + bits > 53)
        *inexact = 1;
    return (float)a->s;
}

static float act(npk_act a, double alpha, float x)
{
    switch (a) {
    case NPK_ACT_LEAKY_RELU: {
        /* r = relu, t = -r + x, then t * alpha (or t / (1/alpha) when that is a BF16 value),
         * plus r */
        float r = x > 0 ? x : 0.0f, t = bf(-r + x), inv = (float)(1.0 / alpha), y;
        if (bf(inv) == inv && (double)inv == 1.0 / alpha)
            y = bf(t / inv);
        else
            y = bf(t * bf((float)alpha));
        return bf(y + r);
    }
    case NPK_ACT_RELU:
        return x > 0 ? x : 0.0f;
    case NPK_ACT_TANH:
        return bf((float)tanh((double)x));
    case NPK_ACT_GELU: {
        /* CVO's tanh form (spec §6.5) in binary64, its stable form: correctly rounded to
         * binary32 for BF16 operands, as the spec states */
        double t = x, u = sqrt(2.0 / 3.14159265358979323846) * (t + 0.044715 * t * t * t);
        return bf((float)(t / (1.0 + exp(-2.0 * u))));
    }
    case NPK_ACT_SIGMOID: {
        float t = bf(x * 0.5f), u = bf((float)tanh((double)t)), v = bf(u * 0.5f);
        return bf(v + 0.5f);
    }
    default:
        return x;
    }
}

/* What the generated program computes, layer by layer (all values BF16). */
static int model(const npk_plan *p, const float *x0, float *y, int *inexact)
{
    size_t most = 0;
    for (size_t i = 0; i < p->n_tensors; i++)
        most = p->tensors[i].elems > most ? p->tensors[i].elems : most;
    float *a = calloc(most, sizeof *a), *b = calloc(most, sizeof *b);
    for (size_t i = 0; i < p->tensors[0].elems; i++)
        a[i] = bf(x0[i]);
    for (size_t li = 0; li < p->n_layers; li++) {
        const npk_layer *l = &p->layers[li];
        const npk_ptensor *tx = &p->tensors[l->in], *ty = &p->tensors[l->out];
        int8_t *q = NULL;
        float *s = NULL;
        if (l->w) {
            size_t cols = l->kind == NPK_LAYER_DENSE ? (size_t)l->n_in
                                                     : (size_t)(l->n_in * l->kh * l->kw);
            q = malloc((size_t)l->n_out * cols);
            s = malloc((size_t)l->n_out * sizeof *s);
            npk_pccx_quant_rows(l->w, (size_t)l->n_out, cols, q, s);
        }
        switch (l->kind) {
        case NPK_LAYER_DENSE:
            for (int o = 0; o < l->n_out; o++) {
                xs acc = {0};
                for (int i = 0; i < l->n_in; i++)
                    xs_add(&acc, (double)a[i] * q[(size_t)o * (size_t)l->n_in + (size_t)i]);
                float f = xs_done(&acc, inexact) * s[o];
                if (l->b)
                    f = bf(l->b[o]) + f;
                b[o] = act(l->act, l->alpha, bf(f));
            }
            break;
        case NPK_LAYER_CONV:
        case NPK_LAYER_MAXPOOL:
        case NPK_LAYER_AVGPOOL: {
            int C = tx->dims[0], H = tx->dims[1], W = tx->dims[2];
            int M = ty->dims[0], OH = ty->dims[1], OW = ty->dims[2];
            for (int m = 0; m < M; m++)
                for (int oy = 0; oy < OH; oy++)
                    for (int ox = 0; ox < OW; ox++) {
                        xs acc = {0};
                        float mx = -FLT_MAX;
                        int cnt = 0;
                        for (int ky = 0; ky < l->kh; ky++)
                            for (int kx = 0; kx < l->kw; kx++) {
                                int iy = oy * l->sh - l->pt + ky, ix = ox * l->sw - l->pl + kx;
                                int in = iy >= 0 && iy < H && ix >= 0 && ix < W;
                                cnt += in || (l->count_include_pad && iy < H + l->pb &&
                                              ix < W + l->pr);
                                if (!in)
                                    continue;
                                if (l->kind != NPK_LAYER_CONV) {
                                    float v = a[((size_t)m * H + iy) * W + ix];
                                    mx = v > mx ? v : mx;
                                    xs_add(&acc, v);
                                    continue;
                                }
                                for (int c = 0; c < C; c++)
                                    xs_add(&acc, (double)a[((size_t)c * H + iy) * W + ix] *
                                                     q[(size_t)m * (size_t)(C * l->kh * l->kw) +
                                                       ((size_t)c * l->kh + ky) * l->kw + kx]);
                            }
                        float f;
                        if (l->kind == NPK_LAYER_CONV) {
                            f = xs_done(&acc, inexact) * s[m];
                            if (l->b)
                                f = bf(l->b[m]) + f;
                            f = act(l->act, l->alpha, bf(f));
                        } else if (l->kind == NPK_LAYER_MAXPOOL)
                            f = mx;
                        else
                            f = bf(xs_done(&acc, inexact) * (float)(1.0 / cnt));
                        b[((size_t)m * OH + oy) * OW + ox] = f;
                    }
            break;
        }
        case NPK_LAYER_SOFTMAX:
            for (size_t r0 = 0; r0 < tx->elems; r0 += (size_t)l->row) {
                float mx = -FLT_MAX;
                for (int i = 0; i < l->row; i++)
                    mx = a[r0 + i] > mx ? a[r0 + i] : mx;
                xs acc = {0};
                for (int i = 0; i < l->row; i++) {
                    float t = a[r0 + i] - mx;
                    b[r0 + i] = bf((float)exp((double)t));
                    xs_add(&acc, b[r0 + i]);
                }
                float sum = bf(xs_done(&acc, inexact));
                for (int i = 0; i < l->row; i++)
                    b[r0 + i] = bf(b[r0 + i] / sum);
            }
            break;
        default:
            for (size_t i = 0; i < tx->elems; i++)
                b[i] = act(l->act, l->alpha, a[i]);
        }
        free(q);
        free(s);
        float *t = a;
        a = b;
        b = t;
    }
    memcpy(y, a, p->tensors[p->n_tensors - 1].elems * sizeof *y);
    free(a);
    free(b);
    return 0;
}

/* The plan with the dequantised INT4 weights (float copies kept in h2). */
static void dequantised(const hplan *h, hplan *h2)
{
    *h2 = *h;
    h2->n_mem = 0;
    finish(h2);
    for (size_t li = 0; li < h->p.n_layers; li++) {
        npk_layer *l = &h2->l[li];
        if (!l->w)
            continue;
        size_t cols = l->kind == NPK_LAYER_DENSE ? (size_t)l->n_in
                                                 : (size_t)(l->n_in * l->kh * l->kw);
        int8_t *q = malloc((size_t)l->n_out * cols);
        float *s = malloc((size_t)l->n_out * sizeof *s), *w = malloc((size_t)l->n_out * cols * 4);
        npk_pccx_quant_rows(l->w, (size_t)l->n_out, cols, q, s);
        for (size_t i = 0; i < (size_t)l->n_out * cols; i++)
            w[i] = (float)q[i] * s[i / cols];
        l->w = w;
        h2->mem[h2->n_mem++] = w;
        free(q);
        free(s);
    }
}

/* ---- checks -------------------------------------------------------------------------------- */

static void check_plan(const char *what, hplan *h, int inputs)
{
    const npk_lower_target *t = npk_lower_find("pccx");
    NPK_CHECK(t != NULL);
    if (!t)
        return;
    npk_plan *p = &h->p;
    size_t nin = p->tensors[0].elems, nout = p->tensors[p->n_tensors - 1].elems;
    char err[1024] = "";
    void *s = NULL;
    int rc = t->open(p, "", &s, err, sizeof err);
    NPK_REPORT(rc == 0, "%s: open: %s\n", what, err);
    if (rc)
        return;
    hplan hq;
    dequantised(h, &hq);
    float *x = malloc(nin * sizeof *x), *y = malloc(nout * sizeof *y), *ym = malloc(nout * 4);
    double *xd = malloc(nin * sizeof *xd), *yd = malloc(nout * sizeof *yd);
    double worst = 0.0;
    size_t same = 0;
    for (int k = 0; k < inputs; k++) {
        for (size_t i = 0; i < nin; i++)
            x[i] = (float)uni();
        npk_lower_stats st;
        rc = t->infer(s, x, y, &st, err, sizeof err);
        NPK_REPORT(rc == 0, "%s: infer: %s\n", what, err);
        if (rc)
            break;
        NPK_REPORT(st.cycles > 0 && st.instructions > 0 && st.macs > 0,
                   "%s: stats %llu cycles %llu insns %llu macs\n", what,
                   (unsigned long long)st.cycles, (unsigned long long)st.instructions,
                   (unsigned long long)st.macs);
        int inexact = 0;
        model(p, x, ym, &inexact);
        NPK_REPORT(!inexact, "%s: input %d: the host model's binary64 sums are not exact\n",
                   what, k);
        for (size_t i = 0; i < nout; i++)
            NPK_REPORT(memcmp(&y[i], &ym[i], 4) == 0, "%s: input %d output %zu: sim %a, model %a\n",
                       what, k, i, (double)y[i], (double)ym[i]);
        /* (2) against float64 with the dequantised weights, the same BF16 input */
        for (size_t i = 0; i < nin; i++)
            xd[i] = bf(x[i]);
        npk_plan_run_f64(&hq.p, xd, yd, 0);
        double big = 0.0;
        for (size_t i = 0; i < nout; i++)
            big = fabs(yd[i]) > big ? fabs(yd[i]) : big;
        for (size_t i = 0; i < nout; i++) {
            double d = fabs(y[i] - yd[i]), tol = 0x1p-7;
            worst = d > worst ? d : worst;
            NPK_REPORT(d <= tol, "%s: input %d output %zu: %.9g, float64 %.9g (tolerance %g)\n",
                       what, k, i, (double)y[i], yd[i], tol);
        }
        size_t a = 0, ar = 0;
        npk_plan_run_f64(p, xd, yd, 0);
        for (size_t i = 1; i < nout; i++) {
            a = y[i] > y[a] ? i : a;
            ar = yd[i] > yd[ar] ? i : ar;
        }
        same += a == ar;
    }
    printf("%s: %d inputs, sim == host model; largest difference from float64 (dequantised "
           "weights) %.3g; argmax equal to the float weights' %zu times\n", what, inputs, worst,
           same);
    free(x), free(y), free(ym), free(xd), free(yd);
    hfree(&hq);
    t->close(s);
}

/* One dense layer without activation against the float weights, bound (3). */
static void check_int4_bound(void)
{
    hplan h;
    memset(&h, 0, sizeof h);
    tensor(&h, 0, 1, 40, 1, 1);
    dense(&h, 40, 7, NPK_ACT_NONE, 0.9, "fc");
    finish(&h);
    const npk_lower_target *t = npk_lower_find("pccx");
    char err[512];
    void *s = NULL;
    NPK_CHECK(t->open(&h.p, "", &s, err, sizeof err) == 0);
    int8_t q[280];
    float sc[7], x[40], y[7];
    double xd[40], yd[7];
    npk_pccx_quant_rows(h.l[0].w, 7, 40, q, sc);
    for (int k = 0; k < 20 && s; k++) {
        for (int i = 0; i < 40; i++)
            xd[i] = x[i] = (float)uni();
        NPK_CHECK(t->infer(s, x, y, NULL, err, sizeof err) == 0);
        npk_plan_run_f64(&h.p, xd, yd, 0);
        for (int o = 0; o < 7; o++) {
            double ax = 0.0;
            for (int i = 0; i < 40; i++)
                ax += fabs(xd[i]);
            double bound = ax * sc[o] / 2 + 0x1p-8 * fabs(yd[o]) + 0x1p-8 + ax * 0x1p-9 * 7 * sc[o];
            NPK_REPORT(fabs(y[o] - yd[o]) <= bound, "int4 bound: output %d: %.9g vs %.9g, "
                       "bound %.3g\n", o, (double)y[o], yd[o], bound);
        }
    }
    if (s)
        t->close(s);
    hfree(&h);
}

/* compile writes a file that npk_load_path runs to the same outputs as infer. */
static void check_file(hplan *h)
{
    const npk_lower_target *t = npk_lower_find("pccx");
    char path[] = "/tmp/npk_pccx_lowerXXXXXX", err[512];
    int fd = mkstemp(path);
    NPK_CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    char *note = NULL;
    size_t note_len = 0;
    FILE *nf = open_memstream(&note, &note_len);
    int rc = t->compile(&h->p, "", path, nf, err, sizeof err);
    fclose(nf);
    NPK_REPORT(rc == 0, "compile: %s\n", err);
    NPK_CHECK_CONTAINS(note, "input: 144 BF16 values at host byte 0x0");
    NPK_CHECK_CONTAINS(note, "npukit run -t pccx");
    free(note);
    size_t nin = h->p.tensors[0].elems, nout = h->p.tensors[h->p.n_tensors - 1].elems;
    float x[144], y[5];
    uint16_t xb[144], yb[5];
    for (size_t i = 0; i < nin; i++) {
        x[i] = (float)uni();
        float f = bf(x[i]);
        uint32_t u;
        memcpy(&u, &f, 4);
        xb[i] = (uint16_t)(u >> 16);   /* (2, 9, 8): the host layout pads rows of 16 to 16 */
    }
    void *s = NULL;
    NPK_CHECK(t->open(&h->p, "", &s, err, sizeof err) == 0);
    NPK_CHECK(s && t->infer(s, x, y, NULL, err, sizeof err) == 0);
    npk_machine *m = NULL;
    NPK_CHECK(npk_create(&m, "pccx", NULL, err, sizeof err) == NPK_OK);
    NPK_CHECK(npk_load_file(m, path, stderr) == NPK_OK);
    /* the input as the program wants it: rows of W x C = 16 (a whole number of words) */
    uint16_t hw[144];
    for (int c = 0; c < 2; c++)
        for (int yy = 0; yy < 9; yy++)
            for (int xx = 0; xx < 8; xx++)
                hw[yy * 16 + xx * 2 + c] = xb[(c * 9 + yy) * 8 + xx];
    NPK_CHECK(npk_mem_write(m, "host", 0, hw, sizeof hw) == NPK_OK);
    npk_stop stop;
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
    /* the output is the last thing in host DDR the note names; find it from the file text */
    FILE *f = fopen(path, "r");
    char line[256];
    unsigned out_at = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "; input: BF16 at host byte 0x%*x; output: BF16 at host byte 0x%x",
                   &out_at) == 1)
            break;
    if (f)
        fclose(f);
    NPK_CHECK(out_at != 0);
    NPK_CHECK(npk_mem_read(m, "host", out_at, yb, sizeof yb) == NPK_OK);
    for (size_t i = 0; i < nout; i++) {
        uint32_t u = (uint32_t)yb[i] << 16;
        float v;
        memcpy(&v, &u, 4);
        NPK_REPORT(memcmp(&v, &y[i], 4) == 0, "file run: output %zu: %a, infer %a\n", i,
                   (double)v, (double)y[i]);
    }
    npk_destroy(m);
    if (s)
        t->close(s);
    unlink(path);
}

/* The program text compile writes for h contains `what` (count times at least). */
static int file_count(hplan *h, const char *what)
{
    const npk_lower_target *t = npk_lower_find("pccx");
    char path[] = "/tmp/npk_pccx_lowerXXXXXX", err[512], line[4096];
    int fd = mkstemp(path), n = 0;
    if (fd < 0)
        return -1;
    close(fd);
    if (t->compile(&h->p, "", path, NULL, err, sizeof err) == 0) {
        FILE *f = fopen(path, "r");
        while (f && fgets(line, sizeof line, f))
            n += strstr(line, what) != NULL;
        if (f)
            fclose(f);
    }
    unlink(path);
    return n;
}

static void check_errors(void)
{
    const npk_lower_target *t = npk_lower_find("pccx");
    char err[512] = "";
    void *s = NULL;
    hplan h;
    memset(&h, 0, sizeof h);
    tensor(&h, 0, 3, 2, 3, 4);
    win(&h, NPK_LAYER_CONV, 2, 1, 1, 1, 0, NPK_ACT_RELU, "conv");
    npk_layer *sm = layer(&h, NPK_LAYER_SOFTMAX, NPK_ACT_NONE, "sm");
    sm->row = 4;
    tensor(&h, sm->out, 3, 2, 3, 4);
    finish(&h);
    NPK_CHECK(t->open(&h.p, "", &s, err, sizeof err) != 0 && s == NULL);
    NPK_CHECK_CONTAINS(err, "layer 1 (node 1 'sm', Softmax): softmax over a feature map is not "
                            "lowered");
    NPK_CHECK(t->compile(&h.p, "fast", "/nonexistent/x", NULL, err, sizeof err) != 0);
    NPK_CHECK_CONTAINS(err, "pccx takes no settings (got 'fast')");
    hfree(&h);
    memset(&h, 0, sizeof h);
    tensor(&h, 0, 1, 70000, 1, 1);
    dense(&h, 70000, 2, NPK_ACT_NONE, 1.0, "wide");
    finish(&h);
    NPK_CHECK(t->open(&h.p, "", &s, err, sizeof err) != 0);
    NPK_CHECK_CONTAINS(err, "layer 0 (node 0 'wide', Gemm): a dense layer of 70000 inputs");
    hfree(&h);
    /* too large for the CVO-reachable L2: the input (1, 250, 250) takes 250 rows of 256 = 8,000
     * words, the conv's output (2, 250, 250) 250 rows of 504 = 15,750, each after a word for its
     * scalar slot: 1 + 8,000 + 1 + 15,750 = 23,752 > 16,384 */
    memset(&h, 0, sizeof h);
    tensor(&h, 0, 3, 1, 250, 250);
    win(&h, NPK_LAYER_CONV, 2, 1, 1, 1, 0, NPK_ACT_NONE, "big");
    finish(&h);
    NPK_CHECK(t->open(&h.p, "", &s, err, sizeof err) != 0);
    NPK_CHECK_CONTAINS(err, "layer 0 (node 0 'big', Conv): the L2 layout needs 23752 words with "
                            "the output (126000 elements); the part of L2 that CVO reaches is "
                            "16384 words");
    hfree(&h);
}

int main(void)
{
    hplan h;
    mlp(&h);
    check_plan("mlp", &h, 12);
    hfree(&h);
    cnn(&h);
    check_plan("cnn", &h, 6);
    check_file(&h);
    /* cnn: every row a GEMV — conv1's 9, pool1's 5 gathers (stride 2 < kernel 3), conv2's 5,
     * pool2's 3 (its output rows of 3 x 4 = 12 elements are padded to 16, so they are not
     * packed), and the dense layer */
    NPK_CHECK_EQ_U64(file_count(&h, "    gemv "), 9 + 5 + 5 + 3 + 1);
    NPK_CHECK_EQ_U64(file_count(&h, "    gemm "), 0);
    hfree(&h);
    cnn_gemm(&h);
    check_plan("cnn_gemm", &h, 6);
    /* one GEMM for the conv's 4 rows, one for the pool's 2; the dense a GEMV */
    NPK_CHECK_EQ_U64(file_count(&h, "    gemm "), 2);
    NPK_CHECK_EQ_U64(file_count(&h, "    gemv "), 1);
    hfree(&h);
    check_int4_bound();
    check_errors();
    return npk_test_done();
}
