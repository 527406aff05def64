/* `npukit debug`'s command core: parses a command line, moves the machine (step, next,
 * continue, until, reverse-step, reverse-continue), manages breakpoints and watches, and
 * renders the views as text. Reverse execution restores the latest snapshot at or before the
 * target instruction count and re-executes to it (the machine is deterministic), so the state,
 * statistics and captured output equal those of a forward run to that point. */
#define _POSIX_C_SOURCE 200809L
#include "debug/debugger.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/typed.h"
#include "core/config.h"

#define MAX_POINTS 64
#define MAX_CKPT 64        /* each holds the whole machine (rvnpu: its RAM) */
#define CHUNK ((uint64_t)1 << 20)   /* continue runs in chunks; a snapshot after each */

typedef struct point {
    unsigned num;           /* the user's number, shared by breakpoints and watches */
    int is_watch;
    uint64_t pc;            /* breakpoint */
    unsigned id;            /* watch: npk_watch_add's id */
    char desc[480];
} point;

typedef struct ckpt {
    uint64_t insns;
    uint8_t *data;
    size_t size;
    long out_len;           /* captured output at that point */
} ckpt;

struct npk_debugger {
    npk_machine *m;
    const char *target;
    npk_stop stop;          /* the last stop; reason NONE while runnable */
    int ended;              /* exit or fault: nothing more to run */
    point pts[MAX_POINTS];
    size_t n_pts;
    unsigned next_num;
    size_t n_regs, reg_bytes;
    size_t *off;
    uint8_t *prev;          /* register bytes at the start of the last motion */
    int have_prev;
    FILE *cap;              /* the guest's output */
    long echoed;
    FILE *echo;
    ckpt ck[MAX_CKPT];
    size_t n_ck;
    volatile int *intr;
    npk_watch_hit hit;      /* the access behind the last watchpoint stop */
    int have_hit;
};

