/* Commit records: the per-instruction builder targets fill from their observed loop, and its
 * sinks: the npk_on_commit callback and the commit log (text or JSON lines, one line per
 * record). Format: docs/commit-log.md. Nothing here runs while no sink is set. */
#include "core/commit.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/machine.h"
#include "core/snapshot.h"

void npk_commit_begin(npk_commit_sink *c, uint64_t pc, const uint8_t *word, unsigned word_bytes)
{
    if (word_bytes > sizeof c->word)
        word_bytes = sizeof c->word;
    c->rec.pc = pc;
    c->rec.word_bytes = word ? word_bytes : 0;
    if (word)
        memcpy(c->word, word, word_bytes);
    c->n_eff = 0;
    c->n_bytes = 0;
}

/* Double the effect arrays (32 to start with); 0, or -1 with `lost` set. */
static int grow_eff(npk_commit_sink *c)
{
    size_t cap = c->cap_eff ? 2 * c->cap_eff : 32;
    npk_effect *e = realloc(c->eff, cap * sizeof *e);
    if (!e) {
        c->lost = 1;
        return -1;
    }
    c->eff = e;
    size_t *b = realloc(c->boff, cap * sizeof *b);
    if (!b) {
        c->lost = 1;
        return -1;
    }
    c->boff = b;
    c->cap_eff = cap;
    return 0;
}

/* A new effect slot, or NULL (the record then lacks it: `lost` says so at the log's end). */
static npk_effect *add(npk_commit_sink *c)
{
    if (c->n_eff == c->cap_eff && grow_eff(c) != 0)
        return NULL;
    npk_effect *e = &c->eff[c->n_eff];
    memset(e, 0, sizeof *e);
    return e;
}

void npk_commit_reg(npk_commit_sink *c, const char *name, unsigned bits, uint64_t value)
{
    npk_effect *e = add(c);
    if (!e)
        return;
    e->kind = NPK_EFFECT_REG;
    e->name = name;
    e->bits = bits;
    e->value = value;
    c->n_eff++;
}

static int reserve_bytes(npk_commit_sink *c, size_t n)
{
    if (n <= c->cap_bytes - c->n_bytes)
        return 1;
    size_t cap = c->cap_bytes ? c->cap_bytes : 256;
    while (cap - c->n_bytes < n)
        cap *= 2;
    uint8_t *b = realloc(c->bytes, cap);
    if (!b) {
        c->lost = 1;
        return 0;
    }
    c->bytes = b;
    c->cap_bytes = cap;
    return 1;
}

void npk_commit_mem(npk_commit_sink *c, const char *space, uint64_t addr, const uint8_t *bytes,
                    size_t n)
{
    if (!n || !reserve_bytes(c, n))
        return;
    npk_effect *last = c->n_eff ? &c->eff[c->n_eff - 1] : NULL;
    /* the bytes of the last MEM effect end the buffer, so appending extends it */
    if (last && last->kind == NPK_EFFECT_MEM && last->name == space &&
        last->addr + last->size == addr) {
        memcpy(c->bytes + c->n_bytes, bytes, n);
        c->n_bytes += n;
        last->size += n;
        return;
    }
    npk_effect *e = add(c);
    if (!e)
        return;
    e->kind = NPK_EFFECT_MEM;
    e->name = space;
    e->addr = addr;
    e->size = n;
    c->boff[c->n_eff] = c->n_bytes;
    memcpy(c->bytes + c->n_bytes, bytes, n);
    c->n_bytes += n;
    c->n_eff++;
}

void npk_commit_mem_value(npk_commit_sink *c, const char *space, uint64_t addr, uint64_t value,
                          unsigned n)
{
    uint8_t b[8];
    for (unsigned i = 0; i < n && i < 8; i++)
        b[i] = (uint8_t)(value >> (8 * i));
    npk_commit_mem(c, space, addr, b, n < 8 ? n : 8);
}

