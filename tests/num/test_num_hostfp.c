/* src/num/hostfp.h (the host-FPU fast paths) against the software paths they replace, bit
 * for bit and flag for flag: random operands biased to the domain's boundaries (signed zeros,
 * subnormals, infinities, NaNs with payloads, sums at the binary32 halfway points, results at
 * the smallest normal and at overflow), every rounding mode for the fused multiply-adds, and
 * a host FPU outside its default state (other rounding modes, FTZ/DAZ), where the fast paths
 * must step aside. The software paths themselves are checked against MPFR by num_f32 and
 * num_f64. Usage: test_num_hostfp [exhaustive]  (10^6 cases per operation, or 10^8). */
#include <fenv.h>
#include <stdlib.h>
#include <string.h>

#include "num/num.h"
#include "oracle.h"
#include "test.h"

static long ncase;

static uint32_t gen32(orc_rng *r)
{
    uint64_t v = orc_next(r);
    /* NaNs with random payloads and signs, quiet and signalling */
    if ((v & 15) == 0)
        return (uint32_t)(v >> 32) | 0x7F800001u;
    return orc_f32_interesting(r);
}

static uint64_t widen(uint32_t a) { return npk_f32_to_f64bits(a); }

/* A binary64 NaN becomes the canonical one. */
static uint64_t canon64(uint64_t d)
{
    return (d & ~UINT64_C(0x8000000000000000)) > UINT64_C(0x7FF0000000000000) ? NPK_HOSTFP_F64_NAN
                                                                              : d;
}

/* A binary64 accumulator value: zeros, infinities, canonical NaN, widened binary32 values,
 * random binary64 values, and values far outside the binary32 range. */
static uint64_t gen64(orc_rng *r)
{
    uint64_t v = orc_next(r);
    switch (v & 7) {
    case 0: /* a zero or an infinity */
        return (v & UINT64_C(0x8000000000000000)) |
               ((v >> 8) & 1 ? 0 : UINT64_C(0x7FF0000000000000));
    case 1: return NPK_HOSTFP_F64_NAN;
    case 2: case 3: return widen(gen32(r));
    case 4: /* binary32 range and a little beyond, any significand */
        return (v & UINT64_C(0x800FFFFFFFFFFFFF)) | (uint64_t)(1023 - 160 + (v >> 52) % 300) << 52;
    default: return orc_next(r);
    }
}

/* rvnpu's software FMACC: canon(facc + D(a)*D(b)) by npk_f64_mul and npk_f64_add. */
static uint64_t soft_fmac(uint64_t acc, uint32_t a, uint32_t b)
{
    npk_fenv e;
    npk_fenv_init(&e, NPK_RM_RNE);
    return canon64(npk_f64_add(acc, npk_f64_mul(widen(a), widen(b), &e), &e));
}

static void test_fmac(long n)
{
    orc_rng r = {181};
    for (long i = 0; i < n; i++) {
        uint64_t acc = gen64(&r);
        uint32_t a = gen32(&r), b = gen32(&r);
        if (i % 4 == 0) /* acc cancels the product or nearly: zero signs, tiny sums */
            acc = soft_fmac(0, a, b ^ 0x80000000u) ^ (orc_next(&r) & 3);
        uint64_t got = npk_hostfp_f64_fmac(acc, a, b), want = soft_fmac(acc, a, b);
        NPK_REPORT(got == want, "fmac(%016llx, %08x, %08x) = %016llx, want %016llx\n",
                   (unsigned long long)acc, (unsigned)a, (unsigned)b, (unsigned long long)got,
                   (unsigned long long)want);
    }
    ncase += n;
}

