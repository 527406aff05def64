/* Fuzz the ELF loader with rvnpu machines: npk_elf_segments (with a full and a two-entry
 * segment table), then npk_load_elf, a symbol lookup, the code segments disassembled and a
 * 4096-instruction run. RAM is 1 MiB, the size the SDK links firmware for. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return -1;
    npk_machine *m = fuzz_machine("rvnpu:ram_size=1M");
    npk_elf_segment seg[NPK_ELF_MAX_SEGMENTS];
    size_t n_seg = 0;
    uint64_t entry = 0;
    if (npk_elf_segments(m, data, size, "fuzz.elf", seg, 2, &n_seg, &entry) == NPK_OK &&
        n_seg > 2)
        fuzz_fail("npk_elf_segments returned more segments than asked for", NULL);
    if (npk_elf_segments(m, data, size, "fuzz.elf", seg, NPK_ELF_MAX_SEGMENTS, &n_seg,
                         &entry) == NPK_OK) {
        for (size_t i = 0; i < n_seg; i++) {
            const uint8_t *b = seg[i].bytes;
            if (seg[i].filesz && (b < data || b > data + size || seg[i].filesz > size ||
                                  (size_t)(b - data) > size - seg[i].filesz))
                fuzz_fail("npk_elf_segments: a segment outside the file", NULL);
            if (seg[i].exec)
                fuzz_disasm_words(m, b, seg[i].filesz, seg[i].vaddr);
        }
    }
    if (npk_load_elf(m, data, size, "fuzz.elf") == NPK_OK) {
        uint64_t v;
        npk_symbol(m, "_start", &v);
        npk_symbol(m, "main", &v);
        fuzz_run(m, 4096, size & 1);
    }
    fuzz_check_str(npk_error(m), 1024, "npk_error");
    npk_destroy(m);
    return 0;
}
