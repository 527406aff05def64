/* tinytpu control words: the program model's storage, the packed formats of fields.def (w88,
 * w94, w130 and the N-lane full-port word, spec B3-B5), the read-issue rule (A7.8) and the two
 * line formats that carry words as text: hex word files (B7.1) and the port stream (B7.2). */
#define _POSIX_C_SOURCE 200809L /* read, lseek */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__SSE2__) && defined(__x86_64__)
#include <immintrin.h> /* the canonical port-line scanner: SSE2 (the x86-64 baseline), AVX2 */
#define TT_SCAN_X86 1
#endif

#include "asm/asm.h"
#include "targets/tinytpu/tinytpu.h"

const char *const tt_format_names[TT_N_FORMATS] = {"w88", "w94", "w130", "wfull", "port", "asm"};

const char *const tt_channel_names[TT_N_CHANNELS] = {
#define TT_CHAN(sel, name, feeds) [sel] = name,
#include "targets/tinytpu/fields.def"
};

const tt_field_info tt_fields[TT_N_FIELDS] = {
#define TT_FIELD(id, name, port, lanes, l88, w88, l94, w94, l130, w130, meaning)                   \
    [TT_F_##id] = {name, port, lanes, {l88, l94, l130}, {w88, w94, w130}, meaning},
#include "targets/tinytpu/fields.def"
};

static const unsigned fixed_bits[3] = {
#define TT_FORMAT(id, name, bits) [TT_FMT_##id] = bits,
#include "targets/tinytpu/fields.def"
};

int tt_format_find(const char *name)
{
    for (int f = 0; f < TT_N_FORMATS; f++)
        if (name && strcmp(name, tt_format_names[f]) == 0)
            return f;
    return -1;
}

/* ---- program storage ------------------------------------------------------------------------- */

void tt_program_init(tt_program *p, unsigned N)
{
    memset(p, 0, sizeof *p);
    p->N = N;
}

void tt_program_free(tt_program *p)
{
    free(p->c);
    free(p->hw);
    unsigned N = p->N;
    tt_program_init(p, N);
}

/* Room for `more` elements of `size` bytes after the n in *buf (*cap of them): 0, or -1. */
static int grow(void **buf, size_t *cap, size_t n, size_t more, size_t size)
{
    if (*cap - n >= more)
        return 0;
    size_t c = *cap ? *cap : 64;
    while (c - n < more)
        c *= 2;
    void *b = realloc(*buf, c * size);
    if (!b)
        return -1;
    *buf = b;
    *cap = c;
    return 0;
}

/* Room for nc more cycles and nhw more host writes in p: 0, or -1 (out of memory, or more
 * host writes than tt_cycle.host counts, which tt_program_add refuses). */
static int program_reserve(tt_program *p, size_t nc, size_t nhw)
{
    void *c = p->c, *h = p->hw;
    const int e = p->n_hw + nhw > UINT32_MAX || grow(&c, &p->cap, p->n, nc, sizeof *p->c) ||
                  grow(&h, &p->cap_hw, p->n_hw, nhw, sizeof *p->hw);
    p->c = c;
    p->hw = h;
    return e ? -1 : 0;
}

int tt_program_add(tt_program *p, const tt_cycle *c, const tt_hostw *hw, unsigned n_host)
{
    if (program_reserve(p, 1, n_host))
        return -1; /* out of memory, or tt_cycle.host's 32 bits (max_cycles keeps programs far
                    * below this) */
    tt_cycle *d = &p->c[p->n++];
    *d = *c;
    d->host = (uint32_t)p->n_hw;
    d->n_host = (uint16_t)n_host;
    if (n_host)
        memcpy(p->hw + p->n_hw, hw, n_host * sizeof *hw);
    p->n_hw += n_host;
    return 0;
}

static bool cycle_equal(const tt_program *pa, const tt_cycle *a, const tt_program *pb,
                        const tt_cycle *b)
{
    if (a->rst != b->rst || a->sw != b->sw || a->start != b->start || a->T != b->T ||
        a->pathway != b->pathway || a->sel != b->sel || a->addr != b->addr ||
        a->rows != b->rows || a->cols != b->cols || a->inv != b->inv || a->leak != b->leak ||
        a->lr != b->lr || a->n_host != b->n_host)
        return false;
    for (unsigned i = 0; i < a->n_host; i++) {
        const tt_hostw *x = &pa->hw[a->host + i], *y = &pb->hw[b->host + i];
        if (x->lane != y->lane || x->value != y->value)
            return false;
    }
    return true;
}

int tt_program_equal(const tt_program *a, const tt_program *b)
{
    if (a->N != b->N || a->n != b->n)
        return 0;
    for (size_t k = 0; k < a->n; k++)
        if (!cycle_equal(a, &a->c[k], b, &b->c[k]))
            return 0;
    return 1;
}

int tt_read_issues(const tt_cycle *prev, const tt_cycle *cur)
{
    if (!cur || cur->rst || !cur->start)
        return 0;
    if (!prev || prev->rst)
        return 1; /* F_prev = 0 and start_cur = 1 */
    return prev->start != cur->start || prev->sel != cur->sel || prev->T != cur->T ||
           prev->addr != cur->addr || prev->rows != cur->rows || prev->cols != cur->cols;
}

static const tt_hostw *hosts(const tt_program *p, const tt_cycle *c)
{
    return c->n_host ? p->hw + c->host : NULL;
}

/* ---- packed formats -------------------------------------------------------------------------- */

unsigned tt_format_bits(tt_format f, unsigned N)
{
    if (f <= TT_FMT_W130)
        return N == 2 ? fixed_bits[f] : 0;
    if (f == TT_FMT_WFULL)
        return N >= 2 && N <= TT_MAX_N ? 96 + 17 * N : 0;
    return 0;
}

int tt_field_pos(tt_format fmt, unsigned N, unsigned f, unsigned lane, unsigned *lsb,
                 unsigned *width)
{
    if (f >= TT_N_FIELDS || !tt_format_bits(fmt, N) || lane >= (tt_fields[f].lanes ? N : 1))
        return -1;
    if (fmt <= TT_FMT_W130) {
        *width = tt_fields[f].width[fmt];
        *lsb = tt_fields[f].lsb[fmt] + lane * *width;
        return 0;
    }
    /* wfull: the fields in order at their port widths (B5) */
    unsigned b = 0;
    for (unsigned g = 0; g < f; g++)
        b += tt_fields[g].port * (tt_fields[g].lanes ? N : 1);
    *width = tt_fields[f].port;
    *lsb = b + lane * *width;
    return 0;
}

/* The value of field f (lane `lane`) in cycle c; hv/hd are the per-lane host arrays. */
static uint64_t field_value(unsigned f, const tt_cycle *c, const uint8_t *hv, const uint16_t *hd,
                            unsigned lane)
{
    switch (f) {
    case TT_F_SW: return c->sw;
    case TT_F_START: return c->start;
    case TT_F_T: return c->T;
    case TT_F_HV: return hv[lane];
    case TT_F_COLS: return c->cols;
    case TT_F_ROWS: return c->rows;
    case TT_F_ADDR: return c->addr;
    case TT_F_SEL: return c->sel;
    case TT_F_HD: return hd[lane];
    case TT_F_PATHWAY: return c->pathway;
    case TT_F_INV: return c->inv;
    case TT_F_LEAK: return c->leak;
    default: return 0;
    }
}

/* Per-lane host arrays of a cycle; -1 with a message for a lane >= N or a lane given twice. */
static int host_lanes(unsigned N, const tt_cycle *c, const tt_hostw *hw, uint8_t *hv,
                      uint16_t *hd, char *err, size_t err_size)
{
    memset(hv, 0, N);
    memset(hd, 0, N * sizeof *hd);
    for (unsigned i = 0; i < c->n_host; i++) {
        unsigned l = hw[i].lane;
        if (l >= N) {
            snprintf(err, err_size, "host write on lane %u, but N = %u", l, N);
            return -1;
        }
        if (hv[l]) {
            snprintf(err, err_size, "two host writes on lane %u in one cycle", l);
            return -1;
        }
        hv[l] = 1;
        hd[l] = hw[i].value;
    }
    return 0;
}

int tt_encode(tt_format f, unsigned N, const tt_cycle *c, const tt_hostw *hw, tt_packed *out,
              char *err, size_t err_size)
{
    char none[1]; /* no message wanted */
    if (!err || !err_size)
        err = none, err_size = sizeof none;
    memset(out, 0, sizeof *out);
    if (!tt_format_bits(f, N)) {
        if (f <= TT_FMT_W130)
            snprintf(err, err_size, "%s words need N = 2 (N = %u; use wfull)", tt_format_names[f],
                     N);
        else
            snprintf(err, err_size, "%s is not a packed word format for N = %u",
                     f < TT_N_FORMATS ? tt_format_names[f] : "?", N);
        return -1;
    }
    uint8_t hv[TT_MAX_N];
    uint16_t hd[TT_MAX_N];
    if (host_lanes(N, c, hw, hv, hd, err, err_size))
        return -1;
    for (unsigned fi = 0; fi < TT_N_FIELDS; fi++) {
        const tt_field_info *fd = &tt_fields[fi];
        for (unsigned l = 0; l < (fd->lanes ? N : 1); l++) {
            unsigned lsb = 0, width = 0; /* set by tt_field_pos (its checks hold here) */
            tt_field_pos(f, N, fi, l, &lsb, &width);
            uint64_t v = field_value(fi, c, hv, hd, l);
            if (!npk_fits_u(v, width)) {
                snprintf(err, err_size, "%s %llu does not fit %s (0..%llu)", fd->name,
                         (unsigned long long)v, tt_format_names[f],
                         (unsigned long long)((UINT64_C(1) << width) - 1));
                return -1;
            }
            npk_bits_put(out->w, TT_WORD_U64, lsb, width, v);
        }
    }
    return 0;
}

void tt_decode(tt_format f, unsigned N, const tt_packed *in, tt_cycle *c, tt_hostw *hw,
               unsigned *n_host)
{
    memset(c, 0, sizeof *c);
    *n_host = 0;
    if (!tt_format_bits(f, N))
        return;
    uint64_t v[TT_N_FIELDS] = {0};
    for (unsigned fi = 0; fi < TT_N_FIELDS; fi++) {
        unsigned lsb = 0, width = 0; /* set by tt_field_pos (its checks hold here) */
        if (tt_fields[fi].lanes)
            continue;
        tt_field_pos(f, N, fi, 0, &lsb, &width);
        v[fi] = npk_bits_get(in->w, TT_WORD_U64, lsb, width);
    }
    c->sw = (uint8_t)v[TT_F_SW];
    c->start = (uint8_t)v[TT_F_START];
    c->T = (uint8_t)v[TT_F_T];
    c->cols = (uint16_t)v[TT_F_COLS];
    c->rows = (uint16_t)v[TT_F_ROWS];
    c->addr = (uint16_t)v[TT_F_ADDR];
    c->sel = (uint16_t)v[TT_F_SEL];
    c->pathway = (uint8_t)v[TT_F_PATHWAY];
    c->inv = (uint16_t)v[TT_F_INV];
    c->leak = (uint16_t)v[TT_F_LEAK];
    for (unsigned l = 0; l < N; l++) {
        unsigned lsb = 0, width = 0; /* set by tt_field_pos (its checks hold here) */
        tt_field_pos(f, N, TT_F_HV, l, &lsb, &width);
        if (!npk_bits_get(in->w, TT_WORD_U64, lsb, width))
            continue;
        tt_field_pos(f, N, TT_F_HD, l, &lsb, &width);
        hw[*n_host].lane = (uint16_t)l;
        hw[*n_host].value = (uint16_t)npk_bits_get(in->w, TT_WORD_U64, lsb, width);
        ++*n_host;
    }
    c->n_host = (uint16_t)*n_host;
}

/* ---- the port stream's columns --------------------------------------------------------------- */

enum { PORT_RST = TT_N_FIELDS, PORT_LR };
#define TT_F_RST PORT_RST
#define TT_F_LR PORT_LR

typedef struct port_col {
    const char *name;
    unsigned field, digits;
} port_col;

static const port_col port_cols[] = {
#define TT_PORT(name, field, digits) {name, TT_F_##field, digits},
#include "targets/tinytpu/fields.def"
};
#define N_PORT_COLS (sizeof port_cols / sizeof port_cols[0])
#define PORT_COLS_MAX (12 + 2 * TT_MAX_N) /* columns of a port-stream line at N = TT_MAX_N */
#define CANON_MAX 128 /* canonical port lines up to this long (N <= 12) go through the scanner */

static unsigned port_width(unsigned field)
{
    return field == PORT_RST ? 1 : field == PORT_LR ? 16 : tt_fields[field].port;
}

static uint64_t port_value(unsigned field, const tt_cycle *c, const uint8_t *hv,
                           const uint16_t *hd, unsigned lane)
{
    if (field == PORT_RST)
        return c->rst;
    return field == PORT_LR ? c->lr : field_value(field, c, hv, hd, lane);
}

static void port_header(unsigned N, char *buf, size_t size)
{
    size_t o = 0;
    for (size_t i = 0; i < N_PORT_COLS && o < size; i++) {
        bool lanes = port_cols[i].field < TT_N_FIELDS && tt_fields[port_cols[i].field].lanes;
        for (unsigned l = 0; l < (lanes ? N : 1) && o < size; l++)
            o += (size_t)snprintf(buf + o, size - o, lanes ? "%s%s%u" : "%s%s", i ? " " : "",
                                  port_cols[i].name, l);
    }
}

/* ---- writing --------------------------------------------------------------------------------- */

/* "cycle k (line L): " for messages about cycle index k. */
static int cycle_prefix(const tt_cycle *c, size_t k, char *buf, size_t n)
{
    if (c->line)
        return snprintf(buf, n, "cycle %zu (line %u): ", k + 1, (unsigned)c->line);
    return snprintf(buf, n, "cycle %zu: ", k + 1);
}

static int fail_at(const tt_cycle *c, size_t k, const char *msg, char *err, size_t err_size)
{
    if (err && err_size) {
        char pre[64];
        cycle_prefix(c, k, pre, sizeof pre);
        snprintf(err, err_size, "%s%s", pre, msg);
    }
    return -1;
}

static void upper(char *s)
{
    for (; *s; s++)
        if (*s >= 'a' && *s <= 'f')
            *s = (char)(*s - 'a' + 'A');
}

/* Cycle k of p as the text of one word of format f (hex digits, or the port stream's fields),
 * without a newline. -1 with msg when a field does not fit the format. */
#define CYCLE_TEXT_MAX 4096 /* > 1112 hex digits (wfull, N = 256), > 7 * 256 + 40 port chars */
static int cycle_word(const tt_program *p, size_t k, tt_format f, char *buf, size_t n,
                      char *msg, size_t mn)
{
    const unsigned N = p->N;
    const tt_cycle *c = &p->c[k];
    if (f <= TT_FMT_WFULL) {
        tt_packed w;
        /* a reset cycle's fields are ignored (A11) but kept, so the file reads back to the same
         * program; an all-zero word if they do not fit */
        if (tt_encode(f, N, c, hosts(p, c), &w, msg, mn)) {
            if (!c->rst)
                return -1;
            memset(&w, 0, sizeof w);
        }
        npk_bits_hex(w.w, TT_WORD_U64, tt_format_bits(f, N), buf, n);
        upper(buf);
        return 0;
    }
    uint8_t hv[TT_MAX_N];
    uint16_t hd[TT_MAX_N];
    if (host_lanes(N, c, hosts(p, c), hv, hd, msg, mn))
        return -1;
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < N_PORT_COLS; i++) {
        const port_col *pc = &port_cols[i];
        bool lanes = pc->field < TT_N_FIELDS && tt_fields[pc->field].lanes;
        for (unsigned l = 0; l < (lanes ? N : 1); l++) {
            uint64_t v = port_value(pc->field, c, hv, hd, l);
            if (!npk_fits_u(v, port_width(pc->field))) {
                snprintf(msg, mn, "%s %llu does not fit its %u-bit port", pc->name,
                         (unsigned long long)v, port_width(pc->field));
                return -1;
            }
            if (o < n)
                o += (size_t)snprintf(buf + o, n - o, "%s%0*llX", i || l ? " " : "",
                                      (int)pc->digits, (unsigned long long)v);
        }
    }
    return 0;
}

