/* One Gemma-3N-E4B-shaped decode step through the pccx host API (ext profile), on the functional
 * simulator and the §11 timing model: tokens/s at f_core next to the weight-streaming bound of
 * §11.3 computed here from the §11.1 parameters (docs/pccx-performance.md has the numbers).
 * Weights are deterministic random INT4 codes, one tensor per distinct shape, pushed per use. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_machine.h"
#include "npukit/npukit.h"
#include "npukit/pccx.h"

/* ---- model shapes (spec §14.1) ------------------------------------------------------------ */
enum {
    D = 2048,          /* hidden size */
    FF = 16384,        /* FFN intermediate */
    NQ = 8,            /* query heads */
    NKV = 2,           /* KV heads */
    HD = 256,          /* head_dim */
    HALF = HD / 2,     /* RoPE pairs per head */
    KVD = NKV * HD,    /* 512 */
    NLAYERS = 35,
    KV_LAYERS = 20,    /* layers 0..19 compute K/V; 20..34 reuse 18 (local) or 19 (global) */
    LM_CHUNK = 52480,  /* 262,400 = 5 x 52,480 (a GEMV's N is at most 65,535) */
    LM_CHUNKS = 5
};
#define VOCAB ((uint32_t)LM_CHUNK * LM_CHUNKS)
/* CVO operands must start in the first 131,072 elements (§5.1) */
#define CVO_START_LIMIT 131072u

/* What each GEMV/GEMM computes, for the per-matrix table. */
enum { L_Q, L_K, L_V, L_O, L_GATE, L_UP, L_DOWN, L_LM, L_SCORE, L_PV, L_OTHER, L_N };
static const char *const label_name[L_N] = {"Q", "K", "V", "O", "gate", "up", "down",
                                            "lm_head", "attn_qk", "attn_pv", "other"};
static const char *const engine_name[PCCX_N_ENGINES] = {"MEMSET", "MEM", "GEMV", "GEMM", "CVO"};

typedef struct {
    int split, gqa, layers, lm_chunks;
    uint32_t context, window;
    uint32_t hp_bytes;     /* 0 = default hp_bytes_per_axi_cycle (16) */
    uint32_t core_mhz;     /* 0 = default f_core_mhz (400) */
    uint32_t gemv_ports, gemm_ports; /* 0 = default port masks (0xC, 0x3) */
    const char *timeline;
    const char *stats_json; /* npk_stats_json of the run to this file (npukit sweep) */
    double check;          /* > 0: check mode, the allowed cycles / bound factor */
} options;

/* One distinct INT4 weight shape (K -> N), created on first use. */
typedef struct {
    uint32_t k, n;
    pccx_weight_t h;
} wshape;

/* Weight streaming issued per label and per engine: count, beats, sum of T_w. */
typedef struct {
    uint64_t count, beats, tw, weights;
} wsum;

/* Weight streaming per label and per engine. */
typedef struct {
    wsum by_label[L_N], by_engine[PCCX_N_ENGINES];
} acct;

typedef struct {
    pccx_t *c;
    options o;
    int dry;                     /* account weight streams only, issue nothing */
    acct issued, full, *acc;     /* what this run issued; the full 35-layer step (dry pass) */
    pccx_timing_t p;
    uint64_t rng;
    uint64_t nissued;            /* instructions pushed (the issue index of the next one) */
    uint8_t *label;              /* label per issued instruction */
    size_t label_cap;
    wshape shapes[16];
    int nshapes;
    struct { uint32_t x, y, z; } fmap[PCCX_CC_ENTRIES];
    int nfmap;
    uint32_t lo_next, hi_next;   /* L2 element bump allocators */
} gemma;

static void die(const char *fmt, const char *what)
{
    fprintf(stderr, "pccx_gemma: ");
    fprintf(stderr, fmt, what);
    fputc('\n', stderr);
    exit(1);
}

/* A failed call is a bug in this program or in the simulator: report the recorded fault. */
static void ok(gemma *g, int rc, const char *what)
{
    if (rc == PCCX_OK)
        return;
    pccx_error_t e;
    memset(&e, 0, sizeof e);
    pccx_last_error(g->c, &e);
    fprintf(stderr, "pccx_gemma: %s failed: %s (instruction %" PRIu64 ", word 0x%016" PRIx64
                    "): %s\n", what, pccx_error_name(rc), e.index, e.word, e.message);
    exit(1);
}

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* xorshift64*: deterministic, no libc rand state */
static uint64_t rnd(gemma *g)
{
    g->rng ^= g->rng >> 12;
    g->rng ^= g->rng << 25;
    g->rng ^= g->rng >> 27;
    return g->rng * 0x2545F4914F6CDD1Dull;
}

static double urand(gemma *g) /* [0, 1) */
{
    return (double)(rnd(g) >> 11) * 0x1p-53;
}

static uint16_t bf16(float f) /* round to nearest even; inputs here are finite */
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

static float from_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- the analytic weight-streaming cost (§11.1, §11.3) ------------------------------------- */

static uint64_t cdiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

static uint64_t axi(const pccx_timing_t *p, uint64_t n)
{
    return cdiv(n * p->f_core_mhz, p->f_axi_mhz);
}

static uint64_t t_ddr(const pccx_timing_t *p)
{
    return cdiv((uint64_t)p->ddr_latency_ns * p->f_core_mhz, 1000);
}

static unsigned nports(unsigned mask)
{
    unsigned n = 0;
    for (; mask; mask &= mask - 1)
        n++;
    return n;
}

/* Beats of a tensor: INT4 N*ceil(K/32) + ceil(N/4) (codes and scales), BF16 view N*ceil(K/8). */
static uint64_t beats(uint64_t k, uint64_t n, int view)
{
    return view ? n * cdiv(k, 8) : n * cdiv(k, 32) + cdiv(n, 4);
}

/* T_w = t_ddr + axi(ceil(B / P)); one 16-byte beat per port per AXI cycle at the defaults,
 * written for any hp_bytes_per_axi_cycle as bytes / (P * bytes per port per cycle). */
static uint64_t t_w(const pccx_timing_t *p, int engine, uint64_t b)
{
    unsigned ports = nports(engine == PCCX_ENG_GEMM ? p->gemm_ports : p->gemv_ports);
    return t_ddr(p) + axi(p, cdiv(16 * b, (uint64_t)ports * p->hp_bytes_per_axi_cycle));
}

