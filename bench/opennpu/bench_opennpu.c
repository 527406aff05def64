/* opennpu MMA-path speed: a GEMM program made by examples/opennpu/gemm (int8 A, B; int32 C;
 * tiled onto the 8 x 8 array of the test preset) runs on npukit's fast loop (no observers), and
 * a native int8 GEMM in C (the plain i-t-j loop with int32 sums, compiled with the project's
 * flags) computes the same product in the same command; the timed runs alternate, best of N.
 * Reported: multiply-accumulates per second of both, by CPU time (user + system of this
 * process) and wall clock, and the ratio simulator / native (goal: at least 0.30).
 * Both results are compared, so the benchmark also fails on a wrong answer.
 * Usage: bench_opennpu [--runs N] [M N K ...] (default: 256 256 256 and 64 64 64) */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gemm_run.h"
#include "gemm_run.h"
#include "bench_machine.h"

#define GOAL_RATIO 0.30

static double clock_s(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The native reference: what a C programmer writes for an int8 GEMM with int32 results. */
static void native_gemm(unsigned M, unsigned N, unsigned Kd, const int8_t *A, const int8_t *B,
                        int32_t *C)
{
    for (unsigned i = 0; i < M; i++) {
        int32_t *c = C + (size_t)i * N;
        memset(c, 0, sizeof *c * N);
        for (unsigned t = 0; t < Kd; t++) {
            int32_t a = A[(size_t)i * Kd + t];
            const int8_t *b = B + (size_t)t * N;
            for (unsigned j = 0; j < N; j++)
                c[j] += a * b[j];
        }
    }
}

int main(int argc, char **argv)
{
    unsigned runs = 5, shapes[16][3], ns = 0;
    int rc = npk_bench_shape_args(argc, argv, "bench_opennpu", "M N K", &runs, shapes, 16, &ns);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (!ns) {
        unsigned def[2][3] = {{256, 256, 256}, {64, 64, 64}};
        memcpy(shapes, def, sizeof def);
        ns = 2;
    }
    if (runs < 1)
        runs = 1;
    npk_bench_machine();
    printf("opennpu MMA path (test preset, K=8 L=32) vs native int8 GEMM in C; best of %u\n",
           runs);
    printf("%-14s %12s %12s %12s %12s %8s %8s\n", "shape", "sim insns", "sim GMAC/s",
           "native GMAC/s", "sim wall", "ratio", "(wall)");
    int fail = 0;
    for (unsigned s = 0; s < ns; s++) {
        unsigned M = shapes[s][0], N = shapes[s][1], Kd = shapes[s][2];
        char err[512];
        npk_opennpu_gemm_plan p;
        if (npk_opennpu_gemm_plan_make(&p, M, N, Kd, 8, 32, 0, err, sizeof err)) {
            fprintf(stderr, "bench_opennpu: %s\n", err);
            return 2;
        }
        int8_t *A = malloc((size_t)M * Kd), *B = malloc((size_t)Kd * N);
        int32_t *C = malloc(sizeof *C * M * N), *R = malloc(sizeof *R * M * N);
        uint8_t *img = malloc(p.end), *work = malloc(p.end);
        onpu_gemm_random(M, N, Kd, A, B, 88172645463325252ull);
        npk_opennpu_gemm_pack(&p, A, B, img);
        char *prog = npk_opennpu_gemm_program(&p, NULL);
        npk_machine *m = onpu_gemm_machine("opennpu", p.end, err, sizeof err);
        if (!prog || !m || npk_load_asm(m, prog, "gemm.s", stderr) != NPK_OK) {
            fprintf(stderr, "bench_opennpu: setup failed: %s\n", m ? npk_error(m) : err);
            return 1;
        }
        double best_sim = 1e30, best_sim_wall = 1e30, best_nat = 1e30, best_nat_wall = 1e30;
        uint64_t insns = 0;
        volatile int32_t sink = 0;
        for (unsigned r = 0; r < runs; r++) {
            npk_stop stop;
            npk_reset(m);
            npk_mem_write(m, "mem", 0, img, p.end);
            double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
            npk_run(m, 0, &stop);
            double c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w1 = clock_s(CLOCK_MONOTONIC);
            if (stop.reason != NPK_STOP_EXIT) {
                fprintf(stderr, "bench_opennpu: %s\n", stop.message);
                return 1;
            }
            if (c1 - c0 < best_sim)
                best_sim = c1 - c0;
            if (w1 - w0 < best_sim_wall)
                best_sim_wall = w1 - w0;
            double c2 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w2 = clock_s(CLOCK_MONOTONIC);
            native_gemm(M, N, Kd, A, B, R);
            double c3 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w3 = clock_s(CLOCK_MONOTONIC);
            sink += R[0];
            if (c3 - c2 < best_nat)
                best_nat = c3 - c2;
            if (w3 - w2 < best_nat_wall)
                best_nat_wall = w3 - w2;
        }
        npk_mem_read(m, "mem", 0, work, p.end);
        npk_opennpu_gemm_unpack_c(&p, work, C);
        int same = !memcmp(C, R, sizeof *C * M * N);
        npk_stats_enable(m, 1);
        {
            npk_stop stop;
            npk_stats st;
            npk_reset(m);
            npk_run(m, 0, &stop);
            npk_stats_get(m, &st);
            insns = st.insns;
        }
        double macs = (double)M * N * Kd;
        char shape[32];
        snprintf(shape, sizeof shape, "%ux%ux%u", M, N, Kd);
        double ratio = best_nat / best_sim, ratio_wall = best_nat_wall / best_sim_wall;
        printf("%-14s %12llu %12.2f %12.2f %10.2f ms %8.2f %8.2f%s\n", shape,
               (unsigned long long)insns, macs / best_sim * 1e-9, macs / best_nat * 1e-9,
               best_sim_wall * 1e3, ratio, ratio_wall, same ? "" : "  WRONG RESULT");
        printf("%-14s simulated %.0f M instructions/s\n", "",
               (double)insns / best_sim * 1e-6);
        fail |= !same;
        if (s == 0)
            printf("%-14s goal: ratio >= %.2f (%s)\n", "", GOAL_RATIO,
                   ratio >= GOAL_RATIO ? "met" : "NOT met");
        npk_destroy(m);
        free(prog), free(A), free(B), free(C), free(R), free(img), free(work);
        (void)sink;
    }
    return fail;
}
