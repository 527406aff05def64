/* rvnpu_difftest: differential test of npukit's rvnpu RV32IMF core against qemu-riscv32.
 * Runs K random programs of N body items each from one seed on both, compares their stdout
 * (a dump of every register, fcsr and scratch memory) byte for byte, and on a mismatch
 * bisects the body to the first instruction after which the two disagree. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rvgen.h"
#include "rvrun.h"

typedef struct ctx {
    char qemu[4096];
    char dir[4096];
    char elf_path[4200];
    npk_machine *m;       /* NULL in --qemu-only mode */
    int verbose;
} ctx;

/* Outcome of one prefix of one program on both simulators. */
typedef struct outcome {
    uint8_t *q, *n;
    size_t nq, nn;
    int qstatus;
    npk_stop stop;
    uint64_t insns;
    size_t words;
} outcome;

static void outcome_free(outcome *o)
{
    free(o->q);
    free(o->n);
    memset(o, 0, sizeof *o);
}

/* 1 = agree, 0 = disagree, -1 = could not run. */
static int run_prefix(ctx *c, const rvg_prog *p, size_t prefix, outcome *o)
{
    memset(o, 0, sizeof *o);
    uint8_t *elf;
    size_t size;
    if (rvg_elf(p, prefix, &elf, &size, &o->words) != 0)
        return -1;
    int rc = -1;
    if (rvr_write_file(c->elf_path, elf, size) != 0) {
        fprintf(stderr, "rvnpu difftest: cannot write %s\n", c->elf_path);
        goto out;
    }
    if (rvr_qemu(c->qemu, c->elf_path, &o->q, &o->nq, &o->qstatus) != 0)
        goto out;
    /* The generator's own sanity: qemu must finish with the full dump and the pinned pointer
     * intact, else the program (not the simulator) is wrong. */
    uint32_t pin = rvg_scratch_addr(o->words) + RVG_SCRATCH_BYTES / 2;
    if (o->qstatus != 0 || o->nq != RVG_OUT_BYTES || RVG_DUMP_X(o->q, RVG_PIN) != pin) {
        fprintf(stderr,
                "rvnpu difftest: generator error: qemu exit %d, %zu bytes of output (want %u)\n",
                o->qstatus, o->nq, RVG_OUT_BYTES);
        goto out;
    }
    if (!c->m) {
        rc = 1;
        goto out;
    }
    /* budget: straight-line code retires at most one instruction per word */
    if (rvr_npukit(c->m, elf, size, (uint64_t)o->words + 16, &o->n, &o->nn, &o->stop,
                   &o->insns) != 0)
        goto out;
    rc = o->stop.reason == NPK_STOP_EXIT && o->stop.exit_code == 0 && o->nn == o->nq &&
         memcmp(o->n, o->q, o->nq) == 0;
out:
    free(elf);
    return rc;
}

static void report(ctx *c, const rvg_prog *p, uint64_t seed, size_t n)
{
    /* Bisect: prefix lo agrees, prefix hi disagrees, so item hi-1 is where they part. */
    size_t lo = 0, hi = n;
    outcome o;
    int r0 = run_prefix(c, p, 0, &o);
    outcome_free(&o);
    if (r0 != 1) {
        fprintf(stderr, "    the prologue/epilogue alone already disagree (or fail)\n");
        hi = 0;
    }
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        int r = run_prefix(c, p, mid, &o);
        outcome_free(&o);
        if (r == 1)
            lo = mid;
        else
            hi = mid;
    }
    run_prefix(c, p, hi, &o);
    fprintf(stderr, "    first disagreement after %zu of %zu items; differences there:\n", hi,
            n);
    if (o.stop.reason != NPK_STOP_EXIT || o.stop.exit_code != 0)
        fprintf(stderr, "    npukit stopped: reason %d, exit %" PRId64 ": %s\n",
                (int)o.stop.reason, o.stop.exit_code, o.stop.message);
    rvg_diff(o.q, o.nq, o.n, o.nn, stderr, "qemu", "npukit");
    if (hi > 0) {
        fprintf(stderr, "    listing (items %zu..%zu):\n", hi > 8 ? hi - 8 : 0, hi - 1);
        for (size_t i = hi > 8 ? hi - 8 : 0; i < hi; i++)
            rvg_list_item(p, i, stderr);
        fprintf(stderr, "    (the last item, [%5zu], is the first one after which the dumps "
                        "differ)\n", hi - 1);
    }
    fprintf(stderr,
            "    reproduce: rvnpu_difftest_gen -s 0x%016" PRIx64 " -n %zu -p %zu -o bad.elf -l "
            "&& qemu-riscv32 bad.elf | xxd; npukit run -t rvnpu bad.elf | xxd\n",
            seed, n, hi);
    outcome_free(&o);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: rvnpu_difftest [-k PROGRAMS] [-n ITEMS] [-s SEED] [--qemu-only] "
            "[--no-branches] [-v]\n"
            "  defaults: -k $RVNPU_DIFFTEST_K or 120, -n $RVNPU_DIFFTEST_N or 10000, -s 1\n"
            "  qemu-riscv32 comes from $RVNPU_QEMU or PATH (Debian package %s).\n",
            RVR_QEMU_PACKAGE);
}

