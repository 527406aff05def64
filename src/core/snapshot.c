/* Snapshots of a whole machine (docs/snapshot.md): header, tagged length-prefixed sections,
 * CRC-32 trailer. Restoring validates everything (framing, checksum, version, target,
 * configuration, then every section through a dry run of the target's hook) before the
 * second pass writes anything. */
#define _POSIX_C_SOURCE 200809L
#include "core/snapshot.h"
#include "core/file.h"
#include "core/machine.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t magic[8] = {'N', 'P', 'K', 'S', 'N', 'A', 'P', 0};
enum { HEADER_BYTES = 16, SECTION_HEAD = 12 };

/* ---- CRC-32 ------------------------------------------------------------------------------ */

uint32_t npk_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
    /* half-byte table: small enough to write out, fast enough for RAM images */
    static const uint32_t t[16] = {
        0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu, 0x76dc4190u, 0x6b6b51f4u,
        0x4db26158u, 0x5005713cu, 0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
        0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu};
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        crc = (crc >> 4) ^ t[crc & 15];
        crc = (crc >> 4) ^ t[crc & 15];
    }
    return ~crc;
}

/* ---- writer ------------------------------------------------------------------------------ */

static void put(npk_snap_writer *w, const void *p, size_t n)
{
    if (w->nomem || n == 0)
        return;
    if (w->cap - w->len < n) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap - w->len < n) {
            if (cap > SIZE_MAX / 2) {
                w->nomem = 1;
                return;
            }
            cap *= 2;
        }
        uint8_t *b = realloc(w->buf, cap);
        if (!b) {
            w->nomem = 1;
            return;
        }
        w->buf = b;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, p, n);
    w->len += n;
}

void npk_snap_u8(npk_snap_writer *w, uint8_t v)
{
    put(w, &v, 1);
}

void npk_snap_u32(npk_snap_writer *w, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(w, b, 4);
}

void npk_snap_u64(npk_snap_writer *w, uint64_t v)
{
    npk_snap_u32(w, (uint32_t)v);
    npk_snap_u32(w, (uint32_t)(v >> 32));
}

void npk_snap_bytes(npk_snap_writer *w, const void *p, size_t n)
{
    put(w, p, n);
}

static void put_str(npk_snap_writer *w, const char *s)
{
    size_t n = strlen(s);
    npk_snap_u32(w, (uint32_t)n);
    put(w, s, n);
}

void npk_snap_begin(npk_snap_writer *w, const char tag[4])
{
    put(w, tag, 4);
    w->section_start = w->len;
    npk_snap_u64(w, 0); /* patched by npk_snap_end */
}

void npk_snap_end(npk_snap_writer *w)
{
    if (w->nomem || !w->section_start)
        return;
    uint64_t n = w->len - w->section_start - 8;
    for (int i = 0; i < 8; i++)
        w->buf[w->section_start + (size_t)i] = (uint8_t)(n >> (8 * i));
    w->section_start = 0;
}

/* All n bytes zero: the first is, and each equals the next (memcmp runs at the C library's
 * speed; a byte loop made saving a large, mostly empty RAM slow). */
static int block_zero(const uint8_t *p, uint64_t n)
{
    return n == 0 || (p[0] == 0 && memcmp(p, p + 1, (size_t)n - 1) == 0);
}

void npk_snap_mem(npk_snap_writer *w, const char *name, const uint8_t *data, uint64_t size)
{
    npk_snap_begin(w, "MEM ");
    put_str(w, name);
    npk_snap_u64(w, size);
    uint64_t off = 0;
    while (off < size) {
        uint64_t n = size - off < NPK_SNAPSHOT_BLOCK ? size - off : NPK_SNAPSHOT_BLOCK;
        if (block_zero(data + off, n)) {
            off += n;
            continue;
        }
        uint64_t end = off + n; /* extend the run over following non-zero blocks */
        while (end < size) {
            uint64_t k = size - end < NPK_SNAPSHOT_BLOCK ? size - end : NPK_SNAPSHOT_BLOCK;
            if (block_zero(data + end, k))
                break;
            end += k;
        }
        npk_snap_u64(w, off);
        npk_snap_u64(w, end - off);
        put(w, data + off, (size_t)(end - off));
        off = end;
    }
    npk_snap_end(w);
}

