/* tinytpu assembly (spec B7.3): Q8.8 literals (A3), what each construct assembles to (levels,
 * `@k` fills, nop, reset, raw words, reads, host writes), the listing's cycle numbers, the
 * XOR step of Part D as a realistic input, format limits at assembly and at write time, and a
 * set of malformed inputs with their file:line:col diagnostics. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "test.h"

static void q88(void)
{
    static const struct {
        const char *s;
        int rc;
        uint16_t v;
    } cases[] = {
        {"0.75", 0, 0x00C0},        {"0x00C0", 0, 0x00C0},   {"0X00c0", 0, 0x00C0},
        {"-1.5", 0, 0xFE80},        {".5", 0, 0x0080},       {"2.", 0, 0x0200},
        {"0", 0, 0x0000},           {"-0.0", 0, 0x0000},     {"0xFFFF", 0, 0xFFFF},
        /* ties to even: 0.001953125 = 0.5 LSB -> 0; 1.5 LSB -> 2; 2.5 LSB -> 2; -0.5 -> 0 */
        {"0.001953125", 0, 0x0000}, {"0.005859375", 0, 0x0002}, {"0.009765625", 0, 0x0002},
        {"-0.001953125", 0, 0x0000}, {"-0.005859375", 0, 0xFFFE},
        /* just above / below a tie (beyond double precision: exact decimal arithmetic) */
        {"0.00195312500000000000000000001", 0, 0x0001},
        {"0.00585937499999999999999999999", 0, 0x0001},
        /* D1's parameters */
        {"-0.4939", 0, 0xFF82},     {"0.2985", 0, 0x004C},   {"-0.5792", 0, 0xFF6C},
        {"0.0913", 0, 0x0017},      {"0.4234", 0, 0x006C},   {"0.189", 0, 0x0030},
        {"0.5266", 0, 0x0087},      {"0.2958", 0, 0x004C},   {"0.6358", 0, 0x00A3},
        /* saturation */
        {"200.0", 0, 0x7FFF},       {"-200.0", 0, 0x8000},   {"127.998", 0, 0x7FFF},
        {"-128.0", 0, 0x8000},      {"127.99609375", 0, 0x7FFF}, {"99999999999.5", 0, 0x7FFF},
        /* refused */
        {"1", -1, 0},               {"-3", -1, 0},           {"0x10000", -1, 0},
        {"0x", -1, 0},              {"1.2.3", -1, 0},        {"abc", -1, 0},
        {".", -1, 0},               {"-", -1, 0},            {"1e3", -1, 0},
        {"-0x10", -1, 0},           {"", -1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint16_t v = 0x5A5A;
        int rc = tt_parse_q88(cases[i].s, strlen(cases[i].s), &v);
        NPK_REPORT(rc == cases[i].rc && (rc || v == cases[i].v), "q88 \"%s\": rc %d v 0x%04X\n",
                   cases[i].s, rc, v);
    }
}

static const tt_cycle *cyc(const tt_program *p, size_t k) /* cycle number k, from 1 */
{
    static const tt_cycle none;
    return k >= 1 && k <= p->n ? &p->c[k - 1] : &none;
}

static uint16_t host(const tt_program *p, size_t k, unsigned lane)
{
    const tt_cycle *c = cyc(p, k);
    for (unsigned i = 0; i < c->n_host; i++)
        if (p->hw[c->host + i].lane == lane)
            return p->hw[c->host + i].value;
    return 0xDEAD;
}

