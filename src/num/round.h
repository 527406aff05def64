/* Internal to src/num: the single rounding engine. Every operation reduces its exact result to
 * sign * sig * 2^exp and calls npk__round_pack, so all formats share one definition of
 * rounding, gradual underflow, tininess, overflow and the flags. Not a public header. */
#ifndef NPK_NUM_ROUND_H
#define NPK_NUM_ROUND_H

#include <stdint.h>

#include "num/fenv.h"

/* What the engine needs to know about a binary format. Encodings of finite magnitudes are
 * monotonic in value, which is what lets overflow be a comparison with maxenc. */
typedef struct npk__fmt {
    int width;       /* total bits */
    int p;           /* significand bits including the hidden bit */
    int emin, emax;  /* unbiased exponents of the smallest normal and of the top binade */
    uint64_t maxenc; /* largest finite magnitude */
    uint64_t infenc; /* infinity magnitude; 0 when the format has none (E4M3) */
    uint64_t nanenc; /* positive canonical NaN */
} npk__fmt;

extern const npk__fmt npk__fmt_f32, npk__fmt_bf16, npk__fmt_e4m3, npk__fmt_e5m2, npk__fmt_f64;

static inline int npk__clz64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_clzll(x);
#else
    int n = 0;
    while (!(x & 0x8000000000000000u)) {
        x <<= 1;
        n++;
    }
    return n;
#endif
}

/* x >> n with every shifted-out bit ORed into bit 0 ("jamming"): the result rounds like x
 * at any position at least two bits above bit 0. */
static inline uint64_t npk__shr_jam(uint64_t x, int n)
{
    if (n <= 0)
        return x;
    if (n >= 64)
        return x != 0;
    return (x >> n) | ((x & ((UINT64_C(1) << n) - 1)) != 0);
}

/* Whether a value with kept (truncated) significand `kept`, remainder compared with half an
 * ulp as `halfcmp` (-1 below, 0 exactly half, 1 above) and `inexact`, rounds away from zero. */
static inline int npk__round_up(npk_rm rm, unsigned sign, uint64_t kept, int halfcmp, int inexact)
{
    switch (rm) {
    case NPK_RM_RNE: return halfcmp > 0 || (halfcmp == 0 && (kept & 1));
    case NPK_RM_RMM: return halfcmp >= 0;
    case NPK_RM_RDN: return sign && inexact;
    case NPK_RM_RUP: return !sign && inexact;
    default: return 0; /* RTZ and invalid modes truncate */
    }
}

/* Round (-1)^sign * sig * 2^exp (sig != 0) to format f and return its encoding. sig may carry
 * a sticky bit in bit 0 provided its top set bit is at least f->p + 1. `sat` forces the
 * saturating overflow rule. Tininess is detected after rounding (RISC-V). */
static inline uint64_t npk__round_pack(const npk__fmt *f, unsigned sign, int exp, uint64_t sig,
                                       int sat, npk_fenv *e)
{
    int n = npk__clz64(sig);
    int p = f->p;
    npk_rm rm = e->rm;
    uint64_t kept, enc;
    int halfcmp, inexact, tiny = 0, E, Eb, sh;
    uint64_t sgn = (uint64_t)sign << (f->width - 1);

    sig <<= n;
    E = exp + 63 - n; /* floor(log2 |value|) */
    if (E < f->emin) {
        /* Tiny unless rounding to p bits with an unbounded exponent carries up to 2^emin. */
        tiny = 1;
        if (E == f->emin - 1) {
            int s0 = 64 - p;
            uint64_t k0 = sig >> s0, r0 = sig & ((UINT64_C(1) << s0) - 1);
            uint64_t h0 = UINT64_C(1) << (s0 - 1);
            int up0 = npk__round_up(rm, sign, k0, (r0 > h0) - (r0 < h0), r0 != 0);
            if (up0 && k0 == (UINT64_C(1) << p) - 1)
                tiny = 0;
        }
        if (tiny && (e->opts & NPK_OPT_FTZ)) {
            e->flags |= NPK_FLAG_UF | NPK_FLAG_NX;
            return sgn;
        }
        Eb = f->emin;
    } else {
        Eb = E;
    }
    sh = 64 - p + (Eb - E);
    if (sh >= 64) {
        kept = 0;
        inexact = 1;
        halfcmp = sh > 64 ? -1 : (sig > (UINT64_C(1) << 63));
    } else {
        uint64_t rem = sig & ((UINT64_C(1) << sh) - 1), half = UINT64_C(1) << (sh - 1);
        kept = sig >> sh;
        inexact = rem != 0;
        halfcmp = (rem > half) - (rem < half);
    }
    kept += (uint64_t)npk__round_up(rm, sign, kept, halfcmp, inexact);
    /* Overflow is decided on the rounded value (a carry into a new binade counts). */
    enc = Eb > f->emax ? UINT64_MAX : ((uint64_t)(Eb - f->emin) << (p - 1)) + kept;
    if (enc > f->maxenc) {
        e->flags |= NPK_FLAG_OF | NPK_FLAG_NX;
        /* infinity exactly when the mode would round this sign's excess away from zero */
        if (sat || (e->opts & NPK_OPT_SATURATE) || !npk__round_up(rm, sign, 0, 1, 1))
            return sgn | f->maxenc;
        return sgn | (f->infenc ? f->infenc : f->nanenc);
    }
    if (inexact)
        e->flags |= tiny ? (NPK_FLAG_UF | NPK_FLAG_NX) : NPK_FLAG_NX;
    return sgn | enc;
}

/* The IEEE 754 sign of an exact zero sum of terms with signs sa and sb, as an encoding. */
static inline uint64_t npk__zero_sum(const npk__fmt *f, unsigned sa, unsigned sb, const npk_fenv *e)
{
    unsigned neg = sa == sb ? sa : e->rm == NPK_RM_RDN;
    return (uint64_t)neg << (f->width - 1);
}

/* Exact (-1)^sa*ma*2^ea + (-1)^sb*mb*2^eb rounded to f, for 0 < ma, mb < 2^54. The term with
 * the higher top bit is placed at bit 62 (its low bits are then zero, so a jammed subtrahend
 * still rounds right) and the other is aligned to it with jamming; when jamming happens the
 * terms are far apart, so no cancellation can expose the sticky bit. */
static inline uint64_t npk__add_terms(const npk__fmt *f, unsigned sa, uint64_t ma, int ea,
                                      unsigned sb, uint64_t mb, int eb, npk_fenv *e)
{
    int na = npk__clz64(ma) - 1, nb = npk__clz64(mb) - 1;
    int ta = ea - na, tb = eb - nb; /* exponents of bit 0 once the top bit is at bit 62 */
    uint64_t x = ma << na, y = mb << nb, r;
    unsigned sign;
    int exp;

    if (ta >= tb) {
        y = npk__shr_jam(y, ta - tb);
        exp = ta;
    } else {
        x = npk__shr_jam(x, tb - ta);
        exp = tb;
    }
    if (sa == sb) {
        r = x + y;
        sign = sa;
    } else if (x >= y) {
        r = x - y;
        sign = sa;
    } else {
        r = y - x;
        sign = sb;
    }
    if (r == 0)
        return npk__zero_sum(f, sa, sb, e);
    return npk__round_pack(f, sign, exp, r, 0, e);
}

#endif
