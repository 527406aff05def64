/* Checked integer arithmetic for every bounds computation in the library: sums and products
 * that report wrap instead of wrapping, and the one range test "[addr, addr+len) lies inside
 * [0, size)". Guest-controlled addresses, lengths and strides go through these, never raw. */
#ifndef NPK_CORE_CHECKED_H
#define NPK_CORE_CHECKED_H

#include <stdbool.h>
#include <stdint.h>

#if defined(__has_builtin)
#if __has_builtin(__builtin_add_overflow) && __has_builtin(__builtin_mul_overflow)
#define NPK_HAVE_OVERFLOW_BUILTINS 1
#endif
#elif defined(__GNUC__) && __GNUC__ >= 5
#define NPK_HAVE_OVERFLOW_BUILTINS 1
#endif

/* *out = a + b; false (and *out unspecified) when the true sum does not fit 64 bits. */
static inline bool npk_add_u64_ok(uint64_t a, uint64_t b, uint64_t *out)
{
#ifdef NPK_HAVE_OVERFLOW_BUILTINS
    return !__builtin_add_overflow(a, b, out);
#else
    *out = a + b;
    return *out >= a;
#endif
}

/* *out = a * b; false when the true product does not fit 64 bits. */
static inline bool npk_mul_u64_ok(uint64_t a, uint64_t b, uint64_t *out)
{
#ifdef NPK_HAVE_OVERFLOW_BUILTINS
    return !__builtin_mul_overflow(a, b, out);
#else
    *out = a * b;
    return a == 0 || *out / a == b;
#endif
}

/* Signed versions, for strided views whose strides may be negative. */
static inline bool npk_add_i64_ok(int64_t a, int64_t b, int64_t *out)
{
#ifdef NPK_HAVE_OVERFLOW_BUILTINS
    return !__builtin_add_overflow(a, b, out);
#else
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
        return false;
    *out = a + b;
    return true;
#endif
}

static inline bool npk_mul_i64_ok(int64_t a, int64_t b, int64_t *out)
{
#ifdef NPK_HAVE_OVERFLOW_BUILTINS
    return !__builtin_mul_overflow(a, b, out);
#else
    if (a == 0 || b == 0) {
        *out = 0;
        return true;
    }
    if ((a == -1 && b == INT64_MIN) || (b == -1 && a == INT64_MIN))
        return false;
    /* compare magnitudes through division, which cannot overflow once -1 * MIN is excluded */
    if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
              : (b > 0 ? a < INT64_MIN / b : a < INT64_MAX / b))
        return false;
    *out = a * b;
    return true;
#endif
}

/* Does [addr, addr + len) lie inside [0, size) with no wrap? A zero-length range is inside
 * when addr <= size (an empty access at the very end is legal). */
static inline bool npk_range_ok(uint64_t addr, uint64_t len, uint64_t size)
{
    return addr <= size && len <= size - addr;
}

/* Does [addr, addr + len) lie inside a `bits`-bit address space, [0, 2^bits)? bits = 64 is
 * the whole uint64_t range, whose size 2^64 npk_range_ok cannot be given. */
static inline bool npk_range_in_bits(uint64_t addr, uint64_t len, unsigned bits)
{
    if (bits < 64)
        return npk_range_ok(addr, len, UINT64_C(1) << bits);
    return len == 0 || addr <= UINT64_MAX - (len - 1);
}

#endif
