/* binary64 add, sub and mul through the shared rounding engine (round.h). The 106-bit product
 * is formed from 32-bit halves, since C11 has no 128-bit integer type. */
#include "num/f64.h"

#include "num/round.h"

#define F64_SIGN UINT64_C(0x8000000000000000)
#define F64_INF UINT64_C(0x7FF0000000000000)
#define F64_QBIT UINT64_C(0x0008000000000000)
#define F64_FRAC UINT64_C(0x000FFFFFFFFFFFFF)

static inline int is_nan(uint64_t a) { return (a & ~F64_SIGN) > F64_INF; }
static inline int is_snan(uint64_t a) { return is_nan(a) && !(a & F64_QBIT); }
static inline int is_inf(uint64_t a) { return (a & ~F64_SIGN) == F64_INF; }
static inline int is_zero(uint64_t a) { return (a & ~F64_SIGN) == 0; }
static inline uint64_t sig(uint64_t a) { return (a & F64_FRAC) | ((a & F64_INF) ? F64_FRAC + 1 : 0); }
static inline int expo(uint64_t a)
{
    int be = (int)((a >> 52) & 0x7FF);
    return (be ? be : 1) - 1075;
}

static inline uint64_t daz(uint64_t a, const npk_fenv *e)
{
    return ((e->opts & NPK_OPT_DAZ) && !(a & F64_INF)) ? a & F64_SIGN : a;
}

static uint64_t nan_result(uint64_t a, uint64_t b, npk_fenv *e)
{
    if (is_snan(a) || is_snan(b))
        e->flags |= NPK_FLAG_NV;
    if (!(e->opts & NPK_OPT_NAN_PROPAGATE))
        return NPK_F64_DEFAULT_NAN;
    return (is_nan(a) ? a : b) | F64_QBIT;
}

static uint64_t invalid(npk_fenv *e)
{
    e->flags |= NPK_FLAG_NV;
    return NPK_F64_DEFAULT_NAN;
}

static uint64_t addsub(uint64_t a, uint64_t b, uint64_t negb, npk_fenv *e)
{
    unsigned sa, sb;

    if (is_nan(a) || is_nan(b))
        return nan_result(a, b, e);
    a = daz(a, e);
    b = daz(b, e) ^ negb;
    sa = (unsigned)(a >> 63);
    sb = (unsigned)(b >> 63);
    if (is_inf(a) || is_inf(b)) {
        if (is_inf(a) && is_inf(b) && sa != sb)
            return invalid(e);
        return is_inf(a) ? a : b;
    }
    if (is_zero(a) && is_zero(b))
        return npk__zero_sum(&npk__fmt_f64, sa, sb, e);
    if (is_zero(a) || is_zero(b)) {
        if (is_zero(a))
            a = b;
        return npk__round_pack(&npk__fmt_f64, (unsigned)(a >> 63), expo(a), sig(a), 0, e);
    }
    return npk__add_terms(&npk__fmt_f64, sa, sig(a), expo(a), sb, sig(b), expo(b), e);
}

uint64_t npk_f64_add(uint64_t a, uint64_t b, npk_fenv *e) { return addsub(a, b, 0, e); }
uint64_t npk_f64_sub(uint64_t a, uint64_t b, npk_fenv *e) { return addsub(a, b, F64_SIGN, e); }

uint64_t npk_f64_mul(uint64_t a, uint64_t b, npk_fenv *e)
{
    unsigned s;
    uint64_t x, y, p00, p01, p10, p11, mid, hi, lo, top;
    int n, ex;

    if (is_nan(a) || is_nan(b))
        return nan_result(a, b, e);
    a = daz(a, e);
    b = daz(b, e);
    s = (unsigned)((a ^ b) >> 63);
    if (is_inf(a) || is_inf(b)) {
        if (is_zero(a) || is_zero(b))
            return invalid(e);
        return ((uint64_t)s << 63) | F64_INF;
    }
    if (is_zero(a) || is_zero(b))
        return (uint64_t)s << 63;
    x = sig(a);
    y = sig(b);
    ex = expo(a) + expo(b);
    /* short significands (widened binary32 values, for example): one 64-bit product */
    if (!((x | y) & ((UINT64_C(1) << 29) - 1)))
        return npk__round_pack(&npk__fmt_f64, s, ex + 58, (x >> 29) * (y >> 29), 0, e);
    p00 = (x & 0xFFFFFFFFu) * (y & 0xFFFFFFFFu);
    p01 = (x & 0xFFFFFFFFu) * (y >> 32);
    p10 = (x >> 32) * (y & 0xFFFFFFFFu);
    p11 = (x >> 32) * (y >> 32);
    mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    lo = (mid << 32) | (p00 & 0xFFFFFFFFu);
    hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    if (hi == 0)
        return npk__round_pack(&npk__fmt_f64, s, ex, lo, 0, e);
    /* keep the top 64 bits of the product, the rest as a sticky bit */
    n = npk__clz64(hi);
    top = n ? (hi << n) | (lo >> (64 - n)) : hi;
    top |= (lo << n) != 0;
    return npk__round_pack(&npk__fmt_f64, s, ex + 64 - n, top, 0, e);
}
