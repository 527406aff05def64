/* rvnpu simulation speed: each benchmark firmware runs on npukit (once with statistics for the
 * retired-instruction count, then timed on the fast path with no observers) and under
 * qemu-riscv32 (Debian qemu-user) in the same command, the timed runs alternating; MIPS = that
 * count / time, both by wall clock and by CPU time (user + system: what the process itself
 * used, which other jobs on a shared machine disturb far less). The compute firmware is also
 * timed with statistics on (`npukit run --stats`), against its fast path (issue 18, goal 3);
 * its ratio to qemu is goal 4.
 * Usage: bench_rvnpu [--runs N] [COMPUTE.elf GEMM.elf GEMM_NPU.elf]   (default: the build's) */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* wait4 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "npukit/npukit.h"
#include "bench_machine.h"
#include "bench_run.h"

#ifndef BENCH_COMPUTE_ELF
#define BENCH_COMPUTE_ELF ""
#endif
#ifndef BENCH_GEMM_ELF
#define BENCH_GEMM_ELF ""
#endif
#ifndef BENCH_GEMM_NPU_ELF
#define BENCH_GEMM_NPU_ELF ""
#endif

#define GOAL_MIPS 600.0
#define GOAL_RATIO 0.4       /* issue 18, goal 4 */
#define GOAL_STATS 0.5       /* issue 18, goal 3: --stats at least half the fast path's speed */
#define QEMU "qemu-riscv32"

extern char **environ;

/* Run argv with stdout captured into *out (malloc'd). Returns the wall time from spawn to
 * exit, or -1 if the program could not run or exited non-zero; *cpu gets the child's user +
 * system time. */
static double spawn_run(char *const argv[], char **out, double *cpu)
{
    int fd[2];
    if (pipe(fd) != 0) {
        perror("pipe");
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addclose(&fa, fd[1]);
    pid_t pid;
    double t0 = now();
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    if (rc != 0) {
        fprintf(stderr, "%s: %s\n", argv[0], strerror(rc));
        close(fd[0]);
        return -1;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf)
            break;
        if (n + 1 == cap) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        ssize_t r = read(fd[0], buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd[0]);
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
    }
    double t1 = now();
    *cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    if (!buf)
        return -1;
    buf[n] = 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "%s %s: exited abnormally (status 0x%x)\n", argv[0],
                argv[1] ? argv[1] : "", (unsigned)status);
        free(buf);
        return -1;
    }
    *out = buf;
    return t1 - t0;
}

static int on_path(const char *prog)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    while (*path) {
        size_t len = strcspn(path, ":");
        char full[4096];
        if (len > 0 && len + strlen(prog) + 2 < sizeof full) {
            memcpy(full, path, len);
            full[len] = '/';
            strcpy(full + len + 1, prog);
            if (access(full, X_OK) == 0)
                return 1;
        }
        path += len;
        if (*path == ':')
            path++;
    }
    return 0;
}

typedef struct result {
    uint64_t insns;
    double npk_s, npk_cpu;   /* best npukit wall / CPU time */
    double stats_cpu;        /* best npukit CPU time with statistics on */
    double qemu_s, qemu_cpu; /* best qemu wall / CPU time, 0 when not measured */
    char *out;               /* guest stdout on npukit */
} result;

static void keep_best(double *best, double t)
{
    if (*best == 0 || t < *best)
        *best = t;
}

/* Count, check and time one firmware. Returns 0 when everything agreed. */
static int bench_one(const char *label, const char *path, int runs, int with_qemu,
                     int stats_too, result *r)
{
    unsigned char *elf;
    size_t elf_size;
    memset(r, 0, sizeof *r);
    if (!path[0] || read_file(path, &elf, &elf_size) != 0) {
        fprintf(stderr, "%s: cannot read firmware '%s' (build it with `make bench`; it needs the "
                        "Debian packages clang and lld)\n", label, path);
        return 1;
    }
    int bad = 0;
    double cpu;
    if (npukit_run(label, elf, elf_size, NULL, 0, 1, &r->out, &r->insns, &cpu) < 0) {
        bad = 1;
        goto done;
    }
    /* alternate npukit and qemu runs, so a change in the machine's load hits both */
    for (int i = 0; i < runs && !bad; i++) {
        char *out = NULL;
        uint64_t unused = 0;
        double t = npukit_run(label, elf, elf_size, NULL, 0, 0, &out, &unused, &cpu);
        if (t < 0) {
            bad = 1;
        } else if (strcmp(out, r->out) != 0) {
            fprintf(stderr, "%s: npukit output differs between runs\n", label);
            bad = 1;
        } else {
            keep_best(&r->npk_s, t);
            keep_best(&r->npk_cpu, cpu);
        }
        free(out);
        out = NULL;
        if (!bad && stats_too) { /* the same with statistics on (`npukit run --stats`) */
            if (npukit_run(label, elf, elf_size, NULL, 0, 1, &out, &unused, &cpu) < 0)
                bad = 1;
            else
                keep_best(&r->stats_cpu, cpu);
            free(out);
        }
        if (!with_qemu || bad)
            continue;
        char *argv[] = {QEMU, (char *)path, NULL};
        out = NULL;
        t = spawn_run(argv, &out, &cpu);
        if (t < 0) {
            bad = 1;
        } else if (strcmp(out, r->out) != 0) {
            fprintf(stderr, "%s: output differs:\n  npukit:       %s  qemu-riscv32: %s", label,
                    r->out, out);
            bad = 1;
        } else {
            keep_best(&r->qemu_s, t);
            keep_best(&r->qemu_cpu, cpu);
        }
        free(out);
    }
done:
    free(elf);
    return bad;
}

