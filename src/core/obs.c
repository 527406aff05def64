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

struct npk_timeline {
    FILE *f;
    char path[512];
    uint64_t events;
    int truncated;
    int io_error;
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
    o->active = o->stats || o->trace || o->timeline;
}

void npk_obs_retire(npk_machine *m, const npk_event *ev)
{
    npk_obs *o = &m->obs;
    const npk_target *t = m->target;
    o->insns++;
    if (ev->end > o->cycles)
        o->cycles = ev->end;
    if (ev->mnemonic < t->n_mnemonics)
        o->count[ev->mnemonic]++;
    if (ev->unit < t->n_units)
        o->busy[ev->unit] += ev->end - ev->start;
    if (o->trace) {
        char text[160];
        if (t->disasm(m, m->state, ev->word, ev->pc, text, sizeof text) != NPK_OK)
            snprintf(text, sizeof text, "?");
        fprintf(o->trace, "%10" PRIu64 "  %08" PRIx64 ":  ", ev->start, ev->pc);
        for (unsigned i = t->insn_bytes; i-- > 0;)
            fprintf(o->trace, "%02x", ev->word[i]);
        fprintf(o->trace, "  %s\n", text);
    }
    if (o->timeline) {
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
    if (o->timeline)
        npk_timeline_event(o->timeline, unit, name, start, end - start);
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

npk_timeline *npk_timeline_create(FILE *f, const char *path, const char *const *units,
                                  size_t n_units, const char *target)
{
    npk_timeline *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->f = f;
    snprintf(t->path, sizeof t->path, "%s", path);
    /* One process (the machine), one thread (track) per unit; ts is in cycles, shown as us. */
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"npukit "
               NPK_VERSION_STRING "\",\"time_unit\":\"1 us = 1 cycle\"},\n\"traceEvents\":[\n");
    fprintf(f, "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":");
    json_str(f, target);
    fprintf(f, "}}");
    for (size_t i = 0; i < n_units; i++) {
        fprintf(f, ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%zu,\"name\":\"thread_name\",\"args\":"
                   "{\"name\":",
                i + 1);
        json_str(f, units[i]);
        fprintf(f, "}},\n{\"ph\":\"M\",\"pid\":1,\"tid\":%zu,\"name\":\"thread_sort_index\","
                   "\"args\":{\"sort_index\":%zu}}",
                i + 1, i);
    }
    return t;
}

void npk_timeline_event(npk_timeline *t, unsigned unit, const char *name, uint64_t start,
                        uint64_t dur)
{
    if (t->events >= NPK_TIMELINE_MAX_EVENTS) {
        t->truncated = 1;
        return;
    }
    t->events++;
    fprintf(t->f, ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%" PRIu64 ",\"dur\":%" PRIu64
                  ",\"name\":",
            unit + 1, start, dur ? dur : 1);
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
    fprintf(t->f, "\n]}\n");
    /* an earlier failed write may have left no errno behind: EIO stands in */
    int bad = ferror(t->f) != 0, e = 0;
    errno = 0;
    if (fflush(t->f) != 0) {
        bad = 1;
        e = errno;
    }
    errno = 0;
    if (fclose(t->f) != 0) {
        bad = 1;
        e = e ? e : errno;
    }
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