static void put_le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* FVMAC and FVREDUCE: whole vectors, each element added on its own in index order. */
static void test_vectors(long n)
{
    orc_rng r = {272};
    uint8_t a[4 * 80], b[4 * 80];
    uint32_t av[80], bv[80];
    long done = 0;
    while (done < n) {
        uint32_t len = (uint32_t)(orc_next(&r) % 80), k;
        int sparse_nan = orc_next(&r) % 8 != 0; /* most vectors without NaN */
        /* the precondition: facc's NaN is canonical */
        uint64_t acc = canon64(gen64(&r)), want_dot = acc, want_sum = 0;
        npk_fenv e;
        npk_fenv_init(&e, NPK_RM_RNE);
        for (k = 0; k < len; k++) {
            do {
                av[k] = gen32(&r);
                bv[k] = gen32(&r);
            } while (sparse_nan && (npk_f32_is_nan(av[k]) || npk_f32_is_nan(bv[k])));
            if (k && orc_next(&r) % 4 == 0) /* cancel an earlier term */
                av[k] = av[k - 1] ^ 0x80000000u, bv[k] = bv[k - 1];
            put_le(a + 4 * k, av[k]);
            put_le(b + 4 * k, bv[k]);
            want_dot = soft_fmac(want_dot, av[k], bv[k]);
            want_sum = npk_f64_add(want_sum, widen(av[k]), &e);
        }
        want_sum = canon64(want_sum);
        uint64_t got_dot = npk_hostfp_f64_dot_f32(acc, a, b, len);
        uint64_t got_sum = npk_hostfp_f64_sum_f32(0, a, len);
        NPK_REPORT(got_dot == want_dot, "dot of %u from %016llx = %016llx, want %016llx\n",
                   (unsigned)len, (unsigned long long)acc, (unsigned long long)got_dot,
                   (unsigned long long)want_dot);
        NPK_REPORT(got_sum == want_sum, "sum of %u = %016llx, want %016llx\n", (unsigned)len,
                   (unsigned long long)got_sum, (unsigned long long)want_sum);
        done += len ? len : 1;
    }
    ncase += 2 * done;
}

/* binary64 -> binary32 in RNE: random values, and binary32 values plus or minus half an ulp
 * (exact halfway points and their binary64 neighbours), at the subnormal and overflow ends. */
static void test_narrow(long n)
{
    orc_rng r = {363};
    npk_fenv e;
    npk_fenv_init(&e, NPK_RM_RNE);
    for (long i = 0; i < n; i++) {
        uint64_t d = gen64(&r), v = orc_next(&r);
        if (v % 2) {
            uint32_t f = gen32(&r) & 0x7FFFFFFFu;
            uint64_t w = widen(f), ulp;
            if (f >= 0x7F800000u)
                f = 0x7F7FFFFFu, w = widen(f);
            /* half an ulp of f in binary64 bits: 2^28 units for normal f (below: subnormal) */
            ulp = f < 0x00800000u ? 0 : UINT64_C(1) << 28;
            if (ulp == 0) /* subnormal binary32: the half ulp is 2^-150 */
                d = npk_hostfp_d_bits(npk_hostfp_d(w) + 0x1p-150);
            else
                d = w + ulp;
            d += (uint64_t)((int)(v >> 8) % 3 - 1); /* the point or a neighbour */
            d |= (v >> 20 & 1) << 63;
        }
        uint32_t got = npk_hostfp_f64_to_f32(d), want = npk_f64bits_to_f32(d, &e);
        NPK_REPORT(got == want, "narrow(%016llx) = %08x, want %08x\n", (unsigned long long)d,
                   (unsigned)got, (unsigned)want);
    }
    ncase += n;
}

