/* rvnpu differential test: random RV32IMF program generator. Encodings come from the one ISA
 * description (src/targets/rvnpu/isa.def); this module turns a seed into a self-contained ELF
 * whose only output is a dump of every register, fcsr and the scratch buffer. */
#ifndef NPK_RVGEN_H
#define NPK_RVGEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Layout of the image at 0x8000_0000: code, then the dump area, then the scratch buffer.
 * The guest writes dump + scratch in one write(1, ...) call, so stdout is exactly
 * RVG_OUT_BYTES long: x1..x31, f0..f31, fcsr (little-endian words), then the scratch bytes. */
#define RVG_BASE 0x80000000u
#define RVG_DUMP_WORDS (31 + 32 + 1)
#define RVG_DUMP_BYTES (4u * RVG_DUMP_WORDS)
#define RVG_SCRATCH_BYTES 512u
#define RVG_OUT_BYTES (RVG_DUMP_BYTES + RVG_SCRATCH_BYTES)
/* x27 (s11) holds scratch + 256 for the whole program and is never a destination, so every
 * load and store stays inside the scratch buffer with a 12-bit offset. */
#define RVG_PIN 27
/* x26 (s10) is never a destination either: items add their result into it ("observe"), so a
 * wrong intermediate value stays visible in the final dump even after its register has been
 * overwritten; only the last write to each register would be seen otherwise. */
#define RVG_ACC 26

/* One body item: one table instruction, or a short sequence that plants an interesting
 * value (lui/addi, plus fmv.w.x for FP), or a forward branch over `skip` items, or a flag
 * checkpoint (frflags into rd, then clear fflags: accrued flags saturate quickly, so without
 * this a missing flag late in a long body would go unseen), or a new dynamic rounding mode
 * (csrrwi rd, frm, value; value 0..4), or an M instruction with its operands planted first
 * (INT_MIN and -1, or a divisor of 0: the cases RISC-V defines instead of trapping). */
typedef struct rvg_item {
    int kind;            /* RVG_K_* */
    int row;             /* table row (RVG_K_INSN, RVG_K_BRANCH) */
    uint8_t rd, rs1, rs2, rs3, rm;
    int32_t imm;         /* imm12 / shamt / uimm20 / memory offset / skip count for branches */
    uint32_t value;      /* planted value (RVG_K_LI_X, RVG_K_LI_F; rs1 for RVG_K_MEDGE) */
    uint32_t value2;     /* rs2 for RVG_K_MEDGE */
    uint8_t observe;     /* then add the destination into x26 (through obs_tmp for an FP one) */
    uint8_t obs_tmp;
} rvg_item;

enum { RVG_K_INSN, RVG_K_LI_X, RVG_K_LI_F, RVG_K_BRANCH, RVG_K_FLAGS, RVG_K_FRM,
       RVG_K_MEDGE };

/* Initial architectural state the prologue establishes. */
typedef struct rvg_state {
    uint32_t x[32];      /* x0 ignored; x[RVG_PIN] is forced to the scratch pointer */
    uint32_t f[32];
    uint32_t fcsr;       /* frm must be 0..4 */
    uint8_t scratch[RVG_SCRATCH_BYTES];
} rvg_state;

typedef struct rvg_prog {
    rvg_state init;
    rvg_item *items;
    size_t n_items;
} rvg_prog;

typedef struct rvg_opts {
    int branches;        /* emit short forward branches */
    int no_m, no_f;      /* leave out classes (for narrowing a failure) */
} rvg_opts;

/* Table set-up; returns 0 or prints why it cannot work (for example isa.def has no base
 * RV32IMF rows yet) and returns -1. Safe to call more than once. */
int rvg_init(FILE *diag);

/* Random program: initial state and n items from `seed`. Item i depends only on the seed and
 * the items before it, so a prefix of a program is the shorter program with the same seed. */
int rvg_random(rvg_prog *p, uint64_t seed, size_t n, const rvg_opts *o);
void rvg_free(rvg_prog *p);

/* Build the ELF for the first `n_items` items of p (n_items <= p->n_items). *elf is malloc'd.
 * *n_words receives the number of instruction words in the code (for budgets). */
int rvg_elf(const rvg_prog *p, size_t n_items, uint8_t **elf, size_t *size, size_t *n_words);

/* Assembly-like listing of item i ("fadd.s f3, f4, f5, rtz"), with its words. */
void rvg_list_item(const rvg_prog *p, size_t i, FILE *f);

/* Encode one instruction from the table by mnemonic with the given fields (for tests and
 * the fixed prologue/epilogue). Returns 0 and sets *w, or -1 if the mnemonic is unknown. */
typedef struct rvg_fields {
    unsigned rd, rs1, rs2, rs3, rm, csr;
    int32_t imm;
} rvg_fields;
int rvg_encode(const char *mnemonic, const rvg_fields *fl, uint32_t *w);
/* Table row of a mnemonic (for hand-built items), or -1. */
int rvg_row_index(const char *mnemonic);

/* Describe the differences between two outputs (register names, scratch offsets). Returns the
 * number of differing words/bytes. */
size_t rvg_diff(const uint8_t *want, size_t nwant, const uint8_t *got, size_t ngot, FILE *f,
                const char *want_name, const char *got_name);

/* Read word k (0 = x1) of a dump. */
static inline uint32_t rvg_dump_word(const uint8_t *out, size_t k)
{
    const uint8_t *b = out + 4 * k;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
#define RVG_DUMP_X(out, r) rvg_dump_word((out), (size_t)(r) - 1)
#define RVG_DUMP_F(out, r) rvg_dump_word((out), 31 + (size_t)(r))
#define RVG_DUMP_FCSR(out) rvg_dump_word((out), 63)

/* Addresses of the dump and scratch buffer for a program of `n_words` code words. */
uint32_t rvg_scratch_addr(size_t n_words);

uint64_t rvg_mix(uint64_t seed, uint64_t k);

#endif
