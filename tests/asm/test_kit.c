/* The engine's toolkit outside toy, through the "kit" test target (kit.c) that is shaped like
 * the other NPUs' syntaxes, plus unit tests of bits, register classes and the disassembly
 * builder. Expected words are worked out by hand from kit.c's made-up layouts. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "asm/asm.h"
#include "kit.h"
#include "test.h"

static kit_state state;

static npk_asm_result *run(const char *src)
{
    return npk_asm_run(&kit_target, &state, src, strlen(src), "kit.s", NULL);
}

static uint64_t u64_at(const npk_asm_result *r, size_t space, size_t off)
{
    size_t n;
    const uint8_t *b = npk_asm_result_image(r, space, &n, NULL, NULL);
    uint64_t w = 0;
    if (!b || off + 8 > n)
        return 0xDEADDEADDEADDEADu;
    npk_bits_from_bytes(&w, 1, b + off, 8);
    return w;
}

static void check_diag_at(int line, const char *src, const char *needle)
{
    npk_asm_result *r = run(src);
    if (!r || !npk_asm_result_errors(r) || !strstr(npk_asm_result_diag(r), needle)) {
        npk_test_fail++;
        fprintf(stderr, "%s:%d: source \"%s\": want \"%s\" in:\n%s\n", __FILE__, line, src,
                needle, r ? npk_asm_result_diag(r) : "(no result)");
    } else {
        npk_test_pass++;
    }
    npk_asm_result_free(r);
}
#define CHECK_DIAG(src, needle) check_diag_at(__LINE__, src, needle)

/* ---- tests ----------------------------------------------------------------------------------- */

static void test_kv(void)
{
    npk_asm_result *r = run(".target kit\n"
                            ".equ Y_W, 0x80\n"
                            "gemv dst=Y_W, src=0x40, size=2, shape=1, findemax ; comment\n"
                            "GEMV findemax, shape=1, size=2, src=0x40, dst=Y_W\n"
                            "gemv dst=0, src=0, size=0, shape=0, lanes=255, accm\n"
                            ".word 0xffffffffffffffff, -1, 0x8000000000000000\n");
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 0);
    if (npk_asm_result_errors(r))
        fprintf(stderr, "%s", npk_asm_result_diag(r));
    /* 1 | 1<<4 | 0x80<<6 (0x2000) | 0x40<<22 (0x10000000) | 2<<38 | 1<<46 */
    NPK_CHECK_EQ_U64(u64_at(r, SP_INSN, 0), 0x0000408010002011u);
    NPK_CHECK_EQ_U64(u64_at(r, SP_INSN, 8), 0x0000408010002011u);
    NPK_CHECK_EQ_U64(u64_at(r, SP_INSN, 16), 0x3FC0000000000021u); /* 1 | accm | 255<<54 */
    NPK_CHECK_EQ_U64(u64_at(r, SP_INSN, 24), 0xFFFFFFFFFFFFFFFFu);
    NPK_CHECK_EQ_U64(u64_at(r, SP_INSN, 32), 0xFFFFFFFFFFFFFFFFu);
    NPK_CHECK_EQ_U64(u64_at(r, SP_INSN, 40), 0x8000000000000000u);
    npk_asm_result_free(r);

    CHECK_DIAG("gemv dst=1, src=2, size=3", "kit.s:1:1: error: missing operand 'shape'");
    CHECK_DIAG("gemv dst=1, dst=2", "kit.s:1:13: error: operand 'dst' given twice");
    CHECK_DIAG("gemv foo=1", "kit.s:1:6: error: unknown operand 'foo' (expected dst, src, size, shape, lanes, findemax, accm)");
    CHECK_DIAG("gemv findemax=1", "kit.s:1:14: error: 'findemax' is a flag and takes no value");
    CHECK_DIAG("gemv dst", "kit.s:1:6: error: operand 'dst' needs a value ('dst=...')");
    CHECK_DIAG("gemv size=256", "kit.s:1:11: error: size 256 out of range (0..255)");
    CHECK_DIAG("gemv dst=1 src=2", "kit.s:1:12: error: expected ',' before 'src'");
    CHECK_DIAG("gemv dst=1,", "kit.s:1:12: error: expected an operand after ','");
    CHECK_DIAG("gemv 5", "kit.s:1:6: error: expected an operand, found '5'");
}

