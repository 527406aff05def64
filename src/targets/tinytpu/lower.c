/* The lowering of a plan (src/model/plan.h) to tinytpu (docs/models.md, "Lowering to
 * tinytpu"): dense layers in Q8.8 through the schedule compiler's inference mode
 * (docs/tinytpu-compiler.md, "Inference and tiling"; spec docs/spec/tinytpu.md Part E). The
 * plan is cut into programs (segments) that fit the UB: consecutive layers in one program while
 * their words fit, a layer too large for the UB alone split into chunks of output columns. Each
 * inference compiles every segment with the Q8.8 input in its host load, runs it on a fresh
 * simulator and compares every UB word the program writes with the compiler's prediction
 * (tt_compiled_check, rule 11) before it reads the outputs. No global state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/lower.h"
#include "num/num.h"
#include "targets/tinytpu/compile.h"
#include "targets/tinytpu/train.h"

#define TT_LOWER_LANES 16u

typedef struct seg {
    tt_net net;            /* inference, B = 1; net.X is the input, filled per inference */
    size_t layer0, layers; /* the plan layers it runs */
    unsigned o0, outs;     /* output columns o0 .. o0 + outs - 1 of its last layer */
    uint64_t macs;
} seg;

typedef struct tt_session {
    const npk_plan *p;
    unsigned N, S;
    seg *segs;
    size_t n_segs;
    int16_t *cur, *next;   /* the activations between segments */
    size_t widest;
    unsigned saturated;    /* weights and biases that saturated in the Q8.8 conversion */
} tt_session;

static int parse_settings(const char *s, unsigned *N, unsigned *S, char *err, size_t err_size)
{
    *N = TT_LOWER_LANES, *S = 0; /* S 0: the largest UB for the lanes */
    while (s && *s) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        char key[32];
        unsigned long v = 0;
        char *end = NULL;
        const char *eq = memchr(s, '=', n);
        if (eq && (size_t)(eq - s) < sizeof key) {
            memcpy(key, s, (size_t)(eq - s));
            key[eq - s] = 0;
            v = strtoul(eq + 1, &end, 0);
        }
        if (!eq || !end || end != s + n || eq[1] == '-' || end == eq + 1 ||
            (strcmp(key, "lanes") && strcmp(key, "ub_words"))) {
            snprintf(err, err_size, "tinytpu setting '%.*s': the settings are lanes=N (2..%u, "
                     "default %u) and ub_words=S (default the largest: 65536, 32768 for lanes=2)",
                     (int)n, s, TT_MAX_N, TT_LOWER_LANES);
            return -1;
        }
        if (!strcmp(key, "lanes")) {
            if (v < 2 || v > TT_MAX_N) {
                snprintf(err, err_size, "tinytpu: lanes=%lu out of range (2..%u)", v, TT_MAX_N);
                return -1;
            }
            *N = (unsigned)v;
        } else {
            if (v < 1) {
                snprintf(err, err_size, "tinytpu: ub_words=0: the UB needs at least 1 word");
                return -1;
            }
            *S = (unsigned)(v > TT_MAX_UB ? TT_MAX_UB + 1 : v);
        }
        s = e ? e + 1 : s + n;
    }
    unsigned most = *N == 2 ? TT_MAX_UB_N2 : TT_MAX_UB;
    if (!*S)
        *S = most;
    else if (*S > most) {
        snprintf(err, err_size, "tinytpu: ub_words out of range (1..%u for lanes=%u, spec C3)",
                 most, *N);
        return -1;
    }
    return 0;
}

/* The leaky-ReLU α that gives the layer's activation (A9.3), or -1 with the reason. */
static int layer_alpha(const npk_plan *p, size_t i, uint16_t *alpha, char *err, size_t err_size)
{
    const npk_layer *l = &p->layers[i];
    if (l->kind != NPK_LAYER_DENSE)
        return npk_lower_fail(err, err_size, p, i, "tinytpu lowers dense layers only (this is "
                              "a%s %s layer%s)", l->kind == NPK_LAYER_ACT ? "n" : "",
                              npk_layer_kind_name(l->kind),
                              l->kind == NPK_LAYER_SOFTMAX ? "; the VPU has no exp" : "");
    switch (l->act) {
    case NPK_ACT_NONE: *alpha = 0x0100; return 0;   /* mul(h, 1.0) = h exactly (A3) */
    case NPK_ACT_RELU: *alpha = 0; return 0;
    case NPK_ACT_LEAKY_RELU: *alpha = (uint16_t)npk_q88_from_double(l->alpha); return 0;
    default:
        return npk_lower_fail(err, err_size, p, i, "activation %s: the tinytpu VPU has leaky "
                              "ReLU only (spec A9), so ReLU, LeakyRelu or none",
                              npk_act_name(l->act));
    }
}

