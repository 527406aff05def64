/* src/num: the one place npukit's number-format rules live. Include this header; it pulls in
 * binary32 arithmetic (and binary64 add/mul), narrow formats (bf16, OCP FP8), fixed point,
 * the exact accumulator, element-wise functions (exp, sin, cos, tanh, GELU) and the host-FPU
 * fast paths (hostfp.h). The API is documented in docs/num.md. */
#ifndef NPK_NUM_NUM_H
#define NPK_NUM_NUM_H

#include "num/fenv.h"
#include "num/f32.h"
#include "num/f64.h"
#include "num/fixed.h"
#include "num/hostfp.h"
#include "num/fn.h"
#include "num/narrow.h"
#include "num/xsum.h"

#endif
