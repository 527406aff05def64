/* pccx_llm: decoder-layer instruction sequences for the pccx ext profile, built from the
 * recipes of spec §8 and issued through the public host API. Layout, sequences and costs are
 * described in README.md next to this file. */
#include "pccx_llm.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- host-side helpers -------------------------------------------------------------------- */

uint16_t llm_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u)
        return 0x7FC0;
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

float llm_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

uint64_t llm_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double llm_uniform(uint64_t *s)
{
    return (double)(llm_rand(s) >> 11) * 0x1p-53;
}

int llm_int4_code(const llm_int4 *w, uint32_t row, uint32_t col)
{
    uint8_t b = w->codes[(size_t)row * ((w->k + 1) / 2) + col / 2];
    int v = (col & 1) ? b >> 4 : b & 15;
    return v >= 8 ? v - 16 : v;
}

int llm_int4_random(llm_int4 *w, uint32_t k, uint32_t n, double amp, uint64_t *rng)
{
    size_t rb = (k + 1) / 2;
    w->k = k;
    w->n = n;
    w->codes = calloc((size_t)n * rb, 1);
    w->scale = malloc(sizeof(float) * n);
    if (!w->codes || !w->scale) {
        llm_int4_free(w);
        return PCCX_E_NOMEM;
    }
    for (uint32_t r = 0; r < n; r++) {
        for (uint32_t j = 0; j < k; j++) {
            int code = (int)(llm_rand(rng) % 16) - 8;
            w->codes[r * rb + j / 2] |= (uint8_t)((code & 15) << (4 * (j & 1)));
        }
        /* codes have RMS ~4.6: scale so that a unit-RMS input gives outputs of RMS ~amp */
        w->scale[r] = (float)(amp / 4.6 / sqrt((double)k) * (0.75 + 0.5 * llm_uniform(rng)));
    }
    return PCCX_OK;
}

void llm_int4_free(llm_int4 *w)
{
    free(w->codes);
    free(w->scale);
    w->codes = NULL;
    w->scale = NULL;
}

const char *llm_engine_name(int e)
{
    static const char *const names[PCCX_N_ENGINES] = {"MEMSET", "MEM", "GEMV", "GEMM", "CVO"};
    return e >= 0 && e < PCCX_N_ENGINES ? names[e] : "?";
}

double llm_theta_err(const llm_ctx *c, uint32_t pos)
{
    double m = 0;
    for (uint32_t j = 0; j < c->d.head_dim / 2; j++) {
        double th = (double)pos * c->omega[j];
        m = fmax(m, fabs(llm_f32(llm_bf16((float)th)) - th));
    }
    return m;
}

/* ---- error bookkeeping -------------------------------------------------------------------- */

/* Record the first failure with a short description; later calls become no-ops so a program
 * can check once at the end of a token. */
static int fail(llm_ctx *c, int rc, const char *fmt, ...)
{
    if (c->rc == PCCX_OK && rc != PCCX_OK) {
        c->rc = rc;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->where, sizeof c->where, fmt, ap);
        va_end(ap);
    }
    return c->rc;
}

#define CK(call, ...)                                  \
    do {                                               \
        if (c->rc != PCCX_OK)                          \
            return c->rc;                              \
        int rc_ = (call);                              \
        if (rc_ != PCCX_OK)                            \
            return fail(c, rc_, __VA_ARGS__);          \
    } while (0)

/* ---- layout ------------------------------------------------------------------------------- */

/* CVO operands must start in the first 16,384 L2 words (§5.1); every buffer here is a CVO
 * operand somewhere, so the whole layout stays below that. */
#define LLM_L2_LIMIT 16384u
#define LLM_HOST_LIMIT (1u << 21) /* one host window (17-bit aux in 16-byte units) */

/* `elems` elements starting at a word boundary; with slot_before, the element just before
 * the buffer is reserved too (RMSNorm and softmax write a scalar there). */
