/* opennpu machine: the state shared by machine.c (configuration, spaces, loading), exec.c
 * (semantics of spec §5 and the traps of §6.2) and timing.c (the tick model of §6.3). */
#ifndef NPK_OPENNPU_MACHINE_H
#define NPK_OPENNPU_MACHINE_H

#include <stdint.h>

#include "targets/opennpu/opennpu.h"

#define ONPU_MAX_L 32u
#define ONPU_MAX_K 64u

/* Target counters reported with --stats (extras). */
typedef enum onpu_extra {
    ONPU_X_STALLS,      /* ticks an instruction issued later than t_{n-1} + 1 */
    ONPU_X_FEEDS,       /* mma and mma.last feeds */
    ONPU_X_UTIL,        /* MMA utilisation in per mille: 1000 * feeds / ticks */
    ONPU_X_LOADED,      /* data-memory bytes read by LD */
    ONPU_X_STORED,      /* data-memory bytes written by ST */
    ONPU_X_TRAPS,       /* runs that stopped on an illegal word or a memory fault */
    ONPU_N_EXTRAS
} onpu_extra;

/* Backdoor spaces, in the order npk_space() lists them. */
typedef enum onpu_space {
    ONPU_SP_PROG, ONPU_SP_MEM, ONPU_SP_RF, ONPU_SP_VE, ONPU_SP_VR, ONPU_SP_LUTA, ONPU_SP_LUTB,
    ONPU_SP_ACC, ONPU_N_SPACES
} onpu_space;

/* One program word, decoded once at load. The row masks are the S_n and D_n of §6.3 (bit r =
 * VX row r; L <= 32 rows fit in 32 bits). */
typedef struct onpu_slot {
    onpu_decoded d;
    uint32_t src_rows, dst_rows;
    uint8_t legal;
} onpu_slot;

typedef struct onpu_state {
    onpu_cfg cfg;
    /* architectural state (§3) */
    uint8_t rf[ONPU_MAX_L * ONPU_MAX_K];        /* B[r][k] at r*K + k */
    uint8_t lut[2][256];                        /* banks A and B */
    uint32_t P[ONPU_MAX_K * ONPU_MAX_K];        /* P[i][j] at i*K + j */
    uint8_t *mem;
    /* the program: words (little-endian image) and their decoded form */
    uint8_t *image;
    onpu_slot *slots;
    uint64_t n_words;
    uint64_t pc;                                /* position of the next word */
    /* tick model (observed runs only) */
    uint64_t ready[ONPU_MAX_L];                 /* R[r] */
    uint64_t next_issue;                        /* t_{n-1} + 1 */
    uint64_t block_t0;                          /* T0 of the open MMA block */
    int block_open;
    uint64_t ticks;                             /* largest completion tick so far */
    npk_memspace spaces[ONPU_N_SPACES];
    /* the register list (docs/state.md): pc, vx0.., ve0.., vr0.., P[0].. (rows of P) */
    npk_reg_info reg_list[1 + ONPU_MAX_L + ONPU_MAX_L / 2 + ONPU_MAX_L / 4 + ONPU_MAX_K];
    char reg_names[1 + ONPU_MAX_L + ONPU_MAX_L / 2 + ONPU_MAX_L / 4 + ONPU_MAX_K][16];
    size_t n_regs;
} onpu_state;

/* Decode word w into a slot for the state's configuration (timing row masks included). */
void onpu_slot_fill(const onpu_state *s, uint32_t w, onpu_slot *slot);

/* Tick model (timing.c): issue tick and completion tick of the legal instruction in slot,
 * which has just executed without a trap; updates the row ready ticks. */
void onpu_timing(onpu_state *s, const onpu_slot *slot, uint64_t *issue, uint64_t *done,
                 uint64_t *stalls);
void onpu_timing_reset(onpu_state *s);
/* Source and destination rows of a decoded legal instruction (§6.3). */
void onpu_rows(const onpu_cfg *c, const onpu_decoded *d, uint32_t *src, uint32_t *dst);

/* Lane k of register reg of a class, from the byte-planar register file (§3.1). */
static inline uint32_t onpu_lane_get(const onpu_state *s, unsigned cls, unsigned reg, unsigned k)
{
    unsigned K = s->cfg.K, row = reg << cls;
    uint32_t v = 0;
    for (unsigned b = 0; b < (1u << cls); b++)
        v |= (uint32_t)s->rf[(row + b) * K + k] << (8 * b);
    return v;
}

static inline void onpu_lane_set(onpu_state *s, unsigned cls, unsigned reg, unsigned k,
                                 uint32_t v)
{
    unsigned K = s->cfg.K, row = reg << cls;
    for (unsigned b = 0; b < (1u << cls); b++)
        s->rf[(row + b) * K + k] = (uint8_t)(v >> (8 * b));
}

npk_status onpu_run(npk_machine *m, void *state, uint64_t max_insns, npk_stop *stop);

#endif
