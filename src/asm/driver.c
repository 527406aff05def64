/* The line-based driver: files and .include, comments, labels, directive dispatch, the
 * statement hook, passes until every symbol settles, output spaces, listings and results. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "asm/internal.h"
#include "core/file.h"

#define MAX_PASSES 8
#define DEFAULT_LIMIT ((uint64_t)16 << 20)

struct npk_asm_result {
    unsigned errors, warnings;
    char *diag;
    size_t n_spaces;
    struct res_space {
        char *name;
        uint64_t base;
        uint8_t *data;
        size_t size;
    } *spaces;
    size_t n_syms;
    struct res_sym {
        char *name;
        int64_t value;
        int kind;
    } *syms;
    size_t *by_name; /* indices of syms sorted by name */
};

/* ---- files -------------------------------------------------------------------------------- */

/* Lexical normalisation: drop "." components and fold "dir/.." pairs. */
static char *normalise(npk_asm *a, const char *path)
{
    size_t n = strlen(path);
    char *out = asm_alloc(a, n + 2);
    if (!out)
        return NULL;
    bool abs = path[0] == '/';
    size_t o = 0;
    const char *p = path;
    while (*p) {
        while (*p == '/')
            p++;
        const char *s = p;
        while (*p && *p != '/')
            p++;
        size_t len = (size_t)(p - s);
        if (len == 0 || (len == 1 && s[0] == '.'))
            continue;
        if (len == 2 && s[0] == '.' && s[1] == '.') {
            /* pop the last component unless it is itself ".." */
            size_t k = o;
            while (k > 0 && out[k - 1] != '/')
                k--;
            bool last_dotdot = o - k == 2 && out[k] == '.' && out[k + 1] == '.';
            if (o > 0 && !last_dotdot) {
                o = k > 0 ? k - 1 : 0;
                continue;
            }
            if (abs)
                continue; /* "/.." is "/" */
        }
        if (o > 0 || abs)
            out[o++] = '/';
        memcpy(out + o, s, len);
        o += len;
    }
    if (o == 0)
        out[o++] = abs ? '/' : '.';
    out[o] = '\0';
    return out;
}

char *asm_path_join(npk_asm *a, const char *base, const char *rel)
{
    if (rel[0] == '/' || !base)
        return normalise(a, rel);
    const char *slash = strrchr(base, '/');
    size_t dl = slash ? (size_t)(slash - base) + 1 : 0;
    size_t rl = strlen(rel);
    char *j = asm_alloc(a, dl + rl + 1);
    if (!j)
        return NULL;
    memcpy(j, base, dl);
    memcpy(j + dl, rel, rl + 1);
    char *n = normalise(a, j);
    free(j);
    return n;
}

static long add_file(npk_asm *a, char *path, char *key, char *text, size_t len)
{
    if (a->n_files == a->cap_files) {
        size_t cap = a->cap_files ? a->cap_files * 2 : 8;
        asm_file *f = asm_realloc(a, a->files, cap * sizeof *f);
        if (!f) {
            free(path), free(key), free(text);
            return -1;
        }
        a->files = f;
        a->cap_files = cap;
    }
    a->files[a->n_files] = (asm_file){path, key, text, len};
    return (long)a->n_files++;
}

