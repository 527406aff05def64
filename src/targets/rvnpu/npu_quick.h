/* rvnpu: the NPU instructions that can finish without the general path of rvnpu_npu_exec()
 * (npu.c): the integer scalar operations (spec §4-§5: MACC, RELU, QMUL, CLAMP, RSTACC; no trap,
 * no memory) and a VMAC whose two arrays lie wholly in RAM (§5.1, no fault possible). This is
 * their one definition: rvnpu_npu_exec() tries it first, and the core's fast loop (exec.c)
 * calls it inline, without a call per instruction. Anything else returns 0 and takes the
 * general path, which then does everything (checks, traps, the bus). The revision rules come
 * first: rvnpu_npu_exec() checks them before calling this, and the fast loop only runs words
 * the decoder accepted for the running revision (isa.def's rev column, rvnpu_decode). */
#ifndef RVNPU_NPU_QUICK_H
#define RVNPU_NPU_QUICK_H

#include <stddef.h>
#include <stdint.h>

#include "num/fixed.h"
#include "targets/rvnpu/npu.h"

/* sum of a[i] * b[i] over n int8 pairs, exactly (npu.c): the plain C loop (vectorised by the
 * compiler), or with GNU C on x86-64 an AVX2 kernel (vpmaddwd), used when the host has AVX2 */
int64_t rvnpu_dot_i8(const uint8_t *a, const uint8_t *b, uint32_t n);

/* The kernels behind rvnpu_dot_i8, each callable on its own (the tests compare them): whether
 * this build and host have kernel k, and its sum (k must be one the host has). */
typedef enum { RVNPU_DOT_PLAIN, RVNPU_DOT_AVX2, RVNPU_DOT_KERNELS } rvnpu_dot_kernel;
int rvnpu_dot_i8_has(rvnpu_dot_kernel k);
int64_t rvnpu_dot_i8_with(rvnpu_dot_kernel k, const uint8_t *a, const uint8_t *b, uint32_t n);

/* The operations below, for the fast loop's handler table. */
#define RVNPU_NPU_QUICK_OPS(X)                                                                \
    X(NPU_MACC) X(NPU_VMAC) X(NPU_RELU) X(NPU_QMUL) X(NPU_CLAMP) X(NPU_RSTACC)

/* The bytes of the array [a, a + bytes) when it lies wholly in RAM (so that an instruction's
 * elements can be accessed there directly, with no per-element check), else NULL. */
static inline uint8_t *rvnpu_ram_span(const rvnpu_bus *b, uint32_t a, uint64_t bytes)
{
    if (!b->ram || a < b->ram_base || (uint64_t)(a - b->ram_base) + bytes > b->ram_size)
        return NULL;
    return b->ram + (a - b->ram_base);
}

/* Execute op (word w) if it is one of the above: 1 and *elements set, else 0 with nothing
 * changed. x[0] reads as 0 and is never written. */
static inline int rvnpu_npu_quick(rvnpu_npu *n, rvnpu_op op, uint32_t w, uint32_t *x, int rev2,
                                  const rvnpu_bus *bus, uint32_t *elements)
{
    unsigned rd = (w >> 7) & 31, rs1 = (w >> 15) & 31, rs2 = (w >> 20) & 31;
    uint32_t x1 = rs1 ? x[rs1] : 0, x2 = rs2 ? x[rs2] : 0;
    *elements = 1;
    switch (op) {
    case RVNPU_OP_NPU_MACC:
        n->acc += (uint64_t)((int64_t)(int32_t)x1 * (int32_t)x2);
        return 1;
    case RVNPU_OP_NPU_VMAC: {
        uint32_t cnt = rd ? x[rd] : 0;
        const uint8_t *pa = rvnpu_ram_span(bus, x1, cnt), *pb = rvnpu_ram_span(bus, x2, cnt);
        if ((rev2 && cnt > 256) || !pa || !pb) /* §7.3's limit (1-byte elements): a trap */
            return 0;
        /* acc wraps mod 2^64: adding the exact sum once is the same as element by element */
        n->acc += (uint64_t)rvnpu_dot_i8(pa, pb, cnt);
        *elements = cnt;
        return 1;
    }
    case RVNPU_OP_NPU_RELU:
        if (rd)
            x[rd] = (int32_t)x1 >= 0 ? x1 : 0;
        return 1;
    case RVNPU_OP_NPU_QMUL:
        if (rd)
            x[rd] = (uint32_t)npk_shr_round((int64_t)(int32_t)x1 * (int32_t)x2, 8, NPK_QR_FLOOR);
        return 1;
    case RVNPU_OP_NPU_CLAMP:
        if (rd)
            x[rd] = (uint32_t)npk_sat_int((int32_t)x1, 8);
        return 1;
    case RVNPU_OP_NPU_RSTACC:
        if (rd)
            x[rd] = (uint32_t)n->acc;
        n->acc = 0;
        return 1;
    default:
        return 0;
    }
}

#endif
