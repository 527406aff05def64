/* The assembler engine proven on the toy target: hand-encoded words for every instruction,
 * expressions, directives, labels, symbols, diagnostics with exact file:line:col, .include,
 * the examples, and the disassembly round trip over every opcode and a strided sample of all
 * 2^32 words. Needs only the engine and toy's tables (no machine). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "asm/asm.h"
#include "targets/toy/asm.h"
#include "test.h"

/* ---- helpers ------------------------------------------------------------------------------ */

typedef struct vfile {
    const char *path, *text;
} vfile;

static int vfs_read(void *ctx, const char *path, char **text, size_t *len)
{
    for (const vfile *f = ctx; f && f->path; f++)
        if (strcmp(f->path, path) == 0) {
            size_t n = strlen(f->text);
            *text = malloc(n + 1);
            if (!*text)
                return -1;
            memcpy(*text, f->text, n + 1);
            *len = n;
            return 0;
        }
    return -1;
}

static npk_asm_result *run_vfs(const char *src, const vfile *fs, const char *name)
{
    npk_asm_opts o = {0};
    if (fs) {
        o.read_file = vfs_read;
        o.read_ctx = (void *)fs;
    }
    return npk_asm_run(toy_asm_target(), NULL, src, strlen(src), name, &o);
}

static npk_asm_result *run(const char *src)
{
    return run_vfs(src, NULL, "t.s");
}

static uint32_t word_at(const npk_asm_result *r, size_t byte)
{
    size_t n;
    const uint8_t *b = npk_asm_result_image(r, 0, &n, NULL, NULL);
    if (!b || byte + 4 > n)
        return 0xDEADDEAD;
    return (uint32_t)b[byte] | (uint32_t)b[byte + 1] << 8 | (uint32_t)b[byte + 2] << 16 |
           (uint32_t)b[byte + 3] << 24;
}

/* Assembling `src` fails and the diagnostics contain `needle`. */
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

/* `.equ v, expr` gives `want`. */
static void check_expr_at(int line, const char *expr, int64_t want)
{
    char src[512];
    snprintf(src, sizeof src, ".equ v, %s\n", expr);
    npk_asm_result *r = run(src);
    int64_t v = 0;
    if (!r || npk_asm_result_errors(r) || !npk_asm_result_lookup(r, "v", &v) || v != want) {
        npk_test_fail++;
        fprintf(stderr, "%s:%d: %s = %lld, want %lld\n%s", __FILE__, line, expr, (long long)v,
                (long long)want, r ? npk_asm_result_diag(r) : "");
    } else {
        npk_test_pass++;
    }
    npk_asm_result_free(r);
}
#define CHECK_EXPR(e, want) check_expr_at(__LINE__, e, want)

/* ---- every instruction, encoded by hand --------------------------------------------------- */

/* Layout (isa.def): [31:26] opcode, [25:23] rd, [22:20] rs1, [19:17] rs2, [16] sat,
 * [15:0] imm. Shifted parts used below:
 *   opcode << 26: 01 -> 04000000, 02 -> 08000000, 03 -> 0C000000, 04 -> 10000000,
 *     05 -> 14000000, 06 -> 18000000, 08 -> 20000000, 09 -> 24000000, 0A -> 28000000,
 *     0B -> 2C000000, 0C -> 30000000, 0D -> 34000000, 10 -> 40000000, 11 -> 44000000,
 *     18 -> 60000000, 19 -> 64000000, 1A -> 68000000, 1B -> 6C000000
 *   rd << 23:  r1 00800000, r2 01000000, r3 01800000, r4 02000000, r6 03000000, r7 03800000
 *   rs1 << 20: r1 00100000, r2 00200000, r3 00300000, r4 00400000, r5 00500000,
 *              r6 00600000, r7 00700000
 *   rs2 << 17: r2 00040000, r3 00060000, r4 00080000, r5 000A0000, r6 000C0000
 *   sat: 00010000 */
static const struct enc_case {
    const char *src;   /* assembled at pc = 4 * index */
    uint32_t word;
    const char *dis;   /* canonical disassembly */
} enc_cases[] = {
    {"nop", 0x00000000, "nop"},                                   /* 0x00 */
    {"halt", 0x04000000, "halt"},                                 /* 0x04 */
    {"exit r5", 0x08500000, "exit r5"},                           /* 08000000|00500000 */
    {"putc r7", 0x0C700000, "putc r7"},                           /* 0C000000|00700000 */
    {"li r3, -1", 0x1180FFFF, "li r3, -1"},                       /* 10000000|01800000|FFFF */
    {"lui r4, 0xBEEF", 0x1600BEEF, "lui r4, 48879"},              /* 14000000|02000000|BEEF */
    {"ori r4, r4, 65535", 0x1A40FFFF, "ori r4, r4, 65535"},       /* 18000000|02000000|00400000|FFFF */
    {"add r1, r2, r3", 0x20A60000, "add r1, r2, r3"},             /* 20000000|00800000|00200000|00060000 */
    {"add.sat r1, r2, r3", 0x20A70000, "add.sat r1, r2, r3"},     /* + 00010000 */
    {"sub.sat r7, r6, r5", 0x27EB0000, "sub.sat r7, r6, r5"},     /* 24000000|03800000|00600000|000A0000|00010000 */
    {"mul r2, r2, r2", 0x29240000, "mul r2, r2, r2"},             /* 28000000|01000000|00200000|00040000 */
    {"addi r1, r1, -32768", 0x2C908000, "addi r1, r1, -32768"},   /* 2C000000|00800000|00100000|8000 */
    {"fadd r1, r2, r3", 0x30A60000, "fadd r1, r2, r3"},           /* 30000000|00800000|00200000|00060000 */
    {"fmul r4, r5, r6", 0x365C0000, "fmul r4, r5, r6"},           /* 34000000|02000000|00500000|000C0000 */
    {"ld r1, 8(r2)", 0x40A00008, "ld r1, 8(r2)"},                 /* 40000000|00800000|00200000|0008 */
    {"st r3, -4(r2)", 0x4426FFFC, "st r3, -4(r2)"},               /* 44000000|rs2 00060000|rs1 00200000|FFFC */
    {"ld r6, (r7)", 0x43700000, "ld r6, 0(r7)"},                  /* 40000000|03000000|00700000 */
    {"beq r1, r2, 0x44", 0x60140000, "beq r1, r2, 0x44"},         /* pc 0x44, offset 0: 60000000|00100000|00040000 */
    {"bne r3, r4, 0x40", 0x6438FFFE, "bne r3, r4, 0x40"},         /* pc 0x48, offset -2: 64000000|00300000|00080000|FFFE */
    {"blt r5, r6, 0x5C", 0x685C0004, "blt r5, r6, 0x5c"},         /* pc 0x4C, offset 4: 68000000|00500000|000C0000|0004 */
    {"jmp 0x2004C", 0x6C007FFF, "jmp 0x2004c"},                   /* pc 0x50, offset 32767 */
    {"jmp -0x1FFAC", 0x6C008000, "jmp -0x1ffac"},                 /* pc 0x54, offset -32768 */
    {"ADD.SAT R1, R2, R3", 0x20A70000, "add.sat r1, r2, r3"},     /* case-insensitive */
    {"  st\tr7 ,  +2 * 3 ( r0 )  ", 0x440E0006, "st r7, 6(r0)"},  /* 44000000|rs2 000E0000|0006 */
};
#define N_ENC (sizeof enc_cases / sizeof enc_cases[0])

