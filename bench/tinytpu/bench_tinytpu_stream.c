/* tinytpu programs read from a file, end to end: `npukit run` on a port stream, process start
 * included (child CPU time, user + system), with the setting stream=1 (the file read as a
 * stream, constant memory) and side by side stream=0 (the file read whole, the same fast
 * reader); goal at least 20 M cycles/s at N = 2. The port streams are generated here from
 * examples/tinytpu/xor/xor_train.net: 1000 training steps (80,040 cycles, the program of
 * docs/performance.md), that program repeated to 10^6 cycles and to 10^7 cycles (580 MB, where
 * the process start is amortised). In the same command, as references: the text read in
 * process by the fast reader and by the assembler engine (every text went through the engine
 * before; not on the 10^7-cycle file), and the simulation alone with the program in memory.
 * Best of N runs (at most 3 on the 10^7-cycle file), alternating; the UB after a streamed and
 * an in-memory run must be equal.
 * Usage: bench_tinytpu_stream [--runs N] */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* wait4: a child's own CPU time */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_machine.h"
#include "core/file.h"
#include "npukit/npukit.h"
#include "targets/tinytpu/compile.h"
#include "targets/tinytpu/machine.h"

#ifndef BENCH_NET
#define BENCH_NET ""
#endif
#ifndef BENCH_NPUKIT
#define BENCH_NPUKIT "npukit"
#endif
#define GOAL_MCYCLES 20.0

