/* rvnpu program files as users bring them: raw images of any size (`objcopy -O binary`),
 * ELF e_flags the core cannot honour (warned about, loaded anyway), an ELF's sections and
 * symbols (what `npukit disasm` labels), and assembly that names an NPU instruction of the
 * other revision. ELF files are built here byte by byte; expected values by hand. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "npukit/npukit.h"
#include "test.h"

static npk_machine *make(const char *spec)
{
    npk_machine *m;
    char err[256];
    if (npk_create(&m, spec, NULL, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "create %s: %s\n", spec, err);
        return NULL;
    }
    return m;
}

/* ---- raw images ------------------------------------------------------------------------------ */

static void raw_odd_size(void)
{
    npk_machine *m = make("rvnpu");
    if (!m)
        return;
    NPK_CHECK(npk_raw_pads(m) == 1);
    /* addi a0, zero, 5 (0x00500513); addi a1, zero, 7 (0x00700593) without its last byte (0):
     * 7 bytes. Padded, the second word is whole; the third word is 0, illegal. */
    static const uint8_t img[7] = {0x13, 0x05, 0x50, 0x00, 0x93, 0x05, 0x70};
    /* RAM first dirtied with 0xFF bytes, so the pad byte must really be written as 0 */
    static const uint8_t ff[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    NPK_CHECK(npk_load_raw(m, ff, sizeof ff, 0) == NPK_OK);
    NPK_CHECK(npk_load_raw(m, img, sizeof img, 0) == NPK_OK);
    uint8_t back[8];
    NPK_CHECK(npk_mem_read(m, "ram", 0, back, 8) == NPK_OK);
    NPK_CHECK(memcmp(back, img, 7) == 0 && back[7] == 0);
    npk_stop stop;
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_FAULT);
    NPK_CHECK_CONTAINS(stop.message, "illegal instruction (mcause 2) at pc 0x80000008");
    uint64_t a0 = 0, a1 = 0;
    npk_reg_read(m, "a0", &a0);
    npk_reg_read(m, "a1", &a1);
    NPK_CHECK_EQ_U64(a0, 5);
    NPK_CHECK_EQ_U64(a1, 7);

    /* through npk_load_bytes (what `npukit run` does): exit(7) in 9 bytes, the last word
     * `ecall` (0x00000073) cut to its first byte */
    static const uint8_t exit7[9] = {0x13, 0x05, 0x70, 0x00, 0x93, 0x08, 0xD0, 0x05, 0x73};
    NPK_CHECK(npk_load_bytes(m, exit7, sizeof exit7, "exit7.bin", stderr) == NPK_OK);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT &&
              stop.exit_code == 7);

    /* an image that does not fit RAM is still refused */
    uint8_t *big = calloc(4097, 1);
    npk_machine *small = make("rvnpu:ram_size=4K");
    if (big && small) {
        NPK_CHECK(npk_load_raw(small, big, 4095, 0) == NPK_OK);
        NPK_CHECK(npk_load_raw(small, big, 4097, 0) == NPK_ERR_RANGE);
        NPK_CHECK_CONTAINS(npk_error(small), "does not fit");
    }
    free(big);
    npk_destroy(small);
    npk_destroy(m);

    /* toy keeps refusing a partial word */
    m = make("toy");
    if (!m)
        return;
    NPK_CHECK(npk_raw_pads(m) == 0);
    NPK_CHECK(npk_load_raw(m, img, sizeof img, 0) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(m), "not a whole number of 4-byte words");
    npk_destroy(m);
}

/* ---- ELF files --------------------------------------------------------------------------------- */

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

/* addi a0, zero, 5; loop: addi a7, zero, 93; ecall */
static const uint32_t code[] = {0x00500513, 0x05D00893, 0x00000073};
#define TEXT 0x80000000u
#define RODATA 0x8000000Cu

/* An executable with one RWX PT_LOAD (.text + 6 bytes of .rodata "hello\0"), e_flags `flags`
 * and, when `sections`, section headers: null, .text, .rodata, .bss, .symtab, .strtab,
 * .shstrtab. Symbols: _start (global func, .text), loop (local, .text + 4), $x (mapping
 * symbol, .text), msg (global object, .rodata), limit (absolute). Returns the size. */