/* ---- reader ------------------------------------------------------------------------------ */

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static const uint8_t *take(npk_snap_cursor *c, uint64_t n)
{
    if (c->bad || c->left < n) {
        c->bad = 1;
        return NULL;
    }
    const uint8_t *p = c->p;
    c->p += n;
    c->left -= n;
    return p;
}

uint8_t npk_snap_get_u8(npk_snap_cursor *c)
{
    const uint8_t *p = take(c, 1);
    return p ? p[0] : 0;
}

uint32_t npk_snap_get_u32(npk_snap_cursor *c)
{
    const uint8_t *p = take(c, 4);
    return p ? (uint32_t)le(p, 4) : 0;
}

uint64_t npk_snap_get_u64(npk_snap_cursor *c)
{
    const uint8_t *p = take(c, 8);
    return p ? le(p, 8) : 0;
}

void npk_snap_get_bytes(npk_snap_cursor *c, void *out, size_t n)
{
    const uint8_t *p = take(c, n);
    if (p)
        memcpy(out, p, n);
    else
        memset(out, 0, n);
}

npk_status npk_snap_bad(npk_snap_reader *r, const char tag[4], const char *fmt, ...)
{
    char why[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return npk_fail(r->m, NPK_ERR_FORMAT, "%.300s: section '%.4s': %s", r->name, tag, why);
}

npk_status npk_snap_section_get(npk_snap_reader *r, const char tag[4], npk_snap_cursor *c)
{
    for (size_t i = 0; i < r->n_sec; i++) {
        npk_snap_section *s = &r->sec[i];
        if (!s->used && memcmp(s->tag, tag, 4) == 0) {
            s->used = 1;
            *c = (npk_snap_cursor){s->data, s->len, 0};
            return NPK_OK;
        }
    }
    return npk_fail(r->m, NPK_ERR_FORMAT, "%.300s: no section '%.4s' (a %s snapshot has one)",
                    r->name, tag, r->m->target->name);
}

npk_status npk_snap_section_done(npk_snap_reader *r, const char tag[4],
                                 const npk_snap_cursor *c)
{
    if (c->bad)
        return npk_snap_bad(r, tag, "shorter than its fields");
    if (c->left)
        return npk_snap_bad(r, tag, "%llu bytes longer than its fields",
                            (unsigned long long)c->left);
    return NPK_OK;
}

static int get_str(npk_snap_cursor *c, const char **s, uint32_t *n)
{
    *n = npk_snap_get_u32(c);
    *s = (const char *)take(c, *n);
    return *s != NULL;
}

/* The MEM section of `name` (sections of other memories stay unused for their own call). */
static npk_status mem_section(npk_snap_reader *r, const char *name, npk_snap_cursor *c)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < r->n_sec; i++) {
        npk_snap_section *s = &r->sec[i];
        if (s->used || memcmp(s->tag, "MEM ", 4) != 0)
            continue;
        npk_snap_cursor k = {s->data, s->len, 0};
        const char *sn;
        uint32_t sl;
        if (!get_str(&k, &sn, &sl))
            return npk_snap_bad(r, "MEM ", "shorter than its memory's name");
        if (sl == len && memcmp(sn, name, len) == 0) {
            s->used = 1;
            *c = k;
            return NPK_OK;
        }
    }
    return npk_fail(r->m, NPK_ERR_FORMAT, "%.300s: no section 'MEM ' for memory '%s'", r->name,
                    name);
}

static void zero_range(uint8_t *data, uint64_t from, uint64_t to,
                       void (*changed)(void *, uint64_t, uint64_t), void *ctx)
{
    for (uint64_t off = from; off < to; off += NPK_SNAPSHOT_BLOCK) {
        uint64_t n = to - off < NPK_SNAPSHOT_BLOCK ? to - off : NPK_SNAPSHOT_BLOCK;
        if (!block_zero(data + off, n)) {
            memset(data + off, 0, (size_t)n);
            if (changed)
                changed(ctx, off, n);
        }
    }
}