static void test_arith(long n)
{
    orc_rng r = {454};
    static const char *const name[4] = {"add", "sub", "mul", "div"};
    for (long i = 0; i < n; i++) {
        uint32_t a = gen32(&r), b = gen32(&r), want;
        npk_hostfp_op op = (npk_hostfp_op)(i & 3);
        npk_fenv e;
        npk_fenv_init(&e, NPK_RM_RNE);
        if (i % 8 < 2) /* a - a, a + (-a): zero signs; or a nearby value: cancellation */
            b = a ^ (op == NPK_HOSTFP_SUB ? 0 : 0x80000000u) ^ (uint32_t)(orc_next(&r) & 1);
        switch (op) {
        case NPK_HOSTFP_ADD: want = npk_f32_add(a, b, &e); break;
        case NPK_HOSTFP_SUB: want = npk_f32_sub(a, b, &e); break;
        case NPK_HOSTFP_MUL: want = npk_f32_mul(a, b, &e); break;
        default: want = npk_f32_div(a, b, &e); break;
        }
        uint32_t got = npk_hostfp_f32_arith(op, a, b);
        NPK_REPORT(got == want, "%s(%08x, %08x) = %08x, want %08x\n", name[op], (unsigned)a,
                   (unsigned)b, (unsigned)got, (unsigned)want);
    }
    ncase += n;
}

/* Operands of a fused multiply-add near the host path's boundaries. */
static void gen_fma(orc_rng *r, uint32_t *a, uint32_t *b, uint32_t *c)
{
    uint64_t v = orc_next(r);
    uint32_t sa = (uint32_t)(v >> 60 & 1) << 31, sb = (uint32_t)(v >> 61 & 1) << 31;
    int k = (int)(v % 8);
    *a = gen32(r);
    *b = gen32(r);
    *c = gen32(r);
    if (k < 3) {
        /* c plus about half an ulp of c: the product is 2^(e_c - 24) (1 + tiny), whose low
         * bits lie below binary64's precision of the sum, so the sum rounds to a binary32
         * halfway point in binary64 (the double-rounding case) or next to one */
        uint32_t ec = 2 + (uint32_t)(v >> 8) % 250; /* biased exponent of c */
        int eh = (int)ec - 24;                       /* biased exponent of half its ulp */
        *c = sa | ec << 23 | ((uint32_t)(v >> 16) & 0x7FFFFF);
        if (eh < 1)
            eh = 1;
        *a = sb | (uint32_t)eh << 23 | ((uint32_t)(v >> 40) & (k == 0 ? 0x7u : 0x7FFFu));
        *b = 0x3F800000u | ((uint32_t)(v >> 48) & 0xFu); /* 1 + a few ulps */
        if (k == 2)
            *b = 0x3F800000u | ((uint32_t)(v >> 48) & 0x7FFFFFu) >> 8;
    } else if (k == 3) {
        /* c cancels the product's leading bits: exact zeros, tiny and subnormal results */
        npk_fenv e;
        npk_fenv_init(&e, NPK_RM_RNE);
        *c = npk_f32_mul(*a, *b, &e) ^ 0x80000000u ^ (uint32_t)(v >> 8 & 3);
    } else if (k == 4) {
        /* results near the smallest normal 2^-126 */
        *a = (uint32_t)(v >> 8) % 0x01000000u | (uint32_t)(v >> 32 & 1) << 31;
        *b = 0x3F000000u + (uint32_t)((v >> 40) % 0x01800000u);
        *c = (uint32_t)(v >> 16) % 0x01000000u | (uint32_t)(v >> 33 & 1) << 31;
    } else if (k == 5) {
        /* results near FLT_MAX */
        *a = 0x7F000000u + (uint32_t)(v >> 8) % 0x00800000u;
        *b = 0x3FFF0000u + (uint32_t)(v >> 32) % 0x00010000u;
        *c = (0x7F7F0000u + (uint32_t)(v >> 40) % 0x00010000u) | sa;
    }
}

typedef uint32_t (*fma_fn)(uint32_t, uint32_t, uint32_t, npk_fenv *);