static uint32_t l2_alloc(llm_ctx *c, uint32_t elems, int slot_before)
{
    if (slot_before)
        c->l2_next++;
    uint32_t at = c->l2_next;
    c->l2_next += (elems + 7) / 8;
    if (c->l2_next > LLM_L2_LIMIT)
        fail(c, PCCX_E_NOMEM, "L2 layout needs more than %u words", LLM_L2_LIMIT);
    return 8 * at;
}

static uint64_t host_alloc(llm_ctx *c, uint64_t bytes)
{
    uint64_t at = c->host_next;
    c->host_next += (bytes + 15) & ~(uint64_t)15;
    if (c->host_next > LLM_HOST_LIMIT)
        fail(c, PCCX_E_NOMEM, "host layout needs more than one 2 MiB window");
    return at;
}

/* The fmap entry holding (x, y, z), written with MEMSET on first use; when all 64 are taken
 * the least recently used one is rewritten (never the one the same instruction already uses). */
static int shape(llm_ctx *c, uint32_t x, uint32_t y, uint32_t z, unsigned *idx)
{
    int best = -1;
    for (int i = 0; i < (int)PCCX_CC_ENTRIES; i++) {
        if (c->shp_used[i] && c->shp[i][0] == x && c->shp[i][1] == y && c->shp[i][2] == z) {
            best = i;
            break;
        }
    }
    if (best < 0) {
        for (int i = 0; i < (int)PCCX_CC_ENTRIES; i++) {
            if (i == c->shp_pin)
                continue;
            if (best < 0 || c->shp_used[i] < c->shp_used[best])
                best = i;
        }
        if (x > 0xFFFF || y > 0xFFFF || z > 0xFFFF)
            return fail(c, PCCX_E_ARG, "shape (%u, %u, %u) does not fit MEMSET", x, y, z);
        CK(pccx_memset(c->px, PCCX_BANK_FMAP, (unsigned)best, (uint16_t)x, (uint16_t)y,
                       (uint16_t)z), "memset fmap[%d]", best);
        c->shp[best][0] = x;
        c->shp[best][1] = y;
        c->shp[best][2] = z;
    }
    c->shp_used[best] = ++c->shp_clock;
    c->shp_pin = best;
    *idx = (unsigned)best;
    return PCCX_OK;
}

/* Host DDR -> L2 (word-aligned element address) of n elements. */
static int load(llm_ctx *c, uint32_t l2_elem, uint64_t host, uint32_t n)
{
    unsigned s = 0;
    c->shp_pin = -1;
    CK(shape(c, 1, n, 1, &s), "shape");
    CK(pccx_memcpy(c->px, 1, 0, l2_elem / 8, 0, (uint32_t)(host / 16), s, 1),
       "memcpy h2l to element %u", l2_elem);
    return PCCX_OK;
}

static int store(llm_ctx *c, uint64_t host, uint32_t l2_elem, uint32_t n)
{
    unsigned s = 0;
    c->shp_pin = -1;
    CK(shape(c, 1, n, 1, &s), "shape");
    CK(pccx_memcpy(c->px, 0, 1, 0, l2_elem / 8, (uint32_t)(host / 16), s, 1),
       "memcpy l2h from element %u", l2_elem);
    return PCCX_OK;
}

/* Setup-time upload: the host writes the data to a fresh host region, MEMCPY brings it in. */
static int upload(llm_ctx *c, uint32_t l2_elem, const uint16_t *data, uint32_t n)
{
    uint64_t h = host_alloc(c, 2u * n);
    if (c->rc)
        return c->rc;
    CK(pccx_host_write(c->px, h, data, 2u * n), "host write");
    return load(c, l2_elem, h, n);
}

static int cvo(llm_ctx *c, unsigned f, uint32_t src, uint32_t dst, uint32_t n, unsigned flags)
{
    CK(pccx_cvo(c->px, f, src, dst, n, flags, 1), "cvo %u src %u dst %u len %u", f, src, dst, n);
    return PCCX_OK;
}

/* GEMV (m == 1) or GEMM (m rows; m == 0: a one-row GEMM) of a queued tensor:
 * dst[m][n] = src[m][k] x W^T. */
