/* The rvnpu model firmware: one generic program that runs any model the rvnpu lowering
 * compiles (src/targets/rvnpu/lower.c, docs/models.md "Lowering to rvnpu"). It interprets the
 * layer table at RVM_BASE (model_fw.h): int8 layers on the integer NPU (VMAC, RSTACC, CLAMP,
 * RELU; spec §4), float layers on the FP NPU (FVMAC, FRSTACC, FRELU, FGELU, FVEXP, FMACC,
 * FVMUL; spec §6.2), the rest of the sequence layers (transpose, add, the normalisations'
 * square root) in plain C float. Input: model_input (float, `npukit run --write model_input:f32:X`); output:
 * model_output (float). Exit status 0, or 3 when no valid table is loaded. */
#include <stdint.h>

#include "model_fw.h"
#include "npu.h"
#include "npu_fp.h"

static uint32_t chunk;

/* VMAC/FVMAC over n elements in pieces of at most `chunk` (rev2's 256-byte limit, §7.3);
 * chunked accumulation is bit-identical (§4, §6.2). */
static void vmac(const int8_t *a, const int8_t *b, uint32_t n)
{
    while (chunk && n > chunk) {
        NPU_VMAC(a, b, (int)chunk);
        a += chunk;
        b += chunk;
        n -= chunk;
    }
    NPU_VMAC(a, b, (int)n);
}

static void fvmac(const float *a, const float *b, uint32_t n)
{
    while (chunk && n > chunk) {
        NPU_FVMAC(a, b, (int)chunk);
        a += chunk;
        b += chunk;
        n -= chunk;
    }
    NPU_FVMAC(a, b, (int)n);
}

static float fbits(uint32_t u)
{
    float f;
    __builtin_memcpy(&f, &u, 4);
    return f;
}

/* round(acc * mult / 2^shift), halves up, saturated to int32 (then CLAMP takes it to int8) */
static int32_t requant(int32_t acc, int32_t mult, int32_t shift)
{
    int64_t p = (int64_t)acc * mult + ((int64_t)1 << (shift - 1));
    p >>= shift;
    return p > INT32_MAX ? INT32_MAX : p < INT32_MIN ? INT32_MIN : (int32_t)p;
}

/* s / n rounded to nearest, halves away from zero (n > 0) */
static int32_t div_round(int32_t s, int32_t n)
{
    return s >= 0 ? (2 * s + n) / (2 * n) : -((-2 * s + n) / (2 * n));
}

static float exp1(float v)
{
    float r;
    NPU_FVEXP(&v, &r, 1);
    return r;
}

static float act_f(uint32_t act, float v, float alpha)
{
    switch (act) {
    case RVM_ACT_RELU: return NPU_FRELU(v);
    case RVM_ACT_LEAKY: return v < 0.0f ? v * alpha : v;
    case RVM_ACT_GELU: return NPU_FGELU(v);
    case RVM_ACT_SIGMOID: return 1.0f / (1.0f + exp1(-v));
    case RVM_ACT_TANH: {
        float d = 1.0f + exp1(-2.0f * v);
        return 2.0f / d - 1.0f;
    }
    default: return v;
    }
}

/* clamp(rne(v * inv), -127, 127) */
static int8_t quant1(float v, float inv)
{
    float p = v * inv;
    int32_t q;
    __asm__("fcvt.w.s %0, %1, rne" : "=r"(q) : "f"(p));
    return (int8_t)(q > 127 ? 127 : q < -127 ? -127 : q);
}

static void quant(const rvm_op *op)
{
    const float *x = (const float *)op->src;
    int8_t *y = (int8_t *)op->dst;
    const float s = fbits(op->fparam);
    const uint32_t n = op->c; /* a local: the int8 stores may alias the table */
    for (uint32_t i = 0; i < n; i++)
        y[i] = quant1(x[i], s);
}

/* One output position of DENSE/CONV: every output channel's dot product with `row` (the
 * input, or the im2col row), + bias, then the int8 requantisation or the activation; results
 * at dst[at + o * step]. The table's fields are read once: stores through int8 pointers may
 * alias them, so the compiler would reload them per channel. */
