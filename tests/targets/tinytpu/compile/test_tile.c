/* tinytpu schedule compiler: training with tiling (docs/tinytpu-compiler.md, "Training with
 * tiling"). Layers wider than N are trained over passes on N x N blocks. Checked here:
 *  - a 3-2-1 net on lanes = 2 worked out by hand (below), every number exact in Q8.8;
 *  - random nets on lanes 2, 3, 4 (widths above N, several batch tiles, ReLU hidden layers,
 *    two steps): the program runs on the simulator cycle-exactly, every UB word it writes
 *    equals the compiler's prediction (tt_compiled_check), and the trained weights and biases
 *    read from the simulated UB equal, bit for bit, this file's own host model of the update
 *    (the spec's A3 arithmetic from src/num, the sums in the order the schedule documents);
 *  - nets whose widths fit: the tiled schedule (`tile yes`) gives the untiled result, and a
 *    wide net on lanes 2 and 3 gives the result of the same net untiled on lanes = 8 (batch
 *    <= 2: one weight-gradient tile either way; no value saturates);
 *  - the pieces of a split step (a tiled inference with a batch, an update-only job) against
 *    the same host model.
 * Positions in the UB are found from the documented layout (blocks of N x N, block (bt, ft)
 * at t0·cols + f0·t, skew order inside, A8), computed here by enumerating the diagonals. */
#include <stdlib.h>
#include <string.h>

#include "num/num.h"
#include "targets/tinytpu/compile.h"
#include "test.h"

static char err[1024];

static int qm(int a, int b)
{
    return npk_q88_mul((int16_t)a, (int16_t)b, NPK_QR_HALF_UP);
}
static int qa(int a, int b)
{
    return npk_q88_add((int16_t)a, (int16_t)b);
}
static int qs(int a, int b)
{
    return npk_q88_sub((int16_t)a, (int16_t)b);
}

/* A8 by enumeration: anti-diagonals d = r + c in order, rows ascending within one. */
static unsigned skew(unsigned R, unsigned C, unsigned r, unsigned c)
{
    unsigned p = 0;
    for (unsigned d = 0; d + 2 <= R + C; d++)
        for (unsigned i = 0; i < R && i <= d; i++) {
            if (d - i >= C)
                continue;
            if (i == r && d - i == c)
                return p;
            p++;
        }
    return ~0u;
}

/* the block layout: blocks of at most N x N, block rows in order */
static unsigned lay(unsigned N, unsigned R, unsigned C, unsigned r, unsigned c)
{
    unsigned t0 = r - r % N, f0 = c - c % N;
    unsigned t = R - t0 < N ? R - t0 : N, f = C - f0 < N ? C - f0 : N;
    return t0 * C + f0 * t + skew(t, f, r - t0, c - f0);
}

/* ---- the host model of the tiled training step --------------------------------------------- */
static int alpha_of(const tt_net *n, unsigned l)
{
    return n->layer_alpha_set >> l & 1 ? (int16_t)n->layer_alpha[l] : (int16_t)n->alpha;
}

/* sum_k a[k·as] m[k·ms] over K terms in tiles of N (each tile from 0, row 0's product first),
 * the first tile plus the bias, the tiles folded by the loss stage: s = -(p0), s = -(p - s),
 * last: p - s (with one tile: p0). */
static int tsum(unsigned N, unsigned K, const int *a, size_t as, const int *m, size_t ms,
                const int *bias)
{
    unsigned n = (K + N - 1) / N;
    int s = 0;
    for (unsigned i = 0; i < n; i++) {
        int p = 0;
        for (unsigned k = i * N; k < K && k < (i + 1) * N; k++)
            p = qa(qm(a[k * as], m[k * ms]), p);
        if (i == 0 && bias)
            p = qa(p, *bias);
        if (n == 1)
            return p;
        if (i + 1 == n)
            return qs(p, s);
        s = qm(qs(p, s), -256);
    }
    return 0;
}

typedef struct hm {
    int *W[TT_NET_MAX_LAYERS], *b[TT_NET_MAX_LAYERS];
    double loss;
} hm;

