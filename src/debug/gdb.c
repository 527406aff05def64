/* The GDB remote serial protocol (all-stop, one thread) over a socket, on top of the public
 * machine API: registers by name, bounds-checked memory, npk_break_* / npk_watch_*, npk_step
 * and npk_run in slices so that a Ctrl-C (0x03) during `continue` is seen within milliseconds.
 * All state lives in one per-session struct; nothing is global. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "debug/gdb.h"

enum {
    PKT_MAX = 16384,        /* PacketSize we announce: the longest packet we accept */
    MAX_WATCH = 64,
    /* instructions per run slice during `continue`: about a millisecond on the observed loop,
     * so the socket is polled far more often than the 50 ms an interrupt may take */
    SLICE = 50000,
    RESENDS = 8,            /* a reply gdb keeps NAKing is dropped after this many tries */
    /* reverse execution: at most MAX_CKPT snapshots, at least `gap` instructions apart (the
     * gap starts at CKPT_GAP and doubles whenever the list is thinned to half) */
    MAX_CKPT = 32,
    CKPT_GAP = 1000000
};

typedef struct ckpt {
    uint64_t at;            /* retired instructions when it was taken */
    uint8_t *data;
    size_t size;
} ckpt;

typedef struct watch_slot {
    int used;
    char type;              /* '2' write, '3' read, '4' access */
    uint64_t addr, len;
    unsigned id;
} watch_slot;

typedef struct gdb_session {
    npk_machine *m;
    const npk_gdb_target *t;
    npk_gdb_io io;
    FILE *log;
    uint64_t budget;        /* instructions the session may execute in all (0: no limit) */
    uint64_t spent;
    uint8_t in[4096];
    size_t in_len, in_pos;
    int no_ack;
    int closed;             /* the peer went away */
    int exited;             /* the program ended: W was reported */
    char pkt[PKT_MAX + 1];
    size_t pkt_len;
    char *reply;            /* the reply being built (PKT_MAX * 2 + 8 bytes) */
    size_t reply_len;
    char *last;             /* the last reply sent, for a '-' asking for it again */
    size_t last_len;
    char *xml;
    size_t xml_len;
    uint8_t *reset_state;   /* a snapshot of the freshly loaded program: `monitor reset` */
    size_t reset_size;
    FILE *guest_out, *guest_err; /* where the program's output goes */
    FILE *sink;             /* output of re-executed instructions (already written once) */
    npk_stop stop;          /* the last stop */
    char stop_reply[128];
    ckpt ck[MAX_CKPT];      /* the history reverse execution goes back through */
    size_t n_ck;
    uint64_t gap;
    uint64_t high;          /* the furthest point reached: output below it was written */
    watch_slot watch[MAX_WATCH];
} gdb_session;