/* ---- issue helpers (each records the label of the instruction it pushes) -------------------- */

static void note(gemma *g, int label)
{
    if (g->nissued == g->label_cap) {
        g->label_cap = g->label_cap ? 2 * g->label_cap : 4096;
        g->label = realloc(g->label, g->label_cap);
        if (!g->label)
            die("%s", "out of memory");
    }
    g->label[g->nissued++] = (uint8_t)label;
}

/* The fmap entry holding (x, y, z); written by a MEMSET the first time it is needed. */
static unsigned fmap(gemma *g, uint32_t x, uint32_t y, uint32_t z)
{
    if (g->dry)
        return 0;
    for (int i = 0; i < g->nfmap; i++)
        if (g->fmap[i].x == x && g->fmap[i].y == y && g->fmap[i].z == z)
            return (unsigned)i;
    if (g->nfmap == (int)PCCX_CC_ENTRIES)
        die("%s", "more than 64 distinct shapes");
    int i = g->nfmap++;
    g->fmap[i].x = x;
    g->fmap[i].y = y;
    g->fmap[i].z = z;
    ok(g, pccx_memset(g->c, PCCX_BANK_FMAP, (unsigned)i, (uint16_t)x, (uint16_t)y, (uint16_t)z),
       "memset");
    note(g, L_OTHER);
    return (unsigned)i;
}

static void cvo(gemma *g, unsigned func, uint32_t src, uint32_t dst, uint32_t len,
                unsigned flags)
{
    if (g->dry)
        return;
    /* async: ordering comes from the hazards of §11.4, the front-end never waits */
    ok(g, pccx_cvo(g->c, func, src, dst, len, flags, 1), "cvo");
    note(g, L_OTHER);
}

/* Random INT4 codes (every nibble uniform in -8..7, E[w^2] = 21.5) with per-row scales that give
 * outputs of RMS about 1 for inputs of RMS 1 (keeps every activation in a tame BF16 range). */
static pccx_weight_t tensor(gemma *g, uint32_t k, uint32_t n)
{
    if (g->dry)
        return 0;
    for (int i = 0; i < g->nshapes; i++)
        if (g->shapes[i].k == k && g->shapes[i].n == n)
            return g->shapes[i].h;
    if (g->nshapes == (int)(sizeof g->shapes / sizeof g->shapes[0]))
        die("%s", "too many weight shapes");
    size_t rb = (k + 1) / 2;
    uint8_t *codes = malloc((size_t)n * rb);
    float *scale = malloc((size_t)n * sizeof *scale);
    if (!codes || !scale)
        die("%s", "out of memory for weights");
    for (size_t i = 0; i < (size_t)n * rb; i += 8) {
        uint64_t r = rnd(g);
        size_t m = (size_t)n * rb - i < 8 ? (size_t)n * rb - i : 8;
        memcpy(codes + i, &r, m);
    }
    double base = 1.0 / sqrt(21.5 * k);
    for (uint32_t r = 0; r < n; r++)
        scale[r] = (float)(base * (0.75 + 0.5 * urand(g)));
    pccx_weight_t h = 0;
    ok(g, pccx_weight_int4(g->c, k, n, codes, rb, scale, &h), "weight_int4");
    free(codes);
    free(scale);
    g->shapes[g->nshapes].k = k;
    g->shapes[g->nshapes].n = n;
    g->shapes[g->nshapes].h = h;
    g->nshapes++;
    return h;
}

/* The weight streaming of one GEMV/GEMM (M does not change the stream, §11.3). */
static void account(gemma *g, int label, int engine, uint64_t k, uint64_t n, int view)
{
    uint64_t b = beats(k, n, view), tw = t_w(&g->p, engine, b);
    wsum *s[2] = {&g->acc->by_label[label], &g->acc->by_engine[engine]};
    for (int i = 0; i < 2; i++) {
        s[i]->count++;
        s[i]->beats += b;
        s[i]->tw += tw;
        s[i]->weights += k * n;
    }
}

/* y[M x N] = x[M x K] . W^T on the GEMV engine (M = 1) or the GEMM engine, with weight tensor
 * (or view) h pushed just before (the queue is consumed in program order). Element addresses. */
static void matmul(gemma *g, int label, int on_gemm, pccx_weight_t h, int view, uint32_t y,
                   uint32_t x, uint32_t m, uint32_t k, uint32_t n, unsigned flags)
{
    account(g, label, on_gemm ? PCCX_ENG_GEMM : PCCX_ENG_GEMV, k, n, view);
    if (g->dry)
        return;
    unsigned in = fmap(g, m, k, 1), out = fmap(g, m, n, 1);
    if (!view)
        flags |= PCCX_FLAG_W_SCALE;
    ok(g, pccx_weight_push(g->c, h), "weight_push");
    if (on_gemm)
        ok(g, pccx_gemm(g->c, y / 8, x / 8, flags, out, in, 0), "gemm");
    else
        ok(g, pccx_gemv(g->c, y / 8, x / 8, flags, out, in, 0), "gemv");
    note(g, label);
}

/* A K -> N projection. GEMV-only: one GEMV. --split: K and gate stay on the GEMV engine, V and
 * up go to GEMM (M = 1), the others are split by output rows (first half GEMV, second GEMM) so
 * that both engines stream the same bytes over their own two HP ports. */
static void proj(gemma *g, int label, uint32_t y, uint32_t x, uint32_t k, uint32_t n)
{
    if (!g->o.split) {
        matmul(g, label, 0, tensor(g, k, n), 0, y, x, 1, k, n, 0);
        return;
    }
    switch (label) {
    case L_K:
    case L_GATE: matmul(g, label, 0, tensor(g, k, n), 0, y, x, 1, k, n, 0); break;
    case L_V:
    case L_UP: matmul(g, label, 1, tensor(g, k, n), 0, y, x, 1, k, n, 0); break;
    default:
        matmul(g, label, 0, tensor(g, k, n / 2), 0, y, x, 1, k, n / 2, 0);
        matmul(g, label, 1, tensor(g, k, n / 2), 0, y + n / 2, x, 1, k, n / 2, 0);
        break;
    }
}