size_t tt_cycle_text_width(tt_format f, unsigned N)
{
    if (f <= TT_FMT_WFULL)
        return (tt_format_bits(f, N) + 3) / 4;
    size_t w = 0;
    for (size_t i = 0; i < N_PORT_COLS; i++) {
        bool lanes = port_cols[i].field < TT_N_FIELDS && tt_fields[port_cols[i].field].lanes;
        w += (lanes ? N : 1) * (port_cols[i].digits + 1);
    }
    return w - 1;
}

void tt_cycle_text(const tt_program *p, size_t k, tt_format f, int width, FILE *out)
{
    char buf[CYCLE_TEXT_MAX], msg[256];
    if (f > TT_FMT_PORT || (f <= TT_FMT_WFULL && !tt_format_bits(f, p->N)))
        fprintf(out, "%-*s", width, "-");
    else if (p->c[k].rst && f <= TT_FMT_WFULL)
        fprintf(out, "%-*s", width, "reset");
    else if (cycle_word(p, k, f, buf, sizeof buf, msg, sizeof msg))
        fprintf(out, "%-*s", width, "(does not fit)");
    else
        fprintf(out, "%-*s", width, buf);
}

static int write_hex(const tt_program *p, tt_format f, FILE *out, char *err, size_t err_size)
{
    const unsigned N = p->N, bits = tt_format_bits(f, N);
    if (!bits) {
        if (err && err_size)
            snprintf(err, err_size, "%s words need N = 2 (the program has N = %u; use wfull)",
                     tt_format_names[f], N);
        return -1;
    }
    fprintf(out, "# tinytpu %s words (%u bits), N = %u: one word per cycle\n",
            tt_format_names[f], bits, N);
    char hex[CYCLE_TEXT_MAX], msg[256];
    uint16_t lr = 0;
    for (size_t k = 0; k < p->n; k++) {
        const tt_cycle *c = &p->c[k];
        if (c->lr != lr) {
            fprintf(out, "# cycle %zu: lr 0x%04X (a machine setting, B6)\n", k + 1, c->lr);
            lr = c->lr;
        }
        if (c->rst)
            fprintf(out, "# cycle %zu: reset cycle (--reset-at %zu)\n", k + 1, k + 1);
        if (cycle_word(p, k, f, hex, sizeof hex, msg, sizeof msg))
            return fail_at(c, k, msg, err, err_size);
        fprintf(out, "%s\n", hex);
    }
    return ferror(out) ? -1 : 0;
}

