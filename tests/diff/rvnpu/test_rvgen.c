/* Unit test of the rvnpu differential-test generator: encodings from isa.def against words
 * known from the RISC-V specification, and a small hand-built program whose dump under
 * qemu-riscv32 is checked value by value (so the dump layout and the harness are trusted). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rvgen.h"
#include "rvrun.h"
#include "test.h"

static uint32_t enc(const char *mn, unsigned rd, unsigned rs1, unsigned rs2, unsigned rs3,
                    unsigned rm, int32_t imm, unsigned csr)
{
    rvg_fields f = {rd, rs1, rs2, rs3, rm, csr, imm};
    uint32_t w = 0;
    if (rvg_encode(mn, &f, &w) != 0) {
        fprintf(stderr, "no row for %s\n", mn);
        return 0xDEADDEADu;
    }
    return w;
}

static void test_encodings(void)
{
    /* Expected words are the standard encodings (as GNU as emits them). */
    NPK_CHECK_EQ_U64(enc("add", 5, 6, 7, 0, 0, 0, 0), 0x007302B3u);
    NPK_CHECK_EQ_U64(enc("addi", 1, 0, 0, 0, 0, 1, 0), 0x00100093u);
    NPK_CHECK_EQ_U64(enc("lui", 5, 0, 0, 0, 0, 0x12345, 0), 0x123452B7u);
    NPK_CHECK_EQ_U64(enc("sw", 0, 2, 10, 0, 0, 8, 0), 0x00A12423u);        /* sw a0, 8(sp) */
    NPK_CHECK_EQ_U64(enc("flw", 10, 10, 0, 0, 0, 4, 0), 0x00452507u);      /* flw fa0, 4(a0) */
    NPK_CHECK_EQ_U64(enc("fadd.s", 1, 2, 3, 0, 0, 0, 0), 0x003100D3u);
    NPK_CHECK_EQ_U64(enc("fmadd.s", 1, 2, 3, 4, 7, 0, 0), 0x203170C3u);
    NPK_CHECK_EQ_U64(enc("fcvt.w.s", 10, 10, 0, 0, 1, 0, 0), 0xC0051553u); /* rtz */
    NPK_CHECK_EQ_U64(enc("csrrs", 10, 0, 0, 0, 0, 0, 3), 0x00302573u);     /* frcsr a0 */
    NPK_CHECK_EQ_U64(enc("slli", 1, 1, 0, 0, 0, 31, 0), 0x01F09093u);
    NPK_CHECK_EQ_U64(enc("srai", 1, 1, 0, 0, 0, 1, 0), 0x4010D093u);
    NPK_CHECK_EQ_U64(enc("beq", 0, 1, 2, 0, 0, 8, 0), 0x00208463u);
    NPK_CHECK_EQ_U64(enc("ecall", 0, 0, 0, 0, 0, 0, 0), 0x00000073u);
    NPK_CHECK_EQ_U64(enc("csrrwi", 0, 0, 0, 0, 0, 0, 1), 0x00105073u);     /* fsflagsi 0 */
}

static rvg_item insn(const char *mn, unsigned rd, unsigned rs1, unsigned rs2, unsigned rm,
                     int32_t imm)
{
    rvg_item it;
    memset(&it, 0, sizeof it);
    it.kind = RVG_K_INSN;
    it.row = rvg_row_index(mn);
    if (it.row < 0)
        fprintf(stderr, "no row for %s\n", mn);
    it.rd = (uint8_t)rd;
    it.rs1 = (uint8_t)rs1;
    it.rs2 = (uint8_t)rs2;
    it.rm = (uint8_t)rm;
    it.imm = imm;
    return it;
}

/* A generator-level item (li, flag checkpoint, frm write) rather than one table row. */
static rvg_item special(int kind, unsigned rd, unsigned rs1, int32_t imm, uint32_t value)
{
    rvg_item it;
    memset(&it, 0, sizeof it);
    it.kind = kind;
    it.rd = (uint8_t)rd;
    it.rs1 = (uint8_t)rs1;
    it.imm = imm;
    it.value = value;
    return it;
}

static int run_qemu(const char *qemu, const char *path, const rvg_prog *p, uint8_t **out,
                    size_t *nout, size_t *words)
{
    uint8_t *elf;
    size_t size;
    int status = -1;
    if (rvg_elf(p, p->n_items, &elf, &size, words) != 0)
        return -1;
    int ok = rvr_write_file(path, elf, size) == 0 &&
             rvr_qemu(qemu, path, out, nout, &status) == 0;
    free(elf);
    if (!ok)
        return -1;
    return status;
}

