/* Typed values for `npukit run`: see typed.h. Number rules come from src/num only. */
#define _POSIX_C_SOURCE 200809L
#include "cli/typed.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/npy.h"
#include "num/num.h"

/* [+-]digits (decimal, 0x hex or 0b binary) -> sign and magnitude. */
static int parse_int(const char *tok, int *neg, uint64_t *mag)
{
    *neg = tok[0] == '-';
    const char *s = tok + (tok[0] == '-' || tok[0] == '+');
    return npk_parse_u64(s, mag);
}

int npk_value_parse(npk_vtype t, const char *tok, uint8_t *out, char *err, size_t n)
{
    if (t == NPK_VT_BYTES || t >= NPK_VT_COUNT) {
        snprintf(err, n, "no element type");
        return -1;
    }
    if (!npk_vtype_desc_of(t)->is_float) {
        int neg;
        uint64_t mag;
        if (parse_int(tok, &neg, &mag) != 0) {
            snprintf(err, n, "'%s' is not an integer (type %s)", tok, npk_vtype_desc_of(t)->name);
            return -1;
        }
        return npk_elem_store_int(t, neg, mag, out, tok, err, n);
    }
    char *end;
    errno = 0;
    double d = strtod(tok, &end);
    if (end == tok || *end) {
        snprintf(err, n, "'%s' is not a number (type %s)", tok, npk_vtype_desc_of(t)->name);
        return -1;
    }
    int inf_given = 0;
    for (const char *p = tok; *p; p++)
        if (tolower((unsigned char)*p) == 'i')
            inf_given = 1; /* "inf", "infinity": no other number spelling has an i */
    if (isinf(d) && !inf_given) {
        snprintf(err, n, "%s is out of range for %s", tok, npk_vtype_desc_of(t)->name);
        return -1;
    }
    return npk_elem_store_float(t, NPK_FMT_F64, npk_f64_to_bits(d), out, tok, err, n);
}

/* The shortest "%.*g" of d that reads back to the encoding `in`. */
static void shortest(npk_vtype t, double d, const uint8_t *in, char *buf, size_t n)
{
    if (d == floor(d) && fabs(d) < 9007199254740992.0) {
        snprintf(buf, n, "%.0f", d); /* whole numbers in full: 57344, not 6e+04 */
        return;
    }
    for (int p = 1; p <= 17; p++) {
        uint8_t back[4];
        char e[8];
        snprintf(buf, n, "%.*g", p, d);
        if (npk_value_parse(t, buf, back, e, sizeof e) == 0 &&
            memcmp(back, in, npk_vtype_desc_of(t)->size) == 0)
            return;
    }
}

void npk_value_format(npk_vtype t, const uint8_t *in, char *buf, size_t n)
{
    const npk_vtype_desc *ty = npk_vtype_desc_of(t);
    if (!ty->is_float) {
        uint64_t raw = npk_le_get(in, ty->size);
        if (ty->is_signed)
            snprintf(buf, n, "%lld", (long long)npk_wrap_int((int64_t)raw, ty->bits));
        else
            snprintf(buf, n, "%llu", (unsigned long long)raw);
        return;
    }
    double d = npk_elem_to_f64(t, in);
    if (isnan(d))
        snprintf(buf, n, "%snan", signbit(d) ? "-" : "");
    else if (isinf(d))
        snprintf(buf, n, "%sinf", d < 0 ? "-" : "");
    else
        shortest(t, d, in, buf, n);
}

/* ---- .npy -------------------------------------------------------------------------------- */

