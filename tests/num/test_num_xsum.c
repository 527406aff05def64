/* The exact accumulator (pccx ExactSum): random lists of binary32 values and exact products,
 * with heavy cancellation, against an exact MPFR sum rounded by the MPFR oracle in every
 * mode; the special-value rules of pccx §3.3 by hand. */
#include <fenv.h>
#include <stdlib.h>

#include "num/num.h"
#include "oracle.h"
#include "test.h"

static unsigned long nprint;

static uint32_t finite(orc_rng *r)
{
    uint32_t x;
    do
        x = orc_f32_interesting(r);
    while ((x & 0x7F800000u) == 0x7F800000u);
    return x;
}

static void test_random(long nlists)
{
    orc_rng r = {8080};
    mpfr_t s, t, a, b;
    long l;
    mpfr_inits2(800, s, t, (mpfr_ptr)0);
    mpfr_inits2(24, a, b, (mpfr_ptr)0);
    for (l = 0; l < nlists; l++) {
        npk_xsum xs;
        int n = 1 + (int)(orc_next(&r) % 40), i, rm;
        npk_xsum_init(&xs);
        mpfr_set_zero(s, 1);
        for (i = 0; i < n; i++) {
            uint64_t v = orc_next(&r);
            uint32_t x = finite(&r), y = finite(&r);
            if (v % 3 == 0) { /* the negation of an earlier-sized term: cancellation */
                npk_xsum_add_f32(&xs, x);
                npk_xsum_add_f32(&xs, x ^ 0x80000000u);
            }
            if (v & 8) {
                npk_xsum_add_f32_mul(&xs, x, y);
                mpfr_set_d(a, orc_f32_val(x), MPFR_RNDN);
                mpfr_set_d(b, orc_f32_val(y), MPFR_RNDN);
                mpfr_mul(t, a, b, MPFR_RNDN); /* exact */
            } else {
                npk_xsum_add_f32(&xs, x);
                mpfr_set_d(t, orc_f32_val(x), MPFR_RNDN);
            }
            mpfr_add(s, s, t, MPFR_RNDN); /* exact at 800 bits */
        }
        for (rm = 0; rm < 5; rm++) {
            npk_fenv e;
            unsigned wfl = 0;
            uint32_t got, want;
            npk_fenv_init(&e, (npk_rm)rm);
            got = npk_xsum_to_f32(&xs, &e);
            if (mpfr_zero_p(s)) /* zero sign rules are checked by hand below */
                want = got & 0x7FFFFFFFu ? 1 : got;
            else
                want = orc_mpfr_round(&ORC_F32, s, rm, 0, 0, &wfl);
            if (got == want && e.flags == wfl) {
                npk_test_pass++;
            } else {
                npk_test_fail++;
                if (nprint++ < 20)
                    fprintf(stderr, "list %ld %s: %08X/%02X want %08X/%02X\n", l, orc_rm_name[rm],
                            got, e.flags, want, wfl);
            }
        }
    }
    mpfr_clears(s, t, a, b, (mpfr_ptr)0);
}

static uint32_t sum(const uint32_t *x, int n, npk_rm rm, unsigned *flags)
{
    npk_xsum s;
    npk_fenv e;
    int i;
    npk_xsum_init(&s);
    for (i = 0; i < n; i++)
        npk_xsum_add_f32(&s, x[i]);
    npk_fenv_init(&e, rm);
    i = (int)npk_xsum_to_f32(&s, &e);
    if (flags)
        *flags = e.flags;
    return (uint32_t)i;
}

/* npk_xdot_*: where prepare allows the binary64 path it must equal the accumulator (random
 * rows of BF16 values within 2^-20..2^20 and INT4 codes, signed zeros included); a row that
 * needs more than binary64 (the tie case below) must be refused. */
