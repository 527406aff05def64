/* Assembler result -> machine image and symbols, for every target (see asm_image.h). */
#include "targets/asm_image.h"

#include <stdlib.h>
#include <string.h>

npk_status npk_target_asm_image(npk_machine *m, int errors, npk_asm_result *r, const char *name,
                                unsigned word_bytes, uint8_t **image, size_t *size)
{
    *image = NULL;
    *size = 0;
    name = name ? name : "<input>";
    if (errors || !r) {
        npk_asm_result_free(r);
        return npk_fail(m, NPK_ERR_FORMAT, "%s: %d error%s in assembly source", name, errors,
                        errors == 1 ? "" : "s");
    }
    size_t n;
    const uint8_t *img = npk_asm_result_image(r, 0, &n, NULL, NULL);
    size_t padded = (n + word_bytes - 1) / word_bytes * word_bytes; /* the core loads words */
    uint8_t *copy = calloc(padded ? padded : word_bytes, 1);
    if (!copy) {
        npk_asm_result_free(r);
        return npk_fail(m, NPK_ERR_NOMEM, "out of memory");
    }
    if (n)
        memcpy(copy, img, n);
    npk_status st = NPK_OK;
    for (size_t i = 0; i < npk_asm_result_symbols(r) && st == NPK_OK; i++) {
        int64_t v;
        const char *s = npk_asm_result_symbol(r, i, &v, NULL);
        st = npk_symbol_add(m, s, (uint64_t)v);
    }
    npk_asm_result_free(r);
    if (st != NPK_OK) {
        free(copy);
        return st;
    }
    *image = copy;
    *size = padded;
    return NPK_OK;
}
