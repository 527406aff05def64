/* Fuzz the ELF loader with rvnpu machines: npk_elf_segments (with a full and a two-entry
 * segment table), npk_elf_sections (every section's bytes and every name inside the file)
 * and npk_elf_warnings, then npk_load_elf, a symbol lookup, the code segments disassembled (the
 * first FUZZ_DISASM_WORDS of each, fuzz.h) and a run of fuzz_rvnpu_budget(RAM) instructions
 * (4096 at 64 KiB; observed runs: at most 256).
 * RAM is the smallest power of two from 64 KiB to 1 MiB (the size the SDK links firmware for)
 * that holds every segment and the entry point: a fresh 1 MiB machine (RAM plus a 4 MiB
 * decode cache) costs far more under ASan than the rest of a run, and most mutants need far
 * less. An ELF with a segment outside that 1 MiB gets 1 MiB, so its error is the one a 1 MiB
 * machine gives; one whose segments do not parse fails to load the same way in any RAM and
 * stays on the 64 KiB machine. */
#include "fuzz.h"

#define RAM_BASE 0x80000000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return -1;
    npk_machine *m = fuzz_machine("rvnpu:ram_size=64K");
    npk_elf_segment seg[NPK_ELF_MAX_SEGMENTS];
    size_t n_seg = 0;
    uint64_t entry = 0;
    if (npk_elf_segments(m, data, size, "fuzz.elf", seg, 2, &n_seg, &entry) == NPK_OK &&
        n_seg > 2)
        fuzz_fail("npk_elf_segments returned more segments than asked for", NULL);
    /* RAM bytes the segments and the entry point need; npk_load_elf reads the segments the
     * same way, so when that fails here the load fails the same way in any RAM */
    uint64_t need = 0;
    if (npk_elf_segments(m, data, size, "fuzz.elf", seg, NPK_ELF_MAX_SEGMENTS, &n_seg,
                         &entry) == NPK_OK) {
        if (entry >= RAM_BASE && entry - RAM_BASE < (1u << 20))
            need = entry - RAM_BASE + 4;
        for (size_t i = 0; i < n_seg; i++) {
            const uint8_t *b = seg[i].bytes;
            if (seg[i].filesz && (b < data || b > data + size || seg[i].filesz > size ||
                                  (size_t)(b - data) > size - seg[i].filesz))
                fuzz_fail("npk_elf_segments: a segment outside the file", NULL);
            if (seg[i].exec)
                fuzz_disasm_words(m, b, seg[i].filesz, seg[i].vaddr);
            uint64_t off = seg[i].vaddr - RAM_BASE, end = 1u << 20;
            if (seg[i].vaddr >= RAM_BASE && off <= end && seg[i].memsz <= end - off)
                end = off + seg[i].memsz;
            if (end > need)
                need = end;
        }
    }
    npk_elf_section *sec;
    npk_elf_symbol *sym;
    size_t n_sec, n_sym;
    if (npk_elf_sections(m, data, size, "fuzz.elf", &sec, &n_sec, &sym, &n_sym) == NPK_OK) {
        for (size_t i = 0; i < n_sec; i++) {
            const uint8_t *b = sec[i].bytes;
            if (b && (b < data || sec[i].size > size || (size_t)(b - data) > size - sec[i].size))
                fuzz_fail("npk_elf_sections: a section outside the file", NULL);
            if (sec[i].exec && b)
                fuzz_disasm_words(m, b, (size_t)sec[i].size, sec[i].addr);
            if (strlen(sec[i].name) >= size) /* the sanitizers check the read itself */
                fuzz_fail("npk_elf_sections: a section name longer than the file", NULL);
        }
        for (size_t i = 0; i < n_sym; i++)
            if (strlen(sym[i].name) >= size)
                fuzz_fail("npk_elf_sections: a symbol name longer than the file", NULL);
        npk_free(sec);
        npk_free(sym);
    }
    char warn[1024];
    npk_elf_warnings(m, data, size, "fuzz.elf", warn, sizeof warn);
    fuzz_check_str(warn, sizeof warn, "npk_elf_warnings");
    uint64_t ram = 64u << 10;
    if (need > ram) {
        npk_destroy(m);
        char spec[40];
        ram = 128u << 10;
        while (ram < need)
            ram *= 2;
        snprintf(spec, sizeof spec, "rvnpu:ram_size=%u", (unsigned)ram);
        m = fuzz_machine(spec);
    }
    if (npk_load_elf(m, data, size, "fuzz.elf") == NPK_OK) {
        uint64_t v;
        npk_symbol(m, "_start", &v);
        npk_symbol(m, "main", &v);
        fuzz_run(m, fuzz_rvnpu_budget(ram), size & 1);
    }
    fuzz_check_str(npk_error(m), 1024, "npk_error");
    npk_destroy(m);
    return 0;
}
