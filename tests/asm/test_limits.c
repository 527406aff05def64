/* Output-space size limits of the assembler engine as each target sets them: output that runs
 * past a space is one error however many statements lie beyond it; opennpu programs are not
 * capped at the engine's 16 MiB default (4,194,304 words); rvnpu's limit follows ram_size. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "asm/asm.h"
#include "npukit/npukit.h"
#include "targets/toy/asm.h"
#include "test.h"

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* `prefix` then `lines` copies of `line`, as one malloc'ed string. */
static char *repeat(const char *prefix, const char *line, size_t lines)
{
    size_t pl = strlen(prefix), ll = strlen(line);
    char *s = malloc(pl + ll * lines + 1);
    if (!s)
        return NULL;
    memcpy(s, prefix, pl);
    for (size_t i = 0; i < lines; i++)
        memcpy(s + pl + i * ll, line, ll);
    s[pl + ll * lines] = '\0';
    return s;
}

/* A toy program whose output runs past the 16 MiB space and stays past it for 1000 more
 * statements: one error, at the first statement that does not fit, naming the limit. */
static void test_overflow_reported_once(void)
{
    char *src = repeat(".space 0xfffffc\nhalt\n", "halt\n", 1000);
    NPK_CHECK(src != NULL);
    if (!src)
        return;
    npk_asm_opts o = {0};
    npk_asm_result *r = npk_asm_run(toy_asm_target(), NULL, src, strlen(src), "big.s", &o);
    NPK_CHECK(r != NULL);
    if (r) {
        const char *d = npk_asm_result_diag(r);
        NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 1);
        NPK_CHECK_EQ_U64(count(d, "error:"), 1);
        NPK_CHECK_CONTAINS(d, "big.s:3:1: error: address 0x1000000 is outside 'mem' "
                              "(0x0..0xffffff): the output is larger than the 16 MiB the "
                              "space holds (output past the end is reported only here)");
        npk_asm_result_free(r);
    }
    /* the same again through `.org` to the end: still one error for the emission, and a
     * .org outside the space is an error of its own statement */
    const char *two = ".org 0x1000000\nhalt\nhalt\n.org 0x2000000\nhalt\n";
    r = npk_asm_run(toy_asm_target(), NULL, two, strlen(two), "org.s", &o);
    NPK_CHECK(r != NULL);
    if (r) {
        const char *d = npk_asm_result_diag(r);
        NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 2);
        NPK_CHECK_CONTAINS(d, "org.s:2:1: error: address 0x1000000 is outside 'mem'");
        NPK_CHECK_CONTAINS(d, "org.s:4:1: error: address 0x2000000 is outside 'mem' "
                              "(0x0..0xffffff)\n");
        NPK_CHECK_EQ_U64(count(d, "error:"), 2);
        npk_asm_result_free(r);
    }
    free(src);
}

/* 4,194,305 words: one more than the old 16 MiB cap held. */
static void test_opennpu_past_16mib(void)
{
    char line[200] = ".word 0";
    for (int i = 1; i < 64; i++)
        strcat(line, ",0");
    strcat(line, "\n");
    char *src = repeat("", line, 65536);
    NPK_CHECK(src != NULL);
    if (!src)
        return;
    size_t n = strlen(src);
    char *full = realloc(src, n + 32);
    NPK_CHECK(full != NULL);
    if (!full) {
        free(src);
        return;
    }
    strcpy(full + n, ".word 0x12345678\n");
    npk_machine *m;
    char err[256];
    NPK_CHECK_EQ_U64(npk_create(&m, "opennpu", NULL, err, sizeof err), NPK_OK);
    uint8_t *image = NULL;
    size_t size = 0;
    NPK_CHECK_EQ_U64(npk_assemble(m, full, "long.s", stderr, &image, &size), NPK_OK);
    NPK_CHECK_EQ_U64(size, 4 * ((UINT64_C(1) << 22) + 1));
    if (image && size == 4 * ((UINT64_C(1) << 22) + 1)) {
        NPK_CHECK_EQ_U64(image[size - 4] | image[size - 3] << 8 | image[size - 2] << 16 |
                             (uint32_t)image[size - 1] << 24,
                         0x12345678);
        NPK_CHECK_EQ_U64(image[size - 8], 0);
    }
    npk_free(image);
    npk_destroy(m);
    free(full);
}

/* rvnpu: a program as large as the RAM set by ram_size assembles (the engine's 16 MiB was
 * the cap before); past it, one error that says which setting raises it. */
static void test_rvnpu_ram_size(void)
{
    const char *src = ".space 0x1800000\nnop\nnop\n";
    npk_machine *m;
    char err[256];
    NPK_CHECK_EQ_U64(npk_create(&m, "rvnpu:ram_size=32M", NULL, err, sizeof err), NPK_OK);
    uint8_t *image = NULL;
    size_t size = 0;
    NPK_CHECK_EQ_U64(npk_assemble(m, src, "big.s", stderr, &image, &size), NPK_OK);
    NPK_CHECK_EQ_U64(size, 0x1800008);
    if (image && size == 0x1800008)
        NPK_CHECK_EQ_U64(image[0x1800000] | image[0x1800001] << 8, 0x0013); /* addi x0,x0,0 */
    npk_free(image);
    npk_destroy(m);

    /* the default RAM (4 MiB): the engine's 16 MiB still holds, so nothing that used to
     * assemble stops assembling; past it one error with the setting */
    NPK_CHECK_EQ_U64(npk_create(&m, "rvnpu", NULL, err, sizeof err), NPK_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *diag = open_memstream(&buf, &len);
    NPK_CHECK_EQ_U64(npk_assemble(m, src, "big.s", diag, &image, &size), NPK_ERR_FORMAT);
    fclose(diag);
    NPK_CHECK_CONTAINS(buf, "big.s:1:1: error: address 0x81000000 is outside 'ram' "
                            "(0x80000000..0x80ffffff): the output is larger than the 16 MiB "
                            "the space holds; set ram_size=SIZE for a larger RAM");
    NPK_CHECK_EQ_U64(count(buf, "error:"), 1);
    free(buf);
    npk_destroy(m);
}

int main(void)
{
    test_overflow_reported_once();
    test_opennpu_past_16mib();
    test_rvnpu_ram_size();
    return npk_test_done();
}
