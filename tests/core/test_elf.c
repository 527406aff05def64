/* ELF32 loader: a well-formed file built here byte by byte, then every way it can be wrong
 * (truncation at each header, wrong class, endianness, machine, type, segment sizes). The
 * loader is driven through a small test target that records what it is given. */
#include <stdlib.h>
#include <string.h>

#include "core/machine.h"
#include "test.h"

typedef struct fake {
    uint8_t mem[0x4000];
    uint64_t entry;
    unsigned segments;
} fake;

static npk_status fake_create(npk_machine *m, const npk_config *c, void **st)
{
    (void)m;
    (void)c;
    *st = calloc(1, sizeof(fake));
    return *st ? NPK_OK : NPK_ERR_NOMEM;
}

static void fake_destroy(void *st)
{
    free(st);
}

static npk_status fake_segment(npk_machine *m, void *st, uint64_t addr, const uint8_t *b,
                               size_t filesz, uint64_t memsz)
{
    fake *f = st;
    if (addr > sizeof f->mem || memsz > sizeof f->mem - addr)
        return npk_fail(m, NPK_ERR_RANGE, "segment at 0x%llx outside RAM",
                        (unsigned long long)addr);
    memcpy(f->mem + addr, b, filesz);
    memset(f->mem + addr + filesz, 0, memsz - filesz);
    f->segments++;
    return NPK_OK;
}

static npk_status fake_entry(npk_machine *m, void *st, uint64_t pc)
{
    (void)m;
    ((fake *)st)->entry = pc;
    return NPK_OK;
}

static npk_status fake_poke(npk_machine *m, void *st, uint64_t addr, const uint8_t *b,
                            size_t n)
{
    fake *f = st;
    if (addr > sizeof f->mem || n > sizeof f->mem - addr)
        return npk_fail(m, NPK_ERR_RANGE, "0x%llx is outside RAM", (unsigned long long)addr);
    memcpy(f->mem + addr, b, n);
    return NPK_OK;
}

static const npk_target fake_target = {
    .name = "fake", .summary = "ELF loader test target", .insn_bytes = 4,
    .elf_machine = 243, .create = fake_create, .destroy = fake_destroy,
    .load_elf_segment = fake_segment, .set_entry = fake_entry, .poke = fake_poke,
};

static void put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Layout: header @0, 2 program headers @52, segment data @0x80 (8 bytes), string table
 * @0x90, symbol table @0xb0 (3 entries), section headers @0x100 (null, symtab, strtab). */
static size_t build(uint8_t *b)
{
    memset(b, 0, 0x200);
    memcpy(b, "\x7f" "ELF", 4);
    b[4] = 1; /* ELFCLASS32 */
    b[5] = 1; /* little-endian */
    b[6] = 1; /* version */
    put16(b + 16, 2);   /* ET_EXEC */
    put16(b + 18, 243); /* EM_RISCV */
    put32(b + 20, 1);
    put32(b + 24, 0x1004); /* entry */
    put32(b + 28, 52);     /* phoff */
    put32(b + 32, 0x100);  /* shoff */
    put16(b + 40, 52);
    put16(b + 42, 32);
    put16(b + 44, 2);
    put16(b + 46, 40);
    put16(b + 48, 3);
    /* PT_LOAD: 8 file bytes at 0x80 to 0x1000, 16 in memory */
    uint8_t *ph = b + 52;
    put32(ph, 1);
    put32(ph + 4, 0x80);
    put32(ph + 8, 0x1000);  /* p_vaddr: where it goes */
    put32(ph + 12, 0x3000); /* p_paddr: ignored for executables */
    put32(ph + 16, 8);
    put32(ph + 20, 16);
    /* PT_NOTE: ignored */
    put32(ph + 32, 4);
    memcpy(b + 0x80, "\x11\x22\x33\x44\x55\x66\x77\x88", 8);
    memcpy(b + 0x90, "\0_start\0tohost\0", 15);
    /* symbols: null, _start = 0x1004 (FUNC, section 1), tohost = 0x2000 (OBJECT, sec 1) */
    uint8_t *sym = b + 0xb0 + 16;
    put32(sym, 1);
    put32(sym + 4, 0x1004);
    sym[12] = 0x12;
    put16(sym + 14, 1);
    sym += 16;
    put32(sym, 8);
    put32(sym + 4, 0x2000);
    put32(sym + 8, 8); /* st_size */
    sym[12] = 0x11;
    put16(sym + 14, 1);
    uint8_t *sh = b + 0x100 + 40; /* section 1: .symtab, links to section 2 */
    put32(sh + 4, 2);
    put32(sh + 16, 0xb0);
    put32(sh + 20, 48);
    put32(sh + 24, 2);
    sh += 40; /* section 2: .strtab */
    put32(sh + 4, 3);
    put32(sh + 16, 0x90);
    put32(sh + 20, 15);
    return 0x100 + 3 * 40;
}

static npk_status load(npk_machine *m, const uint8_t *b, size_t n)
{
    return npk_load_elf(m, b, n, "t.elf");
}