static void channels_i8(const rvm_op *op, const int8_t *row, uint32_t k, uint32_t at,
                        uint32_t step)
{
    const uint32_t m = op->m, out32 = op->flags & RVM_F_OUT32, relu = op->act == RVM_ACT_RELU;
    const uint32_t fact = op->flags & RVM_F_FACT, act = op->act;
    const float alpha = fbits(op->fparam), inv_out = fbits(op->fscale_out);
    const float *accs = (const float *)op->mult;
    const int8_t *w = (const int8_t *)op->wts;
    const int32_t *bias = (const int32_t *)op->bias, *mult = (const int32_t *)op->mult,
                  *shift = (const int32_t *)op->shift;
    int8_t *y8 = (int8_t *)op->dst + at;
    int32_t *y32 = (int32_t *)op->dst + at;
    for (uint32_t o = 0; o < m; o++, w += k) {
        (void)NPU_RSTACC();
        vmac(row, w, k);
        int32_t acc = (int32_t)((uint32_t)NPU_RSTACC() + (uint32_t)bias[o]);
        if (out32) {
            y32[o * step] = relu ? NPU_RELU(acc) : acc;
            continue;
        }
        if (fact) {
            y8[o * step] = quant1(act_f(act, (float)acc * accs[o], alpha), inv_out);
            continue;
        }
        int32_t v = NPU_CLAMP(requant(acc, mult[o], shift[o]));
        y8[o * step] = (int8_t)(relu ? NPU_RELU(v) : v);
    }
}

static void channels_f32(const rvm_op *op, const float *row, uint32_t k, uint32_t at,
                         uint32_t step)
{
    const uint32_t m = op->m, act = op->act;
    const float *w = (const float *)op->wts, *bias = (const float *)op->bias;
    const float alpha = fbits(op->fparam);
    float *y = (float *)op->dst + at;
    for (uint32_t o = 0; o < m; o++, w += k) {
        (void)NPU_FRSTACC();
        fvmac(row, w, k);
        y[o * step] = act_f(act, NPU_FRSTACC() + bias[o], alpha);
    }
}

static void channels(const rvm_op *op, const void *row, uint32_t k, uint32_t at, uint32_t step)
{
    if (op->flags & RVM_F_FP32)
        channels_f32(op, (const float *)row, k, at, step);
    else
        channels_i8(op, (const int8_t *)row, k, at, step);
}

/* The im2col row of output position (oy, ox): c * kh * kw inputs, 0 where padded. The fields
 * are copied to locals first: the byte stores could alias the table, and the compiler would
 * reload every field per element. Kernel rows wholly inside the input are plain copies. */
static void im2col(const rvm_op *op, uint32_t oy, uint32_t ox)
{
    const uint32_t es = op->flags & RVM_F_FP32 ? 4 : 1, C = op->c, H = op->h, W = op->w;
    const uint32_t kh = op->kh, kw = op->kw;
    const int32_t iy0 = (int32_t)(oy * op->sh) - (int32_t)op->pt;
    const int32_t ix0 = (int32_t)(ox * op->sw) - (int32_t)op->pl;
    const uint8_t *src = (const uint8_t *)op->src;
    uint8_t *dst = (uint8_t *)op->scratch;
    const int inside_x = ix0 >= 0 && ix0 + (int32_t)kw <= (int32_t)W;
    for (uint32_t c = 0; c < C; c++)
        for (uint32_t ky = 0; ky < kh; ky++, dst += kw * es) {
            int32_t iy = iy0 + (int32_t)ky;
            if (iy < 0 || iy >= (int32_t)H) {
                for (uint32_t j = 0; j < kw * es; j++)
                    dst[j] = 0;
                continue;
            }
            const uint8_t *row = src + ((c * H + (uint32_t)iy) * W) * es;
            if (inside_x && es == 4) {
                const uint32_t *from = (const uint32_t *)(row + (uint32_t)ix0 * 4);
                for (uint32_t kx = 0; kx < kw; kx++)
                    ((uint32_t *)dst)[kx] = from[kx];
            } else if (inside_x) {
                for (uint32_t kx = 0; kx < kw; kx++)
                    dst[kx] = row[(uint32_t)ix0 + kx];
            } else {
                for (uint32_t kx = 0; kx < kw; kx++) {
                    int32_t ix = ix0 + (int32_t)kx;
                    int in = ix >= 0 && ix < (int32_t)W;
                    for (uint32_t b = 0; b < es; b++)
                        dst[kx * es + b] = in ? row[(uint32_t)ix * es + b] : 0;
                }
            }
        }
}

