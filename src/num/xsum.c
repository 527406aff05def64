/* Exact accumulation of binary32 values and products into a 640-bit two's complement
 * fixed-point number (bit i weighs 2^(i-300)), rounded once by the shared engine. Products of
 * two binary32 values span 2^-298 .. 2^256, so 2^64 terms cannot overflow it. */
#include <string.h>

#include "num/xsum.h"
#include "num/f32.h"
#include "num/narrow.h"

#include "num/hostfp.h"
#include "num/round.h"

#define XSUM_BIAS 300

void npk_xsum_init(npk_xsum *s)
{
    int i;
    for (i = 0; i < NPK_XSUM_LIMBS; i++)
        s->limb[i] = 0;
    s->nan = s->invalid = s->pinf = s->ninf = 0;
    s->all_negzero = s->all_poszero = 1;
    s->count = 0;
}

/* Add or subtract m * 2^exp, m < 2^64, exp >= -XSUM_BIAS. */
static void add_fixed(npk_xsum *s, unsigned neg, uint64_t m, int exp)
{
    int pos = exp + XSUM_BIAS, k = pos / 64, off = pos % 64, i;
    uint64_t part[2];

    part[0] = m << off;
    part[1] = off ? m >> (64 - off) : 0;
    if (!neg) {
        uint64_t carry = 0;
        for (i = k; i < NPK_XSUM_LIMBS; i++) {
            uint64_t add = (i - k < 2 ? part[i - k] : 0), old = s->limb[i];
            uint64_t sum = old + add;
            uint64_t c1 = sum < old;
            s->limb[i] = sum + carry;
            carry = c1 | (s->limb[i] < sum);
            if (!carry && i - k >= 1)
                break;
        }
    } else {
        uint64_t borrow = 0;
        for (i = k; i < NPK_XSUM_LIMBS; i++) {
            uint64_t sub = (i - k < 2 ? part[i - k] : 0), old = s->limb[i];
            uint64_t diff = old - sub;
            uint64_t b1 = old < sub;
            s->limb[i] = diff - borrow;
            borrow = b1 | (diff < borrow);
            if (!borrow && i - k >= 1)
                break;
        }
    }
}

static void note_term(npk_xsum *s, int kind /* 0 +0, 1 -0, 2 other */)
{
    s->count++;
    if (kind != 1)
        s->all_negzero = 0;
    if (kind != 0)
        s->all_poszero = 0;
}

static int f32_nan(uint32_t x) { return (x & 0x7FFFFFFFu) > 0x7F800000u; }
static int f32_snan(uint32_t x) { return f32_nan(x) && !(x & 0x00400000u); }
static int f32_inf(uint32_t x) { return (x & 0x7FFFFFFFu) == 0x7F800000u; }
static uint64_t f32_sig(uint32_t x) { return (x & 0x7FFFFF) | ((x & 0x7F800000u) ? 0x800000u : 0); }
static int f32_exp(uint32_t x)
{
    int be = (int)((x >> 23) & 0xFF);
    return (be ? be : 1) - 150;
}

void npk_xsum_add_f32(npk_xsum *s, uint32_t x)
{
    unsigned neg = x >> 31;

    if (f32_nan(x)) {
        s->nan = 1;
        s->invalid |= f32_snan(x);
        note_term(s, 2);
    } else if (f32_inf(x)) {
        if (neg)
            s->ninf = 1;
        else
            s->pinf = 1;
        note_term(s, 2);
    } else if (!(x & 0x7FFFFFFFu)) {
        note_term(s, (int)neg);
    } else {
        add_fixed(s, neg, f32_sig(x), f32_exp(x));
        note_term(s, 2);
    }
}

void npk_xsum_add_f32_mul(npk_xsum *s, uint32_t a, uint32_t b)
{
    unsigned neg = (a ^ b) >> 31;
    int za = !(a & 0x7FFFFFFFu), zb = !(b & 0x7FFFFFFFu);

    if (f32_nan(a) || f32_nan(b)) {
        s->nan = 1;
        s->invalid |= f32_snan(a) | f32_snan(b);
        note_term(s, 2);
    } else if (f32_inf(a) || f32_inf(b)) {
        if (za || zb) {
            s->nan = 1;
            s->invalid = 1;
        } else if (neg) {
            s->ninf = 1;
        } else {
            s->pinf = 1;
        }
        note_term(s, 2);
    } else if (za || zb) {
        note_term(s, (int)neg);
    } else {
        add_fixed(s, neg, f32_sig(a) * f32_sig(b), f32_exp(a) + f32_exp(b));
        note_term(s, 2);
    }
}

