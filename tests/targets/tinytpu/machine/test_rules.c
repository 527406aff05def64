/* tinytpu: directed tests of the rules that are easy to get wrong (spec Appendix Z), each with
 * the expected trace or memory derived by hand in a comment next to it. Channel activity is
 * observed through the trace's R lines (trace_reads=1), UB writes through W lines. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "tt_prog.h"

/* Run b on a machine (spec string), return the trace text (caller frees) and the stop. */
static char *run_trace(pb *b, const char *spec, npk_stop *stop)
{
    npk_machine *m = pb_machine(b, spec);
    char *buf = NULL;
    size_t len = 0;
    FILE *tr = open_memstream(&buf, &len);
    npk_trace_text(m, tr);
    NPK_CHECK(npk_run(m, 0, stop) == NPK_OK);
    npk_trace_text(m, NULL);
    fclose(tr);
    npk_destroy(m);
    tt_program_free(&b->p);
    return buf;
}

/* the trace without the final "UB a v" lines */
static void strip_ub(char *t)
{
    char *u = strstr(t, "UB ");
    while (u && u != t && u[-1] != '\n')
        u = strstr(u + 1, "UB ");
    if (u)
        *u = 0;
}

#define SPEC "tinytpu:trace_reads=1"

/* Appendix Z 2 (A7.8): an identical read word held for 3 cycles issues once; start falling and
 * rising re-issues; a change of a field the channel ignores (T on a bias read) re-issues; the
 * first beat is registered at the issue edge. A 1x1 bias read has R + C - 1 = 1 beat: one R line
 * at the issue edge. UB[0] = 0 is read, so the R lines show address 0 value 0000. */
static void read_issue(void)
{
    pb b;
    pb_init(&b, 2);
    for (int i = 0; i < 3; i++)                          /* c1..c3: one issue, at c1 */
        pb_cycle(&b, TT_CH_BIAS, 0, 1, 1, 0, 0, NULL, 0);
    pb_idle(&b, 1);                                      /* c4: start = 0 */
    pb_cycle(&b, TT_CH_BIAS, 0, 1, 1, 0, 0, NULL, 0);    /* c5: issues again */
    pb_cycle(&b, TT_CH_BIAS, 0, 1, 1, 1, 0, NULL, 0);    /* c6: T changed: issues */
    pb_cycle(&b, TT_CH_BIAS, 0, 1, 1, 1, 0, NULL, 0);    /* c7: held: no issue */
    npk_stop stop;
    char *t = run_trace(&b, SPEC, &stop);
    strip_ub(t);
    NPK_CHECK_EQ_STR(t, "R 1 bias 0 0 0000\nR 5 bias 0 0 0000\nR 6 bias 0 0 0000\n");
    free(t);
}

/* Appendix Z 5 (A7.4): the weight walk's broken shape T = 0, cols = 1, rows = 3 at addr 10:
 * skip = 2, ptr = 10 + 3 - 1 = 12. Beat 0 lane 0 reads 12 (right: A[2][0]); ptr -= 2 -> 10,
 * then += 3 -> 13. Beat 1 reads 13 (the intent would be 11: the word after the vector), ptr
 * -> 11 -> 14. Beat 2 reads 14. Host words 10..14 = 1..5 (raw) show the values. */
static void weight_walk_broken(void)
{
    pb b;
    pb_init(&b, 2);
    for (int i = 0; i < 15; i++) { /* UB[i] = i, one host word per cycle on lane 0 */
        int h[1] = {i};
        pb_cycle(&b, -1, 0, 0, 0, 0, 0, h, 1);
    }
    pb_cycle(&b, TT_CH_WEIGHT, 10, 3, 1, 0, 0, NULL, 0); /* c16 */
    pb_idle(&b, 3);
    npk_stop stop;
    char *t = run_trace(&b, SPEC, &stop);
    const char *r = strstr(t, "R ");
    NPK_CHECK(r != NULL);
    char got[256] = "";
    if (r) {
        snprintf(got, sizeof got, "%s", r);
        strip_ub(got);
    }
    NPK_CHECK_EQ_STR(got, "R 16 weight 0 12 000C\nR 17 weight 0 13 000D\nR 18 weight 0 14 000E\n");
    free(t);
}

