/* pccx semantics through the host API (spec §6, §7, §9, §10, §12): GEMV/GEMM with INT4 weights
 * and scales (the §6.4 example by hand, ExactSum cancellation on both summation paths, accm,
 * findemax, GEMM rows), MEMCPY routes and the host window, CVO functions and special values,
 * the ext profile, precise faults and the halted state, the register view and hw-compat.
 * Expected values are worked out by hand in the comments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/npukit.h"
#include "npukit/pccx.h"
#include "pccx_ref.h"
#include "test.h"

static pccx_t *ctx_new(int ext, int hw)
{
    pccx_config_t cfg = {0};
    cfg.ext = ext;
    cfg.hw_compat = hw;
    cfg.host_ddr_bytes = 1 << 20;
    pccx_t *c = NULL;
    int rc = pccx_init(&c, &cfg);
    NPK_CHECK(rc == PCCX_OK && c);
    return c;
}

/* INT4 rows packed per §5.4 (K <= 64). */
static pccx_weight_t tensor(pccx_t *c, uint32_t k, uint32_t n, const int *codes,
                            const float *scale)
{
    uint8_t packed[64 * 32] = {0};
    size_t rb = (k + 1) / 2;
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t j = 0; j < k; j++)
            packed[r * rb + j / 2] |= (uint8_t)((codes[r * k + j] & 15) << (4 * (j & 1)));
    pccx_weight_t h = 0;
    NPK_CHECK(pccx_weight_int4(c, k, n, packed, rb, scale, &h) == PCCX_OK);
    return h;
}

static const int W42[8] = {3, -2, 4, 1, 7, 7, -8, 0};
static const float S42[2] = {0.5f, 2.0f};

static void test_gemv_example(void)
{
    pccx_t *c = ctx_new(0, 0);
    /* §6.4: activations (2.0, -1.0, 0.25, 4.0); rows (3,-2,4,1) and (7,7,-8,0):
     * 6 + 2 + 1 + 4 = 13 and 14 - 7 - 2 + 0 = 5; scales 0.5, 2.0 -> 6.5 (0x40D0), 10 (0x4120). */
    const uint16_t a[4] = {0x4000, 0xBF80, 0x3E80, 0x4080};
    ref_l2_write(c, 8 * 0x40, a, 4);
    pccx_weight_t h = tensor(c, 4, 2, W42, S42);
    NPK_CHECK(pccx_memset(c, PCCX_BANK_FMAP, 1, 1, 4, 1) == PCCX_OK);
    NPK_CHECK(pccx_memset(c, PCCX_BANK_FMAP, 2, 1, 2, 1) == PCCX_OK);
    NPK_CHECK(pccx_weight_push(c, h) == PCCX_OK);
    NPK_CHECK(pccx_weight_push(c, h) == PCCX_OK);
    NPK_CHECK(pccx_weight_pending(c) == 2);
    NPK_CHECK(pccx_gemv(c, 0x80, 0x40, PCCX_FLAG_W_SCALE, 2, 1, 0) == PCCX_OK);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x400), 0x40D0);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x401), 0x4120);
    NPK_CHECK(pccx_weight_pending(c) == 1);
    /* without w_scale, accumulating onto 6.5 and 10: 6.5 + 13 = 19.5 (0x419C), 10 + 5 = 15
     * (0x4170); findemax sets E_MAX to 19.5 */
    NPK_CHECK(pccx_gemv(c, 0x80, 0x40, PCCX_FLAG_ACCM | PCCX_FLAG_FINDEMAX, 2, 1, 0) == PCCX_OK);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x400), 0x419C);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x401), 0x4170);
    NPK_CHECK(pccx_emax_get(c) == 19.5f);
    /* the queue is now empty: E_WEIGHT_EMPTY, precise (nothing written), then halted */
    NPK_CHECK(pccx_gemv(c, 0x80, 0x40, 0, 2, 1, 0) == PCCX_E_WEIGHT_EMPTY);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x400), 0x419C);
    pccx_error_t e;
    pccx_last_error(c, &e);
    NPK_CHECK(e.code == PCCX_E_WEIGHT_EMPTY && e.index == 4 && e.word == 0x0004000100008100ull);
    NPK_CHECK_CONTAINS(e.message, "weight queue is empty");
    NPK_CHECK(pccx_reg_read(c, 0x08) & PCCX_STATUS_ERROR);
    NPK_CHECK(pccx_memset(c, 0, 9, 1, 1, 1) == PCCX_E_HALTED);
    NPK_CHECK(pccx_clear_error(c) == PCCX_OK);
    NPK_CHECK(!(pccx_reg_read(c, 0x08) & PCCX_STATUS_ERROR));
    /* wrong tensor shape: nothing dequeued */
    pccx_weight_t h2 = tensor(c, 4, 2, W42, S42);
    NPK_CHECK(pccx_memset(c, PCCX_BANK_FMAP, 3, 1, 3, 1) == PCCX_OK); /* N = 3 */
    NPK_CHECK(pccx_weight_push(c, h2) == PCCX_OK);
    NPK_CHECK(pccx_gemv(c, 0x80, 0x40, 0, 3, 1, 0) == PCCX_E_WEIGHT_SHAPE);
    NPK_CHECK(pccx_weight_pending(c) == 1);
    NPK_CHECK(pccx_weight_free(c, h2) == PCCX_E_ARG); /* still queued */
    pccx_clear_error(c);
    /* shape errors: output X*Z != M, GEMV with M = 2 */
    NPK_CHECK(pccx_memset(c, PCCX_BANK_FMAP, 4, 2, 4, 1) == PCCX_OK);
    NPK_CHECK(pccx_gemv(c, 0x80, 0x40, 0, 2, 4, 0) == PCCX_E_SHAPE);
    pccx_clear_error(c);
    /* L2 range: input at the last word with K = 16 leaves L2 */
    NPK_CHECK(pccx_memset(c, PCCX_BANK_FMAP, 5, 1, 16, 1) == PCCX_OK);
    NPK_CHECK(pccx_gemv(c, 0x80, PCCX_L2_WORDS - 1, 0, 2, 5, 0) == PCCX_E_L2_RANGE);
    pccx_last_error(c, &e);
    NPK_CHECK_CONTAINS(e.message, "leave L2");
    pccx_deinit(c);
}

