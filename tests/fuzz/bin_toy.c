/* Fuzz the toy binary path: a raw image is loaded, disassembled word by word (the first
 * FUZZ_DISASM_WORDS, fuzz.h) and run for 4096 instructions (observed runs: 256). Byte 0 picks
 * the memory size (bit 7: run with statistics and a trace). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const specs[] = {"toy:mem=64K", "toy:mem=256", "toy:mem=16"};
    return fuzz_bin(specs, sizeof specs / sizeof specs[0], 4096, data, size);
}
