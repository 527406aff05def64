/* Helpers shared by the targets' isadoc.c programs (they print docs/<target>-isa.md). */
#ifndef NPK_TARGETS_ISADOC_H
#define NPK_TARGETS_ISADOC_H

#include <stdio.h>

/* The rest of a Markdown table row: s as its last cell ('|' escaped), then " |" and newline. */
static inline void npk_isadoc_cell(const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            putchar('\\');
        putchar(*s);
    }
    printf(" |\n");
}

#endif