static void logf_(gdb_session *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void logf_(gdb_session *s, const char *fmt, ...)
{
    if (!s->log)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("npukit gdb: ", s->log);
    vfprintf(s->log, fmt, ap);
    fputc('\n', s->log);
    va_end(ap);
    fflush(s->log);
}

/* ---- bytes in and out ----------------------------------------------------------------- */

/* The next byte from the peer; -1 when the connection is gone. timeout_ms < 0 waits; 0 only
 * looks (returns -2 when nothing is there). */
static int get_byte(gdb_session *s, int timeout_ms)
{
    if (s->in_pos < s->in_len)
        return s->in[s->in_pos++];
    if (s->closed)
        return -1;
    long n = s->io.recv(s->io.ctx, s->in, sizeof s->in, timeout_ms);
    if (n == 0)
        return -2;
    if (n < 0) {
        s->closed = 1;
        return -1;
    }
    s->in_len = (size_t)n;
    s->in_pos = 1;
    return s->in[0];
}

static int send_all(gdb_session *s, const char *p, size_t n)
{
    while (n && !s->closed) {
        long w = s->io.send(s->io.ctx, p, n);
        if (w <= 0) {
            s->closed = 1;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return s->closed ? -1 : 0;
}

/* ---- the socket transport ---------------------------------------------------------------- */

static long sock_recv(void *ctx, uint8_t *buf, size_t n, int timeout_ms)
{
    int fd = *(int *)ctx;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, timeout_ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            return 0;
        ssize_t got = recv(fd, buf, n, 0);
        if (got < 0 && errno == EINTR)
            continue;
        return got > 0 ? (long)got : -1;
    }
}

static long sock_send(void *ctx, const char *p, size_t n)
{
    int fd = *(int *)ctx;
    for (;;) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        return w > 0 ? (long)w : -1;
    }
}

static const char hexd[] = "0123456789abcdef";

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Send body (already in protocol form) as a packet; in ack mode wait for its '+'. */
static int send_packet(gdb_session *s, const char *body, size_t n)
{
    char *frame = malloc(n + 5);
    if (!frame)
        return -1;
    unsigned sum = 0;
    frame[0] = '$';
    for (size_t i = 0; i < n; i++) {
        frame[i + 1] = body[i];
        sum += (unsigned char)body[i];
    }
    frame[n + 1] = '#';
    frame[n + 2] = hexd[(sum >> 4) & 15];
    frame[n + 3] = hexd[sum & 15];
    int rc = -1;
    for (int tries = 0; tries < RESENDS; tries++) {
        if (send_all(s, frame, n + 4) != 0)
            break;
        if (s->no_ack) {
            rc = 0;
            break;
        }
        int c;
        do
            c = get_byte(s, -1);
        while (c >= 0 && c != '+' && c != '-' && c != '$');
        if (c == '+') {
            rc = 0;
            break;
        }
        if (c == '$') {     /* a new packet instead of an ack: take the reply as received */
            s->in_pos--;
            rc = 0;
            break;
        }
        if (c < 0)
            break;
        logf_(s, "the debugger asked for a reply again (NAK)");
    }
    if (rc == 0) {
        free(s->last);
        s->last = frame;
        s->last_len = n + 4;
    } else {
        free(frame);
    }
    return rc;
}

/* Read the next packet into s->pkt. Returns 1 for a packet, 0 when the connection ended. */
static int get_packet(gdb_session *s)
{
    for (;;) {
        int c = get_byte(s, -1);
        if (c < 0)
            return 0;
        if (c == '-' && s->last && !s->no_ack) {
            send_all(s, s->last, s->last_len);
            continue;
        }
        if (c != '$')
            continue;   /* '+', a stray 0x03 while stopped, line noise */
        size_t n = 0;
        unsigned sum = 0;
        int overflow = 0;
        for (;;) {
            c = get_byte(s, -1);
            if (c < 0)
                return 0;
            if (c == '#')
                break;
            sum += (unsigned)c;
            if (n < PKT_MAX)
                s->pkt[n++] = (char)c;
            else
                overflow = 1;
        }
        int h = get_byte(s, -1), l = h < 0 ? -1 : get_byte(s, -1);
        if (l < 0)
            return 0;
        int hv = hexval(h), lv = hexval(l);
        s->pkt[n] = 0;
        s->pkt_len = n;
        if (hv < 0 || lv < 0 || (unsigned)(hv * 16 + lv) != (sum & 0xff)) {
            logf_(s, "bad checksum on packet '%.40s%s' (sent %c%c, computed %02x)", s->pkt,
                  n > 40 ? "..." : "", h, l, sum & 0xff);
            if (!s->no_ack && send_all(s, "-", 1) != 0)
                return 0;
            continue;
        }
        if (overflow) {
            logf_(s, "packet longer than %d bytes refused", PKT_MAX);
            if (!s->no_ack && send_all(s, "+", 1) != 0)
                return 0;
            s->pkt_len = 0;
            s->pkt[0] = 0;
            send_packet(s, "E01", 3);
            continue;
        }
        /* the packet counts even when its ack cannot be sent: GDB closes the connection
         * right after a `k` */
        if (!s->no_ack)
            send_all(s, "+", 1);
        return 1;
    }
}

/* ---- replies ------------------------------------------------------------------------- */

static void r_reset(gdb_session *s) { s->reply_len = 0; }

static void r_str(gdb_session *s, const char *str)
{
    size_t n = strlen(str);
    if (s->reply_len + n > 2 * PKT_MAX)
        n = 2 * PKT_MAX - s->reply_len;
    memcpy(s->reply + s->reply_len, str, n);
    s->reply_len += n;
}

static void r_fmt(gdb_session *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void r_fmt(gdb_session *s, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    r_str(s, buf);
}

static void r_hex(gdb_session *s, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n && s->reply_len + 2 <= 2 * PKT_MAX; i++) {
        s->reply[s->reply_len++] = hexd[p[i] >> 4];
        s->reply[s->reply_len++] = hexd[p[i] & 15];
    }
}

/* Binary data with the protocol's escapes ('#', '$', '}', '*' as '}' and the byte ^ 0x20). */
static void r_binary(gdb_session *s, const char *p, size_t n)
{
    for (size_t i = 0; i < n && s->reply_len + 2 <= 2 * PKT_MAX; i++) {
        char c = p[i];
        if (c == '#' || c == '$' || c == '}' || c == '*') {
            s->reply[s->reply_len++] = '}';
            c ^= 0x20;
        }
        s->reply[s->reply_len++] = c;
    }
}

static void r_err(gdb_session *s, int code) { r_fmt(s, "E%02x", code & 0xff); }

/* Error numbers in E NN replies (gdb shows only that there was an error). */
enum { E_SYNTAX = 1, E_RANGE = 2, E_STATE = 3, E_TARGET = 4, E_NOSPACE = 5 };

/* ---- parsing ------------------------------------------------------------------------- */

/* A hexadecimal number at *p (at least one digit, at most 16); advances *p. */
static int parse_hex(const char **p, uint64_t *v)
{
    uint64_t x = 0;
    int n = 0;
    while (hexval(**p) >= 0) {
        if (++n > 16)
            return -1;
        x = x << 4 | (uint64_t)hexval(**p);
        (*p)++;
    }
    *v = x;
    return n ? 0 : -1;
}

static int expect(const char **p, char c)
{
    if (**p != c)
        return -1;
    (*p)++;
    return 0;
}

/* ---- registers ----------------------------------------------------------------------- */

static int reg_get(gdb_session *s, size_t i, uint8_t *out)
{
    uint64_t v;
    if (npk_reg_read(s->m, s->t->regs[i].npk, &v) != NPK_OK)
        return -1;
    for (unsigned b = 0; b < s->t->regs[i].bits / 8; b++)
        out[b] = (uint8_t)(v >> (8 * b));
    return 0;
}

static int reg_set(gdb_session *s, size_t i, const uint8_t *in)
{
    uint64_t v = 0, old;
    for (unsigned b = 0; b < s->t->regs[i].bits / 8; b++)
        v |= (uint64_t)in[b] << (8 * b);
    /* writing what is there already is no change (x0, read-only registers in a G packet) */
    if (npk_reg_read(s->m, s->t->regs[i].npk, &old) == NPK_OK && old == v)
        return 0;
    return npk_reg_write(s->m, s->t->regs[i].npk, v) == NPK_OK ? 0 : -1;
}

static size_t regs_bytes(const npk_gdb_target *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n_regs; i++)
        n += t->regs[i].bits / 8;
    return n;
}

/* Hex digits to bytes; -1 on a non-hex digit or odd length. */
static int unhex(const char *p, size_t digits, uint8_t *out)
{
    if (digits % 2)
        return -1;
    for (size_t i = 0; i < digits / 2; i++) {
        int h = hexval(p[2 * i]), l = hexval(p[2 * i + 1]);
        if (h < 0 || l < 0)
            return -1;
        out[i] = (uint8_t)(h << 4 | l);
    }
    return 0;
}