extern char **environ;

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU time of one `npukit run -t SPEC PATH` (user + system), or -1 if it failed. (Its
 * ru_maxrss would include this process's peak, which a posix_spawn child starts from.) */
static double run_child(const char *spec, const char *path)
{
    char *argv[] = {"npukit", "run", "-t", (char *)spec, (char *)path, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, BENCH_NPUKIT, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return -1;
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* The UB after running the file in process with stream=s (malloc'ed), or NULL. */
static uint8_t *ub_after(const char *spec, int s, const char *path, uint64_t *n)
{
    char full[256], err[512];
    snprintf(full, sizeof full, "%s,stream=%d", spec, s);
    npk_machine *m = NULL;
    npk_stop stop;
    uint8_t *ub = NULL;
    if (npk_create(&m, full, NULL, err, sizeof err) == NPK_OK &&
        npk_load_file(m, path, NULL) == NPK_OK && npk_run(m, 0, &stop) == NPK_OK &&
        stop.reason == NPK_STOP_EXIT) {
        *n = 2ull * tt_state_of(m)->ub_words;
        if ((ub = malloc(*n)) != NULL && npk_mem_read(m, "ub", 0, ub, *n) != NPK_OK) {
            free(ub);
            ub = NULL;
        }
    }
    if (!ub)
        fprintf(stderr, "bench_tinytpu_stream: %s: %s\n", path, m ? npk_error(m) : err);
    npk_destroy(m);
    return ub;
}

/* reps copies of the program (the text one, `one`, of n bytes) as the file at path: its size, or
 * 0 if it cannot be written */
static size_t write_file(const char *path, const char *one, size_t n, size_t reps)
{
    FILE *f = fopen(path, "w");
    for (size_t r = 0; f && r < reps; r++)
        if (fwrite(one, 1, n, f) != n) {
            fclose(f);
            f = NULL;
        }
    if (!f || fclose(f)) {
        fprintf(stderr, "bench_tinytpu_stream: cannot write %s\n", path);
        return 0;
    }
    return n * reps;
}

/* The port stream of reps copies of the program at path: npukit run streamed and read whole,
 * the readers in process (when `readers`), the simulation alone; the goal said for a long file
 * (`long_file`; on a short one the process start weighs). */
static int bench_file(const char *what, const tt_net *net, tt_compiled *c, const char *one,
                      size_t one_n, size_t reps, const char *path, unsigned runs, int readers,
                      int long_file)
{
    const size_t bytes = write_file(path, one, one_n, reps);
    if (!bytes)
        return 1;
    const double cycles = (double)(reps * c->prog.n);
    char err[512];
    uint8_t *text = NULL;
    size_t text_n = 0;
    if (readers && npk_file_read(path, 0, &text, &text_n, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "bench_tinytpu_stream: %s\n", err);
        return 1;
    }
    char spec[160], spec1[192], spec0[192];
    snprintf(spec, sizeof spec, "tinytpu:lanes=%u,ub_words=%u,lr=0x%04X", net->N,
             net->ub_words, c->lr);
    snprintf(spec1, sizeof spec1, "%s,stream=1", spec);
    snprintf(spec0, sizeof spec0, "%s,stream=0", spec);
    /* the simulation alone: the program in memory, run to the end (reps runs of it) */
    npk_machine *m = NULL;
    if (npk_create(&m, spec, NULL, err, sizeof err) != NPK_OK ||
        tt_load_program(m, &c->prog) != NPK_OK) {
        fprintf(stderr, "bench_tinytpu_stream: %s\n", m ? npk_error(m) : err);
        npk_destroy(m);
        free(text);
        return 1;
    }
    double t1 = 1e30, t0 = 1e30, t_fast = 1e30, t_engine = 1e30, t_sim = 1e30;
    int failed = 0;
    for (unsigned r = 0; r < runs && !failed; r++) {
        double a = run_child(spec1, path), b = run_child(spec0, path);
        failed = a < 0 || b < 0;
        t1 = a < t1 ? a : t1;
        t0 = b < t0 ? b : t0;
        tt_program p;
        for (int eng = 0; eng < 2 && readers; eng++) {
            tt_program_init(&p, net->N);
            double s = cpu_s();
            int e = eng ? tt_read_words_engine((const char *)text, path, TT_FMT_PORT, net->N,
                                               c->lr, 0, &p, NULL)
                        : tt_read_words_max((const char *)text, path, TT_FMT_PORT, net->N,
                                            c->lr, 0, &p, NULL);
            double d = cpu_s() - s;
            failed |= e != 0 || p.n != reps * c->prog.n;
            if (eng)
                t_engine = d < t_engine ? d : t_engine;
            else
                t_fast = d < t_fast ? d : t_fast;
            tt_program_free(&p);
        }
        double s = cpu_s();
        for (size_t k = 0; k < reps && !failed; k++) {
            npk_stop stop;
            npk_reset(m);
            failed |= npk_run(m, 0, &stop) != NPK_OK || stop.reason != NPK_STOP_EXIT;
        }
        double d = cpu_s() - s;
        t_sim = d < t_sim ? d : t_sim;
    }
    npk_destroy(m);
    free(text);
    if (failed) {
        fprintf(stderr, "bench_tinytpu_stream: a run failed (%s)\n", path);
        return 1;
    }
    uint64_t n1 = 0, n0 = 0;
    uint8_t *u1 = ub_after(spec, 1, path, &n1), *u0 = ub_after(spec, 0, path, &n0);
    int same = u1 && u0 && n1 == n0 && memcmp(u1, u0, n1) == 0;
    free(u1);
    free(u0);
    const double m1 = cycles / t1 / 1e6;
    printf("tinytpu N=%u, %s: %.0f cycles, %.1f MB port stream\n", net->N, what, cycles,
           (double)bytes / 1e6);
    printf("  npukit run, stream=1 (end to end):  %8.2f ms  %6.1f M cycles/s   goal %.0f M "
           "cycles/s on a long file: %s\n", t1 * 1e3, m1, GOAL_MCYCLES,
           !long_file ? "(a short file)" : m1 >= GOAL_MCYCLES ? "met" : "NOT met");
    printf("  npukit run, stream=0 (read whole):  %8.2f ms  %6.1f M cycles/s   stream=1 takes "
           "%.2fx its time\n", t0 * 1e3, cycles / t0 / 1e6, t1 / t0);
    if (readers)
        printf("  reading the text in process:        fast reader %.2f ms (%.2f GB/s), the "
               "engine (the reader before) %.2f ms: %.1fx\n", t_fast * 1e3,
               (double)bytes / t_fast / 1e9, t_engine * 1e3, t_engine / t_fast);
    printf("  simulation alone (in memory):       %8.2f ms  %6.1f M cycles/s\n", t_sim * 1e3,
           cycles / t_sim / 1e6);
    printf("  results: %s\n", same ? "UB equal (stream=1 and stream=0)" : "UB DIFFER");
    return !same;
}

int main(int argc, char **argv)
{
    unsigned runs = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = (unsigned)atoi(argv[++i]);
        else {
            printf("usage: bench_tinytpu_stream [--runs N]\n");
            return strcmp(argv[i], "-h") && strcmp(argv[i], "--help") ? 2 : 0;
        }
    }
    if (runs < 1)
        runs = 1;
    char err[512];
    tt_net net;
    tt_compiled c;
    if (tt_net_read(BENCH_NET, &net, err, sizeof err)) {
        fprintf(stderr, "bench_tinytpu_stream: %s\n", err);
        return 1;
    }
    net.steps = 1000; /* 80,040 cycles; the UB holds 32 words a step */
    net.ub_words = 32768;
    if (tt_compile(&net, &c, err, sizeof err)) {
        fprintf(stderr, "bench_tinytpu_stream: %s\n", err);
        return 1;
    }
    char dir[] = "/tmp/npk_bench_streamXXXXXX", path[64];
    if (!mkdtemp(dir)) {
        perror("bench_tinytpu_stream: mkdtemp");
        return 1;
    }
    snprintf(path, sizeof path, "%s/xor.port", dir);
    npk_bench_machine();
    char *one = NULL;
    size_t one_n = 0;
    FILE *f = open_memstream(&one, &one_n);
    int rc = !f || tt_write_words(&c.prog, TT_FMT_PORT, f, err, sizeof err) != 0;
    if (f && fclose(f))
        rc = 1;
    if (rc)
        fprintf(stderr, "bench_tinytpu_stream: cannot write the port stream\n");
    if (!rc)
        rc = bench_file("XOR, 1000 training steps", &net, &c, one, one_n, 1, path, runs, 1, 0);
    if (!rc)
        rc = bench_file("the same program 12 times over", &net, &c, one, one_n, 12, path, runs,
                        1, 1);
    if (!rc)
        rc = bench_file("the same program 125 times over", &net, &c, one, one_n, 125, path,
                        runs < 3 ? runs : 3, 0, 1);
    free(one);
    unlink(path);
    rmdir(dir);
    tt_compiled_free(&c);
    tt_net_free(&net);
    return rc;
}
