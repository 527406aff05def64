/* opennpu decoder legality (spec §4.5): the informative count of 67 legal (opcode, funct3)
 * pairs, each rule with its reason and in order, register ranges at L = 16 and L = 4 (rule 5),
 * LUT segments at K = 4, 8 and 64 (rule 6), I- and S-type words never checked for width or
 * dtype, and the decoded fields (masked registers, options, unused fields 0). */
#include <string.h>

#include "helpers.h"
#include "test.h"

/* decode w; returns the reason ("" when legal) in a caller buffer */
static const char *reason(uint32_t w, const onpu_cfg *c, char *buf, size_t n)
{
    onpu_decoded d;
    int rc = onpu_decode(w, c, &d, buf, n);
    if (rc == 0)
        buf[0] = '\0';
    else if (d.op != ONPU_OP_ILLEGAL)
        snprintf(buf, n, "BAD: op %u with rc %d", d.op, rc);
    return buf;
}

static void check_count(void)
{
    /* §4.5: NOP 8, LD 6, ST 6, MMA 3, ARITH 8, LOGIC 8, REDUCE 6, LUT 4, CVT 2, BCAST 2, FP 7,
     * FMA 4, MOV 3 */
    static const struct {
        unsigned opcode, legal;
    } fam[] = {{0x00, 8}, {0x01, 6}, {0x02, 6}, {0x03, 3}, {0x10, 8}, {0x11, 8}, {0x12, 6},
               {0x13, 4}, {0x14, 2}, {0x15, 2}, {0x16, 7}, {0x17, 4}, {0x18, 3}};
    const onpu_cfg test = cfg_make(32, 8);
    unsigned total = 0, per[128] = {0};
    for (unsigned opcode = 0; opcode < 128; opcode++)
        for (unsigned f3 = 0; f3 < 8; f3++) {
            onpu_decoded d;
            if (onpu_decode(opcode | f3 << 12, &test, &d, NULL, 0) == 0) {
                total++;
                per[opcode]++;
            }
        }
    NPK_CHECK_EQ_U64(total, 67);
    unsigned listed = 0;
    for (size_t i = 0; i < sizeof fam / sizeof fam[0]; i++) {
        NPK_REPORT(per[fam[i].opcode] == fam[i].legal, "opcode 0x%02x: %u legal, want %u\n",
                   fam[i].opcode, per[fam[i].opcode], fam[i].legal);
        listed += per[fam[i].opcode];
    }
    NPK_CHECK_EQ_U64(listed, 67); /* nothing legal outside the 13 opcodes */
    /* CVT with source code 000: only s8 -> s32 (funct3 010) and s8 -> f32 (011) */
    onpu_decoded d;
    NPK_CHECK(onpu_decode(0x2014, &test, &d, NULL, 0) == 0 && d.op == ONPU_OP_VCVT_S32_S8);
    NPK_CHECK(onpu_decode(0x3014, &test, &d, NULL, 0) == 0 && d.op == ONPU_OP_VCVT_F32_S8);
}

typedef struct rule_case {
    uint32_t w;
    const char *why; /* "" = legal */
} rule_case;

/* Word layouts of §4.1, written independently of isa.def. */
#define RW(f7, rs2, rs1, f3, rd, opc)                                                          \
    ((uint32_t)(f7) << 25 | (uint32_t)(rs2) << 20 | (uint32_t)(rs1) << 15 |                   \
     (uint32_t)(f3) << 12 | (uint32_t)(rd) << 7 | (uint32_t)(opc))
#define IW(imm, rs1, f3, rd, opc) RW(((uint32_t)(imm) & 0xFFF) >> 5, (imm) & 31, rs1, f3, rd, opc)
#define SW(rs3, rnd, rs2, rs1, f3, rd, opc) RW((rs3) << 2 | (rnd), rs2, rs1, f3, rd, opc)
/* standard attribute layout: dtype [6:5], sat [4], round [3:2], width [1:0] */
#define F7(dtype, sat, round, width) ((dtype) << 5 | (sat) << 4 | (round) << 2 | (width))
/* CVT layout: var [6], round [5:4], sat [3], src [2:0] */
#define F7C(var, round, sat, src) ((var) << 6 | (round) << 4 | (sat) << 3 | (src))