npk_status npk_snap_mem_restore(npk_snap_reader *r, const char *name, uint8_t *data,
                                uint64_t size,
                                void (*changed)(void *ctx, uint64_t off, uint64_t len),
                                void *ctx)
{
    npk_snap_cursor c = {NULL, 0, 1};
    npk_status st = mem_section(r, name, &c);
    if (st != NPK_OK)
        return st;
    uint64_t got = npk_snap_get_u64(&c);
    if (c.bad)
        return npk_snap_bad(r, "MEM ", "memory '%s': no size", name);
    if (got != size)
        return npk_snap_bad(r, "MEM ", "memory '%s' is %llu bytes, this machine's is %llu",
                            name, (unsigned long long)got, (unsigned long long)size);
    uint64_t next = 0; /* runs must be in order and not overlap */
    while (c.left) {
        uint64_t off = npk_snap_get_u64(&c), n = npk_snap_get_u64(&c);
        const uint8_t *p = c.bad ? NULL : take(&c, n);
        if (!p)
            return npk_snap_bad(r, "MEM ", "memory '%s': a run is cut short", name);
        if (off < next || off > size || n > size - off || n == 0)
            return npk_snap_bad(r, "MEM ", "memory '%s': run of %llu bytes at 0x%llx is out "
                                "of order or outside its %llu bytes", name,
                                (unsigned long long)n, (unsigned long long)off,
                                (unsigned long long)size);
        if (r->apply) {
            zero_range(data, next, off, changed, ctx);
            memcpy(data + off, p, (size_t)n);
            if (changed)
                changed(ctx, off, n);
        }
        next = off + n;
    }
    if (r->apply)
        zero_range(data, next, size, changed, ctx);
    return NPK_OK;
}

/* ---- the core's own sections --------------------------------------------------------------- */

static void save_stats(npk_machine *m, npk_snap_writer *w)
{
    const npk_target *t = m->target;
    npk_snap_begin(w, "STAT");
    npk_snap_u64(w, m->obs.insns);
    npk_snap_u64(w, m->obs.cycles);
    npk_snap_u32(w, (uint32_t)t->n_mnemonics);
    for (size_t i = 0; i < t->n_mnemonics; i++)
        npk_snap_u64(w, m->obs.count[i]);
    npk_snap_u32(w, (uint32_t)t->n_units);
    for (size_t i = 0; i < t->n_units; i++)
        npk_snap_u64(w, m->obs.busy[i]);
    npk_snap_u32(w, (uint32_t)t->n_extras);
    for (size_t i = 0; i < t->n_extras; i++)
        npk_snap_u64(w, m->obs.extra[i]);
    npk_snap_end(w);
}

static npk_status stats_array(npk_snap_reader *r, npk_snap_cursor *c, size_t want,
                              uint64_t *dst, const char *what)
{
    uint32_t n = npk_snap_get_u32(c);
    if (!c->bad && n != want)
        return npk_snap_bad(r, "STAT", "%u %s counters, %s has %zu", n, what,
                            r->m->target->name, want);
    for (size_t i = 0; i < want; i++) {
        uint64_t v = npk_snap_get_u64(c);
        if (r->apply)
            dst[i] = v;
    }
    return NPK_OK;
}

static npk_status restore_stats(npk_snap_reader *r)
{
    npk_machine *m = r->m;
    const npk_target *t = m->target;
    npk_snap_cursor c = {NULL, 0, 1};
    npk_status st = npk_snap_section_get(r, "STAT", &c);
    if (st != NPK_OK)
        return st;
    uint64_t insns = npk_snap_get_u64(&c), cycles = npk_snap_get_u64(&c);
    if (r->apply) {
        m->obs.insns = insns;
        m->obs.cycles = cycles;
    }
    if ((st = stats_array(r, &c, t->n_mnemonics, m->obs.count, "mnemonic")) != NPK_OK ||
        (st = stats_array(r, &c, t->n_units, m->obs.busy, "unit")) != NPK_OK ||
        (st = stats_array(r, &c, t->n_extras, m->obs.extra, "target")) != NPK_OK)
        return st;
    return npk_snap_section_done(r, "STAT", &c);
}

static void save_symbols(npk_machine *m, npk_snap_writer *w)
{
    npk_snap_begin(w, "SYMS");
    npk_snap_u64(w, m->n_syms);
    for (size_t i = 0; i < m->n_syms; i++) {
        const npk_symbol_entry *e = &m->syms[i];
        put_str(w, e->name);
        npk_snap_u64(w, e->value);
        npk_snap_u64(w, e->size);
        npk_snap_u8(w, (uint8_t)(e->local != 0));
    }
    npk_snap_end(w);
}

/* The symbol table a SYMS section describes, checked (dry run) or built aside in `tmp` (its
 * symbol fields only): the machine's own table is replaced by sym_commit once nothing else
 * can fail, and running out of memory here leaves it as it was. */