static void test_exact_sum(void)
{
    /* §3.3: (2^40, 3, -2^40) . (1, 1, 1) = 3 exactly (sequential binary32 would give 0). With
     * 2^100 the exponent span exceeds binary64, so the exact accumulator path is used: still 3.
     * A zero sum of -0 terms only is -0; with a +0 term it is +0. */
    pccx_t *c = ctx_new(0, 0);
    const int ones[3] = {1, 1, 1};
    const float s1[1] = {1.0f};
    NPK_CHECK(pccx_memset(c, 0, 1, 1, 3, 1) == PCCX_OK);
    NPK_CHECK(pccx_memset(c, 0, 2, 1, 1, 1) == PCCX_OK);
    const uint16_t a40[3] = {0x5380, 0x4040, 0xD380};   /* 2^40 = 0x5380 (127+40 = 167 = 0xA7) */
    const uint16_t a100[3] = {0x7180, 0x4040, 0xF180};  /* 2^100: 227 = 0xE3 -> 0x7180 */
    const uint16_t negz[3] = {0x8000, 0x8000, 0x8000};
    const uint16_t mixz[3] = {0x8000, 0x0000, 0x8000};
    const uint16_t *cases[4] = {a40, a100, negz, mixz};
    const uint16_t want[4] = {0x4040, 0x4040, 0x8000, 0x0000};
    for (int i = 0; i < 4; i++) {
        ref_l2_write(c, 0, cases[i], 3);
        NPK_CHECK(pccx_weight_push(c, tensor(c, 3, 1, ones, s1)) == PCCX_OK);
        NPK_CHECK(pccx_gemv(c, 1, 0, 0, 2, 1, 0) == PCCX_OK);
        NPK_REPORT(ref_l2_elem(c, 8) == want[i], "exact sum case %d: 0x%04x, want 0x%04x\n", i,
                   ref_l2_elem(c, 8), want[i]);
    }
    /* (1, 2^-8, 2^-24, 2^-60) . (1, 1, 1, 1): the exact sum is just above the binary32 midpoint
     * 1 + 2^-8 + 2^-24, so RNE32 gives 1 + 2^-8 + 2^-23 and RNE16 then 1 + 2^-7 (0x3F81). A
     * binary64 sum would drop 2^-60, land on the binary32 tie, round to even (1 + 2^-8) and then
     * to the BF16 tie's even value 1.0 (0x3F80): the exponent span (60 + 12 + 2 > 53) must send
     * this row to the exact accumulator. */
    const int ones4[4] = {1, 1, 1, 1};
    const uint16_t tie[4] = {0x3F80, 0x3B80, 0x3380, 0x2180};
    NPK_CHECK(pccx_memset(c, 0, 3, 1, 4, 1) == PCCX_OK);
    ref_l2_write(c, 0, tie, 4);
    NPK_CHECK(pccx_weight_push(c, tensor(c, 4, 1, ones4, s1)) == PCCX_OK);
    NPK_CHECK(pccx_gemv(c, 1, 0, 0, 2, 3, 0) == PCCX_OK);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 8), 0x3F81);
    /* an infinite activation times a zero weight is NaN -> 0x7FC0 */
    const int z[3] = {0, 1, 1};
    const uint16_t inf3[3] = {0x7F80, 0x3F80, 0x3F80};
    ref_l2_write(c, 0, inf3, 3);
    NPK_CHECK(pccx_weight_push(c, tensor(c, 3, 1, z, s1)) == PCCX_OK);
    NPK_CHECK(pccx_gemv(c, 1, 0, 0, 2, 1, 0) == PCCX_OK);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 8), 0x7FC0);
    pccx_deinit(c);
}

