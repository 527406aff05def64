/* NumPy .npy headers (format versions 1.0, 2.0 and 3.0), read and written in one place for
 * `npukit run` (src/cli/typed.c) and the model commands (src/model/npy.c). */
#ifndef NPK_CORE_NPY_H
#define NPK_CORE_NPY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NPK_NPY_MAX_RANK 32   /* NumPy's own limit before 2.0 */

typedef struct npk_npy_header {
    char descr[16];          /* "<f4", "|u1", ... */
    int is_float, is_signed;
    size_t elem_size;        /* bytes per element: 1, 2, 4, 8 */
    size_t count;            /* elements (product of the shape) */
    int rank;
    uint64_t dims[NPK_NPY_MAX_RANK];
    const uint8_t *data;     /* the elements, little-endian, in the caller's buffer */
} npk_npy_header;

/* Does the buffer start with the .npy magic? */
int npk_npy_is(const uint8_t *data, size_t size);
/* Parse the header of a whole file in memory and check the data's length; -1 with the reason
 * in err when it is malformed, its dtype is not a little-endian integer or float npukit reads
 * (i1..i8, u1..u8, f4, f8), it is in Fortran order (with more than one dimension above 1) or
 * the data is not exactly the shape's. */
int npk_npy_header_parse(const uint8_t *data, size_t size, npk_npy_header *h, char *err,
                         size_t n);
/* Write a version 1.0 header for the dtype `descr` and the shape (rank, dims), padded as NumPy
 * pads it (the data starts at a multiple of 64 bytes). */
void npk_npy_header_write(FILE *f, const char *descr, int rank, const uint64_t *dims);

#endif