static int16_t q88(double v, unsigned *sat)
{
    int16_t q = npk_q88_from_double(v);
    if (sat && (v >= 32767.5 / 256 || v < -32768.5 / 256))
        ++*sat;
    return q;
}

/* UB words of layers [a, e) in one program (inference, B = 1; docs/tinytpu-compiler.md). */
static unsigned long group_words(const npk_plan *p, size_t a, size_t e, unsigned N)
{
    unsigned long w = (unsigned long)p->layers[a].n_in;
    for (size_t i = a; i < e; i++) {
        unsigned long din = (unsigned long)p->layers[i].n_in, dout = (unsigned long)p->layers[i].n_out;
        w += dout * din + dout + (din + N - 1) / N * dout;
    }
    return w;
}

static void session_free(tt_session *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_segs; i++)
        tt_net_free(&s->segs[i].net);
    free(s->segs);
    free(s->cur);
    free(s->next);
    free(s);
}

static int add_seg(tt_session *s, size_t a, size_t e, unsigned o0, unsigned outs, char *err,
                   size_t err_size)
{
    const npk_plan *p = s->p;
    seg *ns = realloc(s->segs, (s->n_segs + 1) * sizeof *ns);
    if (!ns) {
        snprintf(err, err_size, "tinytpu: out of memory");
        return -1;
    }
    s->segs = ns;
    seg *g = &ns[s->n_segs++];
    memset(g, 0, sizeof *g);
    g->layer0 = a, g->layers = e - a, g->o0 = o0, g->outs = outs;
    tt_net *n = &g->net;
    n->N = s->N, n->ub_words = s->S, n->L = (unsigned)(e - a), n->B = 1, n->steps = 0;
    n->format = TT_FMT_ASM;
    for (size_t i = a; i < e; i++) {
        const npk_layer *l = &p->layers[i];
        unsigned k = (unsigned)(i - a);
        n->d[k] = (unsigned)l->n_in;
        n->d[k + 1] = i + 1 == e ? outs : (unsigned)l->n_out;
        if (layer_alpha(p, i, &n->layer_alpha[k], err, err_size))
            return -1;
        n->layer_alpha_set |= 1u << k;
        g->macs += (uint64_t)n->d[k] * n->d[k + 1];
    }
    if (tt_net_alloc(n)) {
        snprintf(err, err_size, "tinytpu: out of memory");
        return -1;
    }
    for (size_t i = a; i < e; i++) {
        const npk_layer *l = &p->layers[i];
        unsigned k = (unsigned)(i - a), r0 = i + 1 == e ? o0 : 0;
        for (unsigned o = 0; o < n->d[k + 1]; o++) {
            for (unsigned j = 0; j < n->d[k]; j++)
                n->W[k][(size_t)o * n->d[k] + j] =
                    q88(l->w[(size_t)(r0 + o) * (size_t)l->n_in + j], &s->saturated);
            n->b[k][o] = l->b ? q88(l->b[r0 + o], &s->saturated) : 0;
        }
    }
    return 0;
}