static void test_encodings(void)
{
    char src[4096];
    size_t o = 0;
    for (size_t i = 0; i < N_ENC; i++)
        o += (size_t)snprintf(src + o, sizeof src - o, "%s\n", enc_cases[i].src);
    npk_asm_result *r = run(src);
    NPK_CHECK(r != NULL);
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 0);
    if (npk_asm_result_errors(r))
        fprintf(stderr, "%s", npk_asm_result_diag(r));
    size_t n;
    npk_asm_result_image(r, 0, &n, NULL, NULL);
    NPK_CHECK_EQ_U64(n, 4 * N_ENC);
    for (size_t i = 0; i < N_ENC; i++) {
        uint32_t w = word_at(r, 4 * i);
        if (w != enc_cases[i].word)
            fprintf(stderr, "case %zu: %s\n", i, enc_cases[i].src);
        NPK_CHECK_EQ_U64(w, enc_cases[i].word);
        char text[128];
        int len = toy_disasm(enc_cases[i].word, (uint32_t)(4 * i), text, sizeof text);
        NPK_CHECK_EQ_STR(text, enc_cases[i].dis);
        NPK_CHECK_EQ_U64(len, strlen(enc_cases[i].dis));
    }
    npk_asm_result_free(r);
}

static void test_disasm_illegal(void)
{
    char t[128];
    toy_disasm(0xFC000000, 0, t, sizeof t); /* opcode 0x3F */
    NPK_CHECK_EQ_STR(t, ".word 0xfc000000  # illegal: reserved opcode 0x3f");
    toy_disasm(0x00000001, 0, t, sizeof t); /* nop uses no field */
    NPK_CHECK_EQ_STR(t, ".word 0x00000001  # illegal: nop with nonzero bits in unused fields "
                        "(0x00000001)");
    toy_disasm(0x28010000, 0, t, sizeof t); /* mul with sat set */
    NPK_CHECK_EQ_STR(t, ".word 0x28010000  # illegal: mul with nonzero bits in unused fields "
                        "(0x00010000)");
    toy_disasm(0x40A10008, 0, t, sizeof t); /* ld with the sat bit */
    NPK_CHECK_CONTAINS(t, "illegal: ld with nonzero bits in unused fields (0x00010000)");
    /* truncation: snprintf semantics */
    char small[8];
    int n = toy_disasm(0x20A70000, 0, small, sizeof small);
    NPK_CHECK_EQ_U64(n, strlen("add.sat r1, r2, r3"));
    NPK_CHECK_EQ_STR(small, "add.sat");
    NPK_CHECK_EQ_U64(toy_disasm(0x20A70000, 0, NULL, 0), 18);
    n = toy_disasm(0xFC000000, 0, small, 1);
    NPK_CHECK_EQ_STR(small, "");
}

/* ---- labels, symbols, data ---------------------------------------------------------------- */

static void test_labels(void)
{
    const char *src = "start:\n"          /* 0 */
                      "        jmp fwd\n"       /* 0x00: offset +3 -> 6C000003 */
                      "back:   nop\n"           /* 0x04 */
                      "        beq r1, r2, back\n" /* 0x08: offset -1 -> 6014FFFF */
                      "fwd:    bne r0, r0, start\n" /* 0x0C: offset -3 -> 6400FFFD */
                      "a: b:   blt r7, r7, after ; two labels\n" /* 0x10 */
                      "        .word end - start, fwd\n"          /* 0x14 */
                      "after:  halt\n"          /* 0x1C */
                      "end:\n";                 /* 0x20 */
    npk_asm_result *r = run(src);
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 0);
    NPK_CHECK_EQ_U64(word_at(r, 0x00), 0x6C000003);
    NPK_CHECK_EQ_U64(word_at(r, 0x04), 0x00000000);
    NPK_CHECK_EQ_U64(word_at(r, 0x08), 0x6014FFFF);
    NPK_CHECK_EQ_U64(word_at(r, 0x0C), 0x6400FFFD);
    /* blt r7, r7 at 0x10 to 0x1C: offset 3; 68000000|00700000|000E0000|0003 */
    NPK_CHECK_EQ_U64(word_at(r, 0x10), 0x687E0003);
    NPK_CHECK_EQ_U64(word_at(r, 0x14), 0x20);
    NPK_CHECK_EQ_U64(word_at(r, 0x18), 0x0C);
    NPK_CHECK_EQ_U64(word_at(r, 0x1C), 0x04000000);
    int64_t v;
    NPK_CHECK(npk_asm_result_lookup(r, "a", &v) && v == 0x10);
    NPK_CHECK(npk_asm_result_lookup(r, "b", &v) && v == 0x10);
    NPK_CHECK(npk_asm_result_lookup(r, "end", &v) && v == 0x20);
    NPK_CHECK(!npk_asm_result_lookup(r, "END", &v)); /* symbols are case-sensitive */
    NPK_CHECK_EQ_U64(npk_asm_result_symbols(r), 7);
    int kind = 0;
    const char *name = npk_asm_result_symbol(r, 0, &v, &kind);
    NPK_CHECK_EQ_STR(name, "start");
    NPK_CHECK(kind == NPK_SYM_LABEL && v == 0);
    NPK_CHECK(npk_asm_result_symbol(r, 7, NULL, NULL) == NULL);
    char text[64];
    npk_dis d;
    npk_dis_init(&d, text, sizeof text);
    npk_dis_puts(&d, "jmp");
    npk_dis_sep(&d);
    npk_dis_addr(&d, 0x0C, r);
    npk_dis_sep(&d);
    npk_dis_addr(&d, 0x10, r); /* two labels: the first defined */
    npk_dis_sep(&d);
    npk_dis_addr(&d, 0x0E, r);
    NPK_CHECK_EQ_STR(text, "jmp fwd, a, 0xe");
    npk_asm_result_free(r);

    /* .equ symbols, forward .equ chains, `.` */
    r = run(".equ A, B + 1\n.equ B, C * 2\n.equ C, 20\nli r1, A\nx: .word ., ., x + 1\n");
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 0);
    NPK_CHECK(npk_asm_result_lookup(r, "A", &v) && v == 41);
    NPK_CHECK(npk_asm_result_lookup(r, "C", &v) && v == 20);
    NPK_CHECK_EQ_U64(word_at(r, 0), 0x10800029); /* li r1, 41 */
    NPK_CHECK_EQ_U64(word_at(r, 4), 4);
    NPK_CHECK_EQ_U64(word_at(r, 8), 8);
    NPK_CHECK_EQ_U64(word_at(r, 12), 5);
    npk_asm_result_free(r);
}

