/* rvnpu CPU core: hand-encoded words per instruction class, execution of small assembled
 * programs (RV32I/M/F, Zicsr, traps and their diagnostics, syscalls, the file sandbox,
 * tohost, self-modifying code) through the public API. Expected values are worked out by
 * hand in the comments. */
#define _XOPEN_SOURCE 700
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npukit/npukit.h"
#include "targets/rvnpu/asm.h"
#include "test.h"

/* Assemble one line at 0x80000000 and return its first word (0xDEADBEEF on error). */
static uint32_t asm1(const char *line)
{
    npk_asm_result *r;
    FILE *diag = strncmp(line, "x10:", 4) == 0 ? NULL : stderr; /* an expected error */
    if (rvnpu_assemble(line, strlen(line), "t.s", diag, &r) != 0)
        return 0xDEADBEEFu;
    size_t n;
    const uint8_t *img = npk_asm_result_image(r, 0, &n, NULL, NULL);
    uint32_t w = n >= 4 ? (uint32_t)img[0] | (uint32_t)img[1] << 8 | (uint32_t)img[2] << 16 |
                              (uint32_t)img[3] << 24
                        : 0xDEADBEEFu;
    npk_asm_result_free(r);
    return w;
}

static void check_encodings(void)
{
    static const struct {
        const char *src;
        uint32_t word;
    } t[] = {
        /* imm 16 << 20 | rs1 2 << 15 | rd 10 << 7 | 0x13 */
        {"addi a0, sp, 16", 0x01010513},
        /* 8 << 20 | s0 (8) << 15 | funct3 2 | a5 (15) << 7 | 0x03 */
        {"lw a5, 8(s0)", 0x00842783},
        /* -4 = 0xFFC: imm[11:5] 0x7F, imm[4:0] 0x1C; rs2 15, rs1 8, funct3 2, 0x23 */
        {"sw a5, -4(s0)", 0xFEF42E23},
        /* offset +16 from 0x80000000: imm[4:1] = 8 -> bits 11:8 */
        {"beq a0, a1, 0x80000010", 0x00B50863},
        /* offset +0x100: imm[10:1] = 0x80 -> bits 30:21 */
        {"jal ra, 0x80000100", 0x100000EF},
        {"lui a0, 0x12345", 0x12345537},
        /* csr 0x340 << 20 | a1 << 15 | funct3 1 | a0 << 7 | 0x73 */
        {"csrrw a0, mscratch, a1", 0x34059573},
        {"csrrs a0, 0xC02, zero", 0xC0202573},
        /* rm rtz = 1 in funct3 */
        {"fadd.s fa0, fa1, fa2, rtz", 0x00C59553},
        {"fadd.s fa0, fa1, fa2", 0x00C5F553},
        /* rs3 13 << 27 | fa2 << 20 | fa1 << 15 | dyn | fa0 << 7 | 0x43 */
        {"fmadd.s fa0, fa1, fa2, fa3", 0x68C5F543},
        {"fcvt.w.s a0, fa0, rtz", 0xC0051553},
        {"mul a0, a1, a2", 0x02C58533},
        {"srai a0, a0, 31", 0x41F55513},
        {"ecall", 0x00000073},
        {"mret", 0x30200073},
        {"x10: addi x10, x10, 1", 0x00150513},
        /* spec §3.3 example words */
        {"npu.vmac a2, a0, a1", 0x02B5060B},
        {"npu.fvreduce fa0, a0, a1", 0x0AB5052B},
        {"npu.ldvec v1, 8(a0)", 0x0085608B},
        {".insn r 0x0B, 0, 1, a2, a0, a1", 0x02B5060B},
        /* GNU fence sets: pred in bits 27:24, succ in 23:20 (i o r w = 8 4 2 1) */
        {"fence", 0x0FF0000F},
        {"fence rw, w", 0x0310000F},
        /* pseudo-instructions */
        {"nop", 0x00000013},
        {"ret", 0x00008067},
        {"mv a0, a1", 0x00058513},
        {"li a0, -5", 0xFFB00513},
        /* 0x12345FFF: low 12 bits sign-extend to -1, so lui takes 0x12346 */
        {"li a0, 0x12345FFF", 0x12346537},
        {"csrr a0, mcause", 0x34202573},
        {"bnez a0, 0x80000008", 0x00051463},
        {"fneg.s fa0, fa1", 0x20B59553},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        uint32_t w = asm1(t[i].src);
        if (strncmp(t[i].src, "x10:", 4) == 0) /* a register name cannot be a label */
            NPK_CHECK(w == 0xDEADBEEFu);
        else if (w != t[i].word)
            fprintf(stderr, "encoding of '%s'\n", t[i].src);
        if (strncmp(t[i].src, "x10:", 4) != 0)
            NPK_CHECK_EQ_U64(w, t[i].word);
    }
    char text[160];
    rvnpu_disasm(0x01010513, 0x80000000, 0, text, sizeof text);
    NPK_CHECK_EQ_STR(text, "addi a0, sp, 16");
    rvnpu_disasm(0x00842783, 0x80000000, 0, text, sizeof text);
    NPK_CHECK_EQ_STR(text, "lw a5, 8(s0)");
    rvnpu_disasm(0x00B50863, 0x80000000, 0, text, sizeof text);
    NPK_CHECK_EQ_STR(text, "beq a0, a1, 0x80000010");
    rvnpu_disasm(0x00C59553, 0, 0, text, sizeof text);
    NPK_CHECK_EQ_STR(text, "fadd.s fa0, fa1, fa2, rtz");
    rvnpu_disasm(0x00C5F553, 0, 0, text, sizeof text);
    NPK_CHECK_EQ_STR(text, "fadd.s fa0, fa1, fa2");
    rvnpu_disasm(0x34059573, 0, 0, text, sizeof text);
    NPK_CHECK_EQ_STR(text, "csrrw a0, mscratch, a1");
    rvnpu_disasm(0x0600002B | 10 << 7 | 11 << 15, 0, 0, text, sizeof text);
    NPK_CHECK_EQ_STR(text, "npu.fvrsqrt fa0, a1");
    rvnpu_disasm(0x0600002B | 10 << 7 | 11 << 15, 0, 1, text, sizeof text);
    NPK_CHECK_EQ_STR(text, "npu.frsqrt fa0, fa1");
    rvnpu_disasm(0x0FF0000F, 0, 0, text, sizeof text);
    NPK_CHECK_EQ_STR(text, "fence");
    rvnpu_disasm(0x0310000F, 0, 0, text, sizeof text);
    NPK_CHECK_EQ_STR(text, "fence rw, w");
    rvnpu_disasm(0x0000000F, 0, 0, text, sizeof text); /* legal, but no GNU spelling */
    NPK_CHECK_CONTAINS(text, ".word 0x0000000f  # fence (ignored fields set)");
    /* illegal words */
    rvnpu_disasm(0x00000000, 0, 0, text, sizeof text);
    NPK_CHECK_CONTAINS(text, ".word 0x00000000  # illegal: 16-bit");
    rvnpu_disasm(0x10200073, 0, 0, text, sizeof text); /* sret */
    NPK_CHECK_CONTAINS(text, "illegal: SYSTEM");
    rvnpu_disasm(0x02051513, 0, 0, text, sizeof text); /* slli a0, a0, 32 */
    NPK_CHECK_CONTAINS(text, "bit 25");
    rvnpu_disasm(0x00C5D553, 0, 0, text, sizeof text); /* fadd.s rm = 5 */
    NPK_CHECK_CONTAINS(text, "reserved rounding mode 5");
    rvnpu_disasm(0x7C059573, 0, 0, text, sizeof text); /* csrrw a0, 0x7c0, a1 */
    NPK_CHECK_CONTAINS(text, "unknown CSR 0x7c0");
    rvnpu_disasm(0xC0059573, 0, 0, text, sizeof text); /* csrrw a0, cycle, a1 */
    NPK_CHECK_CONTAINS(text, "read-only CSR cycle");
    rvnpu_disasm(0x0E00002B, 0, 0, text, sizeof text); /* npu.fvadd under seed */
    NPK_CHECK_CONTAINS(text, "only in the rev2 revision");
    /* legal with ignored fields: relu with funct7 set */
    rvnpu_disasm(0x0200100B | 10 << 7 | 11 << 15, 0, 0, text, sizeof text);
    NPK_CHECK_CONTAINS(text, ".word 0x0205950b  # npu.relu a0, a1 (ignored fields set)");
}

