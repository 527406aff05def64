/* rvnpu FP NPU speed: the FP32 character transformer (examples/rvnpu/transformer) in its NPU
 * build (FVMAC, FMACC, FRSTACC, ...: binary64 accumulation) and its plain RV32IMF build (the
 * same network as C loops on the F extension), each over the eight test prompts with the
 * whole 32-byte context, in the same command: one pass with statistics for the retired
 * counts, then timed passes on the fast path (npk_run with no observers; machine creation and
 * loading not timed), the two builds alternating, best of N by CPU time. Prints each build's
 * MIPS and the NPU build's host time over the plain build's, with issue 18's goals beside.
 * Usage: bench_transformer [--runs N] [NPU.elf PLAIN.elf PROMPTS.txt]  (default: the build's) */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npukit/npukit.h"
#include "bench_machine.h"
#include "bench_run.h"

#ifndef BENCH_TF_NPU_ELF
#define BENCH_TF_NPU_ELF ""
#endif
#ifndef BENCH_TF_PLAIN_ELF
#define BENCH_TF_PLAIN_ELF ""
#endif
#ifndef BENCH_TF_PROMPTS
#define BENCH_TF_PROMPTS ""
#endif

#define GOAL_MIPS 150.0 /* the NPU build on the fast path */
#define GOAL_RATIO 4.0  /* plain host time / NPU host time */
#define MAX_PROMPTS 8
#define CTX 32

typedef struct build {
    const char *label;
    unsigned char *elf;
    size_t elf_size;
    uint64_t insns;              /* retired, all prompts */
    double best_cpu;             /* best pass, s */
    char *out[MAX_PROMPTS];      /* guest stdout per prompt */
} build;

/* One prompt on one build: returns the CPU time of npk_run, or -1 (after a message). The
 * guest's stdout goes to *out (malloc'd); with `stats`, *insns gets the retired count. */
static double run_prompt(build *b, const char *prompt, int stats, char **out, uint64_t *insns)
{
    char tokens[CTX] = {0};
    int32_t n_tokens = (int32_t)strlen(prompt), n_generate = 0; /* 0: fill the context */
    bench_symbol syms[3] = {{"test_tokens", tokens, CTX}, {"test_n_tokens", &n_tokens, 4},
                            {"test_n_generate", &n_generate, 4}};
    double cpu;
    memcpy(tokens, prompt, (size_t)n_tokens);
    if (npukit_run(b->label, b->elf, b->elf_size, syms, 3, stats, out, insns, &cpu) < 0)
        return -1;
    return cpu;
}

/* All prompts once. The first pass (stats) records outputs and counts; later passes must
 * print the same. Returns the pass's CPU time or -1. */
static double pass(build *b, char **prompts, int np, int stats)
{
    double total = 0;
    for (int i = 0; i < np; i++) {
        char *out = NULL;
        uint64_t insns = 0;
        double t = run_prompt(b, prompts[i], stats, &out, &insns);
        if (t < 0)
            return -1;
        if (stats) {
            b->out[i] = out;
            b->insns += insns;
        } else {
            int same = strcmp(out, b->out[i]) == 0;
            free(out);
            if (!same) {
                fprintf(stderr, "%s: prompt %d printed something else than before\n", b->label, i);
                return -1;
            }
            total += t;
        }
    }
    return total;
}

int main(int argc, char **argv)
{
    const char *paths[3] = {BENCH_TF_NPU_ELF, BENCH_TF_PLAIN_ELF, BENCH_TF_PROMPTS};
    int runs = 5, nprompt = 0, bad = 0;
    char *prompts[MAX_PROMPTS], load[64];
    unsigned char *ptext;
    size_t psize;
    build b[2] = {{.label = "transformer (NPU)"}, {.label = "transformer_plain"}};

    int args = npk_bench_files_args(argc, argv, "NPU.elf PLAIN.elf PROMPTS.txt", &runs, paths, 3);
    if (args)
        return args < 0 ? 0 : args;
    for (int k = 0; k < 2; k++) {
        if (read_file(paths[k], &b[k].elf, &b[k].elf_size) != 0) {
            fprintf(stderr, "%s: cannot read '%s' (built with the rvnpu firmware: Debian "
                            "packages clang and lld)\n", b[k].label, paths[k]);
            return 1;
        }
    }
    if (read_file(paths[2], &ptext, &psize) != 0) {
        fprintf(stderr, "cannot read the prompts file '%s'\n", paths[2]);
        return 1;
    }
    for (char *line = strtok((char *)ptext, "\n"); line && nprompt < MAX_PROMPTS;
         line = strtok(NULL, "\n"))
        if (line[0] && strlen(line) < CTX)
            prompts[nprompt++] = line;

    npk_bench_machine();
    printf("timing: %d prompts per pass, full %d-byte context; best of %d passes by CPU time "
           "(npk_run only), the two builds alternating\n", nprompt, CTX, runs);
    printf("load average before: %s\n", npk_bench_loadavg(load, sizeof load));
    fflush(stdout);
    for (int k = 0; k < 2 && !bad; k++)
        bad = pass(&b[k], prompts, nprompt, 1) < 0;
    for (int r = 0; r < runs && !bad; r++)
        for (int k = 0; k < 2 && !bad; k++) {
            double t = pass(&b[k], prompts, nprompt, 0);
            bad = t < 0;
            if (!bad && (b[k].best_cpu == 0 || t < b[k].best_cpu))
                b[k].best_cpu = t;
        }
    if (!bad) {
        int same = 0;
        for (int i = 0; i < nprompt; i++)
            same += strcmp(b[0].out[i], b[1].out[i]) == 0;
        double mips0 = (double)b[0].insns / b[0].best_cpu / 1e6;
        double ratio = b[1].best_cpu / b[0].best_cpu;
        for (int k = 0; k < 2; k++)
            printf("%s: %.2f M instructions, %.4f s, %.0f MIPS\n", b[k].label,
                   (double)b[k].insns / 1e6, b[k].best_cpu,
                   (double)b[k].insns / b[k].best_cpu / 1e6);
        printf("NPU build: %.1fx fewer instructions, %.2fx less host time than plain "
               "(NPU / plain host time %.3f); same text on %d of %d prompts\n",
               (double)b[1].insns / (double)b[0].insns, ratio, 1 / ratio, same, nprompt);
        printf("load average after: %s\n", npk_bench_loadavg(load, sizeof load));
        printf("goal (NPU build >= %.0f MIPS): %s (%.0f MIPS); goal (NPU build >= %.0fx less "
               "host time than plain): %s (%.2fx)\n",
               GOAL_MIPS, mips0 >= GOAL_MIPS ? "met" : "NOT met", mips0, GOAL_RATIO,
               ratio >= GOAL_RATIO ? "met" : "NOT met", ratio);
    }
    for (int k = 0; k < 2; k++) {
        free(b[k].elf);
        for (int i = 0; i < nprompt; i++)
            free(b[k].out[i]);
    }
    free(ptext);
    return bad ? 1 : 0;
}
