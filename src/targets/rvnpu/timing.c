/* rvnpu timing: the model of timing.h out of line, for the observed loop. */
#include "targets/rvnpu/timing.h"

void rvnpu_timing(rvnpu_state *s, const rvnpu_decoded *d, int taken, uint32_t elements,
                  uint64_t *start, uint64_t *end, uint64_t *stalls)
{
    rvnpu_timing_inline(s, d, taken, elements, start, end, stalls);
}