static void test_options_classes(void)
{
    npk_asm_result *r = run("vadd.sat.rtz vx1, vx2, vx3\n"
                            "vadd vr7, vr0, vr1\n"
                            "VADD.CEIL.SAT ve15, VE0, ve1\n"
                            "vadd.last.keep vx0, vx0, vx0\n");
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 0);
    if (npk_asm_result_errors(r))
        fprintf(stderr, "%s", npk_asm_result_diag(r));
    /* 2 | sat 1<<6 | rtz 1<<7 | rd 1<<9 | rs1 2<<14 | rs2 3<<19 */
    NPK_CHECK_EQ_U64(u64_at(r, SP_INSN, 0), 0x1882C2);
    /* 2 | class 2<<4 | rd 7<<9 | rs2 1<<19 */
    NPK_CHECK_EQ_U64(u64_at(r, SP_INSN, 8), 0x80E22);
    /* 2 | class 1<<4 | sat 1<<6 | ceil 3<<7 | rd 15<<9 | rs2 1<<19 */
    NPK_CHECK_EQ_U64(u64_at(r, SP_INSN, 16), 0x2 + 0x10 + 0x40 + 0x180 + 0x1E00 + 0x80000);
    npk_asm_result_free(r);

    CHECK_DIAG("vadd.rtz.floor vx1, vx2, vx3", "kit.s:1:9: error: option '.floor' conflicts with '.rtz'");
    CHECK_DIAG("vadd.keep vx1, vx2, vx3", "kit.s:1:5: error: option '.keep' is not allowed on 'vadd'");
    CHECK_DIAG("vadd.last.sat vx1, vx2, vx3", "kit.s:1:10: error: option '.sat' is not allowed on 'vadd.last'");
    CHECK_DIAG("vadd vx1, ve2, vx3", "kit.s:1:11: error: register class mismatch: vx register, then ve register");
    CHECK_DIAG("vadd vr8, vr0, vr0", "kit.s:1:6: error: vr register 'vr8' out of range (vr0..vr7)");
    CHECK_DIAG("vadd x1, vr0, vr0", "kit.s:1:6: error: expected a vx register, ve register or vr register, found 'x1'");
    CHECK_DIAG(".equ rtz, 1", "kit.s:1:6: error: 'rtz' is an option word and cannot be defined");
    CHECK_DIAG(".equ vx3, 1", "kit.s:1:6: error: 'vx3' is a register name and cannot be defined");
}

static void test_rules(void)
{
    CHECK_DIAG("x: vadd vx1, vx2, vx3", "kit.s:1:1: error: labels are not allowed in kit assembly");
    CHECK_DIAG("gemv dst=LATER, src=0, size=0, shape=0\n.equ LATER, 1",
               "kit.s:1:10: error: 'LATER' is used before its definition\n");
    CHECK_DIAG(".equ X, 7 / 2", "kit.s:1:11: error: 7 / 2 is not exact");
    CHECK_DIAG("vadd vx1, vx2, vx3 # no '#' comments here", "kit.s:1:20: error: unexpected '#'");
    CHECK_DIAG("halt\n.target kit", "kit.s:2:1: error: '.target' must come before everything else");
    npk_asm_result *r = run(".equ X, 12 / 4\n.host byte=X\n.equ HERE, $ + 1\n");
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 0);
    int64_t v;
    NPK_CHECK(npk_asm_result_lookup(r, "HERE", &v) && v == 4);
    npk_asm_result_free(r);
}

