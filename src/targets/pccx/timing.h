/* pccx timing model (docs/spec/pccx.md §11): turns the footprints of functionally executed
 * instructions into push, decode, start and completion cycles. Concurrent engines with their
 * queues, the command FIFO, sync waits, L2 / host / constant-cache / E_MAX hazards and first-
 * come-first-served port B bursts. It never changes results. An online discrete-event model:
 * instructions are pushed in issue order at the host clock; the model advances time only as
 * far as it must (a push that needs a free FIFO entry, a sync, a status read), so results are
 * final for every event before the host clock. All times are core cycles. */
#ifndef NPK_PCCX_TIMING_H
#define NPK_PCCX_TIMING_H

#include <stddef.h>
#include <stdint.h>

#include "npukit/pccx.h"

/* A half-open range [lo, hi); empty when hi <= lo. */
typedef struct pccx_range {
    uint64_t lo, hi;
} pccx_range;

/* What the timing model needs to know about one executed instruction. */
typedef enum pccx_fp_kind {
    PCCX_FP_DROPPED,     /* hw-compat: dropped at decode (a, d only; c = d) */
    PCCX_FP_MEMSET,
    PCCX_FP_MEMCPY_H2L,
    PCCX_FP_MEMCPY_L2H,
    PCCX_FP_MEMCPY_L2L,
    PCCX_FP_GEMV,
    PCCX_FP_GEMM,
    PCCX_FP_CVO
} pccx_fp_kind;

typedef struct pccx_fp {
    pccx_fp_kind kind;
    int sync;                 /* MEMCPY / CVO with async = 0: the front-end waits */
    /* shapes (the §11.3 table) */
    uint64_t words;           /* MEMCPY: L2 words moved */
    uint64_t M, K, N;         /* GEMV (M = 1) / GEMM */
    unsigned lane_mask;       /* GEMV: parallel_lane & 0xF (§4.7); lanes >= gemv_lanes are
                                 ignored, 0 = all gemv_lanes lanes */
    int accm;                 /* GEMV/GEMM/CVO accm (adds the read of the destination) */
    int weight_view;          /* GEMV/GEMM: 1 = BF16 view (ext), 0 = INT4 tensor */
    unsigned func;            /* CVO function code */
    int recip_scale;          /* CVO SCALE with recip_scale (latency 12 by default) */
    uint64_t cvo_src, n_in;   /* CVO: element address and count read from src */
    uint64_t cvo_dst, n_out;  /* CVO: element address and count written at dst */
    /* resources for hazards (§11.4): element ranges of L2, byte ranges of host DDR */
    pccx_range l2_rd[2], l2_wr;
    pccx_range host_rd, host_wr;
    int cc_rd[2], cc_wr;      /* constant-cache entry bank * 64 + index, or -1 */
    int emax_rd, emax_wr;     /* reads / writes E_MAX */
} pccx_fp;

/* Initialise a footprint to "no resources" (all ranges empty, cc entries -1). */
void pccx_fp_init(pccx_fp *fp, pccx_fp_kind kind);

/* Everything known about one pushed instruction once the model has run past it. */
typedef struct pccx_tm_rec {
    uint64_t h;               /* host's push attempt */
    uint64_t a, d, s, c;      /* pushed, decoded, started, completed */
    uint64_t r0, r1;          /* port B read burst [r0, r1) (r0 == r1: none) */
    uint64_t w0, w1;          /* port B write burst [w0, w1) */
    uint64_t x0, x1;          /* fixed phase X */
    int engine;               /* PCCX_ENG_* or -1 (dropped) */
    unsigned r, w;            /* burst sizes in words */
    uint64_t hazard_wait;     /* cycles the start was delayed by hazards alone */
    int done;                 /* the record is final */
} pccx_tm_rec;

typedef struct pccx_tm pccx_tm;

/* A copy of the parameters is kept. NULL on allocation failure or when a parameter is 0 where
 * that makes no sense (clocks, depths, port widths); *why (if non-NULL) names it. */
