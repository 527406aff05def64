/* `npukit demo`: run each target's built-in showcase program (embedded from examples/) and
 * show what ran, its output, and the statistics a user would want. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"

extern const char npk_demo_toy_src[];

typedef struct demo {
    const char *target;     /* name shown and matched on the command line */
    const char *spec;       /* machine spec */
    const char *file;       /* where the source lives in the repository */
    const char *what;
    const char *source;
    const char *expect;     /* the program's exact output */
} demo;

static const demo demos[] = {
    {"toy", "toy:mem=256K", "examples/toy/demo.s",
     "sieve of Eratosthenes below 50000, 8 times, then the prime count", npk_demo_toy_src,
     "5133\n"},
};

#define N_DEMOS (sizeof demos / sizeof demos[0])

static void help(void)
{
    printf("usage: npukit demo [TARGET...]\n"
           "\n"
           "Run the built-in showcase program of each target (or of the named targets):\n"
           "the program's own output, then retired instructions, cycles, the instruction\n"
           "mix, unit utilisation and the simulator's host speed.\n"
           "\n"
           "demos:\n");
    for (size_t i = 0; i < N_DEMOS; i++)
        printf("  %-8s %s (%s)\n", demos[i].target, demos[i].what, demos[i].file);
    printf("\noptions:\n  -h, --help  this help\n\nexit status: 0 every demo ran as "
           "expected, 1 a demo failed, 2 usage error\n");
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Top mnemonics by count, as "name pct%, ...". */
static void print_mix(const npk_stats *s)
{
    printf("  mix:");
    int shown = 0;
    uint64_t prev = UINT64_MAX;
    while (shown < 6) {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < s->n_mnemonics; i++)
            if (s->count[i] && s->count[i] < prev &&
                (best == SIZE_MAX || s->count[i] > s->count[best]))
                best = i;
        if (best == SIZE_MAX)
            break;
        for (size_t i = 0; i < s->n_mnemonics && shown < 6; i++)
            if (s->count[i] == s->count[best]) {
                printf("%s %s %.1f%%", shown ? "," : "", s->mnemonic[i],
                       100.0 * (double)s->count[i] / (double)s->insns);
                shown++;
            }
        prev = s->count[best];
    }
    printf("\n");
}

static int run_demo(const demo *d)
{
    printf("== %s: %s\n   (%s, machine %s)\n", d->target, d->what, d->file, d->spec);
    fflush(stdout);
    npk_machine *m = npk_cli_machine("npukit demo", d->spec, NULL);
    if (!m)
        return 1;
    int rc = 1;
    npk_stop stop;
    if (npk_load_asm(m, d->source, d->file, stderr) != NPK_OK) {
        fprintf(stderr, "npukit demo: %s\n", npk_error(m));
        goto out;
    }
    npk_stats_enable(m, 1);
    FILE *cap = tmpfile();
    if (!cap) {
        fprintf(stderr, "npukit demo: cannot create a temporary file\n");
        goto out;
    }
    npk_set_output(m, cap, stderr);
    npk_status st = npk_run(m, 0, &stop);
    /* show the program's output as it printed it, then check it */
    char got[4096];
    size_t n = 0;
    rewind(cap);
    n = fread(got, 1, sizeof got - 1, cap);
    got[n] = '\0';
    fclose(cap);
    fputs(got, stdout);
    if (st != NPK_OK || stop.reason != NPK_STOP_EXIT) {
        fprintf(stderr, "npukit demo: %s: %s\n", d->target,
                stop.message[0] ? stop.message : npk_error(m));
        goto out;
    }
    if (strcmp(got, d->expect) != 0) {
        fprintf(stderr, "npukit demo: %s: unexpected output (expected \"%s\")\n", d->target,
                d->expect);
        goto out;
    }
    npk_stats s;
    npk_stats_get(m, &s);
    printf("  exit status %lld; %llu instructions retired in %llu cycles (CPI %.2f)\n",
           (long long)stop.exit_code, (unsigned long long)s.insns,
           (unsigned long long)s.cycles, s.insns ? (double)s.cycles / (double)s.insns : 0.0);
    print_mix(&s);
    printf("  unit busy:");
    for (size_t i = 0; i < s.n_units; i++)
        printf("%s %s %.0f%%", i ? "," : "", s.unit[i],
               s.cycles ? 100.0 * (double)s.busy[i] / (double)s.cycles : 0.0);
    printf("\n ");
    for (size_t i = 0; i < s.n_extra; i++)
        printf(" %s %llu%s", s.extra_name[i], (unsigned long long)s.extra[i],
               i + 1 < s.n_extra ? "," : "\n");

    /* host speed: the same program again on the fast path (no observers, output discarded) */
    FILE *null = fopen("/dev/null", "w");
    npk_stats_enable(m, 0);
    npk_set_output(m, null, null);
    if (npk_load_asm(m, d->source, d->file, stderr) == NPK_OK) {
        double t0 = now();
        npk_run(m, 0, &stop);
        double dt = now() - t0;
        if (dt > 0)
            printf("  host speed: %.0f MIPS on the fast path (%.3f s)\n",
                   (double)s.insns / dt / 1e6, dt);
    }
    if (null)
        fclose(null);
    printf("  output as expected\n");
    rc = 0;
out:
    npk_destroy(m);
    printf("\n");
    return rc;
}

int npk_cmd_demo(int argc, char **argv)
{
    int failed = 0, ran = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            help();
            return NPK_EXIT_OK;
        }
        if (argv[i][0] == '-')
            return npk_usage_error("npukit demo", "unknown option '%s'", argv[i]);
        size_t k;
        for (k = 0; k < N_DEMOS; k++)
            if (strcmp(argv[i], demos[k].target) == 0)
                break;
        if (k == N_DEMOS)
            return npk_usage_error("npukit demo", "no demo for '%s'", argv[i]);
    }
    for (size_t k = 0; k < N_DEMOS; k++) {
        int wanted = argc < 2;
        for (int i = 1; i < argc; i++)
            wanted |= strcmp(argv[i], demos[k].target) == 0;
        if (!wanted)
            continue;
        failed += run_demo(&demos[k]);
        ran++;
    }
    printf("npukit demo: %d of %d demos ran as expected\n", ran - failed, ran);
    return failed ? NPK_EXIT_INPUT : NPK_EXIT_OK;
}
