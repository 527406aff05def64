/* Running a generated GEMM on the simulator through the public API (used by the test, the
 * tool's --run and the benchmark). */
#ifndef ONPU_GEMM_RUN_H
#define ONPU_GEMM_RUN_H

#include "npukit/npukit.h"
#include "npukit/opennpu.h"

typedef struct onpu_gemm_result {
    uint64_t insns, ticks, stalls, feeds;  /* ticks etc. only when stats were on */
    int ok;                                /* ran to the end of the program */
} onpu_gemm_result;

/* Create a machine for `spec` (e.g. "opennpu" or "opennpu:K=4,L=16") with enough data memory
 * for the plan's layout; NULL and a message in err on failure. */
npk_machine *onpu_gemm_machine(const char *spec, uint64_t mem_needed, char *err, size_t n);

/* Assemble `program`, write `image` ([p->base, p->end)) into data memory, run (with
 * statistics when `stats`), read the image back into `image`. Returns 0, or -1 with err set. */
int onpu_gemm_run(npk_machine *m, const npk_opennpu_gemm_plan *p, const char *program,
                  uint8_t *image, int stats, onpu_gemm_result *res, char *err, size_t n);

/* Seeded random int8 matrices A (M x Kd) then B (Kd x N), row-major (xorshift64, byte 3 of
 * each state; the same seed gives the same matrices everywhere). */
void onpu_gemm_random(unsigned M, unsigned N, unsigned Kd, int8_t *A, int8_t *B, uint64_t seed);

/* Host reference: C = A * B exactly (int32; Kd * 128 * 128 < 2^31 for Kd < 131072). */
void onpu_gemm_ref(unsigned M, unsigned N, unsigned Kd, const int8_t *A, const int8_t *B,
                   int32_t *C);

#endif
