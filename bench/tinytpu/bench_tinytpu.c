/* tinytpu simulation speed: simulated clock cycles per second of the cycle-exact datapath on
 * the fast path (no observers), for training programs made by the schedule compiler.
 * N = 2: XOR (examples/tinytpu/xor/xor_train.net: 100 steps of forward, loss, backward and SGD
 * passes), side by side with the compiler's own Q8.8 model computing the same numbers in plain
 * C (the reference: what the simulation costs over just computing the results); goal at least
 * 50 M cycles/s. N = 16 and 32: a 2-layer N-N-N network on a batch of N rows, generated here
 * (fixed seed), run with the PE rows as vectors (the default) and side by side PE by PE
 * (vector=0, the reference), in PE updates per second (N^2 per cycle); goal at least 2 G.
 * Best of N by CPU time; every simulated UB must equal the prediction.
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
#define GOAL_GPE 2.0 /* G PE updates/s at N = 16 and 32 */

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

/* An N-N-N network (2 layers) on a batch of N rows: small random Q8.8 values, fixed seed. */
static char *gen_net(unsigned N, unsigned steps, unsigned ub_words)
{
    size_t cap = (size_t)(3 * N + 4) * N * 12 + 256, n = 0;
    char *b = malloc(cap);
    if (!b)
        return NULL;
    uint64_t x = 0x9E3779B97F4A7C15u * N;
#define RND(range) (x = x * 6364136223846793005u + 1442695040888963407u,                        \
                    (int)((x >> 33) % (2 * (range) + 1)) - (range))
    n += (size_t)snprintf(b + n, cap - n,
                          "lanes %u\nub_words %u\nlayers %u %u %u\nalpha 0.125\nlr 0.0625\n"
                          "steps %u\n", N, ub_words, N, N, N, steps);
    static const char *const kind[] = {"x", "y", "w1", "b1", "w2", "b2"};
    static const unsigned rows_of[] = {0, 0, 0, 1, 0, 1}; /* 0: N rows */
    for (unsigned k = 0; k < 6; k++)
        for (unsigned r = 0; r < (rows_of[k] ? rows_of[k] : N); r++) {
            n += (size_t)snprintf(b + n, cap - n, "%s", kind[k]);
            for (unsigned c = 0; c < N; c++)
                n += (size_t)snprintf(b + n, cap - n, " 0x%04X",
                                      (unsigned)RND(k < 2 ? 128 : 64) & 0xFFFFu);
            n += (size_t)snprintf(b + n, cap - n, "\n");
        }
#undef RND
    return b;
}

static int bench_sim(const tt_net *net, const tt_compiled *c, const char *extra, unsigned runs,
                     double *best, size_t *bad)
{
    char spec[160], err[512];
    snprintf(spec, sizeof spec, "tinytpu:lanes=%u,ub_words=%u,lr=0x%04X%s", net->N,
             net->ub_words, c->lr, extra);
    npk_machine *m = NULL;
    if (npk_create(&m, spec, NULL, err, sizeof err) != NPK_OK ||
        tt_load_program(m, &c->prog) != NPK_OK) {
        fprintf(stderr, "bench_tinytpu: %s\n", m ? npk_error(m) : err);
        npk_destroy(m);
        return 1;
    }
    *best = 1e30;
    for (unsigned r = 0; r < runs; r++) {
        npk_stop stop;
        npk_reset(m);
        double t0 = cpu_s();
        npk_run(m, 0, &stop);
        double t1 = cpu_s();
        if (stop.reason != NPK_STOP_EXIT) {
            fprintf(stderr, "bench_tinytpu: %s\n", stop.message);
            npk_destroy(m);
            return 1;
        }
        *best = t1 - t0 < *best ? t1 - t0 : *best;
    }
    /* correctness: the simulated UB equals the prediction */
    *bad = 0;
    for (unsigned a = 0; a < c->words; a++) {
        uint8_t b[2];
        npk_mem_read(m, "ub", 2ull * a, b, 2);
        *bad += (uint16_t)(b[0] | b[1] << 8) != c->pred[a];
    }
    npk_destroy(m);
    return 0;
}

