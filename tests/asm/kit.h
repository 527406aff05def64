/* The "kit" test target shared by test_kit.c and test_fuzz.c (see kit.c). */
#ifndef NPK_TESTS_ASM_KIT_H
#define NPK_TESTS_ASM_KIT_H

#include "asm/asm.h"

enum { SP_INSN, SP_HOST, SP_L2, SP_WIDE };

typedef struct kit_state {
    int in_weight;
    char weight_at[64];   /* file:line of the open .weight */
    int64_t k, n, rows;
    int8_t codes[16][16];
    long cycle;           /* last placed cycle line, -1 before the first */
} kit_state;

extern const npk_asm_target kit_target;  /* user: a kit_state */
extern const npk_regset vx;

#endif
