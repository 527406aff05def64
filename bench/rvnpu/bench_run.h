/* Shared by the rvnpu benchmarks: clocks, reading a file, and one timed npukit run of a
 * firmware ELF through the public C API (only npk_run is timed). Header-only. */
#ifndef NPK_BENCH_RVNPU_RUN_H
#define NPK_BENCH_RVNPU_RUN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npukit/npukit.h"

static inline double clock_s(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline double now(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

static inline int read_file(const char *path, unsigned char **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            return -1;
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        unsigned char *bigger = realloc(buf, cap * 2);
        if (!bigger)
            free(buf);
        buf = bigger;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return -1;
    }
    buf[n] = 0; /* n < cap: text files can be read as strings */
    *data = buf;
    *size = n;
    return 0;
}

/* A symbol's bytes written after loading (npk_write_symbol), e.g. a firmware's inputs. */
typedef struct bench_symbol {
    const char *name;
    const void *data;
    size_t size;
} bench_symbol;

/* One npukit run of an ELF, with nsyms symbols written first. Guest stdout is collected into
 * *out (malloc'd); *insns gets the retired count when `stats` is on. Returns the wall time of
 * npk_run alone, or -1; *cpu gets its CPU time. */
static inline double npukit_run(const char *name, const unsigned char *elf, size_t elf_size,
                                const bench_symbol *syms, int nsyms, int stats, char **out,
                                uint64_t *insns, double *cpu)
{
    char err[256];
    npk_machine *m = NULL;
    char *text = NULL;
    size_t text_len = 0;
    double t = -1;
    FILE *cap = open_memstream(&text, &text_len);
    if (!cap) {
        perror("open_memstream");
        return -1;
    }
    if (npk_create(&m, "rvnpu", NULL, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "%s: npk_create: %s\n", name, err);
        goto done;
    }
    npk_set_output(m, cap, stderr);
    int bad = npk_load_elf(m, elf, elf_size, name) != NPK_OK ||
              (stats && npk_stats_enable(m, 1) != NPK_OK);
    for (int i = 0; i < nsyms && !bad; i++)
        bad = npk_write_symbol(m, syms[i].name, syms[i].data, syms[i].size) != NPK_OK;
    if (bad) {
        fprintf(stderr, "%s: %s\n", name, npk_error(m));
        goto done;
    }
    npk_stop stop;
    double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), t0 = now();
    npk_status st = npk_run(m, 0, &stop);
    double t1 = now();
    *cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (st != NPK_OK) {
        fprintf(stderr, "%s: npk_run: %s\n", name, npk_error(m));
        goto done;
    }
    if (stop.reason != NPK_STOP_EXIT || stop.exit_code != 0) {
        fprintf(stderr, "%s: did not exit with status 0 on npukit: %s\n", name, stop.message);
        goto done;
    }
    if (stats) {
        npk_stats s;
        if (npk_stats_get(m, &s) != NPK_OK) {
            fprintf(stderr, "%s: %s\n", name, npk_error(m));
            goto done;
        }
        *insns = s.insns;
    }
    t = t1 - t0;
done:
    npk_destroy(m);
    fclose(cap);
    if (t >= 0)
        *out = text;
    else
        free(text);
    return t;
}

#endif