uint32_t npk_xsum_to_f32(const npk_xsum *s, npk_fenv *e)
{
    uint64_t v[NPK_XSUM_LIMBS], sig;
    unsigned neg = (unsigned)(s->limb[NPK_XSUM_LIMBS - 1] >> 63);
    int i, t, top, lo, k, off, sticky = 0;

    if (s->nan || (s->pinf && s->ninf)) {
        if (s->invalid || (s->pinf && s->ninf))
            e->flags |= NPK_FLAG_NV;
        return e->dnan;
    }
    if (s->pinf)
        return 0x7F800000u;
    if (s->ninf)
        return 0xFF800000u;
    /* |sum| */
    {
        uint64_t carry = neg;
        for (i = 0; i < NPK_XSUM_LIMBS; i++) {
            uint64_t x = neg ? ~s->limb[i] : s->limb[i];
            v[i] = x + carry;
            carry = carry && v[i] == 0;
        }
    }
    for (t = NPK_XSUM_LIMBS - 1; t >= 0 && v[t] == 0; t--)
        ;
    if (t < 0) {
        if (s->all_negzero && s->count)
            return 0x80000000u;
        if (e->rm == NPK_RM_RDN && !s->all_poszero)
            return 0x80000000u;
        return 0;
    }
    top = 64 * t + 63 - npk__clz64(v[t]);
    lo = top - 63; /* bit position of the 64-bit window's bit 0 */
    if (lo <= 0)
        return (uint32_t)npk__round_pack(&npk__fmt_f32, neg, -XSUM_BIAS, v[0], 0, e);
    k = lo / 64;
    off = lo % 64;
    sig = v[k] >> off;
    if (off)
        sig |= v[k + 1] << (64 - off);
    sticky = off && (v[k] & ((UINT64_C(1) << off) - 1)) != 0;
    for (i = 0; i < k; i++)
        sticky |= v[i] != 0;
    return (uint32_t)npk__round_pack(&npk__fmt_f32, neg, lo - XSUM_BIAS, sig | (uint64_t)sticky, 0,
                                     e);
}

/* ---- exact BF16 x INT4 dot products (xsum.h) ------------------------------------------------ */

/* The 4-bit code of column k (its value is (code ^ 8) - 8). */
static unsigned i4_code(const uint8_t *w, uint64_t k)
{
    unsigned b = w[k / 2];
    return (k & 1) ? b >> 4 : b & 15;
}

/* Exponent of the last significand bit of a finite nonzero BF16 value. */
static int lsb_exp(uint16_t h)
{
    int be = (h >> 7) & 0xFF;
    return (be ? be : 1) - 127 - 7;
}

/* ceil(log2 K): the carries a sum of K terms can add above its largest term. */
static int log2_ceil(uint64_t K)
{
    int lg = 0;
    while (lg < 64 && ((uint64_t)1 << lg) < K)
        lg++;
    return lg;
}

/* The widest exponent span (last significand bits) of one window whose sums of up to K
 * products (12 significant bits each) stay exact in binary64. */
static int window_span(uint64_t K)
{
    return 53 - 12 - log2_ceil(K);
}

/* The row's extreme last-bit exponents over its nonzero values (*lo > *hi when there are none);
 * 0 with an infinity or NaN in it. */
static int row_exponents(const uint16_t *a, uint64_t K, int *lo, int *hi)
{
    *lo = 1000, *hi = -1000;
    for (uint64_t k = 0; k < K; k++) {
        uint16_t h = a[k];
        if ((h & 0x7F80) == 0x7F80)
            return 0; /* infinity or NaN: the accumulator's special-value rules */
        if (h & 0x7FFF) {
            int e = lsb_exp(h);
            *lo = e < *lo ? e : *lo;
            *hi = e > *hi ? e : *hi;
        }
    }
    return 1;
}

/* A BF16 value as binary64 (exact): through the host's float -> double conversion, which is
 * exact, when `host` (npk_hostfp_ready(): no DAZ flushing subnormal inputs, as some embedders'
 * fast-math start-up code sets) or the value is normal; else in software. */
static inline double bf16_to_double(uint16_t h, int host)
{
    if (!host && !(h & 0x7F80)) {
        uint64_t d = npk_f32_to_f64bits(npk_bf16_to_f32(h));
        double x;
        memcpy(&x, &d, sizeof x);
        return x;
    }
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return (double)f;
}

