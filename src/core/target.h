/* The contract between the core and a target: the vtable a target registers, and the core
 * services (errors, config, memories, symbols, observers) its code may call. Targets include
 * this; public users never see it. */
#ifndef NPK_CORE_TARGET_H
#define NPK_CORE_TARGET_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "npukit/npukit.h"
#include "core/config.h"
#include "core/obs.h"

struct npk_snap_writer;
struct npk_snap_reader;

/* A memory a target exposes for backdoor access. Reads/writes go through `data` when it is
 * non-NULL, else through the target's space_read/space_write hooks. */
typedef struct npk_memspace {
    npk_space_info info;
    uint8_t *data;
} npk_memspace;

typedef struct npk_target {
    const char *name;
    const char *summary;
    const char *config_help;      /* keys, legal values, presets */
    const char *presets;          /* the bare words create() accepts as settings, separated
                                     by spaces ("test top"), or NULL; the keys are found by
                                     creating the target (npk_target_setting_names) */
    unsigned insn_bytes;          /* bytes per instruction word */
    int raw_pads;                 /* load_raw takes an image of any size and completes a partial
                                     last word with zero bytes (rvnpu: `objcopy -O binary`
                                     output); otherwise the core refuses an image that is not
                                     a whole number of insn_bytes words */
    uint16_t elf_machine;         /* e_machine accepted by the ELF loader; 0 = no ELF */
    unsigned addr_bits;           /* width of program addresses (the pc): every word of a
                                     program lies below 2^addr_bits; 1 .. 64 (0: 64) */
    /* The name of the program's address space when it is not one of the spaces (rvnpu:
     * "bus", RAM and devices at their addresses): watchable (npk_watch_add), 2^addr_bits
     * bytes. NULL: none. */
    const char *bus_space;
    /* The space program symbols address, for watches on a symbol (`npukit run --watch`):
     * a space name, the bus_space, or NULL when symbols are not data addresses. */
    const char *symbol_space;

    /* Create target state from parsed configuration. Must reject unknown keys and bad values
     * with npk_fail() naming the key, the value and the legal values. */
    npk_status (*create)(npk_machine *m, const npk_config *cfg, void **state);
    void (*destroy)(void *state);
    npk_status (*reset)(npk_machine *m, void *state);

    /* Loading. load_raw copies a program image; load_elf_segment copies one PT_LOAD segment
     * (file bytes, then zero fill to memsz); set_entry sets the start pc. Any may be NULL. */
    npk_status (*load_raw)(npk_machine *m, void *state, const uint8_t *bytes, size_t n,
                           uint64_t addr);
    npk_status (*load_elf_segment)(npk_machine *m, void *state, uint64_t addr,
                                   const uint8_t *bytes, size_t filesz, uint64_t memsz);
    npk_status (*set_entry)(npk_machine *m, void *state, uint64_t pc);
    /* Warnings about an ELF header's e_flags (rvnpu: compressed instructions, a double-float
     * ABI): zero or more lines, each ending in '\n', written to out (n > 0; "" for none).
     * May be NULL. */
    void (*elf_flags_warnings)(uint32_t e_flags, char *out, size_t n);
    /* Write bytes at a program (bus) address, e.g. over a symbol's storage before the run
     * (npk_write_symbol). Must bounds-check and fail with a message. May be NULL. */
    npk_status (*poke)(npk_machine *m, void *state, uint64_t addr, const uint8_t *bytes,
                       size_t n);
    /* Read bytes at a program (bus) address, the mirror of poke (npk_read_symbol). Must
     * bounds-check and fail with a message. May be NULL. */
    npk_status (*peek)(npk_machine *m, void *state, uint64_t addr, uint8_t *bytes, size_t n);
    /* Assemble source into a program image (malloc'ed, freed by the caller) and add its
     * symbols with npk_symbol_add. load_asm, when set, assembles and loads in one go (for
     * programs that carry more than a word image); otherwise the core assembles and calls
     * load_raw at address 0. */
    npk_status (*assemble)(npk_machine *m, void *state, const char *source, const char *name,
                           FILE *diag, uint8_t **image, size_t *size);
    npk_status (*load_asm)(npk_machine *m, void *state, const char *source, const char *name,
                           FILE *diag);
    /* Optional (npk_load_path): load the program file at `path` by reading it itself (a
     * stream); NPK_ERR_UNSUPPORTED, with nothing changed and no message, for a file or a
     * configuration it does not read that way (the core then reads the file whole). */
    npk_status (*load_path)(npk_machine *m, void *state, const char *path, FILE *diag);

    /* Run until stop or until max_insns (0 = unlimited) retire. The target picks its fast
     * loop when npk_obs_active() is false. */
    npk_status (*run)(npk_machine *m, void *state, uint64_t max_insns, npk_stop *stop);
    /* Retire one instruction (npk_step). `stop` arrives cleared (reason NPK_STOP_NONE, empty
     * message); the hook sets stop->pc to the next instruction's address and leaves the reason
     * NONE unless the program stopped. It is called in an embedding's loop, so it must be
     * cheap: no budget message, no flush unless the guest wrote output. May be NULL: the core
     * then runs one instruction with run() and turns its budget stop into NPK_STOP_NONE. */
    npk_status (*step)(npk_machine *m, void *state, npk_stop *stop);

    npk_status (*disasm)(npk_machine *m, void *state, const uint8_t *bytes, uint64_t pc,
                         char *out, size_t n);
    /* Targets with insn_bytes == 0 (text-stream programs): a whole program file to assembly. */
    npk_status (*disasm_text)(npk_machine *m, void *state, const uint8_t *bytes, size_t n,
                              const char *name, FILE *out);

    /* Backdoor access: spaces and scalar registers. */
    size_t (*spaces)(void *state, npk_memspace **list);
    npk_status (*space_read)(npk_machine *m, void *state, size_t space, uint64_t addr,
                             void *buf, size_t n);
    npk_status (*space_write)(npk_machine *m, void *state, size_t space, uint64_t addr,
                              const void *buf, size_t n);
    /* The register list; flags NPK_REG_READONLY makes the core refuse writes, so the
     * target's reg_write never sees them. */
    size_t (*regs)(void *state, const npk_reg_info **list);
    /* Former names of registers, kept so that older callers work: pairs {old, name, ...,
     * NULL}; npk_reg_* find a register by an old name too. NULL for none. */
    const char *const *reg_aliases;
    /* Registers f32_reg_first .. + f32_reg_count - 1 of that list hold IEEE binary32 values
     * (npk_reg_is_f32); 0 and 0 for none. */
    size_t f32_reg_first, f32_reg_count;
    npk_status (*reg_read)(npk_machine *m, void *state, size_t reg, uint64_t *value);
    npk_status (*reg_write)(npk_machine *m, void *state, size_t reg, uint64_t value);
    /* Registers wider than 64 bits, as (bits + 7) / 8 little-endian bytes; the core has
     * checked the size, the read-only flag and the unused top bits. Needed only by a target
     * with such registers (reg_read/reg_write are never called for them). */
    npk_status (*reg_read_bytes)(npk_machine *m, void *state, size_t reg, uint8_t *buf);
    npk_status (*reg_write_bytes)(npk_machine *m, void *state, size_t reg, const uint8_t *buf);

    /* Statistics names: mnemonics (index = the id used in retire events), units, extras. */
    const char *const *mnemonics;
    size_t n_mnemonics;
    const char *const *units;
    size_t n_units;
    const char *const *extras;
    size_t n_extras;
    /* Optional: what the cycle count means, shown after it by npk_stats_print instead of the
     * cycles per instruction (meaningless where units run concurrently, as on pccx). Writes
     * at most n bytes; returns the text's length (snprintf-like), 0 for none. */
    int (*cycles_note)(void *state, const npk_stats *s, char *out, size_t n);
    /* Optional, for npk_insn_describe: what one instruction is, where insn_bytes does not
     * say it (tinytpu's control word per cycle). snprintf-like. */
    int (*insn_note)(void *state, char *out, size_t n);
    /* Timeline tracks, for a target whose timeline is finer than its units (tinytpu: a track
     * per VPU stage and per read channel). NULL: one track per unit, filled by retire events
     * and npk_obs_span. Set: retire events and spans write no slices; the target writes its
     * own with npk_obs_slice. */
    const char *const *tracks;
    size_t n_tracks;

    /* Snapshots (core/snapshot.h, docs/snapshot.md); both NULL: not supported. snap_save
     * appends the target's sections (registers, memories, timing state, extras) or fails
     * with a message (a state it cannot capture). snap_restore is called twice: first with
     * r->apply 0, when it must check every section it needs and write nothing, then with
     * r->apply 1, when it writes them. In that pass it may fail only before it writes
     * anything (allocating a new program image, say): the machine must stay as it was. */
    npk_status (*snap_save)(npk_machine *m, void *state, struct npk_snap_writer *w);
    npk_status (*snap_restore)(npk_machine *m, void *state, struct npk_snap_reader *r);
    /* The observed loop builds a commit record per instruction while npk_observers(m)->commit
     * is set (npk_commit_begin ... npk_commit_end; docs/commit-log.md); 0: npk_on_commit and
     * npk_commit_log are refused as unsupported. */
    int commit_records;
} npk_target;

