/* npukit public C API: create a machine for a target, load a program, run it, inspect it.
 * Every call reports failure through an npk_status and a message kept on the handle; the
 * library never exits, aborts or keeps global mutable state. C linkage, C11. */
#ifndef NPUKIT_NPUKIT_H
#define NPUKIT_NPUKIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPK_VERSION_MAJOR 0
#define NPK_VERSION_MINOR 1
#define NPK_VERSION_PATCH 0
#define NPK_VERSION_STRING "0.1.0"

/* NPK_API marks the public functions: libnpukit.so is built with hidden visibility and exports
 * only these (every other symbol of the library is internal). */
#if defined(__GNUC__) || defined(__clang__)
#define NPK_API __attribute__((visibility("default")))
#else
#define NPK_API
#endif

/* The version of the library actually linked, e.g. "0.1.0" (NPK_VERSION_STRING is the version
 * of the headers a program was compiled with). */
NPK_API const char *npk_version(void);

/* Status codes. Every failing call also leaves a message: npk_error(m). */
typedef enum npk_status {
    NPK_OK = 0,
    NPK_ERR_ARG,      /* bad argument or configuration */
    NPK_ERR_NOMEM,    /* out of host memory */
    NPK_ERR_IO,       /* a file could not be read or written */
    NPK_ERR_FORMAT,   /* malformed input: ELF, image, assembly source */
    NPK_ERR_RANGE,    /* address or index outside a memory or register file */
    NPK_ERR_UNSUPPORTED, /* the target does not offer this operation */
    NPK_ERR_STATE     /* the call does not fit the machine's state (e.g. run before load) */
} npk_status;

NPK_API const char *npk_status_name(npk_status s);

/* Why a run stopped. */
typedef enum npk_stop_reason {
    NPK_STOP_NONE = 0,  /* still runnable (a step completed) */
    NPK_STOP_EXIT,      /* the program ended normally; exit_code is its status */
    NPK_STOP_BUDGET,    /* the instruction or cycle budget ran out */
    NPK_STOP_FAULT,     /* an unhandled fault: illegal instruction, bad address, ... */
    NPK_STOP_BREAKPOINT, /* at a breakpoint (npk_break_add): the instruction at pc has not run */
    NPK_STOP_WATCHPOINT  /* an instruction accessed a watched range (npk_watch_add); it has
                            completed and pc is the next one's */
} npk_stop_reason;

typedef struct npk_stop {
    npk_stop_reason reason;
    int64_t exit_code;      /* NPK_STOP_EXIT: the program's full exit value */
    uint64_t pc;            /* address of the instruction that faulted / would run next */
    uint64_t insn[4];       /* its instruction word, little-endian 64-bit chunks */
    unsigned insn_bits;     /* width of that word in bits (0 when unknown) */
    char message[512];      /* human-readable cause, with disassembly where known */
} npk_stop;

typedef struct npk_machine npk_machine;

/* ---- targets ---------------------------------------------------------------------------- */

/* Number of registered targets and their names/summaries (index 0 .. n-1). */
NPK_API size_t npk_target_count(void);
NPK_API const char *npk_target_name(size_t i);
NPK_API const char *npk_target_summary(size_t i);
/* Multi-line description of a target's configuration keys and presets, or NULL. */
NPK_API const char *npk_target_config_help(const char *target);

/* ---- lifecycle -------------------------------------------------------------------------- */

/* Create a machine. `spec` is "target" or "target:key=value,key=value" (for example
 * "opennpu:K=8,L=32"); `config` adds further comma-separated settings and may be NULL.
 * On failure returns non-OK, sets *out to NULL and writes a message to err (if non-NULL). */
NPK_API npk_status npk_create(npk_machine **out, const char *spec, const char *config,
                              char *err, size_t err_size);
NPK_API void npk_destroy(npk_machine *m);
NPK_API npk_status npk_reset(npk_machine *m);

