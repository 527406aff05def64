/* tinytpu packed words (spec B3-B5) and hex word files (B7.1): words computed by hand from the
 * bit tables, every field at its largest value and one above in every format, the wfull layout
 * for N = 2 (= w130) and N = 3, the read-issue rule (A7.8), and hex-file diagnostics. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdlib.h>
#include <string.h>

#include "asm/asm.h"
#include "helpers.h"
#include "npukit/npukit.h"
#include "test.h"

/* The hex text of cycle c (host writes hw) in format f for N lanes, upper case, or the error. */
static const char *enc_hex(tt_format f, unsigned N, const tt_cycle *c, const tt_hostw *hw,
                           char *buf, size_t n)
{
    tt_packed w;
    char err[200];
    if (tt_encode(f, N, c, hw, &w, err, sizeof err)) {
        snprintf(buf, n, "error: %s", err);
        return buf;
    }
    npk_bits_hex(w.w, TT_WORD_U64, tt_format_bits(f, N), buf, n);
    for (char *p = buf; *p; p++)
        if (*p >= 'a' && *p <= 'f')
            *p = (char)(*p - 32);
    return buf;
}

static tt_cycle cyc(void)
{
    tt_cycle c;
    memset(&c, 0, sizeof c);
    return c;
}

/* Decoding the word of c gives c back (levels, read fields, host writes in lane order). */
static void check_decode(tt_format f, unsigned N, const tt_cycle *c, const tt_hostw *hw)
{
    tt_packed w;
    NPK_CHECK(tt_encode(f, N, c, hw, &w, NULL, 0) == 0);
    tt_cycle d;
    tt_hostw dh[TT_MAX_N];
    unsigned nh;
    tt_decode(f, N, &w, &d, dh, &nh);
    bool same = d.sw == c->sw && d.start == c->start && d.T == c->T && d.sel == c->sel &&
                d.addr == c->addr && d.rows == c->rows && d.cols == c->cols &&
                d.pathway == c->pathway && d.inv == c->inv && d.leak == c->leak &&
                nh == c->n_host;
    for (unsigned i = 0; same && i < nh; i++)
        same = dh[i].lane == hw[i].lane && dh[i].value == hw[i].value;
    NPK_REPORT(same, "%s: decode(encode(c)) differs\n", tt_format_names[f]);
}