/* ---- memory layout ------------------------------------------------------------------------ */

/* n elements of L2, word aligned; `slot` keeps the element before the buffer free for the
 * scalar-first CVO recipes (§8.2 step 4 writes 1/rms there). */
static uint32_t lo(gemma *g, uint32_t n, int slot)
{
    uint32_t a = (g->lo_next + (slot ? 8 : 0) + 7) & ~7u;
    g->lo_next = (a + n + 7) & ~7u;
    if (a >= CVO_START_LIMIT || a + n > PCCX_L2_ELEMS)
        die("%s", "the L2 layout does not fit (context too long?)");
    return a;
}

static uint32_t hi(gemma *g, uint32_t n)
{
    uint32_t a = (g->hi_next + 7) & ~7u;
    g->hi_next = a + n;
    if (g->hi_next > PCCX_L2_ELEMS)
        die("%s", "the L2 layout does not fit");
    return a;
}

static void l2_put(gemma *g, uint32_t e, const uint16_t *v, uint32_t n)
{
    /* back door, element-exact: read-modify-write of the touched words */
    uint32_t w0 = e / 8, w1 = (e + n + 7) / 8;
    uint8_t *buf = malloc((size_t)(w1 - w0) * 16);
    if (!buf)
        die("%s", "out of memory");
    ok(g, pccx_l2_read(g->c, w0, buf, w1 - w0), "l2_read");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t off = 2 * (e + i - 8 * w0);
        buf[off] = (uint8_t)v[i];
        buf[off + 1] = (uint8_t)(v[i] >> 8);
    }
    ok(g, pccx_l2_write(g->c, w0, buf, w1 - w0), "l2_write");
    free(buf);
}

static void l2_fill(gemma *g, uint32_t e, uint32_t n, float lo_v, float hi_v)
{
    uint16_t *v = malloc((size_t)n * sizeof *v);
    if (!v)
        die("%s", "out of memory");
    for (uint32_t i = 0; i < n; i++)
        v[i] = bf16((float)(lo_v + (hi_v - lo_v) * urand(g)));
    l2_put(g, e, v, n);
    free(v);
}

/* Resident per-model constants (γ vectors, RoPE tables, ε) are loaded once, untimed; the step
 * itself starts with the embedding-row MEMCPY. */
typedef struct {
    uint32_t nc2048, nc256;                  /* RMSNorm constant blocks [n, s, eps, s, s] */
    uint32_t g_in, g_pa, g_pf, g_pff, g_q, g_k, g_fin;  /* γ vectors */
    uint32_t ths[2], th[2], snt[2], cc[2], ss[2];        /* RoPE: [pos|ω], θ, [-1|sin], tables */
    uint32_t h, xn, tmp, tn, q, k, v, qn, kn, vn, qr, kr, r, ao, gb, ub;
    uint32_t s[2], e[2], pb[2];              /* attention scratch, two sets */
    int nsets;
    uint32_t logits;                         /* high L2 */
    uint64_t host_emb, host_kv, host_logits, host_bytes;
} layout;

static uint64_t kv_block(const gemma *g, const layout *L, int cl, int head, int is_v)
{
    return L->host_kv + ((uint64_t)(cl * NKV + head) * 2 + (uint64_t)is_v) * g->o.context * HD * 2;
}

static void make_layout(gemma *g, layout *L)
{
    uint32_t T = g->o.context;
    memset(L, 0, sizeof *L);
    g->lo_next = 0;
    L->nc2048 = lo(g, 8, 0);
    L->nc256 = lo(g, 8, 0);
    L->g_in = lo(g, D, 0);
    L->g_pa = lo(g, D, 0);
    L->g_pf = lo(g, D, 0);
    L->g_pff = lo(g, D, 0);
    L->g_fin = lo(g, D, 0);
    L->g_q = lo(g, HD, 0);
    L->g_k = lo(g, HD, 0);
    for (int i = 0; i < 2; i++) {
        L->ths[i] = lo(g, HALF + 1, 0);
        L->th[i] = lo(g, HALF, 0);
        L->snt[i] = lo(g, HALF + 1, 0);
        L->cc[i] = lo(g, NQ * HD, 0);
        L->ss[i] = lo(g, NQ * HD, 0);
    }
    L->h = lo(g, D, 1);
    L->xn = lo(g, D, 0);
    L->tmp = lo(g, D, 1);
    L->tn = lo(g, D, 0);
    L->q = lo(g, NQ * HD, 1);
    L->k = lo(g, KVD, 1);
    L->v = lo(g, KVD, 1);
    L->qn = lo(g, NQ * HD, 0);
    L->kn = lo(g, KVD, 0);
    L->vn = lo(g, KVD, 0);
    L->qr = lo(g, NQ * HD, 0);
    L->kr = lo(g, KVD, 0);
    L->r = lo(g, NQ * HD, 0);
    L->ao = lo(g, NQ * HD, 0);
    L->gb = lo(g, FF, 0);
    L->ub = lo(g, FF, 0);
    /* two scratch sets let one head's softmax overlap the next head's scores; a long GQA
     * context gets one (the sets must start in the CVO-addressable first 131,072 elements) */
    uint32_t rows = g->o.gqa ? 4 : 1, set = 2 * rows * T + T + 40;
    L->nsets = g->lo_next + 2 * set < CVO_START_LIMIT ? 2 : 1;
    for (int i = 0; i < 2; i++) {
        if (i >= L->nsets) {
            L->s[i] = L->s[0], L->e[i] = L->e[0], L->pb[i] = L->pb[0];
            break;
        }
        L->s[i] = lo(g, rows * T, 0);  /* scores: 1 row (per head) or 4 rows (GQA) */
        L->e[i] = lo(g, T, 1);         /* exp values after a scalar slot for their sum */
        L->pb[i] = lo(g, rows * T, 0); /* probabilities, word aligned (GEMV/GEMM input) */
    }
    g->hi_next = g->lo_next > 196608 ? g->lo_next : 196608;
    L->logits = hi(g, VOCAB);
    L->host_emb = 0;
    L->host_kv = 4096;
    L->host_logits = kv_block(g, L, KV_LAYERS, 0, 0);
    L->host_bytes = L->host_logits + (uint64_t)VOCAB * 2 + (1u << 20);
}