static void hm_free(hm *m)
{
    for (unsigned l = 0; l < TT_NET_MAX_LAYERS; l++)
        free(m->W[l]), free(m->b[l]);
}

/* `steps` steps of the update on net's data; N: the array size (tiles of the sums and of the
 * weight gradient's batch); loss of the last step's forward output */
static void host_train(const tt_net *n, unsigned N, unsigned steps, hm *m)
{
    const unsigned L = n->L, B = n->B;
    const int lr = (int16_t)n->lr;
    const int inv = n->inv_set ? (int16_t)n->inv : npk_q88_from_double(2.0 / B);
    int *h[TT_NET_MAX_LAYERS + 1], *z[TT_NET_MAX_LAYERS], *dz[TT_NET_MAX_LAYERS];
    memset(m, 0, sizeof *m);
    h[0] = calloc((size_t)B * n->d[0], sizeof(int));
    for (size_t i = 0; i < (size_t)B * n->d[0]; i++)
        h[0][i] = n->X[i];
    for (unsigned l = 0; l < L; l++) {
        size_t nw = (size_t)n->d[l + 1] * n->d[l];
        m->W[l] = malloc(nw * sizeof(int));
        m->b[l] = malloc(n->d[l + 1] * sizeof(int));
        for (size_t i = 0; i < nw; i++)
            m->W[l][i] = n->W[l][i];
        for (unsigned j = 0; j < n->d[l + 1]; j++)
            m->b[l][j] = n->b[l][j];
        h[l + 1] = calloc((size_t)B * n->d[l + 1], sizeof(int));
        z[l] = calloc((size_t)B * n->d[l + 1], sizeof(int));
        dz[l] = calloc((size_t)B * n->d[l + 1], sizeof(int));
    }
    for (unsigned st = 0; st < steps; st++) {
        for (unsigned l = 0; l < L; l++) { /* forward */
            unsigned di = n->d[l], dout = n->d[l + 1];
            for (unsigned r = 0; r < B; r++)
                for (unsigned j = 0; j < dout; j++) {
                    int v = tsum(N, di, &h[l][r * di], 1, &m->W[l][j * di], 1, &m->b[l][j]);
                    z[l][r * dout + j] = v;
                    h[l + 1][r * dout + j] = v >= 0 ? v : qm(v, alpha_of(n, l));
                }
        }
        unsigned dL = n->d[L];
        m->loss = 0;
        for (unsigned i = 0; i < B * dL; i++) { /* loss derivative, output derivative */
            int hv = h[L][i], g = qm(qs(hv, n->Y[i]), inv);
            double e = (hv - n->Y[i]) / 256.0;
            m->loss += e * e;
            dz[L - 1][i] = hv >= 0 ? g : qm(g, alpha_of(n, L - 1));
        }
        m->loss /= (double)B * dL;
        for (unsigned r = 0; r < B; r++) /* b_L, row by row */
            for (unsigned j = 0; j < dL; j++)
                m->b[L - 1][j] = qs(m->b[L - 1][j], qm(dz[L - 1][r * dL + j], lr));
        for (unsigned l = L - 1; l >= 1; l--) { /* backward; ReLU: the sign of Z */
            unsigned di = n->d[l], dout = n->d[l + 1];
            int a = alpha_of(n, l - 1);
            for (unsigned r = 0; r < B; r++)
                for (unsigned j = 0; j < di; j++) {
                    int g = tsum(N, dout, &dz[l][r * dout], 1, &m->W[l][j], di, NULL);
                    int s = a == 0 ? z[l - 1][r * di + j] : h[l][r * di + j];
                    dz[l - 1][r * di + j] = s >= 0 ? g : qm(g, a);
                }
            for (unsigned r = 0; r < B; r++)
                for (unsigned j = 0; j < di; j++)
                    m->b[l - 1][j] = qs(m->b[l - 1][j], qm(dz[l - 1][r * di + j], lr));
        }
        for (unsigned l = 0; l < L; l++) { /* weights: once per batch tile of N rows */
            unsigned di = n->d[l], dout = n->d[l + 1];
            for (unsigned t0 = 0; t0 < B; t0 += N)
                for (unsigned k = 0; k < dout; k++)
                    for (unsigned j = 0; j < di; j++) {
                        int g = 0;
                        for (unsigned r = t0; r < B && r < t0 + N; r++)
                            g = qa(qm(dz[l][r * dout + k], h[l][r * di + j]), g);
                        m->W[l][k * di + j] = qs(m->W[l][k * di + j], qm(g, lr));
                    }
        }
    }
    for (unsigned l = 0; l <= L; l++)
        free(h[l]);
    for (unsigned l = 0; l < L; l++)
        free(z[l]), free(dz[l]);
}

