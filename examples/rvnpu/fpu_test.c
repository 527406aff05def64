/* rvnpu "fpu_test": RV32F self-test of IEEE 754 edge cases (all five rounding modes, static and
 * dynamic, the five flags, NaNs, signed zeros, overflow/underflow, fused multiply-add, FCVT
 * saturation). One PASS/FAIL line per check; exit status = number of failures. Expected values
 * are derived by hand from IEEE 754 + the RISC-V F spec (derivation next to each check), so the
 * program is an oracle independent of any simulator; qemu-riscv32 passes it. */
#include <stdint.h>
#include "syscalls.h"

/* fflags bits */
#define NV 0x10
#define DZ 0x08
#define OF 0x04
#define UF 0x02
#define NX 0x01

/* Bit patterns used below. */
#define P0     0x00000000u /* +0 */
#define N0     0x80000000u /* -0 */
#define ONE    0x3F800000u
#define MONE   0xBF800000u
#define TWO    0x40000000u
#define THREE  0x40400000u
#define FOUR   0x40800000u
#define HALF   0x3F000000u
#define MHALF  0xBF000000u
#define TWOP5  0x40200000u /* 2.5 */
#define MTWOP5 0xC0200000u
#define P2M24  0x33800000u /* 2^-24 = half an ulp of 1.0 */
#define M2M24  0xB3800000u
#define P34ULP 0x33C00000u /* 1.5 * 2^-24 = 0.75 ulp of 1.0 */
#define PINF   0x7F800000u
#define MINF   0xFF800000u
#define QNAN   0x7FC00000u /* canonical NaN */
#define QNANP  0x7FC12345u /* quiet NaN with payload */
#define SNAN   0x7F800001u
#define FMAX   0x7F7FFFFFu
#define MFMAX  0xFF7FFFFFu
#define MINNRM 0x00800000u /* 2^-126 */
#define P2P100 0x71800000u /* 2^100 */
#define P2M100 0x0D800000u /* 2^-100 */

static int failures;
static int checks;

static void put_str(const char *s)
{
    long n = 0;
    while (s[n] != '\0')
        n++;
    write(1, s, n);
}

static void put_hex(uint32_t v)
{
    char b[10];
    b[0] = '0';
    b[1] = 'x';
    for (int i = 0; i < 8; i++)
        b[2 + i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 0xF];
    write(1, b, 10);
}

