/* rvnpu "npu_tour": calls every NPU intrinsic of the SDK once or twice on the spot values of
 * spec §4-§7 and prints PASS/FAIL per check; exit status = number of failures. Built twice:
 * npu_tour.elf (seed) and npu_tour_rev2.elf (-DNPU_REV2). Needs npukit (qemu lacks the NPU). */
#include <stdint.h>
#include "npu.h"
#include "npu_fp.h"
#include "syscalls.h"

static int failures;

static void put_str(const char *s)
{
    long n = 0;
    while (s[n] != '\0')
        n++;
    write(1, s, n);
}

static void put_hex(uint32_t v)
{
    char b[10] = {'0', 'x'};
    for (int i = 0; i < 8; i++)
        b[2 + i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 0xF];
    write(1, b, 10);
}

static void check(const char *what, uint32_t got, uint32_t want)
{
    put_str(got == want ? "PASS " : "FAIL ");
    put_str(what);
    if (got != want) {
        failures++;
        put_str(": got ");
        put_hex(got);
        put_str(", want ");
        put_hex(want);
    }
    put_str("\n");
}

static uint32_t bits(float f)
{
    union { float f; uint32_t u; } x = {.f = f};
    return x.u;
}

static float flt(uint32_t u)
{
    union { uint32_t u; float f; } x = {.u = u};
    return x.f;
}

static void integer_npu(void)
{
    check("QMUL(-3, 5) = -1 (floor)", (uint32_t)NPU_QMUL(-3, 5), 0xFFFFFFFFu);
    check("QMUL(127, 127) = 63", (uint32_t)NPU_QMUL(127, 127), 63);
    check("QMUL(0x7FFFFFFF, 0x7FFFFFFF) low bits", (uint32_t)NPU_QMUL(0x7FFFFFFF, 0x7FFFFFFF), 0xFF000000u);
    check("CLAMP(300) = 127", (uint32_t)NPU_CLAMP(300), 127);
    check("CLAMP(-300) = -128", (uint32_t)NPU_CLAMP(-300), 0xFFFFFF80u);
    check("RELU(-5) = 0", (uint32_t)NPU_RELU(-5), 0);
    check("RELU(7) = 7", (uint32_t)NPU_RELU(7), 7);
    check("GELU(32) = 27", (uint32_t)NPU_GELU(32), 27);
    check("GELU(-32) = -5", (uint32_t)NPU_GELU(-32), 0xFFFFFFFBu);
    check("GELU(0x120) uses the low byte only", (uint32_t)NPU_GELU(0x120), 27);

    NPU_RSTACC();
    NPU_MACC(3, 4);
    NPU_MACC(-2, 5);
    check("MACC 3*4 + -2*5, RSTACC", (uint32_t)NPU_RSTACC(), 2);
    check("RSTACC cleared acc", (uint32_t)NPU_RSTACC(), 0);

    static int8_t a[8] = {1, 2, 3, 4, -1, -2, -3, -4};
    static int8_t b[8] = {5, 6, 7, 8, 9, 10, 11, 12};
    NPU_VMAC(a, b, 8);
    check("VMAC 8 int8 = -40", (uint32_t)NPU_RSTACC(), (uint32_t)-40);
    NPU_VMAC(a, b, 4); /* chunked accumulation gives the same sum */
    NPU_VMAC(a + 4, b + 4, 4);
    check("VMAC 4 + 4 = -40", (uint32_t)NPU_RSTACC(), (uint32_t)-40);

    static int8_t vsrc[4] = {-1, -3, 100, 2}, vdst[4];
    NPU_MACC(98304, 1); /* acc_lo = 1.5 in Q16.16: VMUL's scale */
    NPU_VMUL(vsrc, vdst, 4);
    check("VMUL x1.5 [0] = -2 (floor)", (uint32_t)vdst[0], 0xFFFFFFFEu);
    check("VMUL x1.5 [1] = -5", (uint32_t)vdst[1], 0xFFFFFFFBu);
    check("VMUL x1.5 [2] = 127 (clamped)", (uint32_t)vdst[2], 127);
    check("VMUL x1.5 [3] = 3", (uint32_t)vdst[3], 3);
    check("VMUL leaves acc", (uint32_t)NPU_RSTACC(), 98304);

    static int32_t e[3] = {0, 0x10000, 0xB0000};
    NPU_VEXP(e, e, 3); /* in place is defined: element by element */
    check("VEXP(0) = 1.0", (uint32_t)e[0], 0x10000);
    check("VEXP(1.0) = e", (uint32_t)e[1], 0x2B7E1);
    check("VEXP(11.0) saturates", (uint32_t)e[2], 0x7FFFFFFF);

    static int32_t r[3] = {0x10000, 0x40000, 0};
    check("VRSQRT(1.0) = 1.0", (uint32_t)NPU_VRSQRT(&r[0]), 0x10000);
    check("VRSQRT(4.0) = 0.5", (uint32_t)NPU_VRSQRT(&r[1]), 0x8000);
    check("VRSQRT(0) saturates", (uint32_t)NPU_VRSQRT(&r[2]), 0x7FFFFFFF);

    static int32_t w[4] = {1, 7, -3, 7};
    check("VREDUCE = 12", (uint32_t)NPU_VREDUCE(w, 4), 12);
    check("VREDUCE n=0 = 0", (uint32_t)NPU_VREDUCE(w, 0), 0);
    check("VMAX = 7", (uint32_t)NPU_VMAX(w, 4), 7);
    check("VMAX n=0 = INT32_MIN", (uint32_t)NPU_VMAX(w, 0), 0x80000000u);

    static int8_t lv[8] = {1, -2, 3, -4, 0, 0, 0, 0};
    NPU_LDVEC(2, lv, 0);
    NPU_STVEC(2, lv, 4);
    check("LDVEC v2 / STVEC v2 copies 4 bytes",
          (uint32_t)(uint8_t)lv[4] | (uint32_t)(uint8_t)lv[5] << 8 |
              (uint32_t)(uint8_t)lv[6] << 16 | (uint32_t)(uint8_t)lv[7] << 24,
          0xFC03FE01u);
}

