/* pccx machine: the state shared by machine.c (configuration, spaces, loading, registration),
 * exec.c (semantics of spec §6-§7, checks of §9), api.c (the host API of §12) and the timing
 * model (timing.c, fed one footprint per executed instruction). The context `struct pccx` IS
 * the target state of an npk_machine created for "pccx". */
#ifndef NPK_PCCX_MACHINE_H
#define NPK_PCCX_MACHINE_H

#include <stdint.h>

#include "core/target.h"
#include "npukit/pccx.h"
#include "targets/pccx/isa.h"
#include "targets/pccx/prog.h"
#include "targets/pccx/timing.h"

#define PCCX_L2_BYTES ((uint64_t)PCCX_L2_WORDS * 16u)
#define PCCX_HOST_DEFAULT ((uint64_t)64 << 20)
#define PCCX_HOST_MAX ((uint64_t)4 << 30)

/* Target counters reported with --stats (extras), beside the timing model's. */
typedef enum pccx_extra {
    PCCX_X_MACS, PCCX_X_WEIGHTS, PCCX_X_DROPPED, PCCX_X_PORT_B_BUSY,
    PCCX_X_ACP_BYTES, PCCX_X_HP0_BYTES, PCCX_X_HP1_BYTES, PCCX_X_HP2_BYTES, PCCX_X_HP3_BYTES,
    PCCX_X_STALL_FIFO, PCCX_X_STALL_QUEUE, PCCX_X_STALL_SYNC, PCCX_X_HAZARD_WAIT,
    PCCX_X_EXACT_FALLBACK, PCCX_X_IDLE_MEMSET, PCCX_X_IDLE_MEM, PCCX_X_IDLE_GEMV,
    PCCX_X_IDLE_GEMM, PCCX_X_IDLE_CVO, PCCX_N_EXTRAS
} pccx_extra;

/* Timeline tracks: the five engines (PCCX_ENG_* order), then port B and the front-end. */
enum { PCCX_U_PORT_B = PCCX_N_ENGINES, PCCX_U_FRONT, PCCX_N_UNITS };

/* Registers: pc, E_MAX, status, window, issued, host_clock, weight_queue, cmd_fifo, then per
 * engine its queue and busy bit, then the constant cache, bank by bank, X Y Z per entry. */
enum { PCCX_REG_PC, PCCX_REG_EMAX, PCCX_REG_STATUS, PCCX_REG_WINDOW, PCCX_REG_ISSUED,
       PCCX_REG_HOST_CLOCK, PCCX_REG_WQ, PCCX_REG_FIFO, PCCX_REG_QUEUE,
       PCCX_REG_BUSY = PCCX_REG_QUEUE + PCCX_N_ENGINES,
       PCCX_REG_CC = PCCX_REG_BUSY + PCCX_N_ENGINES,
       PCCX_N_REGS = PCCX_REG_CC + 2 * PCCX_CC_ENTRIES * 3 };

typedef enum pccx_space { PCCX_SP_PROG, PCCX_SP_L2, PCCX_SP_HOST, PCCX_SP_CC_FMAP,
                          PCCX_SP_CC_WEIGHT, PCCX_SP_WQ, PCCX_N_SPACES } pccx_space;
/* Space weight_queue (read-only, docs/state.md): the queued tensors from the head, 16 bytes
 * each: u32 handle, K, N, kind (0 INT4, 1 BF16 view), little-endian. */
#define PCCX_WQ_ENTRY 16u

/* One issued instruction, for observers (trace, timeline, statistics). */
typedef struct pccx_log {
    uint64_t word;
    uint16_t mnem;            /* index into pccx_mnemonic_names */
} pccx_log;