NPK_API const char *npk_error(const npk_machine *m);   /* message of the last failing call */
NPK_API const char *npk_target_of(const npk_machine *m);
/* The effective configuration as "key=value,..." (canonical, all keys). */
NPK_API const char *npk_config_string(const npk_machine *m);

/* Where guest output (putc, write syscalls, UART) goes; default stdout/stderr. */
NPK_API void npk_set_output(npk_machine *m, FILE *out, FILE *err);

/* ---- loading ---------------------------------------------------------------------------- */

/* Raw image: bytes copied into the target's program space at byte address `addr`. Targets
 * with fixed-width words refuse an image that is not a whole number of words (NPK_ERR_FORMAT),
 * except rvnpu, which completes a partial last word with zero bytes (`objcopy -O binary`
 * output is often odd-sized); npk_raw_pads tells which. */
NPK_API npk_status npk_load_raw(npk_machine *m, const void *bytes, size_t n, uint64_t addr);
/* 1 when npk_load_raw takes an image of any size and pads its last word with zero bytes. */
NPK_API int npk_raw_pads(const npk_machine *m);
/* ELF32 little-endian executable (targets that take ELF). */
NPK_API npk_status npk_load_elf(npk_machine *m, const void *bytes, size_t n, const char *name);
/* Assemble source text with the target's assembler and load the result. `name` is used in
 * diagnostics (file:line:col). Diagnostics are written to `diag` (may be NULL). The source is
 * a C string, so it ends at its first NUL byte: a caller reading a file should reject NUL
 * bytes first (npk_load_file and `npukit asm` do: "FILE:LINE:COL: error: NUL byte in
 * source"). */
NPK_API npk_status npk_load_asm(npk_machine *m, const char *source, const char *name, FILE *diag);
/* Assemble source text to the target's program image without loading it (what
 * `npukit asm` writes). *image is allocated; release it with npk_free. */
NPK_API npk_status npk_assemble(npk_machine *m, const char *source, const char *name, FILE *diag,
                                uint8_t **image, size_t *size);
/* Where npk_assemble and npk_load_asm write an assembly listing (NULL, the default: none):
 * one line per source line with its address (tinytpu: its cycle numbers), the words it
 * produced and the line itself. A source with errors may be listed in part, or not at all. */
NPK_API void npk_set_listing(npk_machine *m, FILE *listing);
NPK_API void npk_free(void *p);
/* The loadable segments of an ELF32 executable for this machine's target, after the same
 * checks npk_load_elf makes (nothing is loaded). `bytes` point into the caller's buffer. */
typedef struct npk_elf_segment {
    uint64_t vaddr;
    const uint8_t *bytes;
    size_t filesz;
    uint64_t memsz;
    int exec;              /* PF_X: holds code */
} npk_elf_segment;
#define NPK_ELF_MAX_SEGMENTS 64
NPK_API npk_status npk_elf_segments(npk_machine *m, const void *bytes, size_t n, const char *name,
                             npk_elf_segment *seg, size_t max, size_t *n_seg, uint64_t *entry);
/* The sections and symbols of an ELF32 executable for this machine's target, after the checks
 * of npk_elf_segments: every section header (index i is sec[i], including the null section
 * 0) and every defined NOTYPE, OBJECT or FUNC symbol of its symbol tables, in file order.
 * *sec and *sym are allocated (release both with npk_free); names and bytes point into the
 * caller's buffer. A file without section headers gives no sections and no symbols: its
 * program headers (npk_elf_segments) are all there is. */
typedef struct npk_elf_section {
    const char *name;      /* from the section name table; "" when there is none */
    uint64_t addr;         /* sh_addr */
    const uint8_t *bytes;  /* contents; NULL for SHT_NOBITS (.bss) and empty sections */
    uint64_t size;         /* sh_size */
    unsigned index;
    int alloc;             /* SHF_ALLOC: part of the loaded program */
    int exec;              /* SHF_ALLOC and SHF_EXECINSTR: holds code */
} npk_elf_section;
typedef struct npk_elf_symbol {
    const char *name;
    uint64_t value;
    uint64_t size;
    unsigned section;      /* st_shndx: the section it is defined in (or SHN_ABS 0xfff1, ...) */
    int local;             /* STB_LOCAL */
    int func;              /* STT_FUNC */
} npk_elf_symbol;
NPK_API npk_status npk_elf_sections(npk_machine *m, const void *bytes, size_t n, const char *name,
                            npk_elf_section **sec, size_t *n_sec, npk_elf_symbol **sym,
                            size_t *n_sym);