static void hand_words(void)
{
    char buf[1200];
    /* (1) w88, the layer-1 weight read of the XOR step but at addr 2 (w88 holds 0..3):
     * read weight addr=2 rows=2 cols=2 t, pathway 1100, leak = inv = 0x0080.
     *   bit 1 start = 1 -> 0x2; bit 2 T = 1 -> 0x4; cols 6:5 = 2 -> 0x40; rows 14:7 = 2 ->
     *   0x100; addr 16:15 = 2 -> 0x10000; sel 19:17 = 1 -> 0x20000: bits 19:0 = 0x30146.
     *   hd[0] 35:20 = 0, hd[1] 51:36 = 0, pathway 55:52 = 0xC, inv 71:56 = 0x0080,
     *   leak 87:72 = 0x0080. Every boundary is a multiple of 4, so the 22 digits are
     *   leak|inv|pathway|hd1|hd0|bits 19:0 = 0080 0080 C 0000 0000 30146. */
    tt_cycle c = cyc();
    c.start = 1, c.T = 1, c.sel = 1, c.addr = 2, c.rows = 2, c.cols = 2;
    c.pathway = 0xC, c.leak = 0x0080, c.inv = 0x0080;
    NPK_CHECK_EQ_STR(enc_hex(TT_FMT_W88, 2, &c, NULL, buf, sizeof buf), "00800080C0000000030146");
    check_decode(TT_FMT_W88, 2, &c, NULL);

    /* (2) w88 host load with the switch: sw, host0 = 0x004C, host1 = 0xFF6C, levels 0.
     *   sw bit 0 -> 1, hv[0] bit 3 -> 8, hv[1] bit 4 -> 0x10: bits 19:0 = 0x00019;
     *   hd[0] 35:20 = 004C, hd[1] 51:36 = FF6C: 0000 0000 0 FF6C 004C 00019. */
    tt_hostw hw[2] = {{0, 0x004C}, {1, 0xFF6C}};
    c = cyc();
    c.sw = 1, c.n_host = 2;
    NPK_CHECK_EQ_STR(enc_hex(TT_FMT_W88, 2, &c, hw, buf, sizeof buf), "000000000FF6C004C00019");
    check_decode(TT_FMT_W88, 2, &c, hw);

    /* (3) w94, read input addr=33 rows=2 cols=2 t, pathway 0000, leak = inv = 0x0080.
     *   start 0x2 + T 0x4 + cols 2<<5 = 0x40 + rows 2<<7 = 0x100 + addr 33<<15 = 0x108000
     *   = 0x108146 (sel 25:23 = 0). inv 77:62 = 0x80 -> bit 69; leak 93:78 = 0x80 -> bit 85.
     *   24 digits (96 bits): bit 85 = digit 21 value 2, bit 69 = digit 17 value 2, digits
     *   5..0 = 108146: 00 2 000 2 00000000000 108146. */
    c = cyc();
    c.start = 1, c.T = 1, c.sel = 0, c.addr = 33, c.rows = 2, c.cols = 2;
    c.leak = 0x0080, c.inv = 0x0080;
    NPK_CHECK_EQ_STR(enc_hex(TT_FMT_W94, 2, &c, NULL, buf, sizeof buf),
                     "002000200000000000108146");
    check_decode(TT_FMT_W94, 2, &c, NULL);

    /* (4) w130, read gweight addr=12 rows=2 cols=2 (phase 4's grad-weight read), levels 0x80.
     *   start 0x2, cols 20:5 = 2 -> 0x40, rows 36:21 = 2 -> 0x400000: digits 5..0 = 400042;
     *   addr 52:37 = 12 -> bits 40, 39: digit 10 = 1, digit 9 = 8; sel 61:53 = 6 -> bits
     *   55, 54: digit 13 = C; inv 113:98 = 0x80 -> bit 105 = digit 26 value 2; leak 129:114
     *   = 0x80 -> bit 121 = digit 30 value 2. 33 digits:
     *   00 2 000 2 000000000000 C 00 18 000 400042. */
    c = cyc();
    c.start = 1, c.sel = 6, c.addr = 12, c.rows = 2, c.cols = 2, c.leak = 0x80, c.inv = 0x80;
    NPK_CHECK_EQ_STR(enc_hex(TT_FMT_W130, 2, &c, NULL, buf, sizeof buf),
                     "0020002000000000000C0018000400042");
    check_decode(TT_FMT_W130, 2, &c, NULL);
    /* wfull for N = 2 is the 130-bit word */
    NPK_CHECK_EQ_STR(enc_hex(TT_FMT_WFULL, 2, &c, NULL, buf, sizeof buf),
                     "0020002000000000000C0018000400042");

    /* (5) wfull, N = 3 (147 bits, 37 digits): host2 = 0x1234, pathway 0001.
     *   sw 0, start 1, T 2, hv 5:3, cols 21:6, rows 37:22, addr 53:38, sel 62:54,
     *   hd 110:63 (hd[2] at 95), pathway 114:111, inv 130:115, leak 146:131.
     *   hv[2] = bit 5 -> digit 1 = 2; hd[2] = 0x1234 << 95 = 0x91A0 << 92 -> digits 26..23 =
     *   91A0; pathway 1 -> bit 111 = digit 27 value 8: 9 zeros, 891A0, 21 zeros, 20. */
    tt_hostw h3[1] = {{2, 0x1234}};
    c = cyc();
    c.pathway = 1, c.n_host = 1;
    NPK_CHECK_EQ_U64(tt_format_bits(TT_FMT_WFULL, 3), 147);
    NPK_CHECK_EQ_STR(enc_hex(TT_FMT_WFULL, 3, &c, h3, buf, sizeof buf),
                     "000000000891A000000000000000000000020");
    check_decode(TT_FMT_WFULL, 3, &c, h3);

    /* widths */
    NPK_CHECK_EQ_U64(tt_format_bits(TT_FMT_W88, 2), 88);
    NPK_CHECK_EQ_U64(tt_format_bits(TT_FMT_W94, 2), 94);
    NPK_CHECK_EQ_U64(tt_format_bits(TT_FMT_W130, 2), 130);
    NPK_CHECK_EQ_U64(tt_format_bits(TT_FMT_W88, 3), 0);
    NPK_CHECK_EQ_U64(tt_format_bits(TT_FMT_WFULL, 256), 96 + 17 * 256);
    NPK_CHECK(96 + 17 * TT_MAX_N <= 64 * TT_WORD_U64);
    NPK_CHECK(tt_encode(TT_FMT_W94, 3, &c, h3, &(tt_packed){{0}}, buf, sizeof buf) == -1);
    NPK_CHECK_CONTAINS(buf, "need N = 2");
}

