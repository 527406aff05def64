/* ctest model_lower_opennpu: the opennpu lowering (src/targets/opennpu/lower.c) on plans built
 * by hand (docs/models.md, "Lowering to opennpu"):
 *   - an MLP (37 -> 19 ReLU -> 11 LeakyReLU(0.1) -> 10, Softmax), one with Tanh, Sigmoid and
 *     Gelu merged into its layers, a LeNet-sized CNN and two small CNNs (padded
 *     conv, MaxPool, a Tanh LUT layer, a conv with stride 2 and with stride 4, LeakyReLU,
 *     AveragePool with and without padding, dense, Softmax; a CNN ending in a conv) at K = 8
 *     and K = 4, on seeded random inputs; and 150 random chains of those layers with random
 *     shapes, strides, pads and activations; and the ONNX models named on the command line
 *     (npk_plan_build, npk_plan_calibrate on 32 pixel-like inputs, npk_plan_run_f64);
 *   - every output of the simulator run EQUALS the host model of the integer program
 *     (npk_lower_opennpu_reference) bit for bit;
 *   - and is within the tolerance of docs/models.md of a float64 run of the float weights
 *     (computed here, independently of the lowering): max |y - y64| <= 0.05 * the calibrated
 *     max |y| for outputs before Softmax, <= 0.04 absolute for probabilities;
 *   - layers the lowering cannot take fail with a message naming the layer, its node and
 *     operator; compile() writes the program, the image and a note with the run command.
 * Calibration (the plan.h rules) is done here on 16 random inputs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/lower.h"
#include "model/model.h"
#include "targets/opennpu/lower.h"
#include "test.h"

/* NPK_REPORT with the place and a newline */
#define CHECK(c, ...)                                                                          \
    do {                                                                                       \
        int ok_ = (c);                                                                         \
        NPK_REPORT(ok_, __VA_ARGS__);                                                          \
        if (!ok_)                                                                              \
            fprintf(stderr, " (%s:%d)\n", __FILE__, __LINE__);                                 \
    } while (0)

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double urand(void) /* -1 .. 1 */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / (double)(1ull << 52) - 1.0;
}

/* ---- building plans -------------------------------------------------------------------------- */

enum { MAXL = 12 };
typedef struct tplan {
    npk_plan p;
    npk_layer l[MAXL];
    npk_ptensor t[MAXL + 1];
    float *w[MAXL], *b[MAXL];
} tplan;

static void tensor(tplan *tp, int i, int rank, int d0, int d1, int d2)
{
    npk_ptensor *t = &tp->t[i];
    t->rank = rank, t->dims[0] = d0, t->dims[1] = d1, t->dims[2] = d2;
    t->elems = rank == 1 ? (size_t)d0 : (size_t)d0 * (size_t)d1 * (size_t)d2;
}

static npk_layer *layer(tplan *tp, npk_layer_kind k, const char *op, npk_act act)
{
    size_t i = tp->p.n_layers++;
    npk_layer *l = &tp->l[i];
    memset(l, 0, sizeof *l);
    l->kind = k, l->node = (int)(10 + i), l->name = "n", l->op = op, l->act = act;
    l->in = (int)i, l->out = (int)i + 1, l->sh = l->sw = 1, l->kh = l->kw = 1;
    tp->p.n_tensors = i + 2;
    return l;
}

/* Random float weights of a Dense (n_out x n_in) or Conv (M x C x kh x kw) layer. */
static void weights(tplan *tp, npk_layer *l)
{
    size_t i = (size_t)(l - tp->l), per = (size_t)l->n_in * (size_t)l->kh * (size_t)l->kw;
    size_t nw = per * (size_t)l->n_out;
    tp->w[i] = malloc(nw * sizeof(float));
    tp->b[i] = malloc((size_t)l->n_out * sizeof(float));
    for (size_t k = 0; k < nw; k++)
        tp->w[i][k] = (float)(urand() * 1.5 / sqrt((double)per));
    for (int o = 0; o < l->n_out; o++)
        tp->b[i][o] = (float)(urand() * 0.3);
    l->w = tp->w[i], l->b = tp->b[i];
}

static void tplan_init(tplan *tp)
{
    memset(tp, 0, sizeof *tp);
    rng = 0x9E3779B97F4A7C15ull; /* the same weights and inputs at every K */
    tp->p.layers = tp->l, tp->p.tensors = tp->t;
}

static void tplan_free(tplan *tp)
{
    for (int i = 0; i < MAXL; i++) {
        free(tp->w[i]), free(tp->b[i]);
        free(tp->l[i].wq), free(tp->l[i].wscale), free(tp->l[i].bq);
    }
}

/* ---- the float64 reference (the float weights, no quantisation) ------------------------------ */

