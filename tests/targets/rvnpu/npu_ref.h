/* An independent reference for the rvnpu NPU (spec §4-§8): a direct transcription in host
 * binary64 arithmetic, written apart from src/targets/rvnpu/npu.c, for differential tests.
 * Faults are handled by snapshot and rollback, not by npu.c's pre-check. */
#ifndef NPK_TEST_RVNPU_NPU_REF_H
#define NPK_TEST_RVNPU_NPU_REF_H

#include <stdint.h>

#include "targets/rvnpu/rvnpu_isa.h"

/* A flat memory: RAM and one more mapped region; [hole_lo, hole_hi) is unmapped even where a
 * region covers it. */
typedef struct npu_ref_mem {
    uint8_t *ram;
    uint32_t ram_base, ram_size;
    uint8_t *dev;
    uint32_t dev_base, dev_size;
    uint32_t hole_lo, hole_hi;
} npu_ref_mem;

typedef struct npu_ref_state {
    uint64_t acc, facc;
    int8_t vreg[4][4];
    uint32_t x[32], f[32];
} npu_ref_state;

/* 0 on success; 1 on a trap with *mcause and *mtval set and nothing changed. */
int npu_ref_exec(npu_ref_state *s, npu_ref_mem *m, rvnpu_op op, uint32_t w, int rev2,
                 uint32_t *mcause, uint32_t *mtval);

/* The recipes of §5 on their own. */
int npu_ref_gelu8(int k);
uint32_t npu_ref_expq(uint32_t w);
uint32_t npu_ref_rsqrtq(uint32_t w);

#endif