/* Each construct of B7.3, cycle by cycle. */
static void semantics(void)
{
    const char *src = "; levels, placement and fills\n"      /* 1 */
                      ".pathway 1100\n"                      /* 2 */
                      ".leak 0x0080\n"                       /* 3 */
                      "sw read weight addr=12 rows=2 cols=2 t\n" /* 4: cycle 1 */
                      ".inv 0.5\n"                           /* 5 */
                      "@5 read input addr=0x10 rows=4 cols=2\n" /* 6: fill 2-4, cycle 5 */
                      "READ INPUT ADDR=16 ROWS=4 COLS=2\n"   /* 7: cycle 6 (held read) */
                      ".pathway 0001\n"                      /* 8 */
                      "nop 2\n"                              /* 9: cycles 7-8 */
                      ".lr -0.25\n"                          /* 10 */
                      "@10\n"                                /* 11: fill 9, cycle 10 */
                      ".reset\n"                             /* 12: cycle 11 */
                      "host1=0x1234 host0=-1.0 read sel=9 cols=1\n" /* 13: cycle 12 */
                      ".w88 0x00800080C0000000030146\n"      /* 14: cycle 13 */
                      "@15 sw ; comment\n"                   /* 15: fill 14, cycle 15 */
                      "\n"
                      "   ; only a comment\n"
                      "nop\n";                               /* 18: cycle 16 */
    tt_program p;
    char *diag;
    int e = tt_asm_text(src, TT_FMT_ASM, 2, TT_FMT_ASM, &p, &diag);
    NPK_CHECK(e == 0);
    NPK_CHECK_EQ_STR(diag, "");
    NPK_CHECK_EQ_U64(p.n, 16);
    const tt_cycle *c = cyc(&p, 1);
    NPK_CHECK(c->sw == 1 && c->start == 1 && c->sel == 1 && c->addr == 12 && c->rows == 2 &&
              c->cols == 2 && c->T == 1 && c->pathway == 0xC && c->leak == 0x80 && c->inv == 0 &&
              c->line == 4);
    /* the fill carries cycle 1's levels (inv still 0); .inv takes effect at cycle 5 */
    for (size_t k = 2; k <= 4; k++) {
        c = cyc(&p, k);
        NPK_REPORT(!c->sw && !c->start && !c->n_host && c->pathway == 0xC && c->leak == 0x80 &&
                       c->inv == 0 && c->line == 6 && !c->addr,
                   "fill cycle %zu\n", k);
    }
    c = cyc(&p, 5);
    NPK_CHECK(c->start == 1 && c->sel == 0 && c->addr == 16 && c->rows == 4 && c->cols == 2 &&
              !c->T && c->inv == 0x80 && c->line == 6);
    NPK_CHECK(tt_read_issues(cyc(&p, 4), cyc(&p, 5)) == 1);
    NPK_CHECK(tt_read_issues(cyc(&p, 5), cyc(&p, 6)) == 0); /* identical: issues once */
    /* nop uses the levels where it is written */
    NPK_CHECK(cyc(&p, 7)->pathway == 1 && cyc(&p, 8)->pathway == 1 && !cyc(&p, 8)->start);
    NPK_CHECK(cyc(&p, 7)->lr == 0 && cyc(&p, 8)->line == 9);
    /* @10: the fill (cycle 9) has lr 0, cycle 10 has lr -0.25 = 0xFFC0 */
    NPK_CHECK(cyc(&p, 9)->lr == 0 && cyc(&p, 9)->pathway == 1 && cyc(&p, 10)->lr == 0xFFC0);
    NPK_CHECK(!cyc(&p, 10)->start && !cyc(&p, 10)->sw && cyc(&p, 10)->line == 11);
    c = cyc(&p, 11);
    NPK_CHECK(c->rst == 1 && c->pathway == 1 && c->lr == 0xFFC0 && c->inv == 0x80);
    c = cyc(&p, 12);
    NPK_CHECK(c->start == 1 && c->sel == 9 && c->cols == 1 && c->n_host == 2);
    NPK_CHECK(host(&p, 12, 1) == 0x1234 && host(&p, 12, 0) == 0xFF00);
    NPK_CHECK(c->n_host == 2 && p.hw[c->host].lane == 1); /* the written order is kept */
    /* the raw word: its own levels, lr from the directives; the directives are unchanged */
    c = cyc(&p, 13);
    NPK_CHECK(c->start == 1 && c->sel == 1 && c->addr == 2 && c->T == 1 && c->pathway == 0xC &&
              c->leak == 0x80 && c->inv == 0x80 && c->lr == 0xFFC0);
    c = cyc(&p, 14); /* fill after the raw word: the raw word's levels */
    NPK_CHECK(!c->start && c->pathway == 0xC && c->leak == 0x80 && c->inv == 0x80);
    c = cyc(&p, 15);
    NPK_CHECK(c->sw == 1 && c->pathway == 1 && c->line == 15);
    NPK_CHECK(cyc(&p, 16)->line == 18 && !cyc(&p, 16)->sw);

    /* the listing: cycle numbers of every line, fills, and '*' on issuing cycles */
    char *list = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&list, &len);
    NPK_CHECK(tt_listing(src, "t.s", 2, 0, TT_FMT_W130, f, NULL) == 0);
    fclose(f);
    /* cycles, the w130 word of the line's (last) cycle, the line (spec B7.3) */
    static const struct {
        const char *col, *word;
        unsigned line;
        const char *text;
    } want[] = {{"1*", "002000003000000000020018000400047", 4, "sw read weight"},
                {"2-4 idle, 5*", "", 6, "@5 read input"},
                {"6", "", 7, "READ INPUT"},
                {"7-8", "", 9, "nop 2"},
                {"9 idle, 10", "", 11, "@10"},
                {"11", "reset", 12, ".reset"},
                {"", "", 5, ".inv 0.5"},
                {"12*", "", 13, "host1=0x1234"},
                {"13*", "", 14, ".w88"},
                {"16", "002000200400000000000000000000000", 18, "nop"},
                {"", "", 16, ""}};
    NPK_CHECK_CONTAINS(list, "cycle            w130 ");
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char line[160];
        if (want[i].word[0] || !want[i].col[0])
            snprintf(line, sizeof line, "\n%-16s %-33s %5u  %s", want[i].col, want[i].word,
                     want[i].line, want[i].text);
        else /* the word is not checked: the cycles, then the line */
            snprintf(line, sizeof line, "\n%-16s ", want[i].col);
        if (!want[i].word[0] && want[i].col[0]) {
            char tail[96];
            snprintf(tail, sizeof tail, " %5u  %s", want[i].line, want[i].text);
            const char *at = list ? strstr(list, line) : NULL;
            const char *nl = at ? strchr(at + 1, '\n') : NULL;
            NPK_REPORT(at && nl && strstr(at, tail) && strstr(at, tail) < nl,
                       "listing lacks \"%s...%s\":\n%s\n", line + 1, tail, list);
            continue;
        }
        NPK_REPORT(list && strstr(list, line), "listing lacks \"%s\":\n%s\n", line + 1, list);
    }
    free(list);

    /* a last line ending in '\r' with no newline after it: listed once, and the listing ends
     * (it looped forever before: found by fuzzing asm_tinytpu with listings on; the alarm
     * turns a hang into a failure) */
    alarm(10);
    list = NULL;
    f = open_memstream(&list, &len);
    NPK_CHECK(tt_listing("nop\r\nnop 2\r", "t.s", 2, 0, TT_FMT_W130, f, NULL) == 0);
    fclose(f);
    alarm(0);
    /* header, then line 1 (cycle 1) and line 2 (cycles 2-3), the '\r's not printed */
    NPK_CHECK_CONTAINS(list, "    1  nop\n");
    NPK_CHECK_CONTAINS(list, "\n2-3 ");
    static const char last[] = "    2  nop 2\n";
    NPK_CHECK(list && strlen(list) >= sizeof last - 1 &&
              strcmp(list + strlen(list) - (sizeof last - 1), last) == 0);
    size_t lines = 0;
    for (const char *c = list; c && *c; c++)
        lines += *c == '\n';
    NPK_CHECK(lines == 3);
    free(list);
    tt_program_free(&p);
    free(diag);

    /* every field at its port maximum assembles (and fits w130 / wfull); one above is refused
     * (the diagnostics cases below) */
    tt_program_init(&p, 2);
    NPK_CHECK(tt_assemble_for(".format w130\nread sel=511 addr=65535 rows=65535 cols=0xFFFF t "
                              "sw host1=0xFFFF host0=-128.0\n.pathway 1111\n.leak 0xFFFF\n"
                              ".inv 127.99609375\n.lr -0.00390625\nnop\n",
                              "t.s", TT_FMT_ASM, 2, 0, TT_FMT_W130, &p, NULL) == 0);
    NPK_CHECK(p.n == 2 && p.c[0].sel == 511 && p.c[0].addr == 0xFFFF && p.c[0].rows == 0xFFFF &&
              p.c[0].cols == 0xFFFF && p.c[0].T && p.c[0].sw && host(&p, 1, 1) == 0xFFFF &&
              host(&p, 1, 0) == 0x8000);
    NPK_CHECK(p.n == 2 && p.c[1].pathway == 15 && p.c[1].leak == 0xFFFF &&
              p.c[1].inv == 0x7FFF && p.c[1].lr == 0xFFFF);
    tt_program_free(&p);
    tt_program_init(&p, 3);
    NPK_CHECK(tt_assemble("; N = 3\n.lanes 3\n.format wfull\nhost2=0.5 read sel=7 addr=40000\n",
                          "t.s", TT_FMT_ASM, 3, 0, &p, NULL) == 0);
    NPK_CHECK(p.n == 1 && host(&p, 1, 2) == 0x0080 && p.c[0].sel == 7);
    tt_program_free(&p);

    /* lr0 is the level before the first .lr (and in fills before cycle 1) */
    tt_program_init(&p, 2);
    NPK_CHECK(tt_assemble("@3 sw\n.lr 0.5\nsw\n", "t.s", TT_FMT_ASM, 2, 0x00C0, &p, NULL) == 0);
    NPK_CHECK(p.n == 4 && p.c[0].lr == 0xC0 && p.c[2].lr == 0xC0 && p.c[3].lr == 0x80);
    tt_program_free(&p);
}

