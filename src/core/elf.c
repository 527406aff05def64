/* ELF32 little-endian executable loader: validates the header, copies PT_LOAD segments into
 * the target, sets the entry point and collects symbols; warns about e_flags the target cannot
 * honour; lists sections and symbols for disassembly. Every field is bounds-checked against
 * the file size, so a truncated or corrupt file gets a message, never a crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/checked.h"
#include "core/machine.h"

enum { EH_SIZE = 52, PH_SIZE = 32, SH_SIZE = 40, SYM_SIZE = 16 };
enum { PT_LOAD = 1, SHT_SYMTAB = 2, SHT_NOBITS = 8, ET_EXEC = 2 };
enum { SHF_ALLOC = 0x2, SHF_EXECINSTR = 0x4 };

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

const char *npk_elf_machine_name(unsigned em)
{
    switch (em) {
    case 3: return "Intel 80386";
    case 8: return "MIPS";
    case 20: return "PowerPC";
    case 40: return "ARM";
    case 62: return "x86-64";
    case 183: return "AArch64";
    case 243: return "RISC-V";
    default: return "unknown";
    }
}

/* The section header table: NULL with *shnum 0 for a file without one (stripped of section
 * headers: not an error), else checked to lie inside the file. */
static npk_status section_table(npk_machine *m, const uint8_t *b, size_t n, const char *name,
                                const uint8_t **sh, unsigned *shnum)
{
    uint32_t shoff = rd32(b + 32);
    uint16_t shentsize = rd16(b + 46), num = rd16(b + 48);
    *sh = NULL;
    *shnum = 0;
    if (shoff == 0 || num == 0)
        return NPK_OK;
    if (shentsize != SH_SIZE)
        return npk_fail(m, NPK_ERR_FORMAT, "%s: section header size %u, expected %u", name,
                        shentsize, SH_SIZE);
    if (!npk_range_ok(shoff, (uint64_t)num * SH_SIZE, n))
        return npk_fail(m, NPK_ERR_FORMAT,
                        "%s: truncated: section headers at offset %u (%u x %u bytes) extend past "
                        "the end of the file (%zu bytes)",
                        name, shoff, num, SH_SIZE, n);
    *sh = b + shoff;
    *shnum = num;
    return NPK_OK;
}

/* Call fn for every defined NOTYPE, OBJECT or FUNC symbol of the .symtab sections. */
typedef npk_status (*symbol_fn)(void *ctx, const char *sym_name, const uint8_t *sym);

static npk_status each_symbol(npk_machine *m, const uint8_t *b, size_t n, const char *name,
                              symbol_fn fn, void *ctx)
{
    const uint8_t *shtab;
    unsigned shnum;
    npk_status st = section_table(m, b, n, name, &shtab, &shnum);
    for (unsigned i = 0; st == NPK_OK && i < shnum; i++) {
        const uint8_t *sh = shtab + (size_t)i * SH_SIZE;
        if (rd32(sh + 4) != SHT_SYMTAB)
            continue;
        uint32_t off = rd32(sh + 16), size = rd32(sh + 20), link = rd32(sh + 24);
        if (!npk_range_ok(off, size, n) || link >= shnum)
            return npk_fail(m, NPK_ERR_FORMAT, "%s: truncated or corrupt symbol table", name);
        const uint8_t *strh = shtab + (size_t)link * SH_SIZE;
        uint32_t stroff = rd32(strh + 16), strsize = rd32(strh + 20);
        if (!npk_range_ok(stroff, strsize, n) || strsize == 0)
            return npk_fail(m, NPK_ERR_FORMAT, "%s: truncated or corrupt string table", name);
        const char *strtab = (const char *)b + stroff;
        for (uint32_t s = 0; st == NPK_OK && s + SYM_SIZE <= size; s += SYM_SIZE) {
            const uint8_t *sym = b + off + s;
            uint32_t nm = rd32(sym);
            unsigned type = sym[12] & 0xF;
            if (nm == 0 || nm >= strsize || type > 2) /* NOTYPE, OBJECT, FUNC */
                continue;
            if (!memchr(strtab + nm, '\0', strsize - nm))
                return npk_fail(m, NPK_ERR_FORMAT, "%s: unterminated symbol name", name);
            if (rd16(sym + 14) == 0) /* undefined */
                continue;
            st = fn(ctx, strtab + nm, sym);
        }
    }
    return st;
}

