/* The element-wise functions of num/fn.h (pccx CVO EXP, SIN, COS, GELU, ext TANH) against
 * MPFR: every bf16 operand bit for bit, random other binary32 operands within one ulp, special
 * values by hand, and the CVO write-back chain exact -> binary32 -> bf16 for every bf16 operand. */
#include <stdlib.h>
#include <time.h>

#include "num/num.h"
#include "oracle.h"
#include "test.h"

enum { F_EXP, F_SIN, F_COS, F_TANH, F_GELU, NFN };

static const struct fn_info {
    const char *name;
    uint32_t (*fn)(uint32_t);
    int lo_exp, hi_exp; /* random operands: |t| mostly in [2^lo_exp, 2^hi_exp) */
} fns[NFN] = {
    {"exp", npk_f32_exp, -30, 7},        {"sin", npk_f32_sin, -30, 40},
    {"cos", npk_f32_cos, -30, 40},       {"tanh", npk_f32_tanh, -30, 5},
    {"gelu_tanh", npk_f32_gelu_tanh, -30, 5},
};

#define CANON_NAN UINT32_C(0x7FC00000)

static int is_nan32(uint32_t x) { return (x & 0x7FFFFFFFu) > 0x7F800000u; }

/* The oracle's answer: RNE32 of the exact value, and (for the double-rounding statistics)
 * the exact value rounded straight to bf16. */
typedef struct ref { uint32_t f32; uint32_t bf16; int ok; } ref;

/* Round an MPFR value (exact, or a round-to-odd stand-in with at least p + 2
 * bits) to binary32 and bf16, to nearest-even; zeros and infinities keep their sign. */
static uint32_t round_to(const orc_fmt *f, mpfr_srcptr x)
{
    unsigned fl = 0;
    uint32_t sign = mpfr_signbit(x) ? UINT32_C(1) << (f->width - 1) : 0;
    if (mpfr_zero_p(x))
        return sign;
    if (mpfr_inf_p(x))
        return sign | f->inf_enc;
    return orc_mpfr_round(f, x, O_RNE, 0, 0, &fl);
}

/* exp, sin, cos, tanh: MPFR rounds the exact value toward zero at PREC bits; made round-to-odd
 * at PREC + 1 bits it rounds correctly to any format of at most PREC - 1 bits. */
#define PREC 200
static mpfr_t X, Y, Z;

static ref ref_lib(int f, uint32_t t)
{
    ref r;
    int tern = 0;
    mpfr_set_d(X, orc_f32_val(t), MPFR_RNDN); /* exact */
    switch (f) {
    case F_EXP: tern = mpfr_exp(Y, X, MPFR_RNDZ); break;
    case F_SIN: tern = mpfr_sin(Y, X, MPFR_RNDZ); break;
    case F_COS: tern = mpfr_cos(Y, X, MPFR_RNDZ); break;
    default: tern = mpfr_tanh(Y, X, MPFR_RNDZ); break;
    }
    if (mpfr_zero_p(Y) || mpfr_inf_p(Y)) {
        mpfr_set(Z, Y, MPFR_RNDN);
    } else {
        orc_mpfr_odd(Z, Y, tern);
    }
    r.f32 = round_to(&ORC_F32, Z);
    r.bf16 = round_to(&ORC_BF16, Z);
    r.ok = 1;
    return r;
}

/* GELU from its definition, (t/2)(1 + tanh(u)), u = sqrt(2/pi)(t + 0.044715 t^3), with
 * sqrt(2/pi) from mpfr_const_pi and 0.044715 read as an exact decimal. There is no closed form
 * to round, so the value is enclosed: every operation is rounded in the direction that keeps
 * a lower (upper) bound, and when both bounds round to the same binary32 and bf16 results those
 * are the correctly rounded ones. Otherwise the precision doubles (Ziv). gelu(t) for rational
 * t != 0 is transcendental, so it is never a rounding boundary and the loop ends.
 * form 1 encloses the algebraically identical t / (1 + exp(-2u)) as an independent check. */