/* Part D as assembly: the host load with D1's decimal parameters, layer 1 forward and the
 * reads of phase 2, at the offsets of A13 (a fixture; the full step is tested elsewhere). */
static const char xor_src[] =
    "; XOR training step (spec Part D): host load, phase 1 and the reads of phase 2\n" /* 1 */
    ".lanes 2\n"                                                                        /* 2 */
    ".reset\n"                                  /* 3: cycle 1 */
    ".leak 0.5\n"                                                                       /* 4 */
    ".inv 0.5\n"                                                                        /* 5 */
    ".lr 0.75\n"                                                                        /* 6 */
    "; host load (D2): two words a cycle, lane 1 at the lower address\n"                /* 7 */
    "host1=0.0 host0=0.0        ; X = 0 0\n"    /* 8: cycle 2 */
    "host1=0.0 host0=1.0        ;     0 1\n"
    "host1=1.0 host0=0.0        ;     1 0\n"
    "host1=1.0 host0=1.0        ;     1 1\n"
    "host1=0.0 host0=1.0        ; Y = 0 1\n"
    "host1=1.0 host0=0.0        ;     1 0\n"
    "host1=0.2985 host0=-0.5792 ; W1 (out x in)\n" /* 14: cycle 8 */
    "host1=0.0913 host0=0.4234\n"
    "host1=-0.4939 host0=0.189  ; B1\n"
    "host1=0.5266 host0=0.2958  ; W2\n"
    "host1=0.6358               ; B2 at 20\n"    /* 18: cycle 12 */
    "; phase 1: H1 = lrelu(X W1^T + B1)\n"
    ".pathway 1100\n"                                                                   /* 20 */
    "read weight addr=12 rows=2 cols=2 t       ; w = 13\n" /* 21: cycle 13 */
    "@15 read input addr=0 rows=4 cols=2       ; x = 15\n" /* 22: cycle 15 */
    "sw                                        ; x + 1\n"  /* 23: cycle 16 */
    "read bias addr=16 rows=4 cols=2           ; x + 2\n"  /* 24: cycle 17 */
    "nop 8\n"                                              /* 25: cycles 18-25 */
    "; phase 2 reads: pathway 1111\n"
    ".pathway 1111\n"                                                                   /* 27 */
    "@30 read weight addr=18 rows=1 cols=2 t\n"            /* 28: cycle 30 */
    "@32 read input addr=21 rows=4 cols=2\n"               /* 29: cycle 32 */
    "sw\n"                                                 /* 30: cycle 33 */
    "read bias addr=20 rows=4 cols=1\n"                    /* 31: cycle 34 */
    "@36 read y addr=8 rows=4 cols=1\n"                    /* 32: cycle 36 */
    "@38 read gbias addr=20 rows=4 cols=1\n"               /* 33: cycle 38 */
    "nop 10\n";                                            /* 34: cycles 39-48 */

