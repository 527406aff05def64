/* tinytpu simulation speed: simulated clock cycles per second of the cycle-exact datapath on
 * the fast path (no observers), for a training program made by the schedule compiler (XOR,
 * examples/tinytpu/xor/xor_train.net: 100 steps of forward, loss, backward and SGD passes), and
 * side by side the compiler's own Q8.8 model computing the same numbers in plain C (the
 * reference: what the simulation costs over just computing the results). Best of N by CPU
 * time; the simulated UB must equal the prediction. Goal: at least 50 M cycles/s at N = 2.
 * Usage: bench_tinytpu [--runs N] [NET_FILE] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_machine.h"
#include "npukit/npukit.h"
#include "targets/tinytpu/compile.h"
#include "targets/tinytpu/machine.h"

#ifndef BENCH_NET
#define BENCH_NET ""
#endif
#define GOAL_MCYCLES 50.0

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap + 1);
    while (b) {
        n += fread(b + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *nb = realloc(b, 2 * cap + 1);
        if (!nb)
            free(b);
        b = nb, cap *= 2;
    }
    fclose(f);
    if (b)
        b[n] = 0;
    return b;
}

int main(int argc, char **argv)
{
    unsigned runs = 5;
    const char *path = BENCH_NET;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: bench_tinytpu [--runs N] [NET_FILE]\n");
            return 0;
        } else
            path = argv[i];
    }
    if (runs < 1)
        runs = 1;
    char *src = slurp(path);
    if (!src) {
        fprintf(stderr, "bench_tinytpu: cannot read '%s'\n", path);
        return 2;
    }
    char err[512];
    tt_net net;
    tt_compiled c;
    if (tt_net_parse(src, path, &net, err, sizeof err) || tt_compile(&net, &c, err, sizeof err)) {
        fprintf(stderr, "bench_tinytpu: %s\n", err);
        return 1;
    }
    npk_bench_machine();
    char spec[128];
    snprintf(spec, sizeof spec, "tinytpu:lanes=%u,ub_words=%u,lr=0x%04X", net.N, net.ub_words,
             c.lr);
    npk_machine *m = NULL;
    if (npk_create(&m, spec, NULL, err, sizeof err) != NPK_OK ||
        tt_load_program(m, &c.prog) != NPK_OK) {
        fprintf(stderr, "bench_tinytpu: %s\n", m ? npk_error(m) : err);
        return 1;
    }
    double best_sim = 1e30, best_ref = 1e30;
    for (unsigned r = 0; r < runs; r++) {
        npk_stop stop;
        npk_reset(m);
        double t0 = cpu_s();
        npk_run(m, 0, &stop);
        double t1 = cpu_s();
        if (stop.reason != NPK_STOP_EXIT) {
            fprintf(stderr, "bench_tinytpu: %s\n", stop.message);
            return 1;
        }
        best_sim = t1 - t0 < best_sim ? t1 - t0 : best_sim;
        /* the reference: the compiler's Q8.8 model of the same steps (it also lays out the
         * program; that part is included, so the ratio favours the reference slightly less) */
        tt_compiled c2;
        double t2 = cpu_s();
        int rc = tt_compile(&net, &c2, err, sizeof err);
        double t3 = cpu_s();
        tt_compiled_free(&c2);
        if (rc)
            return 1;
        best_ref = t3 - t2 < best_ref ? t3 - t2 : best_ref;
    }
    /* correctness: the simulated UB equals the prediction */
    size_t bad = 0;
    for (unsigned a = 0; a < c.words; a++) {
        uint8_t b[2];
        npk_mem_read(m, "ub", 2ull * a, b, 2);
        bad += (uint16_t)(b[0] | b[1] << 8) != c.pred[a];
    }
    double mcs = (double)c.cycles / best_sim / 1e6;
    printf("tinytpu N=%u, %s: %u training steps, %zu cycles (%zu per step), %u UB words\n", net.N,
           path, net.steps, c.cycles, c.step_cycles, c.words);
    printf("  simulator (fast path):   %8.2f ms  %6.1f M cycles/s   goal %.0f: %s\n",
           best_sim * 1e3, mcs, GOAL_MCYCLES, mcs >= GOAL_MCYCLES ? "met" : "NOT met");
    printf("  compiler's C model:      %8.2f ms  (same numbers, no cycles): simulation costs "
           "%.1fx\n", best_ref * 1e3, best_sim / best_ref);
    printf("  results: %s\n", bad ? "DIFFER from the prediction" : "UB equals the prediction");
    npk_destroy(m);
    tt_compiled_free(&c);
    tt_net_free(&net);
    free(src);
    return bad != 0;
}