long asm_load_file(npk_asm *a, const char *path, const char *at, size_t at_len)
{
    char *key = normalise(a, path);
    if (!key)
        return -1;
    for (size_t i = 0; i < a->n_files; i++)
        if (strcmp(a->files[i].key, key) == 0) {
            free(key);
            return (long)i;
        }
    char *text = NULL;
    size_t len = 0;
    if (!a->opts.read_file) {
        /* the reader every npukit input goes through: FIFOs, devices and size alike */
        char err[1200];
        uint8_t *data = NULL;
        if (npk_file_read(key, NPK_INPUT_MAX, &data, &len, err, sizeof err) != NPK_OK) {
            /* err is "KEY: reason" (or "KEY: cannot open: reason"); the message names the
             * path itself and says "cannot read" already */
            size_t kl = strlen(key);
            const char *why = strncmp(err, key, kl) == 0 && err[kl] == ':' ? err + kl + 2 : err;
            if (strncmp(why, "cannot open: ", 13) == 0)
                why += 13;
            npk_asm_error(a, at, at_len, "cannot read '%s': %s", path, why);
            free(key);
            return -1;
        }
        text = (char *)data;
    } else {
        errno = 0;
        if (a->opts.read_file(a->opts.read_ctx, key, &text, &len) != 0) {
            int e = errno;
            free(key);
            npk_asm_error(a, at, at_len, "cannot read '%s'%s%s", path, e ? ": " : "",
                          e ? strerror(e) : "");
            return -1;
        }
    }
    char *p = asm_strndup(a, path, strlen(path));
    if (!p) {
        free(key), free(text);
        return -1;
    }
    return add_file(a, p, key, text, len);
}

/* ---- lines --------------------------------------------------------------------------------- */

/* End of the code part of a line: the first comment character outside quotes. */
static const char *comment_start(const char *p, const char *end, const char *cc)
{
    while (p < end) {
        char ch = *p;
        if (ch == '"') {
            p++;
            while (p < end && *p != '"')
                p += *p == '\\' && p + 1 < end ? 2 : 1;
            if (p < end)
                p++;
            continue;
        }
        if (ch == '\'') {
            if (end - p >= 3 && p[1] != '\\' && p[2] == '\'') {
                p += 3;
                continue;
            }
            if (end - p >= 4 && p[1] == '\\' && p[3] == '\'') {
                p += 4;
                continue;
            }
        }
        if (ch && cc && strchr(cc, ch))
            return p;
        p++;
    }
    return end;
}

static const npk_asm_dir *find_dir(const npk_asm *a, const char *s, size_t n)
{
    for (size_t i = 0; i < a->t->n_dirs; i++)
        if (npk_eq_nocase(s, n, a->t->dirs[i].name))
            return &a->t->dirs[i];
    return NULL;
}

static void list_line(npk_asm *a, int space0, uint64_t pc0)
{
    npk_sbuf *b = &a->listing;
    asm_frame *f = a->frame;
    asm_space *s = &a->spaces[space0];
    uint64_t pc1 = (size_t)space0 == a->cur_space ? s->cur : pc0;
    unsigned wb = a->t->list_word_bytes ? a->t->list_word_bytes : 4;
    if (wb > 8)
        wb = 8;
    char col[64];
    size_t cl = 0;
    if (pc1 > pc0 && pc0 >= s->base && pc1 <= s->base + s->cap) {
        uint64_t n = pc1 - pc0, shown = 0;
        while (shown < n && shown < 2 * wb) {
            unsigned k = (unsigned)(n - shown < wb ? n - shown : wb);
            uint64_t v = 0;
            for (unsigned i = 0; i < k; i++)
                v |= (uint64_t)s->data[pc0 - s->base + shown + i] << (8 * i);
            cl += (size_t)snprintf(col + cl, sizeof col - cl, "%s%0*" PRIx64, shown ? " " : "",
                                   (int)(2 * k), v);
            shown += k;
        }
        if (shown < n)
            cl += (size_t)snprintf(col + cl, sizeof col - cl, " ...");
        npk_sbuf_printf(b, "%08" PRIx64 "  %-*s  ", pc0, (int)(4 * wb + 5), col);
    } else {
        npk_sbuf_printf(b, "%08" PRIx64 "  %-*s  ", pc0, (int)(4 * wb + 5), "");
    }
    npk_sbuf_printf(b, "%s:%u: ", a->files[f->file].path, f->line);
    npk_sbuf_add(b, f->line_start, (size_t)(f->line_end - f->line_start));
    npk_sbuf_add(b, "\n", 1);
}

