/* The endless loops bench_step and bench_commit time (toy as raw words, rvnpu as assembly),
 * and their clock. Header-only, shared by bench/core. */
#ifndef NPK_BENCH_LOOPS_H
#define NPK_BENCH_LOOPS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define W(opc, rd, rs1, rs2, imm)                                                            \
    ((uint32_t)(opc) << 26 | (uint32_t)(rd) << 23 | (uint32_t)(rs1) << 20 |                  \
     (uint32_t)(rs2) << 17 | ((uint32_t)(imm)&0xffff))

/* toy: an endless counting loop (li; addi, add, jmp) */
static const uint32_t toy_loop[] = {
    W(0x04, 1, 0, 0, 0),  /* li   r1, 0 */
    W(0x0B, 1, 1, 0, 1),  /* addi r1, r1, 1 */
    W(0x08, 2, 2, 1, 0),  /* add  r2, r2, r1 */
    W(0x1B, 0, 0, 0, -2), /* jmp  back to the addi */
};

/* rvnpu: an endless loop with a load, a store (to a data page) and ALU work */
static const char rv_loop[] = "    la s0, buf\n"
                              "loop:\n"
                              "    lw t0, 0(s0)\n"
                              "    addi t0, t0, 1\n"
                              "    sw t0, 0(s0)\n"
                              "    add a0, a0, t0\n"
                              "    xor a1, a1, a0\n"
                              "    j loop\n"
                              "    .balign 4096\n"
                              "buf: .word 0\n";

static inline double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The options both benchmarks take, --insns N and --runs R (defaults 20000000 and 3): -1 to go
 * on, else the exit status (0 after -h/--help, 2 for anything else, with `usage` printed). */
static inline int bench_loops_args(int argc, char **argv, const char *usage, uint64_t *n,
                                   unsigned *runs)
{
    *n = 20000000;
    *runs = 3;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--insns") == 0 && i + 1 < argc)
            *n = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            *runs = (unsigned)atoi(argv[++i]);
        else {
            fputs(usage, stdout);
            return strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    return -1;
}

#endif
