/* Wide instruction words as arrays of 64-bit chunks: field insertion/extraction, range
 * tests, byte images and hex text, for 32-bit words up to tinytpu's N-lane full-port words. */
#include "asm/asm.h"

static uint64_t low_mask(unsigned width)
{
    return width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
}

int npk_bits_put(uint64_t *w, size_t nw, unsigned lsb, unsigned width, uint64_t v)
{
    if (width == 0 || width > 64 || (uint64_t)lsb + width > (uint64_t)nw * 64)
        return -1;
    v &= low_mask(width);
    size_t i = lsb / 64;
    unsigned sh = lsb % 64;
    w[i] = (w[i] & ~(low_mask(width) << sh)) | (v << sh);
    if (sh + width > 64) {
        unsigned rest = sh + width - 64;
        w[i + 1] = (w[i + 1] & ~low_mask(rest)) | (v >> (64 - sh));
    }
    return 0;
}

uint64_t npk_bits_get(const uint64_t *w, size_t nw, unsigned lsb, unsigned width)
{
    if (width == 0 || width > 64 || (uint64_t)lsb + width > (uint64_t)nw * 64)
        return 0;
    size_t i = lsb / 64;
    unsigned sh = lsb % 64;
    uint64_t v = w[i] >> sh;
    if (sh + width > 64)
        v |= w[i + 1] << (64 - sh);
    return v & low_mask(width);
}

bool npk_fits_u(uint64_t v, unsigned width)
{
    return width >= 64 || v <= low_mask(width);
}

bool npk_fits_s(int64_t v, unsigned width)
{
    if (width >= 64)
        return true;
    if (width == 0)
        return false;
    int64_t hi = (int64_t)(((uint64_t)1 << (width - 1)) - 1);
    return v >= -hi - 1 && v <= hi;
}

int64_t npk_sext(uint64_t v, unsigned width)
{
    if (width == 0)
        return 0;
    if (width >= 64)
        return (int64_t)v;
    v &= low_mask(width);
    uint64_t sign = (uint64_t)1 << (width - 1);
    return v & sign ? (int64_t)(v - sign) - (int64_t)sign : (int64_t)v;
}

void npk_bits_to_bytes(const uint64_t *w, size_t nw, uint8_t *out, size_t nbytes)
{
    for (size_t i = 0; i < nbytes; i++)
        out[i] = i / 8 < nw ? (uint8_t)(w[i / 8] >> (8 * (i % 8))) : 0;
}

void npk_bits_from_bytes(uint64_t *w, size_t nw, const uint8_t *in, size_t nbytes)
{
    for (size_t i = 0; i < nw; i++)
        w[i] = 0;
    for (size_t i = 0; i < nbytes && i / 8 < nw; i++)
        w[i / 8] |= (uint64_t)in[i] << (8 * (i % 8));
}

int npk_bits_hex(const uint64_t *w, size_t nw, unsigned nbits, char *out, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    size_t nd = (nbits + 3) / 4;
    for (size_t k = 0; k < nd; k++) {
        size_t d = nd - 1 - k; /* digit index from the least significant */
        unsigned v = (unsigned)npk_bits_get(w, nw, (unsigned)(4 * d), 4);
        if (k + 1 < n)
            out[k] = digits[v];
    }
    if (n)
        out[nd < n ? nd : n - 1] = '\0';
    return (int)nd;
}