static void cmd_g(gdb_session *s)
{
    uint8_t b[8];
    for (size_t i = 0; i < s->t->n_regs; i++) {
        if (reg_get(s, i, b) != 0) {
            r_reset(s);
            r_err(s, E_TARGET);
            return;
        }
        r_hex(s, b, s->t->regs[i].bits / 8);
    }
}

static void cmd_G(gdb_session *s, const char *p)
{
    size_t need = regs_bytes(s->t), digits = strlen(p);
    uint8_t *all = malloc(need ? need : 1);
    if (!all || digits != 2 * need || unhex(p, digits, all) != 0) {
        free(all);
        r_err(s, E_SYNTAX);
        return;
    }
    size_t off = 0;
    int bad = 0;
    for (size_t i = 0; i < s->t->n_regs; i++) {
        if (reg_set(s, i, all + off) != 0)
            bad = 1;
        off += s->t->regs[i].bits / 8;
    }
    free(all);
    if (bad)
        r_err(s, E_TARGET);
    else
        r_str(s, "OK");
}

static void cmd_p(gdb_session *s, const char *p)
{
    uint64_t n;
    uint8_t b[8];
    if (parse_hex(&p, &n) != 0 || *p) {
        r_err(s, E_SYNTAX);
        return;
    }
    if (n >= s->t->n_regs) {
        r_err(s, E_RANGE);
        return;
    }
    if (reg_get(s, (size_t)n, b) != 0)
        r_err(s, E_TARGET);
    else
        r_hex(s, b, s->t->regs[n].bits / 8);
}

static void cmd_P(gdb_session *s, const char *p)
{
    uint64_t n;
    uint8_t b[8];
    if (parse_hex(&p, &n) != 0 || expect(&p, '=') != 0) {
        r_err(s, E_SYNTAX);
        return;
    }
    if (n >= s->t->n_regs) {
        r_err(s, E_RANGE);
        return;
    }
    size_t bytes = s->t->regs[n].bits / 8;
    if (strlen(p) != 2 * bytes || unhex(p, 2 * bytes, b) != 0) {
        r_err(s, E_SYNTAX);
        return;
    }
    if (reg_set(s, (size_t)n, b) != 0)
        r_err(s, E_TARGET);
    else
        r_str(s, "OK");
}

/* ---- memory --------------------------------------------------------------------------- */

/* How many of the n bytes at program address addr lie in the memory space (0: none). */
static size_t mem_avail(gdb_session *s, uint64_t addr, uint64_t n, uint64_t *off)
{
    uint64_t size = 0;
    for (size_t i = 0; i < npk_space_count(s->m); i++)
        if (strcmp(npk_space(s->m, i)->name, s->t->mem_space) == 0)
            size = npk_space(s->m, i)->size;
    if (addr < s->t->mem_base || addr - s->t->mem_base >= size)
        return 0;
    *off = addr - s->t->mem_base;
    return (size_t)(n < size - *off ? n : size - *off);
}

static void cmd_m(gdb_session *s, const char *p)
{
    uint64_t addr, n, off;
    if (parse_hex(&p, &addr) != 0 || expect(&p, ',') != 0 || parse_hex(&p, &n) != 0 || *p) {
        r_err(s, E_SYNTAX);
        return;
    }
    if (n > PKT_MAX / 2)
        n = PKT_MAX / 2;
    if (n == 0)
        return;     /* an empty read: an empty reply */
    size_t got = mem_avail(s, addr, n, &off);
    uint8_t *buf = malloc(got ? got : 1);
    if (!got || !buf || npk_mem_read(s->m, s->t->mem_space, off, buf, got) != NPK_OK) {
        free(buf);
        r_err(s, E_RANGE);  /* nothing readable there: outside the RAM */
        return;
    }
    r_hex(s, buf, got);     /* a read crossing the end gives the bytes up to it */
    free(buf);
}

/* M addr,len:hex and X addr,len:binary */
static void cmd_write(gdb_session *s, const char *p, size_t len, int binary)
{
    const char *end = p + len;
    uint64_t addr, n, off;
    if (parse_hex(&p, &addr) != 0 || expect(&p, ',') != 0 || parse_hex(&p, &n) != 0 ||
        expect(&p, ':') != 0 || n > PKT_MAX) {
        r_err(s, E_SYNTAX);
        return;
    }
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        r_err(s, E_NOSPACE);
        return;
    }
    size_t k = 0;
    if (binary) {
        while (p < end && k < n) {
            uint8_t c = (uint8_t)*p++;
            if (c == '}') {
                if (p >= end)
                    break;
                c = (uint8_t)(*p++ ^ 0x20);
            }
            buf[k++] = c;
        }
        if (k != n || p != end) {
            free(buf);
            r_err(s, E_SYNTAX);
            return;
        }
    } else if ((size_t)(end - p) != 2 * n || unhex(p, 2 * n, buf) != 0) {
        free(buf);
        r_err(s, E_SYNTAX);
        return;
    }
    if (n == 0) {           /* gdb probes X support with an empty write */
        free(buf);
        r_str(s, "OK");
        return;
    }
    if (mem_avail(s, addr, n, &off) != n ||
        npk_mem_write(s->m, s->t->mem_space, off, buf, n) != NPK_OK)
        r_err(s, E_RANGE);
    else
        r_str(s, "OK");
    free(buf);
}

/* ---- break and watch points --------------------------------------------------------- */

