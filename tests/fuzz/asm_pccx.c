/* Fuzz the pccx assembler on whole program files (host and L2 data, .weight blocks, .wview
 * views, .wpush, .window, .hostsize, .profile): assemble, disassemble the image, then load the
 * program with its weights and run 64 instructions (one GEMM can be long). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_asm("pccx:host_ddr_bytes=1M", NULL, 1, 64, data, size);
}
