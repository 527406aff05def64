/* Fixed-point and integer rounding helpers. Right shifts of negative numbers are
 * implementation-defined in C, so shifts are done on the unsigned two's complement image. */
#include "num/fixed.h"

#include <string.h>

/* Two's complement uint64 -> int64 without implementation-defined conversion. */
static inline int64_t s64(uint64_t u)
{
    return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
}

int64_t npk_shr_round(int64_t v, unsigned sh, npk_qround mode)
{
    uint64_t u = (uint64_t)v, q, rem, half;
    int neg = v < 0, up;

    if (sh == 0)
        return v;
    if (sh > 63)
        sh = 63;
    q = u >> sh;
    if (neg)
        q |= ~(UINT64_MAX >> sh); /* floor: sign-fill */
    rem = u & ((UINT64_C(1) << sh) - 1);
    half = UINT64_C(1) << (sh - 1);
    switch (mode) {
    case NPK_QR_HALF_UP: up = rem >= half; break;
    case NPK_QR_HALF_EVEN: up = rem > half || (rem == half && (q & 1)); break;
    case NPK_QR_TRUNC: up = neg && rem != 0; break;
    case NPK_QR_HALF_AWAY: up = neg ? rem > half : rem >= half; break;
    case NPK_QR_CEIL: up = rem != 0; break;
    default: up = 0; break; /* floor */
    }
    return s64(q + (uint64_t)up);
}

int64_t npk_sat_int(int64_t v, unsigned bits)
{
    int64_t hi;
    if (bits >= 64)
        return v;
    if (bits < 1)
        bits = 1;
    hi = (INT64_C(1) << (bits - 1)) - 1;
    return v > hi ? hi : v < -hi - 1 ? -hi - 1 : v;
}

int64_t npk_wrap_int(int64_t v, unsigned bits)
{
    uint64_t w;
    if (bits >= 64)
        return v;
    if (bits < 1)
        bits = 1;
    w = (uint64_t)v & ((UINT64_C(1) << bits) - 1);
    return (int64_t)w - (int64_t)((w >> (bits - 1)) << bits);
}

uint64_t npk_sat_uint(int64_t v, unsigned bits)
{
    uint64_t hi;
    if (bits > 63)
        bits = 63;
    if (bits < 1)
        bits = 1;
    hi = (UINT64_C(1) << bits) - 1;
    return v < 0 ? 0 : (uint64_t)v > hi ? hi : (uint64_t)v;
}

int16_t npk_q88_mul(int16_t a, int16_t b, npk_qround mode)
{
    return (int16_t)npk_sat_int(npk_shr_round((int64_t)a * b, 8, mode), 16);
}
int16_t npk_q88_add(int16_t a, int16_t b) { return (int16_t)npk_sat_int((int64_t)a + b, 16); }
int16_t npk_q88_sub(int16_t a, int16_t b) { return (int16_t)npk_sat_int((int64_t)a - b, 16); }

int32_t npk_q1616_mul(int32_t a, int32_t b, npk_qround mode)
{
    return (int32_t)npk_sat_int(npk_shr_round((int64_t)a * b, 16, mode), 32);
}
int32_t npk_q1616_add(int32_t a, int32_t b) { return (int32_t)npk_sat_int((int64_t)a + b, 32); }
int32_t npk_q1616_sub(int32_t a, int32_t b) { return (int32_t)npk_sat_int((int64_t)a - b, 32); }

int64_t npk_fixed_from_double(double x, unsigned frac, unsigned width, npk_qround mode)
{
    uint64_t d, m;
    int be, ex, neg;
    int64_t lim;

    if (width < 1)
        width = 1;
    if (width > 64)
        width = 64;
    memcpy(&d, &x, sizeof d);
    neg = (int)(d >> 63);
    be = (int)((d >> 52) & 0x7FF);
    m = d & ((UINT64_C(1) << 52) - 1);
    if (be == 0x7FF && m)
        return 0; /* NaN */
    lim = width == 64 ? INT64_MAX : (INT64_C(1) << (width - 1)) - 1;
    if (be == 0x7FF)
        return neg ? -lim - 1 : lim;
    if (be)
        m |= UINT64_C(1) << 52;
    if (m == 0)
        return 0;
    /* |x| * 2^frac = m * 2^ex */
    ex = (be ? be : 1) - 1075 + (int)(frac > 1000 ? 1000 : frac);
    if (ex >= 0) {
        if (ex > 10) /* m * 2^ex >= 2^63: beyond every width */
            return neg ? -lim - 1 : lim;
        m <<= ex;
    } else {
        /* Shift the signed value so the rounding mode sees the true sign; a shift past 62
         * leaves only the sign (m < 2^53), which npk_shr_round handles at 62 + the sticky. */
        int64_t v = neg ? -(int64_t)m : (int64_t)m;
        if (-ex > 62) {
            /* |value| < 2^-9: rounds to 0 or to +-1 depending on the mode; a stand-in with the
             * same sign and sticky rounds the same way. */
            v = neg ? -1 : 1;
            return npk_sat_int(npk_shr_round(v, 62, mode), width);
        }
        return npk_sat_int(npk_shr_round(v, (unsigned)-ex, mode), width);
    }
    if (m > (uint64_t)lim)
        return neg ? -lim - 1 : lim; /* also exact -2^(width-1), without negating 2^63 */
    return neg ? -(int64_t)m : (int64_t)m;
}

int16_t npk_q88_from_double(double x) { return (int16_t)npk_fixed_from_double(x, 8, 16, NPK_QR_HALF_EVEN); }
int32_t npk_q1616_from_double(double x)
{
    return (int32_t)npk_fixed_from_double(x, 16, 32, NPK_QR_HALF_EVEN);
}
/* Dividing a small integer by a power of two is exact in every rounding mode. */
double npk_q88_to_double(int16_t v) { return (double)v / 256.0; }
double npk_q1616_to_double(int32_t v) { return (double)v / 65536.0; }