/* wfull for N = 2 has every field where w130 has it (B5), and the N = 3 layout is packed in
 * the field order with no gaps. */
static void wfull_layout(void)
{
    for (unsigned f = 0; f < TT_N_FIELDS; f++)
        for (unsigned l = 0; l < (tt_fields[f].lanes ? 2u : 1u); l++) {
            unsigned a, wa, b, wb;
            NPK_CHECK(tt_field_pos(TT_FMT_W130, 2, f, l, &a, &wa) == 0);
            NPK_CHECK(tt_field_pos(TT_FMT_WFULL, 2, f, l, &b, &wb) == 0);
            NPK_REPORT(a == b && wa == wb, "field %s[%u]: w130 %u/%u, wfull %u/%u\n",
                       tt_fields[f].name, l, a, wa, b, wb);
        }
    for (unsigned N = 2; N <= TT_MAX_N; N += N < 8 ? 1 : 61) {
        unsigned next = 0;
        for (unsigned f = 0; f < TT_N_FIELDS; f++)
            for (unsigned l = 0; l < (tt_fields[f].lanes ? N : 1u); l++) {
                unsigned a, wa;
                tt_field_pos(TT_FMT_WFULL, N, f, l, &a, &wa);
                NPK_REPORT(a == next && wa == tt_fields[f].port, "N=%u field %s[%u] at %u\n", N,
                           tt_fields[f].name, l, a);
                next = a + wa;
            }
        NPK_CHECK_EQ_U64(next, tt_format_bits(TT_FMT_WFULL, N));
    }
    unsigned a, w;
    NPK_CHECK(tt_field_pos(TT_FMT_WFULL, 3, TT_F_HV, 3, &a, &w) == -1);
}

/* Every field at its largest value fits, one above does not (and the message names the field,
 * value, format and range); host lanes and port widths too. */