static int matmul(llm_ctx *c, uint32_t m, uint32_t dst, uint32_t src, uint32_t k, uint32_t n,
                  pccx_weight_t w, unsigned flags)
{
    const int gemv = m == 1;
    if (m == 0)
        m = 1;
    unsigned in = 0, out = 0;
    c->shp_pin = -1;
    CK(shape(c, m, k, 1, &in), "shape");
    CK(shape(c, m, n, 1, &out), "shape");
    CK(pccx_weight_push(c->px, w), "weight push");
    if (gemv)
        CK(pccx_gemv(c->px, dst / 8, src / 8, flags, out, in, 0), "gemv k %u n %u", k, n);
    else
        CK(pccx_gemm(c->px, dst / 8, src / 8, flags, out, in, 0), "gemm m %u k %u n %u", m, k, n);
    return PCCX_OK;
}

int llm_emit_gemv(llm_ctx *c, uint32_t dst, uint32_t src, uint32_t k, uint32_t n,
                  pccx_weight_t w, unsigned flags)
{
    return matmul(c, 1, dst, src, k, n, w, flags);
}

/* ---- setup -------------------------------------------------------------------------------- */

static int tensor(llm_ctx *c, const llm_int4 *w, uint32_t k, uint32_t n, pccx_weight_t *h)
{
    if (!w->codes || !w->scale || w->k != k || w->n != n)
        return fail(c, PCCX_E_ARG, "INT4 matrix is %ux%u, expected k %u n %u", w->k, w->n, k, n);
    CK(pccx_weight_int4(c->px, k, n, w->codes, (k + 1) / 2, w->scale, h), "weight_int4");
    return PCCX_OK;
}