/* Warnings about an ELF32 executable that loads but may not run as built: on rvnpu, e_flags
 * saying the code uses compressed instructions (EF_RISCV_RVC) or a double- or quad-float ABI
 * (rvnpu spec §11.7). One line per warning in `out`, each ending in '\n' ("" when none), after the
 * checks of npk_elf_segments (whose failure it returns). npk_load_elf (and npk_load_bytes /
 * npk_load_file of an ELF) writes the same lines, as "npukit: warning: NAME: ...", to the
 * machine's error stream (npk_set_output) and loads the file anyway. */
NPK_API npk_status npk_elf_warnings(npk_machine *m, const void *bytes, size_t n, const char *name,
                            char *out, size_t size);
/* Name of an ELF e_machine value ("RISC-V", "x86-64", ..., "unknown"). */
NPK_API const char *npk_elf_machine_name(unsigned e_machine);
/* Load bytes, choosing by content: ELF magic -> ELF; text -> assembly; else raw. A text with
 * a stray NUL byte is rejected (NPK_ERR_FORMAT, the place on diag). `name` is used in
 * messages. For input that can be read only once (a pipe), read it, then call this. */
NPK_API npk_status npk_load_bytes(npk_machine *m, const void *bytes, size_t n, const char *name,
                                  FILE *diag);
/* The most npk_load_file (and every npukit command) reads from one input file: more is
 * refused ("PATH: larger than the 1 GiB input limit"). */
#define NPK_INPUT_MAX ((size_t)1 << 30)
/* Read a file and npk_load_bytes it. A FIFO is waited for at most 2 s for a writer
 * ("PATH: a FIFO with no writer (waited 2 s)"); a directory, device or socket is refused
 * unread (NPK_ERR_IO). */
NPK_API npk_status npk_load_file(npk_machine *m, const char *path, FILE *diag);
/* Let the target read the program file at `path` itself instead of being given its bytes: a
 * tinytpu machine with stream=1 streams a word file, holding a window of it at a time.
 * NPK_ERR_UNSUPPORTED (nothing loaded, no message) when the target does not read this file
 * that way: read it and npk_load_bytes it (npk_load_file tries this first, then does that). */
NPK_API npk_status npk_load_path(npk_machine *m, const char *path, FILE *diag);

/* ---- running ---------------------------------------------------------------------------- */

/* Run until the program stops or `max_insns` more instructions have retired
 * (0 = unlimited). Returns NPK_OK when the run itself worked (see stop->reason). An exit is
 * final: once a run or step stopped with NPK_STOP_EXIT, later runs and steps report the same
 * stop again and execute nothing, until the machine is set up anew: a load, a snapshot
 * restore (a snapshot saved after the exit restores an exited machine), npk_reset, or a
 * register, memory or symbol write (an embedder that sets pc back to run again). */
NPK_API npk_status npk_run(npk_machine *m, uint64_t max_insns, npk_stop *stop);
/* Execute exactly one instruction: on return one more instruction has retired, or the program
 * stopped. stop->reason is NPK_STOP_NONE while the program can go on (stop->pc is then the
 * next instruction's address and the message is empty), else NPK_STOP_EXIT or NPK_STOP_FAULT
 * as npk_run would report them; stepping never gives NPK_STOP_BUDGET. A trap the program
 * handles itself (rvnpu: entry into its mtvec handler) is not a retirement: that step goes
 * on to retire the handler's first instruction. A loop of npk_step reaches the same state
 * and instruction count as one npk_run; on toy and rvnpu a step costs tens of nanoseconds
 * with the observers off (bench/core/bench_step). Observers (trace, statistics, timeline)
 * see every stepped instruction. */
