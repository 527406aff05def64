/* binary32 operations that do not round: min/max (both IEEE 754-2019 flavours), comparisons
 * and classify against host-double comparisons, plus the options (NaN propagation, DAZ, FTZ,
 * saturation) and the worked examples of opennpu §5.8-5.9 and rvnpu §11.2, by hand. */
#include <math.h>
#include <stdlib.h>

#include "num/num.h"
#include "oracle.h"
#include "test.h"


#define REPORT NPK_REPORT

/* Oracle for min/max: number = minimumNumber/maximumNumber (RISC-V), else minimum/maximum. */
static uint32_t minmax_oracle(uint32_t a, uint32_t b, int want_max, int number, unsigned *fl)
{
    double x = orc_f32_val(a), y = orc_f32_val(b);
    *fl = (orc_f32_issnan(a) || orc_f32_issnan(b)) ? O_NV : 0;
    if (isnan(x) || isnan(y)) {
        if (!number || (isnan(x) && isnan(y)))
            return 0x7FC00000u;
        return isnan(x) ? b : a;
    }
    if (x == y && x == 0) /* -0 < +0 */
        return want_max ? (signbit(x) ? b : a) : (signbit(x) ? a : b);
    if (want_max)
        return x >= y ? a : b;
    return x <= y ? a : b;
}

static void test_minmax_compare(long n)
{
    orc_rng r = {2024};
    long t;
    for (t = 0; t < n; t++) {
        uint32_t a = orc_f32_interesting(&r), b;
        npk_fenv e;
        unsigned wfl;
        int k;
        double x, y;
        uint64_t v = orc_next(&r);
        b = (v & 3) == 0 ? a ^ (uint32_t)(v & 0x80000000u) : (v & 3) == 1 ? a + 1 : orc_f32_interesting(&r);
        x = orc_f32_val(a);
        y = orc_f32_val(b);
        for (k = 0; k < 4; k++) {
            uint32_t want = minmax_oracle(a, b, k & 1, k < 2, &wfl), got;
            npk_fenv_init(&e, NPK_RM_RNE);
            got = k == 0 ? npk_f32_min(a, b, &e) : k == 1 ? npk_f32_max(a, b, &e)
                : k == 2 ? npk_f32_minimum(a, b, &e) : npk_f32_maximum(a, b, &e);
            REPORT(got == want && e.flags == wfl, "minmax%d(%08X, %08X) = %08X/%02X want %08X/%02X\n",
                   k, a, b, got, e.flags, want, wfl);
        }
        {
            int nan = isnan(x) || isnan(y), snan = orc_f32_issnan(a) || orc_f32_issnan(b);
            int g;
            npk_fenv_init(&e, NPK_RM_RNE);
            g = npk_f32_eq(a, b, &e);
            REPORT(g == (x == y) && e.flags == (snan ? (unsigned)O_NV : 0u), "eq %08X %08X\n", a, b);
            npk_fenv_init(&e, NPK_RM_RNE);
            g = npk_f32_lt(a, b, &e);
            REPORT(g == (x < y) && e.flags == (nan ? (unsigned)O_NV : 0u), "lt %08X %08X\n", a, b);
            npk_fenv_init(&e, NPK_RM_RNE);
            g = npk_f32_le(a, b, &e);
            REPORT(g == (x <= y) && e.flags == (nan ? (unsigned)O_NV : 0u), "le %08X %08X\n", a, b);
        }
        {
            unsigned c = npk_f32_classify(a), want;
            int neg = signbit(x) != 0;
            if (isnan(x))
                want = (a & 0x400000) ? NPK_CLASS_QNAN : NPK_CLASS_SNAN;
            else if (isinf(x))
                want = neg ? NPK_CLASS_NEG_INF : NPK_CLASS_POS_INF;
            else if (x == 0)
                want = neg ? NPK_CLASS_NEG_ZERO : NPK_CLASS_POS_ZERO;
            else if (fabs(x) < ldexp(1, -126))
                want = neg ? NPK_CLASS_NEG_SUBNORMAL : NPK_CLASS_POS_SUBNORMAL;
            else
                want = neg ? NPK_CLASS_NEG_NORMAL : NPK_CLASS_POS_NORMAL;
            REPORT(c == want, "classify %08X = %03X want %03X\n", a, c, want);
        }
    }
    /* RISC-V fclass bit numbers */
    NPK_CHECK_EQ_U64(npk_f32_classify(0xFF800000), 1u << 0);
    NPK_CHECK_EQ_U64(npk_f32_classify(0x80000000), 1u << 3);
    NPK_CHECK_EQ_U64(npk_f32_classify(0x00000001), 1u << 5);
    NPK_CHECK_EQ_U64(npk_f32_classify(0x7F800001), 1u << 8);
    NPK_CHECK_EQ_U64(npk_f32_classify(0x7FC00000), 1u << 9);
}

