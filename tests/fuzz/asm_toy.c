/* Fuzz the toy assembler (engine directives, labels, expressions): assemble,
 * disassemble the image, then load and run it for a few thousand steps. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_asm("toy:mem=64K", NULL, 4096, data, size);
}