/* Cut the plan into programs that fit the UB (the sizes in the message otherwise). */
static int plan_segments(const npk_plan *p, const char *settings, tt_session **out, char *err,
                         size_t err_size)
{
    *out = NULL;
    tt_session *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, err_size, "tinytpu: out of memory");
        return -1;
    }
    s->p = p;
    if (parse_settings(settings, &s->N, &s->S, err, err_size))
        goto fail;
    if (!p->n_layers) {
        snprintf(err, err_size, "tinytpu: the plan has no layers");
        goto fail;
    }
    if (npk_lower_chain_only(p, "tinytpu", "its compiler runs chains of dense layers on single "
                             "vectors", err, err_size))
        goto fail;
    for (size_t i = 0; i < p->n_layers; i++) {
        uint16_t a;
        if (layer_alpha(p, i, &a, err, err_size))
            goto fail;
        const npk_layer *l = &p->layers[i];
        if ((size_t)l->n_in > s->widest)
            s->widest = (size_t)l->n_in;
        if ((size_t)l->n_out > s->widest)
            s->widest = (size_t)l->n_out;
    }
    const unsigned N = s->N, S = s->S;
    for (size_t a = 0; a < p->n_layers;) {
        size_t e = a;
        while (e < p->n_layers && e - a < TT_NET_MAX_LAYERS && group_words(p, a, e + 1, N) <= S)
            e++;
        if (e > a) {
            if (add_seg(s, a, e, 0, (unsigned)p->layers[e - 1].n_out, err, err_size))
                goto fail;
            a = e;
            continue;
        }
        /* one layer too large for the UB: chunks of output columns (each reads the input) */
        const npk_layer *l = &p->layers[a];
        unsigned long din = (unsigned long)l->n_in, per = din + 1 + (din + N - 1) / N;
        if (S < din + per) {
            npk_lower_fail(err, err_size, p, a, "the layer needs %lu UB words for its input "
                           "(%lu) and one output column (%lu weights, the bias and %lu partial "
                           "sums) but the UB has %u words (ub_words=%u)", din + per, din, din,
                           per - din - 1, S, S);
            goto fail;
        }
        unsigned long c = (S - din) / per;
        if (c >= N)
            c -= c % N;
        for (unsigned o0 = 0; o0 < (unsigned)l->n_out; o0 += (unsigned)c) {
            unsigned outs = (unsigned)l->n_out - o0 < c ? (unsigned)l->n_out - o0 : (unsigned)c;
            if (add_seg(s, a, a + 1, o0, outs, err, err_size))
                goto fail;
        }
        a++;
    }
    s->cur = calloc(s->widest, sizeof *s->cur);
    s->next = calloc(s->widest, sizeof *s->next);
    if (!s->cur || !s->next) {
        snprintf(err, err_size, "tinytpu: out of memory");
        goto fail;
    }
    *out = s;
    return 0;
fail:
    session_free(s);
    return -1;
}

static int tt_lower_open(const npk_plan *p, const char *settings, void **session, char *err,
                         size_t err_size)
{
    tt_session *s;
    if (plan_segments(p, settings, &s, err, err_size))
        return -1;
    *session = s;
    return 0;
}

static void tt_lower_close(void *session)
{
    session_free(session);
}

/* Compile segment g with its input in s->cur; on success c holds the program. */
static int compile_seg(tt_session *s, size_t gi, tt_compiled *c, char *err, size_t err_size)
{
    seg *g = &s->segs[gi];
    memcpy(g->net.X, s->cur, g->net.d[0] * sizeof *g->net.X);
    if (tt_compile(&g->net, c, err, err_size) == 0)
        return 0;
    char m[512];
    snprintf(m, sizeof m, "%s", err);
    return npk_lower_fail(err, err_size, s->p, g->layer0, "tinytpu program %zu: %s", gi + 1, m);
}

/* After segment gi ran (outputs in s->next at o0): move on to the next layer's input. */
static void seg_done(tt_session *s, size_t gi)
{
    const seg *g = &s->segs[gi];
    const npk_layer *last = &s->p->layers[g->layer0 + g->layers - 1];
    if (g->o0 + g->outs == (unsigned)last->n_out) {
        int16_t *t = s->cur;
        s->cur = s->next;
        s->next = t;
    }
}

static int tt_lower_infer(void *session, const float *x, float *y, npk_lower_stats *st,
                          char *err, size_t err_size)
{
    tt_session *s = session;
    const npk_plan *p = s->p;
    size_t nin = (size_t)p->layers[0].n_in;
    memset(st, 0, sizeof *st);
    for (size_t i = 0; i < nin; i++)
        s->cur[i] = npk_q88_from_double((double)x[i]); /* A3: ties to even, then saturate */
    uint16_t *ub = malloc((size_t)s->S * sizeof *ub);
    if (!ub) {
        snprintf(err, err_size, "tinytpu: out of memory");
        return -1;
    }
    for (size_t gi = 0; gi < s->n_segs; gi++) {
        seg *g = &s->segs[gi];
        tt_compiled c;
        char name[16];
        if (compile_seg(s, gi, &c, err, err_size)) {
            tt_compiled_free(&c);
            free(ub);
            return -1;
        }
        long bad = tt_compiled_check(&g->net, &c, ub, err, err_size);
        snprintf(name, sizeof name, "H%u", g->net.L);
        const tt_region *r = tt_compiled_find(&c, name, 0);
        if (bad != 0 || !r) {
            char m[512];
            snprintf(m, sizeof m, "%s", bad ? err : "no output region");
            npk_lower_fail(err, err_size, p, g->layer0, "tinytpu program %zu: %s%s", gi + 1,
                           bad > 0 ? "the simulator differs from the compiler's prediction: "
                                   : "", m);
            tt_compiled_free(&c);
            free(ub);
            return -1;
        }
        for (unsigned o = 0; o < g->outs; o++) /* 1 x outs, row-major (B = 1) */
            s->next[g->o0 + o] = (int16_t)ub[r->addr + o];
        st->cycles += c.cycles;
        st->macs += g->macs;
        tt_compiled_free(&c);
        seg_done(s, gi);
    }
    free(ub);
    for (size_t i = 0; i < (size_t)p->layers[p->n_layers - 1].n_out; i++)
        y[i] = (float)npk_q88_to_double(s->cur[i]);
    st->instructions = st->cycles; /* one control word per cycle */
    st->utilisation = st->cycles ? (double)st->macs / ((double)st->cycles * s->N * s->N) : 0;
    return 0;
}