static void test_riscv_examples(void)
{
    npk_fenv e;
    npk_fenv_init(&e, NPK_RM_RNE);
    /* FMIN/FMAX: -0 < +0, one NaN gives the other, sNaN signals */
    NPK_CHECK_EQ_U64(npk_f32_min(0x00000000, 0x80000000, &e), 0x80000000);
    NPK_CHECK_EQ_U64(npk_f32_max(0x80000000, 0x00000000, &e), 0x00000000);
    NPK_CHECK_EQ_U64(e.flags, 0);
    NPK_CHECK_EQ_U64(npk_f32_max(0x7F800001, 0x3F800000, &e), 0x3F800000);
    NPK_CHECK_EQ_U64(e.flags, NPK_FLAG_NV);
    NPK_CHECK_EQ_U64(npk_f32_min(0x7FC00000, 0xFFC00000, &e), 0x7FC00000);
    /* pccx maximum: NaN wins */
    NPK_CHECK_EQ_U64(npk_f32_maximum(0x7FC00000, 0x3F800000, &e), 0x7FC00000);
    NPK_CHECK_EQ_U64(npk_f32_maximum(0x80000000, 0x00000000, &e), 0x00000000);
    /* sqrt(-0) = -0; sqrt(-1) = NaN with NV */
    npk_fenv_init(&e, NPK_RM_RNE);
    NPK_CHECK_EQ_U64(npk_f32_sqrt(0x80000000, &e), 0x80000000);
    NPK_CHECK_EQ_U64(e.flags, 0);
    NPK_CHECK_EQ_U64(npk_f32_sqrt(0xBF800000, &e), 0x7FC00000);
    NPK_CHECK_EQ_U64(e.flags, NPK_FLAG_NV);
    /* inf * 0 + qNaN: NV and the canonical NaN */
    npk_fenv_init(&e, NPK_RM_RNE);
    NPK_CHECK_EQ_U64(npk_f32_fma(0x7F800000, 0, 0x7FC01234, &e), 0x7FC00000);
    NPK_CHECK_EQ_U64(e.flags, NPK_FLAG_NV);
    /* FLT_MAX + FLT_MAX: +inf with OF|NX in RNE, FLT_MAX in RTZ */
    npk_fenv_init(&e, NPK_RM_RNE);
    NPK_CHECK_EQ_U64(npk_f32_add(0x7F7FFFFF, 0x7F7FFFFF, &e), 0x7F800000);
    NPK_CHECK_EQ_U64(e.flags, NPK_FLAG_OF | NPK_FLAG_NX);
    e.rm = NPK_RM_RTZ;
    NPK_CHECK_EQ_U64(npk_f32_add(0x7F7FFFFF, 0x7F7FFFFF, &e), 0x7F7FFFFF);
    /* 1/0: +inf with DZ */
    npk_fenv_init(&e, NPK_RM_RNE);
    NPK_CHECK_EQ_U64(npk_f32_div(0x3F800000, 0x80000000, &e), 0xFF800000);
    NPK_CHECK_EQ_U64(e.flags, NPK_FLAG_DZ);
    /* x - x is +0, but -0 when rounding down */
    NPK_CHECK_EQ_U64(npk_f32_sub(0x3F800000, 0x3F800000, &e), 0);
    e.rm = NPK_RM_RDN;
    NPK_CHECK_EQ_U64(npk_f32_sub(0x3F800000, 0x3F800000, &e), 0x80000000);
    /* FNMADD = -(a*b) - c with the operands negated: -(+0*1) - (-0) is -0 + +0 = +0 (RNE) */
    e.rm = NPK_RM_RNE;
    NPK_CHECK_EQ_U64(npk_f32_fnmadd(0, 0x3F800000, 0x80000000, &e), 0);
    NPK_CHECK_EQ_U64(npk_f32_fnmadd(0, 0x3F800000, 0, &e), 0x80000000);
    /* tininess after rounding: (1 - 2^-23)(1 + 2^-23) 2^-126 = (1 - 2^-46) 2^-126 rounds to
     * 24 bits as 2^-126 in RNE: not tiny, so no UF */
    npk_fenv_init(&e, NPK_RM_RNE);
    NPK_CHECK_EQ_U64(npk_f32_mul(0x3F7FFFFE, 0x00800001, &e), 0x00800000);
    NPK_CHECK_EQ_U64(e.flags, NPK_FLAG_NX);
    /* ... but rounding down it stays tiny: UF */
    npk_fenv_init(&e, NPK_RM_RTZ);
    NPK_CHECK_EQ_U64(npk_f32_mul(0x3F7FFFFE, 0x00800001, &e), 0x007FFFFF);
    NPK_CHECK_EQ_U64(e.flags, NPK_FLAG_UF | NPK_FLAG_NX);
    /* an exact subnormal result raises nothing */
    npk_fenv_init(&e, NPK_RM_RNE);
    NPK_CHECK_EQ_U64(npk_f32_mul(0x00800000, 0x3F000000, &e), 0x00400000);
    NPK_CHECK_EQ_U64(e.flags, 0);
    /* predicates */
    NPK_CHECK(npk_f32_is_nan(0xFFC00001) && !npk_f32_is_nan(0xFF800000));
    NPK_CHECK(npk_f32_is_snan(0x7F800001) && !npk_f32_is_snan(0x7FC00000));
    NPK_CHECK_EQ_U64(npk_f32_quiet(0x7F800001), 0x7FC00001);
    NPK_CHECK_EQ_U64(npk_f32_quiet(0x3F800000), 0x3F800000);
}

