/* Breakpoints and watchpoints (docs/breakpoints.md): the set a machine holds and the calls a
 * target's observed loop makes. While any is set, npk_observers(m)->dbg points here and runs
 * take the observed loop; with none set it is NULL and the fast loops run untouched. */
#ifndef NPK_CORE_BREAKPOINT_H
#define NPK_CORE_BREAKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "npukit/npukit.h"

/* A watch on the target's bus (npk_target.bus_space), not on one of its npk_space list. */
#define NPK_SPACE_BUS ((size_t)-1)

typedef struct npk_watch {
    unsigned id;
    unsigned kind;          /* NPK_WATCH_READ | NPK_WATCH_WRITE */
    size_t space;           /* index in the target's space list, or NPK_SPACE_BUS */
    uint64_t addr, len;
} npk_watch;

typedef struct npk_dbg {
    uint64_t *bp;           /* breakpoint pcs, ascending, no duplicates */
    size_t n_bp, cap_bp;
    npk_watch *w;           /* watches, in the order they were added */
    size_t n_w, cap_w;
    unsigned next_id;
    unsigned kinds;         /* union of the watches' kinds: what accesses need reporting */
    /* the resume rule: a run or step that starts at the breakpoint the last stop reported
     * executes it instead of stopping there again */
    int armed;              /* the last stop was a breakpoint at skip_pc */
    int resume;             /* this run started with `armed` set: its first check skips */
    uint64_t skip_pc;
    /* the first watched access of the instruction running now, and the last stop's */
    int pending;
    int have_hit;
    npk_watch_hit hit;
    int value_known;        /* hit.value came with the access (else read at the stop) */
} npk_dbg;

/* Does a breakpoint stop the instruction at pc now? Call once per instruction, before it
 * runs, only while npk_observers(m)->dbg is set. */
int npk_break_hit(npk_machine *m, uint64_t pc);
/* Fill a breakpoint stop at pc; `where` describes the instruction ("pc 0x..., word 0x...
 * (disassembly)"), may be NULL. Arms the resume rule. */
void npk_break_stop(npk_machine *m, npk_stop *stop, uint64_t pc, const char *where);

/* Does any watch want accesses of this kind (NPK_WATCH_READ or _WRITE)? A cheap test before
 * gathering them. */
static inline int npk_watch_wants(const npk_dbg *d, unsigned kind)
{
    return d && (d->kinds & kind);
}
/* Does a watch on space `space` want accesses of this kind? For targets that would build
 * many accesses (a view of a register file, a whole accumulator) only for such a watch. */
int npk_watch_on(const npk_dbg *d, size_t space, unsigned kind);
/* An access of the instruction running now: n bytes at addr of space `space` (index in the
 * target's space list, or NPK_SPACE_BUS), read or written (kind); bytes are the bytes
 * read or written in address order, or NULL when the target has them in the space itself
 * (they are read back from it at the stop). Only the first access that meets a watch of
 * its kind counts. */
void npk_watch_access(npk_machine *m, size_t space, uint64_t addr, uint64_t n, unsigned kind,
                      const uint8_t *bytes);
/* After the instruction at pc completed (next_pc: the next one): if it met a watch, fill a
 * watchpoint stop and return 1; else 0. `where` describes the instruction for the message
 * (may be NULL); check d->pending first to build it only for a hit. */
int npk_watch_stop(npk_machine *m, npk_stop *stop, uint64_t pc, uint64_t next_pc,
                   const char *where);
/* Forget a pending access (the instruction did not complete: a fault, a trap). */
void npk_watch_drop(npk_machine *m);

/* Core-internal (machine.c): start and end of a run or step, reset, destroy. */
void npk_dbg_run_begin(npk_machine *m);
void npk_dbg_run_end(npk_machine *m, const npk_stop *stop);
void npk_dbg_reset(npk_machine *m);
void npk_dbg_free(npk_dbg *d);

#endif
