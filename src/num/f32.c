/* binary32 arithmetic in integer arithmetic: each operation forms its exact result (or the
 * result truncated with a sticky bit) as sign * sig * 2^exp and hands it to the shared rounding
 * engine in round.h. Special operands (NaN, infinity, zero) are handled first. */
#include "num/f32.h"

#include "num/round.h"

#define F32_SIGN 0x80000000u
#define F32_INF 0x7F800000u
#define F32_QBIT 0x00400000u

static inline int is_nan(uint32_t a) { return (a & 0x7FFFFFFFu) > F32_INF; }
static inline int is_snan(uint32_t a) { return is_nan(a) && !(a & F32_QBIT); }
static inline int is_inf(uint32_t a) { return (a & 0x7FFFFFFFu) == F32_INF; }
static inline int is_zero(uint32_t a) { return (a & 0x7FFFFFFFu) == 0; }

/* DAZ: subnormal operands read as zeros. */
static inline uint32_t daz(uint32_t a, const npk_fenv *e)
{
    if ((e->opts & NPK_OPT_DAZ) && !(a & F32_INF))
        return a & F32_SIGN;
    return a;
}

/* The NaN result of an operation with at least one NaN operand. Pass 0 for missing operands. */
static uint32_t nan_result(uint32_t a, uint32_t b, uint32_t c, npk_fenv *e)
{
    if (is_snan(a) || is_snan(b) || is_snan(c))
        e->flags |= NPK_FLAG_NV;
    if (!(e->opts & NPK_OPT_NAN_PROPAGATE))
        return e->dnan;
    return (is_nan(a) ? a : is_nan(b) ? b : c) | F32_QBIT;
}

static inline uint32_t invalid(npk_fenv *e)
{
    e->flags |= NPK_FLAG_NV;
    return e->dnan;
}

/* Significand with the hidden bit, and the exponent of its unit bit: value = sig * 2^exp. */
static inline uint32_t f32_sig(uint32_t a) { return (a & 0x7FFFFF) | ((a & F32_INF) ? 0x800000u : 0); }
static inline int f32_exp(uint32_t a)
{
    int be = (int)((a >> 23) & 0xFF);
    return (be ? be : 1) - 150;
}

/* Normalise a nonzero significand so bit 23 is set, adjusting the exponent. */
static inline void f32_norm(uint32_t *sig, int *exp)
{
    int n = npk__clz64(*sig) - 40;
    *sig <<= n;
    *exp -= n;
}

static inline uint32_t pack(unsigned sign, int exp, uint64_t sig, npk_fenv *e)
{
    return (uint32_t)npk__round_pack(&npk__fmt_f32, sign, exp, sig, 0, e);
}

static inline uint32_t zero_sum_sign(unsigned sa, unsigned sb, const npk_fenv *e)
{
    return (uint32_t)npk__zero_sum(&npk__fmt_f32, sa, sb, e);
}

static inline uint32_t add_terms(unsigned sa, uint64_t ma, int ea, unsigned sb, uint64_t mb,
                                 int eb, npk_fenv *e)
{
    return (uint32_t)npk__add_terms(&npk__fmt_f32, sa, ma, ea, sb, mb, eb, e);
}

static uint32_t addsub(uint32_t a, uint32_t b, uint32_t negb, npk_fenv *e)
{
    unsigned sa, sb;

    if (is_nan(a) || is_nan(b))
        return nan_result(a, b, 0, e);
    a = daz(a, e);
    b = daz(b, e) ^ negb;
    sa = a >> 31;
    sb = b >> 31;
    if (is_inf(a) || is_inf(b)) {
        if (is_inf(a) && is_inf(b) && sa != sb)
            return invalid(e);
        return is_inf(a) ? a : b;
    }
    if (is_zero(a) || is_zero(b)) {
        if (is_zero(a) && is_zero(b))
            return zero_sum_sign(sa, sb, e);
        /* x + 0 is x, but it still goes through rounding for FTZ. */
        if (is_zero(a))
            a = b;
        return pack(a >> 31, f32_exp(a), f32_sig(a), e);
    }
    return add_terms(sa, f32_sig(a), f32_exp(a), sb, f32_sig(b), f32_exp(b), e);
}

uint32_t npk_f32_add(uint32_t a, uint32_t b, npk_fenv *e) { return addsub(a, b, 0, e); }
uint32_t npk_f32_sub(uint32_t a, uint32_t b, npk_fenv *e) { return addsub(a, b, F32_SIGN, e); }