static void cmd_Z(gdb_session *s, const char *p, int insert)
{
    char type = *p++;
    uint64_t addr, kind;
    if (type < '0' || type > '4' || expect(&p, ',') != 0 || parse_hex(&p, &addr) != 0 ||
        expect(&p, ',') != 0 || parse_hex(&p, &kind) != 0) {
        r_err(s, E_SYNTAX);
        return;
    }
    if (*p) {   /* conditions and commands (";X..."): not announced, not evaluated here */
        r_err(s, E_SYNTAX);
        return;
    }
    if (type == '0' || type == '1') {
        npk_status st = insert ? npk_break_add(s->m, addr) : npk_break_remove(s->m, addr);
        if (st != NPK_OK)
            r_err(s, st == NPK_ERR_ARG && insert ? E_RANGE : E_TARGET);
        else
            r_str(s, "OK");
        return;
    }
    if (insert) {
        size_t i;
        for (i = 0; i < MAX_WATCH && s->watch[i].used; i++)
            ;
        if (i == MAX_WATCH || kind == 0) {
            r_err(s, i == MAX_WATCH ? E_NOSPACE : E_SYNTAX);
            return;
        }
        unsigned k = type == '2' ? NPK_WATCH_WRITE
                     : type == '3' ? NPK_WATCH_READ
                                   : NPK_WATCH_READ | NPK_WATCH_WRITE;
        unsigned id;
        if (npk_watch_add(s->m, s->t->watch_space, addr, kind, k, &id) != NPK_OK) {
            r_err(s, E_RANGE);
            return;
        }
        s->watch[i] = (watch_slot){1, type, addr, kind, id};
        r_str(s, "OK");
        return;
    }
    for (size_t i = 0; i < MAX_WATCH; i++)
        if (s->watch[i].used && s->watch[i].type == type && s->watch[i].addr == addr &&
            s->watch[i].len == kind) {
            npk_watch_remove(s->m, s->watch[i].id);
            s->watch[i].used = 0;
            r_str(s, "OK");
            return;
        }
    r_err(s, E_RANGE);
}

/* ---- running ------------------------------------------------------------------------- */

/* The stop reply for s->stop (also kept for '?'). */
static void make_stop_reply(gdb_session *s, int interrupted, const npk_watch_hit *hit)
{
    const npk_stop *st = &s->stop;
    char *r = s->stop_reply;
    size_t n = sizeof s->stop_reply;
    if (interrupted) {
        snprintf(r, n, "T02thread:01;");
        return;
    }
    switch (st->reason) {
    case NPK_STOP_EXIT:
        s->exited = 1;
        snprintf(r, n, "W%02x", (unsigned)(st->exit_code & 0xff));
        return;
    case NPK_STOP_FAULT:
        /* SIGILL for an illegal instruction, SIGSEGV for the rest (bad or misaligned address) */
        snprintf(r, n, "T%02xthread:01;", strstr(st->message, "illegal") ? 4 : 11);
        return;
    case NPK_STOP_WATCHPOINT: {
        npk_watch_hit h = hit ? *hit : (npk_watch_hit){0};
        if (hit || npk_watch_last_hit(s->m, &h) == NPK_OK)
            for (size_t i = 0; i < MAX_WATCH; i++)
                if (s->watch[i].used && s->watch[i].id == h.id) {
                    const char *kind = s->watch[i].type == '2'   ? "watch"
                                       : s->watch[i].type == '3' ? "rwatch"
                                                                 : "awatch";
                    snprintf(r, n, "T05%s:%llx;thread:01;", kind, (unsigned long long)h.addr);
                    return;
                }
        snprintf(r, n, "T05thread:01;");
        return;
    }
    default:
        snprintf(r, n, "T05thread:01;");
        return;
    }
}

static uint64_t retired(gdb_session *s)
{
    npk_stats st;
    return npk_stats_get(s->m, &st) == NPK_OK ? st.insns : 0;
}

/* npk_run (n instructions, 0: no limit) or, with n = 1 and `step`, npk_step, within the
 * session's allowance (npk_gdb_serve_io's budget): past it, a budget stop without running. */
static npk_status run_within(gdb_session *s, uint64_t n, int step, npk_stop *st)
{
    if (s->budget) {
        uint64_t left = s->budget - s->spent;
        if (left == 0) {
            *st = (npk_stop){.reason = NPK_STOP_BUDGET};
            snprintf(st->message, sizeof st->message, "the session's instruction budget is spent");
            return NPK_OK;
        }
        if (n == 0 || n > left)
            n = left;
    }
    uint64_t before = retired(s);
    npk_status rc = step ? npk_step(s->m, st) : npk_run(s->m, n, st);
    uint64_t after = retired(s);
    if (s->budget && after > before)
        s->spent += after - before < s->budget - s->spent ? after - before : s->budget - s->spent;
    return rc;
}

static int spent(const gdb_session *s) { return s->budget && s->spent >= s->budget; }

static int any_watch(const gdb_session *s)
{
    for (size_t i = 0; i < MAX_WATCH; i++)
        if (s->watch[i].used)
            return 1;
    return 0;
}

/* gdb treats RISC-V watchpoints as firing before the access (it then steps over the
 * instruction with the watchpoints out and compares values), while npk_run stops after the
 * accessing instruction. So go back to `snap` (taken `base` instructions into the run) and
 * re-execute up to just before the instruction that made the access: deterministic, with the
 * program's output, already written once, sent to a sink. Returns 0 when the machine now
 * stands before that instruction. */
static int rewind_to_access(gdb_session *s, const uint8_t *snap, size_t snap_n, uint64_t base,
                            uint64_t upto)
{
    if (npk_snapshot_restore(s->m, snap, snap_n, "watchpoint rewind") != NPK_OK)
        return -1;
    if (s->sink)
        npk_set_output(s->m, s->sink, s->sink);
    int rc = 0;
    npk_stop st;
    /* a breakpoint stop costs one round (the next run executes it): bounded by the count */
    for (uint64_t round = 0; retired(s) - base < upto && round <= upto; round++) {
        if (run_within(s, upto - (retired(s) - base), 0, &st) != NPK_OK ||
            (st.reason != NPK_STOP_BUDGET && st.reason != NPK_STOP_BREAKPOINT)) {
            rc = -1;
            break;
        }
    }
    if (retired(s) - base != upto)
        rc = -1;
    npk_set_output(s->m, s->guest_out, s->guest_err);
    return rc;
}

/* ---- history: checkpoints and reverse execution -------------------------------------- */