static void test_known_program(const char *qemu, const char *path)
{
    rvg_prog p;
    memset(&p, 0, sizeof p);
    for (unsigned i = 0; i < 32; i++) {
        p.init.x[i] = 0x1000 + i;
        p.init.f[i] = 0x40000000u + i;
    }
    p.init.x[6] = 5;
    p.init.x[7] = 7;
    p.init.x[9] = 100;
    p.init.x[14] = 0x80000000u;
    p.init.x[15] = 0xFFFFFFFFu;
    p.init.x[23] = 16777217;
    p.init.f[2] = 0x3F800000u;   /* 1.0 */
    p.init.f[3] = 0x40000000u;   /* 2.0 */
    p.init.f[5] = 0;             /* +0 */
    p.init.f[7] = 0xBF800000u;   /* -1.0 */
    p.init.f[8] = 0x40200000u;   /* 2.5 */
    p.init.f[10] = 0x7F800001u;  /* signalling NaN */
    p.init.f[15] = 0x3F800000u;
    p.init.fcsr = 2u << 5;       /* frm = rdn, no flags */
    rvg_item items[] = {
        insn("add", 5, 6, 7, 0, 0),
        insn("div", 8, 9, 0, 0, 0),
        insn("rem", 13, 14, 15, 0, 0),
        insn("div", 16, 14, 15, 0, 0),
        insn("divu", 18, 9, 0, 0, 0),
        insn("remu", 19, 9, 0, 0, 0),
        insn("mulh", 20, 14, 14, 0, 0),
        insn("fadd.s", 1, 2, 3, 0, 0),
        insn("fdiv.s", 4, 2, 5, 7, 0),
        insn("fsqrt.s", 6, 7, 0, 0, 0),
        special(RVG_K_FLAGS, 31, 0, 0, 0),        /* x31 = NV|DZ, then flags cleared */
        insn("sb", 0, RVG_PIN, 6, 0, 3),
        insn("sw", 0, RVG_PIN, 7, 0, -255),
        insn("lw", 21, RVG_PIN, 0, 0, -255),
        insn("fcvt.w.s", 22, 8, 0, 0, 0),
        insn("fmin.s", 9, 10, 2, 0, 0),
        insn("flw", 11, RVG_PIN, 0, 0, -255),
        insn("fcvt.s.w", 12, 23, 0, 1, 0),
        insn("lui", 24, 0, 0, 0, 0xFFFFF),
        insn("srai", 25, 14, 0, 0, 31),
        special(RVG_K_LI_X, 3, 0, 0, 0xDEADBEEFu),
        special(RVG_K_LI_F, 13, 28, 0, 0x7FC12345u),
        insn("beq", 0, 0, 0, 0, 1),   /* taken: skips the next item */
        insn("addi", 29, 0, 0, 0, 1),
        insn("fsgnjn.s", 14, 15, 15, 0, 0),
        special(RVG_K_FRM, 30, 0, 4, 0),          /* x30 = old frm (rdn), frm = rmm */
    };
    items[22].kind = RVG_K_BRANCH;
    items[0].observe = 1;        /* x26 += x5 */
    items[7].observe = 1;        /* x2 = bits of f1; x26 += x2 */
    items[7].obs_tmp = 2;
    p.items = items;
    p.n_items = sizeof items / sizeof items[0];

    uint8_t *o = NULL;
    size_t n = 0, words = 0;
    int st = run_qemu(qemu, path, &p, &o, &n, &words);
    NPK_CHECK_EQ_U64(st, 0);
    NPK_CHECK_EQ_U64(n, RVG_OUT_BYTES);
    if (st != 0 || n != RVG_OUT_BYTES) {
        free(o);
        return;
    }
    uint32_t scratch = rvg_scratch_addr(words);
    NPK_CHECK_EQ_U64(RVG_DUMP_X(o, RVG_PIN), scratch + RVG_SCRATCH_BYTES / 2);
    NPK_CHECK_EQ_U64(RVG_DUMP_X(o, 5), 12);
    NPK_CHECK_EQ_U64(RVG_DUMP_X(o, 8), 0xFFFFFFFFu);    /* x / 0 */
    NPK_CHECK_EQ_U64(RVG_DUMP_X(o, 13), 0);             /* INT_MIN % -1 */
    NPK_CHECK_EQ_U64(RVG_DUMP_X(o, 16), 0x80000000u);   /* INT_MIN / -1 */
    NPK_CHECK_EQ_U64(RVG_DUMP_X(o, 18), 0xFFFFFFFFu);
    NPK_CHECK_EQ_U64(RVG_DUMP_X(o, 19), 100);           /* x % 0 = x */
    NPK_CHECK_EQ_U64(RVG_DUMP_X(o, 20), 0x40000000u);
    NPK_CHECK_EQ_U64(RVG_DUMP_F(o, 1), 0x40400000u);    /* 1 + 2 */
    NPK_CHECK_EQ_U64(RVG_DUMP_F(o, 4), 0x7F800000u);    /* 1 / +0 */
    NPK_CHECK_EQ_U64(RVG_DUMP_F(o, 6), 0x7FC00000u);    /* sqrt(-1): canonical NaN */
    NPK_CHECK_EQ_U64(RVG_DUMP_X(o, 21), 7);             /* misaligned store then load */
    NPK_CHECK_EQ_U64(RVG_DUMP_X(o, 22), 2);             /* 2.5 rne -> 2 */
    NPK_CHECK_EQ_U64(RVG_DUMP_F(o, 9), 0x3F800000u);    /* fmin(sNaN, 1) = 1 */
    NPK_CHECK_EQ_U64(RVG_DUMP_F(o, 11), 7);             /* misaligned flw */
    NPK_CHECK_EQ_U64(RVG_DUMP_F(o, 12), 0x4B800000u);   /* 2^24 + 1 rtz -> 2^24 */
    NPK_CHECK_EQ_U64(RVG_DUMP_X(o, 24), 0xFFFFF000u);
    NPK_CHECK_EQ_U64(RVG_DUMP_X(o, 25), 0xFFFFFFFFu);
    NPK_CHECK_EQ_U64(RVG_DUMP_X(o, 3), 0xDEADBEEFu);
    NPK_CHECK_EQ_U64(RVG_DUMP_X(o, 28), 0x7FC12345u);
    NPK_CHECK_EQ_U64(RVG_DUMP_F(o, 13), 0x7FC12345u);   /* fmv.w.x keeps NaN payloads */
    NPK_CHECK_EQ_U64(RVG_DUMP_X(o, 29), 0x1000 + 29);   /* skipped by the branch */
    NPK_CHECK_EQ_U64(RVG_DUMP_F(o, 14), 0xBF800000u);
    NPK_CHECK_EQ_U64(RVG_DUMP_X(o, RVG_ACC), 0x1000 + RVG_ACC + 12 + 0x40400000u);
    NPK_CHECK_EQ_U64(RVG_DUMP_X(o, 2), 0x40400000u);
    NPK_CHECK_EQ_U64(RVG_DUMP_X(o, 31), 0x10 | 0x08);   /* NV DZ at the checkpoint */
    NPK_CHECK_EQ_U64(RVG_DUMP_X(o, 30), 2);             /* frm before csrrwi */
    NPK_CHECK_EQ_U64(RVG_DUMP_X(o, 4), 0x1000 + 4);     /* untouched registers */
    NPK_CHECK_EQ_U64(RVG_DUMP_F(o, 31), 0x40000000u + 31);
    /* frm rmm from the last item; flags since the checkpoint: NV (fmin sNaN), NX (cvts) */
    NPK_CHECK_EQ_U64(RVG_DUMP_FCSR(o), (4u << 5) | 0x10 | 0x01);
    const uint8_t *s = o + RVG_DUMP_BYTES;
    NPK_CHECK_EQ_U64(s[256 + 3], 5);
    NPK_CHECK_EQ_U64(s[1], 7);
    NPK_CHECK_EQ_U64(s[2] | s[3] | s[4], 0);
    NPK_CHECK_EQ_U64(s[0] | s[5], 0);                   /* scratch starts zeroed here */
    free(o);
}