void npk_commit_trap(npk_commit_sink *c, const char *cause_name, uint64_t cause, uint64_t tval)
{
    npk_effect *e = add(c);
    if (!e)
        return;
    e->kind = NPK_EFFECT_TRAP;
    e->name = cause_name;
    e->value = cause;
    e->addr = tval;
    c->n_eff++;
}

void npk_commit_end(npk_machine *m, npk_commit_sink *c, int retired, uint64_t cycle)
{
    /* registers, then memory, then the trap, each in the order the target added them (a
     * target may see a store before the register writes: an insertion sort, linear when the
     * record is in order already) */
    for (size_t i = 1; i < c->n_eff; i++) {
        if (c->eff[i].kind >= c->eff[i - 1].kind)
            continue;
        npk_effect e = c->eff[i];
        size_t b = c->boff[i], j = i;
        for (; j > 0 && c->eff[j - 1].kind > e.kind; j--) {
            c->eff[j] = c->eff[j - 1];
            c->boff[j] = c->boff[j - 1];
        }
        c->eff[j] = e;
        c->boff[j] = b;
    }
    /* the byte buffer may have moved while the record grew: point into it now */
    for (size_t i = 0; i < c->n_eff; i++) {
        npk_effect *e = &c->eff[i];
        if (e->kind != NPK_EFFECT_MEM)
            continue;
        e->bytes = c->bytes + c->boff[i];
        e->value = 0;
        if (e->size <= 8)
            for (size_t k = e->size; k-- > 0;)
                e->value = e->value << 8 | e->bytes[k];
    }
    npk_commit_deliver(m, c, retired, cycle, c->n_eff);
}

int npk_commit_reserve(npk_commit_sink *c, size_t n_eff, size_t n_bytes)
{
    while (c->cap_eff < n_eff)
        if (grow_eff(c) != 0)
            return -1;
    c->n_eff = c->n_bytes = 0; /* between records: nothing to keep */
    return reserve_bytes(c, n_bytes) ? 0 : -1;
}

void npk_commit_sink_free(npk_commit_sink *c)
{
    if (!c)
        return;
    free(c->eff);
    free(c->boff);
    free(c->bytes);
    free(c);
}

/* ---- the public side --------------------------------------------------------------------- */

/* The sink of m, created on first use; NULL (with the error set) when out of memory or when
 * the target produces no records. */
static npk_commit_sink *sink_of(npk_machine *m)
{
    if (!m->target->commit_records) {
        npk_fail(m, NPK_ERR_UNSUPPORTED, "%s: commit records are not produced for this target "
                 "yet (toy, rvnpu, opennpu, pccx and tinytpu produce them)", m->target->name);
        return NULL;
    }
    if (!m->obs.commit) {
        m->obs.commit = calloc(1, sizeof *m->obs.commit);
        if (!m->obs.commit) {
            npk_fail(m, NPK_ERR_NOMEM, "out of memory");
            return NULL;
        }
        m->obs.commit->seq = m->commit_seq;
    }
    return m->obs.commit;
}

/* Drop the sink once neither the callback nor the log wants it: the fast loop comes back.
 * Not while a record is being delivered to it (a callback that unsets itself): the loop still
 * holds it, and npk_commit_drop_unused frees it before the next run. */
static void sink_update(npk_machine *m)
{
    npk_commit_sink *c = m->obs.commit;
    if (c && !c->fn && !c->log && !c->delivering) {
        m->commit_seq = c->seq;
        npk_commit_sink_free(c);
        m->obs.commit = NULL;
    }
    npk_obs_update_active(&m->obs);
}

void npk_commit_drop_unused(npk_machine *m)
{
    if (m->obs.commit && !m->obs.commit->fn && !m->obs.commit->log)
        sink_update(m);
}

npk_status npk_on_commit(npk_machine *m, npk_commit_fn fn, void *ctx)
{
    if (!fn && !m->obs.commit)
        return NPK_OK;
    npk_commit_sink *c = sink_of(m);
    if (!c)
        return m->target->commit_records ? NPK_ERR_NOMEM : NPK_ERR_UNSUPPORTED;
    c->fn = fn;
    c->ctx = ctx;
    sink_update(m);
    return NPK_OK;
}