/* The stream(s), with the input 0: OUT for the first program, OUT's name with .2, .3, ...
 * before its extension for the others. The format from the extension (.port, .hex = wfull). */
static int tt_lower_compile(const npk_plan *p, const char *settings, const char *out_path,
                            FILE *note, char *err, size_t err_size)
{
    tt_session *s;
    if (plan_segments(p, settings, &s, err, err_size))
        return -1;
    const char *dot = strrchr(out_path, '.'), *slash = strrchr(out_path, '/');
    if (dot && slash && dot < slash)
        dot = NULL;
    tt_format f = TT_FMT_ASM;
    if (dot && !strcmp(dot, ".port"))
        f = TT_FMT_PORT;
    else if (dot && (!strcmp(dot, ".hex") || !strcmp(dot, ".wfull")))
        f = TT_FMT_WFULL;
    int rc = 0;
    size_t total = 0;
    for (size_t gi = 0; gi < s->n_segs && !rc; gi++) {
        seg *g = &s->segs[gi];
        g->net.format = f;
        tt_compiled c;
        char path[4096];
        if (gi == 0)
            snprintf(path, sizeof path, "%s", out_path);
        else
            snprintf(path, sizeof path, "%.*s.%zu%s", (int)(dot ? (size_t)(dot - out_path)
                                                                 : strlen(out_path)),
                     out_path, gi + 1, dot ? dot : "");
        rc = compile_seg(s, gi, &c, err, err_size);
        FILE *fo = rc ? NULL : fopen(path, "w");
        if (!rc && !fo)
            rc = npk_lower_fail(err, err_size, p, g->layer0, "cannot write %s", path);
        if (fo) {
            rc = tt_write_stream(&g->net, &c, "the model (tinytpu lowering)", fo, err, err_size);
            if (fclose(fo) != 0 && !rc)
                rc = npk_lower_fail(err, err_size, p, g->layer0, "cannot write %s", path);
        }
        if (!rc) {
            char set[128];
            tt_run_settings(&g->net, set, sizeof set);
            const npk_layer *l = &p->layers[g->layer0 + g->layers - 1];
            fprintf(note, "tinytpu program %zu: layers %zu..%zu", gi + 1, g->layer0,
                    g->layer0 + g->layers - 1);
            if (g->outs != (unsigned)l->n_out)
                fprintf(note, " (outputs %u..%u of %d)", g->o0, g->o0 + g->outs - 1, l->n_out);
            fprintf(note, ": %zu cycles, %u of %u UB words -> %s\n", c.cycles, c.words, s->S,
                    path);
            fprintf(note, "  run with: npukit run -t tinytpu:%s %s (the input is the host "
                          "load's first %u words, X; the output H%u at UB word %u)\n", set, path,
                    g->net.d[0], g->net.L, c.words - g->outs);
            total += c.cycles;
        }
        tt_compiled_free(&c);
        seg_done(s, gi);
    }
    if (!rc) {
        fprintf(note, "tinytpu: %zu program%s, %zu cycles per inference (lanes=%u, "
                      "ub_words=%u); Q8.8 weights and biases, %u saturated; the programs are "
                      "written with X = 0 (every program): npukit run-model puts each input, and "
                      "each program's output, into the next host load\n", s->n_segs, s->n_segs == 1 ? "" : "s", total, s->N, s->S,
                s->saturated);
        if (s->n_segs > 1)
            fprintf(note, "  each program's output is the next one's input X (output column "
                          "chunks concatenated)\n");
    }
    session_free(s);
    return rc;
}

