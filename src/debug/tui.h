/* The full-screen terminal UI of `npukit debug` (ncurses; docs/debugging.md "Full screen"):
 * panels over the views of debugger.h and a command line that runs every line-mode command.
 * Built without ncurses (no NPK_HAVE_CURSES), npk_tui_available is 0 and npk_tui_run fails. */
#ifndef NPK_DEBUG_TUI_H
#define NPK_DEBUG_TUI_H

#include <stddef.h>

#include "debug/debugger.h"

/* 1 when this npukit has the full-screen UI (it was built with ncurses). */
int npk_tui_available(void);

/* Run the full-screen UI on the terminal of standard input and output until 'q' or 'quit'.
 * m is d's machine; title names the program in the title bar. intr is the flag the caller's
 * SIGINT handler sets (npk_debugger_set_interrupt): it is cleared before each command, so
 * Ctrl-C stops a running continue. Returns 0, or -1 with the reason in err when the terminal
 * cannot be used. The terminal is restored before it returns. */
int npk_tui_run(npk_debugger *d, npk_machine *m, const char *title, volatile int *intr,
                char *err, size_t n);

#endif