static void process_line(npk_asm *a, const char *start, const char *end)
{
    const npk_asm_target *t = a->t;
    npk_cur c = {start, comment_start(start, end, t->comment_chars)};
    while (c.end > c.p && (c.end[-1] == ' ' || c.end[-1] == '\t' || c.end[-1] == '\r'))
        c.end--; /* "at end of line" points just after the last token */
    npk_cur_ws(&c);
    a->frame->stmt_start = c.p;
    int space0 = (int)a->cur_space;
    uint64_t pc0 = npk_asm_pc(a);

    /* labels: `name:` (any number) */
    for (;;) {
        npk_cur save = c;
        const char *s;
        size_t n = npk_cur_ident(&c, &s);
        if (!n || c.p >= c.end || *c.p != ':') {
            c = save;
            break;
        }
        c.p++;
        a->statements++;
        if (!(t->flags & NPK_ASM_LABELS))
            npk_asm_error(a, s, n + 1, "labels are not allowed in %s assembly",
                          t->name ? t->name : "this");
        else
            npk_asm_define(a, s, n, (int64_t)npk_asm_pc(a), NPK_SYM_LABEL, s);
        npk_cur_ws(&c);
        a->frame->stmt_start = c.p;
    }

    if (!npk_cur_eol(&c)) {
        int rc;
        a->statements++;
        if (*c.p == '.' && c.p + 1 < c.end && asm_is_ident_char((unsigned char)c.p[1])) {
            const char *s;
            size_t n = npk_cur_ident(&c, &s);
            const npk_asm_dir *d = find_dir(a, s, n);
            rc = d ? d->fn(a, &c, d)
                   : npk_asm_error(a, s, n, "unknown directive '%.*s'", (int)n, s);
        } else if (t->statement) {
            rc = t->statement(a, &c);
        } else {
            rc = npk_asm_error(a, c.p, 1, "expected a directive");
        }
        if (rc == 0)
            npk_asm_end(a, &c);
    }
    if (a->opts.listing)
        list_line(a, space0, pc0);
}

void asm_process_file(npk_asm *a, size_t file)
{
    asm_frame fr = {file, 0, NULL, NULL, NULL, a->frame};
    a->frame = &fr;
    a->depth++;
    const char *p = a->files[file].text, *end = p + a->files[file].len;
    while (p < end && !a->stopped) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *ce = le > p && le[-1] == '\r' ? le - 1 : le;
        fr.line++;
        fr.line_start = fr.stmt_start = p;
        fr.line_end = ce;
        /* the lexer and the targets' parsers treat NUL as the end of the text; reject it
         * here, where the length is known, instead of letting it cut the line short */
        const char *nul = ce > p ? memchr(p, '\0', (size_t)(ce - p)) : NULL;
        if (nul)
            npk_asm_error(a, nul, 1, "NUL byte in source");
        else
            process_line(a, p, ce);
        p = nl ? nl + 1 : end;
    }
    a->depth--;
    a->frame = fr.parent;
}

/* ---- spaces and output --------------------------------------------------------------------- */

int npk_asm_space_find(const npk_asm *a, const char *name)
{
    for (size_t i = 0; i < a->n_spaces; i++)
        if (strcmp(a->spaces[i].name, name) == 0)
            return (int)i;
    return -1;
}

int npk_asm_space_select(npk_asm *a, int space)
{
    int prev = (int)a->cur_space;
    if (space >= 0 && (size_t)space < a->n_spaces)
        a->cur_space = (size_t)space;
    return prev;
}

int npk_asm_space_current(const npk_asm *a)
{
    return (int)a->cur_space;
}

uint64_t npk_asm_pc(const npk_asm *a)
{
    return a->n_spaces ? a->spaces[a->cur_space].cur : 0;
}

static int out_of_space(npk_asm *a, const asm_space *s, uint64_t addr)
{
    return npk_asm_error(a, NULL, 0,
                         "address 0x%" PRIx64 " is outside '%s' (0x%" PRIx64 "..0x%" PRIx64 ")",
                         addr, s->name, s->base, s->base + s->limit - 1);
}

/* Output that runs past the end of a space: said once per pass, with the limit, because
 * every later statement of a long program would otherwise be one more error of its own. */
