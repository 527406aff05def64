/* Throughput of src/num's binary32 add, mul and fma against the host's native float +, * and
 * fmaf on the same operands in the same run. Prints Mop/s and the ratio, plus the machine.
 * Usage: bench_num [--quick] */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_machine.h"
#include "num/num.h"

#define N 4096 /* operand sets, reused; small enough to stay in cache */

static uint32_t A[N], B[N], C[N];
static float FA[N], FB[N], FC[N];

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Varied operands: random signs, exponents over a wide but overflow-free range, random
 * significands, with a few zeros and subnormals mixed in. */
static void make_operands(void)
{
    uint64_t s = 0x1234567;
    int i;
    for (i = 0; i < N; i++) {
        uint32_t v[3];
        int k;
        for (k = 0; k < 3; k++) {
            s = s * 6364136223846793005u + 1442695040888963407u;
            v[k] = (uint32_t)(s >> 32);
            v[k] = (v[k] & 0x807FFFFFu) | ((uint32_t)(90 + (v[k] >> 23) % 75) << 23);
            if ((s >> 20) % 64 == 0)
                v[k] &= 0x807FFFFFu; /* subnormal or zero */
        }
        A[i] = v[0];
        B[i] = v[1];
        C[i] = v[2];
        memcpy(&FA[i], &A[i], 4);
        memcpy(&FB[i], &B[i], 4);
        memcpy(&FC[i], &C[i], 4);
    }
}

typedef uint32_t (*runner)(long reps);

/* One timed kernel per operation: npukit's soft-float (flags folded into the checksum so
 * they are computed) and the native float operation on the same data. */
#define NPK_KERNEL(name, expr)                                                                \
    static uint32_t run_npk_##name(long reps)                                                 \
    {                                                                                         \
        npk_fenv e;                                                                           \
        uint32_t sum = 0;                                                                     \
        npk_fenv_init(&e, NPK_RM_RNE);                                                        \
        for (long r = 0; r < reps; r++)                                                       \
            for (int i = 0; i < N; i++)                                                       \
                sum += (expr);                                                                \
        return sum + e.flags;                                                                 \
    }
#define NATIVE_KERNEL(name, expr)                                                             \
    static uint32_t run_nat_##name(long reps)                                                 \
    {                                                                                         \
        uint32_t sum = 0;                                                                     \
        for (long r = 0; r < reps; r++)                                                       \
            for (int i = 0; i < N; i++)                                                       \
                sum += bits(expr);                                                            \
        return sum;                                                                           \
    }
NPK_KERNEL(add, npk_f32_add(A[i], B[i], &e))
NPK_KERNEL(mul, npk_f32_mul(A[i], B[i], &e))
NPK_KERNEL(fma, npk_f32_fma(A[i], B[i], C[i], &e))
NATIVE_KERNEL(add, FA[i] + FB[i])
NATIVE_KERNEL(mul, FA[i] * FB[i])
NATIVE_KERNEL(fma, fmaf(FA[i], FB[i], FC[i]))

/* Mop/s of f, timed over at least `budget` seconds; the checksum goes to *check. */
static double measure(runner f, double budget, uint32_t *check)
{
    long reps = 1;
    double t0, t;
    *check = f(1); /* warm up */
    for (;;) {
        t0 = now();
        *check += f(reps);
        t = now() - t0;
        if (t >= budget)
            break;
        reps *= t > budget / 10 ? 2 : 8;
    }
    return (double)reps * N / t / 1e6;
}

/* Native float arithmetic rounds to nearest even here, so both must agree bit for bit. */
static int results_differ(void)
{
    npk_fenv e;
    int i, bad = 0;
    npk_fenv_init(&e, NPK_RM_RNE);
    for (i = 0; i < N; i++) {
        bad |= npk_f32_add(A[i], B[i], &e) != bits(FA[i] + FB[i]);
        bad |= npk_f32_mul(A[i], B[i], &e) != bits(FA[i] * FB[i]);
        bad |= npk_f32_fma(A[i], B[i], C[i], &e) != bits(fmaf(FA[i], FB[i], FC[i]));
    }
    return bad;
}

static volatile uint32_t sink;

int main(int argc, char **argv)
{
    static const struct { const char *name; runner npk, nat; } ops[] = {
        {"add", run_npk_add, run_nat_add},
        {"mul", run_npk_mul, run_nat_mul},
        {"fma", run_npk_fma, run_nat_fma},
    };
    double budget = 0.25;
    unsigned i;
    int mismatch = 0;
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: bench_num [--quick]\n\nsrc/num's binary32 add, multiply and fused "
               "multiply-add against the host's native\noperations, on the same operands "
               "(--quick: shorter samples).\n");
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--quick") == 0)
        budget = 0.03;
    make_operands();
    for (i = 0; i < 3; i++) {
        uint32_t c1, c2;
        double m1 = measure(ops[i].npk, budget, &c1);
        double m2 = measure(ops[i].nat, budget, &c2);
        sink = c1 ^ c2; /* keeps both loops from being optimised away */
        printf("%s: npukit %.1f Mop/s, native %.1f Mop/s, ratio %.3f\n", ops[i].name, m1, m2,
               m1 / m2);
    }
    mismatch = results_differ();
    printf("results: %s\n", mismatch ? "npukit and native DIFFER on some operands"
                                       : "npukit bit-identical to native on all operands");
    npk_bench_machine();
    return mismatch ? 1 : 0;
}
