/* Fuzz the toy assembler (engine directives, labels, expressions): assemble,
 * disassemble the image, then load the image (fuzz.h: fuzz_asm) and run it for
 * 4096 steps (observed runs: 256). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_asm("toy:mem=64K", NULL, 0, 4096, data, size);
}
