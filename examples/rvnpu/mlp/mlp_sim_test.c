/* mlp_sim_test: runs the rvnpu MLP firmware on Fashion-MNIST test images through the public
 * npukit library API and checks every prediction against the host reference (mlp_ref.c).
 *
 * For each --fw: create an rvnpu machine, load the ELF once, then per image npk_reset, write
 * the image over `test_image`, run, and read the class digit the guest wrote to stdout.
 * Reports accuracy, retired instructions per inference (minstret) and timing-model cycles
 * (statistics on for the first few images). Fails unless every prediction equals the
 * reference, every firmware agrees with every other on their common images, and the
 * reference accuracy over the largest image count reaches --min-accuracy.
 * Exit status: 0 pass, 1 fail, 2 usage or setup error, 77 dataset not installed (skip). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mlp_ref.h"
#include "npukit/npukit.h"

#define SKIP_STATUS 77
#define MAX_FW 8
#define RUN_BUDGET 100000000u /* instructions per image; the plain build needs about 1 M */

typedef struct fw {
    const char *elf;
    const char *rev;
    size_t count;
    int *pred;
    size_t done;
} fw;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mlp_sim_test --fw ELF[,count=N][,rev=seed|rev2] [--fw ...] [options]\n"
            "Runs the rvnpu MLP firmware (examples/rvnpu/mlp) on Fashion-MNIST test images in\n"
            "npukit and compares every prediction with the host reference.\n"
            "\n"
            "  --fw ELF[,count=N][,rev=R]  firmware to run on the first N test images (default\n"
            "                        all), with NPU revision R (default seed); repeatable\n"
            "  --weights FILE        weights the firmware was built with (required)\n"
            "  --data-dir DIR        gzip'd IDX files (default %s)\n"
            "  --min-accuracy PCT    required reference accuracy over the largest count\n"
            "                        (default 0)\n"
            "  --stats-images K      images per firmware run with statistics on for the cycle\n"
            "                        count (default 20)\n"
            "  -h, --help            this text\n"
            "exit status: 0 pass, 1 fail, 2 usage or setup error, 77 dataset not installed\n",
            MLP_DEFAULT_DATA_DIR);
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-')
        return -1;
    *out = (size_t)v;
    return 0;
}

