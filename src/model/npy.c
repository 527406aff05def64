/* .npy files as float32 arrays (npy.h), on the shared header code of src/core/npy.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/elems.h"
#include "core/file.h"
#include "model/npy.h"

void npk_npy_free_f32(npk_npy_f32 *a)
{
    if (a) {
        free(a->data);
        a->data = NULL;
    }
}

int npk_npy_parse_f32(const uint8_t *buf, size_t size, const char *name, npk_npy_f32 *out,
                      char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    npk_npy_header h;
    char why[256];
    if (npk_npy_header_parse(buf, size, &h, why, sizeof why) != 0) {
        snprintf(err, err_size, "%s: %s", name, why);
        return -1;
    }
    out->data = malloc(h.count ? h.count * sizeof *out->data : 1);
    if (!out->data) {
        snprintf(err, err_size, "%s: out of memory for %zu elements", name, h.count);
        return -1;
    }
    out->rank = h.rank;
    for (int i = 0; i < h.rank; i++)
        out->dims[i] = (int64_t)h.dims[i];
    out->count = h.count;
    memcpy(out->dtype, h.descr, sizeof out->dtype);
    for (size_t i = 0; i < h.count; i++) {
        uint64_t u = npk_le_get(h.data + i * h.elem_size, h.elem_size);
        float v;
        if (h.is_float && h.elem_size == 4) {
            uint32_t w = (uint32_t)u;
            memcpy(&v, &w, 4);
        } else if (h.is_float) {
            double d;
            memcpy(&d, &u, 8);
            v = (float)d;
        } else if (h.is_signed) {
            unsigned bits = 8 * (unsigned)h.elem_size;
            int64_t s = bits < 64 && (u >> (bits - 1)) & 1 ? (int64_t)(u - (UINT64_C(1) << bits))
                                                            : (int64_t)u;
            v = (float)s;
        } else {
            v = (float)u;
        }
        out->data[i] = v;
    }
    return 0;
}

int npk_npy_read_f32(const char *path, npk_npy_f32 *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    uint8_t *buf;
    size_t size;
    if (npk_file_read(path, 0, &buf, &size, err, err_size) != NPK_OK)
        return -1;
    int r = npk_npy_parse_f32(buf, size, path, out, err, err_size);
    free(buf);
    return r;
}

int npk_npy_write_f32(const char *path, const float *data, int rank, const int64_t *dims,
                      char *err, size_t err_size)
{
    uint64_t d[NPK_NPY_MAX_RANK];
    size_t count = 1;
    if (rank < 0 || rank > NPK_NPY_MAX_RANK) {
        snprintf(err, err_size, "%s: rank %d", path, rank);
        return -1;
    }
    for (int i = 0; i < rank; i++) {
        d[i] = (uint64_t)dims[i];
        count *= (size_t)dims[i];
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(err, err_size, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    npk_npy_header_write(f, "<f4", rank, d);
    int bad = 0;
    for (size_t i = 0; i < count && !bad; i++) {
        uint32_t w;
        uint8_t le[4];
        memcpy(&w, &data[i], 4);
        npk_le_put(le, 4, w);
        bad = fwrite(le, 1, 4, f) != 4;
    }
    bad |= ferror(f) != 0;
    if (fclose(f) != 0 || bad) {
        snprintf(err, err_size, "%s: write error: %s", path, strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}
