/* The C side of the SystemVerilog package npukit_dpi (sv/npukit_dpi.sv): each function maps one
 * call of the public C API onto the C types of DPI-C (chandle, string, int, longint), and keeps
 * what SystemVerilog cannot hold through a callback - the commit records of the last step - in
 * the handle. Behaviour stays in the library; this file only translates. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/commit.h"
#include "core/file.h"
#include "npukit/dpi.h"

#define DPI_MACHINE 0x4b504e44u /* "DNPK": a handle of npk_dpi_create */
#define DPI_SNAPSHOT 0x534e5044u /* "DPNS": a handle of npk_dpi_snapshot_save */

/* One commit record, copied out of the callback (a record lives only during the call). */
typedef struct dpi_rec {
    uint64_t seq, cycle, pc;
    uint8_t word[NPK_COMMIT_WORD_MAX]; /* the widest word a record carries (tinytpu) */
    unsigned word_bytes;
    int retired;
    size_t n_eff, cap_eff;
    npk_effect *eff;   /* names point to the library's static strings; bytes into `bytes`,
                          which holds the record's memory writes one after the other */
    uint8_t *bytes;
    size_t n_bytes, cap_bytes;
} dpi_rec;

typedef struct dpi {
    uint32_t magic;
    npk_machine *m;          /* NULL when npk_create failed (create_err says why) */
    char create_err[512];
    char err[1024];
    npk_stop stop;
    int records;             /* the commit callback is set */
    int keep_last;           /* npk_dpi_run: keep only the last record */
    int nomem;               /* a record could not be copied */
    dpi_rec *rec;
    size_t n_rec, cap_rec, sel;
    FILE *out, *errf;        /* guest output files opened by npk_dpi_set_output */
    char disasm[256];
    char *text;              /* npk_dpi_commit_text's line */
} dpi;

typedef struct dpi_snap {
    uint32_t magic;
    uint8_t *data;
    size_t size;
} dpi_snap;

static const char bad_handle[] =
    "npukit dpi: not a handle of npk_dpi_create (NULL, destroyed, or a snapshot handle)";

static dpi *handle(void *h)
{
    dpi *d = h;
    return d && d->magic == DPI_MACHINE ? d : NULL;
}

static int fail(dpi *d, npk_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err, sizeof d->err, fmt, ap);
    va_end(ap);
    return (int)st;
}

/* The status of a library call, with its message kept on the handle when it failed. */
static int status(dpi *d, npk_status st)
{
    if (st != NPK_OK) {
        const char *msg = npk_error(d->m);
        snprintf(d->err, sizeof d->err, "%s", msg && *msg ? msg : npk_status_name(st));
    }
    return (int)st;
}

/* The handle with a machine, or NULL after setting *st (a bad handle or a failed create). */
static dpi *machine_of(void *h, int *st)
{
    dpi *d = handle(h);
    if (!d) {
        *st = NPK_ERR_ARG;
        return NULL;
    }
    if (!d->m) {
        *st = fail(d, NPK_ERR_STATE, "npukit dpi: no machine (npk_dpi_create failed: %s)",
                   d->create_err);
        return NULL;
    }
    return d;
}

/* A uint64_t as the longint SystemVerilog reads (two's complement, without relying on the
 * implementation-defined conversion). */
static long long s64(uint64_t u)
{
    return u <= (uint64_t)LLONG_MAX ? (long long)u : -(long long)(~u) - 1;
}

const char *npk_dpi_version(void)
{
    return npk_version();
}

/* ---- commit records ------------------------------------------------------------------------ */

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 1;
    size_t n = *cap ? *cap : 4;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return 0;
    *p = q;
    *cap = n;
    return 1;
}