#define NLEVEL 4
static struct gelu_level {
    mpfr_prec_t prec;
    mpfr_t c[2], k[2], a, u, s, g[2]; /* [0] lower, [1] upper bound */
} lv[NLEVEL];

static void gelu_init(void)
{
    for (int i = 0; i < NLEVEL; i++) {
        struct gelu_level *L = &lv[i];
        L->prec = (mpfr_prec_t)128 << i;
        mpfr_inits2(L->prec, L->c[0], L->c[1], L->k[0], L->k[1], L->a, L->u, L->s, L->g[0],
                    L->g[1], (mpfr_ptr)0);
        for (int up = 0; up < 2; up++) {
            mpfr_rnd_t rd = up ? MPFR_RNDU : MPFR_RNDD;
            mpfr_const_pi(L->s, up ? MPFR_RNDD : MPFR_RNDU);
            mpfr_ui_div(L->s, 2, L->s, rd);
            mpfr_sqrt(L->c[up], L->s, rd);
            mpfr_set_str(L->k[up], "0.044715", 10, rd);
        }
    }
}

static void gelu_free(void)
{
    for (int i = 0; i < NLEVEL; i++)
        mpfr_clears(lv[i].c[0], lv[i].c[1], lv[i].k[0], lv[i].k[1], lv[i].a, lv[i].u, lv[i].s,
                    lv[i].g[0], lv[i].g[1], (mpfr_ptr)0);
}

/* One bound (up = 0 lower, 1 upper) of |gelu(t)|, a = |t| already in L->a. |gelu| grows with
 * |u| for t > 0 and falls with it for t < 0; every step is monotone in its operands. */
static void gelu_bound(struct gelu_level *L, int form, int neg, int up)
{
    mpfr_rnd_t want = up ? MPFR_RNDU : MPFR_RNDD, other = up ? MPFR_RNDD : MPFR_RNDU;
    int uup = up ^ neg; /* which bound of |u| */
    mpfr_rnd_t ur = uup ? MPFR_RNDU : MPFR_RNDD;
    mpfr_mul(L->u, L->a, L->a, ur);
    mpfr_mul(L->u, L->u, L->a, ur);
    mpfr_mul(L->u, L->u, L->k[uup], ur);
    mpfr_add(L->u, L->u, L->a, ur);
    mpfr_mul(L->u, L->u, L->c[uup], ur);
    if (form == 0) { /* a/2 (1 + tanh|u|) or a/2 (1 - tanh|u|) */
        if (!neg) {
            mpfr_tanh(L->s, L->u, want);
            mpfr_add_ui(L->s, L->s, 1, want);
        } else {
            mpfr_tanh(L->s, L->u, other);
            mpfr_ui_sub(L->s, 1, L->s, want);
        }
        mpfr_mul(L->g[up], L->s, L->a, want);
        mpfr_div_2ui(L->g[up], L->g[up], 1, want);
    } else { /* a / (1 + exp(-2|u|)) or a / (1 + exp(2|u|)) */
        mpfr_mul_si(L->u, L->u, neg ? 2 : -2, MPFR_RNDN); /* exact */
        mpfr_exp(L->s, L->u, other);
        mpfr_add_ui(L->s, L->s, 1, other);
        mpfr_div(L->g[up], L->a, L->s, want);
    }
    /* The magnitude can be a zero of either sign (1 - 1 is -0 when rounding down). */
    mpfr_setsign(L->g[up], L->g[up], neg, MPFR_RNDN);
}

static unsigned long gelu_levels[NLEVEL];

