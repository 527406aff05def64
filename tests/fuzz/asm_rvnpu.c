/* Fuzz the rvnpu assembler (RV32IMF, CSRs, NPU instructions; rev2 is a superset): assemble,
 * disassemble the image, then load and run it for a few thousand steps. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_asm("rvnpu:isa_rev=rev2,ram_size=64K", NULL, 4096, data, size);
}