/* ---- compile, run, read back --------------------------------------------------------------- */
/* Compiles and self-checks net; reads the trained parameters from the simulated UB into p
 * (allocated). Returns 0 or -1. */
static int run(const char *what, const tt_net *net, hm *p, double *loss)
{
    tt_compiled c;
    int rc = -1;
    uint16_t *ub = calloc(net->ub_words, sizeof *ub);
    memset(p, 0, sizeof *p);
    if (tt_compile(net, &c, err, sizeof err)) {
        NPK_REPORT(0, "%s: %s\n", what, err);
        goto out;
    }
    long bad = tt_compiled_check(net, &c, ub, err, sizeof err);
    NPK_REPORT(bad == 0, "%s: self-check: %ld mismatches: %s\n", what, bad, err);
    if (bad)
        goto out;
    for (unsigned l = 0; l < net->L; l++) {
        char nm[8];
        unsigned R = net->d[l + 1], C = net->d[l];
        snprintf(nm, sizeof nm, "W%u", l + 1);
        const tt_region *rw = tt_compiled_find(&c, nm, -1);
        snprintf(nm, sizeof nm, "b%u", l + 1);
        const tt_region *rb = tt_compiled_find(&c, nm, -1);
        NPK_CHECK(rw && rb);
        if (!rw || !rb)
            goto out;
        p->W[l] = malloc((size_t)R * C * sizeof(int));
        p->b[l] = malloc(R * sizeof(int));
        for (unsigned r = 0; r < R; r++) {
            for (unsigned j = 0; j < C; j++)
                p->W[l][r * C + j] = (int16_t)ub[rw->addr + lay(net->N, R, C, r, j)];
            p->b[l][r] = (int16_t)ub[rb->addr + r];
        }
    }
    *loss = c.loss[net->steps - 1];
    printf("%-44s %7zu cycles (%zu per step), %5u words, self-check ok\n", what, c.cycles,
           c.step_cycles, c.words);
    rc = 0;
out:
    tt_compiled_free(&c);
    free(ub);
    return rc;
}

/* p == q on every parameter; returns the number of differences (reported) */
static unsigned same(const char *what, const tt_net *n, const hm *p, const hm *q)
{
    unsigned bad = 0;
    for (unsigned l = 0; l < n->L; l++) {
        for (unsigned i = 0; i < n->d[l + 1] * n->d[l]; i++)
            if (p->W[l][i] != q->W[l][i]) {
                if (!bad++)
                    printf("%s: W%u[%u] = 0x%04X, expected 0x%04X\n", what, l + 1, i,
                           p->W[l][i] & 0xFFFF, q->W[l][i] & 0xFFFF);
            }
        for (unsigned j = 0; j < n->d[l + 1]; j++)
            if (p->b[l][j] != q->b[l][j]) {
                if (!bad++)
                    printf("%s: b%u[%u] = 0x%04X, expected 0x%04X\n", what, l + 1, j,
                           p->b[l][j] & 0xFFFF, q->b[l][j] & 0xFFFF);
            }
    }
    NPK_REPORT(bad == 0, "%s: %u parameters differ\n", what, bad);
    return bad;
}