static double act64(npk_act a, double alpha, double v)
{
    switch (a) {
    case NPK_ACT_RELU: return v > 0 ? v : 0;
    case NPK_ACT_LEAKY_RELU: return v >= 0 ? v : alpha * v;
    case NPK_ACT_TANH: return tanh(v);
    case NPK_ACT_SIGMOID: return 1 / (1 + exp(-v));
    case NPK_ACT_GELU: return 0.5 * v * (1 + erf(v / sqrt(2.0)));
    default: return v;
    }
}

static void dims(const npk_ptensor *t, int *C, int *H, int *W)
{
    if (t->rank == 3)
        *C = t->dims[0], *H = t->dims[1], *W = t->dims[2];
    else
        *C = 1, *H = 1, *W = t->dims[0];
}

/* Run the plan in float64; every tensor into ts[i]; raise max_abs when observe. */
static void run64(tplan *tp, const float *x, double **ts, int observe)
{
    npk_plan *p = &tp->p;
    for (size_t k = 0; k < p->tensors[0].elems; k++)
        ts[0][k] = x[k];
    for (size_t i = 0; i < p->n_layers; i++) {
        const npk_layer *l = &p->layers[i];
        const double *in = ts[i];
        double *out = ts[i + 1];
        int C, H, W, oC, oH, oW;
        dims(&p->tensors[i], &C, &H, &W);
        dims(&p->tensors[i + 1], &oC, &oH, &oW);
        size_t ne = p->tensors[i + 1].elems, per = (size_t)oH * (size_t)oW;
        for (size_t k = 0; k < ne; k++) {
            double v = 0;
            int o = (int)(k / per), oy = (int)(k % per) / oW, ox = (int)(k % per) % oW;
            switch (l->kind) {
            case NPK_LAYER_DENSE:
                v = l->b ? l->b[k] : 0;
                for (int j = 0; j < l->n_in; j++)
                    v += (double)l->w[k * (size_t)l->n_in + (size_t)j] * in[j];
                v = act64(l->act, l->alpha, v);
                break;
            case NPK_LAYER_CONV:
            case NPK_LAYER_MAXPOOL:
            case NPK_LAYER_AVGPOOL: {
                double mx = -INFINITY, sum = l->kind == NPK_LAYER_CONV && l->b ? l->b[o] : 0;
                int cnt = 0;
                for (int c = 0; c < (l->kind == NPK_LAYER_CONV ? C : 1); c++)
                    for (int ky = 0; ky < l->kh; ky++)
                        for (int kx = 0; kx < l->kw; kx++) {
                            int yy = oy * l->sh - l->pt + ky, xx = ox * l->sw - l->pl + kx;
                            int inside = yy >= 0 && yy < H && xx >= 0 && xx < W;
                            int ch = l->kind == NPK_LAYER_CONV ? c : o;
                            double xv = inside ? in[((size_t)ch * H + yy) * W + xx] : 0;
                            if (l->kind == NPK_LAYER_CONV)
                                sum += (double)l->w[(((size_t)o * C + c) * l->kh + ky) * l->kw +
                                                    kx] * xv;
                            else if (inside || l->count_include_pad)
                                sum += xv, cnt++, mx = inside && xv > mx ? xv : mx;
                        }
                v = l->kind == NPK_LAYER_CONV      ? act64(l->act, l->alpha, sum)
                    : l->kind == NPK_LAYER_MAXPOOL ? mx
                                                   : sum / cnt;
                break;
            }
            case NPK_LAYER_ACT: v = act64(l->act, l->alpha, in[k]); break;
            case NPK_LAYER_SOFTMAX: {
                size_t r0 = k / (size_t)l->row * (size_t)l->row;
                double m = in[r0], s = 0;
                for (int j = 0; j < l->row; j++)
                    m = in[r0 + j] > m ? in[r0 + j] : m;
                for (int j = 0; j < l->row; j++)
                    s += exp(in[r0 + j] - m);
                v = exp(in[k] - m) / s;
                break;
            }
            default: /* the sequence kinds: this test's chains have none */
                v = NAN;
            }
            out[k] = v;
            if (observe && fabs(v) > p->tensors[i + 1].max_abs)
                p->tensors[i + 1].max_abs = fabs(v);
        }
    }
    if (observe)
        for (size_t k = 0; k < p->tensors[0].elems; k++)
            if (fabs(ts[0][k]) > p->tensors[0].max_abs)
                p->tensors[0].max_abs = fabs(ts[0][k]);
}

static double **alloc_ts(const npk_plan *p)
{
    double **ts = calloc(p->n_tensors, sizeof *ts);
    for (size_t i = 0; i < p->n_tensors; i++)
        ts[i] = calloc(p->tensors[i].elems, sizeof(double));
    return ts;
}

