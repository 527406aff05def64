/* The machine handle: creation from "target:config", loading, running, backdoor access and
 * observer control. Everything a caller does goes through here to the target's vtable. */
#define _POSIX_C_SOURCE 200809L
#include "core/machine.h"
#include "core/checked.h"
#include "core/commit.h"
#include "core/file.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *npk_version(void)
{
    return NPK_VERSION_STRING;
}

const char *npk_status_name(npk_status s)
{
    switch (s) {
    case NPK_OK: return "ok";
    case NPK_ERR_ARG: return "bad argument";
    case NPK_ERR_NOMEM: return "out of memory";
    case NPK_ERR_IO: return "I/O error";
    case NPK_ERR_FORMAT: return "malformed input";
    case NPK_ERR_RANGE: return "out of range";
    case NPK_ERR_UNSUPPORTED: return "not supported by this target";
    case NPK_ERR_STATE: return "wrong machine state";
    }
    return "unknown status";
}

npk_status npk_fail(npk_machine *m, npk_status s, const char *fmt, ...)
{
    if (m) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(m->error, sizeof m->error, fmt, ap);
        va_end(ap);
    }
    return s;
}

void npk_stop_set(npk_stop *s, npk_stop_reason r, uint64_t pc, const char *fmt, ...)
{
    s->reason = r;
    s->pc = pc;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->message, sizeof s->message, fmt, ap);
    va_end(ap);
}

const char *npk_error(const npk_machine *m)
{
    return m ? m->error : "no machine";
}

const char *npk_target_of(const npk_machine *m)
{
    return m->target->name;
}

const char *npk_config_string(const npk_machine *m)
{
    return m->config;
}

void npk_config_describe(npk_machine *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->config, sizeof m->config, fmt, ap);
    va_end(ap);
}

FILE *npk_guest_out(npk_machine *m)
{
    return m->out;
}

FILE *npk_guest_err(npk_machine *m)
{
    return m->err;
}

void npk_set_output(npk_machine *m, FILE *out, FILE *err)
{
    m->out = out ? out : stdout;
    m->err = err ? err : stderr;
}

void npk_set_listing(npk_machine *m, FILE *listing)
{
    m->listing = listing;
}

FILE *npk_listing_out(npk_machine *m)
{
    return m->listing;
}

npk_obs *npk_observers(npk_machine *m)
{
    return &m->obs;
}