static uint64_t rng = 0x2545F4914F6CDD1Du;
static int rnd(int range) /* -range .. range */
{
    rng = rng * 6364136223846793005u + 1442695040888963407u;
    return (int)((rng >> 33) % (unsigned)(2 * range + 1)) - range;
}

/* a random net: x in +-2, y in +-1, weights +-0.75, biases +-0.25 (Q8.8 steps of 1/128) */
static void make_net(tt_net *n, unsigned N, const unsigned *d, unsigned L, unsigned B,
                     unsigned steps, uint64_t seed)
{
    memset(n, 0, sizeof *n);
    rng = 0x2545F4914F6CDD1Du ^ seed;
    n->N = N, n->ub_words = 65536 / (N == 2 ? 2 : 1), n->L = L, n->B = B, n->steps = steps;
    for (unsigned l = 0; l <= L; l++)
        n->d[l] = d[l];
    n->format = TT_FMT_ASM;
    n->alpha = 0x0040, n->lr = 0x0020; /* 0.25, 0.125 */
    NPK_CHECK(tt_net_alloc(n) == 0);
    for (size_t i = 0; i < (size_t)B * d[0]; i++)
        n->X[i] = (int16_t)(2 * rnd(128));
    for (size_t i = 0; i < (size_t)B * d[L]; i++)
        n->Y[i] = (int16_t)(2 * rnd(128));
    for (unsigned l = 0; l < L; l++) {
        for (size_t i = 0; i < (size_t)d[l + 1] * d[l]; i++)
            n->W[l][i] = (int16_t)(2 * rnd(96));
        for (unsigned j = 0; j < d[l + 1]; j++)
            n->b[l][j] = (int16_t)(2 * rnd(32));
    }
}

/* ---- the hand-worked case ------------------------------------------------------------------ */
/* 3-2-1 on lanes = 2, batch 1, alpha 0.5, lr 0.25, 2/B = 2 (0x0200 = round(2/1 · 256)).
 * x = (1, 2, 3), y = 1, W1 = [[0.5, 0.25, 1], [-1, 0.5, -0.5]], b1 = (0.5, 0),
 * W2 = [[1, 0.5]], b2 = 0.
 * Layer 1 has 3 inputs: two passes per output block (inputs 0-1, then input 2).
 *   pass 1 (with b1): p = (0.5 + 0.5 + 0.5, -1 + 1 + 0) = (1.5, 0); s1 = -p = (-1.5, 0)
 *   pass 2: p = (3, -1.5); Z1 = p - s1 = (4.5, -1.5); H1 = (4.5, -0.75) (leaky 0.5)
 * Layer 2 (fits): Z2 = 4.5 - 0.375 + 0 = 4.125 = H2; dZ2 = (4.125 - 1) · 2 = 6.25;
 *   loss = 3.125^2 = 9.765625; b2 = 0 - 0.25 · 6.25 = -1.5625
 * Backward: dZ2 · W2 = (6.25, 3.125); H1's signs (+, -): dZ1 = (6.25, 1.5625);
 *   b1 = (0.5 - 1.5625, 0 - 0.390625) = (-1.0625, -0.390625)
 * Weights: W1 -= 0.25 · dZ1ᵀ x = [[6.25, 12.5, 18.75], [1.5625, 3.125, 4.6875]] · 0.25:
 *   W1 = [[-1.0625, -2.875, -3.6875], [-1.390625, -0.28125, -1.671875]];
 *   W2 -= 0.25 · dZ2 · H1 = 0.25 · (28.125, -4.6875): W2 = [[-6.03125, 1.671875]].
 * Every value is a multiple of 1/256: no rounding anywhere. */
