/* Fuzz the pccx binary path: a raw image of 64-bit words is loaded, disassembled word by word
 * (the first FUZZ_DISASM_WORDS, fuzz.h) and run for 64 instructions (no weights are queued, so
 * GEMV/GEMM fault or stall cheaply). Byte 0 picks the profile (base/ext), the decode mode
 * (strict/hw-compat) and the host DDR size (bit 7: run with statistics and a trace). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const specs[] = {
        "pccx:host_ddr_bytes=256K", "pccx:ext=1,host_ddr_bytes=64K",
        "pccx:mode=hw-compat,host_ddr_bytes=64K", "pccx:ext=1,mode=hw-compat,host_ddr_bytes=16"};
    return fuzz_bin(specs, sizeof specs / sizeof specs[0], 64, data, size);
}