static void on_commit(npk_machine *m, const npk_commit *c, void *ctx)
{
    (void)m;
    dpi *d = ctx;
    if (d->keep_last)
        d->n_rec = 0;
    if (d->nomem)
        return;
    if (d->n_rec == d->cap_rec) {
        size_t cap = d->cap_rec;
        if (!grow((void **)&d->rec, &cap, d->n_rec + 1, sizeof *d->rec)) {
            d->nomem = 1;
            return;
        }
        /* new slots own no buffers yet */
        memset(d->rec + d->cap_rec, 0, (cap - d->cap_rec) * sizeof *d->rec);
        d->cap_rec = cap;
    }
    dpi_rec *r = &d->rec[d->n_rec];
    size_t total = 0;
    for (size_t i = 0; i < c->n_effects; i++)
        if (c->effects[i].kind == NPK_EFFECT_MEM && c->effects[i].bytes)
            total += (size_t)c->effects[i].size;
    if (!grow((void **)&r->eff, &r->cap_eff, c->n_effects, sizeof *r->eff) ||
        !grow((void **)&r->bytes, &r->cap_bytes, total, 1)) {
        d->nomem = 1;
        return;
    }
    r->seq = c->seq;
    r->cycle = c->cycle;
    r->pc = c->pc;
    r->word_bytes = c->word_bytes < sizeof r->word ? c->word_bytes : (unsigned)sizeof r->word;
    memset(r->word, 0, sizeof r->word);
    if (c->word && r->word_bytes)
        memcpy(r->word, c->word, r->word_bytes);
    r->retired = c->retired;
    r->n_bytes = 0;
    for (size_t i = 0; i < c->n_effects; i++) {
        r->eff[i] = c->effects[i];
        r->eff[i].bytes = NULL;
        if (c->effects[i].kind == NPK_EFFECT_MEM && c->effects[i].bytes && c->effects[i].size) {
            memcpy(r->bytes + r->n_bytes, c->effects[i].bytes, (size_t)c->effects[i].size);
            r->eff[i].bytes = r->bytes + r->n_bytes;
            r->n_bytes += (size_t)c->effects[i].size;
        }
    }
    r->n_eff = c->n_effects;
    d->n_rec++;
}

/* Before a step or run: forget the last one's records. */
static void records_start(dpi *d, int keep_last)
{
    d->n_rec = 0;
    d->sel = 0;
    d->nomem = 0;
    d->keep_last = keep_last;
}

static int records_end(dpi *d, int st)
{
    d->sel = d->n_rec ? d->n_rec - 1 : 0;
    if (d->nomem && st == NPK_OK)
        return fail(d, NPK_ERR_NOMEM, "npukit dpi: out of memory keeping a commit record");
    return st;
}

int npk_dpi_commit_enable(void *h, int on)
{
    int st;
    dpi *d = machine_of(h, &st);
    if (!d)
        return st;
    npk_status s = npk_on_commit(d->m, on ? on_commit : NULL, on ? d : NULL);
    if (s != NPK_OK)
        return status(d, s);
    d->records = on != 0;
    return NPK_OK;
}

/* ---- lifecycle ---------------------------------------------------------------------------- */

void *npk_dpi_create(const char *spec, const char *settings)
{
    dpi *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->magic = DPI_MACHINE;
    if (!spec) {
        snprintf(d->create_err, sizeof d->create_err, "no spec string");
    } else if (npk_create(&d->m, spec, settings && *settings ? settings : NULL, d->create_err,
                          sizeof d->create_err) != NPK_OK) {
        d->m = NULL;
    }
    if (!d->m) {
        snprintf(d->err, sizeof d->err, "%s", d->create_err);
        return d;
    }
    /* Targets without commit records simply make none. */
    if (npk_on_commit(d->m, on_commit, d) == NPK_OK)
        d->records = 1;
    return d;
}

int npk_dpi_valid(void *h)
{
    dpi *d = handle(h);
    return d && d->m;
}

static void close_output(dpi *d)
{
    if (d->errf && d->errf != d->out)
        fclose(d->errf);
    if (d->out)
        fclose(d->out);
    d->out = d->errf = NULL;
}

void npk_dpi_destroy(void *h)
{
    dpi *d = handle(h);
    if (!d)
        return;
    npk_destroy(d->m);
    close_output(d);
    for (size_t i = 0; i < d->cap_rec; i++) {
        free(d->rec[i].eff);
        free(d->rec[i].bytes);
    }
    free(d->rec);
    free(d->text);
    d->magic = 0;
    free(d);
}

const char *npk_dpi_error(void *h)
{
    dpi *d = handle(h);
    return d ? d->err : bad_handle;
}

int npk_dpi_reset(void *h)
{
    int st;
    dpi *d = machine_of(h, &st);
    if (!d)
        return st;
    records_start(d, 0);
    memset(&d->stop, 0, sizeof d->stop);
    return status(d, npk_reset(d->m));
}