static int overflow(npk_asm *a, asm_space *s, uint64_t addr)
{
    if (s->overflowed)
        return -1;
    s->overflowed = true;
    char size[64];
    if (s->limit % (1u << 30) == 0)
        snprintf(size, sizeof size, "%" PRIu64 " GiB", s->limit >> 30);
    else if (s->limit % (1u << 20) == 0)
        snprintf(size, sizeof size, "%" PRIu64 " MiB", s->limit >> 20);
    else
        snprintf(size, sizeof size, "%" PRIu64 " bytes", s->limit);
    const char *hint = a->n_spaces && s == &a->spaces[0] ? a->opts.space0_hint : NULL;
    return npk_asm_error(a, NULL, 0,
                         "address 0x%" PRIx64 " is outside '%s' (0x%" PRIx64 "..0x%" PRIx64
                         "): the output is larger than the %s the space holds%s%s (output "
                         "past the end is reported only here)",
                         addr, s->name, s->base, s->base + s->limit - 1, size,
                         hint ? "; " : "", hint ? hint : "");
}

int npk_asm_set_pc(npk_asm *a, uint64_t addr)
{
    asm_space *s = &a->spaces[a->cur_space];
    if (addr < s->base || addr - s->base > s->limit)
        return out_of_space(a, s, addr);
    s->cur = addr;
    if (addr > s->hi)
        s->hi = addr;
    return 0;
}

/* Make [addr, addr+n) addressable; errors when it leaves the space. */
static int reserve(npk_asm *a, asm_space *s, uint64_t addr, uint64_t n)
{
    if (addr < s->base)
        return out_of_space(a, s, addr);
    if (addr - s->base > s->limit)
        return overflow(a, s, addr);
    if (n > s->limit - (addr - s->base))
        return overflow(a, s, s->base + s->limit);
    uint64_t need = addr - s->base + n;
    if (need <= s->cap)
        return 0;
    uint64_t cap = s->cap ? s->cap : 4096;
    while (cap < need)
        cap *= 2;
    if (cap > s->limit)
        cap = s->limit;
    uint8_t *d = asm_realloc(a, s->data, (size_t)cap);
    if (!d)
        return -1;
    s->data = d;
    uint8_t *w = asm_realloc(a, s->written, (size_t)cap);
    if (!w)
        return -1;
    s->written = w;
    memset(d + s->cap, 0, (size_t)(cap - s->cap));
    memset(w + s->cap, 0, (size_t)(cap - s->cap));
    s->cap = (size_t)cap;
    return 0;
}

static void advance(asm_space *s, uint64_t n)
{
    s->cur = n > UINT64_MAX - s->cur ? UINT64_MAX : s->cur + n;
    if (s->cur > s->hi && s->cur - s->base <= s->limit)
        s->hi = s->cur;
}

/* Common emitter: bytes (or a fill byte when bytes is NULL). */
static int emit(npk_asm *a, const uint8_t *bytes, uint8_t fill, uint64_t n)
{
    asm_space *s = &a->spaces[a->cur_space];
    uint64_t addr = s->cur;
    if (n == 0)
        return 0;
    if (reserve(a, s, addr, n)) {
        advance(s, n);
        return -1;
    }
    size_t off = (size_t)(addr - s->base);
    /* written[] holds 0 or 1: the first byte already written, in one library scan (a large
     * .align, .zero or .fill is one call) */
    const uint8_t *hit = memchr(s->written + off, 1, (size_t)n);
    if (hit) {
        advance(s, n);
        return npk_asm_error(a, NULL, 0, "output overlaps earlier output at 0x%" PRIx64,
                             addr + (uint64_t)(hit - (s->written + off)));
    }
    if (bytes)
        memcpy(s->data + off, bytes, (size_t)n);
    else
        memset(s->data + off, fill, (size_t)n);
    memset(s->written + off, 1, (size_t)n);
    advance(s, n);
    return 0;
}

int npk_asm_emit(npk_asm *a, const void *bytes, size_t n)
{
    return emit(a, bytes, 0, n);
}

