/* The host FPU fused multiply-add of hostfp.h (rule 4) and the environment probe for hosts
 * without MXCSR. Compiled with -ffp-contract=off like every file that computes in host
 * binary64, although the products here are exact and contraction could not change them. */
#include "num/hostfp.h"

#include "num/f32.h"

int npk_hostfp_probe(void)
{
    /* volatile: the compiler must not fold these at translation time */
    volatile double one = 1.0, tie = 0x1p-53, above = 0x1.8p-53, tiny = 0x1p-1074;
    volatile double small = 0x1p-1022, half = 0.5;
    /* the subnormal results are compared as bits: under DAZ a comparison reads them as 0 */
    return one + tie == 1.0 &&                 /* RNE or RTZ/RDN: a tie to even stays at 1 */
           one + above == 1.0 + 0x1p-52 &&     /* not RTZ or RDN */
           -one - above == -1.0 - 0x1p-52 &&   /* not RUP */
           npk_hostfp_d_bits(small * half) == UINT64_C(0x0008000000000000) && /* no FTZ */
           npk_hostfp_d_bits(tiny + tiny) == 2;                                /* no DAZ */
}

#define F32_EXP 0x7F800000u

/* (-1)^negp * a*b + (-1)^negc * c, rounded once, when rule 4 covers it: returns 1 and sets
 * *r and the flags. Returns 0 (nothing changed) for the software path. */
static int fma_host(uint32_t a, uint32_t b, uint32_t c, int negp, int negc, npk_fenv *e,
                    uint32_t *r)
{
    double p, cc, s, bv, t, mag;
    uint64_t sb;
    float f;

    if (e->rm != NPK_RM_RNE || e->opts != 0 || (a & F32_EXP) == F32_EXP ||
        (b & F32_EXP) == F32_EXP || (c & F32_EXP) == F32_EXP || !npk_hostfp_ready())
        return 0;
    p = (double)npk_hostfp_f(a) * (double)npk_hostfp_f(b); /* exact: 48 bits, |p| < 2^256 */
    cc = (double)npk_hostfp_f(c);
    if (negp)
        p = -p;
    if (negc)
        cc = -cc;
    s = p + cc;
    if (s == 0) {
        /* a*b+c is exactly zero (a nonzero sum of these terms is at least 2^-298): the sign
         * is IEEE's for the exact sum, which the host addition gives */
        *r = npk_hostfp_f_bits((float)s);
        return 1;
    }
    mag = s < 0 ? -s : s;
    if (mag < 0x1p-126 || mag > FLT_MAX)
        return 0; /* tininess/UF or overflow/OF: software */
    /* TwoSum (Knuth): s + t == p + cc exactly, no overflow possible here */
    bv = s - p;
    t = (p - (s - bv)) + (cc - bv);
    sb = npk_hostfp_d_bits(s);
    /* s normal in binary32 range: a binary32 halfway point has only bit 28 set below the
     * 24-bit significand, of the 29 bits binary64 has beyond it */
    if (t != 0 && (sb & 0x1FFFFFFFu) == 0x10000000u)
        return 0;
    f = (float)s;
    if (t != 0 || (double)f != s)
        e->flags |= NPK_FLAG_NX;
    *r = npk_hostfp_f_bits(f);
    return 1;
}

/* Each variant: the host when fma_host covers it, else its software twin. */
#define HOSTFP_FMA(name, negp, negc, soft)                                                    \
    uint32_t name(uint32_t a, uint32_t b, uint32_t c, npk_fenv *e)                            \
    {                                                                                         \
        uint32_t r;                                                                           \
        return fma_host(a, b, c, negp, negc, e, &r) ? r : soft(a, b, c, e);                   \
    }
HOSTFP_FMA(npk_hostfp_f32_fma, 0, 0, npk_f32_fma)
HOSTFP_FMA(npk_hostfp_f32_fms, 0, 1, npk_f32_fms)
HOSTFP_FMA(npk_hostfp_f32_fnmsub, 1, 0, npk_f32_fnmsub)
HOSTFP_FMA(npk_hostfp_f32_fnmadd, 1, 1, npk_f32_fnmadd)
