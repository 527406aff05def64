/* opennpu assembler diagnostics (spec §7.5): one case per error class, each checked for its
 * file:line:col location, its message and a non-zero status; several errors in one file;
 * the K > L/4 warning on every mma.last (and its absence at K <= L/4); a configuration that
 * breaks §2.1. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "test.h"

/* Assembling src for c fails and the diagnostics contain each of the needles. */
static void check_err_at(int idx, const onpu_cfg *c, const char *src, const char *where,
                         const char *msg)
{
    uint32_t *w;
    size_t n;
    char *diag;
    int errors = asm_src(src, c, &w, &n, &diag);
    bool ok = errors > 0 && w == NULL && strstr(diag, where) && strstr(diag, msg);
    NPK_REPORT(ok, "case %d: source \"%s\": want %d > 0 errors, \"%s\" and \"%s\" in:\n%s\n",
               idx, src, errors, where, msg, diag);
    free(w);
    free(diag);
}

/* Configurations of the cases. */
enum { TEST, L16, TOP };

typedef struct err_case {
    int cfg;
    const char *src, *where, *msg; /* where: "file:line:col: error:" */
} err_case;

static const err_case err_cases[] = {
    /* mnemonics and options */
    {TEST, "nop\nvfoo vx0, vx1", "t.s:2:1: error:", "unknown mnemonic 'vfoo'"},
    {TEST, "vadd.foo vx0, vx1, vx2", "t.s:1:5: error:", "unknown option '.foo'"},
    {TEST, "vadd.sat.sat vx0, vx1, vx2", "t.s:1:9: error:", "option '.sat' given twice"},
    {TEST, "vfadd.rtz.ceil vr0, vr1, vr2", "t.s:1:10: error:",
     "option '.ceil' conflicts with '.rtz'"},
    {TEST, "vcvt_f32_bf8.e4m3.e5m2 vr0, vx1", "t.s:1:18: error:",
     "option '.e5m2' conflicts with '.e4m3'"},
    {TEST, "vsll.sat vx0, vx1, vx2", "t.s:1:5: error:", "'.sat' is not allowed"},
    {TEST, "vcvt_f32_s8.e5m2 vr0, vx1", "t.s:1:12: error:", "'.e5m2' is not allowed"},
    {TEST, "vadd.rtz vx0, vx1, vx2", "t.s:1:5: error:", "'.rtz' is not allowed"},
    {TEST, "mma.reset.keep", "t.s:1:10: error:", "'.keep' is not allowed"},
    {TEST, "vfma.sat vr0, vr1, vr2, vr3", "t.s:1:5: error:", "'.sat' is not allowed"},
    /* operand count */
    {TEST, "vadd vx0, vx1", "t.s:1:14: error:", "'vadd' needs 3 operands"},
    {TEST, "vneg vx0, vx1, vx2", "t.s:1:14: error:", "too many operands: 'vneg' takes 2"},
    {TEST, "nop vx0", "t.s:1:5: error:", "'nop' takes no operands"},
    {TEST, "mma.reset vr0", "t.s:1:11: error:", "'mma.reset' takes no operands"},
    {TEST, "vfma vr0, vr1, vr2", "t.s:1:19: error:", "'vfma' needs 4 operands"},
    /* operand kinds */
    {TEST, "vlut.a ve0, vx1", "t.s:1:8: error:", "'vlut.a' needs a vx register here"},
    {TEST, "vfadd vr0, vx1, vr2", "t.s:1:12: error:", "needs a vr register here"},
    {TEST, "vmovi vx0, 1", "t.s:1:7: error:", "needs a ve register here"},
    {TEST, "vcvt_s8_f32 vx0, ve1", "t.s:1:18: error:", "needs a vr register here"},
    {TEST, "vsum vx0, vx1", "t.s:1:6: error:", "needs a vr register here"},
    {TEST, "vadd vx0, vx1, 5", "t.s:1:16: error:", "expected a vx register"},
    {TEST, "vbcast.imm vx0, vx1", "t.s:1:17: error:", "register name"},
    {TEST, "ld.vx vx0, 5(vx1)", "t.s:1:14: error:", "vr register"},
    {TEST, "st.b vx0, vr1", "t.s:1:11: error:", "found a register name 'vr1'"},
    /* class mismatch between "w" operands */
    {TEST, "vadd vx0, ve1, vx2", "t.s:1:11: error:",
     "register class mismatch: 've1' is a ve register but 'vx0' is a vx register"},
    {TEST, "vmov vr1, vx4", "t.s:1:11: error:", "register class mismatch"},
    /* registers outside the configuration */
    {TEST, "vfneg vr8, vr0", "t.s:1:7: error:", "'vr8' out of range (vr0..vr7)"},
    {TEST, "vadd vx32, vx0, vx0", "t.s:1:6: error:", "'vx32' out of range (vx0..vx31)"},
    {TEST, "vmovi ve16, 0", "t.s:1:7: error:", "'ve16' out of range (ve0..ve15)"},
    {L16, "vfneg vr4, vr0", "t.s:1:7: error:", "'vr4' out of range (vr0..vr3)"},
    {L16, "ld.b vx16, 0(vr0)", "t.s:1:6: error:", "'vx16' out of range (vx0..vx15)"},
    {L16, "mma vr5, vx0, vx1", "t.s:1:5: error:", "'vr5' out of range (vr0..vr3)"},
    /* immediates out of range */
    {TEST, "vbcast.imm vx0, 256", "t.s:1:17: error:", "immediate 256 out of range (-128..255)"},
    {TEST, "vbcast.imm vx0, -129", "t.s:1:17: error:", "out of range (-128..255)"},
    {TEST, "vmovh ve0, 300", "t.s:1:12: error:", "out of range (-128..255)"},
    {TEST, "vmovi ve0, 2048", "t.s:1:12: error:", "immediate 2048 out of range (-2048..2047)"},
    {TEST, "ld.b vx0, 2048(vr0)", "t.s:1:11: error:", "out of range (-2048..2047)"},
    {TEST, "st.w vr0, -2049(vr0)", "t.s:1:11: error:", "out of range (-2048..2047)"},
    {TEST, "vsetlut.a vr0, 8", "t.s:1:16: error:", "LUT segment 8 out of range (0..7)"},
    {TEST, "vsetlut.b vr0, -1", "t.s:1:16: error:", "out of range (0..7)"},
    {TOP, "vsetlut.a vr0, 1", "t.s:1:16: error:", "LUT segment 1 out of range (0..0)"},
    {TEST, ".word 0x100000000", "t.s:1:7: error:", "out of range"},
    {TEST, ".word -2147483649", "t.s:1:7: error:", "out of range"},
    /* names: undefined, redefined, used before definition, reserved */
    {TEST, "vbcast.imm vx0, FOO", "t.s:1:17: error:", "FOO"},
    {TEST, ".equ A, 1\n.equ A, 2", "t.s:2:6: error:", "redefinition of 'A' (first defined at t.s:1)"},
    {TEST, "vbcast.imm vx0, B\n.equ B, 1", "t.s:1:17: error:", "'B'"},
    {TEST, ".equ vx3, 1", "t.s:1:6: error:", "'vx3' is a register name and cannot be defined"},
    {TEST, ".equ VR9, 1", "t.s:1:6: error:", "register name"},
    {TEST, ".equ sat, 1", "t.s:1:6: error:", "'sat' is an option word"},
    {TEST, ".equ E5M2, 1", "t.s:1:6: error:", "option word"},
    {TEST, ".equ vadd, 1", "t.s:1:6: error:", "'vadd' is a mnemonic"},
    {TEST, ".equ a.b, 1", "t.s:1:6: error:", "no dots"},
    /* expressions */
    {TEST, "vbcast.imm vx0, 1/0", "t.s:1:18: error:", "division by zero"},
    {TEST, ".equ X, 0x7FFFFFFFFFFFFFFF + 1", "t.s:1:28: error:", "overflow"},
    {TEST, ".equ X, 1 << 64", "t.s:1:11: error:", "shift"},
    {TEST, "vbcast.imm vx0, (1 + 2", "t.s:1:", "error:"},
    /* labels and other things that do not parse */
    {TEST, "loop:\nnop", "t.s:1:1: error:", "labels are not allowed in opennpu assembly"},
    {TEST, "loop: nop", "t.s:1:1: error:", "labels are not allowed"},
    {TEST, "vadd vx0, vx1, vx2 junk", "t.s:1:20: error:", "unexpected"},
    {TEST, ".byte 1", "t.s:1:1: error:", "unknown directive '.byte'"},
    {TEST, "123", "t.s:1:1: error:", "expected a mnemonic"},
    {TEST, "ld.b vx0, 4(vr0", "t.s:1:", "error:"},
    {TEST, "vadd vx0 vx1, vx2", "t.s:1:10: error:", "expected ','"},
};

