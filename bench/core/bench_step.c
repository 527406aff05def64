/* bench_step: the cost of an embedding's npk_step loop (one call per instruction, observers
 * off) next to npk_run of the same program for the same number of instructions, in the same
 * command, on toy and rvnpu. Prints steps/s, run instructions/s and the ratio. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_loops.h"
#include "bench_machine.h"
#include "npukit/npukit.h"

static npk_machine *setup(const char *target)
{
    npk_machine *m;
    char err[256];
    if (npk_create(&m, target, NULL, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "bench_step: %s\n", err);
        return NULL;
    }
    npk_status st = strcmp(target, "toy") == 0
                        ? npk_load_raw(m, toy_loop, sizeof toy_loop, 0)
                        : npk_load_asm(m, rv_loop, "bench_step.s", stderr);
    if (st != NPK_OK) {
        fprintf(stderr, "bench_step: %s: %s\n", target, npk_error(m));
        npk_destroy(m);
        return NULL;
    }
    return m;
}

/* Seconds for n instructions: one npk_run, or n npk_step calls. -1 on an unexpected stop. */
static double timed(const char *target, uint64_t n, int stepping)
{
    npk_machine *m = setup(target);
    if (!m)
        return -1;
    npk_stop stop;
    double t0 = now(), t;
    if (stepping) {
        for (uint64_t i = 0; i < n; i++)
            if (npk_step(m, &stop) != NPK_OK || stop.reason != NPK_STOP_NONE) {
                fprintf(stderr, "bench_step: %s: step %llu stopped: %s\n", target,
                        (unsigned long long)i, stop.message);
                npk_destroy(m);
                return -1;
            }
    } else if (npk_run(m, n, &stop) != NPK_OK || stop.reason != NPK_STOP_BUDGET) {
        fprintf(stderr, "bench_step: %s: run stopped: %s\n", target, stop.message);
        npk_destroy(m);
        return -1;
    }
    t = now() - t0;
    npk_destroy(m);
    return t;
}

int main(int argc, char **argv)
{
    uint64_t n;
    unsigned runs;
    int quit = bench_loops_args(argc, argv,
                                "usage: bench_step [--insns N] [--runs R]\n"
                       "N instructions (default 20000000) by npk_run and by N npk_step calls, best\n"
                       "of R runs (default 3), on toy and rvnpu.\n",
                                &n, &runs);
    if (quit >= 0)
        return quit;
    if (n == 0 || runs == 0) {
        fprintf(stderr, "bench_step: --insns and --runs must be positive\n");
        return 2;
    }
    npk_bench_machine();
    printf("%-7s %12s %14s %14s %10s\n", "target", "insns", "run M insn/s", "step M/s",
           "step/run");
    static const char *const targets[] = {"toy", "rvnpu"};
    int rc = 0;
    for (size_t k = 0; k < 2; k++) {
        double best_run = 0, best_step = 0;
        for (unsigned r = 0; r < runs; r++) {
            double tr = timed(targets[k], n, 0), ts = timed(targets[k], n, 1);
            if (tr < 0 || ts < 0)
                return 1;
            if (!best_run || tr < best_run)
                best_run = tr;
            if (!best_step || ts < best_step)
                best_step = ts;
        }
        double run_rate = (double)n / best_run / 1e6, step_rate = (double)n / best_step / 1e6;
        printf("%-7s %12llu %14.1f %14.1f %10.3f\n", targets[k], (unsigned long long)n, run_rate,
               step_rate, step_rate / run_rate);
        if (step_rate < 20.0)
            rc = 1;
    }
    printf(rc ? "below the goal of 20 M steps/s (docs/performance.md)\n"
              : "goal of 20 M steps/s met\n");
    return 0;
}
