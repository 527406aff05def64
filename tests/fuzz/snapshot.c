/* Fuzz snapshot restore (docs/snapshot.md): byte 0 picks the machine (bit 6 clear: toy, rvnpu,
 * opennpu by byte 0 mod 3, as the first seeds were made; bit 6 set: pccx or tinytpu by bit 0),
 * the rest is a snapshot file. A refused snapshot must leave the machine as it was (it still
 * runs its program); an accepted one must run briefly and save again. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const specs[] = {"toy", "rvnpu:ram_size=64K", "opennpu",
                                        "pccx:host_ddr_bytes=64K", "tinytpu"};
    static const char *const progs[] = {"li r1, 3\nexit r1\n", "li a0, 3\nli a7, 93\necall\n",
                                        "nop\n",
                                        "memset fmap, idx=1, a=1, b=8, c=1\nmemcpy.h2l dst=0, aux=0, shape=1\n",
                                        "host1=0x0001\nnop\n"};
    if (size < 1 || size > FUZZ_MAX_INPUT)
        return -1;
    size_t k = data[0] & 0x40 ? 3 + (data[0] & 1) : data[0] % 3;
    npk_machine *m = fuzz_machine(specs[k]);
    if (npk_load_asm(m, progs[k], "fuzz.s", fuzz_null()) != NPK_OK)
        fuzz_fail("seed program does not load", npk_error(m));
    if (npk_snapshot_restore(m, data + 1, size - 1, "fuzz.snap") != NPK_OK)
        fuzz_check_str(npk_error(m), 1024, "npk_error");
    fuzz_run(m, 4096, data[0] & 0x80);
    uint8_t *again = NULL;
    size_t n = 0;
    if (npk_snapshot_save(m, &again, &n) == NPK_OK && !again)
        fuzz_fail("npk_snapshot_save gave no data", NULL);
    npk_free(again);
    npk_destroy(m);
    return 0;
}
