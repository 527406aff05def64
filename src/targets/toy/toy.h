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

typedef enum toy_operand_id {
#define TOY_OPERAND(name, kind, field, field2) TOY_O_##name,
#include "targets/toy/isa.def"
    TOY_N_OPERANDS
} toy_operand_id;

typedef enum toy_option_id {
#define TOY_OPTION(name, field) TOY_OPT_##name,
#include "targets/toy/isa.def"
    TOY_N_OPTIONS
} toy_option_id;

typedef enum toy_unit {
#define TOY_UNIT(id, name, latency) TOY_U_##id,
#include "targets/toy/isa.def"
    TOY_N_UNITS
} toy_unit;

/* Target counters reported with --stats (extras). */
typedef enum toy_extra { TOY_X_LOADS, TOY_X_STORES, TOY_X_TAKEN, TOY_X_STALLS, TOY_N_EXTRAS } toy_extra;

/* Operand kinds of isa.def. */
typedef enum toy_kind { TOY_K_REG, TOY_K_SIMM, TOY_K_UIMM, TOY_K_MEM, TOY_K_PCREL } toy_kind;

/* The tables of isa.def as data (isa.c); decoder, assembler, disassembler and statistics all
 * read these. */
typedef struct toy_field_info {
    const char *name;
    unsigned lsb, width;
} toy_field_info;

typedef struct toy_operand_info {
    const char *name;
    toy_kind kind;
    toy_field field, field2;
} toy_operand_info;

typedef struct toy_option_info {
    const char *name;
    toy_field field;
} toy_option_info;

typedef struct toy_insn_info {
    const char *mnemonic;
    unsigned opcode;
    const char *operands;
    const char *options;
    toy_unit unit;
    const char *summary;
} toy_insn_info;

extern const toy_field_info toy_fields[TOY_N_FIELDS];
extern const toy_operand_info toy_operands[TOY_N_OPERANDS];
extern const toy_option_info toy_options[TOY_N_OPTIONS + 1];   /* + sentinel */
extern const toy_insn_info toy_insns[TOY_N_OPS];
extern const char *const toy_mnemonics[TOY_N_OPS];
extern const char *const toy_unit_names[TOY_N_UNITS];
extern const unsigned toy_unit_latency[TOY_N_UNITS];

/* Bits of a field in the word (0 for TOY_F_NONE). */
static inline uint32_t toy_field_mask(toy_field f)
{
    if (f >= TOY_N_FIELDS)
        return 0;
    return (uint32_t)((((uint64_t)1 << toy_fields[f].width) - 1) << toy_fields[f].lsb);
}

static inline uint32_t toy_get(uint32_t w, toy_field f)
{
    if (f >= TOY_N_FIELDS)
        return 0;
    return (w & toy_field_mask(f)) >> toy_fields[f].lsb;
}

static inline int32_t toy_get_s(uint32_t w, toy_field f)
{
    if (f >= TOY_N_FIELDS)
        return 0;
    uint32_t v = toy_get(w, f), width = toy_fields[f].width;
    return (int32_t)(v ^ (1u << (width - 1))) - (int32_t)(1u << (width - 1));
}

#define TOY_MAX_OPERANDS 8

/* Operand ids of an isa.def operand list ("rd,rs1,imm"); returns the count, -1 if a name is
 * unknown. */
int toy_operand_list(const char *list, toy_operand_id *out);
/* Option bits (1 << toy_option_id) of an isa.def option list; -1 if a name is unknown. */
int toy_option_mask(const char *list, uint32_t *mask);

/* What a decoded instruction reads and writes, from its operand list. */
enum { TOY_READS_RS1 = 1, TOY_READS_RS2 = 2, TOY_WRITES_RD = 4 };

/* A word decoded once and cached. */
typedef struct toy_decoded {
    uint8_t op;       /* toy_op, or TOY_N_OPS for an illegal word */
    uint8_t rd, rs1, rs2, sat;
    uint8_t uses;     /* TOY_READS_RS1 | TOY_READS_RS2 | TOY_WRITES_RD, from the operands */
    int32_t imm;      /* sign-extended where the operand kind is signed */
} toy_decoded;

/* Decode `w`; returns 0 and fills *d for a legal word. For an illegal word returns -1 and
 * writes the reason to why (if non-NULL). The one place toy's legality rule lives. */
int toy_decode(uint32_t w, toy_decoded *d, char *why, size_t why_size);

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
npk_status toy_step(npk_machine *m, void *state, npk_stop *stop);

#endif
