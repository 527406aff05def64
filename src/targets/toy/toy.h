/* toy: internal declarations shared by the toy target's files. Every ISA fact comes from
 * isa.def through the X-macros below. */
#ifndef NPK_TOY_H
#define NPK_TOY_H

#include <stdint.h>

#include "core/target.h"

typedef enum toy_field {
#define TOY_FIELD(name, lsb, width) TOY_F_##name,
#include "targets/toy/isa.def"
    TOY_N_FIELDS,
    TOY_F_NONE = TOY_N_FIELDS
} toy_field;

typedef enum toy_op {
#define TOY_INSN(id, mnemonic, opcode, operands, options, unit, summary) TOY_##id,
#include "targets/toy/isa.def"
    TOY_N_OPS
} toy_op;

typedef enum toy_unit {
#define TOY_UNIT(id, name, latency) TOY_U_##id,
#include "targets/toy/isa.def"
    TOY_N_UNITS
} toy_unit;

/* Target counters reported with --stats (extras). */
typedef enum toy_extra { TOY_X_LOADS, TOY_X_STORES, TOY_X_TAKEN, TOY_X_STALLS, TOY_N_EXTRAS } toy_extra;

typedef struct toy_insn_info {
    const char *mnemonic;
    unsigned opcode;
    const char *operands;
    const char *options;
    toy_unit unit;
    const char *summary;
} toy_insn_info;

extern const toy_insn_info toy_insns[TOY_N_OPS];
extern const unsigned toy_field_lsb[TOY_N_FIELDS], toy_field_width[TOY_N_FIELDS];
extern const unsigned toy_unit_latency[TOY_N_UNITS];

static inline uint32_t toy_get(uint32_t w, toy_field f)
{
    return (w >> toy_field_lsb[f]) & ((1u << toy_field_width[f]) - 1u);
}

enum { TOY_READS_RS1 = 1, TOY_READS_RS2 = 2, TOY_WRITES_RD = 4 };

/* A word decoded once and cached. */
typedef struct toy_decoded {
    uint8_t op;       /* toy_op, or TOY_N_OPS for an illegal word */
    uint8_t rd, rs1, rs2, sat;
    uint8_t uses;     /* TOY_READS_RS1 | TOY_READS_RS2 | TOY_WRITES_RD, from the operands */
    int32_t imm;      /* sign-extended where the operand kind is signed */
} toy_decoded;

/* Decode `w`; returns 0 and fills *d for a legal word, else -1 with *why set. */
int toy_decode(uint32_t w, toy_decoded *d, const char **why);

typedef struct toy_state {
    uint32_t r[8];
    uint32_t pc;
    uint8_t *mem;
    uint32_t mem_size;
    toy_decoded *dcache;   /* one entry per memory word */
    uint8_t *dvalid;       /* dcache entry is current */
    npk_memspace space;
    /* timing model state (observed runs only) */
    uint64_t next_issue, ready[8];
} toy_state;

/* Timing: issue/completion cycles of one retired instruction (timing.c). */
void toy_timing(toy_state *s, const toy_decoded *d, int taken, uint64_t *start, uint64_t *end,
                uint64_t *stalls);

npk_status toy_run(npk_machine *m, void *state, uint64_t max_insns, npk_stop *stop);

#endif
