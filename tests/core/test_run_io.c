/* The library calls behind `npukit run`'s inputs and outputs: npk_read_symbol and
 * npk_symbol_size (symbol dumps), npk_reg_is_f32 (--regs), npk_stats_json_stop (the stop in
 * --stats=json). Expected values are worked out next to each check. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "json_check.h"
#include "npukit/npukit.h"
#include "test.h"

static npk_machine *make(const char *spec)
{
    npk_machine *m;
    char err[256];
    if (npk_create(&m, spec, NULL, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "create %s: %s\n", spec, err);
        return NULL;
    }
    return m;
}

static void test_symbols(void)
{
    npk_machine *m = make("toy:mem=1K");
    if (!m)
        return;
    /* two instructions (8 bytes), then data: .word 0x11223344 at 8 */
    NPK_CHECK(npk_load_asm(m, "ld r1, data(r0)\nexit r1\ndata: .word 0x11223344\n", "t.s",
                           stderr) == NPK_OK);
    uint8_t b[4] = {0};
    NPK_CHECK(npk_read_symbol(m, "data", b, 4) == NPK_OK);
    NPK_CHECK(b[0] == 0x44 && b[1] == 0x33 && b[2] == 0x22 && b[3] == 0x11);
    uint64_t size = 99;
    NPK_CHECK(npk_symbol_size(m, "data", &size) == NPK_OK && size == 0); /* a label */
    NPK_CHECK(npk_symbol_size(m, "nosuch", &size) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_error(m), "no symbol 'nosuch'");
    NPK_CHECK(npk_read_symbol(m, "nosuch", b, 4) == NPK_ERR_ARG);
    /* 1017 bytes at 8 end at 1025, past the 1024-byte memory */
    static uint8_t big[1017];
    NPK_CHECK(npk_read_symbol(m, "data", big, sizeof big) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "toy: 1017 bytes at 0x8 do not fit the 1024-byte memory");
    NPK_CHECK(npk_read_symbol(m, "data", big, 1016) == NPK_OK); /* up to the last byte */
    /* what npk_write_symbol writes, npk_read_symbol reads */
    static const uint8_t w[4] = {1, 2, 3, 4};
    NPK_CHECK(npk_write_symbol(m, "data", w, 4) == NPK_OK);
    NPK_CHECK(npk_read_symbol(m, "data", b, 4) == NPK_OK && memcmp(b, w, 4) == 0);
    NPK_CHECK(!npk_reg_is_f32(m, 0) && !npk_reg_is_f32(m, 1)); /* toy has no f registers */
    npk_destroy(m);

    /* a target without program-address reads says so (before it looks for the symbol) */
    m = make("opennpu");
    if (!m)
        return;
    NPK_CHECK(npk_read_symbol(m, "start", b, 1) == NPK_ERR_UNSUPPORTED);
    NPK_CHECK_CONTAINS(npk_error(m), "opennpu: reading symbols is not supported");
    npk_destroy(m);
}

static void test_rvnpu(void)
{
    npk_machine *m = make("rvnpu");
    if (!m)
        return;
    /* fa0 = 0x3fc00000 (1.5), then exit(-1): a0 = 0xffffffff */
    NPK_CHECK(npk_load_asm(m, "li a0, 0x3fc00000\nfmv.w.x fa0, a0\nli a0, -1\nli a7, 93\n"
                              "ecall\n", "r.s", stderr) == NPK_OK);
    size_t fa0 = SIZE_MAX, a0 = SIZE_MAX, nf = 0;
    for (size_t i = 0; i < npk_reg_count(m); i++) {
        if (strcmp(npk_reg(m, i)->name, "fa0") == 0)
            fa0 = i;
        if (strcmp(npk_reg(m, i)->name, "a0") == 0)
            a0 = i;
        nf += (size_t)npk_reg_is_f32(m, i);
    }
    NPK_CHECK(fa0 != SIZE_MAX && npk_reg_is_f32(m, fa0));
    NPK_CHECK(a0 != SIZE_MAX && !npk_reg_is_f32(m, a0));
    NPK_CHECK_EQ_U64(nf, 32); /* f0 .. f31, not fcsr */
    NPK_CHECK(!npk_reg_is_f32(m, npk_reg_count(m))); /* past the end: no */
    npk_stop stop;
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
    uint64_t v;
    NPK_CHECK(npk_reg_read(m, "fa0", &v) == NPK_OK && v == 0x3fc00000);
    /* the assembler's li of a 32-bit constant is always lui + addi (addi a0, a0, 0 here),
     * so the ecall is the sixth word: pc 0x80000014 = 2147483668 */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    NPK_CHECK(npk_stats_json_stop(m, &stop, f) == NPK_OK);
    fclose(f);
    NPK_CHECK(npk_json_check(buf, len) == 0);
    NPK_CHECK_CONTAINS(buf, "\"stop\":{\"reason\":\"exit\",\"exit_code\":-1,\"pc\":2147483668,");
    free(buf);
    /* a budget stop has no exit_code; a message with a newline stays valid JSON */
    stop.reason = NPK_STOP_BUDGET;
    strcpy(stop.message, "two\nlines \"quoted\"");
    buf = NULL;
    f = open_memstream(&buf, &len);
    NPK_CHECK(npk_stats_json_stop(m, &stop, f) == NPK_OK);
    fclose(f);
    NPK_CHECK(npk_json_check(buf, len) == 0);
    NPK_CHECK_CONTAINS(buf, "\"stop\":{\"reason\":\"budget\",\"pc\":");
    NPK_CHECK_CONTAINS(buf, "\"message\":\"two\\u000alines \\\"quoted\\\"\"}");
    NPK_CHECK(strstr(buf, "exit_code") == NULL);
    free(buf);
    /* npk_stats_json: no stop member */
    buf = NULL;
    f = open_memstream(&buf, &len);
    NPK_CHECK(npk_stats_json(m, f) == NPK_OK);
    fclose(f);
    NPK_CHECK(strstr(buf, "\"stop\"") == NULL);
    free(buf);
    npk_destroy(m);
}

int main(void)
{
    test_symbols();
    test_rvnpu();
    return npk_test_done();
}