static void load_constants(gemma *g, const layout *L)
{
    uint32_t T = g->o.context;
    uint16_t c[5];
    /* §8.2 ext: n at C, scratch, eps at C+2, scratch, scratch */
    c[0] = bf16(2048.0f), c[1] = 0, c[2] = bf16(1e-6f), c[3] = c[4] = 0;
    l2_put(g, L->nc2048, c, 5);
    c[0] = bf16(256.0f);
    l2_put(g, L->nc256, c, 5);
    uint32_t gam[7] = {L->g_in, L->g_pa, L->g_pf, L->g_pff, L->g_fin, L->g_q, L->g_k};
    for (int i = 0; i < 7; i++)
        l2_fill(g, gam[i], i < 5 ? D : HD, 0.5f, 1.5f);
    /* RoPE [pos | ω_0 .. ω_127] for local (θ base 10,000) and global (1,000,000) layers; the new
     * token's position is T - 1 (rounded to BF16 by the recipe, as a BF16 program would) */
    for (int i = 0; i < 2; i++) {
        uint16_t v[HALF + 1];
        double base = i ? 1e6 : 1e4;
        v[0] = bf16((float)(T - 1));
        for (int j = 0; j < HALF; j++)
            v[1 + j] = bf16((float)pow(base, -2.0 * j / HD));
        l2_put(g, L->ths[i], v, HALF + 1);
        uint16_t m1 = bf16(-1.0f);
        l2_put(g, L->snt[i], &m1, 1);
    }
}

/* ---- the recipes of §8 ---------------------------------------------------------------------- */

/* §8.2 ext RMSNorm of n elements at x (x - 1 is free) into y, times γ unless gamma == 0. */
static void rmsnorm(gemma *g, uint32_t cblk, uint32_t x, uint32_t y, uint32_t n, uint32_t gamma)
{
    cvo(g, PCCX_CVO_REDUCE_SUMSQ, x, cblk + 1, n, 0);
    cvo(g, PCCX_CVO_SCALE, cblk, cblk + 3, 2, PCCX_CVO_FLAG_RECIP_SCALE);
    cvo(g, PCCX_CVO_ADDS, cblk + 2, cblk + 4, 2, 0);
    cvo(g, PCCX_CVO_SQRT, cblk + 4, cblk + 4, 1, 0);
    cvo(g, PCCX_CVO_RECIP, cblk + 4, x - 1, 1, 0);
    cvo(g, PCCX_CVO_SCALE, x - 1, y, n + 1, 0);
    if (gamma)
        cvo(g, PCCX_CVO_VMUL, gamma, y, n, 0);
}

/* §8.3 per-token tables CC = [cos|cos] and SS = [-sin|sin], replicated for 8 heads. */
static void rope_tables(gemma *g, const layout *L, int i)
{
    cvo(g, PCCX_CVO_SCALE, L->ths[i], L->th[i], HALF + 1, 0);           /* θ = pos · ω */
    cvo(g, PCCX_CVO_COS, L->th[i], L->cc[i], HALF, 0);
    cvo(g, PCCX_CVO_COS, L->th[i], L->cc[i] + HALF, HALF, 0);
    cvo(g, PCCX_CVO_SIN, L->th[i], L->snt[i] + 1, HALF, 0);
    cvo(g, PCCX_CVO_SCALE, L->snt[i], L->ss[i], HALF + 1, 0);           /* -1 · sin */
    cvo(g, PCCX_CVO_COPY, L->snt[i] + 1, L->ss[i] + HALF, HALF, 0);
    for (uint32_t w = HD; w < NQ * HD; w *= 2) {                        /* doubling copies */
        cvo(g, PCCX_CVO_COPY, L->cc[i], L->cc[i] + w, w, 0);
        cvo(g, PCCX_CVO_COPY, L->ss[i], L->ss[i] + w, w, 0);
    }
}

/* §8.3 half-split RoPE of nh heads at x into out (r is scratch). */
static void rope(gemma *g, const layout *L, int global, uint32_t x, uint32_t out, uint32_t nh)
{
    uint32_t n = nh * HD;
    cvo(g, PCCX_CVO_COPY, L->cc[global], out, n, 0);
    cvo(g, PCCX_CVO_VMUL, x, out, n, 0);                                /* x ⊙ [c|c] */
    for (uint32_t h = 0; h < nh; h++) {
        cvo(g, PCCX_CVO_COPY, x + h * HD + HALF, L->r + h * HD, HALF, 0);
        cvo(g, PCCX_CVO_COPY, x + h * HD, L->r + h * HD + HALF, HALF, 0);
    }
    cvo(g, PCCX_CVO_VMUL, L->ss[global], L->r, n, 0);                   /* [-x2 s | x1 s] */
    cvo(g, PCCX_CVO_COPY, L->r, out, n, PCCX_CVO_FLAG_ACCM);
}

/* L2 -> host MEMCPY of n elements (n % 8 == 0) at element e to host byte `at`. */
static void to_host(gemma *g, uint32_t e, uint64_t at, uint32_t n)
{
    if (g->dry)
        return;
    unsigned shp = fmap(g, 1, n, 1);
    ok(g, pccx_host_window(g->c, at), "host_window");
    ok(g, pccx_memcpy(g->c, 0, 1, 0, e / 8, 0, shp, 1), "memcpy l2h");
    note(g, L_OTHER);
}

static pccx_weight_t view(gemma *g, uint64_t base, uint32_t n, uint32_t k, int64_t sn,
                          int64_t sk)
{
    pccx_weight_t h = 0;
    if (g->dry)
        return 0;
    ok(g, pccx_weight_view_bf16(g->c, base, n, k, sn, sk, &h), "weight_view_bf16");
    return h;
}

/* §8.1 softmax of n scores at s into p (e - 1 .. e + n - 1 scratch); E_MAX already holds the
 * maximum (findemax) unless reduce_max is set. */
static void softmax(gemma *g, uint32_t s, uint32_t e, uint32_t p, uint32_t n, int reduce_max)
{
    if (reduce_max)
        cvo(g, PCCX_CVO_REDUCE_MAX, s, e - 1, n, 0);
    cvo(g, PCCX_CVO_EXP, s, e, n, PCCX_CVO_FLAG_SUB_EMAX);
    cvo(g, PCCX_CVO_REDUCE_SUM, e, e - 1, n, 0);
    cvo(g, PCCX_CVO_SCALE, e - 1, p, n + 1, PCCX_CVO_FLAG_RECIP_SCALE);
}

