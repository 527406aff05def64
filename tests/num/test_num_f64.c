/* binary64 add, sub and mul against MPFR: results and flags in all five rounding modes on
 * edge cases and random operands biased to subnormals, overflow and cancellation. */
#include <stdlib.h>
#include <string.h>

#include "num/num.h"
#include "oracle.h"
#include "test.h"

static unsigned long nprint;
static mpfr_t A, B, X;

static const uint64_t edges[] = {
    0, 1, 2, UINT64_C(0x000FFFFFFFFFFFFF), UINT64_C(0x0010000000000000), UINT64_C(0x0010000000000001),
    UINT64_C(0x3FF0000000000000), UINT64_C(0x3FF0000000000001), UINT64_C(0x3FEFFFFFFFFFFFFF),
    UINT64_C(0x7FEFFFFFFFFFFFFF), UINT64_C(0x7FE0000000000000), UINT64_C(0x7FF0000000000000),
    UINT64_C(0x7FF8000000000000), UINT64_C(0x7FF0000000000001), UINT64_C(0x3CA0000000000000),
    UINT64_C(0x3C90000000000000), UINT64_C(0x0008000000000000), UINT64_C(0x4340000000000000),
};

static uint64_t gen(orc_rng *r)
{
    uint64_t v = orc_next(r), m = v & UINT64_C(0x000FFFFFFFFFFFFF);
    uint64_t k = (v >> 52) & 15, ex = (orc_next(r) >> 20) % 2047;
    if (k == 0)
        return edges[(v >> 8) % (sizeof edges / sizeof edges[0])] | (v & UINT64_C(0x8000000000000000));
    if (k < 3)
        ex = 0;
    else if (k < 5)
        ex = 2040 + (v >> 8) % 7;
    else if (k < 8)
        ex = 1013 + (v >> 8) % 20;
    if ((v >> 8) % 4 == 0)
        m &= UINT64_C(0x000FFFFFFFFFFFFF) << ((v >> 12) % 52);
    return (v & UINT64_C(0x8000000000000000)) | ex << 52 | m;
}

static int isnan64(uint64_t x) { return (x & ~UINT64_C(0x8000000000000000)) > UINT64_C(0x7FF0000000000000); }
static double dval(uint64_t x)
{
    double d;
    memcpy(&d, &x, sizeof d);
    return d;
}

/* The MPFR oracle of oracle.c for binary64 (p = 53, emin = -1022, emax = 1023): integer
 * rounding of X at the quantum, with an unbounded exponent for tininess and overflow. */
static uint64_t round64(int rm, unsigned *fl)
{
    static mpfr_t r0, r, t;
    static int init;
    long E = (long)mpfr_get_exp(X) - 1, Eq;
    int tiny, neg = mpfr_signbit(X) != 0;
    double d;
    uint64_t u;
    if (!init) {
        mpfr_inits2(2200, r0, r, t, (mpfr_ptr)0);
        init = 1;
    }
    mpfr_mul_2si(t, X, -(E - 52), MPFR_RNDN);
    switch (rm) {
    case O_RTZ: mpfr_trunc(r0, t); break;
    case O_RDN: mpfr_floor(r0, t); break;
    case O_RUP: mpfr_ceil(r0, t); break;
    case O_RMM: mpfr_round(r0, t); break;
    default: mpfr_rint(r0, t, MPFR_RNDN); break;
    }
    mpfr_mul_2si(r0, r0, E - 52, MPFR_RNDN);
    tiny = mpfr_get_exp(r0) - 1 < -1022;
    if (mpfr_get_exp(r0) - 1 > 1023) { /* r0 has 53 bits: only 2^1024 and up overflow */
        *fl |= O_OF | O_NX;
        if (rm == O_RTZ || (rm == O_RDN && !neg) || (rm == O_RUP && neg))
            return (uint64_t)neg << 63 | UINT64_C(0x7FEFFFFFFFFFFFFF);
        return (uint64_t)neg << 63 | UINT64_C(0x7FF0000000000000);
    }
    Eq = E > -1022 ? E : -1022;
    mpfr_mul_2si(t, X, -(Eq - 52), MPFR_RNDN);
    switch (rm) {
    case O_RTZ: mpfr_trunc(r, t); break;
    case O_RDN: mpfr_floor(r, t); break;
    case O_RUP: mpfr_ceil(r, t); break;
    case O_RMM: mpfr_round(r, t); break;
    default: mpfr_rint(r, t, MPFR_RNDN); break;
    }
    mpfr_mul_2si(r, r, Eq - 52, MPFR_RNDN);
    if (mpfr_cmp(r, X) != 0)
        *fl |= O_NX | (tiny ? O_UF : 0);
    d = mpfr_get_d(r, MPFR_RNDN); /* exact: r is a binary64 value */
    memcpy(&u, &d, sizeof u);
    if (mpfr_zero_p(r))
        u = (uint64_t)neg << 63;
    return u;
}