static void test_data(void)
{
    const char *src = ".byte 1, 2, -1, 255\n"     /* 0x00 */
                      ".half 0x1234, -2\n"         /* 0x04 */
                      ".word 0xdeadbeef\n"         /* 0x08 */
                      ".ascii \"ab\", \"c\\n\"\n"  /* 0x0C */
                      ".asciz \"z\"\n"             /* 0x10 */
                      ".space 3, 0xaa\n"           /* 0x12 */
                      ".align 4\n"                 /* 0x15 -> 0x18 */
                      ".zero 2\n"                  /* 0x18 */
                      ".align 8, 0x55\n"           /* 0x1A -> 0x20 */
                      ".org 0x30\n"
                      ".f32 1.5, -0.0, inf, 0x1p-149, nan, -1e-3\n" /* 0x30 */
                      "end:\n";
    static const uint8_t want[] = {
        0x01, 0x02, 0xff, 0xff, 0x34, 0x12, 0xfe, 0xff, 0xef, 0xbe, 0xad, 0xde,
        0x61, 0x62, 0x63, 0x0a, 0x7a, 0x00, 0xaa, 0xaa, 0xaa, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0,
        0x00, 0x00, 0xc0, 0x3f, /* 1.5 */
        0x00, 0x00, 0x00, 0x80, /* -0.0 */
        0x00, 0x00, 0x80, 0x7f, /* inf */
        0x01, 0x00, 0x00, 0x00, /* smallest subnormal */
        0x00, 0x00, 0xc0, 0x7f, /* canonical NaN */
        0x6f, 0x12, 0x83, 0xba, /* -0.001 = 0xBA83126F */
    };
    npk_asm_result *r = run(src);
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 0);
    NPK_CHECK_EQ_U64(npk_asm_result_warnings(r), 0);
    size_t n;
    const uint8_t *b = npk_asm_result_image(r, 0, &n, NULL, NULL);
    NPK_CHECK_EQ_U64(n, sizeof want);
    NPK_CHECK(b && n == sizeof want && memcmp(b, want, n) == 0);
    npk_asm_result_free(r);

    /* .org past the data pads the image; a warning for a float that overflows */
    r = run(".word 1\n.org 0x10\n");
    npk_asm_result_image(r, 0, &n, NULL, NULL);
    NPK_CHECK_EQ_U64(n, 0x10);
    npk_asm_result_free(r);
    r = run(".f32 1e39\n");
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 0);
    NPK_CHECK_EQ_U64(npk_asm_result_warnings(r), 1);
    NPK_CHECK_CONTAINS(npk_asm_result_diag(r),
                       "t.s:1:6: warning: '1e39' overflows f32 and becomes infinity");
    NPK_CHECK_EQ_U64(word_at(r, 0), 0x7f800000);
    npk_asm_result_free(r);
    r = run(".f32 1e-50\n");
    NPK_CHECK_CONTAINS(npk_asm_result_diag(r), "warning: '1e-50' underflows f32 to zero");
    npk_asm_result_free(r);
    /* an element error does not shift later data */
    r = run(".word 1, nosuch, 3\nafter:\n");
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 1);
    npk_asm_result_free(r);
}

/* ---- expressions -------------------------------------------------------------------------- */

