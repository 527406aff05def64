/* npk_insn_describe: what one instruction is, for every target. tinytpu has no fixed
 * instruction size (insn_bytes 0: programs are text), so it names its per-cycle control word
 * in the format `npukit asm` writes; `npukit info` prints this line. */
#include <stdio.h>
#include <string.h>

#include "npukit/npukit.h"
#include "test.h"

static void check(const char *spec, const char *want)
{
    npk_machine *m;
    char err[256], text[256];
    NPK_CHECK_EQ_U64(npk_create(&m, spec, NULL, err, sizeof err), NPK_OK);
    int len = npk_insn_describe(m, text, sizeof text);
    NPK_CHECK_EQ_STR(text, want);
    NPK_CHECK_EQ_U64(len, strlen(want));
    /* snprintf semantics: a short buffer gets a cut, terminated text and the full length */
    char small[8];
    NPK_CHECK_EQ_U64(npk_insn_describe(m, small, sizeof small), strlen(want));
    NPK_CHECK(strncmp(small, want, 7) == 0 && small[7] == '\0');
    npk_destroy(m);
}

int main(void)
{
    check("toy", "4 bytes (32 bits)");
    check("rvnpu", "4 bytes (32 bits)");
    check("opennpu", "4 bytes (32 bits)");
    check("pccx", "8 bytes (64 bits)");
    check("tinytpu", "one 130-bit control word per cycle (words=w130); programs are text: "
                     "assembly, hex words or a port stream");
    check("tinytpu:words=w88", "one 88-bit control word per cycle (words=w88); programs are "
                               "text: assembly, hex words or a port stream");
    check("tinytpu:words=w94", "one 94-bit control word per cycle (words=w94); programs are "
                               "text: assembly, hex words or a port stream");
    /* wfull: 96 + 17N bits (docs/tinytpu-words.md) */
    check("tinytpu:lanes=4", "one 164-bit control word per cycle (words=wfull); programs are "
                             "text: assembly, hex words or a port stream");
    check("tinytpu:lanes=256", "one 4448-bit control word per cycle (words=wfull); programs "
                               "are text: assembly, hex words or a port stream");
    check("tinytpu:words=port", "one control word per cycle (2 lanes), written as a port "
                                "stream (words=port); programs are text");
    return npk_test_done();
}
