/* Shared helpers of the opennpu ISA front-end tests: configurations, assembling a source to
 * words with its diagnostics captured, and disassembling to a string. */
#ifndef NPK_TEST_ONPU_HELPERS_H
#define NPK_TEST_ONPU_HELPERS_H

#include <stddef.h>
#include <stdint.h>

#include "targets/opennpu/opennpu.h"

/* A configuration with the default memory: test = (32, 8), top = (32, 64). */
onpu_cfg cfg_make(unsigned L, unsigned K);

/* Assemble src (named "t.s") for c. Returns the error count (0: success) and the words in
 * *words (malloc'ed, *n of them; NULL when there are errors). *diag (malloc'ed, may be empty)
 * receives all diagnostics. Free both with free(). */
int asm_src(const char *src, const onpu_cfg *c, uint32_t **words, size_t *n, char **diag);

/* Assemble a one-statement source; returns the word, or 0xDEADDEAD if it did not give exactly
 * one word without errors. */
uint32_t asm_one(const char *line, const onpu_cfg *c);

/* onpu_disasm of w into buf; returns buf. */
const char *dis(uint32_t w, const onpu_cfg *c, char *buf, size_t n);

#endif