static void test_nan_propagation(void)
{
    npk_fenv e;
    npk_fenv_init(&e, NPK_RM_RNE);
    e.opts = NPK_OPT_NAN_PROPAGATE;
    /* the first NaN operand, quieted, sign and payload kept */
    NPK_CHECK_EQ_U64(npk_f32_add(0xFF812345, 0x7FC00001, &e), 0xFFC12345);
    NPK_CHECK_EQ_U64(e.flags, NPK_FLAG_NV);
    NPK_CHECK_EQ_U64(npk_f32_mul(0x3F800000, 0x7FC00007, &e), 0x7FC00007);
    NPK_CHECK_EQ_U64(npk_f32_fma(0x3F800000, 0x3F800000, 0xFFD00000, &e), 0xFFD00000);
    NPK_CHECK_EQ_U64(npk_f32_sqrt(0x7F800005, &e), 0x7FC00005);
    /* invalid operations on numbers still give the canonical NaN */
    NPK_CHECK_EQ_U64(npk_f32_sub(0x7F800000, 0x7F800000, &e), 0x7FC00000);
    /* a configured canonical NaN */
    npk_fenv_init(&e, NPK_RM_RNE);
    e.dnan = 0xFFC00000u;
    NPK_CHECK_EQ_U64(npk_f32_div(0, 0, &e), 0xFFC00000);
}

static void test_options(void)
{
    npk_fenv e;
    /* DAZ: a subnormal operand is a zero */
    npk_fenv_init(&e, NPK_RM_RNE);
    e.opts = NPK_OPT_DAZ;
    NPK_CHECK_EQ_U64(npk_f32_add(0x00000001, 0x80000000, &e), 0);
    NPK_CHECK_EQ_U64(npk_f32_mul(0x80400000, 0x3F800000, &e), 0x80000000);
    NPK_CHECK_EQ_U64(npk_f32_div(0x3F800000, 0x00000001, &e), 0x7F800000);
    NPK_CHECK_EQ_U64(e.flags, NPK_FLAG_DZ);
    NPK_CHECK(npk_f32_eq(0x00000001, 0x80000000, &e));
    /* FTZ: 2^-100 * 2^-30 would be a subnormal; flushed to +0 with UF|NX */
    npk_fenv_init(&e, NPK_RM_RNE);
    e.opts = NPK_OPT_FTZ;
    NPK_CHECK_EQ_U64(npk_f32_mul(0x0D800000, 0x30800000, &e), 0);
    NPK_CHECK_EQ_U64(e.flags, NPK_FLAG_UF | NPK_FLAG_NX);
    /* ... but a product that rounds up to 2^-126 with an unbounded exponent is kept */
    NPK_CHECK_EQ_U64(npk_f32_mul(0x3F7FFFFE, 0x00800001, &e), 0x00800000);
    /* (2^24 - 1) 2^-150 has 24 bits: tiny even though it would round to 2^-126 */
    NPK_CHECK_EQ_U64(npk_f32_mul(0x00FFFFFF, 0x3F000000, &e), 0);
    /* SATURATE: overflow gives the largest finite value in every mode */
    npk_fenv_init(&e, NPK_RM_RNE);
    e.opts = NPK_OPT_SATURATE;
    NPK_CHECK_EQ_U64(npk_f32_mul(0xFF7FFFFF, 0x40000000, &e), 0xFF7FFFFF);
    NPK_CHECK_EQ_U64(e.flags, NPK_FLAG_OF | NPK_FLAG_NX);
    /* zero_nonnormal */
    NPK_CHECK_EQ_U64(npk_f32_zero_nonnormal(0x7F800000), 0);
    NPK_CHECK_EQ_U64(npk_f32_zero_nonnormal(0xFFC00000), 0x80000000);
    NPK_CHECK_EQ_U64(npk_f32_zero_nonnormal(0x807FFFFF), 0x80000000);
    NPK_CHECK_EQ_U64(npk_f32_zero_nonnormal(0x3F800000), 0x3F800000);
}

