/* The tinytpu lowering (src/targets/tinytpu/lower.c, docs/models.md "Lowering to tinytpu") on
 * hand-built plans: a 3-2-1 network worked out by hand (a tiled first layer on lanes=2, untiled
 * on lanes=4); random 20-13-7-5 networks (ReLU, LeakyRelu 0.1, none) at lanes 3, 4 and 8, and
 * with a UB so small that the plan is cut into several programs and the first layer into output
 * chunks. Each output must EQUAL, bit for bit, this file's own Q8.8 model of the programs (spec
 * A3 operators, input tiles of N, the partial sum added as the next tile's bias), and lie
 * within the error bound derived below of the float64 run (npk_plan_run_f64). The lowering
 * itself compares every UB word with the compiler's prediction on every inference. Then the
 * errors: a conv layer, an activation the VPU lacks, bad settings, a layer too large for the
 * UB; and `compile` writing one stream per program. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/lower.h"
#include "num/num.h"
#include "test.h"

#define MAXL 4

typedef struct hand {
    npk_plan p;
    npk_layer l[MAXL];
    npk_ptensor t[MAXL + 1];
    float *w[MAXL], *b[MAXL];
} hand;

static void mk(hand *h, unsigned nl, const int *d, const npk_act *act, const double *alpha)
{
    memset(h, 0, sizeof *h);
    h->p.n_layers = nl, h->p.n_tensors = nl + 1, h->p.layers = h->l, h->p.tensors = h->t;
    for (unsigned i = 0; i <= nl; i++)
        h->t[i].rank = 1, h->t[i].dims[0] = d[i], h->t[i].elems = (size_t)d[i];
    for (unsigned i = 0; i < nl; i++) {
        npk_layer *l = &h->l[i];
        l->kind = NPK_LAYER_DENSE, l->node = (int)i, l->name = "fc", l->op = "Gemm";
        l->in = (int)i, l->out = (int)i + 1, l->act = act[i], l->alpha = alpha[i];
        l->n_in = d[i], l->n_out = d[i + 1];
        h->w[i] = calloc((size_t)d[i] * (size_t)d[i + 1], sizeof(float));
        h->b[i] = calloc((size_t)d[i + 1], sizeof(float));
        l->w = h->w[i], l->b = h->b[i];
        h->p.macs += (uint64_t)d[i] * (uint64_t)d[i + 1];
    }
}

static void unmk(hand *h)
{
    for (unsigned i = 0; i < h->p.n_layers; i++)
        free(h->w[i]), free(h->b[i]);
}

static double q(double v)
{
    return npk_q88_to_double(npk_q88_from_double(v));
}

/* The programs in Q8.8 (A3): per output, over input tiles of N in order, z = add(mul(x_k,
 * w_k), z) from 0, then add(z, bias or the previous tile's sum); the layer's leaky ReLU on the
 * last tile (α 0 ReLU, 1.0 none). Also the error bound against float64: e_in per input, for an
 * output sum_i (|w| e_in + |xq| |w - wq| + 1/512 for the product's rounding) + |b - bq|, and a
 * leaky ReLU with α in (0, 1) adds |zq| |α - αq| + 1/512 (its product); ReLU and α 0, 1 add
 * nothing (1-Lipschitz, exact). Assumes no saturation (the values here stay far below 128). */