int llm_setup(llm_ctx *c, pccx_t *px, const llm_dims *d, const llm_layer_weights *lw,
              const uint16_t *final_norm, const llm_int4 *head)
{
    memset(c, 0, sizeof *c);
    c->px = px;
    c->d = *d;
    c->shp_pin = -1;
    c->dual_engine = 1;
    c->l2_next = 16;
    const uint32_t D = d->dim, H = d->n_heads, KV = d->n_kv_heads, hd = d->head_dim;
    const uint32_t NH = H + KV; /* heads that RoPE rotates: q and k */
    if (!D || !H || !KV || H % KV || !hd || hd % 16 || D % 8 || !d->ffn || d->ffn % 8 ||
        !d->n_layers || d->n_layers > LLM_MAX_LAYERS || !d->max_pos || d->max_pos > 4096 ||
        hd / 2 > 256)
        return fail(c, PCCX_E_ARG, "unsupported dimensions");
    const uint32_t G = H / KV;
    const uint32_t widest = D > d->ffn ? D : d->ffn;

    /* L2 */
    c->x = l2_alloc(c, D, 1);
    c->hn = l2_alloc(c, D, 0);
    c->nconst = l2_alloc(c, 5, 0);
    c->qkv = l2_alloc(c, (H + 2 * KV) * hd, 0);
    c->rope_in = l2_alloc(c, 1 + NH * hd, 0);
    c->theta = l2_alloc(c, NH * hd, 0);
    c->cc = l2_alloc(c, NH * hd, 0);
    c->ss = l2_alloc(c, NH * hd, 0);
    c->sgn = l2_alloc(c, NH * hd, 0);
    c->rot = l2_alloc(c, NH * hd, 0);
    c->scores = l2_alloc(c, G * d->max_pos, 0);
    c->expo = l2_alloc(c, G * (d->max_pos + 1), 0);
    c->probs = l2_alloc(c, G * d->max_pos, 0);
    c->attn = l2_alloc(c, H * hd, 0);
    c->gate = l2_alloc(c, d->ffn, 0);
    c->up = l2_alloc(c, d->ffn, 0);
    c->logits = l2_alloc(c, d->vocab ? d->vocab : 8, 0);
    c->final_norm = l2_alloc(c, D, 0);
    for (uint32_t l = 0; l < d->n_layers; l++) {
        c->layer[l].attn_norm = l2_alloc(c, D, 0);
        c->layer[l].ffn_norm = l2_alloc(c, D, 0);
    }
    /* host DDR: staging, then the KV caches */
    c->host_in = host_alloc(c, 2u * widest);
    c->host_rope = host_alloc(c, 4u * (1 + NH * hd));
    c->host_out = host_alloc(c, 2u * (d->vocab > widest ? d->vocab : widest));
    for (uint32_t l = 0; l < d->n_layers; l++) {
        c->layer[l].kcache = host_alloc(c, 2ull * KV * d->max_pos * hd);
        c->layer[l].vcache = host_alloc(c, 2ull * KV * d->max_pos * hd);
    }
    if (c->rc)
        return c->rc;
    CK(pccx_host_window(px, 0), "host window");

    /* RMSNorm constants (§8.2 ext): n, scratch, eps, scratch, scratch. n must be exact. */
    if ((float)llm_f32(llm_bf16((float)D)) != (float)D)
        return fail(c, PCCX_E_ARG, "dim %u is not exact in BF16", D);
    uint16_t k5[5] = {llm_bf16((float)D), 0, llm_bf16(d->eps), 0, 0};
    CK(upload(c, c->nconst, k5, 5), "upload");
    /* RoPE sign table: per head [-1 x hd/2 | +1 x hd/2], so SIN(theta) * sgn = [-s | s] */
    uint16_t *tmp = malloc(2u * (NH * hd + 1 + D));
    if (!tmp)
        return fail(c, PCCX_E_NOMEM, "malloc");
    for (uint32_t i = 0; i < NH * hd; i++)
        tmp[i] = llm_bf16(i % hd < hd / 2 ? -1.0f : 1.0f);
    upload(c, c->sgn, tmp, NH * hd);
    free(tmp);
    /* RoPE frequencies omega_j = base^(-2j/hd), held as BF16 (the model's definition) */
    for (uint32_t j = 0; j < hd / 2; j++)
        c->omega[j] = llm_f32(llm_bf16((float)pow(d->rope_base, -2.0 * j / hd)));

    for (uint32_t l = 0; l < d->n_layers; l++) {
        const llm_layer_weights *w = &lw[l];
        llm_layer_dev *ld = &c->layer[l];
        upload(c, ld->attn_norm, w->attn_norm, D);
        upload(c, ld->ffn_norm, w->ffn_norm, D);
        tensor(c, &w->q, D, H * hd, &ld->q);
        tensor(c, &w->k, D, KV * hd, &ld->k);
        tensor(c, &w->v, D, KV * hd, &ld->v);
        tensor(c, &w->o, H * hd, D, &ld->o);
        tensor(c, &w->gate, D, d->ffn, &ld->gate);
        tensor(c, &w->up, D, d->ffn, &ld->up);
        tensor(c, &w->down, d->ffn, D, &ld->down);
    }
    if (d->vocab) {
        if (!final_norm || !head)
            return fail(c, PCCX_E_ARG, "vocab set but no final norm / head");
        upload(c, c->final_norm, final_norm, D);
        tensor(c, head, D, d->vocab, &c->head);
    }
    if (c->rc)
        return c->rc;
    CK(pccx_sync(px, 0), "sync after setup");
    return PCCX_OK;
}

int llm_cache_put(llm_ctx *c, uint32_t layer, int is_v, uint32_t kv_head, uint32_t pos,
                  const uint16_t *row)
{
    const uint32_t hd = c->d.head_dim;
    if (layer >= c->d.n_layers || kv_head >= c->d.n_kv_heads || pos >= c->d.max_pos)
        return fail(c, PCCX_E_ARG, "cache_put out of range");
    uint64_t base = is_v ? c->layer[layer].vcache : c->layer[layer].kcache;
    CK(pccx_host_write(c->px, base + 2ull * ((uint64_t)kv_head * c->d.max_pos + pos) * hd, row,
                       2u * hd), "host write");
    return PCCX_OK;
}

