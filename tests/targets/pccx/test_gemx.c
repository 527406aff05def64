/* pccx GEMV and GEMM against an independent reference (spec §6.4, §3.3): random shapes, INT4
 * codes and scales, activations drawn from narrow and very wide exponent ranges (so both the
 * binary64 fast path and the exact-accumulator fallback are exercised), zeros of both signs,
 * infinities and NaNs, with and without w_scale / accm / findemax. The reference sums the exact
 * products in MPFR at 1,000 bits and rounds once to binary32 with the MPFR oracle of tests/num;
 * scale, accumulate and RNE16 follow §6.4 with host binary32 arithmetic and the §3.2 formula. */
#include <math.h>
#include <stdlib.h>

#include <mpfr.h>

#include "npukit/pccx.h"
#include "oracle.h"
#include "pccx_ref.h"
#include "test.h"

static orc_rng rng = {20261121};

static uint32_t rnd(uint32_t n)
{
    return (uint32_t)(orc_next(&rng) % n);
}

/* A BF16 activation: kind 0 = exponents within 2^-4..2^4, 1 = anything finite (spans far wider
 * than binary64 can hold exactly), 2 = mostly narrow with rare zeros/-0/inf/NaN. */
static uint16_t activation(int kind)
{
    uint16_t sign = (uint16_t)(rnd(2) << 15), man = (uint16_t)rnd(128);
    if (kind == 0)
        return sign | (uint16_t)((123 + rnd(9)) << 7) | man;
    if (kind == 1)
        return sign | (uint16_t)(rnd(255) << 7) | man;
    switch (rnd(40)) {
    case 0: return sign;                       /* ±0 */
    case 1: return sign | 0x7F80;              /* ±inf */
    case 2: return 0x7FC1;                     /* NaN with a payload */
    default: return sign | (uint16_t)((120 + rnd(15)) << 7) | man;
    }
}

/* ExactSum over k of widen(a[k]) * code[k] (§3.3) rounded to binary32, by MPFR. */
static uint32_t exact_dot(const uint16_t *a, const int8_t *w, uint32_t K)
{
    int nan = 0, pinf = 0, ninf = 0, allneg0 = 1;
    mpfr_t s, t;
    mpfr_inits2(1000, s, t, (mpfr_ptr)0); /* products span 2^-133 .. 2^131: exact */
    mpfr_set_zero(s, 1);
    for (uint32_t k = 0; k < K; k++) {
        float x = ref_bf(a[k]);
        if (isnan(x) || (isinf(x) && w[k] == 0)) {
            nan = 1;
            continue;
        }
        if (isinf(x)) {
            if ((x > 0) == (w[k] > 0))
                pinf = 1;
            else
                ninf = 1;
            continue;
        }
        /* the product's sign when zero: sign(x) XOR sign(w), a zero weight counting as +0 */
        int negzero = (x == 0 || w[k] == 0) && (signbit(x) != (w[k] < 0));
        if (!negzero)
            allneg0 = 0;
        mpfr_set_flt(t, x, MPFR_RNDN);
        mpfr_mul_si(t, t, w[k], MPFR_RNDN); /* exact */
        mpfr_add(s, s, t, MPFR_RNDN);       /* exact at 1,000 bits */
    }
    uint32_t r;
    if (nan || (pinf && ninf))
        r = 0x7FC00000u;
    else if (pinf || ninf)
        r = pinf ? 0x7F800000u : 0xFF800000u;
    else if (mpfr_zero_p(s))
        r = allneg0 ? 0x80000000u : 0;
    else {
        unsigned fl = 0;
        r = orc_mpfr_round(&ORC_F32, s, O_RNE, 0, 0, &fl);
    }
    mpfr_clears(s, t, (mpfr_ptr)0);
    return r;
}

