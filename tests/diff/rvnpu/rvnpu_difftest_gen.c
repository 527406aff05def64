/* rvnpu_difftest_gen: write one random RV32IMF test ELF (and optionally its listing), for
 * reproducing a differential-test failure by hand:
 *   rvnpu_difftest_gen -s SEED -n N [-p PREFIX] [--no-branches] -o prog.elf [-l] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvgen.h"
#include "rvrun.h"

static void usage(void)
{
    fprintf(stderr, "usage: rvnpu_difftest_gen -s SEED -n N [-p PREFIX] [--no-branches] "
                    "[--no-m] [--no-f] -o OUT.elf [-l]\n"
                    "  SEED is the per-program seed that rvnpu_difftest prints on a mismatch;\n"
                    "  PREFIX keeps only the first PREFIX body items; -l lists the body.\n");
}

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    size_t n = 100, prefix = (size_t)-1;
    const char *out = NULL;
    int list = 0;
    rvg_opts o = {1, 0, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-s") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (strcmp(a, "-n") == 0 && i + 1 < argc)
            n = (size_t)strtoull(argv[++i], NULL, 0);
        else if (strcmp(a, "-p") == 0 && i + 1 < argc)
            prefix = (size_t)strtoull(argv[++i], NULL, 0);
        else if (strcmp(a, "-o") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(a, "-l") == 0)
            list = 1;
        else if (strcmp(a, "--no-branches") == 0)
            o.branches = 0;
        else if (strcmp(a, "--no-m") == 0)
            o.no_m = 1;
        else if (strcmp(a, "--no-f") == 0)
            o.no_f = 1;
        else {
            usage();
            return 2;
        }
    }
    if (!out && !list) {
        usage();
        return 2;
    }
    rvg_prog p;
    if (rvg_random(&p, seed, n, &o) != 0)
        return 1;
    if (prefix > n)
        prefix = n;
    if (list) {
        printf("# seed 0x%016" PRIx64 ", %zu of %zu items\n", seed, prefix, n);
        for (size_t i = 0; i < prefix; i++)
            rvg_list_item(&p, i, stdout);
    }
    int rc = 0;
    if (out) {
        uint8_t *elf;
        size_t size, words;
        if (rvg_elf(&p, prefix, &elf, &size, &words) != 0) {
            rc = 1;
        } else {
            /* executable: qemu-riscv32 refuses to load a file without x permission */
            if (rvr_write_file(out, elf, size) != 0) {
                fprintf(stderr, "rvnpu_difftest_gen: cannot write %s\n", out);
                rc = 1;
            }
            free(elf);
        }
    }
    rvg_free(&p);
    return rc;
}