static void limits(void)
{
    for (tt_format f = TT_FMT_W88; f <= TT_FMT_WFULL; f++) {
        const unsigned N = 2;
        for (unsigned fi = 0; fi < TT_N_FIELDS; fi++) {
            if (tt_fields[fi].lanes)
                continue;
            unsigned lsb, width;
            tt_field_pos(f, N, fi, 0, &lsb, &width);
            const uint32_t max = (1u << width) - 1;
            for (int above = 0; above < 2; above++) {
                uint32_t v = max + (uint32_t)above;
                tt_cycle c = cyc();
                uint32_t lim = fi == TT_F_SEL ? 511 : fi == TT_F_PATHWAY ? 15 :
                               width == 1 ? 1 : 0xFFFF;
                if (v > lim)
                    continue; /* not representable in tt_cycle either */
                switch (fi) {
                case TT_F_SW: c.sw = (uint8_t)v; break;
                case TT_F_START: c.start = (uint8_t)v; break;
                case TT_F_T: c.T = (uint8_t)v; break;
                case TT_F_COLS: c.cols = (uint16_t)v; break;
                case TT_F_ROWS: c.rows = (uint16_t)v; break;
                case TT_F_ADDR: c.addr = (uint16_t)v; break;
                case TT_F_SEL: c.sel = (uint16_t)v; break;
                case TT_F_PATHWAY: c.pathway = (uint8_t)v; break;
                case TT_F_INV: c.inv = (uint16_t)v; break;
                case TT_F_LEAK: c.leak = (uint16_t)v; break;
                }
                tt_packed w;
                char err[200] = "", want[200];
                int rc = tt_encode(f, N, &c, NULL, &w, err, sizeof err);
                if (!above) {
                    NPK_REPORT(rc == 0 && npk_bits_get(w.w, TT_WORD_U64, lsb, width) == max,
                               "%s: %s = max %u: rc %d %s\n", tt_format_names[f],
                               tt_fields[fi].name, max, rc, err);
                    check_decode(f, N, &c, NULL);
                } else {
                    snprintf(want, sizeof want, "%s %u does not fit %s (0..%u)",
                             tt_fields[fi].name, v, tt_format_names[f], max);
                    NPK_REPORT(rc == -1 && strcmp(err, want) == 0,
                               "%s: got rc %d \"%s\", want \"%s\"\n", tt_format_names[f], rc, err,
                               want);
                }
            }
        }
        /* host data is a full 16-bit field everywhere */
        tt_hostw hw[2] = {{1, 0xFFFF}, {0, 0xFFFF}};
        tt_cycle c = cyc();
        c.n_host = 2;
        NPK_CHECK(tt_encode(f, N, &c, hw, &(tt_packed){{0}}, NULL, 0) == 0);
        char err[200];
        hw[1].lane = 2;
        NPK_CHECK(tt_encode(f, N, &c, hw, &(tt_packed){{0}}, err, sizeof err) == -1);
        NPK_CHECK_CONTAINS(err, "lane 2, but N = 2");
        hw[1].lane = 1;
        NPK_CHECK(tt_encode(f, N, &c, hw, &(tt_packed){{0}}, err, sizeof err) == -1);
        NPK_CHECK_CONTAINS(err, "two host writes on lane 1");
    }
    /* the spec's examples: addr 37 and cols 4 in w88, rows 256 in w94 */
    tt_cycle c = cyc();
    char err[200];
    c.start = 1, c.addr = 37;
    NPK_CHECK(tt_encode(TT_FMT_W88, 2, &c, NULL, &(tt_packed){{0}}, err, sizeof err) == -1);
    NPK_CHECK_EQ_STR(err, "addr 37 does not fit w88 (0..3)");
    NPK_CHECK(tt_encode(TT_FMT_W94, 2, &c, NULL, &(tt_packed){{0}}, err, sizeof err) == 0);
    c.rows = 256;
    NPK_CHECK(tt_encode(TT_FMT_W94, 2, &c, NULL, &(tt_packed){{0}}, err, sizeof err) == -1);
    NPK_CHECK_EQ_STR(err, "rows 256 does not fit w94 (0..255)");
    NPK_CHECK(tt_encode(TT_FMT_W130, 2, &c, NULL, &(tt_packed){{0}}, err, sizeof err) == 0);
}

/* A7.8: issue iff start = 1 and (start, sel, T, addr, rows, cols) changed; F_0 = 0; a reset
 * cycle counts as F = 0. */
static void issue_rule(void)
{
    tt_cycle a = cyc(), b = cyc(), r = cyc();
    a.start = 1, a.sel = 2, a.rows = 4, a.cols = 1;
    b = a;
    r.rst = 1;
    NPK_CHECK(tt_read_issues(NULL, &a) == 1);
    NPK_CHECK(tt_read_issues(&a, &b) == 0);   /* held: once */
    b.T = 1;                                  /* an ignored field still counts */
    NPK_CHECK(tt_read_issues(&a, &b) == 1);
    b = a, b.pathway = 0xF, b.sw = 1;         /* not read fields */
    NPK_CHECK(tt_read_issues(&a, &b) == 0);
    NPK_CHECK(tt_read_issues(&r, &a) == 1);
    NPK_CHECK(tt_read_issues(&a, &r) == 0);
    tt_cycle z = cyc();
    NPK_CHECK(tt_read_issues(&a, &z) == 0);
    tt_cycle s7 = a;
    s7.sel = 7;
    NPK_CHECK(tt_read_issues(&a, &s7) == 1);  /* "issues" nothing, but F changed */
    tt_cycle zs = cyc();
    zs.start = 1;
    NPK_CHECK(tt_read_issues(NULL, &zs) == 1); /* start rose with all fields 0 */
}