static int write_port(const tt_program *p, FILE *out, char *err, size_t err_size)
{
    const unsigned N = p->N;
    char hdr[8 * 2 * TT_MAX_N + 128];
    port_header(N, hdr, sizeof hdr);
    fprintf(out, "# %s\n", hdr);
    char line[CYCLE_TEXT_MAX], msg[256];
    for (size_t k = 0; k < p->n; k++) {
        if (cycle_word(p, k, TT_FMT_PORT, line, sizeof line, msg, sizeof msg))
            return fail_at(&p->c[k], k, msg, err, err_size);
        fprintf(out, "%s\n", line);
    }
    return ferror(out) ? -1 : 0;
}

int tt_write_words(const tt_program *p, tt_format fmt, FILE *out, char *err, size_t err_size)
{
    if (fmt <= TT_FMT_WFULL)
        return write_hex(p, fmt, out, err, err_size);
    if (fmt == TT_FMT_PORT)
        return write_port(p, out, err, err_size);
    if (err && err_size)
        snprintf(err, err_size, "tt_write_words: not a word format");
    return -1;
}

/* ---- reading (through the shared engine: file:line:col diagnostics) -------------------------- */

typedef struct word_reader {
    tt_program *p;
    size_t n0, hw0;
    tt_format fmt;
    unsigned N;
    uint16_t lr0;
    uint32_t max;           /* longest program (cycles) */
    bool oom;
    bool over;              /* longer than max: said once, the rest is skipped */
    bool stop;              /* the header declares another format: said once, rest skipped */
    /* hex words: the lr level in force, and the declarations for the next word */
    uint16_t lr;
    bool pend_lr, pend_rst;
    uint16_t pend_lr_v;
    unsigned pend_line;
    /* the fast reader: the port stream's columns and their widths; a hex word's digits; the
     * line read last; cycles read before p's first (a stream's earlier windows) */
    unsigned cols, digits, line;
    size_t done;
    uint8_t width[PORT_COLS_MAX];
    /* the port stream: each field's first column; each column's digits as tt_write_words
     * writes them, and the length of such a line ('\n' included) */
    unsigned at[TT_N_FIELDS + 2];
    uint8_t digs[PORT_COLS_MAX];
    size_t canon_len;
    bool count_only; /* count the cycles in done, keep none (a stream's first reading) */
    bool odd;        /* a stream: lines the scalar path reads are checked for odd bytes */
    int scan;        /* the scanner of canonical lines: TT_SCAN_PLAIN, _SSE2 or _AVX2 */
    /* the scanner of canonical port lines (below): the bytes it reads from a line's start (the
     * line rounded up to 16; 0: lines longer than CANON_MAX, no scanner), per byte what passes
     * (x = c - vbase <= vdlim, or a letter a-f/A-F where vkill is 0), and per column where its
     * value's high and low bytes are in the scanner's nibble and pair arrays */
    unsigned vspan;
    uint8_t vbase[CANON_MAX], vdlim[CANON_MAX], vkill[CANON_MAX];
    uint16_t ghi[PORT_COLS_MAX], glo[PORT_COLS_MAX];
} word_reader;

static int add_cycle(npk_asm *a, word_reader *r, tt_cycle *c, const tt_hostw *hw, unsigned nh)
{
    c->line = npk_asm_line(a);
    if (r->p->n - r->n0 >= r->max) {
        r->over = true;
        return npk_asm_error(a, NULL, 0,
                             "more than %u cycles: the rest of the file is not read (the limit "
                             "is the max_cycles setting, at most %u)",
                             r->max, TT_MAX_CYCLES_LIMIT);
    }
    if (tt_program_add(r->p, c, hw, nh)) {
        r->oom = true;
        return npk_asm_error(a, NULL, 0, "out of memory");
    }
    return 0;
}

/* Declaration parsing: consume literal `lit` / a number (digits in `base`, saturating: strtoul
 * is defined for any length, sscanf is not) at *p. */
static bool lit_at(const char **p, const char *end, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(end - *p) < n || memcmp(*p, lit, n) != 0)
        return false;
    *p += n;
    return true;
}

static bool num_at(const char **p, const char *end, int base, unsigned long *v)
{
    const char *q = *p;
    while (q < end && (base == 16 ? npk_hex_digit((unsigned char)*q) >= 0 : *q >= '0' && *q <= '9'))
        q++;
    if (q == *p || q - *p > 16)
        return false;
    char d[17];
    memcpy(d, *p, (size_t)(q - *p));
    d[q - *p] = '\0';
    *v = strtoul(d, NULL, base);
    *p = q;
    return true;
}

/* A `#` line of a hex word file: the declarations tt_write_words writes (the format header, lr
 * changes, reset cycles; docs/tinytpu-words.md), or a plain comment. decl_parse reads one (the
 * text [t, end) from the `#`), decl_check says whether it applies cleanly, decl_apply makes it;
 * the engine's reader and the fast one (below) share the three. */
typedef struct decl {
    enum { D_COMMENT, D_HEADER, D_LR, D_RESET } kind;
    int f;              /* header: the format it names, at name (nl characters) */
    const char *name, *at_n;
    size_t nl;
    unsigned long N, k, v; /* header: N; lr and reset: the cycle k, the lr level v */
} decl;

