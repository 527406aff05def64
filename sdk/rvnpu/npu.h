/* rvnpu integer NPU intrinsics (custom-0, opcode 0x0B; spec §3.3, §4, §12.4). Same names and
 * signatures as the original's firmware/common/npu.h, encoded with the GNU `.insn` directive so
 * neither GNU as nor clang needs to know the NPU. npukit additions: NPU_LDVEC / NPU_STVEC. */
#ifndef RVNPU_NPU_H
#define RVNPU_NPU_H

#include <stdint.h>

/* All intrinsics are volatile: most read or write the hidden accumulator or vector registers,
 * and keeping every one in program order keeps retired-instruction counts predictable. */

/* acc += a * b (exact 64-bit product). rd is unused: x0. */
static inline void NPU_MACC(int32_t a, int32_t b)
{
    __asm__ volatile(".insn r 0x0B, 0, 0, x0, %0, %1" : : "r"(a), "r"(b));
}

/* acc += sum a[i]*b[i] over n int8 pairs. Array ops pin a0 = rs1, a1 = rs2, a2 = count (the rd
 * slot, read not written), as the original did; memory clobber because memory is read. */
static inline void NPU_VMAC(const void *a, const void *b, int n)
{
    register const void *r_a0 __asm__("a0") = a;
    register const void *r_a1 __asm__("a1") = b;
    register int r_a2 __asm__("a2") = n;
    __asm__ volatile(".insn r 0x0B, 0, 1, %2, %0, %1"
                     : : "r"(r_a0), "r"(r_a1), "r"(r_a2) : "memory");
}

/* dst[i] = EXPQ(src[i]) over n Q16.16 int32 values. */
static inline void NPU_VEXP(void *src, void *dst, int n)
{
    register void *r_a0 __asm__("a0") = src;
    register void *r_a1 __asm__("a1") = dst;
    register int r_a2 __asm__("a2") = n;
    __asm__ volatile(".insn r 0x0B, 0, 2, %2, %0, %1"
                     : : "r"(r_a0), "r"(r_a1), "r"(r_a2) : "memory");
}

/* RSQRTQ of the one Q16.16 int32 at addr. */
static inline int32_t NPU_VRSQRT(void *addr)
{
    int32_t r;
    __asm__ volatile(".insn r 0x0B, 0, 3, %0, %1, x0" : "=r"(r) : "r"(addr) : "memory");
    return r;
}

/* dst[i] = clamp8(floor(src[i] * acc_lo / 65536)) over n int8 values. */
static inline void NPU_VMUL(void *src, void *dst, int n)
{
    register void *r_a0 __asm__("a0") = src;
    register void *r_a1 __asm__("a1") = dst;
    register int r_a2 __asm__("a2") = n;
    __asm__ volatile(".insn r 0x0B, 0, 4, %2, %0, %1"
                     : : "r"(r_a0), "r"(r_a1), "r"(r_a2) : "memory");
}

/* Reductions: pointer in rs1, count in rs2, result in rd, registers chosen by the compiler. */
static inline int32_t NPU_VREDUCE(void *addr, int n)
{
    int32_t r;
    __asm__ volatile(".insn r 0x0B, 0, 5, %0, %1, %2" : "=r"(r) : "r"(addr), "r"(n) : "memory");
    return r;
}

static inline int32_t NPU_VMAX(void *addr, int n)
{
    int32_t r;
    __asm__ volatile(".insn r 0x0B, 0, 6, %0, %1, %2" : "=r"(r) : "r"(addr), "r"(n) : "memory");
    return r;
}

static inline int32_t NPU_RELU(int32_t x)
{
    int32_t r;
    __asm__ volatile(".insn r 0x0B, 1, 0, %0, %1, x0" : "=r"(r) : "r"(x));
    return r;
}

/* (a * b) >> 8 as a floor of the exact 64-bit product, low 32 bits kept. */
static inline int32_t NPU_QMUL(int32_t a, int32_t b)
{
    int32_t r;
    __asm__ volatile(".insn r 0x0B, 2, 0, %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
    return r;
}

static inline int32_t NPU_CLAMP(int32_t x)
{
    int32_t r;
    __asm__ volatile(".insn r 0x0B, 3, 0, %0, %1, x0" : "=r"(r) : "r"(x));
    return r;
}

/* GELU8 table lookup of the low byte (int8 in units of 1/32). */
static inline int32_t NPU_GELU(int32_t x)
{
    int32_t r;
    __asm__ volatile(".insn r 0x0B, 4, 0, %0, %1, x0" : "=r"(r) : "r"(x));
    return r;
}

/* Returns acc bits 31:0 and clears acc. */
static inline int32_t NPU_RSTACC(void)
{
    int32_t r;
    __asm__ volatile(".insn r 0x0B, 5, 0, %0, x0, x0" : "=r"(r));
    return r;
}

/* npukit addition. vreg[v] = the four int8 at base + off; v (0..3) and off (-2048..2047) must
 * be integer constant expressions because they are encoded in the instruction. Macros, not
 * inline functions, so that holds at -O0 too. */
#define NPU_LDVEC(v, base, off)                                              \
    __asm__ volatile(".insn i 0x0B, 6, x%1, %2(%0)"                         \
                     : : "r"(base), "i"(v), "i"(off) : "memory")

/* npukit addition. The four bytes of vreg[v] are stored at base + off. */
#define NPU_STVEC(v, base, off)                                              \
    __asm__ volatile(".insn s 0x0B, 7, x%1, %2(%0)"                         \
                     : : "r"(base), "i"(v), "i"(off) : "memory")

#endif
