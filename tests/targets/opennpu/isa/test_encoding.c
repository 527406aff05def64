/* opennpu encoding examples, both ways: every example word of spec §4.6, §5.6.1, §5.11,
 * §5.12, §7.4 and §8 assembles from its text and disassembles to it, plus hand-encoded words
 * for the option order, upper case, expressions, the .word directive and the ignored rd of
 * `mma`; non-canonical and illegal words print as .word and assemble back. */
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "test.h"

typedef struct example {
    const char *src;  /* assembler input */
    uint32_t word;    /* expected word */
    const char *text; /* expected disassembly (NULL: src) */
} example;

static const example examples[] = {
    /* §7.4 (all but the last two are also the Scala assembler's words) */
    {"vadd vx0, vx1, vx2", 0x00208010, NULL},
    {"vadd.sat ve4, ve5, ve6", 0x22628210, NULL},
    {"vmul.sat vr4, vr4, vr5", 0x24522210, NULL},
    {"vsra vr3, vr0, vr1", 0x04102191, NULL},
    {"vrmax vr3, vx0", 0x00001192, NULL},
    {"vlut.b vx7, vx6", 0x00031393, NULL},
    {"vsetlut.a vr3, 2", 0x0021C013, NULL},
    {"vcvt_s8_f32.sat vx31, vr2", 0x16010F94, NULL},
    {"vcvt_f32_bf8.e5m2 vr0, vx1", 0x8A00B014, NULL},
    {"vbcast.imm vx3, 42", 0x02A01195, NULL},
    {"vfadd vr0, vr1, vr2", 0x44208016, NULL},
    {"vfms.rtz vr0, vr1, vr2, vr3", 0x1A209017, NULL},
    {"vmovi ve1, 5", 0x00501098, NULL},
    {"mma.keep vr2, vx0, vx8", 0x24800103, NULL},
    {"mma.last vr2, vx0, vx8", 0x04801103, NULL},
    {"mma.reset", 0x04002003, NULL},
    {"ld.vr vr1, -1(vr2)", 0xFFF15081, NULL},
    {"st.vx vx3, 5(vr0)", 0x00503182, NULL},
    /* §4.6 and §8 */
    {"nop", 0x00000000, NULL},
    {"st.vx vx0, 5(vr0)", 0x00503002, NULL},
    /* §5.11: 0.05f into VR2; vmovi/vmovh: imm << 20 | rd << 7 | funct3 << 12 | 0x18 */
    {"vmovi ve4, 0xCD", 0x0CD01218, "vmovi ve4, 205"},
    {"vmovh ve4, 0xCC", 0x0CC02218, "vmovh ve4, 204"},
    {"vmovi ve5, 0x4C", 0x04C01298, "vmovi ve5, 76"},
    {"vmovh ve5, 0x3D", 0x03D02298, "vmovh ve5, 61"},
    {"vbcast.reg vr2, vr2", 0x04010115, NULL}, /* funct7 = width 10 */
    /* §5.12 example: funct7 = 0x02 | keep << 4 = 0x12 */
    {"mma vr4, vx0, vx4", 0x04400203, NULL},
    {"mma.last.keep vr4, vx3, vx7", 0x24719203, NULL},
    /* §5.6.1: the Scala assembler's vcvt_f32_s32 word */
    {"vcvt_f32_s32 vr2, vr2", 0x04013114, NULL},
    /* §6.4 programs: vsub.sat funct7 0x10; vcvt_f32_s32 funct3 011, src 010 */
    {"vsub.sat vx2, vx0, vx4", 0x20401110, NULL},
    {"vcvt_f32_s32 vr7, vr7", 0x0403B394, NULL},
    /* §7.4: 200 and -56 give different words */
    {"vbcast.imm vx3, 200", 0x0C801195, NULL},
    {"vbcast.imm vx3, -56", 0xFC801195, NULL},
    {"vmovh ve0, -128", 0xF8002018, NULL},
    {"vmovi ve15, -2048", 0x80001798, NULL},
    /* options in any order and case; canonical order variant, sat, keep, rounding:
     * funct7 = src 011 | sat << 3 | rtz << 4 | e5m2 << 6 = 0x5B */
    {"VCVT_BF8_F32.RTZ.Sat.E5M2 VX1, VR2", 0xB6015094, "vcvt_bf8_f32.e5m2.sat.rtz vx1, vr2"},
    {"vcvt_bf8_f32.e4m3 vx1, vr2", 0x06015094, "vcvt_bf8_f32 vx1, vr2"},
    {"vfadd.rne vr0, vr1, vr2", 0x44208016, "vfadd vr0, vr1, vr2"},
    /* S format: rs3 4 << 27, rnd ceil 11 << 25 */
    {"vfma.ceil vr1, vr2, vr3, vr4", 0x26310097, NULL},
    /* FP funct7 = 0x22 | round << 2; the ignored rounding of vfneg is kept */
    {"vfneg.floor vr7, vr6", 0x54033396, NULL},
    /* REDUCE with a VE source: width 01 */
    {"vsum vr1, ve3", 0x02018092, NULL},
    /* .sat on vmax is encoded although ignored: funct7 = 0x10 | width 01 */
    {"vmax.sat ve1, ve2, ve3", 0x22315090, NULL},
    /* widening conversion with .sat and a rounding: funct7 = src 000 | 1 << 3 | 11 << 4 */
    {"vcvt_s32_s8.sat.ceil vr1, vx4", 0x70022094, NULL},
    /* memory operand without offset, offset expression */
    {"ld.b vx1, (vr3)", 0x00018081, "ld.b vx1, 0(vr3)"},
    {"st.w vr7, 2047(vr7)", 0x7FF3A382, NULL},
    {"ld.h ve2, -2048(vr0)", 0x80001101, NULL},
    {"st.ve ve9, (1 << 4) + 3(vr1)", 0x0130C482, "st.ve ve9, 19(vr1)"},
};

