/* Float-only stand-ins for the NPU's binary64 functions, used by the plain (-DNO_NPU)
 * firmware build and by the host reference's plain mode, so both compute the same bits.
 * The includer defines TF_FMAF(a, b, c) (a fused multiply-add) and TF_SQRTF(x) (a correctly
 * rounded binary32 square root); everything else is binary32 +, -, *, / in RNE, written so
 * that no compiler can contract a multiply and an add (every such pair is an explicit
 * TF_FMAF). Accuracy: tf_expf about 2 ulp, tf_erff within 1.5e-7 absolute
 * (Abramowitz & Stegun 7.1.26), which is plenty for softmax and GELU. */
#ifndef TF_PLAIN_MATH_H
#define TF_PLAIN_MATH_H

#include <stdint.h>

static inline float tf_bits_to_float(uint32_t u)
{
    union { uint32_t u; float f; } v = {.u = u};
    return v.f;
}

/* exp(x) for binary32 x: 2^k * p(r) with x = k ln2 + r, |r| <= ln2/2. */
static inline float tf_expf(float x)
{
    if (x != x)
        return x;
    if (x < -87.0f)
        return 0.0f; /* below about 1.6e-38: flushed, the callers only add such values */
    if (x > 88.0f)
        return tf_bits_to_float(0x7F800000u);
    int k = (int)TF_FMAF(x, 1.44269504f, x >= 0.0f ? 0.5f : -0.5f); /* rounds half away */
    float fk = (float)k;
    float r = TF_FMAF(-fk, 0.693145751953125f, x);   /* ln2, high part (exact product) */
    r = TF_FMAF(-fk, 1.42860677e-06f, r);              /* ln2, low part */
    float p = 1.0f / 720.0f;
    p = TF_FMAF(p, r, 1.0f / 120.0f);
    p = TF_FMAF(p, r, 1.0f / 24.0f);
    p = TF_FMAF(p, r, 1.0f / 6.0f);
    p = TF_FMAF(p, r, 0.5f);
    p = TF_FMAF(p, r, 1.0f);
    p = TF_FMAF(p, r, 1.0f);
    return p * tf_bits_to_float((uint32_t)(k + 127) << 23); /* k in -126..127 here */
}

/* erf(x), Abramowitz & Stegun 7.1.26, odd-symmetric. */
static inline float tf_erff(float x)
{
    float a = x < 0.0f ? -x : x;
    float t = 1.0f / TF_FMAF(0.3275911f, a, 1.0f);
    float p = 1.061405429f;
    p = TF_FMAF(p, t, -1.453152027f);
    p = TF_FMAF(p, t, 1.421413741f);
    p = TF_FMAF(p, t, -0.284496736f);
    p = TF_FMAF(p, t, 0.254829592f);
    p = p * t;
    float e = tf_expf(-(a * a));
    float y = TF_FMAF(-p, e, 1.0f);
    return x < 0.0f ? -y : y;
}

/* GELU(x) = 0.5 x (1 + erf(x / sqrt 2)), in binary32. */
static inline float tf_gelu_plain(float x)
{
    float h = 0.5f * x;
    return h * (1.0f + tf_erff(x * 0.707106781f));
}

/* 1 / sqrt(x) in binary32 (both operations correctly rounded). */
static inline float tf_rsqrt_plain(float x)
{
    return 1.0f / TF_SQRTF(x);
}

#endif