static void test_expressions(void)
{
    CHECK_EXPR("1 + 2 * 3", 7);
    CHECK_EXPR("(1 + 2) * 3", 9);
    CHECK_EXPR("1 | 2 ^ 3 & 4", 3);     /* & before ^ before | */
    CHECK_EXPR("1 << 2 + 3", 32);       /* + binds tighter than << */
    CHECK_EXPR("6 & 3 << 1", 6);        /* << binds tighter than & */
    CHECK_EXPR("2 * 3 % 4", 2);         /* left to right */
    CHECK_EXPR("100 / 10 / 5", 2);
    CHECK_EXPR("10 - 4 - 3", 3);
    CHECK_EXPR("-7 / 2", -3);           /* truncating */
    CHECK_EXPR("-7 % 2", -1);
    CHECK_EXPR("7 % -2", 1);
    CHECK_EXPR("-8 >> 1", -4);          /* arithmetic */
    CHECK_EXPR("-1 >> 63", -1);
    CHECK_EXPR("~0", -1);
    CHECK_EXPR("- -5", 5);
    CHECK_EXPR("+5", 5);
    CHECK_EXPR("-~-+1", 0);
    CHECK_EXPR("0x7fffffffffffffff", INT64_MAX);
    CHECK_EXPR("-0x8000000000000000", INT64_MIN);
    CHECK_EXPR("-9223372036854775808", INT64_MIN);
    CHECK_EXPR("-0x7fffffffffffffff - 1", INT64_MIN);
    CHECK_EXPR("0b1010", 10);
    CHECK_EXPR("0B11 + 0X1f", 34);
    CHECK_EXPR("010", 10);              /* no octal */
    CHECK_EXPR("'A' + '\\n'", 75);
    CHECK_EXPR("'\\''", 39);
    CHECK_EXPR("1 << 62", (int64_t)1 << 62);
    CHECK_EXPR("-1 << 63", INT64_MIN);
    CHECK_EXPR("(-0x7fffffffffffffff - 1) % -1", 0);
    CHECK_EXPR("3037000499 * 3037000499", 9223372030926249001);
    CHECK_EXPR("((((((((((1))))))))))", 1);

    CHECK_DIAG(".equ v, 0x7fffffffffffffff + 1", "t.s:1:28: error: integer overflow in '+'");
    CHECK_DIAG(".equ v, -0x7fffffffffffffff - 2", "t.s:1:29: error: integer overflow in '-'");
    CHECK_DIAG(".equ v, 0x100000000 * 0x80000000", "t.s:1:21: error: integer overflow in '*'");
    CHECK_DIAG(".equ v, 3037000500 * -3037000500", "integer overflow in '*'");
    CHECK_DIAG(".equ v, (-0x7fffffffffffffff - 1) / -1", "t.s:1:35: error: integer overflow in '/'");
    CHECK_DIAG(".equ v, -(-0x7fffffffffffffff - 1)", "t.s:1:9: error: integer overflow in '-'");
    CHECK_DIAG(".equ v, 1 << 63", "t.s:1:11: error: integer overflow in '<<'");
    CHECK_DIAG(".equ v, 3 << 62", "integer overflow in '<<'");
    CHECK_DIAG(".equ v, 1 / 0", "t.s:1:11: error: division by zero");
    CHECK_DIAG(".equ v, 1 % (2 - 2)", "t.s:1:11: error: division by zero");
    CHECK_DIAG(".equ v, 1 << 64", "t.s:1:11: error: shift count 64 out of range (0..63)");
    CHECK_DIAG(".equ v, 1 >> -1", "t.s:1:11: error: shift count -1 out of range (0..63)");
    CHECK_DIAG(".equ v, 0xffffffffffffffff",
               "t.s:1:9: error: value 18446744073709551615 does not fit in a signed 64-bit integer");
    CHECK_DIAG(".equ v, 0x8000000000000000 + 0", "does not fit in a signed 64-bit integer");
    CHECK_DIAG(".equ v, 99999999999999999999", "t.s:1:9: error: integer literal '99999999999999999999' is too large");
    CHECK_DIAG(".equ v, 12abc", "t.s:1:9: error: invalid digit 'a' in number '12abc'");
    CHECK_DIAG(".equ v, 0b102", "invalid digit '2' in number '0b102'");
    CHECK_DIAG(".equ v, 0x", "t.s:1:9: error: number '0x' has no digits");
    CHECK_DIAG(".equ v, (1 + 2", "t.s:1:9: error: missing ')'");
    CHECK_DIAG(".equ v, (1 + 2 3)", "t.s:1:16: error: expected ')'");
    CHECK_DIAG(".equ v, 1 +", "t.s:1:12: error: expected an expression at end of line");
    CHECK_DIAG(".equ v, 1 + * 2", "t.s:1:13: error: expected an expression, found '*'");
    CHECK_DIAG(".equ v, 1 $ 2", "t.s:1:11: error: unexpected '$'");
    CHECK_DIAG(".equ v, 1 || 2", "t.s:1:11: error: unexpected '|'");
    CHECK_DIAG(".equ v, ''", "t.s:1:9: error: empty character constant");
    CHECK_DIAG(".equ v, 'ab'", "t.s:1:9: error: unterminated character constant");
    CHECK_DIAG(".equ v, nosuch + 1", "t.s:1:9: error: undefined symbol 'nosuch'");
    CHECK_DIAG(".equ v, r3", "t.s:1:9: error: expected a value, found a register name 'r3'");
    CHECK_DIAG(".equ v, 1\n.equ v, 2", "t.s:2:6: error: redefinition of 'v' (first defined at t.s:1)");
    CHECK_DIAG(".equ a, b\n.equ b, a", "t.s:1:9: error: 'b' cannot be resolved (circular definition?)");
    CHECK_DIAG(".equ 5, 1", "t.s:1:6: error: expected a symbol name after '.equ'");
    CHECK_DIAG(".equ x 1", "t.s:1:8: error: expected ',' before '1'");
    CHECK_DIAG(".equ add, 1", "t.s:1:6: error: 'add' is a mnemonic and cannot be defined");

    /* deep nesting is an error, not a crash */
    char deep[1200];
    size_t o = (size_t)snprintf(deep, sizeof deep, ".equ v, ");
    for (int i = 0; i < 500; i++)
        deep[o++] = '(';
    deep[o++] = '1';
    for (int i = 0; i < 500; i++)
        deep[o++] = ')';
    deep[o] = '\0';
    CHECK_DIAG(deep, "error: expression nested too deeply");
    o = (size_t)snprintf(deep, sizeof deep, ".equ v, ");
    for (int i = 0; i < 500; i++)
        deep[o++] = '-';
    deep[o++] = '1';
    deep[o] = '\0';
    CHECK_DIAG(deep, "error: expression nested too deeply");
}

/* ---- diagnostics --------------------------------------------------------------------------- */

