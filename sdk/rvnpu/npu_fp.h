/* rvnpu FP NPU intrinsics (custom-1, opcode 0x2B; spec §3.3, §6, §7, §12.4). Same names and
 * signatures as the original's firmware/common/npu_fp.h. funct7=3 differs by ISA revision:
 * NPU_FVRSQRT(void *) by default (seed); define NPU_REV2 for NPU_FRSQRT(float) + rev2 vector ops. */
#ifndef RVNPU_NPU_FP_H
#define RVNPU_NPU_FP_H

#include <stdint.h>

/* rev2 traps on any vector instruction covering more than this many bytes (spec §7.3);
 * firmware for rev2 splits longer vectors into chunks of at most this size. */
#define NPU_REV2_MAX_VECTOR_BYTES 256

/* facc += (double)a * (double)b. rd is unused: x0. */
static inline void NPU_FMACC(float a, float b)
{
    __asm__ volatile(".insn r 0x2B, 0, 0, x0, %0, %1" : : "f"(a), "f"(b));
}

/* Array ops pin a0 = rs1, a1 = rs2, a2 = count (the rd slot, read not written). */
#define RVNPU_FP_ARRAY_OP(funct7, p1, p2, n)                                   \
    do {                                                                       \
        register const void *r_a0 __asm__("a0") = (p1);                        \
        register const void *r_a1 __asm__("a1") = (p2);                        \
        register int r_a2 __asm__("a2") = (n);                                 \
        __asm__ volatile(".insn r 0x2B, 0, " #funct7 ", %2, %0, %1"            \
                         : : "r"(r_a0), "r"(r_a1), "r"(r_a2) : "memory");      \
    } while (0)

/* facc += a[i] * b[i] in index order over n floats. */
static inline void NPU_FVMAC(const void *a, const void *b, int n)
{
    RVNPU_FP_ARRAY_OP(1, a, b, n);
}

/* dst[i] = exp(src[i]). */
static inline void NPU_FVEXP(void *src, void *dst, int n)
{
    RVNPU_FP_ARRAY_OP(2, src, dst, n);
}

/* dst[i] = src[i] * (float)facc. */
static inline void NPU_FVMUL(void *src, void *dst, int n)
{
    RVNPU_FP_ARRAY_OP(4, src, dst, n);
}

/* Reductions: pointer in rs1, count in rs2, result in an FP rd. */
static inline float NPU_FVREDUCE(void *addr, int n)
{
    float r;
    __asm__ volatile(".insn r 0x2B, 0, 5, %0, %1, %2" : "=f"(r) : "r"(addr), "r"(n) : "memory");
    return r;
}

static inline float NPU_FVMAX(void *addr, int n)
{
    float r;
    __asm__ volatile(".insn r 0x2B, 0, 6, %0, %1, %2" : "=f"(r) : "r"(addr), "r"(n) : "memory");
    return r;
}

static inline float NPU_FRELU(float x)
{
    float r;
    __asm__ volatile(".insn r 0x2B, 1, 0, %0, %1, f0" : "=f"(r) : "f"(x));
    return r;
}

static inline float NPU_FGELU(float x)
{
    float r;
    __asm__ volatile(".insn r 0x2B, 4, 0, %0, %1, f0" : "=f"(r) : "f"(x));
    return r;
}

/* Returns (float)facc and clears facc. */
static inline float NPU_FRSTACC(void)
{
    float r;
    __asm__ volatile(".insn r 0x2B, 5, 0, %0, f0, f0" : "=f"(r));
    return r;
}

#ifndef NPU_REV2

/* seed: 1/sqrt of the float at addr (rs1 is an integer register holding an address). */
static inline float NPU_FVRSQRT(void *addr)
{
    float r;
    __asm__ volatile(".insn r 0x2B, 0, 3, %0, %1, x0" : "=f"(r) : "r"(addr) : "memory");
    return r;
}

#else /* NPU_REV2 */

/* rev2: 1/sqrt of an FP register; same funct7 as seed's FVRSQRT, hence the switch. */
static inline float NPU_FRSQRT(float x)
{
    float r;
    __asm__ volatile(".insn r 0x2B, 0, 3, %0, %1, f0" : "=f"(r) : "f"(x));
    return r;
}

/* src2_and_dst[i] = src1[i] + src2_and_dst[i]. */
static inline void NPU_FVADD(void *src1, void *src2_and_dst, int n)
{
    RVNPU_FP_ARRAY_OP(7, src1, src2_and_dst, n);
}

/* src2_and_dst[i] = src1[i] - src2_and_dst[i]. */
static inline void NPU_FVSUB(void *src1, void *src2_and_dst, int n)
{
    RVNPU_FP_ARRAY_OP(8, src1, src2_and_dst, n);
}

static inline void NPU_FVRELU(void *src, void *dst, int n)
{
    RVNPU_FP_ARRAY_OP(9, src, dst, n);
}

static inline void NPU_FVGELU(void *src, void *dst, int n)
{
    RVNPU_FP_ARRAY_OP(10, src, dst, n);
}

/* dst[i] = src[i] / (float)facc. */
static inline void NPU_FVDIV(void *src, void *dst, int n)
{
    RVNPU_FP_ARRAY_OP(11, src, dst, n);
}

/* dst[i] = src[i] - (float)facc. */
static inline void NPU_FVSUB_SCALAR(void *src, void *dst, int n)
{
    RVNPU_FP_ARRAY_OP(12, src, dst, n);
}

#endif /* NPU_REV2 */

#endif