/* Attention of the 8 query heads (rotated, at qr) over the last T cached positions of cache
 * layer cl (no 1/sqrt(d) scaling, §14.1) into ao; local layers see at most `window` of them.
 * Views: scores use K as (n = T, k = 256), the weighted sum uses V transposed (n = 256, k = T). */
static void attention(gemma *g, const layout *L, int cl, int global)
{
    uint32_t T = g->o.context;
    uint64_t skip;
    if (!global && g->o.window && T > g->o.window)
        T = g->o.window;
    skip = (uint64_t)(g->o.context - T) * HD * 2;   /* bytes of the rows outside the window */
    if (g->o.gqa) {
        /* one GEMM with M = 4 query heads per KV head: each cache block streams once */
        for (int j = 0; j < NKV; j++) {
            int b = j % L->nsets;
            pccx_weight_t kv = view(g, kv_block(g, L, cl, j, 0) + skip, T, HD, HD, 1);
            matmul(g, L_SCORE, 1, kv, 1, L->s[b], L->qr + (uint32_t)j * 4 * HD, 4, HD, T, 0);
            for (uint32_t r = 0; r < 4; r++)
                softmax(g, L->s[b] + r * T, L->e[b], L->pb[b] + r * T, T, 1);
            pccx_weight_t vv = view(g, kv_block(g, L, cl, j, 1) + skip, HD, T, 1, HD);
            matmul(g, L_PV, 1, vv, 1, L->ao + (uint32_t)j * 4 * HD, L->pb[b], 4, T, HD, 0);
        }
        return;
    }
    /* per query head, software-pipelined: scores(h), softmax(h), then PV(h-1), so the GEMV engine
     * streams scores(h) while the CVO engine runs softmax(h-1); two scratch sets suffice. With
     * --split the PV GEMVs run as GEMM (M = 1) on HP0/HP1. */
    for (int h = 0; h <= NQ; h++) {
        if (h < NQ) {
            int b = h % L->nsets;
            pccx_weight_t kv = view(g, kv_block(g, L, cl, h / 4, 0) + skip, T, HD, HD, 1);
            matmul(g, L_SCORE, 0, kv, 1, L->s[b], L->qr + (uint32_t)h * HD, 1, HD, T,
                   PCCX_FLAG_FINDEMAX);
            softmax(g, L->s[b], L->e[b], L->pb[b], T, 0);
        }
        if (h > 0) {
            int p = h - 1, b = p % L->nsets;
            pccx_weight_t vv = view(g, kv_block(g, L, cl, p / 4, 1) + skip, HD, T, 1, HD);
            matmul(g, L_PV, g->o.split, vv, 1, L->ao + (uint32_t)p * HD, L->pb[b], 1, T, HD, 0);
        }
    }
}

static void layer(gemma *g, const layout *L, int l)
{
    int global = l % 5 == 4, has_kv = l < KV_LAYERS;
    int cl = has_kv ? l : (global ? 19 : 18);
    uint32_t pos = g->o.context - 1;
    rmsnorm(g, L->nc2048, L->h, L->xn, D, L->g_in);
    proj(g, L_Q, L->q, L->xn, D, NQ * HD);
    if (has_kv) {
        proj(g, L_K, L->k, L->xn, D, KVD);
        proj(g, L_V, L->v, L->xn, D, KVD);
    }
    /* q_norm / k_norm (with γ) and v_norm (without), per head: the scalar slot of head h is the
     * last element of head h - 1, already consumed in program order */
    for (uint32_t h = 0; h < NQ; h++)
        rmsnorm(g, L->nc256, L->q + h * HD, L->qn + h * HD, HD, L->g_q);
    rope(g, L, global, L->qn, L->qr, NQ);
    if (has_kv) {
        for (uint32_t h = 0; h < NKV; h++) {
            rmsnorm(g, L->nc256, L->k + h * HD, L->kn + h * HD, HD, L->g_k);
            rmsnorm(g, L->nc256, L->v + h * HD, L->vn + h * HD, HD, 0);
        }
        rope(g, L, global, L->kn, L->kr, NKV);
        for (int h = 0; h < NKV; h++) {   /* append this token's K and V to the host cache */
            to_host(g, L->kr + (uint32_t)h * HD, kv_block(g, L, cl, h, 0) + (uint64_t)pos * HD * 2,
                    HD);
            to_host(g, L->vn + (uint32_t)h * HD, kv_block(g, L, cl, h, 1) + (uint64_t)pos * HD * 2,
                    HD);
        }
    }
    attention(g, L, cl, global);
    proj(g, L_O, L->tmp, L->ao, NQ * HD, D);
    rmsnorm(g, L->nc2048, L->tmp, L->tn, D, L->g_pa);
    cvo(g, PCCX_CVO_COPY, L->tn, L->h, D, PCCX_CVO_FLAG_ACCM);           /* residual */
    rmsnorm(g, L->nc2048, L->h, L->xn, D, L->g_pf);
    proj(g, L_GATE, L->gb, L->xn, D, FF);
    proj(g, L_UP, L->ub, L->xn, D, FF);
    cvo(g, PCCX_CVO_GELU, L->gb, L->gb, FF, 0);
    cvo(g, PCCX_CVO_VMUL, L->gb, L->ub, FF, 0);                          /* gelu(gate) ⊙ up */
    proj(g, L_DOWN, L->tmp, L->ub, FF, D);
    rmsnorm(g, L->nc2048, L->tmp, L->tn, D, L->g_pff);
    cvo(g, PCCX_CVO_COPY, L->tn, L->h, D, PCCX_CVO_FLAG_ACCM);           /* residual */
}

/* The decode step: embedding row in, RoPE tables, the layers, final norm, LM head, logits out.
 * In a dry pass only the weight streams are accounted. */
