/* The lowering of a plan to opennpu (src/targets/opennpu/lower.c; docs/models.md, "Lowering to
 * opennpu") and the host model of exactly the integer arithmetic its program does, which the
 * tests compare the simulator with bit for bit. Internal to npukit_model. */
#ifndef NPK_TARGETS_OPENNPU_LOWER_H
#define NPK_TARGETS_OPENNPU_LOWER_H

#include <stddef.h>

#include "model/lower.h"

extern const npk_lower_target npk_lower_opennpu;

/* The integer host model of the lowered program: the same input quantisation, int32
 * accumulators, requantisation (in FP32 as the VALU does it), LUTs and host tail as a run on
 * the simulator, computed directly on the host. y of the plan's output element count.
 * Returns 0, or -1 with the message the lowering would give. */
int npk_lower_opennpu_reference(const npk_plan *p, const float *x, float *y, char *err,
                                size_t err_size);

#endif