static void test_xdot(void)
{
    orc_rng r = {4242};
    double ad[300];
    uint16_t a[300];
    uint8_t w[150];
    unsigned long fast = 0, refused = 0;
    for (int t = 0; t < 20000; t++) {
        uint64_t K = 1 + orc_next(&r) % 300;
        int span = (int)(orc_next(&r) % 41);
        for (uint64_t k = 0; k < K; k++) {
            uint64_t v = orc_next(&r);
            a[k] = (uint16_t)((v & 1) << 15 | (uint16_t)((127 - span / 2 + (int)(v >> 8) % (span + 1)) << 7) |
                              ((v >> 20) & 127));
            if (v % 50 == 0)
                a[k] &= 0x8000; /* a signed zero */
        }
        for (uint64_t j = 0; j < (K + 1) / 2; j++)
            w[j] = (uint8_t)orc_next(&r);
        uint32_t exact = npk_xdot_bf16_i4_exact(a, w, K);
        if (npk_xdot_prepare(a, K, ad)) {
            fast++;
            NPK_REPORT(npk_xdot_bf16_i4_fast(ad, w, K) == exact, "xdot K %llu: fast 0x%08x, "
                       "exact 0x%08x\n", (unsigned long long)K,
                       npk_xdot_bf16_i4_fast(ad, w, K), exact);
        } else {
            refused++;
        }
    }
    NPK_CHECK(fast > 1000 && refused > 1000);
    /* (1, 2^-8, 2^-24, 2^-60) . (1, 1, 1, 1): exactly above the binary32 midpoint
     * 1 + 2^-8 + 2^-24, so 1 + 2^-8 + 2^-23 = 0x3F808001; binary64 would lose 2^-60 */
    const uint16_t tie[4] = {0x3F80, 0x3B80, 0x3380, 0x2180};
    const uint8_t ones[2] = {0x11, 0x11};
    NPK_CHECK(npk_xdot_prepare(tie, 4, ad) == 0);
    NPK_CHECK_EQ_U64(npk_xdot_bf16_i4_exact(tie, ones, 4), 0x3F808001);
    /* zero signs (pccx §3.3): (-0, -0) . (1, 1) = -0 (every product -0); (-0, +0) . (1, 1) = +0 */
    const uint16_t nz[2] = {0x8000, 0x8000}, mz[2] = {0x8000, 0x0000};
    NPK_CHECK(npk_xdot_prepare(nz, 2, ad) == 1);
    NPK_CHECK_EQ_U64(npk_xdot_bf16_i4_fast(ad, ones, 2), 0x80000000);
    NPK_CHECK_EQ_U64(npk_xdot_bf16_i4_exact(nz, ones, 2), 0x80000000);
    NPK_CHECK(npk_xdot_prepare(mz, 2, ad) == 1);
    NPK_CHECK_EQ_U64(npk_xdot_bf16_i4_fast(ad, ones, 2), 0);
    NPK_CHECK_EQ_U64(npk_xdot_bf16_i4_exact(mz, ones, 2), 0);
    /* 1 x (-1) + 1 x (+1): nonzero products cancelling to an exact zero give +0 */
    const uint16_t pm[2] = {0x3F80, 0x3F80};
    const uint8_t w_pm[1] = {0x1F}; /* codes -1 (0xF) and +1 (0x1) */
    NPK_CHECK(npk_xdot_prepare(pm, 2, ad) == 1);
    NPK_CHECK_EQ_U64(npk_xdot_bf16_i4_fast(ad, w_pm, 2), 0);
    NPK_CHECK_EQ_U64(npk_xdot_bf16_i4_exact(pm, w_pm, 2), 0);
}

/* Two windows (npk_xdot_prepare2 and fast2): rows of two clusters of values whose exponents lie
 * 20 to 120 binades apart, signed zeros, and pairs that cancel (equal values with codes +c and
 * -c), against the accumulator; every row and every block of rows must agree with it. The
 * hand-derived cases: the tie row above, now in two windows (1 + 2^-8 + 2^-24 in the high one,
 * 2^-60 in the low one: the binary64 sum 1 + 2^-8 + 2^-24 has an even last bit and a rest of
 * 2^-60, so rounding to odd moves it up and RNE to binary32 gives 0x3F808001, not the tie's
 * even 0x3F808000); (-2^60, -2^-60) . (0, 0) = -0 (both products -0) in two windows;
 * (2^60, -2^60, 2^-60) . (1, 1, 0) = +0 (nonzero products cancel, the third is +0). */
