/* src/core/elems.c through the public API: npk_elem_size, npk_elems_to_f64 and
 * npk_elems_from_f64 (the rules of `npukit run --write`, docs/run-io.md), and npk_space_data.
 * Encodings derived by hand: bf16 1.5 = 1.1b x 2^0 -> binary32 0x3FC00000 -> 0x3FC0;
 * -2.25 = -1.001b x 2^1 -> 0xC0100000 -> 0xC010; 1 + 2^-8 lies halfway between the bf16
 * neighbours 1 and 1 + 2^-7 -> even -> 1.0 = 0x3F80. q8.8: 1.5 x 256 = 384 = 0x0180,
 * -1/256 -> -1 = 0xFFFF, 0.5/256 lies halfway between 0 and 1/256 -> even -> 0. e4m3 (bias 7,
 * no infinity): 1.0 = 0 0111 000 = 0x38, 448 = 0 1111 110 = 0x7E (largest); e5m2 (bias 15):
 * 1.0 = 0 01111 00 = 0x3C, 57344 = 0 11110 11 = 0x7B (largest finite). */
#include <math.h>
#include <string.h>

#include "npukit/npukit.h"
#include "test.h"

int main(void)
{
    char err[256];
    size_t bad = 99;
    NPK_CHECK(npk_elem_size("i8") == 1 && npk_elem_size("q8.8") == 2 &&
              npk_elem_size("f32") == 4 && npk_elem_size("e5m2") == 1);
    NPK_CHECK(npk_elem_size("f16") == 0 && npk_elem_size("bytes") == 0 &&
              npk_elem_size(NULL) == 0);

    double in[3] = {1.5, -2.25, 1.00390625};
    uint8_t b[8];
    NPK_CHECK(npk_elems_from_f64("bf16", in, 3, b, &bad, err, sizeof err) == NPK_OK);
    static const uint8_t bf[6] = {0xC0, 0x3F, 0x10, 0xC0, 0x80, 0x3F};
    NPK_CHECK(memcmp(b, bf, 6) == 0);
    double out[4];
    NPK_CHECK(npk_elems_to_f64("bf16", bf, 3, out, err, sizeof err) == NPK_OK);
    NPK_CHECK(out[0] == 1.5 && out[1] == -2.25 && out[2] == 1.0);

    double q[3] = {1.5, -0.00390625, 0.001953125};
    NPK_CHECK(npk_elems_from_f64("q8.8", q, 3, b, &bad, err, sizeof err) == NPK_OK);
    NPK_CHECK(b[0] == 0x80 && b[1] == 0x01 && b[2] == 0xFF && b[3] == 0xFF && b[4] == 0 &&
              b[5] == 0);

    double f8[2] = {1.0, 448.0};
    NPK_CHECK(npk_elems_from_f64("e4m3", f8, 2, b, &bad, err, sizeof err) == NPK_OK);
    NPK_CHECK(b[0] == 0x38 && b[1] == 0x7E);
    f8[1] = 57344.0;
    NPK_CHECK(npk_elems_from_f64("e5m2", f8, 2, b, &bad, err, sizeof err) == NPK_OK);
    NPK_CHECK(b[0] == 0x3C && b[1] == 0x7B);
    static const uint8_t e5[2] = {0x7C, 0xFC};   /* +inf, -inf */
    NPK_CHECK(npk_elems_to_f64("e5m2", e5, 2, out, err, sizeof err) == NPK_OK);
    NPK_CHECK(isinf(out[0]) && out[0] > 0 && isinf(out[1]) && out[1] < 0);

    /* integers: whole and in range, decoded signed or not as the type says */
    double ints[2] = {-128, 255};
    NPK_CHECK(npk_elems_from_f64("u8", ints + 1, 1, b, &bad, err, sizeof err) == NPK_OK &&
              b[0] == 0xFF);
    NPK_CHECK(npk_elems_from_f64("i8", ints, 1, b, &bad, err, sizeof err) == NPK_OK &&
              b[0] == 0x80);
    NPK_CHECK(npk_elems_to_f64("i8", b, 1, out, err, sizeof err) == NPK_OK && out[0] == -128);
    NPK_CHECK(npk_elems_to_f64("u8", b, 1, out, err, sizeof err) == NPK_OK && out[0] == 128);

    /* refusals name the element; nothing past it matters */
    double big[2] = {1.0, 500.0};
    NPK_CHECK(npk_elems_from_f64("e4m3", big, 2, b, &bad, err, sizeof err) == NPK_ERR_RANGE);
    NPK_CHECK(bad == 1 && strstr(err, "element 1") && strstr(err, "448"));
    double half = 2.5;
    NPK_CHECK(npk_elems_from_f64("i8", &half, 1, b, &bad, err, sizeof err) == NPK_ERR_RANGE);
    NPK_CHECK(bad == 0 && strstr(err, "not an integer"));
    double over = 300;
    NPK_CHECK(npk_elems_from_f64("i8", &over, 1, b, NULL, err, sizeof err) == NPK_ERR_RANGE);
    NPK_CHECK(strstr(err, "out of range for i8"));
    double nan_ = NAN;
    NPK_CHECK(npk_elems_from_f64("q8.8", &nan_, 1, b, &bad, err, sizeof err) == NPK_ERR_RANGE);
    NPK_CHECK(npk_elems_from_f64("f16", in, 1, b, &bad, err, sizeof err) == NPK_ERR_ARG);
    NPK_CHECK(strstr(err, "unknown element type 'f16'"));

    /* npk_space_data: toy's memory is one block, read-only, following writes */
    npk_machine *m;
    NPK_CHECK(npk_create(&m, "toy", NULL, err, sizeof err) == NPK_OK);
    uint64_t size = 0;
    const uint8_t *p = npk_space_data(m, "mem", &size);
    NPK_CHECK(p && size == 65536);
    uint8_t v = 0x5A;
    NPK_CHECK(npk_mem_write(m, "mem", 0x40, &v, 1) == NPK_OK && p[0x40] == 0x5A);
    NPK_CHECK(npk_space_data(m, "nosuch", &size) == NULL && strstr(npk_error(m), "nosuch"));
    npk_destroy(m);
    /* tinytpu's UB is kept as words: no block, a message that says how to read it */
    NPK_CHECK(npk_create(&m, "tinytpu", NULL, err, sizeof err) == NPK_OK);
    NPK_CHECK(npk_space_data(m, "ub", &size) == NULL && strstr(npk_error(m), "npk_mem_read"));
    npk_destroy(m);
    return npk_test_done();
}