const npk_lower_target npk_lower_tinytpu = {
    "tinytpu", tt_lower_compile, tt_lower_open, tt_lower_infer, tt_lower_close, NULL,
};

/* ---- training steps (train.h) -------------------------------------------------------------- */
struct tt_trainer {
    const npk_plan *p;
    tt_net net;            /* the job: B, widths, α per layer, lr; X, Y, W, b its buffers */
    unsigned saturated;
    int split;             /* steps run as several programs (two layers, too large for one) */
    unsigned chunk;        /* layer-1 outputs per program of a split step */
    int16_t *z1, *dz1;     /* B x d1: Z_1 and dZ_1 between the programs of a split step */
};

/* A one-program job of a split step, for the shapes of t->net: kind 'f' the forward of
 * layer-1 outputs o0 .. o0 + c - 1 (a tiled inference, α 1.0: Z_1), 't' the training of a
 * [d1 -> d1 -> d2] net whose first layer is the identity with b 0 and layer 1's α (X = Z_1:
 * H_1 = lrelu(Z_1), so its dZ_1 is layer 1's), 'u' the update of those rows of W_1 and b_1
 * from X and dZ_1 (update_only). Values are copied from t. 0 or -1. */
static int split_job(const tt_trainer *t, int kind, unsigned o0, unsigned c, tt_net *j)
{
    const tt_net *n = &t->net;
    const unsigned B = n->B, d0 = n->d[0], d1 = n->d[1], d2 = n->d[2];
    memset(j, 0, sizeof *j);
    j->N = n->N, j->ub_words = n->ub_words, j->B = B, j->tile = 1, j->format = TT_FMT_ASM;
    j->lr = n->lr, j->alpha = 0x0100, j->layer_alpha_set = kind == 't' ? 3 : 1;
    j->layer_alpha[0] = 0x0100;
    if (kind == 't') {
        j->L = 2, j->d[0] = d1, j->d[1] = d1, j->d[2] = d2, j->steps = 1;
        j->layer_alpha[0] = n->layer_alpha[0], j->layer_alpha[1] = n->layer_alpha[1];
    } else {
        j->L = 1, j->d[0] = d0, j->d[1] = c, j->steps = kind == 'u', j->update_only = kind == 'u';
    }
    if (tt_net_alloc(j))
        return -1;
    if (kind == 't') {
        memcpy(j->X, t->z1, (size_t)B * d1 * sizeof *j->X);
        memcpy(j->Y, n->Y, (size_t)B * d2 * sizeof *j->Y);
        for (unsigned i = 0; i < d1; i++)
            j->W[0][(size_t)i * d1 + i] = 0x0100;
        memcpy(j->W[1], n->W[1], (size_t)d2 * d1 * sizeof *j->W[1]);
        memcpy(j->b[1], n->b[1], d2 * sizeof *j->b[1]);
        return 0;
    }
    memcpy(j->X, n->X, (size_t)B * d0 * sizeof *j->X);
    memcpy(j->W[0], n->W[0] + (size_t)o0 * d0, (size_t)c * d0 * sizeof *j->W[0]);
    memcpy(j->b[0], n->b[0] + o0, c * sizeof *j->b[0]);
    for (unsigned r = 0; kind == 'u' && r < B; r++)
        memcpy(j->Y + (size_t)r * c, t->dz1 + (size_t)r * d1 + o0, c * sizeof *j->Y);
    return 0;
}

/* Compile, run and self-check job j; ub receives the simulated UB; stats added to st. */
static int run_job(tt_net *j, tt_compiled *c, uint16_t *ub, tt_train_stats *st, const char *what,
                   char *err, size_t err_size)
{
    if (tt_compile(j, c, err, err_size)) {
        char m[768];
        snprintf(m, sizeof m, "%s", err);
        snprintf(err, err_size, "tinytpu training step, %s: %s", what, m);
        return -1;
    }
    long bad = tt_compiled_check(j, c, ub, err, err_size);
    if (bad) {
        char m[768];
        snprintf(m, sizeof m, "%s", err);
        snprintf(err, err_size, "tinytpu training step, %s: %s%s", what, bad > 0 ? "the simulator "
                 "differs from the compiler's prediction: " : "", m);
        return -1;
    }
    st->cycles += c->cycles, st->load_cycles += c->load_cycles;
    st->words = c->words > st->words ? c->words : st->words;
    return 0;
}