static size_t make_elf(uint8_t *b, uint32_t flags, int sections)
{
    enum { TEXT_OFF = 84, RO_OFF = TEXT_OFF + 12, SYM_OFF = 104, NSYM = 6,
           STR_OFF = SYM_OFF + NSYM * 16 };
    static const char strtab[] = "\0_start\0loop\0$x\0msg\0limit";
    static const char shstr[] = "\0.text\0.rodata\0.bss\0.symtab\0.strtab\0.shstrtab";
    const size_t shstr_off = STR_OFF + sizeof strtab, sh_off = (shstr_off + sizeof shstr + 3) & ~3u;
    memset(b, 0, 1024);
    memcpy(b, "\x7f" "ELF", 4);
    b[4] = 1, b[5] = 1, b[6] = 1;
    put16(b + 16, 2);                 /* ET_EXEC */
    put16(b + 18, 243);               /* EM_RISCV */
    put32(b + 20, 1);
    put32(b + 24, TEXT);              /* e_entry */
    put32(b + 28, 52);                /* e_phoff */
    put32(b + 36, flags);
    put16(b + 40, 52);
    put16(b + 42, 32), put16(b + 44, 1);
    uint8_t *ph = b + 52;
    put32(ph, 1), put32(ph + 4, TEXT_OFF), put32(ph + 8, TEXT), put32(ph + 12, TEXT);
    put32(ph + 16, 18), put32(ph + 20, 32), put32(ph + 24, 7);
    for (int i = 0; i < 3; i++)
        put32(b + TEXT_OFF + 4 * i, code[i]);
    memcpy(b + RO_OFF, "hello", 6);
    if (!sections)
        return RO_OFF + 6;
    /* symbols: name offset, value, size, info (bind << 4 | type), other, shndx */
    static const struct {
        uint32_t name, value, size;
        uint8_t info;
        uint16_t shndx;
    } syms[NSYM] = {
        {0, 0, 0, 0, 0},
        {8, TEXT + 4, 0, 0x00, 1},      /* loop: local notype */
        {13, TEXT, 0, 0x00, 1},         /* $x: local notype */
        {1, TEXT, 12, 0x12, 1},         /* _start: global func */
        {16, RODATA, 6, 0x11, 2},       /* msg: global object */
        {20, 64, 0, 0x10, 0xFFF1},      /* limit: global, absolute */
    };
    for (int i = 0; i < NSYM; i++) {
        uint8_t *s = b + SYM_OFF + 16 * i;
        put32(s, syms[i].name), put32(s + 4, syms[i].value), put32(s + 8, syms[i].size);
        s[12] = syms[i].info;
        put16(s + 14, syms[i].shndx);
    }
    memcpy(b + STR_OFF, strtab, sizeof strtab);
    memcpy(b + shstr_off, shstr, sizeof shstr);
    /* section headers: name, type, flags, addr, offset, size, link, info, align, entsize */
    static const uint32_t sh[7][10] = {
        {0},
        {1, 1, 0x6, TEXT, TEXT_OFF, 12, 0, 0, 4, 0},            /* .text: PROGBITS, AX */
        {7, 1, 0x2, RODATA, RO_OFF, 6, 0, 0, 1, 0},             /* .rodata: A */
        {15, 8, 0x3, RODATA + 8, RO_OFF + 6, 16, 0, 0, 4, 0},   /* .bss: NOBITS, WA */
        {20, 2, 0, 0, SYM_OFF, NSYM * 16, 5, 3, 4, 16},         /* .symtab -> .strtab */
        {28, 3, 0, 0, STR_OFF, sizeof strtab, 0, 0, 1, 0},      /* .strtab */
        {36, 3, 0, 0, 0, sizeof shstr, 0, 0, 1, 0},             /* .shstrtab */
    };
    for (int i = 0; i < 7; i++)
        for (int k = 0; k < 10; k++)
            put32(b + sh_off + 40 * i + 4 * k, sh[i][k]);
    put32(b + sh_off + 40 * 6 + 16, (uint32_t)shstr_off);
    put32(b + 32, (uint32_t)sh_off);  /* e_shoff */
    put16(b + 46, 40), put16(b + 48, 7), put16(b + 50, 6);
    return sh_off + 7 * 40;
}