static npk_status restore_symbols(npk_snap_reader *r, npk_snap_cursor *c, npk_machine *tmp)
{
    npk_machine *m = r->m;
    uint64_t n = npk_snap_get_u64(c);
    if (c->bad || n > c->left / 21) /* name length, value, size, local: 21 bytes at least */
        return npk_snap_bad(r, "SYMS", "a count of %llu symbols does not fit the section",
                            (unsigned long long)n);
    npk_status st = NPK_OK;
    for (uint64_t i = 0; i < n && st == NPK_OK; i++) {
        const char *s;
        uint32_t len;
        int ok = get_str(c, &s, &len);
        uint64_t value = npk_snap_get_u64(c), size = npk_snap_get_u64(c);
        uint8_t local = npk_snap_get_u8(c);
        if (!ok || c->bad)
            st = npk_snap_bad(r, "SYMS", "symbol %llu is cut short", (unsigned long long)i);
        else if (memchr(s, 0, len) || local > 1)
            st = npk_snap_bad(r, "SYMS", "symbol %llu is malformed", (unsigned long long)i);
        else if (r->apply) {
            char *name = malloc((size_t)len + 1);
            if (!name)
                return npk_fail(m, NPK_ERR_NOMEM, "out of memory for symbols");
            memcpy(name, s, len);
            name[len] = '\0';
            st = npk_symbol_add_elf(tmp, name, value, size, local);
            free(name);
            if (st != NPK_OK)
                return npk_fail(m, st, "%s", tmp->error);
        }
    }
    return st == NPK_OK ? npk_snap_section_done(r, "SYMS", c) : st;
}

static void symbols_free(npk_machine *tmp)
{
    npk_symbols_clear(tmp);
    free(tmp->syms);
    npk_name_free(&tmp->globals);
}

/* Swap the table built in tmp into m (and the old one into tmp, for symbols_free). */
static void symbols_commit(npk_machine *m, npk_machine *tmp)
{
    npk_symbol_entry *syms = m->syms;
    size_t n = m->n_syms, cap = m->cap_syms;
    npk_name_index g = m->globals;
    m->syms = tmp->syms;
    m->n_syms = tmp->n_syms;
    m->cap_syms = tmp->cap_syms;
    m->globals = tmp->globals;
    tmp->syms = syms;
    tmp->n_syms = n;
    tmp->cap_syms = cap;
    tmp->globals = g;
}

/* ---- save -------------------------------------------------------------------------------- */

npk_status npk_snapshot_save(npk_machine *m, uint8_t **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    m->error[0] = '\0';
    const npk_target *t = m->target;
    if (!t->snap_save)
        return npk_fail(m, NPK_ERR_UNSUPPORTED, "%s: snapshots are not supported for this "
                        "target yet", t->name);
    npk_snap_writer w;
    memset(&w, 0, sizeof w);
    put(&w, magic, sizeof magic);
    npk_snap_u32(&w, NPK_SNAPSHOT_FORMAT);
    npk_snap_u32(&w, 0); /* flags, none yet */
    npk_snap_begin(&w, "INFO");
    put_str(&w, NPK_VERSION_STRING);
    put_str(&w, t->name);
    put_str(&w, m->config);
    npk_snap_u8(&w, (uint8_t)(m->loaded != 0));
    npk_snap_end(&w);
    save_stats(m, &w);
    save_symbols(m, &w);
    if (m->exited) {    /* the program's exit, reported again by every later run */
        npk_snap_begin(&w, "EXIT");
        npk_snap_u64(&w, (uint64_t)m->exit_stop.exit_code);
        npk_snap_u64(&w, m->exit_stop.pc);
        put_str(&w, m->exit_stop.message);
        npk_snap_end(&w);
    }
    npk_status st = t->snap_save(m, m->state, &w);
    if (st == NPK_OK && !w.nomem) {
        put(&w, "END ", 4);
        npk_snap_u64(&w, 4);
        npk_snap_u32(&w, npk_crc32(0, w.buf, w.len));
    }
    if (st == NPK_OK && w.nomem)
        st = npk_fail(m, NPK_ERR_NOMEM, "%s: out of memory for the snapshot", t->name);
    if (st != NPK_OK) {
        free(w.buf);
        return st;
    }
    *data = w.buf;
    *size = w.len;
    return NPK_OK;
}