/* Whether the jobs of a split step with `c` layer-1 outputs per program fit the UB. */
static int split_fits(tt_trainer *t, unsigned c)
{
    char e[256];
    for (int k = 0; k < 2; k++) {
        tt_net j;
        tt_compiled cc;
        if (split_job(t, k ? 'u' : 'f', 0, c, &j)) {
            tt_net_free(&j);
            return 0;
        }
        int rc = tt_compile(&j, &cc, e, sizeof e);
        tt_compiled_free(&cc);
        tt_net_free(&j);
        if (rc)
            return 0;
    }
    return 1;
}

/* The forward of layer 1 by chunks into t->z1 (X from t->net). */
static int split_forward(tt_trainer *t, uint16_t *ub, tt_train_stats *st, char *err, size_t n)
{
    const tt_net *nt = &t->net;
    const unsigned B = nt->B, d1 = nt->d[1];
    int16_t *blk = malloc((size_t)B * t->chunk * sizeof *blk);
    int rc = blk ? 0 : -1;
    if (!blk)
        snprintf(err, n, "tinytpu: out of memory");
    for (unsigned o0 = 0; o0 < d1 && !rc; o0 += t->chunk) {
        unsigned c = d1 - o0 < t->chunk ? d1 - o0 : t->chunk;
        tt_net j;
        tt_compiled cc;
        memset(&cc, 0, sizeof cc);
        char what[64];
        snprintf(what, sizeof what, "forward of layer 1, outputs %u..%u", o0, o0 + c - 1);
        rc = split_job(t, 'f', o0, c, &j);
        if (rc)
            snprintf(err, n, "tinytpu: out of memory");
        else
            rc = run_job(&j, &cc, ub, st, what, err, n);
        if (!rc && tt_compiled_matrix(&j, &cc, ub, "H1", 0, B, c, blk))
            rc = -1, snprintf(err, n, "tinytpu: no H1 in the map of %s", what);
        for (unsigned r = 0; r < B && !rc; r++)
            memcpy(t->z1 + (size_t)r * d1 + o0, blk + (size_t)r * c, c * sizeof *blk);
        tt_compiled_free(&cc);
        tt_net_free(&j);
    }
    free(blk);
    return rc;
}

/* One step as several programs (docs/models.md, "Training on tinytpu"): the forward of layer 1
 * by chunks, the training program of layer 2 (and dZ_1), the updates of layer 1 by chunks. The
 * host copies words between them, no arithmetic. */
static int split_step(tt_trainer *t, int eval, tt_train_stats *st, char *err, size_t n)
{
    tt_net *nt = &t->net;
    const unsigned B = nt->B, d0 = nt->d[0], d1 = nt->d[1], d2 = nt->d[2];
    uint16_t *ub = malloc((size_t)nt->ub_words * sizeof *ub);
    int16_t *blk = malloc((size_t)t->chunk * (d0 > B ? d0 : B) * sizeof *blk);
    tt_net j;
    tt_compiled cc;
    memset(&j, 0, sizeof j), memset(&cc, 0, sizeof cc);
    int rc = -1;
    if (!ub || !blk) {
        snprintf(err, n, "tinytpu: out of memory");
        goto out;
    }
    if (split_forward(t, ub, st, err, n))
        goto out;
    if (split_job(t, 't', 0, 0, &j) || run_job(&j, &cc, ub, st, "layer 2 and dZ1", err, n))
        goto out;
    if (tt_compiled_params(&j, &cc, ub, 1, nt->W[1], nt->b[1]) ||
        tt_compiled_matrix(&j, &cc, ub, "dZ1", 0, B, d1, t->dz1)) {
        snprintf(err, n, "tinytpu: no W2, b2 or dZ1 in the map of the layer-2 program");
        goto out;
    }
    st->loss = cc.loss[0];
    tt_compiled_free(&cc), tt_net_free(&j);
    for (unsigned o0 = 0; o0 < d1; o0 += t->chunk) {
        unsigned c = d1 - o0 < t->chunk ? d1 - o0 : t->chunk;
        char what[64];
        snprintf(what, sizeof what, "update of layer 1, outputs %u..%u", o0, o0 + c - 1);
        if (split_job(t, 'u', o0, c, &j) || run_job(&j, &cc, ub, st, what, err, n))
            goto out;
        if (tt_compiled_params(&j, &cc, ub, 0, nt->W[0] + (size_t)o0 * d0, nt->b[0] + o0)) {
            snprintf(err, n, "tinytpu: no W1 in the map of %s", what);
            goto out;
        }
        tt_compiled_free(&cc), tt_net_free(&j);
    }
    if (eval) { /* the loss after the update: layer 1 by chunks, then [I, W2] as an inference */
        tt_train_stats e = {0};
        if (split_forward(t, ub, &e, err, n) || split_job(t, 't', 0, 0, &j))
            goto out;
        j.steps = 0;
        if (run_job(&j, &cc, ub, &e, "the evaluation", err, n))
            goto out;
        int16_t *h = malloc((size_t)B * d2 * sizeof *h);
        if (!h || tt_compiled_matrix(&j, &cc, ub, "H2", 0, B, d2, h)) {
            free(h);
            snprintf(err, n, "tinytpu: no H2 in the map of the evaluation");
            goto out;
        }
        double loss = 0;
        for (size_t i = 0; i < (size_t)B * d2; i++) {
            double dd = (h[i] - nt->Y[i]) / 256.0;
            loss += dd * dd;
        }
        free(h);
        st->loss_after = loss / ((double)B * d2);
        st->cycles += e.cycles, st->load_cycles += e.load_cycles;
        st->words = e.words > st->words ? e.words : st->words;
    }
    rc = 0;
out:
    tt_compiled_free(&cc);
    tt_net_free(&j);
    free(ub);
    free(blk);
    return rc;
}

