/* Element types of typed memory access (i8 ... e5m2) and the conversions between their
 * encodings and numbers: the one place these rules live. `npukit run --load/--write/--dump`
 * (src/cli/typed.c), the debugger's typed print/x/set and the public npk_elems_* functions
 * (include/npukit/npukit.h, used by the Python package) all go through here, and every
 * floating-point rule comes from src/num (docs/num.md). */
#ifndef NPK_CORE_ELEMS_H
#define NPK_CORE_ELEMS_H

#include <stddef.h>
#include <stdint.h>

#include "num/fenv.h"

typedef enum npk_vtype {
    NPK_VT_BYTES = 0, /* no type: raw bytes (hex in dumps) */
    NPK_VT_I8, NPK_VT_U8, NPK_VT_I16, NPK_VT_U16, NPK_VT_I32, NPK_VT_U32,
    NPK_VT_F32, NPK_VT_BF16, NPK_VT_Q88, NPK_VT_E4M3, NPK_VT_E5M2,
    NPK_VT_COUNT
} npk_vtype;

typedef struct npk_vtype_desc {
    const char *name;
    unsigned size, bits;
    int is_signed, is_float;
    npk_fmt fmt; /* the float types' src/num format (q8.8: unused) */
} npk_vtype_desc;

const npk_vtype_desc *npk_vtype_desc_of(npk_vtype t);
/* "i8", "f32", "q8.8", ... -> type; -1 if `s` (the first `len` chars) names none. */
int npk_vtype_parse(const char *s, size_t len, npk_vtype *t);
const char *npk_vtype_name(npk_vtype t);
/* Bytes per element (1 for NPK_VT_BYTES). */
size_t npk_vtype_size(npk_vtype t);
/* "i8, u8, i16, ..." for messages. */
const char *npk_vtype_list(void);

/* binary64 <-> its bits */
uint64_t npk_f64_to_bits(double d);
double npk_bits_to_f64(uint64_t b);
uint64_t npk_le_get(const uint8_t *p, size_t n);
void npk_le_put(uint8_t *p, size_t n, uint64_t v);

/* An integer -mag (neg) or mag -> integer type t, if it fits; else -1 with the reason in err
 * ("300 is out of range for u8 (0 .. 255)", `shown` being the number as the user gave it). */
int npk_elem_store_int(npk_vtype t, int neg, uint64_t mag, uint8_t *out, const char *shown,
                       char *err, size_t n);
/* A number given as bits of format `from` (binary64 or a narrower float) -> float type t
 * (f32, bf16, e4m3, e5m2: rounded to nearest-even; q8.8: half to even). A finite value past
 * the type's largest finite one, infinity for e4m3, and NaN for q8.8 are refused: -1 with
 * the reason in err. */
int npk_elem_store_float(npk_vtype t, npk_fmt from, uint64_t x, uint8_t *out, const char *shown,
                         char *err, size_t n);
/* The element at `in` as binary64: exact for every type. */
double npk_elem_to_f64(npk_vtype t, const uint8_t *in);

#endif