NPK_API npk_status npk_step(npk_machine *m, npk_stop *stop);

/* ---- backdoor access ---------------------------------------------------------------------- */

/* Memories ("spaces") a target exposes, e.g. "mem", "dmem", "vregs", "lut", "l2". */
typedef struct npk_space_info {
    const char *name;
    uint64_t size;          /* in bytes */
    const char *summary;
} npk_space_info;

NPK_API size_t npk_space_count(const npk_machine *m);
NPK_API const npk_space_info *npk_space(const npk_machine *m, size_t i);
/* Bounds-checked byte copies; an access not wholly inside the space is NPK_ERR_RANGE and
 * copies nothing. */
NPK_API npk_status npk_mem_read(npk_machine *m, const char *space, uint64_t addr, void *buf,
                                size_t n);
NPK_API npk_status npk_mem_write(npk_machine *m, const char *space, uint64_t addr, const void *buf,
                                 size_t n);

/* The bytes of a space where the target keeps them as one block (NULL otherwise, and for an
 * unknown space; npk_error says which): read-only, for zero-copy views (the Python package's
 * NumPy arrays). *size (if not NULL) is the space's size. The pointer stays valid until the
 * next load, reset, snapshot restore or destroy; runs and npk_mem_write change the bytes in
 * place. Write through npk_mem_write only: targets see writes there (decoded-instruction
 * caches, watchpoints). */
NPK_API const void *npk_space_data(npk_machine *m, const char *space, uint64_t *size);

/* Element types of typed access, by name: "i8", "u8", "i16", "u16", "i32", "u32", "f32",
 * "bf16", "q8.8", "e4m3", "e5m2" (little-endian; docs/run-io.md). npk_elem_size: bytes per
 * element, 0 for an unknown name. npk_elems_to_f64 decodes count elements to binary64, which
 * holds every value of every type exactly. npk_elems_from_f64 encodes: floats rounded to
 * nearest-even (q8.8: half to even), integers only when whole; a value the type cannot hold
 * (past its largest finite value, infinity for e4m3, NaN for q8.8 and integers) stops it with
 * NPK_ERR_RANGE, *bad (if not NULL) its index and err "element I: ...". An unknown type is
 * NPK_ERR_ARG. Neither needs a machine; the messages go to err (n bytes). */
NPK_API size_t npk_elem_size(const char *type);
NPK_API npk_status npk_elems_to_f64(const char *type, const void *in, size_t count, double *out,
                                    char *err, size_t n);
NPK_API npk_status npk_elems_from_f64(const char *type, const double *in, size_t count,
                                      void *out, size_t *bad, char *err, size_t n);

/* The architectural registers by the names the target's spec uses ("pc", "a0", "fcsr",
 * "acc", "v2", "pe[1][0].w", ...); docs/state.md lists every target's names, and
 * `npukit info -t T` prints them with their widths. Names match without regard to case. */
typedef struct npk_reg_info {
    const char *name;
    unsigned bits;          /* width; wider than 64 bits: use npk_reg_read_bytes */
    unsigned flags;         /* NPK_REG_* */
} npk_reg_info;
/* The register is read-only: npk_reg_write and npk_reg_write_bytes refuse it
 * (NPK_ERR_UNSUPPORTED, "TARGET: NAME is read-only: ..."). */
#define NPK_REG_READONLY 1u

NPK_API size_t npk_reg_count(const npk_machine *m);
NPK_API const npk_reg_info *npk_reg(const npk_machine *m, size_t i);
/* Does register i (npk_reg order) hold an IEEE binary32 value (rvnpu f0..f31)? */
NPK_API int npk_reg_is_f32(const npk_machine *m, size_t i);
/* A register of at most 64 bits as a number. A wider one is NPK_ERR_RANGE (use the bytes
 * calls); a value with bits set above the register's width is NPK_ERR_RANGE. */
