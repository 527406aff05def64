/* Typed values for `npukit run --load/--write/--dump`: element types (i8 ... e5m2), text
 * numbers and NumPy .npy files in and out. Every number conversion goes through src/num
 * (docs/num.md); this file only parses, range-checks and formats. docs/run-io.md describes
 * the formats for users. */
#ifndef NPK_CLI_TYPED_H
#define NPK_CLI_TYPED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/elems.h" /* npk_vtype, npk_vtype_parse/name/size/list */

/* One text number -> its little-endian encoding in `out` (npk_vtype_size bytes). Integers
 * take decimal or 0x hex and must fit; f32/bf16/e4m3/e5m2 take any C number (also inf, nan,
 * hex floats), rounded to nearest-even by src/num, and a finite value past the largest
 * finite one is refused; q8.8 rounds half to even and must fit -128 .. 127.99609375.
 * Returns 0, or -1 with the reason in err ("300 is out of range for u8 (0 .. 255)"). */
int npk_value_parse(npk_vtype t, const char *tok, uint8_t *out, char *err, size_t n);
/* The element at `in` as text: integers in decimal, the others as the shortest decimal that
 * npk_value_parse reads back to the same encoding ("inf", "-inf", "nan" for those). */
void npk_value_format(npk_vtype t, const uint8_t *in, char *buf, size_t n);

/* A .npy file (format version 1.0, 2.0 or 3.0): its dtype and data. */
typedef struct npk_npy {
    char descr[16];        /* "<f4", "|u1", ... */
    npk_vtype type;        /* the element type it maps onto, NPK_VT_BYTES if none */
    int is_float, is_signed;
    size_t elem_size;      /* bytes per element */
    size_t count;          /* elements (product of the shape) */
    const uint8_t *data;   /* into the caller's buffer */
} npk_npy;

/* Does the buffer start with the .npy magic? */
int npk_npy_is(const uint8_t *data, size_t size);
/* Parse the header; -1 with the reason in err when it is malformed or its dtype is not a
 * little-endian integer or float npukit reads (i1..i8, u1..u8, f4, f8). */
int npk_npy_parse(const uint8_t *data, size_t size, npk_npy *out, char *err, size_t n);

/* An input for --load/--write: with `type` NPK_VT_BYTES and no .npy, the bytes themselves;
 * a .npy without a type: its data as the type its dtype maps onto; otherwise every number
 * (text, or the .npy's elements) converted to `type`. *out is malloc'd (free it); *type_out
 * says which type the bytes hold. `name` is used in messages ("FILE:3: ..."). Returns 0 or
 * -1 with the reason in err. */
int npk_typed_input(const char *name, const uint8_t *data, size_t size, npk_vtype type,
                    uint8_t **out, size_t *out_size, npk_vtype *type_out, char *err, size_t n);

/* The .npy dtype a dump of type t is written as: the type's own for integers and f32; "<f4"
 * (exact) for bf16, e4m3, e5m2 and q8.8, which NumPy has no dtype for. */
const char *npk_npy_descr(npk_vtype t);
/* Write a version 1.0 .npy header for `count` elements of `descr`, shape (count,). */
void npk_npy_write_header(FILE *f, const char *descr, size_t count);
/* Element `in` of type t as the bytes of its npk_npy_descr dtype (little-endian); returns
 * how many bytes were written to out (at most 4). */
size_t npk_npy_element(npk_vtype t, const uint8_t *in, uint8_t *out);

#endif