int npk_xdot_prepare(const uint16_t *a, uint64_t K, double *ad)
{
    int lo, hi;
    if (!row_exponents(a, K, &lo, &hi) || (hi >= lo && hi - lo > window_span(K)))
        return 0;
    int host = npk_hostfp_ready();
    for (uint64_t k = 0; k < K; k++)
        ad[k] = bf16_to_double(a[k], host);
    return 1;
}

int npk_xdot_prepare2(const uint16_t *a, uint64_t K, double *hi_part, double *lo_part)
{
    int lo, hi;
    /* the windows' sums are exact in any rounding mode, but combining them (TwoSum) needs the
     * host in round-to-nearest: else the accumulator */
    if (!npk_hostfp_ready() || !row_exponents(a, K, &lo, &hi) || hi < lo)
        return 0;
    /* The high window reaches as far down as it can: values with last bit at cut or above;
     * the rest must fit the low window. */
    int cut = hi - window_span(K), lo_top = -1000;
    for (uint64_t k = 0; k < K; k++)
        if ((a[k] & 0x7FFF) && lsb_exp(a[k]) < cut && lsb_exp(a[k]) > lo_top)
            lo_top = lsb_exp(a[k]);
    if (lo_top - lo > window_span(K))
        return 0;
    for (uint64_t k = 0; k < K; k++) {
        double x = bf16_to_double(a[k], 1);
        int high = !(a[k] & 0x7FFF) || lsb_exp(a[k]) >= cut;
        hi_part[k] = high ? x : 0.0;
        lo_part[k] = high ? 0.0 : x;
    }
    return 1;
}

/* The values of the two 4-bit codes of each byte as binary64 (low nibble first): a table
 * load is cheaper than extracting a nibble and converting it per product. Built by the
 * preprocessor so that the table is a constant. */
#define XDOT_PAIR(b) {(double)((((b) & 15) ^ 8) - 8), (double)((((b) >> 4) ^ 8) - 8)}
#define XDOT_PAIR4(b) XDOT_PAIR(b), XDOT_PAIR((b) + 1), XDOT_PAIR((b) + 2), XDOT_PAIR((b) + 3)
#define XDOT_PAIR16(b) XDOT_PAIR4(b), XDOT_PAIR4((b) + 4), XDOT_PAIR4((b) + 8), XDOT_PAIR4((b) + 12)
#define XDOT_PAIR64(b) \
    XDOT_PAIR16(b), XDOT_PAIR16((b) + 16), XDOT_PAIR16((b) + 32), XDOT_PAIR16((b) + 48)
static const double i4_pair[256][2] = {XDOT_PAIR64(0), XDOT_PAIR64(64), XDOT_PAIR64(128),
                                       XDOT_PAIR64(192)};

/* binary64 sum -> binary32 with RNE (exact sums only reach here, so this is the one rounding). */
static uint32_t xdot_round(double s)
{
    uint64_t bits;
    memcpy(&bits, &s, sizeof bits);
    npk_fenv e;
    npk_fenv_init(&e, NPK_RM_RNE);
    return npk_f64bits_to_f32(bits, &e);
}

/* On the fast path every partial sum of any subset of the products is exact, so any order and
 * grouping gives the exact sum: the kernels below use that for independent add chains (the
 * adds do not wait on each other) and for adding the two products of a byte first. Every chain
 * starts from -0 so that an exact zero is -0 only when every product is -0 (IEEE addition:
 * -0 + -0 = -0, -0 + +0 = +0, x + -x = +0, and +0 stays +0 when chains are added). */

static double xdot_sum(const double *ad, const uint8_t *w, uint64_t K)
{
    double s0 = -0.0, s1 = -0.0, s2 = -0.0, s3 = -0.0, s4 = -0.0, s5 = -0.0, s6 = -0.0,
           s7 = -0.0;
    uint64_t k = 0;
    for (; k + 8 <= K; k += 8) {
        const uint8_t *p = w + k / 2;
        const double *x = ad + k, *v0 = i4_pair[p[0]], *v1 = i4_pair[p[1]],
                     *v2 = i4_pair[p[2]], *v3 = i4_pair[p[3]];
        s0 += x[0] * v0[0];
        s1 += x[1] * v0[1];
        s2 += x[2] * v1[0];
        s3 += x[3] * v1[1];
        s4 += x[4] * v2[0];
        s5 += x[5] * v2[1];
        s6 += x[6] * v3[0];
        s7 += x[7] * v3[1];
    }
    for (; k < K; k++)
        s0 += ad[k] * i4_pair[w[k / 2]][k & 1];
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
}