npk_status npk_commit_log(npk_machine *m, FILE *f, npk_commit_format fmt)
{
    if (fmt != NPK_COMMIT_TEXT && fmt != NPK_COMMIT_JSONL)
        return npk_fail(m, NPK_ERR_ARG, "commit log format %d: expected NPK_COMMIT_TEXT or "
                        "NPK_COMMIT_JSONL", (int)fmt);
    if (!f && !m->obs.commit)
        return NPK_OK;
    npk_commit_sink *c = sink_of(m);
    if (!c)
        return m->target->commit_records ? NPK_ERR_NOMEM : NPK_ERR_UNSUPPORTED;
    FILE *old = c->log;
    int lost = c->lost;
    c->log = f;
    c->fmt = fmt;
    c->lost = 0;
    sink_update(m);
    npk_status st = old ? npk_obs_flush(m, old, "commit log") : NPK_OK;
    if (st == NPK_OK && lost)
        st = npk_fail(m, NPK_ERR_NOMEM, "out of memory: commit records lack effects");
    return st;
}

npk_status npk_commit_log_digest(npk_machine *m, uint64_t threshold)
{
    m->commit_digest = threshold;
    return NPK_OK;
}

/* ---- the two line formats ---------------------------------------------------------------- */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

/* The word as one hex number, most significant byte first (as the trace shows it). */
static void put_word(FILE *f, const npk_commit *c)
{
    fputs("0x", f);
    for (unsigned i = c->word_bytes; i-- > 0;)
        fprintf(f, "%02x", c->word[i]);
}

static void put_bytes(FILE *f, const npk_effect *e)
{
    for (uint64_t i = 0; i < e->size; i++)
        fprintf(f, "%02x", e->bytes[i]);
}

static int is_value_size(uint64_t n)
{
    return n == 1 || n == 2 || n == 4 || n == 8;
}

/* npk_commit_log_digest: this write prints as a range and a CRC-32 */
static int digested(const npk_machine *m, const npk_effect *e)
{
    return m->commit_digest && e->size > m->commit_digest;
}

/* A line under construction: filled, then written with one fwrite per 512 bytes. */
typedef struct lbuf {
    FILE *f;
    size_t n;
    char b[512];
} lbuf;

static void lb_flush(lbuf *l)
{
    if (l->n)
        fwrite(l->b, 1, l->n, l->f);
    l->n = 0;
}

static void lb_str(lbuf *l, const char *s)
{
    for (; *s; s++) {
        if (l->n == sizeof l->b)
            lb_flush(l);
        l->b[l->n++] = *s;
    }
}

/* v as exactly `digits` lower-case hex digits (more when v needs them) */
static void lb_hex(lbuf *l, uint64_t v, int digits)
{
    char t[17];
    int n = 0;
    while ((n < digits || v) && n < 16) {
        t[15 - n] = "0123456789abcdef"[v & 15];
        v >>= 4;
        n++;
    }
    t[16] = '\0';
    lb_str(l, t + 16 - n);
}