struct pccx {
    npk_machine *m;            /* the machine this context belongs to */
    int owns_machine;          /* created by pccx_init: pccx_deinit destroys the machine */
    /* configuration */
    int ext, hw_compat;
    uint64_t host_bytes;
    pccx_timing_t timing;
    int ext_set, mode_set, host_set;   /* given as settings: they override a program file's */
    /* architectural state (§2) */
    uint8_t *l2;               /* PCCX_L2_BYTES, little-endian words */
    uint32_t cc[2][PCCX_CC_ENTRIES][3];
    uint32_t emax;             /* binary32 pattern */
    uint8_t *host;             /* host_bytes */
    int mem_zero;              /* l2 and host are still all zero since they were allocated or
                                  cleared: a reset has nothing to clear. Every write to them
                                  (pccx_exec, apply_program, space and API writes) clears it */
    uint64_t window;           /* host window base (bytes) */
    /* weight tensors (handle h = index + 1) and the queue of handles */
    pccx_tensor *tensors;
    uint8_t *tensor_live;
    size_t n_tensors, cap_tensors;
    uint32_t *queue;           /* ring buffer */
    size_t q_head, q_len, q_cap;
    /* issue state */
    uint64_t issued;           /* instructions pushed (issue index of the next one) */
    int halted;
    pccx_error_t error;
    uint32_t reg_lo;           /* AXI-Lite: bits [31:0] latched by a 32-bit write at 0x000 */
    uint64_t counts[PCCX_N_MNEMONICS];
    uint64_t macs, weights, exact_fallback;
    /* a loaded program */
    uint64_t *prog;
    uint8_t *prog_bytes;       /* little-endian image of prog (space "prog") */
    size_t n_prog;
    uint64_t pc;               /* next program word */
    pccx_window_change *windows;
    size_t n_windows, next_window;
    pccx_prog *loaded;         /* the assembled program, re-applied by reset */
    pccx_log *log;             /* every issued instruction */
    size_t n_log, cap_log;
    /* timing model and what observers have seen of it */
    pccx_tm *tm;
    uint64_t emitted;
    /* scratch for one instruction's results (read before write, §6.1) */
    uint16_t *scratch;
    size_t scratch_cap;
    double *dscratch;
    size_t dscratch_cap;
    npk_memspace spaces[PCCX_N_SPACES];
    /* the register list (docs/state.md), names built at creation */
    npk_reg_info reg_list[PCCX_N_REGS];
    char reg_names[PCCX_N_REGS][24];
};

/* Issue one instruction word (§6.1, §9): decode and check for the configured profile and mode,
 * execute it functionally, feed the timing model. A fault is recorded (code, index, word,
 * message), sets the halted state and is returned; nothing of the faulting instruction takes
 * effect. */
int pccx_issue_word(pccx_t *c, uint64_t w);
/* The same, handing back the instruction's footprint when it issued (fp_out may be NULL). */
int pccx_issue_word_fp(pccx_t *c, uint64_t w, pccx_fp *fp_out);
/* Execute a decoded, effective (§4.8 applied) instruction; fill its timing footprint. Checks
 * all of §6 before any effect; on error returns the code and writes `msg`. */
int pccx_exec(pccx_t *c, const pccx_insn_t *d, pccx_fp *fp, char *msg, size_t msg_len);

/* Weight tensors: add (takes ownership of t's members), look up by handle. */
int pccx_tensor_add(pccx_t *c, pccx_tensor *t, pccx_weight_t *h);
const pccx_tensor *pccx_tensor_get(const pccx_t *c, pccx_weight_t h);
/* Append handle h to the weight queue. */
int pccx_queue_push(pccx_t *c, pccx_weight_t h);
/* Drop every tensor (and so the queue). */
void pccx_tensors_clear(pccx_t *c);

/* Snapshot hooks (snapshot.c, docs/snapshot.md). */
struct npk_snap_writer;
struct npk_snap_reader;
npk_status pccx_snap_save(npk_machine *m, void *state, struct npk_snap_writer *w);
npk_status pccx_snap_restore(npk_machine *m, void *state, struct npk_snap_reader *r);

/* Report finished timing records to the machine's observers (retire events, timeline spans);
 * a no-op while no observer is on. */
void pccx_emit_observed(pccx_t *c);
/* Drop every instruction record and the halted state (reset keeps configuration). */
void pccx_state_reset(pccx_t *c);

/* L2 element e as a BF16 pattern, and its store. */
static inline uint16_t pccx_l2_get(const pccx_t *c, uint64_t e)
{
    return (uint16_t)(c->l2[2 * e] | (unsigned)c->l2[2 * e + 1] << 8);
}
static inline void pccx_l2_set(pccx_t *c, uint64_t e, uint16_t v)
{
    c->l2[2 * e] = (uint8_t)v;
    c->l2[2 * e + 1] = (uint8_t)(v >> 8);
}

npk_status pccx_run(npk_machine *m, void *state, uint64_t max_insns, npk_stop *stop);

#endif
