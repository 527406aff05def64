/* rvnpu architectural state by name (docs/state.md): the register list against the spec's
 * names (§2, §11.3), values written by name and used by a program, values a program leaves,
 * read back by name (worked out by hand in the comments), and refused writes. */
#include <stdlib.h>
#include <string.h>

#include "npukit/npukit.h"
#include "test.h"
#include "state.h"

static npk_machine *load(const char *src)
{
    return state_load("rvnpu", src, "state.s");
}

static void step(npk_machine *m, int n)
{
    npk_stop stop;
    for (int i = 0; i < n; i++)
        NPK_CHECK(npk_step(m, &stop) == NPK_OK && stop.reason == NPK_STOP_NONE);
}

/* every CSR of the §11.3 table, the NPU state of §2 (vreg[k] as v0..v3, its assembly name,
 * §10) with its width and whether the backdoor may write it */
static void check_names(void)
{
    static const struct {
        const char *name;
        unsigned bits;
        int ro;
    } want[] = {
        {"pc", 32, 0}, {"zero", 32, 1}, {"ra", 32, 0}, {"t6", 32, 0}, {"ft0", 32, 0},
        {"ft11", 32, 0}, {"fflags", 5, 0}, {"frm", 3, 0}, {"fcsr", 8, 0}, {"cycle", 32, 1},
        {"cycleh", 32, 1}, {"time", 32, 1}, {"timeh", 32, 1}, {"instret", 32, 1},
        {"instreth", 32, 1}, {"mcycle", 64, 0}, {"mcycleh", 32, 0}, {"minstret", 64, 0},
        {"minstreth", 32, 0}, {"mstatus", 32, 0}, {"misa", 32, 1}, {"mie", 32, 1},
        {"mip", 32, 1}, {"mtvec", 32, 0}, {"mscratch", 32, 0}, {"mepc", 32, 0},
        {"mcause", 32, 0}, {"mtval", 32, 0}, {"mvendorid", 32, 1}, {"marchid", 32, 1},
        {"mimpid", 32, 1}, {"mhartid", 32, 1}, {"acc", 64, 0}, {"facc", 64, 0},
        {"v0", 32, 0}, {"v1", 32, 0}, {"v2", 32, 0}, {"v3", 32, 0},
    };
    npk_machine *m = load("nop\n");
    /* 1 pc + 32 x + 32 f + 26 CSRs + acc, facc, 4 vector registers */
    NPK_CHECK_EQ_U64(npk_reg_count(m), 1 + 32 + 32 + 26 + 2 + 4);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const npk_reg_info *r = find(m, want[i].name);
        NPK_REPORT(r != NULL, "no register %s\n", want[i].name);
        if (!r)
            continue;
        NPK_REPORT(r->bits == want[i].bits, "%s: %u bits, want %u\n", r->name, r->bits,
                   want[i].bits);
        NPK_REPORT(!!(r->flags & NPK_REG_READONLY) == want[i].ro, "%s: read-only flag %u\n",
                   r->name, r->flags);
    }
    npk_destroy(m);
}