static void check_errors(void)
{
    const onpu_cfg cfgs[3] = {cfg_make(32, 8), cfg_make(16, 8), cfg_make(32, 64)};
    for (size_t i = 0; i < sizeof err_cases / sizeof err_cases[0]; i++) {
        const err_case *e = &err_cases[i];
        check_err_at((int)i, &cfgs[e->cfg], e->src, e->where, e->msg);
    }
}

/* Every error of a file is reported, each on its own line. */
static void check_several(void)
{
    const onpu_cfg test = cfg_make(32, 8);
    uint32_t *w;
    size_t n;
    char *diag;
    int errors = asm_src("vadd vx0, vx1, vx2\nvfoo\nnop\nvr1:\nvmovi ve0, 5000\n", &test, &w,
                         &n, &diag);
    NPK_CHECK_EQ_U64(errors, 3);
    NPK_CHECK_CONTAINS(diag, "t.s:2:1: error: unknown mnemonic 'vfoo'");
    NPK_CHECK_CONTAINS(diag, "t.s:4:");
    NPK_CHECK_CONTAINS(diag, "t.s:5:12: error: immediate 5000 out of range");
    NPK_CHECK(w == NULL);
    free(w);
    free(diag);
}

/* The K > L/4 warning: every mma.last, assembly still succeeds. */
static void check_warning(void)
{
    const char *src = "mma vr0, vx0, vx1\nmma.last vr0, vx2, vx3\nmma.last.keep vr1, vx2, vx3\n";
    const onpu_cfg top = cfg_make(32, 64), test = cfg_make(32, 8), l16 = cfg_make(16, 8),
                   l8k4 = cfg_make(8, 4), l16k4 = cfg_make(16, 4);
    uint32_t *w;
    size_t n;
    char *diag;
    NPK_CHECK_EQ_U64(asm_src(src, &top, &w, &n, &diag), 0);
    NPK_CHECK_EQ_U64(n, 3);
    if (n == 3) /* mma.last.keep vr1, vx2, vx3: 0x24 f7, rs2 3, rs1 2, funct3 1, rd 1 */
        NPK_CHECK_EQ_U64(w[2], 0x24311083);
    NPK_CHECK_CONTAINS(diag, "t.s:2:1: warning: mma.last drains 64 columns into 8 vr registers");
    NPK_CHECK_CONTAINS(diag, "t.s:3:1: warning:");
    NPK_CHECK(strstr(diag, "t.s:1:") == NULL);
    free(w);
    free(diag);
    /* K = 8 > L/4 = 4, and K = 4 > L/4 = 2 */
    NPK_CHECK_EQ_U64(asm_src(src, &l16, &w, &n, &diag), 0);
    NPK_CHECK_CONTAINS(diag, "t.s:2:1: warning: mma.last drains 8 columns into 4 vr registers");
    free(w);
    free(diag);
    NPK_CHECK_EQ_U64(asm_src("mma.last vr1, vx2, vx3", &l8k4, &w, &n, &diag), 0);
    NPK_CHECK_CONTAINS(diag, "t.s:1:1: warning:");
    free(w);
    free(diag);
    /* K = L/4: no warning */
    NPK_CHECK_EQ_U64(asm_src(src, &test, &w, &n, &diag), 0);
    NPK_CHECK_EQ_STR(diag, "");
    free(w);
    free(diag);
    NPK_CHECK_EQ_U64(asm_src(src, &l16k4, &w, &n, &diag), 0);
    NPK_CHECK_EQ_STR(diag, "");
    free(w);
    free(diag);
}

/* A configuration that breaks §2.1 is refused before the source is read. */
static void check_bad_config(void)
{
    static const unsigned bad[][2] = {{6, 8}, {36, 8}, {0, 8}, {32, 12}, {32, 128}, {32, 0}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const onpu_cfg c = cfg_make(bad[i][0], bad[i][1]);
        uint32_t *w;
        size_t n;
        char *diag;
        NPK_CHECK_EQ_U64(asm_src("nop", &c, &w, &n, &diag), 1);
        NPK_CHECK_CONTAINS(diag, "t.s: error: opennpu configuration L=");
        NPK_CHECK(w == NULL);
        free(w);
        free(diag);
        /* the decoder does not trap on it either: segment 9 is beyond 64/K for every K here
         * (K = 0 counts as no segments) or vr0 is beyond L/4 = 0 */
        onpu_decoded d;
        NPK_CHECK_EQ_U64(onpu_decode(0x00904013, &c, &d, NULL, 0), (uint64_t)-1);
    }
}

int main(void)
{
    check_bad_config();
    check_errors();
    check_several();
    check_warning();
    return npk_test_done();
}