static npk_status add_symbol(void *ctx, const char *sym_name, const uint8_t *sym)
{
    return npk_symbol_add_elf(ctx, sym_name, rd32(sym + 4), rd32(sym + 8), (sym[12] >> 4) == 0);
}

static npk_status load_symbols(npk_machine *m, const uint8_t *b, size_t n, const char *name)
{
    return each_symbol(m, b, n, name, add_symbol, m);
}

npk_status npk_elf_segments(npk_machine *m, const void *bytes, size_t n, const char *name,
                             npk_elf_segment *seg, size_t max, size_t *n_seg, uint64_t *entry)
{
    const uint8_t *b = bytes;
    const npk_target *t = m->target;
    *n_seg = 0;
    if (!t->elf_machine)
        return npk_fail(m, NPK_ERR_UNSUPPORTED, "%s: %s: ELF files are not supported by this "
                        "target", name, t->name);
    if (n < 4 || memcmp(b, "\x7f" "ELF", 4) != 0)
        return npk_fail(m, NPK_ERR_FORMAT, "%s: not an ELF file (bad magic)", name);
    if (n < EH_SIZE)
        return npk_fail(m, NPK_ERR_FORMAT,
                        "%s: truncated: %zu bytes, shorter than the 52-byte ELF32 header", name,
                        n);
    if (b[4] != 1)
        return npk_fail(m, NPK_ERR_FORMAT, "%s: ELF class %u is not ELF32 (target %s)", name,
                        b[4], t->name);
    if (b[5] != 1)
        return npk_fail(m, NPK_ERR_FORMAT, "%s: ELF data encoding %u is not little-endian",
                        name, b[5]);
    if (b[6] != 1)
        return npk_fail(m, NPK_ERR_FORMAT, "%s: ELF version %u is not 1", name, b[6]);
    unsigned type = rd16(b + 16), em = rd16(b + 18);
    if (em != t->elf_machine)
        return npk_fail(m, NPK_ERR_FORMAT,
                        "%s: ELF machine %u (%s) does not match target %s (expects %u, %s)",
                        name, em, npk_elf_machine_name(em), t->name, t->elf_machine,
                        npk_elf_machine_name(t->elf_machine));
    if (type != ET_EXEC)
        return npk_fail(m, NPK_ERR_FORMAT, "%s: ELF type %u is not an executable (ET_EXEC)",
                        name, type);
    uint32_t phoff = rd32(b + 28);
    uint16_t phentsize = rd16(b + 42), phnum = rd16(b + 44);
    if (phnum == 0)
        return npk_fail(m, NPK_ERR_FORMAT, "%s: no program headers, nothing to load", name);
    if (phentsize != PH_SIZE)
        return npk_fail(m, NPK_ERR_FORMAT, "%s: program header size %u, expected %u", name,
                        phentsize, PH_SIZE);
    if (!npk_range_ok(phoff, (uint64_t)phnum * PH_SIZE, n))
        return npk_fail(m, NPK_ERR_FORMAT,
                        "%s: truncated: program headers at offset %u (%u x %u bytes) extend "
                        "past the end of the file (%zu bytes)",
                        name, phoff, phnum, PH_SIZE, n);
    size_t count = 0;
    for (unsigned i = 0; i < phnum; i++) {
        const uint8_t *ph = b + phoff + (size_t)i * PH_SIZE;
        if (rd32(ph) != PT_LOAD)
            continue;
        /* executables run where they were linked: p_vaddr (p_paddr is a load address
         * that only matters for ROM images) */
        uint32_t off = rd32(ph + 4), vaddr = rd32(ph + 8), filesz = rd32(ph + 16),
                 memsz = rd32(ph + 20), flags = rd32(ph + 24);
        if (memsz == 0)
            continue;
        if (filesz > memsz)
            return npk_fail(m, NPK_ERR_FORMAT,
                            "%s: segment %u: file size %u exceeds memory size %u", name, i,
                            filesz, memsz);
        /* ELF32 addresses: a segment that runs past 0xFFFFFFFF would wrap to address 0 in a
         * target that computes its end in 32 bits */
        if (!npk_range_ok(vaddr, memsz, UINT64_C(1) << 32))
            return npk_fail(m, NPK_ERR_FORMAT,
                            "%s: segment %u: %u bytes at 0x%x run past the end of the 32-bit "
                            "address space", name, i, memsz, vaddr);
        if (!npk_range_ok(off, filesz, n))
            return npk_fail(m, NPK_ERR_FORMAT,
                            "%s: truncated: segment %u needs bytes %u..%llu but the file has "
                            "%zu",
                            name, i, off, (unsigned long long)off + filesz, n);
        if (count == max)
            return npk_fail(m, NPK_ERR_FORMAT, "%s: more than %zu loadable segments", name,
                            max);
        seg[count++] = (npk_elf_segment){vaddr, b + off, filesz, memsz, (flags & 1) != 0};
    }
    if (!count)
        return npk_fail(m, NPK_ERR_FORMAT, "%s: no loadable (PT_LOAD) segment", name);
    *n_seg = count;
    *entry = rd32(b + 24);
    return NPK_OK;
}

