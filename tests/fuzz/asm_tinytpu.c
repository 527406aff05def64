/* Fuzz the tinytpu control-word assembler: assemble to a w130 word file, read that back with
 * npk_disasm_text, then load the source and run it for at most 20000 cycles. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_asm("tinytpu:lanes=2,ub_words=128,max_cycles=4M",
                    "tinytpu:lanes=2,ub_words=128,format=w130,max_cycles=4M",
                    1, 20000, data, size);
}
