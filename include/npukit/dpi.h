/* npukit for SystemVerilog testbenches: the C side of the DPI-C package `npukit_dpi`
 * (share/npukit/sv/npukit_dpi.sv). Each function is one DPI-C import of that package, with the
 * C types the DPI standard maps its SV types to: chandle = void *, string = const char *,
 * int = int, longint = long long, an output argument = a pointer. The functions use no
 * svdpi.h call, so they live in libnpukit itself and any simulator links them as they are.
 * A handle (an SV chandle) owns one machine and everything the calls return; there is no
 * global state. docs/dpi.md describes the package. */
#ifndef NPUKIT_DPI_H
#define NPUKIT_DPI_H

#include "npukit/npukit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Statuses are npk_status values (NPK_OK = 0); stop reasons npk_stop_reason values; effect
 * kinds npk_effect_kind values. Returned strings stay valid until the next call on the same
 * handle (SystemVerilog copies them at once). Every call accepts a NULL or wrong handle and
 * fails with NPK_ERR_ARG (or returns 0, "" or -1, as it says). */

/* The library's version, e.g. "0.1.0". */
NPK_API const char *npk_dpi_version(void);

/* A machine from a spec string ("rvnpu", "opennpu:K=8,L=32") and extra settings (a
 * comma-separated key=value list, "" for none), as npk_create. The handle is returned even
 * when the machine could not be made (NULL only when out of memory): npk_dpi_valid() is then
 * 0 and npk_dpi_error() says why.
 * Commit records are on (npk_dpi_commit_enable). */
NPK_API void *npk_dpi_create(const char *spec, const char *settings);
/* 1 when h holds a machine (npk_dpi_create worked), else 0. */
NPK_API int npk_dpi_valid(void *h);
NPK_API void npk_dpi_destroy(void *h);
/* The message of the last failing call on h ("" when none has failed). */
NPK_API const char *npk_dpi_error(void *h);
NPK_API int npk_dpi_reset(void *h);
/* Where guest output goes (write syscalls, UART, putc): "" keeps the process's standard
 * output / error; any other path is opened for writing ("/dev/null" discards it). */
NPK_API int npk_dpi_set_output(void *h, const char *out_path, const char *err_path);

/* ---- loading (assembler diagnostics, file:line:col, end up in npk_dpi_error) ---------- */

/* A file by its content: ELF, assembly text, or a raw image at address 0 (npk_load_file). */
NPK_API int npk_dpi_load_file(void *h, const char *path);
/* A raw image file at byte address addr of the program space (npk_load_raw). */
NPK_API int npk_dpi_load_raw(void *h, const char *path, long long addr);
/* Assembly source text; name is used in diagnostics. */
NPK_API int npk_dpi_load_asm(void *h, const char *source, const char *name);

/* ---- running ---------------------------------------------------------------------------- */

/* One instruction (npk_step); then npk_dpi_stop_reason() says whether the program can go on
 * (NPK_STOP_NONE), exited or faulted. */
NPK_API int npk_dpi_step(void *h);
/* Up to max_insns instructions (0: until the program stops), npk_run. Only the last commit
 * record is kept. */
NPK_API int npk_dpi_run(void *h, long long max_insns);
NPK_API int npk_dpi_stop_reason(void *h);
NPK_API long long npk_dpi_exit_code(void *h);
NPK_API long long npk_dpi_stop_pc(void *h);
NPK_API const char *npk_dpi_stop_message(void *h);

/* ---- commit records (docs/commit-log.md) ------------------------------------------------ */

/* Keep commit records of the following steps (on: 1, the default) or not (0: the target's
 * fast loop). On targets without records (tinytpu, pccx) turning them on is
 * NPK_ERR_UNSUPPORTED and steps make none. */
NPK_API int npk_dpi_commit_enable(void *h, int on);
/* How many records the last step made: 1 normally; 2 when a trap entered the program's own
 * handler (the trap's record, retired 0, then the handler's first instruction); 0 when none
 * (a fault that makes no record, records off). After npk_dpi_run: 1 (the last) or 0. */