static int parse_compile(const char *src, const char *name, tt_net *net, tt_compiled *c)
{
    char err[512];
    if (tt_net_parse(src, name, net, err, sizeof err) || tt_compile(net, c, err, sizeof err)) {
        fprintf(stderr, "bench_tinytpu: %s\n", err);
        return 1;
    }
    return 0;
}

/* N = 16 or 32: the vector rows against PE by PE, in G PE updates per second. */
static int bench_wide(unsigned N, unsigned steps, unsigned ub_words, unsigned runs)
{
    char *src = gen_net(N, steps, ub_words), name[32];
    snprintf(name, sizeof name, "generated N=%u", N);
    tt_net net;
    tt_compiled c;
    if (!src || parse_compile(src, name, &net, &c)) {
        free(src);
        return 1;
    }
    double t_vec, t_ref;
    size_t bad_vec = 0, bad_ref = 0;
    int rc = bench_sim(&net, &c, "", runs, &t_vec, &bad_vec) ||
             bench_sim(&net, &c, ",vector=0", runs, &t_ref, &bad_ref);
    if (!rc) {
        double pe = (double)c.cycles * N * N;
        double g_vec = pe / t_vec / 1e9, g_ref = pe / t_ref / 1e9;
        printf("tinytpu N=%u, %s-%u-%u network, batch %u: %u training steps, %zu cycles\n", N,
               name, N, N, N, net.steps, c.cycles);
        printf("  PE rows as vectors:      %8.2f ms  %6.2f G PE updates/s (%5.2f M cycles/s)   "
               "goal %.0f G: %s\n", t_vec * 1e3, g_vec, g_vec * 1e3 / (N * N), GOAL_GPE,
               g_vec >= GOAL_GPE ? "met" : "NOT met");
        printf("  PE by PE (vector=0):     %8.2f ms  %6.2f G PE updates/s: vectors %.2fx faster\n",
               t_ref * 1e3, g_ref, t_ref / t_vec);
        printf("  results: %s\n", bad_vec || bad_ref ? "DIFFER from the prediction"
                                                      : "UB equals the prediction (both)");
        rc = bad_vec || bad_ref;
    }
    tt_compiled_free(&c);
    tt_net_free(&net);
    free(src);
    return rc;
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
    if (parse_compile(src, path, &net, &c))
        return 1;
    npk_bench_machine();
    double best_sim = 1e30, best_ref = 1e30;
    size_t bad = 0;
    for (unsigned r = 0; r < runs; r++) { /* alternating with the reference */
        double t;
        if (bench_sim(&net, &c, "", 1, &t, &bad))
            return 1;
        best_sim = t < best_sim ? t : best_sim;
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
    double mcs = (double)c.cycles / best_sim / 1e6;
    printf("tinytpu N=%u, %s: %u training steps, %zu cycles (%zu per step), %u UB words\n", net.N,
           path, net.steps, c.cycles, c.step_cycles, c.words);
    printf("  simulator (fast path):   %8.2f ms  %6.1f M cycles/s (%.2f G PE updates/s)   goal "
           "%.0f M cycles/s: %s\n", best_sim * 1e3, mcs, mcs * net.N * net.N / 1e3, GOAL_MCYCLES,
           mcs >= GOAL_MCYCLES ? "met" : "NOT met");
    printf("  compiler's C model:      %8.2f ms  (same numbers, no cycles): simulation costs "
           "%.1fx\n", best_ref * 1e3, best_sim / best_ref);
    printf("  results: %s\n", bad ? "DIFFER from the prediction" : "UB equals the prediction");
    tt_compiled_free(&c);
    tt_net_free(&net);
    free(src);
    /* the wide arrays: 20 steps at N = 16 (8,144 cycles), 8 at N = 32 (6,460) */
    int rc = bad != 0;
    rc |= bench_wide(16, 20, 32768, runs);
    rc |= bench_wide(32, 8, 65536, runs);
    return rc;
}