uint32_t npk_xdot_bf16_i4_fast(const double *ad, const uint8_t *w, uint64_t K)
{
    return xdot_round(xdot_sum(ad, w, K));
}

/* The full code bytes of NPK_XDOT_ROWS rows: two chains per row (even and odd k), sixteen in
 * flight, and each activation pair loaded once for all rows. The [row][parity] layout lets
 * gcc keep a row's two chains in one 2 x binary64 register and multiply them by the row's
 * code pair (one table entry) in one step: 6.7 instead of 4.2 G MAC/s on the bench. */
static void xdot_rows_pairs(const double *ad, const uint8_t *w, size_t row_bytes, uint64_t J,
                            double t[NPK_XDOT_ROWS])
{
    double s[NPK_XDOT_ROWS][2];
    for (int r = 0; r < NPK_XDOT_ROWS; r++)
        s[r][0] = s[r][1] = -0.0;
    for (uint64_t j = 0; j < J; j++) {
        const double *x = ad + 2 * j;
        for (int r = 0; r < NPK_XDOT_ROWS; r++) {
            const double *v = i4_pair[w[(size_t)r * row_bytes + j]];
#if defined(__clang__)
            /* clang 14 pairs chains of different rows instead and spills them; one chain per
             * row taking the byte's two products at once runs 1.7x faster there. */
            s[r][0] += x[0] * v[0] + x[1] * v[1];
#else
            for (int h = 0; h < 2; h++)
                s[r][h] += x[h] * v[h];
#endif
        }
    }
    for (int r = 0; r < NPK_XDOT_ROWS; r++)
        t[r] = s[r][0] + s[r][1];
}

static void xdot_sum_rows(const double *ad, const uint8_t *w, size_t row_bytes, uint64_t K,
                          double t[NPK_XDOT_ROWS])
{
    /* The odd tail and the rounding stay in loops of their own: folded into one loop with the
     * sums above, gcc 12 stops pairing the chains (measured: 4.2 instead of 6.7 G MAC/s). */
    xdot_rows_pairs(ad, w, row_bytes, K / 2, t);
    if (K & 1) /* the last code is the low nibble of each row's last byte */
        for (int r = 0; r < NPK_XDOT_ROWS; r++)
            t[r] += ad[K - 1] * i4_pair[w[(size_t)r * row_bytes + K / 2]][0];
}

void npk_xdot_bf16_i4_fast_rows(const double *ad, const uint8_t *w, size_t row_bytes,
                                uint64_t K, uint32_t y[NPK_XDOT_ROWS])
{
    double t[NPK_XDOT_ROWS];
    xdot_sum_rows(ad, w, row_bytes, K, t);
    for (int r = 0; r < NPK_XDOT_ROWS; r++)
        y[r] = xdot_round(t[r]);
}

/* The sum of the two windows' exact binary64 sums h + l, rounded once to binary32 (RNE).
 * TwoSum gives s = RN(h + l) and the exact rest r (h + l = s + r); rounding to odd (s itself
 * when exact or odd, else its neighbour towards r) and then to binary32 with RNE is the
 * correct rounding of h + l, because binary64 has at least two more bits than binary32
 * (Boldo and Melquiond, "When double rounding is odd", 2005). An exact zero takes its sign
 * from the products (pccx §3.3: -0 only when every product is -0): the windows' placeholders
 * are +0 and do not keep it. Needs binary64 arithmetic in RNE without excess precision
 * (FLT_EVAL_METHOD 0, no contraction: C11 mode), as the one-window path. */
static uint32_t xdot_round2(double h, double l, const uint16_t *a, const uint8_t *w, uint64_t K)
{
    double s = h + l, bb = s - h, r = (h - (s - bb)) + (l - bb);
    if (s == 0) {
        for (uint64_t k = 0; k < K; k++) {
            unsigned c = i4_code(w, k), neg = (a[k] >> 15) ^ (c >> 3);
            if (((a[k] & 0x7FFF) && c) || !neg)
                return 0; /* a nonzero product, or a +0 one */
        }
        return 0x80000000u;
    }
    if (r != 0) {
        uint64_t bits;
        memcpy(&bits, &s, sizeof bits);
        if (!(bits & 1))
            bits += (r > 0) == (s > 0) ? 1 : (uint64_t)-1; /* away from or towards zero */
        memcpy(&s, &bits, sizeof s);
    }
    return xdot_round(s);
}

