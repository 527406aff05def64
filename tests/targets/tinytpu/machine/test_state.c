/* tinytpu architectural state by name (docs/state.md): the register list against the names of
 * spec Part A, weights written into the PEs by name and used by an input read, registers a
 * program leaves (wp, E, the column-size flag, gptr/mode, PE xout), with values worked out by
 * hand from the spec, and refused writes. */
#include <stdlib.h>
#include <string.h>

#include "npukit/npukit.h"
#include "test.h"
#include "state.h"

static npk_machine *load(const char *spec, const char *src)
{
    return state_load(spec, src, "state.tt");
}

static uint16_t ub(npk_machine *m, unsigned a)
{
    uint8_t b[2] = {0xEE, 0xEE};
    npk_mem_read(m, "ub", 2 * a, b, 2);
    return (uint16_t)(b[0] | b[1] << 8);
}

/* A4.1 (7 per PE), A5.5 (E), A6.2/A6.3 (wp, gptr, mode), A7.2 (ptr/R/C/t per channel), A7.9,
 * A9.3 (stage registers, lastH), A10 (done, upd) */
static void check_names(unsigned N)
{
    char spec[32];
    snprintf(spec, sizeof spec, "tinytpu:lanes=%u", N);
    npk_machine *m = load(spec, "nop\n");
    /* 6 globals, F_{k-1} (6 fields), N enables, 7 channels x 4 + 2 T + skip, 19 per lane (10
     * channel and GD registers, 4 stages x 2, lastH), 7 per PE */
    NPK_CHECK_EQ_U64(npk_reg_count(m), 6 + 6 + N + 7 * 4 + 3 + 19 * N + 7 * N * N);
    static const struct {
        const char *name;
        unsigned bits;
    } want[] = {
        {"cycle", 64}, {"wp", 32}, {"gptr", 16}, {"mode", 1}, {"cs_flag", 1},
        {"cs_value", 16}, {"F.start", 1}, {"F.sel", 9}, {"F.transpose", 1}, {"F.addr", 16},
        {"F.rows", 16}, {"F.cols", 16}, {"E[0]", 1}, {"input.ptr", 16}, {"weight.skip", 16},
        {"gweight.t", 16}, {"input.data[0]", 16}, {"weight.valid[0]", 1}, {"old[0]", 16},
        {"gd.done[0]", 1}, {"gd.upd[0]", 16}, {"vpu.BIAS.data[0]", 16},
        {"vpu.DERIV.valid[0]", 1}, {"vpu.lastH[0]", 16}, {"pe[0][0].shadow", 16},
        {"pe[0][0].active", 16}, {"pe[0][0].xout", 16}, {"pe[0][0].psum", 16},
        {"pe[0][0].vout", 1}, {"pe[0][0].wout", 16}, {"pe[0][0].swout", 1},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const npk_reg_info *r = find(m, want[i].name);
        NPK_REPORT(r && r->bits == want[i].bits && r->flags == 0, "N=%u: %s\n", N,
                   want[i].name);
    }
    char last[40];
    snprintf(last, sizeof last, "pe[%u][%u].swout", N - 1, N - 1);
    NPK_CHECK_EQ_STR(npk_reg(m, npk_reg_count(m) - 1)->name, last);
    snprintf(last, sizeof last, "E[%u]", N - 1);
    NPK_CHECK(find(m, last) != NULL);
    npk_destroy(m);
}

/* Weights written straight into the active registers (no weight read), the columns enabled
 * by name, then one input row [1.0, 2.0] (Q8.8 0x0100, 0x0200) read from UB 0..1 with
 * pathway 0000: the array's outputs go to the UB at wp (written as 2, so the inputs stay).
 * Column j = x0 * active[0][j] + x1 * active[1][j]:
 *   column 0 = 1.0 * 1.0 + 2.0 * 0.5 = 2.0 (0x0200), column 1 = 1.0 * 2.0 + 2.0 * 1.0 = 4.0
 * (0x0400). Lane 1 runs a cycle behind lane 0 (A7.2), so column 0 lands at 2, column 1 at 3.
 * The last valid inputs stay in xout (A4.2): row k holds x_k in both columns. */
