/* The machine handle's layout, shared by the core's own files. Targets use target.h. */
#ifndef NPK_CORE_MACHINE_H
#define NPK_CORE_MACHINE_H

#include "asm/asm.h" /* npk_name_index */
#include "core/obs.h"
#include "core/target.h"

typedef struct npk_symbol_entry {
    char *name;
    uint64_t value;
    uint64_t size;     /* bytes (ELF st_size); 0 = unknown */
    int local;         /* ELF STB_LOCAL; global and weak symbols are preferred */
} npk_symbol_entry;

struct npk_machine {
    const npk_target *target;
    void *state;
    char error[1024];
    char config[512];
    FILE *out, *err;
    FILE *listing;              /* assembly listing (npk_set_listing), or NULL */
    npk_obs obs;
    FILE *timeline_file;
    npk_symbol_entry *syms;
    size_t n_syms, cap_syms;
    npk_name_index globals;  /* name -> first global/weak entry of syms */
    int loaded;
    int exited;              /* the program ended (an NPK_STOP_EXIT): npk_run and npk_step
                                report exit_stop again and execute nothing, until a load or
                                a snapshot restore (docs/debugging.md, Decisions) */
    npk_stop exit_stop;
    size_t reg_hint;         /* where the next register lookup looks first: one after the last
                                found, so a walk over the list by name is linear, not
                                quadratic (tinytpu has ~460,000 registers at N = 256) */
    uint64_t commit_seq;     /* commit records delivered while no sink was kept */
    uint64_t commit_digest;  /* npk_commit_log_digest: memory writes longer than this many
                                bytes print as a range and a CRC-32 (0: never) */
    npk_dbg dbg;             /* breakpoints and watches (breakpoint.c); obs.dbg points here
                                while any is set */
};

/* Create a machine for a target table directly (tests, and targets outside the registry);
 * `settings` and `config` are comma-separated key=value lists. */
npk_status npk_create_for(npk_machine **out, const npk_target *t, const char *settings,
                          const char *config, char *err, size_t err_size);

/* The settings a target accepts, one per line: its presets (bare words, as in "opennpu:top"),
 * then "KEY=" for every key its create() looks up, found by creating it once with no
 * settings; for `npukit info --list settings` and the shell completion. *out is malloc'd. */
npk_status npk_target_setting_names(const char *target, char **out, char *err,
                                    size_t err_size);

/* Registry (registry.c). */
const npk_target *npk_target_find(const char *name);

/* ELF32 loader (elf.c). */
npk_status npk_elf_load(npk_machine *m, const uint8_t *bytes, size_t n, const char *name);

#endif