/* ---- running programs -------------------------------------------------------------------------- */

typedef struct run {
    npk_machine *m;
    npk_stop stop;
    char out[4096], err[4096];
} run;

static void read_all(FILE *f, char *buf, size_t n)
{
    fflush(f);
    rewind(f);
    size_t got = fread(buf, 1, n - 1, f);
    buf[got] = '\0';
    fclose(f);
}

/* Assemble and run `src` (max instructions; 0 = unlimited). Returns 0 when it ran. */
static int run_src(run *r, const char *config, const char *src, uint64_t max, int observed)
{
    memset(r, 0, sizeof *r);
    char err[256];
    if (npk_create(&r->m, "rvnpu", config, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "create: %s\n", err);
        return -1;
    }
    FILE *o = tmpfile(), *e = tmpfile();
    npk_set_output(r->m, o, e);
    if (observed)
        npk_stats_enable(r->m, 1);
    int rc = 0;
    if (npk_load_asm(r->m, src, "prog.s", stderr) != NPK_OK) {
        fprintf(stderr, "load: %s\n", npk_error(r->m));
        rc = -1;
    } else if (npk_run(r->m, max, &r->stop) != NPK_OK) {
        fprintf(stderr, "run: %s\n", npk_error(r->m));
        rc = -1;
    }
    npk_set_output(r->m, NULL, NULL);
    read_all(o, r->out, sizeof r->out);
    read_all(e, r->err, sizeof r->err);
    return rc;
}

static uint32_t reg(run *r, const char *name)
{
    uint64_t v = 0xBAD;
    npk_reg_read(r->m, name, &v);
    return (uint32_t)v;
}

#define EXIT "\n    addi a7, zero, 93\n    ecall\n"

static void check_int(void)
{
    for (int observed = 0; observed < 2; observed++) {
        run r;
        NPK_CHECK(run_src(&r, NULL,
                          "    addi a0, zero, -7\n"
                          "    addi a1, zero, 2\n"
                          "    div s2, a0, a1\n"  /* -7 / 2 = -3 (toward zero) */
                          "    rem s3, a0, a1\n"  /* -7 % 2 = -1 */
                          "    divu s4, a0, zero\n" /* /0 -> all ones */
                          "    rem s5, a0, zero\n"  /* %0 -> dividend -7 */
                          "    lui t0, 0x80000\n"
                          "    addi t1, zero, -1\n"
                          "    div s6, t0, t1\n"  /* overflow: -2^31 */
                          "    rem s7, t0, t1\n"  /* 0 */
                          "    mulh s8, t0, t1\n" /* 2^31 -> high word 0 */
                          "    mulhu s9, t1, t1\n" /* (2^32-1)^2 = 0xFFFFFFFE00000001 */
                          "    mulhsu s10, t1, t1\n" /* -1 * (2^32-1) -> high 0xFFFFFFFF */
                          "    sra s11, t0, t1\n"  /* shift by 31: 0xFFFFFFFF */
                          "    sltiu t2, zero, -1\n" /* 0 < 0xFFFFFFFF */
                          "    addi a0, zero, 0" EXIT,
                          0, observed) == 0);
        NPK_CHECK(r.stop.reason == NPK_STOP_EXIT);
        NPK_CHECK_EQ_U64(reg(&r, "s2"), 0xFFFFFFFD);
        NPK_CHECK_EQ_U64(reg(&r, "s3"), 0xFFFFFFFF);
        NPK_CHECK_EQ_U64(reg(&r, "s4"), 0xFFFFFFFF);
        NPK_CHECK_EQ_U64(reg(&r, "s5"), 0xFFFFFFF9);
        NPK_CHECK_EQ_U64(reg(&r, "s6"), 0x80000000);
        NPK_CHECK_EQ_U64(reg(&r, "s7"), 0);
        NPK_CHECK_EQ_U64(reg(&r, "s8"), 0);
        NPK_CHECK_EQ_U64(reg(&r, "s9"), 0xFFFFFFFE);
        NPK_CHECK_EQ_U64(reg(&r, "s10"), 0xFFFFFFFF);
        NPK_CHECK_EQ_U64(reg(&r, "s11"), 0xFFFFFFFF);
        NPK_CHECK_EQ_U64(reg(&r, "t2"), 1);
        if (observed) {
            npk_stats st;
            npk_stats_get(r.m, &st);
            NPK_CHECK_EQ_U64(st.insns, 18);
            NPK_CHECK(st.cycles >= 18);
        }
        npk_destroy(r.m);
    }
    /* misaligned word store and load, byte loads with sign extension, lui/auipc */
    run r;
    NPK_CHECK(run_src(&r, NULL,
                      "    lui s0, 0x80001\n"
                      "    lui t0, 0x12345\n"
                      "    addi t0, t0, 0x678\n"
                      "    sw t0, 1(s0)\n"      /* bytes 78 56 34 12 at +1 */
                      "    lw s2, 1(s0)\n"      /* 0x12345678 */
                      "    lb s3, 0(s0)\n"      /* 0 */
                      "    lbu s4, 1(s0)\n"     /* 0x78 */
                      "    addi t1, zero, -128\n"
                      "    sb t1, 8(s0)\n"
                      "    lb s5, 8(s0)\n"      /* -128 */
                      "    lhu s6, 2(s0)\n"     /* 0x3456 */
                      "    auipc s7, 1\n"       /* pc 0x80000028 + 0x1000 */
                      "    addi a0, zero, 0" EXIT,
                      0, 0) == 0);
    NPK_CHECK_EQ_U64(reg(&r, "s2"), 0x12345678);
    NPK_CHECK_EQ_U64(reg(&r, "s3"), 0);
    NPK_CHECK_EQ_U64(reg(&r, "s4"), 0x78);
    NPK_CHECK_EQ_U64(reg(&r, "s5"), 0xFFFFFF80);
    NPK_CHECK_EQ_U64(reg(&r, "s6"), 0x3456);
    NPK_CHECK_EQ_U64(reg(&r, "s7"), 0x8000102C);
    NPK_CHECK_EQ_U64(reg(&r, "sp"), 0x803FFFF0);
    npk_destroy(r.m);
}

