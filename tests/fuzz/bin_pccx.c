/* Fuzz the pccx binary path: a raw image of 64-bit words is loaded, disassembled word by word
 * (the first FUZZ_DISASM_WORDS, fuzz.h) and run for at most 64 instructions (no weights are
 * queued, so GEMV/GEMM fault or stall cheaply). Byte 0 picks the profile (base/ext), the decode
 * mode (strict/hw-compat) and the host DDR size (bit 7: run with statistics and a trace). */
#include "fuzz.h"

#include "npukit/pccx.h"

/* Element work of a run: a CVO reads and writes up to 65,535 BF16 elements, one soft-float
 * operation each, and c6's grown corpus averaged 257 K CVO elements an input (80 executions
 * a second). pccx has no branches and every word counts against the budget (a dropped one
 * too), so word i is the i-th instruction: the budget is the longest prefix (at most 64
 * words, at least 1) whose CVO lengths sum to at most FUZZ_PCCX_CVO_WORK, two full-length
 * CVOs. A CVO of any length still runs (first, or after short ones), and so do 64 short
 * ones; only the repetition of long ones is cut. Measured on 300 of those inputs: 6.7 s
 * instead of 20.6 to 26.6 (docs/reliability.md, "bin_pccx on ..."). */
#define FUZZ_PCCX_CVO_WORK ((uint64_t)1 << 17)

static uint64_t pccx_budget(const uint8_t *image, size_t n)
{
    uint64_t work = 0, b = 0;
    for (; b < 64 && 8 * b + 8 <= n; b++) {
        uint64_t w = 0;
        for (int k = 0; k < 8; k++)
            w |= (uint64_t)image[8 * b + k] << (8 * k);
        pccx_insn_t d;
        pccx_decode(w, 1, &d);
        if (d.opcode == PCCX_OP_CVO && (work += d.length) > FUZZ_PCCX_CVO_WORK)
            break;
    }
    return b ? b : 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const specs[] = {
        "pccx:host_ddr_bytes=256K", "pccx:ext=1,host_ddr_bytes=64K",
        "pccx:mode=hw-compat,host_ddr_bytes=64K", "pccx:ext=1,mode=hw-compat,host_ddr_bytes=16"};
    enum { N = sizeof specs / sizeof specs[0] };
    if (size < 1)
        return -1;
    return fuzz_bin(specs, N, pccx_budget(data + 1, size - 1), data, size);
}
