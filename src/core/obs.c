/* Statistics counters, text trace lines and the Chrome trace-event (Perfetto) writer. All of
 * it runs only from a target's observed loop. */
#include "core/obs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/machine.h"

/* A run of billions of instructions would make a timeline no viewer can open; past this many
 * events the writer stops recording and says so in the file's metadata. */
#define NPK_TIMELINE_MAX_EVENTS 2000000u

/* Perfetto accepts the slices of one track only when they nest: any two are disjoint or one
 * lies inside the other (and of two with one start, the longer comes first in the file).
 * Pipelined units overlap partially (two stores a cycle apart, each two cycles long), so each
 * track is split into lanes: a slice goes to the first lane where it nests with every slice
 * already there, and a lane past the first is a track of its own named "UNIT #2", "UNIT #3",
 * ... placed right after its unit. A lane remembers its last slices exactly and the others
 * by the latest end among them (floor): a slice starting before the floor goes to another
 * lane, which keeps the test exact. */
#define NPK_TIMELINE_MAX_LANES 64u  /* per track; slices beyond are left out and counted */
#define NPK_TIMELINE_LANE_KEEP 16u  /* slices a lane remembers exactly */

typedef struct tl_lane {
    unsigned tid;
    unsigned n;                      /* slices kept */
    uint64_t floor;                  /* every slice no longer kept ends at or before this */
    uint64_t start[NPK_TIMELINE_LANE_KEEP], end[NPK_TIMELINE_LANE_KEEP];
} tl_lane;

typedef struct tl_track {
    const char *name;
    unsigned n_lanes;
    tl_lane *lanes;
} tl_track;

struct npk_timeline {
    FILE *f;
    char path[512];
    uint64_t events;
    uint64_t dropped;            /* slices with no lane they nest in (more than MAX_LANES) */
    int truncated;
    int io_error;
    unsigned next_tid;           /* the tid of the next extra lane */
    size_t n_tracks;
    tl_track *tracks;
};

npk_status npk_obs_init(npk_obs *o, size_t n_mnemonics, size_t n_units, size_t n_extras)
{
    memset(o, 0, sizeof *o);
    o->count = calloc(n_mnemonics ? n_mnemonics : 1, sizeof *o->count);
    o->busy = calloc(n_units ? n_units : 1, sizeof *o->busy);
    o->extra = calloc(n_extras ? n_extras : 1, sizeof *o->extra);
    if (!o->count || !o->busy || !o->extra) {
        npk_obs_free(o);
        return NPK_ERR_NOMEM;
    }
    return NPK_OK;
}

void npk_obs_free(npk_obs *o)
{
    free(o->count);
    free(o->busy);
    free(o->extra);
    o->count = o->busy = o->extra = NULL;
    npk_commit_sink_free(o->commit);
    o->commit = NULL;
}

void npk_obs_clear_counts(npk_obs *o, size_t n_mnemonics, size_t n_units, size_t n_extras)
{
    o->insns = 0;
    o->cycles = 0;
    memset(o->count, 0, (n_mnemonics ? n_mnemonics : 1) * sizeof *o->count);
    memset(o->busy, 0, (n_units ? n_units : 1) * sizeof *o->busy);
    memset(o->extra, 0, (n_extras ? n_extras : 1) * sizeof *o->extra);
}

void npk_obs_update_active(npk_obs *o)
{
    o->active = o->stats || o->trace || o->timeline || o->commit || o->dbg;
}

