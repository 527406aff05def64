/* The name index (src/asm/names.c) and the symbol tables built on it: the engine's labels
 * and a machine's program symbols. Names that share a slot, tables that grow through many
 * names, duplicates that must still be errors, and NUL bytes in source. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "asm/asm.h"
#include "npukit/npukit.h"
#include "targets/toy/asm.h"
#include "test.h"

static char *names_buf(size_t n, size_t width)
{
    return calloc(n, width);
}

/* Names "kN" whose hashes all land in the same slot of a 64-slot table: each lookup has to
 * walk past the others (and around the end of the table). */
static size_t colliding(char (*out)[16], size_t want, uint64_t slot)
{
    size_t got = 0;
    for (unsigned long i = 0; got < want && i < 10000000; i++) {
        char nm[16];
        int len = snprintf(nm, sizeof nm, "k%lu", i);
        if ((npk_name_hash(nm, (size_t)len) & 63) == slot)
            memcpy(out[got++], nm, (size_t)len + 1);
    }
    return got;
}

static void test_index_collisions(void)
{
    char names[24][16];
    /* slot 63: probes wrap to slot 0 */
    NPK_CHECK_EQ_U64(colliding(names, 24, 63), 24);
    npk_name_index x = {0};
    for (size_t i = 0; i < 24; i++)
        NPK_CHECK_EQ_U64(npk_name_put(&x, names[i], strlen(names[i]), 100 + i), 0);
    NPK_CHECK_EQ_U64(x.cap, 64); /* still the first table: the names really share a slot */
    NPK_CHECK_EQ_U64(x.n, 24);
    for (size_t i = 0; i < 24; i++) {
        size_t v = 0;
        NPK_CHECK(npk_name_find(&x, names[i], strlen(names[i]), &v));
        NPK_CHECK_EQ_U64(v, 100 + i);
    }
    /* a name of the same slot that was never added, and a prefix of an added one */
    char more[25][16];
    colliding(more, 25, 63);
    size_t v = 7;
    NPK_CHECK(!npk_name_find(&x, more[24], strlen(more[24]), &v));
    NPK_CHECK(!npk_name_find(&x, names[3], 1, &v));
    NPK_CHECK_EQ_U64(v, 7);
    /* replacing keeps one entry */
    NPK_CHECK_EQ_U64(npk_name_put(&x, names[5], strlen(names[5]), 555), 0);
    NPK_CHECK_EQ_U64(x.n, 24);
    NPK_CHECK(npk_name_find(&x, names[5], strlen(names[5]), &v));
    NPK_CHECK_EQ_U64(v, 555);
    npk_name_clear(&x);
    NPK_CHECK(!npk_name_find(&x, names[0], strlen(names[0]), &v));
    NPK_CHECK_EQ_U64(npk_name_put(&x, names[0], strlen(names[0]), 1), 0);
    NPK_CHECK(npk_name_find(&x, names[0], strlen(names[0]), &v) && v == 1);
    npk_name_free(&x);
    NPK_CHECK(!npk_name_find(&x, names[0], strlen(names[0]), &v));
}

static void test_index_many(void)
{
    enum { N = 200000 };
    char (*nm)[16] = (char (*)[16])names_buf(N, 16);
    npk_name_index x = {0};
    for (size_t i = 0; i < N; i++) {
        snprintf(nm[i], 16, "l%zu", i);
        if (npk_name_put(&x, nm[i], strlen(nm[i]), i) != 0)
            NPK_CHECK(!"out of memory");
    }
    NPK_CHECK_EQ_U64(x.n, N);
    NPK_CHECK(x.cap > 2 * x.n);
    size_t bad = 0;
    for (size_t i = 0; i < N; i++) {
        size_t v;
        if (!npk_name_find(&x, nm[i], strlen(nm[i]), &v) || v != i)
            bad++;
    }
    NPK_CHECK_EQ_U64(bad, 0);
    size_t v;
    NPK_CHECK(!npk_name_find(&x, "l200000", 7, &v));
    NPK_CHECK(!npk_name_find(&x, "", 0, &v));
    npk_name_free(&x);
    free(nm);
}

