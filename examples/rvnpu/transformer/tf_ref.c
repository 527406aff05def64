/* Host reference of the transformer firmware; see tf_ref.h. Written independently of
 * transformer.c from spec §13.3 and §6.2. Compiled with -ffp-contract=off: every binary32
 * or binary64 operation below is rounded on its own, and fused multiply-adds happen only
 * where fmaf is written (where the firmware executes FMADD.S). */
#include "tf_ref.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define TF_FMAF(a, b, c) fmaf((a), (b), (c))
#define TF_SQRTF(x) sqrtf(x)
#include "tf_plain_math.h"

int tf_ref_load(const char *path, tf_weights *w, char *err, size_t err_size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "cannot open weights '%s': %s", path, strerror(errno));
        return -1;
    }
    size_t got = fread(w, 1, sizeof *w, f);
    int extra = fgetc(f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, err_size, "cannot read weights '%s'", path);
        return -1;
    }
    if (got != sizeof *w || extra != EOF) {
        snprintf(err, err_size, "weights '%s' must be exactly %d bytes (%d float32 values)",
                 path, TF_FILE_SIZE, TF_N_PARAMS);
        return -1;
    }
    return 0;
}

/* ---- the FP NPU, as spec §6.2 defines it (TF_REF_NPU), or the plain build's loops ---------- */

typedef struct npu {
    tf_ref_mode mode;
    double facc;   /* NPU: binary64 accumulator */
    float pacc;    /* plain: the firmware's binary32 stand-in */
} npu;

static const uint32_t F32_INF = 0x7F800000u;

static float f32_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* rne32 of §0: C's double -> float conversion on this host is IEEE RNE with overflow to inf;
 * NaN results are canonical. */
static float rne32(double d)
{
    return isnan(d) ? f32_of(0x7FC00000u) : (float)d;
}

static float quiet(float v)
{
    return f32_of(bits_of(v) | 0x00400000u);
}

static void fvmac(npu *n, const float *a, const float *b, int len)
{
    for (int i = 0; i < len; i++) {
        if (n->mode == TF_REF_NPU)
            n->facc = n->facc + (double)a[i] * (double)b[i]; /* exact product, one rounding */
        else
            n->pacc = fmaf(a[i], b[i], n->pacc);
    }
    if (n->mode == TF_REF_NPU && isnan(n->facc))
        n->facc = NAN;
}

static float frstacc(npu *n)
{
    float r;
    if (n->mode == TF_REF_NPU) {
        r = rne32(n->facc);
        n->facc = 0.0;
    } else {
        r = n->pacc;
        n->pacc = 0.0f;
    }
    return r;
}

static void fmacc(npu *n, float a, float b)
{
    fvmac(n, &a, &b, 1);
}

static void fvexp(const npu *n, const float *src, float *dst, int len)
{
    for (int i = 0; i < len; i++) {
        float v = src[i], r;
        if (n->mode == TF_REF_PLAIN)
            r = tf_expf(v);
        else if (isnan(v))
            r = quiet(v);
        else if (bits_of(v) == F32_INF)
            r = v;
        else if (bits_of(v) == (F32_INF | 0x80000000u))
            r = 0.0f;
        else
            r = rne32(exp((double)v));
        dst[i] = r;
    }
}

static void fvmul(const npu *n, const float *src, float *dst, int len)
{
    float s = n->mode == TF_REF_NPU ? rne32(n->facc) : n->pacc;
    for (int i = 0; i < len; i++) {
        float r = src[i] * s;
        dst[i] = isnan(r) && n->mode == TF_REF_NPU ? f32_of(0x7FC00000u) : r;
    }
}

static float fvreduce(const npu *n, const float *p, int len)
{
    if (n->mode == TF_REF_PLAIN) {
        float t = 0.0f;
        for (int i = 0; i < len; i++)
            t = t + p[i];
        return t;
    }
    double t = 0.0;
    for (int i = 0; i < len; i++)
        t = t + (double)p[i];
    return rne32(t);
}

static float fvmax(const npu *n, const float *p, int len)
{
    float best = f32_of(F32_INF | 0x80000000u);
    int nan = 0;
    for (int i = 0; i < len; i++) {
        if (isnan(p[i]))
            nan = 1;
        else if (p[i] > best)
            best = p[i];
    }
    /* The plain loop's `p[i] > m` skips NaNs as well but returns the maximum of the rest. */
    return nan && n->mode == TF_REF_NPU ? f32_of(0x7FC00000u) : best;
}

static float fgelu(const npu *n, float v)
{
    if (n->mode == TF_REF_PLAIN)
        return tf_gelu_plain(v);
    if (isnan(v))
        return quiet(v);
    if (bits_of(v) == F32_INF)
        return v;
    if (bits_of(v) == (F32_INF | 0x80000000u))
        return 0.0f;
    double xd = (double)v;
    double g = (0.5 * xd) * (1.0 + erf(xd / sqrt(2.0)));
    return rne32(g);
}

/* FVRSQRT of the float at *pm (seed; FRSQRT in rev2 is the same function of the value). */
static float frsqrt(const npu *n, const float *pm)
{
    float v = *pm;
    if (n->mode == TF_REF_PLAIN)
        return tf_rsqrt_plain(v);
    if (isnan(v) || (v < 0.0f))
        return f32_of(0x7FC00000u);
    if (v == 0.0f)
        return f32_of(F32_INF);
    if (bits_of(v) == F32_INF)
        return 0.0f;
    return rne32(1.0 / sqrt((double)v));
}

/* ---- the model (spec §13.3, "Firmware computation") -------------------------------------------- */

