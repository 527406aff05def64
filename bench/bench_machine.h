/* The "machine:" line every benchmark prints first (CPU model, architecture, cores), so that a
 * reported ratio says where it was measured. Header-only, shared by bench/. */
#ifndef NPK_BENCH_MACHINE_H
#define NPK_BENCH_MACHINE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static inline void npk_bench_machine(void)
{
    struct utsname u;
    char line[512], model[256] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "model name", 10) == 0) {
                char *v = strchr(line, ':');
                if (v) {
                    v += 1 + strspn(v + 1, " \t");
                    v[strcspn(v, "\n")] = 0;
                    snprintf(model, sizeof model, "%s", v);
                }
                break;
            }
        fclose(f);
    }
    printf("machine: %s, %s, %ld cores\n", uname(&u) == 0 ? u.machine : "unknown", model,
           sysconf(_SC_NPROCESSORS_ONLN));
}

/* The command line of the shape benchmarks: `[--runs N] [A B C ...]` (shape triples in the
 * benchmark's own order, at most `max`). Returns -1 after --help, 2 on a bad argument (after a
 * message), else 0 with *runs and *ns set (*ns = 0: use the defaults). */
static inline int npk_bench_shape_args(int argc, char **argv, const char *name,
                                       const char *shape_names, unsigned *runs,
                                       unsigned (*shapes)[3], unsigned max, unsigned *ns)
{
    *ns = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            *runs = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: %s [--runs N] [%s ...]\n", name, shape_names);
            return -1;
        } else if (i + 2 < argc && *ns < max) {
            for (int d = 0; d < 3; d++)
                shapes[*ns][d] = (unsigned)atoi(argv[i + d]);
            (*ns)++;
            i += 2;
        } else {
            fprintf(stderr, "%s: bad arguments (see --help)\n", name);
            return 2;
        }
    }
    return 0;
}

/* The command line of the firmware benchmarks: `[--runs N] [FILE ...]` with exactly n files
 * (named in `files` for the messages) or none, when paths keeps its defaults. Returns 0, -1
 * after --help, or 2 after a message. */
static inline int npk_bench_files_args(int argc, char **argv, const char *files, int *runs,
                                       const char **paths, int n)
{
    int np = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            *runs = atoi(argv[++i]);
            if (*runs < 1)
                *runs = 1;
        } else if (argv[i][0] != '-' && np < n) {
            paths[np++] = argv[i];
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: %s [--runs N] [%s]\n", argv[0], files);
            return -1;
        } else {
            fprintf(stderr, "usage: %s [--runs N] [%s]\n", argv[0], files);
            return 2;
        }
    }
    if (np != 0 && np != n) {
        fprintf(stderr, "%s: give all of %s, or none\n", argv[0], files);
        return 2;
    }
    return 0;
}

/* /proc/loadavg's first three fields (other jobs on the machine skew the times). */
static inline const char *npk_bench_loadavg(char *buf, size_t n)
{
    double a, b, c;
    FILE *f = fopen("/proc/loadavg", "r");
    snprintf(buf, n, "unknown");
    if (f) {
        if (fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
            snprintf(buf, n, "%.2f %.2f %.2f", a, b, c);
        fclose(f);
    }
    return buf;
}

#endif