static void test_diagnostics(void)
{
    CHECK_DIAG("foo r1", "t.s:1:1: error: unknown mnemonic 'foo'");
    CHECK_DIAG("add.rtz r1, r2, r3", "t.s:1:4: error: unknown option '.rtz' for 'add'");
    CHECK_DIAG("add.sat.sat r1, r2, r3", "t.s:1:8: error: option '.sat' given twice");
    CHECK_DIAG("add. r1, r2, r3", "t.s:1:4: error: empty option in 'add.'");
    CHECK_DIAG("mul.sat r1, r2, r3", "t.s:1:4: error: option '.sat' is not allowed on 'mul'");
    CHECK_DIAG("add r1, r2", "t.s:1:11: error: 'add' needs 3 operands (rd, rs1, rs2)");
    CHECK_DIAG("st r1", "t.s:1:6: error: 'st' needs 2 operands (rs2, mem)");
    CHECK_DIAG("nop r1", "t.s:1:5: error: 'nop' takes no operands");
    CHECK_DIAG("add r1, r2, r3, r4", "t.s:1:15: error: too many operands: 'add' takes 3 (rd, rs1, rs2)");
    CHECK_DIAG("add r1 r2, r3", "t.s:1:8: error: expected ',' before 'r2'");
    CHECK_DIAG("add r1, 5, r3", "t.s:1:9: error: expected a register, found '5'");
    CHECK_DIAG("add r1, r8, r3", "t.s:1:9: error: register 'r8' out of range (r0..r7)");
    CHECK_DIAG("putc", "t.s:1:5: error: 'putc' needs 1 operand (rs1)");
    CHECK_DIAG("li r1, 32768", "t.s:1:8: error: immediate 32768 out of range (-32768..32767)");
    CHECK_DIAG("lui r1, -1", "t.s:1:9: error: immediate -1 out of range (0..65535)");
    CHECK_DIAG("ld r1, 40000(r2)", "t.s:1:8: error: offset 40000 out of range (-32768..32767)");
    CHECK_DIAG("ld r1, 4[r2]", "t.s:1:9: error: expected '(' and a base register, found '[r2]'");
    CHECK_DIAG("ld r1, 4(r2", "t.s:1:12: error: expected ')' at end of line");
    CHECK_DIAG("ld r1, 4(x)", "t.s:1:10: error: expected a register, found 'x'");
    CHECK_DIAG("jmp 2", "t.s:1:5: error: branch target 0x2 is not 4-byte aligned");
    CHECK_DIAG("jmp 0x40000",
               "t.s:1:5: error: branch target 0x40000 out of range (offset 65536, range -32768..32767)");
    CHECK_DIAG("nop\njmp -0x20008",
               "t.s:2:5: error: branch target -0x20008 out of range (offset -32771, range -32768..32767)");
    CHECK_DIAG("li r1, nosuch", "t.s:1:8: error: undefined symbol 'nosuch'");
    CHECK_DIAG("x: nop\nx: nop", "t.s:2:1: error: redefinition of 'x' (first defined at t.s:1)");
    CHECK_DIAG("add: nop", "t.s:1:1: error: 'add' is a mnemonic and cannot be defined");
    CHECK_DIAG("r7: nop", "t.s:1:1: error: 'r7' is a register name and cannot be defined");
    CHECK_DIAG(".space later\nlater: nop",
               "t.s:1:8: error: 'later' is used before its definition (not allowed here)");
    CHECK_DIAG(".space -1", "t.s:1:8: error: size -1 out of range");
    CHECK_DIAG(".byte 256", "t.s:1:7: error: value 256 out of range (-128..255)");
    CHECK_DIAG(".half -32769", "t.s:1:7: error: value -32769 out of range (-32768..65535)");
    CHECK_DIAG(".word 0x100000000", "t.s:1:7: error: value 4294967296 out of range (-2147483648..4294967295)");
    CHECK_DIAG(".word", "t.s:1:6: error: '.word' needs at least one value");
    CHECK_DIAG(".word 1,", "t.s:1:9: error: expected an expression at end of line");
    CHECK_DIAG(".word 1 2", "t.s:1:9: error: unexpected '2'");
    CHECK_DIAG(".align 3", "t.s:1:8: error: alignment 3 is not a power of two");
    CHECK_DIAG(".align 4, 300", "t.s:1:11: error: fill byte 300 out of range (-128..255)");
    CHECK_DIAG(".org 0x2000000", "t.s:1:1: error: address 0x2000000 is outside 'mem' (0x0..0xffffff)");
    CHECK_DIAG(".space 0x1000001", "t.s:1:1: error: address 0x1000000 is outside 'mem'");
    CHECK_DIAG(".word 1\n.org 0\n.word 2", "t.s:3:1: error: output overlaps earlier output at 0x0");
    /* the first byte already written inside a fill, not its start */
    CHECK_DIAG(".org 6\n.byte 1\n.org 0\n.zero 16", "t.s:4:1: error: output overlaps earlier output at 0x6");
    CHECK_DIAG(".byte 1\nnop", "t.s:2:1: error: instruction at unaligned address 0x1 (use .align 4)");
    CHECK_DIAG(".bogus 1", "t.s:1:1: error: unknown directive '.bogus'");
    CHECK_DIAG("halt\n  .target toy", "t.s:2:3: error: '.target' must come before everything else");
    CHECK_DIAG(".target pccx", "t.s:1:9: error: this source is for target 'pccx', not 'toy'");
    CHECK_DIAG(".ascii \"ab", "t.s:1:8: error: missing closing '\"'");
    CHECK_DIAG(".ascii \"a\\q\"", "t.s:1:10: error: unknown escape sequence '\\q'");
    CHECK_DIAG(".ascii 5", "t.s:1:8: error: expected a string in double quotes");
    CHECK_DIAG(".f32 1.5x", "t.s:1:6: error: invalid floating-point number '1.5x'");
    CHECK_DIAG(".f32 abc", "t.s:1:6: error: invalid floating-point number 'abc'");
    CHECK_DIAG("\x01", "t.s:1:1: error: expected a mnemonic, found '?'");

    /* the full format: location, message, the line (tabs kept) and a caret with tildes */
    npk_asm_result *r = run("nop\n\tli  r1, 99999   # big\n");
    NPK_CHECK_EQ_STR(npk_asm_result_diag(r),
                     "t.s:2:10: error: immediate 99999 out of range (-32768..32767)\n"
                     "\tli  r1, 99999   # big\n"
                     "\t        ^~~~~\n");
    npk_asm_result_free(r);

    /* a 100 kB literal: the quoted token is cut to 32 bytes and "...", so the reason after it
     * stays; the echoed line is the first 160 bytes and "..." (the caret is near the start) */
    static char huge[100020];
    memcpy(huge, "li r1, ", 7);
    memset(huge + 7, '1', 100000);
    strcpy(huge + 100007, " # x\n");
    r = run(huge);
    char want[1024], ones[161];
    memset(ones, '1', sizeof ones - 1);
    ones[160] = '\0';
    snprintf(want, sizeof want,
             "t.s:1:8: error: integer literal '%.32s...' is too large\n"
             "li r1, %.153s...\n"
             "       ^%.152s\n", ones, ones,
             "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~"
             "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~");
    NPK_CHECK_EQ_STR(npk_asm_result_diag(r), want);
    npk_asm_result_free(r);
    /* far into a long line: a window from 40 bytes before the caret, "..." on both sides */
    static char deep[2100];
    memset(deep, ' ', 1000);
    memcpy(deep + 1000, "frob r1", 7);
    memset(deep + 1007, 'x', 1000);
    strcpy(deep + 2007, "\n");
    r = run(deep);
    snprintf(want, sizeof want,
             "t.s:1:1001: error: unknown mnemonic 'frob'\n"
             "...%40sfrob r1%.113s...\n"
             "   %40s^~~~\n", "", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
             "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "");
    NPK_CHECK_EQ_STR(npk_asm_result_diag(r), want);
    npk_asm_result_free(r);

    /* CRLF line ends and a missing final newline */
    r = run("nop\r\nli r1, 1\r\nhalt");
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 0);
    NPK_CHECK_EQ_U64(word_at(r, 8), 0x04000000);
    npk_asm_result_free(r);
    r = run("nop\r\nfoo\r\n");
    NPK_CHECK_EQ_STR(npk_asm_result_diag(r), "t.s:2:1: error: unknown mnemonic 'foo'\nfoo\n^~~\n");
    npk_asm_result_free(r);

    /* all errors of a file are collected; the count is capped */
    r = run("foo\nnop\nbar\n");
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 2);
    npk_asm_result_free(r);
    char many[1024] = "";
    for (int i = 0; i < 60; i++)
        strcat(many, "bad\n");
    r = run(many);
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 60); /* all counted, 50 shown */
    NPK_CHECK_CONTAINS(npk_asm_result_diag(r), "t.s:50:1: error: unknown mnemonic 'bad'");
    NPK_CHECK_CONTAINS(npk_asm_result_diag(r), "t.s: error: too many errors (50), not showing more\n");
    NPK_CHECK(strstr(npk_asm_result_diag(r), "t.s:51:") == NULL);
    npk_asm_result_free(r);

    /* far more forward references than the error limit: the first pass must still see the
     * whole file so that the second resolves them all */
    static char fwd[16384];
    size_t o = 0;
    for (int i = 0; i < 500; i++)
        o += (size_t)snprintf(fwd + o, sizeof fwd - o, "jmp end%d\n", i % 7);
    for (int i = 0; i < 7; i++)
        o += (size_t)snprintf(fwd + o, sizeof fwd - o, "end%d: nop\n", i);
    r = run(fwd);
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 0);
    NPK_CHECK_EQ_U64(word_at(r, 0), 0x6C000000 | 500);       /* jmp end0: +500 words */
    NPK_CHECK_EQ_U64(word_at(r, 4 * 499), 0x6C000000 | 3);   /* 499 % 7 = 2: end2 is word 502 */
    npk_asm_result_free(r);

    /* comments: '#' and ';', not inside strings or character constants */
    r = run("li r1, '#' ; comment\n.ascii \"a;b#c\" # comment\n");
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 0);
    NPK_CHECK_EQ_U64(word_at(r, 0), 0x10800023);
    NPK_CHECK_EQ_U64(word_at(r, 4), 0x23623b61); /* 'a' ';' 'b' '#' */
    npk_asm_result_free(r);
}

