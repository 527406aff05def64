/* The pccx lowering (docs/models.md, "Lowering to pccx"): a plan becomes one self-contained
 * program file in the §13 assembly format (ext profile), BF16 activations in L2 and INT4 weight
 * tensors with per-row scales streamed through the weight queue (spec §5.4). Every layer is
 * GEMVs plus CVOs:
 * - dense: one GEMV (w_scale; the bias, BF16, preloaded into the output by MEMCPY host->L2 and
 *   added with accm);
 * - conv: one GEMV per output row over the kh input rows it reads, with a banded weight matrix
 *   (the filter taps at their columns, zeros elsewhere); the per-output-channel scales are the
 *   rows' scales;
 * - average pool: the same with codes 1 and the scale 1/count; max pool: a gather GEMV (codes 1)
 *   per output row puts each window's elements side by side, then one REDUCE_MAX per output;
 * - consecutive output rows that read and write packed consecutive blocks with the same
 *   weights (stride = kernel height, rows without padding) are one GEMM instead;
 * - activations with CVO: ReLU as MAXS with a zero scalar (ext), GELU (tanh form), TANH (ext),
 *   sigmoid as 0.5 + 0.5 tanh(x / 2) (SCALE, TANH, SCALE, ADDS), LeakyRelu as
 *   relu(x) + alpha min(x, 0) (MAXS, SCALE, COPY, SCALE, COPY); softmax as spec §8.1 with
 *   REDUCE_MAX setting E_MAX.
 * Rank-3 tensors are kept as H rows of `pitch` elements (W * C rounded up to a whole L2 word),
 * element (y, x, c) at y * pitch + x * C + c: the GEMVs read and write whole rows at word
 * addresses. The host converts the model's CHW input and output. The program is run through the
 * public API: npk_load_asm once, then per inference npk_reset, the input written to host DDR,
 * npk_run, the output read back. No global state. */
#include "targets/pccx/lower.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/npukit.h"
#include "npukit/pccx.h"
#include "num/num.h"

/* CVO operands must start in the first 131,072 elements (spec §5.1): the whole L2 layout stays
 * in the first 16,384 words. Host data stays in one 2 MiB window (17-bit aux, §5.3). */
#define L2_LIMIT_WORDS 16384u
#define HOST_LIMIT (1u << 21)
#define FIELD_MAX 65535u

void npk_pccx_quant_rows(const float *w, size_t rows, size_t cols, int8_t *codes, float *scale)
{
    for (size_t r = 0; r < rows; r++) {
        const float *row = w + r * cols;
        double mx = 0.0;
        for (size_t i = 0; i < cols; i++)
            mx = fabs((double)row[i]) > mx ? fabs((double)row[i]) : mx;
        float s = mx > 0.0 ? (float)(mx / 7.0) : 1.0f;
        if (s == 0.0f)   /* a row of values below 7 * the smallest subnormal */
            s = 1.0f;
        scale[r] = s;
        for (size_t i = 0; i < cols; i++) {
            double q = nearbyint((double)row[i] / (double)s);
            codes[r * cols + i] = (int8_t)(q > 7 ? 7 : q < -7 ? -7 : q);
        }
    }
}

/* ---- the program text --------------------------------------------------------------------- */

typedef struct sbuf {
    char *s;
    size_t len, cap;
} sbuf;

/* Where a plan tensor lives: `at` (element address, word aligned, with the element before it
 * reserved as a scalar slot), `n` stored elements; rank-3 tensors as rows of `pitch`. */
typedef struct tlay {
    int hwc;
    int C, H, W;
    uint32_t pitch;
    uint32_t at, n;
} tlay;

typedef struct pb {
    const npk_plan *p;
    size_t layer;           /* the layer being lowered, for messages */
    char *err;
    size_t err_size;
    int failed, oom;
    sbuf data, code;        /* directives and weights; instructions */
    uint32_t l2_next;       /* words */
    uint32_t host_next;     /* bytes */
    uint32_t shp[PCCX_CC_ENTRIES][3];
    uint64_t shp_used[PCCX_CC_ENTRIES];
    uint64_t clock;
    int pin;
    unsigned n_weights;
    uint64_t n_insns, weight_bytes;
    tlay *t;
    uint32_t in_host, out_host;
} pb;

static void sb_vadd(pb *b, sbuf *s, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0 || b->oom)
        return;
    if (s->len + (size_t)n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + (size_t)n + 1)
            cap *= 2;
        char *p = realloc(s->s, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        s->s = p;
        s->cap = cap;
    }
    vsnprintf(s->s + s->len, s->cap - s->len, fmt, ap);
    s->len += (size_t)n;
}