/* ---- recipes ------------------------------------------------------------------------------ */

/* §8.2 ext: y = x / sqrt(mean(x^2) + eps) * gamma over dim elements; x-1 must be free. */
int llm_emit_rmsnorm(llm_ctx *c, uint32_t x, uint32_t gamma, uint32_t y)
{
    const uint32_t n = c->d.dim, C = c->nconst;
    cvo(c, PCCX_CVO_REDUCE_SUMSQ, x, C + 1, n, 0);              /* sum x^2 */
    cvo(c, PCCX_CVO_SCALE, C, C + 3, 2, PCCX_CVO_FLAG_RECIP_SCALE); /* / n */
    cvo(c, PCCX_CVO_ADDS, C + 2, C + 4, 2, 0);                   /* + eps */
    cvo(c, PCCX_CVO_SQRT, C + 4, C + 4, 1, 0);
    cvo(c, PCCX_CVO_RECIP, C + 4, x - 1, 1, 0);                  /* r in the slot before x */
    cvo(c, PCCX_CVO_SCALE, x - 1, y, n + 1, 0);                  /* x * r */
    return cvo(c, PCCX_CVO_VMUL, gamma, y, n, 0);                /* * gamma */
}

/* §8.3 with tables built by llm_begin_token: out = x (.) [c|c] + [x2|x1] (.) [-s|s] per head,
 * in place on n_heads contiguous heads. */
int llm_emit_rope(llm_ctx *c, uint32_t at, uint32_t n_heads)
{
    const uint32_t hd = c->d.head_dim, h = hd / 2, len = n_heads * hd;
    for (uint32_t i = 0; i < n_heads; i++) {                    /* R = [x2 | x1] */
        cvo(c, PCCX_CVO_COPY, at + i * hd + h, c->rot + i * hd, h, 0);
        cvo(c, PCCX_CVO_COPY, at + i * hd, c->rot + i * hd + h, h, 0);
    }
    cvo(c, PCCX_CVO_VMUL, c->cc, at, len, 0);                   /* x (.) [c|c] */
    cvo(c, PCCX_CVO_VMUL, c->ss, c->rot, len, 0);               /* R (.) [-s|s] */
    return cvo(c, PCCX_CVO_COPY, c->rot, at, len, PCCX_CVO_FLAG_ACCM);
}

int llm_begin_token(llm_ctx *c, const uint16_t *x, uint32_t pos)
{
    const uint32_t D = c->d.dim, hd = c->d.head_dim, NH = c->d.n_heads + c->d.n_kv_heads;
    if (pos >= c->d.max_pos)
        return fail(c, PCCX_E_ARG, "position %u beyond the KV cache (%u)", pos, c->d.max_pos);
    CK(pccx_host_write(c->px, c->host_in, x, 2u * D), "host write");
    CK(load(c, c->x, c->host_in, D), "load x");
    uint16_t blk[2 * 1024];
    uint32_t n = NH * hd;
    if (2 * n > sizeof blk / sizeof blk[0])
        return fail(c, PCCX_E_ARG, "RoPE block too long");
    if (c->rope_host) {
        /* host tables: cos and +-sin of pos * omega in binary64, rounded once to BF16 */
        for (uint32_t i = 0; i < n; i++) {
            double th = (double)pos * c->omega[i % (hd / 2)];
            blk[i] = llm_bf16((float)cos(th));
            blk[n + i] = llm_bf16((float)(i % hd < hd / 2 ? -sin(th) : sin(th)));
        }
        CK(pccx_host_write(c->px, c->host_rope, blk, 4u * n), "host write");
        CK(load(c, c->cc, c->host_rope, n), "load cos table");
        return load(c, c->ss, c->host_rope + 2u * n, n);
    }
    /* §8.3: [pos | omega laid out like the heads: per head (omega_0..omega_{h-1}) twice] */
    blk[0] = llm_bf16((float)pos);
    for (uint32_t i = 0; i < n; i++)
        blk[1 + i] = llm_bf16(c->omega[i % (hd / 2)]);
    CK(pccx_host_write(c->px, c->host_rope, blk, 2u * (n + 1)), "host write");
    CK(load(c, c->rope_in, c->host_rope, n + 1), "load rope block");
    cvo(c, PCCX_CVO_SCALE, c->rope_in, c->theta, n + 1, 0);     /* theta = pos * omega */
    cvo(c, PCCX_CVO_COS, c->theta, c->cc, n, 0);                /* [c|c] per head */
    cvo(c, PCCX_CVO_SIN, c->theta, c->ss, n, 0);                /* [s|s] */
    return cvo(c, PCCX_CVO_VMUL, c->sgn, c->ss, n, 0);          /* [-s|s] */
}

