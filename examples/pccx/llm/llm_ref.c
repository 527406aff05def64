/* Binary64 reference of the decoder layer that pccx_llm.c issues as pccx instructions: Gemma
 * shaped (RMSNorm without offset, half-split RoPE, grouped-query softmax attention without
 * 1/sqrt(d) scaling, GELU-tanh gated FFN, residual adds). */
#include "llm_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ref_cache_init(ref_cache *rc, const llm_dims *d)
{
    size_t n = (size_t)d->n_kv_heads * d->max_pos * d->head_dim;
    rc->k = calloc(n, sizeof(double));
    rc->v = calloc(n, sizeof(double));
    if (!rc->k || !rc->v) {
        ref_cache_free(rc);
        return -1;
    }
    return 0;
}

void ref_cache_free(ref_cache *rc)
{
    free(rc->k);
    free(rc->v);
    rc->k = rc->v = NULL;
}

static void rmsnorm(uint32_t n, const double *x, const uint16_t *gamma, double eps, double *y)
{
    double ss = 0;
    for (uint32_t i = 0; i < n; i++)
        ss += x[i] * x[i];
    double r = 1.0 / sqrt(ss / n + eps);
    for (uint32_t i = 0; i < n; i++)
        y[i] = x[i] * r * llm_f32(gamma[i]);
}

/* y[n] = W x with W dequantised: code * scale (binary32 scale, exact in binary64) */
static void matvec(const llm_int4 *w, const double *x, double *y)
{
    for (uint32_t r = 0; r < w->n; r++) {
        double s = 0;
        for (uint32_t j = 0; j < w->k; j++)
            s += llm_int4_code(w, r, j) * x[j];
        y[r] = s * (double)w->scale[r];
    }
}

static double gelu_tanh(double t)
{
    const double k = 0.79788456080286535588; /* sqrt(2/pi) */
    return 0.5 * t * (1.0 + tanh(k * (t + 0.044715 * t * t * t)));
}

static void rope(const llm_dims *d, double *head, uint32_t pos)
{
    const uint32_t h = d->head_dim / 2;
    for (uint32_t j = 0; j < h; j++) {
        /* the model's frequencies are the BF16 values of base^(-2j/hd) */
        double om = llm_f32(llm_bf16((float)pow(d->rope_base, -2.0 * j / d->head_dim)));
        double th = pos * om, cs = cos(th), sn = sin(th);
        double x1 = head[j], x2 = head[j + h];
        head[j] = x1 * cs - x2 * sn;
        head[j + h] = x2 * cs + x1 * sn;
    }
}

void ref_layer(const llm_dims *d, const llm_layer_weights *w, ref_cache *cache, double *x,
               uint32_t pos)
{
    const uint32_t D = d->dim, H = d->n_heads, KV = d->n_kv_heads, hd = d->head_dim;
    const uint32_t F = d->ffn, T = d->max_pos, G = H / KV;
    double *h = malloc(sizeof(double) * (D + 3 * H * hd + 3 * F + T + D));
    if (!h)
        abort();
    double *q = h + D, *kv = q + H * hd, *att = kv + 2 * KV * hd, *g = att + H * hd;
    double *u = g + F, *p = u + F, *o = p + T;
    (void)F;
    rmsnorm(D, x, w->attn_norm, d->eps, h);
    matvec(&w->q, h, q);
    matvec(&w->k, h, kv);
    matvec(&w->v, h, kv + KV * hd);
    for (uint32_t i = 0; i < H; i++)
        rope(d, q + i * hd, pos);
    for (uint32_t i = 0; i < KV; i++) {
        rope(d, kv + i * hd, pos);
        memcpy(cache->k + ((size_t)i * T + pos) * hd, kv + i * hd, sizeof(double) * hd);
        memcpy(cache->v + ((size_t)i * T + pos) * hd, kv + (KV + i) * hd, sizeof(double) * hd);
    }
    for (uint32_t i = 0; i < H; i++) {
        const double *kc = cache->k + (size_t)(i / G) * T * hd;
        const double *vc = cache->v + (size_t)(i / G) * T * hd;
        double m = -INFINITY, sum = 0;
        for (uint32_t t = 0; t <= pos; t++) {
            double s = 0;
            for (uint32_t j = 0; j < hd; j++)
                s += q[i * hd + j] * kc[t * hd + j];
            p[t] = s;
            m = fmax(m, s);
        }
        for (uint32_t t = 0; t <= pos; t++)
            sum += (p[t] = exp(p[t] - m));
        for (uint32_t j = 0; j < hd; j++) {
            double a = 0;
            for (uint32_t t = 0; t <= pos; t++)
                a += p[t] / sum * vc[t * hd + j];
            att[i * hd + j] = a;
        }
    }
    matvec(&w->o, att, o);
    for (uint32_t i = 0; i < D; i++)
        x[i] += o[i];
    rmsnorm(D, x, w->ffn_norm, d->eps, h);
    matvec(&w->gate, h, g);
    matvec(&w->up, h, u);
    for (uint32_t i = 0; i < F; i++)
        u[i] *= gelu_tanh(g[i]);
    matvec(&w->down, u, o);
    for (uint32_t i = 0; i < D; i++)
        x[i] += o[i];
    free(h);
}

void ref_head(const llm_dims *d, const uint16_t *final_norm, const llm_int4 *head,
              const double *x, double *logits)
{
    double *h = malloc(sizeof(double) * d->dim);
    if (!h)
        abort();
    rmsnorm(d->dim, x, final_norm, d->eps, h);
    matvec(head, h, logits);
    free(h);
}