/* ELF[,count=N][,rev=R]; the string is split in place. */
static int parse_fw(char *spec, fw *f)
{
    memset(f, 0, sizeof *f);
    f->rev = "seed";
    f->count = (size_t)-1;
    f->elf = spec;
    char *p = strchr(spec, ',');
    if (p)
        *p++ = '\0';
    while (p) {
        char *item = p;
        p = strchr(p, ',');
        if (p)
            *p++ = '\0';
        if (!strncmp(item, "count=", 6)) {
            if (parse_size(item + 6, &f->count) != 0) {
                fprintf(stderr, "mlp_sim_test: --fw %s: bad count '%s'\n", spec, item + 6);
                return -1;
            }
        } else if (!strcmp(item, "rev=seed") || !strcmp(item, "rev=rev2")) {
            f->rev = item + 4;
        } else {
            fprintf(stderr, "mlp_sim_test: --fw %s: unknown item '%s' (count=N, rev=seed|rev2)\n",
                    spec, item);
            return -1;
        }
    }
    if (!*f->elf) {
        fprintf(stderr, "mlp_sim_test: --fw: empty ELF path\n");
        return -1;
    }
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Run one firmware over its images; 0 if every run worked, -1 on a setup or run failure. */
static int run_fw(fw *f, const mlp_dataset *ds, size_t stats_images, const int *ref)
{
    char err[512], cfg[64];
    snprintf(cfg, sizeof cfg, "isa_rev=%s", f->rev);
    npk_machine *m = NULL;
    if (npk_create(&m, "rvnpu", cfg, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "mlp_sim_test: cannot create an rvnpu machine: %s\n", err);
        return -1;
    }
    int rc = -1;
    FILE *out = tmpfile();
    if (!out) {
        fprintf(stderr, "mlp_sim_test: tmpfile: %s\n", strerror(errno));
        goto done;
    }
    npk_set_output(m, out, stderr);
    if (npk_load_file(m, f->elf, stderr) != NPK_OK) {
        fprintf(stderr, "mlp_sim_test: %s\n", npk_error(m)); /* names the file */
        goto done;
    }
    uint64_t sym;
    if (npk_symbol(m, "test_image", &sym) != NPK_OK) {
        fprintf(stderr, "mlp_sim_test: %s: %s\n", f->elf, npk_error(m));
        goto done;
    }
    size_t n = f->count < ds->n ? f->count : ds->n;
    f->pred = malloc((n ? n : 1) * sizeof *f->pred);
    if (!f->pred) {
        fprintf(stderr, "mlp_sim_test: out of memory\n");
        goto done;
    }
    uint64_t insns_sum = 0, insns_min = UINT64_MAX, insns_max = 0, cycles_sum = 0;
    size_t cycles_n = 0, correct = 0, agree = 0, shown = 0;
    double t0 = now_s();
    for (size_t k = 0; k < n; k++) {
        int stats = k < stats_images;
        if (npk_reset(m) != NPK_OK || npk_stats_enable(m, stats) != NPK_OK ||
            npk_write_symbol(m, "test_image", ds->images + k * MLP_N_IN, MLP_N_IN) != NPK_OK) {
            fprintf(stderr, "mlp_sim_test: %s: image %zu: %s\n", f->elf, k, npk_error(m));
            goto done;
        }
        long pos = ftell(out);
        npk_stop stop;
        if (npk_run(m, RUN_BUDGET, &stop) != NPK_OK) {
            fprintf(stderr, "mlp_sim_test: %s: image %zu: %s\n", f->elf, k, npk_error(m));
            goto done;
        }
        if (stop.reason != NPK_STOP_EXIT || stop.exit_code != 0) {
            fprintf(stderr, "mlp_sim_test: %s: image %zu: the run did not exit with status 0: "
                            "%s (reason %d, exit %" PRId64 ")\n",
                    f->elf, k, stop.message, (int)stop.reason, stop.exit_code);
            goto done;
        }
        char text[16] = {0};
        fflush(out);
        if (pos < 0 || fseek(out, pos, SEEK_SET) != 0) {
            fprintf(stderr, "mlp_sim_test: seek in the output file: %s\n", strerror(errno));
            goto done;
        }
        size_t got = fread(text, 1, sizeof text - 1, out);
        fseek(out, 0, SEEK_END);
        if (got != 2 || text[0] < '0' || text[0] > '9' || text[1] != '\n') {
            fprintf(stderr, "mlp_sim_test: %s: image %zu: output is not one digit and a "
                            "newline (%zu bytes: \"%.*s\")\n",
                    f->elf, k, got, (int)got, text);
            goto done;
        }
        int p = text[0] - '0';
        f->pred[k] = p;
        correct += (unsigned)p == ds->labels[k];
        if (p == ref[k]) {
            agree++;
        } else if (shown++ < 10) {
            fprintf(stderr, "mlp_sim_test: %s: image %zu: firmware predicts %d, host reference "
                            "%d\n", f->elf, k, p, ref[k]);
        }
        uint64_t insns = 0;
        if (npk_reg_read(m, "minstret", &insns) != NPK_OK) {
            fprintf(stderr, "mlp_sim_test: minstret: %s\n", npk_error(m));
            goto done;
        }
        insns_sum += insns;
        insns_min = insns < insns_min ? insns : insns_min;
        insns_max = insns > insns_max ? insns : insns_max;
        if (stats) {
            npk_stats st;
            if (npk_stats_get(m, &st) != NPK_OK) {
                fprintf(stderr, "mlp_sim_test: statistics: %s\n", npk_error(m));
                goto done;
            }
            if (st.insns != insns) {
                fprintf(stderr, "mlp_sim_test: %s: image %zu: statistics count %" PRIu64
                                " instructions, minstret %" PRIu64 "\n", f->elf, k, st.insns, insns);
                goto done;
            }
            cycles_sum += st.cycles;
            cycles_n++;
        }
    }
    f->done = n;
    double dt = now_s() - t0;
    printf("%s (%s): %zu images, %zu/%zu agree with the host reference, accuracy %.2f %%\n",
           f->elf, f->rev, n, agree, n, n ? 100.0 * (double)correct / (double)n : 0.0);
    if (n)
        printf("  instructions/inference: mean %.1f (min %" PRIu64 ", max %" PRIu64 ")\n",
               (double)insns_sum / (double)n, insns_min, insns_max);
    if (cycles_n)
        printf("  cycles/inference (timing model, first %zu images): mean %.1f\n", cycles_n,
               (double)cycles_sum / (double)cycles_n);
    printf("  simulation time %.2f s (%.2f ms/inference)\n", dt, n ? 1e3 * dt / (double)n : 0.0);
    rc = agree == n ? 0 : 1;
done:
    if (out)
        fclose(out);
    npk_destroy(m);
    return rc;
}

int main(int argc, char **argv)
{
    fw fws[MAX_FW];
    size_t n_fw = 0, stats_images = 20;
    const char *weights = NULL, *data_dir = MLP_DEFAULT_DATA_DIR;
    double min_acc = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--fw") && more) {
            if (n_fw == MAX_FW) {
                fprintf(stderr, "mlp_sim_test: at most %d --fw\n", MAX_FW);
                return 2;
            }
            if (parse_fw(argv[++i], &fws[n_fw]) != 0)
                return 2;
            n_fw++;
        } else if (!strcmp(a, "--weights") && more) {
            weights = argv[++i];
        } else if (!strcmp(a, "--data-dir") && more) {
            data_dir = argv[++i];
        } else if (!strcmp(a, "--min-accuracy") && more) {
            char *end;
            min_acc = strtod(argv[++i], &end);
            if (end == argv[i] || *end || min_acc < 0 || min_acc > 100) {
                fprintf(stderr, "mlp_sim_test: --min-accuracy %s: expected 0..100\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--stats-images") && more) {
            if (parse_size(argv[++i], &stats_images) != 0) {
                fprintf(stderr, "mlp_sim_test: --stats-images %s: expected a count\n", argv[i]);
                return 2;
            }
        } else {
            fprintf(stderr, "mlp_sim_test: %s: unknown argument or missing value (try --help)\n",
                    a);
            return 2;
        }
    }
    if (!n_fw || !weights) {
        fprintf(stderr, "mlp_sim_test: need --weights and at least one --fw (try --help)\n");
        return 2;
    }

    static mlp_model model;
    char err[4352];
    if (mlp_model_load(&model, weights, err, sizeof err) != 0) {
        fprintf(stderr, "mlp_sim_test: %s\n", err);
        return 2;
    }
    mlp_dataset ds;
    int r = mlp_dataset_load(&ds, data_dir, "t10k", err, sizeof err);
    if (r > 0) {
        printf("SKIP: Fashion-MNIST test set not available: %s (install the Debian package "
               "dataset-fashion-mnist)\n", err);
        return SKIP_STATUS;
    }
    if (r < 0) {
        fprintf(stderr, "mlp_sim_test: %s\n", err);
        return 2;
    }

    /* The oracle: host reference predictions for every image any firmware will see. */
    size_t n_max = 0;
    for (size_t i = 0; i < n_fw; i++) {
        size_t n = fws[i].count < ds.n ? fws[i].count : ds.n;
        n_max = n > n_max ? n : n_max;
    }
    int *ref = malloc((n_max ? n_max : 1) * sizeof *ref);
    if (!ref) {
        fprintf(stderr, "mlp_sim_test: out of memory\n");
        return 2;
    }
    size_t ref_correct = 0;
    int status = 0;
    for (size_t k = 0; k < n_max; k++) {
        ref[k] = mlp_predict(&model, ds.images + k * MLP_N_IN, NULL);
        if (ref[k] < 0) {
            fprintf(stderr, "mlp_sim_test: host reference: image %zu leaves int32\n", k);
            status = 1;
        }
        ref_correct += (unsigned)ref[k] == ds.labels[k];
    }
    double ref_acc = n_max ? 100.0 * (double)ref_correct / (double)n_max : 0.0;
    printf("host reference: %zu images, %zu correct, accuracy %.2f %% (required >= %.2f %%)\n",
           n_max, ref_correct, ref_acc, min_acc);
    if (n_max == 0 || ref_acc < min_acc) {
        fprintf(stderr, "mlp_sim_test: FAIL: accuracy %.2f %% below %.2f %%\n", ref_acc,
                min_acc);
        status = 1;
    }

    for (size_t i = 0; i < n_fw; i++) {
        fflush(stdout);
        int rc = run_fw(&fws[i], &ds, stats_images, ref);
        if (rc != 0) {
            fprintf(stderr, "mlp_sim_test: FAIL: %s\n", fws[i].elf);
            status = 1;
        }
    }
    /* Firmware against firmware (e.g. plain against NPU), on the images both ran. */
    for (size_t i = 0; i < n_fw; i++) {
        for (size_t j = i + 1; j < n_fw; j++) {
            size_t n = fws[i].done < fws[j].done ? fws[i].done : fws[j].done, same = 0;
            for (size_t k = 0; k < n; k++)
                same += fws[i].pred[k] == fws[j].pred[k];
            printf("%s vs %s: %zu/%zu identical predictions\n", fws[i].elf, fws[j].elf, same, n);
            if (same != n || n == 0)
                status = 1;
        }
    }
    printf("%s\n", status == 0 ? "PASS" : "FAIL");
    for (size_t i = 0; i < n_fw; i++)
        free(fws[i].pred);
    free(ref);
    mlp_dataset_free(&ds);
    return status;
}