int npk_dpi_set_output(void *h, const char *out_path, const char *err_path)
{
    int st;
    dpi *d = machine_of(h, &st);
    if (!d)
        return st;
    out_path = out_path ? out_path : "";
    err_path = err_path ? err_path : "";
    FILE *out = NULL, *errf = NULL;
    if (*out_path && !(out = fopen(out_path, "w")))
        return fail(d, NPK_ERR_IO, "%s: cannot open for the guest's output", out_path);
    if (*err_path && strcmp(err_path, out_path) == 0) {
        errf = out;
    } else if (*err_path && !(errf = fopen(err_path, "w"))) {
        if (out)
            fclose(out);
        return fail(d, NPK_ERR_IO, "%s: cannot open for the guest's error output", err_path);
    }
    npk_set_output(d->m, out ? out : stdout, errf ? errf : stderr);
    close_output(d);
    d->out = out;
    d->errf = errf;
    return NPK_OK;
}

/* ---- loading ------------------------------------------------------------------------------ */

/* A load whose assembler diagnostics go into the handle's message: the library's message,
 * then the diagnostics (file:line:col: error: ...). */
typedef struct diag {
    char *buf;
    size_t len;
    FILE *f;
} diag;

static void diag_open(diag *g)
{
    g->buf = NULL;
    g->len = 0;
    g->f = open_memstream(&g->buf, &g->len);
}

static int diag_close(dpi *d, diag *g, npk_status st)
{
    if (g->f)
        fclose(g->f);
    int r = status(d, st);
    if (st != NPK_OK && g->buf && g->len) {
        size_t n = strlen(d->err);
        if (!strstr(g->buf, d->err)) {
            snprintf(d->err + n, sizeof d->err - n, "%s%s", n ? "\n" : "", g->buf);
        } else {
            snprintf(d->err, sizeof d->err, "%s", g->buf);
        }
        n = strlen(d->err);
        while (n && d->err[n - 1] == '\n')
            d->err[--n] = '\0';
    }
    free(g->buf);
    return r;
}

int npk_dpi_load_file(void *h, const char *path)
{
    int st;
    dpi *d = machine_of(h, &st);
    if (!d)
        return st;
    if (!path || !*path)
        return fail(d, NPK_ERR_ARG, "npk_dpi_load_file: no path");
    diag g;
    diag_open(&g);
    return diag_close(d, &g, npk_load_file(d->m, path, g.f));
}

int npk_dpi_load_raw(void *h, const char *path, long long addr)
{
    int st;
    dpi *d = machine_of(h, &st);
    if (!d)
        return st;
    if (!path || !*path)
        return fail(d, NPK_ERR_ARG, "npk_dpi_load_raw: no path");
    if (addr < 0)
        return fail(d, NPK_ERR_RANGE, "npk_dpi_load_raw: %s: negative address %lld", path, addr);
    uint8_t *data = NULL;
    size_t n = 0;
    npk_status s = npk_file_read(path, NPK_INPUT_MAX, &data, &n, d->err, sizeof d->err);
    if (s != NPK_OK)
        return (int)s;
    s = npk_load_raw(d->m, data, n, (uint64_t)addr);
    free(data);
    return status(d, s);
}

int npk_dpi_load_asm(void *h, const char *source, const char *name)
{
    int st;
    dpi *d = machine_of(h, &st);
    if (!d)
        return st;
    if (!source)
        return fail(d, NPK_ERR_ARG, "npk_dpi_load_asm: no source");
    diag g;
    diag_open(&g);
    return diag_close(d, &g, npk_load_asm(d->m, source, name && *name ? name : "<dpi>", g.f));
}

/* ---- running ------------------------------------------------------------------------------ */

int npk_dpi_step(void *h)
{
    int st;
    dpi *d = machine_of(h, &st);
    if (!d)
        return st;
    records_start(d, 0);
    return records_end(d, status(d, npk_step(d->m, &d->stop)));
}

int npk_dpi_run(void *h, long long max_insns)
{
    int st;
    dpi *d = machine_of(h, &st);
    if (!d)
        return st;
    if (max_insns < 0)
        return fail(d, NPK_ERR_ARG, "npk_dpi_run: negative instruction count %lld", max_insns);
    records_start(d, 1);
    return records_end(d, status(d, npk_run(d->m, (uint64_t)max_insns, &d->stop)));
}

