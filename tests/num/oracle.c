/* Independent oracles for the src/num tests (see oracle.h). Nothing here calls src/num. */
#include "oracle.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

const char *const orc_rm_name[5] = {"RNE", "RTZ", "RDN", "RUP", "RMM"};

/*                    name    w   p  emin emax maxval            inf  infenc      nan    max */
const orc_fmt ORC_F32 = {"f32", 32, 24, -126, 127, 3.4028234663852886e38, 1, 0x7F800000, 0x7FC00000,
                         0x7F7FFFFF};
const orc_fmt ORC_BF16 = {"bf16", 16, 8, -126, 127, 3.3895313892515355e38, 1, 0x7F80, 0x7FC0, 0x7F7F};
const orc_fmt ORC_E4M3 = {"e4m3", 8, 4, -6, 8, 448.0, 0, 0, 0x7F, 0x7E};
const orc_fmt ORC_E5M2 = {"e5m2", 8, 3, -14, 15, 57344.0, 1, 0x7C, 0x7F, 0x7B};

double orc_decode(const orc_fmt *f, uint32_t enc, int *cls)
{
    int M = f->p - 1, EB = f->width - 1 - M, bias = 1 - f->emin;
    uint32_t s = (enc >> (f->width - 1)) & 1, e = (enc >> M) & ((1u << EB) - 1);
    uint32_t m = enc & ((1u << M) - 1), eall = (1u << EB) - 1;
    double v;

    *cls = 0;
    if (f->has_inf && e == eall) {
        *cls = m ? 2 : 1;
        return m ? 0 : (s ? -INFINITY : INFINITY);
    }
    if (!f->has_inf && e == eall && m == (1u << M) - 1) { /* E4M3: S.1111.111 only */
        *cls = 2;
        return 0;
    }
    if (e)
        v = ldexp(1.0 + ldexp((double)m, -M), (int)e - bias);
    else
        v = ldexp(ldexp((double)m, -M), 1 - bias);
    return s ? -v : v;
}

uint32_t orc_encode(const orc_fmt *f, double x)
{
    uint32_t sign = signbit(x) ? 1u << (f->width - 1) : 0, enc;
    double ax = fabs(x);
    int cls;

    if (f->width == 32)
        return orc_f32_bits((float)x);
    if (f->width == 16)
        return orc_f32_bits((float)x) >> 16;
    for (enc = 0; enc < (1u << (f->width - 1)); enc++)
        if (orc_decode(f, enc, &cls) == ax && cls == 0)
            return sign | enc;
    fprintf(stderr, "orc_encode: %a not in %s\n", x, f->name);
    abort();
}

void orc_tab_build(orc_tab *t, const orc_fmt *f)
{
    uint32_t enc, lim = 1u << (f->width - 1);
    int cls;

    t->f = f;
    t->n = 0;
    t->val = malloc(sizeof(double) * lim);
    t->enc = malloc(sizeof(uint32_t) * lim);
    for (enc = 0; enc < lim; enc++) {
        double v = orc_decode(f, enc, &cls);
        if (cls)
            continue;
        if (t->n && !(v > t->val[t->n - 1])) {
            fprintf(stderr, "orc_tab_build: %s values not increasing\n", f->name);
            abort();
        }
        t->val[t->n] = v;
        t->enc[t->n] = enc;
        t->n++;
    }
    t->vtop = f->maxval + ldexp(1.0, f->emax - f->p + 1);
}

void orc_tab_free(orc_tab *t)
{
    free(t->val);
    free(t->enc);
}