static void ckpt_drop(gdb_session *s)
{
    for (size_t i = 0; i < s->n_ck; i++)
        npk_free(s->ck[i].data);
    s->n_ck = 0;
}

/* A checkpoint here when the last one is `gap` or more instructions back (or there is none);
 * a full list keeps every other one and doubles the gap. A state that cannot be saved (guest
 * files open) gets none: reverse execution then stops at the last one it has. */
static void ckpt_maybe(gdb_session *s)
{
    uint64_t now = retired(s);
    if (s->n_ck && now < s->ck[s->n_ck - 1].at + s->gap)
        return;     /* (also when back in the history, before the last checkpoint) */
    if (s->n_ck == MAX_CKPT) {
        size_t k = 1;
        for (size_t i = 1; i < s->n_ck; i++) {
            if (i % 2 == 0)
                s->ck[k++] = s->ck[i];
            else
                npk_free(s->ck[i].data);
        }
        s->n_ck = k;
        s->gap *= 2;
    }
    ckpt c = {now, NULL, 0};
    if (npk_snapshot_save(s->m, &c.data, &c.size) == NPK_OK)
        s->ck[s->n_ck++] = c;
}

/* The history starts again here: after a write from the debugger, re-executing from an older
 * checkpoint would not reproduce the state. */
static void history_restart(gdb_session *s)
{
    ckpt_drop(s);
    s->gap = CKPT_GAP;
    s->high = retired(s);
    ckpt_maybe(s);
}

/* Put the machine at `target` retired instructions (at or after checkpoint i), by restoring
 * checkpoint i and re-executing with the program's output in the sink (it was written once).
 * Stops on the way (breakpoints, watchpoints) are passed. Returns 0 when it got there. */
static int goto_point(gdb_session *s, size_t i, uint64_t target)
{
    if (npk_snapshot_restore(s->m, s->ck[i].data, s->ck[i].size, "history") != NPK_OK)
        return -1;
    if (s->sink)
        npk_set_output(s->m, s->sink, s->sink);
    npk_stop st;
    uint64_t now;
    for (uint64_t round = 0; (now = retired(s)) < target && round <= target - s->ck[i].at;
         round++)
        if (run_within(s, target - now, 0, &st) != NPK_OK ||
            (st.reason != NPK_STOP_BUDGET && st.reason != NPK_STOP_BREAKPOINT &&
             st.reason != NPK_STOP_WATCHPOINT))
            break;
    npk_set_output(s->m, s->guest_out, s->guest_err);
    s->exited = 0;
    return retired(s) == target ? 0 : -1;
}

/* The checkpoint to start from for a point: the last one at or before it. */
static size_t ckpt_for(const gdb_session *s, uint64_t point)
{
    size_t i = 0;
    while (i + 1 < s->n_ck && s->ck[i + 1].at <= point)
        i++;
    return i;
}

/* bs: one instruction back; bc: back to the last breakpoint or watchpoint hit before here, or
 * to the start of the history. */
static void reverse(gdb_session *s, int step)
{
    uint64_t now = retired(s);
    if (s->n_ck == 0 || now <= s->ck[0].at) {
        r_str(s, "T05replaylog:begin;thread:01;");
        return;
    }
    if (step) {
        if (goto_point(s, ckpt_for(s, now - 1), now - 1) != 0) {
            r_err(s, E_STATE);
            return;
        }
        s->stop = (npk_stop){0};
        r_str(s, "T05thread:01;");
        return;
    }
    /* scan the segments between checkpoints from the latest back, recording the stops */
    int found = 0;
    uint64_t best = 0;
    npk_watch_hit best_hit;
    int best_is_watch = 0;
    for (size_t i = ckpt_for(s, now - 1) + 1; i-- > 0 && !found;) {
        uint64_t end = i + 1 < s->n_ck && s->ck[i + 1].at < now ? s->ck[i + 1].at : now;
        if (npk_snapshot_restore(s->m, s->ck[i].data, s->ck[i].size, "history") != NPK_OK)
            break;
        if (s->sink)
            npk_set_output(s->m, s->sink, s->sink);
        npk_stop st;
        uint64_t at;
        for (uint64_t round = 0; (at = retired(s)) < end && round <= end - s->ck[i].at;
             round++) {
            if (run_within(s, end - at, 0, &st) != NPK_OK)
                break;
            if (st.reason == NPK_STOP_BREAKPOINT && retired(s) < now) {
                found = 1, best = retired(s), best_is_watch = 0;
            } else if (st.reason == NPK_STOP_WATCHPOINT && retired(s) - 1 < now &&
                       npk_watch_last_hit(s->m, &best_hit) == NPK_OK) {
                found = 1, best = retired(s) - 1, best_is_watch = 1;
            } else if (st.reason != NPK_STOP_BUDGET) {
                break;
            }
        }
        npk_set_output(s->m, s->guest_out, s->guest_err);
    }
    uint64_t target = found ? best : s->ck[0].at;
    if (goto_point(s, ckpt_for(s, target), target) != 0) {
        r_err(s, E_STATE);
        return;
    }
    s->stop = (npk_stop){0};
    if (!found) {
        r_str(s, "T05replaylog:begin;thread:01;");
    } else if (best_is_watch) {
        s->stop.reason = NPK_STOP_WATCHPOINT;
        make_stop_reply(s, 0, &best_hit);
        r_str(s, s->stop_reply);
    } else {
        r_str(s, "T05thread:01;");
    }
}