static void check_fp(void)
{
    run r;
    NPK_CHECK(run_src(&r, NULL,
                      "    addi t0, zero, 5\n"
                      "    fcvt.s.w fa0, t0\n"      /* 5.0 */
                      "    addi t0, zero, 2\n"
                      "    fcvt.s.w fa1, t0\n"      /* 2.0 */
                      "    fdiv.s fa2, fa0, fa1\n"  /* 2.5, exact */
                      "    fcvt.w.s s2, fa2, rtz\n" /* 2 */
                      "    fcvt.w.s s3, fa2, rne\n" /* 2 (tie to even) */
                      "    fcvt.w.s s4, fa2, rup\n" /* 3 */
                      "    fcvt.w.s s5, fa2, rmm\n" /* 3 (tie away) */
                      "    csrrs s6, fflags, zero\n" /* NX from the inexact conversions: 1 */
                      "    fsub.s fa3, fa1, fa1\n"  /* +0 */
                      "    fdiv.s fa4, fa0, fa3\n"  /* +inf, DZ */
                      "    fmv.x.w s7, fa4\n"       /* 0x7F800000 */
                      "    fsub.s fa5, fa4, fa4\n"  /* inf - inf: canonical NaN, NV */
                      "    fmv.x.w s8, fa5\n"
                      "    fcvt.w.s s9, fa5\n"      /* NaN -> 0x7FFFFFFF */
                      "    fcvt.wu.s s10, fa4\n"    /* +inf -> 0xFFFFFFFF */
                      "    fsgnjn.s fa6, fa3, fa3\n" /* -0 */
                      "    fmin.s fa7, fa3, fa6\n"  /* min(+0, -0) = -0 */
                      "    fmv.x.w s11, fa7\n"      /* 0x80000000 */
                      "    feq.s t3, fa5, fa5\n"    /* NaN: 0 */
                      "    fclass.s t4, fa6\n"      /* negative zero: bit 3 */
                      "    csrrs t5, fflags, zero\n" /* NV | DZ | NX = 0x19 */
                      "    fsqrt.s ft0, fa0\n"
                      "    fmul.s ft1, ft0, ft0\n"
                      "    fmv.x.w t6, ft1\n"       /* sqrt(5) = 0x400F1BBD; its square rounds to 5.0 */
                      "    addi a0, zero, 0" EXIT,
                      0, 0) == 0);
    NPK_CHECK_EQ_U64(reg(&r, "s2"), 2);
    NPK_CHECK_EQ_U64(reg(&r, "s3"), 2);
    NPK_CHECK_EQ_U64(reg(&r, "s4"), 3);
    NPK_CHECK_EQ_U64(reg(&r, "s5"), 3);
    NPK_CHECK_EQ_U64(reg(&r, "s6"), 1);
    NPK_CHECK_EQ_U64(reg(&r, "s7"), 0x7F800000);
    NPK_CHECK_EQ_U64(reg(&r, "s8"), 0x7FC00000);
    NPK_CHECK_EQ_U64(reg(&r, "s9"), 0x7FFFFFFF);
    NPK_CHECK_EQ_U64(reg(&r, "s10"), 0xFFFFFFFF);
    NPK_CHECK_EQ_U64(reg(&r, "s11"), 0x80000000);
    NPK_CHECK_EQ_U64(reg(&r, "t3"), 0);
    NPK_CHECK_EQ_U64(reg(&r, "t4"), 8);
    NPK_CHECK_EQ_U64(reg(&r, "t5"), 0x19);
    NPK_CHECK_EQ_U64(reg(&r, "t6"), 0x40A00000);
    npk_destroy(r.m);

    /* DYN with frm = 5 is illegal at execute time */
    NPK_CHECK(run_src(&r, NULL,
                      "    csrrwi zero, frm, 5\n"
                      "    fadd.s fa0, fa0, fa0\n", 0, 0) == 0);
    NPK_CHECK(r.stop.reason == NPK_STOP_FAULT);
    NPK_CHECK_CONTAINS(r.stop.message, "illegal instruction (mcause 2)");
    NPK_CHECK_CONTAINS(r.stop.message, "pc 0x80000004");
    npk_destroy(r.m);
}