static void check_examples(void)
{
    const onpu_cfg test = cfg_make(32, 8);
    char buf[256];
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        const example *e = &examples[i];
        uint32_t w = asm_one(e->src, &test);
        NPK_REPORT(w == e->word, "asm \"%s\" = 0x%08x, want 0x%08x\n", e->src, w, e->word);
        const char *want = e->text ? e->text : e->src;
        dis(e->word, &test, buf, sizeof buf);
        NPK_REPORT(strcmp(buf, want) == 0, "disasm 0x%08x = \"%s\", want \"%s\"\n", e->word, buf,
                   want);
    }
}

/* §8's table: non-canonical and illegal words print as .word with a comment, and assemble
 * back to themselves. */
static void check_section8(void)
{
    const onpu_cfg test = cfg_make(32, 8);
    char buf[256];
    dis(0x00013F94, &test, buf, sizeof buf);
    NPK_CHECK_CONTAINS(buf, ".word 0x00013f94  # vcvt_f32_s8 vr7, vx2 (non-canonical");
    NPK_CHECK_CONTAINS(buf, "rd field 31");
    dis(0x00208016, &test, buf, sizeof buf);
    NPK_CHECK_CONTAINS(buf, ".word 0x00208016  # vfadd vr0, vr1, vr2 (non-canonical");
    NPK_CHECK_CONTAINS(buf, "funct7 0x00, canonical 0x22");
    dis(0x0000007F, &test, buf, sizeof buf);
    NPK_CHECK_EQ_STR(buf, ".word 0x0000007f  # illegal: reserved opcode 0x7f");
    static const uint32_t words[] = {0x00013F94, 0x00208016, 0x0000007F};
    for (size_t i = 0; i < 3; i++)
        NPK_CHECK_EQ_U64(asm_one(dis(words[i], &test, buf, sizeof buf), &test), words[i]);
    /* nop ignores bits [31:7]: legal, not canonical */
    dis(0xFFFFFF80, &test, buf, sizeof buf);
    NPK_CHECK_CONTAINS(buf, ".word 0xffffff80  # nop (non-canonical");
    /* an ignored rs2 (vneg) and high bits of a VR field (vfneg rd = 9 -> vr1) */
    dis(0x0050B190, &test, buf, sizeof buf); /* vneg vx3, vx1 with rs2 = 5 */
    NPK_CHECK_CONTAINS(buf, "# vneg vx3, vx1 (non-canonical: rs2 field 5)");
    dis(0x44003496, &test, buf, sizeof buf); /* vfneg rd field 9 */
    NPK_CHECK_CONTAINS(buf, "# vfneg vr1, vr0 (non-canonical: rd field 9)");
    /* vbcast.imm with an immediate the assembler refuses (300) */
    dis(0x12C01015, &test, buf, sizeof buf);
    NPK_CHECK_CONTAINS(buf, "# vbcast.imm vx0, 300 (non-canonical: immediate 300 outside");
    /* the ignored rd of `mma` is shown VR-masked: rd field 10 -> vr2, non-canonical */
    dis(0x04000503, &test, buf, sizeof buf);
    NPK_CHECK_CONTAINS(buf, "# mma vr2, vx0, vx0 (non-canonical: rd field 10)");
    /* at L = 16 the feed's rd field 5 is legal (ignored) but vr5 cannot be written */
    const onpu_cfg l16 = cfg_make(16, 8);
    dis(0x04000283, &l16, buf, sizeof buf);
    NPK_CHECK_CONTAINS(buf, "# mma vr5, vx0, vx0 (non-canonical: vr5 does not exist at L/4 = 4)");
    NPK_CHECK_EQ_U64(asm_one(buf, &l16), 0x04000283);
    dis(0x04000683, &l16, buf, sizeof buf); /* rd field 13 -> vr5 */
    NPK_CHECK_CONTAINS(buf, "# mma vr5, vx0, vx0 (non-canonical: rd field 13, vr5 does not exist");
}