/* Continue (step = 0) or step until a stop, an interrupt or the connection ends. */
static void resume(gdb_session *s, int step)
{
    if (s->exited) {
        r_err(s, E_STATE);
        return;
    }
    int interrupted = 0, watching = any_watch(s);
    uint8_t *snap = NULL;
    size_t snap_n = 0;
    uint64_t base = 0;
    for (;;) {
        ckpt_maybe(s);
        if (watching) {     /* where a watchpoint hit in this slice can go back to */
            npk_free(snap);
            snap = NULL;
            if (npk_snapshot_save(s->m, &snap, &snap_n) != NPK_OK)
                snap = NULL;    /* guest files open: the hit is reported after the access */
            base = retired(s);
        }
        /* after going back, the part up to the furthest point reached runs again: its
         * output was written then, so it goes to the sink now */
        uint64_t now = retired(s), slice = SLICE;
        int replay = now < s->high && s->sink;
        if (replay) {
            npk_set_output(s->m, s->sink, s->sink);
            if (s->high - now < slice)
                slice = s->high - now;
        }
        npk_status rc = run_within(s, step ? 1 : slice, step, &s->stop);
        if (replay)
            npk_set_output(s->m, s->guest_out, s->guest_err);
        if (retired(s) > s->high)
            s->high = retired(s);
        if (rc != NPK_OK || step || s->stop.reason != NPK_STOP_BUDGET || spent(s))
            break;
        /* between slices: an interrupt, or a peer that went away */
        int c;
        while ((c = get_byte(s, 0)) >= 0)
            if (c == 0x03)
                interrupted = 1;
        if (interrupted || s->closed)
            break;
    }
    npk_watch_hit hit, *hitp = NULL;
    if (s->stop.reason == NPK_STOP_WATCHPOINT && snap &&
        npk_watch_last_hit(s->m, &hit) == NPK_OK) {
        uint64_t n = retired(s) - base;     /* the accessing instruction is the n-th */
        if (n >= 1 && rewind_to_access(s, snap, snap_n, base, n - 1) == 0) {
            s->stop.pc = hit.pc;
            hitp = &hit;
        } else {
            logf_(s, "could not go back before the access of watchpoint %u: %s", hit.id,
                  npk_error(s->m));
        }
    }
    npk_free(snap);
    if (s->guest_out)
        fflush(s->guest_out);
    if (s->closed)
        return;
    if (s->stop.reason == NPK_STOP_BUDGET && !interrupted)
        interrupted = 1;    /* npk_run failed mid-continue: report it as a stop */
    make_stop_reply(s, interrupted, hitp);
    r_str(s, s->stop_reply);
}

/* vCont;ACTION[:thread][;ACTION...]: one thread, so the first action decides. */
static void cmd_vcont(gdb_session *s, const char *p)
{
    if (*p == '?') {
        r_str(s, "vCont;c;C;s;S;t");
        return;
    }
    if (*p != ';') {
        r_err(s, E_SYNTAX);
        return;
    }
    char a = p[1];
    if (a == 'c' || a == 'C')
        resume(s, 0);
    else if (a == 's' || a == 'S')
        resume(s, 1);
    else if (a == 't') {    /* all-stop and already stopped: report the stop */
        snprintf(s->stop_reply, sizeof s->stop_reply, "T00thread:01;");
        r_str(s, s->stop_reply);
    } else
        r_err(s, E_SYNTAX);
}

/* ---- queries ------------------------------------------------------------------------ */

static int build_xml(gdb_session *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return -1;
    fprintf(f, "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
               "<target version=\"1.0\">\n<architecture>%s</architecture>\n", s->t->arch);
    for (size_t fi = 0; fi < s->t->n_features; fi++) {
        fprintf(f, "<feature name=\"%s\">\n", s->t->features[fi].name);
        if (s->t->features[fi].types[0])
            fprintf(f, "%s\n", s->t->features[fi].types);
        for (size_t i = 0; i < s->t->n_regs; i++)
            if (s->t->regs[i].feature == fi)
                fprintf(f, "<reg name=\"%s\" bitsize=\"%u\" type=\"%s\" regnum=\"%zu\"%s/>\n",
                        s->t->regs[i].name, s->t->regs[i].bits, s->t->regs[i].type, i,
                        fi == s->t->n_features - 1 ? " group=\"general\"" : "");
        fprintf(f, "</feature>\n");
    }
    fprintf(f, "</target>\n");
    if (fclose(f) != 0) {
        free(buf);
        return -1;
    }
    s->xml = buf;
    s->xml_len = len;
    return 0;
}

/* qXfer:features:read:ANNEX:OFFSET,LENGTH */
static void cmd_xfer(gdb_session *s, const char *p)
{
    const char *pre = "features:read:";
    if (strncmp(p, pre, strlen(pre)) != 0) {
        return;     /* another object: not supported, the empty reply */
    }
    p += strlen(pre);
    const char *colon = strchr(p, ':');
    uint64_t off, len;
    if (!colon) {
        r_err(s, E_SYNTAX);
        return;
    }
    size_t annex = (size_t)(colon - p);
    p = colon + 1;
    if (parse_hex(&p, &off) != 0 || expect(&p, ',') != 0 || parse_hex(&p, &len) != 0 || *p) {
        r_err(s, E_SYNTAX);
        return;
    }
    if (annex != strlen("target.xml") || strncmp(colon - annex, "target.xml", annex) != 0) {
        r_str(s, "E00");    /* an unknown annex */
        return;
    }
    if (off > s->xml_len) {
        r_err(s, E_RANGE);
        return;
    }
    size_t n = s->xml_len - (size_t)off;
    if (n > len)
        n = (size_t)len;
    if (n > PKT_MAX / 2 - 8)
        n = PKT_MAX / 2 - 8;
    r_str(s, off + n < s->xml_len ? "m" : "l");
    r_binary(s, s->xml + off, n);
}