/* Source with n labels l0..l(n-1), each a branch to the next one: l(n-1) branches to l0's
 * neighbour l(n-2) so that every offset fits toy's 16-bit field. */
static char *label_source(size_t n, size_t *len)
{
    char *s = malloc(n * 40 + 16);
    size_t o = 0;
    for (size_t i = 0; i < n; i++)
        o += (size_t)sprintf(s + o, "l%zu: beq r0, r0, l%zu\n", i, i + 1 < n ? i + 1 : i - 1);
    *len = o;
    return s;
}

static void test_engine_many_labels(void)
{
    enum { N = 100000 };
    size_t len;
    char *src = label_source(N, &len);
    npk_asm_result *r = npk_asm_run(toy_asm_target(), NULL, src, len, "many.s", NULL);
    NPK_CHECK(r != NULL);
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), 0);
    NPK_CHECK_EQ_U64(npk_asm_result_symbols(r), N);
    int64_t v = -1;
    NPK_CHECK(npk_asm_result_lookup(r, "l0", &v) && v == 0);
    NPK_CHECK(npk_asm_result_lookup(r, "l77777", &v) && v == 4 * 77777);
    NPK_CHECK(npk_asm_result_lookup(r, "l99999", &v) && v == 4 * 99999);
    NPK_CHECK(!npk_asm_result_lookup(r, "l100000", &v));
    /* beq r0, r0, +1 word (toy: opcode 0x18 in bits 31..26, imm in 15..0), and the last
     * one -1 word */
    size_t n = 0;
    const uint8_t *img = npk_asm_result_image(r, 0, &n, NULL, NULL);
    NPK_CHECK_EQ_U64(n, 4 * N);
    if (img && n == 4 * N) {
        uint32_t w0 = (uint32_t)img[0] | (uint32_t)img[1] << 8 | (uint32_t)img[2] << 16 |
                      (uint32_t)img[3] << 24;
        const uint8_t *e = img + 4 * (N - 1);
        uint32_t wl = (uint32_t)e[0] | (uint32_t)e[1] << 8 | (uint32_t)e[2] << 16 |
                      (uint32_t)e[3] << 24;
        NPK_CHECK_EQ_U64(w0 & 0xffff, 1);
        NPK_CHECK_EQ_U64(wl & 0xffff, 0xffff);
        NPK_CHECK_EQ_U64(w0 >> 16, wl >> 16);
    }
    npk_asm_result_free(r);

    /* a duplicate far down the list is still found, with both places */
    strcpy(src + len, "l4242: halt\n");
    r = npk_asm_run(toy_asm_target(), NULL, src, strlen(src), "dup.s", NULL);
    NPK_CHECK(r && npk_asm_result_errors(r) == 1);
    NPK_CHECK_CONTAINS(r ? npk_asm_result_diag(r) : NULL,
                       "dup.s:100001:1: error: redefinition of 'l4242' (first defined at "
                       "dup.s:4243)");
    npk_asm_result_free(r);
    free(src);
}

