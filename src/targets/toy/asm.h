/* toy's assembler and disassembler: the glue from isa.def to the shared engine in src/asm.
 * Syntax: docs/asm.md (common rules) and the toy section there. */
#ifndef NPK_TOY_ASM_H
#define NPK_TOY_ASM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "asm/asm.h"
#include "npukit/npukit.h"

/* The toy assembly language as an engine target, for npk_asm_run with custom options
 * (listing, include reader, error limit). */
const npk_asm_target *toy_asm_target(void);

/* Assemble toy source (`len` bytes; `name` is used in diagnostics and anchors relative
 * .include paths). On success returns 0 and sets *out: image space 0 is the little-endian
 * program memory from byte address 0 (instructions and data directives share it), and the
 * symbols (labels, .equ) are in the result; free it with npk_asm_result_free. Diagnostics
 * (file:line:col: error: msg, the offending line, a caret) go to `diag` (may be NULL).
 * Otherwise returns the number of errors (1 when out of memory) and sets *out to NULL. */
int toy_assemble(const char *source, size_t len, const char *name, FILE *diag,
                 npk_asm_result **out);
int toy_assemble_file(const char *path, FILE *diag, npk_asm_result **out);

/* For the machine: assemble, add the symbols to m (npk_symbol_add) and return a malloc'ed
 * image for address 0. NPK_ERR_FORMAT (message on m) when the source has errors. */
npk_status toy_assemble_image(npk_machine *m, const char *source, const char *name, FILE *diag,
                              uint8_t **image, size_t *size);

/* One word as text, fetched from `pc`: `mnemonic[.opts] operands` for a legal word (pc-relative
 * operands as absolute hex addresses), `.word 0x%08x  # illegal: reason` otherwise, so that
 * assembling the text at the same pc gives the word back. Returns the full text length
 * (snprintf semantics; out is always NUL-terminated when n > 0). */
int toy_disasm(uint32_t word, uint32_t pc, char *out, size_t n);

#endif