/* Softmax attention of the G query heads of KV head g over positions 0..pos (§7.3, §8.1). */
int llm_emit_attention(llm_ctx *c, uint32_t layer, uint32_t g, uint32_t pos)
{
    if (layer >= c->d.n_layers || g >= c->d.n_kv_heads || pos >= c->d.max_pos)
        return fail(c, PCCX_E_ARG, "attention: layer %u / KV head %u / position %u", layer, g,
                    pos);
    const llm_layer_dev *ld = &c->layer[layer];
    const uint32_t H = c->d.n_heads, KV = c->d.n_kv_heads, hd = c->d.head_dim;
    const uint32_t G = H / KV, np = pos + 1, T = c->d.max_pos;
    const uint64_t kbase = ld->kcache + 2ull * g * T * hd, vbase = ld->vcache + 2ull * g * T * hd;
    pccx_weight_t kv_view = 0;
    /* scores[r][t] = q_r . K[t]: a GEMV (one head) or GEMM (M = G heads) against the view */
    CK(pccx_weight_view_bf16(c->px, kbase, np, hd, hd, 1, &kv_view), "K view");
    matmul(c, G, c->scores, c->qkv + g * G * hd, hd, np, kv_view, PCCX_FLAG_FINDEMAX);
    CK(pccx_weight_free(c->px, kv_view), "free K view");
    /* per head: e = exp(s - E_MAX), sum, p = e / sum (one E_MAX for the G rows: softmax is
     * invariant to the shift) */
    for (uint32_t r = 0; r < G; r++) {
        uint32_t S = c->expo + r * (T + 1);
        cvo(c, PCCX_CVO_EXP, c->scores + r * np, S + 1, np, PCCX_CVO_FLAG_SUB_EMAX);
        cvo(c, PCCX_CVO_REDUCE_SUM, S + 1, S, np, 0);
        cvo(c, PCCX_CVO_SCALE, S, c->probs + r * np, np + 1, PCCX_CVO_FLAG_RECIP_SCALE);
    }
    /* out[r][i] = sum_t p[r][t] V[t][i]: the transposed view */
    CK(pccx_weight_view_bf16(c->px, vbase, hd, np, 1, hd, &kv_view), "V view");
    matmul(c, G, c->attn + g * G * hd, c->probs, np, hd, kv_view, 0);
    CK(pccx_weight_free(c->px, kv_view), "free V view");
    return c->rc;
}

const char *const llm_phase_name[LLM_N_PHASES] = {
    "RMSNorm (attention)", "Q/K/V projections", "RoPE", "K/V append", "attention",
    "O projection + residual", "RMSNorm (FFN)", "gated FFN + residual"};

static void mark(llm_ctx *c, int phase)
{
    pccx_stats_t st;
    if (pccx_stats(c->px, &st) == PCCX_OK)
        c->phase_at[phase] = st.insns;
}