static void test_xdot2(void)
{
    enum { KMAX = 300, ROWS = NPK_XDOT_ROWS };
    orc_rng r = {777};
    static double hi[KMAX], lo[KMAX];
    static uint16_t a[KMAX];
    static uint8_t w[ROWS][KMAX / 2];
    unsigned long two = 0, refused = 0;
    for (int t = 0; t < 20000; t++) {
        uint64_t K = 2 + orc_next(&r) % (KMAX - 1);
        int c1 = 40 + (int)(orc_next(&r) % 80), c2 = c1 + 20 + (int)(orc_next(&r) % 100);
        /* clusters 1 to 12 binades wide, and every eighth row 45 to 64 (then often too wide
         * for a window: refused) */
        int width = t % 8 ? 1 + (int)(orc_next(&r) % 12) : 45 + (int)(orc_next(&r) % 20);
        for (uint64_t k = 0; k < K; k++) {
            uint64_t v = orc_next(&r);
            int be = ((v >> 40) & 1 ? c1 : c2) + (int)((v >> 8) % (unsigned)width);
            a[k] = (uint16_t)((v & 1) << 15 | (uint16_t)((be > 254 ? 254 : be) << 7) |
                              ((v >> 20) & 127));
            if (v % 40 == 0)
                a[k] &= 0x8000; /* a signed zero */
            if (k && v % 7 == 0)
                a[k] = a[k - 1]; /* a repeated value: with opposite codes, it cancels */
        }
        for (int row = 0; row < ROWS; row++)
            for (uint64_t j = 0; j < (K + 1) / 2; j++) {
                uint8_t b = (uint8_t)orc_next(&r);
                if (j && orc_next(&r) % 5 == 0) /* codes c, -c over a repeated pair */
                    b = (uint8_t)((b & 0x0F) | ((16 - (b & 0x0F)) & 0x0F) << 4);
                w[row][j] = b;
            }
        if (npk_xdot_prepare(a, K, hi)) /* one window does: covered by test_xdot */
            continue;
        if (!npk_xdot_prepare2(a, K, hi, lo)) {
            refused++;
            continue;
        }
        two++;
        uint32_t y[ROWS];
        npk_xdot_bf16_i4_fast2_rows(hi, lo, a, w[0], KMAX / 2, K, y);
        for (int row = 0; row < ROWS; row++) {
            uint32_t exact = npk_xdot_bf16_i4_exact(a, w[row], K);
            uint32_t one = npk_xdot_bf16_i4_fast2(hi, lo, a, w[row], K);
            NPK_REPORT(one == exact && y[row] == exact,
                       "xdot2 K %llu row %d: fast2 0x%08x, rows 0x%08x, exact 0x%08x\n",
                       (unsigned long long)K, row, one, y[row], exact);
        }
    }
    NPK_CHECK(two > 5000 && refused > 500);
    const uint16_t tie[4] = {0x3F80, 0x3B80, 0x3380, 0x2180};
    const uint8_t ones[2] = {0x11, 0x11};
    NPK_CHECK(npk_xdot_prepare2(tie, 4, hi, lo) == 1);
    NPK_CHECK(lo[3] == 0x1p-60 && hi[3] == 0 && lo[0] == 0 && hi[0] == 1);
    NPK_CHECK_EQ_U64(npk_xdot_bf16_i4_fast2(hi, lo, tie, ones, 4), 0x3F808001);
    const uint16_t negz[2] = {0xDD80, 0xA180}; /* -2^60, -2^-60 */
    const uint8_t zeros[1] = {0x00};
    NPK_CHECK(npk_xdot_prepare(negz, 2, hi) == 0 && npk_xdot_prepare2(negz, 2, hi, lo) == 1);
    NPK_CHECK_EQ_U64(npk_xdot_bf16_i4_fast2(hi, lo, negz, zeros, 2), 0x80000000);
    NPK_CHECK_EQ_U64(npk_xdot_bf16_i4_exact(negz, zeros, 2), 0x80000000);
    const uint16_t canc[3] = {0x5D80, 0xDD80, 0x2180}; /* 2^60, -2^60, 2^-60 */
    const uint8_t w_canc[2] = {0x11, 0x00};
    NPK_CHECK(npk_xdot_prepare2(canc, 3, hi, lo) == 1);
    NPK_CHECK_EQ_U64(npk_xdot_bf16_i4_fast2(hi, lo, canc, w_canc, 3), 0);
    NPK_CHECK_EQ_U64(npk_xdot_bf16_i4_exact(canc, w_canc, 3), 0);
    /* combining the windows needs the host in round-to-nearest: in another rounding mode the
     * row takes the accumulator (prepare2 refuses), and the result is the same */
    fesetround(FE_UPWARD);
    int refused_up = npk_xdot_prepare2(tie, 4, hi, lo) == 0;
    fesetround(FE_TONEAREST);
    NPK_CHECK(refused_up);
    NPK_CHECK_EQ_U64(npk_xdot_bf16_i4_exact(tie, ones, 4), 0x3F808001);
    /* three clusters 60 binades apart need three windows: refused */
    const uint16_t three[3] = {0x5D80, 0x3F80, 0x2180};
    NPK_CHECK(npk_xdot_prepare2(three, 3, hi, lo) == 0);
}