static void conv(const rvm_op *op)
{
    uint32_t k = op->c * op->kh * op->kw, plane = op->oh * op->ow;
    for (uint32_t oy = 0; oy < op->oh; oy++)
        for (uint32_t ox = 0; ox < op->ow; ox++) {
            im2col(op, oy, ox);
            channels(op, (const void *)op->scratch, k, oy * op->ow + ox, plane);
        }
}

/* Max or average over each window, clipped to the input (padding skipped); the average
 * divides by the window's size with RVM_F_PAD_COUNT, else by the positions inside. */
static void pool(const rvm_op *op)
{
    const uint32_t C = op->c, H = op->h, W = op->w, OH = op->oh, OW = op->ow;
    const int32_t kh = (int32_t)op->kh, kw = (int32_t)op->kw, sh = (int32_t)op->sh,
                  sw = (int32_t)op->sw, pt = (int32_t)op->pt, pl = (int32_t)op->pl;
    const int fp = (op->flags & RVM_F_FP32) != 0, avg = op->kind == RVM_OP_AVGPOOL,
              padc = (op->flags & RVM_F_PAD_COUNT) != 0;
    const int8_t *xi = (const int8_t *)op->src;
    const float *xf = (const float *)op->src;
    int8_t *yi = (int8_t *)op->dst;
    float *yf = (float *)op->dst;
    for (uint32_t c = 0; c < C; c++, xi += H * W, xf += H * W)
        for (int32_t oy = 0; oy < (int32_t)OH; oy++)
            for (int32_t ox = 0; ox < (int32_t)OW; ox++) {
                int32_t y0 = oy * sh - pt, x0 = ox * sw - pl;
                int32_t ya = y0 < 0 ? 0 : y0, xa = x0 < 0 ? 0 : x0;
                int32_t yb = y0 + kh > (int32_t)H ? (int32_t)H : y0 + kh;
                int32_t xb = x0 + kw > (int32_t)W ? (int32_t)W : x0 + kw;
                int32_t n = yb > ya && xb > xa ? (yb - ya) * (xb - xa) : 0;
                if (padc)
                    n = kh * kw;
                if (fp) {
                    float best = -__builtin_inff(), sum = 0.0f;
                    for (int32_t y = ya; y < yb; y++)
                        for (int32_t x = xa; x < xb; x++) {
                            float v = xf[y * (int32_t)W + x];
                            sum += v;
                            if (v > best)
                                best = v;
                        }
                    *yf++ = avg ? (n ? sum / (float)n : 0.0f) : best;
                } else {
                    int32_t best = -128, sum = 0;
                    for (int32_t y = ya; y < yb; y++)
                        for (int32_t x = xa; x < xb; x++) {
                            int32_t v = xi[y * (int32_t)W + x];
                            sum += v;
                            if (v > best)
                                best = v;
                        }
                    *yi++ = (int8_t)(avg ? (n ? div_round(sum, n) : 0) : best);
                }
            }
}

static void act(const rvm_op *op)
{
    const float alpha = fbits(op->fparam), s_in = fbits(op->fscale_in),
                inv_out = fbits(op->fscale_out);
    for (uint32_t i = 0; i < op->c; i++) {
        if (op->flags & RVM_F_FP32)
            ((float *)op->dst)[i] = act_f(op->act, ((const float *)op->src)[i], alpha);
        else {
            int32_t v = ((const int8_t *)op->src)[i];
            if (op->flags & RVM_F_FACT)
                ((int8_t *)op->dst)[i] = quant1(act_f(op->act, (float)v * s_in, alpha), inv_out);
            else
                ((int8_t *)op->dst)[i] = (int8_t)(op->act == RVM_ACT_RELU ? NPU_RELU(v) : v);
        }
    }
}