static void free_ts(const npk_plan *p, double **ts)
{
    for (size_t i = 0; i < p->n_tensors; i++)
        free(ts[i]);
    free(ts);
}

static void random_input(const npk_plan *p, float *x)
{
    for (size_t k = 0; k < p->tensors[0].elems; k++)
        x[k] = (float)(urand() * 2.0);
}

/* Calibrate as plan.h says: scales from max |value| over 16 inputs (none: every scale 1/127),
 * per-channel weights. */
static void calibrate_n(tplan *tp, int inputs)
{
    npk_plan *p = &tp->p;
    double **ts = alloc_ts(p);
    float *x = malloc(p->tensors[0].elems * sizeof(float));
    for (int n = 0; n < inputs; n++) {
        random_input(p, x);
        run64(tp, x, ts, 1);
    }
    for (size_t i = 0; i < p->n_tensors; i++)
        p->tensors[i].scale = p->tensors[i].max_abs > 0 ? p->tensors[i].max_abs / 127 : 1.0 / 127;
    for (size_t i = 0; i < p->n_layers; i++) {
        npk_layer *l = &p->layers[i];
        if (l->kind != NPK_LAYER_DENSE && l->kind != NPK_LAYER_CONV)
            continue;
        size_t per = (size_t)l->n_in * (size_t)l->kh * (size_t)l->kw;
        l->wq = malloc(per * (size_t)l->n_out);
        l->wscale = malloc((size_t)l->n_out * sizeof(double));
        l->bq = l->b ? malloc((size_t)l->n_out * sizeof(int32_t)) : NULL;
        for (int o = 0; o < l->n_out; o++) {
            double mx = 0;
            for (size_t k = 0; k < per; k++)
                mx = fabs(l->w[o * per + k]) > mx ? fabs(l->w[o * per + k]) : mx;
            l->wscale[o] = mx > 0 ? mx / 127 : 1;
            for (size_t k = 0; k < per; k++)
                l->wq[o * per + k] = (int8_t)lround(l->w[o * per + k] / l->wscale[o]);
            if (l->bq)
                l->bq[o] = (int32_t)lround(l->b[o] / (p->tensors[i].scale * l->wscale[o]));
        }
    }
    p->calibrated = 1;
    free(x);
    free_ts(p, ts);
}

static void calibrate(tplan *tp)
{
    calibrate_n(tp, 16);
}

/* ---- the checks ------------------------------------------------------------------------------ */

/* Pixel-like inputs in 0 .. 1 (for the ONNX models). */
static void pixel_input(const npk_plan *p, float *x)
{
    for (size_t k = 0; k < p->tensors[0].elems; k++)
        x[k] = (float)((urand() + 1) / 2);
}

/* Run `runs` random inputs through the lowering (settings) and compare; tol < 0: only the
 * exact comparison, quietly (the sweep's random models may be degenerate). tp: a hand-built
 * plan (inputs -2 .. 2, the float64 run of this file); NULL: p is from an ONNX model (inputs
 * 0 .. 1, npk_plan_run_f64). */