static void check_written(void)
{
    npk_machine *m = load("tinytpu", ".pathway 0000\n"
                                     "read input addr=0 rows=1 cols=2\n"
                                     "nop 8\n");
    const uint8_t x[4] = {0x00, 0x01, 0x00, 0x02};
    NPK_CHECK(npk_mem_write(m, "ub", 0, x, 4) == NPK_OK);
    wr(m, "wp", 2);
    wr(m, "E[0]", 1);
    wr(m, "E[1]", 1);
    wr(m, "pe[0][0].active", 0x0100);
    wr(m, "pe[1][0].active", 0x0080);
    wr(m, "pe[0][1].active", 0x0200);
    wr(m, "pe[1][1].active", 0x0100);
    npk_stop stop;
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(ub(m, 2), 0x0200);
    NPK_CHECK_EQ_U64(ub(m, 3), 0x0400);
    NPK_CHECK_EQ_U64(rd(m, "wp"), 4);
    NPK_CHECK_EQ_U64(rd(m, "pe[0][0].xout"), 0x0100);
    NPK_CHECK_EQ_U64(rd(m, "pe[0][1].xout"), 0x0100);
    NPK_CHECK_EQ_U64(rd(m, "pe[1][0].xout"), 0x0200);
    NPK_CHECK_EQ_U64(rd(m, "pe[1][1].xout"), 0x0200);
    /* the weights stay; no valid input now: psum and vout 0 (A4.2) */
    NPK_CHECK_EQ_U64(rd(m, "pe[1][0].active"), 0x0080);
    NPK_CHECK_EQ_U64(rd(m, "pe[1][1].psum"), 0);
    NPK_CHECK_EQ_U64(rd(m, "pe[1][1].vout"), 0);
    NPK_CHECK_EQ_U64(rd(m, "input.R"), 0);   /* the read is over: the channel at rest */
    npk_destroy(m);

    /* the same run without the backdoor writes: E = 00 holds every PE cleared (A5.5), so
     * nothing reaches the UB */
    m = load("tinytpu", ".pathway 0000\nread input addr=0 rows=1 cols=2\nnop 8\n");
    NPK_CHECK(npk_mem_write(m, "ub", 0, x, 4) == NPK_OK);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(rd(m, "wp"), 0);
    npk_destroy(m);
}

/* A value written into a bottom-row PE after idle cycles: with pathway 0000 its psum, valid
 * during the next cycle, is the column's output and is appended at wp (A9.4, A6.2); the PE
 * then registers no valid input and clears psum and vout (A4.2). The fast path skips an
 * array and VPU at rest, so a backdoor write must wake them. */
static void check_woken(void)
{
    npk_machine *m = load("tinytpu", ".pathway 0000\nnop 20\n");
    npk_stop stop;
    NPK_CHECK(npk_run(m, 10, &stop) == NPK_OK && stop.reason == NPK_STOP_BUDGET);
    wr(m, "E[0]", 1);
    wr(m, "pe[1][0].psum", 0x0123);
    wr(m, "pe[1][0].vout", 1);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(ub(m, 0), 0x0123);
    NPK_CHECK_EQ_U64(rd(m, "wp"), 1);
    NPK_CHECK_EQ_U64(rd(m, "pe[1][0].psum"), 0);
    NPK_CHECK_EQ_U64(rd(m, "pe[1][0].vout"), 0);
    npk_destroy(m);
}

/* Registers a program sets, stepped cycle by cycle. */
static void check_left(void)
{
    npk_machine *m = load("tinytpu", "host0=0x0100 host1=0x0200\n"      /* cycle 1 */
                                     "read weight addr=0 rows=2 cols=2\n" /* cycle 2 */
                                     "nop\n"                              /* cycle 3 */
                                     "read gbias addr=5 rows=1 cols=1\n"  /* cycle 4 */
                                     "read gweight addr=9 rows=1 cols=1\n"/* cycle 5 */
                                     "nop 4\n");
    npk_stop stop;
    /* cycle 1: lane 1 is appended first (A6.2): UB[0] = 0x0200, UB[1] = 0x0100, wp = 2 */
    NPK_CHECK(npk_step(m, &stop) == NPK_OK);
    NPK_CHECK_EQ_U64(rd(m, "cycle"), 1);
    NPK_CHECK_EQ_U64(rd(m, "wp"), 2);
    NPK_CHECK_EQ_U64(ub(m, 0), 0x0200);
    NPK_CHECK_EQ_U64(ub(m, 1), 0x0100);
    NPK_CHECK_EQ_U64(rd(m, "E[0]"), 0);
    /* cycle 2: the weight read sets the column-size flag, value cols = 2 (A7.9), and E
     * becomes mask(2) = 11 at that edge (A5.5); the channel loaded R = rows, C = cols,
     * skip = cols + 1 and ptr = addr + rows*cols - cols = 2 (A7.4), then did beat 0 */
    NPK_CHECK(npk_step(m, &stop) == NPK_OK);
    NPK_CHECK_EQ_U64(rd(m, "cs_flag"), 1);
    NPK_CHECK_EQ_U64(rd(m, "cs_value"), 2);
    NPK_CHECK_EQ_U64(rd(m, "E[0]"), 1);
    NPK_CHECK_EQ_U64(rd(m, "E[1]"), 1);
    NPK_CHECK_EQ_U64(rd(m, "weight.R"), 2);
    NPK_CHECK_EQ_U64(rd(m, "weight.C"), 2);
    NPK_CHECK_EQ_U64(rd(m, "weight.skip"), 3);
    NPK_CHECK_EQ_U64(rd(m, "weight.t"), 1);
    /* cycle 3: start = 0 clears the flag (A7.9); E keeps its value */
    NPK_CHECK(npk_step(m, &stop) == NPK_OK);
    NPK_CHECK_EQ_U64(rd(m, "cs_flag"), 0);
    NPK_CHECK_EQ_U64(rd(m, "E[1]"), 1);
    /* cycles 4 and 5: channel 5 sets mode = bias, gptr = 5; channel 6 mode = weight,
     * gptr = 9 (A7.3) */
    NPK_CHECK(npk_step(m, &stop) == NPK_OK);
    NPK_CHECK_EQ_U64(rd(m, "mode"), 0);
    NPK_CHECK_EQ_U64(rd(m, "gptr"), 5);
    NPK_CHECK(npk_step(m, &stop) == NPK_OK);
    NPK_CHECK_EQ_U64(rd(m, "mode"), 1);
    NPK_CHECK_EQ_U64(rd(m, "gptr"), 9);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(rd(m, "cycle"), 9);
    npk_destroy(m);
}

