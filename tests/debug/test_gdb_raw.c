/* The GDB stub (src/debug/gdb.c) over a socketpair, packet by packet: the replies to good
 * packets (checked against the machine API of a second machine loaded with the same
 * firmware), and to bad ones: wrong checksums, malformed packets, out-of-range addresses,
 * unknown packets; Ctrl-C during a continue answered within 50 ms; a dropped connection and
 * `k` ending the session cleanly. Every wait is bounded (poll timeouts, alarm).
 * usage: test_gdb_raw HELLO.ELF */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* mkstemp */
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "debug/gdb.h"
#include "test.h"

static const char *elf_path;

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}
static const char spin_src[] = "_start:\n    j _start\n";

/* ---- the server, in a child process ------------------------------------------------- */

static npk_machine *machine(int spin)
{
    npk_machine *m;
    char err[256];
    if (npk_create(&m, "rvnpu", NULL, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "%s\n", err);
        exit(2);
    }
    static FILE *devnull;   /* the firmware's output is not the test's */
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    npk_set_output(m, devnull, devnull);
    npk_status st = spin ? npk_load_asm(m, spin_src, "spin.s", stderr)
                         : npk_load_file(m, elf_path, stderr);
    if (st != NPK_OK) {
        fprintf(stderr, "load: %s\n", npk_error(m));
        exit(2);
    }
    return m;
}

/* Fork a server on one end of a socketpair; returns the other end. Exit status of the child:
 * 10 + npk_gdb_end, 1 when npk_gdb_serve failed. */
static const char *guest_path;    /* where the served firmware's output goes (NULL: nowhere) */

static int start(int spin, pid_t *pid)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        exit(2);
    fflush(NULL);
    *pid = fork();
    if (*pid == 0) {
        close(sv[0]);
        alarm(30);
        npk_machine *m = machine(spin);
        FILE *devnull = fopen(guest_path ? guest_path : "/dev/null", "w");
        npk_gdb_result res;
        char err[256];
        int rc = npk_gdb_serve(m, npk_gdb_target_for("rvnpu"), sv[1], devnull, devnull, NULL,
                               &res, err, sizeof err);
        npk_destroy(m);
        fclose(devnull);
        _exit(rc != 0 ? 1 : 10 + (int)res.end);
    }
    close(sv[1]);
    return sv[0];
}

