/* The exact accumulator (pccx ExactSum): random lists of binary32 values and exact products,
 * with heavy cancellation, against an exact MPFR sum rounded by the MPFR oracle in every
 * mode; the special-value rules of pccx §3.3 by hand. */
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

int main(void)
{
    long n = 200000;
    unsigned fl;
    if (getenv("NPK_NUM_RANDOM"))
        n = atol(getenv("NPK_NUM_RANDOM")) / 5;
    test_random(n);
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