static void check_refused(void)
{
    npk_machine *m = load("tinytpu", "nop\n");
    NPK_CHECK(npk_reg_write(m, "mode", 2) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "tinytpu: mode is 1 bits wide; 0x2 does not fit");
    NPK_CHECK(npk_reg_write(m, "pe[0][1].psum", 0x10000) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "pe[0][1].psum is 16 bits wide");
    NPK_CHECK(npk_reg_write(m, "pe[2][0].psum", 1) == NPK_ERR_ARG);   /* N = 2 */
    NPK_CHECK_CONTAINS(npk_error(m), "no register 'pe[2][0].psum'");
    NPK_CHECK(npk_reg_write(m, "cycle", 2) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "past the end of the 1-cycle program");
    uint8_t b[2] = {0x34, 0x12};
    NPK_CHECK(npk_reg_write_bytes(m, "vpu.LOSS.data[1]", b, 2) == NPK_OK);
    NPK_CHECK_EQ_U64(rd(m, "vpu.LOSS.data[1]"), 0x1234);
    NPK_CHECK(npk_reg_write_bytes(m, "vpu.LOSS.valid[1]", b, 1) == NPK_ERR_RANGE);
    npk_destroy(m);
}

/* The registers by name are the whole state (with the UB): a fresh machine that gets every
 * register and the UB of one stopped part-way through a program, then runs the rest, ends
 * exactly as that one does. At N = 3, a 3 x 3 weight read (the per-lane rule of tinytpu spec
 * C2.3, which the weight channel's ptr, R, C, t and transpose hold) is held for three words
 * (issued once, tinytpu spec A7.8: the F.* registers), then an input read is held for two
 * (a second issue would append a second row of results). Split after every cycle. */
static const char split_prog[] = "host0=0x0100 host1=0x0200 host2=0x0300\n"
                                 "host0=0x0400 host1=0x0500 host2=0x0600\n"
                                 "host0=0x0700 host1=0x0800 host2=0x0900\n"
                                 "read weight addr=0 rows=3 cols=3\n"
                                 "read weight addr=0 rows=3 cols=3\n"
                                 "read weight addr=0 rows=3 cols=3\n"
                                 "nop 2\n"
                                 "read input addr=3 rows=1 cols=3\n"
                                 "sw read input addr=3 rows=1 cols=3\n"
                                 "nop 10\n";

static void copy_state(npk_machine *to, npk_machine *from)
{
    for (size_t i = 0; i < npk_reg_count(from); i++) {
        const char *name = npk_reg(from, i)->name;
        uint64_t v = 0;
        NPK_CHECK(npk_reg_read(from, name, &v) == NPK_OK);
        NPK_REPORT(npk_reg_write(to, name, v) == NPK_OK, "write %s: %s\n", name,
                   npk_error(to));
    }
    uint8_t ub[256];
    NPK_CHECK(npk_mem_read(from, "ub", 0, ub, sizeof ub) == NPK_OK &&
              npk_mem_write(to, "ub", 0, ub, sizeof ub) == NPK_OK);
}