static void xor_fixture(void)
{
    tt_program p;
    char *diag;
    int e = tt_asm_text(xor_src, TT_FMT_ASM, 2, TT_FMT_ASM, &p, &diag);
    NPK_CHECK(e == 0);
    NPK_CHECK_EQ_STR(diag, "");
    free(diag);
    NPK_CHECK_EQ_U64(p.n, 48);
    NPK_CHECK(cyc(&p, 1)->rst == 1 && cyc(&p, 1)->leak == 0);
    /* D1's Q8.8 values: W1 = 004C FF6C / 0017 006C; B1 = FF82 0030; W2 = 0087 004C; B2 = 00A3 */
    NPK_CHECK(host(&p, 3, 1) == 0 && host(&p, 3, 0) == 0x0100);
    NPK_CHECK(host(&p, 8, 1) == 0x004C && host(&p, 8, 0) == 0xFF6C);
    NPK_CHECK(host(&p, 9, 1) == 0x0017 && host(&p, 9, 0) == 0x006C);
    NPK_CHECK(host(&p, 10, 1) == 0xFF82 && host(&p, 10, 0) == 0x0030);
    NPK_CHECK(host(&p, 11, 1) == 0x0087 && host(&p, 11, 0) == 0x004C);
    NPK_CHECK(host(&p, 12, 1) == 0x00A3 && cyc(&p, 12)->n_host == 1);
    size_t words = 0;
    for (size_t k = 1; k <= p.n; k++)
        words += cyc(&p, k)->n_host;
    NPK_CHECK_EQ_U64(words, 21);
    /* levels from cycle 2 on: alpha = 2/B = 0x0080, lr = 0x00C0 */
    NPK_CHECK(cyc(&p, 2)->leak == 0x80 && cyc(&p, 2)->inv == 0x80 && cyc(&p, 48)->lr == 0xC0);
    /* phase 1 at w = 13, x = 15 (fill 14 carries 1100), sw at x+1, bias at x+2 */
    NPK_CHECK(cyc(&p, 13)->start && cyc(&p, 13)->sel == 1 && cyc(&p, 13)->T);
    NPK_CHECK(cyc(&p, 14)->pathway == 0xC && !cyc(&p, 14)->start);
    NPK_CHECK(cyc(&p, 15)->sel == 0 && cyc(&p, 15)->rows == 4 && cyc(&p, 16)->sw);
    NPK_CHECK(cyc(&p, 17)->sel == 2 && cyc(&p, 17)->addr == 16 && cyc(&p, 17)->start);
    /* the gap 26-29 keeps pathway 1100; .pathway 1111 applies from cycle 30 */
    NPK_CHECK(cyc(&p, 29)->pathway == 0xC && cyc(&p, 30)->pathway == 0xF);
    NPK_CHECK(cyc(&p, 36)->sel == 3 && cyc(&p, 38)->sel == 5 && cyc(&p, 38)->addr == 20);
    NPK_CHECK(cyc(&p, 37)->pathway == 0xF && !cyc(&p, 37)->start);

    /* every word fits w94 and w130; w88 cannot hold the addresses (names cycle and line) */
    char err[256];
    char *t = tt_write_text(&p, TT_FMT_W94, err, sizeof err);
    NPK_CHECK(t != NULL);
    free(t);
    t = tt_write_text(&p, TT_FMT_W130, err, sizeof err);
    NPK_CHECK(t != NULL);
    free(t);
    t = tt_write_text(&p, TT_FMT_W88, err, sizeof err);
    NPK_CHECK(t == NULL);
    NPK_CHECK_EQ_STR(err, "cycle 13 (line 21): addr 12 does not fit w88 (0..3)");
    tt_program_free(&p);

    /* the same check at assembly time: seven reads with an address above 3 */
    e = tt_asm_text(xor_src, TT_FMT_ASM, 2, TT_FMT_W88, &p, &diag);
    NPK_CHECK_EQ_U64(e, 7);
    NPK_CHECK(p.n == 0);
    NPK_CHECK_CONTAINS(diag, "t.s:21:13: error: addr 12 does not fit the w88 format (0..3)\n"
                             "read weight addr=12 rows=2 cols=2 t");
    NPK_CHECK_CONTAINS(diag, "t.s:33:16: error: addr 20 does not fit the w88 format (0..3)");
    tt_program_free(&p);
    free(diag);
    e = tt_asm_text(xor_src, TT_FMT_ASM, 2, TT_FMT_W94, &p, &diag);
    NPK_CHECK(e == 0 && p.n == 48);
    tt_program_free(&p);
    free(diag);
}