int npk_npy_parse(const uint8_t *data, size_t size, npk_npy *o, char *err, size_t n)
{
    memset(o, 0, sizeof *o);
    npk_npy_header h;
    if (npk_npy_header_parse(data, size, &h, err, n) != 0)
        return -1;
    memcpy(o->descr, h.descr, sizeof o->descr);
    o->is_float = h.is_float;
    o->is_signed = h.is_signed;
    o->elem_size = h.elem_size;
    o->count = h.count;
    o->data = h.data;
    char kind = h.descr[1];
    size_t esz = h.elem_size;
    o->type = NPK_VT_BYTES;
    if (kind == 'i')
        o->type = esz == 1 ? NPK_VT_I8 : esz == 2 ? NPK_VT_I16 : esz == 4 ? NPK_VT_I32
                                                                         : NPK_VT_BYTES;
    else if (kind == 'u')
        o->type = esz == 1 ? NPK_VT_U8 : esz == 2 ? NPK_VT_U16 : esz == 4 ? NPK_VT_U32
                                                                         : NPK_VT_BYTES;
    else if (esz == 4)
        o->type = NPK_VT_F32;
    return 0;
}

const char *npk_npy_descr(npk_vtype t)
{
    switch (t) {
    case NPK_VT_I8: return "|i1";
    case NPK_VT_U8: return "|u1";
    case NPK_VT_I16: return "<i2";
    case NPK_VT_U16: return "<u2";
    case NPK_VT_I32: return "<i4";
    case NPK_VT_U32: return "<u4";
    case NPK_VT_BYTES: return "|u1";
    default: return "<f4";
    }
}

void npk_npy_write_header(FILE *f, const char *descr, size_t count)
{
    uint64_t dims[1] = {count};
    npk_npy_header_write(f, descr, 1, dims);
}

size_t npk_npy_element(npk_vtype t, const uint8_t *in, uint8_t *out)
{
    uint64_t raw = npk_le_get(in, npk_vtype_desc_of(t)->size);
    uint32_t f;
    switch (t) {
    case NPK_VT_BF16: f = npk_bf16_to_f32((uint16_t)raw); break;
    case NPK_VT_E4M3: f = npk_e4m3_to_f32((uint8_t)raw); break;
    case NPK_VT_E5M2: f = npk_e5m2_to_f32((uint8_t)raw); break;
    case NPK_VT_Q88: {
        /* v / 256 with |v| < 2^15: exact in binary32 */
        npk_fenv e;
        npk_fenv_init(&e, NPK_RM_RNE);
        f = npk_f64bits_to_f32(npk_f64_to_bits(npk_q88_to_double((int16_t)(uint16_t)raw)), &e);
        break;
    }
    default:
        memcpy(out, in, npk_vtype_desc_of(t)->size);
        return npk_vtype_desc_of(t)->size;
    }
    npk_le_put(out, 4, f);
    return 4;
}

/* ---- inputs ------------------------------------------------------------------------------ */

static int from_npy(const char *name, const uint8_t *data, size_t size, npk_vtype type,
                    uint8_t **out, size_t *out_size, npk_vtype *type_out, char *err, size_t n)
{
    npk_npy a;
    char why[200];
    if (npk_npy_parse(data, size, &a, why, sizeof why) != 0) {
        snprintf(err, n, "%s: %s", name, why);
        return -1;
    }
    if (type == NPK_VT_BYTES) {
        if (a.type == NPK_VT_BYTES) {
            snprintf(err, n, "%s: .npy dtype '%s' has no npukit element type of the same "
                             "size; give one to convert to (:f32, :i32, ...)", name, a.descr);
            return -1;
        }
        type = a.type;
    }
    if (a.is_float != npk_vtype_desc_of(type)->is_float) {
        snprintf(err, n, "%s: a .npy of %s ('%s') cannot be read as %s; convert it in NumPy "
                         "or give %s type", name, a.is_float ? "floats" : "integers", a.descr,
                 npk_vtype_desc_of(type)->name, a.is_float ? "a float" : "an integer");
        return -1;
    }
    size_t es = npk_vtype_desc_of(type)->size;
    uint8_t *buf = malloc(a.count ? a.count * es : 1);
    if (!buf) {
        snprintf(err, n, "%s: out of memory", name);
        return -1;
    }
    for (size_t i = 0; i < a.count; i++) {
        uint64_t v = npk_le_get(a.data + i * a.elem_size, a.elem_size);
        char shown[48], why2[160];
        int bad;
        if (a.is_float) {
            npk_fmt from = a.elem_size == 4 ? NPK_FMT_F32 : NPK_FMT_F64;
            snprintf(shown, sizeof shown, "%.17g", npk_bits_to_f64(npk_fmt_to_f64bits(from, v)));
            bad = npk_elem_store_float(type, from, v, buf + i * es, shown, why2, sizeof why2);
        } else {
            int neg = a.is_signed && a.elem_size < 8 ? (v >> (8 * a.elem_size - 1)) & 1
                                                     : a.is_signed && (v >> 63);
            uint64_t mag = neg ? (uint64_t)0 - (uint64_t)npk_wrap_int((int64_t)v,
                                                                      8 * (unsigned)a.elem_size)
                               : v;
            snprintf(shown, sizeof shown, "%s%llu", neg ? "-" : "", (unsigned long long)mag);
            bad = npk_elem_store_int(type, neg, mag, buf + i * es, shown, why2, sizeof why2);
        }
        if (bad) {
            snprintf(err, n, "%s: element %zu: %s", name, i, why2);
            free(buf);
            return -1;
        }
    }
    *out = buf;
    *out_size = a.count * es;
    *type_out = type;
    return 0;
}

