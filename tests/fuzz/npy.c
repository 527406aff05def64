/* Fuzz the .npy reader (src/core/npy.c: `npukit run --load/--write` and the model commands'
 * inputs, calibration sets and labels, which read through src/model/npy.c): parse the bytes
 * as a .npy file; on success check what the parser promises (a known dtype, the element count
 * the product of the shape, the data inside the buffer and exactly as long as the shape says),
 * convert it to float32 as run-model does (when the build has the model front end), and write
 * a header for the same shape back and parse it again (same rank and dimensions); on failure
 * check that the message says something. */
#define _POSIX_C_SOURCE 200809L
#include "core/npy.h"
#include "fuzz.h"
#if defined(NPK_HAVE_ONNX)
#include "model/npy.h"
#endif

static void check_header(const uint8_t *data, size_t size, const npk_npy_header *h)
{
    if (h->rank < 0 || h->rank > NPK_NPY_MAX_RANK)
        fuzz_fail("npy: rank out of range", h->descr);
    if (h->elem_size != 1 && h->elem_size != 2 && h->elem_size != 4 && h->elem_size != 8)
        fuzz_fail("npy: element size not 1, 2, 4 or 8", h->descr);
    if (h->is_float && h->elem_size != 4 && h->elem_size != 8)
        fuzz_fail("npy: float of an odd size", h->descr);
    uint64_t count = 1;
    for (int i = 0; i < h->rank; i++) {
        if (h->dims[i] && count > UINT64_MAX / h->dims[i])
            fuzz_fail("npy: shape product overflows yet was accepted", h->descr);
        count *= h->dims[i];
    }
    if (count != h->count)
        fuzz_fail("npy: element count differs from the shape", h->descr);
    if (h->data < data || h->data > data + size)
        fuzz_fail("npy: data pointer outside the input", h->descr);
    size_t left = size - (size_t)(h->data - data);
    if (h->count > left / h->elem_size || h->count * h->elem_size != left)
        fuzz_fail("npy: data length differs from the shape", h->descr);
    if (h->count) {
        /* the last element is readable (ASan checks it) */
        volatile uint8_t last = h->data[h->count * h->elem_size - 1];
        (void)last;
    }
}

/* A header for the same shape, written and parsed again: the same rank and dimensions. */
static void check_rewrite(const npk_npy_header *h)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        fuzz_fail("npy: open_memstream failed", NULL);
    npk_npy_header_write(f, "<f4", h->rank, h->dims);
    if (fclose(f) != 0)
        fuzz_fail("npy: writing the header failed", NULL);
    if (h->count > (1u << 16)) {   /* large shapes: only the header is checked */
        free(buf);
        return;
    }
    uint8_t *whole = calloc(len + 4 * h->count + 1, 1);
    if (!whole)
        fuzz_fail("npy: out of memory", NULL);
    memcpy(whole, buf, len);
    free(buf);
    if (len % 64 != 0)
        fuzz_fail("npy: written header not padded to 64 bytes", NULL);
    npk_npy_header g;
    char err[512];
    if (npk_npy_header_parse(whole, len + 4 * h->count, &g, err, sizeof err) != 0)
        fuzz_fail("npy: a header npukit wrote does not parse", err);
    if (g.rank != h->rank || g.count != h->count || strcmp(g.descr, "<f4") != 0)
        fuzz_fail("npy: rewritten header reads back differently", g.descr);
    for (int i = 0; i < h->rank; i++)
        if (g.dims[i] != h->dims[i])
            fuzz_fail("npy: rewritten header has another dimension", NULL);
    free(whole);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    npk_npy_header h;
    char err[512];
    err[0] = '\0';
    if (npk_npy_header_parse(data, size, &h, err, sizeof err) != 0) {
        if (!err[0])
            fuzz_fail("npy: refused without a message", NULL);
        return 0;
    }
    check_header(data, size, &h);
    check_rewrite(&h);
#if defined(NPK_HAVE_ONNX)
    npk_npy_f32 a;
    if (npk_npy_parse_f32(data, size, "fuzz.npy", &a, err, sizeof err) != 0)
        fuzz_fail("npy: the header parsed but the float32 read failed", err);
    if (a.count != h.count || a.rank != h.rank || strcmp(a.dtype, h.descr) != 0)
        fuzz_fail("npy: the float32 read differs from the header", a.dtype);
    /* float32 elements come through bit for bit */
    if (h.is_float && h.elem_size == 4)
        for (size_t i = 0; i < a.count; i++)
            if (memcmp(&a.data[i], h.data + 4 * i, 4) != 0)
                fuzz_fail("npy: a float32 element changed", NULL);
    npk_npy_free_f32(&a);
#endif
    return 0;
}