static void test_random_programs(const char *qemu, const char *path)
{
    /* Random programs must run to completion with the pinned pointer intact; the same seed
     * must give the same bytes. */
    for (uint64_t seed = 1; seed <= 12; seed++) {
        rvg_prog p, q;
        NPK_CHECK(rvg_random(&p, rvg_mix(42, seed), 2000, NULL) == 0);
        NPK_CHECK(rvg_random(&q, rvg_mix(42, seed), 2000, NULL) == 0);
        uint8_t *e1, *e2;
        size_t n1, n2, w1, w2;
        NPK_CHECK(rvg_elf(&p, p.n_items, &e1, &n1, &w1) == 0);
        NPK_CHECK(rvg_elf(&q, q.n_items, &e2, &n2, &w2) == 0);
        NPK_CHECK(n1 == n2 && memcmp(e1, e2, n1) == 0);
        free(e1);
        free(e2);
        uint8_t *o = NULL;
        size_t n = 0, words = 0;
        NPK_CHECK_EQ_U64(run_qemu(qemu, path, &p, &o, &n, &words), 0);
        NPK_CHECK_EQ_U64(n, RVG_OUT_BYTES);
        if (n == RVG_OUT_BYTES)
            NPK_CHECK_EQ_U64(RVG_DUMP_X(o, RVG_PIN),
                             rvg_scratch_addr(words) + RVG_SCRATCH_BYTES / 2);
        free(o);
        rvg_free(&p);
        rvg_free(&q);
    }
}

int main(void)
{
    if (rvg_init(stderr) != 0)
        return 1;
    test_encodings();
    char qemu[4096];
    if (rvr_find_qemu(qemu, sizeof qemu) != 0)
        return 1;
    const char *tmp = getenv("TMPDIR");
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/rvgen-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof path, "%s/prog.elf", dir);
    test_known_program(qemu, path);
    test_random_programs(qemu, path);
    unlink(path);
    rmdir(dir);
    return npk_test_done();
}