/* values written by name before the program, used by its instructions */
static void check_written(void)
{
    npk_machine *m = load("npu.macc a0, a1\n"       /* acc = 10 + 3*4 = 22 */
                          "npu.stvec v2, 0(a2)\n"   /* bytes of v2 to RAM + 0x100 */
                          "npu.fmacc fa0, fa1\n"    /* facc = 1.5 + 2*3 = 7.5 */
                          "fdiv.s fa2, fa3, fa4\n"  /* 1/3 with frm = RTZ */
                          "csrr a3, mcycle\n"
                          "csrr a4, mcycleh\n"
                          "csrr a5, fcsr\n"
                          "npu.rstacc a6\n"
                          "li a7, 93\n"
                          "ecall\n");
    NPK_CHECK(npk_reg_write(m, "acc", 10) == NPK_OK);
    NPK_CHECK(npk_reg_write(m, "a0", 3) == NPK_OK);
    NPK_CHECK(npk_reg_write(m, "a1", 4) == NPK_OK);
    NPK_CHECK(npk_reg_write(m, "v2", 0x80FF0102) == NPK_OK);
    NPK_CHECK(npk_reg_write(m, "a2", 0x80000100) == NPK_OK);
    NPK_CHECK(npk_reg_write(m, "facc", 0x3FF8000000000000u) == NPK_OK);  /* 1.5 */
    NPK_CHECK(npk_reg_write(m, "fa0", 0x40000000) == NPK_OK);            /* 2.0f */
    NPK_CHECK(npk_reg_write(m, "fa1", 0x40400000) == NPK_OK);            /* 3.0f */
    NPK_CHECK(npk_reg_write(m, "fa3", 0x3F800000) == NPK_OK);            /* 1.0f */
    NPK_CHECK(npk_reg_write(m, "fa4", 0x40400000) == NPK_OK);            /* 3.0f */
    NPK_CHECK(npk_reg_write(m, "frm", 1) == NPK_OK);                     /* RTZ */
    NPK_CHECK(npk_reg_write(m, "fflags", 0x10) == NPK_OK);               /* NV */
    NPK_CHECK_EQ_U64(rd(m, "fcsr"), 1 << 5 | 0x10);
    /* the csrr of mcycle is the 5th instruction: 4 retired before it, so it reads the low
     * half of 0x1_FFFFFFFB + 4; mcycleh one later the high half of 0x2_00000000 */
    NPK_CHECK(npk_reg_write(m, "mcycle", 0x1FFFFFFFBu) == NPK_OK);
    NPK_CHECK_EQ_U64(rd(m, "mcycle"), 0x1FFFFFFFBu);
    NPK_CHECK_EQ_U64(rd(m, "mcycleh"), 1);

    step(m, 1);
    NPK_CHECK_EQ_U64(rd(m, "acc"), 22);
    step(m, 1);
    uint8_t b[4] = {0};
    NPK_CHECK(npk_mem_read(m, "ram", 0x100, b, 4) == NPK_OK);
    NPK_CHECK(b[0] == 0x02 && b[1] == 0x01 && b[2] == 0xFF && b[3] == 0x80);
    step(m, 1);
    NPK_CHECK_EQ_U64(rd(m, "facc"), 0x401E000000000000u);   /* 7.5 */
    step(m, 1);
    /* 1/3 = 0x3EAAAAAA.AAA..: RTZ keeps 0x3EAAAAAA (RNE would round to ...AB); NX is added
     * to the NV written before */
    NPK_CHECK_EQ_U64(rd(m, "fa2"), 0x3EAAAAAAu);
    NPK_CHECK_EQ_U64(rd(m, "fflags"), 0x11);
    npk_stop stop;
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(rd(m, "a3"), 0xFFFFFFFFu);
    NPK_CHECK_EQ_U64(rd(m, "a4"), 2);
    NPK_CHECK_EQ_U64(rd(m, "a5"), 1 << 5 | 0x11);
    NPK_CHECK_EQ_U64(rd(m, "a6"), 22);
    NPK_CHECK_EQ_U64(rd(m, "acc"), 0);   /* rstacc cleared it */
    npk_destroy(m);
}

/* state a program leaves, read by name */
static void check_left(void)
{
    npk_machine *m = load("li a0, 3\n"
                          "li a1, -4\n"
                          "npu.macc a0, a1\n"      /* acc = -12 */
                          "li a2, 0x80000100\n"
                          "npu.ldvec v1, 0(a2)\n"  /* bytes 01 FE 03 80 */
                          "fmv.w.x fa0, a0\n"
                          "fcvt.s.w fa0, a0\n"     /* 3.0f */
                          "fmv.w.x fa1, zero\n"
                          "fdiv.s fa2, fa0, fa1\n" /* 3/0: DZ */
                          "csrwi frm, 3\n"         /* RUP */
                          "csrw mscratch, a1\n"
                          "npu.fmacc fa0, fa0\n"   /* facc = 9.0 */
                          "li a7, 93\n"
                          "ecall\n");
    const uint8_t data[4] = {0x01, 0xFE, 0x03, 0x80};
    NPK_CHECK(npk_mem_write(m, "ram", 0x100, data, 4) == NPK_OK);
    npk_stop stop;
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(rd(m, "acc"), 0xFFFFFFFFFFFFFFF4u);
    NPK_CHECK_EQ_U64(rd(m, "v1"), 0x8003FE01u);
    NPK_CHECK_EQ_U64(rd(m, "v0"), 0);
    NPK_CHECK_EQ_U64(rd(m, "fflags"), 0x08);
    NPK_CHECK_EQ_U64(rd(m, "frm"), 3);
    NPK_CHECK_EQ_U64(rd(m, "fcsr"), 3 << 5 | 0x08);
    NPK_CHECK_EQ_U64(rd(m, "mscratch"), 0xFFFFFFFCu);
    NPK_CHECK_EQ_U64(rd(m, "facc"), 0x4022000000000000u);
    NPK_CHECK_EQ_U64(rd(m, "fa2"), 0x7F800000u);   /* +inf */
    /* 14 instructions retired (li 0x80000100 is lui + addi), ecall included */
    NPK_CHECK_EQ_U64(rd(m, "minstret"), 15);
    NPK_CHECK_EQ_U64(rd(m, "instret"), 15);
    NPK_CHECK_EQ_U64(rd(m, "mhartid"), 0);
    NPK_CHECK_EQ_U64(rd(m, "misa"), 0x40801120u);
    /* the bytes calls: acc little-endian */
    uint8_t acc[8];
    NPK_CHECK(npk_reg_read_bytes(m, "acc", acc, 8) == NPK_OK);
    NPK_CHECK(acc[0] == 0xF4 && acc[1] == 0xFF && acc[7] == 0xFF);
    const uint8_t v3[4] = {0x7F, 0x80, 0x00, 0x01};
    NPK_CHECK(npk_reg_write_bytes(m, "v3", v3, 4) == NPK_OK);
    NPK_CHECK_EQ_U64(rd(m, "v3"), 0x0100807Fu);
    npk_destroy(m);
}

