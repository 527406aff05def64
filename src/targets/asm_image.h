/* Shared by every target's assembler glue: turn an assembler run into what a machine loads
 * (the image of output space 0, padded to whole instruction words) and give the machine the
 * program's symbols. */
#ifndef NPK_TARGETS_ASM_IMAGE_H
#define NPK_TARGETS_ASM_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "asm/asm.h"
#include "core/target.h"

/* `errors` and `r` are what the target's assemble call returned (r is NULL on errors or when
 * out of memory); r is freed here. On success *image (malloc'ed) and *size are set. */
npk_status npk_target_asm_image(npk_machine *m, int errors, npk_asm_result *r, const char *name,
                                unsigned word_bytes, uint8_t **image, size_t *size);

#endif