NPK_API npk_status npk_reg_read(npk_machine *m, const char *name, uint64_t *value);
NPK_API npk_status npk_reg_write(npk_machine *m, const char *name, uint64_t value);
/* Any register as bytes, little-endian: bit b of the register is bit b%8 of byte b/8. `n`
 * must be exactly (bits + 7) / 8 (else NPK_ERR_ARG, naming the size); a write with bits set
 * above the width in the last byte is NPK_ERR_RANGE. For registers of 64 bits or fewer these
 * are the same as npk_reg_read/npk_reg_write. */
NPK_API npk_status npk_reg_read_bytes(npk_machine *m, const char *name, void *buf, size_t n);
NPK_API npk_status npk_reg_write_bytes(npk_machine *m, const char *name, const void *buf,
                                       size_t n);

/* Symbols from the loaded ELF or assembly (labels, .equ names). A global or weak symbol is
 * preferred over local ones; several local symbols of one name and no global one is an
 * error. */
NPK_API npk_status npk_symbol(npk_machine *m, const char *name, uint64_t *value);
/* Write `n` bytes over the storage of symbol `name` before the run (input injection, as
 * `npukit run --write SYMBOL:FILE`). Fails if the symbol is unknown or ambiguous, if it has a
 * size and the data is larger, or if the bytes do not fit the target's memory. */
NPK_API npk_status npk_write_symbol(npk_machine *m, const char *name, const void *data, size_t n);
/* The size of symbol `name` in bytes: an ELF symbol's st_size; 0 when it has none
 * (assembly labels, .equ names). Fails as npk_symbol when there is no such symbol. */
NPK_API npk_status npk_symbol_size(npk_machine *m, const char *name, uint64_t *size);
/* Read `n` bytes at the storage of symbol `name` (after a run: output extraction, as
 * `npukit run --dump SYMBOL`), the mirror of npk_write_symbol. Fails if the symbol is unknown
 * or ambiguous, if the target cannot read at program addresses (NPK_ERR_UNSUPPORTED; toy and
 * rvnpu can) or if the bytes are not all inside its memory (NPK_ERR_RANGE). */
NPK_API npk_status npk_read_symbol(npk_machine *m, const char *name, void *data, size_t n);

/* ---- disassembly ------------------------------------------------------------------------ */

/* Bytes per instruction word (4 for toy/rvnpu/opennpu, 8 for pccx, ...); 0 for targets whose
 * programs are text streams rather than word images (tinytpu: one control word per cycle in
 * hex word files or a port stream). For those, npk_assemble's image is that text and
 * npk_disasm_text turns such a file back into assembly. */
NPK_API size_t npk_insn_bytes(const npk_machine *m);
/* What one instruction of this machine is, as text for people: "4 bytes (32 bits)", or for
 * a text-stream target what its words are ("one 130-bit control word per cycle ...").
 * snprintf-like: writes at most n bytes and returns the full length. */
NPK_API int npk_insn_describe(const npk_machine *m, char *out, size_t n);
/* Width of the target's program addresses: every instruction word of a program, from its
 * first byte to its last, lies below 2^bits (32 for toy, rvnpu and opennpu; 64 for pccx). */
NPK_API unsigned npk_addr_bits(const npk_machine *m);
/* Disassemble a whole program file of a text-stream target (npk_insn_bytes() == 0) to out;
 * diagnostics (`name`:line:col) go to the machine's error stream (npk_set_output). */
NPK_API npk_status npk_disasm_text(npk_machine *m, const void *bytes, size_t n, const char *name,
                                   FILE *out);
/* Disassemble the word at `bytes` (npk_insn_bytes long) fetched from `pc` into `out`. A word
 * that does not lie inside the npk_addr_bits address space is NPK_ERR_RANGE. tinytpu: a
 * commit record's word (its full-port control word, docs/commit-log.md) to one line. */