static void step(gemma *g, const layout *L, int layers, int lm_chunks)
{
    if (!g->dry) {
        ok(g, pccx_host_window(g->c, L->host_emb), "host_window");
        ok(g, pccx_memcpy(g->c, 1, 0, L->h / 8, 0, 0, fmap(g, 1, D, 1), 1), "memcpy h2l");
        note(g, L_OTHER);
    }
    rope_tables(g, L, 0);
    rope_tables(g, L, 1);
    for (int l = 0; l < layers; l++)
        layer(g, L, l);
    rmsnorm(g, L->nc2048, L->h, L->xn, D, L->g_fin);
    for (int j = 0; j < lm_chunks; j++) {
        uint32_t y = L->logits + (uint32_t)j * LM_CHUNK;
        if (g->o.split) {
            matmul(g, L_LM, 0, tensor(g, D, LM_CHUNK / 2), 0, y, L->xn, 1, D, LM_CHUNK / 2, 0);
            matmul(g, L_LM, 1, tensor(g, D, LM_CHUNK / 2), 0, y + LM_CHUNK / 2, L->xn, 1, D,
                   LM_CHUNK / 2, 0);
        } else {
            matmul(g, L_LM, 0, tensor(g, D, LM_CHUNK), 0, y, L->xn, 1, D, LM_CHUNK, 0);
        }
        /* logits to the host, which samples (the 30·tanh(x/30) softcap does not change argmax) */
        to_host(g, y, L->host_logits + (uint64_t)j * LM_CHUNK * 2, LM_CHUNK);
    }
}

static uint64_t bound_of(const acct *a)
{
    uint64_t v = a->by_engine[PCCX_ENG_GEMV].tw, m = a->by_engine[PCCX_ENG_GEMM].tw;
    return v > m ? v : m;
}