npk_status npk_elf_warnings(npk_machine *m, const void *bytes, size_t n, const char *name,
                            char *out, size_t size)
{
    if (!out || !size)
        return npk_fail(m, NPK_ERR_ARG, "npk_elf_warnings: no room for the text");
    out[0] = '\0';
    name = name ? name : "ELF";
    npk_elf_segment seg[NPK_ELF_MAX_SEGMENTS];
    size_t count;
    uint64_t entry;
    npk_status st = npk_elf_segments(m, bytes, n, name, seg, NPK_ELF_MAX_SEGMENTS, &count,
                                     &entry);
    if (st == NPK_OK && m->target->elf_flags_warnings)
        m->target->elf_flags_warnings(rd32((const uint8_t *)bytes + 36), out, size);
    return st;
}

/* Each line of the target's e_flags warnings on the machine's error stream. */
static void print_warnings(npk_machine *m, const uint8_t *b, const char *name)
{
    if (!m->target->elf_flags_warnings)
        return;
    char text[1024];
    text[0] = '\0';
    m->target->elf_flags_warnings(rd32(b + 36), text, sizeof text);
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(npk_guest_err(m), "npukit: warning: %s: %.*s\n", name, (int)len, p);
        p += len + (nl != NULL);
    }
}

npk_status npk_elf_load(npk_machine *m, const uint8_t *b, size_t n, const char *name)
{
    npk_elf_segment seg[NPK_ELF_MAX_SEGMENTS];
    size_t count;
    uint64_t entry;
    npk_status st = npk_elf_segments(m, b, n, name, seg, NPK_ELF_MAX_SEGMENTS, &count, &entry);
    if (st == NPK_OK)
        print_warnings(m, b, name);
    for (size_t i = 0; st == NPK_OK && i < count; i++)
        st = m->target->load_elf_segment(m, m->state, seg[i].vaddr, seg[i].bytes, seg[i].filesz,
                                         seg[i].memsz);
    if (st != NPK_OK)
        return st;
    const npk_target *t = m->target;
    if (t->set_entry) {
        st = t->set_entry(m, m->state, entry);
        if (st != NPK_OK)
            return st;
    }
    return load_symbols(m, b, n, name);
}

/* ---- sections and symbols (disassembly) ----------------------------------------------------- */

typedef struct symbol_list {
    npk_elf_symbol *v;
    size_t n, cap;
} symbol_list;