static void check_plan_of(tplan *tp, npk_plan *p, const char *what, const char *settings,
                          int runs, double tol)
{
    const npk_lower_target *t = npk_lower_find("opennpu");
    CHECK(t != NULL, "opennpu is not in the table of lowerings");
    if (!t)
        return;
    char err[512] = "";
    void *s = NULL;
    int rc = t->open(p, settings, &s, err, sizeof err);
    CHECK(rc == 0, "%s (%s): open: %s", what, settings, err);
    if (rc)
        return;
    size_t ni = p->tensors[0].elems, no = p->tensors[p->n_tensors - 1].elems;
    float *x = malloc(ni * sizeof(float)), *y = malloc(no * sizeof(float)),
          *yr = malloc(no * sizeof(float));
    double **ts = alloc_ts(p), worst = 0, *xd = malloc(ni * sizeof(double));
    int agree = 0, softmax = p->layers[p->n_layers - 1].kind == NPK_LAYER_SOFTMAX;
    npk_lower_stats st = {0};
    for (int r = 0; r < runs; r++) {
        if (tp)
            random_input(p, x);
        else
            pixel_input(p, x);
        rc = t->infer(s, x, y, &st, err, sizeof err);
        CHECK(rc == 0, "%s: infer: %s", what, err);
        rc |= npk_lower_opennpu_reference(p, x, yr, err, sizeof err);
        CHECK(rc == 0, "%s: reference: %s", what, err);
        if (rc)
            break;
        CHECK(!memcmp(y, yr, no * sizeof(float)),
              "%s (%s) input %d: the simulator differs from the host integer model (y[0] %.9g "
              "vs %.9g)", what, settings, r, (double)y[0], (double)yr[0]);
        const double *y64 = ts[p->n_tensors - 1];
        if (tp) {
            run64(tp, x, ts, 0);
        } else {
            for (size_t k = 0; k < ni; k++)
                xd[k] = x[k];
            CHECK(npk_plan_run_f64(p, xd, ts[p->n_tensors - 1], 0) == 0, "%s: float64 run", what);
        }
        double err64 = 0;
        size_t a1 = 0, a2 = 0;
        for (size_t k = 0; k < no; k++) {
            err64 = fabs(y[k] - y64[k]) > err64 ? fabs(y[k] - y64[k]) : err64;
            a1 = y[k] > y[a1] ? k : a1;
            a2 = y64[k] > y64[a2] ? k : a2;
        }
        double full = p->tensors[p->n_tensors - 1].max_abs;
        double rel = softmax ? err64 : err64 / (full > 0 ? full : 1);
        worst = rel > worst ? rel : worst;
        agree += a1 == a2;
    }
    if (tol < 0) {
        free_ts(p, ts);
        free(x), free(y), free(yr), free(xd);
        t->close(s);
        return;
    }
    CHECK(worst <= tol, "%s (%s): error vs float64 %.4f > %.4f", what, settings, worst, tol);
    CHECK(st.cycles > 0 && st.instructions > 0 && st.macs > 0 && st.utilisation > 0 &&
              st.utilisation <= 1,
          "%s: stats cycles %llu insns %llu macs %llu util %g", what,
          (unsigned long long)st.cycles, (unsigned long long)st.instructions,
          (unsigned long long)st.macs, st.utilisation);
    printf("%-7s %-4s: %d inputs equal to the integer host model; worst error vs float64 %.4f "
           "(%s, bound %.2f), argmax agrees %d/%d; %llu cycles, %llu instructions, %llu MACs, "
           "MMA utilisation %.3f\n",
           what, settings[0] ? settings : "K=8", runs, worst,
           softmax ? "absolute, probabilities" : "relative to the calibrated max |y|", tol, agree,
           runs,
           (unsigned long long)st.cycles, (unsigned long long)st.instructions,
           (unsigned long long)st.macs, st.utilisation);
    free_ts(p, ts);
    free(x), free(y), free(yr), free(xd);
    t->close(s);
}

static void check_plan(tplan *tp, const char *what, const char *settings, int runs, double tol)
{
    check_plan_of(tp, &tp->p, what, settings, runs, tol);
}

/* An ONNX model through npk_plan_build and npk_plan_calibrate (32 pixel-like inputs); an int8
 * model that carries its own scales (mlp_qdq.onnx, lenet_qlinear.onnx) without calibration. */
static void check_onnx(const char *path)
{
    char err[512] = "";
    npk_model *m = NULL;
    npk_plan *p = NULL;
    int rc = npk_model_read_file(path, &m, err, sizeof err);
    rc = rc ? rc : npk_plan_build(m, &p, err, sizeof err);
    CHECK(rc == 0, "%s: %s", path, err);
    if (rc == 0) {
        enum { CAL = 32 };
        size_t ni = p->tensors[0].elems;
        float *cal = malloc(CAL * ni * sizeof(float));
        for (int k = 0; k < CAL; k++)
            pixel_input(p, cal + k * ni);
        rc = p->qmodel ? 0 : npk_plan_calibrate(p, cal, CAL, err, sizeof err);
        CHECK(rc == 0, "%s: calibrate: %s", path, err);
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        if (rc == 0) {
            check_plan_of(NULL, p, base, "", 8, 0.05);
            check_plan_of(NULL, p, base, "K=4", 2, 0.05);
        }
        free(cal);
    }
    npk_plan_free(p);
    npk_model_free(m);
}

static void build_mlp(tplan *tp)
{
    tplan_init(tp);
    tensor(tp, 0, 1, 37, 0, 0);
    npk_layer *l = layer(tp, NPK_LAYER_DENSE, "Gemm", NPK_ACT_RELU);
    l->n_in = 37, l->n_out = 19;
    weights(tp, l);
    tensor(tp, 1, 1, 19, 0, 0);
    l = layer(tp, NPK_LAYER_DENSE, "Gemm", NPK_ACT_LEAKY_RELU);
    l->n_in = 19, l->n_out = 11, l->alpha = 0.1;
    weights(tp, l);
    tensor(tp, 2, 1, 11, 0, 0);
    l = layer(tp, NPK_LAYER_DENSE, "MatMul", NPK_ACT_NONE);
    l->n_in = 11, l->n_out = 10;
    weights(tp, l);
    tensor(tp, 3, 1, 10, 0, 0);
    l = layer(tp, NPK_LAYER_SOFTMAX, "Softmax", NPK_ACT_NONE);
    l->row = 10;
    tensor(tp, 4, 1, 10, 0, 0);
}