/* A program that does not fit a format: the writer names the cycle and its source line. */
static void write_errors(void)
{
    tt_program p;
    char *diag, err[256];
    NPK_CHECK(tt_asm_text("nop 3\nread h addr=1 rows=2 cols=4\n", TT_FMT_ASM, 2, TT_FMT_ASM, &p,
                          &diag) == 0);
    NPK_CHECK(tt_write_text(&p, TT_FMT_W94, err, sizeof err) == NULL);
    NPK_CHECK_EQ_STR(err, "cycle 4 (line 2): cols 4 does not fit w94 (0..3)");
    char *t = tt_write_text(&p, TT_FMT_W130, err, sizeof err);
    NPK_CHECK(t != NULL);
    free(t);
    tt_program_free(&p);
    free(diag);
    /* w88/w94/w130 exist only for N = 2 */
    NPK_CHECK(tt_asm_text("host2=0.5\n", TT_FMT_ASM, 3, TT_FMT_ASM, &p, &diag) == 0);
    NPK_CHECK(tt_write_text(&p, TT_FMT_W130, err, sizeof err) == NULL);
    NPK_CHECK_CONTAINS(err, "w130 words need N = 2");
    t = tt_write_text(&p, TT_FMT_WFULL, err, sizeof err);
    NPK_CHECK(t != NULL);
    /* hv[2] = bit 5, hd[2] = 0x0080 << 95 = bit 102 (digit 25 = 4); 147 bits = 37 digits */
    NPK_CHECK_CONTAINS(t, "\n0000000000040000000000000000000000020\n");
    free(t);
    tt_program_free(&p);
    free(diag);
    /* hex output of resets and lr changes: zero word and comments */
    NPK_CHECK(tt_asm_text(".reset\n.lr 0.75\nsw\n", TT_FMT_ASM, 2, TT_FMT_ASM, &p, &diag) == 0);
    t = tt_write_text(&p, TT_FMT_W88, err, sizeof err);
    NPK_CHECK_EQ_STR(t, "# tinytpu w88 words (88 bits), N = 2: one word per cycle\n"
                        "# cycle 1: reset cycle (--reset-at 1)\n"
                        "0000000000000000000000\n"
                        "# cycle 2: lr 0x00C0 (a machine setting, B6)\n"
                        "0000000000000000000001\n");
    free(t);
    tt_program_free(&p);
    free(diag);
}

typedef struct bad_case {
    unsigned N;
    tt_format check;
    const char *src, *where, *msg;
} bad_case;

static const bad_case bad[] = {
    {2, TT_FMT_ASM, "@0 sw", "t.s:1:2: error:", "cycle 0 out of range (1..16777216)"},
    {2, TT_FMT_ASM, "sw\n@1 sw", "t.s:2:1: error:", "@1 is not after the previous cycle (1)"},
    {2, TT_FMT_ASM, "nop 4\n@4 sw", "t.s:2:1: error:", "@4 is not after the previous cycle (4)"},
    {2, TT_FMT_ASM, "read foo addr=1", "t.s:1:6: error:", "unknown channel 'foo'"},
    {2, TT_FMT_ASM, "read input sel=3", "t.s:1:12: error:",
     "give a channel name or sel=, not both"},
    {2, TT_FMT_ASM, "sw read addr=3", "t.s:1:4: error:", "'read' needs a channel"},
    {2, TT_FMT_ASM, "read input addr=70000", "t.s:1:17: error:",
     "addr 70000 out of range (0..65535)"},
    {2, TT_FMT_ASM, "read sel=512", "t.s:1:10: error:", "sel 512 out of range (0..511)"},
    {2, TT_FMT_ASM, "read bias rows", "t.s:1:11: error:", "operand 'rows' needs a value"},
    {2, TT_FMT_ASM, "host2=0.5", "t.s:1:1: error:", "host lane 2 does not exist (N = 2)"},
    {2, TT_FMT_ASM, "sw host0=1", "t.s:1:10: error:",
     "Q8.8 value '1' is ambiguous: write 1.0 for the number or 0x0001 for raw bits"},
    {2, TT_FMT_ASM, "host0=0.5 host0=0.25", "t.s:1:11: error:", "host lane 0 written twice"},
    {2, TT_FMT_ASM, "host0 0.5", "t.s:1:1: error:", "'host0' needs a value"},
    {2, TT_FMT_ASM, ".pathway 12", "t.s:1:10: error:", ".pathway needs 4 binary digits"},
    {2, TT_FMT_ASM, ".leak abc", "t.s:1:7: error:", "'abc' is not a Q8.8 value"},
    {2, TT_FMT_ASM, ".inv 0x10000", "t.s:1:6: error:", "'0x10000' is not a Q8.8 value"},
    {2, TT_FMT_ASM, ".lr", "t.s:1:4: error:", ".lr needs a Q8.8 value"},
    {2, TT_FMT_ASM, ".lanes 4", "t.s:1:8: error:", "'.lanes 4' does not match the machine's N = 2"},
    {2, TT_FMT_ASM, "sw sw", "t.s:1:4: error:", "'sw' given twice"},
    {2, TT_FMT_ASM, "nop\njump 3", "t.s:2:1: error:", "unknown clause 'jump'"},
    {2, TT_FMT_ASM, "read input addr=1 read bias", "t.s:1:19: error:", "at most one read"},
    {2, TT_FMT_ASM, "nop 0", "t.s:1:5: error:", "nop count 0 out of range"},
    {2, TT_FMT_ASM, "@5 nop", "t.s:1:4: error:", "'nop' cannot be placed with @"},
    {2, TT_FMT_ASM, ".w88 0x1234567890123456789012345", "t.s:1:6: error:",
     "value does not fit in 88 bits"},
    {3, TT_FMT_ASM, ".w130 1", "t.s:1:1: error:", "w130 words need N = 2"},
    {2, TT_FMT_ASM, ".w94 0xZZ", "t.s:1:9: error:", "invalid hexadecimal digit 'Z'"},
    {2, TT_FMT_ASM, ".format w88\nread input addr=4 rows=256 cols=4", "t.s:2:12: error:",
     "addr 4 does not fit the w88 format (0..3)"},
    {2, TT_FMT_ASM, ".format w88\nread input addr=4 rows=256 cols=4", "t.s:2:19: error:",
     "rows 256 does not fit the w88 format (0..255)"},
    {2, TT_FMT_ASM, ".format w94\nread input addr=4 rows=25 cols=4", "t.s:2:27: error:",
     "cols 4 does not fit the w94 format (0..3)"},
    {2, TT_FMT_ASM, ".format w94\nread sel=8", "t.s:2:6: error:",
     "sel 8 does not fit the w94 format (0..7)"},
    {2, TT_FMT_W88, "nop\n.w130 0x0020002000000000000C0018000400042", "t.s:2:7: error:",
     "addr 12 does not fit the w88 format (0..3)"},
    {2, TT_FMT_ASM, "sw\n.format w94", "t.s:2:9: error:",
     ".format must come before the first cycle"},
    {3, TT_FMT_ASM, ".format w94", "t.s:1:9: error:", "w94 words need N = 2"},
    {3, TT_FMT_W88, "sw", "t.s: error:", "w88 words need N = 2"},
    {2, TT_FMT_ASM, ".format w12", "t.s:1:9: error:", ".format needs w88, w94, w130 or wfull"},
    {2, TT_FMT_ASM, ".foo 1", "t.s:1:1: error:", "unknown directive '.foo'"},
    {2, TT_FMT_ASM, "here: sw", "t.s:1:1: error:", "labels are not allowed"},
    {2, TT_FMT_ASM, "sw 5", "t.s:1:4: error:", "expected a clause"},
    {2, TT_FMT_ASM, "nop 20000000", "t.s:1:5: error:",
     "program longer than 16777216 cycles: the rest of the file is not read (the limit is the "
     "max_cycles setting, at most 1073741824)"},
    {2, TT_FMT_ASM, "nop 0", "t.s:1:5: error:", "nop count 0 out of range (1..16777216)"},
};