uint32_t npk_f32_mul(uint32_t a, uint32_t b, npk_fenv *e)
{
    unsigned s;

    if (is_nan(a) || is_nan(b))
        return nan_result(a, b, 0, e);
    a = daz(a, e);
    b = daz(b, e);
    s = (a ^ b) >> 31;
    if (is_inf(a) || is_inf(b)) {
        if (is_zero(a) || is_zero(b))
            return invalid(e);
        return (s << 31) | F32_INF;
    }
    if (is_zero(a) || is_zero(b))
        return s << 31;
    return pack(s, f32_exp(a) + f32_exp(b), (uint64_t)f32_sig(a) * f32_sig(b), e);
}

uint32_t npk_f32_div(uint32_t a, uint32_t b, npk_fenv *e)
{
    unsigned s;
    uint32_t ma, mb;
    int ea, eb;
    uint64_t n, q;

    if (is_nan(a) || is_nan(b))
        return nan_result(a, b, 0, e);
    a = daz(a, e);
    b = daz(b, e);
    s = (a ^ b) >> 31;
    if (is_inf(a)) {
        if (is_inf(b))
            return invalid(e);
        return (s << 31) | F32_INF;
    }
    if (is_inf(b))
        return s << 31;
    if (is_zero(b)) {
        if (is_zero(a))
            return invalid(e);
        e->flags |= NPK_FLAG_DZ;
        return (s << 31) | F32_INF;
    }
    if (is_zero(a))
        return s << 31;
    ma = f32_sig(a);
    mb = f32_sig(b);
    ea = f32_exp(a);
    eb = f32_exp(b);
    f32_norm(&ma, &ea);
    f32_norm(&mb, &eb);
    /* ma/mb is in (1/2, 2): a 40-bit shift leaves at least 39 quotient bits, and a nonzero
     * remainder becomes the sticky bit. */
    n = (uint64_t)ma << 40;
    q = n / mb;
    q |= (n % mb) != 0;
    return pack(s, ea - eb - 40, q, e);
}

