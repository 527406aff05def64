/* Fuzz the rvnpu binary path: a raw image is loaded at the RAM base, disassembled word by word
 * (the first FUZZ_DISASM_WORDS, fuzz.h) and run for fuzz_rvnpu_budget(RAM) instructions (4096
 * up to 64 KiB, 256 at 1 MiB; observed runs: at most 256).
 * Byte 0 picks the NPU revision and whether ECALL reaches the host syscalls, and the RAM size:
 * 1 MiB is what the SDK links firmware for by default, 64 KiB what the *_64k seeds are linked
 * for (--defsym=__rvnpu_ram_size=0x10000), and a fresh 64 KiB machine costs far less under
 * ASan than a 1 MiB one with its 4 MiB decode cache (bit 7: run with statistics and a trace). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const specs[] = {
        "rvnpu:isa_rev=seed,ram_size=1M", "rvnpu:isa_rev=rev2,ram_size=1M",
        "rvnpu:isa_rev=seed,ram_size=4K,syscalls=off", "rvnpu:isa_rev=rev2,ram_size=8K",
        "rvnpu:isa_rev=seed,ram_size=64K", "rvnpu:isa_rev=rev2,ram_size=64K"};
    static const uint64_t ram[] = {1u << 20, 1u << 20, 4u << 10, 8u << 10, 64u << 10, 64u << 10};
    uint64_t budgets[sizeof ram / sizeof ram[0]];
    for (size_t i = 0; i < sizeof ram / sizeof ram[0]; i++)
        budgets[i] = fuzz_rvnpu_budget(ram[i]);
    return fuzz_bin_budgets(specs, budgets, sizeof specs / sizeof specs[0], 0, data, size);
}