static void check_complete(void)
{
    npk_machine *whole = load("tinytpu:lanes=3", split_prog);
    npk_stop stop;
    NPK_CHECK(npk_run(whole, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
    uint64_t n = rd(whole, "cycle");
    NPK_CHECK_EQ_U64(n, 20);
    /* one row of three results appended after the nine host words */
    NPK_CHECK_EQ_U64(rd(whole, "wp"), 12);
    for (uint64_t k = 1; k < n; k++) {
        npk_machine *a = load("tinytpu:lanes=3", split_prog);
        npk_machine *b = load("tinytpu:lanes=3", split_prog);
        NPK_CHECK(npk_run(a, k, &stop) == NPK_OK && stop.reason == NPK_STOP_BUDGET);
        copy_state(b, a);
        NPK_CHECK(npk_run(b, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
        size_t i = 0; /* the first register that differs, if any */
        uint64_t v = 0, w = 0;
        for (; i < npk_reg_count(whole); i++)
            if ((v = rd(b, npk_reg(whole, i)->name)) != (w = rd(whole, npk_reg(whole, i)->name)))
                break;
        NPK_REPORT(i == npk_reg_count(whole), "split after cycle %llu: %s = 0x%llx, want 0x%llx\n",
                   (unsigned long long)k, i < npk_reg_count(whole) ? npk_reg(whole, i)->name : "",
                   (unsigned long long)v, (unsigned long long)w);
        uint8_t ub_b[256], ub_w[256];
        NPK_CHECK(npk_mem_read(b, "ub", 0, ub_b, 256) == NPK_OK &&
                  npk_mem_read(whole, "ub", 0, ub_w, 256) == NPK_OK);
        NPK_REPORT(memcmp(ub_b, ub_w, 256) == 0, "split after cycle %llu: the UB differs\n",
                   (unsigned long long)k);
        npk_destroy(a);
        npk_destroy(b);
    }
    npk_destroy(whole);
}

/* F.* (tinytpu spec A7.8): the previous word's read fields; the next word issues iff it has
 * start = 1 and differs. Written by name, they decide whether a read issues. */
static void check_f(void)
{
    npk_machine *m = load("tinytpu", "read bias addr=4 rows=2 cols=1 t\nread bias addr=4 rows=2 "
                                     "cols=1 t\nnop\nread bias addr=4 rows=2 cols=1 t\n");
    npk_stop stop;
    NPK_CHECK(npk_run(m, 1, &stop) == NPK_OK);
    NPK_CHECK(rd(m, "F.start") == 1 && rd(m, "F.sel") == 2 && rd(m, "F.transpose") == 1 &&
              rd(m, "F.addr") == 4 && rd(m, "F.rows") == 2 && rd(m, "F.cols") == 1);
    NPK_CHECK_EQ_U64(rd(m, "bias.t"), 1);
    /* cycle 2 repeats the word: no issue, the read goes on (t = 2) */
    NPK_CHECK(npk_run(m, 1, &stop) == NPK_OK);
    NPK_CHECK_EQ_U64(rd(m, "bias.t"), 2);
    /* cycle 3 (start 0): F.start = 0, the other fields not looked at (A7.8) */
    NPK_CHECK(npk_run(m, 1, &stop) == NPK_OK);
    NPK_CHECK_EQ_U64(rd(m, "F.start"), 0);
    /* make cycle 4 look like a repeat: with F = its fields it does not issue (bias.t stays
     * 0 after the finished read cleared the channel) */
    wr(m, "F.start", 1);
    wr(m, "F.sel", 2), wr(m, "F.transpose", 1), wr(m, "F.addr", 4), wr(m, "F.rows", 2);
    wr(m, "F.cols", 1);
    NPK_CHECK(npk_run(m, 1, &stop) == NPK_OK);
    NPK_CHECK(rd(m, "bias.R") == 0 && rd(m, "bias.t") == 0);
    /* the same word after F.transpose = 0 differs: it issues (R = rows = 2, t = 1) */
    wr(m, "cycle", 3);
    wr(m, "F.transpose", 0);
    NPK_CHECK(npk_run(m, 1, &stop) == NPK_OK);
    NPK_CHECK(rd(m, "bias.R") == 2 && rd(m, "bias.t") == 1);
    NPK_CHECK(npk_reg_write(m, "F.sel", 512) == NPK_ERR_RANGE);
    npk_destroy(m);
}

int main(void)
{
    check_names(2);
    check_names(5);
    check_written();
    check_woken();
    check_left();
    check_refused();
    check_complete();
    check_f();
    return npk_test_done();
}