static int finish(pid_t pid)
{
    int status = 0;
    for (int i = 0; i < 500; i++) {     /* at most 5 s */
        if (waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
        sleep_ms(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}

/* ---- the client ----------------------------------------------------------------------- */

static int fd;
static int no_ack;
static char reply[20000];
static int naks;    /* '-' seen while reading the last reply */

static void send_raw(const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static void send_pkt_n(const char *body, size_t n)
{
    char frame[20100];
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (unsigned char)body[i];
    frame[0] = '$';
    memcpy(frame + 1, body, n);
    snprintf(frame + 1 + n, 4, "#%02x", sum & 0xff);
    send_raw(frame, n + 4);
}

static void send_pkt(const char *body) { send_pkt_n(body, strlen(body)); }

/* The next byte, or -1 after timeout_ms (or when the peer closed). */
static int get_byte(int timeout_ms)
{
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, timeout_ms) <= 0)
        return -1;
    unsigned char c;
    return recv(fd, &c, 1, 0) == 1 ? c : -1;
}

/* The next packet's body in reply[], acknowledged; NULL on timeout or a bad frame. */
static const char *get_reply(int timeout_ms)
{
    int c;
    naks = 0;
    do {
        c = get_byte(timeout_ms);
        if (c == '-')
            naks++;
    } while (c >= 0 && c != '$');
    if (c < 0)
        return NULL;
    size_t n = 0;
    unsigned sum = 0;
    while ((c = get_byte(timeout_ms)) >= 0 && c != '#' && n < sizeof reply - 1) {
        reply[n++] = (char)c;
        sum += (unsigned)c;
    }
    reply[n] = 0;
    int h = get_byte(timeout_ms), l = get_byte(timeout_ms);
    char cs[3] = {(char)h, (char)l, 0};
    if (c != '#' || h < 0 || l < 0 || strtoul(cs, NULL, 16) != (sum & 0xff))
        return NULL;
    if (!no_ack)
        send_raw("+", 1);
    return reply;
}

static const char *ask(const char *body)
{
    send_pkt(body);
    const char *r = get_reply(5000);
    return r ? r : "<no reply>";
}

#define CHECK_REPLY(body, want) NPK_CHECK_EQ_STR(ask(body), want)

static void hex32(char *out, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        sprintf(out + 2 * i, "%02x", (unsigned)(v >> (8 * i)) & 0xff);
}

static void rcmd(char *out, const char *cmd)
{
    strcpy(out, "qRcmd,");
    for (size_t i = 0; cmd[i]; i++)
        sprintf(out + 6 + 2 * i, "%02x", (unsigned char)cmd[i]);
}

static void unhex_text(char *out, const char *hex)
{
    size_t i = 0;
    for (; hex[2 * i] && hex[2 * i + 1]; i++) {
        char b[3] = {hex[2 * i], hex[2 * i + 1], 0};
        out[i] = (char)strtoul(b, NULL, 16);
    }
    out[i] = 0;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* ---- the tests ------------------------------------------------------------------------ */

static void good_and_bad_packets(void)
{
    npk_machine *ref = machine(0);      /* the oracle: the same firmware, read by the API */
    uint64_t entry, word_at_entry = 0;
    NPK_CHECK_EQ_U64(npk_reg_read(ref, "pc", &entry), NPK_OK);
    uint64_t mainp = entry + 8;   /* hello.elf is stripped: a breakpoint two words on */
    uint8_t w[4];
    NPK_CHECK_EQ_U64(npk_mem_read(ref, "ram", entry - 0x80000000u, w, 4), NPK_OK);
    word_at_entry = (uint64_t)w[0] | (uint64_t)w[1] << 8 | (uint64_t)w[2] << 16 |
                    (uint64_t)w[3] << 24;
    uint64_t ram = 0;
    for (size_t i = 0; i < npk_space_count(ref); i++)
        if (strcmp(npk_space(ref, i)->name, "ram") == 0)
            ram = npk_space(ref, i)->size;
    char q[256], want[256];

    pid_t pid;
    fd = start(0, &pid);
    no_ack = 0;
    /* the first packet is acknowledged with '+' */
    send_pkt("?");
    NPK_CHECK_EQ_U64(get_byte(5000), '+');
    NPK_CHECK_EQ_STR(get_reply(5000), "T05thread:01;");

    const char *r = ask("qSupported:multiprocess+;swbreak+;xmlRegisters=i386");
    NPK_CHECK(strstr(r, "PacketSize=4000") != NULL);
    NPK_CHECK(strstr(r, "qXfer:features:read+") != NULL);
    NPK_CHECK(strstr(r, "QStartNoAckMode+") != NULL);

    /* registers: x0..x31, pc, f0..f31, fflags/frm/fcsr (4 bytes each), acc, facc (8), v0..v3 */
    r = ask("g");
    NPK_CHECK_EQ_U64(strlen(r), (size_t)(2 * (68 * 4 + 2 * 8 + 4 * 4)));
    hex32(want, (uint32_t)entry);
    NPK_CHECK(strncmp(r + 32 * 8, want, 8) == 0);     /* pc, register 32 */
    NPK_CHECK(strncmp(r, "00000000", 8) == 0);
    CHECK_REPLY("p20", want);
    CHECK_REPLY("p44", "0000000000000000");       /* acc, register 68 */
    CHECK_REPLY("p49", "00000000");               /* v3, register 73, the last */
    CHECK_REPLY("p4a", "E02");                    /* past the last register */
    CHECK_REPLY("pzz", "E01");
    CHECK_REPLY("p", "E01");
    CHECK_REPLY("P20=12", "E01");                 /* 1 byte for a 4-byte register */
    CHECK_REPLY("P4a=00000000", "E02");
    CHECK_REPLY("P20", "E01");
    /* a register write, read back through the stub and checked by the API of the machine
     * behind it (frm takes 0..7: 8 is refused by the library, E04) */
    CHECK_REPLY("P42=03000000", "OK");            /* frm, register 66 */
    CHECK_REPLY("p42", "03000000");
    CHECK_REPLY("p43", "60000000");               /* fcsr = frm << 5 */
    uint64_t frm = 0;
    NPK_CHECK_EQ_U64(npk_reg_read(ref, "frm", &frm), NPK_OK);
    NPK_CHECK_EQ_U64(frm, 0);                     /* the oracle machine is another one */
    CHECK_REPLY("P42=08000000", "E04");
    CHECK_REPLY("P42=00000000", "OK");
    CHECK_REPLY("P00=00000000", "OK");            /* x0: writing its value is no change */
    CHECK_REPLY("P00=01000000", "E04");           /* x0 is hard-wired */
    CHECK_REPLY("G00", "E01");                    /* wrong length */

    /* memory */
    snprintf(q, sizeof q, "m%llx,4", (unsigned long long)entry);
    hex32(want, (uint32_t)word_at_entry);
    CHECK_REPLY(q, want);
    CHECK_REPLY("m0,4", "E02");                   /* below the RAM */
    CHECK_REPLY("mffffffff,1", "E02");
    snprintf(q, sizeof q, "m%llx,4", (unsigned long long)(0x80000000u + ram - 2));
    CHECK_REPLY(q, "0000");                       /* up to the RAM's end */
    snprintf(q, sizeof q, "m%llx,1", (unsigned long long)(0x80000000u + ram));
    CHECK_REPLY(q, "E02");
    CHECK_REPLY("m80000000", "E01");              /* no length */
    CHECK_REPLY("mzz,4", "E01");
    CHECK_REPLY("m11111111111111111,4", "E01");   /* more than 64 bits */
    CHECK_REPLY("M80001000,4:deadbeef", "OK");
    CHECK_REPLY("m80001000,4", "deadbeef");
    CHECK_REPLY("M80001000,4:dead", "E01");       /* fewer bytes than the length */
    CHECK_REPLY("M80001000,2:zzzz", "E01");
    CHECK_REPLY("M0,4:00000000", "E02");
    {   /* X: binary, with '}' escapes: 0x7d and 0x23 ('#') */
        const char x[] = "X80001000,2:}]}\x03";
        send_pkt_n(x, sizeof x - 1);
        NPK_CHECK_EQ_STR(get_reply(5000), "OK");
    }
    CHECK_REPLY("m80001000,4", "7d23beef");
    CHECK_REPLY("X80001000,0:", "OK");
    CHECK_REPLY("X80001000,3:ab", "E01");

    /* break and watch points */
    CHECK_REPLY("Z0,80000002,4", "E02");          /* not a multiple of 4 */
    CHECK_REPLY("Z0,zz,4", "E01");
    CHECK_REPLY("Z9,80000000,4", "E01");
    CHECK_REPLY("Z0,80000000,4;X2,0a01", "E01");  /* a condition list: not announced */
    CHECK_REPLY("z0,80000100,4", "E04");          /* none there */
    CHECK_REPLY("Z2,fffffffe,4", "E02");          /* past the end of the bus */
    CHECK_REPLY("Z2,80001000,0", "E01");
    CHECK_REPLY("z2,80001000,4", "E02");          /* no such watch */
    CHECK_REPLY("Z2,80001000,4", "OK");
    CHECK_REPLY("z2,80001000,4", "OK");

    /* unknown and not supported: the empty reply */
    CHECK_REPLY("vFooBar", "");
    CHECK_REPLY("qFooBar", "");
    CHECK_REPLY("!", "");
    CHECK_REPLY("vMustReplyEmpty", "");
    CHECK_REPLY("qXfer:auxv:read::0,100", "");

    /* threads */
    CHECK_REPLY("qC", "QC01");
    CHECK_REPLY("qfThreadInfo", "m01");
    CHECK_REPLY("qsThreadInfo", "l");
    CHECK_REPLY("Hg0", "OK");
    CHECK_REPLY("Hc-1", "OK");
    CHECK_REPLY("Hg7", "E01");
    CHECK_REPLY("T01", "OK");
    CHECK_REPLY("T02", "E02");
    CHECK_REPLY("qAttached", "1");
    CHECK_REPLY("vCont?", "vCont;c;C;s;S;t");
    CHECK_REPLY("vCont;x", "E01");

    /* the target description */
    r = ask("qXfer:features:read:target.xml:0,3fff");
    NPK_CHECK(r[0] == 'l' && strncmp(r + 1, "<?xml", 5) == 0);
    NPK_CHECK(strstr(r, "<architecture>riscv:rv32</architecture>") != NULL);
    NPK_CHECK(strstr(r, "<reg name=\"facc\" bitsize=\"64\" type=\"ieee_double\" regnum=\"69\"") != NULL);
    NPK_CHECK(strstr(r, "<reg name=\"x31\" bitsize=\"32\" type=\"int\" regnum=\"31\"/>") != NULL);
    NPK_CHECK(strstr(r, "org.npukit.rvnpu.npu") != NULL);
    size_t xml_len = strlen(r) - 1;
    r = ask("qXfer:features:read:target.xml:0,10");
    NPK_CHECK(r[0] == 'm' && strlen(r) == 17);
    snprintf(q, sizeof q, "qXfer:features:read:target.xml:%zx,10", xml_len);
    CHECK_REPLY(q, "l");                          /* at the end: nothing more */
    snprintf(q, sizeof q, "qXfer:features:read:target.xml:%zx,10", xml_len + 1);
    CHECK_REPLY(q, "E02");
    CHECK_REPLY("qXfer:features:read:other.xml:0,10", "E00");
    CHECK_REPLY("qXfer:features:read:target.xml:zz", "E01");

    /* monitor */
    char text[4096];
    rcmd(q, "npu");
    unhex_text(text, ask(q));
    NPK_CHECK(strstr(text, "acc   0x0000000000000000\n") != NULL);
    NPK_CHECK(strstr(text, "v3    0x00000000\n") != NULL);
    rcmd(q, "isa-rev");
    unhex_text(text, ask(q));
    NPK_CHECK_EQ_STR(text, "seed\n");
    rcmd(q, "bogus");
    unhex_text(text, ask(q));
    NPK_CHECK_EQ_STR(text, "unknown monitor command 'bogus'; 'monitor help' lists them\n");
    CHECK_REPLY("qRcmd,6", "E01");                /* odd hex */

    /* a wrong checksum: NAK ('-') and no reply; the next good packet works */
    send_raw("$?#00", 5);
    NPK_CHECK_EQ_U64(get_byte(5000), '-');
    NPK_CHECK_EQ_U64(get_byte(200), -1);
    send_raw("$?#zz", 5);
    NPK_CHECK_EQ_U64(get_byte(5000), '-');
    CHECK_REPLY("?", "T05thread:01;");
    /* a NAK of a reply gets the reply again */
    send_pkt("qC");
    NPK_CHECK_EQ_U64(get_byte(5000), '+');
    char frame[64];
    size_t fn = 0;
    int c;
    while ((c = get_byte(5000)) >= 0 && fn < sizeof frame - 1 && (frame[fn++] = (char)c) &&
           !(fn >= 3 && frame[fn - 3] == '#'))
        ;
    frame[fn] = 0;
    NPK_CHECK_EQ_STR(frame, "$QC01#f5");
    send_raw("-", 1);
    NPK_CHECK_EQ_STR(get_reply(5000), "QC01");

    /* running: a step, a breakpoint, the register a step changed */
    CHECK_REPLY("s", "T05thread:01;");
    hex32(want, (uint32_t)entry + 4);
    CHECK_REPLY("p20", want);
    snprintf(q, sizeof q, "Z0,%llx,4", (unsigned long long)mainp);
    CHECK_REPLY(q, "OK");
    CHECK_REPLY(q, "OK");                         /* set already: nothing changes */
    CHECK_REPLY("c", "T05thread:01;");
    hex32(want, (uint32_t)mainp);
    CHECK_REPLY("p20", want);
    CHECK_REPLY("c", "W00");                      /* the resume rule: past it, to the end */
    CHECK_REPLY("?", "W00");
    CHECK_REPLY("c", "E03");                      /* nothing left to run */
    CHECK_REPLY("C05x", "E01");
    /* monitor reset: the machine as loaded, runnable again */
    rcmd(q, "reset");
    unhex_text(text, ask(q));
    snprintf(want, sizeof want, "the machine is as the program was loaded: pc 0x%08llx",
             (unsigned long long)entry);
    NPK_CHECK_CONTAINS(text, want);
    CHECK_REPLY("?", "T05thread:01;");
    hex32(want, (uint32_t)entry);
    CHECK_REPLY("p20", want);
    CHECK_REPLY("c", "T05thread:01;");            /* the breakpoint at main is still set */
    CHECK_REPLY("c", "W00");

    /* no-ack mode: no '+' either way from here */
    CHECK_REPLY("QStartNoAckMode", "OK");
    no_ack = 1;
    send_pkt("qC");
    NPK_CHECK_EQ_U64(get_byte(5000), '$');
    NPK_CHECK_EQ_U64(get_byte(5000), 'Q');

    /* a packet longer than the PacketSize: refused, and the session goes on */
    {
        static char big[17000];
        memset(big, 'M', sizeof big - 1);
        send_pkt(big);
        /* the rest of the earlier reply ("C01#c5") then E01 */
        NPK_CHECK_EQ_STR(get_reply(5000), "E01");
        CHECK_REPLY("qC", "QC01");
    }

    send_pkt("k");
    close(fd);
    NPK_CHECK_EQ_U64(finish(pid), 10 + NPK_GDB_KILLED);
    npk_destroy(ref);
}

/* A watchpoint hit is reported before the accessing instruction (GDB's RISC-V rule): the
 * stub goes back to a snapshot and re-executes. The state it then shows must be a forward
 * run's to the same point: registers and instruction count against a second machine run
 * n - 1 instructions with the library alone. */
static void watch_rewind(void)
{
    const uint64_t lo = 0x800ff000u, len = 0x1000;   /* the top of hello's stack */
    npk_machine *ref = machine(0);
    npk_stats_enable(ref, 1);
    unsigned id;
    npk_stop st;
    npk_watch_hit h;
    NPK_CHECK_EQ_U64(npk_watch_add(ref, "bus", lo, len, NPK_WATCH_WRITE, &id), NPK_OK);
    NPK_CHECK_EQ_U64(npk_run(ref, 0, &st), NPK_OK);
    NPK_CHECK_EQ_U64(st.reason, NPK_STOP_WATCHPOINT);
    NPK_CHECK_EQ_U64(npk_watch_last_hit(ref, &h), NPK_OK);
    npk_stats stats;
    NPK_CHECK_EQ_U64(npk_stats_get(ref, &stats), NPK_OK);
    uint64_t n = stats.insns;
    NPK_CHECK(n > 1);
    npk_destroy(ref);

    /* the state before the n-th instruction, by a forward run */
    npk_machine *fwd = machine(0);
    NPK_CHECK_EQ_U64(npk_run(fwd, n - 1, &st), NPK_OK);
    NPK_CHECK_EQ_U64(st.reason, NPK_STOP_BUDGET);
    const npk_gdb_target *t = npk_gdb_target_for("rvnpu");
    static char want_g[1024];
    size_t k = 0;
    for (size_t i = 0; i < t->n_regs; i++) {
        uint64_t v = 0;
        NPK_CHECK_EQ_U64(npk_reg_read(fwd, t->regs[i].npk, &v), NPK_OK);
        for (unsigned b = 0; b < t->regs[i].bits / 8; b++)
            k += (size_t)sprintf(want_g + k, "%02x", (unsigned)(v >> (8 * b)) & 0xff);
    }
    NPK_CHECK_EQ_U64(npk_reg_read(fwd, "pc", &st.pc), NPK_OK);
    NPK_CHECK_EQ_U64(st.pc, h.pc);
    npk_destroy(fwd);

    pid_t pid;
    fd = start(0, &pid);
    no_ack = 0;
    char q[128], want[128];
    snprintf(q, sizeof q, "Z2,%llx,%llx", (unsigned long long)lo, (unsigned long long)len);
    CHECK_REPLY(q, "OK");
    snprintf(want, sizeof want, "T05watch:%llx;thread:01;", (unsigned long long)h.addr);
    CHECK_REPLY("c", want);
    CHECK_REPLY("g", want_g);
    char text[8192];
    rcmd(q, "stats");
    unhex_text(text, ask(q));
    char line[64];
    snprintf(line, sizeof line, "\n  instructions  %llu\n", (unsigned long long)(n - 1));
    NPK_CHECK_CONTAINS(text, line);
    /* GDB's next move: the watchpoint out, one step over the store, back in */
    snprintf(q, sizeof q, "z2,%llx,%llx", (unsigned long long)lo, (unsigned long long)len);
    CHECK_REPLY(q, "OK");
    CHECK_REPLY("s", "T05thread:01;");
    hex32(want, (uint32_t)h.pc + 4);
    CHECK_REPLY("p20", want);
    CHECK_REPLY("c", "W00");
    send_pkt("k");
    close(fd);
    NPK_CHECK_EQ_U64(finish(pid), 10 + NPK_GDB_KILLED);
}

/* The g reply a machine would give: every register of the description, in order. */
static void g_of(npk_machine *m, char *out)
{
    const npk_gdb_target *t = npk_gdb_target_for("rvnpu");
    size_t k = 0;
    for (size_t i = 0; i < t->n_regs; i++) {
        uint64_t v = 0;
        NPK_CHECK_EQ_U64(npk_reg_read(m, t->regs[i].npk, &v), NPK_OK);
        for (unsigned b = 0; b < t->regs[i].bits / 8; b++)
            k += (size_t)sprintf(out + k, "%02x", (unsigned)(v >> (8 * b)) & 0xff);
    }
    out[k] = 0;
}

/* Reverse execution (bs, bc): the state and statistics after going back equal a forward run
 * to the same point, the beginning of the history is reported as such, and output written
 * once is not written again when the program runs forward over it a second time. */
static void reverse_execution(void)
{
    char q[128], want[2048], text[8192];
    npk_machine *ref = machine(0);
    uint64_t entry;
    NPK_CHECK_EQ_U64(npk_reg_read(ref, "pc", &entry), NPK_OK);
    npk_stop st;
    NPK_CHECK_EQ_U64(npk_run(ref, 4, &st), NPK_OK);  /* the forward run: 4 instructions */
    static char g4[1024];
    g_of(ref, g4);
    npk_destroy(ref);

    char path[] = "/tmp/npk_gdb_outXXXXXX";
    int tfd = mkstemp(path);
    NPK_CHECK(tfd >= 0);
    close(tfd);
    guest_path = path;
    pid_t pid;
    fd = start(0, &pid);
    guest_path = NULL;
    no_ack = 0;
    const char *r = ask("qSupported");
    NPK_CHECK(strstr(r, "ReverseStep+") && strstr(r, "ReverseContinue+"));
    CHECK_REPLY("bs", "T05replaylog:begin;thread:01;");  /* nothing to go back to */
    for (int i = 0; i < 5; i++)
        CHECK_REPLY("s", "T05thread:01;");
    CHECK_REPLY("bs", "T05thread:01;");
    CHECK_REPLY("g", g4);
    rcmd(q, "stats");
    unhex_text(text, ask(q));
    NPK_CHECK_CONTAINS(text, "\n  instructions  4\n");
    for (int i = 0; i < 4; i++)
        CHECK_REPLY("bs", "T05thread:01;");
    hex32(want, (uint32_t)entry);
    CHECK_REPLY("p20", want);
    CHECK_REPLY("bs", "T05replaylog:begin;thread:01;");
    /* a breakpoint two words on: forward to it, on to the end, back to it, back to the start */
    snprintf(q, sizeof q, "Z0,%llx,4", (unsigned long long)entry + 8);
    CHECK_REPLY(q, "OK");
    CHECK_REPLY("c", "T05thread:01;");
    CHECK_REPLY("c", "W00");
    CHECK_REPLY("bc", "T05thread:01;");
    hex32(want, (uint32_t)entry + 8);
    CHECK_REPLY("p20", want);
    rcmd(q, "stats");
    unhex_text(text, ask(q));
    NPK_CHECK_CONTAINS(text, "\n  instructions  2\n");
    CHECK_REPLY("bc", "T05replaylog:begin;thread:01;");
    hex32(want, (uint32_t)entry);
    CHECK_REPLY("p20", want);
    /* forward again to the end: the output is written once only */
    CHECK_REPLY("c", "T05thread:01;");
    CHECK_REPLY("c", "W00");
    /* a write from the debugger starts a new history */
    CHECK_REPLY("bc", "T05thread:01;");
    CHECK_REPLY("P0a=05000000", "OK");               /* a0 */
    CHECK_REPLY("bs", "T05replaylog:begin;thread:01;");
    send_pkt("k");
    close(fd);
    NPK_CHECK_EQ_U64(finish(pid), 10 + NPK_GDB_KILLED);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = 0;
    if (f)
        fclose(f);
    remove(path);
    NPK_CHECK_EQ_STR(text, "hello from rvnpu firmware (write)\n"
                           "hello from rvnpu firmware (puts)\n");
}

static void interrupt_and_drop(void)
{
    /* Ctrl-C during a continue of a program that never ends: the stop reply (SIGINT) comes
     * within 50 ms; the best of three tries counts, so a busy machine does not fail it */
    pid_t pid;
    fd = start(1, &pid);
    no_ack = 0;
    CHECK_REPLY("QStartNoAckMode", "OK");
    no_ack = 1;
    double best = 1e9;
    for (int i = 0; i < 3; i++) {
        send_pkt("vCont;c:1");
        NPK_CHECK_EQ_U64(get_byte(100), -1);              /* still running after 100 ms */
        double t0 = now_ms();
        send_raw("\x03", 1);
        const char *r = get_reply(5000);
        double dt = now_ms() - t0;
        NPK_CHECK_EQ_STR(r ? r : "<none>", "T02thread:01;");
        if (dt < best)
            best = dt;
    }
    printf("interrupt answered in %.1f ms (best of 3)\n", best);
    NPK_CHECK(best < 50.0);
    CHECK_REPLY("p20", "00000080");               /* it spins at 0x80000000 */
    /* the connection dropped during a continue: the server ends cleanly */
    send_pkt("c");
    sleep_ms(50);
    close(fd);
    NPK_CHECK_EQ_U64(finish(pid), 10 + NPK_GDB_CLOSED);

    /* dropped while stopped, in the middle of a packet */
    fd = start(1, &pid);
    no_ack = 0;
    send_raw("$qSupp", 6);
    close(fd);
    NPK_CHECK_EQ_U64(finish(pid), 10 + NPK_GDB_CLOSED);

    /* detach */
    fd = start(1, &pid);
    CHECK_REPLY("D", "OK");
    close(fd);
    NPK_CHECK_EQ_U64(finish(pid), 10 + NPK_GDB_DETACHED);
}

static void listen_socket(void)
{
    char err[256];
    unsigned port = 0;
    int l = npk_gdb_listen("127.0.0.1", 0, &port, err, sizeof err);
    NPK_CHECK(l >= 0);
    NPK_CHECK(port > 0 && port < 65536);
    /* the same port again: in use */
    int l2 = npk_gdb_listen("127.0.0.1", port, &port, err, sizeof err);
    NPK_CHECK_EQ_U64(l2, -1);
    NPK_CHECK(strstr(err, "127.0.0.1 port") != NULL);
    if (l >= 0)
        close(l);
    NPK_CHECK_EQ_U64(npk_gdb_listen("localhost", 0, &port, err, sizeof err), -1);
    NPK_CHECK(strstr(err, "--bind localhost: not a numeric") != NULL);
    NPK_CHECK(npk_gdb_target_for("rvnpu") != NULL);
    NPK_CHECK(npk_gdb_target_for("toy") == NULL);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_gdb_raw HELLO.ELF\n");
        return 2;
    }
    elf_path = argv[1];
    signal(SIGPIPE, SIG_IGN);
    alarm(60);
    good_and_bad_packets();
    watch_rewind();
    reverse_execution();
    interrupt_and_drop();
    listen_socket();
    return npk_test_done();
}
