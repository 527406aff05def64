/* npukit's GEMM generator for opennpu's K x K MMA array (opennpu spec §5.12), a library call
 * for programs that drive npukit (examples/opennpu, the Python package's npukit.opennpu.gemm,
 * model lowering). C linkage; no exit, no globals.
 *
 * C = A * B: C = A * B with
 * A (M x Kd) and B (Kd x N) signed 8-bit, C (M x N) int32, any M, N, Kd >= 1.
 *
 * The ISA has no branches, so a GEMM is a straight-line program made for one shape and one
 * memory layout: npk_opennpu_gemm_plan_make() decides the layout, npk_opennpu_gemm_pack()
 * writes A and B into a data-memory image in the packed form the program loads, and
 * npk_opennpu_gemm_program() writes the assembly source. The schedule and the tick bound
 * it is measured against are derived in docs/opennpu.md ("GEMM").
 *
 * Memory layout (all offsets from plan.base, little-endian):
 *   A panels   one per tile row I (rows 8I .. 8I+7 at K = 8): a 4-byte index word
 *              (bytes 0, 1, 2, 3; used to read back a value parked in LUT bank B) followed by
 *              ceil(Kd/4) quads of 4K bytes; quad u holds A[K*I + q][4u + b] at byte 4q + b
 *              (zero outside A), so one ld.vr puts column 4u + b of the tile into lane q of
 *              VX[4r + b].
 *   B panels   one per tile column J: ceil(Kd/4) quads of 4K bytes; quad u holds
 *              B[4u + b][K*J + p] at byte 4p + b.
 *   C          row-major int32, row stride ldc = 4N bytes, followed by 4K bytes of slack:
 *              a tile at the right edge is stored as whole rows of K values, and the values
 *              past column N-1 land in the next row (rewritten later in program order) or,
 *              after the last row, in the slack.
 * The program also uses LUT bank B segment 0 as scratch when every VR register is a drain
 * target (K = L/4). */
#ifndef NPUKIT_OPENNPU_H
#define NPUKIT_OPENNPU_H

#include <stddef.h>
#include <stdint.h>

#include "npukit/npukit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct npk_opennpu_gemm_plan {
    unsigned M, N, Kd;         /* shape */
    unsigned K, L;             /* machine: lanes (array side) and VX registers */
    unsigned tiles_m, tiles_n, quads;
    uint64_t base;             /* first byte used */
    uint64_t a_addr, a_panel;  /* A panels start, bytes per panel */
    uint64_t b_addr, b_panel;
    uint64_t c_addr, ldc;      /* C start, row stride in bytes */
    uint64_t end;              /* one past the last byte used (C slack included) */
} npk_opennpu_gemm_plan;

/* Layout for C = A * B at `base` on a machine with K lanes and L VX registers. NPK_OK, or
 * NPK_ERR_ARG with a message in err (bad shape, K > L/4: the drain of a K x K tile does not
 * fit the VR file, an address range beyond 2^31). */
NPK_API npk_status npk_opennpu_gemm_plan_make(npk_opennpu_gemm_plan *p, unsigned M, unsigned N,
                                              unsigned Kd, unsigned K, unsigned L, uint64_t base,
                                              char *err, size_t err_size);

/* Write the packed A and B (row-major int8 matrices) and the index words into mem, which
 * holds the bytes [p->base, p->end) (so mem[0] is address p->base). C is zeroed. */
NPK_API void npk_opennpu_gemm_pack(const npk_opennpu_gemm_plan *p, const int8_t *A,
                                   const int8_t *B, uint8_t *mem);

/* The same for A alone (tiles_m * a_panel bytes at dst) and B alone (tiles_n * b_panel). */
NPK_API void npk_opennpu_gemm_pack_a(const npk_opennpu_gemm_plan *p, const int8_t *A,
                                     uint8_t *dst);
NPK_API void npk_opennpu_gemm_pack_b(const npk_opennpu_gemm_plan *p, const int8_t *B,
                                     uint8_t *dst);

/* Read C (row-major int32, M x N) back from such an image. */
NPK_API void npk_opennpu_gemm_unpack_c(const npk_opennpu_gemm_plan *p, const uint8_t *mem,
                                       int32_t *C);

/* Statistics of a generated program (what the schedule costs, §6.3 ticks at mem_latency 1). */
typedef struct npk_opennpu_gemm_counts {
    uint64_t insns, feeds, loads, stores, setup;  /* setup: base-address and scratch work */
    uint64_t ticks;  /* predicted tick count at mem_latency = 1 */
    uint64_t bound;  /* the lower bound of docs/opennpu.md: feeds + loads + stores +
                        (K - 1) drain ticks per tile */
} npk_opennpu_gemm_counts;

/* The assembly source (malloc'd, NUL-terminated; free with free()). NULL on allocation
 * failure. counts may be NULL. */
NPK_API char *npk_opennpu_gemm_program(const npk_opennpu_gemm_plan *p,
                                       npk_opennpu_gemm_counts *counts);

/* The generator as a program builder, for programs that combine GEMMs with other work (the
 * MLP): instructions are appended in order; the builder tracks which VR registers hold a known
 * base address (lane 0) so that loads and stores reuse them. */
typedef struct npk_opennpu_gen npk_opennpu_gen;
NPK_API npk_opennpu_gen *npk_opennpu_gen_new(unsigned K, unsigned L); /* NULL: out of memory */
NPK_API void npk_opennpu_gen_free(npk_opennpu_gen *g);
/* Append a whole GEMM. */
NPK_API void npk_opennpu_gen_gemm(npk_opennpu_gen *g, const npk_opennpu_gemm_plan *p);
/* Comment or blank text, verbatim; one instruction (a line). */
NPK_API void npk_opennpu_gen_text(npk_opennpu_gen *g, const char *fmt, ...);
NPK_API void npk_opennpu_gen_insn(npk_opennpu_gen *g, const char *fmt, ...);
/* A VR register whose lane 0 + offset (-2048 .. 2047) is addr, building one if needed in a
 * register that is neither busy nor in the `avoid` mask (bit r = VR r). */
NPK_API unsigned npk_opennpu_gen_base(npk_opennpu_gen *g, uint64_t addr, unsigned avoid,
                                      long long *offset);
/* A free VR register (not busy, not in avoid), for data; its old contents are forgotten. */
NPK_API unsigned npk_opennpu_gen_reg(npk_opennpu_gen *g, unsigned avoid);
/* VR vr holds data (never a new base) or no longer does; VR vr was written. */
NPK_API void npk_opennpu_gen_busy(npk_opennpu_gen *g, unsigned vr, int busy);
NPK_API void npk_opennpu_gen_clobber(npk_opennpu_gen *g, unsigned vr);
/* The text (malloc'd; NULL when out of memory) and counts; frees the builder. */
NPK_API char *npk_opennpu_gen_finish(npk_opennpu_gen *g, npk_opennpu_gemm_counts *counts);

#ifdef __cplusplus
}
#endif
#endif