/* Record an error on the machine (message printf-style) and return `s`. */
npk_status npk_fail(npk_machine *m, npk_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Record the effective configuration shown by npk_config_string (printf-style). */
void npk_config_describe(npk_machine *m, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Guest output streams chosen with npk_set_output. */
FILE *npk_guest_out(npk_machine *m);
FILE *npk_guest_err(npk_machine *m);
/* Where an assembler writes its listing (npk_set_listing), or NULL for none. */
FILE *npk_listing_out(npk_machine *m);

/* Symbols of the loaded program. npk_symbol_add defines (or redefines) a global symbol;
 * npk_symbol_add_elf records an ELF symbol with its size and binding (several local symbols
 * of one name may exist; lookups prefer a global or weak one). */
npk_status npk_symbol_add(npk_machine *m, const char *name, uint64_t value);
npk_status npk_symbol_add_elf(npk_machine *m, const char *name, uint64_t value, uint64_t size,
                              int local);
void npk_symbols_clear(npk_machine *m);

/* The state of machine m if it was created for target t (a target's public API uses this to
 * find its context), else NULL. */
void *npk_target_state(npk_machine *m, const npk_target *t);

/* Observers of this machine (NULL-free; check npk_obs_active before using). */
npk_obs *npk_observers(npk_machine *m);

/* Fill a stop record. */
void npk_stop_set(npk_stop *s, npk_stop_reason r, uint64_t pc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif
