/* Element types and their conversions: see elems.h. */
#include "core/elems.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "npukit/npukit.h"
#include "num/num.h"

static const npk_vtype_desc types[NPK_VT_COUNT] = {
    [NPK_VT_BYTES] = {"bytes", 1, 8, 0, 0, NPK_FMT_F32},
    [NPK_VT_I8] = {"i8", 1, 8, 1, 0, NPK_FMT_F32},
    [NPK_VT_U8] = {"u8", 1, 8, 0, 0, NPK_FMT_F32},
    [NPK_VT_I16] = {"i16", 2, 16, 1, 0, NPK_FMT_F32},
    [NPK_VT_U16] = {"u16", 2, 16, 0, 0, NPK_FMT_F32},
    [NPK_VT_I32] = {"i32", 4, 32, 1, 0, NPK_FMT_F32},
    [NPK_VT_U32] = {"u32", 4, 32, 0, 0, NPK_FMT_F32},
    [NPK_VT_F32] = {"f32", 4, 32, 1, 1, NPK_FMT_F32},
    [NPK_VT_BF16] = {"bf16", 2, 16, 1, 1, NPK_FMT_BF16},
    [NPK_VT_Q88] = {"q8.8", 2, 16, 1, 1, NPK_FMT_F32},
    [NPK_VT_E4M3] = {"e4m3", 1, 8, 1, 1, NPK_FMT_E4M3},
    [NPK_VT_E5M2] = {"e5m2", 1, 8, 1, 1, NPK_FMT_E5M2},
};

int npk_vtype_parse(const char *s, size_t len, npk_vtype *t)
{
    for (int i = 1; i < NPK_VT_COUNT; i++)
        if (strlen(types[i].name) == len && strncmp(types[i].name, s, len) == 0) {
            *t = (npk_vtype)i;
            return 0;
        }
    return -1;
}

const char *npk_vtype_name(npk_vtype t) { return types[t].name; }
size_t npk_vtype_size(npk_vtype t) { return types[t].size; }
const char *npk_vtype_list(void)
{
    return "i8, u8, i16, u16, i32, u32, f32, bf16, q8.8, e4m3, e5m2";
}

uint64_t npk_le_get(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

void npk_le_put(uint8_t *p, size_t n, uint64_t v)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- integers -------------------------------------------------------------------------- */

/* Does -mag (neg) or mag fit the integer type? Stores the encoding. */
int npk_elem_store_int(npk_vtype t, int neg, uint64_t mag, uint8_t *out, const char *shown,
                       char *err, size_t n)
{
    unsigned bits = types[t].bits;
    uint64_t max = types[t].is_signed ? (UINT64_C(1) << (bits - 1)) - 1
                                      : (UINT64_C(1) << bits) - 1;
    uint64_t negmax = types[t].is_signed ? UINT64_C(1) << (bits - 1) : 0;
    if (neg ? mag > negmax : mag > max) {
        snprintf(err, n, "%s is out of range for %s (%s%llu .. %llu)", shown, types[t].name,
                 negmax ? "-" : "", (unsigned long long)negmax, (unsigned long long)max);
        return -1;
    }
    npk_le_put(out, types[t].size, neg ? (uint64_t)0 - mag : mag);
    return 0;
}

/* ---- floating point ------------------------------------------------------------------ */

uint64_t npk_f64_to_bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

double npk_bits_to_f64(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* A number given as binary64 or binary32 bits (`from`) -> type t; `shown` is the number as
 * the user wrote it, for messages. */
int npk_elem_store_float(npk_vtype t, npk_fmt from, uint64_t x, uint8_t *out, const char *shown,
                         char *err, size_t n)
{
    double d = from == NPK_FMT_F64 ? npk_bits_to_f64(x) : npk_bits_to_f64(npk_fmt_to_f64bits(from, x));
    if (t == NPK_VT_Q88) {
        if (isnan(d)) {
            snprintf(err, n, "%s: q8.8 has no NaN", shown);
            return -1;
        }
        /* the same rounding as npk_q88_from_double (half to even), checked before it
         * saturates: a value outside the format is an error here, not a clamp */
        int64_t v = isinf(d) ? (d > 0 ? INT64_MAX : INT64_MIN)
                             : npk_fixed_from_double(d, 8, 64, NPK_QR_HALF_EVEN);
        if (v < -32768 || v > 32767) {
            snprintf(err, n, "%s is out of range for q8.8 (-128 .. 127.99609375)", shown);
            return -1;
        }
        npk_le_put(out, 2, (uint16_t)npk_q88_from_double(d));
        return 0;
    }
    npk_fmt fmt = types[t].fmt;
    if (isinf(d) && fmt == NPK_FMT_E4M3) {
        snprintf(err, n, "%s: e4m3 has no infinity (largest finite 448)", shown);
        return -1;
    }
    npk_fenv e;
    npk_fenv_init(&e, NPK_RM_RNE);
    uint64_t r = npk_fmt_convert(fmt, from, x, 0, &e);
    if (e.flags & NPK_FLAG_OF) {
        /* not npk_value_format: its search parses candidates, which may overflow here */
        snprintf(err, n, "%s is out of range for %s (largest finite %.8g)", shown,
                 types[t].name, npk_bits_to_f64(npk_fmt_to_f64bits(fmt, npk_fmt_max(fmt))));
        return -1;
    }
    npk_le_put(out, types[t].size, r);
    return 0;
}


const npk_vtype_desc *npk_vtype_desc_of(npk_vtype t) { return &types[t]; }

double npk_elem_to_f64(npk_vtype t, const uint8_t *in)
{
    uint64_t raw = npk_le_get(in, types[t].size);
    if (!types[t].is_float) {
        unsigned bits = types[t].bits;
        if (types[t].is_signed)
            return (double)npk_wrap_int((int64_t)raw, bits);
        return (double)raw;
    }
    if (t == NPK_VT_Q88)
        return npk_q88_to_double((int16_t)(uint16_t)raw);
    return npk_bits_to_f64(npk_fmt_to_f64bits(types[t].fmt, raw));
}

/* ---- the public API (npukit.h) ------------------------------------------------------- */

static int named(const char *type, npk_vtype *t, char *err, size_t n)
{
    if (type && npk_vtype_parse(type, strlen(type), t) == 0)
        return 0;
    snprintf(err, n, "unknown element type '%s' (known: %s)", type ? type : "(null)",
             npk_vtype_list());
    return -1;
}

size_t npk_elem_size(const char *type)
{
    npk_vtype t;
    return type && npk_vtype_parse(type, strlen(type), &t) == 0 ? types[t].size : 0;
}

npk_status npk_elems_to_f64(const char *type, const void *in, size_t count, double *out,
                            char *err, size_t n)
{
    npk_vtype t;
    if (named(type, &t, err, n) != 0)
        return NPK_ERR_ARG;
    const uint8_t *p = in;
    for (size_t i = 0; i < count; i++)
        out[i] = npk_elem_to_f64(t, p + i * types[t].size);
    return NPK_OK;
}

npk_status npk_elems_from_f64(const char *type, const double *in, size_t count, void *out,
                              size_t *bad, char *err, size_t n)
{
    npk_vtype t;
    if (named(type, &t, err, n) != 0)
        return NPK_ERR_ARG;
    uint8_t *p = out;
    for (size_t i = 0; i < count; i++) {
        double d = in[i];
        char shown[40], why[160];
        snprintf(shown, sizeof shown, "%.17g", d);
        int r;
        if (types[t].is_float) {
            r = npk_elem_store_float(t, NPK_FMT_F64, npk_f64_to_bits(d), p + i * types[t].size,
                                     shown, why, sizeof why);
        } else if (!isfinite(d) || d != floor(d) || fabs(d) >= 18446744073709551616.0) {
            snprintf(why, sizeof why, "%s is not an integer of %s", shown, types[t].name);
            r = -1;
        } else {
            r = npk_elem_store_int(t, d < 0, (uint64_t)fabs(d), p + i * types[t].size, shown,
                                   why, sizeof why);
        }
        if (r != 0) {
            if (bad)
                *bad = i;
            snprintf(err, n, "element %zu: %s", i, why);
            return NPK_ERR_RANGE;
        }
    }
    return NPK_OK;
}
