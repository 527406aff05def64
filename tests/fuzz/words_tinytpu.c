/* Fuzz tinytpu's program files that are not assembly: hex word files (w88, w94, w130, wfull)
 * and the port stream. Byte 0 picks the format and the array size (bit 7: run with statistics
 * and a trace); the rest is read back to assembly with npk_disasm_text, then loaded and run
 * for at most 20000 cycles (observed runs: 256, FUZZ_OBSERVED_BUDGET in fuzz.h). Programs stop
 * at 4M cycles (max_cycles), the bound the harness had before the setting existed. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const specs[] = {
        "tinytpu:lanes=2,ub_words=128,format=w88,max_cycles=4M",
        "tinytpu:lanes=2,ub_words=128,format=w94,max_cycles=4M",
        "tinytpu:lanes=2,ub_words=128,format=w130,max_cycles=4M",
        "tinytpu:lanes=2,ub_words=128,format=wfull,max_cycles=4M",
        "tinytpu:lanes=2,ub_words=128,format=port,max_cycles=4M",
        "tinytpu:lanes=4,ub_words=256,format=wfull,max_cycles=4M",
        "tinytpu:lanes=3,ub_words=64,format=port,max_cycles=4M"};
    if (size < 1 || size > FUZZ_MAX_INPUT)
        return -1;
    npk_machine *m = fuzz_machine(specs[(data[0] & 0x7F) % (sizeof specs / sizeof specs[0])]);
    char *text = fuzz_text(data + 1, size - 1);
    npk_disasm_text(m, data + 1, size - 1, "fuzz.words", fuzz_null());
    if (npk_load_asm(m, text, "fuzz.words", fuzz_null()) == NPK_OK)
        fuzz_run(m, 20000, data[0] >> 7);
    free(text);
    npk_destroy(m);
    return 0;
}