int llm_emit_layer(llm_ctx *c, uint32_t l, uint32_t pos)
{
    const uint32_t D = c->d.dim, H = c->d.n_heads, KV = c->d.n_kv_heads, hd = c->d.head_dim;
    const uint32_t T = c->d.max_pos;
    if (l >= c->d.n_layers || pos >= T)
        return fail(c, PCCX_E_ARG, "layer %u / position %u out of range", l, pos);
    const llm_layer_dev *ld = &c->layer[l];
    const uint32_t q = c->qkv, k = q + H * hd, v = k + KV * hd;
    /* attention block */
    mark(c, LLM_PH_NORM1);
    llm_emit_rmsnorm(c, c->x, ld->attn_norm, c->hn);
    mark(c, LLM_PH_QKV);
    /* With dual_engine, independent projections go to the GEMM engine as M = 1 GEMMs: they
     * stream over HP0/HP1 while the GEMV engine streams over HP2/HP3 (§14.2); same results. */
    const uint32_t m2 = c->dual_engine ? 0 : 1;
    matmul(c, 1, q, c->hn, D, H * hd, ld->q, PCCX_FLAG_W_SCALE);
    matmul(c, m2, k, c->hn, D, KV * hd, ld->k, PCCX_FLAG_W_SCALE);
    matmul(c, m2, v, c->hn, D, KV * hd, ld->v, PCCX_FLAG_W_SCALE);
    mark(c, LLM_PH_ROPE);
    llm_emit_rope(c, q, H + KV);                                /* q and k heads together */
    mark(c, LLM_PH_APPEND);
    for (uint32_t g = 0; g < KV; g++) {                         /* append K/V rows at pos */
        store(c, ld->kcache + 2ull * (g * T + pos) * hd, k + g * hd, hd);
        store(c, ld->vcache + 2ull * (g * T + pos) * hd, v + g * hd, hd);
    }
    mark(c, LLM_PH_ATTN);
    for (uint32_t g = 0; g < KV; g++)
        llm_emit_attention(c, l, g, pos);
    mark(c, LLM_PH_OPROJ);
    /* output projection straight into the residual stream (§8.4: GEMV with accm) */
    matmul(c, 1, c->x, c->attn, H * hd, D, ld->o, PCCX_FLAG_W_SCALE | PCCX_FLAG_ACCM);
    /* gated FFN: x += down(gelu(gate(h)) (.) up(h)) */
    mark(c, LLM_PH_NORM2);
    llm_emit_rmsnorm(c, c->x, ld->ffn_norm, c->hn);
    mark(c, LLM_PH_FFN);
    llm_emit_ffn(c, l, c->hn, c->x);
    mark(c, LLM_N_PHASES);
    return c->rc;
}

int llm_emit_ffn(llm_ctx *c, uint32_t layer, uint32_t h, uint32_t x)
{
    const uint32_t D = c->d.dim, F = c->d.ffn, m2 = c->dual_engine ? 0 : 1;
    if (layer >= c->d.n_layers)
        return fail(c, PCCX_E_ARG, "ffn: layer %u", layer);
    const llm_layer_dev *ld = &c->layer[layer];
    matmul(c, 1, c->gate, h, D, F, ld->gate, PCCX_FLAG_W_SCALE);
    matmul(c, m2, c->up, h, D, F, ld->up, PCCX_FLAG_W_SCALE);
    cvo(c, PCCX_CVO_GELU, c->gate, c->gate, F, 0);
    cvo(c, PCCX_CVO_VMUL, c->gate, c->up, F, 0);
    return matmul(c, 1, x, c->up, F, D, ld->down, PCCX_FLAG_W_SCALE | PCCX_FLAG_ACCM);
}

int llm_emit_head(llm_ctx *c)
{
    if (!c->d.vocab)
        return fail(c, PCCX_E_ARG, "no LM head");
    llm_emit_rmsnorm(c, c->x, c->final_norm, c->hn);
    matmul(c, 1, c->logits, c->hn, c->d.dim, c->d.vocab, c->head, PCCX_FLAG_W_SCALE);
    return store(c, c->host_out, c->logits, c->d.vocab);
}

static int read_back(llm_ctx *c, float *out, uint32_t n)
{
    CK(pccx_sync(c->px, 0), "sync");
    uint16_t buf[4096];
    for (uint32_t i = 0; i < n; i += 4096) {
        uint32_t m = n - i < 4096 ? n - i : 4096;
        CK(pccx_host_read(c->px, c->host_out + 2ull * i, buf, 2u * m), "host read");
        for (uint32_t j = 0; j < m; j++)
            out[i + j] = llm_f32(buf[j]);
    }
    return PCCX_OK;
}

