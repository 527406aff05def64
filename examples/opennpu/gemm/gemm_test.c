/* ctest opennpu_gemm: generated GEMM programs against the host reference onpu_gemm_ref().
 *
 * For every machine shape (test preset K=8 L=32, where the drain rewrites the whole register
 * file; K=4 L=16, the same at K=4; K=4 L=32 and K=4 L=20, where registers survive the drain)
 * and a list of shapes (1x1x1, edges below and above multiples of K and of 4, N < K, M < K,
 * tall, wide, long), with seeded random int8 matrices that include -128 and 127:
 *   - C from the simulator equals the reference exactly;
 *   - no byte of data memory outside [base, end) changes (canaries on both sides);
 *   - the program assembles, runs to its end, and issues exactly the generator's instruction
 *     count; the tick count is at least the generator's lower bound.
 * Then the 256 x 256 x 256 case at K = 8 (issue 5): exact, and ticks within 10 % of the bound
 * derived in docs/opennpu.md (1.5 Kd + 2K - 1 ticks per tile). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_run.h"
#include "gemm_run.h"

static int failures;
#define CHECK(c, ...)                                                                          \
    do {                                                                                       \
        if (!(c)) {                                                                            \
            failures++;                                                                        \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                       \
            printf(__VA_ARGS__);                                                               \
            printf("\n");                                                                      \
        }                                                                                      \
    } while (0)

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}
static int8_t rnd8(void)
{
    uint32_t r = rnd() % 16;
    return r == 0 ? -128 : r == 1 ? 127 : (int8_t)(rnd() & 0xFF);
}

/* Returns ticks (0 on failure). */
static uint64_t one(const char *spec, unsigned K, unsigned L, unsigned M, unsigned N, unsigned Kd,
                    uint64_t base, double *ratio)
{
    char err[512];
    npk_opennpu_gemm_plan p;
    if (npk_opennpu_gemm_plan_make(&p, M, N, Kd, K, L, base, err, sizeof err)) {
        CHECK(0, "%s %ux%ux%u: plan: %s", spec, M, N, Kd, err);
        return 0;
    }
    int8_t *A = malloc((size_t)M * Kd), *B = malloc((size_t)Kd * N);
    int32_t *C = malloc(sizeof *C * M * N), *R = malloc(sizeof *R * M * N);
    for (size_t i = 0; i < (size_t)M * Kd; i++)
        A[i] = rnd8();
    for (size_t i = 0; i < (size_t)Kd * N; i++)
        B[i] = rnd8();
    const uint64_t guard = 256;
    uint64_t lo = base >= guard ? base - guard : 0;
    size_t span = (size_t)(p.end + guard - lo);
    uint8_t *img = malloc(span), *before = malloc(span);
    for (size_t i = 0; i < span; i++)
        img[i] = (uint8_t)(0xA5 ^ i);
    npk_opennpu_gemm_pack(&p, A, B, img + (base - lo));
    memcpy(before, img, span);
    npk_opennpu_gemm_counts cnt;
    char *prog = npk_opennpu_gemm_program(&p, &cnt);
    CHECK(prog != NULL, "program: out of memory");
    npk_machine *m = onpu_gemm_machine(spec, p.end + guard, err, sizeof err);
    CHECK(m != NULL, "%s: %s", spec, err);
    onpu_gemm_result res = {0};
    uint64_t ticks = 0;
    if (prog && m) {
        npk_opennpu_gemm_plan whole = p;
        whole.base = lo, whole.end = lo + span; /* write and read back the canaries too */
        /* the fast loop (no observers: fused feed pairs at K = 8) and the observed loop (ticks)
         * must leave the same memory */
        uint8_t *fast = malloc(span);
        memcpy(fast, img, span);
        onpu_gemm_result fres;
        int frc = onpu_gemm_run(m, &whole, prog, fast, 0, &fres, err, sizeof err);
        CHECK(frc == 0, "%s %ux%ux%u (fast loop): %s", spec, M, N, Kd, err);
        npk_reset(m);
        int rc = onpu_gemm_run(m, &whole, prog, img, 1, &res, err, sizeof err);
        CHECK(rc == 0, "%s %ux%ux%u: %s", spec, M, N, Kd, err);
        CHECK(frc != 0 || rc != 0 || !memcmp(fast, img, span),
              "%s %ux%ux%u: the fast and the observed loop leave different memory", spec, M, N,
              Kd);
        free(fast);
        if (rc == 0) {
            npk_opennpu_gemm_unpack_c(&p, img + (base - lo), C);
            onpu_gemm_ref(M, N, Kd, A, B, R);
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < (size_t)M * N; i++)
                if (C[i] != R[i] && bad++ == 0)
                    first = i;
            CHECK(bad == 0, "%s %ux%ux%u: %zu of %u results differ, first C[%zu][%zu] = %d, "
                  "expected %d", spec, M, N, Kd, bad, M * N, first / N, first % N, C[first],
                  R[first]);
            size_t c_end = (size_t)(p.c_addr + p.ldc * M - lo);
            size_t moved = 0;
            for (size_t i = 0; i < span; i++) {
                int in_c = i >= (size_t)(p.c_addr - lo) && i < c_end;
                int in_slack = i >= c_end && i < (size_t)(p.end - lo);
                if (!in_c && !in_slack && img[i] != before[i])
                    moved++;
            }
            CHECK(moved == 0, "%s %ux%ux%u: %zu bytes outside C changed", spec, M, N, Kd, moved);
            CHECK(res.insns == cnt.insns, "%s %ux%ux%u: %llu instructions run, %llu generated",
                  spec, M, N, Kd, (unsigned long long)res.insns, (unsigned long long)cnt.insns);
            CHECK(res.ticks >= cnt.bound, "%s %ux%ux%u: %llu ticks below the bound %llu", spec,
                  M, N, Kd, (unsigned long long)res.ticks, (unsigned long long)cnt.bound);
            CHECK(res.feeds == cnt.feeds, "feeds %llu vs %llu", (unsigned long long)res.feeds,
                  (unsigned long long)cnt.feeds);
            ticks = res.ticks;
            if (ratio)
                *ratio = (double)res.ticks / (double)cnt.bound;
        }
    }
    if (m)
        npk_destroy(m);
    free(prog), free(A), free(B), free(C), free(R), free(img), free(before);
    return ticks;
}

