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
            *S = (unsigned)(v > 65536 ? 65537 : v);
        }
        s = e ? e + 1 : s + n;
    }
    unsigned most = *N == 2 ? 32768u : 65536u;
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
    "tinytpu", tt_lower_compile, tt_lower_open, tt_lower_infer, tt_lower_close,
};

/* ---- training steps (train.h) -------------------------------------------------------------- */
struct tt_trainer {
    const npk_plan *p;
    tt_net net;            /* the job: B, widths, α per layer, lr; X, Y, W, b its buffers */
    unsigned saturated;
};

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
    uint16_t *ub = malloc((size_t)n->ub_words * sizeof *ub);
    int rc = -1;
    if (!ub) {
        memset(&c, 0, sizeof c);
        snprintf(err, err_size, "tinytpu: out of memory");
        goto out;
    }
    if (tt_compile(n, &c, err, err_size)) {
        char m[768];
        snprintf(m, sizeof m, "%s", err);
        snprintf(err, err_size, "tinytpu training step (lanes=%u, ub_words=%u, batch %u): %s",
                 n->N, n->ub_words, n->B, m);
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

void tt_train_close(tt_trainer *t)
{
    if (!t)
        return;
    tt_net_free(&t->net);
    free(t);
}