int npk_asm_emit_le(npk_asm *a, uint64_t v, unsigned nbytes)
{
    uint8_t b[8];
    if (nbytes > 8)
        nbytes = 8;
    for (unsigned i = 0; i < nbytes; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    return emit(a, b, 0, nbytes);
}

int npk_asm_emit_bits(npk_asm *a, const uint64_t *w, size_t nw, unsigned nbytes)
{
    uint8_t buf[64];
    uint8_t *b = nbytes <= sizeof buf ? buf : asm_alloc(a, nbytes);
    if (!b)
        return -1;
    npk_bits_to_bytes(w, nw, b, nbytes);
    int rc = emit(a, b, 0, nbytes);
    if (b != buf)
        free(b);
    return rc;
}

int npk_asm_emit_fill(npk_asm *a, uint8_t byte, uint64_t n)
{
    return emit(a, NULL, byte, n);
}

/* ---- context ------------------------------------------------------------------------------ */

void *npk_asm_user(const npk_asm *a)
{
    return a->user;
}

const npk_asm_target *npk_asm_target_of(const npk_asm *a)
{
    return a->t;
}

unsigned npk_asm_pass(const npk_asm *a)
{
    return a->pass;
}

const char *npk_asm_file(const npk_asm *a)
{
    return a->frame ? a->files[a->frame->file].path : a->main_name;
}

unsigned npk_asm_line(const npk_asm *a)
{
    return a->frame ? a->frame->line : 0;
}

static void begin_pass(npk_asm *a)
{
    for (size_t i = 0; i < a->n_spaces; i++) {
        asm_space *s = &a->spaces[i];
        if (s->cap) {
            memset(s->data, 0, s->cap);
            memset(s->written, 0, s->cap);
        }
        s->cur = s->hi = s->base;
        s->overflowed = false;
    }
    a->cur_space = 0;
    a->diag.len = 0;
    if (a->diag.s)
        a->diag.s[0] = '\0';
    a->listing.len = 0;
    a->errors = a->warnings = a->unresolved = 0;
    a->statements = 0;
    a->stopped = a->oom;
    a->frame = NULL;
    a->depth = 0;
}

static void free_ctx(npk_asm *a)
{
    for (size_t i = 0; i < a->n_files; i++) {
        free(a->files[i].path);
        free(a->files[i].key);
        free(a->files[i].text);
    }
    free(a->files);
    for (size_t i = 0; i < a->n_spaces; i++) {
        free(a->spaces[i].name);
        free(a->spaces[i].data);
        free(a->spaces[i].written);
    }
    free(a->spaces);
    asm_syms_free(a);
    npk_sbuf_free(&a->diag);
    npk_sbuf_free(&a->listing);
    npk_sbuf_free(&a->scratch);
    free(a);
}

/* Merge sort of symbol indices by name (qsort would need global state for the names). */
static void sort_by_name(const struct res_sym *syms, size_t *idx, size_t *tmp, size_t n)
{
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = strcmp(syms[idx[j]].name, syms[idx[i]].name) < 0 ? idx[j++] : idx[i++];
            while (i < mid)
                tmp[k++] = idx[i++];
            while (j < hi)
                tmp[k++] = idx[j++];
        }
        memcpy(idx, tmp, n * sizeof *idx);
    }
}