uint32_t npk_xdot_bf16_i4_fast2(const double *hi, const double *lo, const uint16_t *a,
                                const uint8_t *w, uint64_t K)
{
    return xdot_round2(xdot_sum(hi, w, K), xdot_sum(lo, w, K), a, w, K);
}

void npk_xdot_bf16_i4_fast2_rows(const double *hi, const double *lo, const uint16_t *a,
                                 const uint8_t *w, size_t row_bytes, uint64_t K,
                                 uint32_t y[NPK_XDOT_ROWS])
{
    double th[NPK_XDOT_ROWS], tl[NPK_XDOT_ROWS];
    xdot_sum_rows(hi, w, row_bytes, K, th);
    xdot_sum_rows(lo, w, row_bytes, K, tl);
    for (int r = 0; r < NPK_XDOT_ROWS; r++)
        y[r] = xdot_round2(th[r], tl[r], a, w + (size_t)r * row_bytes, K);
}

uint32_t npk_xdot_bf16_bf16(const uint16_t *a, const uint16_t *w, uint64_t K)
{
    /* Every product of two BF16 values has at most 16 significant bits and is exact in
     * binary64; when the products' last-bit exponents span at most 53 - 16 - ceil(log2 K),
     * every partial sum is exact too, and the sum is rounded once. */
    int lo = 1000, hi = -1000, special = 0;
    for (uint64_t k = 0; k < K; k++) {
        if ((a[k] & 0x7F80) == 0x7F80 || (w[k] & 0x7F80) == 0x7F80) {
            special = 1; /* infinity or NaN: the accumulator's rules */
            break;
        }
        if ((a[k] & 0x7FFF) && (w[k] & 0x7FFF)) {
            int e = lsb_exp(a[k]) + lsb_exp(w[k]);
            lo = e < lo ? e : lo;
            hi = e > hi ? e : hi;
        }
    }
    if (!special && (hi < lo || hi - lo <= 53 - 16 - log2_ceil(K))) {
        int host = npk_hostfp_ready();
        double s0 = -0.0, s1 = -0.0, s2 = -0.0, s3 = -0.0; /* -0: the zero-sign rule above */
        uint64_t k = 0;
        for (; k + 4 <= K; k += 4) {
            s0 += bf16_to_double(a[k], host) * bf16_to_double(w[k], host);
            s1 += bf16_to_double(a[k + 1], host) * bf16_to_double(w[k + 1], host);
            s2 += bf16_to_double(a[k + 2], host) * bf16_to_double(w[k + 2], host);
            s3 += bf16_to_double(a[k + 3], host) * bf16_to_double(w[k + 3], host);
        }
        for (; k < K; k++)
            s0 += bf16_to_double(a[k], host) * bf16_to_double(w[k], host);
        return xdot_round((s0 + s1) + (s2 + s3));
    }
    npk_xsum xs;
    npk_fenv e;
    npk_fenv_init(&e, NPK_RM_RNE);
    npk_xsum_init(&xs);
    for (uint64_t k = 0; k < K; k++)
        npk_xsum_add_f32_mul(&xs, npk_bf16_to_f32(a[k]), npk_bf16_to_f32(w[k]));
    return npk_xsum_to_f32(&xs, &e);
}

uint32_t npk_xdot_bf16_i4_exact(const uint16_t *a, const uint8_t *w, uint64_t K)
{
    npk_xsum xs;
    npk_fenv e;
    npk_fenv_init(&e, NPK_RM_RNE);
    npk_xsum_init(&xs);
    /* The binary32 patterns of the codes' values (0..7, -8..-1; 0 is +0): a load instead of
     * an integer conversion per product. */
    static const uint32_t code_f32[16] = {
        0x00000000u, 0x3F800000u, 0x40000000u, 0x40400000u, 0x40800000u, 0x40A00000u,
        0x40C00000u, 0x40E00000u, 0xC1000000u, 0xC0E00000u, 0xC0C00000u, 0xC0A00000u,
        0xC0800000u, 0xC0400000u, 0xC0000000u, 0xBF800000u};
    for (uint64_t k = 0; k < K; k++)
        npk_xsum_add_f32_mul(&xs, npk_bf16_to_f32(a[k]), code_f32[i4_code(w, k)]);
    return npk_xsum_to_f32(&xs, &e);
}
