/* binary32 <-> integer conversions. f32 -> int8/16/32 and uint8/16/32 in every rounding mode
 * and all three overflow modes against a host-double oracle (C99 rounding functions are exact
 * and independent of src/num); int -> f32 against MPFR. 10^6 random inputs per mode. */
#include <fenv.h>
#include <math.h>
#include <stdlib.h>

#include "num/num.h"
#include "oracle.h"
#include "test.h"


#define REPORT NPK_REPORT

/* x rounded to an integer (double) by mode. */
static double round_int(double x, int rm)
{
    switch (rm) {
    case O_RTZ: return trunc(x);
    case O_RDN: return floor(x);
    case O_RUP: return ceil(x);
    case O_RMM: return round(x);
    default: return nearbyint(x); /* the default environment rounds to nearest even */
    }
}

/* Expected result (as int64) and flags for f32 x -> width-bit integer. */
static int64_t expect(uint32_t x, int width, int is_signed, int rm, int sat, unsigned *fl)
{
    double v = orc_f32_val(x), n, lo, hi;
    *fl = 0;
    lo = is_signed ? -ldexp(1, width - 1) : 0;
    hi = is_signed ? ldexp(1, width - 1) - 1 : ldexp(1, width) - 1;
    if (isnan(v)) {
        *fl = O_NV;
        return sat == 1 ? (int64_t)hi : 0; /* RISC-V: NaN -> max; wrap and NAN0: 0 */
    }
    if (isinf(v)) {
        *fl = O_NV;
        return sat == 0 ? 0 : v < 0 ? (int64_t)lo : (int64_t)hi;
    }
    n = round_int(v, rm);
    if (n >= lo && n <= hi) {
        if (n != v)
            *fl = O_NX;
        return (int64_t)n;
    }
    *fl = O_NV;
    if (sat)
        return n < lo ? (int64_t)lo : (int64_t)hi;
    {
        /* n modulo 2^width: fmod is exact */
        double m = fmod(n, ldexp(1, width));
        if (m < 0)
            m += ldexp(1, width);
        if (is_signed && m > hi)
            m -= ldexp(1, width);
        return (int64_t)m;
    }
}

static int64_t lib(uint32_t x, int width, int is_signed, int sat, npk_fenv *e)
{
    npk_cvt_mode m = (npk_cvt_mode)sat;
    if (is_signed) {
        switch (width) {
        case 8: return npk_f32_to_i8(x, m, e);
        case 16: return npk_f32_to_i16(x, m, e);
        case 32: return npk_f32_to_i32(x, m, e);
        default: return npk_f32_to_int(x, (unsigned)width, m, e);
        }
    }
    switch (width) {
    case 8: return npk_f32_to_u8(x, m, e);
    case 16: return npk_f32_to_u16(x, m, e);
    case 32: return npk_f32_to_u32(x, m, e);
    default: return npk_f32_to_uint(x, (unsigned)width, m, e);
    }
}

static void check(uint32_t x)
{
    static const int widths[] = {8, 16, 32, 5};
    int wi, sg, rm, sat;
    for (wi = 0; wi < 4; wi++)
        for (sg = 0; sg < 2; sg++)
            for (rm = 0; rm < 5; rm++)
                for (sat = 0; sat < 3; sat++) {
                    npk_fenv e;
                    unsigned wfl;
                    int64_t want = expect(x, widths[wi], sg, rm, sat, &wfl), got;
                    npk_fenv_init(&e, (npk_rm)rm);
                    got = lib(x, widths[wi], sg, sat, &e);
                    REPORT(got == want && e.flags == wfl,
                           "%s f32 %08X -> %c%d sat=%d: %lld flags %02X, want %lld flags %02X\n",
                           orc_rm_name[rm], x, sg ? 'i' : 'u', widths[wi], sat, (long long)got,
                           e.flags, (long long)want, wfl);
                }
}

/* Inputs around the integer range limits and around halves. */
static uint32_t gen(orc_rng *r)
{
    static const double centres[] = {0, 1, 127, 128, 255, 256, 32767, 32768, 65535, 65536,
                                     2147483647.0, 2147483648.0, 4294967295.0, 4294967296.0,
                                     15, 16, 31, 32, 1e10, 16777216.0};
    static const double fracs[] = {0, 0.5, 0.25, 0.75, 0.4999999, 0.5000001, 0.999, 0.001};
    uint64_t v = orc_next(r);
    double c, x;
    if (v & 1)
        return orc_f32_interesting(r);
    c = centres[(v >> 8) % 20] + (double)((int)((v >> 16) % 9) - 4);
    x = c + fracs[(v >> 24) % 8];
    if ((v >> 32) & 1)
        x = -x;
    if (((v >> 33) & 7) == 0)
        x = ldexp((double)((v >> 36) & 0xFFFFFF), (int)((v >> 60) % 16) - 24);
    return orc_f32_bits((float)x);
}