int main(void)
{
    npk_machine *m;
    char err[256];
    NPK_CHECK(npk_create_for(&m, &fake_target, NULL, NULL, err, sizeof err) == NPK_OK);
    if (!m)
        return npk_test_done();
    fake *f = m->state;
    uint8_t b[0x200], c[0x200];
    size_t n = build(b);

    NPK_CHECK(load(m, b, n) == NPK_OK);
    NPK_CHECK_EQ_U64(f->segments, 1);
    NPK_CHECK_EQ_U64(f->entry, 0x1004);
    NPK_CHECK(memcmp(f->mem + 0x1000, "\x11\x22\x33\x44\x55\x66\x77\x88", 8) == 0);
    NPK_CHECK(f->mem[0x1008] == 0 && f->mem[0x100f] == 0);
    uint64_t v;
    NPK_CHECK(npk_symbol(m, "tohost", &v) == NPK_OK && v == 0x2000);
    NPK_CHECK(npk_symbol(m, "_start", &v) == NPK_OK && v == 0x1004);
    NPK_CHECK(npk_symbol(m, "main", &v) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_error(m), "no symbol 'main'");

    /* input injection over a sized symbol */
    NPK_CHECK(npk_write_symbol(m, "tohost", "\x01\x02\x03", 3) == NPK_OK);
    NPK_CHECK(f->mem[0x2000] == 1 && f->mem[0x2002] == 3);
    NPK_CHECK(npk_write_symbol(m, "tohost", "123456789", 9) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "9 bytes do not fit symbol 'tohost' (8 bytes at 0x2000)");
    NPK_CHECK(npk_write_symbol(m, "_start", "x", 1) == NPK_OK); /* size 0: unchecked */
    NPK_CHECK(npk_write_symbol(m, "nosuch", "x", 1) == NPK_ERR_ARG);
    /* binding: locals lose to a global; two different locals alone are ambiguous */
    NPK_CHECK(npk_symbol_add_elf(m, "buf", 0x100, 4, 1) == NPK_OK);
    NPK_CHECK(npk_symbol(m, "buf", &v) == NPK_OK && v == 0x100);
    NPK_CHECK(npk_symbol_add_elf(m, "buf", 0x200, 4, 1) == NPK_OK);
    NPK_CHECK(npk_symbol(m, "buf", &v) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_error(m), "symbol 'buf' is ambiguous: 2 local symbols");
    NPK_CHECK(npk_symbol_add_elf(m, "buf", 0x300, 4, 0) == NPK_OK);
    NPK_CHECK(npk_symbol(m, "buf", &v) == NPK_OK && v == 0x300);

    /* truncation at every length gives an error naming the problem, never a crash */
    unsigned truncated = 0;
    for (size_t len = 0; len < n; len++) {
        uint8_t *copy = malloc(len ? len : 1); /* exact size so ASan catches overreads */
        memcpy(copy, b, len);
        npk_status st = load(m, copy, len);
        free(copy);
        truncated += st == NPK_ERR_FORMAT;
    }
    NPK_CHECK_EQ_U64(truncated, n);
    NPK_CHECK(load(m, b, 30) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(m), "t.elf: truncated: 30 bytes, shorter than the 52-byte");
    NPK_CHECK(load(m, b, 100) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(m), "truncated: program headers at offset 52");
    NPK_CHECK(load(m, b, 0x84) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(m), "truncated: segment 0 needs bytes 128..136");
    NPK_CHECK(load(m, b, 0x120) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(m), "truncated: section headers");

    memcpy(c, b, n);
    c[4] = 2;
    NPK_CHECK(load(m, c, n) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(m), "ELF class 2 is not ELF32");
    memcpy(c, b, n);
    c[5] = 2;
    NPK_CHECK(load(m, c, n) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(m), "not little-endian");
    memcpy(c, b, n);
    put16(c + 18, 62);
    NPK_CHECK(load(m, c, n) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(m),
                       "ELF machine 62 (x86-64) does not match target fake (expects 243, RISC-V)");
    memcpy(c, b, n);
    put16(c + 16, 3);
    NPK_CHECK(load(m, c, n) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(m), "not an executable");
    memcpy(c, b, n);
    put32(c + 52 + 16, 32); /* filesz > memsz */
    NPK_CHECK(load(m, c, n) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(m), "file size 32 exceeds memory size 16");
    memcpy(c, b, n);
    put32(c + 52 + 8, 0x3ff8); /* the target rejects a segment outside its RAM */
    NPK_CHECK(load(m, c, n) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "outside RAM");
    /* p_vaddr + p_memsz past 0xFFFFFFFF: the core rejects it before any target sees it */
    memcpy(c, b, n);
    put32(c + 52 + 8, 0xFFFFFFF8);
    NPK_CHECK(load(m, c, n) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(m), "segment 0: 16 bytes at 0xfffffff8 run past the end of the "
                                     "32-bit address space");
    memcpy(c, b, n);
    put32(c + 52 + 8, 0xFFFFFFF0); /* ends exactly at 2^32: legal for the core */
    NPK_CHECK(load(m, c, n) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "outside RAM");
    /* p_offset + p_filesz past the end of the file, and wrapping 32 bits */
    memcpy(c, b, n);
    put32(c + 52 + 4, 0xFFFFFFFC);
    NPK_CHECK(load(m, c, n) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(m), "truncated: segment 0 needs bytes 4294967292..4294967300");
    /* e_phoff + e_phnum * e_phentsize wrapping 32 bits */
    memcpy(c, b, n);
    put32(c + 28, 0xFFFFFFF0);
    NPK_CHECK(load(m, c, n) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(m), "truncated: program headers at offset 4294967280");
    memcpy(c, b, n);
    put32(c + 52, 4); /* no PT_LOAD at all */
    NPK_CHECK(load(m, c, n) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(m), "no loadable (PT_LOAD) segment");
    memcpy(c, b, n);
    put32(c + 0x100 + 40 + 20, 0x1000); /* symbol table size beyond the file */
    NPK_CHECK(load(m, c, n) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(m), "corrupt symbol table");
    memcpy(c, b, n);
    c[0x90 + 14] = 'x'; /* string table no longer NUL-terminated */
    NPK_CHECK(load(m, c, n) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(m), "unterminated symbol name");
    NPK_CHECK(load(m, (const uint8_t *)"MZ\x90\x00", 4) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(m), "not an ELF file");

    npk_destroy(m);
    return npk_test_done();
}