int orc_tab_find(const orc_tab *t, double ax)
{
    int lo = 0, hi = t->n - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (t->val[mid] <= ax)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* 0: pick lo, 1: pick hi, for lo < ax < hi adjacent multiples of q. Exact in double. */
static int choose(double ax, double lo, double hi, double q, int rm, int neg)
{
    double d1 = ax - lo, d2 = hi - ax;
    switch (rm) {
    case O_RTZ: return 0;
    case O_RDN: return neg;
    case O_RUP: return !neg;
    case O_RMM: return d1 >= d2;
    default:
        if (d1 != d2)
            return d1 > d2;
        return fmod(lo / q, 2.0) != 0.0; /* tie: the even quotient */
    }
}

static uint32_t overflow_result(const orc_fmt *f, int neg, int rm, int sat)
{
    uint32_t sign = neg ? 1u << (f->width - 1) : 0;
    uint32_t maxenc = f->max_enc;
    if (sat || rm == O_RTZ || (rm == O_RDN && !neg) || (rm == O_RUP && neg))
        return sign | maxenc;
    return sign | (f->has_inf ? f->inf_enc : 0x7Fu); /* E4M3 has no infinity: its NaN */
}

uint32_t orc_tab_round(const orc_tab *t, double x, int idx, int rm, int sat, unsigned *flags)
{
    const orc_fmt *f = t->f;
    double ax = fabs(x), lo, hi, q;
    int neg = signbit(x) != 0, E, Eq, pick, tiny = 0;
    uint32_t sign = neg ? 1u << (f->width - 1) : 0;

    if (ax == 0 || t->val[idx] == ax)
        return sign | t->enc[idx];
    if (ax >= t->vtop) {
        *flags |= O_OF | O_NX;
        return overflow_result(f, neg, rm, sat);
    }
    frexp(ax, &E);
    E -= 1; /* floor(log2 ax) */
    Eq = E > f->emin ? E : f->emin;
    q = ldexp(1.0, Eq - f->p + 1);
    lo = t->val[idx];
    hi = idx == t->n - 1 ? t->vtop : t->val[idx + 1];
    pick = choose(ax, lo, hi, q, rm, neg);
    if (pick && idx == t->n - 1) {
        *flags |= O_OF | O_NX;
        return overflow_result(f, neg, rm, sat);
    }
    if (E < f->emin) {
        /* tininess after rounding: round to p bits with an unbounded exponent */
        double q0 = ldexp(1.0, E - f->p + 1), lo0 = floor(ax / q0) * q0;
        double r0 = lo0 == ax ? ax : choose(ax, lo0, lo0 + q0, q0, rm, neg) ? lo0 + q0 : lo0;
        tiny = r0 < ldexp(1.0, f->emin);
    }
    *flags |= O_NX | (tiny ? O_UF : 0);
    return sign | t->enc[pick ? idx + 1 : idx];
}

mpfr_rnd_t orc_mpfr_rnd(int rm)
{
    static const mpfr_rnd_t m[5] = {MPFR_RNDN, MPFR_RNDZ, MPFR_RNDD, MPFR_RNDU, MPFR_RNDN};
    return m[rm];
}

/* r = x rounded to an integer multiple of 2^qe by rm (RMM by mpfr_round: ties away). */
static void round_q(mpfr_ptr r, mpfr_srcptr x, long qe, int rm)
{
    mpfr_mul_2si(r, x, -qe, MPFR_RNDN); /* exact: r has at least x's precision */
    switch (rm) {
    case O_RTZ: mpfr_trunc(r, r); break;
    case O_RDN: mpfr_floor(r, r); break;
    case O_RUP: mpfr_ceil(r, r); break;
    case O_RMM: mpfr_round(r, r); break;
    default: mpfr_rint(r, r, MPFR_RNDN); break;
    }
    mpfr_mul_2si(r, r, qe, MPFR_RNDN);
}

#define ORC_PREC 1200

uint32_t orc_mpfr_round(const orc_fmt *f, mpfr_srcptr x, int rm, int sat, int ftz,
                        unsigned *flags)
{
    static int init;
    static mpfr_t r0, r, lim;
    int neg = mpfr_signbit(x) != 0, tiny, inexact;
    long E = (long)mpfr_get_exp(x) - 1, Eq;
    uint32_t sign = neg ? 1u << (f->width - 1) : 0;

    if (!init) {
        mpfr_inits2(ORC_PREC, r0, r, lim, (mpfr_ptr)0);
        init = 1;
    }
    if (mpfr_get_prec(x) > ORC_PREC - 8) {
        fprintf(stderr, "orc_mpfr_round: precision too large\n");
        abort();
    }
    round_q(r0, x, E - f->p + 1, rm);
    tiny = mpfr_get_exp(r0) - 1 < f->emin;
    mpfr_set_d(lim, f->maxval, MPFR_RNDN);
    if (mpfr_cmpabs(r0, lim) > 0) {
        *flags |= O_OF | O_NX;
        return overflow_result(f, neg, rm, sat);
    }
    if (ftz && tiny) {
        *flags |= O_UF | O_NX;
        return sign;
    }
    Eq = E > f->emin ? E : f->emin;
    if (Eq == E)
        mpfr_set(r, r0, MPFR_RNDN);
    else
        round_q(r, x, Eq - f->p + 1, rm);
    inexact = mpfr_cmp(r, x) != 0;
    if (inexact)
        *flags |= O_NX | (tiny ? O_UF : 0);
    if (mpfr_zero_p(r))
        return sign;
    return orc_encode(f, mpfr_get_d(r, MPFR_RNDN));
}

void orc_mpfr_odd(mpfr_ptr y, mpfr_srcptr x, int ternary)
{
    mpfr_set(y, x, MPFR_RNDN); /* exact: y has more precision */
    if (ternary != 0) {
        mpfr_exp_t ex = mpfr_get_exp(x);
        mpfr_prec_t p = mpfr_get_prec(x);
        mpfr_t h;
        mpfr_init2(h, 2);
        mpfr_set_ui_2exp(h, 1, ex - (mpfr_exp_t)p - 1, MPFR_RNDN);
        if (mpfr_signbit(x))
            mpfr_neg(h, h, MPFR_RNDN);
        mpfr_add(y, y, h, MPFR_RNDN); /* exact given y's extra bit */
        mpfr_clear(h);
    }
}

uint64_t orc_next(orc_rng *r)
{
    uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

const uint32_t orc_f32_edges[] = {
    0x00000000, 0x00000001, 0x00000002, 0x00000003, 0x007FFFFF, 0x00400000, 0x00800000,
    0x00800001, 0x00FFFFFF, 0x01000000, 0x3F800000, 0x3F800001, 0x3F7FFFFF, 0x3FFFFFFF,
    0x40000000, 0x3FC00000, 0x3F000000, 0x3EFFFFFF, 0x40400000, 0x7F7FFFFF, 0x7F7FFFFE,
    0x7F000000, 0x7E800000, 0x7F800000, 0x7FC00000, 0x7FC12345, 0x7F800001, 0x7FA00000,
    0x33800000, 0x34000000, 0x33000000, 0x1F800000, 0x5F800000, 0x4B800000, 0x4B7FFFFF,
    0x4B800001, 0x4F000000, 0x4EFFFFFF, 0x4F800000, 0x43E00000, 0x43E80000, 0x43E80001,
    0x43F00000, 0x47600000, 0x47700000, 0x476FFFFF, 0x47800000, 0x3B000000, 0x3A800000,
    0x3A800001, 0x37800000, 0x37000000, 0x3C800000, 0x38800000, 0x437F0000, 0x43000000,
    0x42FE0000, 0x47000000, 0x46FFFE00, 0x3F808000, 0x3F818000, 0x7F7F8000, 0x7F7F7FFF,
    0x0C000000, 0x1A000000, 0x5A000000, 0x7E7FFFFF, 0x00000010, 0x00080000, 0x3F400000,
};
const int orc_f32_nedges = (int)(sizeof orc_f32_edges / sizeof orc_f32_edges[0]);

uint32_t orc_f32_interesting(orc_rng *r)
{
    uint64_t v = orc_next(r);
    uint32_t sign = (uint32_t)(v >> 63) << 31, m = (uint32_t)v & 0x7FFFFF;
    uint32_t k = (uint32_t)(v >> 32) & 31, ex = (uint32_t)(v >> 40) & 0xFF;
    uint32_t pick = (uint32_t)(v >> 48) & 0x7FFF, shape = (uint32_t)(v >> 24) & 7;

    if (k < 2)
        return sign | orc_f32_edges[pick % orc_f32_nedges];
    if (k < 4)
        return (uint32_t)v;
    switch (k) {
    case 4: case 5: ex = 0; break;                 /* subnormal */
    case 6: ex = 1 + pick % 3; break;              /* just above the subnormals */
    case 7: ex = 251 + pick % 4; break;            /* near overflow */
    case 8: case 9: ex = 120 + pick % 16; break;   /* near 1 */
    case 10: ex = 100 + pick % 60; break;          /* FP8 range */
    default: ex = 1 + ex % 254; break;
    }
    /* significand shapes: few bits (ties), many ones (carries), random */
    if (shape < 2)
        m &= 0x7FFFFFu << (pick % 24);
    else if (shape < 4)
        m |= 0x7FFFFFu >> (pick % 24);
    else if (shape == 4)
        m = (m & 0x7F0000u) | (1u << (pick % 16));
    return sign | (ex << 23) | (m & 0x7FFFFF);
}