static void check_cases(const rule_case *cs, size_t n, const onpu_cfg *c, const char *cname)
{
    char buf[160];
    for (size_t i = 0; i < n; i++) {
        reason(cs[i].w, c, buf, sizeof buf);
        NPK_REPORT(strcmp(buf, cs[i].why) == 0, "%s case %zu: 0x%08x: \"%s\", want \"%s\"\n",
                   cname, i, cs[i].w, buf, cs[i].why);
    }
}
#define CHECK_CASES(cs, c, name) check_cases(cs, sizeof cs / sizeof cs[0], c, name)

static void check_rules(void)
{
    static const rule_case cs[] = {
        /* rule 1: all 7 opcode bits count */
        {0x0000007F, "reserved opcode 0x7f"},
        {0x00000020, "reserved opcode 0x20"},
        {0x00000040, "reserved opcode 0x40"},
        {0x00000050, "reserved opcode 0x50"},
        {0x00000004, "reserved opcode 0x04"},
        {0x0000000F, "reserved opcode 0x0f"},
        {0x00000019, "reserved opcode 0x19"},
        {RW(F7(3, 0, 0, 3), 0, 0, 0, 0, 0x63), "reserved opcode 0x63"}, /* before rule 4 */
        /* rule 2 */
        {RW(0, 0, 0, 6, 0, 0x01), "reserved funct3 110 for LD"},
        {RW(0, 0, 0, 7, 0, 0x02), "reserved funct3 111 for ST"},
        {RW(0, 0, 0, 3, 0, 0x03), "reserved funct3 011 for MMA"},
        {RW(F7(3, 0, 0, 3), 0, 0, 3, 0, 0x03), "reserved funct3 011 for MMA"}, /* before 4 */
        {RW(0, 0, 0, 6, 0, 0x12), "reserved funct3 110 for VALU_REDUCE"},
        {RW(0, 0, 0, 2, 0, 0x13), "reserved funct3 010 for VALU_LUT"},
        {RW(0, 0, 0, 7, 0, 0x13), "reserved funct3 111 for VALU_LUT"},
        {RW(0, 0, 0, 2, 0, 0x15), "reserved funct3 010 for VALU_BCAST"},
        {RW(0, 0, 0, 7, 0, 0x16), "reserved funct3 111 for VALU_FP"},
        {RW(0, 0, 0, 4, 0, 0x17), "reserved funct3 100 for VALU_FP_FMA"},
        {RW(0, 0, 0, 3, 0, 0x18), "reserved funct3 011 for VALU_MOV"},
        /* rule 3: funct3 = destination, funct7[2:0] = source */
        {RW(F7C(0, 0, 0, 0), 0, 0, 1, 0, 0x14), "illegal conversion s8 -> s16"},
        {RW(F7C(0, 0, 0, 0), 0, 0, 4, 0, 0x14), "illegal conversion s8 -> bf16"},
        {RW(F7C(0, 0, 0, 3), 0, 0, 3, 0, 0x14), "illegal conversion f32 -> f32"},
        {RW(F7C(0, 0, 0, 0), 0, 0, 0, 0, 0x14), "illegal conversion s8 -> s8"},
        {RW(F7C(0, 0, 0, 3), 0, 0, 6, 0, 0x14), "illegal conversion f32 -> reserved format 110"},
        {RW(F7C(1, 3, 1, 7), 0, 0, 3, 0, 0x14), "illegal conversion reserved format 111 -> f32"},
        {RW(F7C(0, 0, 0, 5), 0, 0, 5, 0, 0x14), "illegal conversion bf8 -> bf8"},
        {RW(F7C(0, 0, 0, 1), 0, 0, 3, 0, 0x14), "illegal conversion s16 -> f32"},
        /* rule 4: standard R rows, even where the sub-field is unused */
        {RW(F7(0, 0, 0, 3), 0, 0, 0, 0, 0x10), "reserved width 11"},
        {RW(F7(3, 0, 0, 0), 0, 0, 0, 0, 0x10), "reserved dtype 11"},
        {RW(F7(3, 0, 0, 3), 0, 0, 0, 0, 0x10), "reserved width 11"}, /* width first */
        {RW(F7(1, 0, 0, 3), 0, 0, 0, 0, 0x16), "reserved width 11"}, /* FP */
        {RW(F7(3, 0, 0, 2), 0, 0, 0, 0, 0x16), "reserved dtype 11"},
        {RW(F7(0, 0, 0, 3), 0, 0, 0, 0, 0x03), "reserved width 11"}, /* MMA */
        {RW(F7(3, 0, 0, 2), 0, 0, 2, 0, 0x03), "reserved dtype 11"}, /* mma.reset */
        {RW(F7(0, 0, 0, 3), 0, 0, 0, 0, 0x13), "reserved width 11"}, /* vlut.a */
        {RW(F7(3, 0, 0, 0), 0, 0, 0, 0, 0x15), "reserved dtype 11"}, /* vbcast.reg */
        {RW(F7(0, 0, 0, 3), 0, 0, 0, 0, 0x18), "reserved width 11"}, /* vmov */
        {RW(F7(3, 0, 0, 0), 0, 0, 5, 0, 0x12), "reserved dtype 11"}, /* vrxor */
        /* legal: round, sat never matter */
        {RW(F7(2, 1, 3, 2), 1, 2, 7, 3, 0x10), ""},
        /* legal: NOP, VALU_CVT and I/S words have no standard attribute layout */
        {0xFFFFFF80, ""},
        {RW(F7C(1, 2, 0, 5), 0, 1, 3, 0, 0x14), ""}, /* vcvt_f32_bf8, var 1, round 10 */
        {RW(F7C(1, 3, 1, 0), 0, 1, 3, 0, 0x14), ""}, /* vcvt_f32_s8, every attribute bit */
        {IW(99, 0, 1, 3, 0x15), ""},  /* vbcast.imm vx3, 99: imm[6:5] = 11 */
        {IW(-20, 0, 1, 3, 0x15), ""}, /* imm[11:10] = 11 */
        {IW(-1, 31, 1, 3, 0x15), ""}, /* and rs1 ignored */
        {IW(-1, 2, 5, 1, 0x01), ""},  /* ld.vr vr1, -1(vr2) */
        {IW(-1, 2, 5, 1, 0x02), ""},  /* st.vr */
        {IW(-1, 0, 1, 0, 0x18), ""},  /* vmovi */
        {IW(-1, 0, 2, 0, 0x18), ""},  /* vmovh */
        {SW(31, 3, 7, 7, 0, 7, 0x17), ""}, /* vfma, rs3 31 (vr7), rnd 11 */
        {SW(24, 2, 0, 0, 3, 0, 0x17), ""}, /* vnfms, rs3 24 */
    };
    const onpu_cfg test = cfg_make(32, 8);
    CHECK_CASES(cs, &test, "test");
}