static int fail(char *err, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- machine facts ------------------------------------------------------------------- */

static int is_target(const npk_debugger *d, const char *t) { return strcmp(d->target, t) == 0; }

static void counts(npk_debugger *d, uint64_t *insns, uint64_t *cycles)
{
    npk_stats s;
    memset(&s, 0, sizeof s);
    npk_stats_get(d->m, &s);
    *insns = s.insns;
    /* pccx counts an instruction in its statistics when it completes; runs, steps and
     * budgets count it when it is issued */
    if (is_target(d, "pccx"))
        npk_reg_read(d->m, "issued", insns);
    if (cycles) {
        *cycles = s.cycles;
        /* pccx's statistics count cycles to the last completion; its clock is the host's */
        if (is_target(d, "pccx"))
            npk_reg_read(d->m, "host_clock", cycles);
    }
}

static uint64_t cur_pc(npk_debugger *d)
{
    uint64_t v = 0;
    if (npk_reg_read(d->m, "pc", &v) != NPK_OK)
        npk_reg_read(d->m, "cycle", &v);
    /* opennpu and pccx count words in pc; stops and breakpoints use byte addresses */
    if (is_target(d, "opennpu") || is_target(d, "pccx"))
        v *= npk_insn_bytes(d->m);
    return v;
}

/* Where program words and symbol addresses live: the space and the address of its byte 0. */
static const char *prog_space(const npk_debugger *d, uint64_t *base)
{
    *base = 0;
    if (is_target(d, "toy"))
        return "mem";
    if (is_target(d, "rvnpu")) {
        *base = 0x80000000u;
        return "ram";
    }
    if (is_target(d, "opennpu") || is_target(d, "pccx"))
        return "prog";
    return NULL;
}

static int data_space(const npk_debugger *d, uint64_t *base)
{
    *base = is_target(d, "rvnpu") ? 0x80000000u : 0;
    return is_target(d, "toy") || is_target(d, "rvnpu");
}

/* ---- output capture ------------------------------------------------------------------ */

static long out_len(npk_debugger *d)
{
    fflush(d->cap);
    fseek(d->cap, 0, SEEK_END);
    return ftell(d->cap);
}

static void out_truncate(npk_debugger *d, long len)
{
    fflush(d->cap);
    if (ftruncate(fileno(d->cap), len) == 0)
        fseek(d->cap, len, SEEK_SET);
    if (d->echoed > len)
        d->echoed = len;
}

static void copy_out(npk_debugger *d, long from, long to, FILE *f)
{
    char buf[4096];
    fflush(d->cap);
    fseek(d->cap, from, SEEK_SET);
    while (from < to) {
        size_t want = (size_t)(to - from) < sizeof buf ? (size_t)(to - from) : sizeof buf;
        size_t got = fread(buf, 1, want, d->cap);
        if (got == 0)
            break;
        fwrite(buf, 1, got, f);
        from += (long)got;
    }
    fseek(d->cap, 0, SEEK_END);
}

static void echo_new(npk_debugger *d)
{
    long len = out_len(d);
    if (d->echo && len > d->echoed) {
        copy_out(d, d->echoed, len, d->echo);
        /* the views that follow start on a line of their own */
        fseek(d->cap, len - 1, SEEK_SET);
        if (fgetc(d->cap) != '\n')
            fputc('\n', d->echo);
        fseek(d->cap, 0, SEEK_END);
    }
    d->echoed = len;
}

/* ---- registers ----------------------------------------------------------------------- */

static void read_reg(npk_debugger *d, size_t i, uint8_t *buf)
{
    const npk_reg_info *r = npk_reg(d->m, i);
    size_t nb = (r->bits + 7) / 8;
    memset(buf, 0, nb);
    npk_reg_read_bytes(d->m, r->name, buf, nb);
}

static void mark_regs(npk_debugger *d)
{
    for (size_t i = 0; i < d->n_regs; i++)
        read_reg(d, i, d->prev + d->off[i]);
    d->have_prev = 1;
}

/* The value as hex, most significant byte first, without leading zero bytes beyond the
 * register's width. */
static void hex_bytes(const uint8_t *b, size_t nb, char *out, size_t n)
{
    size_t k = 0;
    k += (size_t)snprintf(out + k, n - k, "0x");
    for (size_t i = nb; i-- > 0 && k + 3 < n;)
        k += (size_t)snprintf(out + k, n - k, "%02x", b[i]);
}

/* ---- checkpoints (reverse execution) ------------------------------------------------- */

static void drop_ckpts(npk_debugger *d)
{
    for (size_t i = 0; i < d->n_ck; i++)
        npk_free(d->ck[i].data);
    d->n_ck = 0;
}

static void checkpoint(npk_debugger *d)
{
    uint64_t insns;
    counts(d, &insns, NULL);
    if (d->n_ck && d->ck[d->n_ck - 1].insns >= insns)
        return;
    if (d->n_ck == MAX_CKPT) {       /* thin out: keep the first and every other one */
        size_t k = 1;
        for (size_t i = 1; i < d->n_ck; i++) {
            if (i % 2 == 0)
                d->ck[k++] = d->ck[i];
            else
                npk_free(d->ck[i].data);
        }
        d->n_ck = k;
    }
    ckpt c = {insns, NULL, 0, out_len(d)};
    if (npk_snapshot_save(d->m, &c.data, &c.size) == NPK_OK)
        d->ck[d->n_ck++] = c;
}

/* ---- session ------------------------------------------------------------------------- */

npk_debugger *npk_debugger_new(npk_machine *m, char *err, size_t n)
{
    npk_debugger *d = calloc(1, sizeof *d);
    if (!d) {
        fail(err, n, "out of memory");
        return NULL;
    }
    d->m = m;
    d->target = npk_target_of(m);
    d->next_num = 1;
    d->cap = tmpfile();
    d->n_regs = npk_reg_count(m);
    d->off = calloc(d->n_regs + 1, sizeof *d->off);
    for (size_t i = 0; d->off && i < d->n_regs; i++)
        d->off[i + 1] = d->off[i] + (npk_reg(m, i)->bits + 7) / 8;
    d->reg_bytes = d->off ? d->off[d->n_regs] : 0;
    d->prev = calloc(d->reg_bytes + 1, 1);
    if (!d->cap || !d->off || !d->prev) {
        fail(err, n, "cannot set up the session: out of memory or no temporary file");
        npk_debugger_free(d);
        return NULL;
    }
    npk_set_output(m, d->cap, d->cap);
    npk_stats_enable(m, 1);
    d->stop.pc = cur_pc(d);
    checkpoint(d);
    mark_regs(d);
    d->have_prev = 0;
    return d;
}

void npk_debugger_free(npk_debugger *d)
{
    if (!d)
        return;
    drop_ckpts(d);
    if (d->cap) {
        npk_set_output(d->m, stdout, stderr);
        fclose(d->cap);
    }
    free(d->off);
    free(d->prev);
    free(d);
}

void npk_debugger_echo_output(npk_debugger *d, FILE *f) { d->echo = f; }
void npk_debugger_set_interrupt(npk_debugger *d, volatile int *flag) { d->intr = flag; }

/* ---- views --------------------------------------------------------------------------- */

static void disasm_at(npk_debugger *d, uint64_t pc, char *out, size_t n)
{
    uint64_t base;
    const char *sp = prog_space(d, &base);
    size_t w = npk_insn_bytes(d->m);
    uint8_t word[16];
    out[0] = '\0';
    if (!sp || w == 0 || w > sizeof word || pc < base ||
        npk_mem_read(d->m, sp, pc - base, word, w) != NPK_OK)
        return;
    char dis[256];
    if (npk_disasm(d->m, word, pc, dis, sizeof dis) != NPK_OK)
        snprintf(dis, sizeof dis, "?");
    char hex[40];
    hex_bytes(word, w, hex, sizeof hex);
    snprintf(out, n, "%s  %s", hex, dis);
}

void npk_debugger_view_where(npk_debugger *d, FILE *out)
{
    uint64_t insns, cycles;
    counts(d, &insns, &cycles);
    uint64_t pc = cur_pc(d);
    char dis[320];
    disasm_at(d, pc, dis, sizeof dis);
    if (is_target(d, "tinytpu"))
        fprintf(out, "insn %" PRIu64 ", cycle %" PRIu64 ": next cycle record %" PRIu64 "\n",
                insns, cycles, pc);
    else
        fprintf(out, "insn %" PRIu64 ", cycle %" PRIu64 ": pc 0x%" PRIx64 "%s%s\n", insns,
                cycles, pc, dis[0] ? "  " : "", dis);
}

/* One line of the registers view, without trailing blanks. */
static void flush_line(char *line, FILE *out)
{
    size_t n = strlen(line);
    while (n > 0 && line[n - 1] == ' ')
        line[--n] = '\0';
    if (n)
        fprintf(out, "%s\n", line);
    line[0] = '\0';
}

/* The registers, 4 to a line (3 when a name is longer than 8 characters), or as many as fit
 * in `chars` columns when chars > 0 (at least one). */
static void view_regs(npk_debugger *d, size_t chars, FILE *out)
{
    uint8_t buf[1024];
    char line[512] = "";
    size_t col = 0, width = 8;
    for (size_t i = 0; i < d->n_regs; i++)
        if (strlen(npk_reg(d->m, i)->name) > width)
            width = strlen(npk_reg(d->m, i)->name);
    size_t per = width > 8 ? 3 : 4;
    if (chars)   /* a cell is the name, a blank, 19 columns of value, a blank between cells */
        per = (chars + 1) / (width + 21) < 1 ? 1 : (chars + 1) / (width + 21);
    if (per > 8)
        per = 8;
    for (size_t i = 0; i < d->n_regs; i++) {
        const npk_reg_info *r = npk_reg(d->m, i);
        size_t nb = (r->bits + 7) / 8;
        if (nb > sizeof buf)
            continue;
        read_reg(d, i, buf);
        int changed = d->have_prev && memcmp(buf, d->prev + d->off[i], nb) != 0;
        char hex[2 * sizeof buf + 4];
        hex_bytes(buf, nb, hex, sizeof hex);
        if (changed)
            strcat(hex, "*");
        if (r->bits > 64) {   /* a wide register on a line of its own */
            flush_line(line, out);
            fprintf(out, "%-*s %s\n", (int)width, r->name, hex);
            col = 0;
            continue;
        }
        size_t len = strlen(line);
        snprintf(line + len, sizeof line - len, "%s%-*s %-19s", col ? " " : "", (int)width,
                 r->name, hex);
        if (++col == per) {
            flush_line(line, out);
            col = 0;
        }
    }
    flush_line(line, out);
}

void npk_debugger_view_regs(npk_debugger *d, FILE *out) { view_regs(d, 0, out); }

void npk_debugger_view_regs_width(npk_debugger *d, size_t chars, FILE *out)
{
    view_regs(d, chars ? chars : 1, out);
}

/* A register's bytes as lanes of type t, "NAME = [a, b, ...]" (one value: "NAME = a"). */
static int print_lanes(npk_debugger *d, const char *name, npk_vtype t, FILE *out)
{
    uint8_t buf[1024];
    const npk_reg_info *r = NULL;
    for (size_t i = 0; i < d->n_regs; i++)
        if (strcasecmp(npk_reg(d->m, i)->name, name) == 0)
            r = npk_reg(d->m, i);
    if (!r)
        return -1;
    size_t nb = (r->bits + 7) / 8, es = npk_vtype_size(t);
    if (nb > sizeof buf)
        return -1;
    memset(buf, 0, sizeof buf);
    npk_reg_read_bytes(d->m, r->name, buf, nb);
    size_t lanes = nb >= es ? nb / es : 1;
    fprintf(out, "%-10s", r->name);
    for (size_t k = 0; k < lanes; k++) {
        char v[64];
        npk_value_format(t, buf + k * es, v, sizeof v);
        fprintf(out, " %8s", v);
    }
    fputc('\n', out);
    return 0;
}

static uint64_t reg_u64(npk_debugger *d, const char *name)
{
    uint64_t v = 0;
    npk_reg_read(d->m, name, &v);
    return v;
}

int npk_debugger_view_npu(npk_debugger *d, FILE *out)
{
    char name[64];
    if (is_target(d, "rvnpu")) {
        uint64_t acc = reg_u64(d, "acc"), facc = reg_u64(d, "facc");
        double f;
        memcpy(&f, &facc, sizeof f);
        fprintf(out, "acc        0x%016" PRIx64 " = %" PRId64 "\n", acc, (int64_t)acc);
        fprintf(out, "facc       0x%016" PRIx64 " = %.17g\n", facc, f);
        fprintf(out, "vector registers, int8 lanes 0..3:\n");
        for (int i = 0; i < 4; i++) {
            snprintf(name, sizeof name, "v%d", i);
            print_lanes(d, name, NPK_VT_I8, out);
        }
        return 0;
    }
    if (is_target(d, "opennpu")) {
        fprintf(out, "VR registers, int32 lanes 0..K-1:\n");
        for (int i = 0;; i++) {
            snprintf(name, sizeof name, "vr%d", i);
            if (print_lanes(d, name, NPK_VT_I32, out) != 0)
                break;
        }
        fprintf(out, "MMA accumulator P, row i = P[i][0..K-1]:\n");
        for (int i = 0;; i++) {
            snprintf(name, sizeof name, "P[%d]", i);
            if (print_lanes(d, name, NPK_VT_I32, out) != 0)
                break;
        }
        return 0;
    }
    if (is_target(d, "tinytpu")) {
        static const char *const pe_f[] = {"shadow", "active", "xout", "psum", "wout"};
        unsigned lanes = 0;
        while (1) {
            uint64_t v;
            snprintf(name, sizeof name, "old[%u]", lanes);
            if (npk_reg_read(d->m, name, &v) != NPK_OK)
                break;
            lanes++;
        }
        fprintf(out, "cycle %" PRIu64 "; PE grid (Q8.8): pe[k][j] shadow active xout psum wout"
                     " vout swout\n", reg_u64(d, "cycle"));
        for (unsigned k = 0; k < lanes; k++)
            for (unsigned j = 0; j < lanes; j++) {
                fprintf(out, "pe[%u][%u]", k, j);
                for (size_t f = 0; f < 5; f++) {
                    snprintf(name, sizeof name, "pe[%u][%u].%s", k, j, pe_f[f]);
                    uint8_t b[2] = {0, 0};
                    npk_reg_read_bytes(d->m, name, b, 2);
                    char v[64];
                    npk_value_format(NPK_VT_Q88, b, v, sizeof v);
                    fprintf(out, " %9s", v);
                }
                snprintf(name, sizeof name, "pe[%u][%u].vout", k, j);
                fprintf(out, " %" PRIu64, reg_u64(d, name));
                snprintf(name, sizeof name, "pe[%u][%u].swout", k, j);
                fprintf(out, " %" PRIu64 "\n", reg_u64(d, name));
            }
        static const char *const st[] = {"BIAS", "LREL", "LOSS", "DERIV"};
        fprintf(out, "VPU stages (Q8.8, '-' = not valid), lanes 0..%u:\n", lanes ? lanes - 1 : 0);
        for (size_t s = 0; s < 4; s++) {
            fprintf(out, "%-6s", st[s]);
            for (unsigned i = 0; i < lanes; i++) {
                snprintf(name, sizeof name, "vpu.%s.valid[%u]", st[s], i);
                uint64_t valid = reg_u64(d, name);
                snprintf(name, sizeof name, "vpu.%s.data[%u]", st[s], i);
                uint8_t b[2] = {0, 0};
                npk_reg_read_bytes(d->m, name, b, 2);
                char v[64];
                npk_value_format(NPK_VT_Q88, b, v, sizeof v);
                fprintf(out, " %9s", valid ? v : "-");
            }
            fputc('\n', out);
        }
        fprintf(out, "%-6s", "lastH");
        for (unsigned i = 0; i < lanes; i++) {
            snprintf(name, sizeof name, "vpu.lastH[%u]", i);
            uint8_t b[2] = {0, 0};
            npk_reg_read_bytes(d->m, name, b, 2);
            char v[64];
            npk_value_format(NPK_VT_Q88, b, v, sizeof v);
            fprintf(out, " %9s", v);
        }
        fputc('\n', out);
        return 0;
    }
    if (is_target(d, "pccx")) {
        static const char *const eng[] = {"memset", "mem", "gemv", "gemm", "cvo"};
        uint64_t status = reg_u64(d, "status");
        fprintf(out, "host clock %" PRIu64 ", issued %" PRIu64 ", status 0x%" PRIx64
                     " (BUSY %d DONE %d ERROR %d)\n",
                reg_u64(d, "host_clock"), reg_u64(d, "issued"), status, (int)(status & 1),
                (int)(status >> 1 & 1), (int)(status >> 2 & 1));
        fprintf(out, "command FIFO %" PRIu64 ", weight queue %" PRIu64 "\n",
                reg_u64(d, "cmd_fifo"), reg_u64(d, "weight_queue"));
        fprintf(out, "engine   queued busy\n");
        for (size_t e = 0; e < 5; e++) {
            char q[32], b[32];
            snprintf(q, sizeof q, "queue.%s", eng[e]);
            snprintf(b, sizeof b, "busy.%s", eng[e]);
            fprintf(out, "%-8s %6" PRIu64 " %4" PRIu64 "\n", eng[e], reg_u64(d, q),
                    reg_u64(d, b));
        }
        uint64_t emax = reg_u64(d, "E_MAX");
        uint8_t eb[4] = {(uint8_t)emax, (uint8_t)(emax >> 8), (uint8_t)(emax >> 16),
                         (uint8_t)(emax >> 24)};
        char v[64];
        npk_value_format(NPK_VT_F32, eb, v, sizeof v);
        fprintf(out, "E_MAX    0x%08" PRIx64 " = %s\n", emax, v);
        return 0;
    }
    fprintf(out, "%s has no NPU state beyond its registers (see 'regs')\n", d->target);
    return 0;
}

/* The commit records of tinytpu's scratch machine (tt_disasm): `left` more to print, the
 * first `past` of them before the current cycle (`seen` printed so far). */
typedef struct tt_words {
    npk_machine *m;
    FILE *out;
    unsigned left;
    unsigned past, seen;
} tt_words;

static void tt_record(npk_machine *m, const npk_commit *c, void *ctx)
{
    tt_words *w = ctx;
    if (!w->left)
        return;
    char dis[512] = "(reset cycle)";
    if (c->word_bytes)
        npk_disasm(m, c->word, c->pc, dis, sizeof dis);
    fprintf(w->out, "%s cycle %" PRIu64 ": %s\n", w->seen++ == w->past ? "=>" : "  ", c->pc,
            dis);
    w->left--;
}

/* tinytpu's program is a stream of control words, one consumed per cycle, that the machine
 * does not keep addressable: the words around the current cycle are those a copy of the
 * machine consumes. The copy starts from the last checkpoint at least two cycles back
 * (reverse execution's, so the run up to them is at most one chunk), runs to two cycles
 * before the current one, and from there records the two past cycles' words and `count`
 * coming ones (fewer past ones at the start of the history; none coming after the end). */
static int tt_disasm(npk_debugger *d, unsigned count, FILE *out, char *err, size_t n)
{
    uint64_t now;
    counts(d, &now, NULL);
    unsigned past = 0;
    size_t k = d->n_ck;
    while (k > 0 && d->ck[k - 1].insns + 2 > now)
        k--;
    if (k > 0)
        past = 2;
    else if (d->n_ck && d->ck[0].insns < now)
        past = (unsigned)(now - d->ck[0].insns), k = 1;
    uint8_t *snap = NULL;
    size_t size = 0;
    if (!past && npk_snapshot_save(d->m, &snap, &size) != NPK_OK)
        return fail(err, n, "%s", npk_error(d->m));
    npk_machine *s = NULL;
    char e[512];
    int rc = 0;
    if (npk_create(&s, "tinytpu", npk_config_string(d->m), e, sizeof e) != NPK_OK) {
        npk_free(snap);
        return fail(err, n, "%s", e);
    }
    FILE *null = tmpfile();
    npk_set_output(s, null, null);
    if (npk_snapshot_restore(s, past ? d->ck[k - 1].data : snap, past ? d->ck[k - 1].size : size,
                             NULL) != NPK_OK)
        rc = fail(err, n, "%s", npk_error(s));
    npk_stop st;
    if (rc == 0 && past && now - past > d->ck[k - 1].insns &&
        (npk_run(s, now - past - d->ck[k - 1].insns, &st) != NPK_OK ||
         st.reason != NPK_STOP_BUDGET))
        rc = fail(err, n, "re-execution to cycle %" PRIu64 " ended early", now - past);
    tt_words w = {s, out, past + (d->ended ? 0 : count), past, 0};
    npk_on_commit(s, tt_record, &w);
    while (rc == 0 && w.left)
        if (npk_step(s, &st) != NPK_OK || st.reason != NPK_STOP_NONE)
            break;
    if (rc == 0 && d->ended)
        fprintf(out, "=> the program has ended\n");
    npk_destroy(s);
    npk_free(snap);
    if (null)
        fclose(null);
    return rc;
}

int npk_debugger_view_disasm(npk_debugger *d, unsigned count, FILE *out, char *err, size_t n)
{
    if (count == 0)
        count = 5;
    if (is_target(d, "tinytpu"))
        return tt_disasm(d, count, out, err, n);
    uint64_t base;
    const char *sp = prog_space(d, &base);
    size_t w = npk_insn_bytes(d->m);
    if (!sp || !w)
        return fail(err, n, "%s: no program words to disassemble", d->target);
    uint64_t pc = cur_pc(d), start = pc;
    for (int i = 0; i < 2 && start >= base + w; i++)
        start -= w;
    for (uint64_t a = start; a < pc + (uint64_t)count * w; a += w) {
        char dis[320];
        disasm_at(d, a, dis, sizeof dis);
        if (!dis[0])
            break;
        fprintf(out, "%s0x%08" PRIx64 ":  %s\n", a == pc ? "=> " : "   ", a, dis);
    }
    return 0;
}

void npk_debugger_view_output(npk_debugger *d, FILE *out)
{
    long len = out_len(d);
    copy_out(d, 0, len, out);
    if (len > 0) {
        fseek(d->cap, len - 1, SEEK_SET);
        if (fgetc(d->cap) != '\n')
            fputs("\n\\ no newline at the end of the output\n", out);
        fseek(d->cap, 0, SEEK_END);
    }
}

int npk_debugger_view_stats(npk_debugger *d, FILE *out) { return npk_stats_print(d->m, out) == NPK_OK ? 0 : -1; }

void npk_debugger_view_breaks(npk_debugger *d, FILE *out)
{
    if (!d->n_pts) {
        fprintf(out, "no breakpoints or watchpoints\n");
        return;
    }
    fprintf(out, "Num  Type        What\n");
    for (size_t i = 0; i < d->n_pts; i++)
        fprintf(out, "%-4u %-11s %s\n", d->pts[i].num,
                d->pts[i].is_watch ? "watchpoint" : "breakpoint", d->pts[i].desc);
}

/* ---- motion -------------------------------------------------------------------------- */

static void report_stop(npk_debugger *d, FILE *out)
{
    const npk_stop *s = &d->stop;
    switch (s->reason) {
    case NPK_STOP_EXIT:
        fprintf(out, "program exited with status %d (exit value %" PRId64 ")\n",
                (int)(s->exit_code & 0xff), s->exit_code);
        break;
    case NPK_STOP_FAULT: fprintf(out, "fault: %s\n", s->message); break;
    case NPK_STOP_BREAKPOINT:
        for (size_t i = 0; i < d->n_pts; i++)
            if (!d->pts[i].is_watch && d->pts[i].pc == s->pc)
                fprintf(out, "breakpoint %u, ", d->pts[i].num);
        if (is_target(d, "tinytpu"))
            fprintf(out, "stopped before cycle record %" PRIu64 "\n", s->pc);
        else
            fprintf(out, "stopped at pc 0x%" PRIx64 "\n", s->pc);
        break;
    case NPK_STOP_WATCHPOINT: {
        npk_watch_hit h = d->hit;
        if (d->have_hit) {
            unsigned num = 0;
            for (size_t i = 0; i < d->n_pts; i++)
                if (d->pts[i].is_watch && d->pts[i].id == h.id)
                    num = d->pts[i].num;
            fprintf(out, "watchpoint %u: %s of %s:0x%" PRIx64 "+%" PRIu64 " by pc 0x%" PRIx64
                         ", value 0x%" PRIx64 "\n",
                    num, h.kind == NPK_WATCH_READ ? "read" : "write", h.space, h.addr, h.size,
                    h.pc, h.value);
        } else
            fprintf(out, "%s\n", s->message);
        break;
    }
    case NPK_STOP_BUDGET:
    case NPK_STOP_NONE: break;
    }
    if (!d->ended)
        npk_debugger_view_where(d, out);
}

static int can_run(npk_debugger *d, char *err, size_t n)
{
    /* as gdb's "The program is not being run.": nothing runs past the end */
    if (d->ended && d->stop.reason == NPK_STOP_EXIT)
        return fail(err, n, "the program has exited with status %d and is not being run; "
                    "'reverse-step', 'reverse-continue', 'load' or 'quit'",
                    (int)(d->stop.exit_code & 0xff));
    if (d->ended)
        return fail(err, n, "the program stopped on a fault and is not being run; "
                    "'reverse-step', 'reverse-continue', 'load' or 'quit'");
    return 0;
}

static void set_stop(npk_debugger *d, const npk_stop *st)
{
    d->stop = *st;
    d->have_hit = st->reason == NPK_STOP_WATCHPOINT && npk_watch_last_hit(d->m, &d->hit) == NPK_OK;
    d->ended = st->reason == NPK_STOP_EXIT || st->reason == NPK_STOP_FAULT;
}

/* Ctrl-C since the last look (line mode): take it, once. */
static int interrupted(npk_debugger *d)
{
    if (!d->intr || !*d->intr)
        return 0;
    *d->intr = 0;
    return 1;
}

/* The end of every command that moved the program: its stop, new guest output, the report. */
static int moved(npk_debugger *d, const npk_stop *st, FILE *out)
{
    set_stop(d, st);
    echo_new(d);
    report_stop(d, out);
    return 0;
}

/* One step; a breakpoint at the starting pc that stops it with nothing done (it was not just
 * reported: set there afterwards, or reached by reverse execution) is stepped over, as a
 * debugger user expects from 'step' at a breakpoint. */
static npk_status step1(npk_debugger *d, npk_stop *st, int first)
{
    uint64_t before, after;
    counts(d, &before, NULL);
    npk_status s = npk_step(d->m, st);
    if (s == NPK_OK && first && st->reason == NPK_STOP_BREAKPOINT) {
        counts(d, &after, NULL);
        if (after == before)
            s = npk_step(d->m, st);
    }
    return s;
}

/* Run up to budget instructions (0: no limit) in chunks, a checkpoint after each. A
 * breakpoint at the starting pc is run over as in step1. */
static int run_for(npk_debugger *d, uint64_t budget, npk_stop *st, char *err, size_t n)
{
    uint64_t start, now;
    counts(d, &start, NULL);
    int first = 1;
    for (;;) {
        counts(d, &now, NULL);
        uint64_t done = now - start, chunk = CHUNK;
        if (budget && budget - done < chunk)
            chunk = budget - done;
        if (budget && chunk == 0) {
            st->reason = NPK_STOP_BUDGET;
            return 0;
        }
        if (npk_run(d->m, chunk, st) != NPK_OK)
            return fail(err, n, "%s", npk_error(d->m));
        uint64_t after;
        counts(d, &after, NULL);
        if (first && st->reason == NPK_STOP_BREAKPOINT && after == now) {
            first = 0;
            continue;
        }
        first = 0;
        if (st->reason != NPK_STOP_BUDGET)
            return 0;
        checkpoint(d);
        if (interrupted(d)) {
            st->reason = NPK_STOP_NONE;
            return 0;
        }
    }
}

/* Go to instruction count `target` (<= now) by restoring the latest checkpoint at or before
 * it and re-executing. The stop is left as a plain step stop. */
static int go_to(npk_debugger *d, uint64_t target, char *err, size_t n)
{
    size_t k = d->n_ck;
    while (k > 0 && d->ck[k - 1].insns > target)
        k--;
    if (k == 0)
        return fail(err, n, "cannot go back to instruction %" PRIu64 ": this history starts at "
                    "instruction %" PRIu64 " (the start, or the last 'load')", target,
                    d->n_ck ? d->ck[0].insns : 0);
    ckpt *c = &d->ck[k - 1];
    if (npk_snapshot_restore(d->m, c->data, c->size, "checkpoint") != NPK_OK)
        return fail(err, n, "%s", npk_error(d->m));
    out_truncate(d, c->out_len);
    npk_stop st;
    memset(&st, 0, sizeof st);
    for (;;) {
        uint64_t now;
        counts(d, &now, NULL);
        if (now >= target)
            break;
        if (npk_run(d->m, target - now, &st) != NPK_OK)
            return fail(err, n, "%s", npk_error(d->m));
        if (st.reason == NPK_STOP_EXIT || st.reason == NPK_STOP_FAULT)
            return fail(err, n, "re-execution ended early: %s (not deterministic?)",
                        st.message);
    }
    /* drop checkpoints of the future: they are taken again when it is run */
    while (d->n_ck > k) {
        npk_free(d->ck[d->n_ck - 1].data);
        d->n_ck--;
    }
    memset(&d->stop, 0, sizeof d->stop);
    d->stop.pc = cur_pc(d);
    d->ended = 0;
    d->echoed = out_len(d);   /* re-executed output was shown when it first ran */
    return 0;
}

/* The last breakpoint or watchpoint stop before instruction count `now`: each segment
 * between checkpoints is re-run from its checkpoint (a 'set' starts a new one), the latest
 * segment first, until one has a hit. */
static int last_hit_before(npk_debugger *d, uint64_t now, uint64_t *at, int *found,
                           npk_stop *hit, char *err, size_t n)
{
    *found = 0;
    if (d->n_ck == 0)
        return fail(err, n, "no snapshot to go back from");
    for (size_t k = d->n_ck; k-- > 0 && !*found;) {
        uint64_t end = k + 1 < d->n_ck ? d->ck[k + 1].insns : now;
        if (end > now)
            end = now;
        if (d->ck[k].insns >= now)
            continue;
        if (npk_snapshot_restore(d->m, d->ck[k].data, d->ck[k].size, "checkpoint") != NPK_OK)
            return fail(err, n, "%s", npk_error(d->m));
        uint64_t cur = d->ck[k].insns;
        while (cur < end) {
            npk_stop st;
            if (npk_run(d->m, end - cur, &st) != NPK_OK)
                return fail(err, n, "%s", npk_error(d->m));
            uint64_t after;
            counts(d, &after, NULL);
            if ((st.reason == NPK_STOP_BREAKPOINT || st.reason == NPK_STOP_WATCHPOINT) &&
                after < now) {
                *at = after;
                *hit = st;
                *found = 1;
                d->have_hit = st.reason == NPK_STOP_WATCHPOINT &&
                              npk_watch_last_hit(d->m, &d->hit) == NPK_OK;
            }
            if (st.reason == NPK_STOP_EXIT || st.reason == NPK_STOP_FAULT)
                break;
            cur = after;
        }
    }
    return 0;
}

/* A backdoor write or a loaded snapshot changes the state at this count: checkpoints from
 * here on describe another history. */
static void state_written(npk_debugger *d)
{
    uint64_t now;
    counts(d, &now, NULL);
    while (d->n_ck > 0 && d->ck[d->n_ck - 1].insns >= now) {
        npk_free(d->ck[d->n_ck - 1].data);
        d->n_ck--;
    }
    checkpoint(d);
}

/* ---- argument parsing ------------------------------------------------------------------ */

static int tokenize(char *s, char **tok, int max)
{
    int n = 0;
    while (*s && n < max) {
        while (isspace((unsigned char)*s))
            s++;
        if (!*s)
            break;
        tok[n++] = s;
        while (*s && !isspace((unsigned char)*s))
            s++;
        if (*s)
            *s++ = '\0';
    }
    return n;
}

static int count_arg(const char *s, uint64_t *v, char *err, size_t n)
{
    int rc = npk_parse_u64(s, v);
    if (rc != 0)
        return fail(err, n, "'%s' %s", s, npk_parse_u64_problem(rc));
    return 0;
}

/* SPACE:ADDR, or SYMBOL[+OFF] on toy/rvnpu (their data space): space and offset in it. */
static int mem_ref(npk_debugger *d, const char *arg, char *space, size_t sn, uint64_t *addr,
                   char *err, size_t n)
{
    const char *colon = strchr(arg, ':');
    if (colon) {
        if ((size_t)(colon - arg) >= sn || colon == arg)
            return fail(err, n, "'%s': expected SPACE:ADDR", arg);
        memcpy(space, arg, (size_t)(colon - arg));
        space[colon - arg] = '\0';
        int rc = npk_parse_u64(colon + 1, addr);
        if (rc != 0)
            return fail(err, n, "'%s': address '%s' %s", arg, colon + 1,
                        npk_parse_u64_problem(rc));
        for (size_t i = 0; i < npk_space_count(d->m); i++)
            if (strcasecmp(npk_space(d->m, i)->name, space) == 0)
                return 0;
        char list[512] = "";
        for (size_t i = 0; i < npk_space_count(d->m); i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     npk_space(d->m, i)->name);
        return fail(err, n, "'%s': no memory '%s' on %s (memories: %s)", arg, space, d->target,
                    list);
    }
    uint64_t base, off = 0, v;
    char sym[256];
    snprintf(sym, sizeof sym, "%s", arg);
    char *plus = strchr(sym, '+');
    if (plus) {
        *plus = '\0';
        int rc = npk_parse_u64(plus + 1, &off);
        if (rc != 0)
            return fail(err, n, "'%s': offset '%s' %s", arg, plus + 1, npk_parse_u64_problem(rc));
    }
    if (!data_space(d, &base))
        return fail(err, n, "'%s': give SPACE:ADDR (%s symbols are not addresses of one memory)",
                    arg, d->target);
    if (npk_symbol(d->m, sym, &v) != NPK_OK)
        return fail(err, n, "'%s': not SPACE:ADDR, and %s", arg, npk_error(d->m));
    if (v < base)
        return fail(err, n, "'%s' = 0x%" PRIx64 " is not in memory", arg, v);
    snprintf(space, sn, "%s", is_target(d, "rvnpu") ? "ram" : "mem");
    *addr = v - base + off;
    return 0;
}

/* "x/i32" -> cmd "x", type; no suffix -> NPK_VT_BYTES. */
static int split_fmt(char *cmd, npk_vtype *t, int *has, char *err, size_t n)
{
    char *slash = strchr(cmd, '/');
    *t = NPK_VT_BYTES;
    *has = 0;
    if (!slash)
        return 0;
    *slash = '\0';
    const char *f = slash + 1;
    *has = 1;
    if (strcmp(f, "x") == 0 || strcmp(f, "hex") == 0)
        return 0;
    if (npk_vtype_parse(f, strlen(f), t) != 0)
        return fail(err, n, "unknown format '/%s' (x, %s)", f, npk_vtype_list());
    return 0;
}

static const npk_reg_info *find_reg(npk_debugger *d, const char *name, size_t *idx)
{
    for (size_t i = 0; i < d->n_regs; i++)
        if (strcasecmp(npk_reg(d->m, i)->name, name) == 0) {
            if (idx)
                *idx = i;
            return npk_reg(d->m, i);
        }
    return NULL;
}

/* ---- commands ------------------------------------------------------------------------ */

static const char help_text[] =
    "motion:\n"
    "  step [N]        (s, si)  execute N instructions (tinytpu: cycles; default 1)\n"
    "  next [N]        (n, ni)  as step, but a call (rvnpu jal/jalr with rd = ra) runs to\n"
    "                           its return; on other targets the same as step\n"
    "  continue        (c)      run to a breakpoint, watchpoint, exit or fault\n"
    "  until N         (u)      run until N instructions have retired in all\n"
    "  until cycle N            run until the timing model's cycle count reaches N\n"
    "  reverse-step [N] (rs)    go back N instructions (snapshots and re-execution)\n"
    "  reverse-continue (rc)    go back to the last breakpoint or watchpoint hit\n"
    "breakpoints:\n"
    "  break ADDR|SYMBOL (b)    stop before the instruction at ADDR (tinytpu: the cycle)\n"
    "  watch [r|w|rw] SPACE:ADDR[+LEN] | SYMBOL[+LEN]\n"
    "                           stop after an access (w, the default: writes)\n"
    "  delete [NUM...] (d)      delete breakpoints/watchpoints (all without NUM)\n"
    "  info break      (i b)    list them\n"
    "state:\n"
    "  regs            (info registers, i r)  every register; '*' = changed by the last\n"
    "                           command that ran the program\n"
    "  print[/TYPE] REG (p)     one register (TYPE: its bytes as lanes of TYPE)\n"
    "  set REG VALUE            write a register (a number; -N is two's complement)\n"
    "  set/TYPE REG V...        write a register's lanes\n"
    "  set[/TYPE] SPACE:ADDR|SYMBOL V...   write memory (default TYPE u8)\n"
    "  x[/TYPE] SPACE:ADDR|SYMBOL [COUNT]  show COUNT elements (default 8; x: hex bytes)\n"
    "  npu                      the NPU or engine state of the target\n"
    "  disasm [N]      (dis)    instructions around pc (tinytpu: the 2 past and N next\n"
    "                           cycles' words)\n"
    "  where                    instruction and cycle counts, pc\n"
    "  stats                    statistics so far\n"
    "  output                   the program's output so far\n"
    "  save FILE / load FILE    write / restore a snapshot of the machine\n"
    "  help, quit (q)\n"
    "TYPE: x (hex bytes), i8, u8, i16, u16, i32, u32, f32, bf16, q8.8, e4m3, e5m2\n";

static int cmd_step(npk_debugger *d, int argc, char **argv, int over, FILE *out, char *err,
                    size_t n)
{
    uint64_t count = 1;
    if (argc > 2)
        return fail(err, n, "usage: %s [N]", argv[0]);
    if (argc == 2 && count_arg(argv[1], &count, err, n) != 0)
        return -1;
    if (can_run(d, err, n) != 0)
        return -1;
    checkpoint(d);
    mark_regs(d);
    npk_stop st;
    memset(&st, 0, sizeof st);
    for (uint64_t i = 0; i < count; i++) {
        uint64_t pc = cur_pc(d);
        uint32_t w = 0;
        int call = 0;
        if (over && is_target(d, "rvnpu") &&
            npk_mem_read(d->m, "ram", pc - 0x80000000u, &w, 4) == NPK_OK)
            call = ((w & 0x7f) == 0x6f || (w & 0x707f) == 0x67) && ((w >> 7) & 31) == 1;
        if (call) {
            int had = npk_break_add(d->m, pc + 4) == NPK_OK;
            for (size_t k = 0; k < d->n_pts; k++)
                if (!d->pts[k].is_watch && d->pts[k].pc == pc + 4)
                    had = 0;
            int r = run_for(d, 0, &st, err, n);
            if (had)
                npk_break_remove(d->m, pc + 4);
            if (r != 0)
                return -1;
            if (had && st.reason == NPK_STOP_BREAKPOINT && st.pc == pc + 4)
                st.reason = NPK_STOP_NONE;
        } else if (step1(d, &st, i == 0) != NPK_OK)
            return fail(err, n, "%s", npk_error(d->m));
        if (st.reason != NPK_STOP_NONE)
            break;
        if (interrupted(d))
            break;
    }
    return moved(d, &st, out);
}

static int cmd_continue(npk_debugger *d, uint64_t budget, FILE *out, char *err, size_t n)
{
    if (can_run(d, err, n) != 0)
        return -1;
    checkpoint(d);
    mark_regs(d);
    npk_stop st;
    memset(&st, 0, sizeof st);
    if (run_for(d, budget, &st, err, n) != 0)
        return -1;
    if (st.reason == NPK_STOP_BUDGET)
        st.reason = NPK_STOP_NONE;
    return moved(d, &st, out);
}

static int cmd_until(npk_debugger *d, int argc, char **argv, FILE *out, char *err, size_t n)
{
    uint64_t target, insns, cycles;
    int by_cycle = argc == 3 && strcmp(argv[1], "cycle") == 0;
    if (!(argc == 2 || by_cycle))
        return fail(err, n, "usage: until N | until cycle N");
    if (count_arg(argv[argc - 1], &target, err, n) != 0)
        return -1;
    counts(d, &insns, &cycles);
    if (!by_cycle) {
        if (target <= insns)
            return fail(err, n, "already at instruction %" PRIu64 " (reverse-step goes back)",
                        insns);
        return cmd_continue(d, target - insns, out, err, n);
    }
    if (target <= cycles)
        return fail(err, n, "already at cycle %" PRIu64, cycles);
    if (can_run(d, err, n) != 0)
        return -1;
    checkpoint(d);
    mark_regs(d);
    npk_stop st;
    memset(&st, 0, sizeof st);
    int first = 1;
    while (cycles < target) {
        if (step1(d, &st, first) != NPK_OK)
            return fail(err, n, "%s", npk_error(d->m));
        first = 0;
        if (st.reason != NPK_STOP_NONE)
            break;
        counts(d, &insns, &cycles);
        if (interrupted(d))
            break;
    }
    return moved(d, &st, out);
}

static int cmd_reverse(npk_debugger *d, int argc, char **argv, int cont, FILE *out, char *err,
                       size_t n)
{
    uint64_t count = 1, now;
    if (argc > (cont ? 1 : 2))
        return fail(err, n, "usage: %s", cont ? "reverse-continue" : "reverse-step [N]");
    if (argc == 2 && count_arg(argv[1], &count, err, n) != 0)
        return -1;
    counts(d, &now, NULL);
    checkpoint(d);
    mark_regs(d);
    if (cont) {
        uint64_t at = 0;
        int found;
        npk_stop hit;
        if (last_hit_before(d, now, &at, &found, &hit, err, n) != 0)
            return -1;
        if (go_to(d, found ? at : 0, err, n) != 0)
            return -1;
        if (found) {
            d->stop = hit;
            report_stop(d, out);
        } else {
            fprintf(out, "no breakpoint or watchpoint hit before: at the start\n");
            npk_debugger_view_where(d, out);
        }
        return 0;
    }
    if (now == 0)
        return fail(err, n, "at the start of the program: nothing to go back to");
    if (count > now)
        count = now;
    if (go_to(d, now - count, err, n) != 0)
        return -1;
    npk_debugger_view_where(d, out);
    return 0;
}

static int cmd_break(npk_debugger *d, int argc, char **argv, FILE *out, char *err, size_t n)
{
    if (argc != 2)
        return fail(err, n, "usage: break ADDR|SYMBOL");
    if (d->n_pts == MAX_POINTS)
        return fail(err, n, "at most %d breakpoints and watchpoints", MAX_POINTS);
    uint64_t pc;
    int rc = npk_parse_u64(argv[1], &pc);
    if (rc != 0 && npk_symbol(d->m, argv[1], &pc) != NPK_OK)
        return rc == -2 ? fail(err, n, "break %s: the address %s", argv[1],
                               npk_parse_u64_problem(rc))
                        : fail(err, n, "break %s: not a number, and %s", argv[1],
                               npk_error(d->m));
    for (size_t i = 0; i < d->n_pts; i++)
        if (!d->pts[i].is_watch && d->pts[i].pc == pc)
            return fail(err, n, "breakpoint %u is at 0x%" PRIx64 " already", d->pts[i].num, pc);
    if (npk_break_add(d->m, pc) != NPK_OK)
        return fail(err, n, "break %s: %s", argv[1], npk_error(d->m));
    point *p = &d->pts[d->n_pts++];
    memset(p, 0, sizeof *p);
    p->num = d->next_num++;
    p->pc = pc;
    int tt = is_target(d, "tinytpu");
    if (npk_parse_u64(argv[1], &pc) == 0)
        snprintf(p->desc, sizeof p->desc, tt ? "cycle record %" PRIu64 : "pc 0x%" PRIx64, p->pc);
    else
        snprintf(p->desc, sizeof p->desc, tt ? "cycle record %" PRIu64 " (%s)" : "pc 0x%" PRIx64 " (%s)",
                 p->pc, argv[1]);
    fprintf(out, "breakpoint %u at %s\n", p->num, p->desc);
    return 0;
}

static int cmd_watch(npk_debugger *d, int argc, char **argv, FILE *out, char *err, size_t n)
{
    unsigned kind = NPK_WATCH_WRITE;
    const char *ks = "w";
    int a = 1;
    if (argc == 3) {
        ks = argv[1];
        if (strcmp(ks, "r") == 0)
            kind = NPK_WATCH_READ;
        else if (strcmp(ks, "rw") == 0)
            kind = NPK_WATCH_READ | NPK_WATCH_WRITE;
        else if (strcmp(ks, "w") != 0)
            return fail(err, n, "watch: kind '%s': expected r, w or rw", ks);
        a = 2;
    } else if (argc != 2)
        return fail(err, n, "usage: watch [r|w|rw] SPACE:ADDR[+LEN] | SYMBOL[+LEN]");
    if (d->n_pts == MAX_POINTS)
        return fail(err, n, "at most %d breakpoints and watchpoints", MAX_POINTS);
    char body[200], space[200] = "";
    snprintf(body, sizeof body, "%s", argv[a]);
    uint64_t len = 1, addr;
    int has_len = 0;
    char *plus = strrchr(body, '+');
    if (plus) {
        *plus = '\0';
        int rc = npk_parse_u64(plus + 1, &len);
        if (rc != 0)
            return fail(err, n, "watch %s: length '%s' %s", argv[a], plus + 1,
                        npk_parse_u64_problem(rc));
        has_len = 1;
    }
    npk_status st;
    unsigned id = 0;
    if (strchr(body, ':')) {
        if (mem_ref(d, body, space, sizeof space, &addr, err, n) != 0)
            return -1;
        st = npk_watch_add(d->m, space, addr, len, kind, &id);
    } else {
        if (npk_symbol(d->m, body, &addr) != NPK_OK)
            return fail(err, n, "watch %s: %s", argv[a], npk_error(d->m));
        uint64_t size = 0;
        if (!has_len)
            len = npk_symbol_size(d->m, body, &size) == NPK_OK && size ? size : 1;
        st = npk_watch_add(d->m, NULL, addr, len, kind, &id);
        snprintf(space, sizeof space, "%s", body);
    }
    if (st != NPK_OK)
        return fail(err, n, "watch %s: %s", argv[a], npk_error(d->m));
    point *p = &d->pts[d->n_pts++];
    memset(p, 0, sizeof *p);
    p->num = d->next_num++;
    p->is_watch = 1;
    p->id = id;
    snprintf(p->desc, sizeof p->desc, "%s %s:0x%" PRIx64 "+%" PRIu64, ks,
             strchr(body, ':') ? space : body, addr, len);
    fprintf(out, "watchpoint %u: %s\n", p->num, p->desc);
    return 0;
}

static int cmd_delete(npk_debugger *d, int argc, char **argv, FILE *out, char *err, size_t n)
{
    (void)out;
    if (argc == 1) {
        npk_break_clear(d->m);
        npk_watch_clear(d->m);
        d->n_pts = 0;
        return 0;
    }
    for (int a = 1; a < argc; a++) {
        uint64_t num;
        if (count_arg(argv[a], &num, err, n) != 0)
            return -1;
        size_t i = 0;
        while (i < d->n_pts && d->pts[i].num != num)
            i++;
        if (i == d->n_pts)
            return fail(err, n, "no breakpoint or watchpoint %s", argv[a]);
        npk_status st = d->pts[i].is_watch ? npk_watch_remove(d->m, d->pts[i].id)
                                           : npk_break_remove(d->m, d->pts[i].pc);
        if (st != NPK_OK)
            return fail(err, n, "delete %s: %s", argv[a], npk_error(d->m));
        memmove(&d->pts[i], &d->pts[i + 1], (d->n_pts - i - 1) * sizeof d->pts[0]);
        d->n_pts--;
    }
    return 0;
}

static int cmd_print(npk_debugger *d, int argc, char **argv, npk_vtype t, int has, FILE *out,
                     char *err, size_t n)
{
    if (argc < 2)
        return fail(err, n, "usage: print[/TYPE] REG...");
    for (int a = 1; a < argc; a++) {
        size_t idx;
        const npk_reg_info *r = find_reg(d, argv[a], &idx);
        if (!r)
            return fail(err, n, "no register '%s' on %s ('regs' lists them)", argv[a],
                        d->target);
        if (has && t != NPK_VT_BYTES) {
            print_lanes(d, r->name, t, out);
            continue;
        }
        uint8_t buf[1024];
        size_t nb = (r->bits + 7) / 8;
        if (nb > sizeof buf)
            return fail(err, n, "%s is too wide to print", r->name);
        read_reg(d, idx, buf);
        char hex[2 * sizeof buf + 4];
        hex_bytes(buf, nb, hex, sizeof hex);
        if (r->bits <= 64 && !has) {
            uint64_t v = 0;
            for (size_t i = nb; i-- > 0;)
                v = v << 8 | buf[i];
            int64_t sv = r->bits < 64 && (v >> (r->bits - 1) & 1) ? (int64_t)(v - ((uint64_t)1 << r->bits))
                                                                    : (int64_t)v;
            fprintf(out, "%s = %s = %" PRIu64, r->name, hex, v);
            if (sv < 0)
                fprintf(out, " (%" PRId64 ")", sv);
            if (npk_reg_is_f32(d->m, idx)) {
                char f[64];
                npk_value_format(NPK_VT_F32, buf, f, sizeof f);
                fprintf(out, " (f32 %s)", f);
            }
            fputc('\n', out);
        } else
            fprintf(out, "%s = %s\n", r->name, hex);
    }
    return 0;
}

static int cmd_x(npk_debugger *d, int argc, char **argv, npk_vtype t, FILE *out, char *err,
                 size_t n)
{
    if (argc < 2 || argc > 3)
        return fail(err, n, "usage: x[/TYPE] SPACE:ADDR|SYMBOL [COUNT]");
    char space[64];
    uint64_t addr, count = 8;
    if (mem_ref(d, argv[1], space, sizeof space, &addr, err, n) != 0)
        return -1;
    if (argc == 3 && count_arg(argv[2], &count, err, n) != 0)
        return -1;
    size_t es = npk_vtype_size(t);
    if (count == 0 || count > 65536)
        return fail(err, n, "count %" PRIu64 ": 1 .. 65536 elements", count);
    uint8_t *buf = malloc(count * es);
    if (!buf)
        return fail(err, n, "out of memory");
    if (npk_mem_read(d->m, space, addr, buf, count * es) != NPK_OK) {
        fail(err, n, "x %s: %s", argv[1], npk_error(d->m));
        free(buf);
        return -1;
    }
    unsigned per = t == NPK_VT_BYTES ? 16 : 8;
    for (uint64_t i = 0; i < count; i++) {
        if (i % per == 0)
            fprintf(out, "%s%s:0x%" PRIx64 ":", i ? "\n" : "", space, addr + i * es);
        char v[64];
        if (t == NPK_VT_BYTES)
            snprintf(v, sizeof v, "%02x", buf[i]);
        else
            npk_value_format(t, buf + i * es, v, sizeof v);
        fprintf(out, " %s", v);
    }
    fputc('\n', out);
    free(buf);
    return 0;
}

static int cmd_set(npk_debugger *d, int argc, char **argv, npk_vtype t, int has, FILE *out,
                   char *err, size_t n)
{
    (void)out;
    int a = 2;
    if (argc >= 3 && strcmp(argv[2], "=") == 0)
        a = 3;
    if (argc <= a)
        return fail(err, n, "usage: set[/TYPE] REG|SPACE:ADDR|SYMBOL [=] VALUE...");
    size_t idx;
    const npk_reg_info *r = find_reg(d, argv[1], &idx);
    int nvals = argc - a;
    if (r && !(has && t != NPK_VT_BYTES)) {
        if (nvals != 1)
            return fail(err, n, "set %s: one value", r->name);
        uint64_t v;
        const char *s = argv[a];
        int neg = s[0] == '-';
        int rc = npk_parse_u64(neg ? s + 1 : s, &v);
        if (rc != 0)
            return fail(err, n, "set %s: '%s' %s", r->name, s, npk_parse_u64_problem(rc));
        if (neg) {
            v = (uint64_t)0 - v;
            if (r->bits < 64)
                v &= ((uint64_t)1 << r->bits) - 1;
        }
        if (npk_reg_write(d->m, r->name, v) != NPK_OK)
            return fail(err, n, "set %s: %s", r->name, npk_error(d->m));
        state_written(d);
        return 0;
    }
    npk_vtype et = has && t != NPK_VT_BYTES ? t : NPK_VT_U8;
    size_t es = npk_vtype_size(et);
    uint8_t buf[1024];
    if ((size_t)nvals * es > sizeof buf)
        return fail(err, n, "set: at most %zu bytes at once", sizeof buf);
    for (int i = 0; i < nvals; i++) {
        char why[256];
        if (npk_value_parse(et, argv[a + i], buf + (size_t)i * es, why, sizeof why) != 0)
            return fail(err, n, "set %s: %s", argv[1], why);
    }
    if (r) {
        size_t nb = (r->bits + 7) / 8;
        if ((size_t)nvals * es != nb)
            return fail(err, n, "set/%s %s: %s is %zu bytes: give %zu values", npk_vtype_name(et),
                        r->name, r->name, nb, nb / es ? nb / es : 1);
        if (npk_reg_write_bytes(d->m, r->name, buf, nb) != NPK_OK)
            return fail(err, n, "set %s: %s", r->name, npk_error(d->m));
        state_written(d);
        return 0;
    }
    char space[64];
    uint64_t addr;
    if (!strchr(argv[1], ':') && !data_space(d, &addr))
        return fail(err, n, "set %s: no register '%s' on %s, and not SPACE:ADDR", argv[1],
                    argv[1], d->target);
    if (mem_ref(d, argv[1], space, sizeof space, &addr, err, n) != 0)
        return -1;
    if (npk_mem_write(d->m, space, addr, buf, (size_t)nvals * es) != NPK_OK)
        return fail(err, n, "set %s: %s", argv[1], npk_error(d->m));
    state_written(d);
    return 0;
}

int npk_debugger_exec(npk_debugger *d, const char *line, FILE *out, char *err, size_t n)
{
    char buf[1024];
    if (strlen(line) >= sizeof buf)
        return fail(err, n, "command line longer than %zu characters", sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", line);
    char *hash = strchr(buf, '#');
    if (hash)
        *hash = '\0';
    char *argv[64];
    int argc = tokenize(buf, argv, 64);
    if (argc == 0)
        return 0;
    npk_vtype t;
    int has;
    if (split_fmt(argv[0], &t, &has, err, n) != 0)
        return -1;
    const char *c = argv[0];
#define IS(a) (strcmp(c, a) == 0)
    if (has && !(IS("x") || IS("print") || IS("p") || IS("set")))
        return fail(err, n, "'%s' takes no /FORMAT", c);
    if (IS("step") || IS("s") || IS("stepi") || IS("si"))
        return cmd_step(d, argc, argv, 0, out, err, n);
    if (IS("next") || IS("n") || IS("nexti") || IS("ni"))
        return cmd_step(d, argc, argv, 1, out, err, n);
    if (IS("continue") || IS("c") || IS("cont")) {
        if (argc != 1)
            return fail(err, n, "usage: continue");
        return cmd_continue(d, 0, out, err, n);
    }
    if (IS("until") || IS("u"))
        return cmd_until(d, argc, argv, out, err, n);
    if (IS("reverse-step") || IS("rs") || IS("reverse-stepi") || IS("rsi"))
        return cmd_reverse(d, argc, argv, 0, out, err, n);
    if (IS("reverse-continue") || IS("rc"))
        return cmd_reverse(d, argc, argv, 1, out, err, n);
    if (IS("break") || IS("b"))
        return cmd_break(d, argc, argv, out, err, n);
    if (IS("watch"))
        return cmd_watch(d, argc, argv, out, err, n);
    if (IS("delete") || IS("d"))
        return cmd_delete(d, argc, argv, out, err, n);
    if (IS("info") || IS("i")) {
        if (argc == 2 && (strcmp(argv[1], "break") == 0 || strcmp(argv[1], "b") == 0 ||
                          strcmp(argv[1], "breakpoints") == 0 || strcmp(argv[1], "watch") == 0 ||
                          strcmp(argv[1], "watchpoints") == 0)) {
            npk_debugger_view_breaks(d, out);
            return 0;
        }
        if (argc == 2 && (strcmp(argv[1], "registers") == 0 || strcmp(argv[1], "r") == 0)) {
            npk_debugger_view_regs(d, out);
            return 0;
        }
        return fail(err, n, "usage: info break | info registers");
    }
    if (IS("regs")) {
        if (argc != 1)
            return fail(err, n, "usage: regs (print REG for one)");
        npk_debugger_view_regs(d, out);
        return 0;
    }
    if (IS("print") || IS("p"))
        return cmd_print(d, argc, argv, t, has, out, err, n);
    if (IS("set"))
        return cmd_set(d, argc, argv, t, has, out, err, n);
    if (IS("x"))
        return cmd_x(d, argc, argv, t, out, err, n);
    if (IS("npu"))
        return npk_debugger_view_npu(d, out);
    if (IS("disasm") || IS("dis")) {
        uint64_t k = 5;
        if (argc > 2 || (argc == 2 && count_arg(argv[1], &k, err, n) != 0))
            return argc > 2 ? fail(err, n, "usage: disasm [N]") : -1;
        if (k == 0 || k > 1000)
            return fail(err, n, "disasm %" PRIu64 ": 1 .. 1000", k);
        return npk_debugger_view_disasm(d, (unsigned)k, out, err, n);
    }
    if (IS("where")) {
        npk_debugger_view_where(d, out);
        return 0;
    }
    if (IS("stats")) {
        if (npk_debugger_view_stats(d, out) != 0)
            return fail(err, n, "%s", npk_error(d->m));
        return 0;
    }
    if (IS("output")) {
        npk_debugger_view_output(d, out);
        return 0;
    }
    if (IS("save") || IS("load")) {
        if (argc != 2)
            return fail(err, n, "usage: %s FILE", c);
        if (IS("save")) {
            if (npk_snapshot_save_file(d->m, argv[1]) != NPK_OK)
                return fail(err, n, "save: %s", npk_error(d->m));
            fprintf(out, "saved the machine to %s\n", argv[1]);
            return 0;
        }
        mark_regs(d);
        if (npk_snapshot_restore_file(d->m, argv[1]) != NPK_OK)
            return fail(err, n, "load: %s", npk_error(d->m));
        drop_ckpts(d);
        memset(&d->stop, 0, sizeof d->stop);
        d->ended = 0;
        checkpoint(d);
        fprintf(out, "loaded %s\n", argv[1]);
        npk_debugger_view_where(d, out);
        return 0;
    }
    if (IS("help") || IS("h")) {
        fputs(help_text, out);
        return 0;
    }
    if (IS("quit") || IS("q") || IS("exit"))
        return 1;
#undef IS
    return fail(err, n, "unknown command '%s' ('help' lists them)", c);
}