/* 37 -> 23 Tanh -> 17 Sigmoid -> 12 Gelu -> 10, Softmax: activations done by LUTs after the
 * requantisation to a pre-activation scale */
static void build_mlp_lut(tplan *tp)
{
    static const int n[5] = {37, 23, 17, 12, 10};
    static const npk_act act[4] = {NPK_ACT_TANH, NPK_ACT_SIGMOID, NPK_ACT_GELU, NPK_ACT_NONE};
    tplan_init(tp);
    tensor(tp, 0, 1, n[0], 0, 0);
    for (int k = 0; k < 4; k++) {
        npk_layer *l = layer(tp, NPK_LAYER_DENSE, "Gemm", act[k]);
        l->n_in = n[k], l->n_out = n[k + 1];
        weights(tp, l);
        tensor(tp, k + 1, 1, n[k + 1], 0, 0);
    }
    layer(tp, NPK_LAYER_SOFTMAX, "Softmax", NPK_ACT_NONE)->row = 10;
    tensor(tp, 5, 1, 10, 0, 0);
}

/* A Conv (with random weights) or pooling layer: channels, window, strides, pads, and its
 * output tensor (c, h, w). */
static npk_layer *win(tplan *tp, npk_layer_kind k, const char *op, npk_act act, int n_in,
                      int n_out, const int w8[8], int c, int h, int w)
{
    npk_layer *l = layer(tp, k, op, act);
    l->n_in = n_in, l->n_out = n_out;
    l->kh = w8[0], l->kw = w8[1], l->sh = w8[2], l->sw = w8[3];
    l->pt = w8[4], l->pl = w8[5], l->pb = w8[6], l->pr = w8[7];
    if (k == NPK_LAYER_CONV)
        weights(tp, l);
    tensor(tp, (int)tp->p.n_layers, 3, c, h, w);
    return l;
}

/* (2, 9, 11) -> Conv 3x3 pad 1 ReLU (3, 9, 11) -> MaxPool 2x2/2 (3, 4, 5) -> Tanh ->
 * Conv 2x3 stride (1, 2) pad (0, 1, 0, 1) LeakyReLU(0.2) (4, 3, 3) -> AvgPool 2x2/1 (4, 2, 2)
 * -> Dense 16 -> 6 -> Softmax */
static void build_cnn(tplan *tp)
{
    static const int c1[8] = {3, 3, 1, 1, 1, 1, 1, 1}, p1[8] = {2, 2, 2, 2, 0, 0, 0, 0},
                     c2[8] = {2, 3, 1, 2, 0, 1, 0, 1}, p2[8] = {2, 2, 1, 1, 0, 0, 0, 0};
    tplan_init(tp);
    tensor(tp, 0, 3, 2, 9, 11);
    win(tp, NPK_LAYER_CONV, "Conv", NPK_ACT_RELU, 2, 3, c1, 3, 9, 11);
    win(tp, NPK_LAYER_MAXPOOL, "MaxPool", NPK_ACT_NONE, 3, 3, p1, 3, 4, 5);
    layer(tp, NPK_LAYER_ACT, "Tanh", NPK_ACT_TANH);
    tensor(tp, 3, 3, 3, 4, 5);
    win(tp, NPK_LAYER_CONV, "Conv", NPK_ACT_LEAKY_RELU, 3, 4, c2, 4, 3, 3)->alpha = 0.2;
    win(tp, NPK_LAYER_AVGPOOL, "AveragePool", NPK_ACT_NONE, 4, 4, p2, 4, 2, 2);
    npk_layer *l = layer(tp, NPK_LAYER_DENSE, "Gemm", NPK_ACT_NONE);
    l->n_in = 16, l->n_out = 6;
    weights(tp, l);
    tensor(tp, 6, 1, 6, 0, 0);
    layer(tp, NPK_LAYER_SOFTMAX, "Softmax", NPK_ACT_NONE)->row = 6;
    tensor(tp, 7, 1, 6, 0, 0);
}

/* (1, 6, 21) -> Conv 3x5 stride (2, 4) ReLU (2, 2, 5) -> AvgPool 2x2/1 pad 1 counting the pad
 * (2, 3, 6) -> Conv 1x1 without bias (3, 3, 6), the output: accumulators dequantised on the
 * host */
