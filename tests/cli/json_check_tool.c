/* json_check_tool FILE: exit 0 if FILE holds exactly one valid JSON value (for shell tests). */
#include <stdio.h>
#include <stdlib.h>

#include "json_check.h"

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    FILE *f = fopen(argv[1], "rb");
    if (!f)
        return 2;
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *nb = realloc(buf, cap * 2);
        if (!nb)
            break;
        buf = nb;
        cap *= 2;
    }
    fclose(f);
    if (!buf)
        return 2;
    size_t bad = npk_json_check(buf, n);
    if (bad)
        fprintf(stderr, "%s: invalid JSON at byte %zu\n", argv[1], bad - 1);
    free(buf);
    return bad ? 1 : 0;
}
