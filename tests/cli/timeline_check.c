/* timeline_check [-l] FILE [TRACK...]: check a `--timeline` file the way a trace viewer reads
 * it. Exit 0 when FILE is valid JSON with a traceEvents array, every complete ("X") event has
 * pid, tid, ts, dur and name, every track (tid) with slices is named by one thread_name event,
 * the slices of each track nest properly (any two are disjoint or one lies inside the other:
 * Perfetto refuses partial overlaps; of two with one start the longer comes first in the
 * file, since viewers take the first as the parent), and every TRACK named on the command
 * line has at least one slice. -l lists "TRACK SLICES TIME" per named track (TIME: the
 * slices' durations summed). Exit 1 with a message naming the problem otherwise, 2 on bad
 * usage or an unreadable file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_check.h"

typedef struct slice {
    uint64_t tid, ts, end;
    size_t at; /* byte offset of the event, for messages */
} slice;

typedef struct track {
    uint64_t tid;
    char name[128];
    size_t slices;
    uint64_t time; /* summed durations */
} track;

typedef struct parser {
    const char *s;
    size_t n, i;
    const char *file;
    slice *sl;
    size_t n_sl, cap_sl;
    track *tr;
    size_t n_tr, cap_tr;
    int bad;
} parser;

static void fail(parser *p, size_t at, const char *what, const char *detail)
{
    fprintf(stderr, "%s: byte %zu: %s%s%s\n", p->file, at, what, detail ? ": " : "",
            detail ? detail : "");
    p->bad = 1;
}

static void ws(parser *p)
{
    while (p->i < p->n && strchr(" \t\r\n", p->s[p->i]) && p->s[p->i])
        p->i++;
}

/* The text is valid JSON (checked first), so the skipping below needs no error paths. */
static void skip_string(parser *p)
{
    p->i++;
    while (p->s[p->i] != '"')
        p->i += p->s[p->i] == '\\' ? 2 : 1;
    p->i++;
}

static void skip_value(parser *p)
{
    ws(p);
    char c = p->s[p->i];
    if (c == '"') {
        skip_string(p);
    } else if (c == '{' || c == '[') {
        int depth = 0;
        do {
            c = p->s[p->i];
            if (c == '"') {
                skip_string(p);
                continue;
            }
            depth += c == '{' || c == '[';
            depth -= c == '}' || c == ']';
            p->i++;
        } while (depth);
    } else {
        while (p->i < p->n && !strchr(",]} \t\r\n", p->s[p->i]))
            p->i++;
    }
}

/* A string value into out (escapes kept as written; the names npukit writes have none). */
static void get_string(parser *p, char *out, size_t n)
{
    ws(p);
    size_t k = 0;
    if (p->s[p->i] != '"') {
        skip_value(p);
        out[0] = '\0';
        return;
    }
    size_t start = ++p->i;
    p->i--;
    skip_string(p);
    size_t len = p->i - 1 - start;
    for (; k < len && k + 1 < n; k++)
        out[k] = p->s[start + k];
    out[k] = '\0';
}

/* A non-negative integer value; -1 if the value is anything else. */
static int get_uint(parser *p, uint64_t *v)
{
    ws(p);
    size_t start = p->i;
    uint64_t x = 0;
    int digits = 0;
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
        x = x * 10 + (uint64_t)(p->s[p->i++] - '0');
        digits++;
    }
    if (!digits || digits > 18 || (p->i < p->n && strchr(".eE", p->s[p->i]))) {
        p->i = start;
        skip_value(p);
        return -1;
    }
    *v = x;
    return 0;
}

static track *track_of(parser *p, uint64_t tid)
{
    for (size_t k = 0; k < p->n_tr; k++)
        if (p->tr[k].tid == tid)
            return &p->tr[k];
    if (p->n_tr == p->cap_tr) {
        size_t cap = p->cap_tr ? 2 * p->cap_tr : 64;
        track *t = realloc(p->tr, cap * sizeof *t);
        if (!t)
            return NULL;
        p->tr = t, p->cap_tr = cap;
    }
    track *t = &p->tr[p->n_tr++];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    return t;
}

