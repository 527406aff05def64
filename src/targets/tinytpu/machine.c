/* tinytpu machine: configuration (N, UB size, learning rate, reset cycles, input format),
 * state allocation and reset (spec A11), loading programs, the UB space and registers, and the
 * target registration. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/config.h"
#include "core/machine.h"
#include "num/num.h"
#include "targets/tinytpu/machine.h"
#include "targets/tinytpu/regs.h"

#define LEGAL_KEYS                                                                               \
    "lanes=2..256, ub_words=1..32768 (65536 for lanes >= 3), lr=Q8.8, reset_at=K[:K...], "      \
    "format=auto|asm|w88|w94|w130|wfull|port, words=w88|w94|w130|wfull|port, "                 \
    "max_cycles=1..1G, all_writes=0|1, trace_reads=0|1, trace_regs=0|1, vcd=FILE, "             \
    "gating=0|1, vector=0|1, stream=0|1"

extern const npk_target npk_target_tinytpu;

static const char *const kinds[TT_N_KINDS] = {"idle", "reset", "read", "host", "sw", "other"};
static const char *const units[TT_N_UNITS] = {"array", "vpu", "ub_read", "ub_write", "gd"};
const char *const tt_track_names[TT_N_TRACKS] = {
    "array",         "vpu",           "vpu.bias",     "vpu.lrelu",    "vpu.loss",
    "vpu.deriv",     "ub_read",       "ub_read.input", "ub_read.weight", "ub_read.bias",
    "ub_read.y",     "ub_read.h",     "ub_read.gbias", "ub_read.gweight", "ub_write",
    "gd"};
static const char *const extras[TT_N_EXTRAS] = {
    "ub_writes", "host_writes", "vpu_writes", "gd_writes", "macs", "read_beats", "issues",
    "reset_cycles"};


void tt_reset_state(tt_state *s)
{
    const unsigned N = s->N;
    memset(s->ub, 0, s->ub_words * sizeof *s->ub);
    s->wp = 0;
    /* every PE register but psum (A11: reset does not clear it; a LOSS stage registers the
     * column psum as data even when invalid, A9.3, so the kept value is visible there) */
    unsigned bottom_nz = 0;
    const size_t nn = (size_t)N * N;
    for (unsigned f = 0; f < TT_PE_NF; f++)
        if (f != TT_PE_PSUM)
            memset(&TT_PE(s, f, 0), 0, nn * sizeof *s->pe);
    for (size_t i = (size_t)(N - 1) * N; i < nn; i++)
        bottom_nz |= TT_PE(s, TT_PE_PSUM, i);
    memset(s->E, 0, sizeof s->E);
    memset(s->ch, 0, sizeof s->ch);
    memset(s->in_d, 0, sizeof s->in_d);
    memset(s->w_d, 0, sizeof s->w_d);
    memset(s->in_v, 0, sizeof s->in_v);
    memset(s->w_v, 0, sizeof s->w_v);
    memset(s->bias_r, 0, sizeof s->bias_r);
    memset(s->y_r, 0, sizeof s->y_r);
    memset(s->h_r, 0, sizeof s->h_r);
    memset(s->old_r, 0, sizeof s->old_r);
    memset(s->done, 0, sizeof s->done);
    memset(s->upd, 0, sizeof s->upd);
    memset(s->st_d, 0, sizeof s->st_d);
    memset(s->st_v, 0, sizeof s->st_v);
    memset(s->lastH, 0, sizeof s->lastH);
    s->prev_f = 0, s->prev_ft = 0; /* a reset cycle counts as F = 0 (A7.8) */
    s->cs_flag = 0;
    s->cs_val = 0;
    s->pe_idle = 2 * s->N + 1; /* idle inputs, columns disabled (psum kept): at rest */
    memset(s->pe_row, 0, sizeof s->pe_row); /* no wave: vout, swout and wout cleared */
    s->vpu_quiet = 1;
    s->bottom_nz = bottom_nz != 0; /* a kept bottom-row psum feeds the VPU's LOSS data */
    s->gd_busy = 0;
    s->w_any = 0;
    s->ch_dirty = 0;
    s->ch_live = 0;
    /* not cleared (A11): PE psum, mode, gptr, the levels; power-on (tt_reset) zeroes them */
}