static void elf_sections(void)
{
    npk_machine *m = make("rvnpu");
    if (!m)
        return;
    static uint8_t b[1024];
    size_t n = make_elf(b, 0x2, 1);
    npk_elf_section *sec;
    npk_elf_symbol *sym;
    size_t ns, nsym;
    NPK_CHECK(npk_elf_sections(m, b, n, "t.elf", &sec, &ns, &sym, &nsym) == NPK_OK);
    NPK_CHECK_EQ_U64(ns, 7);
    if (ns == 7) {
        NPK_CHECK_EQ_STR(sec[1].name, ".text");
        NPK_CHECK(sec[1].addr == TEXT && sec[1].size == 12 && sec[1].exec && sec[1].alloc &&
                  sec[1].index == 1 && sec[1].bytes == b + 84);
        NPK_CHECK_EQ_STR(sec[2].name, ".rodata");
        NPK_CHECK(sec[2].alloc && !sec[2].exec && sec[2].addr == RODATA &&
                  memcmp(sec[2].bytes, "hello", 6) == 0);
        NPK_CHECK_EQ_STR(sec[3].name, ".bss");
        NPK_CHECK(sec[3].bytes == NULL && sec[3].size == 16 && sec[3].alloc);
        NPK_CHECK_EQ_STR(sec[4].name, ".symtab");
        NPK_CHECK(!sec[4].alloc && !sec[4].exec);
        NPK_CHECK_EQ_STR(sec[0].name, "");
    }
    /* file order, the null symbol left out */
    NPK_CHECK_EQ_U64(nsym, 5);
    if (nsym == 5) {
        NPK_CHECK_EQ_STR(sym[0].name, "loop");
        NPK_CHECK(sym[0].value == TEXT + 4 && sym[0].local && sym[0].section == 1 &&
                  !sym[0].func);
        NPK_CHECK_EQ_STR(sym[1].name, "$x");
        NPK_CHECK_EQ_STR(sym[2].name, "_start");
        NPK_CHECK(sym[2].func && !sym[2].local && sym[2].size == 12);
        NPK_CHECK_EQ_STR(sym[3].name, "msg");
        NPK_CHECK(sym[3].section == 2 && sym[3].value == RODATA);
        NPK_CHECK_EQ_STR(sym[4].name, "limit");
        NPK_CHECK(sym[4].section == 0xFFF1 && sym[4].value == 64);
    }
    npk_free(sec);
    npk_free(sym);

    /* the same file loads and runs, and its symbols are the machine's */
    NPK_CHECK(npk_load_elf(m, b, n, "t.elf") == NPK_OK);
    uint64_t v = 0;
    NPK_CHECK(npk_symbol(m, "msg", &v) == NPK_OK && v == RODATA);
    npk_stop stop;
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.exit_code == 5);

    /* without section headers: nothing, and no error */
    n = make_elf(b, 0x2, 0);
    NPK_CHECK(npk_elf_sections(m, b, n, "t.elf", &sec, &ns, &sym, &nsym) == NPK_OK);
    NPK_CHECK(ns == 0 && nsym == 0 && sec == NULL && sym == NULL);

    /* a section whose bytes lie past the end of the file */
    n = make_elf(b, 0x2, 1);
    uint32_t sh_off = (uint32_t)b[32] | (uint32_t)b[33] << 8;
    put32(b + sh_off + 40 * 2 + 20, 0x10000); /* .rodata size */
    NPK_CHECK(npk_elf_sections(m, b, n, "t.elf", &sec, &ns, &sym, &nsym) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(m), "t.elf: truncated: section 2 (.rodata) needs bytes");
    npk_destroy(m);
}

/* Load `b` on a machine whose error stream is captured; returns what it wrote. */
static char *load_capture(npk_machine *m, const uint8_t *b, size_t n, npk_status *st)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&buf, &len);
    npk_set_output(m, NULL, err);
    *st = npk_load_elf(m, b, n, "fw.elf");
    fclose(err);
    npk_set_output(m, NULL, NULL);
    return buf;
}

