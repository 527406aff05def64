/* opennpu conversions (§5.6) and FP32 tier-2 (§5.8, §5.9): every CVT pair in every rounding
 * mode with the spec's examples (§5.6.4-§5.6.7), FP specials (NaN/Inf/subnormal read as zero,
 * flush after rounding with an unbounded exponent, saturation to max finite), min/max, the
 * sign operations and the fused multiply-add. Expected values are the spec's or derived by hand
 * (noted next to them). */
#include "onpu_test.h"

/* Destination register per class, chosen so that no source (VX1, VE1, VR1) overlaps it. */
static const unsigned dst_reg[3] = {16, 6, 2};

static const unsigned fmt_cls[6] = {VX, VE, VR, VR, VE, VX};

/* Run one conversion on lane 0 (other lanes 0) and return lane 0 of the destination. */
static uint32_t cvt1(unsigned dst, unsigned src, unsigned sat, unsigned rnd, unsigned var,
                     uint32_t in)
{
    uint32_t w = enc_cvt(dst, src, sat, rnd, var, dst_reg[fmt_cls[dst]], 1);
    npk_machine *m = mk_prog("opennpu:K=4,mem_size=16", &w, 1);
    set_lane(m, fmt_cls[src], 1, 0, in);
    npk_stop st;
    npk_run(m, 0, &st);
    NPK_REPORT(st.reason == NPK_STOP_EXIT, "cvt %u<-%u: %s\n", dst, src, st.message);
    uint32_t out = get_lane(m, fmt_cls[dst], dst_reg[fmt_cls[dst]], 0);
    NPK_CHECK_EQ_U64(get_lane(m, fmt_cls[dst], dst_reg[fmt_cls[dst]], 1), 0); /* 0 -> 0 */
    npk_destroy(m);
    return out;
}

/* want[] by rounding mode RNE, RTZ, floor, ceil. */
typedef struct ccase {
    unsigned dst, src, sat, var;
    uint32_t in;
    uint32_t want[4];
} ccase;

#define ALL(x) {x, x, x, x}

