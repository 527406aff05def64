/* Fixed point and integer rounding helpers, with values worked out by hand next to each
 * check, plus a brute-force comparison of npk_shr_round with exact rational rounding. */
#include <stdlib.h>

#include "num/num.h"
#include "test.h"

/* Reference for v / 2^sh by definition, on small values: q = floor, r = remainder. */
static int64_t ref_shr(int64_t v, unsigned sh, npk_qround mode)
{
    int64_t d = (int64_t)1 << sh, q = v / d, r = v % d;
    if (r < 0) { /* C division truncates: make q the floor */
        q -= 1;
        r += d;
    }
    switch (mode) {
    case NPK_QR_FLOOR: return q;
    case NPK_QR_CEIL: return q + (r != 0);
    case NPK_QR_TRUNC: return (v < 0 && r) ? q + 1 : q;
    case NPK_QR_HALF_UP: return 2 * r >= d ? q + 1 : q;
    case NPK_QR_HALF_AWAY: return 2 * r > d || (2 * r == d && v >= 0) ? q + 1 : q;
    default: return 2 * r > d || (2 * r == d && (q & 1)) ? q + 1 : q;
    }
}

int main(void)
{
    int64_t v;
    unsigned sh;
    int m;

    /* shr_round: 5/4 = 1.25, -5/4 = -1.25, 6/4 = 1.5, -6/4 = -1.5, 10/4 = 2.5, -10/4 = -2.5 */
    NPK_CHECK_EQ_U64(npk_shr_round(5, 2, NPK_QR_FLOOR), 1);
    NPK_CHECK_EQ_U64(npk_shr_round(-5, 2, NPK_QR_FLOOR), (uint64_t)-2);
    NPK_CHECK_EQ_U64(npk_shr_round(-5, 2, NPK_QR_TRUNC), (uint64_t)-1);
    NPK_CHECK_EQ_U64(npk_shr_round(-5, 2, NPK_QR_CEIL), (uint64_t)-1);
    NPK_CHECK_EQ_U64(npk_shr_round(6, 2, NPK_QR_HALF_UP), 2);
    NPK_CHECK_EQ_U64(npk_shr_round(-6, 2, NPK_QR_HALF_UP), (uint64_t)-1);   /* -1.5 -> -1 */
    NPK_CHECK_EQ_U64(npk_shr_round(-6, 2, NPK_QR_HALF_AWAY), (uint64_t)-2); /* -1.5 -> -2 */
    NPK_CHECK_EQ_U64(npk_shr_round(10, 2, NPK_QR_HALF_EVEN), 2);            /* 2.5 -> 2 */
    NPK_CHECK_EQ_U64(npk_shr_round(6, 2, NPK_QR_HALF_EVEN), 2);             /* 1.5 -> 2 */
    NPK_CHECK_EQ_U64(npk_shr_round(-10, 2, NPK_QR_HALF_EVEN), (uint64_t)-2);
    NPK_CHECK_EQ_U64(npk_shr_round(INT64_MIN, 63, NPK_QR_FLOOR), (uint64_t)-1);
    NPK_CHECK_EQ_U64(npk_shr_round(INT64_MAX, 63, NPK_QR_HALF_UP), 1);
    NPK_CHECK_EQ_U64(npk_shr_round(INT64_MAX, 1, NPK_QR_CEIL), (uint64_t)1 << 62);
    NPK_CHECK_EQ_U64(npk_shr_round(-7, 0, NPK_QR_HALF_UP), (uint64_t)-7);
    /* exhaustive over small values against the definition */
    for (m = 0; m < 6; m++)
        for (sh = 0; sh < 6; sh++)
            for (v = -300; v <= 300; v++)
                if (npk_shr_round(v, sh, (npk_qround)m) != ref_shr(v, sh, (npk_qround)m)) {
                    npk_test_fail++;
                    fprintf(stderr, "shr_round(%lld, %u, %d)\n", (long long)v, sh, m);
                } else {
                    npk_test_pass++;
                }

    /* sat_W and wrap_W (opennpu §1) */
    NPK_CHECK_EQ_U64(npk_sat_int(200, 8), 127);
    NPK_CHECK_EQ_U64(npk_sat_int(-200, 8), (uint64_t)-128);
    NPK_CHECK_EQ_U64(npk_sat_int((int64_t)1 << 40, 32), 0x7FFFFFFF);
    NPK_CHECK_EQ_U64(npk_wrap_int(200, 8), (uint64_t)-56); /* 200 - 256 */
    NPK_CHECK_EQ_U64(npk_wrap_int(-129, 8), 127);
    NPK_CHECK_EQ_U64(npk_wrap_int(0x12345678, 16), 0x5678);
    NPK_CHECK_EQ_U64(npk_wrap_int(INT64_MIN, 64), (uint64_t)INT64_MIN);
    NPK_CHECK_EQ_U64(npk_sat_uint(-5, 8), 0);
    NPK_CHECK_EQ_U64(npk_sat_uint(300, 8), 255);

    /* Q8.8 mul, tinytpu §A3 (half up): 0x0001 * 0x0080 = 1/256 * 1/2 -> +0.5 LSB -> 1 */
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_mul(0x0001, 0x0080, NPK_QR_HALF_UP), 0x0001);
    /* -1 LSB * 0.5 = -0.5 LSB -> 0 */
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_mul(-1, 0x0080, NPK_QR_HALF_UP), 0x0000);
    /* 0x7FFF * 2.0 = 255.99 * 2 -> saturates at 0x7FFF */
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_mul(0x7FFF, 0x0200, NPK_QR_HALF_UP), 0x7FFF);
    /* -3 LSB * 0.5 = -1.5 LSB -> -1; +3 LSB * 0.5 = 1.5 LSB -> 2 */
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_mul(-3, 0x0080, NPK_QR_HALF_UP), 0xFFFF);
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_mul(3, 0x0080, NPK_QR_HALF_UP), 0x0002);
    /* 1.5 * 2.25 = 3.375 = 0x0360 exactly */
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_mul(0x0180, 0x0240, NPK_QR_HALF_EVEN), 0x0360);
    /* floor of -0.5 LSB is -1; half-even of 1.5 LSB is 2, of 2.5 LSB (5 * 0.5) is 2 */
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_mul(-1, 0x0080, NPK_QR_FLOOR), 0xFFFF);
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_mul(5, 0x0080, NPK_QR_HALF_EVEN), 0x0002);
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_mul(-32768, -32768, NPK_QR_HALF_UP), 0x7FFF); /* 16384 sat */
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_mul(-32768, 0x7FFF, NPK_QR_HALF_UP), 0x8000);
    /* add/sub saturate: sub(0, 0x8000) = 0x7FFF */
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_sub(0, (int16_t)-32768), 0x7FFF);
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_add(0x7000, 0x7000), 0x7FFF);
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_add((int16_t)0x9000, (int16_t)0x9000), 0x8000);
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_add(0x0100, (int16_t)0xFF80), 0x0080); /* 1 - 0.5 */

    /* Q16.16: 1.5 * 1.5 = 2.25; rvnpu vmul spot values with s = 1.5 (floor): -1 -> -2 etc. */
    NPK_CHECK_EQ_U64((uint32_t)npk_q1616_mul(0x18000, 0x18000, NPK_QR_FLOOR), 0x24000);
    NPK_CHECK_EQ_U64(npk_sat_int(npk_shr_round((int64_t)-1 * 98304, 16, NPK_QR_FLOOR), 8), (uint64_t)-2);
    NPK_CHECK_EQ_U64(npk_sat_int(npk_shr_round((int64_t)-3 * 98304, 16, NPK_QR_FLOOR), 8), (uint64_t)-5);
    NPK_CHECK_EQ_U64(npk_sat_int(npk_shr_round((int64_t)100 * 98304, 16, NPK_QR_FLOOR), 8), 127);
    /* rvnpu qmul: low 32 bits of floor(p / 256): (-3)*5 -> -1; 127*127 -> 63;
     * 0x7FFFFFFF^2 -> 0xFF000000 */
    NPK_CHECK_EQ_U64((uint32_t)npk_wrap_int(npk_shr_round(-15, 8, NPK_QR_FLOOR), 32), 0xFFFFFFFF);
    NPK_CHECK_EQ_U64((uint32_t)npk_wrap_int(npk_shr_round(127 * 127, 8, NPK_QR_FLOOR), 32), 63);
    NPK_CHECK_EQ_U64((uint32_t)npk_wrap_int(npk_shr_round((int64_t)0x7FFFFFFF * 0x7FFFFFFF, 8,
                                                          NPK_QR_FLOOR), 32), 0xFF000000);
    NPK_CHECK_EQ_U64((uint32_t)npk_q1616_add(0x7FFFFFFF, 1), 0x7FFFFFFF);
    NPK_CHECK_EQ_U64((uint32_t)npk_q1616_sub(INT32_MIN, 1), 0x80000000);
    NPK_CHECK_EQ_U64((uint32_t)npk_q1616_mul(0x7FFFFFFF, 0x7FFFFFFF, NPK_QR_FLOOR), 0x7FFFFFFF);

    /* from/to double: 1.5 -> 0x0180; 0.00390625 = 1 LSB; ties to even: 0.5 LSB -> 0,
     * 1.5 LSB -> 2; saturation; NaN -> 0 */
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_from_double(1.5), 0x0180);
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_from_double(-1.5), 0xFE80);
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_from_double(0.5 / 256), 0);
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_from_double(1.5 / 256), 2);
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_from_double(-2.5 / 256), 0xFFFE);
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_from_double(1000.0), 0x7FFF);
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_from_double(-1000.0), 0x8000);
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_from_double(-128.0), 0x8000);
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_from_double(0.0 / 0.0), 0);
    NPK_CHECK_EQ_U64((uint16_t)npk_q88_from_double(1e-300), 0);
    NPK_CHECK_EQ_U64((uint32_t)npk_q1616_from_double(1.0), 0x00010000);
    NPK_CHECK_EQ_U64((uint32_t)npk_q1616_from_double(-0.75), 0xFFFF4000);
    NPK_CHECK_EQ_U64((uint32_t)npk_q1616_from_double(1e300), 0x7FFFFFFF);
    NPK_CHECK_EQ_U64((uint64_t)npk_fixed_from_double(-9.2233720368547758e18, 0, 64, NPK_QR_FLOOR),
                     (uint64_t)INT64_MIN);
    NPK_CHECK_EQ_U64((uint64_t)npk_fixed_from_double(-1e-300, 0, 32, NPK_QR_FLOOR), (uint64_t)-1);
    NPK_CHECK_EQ_U64((uint64_t)npk_fixed_from_double(1e-300, 0, 32, NPK_QR_CEIL), 1);
    NPK_CHECK_EQ_U64((uint64_t)npk_fixed_from_double(2.5, 0, 32, NPK_QR_HALF_AWAY), 3);
    NPK_CHECK(npk_q88_to_double(0x0180) == 1.5);
    NPK_CHECK(npk_q88_to_double((int16_t)0x8000) == -128.0);
    NPK_CHECK(npk_q1616_to_double((int32_t)0xFFFF4000) == -0.75);
    /* round trip of every Q8.8 value */
    for (v = -32768; v <= 32767; v++) {
        if (npk_q88_from_double(npk_q88_to_double((int16_t)v)) != v) {
            npk_test_fail++;
            fprintf(stderr, "q88 round trip %lld\n", (long long)v);
        } else {
            npk_test_pass++;
        }
    }
    /* The inline tinytpu forms (and the lane forms, on 16-bit patterns) equal the general
     * functions: every a against a stride of b (every 7th pattern plus all the edges:
     * 2^16 x ~9400 pairs). */
    {
        unsigned long bad = 0, n = 0;
        for (uint32_t ua = 0; ua < 65536; ua++)
            for (uint32_t ub = 0; ub < 65536; ub += (ub < 300 || ub > 65236) ? 1 : 7) {
                int16_t a = (int16_t)(ua < 32768 ? (int)ua : (int)ua - 65536);
                int16_t b = (int16_t)(ub < 32768 ? (int)ub : (int)ub - 65536);
                n++;
                bad += npk_q88_mul_half_up(a, b) != npk_q88_mul(a, b, NPK_QR_HALF_UP) ||
                       npk_q88_add_sat(a, b) != npk_q88_add(a, b) ||
                       npk_q88_sub_sat(a, b) != npk_q88_sub(a, b) ||
                       npk_q88_mul_half_up_lane((uint16_t)ua, (uint16_t)ub) !=
                           (uint16_t)npk_q88_mul(a, b, NPK_QR_HALF_UP) ||
                       npk_q88_add_sat_lane((uint16_t)ua, (uint16_t)ub) !=
                           (uint16_t)npk_q88_add(a, b) ||
                       npk_q88_sub_sat_lane((uint16_t)ua, (uint16_t)ub) !=
                           (uint16_t)npk_q88_sub(a, b);
            }
        NPK_REPORT(bad == 0, "inline Q8.8 forms differ on %lu of %lu pairs\n", bad, n);
    }
    return npk_test_done();
}