void npk_obs_retire(npk_machine *m, const npk_event *ev)
{
    npk_obs *o = &m->obs;
    const npk_target *t = m->target;
    if (ev->mnemonic < t->n_mnemonics && ev->unit < t->n_units) {
        npk_obs_retire_stats(o, ev->mnemonic, ev->unit, ev->start, ev->end);
    } else {
        o->insns++;
        if (ev->end > o->cycles)
            o->cycles = ev->end;
        if (ev->mnemonic < t->n_mnemonics)
            o->count[ev->mnemonic]++;
        if (ev->unit < t->n_units)
            o->busy[ev->unit] += ev->end - ev->start;
    }
    if (o->trace) {
        char text[160];
        if (t->disasm(m, m->state, ev->word, ev->pc, text, sizeof text) != NPK_OK)
            snprintf(text, sizeof text, "?");
        fprintf(o->trace, "%10" PRIu64 "  %08" PRIx64 ":  ", ev->start, ev->pc);
        for (unsigned i = t->insn_bytes; i-- > 0;)
            fprintf(o->trace, "%02x", ev->word[i]);
        fprintf(o->trace, "  %s\n", text);
    }
    if (o->timeline && !t->tracks) {
        const char *name = ev->mnemonic < t->n_mnemonics ? t->mnemonics[ev->mnemonic] : "?";
        npk_timeline_event(o->timeline, ev->unit, name, ev->start, ev->end - ev->start);
    }
}

void npk_obs_span(npk_machine *m, unsigned unit, const char *name, uint64_t start, uint64_t end)
{
    npk_obs *o = &m->obs;
    if (unit < m->target->n_units)
        o->busy[unit] += end - start;
    if (end > o->cycles)
        o->cycles = end;
    if (o->timeline && !m->target->tracks)
        npk_timeline_event(o->timeline, unit, name, start, end - start);
}

void npk_obs_slice(npk_machine *m, unsigned track, const char *name, uint64_t start,
                   uint64_t end)
{
    npk_obs *o = &m->obs;
    if (o->timeline)
        npk_timeline_event(o->timeline, track, name, start, end - start);
}

/* JSON string body with the escapes the trace-event format needs. */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* The metadata of one track: its name and where it sorts. */
static void track_meta(FILE *f, unsigned tid, const char *name, unsigned lane, size_t sort)
{
    fprintf(f, ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_name\",\"args\":"
               "{\"name\":",
            tid);
    if (lane) {
        char buf[160];
        snprintf(buf, sizeof buf, "%s #%u", name, lane + 1);
        json_str(f, buf);
    } else {
        json_str(f, name);
    }
    fprintf(f, "}},\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_sort_index\","
               "\"args\":{\"sort_index\":%zu}}",
            tid, sort * NPK_TIMELINE_MAX_LANES + lane);
}

npk_timeline *npk_timeline_create(FILE *f, const char *path, const char *const *tracks,
                                  size_t n_tracks, const char *target)
{
    npk_timeline *t = calloc(1, sizeof *t);
    tl_track *tr = calloc(n_tracks ? n_tracks : 1, sizeof *tr);
    if (!t || !tr) {
        free(t);
        free(tr);
        return NULL;
    }
    t->f = f;
    snprintf(t->path, sizeof t->path, "%s", path);
    t->tracks = tr;
    t->n_tracks = n_tracks;
    t->next_tid = (unsigned)n_tracks + 1;
    /* One process (the machine), one thread (track) per unit; ts is in cycles, shown as us. */
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"npukit "
               NPK_VERSION_STRING "\",\"time_unit\":\"1 us = 1 cycle\"},\n\"traceEvents\":[\n");
    fprintf(f, "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":");
    json_str(f, target);
    fprintf(f, "}}");
    for (size_t i = 0; i < n_tracks; i++) {
        tr[i].name = tracks[i];
        track_meta(f, (unsigned)i + 1, tracks[i], 0, i);
    }
    return t;
}

/* The tid of the lane of track `track` where [start, end) nests, adding a lane when none
 * fits; 0 when the track has all its lanes and none fits (or memory ran out). */