static void decl_parse(const char *t, const char *end, decl *d)
{
    const char *q = t;
    unsigned long bits;
    memset(d, 0, sizeof *d);
    d->kind = D_COMMENT;
    if (lit_at(&q, end, "# tinytpu ")) {
        const char *name = q;
        while (q < end && *q != ' ')
            q++;
        size_t nl = (size_t)(q - name);
        const char *at_n;
        int f = -1;
        for (int i = 0; i <= TT_FMT_WFULL; i++)
            if (nl == strlen(tt_format_names[i]) && memcmp(name, tt_format_names[i], nl) == 0)
                f = i;
        if (f < 0 || !lit_at(&q, end, " words (") || !num_at(&q, end, 10, &bits) ||
            !lit_at(&q, end, " bits), ") || (at_n = q, !lit_at(&q, end, "N = ")) ||
            !num_at(&q, end, 10, &d->N))
            return; /* not the header: a comment */
        d->kind = D_HEADER, d->f = f, d->name = name, d->nl = nl, d->at_n = at_n;
        return;
    }
    if (!lit_at(&q, end, "# cycle ") || !num_at(&q, end, 10, &d->k))
        return;
    if (lit_at(&q, end, ": lr 0x")) {
        if (num_at(&q, end, 16, &d->v) && d->v <= 0xFFFF)
            d->kind = D_LR;
    } else if (lit_at(&q, end, ": reset cycle")) {
        d->kind = D_RESET;
    }
}

enum { DECL_OK, DECL_OTHER_FORMAT, DECL_OTHER_N, DECL_WRONG_CYCLE, DECL_LR_UNUSED };

static size_t next_cycle(const word_reader *r)
{
    return r->done + r->p->n - r->n0 + 1;
}

static int decl_check(const word_reader *r, const decl *d)
{
    if (d->kind == D_HEADER) {
        bool same = d->f == (int)r->fmt ||
                    (r->N == 2 && (d->f == TT_FMT_W130 || d->f == TT_FMT_WFULL) &&
                     (r->fmt == TT_FMT_W130 || r->fmt == TT_FMT_WFULL));
        return !same ? DECL_OTHER_FORMAT : d->N != r->N ? DECL_OTHER_N : DECL_OK;
    }
    if (d->kind == D_COMMENT)
        return DECL_OK;
    if (d->k != next_cycle(r))
        return DECL_WRONG_CYCLE;
    return d->kind == D_LR && d->k == 1 && r->lr0 && r->lr0 != d->v ? DECL_LR_UNUSED : DECL_OK;
}

static void decl_apply(word_reader *r, const decl *d, unsigned line)
{
    if (d->kind == D_RESET)
        r->pend_rst = true;
    else if (d->kind == D_LR)
        r->pend_lr = true, r->pend_lr_v = (uint16_t)d->v;
    else
        return;
    r->pend_line = line;
}

static int declaration(npk_asm *a, npk_cur *c, word_reader *r)
{
    const char *t = c->p, *end = c->end;
    size_t n = (size_t)(end - t);
    c->p = c->end;
    decl d;
    decl_parse(t, end, &d);
    switch (decl_check(r, &d)) {
    case DECL_OTHER_FORMAT:
        r->stop = true;
        return npk_asm_error(a, d.name, d.nl,
                             "the file declares %s words, but it is read as %s (say "
                             "format=%s, or leave the format out: npukit reads the header)",
                             tt_format_names[d.f], tt_format_names[r->fmt], tt_format_names[d.f]);
    case DECL_OTHER_N:
        r->stop = true;
        return npk_asm_error(a, d.at_n, 3,
                             "the file declares N = %lu, but the machine has lanes=%u", d.N, r->N);
    case DECL_WRONG_CYCLE:
        return npk_asm_error(a, t, n,
                             "this declaration names cycle %lu, but the next word is cycle %zu "
                             "(a declaration stands right before its cycle's word)", d.k,
                             next_cycle(r));
    case DECL_LR_UNUSED:
        npk_asm_warning(a, t, n,
                        "the file sets lr 0x%04lX from cycle 1: the lr setting 0x%04X is not "
                        "used", d.v, r->lr0);
        break;
    default: break;
    }
    decl_apply(r, &d, npk_asm_line(a));
    return 0;
}

/* The declarations made for the word being added. */
static void declared(word_reader *r, tt_cycle *cy)
{
    if (r->pend_lr)
        r->lr = r->pend_lr_v;
    cy->lr = r->lr;
    cy->rst = r->pend_rst;
    r->pend_lr = r->pend_rst = false;
}

static int hex_statement(npk_asm *a, npk_cur *c, word_reader *r)
{
    const unsigned bits = tt_format_bits(r->fmt, r->N), digits = (bits + 3) / 4;
    const char *s;
    size_t n = npk_cur_word(c, &s);
    for (size_t i = 0; i < n; i++)
        if (npk_hex_digit((unsigned char)s[i]) < 0) {
            c->p = c->end;
            return npk_asm_error(a, s + i, 1,
                                 "'%c' is not a hex digit (a %s word is %u hex digits)", s[i],
                                 tt_format_names[r->fmt], digits);
        }
    if (n != digits || !npk_cur_eol(c)) {
        c->p = c->end;
        return npk_asm_error(a, s, n, "a %s word is exactly %u hex digits, found %zu%s",
                             tt_format_names[r->fmt], digits, n,
                             n == digits ? " and more text" : "");
    }
    tt_packed w;
    memset(&w, 0, sizeof w);
    for (size_t i = 0; i < n; i++)
        npk_bits_put(w.w, TT_WORD_U64, (unsigned)(4 * (n - 1 - i)), 4,
                     (uint64_t)npk_hex_digit((unsigned char)s[i]));
    if (4 * digits > bits && npk_bits_get(w.w, TT_WORD_U64, bits, 4 * digits - bits))
        return npk_asm_error(a, s, 1, "bits above bit %u are set (a %s word has %u bits)",
                             bits - 1, tt_format_names[r->fmt], bits);
    tt_cycle cy;
    tt_hostw hw[TT_MAX_N];
    unsigned nh;
    tt_decode(r->fmt, r->N, &w, &cy, hw, &nh);
    declared(r, &cy);
    return add_cycle(a, r, &cy, hw, nh);
}

/* Column j of a port-stream line: its value in vals (column order, fields.def), or with vals
 * NULL from the line scanner's digits A (its high and low bytes, at ghi[j] and glo[j]). */
static inline __attribute__((always_inline)) uint16_t column(const word_reader *r,
                                                              const uint16_t *vals,
                                                              const uint8_t *A, unsigned j)
{
    return vals ? vals[j] : (uint16_t)(A[r->ghi[j]] << 8 | A[r->glo[j]]);
}

/* The cycle that a port-stream line's values (column) give. */
static inline __attribute__((always_inline)) void
port_cycle_of(const word_reader *r, const uint16_t *vals, const uint8_t *A, tt_cycle *cy,
              tt_hostw *hw, unsigned *nh)
{
    const unsigned *at = r->at;
    memset(cy, 0, sizeof *cy);
    cy->rst = (uint8_t)column(r, vals, A, at[PORT_RST]);
    cy->lr = column(r, vals, A, at[PORT_LR]);
    cy->sw = (uint8_t)column(r, vals, A, at[TT_F_SW]);
    cy->start = (uint8_t)column(r, vals, A, at[TT_F_START]);
    cy->T = (uint8_t)column(r, vals, A, at[TT_F_T]);
    cy->sel = column(r, vals, A, at[TT_F_SEL]);
    cy->addr = column(r, vals, A, at[TT_F_ADDR]);
    cy->rows = column(r, vals, A, at[TT_F_ROWS]);
    cy->cols = column(r, vals, A, at[TT_F_COLS]);
    cy->pathway = (uint8_t)column(r, vals, A, at[TT_F_PATHWAY]);
    cy->leak = column(r, vals, A, at[TT_F_LEAK]);
    cy->inv = column(r, vals, A, at[TT_F_INV]);
    unsigned n = 0;
    for (unsigned l = 0; l < r->N; l++)
        if (column(r, vals, A, at[TT_F_HV] + l))
            hw[n++] = (tt_hostw){(uint16_t)l, column(r, vals, A, at[TT_F_HD] + l)};
    *nh = n;
}

static void port_cycle(const word_reader *r, const uint16_t *vals, tt_cycle *cy, tt_hostw *hw,
                       unsigned *nh)
{
    port_cycle_of(r, vals, NULL, cy, hw, nh);
}

