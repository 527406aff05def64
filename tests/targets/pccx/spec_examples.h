/* The encoding examples of spec §4.9 (assembly text and word, verbatim), shared by the
 * encoder/decoder test and the assembler test. */
#ifndef NPK_TEST_PCCX_SPEC_EXAMPLES_H
#define NPK_TEST_PCCX_SPEC_EXAMPLES_H

#include <stdint.h>

typedef struct pccx_spec_example {
    const char *text;
    uint64_t word;
    int ext;               /* needs the ext profile */
} pccx_spec_example;

static const pccx_spec_example pccx_spec_examples[] = {
    {"gemv dst=0x300, src=0x40, size=5, shape=4, findemax", 0x0018000102014400ull, 0},
    {"gemm dst=0x1000, src=0x800, size=7, shape=6, lanes=15, accm, w_scale",
     0x108000200181C678ull, 0},
    {"memcpy.h2l dst=0x40, aux=0x200, shape=4", 0x2800800000010008ull, 0},
    {"memcpy.l2h src=0x300, aux=0x400, shape=5, async", 0x240000030002000Bull, 0},
    {"memcpy.l2l dst=0x2000, src=0x300, shape=5", 0x204000030000000Aull, 0},
    {"memset fmap, idx=4, a=1, b=256, c=1", 0x3040001010000010ull, 0},
    {"memset fmap, idx=5, a=1, b=512, c=1", 0x3050001020000010ull, 0},
    {"memset weight, idx=4, a=1, b=2048, c=2048", 0x3440001080008000ull, 0},
    {"exp src=0x1800, dst=0x2001, len=512, sub_emax", 0x400C000800408020ull, 0},
    {"reduce_sum src=0x2001, dst=0x2000, len=512", 0x4510008800008000ull, 0},
    {"scale src=0x2000, dst=0x2400, len=513, recip_scale", 0x4610000900008050ull, 0},
    {"gelu src=0x4000, dst=0x4000, len=16384, async", 0x4220001000100001ull, 0},
    {"vmul src=0x3000, dst=0x3400, len=2048", 0x4918000D00020000ull, 1},
    {"copy src=0x3400, dst=0x3800, len=2048, accm", 0x481A000E00020008ull, 1},
};
#define PCCX_N_SPEC_EXAMPLES (sizeof pccx_spec_examples / sizeof pccx_spec_examples[0])

#endif