#if defined(__GNUC__)
#define PRINTF_LIKE(a, b) __attribute__((format(printf, a, b)))
#else
#define PRINTF_LIKE(a, b)
#endif

static void PRINTF_LIKE(2, 3) data(pb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vadd(b, &b->data, fmt, ap);
    va_end(ap);
}

static void PRINTF_LIKE(2, 3) insn(pb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vadd(b, &b->code, fmt, ap);
    va_end(ap);
    b->n_insns++;
}

/* The first error wins; it names the layer being lowered (or none, before the first). */
static int PRINTF_LIKE(2, 3) fail(pb *b, const char *fmt, ...)
{
    if (b->failed)
        return -1;
    b->failed = 1;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return npk_lower_fail(b->err, b->err_size, b->p, b->layer, "%s", msg);
}

/* BF16 as pccx rounds it (§3.2 RNE16: round to nearest even, NaN -> 0x7FC0): src/num's rule,
 * the one the machine's own conversions use. */
static uint16_t bf16_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    npk_fenv e;
    npk_fenv_init(&e, NPK_RM_RNE);
    return npk_f32_to_bf16(u, &e);
}

static float f32_of_bf16(uint16_t h)
{
    uint32_t u = npk_bf16_to_f32(h);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* `elems` elements at a word boundary, the element before them reserved (a scalar slot). */
static int l2_alloc(pb *b, uint64_t elems, uint32_t *at, const char *what)
{
    uint64_t words = b->l2_next + 1 + (elems + 7) / 8;
    if (words > L2_LIMIT_WORDS)
        return fail(b, "the L2 layout needs %llu words with the %s (%llu elements); the part of "
                    "L2 that CVO reaches is %u words (spec §5.1)", (unsigned long long)words,
                    what, (unsigned long long)elems, L2_LIMIT_WORDS);
    *at = 8 * (b->l2_next + 1);
    b->l2_next = (uint32_t)words;
    return 0;
}

static int host_alloc(pb *b, uint64_t bytes, uint32_t *at, const char *what)
{
    uint64_t end = b->host_next + ((bytes + 15) & ~(uint64_t)15);
    if (end > HOST_LIMIT)
        return fail(b, "host data needs %llu bytes with the %s; one host window is %u bytes "
                    "(spec §5.3)", (unsigned long long)end, what, HOST_LIMIT);
    *at = b->host_next;
    b->host_next = (uint32_t)end;
    return 0;
}

/* The fmap entry holding (x, y, z), written by MEMSET on first use; the least recently used
 * entry is replaced when all 64 are taken (never the one the same instruction already uses). */
static unsigned shape(pb *b, uint32_t x, uint32_t y, uint32_t z)
{
    int best = -1;
    for (int i = 0; i < (int)PCCX_CC_ENTRIES; i++)
        if (b->shp_used[i] && b->shp[i][0] == x && b->shp[i][1] == y && b->shp[i][2] == z) {
            best = i;
            break;
        }
    if (best < 0) {
        for (int i = 0; i < (int)PCCX_CC_ENTRIES; i++)
            if (i != b->pin && (best < 0 || b->shp_used[i] < b->shp_used[best]))
                best = i;
        insn(b, "    memset fmap, idx=%d, a=%u, b=%u, c=%u\n", best, x, y, z);
        b->shp[best][0] = x;
        b->shp[best][1] = y;
        b->shp[best][2] = z;
    }
    b->shp_used[best] = ++b->clock;
    b->pin = best;
    return (unsigned)best;
}

/* A shape of `n` elements for MEMCPY: (1, n, 1), or whole words (words, 8, 1). */
static unsigned copy_shape(pb *b, uint32_t n)
{
    b->pin = -1;
    return n <= FIELD_MAX ? shape(b, 1, n, 1) : shape(b, (n + 7) / 8, 8, 1);
}

/* BF16 values into host DDR (program data), n padded with zeros to whole words. */
static int host_data(pb *b, const float *v, uint32_t n, uint32_t *at, const char *what)
{
    if (host_alloc(b, 2ull * n, at, what))
        return -1;
    data(b, ".host byte=0x%x\n", *at);
    for (uint32_t i = 0; i < n; i++)
        data(b, "%s0x%04x%s", i % 16 ? ", " : ".h16 ", bf16_of(v[i]),
             i % 16 == 15 || i + 1 == n ? "\n" : "");
    return 0;
}

static void memcpy_h2l(pb *b, uint32_t l2_elem, uint32_t host, uint32_t n)
{
    unsigned s = copy_shape(b, n);
    insn(b, "    memcpy.h2l dst=0x%x, aux=0x%x, shape=%u, async\n", l2_elem / 8, host / 16, s);
}

/* An INT4 tensor (codes n x k row by row, -8..7) and its row scales; returns its number. */
static unsigned weight(pb *b, uint32_t k, uint32_t n, const int8_t *codes, const float *scale)
{
    unsigned id = b->n_weights++;
    data(b, ".weight W%u, k=%u, n=%u\n", id, k, n);
    for (uint32_t r = 0; r < n; r++)
        data(b, "%s%a%s", r % 8 ? ", " : "  .scale ", (double)scale[r],
             r % 8 == 7 || r + 1 == n ? "\n" : "");
    static const char hex[] = "0123456789abcdef";
    size_t rb = (k + 1) / 2;
    char *line = malloc(2 * rb + 1);
    if (!line) {
        b->oom = 1;
        return id;
    }
    for (uint32_t r = 0; r < n; r++) {
        const int8_t *row = codes + (size_t)r * k;
        for (size_t j = 0; j < rb; j++) {
            unsigned lo = (unsigned)row[2 * j] & 15u;
            unsigned hi = 2 * j + 1 < k ? (unsigned)row[2 * j + 1] & 15u : 0u;
            unsigned byte = lo | hi << 4;
            line[2 * j] = hex[byte >> 4];
            line[2 * j + 1] = hex[byte & 15];
        }
        line[2 * rb] = 0;
        data(b, "  .rowhex %s\n", line);
    }
    free(line);
    data(b, ".endweight\n");
    b->weight_bytes += (uint64_t)n * rb + 4ull * n;
    return id;
}

/* GEMV (m = 1) or GEMM (m rows) of tensor W<w>: m x k inputs at element src, m x n outputs at
 * element dst, both packed row by row and word aligned. */
static void matmul(pb *b, uint32_t m, uint32_t dst, uint32_t src, uint32_t k, uint32_t n,
                   unsigned w, int w_scale, int accm)
{
    b->pin = -1;
    unsigned in = shape(b, m, k, 1);
    unsigned out = shape(b, m, n, 1);
    insn(b, ".wpush W%u\n", w);
    b->n_insns--;   /* a directive */
    insn(b, "    %s dst=0x%x, src=0x%x, size=%u, shape=%u%s%s\n", m == 1 ? "gemv" : "gemm",
         dst / 8, src / 8, out, in, w_scale ? ", w_scale" : "", accm ? ", accm" : "");
}

static void cvo(pb *b, const char *f, uint32_t src, uint32_t dst, uint32_t n, const char *flags)
{
    insn(b, "    %s src=0x%x, dst=0x%x, len=%u%s, async\n", f, src, dst, n, flags);
}

/* ---- layers ------------------------------------------------------------------------------- */

/* LeakyRelu as relu(x) + alpha min(x, 0), every step exact but the product: with a scratch R
 * (slot -1) and T (slot alpha, or 1/alpha with recip_scale when that is a BF16 value, as
 * 1/0.01 = 100 is):
 *   R = maxs(0, x); T = scale(-1, R) = -relu(x); T += x (copy, accm): min(x, 0);
 *   x = scale(alpha, T); x += R (one of the two is 0). */
static int leaky_relu(pb *b, const npk_layer *l, uint32_t at, uint32_t n)
{
    uint32_t r = 0, t = 0;
    if (l2_alloc(b, n, &r, "LeakyRelu scratch") || l2_alloc(b, n, &t, "LeakyRelu scratch"))
        return -1;
    double inv = 1.0 / l->alpha;
    int recip = l->alpha != 0.0 && (double)f32_of_bf16(bf16_of((float)inv)) == inv;
    uint16_t a = recip ? bf16_of((float)inv) : bf16_of((float)l->alpha);
    data(b, ".l2 elem=0x%x\n.h16 0xbf80\n.l2 elem=0x%x\n.h16 0x%04x\n", r - 1, t - 1, a);
    cvo(b, "maxs", at - 1, r, n + 1, "");
    cvo(b, "scale", r - 1, t, n + 1, "");
    cvo(b, "copy", at, t, n, ", accm");
    cvo(b, "scale", t - 1, at, n + 1, recip ? ", recip_scale" : "");
    cvo(b, "copy", r, at, n, ", accm");
    return 0;
}

/* The activation of layer `li` on the n elements at `at` (slot at - 1 free for a scalar). */
static int activation(pb *b, const npk_layer *l, uint32_t at, uint32_t n)
{
    switch (l->act) {
    case NPK_ACT_NONE:
        return 0;
    case NPK_ACT_RELU:
        if (n + 1 > FIELD_MAX)
            break;
        cvo(b, "maxs", at - 1, at, n + 1, "");   /* scalar 0 in the slot (L2 starts zero) */
        return 0;
    case NPK_ACT_GELU:
        cvo(b, "gelu", at, at, n, "");
        return 0;
    case NPK_ACT_TANH:
        cvo(b, "tanh", at, at, n, "");
        return 0;
    case NPK_ACT_SIGMOID:
        if (n + 1 > FIELD_MAX)
            break;
        /* sigmoid(x) = 0.5 + 0.5 tanh(x / 2), the scalar 0.5 in the slot */
        data(b, ".l2 elem=0x%x\n.h16 0x3f00\n", at - 1);
        cvo(b, "scale", at - 1, at, n + 1, "");
        cvo(b, "tanh", at, at, n, "");
        cvo(b, "scale", at - 1, at, n + 1, "");
        cvo(b, "adds", at - 1, at, n + 1, "");
        return 0;
    case NPK_ACT_LEAKY_RELU:
        if (n + 1 > FIELD_MAX)
            break;
        return leaky_relu(b, l, at, n);
    }
    return fail(b, "%s over %u elements: a CVO with a scalar operand takes at most %u "
                "(a 16-bit length, spec §4.5)", npk_act_name(l->act), n, FIELD_MAX - 1);
}

static int check_fields(pb *b, const char *what, uint64_t k, uint64_t n)
{
    if (k > FIELD_MAX || n > FIELD_MAX)
        return fail(b, "%s of %llu inputs and %llu outputs: GEMV takes at most %u of each "
                    "(16-bit MEMSET shapes, spec §5.2)", what, (unsigned long long)k,
                    (unsigned long long)n, FIELD_MAX);
    return 0;
}

static int dense(pb *b, const npk_layer *l, const tlay *x, tlay *y)
{
    uint32_t k = x->n, n = (uint32_t)l->n_out;
    if (check_fields(b, "a dense layer", k, n))
        return -1;
    y->n = n;
    if (l2_alloc(b, n, &y->at, "dense output"))
        return -1;
    int8_t *q = malloc((size_t)n * (size_t)l->n_in), *codes = calloc((size_t)n * k, 1);
    float *s = malloc(n * sizeof *s);
    if (!q || !codes || !s) {
        free(q), free(codes), free(s);
        return fail(b, "out of memory");
    }
    npk_pccx_quant_rows(l->w, n, (size_t)l->n_in, q, s);
    for (uint32_t o = 0; o < n; o++)
        for (int i = 0; i < l->n_in; i++) {
            size_t j = (size_t)i;
            if (x->hwc) {   /* column of CHW element i in the rows-of-pitch layout */
                int c = i / (x->H * x->W), r = i % (x->H * x->W);
                j = (size_t)(r / x->W) * x->pitch + (size_t)(r % x->W) * (size_t)x->C + (size_t)c;
            }
            codes[(size_t)o * k + j] = q[(size_t)o * (size_t)l->n_in + (size_t)i];
        }
    unsigned w = weight(b, k, n, codes, s);
    free(q), free(codes), free(s);
    if (l->b) {
        uint32_t h;
        if (host_data(b, l->b, n, &h, "bias"))
            return -1;
        memcpy_h2l(b, y->at, h, n);
    }
    matmul(b, 1, y->at, x->at, k, n, w, 1, l->b != NULL);
    return activation(b, l, y->at, n);
}

/* Conv and the pools: one GEMV per output row over the block of rows it reads. */
static int windowed(pb *b, const npk_layer *l, const tlay *x, tlay *y, const npk_ptensor *ty)
{
    const int conv = l->kind == NPK_LAYER_CONV, maxp = l->kind == NPK_LAYER_MAXPOOL;
    int C = x->C, H = x->H, W = x->W, M = ty->dims[0], OH = ty->dims[1], OW = ty->dims[2];
    int kr = l->kh < H ? l->kh : H;                   /* rows in a block */
    int G = maxp ? l->kh * l->kw : 1;                 /* gathered elements per output */
    uint64_t k = (uint64_t)kr * x->pitch, n = (uint64_t)OW * (uint64_t)M * (uint64_t)G;
    if (check_fields(b, conv ? "a convolution row" : "a pooling row", k, n))
        return -1;
    y->hwc = 1;
    y->C = M, y->H = OH, y->W = OW;
    y->pitch = (uint32_t)(((uint64_t)OW * (uint64_t)M + 7) / 8 * 8);
    y->n = (uint32_t)((uint64_t)OH * y->pitch);
    uint32_t gpitch = (uint32_t)((n + 7) / 8 * 8), gat = 0;
    if (l2_alloc(b, y->n, &y->at, "output") ||
        (maxp && l2_alloc(b, (uint64_t)OH * gpitch, &gat, "gathered windows")))
        return -1;
    int8_t *q = NULL, *codes = malloc((size_t)(n * k));
    float *s = malloc((size_t)n * sizeof *s), *qs = NULL;
    int *wid = malloc((size_t)(2 * H + l->kh + 2) * sizeof *wid);
    struct rowop {
        unsigned w;
        uint32_t src, dst;
    } *ops = malloc((size_t)OH * sizeof *ops);
    int ok = codes && s && wid && ops;
    if (ok && conv) {
        size_t taps = (size_t)C * (size_t)(l->kh * l->kw);
        q = malloc((size_t)M * taps);
        qs = malloc((size_t)M * sizeof *qs);
        ok = q && qs;
        if (ok)
            npk_pccx_quant_rows(l->w, (size_t)M, taps, q, qs);
    }
    if (!ok) {
        free(q), free(qs), free(codes), free(s), free(wid), free(ops);
        return fail(b, "out of memory");
    }
    /* one tensor per distinct offset d of the window's first row in its block (d + H + kh
     * indexes wid), made when first needed */
    for (int i = 0; i < 2 * H + l->kh + 2; i++)
        wid[i] = -1;
    if (conv && l->b) {
        float *bias = calloc(y->n, sizeof *bias);
        uint32_t h;
        if (!bias) {
            free(q), free(qs), free(codes), free(s), free(wid), free(ops);
            return fail(b, "out of memory");
        }
        for (int oy = 0; oy < OH; oy++)
            for (int ox = 0; ox < OW; ox++)
                for (int m = 0; m < M; m++)
                    bias[(size_t)oy * y->pitch + (size_t)ox * (size_t)M + (size_t)m] = l->b[m];
        int r = host_data(b, bias, y->n, &h, "bias");
        free(bias);
        if (r) {
            free(q), free(qs), free(codes), free(s), free(wid), free(ops);
            return -1;
        }
        memcpy_h2l(b, y->at, h, y->n);
    }
    for (int oy = 0; oy < OH && !b->failed; oy++) {
        int sy = oy * l->sh - l->pt;
        int start = sy < 0 ? 0 : sy > H - kr ? H - kr : sy, d = sy - start;
        int *slot = &wid[d + H + l->kh];
        if (*slot < 0) {
            memset(codes, 0, (size_t)(n * k));
            for (int ox = 0; ox < OW; ox++)
                for (int m = 0; m < M; m++) {
                    int cnt = 0, first = -1;
                    size_t row = ((size_t)ox * (size_t)M + (size_t)m) * (size_t)G;
                    for (int ky = 0; ky < l->kh; ky++)
                        for (int kx = 0; kx < l->kw; kx++) {
                            int r = d + ky, ix = ox * l->sw - l->pl + kx, iy = sy + ky;
                            if (l->kind == NPK_LAYER_AVGPOOL && l->count_include_pad &&
                                iy < H + l->pb && ix < W + l->pr)
                                cnt++;   /* counted even when padded */
                            else if (r >= 0 && r < kr && ix >= 0 && ix < W)
                                cnt++;
                            if (r < 0 || r >= kr || ix < 0 || ix >= W)
                                continue;
                            for (int c = conv ? 0 : m; c < (conv ? C : m + 1); c++) {
                                size_t col = (size_t)r * x->pitch + (size_t)ix * (size_t)C +
                                             (size_t)c;
                                if (conv)
                                    codes[row * k + col] =
                                        q[(size_t)m * (size_t)C * (size_t)(l->kh * l->kw) +
                                          ((size_t)c * (size_t)l->kh + (size_t)ky) *
                                              (size_t)l->kw + (size_t)kx];
                                else if (maxp) {
                                    /* the cnt-th valid element of the window: row + cnt - 1 */
                                    codes[(row + (size_t)(cnt - 1)) * k + col] = 1;
                                    if (first < 0)
                                        first = (int)col;
                                } else
                                    codes[row * k + col] = 1;
                            }
                        }
                    if (maxp) {
                        if (first < 0)
                            goto empty;
                        for (int j = cnt; j < G; j++)   /* repeat the first: max unchanged */
                            codes[(row + (size_t)j) * k + (size_t)first] = 1;
                        for (int j = 0; j < G; j++)
                            s[row + (size_t)j] = 1.0f;
                    } else if (conv) {
                        s[row] = qs[m];
                    } else {
                        if (cnt == 0)
                            goto empty;
                        s[row] = (float)(1.0 / cnt);
                    }
                    continue;
                empty:
                    free(q), free(qs), free(codes), free(s), free(wid), free(ops);
                    return fail(b, "the window of output (%d, %d) lies wholly in the padding",
                                oy, ox);
                }
            *slot = (int)weight(b, (uint32_t)k, (uint32_t)n, codes, s);
        }
        ops[oy].w = (unsigned)*slot;
        ops[oy].src = x->at + (uint32_t)start * x->pitch;
        ops[oy].dst = maxp ? gat + (uint32_t)oy * gpitch : y->at + (uint32_t)oy * y->pitch;
    }
    /* consecutive rows with the same tensor whose inputs and outputs follow each other
     * packed (stride k and n: the stride equals the kernel and rows need no padding) are one
     * GEMM: its weights stream once */
    for (int i = 0, j; i < OH && !b->failed; i = j) {
        for (j = i + 1; j < OH && j - i < (int)FIELD_MAX && ops[j].w == ops[i].w &&
                        ops[j].src == ops[j - 1].src + k && ops[j].dst == ops[j - 1].dst + n;
             j++)
            ;
        matmul(b, (uint32_t)(j - i), ops[i].dst, ops[i].src, (uint32_t)k, (uint32_t)n, ops[i].w,
               !maxp, conv && l->b);
    }
    free(q), free(qs), free(codes), free(s), free(wid), free(ops);
    if (maxp)
        for (int oy = 0; oy < OH; oy++)
            for (int ox = 0; ox < OW; ox++)
                for (int c = 0; c < M; c++)
                    cvo(b, "reduce_max",
                        gat + (uint32_t)oy * gpitch + (uint32_t)((ox * M + c) * G),
                        y->at + (uint32_t)oy * y->pitch + (uint32_t)(ox * M + c), (uint32_t)G, "");
    return conv ? activation(b, l, y->at, y->n) : 0;
}

static int softmax(pb *b, const npk_layer *l, const tlay *x, tlay *y)
{
    if (x->hwc)
        return fail(b, "softmax over a feature map is not lowered (its rows are not contiguous "
                    "in the pccx layout)");
    uint32_t row = (uint32_t)l->row, sbuf_at = 0;
    if (row + 1 > FIELD_MAX)
        return fail(b, "softmax rows of %u elements: SCALE takes at most %u (spec §4.5)", row,
                    FIELD_MAX - 1);
    y->n = x->n;
    if (l2_alloc(b, y->n, &y->at, "softmax output") ||
        l2_alloc(b, row, &sbuf_at, "softmax scratch"))
        return -1;
    uint32_t S = sbuf_at - 1;   /* the sum, just before the exponentials (spec §8.1) */
    for (uint32_t r0 = 0; r0 < x->n; r0 += row) {
        cvo(b, "reduce_max", x->at + r0, S, row, "");   /* sets E_MAX */
        cvo(b, "exp", x->at + r0, sbuf_at, row, ", sub_emax");
        cvo(b, "reduce_sum", sbuf_at, S, row, "");
        cvo(b, "scale", S, y->at + r0, row + 1, ", recip_scale");
    }
    return 0;
}

static int act_layer(pb *b, const npk_layer *l, const tlay *x, tlay *y)
{
    *y = *x;
    if (l2_alloc(b, x->n, &y->at, "activation output"))
        return -1;
    /* a copy through MEMCPY L2 -> L2 (whole words), then the activation in place */
    unsigned s = copy_shape(b, x->n);
    insn(b, "    memcpy.l2l dst=0x%x, src=0x%x, shape=%u, async\n", y->at / 8, x->at / 8, s);
    return activation(b, l, y->at, y->n);
}

/* Build the program text of plan p into b (b->data + b->code). */
static int build(pb *b)
{
    const npk_plan *p = b->p;
    b->pin = -1;
    b->layer = (size_t)-1;
    if (npk_lower_chain_only(p, "pccx", "its GEMV and GEMM engines multiply by INT4 weight "
                             "tensors fixed in the program, never by an activation (attention's "
                             "products); the normalisations, residual adds and transposes are "
                             "not lowered to its CVO unit", b->err, b->err_size)) {
        b->failed = 1;
        return -1;
    }
    b->t = calloc(p->n_tensors, sizeof *b->t);
    if (!b->t)
        return fail(b, "out of memory");
    const npk_ptensor *t0 = &p->tensors[0];
    tlay *x0 = &b->t[0];
    if (t0->rank == 3) {
        x0->hwc = 1;
        x0->C = t0->dims[0], x0->H = t0->dims[1], x0->W = t0->dims[2];
        x0->pitch = (uint32_t)(((uint64_t)x0->W * (uint64_t)x0->C + 7) / 8 * 8);
        if ((uint64_t)x0->H * x0->pitch > UINT32_MAX / 2)
            return fail(b, "the input of %zu elements is too large", t0->elems);
        x0->n = (uint32_t)x0->H * x0->pitch;
    } else {
        if (t0->elems > UINT32_MAX / 2)
            return fail(b, "the input of %zu elements is too large", t0->elems);
        x0->n = (uint32_t)t0->elems;
    }
    if (l2_alloc(b, x0->n, &x0->at, "input") || host_alloc(b, 2ull * x0->n, &b->in_host, "input"))
        return -1;
    memcpy_h2l(b, x0->at, b->in_host, x0->n);
    for (size_t i = 0; i < p->n_layers && !b->failed; i++) {
        const npk_layer *l = &p->layers[i];
        b->layer = i;
        insn(b, "; layer %zu: %s%s%s\n", i, npk_layer_kind_name(l->kind),
             l->act != NPK_ACT_NONE ? " + " : "", l->act != NPK_ACT_NONE ? npk_act_name(l->act) : "");
        b->n_insns--;
        const tlay *x = &b->t[l->in];
        tlay *y = &b->t[l->out];
        int r;
        switch (l->kind) {
        case NPK_LAYER_DENSE:
            r = dense(b, l, x, y);
            break;
        case NPK_LAYER_CONV:
        case NPK_LAYER_MAXPOOL:
        case NPK_LAYER_AVGPOOL:
            if (!x->hwc)
                return fail(b, "the input is not a feature map");
            r = windowed(b, l, x, y, &p->tensors[l->out]);
            break;
        case NPK_LAYER_SOFTMAX:
            r = softmax(b, l, x, y);
            break;
        case NPK_LAYER_ACT:
            r = act_layer(b, l, x, y);
            break;
        default:
            r = fail(b, "no pccx lowering for this layer kind");
        }
        if (r)
            return -1;
    }
    b->layer = (size_t)-1;
    const tlay *yl = &b->t[p->n_tensors - 1];
    if (host_alloc(b, 2ull * yl->n, &b->out_host, "output"))
        return -1;
    unsigned s = copy_shape(b, yl->n);
    insn(b, "    memcpy.l2h src=0x%x, aux=0x%x, shape=%u\n", yl->at / 8, b->out_host / 16, s);
    if (b->oom)
        return fail(b, "out of memory");
    return 0;
}

static void pb_free(pb *b)
{
    free(b->data.s);
    free(b->code.s);
    free(b->t);
}

/* The whole program file text (malloc'ed) of plan p. */
static char *program_text(pb *b, const npk_plan *p, const char *settings, char *err,
                          size_t err_size)
{
    memset(b, 0, sizeof *b);
    b->p = p;
    b->err = err;
    b->err_size = err_size;
    if (settings && settings[0]) {
        fail(b, "pccx takes no settings (got '%s')", settings);
        return NULL;
    }
    if (build(b))
        return NULL;
    size_t n = b->data.len + b->code.len + 512;
    char *text = malloc(n);
    if (!text) {
        fail(b, "out of memory");
        return NULL;
    }
    snprintf(text, n,
             "; pccx program made by npukit's lowering (docs/models.md, \"Lowering to pccx\")\n"
             "; input: BF16 at host byte 0x%x; output: BF16 at host byte 0x%x\n"
             ".target pccx\n.profile ext\n.hostsize 0x%x\n%s; instructions\n%s",
             b->in_host, b->out_host, b->host_next < 4096 ? 4096 : b->host_next,
             b->data.s ? b->data.s : "", b->code.s ? b->code.s : "");
    return text;
}

static int compile(const npk_plan *p, const char *settings, const char *out_path, FILE *note,
                   char *err, size_t err_size)
{
    pb b;
    char *text = program_text(&b, p, settings, err, err_size);
    if (!text) {
        pb_free(&b);
        return -1;
    }
    FILE *f = fopen(out_path, "w");
    int rc = 0;
    if (!f || fputs(text, f) < 0) {
        snprintf(err, err_size, "%s: cannot write", out_path);
        rc = -1;
    }
    if (f && fclose(f) != 0 && rc == 0) {
        snprintf(err, err_size, "%s: cannot write", out_path);
        rc = -1;
    }
    if (rc == 0 && note) {
        const tlay *x = &b.t[0], *y = &b.t[p->n_tensors - 1];
        fprintf(note,
                "%s: pccx program (ext profile), %llu instructions, %u INT4 weight tensors "
                "(%llu bytes), L2 words 0..%u, host DDR 0x%x bytes\n"
                "input: %u BF16 values at host byte 0x%x%s\n"
                "output: %u BF16 values at host byte 0x%x%s\n"
                "run: npukit run -t pccx %s --load host:0x%x:bf16:X.npy --dump host:0x%x:%u:bf16\n",
                out_path, (unsigned long long)b.n_insns, b.n_weights,
                (unsigned long long)b.weight_bytes, b.l2_next, b.host_next, x->n, b.in_host,
                x->hwc ? " (rows of the H x W x C image, each padded to a whole L2 word)" : "",
                y->n, b.out_host,
                y->hwc ? " (rows of the H x W x C map, each padded to a whole L2 word)" : "",
                out_path, b.in_host, b.out_host, y->n);
    }
    free(text);
    pb_free(&b);
    return rc;
}

/* ---- running ------------------------------------------------------------------------------ */

typedef struct session {
    npk_machine *m;
    tlay in, out;
    size_t n_in, n_out;
    uint32_t in_host, out_host;
    uint16_t *buf;
} session;

static void close_session(void *sv)
{
    session *s = sv;
    if (!s)
        return;
    npk_destroy(s->m);
    free(s->buf);
    free(s);
}

static int open_session(const npk_plan *p, const char *settings, void **out, char *err,
                        size_t err_size)
{
    pb b;
    *out = NULL;
    char *text = program_text(&b, p, settings, err, err_size);
    session *s = text ? calloc(1, sizeof *s) : NULL;
    if (text && !s)
        snprintf(err, err_size, "out of memory");
    if (s) {
        s->in = b.t[0];
        s->out = b.t[p->n_tensors - 1];
        s->n_in = p->tensors[0].elems;
        s->n_out = p->tensors[p->n_tensors - 1].elems;
        s->in_host = b.in_host;
        s->out_host = b.out_host;
        size_t nb = s->in.n > s->out.n ? s->in.n : s->out.n;
        s->buf = calloc(nb, sizeof *s->buf);
        if (!s->buf || npk_create(&s->m, "pccx", NULL, err, err_size) != NPK_OK) {
            if (!s->buf)
                snprintf(err, err_size, "out of memory");
            close_session(s);
            s = NULL;
        } else if (npk_load_asm(s->m, text, "pccx-lowering", NULL) != NPK_OK) {
            snprintf(err, err_size, "the generated program does not assemble: %s",
                     npk_error(s->m));
            close_session(s);
            s = NULL;
        }
    }
    free(text);
    pb_free(&b);
    *out = s;
    return s ? 0 : -1;
}

/* Logical index (CHW or flat) i of the tensor -> its element in the layout. */
static size_t lay_index(const tlay *t, size_t i)
{
    if (!t->hwc)
        return i;
    size_t hw = (size_t)t->H * (size_t)t->W, c = i / hw, r = i % hw;
    return (r / (size_t)t->W) * t->pitch + (r % (size_t)t->W) * (size_t)t->C + c;
}

static int infer(void *sv, const float *x, float *y, npk_lower_stats *st, char *err,
                 size_t err_size)
{
    session *s = sv;
    memset(s->buf, 0, s->in.n * sizeof *s->buf);
    for (size_t i = 0; i < s->n_in; i++)
        s->buf[lay_index(&s->in, i)] = bf16_of(x[i]);
    npk_stop stop;
    if (npk_reset(s->m) != NPK_OK ||
        npk_mem_write(s->m, "host", s->in_host, s->buf, 2 * (size_t)s->in.n) != NPK_OK ||
        npk_run(s->m, 0, &stop) != NPK_OK) {
        snprintf(err, err_size, "pccx: %s", npk_error(s->m));
        return -1;
    }
    if (stop.reason != NPK_STOP_EXIT) {
        snprintf(err, err_size, "pccx: the program stopped: %s", stop.message);
        return -1;
    }
    if (npk_mem_read(s->m, "host", s->out_host, s->buf, 2 * (size_t)s->out.n) != NPK_OK) {
        snprintf(err, err_size, "pccx: %s", npk_error(s->m));
        return -1;
    }
    for (size_t i = 0; i < s->n_out; i++)
        y[i] = f32_of_bf16(s->buf[lay_index(&s->out, i)]);
    if (st) {
        pccx_stats_t ps;
        memset(st, 0, sizeof *st);
        if (pccx_stats(pccx_of(s->m), &ps) == PCCX_OK) {
            st->cycles = ps.cycles;
            st->instructions = ps.insns;
            st->macs = ps.macs;
            /* against the peak of the engines the program uses (spec §11.1): GEMV 4 lanes x
             * 32 MACs per cycle, GEMM 32 x 32 x 2 */
            double peak = 128.0 + (ps.engine_insns[PCCX_ENG_GEMM] ? 2048.0 : 0.0);
            st->utilisation = ps.cycles ? (double)ps.macs / (peak * (double)ps.cycles) : 0.0;
        }
    }
    return 0;
}

const npk_lower_target npk_lower_pccx = {
    "pccx", compile, open_session, infer, close_session, NULL,
};