NPK_API npk_status npk_disasm(npk_machine *m, const void *bytes, uint64_t pc, char *out, size_t n);

/* ---- observers (each costs nothing while off) ---------------------------------------------- */

/* One text line per retired instruction: cycle, pc, word, disassembly. NULL turns it off.
 * The sink being replaced (or turned off) is flushed; NPK_ERR_IO if any of its writes failed
 * (it stays open: closing it is the caller's). */
NPK_API npk_status npk_trace_text(npk_machine *m, FILE *f);
/* Collect statistics: per-mnemonic counts, cycles, per-unit busy time. */
NPK_API npk_status npk_stats_enable(npk_machine *m, int on);
/* Record a Chrome trace-event timeline (opens in Perfetto) written at npk_timeline_close,
 * which returns NPK_ERR_IO ("PATH: write error: ...") if any of the file could not be written.
 * The path "-" is standard output (flushed at the close, not closed). */
NPK_API npk_status npk_timeline_open(npk_machine *m, const char *path);
NPK_API npk_status npk_timeline_close(npk_machine *m);

typedef struct npk_stats {
    uint64_t insns;          /* retired instructions */
    uint64_t cycles;         /* cycles (ticks) from the timing model; 0 if timing is off */
    size_t n_mnemonics;
    const char *const *mnemonic;   /* names, n_mnemonics long */
    const uint64_t *count;         /* retired count per mnemonic */
    size_t n_units;
    const char *const *unit;       /* unit names */
    const uint64_t *busy;          /* busy cycles per unit */
    size_t n_extra;
    const char *const *extra_name; /* target-specific counters (loads, stores, stalls, ...) */
    const uint64_t *extra;
} npk_stats;

/* Statistics so far; pointers stay valid until the next run/step/reset/destroy. */
NPK_API npk_status npk_stats_get(npk_machine *m, npk_stats *out);
/* Write statistics as human-readable text or as one JSON object; f is flushed, and a failed
 * write is NPK_ERR_IO. */
NPK_API npk_status npk_stats_print(npk_machine *m, FILE *f);
NPK_API npk_status npk_stats_json(npk_machine *m, FILE *f);
/* npk_stats_json with how the run ended, from the stop record npk_run filled: a member
 * "stop": {"reason": "exit" | "budget" | "fault" | "breakpoint" | "watchpoint" | "none",
 * "exit_code": the program's full
 * exit value (signed; only for "exit"), "pc": the stop pc, "message": stop->message}. */
NPK_API npk_status npk_stats_json_stop(npk_machine *m, const npk_stop *stop, FILE *f);

/* ---- snapshots ------------------------------------------------------------------------- */

/* The whole machine (registers, memories, timing-model state, statistics, symbols) as a
 * versioned, self-describing, checksummed byte string (docs/snapshot.md). *data is allocated;
 * release it with npk_free. A state the target cannot capture is refused (rvnpu: guest files
 * open; NPK_ERR_STATE). Targets without snapshots give NPK_ERR_UNSUPPORTED. */
NPK_API npk_status npk_snapshot_save(npk_machine *m, uint8_t **data, size_t *size);
/* Put a saved state back into m, a machine of the same target and configuration (the same
 * npk_config_string) made by the same npukit version. Anything else, and a truncated or
 * corrupt snapshot, is refused with a message naming `name` (NULL: "snapshot") and the cause
 * (NPK_ERR_ARG for another target or configuration, NPK_ERR_FORMAT for the rest), and m is
 * left as it was: nothing is written before the whole snapshot has been checked. After a
 * restore the machine runs on exactly as the saved one would have (same results, output,
 * statistics). */
NPK_API npk_status npk_snapshot_restore(npk_machine *m, const void *data, size_t size,
                                        const char *name);
/* The same to and from files; "-" is standard output / standard input. Write errors are
 * NPK_ERR_IO ("PATH: write error: ..."); a file is read as npk_load_file reads one. */