/* ---- .include ------------------------------------------------------------------------------- */

static void test_include(void)
{
    static const vfile fs[] = {
        {"dir/defs.s", ".equ LIMIT, 10\n.include \"sub/more.s\"\n"},
        {"dir/sub/more.s", ".equ MORE, LIMIT + 1\n"},
        {"dir/code.s", "li r1, LIMIT\nli r2, MORE\n"},
        {"dir/bad.s", "nop\nbad r1\n"},
        {"dir/self.s", ".include \"self.s\"\n"},
        {"dir/loop1.s", ".include \"loop2.s\"\n"},
        {"dir/loop2.s", ".include \"./loop1.s\"\n"},
        {"dir/up.s", ".include \"../top.s\"\n"},
        {"top.s", ".equ TOP, 1\n"},
        {NULL, NULL}};
    npk_asm_result *r = run_vfs(".include \"defs.s\"\n.include \"code.s\"\n.include \"code.s\"\n"
                                ".include \"up.s\"\n",
                                fs, "dir/main.s");
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 0);
    if (npk_asm_result_errors(r))
        fprintf(stderr, "%s", npk_asm_result_diag(r));
    NPK_CHECK_EQ_U64(word_at(r, 0), 0x1080000A);  /* li r1, 10 */
    NPK_CHECK_EQ_U64(word_at(r, 4), 0x1100000B);  /* li r2, 11 */
    NPK_CHECK_EQ_U64(word_at(r, 8), 0x1080000A);  /* included twice */
    int64_t v;
    NPK_CHECK(npk_asm_result_lookup(r, "TOP", &v) && v == 1);
    npk_asm_result_free(r);

    r = run_vfs("nop\n.include \"bad.s\"\n", fs, "dir/main.s");
    NPK_CHECK_EQ_STR(npk_asm_result_diag(r), "In file included from dir/main.s:2:\n"
                                              "dir/bad.s:2:1: error: unknown mnemonic 'bad'\n"
                                              "bad r1\n"
                                              "^~~\n");
    npk_asm_result_free(r);

    r = run_vfs(".include \"nope.s\"\n", fs, "dir/main.s");
    NPK_CHECK_CONTAINS(npk_asm_result_diag(r), "dir/main.s:1:10: error: cannot read 'dir/nope.s'");
    npk_asm_result_free(r);
    r = run_vfs(".include \"self.s\"\n", fs, "dir/main.s");
    NPK_CHECK_CONTAINS(npk_asm_result_diag(r), "In file included from dir/main.s:1:\n"
                                               "dir/self.s:1:10: error: recursive .include of 'dir/self.s'");
    npk_asm_result_free(r);
    r = run_vfs(".include \"loop1.s\"\n", fs, "dir/main.s");
    NPK_CHECK_CONTAINS(npk_asm_result_diag(r), "recursive .include of 'dir/loop1.s'");
    npk_asm_result_free(r);
    r = run_vfs(".include \"main.s\"\n", fs, "dir/./main.s");
    NPK_CHECK_CONTAINS(npk_asm_result_diag(r), "recursive .include of 'dir/main.s'");
    npk_asm_result_free(r);
    r = run_vfs(".include \"\"\n", fs, "dir/main.s");
    NPK_CHECK_CONTAINS(npk_asm_result_diag(r), "dir/main.s:1:10: error: invalid file name");
    npk_asm_result_free(r);
    r = run_vfs(".include defs.s\n", fs, "dir/main.s");
    NPK_CHECK_CONTAINS(npk_asm_result_diag(r), "error: expected a string in double quotes");
    npk_asm_result_free(r);

    /* a chain deeper than the limit (16) */
    static char texts[20][32];
    static char names[20][16];
    vfile chain[21];
    for (int i = 0; i < 20; i++) {
        snprintf(names[i], sizeof names[i], "c%d.s", i);
        snprintf(texts[i], sizeof texts[i], ".include \"c%d.s\"\n", i + 1);
        chain[i] = (vfile){names[i], texts[i]};
    }
    chain[20] = (vfile){NULL, NULL};
    r = run_vfs(".include \"c0.s\"\n", chain, "main.s");
    NPK_CHECK_CONTAINS(npk_asm_result_diag(r), "c14.s:1:10: error: .include nested too deeply (limit 16)");
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 1);
    npk_asm_result_free(r);
}

