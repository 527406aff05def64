/* tinytpu text formats round trips over random programs (spec B7): assembly -> program ->
 * assembly -> program (identical programs and identical text), program -> each hex format ->
 * program, port stream -> program -> port stream (identical text); plus one disassembly
 * checked line by line (`@k` after idle runs, level directives from level changes, raw words). */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "test.h"

static unsigned long programs_checked;

/* Write p in fmt, read it back, compare; for text formats also compare the second text. */
static void round_trip(const tt_program *p, tt_format fmt, const char *what, unsigned seed)
{
    char err[256] = "";
    char *t1 = tt_write_text(p, fmt, err, sizeof err);
    NPK_REPORT(t1 != NULL, "%s seed %u: write %s failed: %s\n", what, seed, tt_format_names[fmt],
               err);
    if (!t1)
        return;
    tt_program q;
    char *diag;
    int e = tt_asm_text(t1, fmt, p->N, TT_FMT_ASM, &q, &diag);
    NPK_REPORT(e == 0, "%s seed %u: reading %s back: %d errors:\n%s\n", what, seed,
               tt_format_names[fmt], e, diag);
    bool same = e == 0 && tt_program_equal(p, &q);
    if (!same && e == 0) {
        size_t k = 0; /* the first cycle whose port-stream fields differ (host order aside) */
        while (k < p->n && k < q.n && p->c[k].sw == q.c[k].sw && p->c[k].rst == q.c[k].rst &&
               p->c[k].start == q.c[k].start && p->c[k].pathway == q.c[k].pathway &&
               p->c[k].lr == q.c[k].lr && p->c[k].leak == q.c[k].leak &&
               p->c[k].inv == q.c[k].inv && p->c[k].addr == q.c[k].addr &&
               p->c[k].n_host == q.c[k].n_host)
            k++;
        NPK_REPORT(0, "%s seed %u: %s round trip differs (n %zu/%zu, near cycle %zu)\n%s\n", what,
                   seed, tt_format_names[fmt], p->n, q.n, k + 1, t1);
    } else {
        NPK_REPORT(same, "%s seed %u: %s round trip failed\n", what, seed, tt_format_names[fmt]);
    }
    if (e == 0) {
        char *t2 = tt_write_text(&q, fmt, err, sizeof err);
        NPK_REPORT(t2 && strcmp(t1, t2) == 0, "%s seed %u: %s text changed on the second trip\n",
                   what, seed, tt_format_names[fmt]);
        free(t2);
    }
    programs_checked++;
    tt_program_free(&q);
    free(diag);
    free(t1);
}

static void random_trips(void)
{
    static const unsigned lanes[] = {2, 3, 5, 256};
    for (unsigned seed = 1; seed <= 150; seed++) {
        rng r = {UINT64_C(0x9E3779B97F4A7C15) * seed};
        const unsigned N = lanes[seed % 4];
        const size_t n = 1 + rng_below(&r, N > 100 ? 60 : 300);
        tt_program p;
        /* assembly and the port stream: anything, with resets, lr changes and raw words */
        gen_opts any = {TT_FMT_ASM, 1, 1, 1};
        gen_program(&r, N, n, &any, &p);
        round_trip(&p, TT_FMT_ASM, "asm", seed);
        round_trip(&p, TT_FMT_PORT, "port", seed);
        tt_program_free(&p);
        /* hex words: fields that fit; lr and reset cycles are settings, in no word, and come
         * back from the declarations the writer puts before their cycle's word */
        for (tt_format f = TT_FMT_W88; f <= TT_FMT_WFULL; f++) {
            if (!tt_format_bits(f, N))
                continue;
            gen_opts fit = {f, 1, 1, 1};
            gen_program(&r, N, n, &fit, &p);
            round_trip(&p, f, "hex", seed);
            round_trip(&p, TT_FMT_ASM, "asm(fit)", seed);
            tt_program_free(&p);
        }
    }
    NPK_CHECK(programs_checked > 700);
}

/* Assembly source -> program -> assembly -> program: the program survives (the text becomes
 * canonical), and the canonical text is exactly what the disassembler should print. */