static ref ref_gelu(uint32_t t, int form)
{
    ref r = {0, 0, 0};
    int neg = (t >> 31) != 0;
    for (int i = 0; i < NLEVEL; i++) {
        struct gelu_level *L = &lv[i];
        mpfr_set_d(L->a, orc_f32_val(t & 0x7FFFFFFFu), MPFR_RNDN); /* exact */
        gelu_bound(L, form, neg, 0);
        gelu_bound(L, form, neg, 1);
        r.f32 = round_to(&ORC_F32, L->g[0]);
        r.bf16 = round_to(&ORC_BF16, L->g[0]);
        if (r.f32 == round_to(&ORC_F32, L->g[1]) && r.bf16 == round_to(&ORC_BF16, L->g[1])) {
            r.ok = 1;
            if (form == 0)
                gelu_levels[i]++;
            return r;
        }
    }
    return r; /* not enclosed tightly enough: reported as a failure */
}

static ref oracle(int f, uint32_t t)
{
    return f == F_GELU ? ref_gelu(t, 0) : ref_lib(f, t);
}

/* The special-value rows of pccx §6.5 / §7.2, written out: the expected result for ±0 and ±inf
 * (NaN operands always give the canonical NaN). */
static uint32_t special(int f, uint32_t t)
{
    int neg = (t >> 31) != 0, inf = (t & 0x7FFFFFFFu) == 0x7F800000u;
    switch (f) {
    case F_EXP: return inf ? (neg ? 0 : 0x7F800000u) : 0x3F800000u;
    case F_SIN: return inf ? CANON_NAN : t;
    case F_COS: return inf ? CANON_NAN : 0x3F800000u;
    case F_TANH: return inf ? (neg ? 0xBF800000u : 0x3F800000u) : t;
    default: return inf ? (neg ? 0x80000000u : 0x7F800000u) : t;
    }
}