static void test_engine_colliding_labels(void)
{
    char names[24][16];
    colliding(names, 24, 5);
    char src[2048];
    size_t o = 0;
    for (size_t i = 0; i < 24; i++)
        o += (size_t)sprintf(src + o, "%s: .word %s\n", names[i], names[23 - i]);
    o += (size_t)sprintf(src + o, "%s: halt\n", names[9]);
    npk_asm_result *r = npk_asm_run(toy_asm_target(), NULL, src, o, "c.s", NULL);
    NPK_CHECK(r && npk_asm_result_errors(r) == 1);
    char want[128];
    snprintf(want, sizeof want, "c.s:25:1: error: redefinition of '%s' (first defined at c.s:10)",
             names[9]);
    NPK_CHECK_CONTAINS(r ? npk_asm_result_diag(r) : NULL, want);
    npk_asm_result_free(r);
    o -= strlen(names[9]) + strlen(": halt\n");
    r = npk_asm_run(toy_asm_target(), NULL, src, o, "c.s", NULL);
    NPK_CHECK(r && npk_asm_result_errors(r) == 0);
    size_t n = 0;
    const uint8_t *img = r ? npk_asm_result_image(r, 0, &n, NULL, NULL) : NULL;
    NPK_CHECK_EQ_U64(n, 4 * 24);
    for (size_t i = 0; img && n == 96 && i < 24; i++) {
        int64_t v;
        NPK_CHECK(npk_asm_result_lookup(r, names[i], &v) && v == (int64_t)(4 * i));
        NPK_CHECK_EQ_U64(img[4 * i], 4 * (23 - i)); /* .word of the mirror label */
    }
    npk_asm_result_free(r);
}

/* A machine's symbol table gets every label of a loaded program. */
static void test_machine_symbols(void)
{
    enum { N = 50000 };
    size_t len;
    char *src = label_source(N, &len);
    npk_machine *m = NULL;
    char err[256];
    NPK_CHECK(npk_create(&m, "toy:mem=1M", NULL, err, sizeof err) == NPK_OK);
    if (m) {
        NPK_CHECK(npk_load_asm(m, src, "many.s", stderr) == NPK_OK);
        uint64_t v = 0;
        NPK_CHECK(npk_symbol(m, "l31415", &v) == NPK_OK && v == 4 * 31415);
        NPK_CHECK(npk_symbol(m, "l49999", &v) == NPK_OK && v == 4 * 49999);
        NPK_CHECK(npk_symbol(m, "l50000", &v) != NPK_OK);
        /* loading again replaces the symbols */
        NPK_CHECK(npk_load_asm(m, "x: halt\nl7: halt\n", "two.s", stderr) == NPK_OK);
        NPK_CHECK(npk_symbol(m, "l7", &v) == NPK_OK && v == 4);
        NPK_CHECK(npk_symbol(m, "l31415", &v) != NPK_OK);
        npk_destroy(m);
    }
    free(src);
}

/* The engine refuses a NUL byte inside the text it is given, with its place. */
static void test_nul(void)
{
    const char src[] = "li r1, 1\nli r2,\0 2\nhalt\n";
    npk_asm_result *r =
        npk_asm_run(toy_asm_target(), NULL, src, sizeof src - 1, "nul.s", NULL);
    NPK_CHECK(r && npk_asm_result_errors(r) == 1);
    NPK_CHECK_CONTAINS(r ? npk_asm_result_diag(r) : NULL,
                       "nul.s:2:7: error: NUL byte in source\nli r2,? 2\n      ^\n");
    npk_asm_result_free(r);
    /* the checker for text handed on as a C string */
    FILE *f = tmpfile();
    NPK_CHECK(f != NULL);
    if (f) {
        NPK_CHECK_EQ_U64(npk_asm_check_nul(src, 9, "nul.s", f), 0);
        NPK_CHECK_EQ_U64((uint64_t)npk_asm_check_nul(src, sizeof src - 1, "nul.s", f),
                         (uint64_t)-1);
        char buf[256] = "";
        rewind(f);
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        NPK_CHECK_EQ_STR(buf, "nul.s:2:7: error: NUL byte in source\nli r2,? 2\n      ^\n");
        fclose(f);
    }
    NPK_CHECK_EQ_U64((uint64_t)npk_asm_check_nul("\0", 1, "x", NULL), (uint64_t)-1);
}

int main(void)
{
    test_index_collisions();
    test_index_many();
    test_engine_many_labels();
    test_engine_colliding_labels();
    test_machine_symbols();
    test_nul();
    return npk_test_done();
}
