/* Small helpers shared by the pccx tests, written from the spec independently of src/num:
 * BF16 <-> float by bit moves, RNE16 from its §3.2 formula, and element-granular L2 access
 * through the host API's word back doors. */
#ifndef NPK_TEST_PCCX_REF_H
#define NPK_TEST_PCCX_REF_H

#include <stdint.h>
#include <string.h>

#include "npukit/pccx.h"

static inline float ref_bf(uint16_t h) /* widen: the pattern h << 16 */
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint32_t ref_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* §3.2 RNE16: NaN -> 0x7FC0, else (u + 0x7FFF + ((u >> 16) & 1)) >> 16 */
static inline uint16_t ref_rne16(uint32_t u)
{
    if ((u & 0x7FFFFFFFu) > 0x7F800000u)
        return 0x7FC0;
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

static inline uint16_t ref_rne16f(float f)
{
    return ref_rne16(ref_bits(f));
}

/* n BF16 elements at element address e0 (other lanes of the touched words are kept). */
static inline void ref_l2_write(pccx_t *c, uint32_t e0, const uint16_t *v, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint32_t e = e0 + (uint32_t)i;
        uint8_t w[16];
        pccx_l2_read(c, e / 8, w, 1);
        for (uint32_t l = e % 8; l < 8 && i < n; l++, i++) {
            w[2 * l] = (uint8_t)v[i];
            w[2 * l + 1] = (uint8_t)(v[i] >> 8);
        }
        pccx_l2_write(c, e / 8, w, 1);
    }
}

static inline void ref_l2_read(pccx_t *c, uint32_t e0, uint16_t *v, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint32_t e = e0 + (uint32_t)i;
        uint8_t w[16];
        pccx_l2_read(c, e / 8, w, 1);
        for (uint32_t l = e % 8; l < 8 && i < n; l++, i++)
            v[i] = (uint16_t)(w[2 * l] | w[2 * l + 1] << 8);
    }
}

static inline uint16_t ref_l2_elem(pccx_t *c, uint32_t e)
{
    uint16_t v;
    ref_l2_read(c, e, &v, 1);
    return v;
}

#endif
