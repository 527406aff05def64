/* The GDB remote serial protocol server: one connected socket, one npk_machine. The protocol
 * is target-neutral; a target takes part by supplying a register description (npk_gdb_target:
 * gdb register names, widths and types, and how program addresses map onto a memory space).
 * Used by `npukit gdb` (src/cli/cmd_gdb.c); built into the CLI, not exported by libnpukit. */
#ifndef NPK_DEBUG_GDB_H
#define NPK_DEBUG_GDB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "npukit/npukit.h"

/* One register as gdb sees it, in remote register-number order (index = regnum). */
typedef struct npk_gdb_reg {
    const char *name;     /* the name in the target description */
    const char *npk;      /* the npk_reg name it reads and writes */
    unsigned bits;        /* width in the protocol (a multiple of 8, at most 64) */
    const char *type;     /* gdb type: "int", "code_ptr", "ieee_single", "v4i8", ... */
    unsigned feature;     /* index into npk_gdb_target.features */
} npk_gdb_reg;

typedef struct npk_gdb_feature {
    const char *name;     /* "org.gnu.gdb.riscv.cpu" */
    const char *types;    /* XML type declarations the feature's registers use, or "" */
} npk_gdb_feature;

typedef struct npk_gdb_target {
    const char *target;           /* npukit target name */
    const char *arch;             /* <architecture> of the description */
    const npk_gdb_feature *features;
    size_t n_features;
    const npk_gdb_reg *regs;
    size_t n_regs;
    const char *mem_space;        /* program addresses [mem_base, mem_base + size) are */
    uint64_t mem_base;            /* offsets of this space for m/M/X */
    const char *watch_space;      /* the space Z2/Z3/Z4 watch (program addresses) */
} npk_gdb_target;

/* The description for a target name, NULL when the target has none (only rvnpu has one). */
const npk_gdb_target *npk_gdb_target_for(const char *target);

/* How a session ended. */
typedef enum npk_gdb_end {
    NPK_GDB_DETACHED,     /* D: the program may go on without the debugger */
    NPK_GDB_KILLED,       /* k or vKill */
    NPK_GDB_CLOSED,       /* the connection was closed or dropped */
    NPK_GDB_EXITED        /* the program ended (W sent) and the connection then closed */
} npk_gdb_end;

typedef struct npk_gdb_result {
    npk_gdb_end end;
    int exited;            /* the program ended under the debugger */
    npk_stop stop;         /* its last stop */
} npk_gdb_result;

/* Serve the protocol on connected socket `fd` until the session ends. The program's output
 * goes to guest_out/guest_err (npk_set_output); `log` (may be NULL) gets one line per
 * protocol problem (bad checksum, NAK, oversized packet). The machine must hold a loaded
 * program; statistics are turned on (the watchpoint rewind counts instructions). Breakpoints
 * and watchpoints the debugger set are cleared at the end. Returns 0, or -1 with a message in
 * err when the machine cannot be served. */
int npk_gdb_serve(npk_machine *m, const npk_gdb_target *t, int fd, FILE *guest_out,
                  FILE *guest_err, FILE *log, npk_gdb_result *res, char *err, size_t err_size);

/* How the stub talks to the debugger: npk_gdb_serve's socket, or the caller's own byte
 * stream (the fuzz harness's buffer). */
typedef struct npk_gdb_io {
    void *ctx;
    /* Up to n bytes into buf, waiting at most timeout_ms (< 0: until some arrive): their
     * count, 0 when none arrived in time, -1 when the stream has ended. */
    long (*recv)(void *ctx, uint8_t *buf, size_t n, int timeout_ms);
    /* Up to n bytes of p: the count taken (> 0), or -1 when the stream has ended. */
    long (*send)(void *ctx, const char *p, size_t n);
} npk_gdb_io;

/* npk_gdb_serve over io. budget (0: no limit) caps the instructions the session executes in
 * all, going back (re-execution) included: a continue or step that reaches it stops as if
 * interrupted (SIGINT), and going back past it fails (E03). */
int npk_gdb_serve_io(npk_machine *m, const npk_gdb_target *t, const npk_gdb_io *io,
                     uint64_t budget, FILE *guest_out, FILE *guest_err, FILE *log,
                     npk_gdb_result *res, char *err, size_t err_size);

/* A listening TCP socket on numeric address `addr` (IPv4 or IPv6) and `port` (0: any free
 * port); *bound is the port it got. Returns the socket, or -1 with a message in err. */
int npk_gdb_listen(const char *addr, unsigned port, unsigned *bound, char *err, size_t err_size);

#endif