int npk_dpi_stop_reason(void *h)
{
    dpi *d = handle(h);
    return d ? (int)d->stop.reason : 0;
}

long long npk_dpi_exit_code(void *h)
{
    dpi *d = handle(h);
    return d ? (long long)d->stop.exit_code : 0;
}

long long npk_dpi_stop_pc(void *h)
{
    dpi *d = handle(h);
    return d ? s64(d->stop.pc) : 0;
}

const char *npk_dpi_stop_message(void *h)
{
    dpi *d = handle(h);
    return d ? d->stop.message : "";
}

/* ---- reading the records ------------------------------------------------------------------- */

static const dpi_rec *selected(void *h)
{
    dpi *d = handle(h);
    return d && d->sel < d->n_rec ? &d->rec[d->sel] : NULL;
}

int npk_dpi_commit_count(void *h)
{
    dpi *d = handle(h);
    return d ? (int)d->n_rec : 0;
}

int npk_dpi_commit_select(void *h, int i)
{
    dpi *d = handle(h);
    if (!d)
        return NPK_ERR_ARG;
    if (i < 0 || (size_t)i >= d->n_rec)
        return fail(d, NPK_ERR_RANGE, "npk_dpi_commit_select: record %d of %zu", i, d->n_rec);
    d->sel = (size_t)i;
    return NPK_OK;
}

long long npk_dpi_commit_seq(void *h)
{
    const dpi_rec *r = selected(h);
    return r ? s64(r->seq) : 0;
}

long long npk_dpi_commit_cycle(void *h)
{
    const dpi_rec *r = selected(h);
    return r ? s64(r->cycle) : 0;
}

long long npk_dpi_commit_pc(void *h)
{
    const dpi_rec *r = selected(h);
    return r ? s64(r->pc) : 0;
}

long long npk_dpi_commit_word(void *h)
{
    const dpi_rec *r = selected(h);
    uint64_t w = 0;
    for (unsigned i = 0; r && i < r->word_bytes && i < 8; i++)
        w |= (uint64_t)r->word[i] << (8 * i);
    return s64(w);
}

int npk_dpi_commit_word_byte(void *h, int k)
{
    const dpi_rec *r = selected(h);
    if (!r || k < 0 || (unsigned)k >= r->word_bytes)
        return -1;
    return r->word[k];
}

int npk_dpi_commit_word_bytes(void *h)
{
    const dpi_rec *r = selected(h);
    return r ? (int)r->word_bytes : 0;
}

int npk_dpi_commit_retired(void *h)
{
    const dpi_rec *r = selected(h);
    return r ? r->retired : 0;
}

int npk_dpi_commit_effects(void *h)
{
    const dpi_rec *r = selected(h);
    return r ? (int)r->n_eff : 0;
}

const char *npk_dpi_commit_disasm(void *h)
{
    dpi *d = handle(h);
    const dpi_rec *r = selected(h);
    if (!d || !r)
        return "";
    if (!r->word_bytes)
        snprintf(d->disasm, sizeof d->disasm, "(no instruction)");
    else if (npk_disasm(d->m, r->word, r->pc, d->disasm, sizeof d->disasm) != NPK_OK)
        snprintf(d->disasm, sizeof d->disasm, "?");
    return d->disasm;
}

const char *npk_dpi_commit_text(void *h)
{
    dpi *d = handle(h);
    const dpi_rec *r = selected(h);
    if (!d || !r)
        return "";
    npk_commit c = {r->seq, r->cycle, r->pc, r->word, r->word_bytes, r->retired, r->n_eff, r->eff};
    free(d->text);
    d->text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&d->text, &len);
    if (!f) {
        fail(d, NPK_ERR_NOMEM, "npk_dpi_commit_text: out of memory");
        return "";
    }
    int bad = npk_commit_print(d->m, &c, NPK_COMMIT_TEXT, f);
    if (fclose(f) != 0 || bad || !d->text) {
        fail(d, NPK_ERR_NOMEM, "npk_dpi_commit_text: out of memory");
        return "";
    }
    while (len && d->text[len - 1] == '\n')
        d->text[--len] = '\0';
    return d->text;
}