int tt_train_open(const npk_plan *p, const char *settings, double lr, unsigned batch,
                  tt_trainer **out, char *err, size_t err_size)
{
    *out = NULL;
    tt_trainer *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, err_size, "tinytpu: out of memory");
        return -1;
    }
    t->p = p;
    tt_net *n = &t->net;
    if (parse_settings(settings, &n->N, &n->ub_words, err, err_size))
        goto fail;
    if (!p->n_layers || p->n_layers > TT_NET_MAX_LAYERS) {
        snprintf(err, err_size, "tinytpu: training takes 1 to %u dense layers (the plan has "
                 "%zu)", TT_NET_MAX_LAYERS, p->n_layers);
        goto fail;
    }
    if (batch < 1 || batch > 65535) {
        snprintf(err, err_size, "tinytpu: batch %u out of range (1..65535)", batch);
        goto fail;
    }
    int16_t qlr = npk_q88_from_double(lr);
    if (!(lr > 0) || qlr <= 0) {
        snprintf(err, err_size, "tinytpu: the learning rate %g is %s in Q8.8 (A3: the smallest "
                 "step is 1/256 = 0.00390625, the largest 127.996)", lr,
                 lr > 0 ? "0" : "not positive");
        goto fail;
    }
    n->L = (unsigned)p->n_layers, n->B = batch, n->steps = 1, n->tile = 1;
    n->format = TT_FMT_ASM, n->lr = (uint16_t)qlr, n->alpha = 0x0100;
    for (size_t i = 0; i < p->n_layers; i++) {
        const npk_layer *l = &p->layers[i];
        if (layer_alpha(p, i, &n->layer_alpha[i], err, err_size))
            goto fail;
        if (i + 1 == p->n_layers && n->layer_alpha[i] == 0) {
            npk_lower_fail(err, err_size, p, i, "the output layer's %s: its derivative stage "
                           "tests the sign of H (spec A9.3), which is never negative after "
                           "ReLU, so the gradient would pass where it must be 0 (a hidden "
                           "layer keeps Z for that; train the output without activation or "
                           "with LeakyRelu)", npk_act_name(l->act));
            goto fail;
        }
        n->layer_alpha_set |= 1u << i;
        if (i == 0)
            n->d[0] = (unsigned)l->n_in;
        else if (l->n_in != p->layers[i - 1].n_out) {
            npk_lower_fail(err, err_size, p, i, "input of %d but the layer before has %d outputs",
                           l->n_in, p->layers[i - 1].n_out);
            goto fail;
        }
        if (l->n_in > 65535 || l->n_out > 65535) {
            npk_lower_fail(err, err_size, p, i, "a layer of %d x %d: widths up to 65535", l->n_out,
                           l->n_in);
            goto fail;
        }
        n->d[i + 1] = (unsigned)l->n_out;
    }
    if (tt_net_alloc(n)) {
        snprintf(err, err_size, "tinytpu: out of memory");
        goto fail;
    }
    for (size_t i = 0; i < p->n_layers; i++) {
        const npk_layer *l = &p->layers[i];
        for (size_t k = 0; k < (size_t)l->n_out * (size_t)l->n_in; k++)
            n->W[i][k] = q88(l->w[k], &t->saturated);
        for (int o = 0; o < l->n_out; o++)
            n->b[i][o] = l->b ? q88(l->b[o], &t->saturated) : 0;
    }
    *out = t;
    return 0;