static void test_gemm(void)
{
    /* M = 2 rows (X = 2, Z = 1), K = 4, N = 2 with the §6.4 tensor, w_scale:
     * row 0 = §6.4 -> 6.5, 10; row 1 = (1, 1, 1, 1): sums 6 and 6 -> 3 (0x4040), 12 (0x4140).
     * Output row-major: elements 0x400..0x403 = 6.5, 10, 3, 12. */
    pccx_t *c = ctx_new(0, 0);
    const uint16_t a[8] = {0x4000, 0xBF80, 0x3E80, 0x4080, 0x3F80, 0x3F80, 0x3F80, 0x3F80};
    ref_l2_write(c, 8 * 0x40, a, 8);
    NPK_CHECK(pccx_memset(c, 0, 1, 2, 4, 1) == PCCX_OK);
    NPK_CHECK(pccx_memset(c, 0, 2, 2, 2, 1) == PCCX_OK);
    NPK_CHECK(pccx_weight_push(c, tensor(c, 4, 2, W42, S42)) == PCCX_OK);
    NPK_CHECK(pccx_gemm(c, 0x80, 0x40, PCCX_FLAG_W_SCALE | PCCX_FLAG_FINDEMAX, 2, 1, 0) ==
              PCCX_OK);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x400), 0x40D0);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x401), 0x4120);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x402), 0x4040);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x403), 0x4140);
    NPK_CHECK(pccx_emax_get(c) == 12.0f);
    /* neighbouring lanes of the last partly written word keep their values */
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x404), 0);
    pccx_deinit(c);
}

static void test_memcpy(void)
{
    pccx_t *c = ctx_new(0, 0);
    uint8_t buf[64], back[64];
    for (int i = 0; i < 64; i++)
        buf[i] = (uint8_t)(i * 7 + 1);
    /* host window 0x1000, aux 2 -> host byte 0x1020; 20 elements -> 3 whole words (48 bytes) */
    NPK_CHECK(pccx_host_write(c, 0x1020, buf, 64) == PCCX_OK);
    NPK_CHECK(pccx_host_window(c, 0x1000) == PCCX_OK);
    NPK_CHECK(pccx_host_window(c, 0x1008) == PCCX_E_ARG);
    NPK_CHECK(pccx_memset(c, 0, 7, 4, 5, 1) == PCCX_OK); /* 20 elements */
    NPK_CHECK(pccx_memcpy(c, 1, 0, 0x10, 0, 2, 7, 0) == PCCX_OK);
    pccx_l2_read(c, 0x10, back, 4);
    NPK_CHECK(memcmp(back, buf, 48) == 0);
    NPK_CHECK(back[48] == 0); /* only 3 words moved */
    /* L2 -> L2 overlapping (dst = src + 1 word): as if the source were read first */
    NPK_CHECK(pccx_memcpy(c, 0, 0, 0x11, 0x10, 0, 7, 0) == PCCX_OK);
    pccx_l2_read(c, 0x11, back, 3);
    NPK_CHECK(memcmp(back, buf, 48) == 0);
    /* L2 -> host at window 0 + 16 * 0x100 */
    NPK_CHECK(pccx_host_window(c, 0) == PCCX_OK);
    NPK_CHECK(pccx_memcpy(c, 0, 1, 0, 0x11, 0x100, 7, 1) == PCCX_OK);
    pccx_host_read(c, 0x1000, back, 48);
    NPK_CHECK(memcmp(back, buf, 48) == 0);
    /* errors, in the order of §6.3: zero shape, L2 range, host range, route */
    NPK_CHECK(pccx_memcpy(c, 1, 0, 0x10, 0, 0, 8, 0) == PCCX_E_SHAPE);
    pccx_clear_error(c);
    NPK_CHECK(pccx_memcpy(c, 1, 0, PCCX_L2_WORDS - 2, 0, 0, 7, 0) == PCCX_E_L2_RANGE);
    pccx_clear_error(c);
    NPK_CHECK(pccx_host_window(c, (1 << 20) - 32) == PCCX_OK);
    NPK_CHECK(pccx_memcpy(c, 1, 0, 0x10, 0, 0, 7, 0) == PCCX_E_HOST_RANGE);
    pccx_clear_error(c);
    NPK_CHECK(pccx_memcpy(c, 1, 1, 0, 0, 0, 7, 0) == PCCX_E_ROUTE);
    pccx_deinit(c);
}