static npk_asm_result *make_result(npk_asm *a)
{
    npk_asm_result *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->errors = a->errors;
    r->warnings = a->warnings;
    r->diag = a->diag.s ? a->diag.s : NULL;
    a->diag.s = NULL;
    a->diag.len = a->diag.cap = 0;
    if (!r->diag && (r->diag = malloc(1)) != NULL)
        r->diag[0] = '\0';
    r->spaces = calloc(a->n_spaces ? a->n_spaces : 1, sizeof *r->spaces);
    size_t nsym = 0;
    for (size_t i = 0; i < a->n_syms; i++)
        if (a->syms[i]->def_pass == a->pass && a->syms[i]->state == SYM_DEFINED)
            nsym++;
    r->syms = calloc(nsym ? nsym : 1, sizeof *r->syms);
    r->by_name = calloc(nsym ? nsym : 1, sizeof *r->by_name);
    if (!r->diag || !r->spaces || !r->syms || !r->by_name) {
        npk_asm_result_free(r);
        return NULL;
    }
    for (size_t i = 0; i < a->n_spaces; i++) {
        asm_space *s = &a->spaces[i];
        struct res_space *o = &r->spaces[r->n_spaces++];
        o->name = s->name;
        s->name = NULL;
        o->base = s->base;
        o->size = (size_t)(s->hi - s->base);
        if (o->size > s->cap) { /* .org past the data: zero fill */
            uint8_t *d = realloc(s->data, o->size);
            if (!d) {
                npk_asm_result_free(r);
                return NULL;
            }
            memset(d + s->cap, 0, o->size - s->cap);
            s->data = d;
            s->cap = o->size;
        }
        o->data = s->data;
        s->data = NULL;
    }
    for (size_t i = 0; i < a->n_syms; i++) {
        asm_sym *s = a->syms[i];
        if (s->def_pass != a->pass || s->state != SYM_DEFINED)
            continue;
        struct res_sym *o = &r->syms[r->n_syms];
        o->name = s->name;
        s->name = NULL;
        o->value = s->value;
        o->kind = s->kind;
        r->by_name[r->n_syms] = r->n_syms;
        r->n_syms++;
    }
    size_t *tmp = malloc((r->n_syms ? r->n_syms : 1) * sizeof *tmp);
    if (!tmp) {
        npk_asm_result_free(r);
        return NULL;
    }
    sort_by_name(r->syms, r->by_name, tmp, r->n_syms);
    free(tmp);
    return r;
}

static npk_asm_result *run(const npk_asm_target *t, void *user, const char *source, size_t len,
                           const char *name, const npk_asm_opts *opts)
{
    npk_asm *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->t = t;
    a->user = user;
    if (opts)
        a->opts = *opts;
    a->main_name = name ? name : "<input>";

    npk_asm_space_def def = {"mem", 0, 0};
    const npk_asm_space_def *sd = t->n_spaces ? t->spaces : &def;
    size_t nsd = t->n_spaces ? t->n_spaces : 1;
    a->spaces = asm_alloc(a, nsd * sizeof *a->spaces);
    for (size_t i = 0; a->spaces && i < nsd; i++) {
        asm_space *s = &a->spaces[a->n_spaces++];
        s->name = asm_strndup(a, sd[i].name, strlen(sd[i].name));
        s->base = sd[i].base;
        s->limit = sd[i].limit ? sd[i].limit : DEFAULT_LIMIT;
        if (i == 0 && a->opts.space0_limit)
            s->limit = a->opts.space0_limit;
        if (s->limit > SIZE_MAX / 2)
            s->limit = SIZE_MAX / 2;
        s->cur = s->hi = s->base;
    }

    long main_file = -1;
    if (!a->oom) {
        if (source) {
            char *p = asm_strndup(a, a->main_name, strlen(a->main_name));
            char *k = normalise(a, a->main_name);
            char *txt = asm_strndup(a, source, len);
            if (p && k && txt)
                main_file = add_file(a, p, k, txt, len);
            else
                free(p), free(k), free(txt);
        } else {
            main_file = asm_load_file(a, a->main_name, NULL, 0);
        }
    }

    unsigned prev = UINT_MAX;
    for (a->pass = 1; !a->oom; a->pass++) {
        if (main_file < 0)
            break; /* keep the "cannot read" error of the load */
        begin_pass(a);
        if (t->begin_pass)
            t->begin_pass(a);
        asm_process_file(a, (size_t)main_file);
        a->frame = NULL;
        if (!a->stopped && t->end_pass)
            t->end_pass(a);
        if (a->unresolved == 0 || a->unresolved >= prev || a->pass >= MAX_PASSES)
            break;
        prev = a->unresolved;
    }
    npk_asm_result *r = NULL;
    if (!a->oom && !a->diag.oom && !a->listing.oom) {
        if (a->opts.diag && a->diag.len)
            fwrite(a->diag.s, 1, a->diag.len, a->opts.diag);
        if (a->opts.listing && a->listing.len)
            fwrite(a->listing.s, 1, a->listing.len, a->opts.listing);
        r = make_result(a);
    }
    free_ctx(a);
    return r;
}