/* `monitor` commands (qRcmd,HEX): the reply is the command's output, hex-encoded. */
static void cmd_rcmd(gdb_session *s, const char *p)
{
    size_t digits = strlen(p);
    char cmd[256];
    if (digits % 2 || digits / 2 >= sizeof cmd || unhex(p, digits, (uint8_t *)cmd) != 0) {
        r_err(s, E_SYNTAX);
        return;
    }
    cmd[digits / 2] = 0;
    char *out = NULL;
    size_t out_len = 0;
    FILE *f = open_memstream(&out, &out_len);
    if (!f) {
        r_err(s, E_NOSPACE);
        return;
    }
    if (strcmp(cmd, "stats") == 0) {
        npk_stats_print(s->m, f);
    } else if (strcmp(cmd, "reset") == 0) {
        if (s->reset_state &&
            npk_snapshot_restore(s->m, s->reset_state, s->reset_size, "reset") == NPK_OK) {
            uint64_t pc = 0;
            npk_reg_read(s->m, "pc", &pc);
            s->exited = 0;
            s->stop = (npk_stop){0};
            snprintf(s->stop_reply, sizeof s->stop_reply, "T05thread:01;");
            history_restart(s);
            fprintf(f, "the machine is as the program was loaded: pc 0x%08llx (GDB keeps "
                       "the registers it read: 'flushregs')\n",
                    (unsigned long long)pc);
        } else {
            fprintf(f, "reset failed: %s\n",
                    s->reset_state ? npk_error(s->m) : "no snapshot of the loaded program");
        }
    } else if (strcmp(cmd, "npu") == 0 || strcmp(cmd, "npu state") == 0) {
        int any = 0;
        for (size_t i = 0; i < s->t->n_regs; i++) {
            if (s->t->regs[i].feature != s->t->n_features - 1)
                continue;   /* the last feature is the target's own (the NPU) */
            uint64_t v;
            if (npk_reg_read(s->m, s->t->regs[i].npk, &v) == NPK_OK) {
                fprintf(f, "%-5s 0x%0*llx\n", s->t->regs[i].name, (int)s->t->regs[i].bits / 4,
                        (unsigned long long)v);
                any = 1;
            }
        }
        if (!any)
            fprintf(f, "no NPU registers\n");
    } else if (strcmp(cmd, "isa-rev") == 0) {
        const char *c = strstr(npk_config_string(s->m), "isa_rev=");
        if (c) {
            c += strlen("isa_rev=");
            fprintf(f, "%.*s\n", (int)strcspn(c, ","), c);
        } else {
            fprintf(f, "%s has no ISA revisions\n", s->t->target);
        }
    } else if (strcmp(cmd, "help") == 0 || strcmp(cmd, "") == 0) {
        fprintf(f, "monitor commands:\n"
                   "  stats      instructions, cycles, instruction mix, units (npukit run --stats)\n"
                   "  reset      the machine as the program was loaded (then 'flushregs')\n"
                   "  npu        the NPU registers (also 'npu state')\n"
                   "  isa-rev    the NPU ISA revision\n"
                   "  help       this list\n");
    } else {
        fprintf(f, "unknown monitor command '%s'; 'monitor help' lists them\n", cmd);
    }
    if (fclose(f) != 0) {
        free(out);
        r_err(s, E_NOSPACE);
        return;
    }
    if (out_len == 0)
        r_str(s, "OK");
    else
        r_hex(s, (const uint8_t *)out, out_len > PKT_MAX / 2 - 8 ? PKT_MAX / 2 - 8 : out_len);
    free(out);
}

static int starts(const char *p, const char *pre) { return strncmp(p, pre, strlen(pre)) == 0; }

/* One packet; returns 1 when the session ends. */
static int handle(gdb_session *s, npk_gdb_result *res)
{
    const char *p = s->pkt;
    r_reset(s);
    switch (p[0]) {
    case '?':
        r_str(s, s->stop_reply);
        break;
    case 'g':
        if (p[1])
            r_err(s, E_SYNTAX);
        else
            cmd_g(s);
        break;
    case 'G':
        cmd_G(s, p + 1);
        if (s->reply_len == 2 && memcmp(s->reply, "OK", 2) == 0)
            history_restart(s);
        break;
    case 'p': cmd_p(s, p + 1); break;
    case 'P':
        cmd_P(s, p + 1);
        if (s->reply_len == 2 && memcmp(s->reply, "OK", 2) == 0)
            history_restart(s);
        break;
    case 'm': cmd_m(s, p + 1); break;
    case 'M':
        cmd_write(s, p + 1, s->pkt_len - 1, 0);
        if (s->reply_len == 2 && memcmp(s->reply, "OK", 2) == 0)
            history_restart(s);
        break;
    case 'X':
        cmd_write(s, p + 1, s->pkt_len - 1, 1);
        if (s->reply_len == 2 && memcmp(s->reply, "OK", 2) == 0)
            history_restart(s);
        break;
    case 'c':
    case 's':
    case 'C':
    case 'S': {
        /* c [addr], C sig[;addr]: a resume address is not supported; signals are dropped */
        const char *q = p + 1;
        uint64_t v;
        if ((p[0] == 'C' || p[0] == 'S') && parse_hex(&q, &v) != 0) {
            r_err(s, E_SYNTAX);
            break;
        }
        if (*q) {
            r_err(s, E_SYNTAX);
            break;
        }
        resume(s, p[0] == 's' || p[0] == 'S');
        break;
    }
    case 'b':
        if (strcmp(p, "bs") == 0 || strcmp(p, "bc") == 0)
            reverse(s, p[1] == 's');
        else
            r_err(s, E_SYNTAX);
        break;
    case 'Z': cmd_Z(s, p + 1, 1); break;
    case 'z': cmd_Z(s, p + 1, 0); break;
    case 'H':
        /* one thread: Hg / Hc with 0, -1 or 1 */
        if ((p[1] == 'g' || p[1] == 'c') &&
            (strcmp(p + 2, "0") == 0 || strcmp(p + 2, "-1") == 0 || strcmp(p + 2, "1") == 0))
            r_str(s, "OK");
        else
            r_err(s, E_SYNTAX);
        break;
    case 'T':
        if (strcmp(p + 1, "1") == 0 || strcmp(p + 1, "01") == 0)
            r_str(s, "OK");
        else
            r_err(s, E_RANGE);
        break;
    case 'D':
        send_packet(s, "OK", 2);
        res->end = NPK_GDB_DETACHED;
        return 1;
    case 'k':
        res->end = NPK_GDB_KILLED;
        return 1;
    case 'v':
        if (starts(p, "vCont")) {
            cmd_vcont(s, p + 5);
        } else if (starts(p, "vKill")) {
            send_packet(s, "OK", 2);
            res->end = NPK_GDB_KILLED;
            return 1;
        } else if (starts(p, "vMustReplyEmpty")) {
            /* the empty reply */
        }
        break;
    case 'q':
        if (starts(p, "qSupported")) {
            r_fmt(s, "PacketSize=%x;qXfer:features:read+;QStartNoAckMode+;vContSupported+;"
                     "ReverseStep+;ReverseContinue+",
                  PKT_MAX);
        } else if (starts(p, "qXfer:")) {
            cmd_xfer(s, p + 6);
        } else if (strcmp(p, "qAttached") == 0 || starts(p, "qAttached:")) {
            r_str(s, "1");
        } else if (strcmp(p, "qC") == 0) {
            r_str(s, "QC01");
        } else if (strcmp(p, "qfThreadInfo") == 0) {
            r_str(s, "m01");
        } else if (strcmp(p, "qsThreadInfo") == 0) {
            r_str(s, "l");
        } else if (starts(p, "qThreadExtraInfo,")) {
            static const char name[] = "npukit machine";
            r_hex(s, (const uint8_t *)name, sizeof name - 1);
        } else if (starts(p, "qRcmd,")) {
            cmd_rcmd(s, p + 6);
        }
        /* qTStatus, qOffsets, qSymbol, ...: the empty reply, "not supported" */
        break;
    case 'Q':
        if (strcmp(p, "QStartNoAckMode") == 0) {
            send_packet(s, "OK", 2);
            s->no_ack = 1;
            return 0;
        }
        break;
    default:
        break;      /* unknown packets: the empty reply */
    }
    send_packet(s, s->reply, s->reply_len);
    return 0;
}