/* npk_xdot_bf16_bf16 (BF16 x BF16, pccx's weight views) against the accumulator, written out
 * here product by product: random rows whose values span 0 to 80 binades (the binary64 path
 * and the accumulator both taken), signed zeros, repeated values with opposite signs
 * (cancellation to exact zeros), infinities and NaNs. Hand-derived: (1, 2^-8, 2^-24, 2^-60) .
 * (1, 1, 1, 1) is above the midpoint 1 + 2^-8 + 2^-24 by 2^-60 (0x3F808001); (-0, -0) . (1, 1)
 * = -0; (1, -1) . (1, 1) = +0. */
static void test_xdot_bf16(void)
{
    orc_rng r = {99};
    uint16_t a[200], w[200];
    for (int t = 0; t < 20000; t++) {
        uint64_t K = 1 + orc_next(&r) % 200;
        int span = (int)(orc_next(&r) % 81);
        for (uint64_t k = 0; k < K; k++) {
            uint64_t v = orc_next(&r), u = orc_next(&r);
            a[k] = (uint16_t)((v & 1) << 15 | (uint16_t)((127 - span / 2 + (int)((v >> 8) % (unsigned)(span + 1))) << 7) |
                              ((v >> 20) & 127));
            w[k] = (uint16_t)((u & 1) << 15 | (uint16_t)((120 + (int)((u >> 8) % 16)) << 7) |
                              ((u >> 20) & 127));
            if (v % 40 == 0)
                a[k] &= 0x8000;
            if (u % 40 == 0)
                w[k] &= 0x8000;
            if (k && v % 6 == 0)
                a[k] = a[k - 1], w[k] = w[k - 1] ^ 0x8000;
            if (t % 500 == 0 && k == K / 2)
                a[k] = (u & 2) ? 0x7F80 : 0x7FC1; /* an infinity or a NaN */
        }
        npk_xsum xs;
        npk_fenv e;
        npk_fenv_init(&e, NPK_RM_RNE);
        npk_xsum_init(&xs);
        for (uint64_t k = 0; k < K; k++)
            npk_xsum_add_f32_mul(&xs, (uint32_t)a[k] << 16, (uint32_t)w[k] << 16);
        uint32_t want = npk_xsum_to_f32(&xs, &e), got = npk_xdot_bf16_bf16(a, w, K);
        NPK_REPORT(got == want, "xdot bf16 K %llu span %d: 0x%08x, accumulator 0x%08x\n",
                   (unsigned long long)K, span, got, want);
    }
    const uint16_t tie[4] = {0x3F80, 0x3B80, 0x3380, 0x2180}, one[4] = {0x3F80, 0x3F80,
                                                                          0x3F80, 0x3F80};
    NPK_CHECK_EQ_U64(npk_xdot_bf16_bf16(tie, one, 4), 0x3F808001);
    const uint16_t nz[2] = {0x8000, 0x8000}, pm[2] = {0x3F80, 0xBF80};
    NPK_CHECK_EQ_U64(npk_xdot_bf16_bf16(nz, one, 2), 0x80000000);
    NPK_CHECK_EQ_U64(npk_xdot_bf16_bf16(pm, one, 2), 0);
}