/* int -> f32 against MPFR. */
static void check_to_f32(int64_t v, int kind /* 0 i32, 1 u32, 2 i64, 3 u64 */)
{
    static mpfr_t m;
    static int init;
    uint64_t u = (uint64_t)v;
    int rm;
    if (!init) {
        mpfr_init2(m, 64);
        init = 1;
    }
    if (kind == 0)
        v = (int32_t)(uint32_t)u;
    else if (kind == 1)
        u = (uint32_t)u;
    if (kind == 0 || kind == 2)
        mpfr_set_sj(m, v, MPFR_RNDN);
    else
        mpfr_set_uj(m, u, MPFR_RNDN);
    for (rm = 0; rm < 5; rm++) {
        npk_fenv e;
        unsigned wfl = 0;
        uint32_t want = mpfr_zero_p(m) ? 0 : orc_mpfr_round(&ORC_F32, m, rm, 0, 0, &wfl), got;
        npk_fenv_init(&e, (npk_rm)rm);
        switch (kind) {
        case 0: got = npk_i32_to_f32((int32_t)v, &e); break;
        case 1: got = npk_u32_to_f32((uint32_t)u, &e); break;
        case 2: got = npk_i64_to_f32(v, &e); break;
        default: got = npk_u64_to_f32(u, &e); break;
        }
        REPORT(got == want && e.flags == wfl, "%s int(kind %d) %llx -> %08X/%02X want %08X/%02X\n",
               orc_rm_name[rm], kind, (unsigned long long)u, got, e.flags, want, wfl);
    }
}

int main(void)
{
    long n = 1000000, t;
    orc_rng r = {31337};
    int i;
    npk_fenv e;
    if (getenv("NPK_NUM_RANDOM"))
        n = atol(getenv("NPK_NUM_RANDOM"));
    fesetround(FE_TONEAREST);
    for (i = 0; i < orc_f32_nedges; i++) {
        check(orc_f32_edges[i]);
        check(orc_f32_edges[i] ^ 0x80000000u);
    }
    for (t = 0; t < n; t++) /* each input is checked in 120 configurations */
        check(gen(&r));
    printf("f32 -> int: %lu checks (%ld random inputs x 5 modes x 3 overflow modes x 8 types)\n",
           npk_test_pass + npk_test_fail, n);
    for (t = 0; t < n; t++) {
        uint64_t v = orc_next(&r);
        int sh = (int)((v >> 58) & 63);
        int64_t x = (int64_t)(v >> sh); /* spread over magnitudes */
        if ((v >> 57) & 1)
            x = -x;
        check_to_f32(x, (int)(t & 3));
    }
    /* opennpu §5.6.4 and §5.6.5 examples */
    npk_fenv_init(&e, NPK_RM_RNE);
    NPK_CHECK_EQ_U64(npk_i32_to_f32(16777217, &e), 0x4B800000);
    NPK_CHECK_EQ_U64(npk_i32_to_f32(16777219, &e), 0x4B800002);
    NPK_CHECK_EQ_U64(npk_i32_to_f32(2147483647, &e), 0x4F000000);
    NPK_CHECK_EQ_U64(npk_i32_to_f32(0, &e), 0);
    e.rm = NPK_RM_RTZ;
    NPK_CHECK_EQ_U64(npk_i32_to_f32(2147483647, &e), 0x4EFFFFFF);
    e.rm = NPK_RM_RNE;
    NPK_CHECK_EQ_U64(npk_f32_to_i8(0x501502F9 /* 1e10 */, NPK_CVT_WRAP, &e), 0);
    NPK_CHECK_EQ_U64((uint8_t)npk_f32_to_i8(0x43965A1D /* 300.7 */, NPK_CVT_WRAP, &e), 45);
    NPK_CHECK_EQ_U64(npk_f32_to_i32(0x3FF33333 /* 1.9 */, NPK_CVT_SAT_NAN0, &e), 2);
    NPK_CHECK_EQ_U64((uint32_t)npk_f32_to_i32(0xBFF33333, NPK_CVT_SAT_NAN0, &e), 0xFFFFFFFEu);
    NPK_CHECK_EQ_U64(npk_f32_to_i32(0x3F000000, NPK_CVT_SAT_NAN0, &e), 0);
    NPK_CHECK_EQ_U64(npk_f32_to_i32(0xBF000000, NPK_CVT_SAT_NAN0, &e), 0);
    NPK_CHECK_EQ_U64(npk_f32_to_i32(0x42C9999A /* 100.7 */, NPK_CVT_SAT_NAN0, &e), 101);
    NPK_CHECK_EQ_U64(npk_f32_to_i32(0x4F000000 /* 2^31 */, NPK_CVT_SAT_NAN0, &e), 2147483647);
    NPK_CHECK_EQ_U64(npk_f32_to_i32(0x7FC00000, NPK_CVT_SAT_NAN0, &e), 0);
    NPK_CHECK_EQ_U64(npk_f32_to_i32(0x7FC00000, NPK_CVT_SAT, &e), 0x7FFFFFFF);
    NPK_CHECK_EQ_U64(npk_f32_to_u32(0x7FC00000, NPK_CVT_SAT, &e), 0xFFFFFFFF);
    NPK_CHECK_EQ_U64(npk_f32_to_i8(0xFF800000, NPK_CVT_WRAP, &e), 0);
    NPK_CHECK_EQ_U64((uint8_t)npk_f32_to_i8(0xFF800000, NPK_CVT_SAT_NAN0, &e), 0x80);
    e.rm = NPK_RM_RUP; /* ceil of the smallest subnormal is 1 */
    NPK_CHECK_EQ_U64(npk_f32_to_i32(0x00000001, NPK_CVT_SAT_NAN0, &e), 1);
    e.rm = NPK_RM_RTZ;
    e.flags = 0;
    NPK_CHECK_EQ_U64(npk_f32_to_u32(0xBE99999A /* -0.3 */, NPK_CVT_SAT, &e), 0);
    NPK_CHECK_EQ_U64(e.flags, NPK_FLAG_NX); /* RISC-V: rounds to 0, not below the range */
    mpfr_free_cache();
    return npk_test_done();
}