static void set_err(char *err, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void set_err(char *err, size_t n, const char *fmt, ...)
{
    if (!err || !n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

static void target_list(char *buf, size_t n)
{
    buf[0] = '\0';
    size_t used = 0;
    for (size_t i = 0; i < npk_target_count() && used < n; i++) {
        int w = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", npk_target_name(i));
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

void *npk_target_state(npk_machine *m, const npk_target *t)
{
    return m && m->target == t ? m->state : NULL;
}

npk_status npk_create(npk_machine **out, const char *spec, const char *config, char *err,
                      size_t err_size)
{
    *out = NULL;
    if (!spec || !*spec) {
        set_err(err, err_size, "no target given");
        return NPK_ERR_ARG;
    }
    const char *colon = strchr(spec, ':');
    size_t name_len = colon ? (size_t)(colon - spec) : strlen(spec);
    char name[64];
    if (name_len == 0 || name_len >= sizeof name) {
        set_err(err, err_size, "bad target name in '%s'", spec);
        return NPK_ERR_ARG;
    }
    memcpy(name, spec, name_len);
    name[name_len] = '\0';
    const npk_target *t = npk_target_find(name);
    if (!t) {
        char list[256];
        target_list(list, sizeof list);
        set_err(err, err_size, "unknown target '%s' (known: %s)", name, list);
        return NPK_ERR_ARG;
    }

    return npk_create_for(out, t, colon ? colon + 1 : NULL, config, err, err_size);
}

/* npk_create_for; with `keys`, the keys create() looked up are handed back there (a
 * malloc'd array of malloc'd names) instead of being freed. */
static npk_status create_machine(npk_machine **out, const npk_target *t, const char *settings,
                                 const char *config, char *err, size_t err_size,
                                 npk_config *keys)
{
    *out = NULL;
    npk_machine *m = calloc(1, sizeof *m);
    if (!m) {
        set_err(err, err_size, "out of memory");
        return NPK_ERR_NOMEM;
    }
    m->target = t;
    m->out = stdout;
    m->err = stderr;
    if (npk_obs_init(&m->obs, t->n_mnemonics, t->n_units, t->n_extras) != NPK_OK) {
        free(m);
        set_err(err, err_size, "out of memory");
        return NPK_ERR_NOMEM;
    }

    npk_config cfg;
    npk_status st = npk_config_parse(&cfg, settings, config, m->error,
                                     sizeof m->error);
    if (st == NPK_OK) {
        cfg.record = keys != NULL;
        st = t->create(m, &cfg, &m->state);
        if (keys && st == NPK_OK && cfg.record_failed)
            st = NPK_ERR_NOMEM;
        if (keys && st == NPK_OK) {
            keys->taken = cfg.taken;
            keys->n_taken = cfg.n_taken;
            cfg.taken = NULL;
            cfg.n_taken = 0;
        }
        npk_config_free(&cfg);
    }
    if (st != NPK_OK) {
        set_err(err, err_size, "%s", m->error[0] ? m->error : npk_status_name(st));
        npk_destroy(m);
        return st;
    }
    m->error[0] = '\0';
    *out = m;
    return NPK_OK;
}

npk_status npk_create_for(npk_machine **out, const npk_target *t, const char *settings,
                          const char *config, char *err, size_t err_size)
{
    return create_machine(out, t, settings, config, err, err_size, NULL);
}

npk_status npk_target_setting_names(const char *target, char **out, char *err, size_t err_size)
{
    *out = NULL;
    const npk_target *t = target ? npk_target_find(target) : NULL;
    if (!t) {
        char list[256];
        target_list(list, sizeof list);
        set_err(err, err_size, "unknown target '%s' (known: %s)", target ? target : "",
                list);
        return NPK_ERR_ARG;
    }
    npk_machine *m;
    npk_config keys;
    memset(&keys, 0, sizeof keys);
    npk_status st = create_machine(&m, t, NULL, NULL, err, err_size, &keys);
    if (st != NPK_OK)
        return st;
    npk_destroy(m);
    /* the presets as they are, then "key=" for every key but the presets' own */
    size_t n = (t->presets ? strlen(t->presets) : 0) + 2;
    for (size_t i = 0; i < keys.n_taken; i++)
        n += strlen(keys.taken[i]) + 2;
    char *s = malloc(n), *p = s;
    if (s) {
        for (const char *w = t->presets; w && *w;) {
            size_t len = strcspn(w, " ");
            memcpy(p, w, len);
            p += len;
            *p++ = '\n';
            w += len;
            w += strspn(w, " ");
        }
        for (size_t i = 0; i < keys.n_taken; i++)
            if (strcmp(keys.taken[i], "preset") != 0)
                p += sprintf(p, "%s=\n", keys.taken[i]);
        *p = '\0';
    } else {
        set_err(err, err_size, "out of memory");
        st = NPK_ERR_NOMEM;
    }
    npk_config_free(&keys);
    *out = s;
    return st;
}

void npk_destroy(npk_machine *m)
{
    if (!m)
        return;
    if (m->obs.timeline)
        npk_timeline_close(m);
    if (m->state && m->target->destroy)
        m->target->destroy(m->state);
    npk_symbols_clear(m);
    free(m->syms);
    npk_name_free(&m->globals);
    npk_obs_free(&m->obs);
    npk_dbg_free(&m->dbg);
    free(m);
}

/* A successful write of the machine's state from outside (reset, a register, memory, a
 * symbol) makes an exited machine runnable again: the embedder sets it up for another run
 * (note_exit below). */
static npk_status written(npk_machine *m, npk_status st)
{
    if (st == NPK_OK)
        m->exited = 0;
    return st;
}

npk_status npk_reset(npk_machine *m)
{
    m->error[0] = '\0';
    m->commit_seq = 0;
    npk_dbg_reset(m);
    if (m->obs.commit)
        m->obs.commit->seq = 0;
    npk_obs_clear_counts(&m->obs, m->target->n_mnemonics, m->target->n_units,
                         m->target->n_extras);
    return written(m, m->target->reset ? m->target->reset(m, m->state) : NPK_OK);
}

/* ---- symbols ----------------------------------------------------------------------------- */

static npk_status symbol_push(npk_machine *m, const char *name, uint64_t value,
                              uint64_t size, int local)
{
    if (m->n_syms == m->cap_syms) {
        size_t cap = m->cap_syms ? 2 * m->cap_syms : 64;
        npk_symbol_entry *s = realloc(m->syms, cap * sizeof *s);
        if (!s)
            return npk_fail(m, NPK_ERR_NOMEM, "out of memory for symbols");
        m->syms = s;
        m->cap_syms = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return npk_fail(m, NPK_ERR_NOMEM, "out of memory for symbols");
    size_t len = strlen(copy), first;
    if (!local && !npk_name_find(&m->globals, copy, len, &first) &&
        npk_name_put(&m->globals, copy, len, m->n_syms) != 0) {
        free(copy);
        return npk_fail(m, NPK_ERR_NOMEM, "out of memory for symbols");
    }
    m->syms[m->n_syms++] = (npk_symbol_entry){copy, value, size, local};
    return NPK_OK;
}

npk_status npk_symbol_add(npk_machine *m, const char *name, uint64_t value)
{
    /* indexed: an assembled program adds every label, and a scan per label made loading a
     * program with 10^5 labels take minutes */
    size_t i;
    if (npk_name_find(&m->globals, name, strlen(name), &i)) {
        m->syms[i].value = value;
        return NPK_OK;
    }
    return symbol_push(m, name, value, 0, 0);
}

npk_status npk_symbol_add_elf(npk_machine *m, const char *name, uint64_t value, uint64_t size,
                              int local)
{
    return symbol_push(m, name, value, size, local);
}

void npk_symbols_clear(npk_machine *m)
{
    for (size_t i = 0; i < m->n_syms; i++)
        free(m->syms[i].name);
    m->n_syms = 0;
    npk_name_clear(&m->globals);
}

/* The symbol a name refers to: the first global/weak one, else the only local one. */
static npk_status symbol_find(npk_machine *m, const char *name, const npk_symbol_entry **out)
{
    const npk_symbol_entry *local = NULL;
    size_t locals = 0;
    for (size_t i = 0; i < m->n_syms; i++) {
        const npk_symbol_entry *e = &m->syms[i];
        if (strcmp(e->name, name) != 0)
            continue;
        if (!e->local) {
            *out = e;
            return NPK_OK;
        }
        if (!local || local->value != e->value)
            locals++;
        local = e;
    }
    if (locals == 1) {
        *out = local;
        return NPK_OK;
    }
    if (locals > 1)
        return npk_fail(m, NPK_ERR_ARG,
                        "symbol '%s' is ambiguous: %zu local symbols of that name and no global "
                        "one", name, locals);
    return npk_fail(m, NPK_ERR_ARG, "no symbol '%s' in the loaded program", name);
}

npk_status npk_symbol(npk_machine *m, const char *name, uint64_t *value)
{
    const npk_symbol_entry *e;
    npk_status st = symbol_find(m, name, &e);
    if (st == NPK_OK)
        *value = e->value;
    return st;
}

npk_status npk_write_symbol(npk_machine *m, const char *name, const void *data, size_t n)
{
    m->error[0] = '\0';
    if (!m->target->poke)
        return npk_fail(m, NPK_ERR_UNSUPPORTED, "%s: writing over symbols is not supported",
                        m->target->name);
    if (!m->loaded)
        return npk_fail(m, NPK_ERR_STATE, "%s: load a program before writing symbol '%s'",
                        m->target->name, name);
    const npk_symbol_entry *e;
    npk_status st = symbol_find(m, name, &e);
    if (st != NPK_OK)
        return st;
    if (e->size && n > e->size)
        return npk_fail(m, NPK_ERR_RANGE,
                        "%zu bytes do not fit symbol '%s' (%llu bytes at 0x%llx)", n, name,
                        (unsigned long long)e->size, (unsigned long long)e->value);
    uint64_t end;
    if (!npk_add_u64_ok(e->value, n, &end)) /* targets check their memory; never a wrap */
        return npk_fail(m, NPK_ERR_RANGE, "%zu bytes at symbol '%s' (0x%llx) wrap past the end "
                        "of the address space", n, name, (unsigned long long)e->value);
    return written(m, m->target->poke(m, m->state, e->value, data, n));
}

npk_status npk_symbol_size(npk_machine *m, const char *name, uint64_t *size)
{
    const npk_symbol_entry *e;
    npk_status st = symbol_find(m, name, &e);
    if (st == NPK_OK)
        *size = e->size;
    return st;
}

npk_status npk_read_symbol(npk_machine *m, const char *name, void *data, size_t n)
{
    m->error[0] = '\0';
    if (!m->target->peek)
        return npk_fail(m, NPK_ERR_UNSUPPORTED, "%s: reading symbols is not supported",
                        m->target->name);
    const npk_symbol_entry *e;
    npk_status st = symbol_find(m, name, &e);
    if (st != NPK_OK)
        return st;
    uint64_t end;
    if (!npk_add_u64_ok(e->value, n, &end))
        return npk_fail(m, NPK_ERR_RANGE, "%zu bytes at symbol '%s' (0x%llx) wrap past the end "
                        "of the address space", n, name, (unsigned long long)e->value);
    return m->target->peek(m, m->state, e->value, data, n);
}

/* ---- loading ----------------------------------------------------------------------------- */

npk_status npk_load_raw(npk_machine *m, const void *bytes, size_t n, uint64_t addr)
{
    m->error[0] = '\0';
    if (!m->target->load_raw)
        return npk_fail(m, NPK_ERR_UNSUPPORTED, "%s: raw images are not supported",
                        m->target->name);
    if (m->target->insn_bytes && !m->target->raw_pads && n % m->target->insn_bytes)
        return npk_fail(m, NPK_ERR_FORMAT,
                        "%s: raw image is %zu bytes, not a whole number of %u-byte words",
                        m->target->name, n, m->target->insn_bytes);
    uint64_t end;
    if (!npk_add_u64_ok(addr, n, &end))
        return npk_fail(m, NPK_ERR_RANGE,
                        "%s: raw image of %zu bytes at 0x%llx wraps past the end of the address "
                        "space", m->target->name, n, (unsigned long long)addr);
    npk_status st = m->target->load_raw(m, m->state, bytes, n, addr);
    if (st == NPK_OK)
        m->loaded = 1, m->exited = 0;
    return st;
}

int npk_raw_pads(const npk_machine *m)
{
    return m->target->raw_pads != 0;
}

npk_status npk_load_elf(npk_machine *m, const void *bytes, size_t n, const char *name)
{
    m->error[0] = '\0';
    if (!m->target->elf_machine || !m->target->load_elf_segment)
        return npk_fail(m, NPK_ERR_UNSUPPORTED, "%s: %s: ELF files are not supported by this "
                        "target", name ? name : "ELF", m->target->name);
    npk_symbols_clear(m);
    npk_status st = npk_elf_load(m, bytes, n, name ? name : "ELF");
    if (st == NPK_OK)
        m->loaded = 1, m->exited = 0;
    return st;
}

npk_status npk_load_asm(npk_machine *m, const char *source, const char *name, FILE *diag)
{
    m->error[0] = '\0';
    if (!m->target->assemble)
        return npk_fail(m, NPK_ERR_UNSUPPORTED, "%s: no assembler for this target",
                        m->target->name);
    npk_symbols_clear(m);
    name = name ? name : "<source>";
    npk_status st;
    if (m->target->load_asm) {
        st = m->target->load_asm(m, m->state, source, name, diag);
    } else {
        uint8_t *image = NULL;
        size_t size = 0;
        st = m->target->assemble(m, m->state, source, name, diag, &image, &size);
        if (st == NPK_OK)
            st = m->target->load_raw(m, m->state, image, size, 0);
        free(image);
    }
    if (st == NPK_OK)
        m->loaded = 1, m->exited = 0;
    return st;
}

npk_status npk_assemble(npk_machine *m, const char *source, const char *name, FILE *diag,
                        uint8_t **image, size_t *size)
{
    m->error[0] = '\0';
    *image = NULL;
    *size = 0;
    if (!m->target->assemble)
        return npk_fail(m, NPK_ERR_UNSUPPORTED, "%s: no assembler for this target",
                        m->target->name);
    npk_symbols_clear(m);
    return m->target->assemble(m, m->state, source, name ? name : "<source>", diag, image,
                               size);
}

void npk_free(void *p)
{
    free(p);
}

/* Text = mostly printable; assembly sources are text, images are not. A file that is
 * printable apart from a few NUL bytes is a source with a stray NUL (an image has other
 * control bytes too): it is treated as text so that the NUL is reported, not run as code. */
static int looks_like_text(const uint8_t *p, size_t n)
{
    if (n == 0)
        return 1;
    size_t odd = 0, nul = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == 0)
            nul++;
        else if (p[i] < 0x20 && !isspace(p[i]))
            odd++;
    }
    return nul ? odd == 0 && nul * 8 <= n : odd * 20 < n;
}

/* npk_load_bytes; `terminated`: bytes[n] is a NUL the text can end at without a copy */
static npk_status load_bytes(npk_machine *m, const uint8_t *data, size_t n, const char *name,
                             FILE *diag, int terminated)
{
    npk_status st;
    m->error[0] = '\0';
    name = name ? name : "<input>";
    if (n >= 4 && memcmp(data, "\x7f" "ELF", 4) == 0)
        return npk_load_elf(m, data, n, name);
    if (looks_like_text(data, n)) {
        /* npk_load_asm takes a C string, which would end at a NUL byte */
        if (npk_asm_check_nul((const char *)data, n, name, diag) != 0)
            return npk_fail(m, NPK_ERR_FORMAT, "%s: NUL byte in assembly source", name);
        if (terminated)
            return npk_load_asm(m, (const char *)data, name, diag);
        char *text = malloc(n + 1);
        if (!text)
            return npk_fail(m, NPK_ERR_NOMEM, "%s: out of memory", name);
        if (n)
            memcpy(text, data, n); /* data may be NULL when n is 0 */
        text[n] = '\0';
        st = npk_load_asm(m, text, name, diag);
        free(text);
        return st;
    }
    st = npk_load_raw(m, data, n, 0);
    if (st != NPK_OK && strncmp(m->error, name, strlen(name)) != 0) {
        char msg[sizeof m->error];
        snprintf(msg, sizeof msg, "%s", m->error);
        npk_fail(m, st, "%.200s: %.800s", name, msg);
    }
    return st;
}

npk_status npk_load_bytes(npk_machine *m, const void *bytes, size_t n, const char *name,
                          FILE *diag)
{
    return load_bytes(m, bytes, n, name, diag, 0);
}

npk_status npk_load_path(npk_machine *m, const char *path, FILE *diag)
{
    m->error[0] = '\0';
    if (!m->target->load_path || !path)
        return NPK_ERR_UNSUPPORTED;
    npk_status st = m->target->load_path(m, m->state, path, diag);
    if (st == NPK_OK)
        m->loaded = 1, m->exited = 0;
    return st;
}

npk_status npk_load_file(npk_machine *m, const char *path, FILE *diag)
{
    uint8_t *data = NULL;
    size_t n = 0;
    char err[sizeof m->error];
    npk_status st = npk_load_path(m, path, diag);
    if (st != NPK_ERR_UNSUPPORTED)
        return st;
    m->error[0] = '\0';
    st = npk_file_read(path, NPK_INPUT_MAX, &data, &n, err, sizeof err);
    if (st != NPK_OK)
        return npk_fail(m, st, "%s", err);
    st = load_bytes(m, data, n, path, diag, 1);
    free(data);
    return st;
}

/* ---- running ----------------------------------------------------------------------------- */

/* An exit is final: the machine keeps its stop, and later runs and steps report it again
 * instead of executing what follows the exit instruction (toy's halt and rvnpu's ecall leave
 * pc past it; opennpu, tinytpu and pccx stay at their end). A load, a snapshot restore or a
 * write of the state from outside (written above) makes the machine runnable again. */
static npk_status note_exit(npk_machine *m, npk_status st, const npk_stop *stop)
{
    if (st == NPK_OK && stop->reason == NPK_STOP_EXIT) {
        m->exited = 1;
        m->exit_stop = *stop;
    }
    return st;
}

npk_status npk_run(npk_machine *m, uint64_t max_insns, npk_stop *stop)
{
    memset(stop, 0, sizeof *stop);
    m->error[0] = '\0';
    if (!m->loaded)
        return npk_fail(m, NPK_ERR_STATE, "%s: nothing loaded to run", m->target->name);
    if (m->exited) {
        *stop = m->exit_stop;
        return NPK_OK;
    }
    npk_commit_drop_unused(m);
    npk_dbg_run_begin(m);
    npk_status st = m->target->run(m, m->state, max_insns, stop);
    npk_dbg_run_end(m, stop);
    return note_exit(m, st, stop);
}

/* Called once per instruction by embedding loops: it clears only what a stop record needs (not
 * its 512-byte message) and leaves the budget message out. */
npk_status npk_step(npk_machine *m, npk_stop *stop)
{
    stop->reason = NPK_STOP_NONE;
    stop->exit_code = 0;
    stop->pc = 0;
    memset(stop->insn, 0, sizeof stop->insn);
    stop->insn_bits = 0;
    stop->message[0] = '\0';
    m->error[0] = '\0';
    if (!m->loaded)
        return npk_fail(m, NPK_ERR_STATE, "%s: nothing loaded to run", m->target->name);
    if (m->exited) {
        *stop = m->exit_stop;
        return NPK_OK;
    }
    if (m->obs.commit)
        npk_commit_drop_unused(m);
    npk_dbg_run_begin(m);
    npk_status st;
    if (m->target->step) {
        st = m->target->step(m, m->state, stop);
        npk_dbg_run_end(m, stop);
        return note_exit(m, st, stop);
    }
    st = m->target->run(m, m->state, 1, stop);
    npk_dbg_run_end(m, stop);
    if (st == NPK_OK && stop->reason == NPK_STOP_BUDGET) {
        stop->reason = NPK_STOP_NONE; /* one instruction retired, as asked: not a stop */
        stop->message[0] = '\0';
        memset(stop->insn, 0, sizeof stop->insn);
        stop->insn_bits = 0;
    }
    return note_exit(m, st, stop);
}

/* ---- backdoor ---------------------------------------------------------------------------- */

size_t npk_space_count(const npk_machine *m)
{
    npk_memspace *list;
    return m->target->spaces ? m->target->spaces(m->state, &list) : 0;
}

const npk_space_info *npk_space(const npk_machine *m, size_t i)
{
    npk_memspace *list;
    size_t n = m->target->spaces ? m->target->spaces(m->state, &list) : 0;
    return i < n ? &list[i].info : NULL;
}

static npk_status find_space(npk_machine *m, const char *name, size_t *idx, npk_memspace **sp)
{
    npk_memspace *list;
    size_t n = m->target->spaces ? m->target->spaces(m->state, &list) : 0;
    for (size_t i = 0; i < n; i++) {
        if (strcasecmp(list[i].info.name, name) == 0) {
            *idx = i;
            *sp = &list[i];
            return NPK_OK;
        }
    }
    return npk_fail(m, NPK_ERR_ARG, "%s: no memory space '%s'", m->target->name, name);
}

static npk_status check_range(npk_machine *m, const npk_memspace *sp, uint64_t addr, size_t n)
{
    if (!npk_range_ok(addr, n, sp->info.size))
        return npk_fail(m, NPK_ERR_RANGE,
                        "%s: access of %zu bytes at 0x%llx is outside %s (0x0 .. 0x%llx)",
                        m->target->name, n, (unsigned long long)addr, sp->info.name,
                        (unsigned long long)(sp->info.size ? sp->info.size - 1 : 0));
    return NPK_OK;
}

npk_status npk_mem_read(npk_machine *m, const char *space, uint64_t addr, void *buf, size_t n)
{
    size_t idx = 0;
    npk_memspace *sp = NULL;
    npk_status st = find_space(m, space, &idx, &sp);
    if (st == NPK_OK)
        st = check_range(m, sp, addr, n);
    if (st != NPK_OK)
        return st;
    if (sp->data) {
        memcpy(buf, sp->data + addr, n);
        return NPK_OK;
    }
    if (!m->target->space_read)
        return npk_fail(m, NPK_ERR_UNSUPPORTED, "%s: %s cannot be read", m->target->name, space);
    return m->target->space_read(m, m->state, idx, addr, buf, n);
}

npk_status npk_mem_write(npk_machine *m, const char *space, uint64_t addr, const void *buf,
                         size_t n)
{
    size_t idx = 0;
    npk_memspace *sp = NULL;
    npk_status st = find_space(m, space, &idx, &sp);
    if (st == NPK_OK)
        st = check_range(m, sp, addr, n);
    if (st != NPK_OK)
        return st;
    if (m->target->space_write)
        return written(m, m->target->space_write(m, m->state, idx, addr, buf, n));
    if (!sp->data)
        return npk_fail(m, NPK_ERR_UNSUPPORTED, "%s: %s cannot be written", m->target->name,
                        space);
    memcpy(sp->data + addr, buf, n);
    return written(m, NPK_OK);
}

const void *npk_space_data(npk_machine *m, const char *space, uint64_t *size)
{
    size_t idx = 0;
    npk_memspace *sp = NULL;
    if (find_space(m, space, &idx, &sp) != NPK_OK)
        return NULL;
    if (!sp->data) {
        npk_fail(m, NPK_ERR_UNSUPPORTED, "%s: %s is not kept as one block of bytes (read it "
                 "with npk_mem_read)", m->target->name, sp->info.name);
        return NULL;
    }
    if (size)
        *size = sp->info.size;
    return sp->data;
}

size_t npk_reg_count(const npk_machine *m)
{
    const npk_reg_info *list;
    return m->target->regs ? m->target->regs(m->state, &list) : 0;
}

int npk_reg_is_f32(const npk_machine *m, size_t i)
{
    return i >= m->target->f32_reg_first &&
           i - m->target->f32_reg_first < m->target->f32_reg_count;
}

const npk_reg_info *npk_reg(const npk_machine *m, size_t i)
{
    const npk_reg_info *list;
    size_t n = m->target->regs ? m->target->regs(m->state, &list) : 0;
    return i < n ? &list[i] : NULL;
}

static npk_status find_reg(npk_machine *m, const char *name, size_t *idx)
{
    const npk_reg_info *list;
    size_t n = m->target->regs ? m->target->regs(m->state, &list) : 0;
    size_t h = m->reg_hint < n ? m->reg_hint : 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = h + k < n ? h + k : h + k - n;
        if (strcasecmp(list[i].name, name) == 0) {
            *idx = i;
            m->reg_hint = i + 1;
            return NPK_OK;
        }
    }
    for (const char *const *a = m->target->reg_aliases; a && a[0]; a += 2)
        if (strcasecmp(a[0], name) == 0)
            return find_reg(m, a[1], idx);
    return npk_fail(m, NPK_ERR_ARG, "%s: no register '%s'", m->target->name, name);
}

static const npk_reg_info *reg_info(const npk_machine *m, size_t i)
{
    const npk_reg_info *list;
    m->target->regs(m->state, &list);
    return &list[i];
}

static npk_status check_writable(npk_machine *m, const npk_reg_info *r)
{
    if (r->flags & NPK_REG_READONLY)
        return npk_fail(m, NPK_ERR_UNSUPPORTED,
                        "%s: %s is read-only: the program's state cannot be set through it",
                        m->target->name, r->name);
    return NPK_OK;
}

npk_status npk_reg_read(npk_machine *m, const char *name, uint64_t *value)
{
    size_t i = 0;
    npk_status st = find_reg(m, name, &i);
    if (st != NPK_OK)
        return st;
    const npk_reg_info *r = reg_info(m, i);
    if (r->bits > 64)
        return npk_fail(m, NPK_ERR_RANGE,
                        "%s: %s is %u bits wide; read it with npk_reg_read_bytes",
                        m->target->name, r->name, r->bits);
    return m->target->reg_read(m, m->state, i, value);
}

npk_status npk_reg_write(npk_machine *m, const char *name, uint64_t value)
{
    size_t i = 0;
    npk_status st = find_reg(m, name, &i);
    if (st != NPK_OK)
        return st;
    const npk_reg_info *r = reg_info(m, i);
    if (r->bits > 64)
        return npk_fail(m, NPK_ERR_RANGE,
                        "%s: %s is %u bits wide; write it with npk_reg_write_bytes",
                        m->target->name, r->name, r->bits);
    if ((st = check_writable(m, r)) != NPK_OK)
        return st;
    if (r->bits < 64 && value >> r->bits)
        return npk_fail(m, NPK_ERR_RANGE, "%s: %s is %u bits wide; 0x%llx does not fit",
                        m->target->name, r->name, r->bits, (unsigned long long)value);
    return written(m, m->target->reg_write(m, m->state, i, value));
}

static npk_status reg_bytes(npk_machine *m, const char *name, size_t n, size_t *i,
                            const npk_reg_info **r)
{
    npk_status st = find_reg(m, name, i);
    if (st != NPK_OK)
        return st;
    *r = reg_info(m, *i);
    size_t want = ((size_t)(*r)->bits + 7) / 8;
    if (n != want)
        return npk_fail(m, NPK_ERR_ARG, "%s: %s is %u bits wide: %zu bytes, not %zu",
                        m->target->name, (*r)->name, (*r)->bits, want, n);
    return NPK_OK;
}

npk_status npk_reg_read_bytes(npk_machine *m, const char *name, void *buf, size_t n)
{
    size_t i = 0;
    const npk_reg_info *r = NULL;
    npk_status st = reg_bytes(m, name, n, &i, &r);
    if (st != NPK_OK)
        return st;
    uint8_t *out = buf;
    if (r->bits > 64) {
        if (!m->target->reg_read_bytes)
            return npk_fail(m, NPK_ERR_UNSUPPORTED, "%s: %s cannot be read", m->target->name,
                            r->name);
        return m->target->reg_read_bytes(m, m->state, i, out);
    }
    uint64_t v = 0;
    if ((st = m->target->reg_read(m, m->state, i, &v)) != NPK_OK)
        return st;
    for (size_t k = 0; k < n; k++)
        out[k] = (uint8_t)(v >> 8 * k);
    return NPK_OK;
}

npk_status npk_reg_write_bytes(npk_machine *m, const char *name, const void *buf, size_t n)
{
    size_t i = 0;
    const npk_reg_info *r = NULL;
    npk_status st = reg_bytes(m, name, n, &i, &r);
    if (st != NPK_OK)
        return st;
    if ((st = check_writable(m, r)) != NPK_OK)
        return st;
    const uint8_t *in = buf;
    if (r->bits % 8 && in[n - 1] >> r->bits % 8)
        return npk_fail(m, NPK_ERR_RANGE,
                        "%s: %s is %u bits wide; byte %zu (0x%02x) sets bits above it",
                        m->target->name, r->name, r->bits, n - 1, in[n - 1]);
    if (r->bits > 64) {
        if (!m->target->reg_write_bytes)
            return npk_fail(m, NPK_ERR_UNSUPPORTED, "%s: %s cannot be written",
                            m->target->name, r->name);
        return written(m, m->target->reg_write_bytes(m, m->state, i, in));
    }
    uint64_t v = 0;
    for (size_t k = 0; k < n; k++)
        v |= (uint64_t)in[k] << 8 * k;
    return written(m, m->target->reg_write(m, m->state, i, v));
}

size_t npk_insn_bytes(const npk_machine *m)
{
    return m->target->insn_bytes;
}

int npk_insn_describe(const npk_machine *m, char *out, size_t n)
{
    if (m->target->insn_note)
        return m->target->insn_note(m->state, out, n);
    return snprintf(out, n, "%u bytes (%u bits)", m->target->insn_bytes,
                    8 * m->target->insn_bytes);
}

unsigned npk_addr_bits(const npk_machine *m)
{
    return m->target->addr_bits ? m->target->addr_bits : 64;
}

npk_status npk_disasm_text(npk_machine *m, const void *bytes, size_t n, const char *name,
                           FILE *out)
{
    m->error[0] = '\0';
    if (!m->target->disasm_text)
        return npk_fail(m, NPK_ERR_UNSUPPORTED, "%s: programs are word images: use npk_disasm",
                        m->target->name);
    return m->target->disasm_text(m, m->state, bytes, n, name ? name : "<input>", out);
}

npk_status npk_disasm(npk_machine *m, const void *bytes, uint64_t pc, char *out, size_t n)
{
    if (!m->target->disasm)
        return npk_fail(m, NPK_ERR_UNSUPPORTED, "%s: no disassembler", m->target->name);
    /* a pc the target cannot hold would be shown, and pc-relative targets computed, in an
     * address space the program cannot have */
    const npk_target *t = m->target;
    unsigned bits = npk_addr_bits(m);
    if (!npk_range_in_bits(pc, t->insn_bytes, bits))
        return npk_fail(m, NPK_ERR_RANGE,
                        "%s: a %u-byte word at 0x%llx runs past the end of the %u-bit address "
                        "space", t->name, t->insn_bytes, (unsigned long long)pc, bits);
    return t->disasm(m, m->state, bytes, pc, out, n);
}

/* ---- observers --------------------------------------------------------------------------- */

npk_status npk_trace_text(npk_machine *m, FILE *f)
{
    /* the retire path does not check each line; a failed write shows when the sink is
     * replaced or turned off */
    FILE *old = m->obs.trace;
    m->obs.trace = f;
    npk_obs_update_active(&m->obs);
    return old ? npk_obs_flush(m, old, "trace") : NPK_OK;
}

npk_status npk_stats_enable(npk_machine *m, int on)
{
    m->obs.stats = on != 0;
    npk_obs_update_active(&m->obs);
    return NPK_OK;
}

npk_status npk_timeline_open(npk_machine *m, const char *path)
{
    if (m->obs.timeline)
        npk_timeline_close(m);
    /* "-" is standard output, as everywhere in npukit */
    int to_stdout = strcmp(path, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(path, "w");
    if (!f)
        return npk_fail(m, NPK_ERR_IO, "%s: cannot write timeline: %s", path, strerror(errno));
    const npk_target *t = m->target;
    m->obs.timeline = npk_timeline_create(f, to_stdout ? "standard output" : path,
                                          t->tracks ? t->tracks : t->units,
                                          t->tracks ? t->n_tracks : t->n_units, t->name);
    if (!m->obs.timeline) {
        if (!to_stdout)
            fclose(f);
        return npk_fail(m, NPK_ERR_NOMEM, "out of memory");
    }
    npk_obs_update_active(&m->obs);
    return NPK_OK;
}

npk_status npk_timeline_close(npk_machine *m)
{
    char path[512];
    int e = npk_timeline_finish(m->obs.timeline, path, sizeof path);
    m->obs.timeline = NULL;
    npk_obs_update_active(&m->obs);
    return e ? npk_fail(m, NPK_ERR_IO, "%s: write error: %s", path, strerror(e)) : NPK_OK;
}

npk_status npk_stats_get(npk_machine *m, npk_stats *s)
{
    const npk_target *t = m->target;
    memset(s, 0, sizeof *s);
    s->insns = m->obs.insns;
    s->cycles = m->obs.cycles;
    s->n_mnemonics = t->n_mnemonics;
    s->mnemonic = t->mnemonics;
    s->count = m->obs.count;
    s->n_units = t->n_units;
    s->unit = t->units;
    s->busy = m->obs.busy;
    s->n_extra = t->n_extras;
    s->extra_name = t->extras;
    s->extra = m->obs.extra;
    return NPK_OK;
}

npk_status npk_stats_print(npk_machine *m, FILE *f)
{
    npk_stats s;
    npk_stats_get(m, &s);
    fprintf(f, "npukit: stats for %s (%s)\n", m->target->name, m->config);
    fprintf(f, "  instructions  %llu\n", (unsigned long long)s.insns);
    fprintf(f, "  cycles        %llu", (unsigned long long)s.cycles);
    char note[200];
    if (m->target->cycles_note) {
        if (m->target->cycles_note(m->state, &s, note, sizeof note) > 0)
            fprintf(f, "  (%s)", note);
    } else if (s.insns && s.cycles) {
        fprintf(f, "  (CPI %.3f)", (double)s.cycles / (double)s.insns);
    }
    fprintf(f, "\n  mix:\n");
    for (size_t i = 0; i < s.n_mnemonics; i++)
        if (s.count[i])
            fprintf(f, "    %-16s %12llu  %5.1f%%\n", s.mnemonic[i],
                    (unsigned long long)s.count[i], 100.0 * (double)s.count[i] / (double)s.insns);
    if (s.n_units) {
        fprintf(f, "  unit busy cycles:\n");
        for (size_t i = 0; i < s.n_units; i++)
            fprintf(f, "    %-16s %12llu  %5.1f%%\n", s.unit[i], (unsigned long long)s.busy[i],
                    s.cycles ? 100.0 * (double)s.busy[i] / (double)s.cycles : 0.0);
    }
    for (size_t i = 0; i < s.n_extra; i++)
        fprintf(f, "  %-14s %llu\n", s.extra_name[i], (unsigned long long)s.extra[i]);
    return npk_obs_flush(m, f, "statistics");
}

static void json_key(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20) /* a stop message may hold a newline */
            fprintf(f, "\\u%04x", c);
        else if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

npk_status npk_stats_json(npk_machine *m, FILE *f)
{
    return npk_stats_json_stop(m, NULL, f);
}

npk_status npk_stats_json_stop(npk_machine *m, const npk_stop *stop, FILE *f)
{
    static const char *const reasons[] = {"none", "exit", "budget", "fault", "breakpoint",
                                          "watchpoint"};
    npk_stats s;
    npk_stats_get(m, &s);
    fprintf(f, "{\"target\":");
    json_key(f, m->target->name);
    fprintf(f, ",\"config\":");
    json_key(f, m->config);
    if (stop) {
        unsigned r = (unsigned)stop->reason;
        fprintf(f, ",\"stop\":{\"reason\":\"%s\"", r < 6 ? reasons[r] : "none");
        if (stop->reason == NPK_STOP_EXIT)
            fprintf(f, ",\"exit_code\":%lld", (long long)stop->exit_code);
        fprintf(f, ",\"pc\":%llu,\"message\":", (unsigned long long)stop->pc);
        json_key(f, stop->message);
        fprintf(f, "}");
    }
    fprintf(f, ",\"instructions\":%llu,\"cycles\":%llu,\"mnemonics\":{",
            (unsigned long long)s.insns, (unsigned long long)s.cycles);
    int first = 1;
    for (size_t i = 0; i < s.n_mnemonics; i++) {
        if (!s.count[i])
            continue;
        fprintf(f, "%s", first ? "" : ",");
        json_key(f, s.mnemonic[i]);
        fprintf(f, ":%llu", (unsigned long long)s.count[i]);
        first = 0;
    }
    fprintf(f, "},\"unit_busy\":{");
    for (size_t i = 0; i < s.n_units; i++) {
        fprintf(f, "%s", i ? "," : "");
        json_key(f, s.unit[i]);
        fprintf(f, ":%llu", (unsigned long long)s.busy[i]);
    }
    fprintf(f, "},\"counters\":{");
    for (size_t i = 0; i < s.n_extra; i++) {
        fprintf(f, "%s", i ? "," : "");
        json_key(f, s.extra_name[i]);
        fprintf(f, ":%llu", (unsigned long long)s.extra[i]);
    }
    fprintf(f, "}}\n");
    return npk_obs_flush(m, f, "statistics");
}