static unsigned lane_for(npk_timeline *t, unsigned track, uint64_t start, uint64_t end)
{
    tl_track *tr = &t->tracks[track];
    for (unsigned l = 0;; l++) {
        if (l == tr->n_lanes) {
            if (l == NPK_TIMELINE_MAX_LANES)
                return 0;
            if (l % 4 == 0) {
                tl_lane *nl = realloc(tr->lanes, (l + 4) * sizeof *nl);
                if (!nl)
                    return 0;
                tr->lanes = nl;
            }
            tl_lane *ln = &tr->lanes[l];
            memset(ln, 0, sizeof *ln);
            ln->tid = l ? t->next_tid++ : track + 1;
            if (l)
                track_meta(t->f, ln->tid, tr->name, l, track);
            tr->n_lanes++;
        }
        tl_lane *ln = &tr->lanes[l];
        if (start < ln->floor)
            continue;
        unsigned i;
        for (i = 0; i < ln->n; i++) {
            uint64_t s = ln->start[i], e = ln->end[i];
            int disjoint = end <= s || e <= start, inside = s <= start && end <= e,
                encloses = start < s && e <= end;
            if (!disjoint && !inside && !encloses)
                break;
        }
        if (i < ln->n)
            continue;
        if (ln->n == NPK_TIMELINE_LANE_KEEP) { /* forget the slice that ends first */
            unsigned first = 0;
            for (i = 1; i < ln->n; i++)
                if (ln->end[i] < ln->end[first])
                    first = i;
            if (ln->end[first] > ln->floor)
                ln->floor = ln->end[first];
            ln->n--;
            ln->start[first] = ln->start[ln->n], ln->end[first] = ln->end[ln->n];
        }
        ln->start[ln->n] = start, ln->end[ln->n] = end;
        ln->n++;
        return ln->tid;
    }
}

void npk_timeline_event(npk_timeline *t, unsigned track, const char *name, uint64_t start,
                        uint64_t dur)
{
    if (t->events >= NPK_TIMELINE_MAX_EVENTS) {
        t->truncated = 1;
        return;
    }
    if (!dur)
        dur = 1; /* a viewer shows no zero-length slice */
    unsigned tid = track < t->n_tracks ? lane_for(t, track, start, start + dur) : 0;
    if (!tid) {
        t->dropped++;
        return;
    }
    t->events++;
    fprintf(t->f, ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%" PRIu64 ",\"dur\":%" PRIu64
                  ",\"name\":",
            tid, start, dur);
    json_str(t->f, name);
    fputc('}', t->f);
}

int npk_timeline_finish(npk_timeline *t, char *path, size_t n)
{
    if (n)
        path[0] = '\0';
    if (!t)
        return 0;
    snprintf(path, n, "%s", t->path);
    if (t->truncated)
        fprintf(t->f, ",\n{\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":0,\"ts\":0,\"name\":"
                      "\"timeline truncated after %" PRIu64 " events\"}", t->events);
    if (t->dropped)
        fprintf(t->f, ",\n{\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":0,\"ts\":0,\"name\":"
                      "\"%" PRIu64 " slices left out: more than %u overlapping on one track\"}",
                t->dropped, NPK_TIMELINE_MAX_LANES);
    fprintf(t->f, "\n]}\n");
    /* an earlier failed write may have left no errno behind: EIO stands in */
    int bad = ferror(t->f) != 0, e = 0;
    errno = 0;
    if (fflush(t->f) != 0) {
        bad = 1;
        e = errno;
    }
    errno = 0;
    if (t->f != stdout && fclose(t->f) != 0) { /* standard output is closed by its owner */
        bad = 1;
        e = e ? e : errno;
    }
    for (size_t i = 0; i < t->n_tracks; i++)
        free(t->tracks[i].lanes);
    free(t->tracks);
    free(t);
    return bad ? (e ? e : EIO) : 0;
}

npk_status npk_obs_flush(npk_machine *m, FILE *f, const char *what)
{
    int bad = ferror(f) != 0, e = 0;
    errno = 0;
    if (fflush(f) != 0) {
        bad = 1;
        e = errno;
    }
    return bad ? npk_fail(m, NPK_ERR_IO, "write error (%s): %s", what, strerror(e ? e : EIO))
               : NPK_OK;
}
