/* IEEE 754 binary64 add, sub and mul in software on bit patterns, for targets whose
 * accumulators are binary64 (rvnpu facc, §6). Same environment and rules as binary32. */
#ifndef NPK_NUM_F64_H
#define NPK_NUM_F64_H

#include <stdint.h>

#include "num/fenv.h"

uint64_t npk_f64_add(uint64_t a, uint64_t b, npk_fenv *e);
uint64_t npk_f64_sub(uint64_t a, uint64_t b, npk_fenv *e);
uint64_t npk_f64_mul(uint64_t a, uint64_t b, npk_fenv *e);

/* Canonical binary64 NaN (RISC-V D): produced in canonical NaN mode. */
#define NPK_F64_DEFAULT_NAN UINT64_C(0x7FF8000000000000)

#endif