/* One object of traceEvents. */
static void event(parser *p)
{
    size_t at = p->i;
    char ph[8] = "", name[128] = "", arg_name[128] = "";
    uint64_t pid = 0, tid = 0, ts = 0, dur = 0;
    int has_pid = 0, has_tid = 0, has_ts = 0, has_dur = 0, has_name = 0, bad_num = 0;
    ws(p);
    if (p->s[p->i] != '{') {
        fail(p, at, "a traceEvents entry is not an object", NULL);
        skip_value(p);
        return;
    }
    p->i++;
    for (;;) {
        ws(p);
        if (p->s[p->i] == '}') {
            p->i++;
            break;
        }
        if (p->s[p->i] == ',') {
            p->i++;
            continue;
        }
        char key[32];
        get_string(p, key, sizeof key);
        ws(p);
        p->i++; /* ':' */
        if (!strcmp(key, "ph")) {
            get_string(p, ph, sizeof ph);
        } else if (!strcmp(key, "name")) {
            get_string(p, name, sizeof name);
            has_name = 1;
        } else if (!strcmp(key, "pid")) {
            bad_num |= get_uint(p, &pid) != 0, has_pid = 1;
        } else if (!strcmp(key, "tid")) {
            bad_num |= get_uint(p, &tid) != 0, has_tid = 1;
        } else if (!strcmp(key, "ts")) {
            bad_num |= get_uint(p, &ts) != 0, has_ts = 1;
        } else if (!strcmp(key, "dur")) {
            bad_num |= get_uint(p, &dur) != 0, has_dur = 1;
        } else if (!strcmp(key, "args")) {
            ws(p);
            if (p->s[p->i] != '{') {
                skip_value(p);
                continue;
            }
            p->i++;
            for (;;) { /* args: only "name" matters (thread_name) */
                ws(p);
                if (p->s[p->i] == '}') {
                    p->i++;
                    break;
                }
                if (p->s[p->i] == ',') {
                    p->i++;
                    continue;
                }
                char akey[32];
                get_string(p, akey, sizeof akey);
                ws(p);
                p->i++;
                if (!strcmp(akey, "name"))
                    get_string(p, arg_name, sizeof arg_name);
                else
                    skip_value(p);
            }
        } else {
            skip_value(p);
        }
    }
    (void)pid;
    if (bad_num) {
        fail(p, at, "pid, tid, ts or dur is not a non-negative integer", NULL);
        return;
    }
    if (!strcmp(ph, "M") && !strcmp(name, "thread_name")) {
        track *t = has_tid ? track_of(p, tid) : NULL;
        if (!t) {
            fail(p, at, "thread_name without a tid", NULL);
        } else if (t->name[0]) {
            fail(p, at, "a second thread_name for one track", t->name);
        } else if (!arg_name[0]) {
            fail(p, at, "thread_name without args.name", NULL);
        } else {
            for (size_t k = 0; k < p->n_tr; k++)
                if (!strcmp(p->tr[k].name, arg_name))
                    fail(p, at, "two tracks share the name", arg_name);
            snprintf(t->name, sizeof t->name, "%s", arg_name);
        }
    } else if (!strcmp(ph, "X")) {
        if (!has_pid || !has_tid || !has_ts || !has_dur || !has_name) {
            fail(p, at, "a complete event lacks pid, tid, ts, dur or name", NULL);
            return;
        }
        if (p->n_sl == p->cap_sl) {
            size_t cap = p->cap_sl ? 2 * p->cap_sl : 4096;
            slice *s = realloc(p->sl, cap * sizeof *s);
            if (!s) {
                fail(p, at, "out of memory", NULL);
                return;
            }
            p->sl = s, p->cap_sl = cap;
        }
        p->sl[p->n_sl++] = (slice){tid, ts, ts + dur, at};
    } else if (!ph[0]) {
        fail(p, at, "an event without ph", NULL);
    }
}

static int by_track_time(const void *a, const void *b)
{
    const slice *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1; /* the longer one first: it is the parent */
    return x->at < y->at ? -1 : x->at > y->at;
}