NPK_API npk_status npk_snapshot_save_file(npk_machine *m, const char *path);
/* Which machine a snapshot is of, without one: its target name and configuration string,
 * after the checks of its framing, format version and checksum. On failure err holds
 * "NAME: why" (`name` NULL: "snapshot"). */
NPK_API npk_status npk_snapshot_info(const void *data, size_t size, const char *name,
                                     char *target, size_t target_size, char *config,
                                     size_t config_size, char *err, size_t err_size);
NPK_API npk_status npk_snapshot_restore_file(npk_machine *m, const char *path);
/* ---- breakpoints and watchpoints (docs/breakpoints.md) ------------------------------------ */

/* A breakpoint stops a run or step before the instruction at `pc` runs (NPK_STOP_BREAKPOINT,
 * stop->pc = pc); the next run or step from there executes it instead of stopping again.
 * pc is a program address as npk_stop.pc and the commit log show it: a byte address on toy,
 * rvnpu, opennpu (4 x word index) and pccx (8 x instruction index), the cycle index on
 * tinytpu. A pc that is not a multiple of the instruction size, or outside the npk_addr_bits
 * address space, is NPK_ERR_ARG. Adding one that is set already does nothing. While any
 * breakpoint or watch is set, runs take the target's observed loop. */
NPK_API npk_status npk_break_add(npk_machine *m, uint64_t pc);
/* NPK_ERR_ARG when there is no breakpoint at pc. */
NPK_API npk_status npk_break_remove(npk_machine *m, uint64_t pc);
NPK_API void npk_break_clear(npk_machine *m);

#define NPK_WATCH_READ 1u
#define NPK_WATCH_WRITE 2u
/* Watch `len` bytes at `addr` of memory space `space` (a name of npk_space, or "bus" on
 * rvnpu: the whole 32-bit bus) for reads, writes or both (kind: NPK_WATCH_READ |
 * NPK_WATCH_WRITE). An instruction whose access overlaps the range in at least one byte stops
 * the run after it completes (NPK_STOP_WATCHPOINT, stop->pc = the next instruction);
 * npk_watch_last_hit says which watch and access. *id (from 1 up) names the watch. An unknown
 * space, a zero length, a kind outside READ | WRITE is NPK_ERR_ARG; a range not wholly inside
 * the space NPK_ERR_RANGE. Which accesses each target reports: docs/breakpoints.md. */
NPK_API npk_status npk_watch_add(npk_machine *m, const char *space, uint64_t addr, uint64_t len,
                                 unsigned kind, unsigned *id);
/* NPK_ERR_ARG when no watch has this id. */
NPK_API npk_status npk_watch_remove(npk_machine *m, unsigned id);
NPK_API void npk_watch_clear(npk_machine *m);

/* The access behind the last NPK_STOP_WATCHPOINT. */
typedef struct npk_watch_hit {
    unsigned id;            /* the watch (npk_watch_add's id) */
    unsigned kind;          /* NPK_WATCH_READ or NPK_WATCH_WRITE: what the access was */
    const char *space;      /* the watch's space, as the target names it */
    uint64_t pc;            /* the instruction that made the access */
    uint64_t addr, size;    /* the accessed bytes inside the watched range */
    uint64_t value;         /* those bytes (the first 8 when more), little-endian: the value
                               written (the new value) or read */
    uint64_t access_addr, access_size; /* the whole access */
} npk_watch_hit;
/* NPK_ERR_STATE when the last run or step did not stop at a watchpoint. */
NPK_API npk_status npk_watch_last_hit(npk_machine *m, npk_watch_hit *hit);

/* ---- commit records (docs/commit-log.md) -------------------------------------------------- */

/* What one instruction did: the single record behind the commit log (text and JSON lines)
 * and the C callback. Produced only while a commit callback or log is set (otherwise the
 * target's fast loop runs and no record exists). Every target produces records: one per
 * retired instruction (toy, rvnpu, opennpu), per issued instruction (pccx) or per clock edge
 * (tinytpu); a target without them would refuse npk_on_commit and npk_commit_log with
 * NPK_ERR_UNSUPPORTED. */