int npk_gdb_serve(npk_machine *m, const npk_gdb_target *t, int fd, FILE *guest_out,
                  FILE *guest_err, FILE *log, npk_gdb_result *res, char *err, size_t err_size)
{
    npk_gdb_io io = {&fd, sock_recv, sock_send};
    return npk_gdb_serve_io(m, t, &io, 0, guest_out, guest_err, log, res, err, err_size);
}

int npk_gdb_serve_io(npk_machine *m, const npk_gdb_target *t, const npk_gdb_io *io,
                     uint64_t budget, FILE *guest_out, FILE *guest_err, FILE *log,
                     npk_gdb_result *res, char *err, size_t err_size)
{
    gdb_session *s = calloc(1, sizeof *s);
    if (s)
        s->reply = malloc(2 * PKT_MAX + 8);
    if (!s || !s->reply) {
        if (s)
            free(s->reply);
        free(s);
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    *s = (gdb_session){.m = m, .t = t, .io = *io, .log = log, .budget = budget,
                       .reply = s->reply,
                       .guest_out = guest_out, .guest_err = guest_err};
    npk_set_output(m, guest_out, guest_err);
    npk_stats_enable(m, 1);     /* the rewind counts instructions; `monitor stats` */
    s->sink = fopen("/dev/null", "w");
    memset(res, 0, sizeof *res);
    res->end = NPK_GDB_CLOSED;
    if (build_xml(s) != 0) {
        free(s->reply);
        free(s);
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < t->n_regs; i++) {
        uint64_t v;
        if (npk_reg_read(m, t->regs[i].npk, &v) != NPK_OK) {
            snprintf(err, err_size, "register %s: %s", t->regs[i].npk, npk_error(m));
            free(s->xml);
            free(s->reply);
            free(s);
            return -1;
        }
    }
    if (npk_snapshot_save(m, &s->reset_state, &s->reset_size) != NPK_OK)
        s->reset_state = NULL;  /* `monitor reset` then says it cannot */
    snprintf(s->stop_reply, sizeof s->stop_reply, "T05thread:01;");
    history_restart(s);
    while (get_packet(s))
        if (handle(s, res))
            break;
    if (s->closed && res->end != NPK_GDB_DETACHED && res->end != NPK_GDB_KILLED)
        res->end = s->exited ? NPK_GDB_EXITED : NPK_GDB_CLOSED;
    res->exited = s->exited;
    res->stop = s->stop;
    npk_break_clear(m);
    npk_watch_clear(m);
    npk_free(s->reset_state);
    ckpt_drop(s);
    if (s->sink)
        fclose(s->sink);
    free(s->xml);
    free(s->last);
    free(s->reply);
    free(s);
    return 0;
}

int npk_gdb_listen(const char *addr, unsigned port, unsigned *bound, char *err, size_t err_size)
{
    struct addrinfo hints = {0}, *ai = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
    char ps[16];
    snprintf(ps, sizeof ps, "%u", port);
    int rc = getaddrinfo(addr, ps, &hints, &ai);
    if (rc != 0) {
        snprintf(err, err_size, "--bind %s: not a numeric IPv4 or IPv6 address (%s)", addr,
                 gai_strerror(rc));
        return -1;
    }
    int fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    if (fd < 0) {
        snprintf(err, err_size, "socket: %s", strerror(errno));
        freeaddrinfo(ai);
        return -1;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 1) != 0) {
        snprintf(err, err_size, "%s port %u: %s", addr, port, strerror(errno));
        close(fd);
        freeaddrinfo(ai);
        return -1;
    }
    freeaddrinfo(ai);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char host[64], serv[16];
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0 ||
        getnameinfo((struct sockaddr *)&ss, sl, host, sizeof host, serv, sizeof serv,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        snprintf(err, err_size, "getsockname: %s", strerror(errno));
        close(fd);
        return -1;
    }
    *bound = (unsigned)strtoul(serv, NULL, 10);
    return fd;
}