static void test_fma(long n)
{
    static const fma_fn host[4] = {npk_hostfp_f32_fma, npk_hostfp_f32_fms,
                                   npk_hostfp_f32_fnmsub, npk_hostfp_f32_fnmadd};
    static const fma_fn soft[4] = {npk_f32_fma, npk_f32_fms, npk_f32_fnmsub, npk_f32_fnmadd};
    orc_rng r = {545};
    for (long i = 0; i < n; i++) {
        uint32_t a, b, c;
        int v = (int)(i & 3);
        /* RNE (the host path) in 3 of 4 cases, the other modes (software) in the rest */
        npk_rm rm = (i >> 2) % 4 ? NPK_RM_RNE : (npk_rm)(1 + (i >> 4) % 4);
        npk_fenv eh, es;
        gen_fma(&r, &a, &b, &c);
        npk_fenv_init(&eh, rm);
        npk_fenv_init(&es, rm);
        eh.flags = es.flags = (unsigned)(i >> 6) & 1; /* flags only accrue */
        uint32_t got = host[v](a, b, c, &eh), want = soft[v](a, b, c, &es);
        NPK_REPORT(got == want && eh.flags == es.flags,
                   "fma variant %d rm %d (%08x, %08x, %08x) = %08x flags %x, want %08x flags %x\n",
                   v, (int)rm, (unsigned)a, (unsigned)b, (unsigned)c, (unsigned)got, eh.flags,
                   (unsigned)want, es.flags);
    }
    ncase += n;
}

/* Outside the default host state the fast paths must not be used (npk_hostfp_ready() = 0),
 * and the fused multiply-adds must still give the software results. */
