/* Host reference of the rvnpu MLP firmware's integer arithmetic (spec §13.2), the weights
 * file reader and the gzip'd IDX reader. */
#include "mlp_ref.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static int32_t get_i32(const uint8_t *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                 (uint32_t)p[3] << 24;
    return u < 0x80000000u ? (int32_t)u : (int32_t)(u - 0x80000000u) - 0x7FFFFFFF - 1;
}

int mlp_model_load(mlp_model *m, const char *path, char *err, size_t err_size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    uint8_t *buf = malloc(MLP_FILE_SIZE + 1);
    if (!buf) {
        fclose(f);
        snprintf(err, err_size, "%s: out of memory", path);
        return -1;
    }
    size_t n = fread(buf, 1, MLP_FILE_SIZE + 1, f);
    int rd_err = ferror(f);
    fclose(f);
    int rc = -1;
    if (rd_err)
        snprintf(err, err_size, "%s: read error", path);
    else
        rc = mlp_model_parse(m, buf, n, path, err, err_size);
    free(buf);
    return rc;
}

int mlp_model_parse(mlp_model *m, const uint8_t *buf, size_t n, const char *path, char *err,
                    size_t err_size)
{
    if (n != MLP_FILE_SIZE) {
        snprintf(err, err_size, "%s: %s%zu bytes, expected %d (layout: mlp_format.h)", path,
                 n > MLP_FILE_SIZE ? "more than " : "", n > MLP_FILE_SIZE ? (size_t)MLP_FILE_SIZE : n,
                 MLP_FILE_SIZE);
        return -1;
    }
    if (memcmp(buf, MLP_MAGIC, MLP_MAGIC_LEN) != 0) {
        snprintf(err, err_size, "%s: bad magic (expected \"%s\"): not an MLP weights file",
                 path, MLP_MAGIC);
        return -1;
    }
    const uint8_t *h = buf + MLP_OFF_HEADER;
    if (get_i32(h) != MLP_N_IN || get_i32(h + 4) != MLP_N_HID || get_i32(h + 8) != MLP_N_OUT) {
        snprintf(err, err_size, "%s: shape %d-%d-%d, expected %d-%d-%d", path, (int)get_i32(h),
                 (int)get_i32(h + 4), (int)get_i32(h + 8), MLP_N_IN, MLP_N_HID, MLP_N_OUT);
        return -1;
    }
    m->shift1 = get_i32(h + 12);
    if (m->shift1 < 0 || m->shift1 > 31) {
        snprintf(err, err_size, "%s: SHIFT1 = %d, expected 0..31", path, (int)m->shift1);
        return -1;
    }
    for (int i = 0; i < MLP_N_HID; i++) {
        m->b1adj[i] = get_i32(buf + MLP_OFF_B1ADJ + 4 * i);
        m->b1q[i] = get_i32(buf + MLP_OFF_B1Q + 4 * i);
    }
    for (int o = 0; o < MLP_N_OUT; o++)
        m->b2[o] = get_i32(buf + MLP_OFF_B2 + 4 * o);
    memcpy(m->w1, buf + MLP_OFF_W1, sizeof m->w1);
    memcpy(m->w2, buf + MLP_OFF_W2, sizeof m->w2);
    for (int i = 0; i < MLP_N_HID; i++) {
        int64_t sum = 0;
        for (int j = 0; j < MLP_N_IN; j++)
            sum += m->w1[i][j];
        if ((int64_t)m->b1q[i] + 128 * sum != m->b1adj[i]) {
            snprintf(err, err_size,
                     "%s: B1'[%d] = %ld but B1q + 128 * sum(W1q row) = %lld (inconsistent file)",
                     path, i, (long)m->b1adj[i], (long long)((int64_t)m->b1q[i] + 128 * sum));
            return -1;
        }
    }
    return 0;
}

/* floor(v / 2^s) without relying on >> of negative values */
static int64_t floor_shift(int64_t v, int s)
{
    int64_t d = (int64_t)1 << s;
    int64_t q = v / d;
    return (v % d != 0 && v < 0) ? q - 1 : q;
}

static int fits32(int64_t v)
{
    return v >= INT32_MIN && v <= INT32_MAX;
}

int mlp_predict(const mlp_model *m, const uint8_t image[MLP_N_IN], int32_t logits[MLP_N_OUT])
{
    int64_t hidden[MLP_N_HID];
    for (int i = 0; i < MLP_N_HID; i++) {
        int64_t acc = m->b1q[i];
        int64_t dot = 0; /* the firmware's VMAC sum: sum (p - 128) * w */
        for (int j = 0; j < MLP_N_IN; j++) {
            acc += (int64_t)image[j] * m->w1[i][j];
            dot += ((int64_t)image[j] - 128) * m->w1[i][j];
        }
        if (!fits32(dot) || !fits32(acc))
            return -1;
        int64_t v = floor_shift(acc, m->shift1);
        v = v < -128 ? -128 : v > 127 ? 127 : v; /* CLAMP */
        hidden[i] = v < 0 ? 0 : v;               /* RELU */
    }
    int best = 0;
    int64_t best_logit = 0;
    for (int o = 0; o < MLP_N_OUT; o++) {
        int64_t acc = 0;
        for (int i = 0; i < MLP_N_HID; i++)
            acc += hidden[i] * m->w2[o][i];
        if (!fits32(acc))
            return -1;
        acc += m->b2[o];
        if (!fits32(acc))
            return -1;
        if (logits)
            logits[o] = (int32_t)acc;
        if (o == 0 || acc > best_logit) { /* the first maximum wins */
            best = o;
            best_logit = acc;
        }
    }
    return best;
}

