/* Host floating-point fast paths for src/num operations, used only where the host's IEEE 754
 * arithmetic gives exactly the software result (bits and flags); everything else stays on
 * the software path. The domain, decided once here (docs/performance.md, "FP on the host FPU"):
 *
 * 1. The build evaluates float and double in their own precision: FLT_EVAL_METHOD == 0 and
 *    IEEE 754 types (SSE2 on x86-64; not x87), without -ffast-math. Otherwise NPK_HOSTFP is 0 and
 *    npk_hostfp_ready() is always 0, so callers take the software path.
 * 2. The host FPU is in its default state when the operation runs: round to nearest even,
 *    subnormals neither flushed (FTZ) nor read as zero (DAZ). npk_hostfp_ready() checks it
 *    (MXCSR on x86, an arithmetic probe elsewhere): an embedding process may have called
 *    fesetround or been linked with -ffast-math's start-up code.
 * 3. Only round-to-nearest-even results are computed on the host: binary32 x binary32
 *    products (exact in binary64), binary64 and binary32 sums, binary32 products and
 *    quotients, binary64 -> binary32 narrowing. NaN results are replaced by the canonical NaN
 *    (the host's payload and sign rules differ from RISC-V's), so callers that need NaN
 *    propagation or other rounding modes use src/num.
 * 4. The F extension's fused multiply-add (npk_hostfp_f32_fma) also gives flags, so it is on
 *    the host only for finite operands in RNE whose result is zero or a normal binary32 value
 *    and is not a double-rounding case: the exact sum a*b+c is formed as binary64 s plus error
 *    t (TwoSum); rounding s to binary32 equals rounding a*b+c unless t != 0 and s lies exactly
 *    halfway between two binary32 values. NX is t != 0 or s not a binary32 value. Everything
 *    else (other modes, NaN, infinities, subnormal inputs or tiny results where UF is decided,
 *    overflow, the halfway cases) is the software npk_f32_fma.
 *
 * FMA contraction by the compiler cannot change these results: every product formed here is
 * exact, so a fused a*b+c rounds the same as the separate add, and the TwoSum error terms have
 * no products. Operands and results are bit patterns, like the rest of src/num. */
#ifndef NPK_NUM_HOSTFP_H
#define NPK_NUM_HOSTFP_H

#include <float.h>
#include <stdint.h>
#include <string.h>

#include "num/fenv.h"

/* -ffast-math (or -ffinite-math-only) would let the compiler drop the NaN tests and simplify
 * the TwoSum error to zero: such builds stay on the software path. (gcc and clang define
 * __FINITE_MATH_ONLY__ as 0 or 1.) */
#if defined(__FINITE_MATH_ONLY__)
#define NPK_HOSTFP_FINITE_ONLY __FINITE_MATH_ONLY__
#else
#define NPK_HOSTFP_FINITE_ONLY 0
#endif
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0 && FLT_MANT_DIG == 24 && DBL_MANT_DIG == 53 \
    && FLT_RADIX == 2 && !defined(__FAST_MATH__) && !NPK_HOSTFP_FINITE_ONLY
#define NPK_HOSTFP 1
#else
#define NPK_HOSTFP 0
#endif

#if NPK_HOSTFP && (defined(__x86_64__) || (defined(__i386__) && defined(__SSE2_MATH__)))
#include <xmmintrin.h>
#define NPK_HOSTFP_MXCSR 1
#else
#define NPK_HOSTFP_MXCSR 0
#endif

/* The arithmetic probe behind npk_hostfp_ready() where there is no MXCSR (hostfp.c). */
int npk_hostfp_probe(void);

/* 1 when the host FPU is in the state of rule 2 (and the build satisfies rule 1). Cheap
 * (one MXCSR read on x86): call it once per instruction or vector. */
static inline int npk_hostfp_ready(void)
{
#if NPK_HOSTFP_MXCSR
    /* rounding control (bits 13-14) nearest, FTZ (bit 15) and DAZ (bit 6) off */
    return (_mm_getcsr() & 0xE040u) == 0;
#elif NPK_HOSTFP
    return npk_hostfp_probe();
#else
    return 0;
#endif
}

#define NPK_HOSTFP_F64_NAN UINT64_C(0x7FF8000000000000)
#define NPK_HOSTFP_F32_NAN 0x7FC00000u

/* Bit casts between patterns and host values. */
#define NPK_HOSTFP_CAST(name, from, to)                                                      \
    static inline to name(from x)                                                             \
    {                                                                                         \
        to y;                                                                                 \
        memcpy(&y, &x, sizeof y);                                                             \
        return y;                                                                             \
    }