/* binary32 pattern of a double, rounded to nearest by the host (the test's own reference) */
static uint32_t f32(double d)
{
    float f = (float)d;
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static void test_cvo(void)
{
    pccx_t *c = ctx_new(0, 0);
    /* softmax, §8.1 layout at small size: scores s = (1, 2, 3, 0.5) at element 0x10 (unaligned
     * slot S = 0x23, P = 0x31); E_MAX = 3 (set as a GEMV with findemax would) */
    const uint16_t s[4] = {0x3F80, 0x4000, 0x4040, 0x3F00};
    ref_l2_write(c, 0x10, s, 4);
    pccx_emax_set(c, 3.0f);
    NPK_CHECK(pccx_cvo(c, PCCX_CVO_EXP, 0x10, 0x24, 4, PCCX_CVO_FLAG_SUB_EMAX, 1) == PCCX_OK);
    NPK_CHECK(pccx_cvo(c, PCCX_CVO_REDUCE_SUM, 0x24, 0x23, 4, 0, 1) == PCCX_OK);
    NPK_CHECK(pccx_cvo(c, PCCX_CVO_SCALE, 0x23, 0x31, 5, PCCX_CVO_FLAG_RECIP_SCALE, 0) == PCCX_OK);
    /* reference: e_i = RNE16(RNE32(exp(s_i - 3))), sum = RNE16(exact sum of the e_i),
     * p_i = RNE16(RNE32(e_i / sum)) */
    uint16_t e[4];
    double sum = 0;
    for (int i = 0; i < 4; i++) {
        e[i] = ref_rne16(f32(exp(ref_bf(s[i]) - 3.0)));
        NPK_REPORT(ref_l2_elem(c, 0x24 + (uint32_t)i) == e[i], "exp[%d] 0x%04x want 0x%04x\n", i,
                   ref_l2_elem(c, 0x24 + (uint32_t)i), e[i]);
        sum += ref_bf(e[i]); /* exact: four BF16 values in (0, 1] */
    }
    uint16_t hs = ref_rne16(f32(sum));
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x23), hs);
    for (int i = 0; i < 4; i++) {
        uint16_t p = ref_rne16(f32((double)(float)ref_bf(e[i]) / (double)(float)ref_bf(hs)));
        NPK_REPORT(ref_l2_elem(c, 0x31 + (uint32_t)i) == p, "p[%d] 0x%04x want 0x%04x\n", i,
                   ref_l2_elem(c, 0x31 + (uint32_t)i), p);
    }
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x30), 0); /* neighbours untouched */
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x35), 0);
    /* special values: sqrt(-1) = NaN, 1/0 = +inf, 1/-0 = -inf, exp(-inf) = +0, cos(0) = 1 */
    const uint16_t sp[5] = {0xBF80, 0x0000, 0x8000, 0xFF80, 0x0000};
    ref_l2_write(c, 0x100, sp, 5);
    pccx_cvo(c, PCCX_CVO_SQRT, 0x100, 0x200, 1, 0, 0);
    pccx_cvo(c, PCCX_CVO_RECIP, 0x101, 0x201, 2, 0, 0);
    pccx_cvo(c, PCCX_CVO_EXP, 0x103, 0x203, 1, 0, 0);
    pccx_cvo(c, PCCX_CVO_COS, 0x104, 0x204, 1, 0, 0);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x200), 0x7FC0);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x201), 0x7F80);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x202), 0xFF80);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x203), 0x0000);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x204), 0x3F80);
    /* SCALE: 3 x (1, 2) = (3, 6); with accm onto (1, 1): (4, 7); n = 1 writes nothing */
    const uint16_t sc[3] = {0x4040, 0x3F80, 0x4000}, ones[2] = {0x3F80, 0x3F80};
    ref_l2_write(c, 0x300, sc, 3);
    ref_l2_write(c, 0x400, ones, 2);
    pccx_cvo(c, PCCX_CVO_SCALE, 0x300, 0x400, 3, PCCX_CVO_FLAG_ACCM, 0);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x400), 0x4080);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x401), 0x40E0);
    pccx_cvo(c, PCCX_CVO_SCALE, 0x300, 0x400, 1, 0, 0);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x400), 0x4080);
    /* in place: RECIP of (2, 4) -> (0.5, 0.25) */
    const uint16_t r2[2] = {0x4000, 0x4080};
    ref_l2_write(c, 0x500, r2, 2);
    pccx_cvo(c, PCCX_CVO_RECIP, 0x500, 0x500, 2, 0, 0);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x500), 0x3F00);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x501), 0x3E80);
    /* length 0 is E_SHAPE; ext function without ext is E_ILLEGAL_FUNC */
    NPK_CHECK(pccx_cvo(c, PCCX_CVO_EXP, 0, 0, 0, 0, 0) == PCCX_E_SHAPE);
    pccx_clear_error(c);
    NPK_CHECK(pccx_cvo(c, PCCX_CVO_TANH, 0, 0, 1, 0, 0) == PCCX_E_ILLEGAL_FUNC);
    pccx_deinit(c);
}

