/* Fuzz the GDB stub (src/debug/gdb.c) from the network side: the input is the byte stream a
 * debugger sends (packets with right or wrong checksums, acks, NAKs, Ctrl-C bytes, noise),
 * fed through an in-memory transport (npk_gdb_serve_io) to one session on a small rvnpu
 * machine (16 KiB RAM). Input byte 0, bit 0, picks the program: a loop of stores, loads and
 * NPU instructions that prints "o" and exits with status 5, or one that spins for ever; the
 * rest is the stream. The session may execute fuzz_rvnpu_budget(16K) = 4096 instructions in
 * all (going back included), so `c` on the spinning program ends. Checked: the session
 * serves (the machine is valid), and everything the stub sends is '+', '-' or a whole frame
 * $BODY#XX with the right checksum and no '$' or '#' in BODY. Inputs over 8 KiB are ignored
 * (each packet can ask for work: a 64 KiB stream of `bs` would be seconds, no bug).
 * NPK_FUZZ_VERBOSE=1 in the environment copies the stub's replies to standard error. */
#include "debug/gdb.h"
#include "fuzz.h"

#define GDB_FUZZ_RAM ((uint64_t)16 << 10)
#define GDB_FUZZ_MAX_INPUT ((size_t)8 << 10)

static const char exits_src[] = "_start: lui s0, 0x80001\n"
                                "        addi s1, zero, 20\n"
                                "loop:   sw s1, 0(s0)\n"
                                "        npu.macc s1, s1\n"
                                "        npu.ldvec v1, 0(s0)\n"
                                "        lw t0, 0(s0)\n"
                                "        addi s1, s1, -1\n"
                                "        bne s1, zero, loop\n"
                                "        lui t0, 0x10000\n"
                                "        addi t1, zero, 111\n"
                                "        sb t1, 0(t0)\n"
                                "        addi a7, zero, 93\n"
                                "        addi a0, zero, 5\n"
                                "        ecall\n";
static const char spins_src[] = "_start: lui s0, 0x80001\n"
                                "loop:   sw s1, 0(s0)\n"
                                "        addi s1, s1, 1\n"
                                "        j loop\n";

typedef struct stream {
    const uint8_t *p;
    size_t n, pos;
    int state;          /* the reply check: 0 between frames, 1 in a body, 2 and 3 its sum */
    unsigned sum, got;
    int verbose;
} stream;

static long in_recv(void *ctx, uint8_t *buf, size_t n, int timeout_ms)
{
    (void)timeout_ms;   /* all of the input is there from the start */
    stream *s = ctx;
    if (s->pos == s->n)
        return -1;
    /* in pieces of up to 7 bytes: packets cross the stub's buffer refills */
    size_t k = s->n - s->pos < n ? s->n - s->pos : n;
    if (k > 7)
        k = 7;
    memcpy(buf, s->p + s->pos, k);
    s->pos += k;
    return (long)k;
}

static int hexv(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static long out_send(void *ctx, const char *p, size_t n)
{
    stream *s = ctx;
    if (s->verbose)
        fwrite(p, 1, n, stderr);
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)p[i];
        switch (s->state) {
        case 0:
            if (c == '$')
                s->state = 1, s->sum = 0;
            else if (c != '+' && c != '-')
                fuzz_fail("a byte outside a frame that is no ack", NULL);
            break;
        case 1:
            if (c == '#')
                s->state = 2;
            else if (c == '$')
                fuzz_fail("'$' inside a reply", NULL);
            else
                s->sum += (unsigned)c;
            break;
        case 2:
        case 3:
            if (hexv(c) < 0)
                fuzz_fail("a reply checksum that is not lower-case hex", NULL);
            s->got = s->got << 4 | (unsigned)hexv(c);
            if (s->state++ == 3) {
                if ((s->got & 0xff) != (s->sum & 0xff))
                    fuzz_fail("a reply with a wrong checksum", NULL);
                s->state = 0, s->got = 0;
            }
            break;
        }
    }
    return (long)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > GDB_FUZZ_MAX_INPUT)
        return -1;
    npk_machine *m = fuzz_machine("rvnpu:ram_size=16K");
    if (npk_load_asm(m, data[0] & 1 ? spins_src : exits_src, "fuzz.s", fuzz_null()) != NPK_OK)
        fuzz_fail("the harness's program does not load", npk_error(m));
    const char *v = getenv("NPK_FUZZ_VERBOSE");
    stream st = {data + 1, size - 1, 0, 0, 0, 0, v && *v == '1'};
    npk_gdb_io io = {&st, in_recv, out_send};
    npk_gdb_result res;
    char err[256];
    if (npk_gdb_serve_io(m, npk_gdb_target_for("rvnpu"), &io, fuzz_rvnpu_budget(GDB_FUZZ_RAM),
                         fuzz_null(), fuzz_null(), NULL, &res, err, sizeof err) != 0)
        fuzz_fail("the stub refused the machine", err);
    if (st.state != 0)
        fuzz_fail("the stub ended in the middle of a reply", NULL);
    fuzz_check_str(res.stop.message, sizeof res.stop.message, "npk_stop.message");
    npk_destroy(m);
    return 0;
}