/* ---- examples and the malformed golden ------------------------------------------------------ */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf)
        buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static void test_real_include(void)
{
    /* the stdio reader, relative to the including file's directory */
    const char *src = ".include \"../../examples/toy/sum.s\"\n";
    npk_asm_result *r = npk_asm_run(toy_asm_target(), NULL, src, strlen(src),
                                    NPK_SOURCE_DIR "/tests/asm/virtual.s", NULL);
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 0);
    NPK_CHECK_EQ_U64(word_at(r, 24), 0x08100000); /* exit r1 */
    npk_asm_result_free(r);
    src = ".include \"no-such-file.s\"\n";
    r = npk_asm_run(toy_asm_target(), NULL, src, strlen(src), "sub/t.s", NULL);
    NPK_CHECK_EQ_STR(npk_asm_result_diag(r),
                     "sub/t.s:1:10: error: cannot read 'sub/no-such-file.s': No such file or directory\n"
                     ".include \"no-such-file.s\"\n"
                     "         ^~~~~~~~~~~~~~~~\n");
    npk_asm_result_free(r);
}

static void test_examples(void)
{
    npk_asm_result *r;
    /* sum.s, by hand: li r1,0 / li r2,1 / li r3,11 / add r1,r1,r2 / addi r2,r2,1 /
     * bne r2,r3,loop (pc 0x14 -> 0x0C: -2) / exit r1 */
    static const uint32_t sum[] = {0x10800000, 0x11000001, 0x1180000B, 0x20940000,
                                   0x2D200001, 0x6426FFFE, 0x08100000};
    int e = toy_assemble_file(NPK_SOURCE_DIR "/examples/toy/sum.s", stderr, &r);
    NPK_CHECK_EQ_U64(e, 0);
    size_t n;
    npk_asm_result_image(r, 0, &n, NULL, NULL);
    NPK_CHECK_EQ_U64(n, sizeof sum);
    for (size_t i = 0; i < sizeof sum / 4; i++)
        NPK_CHECK_EQ_U64(word_at(r, 4 * i), sum[i]);
    int64_t v;
    NPK_CHECK(npk_asm_result_lookup(r, "N", &v) && v == 10);
    NPK_CHECK(npk_asm_result_lookup(r, "loop", &v) && v == 0x0C);
    npk_asm_result_free(r);

    /* hello.s: li r1, msg (msg = 0x1C) ... then the characters as words */
    e = toy_assemble_file(NPK_SOURCE_DIR "/examples/toy/hello.s", stderr, &r);
    NPK_CHECK_EQ_U64(e, 0);
    NPK_CHECK_EQ_U64(word_at(r, 0), 0x1080001C);
    NPK_CHECK_EQ_U64(word_at(r, 0x08), 0x60200004); /* beq r2, r0, done: 0x08 -> 0x18 */
    NPK_CHECK_EQ_U64(word_at(r, 0x1C), 'H');
    NPK_CHECK_EQ_U64(word_at(r, 0x1C + 11 * 4), '\n');
    npk_asm_result_free(r);

    e = toy_assemble_file(NPK_SOURCE_DIR "/examples/toy/fp.s", stderr, &r);
    NPK_CHECK_EQ_U64(e, 0);
    NPK_CHECK(npk_asm_result_lookup(r, "a", &v));
    NPK_CHECK_EQ_U64(word_at(r, (size_t)v), 0x3FC00000);      /* 1.5 */
    NPK_CHECK_EQ_U64(word_at(r, (size_t)v + 4), 0x40100000);  /* 2.25 */
    NPK_CHECK_EQ_U64(word_at(r, (size_t)v + 8), 0x40800000);  /* 4.0 */
    NPK_CHECK_EQ_U64(word_at(r, 0), 0x40800000 | (uint32_t)v); /* ld r1, a(r0) */
    npk_asm_result_free(r);

    e = toy_assemble_file(NPK_SOURCE_DIR "/examples/toy/demo.s", stderr, &r);
    NPK_CHECK_EQ_U64(e, 0);
    npk_asm_result_free(r);

    e = toy_assemble_file(NPK_SOURCE_DIR "/examples/toy/no-such-file.s", NULL, &r);
    NPK_CHECK_EQ_U64(e, 1);
    NPK_CHECK(r == NULL);
    e = toy_assemble("nop\nfoo\nbar\n", 12, "x.s", NULL, &r);
    NPK_CHECK_EQ_U64(e, 2);
    NPK_CHECK(r == NULL);
    e = toy_assemble("halt\n", 5, NULL, NULL, &r);
    NPK_CHECK_EQ_U64(e, 0);
    NPK_CHECK_EQ_U64(word_at(r, 0), 0x04000000);
    npk_asm_result_free(r);

    /* the malformed program and its golden diagnostics */
    size_t len;
    char *src = slurp(NPK_SOURCE_DIR "/tests/asm/malformed.s", &len);
    char *want = slurp(NPK_SOURCE_DIR "/tests/asm/malformed.expected", NULL);
    NPK_CHECK(src && want);
    if (src && want) {
        r = npk_asm_run(toy_asm_target(), NULL, src, len, "malformed.s", NULL);
        NPK_CHECK_EQ_STR(npk_asm_result_diag(r), want);
        npk_asm_result_free(r);
    }
    free(src);
    free(want);
}

/* ---- listing -------------------------------------------------------------------------------- */

static void test_listing(void)
{
    FILE *f = tmpfile();
    NPK_CHECK(f != NULL);
    if (!f)
        return;
    npk_asm_opts o = {0};
    o.listing = f;
    const char *src = "start: li r1, 5\n.byte 1, 2, 3, 4, 5, 6, 7, 8, 9\n";
    npk_asm_result *r = npk_asm_run(toy_asm_target(), NULL, src, strlen(src), "l.s", &o);
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 0);
    npk_asm_result_free(r);
    rewind(f);
    char buf[512];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    NPK_CHECK_EQ_STR(buf, "00000000  10800005               l.s:1: start: li r1, 5\n"
                          "00000004  04030201 08070605 ...  l.s:2: .byte 1, 2, 3, 4, 5, 6, 7, 8, 9\n");
}

/* ---- round trips ----------------------------------------------------------------------------- */