static const ccase cvts[] = {
    /* s32 -> s8 / s16: wrap or saturate, rounding ignored */
    {F_S8, F_S32, 0, 0, 300, ALL(0x2C)},
    {F_S8, F_S32, 1, 0, 300, ALL(0x7F)},
    {F_S8, F_S32, 0, 0, (uint32_t)-129, ALL(0x7F)},
    {F_S8, F_S32, 1, 0, (uint32_t)-129, ALL(0x80)},
    {F_S8, F_S32, 1, 0, (uint32_t)-128, ALL(0x80)},
    {F_S8, F_S32, 1, 0, 127, ALL(0x7F)},
    {F_S16, F_S32, 0, 0, 70000, ALL(0x1170)},
    {F_S16, F_S32, 1, 0, 70000, ALL(0x7FFF)},
    {F_S16, F_S32, 0, 0, (uint32_t)-40000, ALL(0x63C0)},
    {F_S16, F_S32, 1, 0, (uint32_t)-40000, ALL(0x8000)},
    {F_S16, F_S32, 1, 0, 0x80000000u, ALL(0x8000)},
    /* sign extensions (sat ignored) */
    {F_S32, F_S8, 0, 0, 0x80, ALL(0xFFFFFF80)},
    {F_S32, F_S8, 1, 0, 0x7F, ALL(0x7F)},
    {F_S32, F_S16, 0, 0, 0x8000, ALL(0xFFFF8000)},
    {F_S32, F_S16, 1, 0, 0x1234, ALL(0x1234)},
    /* int -> f32 (§5.6.4 examples with RNE and RTZ; floor/ceil by hand) */
    {F_F32, F_S32, 0, 0, 16777217, {0x4B800000, 0x4B800000, 0x4B800000, 0x4B800001}},
    {F_F32, F_S32, 0, 0, 16777219, {0x4B800002, 0x4B800001, 0x4B800001, 0x4B800002}},
    {F_F32, F_S32, 0, 0, 2147483647, {0x4F000000, 0x4EFFFFFF, 0x4EFFFFFF, 0x4F000000}},
    {F_F32, F_S32, 0, 0, (uint32_t)-16777219, {0xCB800002, 0xCB800001, 0xCB800002, 0xCB800001}},
    {F_F32, F_S32, 0, 0, 0x80000000u, ALL(0xCF000000)},
    {F_F32, F_S32, 0, 0, 16777216, ALL(0x4B800000)},
    {F_F32, F_S32, 1, 0, 0, ALL(0)},
    {F_F32, F_S8, 0, 0, 0x80, ALL(0xC3000000)},
    {F_F32, F_S8, 0, 0, 0x01, ALL(0x3F800000)},
    {F_F32, F_S8, 0, 0, 0x00, ALL(0)},
    /* f32 -> s32 (§5.6.5 examples: sat = 1, RNE and RTZ; floor/ceil by hand) */
    {F_S32, F_F32, 1, 0, 0x3FF33333, {2, 1, 1, 2}},                                   /* 1.9 */
    {F_S32, F_F32, 1, 0, 0xBFF33333, {(uint32_t)-2, (uint32_t)-1, (uint32_t)-2, (uint32_t)-1}},
    {F_S32, F_F32, 1, 0, 0x3F000000, {0, 0, 0, 1}},                                   /* 0.5 */
    {F_S32, F_F32, 1, 0, 0xBF000000, {0, 0, (uint32_t)-1, 0}},                        /* -0.5 */
    {F_S32, F_F32, 1, 0, 0x40200000, {2, 2, 2, 3}},                                   /* 2.5 */
    {F_S32, F_F32, 1, 0, 0x42C96666, {101, 100, 100, 101}},                           /* 100.7 */
    {F_S32, F_F32, 1, 0, 0x4F000000, ALL(0x7FFFFFFF)},                                /* 2^31 */
    {F_S32, F_F32, 0, 0, 0x4F000000, ALL(0x80000000)},              /* wrap_32(2^31) */
    {F_S32, F_F32, 1, 0, 0xCF000000, ALL(0x80000000)},                                /* -2^31 */
    {F_S32, F_F32, 1, 0, 0x7FC00000, ALL(0)},                                         /* NaN */
    {F_S32, F_F32, 0, 0, 0xFFC00000, ALL(0)},
    {F_S32, F_F32, 1, 0, 0x7F800000, ALL(0x7FFFFFFF)},                                /* +inf */
    {F_S32, F_F32, 0, 0, 0x7F800000, ALL(0)},
    {F_S32, F_F32, 1, 0, 0xFF800000, ALL(0x80000000)},                                /* -inf */
    {F_S32, F_F32, 0, 0, 0xFF800000, ALL(0)},
    {F_S32, F_F32, 1, 0, 0x00000001, {0, 0, 0, 1}},       /* smallest subnormal: ceil gives 1 */
    {F_S32, F_F32, 1, 0, 0x80000001, {0, 0, (uint32_t)-1, 0}},
    {F_S32, F_F32, 0, 0, 0x5F800000, ALL(0)},                      /* 2^64 wraps to 0 */
    /* f32 -> s8: 300.7 with sat = 0 gives wrap_8(301) = 45; 1e10 gives wrap_8(10^10) = 0 */
    {F_S8, F_F32, 0, 0, 0x4396599A, {45, 44, 44, 45}},
    {F_S8, F_F32, 1, 0, 0x4396599A, ALL(0x7F)},
    {F_S8, F_F32, 0, 0, 0x501502F9, ALL(0)},
    {F_S8, F_F32, 1, 0, 0x501502F9, ALL(0x7F)},
    {F_S8, F_F32, 1, 0, 0xD01502F9, ALL(0x80)},
    /* -128.5: RNE -128 (even), RTZ -128, floor -129 (sat -128, wrap 127), ceil -128 */
    {F_S8, F_F32, 1, 0, 0xC3008000, ALL(0x80)},
    {F_S8, F_F32, 0, 0, 0xC3008000, {0x80, 0x80, 0x7F, 0x80}},
    {F_S8, F_F32, 1, 0, 0x7F800000, ALL(0x7F)},
    {F_S8, F_F32, 0, 0, 0x7F800000, ALL(0)},
    {F_S8, F_F32, 1, 0, 0xFFC00001, ALL(0)},
    {F_S8, F_F32, 1, 0, 0xBFF33333, {0xFE, 0xFF, 0xFE, 0xFF}},                       /* -1.9 */
    /* bf16 -> f32: exact, payloads kept */
    {F_F32, F_BF16, 0, 0, 0x3F80, ALL(0x3F800000)},
    {F_F32, F_BF16, 1, 0, 0x7FC1, ALL(0x7FC10000)},
    {F_F32, F_BF16, 0, 0, 0xFF80, ALL(0xFF800000)},
    {F_F32, F_BF16, 0, 0, 0x0001, ALL(0x00010000)},
    /* f32 -> bf16 (§5.6.6 examples: RNE sat = 0; the others by hand) */
    {F_BF16, F_F32, 0, 0, 0x3F808000, {0x3F80, 0x3F80, 0x3F80, 0x3F81}},             /* tie */
    {F_BF16, F_F32, 0, 0, 0x3F818000, {0x3F82, 0x3F81, 0x3F81, 0x3F82}},
    {F_BF16, F_F32, 0, 0, 0xBF818000, {0xBF82, 0xBF81, 0xBF82, 0xBF81}},
    {F_BF16, F_F32, 0, 0, 0x7F7FFFFF, {0x7F80, 0x7F7F, 0x7F7F, 0x7F80}},             /* overflow */
    {F_BF16, F_F32, 1, 0, 0x7F7FFFFF, ALL(0x7F7F)},
    {F_BF16, F_F32, 0, 0, 0xFF7FFFFF, {0xFF80, 0xFF7F, 0xFF80, 0xFF7F}},
    {F_BF16, F_F32, 1, 0, 0xFF7FFFFF, ALL(0xFF7F)},
    {F_BF16, F_F32, 0, 0, 0x7F800000, ALL(0x7F80)},
    {F_BF16, F_F32, 1, 0, 0x7F800000, ALL(0x7F7F)},
    {F_BF16, F_F32, 1, 0, 0xFF800000, ALL(0xFF7F)},
    {F_BF16, F_F32, 0, 0, 0x7FC12345, ALL(0x7FC1)},                /* NaN: (x >> 16) | 0x40 */
    {F_BF16, F_F32, 1, 0, 0x7F812345, ALL(0x7FC1)},
    {F_BF16, F_F32, 0, 0, 0xFF800001, ALL(0xFFC0)},
    {F_BF16, F_F32, 0, 0, 0x80000000, ALL(0x8000)},
    {F_BF16, F_F32, 0, 0, 0x00008000, {0x0000, 0x0000, 0x0000, 0x0001}},  /* subnormal, exact value */
    {F_BF16, F_F32, 0, 0, 0x00018000, {0x0002, 0x0001, 0x0001, 0x0002}},
    /* f32 -> E4M3 (§5.6.6 examples RNE sat = 0) */
    {F_BF8, F_F32, 0, 0, 0x3F800000, ALL(0x38)},                                      /* 1.0 */
    {F_BF8, F_F32, 0, 0, 0x43700000, ALL(0x77)},                                      /* 240 */
    {F_BF8, F_F32, 0, 0, 0x43800000, ALL(0x78)},                                      /* 256 */
    {F_BF8, F_F32, 0, 0, 0x43E00000, ALL(0x7E)},                                      /* 448 */
    {F_BF8, F_F32, 0, 0, 0x43E80000, {0x7E, 0x7E, 0x7E, 0x7F}},                       /* 464 */
    {F_BF8, F_F32, 0, 0, 0x43E88000, {0x7F, 0x7E, 0x7E, 0x7F}},                       /* 465 */
    {F_BF8, F_F32, 1, 0, 0x43E88000, ALL(0x7E)},
    {F_BF8, F_F32, 0, 0, 0xC3E88000, {0xFF, 0xFE, 0xFF, 0xFE}},                       /* -465 */
    {F_BF8, F_F32, 1, 0, 0xC3E88000, ALL(0xFE)},
    {F_BF8, F_F32, 0, 0, 0x3C000000, ALL(0x04)},                                      /* 2^-7 */
    {F_BF8, F_F32, 0, 0, 0x3A800000, {0x00, 0x00, 0x00, 0x01}},                       /* 2^-10 */
    {F_BF8, F_F32, 0, 0, 0x3F8CCCCD, {0x39, 0x38, 0x38, 0x39}},                       /* 1.1 */
    {F_BF8, F_F32, 0, 0, 0xBF8CCCCD, {0xB9, 0xB8, 0xB9, 0xB8}},                       /* -1.1 */
    {F_BF8, F_F32, 0, 0, 0x7F800000, ALL(0x7F)},                                      /* +inf */
    {F_BF8, F_F32, 1, 0, 0x7F800000, ALL(0x7E)},
    {F_BF8, F_F32, 0, 0, 0xFFC00000, ALL(0xFF)},                                      /* NaN */
    {F_BF8, F_F32, 0, 0, 0x80000000, ALL(0x80)},
    /* f32 -> E5M2 */
    {F_BF8, F_F32, 0, 1, 0x43700000, {0x5C, 0x5B, 0x5B, 0x5C}},                       /* 240 */
    {F_BF8, F_F32, 0, 1, 0x47600000, ALL(0x7B)},                                      /* 57344 */
    {F_BF8, F_F32, 0, 1, 0x47700000, {0x7C, 0x7B, 0x7B, 0x7C}},                       /* 61440 */
    {F_BF8, F_F32, 1, 1, 0x47700000, ALL(0x7B)},
    {F_BF8, F_F32, 0, 1, 0xC7700000, {0xFC, 0xFB, 0xFC, 0xFB}},
    {F_BF8, F_F32, 0, 1, 0x37800000, ALL(0x01)},                                      /* 2^-16 */
    {F_BF8, F_F32, 0, 1, 0x7F800000, ALL(0x7C)},
    {F_BF8, F_F32, 1, 1, 0xFF800000, ALL(0xFB)},
    {F_BF8, F_F32, 1, 1, 0x7FC00000, ALL(0x7F)},
    /* bf8 -> f32 (§5.6.7 examples) */
    {F_F32, F_BF8, 0, 0, 0x7E, ALL(0x43E00000)},
    {F_F32, F_BF8, 0, 0, 0x78, ALL(0x43800000)},
    {F_F32, F_BF8, 0, 0, 0x01, ALL(0x3B000000)},
    {F_F32, F_BF8, 0, 0, 0x7F, ALL(0x7FC00000)},
    {F_F32, F_BF8, 1, 0, 0xFF, ALL(0xFFC00000)},
    {F_F32, F_BF8, 0, 0, 0xB8, ALL(0xBF800000)},
    {F_F32, F_BF8, 0, 1, 0x7B, ALL(0x47600000)},
    {F_F32, F_BF8, 0, 1, 0x7C, ALL(0x7F800000)},
    {F_F32, F_BF8, 0, 1, 0xFC, ALL(0xFF800000)},
    {F_F32, F_BF8, 0, 1, 0x01, ALL(0x37800000)},
    {F_F32, F_BF8, 0, 1, 0x7D, ALL(0x7FC00000)},
};