static void test_hand(void)
{
    static const char *src = "lanes 2\nlayers 3 2 1\nalpha 0.5\nlr 0.25\nx 1 2 3\ny 1\n"
                             "w1 0.5 0.25 1\nw1 -1 0.5 -0.5\nb1 0.5 0\nw2 1 0.5\nb2 0\n";
    tt_net net;
    NPK_CHECK(tt_net_parse(src, "hand.net", &net, err, sizeof err) == 0);
    hm p, h;
    double loss = 0;
    if (run("hand 3-2-1 on lanes 2", &net, &p, &loss) == 0) {
        static const double w1[] = {-1.0625, -2.875, -3.6875, -1.390625, -0.28125, -1.671875};
        static const double b1[] = {-1.0625, -0.390625}, w2[] = {-6.03125, 1.671875};
        for (unsigned i = 0; i < 6; i++)
            NPK_CHECK(p.W[0][i] == (int)(w1[i] * 256));
        for (unsigned i = 0; i < 2; i++)
            NPK_CHECK(p.b[0][i] == (int)(b1[i] * 256) && p.W[1][i] == (int)(w2[i] * 256));
        NPK_CHECK(p.b[1][0] == (int)(-1.5625 * 256));
        NPK_CHECK(loss == 9.765625);
        host_train(&net, 2, 1, &h);
        same("hand 3-2-1: host model", &net, &p, &h);
        hm_free(&h);
    }
    hm_free(&p);
    /* the running sums in the UB: s1 = (-1.5, 0) and Z1 = (4.5, -1.5), then H1 */
    tt_compiled c;
    uint16_t ub[128];
    if (tt_compile(&net, &c, err, sizeof err) == 0 &&
        tt_compiled_check(&net, &c, ub, err, sizeof err) == 0) {
        const tt_region *s1 = tt_compiled_find(&c, "Z1 sum 1", 0), *z1 = tt_compiled_find(&c, "Z1", 0),
                        *h1 = tt_compiled_find(&c, "H1", 0);
        NPK_CHECK(s1 && z1 && h1);
        if (s1 && z1 && h1) {
            NPK_CHECK(ub[s1->addr] == 0xFE80 && ub[s1->addr + 1] == 0x0000);
            NPK_CHECK(ub[z1->addr] == 0x0480 && ub[z1->addr + 1] == 0xFE80);
            NPK_CHECK(ub[h1->addr] == 0x0480 && ub[h1->addr + 1] == 0xFF40);
        }
    } else {
        NPK_REPORT(0, "hand: %s\n", err);
    }
    tt_compiled_free(&c);
    tt_net_free(&net);
}

/* ---- random nets against the host model ---------------------------------------------------- */
static void test_random(void)
{
    static const struct {
        unsigned N, L, d[5], B, relu;
    } cases[] = {
        {2, 2, {3, 2, 1}, 3, 0},    {2, 2, {5, 3, 4}, 2, 0},    {2, 3, {2, 5, 3, 3}, 5, 1},
        {3, 2, {7, 4, 2}, 4, 1},    {3, 2, {2, 3, 7}, 7, 0},    {3, 3, {4, 8, 5, 1}, 3, 1},
        {4, 2, {9, 6, 5}, 6, 1},    {4, 3, {5, 4, 9, 3}, 9, 0}, {4, 2, {4, 4, 4}, 4, 1},
        {2, 2, {1, 1, 3}, 1, 0},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tt_net net;
        char what[96];
        int k = snprintf(what, sizeof what, "N=%u: ", cases[i].N);
        for (unsigned l = 0; l <= cases[i].L; l++)
            k += snprintf(what + k, sizeof what - (size_t)k, l ? "-%u" : "%u", cases[i].d[l]);
        snprintf(what + k, sizeof what - (size_t)k, ", batch %u%s, 2 steps", cases[i].B,
                 cases[i].relu ? ", ReLU hidden" : "");
        make_net(&net, cases[i].N, cases[i].d, cases[i].L, cases[i].B, 2, i + 1);
        if (cases[i].relu) { /* hidden layers ReLU (Z's sign), the output none */
            net.tile = 1;
            for (unsigned l = 0; l + 1 < net.L; l++)
                net.layer_alpha[l] = 0, net.layer_alpha_set |= 1u << l;
            net.layer_alpha[net.L - 1] = 0x0100, net.layer_alpha_set |= 1u << (net.L - 1);
        }
        hm p, h;
        double loss = 0;
        if (run(what, &net, &p, &loss) == 0) {
            host_train(&net, net.N, 2, &h);
            same(what, &net, &p, &h);
            NPK_REPORT(loss == h.loss, "%s: loss %g, host model %g\n", what, loss, h.loss);
            hm_free(&h);
        }
        hm_free(&p);
        tt_net_free(&net);
    }
}