npk_status npk_snapshot_save_file(npk_machine *m, const char *path)
{
    uint8_t *data;
    size_t n;
    npk_status st = npk_snapshot_save(m, &data, &n);
    if (st != NPK_OK)
        return st;
    int to_stdout = strcmp(path, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(path, "wb");
    if (!f) {
        int e = errno;
        free(data);
        return npk_fail(m, NPK_ERR_IO, "%s: cannot write snapshot: %s", path, strerror(e));
    }
    errno = 0;
    int bad = fwrite(data, 1, n, f) != n;
    int e = errno;
    if (to_stdout) {
        if (fflush(f) != 0 && !bad) {
            bad = 1;
            e = errno;
        }
    } else if (fclose(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    free(data);
    if (bad)
        return npk_fail(m, NPK_ERR_IO, "%s: write error: %s", path,
                        strerror(e ? e : EIO));
    return NPK_OK;
}

/* ---- restore ----------------------------------------------------------------------------- */

/* Framing: magic, version, sections, the END checksum. */
static npk_status parse(npk_machine *m, const char *name, const uint8_t *p, size_t n,
                        npk_snap_section **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (n < sizeof magic || memcmp(p, magic, sizeof magic) != 0)
        return npk_fail(m, NPK_ERR_FORMAT, "%s: not an npukit snapshot (no NPKSNAP magic)",
                        name);
    if (n < HEADER_BYTES)
        return npk_fail(m, NPK_ERR_FORMAT, "%s: truncated: the header is cut short", name);
    uint32_t version = (uint32_t)le(p + 8, 4), flags = (uint32_t)le(p + 12, 4);
    if (version != NPK_SNAPSHOT_FORMAT)
        return npk_fail(m, NPK_ERR_FORMAT, "%s: snapshot format version %u; npukit %s reads "
                        "version %u only", name, version, NPK_VERSION_STRING,
                        NPK_SNAPSHOT_FORMAT);
    if (flags)
        return npk_fail(m, NPK_ERR_FORMAT, "%s: unknown header flags 0x%x", name, flags);
    size_t count = 0, off = HEADER_BYTES, cap = 0;
    npk_snap_section *sec = NULL;
    for (;;) {
        if (n - off < SECTION_HEAD) {
            free(sec);
            return npk_fail(m, NPK_ERR_FORMAT, "%s: truncated at byte %zu: no END section "
                            "(the file is cut short)", name, off);
        }
        const uint8_t *h = p + off;
        uint64_t len = le(h + 4, 8);
        if (len > n - off - SECTION_HEAD) {
            free(sec);
            return npk_fail(m, NPK_ERR_FORMAT, "%s: truncated: section '%.4s' at byte %zu "
                            "says %llu bytes, %zu are left", name, (const char *)h, off,
                            (unsigned long long)len, n - off - SECTION_HEAD);
        }
        if (memcmp(h, "END ", 4) == 0) {
            uint32_t want = len == 4 ? (uint32_t)le(h + SECTION_HEAD, 4) : 0;
            size_t end = off + SECTION_HEAD + (size_t)len;
            npk_status st = NPK_OK;
            if (len != 4)
                st = npk_fail(m, NPK_ERR_FORMAT, "%s: END section of %llu bytes, not 4", name,
                              (unsigned long long)len);
            else if (end != n)
                st = npk_fail(m, NPK_ERR_FORMAT, "%s: %zu bytes after the END section", name,
                              n - end);
            else if (npk_crc32(0, p, off + SECTION_HEAD) != want)
                st = npk_fail(m, NPK_ERR_FORMAT, "%s: checksum mismatch: the snapshot is "
                              "corrupt", name);
            if (st != NPK_OK) {
                free(sec);
                return st;
            }
            break;
        }
        if (count == cap) {
            cap = cap ? 2 * cap : 16;
            npk_snap_section *s = realloc(sec, cap * sizeof *s);
            if (!s) {
                free(sec);
                return npk_fail(m, NPK_ERR_NOMEM, "%s: out of memory", name);
            }
            sec = s;
        }
        npk_snap_section *s = &sec[count++];
        memcpy(s->tag, h, 4);
        s->tag[4] = '\0';
        s->data = h + SECTION_HEAD;
        s->len = len;
        s->used = 0;
        off += SECTION_HEAD + (size_t)len;
    }
    *out = sec;
    *n_out = count;
    return NPK_OK;
}

static npk_status check_info(npk_snap_reader *r, int *loaded)
{
    npk_machine *m = r->m;
    npk_snap_cursor c = {NULL, 0, 1};
    if (r->n_sec == 0 || memcmp(r->sec[0].tag, "INFO", 4) != 0)
        return npk_fail(m, NPK_ERR_FORMAT, "%s: the first section is not INFO", r->name);
    npk_status st = npk_snap_section_get(r, "INFO", &c);
    if (st != NPK_OK)
        return st;
    const char *ver, *target, *config;
    uint32_t lv, lt, lc;
    int ok = get_str(&c, &ver, &lv) && get_str(&c, &target, &lt) && get_str(&c, &config, &lc);
    *loaded = npk_snap_get_u8(&c);
    if (!ok || (st = npk_snap_section_done(r, "INFO", &c)) != NPK_OK)
        return ok ? st : npk_snap_bad(r, "INFO", "shorter than its fields");
    if (lv != strlen(NPK_VERSION_STRING) || memcmp(ver, NPK_VERSION_STRING, lv) != 0)
        return npk_fail(m, NPK_ERR_FORMAT, "%s: made by npukit %.*s; this is npukit %s, which "
                        "restores only its own snapshots", r->name, (int)(lv > 40 ? 40 : lv),
                        ver, NPK_VERSION_STRING);
    if (lt != strlen(m->target->name) || memcmp(target, m->target->name, lt) != 0)
        return npk_fail(m, NPK_ERR_ARG, "%s: a snapshot of target %.*s, not of %s", r->name,
                        (int)(lt > 40 ? 40 : lt), target, m->target->name);
    if (lc != strlen(m->config) || memcmp(config, m->config, lc) != 0)
        return npk_fail(m, NPK_ERR_ARG, "%s: a snapshot of %s with configuration '%.*s'; this "
                        "machine's is '%s'", r->name, m->target->name,
                        (int)(lc > 400 ? 400 : lc), config, m->config);
    if (*loaded > 1)
        return npk_snap_bad(r, "INFO", "loaded flag %d is not 0 or 1", *loaded);
    return NPK_OK;
}

/* The EXIT section, when the program had ended: its exit status, pc and message. */
static npk_status restore_exit(npk_snap_reader *r, int *exited, npk_stop *stop)
{
    *exited = 0;
    memset(stop, 0, sizeof *stop);
    size_t i = 0;
    while (i < r->n_sec && memcmp(r->sec[i].tag, "EXIT", 4) != 0)
        i++;
    if (i == r->n_sec)
        return NPK_OK;
    npk_snap_cursor c = {NULL, 0, 1};
    npk_status st = npk_snap_section_get(r, "EXIT", &c);
    if (st != NPK_OK)
        return st;
    stop->reason = NPK_STOP_EXIT;
    stop->exit_code = (int64_t)npk_snap_get_u64(&c);
    stop->pc = npk_snap_get_u64(&c);
    const char *msg;
    uint32_t len;
    if (!get_str(&c, &msg, &len) || (st = npk_snap_section_done(r, "EXIT", &c)) != NPK_OK)
        return st != NPK_OK ? st : npk_snap_bad(r, "EXIT", "shorter than its fields");
    if (len >= sizeof stop->message || memchr(msg, 0, len))
        return npk_snap_bad(r, "EXIT", "a message of %u bytes", len);
    memcpy(stop->message, msg, len);
    *exited = 1;
    return NPK_OK;
}

/* One pass over every section: the dry run (apply 0) or the writing pass. In the writing
 * pass the steps that can fail (building the symbol table, the target's allocations) come
 * before anything is written; the statistics and the symbol table are put in last. */
static npk_status pass(npk_snap_reader *r, npk_machine *tmp)
{
    for (size_t i = 0; i < r->n_sec; i++)
        r->sec[i].used = 0;
    int loaded = 0;
    npk_status st = check_info(r, &loaded);
    if (st != NPK_OK)
        return st;
    npk_snap_cursor c = {NULL, 0, 1};
    if ((st = npk_snap_section_get(r, "SYMS", &c)) != NPK_OK ||
        (st = restore_symbols(r, &c, tmp)) != NPK_OK)
        return st;
    /* the statistics: checked now, written after the target */
    int apply = r->apply;
    r->apply = 0;
    st = restore_stats(r);
    r->apply = apply;
    if (st != NPK_OK)
        return st;
    npk_stop exit_stop;
    int exited = 0;
    if ((st = restore_exit(r, &exited, &exit_stop)) != NPK_OK)
        return st;
    if ((st = r->m->target->snap_restore(r->m, r->m->state, r)) != NPK_OK)
        return st;
    for (size_t i = 0; i < r->n_sec; i++)
        if (!r->sec[i].used)
            return npk_fail(r->m, NPK_ERR_FORMAT, "%s: unexpected section '%.4s' in a %s "
                            "snapshot", r->name, r->sec[i].tag, r->m->target->name);
    if (r->apply) {
        for (size_t i = 0; i < r->n_sec; i++)
            if (memcmp(r->sec[i].tag, "STAT", 4) == 0)
                r->sec[i].used = 0;
        restore_stats(r); /* checked above: cannot fail */
        symbols_commit(r->m, tmp);
        r->m->loaded = loaded;
        r->m->exited = exited;
        if (exited)
            r->m->exit_stop = exit_stop;
    }
    return NPK_OK;
}

static npk_status restore_named(npk_machine *m, const char *name, const void *data, size_t n)
{
    m->error[0] = '\0';
    if (!m->target->snap_restore)
        return npk_fail(m, NPK_ERR_UNSUPPORTED, "%s: snapshots are not supported for this "
                        "target yet", m->target->name);
    npk_snap_reader r = {m, name, NULL, 0, 0};
    npk_machine tmp; /* the new symbol table is built in its symbol fields */
    memset(&tmp, 0, sizeof tmp);
    tmp.target = m->target;
    npk_status st = parse(m, name, data, n, &r.sec, &r.n_sec);
    if (st == NPK_OK)
        st = pass(&r, &tmp);
    if (st == NPK_OK) {
        r.apply = 1;
        st = pass(&r, &tmp);
    }
    symbols_free(&tmp); /* the old table after a commit, else the unused new one */
    free(r.sec);
    return st;
}

npk_status npk_snapshot_info(const void *data, size_t size, const char *name, char *target,
                             size_t target_size, char *config, size_t config_size, char *err,
                             size_t err_size)
{
    name = name ? name : "snapshot";
    npk_machine tmp; /* only its error buffer is used */
    memset(&tmp, 0, sizeof tmp);
    if (target_size)
        target[0] = '\0';
    if (config_size)
        config[0] = '\0';
    npk_snap_section *sec = NULL;
    size_t n_sec = 0;
    npk_status st = parse(&tmp, name, data, size, &sec, &n_sec);
    if (st == NPK_OK && (n_sec == 0 || memcmp(sec[0].tag, "INFO", 4) != 0))
        st = npk_fail(&tmp, NPK_ERR_FORMAT, "%s: the first section is not INFO", name);
    if (st == NPK_OK) {
        npk_snap_cursor c = {sec[0].data, sec[0].len, 0};
        const char *ver, *t, *cf;
        uint32_t lv, lt, lc;
        if (!get_str(&c, &ver, &lv) || !get_str(&c, &t, &lt) || !get_str(&c, &cf, &lc))
            st = npk_fail(&tmp, NPK_ERR_FORMAT, "%s: section 'INFO': shorter than its fields",
                          name);
        else if (lt >= target_size || lc >= config_size)
            st = npk_fail(&tmp, NPK_ERR_RANGE, "%s: the target name (%u bytes) or the "
                          "configuration (%u bytes) does not fit the buffers", name, lt, lc);
        else {
            memcpy(target, t, lt);
            target[lt] = '\0';
            memcpy(config, cf, lc);
            config[lc] = '\0';
        }
    }
    free(sec);
    if (st != NPK_OK && err && err_size)
        snprintf(err, err_size, "%s", tmp.error);
    return st;
}

npk_status npk_snapshot_restore(npk_machine *m, const void *data, size_t size,
                                const char *name)
{
    npk_status st = restore_named(m, name ? name : "snapshot", data, size);
    if (st == NPK_OK)
        npk_dbg_reset(m); /* a breakpoint stop before it says nothing about the new state */
    return st;
}

npk_status npk_snapshot_restore_file(npk_machine *m, const char *path)
{
    uint8_t *data = NULL;
    size_t n = 0;
    char err[sizeof m->error];
    m->error[0] = '\0';
    npk_status st = npk_file_read(path, 0, &data, &n, err, sizeof err);
    if (st != NPK_OK)
        return npk_fail(m, st, "%s", err);
    st = restore_named(m, path, data, n);
    free(data);
    if (st == NPK_OK)
        npk_dbg_reset(m);
    return st;
}
