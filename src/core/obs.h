/* Observers: statistics, the per-instruction text trace and the Chrome trace-event timeline.
 * Targets feed them retire events from their observed loop only; when npk_obs_active() is
 * false the fast loop runs and none of this is touched. */
#ifndef NPK_CORE_OBS_H
#define NPK_CORE_OBS_H

#include <stdint.h>
#include <stdio.h>

#include "npukit/npukit.h"
#include "core/breakpoint.h"
#include "core/commit.h"

/* One retired instruction as the timing model saw it. */
typedef struct npk_event {
    uint64_t pc;
    const uint8_t *word;     /* the instruction bytes (npk_insn_bytes long) */
    unsigned mnemonic;       /* index into the target's mnemonic table */
    unsigned unit;           /* index into the target's unit table */
    uint64_t start, end;     /* issue cycle and completion cycle (end >= start) */
} npk_event;

typedef struct npk_timeline npk_timeline;

typedef struct npk_obs {
    int active;              /* any observer on: the target must use its observed loop */
    int stats;               /* statistics collection on */
    FILE *trace;             /* text trace sink or NULL */
    npk_timeline *timeline;  /* timeline writer or NULL */
    uint64_t insns;          /* retired while observed */
    uint64_t cycles;         /* latest completion cycle seen */
    uint64_t *count;         /* per mnemonic */
    uint64_t *busy;          /* per unit */
    uint64_t *extra;         /* target counters, bumped by the target directly */
    npk_commit_sink *commit; /* commit records wanted (a callback or a log), else NULL: the
                                observed loop builds one record per instruction */
    npk_dbg *dbg;            /* breakpoints or watches set (core/breakpoint.h), else NULL */
} npk_obs;

static inline int npk_obs_active(const npk_obs *o)
{
    return o->active;
}

/* Commit records are the only observer that needs each instruction (statistics may be on
 * too): a target may run a recording loop, which fills the records and keeps the timing
 * state as its observed loop does, and the statistics while they are on, but feeds no events
 * (rvnpu, docs/commit-log.md "Cost"). An observer the recording loop does not serve - the
 * trace, the timeline, and any new one that needs the observed loop - must make this false. */
static inline int npk_obs_records_only(const npk_obs *o)
{
    return o->commit && !o->trace && !o->timeline && !o->dbg; /* breakpoints and watches:
                                                                  the observed loop */
}

/* Statistics are the only observer: a target may count them in a loop of its own (the
 * recording loop without records) instead of the observed loop. */
static inline int npk_obs_stats_only(const npk_obs *o)
{
    return o->stats && !o->commit && !o->trace && !o->timeline && !o->dbg;
}

/* Report one retired instruction (observed loop only). */
void npk_obs_retire(npk_machine *m, const npk_event *ev);
/* What npk_obs_retire does when neither a trace nor a timeline is on and the mnemonic and unit
 * are in range: for a target's loop to do inline (npk_obs_retire calls it too). */
static inline void npk_obs_retire_stats(npk_obs *o, unsigned mnemonic, unsigned unit,
                                        uint64_t start, uint64_t end)
{
    o->insns++;
    if (end > o->cycles)
        o->cycles = end;
    o->count[mnemonic]++;
    o->busy[unit] += end - start;
}
/* Report activity that is not an instruction (a memory burst, a pipeline drain) on a unit's
 * timeline track; statistics count it as busy time. */
void npk_obs_span(npk_machine *m, unsigned unit, const char *name, uint64_t start,
                  uint64_t end);

/* Write a slice on timeline track `track` of a target with its own track list (npk_target's
 * tracks); statistics are the target's business. Does nothing without a timeline. */
void npk_obs_slice(npk_machine *m, unsigned track, const char *name, uint64_t start,
                   uint64_t end);

/* Core-internal lifecycle (machine.c). */
void npk_commit_sink_free(npk_commit_sink *c);
npk_status npk_obs_init(npk_obs *o, size_t n_mnemonics, size_t n_units, size_t n_extras);
void npk_obs_free(npk_obs *o);
void npk_obs_clear_counts(npk_obs *o, size_t n_mnemonics, size_t n_units, size_t n_extras);
void npk_obs_update_active(npk_obs *o);

/* `path` names the file in messages (copied); one track per name in `tracks` (the names
 * must outlive the writer). */
npk_timeline *npk_timeline_create(FILE *f, const char *path, const char *const *tracks,
                                  size_t n_tracks, const char *target);
/* One slice on a track (on the track's first lane where it nests properly: see obs.c). */
void npk_timeline_event(npk_timeline *t, unsigned track, const char *name, uint64_t start,
                        uint64_t dur);
/* Finish the JSON and close the file; returns 0 when everything was written, else an errno
 * value, with the file's name copied to path[0..n). */
int npk_timeline_finish(npk_timeline *t, char *path, size_t n);
/* Flush a writer's stream and check it: NPK_OK, or NPK_ERR_IO with "write error (WHAT):
 * REASON" on the machine; the caller, who knows the file's name, puts it in front. The
 * stream stays open: it belongs to the caller. */
npk_status npk_obs_flush(npk_machine *m, FILE *f, const char *what);

#endif