int main(int argc, char **argv)
{
    static ctx c;
    const char *ek = getenv("RVNPU_DIFFTEST_K"), *en = getenv("RVNPU_DIFFTEST_N");
    size_t k = ek ? (size_t)strtoull(ek, NULL, 0) : 120;
    size_t n = en ? (size_t)strtoull(en, NULL, 0) : 10000;
    uint64_t seed = 1;
    int qemu_only = 0;
    rvg_opts o = {1, 0, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-k") == 0 && i + 1 < argc)
            k = (size_t)strtoull(argv[++i], NULL, 0);
        else if (strcmp(a, "-n") == 0 && i + 1 < argc)
            n = (size_t)strtoull(argv[++i], NULL, 0);
        else if (strcmp(a, "-s") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (strcmp(a, "--qemu-only") == 0)
            qemu_only = 1;
        else if (strcmp(a, "--no-branches") == 0)
            o.branches = 0;
        else if (strcmp(a, "-v") == 0)
            c.verbose = 1;
        else {
            usage();
            return 2;
        }
    }
    if (rvg_init(stderr) != 0)
        return 1;
    if (rvr_find_qemu(c.qemu, sizeof c.qemu) != 0)
        return 1;
    if (!qemu_only) {
        char err[512];
        if (npk_create(&c.m, "rvnpu", NULL, err, sizeof err) != NPK_OK) {
            fprintf(stderr, "rvnpu difftest: FAIL: cannot create an rvnpu machine: %s\n", err);
            return 1;
        }
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(c.dir, sizeof c.dir, "%s/rvnpu-difftest-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(c.dir)) {
        perror("rvnpu difftest: mkdtemp");
        return 1;
    }
    snprintf(c.elf_path, sizeof c.elf_path, "%s/prog.elf", c.dir);

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t passed = 0, failed = 0, errors = 0;
    uint64_t retired = 0;
    for (size_t j = 0; j < k; j++) {
        uint64_t s = rvg_mix(seed, j);
        rvg_prog p;
        if (rvg_random(&p, s, n, &o) != 0) {
            errors++;
            break;
        }
        outcome out;
        int r = run_prefix(&c, &p, n, &out);
        retired += c.m ? out.insns : out.words;
        if (r == 1) {
            passed++;
            if (c.verbose)
                fprintf(stderr, "program %zu seed 0x%016" PRIx64 ": ok, %" PRIu64 " insns\n", j,
                        s, out.insns);
        } else if (r == 0) {
            failed++;
            fprintf(stderr, "MISMATCH: program %zu, seed 0x%016" PRIx64 ", %zu items\n", j, s,
                    n);
            if (failed <= 3)
                report(&c, &p, s, n);
        } else {
            errors++;
            fprintf(stderr, "ERROR: program %zu, seed 0x%016" PRIx64 " could not be run\n", j,
                    s);
        }
        outcome_free(&out);
        rvg_free(&p);
        if (errors)
            break;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    unlink(c.elf_path);
    rmdir(c.dir);
    if (c.m)
        npk_destroy(c.m);
    printf("rvnpu difftest (%s): %zu passed, %zu failed, %zu errors; %" PRIu64
           " %s in %.1f s (seed %" PRIu64 ", %zu programs x %zu items)\n",
           qemu_only ? "qemu only" : "npukit vs qemu-riscv32", passed, failed, errors, retired,
           qemu_only ? "instruction words generated" : "instructions retired by npukit", secs,
           seed, k, n);
    return failed || errors || passed != k ? 1 : 0;
}
