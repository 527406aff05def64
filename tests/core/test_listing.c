/* npk_set_listing: npk_assemble and npk_load_asm write the target's listing (address or cycle,
 * the words, the line) to the stream set, for every target, and nothing when none is set. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "npukit/npukit.h"
#include "test.h"

typedef struct listing_case {
    const char *spec, *src, *want[3];
} listing_case;

/* Words hand-encoded: toy li r0, 0 (opcode 0x04); RISC-V addi x1, x0, 5 and jal x0, 0; tinytpu
 * w130 with hv0, hv1 (bits 3, 4) and hd0 = 0x0100 at bit 62 (tinytpu spec B5). opennpu and pccx: the
 * address and the line (their words are checked against -f hex by tests/cli/listing_test.sh). */
static const listing_case cases[] = {
    {"toy", "li r0, 0\nhalt\n",
     {"00000000  10000000               t.s:1: li r0, 0\n", "00000004  ", "t.s:2: halt\n"}},
    {"rvnpu", "addi x1, x0, 5\nl: jal x0, l\n",
     {"80000000  00500093               t.s:1: addi x1, x0, 5\n",
      "80000004  0000006f               t.s:2: l: jal x0, l\n", NULL}},
    {"opennpu", "vmovi ve14, 0\nvmovi ve15, 0\n",
     {"00000000  ", "t.s:1: vmovi ve14, 0\n", "00000004  "}},
    {"pccx", "memset fmap, idx=1, a=1, b=64, c=1\n",
     {"00000000  ", "t.s:1: memset fmap, idx=1, a=1, b=64, c=1\n", NULL}},
    {"tinytpu", ".reset\nhost1=0 host0=1.0\n",
     {"1                reset                                 1  .reset\n",
      "2                000000000000000400000000000000018     2  host1=0 host0=1.0\n", NULL}},
};

static void each_target(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const listing_case *c = &cases[i];
        npk_machine *m;
        char err[256];
        NPK_CHECK(npk_create(&m, c->spec, NULL, err, sizeof err) == NPK_OK);
        if (!m)
            continue;
        for (int load = 0; load < 2; load++) {
            char *buf = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&buf, &len);
            npk_set_listing(m, f);
            npk_status st;
            if (load) {
                st = npk_load_asm(m, c->src, "t.s", NULL);
            } else {
                uint8_t *image = NULL;
                size_t n = 0;
                st = npk_assemble(m, c->src, "t.s", NULL, &image, &n);
                npk_free(image);
            }
            fclose(f);
            NPK_REPORT(st == NPK_OK, "%s: %s failed: %s\n", c->spec, load ? "load" : "assemble",
                       npk_error(m));
            for (int k = 0; k < 3 && c->want[k]; k++)
                NPK_REPORT(buf && strstr(buf, c->want[k]), "%s %s: listing lacks \"%s\":\n%s\n",
                           c->spec, load ? "load" : "assemble", c->want[k], buf ? buf : "");
            free(buf);
        }
        /* unset: nothing is written (the stream would be closed by now) */
        npk_set_listing(m, NULL);
        uint8_t *image = NULL;
        size_t n = 0;
        NPK_CHECK(npk_assemble(m, c->src, "t.s", NULL, &image, &n) == NPK_OK);
        npk_free(image);
        npk_destroy(m);
    }
}

int main(void)
{
    each_target();
    return npk_test_done();
}
