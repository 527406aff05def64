/* rvnpu's assembler and disassembler: the glue from isa.def to the shared engine in src/asm.
 * Syntax: standard RISC-V assembly with ABI or xN/fN register names, the NPU forms of spec
 * §10 and the generic directives; docs/rvnpu.md has the rules. */
#ifndef NPK_RVNPU_ASM_H
#define NPK_RVNPU_ASM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "asm/asm.h"
#include "npukit/npukit.h"

const npk_asm_target *rvnpu_asm_target(void);

/* Assemble rvnpu source; the image (space 0) starts at 0x8000_0000 (labels are absolute).
 * Returns 0 and *out, or the number of errors (1 when out of memory) and *out = NULL. */
int rvnpu_assemble(const char *source, size_t len, const char *name, FILE *diag,
                   npk_asm_result **out);
/* The same for the NPU revision `rev` (0 seed, 1 rev2, -1 either): an NPU mnemonic of the
 * other revision is a warning naming what its word does in this one (isa.def's rev column). */
int rvnpu_assemble_rev(const char *source, size_t len, const char *name, FILE *diag, int rev,
                       npk_asm_result **out);

/* The largest image rvnpu_assemble_image makes by default: 16 MiB (a larger RAM raises it). */
#define RVNPU_ASM_DEFAULT_LIMIT (UINT64_C(16) << 20)

/* For the machine: assemble for revision `rev2`, add the symbols to m and return a malloc'ed
 * image for 0x8000_0000, of at most max(ram_size, 16 MiB) bytes. NPK_ERR_FORMAT (message on
 * m) when the source has errors. */
npk_status rvnpu_assemble_image(npk_machine *m, const char *source, const char *name,
                                uint64_t ram_size, FILE *diag, int rev2, uint8_t **image,
                                size_t *size);

/* One word as text, fetched from `pc`, for the revision (rev2 = 0: seed): standard syntax
 * with ABI names and absolute branch targets for a legal word in its canonical encoding;
 * `.word 0x%08x  # <text> (ignored fields set)` for a legal word with ignored bits set;
 * `.word 0x%08x  # illegal: reason` otherwise. Assembling the text at `pc` gives the word
 * back. Returns the full text length (snprintf semantics). */
int rvnpu_disasm(uint32_t word, uint32_t pc, int rev2, char *out, size_t n);

/* The canonical encoding of a decoded legal word: match bits plus its operand fields. */
uint32_t rvnpu_encode_canonical(uint32_t word, int op);

#endif