static void refused(npk_machine *m, const char *name, uint64_t v, npk_status want,
                    const char *msg)
{
    uint64_t before = rd(m, name);
    npk_status st = npk_reg_write(m, name, v);
    NPK_REPORT(st == want, "write %s: %s, want %s\n", name, npk_status_name(st),
               npk_status_name(want));
    NPK_CHECK_CONTAINS(npk_error(m), msg);
    NPK_CHECK_EQ_U64(rd(m, name), before);
}

static void check_refused(void)
{
    npk_machine *m = load("nop\n");
    refused(m, "cycle", 5, NPK_ERR_UNSUPPORTED, "rvnpu: cycle is read-only");
    refused(m, "instreth", 5, NPK_ERR_UNSUPPORTED, "rvnpu: instreth is read-only");
    refused(m, "mhartid", 1, NPK_ERR_UNSUPPORTED, "mhartid is read-only");
    refused(m, "misa", 0, NPK_ERR_UNSUPPORTED, "misa is read-only");
    refused(m, "zero", 1, NPK_ERR_UNSUPPORTED, "zero is read-only");
    refused(m, "frm", 8, NPK_ERR_RANGE, "frm is 3 bits wide; 0x8 does not fit");
    refused(m, "fflags", 0x20, NPK_ERR_RANGE, "fflags is 5 bits wide");
    refused(m, "v0", 0x100000000u, NPK_ERR_RANGE, "v0 is 32 bits wide");
    refused(m, "facc", 0x7FF0000000000001u, NPK_ERR_RANGE, "canonical");
    /* the canonical NaN and infinity are fine */
    NPK_CHECK(npk_reg_write(m, "facc", 0x7FF8000000000000u) == NPK_OK);
    NPK_CHECK(npk_reg_write(m, "facc", 0x7FF0000000000000u) == NPK_OK);
    uint8_t b[8] = {0};
    NPK_CHECK(npk_reg_read_bytes(m, "acc", b, 4) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_error(m), "acc is 64 bits wide: 8 bytes, not 4");
    NPK_CHECK(npk_reg_write_bytes(m, "cycle", b, 4) == NPK_ERR_UNSUPPORTED);
    b[0] = 0x08;
    NPK_CHECK(npk_reg_write_bytes(m, "frm", b, 1) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "frm is 3 bits wide; byte 0 (0x08) sets bits above it");
    /* the numeric names (rvnpu spec §10) find the ABI-named registers */
    NPK_CHECK(npk_reg_write(m, "x10", 0x1234) == NPK_OK);
    NPK_CHECK_EQ_U64(rd(m, "a0"), 0x1234);
    NPK_CHECK(npk_reg_write(m, "F31", 0x3F800000) == NPK_OK);
    NPK_CHECK_EQ_U64(rd(m, "ft11"), 0x3F800000);
    NPK_CHECK(npk_reg_write(m, "x0", 1) == NPK_ERR_UNSUPPORTED);
    NPK_CHECK_CONTAINS(npk_error(m), "rvnpu: zero is read-only");
    NPK_CHECK(npk_reg_write(m, "x32", 0) == NPK_ERR_ARG);
    NPK_CHECK(npk_reg_write(m, "nosuch", 0) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_error(m), "no register 'nosuch'");
    npk_destroy(m);
}

int main(void)
{
    check_names();
    check_written();
    check_left();
    check_refused();
    return npk_test_done();
}