int llm_read_residual(llm_ctx *c, float *out)
{
    store(c, c->host_out, c->x, c->d.dim);
    return read_back(c, out, c->d.dim);
}

int llm_read_logits(llm_ctx *c, float *out)
{
    return read_back(c, out, c->d.vocab);
}

void llm_report(FILE *f, const pccx_stats_t *a, const pccx_stats_t *b, uint32_t f_mhz)
{
    uint64_t cyc = b->cycles - a->cycles;
    fprintf(f, "  %llu instructions, %llu cycles (%.2f us at %u MHz)\n",
            (unsigned long long)(b->insns - a->insns), (unsigned long long)cyc,
            (double)cyc / f_mhz, f_mhz);
    for (int e = 0; e < PCCX_N_ENGINES; e++) {
        uint64_t busy = b->engine_busy[e] - a->engine_busy[e];
        uint64_t n = b->engine_insns[e] - a->engine_insns[e];
        if (n)
            fprintf(f, "    %-6s %4llu insns  busy %7llu cycles (%5.1f %%)\n", llm_engine_name(e),
                    (unsigned long long)n, (unsigned long long)busy,
                    cyc ? 100.0 * (double)busy / (double)cyc : 0.0);
    }
    fprintf(f, "    port B busy %llu cycles; weights streamed %llu (HP2+HP3 %llu bytes, HP0+HP1 "
               "%llu bytes); ACP %llu bytes\n",
            (unsigned long long)(b->port_b_busy - a->port_b_busy),
            (unsigned long long)(b->weights_streamed - a->weights_streamed),
            (unsigned long long)(b->hp_bytes[2] + b->hp_bytes[3] - a->hp_bytes[2] - a->hp_bytes[3]),
            (unsigned long long)(b->hp_bytes[0] + b->hp_bytes[1] - a->hp_bytes[0] - a->hp_bytes[1]),
            (unsigned long long)(b->acp_bytes - a->acp_bytes));
    fprintf(f, "    stalls: sync wait %llu, queue full %llu, FIFO full %llu; hazard wait %llu\n",
            (unsigned long long)(b->stall_sync_wait - a->stall_sync_wait),
            (unsigned long long)(b->stall_queue_full - a->stall_queue_full),
            (unsigned long long)(b->stall_fifo_full - a->stall_fifo_full),
            (unsigned long long)(b->hazard_wait - a->hazard_wait));
}

void llm_report_phases(FILE *f, const llm_ctx *c)
{
    pccx_times_t t;
    uint64_t t0 = 0, layer_end = 0;
    if (pccx_insn_times(c->px, c->phase_at[0], &t) != PCCX_OK)
        return;
    t0 = t.s;
    fprintf(f, "  phase                   insns   start     end  (cycles from the layer's "
               "first start)\n");
    for (int p = 0; p < LLM_N_PHASES; p++) {
        uint64_t a = c->phase_at[p], b = c->phase_at[p + 1], s = UINT64_MAX, e = 0;
        for (uint64_t i = a; i < b; i++) {
            if (pccx_insn_times(c->px, i, &t) != PCCX_OK || t.engine < 0)
                continue;
            if (t.engine == PCCX_ENG_MEMSET)  /* shape writes run ahead; not part of the phase */
                continue;
            s = t.s < s ? t.s : s;
            e = t.c > e ? t.c : e;
        }
        if (s == UINT64_MAX)
            continue;
        layer_end = e > layer_end ? e : layer_end;
        fprintf(f, "  %-22s %5llu %7llu %7llu\n", llm_phase_name[p], (unsigned long long)(b - a),
                (unsigned long long)(s - t0), (unsigned long long)(e - t0));
    }
    fprintf(f, "  layer: %llu cycles from its first start to its last completion\n",
            (unsigned long long)(layer_end - t0));
}
