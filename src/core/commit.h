/* Commit records: the builder a target's observed loop fills for each instruction, and the
 * sinks it feeds (the npk_on_commit callback and the text / JSON-lines log); a recording loop
 * fills the record itself (npk_commit_reserve, npk_commit_deliver). One record, many sinks
 * (docs/commit-log.md). */
#ifndef NPK_CORE_COMMIT_H
#define NPK_CORE_COMMIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "npukit/npukit.h"

/* The widest instruction word a record carries: tinytpu's full-port control word at lanes=256
 * (96 + 17 * 256 bits, 556 bytes; docs/commit-log.md). */
#define NPK_COMMIT_WORD_MAX 560u

typedef struct npk_commit_sink {
    npk_commit_fn fn;            /* npk_on_commit, or NULL */
    void *ctx;
    FILE *log;                   /* npk_commit_log, or NULL */
    npk_commit_format fmt;
    uint64_t seq;                /* records delivered */
    npk_commit rec;              /* the record being built */
    uint8_t word[NPK_COMMIT_WORD_MAX];
    npk_effect *eff;             /* effects of the record being built */
    size_t *boff;                /* MEM effects: offset of their bytes in `bytes` */
    size_t n_eff, cap_eff;
    uint8_t *bytes;
    size_t n_bytes, cap_bytes;
    int lost;                    /* an effect was dropped for want of memory */
    int delivering;              /* inside the callback: a callback that unsets itself must
                                    not free the sink under the loop that delivers to it
                                    (npk_commit_drop_unused frees it at the next run) */
} npk_commit_sink;

/* Start the record of the instruction at pc (word: word_bytes bytes in memory order, or
 * NULL with 0 when none could be fetched). */
void npk_commit_begin(npk_commit_sink *c, uint64_t pc, const uint8_t *word, unsigned word_bytes);
void npk_commit_reg(npk_commit_sink *c, const char *name, unsigned bits, uint64_t value);
/* `n` bytes written at addr of space `space` (a static name); a write right after the
 * previous one of this record in the same space extends it. */
void npk_commit_mem(npk_commit_sink *c, const char *space, uint64_t addr, const uint8_t *bytes,
                    size_t n);
/* The same for a value of n <= 8 bytes stored little-endian. */
void npk_commit_mem_value(npk_commit_sink *c, const char *space, uint64_t addr, uint64_t value,
                          unsigned n);
void npk_commit_trap(npk_commit_sink *c, const char *cause_name, uint64_t cause, uint64_t tval);
/* Finish the record and hand it to every sink. */
void npk_commit_end(npk_machine *m, npk_commit_sink *c, int retired, uint64_t cycle);

/* For a recording loop that fills the record in place (rvnpu's, docs/commit-log.md "Cost"):
 * room for n_eff effects and n_bytes bytes of memory effects, so that c->eff[0 .. n_eff) and
 * c->bytes[0 .. n_bytes) may be written directly (0; -1 when out of memory). */
int npk_commit_reserve(npk_commit_sink *c, size_t n_eff, size_t n_bytes);

/* Hand the record to every sink: c->rec.pc, word and word_bytes set, c->eff[0 .. n_eff) the
 * effects in their final order, a MEM effect's bytes and value filled in. The end of
 * npk_commit_end, and all of it for a recording loop. */
static inline void npk_commit_deliver(npk_machine *m, npk_commit_sink *c, int retired,
                                      uint64_t cycle, size_t n_eff)
{
    c->n_eff = n_eff;
    c->rec.seq = ++c->seq;
    c->rec.cycle = cycle;
    c->rec.word = c->word;
    c->rec.retired = retired;
    c->rec.n_effects = n_eff;
    c->rec.effects = c->eff;
    if (c->log)
        npk_commit_print(m, &c->rec, c->fmt, c->log);
    if (c->fn) {
        c->delivering = 1;
        c->fn(m, &c->rec, c->ctx);
        c->delivering = 0;
    }
}

/* Free the sink when neither a callback nor a log wants it any more (one that unset itself
 * during delivery); npk_run and npk_step call it before running, so the fast loop comes back. */
void npk_commit_drop_unused(npk_machine *m);

#endif