/* rule 5 at L = 16 and L = 4 (rule 4 before it, rule 5 before rule 6) */
static void check_registers(void)
{
    static const rule_case c16[] = {
        /* VX: 16 registers, the whole field is used */
        {RW(F7(0, 0, 0, 0), 15, 15, 0, 15, 0x10), ""},
        {RW(F7(0, 0, 0, 0), 0, 0, 0, 16, 0x10), "register vx16 out of range (L = 16)"},
        {RW(F7(0, 0, 0, 0), 16, 0, 0, 0, 0x10), "register vx16 out of range (L = 16)"},
        {RW(F7(0, 0, 0, 0), 0, 31, 0, 0, 0x10), "register vx31 out of range (L = 16)"},
        {RW(0, 0, 17, 1, 3, 0x13), "register vx17 out of range (L = 16)"}, /* vlut.b rs1 */
        {RW(F7(0, 0, 0, 2), 0, 0, 0, 16, 0x03), ""},  /* mma: rd ignored */
        {RW(F7(0, 0, 0, 2), 16, 0, 0, 0, 0x03), "register vx16 out of range (L = 16)"},
        {IW(0, 0, 1, 16, 0x15), "register vx16 out of range (L = 16)"}, /* vbcast.imm */
        {IW(0, 0, 0, 20, 0x01), "register vx20 out of range (L = 16)"}, /* ld.b */
        {RW(F7C(0, 0, 0, 2), 0, 0, 0, 16, 0x14), "register vx16 out of range (L = 16)"},
        /* VE: 8 registers, low 4 bits: fields 8 and 24 -> ve8, 16 -> ve0 */
        {RW(F7(0, 0, 0, 1), 0, 0, 0, 8, 0x10), "register ve8 out of range (L/2 = 8)"},
        {RW(F7(0, 0, 0, 1), 0, 0, 0, 24, 0x10), "register ve8 out of range (L/2 = 8)"},
        {RW(F7(0, 0, 0, 1), 16, 16, 0, 16, 0x10), ""},
        {IW(0, 0, 1, 9, 0x18), "register ve9 out of range (L/2 = 8)"},  /* vmovi */
        {IW(0, 0, 4, 15, 0x02), "register ve15 out of range (L/2 = 8)"}, /* st.ve source */
        {RW(F7C(0, 0, 0, 4), 0, 8, 3, 0, 0x14), "register ve8 out of range (L/2 = 8)"},
        /* VR: 4 registers, low 3 bits: 4 and 12 bad, 8 -> vr0 */
        {RW(F7(0, 0, 0, 2), 0, 0, 0, 4, 0x10), "register vr4 out of range (L/4 = 4)"},
        {RW(F7(0, 0, 0, 2), 0, 0, 0, 12, 0x10), "register vr4 out of range (L/4 = 4)"},
        {RW(F7(0, 0, 0, 2), 8, 8, 0, 8, 0x10), ""},
        {RW(F7(0, 0, 0, 0), 0, 5, 0, 3, 0x12), ""},  /* vsum vr3, vx5 */
        {RW(F7(0, 0, 0, 0), 0, 5, 0, 7, 0x12), "register vr7 out of range (L/4 = 4)"},
        {SW(4, 0, 0, 0, 0, 0, 0x17), "register vr4 out of range (L/4 = 4)"}, /* rs3 */
        {SW(3, 0, 5, 0, 0, 0, 0x17), "register vr5 out of range (L/4 = 4)"}, /* rs2 */
        {IW(0, 4, 0, 0, 0x01), "register vr4 out of range (L/4 = 4)"}, /* ld.b base */
        {IW(-1, 3, 5, 3, 0x02), ""},                                   /* st.vr vr3, -1(vr3) */
        {RW(F7(0, 0, 0, 2), 0, 0, 1, 4, 0x03), "register vr4 out of range (L/4 = 4)"},
        {RW(F7(0, 0, 0, 2), 31, 31, 2, 31, 0x03), ""}, /* mma.reset: all ignored */
        {IW(2, 3, 4, 31, 0x13), ""},                   /* vsetlut.a vr3, 2; rd ignored */
        {IW(0, 4, 5, 0, 0x13), "register vr4 out of range (L/4 = 4)"},
        {IW(9, 4, 4, 0, 0x13), "register vr4 out of range (L/4 = 4)"}, /* rule 5 before 6 */
        {RW(F7(2, 0, 0, 3), 31, 31, 0, 31, 0x16), "reserved width 11"}, /* rule 4 before 5 */
        {RW(F7(1, 0, 0, 2), 0, 6, 4, 7, 0x16), "register vr7 out of range (L/4 = 4)"},
        /* NOP: never */
        {0xFFFFFF80, ""},
    };
    static const rule_case c4[] = {
        {RW(F7(0, 0, 0, 0), 3, 3, 0, 3, 0x10), ""},
        {RW(F7(0, 0, 0, 0), 4, 0, 0, 0, 0x10), "register vx4 out of range (L = 4)"},
        {RW(F7(0, 0, 0, 1), 1, 1, 0, 1, 0x10), ""},
        {RW(F7(0, 0, 0, 1), 0, 2, 0, 0, 0x10), "register ve2 out of range (L/2 = 2)"},
        {RW(F7(0, 0, 0, 1), 0, 18, 0, 0, 0x10), "register ve2 out of range (L/2 = 2)"},
        {RW(F7(0, 0, 0, 2), 8, 16, 0, 24, 0x10), ""}, /* all vr0 after masking */
        {RW(F7(0, 0, 0, 2), 0, 0, 0, 1, 0x10), "register vr1 out of range (L/4 = 1)"},
        {SW(1, 0, 0, 0, 0, 0, 0x17), "register vr1 out of range (L/4 = 1)"},
        {SW(8, 3, 16, 24, 3, 0, 0x17), ""},
        {IW(0, 1, 5, 0, 0x01), "register vr1 out of range (L/4 = 1)"},
        {RW(F7(0, 0, 0, 2), 3, 3, 0, 5, 0x03), ""}, /* mma feed: rd ignored */
        {RW(F7(0, 0, 0, 2), 3, 3, 1, 1, 0x03), "register vr1 out of range (L/4 = 1)"},
        {RW(F7C(0, 0, 0, 3), 0, 0, 5, 4, 0x14), "register vx4 out of range (L = 4)"},
        {RW(F7C(0, 0, 0, 4), 0, 2, 3, 0, 0x14), "register ve2 out of range (L/2 = 2)"},
    };
    const onpu_cfg l16 = cfg_make(16, 8), l4 = cfg_make(4, 8), l32 = cfg_make(32, 8);
    CHECK_CASES(c16, &l16, "L=16");
    CHECK_CASES(c4, &l4, "L=4");
    /* at L = 32 every masked index is in range: rule 5 never fires */
    char buf[160];
    for (size_t i = 0; i < sizeof c16 / sizeof c16[0]; i++)
        if (strncmp(c16[i].why, "register", 8) == 0)
            NPK_REPORT(strncmp(reason(c16[i].w, &l32, buf, sizeof buf), "register", 8) != 0,
                       "L=32: 0x%08x: %s\n", c16[i].w, buf);
    NPK_CHECK_EQ_STR(reason(IW(9, 4, 4, 0, 0x13), &l32, buf, sizeof buf),
                     "LUT segment 9 out of range 0..7");
}