static void check(int op, uint64_t a, uint64_t b)
{
    int rm;
    for (rm = 0; rm < 5; rm++) {
        npk_fenv e;
        unsigned wfl = 0;
        uint64_t want, got;
        if (isnan64(a) || isnan64(b)) {
            want = UINT64_C(0x7FF8000000000000);
            if ((isnan64(a) && !(a & UINT64_C(0x0008000000000000))) ||
                (isnan64(b) && !(b & UINT64_C(0x0008000000000000))))
                wfl = O_NV;
        } else {
            mpfr_set_d(A, dval(a), MPFR_RNDN);
            mpfr_set_d(B, dval(b), MPFR_RNDN);
            mpfr_clear_flags();
            if (op == 0)
                mpfr_add(X, A, B, orc_mpfr_rnd(rm));
            else if (op == 1)
                mpfr_sub(X, A, B, orc_mpfr_rnd(rm));
            else
                mpfr_mul(X, A, B, orc_mpfr_rnd(rm));
            if (mpfr_nan_p(X)) {
                want = UINT64_C(0x7FF8000000000000);
                wfl = O_NV;
            } else if (mpfr_inf_p(X)) {
                want = (uint64_t)(mpfr_signbit(X) != 0) << 63 | UINT64_C(0x7FF0000000000000);
            } else if (mpfr_zero_p(X)) {
                want = (uint64_t)(mpfr_signbit(X) != 0) << 63;
            } else {
                want = round64(rm, &wfl);
            }
        }
        npk_fenv_init(&e, (npk_rm)rm);
        got = op == 0 ? npk_f64_add(a, b, &e) : op == 1 ? npk_f64_sub(a, b, &e) : npk_f64_mul(a, b, &e);
        if (got == want && e.flags == wfl) {
            npk_test_pass++;
        } else {
            npk_test_fail++;
            if (nprint++ < 30)
                fprintf(stderr, "%s op%d %016llX %016llX = %016llX/%02X want %016llX/%02X\n",
                        orc_rm_name[rm], op, (unsigned long long)a, (unsigned long long)b,
                        (unsigned long long)got, e.flags, (unsigned long long)want, wfl);
        }
    }
}

int main(void)
{
    long n = 300000, t;
    int op;
    unsigned i, j, ne = sizeof edges / sizeof edges[0];
    orc_rng r = {6464};
    npk_fenv e;
    if (getenv("NPK_NUM_RANDOM"))
        n = atol(getenv("NPK_NUM_RANDOM")) * 3 / 10;
    mpfr_inits2(53, A, B, (mpfr_ptr)0);
    mpfr_init2(X, 2200);
    for (op = 0; op < 3; op++) {
        for (i = 0; i < 2 * ne; i++)
            for (j = 0; j < 2 * ne; j++)
                check(op, edges[i / 2] ^ (uint64_t)(i & 1) << 63, edges[j / 2] ^ (uint64_t)(j & 1) << 63);
        for (t = 0; t < n; t++) {
            uint64_t a = gen(&r), b = gen(&r), v = orc_next(&r);
            if (op < 2 && (v & 3) == 0) /* cancellation */
                b = (a ^ (op == 0 ? UINT64_C(0x8000000000000000) : 0)) + (v >> 8) % 5 - 2;
            else if (op == 2 && (v & 3) == 0) /* product near the range limits */
                b = (b & UINT64_C(0x800FFFFFFFFFFFFF)) |
                    (uint64_t)((2046 + 1023 - (int)((a >> 52) & 0x7FF) + 2 * (int)((v >> 8) % 2)) % 2047) << 52;
            check(op, a, b);
        }
        /* short significands (low 29 bits zero, as in widened binary32 values): the one-product
         * path of npk_f64_mul, at every exponent, subnormal and overflowing products included */
        for (t = 0; op == 2 && t < n / 4; t++)
            check(op, gen(&r) & ~((UINT64_C(1) << 29) - 1), gen(&r) & ~((UINT64_C(1) << 29) - 1));
    }
    printf("binary64 add/sub/mul: %lu checks\n", npk_test_pass + npk_test_fail);
    /* rvnpu §6.2: facc = 1 + 2^-30 narrows to 1.0; 1e300 narrows to +inf */
    npk_fenv_init(&e, NPK_RM_RNE);
    NPK_CHECK_EQ_U64(npk_f64bits_to_f32(npk_f64_add(UINT64_C(0x3FF0000000000000),
                                                    UINT64_C(0x3E10000000000000), &e), &e), 0x3F800000);
    NPK_CHECK_EQ_U64(npk_f64bits_to_f32(UINT64_C(0x7E37E43C8800759C), &e), 0x7F800000);
    /* products of two binary32 values are exact in binary64 */
    e.flags = 0;
    NPK_CHECK_EQ_U64(npk_f64_mul(npk_f32_to_f64bits(0x3F800001), npk_f32_to_f64bits(0x3F800001), &e),
                     UINT64_C(0x3FF0000040000040)); /* 1 + 2^-22 + 2^-46 */
    NPK_CHECK_EQ_U64(e.flags, 0);
    mpfr_clears(A, B, X, (mpfr_ptr)0);
    mpfr_free_cache();
    return npk_test_done();
}