static void test_env(void)
{
    static const int modes[3] = {FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
#if defined(__x86_64__) && !defined(__FAST_MATH__)
    /* SSE2 math: the fast paths must be compiled in (a wrong build test once turned them off
     * without any other test noticing) */
    NPK_CHECK(NPK_HOSTFP == 1);
    NPK_CHECK(NPK_HOSTFP_MXCSR == 1);
#endif
    NPK_CHECK(npk_hostfp_ready() == NPK_HOSTFP);
    NPK_CHECK(npk_hostfp_probe() == 1);
    for (int m = 0; m < 3; m++) {
        orc_rng r = {636};
        if (fesetround(modes[m]) != 0)
            continue;
        NPK_CHECK(npk_hostfp_ready() == 0);
        NPK_CHECK(npk_hostfp_probe() == 0);
        for (int i = 0; i < 20000; i++) {
            uint32_t a, b, c;
            npk_fenv eh, es;
            gen_fma(&r, &a, &b, &c);
            npk_fenv_init(&eh, NPK_RM_RNE);
            npk_fenv_init(&es, NPK_RM_RNE);
            uint32_t got = npk_hostfp_f32_fma(a, b, c, &eh);
            uint32_t want = npk_f32_fma(a, b, c, &es);
            NPK_REPORT(got == want && eh.flags == es.flags,
                       "fma in host mode %d (%08x, %08x, %08x) = %08x, want %08x\n", m,
                       (unsigned)a, (unsigned)b, (unsigned)c, (unsigned)got, (unsigned)want);
        }
        fesetround(FE_TONEAREST);
    }
    NPK_CHECK(npk_hostfp_ready() == NPK_HOSTFP);
#if NPK_HOSTFP_MXCSR
    {
        unsigned csr = _mm_getcsr();
        _mm_setcsr(csr | 0x8000u); /* FTZ */
        NPK_CHECK(npk_hostfp_ready() == 0);
        NPK_CHECK(npk_hostfp_probe() == 0);
        _mm_setcsr(csr | 0x0040u); /* DAZ */
        NPK_CHECK(npk_hostfp_ready() == 0);
        NPK_CHECK(npk_hostfp_probe() == 0);
        _mm_setcsr(csr);
    }
#endif
    NPK_CHECK(npk_hostfp_ready() == NPK_HOSTFP);
}

/* Hand-derived values at the boundary, written down. */
static void test_spots(void)
{
    npk_fenv e;
    /* -0 + (+0 x -1) = -0 + -0 = -0 */
    NPK_CHECK_EQ_U64(npk_hostfp_f64_fmac(UINT64_C(0x8000000000000000), 0, 0xBF800000u),
                     UINT64_C(0x8000000000000000));
    /* +0 + (-0 x 1) = +0 */
    NPK_CHECK_EQ_U64(npk_hostfp_f64_fmac(0, 0x80000000u, 0x3F800000u), 0);
    /* inf x 0 and a signalling NaN payload: the canonical NaN */
    NPK_CHECK_EQ_U64(npk_hostfp_f64_fmac(0, 0x7F800000u, 0), NPK_HOSTFP_F64_NAN);
    NPK_CHECK_EQ_U64(npk_hostfp_f64_fmac(0, 0xFF812345u, 0x3F800000u), NPK_HOSTFP_F64_NAN);
    /* 1 + 2^-30 narrows to 1; 1e300 to +inf; 2^-150 (a tie) to +0; 3*2^-150 to 2^-148 */
    NPK_CHECK_EQ_U64(npk_hostfp_f64_to_f32(UINT64_C(0x3FF0000000400000)), 0x3F800000u);
    NPK_CHECK_EQ_U64(npk_hostfp_f64_to_f32(UINT64_C(0x7E37E43C8800759C)), 0x7F800000u);
    NPK_CHECK_EQ_U64(npk_hostfp_f64_to_f32(UINT64_C(0x3690000000000000)), 0);
    NPK_CHECK_EQ_U64(npk_hostfp_f64_to_f32(UINT64_C(0x36A8000000000000)), 2);
    /* fma(1 + 2^-15, (1 - 2^-15) 2^-24, 1 + 2^-23) = 1 + 2^-23 + 2^-24 - 2^-54: binary64
     * rounds it to the binary32 halfway point 1 + 2^-23 + 2^-24, whose tie goes to 1 + 2^-22
     * (double rounding); the exact sum lies below it: 1 + 2^-23, NX */
    npk_fenv_init(&e, NPK_RM_RNE);
    NPK_CHECK_EQ_U64(npk_hostfp_f32_fma(0x3F800100u, 0x337FFE00u, 0x3F800001u, &e),
                     0x3F800001u);
    NPK_CHECK_EQ_U64(e.flags, NPK_FLAG_NX);
    /* one binary32 ulp above, the same product lands just below 1 + 2^-22 + 2^-24, the tie
     * going down to 1 + 2^-22: the exact sum also rounds down */
    npk_fenv_init(&e, NPK_RM_RNE);
    NPK_CHECK_EQ_U64(npk_hostfp_f32_fma(0x3F800100u, 0x337FFE00u, 0x3F800002u, &e),
                     0x3F800002u);
    NPK_CHECK_EQ_U64(e.flags, NPK_FLAG_NX);
    /* fma(2, 3, -6) = +0 exactly, no flags; fnmadd(0, 1, 0) = -(0) - 0 = -0 */
    npk_fenv_init(&e, NPK_RM_RNE);
    NPK_CHECK_EQ_U64(npk_hostfp_f32_fma(0x40000000u, 0x40400000u, 0xC0C00000u, &e), 0);
    NPK_CHECK_EQ_U64(npk_hostfp_f32_fnmadd(0, 0x3F800000u, 0, &e), 0x80000000u);
    NPK_CHECK_EQ_U64(e.flags, 0);
    /* fma(2^64, 2^64, 0) = 2^128: overflow, +inf with OF and NX (software path) */
    NPK_CHECK_EQ_U64(npk_hostfp_f32_fma(0x5F800000u, 0x5F800000u, 0, &e), 0x7F800000u);
    NPK_CHECK_EQ_U64(e.flags, NPK_FLAG_OF | NPK_FLAG_NX);
}

int main(int argc, char **argv)
{
    long n = argc > 1 && strcmp(argv[1], "exhaustive") == 0 ? 100000000L : 1000000L;
    test_spots();
    test_env();
    test_fmac(n);
    test_vectors(n);
    test_narrow(n);
    test_arith(4 * n);
    test_fma(4 * n);
    printf("%ld cases (%ld per operation)\n", ncase, n);
    return npk_test_done();
}
