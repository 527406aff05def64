/* bench_mlp: host time per inference of the int8 Fashion-MNIST MLP firmware
 * (examples/rvnpu/mlp) built with the NPU and as plain RV32IM C, side by side in one command
 * (docs/performance.md, issue 18 goal 2: at least 50x less host time per inference with the
 * NPU). The firmware is loaded once; each inference resets the machine, writes one image into
 * `test_image` (untimed) and runs main() to its exit on the fast path (timed: CPU time of
 * npk_run), as a device classifying a stream of images would. The guest's output goes to one
 * in-memory stream per build (open_memstream, as in bench_run.h), its text read back after
 * each inference (npk_run flushes it when the program exits). The first pass loads the
 * ELF afresh for every image instead, and every later class must equal that one's; both builds
 * must predict the same class for every image. Best of N passes, the builds alternating.
 *
 * Usage: bench_mlp [--runs N] [MLP.elf MLP_PLAIN.elf IMAGES.bin]   (default: the build's) */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npukit/npukit.h"
#include "bench_machine.h"
#include "bench_run.h"

#ifndef BENCH_MLP_ELF
#define BENCH_MLP_ELF ""
#endif
#ifndef BENCH_MLP_PLAIN_ELF
#define BENCH_MLP_PLAIN_ELF ""
#endif
#ifndef BENCH_MLP_IMAGES
#define BENCH_MLP_IMAGES ""
#endif

#define GOAL 50.0
enum { PIXELS = 784 };