static void cvt_cases(void)
{
    unsigned seen[6][6] = {{0}};
    for (size_t i = 0; i < sizeof cvts / sizeof cvts[0]; i++) {
        const ccase *c = &cvts[i];
        seen[c->dst][c->src] = 1;
        for (unsigned rnd = 0; rnd < 4; rnd++) {
            uint32_t got = cvt1(c->dst, c->src, c->sat, rnd, c->var, c->in);
            NPK_REPORT(got == c->want[rnd],
                       "cvt case %zu (%u <- %u, sat %u, var %u, rnd %u, in 0x%08x): 0x%x, want "
                       "0x%x\n", i, c->dst, c->src, c->sat, c->var, rnd, c->in, got,
                       c->want[rnd]);
        }
    }
    /* all twelve pairs are covered */
    static const unsigned pairs[12][2] = {{0, 2}, {2, 0}, {3, 2}, {2, 3}, {3, 0}, {0, 3},
                                          {3, 4}, {4, 3}, {3, 5}, {5, 3}, {1, 2}, {2, 1}};
    for (unsigned p = 0; p < 12; p++)
        NPK_CHECK(seen[pairs[p][0]][pairs[p][1]]);

    /* destination overlapping the source: vcvt_s8_s32 vx4, vr1 (VX4 = byte 0 of VR1) */
    uint32_t w = enc_cvt(F_S8, F_S32, 1, RNE, 0, 4, 1);
    npk_machine *m = mk_prog("opennpu:K=4", &w, 1);
    static const uint32_t in[4] = {0x00000100, 0xFFFFFF00, 0x00000042, 0x12345678};
    static const uint32_t out[4] = {0x0000017F, 0xFFFFFF80, 0x00000042, 0x1234567F};
    for (unsigned k = 0; k < 4; k++)
        set_lane(m, VR, 1, k, in[k]);
    npk_stop st;
    npk_run(m, 0, &st);
    for (unsigned k = 0; k < 4; k++)
        NPK_CHECK_EQ_U64(get_lane(m, VR, 1, k), out[k]);
    npk_destroy(m);
}