/* rule 6 */
static void check_segments(void)
{
    static const rule_case k8[] = {
        {IW(0, 1, 4, 0, 0x13), ""},
        {IW(7, 1, 5, 0, 0x13), ""},
        {IW(8, 1, 4, 0, 0x13), "LUT segment 8 out of range 0..7"},
        {IW(-1, 1, 5, 0, 0x13), "LUT segment -1 out of range 0..7"},
        {IW(2047, 1, 5, 0, 0x13), "LUT segment 2047 out of range 0..7"},
        {IW(-2048, 1, 5, 0, 0x13), "LUT segment -2048 out of range 0..7"},
    };
    static const rule_case k64[] = {
        {IW(0, 7, 4, 31, 0x13), ""},
        {IW(1, 1, 4, 0, 0x13), "LUT segment 1 out of range 0..0"},
        {IW(7, 1, 5, 0, 0x13), "LUT segment 7 out of range 0..0"},
        {IW(-1, 1, 5, 0, 0x13), "LUT segment -1 out of range 0..0"},
    };
    static const rule_case k4[] = {
        {IW(15, 1, 4, 0, 0x13), ""},
        {IW(16, 1, 4, 0, 0x13), "LUT segment 16 out of range 0..15"},
    };
    const onpu_cfg test = cfg_make(32, 8), top = cfg_make(32, 64), c4 = cfg_make(8, 4);
    CHECK_CASES(k8, &test, "K=8");
    CHECK_CASES(k64, &top, "K=64");
    CHECK_CASES(k4, &c4, "K=4");
}

