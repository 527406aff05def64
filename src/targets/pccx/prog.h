/* pccx: weight tensors and self-contained programs. A weight tensor is what the weight queue
 * holds (§5.4, §7.3); a program is what the assembler makes of a §13 source file (instruction
 * words, host DDR and L2 initial data, tensors, the queue order, window changes, profile and
 * mode), ready for the machine to load. */
#ifndef NPK_PCCX_PROG_H
#define NPK_PCCX_PROG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One weight tensor: INT4 codes with per-row binary32 scales, or (ext) a BF16 view of host
 * DDR read when the consuming instruction executes. */
typedef struct pccx_tensor {
    int view;               /* 0 = INT4 tensor, 1 = BF16 view */
    uint32_t k, n;          /* K (input length) and N (output rows), 1..65,535 */
    /* INT4: row r's codes at codes + r * row_bytes, column 2j in the low nibble of byte j */
    uint8_t *codes;
    size_t row_bytes;       /* ceil(k / 2) */
    uint32_t *scale;        /* n binary32 patterns */
    /* view: W[r][c] = BF16 at host byte base + 2 * (r * sn + c * sk) */
    uint64_t base;
    int64_t sn, sk;
    char *name;             /* assembler name (NULL for API tensors) */
} pccx_tensor;

/* INT4 code of W[r][c] as a signed value -8..7. */
static inline int pccx_tensor_code(const pccx_tensor *t, uint32_t r, uint32_t c)
{
    unsigned b = t->codes[(size_t)r * t->row_bytes + c / 2];
    unsigned nib = (c & 1) ? b >> 4 : b & 15;
    return (int)(nib ^ 8) - 8;
}

void pccx_tensor_free(pccx_tensor *t);   /* the members, not t */

/* A change of the host window base taking effect before instruction `at` (§13.3 `.window`). */
typedef struct pccx_window_change {
    uint64_t at;            /* instruction index */
    uint64_t base;          /* bytes, multiple of 16 */
} pccx_window_change;

/* An initial-data block: `size` bytes at byte address `addr` of host DDR or L2. */
typedef struct pccx_block {
    uint64_t addr;
    uint8_t *bytes;
    size_t size;
} pccx_block;

typedef struct pccx_prog {
    uint64_t *words;        /* instructions in issue order */
    size_t n_words;
    int ext, hw_compat;     /* `.profile`, `.mode` (defaults base, strict) */
    int has_profile, has_mode;
    uint64_t host_bytes;    /* `.hostsize` (0: not given) */
    pccx_block *host, *l2;  /* data directives' bytes, by target */
    size_t n_host, n_l2;
    pccx_tensor *tensors;   /* `.weight` / `.wview` definitions */
    size_t n_tensors;
    size_t *pushes;         /* tensor index per `.wpush`, in textual order */
    size_t n_pushes;
    pccx_window_change *windows;
    size_t n_windows;
} pccx_prog;

void pccx_prog_free(pccx_prog *p);        /* everything, including p */

/* Assemble a §13 source. Diagnostics (file:line:col, caret) go to diag (may be NULL); on
 * success returns 0 and *out; otherwise the number of errors (or -1 when out of memory) and
 * *out = NULL. `ext` / `hw_compat` >= 0 override the file's `.profile` / `.mode` (the command
 * line wins); -1 leaves them to the file. A listing of every line goes to `listing` if
 * non-NULL. */
int pccx_assemble(const char *source, size_t len, const char *name, int ext, int hw_compat,
                  FILE *diag, FILE *listing, pccx_prog **out);

#endif