static int port_statement(npk_asm *a, npk_cur *c, word_reader *r)
{
    const unsigned N = r->N, want = 12 + 2 * N;
    uint16_t vals[PORT_COLS_MAX];
    unsigned got = 0;
    for (size_t i = 0; i < N_PORT_COLS; i++) {
        const port_col *pc = &port_cols[i];
        bool lanes = pc->field < TT_N_FIELDS && tt_fields[pc->field].lanes;
        for (unsigned l = 0; l < (lanes ? N : 1); l++, got++) {
            if (npk_cur_eol(c)) {
                char hdr[256];
                port_header(N, hdr, sizeof hdr);
                return npk_asm_error(a, c->p, 1,
                                     "a port-stream line has %u fields (%s%s), found %u", want,
                                     N <= 4 ? "" : "...", N <= 4 ? hdr : "", got);
            }
            const char *s;
            size_t n = npk_cur_word(c, &s);
            uint64_t v = 0;
            const unsigned width = port_width(pc->field);
            for (size_t j = 0; j < n; j++) {
                int d = npk_hex_digit((unsigned char)s[j]);
                if (d < 0) {
                    c->p = c->end;
                    return npk_asm_error(a, s + j, 1, "'%c' is not a hex digit (field %s)",
                                         s[j], pc->name);
                }
                v = v * 16 + (uint64_t)d;
                if (v >> width) {
                    c->p = c->end;
                    return npk_asm_error(a, s, n, "%s %.*s does not fit its %u-bit port",
                                         pc->name, (int)n, s, width);
                }
            }
            vals[got] = (uint16_t)v;
        }
    }
    if (!npk_cur_eol(c)) {
        const char *at = c->p;
        c->p = c->end;
        return npk_asm_error(a, at, 1, "more than %u fields on a port-stream line", want);
    }
    tt_cycle cy;
    tt_hostw hw[TT_MAX_N];
    unsigned nh;
    port_cycle(r, vals, &cy, hw, &nh);
    return add_cycle(a, r, &cy, hw, nh);
}

/* ---- the fast reader --------------------------------------------------------------------------
 * Word files are mostly clean: npukit wrote them, and every line is a word, a comment or a
 * declaration that applies. The fast reader reads such a text in one pass over its bytes, with
 * no per-line allocation and no tokeniser; at the first line it does not read cleanly (an
 * error, a warning, anything unusual) it gives up, and the engine reads the whole text again
 * and reports it at file:line:col. Both accept the same texts and make the same programs; every
 * message comes from the engine. */

/* Character classes as the engine sees a word line: a hex digit (C_HEX and its value), a blank
 * (the lexer's: space, tab, \f, \v, \r), '#', the end of a line; 0 for anything else (NUL too,
 * which is the end of the text at its end and a line for the engine anywhere else). */
enum { C_HEX = 0x10, C_BLANK = 0x20, C_HASH = 0x40, C_NL = 0x80 };
static const uint8_t cclass[256] = {
    ['0'] = C_HEX | 0,  ['1'] = C_HEX | 1,  ['2'] = C_HEX | 2,  ['3'] = C_HEX | 3,
    ['4'] = C_HEX | 4,  ['5'] = C_HEX | 5,  ['6'] = C_HEX | 6,  ['7'] = C_HEX | 7,
    ['8'] = C_HEX | 8,  ['9'] = C_HEX | 9,  ['A'] = C_HEX | 10, ['B'] = C_HEX | 11,
    ['C'] = C_HEX | 12, ['D'] = C_HEX | 13, ['E'] = C_HEX | 14, ['F'] = C_HEX | 15,
    ['a'] = C_HEX | 10, ['b'] = C_HEX | 11, ['c'] = C_HEX | 12, ['d'] = C_HEX | 13,
    ['e'] = C_HEX | 14, ['f'] = C_HEX | 15, [' '] = C_BLANK,    ['\t'] = C_BLANK,
    ['\f'] = C_BLANK,   ['\v'] = C_BLANK,   ['\r'] = C_BLANK,   ['#'] = C_HASH,
    ['\n'] = C_NL,
};

static uint8_t cls(const char *q)
{
    return cclass[(unsigned char)*q];
}

/* The rest of a line after its fields, from q: blanks, then a comment, the end of the line or
 * of the text (*end is NUL). The start of the next line, or NULL when the line has more. */
static const char *line_rest(const char *q, const char *end)
{
    uint8_t k;
    while ((k = cls(q)) == C_BLANK)
        q++;
    if (k == C_NL)
        return q + 1;
    if (k == C_HASH) {
        const char *nl = memchr(q, '\n', (size_t)(end - q));
        return nl ? nl + 1 : end;
    }
    return q == end ? end : NULL;
}

/* A port-stream line from q: 1 with its values, 0 for a line without fields (blank, a comment),
 * -1 for a line left to the engine. *next: the next line. */
static int port_fast(const word_reader *r, const char *q, const char *end, uint16_t *vals,
                     const char **next)
{
    /* first, the line as tt_write_words writes it: each column's digits, one space between,
     * '\n'; checked and converted without a branch per character */
    if ((size_t)(end - q) >= r->canon_len && q[r->canon_len - 1] == '\n') {
        const char *p = q;
        unsigned hex = C_HEX, over = 0, seps = 0;
        for (unsigned j = 0; j < r->cols; j++) {
            unsigned v = 0;
            for (unsigned d = r->digs[j]; d; d--) {
                const unsigned t = cls(p++);
                hex &= t;
                v = v << 4 | (t & 15u);
            }
            over |= v >> r->width[j];
            seps |= (unsigned char)*p++ ^ (j + 1 < r->cols ? ' ' : '\n');
            vals[j] = (uint16_t)v;
        }
        if (hex && !over && !seps) {
            *next = p;
            return 1;
        }
    }
    unsigned j = 0;
    uint8_t k;
    for (;;) {
        while ((k = cls(q)) == C_BLANK)
            q++;
        if (!(k & C_HEX))
            break;
        if (j == r->cols)
            return -1;
        const unsigned w = r->width[j];
        unsigned v = 0;
        do {
            v = v << 4 | (k & 15u);
            if (v >> w)
                return -1;
            k = cls(++q);
        } while (k & C_HEX);
        vals[j++] = (uint16_t)v;
        if (k != C_BLANK)
            break;
    }
    if (!(*next = line_rest(q, end)) || (j && j != r->cols))
        return -1;
    return j != 0;
}

/* A hex word file's line from q (line number `line`): 1 with its cycle, 0 for a line without a
 * word (blank, a comment, a declaration: made), -1 for a line left to the engine. */
static int hex_fast(word_reader *r, const char *q, const char *end, unsigned line, tt_cycle *cy,
                    tt_hostw *hw, unsigned *nh, const char **next)
{
    uint8_t k;
    while ((k = cls(q)) == C_BLANK)
        q++;
    if (k == C_HASH) {
        const char *nl = memchr(q, '\n', (size_t)(end - q));
        *next = nl ? nl + 1 : end;
        decl d;
        decl_parse(q, nl ? nl : end, &d);
        if (decl_check(r, &d) != DECL_OK)
            return -1;
        decl_apply(r, &d, line);
        return 0;
    }
    const char *s = q;
    while (k & C_HEX)
        k = cls(++q);
    const size_t n = (size_t)(q - s);
    if (!(*next = line_rest(q, end)))
        return -1;
    if (n == 0)
        return 0;
    const unsigned bits = tt_format_bits(r->fmt, r->N);
    if (n != r->digits)
        return -1;
    tt_packed w;
    memset(&w, 0, sizeof w);
    for (size_t i = 0; i < n; i++) {
        const unsigned b = (unsigned)(4 * (n - 1 - i));
        w.w[b / 64] |= (uint64_t)(cls(s + i) & 15u) << (b % 64);
    }
    if (4 * n > bits && npk_bits_get(w.w, TT_WORD_U64, bits, (unsigned)(4 * n - bits)))
        return -1;
    tt_decode(r->fmt, r->N, &w, cy, hw, nh);
    declared(r, cy);
    return 1;
}

