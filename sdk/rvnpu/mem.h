/* Freestanding memory and string helpers for rvnpu firmware. Compilers may emit calls to
 * memcpy/memset/memmove/memcmp even with -ffreestanding (struct copies, zeroing loops), and
 * no C library is linked, so the SDK provides them (mem.c). */
#ifndef RVNPU_MEM_H
#define RVNPU_MEM_H

#include <stddef.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);

#endif