NPK_API int npk_dpi_commit_count(void *h);
/* The record the accessors below read: i in 0 .. count-1; each step selects its last. */
NPK_API int npk_dpi_commit_select(void *h, int i);
/* The selected record's fields (0 when there is none). word: the instruction's first 8
 * bytes, little-endian (the bytes in memory order, word_bytes long); word_byte: byte k of
 * it, for words longer than 8 bytes (tinytpu's full-port word), -1 past its end. */
NPK_API long long npk_dpi_commit_seq(void *h);
NPK_API long long npk_dpi_commit_cycle(void *h);
NPK_API long long npk_dpi_commit_pc(void *h);
NPK_API long long npk_dpi_commit_word(void *h);
NPK_API int npk_dpi_commit_word_bytes(void *h);
NPK_API int npk_dpi_commit_word_byte(void *h, int k);
NPK_API int npk_dpi_commit_retired(void *h);
NPK_API int npk_dpi_commit_effects(void *h);
/* Its disassembly, and its line of the text commit log (without the newline). */
NPK_API const char *npk_dpi_commit_disasm(void *h);
NPK_API const char *npk_dpi_commit_text(void *h);
/* Effect i (0 .. effects-1) of the selected record: its kind (0 for no such effect), name
 * (register, space or trap cause), register width, address, size in bytes, value, and byte
 * k of a memory write (0 .. size-1; -1 outside). */
NPK_API int npk_dpi_effect_kind(void *h, int i);
NPK_API const char *npk_dpi_effect_name(void *h, int i);
NPK_API int npk_dpi_effect_bits(void *h, int i);
NPK_API long long npk_dpi_effect_addr(void *h, int i);
NPK_API long long npk_dpi_effect_size(void *h, int i);
NPK_API long long npk_dpi_effect_value(void *h, int i);
NPK_API int npk_dpi_effect_byte(void *h, int i, long long k);
/* The index of the selected record's first effect of this kind whose name is `name` (any
 * name: ""), or -1. */
NPK_API int npk_dpi_effect_find(void *h, int kind, const char *name);

/* ---- state -------------------------------------------------------------------------------- */

/* Registers of at most 64 bits by name (npk_reg_read / npk_reg_write). */
NPK_API int npk_dpi_reg_read(void *h, const char *name, long long *value);
NPK_API int npk_dpi_reg_write(void *h, const char *name, long long value);
/* 1 .. 8 bytes of a space at addr, as a little-endian number (npk_mem_read / write). */
NPK_API int npk_dpi_mem_read(void *h, const char *space, long long addr, int size,
                             long long *value);
NPK_API int npk_dpi_mem_write(void *h, const char *space, long long addr, int size,
                              long long value);
/* A symbol of the loaded program (npk_symbol). */
NPK_API int npk_dpi_symbol(void *h, const char *name, long long *value);
/* The disassembly of an instruction word (its first 8 bytes, little-endian) at pc, for
 * printing the other side of a comparison; "" on failure (npk_dpi_error). */
NPK_API const char *npk_dpi_disasm(void *h, long long pc, long long word);

/* ---- snapshots (docs/snapshot.md) ------------------------------------------------------- */

/* The whole machine as a snapshot handle (NULL on failure: npk_dpi_error(h)); restore puts it
 * back into h or another machine of the same target and configuration; free releases it. */
NPK_API void *npk_dpi_snapshot_save(void *h);
NPK_API int npk_dpi_snapshot_restore(void *h, void *snapshot);
NPK_API void npk_dpi_snapshot_free(void *snapshot);
NPK_API int npk_dpi_snapshot_save_file(void *h, const char *path);
NPK_API int npk_dpi_snapshot_restore_file(void *h, const char *path);

#ifdef __cplusplus
}
#endif
#endif