static npk_status collect_symbol(void *ctx, const char *sym_name, const uint8_t *sym)
{
    symbol_list *l = ctx;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        npk_elf_symbol *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return NPK_ERR_NOMEM;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = (npk_elf_symbol){sym_name, rd32(sym + 4), rd32(sym + 8), rd16(sym + 14),
                                    (sym[12] >> 4) == 0, (sym[12] & 0xF) == 2};
    return NPK_OK;
}

npk_status npk_elf_sections(npk_machine *m, const void *bytes, size_t n, const char *name,
                            npk_elf_section **sec, size_t *n_sec, npk_elf_symbol **sym,
                            size_t *n_sym)
{
    const uint8_t *b = bytes;
    *sec = NULL;
    *sym = NULL;
    *n_sec = *n_sym = 0;
    name = name ? name : "ELF";
    npk_elf_segment seg[NPK_ELF_MAX_SEGMENTS];
    size_t count;
    uint64_t entry;
    npk_status st = npk_elf_segments(m, b, n, name, seg, NPK_ELF_MAX_SEGMENTS, &count, &entry);
    const uint8_t *shtab = NULL;
    unsigned shnum = 0;
    if (st == NPK_OK)
        st = section_table(m, b, n, name, &shtab, &shnum);
    if (st != NPK_OK || shnum == 0)
        return st;
    /* section names: "" when the file has no usable name table */
    const char *names = NULL;
    uint32_t names_size = 0;
    unsigned shstrndx = rd16(b + 50);
    if (shstrndx != 0 && shstrndx < shnum) {
        const uint8_t *h = shtab + (size_t)shstrndx * SH_SIZE;
        uint32_t off = rd32(h + 16), size = rd32(h + 20);
        if (!npk_range_ok(off, size, n))
            return npk_fail(m, NPK_ERR_FORMAT, "%s: truncated: the section name table needs "
                            "bytes %u..%llu but the file has %zu", name, off,
                            (unsigned long long)off + size, n);
        names = (const char *)b + off;
        names_size = size;
    }
    npk_elf_section *v = calloc(shnum, sizeof *v);
    if (!v)
        return npk_fail(m, NPK_ERR_NOMEM, "%s: out of memory for %u sections", name, shnum);
    for (unsigned i = 0; i < shnum; i++) {
        const uint8_t *h = shtab + (size_t)i * SH_SIZE;
        uint32_t nm = rd32(h), type = rd32(h + 4), flags = rd32(h + 8), addr = rd32(h + 12),
                 off = rd32(h + 16), size = rd32(h + 20);
        const char *sname = "";
        if (names && nm < names_size && memchr(names + nm, '\0', names_size - nm))
            sname = names + nm;
        int alloc = (flags & SHF_ALLOC) != 0;
        if (alloc && !npk_range_ok(addr, size, UINT64_C(1) << 32)) {
            free(v);
            return npk_fail(m, NPK_ERR_FORMAT, "%s: section %u (%s): %u bytes at 0x%x run past "
                            "the end of the 32-bit address space", name, i, sname, size, addr);
        }
        const uint8_t *data = NULL;
        if (type != SHT_NOBITS && i != 0 && size) {
            if (!npk_range_ok(off, size, n)) {
                free(v);
                return npk_fail(m, NPK_ERR_FORMAT, "%s: truncated: section %u (%s) needs bytes "
                                "%u..%llu but the file has %zu", name, i, sname, off,
                                (unsigned long long)off + size, n);
            }
            data = b + off;
        }
        v[i] = (npk_elf_section){sname, addr, data, size, i, alloc,
                                 alloc && (flags & SHF_EXECINSTR) != 0};
    }
    symbol_list l = {NULL, 0, 0};
    st = each_symbol(m, b, n, name, collect_symbol, &l);
    if (st != NPK_OK) {
        free(v);
        free(l.v);
        return st == NPK_ERR_NOMEM ? npk_fail(m, st, "%s: out of memory for symbols", name) : st;
    }
    *sec = v;
    *n_sec = shnum;
    *sym = l.v;
    *n_sym = l.n;
    return NPK_OK;
}