/* One FP instruction on lane 0: rs1 = VR1, rs2 = VR2, rs3 = VR3, rd = VR4. */
static uint32_t fp1(uint32_t w, uint32_t a, uint32_t b, uint32_t c)
{
    npk_machine *m = mk_prog("opennpu:K=4,mem_size=16", &w, 1);
    set_lane(m, VR, 1, 0, a);
    set_lane(m, VR, 2, 0, b);
    set_lane(m, VR, 3, 0, c);
    npk_stop st;
    npk_run(m, 0, &st);
    uint32_t r = get_lane(m, VR, 4, 0);
    npk_destroy(m);
    return r;
}

typedef struct fcase {
    const char *name;
    unsigned f3;
    uint32_t a, b;
    uint32_t want[4]; /* RNE RTZ floor ceil */
} fcase;

static const fcase fps[] = {
    /* §5.8 examples (RNE); the directed modes by hand */
    {"3.14+2.71", 0, 0x4048F5C3, 0x402D70A4, {0x40BB3334, 0x40BB3333, 0x40BB3333, 0x40BB3334}},
    {"0.1+0.2", 0, 0x3DCCCCCD, 0x3E4CCCCD, {0x3E99999A, 0x3E999999, 0x3E999999, 0x3E99999A}},
    {"1+-0.99999", 0, 0x3F800000, 0xBF7FFF58, ALL(0x37280000)},
    {"50*0.01", 2, 0x42480000, 0x3C23D70A, {0x3F000000, 0x3EFFFFFF, 0x3EFFFFFF, 0x3F000000}},
    {"0+0", 0, 0, 0, ALL(0)},
    {"MAX*2", 2, 0x7F7FFFFF, 0x40000000, ALL(0x7F7FFFFF)},
    {"-MAX*2", 2, 0xFF7FFFFF, 0x40000000, ALL(0xFF7FFFFF)},
    {"MAX+MAX", 0, 0x7F7FFFFF, 0x7F7FFFFF, ALL(0x7F7FFFFF)},
    {"inf*2", 2, 0x7F800000, 0x40000000, ALL(0)},
    {"1e-20*1e-20", 2, 0x1E3CE508, 0x1E3CE508, ALL(0)},
    /* NaN/inf/subnormal inputs read as zeros of their sign */
    {"NaN+1", 0, 0x7FC00000, 0x3F800000, ALL(0x3F800000)},
    {"-NaN+-0", 0, 0xFFC00001, 0x80000000, ALL(0x80000000)},
    {"-0+0", 0, 0x80000000, 0, {0, 0, 0x80000000, 0}},
    {"1-1", 1, 0x3F800000, 0x3F800000, {0, 0, 0x80000000, 0}},
    {"-0-0", 1, 0x80000000, 0, ALL(0x80000000)},
    {"sub+0", 0, 0x00000001, 0, ALL(0)},
    {"-sub*2", 2, 0x807FFFFF, 0x40000000, ALL(0x80000000)},
    {"-1*0", 2, 0xBF800000, 0, ALL(0x80000000)},
    {"-inf*-1", 2, 0xFF800000, 0xBF800000, ALL(0)},
    {"-inf-inf", 1, 0xFF800000, 0x7F800000, ALL(0x80000000)},
    /* flush: 2^-63 * 2^-63 = 2^-126 stays, 2^-64 * 2^-63 = 2^-127 flushes (sign kept) */
    {"2^-126", 2, 0x20000000, 0x20000000, ALL(0x00800000)},
    {"2^-127", 2, 0x1F800000, 0x20000000, ALL(0)},
    {"-2^-127", 2, 0x9F800000, 0x20000000, ALL(0x80000000)},
    /* (1 - 2^-23) * 2^-126 (1 + 2^-23) = 2^-126 (1 - 2^-46): rounds to 2^-126 with an unbounded
     * exponent in RNE and ceil (kept), to 2^-126 (1 - 2^-24) in RTZ and floor (flushed) */
    {"2^-126(1-2^-46)", 2, 0x3F7FFFFE, 0x00800001, {0x00800000, 0, 0, 0x00800000}},
    {"-2^-126(1-2^-46)", 2, 0xBF7FFFFE, 0x00800001, {0x80800000, 0x80000000, 0x80800000, 0x80000000}},
    /* 2^-125 - 2^-126 (1 + 2^-23) = 2^-126 (1 - 2^-23): exact but below 2^-126, flushed */
    {"sub-to-subnormal", 1, 0x01000000, 0x00800001, ALL(0)},
    /* 2^-125 (1 + 2^-22) - 2^-126 = 2^-126 (1 + 2^-21): exact, normal, kept */
    {"sub-to-normal", 1, 0x01000002, 0x00800000, ALL(0x00800004)},
    /* §5.8 vfmax/vfmin examples, numeric with -0 < +0 on sanitised inputs */
    {"vfmax(-1,-2)", 5, 0xBF800000, 0xC0000000, ALL(0xBF800000)},
    {"vfmin(-1,-2)", 6, 0xBF800000, 0xC0000000, ALL(0xC0000000)},
    {"vfmax(-0,+0)", 5, 0x80000000, 0, ALL(0)},
    {"vfmin(-0,+0)", 6, 0x80000000, 0, ALL(0x80000000)},
    {"vfmax(NaN,-3)", 5, 0x7FC00000, 0xC0400000, ALL(0)},
    {"vfmin(+inf,5)", 6, 0x7F800000, 0x40A00000, ALL(0)},
    {"vfmax(-inf,-5)", 5, 0xFF800000, 0xC0A00000, ALL(0x80000000)},
    {"vfmax(sub,1)", 5, 0x00000001, 0x3F800000, ALL(0x3F800000)},
    /* pure sign-bit operations: no sanitising */
    {"vfneg NaN", 3, 0x7FC00001, 0, ALL(0xFFC00001)},
    {"vfneg -0", 3, 0x80000000, 0, ALL(0)},
    {"vfabs -inf", 4, 0xFF800000, 0, ALL(0x7F800000)},
    {"vfabs -sub", 4, 0x80000001, 0, ALL(0x00000001)},
};