static void dequant(const rvm_op *op)
{
    const float *scale = (const float *)op->mult;
    for (uint32_t k = 0, i = 0; k < op->c; k++)
        for (uint32_t j = 0; j < op->h; j++, i++) {
            int32_t v = op->flags & RVM_F_OUT32 ? ((const int32_t *)op->src)[i]
                                                : ((const int8_t *)op->src)[i];
            ((float *)op->dst)[i] = act_f(op->act, (float)v * scale[k], fbits(op->fparam));
        }
}

/* Per row: max (first maximum), x - max, FVEXP, the sum in facc by FMACC (index order, one
 * rounding at FRSTACC), then each exponential divided by the sum. */
static void softmax(const rvm_op *op)
{
    const float *x = (const float *)op->src;
    float *y = (float *)op->dst;
    for (uint32_t r = 0; r < op->c; r++, x += op->h, y += op->h) {
        float mx = x[0];
        for (uint32_t i = 1; i < op->h; i++)
            if (x[i] > mx)
                mx = x[i];
        for (uint32_t i = 0; i < op->h; i++)
            y[i] = x[i] - mx;
        for (uint32_t i = 0; i < op->h; i += chunk ? chunk : op->h) {
            uint32_t n = op->h - i;
            if (chunk && n > chunk)
                n = chunk;
            NPU_FVEXP(y + i, y + i, (int)n);
        }
        (void)NPU_FRSTACC();
        for (uint32_t i = 0; i < op->h; i++)
            NPU_FMACC(y[i], 1.0f);
        float s = NPU_FRSTACC();
        for (uint32_t i = 0; i < op->h; i++)
            y[i] = y[i] / s;
    }
}

/* DENSE on each of `rows` rows of a sequence (one row for features). */
static void dense(const rvm_op *op)
{
    const uint32_t rows = op->rows > 1 ? op->rows : 1, k = op->c, m = op->m;
    const uint32_t es = op->flags & RVM_F_FP32 ? 4 : 1;
    const uint8_t *src = (const uint8_t *)op->src;
    for (uint32_t r = 0; r < rows; r++)
        channels(op, src + r * k * es, k, r * m, 1);
}

/* a * b rounded once: never fused with an addition into fmadd.s (-ffp-contract), so that
 * the rounding is the documented one whichever compiler builds the firmware */
static float fmul(float a, float b)
{
    float r;
    __asm__("fmul.s %0, %1, %2" : "=f"(r) : "f"(a), "f"(b));
    return r;
}

/* LayerNorm and RMSNorm per row: the mean by FMACC (facc sums exactly in double, one
 * rounding), the centred row into dst, its sum of squares by FVMAC, 1 / sqrtf in plain C
 * (fsqrt.s, fdiv.s), then times the gain and plus the bias, each rounded (binary32). */
static void norm(const rvm_op *op)
{
    const uint32_t rows = op->c, n = op->h, rms = op->flags & RVM_F_RMS;
    const float eps = fbits(op->fparam);
    const float *g = (const float *)op->wts, *b = (const float *)op->bias;
    const float *x = (const float *)op->src;
    float *y = (float *)op->dst;
    for (uint32_t r = 0; r < rows; r++, x += n, y += n) {
        float mean = 0.0f;
        if (!rms) {
            (void)NPU_FRSTACC();
            for (uint32_t i = 0; i < n; i++)
                NPU_FMACC(x[i], 1.0f);
            mean = NPU_FRSTACC() / (float)n;
        }
        for (uint32_t i = 0; i < n; i++)
            y[i] = x[i] - mean;
        (void)NPU_FRSTACC();
        fvmac(y, y, n);
        float v = NPU_FRSTACC() / (float)n + eps, sd;
        __asm__("fsqrt.s %0, %1" : "=f"(sd) : "f"(v));
        const float inv = 1.0f / sd;
        for (uint32_t i = 0; i < n; i++) {
            float v = fmul(y[i], inv);
            if (g)
                v = fmul(v, g[i]);
            y[i] = b ? v + b[i] : v;
        }
    }
}