/* Appendix Z 6 (A6.2): appends go lane N-1 first; on a lane the VPU wins over the host. A
 * pass-through (pathway 0000) result on lane 0 arrives in the same cycle as host words on both
 * lanes: the lane-1 host word is written first, then the VPU beat; the lane-0 host word is
 * dropped. Setup: weights [[1, 0], [0, 0]] (column 0 = 1 in PE(0,0), E = 01 via cols = 1 of a
 * transposed 1x2 view... kept simple: weight read T=0 rows 1 cols 1 of UB[0] = 1.0), input
 * 1x1 [2.0] at UB[1]: column 0 = 2.0 registered at x + 2, valid during cycle x + 3, appended
 * at edge x + 3. Cycle x + 3 also has host1 = 0x1111, host0 = 0x2222. */
static void vpu_wins(void)
{
    pb b;
    pb_init(&b, 2);
    int h0[1] = {0x0100}, h1[1] = {0x0200};
    pb_cycle(&b, -1, 0, 0, 0, 0, 0, h0, 1);              /* c1: UB[0] = 1.0 */
    pb_cycle(&b, -1, 0, 0, 0, 0, 0, h1, 1);              /* c2: UB[1] = 2.0 */
    pb_cycle(&b, TT_CH_WEIGHT, 0, 1, 1, 0, 0, NULL, 0);  /* c3: w = 3, E := 01 */
    pb_idle(&b, 1);
    pb_cycle(&b, TT_CH_INPUT, 1, 1, 1, 0, 0, NULL, 0);   /* c5: x = 5 */
    pb_cycle(&b, -1, 0, 0, 0, 0, 1, NULL, 0);            /* c6: sw */
    pb_idle(&b, 1);                                      /* c7 */
    int hh[2] = {0x2222, 0x1111};
    pb_cycle(&b, -1, 0, 0, 0, 0, 0, hh, 2);              /* c8 = x + 3 */
    pb_idle(&b, 1);
    npk_stop stop;
    char *t = run_trace(&b, "tinytpu", &stop);
    strip_ub(t);
    /* wp = 2 at c8: host lane 1 -> UB[2] = 1111, VPU lane 0 -> UB[3] = 2.0 * 1.0 = 0200 */
    NPK_CHECK_EQ_STR(t, "W 1 0 0100\nW 2 1 0200\nV 7 0 0200\nW 8 2 1111\nW 8 3 0200\n");
    free(t);
}

/* Appendix Z 4 (A5.5): E changes at the weight read's edge: cols = 1 enables column 0 only, so
 * column 1 never produces a beat: with weights [[1, 1], [0, 0]] (row-major 2x2 at 0, T = 0
 * rows 2 cols 1 would be a broken shape, so use the 1x2 view transposed: T = 1, rows 1,
 * cols 2 -> column-size value rows = 1, E = 01) only lane 0 appears in the V lines. */
