/* See gemm_run.h. */
#include "gemm_run.h"

#include <stdio.h>
#include <string.h>

npk_machine *onpu_gemm_machine(const char *spec, uint64_t mem_needed, char *err, size_t n)
{
    char cfg[64];
    uint64_t size = 1 << 20;
    while (size < mem_needed)
        size *= 2;
    snprintf(cfg, sizeof cfg, "mem_size=%llu", (unsigned long long)size);
    npk_machine *m = NULL;
    if (npk_create(&m, spec, cfg, err, n) != NPK_OK)
        return NULL;
    return m;
}

int onpu_gemm_run(npk_machine *m, const npk_opennpu_gemm_plan *p, const char *program,
                  uint8_t *image, int stats, onpu_gemm_result *res, char *err, size_t n)
{
    memset(res, 0, sizeof *res);
    if (npk_load_asm(m, program, "gemm.s", NULL) != NPK_OK) {
        snprintf(err, n, "assembling the GEMM program: %s", npk_error(m));
        return -1;
    }
    if (npk_mem_write(m, "mem", p->base, image, p->end - p->base) != NPK_OK) {
        snprintf(err, n, "writing the data image: %s", npk_error(m));
        return -1;
    }
    npk_stats_enable(m, stats);
    npk_stop stop;
    if (npk_run(m, 0, &stop) != NPK_OK) {
        snprintf(err, n, "run: %s", npk_error(m));
        return -1;
    }
    if (stop.reason != NPK_STOP_EXIT) {
        snprintf(err, n, "the GEMM program stopped early: %s", stop.message);
        return -1;
    }
    res->ok = 1;
    npk_stats st;
    if (npk_stats_get(m, &st) == NPK_OK) {
        res->insns = st.insns;
        res->ticks = st.cycles;
        for (size_t i = 0; i < st.n_extra; i++) {
            if (!strcmp(st.extra_name[i], "stall_ticks"))
                res->stalls = st.extra[i];
            if (!strcmp(st.extra_name[i], "mma_feeds"))
                res->feeds = st.extra[i];
        }
    }
    if (npk_mem_read(m, "mem", p->base, image, p->end - p->base) != NPK_OK) {
        snprintf(err, n, "reading the data image: %s", npk_error(m));
        return -1;
    }
    return 0;
}

void onpu_gemm_random(unsigned M, unsigned N, unsigned Kd, int8_t *A, int8_t *B, uint64_t seed)
{
    uint64_t x = seed ? seed : 1;
    for (size_t i = 0; i < (size_t)M * Kd + (size_t)Kd * N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        *(i < (size_t)M * Kd ? &A[i] : &B[i - (size_t)M * Kd]) = (int8_t)(x >> 24);
    }
}

void onpu_gemm_ref(unsigned M, unsigned N, unsigned Kd, const int8_t *A, const int8_t *B,
                   int32_t *C)
{
    for (unsigned i = 0; i < M; i++)
        for (unsigned j = 0; j < N; j++) {
            int64_t s = 0;
            for (unsigned t = 0; t < Kd; t++)
                s += (int64_t)A[(uint64_t)i * Kd + t] * B[(uint64_t)t * N + j];
            C[(uint64_t)i * N + j] = (int32_t)s;
        }
}
