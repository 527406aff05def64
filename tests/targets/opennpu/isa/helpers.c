/* Shared helpers of the opennpu ISA front-end tests (helpers.h). */
#define _POSIX_C_SOURCE 200809L
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm/asm.h"

onpu_cfg cfg_make(unsigned L, unsigned K)
{
    onpu_cfg c = {L, K, 1u << 20, 1};
    return c;
}

int asm_src(const char *src, const onpu_cfg *c, uint32_t **words, size_t *n, char **diag)
{
    size_t dlen = 0;
    *diag = NULL;
    FILE *f = open_memstream(diag, &dlen);
    npk_asm_result *r = NULL;
    int errors = onpu_assemble(src, strlen(src), "t.s", c, f, &r);
    if (f)
        fclose(f);
    if (!*diag)
        *diag = calloc(1, 1);
    *words = NULL;
    *n = 0;
    if (errors || !r)
        return errors ? errors : 1;
    size_t size;
    const uint8_t *b = npk_asm_result_image(r, 0, &size, NULL, NULL);
    *n = size / 4;
    *words = malloc(*n ? *n * 4 : 1);
    for (size_t i = 0; *words && i < *n; i++)
        (*words)[i] = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
                      (uint32_t)b[4 * i + 2] << 16 | (uint32_t)b[4 * i + 3] << 24;
    npk_asm_result_free(r);
    return 0;
}

uint32_t asm_one(const char *line, const onpu_cfg *c)
{
    uint32_t *w;
    size_t n;
    char *diag;
    uint32_t out = 0xDEADDEAD;
    if (asm_src(line, c, &w, &n, &diag) == 0 && n == 1)
        out = w[0];
    else
        fprintf(stderr, "asm_one(\"%s\"):\n%s", line, diag);
    free(w);
    free(diag);
    return out;
}

const char *dis(uint32_t w, const onpu_cfg *c, char *buf, size_t n)
{
    onpu_disasm(w, c, buf, n);
    return buf;
}