int main(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: onpu_gemm_test\n"
               "Generate, run and check GEMM programs for many shapes and four opennpu "
               "configurations,\nand 256x256x256 at K=8 within 10 %% of the tick bound "
               "(ctest opennpu_gemm).\n");
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "usage: onpu_gemm_test (no arguments; --help)\n");
        return 2;
    }
    static const struct { const char *spec; unsigned K, L; } cfgs[] = {
        {"opennpu", 8, 32}, {"opennpu:K=4,L=16", 4, 16}, {"opennpu:K=4,L=32", 4, 32},
        {"opennpu:K=4,L=20", 4, 20}};
    static const unsigned shapes[][3] = {
        {1, 1, 1},   {8, 8, 8},   {3, 5, 7},    {5, 3, 2},    {8, 1, 4},  {1, 8, 4},
        {9, 9, 9},   {16, 16, 4}, {17, 15, 13}, {7, 24, 6},   {24, 7, 5}, {33, 40, 64},
        {12, 3, 100}, {2, 30, 33}, {64, 64, 64}, {40, 600, 3}, {5, 1100, 2}};
    for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            one(cfgs[c].spec, cfgs[c].K, cfgs[c].L, shapes[s][0], shapes[s][1], shapes[s][2],
                s % 3 == 0 ? 0 : 40 + 4096 * s, NULL);
    /* Issue 5: 256^3 at K = 8 within 10 % of the best schedule. */
    double ratio = 0;
    uint64_t t = one("opennpu", 8, 32, 256, 256, 256, 0, &ratio);
    uint64_t bound = 1024ull * (256 + 128 + 8 + 7); /* 1.5 Kd + 2K - 1 per tile, 1024 tiles */
    printf("GEMM 256x256x256 at K=8: %llu ticks, bound %llu, ratio %.4f, MMA utilisation %llu "
           "per mille\n",
           (unsigned long long)t, (unsigned long long)bound, ratio,
           (unsigned long long)(t ? 256ull * 256 * 256 / 64 * 1000 / t : 0));
    CHECK(t >= bound && (double)t <= 1.10 * (double)bound,
          "256^3: %llu ticks, not within 10 %% of %llu", (unsigned long long)t,
          (unsigned long long)bound);
    if (failures)
        printf("%d failure(s)\n", failures);
    else
        printf("all GEMM checks passed\n");
    return failures != 0;
}
