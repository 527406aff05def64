/* The tiny byte language model of models/pccx_tinylm on pccx: weight file, greedy generation
 * through the host API, and the binary64 reference (tinylm_model.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm_ref.h"
#include "tinylm_model.h"


typedef struct reader {
    const uint8_t *p, *end;
    int bad;
} reader;

static const uint8_t *take(reader *r, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = 1;
        return NULL;
    }
    const uint8_t *at = r->p;
    r->p += n;
    return at;
}

static uint32_t take_u32(reader *r)
{
    const uint8_t *b = take(r, 4);
    return b ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24
             : 0;
}

static float take_f32(reader *r)
{
    uint32_t u = take_u32(r);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void take_bf16(reader *r, uint16_t *dst, size_t n)
{
    const uint8_t *b = take(r, 2 * n);
    for (size_t i = 0; b && i < n; i++)
        dst[i] = (uint16_t)(b[2 * i] | b[2 * i + 1] << 8);
}

/* scales (n binary32) then codes (n rows of ceil(k/2) bytes, spec §5.4 nibble order) */
static void take_int4(reader *r, llm_int4 *w, uint32_t k, uint32_t n)
{
    w->k = k;
    w->n = n;
    w->scale = malloc(sizeof(float) * n);
    w->codes = malloc((size_t)n * ((k + 1) / 2));
    if (!w->scale || !w->codes) {
        r->bad = 1;
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        w->scale[i] = take_f32(r);
    const uint8_t *b = take(r, (size_t)n * ((k + 1) / 2));
    if (b)
        memcpy(w->codes, b, (size_t)n * ((k + 1) / 2));
}

void tinylm_free(tinylm_model *m)
{
    free(m->emb);
    free(m->norms);
    for (uint32_t l = 0; l < LLM_MAX_LAYERS; l++) {
        llm_int4 *ws[7] = {&m->layer[l].q, &m->layer[l].k, &m->layer[l].v, &m->layer[l].o,
                           &m->layer[l].gate, &m->layer[l].up, &m->layer[l].down};
        for (int i = 0; i < 7; i++)
            llm_int4_free(ws[i]);
    }
    llm_int4_free(&m->head);
}

/* Layout: models/pccx_tinylm/README.md, "Weight file layout". */
int tinylm_parse(tinylm_model *m, const uint8_t *buf, size_t len, char *err, size_t err_len)
{
    memset(m, 0, sizeof *m);
    reader r = {buf, buf + len, 0};
    const uint8_t *magic = take(&r, 8);
    if (!magic || memcmp(magic, "PCXTLM01", 8)) {
        snprintf(err, err_len, "not a PCXTLM01 weight file");
        return -1;
    }
    llm_dims *d = &m->d;
    d->vocab = take_u32(&r);
    d->dim = take_u32(&r);
    d->n_layers = take_u32(&r);
    d->n_heads = take_u32(&r);
    d->n_kv_heads = take_u32(&r);
    d->head_dim = take_u32(&r);
    d->ffn = take_u32(&r);
    d->max_pos = take_u32(&r);
    d->rope_base = take_f32(&r);
    d->eps = take_f32(&r);
    if (r.bad || d->vocab != 256 || !d->dim || d->dim > 1024 || !d->n_layers ||
        d->n_layers > LLM_MAX_LAYERS || !d->n_heads || !d->n_kv_heads ||
        d->n_heads % d->n_kv_heads || !d->head_dim || d->head_dim > 256 || !d->ffn ||
        d->ffn > 4096 || !d->max_pos || d->max_pos > 1024) {
        snprintf(err, err_len, "unsupported header");
        return -1;
    }
    const uint32_t D = d->dim, QD = d->n_heads * d->head_dim, KD = d->n_kv_heads * d->head_dim;
    m->emb = malloc(2ull * d->vocab * D);
    m->norms = malloc(2ull * (2 * d->n_layers + 1) * D);
    if (!m->emb || !m->norms)
        r.bad = 1;
    else
        take_bf16(&r, m->emb, (size_t)d->vocab * D);
    for (uint32_t l = 0; l < d->n_layers && !r.bad; l++) {
        llm_layer_weights *w = &m->layer[l];
        uint16_t *an = m->norms + 2 * l * D, *fn = an + D;
        take_bf16(&r, an, D);
        take_int4(&r, &w->q, D, QD);
        take_int4(&r, &w->k, D, KD);
        take_int4(&r, &w->v, D, KD);
        take_int4(&r, &w->o, QD, D);
        take_bf16(&r, fn, D);
        take_int4(&r, &w->gate, D, d->ffn);
        take_int4(&r, &w->up, D, d->ffn);
        take_int4(&r, &w->down, d->ffn, D);
        w->attn_norm = an;
        w->ffn_norm = fn;
    }
    if (!r.bad) {
        take_bf16(&r, m->norms + 2 * d->n_layers * D, D);
        take_int4(&r, &m->head, D, d->vocab);
    }
    if (r.bad || r.p != r.end) {
        snprintf(err, err_len, "truncated or oversized weight file");
        tinylm_free(m);
        return -1;
    }
    return 0;
}


int tinylm_load(tinylm_model *m, const char *path, char *err, size_t err_len)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_len, "cannot open %s", path);
        return -1;
    }
    uint8_t *buf = malloc(1 << 21);
    size_t len = buf ? fread(buf, 1, 1 << 21, f) : 0;
    fclose(f);
    if (!buf) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    int rc = tinylm_parse(m, buf, len, err, err_len);
    free(buf);
    return rc;
}

