/* Typed values for `npukit run`: see typed.h. Number rules come from src/num only. */
#define _POSIX_C_SOURCE 200809L
#include "cli/typed.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
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

static const char npy_magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

int npk_npy_is(const uint8_t *data, size_t size)
{
    return size >= 6 && memcmp(data, npy_magic, 6) == 0;
}

/* The value of 'key' in the header dict: where it starts (after "'key':" and blanks). */
static const char *npy_key(const char *h, const char *key)
{
    char pat[32];
    snprintf(pat, sizeof pat, "'%s'", key);
    const char *p = strstr(h, pat);
    if (!p)
        return NULL;
    p += strlen(pat);
    while (*p == ' ')
        p++;
    if (*p != ':')
        return NULL;
    p++;
    while (*p == ' ')
        p++;
    return p;
}

int npk_npy_parse(const uint8_t *data, size_t size, npk_npy *o, char *err, size_t n)
{
    memset(o, 0, sizeof *o);
    if (!npk_npy_is(data, size) || size < 10) {
        snprintf(err, n, "not a .npy file (no \\x93NUMPY magic)");
        return -1;
    }
    unsigned major = data[6];
    size_t hlen, hstart;
    if (major == 1) {
        hlen = (size_t)npk_le_get(data + 8, 2);
        hstart = 10;
    } else if ((major == 2 || major == 3) && size >= 12) {
        hlen = (size_t)npk_le_get(data + 8, 4);
        hstart = 12;
    } else {
        snprintf(err, n, ".npy format version %u.%u is not 1.0, 2.0 or 3.0", major, data[7]);
        return -1;
    }
    if (hlen > size - hstart) {
        snprintf(err, n, ".npy header of %zu bytes runs past the end of the file (%zu bytes)",
                 hlen, size);
        return -1;
    }
    if (hlen > 65536) {
        snprintf(err, n, ".npy header of %zu bytes is too long", hlen);
        return -1;
    }
    char *h = malloc(hlen + 1);
    if (!h) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    memcpy(h, data + hstart, hlen);
    h[hlen] = '\0';
    int rc = -1;
    const char *d = npy_key(h, "descr"), *fo = npy_key(h, "fortran_order"),
               *sh = npy_key(h, "shape");
    if (!d || !fo || !sh || strlen(h) != hlen) {
        snprintf(err, n, ".npy header is not a dict with 'descr', 'fortran_order' and 'shape'");
        goto out;
    }
    if (*d != '\'' && *d != '"') {
        snprintf(err, n, ".npy dtype is structured (a record type); npukit reads plain "
                         "integer and float arrays");
        goto out;
    }
    char q = *d++;
    size_t dl = 0;
    while (d[dl] && d[dl] != q)
        dl++;
    if (!d[dl] || dl == 0 || dl >= sizeof o->descr) {
        snprintf(err, n, ".npy dtype string is malformed");
        goto out;
    }
    memcpy(o->descr, d, dl);
    o->descr[dl] = '\0';
    char order = o->descr[0], kind = o->descr[1];
    unsigned long esz = strtoul(o->descr + 2, NULL, 10);
    o->elem_size = esz;
    int known = (kind == 'i' || kind == 'u') ? (esz == 1 || esz == 2 || esz == 4 || esz == 8)
              : kind == 'f' ? (esz == 4 || esz == 8) : 0;
    char digits[8];
    snprintf(digits, sizeof digits, "%lu", esz);
    if (!known || strcmp(o->descr + 2, digits) != 0 || (order != '<' && order != '|' &&
                                                        order != '>')) {
        snprintf(err, n, ".npy dtype '%s' is not one npukit reads (little-endian i1, i2, i4, "
                         "i8, u1, u2, u4, u8, f4, f8)", o->descr);
        goto out;
    }
    if (order == '>' && esz > 1) {
        snprintf(err, n, ".npy dtype '%s' is big-endian; save it little-endian "
                         "(arr.astype('<%c%lu'))", o->descr, kind, esz);
        goto out;
    }
    o->is_float = kind == 'f';
    o->is_signed = kind != 'u';
    o->type = NPK_VT_BYTES;
    if (kind == 'i')
        o->type = esz == 1 ? NPK_VT_I8 : esz == 2 ? NPK_VT_I16 : esz == 4 ? NPK_VT_I32
                                                                         : NPK_VT_BYTES;
    else if (kind == 'u')
        o->type = esz == 1 ? NPK_VT_U8 : esz == 2 ? NPK_VT_U16 : esz == 4 ? NPK_VT_U32
                                                                         : NPK_VT_BYTES;
    else if (esz == 4)
        o->type = NPK_VT_F32;
    int fortran = strncmp(fo, "True", 4) == 0;
    if (!fortran && strncmp(fo, "False", 5) != 0) {
        snprintf(err, n, ".npy 'fortran_order' is neither True nor False");
        goto out;
    }
    if (*sh != '(') {
        snprintf(err, n, ".npy 'shape' is not a tuple");
        goto out;
    }
    sh++;
    size_t count = 1;
    unsigned big_dims = 0;
    for (;;) {
        while (*sh == ' ' || *sh == ',')
            sh++;
        if (*sh == ')')
            break;
        if (!isdigit((unsigned char)*sh)) {
            snprintf(err, n, ".npy 'shape' is not a tuple of whole numbers");
            goto out;
        }
        char *end;
        errno = 0;
        unsigned long long dim = strtoull(sh, &end, 10);
        if (errno || (dim && count > SIZE_MAX / dim)) {
            snprintf(err, n, ".npy 'shape' is too large");
            goto out;
        }
        count *= (size_t)dim;
        big_dims += dim > 1;
        sh = end;
    }
    if (fortran && big_dims > 1) {
        snprintf(err, n, ".npy array is in Fortran (column) order; save it in C order "
                         "(np.ascontiguousarray)");
        goto out;
    }
    size_t have = size - hstart - hlen;
    if (count > SIZE_MAX / esz || count * esz != have) {
        snprintf(err, n, ".npy shape promises %zu elements of %lu bytes, but the file holds "
                         "%zu bytes of data", count, esz, have);
        goto out;
    }
    o->count = count;
    o->data = data + hstart + hlen;
    rc = 0;
out:
    free(h);
    return rc;
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
    char dict[128];
    int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, "
                                          "'shape': (%zu,), }", descr, count);
    /* magic (6) + version (2) + length (2) + dict + padding + '\n': a multiple of 64 */
    size_t total = 10 + (size_t)len + 1, pad = (64 - total % 64) % 64;
    size_t hlen = (size_t)len + pad + 1;
    fwrite(npy_magic, 1, 6, f);
    fputc(1, f);
    fputc(0, f);
    fputc((int)(hlen & 0xff), f);
    fputc((int)(hlen >> 8), f);
    fputs(dict, f);
    for (size_t i = 0; i < pad; i++)
        fputc(' ', f);
    fputc('\n', f);
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