static void test_spaces_floats(void)
{
    npk_asm_result *r = run(".host byte=4\n"
                            ".bf16 2.0, -1.0, 0.25, 4.0\n"
                            ".bf16 nan, -inf, 1.00390625, 1.01171875, 0x1.ffp0\n"
                            ".l2 word=2\n"
                            ".u8 1, 255\n"
                            ".h16 0x3F80\n"
                            ".l2 elem=1\n"
                            ".f32 0x1.8p1\n"
                            ".host byte=0\n"
                            ".u8 9\n"
                            "gemv dst=0, src=0, size=0, shape=0\n"
                            ".host byte=22\n"
                            ".p2align 3\n"
                            ".zero 1\n");
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 0);
    if (npk_asm_result_errors(r))
        fprintf(stderr, "%s", npk_asm_result_diag(r));
    size_t n;
    const char *name;
    const uint8_t *host = npk_asm_result_image(r, SP_HOST, &n, NULL, &name);
    NPK_CHECK_EQ_STR(name, "host");
    static const uint8_t want_host[] = {
        9, 0, 0, 0,
        0x00, 0x40, 0x80, 0xBF, 0x80, 0x3E, 0x80, 0x40, /* 2.0 -1.0 0.25 4.0 */
        0xC0, 0x7F, 0x80, 0xFF,                         /* nan -inf */
        0x80, 0x3F, 0x82, 0x3F,                         /* ties to even */
        0x00, 0x40,                                     /* 0x1.ffp0: a tie, to even 2.0 */
        0, 0, 0,                                        /* .p2align 3 -> 24, .zero 1 */
    };
    NPK_CHECK_EQ_U64(n, sizeof want_host);
    NPK_CHECK(host && n == sizeof want_host && memcmp(host, want_host, n) == 0);
    const uint8_t *l2 = npk_asm_result_image(r, SP_L2, &n, NULL, NULL);
    NPK_CHECK_EQ_U64(n, 36);
    NPK_CHECK(l2 && n == 36 && l2[32] == 1 && l2[33] == 255 && l2[34] == 0x80 && l2[35] == 0x3F);
    NPK_CHECK(l2 && l2[2] == 0x00 && l2[3] == 0x00 && l2[4] == 0x40 && l2[5] == 0x40);
    NPK_CHECK_EQ_U64(u64_at(r, SP_INSN, 0), 1);
    npk_asm_result_free(r);

    CHECK_DIAG(".l2 word=1, elem=2", "kit.s:1:1: error: '.l2' needs exactly one of word= and elem=");
    CHECK_DIAG(".host byte=0\n.u8 1\n.host byte=0\n.u8 2", "kit.s:4:1: error: output overlaps earlier output at 0x0");
    CHECK_DIAG(".l2 word=4095\n.zero 17", "address 0x10000 is outside 'l2' (0x0..0xffff)");
    CHECK_DIAG(".bf16 1.0.0", "kit.s:1:7: error: invalid floating-point number '1.0.0'");
    CHECK_DIAG(".bf16", "kit.s:1:6: error: '.bf16' needs at least one value");
}

static void test_wide_cycles(void)
{
    npk_asm_result *r = run("sw\n"
                            "@2 sw read weight addr=5 rows=2 cols=2 t host0=0x1234\n"
                            "read gweight rows=1\n"
                            ".w130 0x3ffffffffffffffffffffffffffffffff\n"
                            "@7 host1=0xffff sw\n");
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 0);
    if (npk_asm_result_errors(r))
        fprintf(stderr, "%s", npk_asm_result_diag(r));
    size_t n;
    const uint8_t *b = npk_asm_result_image(r, SP_WIDE, &n, NULL, NULL);
    NPK_CHECK_EQ_U64(n, 8 * 17);
    if (b && n == 8 * 17) {
        uint64_t w[3];
        npk_bits_from_bytes(w, 3, b + 0 * 17, 17);
        NPK_CHECK(w[0] == 1 && w[1] == 0 && w[2] == 0);
        npk_bits_from_bytes(w, 3, b + 1 * 17, 17); /* idle */
        NPK_CHECK(w[0] == 0 && w[1] == 0 && w[2] == 0);
        npk_bits_from_bytes(w, 3, b + 2 * 17, 17);
        /* sw|start|T|hv0 = 0xF, cols 2<<5, rows 2<<21, addr 5<<37, sel 1<<53, hd0 0x1234<<62
         * (low two bits of 0x1234 are zero, so it lands as 0x48D in w[1]) */
        uint64_t w0 = 0xF | (uint64_t)2 << 5 | (uint64_t)2 << 21 | (uint64_t)5 << 37 |
                      (uint64_t)1 << 53;
        NPK_CHECK_EQ_U64(w[0], w0);
        NPK_CHECK_EQ_U64(w[1], 0x48D);
        NPK_CHECK_EQ_U64(w[2], 0);
        NPK_CHECK_EQ_U64(npk_bits_get(w, 3, 62, 16), 0x1234);
        npk_bits_from_bytes(w, 3, b + 3 * 17, 17); /* start, rows 1, sel 6 */
        NPK_CHECK_EQ_U64(w[0], 2 | (uint64_t)1 << 21 | (uint64_t)6 << 53);
        npk_bits_from_bytes(w, 3, b + 4 * 17, 17); /* all 130 bits */
        NPK_CHECK(w[0] == ~(uint64_t)0 && w[1] == ~(uint64_t)0 && w[2] == 3);
        npk_bits_from_bytes(w, 3, b + 7 * 17, 17); /* sw, hv1, hd1 = 0xffff at 78 */
        NPK_CHECK_EQ_U64(w[0], 1 | 16);
        NPK_CHECK_EQ_U64(w[1], (uint64_t)0xFFFF << 14);
    }
    npk_asm_result_free(r);

    CHECK_DIAG("@3 sw\n@3 sw", "kit.s:2:2: error: cycle 3 is not after cycle 3");
    CHECK_DIAG("read nothing", "kit.s:1:6: error: expected a channel name");
    CHECK_DIAG("read input addr=70000", "kit.s:1:17: error: addr 70000 out of range (0..65535)");
    CHECK_DIAG("sw jump", "kit.s:1:4: error: expected a clause (sw, read, host0=, host1=)");
    /* 33 digits with a top digit of 4: bit 130 is set */
    CHECK_DIAG(".w130 0x400000000000000000000000000000000", "kit.s:1:7: error: value does not fit in 130 bits");
    CHECK_DIAG(".w130 0x12g4", "kit.s:1:11: error: invalid hexadecimal digit 'g'");
}