/* floor(sqrt(n)), bit by bit. */
static uint64_t isqrt64(uint64_t n)
{
    uint64_t r = 0, bit = UINT64_C(1) << 62;

    while (bit > n)
        bit >>= 2;
    while (bit) {
        if (n >= r + bit) {
            n -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
    return r;
}

uint32_t npk_f32_sqrt(uint32_t a, npk_fenv *e)
{
    uint32_t m;
    int ex;
    uint64_t n, r;

    if (is_nan(a))
        return nan_result(a, 0, 0, e);
    a = daz(a, e);
    if (is_zero(a))
        return a;
    if (a >> 31)
        return invalid(e);
    if (is_inf(a))
        return a;
    m = f32_sig(a);
    ex = f32_exp(a);
    f32_norm(&m, &ex);
    if (ex & 1) {
        m <<= 1;
        ex--;
    }
    /* m < 2^25, so n < 2^63 and its root has at least 30 bits; exponents stay even. */
    n = (uint64_t)m << 38;
    r = isqrt64(n);
    r |= r * r != n;
    return pack(0, (ex - 38) / 2, r, e);
}

/* (-1)^negp * a*b + (-1)^negc * c, rounded once. */
static uint32_t muladd(uint32_t a, uint32_t b, uint32_t c, uint32_t negp, uint32_t negc,
                       npk_fenv *e)
{
    unsigned sp, sc;
    int pinf, pzero;

    if (is_nan(a) || is_nan(b) || is_nan(c)) {
        uint32_t r = nan_result(a, b, c, e);
        /* inf * 0 is invalid even when c is a quiet NaN (RISC-V). */
        if (!is_nan(a) && !is_nan(b) && ((is_inf(a) && is_zero(daz(b, e))) ||
                                         (is_inf(b) && is_zero(daz(a, e)))))
            e->flags |= NPK_FLAG_NV;
        return r;
    }
    a = daz(a, e);
    b = daz(b, e);
    c = daz(c, e) ^ negc;
    sp = ((a ^ b ^ negp) >> 31) & 1;
    sc = c >> 31;
    pinf = is_inf(a) || is_inf(b);
    pzero = is_zero(a) || is_zero(b);
    if (pinf && pzero)
        return invalid(e);
    if (pinf) {
        if (is_inf(c) && sc != sp)
            return invalid(e);
        return (sp << 31) | F32_INF;
    }
    if (is_inf(c))
        return c;
    if (pzero) {
        if (is_zero(c))
            return zero_sum_sign(sp, sc, e);
        return pack(sc, f32_exp(c), f32_sig(c), e);
    }
    if (is_zero(c))
        return pack(sp, f32_exp(a) + f32_exp(b), (uint64_t)f32_sig(a) * f32_sig(b), e);
    return add_terms(sp, (uint64_t)f32_sig(a) * f32_sig(b), f32_exp(a) + f32_exp(b), sc,
                     f32_sig(c), f32_exp(c), e);
}

uint32_t npk_f32_fma(uint32_t a, uint32_t b, uint32_t c, npk_fenv *e)
{
    return muladd(a, b, c, 0, 0, e);
}
uint32_t npk_f32_fms(uint32_t a, uint32_t b, uint32_t c, npk_fenv *e)
{
    return muladd(a, b, c, 0, F32_SIGN, e);
}
uint32_t npk_f32_fnmsub(uint32_t a, uint32_t b, uint32_t c, npk_fenv *e)
{
    return muladd(a, b, c, F32_SIGN, 0, e);
}
uint32_t npk_f32_fnmadd(uint32_t a, uint32_t b, uint32_t c, npk_fenv *e)
{
    return muladd(a, b, c, F32_SIGN, F32_SIGN, e);
}

/* Total order key for non-NaN values with -0 < +0. */
static inline uint32_t order_key(uint32_t a) { return (a & F32_SIGN) ? ~a : a | F32_SIGN; }

static uint32_t minmax(uint32_t a, uint32_t b, int want_max, int number, npk_fenv *e)
{
    if (is_nan(a) || is_nan(b)) {
        if (!number || (is_nan(a) && is_nan(b)))
            return nan_result(a, b, 0, e);
        if (is_snan(a) || is_snan(b))
            e->flags |= NPK_FLAG_NV;
        return is_nan(a) ? daz(b, e) : daz(a, e);
    }
    a = daz(a, e);
    b = daz(b, e);
    if (want_max)
        return order_key(a) >= order_key(b) ? a : b;
    return order_key(a) <= order_key(b) ? a : b;
}

uint32_t npk_f32_min(uint32_t a, uint32_t b, npk_fenv *e) { return minmax(a, b, 0, 1, e); }
uint32_t npk_f32_max(uint32_t a, uint32_t b, npk_fenv *e) { return minmax(a, b, 1, 1, e); }
uint32_t npk_f32_minimum(uint32_t a, uint32_t b, npk_fenv *e) { return minmax(a, b, 0, 0, e); }
uint32_t npk_f32_maximum(uint32_t a, uint32_t b, npk_fenv *e) { return minmax(a, b, 1, 0, e); }

/* -1, 0, 1 for ordered operands (zeros equal); 2 for unordered, raising NV as asked. */
static int compare(uint32_t a, uint32_t b, int signal, npk_fenv *e)
{
    uint32_t ka, kb;

    if (is_nan(a) || is_nan(b)) {
        if (signal || is_snan(a) || is_snan(b))
            e->flags |= NPK_FLAG_NV;
        return 2;
    }
    a = daz(a, e);
    b = daz(b, e);
    if (is_zero(a) && is_zero(b))
        return 0;
    ka = order_key(a);
    kb = order_key(b);
    return (ka > kb) - (ka < kb);
}

int npk_f32_eq(uint32_t a, uint32_t b, npk_fenv *e) { return compare(a, b, 0, e) == 0; }
int npk_f32_lt(uint32_t a, uint32_t b, npk_fenv *e) { return compare(a, b, 1, e) == -1; }
int npk_f32_le(uint32_t a, uint32_t b, npk_fenv *e)
{
    int c = compare(a, b, 1, e);
    return c == -1 || c == 0;
}

unsigned npk_f32_classify(uint32_t a)
{
    unsigned neg = a >> 31;
    uint32_t be = (a >> 23) & 0xFF, m = a & 0x7FFFFF;

    if (be == 0xFF) {
        if (m)
            return (m & F32_QBIT) ? NPK_CLASS_QNAN : NPK_CLASS_SNAN;
        return neg ? NPK_CLASS_NEG_INF : NPK_CLASS_POS_INF;
    }
    if (be)
        return neg ? NPK_CLASS_NEG_NORMAL : NPK_CLASS_POS_NORMAL;
    if (m)
        return neg ? NPK_CLASS_NEG_SUBNORMAL : NPK_CLASS_POS_SUBNORMAL;
    return neg ? NPK_CLASS_NEG_ZERO : NPK_CLASS_POS_ZERO;
}

int npk_f32_is_nan(uint32_t a) { return is_nan(a); }
int npk_f32_is_snan(uint32_t a) { return is_snan(a); }
uint32_t npk_f32_quiet(uint32_t a) { return is_nan(a) ? a | F32_QBIT : a; }
uint32_t npk_f32_zero_nonnormal(uint32_t a)
{
    uint32_t be = (a >> 23) & 0xFF;
    return (be == 0 || be == 0xFF) ? (a & F32_SIGN) : a;
}