/* Bytes the whole-file reader treats otherwise: NUL (an error there) and control characters
 * other than white space (too many make the file an image, not text). A stream checks
 * the lines its scalar path reads (the scanner's lines hold none). */
static bool odd_bytes(const char *p, size_t n)
{
    unsigned char bad = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char b = (unsigned char)p[i];
        bad |= b < 0x20 && (b < '\t' || b > '\r');
    }
    return bad != 0;
}

/* ---- canonical port lines, 16 bytes at a time ------------------------------------------------
 * Most lines of a port stream are as tt_write_words writes them (the canonical branch of
 * port_fast). The scanner checks such a line as a whole, 16 bytes at a time, and converts it:
 * with per-byte tables made for N (scanner_init), a byte c passes when x = c - vbase <= vdlim
 * (a digit within the limit of its place, or, with vdlim 0, the separator vbase) or when it is
 * a letter a-f/A-F and vkill is 0 (a place where any hex digit fits); the bytes after the line,
 * up to vspan, always pass. Which is exactly port_fast's canonical test (each column's digits
 * hex, its value within its port width, the separators); a line that fails goes to port_fast.
 * A passing line's digit values (min(x, (c | 0x20) - 'a' + 10), 0 on a separator) and the
 * values of each two neighbouring digits give every column (at most 4 digits) as a high and a
 * low byte. SSE2 (the x86-64 baseline) and a portable copy of the same arithmetic (the
 * reader's `scan`; tt_read_words_scan, so the tests run each), and for N = 2 (64 bytes) an
 * AVX2 copy, chosen when the host has AVX2 (__builtin_cpu_supports). */

static void scanner_init(word_reader *r)
{
    const size_t span = (r->canon_len + 15) & ~(size_t)15;
    r->vspan = 0;
    if (span > CANON_MAX)
        return;
    memset(r->vbase, 0, span);
    memset(r->vdlim, 0xFF, span);
    memset(r->vkill, 0, span);
    size_t o = 0;
    for (unsigned j = 0; j < r->cols; j++) {
        const unsigned d = r->digs[j];
        if (d < 1 || d > 4)
            return;
        for (unsigned i = 0; i < d; i++) {
            const int bits = (int)r->width[j] - 4 * (int)(d - 1 - i);
            const unsigned lim = bits <= 0 ? 0 : bits >= 4 ? 15 : (1u << bits) - 1;
            r->vbase[o + i] = '0';
            r->vdlim[o + i] = (uint8_t)(lim < 9 ? lim : 9);
            r->vkill[o + i] = lim == 15 ? 0 : 0x80;
        }
        r->vbase[o + d] = j + 1 < r->cols ? ' ' : '\n';
        r->vdlim[o + d] = 0;
        r->vkill[o + d] = 0x80;
        /* nibbles at [0, span), pairs (digit p and p + 1) at [span, 2 span), a 0 at 2 span */
        const size_t pair = span + o, zero = 2 * span;
        r->ghi[j] = (uint16_t)(d == 4 ? pair : d == 3 ? o : zero);
        r->glo[j] = (uint16_t)(d == 1 ? o : pair + d - 2);
        o += d + 1;
    }
    r->vspan = (unsigned)span;
}

/* The portable scanner: 1 when the line at q is canonical, with its nibbles and pairs in A
 * (when conv); reads vspan bytes from q. */
static bool canon_plain(const word_reader *r, const char *q, uint8_t *A, bool conv)
{
    const unsigned span = r->vspan;
    unsigned bad = 0;
    for (unsigned i = 0; i < span; i++) {
        const uint8_t c = (uint8_t)q[i], x = (uint8_t)(c - r->vbase[i]),
                      y0 = (uint8_t)((c | 0x20) - 'a'), y = (uint8_t)(y0 | r->vkill[i]),
                      h = (uint8_t)(y0 + 10);
        bad |= (x > r->vdlim[i]) & (y > 5);
        A[i] = x < h ? x : h;
    }
    if (bad)
        return false;
    for (unsigned i = 0; conv && i < span; i++)
        A[span + i] = (uint8_t)(A[i] << 4 | (i + 1 < span ? A[i + 1] : 0));
    return true;
}

#ifdef TT_SCAN_X86
#define LD16(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define ST16(p, v) _mm_storeu_si128((__m128i *)(void *)(p), v)
#define LD32(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define ST32(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), v)

static inline __attribute__((always_inline)) bool canon_sse2(const word_reader *r, const char *q,
                                                             uint8_t *A, bool conv,
                                                             const unsigned span)
{
    const __m128i x20 = _mm_set1_epi8(0x20), xa = _mm_set1_epi8('a'), five = _mm_set1_epi8(5),
                  ten = _mm_set1_epi8(10);
    __m128i acc = _mm_set1_epi8(-1), nib[CANON_MAX / 16];
    for (unsigned i = 0; i < span / 16; i++) {
        const __m128i c = LD16(q + 16 * i), x = _mm_sub_epi8(c, LD16(r->vbase + 16 * i)),
                      y0 = _mm_sub_epi8(_mm_or_si128(c, x20), xa),
                      y = _mm_or_si128(y0, LD16(r->vkill + 16 * i)), dl = LD16(r->vdlim + 16 * i);
        acc = _mm_and_si128(acc, _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(x, dl), x),
                                              _mm_cmpeq_epi8(_mm_min_epu8(y, five), y)));
        nib[i] = _mm_min_epu8(x, _mm_add_epi8(y0, ten));
    }
    if (_mm_movemask_epi8(acc) != 0xFFFF)
        return false;
    for (unsigned i = 0; conv && i < span / 16; i++) {
        /* digit p << 4 | digit p + 1: in a line every digit is <= 15, so the 16-bit shift
         * carries nothing into the neighbouring byte */
        const __m128i next = i + 1 < span / 16 ? _mm_slli_si128(nib[i + 1], 15)
                                               : _mm_setzero_si128();
        ST16(A + 16 * i, nib[i]);
        ST16(A + span + 16 * i, _mm_or_si128(_mm_slli_epi16(nib[i], 4),
                                             _mm_or_si128(_mm_srli_si128(nib[i], 1), next)));
    }
    return true;
}

/* canon_sse2 32 bytes at a time, for a 64-byte span (N = 2). */
__attribute__((target("avx2"))) static bool canon_avx2_64(const word_reader *r, const char *q,
                                                          uint8_t *A, bool conv)
{
    const __m256i x20 = _mm256_set1_epi8(0x20), xa = _mm256_set1_epi8('a'),
                  five = _mm256_set1_epi8(5), ten = _mm256_set1_epi8(10);
    __m256i acc = _mm256_set1_epi8(-1), nib[2];
    for (unsigned i = 0; i < 2; i++) {
        const __m256i c = LD32(q + 32 * i), x = _mm256_sub_epi8(c, LD32(r->vbase + 32 * i)),
                      y0 = _mm256_sub_epi8(_mm256_or_si256(c, x20), xa),
                      y = _mm256_or_si256(y0, LD32(r->vkill + 32 * i)),
                      dl = LD32(r->vdlim + 32 * i),
                      ok = _mm256_or_si256(_mm256_cmpeq_epi8(_mm256_min_epu8(x, dl), x),
                                           _mm256_cmpeq_epi8(_mm256_min_epu8(y, five), y));
        acc = _mm256_and_si256(acc, ok);
        nib[i] = _mm256_min_epu8(x, _mm256_add_epi8(y0, ten));
    }
    if (_mm256_movemask_epi8(acc) != -1)
        return false;
    if (conv) {
        /* each digit's neighbour: the bytes shifted down by one across the 128-bit lanes */
        const __m256i hi0 = _mm256_permute2x128_si256(nib[0], nib[1], 0x21),
                      hi1 = _mm256_permute2x128_si256(nib[1], nib[1], 0x81),
                      next0 = _mm256_alignr_epi8(hi0, nib[0], 1),
                      next1 = _mm256_alignr_epi8(hi1, nib[1], 1);
        ST32(A, nib[0]);
        ST32(A + 32, nib[1]);
        ST32(A + 64, _mm256_or_si256(_mm256_slli_epi16(nib[0], 4), next0));
        ST32(A + 96, _mm256_or_si256(_mm256_slli_epi16(nib[1], 4), next1));
    }
    return true;
}
#endif