static double cpu_s(void)
{
    return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static unsigned char *slurp(const char *path, size_t *size)
{
    unsigned char *data = NULL;
    return read_file(path, &data, size) == 0 ? data : NULL;
}

typedef struct build {
    const char *name;
    unsigned char *elf;
    size_t size;
    npk_machine *m;
    FILE *out;         /* the guest's stdout: in memory, text and len */
    char *text;
    size_t len;
    double best;       /* best CPU seconds of a pass over the images */
    uint64_t insns;    /* retired per pass */
} build;

/* One pass: every image once (fresh: load the ELF before each, else run the one loaded);
 * returns 0 and the classes printed, or -1. */
static int pass(build *b, const unsigned char *images, unsigned n, int fresh, int *cls,
                double *cpu)
{
    *cpu = 0;
    b->insns = 0;
    for (unsigned i = 0; i < n; i++) {
        char out[64] = "";
        npk_stop stop;
        size_t mark = b->len; /* this inference's output follows */
        if ((fresh && npk_load_elf(b->m, b->elf, b->size, b->name) != NPK_OK) ||
            npk_reset(b->m) != NPK_OK || /* statistics of this inference only */
            npk_write_symbol(b->m, "test_image", images + (size_t)i * (1 + PIXELS) + 1,
                             PIXELS) != NPK_OK) {
            fprintf(stderr, "bench_mlp: %s: %s\n", b->name, npk_error(b->m));
            return -1;
        }
        double t0 = cpu_s();
        npk_status st = npk_run(b->m, 0, &stop);
        *cpu += cpu_s() - t0;
        if (fflush(b->out) == 0 && b->len > mark) {
            size_t got = b->len - mark < sizeof out - 1 ? b->len - mark : sizeof out - 1;
            memcpy(out, b->text + mark, got);
        }
        if (st != NPK_OK || stop.reason != NPK_STOP_EXIT || out[0] < '0' || out[0] > '9') {
            fprintf(stderr, "bench_mlp: %s image %u: %s %s (printed '%s')\n", b->name, i,
                    st != NPK_OK ? npk_error(b->m) : "", stop.message, out);
            return -1;
        }
        cls[i] = out[0] - '0';
        npk_stats st_;
        if (npk_stats_get(b->m, &st_) == NPK_OK)
            b->insns += st_.insns; /* with statistics on (the last, untimed pass) */
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *paths[3] = {BENCH_MLP_ELF, BENCH_MLP_PLAIN_ELF, BENCH_MLP_IMAGES};
    unsigned runs = 5, np = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: bench_mlp [--runs N] [MLP.elf MLP_PLAIN.elf IMAGES.bin]\n\n"
                   "Host time per inference of the int8 Fashion-MNIST MLP firmware "
                   "(examples/rvnpu/mlp),\nNPU build against the plain RV32IM build, best of N "
                   "passes (default 5) over the\nimages (default: the build's firmware and "
                   "models/mlp/demo_images.bin).\n");
            return 0;
        }
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs = (unsigned)atoi(argv[++i]);
        } else if (argv[i][0] != '-' && np < 3) {
            paths[np++] = argv[i];
        } else {
            fprintf(stderr, "usage: %s [--runs N] [MLP.elf MLP_PLAIN.elf IMAGES.bin]\n",
                    argv[0]);
            return 2;
        }
    }
    if (runs < 1 || (np != 0 && np != 3) || !paths[0][0]) {
        fprintf(stderr, "bench_mlp: give --runs >= 1 and all three files or none (the build "
                        "has no rvnpu firmware when none are built in)\n");
        return 2;
    }
    build b[2] = {{"mlp.elf (NPU)", NULL, 0, NULL, NULL, NULL, 0, 1e30, 0},
                  {"mlp_plain.elf (RV32IM)", NULL, 0, NULL, NULL, NULL, 0, 1e30, 0}};
    size_t isize = 0;
    unsigned char *images = slurp(paths[2], &isize);
    unsigned n = (unsigned)(isize / (1 + PIXELS));
    int rc = 1, *cls[2] = {NULL, NULL}, *first = NULL;
    char err[256];
    if (!images || n == 0) {
        fprintf(stderr, "bench_mlp: no images in %s\n", paths[2]);
        goto out;
    }
    for (int k = 0; k < 2; k++) {
        b[k].elf = slurp(paths[k], &b[k].size);
        cls[k] = calloc(n, sizeof *cls[k]);
        if (!first)
            first = calloc(n, sizeof *first);
        if (!b[k].elf || !cls[k] || !first || npk_create(&b[k].m, "rvnpu", NULL, err, sizeof err)) {
            fprintf(stderr, "bench_mlp: %s: %s\n", paths[k], b[k].elf ? err : "cannot read");
            goto out;
        }
        npk_stats_enable(b[k].m, 0);
    }
    /* after both machines: opened between them, the streams moved the plain build's machine
     * in the heap, and that alone made it about 9 % slower on the development VM */
    for (int k = 0; k < 2; k++) {
        if (!(b[k].out = open_memstream(&b[k].text, &b[k].len))) {
            perror("bench_mlp: open_memstream");
            goto out;
        }
        npk_set_output(b[k].m, b[k].out, stderr);
    }
    npk_bench_machine();
    printf("mlp: %u Fashion-MNIST images per pass, best of %u passes by CPU time, NPU and plain "
           "builds alternating; per inference: reset + image write untimed, npk_run timed\n", n,
           runs);
    {
        double cpu;
        if (pass(&b[0], images, n, 1, first, &cpu)) /* the reference classes */
            goto out;
    }
    for (int k = 0; k < 2; k++) /* loaded once; the first timed pass warms the decode cache */
        if (npk_load_elf(b[k].m, b[k].elf, b[k].size, b[k].name) != NPK_OK) {
            fprintf(stderr, "bench_mlp: %s: %s\n", b[k].name, npk_error(b[k].m));
            goto out;
        }
    for (unsigned r = 0; r <= runs; r++)
        for (int k = 0; k < 2; k++) {
            double cpu;
            if (r == runs) /* instruction counts: one more pass with statistics */
                npk_stats_enable(b[k].m, 1);
            if (pass(&b[k], images, n, 0, cls[k], &cpu))
                goto out;
            if (r < runs && cpu < b[k].best)
                b[k].best = cpu;
            for (unsigned i = 0; i < n; i++)
                if (cls[k][i] != first[i]) {
                    fprintf(stderr, "bench_mlp: %s, image %u: class %d after a reset, %d after "
                                    "a fresh load\n", b[k].name, i, cls[k][i], first[i]);
                    goto out;
                }
        }
    for (unsigned i = 0; i < n; i++)
        if (cls[0][i] != cls[1][i]) {
            fprintf(stderr, "bench_mlp: image %u: NPU build says %d, plain build %d\n", i,
                    cls[0][i], cls[1][i]);
            goto out;
        }
    for (int k = 0; k < 2; k++)
        printf("  %-24s %9.1f us per inference, %8.0f instructions (%.0f MIPS)\n", b[k].name,
               1e6 * b[k].best / n, (double)b[k].insns / n, (double)b[k].insns / b[k].best / 1e6);
    double ratio = b[1].best / b[0].best;
    printf("  NPU vs plain: %.1fx fewer instructions, %.1fx less host time per inference "
           "(goal >= %.0fx: %s); the same class for all %u images\n",
           (double)b[1].insns / (double)b[0].insns, ratio, GOAL, ratio >= GOAL ? "met" : "NOT met",
           n);
    rc = 0;
out:
    for (int k = 0; k < 2; k++) {
        if (b[k].m)
            npk_destroy(b[k].m);
        if (b[k].out)
            fclose(b[k].out);
        free(b[k].text);
        free(b[k].elf);
        free(cls[k]);
    }
    free(first);
    free(images);
    return rc;
}
