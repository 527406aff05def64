/* Fuzz the opennpu binary path: a raw image is loaded, disassembled word by word (the first
 * FUZZ_DISASM_WORDS, fuzz.h) and run for 4096 instructions (observed runs: 256). Byte 0 picks
 * the register-file shape (K, L) and the data memory size (bit 7: run with statistics and a
 * trace). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const specs[] = {
        "opennpu:K=8,L=32,mem_size=64K", "opennpu:K=4,L=4,mem_size=4K",
        "opennpu:K=64,L=32,mem_size=64K,mem_latency=3", "opennpu:K=16,L=8,mem_size=1"};
    return fuzz_bin(specs, sizeof specs / sizeof specs[0], 4096, data, size);
}