NPK_HOSTFP_CAST(npk_hostfp_d, uint64_t, double)
NPK_HOSTFP_CAST(npk_hostfp_d_bits, double, uint64_t)
NPK_HOSTFP_CAST(npk_hostfp_f, uint32_t, float)
NPK_HOSTFP_CAST(npk_hostfp_f_bits, float, uint32_t)
#undef NPK_HOSTFP_CAST

/* A binary64 result with NaNs made canonical. */
static inline uint64_t npk_hostfp_f64_canon(double d)
{
    return d != d ? NPK_HOSTFP_F64_NAN : npk_hostfp_d_bits(d);
}

static inline uint32_t npk_hostfp_f32_canon(float f)
{
    return f != f ? NPK_HOSTFP_F32_NAN : npk_hostfp_f_bits(f);
}

/* The element at byte offset 4i of a little-endian array of binary32 values. */
static inline float npk_hostfp_le_f32(const uint8_t *p, uint32_t i)
{
    p += 4 * (size_t)i;
    return npk_hostfp_f((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                        (uint32_t)p[3] << 24);
}

/* The following need npk_hostfp_ready(); each equals its software definition in RNE with
 * canonical NaN results (flags not computed). */

/* acc + D(a) * D(b): the product is exact, the sum rounds once (rvnpu FMACC). */
static inline uint64_t npk_hostfp_f64_fmac(uint64_t acc, uint32_t a, uint32_t b)
{
    return npk_hostfp_f64_canon(npk_hostfp_d(acc) +
                                (double)npk_hostfp_f(a) * (double)npk_hostfp_f(b));
}

/* acc + D(a[0])*D(b[0]) + ... + D(a[n-1])*D(b[n-1]), each term added on its own in index
 * order (rvnpu FVMAC); a and b are little-endian binary32 arrays. A NaN stays NaN through
 * the later additions, so canonicalising once at the end equals doing it after every step.
 * acc, if NaN, must be the canonical NaN already (rvnpu's facc always is): for n = 0 the
 * result is acc. The same holds for npk_hostfp_f64_sum_f32. */
static inline uint64_t npk_hostfp_f64_dot_f32(uint64_t acc, const uint8_t *a, const uint8_t *b,
                                              uint32_t n)
{
    double s = npk_hostfp_d(acc);
    for (uint32_t i = 0; i < n; i++)
        s += (double)npk_hostfp_le_f32(a, i) * (double)npk_hostfp_le_f32(b, i);
    return npk_hostfp_f64_canon(s);
}

/* acc + D(a[0]) + ... + D(a[n-1]) in index order (rvnpu FVREDUCE). */
static inline uint64_t npk_hostfp_f64_sum_f32(uint64_t acc, const uint8_t *a, uint32_t n)
{
    double s = npk_hostfp_d(acc);
    for (uint32_t i = 0; i < n; i++)
        s += (double)npk_hostfp_le_f32(a, i);
    return npk_hostfp_f64_canon(s);
}

/* binary64 -> binary32, RNE, overflow to infinity, subnormal results kept. */
static inline uint32_t npk_hostfp_f64_to_f32(uint64_t d)
{
    return npk_hostfp_f32_canon((float)npk_hostfp_d(d));
}

/* binary32 operations, RNE. */
typedef enum npk_hostfp_op {
    NPK_HOSTFP_ADD, NPK_HOSTFP_SUB, NPK_HOSTFP_MUL, NPK_HOSTFP_DIV
} npk_hostfp_op;

static inline uint32_t npk_hostfp_f32_arith(npk_hostfp_op op, uint32_t a, uint32_t b)
{
    float x = npk_hostfp_f(a), y = npk_hostfp_f(b);
    switch (op) {
    case NPK_HOSTFP_ADD: return npk_hostfp_f32_canon(x + y);
    case NPK_HOSTFP_SUB: return npk_hostfp_f32_canon(x - y);
    case NPK_HOSTFP_MUL: return npk_hostfp_f32_canon(x * y);
    default: return npk_hostfp_f32_canon(x / y);
    }
}

/* The F extension's fused multiply-adds, with npk_f32_fma's exact results and flags in every
 * environment: on the host within rule 4, else npk_f32_fma and its variants. */
uint32_t npk_hostfp_f32_fma(uint32_t a, uint32_t b, uint32_t c, npk_fenv *e);
uint32_t npk_hostfp_f32_fms(uint32_t a, uint32_t b, uint32_t c, npk_fenv *e);
uint32_t npk_hostfp_f32_fnmsub(uint32_t a, uint32_t b, uint32_t c, npk_fenv *e);
uint32_t npk_hostfp_f32_fnmadd(uint32_t a, uint32_t b, uint32_t c, npk_fenv *e);

#endif