static void diagnostics(void)
{
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tt_program p;
        char *diag;
        int e = tt_asm_text(bad[i].src, TT_FMT_ASM, bad[i].N, bad[i].check, &p, &diag);
        NPK_REPORT(e > 0 && p.n == 0 && strstr(diag, bad[i].where) && strstr(diag, bad[i].msg),
                   "case %zu \"%s\": %d errors, want \"%s\" and \"%s\" in:\n%s\n", i, bad[i].src,
                   e, bad[i].where, bad[i].msg, diag);
        tt_program_free(&p);
        free(diag);
    }
    /* the source line and a caret under the field */
    tt_program p;
    char *diag;
    tt_asm_text("nop\n  host0=0.5 host1=7\n", TT_FMT_ASM, 2, TT_FMT_ASM, &p, &diag);
    NPK_CHECK_CONTAINS(diag, "t.s:2:19: error: Q8.8 value '7' is ambiguous: write 7.0 for the "
                             "number or 0x0007 for raw bits\n  host0=0.5 host1=7\n"
                             "                  ^\n");
    tt_program_free(&p);
    free(diag);
    /* several errors in one file, each with its line; later cycles keep their numbers */
    int e = tt_asm_text("sw\nread bad\nhost9=1.0\nsw\n@3 sw\n", TT_FMT_ASM, 2, TT_FMT_ASM, &p,
                        &diag);
    NPK_CHECK_EQ_U64(e, 3);
    NPK_CHECK_CONTAINS(diag, "t.s:2:6: error:");
    NPK_CHECK_CONTAINS(diag, "t.s:3:1: error:");
    NPK_CHECK_CONTAINS(diag, "t.s:5:1: error: @3 is not after the previous cycle (4)");
    tt_program_free(&p);
    free(diag);
}

int main(void)
{
    q88();
    semantics();
    xor_fixture();
    write_errors();
    diagnostics();
    return npk_test_done();
}