int npk_typed_input(const char *name, const uint8_t *data, size_t size, npk_vtype type,
                    uint8_t **out, size_t *out_size, npk_vtype *type_out, char *err, size_t n)
{
    *out = NULL;
    *out_size = 0;
    *type_out = type;
    if (npk_npy_is(data, size))
        return from_npy(name, data, size, type, out, out_size, type_out, err, n);
    if (type == NPK_VT_BYTES) {
        *out = malloc(size ? size : 1);
        if (!*out) {
            snprintf(err, n, "%s: out of memory", name);
            return -1;
        }
        memcpy(*out, data, size);
        *out_size = size;
        return 0;
    }
    /* text: numbers separated by blanks, commas or newlines; '#' starts a comment */
    size_t es = npk_vtype_desc_of(type)->size, cap = 64, count = 0;
    uint8_t *buf = malloc(cap * es);
    if (!buf) {
        snprintf(err, n, "%s: out of memory", name);
        return -1;
    }
    unsigned line = 1;
    size_t i = 0;
    while (i < size) {
        unsigned char c = data[i];
        if (c == '\n') {
            line++;
            i++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == ',') {
            i++;
            continue;
        }
        if (c == '#') {
            while (i < size && data[i] != '\n')
                i++;
            continue;
        }
        size_t start = i;
        while (i < size && !strchr(" \t\r\n,#", data[i]) && data[i] != '\0')
            i++;
        if (i < size && data[i] == '\0') {
            snprintf(err, n, "%s:%u: NUL byte in a text of numbers", name, line);
            goto fail;
        }
        char tok[64], why[160];
        if (i - start >= sizeof tok) {
            snprintf(err, n, "%s:%u: '%.20s...' is too long for a number", name, line,
                     (const char *)data + start);
            goto fail;
        }
        memcpy(tok, data + start, i - start);
        tok[i - start] = '\0';
        if (count == cap) {
            uint8_t *nb = cap > SIZE_MAX / 2 / es ? NULL : realloc(buf, cap * 2 * es);
            if (!nb) {
                snprintf(err, n, "%s: out of memory", name);
                goto fail;
            }
            buf = nb;
            cap *= 2;
        }
        if (npk_value_parse(type, tok, buf + count * es, why, sizeof why) != 0) {
            snprintf(err, n, "%s:%u: %s", name, line, why);
            goto fail;
        }
        count++;
    }
    if (count == 0) {
        snprintf(err, n, "%s: no numbers (a typed input is text numbers or a .npy file)", name);
        goto fail;
    }
    *out = buf;
    *out_size = count * es;
    return 0;
fail:
    free(buf);
    return -1;
}