static void test_ext(void)
{
    pccx_t *c = ctx_new(1, 0);
    const uint16_t x[4] = {0x3F80, 0xC000, 0x4040, 0xBF00}; /* 1, -2, 3, -0.5 */
    const uint16_t g[4] = {0x4000, 0x4000, 0x3F00, 0x4080}; /* 2, 2, 0.5, 4 */
    ref_l2_write(c, 0x10, x, 4);
    ref_l2_write(c, 0x20, g, 4);
    /* VMUL: dst *= src -> 2, -4, 1.5, -2 */
    NPK_CHECK(pccx_cvo(c, PCCX_CVO_VMUL, 0x10, 0x20, 4, 0, 0) == PCCX_OK);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x20), 0x4000);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x21), 0xC080);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x22), 0x3FC0);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x23), 0xC000);
    /* REDUCE_SUMSQ of x: 1 + 4 + 9 + 0.25 = 14.25 (0x4164); REDUCE_MAX = 3, sets E_MAX */
    pccx_cvo(c, PCCX_CVO_REDUCE_SUMSQ, 0x10, 0x30, 4, 0, 0);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x30), 0x4164);
    pccx_cvo(c, PCCX_CVO_REDUCE_MAX, 0x10, 0x31, 4, 0, 0);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x31), 0x4040);
    NPK_CHECK(pccx_emax_get(c) == 3.0f);
    /* MAXS with scalar 0 (ReLU) over (-2, 3, -0.5): 0, 3, 0; ADDS 1 -> -1, 4, 0.5 */
    pccx_cvo(c, PCCX_CVO_MAXS, 0x10 - 0, 0x40, 1, 0, 0); /* n = 1: nothing written */
    const uint16_t zx[4] = {0x0000, 0xC000, 0x4040, 0xBF00};
    ref_l2_write(c, 0x50, zx, 4);
    pccx_cvo(c, PCCX_CVO_MAXS, 0x50, 0x60, 4, 0, 0);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x60), 0x0000);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x61), 0x4040);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x62), 0x0000);
    /* COPY with accm = vector add; with sub_emax (E_MAX = 3): x - 3 */
    pccx_cvo(c, PCCX_CVO_COPY, 0x10, 0x70, 4, PCCX_CVO_FLAG_SUB_EMAX, 0);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x70), 0xC000); /* 1 - 3 = -2 */
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x72), 0x0000); /* 3 - 3 = +0 */
    pccx_cvo(c, PCCX_CVO_COPY, 0x10, 0x70, 4, PCCX_CVO_FLAG_ACCM, 0);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x70), 0xBF80); /* -2 + 1 */
    /* VMUL with accm is E_BAD_FLAGS */
    NPK_CHECK(pccx_cvo(c, PCCX_CVO_VMUL, 0x10, 0x20, 4, PCCX_CVO_FLAG_ACCM, 0) ==
              PCCX_E_BAD_FLAGS);
    pccx_clear_error(c);
    /* BF16 view: W[n][k] at host 0x100 + 2 (n * 4 + k), N = 2, K = 4 (rows 1,1,1,1 / 1,2,3,4)
     * times x = (1, -2, 3, -0.5): 1.5 and 1 - 4 + 9 - 2 = 4 */
    const uint16_t wv[8] = {0x3F80, 0x3F80, 0x3F80, 0x3F80, 0x3F80, 0x4000, 0x4040, 0x4080};
    pccx_host_write(c, 0x100, wv, sizeof wv);
    pccx_weight_t h;
    NPK_CHECK(pccx_weight_view_bf16(c, 0x100, 2, 4, 4, 1, &h) == PCCX_OK);
    NPK_CHECK(pccx_weight_push(c, h) == PCCX_OK);
    pccx_memset(c, 0, 1, 1, 4, 1);
    pccx_memset(c, 0, 2, 1, 2, 1);
    NPK_CHECK(pccx_gemv(c, 0x10, 2, PCCX_FLAG_W_SCALE, 2, 1, 0) == PCCX_OK); /* x at word 2 */
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x80), 0x3FC0);
    NPK_CHECK_EQ_U64(ref_l2_elem(c, 0x81), 0x4080);
    /* a view that leaves host DDR */
    NPK_CHECK(pccx_weight_view_bf16(c, (1 << 20) - 4, 2, 4, 4, 1, &h) == PCCX_OK);
    pccx_weight_push(c, h);
    NPK_CHECK(pccx_gemv(c, 0x10, 2, 0, 2, 1, 0) == PCCX_E_HOST_RANGE);
    pccx_deinit(c);
}