static void model(const hand *h, unsigned N, const float *x, float *y, double *bound)
{
    int16_t a[64], z[64];
    double e[64], ez[64];
    unsigned d0 = (unsigned)h->l[0].n_in;
    for (unsigned i = 0; i < d0; i++)
        a[i] = npk_q88_from_double(x[i]), e[i] = fabs((double)x[i] - npk_q88_to_double(a[i]));
    for (unsigned li = 0; li < h->p.n_layers; li++) {
        const npk_layer *l = &h->l[li];
        unsigned din = (unsigned)l->n_in, dout = (unsigned)l->n_out;
        int16_t al = l->act == NPK_ACT_NONE ? 0x100 : l->act == NPK_ACT_RELU
                                                          ? 0
                                                          : npk_q88_from_double(l->alpha);
        for (unsigned o = 0; o < dout; o++) {
            int16_t acc = npk_q88_from_double(l->b[o]);
            double eb = fabs(l->b[o] - npk_q88_to_double(acc));
            for (unsigned i0 = 0; i0 < din; i0 += N) {
                int16_t s = 0;
                for (unsigned k = i0; k < din && k < i0 + N; k++) {
                    double w = l->w[(size_t)o * din + k];
                    s = npk_q88_add(npk_q88_mul(a[k], npk_q88_from_double(w), NPK_QR_HALF_UP), s);
                    eb += fabs(w) * e[k] + fabs(npk_q88_to_double(a[k])) * fabs(w - q(w)) +
                          1.0 / 512;
                }
                acc = npk_q88_add(s, acc);
            }
            if (acc < 0 && al != 0x100) {
                if (al) /* leaky: the product rounds; α itself is rounded */
                    eb += fabs(npk_q88_to_double(acc)) * fabs(l->alpha - q(l->alpha)) +
                          1.0 / 512;
                acc = npk_q88_mul(acc, al, NPK_QR_HALF_UP);
            }
            z[o] = acc, ez[o] = eb;
        }
        memcpy(a, z, dout * sizeof *a);
        memcpy(e, ez, dout * sizeof *e);
    }
    for (unsigned o = 0; o < (unsigned)h->l[h->p.n_layers - 1].n_out; o++)
        y[o] = (float)npk_q88_to_double(a[o]), bound[o] = e[o];
}

static char err[1024];

/* Open, run `count` inputs, compare with the model (exact) and float64 (within the bound). */
static void run(hand *h, const char *settings, unsigned N, const float *xs, unsigned count,
                const char *what)
{
    const npk_lower_target *t = npk_lower_find("tinytpu");
    NPK_CHECK(t != NULL);
    if (!t)
        return;
    void *s = NULL;
    int rc = t->open(&h->p, settings, &s, err, sizeof err);
    NPK_REPORT(rc == 0, "%s: open: %s\n", what, err);
    if (rc)
        return;
    unsigned nin = (unsigned)h->l[0].n_in, nout = (unsigned)h->l[h->p.n_layers - 1].n_out;
    double worst = 0, wb = 0;
    uint64_t cycles = 0;
    for (unsigned k = 0; k < count; k++) {
        float y[64], ym[64];
        double yd[64], xd[64], bound[64];
        npk_lower_stats st;
        rc = t->infer(s, xs + (size_t)k * nin, y, &st, err, sizeof err);
        NPK_REPORT(rc == 0, "%s: input %u: %s\n", what, k, err);
        if (rc)
            break;
        NPK_CHECK_EQ_U64(st.macs, h->p.macs);
        NPK_CHECK(st.instructions == st.cycles && st.cycles > 0);
        NPK_CHECK(st.utilisation > 0 && st.utilisation <= 1);
        cycles = st.cycles;
        model(h, N, xs + (size_t)k * nin, ym, bound);
        for (unsigned i = 0; i < nin; i++)
            xd[i] = xs[(size_t)k * nin + i];
        NPK_CHECK(npk_plan_run_f64(&h->p, xd, yd, 0) == 0);
        for (unsigned o = 0; o < nout; o++) {
            NPK_REPORT(y[o] == ym[o], "%s: input %u output %u: simulator %.6f, Q8.8 model %.6f\n",
                       what, k, o, y[o], ym[o]);
            double d = fabs(y[o] - yd[o]);
            NPK_REPORT(d <= bound[o], "%s: input %u output %u: |%.6f - %.6f| above the bound "
                       "%.6f\n", what, k, o, y[o], yd[o], bound[o]);
            worst = d > worst ? d : worst;
            wb = bound[o] > wb ? bound[o] : wb;
        }
    }
    printf("%-36s %6llu cycles, max |sim - float64| %.5f (bound up to %.4f)\n", what,
           (unsigned long long)cycles, worst, wb);
    t->close(s);
}

