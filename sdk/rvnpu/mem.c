/* Byte-wise memcpy/memmove/memset/memcmp/strlen for rvnpu firmware (see mem.h). Simple loops:
 * speed is not the point here, having them at all is. All weak: the original SDK had none, so
 * firmware written for it may define its own, which then links unchanged and wins. */
#include "mem.h"

/* GCC would turn these loops back into calls to themselves; the optimize attribute stops that. */
#if defined(__GNUC__) && !defined(__clang__)
#define RVNPU_NO_LIBCALLS __attribute__((weak, optimize("no-tree-loop-distribute-patterns")))
#else
#define RVNPU_NO_LIBCALLS __attribute__((weak))
#endif

RVNPU_NO_LIBCALLS void *memcpy(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n--)
        *d++ = *s++;
    return dst;
}

RVNPU_NO_LIBCALLS void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d < s) {
        while (n--)
            *d++ = *s++;
    } else {
        while (n--)
            d[n] = s[n];
    }
    return dst;
}

RVNPU_NO_LIBCALLS void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    while (n--)
        *d++ = (unsigned char)c;
    return dst;
}

RVNPU_NO_LIBCALLS int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

RVNPU_NO_LIBCALLS size_t strlen(const char *s)
{
    size_t n = 0;
    while (s[n] != '\0')
        n++;
    return n;
}
