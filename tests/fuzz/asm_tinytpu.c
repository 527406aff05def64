/* Fuzz the tinytpu control-word assembler: assemble to a w130 word file, read that back with
 * npk_disasm_text, then load the source and run it for at most 20000 cycles. Programs are
 * capped at 256K cycles (max_cycles): an 8-byte `@2627726` asks for 2.6 M cycles, whose word
 * file takes over 10 s to write under the sanitizers on a loaded machine - linear work, no
 * bug - and the limit's own path (one error, the rest not read) is the same at 256K. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_asm("tinytpu:lanes=2,ub_words=128,max_cycles=256K",
                    "tinytpu:lanes=2,ub_words=128,format=w130,max_cycles=256K",
                    1, 20000, data, size);
}