/* ---- report ---------------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: pccx_gemma [options]\n"
            "One Gemma-3N-E4B-shaped decode step (spec §14) through the pccx host API,\n"
            "ext profile, default timing parameters (§11.1). Prints cycles, tokens/s and the\n"
            "weight-streaming bound of §11.3 computed from the same parameters.\n"
            "  --split         spread the projections over GEMV (HP2/HP3) and GEMM M=1 (HP0/HP1)\n"
            "  --gqa           attention as one GEMM (M = 4 query heads) per KV head\n"
            "  --context T     positions in the KV cache, including the new token (default 256)\n"
            "  --window W      local (sliding-window) layers attend the last W positions only\n"
            "                  (default 512, Gemma 3n's sliding_window; 0 = all positions)\n"
            "  --layers L      decoder layers to issue, 1..35 (default 35); fewer layers is NOT a\n"
            "                  full step: a labelled extrapolation to 35 layers is then printed\n"
            "  --lm-chunks C   LM-head GEMVs of N = 52,480 to issue, 0..5 (default 5)\n"
            "  --hp-bytes B    bytes per AXI cycle of each HP weight port (default 16 = 4 GB/s);\n"
            "                  a what-if on the weight bandwidth, everything else default\n"
            "  --core-mhz F    core clock f_core in MHz (default 400)\n"
            "  --gemv-ports M  HP ports GEMV streams over, a mask of bits 0..3 (default 0xC)\n"
            "  --gemm-ports M  HP ports GEMM streams over (default 0x3)\n"
            "  --stats-json F  write the run's statistics as JSON to F (npukit's format, as\n"
            "                  'npukit run --stats=json'; what npukit sweep reads)\n"
            "  --timeline F    write a Perfetto (Chrome trace-event) timeline to F\n"
            "  --check X       check mode: exit 1 unless the run has no fault, all logits are\n"
            "                  finite and bound <= cycles <= X * bound\n"
            "  --help          this text\n");
}

static void parse(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->layers = NLAYERS;
    o->lm_chunks = LM_CHUNKS;
    o->context = 256;
    o->window = 512;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--split")) {
            o->split = 1;
        } else if (!strcmp(a, "--gqa")) {
            o->gqa = 1;
        } else if (!strcmp(a, "--context") && more) {
            o->context = (uint32_t)strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(a, "--window") && more) {
            o->window = (uint32_t)strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(a, "--layers") && more) {
            o->layers = atoi(argv[++i]);
        } else if (!strcmp(a, "--lm-chunks") && more) {
            o->lm_chunks = atoi(argv[++i]);
        } else if (!strcmp(a, "--hp-bytes") && more) {
            o->hp_bytes = (uint32_t)strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(a, "--core-mhz") && more) {
            o->core_mhz = (uint32_t)strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(a, "--gemv-ports") && more) {
            o->gemv_ports = (uint32_t)strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(a, "--gemm-ports") && more) {
            o->gemm_ports = (uint32_t)strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(a, "--stats-json") && more) {
            o->stats_json = argv[++i];
        } else if (!strcmp(a, "--timeline") && more) {
            o->timeline = argv[++i];
        } else if (!strcmp(a, "--check") && more) {
            o->check = atof(argv[++i]);
        } else {
            usage(stderr);
            die("bad option %s", a);
        }
    }
    if (o->context < 1 || o->context > 4096)
        die("%s", "--context must be 1..4096");
    if (o->layers < 1 || o->layers > NLAYERS)
        die("%s", "--layers must be 1..35");
    if (o->lm_chunks < 0 || o->lm_chunks > LM_CHUNKS)
        die("%s", "--lm-chunks must be 0..5");
    if (o->check < 0)
        die("%s", "--check needs a positive factor");
    if (o->core_mhz > 10000)
        die("%s", "--core-mhz must be 1..10000");
    if (o->gemv_ports > 0xF || o->gemm_ports > 0xF)
        die("%s", "--gemv-ports and --gemm-ports are masks of the HP ports 0..3 (1..0xF)");
}

int main(int argc, char **argv)
{
    gemma G;
    gemma *g = &G;
    layout L;
    memset(g, 0, sizeof *g);
    parse(argc, argv, &g->o);
    g->rng = 0x9E3779B97F4A7C15ull;
    pccx_timing_default(&g->p);
    if (g->o.hp_bytes)
        g->p.hp_bytes_per_axi_cycle = g->o.hp_bytes;
    if (g->o.core_mhz)
        g->p.f_core_mhz = g->o.core_mhz;
    if (g->o.gemv_ports)
        g->p.gemv_ports = g->o.gemv_ports;
    if (g->o.gemm_ports)
        g->p.gemm_ports = g->o.gemm_ports;
    uint32_t T = g->o.context;

    /* wall and CPU time: on a shared VM the CPU time is the stable figure */
    double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    make_layout(g, &L);
    /* the full step's bound, whatever part of it is issued: a dry pass over the same code */
    g->dry = 1;
    g->acc = &g->full;
    step(g, &L, NLAYERS, LM_CHUNKS);
    g->dry = 0;
    pccx_config_t cfg = {0};
    cfg.ext = 1;
    cfg.timing = &g->p;   /* the same parameters as the analytic bound */
    cfg.host_ddr_bytes = (L.host_bytes + 15) & ~(uint64_t)15;
    ok(g, pccx_init(&g->c, &cfg), "pccx_init");
    if (g->o.stats_json && npk_stats_enable(pccx_machine(g->c), 1) != NPK_OK)
        die("%s", "cannot enable the statistics");
    if (g->o.timeline && npk_timeline_open(pccx_machine(g->c), g->o.timeline) != NPK_OK)
        die("cannot open the timeline %s", g->o.timeline);
    load_constants(g, &L);
    /* host DDR: the embedding row and T - 1 cached positions per KV layer and head */
    {
        size_t n = (size_t)(T > D ? T : D) * HD;
        uint16_t *v = malloc(n * sizeof *v);
        if (!v)
            die("%s", "out of memory");
        for (size_t i = 0; i < D; i++)
            v[i] = bf16((float)(2.0 * urand(g) - 1.0));
        ok(g, pccx_host_write(g->c, L.host_emb, v, D * 2), "host_write");
        for (int cl = 0; cl < KV_LAYERS; cl++)
            for (int h = 0; h < NKV; h++)
                for (int isv = 0; isv < 2; isv++) {
                    size_t m = (size_t)(T - 1) * HD;
                    for (size_t i = 0; i < m; i++)
                        v[i] = bf16((float)(0.5 * urand(g) - 0.25));
                    if (m)
                        ok(g, pccx_host_write(g->c, kv_block(g, &L, cl, h, isv), v, m * 2),
                           "host_write");
                }
        free(v);
    }
    /* every distinct weight shape up front, so the wall time below is the step alone */
    if (g->o.split) {
        uint32_t ks[] = {D, D, D, D, FF, D}, ns[] = {D / 2, KVD, FF, D / 2, D / 2, LM_CHUNK / 2};
        for (int i = 0; i < 6; i++)
            tensor(g, ks[i], ns[i]);
    } else {
        uint32_t ks[] = {D, D, D, FF, D}, ns[] = {D, KVD, FF, D, LM_CHUNK};
        for (int i = 0; i < 5; i++)
            tensor(g, ks[i], ns[i]);
    }
    double t1 = clock_s(CLOCK_MONOTONIC), c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);

    /* ---- the decode step ---- */
    g->acc = &g->issued;
    step(g, &L, g->o.layers, g->o.lm_chunks);
    ok(g, pccx_sync(g->c, 0), "pccx_sync");
    double t2 = clock_s(CLOCK_MONOTONIC), c2 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    if (g->o.timeline && npk_timeline_close(pccx_machine(g->c)) != NPK_OK)
        die("cannot write the timeline %s", g->o.timeline);

    pccx_stats_t st;
    ok(g, pccx_stats(g->c, &st), "pccx_stats");

    /* where the time goes: engine time (s..c) per label, and the time the GEMV / GEMM engine
     * sat idle before each instruction (waiting for its operands), charged to that instruction */
    uint64_t lab_time[L_N] = {0}, lab_idle[L_N][2] = {{0}}, last_c[2] = {0, 0};
    for (uint64_t i = 0; i < g->nissued; i++) {
        pccx_times_t tt;
        ok(g, pccx_insn_times(g->c, i, &tt), "insn_times");
        lab_time[g->label[i]] += tt.c - tt.s;
        if (tt.engine == PCCX_ENG_GEMV || tt.engine == PCCX_ENG_GEMM) {
            int e = tt.engine == PCCX_ENG_GEMM;
            lab_idle[g->label[i]][e] += tt.s > last_c[e] ? tt.s - last_c[e] : 0;
            last_c[e] = tt.c;
        }
    }

    /* logits: finite, argmax (functional sanity) */
    size_t nlog = (size_t)g->o.lm_chunks * LM_CHUNK, bad = 0, arg = 0;
    float best = -INFINITY;
    uint64_t digest = 0xcbf29ce484222325ull; /* FNV-1a of the logits' BF16 bits: same output */
    if (nlog) {
        uint16_t *lg = malloc(nlog * 2);
        if (!lg)
            die("%s", "out of memory");
        ok(g, pccx_host_read(g->c, L.host_logits, lg, nlog * 2), "host_read");
        for (size_t i = 0; i < nlog; i++) {
            float f = from_bf16(lg[i]);
            digest = (digest ^ (lg[i] & 0xFF)) * 0x100000001b3ull;
            digest = (digest ^ (lg[i] >> 8)) * 0x100000001b3ull;
            if (!isfinite(f))
                bad++;
            else if (f > best)
                best = f, arg = i;
        }
        free(lg);
    }

    /* ---- the report ---- */
    double f = g->p.f_core_mhz * 1e6;
    uint64_t bound = bound_of(&g->issued), full = bound_of(&g->full);
    uint64_t hp_total = st.hp_bytes[0] + st.hp_bytes[1] + st.hp_bytes[2] + st.hp_bytes[3];
    npk_bench_machine();
    printf("pccx_gemma: Gemma-3N-E4B-shaped decode step, %s projections, %s attention, "
           "context %u (window %u), %d/%d layers, %d/%d LM-head chunks\n",
           g->o.split ? "split GEMV+GEMM(M=1)" : "GEMV-only",
           g->o.gqa     ? "GQA GEMM(M=4)"
           : g->o.split ? "per-head GEMV(QK)+GEMM(PV)"
                        : "per-head GEMV",
           T, g->o.window, g->o.layers, NLAYERS, g->o.lm_chunks, LM_CHUNKS);
    if (g->o.hp_bytes)
        printf("WHAT-IF timing: hp_bytes_per_axi_cycle = %u (default 16): %.1f GB/s per HP port\n",
               g->p.hp_bytes_per_axi_cycle, g->p.hp_bytes_per_axi_cycle * g->p.f_axi_mhz * 1e-3);
    printf("instructions           %" PRIu64 " (MACs %.3f G, weights streamed %.3f G elements)\n",
           st.insns, (double)st.macs * 1e-9, (double)st.weights_streamed * 1e-9);
    printf("simulated cycles       %" PRIu64 "  = %.3f ms at %u MHz\n", st.cycles,
           st.seconds * 1e3, g->p.f_core_mhz);
    printf("tokens/s               %.3f  (f_core / cycles)\n", f / (double)st.cycles);
    printf("weight-stream bound    %" PRIu64 " cycles  (max over engines of sum T_w, §11.3)"
           "  -> %.3f tok/s\n", bound, f / (double)bound);
    printf("cycles / bound         %.4f\n", (double)st.cycles / (double)bound);
    for (int e = PCCX_ENG_GEMV; e <= PCCX_ENG_GEMM; e++) {
        const wsum *s = &g->issued.by_engine[e];
        printf("  %-4s engine: %6" PRIu64 " weight streams, %12" PRIu64 " beats = %8.2f MB, "
               "sum T_w %11" PRIu64 " cycles\n", engine_name[e], s->count, s->beats,
               (double)s->beats * 16e-6, s->tw);
    }
    printf("per matrix (issued):   count       beats     sum T_w  engine time (s..c)  "
           "GEMV idle before  GEMM idle before\n");
    for (int l = 0; l < L_N; l++) {
        const wsum *s = &g->issued.by_label[l];
        if (!s->count)
            continue;
        printf("  %-9s %12" PRIu64 " %11" PRIu64 " %11" PRIu64 " %12" PRIu64 " %17" PRIu64
               " %17" PRIu64 "\n", label_name[l], s->count, s->beats, s->tw, lab_time[l],
               lab_idle[l][0], lab_idle[l][1]);
    }
    printf("engines (busy = sum of start..completion, share = busy / cycles)\n");
    for (int e = 0; e < PCCX_N_ENGINES; e++)
        printf("  %-6s %6" PRIu64 " insns  busy %12" PRIu64 "  share %6.2f %%\n", engine_name[e],
               st.engine_insns[e], st.engine_busy[e],
               100.0 * (double)st.engine_busy[e] / (double)st.cycles);
    printf("port B busy            %" PRIu64 " cycles (%.2f %%)\n", st.port_b_busy,
           100.0 * (double)st.port_b_busy / (double)st.cycles);
    printf("HP bytes               HP0 %" PRIu64 "  HP1 %" PRIu64 "  HP2 %" PRIu64 "  HP3 %" PRIu64
           "  (total %.2f MB, %.2f GB/s average)\n", st.hp_bytes[0], st.hp_bytes[1],
           st.hp_bytes[2], st.hp_bytes[3], (double)hp_total * 1e-6,
           (double)hp_total / st.seconds * 1e-9);
    printf("ACP bytes              %" PRIu64 "\n", st.acp_bytes);
    printf("stalls                 fifo_full %" PRIu64 "  queue_full %" PRIu64
           "  sync_wait %" PRIu64 "  hazard_wait %" PRIu64 "\n", st.stall_fifo_full,
           st.stall_queue_full, st.stall_sync_wait, st.hazard_wait);
    printf("engine idle            GEMV %" PRIu64 "  GEMM %" PRIu64 " cycles (cycles - busy)\n",
           st.cycles - st.engine_busy[PCCX_ENG_GEMV],
           st.engine_insns[PCCX_ENG_GEMM] ? st.cycles - st.engine_busy[PCCX_ENG_GEMM] : 0);
    if (nlog)
        printf("logits                 %zu, non-finite %zu, argmax %zu (%.4g), digest %016" PRIx64
               "\n", nlog, bad, arg, (double)best, digest);
    printf("host time              setup %.2f s wall (%.2f s CPU), step (issue + functional + "
           "timing) %.2f s wall (%.2f s CPU%s)\n", t1 - t0, c1 - c0, t2 - t1, c2 - c1,
           g->o.layers == NLAYERS && g->o.lm_chunks == LM_CHUNKS
               ? "; goal for a whole step: under 0.8 s CPU, docs/performance.md" : "");
    if (g->o.layers < NLAYERS || g->o.lm_chunks < LM_CHUNKS) {
        /* scaled by the weight-streaming work, which is what the step is made of */
        double est = (double)st.cycles * (double)full / (double)bound;
        printf("NOTE: a reduced step (%d of %d layers, %d of %d LM chunks): the figures above are "
               "NOT a full decode step.\n", g->o.layers, NLAYERS, g->o.lm_chunks, LM_CHUNKS);
        printf("EXTRAPOLATION (linear in the bound, not simulated): full step ~ %.0f cycles = "
               "%.3f tok/s\n", est, f / est);
    }
    printf("full-step bound        %" PRIu64 " cycles -> %.3f tok/s (35 layers, 5 LM chunks, "
           "this context; analytic)\n", full, f / (double)full);

    int fail = 0;
    if (g->o.check > 0) {
        if (st.cycles < bound) {
            printf("CHECK FAILED: cycles %" PRIu64 " below the bound %" PRIu64 "\n", st.cycles,
                   bound);
            fail = 1;
        }
        if ((double)st.cycles > g->o.check * (double)bound) {
            printf("CHECK FAILED: cycles %" PRIu64 " above %.3f x bound\n", st.cycles,
                   g->o.check);
            fail = 1;
        }
        if (bad) {
            printf("CHECK FAILED: %zu non-finite logits\n", bad);
            fail = 1;
        }
        if (st.insns != g->nissued) {
            printf("CHECK FAILED: %" PRIu64 " instructions counted, %" PRIu64 " issued\n",
                   st.insns, g->nissued);
            fail = 1;
        }
        if (!fail)
            printf("CHECK OK: bound <= cycles <= %.3f x bound, no fault, logits finite\n",
                   g->o.check);
    }
    if (g->o.stats_json) {
        FILE *jf = fopen(g->o.stats_json, "w");
        if (!jf || npk_stats_json(pccx_machine(g->c), jf) != NPK_OK || fclose(jf) != 0)
            die("cannot write the statistics to %s", g->o.stats_json);
    }
    pccx_deinit(g->c);
    free(g->label);
    return fail;
}