static void test_registers_and_modes(void)
{
    pccx_t *c = ctx_new(0, 0);
    /* 32-bit halves: memset fmap idx=4 (1, 256, 1) = 0x3040001010000010 */
    NPK_CHECK(pccx_reg_write32(c, 0x000, 0x10000010u) == PCCX_OK);
    NPK_CHECK(pccx_reg_write32(c, 0x004, 0x30400010u) == PCCX_OK);
    uint32_t xyz[3];
    pccx_cc_read(c, 0, 4, xyz);
    NPK_CHECK(xyz[0] == 1 && xyz[1] == 256 && xyz[2] == 1);
    /* 64-bit push; KICK accepted, nothing pushed */
    NPK_CHECK(pccx_reg_write64(c, 0x000, 0x3050001020000010ull) == PCCX_OK);
    NPK_CHECK(pccx_reg_write64(c, 0x008, 0) == PCCX_OK);
    pccx_stats_t st;
    pccx_stats(c, &st);
    NPK_CHECK_EQ_U64(st.insns, 2);
    NPK_CHECK(pccx_sync(c, 0) == PCCX_OK);
    NPK_CHECK_EQ_U64(pccx_reg_read(c, 0x08), PCCX_STATUS_DONE);
    /* strict: the KICK word pushed as an instruction is illegal */
    NPK_CHECK(pccx_issue(c, 0x8000000000000000ull) == PCCX_E_ILLEGAL_OPCODE);
    pccx_deinit(c);
    /* hw-compat: dropped, counted, no effect; reserved bits ignored */
    c = ctx_new(0, 1);
    NPK_CHECK(pccx_issue(c, 0x8000000000000000ull) == PCCX_OK);
    NPK_CHECK(pccx_issue(c, 0x3040001010000013ull) == PCCX_OK); /* memset with bits [3:0] = 3 */
    pccx_cc_read(c, 0, 4, xyz);
    NPK_CHECK(xyz[1] == 256);
    pccx_sync(c, 0);
    pccx_stats(c, &st);
    NPK_CHECK_EQ_U64(st.dropped, 1);
    pccx_deinit(c);
}