int main(void)
{
    long n = 200000;
    unsigned fl;
    if (getenv("NPK_NUM_RANDOM"))
        n = atol(getenv("NPK_NUM_RANDOM")) / 5;
    test_random(n);
    test_xdot();
    test_xdot2();
    test_xdot_bf16();
    {
        /* pccx §3.3: 2^40 + 3 - 2^40 = 3 exactly */
        uint32_t x[] = {0x53800000, 0x40400000, 0xD3800000};
        NPK_CHECK_EQ_U64(sum(x, 3, NPK_RM_RNE, &fl), 0x40400000);
        NPK_CHECK_EQ_U64(fl, 0);
    }
    {
        /* 1 + 2^-24 + 2^-24: sequential RNE gives 1, the exact sum 1 + 2^-23 */
        uint32_t x[] = {0x3F800000, 0x33800000, 0x33800000};
        NPK_CHECK_EQ_U64(sum(x, 3, NPK_RM_RNE, NULL), 0x3F800001);
    }
    {
        uint32_t negz[] = {0x80000000, 0x80000000}, mixz[] = {0x80000000, 0};
        uint32_t canc[] = {0x3F800000, 0xBF800000}, nan[] = {0x3F800000, 0x7FC00000};
        uint32_t infs[] = {0x7F800000, 0xFF800000}, inf[] = {0x7F800000, 0x3F800000};
        uint32_t snan[] = {0x7F800001}, big[] = {0x7F7FFFFF, 0x7F7FFFFF, 0xFF7FFFFF};
        NPK_CHECK_EQ_U64(sum(negz, 2, NPK_RM_RNE, NULL), 0x80000000); /* all -0: -0 */
        NPK_CHECK_EQ_U64(sum(mixz, 2, NPK_RM_RNE, NULL), 0);
        NPK_CHECK_EQ_U64(sum(canc, 2, NPK_RM_RNE, NULL), 0);
        NPK_CHECK_EQ_U64(sum(canc, 2, NPK_RM_RDN, NULL), 0x80000000); /* IEEE: -0 rounding down */
        NPK_CHECK_EQ_U64(sum(negz, 0, NPK_RM_RNE, NULL), 0);          /* empty: +0 */
        NPK_CHECK_EQ_U64(sum(nan, 2, NPK_RM_RNE, &fl), 0x7FC00000);
        NPK_CHECK_EQ_U64(fl, 0);
        NPK_CHECK_EQ_U64(sum(infs, 2, NPK_RM_RNE, &fl), 0x7FC00000);
        NPK_CHECK_EQ_U64(fl, NPK_FLAG_NV);
        NPK_CHECK_EQ_U64(sum(inf, 2, NPK_RM_RNE, NULL), 0x7F800000);
        NPK_CHECK_EQ_U64(sum(snan, 1, NPK_RM_RNE, &fl), 0x7FC00000);
        NPK_CHECK_EQ_U64(fl, NPK_FLAG_NV);
        /* no intermediate overflow: MAX + MAX - MAX = MAX */
        NPK_CHECK_EQ_U64(sum(big, 3, NPK_RM_RNE, &fl), 0x7F7FFFFF);
        NPK_CHECK_EQ_U64(fl, 0);
    }
    {
        /* products: inf * 0 is NaN (NV); a zero product's sign is the XOR of the signs */
        npk_xsum s;
        npk_fenv e;
        npk_xsum_init(&s);
        npk_xsum_add_f32_mul(&s, 0x80000000, 0x3F800000);
        npk_fenv_init(&e, NPK_RM_RNE);
        NPK_CHECK_EQ_U64(npk_xsum_to_f32(&s, &e), 0x80000000);
        npk_xsum_add_f32_mul(&s, 0x7F800000, 0);
        NPK_CHECK_EQ_U64(npk_xsum_to_f32(&s, &e), 0x7FC00000);
        NPK_CHECK_EQ_U64(e.flags, NPK_FLAG_NV);
        /* the smallest products: 2^-149 * 2^-149 = 2^-298, summed 2^20 times is still tiny */
        npk_xsum_init(&s);
        npk_xsum_add_f32_mul(&s, 1, 1);
        npk_fenv_init(&e, NPK_RM_RUP);
        NPK_CHECK_EQ_U64(npk_xsum_to_f32(&s, &e), 1);
        NPK_CHECK_EQ_U64(e.flags, NPK_FLAG_UF | NPK_FLAG_NX);
        /* the largest: MAX * MAX overflows */
        npk_xsum_init(&s);
        npk_xsum_add_f32_mul(&s, 0xFF7FFFFF, 0x7F7FFFFF);
        npk_fenv_init(&e, NPK_RM_RNE);
        NPK_CHECK_EQ_U64(npk_xsum_to_f32(&s, &e), 0xFF800000);
    }
    mpfr_free_cache();
    return npk_test_done();
}