typedef struct model_state {
    npu n;
    const tf_weights *w;
    float k[TF_LAYERS][TF_CTX][TF_DIM];
    float v[TF_LAYERS][TF_CTX][TF_DIM];
    float x[TF_DIM];
} model_state;

static void linear(npu *n, float *out, const float *w, const float *b, const float *in,
                   int n_out, int n_in)
{
    for (int i = 0; i < n_out; i++) {
        fvmac(n, w + (size_t)i * n_in, in, n_in);
        out[i] = frstacc(n) + b[i];
    }
}

static void rmsnorm(npu *n, float *out, const float *v, const float *g)
{
    fvmac(n, v, v, TF_DIM);
    float sum = frstacc(n);
    float m = sum / 64.0f + 1e-5f;
    float r = frsqrt(n, &m);
    for (int i = 0; i < TF_DIM; i++)
        out[i] = (v[i] * g[i]) * r;
}

static void softmax(npu *n, float *sc, float *pr, int len)
{
    float m = fvmax(n, sc, len);
    for (int t = 0; t < len; t++)
        sc[t] = sc[t] - m;
    fvexp(n, sc, pr, len);
    float s = fvreduce(n, pr, len);
    (void)frstacc(n);
    float inv = 1.0f / s;
    fmacc(n, inv, 1.0f);
    fvmul(n, pr, pr, len);
    (void)frstacc(n);
}

static void step(model_state *s, int tok, int p)
{
    npu *n = &s->n;
    const tf_weights *w = s->w;
    float h[TF_DIM], q[TF_DIM], att[TF_DIM], proj[TF_DIM], ff[TF_FF];
    float sc[TF_CTX], pr[TF_CTX];

    for (int i = 0; i < TF_DIM; i++)
        s->x[i] = w->tok[tok][i] + w->pos[p][i];
    for (int l = 0; l < TF_LAYERS; l++) {
        const tf_layer *L = &w->layer[l];
        rmsnorm(n, h, s->x, L->g1);
        linear(n, q, &L->wq[0][0], L->bq, h, TF_DIM, TF_DIM);
        linear(n, s->k[l][p], &L->wk[0][0], L->bk, h, TF_DIM, TF_DIM);
        linear(n, s->v[l][p], &L->wv[0][0], L->bv, h, TF_DIM, TF_DIM);
        float sixteen = 16.0f;
        float c = frsqrt(n, &sixteen);
        for (int hd = 0; hd < TF_HEADS; hd++) {
            int o = hd * TF_HEAD_DIM;
            for (int t = 0; t <= p; t++) {
                fvmac(n, q + o, s->k[l][t] + o, TF_HEAD_DIM);
                sc[t] = frstacc(n) * c;
            }
            softmax(n, sc, pr, p + 1);
            for (int d = 0; d < TF_HEAD_DIM; d++) {
                float acc = 0.0f;
                for (int t = 0; t <= p; t++)
                    acc = fmaf(pr[t], s->v[l][t][o + d], acc); /* FMADD.S */
                att[o + d] = acc;
            }
        }
        linear(n, proj, &L->wo[0][0], L->bo, att, TF_DIM, TF_DIM);
        for (int i = 0; i < TF_DIM; i++)
            s->x[i] = s->x[i] + proj[i];
        rmsnorm(n, h, s->x, L->g2);
        linear(n, ff, &L->w1[0][0], L->b1, h, TF_FF, TF_DIM);
        for (int i = 0; i < TF_FF; i++)
            ff[i] = fgelu(n, ff[i]);
        linear(n, proj, &L->w2[0][0], L->b2, ff, TF_DIM, TF_FF);
        for (int i = 0; i < TF_DIM; i++)
            s->x[i] = s->x[i] + proj[i];
    }
}

static int predict(model_state *s, float *logits)
{
    npu *n = &s->n;
    float h[TF_DIM];
    rmsnorm(n, h, s->x, s->w->gf);
    float best = -1e30f;
    int arg = 0;
    for (int v = 0; v < TF_VOCAB; v++) {
        fvmac(n, s->w->wout[v], h, TF_DIM);
        float logit = frstacc(n) + s->w->bout[v];
        if (logits)
            logits[v] = logit;
        if (logit > best) {
            best = logit;
            arg = v;
        }
    }
    return arg;
}

size_t tf_ref_run(const tf_weights *w, tf_ref_mode mode, const uint8_t *tokens, int32_t n_tokens,
                  int32_t n_generate, uint8_t *out, int *exit_status, float *logits,
                  tf_ref_state *state)
{
    model_state s; /* about 33 KB */
    size_t len = 0;
    int positions = 0;
    if (state)
        memset(state, 0, sizeof *state);
    if (n_tokens < 1 || n_tokens > TF_CTX) {
        *exit_status = 1;
        return 0;
    }
    memset(&s, 0, sizeof s);
    s.n.mode = mode;
    s.w = w;
    memcpy(out, tokens, (size_t)n_tokens);
    len = (size_t)n_tokens;
    memcpy(out + len, "\n> ", 3);
    len += 3;
    for (int p = 0; p < n_tokens; p++)
        step(&s, tokens[p], positions++);
    int n_gen = n_generate > 0 ? n_generate : TF_CTX;
    for (int i = 0; i < n_gen; i++) {
        int c = predict(&s, i == 0 ? logits : NULL);
        out[len++] = (uint8_t)c;
        if (n_tokens + i >= TF_CTX || i + 1 >= n_gen)
            break;
        step(&s, c, positions++);
    }
    out[len++] = '\n';
    if (state) {
        memcpy(state->k, s.k, sizeof s.k);
        memcpy(state->v, s.v, sizeof s.v);
        memcpy(state->x, s.x, sizeof s.x);
        state->positions = positions;
    }
    *exit_status = 0;
    return len;
}