enum { TT_SCAN_PLAIN, TT_SCAN_SSE2, TT_SCAN_AVX2 };

/* The best scanner up to `want` that the host has for the reader's lines. */
static int scan_choose(const word_reader *r, int want)
{
#ifdef TT_SCAN_X86
    if (want >= TT_SCAN_AVX2 && r->vspan == 64 && __builtin_cpu_supports("avx2"))
        return TT_SCAN_AVX2;
    return want >= TT_SCAN_SSE2 ? TT_SCAN_SSE2 : TT_SCAN_PLAIN;
#else
    (void)r, (void)want;
    return TT_SCAN_PLAIN;
#endif
}

static inline __attribute__((always_inline)) bool canon_line(const word_reader *r, const char *q,
                                                             uint8_t *A, bool conv)
{
#ifdef TT_SCAN_X86
    if (r->scan == TT_SCAN_AVX2)
        return canon_avx2_64(r, q, A, conv);
    if (r->scan == TT_SCAN_SSE2)
        return r->vspan == 64 ? canon_sse2(r, q, A, conv, 64)
                              : canon_sse2(r, q, A, conv, r->vspan);
#endif
    return canon_plain(r, q, A, conv);
}

/* Canonical port lines from q (each with vspan bytes before end) appended to r->p, or counted:
 * the first line that is not one, or NULL past the cycle limit or out of memory. */
static const char *canon_lines(word_reader *r, const char *q, const char *end)
{
    const size_t L = r->canon_len, span = r->vspan;
    uint8_t A[2 * CANON_MAX + 1];
    A[2 * span] = 0;
    if (r->count_only) {
        const char *s = q;
        while ((size_t)(end - q) >= span && canon_line(r, q, A, false))
            q += L;
        const size_t k = (size_t)(q - s) / L;
        if (r->done + k > r->max)
            return NULL;
        r->done += k;
        r->line += (unsigned)k;
        return q;
    }
    /* room for every line before end, the cycles written in place */
    tt_program *p = r->p;
    const size_t most = (size_t)(end - q) / L + 1;
    if (program_reserve(p, most, most * r->N))
        return q; /* the scalar path adds this line (or says it cannot) */
    while ((size_t)(end - q) >= span && canon_line(r, q, A, true)) {
        if (r->done + p->n - r->n0 >= r->max)
            return NULL;
        tt_cycle *cy = &p->c[p->n++];
        unsigned nh;
        port_cycle_of(r, NULL, A, cy, p->hw + p->n_hw, &nh);
        cy->host = (uint32_t)p->n_hw;
        cy->n_host = (uint16_t)nh;
        cy->line = ++r->line;
        p->n_hw += nh;
        q += L;
    }
    return q;
}

/* Whole lines [q, end) through the fast reader, appended to r->p (*end is NUL, or the text goes
 * on after the '\n' that ends the last line): 0, or -1 at a line that needs the engine. */
static int fast_lines(word_reader *r, const char *q, const char *end)
{
    const char *next = end;
    uint16_t vals[PORT_COLS_MAX];
    tt_hostw hw[TT_MAX_N];
    tt_cycle cy;
    unsigned nh = 0;
    while (q < end) {
        if (r->vspan && (size_t)(end - q) >= r->vspan) {
            const char *s = canon_lines(r, q, end);
            if (!s)
                return -1;
            if (s != q) {
                q = s;
                continue;
            }
        }
        int got;
        r->line++;
        if (r->fmt == TT_FMT_PORT) {
            got = port_fast(r, q, end, vals, &next);
            if (got > 0 && !r->count_only)
                port_cycle(r, vals, &cy, hw, &nh);
        } else {
            got = hex_fast(r, q, end, r->line, &cy, hw, &nh, &next);
        }
        if (got < 0 || (r->odd && odd_bytes(q, (size_t)(next - q))))
            return -1;
        if (got) {
            cy.line = r->line;
            if (r->done + r->p->n - r->n0 >= r->max)
                return -1;
            if (r->count_only)
                r->done++;
            else if (tt_program_add(r->p, &cy, hw, nh))
                return -1;
        }
        q = next;
    }
    return 0;
}

/* The text [src, src + len) (src[len] is NUL) through the fast reader: 0 with the program
 * appended, or -1 with the program as it was when a line needs the engine. */
static int read_fast(word_reader *r, const char *src, size_t len)
{
    if (fast_lines(r, src, src + len) == 0 && !r->pend_lr && !r->pend_rst)
        return 0;
    r->p->n = r->n0;
    r->p->n_hw = r->hw0;
    return -1;
}

static int words_statement(npk_asm *a, npk_cur *c)
{
    word_reader *r = npk_asm_user(a);
    if (r->over || r->stop) {
        c->p = c->end;
        return 0;
    }
    /* `#` starts a comment (B7.1); in hex files a whole-line one may be a declaration */
    if (*c->p == '#')
        return r->fmt == TT_FMT_PORT ? (c->p = c->end, 0) : declaration(a, c, r);
    const char *h = memchr(c->p, '#', (size_t)(c->end - c->p));
    if (h)
        c->end = h;
    return r->fmt == TT_FMT_PORT ? port_statement(a, c, r) : hex_statement(a, c, r);
}

static int words_begin(npk_asm *a)
{
    word_reader *r = npk_asm_user(a);
    r->p->n = r->n0;
    r->p->n_hw = r->hw0;
    r->over = r->stop = false;
    r->lr = r->lr0;
    r->pend_lr = r->pend_rst = false;
    return 0;
}

static int words_end(npk_asm *a)
{
    word_reader *r = npk_asm_user(a);
    if ((r->pend_lr || r->pend_rst) && !r->over && !r->stop)
        return npk_asm_error(a, NULL, 0, "the declaration on line %u has no word after it",
                             r->pend_line);
    return 0;
}

static const npk_asm_target words_target = {
    .name = "tinytpu words",
    .comment_chars = NULL, /* `#` lines are read by words_statement (declarations) */
    .statement = words_statement,
    .begin_pass = words_begin,
    .end_pass = words_end,
};

int tt_read_words(const char *src, const char *name, tt_format fmt, unsigned N, uint16_t lr0,
                  tt_program *p, FILE *diag)
{
    return tt_read_words_max(src, name, fmt, N, lr0, 0, p, diag);
}

/* A reader of fmt words for N lanes (checked by the caller) appending to p. */
static void reader_init(word_reader *r, tt_program *p, tt_format fmt, unsigned N, uint16_t lr0,
                        uint32_t max_cycles)
{
    memset(r, 0, sizeof *r);
    r->p = p, r->fmt = fmt, r->N = N, r->lr0 = lr0, r->lr = lr0;
    if (p)
        r->n0 = p->n, r->hw0 = p->n_hw;
    r->max = max_cycles ? max_cycles : TT_DEFAULT_MAX_CYCLES;
    if (r->max > TT_MAX_CYCLES_LIMIT)
        r->max = TT_MAX_CYCLES_LIMIT;
    r->digits = (tt_format_bits(fmt, N) + 3) / 4;
    for (size_t i = 0; fmt == TT_FMT_PORT && i < N_PORT_COLS; i++) {
        bool lanes = port_cols[i].field < TT_N_FIELDS && tt_fields[port_cols[i].field].lanes;
        r->at[port_cols[i].field] = r->cols;
        for (unsigned l = 0; l < (lanes ? N : 1); l++) {
            r->digs[r->cols] = (uint8_t)port_cols[i].digits;
            r->canon_len += port_cols[i].digits + 1u;
            r->width[r->cols++] = (uint8_t)port_width(port_cols[i].field);
        }
    }
    if (fmt == TT_FMT_PORT)
        scanner_init(r);
}

static bool word_format_ok(tt_format fmt, unsigned N)
{
    return fmt <= TT_FMT_PORT && (fmt == TT_FMT_PORT || tt_format_bits(fmt, N)) && N >= 2 &&
           N <= TT_MAX_N;
}