/* .word emits raw words (negative values in two's complement); .equ names in expressions. */
static void check_directives(void)
{
    const onpu_cfg test = cfg_make(32, 8);
    uint32_t *w;
    size_t n;
    char *diag;
    int errors = asm_src(".equ SEG, 3\n.equ OFF, -(SEG * 4)  ; comment\n"
                         ".word 0xFFFFFFFF, -1, -2147483648, 0x7F\n"
                         "vsetlut.b vr1, SEG  # segment 3\n"
                         "ld.vx vx2, OFF(vr1)\n\n   \n",
                         &test, &w, &n, &diag);
    NPK_CHECK_EQ_U64(errors, 0);
    NPK_CHECK_EQ_U64(n, 6);
    if (n == 6) {
        NPK_CHECK_EQ_U64(w[0], 0xFFFFFFFF);
        NPK_CHECK_EQ_U64(w[1], 0xFFFFFFFF);
        NPK_CHECK_EQ_U64(w[2], 0x80000000);
        NPK_CHECK_EQ_U64(w[3], 0x0000007F);
        NPK_CHECK_EQ_U64(w[4], 0x0030D013); /* imm 3, rs1 1, funct3 101 */
        NPK_CHECK_EQ_U64(w[5], 0xFF40B101); /* imm -12 = 0xFF4, rs1 1, funct3 011, rd 2 */
    }
    free(w);
    free(diag);
    /* an empty program is fine and has no words */
    errors = asm_src("# nothing\n", &test, &w, &n, &diag);
    NPK_CHECK_EQ_U64(errors, 0);
    NPK_CHECK_EQ_U64(n, 0);
    free(w);
    free(diag);
}

/* onpu_disasm has snprintf semantics: the full length, a NUL-terminated prefix. */
static void check_truncation(void)
{
    const onpu_cfg test = cfg_make(32, 8);
    char buf[10];
    NPK_CHECK_EQ_U64(onpu_disasm(0x44208016, &test, buf, sizeof buf), 19);
    NPK_CHECK_EQ_STR(buf, "vfadd vr0");
    NPK_CHECK_EQ_U64(onpu_disasm(0x0000007F, &test, NULL, 0), 49);
    NPK_CHECK_EQ_U64(onpu_disasm(0x0000007F, &test, buf, 1), 49);
    NPK_CHECK_EQ_STR(buf, "");
}

int main(void)
{
    check_truncation();
    check_examples();
    check_section8();
    check_directives();
    return npk_test_done();
}