static void check_csr_and_traps(void)
{
    run r;
    /* counters: instret read by the 3rd instruction sees 2; a handler gets mcause/mepc/mtval */
    NPK_CHECK(run_src(&r, NULL,
                      "    addi t0, zero, 1\n"
                      "    addi t0, zero, 2\n"
                      "    csrrs s2, instret, zero\n"     /* 2 */
                      "    csrrs s3, mstatus, zero\n"     /* 0x1800 | FS=1 << 13 = 0x3800 */
                      "    csrrs s4, misa, zero\n"
                      "    addi t1, zero, 0x55\n"
                      "    csrrw zero, mscratch, t1\n"
                      "    csrrs s5, mscratch, zero\n"    /* 0x55 */
                      "    auipc t2, 0\n"
                      "    addi t2, t2, handler - . + 4\n"
                      "    csrrw zero, mtvec, t2\n"
                      "    csrrsi zero, mstatus, 8\n"     /* MIE = 1 */
                      "bad:\n"
                      "    .word 0xFFFFFFFF\n"
                      "    addi a0, zero, 99" EXIT
                      "handler:\n"
                      "    csrrs s6, mcause, zero\n"      /* 2 */
                      "    csrrs s7, mepc, zero\n"        /* address of bad */
                      "    csrrs s8, mtval, zero\n"       /* 0xFFFFFFFF */
                      "    csrrs s9, mstatus, zero\n"     /* MIE 0, MPIE 1: 0x3880 */
                      "    addi s7, s7, 4\n"
                      "    csrrw zero, mepc, s7\n"
                      "    auipc t0, 0\n"
                      "    addi t0, t0, back - . + 4\n"
                      "    csrrw zero, mepc, t0\n"
                      "    mret\n"
                      "back:\n"
                      "    csrrs s10, mstatus, zero\n"    /* MIE 1, MPIE 1: 0x3888 */
                      "    addi a0, zero, 7" EXIT,
                      0, 0) == 0);
    NPK_CHECK(r.stop.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(r.stop.exit_code, 7);
    NPK_CHECK_EQ_U64(reg(&r, "s2"), 2);
    NPK_CHECK_EQ_U64(reg(&r, "s3"), 0x3800);
    NPK_CHECK_EQ_U64(reg(&r, "s4"), 0x40801120);
    NPK_CHECK_EQ_U64(reg(&r, "s5"), 0x55);
    NPK_CHECK_EQ_U64(reg(&r, "s6"), 2);
    NPK_CHECK_EQ_U64(reg(&r, "s7"), 0x80000030 + 4);
    NPK_CHECK_EQ_U64(reg(&r, "s8"), 0xFFFFFFFF);
    NPK_CHECK_EQ_U64(reg(&r, "s9"), 0x3880);
    NPK_CHECK_EQ_U64(reg(&r, "s10"), 0x3888);
    npk_destroy(r.m);

    static const struct {
        const char *src;
        const char *want[4];
    } faults[] = {
        {"    addi a0, zero, 1\n    .word 0\n",
         {"illegal instruction (mcause 2)", "pc 0x80000004", "word 0x00000000",
          "1 instructions retired"}},
        {"    lw a0, 0(zero)\n",
         {"load access fault (mcause 5)", "lw a0, 0(zero)", "mtval 0x00000000", "pc 0x80000000"}},
        {"    lui a0, 0x80400\n    sw a0, -2(a0)\n", /* straddles the end of RAM */
         {"store access fault (mcause 7)", "mtval 0x803ffffe", "sw a0, -2(a0)", "word 0x"}},
        {"    ebreak\n", {"breakpoint (mcause 3)", "ebreak", "mtval 0x80000000", "pc 0x80000000"}},
        {"    addi a7, zero, 999\n    addi a0, zero, 5\n    ecall\n",
         {"environment call from M-mode (mcause 11)", "syscall 999", "a0=0x00000005", "ecall"}},
        {"    auipc a0, 0\n    jalr ra, 2(a0)\n",
         {"instruction address misaligned (mcause 0)", "mtval 0x80000002", "jalr ra, 2(a0)",
          "pc 0x80000004"}},
        {"    csrrs a0, 0x7C0, zero\n", {"illegal instruction", "unknown CSR 0x7c0", "", ""}},
        {"    csrrw a0, cycle, a1\n", {"illegal instruction", "read-only CSR cycle", "", ""}},
        {"    mret\n", {"instruction access fault (mcause 1)", "mtval 0x00000000", "", ""}},
    };
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
        NPK_CHECK(run_src(&r, NULL, faults[i].src, 0, (int)(i & 1)) == 0);
        NPK_CHECK(r.stop.reason == NPK_STOP_FAULT);
        for (int k = 0; k < 4; k++)
            if (faults[i].want[k][0])
                NPK_CHECK_CONTAINS(r.stop.message, faults[i].want[k]);
        npk_destroy(r.m);
    }
    /* with host syscalls off, exit traps too */
    NPK_CHECK(run_src(&r, "syscalls=off", "    addi a0, zero, 0" EXIT, 0, 0) == 0);
    NPK_CHECK(r.stop.reason == NPK_STOP_FAULT);
    NPK_CHECK_CONTAINS(r.stop.message, "host syscalls are off");
    npk_destroy(r.m);
    /* budget: an endless loop */
    NPK_CHECK(run_src(&r, NULL, "loop:\n    jal zero, loop\n", 100, 0) == 0);
    NPK_CHECK(r.stop.reason == NPK_STOP_BUDGET);
    NPK_CHECK_CONTAINS(r.stop.message, "pc 0x80000000");
    NPK_CHECK_CONTAINS(r.stop.message, "jal zero, 0x80000000");
    NPK_CHECK_CONTAINS(r.stop.message, "word 0x0000006f");
    /* and it resumes */
    NPK_CHECK(npk_run(r.m, 50, &r.stop) == NPK_OK && r.stop.reason == NPK_STOP_BUDGET);
    NPK_CHECK_CONTAINS(r.stop.message, "after 150 instructions");
    npk_destroy(r.m);
}