static void build_cnn2(tplan *tp)
{
    static const int c1[8] = {3, 5, 2, 4, 0, 0, 0, 0}, p1[8] = {2, 2, 1, 1, 1, 1, 1, 1},
                     c2[8] = {1, 1, 1, 1, 0, 0, 0, 0};
    tplan_init(tp);
    tensor(tp, 0, 3, 1, 6, 21);
    win(tp, NPK_LAYER_CONV, "Conv", NPK_ACT_RELU, 1, 2, c1, 2, 2, 5);
    win(tp, NPK_LAYER_AVGPOOL, "AveragePool", NPK_ACT_NONE, 2, 2, p1, 2, 3, 6)
        ->count_include_pad = 1;
    npk_layer *l = win(tp, NPK_LAYER_CONV, "Conv", NPK_ACT_NONE, 2, 3, c2, 3, 3, 6);
    l->b = NULL; /* no bias: bq stays NULL */
}

/* LeNet-sized: (1, 28, 28) -> Conv 6 5x5 pad 2 ReLU -> MaxPool 2x2/2 (6, 14, 14) -> Conv 16 5x5
 * ReLU (16, 10, 10) -> MaxPool 2x2/2 (16, 5, 5) -> Dense 400 -> 120 ReLU -> 84 ReLU -> 10 ->
 * Softmax: the sizes of the Fashion-MNIST CNN, for the cost of a real model */
static void build_lenet(tplan *tp)
{
    static const int c1[8] = {5, 5, 1, 1, 2, 2, 2, 2}, c2[8] = {5, 5, 1, 1, 0, 0, 0, 0},
                     pool[8] = {2, 2, 2, 2, 0, 0, 0, 0};
    static const int fc[4] = {400, 120, 84, 10};
    tplan_init(tp);
    tensor(tp, 0, 3, 1, 28, 28);
    win(tp, NPK_LAYER_CONV, "Conv", NPK_ACT_RELU, 1, 6, c1, 6, 28, 28);
    win(tp, NPK_LAYER_MAXPOOL, "MaxPool", NPK_ACT_NONE, 6, 6, pool, 6, 14, 14);
    win(tp, NPK_LAYER_CONV, "Conv", NPK_ACT_RELU, 6, 16, c2, 16, 10, 10);
    win(tp, NPK_LAYER_MAXPOOL, "MaxPool", NPK_ACT_NONE, 16, 16, pool, 16, 5, 5);
    for (int k = 0; k < 3; k++) {
        npk_layer *l = layer(tp, NPK_LAYER_DENSE, "Gemm", k < 2 ? NPK_ACT_RELU : NPK_ACT_NONE);
        l->n_in = fc[k], l->n_out = fc[k + 1];
        weights(tp, l);
        tensor(tp, 5 + k, 1, fc[k + 1], 0, 0);
    }
    layer(tp, NPK_LAYER_SOFTMAX, "Softmax", NPK_ACT_NONE)->row = 10;
    tensor(tp, 8, 1, 10, 0, 0);
}

/* ---- a sweep of random shapes ------------------------------------------------------------- */

static int irand(int lo, int hi)
{
    int v = lo + (int)((urand() + 1) / 2 * (hi - lo + 1));
    return v > hi ? hi : v;
}

static npk_act rand_act(void)
{
    static const npk_act a[6] = {NPK_ACT_NONE,    NPK_ACT_RELU, NPK_ACT_LEAKY_RELU,
                                 NPK_ACT_TANH,    NPK_ACT_GELU, NPK_ACT_SIGMOID};
    return a[irand(0, 5)];
}

/* A random window layer on tensor i (C, H, W) of tp; 0 when it gives no output. */
static int rand_window(tplan *tp, npk_layer_kind k, int C)
{
    const npk_ptensor *t = &tp->t[tp->p.n_layers];
    int H = t->dims[1], W = t->dims[2], w8[8];
    int pad = k == NPK_LAYER_CONV ? 2 : k == NPK_LAYER_AVGPOOL ? 1 : 0;
    for (int j = 4; j < 8; j++)
        w8[j] = irand(0, pad);
    w8[0] = irand(1, 5 < H + w8[4] + w8[6] ? 5 : H + w8[4] + w8[6]);
    w8[1] = irand(1, 5 < W + w8[5] + w8[7] ? 5 : W + w8[5] + w8[7]);
    w8[2] = irand(1, 3);
    w8[3] = (int[]){1, 2, 4}[irand(0, 2)];
    int oH = (H + w8[4] + w8[6] - w8[0]) / w8[2] + 1, oW = (W + w8[5] + w8[7] - w8[1]) / w8[3] + 1;
    int M = k == NPK_LAYER_CONV ? irand(1, 5) : C;
    npk_layer *l = win(tp, k, "X", k == NPK_LAYER_CONV ? rand_act() : NPK_ACT_NONE, C, M, w8, M,
                       oH, oW);
    l->alpha = 0.05 + (urand() + 1) * 0.6;  /* 0.05 .. 1.25: vfmax and vfmin */
    l->count_include_pad = 1;
    return M;
}

