/* rvnpu NPU: the architectural state of both NPU opcode spaces (spec §2) and their semantics
 * (§4-§8), independent of the CPU core. The core decodes (isa.def), then hands NPU
 * instructions here with its register files and a view of its memory system. */
#ifndef NPK_RVNPU_NPU_H
#define NPK_RVNPU_NPU_H

#include <stdint.h>

#include "targets/rvnpu/rvnpu_isa.h"

typedef struct rvnpu_npu {
    uint64_t acc;        /* 64-bit two's-complement accumulator; wraps modulo 2^64 */
    uint64_t facc;       /* binary64 accumulator, raw bits; NaN is always 0x7FF8000000000000 */
    int8_t vreg[4][4];   /* vreg[k][j], element j of vector register k */
    int8_t gelu8[256];   /* GELU8(k) at index (uint8_t)k, built by rvnpu_npu_init or by the
                            first GELU8 after rvnpu_npu_init_lazy (spec §5.1) */
    int gelu8_built;
} rvnpu_npu;

/* The memory system as NPU instructions see it (spec §8): every element access is an
 * ordinary 1- or 4-byte little-endian data access, at any alignment. */
typedef struct rvnpu_bus {
    void *ctx;
    /* 1 when the `len`-byte access at `addr` lies wholly inside one mapped region */
    int (*mapped)(void *ctx, uint32_t addr, uint32_t len);
    /* size 1 or 4; only called for accesses `mapped` accepted (devices may have side effects) */
    uint32_t (*load)(void *ctx, uint32_t addr, unsigned size);
    void (*store)(void *ctx, uint32_t addr, uint32_t value, unsigned size);
    /* RAM, for a fast path when an array lies wholly in RAM (results must be identical) */
    uint8_t *ram;
    uint32_t ram_base, ram_size;
    /* Not NULL: an array wholly in RAM may also be written there directly, element by element
     * in order, and then this is called once with the range written (the core drops cached
     * decodes there and notes the tohost word, as store() does per element). NULL: every
     * element is stored through store() (where an observer sees it). */
    void (*wrote)(void *ctx, uint32_t addr, uint32_t len);
} rvnpu_bus;

/* A trap raised by an NPU instruction; when one is raised nothing else changed (§7.3, §8). */
typedef struct rvnpu_npu_trap {
    uint32_t mcause;     /* 2 illegal (rev2 vector length), 5 load / 7 store access fault */
    uint32_t mtval;      /* the instruction word (mcause 2) or the faulting address */
    char detail[200];    /* for the diagnostic: e.g. "NPU vector-length fault: n=65, element
                            size 4, 260 bytes > 256-byte limit (rev2; the seed revision has
                            no limit)" */
} rvnpu_npu_trap;

/* Build tables (GELU8) and reset the state. */
void rvnpu_npu_init(rvnpu_npu *n);
/* The same, except that the GELU8 table (256 soft-float GELU evaluations, most of the cost of
 * creating a machine) is built by the first GELU8 instruction: most programs never run one. */
void rvnpu_npu_init_lazy(rvnpu_npu *n);
/* Reset acc, facc, vreg (spec §2); tables are kept. */
void rvnpu_npu_reset(rvnpu_npu *n);

/* Execute the NPU instruction `op` (an RVNPU_OP_NPU_* id from isa.def) encoded as `w`.
 * x and f are the integer and FP register files (raw bits; x[0] is 0 on entry and the core
 * discards writes to it after the call). `rev2` selects the revision. On success returns 0
 * and sets *elements to the number of elements processed (1 for scalar operations, for
 * statistics and timing); on a trap returns 1 and fills *trap, with no state changed. */
int rvnpu_npu_exec(rvnpu_npu *n, rvnpu_op op, uint32_t w, uint32_t x[32], uint32_t f[32],
                   int rev2, const rvnpu_bus *bus, uint32_t *elements, rvnpu_npu_trap *trap);

/* Debug register block at 0x2000_0000 (spec §9): byte read and byte write at `off` < 0x100. */
uint8_t rvnpu_npu_reg_read(const rvnpu_npu *n, uint32_t off);
void rvnpu_npu_reg_write(rvnpu_npu *n, uint32_t off, uint8_t value);

#endif