/* The whole decompressed content of a gzip file (or a plain file: zlib reads those as is). */
static int read_gz(const char *path, uint8_t **out, size_t *n_out, char *err, size_t err_size)
{
    errno = 0;
    gzFile g = gzopen(path, "rb");
    if (!g) {
        int missing = errno == ENOENT;
        snprintf(err, err_size, "%s: cannot open: %s", path,
                 errno ? strerror(errno) : "out of memory");
        return missing ? 1 : -1;
    }
    size_t cap = 1u << 20, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            snprintf(err, err_size, "%s: out of memory", path);
            gzclose(g);
            return -1;
        }
        if (n == cap) {
            uint8_t *nb = cap < ((size_t)1 << 30) ? realloc(buf, cap * 2) : NULL;
            if (!nb) {
                free(buf);
                snprintf(err, err_size, "%s: too large or out of memory", path);
                gzclose(g);
                return -1;
            }
            buf = nb;
            cap *= 2;
        }
        int got = gzread(g, buf + n, (unsigned)(cap - n > 1u << 30 ? 1u << 30 : cap - n));
        if (got < 0) {
            int zerr;
            const char *msg = gzerror(g, &zerr);
            snprintf(err, err_size, "%s: cannot decompress: %s", path, msg ? msg : "zlib error");
            free(buf);
            gzclose(g);
            return -1;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    gzclose(g);
    *out = buf;
    *n_out = n;
    return 0;
}

static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* IDX: 00 00 08 <ndims>, ndims big-endian 32-bit sizes, then the unsigned bytes. */
static int parse_idx(const char *path, const uint8_t *b, size_t n, unsigned ndims,
                     uint32_t dims[3], char *err, size_t err_size)
{
    size_t hdr = 4 + 4 * (size_t)ndims;
    if (n < hdr || b[0] != 0 || b[1] != 0 || b[2] != 0x08 || b[3] != ndims) {
        snprintf(err, err_size, "%s: not an IDX file of unsigned bytes with %u dimension%s",
                 path, ndims, ndims == 1 ? "" : "s");
        return -1;
    }
    uint64_t count = 1;
    for (unsigned i = 0; i < ndims; i++) {
        dims[i] = get_be32(b + 4 + 4 * i);
        count *= dims[i];
    }
    if (count != n - hdr) {
        snprintf(err, err_size, "%s: %zu data bytes, but the header says %llu", path, n - hdr,
                 (unsigned long long)count);
        return -1;
    }
    return 0;
}

int mlp_dataset_load(mlp_dataset *d, const char *dir, const char *prefix, char *err,
                     size_t err_size)
{
    memset(d, 0, sizeof *d);
    char ipath[4096], lpath[4096];
    if ((size_t)snprintf(ipath, sizeof ipath, "%s/%s-images-idx3-ubyte.gz", dir, prefix) >=
            sizeof ipath ||
        (size_t)snprintf(lpath, sizeof lpath, "%s/%s-labels-idx1-ubyte.gz", dir, prefix) >=
            sizeof lpath) {
        snprintf(err, err_size, "%s: directory name too long", dir);
        return -1;
    }
    uint8_t *ib = NULL, *lb = NULL;
    size_t in = 0, ln = 0;
    int r = read_gz(ipath, &ib, &in, err, err_size);
    if (r != 0)
        return r;
    r = read_gz(lpath, &lb, &ln, err, err_size);
    if (r != 0) {
        free(ib);
        return r;
    }
    uint32_t idims[3], ldims[3];
    if (parse_idx(ipath, ib, in, 3, idims, err, err_size) != 0 ||
        parse_idx(lpath, lb, ln, 1, ldims, err, err_size) != 0)
        goto fail;
    if (idims[1] != 28 || idims[2] != 28) {
        snprintf(err, err_size, "%s: images are %ux%u, expected 28x28", ipath,
                 (unsigned)idims[1], (unsigned)idims[2]);
        goto fail;
    }
    if (idims[0] != ldims[0]) {
        snprintf(err, err_size, "%s: %u labels for %u images in %s", lpath, (unsigned)ldims[0],
                 (unsigned)idims[0], ipath);
        goto fail;
    }
    for (uint32_t i = 0; i < ldims[0]; i++) {
        if (lb[8 + i] > 9) {
            snprintf(err, err_size, "%s: label %u of item %u is not 0..9", lpath,
                     (unsigned)lb[8 + i], (unsigned)i);
            goto fail;
        }
    }
    d->n = idims[0];
    memmove(ib, ib + 16, d->n * MLP_N_IN);
    memmove(lb, lb + 8, d->n);
    d->images = ib;
    d->labels = lb;
    return 0;
fail:
    free(ib);
    free(lb);
    return -1;
}

void mlp_dataset_free(mlp_dataset *d)
{
    free(d->images);
    free(d->labels);
    memset(d, 0, sizeof *d);
}