/* Random chains: Conv, maybe a pool, maybe an activation layer, maybe a second Conv, then
 * Dense layers or the Conv's accumulators, maybe Softmax; at K = 8 or 4. Every one must equal
 * the integer host model exactly. */
static void sweep(int cases)
{
    for (int c = 0; c < cases; c++) {
        tplan tp;
        uint64_t keep = rng;
        tplan_init(&tp);
        rng = keep;
        int C = irand(1, 3);
        tensor(&tp, 0, 3, C, irand(1, 12), irand(1, 19));
        C = rand_window(&tp, NPK_LAYER_CONV, C);
        if (irand(0, 1))
            C = rand_window(&tp, irand(0, 1) ? NPK_LAYER_MAXPOOL : NPK_LAYER_AVGPOOL, C);
        if (irand(0, 3) == 0) {
            npk_ptensor t = tp.t[tp.p.n_layers];
            layer(&tp, NPK_LAYER_ACT, "Act", irand(0, 1) ? NPK_ACT_TANH : NPK_ACT_SIGMOID);
            tp.t[tp.p.n_layers] = t;
        }
        if (irand(0, 1))
            C = rand_window(&tp, NPK_LAYER_CONV, C);
        int dense = irand(0, 2), n = (int)tp.t[tp.p.n_layers].elems;
        for (int d = 0; d < dense; d++) {
            npk_layer *l = layer(&tp, NPK_LAYER_DENSE, "Gemm", rand_act());
            l->n_in = n, l->n_out = n = irand(1, 20), l->alpha = 0.1;
            weights(&tp, l);
            tensor(&tp, (int)tp.p.n_layers, 1, n, 0, 0);
        }
        if (dense && irand(0, 1)) {
            layer(&tp, NPK_LAYER_SOFTMAX, "Softmax", NPK_ACT_NONE)->row = n;
            tensor(&tp, (int)tp.p.n_layers, 1, n, 0, 0);
        }
        calibrate_n(&tp, 4);
        char what[32];
        snprintf(what, sizeof what, "sweep %d", c);
        check_plan(&tp, what, irand(0, 1) ? "" : "K=4", 3, -1);
        keep = rng;
        tplan_free(&tp);
        rng = keep;
    }
    printf("sweep: %d random chains (Conv, pools, LUT layers, Dense, Softmax; strides 1 to 3 by "
           "1, 2, 4; pads 0 to 2) compared with the integer host model\n", cases);
}

static void expect_error(tplan *tp, const char *what, const char *settings, const char *want1,
                         const char *want2)
{
    const npk_lower_target *t = npk_lower_find("opennpu");
    char err[512] = "";
    void *s = NULL;
    int rc = t->open(&tp->p, settings, &s, err, sizeof err);
    CHECK(rc != 0 && s == NULL, "%s: accepted", what);
    CHECK(strstr(err, want1) && strstr(err, want2), "%s: message '%s' lacks '%s' / '%s'", what,
          err, want1, want2);
    if (rc == 0)
        t->close(s);
    else
        printf("%-22s -> %s\n", what, err);
}