static void enables(void)
{
    pb b;
    pb_init(&b, 2);
    int h[2] = {0x0100, 0x0100};                          /* UB[0] = 1.0 (lane 1), UB[1] = 1.0 */
    pb_cycle(&b, -1, 0, 0, 0, 0, 0, h, 2);
    int x[2] = {0x0100, 0x0100};
    pb_cycle(&b, -1, 0, 0, 0, 0, 0, x, 2);                /* UB[2], UB[3] = 1.0 (input 1x2) */
    pb_cycle(&b, TT_CH_WEIGHT, 0, 1, 2, 1, 0, NULL, 0);   /* c3 */
    pb_idle(&b, 1);
    pb_cycle(&b, TT_CH_INPUT, 2, 1, 2, 0, 0, NULL, 0);    /* c5 = x */
    pb_cycle(&b, -1, 0, 0, 0, 0, 1, NULL, 0);
    pb_idle(&b, 5);
    npk_stop stop;
    char *t = run_trace(&b, "tinytpu", &stop);
    strip_ub(t);
    /* M column 0 = (1, 1) (W^T of the 1x2 view), column 1 disabled. out_0 = 1*1 + 1*1 = 2.0
     * registered at edge x + 2 = 7, valid during cycle 8, appended at edge 8 to UB[4]. */
    NPK_CHECK_EQ_STR(t, "W 1 0 0100\nW 1 1 0100\nW 2 2 0100\nW 2 3 0100\nV 7 0 0200\n"
                        "W 8 4 0200\n");
    free(t);
}

/* Appendix Z 10 (A11): a reset cycle clears the UB and wp; the next host word lands at 0. */
static void reset_cycle(void)
{
    pb b;
    pb_init(&b, 2);
    int h[2] = {0x0011, 0x0022};
    pb_cycle(&b, -1, 0, 0, 0, 0, 0, h, 2); /* c1: UB[0] = 0022, UB[1] = 0011 */
    pb_reset(&b);                          /* c2 */
    int g[1] = {0x0033};
    pb_cycle(&b, -1, 0, 0, 0, 0, 0, g, 1); /* c3: UB[0] = 0033 */
    npk_machine *m = pb_machine(&b, "tinytpu");
    npk_stop stop;
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK);
    NPK_CHECK_EQ_U64(ub_word(m, 0), 0x0033);
    NPK_CHECK_EQ_U64(ub_word(m, 1), 0);
    uint64_t wp;
    npk_reg_read(m, "wp", &wp);
    NPK_CHECK_EQ_U64(wp, 1);
    npk_destroy(m);
    tt_program_free(&b.p);
}

/* A11 + A9.3: a reset cycle keeps every PE's psum (only power-on zeroes it), and a LOSS stage
 * registers the column psum as data even when its valid is 0, so the kept value shows there.
 * The program of vpu_wins: weight 1.0 in PE(0,0) (c3, E := 01), input 2.0 read at c5, sw at
 * c6. Edge 6: PE(0,0).psum := 2.0 * 1.0 = 0200 (its latch is open under sw). Edge 7: PE(1,0)
 * .psum := 0200 + 0 (the column-0 output, "V 7 0 0200" in vpu_wins) and PE(0,0).psum := 0
 * (no valid input). (a) a reset at c7 keeps PE(0,0).psum = 0200; (b) a reset at c8 keeps
 * PE(1,0).psum = 0200; a following cycle with pathway 0010 (loss only) and 2/B = 0x0080 (0.5)
 * registers LOSS = (mul(sub(0200, Yreg = 0), 0080), valid 0) = (0100, 0) on lane 0 and
 * (mul(sub(0, 0), 0080), 0) = (0000, 0) on lane 1. Gated and ungated runs agree. */