static void put_dec(uint32_t v)
{
    char b[10];
    int n = 0;
    do {
        b[9 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    write(1, b + 10 - n, n);
}

static void check(const char *what, uint32_t got, uint32_t got_fl, uint32_t want, uint32_t want_fl)
{
    checks++;
    if (got == want && got_fl == want_fl) {
        put_str("PASS ");
        put_str(what);
        put_str("\n");
        return;
    }
    failures++;
    put_str("FAIL ");
    put_str(what);
    put_str(": got ");
    put_hex(got);
    put_str(" flags ");
    put_hex(got_fl);
    put_str(", want ");
    put_hex(want);
    put_str(" flags ");
    put_hex(want_fl);
    put_str("\n");
}

/* Each macro runs one instruction on raw bit patterns with fflags cleared just before it and
 * read just after, all inside one asm block so no compiler-generated FP op can interfere.
 * RM is "" (dynamic, frm) or ", rne" / ", rtz" / ", rdn" / ", rup" / ", rmm". */
#define T1(insn, rm, a, want, wfl)                                                    \
    do {                                                                              \
        uint32_t r_, f_;                                                              \
        __asm__ volatile("fmv.w.x ft0, %2\n\tcsrwi fflags, 0\n\t" insn " ft2, ft0" rm  \
                         "\n\tfmv.x.w %0, ft2\n\tcsrr %1, fflags"                     \
                         : "=r"(r_), "=r"(f_) : "r"(a) : "ft0", "ft2");               \
        check(insn rm " " #a, r_, f_, want, wfl);                                     \
    } while (0)

#define T2(insn, rm, a, b, want, wfl)                                                 \
    do {                                                                              \
        uint32_t r_, f_;                                                              \
        __asm__ volatile("fmv.w.x ft0, %2\n\tfmv.w.x ft1, %3\n\tcsrwi fflags, 0\n\t"   \
                         insn " ft2, ft0, ft1" rm "\n\tfmv.x.w %0, ft2\n\tcsrr %1, fflags" \
                         : "=r"(r_), "=r"(f_) : "r"(a), "r"(b) : "ft0", "ft1", "ft2"); \
        check(insn rm " " #a ", " #b, r_, f_, want, wfl);                             \
    } while (0)

#define T3(insn, rm, a, b, c, want, wfl)                                              \
    do {                                                                              \
        uint32_t r_, f_;                                                              \
        __asm__ volatile("fmv.w.x ft0, %2\n\tfmv.w.x ft1, %3\n\tfmv.w.x ft2, %4\n\t"   \
                         "csrwi fflags, 0\n\t" insn " ft3, ft0, ft1, ft2" rm           \
                         "\n\tfmv.x.w %0, ft3\n\tcsrr %1, fflags"                     \
                         : "=r"(r_), "=r"(f_) : "r"(a), "r"(b), "r"(c)                 \
                         : "ft0", "ft1", "ft2", "ft3");                               \
        check(insn rm " " #a ", " #b ", " #c, r_, f_, want, wfl);                     \
    } while (0)

/* float -> int result in an integer register */
#define TFI(insn, rm, a, want, wfl)                                                   \
    do {                                                                              \
        uint32_t r_, f_;                                                              \
        __asm__ volatile("fmv.w.x ft0, %2\n\tcsrwi fflags, 0\n\t" insn " %0, ft0" rm   \
                         "\n\tcsrr %1, fflags"                                        \
                         : "=&r"(r_), "=r"(f_) : "r"(a) : "ft0");                     \
        check(insn rm " " #a, r_, f_, want, wfl);                                     \
    } while (0)

/* int -> float */
#define TIF(insn, rm, a, want, wfl)                                                   \
    do {                                                                              \
        uint32_t r_, f_;                                                              \
        __asm__ volatile("csrwi fflags, 0\n\t" insn " ft2, %2" rm                      \
                         "\n\tfmv.x.w %0, ft2\n\tcsrr %1, fflags"                     \
                         : "=r"(r_), "=r"(f_) : "r"(a) : "ft2");                      \
        check(insn rm " " #a, r_, f_, want, wfl);                                     \
    } while (0)

/* comparisons and fclass: two (or one) FP operands, integer result */
#define TCMP(insn, a, b, want, wfl)                                                   \
    do {                                                                              \
        uint32_t r_, f_;                                                              \
        __asm__ volatile("fmv.w.x ft0, %2\n\tfmv.w.x ft1, %3\n\tcsrwi fflags, 0\n\t"   \
                         insn " %0, ft0, ft1\n\tcsrr %1, fflags"                      \
                         : "=&r"(r_), "=r"(f_) : "r"(a), "r"(b) : "ft0", "ft1");      \
        check(insn " " #a ", " #b, r_, f_, want, wfl);                                \
    } while (0)

#define TCLASS(a, want)                                                               \
    do {                                                                              \
        uint32_t r_, f_;                                                              \
        __asm__ volatile("fmv.w.x ft0, %2\n\tcsrwi fflags, 0\n\tfclass.s %0, ft0\n\t"  \
                         "csrr %1, fflags"                                            \
                         : "=&r"(r_), "=r"(f_) : "r"(a) : "ft0");                     \
        check("fclass.s " #a, r_, f_, want, 0);                                       \
    } while (0)

static void set_frm(uint32_t rm)
{
    __asm__ volatile("fsrm %0" : : "r"(rm));
}

static void rounding_static(void)
{
    /* 1 + 2^-24: exactly halfway between 1 and 1+ulp. Ties-to-even keeps 1 (even mantissa),
     * ties-away and round-up take 1+ulp, toward-zero and down keep 1. Inexact in every mode. */
    T2("fadd.s", ", rne", ONE, P2M24, 0x3F800000u, NX);
    T2("fadd.s", ", rtz", ONE, P2M24, 0x3F800000u, NX);
    T2("fadd.s", ", rdn", ONE, P2M24, 0x3F800000u, NX);
    T2("fadd.s", ", rup", ONE, P2M24, 0x3F800001u, NX);
    T2("fadd.s", ", rmm", ONE, P2M24, 0x3F800001u, NX);
    /* Same magnitude, negative: down now means away from zero. */
    T2("fadd.s", ", rne", MONE, M2M24, 0xBF800000u, NX);
    T2("fadd.s", ", rtz", MONE, M2M24, 0xBF800000u, NX);
    T2("fadd.s", ", rdn", MONE, M2M24, 0xBF800001u, NX);
    T2("fadd.s", ", rup", MONE, M2M24, 0xBF800000u, NX);
    T2("fadd.s", ", rmm", MONE, M2M24, 0xBF800001u, NX);
    /* (1+ulp) + half ulp = 1 + 1.5 ulp: a tie whose lower neighbour is odd, so RNE goes up to
     * 1+2ulp (0x3F800002) just like RMM; RTZ/RDN stay at 1+ulp. */
    T2("fadd.s", ", rne", 0x3F800001u, P2M24, 0x3F800002u, NX);
    T2("fadd.s", ", rtz", 0x3F800001u, P2M24, 0x3F800001u, NX);
    T2("fadd.s", ", rdn", 0x3F800001u, P2M24, 0x3F800001u, NX);
    T2("fadd.s", ", rup", 0x3F800001u, P2M24, 0x3F800002u, NX);
    T2("fadd.s", ", rmm", 0x3F800001u, P2M24, 0x3F800002u, NX);
    /* 1 + 0.75 ulp is not a tie: nearest (both kinds) and up give 1+ulp. */
    T2("fadd.s", ", rne", ONE, P34ULP, 0x3F800001u, NX);
    T2("fadd.s", ", rmm", ONE, P34ULP, 0x3F800001u, NX);
    T2("fadd.s", ", rtz", ONE, P34ULP, 0x3F800000u, NX);
    /* 1/3 = 1.0101...b x 2^-2; the 23-bit mantissa 0x2AAAAA is followed by 1010..., more than
     * half, so nearest and up give 0x3EAAAAAB and toward zero / down 0x3EAAAAAA. */
    T2("fdiv.s", ", rne", ONE, THREE, 0x3EAAAAABu, NX);
    T2("fdiv.s", ", rtz", ONE, THREE, 0x3EAAAAAAu, NX);
    T2("fdiv.s", ", rdn", ONE, THREE, 0x3EAAAAAAu, NX);
    T2("fdiv.s", ", rup", ONE, THREE, 0x3EAAAAABu, NX);
    T2("fdiv.s", ", rmm", ONE, THREE, 0x3EAAAAABu, NX);
    T2("fdiv.s", ", rdn", MONE, THREE, 0xBEAAAAABu, NX);
    T2("fdiv.s", ", rup", MONE, THREE, 0xBEAAAAAAu, NX);
    /* sqrt(2) = 0x1.6A09E667F...: mantissa 0x3504F3, next bit 0, so below half. */
    T1("fsqrt.s", ", rne", TWO, 0x3FB504F3u, NX);
    T1("fsqrt.s", ", rtz", TWO, 0x3FB504F3u, NX);
    T1("fsqrt.s", ", rup", TWO, 0x3FB504F4u, NX);
    T1("fsqrt.s", ", rne", FOUR, TWO, 0);
    /* exact results raise nothing */
    T2("fadd.s", ", rne", ONE, TWO, THREE, 0);
    T2("fmul.s", ", rtz", HALF, FOUR, TWO, 0);
}

static void rounding_dynamic(void)
{
    /* rm = DYN (the assembler's default) follows frm. */
    set_frm(3); /* RUP */
    T2("fadd.s", "", ONE, P2M24, 0x3F800001u, NX);
    set_frm(2); /* RDN */
    T2("fadd.s", "", MONE, M2M24, 0xBF800001u, NX);
    set_frm(4); /* RMM */
    T2("fadd.s", "", ONE, P2M24, 0x3F800001u, NX);
    set_frm(1); /* RTZ */
    TFI("fcvt.w.s", "", MTWOP5, 0xFFFFFFFEu, NX);
    /* fcsr = frm << 5 | fflags: frm = 1 and all five flags set give 0x3F. */
    {
        uint32_t fcsr;
        __asm__ volatile("csrwi fflags, 0x1F\n\tcsrr %0, fcsr" : "=r"(fcsr));
        check("fcsr = frm<<5 | fflags", fcsr, 0, 0x3Fu, 0);
    }
    /* A static rm overrides frm: with frm = RUP, an explicit rne still ties to even. */
    set_frm(3);
    T2("fadd.s", ", rne", ONE, P2M24, 0x3F800000u, NX);
    set_frm(0);
    /* flags accrue: NX from an inexact add, then DZ from 1/0, without clearing in between */
    {
        uint32_t f_;
        __asm__ volatile("csrwi fflags, 0\n\t"
                         "fmv.w.x ft0, %1\n\tfmv.w.x ft1, %2\n\tfadd.s ft2, ft0, ft1\n\t"
                         "fmv.w.x ft1, zero\n\tfdiv.s ft2, ft0, ft1\n\tcsrr %0, fflags"
                         : "=r"(f_) : "r"(ONE), "r"(P2M24) : "ft0", "ft1", "ft2");
        check("fflags accrue NX then DZ", f_, 0, NX | DZ, 0);
    }
}

static void signed_zero_and_nan(void)
{
    /* x + (-x) is +0 in every mode except RDN, where it is -0 (IEEE 754 clause 6.3). */
    T2("fadd.s", ", rne", P0, N0, P0, 0);
    T2("fadd.s", ", rdn", P0, N0, N0, 0);
    T2("fsub.s", ", rne", ONE, ONE, P0, 0);
    T2("fsub.s", ", rdn", ONE, ONE, N0, 0);
    T2("fadd.s", ", rne", N0, N0, N0, 0);
    T2("fmul.s", ", rne", N0, FOUR, N0, 0);
    T1("fsqrt.s", ", rne", N0, N0, 0);            /* sqrt(-0) = -0, no flag */
    T2("fsgnjn.s", "", P0, P0, N0, 0);            /* fneg moves bits */
    T2("fsgnj.s", "", SNAN, MONE, 0xFF800001u, 0); /* sign injection: no canonicalisation, no NV */
    T2("fmin.s", "", N0, P0, N0, 0);              /* -0 < +0 for min/max */
    T2("fmin.s", "", P0, N0, N0, 0);
    T2("fmax.s", "", N0, P0, P0, 0);
    /* invalid operations give the canonical NaN with NV */
    T2("fadd.s", ", rne", PINF, MINF, QNAN, NV);
    T2("fmul.s", ", rne", P0, PINF, QNAN, NV);
    T2("fdiv.s", ", rne", P0, P0, QNAN, NV);
    T1("fsqrt.s", ", rne", MONE, QNAN, NV);
    /* NaN operands: quiet ones propagate as the canonical NaN silently; signalling ones add NV */
    T2("fadd.s", ", rne", QNANP, ONE, QNAN, 0);
    T2("fadd.s", ", rne", SNAN, ONE, QNAN, NV);
    T2("fmin.s", "", QNANP, ONE, ONE, 0);         /* one NaN: the other operand */
    T2("fmin.s", "", SNAN, ONE, ONE, NV);
    T2("fmax.s", "", QNANP, QNANP, QNAN, 0);      /* two NaNs: canonical */
    /* division by zero: signed infinity, DZ */
    T2("fdiv.s", ", rne", ONE, P0, PINF, DZ);
    T2("fdiv.s", ", rne", MONE, P0, MINF, DZ);
    T2("fdiv.s", ", rne", ONE, N0, MINF, DZ);
    /* comparisons: FEQ quiet, FLT/FLE signalling */
    TCMP("feq.s", QNANP, ONE, 0, 0);
    TCMP("feq.s", SNAN, ONE, 0, NV);
    TCMP("flt.s", QNANP, ONE, 0, NV);
    TCMP("fle.s", ONE, ONE, 1, 0);
    TCMP("feq.s", N0, P0, 1, 0);                  /* -0 == +0 */
    TCMP("flt.s", N0, P0, 0, 0);
    /* fclass: one bit per class */
    TCLASS(MINF, 0x001);
    TCLASS(MONE, 0x002);
    TCLASS(N0, 0x008);
    TCLASS(P0, 0x010);
    TCLASS(0x00000001u, 0x020);                   /* positive subnormal */
    TCLASS(PINF, 0x080);
    TCLASS(SNAN, 0x100);
    TCLASS(QNAN, 0x200);
}

static void overflow_underflow(void)
{
    /* FLT_MAX + FLT_MAX overflows: to infinity when rounding away from zero or to nearest,
     * to FLT_MAX otherwise; always OF|NX. */
    T2("fadd.s", ", rne", FMAX, FMAX, PINF, OF | NX);
    T2("fadd.s", ", rtz", FMAX, FMAX, FMAX, OF | NX);
    T2("fadd.s", ", rdn", FMAX, FMAX, FMAX, OF | NX);
    T2("fadd.s", ", rup", FMAX, FMAX, PINF, OF | NX);
    T2("fadd.s", ", rmm", FMAX, FMAX, PINF, OF | NX);
    T2("fadd.s", ", rtz", MFMAX, MFMAX, MFMAX, OF | NX);
    T2("fadd.s", ", rdn", MFMAX, MFMAX, MINF, OF | NX);
    T2("fadd.s", ", rup", MFMAX, MFMAX, MFMAX, OF | NX);
    T2("fmul.s", ", rne", P2P100, P2P100, PINF, OF | NX);
    /* 2^-200 is far below the smallest subnormal 2^-149: +0 (or 2^-149 rounding up), UF|NX. */
    T2("fmul.s", ", rne", P2M100, P2M100, P0, UF | NX);
    T2("fmul.s", ", rup", P2M100, P2M100, 0x00000001u, UF | NX);
    /* 2^-126 * 0.5 = 2^-127 is subnormal but exact: tiny without inexact raises nothing. */
    T2("fmul.s", ", rne", MINNRM, HALF, 0x00400000u, 0);
    /* (1-2^-24) * 2^-126 = 2^-126 - 2^-150: representable with 24 bits at unbounded exponent,
     * so tiny after rounding; on the subnormal grid it is a tie between 0x007FFFFF (odd) and
     * 0x00800000 (even). RNE gives the smallest normal yet still UF|NX; RTZ gives 0x007FFFFF. */
    T2("fmul.s", ", rne", 0x3F7FFFFFu, MINNRM, MINNRM, UF | NX);
    T2("fmul.s", ", rtz", 0x3F7FFFFFu, MINNRM, 0x007FFFFFu, UF | NX);
    /* 2^-75 * -2^-76 + 2^-126 = 2^-126 - 2^-151 exactly (fused). Rounded to 24 bits at unbounded
     * exponent it is a tie between 2^-126 - 2^-150 (odd) and 2^-126 (even) -> 2^-126: not tiny
     * after rounding (RISC-V detects tininess after rounding), so NX only, no UF. */
    T3("fmadd.s", ", rne", 0x1A000000u, 0x99800000u, MINNRM, MINNRM, NX);
}

static void fused(void)
{
    /* (1+2^-12)^2 = 1 + 2^-11 + 2^-24. Rounded on its own the product is a tie that goes to
     * 1 + 2^-11, so an unfused a*b - (1+2^-11) would give 0; fused gives exactly 2^-24. */
    T3("fmadd.s", ", rne", 0x3F800800u, 0x3F800800u, 0xBF801000u, P2M24, 0);
    T3("fmsub.s", ", rne", 0x3F800800u, 0x3F800800u, 0x3F801000u, P2M24, 0);
    T3("fnmsub.s", ", rne", 0x3F800800u, 0x3F800800u, 0x3F801000u, M2M24, 0);
    T3("fnmadd.s", ", rne", 0x3F800800u, 0x3F800800u, 0xBF801000u, M2M24, 0);
    /* 2*3 + 1 = 7 exact */
    T3("fmadd.s", ", rne", TWO, THREE, ONE, 0x40E00000u, 0);
    /* inf * 0 + qNaN: invalid even though c is NaN; canonical NaN with NV */
    T3("fmadd.s", ", rne", PINF, P0, QNANP, QNAN, NV);
}

static void conversions(void)
{
    /* 2.5 and -2.5 to int in all five modes */
    TFI("fcvt.w.s", ", rne", TWOP5, 2, NX);
    TFI("fcvt.w.s", ", rtz", TWOP5, 2, NX);
    TFI("fcvt.w.s", ", rdn", TWOP5, 2, NX);
    TFI("fcvt.w.s", ", rup", TWOP5, 3, NX);
    TFI("fcvt.w.s", ", rmm", TWOP5, 3, NX);
    TFI("fcvt.w.s", ", rne", MTWOP5, 0xFFFFFFFEu, NX);  /* -2 */
    TFI("fcvt.w.s", ", rtz", MTWOP5, 0xFFFFFFFEu, NX);  /* -2 */
    TFI("fcvt.w.s", ", rdn", MTWOP5, 0xFFFFFFFDu, NX);  /* -3 */
    TFI("fcvt.w.s", ", rup", MTWOP5, 0xFFFFFFFEu, NX);  /* -2 */
    TFI("fcvt.w.s", ", rmm", MTWOP5, 0xFFFFFFFDu, NX);  /* -3 */
    /* saturation: NV, not NX */
    TFI("fcvt.w.s", ", rtz", QNAN, 0x7FFFFFFFu, NV);
    TFI("fcvt.w.s", ", rtz", PINF, 0x7FFFFFFFu, NV);
    TFI("fcvt.w.s", ", rtz", MINF, 0x80000000u, NV);
    TFI("fcvt.w.s", ", rtz", 0x4F000000u, 0x7FFFFFFFu, NV); /* 2^31 */
    TFI("fcvt.w.s", ", rtz", 0xCF000000u, 0x80000000u, 0);  /* -2^31 fits exactly */
    TFI("fcvt.wu.s", ", rtz", MONE, 0, NV);
    TFI("fcvt.wu.s", ", rtz", MHALF, 0, NX);           /* rounds to 0, which fits */
    TFI("fcvt.wu.s", ", rdn", MHALF, 0, NV);           /* rounds to -1: below range */
    TFI("fcvt.wu.s", ", rtz", 0x4F32D05Eu, 3000000000u, 0);
    TFI("fcvt.wu.s", ", rtz", QNAN, 0xFFFFFFFFu, NV);
    /* 2^24 + 1 needs 25 bits: a tie between 2^24 (even) and 2^24 + 2 */
    TIF("fcvt.s.w", ", rne", 16777217u, 0x4B800000u, NX);
    TIF("fcvt.s.w", ", rup", 16777217u, 0x4B800001u, NX);
    TIF("fcvt.s.w", ", rtz", 16777217u, 0x4B800000u, NX);
    TIF("fcvt.s.w", ", rdn", 0xFEFFFFFFu, 0xCB800001u, NX); /* -(2^24+1) */
    TIF("fcvt.s.wu", ", rne", 0xFFFFFFFFu, 0x4F800000u, NX); /* -> 2^32 */
    TIF("fcvt.s.wu", ", rtz", 0xFFFFFFFFu, 0x4F7FFFFFu, NX);
    TIF("fcvt.s.w", ", rne", 0xFFFFFFFDu, 0xC0400000u, 0);  /* -3 exact */
}

int main(void)
{
    rounding_static();
    rounding_dynamic();
    signed_zero_and_nan();
    overflow_underflow();
    fused();
    conversions();
    put_str("fpu_test: ");
    put_dec((uint32_t)checks);
    put_str(" checks, ");
    put_dec((uint32_t)failures);
    put_str(failures == 0 ? " failures - all passed\n" : " failures\n");
    return failures;
}