static int read_words(const char *src, const char *name, tt_format fmt, unsigned N, uint16_t lr0,
                      uint32_t max_cycles, tt_program *p, FILE *diag, bool fast, int scan)
{
    const char *file = name ? name : "<input>";
    if (!word_format_ok(fmt, N)) {
        if (diag)
            fprintf(diag, "%s: error: %s for N = %u is not a word format (w88, w94 and w130 "
                          "need N = 2; N is 2..%u)\n",
                    file, fmt < TT_N_FORMATS ? tt_format_names[fmt] : "?", N, TT_MAX_N);
        return 1;
    }
    word_reader r;
    reader_init(&r, p, fmt, N, lr0, max_cycles);
    r.scan = scan_choose(&r, scan);
    size_t len = src ? strlen(src) : 0;
    if (fast && read_fast(&r, src ? src : "", len) == 0)
        return 0;
    npk_asm_opts o;
    memset(&o, 0, sizeof o);
    o.diag = diag;
    npk_asm_result *res = npk_asm_run(&words_target, &r, src, len, file, &o);
    npk_asm_result *ok;
    int e = npk_asm_result_check(res, file, diag, &ok);
    npk_asm_result_free(ok);
    if (e) {
        p->n = r.n0;
        p->n_hw = r.hw0;
    }
    return e;
}

int tt_read_words_max(const char *src, const char *name, tt_format fmt, unsigned N, uint16_t lr0,
                      uint32_t max_cycles, tt_program *p, FILE *diag)
{
    return read_words(src, name, fmt, N, lr0, max_cycles, p, diag, true, TT_SCAN_AVX2);
}

int tt_read_words_scan(const char *src, const char *name, tt_format fmt, unsigned N,
                       uint16_t lr0, uint32_t max_cycles, int scanner, tt_program *p, FILE *diag)
{
    return read_words(src, name, fmt, N, lr0, max_cycles, p, diag, true, scanner);
}

int tt_read_words_engine(const char *src, const char *name, tt_format fmt, unsigned N,
                         uint16_t lr0, uint32_t max_cycles, tt_program *p, FILE *diag)
{
    return read_words(src, name, fmt, N, lr0, max_cycles, p, diag, false, TT_SCAN_PLAIN);
}

/* ---- a streamed word file ------------------------------------------------------------------- */

struct tt_word_stream {
    word_reader r;
    int fd;
    char *buf; /* cap bytes, then a NUL after the len read */
    size_t cap, pos, len;
    size_t last; /* cycles the last read gave */
    bool eof;
};

tt_word_stream *tt_word_stream_open(int fd, tt_format fmt, unsigned N, uint16_t lr0,
                                    uint32_t max_cycles, size_t buf_size)
{
    if (!word_format_ok(fmt, N) || buf_size < 2)
        return NULL;
    tt_word_stream *ws = calloc(1, sizeof *ws);
    if (!ws || !(ws->buf = malloc(buf_size + 1))) {
        free(ws);
        return NULL;
    }
    reader_init(&ws->r, NULL, fmt, N, lr0, max_cycles);
    ws->r.odd = true;
    ws->r.scan = scan_choose(&ws->r, TT_SCAN_AVX2);
    ws->fd = fd;
    ws->cap = buf_size;
    ws->buf[0] = '\0';
    return ws;
}

void tt_word_stream_close(tt_word_stream *ws)
{
    if (!ws)
        return;
    close(ws->fd);
    free(ws->buf);
    free(ws);
}

int tt_word_stream_rewind(tt_word_stream *ws)
{
    word_reader *r = &ws->r;
    r->p = NULL;
    r->done = ws->last = 0;
    r->count_only = false;
    r->line = 0;
    r->lr = r->lr0;
    r->pend_lr = r->pend_rst = false;
    ws->pos = ws->len = 0;
    ws->eof = false;
    ws->buf[0] = '\0';
    return lseek(ws->fd, 0, SEEK_SET) == 0 ? 0 : -1;
}

int tt_word_stream_count(tt_word_stream *ws, uint64_t *n)
{
    tt_program none;
    tt_program_init(&none, ws->r.N);
    ws->r.count_only = true;
    long got;
    while ((got = tt_word_stream_read(ws, &none)) > 0)
        ;
    ws->r.count_only = false;
    *n = ws->r.done;
    return got < 0 ? -1 : 0;
}

long tt_word_stream_read(tt_word_stream *ws, tt_program *p)
{
    word_reader *r = &ws->r;
    r->done += ws->last;
    ws->last = 0;
    p->n = p->n_hw = 0;
    r->p = p, r->n0 = 0, r->hw0 = 0;
    for (;;) {
        char *q = ws->buf + ws->pos, *e = ws->buf + ws->len, *nl = e;
        while (nl > q && nl[-1] != '\n')
            nl--;
        if (nl > q) { /* whole lines */
            const size_t done0 = r->done;
            ws->pos = (size_t)(nl - ws->buf);
            if (fast_lines(r, q, nl))
                return -1;
            if (p->n)
                return (long)(ws->last = p->n);
            if (r->done > done0) /* counting */
                return (long)(r->done - done0);
            continue;
        }
        if (ws->eof) { /* the last line, if it has no '\n' */
            ws->pos = ws->len;
            const size_t done0 = r->done;
            if (fast_lines(r, q, e) || r->pend_lr || r->pend_rst)
                return -1;
            return r->count_only ? (long)(r->done - done0) : (long)(ws->last = p->n);
        }
        size_t keep = (size_t)(e - q);
        memmove(ws->buf, q, keep);
        ws->pos = 0, ws->len = keep;
        if (keep == ws->cap)
            return -1; /* a line longer than the buffer */
        ssize_t got;
        do
            got = read(ws->fd, ws->buf + keep, ws->cap - keep);
        while (got < 0 && errno == EINTR);
        if (got < 0)
            return -1;
        ws->eof = got == 0;
        ws->len += (size_t)got;
        ws->buf[ws->len] = '\0';
    }
}

/* ---- which format a text is in ---------------------------------------------------------------- */

int tt_detect_format(const char *src, unsigned N, tt_format *fmt, unsigned *line)
{
    *fmt = TT_FMT_ASM;
    *line = 0;
    const char *q = src ? src : "";
    for (unsigned ln = 1; *q; ln++) {
        const char *nl = strchr(q, '\n');
        const char *b = q, *e = nl ? nl : q + strlen(q);
        q = nl ? nl + 1 : e;
        while (b < e && (*b == ' ' || *b == '\t'))
            b++;
        while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
            e--;
        if (b == e || *b == ';')
            continue;
        if (*b == '#') {
            static const char hdr[] = "# tinytpu ";
            size_t hl = sizeof hdr - 1;
            if ((size_t)(e - b) <= hl || memcmp(b, hdr, hl) != 0)
                continue;
            const char *nm = b + hl, *ne = nm;
            while (ne < e && *ne != ' ')
                ne++;
            for (int f = 0; f <= TT_FMT_WFULL; f++)
                if ((size_t)(ne - nm) == strlen(tt_format_names[f]) &&
                    memcmp(nm, tt_format_names[f], (size_t)(ne - nm)) == 0 &&
                    e - ne > 6 && memcmp(ne, " words", 6) == 0) {
                    *fmt = (tt_format)f;
                    *line = ln;
                    return 1;
                }
            continue;
        }
        const char *h = memchr(b, '#', (size_t)(e - b));
        if (h)
            e = h;
        size_t tokens = 0, len = 0;
        bool hex = true, in = false;
        for (const char *c = b; c < e; c++) {
            bool blank = *c == ' ' || *c == '\t';
            if (!blank) {
                hex &= npk_hex_digit((unsigned char)*c) >= 0;
                tokens += !in;
                len++;
            }
            in = !blank;
        }
        if (!hex)
            return 0;
        if (tokens == 1) {
            static const tt_format order[] = {TT_FMT_W88, TT_FMT_W94, TT_FMT_W130, TT_FMT_WFULL};
            for (size_t i = 0; i < 4; i++) {
                unsigned bits = tt_format_bits(order[i], N);
                if (bits && len == (bits + 3) / 4) {
                    *fmt = order[i];
                    *line = ln;
                    return 2;
                }
            }
        } else if (tokens == 12 + 2 * (size_t)N) {
            *fmt = TT_FMT_PORT;
            *line = ln;
            return 2;
        }
        return 0;
    }
    return 0;
}