static void fp_cases(void)
{
    for (size_t i = 0; i < sizeof fps / sizeof fps[0]; i++) {
        for (unsigned rnd = 0; rnd < 4; rnd++) {
            uint32_t got = fp1(enc_fp(fps[i].f3, rnd, 4, 1, 2), fps[i].a, fps[i].b, 0);
            NPK_REPORT(got == fps[i].want[rnd], "fp %s rnd %u: 0x%08x, want 0x%08x\n",
                       fps[i].name, rnd, got, fps[i].want[rnd]);
        }
    }
    /* FP ignores funct7.width and dtype (other than 11): width = VX, dtype = INT */
    NPK_CHECK_EQ_U64(fp1(enc_r(OP_FP, 0, 0, 4, 1, 2), 0x3F800000, 0x3F800000, 0), 0x40000000);

    /* §5.9: fused, one rounding; a = 1 + 2^-23, b = 1 - 2^-23, c = -1 gives -2^-46 */
    static const struct {
        const char *name;
        unsigned f3;
        uint32_t a, b, c;
        uint32_t want[4];
    } fma[] = {
        {"vfma example", 0, 0x3F800001, 0x3F7FFFFE, 0xBF800000, ALL(0xA8800000)},
        {"vfms", 1, 0x3F800001, 0x3F7FFFFE, 0x3F800000, ALL(0xA8800000)},
        {"vnfma", 2, 0x3F800001, 0x3F7FFFFE, 0x3F800000, ALL(0x28800000)},
        {"vnfms", 3, 0x3F800001, 0x3F7FFFFE, 0xBF800000, ALL(0x28800000)},
        /* exact zeros: 1*1 + -1 is +0, or -0 with floor */
        {"vfma zero", 0, 0x3F800000, 0x3F800000, 0xBF800000, {0, 0, 0x80000000, 0}},
        {"vnfms zero", 3, 0x3F800000, 0x3F800000, 0xBF800000, {0, 0, 0x80000000, 0}},
        {"vfma -0*1 + -0", 0, 0x80000000, 0x3F800000, 0x80000000, ALL(0x80000000)},
        {"vnfma 0*1 + -0", 2, 0, 0x3F800000, 0x80000000, ALL(0x80000000)},
        /* one rounding with rnd: 1*1 + 2^-24 is a tie (RNE to 1.0) */
        {"vfma tie", 0, 0x3F800000, 0x3F800000, 0x33800000, {0x3F800000, 0x3F800000, 0x3F800000, 0x3F800001}},
        /* sanitised: inf*0 + 1 = 1; NaN*NaN + 2 = 2; subnormal addend is 0 */
        {"vfma inf", 0, 0x7F800000, 0, 0x3F800000, ALL(0x3F800000)},
        {"vfma nan", 0, 0x7FC00000, 0x7FC00000, 0x40000000, ALL(0x40000000)},
        {"vfma sub", 0, 0x3F800000, 0x00000000, 0x00000001, ALL(0)},
        /* saturation and flush after the single rounding */
        {"vfma max", 0, 0x7F7FFFFF, 0x40000000, 0x7F7FFFFF, ALL(0x7F7FFFFF)},
        {"vnfma max", 2, 0x7F7FFFFF, 0x40000000, 0, ALL(0xFF7FFFFF)},
        {"vfma flush", 0, 0x1F800000, 0x20000000, 0, ALL(0)},
        /* 2^-126 (1 - 2^-46) as a product plus 0: as vfmul above */
        {"vfma round-up", 0, 0x3F7FFFFE, 0x00800001, 0, {0x00800000, 0, 0, 0x00800000}},
    };
    for (size_t i = 0; i < sizeof fma / sizeof fma[0]; i++)
        for (unsigned rnd = 0; rnd < 4; rnd++) {
            uint32_t got = fp1(enc_s(fma[i].f3, 4, 1, 2, 3, rnd), fma[i].a, fma[i].b, fma[i].c);
            NPK_REPORT(got == fma[i].want[rnd], "%s rnd %u: 0x%08x, want 0x%08x\n",
                       fma[i].name, rnd, got, fma[i].want[rnd]);
        }
    /* S format: bits [31:27] are rs3, never an attribute (rs3 = 31 masks to VR7) */
    uint32_t w = enc_s(0, 4, 1, 2, 31, RNE);
    npk_machine *m = mk_prog("opennpu:K=4", &w, 1);
    set_lane(m, VR, 1, 0, 0x40000000);
    set_lane(m, VR, 2, 0, 0x40400000);
    set_lane(m, VR, 7, 0, 0x3F800000);
    npk_stop st;
    npk_run(m, 0, &st);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(get_lane(m, VR, 4, 0), 0x40E00000); /* 2*3 + 1 = 7 */
    npk_destroy(m);
}

int main(void)
{
    cvt_cases();
    fp_cases();
    return npk_test_done();
}