/* Decoded fields: masked registers, class, options, imm, and 0 in unused fields. */
static void check_fields(void)
{
    const onpu_cfg test = cfg_make(32, 8);
    onpu_decoded d;
    /* vcvt_s8_f32.sat vx31, vr2 (§7.4) */
    NPK_CHECK_EQ_U64(onpu_decode(0x16010F94, &test, &d, NULL, 0), 0);
    NPK_CHECK_EQ_U64(d.op, ONPU_OP_VCVT_S8_F32);
    NPK_CHECK(d.cls == ONPU_VX && d.src_cls == ONPU_VR && d.cvt_dst == 0 && d.cvt_src == 3);
    NPK_CHECK(d.rd == 31 && d.rs1 == 2 && d.rs2 == 0 && d.rs3 == 0 && d.sat == 1);
    NPK_CHECK(d.round == 0 && d.var == 0 && d.keep == 0 && d.imm == 0 && d.mma_rd == 0);
    /* vcvt_f32_bf8.e5m2 with rs2 = 9 (ignored) and round 11 */
    NPK_CHECK_EQ_U64(onpu_decode(RW(F7C(1, 3, 0, 5), 9, 1, 3, 0, 0x14), &test, &d, NULL, 0), 0);
    NPK_CHECK(d.op == ONPU_OP_VCVT_F32_BF8 && d.var == 1 && d.round == 3 && d.rs2 == 0);
    /* var is ignored (0) on a conversion without bf8 */
    NPK_CHECK_EQ_U64(onpu_decode(RW(F7C(1, 0, 0, 0), 0, 1, 3, 0, 0x14), &test, &d, NULL, 0), 0);
    NPK_CHECK(d.op == ONPU_OP_VCVT_F32_S8 && d.var == 0);
    /* vsum vr1, ve3 */
    NPK_CHECK_EQ_U64(onpu_decode(0x02018092, &test, &d, NULL, 0), 0);
    NPK_CHECK(d.op == ONPU_OP_VSUM && d.cls == ONPU_VE && d.src_cls == ONPU_VE);
    NPK_CHECK(d.rd == 1 && d.rs1 == 3);
    /* VR masking: vsra with fields 11, 13, 31 -> vr3, vr5, vr7; round bits on LOGIC ignored */
    NPK_CHECK_EQ_U64(onpu_decode(RW(F7(0, 1, 3, 2), 31, 13, 2, 11, 0x11), &test, &d, NULL, 0), 0);
    NPK_CHECK(d.op == ONPU_OP_VSRA && d.rd == 3 && d.rs1 == 5 && d.rs2 == 7 && d.cls == ONPU_VR);
    NPK_CHECK(d.round == 0 && d.sat == 0);
    /* VE masking: vadd.sat fields 17, 30, 15 -> ve1, ve14, ve15 */
    NPK_CHECK_EQ_U64(onpu_decode(RW(F7(0, 1, 0, 1), 15, 30, 0, 17, 0x10), &test, &d, NULL, 0), 0);
    NPK_CHECK(d.rd == 1 && d.rs1 == 14 && d.rs2 == 15 && d.sat == 1 && d.cls == ONPU_VE);
    /* vneg: rs2 unused -> 0 */
    NPK_CHECK_EQ_U64(onpu_decode(RW(F7(0, 0, 0, 0), 5, 1, 3, 3, 0x10), &test, &d, NULL, 0), 0);
    NPK_CHECK(d.op == ONPU_OP_VNEG && d.rs2 == 0 && d.rd == 3 && d.rs1 == 1);
    /* vfma.ceil vr1, vr2, vr3, vr4 */
    NPK_CHECK_EQ_U64(onpu_decode(0x26310097, &test, &d, NULL, 0), 0);
    NPK_CHECK(d.op == ONPU_OP_VFMA && d.rd == 1 && d.rs1 == 2 && d.rs2 == 3 && d.rs3 == 4);
    NPK_CHECK(d.round == 3);
    /* vfadd.floor: round from funct7; cls unused */
    NPK_CHECK_EQ_U64(onpu_decode(RW(F7(1, 1, 2, 2), 2, 1, 0, 0, 0x16), &test, &d, NULL, 0), 0);
    NPK_CHECK(d.op == ONPU_OP_VFADD && d.round == 2 && d.sat == 0);
    /* ld.vr vr1, -1(vr2) */
    NPK_CHECK_EQ_U64(onpu_decode(0xFFF15081, &test, &d, NULL, 0), 0);
    NPK_CHECK(d.op == ONPU_OP_LD_VR && d.imm == -1 && d.rd == 1 && d.rs1 == 2 && d.rs2 == 0);
    /* vbcast.imm vx3, 2047 with rs1 = 31 (ignored) */
    NPK_CHECK_EQ_U64(onpu_decode(IW(2047, 31, 1, 3, 0x15), &test, &d, NULL, 0), 0);
    NPK_CHECK(d.op == ONPU_OP_VBCAST_IMM && d.imm == 2047 && d.rs1 == 0 && d.rd == 3);
    /* mma.keep vr2, vx0, vx8: rd is ignored (0), mma_rd keeps the text's vr2 */
    NPK_CHECK_EQ_U64(onpu_decode(0x24800103, &test, &d, NULL, 0), 0);
    NPK_CHECK(d.op == ONPU_OP_MMA && d.rd == 0 && d.mma_rd == 2 && d.keep == 1 && d.rs2 == 8);
    /* mma.last: rd is the drain base */
    NPK_CHECK_EQ_U64(onpu_decode(0x04801103 | 9u << 7, &test, &d, NULL, 0), 0);
    NPK_CHECK(d.op == ONPU_OP_MMA_LAST && d.rd == 3 && d.mma_rd == 0);
    /* nop: everything 0 */
    NPK_CHECK_EQ_U64(onpu_decode(0xFFFFFF80, &test, &d, NULL, 0), 0);
    NPK_CHECK(d.op == ONPU_OP_NOP && d.rd == 0 && d.rs1 == 0 && d.imm == 0 && d.cls == 0);
    /* illegal: op ILLEGAL, why filled, NULL why accepted */
    char why[8];
    NPK_CHECK_EQ_U64(onpu_decode(0x7F, &test, &d, why, sizeof why), (uint64_t)-1);
    NPK_CHECK(d.op == ONPU_OP_ILLEGAL && strlen(why) == 7); /* truncated safely */
    NPK_CHECK_EQ_U64(onpu_decode(0x7F, &test, &d, NULL, 0), (uint64_t)-1);
}