static void lb_dec(lbuf *l, uint64_t v)
{
    char t[21];
    int n = 20;
    t[20] = '\0';
    do {
        t[--n] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    lb_str(l, t + n);
}

int npk_commit_print(npk_machine *m, const npk_commit *c, npk_commit_format fmt, FILE *f)
{
    char text[200] = "?";
    if (c->word_bytes &&
        m->target->disasm(m, m->state, c->word, c->pc, text, sizeof text) != NPK_OK)
        snprintf(text, sizeof text, "?");
    if (!c->word_bytes)
        snprintf(text, sizeof text, "(no instruction)");
    unsigned ab = m->target->addr_bits ? m->target->addr_bits : 64;
    int pcw = (int)((ab + 3) / 4);
    if (fmt == NPK_COMMIT_JSONL) {
        fprintf(f, "{\"seq\":%" PRIu64 ",\"cycle\":%" PRIu64 ",\"pc\":\"0x%0*" PRIx64 "\",",
                c->seq, c->cycle, pcw, c->pc);
        if (c->word_bytes) {
            fputs("\"word\":\"", f);
            put_word(f, c);
            fputs("\",", f);
        } else {
            fputs("\"word\":null,", f);
        }
        fputs("\"disasm\":", f);
        json_str(f, text);
        fprintf(f, ",\"retired\":%s,\"effects\":[", c->retired ? "true" : "false");
        for (size_t i = 0; i < c->n_effects; i++) {
            const npk_effect *e = &c->effects[i];
            if (i)
                fputc(',', f);
            switch (e->kind) {
            case NPK_EFFECT_REG:
                fputs("{\"reg\":", f);
                json_str(f, e->name);
                fprintf(f, ",\"value\":\"0x%0*" PRIx64 "\"}", (int)((e->bits + 3) / 4), e->value);
                break;
            case NPK_EFFECT_MEM:
                fputs("{\"mem\":", f);
                json_str(f, e->name);
                fprintf(f, ",\"addr\":\"0x%08" PRIx64 "\",\"size\":%" PRIu64, e->addr, e->size);
                if (digested(m, e)) {
                    fprintf(f, ",\"crc32\":\"0x%08" PRIx32 "\"}",
                            npk_crc32(0, e->bytes, (size_t)e->size));
                    break;
                }
                if (is_value_size(e->size))
                    fprintf(f, ",\"value\":\"0x%0*" PRIx64 "\"", (int)(2 * e->size), e->value);
                fputs(",\"bytes\":\"", f);
                put_bytes(f, e);
                fputs("\"}", f);
                break;
            case NPK_EFFECT_TRAP:
                fprintf(f, "{\"trap\":%" PRIu64 ",\"tval\":\"0x%08" PRIx64 "\",\"cause\":",
                        e->value, e->addr);
                json_str(f, e->name ? e->name : "");
                fputc('}', f);
                break;
            }
        }
        fputs("]}\n", f);
        return ferror(f) ? -1 : 0;
    }
    /* the text line is built in a buffer: a log of millions of lines is its hot loop */
    lbuf l = {f, 0, {0}};
    lb_dec(&l, c->seq);
    lb_str(&l, " 0x");
    lb_hex(&l, c->pc, pcw);
    lb_str(&l, " ");
    if (c->word_bytes) {
        lb_str(&l, "0x");
        for (unsigned i = c->word_bytes; i-- > 0;)
            lb_hex(&l, c->word[i], 2);
    } else {
        lb_str(&l, "-");
    }
    for (size_t i = 0; i < c->n_effects; i++) {
        const npk_effect *e = &c->effects[i];
        lb_str(&l, " ");
        switch (e->kind) {
        case NPK_EFFECT_REG:
            lb_str(&l, e->name);
            lb_str(&l, "=0x");
            lb_hex(&l, e->value, (int)((e->bits + 3) / 4));
            break;
        case NPK_EFFECT_MEM:
            lb_str(&l, e->name);
            lb_str(&l, "[0x");
            lb_hex(&l, e->addr, 8);
            if (digested(m, e)) {
                lb_str(&l, "..0x");
                lb_hex(&l, e->addr + e->size, 8);
                lb_str(&l, "]=crc32:");
                lb_hex(&l, npk_crc32(0, e->bytes, (size_t)e->size), 8);
            } else if (is_value_size(e->size)) {
                lb_str(&l, "]=0x");
                lb_hex(&l, e->value, (int)(2 * e->size));
            } else {
                lb_str(&l, "]=bytes:");
                for (uint64_t k = 0; k < e->size; k++)
                    lb_hex(&l, e->bytes[k], 2);
            }
            break;
        case NPK_EFFECT_TRAP:
            lb_str(&l, "trap[");
            lb_dec(&l, e->value);
            lb_str(&l, "]=0x");
            lb_hex(&l, e->addr, 8);
            break;
        }
    }
    lb_str(&l, " ; ");
    lb_str(&l, text);
    lb_str(&l, "\n");
    lb_flush(&l);
    return ferror(f) ? -1 : 0;
}