static void reset_keeps_psum(void)
{
    for (int gating = 0; gating < 2; gating++)
        for (unsigned at = 7; at <= 8; at++) {
            pb b;
            pb_init(&b, 2);
            int h0[1] = {0x0100}, h1[1] = {0x0200};
            pb_cycle(&b, -1, 0, 0, 0, 0, 0, h0, 1);             /* c1: UB[0] = 1.0 */
            pb_cycle(&b, -1, 0, 0, 0, 0, 0, h1, 1);             /* c2: UB[1] = 2.0 */
            pb_cycle(&b, TT_CH_WEIGHT, 0, 1, 1, 0, 0, NULL, 0); /* c3 */
            pb_idle(&b, 1);
            pb_cycle(&b, TT_CH_INPUT, 1, 1, 1, 0, 0, NULL, 0);  /* c5 */
            pb_cycle(&b, -1, 0, 0, 0, 0, 1, NULL, 0);           /* c6: sw */
            pb_until(&b, at);
            pb_reset(&b);                                       /* c7 or c8 */
            b.lv.pathway = 2, b.lv.inv = 0x0080;
            pb_idle(&b, 1);                                     /* LOSS registers */
            npk_machine *m = pb_machine(&b, gating ? "tinytpu" : "tinytpu:gating=0");
            npk_stop stop;
            NPK_CHECK(npk_run(m, at, &stop) == NPK_OK);         /* through the reset */
            const tt_state *s = tt_state_of(m);
            NPK_CHECK_EQ_U64(TT_PE(s, TT_PE_PSUM, 0), at == 7 ? 0x0200 : 0); /* PE(0,0) */
            NPK_CHECK_EQ_U64(TT_PE(s, TT_PE_PSUM, 2), at == 8 ? 0x0200 : 0); /* PE(1,0) */
            NPK_CHECK_EQ_U64(TT_PE(s, TT_PE_ACTIVE, 0), 0); /* the rest is cleared */
            NPK_CHECK_EQ_U64(TT_PE(s, TT_PE_VOUT, 0), 0);
            NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK);
            NPK_CHECK_EQ_U64(s->st_d[2][0], at == 8 ? 0x0100 : 0); /* LOSS data, lane 0 */
            NPK_CHECK_EQ_U64(s->st_v[2][0], 0);
            NPK_CHECK_EQ_U64(s->st_d[2][1], 0);
            NPK_CHECK_EQ_U64(TT_PE(s, TT_PE_PSUM, 2), at == 8 ? 0x0200 : 0); /* E = 0: still kept */
            /* power-on (npk_reset) zeroes psum */
            NPK_CHECK(npk_reset(m) == NPK_OK);
            NPK_CHECK_EQ_U64(TT_PE(tt_state_of(m), TT_PE_PSUM, 2), 0);
            NPK_CHECK_EQ_U64(TT_PE(tt_state_of(m), TT_PE_PSUM, 0), 0);
            npk_destroy(m);
            tt_program_free(&b.p);
        }
}

/* Appendix Z 11 (C1): out-of-range accesses stop with the cycle, address, direction and
 * source. (a) ub_words = 3 and four host words: the fourth (cycle 2, lane 0 after lane 1)
 * writes address 3. (b) the weight walk T = 1, rows 2, cols 1 at 0: skip 2, ptr 0; beat 0 lane
 * 0 reads 0, ptr 2, then -= 3 -> -1; beat 1 lane 1 reads -1 at cycle 2. */
static void out_of_range(void)
{
    pb b;
    pb_init(&b, 2);
    int h[2] = {1, 2};
    pb_cycle(&b, -1, 0, 0, 0, 0, 0, h, 2);
    pb_cycle(&b, -1, 0, 0, 0, 0, 0, h, 2);
    npk_stop stop;
    char *t = run_trace(&b, "tinytpu:ub_words=3", &stop);
    NPK_CHECK(stop.reason == NPK_STOP_FAULT);
    NPK_CHECK_EQ_STR(stop.message, "tinytpu: cycle 2: UB write out of range: address 3 (host "
                                   "append, lane 0), UB size 3");
    free(t);
    pb_init(&b, 2);
    pb_cycle(&b, TT_CH_WEIGHT, 0, 2, 1, 1, 0, NULL, 0);
    pb_idle(&b, 2);
    t = run_trace(&b, "tinytpu", &stop);
    NPK_CHECK(stop.reason == NPK_STOP_FAULT);
    NPK_CHECK_EQ_STR(stop.message, "tinytpu: cycle 2: UB read out of range: address -1 (weight "
                                   "channel, lane 1), UB size 128");
    free(t);
}

int main(void)
{
    read_issue();
    weight_walk_broken();
    vpu_wins();
    enables();
    reset_cycle();
    reset_keeps_psum();
    out_of_range();
    return npk_test_done();
}