static npk_status tt_reset(npk_machine *m, void *state)
{
    tt_state *s = state;
    (void)m;
    tt_reset_state(s);
    memset(&TT_PE(s, TT_PE_PSUM, 0), 0, (size_t)s->N * s->N * sizeof *s->pe);
    s->mode = 0;
    s->gptr = 0;
    s->pc = 0;
    return NPK_OK;
}

static void tt_destroy(void *state)
{
    tt_state *s = state;
    if (!s)
        return;
    tt_program_free(&s->prog);
    tt_word_stream_close(s->stream);
    tt_vcd_close(s);
    free(s->reset_at);
    free(s->vcd_path);
    free(s->ub);
    tt_regs_free(s->regs);
    if (s->pe != s->pe2)
        free(s->pe);
    free(s);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static npk_status tt_create(npk_machine *m, const npk_config *cfg_in, void **out)
{
    npk_config *cfg = (npk_config *)cfg_in;
    uint64_t N, ub, all, reads, regs_, gating, vector, max_cycles, stream;
    npk_status st = npk_config_u64(m, cfg, "tinytpu", "lanes", TT_DEFAULT_N, 2, TT_MAX_N, &N);
    if (st != NPK_OK)
        return st;
    /* UB pointers are 16 bits, signed in the N = 2 weight walk (C3) */
    st = npk_config_size(m, cfg, "tinytpu", "ub_words", TT_DEFAULT_UB, 1,
                         N == 2 ? TT_MAX_UB_N2 : TT_MAX_UB, "words", &ub);
    /* a program costs 32 bytes per cycle (plus host writes): bounded like a memory size */
    if (st == NPK_OK)
        st = npk_config_size(m, cfg, "tinytpu", "max_cycles", TT_DEFAULT_MAX_CYCLES, 1,
                             TT_MAX_CYCLES_LIMIT, "cycles", &max_cycles);
    if (st == NPK_OK)
        st = npk_config_u64(m, cfg, "tinytpu", "all_writes", 0, 0, 1, &all);
    if (st == NPK_OK)
        st = npk_config_u64(m, cfg, "tinytpu", "trace_reads", 0, 0, 1, &reads);
    if (st == NPK_OK)
        st = npk_config_u64(m, cfg, "tinytpu", "gating", 1, 0, 1, &gating);
    if (st == NPK_OK)
        st = npk_config_u64(m, cfg, "tinytpu", "vector", 1, 0, 1, &vector);
    if (st == NPK_OK)
        st = npk_config_u64(m, cfg, "tinytpu", "trace_regs", 0, 0, 1, &regs_);
    if (st == NPK_OK)
        st = npk_config_u64(m, cfg, "tinytpu", "stream", 0, 0, 1, &stream);
    if (st != NPK_OK)
        return st;
    uint16_t lr = 0;
    const char *lv = npk_config_take(cfg, "lr");
    if (lv && tt_parse_q88_value(lv, strlen(lv), &lr))
        return npk_fail(m, NPK_ERR_ARG,
                        "tinytpu: lr=%s is not a Q8.8 value (raw bits 0x0000..0xFFFF or a "
                        "decimal number such as 0.75)", lv);
    tt_format fmt = TT_FMT_ASM, words = N == 2 ? TT_FMT_W130 : TT_FMT_WFULL;
    int format_given = 0;
    static const char *const fkeys[2] = {"format", "words"};
    for (int key = 0; key < 2; key++) {
        const char *fv = npk_config_take(cfg, fkeys[key]);
        if (!fv || (key == 0 && strcasecmp(fv, "auto") == 0))
            continue;
        int f;
        for (f = 0; f < TT_N_FORMATS; f++)
            if (strcasecmp(fv, tt_format_names[f]) == 0)
                break;
        if (f == TT_N_FORMATS || (key == 1 && f == TT_FMT_ASM))
            return npk_fail(m, NPK_ERR_ARG, "tinytpu: %s=%s is not known (legal: %s)",
                            fkeys[key], fv,
                            key ? "w88, w94, w130, wfull, port"
                                : "auto, asm, w88, w94, w130, wfull, port");
        format_given |= key == 0;
        if ((f == TT_FMT_W88 || f == TT_FMT_W94 || f == TT_FMT_W130) && N != 2)
            return npk_fail(m, NPK_ERR_ARG,
                            "tinytpu: %s=%s holds exactly 2 lanes; with lanes=%llu use "
                            "wfull, port or asm (spec C2.4)", fkeys[key], fv,
                            (unsigned long long)N);
        if (key)
            words = (tt_format)f;
        else
            fmt = (tt_format)f;
    }
    const char *vcd = npk_config_take(cfg, "vcd");
    if (vcd && !*vcd)
        return npk_fail(m, NPK_ERR_ARG, "tinytpu: vcd= needs a file name");
    uint64_t *reset_at = NULL;
    size_t n_reset = 0;
    const char *rv = npk_config_take(cfg, "reset_at");
    if (rv) {
        size_t cap = 1;
        for (const char *c = rv; *c; c++)
            cap += *c == ':' || *c == '+';
        reset_at = malloc(cap * sizeof *reset_at);
        if (!reset_at)
            return npk_fail(m, NPK_ERR_NOMEM, "tinytpu: out of memory");
        const char *c = rv;
        while (*c) {
            char *end;
            errno = 0;
            unsigned long long k = strtoull(c, &end, 0);
            if (end == c || errno || k == 0 || (*end && *end != ':' && *end != '+')) {
                free(reset_at);
                return npk_fail(m, NPK_ERR_ARG,
                                "tinytpu: reset_at=%s: expected cycle numbers >= 1 separated by "
                                "':' (for example reset_at=1:40)", rv);
            }
            reset_at[n_reset++] = k;
            c = *end ? end + 1 : end;
        }
        qsort(reset_at, n_reset, sizeof *reset_at, cmp_u64);
    }
    st = npk_config_check_unused(m, cfg, "tinytpu", LEGAL_KEYS);
    if (st != NPK_OK) {
        free(reset_at);
        return st;
    }
    tt_state *s = calloc(1, sizeof *s);
    if (!s) {
        free(reset_at);
        return npk_fail(m, NPK_ERR_NOMEM, "tinytpu: out of memory");
    }
    s->N = (unsigned)N;
    s->ub_words = (unsigned)ub;
    s->lr0 = lr;
    s->format = fmt;
    s->format_given = format_given;
    s->max_cycles = (uint32_t)max_cycles;
    s->words = words;
    s->reset_at = reset_at;
    s->n_reset_at = n_reset;
    s->all_writes = (int)all;
    s->trace_reads = (int)reads;
    s->gating = (int)gating;
    s->vector = (int)vector;
    s->stream_on = (int)stream;
#if TT_HAVE_AVX2
    s->avx2 = __builtin_cpu_supports("avx2") != 0;
#endif
    s->trace_regs = (int)regs_;
    if (vcd && !(s->vcd_path = strdup(vcd))) {
        tt_destroy(s);
        return npk_fail(m, NPK_ERR_NOMEM, "tinytpu: out of memory");
    }
    tt_program_init(&s->prog, s->N);
    size_t nn = (size_t)s->N * s->N;
    s->ub = calloc(ub, sizeof *s->ub);
    s->pe = s->N == 2 ? s->pe2 : calloc(TT_PE_NF * nn, sizeof *s->pe);
    int ok = s->ub && s->pe;
    if (!ok) {
        tt_destroy(s);
        return npk_fail(m, NPK_ERR_NOMEM, "tinytpu: out of memory for lanes=%llu",
                        (unsigned long long)N);
    }
    npk_config_describe(m, "lanes=%u,ub_words=%u,lr=0x%04X,format=%s,words=%s,max_cycles=%u%s",
                        s->N, s->ub_words, s->lr0, format_given ? tt_format_names[fmt] : "auto",
                        tt_format_names[words], s->max_cycles, s->stream_on ? ",stream=1" : "");
    tt_reset(m, s);
    *out = s;
    return NPK_OK;
}

/* The reset_at setting turns cycles into reset cycles (B6): those of prog, which holds cycles
 * base .. base + prog.n - 1 (a streamed program's window). */
static void apply_reset_at(tt_state *s)
{
    for (size_t i = 0; i < s->n_reset_at; i++)
        if (s->reset_at[i] > s->base && s->reset_at[i] - s->base <= s->prog.n)
            s->prog.c[s->reset_at[i] - 1 - s->base].rst = 1;
}

/* The program is no longer streamed (another one is loaded). */
void tt_stream_drop(tt_state *s)
{
    tt_word_stream_close(s->stream);
    s->stream = NULL;
    s->base = s->stream_len = 0;
}

int tt_window(tt_state *s, uint64_t k, char *msg, size_t n)
{
    if (!s->stream || (k >= s->base && k - s->base < s->prog.n))
        return 0;
    if (k < s->base) {
        if (tt_word_stream_rewind(s->stream)) {
            snprintf(msg, n, "the streamed program file cannot be read from its start again");
            return -1;
        }
        s->base = 0, s->prog.n = 0;
    }
    for (;;) {
        s->base += s->prog.n;
        long got = tt_word_stream_read(s->stream, &s->prog);
        if (got <= 0 || s->base + (uint64_t)got > s->stream_len) {
            s->prog.n = 0;
            snprintf(msg, n, "the streamed program file changed after it was loaded: cycle "
                     "%llu does not read as it did", (unsigned long long)s->base + 1);
            return -1;
        }
        apply_reset_at(s);
        if (k - s->base < s->prog.n)
            return 0;
    }
}

/* The format to read `source` in: the format setting, or with format=auto what the file
 * declares in its header or looks like (tt_detect_format). A header that contradicts an
 * explicit setting is an error here (for assembly, whose reader knows no headers). */
static npk_status read_format(npk_machine *m, const tt_state *s, const char *source,
                              const char *name, tt_format *fmt)
{
    tt_format det;
    unsigned line;
    int how = tt_detect_format(source, s->N, &det, &line);
    *fmt = s->format_given ? s->format : det;
    if (s->format_given && how == 1 && (s->format == TT_FMT_ASM || s->format == TT_FMT_PORT))
        return npk_fail(m, NPK_ERR_FORMAT,
                        "%s:%u: the file declares %s words, but format=%s reads %s (say "
                        "format=%s, or leave the format out: npukit reads the header)",
                        name, line, tt_format_names[det], tt_format_names[s->format],
                        s->format == TT_FMT_ASM ? "assembly" : "a port stream",
                        tt_format_names[det]);
    return NPK_OK;
}

static npk_status tt_load_asm(npk_machine *m, void *state, const char *source, const char *name,
                              FILE *diag)
{
    tt_state *s = state;
    tt_format fmt;
    npk_status st = read_format(m, s, source, name, &fmt);
    if (st != NPK_OK)
        return st;
    tt_program p;
    tt_program_init(&p, s->N);
    tt_asm_opts o = {TT_FMT_ASM, s->max_cycles, npk_listing_out(m), s->words};
    int errors = tt_assemble_opts(source, name, fmt, s->N, s->lr0, &o, &p, diag);
    if (errors) {
        tt_program_free(&p);
        return npk_fail(m, NPK_ERR_FORMAT, "%s: %d error%s in %s", name, errors,
                        errors == 1 ? "" : "s",
                        fmt == TT_FMT_ASM ? "assembly source" : "the program file");
    }
    tt_stream_drop(s);
    tt_program_free(&s->prog);
    s->prog = p;
    apply_reset_at(s);
    return tt_reset(m, s);
}

/* Setting stream=1: a word file given by path is read as a stream, a window of cycles at a
 * time, so that its length costs no memory. The file is read through once here to check it
 * and count its cycles: only a file the fast reader reads cleanly from start to end streams
 * (a regular file, its format known from its first 64 KiB); anything else, errors included,
 * is NPK_ERR_UNSUPPORTED, and the core reads the file whole, as with stream=0, which reports
 * what there is to report. */
#define TT_STREAM_BUF (1u << 20) /* bytes read at a time: a window of about 18 K port lines */
#define TT_STREAM_HEAD 65536     /* bytes that must decide the format */

static npk_status tt_load_path(npk_machine *m, void *state, const char *path, FILE *diag)
{
    tt_state *s = state;
    (void)diag;
    struct stat st;
    if (!s->stream_on || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return NPK_ERR_UNSUPPORTED;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return NPK_ERR_UNSUPPORTED;
    char *head = malloc(TT_STREAM_HEAD + 1);
    ssize_t got = head ? pread(fd, head, TT_STREAM_HEAD, 0) : -1;
    tt_format fmt = TT_FMT_ASM;
    if (got >= 0) {
        size_t n = (size_t)got;
        if (n == TT_STREAM_HEAD) /* the whole lines only */
            while (n > 0 && head[n - 1] != '\n')
                n--;
        head[n] = '\0';
        tt_format det;
        unsigned line;
        int how = memchr(head, '\0', n) ? -1 : tt_detect_format(head, s->N, &det, &line);
        if (how >= 0)
            fmt = s->format_given ? s->format : det;
        if (how < 0 || (s->format_given && how == 1 &&
                        (s->format == TT_FMT_ASM || s->format == TT_FMT_PORT)))
            fmt = TT_FMT_ASM; /* read_format's error, said by the whole-file reader */
    }
    free(head);
    tt_word_stream *ws = fmt == TT_FMT_ASM ? NULL
                         : tt_word_stream_open(fd, fmt, s->N, s->lr0, s->max_cycles,
                                               TT_STREAM_BUF);
    if (!ws) {
        close(fd);
        return NPK_ERR_UNSUPPORTED;
    }
    uint64_t total = 0;
    if (tt_word_stream_count(ws, &total) || tt_word_stream_rewind(ws)) {
        tt_word_stream_close(ws);
        return NPK_ERR_UNSUPPORTED;
    }
    tt_stream_drop(s);
    tt_program_free(&s->prog);
    s->stream = ws;
    s->stream_len = total;
    npk_symbols_clear(m);
    return tt_reset(m, s);
}

tt_state *tt_state_of(npk_machine *m)
{
    return m->target == &npk_target_tinytpu ? m->state : NULL;
}

npk_status tt_load_program(npk_machine *m, const tt_program *src)
{
    tt_state *s = tt_state_of(m);
    if (!s)
        return npk_fail(m, NPK_ERR_ARG, "%s: not a tinytpu machine", m->target->name);
    if (src->N != s->N)
        return npk_fail(m, NPK_ERR_ARG, "tinytpu: the program is for %u lanes, the machine has "
                        "lanes=%u", src->N, s->N);
    tt_program p;
    tt_program_init(&p, s->N);
    for (size_t i = 0; i < src->n; i++)
        if (tt_program_add(&p, &src->c[i], src->c[i].n_host ? src->hw + src->c[i].host : NULL,
                           src->c[i].n_host)) {
            tt_program_free(&p);
            return npk_fail(m, NPK_ERR_NOMEM, "tinytpu: out of memory for a %zu-cycle program",
                            src->n);
        }
    tt_stream_drop(s);
    tt_program_free(&s->prog);
    s->prog = p;
    apply_reset_at(s);
    m->loaded = 1;
    return tt_reset(m, s);
}

static npk_status tt_load_raw(npk_machine *m, void *state, const uint8_t *bytes, size_t n,
                              uint64_t addr)
{
    (void)state, (void)bytes, (void)n, (void)addr;
    return npk_fail(m, NPK_ERR_FORMAT,
                    "tinytpu: programs are text: assembly, hex words (format=w88|w94|w130|wfull) "
                    "or a port stream (format=port); this file is not text");
}

/* The UB as bytes: word a at 2a, little-endian, whatever the host's byte order. */
static size_t tt_spaces(void *state, npk_memspace **list)
{
    tt_state *s = state;
    s->space = (npk_memspace){{"ub", 2ull * s->ub_words,
                               "unified buffer: word a (Q8.8) as 16-bit little-endian at 2a"},
                              NULL};
    *list = &s->space;
    return 1;
}

static npk_status tt_space_read(npk_machine *m, void *state, size_t space, uint64_t addr,
                                void *buf, size_t n)
{
    tt_state *s = state;
    uint8_t *out = buf;
    (void)m, (void)space;
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)(s->ub[(addr + i) / 2] >> (8 * ((addr + i) % 2)));
    return NPK_OK;
}

static npk_status tt_space_write(npk_machine *m, void *state, size_t space, uint64_t addr,
                                 const void *buf, size_t n)
{
    tt_state *s = state;
    const uint8_t *in = buf;
    (void)m, (void)space;
    for (size_t i = 0; i < n; i++) {
        uint16_t *w = &s->ub[(addr + i) / 2];
        unsigned sh = 8 * (unsigned)((addr + i) % 2);
        *w = (uint16_t)((*w & ~(0xFFu << sh)) | (unsigned)in[i] << sh);
    }
    return NPK_OK;
}

static size_t tt_regs(void *state, const npk_reg_info **list)
{
    return tt_regs_list(state, list);
}

static npk_status tt_reg_read(npk_machine *m, void *state, size_t i, uint64_t *v)
{
    return tt_regs_read(m, state, i, v);
}

static npk_status tt_reg_write(npk_machine *m, void *state, size_t i, uint64_t v)
{
    return tt_regs_write(m, state, i, v);
}

/* One cycle's word as a commit record carries it (docs/commit-log.md): the full-port word of
 * B5 (96 + 17N bits) as ceil(bits / 8) bytes, little-endian. Reset cycles carry no word. */
unsigned tt_word_bytes(unsigned N)
{
    return (tt_format_bits(TT_FMT_WFULL, N) + 7) / 8;
}

/* npk_disasm of such a word (programs themselves are text: npk_disasm_text). */
static npk_status tt_disasm_hook(npk_machine *m, void *state, const uint8_t *b, uint64_t pc,
                                 char *out, size_t n)
{
    const tt_state *s = state;
    (void)m, (void)pc;
    tt_packed w;
    memset(&w, 0, sizeof w);
    for (unsigned i = 0; i < tt_word_bytes(s->N); i++)
        w.w[i / 8] |= (uint64_t)b[i] << 8 * (i % 8);
    tt_cycle c;
    tt_hostw hw[TT_MAX_N];
    unsigned nh;
    tt_decode(TT_FMT_WFULL, s->N, &w, &c, hw, &nh);
    tt_cycle_line(&c, hw, out, n);
    return NPK_OK;
}

/* Text in memory -> NUL-terminated copy (the assembler wants a string). */
static char *text_copy(const uint8_t *bytes, size_t n)
{
    char *t = malloc(n + 1);
    if (t) {
        memcpy(t, bytes, n);
        t[n] = 0;
    }
    return t;
}

/* `npukit disasm`: a hex word file or port stream (the `format` setting) to assembly. */
static npk_status tt_disasm_text(npk_machine *m, void *state, const uint8_t *bytes, size_t n,
                                 const char *name, FILE *out)
{
    tt_state *s = state;
    char *text = text_copy(bytes, n);
    if (!text)
        return npk_fail(m, NPK_ERR_NOMEM, "tinytpu: out of memory");
    tt_format fmt;
    npk_status st = read_format(m, s, text, name, &fmt);
    if (st == NPK_OK && fmt == TT_FMT_ASM)
        st = npk_fail(m, NPK_ERR_ARG,
                      "tinytpu: %s has no word-file header and does not look like one: say which "
                      "word format it holds: --config format=w88|w94|w130|wfull|port", name);
    if (st != NPK_OK) {
        free(text);
        return st;
    }
    tt_program p;
    tt_program_init(&p, s->N);
    tt_asm_opts o = {TT_FMT_ASM, s->max_cycles, NULL, s->words};
    int errors = tt_assemble_opts(text, name, fmt, s->N, s->lr0, &o, &p, npk_guest_err(m));
    free(text);
    char err[512] = "";
    int rc = errors ? -1 : tt_write_program(&p, TT_FMT_ASM, out, err, sizeof err);
    tt_program_free(&p);
    if (errors)
        return npk_fail(m, NPK_ERR_FORMAT, "%s: %d error%s", name, errors, errors == 1 ? "" : "s");
    return rc ? npk_fail(m, NPK_ERR_FORMAT, "%s", err) : NPK_OK;
}

/* `npukit asm`: assembly to the `words` format (hex words, or a port stream), as text. Fields
 * that the format cannot hold are errors at their file:line:col. */
static npk_status tt_assemble_hook(npk_machine *m, void *state, const char *source,
                                   const char *name, FILE *diag, uint8_t **image, size_t *size)
{
    tt_state *s = state;
    *image = NULL, *size = 0;
    tt_program p;
    tt_program_init(&p, s->N);
    tt_asm_opts o = {s->words, s->max_cycles, npk_listing_out(m), s->words};
    int errors = tt_assemble_opts(source, name, TT_FMT_ASM, s->N, s->lr0, &o, &p, diag);
    if (errors) {
        tt_program_free(&p);
        return npk_fail(m, NPK_ERR_FORMAT, "%s: %d error%s in assembly source", name, errors,
                        errors == 1 ? "" : "s");
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    char err[512] = "";
    int rc = f ? tt_write_program(&p, s->words, f, err, sizeof err) : -1;
    if (f)
        fclose(f);
    tt_program_free(&p);
    if (rc) {
        free(buf);
        return npk_fail(m, NPK_ERR_FORMAT, "%s", f ? err : "tinytpu: out of memory");
    }
    *image = (uint8_t *)buf;
    *size = len;
    return NPK_OK;
}

/* insn_bytes is 0 (programs are text), so say what a cycle's word is in the format that
 * `npukit asm` writes (docs/tinytpu-words.md). */
static int tt_insn_note(void *state, char *out, size_t n)
{
    const tt_state *s = state;
    if (s->words == TT_FMT_PORT)
        return snprintf(out, n,
                        "one control word per cycle (%u lanes), written as a port stream "
                        "(words=port); programs are text",
                        s->N);
    unsigned bits = s->words == TT_FMT_W88    ? 88
                    : s->words == TT_FMT_W94  ? 94
                    : s->words == TT_FMT_W130 ? 130
                                              : 96 + 17 * s->N; /* wfull */
    return snprintf(out, n,
                    "one %u-bit control word per cycle (words=%s); programs are text: "
                    "assembly, hex words or a port stream",
                    bits, tt_format_names[s->words]);
}

const npk_target npk_target_tinytpu = {
    .name = "tinytpu",
    .summary = "tiny-tpu: 2x2 (N x N) weight-stationary Q8.8 systolic training accelerator, one "
               "control word per cycle, cycle- and bit-exact",
    .config_help =
        "  lanes=2..256     array size N (default 2, the RTL)\n"
        "  ub_words=N       unified-buffer words (default 128; 1..32768, or 65536 for lanes >= 3)\n"
        "  lr=V             learning rate before cycle 1, Q8.8: 0x00C0 or 0.75 (default 0)\n"
        "  reset_at=K[:K]   make cycle K a reset cycle (the machine powers up reset)\n"
        "  format=F         program text: auto (default: the file's header or shape),\n"
        "                   asm, w88, w94, w130, wfull (hex words), port (port stream)\n"
        "  max_cycles=N     longest program file, in cycles (default 16M, at most 1G;\n"
        "                   32 bytes of memory per cycle)\n"
        "  words=F          what 'npukit asm' writes: w88, w94, w130 (default for lanes=2),\n"
        "                   wfull (default otherwise), port\n"
        "  all_writes=1     trace every UB write, not only the ones that change a word\n"
        "  trace_reads=1    also trace channel reads: R <edge> <channel> <lane> <addr> <value>\n"
        "  trace_regs=1     also dump every register after each edge: S lines (B8)\n"
        "  vcd=FILE         write a VCD of the main signals (lanes, PEs for lanes <= 4;\n"
        "                   vcd=- writes it to standard output)\n"
        "  gating=0         step every block every cycle (default 1: skip blocks at rest;\n"
        "                   results are identical, tests compare the two)\n"
        "  vector=0         lanes >= 3: update the PEs one by one (default 1: row by row as\n"
        "                   vectors, skipping rows at rest; identical, tests compare)\n"
        "  stream=1         read a hex-word or port-stream file given by name as a stream,\n"
        "                   a window of cycles at a time, in constant memory (no snapshots)\n",
    .insn_bytes = 0, /* programs are text: one control word per cycle */
    .insn_note = tt_insn_note,
    .elf_machine = 0,
    .addr_bits = 64, /* a text stream: one word per cycle, counted in 64 bits */
    .create = tt_create,
    .destroy = tt_destroy,
    .reset = tt_reset,
    .load_raw = tt_load_raw,
    .load_asm = tt_load_asm,
    .load_path = tt_load_path,
    .run = tt_run,
    .disasm = tt_disasm_hook,
    .disasm_text = tt_disasm_text,
    .assemble = tt_assemble_hook,
    .spaces = tt_spaces,
    .space_read = tt_space_read,
    .space_write = tt_space_write,
    .regs = tt_regs,
    .reg_read = tt_reg_read,
    .reg_write = tt_reg_write,
    .mnemonics = kinds,
    .n_mnemonics = TT_N_KINDS,
    .units = units,
    .n_units = TT_N_UNITS,
    .extras = extras,
    .n_extras = TT_N_EXTRAS,
    .tracks = tt_track_names,
    .n_tracks = TT_N_TRACKS,
    .snap_save = tt_snap_save,
    .snap_restore = tt_snap_restore,
    .commit_records = 1,
};