static void one_case(pccx_t *c, int gemm, int kind, unsigned flags)
{
    uint32_t M = gemm ? 1 + rnd(5) : 1, K = 1 + rnd(gemm ? 80 : 300), N = 1 + rnd(40);
    uint16_t *a = malloc((size_t)M * K * 2), *old = malloc((size_t)M * N * 2);
    int8_t *w = malloc((size_t)N * K);
    uint8_t *packed = calloc((size_t)N * ((K + 1) / 2), 1);
    float *scale = malloc(N * sizeof *scale);
    for (uint32_t i = 0; i < M * K; i++)
        a[i] = activation(kind);
    for (uint32_t i = 0; i < M * N; i++)
        old[i] = activation(0);
    for (uint32_t n = 0; n < N; n++) {
        scale[n] = (float)ldexp(1.0 + rnd(1000) / 1000.0, (int)rnd(9) - 6) * (rnd(4) ? 1 : -1);
        for (uint32_t k = 0; k < K; k++) {
            w[n * K + k] = (int8_t)((int)rnd(16) - 8);
            packed[n * ((K + 1) / 2) + k / 2] |= (uint8_t)((w[n * K + k] & 15) << (4 * (k & 1)));
        }
    }
    /* A at word 0x100, Y at word 0x4000 (row-major, packed) */
    for (uint32_t i = 0; i < M * K; i++) {
        uint8_t b[16];
        uint32_t e = 8 * 0x100 + i;
        pccx_l2_read(c, e / 8, b, 1);
        b[2 * (e % 8)] = (uint8_t)a[i];
        b[2 * (e % 8) + 1] = (uint8_t)(a[i] >> 8);
        pccx_l2_write(c, e / 8, b, 1);
    }
    for (uint32_t i = 0; i < M * N; i++) {
        uint8_t b[16];
        uint32_t e = 8 * 0x4000 + i;
        pccx_l2_read(c, e / 8, b, 1);
        b[2 * (e % 8)] = (uint8_t)old[i];
        b[2 * (e % 8) + 1] = (uint8_t)(old[i] >> 8);
        pccx_l2_write(c, e / 8, b, 1);
    }
    pccx_weight_t h;
    NPK_CHECK(pccx_weight_int4(c, K, N, packed, (K + 1) / 2, scale, &h) == PCCX_OK);
    NPK_CHECK(pccx_weight_push(c, h) == PCCX_OK);
    /* input (X, Y, Z) = (M, K, 1) or, for GEMM, (1, K, M): X * Z = M either way */
    pccx_memset(c, 0, 1, (uint16_t)(gemm && (M & 1) ? M : 1), (uint16_t)K,
                (uint16_t)(gemm && (M & 1) ? 1 : M));
    pccx_memset(c, 0, 2, (uint16_t)M, (uint16_t)N, 1);
    int rc = gemm ? pccx_gemm(c, 0x4000, 0x100, flags, 2, 1, 0)
                  : pccx_gemv(c, 0x4000, 0x100, flags, 2, 1, 0);
    NPK_REPORT(rc == PCCX_OK, "%s M %u K %u N %u: %s\n", gemm ? "gemm" : "gemv", M, K, N,
               pccx_error_name(rc));
    uint32_t mx = 0;
    for (uint32_t m = 0; m < M; m++)
        for (uint32_t n = 0; n < N; n++) {
            float y;
            uint32_t s = exact_dot(a + m * K, w + n * K, K);
            memcpy(&y, &s, sizeof y);
            if (flags & PCCX_FLAG_W_SCALE)
                y = y * scale[n];
            if (flags & PCCX_FLAG_ACCM)
                y = ref_bf(old[m * N + n]) + y;
            uint16_t want = ref_rne16(ref_bits(y));
            uint8_t b[16];
            uint32_t e = 8 * 0x4000 + m * N + n;
            pccx_l2_read(c, e / 8, b, 1);
            uint16_t got = (uint16_t)(b[2 * (e % 8)] | b[2 * (e % 8) + 1] << 8);
            NPK_REPORT(got == want, "%s kind %d flags 0x%x M %u K %u N %u: y[%u][%u] = 0x%04x, "
                       "want 0x%04x\n", gemm ? "gemm" : "gemv", kind, flags, M, K, N, m, n, got,
                       want);
            /* E_MAX: IEEE maximum over the written values (NaN wins) */
            uint32_t v = (uint32_t)want << 16;
            float fv, fm;
            memcpy(&fv, &v, sizeof fv);
            memcpy(&fm, &mx, sizeof fm);
            if ((m | n) == 0 || isnan(fv) || (!isnan(fm) && (fv > fm || (fv == fm && !signbit(fv)))))
                mx = isnan(fv) ? 0x7FC00000u : v;
        }
    if (flags & PCCX_FLAG_FINDEMAX) {
        float e = pccx_emax_get(c);
        NPK_REPORT(ref_bits(e) == mx, "E_MAX 0x%08x, want 0x%08x\n", ref_bits(e), mx);
    }
    free(a);
    free(old);
    free(w);
    free(packed);
    free(scale);
}

int main(void)
{
    pccx_config_t cfg = {0};
    cfg.host_ddr_bytes = 1 << 16;
    pccx_t *c = NULL;
    if (pccx_init(&c, &cfg) != PCCX_OK)
        return 1;
    const unsigned flag_sets[4] = {0, PCCX_FLAG_W_SCALE, PCCX_FLAG_W_SCALE | PCCX_FLAG_ACCM,
                                   PCCX_FLAG_FINDEMAX | PCCX_FLAG_ACCM};
    for (int i = 0; i < 600; i++)
        one_case(c, i & 1, (i / 2) % 3, flag_sets[(i / 6) % 4]);
    pccx_stats_t st;
    pccx_stats(c, &st);
    /* both summation paths were taken */
    npk_stats ns;
    npk_stats_enable(pccx_machine(c), 1);
    one_case(c, 0, 1, 0);
    pccx_sync(c, 0);
    npk_stats_get(pccx_machine(c), &ns);
    uint64_t fallback = 0;
    for (size_t i = 0; i < ns.n_extra; i++)
        if (strcmp(ns.extra_name[i], "exact_sum_fallback_dots") == 0)
            fallback = ns.extra[i];
    NPK_CHECK(fallback > 0);
    printf("%llu instructions, %llu MACs\n", (unsigned long long)st.insns,
           (unsigned long long)st.macs);
    pccx_deinit(c);
    return npk_test_done();
}