int tinylm_setup(const tinylm_model *m, llm_ctx *c, pccx_t *px, int rope_host)
{
    int rc = llm_setup(c, px, &m->d, m->layer, m->norms + 2 * m->d.n_layers * m->d.dim, &m->head);
    c->rope_host = rope_host;
    return rc;
}

int tinylm_generate(const tinylm_model *m, llm_ctx *c, uint8_t *text, uint32_t plen,
                    uint32_t total, double *logits, uint64_t *cyc)
{
    const llm_dims *d = &m->d;
    const uint32_t D = d->dim, V = d->vocab;
    float *lf = malloc(sizeof(float) * V);
    double *row = malloc(sizeof(double) * V);
    if (!lf || !row) {
        free(lf);
        free(row);
        snprintf(c->where, sizeof c->where, "tinylm_generate: out of memory");
        return c->rc = PCCX_E_NOMEM;
    }
    pccx_stats_t st0, st1;
    for (uint32_t pos = 0; pos + 1 < total && c->rc == PCCX_OK; pos++) {
        pccx_stats(c->px, &st0);
        llm_begin_token(c, m->emb + (size_t)text[pos] * D, pos);
        for (uint32_t l = 0; l < d->n_layers; l++)
            llm_emit_layer(c, l, pos);
        if (pos + 1 >= plen) {        /* a prediction is needed from here on */
            llm_emit_head(c);
            if (llm_read_logits(c, lf) != PCCX_OK)
                break;
            for (uint32_t i = 0; i < V; i++)
                row[i] = lf[i];
            if (logits)
                memcpy(logits + (size_t)(pos + 1 - plen) * V, row, sizeof(double) * V);
            text[pos + 1] = (uint8_t)tinylm_argmax(row, V, NULL);
        } else {
            int rc = pccx_sync(c->px, 0);
            if (rc != PCCX_OK) {
                snprintf(c->where, sizeof c->where, "tinylm_generate: sync at position %u", pos);
                c->rc = rc;
                break;
            }
        }
        pccx_stats(c->px, &st1);
        if (cyc)
            cyc[pos] = st1.cycles - st0.cycles;
    }
    free(lf);
    free(row);
    return c->rc;
}

uint32_t tinylm_argmax(const double *v, uint32_t n, double *margin)
{
    uint32_t b = 0;
    for (uint32_t i = 1; i < n; i++)
        if (v[i] > v[b])
            b = i;
    double second = -INFINITY;
    for (uint32_t i = 0; i < n; i++)
        if (i != b && v[i] > second)
            second = v[i];
    if (margin)
        *margin = v[b] - second;
    return b;
}

/* The binary64 reference over positions 0..total-2 of `text` (prompt of plen bytes). Step s
 * predicts byte plen+s: its top-2 margin, logit RMS and, with dev (NPU logits per step), the
 * max |NPU - reference|. forced = 0: text[plen+s] is set to the reference's greedy choice;
 * forced = 1: text is left alone and the choice goes to tok[s]. */
int tinylm_ref_run(const tinylm_model *m, uint8_t *text, uint32_t plen, uint32_t total, int forced,
                   uint8_t *tok, double *rl, double *x, double *margin, double *lrms,
                   const double *dev, double *err)
{
    const llm_dims *d = &m->d;
    const uint32_t D = d->dim, V = d->vocab;
    ref_cache rc[LLM_MAX_LAYERS];
    uint32_t n = 0;
    for (; n < d->n_layers; n++)
        if (ref_cache_init(&rc[n], d))
            break;
    int ok = n == d->n_layers;
    for (uint32_t pos = 0; ok && pos + 1 < total; pos++) {
        for (uint32_t i = 0; i < D; i++)
            x[i] = llm_f32(m->emb[(size_t)text[pos] * D + i]);
        for (uint32_t l = 0; l < d->n_layers; l++)
            ref_layer(d, &m->layer[l], &rc[l], x, pos);
        if (pos + 1 < plen)
            continue;
        uint32_t s = pos + 1 - plen;
        ref_head(d, m->norms + 2 * d->n_layers * D, &m->head, x, rl);
        uint8_t best = (uint8_t)tinylm_argmax(rl, V, &margin[s]);
        if (forced)
            tok[s] = best;
        else
            text[pos + 1] = best;
        double r2 = 0, e = 0;
        for (uint32_t i = 0; i < V; i++) {
            r2 += rl[i] * rl[i];
            if (dev)
                e = fmax(e, fabs(dev[(size_t)s * V + i] - rl[i]));
        }
        lrms[s] = sqrt(r2 / V);
        if (err)
            err[s] = e;
    }
    while (n)
        ref_cache_free(&rc[--n]);
    return ok ? 0 : -1;
}