/* isa.def's rows: operand and option lists parse, masks cover opcode and funct3, no overlap
 * on the 1024 (opcode, funct3) x 8 source codes. */
static void check_table(void)
{
    for (unsigned op = 0; op < ONPU_N_OPS; op++) {
        onpu_kind k[ONPU_MAX_OPERANDS];
        NPK_REPORT(onpu_operands((onpu_op)op, k) >= 0, "row %s: bad operands\n",
                   onpu_mnemonics[op]);
        NPK_REPORT(onpu_insns[op].options[0] == '\0' || onpu_options((onpu_op)op) != 0,
                   "row %s: bad options\n", onpu_mnemonics[op]);
        NPK_REPORT((onpu_insns[op].match & ~onpu_insns[op].mask) == 0, "row %s: match/mask\n",
                   onpu_mnemonics[op]);
    }
    unsigned overlaps = 0;
    for (uint32_t w = 0; w < 1u << 15; w++)
        for (uint32_t src = 0; src < 8; src++) {
            unsigned hits = 0;
            for (unsigned op = 0; op < ONPU_N_OPS; op++)
                hits += ((w | src << 25) & onpu_insns[op].mask) == onpu_insns[op].match;
            overlaps += hits > 1;
        }
    NPK_CHECK_EQ_U64(overlaps, 0);
    NPK_CHECK_EQ_STR(onpu_unit_names[onpu_insns[ONPU_OP_LD_B].unit], "mem");
    NPK_CHECK_EQ_STR(onpu_unit_names[onpu_insns[ONPU_OP_MMA_LAST].unit], "mma");
    NPK_CHECK_EQ_STR(onpu_unit_names[onpu_insns[ONPU_OP_NOP].unit], "none");
    NPK_CHECK_EQ_U64(onpu_insns[ONPU_OP_MMA_LAST].latency, ONPU_LAT_DRAIN);
    NPK_CHECK_EQ_U64(onpu_insns[ONPU_OP_VCVT_BF8_F32].latency, 2);
    NPK_CHECK_EQ_U64(onpu_insns[ONPU_OP_ST_VR].latency, ONPU_LAT_MEM);
    NPK_CHECK_EQ_STR(onpu_cvt_fmts[4].name, "bf16");
    NPK_CHECK_EQ_U64(onpu_cvt_fmts[4].cls, ONPU_VE);
}

int main(void)
{
    check_count();
    check_rules();
    check_registers();
    check_segments();
    check_fields();
    check_table();
    return npk_test_done();
}