static void check_syscalls(void)
{
    run r;
    NPK_CHECK(run_src(&r, NULL,
                      "    addi a0, zero, 0\n"
                      "    addi a7, zero, 214\n"
                      "    ecall\n"               /* brk(0): end of image rounded to 16 */
                      "    addi s2, a0, 0\n"
                      "    addi a0, a0, 64\n"
                      "    ecall\n"               /* brk(+64) */
                      "    addi s3, a0, 0\n"
                      "    lui a0, 0x90000\n"
                      "    ecall\n"               /* beyond RAM: unchanged */
                      "    addi s4, a0, 0\n"
                      "    addi a0, zero, 2\n"
                      "    auipc a1, 0\n"
                      "    addi a1, a1, msg - . + 4\n"
                      "    addi a2, zero, 3\n"
                      "    addi a7, zero, 64\n"
                      "    ecall\n"               /* write(2, "err", 3) */
                      "    addi a0, zero, 1\n"
                      "    ecall\n"               /* write(1, "err", 3) */
                      "    addi s5, a0, 0\n"      /* 3 */
                      "    addi a0, zero, 9\n"
                      "    ecall\n"               /* write(9, ...) -> -EBADF */
                      "    addi s6, a0, 0\n"
                      "    addi a0, zero, -1" EXIT
                      "msg: .ascii \"err\"\n",
                      0, 0) == 0);
    NPK_CHECK(r.stop.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(r.stop.exit_code, (uint64_t)-1); /* the full value */
    NPK_CHECK_EQ_U64(reg(&r, "s2"), 0x80000070);     /* 27 words + 3 bytes = 111 -> 112 */
    NPK_CHECK_EQ_U64(reg(&r, "s3"), 0x800000B0);
    NPK_CHECK_EQ_U64(reg(&r, "s4"), 0x800000B0);
    NPK_CHECK_EQ_U64(reg(&r, "s5"), 3);
    NPK_CHECK_EQ_U64(reg(&r, "s6"), (uint32_t)-9);
    NPK_CHECK_EQ_STR(r.out, "err");
    NPK_CHECK_EQ_STR(r.err, "err");
    npk_destroy(r.m);

    /* the file sandbox, in a temporary directory */
    char root[] = "/tmp/rvnpu_fsXXXXXX";
    if (!mkdtemp(root)) {
        NPK_CHECK(!"mkdtemp");
        return;
    }
    char path[256], cfg[300];
    snprintf(path, sizeof path, "%s/in.txt", root);
    FILE *f = fopen(path, "w");
    fputs("data!", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/up", root);
    NPK_CHECK(symlink("/etc", path) == 0);
    snprintf(cfg, sizeof cfg, "fs_root=%s", root);
    static const char *open_src =
        "    addi a0, zero, -100\n"
        "    auipc a1, 0\n"
        "    addi a1, a1, p_in - . + 4\n"
        "    addi a2, zero, 0\n"
        "    addi a7, zero, 56\n"
        "    ecall\n"                 /* openat("/./in.txt") -> 3 */
        "    addi s2, a0, 0\n"
        "    lui a1, 0x80002\n"
        "    addi a2, zero, 16\n"
        "    addi a7, zero, 63\n"
        "    ecall\n"                 /* read(3, buf, 16) -> 5 */
        "    addi s3, a0, 0\n"
        "    lui t0, 0x80002\n"
        "    lw s4, 0(t0)\n"          /* 'd' 'a' 't' 'a' */
        "    addi a0, zero, -100\n"
        "    auipc a1, 0\n"
        "    addi a1, a1, p_esc - . + 4\n"
        "    addi a7, zero, 56\n"
        "    ecall\n"                 /* openat("../x") -> -EACCES */
        "    addi s5, a0, 0\n"
        "    addi a0, zero, -100\n"
        "    auipc a1, 0\n"
        "    addi a1, a1, p_link - . + 4\n"
        "    ecall\n"                 /* openat("up/passwd") -> -EACCES (symlink out) */
        "    addi s6, a0, 0\n"
        "    addi a0, zero, -100\n"
        "    auipc a1, 0\n"
        "    addi a1, a1, p_new - . + 4\n"
        "    addi a2, zero, 0x241\n"  /* O_WRONLY | O_CREAT | O_TRUNC */
        "    ecall\n"                 /* openat("sub/../new.txt") -> 4 */
        "    addi s7, a0, 0\n"
        "    addi a1, a1, 4\n"        /* "new.txt" as data */
        "    addi a2, zero, 3\n"
        "    addi a7, zero, 64\n"
        "    ecall\n"
        "    addi a0, s2, 0\n"
        "    addi a7, zero, 57\n"
        "    ecall\n"                 /* close(3) -> 0 */
        "    addi s8, a0, 0\n"
        "    addi a0, s2, 0\n"
        "    ecall\n"                 /* close(3) again -> -EBADF */
        "    addi s9, a0, 0\n"
        "    addi a0, zero, 0" EXIT
        "p_in: .asciz \"/./in.txt\"\n"
        "p_esc: .asciz \"../x\"\n"
        "p_link: .asciz \"up/passwd\"\n"
        "p_new: .asciz \"in.t/../new.txt\"\n";
    NPK_CHECK(run_src(&r, cfg, open_src, 0, 0) == 0);
    NPK_CHECK(r.stop.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(reg(&r, "s2"), 3);
    NPK_CHECK_EQ_U64(reg(&r, "s3"), 5);
    NPK_CHECK_EQ_U64(reg(&r, "s4"), 0x61746164);
    NPK_CHECK_EQ_U64(reg(&r, "s5"), (uint32_t)-13);
    NPK_CHECK_EQ_U64(reg(&r, "s6"), (uint32_t)-13);
    NPK_CHECK_EQ_U64(reg(&r, "s7"), 4);
    NPK_CHECK_EQ_U64(reg(&r, "s8"), 0);
    NPK_CHECK_EQ_U64(reg(&r, "s9"), (uint32_t)-9);
    npk_destroy(r.m);
    snprintf(path, sizeof path, "%s/new.txt", root);
    struct stat sb;
    NPK_CHECK(stat(path, &sb) == 0 && sb.st_size == 3);
    unlink(path);
    /* without fs_root every openat is -EACCES */
    NPK_CHECK(run_src(&r, NULL, open_src, 0, 0) == 0);
    NPK_CHECK_EQ_U64(reg(&r, "s2"), (uint32_t)-13);
    npk_destroy(r.m);
    snprintf(path, sizeof path, "%s/in.txt", root);
    unlink(path);
    snprintf(path, sizeof path, "%s/up", root);
    unlink(path);
    rmdir(root);
}

static void check_tohost_and_smc(void)
{
    run r;
    static const char *const progs[2] = {
        "    auipc t0, 0\n    addi t0, t0, tohost - . + 4\n    addi t1, zero, 1\n"
        "    sw t1, 0(t0)\n    .word 0\n    .align 3\ntohost: .word 0\n",
        "    auipc t0, 0\n    addi t0, t0, tohost - . + 4\n    addi t1, zero, 7\n"
        "    sb t1, 0(t0)\n    .word 0\n    .align 3\ntohost: .word 0\n"};
    for (int i = 0; i < 2; i++) {
        NPK_CHECK(run_src(&r, NULL, progs[i], 0, i) == 0);
        NPK_CHECK(r.stop.reason == NPK_STOP_EXIT);
        NPK_CHECK_EQ_U64(r.stop.exit_code, i ? 1 : 0);
        NPK_CHECK_CONTAINS(r.err, i ? "FAIL test 3" : "PASS");
        npk_destroy(r.m);
    }
    /* self-modifying code: patch the next instruction (addi a0, zero, 1 -> addi a0, zero, 2)
     * after it has been decoded once */
    NPK_CHECK(run_src(&r, NULL,
                      "    addi s1, zero, 2\n"
                      "again:\n"
                      "    auipc t0, 0\n"
                      "    addi t0, t0, patch - . + 4\n"
                      "patch:\n"
                      "    addi a0, zero, 1\n"
                      "    addi s1, s1, -1\n"
                      "    beq s1, zero, done\n"
                      "    lui t1, 0x00200\n"     /* imm 2: 0x00200513 */
                      "    addi t1, t1, 0x513\n"
                      "    sw t1, 0(t0)\n"
                      "    jal zero, again\n"
                      "done:" EXIT,
                      0, 0) == 0);
    NPK_CHECK_EQ_U64(r.stop.exit_code, 2);
    npk_destroy(r.m);
}

/* The threaded fast loop (no observers) against the observed loop (statistics on), which runs
 * every instruction through the switch: same results, exact budgets, its decode-time shortcuts
 * undone by self-modifying code, and its ways out (end of RAM, jumps out of RAM). */
static void check_fast_loop(void)
{
    run r;
    for (int observed = 0; observed < 2; observed++) {
        /* `cons` reads a0, which the word before it writes, so the fast loop runs it with a0
         * taken from a host register (as rs1, then as rs2). The second pass patches that word
         * into addi a2, a2, 1 (0x00160613): a1 must be built from a0 = 6 again, not from the
         * new result 101: 6, and -6 & 0xFF = 250. */
        static const struct {
            const char *cons;
            uint64_t want;
        } uses[2] = {{"add a1, a0, zero", 6}, {"sub a1, zero, a0", 250}};
        for (int u = 0; u < 2; u++) {
            char src[1024];
            snprintf(src, sizeof src,
                     "    addi s1, zero, 2\n"
                     "    addi a0, zero, 5\n"
                     "    addi a2, zero, 100\n"
                     "    auipc t0, 0\n"
                     "    addi t0, t0, prod - . + 4\n"
                     "    lui t1, 0x160\n"
                     "    addi t1, t1, 0x613\n"
                     "again:\n"
                     "prod:\n"
                     "    addi a0, a0, 1\n"
                     "cons:\n"
                     "    %s\n"
                     "    addi s1, s1, -1\n"
                     "    beq s1, zero, done\n"
                     "    sw t1, 0(t0)\n"
                     "    jal zero, again\n"
                     "done:\n"
                     "    andi a0, a1, 0xFF" EXIT,
                     uses[u].cons);
            NPK_CHECK(run_src(&r, NULL, src, 0, observed) == 0);
            NPK_CHECK(r.stop.reason == NPK_STOP_EXIT);
            NPK_CHECK_EQ_U64(r.stop.exit_code, uses[u].want);
            NPK_CHECK_EQ_U64(reg(&r, "a2"), 101);
            npk_destroy(r.m);
        }

        /* a writer of x0 is no producer: `add a1, zero, a0` must read x0 = 0 */
        NPK_CHECK(run_src(&r, NULL,
                          "    addi a0, zero, 7\n"
                          "    addi zero, a0, 9\n"
                          "    add a1, zero, zero\n"
                          "    add a0, a1, zero" EXIT,
                          0, observed) == 0);
        NPK_CHECK_EQ_U64(r.stop.exit_code, 0);
        npk_destroy(r.m);

        /* execution that runs off the end of RAM: the last word (patched to a nop) retires,
         * then fetching 0x80002000 faults */
        NPK_CHECK(run_src(&r, "ram_size=8192",
                          "    lui t0, 0x80002\n"
                          "    addi t0, t0, -4\n"
                          "    addi t1, zero, 0x13\n"
                          "    sw t1, 0(t0)\n"
                          "    jalr zero, 0(t0)\n",
                          0, observed) == 0);
        NPK_CHECK(r.stop.reason == NPK_STOP_FAULT);
        NPK_CHECK_EQ_U64(r.stop.pc, 0x80002000u);
        NPK_CHECK_CONTAINS(r.stop.message, "instruction access fault");
        NPK_CHECK_CONTAINS(r.stop.message, "6 instructions retired");
        npk_destroy(r.m);

        /* jal zero, +0x80000 (0x0008006f) leaves the 8 KiB RAM: it retires, the fetch faults */
        NPK_CHECK(run_src(&r, "ram_size=8192", "    nop\n    .word 0x0008006f\n", 0, observed) == 0);
        NPK_CHECK(r.stop.reason == NPK_STOP_FAULT);
        NPK_CHECK_EQ_U64(r.stop.pc, 0x80080004u);
        NPK_CHECK_CONTAINS(r.stop.message, "2 instructions retired");
        npk_destroy(r.m);

        /* a trap vector whose first word is illegal would trap forever: stop instead */
        NPK_CHECK(run_src(&r, NULL,
                          "    auipc t0, 0\n"
                          "    addi t0, t0, vec - . + 4\n"
                          "    csrrw zero, mtvec, t0\n"
                          "    ebreak\n"
                          "vec:\n"
                          "    .word 0\n",
                          0, observed) == 0);
        NPK_CHECK(r.stop.reason == NPK_STOP_FAULT);
        NPK_CHECK_CONTAINS(r.stop.message, "illegal instruction");
        NPK_CHECK_CONTAINS(r.stop.message, "itself trapped");
        npk_destroy(r.m);
    }

    /* Budgets are exact: a loop of loads, stores, ALU ops and branches run in slices of k
     * instructions ends with the same registers and count as one unlimited run. */
    static const char loop[] =
        "    addi s0, zero, 300\n"
        "    lui s1, 0x80010\n"
        "    addi a0, zero, 0\n"
        "top:\n"
        "    sw s0, 0(s1)\n"
        "    lw t0, 0(s1)\n"
        "    add a0, a0, t0\n"
        "    slli t1, a0, 3\n"
        "    xor a0, a0, t1\n"
        "    andi t2, s0, 3\n"
        "    bne t2, zero, skip\n"
        "    addi a0, a0, 17\n"
        "skip:\n"
        "    addi s0, s0, -1\n"
        "    bne s0, zero, top\n"
        "    andi a0, a0, 0x7F" EXIT;
    NPK_CHECK(run_src(&r, NULL, loop, 0, 0) == 0);
    NPK_CHECK(r.stop.reason == NPK_STOP_EXIT);
    uint32_t want_a0 = reg(&r, "a0"), want_n = reg(&r, "minstret");
    /* 3 before the loop, 9 per pass, 75 more addi (s0 % 4 == 0), andi + addi + ecall */
    NPK_CHECK_EQ_U64(want_n, 3 + 300 * 9 + 75 + 3);
    npk_destroy(r.m);
    static const uint64_t slices[] = {1, 3, 255, 256, 257, 1000};
    for (size_t i = 0; i < sizeof slices / sizeof slices[0]; i++) {
        NPK_CHECK(run_src(&r, NULL, loop, slices[i], 0) == 0);
        uint64_t calls = 1;
        while (r.stop.reason == NPK_STOP_BUDGET) {
            NPK_CHECK_EQ_U64(reg(&r, "minstret"), calls * slices[i]);
            if (npk_run(r.m, slices[i], &r.stop) != NPK_OK)
                break;
            calls++;
        }
        NPK_CHECK(r.stop.reason == NPK_STOP_EXIT);
        NPK_CHECK_EQ_U64(reg(&r, "a0"), want_a0);
        NPK_CHECK_EQ_U64(reg(&r, "minstret"), want_n);
        NPK_CHECK_EQ_U64(calls, (want_n + slices[i] - 1) / slices[i]);
        npk_destroy(r.m);
    }
}

static void check_config(void)
{
    npk_machine *m;
    char err[256];
    NPK_CHECK(npk_create(&m, "rvnpu:isa_rev=rev3", NULL, err, sizeof err) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(err, "isa_rev=rev3");
    NPK_CHECK_CONTAINS(err, "seed or rev2");
    NPK_CHECK(npk_create(&m, "rvnpu:ram_size=5000", NULL, err, sizeof err) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(err, "ram_size");
    NPK_CHECK(npk_create(&m, "rvnpu:ram_size=4G", NULL, err, sizeof err) == NPK_ERR_ARG);
    NPK_CHECK(npk_create(&m, "rvnpu:fs_root=/nonexistent/dir", NULL, err, sizeof err) ==
              NPK_ERR_ARG);
    NPK_CHECK(npk_create(&m, "rvnpu:bogus=1", NULL, err, sizeof err) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(err, "bogus");
    NPK_CHECK(npk_create(&m, "rvnpu:isa_rev=rev2,ram_size=64K,lat_div=10", NULL, err,
                         sizeof err) == NPK_OK);
    NPK_CHECK_CONTAINS(npk_config_string(m), "isa_rev=rev2,ram_size=65536");
    /* raw image outside RAM */
    uint8_t big[8] = {0};
    NPK_CHECK(npk_load_raw(m, big, sizeof big, 65536 - 4) == NPK_ERR_RANGE);
    NPK_CHECK(npk_load_raw(m, big, sizeof big, 0) == NPK_OK);
    uint64_t pc, sp;
    npk_reg_read(m, "pc", &pc);
    npk_reg_read(m, "sp", &sp);
    NPK_CHECK_EQ_U64(pc, 0x80000000);
    NPK_CHECK_EQ_U64(sp, 0x80010000 - 16);
    npk_destroy(m);
}

/* UART and NPU instructions through the core. */
static void check_uart_npu(void)
{
    char path[] = "/tmp/rvnpu_uartXXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        NPK_CHECK(!"mkstemp");
        return;
    }
    NPK_CHECK(write(fd, "Q", 1) == 1);
    close(fd);
    char cfg[64];
    snprintf(cfg, sizeof cfg, "uart_in=%s", path);
    run r;
    NPK_CHECK(run_src(&r, cfg,
                      "    lui a0, 0x10000\n"
                      "    addi t0, zero, 72\n"
                      "    sw t0, 0(a0)\n"      /* transmits 'H' (the low byte) */
                      "    lbu s2, 5(a0)\n"     /* LSR: THR empty | data ready = 0x21 */
                      "    lw s3, 0(a0)\n"      /* byte 0 consumes 'Q', the others read 0 */
                      "    lbu s4, 5(a0)\n"     /* 0x20: nothing pending */
                      "    lbu s5, 0(a0)\n"     /* 0 */
                      "    addi a0, zero, 0" EXIT,
                      0, 0) == 0);
    NPK_CHECK_EQ_STR(r.out, "H");
    NPK_CHECK_EQ_U64(reg(&r, "s2"), 0x21);
    NPK_CHECK_EQ_U64(reg(&r, "s3"), 'Q');
    NPK_CHECK_EQ_U64(reg(&r, "s4"), 0x20);
    NPK_CHECK_EQ_U64(reg(&r, "s5"), 0);
    npk_destroy(r.m);
    unlink(path);

    for (int observed = 0; observed < 2; observed++) {
        NPK_CHECK(run_src(&r, NULL,
                          "    addi a0, zero, 3\n"
                          "    addi a1, zero, -4\n"
                          "    npu.macc a0, a1\n"   /* acc = -12 */
                          "    npu.macc a0, a0\n"   /* acc = -3 */
                          "    npu.rstacc s2\n"     /* -3, acc = 0 */
                          "    lui t0, 0x20000\n"
                          "    npu.macc a0, a0\n"   /* acc = 9 */
                          "    lw s3, 0(t0)\n"      /* acc_lo through the register block */
                          "    addi a0, zero, 0" EXIT,
                          0, observed) == 0);
        NPK_CHECK(r.stop.reason == NPK_STOP_EXIT);
        NPK_CHECK_EQ_U64(reg(&r, "s2"), (uint32_t)-3);
        NPK_CHECK_EQ_U64(reg(&r, "s3"), 9);
        if (observed) {
            npk_stats st;
            npk_stats_get(r.m, &st);
            NPK_CHECK_EQ_U64(st.extra[3], 4); /* insns_npu: three macc, one rstacc */
        }
        npk_destroy(r.m);
    }
    /* rev2 vector-length fault: 65 floats */
    NPK_CHECK(run_src(&r, "isa_rev=rev2",
                      "    lui a0, 0x80001\n"
                      "    addi a1, a0, 0\n"
                      "    addi a2, zero, 65\n"
                      "    npu.fvmac a2, a0, a1\n", 0, 0) == 0);
    NPK_CHECK(r.stop.reason == NPK_STOP_FAULT);
    NPK_CHECK_CONTAINS(r.stop.message, "illegal instruction (mcause 2)");
    NPK_CHECK_CONTAINS(r.stop.message, "npu.fvmac a2, a0, a1");
    NPK_CHECK_CONTAINS(r.stop.message, "256");
    npk_destroy(r.m);
}

/* A minimal ELF32 RISC-V executable: one PT_LOAD at vaddr with `code` and 16 bytes of .bss. */
static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static size_t make_elf(uint8_t *b, uint32_t vaddr, uint32_t entry, const uint32_t *code,
                       size_t nwords)
{
    memset(b, 0, 84);
    memcpy(b, "\x7f" "ELF", 4);
    b[4] = 1, b[5] = 1, b[6] = 1;     /* ELF32, little-endian, version 1 */
    b[16] = 2;                        /* ET_EXEC */
    b[18] = 243;                      /* EM_RISCV */
    b[20] = 1;                        /* e_version */
    put32(b + 24, entry);
    put32(b + 28, 52);                /* e_phoff */
    b[40] = 52;                       /* e_ehsize */
    b[42] = 32, b[44] = 1;            /* e_phentsize, e_phnum */
    uint8_t *ph = b + 52;
    put32(ph, 1);                     /* PT_LOAD */
    put32(ph + 4, 84);                /* p_offset */
    put32(ph + 8, vaddr);             /* p_vaddr */
    put32(ph + 12, vaddr);            /* p_paddr */
    put32(ph + 16, (uint32_t)(4 * nwords));
    put32(ph + 20, (uint32_t)(4 * nwords) + 16);
    put32(ph + 24, 7);                /* RWX */
    for (size_t i = 0; i < nwords; i++)
        put32(b + 84 + 4 * i, code[i]);
    return 84 + 4 * nwords;
}

static void check_elf(void)
{
    /* addi a0, zero, 5; addi a7, zero, 93; ecall */
    static const uint32_t code[] = {0x00500513, 0x05D00893, 0x00000073};
    uint8_t b[128];
    char err[256];
    npk_machine *m;
    NPK_CHECK(npk_create(&m, "rvnpu", NULL, err, sizeof err) == NPK_OK);
    size_t n = make_elf(b, 0x80000100, 0x80000100, code, 3);
    NPK_CHECK(npk_load_elf(m, b, n, "t.elf") == NPK_OK);
    npk_stop st;
    NPK_CHECK(npk_run(m, 0, &st) == NPK_OK);
    NPK_CHECK(st.reason == NPK_STOP_EXIT && st.exit_code == 5);
    /* brk = end of the segment (0x80000100 + 12 + 16) rounded to 16 = 0x80000120 */
    uint8_t w[12] = {0x13, 0x05, 0, 0, 0x93, 0x08, 0x60, 0x0D, 0x73, 0, 0, 0};
    NPK_CHECK(npk_mem_write(m, "ram", 0x100, w, sizeof w) == NPK_OK); /* brk(0) */
    npk_reset(m);
    NPK_CHECK(npk_run(m, 3, &st) == NPK_OK);
    uint64_t a0;
    npk_reg_read(m, "a0", &a0);
    NPK_CHECK_EQ_U64(a0, 0x80000120);
    n = make_elf(b, 0x7FFFFF00, 0x80000000, code, 3);
    NPK_CHECK(npk_load_elf(m, b, n, "t.elf") == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "outside RAM");
    n = make_elf(b, 0x80000000, 0x80000002, code, 3);
    NPK_CHECK(npk_load_elf(m, b, n, "t.elf") == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(m), "entry point 0x80000002");
    npk_destroy(m);
}

/* Input injection: npk_write_symbol goes through the poke hook into RAM. */
static void check_poke(void)
{
    npk_machine *m;
    char err[256];
    NPK_CHECK(npk_create(&m, "rvnpu", NULL, err, sizeof err) == NPK_OK);
    NPK_CHECK(npk_load_asm(m,
                           "    la t0, input\n"
                           "    li a1, later\n"      /* forward: two words, settles */
                           "    lw a0, 0(t0)\n"
                           "    li a7, 93\n"
                           "    ecall\n"
                           "input: .word 0\n"
                           ".equ later, 3\n",
                           "poke.s", stderr) == NPK_OK);
    const uint8_t v[4] = {0x2A, 0, 0, 0};
    NPK_CHECK(npk_write_symbol(m, "input", v, sizeof v) == NPK_OK);
    npk_stop st;
    NPK_CHECK(npk_run(m, 0, &st) == NPK_OK);
    NPK_CHECK(st.reason == NPK_STOP_EXIT && st.exit_code == 42);
    NPK_CHECK(npk_write_symbol(m, "nosuch", v, sizeof v) != NPK_OK);
    npk_destroy(m);
}

int main(void)
{
    check_encodings();
    check_int();
    check_fp();
    check_csr_and_traps();
    check_syscalls();
    check_tohost_and_smc();
    check_fast_loop();
    check_config();
    check_uart_npu();
    check_elf();
    check_poke();
    return npk_test_done();
}