static double mips(const result *r, double s)
{
    return s > 0 ? (double)r->insns / s / 1e6 : 0;
}

static void print_line(const char *label, const result *r, int goal)
{
    printf("%s: %.1f M instructions\n", label, (double)r->insns / 1e6);
    printf("  wall: npukit %.0f MIPS", mips(r, r->npk_s));
    if (r->qemu_s > 0)
        printf(", %s %.0f MIPS, ratio %.2f", QEMU, mips(r, r->qemu_s), r->qemu_s / r->npk_s);
    printf("\n  CPU:  npukit %.0f MIPS", mips(r, r->npk_cpu));
    if (r->qemu_cpu > 0)
        printf(", %s %.0f MIPS, ratio %.2f", QEMU, mips(r, r->qemu_cpu),
               r->qemu_cpu / r->npk_cpu);
    if (goal)
        printf(" (goal >= %.0f MIPS and ratio >= %.2f)", GOAL_MIPS, GOAL_RATIO);
    printf("\n");
}

int main(int argc, char **argv)
{
    const char *paths[3] = {BENCH_COMPUTE_ELF, BENCH_GEMM_ELF, BENCH_GEMM_NPU_ELF};
    int runs = 3;
    int args = npk_bench_files_args(argc, argv, "COMPUTE.elf GEMM.elf GEMM_NPU.elf", &runs, paths, 3);
    if (args)
        return args < 0 ? 0 : args;

    int have_qemu = on_path(QEMU);
    npk_bench_machine();
    if (!have_qemu)
        printf("%s not found on PATH: npukit figures only (install the Debian package qemu-user)\n",
               QEMU);
    if (have_qemu) {
        char *vargv[] = {QEMU, "--version", NULL};
        char *ver = NULL;
        double unused;
        if (spawn_run(vargv, &ver, &unused) >= 0) {
            ver[strcspn(ver, "\n")] = 0;
            printf("reference: %s\n", ver);
            free(ver);
        }
    }
    printf("timing: best of %d runs each, npukit and qemu alternating; MIPS = npukit's retired "
           "count / time, by wall clock and by CPU time%s\n",
           runs, have_qemu ? " (qemu's times include its startup)" : "");
    char load[64];
    printf("load average before: %s\n", npk_bench_loadavg(load, sizeof load));
    fflush(stdout);

    result compute, gemm, npu;
    int bad = 0;
    bad |= bench_one("compute", paths[0], runs, have_qemu, 1, &compute);
    if (!bad)
        print_line("compute", &compute, 1);
    fflush(stdout);
    int bad_gemm = bench_one("gemm_i8", paths[1], runs, have_qemu, 0, &gemm);
    if (!bad_gemm)
        print_line("gemm_i8", &gemm, 0);
    fflush(stdout);
    int bad_npu = bench_one("gemm_i8_npu", paths[2], runs, 0, 0, &npu);
    if (!bad_npu && !bad_gemm) {
        if (strcmp(npu.out, gemm.out) != 0) {
            fprintf(stderr, "gemm_i8_npu: output differs from the plain GEMM:\n"
                            "  plain: %s  npu:   %s", gemm.out, npu.out);
            bad_npu = 1;
        } else {
            printf("gemm_i8_npu (NPU_VMAC, npukit only): %.2f M instructions, %.1fx fewer "
                   "than plain, same checksum\n  CPU: npukit %.0f MIPS, %.4f s vs %.4f s "
                   "plain: %.1fx less host time (goal >= 30x, docs/performance.md)\n",
                   (double)npu.insns / 1e6, (double)gemm.insns / (double)npu.insns,
                   mips(&npu, npu.npk_cpu), npu.npk_cpu, gemm.npk_cpu,
                   gemm.npk_cpu / npu.npk_cpu);
        }
    }
    bad |= bad_gemm | bad_npu;

    if (!bad && have_qemu) {
        double mw = mips(&compute, compute.npk_s), rw = compute.qemu_s / compute.npk_s;
        double mc = mips(&compute, compute.npk_cpu), rc = compute.qemu_cpu / compute.npk_cpu;
        printf("load average after: %s\n", npk_bench_loadavg(load, sizeof load));
        printf("goal (compute >= %.0f MIPS and >= %.2f of qemu), by CPU time: %s (%.0f MIPS, "
               "ratio %.2f); by wall clock: %s (%.0f MIPS, ratio %.2f)\n",
               GOAL_MIPS, GOAL_RATIO, mc >= GOAL_MIPS && rc >= GOAL_RATIO ? "met" : "NOT met", mc,
               rc, mw >= GOAL_MIPS && rw >= GOAL_RATIO ? "met" : "NOT met", mw, rw);
    }
    if (!bad && compute.stats_cpu > 0) {
        double rs = compute.npk_cpu / compute.stats_cpu;
        printf("goal (--stats >= %.2f of the fast path's speed on compute), by CPU time: %s "
               "(%.0f MIPS with statistics, %.0f without: %.2f)\n", GOAL_STATS,
               rs >= GOAL_STATS ? "met" : "NOT met", mips(&compute, compute.stats_cpu),
               mips(&compute, compute.npk_cpu), rs);
    }
    if (!have_qemu) {
        printf("%s not found: install the Debian package qemu-user for the reference figures\n",
               QEMU);
        bad = 1;
    }
    free(compute.out);
    free(gemm.out);
    free(npu.out);
    return bad ? 1 : 0;
}
