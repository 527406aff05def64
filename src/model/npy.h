/* .npy files of the model commands: inputs, calibration sets and labels read as float32,
 * outputs written as float32. The header is src/core/npy.c's, shared with `npukit run`. */
#ifndef NPK_MODEL_NPY_H
#define NPK_MODEL_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "core/npy.h"

typedef struct npk_npy_f32 {
    int rank;
    int64_t dims[NPK_NPY_MAX_RANK];
    size_t count;        /* product of dims */
    float *data;         /* the values converted to float32: exact for float32, (u)int8 and
                          * (u)int16, rounded to nearest for float64 and wider integers */
    char dtype[16];      /* the file's descr, e.g. "<f4" */
} npk_npy_f32;

/* Read a .npy file of floats or integers (little-endian, C order). Returns 0, or -1 with
 * "PATH: message" in err (not a .npy file, an unsupported type or order, a truncated file). */
int npk_npy_read_f32(const char *path, npk_npy_f32 *out, char *err, size_t err_size);
/* The same for a whole file in memory (`name` is used in messages; the fuzz harness npy). */
int npk_npy_parse_f32(const uint8_t *buf, size_t size, const char *name, npk_npy_f32 *out,
                      char *err, size_t err_size);
void npk_npy_free_f32(npk_npy_f32 *a);
/* Write float32 values of the given shape. Returns 0, or -1 with a message (write errors
 * included, checked at close). */
int npk_npy_write_f32(const char *path, const float *data, int rank, const int64_t *dims,
                      char *err, size_t err_size);

#endif
