/* Exact accumulation of binary32 values and products into a 640-bit two's complement
 * fixed-point number (bit i weighs 2^(i-300)), rounded once by the shared engine. Products of
 * two binary32 values span 2^-298 .. 2^256, so 2^64 terms cannot overflow it. */
#include "num/xsum.h"

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