/* Every pair of slices of one track disjoint or nested, checked with a stack of open slices. */
static void check_nesting(parser *p)
{
    if (p->n_sl)
        qsort(p->sl, p->n_sl, sizeof *p->sl, by_track_time);
    slice *stack = malloc((p->n_sl ? p->n_sl : 1) * sizeof *stack);
    if (!stack) {
        fail(p, 0, "out of memory", NULL);
        return;
    }
    size_t depth = 0, reported = 0;
    for (size_t k = 0; k < p->n_sl; k++) {
        const slice *s = &p->sl[k];
        if (k == 0 || s->tid != p->sl[k - 1].tid) {
            depth = 0;
            track *t = track_of(p, s->tid);
            if (t && !t->name[0])
                fail(p, s->at, "a slice on a track without a thread_name", NULL);
        }
        track *t = track_of(p, s->tid);
        if (t)
            t->slices++, t->time += s->end - s->ts;
        if (k && s->tid == p->sl[k - 1].tid && s->ts == p->sl[k - 1].ts &&
            s->end < p->sl[k - 1].end && s->at < p->sl[k - 1].at && reported++ < 5) {
            /* viewers take the first of two slices with one start as the parent */
            char what[512];
            snprintf(what, sizeof what, "track '%s': slice [%llu, %llu) comes before the longer "
                     "[%llu, %llu) (byte %zu) with the same start", t ? t->name : "?",
                     (unsigned long long)s->ts, (unsigned long long)s->end,
                     (unsigned long long)p->sl[k - 1].ts, (unsigned long long)p->sl[k - 1].end,
                     p->sl[k - 1].at);
            fail(p, s->at, what, NULL);
        }
        while (depth && stack[depth - 1].end <= s->ts)
            depth--;
        if (depth && s->end > stack[depth - 1].end) {
            if (reported++ < 5) {
                char what[512];
                snprintf(what, sizeof what,
                         "track '%s': slice [%llu, %llu) overlaps [%llu, %llu) (byte %zu) "
                         "without nesting", t ? t->name : "?", (unsigned long long)s->ts,
                         (unsigned long long)s->end, (unsigned long long)stack[depth - 1].ts,
                         (unsigned long long)stack[depth - 1].end, stack[depth - 1].at);
                fail(p, s->at, what, NULL);
            }
            p->bad = 1;
            continue;
        }
        stack[depth++] = *s;
    }
    if (reported > 5)
        fprintf(stderr, "%s: %zu overlapping slices in all\n", p->file, reported);
    free(stack);
}

static char *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap)
            break;
        char *nb = realloc(buf, 2 * cap + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb, cap *= 2;
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    *n = len;
    return buf;
}

int main(int argc, char **argv)
{
    int list = 0, a = 1;
    if (a < argc && !strcmp(argv[a], "-l"))
        list = 1, a++;
    if (a >= argc) {
        fprintf(stderr, "usage: timeline_check [-l] FILE [TRACK...]\n");
        return 2;
    }
    parser p = {.file = argv[a]};
    char *buf = read_file(argv[a], &p.n);
    if (!buf) {
        fprintf(stderr, "%s: cannot read\n", argv[a]);
        return 2;
    }
    p.s = buf;
    size_t bad = npk_json_check(buf, p.n);
    if (bad) {
        fprintf(stderr, "%s: byte %zu: invalid JSON\n", argv[a], bad - 1);
        free(buf);
        return 1;
    }
    /* the top-level object's traceEvents array */
    ws(&p);
    int found = 0;
    if (p.s[p.i] == '{') {
        p.i++;
        for (;;) {
            ws(&p);
            if (p.s[p.i] == '}')
                break;
            if (p.s[p.i] == ',') {
                p.i++;
                continue;
            }
            char key[32];
            get_string(&p, key, sizeof key);
            ws(&p);
            p.i++;
            ws(&p);
            if (strcmp(key, "traceEvents") || p.s[p.i] != '[') {
                skip_value(&p);
                continue;
            }
            found = 1;
            p.i++;
            for (;;) {
                ws(&p);
                if (p.s[p.i] == ']') {
                    p.i++;
                    break;
                }
                if (p.s[p.i] == ',') {
                    p.i++;
                    continue;
                }
                event(&p);
            }
        }
    }
    if (!found)
        fail(&p, 0, "no traceEvents array in a top-level object", NULL);
    check_nesting(&p);
    for (int k = a + 1; k < argc; k++) {
        size_t n = 0;
        int named = 0;
        for (size_t t = 0; t < p.n_tr; t++)
            if (!strcmp(p.tr[t].name, argv[k]))
                named = 1, n = p.tr[t].slices;
        if (!named)
            fail(&p, 0, "no track named", argv[k]);
        else if (!n)
            fail(&p, 0, "no slice on track", argv[k]);
    }
    if (list)
        for (size_t t = 0; t < p.n_tr; t++)
            if (p.tr[t].name[0])
                printf("%s %zu %llu\n", p.tr[t].name, p.tr[t].slices,
                       (unsigned long long)p.tr[t].time);
    free(p.sl);
    free(p.tr);
    free(buf);
    return p.bad ? 1 : 0;
}