static void fp_npu(void)
{
    NPU_FRSTACC();
    NPU_FMACC(2.0f, 3.0f);
    NPU_FMACC(1.0f, 0.5f);
    check("FMACC 2*3 + 1*0.5, FRSTACC", bits(NPU_FRSTACC()), 0x40D00000u);
    check("FRSTACC cleared facc", bits(NPU_FRSTACC()), 0);

    static float fa[4] = {1.0f, 2.0f, 3.0f, 4.0f}, fb[4] = {0.5f, 0.25f, 2.0f, 1.0f};
    NPU_FVMAC(fa, fb, 4);
    check("FVMAC = 11", bits(NPU_FRSTACC()), 0x41300000u);

    check("FRELU(-2) = +0", bits(NPU_FRELU(-2.0f)), 0);
    check("FRELU(-0) = +0", bits(NPU_FRELU(flt(0x80000000u))), 0);
    check("FRELU(3) = 3", bits(NPU_FRELU(3.0f)), 0x40400000u);
    check("FGELU(1.0)", bits(NPU_FGELU(1.0f)), 0x3F57625Fu);
    check("FGELU(-0) = -0", bits(NPU_FGELU(flt(0x80000000u))), 0x80000000u);

    static float four = 4.0f;
#ifdef NPU_REV2
    check("FRSQRT(4) = 0.5 (rev2)", bits(NPU_FRSQRT(four)), 0x3F000000u);
#else
    check("FVRSQRT(&4) = 0.5 (seed)", bits(NPU_FVRSQRT(&four)), 0x3F000000u);
#endif

    static float big[3] = {1e30f, 1e30f, -1e30f};
    check("FVREDUCE 1e30+1e30-1e30 = 1e30 (binary64 sum)", bits(NPU_FVREDUCE(big, 3)), bits(1e30f));
    check("FVREDUCE n=0 = +0", bits(NPU_FVREDUCE(big, 0)), 0);
    static uint32_t zs[2] = {0x80000000u, 0};
    check("FVMAX [-0, +0] = -0 (first wins)", bits(NPU_FVMAX(zs, 2)), 0x80000000u);
    check("FVMAX n=0 = -inf", bits(NPU_FVMAX(zs, 0)), 0xFF800000u);

    static float ms[2] = {1.5f, -3.0f}, md[2];
    NPU_FMACC(1.0f, 2.0f); /* facc = 2: FVMUL's scale */
    NPU_FVMUL(ms, md, 2);
    check("FVMUL x2 [0] = 3", bits(md[0]), 0x40400000u);
    check("FVMUL x2 [1] = -6", bits(md[1]), 0xC0C00000u);

#ifdef NPU_REV2
    static float s1[2] = {1.0f, 3.0f}, d[2];
    NPU_FVDIV(s1, d, 2); /* facc is still 2 */
    check("FVDIV /2 [1] = 1.5", bits(d[1]), 0x3FC00000u);
    NPU_FVSUB_SCALAR(s1, d, 2);
    check("FVSUB_SCALAR -2 [0] = -1", bits(d[0]), 0xBF800000u);
    NPU_FRSTACC();
    static float p[2] = {1.0f, 2.0f}, q[2] = {10.0f, 20.0f};
    NPU_FVADD(p, q, 2);
    check("FVADD writes src2: 2 + 20 = 22", bits(q[1]), 0x41B00000u);
    NPU_FVSUB(p, q, 2);
    check("FVSUB src1 - src2: 1 - 11 = -10", bits(q[0]), 0xC1200000u);
    static float rl[2] = {-1.0f, 2.0f}, rd[2];
    NPU_FVRELU(rl, rd, 2);
    check("FVRELU [-1, 2] -> [0, 2]", bits(rd[0]) | bits(rd[1]), 0x40000000u);
    static float g1 = 1.0f, gd;
    NPU_FVGELU(&g1, &gd, 1);
    check("FVGELU(1.0) = FGELU(1.0)", bits(gd), 0x3F57625Fu);
#endif
    NPU_FRSTACC();

    static uint32_t ex[2] = {0, 0xFF800000u};
    NPU_FVEXP(ex, ex, 2);
    check("FVEXP(0) = 1", ex[0], 0x3F800000u);
    check("FVEXP(-inf) = +0", ex[1], 0);
}

int main(void)
{
    integer_npu();
    fp_npu();
#ifdef NPU_REV2
    put_str("npu_tour (rev2): ");
#else
    put_str("npu_tour (seed): ");
#endif
    put_str(failures == 0 ? "all passed\n" : "some checks failed\n");
    return failures;
}