/* 3 -> 2 (ReLU) -> 1: x (1, 2, 3), W1 ((0.5, 0.25, 1), (-1, 0.5, 0)), b1 (0.5, 0.25):
 * h1 = (0.5 + 0.5 + 3 + 0.5, -1 + 1 + 0 + 0.25) = (4.5, 0.25); W2 (1, -2), b2 0.125:
 * y = 4.5 - 0.5 + 0.125 = 4.125, exact in Q8.8 and in float64. */
static void test_hand(void)
{
    static const int d[] = {3, 2, 1};
    static const npk_act act[] = {NPK_ACT_RELU, NPK_ACT_NONE};
    static const double alpha[] = {0, 0};
    static const float w1[] = {0.5f, 0.25f, 1, -1, 0.5f, 0}, b1[] = {0.5f, 0.25f}, w2[] = {1, -2},
                       b2[] = {0.125f}, x[] = {1, 2, 3};
    hand h;
    mk(&h, 2, d, act, alpha);
    memcpy(h.w[0], w1, sizeof w1), memcpy(h.b[0], b1, sizeof b1);
    memcpy(h.w[1], w2, sizeof w2), memcpy(h.b[1], b2, sizeof b2);
    const npk_lower_target *t = npk_lower_find("tinytpu");
    static const char *const set[] = {"lanes=2,ub_words=128", "lanes=4", "lanes=2,ub_words=16"};
    for (unsigned i = 0; t && i < 3; i++) {
        void *s = NULL;
        float y = 0;
        npk_lower_stats st;
        int rc = t->open(&h.p, set[i], &s, err, sizeof err);
        NPK_REPORT(rc == 0, "hand %s: %s\n", set[i], err);
        if (rc)
            continue;
        rc = t->infer(s, x, &y, &st, err, sizeof err);
        NPK_REPORT(rc == 0 && y == 4.125f, "hand %s: y = %g (%s), want 4.125\n", set[i], y,
                   rc ? err : "");
        NPK_CHECK_EQ_U64(st.macs, 8);
        t->close(s);
    }
    run(&h, "lanes=2", 2, x, 1, "hand 3-2-1, lanes=2");
    unmk(&h);
}

static void test_random(void)
{
    static const int d[] = {20, 13, 7, 5};
    static const npk_act act[] = {NPK_ACT_RELU, NPK_ACT_LEAKY_RELU, NPK_ACT_NONE};
    static const double alpha[] = {0, 0.1, 0};
    hand h;
    mk(&h, 3, d, act, alpha);
    uint64_t r = 0x2545F4914F6CDD1Du;
#define RND(lo, hi) (r = r * 6364136223846793005u + 1442695040888963407u, \
                     (float)((lo) + ((hi) - (lo)) * (double)(r >> 11) / 9007199254740992.0))
    for (unsigned i = 0; i < 3; i++) {
        for (int k = 0; k < d[i] * d[i + 1]; k++)
            h.w[i][k] = RND(-0.6, 0.6);
        for (int k = 0; k < d[i + 1]; k++)
            h.b[i][k] = RND(-0.3, 0.3);
    }
    float xs[8 * 20];
    for (unsigned k = 0; k < 8 * 20; k++)
        xs[k] = RND(0, 1.5);
