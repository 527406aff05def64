/* bench_commit: rvnpu (and toy) instructions/s with a commit callback that does nothing
 * (npk_on_commit), also with statistics on, next to the fast path (no observers) and to the
 * commit log written to /dev/null, in the same command. Prints M instructions/s and the ratio
 * to the fast path; the issue-15 goal is >= 150 M instr/s with the no-op callback on rvnpu
 * (docs/commit-log.md, "Cost"). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_loops.h"
#include "bench_machine.h"
#include "npukit/npukit.h"

enum { FAST, STATS, CALLBACK, CALLBACK_STATS, LOG, N_MODES };
static const char *const mode_names[N_MODES] = {"fast path", "statistics", "no-op callback",
                                                "callback+stats", "log /dev/null"};

static void nothing(npk_machine *m, const npk_commit *c, void *ctx)
{
    (void)m;
    ++*(uint64_t *)ctx; /* counted, so that the calls are seen to happen */
    (void)c;
}

/* Seconds for n instructions in one npk_run in the given mode; -1 on a failure. */
static double timed(const char *target, uint64_t n, int mode)
{
    npk_machine *m;
    char err[256];
    if (npk_create(&m, target, NULL, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "bench_commit: %s\n", err);
        return -1;
    }
    npk_status st = strcmp(target, "toy") == 0
                        ? npk_load_raw(m, toy_loop, sizeof toy_loop, 0)
                        : npk_load_asm(m, rv_loop, "bench_commit.s", stderr);
    uint64_t calls = 0;
    FILE *null = NULL;
    if (st == NPK_OK && (mode == STATS || mode == CALLBACK_STATS)) /* STATS: the observed
                                                                       loop, for scale */
        st = npk_stats_enable(m, 1);
    if (st == NPK_OK && (mode == CALLBACK || mode == CALLBACK_STATS))
        st = npk_on_commit(m, nothing, &calls);
    if (st == NPK_OK && mode == LOG) {
        null = fopen("/dev/null", "w");
        st = null ? npk_commit_log(m, null, NPK_COMMIT_TEXT) : NPK_ERR_IO;
    }
    npk_stop stop;
    double t0 = now(), t = -1;
    if (st == NPK_OK && npk_run(m, n, &stop) == NPK_OK && stop.reason == NPK_STOP_BUDGET)
        t = now() - t0;
    else
        fprintf(stderr, "bench_commit: %s: %s\n", target, npk_error(m));
    if ((mode == CALLBACK || mode == CALLBACK_STATS) && calls != n) {
        fprintf(stderr, "bench_commit: %s: %llu callbacks for %llu instructions\n", target,
                (unsigned long long)calls, (unsigned long long)n);
        t = -1;
    }
    if (null) {
        npk_commit_log(m, NULL, NPK_COMMIT_TEXT);
        fclose(null);
    }
    npk_destroy(m);
    return t;
}

int main(int argc, char **argv)
{
    uint64_t n;
    unsigned runs;
    int quit = bench_loops_args(argc, argv,
                                "usage: bench_commit [--insns N] [--runs R]\n"
                       "N instructions (default 20000000) by npk_run on the fast path, with\n"
                       "statistics (the observed loop), with a no-op commit callback (also with\n"
                       "statistics) and with the text commit log to /dev/null (N / 10), best of R\n"
                       "runs (default 3), on rvnpu and toy.\n",
                                &n, &runs);
    if (quit >= 0)
        return quit;
    if (n < 10 || runs == 0) {
        fprintf(stderr, "bench_commit: --insns must be at least 10 and --runs positive\n");
        return 2;
    }
    npk_bench_machine();
    printf("%-7s %-16s %12s %12s %10s\n", "target", "mode", "insns", "M insn/s", "vs fast");
    static const char *const targets[] = {"rvnpu", "toy"};
    double rv_callback = 0, rv_fast = 0;
    for (size_t k = 0; k < 2; k++) {
        double fast = 0;
        for (int mode = 0; mode < N_MODES; mode++) {
            uint64_t nm = mode == LOG ? n / 10 : n; /* formatting text is slow: fewer */
            double best = 0;
            for (unsigned r = 0; r < runs; r++) {
                double t = timed(targets[k], nm, mode);
                if (t < 0)
                    return 1;
                if (!best || t < best)
                    best = t;
            }
            double rate = (double)nm / best / 1e6;
            if (mode == FAST)
                fast = rate;
            if (k == 0 && mode == FAST)
                rv_fast = rate;
            if (k == 0 && mode == CALLBACK)
                rv_callback = rate;
            printf("%-7s %-16s %12llu %12.1f %10.3f\n", targets[k], mode_names[mode],
                   (unsigned long long)nm, rate, rate / fast);
        }
    }
    /* the goal is a rate on a quiet machine; the ratio is what survives a busy one */
    printf("rvnpu with a no-op commit callback: %.1f M instr/s, %.3f of the fast path; the "
           "issue-15 goal is 150 M instr/s (docs/commit-log.md, \"Cost\")\n",
           rv_callback, rv_callback / rv_fast);
    return 0;
}
