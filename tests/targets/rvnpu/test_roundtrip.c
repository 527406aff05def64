/* rvnpu decode/disassemble/reassemble round trip: every isa.def row with random operand
 * fields, and a strided sweep of the 2^32 words, in both revisions. Every word must
 * disassemble to text that assembles back to it at the same pc; illegal words must come out
 * as `.word`. Words are checked in batches: one source of many lines, assembled once. */
#include <stdlib.h>
#include <string.h>

#include "targets/rvnpu/asm.h"
#include "targets/rvnpu/rvnpu.h"
#include "test.h"

#define BATCH 4096
#define BASE 0x80000000u

static char *src;
static size_t src_cap;

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint32_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* Disassemble words[i] at BASE + 4i, assemble the lot, compare. */
static void batch(const uint32_t *words, size_t n, int rev2)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        char text[200];
        rvnpu_decoded d;
        int legal = rvnpu_decode(words[i], rev2, &d, NULL, 0) == 0;
        rvnpu_disasm(words[i], BASE + 4 * (uint32_t)i, rev2, text, sizeof text);
        if (!legal && strncmp(text, ".word", 5) != 0) {
            npk_test_fail++;
            fprintf(stderr, "illegal 0x%08x disassembles as '%s'\n", words[i], text);
        }
        int w = snprintf(src + len, src_cap - len, "%s\n", text);
        len += (size_t)w;
    }
    npk_asm_result *r;
    if (rvnpu_assemble(src, len, "roundtrip.s", stderr, &r) != 0) {
        npk_test_fail++;
        fprintf(stderr, "batch did not assemble (first word 0x%08x)\n", words[0]);
        return;
    }
    size_t size;
    const uint8_t *img = npk_asm_result_image(r, 0, &size, NULL, NULL);
    if (size != 4 * n) {
        npk_test_fail++;
        fprintf(stderr, "batch image %zu bytes, want %zu\n", size, 4 * n);
    } else {
        for (size_t i = 0; i < n; i++) {
            uint32_t got = (uint32_t)img[4 * i] | (uint32_t)img[4 * i + 1] << 8 |
                           (uint32_t)img[4 * i + 2] << 16 | (uint32_t)img[4 * i + 3] << 24;
            if (got == words[i]) {
                npk_test_pass++;
            } else {
                char text[200];
                rvnpu_disasm(words[i], BASE + 4 * (uint32_t)i, rev2, text, sizeof text);
                npk_test_fail++;
                if (npk_test_fail < 20)
                    fprintf(stderr, "0x%08x -> '%s' -> 0x%08x\n", words[i], text, got);
            }
        }
    }
    npk_asm_result_free(r);
}

int main(void)
{
    src_cap = (size_t)BATCH * 200;
    src = malloc(src_cap);
    uint32_t *words = malloc(BATCH * sizeof *words);
    if (!src || !words)
        return 1;
    for (int rev2 = 0; rev2 < 2; rev2++) {
        /* every row, random fields outside its mask, plus its canonical form */
        size_t n = 0;
        for (unsigned op = 0; op < RVNPU_N_OPS; op++) {
            const rvnpu_insn_info *in = &rvnpu_insns[op];
            for (int k = 0; k < 24; k++) {
                uint32_t w = in->match | (next_rand() & ~in->mask);
                if (k == 0)
                    w = rvnpu_encode_canonical(w, (int)op);
                words[n++] = w;
                if (n == BATCH) {
                    batch(words, n, rev2);
                    n = 0;
                }
            }
        }
        if (n)
            batch(words, n, rev2);
        /* a strided sweep of all 2^32 words */
        n = 0;
        for (uint64_t w = rev2; w <= 0xFFFFFFFFu; w += 16411) {
            words[n++] = (uint32_t)w;
            if (n == BATCH) {
                batch(words, n, rev2);
                n = 0;
            }
        }
        if (n)
            batch(words, n, rev2);
    }
    free(src);
    free(words);
    return npk_test_done();
}