static void test_timing_through_api(void)
{
    /* §11.6: memset fmap idx=1 (1, 512, 1), then a sync memcpy.h2l of 64 words: 162 cycles */
    pccx_t *c = ctx_new(0, 0);
    NPK_CHECK(pccx_memset(c, 0, 1, 1, 512, 1) == PCCX_OK);
    NPK_CHECK(pccx_memcpy(c, 1, 0, 0x10, 0, 0, 1, 0) == PCCX_OK);
    NPK_CHECK(pccx_sync(c, 0) == PCCX_OK);
    pccx_times_t t;
    NPK_CHECK(pccx_insn_times(c, 0, &t) == PCCX_OK);
    NPK_CHECK(t.a == 0 && t.d == 1 && t.s == 2 && t.c == 4 && t.engine == PCCX_ENG_MEMSET);
    NPK_CHECK(pccx_insn_times(c, 1, &t) == PCCX_OK);
    NPK_CHECK(t.a == 4 && t.d == 5 && t.s == 6 && t.c == 162 && t.engine == PCCX_ENG_MEM);
    pccx_stats_t st;
    pccx_stats(c, &st);
    NPK_CHECK_EQ_U64(st.cycles, 162);
    NPK_CHECK_EQ_U64(st.acp_bytes, 1024);
    pccx_deinit(c);
}

/* Reset leaves all of host DDR zero, however it was written: the host API, the memory
 * backdoor, MEMCPY to host. Reset hands the memory a fresh zeroed block rather than clearing it
 * page by page (4 GiB would all become resident), so every view of it must follow: the host
 * API, the "host" memory space and MEMCPY. A loaded program's own host data comes back. */
static void test_reset_clears_host(void)
{
    static const char src[] = ".target pccx\n"
                              ".host byte=0x40\n"
                              ".h16 0x1234, 0x5678\n"
                              "    memset fmap, idx=1, a=1, b=8, c=1\n"
                              "    memcpy.l2h src=0, aux=0x10, shape=1\n";
    const uint64_t size = UINT64_C(64) << 20, ends[] = {0, 0x40, (size / 2) & ~15u, size - 16};
    npk_machine *m = NULL;
    char err[256];
    NPK_CHECK(npk_create(&m, "pccx", "host_ddr_bytes=64M", err, sizeof err) == NPK_OK);
    if (!m)
        return;
    pccx_t *c = pccx_of(m);
    uint8_t ones[16], back[16], zero[16] = {0};
    memset(ones, 0xA5, sizeof ones);
    for (int round = 0; round < 2; round++) {
        /* round 0 by the host API and MEMCPY, round 1 by the backdoor on the fresh block */
        for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
            if (round == 0)
                NPK_CHECK(pccx_host_write(c, ends[i], ones, 16) == PCCX_OK);
            else
                NPK_CHECK(npk_mem_write(m, "host", ends[i], ones, 16) == NPK_OK);
            NPK_CHECK(pccx_host_read(c, ends[i], back, 16) == PCCX_OK);
            NPK_CHECK(memcmp(back, ones, 16) == 0);
        }
        if (round == 0) {
            /* one L2 word (8 elements, shape entry 1) to host byte 0x1000 + 16 x 0x10 */
            NPK_CHECK(pccx_l2_write(c, 0x20, ones, 1) == PCCX_OK);
            NPK_CHECK(pccx_memset(c, PCCX_BANK_FMAP, 1, 1, 8, 1) == PCCX_OK);
            NPK_CHECK(pccx_host_window(c, 0x1000) == PCCX_OK);
            NPK_CHECK(pccx_memcpy(c, 0, 1, 0, 0x20, 0x10, 1, 0) == PCCX_OK);
            NPK_CHECK(npk_mem_read(m, "host", 0x1100, back, 16) == NPK_OK);
            NPK_CHECK(memcmp(back, ones, 16) == 0);
        }
        NPK_CHECK(pccx_reset(c) == PCCX_OK);
        for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
            NPK_CHECK(pccx_host_read(c, ends[i], back, 16) == PCCX_OK);
            NPK_CHECK(memcmp(back, zero, 16) == 0);
            NPK_CHECK(npk_mem_read(m, "host", ends[i], back, 16) == NPK_OK);
            NPK_CHECK(memcmp(back, zero, 16) == 0);
        }
        NPK_CHECK(npk_mem_read(m, "host", 0x1100, back, 16) == NPK_OK);
        NPK_CHECK(memcmp(back, zero, 16) == 0);
    }
    /* a program: its .host data at 0x40, and its MEMCPY of L2 word 0 to host byte 0x100 */
    NPK_CHECK(npk_load_asm(m, src, "reset.s", NULL) == NPK_OK);
    npk_stop stop;
    NPK_CHECK(npk_mem_write(m, "host", size - 16, ones, 16) == NPK_OK);
    NPK_CHECK(npk_mem_write(m, "l2", 0, ones, 16) == NPK_OK);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK);
    NPK_CHECK(npk_mem_read(m, "host", 0x100, back, 16) == NPK_OK);
    NPK_CHECK(memcmp(back, ones, 16) == 0);
    NPK_CHECK(npk_reset(m) == NPK_OK);
    const uint8_t data[4] = {0x34, 0x12, 0x78, 0x56};
    NPK_CHECK(pccx_host_read(c, 0x40, back, 16) == PCCX_OK);
    NPK_CHECK(memcmp(back, data, 4) == 0 && memcmp(back + 4, zero, 12) == 0);
    NPK_CHECK(npk_mem_read(m, "host", 0x100, back, 16) == NPK_OK);
    NPK_CHECK(memcmp(back, zero, 16) == 0);
    NPK_CHECK(npk_mem_read(m, "host", size - 16, back, 16) == NPK_OK);
    NPK_CHECK(memcmp(back, zero, 16) == 0);
    npk_destroy(m);
}