static void check_errors(void)
{
    tplan tp;
    /* MaxPool with padding (the padded layout holds zeros) */
    build_cnn(&tp);
    tp.l[1].pt = tp.l[1].pl = 1;
    calibrate(&tp);
    expect_error(&tp, "padded maxpool", "", "layer 1 (node 11 'n', MaxPool)", "padding");
    tplan_free(&tp);
    /* a horizontal stride the loads cannot split */
    build_cnn(&tp);
    tp.l[1].sw = 3;
    tp.t[2].dims[2] = 4;
    tp.t[2].elems = 3 * 4 * 4;
    tp.t[3] = tp.t[2];
    calibrate(&tp);
    expect_error(&tp, "stride 3", "", "layer 1 (node 11 'n', MaxPool)", "stride 3");
    tplan_free(&tp);
    /* Softmax that is not at the end */
    build_mlp(&tp);
    tp.l[1].kind = NPK_LAYER_SOFTMAX, tp.l[1].op = "Softmax", tp.l[1].row = 19;
    tp.t[2] = tp.t[1];
    tp.l[2].n_in = 19;
    free(tp.w[2]), free(tp.b[2]);
    weights(&tp, &tp.l[2]);
    calibrate(&tp);
    expect_error(&tp, "softmax inside", "", "layer 1 (node 11 'n', Softmax)", "only at the end");
    tplan_free(&tp);
    /* too large: a 60000 x 40000 dense layer needs 2.4 GB of panels */
    build_mlp(&tp);
    calibrate(&tp);
    tp.l[0].n_in = 60000, tp.l[0].n_out = 40000;
    tp.t[0].dims[0] = 60000, tp.t[0].elems = 60000;
    tp.t[1].dims[0] = 40000, tp.t[1].elems = 40000;
    tp.l[1].n_in = 40000;
    expect_error(&tp, "too large", "", "layer 0 (node 10 'n', Gemm)", "bytes");
    tplan_free(&tp);
    /* too long: a 3x3 conv over 1500 x 1500 pixels is 34 M instructions of straight-line code */
    {
        static const int c1[8] = {3, 3, 1, 1, 0, 0, 0, 0};
        tplan_init(&tp);
        tensor(&tp, 0, 3, 1, 1500, 1500);
        win(&tp, NPK_LAYER_CONV, "Conv", NPK_ACT_NONE, 1, 1, c1, 1, 1498, 1498);
        calibrate_n(&tp, 0);
        expect_error(&tp, "too many instructions", "", "layer 0 (node 10 'n', Conv)",
                     "instructions for this layer alone");
        tplan_free(&tp);
    }
    /* a tensor beyond 2^28 elements; an empty one */
    build_mlp(&tp);
    calibrate(&tp);
    tp.t[2].elems = (size_t)1 << 29, tp.t[2].dims[0] = 1 << 29;
    tp.l[1].n_out = tp.l[2].n_in = 1 << 29;
    expect_error(&tp, "huge tensor", "", "layer 1 (node 11 'n', Gemm)", "536870912 elements");
    tp.t[2].elems = 0, tp.t[2].dims[0] = 0;
    expect_error(&tp, "empty tensor", "", "layer 1 (node 11 'n', Gemm)", "empty tensor");
    tplan_free(&tp);
    /* settings */
    build_mlp(&tp);
    calibrate(&tp);
    expect_error(&tp, "K=16", "K=16", "K=16", "K=4 or K=8");
    expect_error(&tp, "bad setting", "frob=1", "unknown setting 'frob=1'", "K=4|8");
    tp.p.calibrated = 0;
    expect_error(&tp, "not calibrated", "", "needs a calibrated plan", "--calib");
    tplan_free(&tp);
}

/* compile(): the program and the image are written, the note says how to run them. */
static void check_compile(void)
{
    tplan tp;
    build_mlp(&tp);
    calibrate(&tp);
    const npk_lower_target *t = npk_lower_find("opennpu");
    char err[512] = "", notebuf[4096] = "";
    const char *out = "lower_opennpu_mlp.s";
    FILE *note = tmpfile();
    int rc = t->compile(&tp.p, "K=4", out, note, err, sizeof err);
    CHECK(rc == 0, "compile: %s", err);
    if (note) {
        rewind(note);
        size_t n = fread(notebuf, 1, sizeof notebuf - 1, note);
        notebuf[n] = 0;
        fclose(note);
    }
    CHECK(strstr(notebuf, "npukit run -t opennpu --config K=4,L=32,mem_size=1048576 --load "
                          "mem:0:lower_opennpu_mlp.img") != NULL,
          "compile note: %s", notebuf);
    FILE *f = fopen("lower_opennpu_mlp.img", "rb");
    CHECK(f != NULL, "no image written");
    if (f)
        fclose(f);
    f = fopen(out, "r");
    char line[256] = "";
    CHECK(f && fgets(line, sizeof line, f) && strstr(line, "opennpu K=4"), "program: %s", line);
    if (f)
        fclose(f);
    remove(out), remove("lower_opennpu_mlp.img");
    printf("compile note:\n%s", notebuf);
    tplan_free(&tp);
}

/* usage: model_lower_opennpu [MODEL.onnx ...]: the models are also lowered and checked */
int main(int argc, char **argv)
{
    static const char *const settings[] = {"", "K=4"};
    for (int k = 0; k < 2; k++) {
        tplan tp;
        build_mlp(&tp);
        calibrate(&tp);
        check_plan(&tp, "mlp", settings[k], 40, 0.04);
        tplan_free(&tp);
        build_mlp_lut(&tp);
        calibrate(&tp);
        check_plan(&tp, "mlp-lut", settings[k], 40, 0.04);
        tplan_free(&tp);
        build_cnn(&tp);
        calibrate(&tp);
        check_plan(&tp, "cnn", settings[k], 40, 0.04);
        tplan_free(&tp);
        build_cnn2(&tp);
        calibrate(&tp);
        check_plan(&tp, "cnn2", settings[k], 40, 0.05);
        tplan_free(&tp);
        build_lenet(&tp);
        calibrate(&tp);
        check_plan(&tp, "lenet", settings[k], 4, 0.04);
        tplan_free(&tp);
    }
    for (int k = 1; k < argc; k++)
        check_onnx(argv[k]);
    sweep(150);
    check_errors();
    check_compile();
    return npk_test_done();
}
