/* bench_asm_labels: assembly time against the number of labels, through the public API
 * (npk_assemble: the engine's symbol table and the machine's). Each source line defines a
 * label, branches to the next one and refers to a far one (.word), so every label is looked
 * up twice. Printed per label at 10^4, 10^5 and 10^6 labels, next to a plain pass over the
 * same text (memchr over its lines, then a copy) measured in the same run: a linear assembler
 * keeps both columns flat; the quadratic one this replaced grew 10x per step (10^5 labels
 * took about 10 s, 10^6 would take about 20 minutes). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_machine.h"
#include "npukit/npukit.h"

/* CPU time of this process: the machine may be shared, and the question is the work done */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* toy: `lN: beq r1, r2, lN+1` / `.word lK`; rvnpu the same with x registers. The last
 * label branches back to its neighbour so every offset fits a short branch. */
static char *source(const char *target, size_t n, size_t *len)
{
    int rv = strcmp(target, "rvnpu") == 0;
    char *s = malloc(n * 56 + 64);
    if (!s)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        size_t next = i + 1 < n ? i + 1 : i - 1, far = (size_t)((i * 7919u + 13) % n);
        o += (size_t)sprintf(s + o, "l%zu: beq %s, %s, l%zu\n.word l%zu\n", i, rv ? "x1" : "r1",
                             rv ? "x2" : "r2", next, far);
    }
    *len = o;
    return s;
}

/* The reference: one pass that finds every line and copies the text. */
static double scan(const char *s, size_t len, size_t *lines)
{
    double t0 = now();
    char *copy = malloc(len + 1);
    size_t nl = 0;
    for (const char *p = s, *end = s + len; p < end; nl++) {
        const char *q = memchr(p, '\n', (size_t)(end - p));
        p = q ? q + 1 : end;
    }
    if (copy)
        memcpy(copy, s, len + 1);
    double t = now() - t0;
    *lines = nl + (copy ? (size_t)(copy[len / 2] == 0) : 0);
    free(copy);
    return t;
}

static int run(const char *spec, size_t n, double *per_label, double *per_scan)
{
    const char *target = strncmp(spec, "rvnpu", 5) == 0 ? "rvnpu" : "toy";
    size_t len, lines;
    char *src = source(target, n, &len);
    npk_machine *m = NULL;
    char err[512];
    if (!src || npk_create(&m, spec, NULL, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "bench_asm_labels: %s\n", src ? err : "out of memory");
        free(src);
        return -1;
    }
    double ts = scan(src, len, &lines);
    uint8_t *img = NULL;
    size_t size = 0;
    double t0 = now();
    npk_status st = npk_assemble(m, src, "labels.s", stderr, &img, &size);
    double ta = now() - t0;
    uint64_t v = 0, v0 = 0; /* labels are addresses: rvnpu's program starts at 0x80000000 */
    char last[32];
    snprintf(last, sizeof last, "l%zu", n - 1);
    if (st != NPK_OK || size != 8 * n || npk_symbol(m, "l0", &v0) != NPK_OK ||
        npk_symbol(m, last, &v) != NPK_OK || v - v0 != 8 * (uint64_t)(n - 1)) {
        fprintf(stderr, "bench_asm_labels: %s, %zu labels: wrong result (%s)\n", target, n,
                npk_error(m));
        npk_free(img);
        npk_destroy(m);
        free(src);
        return -1;
    }
    *per_label = ta / (double)n;
    *per_scan = ts / (double)n;
    printf("  %-6s %8zu labels  %7.3f s  %7.1f ns/label  scan %6.2f ns/label  ratio %6.0f\n",
           target, n, ta, 1e9 * *per_label, 1e9 * *per_scan, ta / (ts > 0 ? ts : 1e-9));
    fflush(stdout);
    npk_free(img);
    npk_destroy(m);
    free(src);
    return 0;
}

int main(int argc, char **argv)
{
    size_t max = 1000000;
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: bench_asm_labels [MAX_LABELS >= 10000]\n\nAssembly time with 10^4 .. "
               "MAX_LABELS labels (default 10^6) on toy and rvnpu, next\nto one plain pass "
               "over the same text (docs/performance.md, \"Assembly: time per label\").\n");
        return 0;
    }
    if (argc > 1 && (max = strtoul(argv[1], NULL, 10)) < 10000) {
        fprintf(stderr, "usage: bench_asm_labels [MAX_LABELS >= 10000]\n");
        return 2;
    }
    npk_bench_machine();
    printf("assembly with N labels (npk_assemble), next to one plain pass over the same text "
           "(CPU time)\n");
    /* toy's 16 MiB maximum holds 10^6 labels of 8 bytes */
    const char *specs[] = {"toy:mem=16M", "rvnpu"};
    int rc = 0;
    for (size_t k = 0; k < 2; k++) {
        double first = 0, last = 0, scan_ns;
        for (size_t n = 10000; n <= max; n *= 10) {
            if (run(specs[k], n, &last, &scan_ns) != 0) {
                rc = 1;
                break;
            }
            if (n == 10000)
                first = last;
        }
        if (first > 0)
            printf("  %s: time per label at the largest N / at 10^4: %.2f (1 = linear)\n",
                   strncmp(specs[k], "rvnpu", 5) == 0 ? "rvnpu" : "toy", last / first);
    }
    return rc;
}