/* An oracle for legality built straight from isa.def, independent of the glue. */
static const struct {
    const char *name;
    unsigned lsb, width;
} o_fields[] = {
#define TOY_FIELD(name, lsb, width) {#name, lsb, width},
#include "targets/toy/isa.def"
};
static const struct {
    const char *name, *field, *field2;
} o_operands[] = {
#define TOY_OPERAND(name, kind, field, field2) {#name, #field, #field2},
#include "targets/toy/isa.def"
};
static const struct {
    const char *name, *field;
} o_options[] = {
#define TOY_OPTION(name, field) {#name, #field},
#include "targets/toy/isa.def"
};
static const struct {
    unsigned opcode;
    const char *operands, *options;
} o_insns[] = {
#define TOY_INSN(id, mnemonic, opcode, operands, options, unit, summary) {opcode, operands, options},
#include "targets/toy/isa.def"
};
#define N_INSNS (sizeof o_insns / sizeof o_insns[0])

static uint32_t o_field(const char *name)
{
    for (size_t i = 0; i < sizeof o_fields / sizeof o_fields[0]; i++)
        if (strcmp(o_fields[i].name, name) == 0)
            return (uint32_t)((((uint64_t)1 << o_fields[i].width) - 1) << o_fields[i].lsb);
    return 0;
}

static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

/* Mask of the bits instruction i may use; 0 if no instruction has the opcode. */
static uint32_t o_used(uint32_t w, int *insn)
{
    unsigned opc = w >> 26;
    for (size_t i = 0; i < N_INSNS; i++) {
        if (o_insns[i].opcode != opc)
            continue;
        uint32_t m = o_field("OPC");
        for (size_t k = 0; k < sizeof o_operands / sizeof o_operands[0]; k++)
            if (in_list(o_insns[i].operands, o_operands[k].name))
                m |= o_field(o_operands[k].field) | o_field(o_operands[k].field2);
        for (size_t k = 0; k < sizeof o_options / sizeof o_options[0]; k++)
            if (in_list(o_insns[i].options, o_options[k].name))
                m |= o_field(o_options[k].field);
        if (insn)
            *insn = (int)i;
        return m;
    }
    return 0;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Disassemble words[i] at base + 4i, assemble all the text at the same addresses and compare.
 * Also checks that the text is `.word` exactly for the words the oracle calls illegal. */
static void roundtrip_batch(const uint32_t *words, size_t n, uint32_t base, unsigned long *bad)
{
    size_t cap = n * 160 + 64, o = 0; /* a line is at most ~100 characters */
    char *src = malloc(cap);
    if (!src) {
        NPK_CHECK(0);
        return;
    }
    o += (size_t)snprintf(src + o, cap - o, ".org 0x%x\n", base);
    for (size_t i = 0; i < n; i++) {
        int len = toy_disasm(words[i], base + 4 * (uint32_t)i, src + o, cap - o);
        bool illegal = o_used(words[i], NULL) == 0 || (words[i] & ~o_used(words[i], NULL));
        bool says_word = strncmp(src + o, ".word ", 6) == 0;
        if (illegal != says_word && (*bad)++ < 5)
            fprintf(stderr, "legality of 0x%08x: oracle %d, text \"%s\"\n", words[i], illegal,
                    src + o);
        o += (size_t)len;
        src[o++] = '\n';
    }
    src[o] = '\0';
    npk_asm_result *r = npk_asm_run(toy_asm_target(), NULL, src, o, "rt.s", NULL);
    if (!r || npk_asm_result_errors(r)) {
        if ((*bad)++ < 5)
            fprintf(stderr, "round trip batch failed:\n%.2000s\n", r ? npk_asm_result_diag(r) : "");
    } else {
        for (size_t i = 0; i < n; i++) {
            uint32_t got = word_at(r, base + 4 * i);
            if (got != words[i] && (*bad)++ < 5)
                fprintf(stderr, "round trip 0x%08x -> 0x%08x\n", words[i], got);
        }
    }
    npk_asm_result_free(r);
    free(src);
}

static void test_roundtrip_opcodes(void)
{
    enum { PER = 512 };
    uint32_t *w = malloc(N_INSNS * PER * 2 * sizeof *w);
    if (!w)
        return;
    size_t n = 0;
    unsigned long bad = 0;
    for (size_t i = 0; i < N_INSNS; i++) {
        uint32_t probe = (uint32_t)o_insns[i].opcode << 26;
        uint32_t used = o_used(probe, NULL);
        for (int k = 0; k < PER; k++) {
            uint32_t legal = probe | ((uint32_t)rnd() & used & ~o_field("OPC"));
            char t[128];
            toy_disasm(legal, 0, t, sizeof t);
            if (strncmp(t, ".word", 5) == 0 && bad++ < 5)
                fprintf(stderr, "legal word 0x%08x disassembles as %s\n", legal, t);
            w[n++] = legal;
            uint32_t spare = ~used;
            if (spare) { /* one random reserved bit set: illegal */
                uint32_t bit;
                do
                    bit = (uint32_t)1 << (rnd() % 32);
                while (!(bit & spare));
                w[n++] = legal | bit;
            }
        }
    }
    uint32_t base = (uint32_t)(rnd() % 0x40000) * 4;
    roundtrip_batch(w, n, base, &bad);
    roundtrip_batch(w, n, 0, &bad);
    NPK_CHECK_EQ_U64(bad, 0);
    free(w);
}

static void test_roundtrip_strided(void)
{
    enum { BATCH = 65536 };
    uint32_t *w = malloc(BATCH * sizeof *w);
    if (!w)
        return;
    unsigned long bad = 0, total = 0, legal = 0;
    uint64_t x = 0;
    while (x <= 0xFFFFFFFFu) {
        size_t n = 0;
        for (; n < BATCH && x <= 0xFFFFFFFFu; x += 4099) {
            w[n++] = (uint32_t)x;
            uint32_t u = o_used((uint32_t)x, NULL);
            legal += u && !((uint32_t)x & ~u);
        }
        roundtrip_batch(w, n, 0, &bad);
        total += n;
    }
    NPK_CHECK_EQ_U64(total, 0xFFFFFFFFu / 4099 + 1);
    NPK_CHECK(legal > 0);
    NPK_CHECK_EQ_U64(bad, 0);
    free(w);
}

int main(void)
{
    test_encodings();
    test_disasm_illegal();
    test_labels();
    test_data();
    test_expressions();
    test_diagnostics();
    test_include();
    test_real_include();
    test_examples();
    test_listing();
    test_roundtrip_opcodes();
    test_roundtrip_strided();
    return npk_test_done();
}
