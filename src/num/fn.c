/* Element-wise functions for pccx's CVO unit: binary64 evaluation with the C library (GELU in
 * double-double), then one round-to-nearest-even step to binary32 through the soft-float
 * conversion. */
#include "num/fn.h"

#include <math.h>
#include <string.h>

#include "num/f32.h"

#define F32_NAN UINT32_C(0x7FC00000)
#define F32_ONE UINT32_C(0x3F800000)
#define F32_INF UINT32_C(0x7F800000)
#define F32_SIGN UINT32_C(0x80000000)

static double f64_of(uint32_t t)
{
    uint64_t b = npk_f32_to_f64bits(t);
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static uint32_t f32_of(double d)
{
    npk_fenv e;
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    npk_fenv_init(&e, NPK_RM_RNE);
    return npk_f64bits_to_f32(b, &e);
}

static int is_nan(uint32_t t) { return (t & ~F32_SIGN) > F32_INF; }
static int is_inf(uint32_t t) { return (t & ~F32_SIGN) == F32_INF; }
static int is_zero(uint32_t t) { return (t & ~F32_SIGN) == 0; }

uint32_t npk_f32_exp(uint32_t t)
{
    if (is_nan(t))
        return F32_NAN;
    if (is_inf(t))
        return (t & F32_SIGN) ? 0 : F32_INF;
    return f32_of(exp(f64_of(t)));
}

uint32_t npk_f32_sin(uint32_t t)
{
    if (is_nan(t) || is_inf(t))
        return F32_NAN;
    if (is_zero(t))
        return t;
    return f32_of(sin(f64_of(t)));
}

uint32_t npk_f32_cos(uint32_t t)
{
    if (is_nan(t) || is_inf(t))
        return F32_NAN;
    return f32_of(cos(f64_of(t)));
}

uint32_t npk_f32_tanh(uint32_t t)
{
    if (is_nan(t))
        return F32_NAN;
    if (is_inf(t))
        return (t & F32_SIGN) | F32_ONE;
    if (is_zero(t))
        return t;
    return f32_of(tanh(f64_of(t)));
}

/* Double-double arithmetic (Knuth's two-sum, Dekker's product): exact with binary64
 * round-to-nearest and no contraction into fused multiply-adds, which the build ensures for this
 * file. A dd value is hi + lo with |lo| at most half an ulp of hi. */
typedef struct dd { double hi, lo; } dd;

static dd two_sum(double a, double b)
{
    double s = a + b, bb = s - a;
    dd r = {s, (a - (s - bb)) + (b - bb)};
    return r;
}

static dd fast_two_sum(double a, double b) /* |a| >= |b| or a == 0 */
{
    double s = a + b;
    dd r = {s, b - (s - a)};
    return r;
}

static void split(double a, double *hi, double *lo)
{
    double c = 134217729.0 * a; /* 2^27 + 1 */
    *hi = c - (c - a);
    *lo = a - *hi;
}

static dd two_prod(double a, double b)
{
    double p = a * b, ah, al, bh, bl;
    dd r;
    split(a, &ah, &al);
    split(b, &bh, &bl);
    r.hi = p;
    r.lo = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    return r;
}

static dd dd_mul(dd a, dd b)
{
    dd p = two_prod(a.hi, b.hi);
    return fast_two_sum(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi));
}

static dd dd_add(dd a, dd b)
{
    dd s = two_sum(a.hi, b.hi);
    return fast_two_sum(s.hi, s.lo + (a.lo + b.lo));
}

/* hi + lo to binary32 without a double-rounding error: hi is replaced by the binary64
 * neighbour on lo's side when hi is even (round to odd), and a binary64 rounded to odd rounds
 * to any format of at most 51 bits as the exact value would. */
static uint32_t f32_of_dd(dd v)
{
    uint64_t b;
    if (v.lo != 0 && isfinite(v.hi)) {
        memcpy(&b, &v.hi, sizeof b);
        if (!(b & 1)) {
            b += ((v.lo > 0) == (v.hi > 0)) ? 1 : (uint64_t)-1; /* away from / toward zero */
            memcpy(&v.hi, &b, sizeof b);
        }
    }
    return f32_of(v.hi);
}

/* sqrt(2/pi) and 0.044715 as double-doubles (relative error below 2^-109). */
static const dd GELU_C = {0x1.9884533d43651p-1, -0x1.cbc0d30ebfd15p-55};
static const dd GELU_K = {0x1.6e4e26d4801f7p-5, 0x1.441355475a31ap-59};

/* gelu(t) = (t/2)(1 + tanh u) = t / (1 + exp(-2u)), u = sqrt(2/pi)(t + 0.044715 t^3).
 * The plain binary64 evaluation of the stable form is already correctly rounded for every bf16
 * operand (test num_fn), but for other operands it loses the sign of gelu(t) - t/2 where t/2 is
 * a binary32 midpoint (odd subnormal t) and its error grows with |u| through exp. So u is
 * formed in double-double; for |u| < 1/2 the result is t/2 + (t/2) tanh u (no cancellation,
 * tanh u > -0.47), otherwise t / (1 + exp(-2u)) with the quotient's remainder kept; both end in
 * a double-double rounded once to binary32. */
uint32_t npk_f32_gelu_tanh(uint32_t t)
{
    double x, h, th, e;
    dd x3, u, v, d, p;
    if (is_nan(t))
        return F32_NAN;
    if (is_inf(t))
        return (t & F32_SIGN) ? F32_SIGN : F32_INF;
    if (is_zero(t))
        return t;
    x = f64_of(t);
    /* t >= 10: exp(-2u) < 2^-125, so gelu(t) = t(1 - delta) rounds to t. t <= -11:
     * |gelu(t)| <= |gelu(-11)| < 1.5e-48, far below half the smallest subnormal. */
    if (x >= 10.0)
        return t;
    if (x <= -11.0)
        return F32_SIGN;
    x3 = two_prod(x * x, x); /* x * x is exact: 48 significant bits */
    v.hi = x;
    v.lo = 0;
    u = dd_mul(GELU_C, dd_add(v, dd_mul(GELU_K, x3)));
    if (fabs(u.hi) < 0.5) {
        h = 0.5 * x; /* exact */
        th = tanh(u.hi);
        th += (1.0 - th * th) * u.lo;
        return f32_of_dd(two_sum(h, h * th));
    }
    e = exp(-2.0 * u.hi);
    e -= 2.0 * e * u.lo; /* exp(-2(hi + lo)) = exp(-2 hi)(1 - 2 lo + ...) */
    d = two_sum(1.0, e);
    v.hi = x / d.hi;
    p = two_prod(v.hi, d.hi);
    v.lo = (((x - p.hi) - p.lo) - v.hi * d.lo) / d.hi; /* x - p.hi is exact (Sterbenz) */
    return f32_of_dd(fast_two_sum(v.hi, v.lo));
}