static void elf_flags(void)
{
    npk_machine *m = make("rvnpu");
    if (!m)
        return;
    static uint8_t b[1024];
    char text[1024];
    npk_status st;
    /* ilp32f (0x2) and soft float (0x0): nothing to say */
    static const uint32_t quiet[] = {0x0, 0x2, 0x10 /* TSO */};
    for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++) {
        size_t n = make_elf(b, quiet[i], 1);
        NPK_CHECK(npk_elf_warnings(m, b, n, "fw.elf", text, sizeof text) == NPK_OK);
        NPK_CHECK_EQ_STR(text, "");
        char *out = load_capture(m, b, n, &st);
        NPK_CHECK(st == NPK_OK && out && out[0] == '\0');
        free(out);
    }
    /* RVC (0x1) with ilp32f */
    size_t n = make_elf(b, 0x3, 1);
    NPK_CHECK(npk_elf_warnings(m, b, n, "fw.elf", text, sizeof text) == NPK_OK);
    NPK_CHECK_CONTAINS(text, "e_flags 0x3: EF_RISCV_RVC: the code may use compressed");
    NPK_CHECK(strchr(text, '\n') == text + strlen(text) - 1); /* one line */
    char *out = load_capture(m, b, n, &st);
    NPK_CHECK(st == NPK_OK); /* a warning, not a refusal */
    NPK_CHECK_CONTAINS(out, "npukit: warning: fw.elf: e_flags 0x3: EF_RISCV_RVC");
    free(out);
    npk_stop stop;
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.exit_code == 5);
    /* double-float ABI (0x4), and quad (0x6) with RVC: two lines */
    n = make_elf(b, 0x4, 1);
    NPK_CHECK(npk_elf_warnings(m, b, n, "fw.elf", text, sizeof text) == NPK_OK);
    NPK_CHECK_CONTAINS(text, "e_flags 0x4: double-float ABI (ilp32d)");
    NPK_CHECK_CONTAINS(text, "build with -mabi=ilp32f");
    n = make_elf(b, 0x7, 0);
    NPK_CHECK(npk_elf_warnings(m, b, n, "fw.elf", text, sizeof text) == NPK_OK);
    NPK_CHECK_CONTAINS(text, "EF_RISCV_RVC");
    NPK_CHECK_CONTAINS(text, "\ne_flags 0x7: quad-float ABI (ilp32q)");
    out = load_capture(m, b, n, &st);
    NPK_CHECK(st == NPK_OK);
    NPK_CHECK_CONTAINS(out, "npukit: warning: fw.elf: e_flags 0x7: EF_RISCV_RVC");
    NPK_CHECK_CONTAINS(out, "\nnpukit: warning: fw.elf: e_flags 0x7: quad-float ABI");
    free(out);
    /* a file that is not a valid ELF gives the loader's error, no text */
    NPK_CHECK(npk_elf_warnings(m, b, 20, "fw.elf", text, sizeof text) == NPK_ERR_FORMAT);
    NPK_CHECK_EQ_STR(text, "");
    npk_destroy(m);
}

/* ---- assembler: NPU mnemonics of the other revision ------------------------------------------- */

static char *assemble_diag(const char *spec, const char *src, npk_status *st)
{
    npk_machine *m = make(spec);
    char *buf = NULL;
    size_t len = 0;
    if (!m)
        return NULL;
    FILE *diag = open_memstream(&buf, &len);
    uint8_t *img = NULL;
    size_t n = 0;
    *st = npk_assemble(m, src, "rev.s", diag, &img, &n);
    fclose(diag);
    npk_free(img);
    npk_destroy(m);
    return buf;
}

static void asm_revision(void)
{
    npk_status st;
    /* npu.frsqrt (rev2) shares its word with npu.fvrsqrt (seed); npu.fvadd is rev2 only */
    const char *src = "    npu.vmac a2, a0, a1\n"
                      "    npu.frsqrt fa0, fa1\n"
                      "    npu.fvadd a0, a1, a2\n"
                      "    npu.fvrsqrt fa0, a1\n";
    char *d = assemble_diag("rvnpu", src, &st);
    NPK_CHECK(st == NPK_OK); /* warnings, not errors */
    NPK_CHECK_CONTAINS(d, "rev.s:2:5: warning: 'npu.frsqrt' is a rev2 instruction; with "
                          "isa_rev=seed its word executes as 'npu.fvrsqrt' (select isa_rev=rev2)");
    NPK_CHECK_CONTAINS(d, "rev.s:3:5: warning: 'npu.fvadd' is a rev2 instruction; with "
                          "isa_rev=seed its word is an illegal instruction (mcause 2)");
    NPK_CHECK(d && !strstr(d, "rev.s:1:") && !strstr(d, "rev.s:4:"));
    free(d);
    d = assemble_diag("rvnpu:isa_rev=rev2", src, &st);
    NPK_CHECK(st == NPK_OK);
    NPK_CHECK_CONTAINS(d, "rev.s:4:5: warning: 'npu.fvrsqrt' is a seed instruction; with "
                          "isa_rev=rev2 its word executes as 'npu.frsqrt' (select isa_rev=seed)");
    NPK_CHECK(d && !strstr(d, "rev.s:1:") && !strstr(d, "rev.s:2:") && !strstr(d, "rev.s:3:"));
    free(d);
    /* every row of both revisions with a matching machine: silent */
    d = assemble_diag("rvnpu", "npu.vmac a2, a0, a1\nnpu.fvrsqrt fa0, a1\nadd a0, a0, a1\n", &st);
    NPK_CHECK(st == NPK_OK && d && d[0] == '\0');
    free(d);
}

int main(void)
{
    raw_odd_size();
    elf_sections();
    elf_flags();
    asm_revision();
    return npk_test_done();
}