/* Hex word files: reading, comments, and the file:line:col of each malformed line. */
static void hex_files(void)
{
    tt_program p;
    char *diag;
    int e = tt_asm_text("# XOR-style words\n\n00800080C0000000030146\n"
                        "000000000ff6c004c00019  # lower case, trailing comment\n",
                        TT_FMT_W88, 2, TT_FMT_ASM, &p, &diag);
    NPK_CHECK(e == 0);
    NPK_CHECK_EQ_STR(diag, "");
    NPK_CHECK_EQ_U64(p.n, 2);
    if (p.n == 2) {
        NPK_CHECK(p.c[0].start == 1 && p.c[0].sel == 1 && p.c[0].addr == 2 && p.c[0].T == 1);
        NPK_CHECK(p.c[0].pathway == 0xC && p.c[0].leak == 0x80 && p.c[0].line == 3);
        NPK_CHECK(p.c[1].sw == 1 && p.c[1].n_host == 2 && p.hw[p.c[1].host + 1].value == 0xFF6C);
        NPK_CHECK(p.c[1].line == 4);
    }
    tt_program_free(&p);
    free(diag);

    static const struct {
        tt_format f;
        const char *src, *where, *msg;
    } bad[] = {
        {TT_FMT_W88, "00800080C0000000030146\n0080080C0000000030146\n", "t.s:2:1: error:",
         "a w88 word is exactly 22 hex digits, found 21"},
        {TT_FMT_W88, "00800080C000000003014G\n", "t.s:1:22: error:", "'G' is not a hex digit"},
        {TT_FMT_W94, "# c\n  402000200000000000108146\n", "t.s:2:3: error:",
         "bits above bit 93 are set"},
        {TT_FMT_W130, "0020002000000000000C0018000400042 1\n", "t.s:1:1: error:",
         "exactly 33 hex digits, found 33 and more text"},
        {TT_FMT_W88, "0x800080C0000000030146\n", "t.s:1:2: error:", "'x' is not a hex digit"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        e = tt_asm_text(bad[i].src, bad[i].f, 2, TT_FMT_ASM, &p, &diag);
        NPK_REPORT(e > 0 && p.n == 0 && strstr(diag, bad[i].where) && strstr(diag, bad[i].msg),
                   "hex case %zu: %d errors, want \"%s\" \"%s\" in:\n%s\n", i, e, bad[i].where,
                   bad[i].msg, diag);
        tt_program_free(&p);
        free(diag);
    }
    /* words carry no lr: every cycle gets the setting */
    tt_program_init(&p, 2);
    NPK_CHECK(tt_assemble("000000000FF6C004C00019\n0000000000000000000000\n", "t.hex",
                          TT_FMT_W88, 2, 0x00C0, &p, NULL) == 0);
    NPK_CHECK(p.n == 2 && p.c[0].lr == 0xC0 && p.c[1].lr == 0xC0 && !p.c[1].rst);
    tt_program_free(&p);
    /* w88 is not a format for N = 3 */
    e = tt_asm_text("", TT_FMT_W88, 3, TT_FMT_ASM, &p, &diag);
    NPK_CHECK(e == 1);
    NPK_CHECK_CONTAINS(diag, "t.s: error: w88 for N = 3 is not a word format");
    tt_program_free(&p);
    free(diag);
}

/* npk_disasm_text's diagnostics go to the machine's error stream (npk_set_output), like every
 * other library output, never straight to the process's stderr (a fuzzing finding). */
static void disasm_text_diag(void)
{
    npk_machine *m = NULL;
    char err[256];
    NPK_CHECK(npk_create(&m, "tinytpu:format=w88", NULL, err, sizeof err) == NPK_OK);
    if (!m)
        return;
    char *buf = NULL, *obuf = NULL;
    size_t len = 0, olen = 0;
    FILE *ef = open_memstream(&buf, &len), *of = open_memstream(&obuf, &olen);
    npk_set_output(m, of, ef);
    const char bad[] = "00800080C000000003014G\n";
    NPK_CHECK(npk_disasm_text(m, bad, sizeof bad - 1, "w.hex", of) == NPK_ERR_FORMAT);
    fclose(ef);
    fclose(of);
    NPK_CHECK_CONTAINS(buf, "w.hex:1:22: error: 'G' is not a hex digit");
    NPK_CHECK_CONTAINS(npk_error(m), "w.hex: 1 error");
    free(buf);
    free(obuf);
    npk_destroy(m);
}

/* Hex word files declare what no word holds (B6: lr, reset cycles) and their format in `#`
 * lines; the reader applies them, so a file npukit wrote runs as it was written. */
static void declarations(void)
{
    tt_program p;
    char *diag;
    /* what tt_write_words writes for `.reset / .lr 0.75 / sw / .lr 0.5 / sw` */
    const char *src = "# compiled from x.net: a plain comment\n"
                      "# tinytpu w88 words (88 bits), N = 2: one word per cycle\n"
                      "# cycle 1: reset cycle (--reset-at 1)\n"
                      "0000000000000000000000\n"
                      "# cycle 2: lr 0x00C0 (a machine setting, B6)\n"
                      "0000000000000000000001\n"
                      "0000000000000000000000\n"
                      "# cycle 4: lr 0x0080 (a machine setting, B6)\n"
                      "# cycle 4: reset cycle (--reset-at 4)\n"
                      "0000000000000000000001\n";
    NPK_CHECK(tt_asm_text(src, TT_FMT_W88, 2, TT_FMT_ASM, &p, &diag) == 0);
    NPK_CHECK_EQ_STR(diag, "");
    NPK_CHECK_EQ_U64(p.n, 4);
    if (p.n == 4) {
        NPK_CHECK(p.c[0].rst == 1 && p.c[0].lr == 0);
        NPK_CHECK(p.c[1].rst == 0 && p.c[1].lr == 0x00C0 && p.c[1].sw == 1);
        NPK_CHECK(p.c[2].rst == 0 && p.c[2].lr == 0x00C0);
        NPK_CHECK(p.c[3].rst == 1 && p.c[3].lr == 0x0080);
    }
    /* and it is what the writer writes */
    char err[256];
    char *t = tt_write_text(&p, TT_FMT_W88, err, sizeof err);
    NPK_CHECK(t && strstr(src, t) != NULL);
    free(t);
    tt_program_free(&p);
    free(diag);

    /* an lr setting that the file's cycle-1 declaration replaces is said (a warning) */
    tt_program_init(&p, 2);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    NPK_CHECK(tt_assemble("# cycle 1: lr 0x00C0\n0000000000000000000000\n", "t.hex", TT_FMT_W88,
                          2, 0x0040, &p, f) == 0);
    fclose(f);
    NPK_CHECK(p.n == 1 && p.c[0].lr == 0x00C0);
    NPK_CHECK_CONTAINS(buf, "t.hex:1:1: warning: the file sets lr 0x00C0 from cycle 1: the lr "
                            "setting 0x0040 is not used");
    free(buf);
    tt_program_free(&p);

    static const struct {
        tt_format f;
        unsigned N;
        const char *src, *where, *msg;
    } bad[] = {
        {TT_FMT_W88, 2, "# tinytpu w94 words (94 bits), N = 2: one word per cycle\n"
                        "000000000000000000000000\n000000000000000000000000\n",
         "t.s:1:11: error:", "the file declares w94 words, but it is read as w88 (say format=w94"},
        {TT_FMT_WFULL, 3, "# tinytpu wfull words (147 bits), N = 4: one word per cycle\n",
         "t.s:1:", "the file declares N = 4, but the machine has lanes=3"},
        {TT_FMT_W88, 2, "0000000000000000000000\n# cycle 3: lr 0x00C0\n0000000000000000000000\n",
         "t.s:2:1: error:", "this declaration names cycle 3, but the next word is cycle 2"},
        {TT_FMT_W88, 2, "0000000000000000000000\n# cycle 2: reset cycle\n",
         "t.s: error:", "the declaration on line 2 has no word after it"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int e = tt_asm_text(bad[i].src, bad[i].f, bad[i].N, TT_FMT_ASM, &p, &diag);
        /* one error: a wrong header is not repeated on every word after it */
        NPK_REPORT(e == 1 && p.n == 0 && strstr(diag, bad[i].where) && strstr(diag, bad[i].msg),
                   "declaration case %zu: %d errors, want \"%s\" \"%s\" in:\n%s\n", i, e,
                   bad[i].where, bad[i].msg, diag);
        tt_program_free(&p);
        free(diag);
    }
    /* w130 and wfull are the same word for N = 2 */
    NPK_CHECK(tt_asm_text("# tinytpu w130 words (130 bits), N = 2\n"
                          "000000000000000000000000000000001\n",
                          TT_FMT_WFULL, 2, TT_FMT_ASM, &p, &diag) == 0);
    NPK_CHECK(p.n == 1 && p.c[0].sw == 1);
    tt_program_free(&p);
    free(diag);
}

/* A reader that is not told the format finds it: the header, else the shape of the first
 * line that is not a comment; anything else is assembly. */
static void detection(void)
{
    static const struct {
        unsigned N;
        const char *src;
        int how;
        tt_format f;
        unsigned line;
    } cases[] = {
        {2, "# x\n# tinytpu w94 words (94 bits), N = 2\n0000\n", 1, TT_FMT_W94, 2},
        {2, "\n  # plain\n0000000000000000000001\n", 2, TT_FMT_W88, 3},
        {2, "000000000000000000000001 # c\n", 2, TT_FMT_W94, 1},
        {2, "000000000000000000000000000000001\n", 2, TT_FMT_W130, 1},
        {3, "0000000000000000000000000000000000001\n", 2, TT_FMT_WFULL, 1}, /* 147 bits */
        {2, "# rst sw ...\n0 0 0 0 0 0 0000 0000 000 0000 0000 0000 0 0000 0000 0000\n", 2,
         TT_FMT_PORT, 2},
        {2, "; assembly\n.lanes 2\nsw\n", 0, TT_FMT_ASM, 0},
        {2, "add\n", 0, TT_FMT_ASM, 0},   /* hex digits, but no word's length */
        {2, "nop 3\n", 0, TT_FMT_ASM, 0},
        {2, "", 0, TT_FMT_ASM, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tt_format f = TT_N_FORMATS;
        unsigned line = 99;
        int how = tt_detect_format(cases[i].src, cases[i].N, &f, &line);
        NPK_REPORT(how == cases[i].how && f == cases[i].f && line == cases[i].line,
                   "detection case %zu: got %d %d line %u, want %d %d line %u\n", i, how, (int)f,
                   line, cases[i].how, (int)cases[i].f, cases[i].line);
    }
}

/* The longest program is a setting (max_cycles); a longer file is one error, not one per line
 * past the limit. */
static void cycle_limit(void)
{
    static const struct {
        tt_format f;
        const char *src, *where;
    } cases[] = {
        {TT_FMT_ASM, "nop\nsw\nsw\nsw\nsw\nsw\nsw\n", "t.s:4:1: error: program longer than 3"},
        {TT_FMT_ASM, "nop 2\nnop 5\nsw\nsw\n", "t.s:2:5: error: program longer than 3"},
        {TT_FMT_ASM, "sw\n@3 sw\n@4 sw\n@5 sw\n", "t.s:3:2: error: cycle 4 out of range (1..3)"},
        {TT_FMT_ASM, "sw\n@3 sw\nsw\n@5 sw\n", "t.s:3:1: error: program longer than 3"},
        {TT_FMT_W88, "0000000000000000000000\n0000000000000000000000\n0000000000000000000000\n"
                     "0000000000000000000000\n0000000000000000000000\n0000000000000000000000\n",
         "t.s:4:1: error: more than 3 cycles"},
        {TT_FMT_PORT, "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
                      "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
                      "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
         "t.s:4:1: error: more than 3 cycles"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tt_program p;
        tt_program_init(&p, 2);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        tt_asm_opts o = {TT_FMT_ASM, 3, NULL, TT_FMT_W130};
        int e = tt_assemble_opts(cases[i].src, "t.s", cases[i].f, 2, 0, &o, &p, f);
        fclose(f);
        NPK_REPORT(e == 1 && p.n == 0 && strstr(buf, cases[i].where),
                   "limit case %zu: %d errors, want 1: \"%s\" in:\n%s\n", i, e, cases[i].where,
                   buf);
        free(buf);
        tt_program_free(&p);
    }
    /* exactly the limit is fine */
    tt_program p;
    tt_program_init(&p, 2);
    tt_asm_opts o = {TT_FMT_ASM, 3, NULL, TT_FMT_W130};
    NPK_CHECK(tt_assemble_opts("nop 2\nsw\n", "t.s", TT_FMT_ASM, 2, 0, &o, &p, NULL) == 0);
    NPK_CHECK_EQ_U64(p.n, 3);
    tt_program_free(&p);
    /* the default is above the old 4194304-cycle cap */
    tt_program_init(&p, 2);
    NPK_CHECK(tt_assemble("nop 5000000\n", "t.s", TT_FMT_ASM, 2, 0, &p, NULL) == 0);
    NPK_CHECK_EQ_U64(p.n, 5000000);
    tt_program_free(&p);
}

int main(void)
{
    declarations();
    detection();
    cycle_limit();
    hand_words();
    wfull_layout();
    limits();
    issue_rule();
    hex_files();
    disasm_text_diag();
    return npk_test_done();
}