typedef enum npk_effect_kind {
    NPK_EFFECT_REG = 1,   /* a register was written (even with the value it held) */
    NPK_EFFECT_MEM,       /* bytes of a memory space were written */
    NPK_EFFECT_TRAP       /* the instruction raised an exception */
} npk_effect_kind;

typedef struct npk_effect {
    npk_effect_kind kind;
    const char *name;      /* REG: the register ("x5", "f3", "fflags", "acc", "v2");
                              MEM: the space ("bus", "mem", "rf"); TRAP: the cause ("illegal
                              instruction") */
    unsigned bits;         /* REG: the register's width */
    uint64_t addr;         /* MEM: address of the first byte written; TRAP: the trap value
                              (rvnpu mtval) */
    uint64_t size;         /* MEM: bytes written (adjacent writes of one instruction merge) */
    uint64_t value;        /* REG: the new value; MEM: the bytes read little-endian when
                              size <= 8 (else 0); TRAP: the cause code (rvnpu mcause) */
    const uint8_t *bytes;  /* MEM: the `size` bytes written, in address order; else NULL */
} npk_effect;

typedef struct npk_commit {
    uint64_t seq;          /* 1, 2, 3, ...: records delivered since create or npk_reset */
    uint64_t cycle;        /* the timing model's issue cycle of the instruction */
    uint64_t pc;
    const uint8_t *word;   /* the instruction's bytes in memory order, word_bytes long
                              (tinytpu: the cycle's full-port control word) */
    unsigned word_bytes;   /* npk_insn_bytes (tinytpu: the full-port word's bytes), or 0 when
                              no word could be fetched (a fetch fault) or the cycle has none
                              (a tinytpu reset cycle) */
    int retired;           /* 1: the instruction retired; 0: it trapped instead (its effects
                              are the trap and the trap entry's register writes) */
    size_t n_effects;
    const npk_effect *effects;  /* registers in the target's order, then memory writes in
                                   program order, then the trap */
} npk_commit;

/* A record is valid only during the call: copy what you keep. The callback may read the
 * machine (npk_reg_read, npk_mem_read, npk_disasm of c->word at c->pc) but must not run,
 * step, reset or destroy it. */
typedef void (*npk_commit_fn)(npk_machine *m, const npk_commit *c, void *ctx);
/* Call fn with every record from the next run or step on; fn NULL turns it off. While it
 * is set the target runs its observed loop, or rvnpu a recording loop (docs/commit-log.md,
 * "Cost", and bench/core/bench_commit for what it costs). */
NPK_API npk_status npk_on_commit(npk_machine *m, npk_commit_fn fn, void *ctx);

typedef enum npk_commit_format {
    NPK_COMMIT_TEXT = 0,   /* one line per record, effects in the record's order */
    NPK_COMMIT_JSONL       /* one JSON object per line */
} npk_commit_format;
/* Write one record as one line (with its '\n') in the documented format. Returns 0, or -1
 * when the stream reported an error. */
NPK_API int npk_commit_print(npk_machine *m, const npk_commit *c, npk_commit_format fmt,
                             FILE *f);
/* The commit log: every record to f (npk_commit_print) from the next run or step on; NULL
 * turns it off. The log being replaced (or turned off) is flushed; NPK_ERR_IO if any of its
 * writes failed (it stays open: closing it is the caller's). Independent of npk_on_commit. */
NPK_API npk_status npk_commit_log(npk_machine *m, FILE *f, npk_commit_format fmt);
/* Memory writes longer than `threshold` bytes are printed by the log and npk_commit_print as
 * their address range and the CRC-32 of their bytes (IEEE, as zlib's crc32) instead of the
 * bytes; 0 (the default) prints every write's bytes. The records themselves (and the
 * callback) always carry the bytes. Kept across runs and resets. */
NPK_API npk_status npk_commit_log_digest(npk_machine *m, uint64_t threshold);

#ifdef __cplusplus
}
#endif
#endif
