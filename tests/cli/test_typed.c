/* src/cli/typed.c: element types, text numbers, .npy in and out. Expected encodings are
 * worked out by hand next to each check. */
#include <stdlib.h>
#include <string.h>

#include "cli/typed.h"
#include "test.h"

static npk_vtype T(const char *name)
{
    npk_vtype t = NPK_VT_BYTES;
    NPK_CHECK(npk_vtype_parse(name, strlen(name), &t) == 0);
    return t;
}

/* Parse `tok` as `type`; the encoding little-endian as an integer, or ~0 on an error (the
 * message in last_err). */
static char last_err[256];
static uint64_t enc(const char *type, const char *tok)
{
    npk_vtype t = T(type);
    uint8_t b[8] = {0};
    last_err[0] = '\0';
    if (npk_value_parse(t, tok, b, last_err, sizeof last_err) != 0)
        return ~(uint64_t)0;
    uint64_t v = 0;
    for (size_t i = 0; i < npk_vtype_size(t); i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

static const char *fmt(const char *type, uint64_t v)
{
    static char buf[64];
    npk_vtype t = T(type);
    uint8_t b[8];
    for (size_t i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    npk_value_format(t, b, buf, sizeof buf);
    return buf;
}

#define BAD(type, tok, msg)                                                                 \
    do {                                                                                    \
        NPK_CHECK_EQ_U64(enc(type, tok), ~(uint64_t)0);                                     \
        NPK_CHECK_CONTAINS(last_err, msg);                                                  \
    } while (0)

static void test_names(void)
{
    npk_vtype t;
    NPK_CHECK(npk_vtype_parse("q8.8", 4, &t) == 0 && t == NPK_VT_Q88);
    NPK_CHECK(npk_vtype_parse("f32x", 3, &t) == 0 && t == NPK_VT_F32); /* a prefix length */
    NPK_CHECK(npk_vtype_parse("f16", 3, &t) != 0);
    NPK_CHECK(npk_vtype_parse("bytes", 5, &t) != 0); /* not a type one can name */
    NPK_CHECK_EQ_U64(npk_vtype_size(NPK_VT_E5M2), 1);
    NPK_CHECK_EQ_U64(npk_vtype_size(NPK_VT_BF16), 2);
    NPK_CHECK_EQ_U64(npk_vtype_size(NPK_VT_U32), 4);
}

static void test_integers(void)
{
    NPK_CHECK_EQ_U64(enc("i8", "-128"), 0x80);       /* two's complement */
    NPK_CHECK_EQ_U64(enc("i8", "0x7f"), 0x7f);
    NPK_CHECK_EQ_U64(enc("u8", "255"), 0xff);
    NPK_CHECK_EQ_U64(enc("i16", "-2"), 0xfffe);
    NPK_CHECK_EQ_U64(enc("u16", "65535"), 0xffff);
    NPK_CHECK_EQ_U64(enc("i32", "-2147483648"), 0x80000000);
    NPK_CHECK_EQ_U64(enc("u32", "4294967295"), 0xffffffff);
    BAD("i8", "128", "128 is out of range for i8 (-128 .. 127)");
    BAD("u8", "-1", "-1 is out of range for u8 (0 .. 255)");
    BAD("i32", "-2147483649", "out of range for i32");
    BAD("u32", "4294967296", "out of range for u32 (0 .. 4294967295)");
    BAD("i16", "1.0", "'1.0' is not an integer (type i16)");
    BAD("i16", "", "is not an integer");
    BAD("u8", "99999999999999999999999", "is not an integer"); /* past 2^64 */
    NPK_CHECK_EQ_STR(fmt("i8", 0x80), "-128");
    NPK_CHECK_EQ_STR(fmt("i16", 0xfffe), "-2");
    NPK_CHECK_EQ_STR(fmt("u16", 0xffff), "65535");
    NPK_CHECK_EQ_STR(fmt("i32", 0x80000000), "-2147483648");
    NPK_CHECK_EQ_STR(fmt("u32", 0xffffffff), "4294967295");
}

static void test_floats(void)
{
    /* f32 1.5 = 1.1b x 2^0: exponent 127 (0x7f), fraction 100...0 -> 0x3fc00000 */
    NPK_CHECK_EQ_U64(enc("f32", "1.5"), 0x3fc00000);
    NPK_CHECK_EQ_U64(enc("f32", "-0"), 0x80000000);
    /* 0.1 = 0x3dcccccd in binary32 (RNE of 1.10011001100...b x 2^-4) */
    NPK_CHECK_EQ_U64(enc("f32", "0.1"), 0x3dcccccd);
    NPK_CHECK_EQ_U64(enc("f32", "inf"), 0x7f800000);
    NPK_CHECK_EQ_U64(enc("f32", "-Infinity"), 0xff800000);
    NPK_CHECK_EQ_U64(enc("f32", "nan"), 0x7fc00000); /* the canonical NaN */
    NPK_CHECK_EQ_U64(enc("f32", "0x1p-149"), 0x00000001); /* smallest subnormal */
    BAD("f32", "1e39", "1e39 is out of range for f32 (largest finite 3.4028235e+38)");
    BAD("f32", "1e400", "1e400 is out of range for f32"); /* past binary64 too */
    BAD("f32", "1.5x", "'1.5x' is not a number (type f32)");
    /* bf16: binary32's top half, rounded to nearest even.
     * 1.5 -> 0x3fc0; 1 + 2^-8 lies halfway between 1 (0x3f80, even) and 1 + 2^-7 (0x3f81):
     * 0x3f80; 1 + 3 x 2^-8 lies halfway between 0x3f81 (odd) and 0x3f82 (even): 0x3f82 */
    NPK_CHECK_EQ_U64(enc("bf16", "1.5"), 0x3fc0);
    NPK_CHECK_EQ_U64(enc("bf16", "1.00390625"), 0x3f80);
    NPK_CHECK_EQ_U64(enc("bf16", "1.01171875"), 0x3f82);
    /* 0.1 = f32 0x3dcccccd; its low half 0xcccd is above 0x8000: up to 0x3dcd */
    NPK_CHECK_EQ_U64(enc("bf16", "0.1"), 0x3dcd);
    BAD("bf16", "3.4e38", "out of range for bf16"); /* largest finite 0x7f7f = 3.3895e38 */
    /* e4m3 (bias 7, no infinity): 448 = 1.110b x 2^8 = 0 1111 110 = 0x7e; 464 lies halfway
     * between 448 (fraction 110, even) and 480: 448; 465 overflows. -2^-9 is the smallest
     * subnormal (2^-6 x 1/8), negative: 0x81 */
    NPK_CHECK_EQ_U64(enc("e4m3", "448"), 0x7e);
    NPK_CHECK_EQ_U64(enc("e4m3", "464"), 0x7e);
    BAD("e4m3", "465", "465 is out of range for e4m3 (largest finite 448)");
    BAD("e4m3", "inf", "e4m3 has no infinity");
    NPK_CHECK_EQ_U64(enc("e4m3", "-0.001953125"), 0x81);
    NPK_CHECK_EQ_U64(enc("e4m3", "nan"), 0x7f);
    /* e5m2 (bias 15): -1.5 = 1 01111 10 = 0xbe; 57344 = 1.11b x 2^15 = 0 11110 11 = 0x7b;
     * 61440 lies halfway between 57344 (fraction 11, odd) and 65536: up, which overflows */
    NPK_CHECK_EQ_U64(enc("e5m2", "-1.5"), 0xbe);
    NPK_CHECK_EQ_U64(enc("e5m2", "57344"), 0x7b);
    NPK_CHECK_EQ_U64(enc("e5m2", "inf"), 0x7c);
    BAD("e5m2", "61440", "out of range for e5m2 (largest finite 57344)");
    /* printing: the shortest decimal that reads back to the same bits, whole numbers whole */
    NPK_CHECK_EQ_STR(fmt("f32", 0x3dcccccd), "0.1");
    NPK_CHECK_EQ_STR(fmt("f32", 0x3fc00000), "1.5");
    NPK_CHECK_EQ_STR(fmt("f32", 0x00000001), "1e-45"); /* 2^-149 = 1.4e-45 */
    NPK_CHECK_EQ_STR(fmt("f32", 0x80000000), "-0");
    NPK_CHECK_EQ_STR(fmt("f32", 0xff800000), "-inf");
    NPK_CHECK_EQ_STR(fmt("f32", 0x7fc00000), "nan");
    NPK_CHECK_EQ_STR(fmt("f32", 0x4b800000), "16777216"); /* 2^24 */
    NPK_CHECK_EQ_STR(fmt("bf16", 0x3dcd), "0.1");  /* 0.10009765625, and 0.1 reads back */
    NPK_CHECK_EQ_STR(fmt("e4m3", 0x7e), "448");
    NPK_CHECK_EQ_STR(fmt("e4m3", 0xff), "-nan");
    NPK_CHECK_EQ_STR(fmt("e5m2", 0x7b), "57344");
    NPK_CHECK_EQ_STR(fmt("e5m2", 0x01), "2e-05"); /* 2^-16 = 1.52587890625e-05 */
}

static void test_q88(void)
{
    /* q8.8 = v / 256, rounded half to even. 1.33203125 = 341/256 = 0x155; 0.5/256 lies
     * halfway between 0 and 1: 0; 1.5/256 between 1 and 2: 2 */
    NPK_CHECK_EQ_U64(enc("q8.8", "1.33203125"), 0x0155);
    NPK_CHECK_EQ_U64(enc("q8.8", "0.001953125"), 0x0000);
    NPK_CHECK_EQ_U64(enc("q8.8", "0.005859375"), 0x0002);
    NPK_CHECK_EQ_U64(enc("q8.8", "127.99609375"), 0x7fff);
    NPK_CHECK_EQ_U64(enc("q8.8", "-128"), 0x8000);
    /* -32768.5/256 rounds to -32768 (even): still in range */
    NPK_CHECK_EQ_U64(enc("q8.8", "-128.001953125"), 0x8000);
    BAD("q8.8", "128", "128 is out of range for q8.8 (-128 .. 127.99609375)");
    BAD("q8.8", "-128.0078125", "out of range for q8.8");
    BAD("q8.8", "nan", "q8.8 has no NaN");
    BAD("q8.8", "inf", "out of range for q8.8");
    /* 341/256 = 1.33203125; "1.332" x 256 = 340.992 -> 341, "1.33" -> 340.48 -> 340 */
    NPK_CHECK_EQ_STR(fmt("q8.8", 0x0155), "1.332");
    NPK_CHECK_EQ_STR(fmt("q8.8", 0x8000), "-128");
    NPK_CHECK_EQ_STR(fmt("q8.8", 0xff80), "-0.5");
}

/* Every encoding of the narrow types prints as text that reads back to itself (NaNs: to a
 * NaN); f32 on a sample of bit patterns. */
static void test_round_trip(void)
{
    static const char *const types[] = {"e4m3", "e5m2", "bf16", "q8.8", "i8", "u16"};
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        npk_vtype t = T(types[k]);
        size_t bits = 8 * npk_vtype_size(t);
        unsigned long bad = 0;
        for (uint64_t v = 0; v < (UINT64_C(1) << bits); v++) {
            const char *s = fmt(types[k], v);
            if (strstr(s, "nan"))
                continue;
            if (enc(types[k], s) != v && bad++ < 3)
                fprintf(stderr, "%s 0x%llx -> '%s' -> 0x%llx\n", types[k],
                        (unsigned long long)v, s, (unsigned long long)enc(types[k], s));
        }
        NPK_REPORT(bad == 0, "%s: %lu encodings do not read back\n", types[k], bad);
    }
    unsigned long bad = 0;
    for (uint64_t i = 0, v = 1; i < 200000; i++) {
        v = v * 6364136223846793005u + 1442695040888963407u;
        uint32_t x = (uint32_t)(v >> 32);
        if ((x & 0x7f800000) == 0x7f800000 && (x & 0x7fffff))
            continue;
        bad += enc("f32", fmt("f32", x)) != x;
    }
    NPK_REPORT(bad == 0, "f32: %lu of the sample do not read back\n", bad);
}

/* A .npy v1.0 file: header dict, padded to 64 bytes with '\n' last, then the data. */
static size_t npy(uint8_t *out, const char *dict, const void *data, size_t n)
{
    size_t len = strlen(dict), total = 10 + len + 1;
    size_t pad = (64 - total % 64) % 64, hlen = len + pad + 1;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (uint8_t)hlen;
    out[9] = (uint8_t)(hlen >> 8);
    memcpy(out + 10, dict, len);
    memset(out + 10 + len, ' ', pad);
    out[10 + len + pad] = '\n';
    memcpy(out + 10 + hlen, data, n);
    return 10 + hlen + n;
}

static void test_npy(void)
{
    uint8_t f[512];
    npk_npy a;
    char err[256];
    /* <i2, shape (2, 2): 4 elements, 8 bytes */
    static const uint8_t i2[8] = {0x01, 0x00, 0xff, 0xff, 0x00, 0x80, 0xff, 0x7f};
    size_t n = npy(f, "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 2), }", i2, 8);
    NPK_CHECK(npk_npy_parse(f, n, &a, err, sizeof err) == 0);
    NPK_CHECK_EQ_U64(a.count, 4);
    NPK_CHECK_EQ_U64(a.type, NPK_VT_I16);
    /* 10 bytes of magic, version and length + a 59-byte dict + '\n' = 70, padded to 128 */
    NPK_CHECK(a.data == f + 128);
    /* read without a type: the bytes as they are, typed i16 */
    uint8_t *out;
    size_t on;
    npk_vtype got;
    NPK_CHECK(npk_typed_input("a.npy", f, n, NPK_VT_BYTES, &out, &on, &got, err, sizeof err) == 0);
    NPK_CHECK(on == 8 && got == NPK_VT_I16 && memcmp(out, i2, 8) == 0);
    free(out);
    /* as i32: 1, -1, -32768, 32767 widened */
    NPK_CHECK(npk_typed_input("a.npy", f, n, NPK_VT_I32, &out, &on, &got, err, sizeof err) == 0);
    static const uint8_t i4[16] = {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
                                   0x00, 0x80, 0xff, 0xff, 0xff, 0x7f, 0, 0};
    NPK_CHECK(on == 16 && got == NPK_VT_I32 && memcmp(out, i4, 16) == 0);
    free(out);
    /* as i8: -32768 does not fit */
    NPK_CHECK(npk_typed_input("a.npy", f, n, NPK_VT_I8, &out, &on, &got, err, sizeof err) != 0);
    /* (1 and -1 fit i8: the message is about element 2) */
    NPK_CHECK_CONTAINS(err, "element 2: -32768 is out of range for i8");
    /* as f32: integers are not read as floats */
    NPK_CHECK(npk_typed_input("a.npy", f, n, NPK_VT_F32, &out, &on, &got, err, sizeof err) != 0);
    NPK_CHECK_CONTAINS(err, "a .npy of integers ('<i2') cannot be read as f32");

    /* <f8 [1.5, -2.0] -> bf16 [0x3fc0, 0xc000]; without a type it is refused */
    static const uint8_t f8[16] = {0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0xc0};
    n = npy(f, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", f8, 16);
    NPK_CHECK(npk_typed_input("b.npy", f, n, NPK_VT_BF16, &out, &on, &got, err, sizeof err) == 0);
    NPK_CHECK(on == 4 && out[0] == 0xc0 && out[1] == 0x3f && out[2] == 0x00 && out[3] == 0xc0);
    free(out);
    NPK_CHECK(npk_typed_input("b.npy", f, n, NPK_VT_BYTES, &out, &on, &got, err, sizeof err) != 0);
    NPK_CHECK_CONTAINS(err, "dtype '<f8' has no npukit element type");

    /* the refusals */
    static const struct { const char *dict; size_t bytes; const char *msg; } bad[] = {
        {"{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", 4, "is big-endian"},
        {"{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", 8, "'<c8' is not one"},
        {"{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }", 2, "'<f2' is not one"},
        {"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16, "Fortran"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 8, "promises 3 elements"},
        {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", 4, "structured"},
        {"{'fortran_order': False, 'shape': (1,), }", 4, "not a dict with"},
    };
    static const uint8_t zeros[16] = {0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        n = npy(f, bad[i].dict, zeros, bad[i].bytes);
        err[0] = '\0';
        NPK_CHECK(npk_npy_parse(f, n, &a, err, sizeof err) != 0);
        NPK_CHECK_CONTAINS(err, bad[i].msg);
    }
    /* Fortran order with one long dimension is the same layout: accepted */
    n = npy(f, "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 4), }", zeros, 16);
    NPK_CHECK(npk_npy_parse(f, n, &a, err, sizeof err) == 0 && a.count == 4);
    /* a header length past the end */
    n = npy(f, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", zeros, 4);
    NPK_CHECK(npk_npy_parse(f, 40, &a, err, sizeof err) != 0);
    NPK_CHECK_CONTAINS(err, "runs past the end of the file");
    f[6] = 4;
    NPK_CHECK(npk_npy_parse(f, n, &a, err, sizeof err) != 0);
    NPK_CHECK_CONTAINS(err, "version 4.0");

    /* what npukit writes reads back: 10 + the 57-byte dict + '\n' = 68, padded to 128 bytes
     * ('\n' last), then 3 x 4 bytes */
    FILE *tf = tmpfile();
    NPK_CHECK(tf != NULL);
    if (tf) {
        npk_npy_write_header(tf, "<f4", 3);
        static const uint8_t three[12] = {0};
        fwrite(three, 1, 12, tf);
        rewind(tf);
        size_t got_n = fread(f, 1, sizeof f, tf);
        fclose(tf);
        NPK_CHECK_EQ_U64(got_n, 140);
        NPK_CHECK(f[127] == '\n' && f[8] == 118 && f[9] == 0);
        NPK_CHECK(npk_npy_parse(f, got_n, &a, err, sizeof err) == 0 && a.count == 3 &&
                  a.type == NPK_VT_F32);
    }
    /* bf16 0xc000 (-2) is written as <f4 -2.0 = 0xc0000000; q8.8 0x0180 (1.5) as 0x3fc00000 */
    uint8_t e[4], in[2] = {0x00, 0xc0};
    NPK_CHECK(npk_npy_element(NPK_VT_BF16, in, e) == 4 && e[3] == 0xc0 && e[2] == 0x00);
    in[0] = 0x80, in[1] = 0x01;
    NPK_CHECK(npk_npy_element(NPK_VT_Q88, in, e) == 4 && e[3] == 0x3f && e[2] == 0xc0 &&
              e[1] == 0 && e[0] == 0);
}

static void test_text(void)
{
    uint8_t *out;
    size_t n;
    npk_vtype got;
    char err[256];
    const char *txt = "1, -2\n# a comment, 99\n\t3 0x10\r\n";
    NPK_CHECK(npk_typed_input("n.txt", (const uint8_t *)txt, strlen(txt), NPK_VT_I16, &out, &n,
                              &got, err, sizeof err) == 0);
    static const uint8_t want[8] = {1, 0, 0xfe, 0xff, 3, 0, 0x10, 0};
    NPK_CHECK(n == 8 && memcmp(out, want, 8) == 0);
    free(out);
    txt = "1\n2\n  x\n";
    NPK_CHECK(npk_typed_input("n.txt", (const uint8_t *)txt, strlen(txt), NPK_VT_U8, &out, &n,
                              &got, err, sizeof err) != 0);
    NPK_CHECK_EQ_STR(err, "n.txt:3: 'x' is not an integer (type u8)");
    txt = "# nothing\n";
    NPK_CHECK(npk_typed_input("n.txt", (const uint8_t *)txt, strlen(txt), NPK_VT_F32, &out, &n,
                              &got, err, sizeof err) != 0);
    NPK_CHECK_CONTAINS(err, "n.txt: no numbers");
    /* without a type: the bytes themselves */
    NPK_CHECK(npk_typed_input("r.bin", (const uint8_t *)"ab", 2, NPK_VT_BYTES, &out, &n, &got,
                              err, sizeof err) == 0);
    NPK_CHECK(n == 2 && out[0] == 'a' && got == NPK_VT_BYTES);
    free(out);
    /* a NUL byte in a text of numbers */
    NPK_CHECK(npk_typed_input("z.txt", (const uint8_t *)"1\n2\0003", 5, NPK_VT_U8, &out, &n,
                              &got, err, sizeof err) != 0);
    NPK_CHECK_CONTAINS(err, "z.txt:2: NUL byte");
}

int main(void)
{
    test_names();
    test_integers();
    test_floats();
    test_q88();
    test_round_trip();
    test_npy();
    test_text();
    return npk_test_done();
}