static void golden_disassembly(void)
{
    const char *src = ".leak 0.5\n"
                      "sw host0=0.75\n"          /* 1 */
                      "@4 read input rows=4 cols=2 addr=3\n" /* fill 2-3, 4 */
                      "read input rows=4 cols=2 addr=3\n"    /* 5 */
                      ".pathway 1111\n"
                      "nop 2\n"                  /* 6-7 */
                      ".reset\n"                 /* 8 */
                      ".inv 0x0080\n"
                      "@12 host1=-1.0\n"         /* fill 9-11 (pathway 1111, inv 0), 12 */
                      ".w130 0x00000000000000000000000A000000004\n" /* 13: start 0, T 1, addr 5 */
                      "@15\n"                    /* fill 14 (the raw word's levels), 15 */
                      "nop 3\n";                 /* 16-18 */
    const char *want = "; tinytpu program, 18 cycles (disassembled; assumes lr = 0 before "
                       "cycle 1)\n"
                       ".lanes 2\n"
                       ".leak 0x0080 ; 0.5\n"
                       "sw host0=0x00C0\n"
                       "@4 read input addr=3 rows=4 cols=2\n"
                       "read input addr=3 rows=4 cols=2\n"
                       ".pathway 1111\n"
                       "nop 2\n"
                       ".reset\n"
                       ".inv 0x0080 ; 0.5\n"
                       "@12 host1=0xFF00\n"
                       ".wfull 0x00000000000000000000000A000000004 ; raw: start = 0 with read "
                       "fields set\n"
                       "@15\n"
                       "nop 3\n";
    tt_program p, q;
    char *diag, err[256];
    NPK_CHECK(tt_asm_text(src, TT_FMT_ASM, 2, TT_FMT_ASM, &p, &diag) == 0);
    free(diag);
    NPK_CHECK_EQ_U64(p.n, 18);
    NPK_CHECK(p.c[8].pathway == 0xF && p.c[8].inv == 0 && p.c[11].inv == 0x80);
    NPK_CHECK(p.c[12].T == 1 && p.c[12].addr == 5 && !p.c[12].start && p.c[12].leak == 0);
    char *t = tt_write_text(&p, TT_FMT_ASM, err, sizeof err);
    NPK_CHECK_EQ_STR(t, want);
    NPK_CHECK(tt_asm_text(t ? t : "", TT_FMT_ASM, 2, TT_FMT_ASM, &q, &diag) == 0);
    NPK_CHECK(tt_program_equal(&p, &q));
    free(diag);
    free(t);
    tt_program_free(&q);
    tt_program_free(&p);
}

/* Port streams: reset lines keep their (ignored) fields, comments and digit counts are free on
 * input, and malformed lines are reported at their column. */
static void port_streams(void)
{
    const char *src = "# rst sw start T hv0 hv1 hd0 hd1 sel addr rows cols pathway lr leak inv\n"
                      "1 0 1 0 0 0 0000 0000 000 0004 0000 0000 0 0000 0000 0000\n"
                      "0 1 1 1 1 0 00C0 0000 001 000C 0002 0002 C 00C0 0080 0080\n"
                      "\n"
                      "0 0 0 0 0 1 0 ffff 1ff 0 0 0 f 0 0 0   # short digits, lower case\n";
    tt_program p;
    char *diag, err[256];
    NPK_CHECK(tt_asm_text(src, TT_FMT_PORT, 2, TT_FMT_ASM, &p, &diag) == 0);
    NPK_CHECK_EQ_STR(diag, "");
    free(diag);
    NPK_CHECK_EQ_U64(p.n, 3);
    if (p.n == 3) {
        NPK_CHECK(p.c[0].rst && p.c[0].start && p.c[0].addr == 4);
        NPK_CHECK(p.c[1].sw && p.c[1].T && p.c[1].sel == 1 && p.c[1].addr == 12 &&
                  p.c[1].pathway == 0xC && p.c[1].lr == 0xC0 && p.c[1].leak == 0x80 &&
                  p.c[1].n_host == 1 && p.hw[p.c[1].host].value == 0xC0);
        NPK_CHECK(p.c[2].sel == 511 && p.c[2].n_host == 1 && p.hw[p.c[2].host].lane == 1 &&
                  p.hw[p.c[2].host].value == 0xFFFF && p.c[2].line == 5);
    }
    char *t = tt_write_text(&p, TT_FMT_PORT, err, sizeof err);
    NPK_CHECK_EQ_STR(t, "# rst sw start T hv0 hv1 hd0 hd1 sel addr rows cols pathway lr leak inv\n"
                        "1 0 1 0 0 0 0000 0000 000 0004 0000 0000 0 0000 0000 0000\n"
                        "0 1 1 1 1 0 00C0 0000 001 000C 0002 0002 C 00C0 0080 0080\n"
                        "0 0 0 0 0 1 0000 FFFF 1FF 0000 0000 0000 F 0000 0000 0000\n");
    free(t);
    tt_program_free(&p);

    static const struct {
        const char *src, *where, *msg;
    } bad[] = {
        {"0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", "t.s:1:30: error:",
         "a port-stream line has 16 fields (rst sw start T hv0 hv1 hd0 hd1 sel addr rows cols "
         "pathway lr leak inv), found 15"},
        {"0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", "t.s:1:33: error:", "more than 16 fields"},
        {"2 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", "t.s:1:1: error:",
         "rst 2 does not fit its 1-bit port"},
        {"0 0 0 0 0 0 0 0 200 0 0 0 0 0 0 0\n", "t.s:1:17: error:",
         "sel 200 does not fit its 9-bit port"},
        {"0 0 0 0 0 0 0 0 0 0 0 0 10 0 0 0\n", "t.s:1:25: error:", "pathway 10 does not fit"},
        {"# c\n0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1FFFF\n", "t.s:2:31: error:",
         "inv 1FFFF does not fit its 16-bit port"},
        {"0 0 0 0 0 0 0 0 0 0x1 0 0 0 0 0 0\n", "t.s:1:20: error:",
         "'x' is not a hex digit (field addr)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int e = tt_asm_text(bad[i].src, TT_FMT_PORT, 2, TT_FMT_ASM, &p, &diag);
        NPK_REPORT(e > 0 && p.n == 0 && strstr(diag, bad[i].where) && strstr(diag, bad[i].msg),
                   "port case %zu: %d errors, want \"%s\" \"%s\" in:\n%s\n", i, e, bad[i].where,
                   bad[i].msg, diag);
        tt_program_free(&p);
        free(diag);
    }
}

int main(void)
{
    random_trips();
    golden_disassembly();
    port_streams();
    return npk_test_done();
}