/* pccx RNE16 written from §3.2, independent of npk_f32_to_bf16. */
static uint32_t rne16_spec(uint32_t u)
{
    if (is_nan32(u))
        return 0x7FC0;
    return (uint32_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

/* Order binary32 patterns on the integers so that neighbours differ by one (-0 just below +0). */
static int64_t ord(uint32_t x)
{
    return (x >> 31) ? -(int64_t)(x & 0x7FFFFFFFu) - 1 : (int64_t)x;
}

/* Within one binary32 ulp: the same sign (so the sign of tiny results is kept) and adjacent
 * or equal encodings (±inf counts as the neighbour of ±max); NaN only matches NaN. */
static int within_1ulp(uint32_t got, uint32_t want)
{
    int64_t d;
    if (is_nan32(got) || is_nan32(want))
        return got == want;
    if ((got ^ want) >> 31)
        return 0;
    d = ord(got) - ord(want);
    return d >= -1 && d <= 1;
}

static uint32_t ref32[65536], bfd[65536], got32[65536];

/* Every bf16 operand: result bit-exact, and the CVO chain. Returns the mismatch count. */
static unsigned long compare_bf16(int f, const uint32_t *got, int report)
{
    npk_fenv e;
    unsigned long bad = 0;
    npk_fenv_init(&e, NPK_RM_RNE);
    for (uint32_t h = 0; h < 65536; h++) {
        uint32_t t = h << 16, want = ref32[h];
        uint32_t chain = npk_f32_to_bf16(got[h], &e), chain_want = rne16_spec(want);
        int ok = got[h] == want && chain == chain_want;
        if (!ok)
            bad++;
        if (report)
            NPK_REPORT(ok, "%s(0x%08" PRIx32 "): got 0x%08" PRIx32 " bf16 0x%04" PRIx32
                       ", want 0x%08" PRIx32 " bf16 0x%04" PRIx32 "\n",
                       fns[f].name, t, got[h], chain, want, chain_want);
    }
    return bad;
}

/* Per-function results for the summary line. */
static struct stats { unsigned long bad, dr; long n, exact, near; } st;

static void test_bf16_all(int f)
{
    unsigned long dr = 0, bad;
    for (uint32_t h = 0; h < 65536; h++) {
        uint32_t t = h << 16;
        if (is_nan32(t)) {
            ref32[h] = CANON_NAN;
            bfd[h] = 0x7FC0;
        } else if ((t & 0x7FFFFFFFu) == 0 || (t & 0x7FFFFFFFu) == 0x7F800000u) {
            ref32[h] = special(f, t);
            bfd[h] = rne16_spec(ref32[h]); /* exact values: no second rounding */
        } else {
            ref r = oracle(f, t);
            NPK_REPORT(r.ok, "%s(0x%08" PRIx32 "): oracle did not converge\n", fns[f].name, t);
            ref32[h] = r.f32;
            bfd[h] = r.bf16;
            if (f == F_GELU) { /* the stable form must enclose the same value */
                ref s = ref_gelu(t, 1);
                NPK_REPORT(s.ok && s.f32 == r.f32 && s.bf16 == r.bf16,
                           "gelu(0x%08" PRIx32 "): tanh form 0x%08" PRIx32
                           ", stable form 0x%08" PRIx32 " (ok %d)\n",
                           t, r.f32, s.f32, s.ok);
            }
        }
        got32[h] = fns[f].fn(t);
        dr += rne16_spec(ref32[h]) != bfd[h];
    }
    bad = compare_bf16(f, got32, 1);
    /* A planted one-ulp error at one operand, and a one-bf16-ulp error at another, must each be
     * seen exactly once: the comparison really compares. */
    {
        uint32_t keep1 = got32[0x3F80], keep2 = got32[0xC000];
        got32[0x3F80] = is_nan32(keep1) ? 0x7FC00001u : keep1 + 1; /* exp/sin/... of 1.0 */
        NPK_CHECK(compare_bf16(f, got32, 0) == bad + (keep1 == ref32[0x3F80]));
        got32[0x3F80] = keep1;
        got32[0xC000] = is_nan32(keep2) ? 0x7FC00001u : keep2 ^ 0x10000u; /* of -2.0 */
        NPK_CHECK(compare_bf16(f, got32, 0) == bad + (keep2 == ref32[0xC000]));
        got32[0xC000] = keep2;
    }
    st.bad = bad;
    st.dr = dr;
}

/* A binary32 operand that is not a bf16 value: a quarter over all finite encodings, the rest
 * with |t| in the function's interesting range, and a few subnormals. */
static uint32_t gen(orc_rng *r, int f)
{
    for (;;) {
        uint64_t v = orc_next(r);
        uint32_t x = (uint32_t)v, sel = (uint32_t)(v >> 32) & 15;
        if (sel < 4) {
            /* any encoding */
        } else if (sel == 4) {
            x &= 0x807FFFFFu; /* subnormal */
        } else {
            int span = fns[f].hi_exp - fns[f].lo_exp;
            int ex = fns[f].lo_exp + (int)((v >> 40) % (uint64_t)span);
            x = (x & 0x807FFFFFu) | (uint32_t)(ex + 127) << 23;
        }
        if ((x & 0xFFFFu) && (x & 0x7F800000u) != 0x7F800000u)
            return x;
    }
}

static void test_random(int f, long n)
{
    orc_rng r = {UINT64_C(0x5EED0000) + (uint64_t)f};
    long exact = 0, near = 0;
    for (long i = 0; i < n; i++) {
        uint32_t t = gen(&r, f), got = fns[f].fn(t);
        ref w = oracle(f, t);
        int ok = w.ok && within_1ulp(got, w.f32);
        exact += w.ok && got == w.f32;
        near += ok;
        NPK_REPORT(ok, "%s(0x%08" PRIx32 "): got 0x%08" PRIx32 ", want 0x%08" PRIx32
                   " within 1 ulp (oracle ok %d)\n",
                   fns[f].name, t, got, w.f32, w.ok);
    }
    st.n = n;
    st.exact = exact;
    st.near = near;
}

/* Hand-checked values (computed separately with mpmath at 400 bits). */
static void test_hand(void)
{
    static const struct { int f; uint32_t t, want; } v[] = {
        /* pccx §6.5 / §7.2 special-value table */
        {F_EXP, 0x00000000, 0x3F800000}, {F_EXP, 0x80000000, 0x3F800000},
        {F_EXP, 0x7F800000, 0x7F800000}, {F_EXP, 0xFF800000, 0x00000000},
        {F_SIN, 0x00000000, 0x00000000}, {F_SIN, 0x80000000, 0x80000000},
        {F_SIN, 0x7F800000, CANON_NAN},  {F_SIN, 0xFF800000, CANON_NAN},
        {F_COS, 0x00000000, 0x3F800000}, {F_COS, 0x80000000, 0x3F800000},
        {F_COS, 0x7F800000, CANON_NAN},  {F_COS, 0xFF800000, CANON_NAN},
        {F_TANH, 0x00000000, 0x00000000}, {F_TANH, 0x80000000, 0x80000000},
        {F_TANH, 0x7F800000, 0x3F800000}, {F_TANH, 0xFF800000, 0xBF800000},
        {F_GELU, 0x00000000, 0x00000000}, {F_GELU, 0x80000000, 0x80000000},
        {F_GELU, 0x7F800000, 0x7F800000}, {F_GELU, 0xFF800000, 0x80000000},
        /* exp: ordinary values, overflow at the last binade, gradual underflow */
        {F_EXP, 0x3F800000, 0x402DF854}, {F_EXP, 0xBF800000, 0x3EBC5AB2},
        {F_EXP, 0x41200000, 0x46AC14EE}, {F_EXP, 0x3A800000, 0x3F802004},
        {F_EXP, 0x42B00000, 0x7EF882B7}, {F_EXP, 0x42B17217, 0x7F7FFF84},
        {F_EXP, 0x42B17218, 0x7F800000}, {F_EXP, 0x7F7FFFFF, 0x7F800000},
        {F_EXP, 0xC2C80000, 0x0000001B}, {F_EXP, 0xC2CF0000, 0x00000001},
        {F_EXP, 0xC3000000, 0x00000000}, {F_EXP, 0xFF7FFFFF, 0x00000000},
        /* sin/cos: near pi and pi/2, and huge operands (exact argument reduction) */
        {F_SIN, 0x40490FDB, 0xB3BBBD2E}, {F_COS, 0x40490FDB, 0xBF800000},
        {F_SIN, 0x3FC90FDB, 0x3F800000}, {F_COS, 0x3FC90FDB, 0xB33BBD2E},
        {F_SIN, 0x3F800000, 0x3F576AA4}, {F_COS, 0x3F800000, 0x3F0A5140},
        {F_SIN, 0x7F7F0000, 0xBF7C9DB6}, {F_COS, 0x7F7F0000, 0x3E25F22F},
        {F_SIN, 0x4B800000, 0xBF47917C}, {F_SIN, 0x33800000, 0x33800000},
        {F_COS, 0x39800000, 0x3F800000},
        /* tanh */
        {F_TANH, 0x3F800000, 0x3F42F7D6}, {F_TANH, 0xBF000000, 0xBEEC9A9F},
        {F_TANH, 0x41200000, 0x3F800000}, {F_TANH, 0xC1200000, 0xBF800000},
        {F_TANH, 0x3D800000, 0x3D7FAACD},
        /* GELU: ordinary values, the negative tail down to -0, tiny operands */
        {F_GELU, 0x3F800000, 0x3F57585C}, {F_GELU, 0xBF800000, 0xBE229E91},
        {F_GELU, 0x40400000, 0x403FC468}, {F_GELU, 0xC0400000, 0xBB6E6150},
        {F_GELU, 0xC1200000, 0x8223E47F}, {F_GELU, 0xC1300000, 0x80000000},
        {F_GELU, 0x41A00000, 0x41A00000}, {F_GELU, 0xC1A00000, 0x80000000},
        {F_GELU, 0x7F7FFFFF, 0x7F7FFFFF}, {F_GELU, 0xFF7FFFFF, 0x80000000},
        {F_GELU, 0x3C000000, 0x3B80CC42}, {F_GELU, 0x00010000, 0x00008000},
        {F_GELU, 0x80010000, 0x80008000},
        /* t/2 is a subnormal midpoint; the exact value is just above it in magnitude for t > 0
         * and just below for t < 0 (gelu(t) - t/2 = (t/2) tanh(u) > 0) */
        {F_GELU, 0x00000001, 0x00000001}, {F_GELU, 0x80000001, 0x80000000},
        {F_GELU, 0x00000003, 0x00000002}, {F_GELU, 0x80000003, 0x80000001},
    };
    static const uint32_t nans[] = {0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFBFFFFF, 0x7FC12345};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint32_t got = fns[v[i].f].fn(v[i].t);
        NPK_REPORT(got == v[i].want, "%s(0x%08" PRIx32 ") = 0x%08" PRIx32 ", want 0x%08" PRIx32
                   "\n", fns[v[i].f].name, v[i].t, got, v[i].want);
        if (v[i].t & 0xFFFF) { /* also the oracle, for the operands the sweep does not reach */
            ref w = oracle(v[i].f, v[i].t);
            NPK_REPORT(w.ok && w.f32 == v[i].want, "oracle %s(0x%08" PRIx32 ") = 0x%08" PRIx32
                       "\n", fns[v[i].f].name, v[i].t, w.f32);
        }
    }
    for (int f = 0; f < NFN; f++)
        for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++)
            NPK_CHECK_EQ_U64(fns[f].fn(nans[i]), CANON_NAN);
    /* The comparison helpers themselves. */
    NPK_CHECK(within_1ulp(0x3F800000, 0x3F800000) && within_1ulp(0x3F800001, 0x3F800000));
    NPK_CHECK(within_1ulp(0x3F7FFFFF, 0x3F800000) && !within_1ulp(0x3F800002, 0x3F800000));
    NPK_CHECK(within_1ulp(0x7F800000, 0x7F7FFFFF) && !within_1ulp(0x80000000, 0x00000000));
    NPK_CHECK(within_1ulp(0x80000001, 0x80000000) && !within_1ulp(0x7FC00000, 0x7F800000));
    NPK_CHECK_EQ_U64(rne16_spec(0x3F808000), 0x3F80);
    NPK_CHECK_EQ_U64(rne16_spec(0x3F818000), 0x3F82);
    NPK_CHECK_EQ_U64(rne16_spec(0x7F7FFFFF), 0x7F80);
}