/* opennpu tier-2 (§5.8-5.9) built from the pieces: sanitise, then FTZ + SATURATE. */
static uint32_t t2(int op, uint32_t a, uint32_t b, uint32_t c, npk_rm rm)
{
    npk_fenv e;
    npk_fenv_init(&e, rm);
    e.opts = NPK_OPT_FTZ | NPK_OPT_SATURATE;
    a = npk_f32_zero_nonnormal(a);
    b = npk_f32_zero_nonnormal(b);
    c = npk_f32_zero_nonnormal(c);
    switch (op) {
    case 0: return npk_f32_add(a, b, &e);
    case 1: return npk_f32_sub(a, b, &e);
    case 2: return npk_f32_mul(a, b, &e);
    case 3: return npk_f32_max(a, b, &e);
    case 4: return npk_f32_min(a, b, &e);
    default: return npk_f32_fma(a, b, c, &e);
    }
}

static void test_opennpu_tier2(void)
{
    NPK_CHECK_EQ_U64(t2(0, 0x4048F5C3 /* 3.14 */, 0x402D70A4 /* 2.71 */, 0, NPK_RM_RNE), 0x40BB3334);
    NPK_CHECK_EQ_U64(t2(0, 0x3DCCCCCD /* 0.1 */, 0x3E4CCCCD /* 0.2 */, 0, NPK_RM_RNE), 0x3E99999A);
    NPK_CHECK_EQ_U64(t2(0, 0x3F800000, 0xBF7FFF58 /* -0.99999 */, 0, NPK_RM_RNE), 0x37280000);
    NPK_CHECK_EQ_U64(t2(2, 0x42480000 /* 50 */, 0x3C23D70A /* 0.01 */, 0, NPK_RM_RNE), 0x3F000000);
    NPK_CHECK_EQ_U64(t2(0, 0, 0, 0, NPK_RM_RNE), 0);
    NPK_CHECK_EQ_U64(t2(2, 0x7F7FFFFF, 0x40000000, 0, NPK_RM_RNE), 0x7F7FFFFF);
    NPK_CHECK_EQ_U64(t2(2, 0x7F800000, 0x40000000, 0, NPK_RM_RNE), 0);
    NPK_CHECK_EQ_U64(t2(2, 0x1E3CE508 /* 1e-20 */, 0x1E3CE508, 0, NPK_RM_RNE), 0);
    NPK_CHECK_EQ_U64(t2(3, 0xBF800000, 0xC0000000, 0, NPK_RM_RNE), 0xBF800000);
    NPK_CHECK_EQ_U64(t2(4, 0xBF800000, 0xC0000000, 0, NPK_RM_RNE), 0xC0000000);
    NPK_CHECK_EQ_U64(t2(3, 0x80000000, 0, 0, NPK_RM_RNE), 0);
    NPK_CHECK_EQ_U64(t2(4, 0x80000000, 0, 0, NPK_RM_RNE), 0x80000000);
    NPK_CHECK_EQ_U64(t2(3, 0x7FC00000, 0xC0400000, 0, NPK_RM_RNE), 0);
    /* the fused example: (1+2^-23)(1-2^-23) - 1 = -2^-46 */
    NPK_CHECK_EQ_U64(t2(5, 0x3F800001, 0x3F7FFFFE, 0xBF800000, NPK_RM_RNE), 0xA8800000);
    /* x + (-x) is +0, or -0 rounding down */
    NPK_CHECK_EQ_U64(t2(0, 0x3F800000, 0xBF800000, 0, NPK_RM_RDN), 0x80000000);
}

int main(void)
{
    long n = 1000000;
    if (getenv("NPK_NUM_RANDOM"))
        n = atol(getenv("NPK_NUM_RANDOM"));
    test_minmax_compare(n);
    test_riscv_examples();
    test_nan_propagation();
    test_options();
    test_opennpu_tier2();
    return npk_test_done();
}