/* Batched product of two activations: each [c][m] operand transposed into the scratch, so that
 * every output is one FVMAC of two contiguous rows. */
static void matmul(const rvm_op *op)
{
    const uint32_t B = op->batch > 1 ? op->batch : 1, R = op->rows, K = op->c, N = op->m;
    const float *a = (const float *)op->src, *b = (const float *)op->src2;
    float *y = (float *)op->dst, *t = (float *)op->scratch;
    for (uint32_t h = 0; h < B; h++, a += R * K, b += K * N, y += R * N) {
        for (uint32_t i = 0; i < K; i++)
            for (uint32_t o = 0; o < N; o++)
                t[o * K + i] = b[i * N + o];
        for (uint32_t r = 0; r < R; r++)
            for (uint32_t o = 0; o < N; o++) {
                (void)NPU_FRSTACC();
                fvmac(a + r * K, t + o * K, K);
                y[r * N + o] = NPU_FRSTACC();
            }
    }
}

static void transpose(const rvm_op *op)
{
    const uint32_t d[3] = {op->c, op->h, op->w}, st[3] = {op->h * op->w, op->w, 1};
    uint32_t od[3], os[3];
    for (int a = 0; a < 3; a++) {
        uint32_t p = (op->perm >> (4 * a)) & 15;
        od[a] = d[p];
        os[a] = st[p];
    }
    const float *x = (const float *)op->src;
    float *y = (float *)op->dst;
    for (uint32_t i = 0; i < od[0]; i++)
        for (uint32_t j = 0; j < od[1]; j++)
            for (uint32_t k = 0; k < od[2]; k++)
                *y++ = x[i * os[0] + j * os[1] + k * os[2]];
}

static void add(const rvm_op *op)
{
    const float *a = (const float *)op->src, *b = (const float *)op->src2;
    float *y = (float *)op->dst;
    for (uint32_t i = 0; i < op->c; i++)
        y[i] = a[i] + b[i];
}

/* dst = src * the factor, by FVMUL (which multiplies by facc: set to the factor by FMACC). */
static void scale(const rvm_op *op)
{
    float *x = (float *)op->src, *y = (float *)op->dst;
    const uint32_t n = op->c;
    (void)NPU_FRSTACC();
    NPU_FMACC(fbits(op->fparam), 1.0f);
    for (uint32_t i = 0; i < n; i += chunk ? chunk : n) {
        uint32_t k = n - i;
        if (chunk && k > chunk)
            k = chunk;
        NPU_FVMUL(x + i, y + i, (int)k);
    }
    (void)NPU_FRSTACC();
}

int main(void)
{
    const rvm_header *h = (const rvm_header *)RVM_BASE;
    if (h->magic != RVM_MAGIC || h->version != RVM_VERSION)
        return 3;
    chunk = h->chunk;
    const rvm_op *op = (const rvm_op *)h->ops;
    for (uint32_t i = 0; i < h->n_ops; i++, op++) {
        switch (op->kind) {
        case RVM_OP_QUANT: quant(op); break;
        case RVM_OP_DENSE: dense(op); break;
        case RVM_OP_CONV: conv(op); break;
        case RVM_OP_MAXPOOL:
        case RVM_OP_AVGPOOL: pool(op); break;
        case RVM_OP_ACT: act(op); break;
        case RVM_OP_DEQUANT: dequant(op); break;
        case RVM_OP_SOFTMAX: softmax(op); break;
        case RVM_OP_NORM: norm(op); break;
        case RVM_OP_MATMUL: matmul(op); break;
        case RVM_OP_TRANSPOSE: transpose(op); break;
        case RVM_OP_ADD: add(op); break;
        case RVM_OP_SCALE: scale(op); break;
        default: return 3;
        }
    }
    return 0;
}