/* ---- against the untiled schedule ---------------------------------------------------------- */
static void test_untiled(void)
{
    /* widths that fit: tile yes == tile no (same N) */
    static const struct {
        unsigned N, L, d[4], B;
    } fit[] = {{2, 2, {2, 2, 1}, 4}, {3, 3, {3, 2, 3, 2}, 5}, {4, 2, {4, 3, 4}, 9}, {2, 2, {1, 2, 2}, 3}};
    for (unsigned i = 0; i < sizeof fit / sizeof fit[0]; i++) {
        tt_net a, b;
        char what[80];
        make_net(&a, fit[i].N, fit[i].d, fit[i].L, fit[i].B, 2, 100 + i);
        make_net(&b, fit[i].N, fit[i].d, fit[i].L, fit[i].B, 2, 100 + i);
        b.tile = 1;
        hm p, q;
        double la = 0, lb = 0;
        snprintf(what, sizeof what, "fits N=%u, batch %u: untiled", fit[i].N, fit[i].B);
        int ra = run(what, &a, &p, &la);
        snprintf(what, sizeof what, "fits N=%u, batch %u: tile yes", fit[i].N, fit[i].B);
        int rb = run(what, &b, &q, &lb);
        if (!ra && !rb) {
            same(what, &a, &q, &p);
            NPK_CHECK(la == lb);
        }
        hm_free(&p), hm_free(&q);
        tt_net_free(&a), tt_net_free(&b);
    }
    /* wide nets on lanes 2 and 3 == the same net untiled on lanes 8 (batch <= 2) */
    static const struct {
        unsigned L, d[4], B;
    } wide[] = {{2, {5, 3, 4}, 2}, {3, {3, 7, 2, 5}, 1}, {2, {8, 8, 8}, 2}};
    for (unsigned i = 0; i < sizeof wide / sizeof wide[0]; i++) {
        tt_net ref;
        hm q;
        double lq = 0;
        char what[80];
        make_net(&ref, 8, wide[i].d, wide[i].L, wide[i].B, 2, 200 + i);
        snprintf(what, sizeof what, "%u-%u-%u.. batch %u, lanes 8 (fits)", wide[i].d[0],
                 wide[i].d[1], wide[i].d[2], wide[i].B);
        int rr = run(what, &ref, &q, &lq);
        for (unsigned N = 2; N <= 3 && !rr; N++) {
            tt_net n;
            hm p;
            double lp = 0;
            make_net(&n, N, wide[i].d, wide[i].L, wide[i].B, 2, 200 + i);
            snprintf(what, sizeof what, "%u-%u-%u.. batch %u, lanes %u (tiled)", wide[i].d[0],
                     wide[i].d[1], wide[i].d[2], wide[i].B, N);
            if (run(what, &n, &p, &lp) == 0) {
                same(what, &n, &p, &q);
                NPK_CHECK(lp == lq);
            }
            hm_free(&p);
            tt_net_free(&n);
        }
        hm_free(&q);
        tt_net_free(&ref);
    }
}

/* The pieces a split training step is made of (docs/models.md, "Training on tinytpu"): a
 * tiled inference with a batch (tile yes, steps 0) gives the forward of the host model; an
 * update-only job (dZ given in Y's place) gives the host model's update of b and W. */
