/* The command core of `npukit debug` (docs/debugging.md): one debugger session over a loaded
 * npk_machine, driven by command lines, and the views (registers, NPU state, disassembly,
 * memory, output, statistics) as functions that render text to a FILE, so the line mode, the
 * batch mode and the full-screen UI (src/debug/tui.c: each panel a memory stream) share them.
 * Public API only; no globals. */
#ifndef NPK_DEBUG_DEBUGGER_H
#define NPK_DEBUG_DEBUGGER_H

#include <stddef.h>
#include <stdio.h>

#include "npukit/npukit.h"

typedef struct npk_debugger npk_debugger;

/* A session over m, which is loaded and not yet run (or restored from a snapshot). The
 * session enables statistics, captures the guest's output (npk_set_output) and keeps
 * snapshots of m for reverse execution. NULL with the reason in err on failure. m stays the
 * caller's (destroy it after npk_debugger_free). */
npk_debugger *npk_debugger_new(npk_machine *m, char *err, size_t n);
void npk_debugger_free(npk_debugger *d);

/* Where new guest output is echoed after a command that ran the program (NULL: nowhere). */
void npk_debugger_echo_output(npk_debugger *d, FILE *f);

/* Run one command line, writing its views to out. Returns 0 when it worked, 1 for quit,
 * -1 with the reason in err (the session is unchanged where the command could not start). */
int npk_debugger_exec(npk_debugger *d, const char *line, FILE *out, char *err, size_t n);

/* Ask a running continue/until to stop at its next chunk boundary (safe from a signal
 * handler: it only sets a flag the caller passes in). */
void npk_debugger_set_interrupt(npk_debugger *d, volatile int *flag);

/* The views. */
void npk_debugger_view_where(npk_debugger *d, FILE *out);      /* insn, cycle, pc and its disassembly */
void npk_debugger_view_regs(npk_debugger *d, FILE *out);       /* every register, '*' = changed */
/* the same, as many registers to a line as fit in `chars` columns (at least one) */
void npk_debugger_view_regs_width(npk_debugger *d, size_t chars, FILE *out);
int npk_debugger_view_npu(npk_debugger *d, FILE *out);         /* the target's NPU or engine state */
int npk_debugger_view_disasm(npk_debugger *d, unsigned count, FILE *out, char *err, size_t n);
void npk_debugger_view_output(npk_debugger *d, FILE *out); /* the guest's output so far; when
                                                       it does not end in a newline, a line
                                                       "\\ no newline at the end ..." follows */
int npk_debugger_view_stats(npk_debugger *d, FILE *out);
void npk_debugger_view_breaks(npk_debugger *d, FILE *out);

#endif
