/* NumPy .npy files: the header (format versions 1.0, 2.0 and 3.0) read and written once for
 * every user: `npukit run`'s --load/--write/--dump (src/cli/typed.c) and the model commands'
 * inputs and outputs (src/model/npy.c). See npy.h. */
#include "core/npy.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/elems.h"


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

int npk_npy_header_parse(const uint8_t *data, size_t size, npk_npy_header *o, char *err,
                         size_t n)
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
        if (o->rank == NPK_NPY_MAX_RANK) {
            snprintf(err, n, ".npy 'shape' has more than %d dimensions", NPK_NPY_MAX_RANK);
            goto out;
        }
        o->dims[o->rank++] = (uint64_t)dim;
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

void npk_npy_header_write(FILE *f, const char *descr, int rank, const uint64_t *dims)
{
    char shape[NPK_NPY_MAX_RANK * 22 + 4] = "";
    size_t used = 0;
    for (int i = 0; i < rank && i < NPK_NPY_MAX_RANK; i++) {
        /* "(a,)" for one dimension, "(a, b)" for more */
        const char *sep = i + 1 < rank || rank == 1 ? "," : "";
        used += (size_t)snprintf(shape + used, sizeof shape - used, "%s%llu%s", i ? " " : "",
                                 (unsigned long long)dims[i], sep);
    }
    char dict[sizeof shape + 64];
    int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, "
                                          "'shape': (%s), }", descr, shape);
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