#undef RND
    run(&h, "lanes=4,ub_words=4096", 4, xs, 8, "20-13-7-5, lanes=4");
    run(&h, "lanes=3", 3, xs, 8, "20-13-7-5, lanes=3");
    run(&h, "lanes=8", 8, xs, 8, "20-13-7-5, lanes=8");
    run(&h, "lanes=16", 16, xs, 8, "20-13-7-5, lanes=16");
    /* 300 words: layer 1 alone needs 20 + 260 + 13 + 5 x 13 = 358, so output chunks of 8 and 5
     * ((300 - 20) / (20 + 1 + 5) = 10, rounded down to a multiple of 4), then layers 2 and 3 */
    run(&h, "lanes=4,ub_words=300", 4, xs, 8, "20-13-7-5, lanes=4, 300 UB words");
    run(&h, "ub_words=100,lanes=4", 4, xs, 8, "20-13-7-5, lanes=4, 100 UB words");

    /* compile: one stream per program, OUT then OUT.2, OUT.3 ... */
    const npk_lower_target *t = npk_lower_find("tinytpu");
    char note[4096] = "";
    FILE *nf = tmpfile();
    NPK_CHECK(nf != NULL);
    if (t && nf) {
        int rc = t->compile(&h.p, "lanes=4,ub_words=300", "tt_lower_test.tt", nf, err, sizeof err);
        rewind(nf);
        note[fread(note, 1, sizeof note - 1, nf)] = 0;
        fclose(nf);
        NPK_REPORT(rc == 0, "compile: %s\n", err);
        NPK_CHECK_CONTAINS(note, "tinytpu program 1: layers 0..0 (outputs 0..7 of 13)");
        NPK_CHECK_CONTAINS(note, "tinytpu program 2: layers 0..0 (outputs 8..12 of 13)");
        NPK_CHECK_CONTAINS(note, "tinytpu program 3: layers 1..2");
        NPK_CHECK_CONTAINS(note, "tinytpu: 3 programs");
        static const char *const files[] = {"tt_lower_test.tt", "tt_lower_test.2.tt",
                                            "tt_lower_test.3.tt"};
        for (unsigned i = 0; i < 3; i++) {
            FILE *f = fopen(files[i], "r");
            char line[256] = "";
            NPK_REPORT(f != NULL, "compile did not write %s\n", files[i]);
            if (f) {
                NPK_CHECK(fgets(line, sizeof line, f) != NULL);
                NPK_CHECK_CONTAINS(line, "; compiled from the model (tinytpu lowering)");
                fclose(f);
                remove(files[i]);
            }
        }
    }
    unmk(&h);
}

static void expect_fail(const npk_plan *p, const char *settings, const char *needle)
{
    const npk_lower_target *t = npk_lower_find("tinytpu");
    void *s = NULL;
    int rc = t ? t->open(p, settings, &s, err, sizeof err) : 0;
    NPK_REPORT(rc != 0, "'%s' accepted, expected '%s'\n", settings, needle);
    if (rc)
        NPK_CHECK_CONTAINS(err, needle);
    else if (t)
        t->close(s);
}

static void test_errors(void)
{
    static const int d[] = {20, 13, 5};
    static const npk_act act[] = {NPK_ACT_RELU, NPK_ACT_NONE};
    static const double alpha[] = {0, 0};
    hand h;
    mk(&h, 2, d, act, alpha);
    expect_fail(&h.p, "lanes=1", "lanes=1 out of range (2..256)");
    expect_fail(&h.p, "lanes=4,speed=2", "tinytpu setting 'speed=2'");
    expect_fail(&h.p, "ub_words=70000", "ub_words out of range (1..65536");
    /* 20 inputs, one column: 20 weights, a bias and ceil(20 / 4) = 5 partial sums */
    expect_fail(&h.p, "lanes=4,ub_words=45",
                "layer 0 (node 0 'fc', Gemm): the layer needs 46 UB words for its input (20) and "
                "one output column (20 weights, the bias and 5 partial sums) but the UB has 45 "
                "words");
    h.l[1].act = NPK_ACT_SIGMOID;
    expect_fail(&h.p, "", "layer 1 (node 1 'fc', Gemm): activation sigmoid: the tinytpu VPU has "
                          "leaky ReLU only");
    h.l[1].act = NPK_ACT_NONE;
    h.l[0].kind = NPK_LAYER_CONV, h.l[0].op = "Conv";
    expect_fail(&h.p, "", "layer 0 (node 0 'fc', Conv): tinytpu lowers dense layers only (this "
                          "is a conv layer)");
    h.l[0].kind = NPK_LAYER_DENSE;
    h.l[1].kind = NPK_LAYER_ACT, h.l[1].op = "Tanh";
    expect_fail(&h.p, "", "layer 1 (node 1 'fc', Tanh): tinytpu lowers dense layers only (this "
                          "is an act layer)");
    h.l[1].kind = NPK_LAYER_DENSE;
    unmk(&h);
}

int main(void)
{
    test_hand();
    test_random();
    test_errors();
    return npk_test_done();
}