static const npk_effect *effect(void *h, int i)
{
    const dpi_rec *r = selected(h);
    if (!r || i < 0 || (size_t)i >= r->n_eff) {
        dpi *d = handle(h);
        if (d)
            fail(d, NPK_ERR_RANGE, "npukit dpi: effect %d of %zu", i, r ? r->n_eff : (size_t)0);
        return NULL;
    }
    return &r->eff[i];
}

int npk_dpi_effect_kind(void *h, int i)
{
    const npk_effect *e = effect(h, i);
    return e ? (int)e->kind : 0;
}

const char *npk_dpi_effect_name(void *h, int i)
{
    const npk_effect *e = effect(h, i);
    return e && e->name ? e->name : "";
}

int npk_dpi_effect_bits(void *h, int i)
{
    const npk_effect *e = effect(h, i);
    return e ? (int)e->bits : 0;
}

long long npk_dpi_effect_addr(void *h, int i)
{
    const npk_effect *e = effect(h, i);
    return e ? s64(e->addr) : 0;
}

long long npk_dpi_effect_size(void *h, int i)
{
    const npk_effect *e = effect(h, i);
    return e ? s64(e->size) : 0;
}

long long npk_dpi_effect_value(void *h, int i)
{
    const npk_effect *e = effect(h, i);
    return e ? s64(e->value) : 0;
}

int npk_dpi_effect_byte(void *h, int i, long long k)
{
    const npk_effect *e = effect(h, i);
    if (!e || !e->bytes || k < 0 || (uint64_t)k >= e->size)
        return -1;
    return e->bytes[k];
}

int npk_dpi_effect_find(void *h, int kind, const char *name)
{
    const dpi_rec *r = selected(h);
    for (size_t i = 0; r && i < r->n_eff; i++)
        if ((int)r->eff[i].kind == kind &&
            (!name || !*name || (r->eff[i].name && strcmp(r->eff[i].name, name) == 0)))
            return (int)i;
    return -1;
}

/* ---- state --------------------------------------------------------------------------------- */

int npk_dpi_reg_read(void *h, const char *name, long long *value)
{
    int st;
    dpi *d = machine_of(h, &st);
    uint64_t v = 0;
    if (d && !name)
        st = fail(d, NPK_ERR_ARG, "npk_dpi_reg_read: no register name");
    else if (d)
        st = status(d, npk_reg_read(d->m, name, &v));
    if (value)
        *value = s64(v);
    return st;
}

int npk_dpi_reg_write(void *h, const char *name, long long value)
{
    int st;
    dpi *d = machine_of(h, &st);
    if (!d)
        return st;
    if (!name)
        return fail(d, NPK_ERR_ARG, "npk_dpi_reg_write: no register name");
    return status(d, npk_reg_write(d->m, name, (uint64_t)value));
}

static int mem_args(dpi *d, const char *fn, const char *space, long long addr, int size)
{
    if (!space)
        return fail(d, NPK_ERR_ARG, "%s: no space name", fn);
    if (size < 1 || size > 8)
        return fail(d, NPK_ERR_ARG, "%s: %s: size %d (1 to 8 bytes)", fn, space, size);
    if (addr < 0)
        return fail(d, NPK_ERR_RANGE, "%s: %s: negative address %lld", fn, space, addr);
    return NPK_OK;
}

int npk_dpi_mem_read(void *h, const char *space, long long addr, int size, long long *value)
{
    int st;
    dpi *d = machine_of(h, &st);
    uint8_t b[8] = {0};
    if (d && (st = mem_args(d, "npk_dpi_mem_read", space, addr, size)) == NPK_OK)
        st = status(d, npk_mem_read(d->m, space, (uint64_t)addr, b, (size_t)size));
    uint64_t v = 0;
    for (int i = 0; st == NPK_OK && i < size; i++)
        v |= (uint64_t)b[i] << (8 * i);
    if (value)
        *value = s64(v);
    return st;
}