fail:
    tt_net_free(&t->net);
    free(t);
    return -1;
}

int tt_train_step(tt_trainer *t, const float *x, const float *y, int eval, tt_train_stats *st,
                  char *err, size_t err_size)
{
    tt_net *n = &t->net;
    const unsigned L = n->L;
    memset(st, 0, sizeof *st);
    for (size_t i = 0; i < (size_t)n->B * n->d[0]; i++)
        n->X[i] = npk_q88_from_double((double)x[i]); /* A3: ties to even, then saturate */
    for (size_t i = 0; i < (size_t)n->B * n->d[L]; i++)
        n->Y[i] = npk_q88_from_double((double)y[i]);
    n->eval = eval;
    tt_compiled c;
    memset(&c, 0, sizeof c);
    uint16_t *ub = malloc((size_t)n->ub_words * sizeof *ub);
    int rc = -1;
    if (!ub) {
        memset(&c, 0, sizeof c);
        snprintf(err, err_size, "tinytpu: out of memory");
        goto out;
    }
    if (!t->split && tt_compile(n, &c, err, err_size)) {
        char m[768];
        snprintf(m, sizeof m, "%s", err);
        tt_compiled_free(&c);
        /* too large for one program: two layers are split into several */
        if (L == 2 && strstr(m, "but the UB has")) {
            unsigned N = n->N, d1 = n->d[1];
            t->z1 = calloc((size_t)n->B * d1, sizeof *t->z1);
            t->dz1 = calloc((size_t)n->B * d1, sizeof *t->dz1);
            if (!t->z1 || !t->dz1) {
                snprintf(err, err_size, "tinytpu: out of memory");
                goto out;
            }
            for (unsigned ch = d1; ch >= 1 && !t->split; ch = ch > N ? ch - (ch % N ? ch % N : N) : ch - 1)
                if (split_fits(t, ch))
                    t->split = 1, t->chunk = ch;
        }
        if (!t->split) {
            snprintf(err, err_size, "tinytpu training step (lanes=%u, ub_words=%u, batch %u): %s%s",
                     n->N, n->ub_words, n->B, m, L == 2 ? "; and no split into several "
                     "programs fits either" : " (only two-layer nets are split into several "
                     "programs)");
            goto out;
        }
    }
    if (t->split) {
        rc = split_step(t, eval, st, err, err_size);
        goto out;
    }
    long bad = tt_compiled_check(n, &c, ub, err, err_size);
    if (bad) {
        char m[768];
        snprintf(m, sizeof m, "%s", err);
        snprintf(err, err_size, "tinytpu training step: %s%s", bad > 0 ? "the simulator "
                 "differs from the compiler's prediction: " : "", m);
        goto out;
    }
    for (unsigned l = 0; l < L; l++)
        if (tt_compiled_params(n, &c, ub, l, n->W[l], n->b[l])) {
            snprintf(err, err_size, "tinytpu training step: no parameters W%u in the map", l + 1);
            goto out;
        }
    st->loss = c.loss[0];
    st->loss_after = eval ? c.eval_loss : 0;
    st->cycles = c.cycles, st->load_cycles = c.load_cycles, st->words = c.words;
    rc = 0;
out:
    tt_compiled_free(&c);
    free(ub);
    return rc;
}

void tt_train_params(const tt_trainer *t, size_t i, float *w, float *b)
{
    const tt_net *n = &t->net;
    size_t nw = (size_t)n->d[i + 1] * n->d[i];
    for (size_t k = 0; k < nw; k++)
        w[k] = (float)npk_q88_to_double(n->W[i][k]);
    for (unsigned o = 0; o < n->d[i + 1]; o++)
        b[o] = (float)npk_q88_to_double(n->b[i][o]);
}

unsigned tt_train_saturated(const tt_trainer *t)
{
    return t->saturated;
}

double tt_train_lr(const tt_trainer *t)
{
    return npk_q88_to_double((int16_t)t->net.lr);
}

unsigned tt_train_programs(const tt_trainer *t)
{
    return t->split ? 2 * ((t->net.d[1] + t->chunk - 1) / t->chunk) + 1 : 1;
}

void tt_train_close(tt_trainer *t)
{
    if (!t)
        return;
    free(t->z1);
    free(t->dz1);
    tt_net_free(&t->net);
    free(t);
}
