/* Host references of the activation kernels (see act_ref.h and the comments of the .s files
 * for the formats). Everything is integer arithmetic except the quantisation's FP32 steps,
 * which use the host's IEEE binary32 with round-to-nearest-even: (float) of an int32 (exact
 * here), fmaf, nearbyintf in the default rounding mode. The test inputs keep every value
 * normal, so the tier-2 rules of spec §5.8 (NaN/Inf/subnormal -> 0, flush, saturation) never
 * apply and plain IEEE arithmetic is the same thing. */
#include "act_ref.h"

#include <math.h>

int32_t act_floor_shift(int32_t a, unsigned s)
{
    int64_t d = (int64_t)1 << s;
    int64_t q = (int64_t)a / d;           /* truncates toward zero */
    if ((int64_t)a % d != 0 && a < 0)
        q -= 1;
    return (int32_t)q;
}

static int8_t sat8(int32_t v)
{
    return (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v);
}

int8_t act_ref_relu(int8_t x)
{
    return x > 0 ? x : 0;
}

int8_t act_ref_clamp(int8_t x, int8_t lo, int8_t hi)
{
    int8_t v = x < hi ? x : hi;
    return v > lo ? v : lo;
}

int8_t act_ref_lut(const uint8_t table[256], int8_t x)
{
    return (int8_t)table[(uint8_t)x];
}

int8_t act_ref_gelu(const uint8_t erf_table[256], int8_t x)
{
    int32_t t = (int8_t)erf_table[(uint8_t)x];        /* 128 * erf(x/sqrt 2), signed */
    int32_t u = (t + 128) & 0xFF;                      /* 8-bit add of 0x80, read unsigned */
    int32_t p = (int32_t)x * u;                        /* |p| <= 128 * 255: fits 16 bits */
    int32_t p16 = (int16_t)(uint16_t)(p & 0xFFFF);     /* the 16-bit lane (no wrap happens) */
    return (int8_t)(act_floor_shift(p16, 8) & 0xFF);   /* low byte of the shifted lane */
}

void act_ref_softmax(const uint8_t exp_table[256], const uint8_t recip_table[256],
                     const int8_t x[ACT_K], int8_t y[ACT_K])
{
    int8_t m = x[0];
    for (int k = 1; k < ACT_K; k++)
        if (x[k] > m)
            m = x[k];
    uint8_t e[ACT_K];
    int32_t s = 0;
    for (int k = 0; k < ACT_K; k++) {
        int8_t d = sat8((int32_t)x[k] - m);
        e[k] = exp_table[(uint8_t)d];
        s += (int8_t)e[k];                             /* vsum sign-extends VX lanes */
    }
    uint32_t r = recip_table[(uint32_t)s & 0xFFu];
    for (int k = 0; k < ACT_K; k++) {
        uint32_t p = ((uint32_t)e[k] * r) & 0xFFFFu;   /* 16-bit product of zero-extended bytes */
        y[k] = (int8_t)(uint8_t)(p >> 8);              /* its high byte */
    }
}

void act_ref_quantize(const int8_t *a, const int8_t *b, const float scale[ACT_K],
                      const float bias[ACT_K], int8_t *y)
{
    for (int i = 0; i < ACT_K; i++)
        for (int j = 0; j < ACT_K; j++) {
            int32_t c = 0;
            for (int t = 0; t < ACT_K; t++)
                c += (int32_t)a[i * ACT_K + t] * b[t * ACT_K + j];
            float f = fmaf((float)c, scale[i], bias[i]);
            float n = nearbyintf(f);
            y[i * ACT_K + j] = (int8_t)(n < -128.0f ? -128 : n > 127.0f ? 127 : (int)n);
        }
}