static void test_block(void)
{
    npk_asm_result *r = run(".weight W0, k=4, n=2\n"
                            "  .row 3, -2, 4, 1\n"
                            "  .row 7, 7, -8, 0\n"
                            ".endweight\n");
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 0);
    NPK_CHECK(state.codes[0][1] == -2 && state.codes[1][2] == -8 && state.rows == 2);
    npk_asm_result_free(r);
    CHECK_DIAG(".weight W0, k=2, n=1\n.row 1, 2\n", "kit.s: error: missing '.endweight' for the '.weight' at kit.s:1");
    CHECK_DIAG(".weight W0, k=2, n=2\n.row 1, 2\n.endweight", "kit.s:3:1: error: 1 rows, n = 2");
    CHECK_DIAG(".row 1", "kit.s:1:1: error: '.row' outside '.weight'");
    CHECK_DIAG(".weight W0, k=2, n=1\n.row 1, 8\n.endweight", "kit.s:2:9: error: code 8 out of range (-8..7)");
}

/* ---- units: bits, registers, disassembly text ------------------------------------------------ */

static void test_units(void)
{
    uint64_t w[3] = {0, 0, 0};
    NPK_CHECK_EQ_U64(npk_bits_put(w, 3, 60, 8, 0xAB), 0);
    NPK_CHECK_EQ_U64(w[0], (uint64_t)0xB << 60);
    NPK_CHECK_EQ_U64(w[1], 0xA);
    NPK_CHECK_EQ_U64(npk_bits_get(w, 3, 60, 8), 0xAB);
    NPK_CHECK_EQ_U64(npk_bits_put(w, 3, 64, 64, ~(uint64_t)0), 0);
    NPK_CHECK_EQ_U64(w[1], ~(uint64_t)0);
    NPK_CHECK_EQ_U64(npk_bits_put(w, 3, 130, 63, 1), -1); /* past the end */
    NPK_CHECK_EQ_U64(npk_bits_put(w, 3, 0, 65, 1), -1);
    NPK_CHECK_EQ_U64(npk_bits_get(w, 3, 190, 8), 0);
    NPK_CHECK(npk_fits_u(255, 8) && !npk_fits_u(256, 8) && npk_fits_u(~(uint64_t)0, 64));
    NPK_CHECK(npk_fits_s(-128, 8) && !npk_fits_s(-129, 8) && npk_fits_s(127, 8) &&
              !npk_fits_s(128, 8) && npk_fits_s(INT64_MIN, 64) && !npk_fits_s(0, 0));
    NPK_CHECK(npk_sext(0x8000, 16) == -32768 && npk_sext(0x7FFF, 16) == 32767 &&
              npk_sext(0x1FF, 8) == -1 && npk_sext(~(uint64_t)0, 64) == -1);
    char hex[64];
    uint64_t h[3] = {0x0123456789ABCDEFu, 0xFEDCBA9876543210u, 0x2};
    NPK_CHECK_EQ_U64(npk_bits_hex(h, 3, 130, hex, sizeof hex), 33);
    NPK_CHECK_EQ_STR(hex, "2fedcba98765432100123456789abcdef");
    npk_bits_hex(h, 3, 88, hex, sizeof hex);
    NPK_CHECK_EQ_STR(hex, "543210""0123456789abcdef");
    npk_bits_hex(h, 3, 130, hex, 5);
    NPK_CHECK_EQ_STR(hex, "2fed");
    uint8_t bytes[17];
    npk_bits_to_bytes(h, 3, bytes, 17);
    NPK_CHECK(bytes[0] == 0xEF && bytes[8] == 0x10 && bytes[16] == 0x02);

    /* an ABI-named register class (rvnpu-like) */
    static const char *const abi[32] = {"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2",
                                        "s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
                                        "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7",
                                        "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
    static const npk_regalias fp[] = {{"fp", 8}};
    npk_regset x = {"x", 32, abi, fp, 1, "register"};
    unsigned num = 99;
    bool bad;
    NPK_CHECK(npk_regset_match(&x, "a0", 2, &num, &bad) == 1 && num == 10 && !bad);
    NPK_CHECK(npk_regset_match(&x, "X10", 3, &num, &bad) == 1 && num == 10);
    NPK_CHECK(npk_regset_match(&x, "fp", 2, &num, &bad) == 1 && num == 8);
    NPK_CHECK(npk_regset_match(&x, "s11", 3, &num, &bad) == 1 && num == 27);
    NPK_CHECK(npk_regset_match(&x, "x32", 3, &num, &bad) == 1 && bad);
    NPK_CHECK(npk_regset_match(&x, "x05", 3, &num, &bad) == 0);
    NPK_CHECK(npk_regset_match(&x, "x", 1, &num, &bad) == 0);
    NPK_CHECK(npk_regset_match(&x, "a0b", 3, &num, &bad) == 0);
    NPK_CHECK(npk_regset_match(&x, "x99999999999999", 15, &num, &bad) == 1 && bad);
    char name[16];
    NPK_CHECK_EQ_STR(npk_regset_name(&x, 10, name, sizeof name), "a0");
    NPK_CHECK_EQ_STR(npk_regset_name(&vx, 31, name, sizeof name), "vx31");

    char out[128];
    npk_dis d;
    npk_dis_init(&d, out, sizeof out);
    npk_dis_puts(&d, "gemv");
    npk_dis_sep(&d);
    npk_dis_kv(&d, "dst", 0x80, true);
    npk_dis_sep(&d);
    npk_dis_kv(&d, "size", -2, false);
    npk_dis_sep(&d);
    npk_dis_puts(&d, "findemax");
    NPK_CHECK_EQ_STR(out, "gemv dst=0x80, size=-2, findemax");
    npk_dis_init(&d, out, sizeof out);
    npk_dis_word(&d, h, 3, 130, ';', "illegal: reserved opcode");
    NPK_CHECK_EQ_STR(out, ".word 0x2fedcba98765432100123456789abcdef  ; illegal: reserved opcode");
    NPK_CHECK_EQ_U64(npk_dis_done(&d), strlen(".word 0x2fedcba98765432100123456789abcdef  ; illegal: reserved opcode"));
    npk_dis_init(&d, out, 10);
    npk_dis_printf(&d, "%s-%d", "abcdefghijkl", 42);
    NPK_CHECK_EQ_STR(out, "abcdefghi");
    NPK_CHECK_EQ_U64(npk_dis_done(&d), 15);
    npk_dis_hex(&d, -16);
    NPK_CHECK_EQ_U64(npk_dis_done(&d), 20);
    /* symbolic addresses for listings of an assembled program */
    npk_asm_result *r = npk_asm_run(&kit_target, &state, ".equ E, 8\n", 10, "k.s", NULL);
    npk_dis_init(&d, out, sizeof out);
    npk_dis_addr(&d, 8, r); /* E is not a label */
    npk_dis_sep(&d);
    npk_dis_addr(&d, -4, NULL);
    NPK_CHECK_EQ_STR(out, "0x8 -0x4");
    npk_asm_result_free(r);
    /* a wide word longer than npk_bits */
    uint64_t big[80];
    memset(big, 0, sizeof big);
    big[79] = (uint64_t)1 << 63;
    static char bigout[2048];
    npk_dis_init(&d, bigout, sizeof bigout);
    npk_dis_word(&d, big, 80, 5120, '#', NULL);
    NPK_CHECK_EQ_U64(npk_dis_done(&d), 8 + 1280);
    NPK_CHECK(bigout[8] == '8' && bigout[9] == '0');
}

int main(void)
{
    test_kv();
    test_options_classes();
    test_rules();
    test_spaces_floats();
    test_wide_cycles();
    test_block();
    test_units();
    return npk_test_done();
}