npk_asm_result *npk_asm_run(const npk_asm_target *t, void *user, const char *source,
                            size_t len, const char *name, const npk_asm_opts *opts)
{
    if (!t)
        return NULL;
    if (!source)
        source = "", len = 0;
    return run(t, user, source, len, name, opts);
}

npk_asm_result *npk_asm_run_file(const npk_asm_target *t, void *user, const char *path,
                                 const npk_asm_opts *opts)
{
    if (!t || !path)
        return NULL;
    return run(t, user, NULL, 0, path, opts);
}

/* ---- results ------------------------------------------------------------------------------- */

unsigned npk_asm_result_errors(const npk_asm_result *r)
{
    return r ? r->errors : 1;
}

unsigned npk_asm_result_warnings(const npk_asm_result *r)
{
    return r ? r->warnings : 0;
}

const char *npk_asm_result_diag(const npk_asm_result *r)
{
    return r && r->diag ? r->diag : "";
}

size_t npk_asm_result_spaces(const npk_asm_result *r)
{
    return r ? r->n_spaces : 0;
}

const uint8_t *npk_asm_result_image(const npk_asm_result *r, size_t i, size_t *size,
                                    uint64_t *base, const char **name)
{
    if (!r || i >= r->n_spaces) {
        if (size)
            *size = 0;
        return NULL;
    }
    if (size)
        *size = r->spaces[i].size;
    if (base)
        *base = r->spaces[i].base;
    if (name)
        *name = r->spaces[i].name;
    return r->spaces[i].data;
}

size_t npk_asm_result_symbols(const npk_asm_result *r)
{
    return r ? r->n_syms : 0;
}

const char *npk_asm_result_symbol(const npk_asm_result *r, size_t i, int64_t *value, int *kind)
{
    if (!r || i >= r->n_syms)
        return NULL;
    if (value)
        *value = r->syms[i].value;
    if (kind)
        *kind = r->syms[i].kind;
    return r->syms[i].name;
}

bool npk_asm_result_lookup(const npk_asm_result *r, const char *name, int64_t *value)
{
    if (!r || !name)
        return false;
    size_t lo = 0, hi = r->n_syms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct res_sym *s = &r->syms[r->by_name[mid]];
        int c = strcmp(s->name, name);
        if (c == 0) {
            if (value)
                *value = s->value;
            return true;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

const char *npk_asm_result_label_at(const npk_asm_result *r, int64_t addr)
{
    for (size_t i = 0; r && i < r->n_syms; i++)
        if (r->syms[i].kind == NPK_SYM_LABEL && r->syms[i].value == addr)
            return r->syms[i].name;
    return NULL;
}

void npk_asm_result_free(npk_asm_result *r)
{
    if (!r)
        return;
    free(r->diag);
    for (size_t i = 0; i < r->n_spaces; i++) {
        free(r->spaces[i].name);
        free(r->spaces[i].data);
    }
    free(r->spaces);
    for (size_t i = 0; i < r->n_syms; i++)
        free(r->syms[i].name);
    free(r->syms);
    free(r->by_name);
    free(r);
}

int npk_asm_result_check(npk_asm_result *r, const char *name, FILE *diag, npk_asm_result **out)
{
    *out = NULL;
    if (!r) {
        if (diag)
            fprintf(diag, "%s: error: out of memory\n", name ? name : "<input>");
        return 1;
    }
    unsigned e = npk_asm_result_errors(r);
    if (e) {
        npk_asm_result_free(r);
        return (int)e;
    }
    *out = r;
    return 0;
}