pccx_tm *pccx_tm_create(const pccx_timing_t *p, const char **why);
void pccx_tm_destroy(pccx_tm *t);
/* Forget every instruction; host clock 0; status bits 0. */
void pccx_tm_reset(pccx_tm *t);
const pccx_timing_t *pccx_tm_params(const pccx_tm *t);

/* Push one instruction at the host clock (§11.2): the model runs until the command FIFO has
 * room, then the host clock becomes a_i + t_push. Returns 0, or -1 when out of memory. */
int pccx_tm_push(pccx_tm *t, const pccx_fp *fp);
uint64_t pccx_tm_count(const pccx_tm *t);        /* instructions pushed */
uint64_t pccx_tm_host_clock(const pccx_tm *t);
/* Host work: the host clock moves forward by `cycles`. */
void pccx_tm_host_advance(pccx_tm *t, uint64_t cycles);
/* Completion time of everything pushed so far (runs the model to the end). Every event up to
 * that time becomes final and the host clock does not move: an instruction pushed afterwards at
 * an earlier host clock is decoded no earlier than that time (events already final are not
 * revisited). Use pccx_tm_sync to wait and move the host clock. */
uint64_t pccx_tm_drain_time(pccx_tm *t);
/* Wait for completion with a budget: if everything completes by host clock + budget (budget 0
 * = no limit) the host clock becomes max(host clock, completion) and 0 is returned; otherwise
 * the host clock advances by `budget` and -1 is returned. */
int pccx_tm_sync(pccx_tm *t, uint64_t budget);
/* Status word at the host clock (BUSY, DONE; §10, §11.5). ERROR is the machine's business. */
uint32_t pccx_tm_status(pccx_tm *t);
/* Occupancy at the host clock (the model runs up to it, as for the status word): instructions
 * in the command FIFO (pushed, not decoded), per engine the ones decoded and waiting to start
 * (its queue) and whether it is executing one (started, not completed). */
void pccx_tm_occupancy(pccx_tm *t, uint64_t *fifo, uint64_t queued[PCCX_N_ENGINES],
                       uint64_t running[PCCX_N_ENGINES]);
/* The record of instruction i (issue order), NULL if i >= count. Final (rec->done) once the
 * model has passed its completion (always after pccx_tm_sync / pccx_tm_drain_time). The
 * pointer stays valid across later pushes (records are never moved) until pccx_tm_destroy;
 * pccx_tm_reset reuses the storage. */
const pccx_tm_rec *pccx_tm_record(const pccx_tm *t, uint64_t i);
/* Fill the timing parts of *out (cycles, seconds, engine busy / counts, port B busy, ACP and
 * HP bytes, stall causes, hazard waits, dropped); other fields are left unchanged. Covers the
 * instructions whose records are final. */
void pccx_tm_stats(const pccx_tm *t, pccx_stats_t *out);

/* Snapshots (docs/snapshot.md): the whole model as section TIME, every record and in-flight
 * instruction included. pccx_tm_load reads it from the section's cursor and checks it; with
 * apply it then replaces t's state (allocating first: on failure t is unchanged). Returns 0,
 * -1 for contents the model cannot have (why says which) or -2 when out of memory. */
struct npk_snap_writer;
struct npk_snap_cursor;
void pccx_tm_save(const pccx_tm *t, struct npk_snap_writer *w);
int pccx_tm_load(pccx_tm *t, struct npk_snap_cursor *c, int apply, char *why, size_t why_len);

/* Derived quantities of §11.1, shared with the documentation and tests. */
uint64_t pccx_tm_axi(const pccx_timing_t *p, uint64_t n);  /* ceil(n * f_core / f_axi) */
uint64_t pccx_tm_t_ddr(const pccx_timing_t *p);            /* ceil(ddr_ns * f_core / 1000) */
/* r, x, w of the §11.3 table for a footprint (engine -1 for a dropped instruction). */
void pccx_tm_phases(const pccx_timing_t *p, const pccx_fp *fp, int *engine, uint64_t *r,
                    uint64_t *x, uint64_t *w);

#endif