/* Reset skips clearing L2 and host DDR while nothing wrote them since they were cleared, so
 * every way of writing them must be noticed: on a fresh machine, one write by each path (the
 * L2 and host backdoors, the L2 and host API calls, an instruction), then a reset, and both
 * memories read back zero, at the written place and at the other memory's ends. */
static void test_reset_after_each_write_path(void)
{
    uint8_t ones[16], back[16], zero[16] = {0};
    memset(ones, 0x5A, sizeof ones);
    for (int path = 0; path < 5; path++) {
        npk_machine *m = NULL;
        char err[256];
        NPK_CHECK(npk_create(&m, "pccx", "host_ddr_bytes=1M", err, sizeof err) == NPK_OK);
        if (!m)
            return;
        pccx_t *c = pccx_of(m);
        switch (path) {
        case 0: NPK_CHECK(npk_mem_write(m, "l2", 0x200, ones, 16) == NPK_OK); break;
        case 1: NPK_CHECK(npk_mem_write(m, "host", 0x200, ones, 16) == NPK_OK); break;
        case 2: NPK_CHECK(pccx_l2_write(c, 0x20, ones, 1) == PCCX_OK); break;
        case 3: NPK_CHECK(pccx_host_write(c, 0x200, ones, 16) == PCCX_OK); break;
        default: /* the instruction path alone: CVO EXP of 8 zero elements at L2 element 0x10
                  * writes exp(0) = 1.0 (BF16 0x3F80) to elements 0x100.., L2 byte 0x200 */
            NPK_CHECK(pccx_cvo(c, PCCX_CVO_EXP, 0x10, 0x100, 8, 0, 0) == PCCX_OK);
            NPK_CHECK(pccx_sync(c, 0) == PCCX_OK);
            break;
        }
        NPK_CHECK(npk_mem_read(m, path == 1 || path == 3 ? "host" : "l2", 0x200, back, 16) ==
                  NPK_OK);
        if (path == 4)
            NPK_CHECK(back[0] == 0x80 && back[1] == 0x3F && back[14] == 0x80 && back[15] == 0x3F);
        else
            NPK_CHECK(memcmp(back, ones, 16) == 0);
        NPK_CHECK(pccx_reset(c) == PCCX_OK);
        NPK_CHECK(npk_mem_read(m, "l2", 0x200, back, 16) == NPK_OK);
        NPK_CHECK(memcmp(back, zero, 16) == 0);
        NPK_CHECK(npk_mem_read(m, "host", 0x200, back, 16) == NPK_OK);
        NPK_CHECK(memcmp(back, zero, 16) == 0);
        NPK_CHECK(pccx_l2_read(c, 0x20, back, 1) == PCCX_OK);
        NPK_CHECK(memcmp(back, zero, 16) == 0);
        npk_destroy(m);
    }
}

int main(void)
{
    test_gemv_example();
    test_exact_sum();
    test_gemm();
    test_memcpy();
    test_cvo();
    test_ext();
    test_registers_and_modes();
    test_timing_through_api();
    test_reset_clears_host();
    test_reset_after_each_write_path();
    return npk_test_done();
}