static void test_pieces(void)
{
    static const unsigned d[] = {7, 5};
    for (unsigned N = 2; N <= 4; N += 2) {
        tt_net n;
        tt_compiled c;
        uint16_t *ub = calloc(65536, sizeof *ub);
        make_net(&n, N, d, 1, 5, 0, 300 + N);
        n.tile = 1, n.layer_alpha[0] = 0x0100, n.layer_alpha_set = 1;
        int16_t h[25];
        NPK_REPORT(tt_compile(&n, &c, err, sizeof err) == 0, "tiled inference: %s\n", err);
        NPK_REPORT(tt_compiled_check(&n, &c, ub, err, sizeof err) == 0, "tiled inference: %s\n",
                   err);
        NPK_CHECK(tt_compiled_matrix(&n, &c, ub, "H1", 0, 5, 5, h) == 0);
        unsigned bad = 0;
        int xs[35], ws[35];
        for (unsigned i = 0; i < 35; i++)
            xs[i] = n.X[i], ws[i] = n.W[0][i];
        bad = 0;
        for (unsigned r = 0; r < 5; r++)
            for (unsigned j = 0; j < 5; j++) {
                int bj = n.b[0][j];
                bad += h[r * 5 + j] != tsum(N, 7, &xs[r * 7], 1, &ws[j * 7], 1, &bj);
            }
        NPK_REPORT(bad == 0, "tiled inference, batch 5, lanes %u: %u outputs differ\n", N, bad);
        printf("%-44s %7zu cycles, %5u words, self-check ok\n",
               N == 2 ? "tiled inference 7-5, batch 5, lanes 2" : "tiled inference 7-5, batch 5, lanes 4",
               c.cycles, c.words);
        tt_compiled_free(&c);
        /* update only: Y is dZ_1 */
        n.steps = 1, n.update_only = 1;
        NPK_REPORT(tt_compile(&n, &c, err, sizeof err) == 0, "update only: %s\n", err);
        NPK_REPORT(tt_compiled_check(&n, &c, ub, err, sizeof err) == 0, "update only: %s\n", err);
        int16_t W[35], b[5];
        NPK_CHECK(tt_compiled_params(&n, &c, ub, 0, W, b) == 0);
        const int lr = (int16_t)n.lr;
        bad = 0;
        for (unsigned j = 0; j < 5; j++) { /* b row by row, W once per tile of N rows */
            int bj = n.b[0][j];
            for (unsigned r = 0; r < 5; r++)
                bj = qs(bj, qm(n.Y[r * 5 + j], lr));
            bad += b[j] != bj;
            for (unsigned k = 0; k < 7; k++) {
                int wv = n.W[0][j * 7 + k];
                for (unsigned t0 = 0; t0 < 5; t0 += N) {
                    int g = 0;
                    for (unsigned r = t0; r < 5 && r < t0 + N; r++)
                        g = qa(qm(n.Y[r * 5 + j], n.X[r * 7 + k]), g);
                    wv = qs(wv, qm(g, lr));
                }
                bad += W[j * 7 + k] != wv;
            }
        }
        NPK_REPORT(bad == 0, "update only, lanes %u: %u parameters differ\n", N, bad);
        printf("%-44s %7zu cycles, %5u words, self-check ok\n",
               N == 2 ? "update only 7-5, batch 5, lanes 2" : "update only 7-5, batch 5, lanes 4",
               c.cycles, c.words);
        tt_compiled_free(&c);
        tt_net_free(&n);
        free(ub);
    }
}

static void test_errors(void)
{
    tt_net n;
    tt_compiled c;
    static const unsigned d[] = {5, 3, 2};
    make_net(&n, 2, d, 2, 2, 1, 7);
    n.bias_mode = TT_BIAS_TRANSITION;
    NPK_CHECK(tt_compile(&n, &c, err, sizeof err) != 0);
    NPK_CHECK_CONTAINS(err, "bias_update transition with the tiled training schedule");
    tt_compiled_free(&c);
    n.bias_mode = TT_BIAS_AUTO;
    n.ub_words = 100;
    NPK_CHECK(tt_compile(&n, &c, err, sizeof err) != 0);
    NPK_CHECK_CONTAINS(err, "but the UB has 100 words");
    tt_compiled_free(&c);
    tt_net_free(&n);
}

int main(void)
{
    test_hand();
    test_random();
    test_untiled();
    test_pieces();
    test_errors();
    return npk_test_done();
}
