/* Integer and fixed-point helpers: a right shift with a chosen rounding, saturation and
 * wrapping to W bits, and Q8.8 (int16) / Q16.16 (int32) arithmetic. Everything is exact
 * integer arithmetic on int64; nothing here depends on host floating point. */
#ifndef NPK_NUM_FIXED_H
#define NPK_NUM_FIXED_H

#include <stdint.h>

/* How a right shift (a division by 2^sh) rounds. */
typedef enum npk_qround {
    NPK_QR_FLOOR = 0,     /* toward -inf: an arithmetic shift (rvnpu qmul, vmul) */
    NPK_QR_HALF_UP = 1,   /* nearest, ties toward +inf: floor(v/2^sh + 1/2) (tinytpu mul) */
    NPK_QR_HALF_EVEN = 2, /* nearest, ties to even */
    NPK_QR_TRUNC = 3,     /* toward zero */
    NPK_QR_HALF_AWAY = 4, /* nearest, ties away from zero */
    NPK_QR_CEIL = 5       /* toward +inf */
} npk_qround;

/* v / 2^sh rounded by mode; sh is 0..63 (larger values are treated as 63). Never overflows. */
int64_t npk_shr_round(int64_t v, unsigned sh, npk_qround mode);
/* v clamped to the signed `bits`-bit range (bits 1..64): the spec's sat_W. */
int64_t npk_sat_int(int64_t v, unsigned bits);
/* v reduced modulo 2^bits and sign-extended (bits 1..64): the spec's wrap_W. */
int64_t npk_wrap_int(int64_t v, unsigned bits);
/* v clamped to 0 .. 2^bits - 1 (bits 1..63). */
uint64_t npk_sat_uint(int64_t v, unsigned bits);

/* Q8.8 in int16: value = v / 256. mul rounds the exact product by `mode`, then saturates;
 * add and sub saturate (tinytpu §A3 uses NPK_QR_HALF_UP). */
int16_t npk_q88_mul(int16_t a, int16_t b, npk_qround mode);
int16_t npk_q88_add(int16_t a, int16_t b);
int16_t npk_q88_sub(int16_t a, int16_t b);
/* Inline forms of the tinytpu rules for per-edge datapaths: equal to npk_q88_mul(a, b,
 * NPK_QR_HALF_UP), npk_q88_add(a, b) and npk_q88_sub(a, b) for every input (tests/num
 * num_fixed checks that). */
#if defined(__GNUC__)
#define NPK_Q88_IN_RANGE(v) __builtin_expect((uint32_t)(v) + 32768u <= 65535u, 1)
#else
#define NPK_Q88_IN_RANGE(v) ((uint32_t)(v) + 32768u <= 65535u)
#endif
static inline int16_t npk_q88_sat32(int32_t v)
{
    /* per-cycle datapaths saturate rarely: one compare on the common path */
    if (NPK_Q88_IN_RANGE(v))
        return (int16_t)v;
    return (int16_t)(v < 0 ? -32768 : 32767);
}
static inline int16_t npk_q88_mul_half_up(int16_t a, int16_t b)
{
    /* floor((a * b + 128) / 256) without branches or a shift of a negative number: bias by
     * 2^31 (a multiple of 256) into unsigned, shift, unbias. |a * b| <= 2^30. */
    uint32_t u = (uint32_t)((int32_t)a * b + 128) + 0x80000000u;
    return npk_q88_sat32((int32_t)(u >> 8) - (1 << 23));
}
static inline int16_t npk_q88_add_sat(int16_t a, int16_t b)
{
    return npk_q88_sat32((int32_t)a + b);
}
static inline int16_t npk_q88_sub_sat(int16_t a, int16_t b)
{
    return npk_q88_sat32((int32_t)a - b);
}
/* Lane forms of npk_q88_mul_half_up, npk_q88_add_sat and npk_q88_sub_sat on 16-bit patterns,
 * written with 16-bit operations only (the product as its high and low halves) and selects
 * rather than branches, so that a loop over lanes becomes vector code (tinytpu's PE rows, VPU
 * and GD lanes). Same results for every input (tests/num num_fixed). */
static inline uint16_t npk_q88_mul_half_up_lane(uint16_t a, uint16_t b)
{
    int16_t sa = (int16_t)(a < 0x8000u ? (int)a : (int)a - 65536),
            sb = (int16_t)(b < 0x8000u ? (int)b : (int)b - 65536);
    uint16_t lo = (uint16_t)((unsigned)a * b);               /* the product's low half */
    uint16_t hi = (uint16_t)(((int32_t)sa * sb) >> 16);      /* its high half (either fill) */
    uint16_t q = (uint16_t)((lo >> 8) + (lo >> 7 & 1));      /* (lo + 128) >> 8, 0 .. 256 */
    uint16_t hu = (uint16_t)(hi + (q >> 8)); /* the result is h * 256 + (q & 255), h = s(hu) */
    int16_t h = (int16_t)(hu < 0x8000u ? (int)hu : (int)hu - 65536);
    uint16_t r = (uint16_t)(hu << 8 | (q & 255));
    return h > 127 ? 0x7FFF : h < -128 ? 0x8000 : r;
}
static inline uint16_t npk_q88_add_sat_lane(uint16_t a, uint16_t b)
{
    uint16_t s = (uint16_t)(a + b);
    unsigned ovf = (unsigned)((s ^ a) & (s ^ b)) >> 15; /* both signs differ from the sum's */
    return ovf ? (uint16_t)((a >> 15) + 0x7FFF) : s;    /* a < 0: 8000, else 7FFF */
}
static inline uint16_t npk_q88_sub_sat_lane(uint16_t a, uint16_t b)
{
    uint16_t s = (uint16_t)(a - b);
    unsigned ovf = (unsigned)((a ^ b) & (a ^ s)) >> 15; /* signs of a and b differ, and the */
    return ovf ? (uint16_t)((a >> 15) + 0x7FFF) : s;    /* difference's differs from a's */
}
/* Q16.16 in int32: value = v / 65536, same rules. */
int32_t npk_q1616_mul(int32_t a, int32_t b, npk_qround mode);
int32_t npk_q1616_add(int32_t a, int32_t b);
int32_t npk_q1616_sub(int32_t a, int32_t b);

/* Host double -> fixed point with `frac` fraction bits in a `width`-bit signed integer
 * (width 1..64, frac 0..1000): x * 2^frac rounded by mode, then saturated; NaN gives 0.
 * Works on the double's bits, so it is exact whatever the host rounding mode. */
int64_t npk_fixed_from_double(double x, unsigned frac, unsigned width, npk_qround mode);
/* Q-format literals: round half to even, then saturate (tinytpu §A3 host conversion). */
int16_t npk_q88_from_double(double x);
int32_t npk_q1616_from_double(double x);
/* Exact. */
double npk_q88_to_double(int16_t v);
double npk_q1616_to_double(int32_t v);

#endif