int npk_dpi_mem_write(void *h, const char *space, long long addr, int size, long long value)
{
    int st;
    dpi *d = machine_of(h, &st);
    if (!d)
        return st;
    if ((st = mem_args(d, "npk_dpi_mem_write", space, addr, size)) != NPK_OK)
        return st;
    /* The value must fit the size, zero- or sign-extended (a byte: 0 .. 255 or -128 .. -1). */
    if (size < 8) {
        long long lim = 1LL << (8 * size);
        if (value >= lim || value < -(lim / 2))
            return fail(d, NPK_ERR_RANGE, "npk_dpi_mem_write: %s: value %lld does not fit %d byte%s",
                        space, value, size, size == 1 ? "" : "s");
    }
    uint8_t b[8];
    uint64_t v = (uint64_t)value;
    for (int i = 0; i < size; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    return status(d, npk_mem_write(d->m, space, (uint64_t)addr, b, (size_t)size));
}

int npk_dpi_symbol(void *h, const char *name, long long *value)
{
    int st;
    dpi *d = machine_of(h, &st);
    uint64_t v = 0;
    if (d && !name)
        st = fail(d, NPK_ERR_ARG, "npk_dpi_symbol: no symbol name");
    else if (d)
        st = status(d, npk_symbol(d->m, name, &v));
    if (value)
        *value = s64(v);
    return st;
}

const char *npk_dpi_disasm(void *h, long long pc, long long word)
{
    int st;
    dpi *d = machine_of(h, &st);
    if (!d)
        return "";
    size_t n = npk_insn_bytes(d->m);
    if (n == 0 || n > 8) {
        fail(d, NPK_ERR_UNSUPPORTED, "npk_dpi_disasm: %s has no instruction words of 1 to 8 bytes",
             npk_target_of(d->m));
        return "";
    }
    uint8_t b[8];
    for (size_t i = 0; i < 8; i++)
        b[i] = (uint8_t)((uint64_t)word >> (8 * i));
    if (status(d, npk_disasm(d->m, b, (uint64_t)pc, d->disasm, sizeof d->disasm)) != NPK_OK)
        return "";
    return d->disasm;
}

/* ---- snapshots ----------------------------------------------------------------------------- */

void *npk_dpi_snapshot_save(void *h)
{
    int st;
    dpi *d = machine_of(h, &st);
    if (!d)
        return NULL;
    dpi_snap *s = calloc(1, sizeof *s);
    if (!s) {
        fail(d, NPK_ERR_NOMEM, "npk_dpi_snapshot_save: out of memory");
        return NULL;
    }
    if (status(d, npk_snapshot_save(d->m, &s->data, &s->size)) != NPK_OK) {
        free(s);
        return NULL;
    }
    s->magic = DPI_SNAPSHOT;
    return s;
}

int npk_dpi_snapshot_restore(void *h, void *snapshot)
{
    int st;
    dpi *d = machine_of(h, &st);
    if (!d)
        return st;
    dpi_snap *s = snapshot;
    if (!s || s->magic != DPI_SNAPSHOT)
        return fail(d, NPK_ERR_ARG, "npk_dpi_snapshot_restore: not a handle of "
                                    "npk_dpi_snapshot_save (NULL, freed, or a machine handle)");
    st = status(d, npk_snapshot_restore(d->m, s->data, s->size, "snapshot"));
    if (st == NPK_OK) {
        records_start(d, 0);
        memset(&d->stop, 0, sizeof d->stop);
    }
    return st;
}

void npk_dpi_snapshot_free(void *snapshot)
{
    dpi_snap *s = snapshot;
    if (!s || s->magic != DPI_SNAPSHOT)
        return;
    npk_free(s->data);
    s->magic = 0;
    free(s);
}

int npk_dpi_snapshot_save_file(void *h, const char *path)
{
    int st;
    dpi *d = machine_of(h, &st);
    if (!d)
        return st;
    if (!path || !*path)
        return fail(d, NPK_ERR_ARG, "npk_dpi_snapshot_save_file: no path");
    return status(d, npk_snapshot_save_file(d->m, path));
}

int npk_dpi_snapshot_restore_file(void *h, const char *path)
{
    int st;
    dpi *d = machine_of(h, &st);
    if (!d)
        return st;
    if (!path || !*path)
        return fail(d, NPK_ERR_ARG, "npk_dpi_snapshot_restore_file: no path");
    st = status(d, npk_snapshot_restore_file(d->m, path));
    if (st == NPK_OK) {
        records_start(d, 0);
        memset(&d->stop, 0, sizeof d->stop);
    }
    return st;
}