int main(int argc, char **argv)
{
    long n = 200000;
    if (getenv("NPK_NUM_RANDOM"))
        n = atol(getenv("NPK_NUM_RANDOM"));
    if (argc > 1)
        n = atol(argv[1]);
    mpfr_init2(X, 32);
    mpfr_init2(Y, PREC);
    mpfr_init2(Z, PREC + 1);
    gelu_init();
    test_hand();
    for (int f = 0; f < NFN; f++) {
        clock_t c0 = clock();
        test_bf16_all(f);
        test_random(f, n);
        printf("%-9s all 65536 bf16: %lu wrong (exact->f32->bf16 != exact->bf16: %lu) | %ld "
               "random non-bf16: %.4f%% exact, %ld at 1 ulp, %ld beyond | %.1fs\n",
               fns[f].name, st.bad, st.dr, st.n,
               st.n ? 100.0 * (double)st.exact / (double)st.n : 100.0, st.near - st.exact,
               st.n - st.near, (double)(clock() - c0) / CLOCKS_PER_SEC);
    }
    printf("gelu oracle (definition form) enclosed the value at:");
    for (int i = 0; i < NLEVEL; i++)
        printf(" %lu at %ld bits%s", gelu_levels[i], (long)lv[i].prec, i + 1 < NLEVEL ? "," : "\n");
    gelu_free();
    mpfr_clears(X, Y, Z, (mpfr_ptr)0);
    mpfr_free_cache();
    return npk_test_done();
}
