/* rvnpu timing: a single-issue in-order pipeline for --stats, the timeline and the commit
 * record's cycle; it never changes what the program sees (the architectural counters count
 * instructions, §1.1). An instruction issues one cycle after the previous one, later while a
 * source register awaits a result (RAW and load-use interlocks); it completes after its
 * unit's latency. Division, square root and NPU instructions are not pipelined (the next
 * instruction issues when they complete); NPU vector instructions cost a per-element latency
 * times the element count; a taken branch or jump adds a bubble. Which registers are read and
 * written comes from isa.def's operand lists through the decoder.
 * The model is these inline functions, so that exec.c's recording loop can inline it with
 * the latencies of its instructions computed once; rvnpu_timing (timing.c) is the model out
 * of line. */
#ifndef NPK_RVNPU_TIMING_H
#define NPK_RVNPU_TIMING_H

#include "targets/rvnpu/rvnpu.h"

/* The latency of unit u for an instruction that processed `elements` NPU elements. */
static inline uint64_t rvnpu_timing_lat(const rvnpu_state *s, rvnpu_unit u, uint32_t elements)
{
    uint64_t lat = s->lat[u];
    if (u == RVNPU_U_NPU && elements > 1)
        lat += (uint64_t)s->lat_npu_elem * elements;
    if (u == RVNPU_U_FNPU && elements > 1)
        lat += (uint64_t)s->lat_fnpu_elem * elements;
    return lat ? lat : 1;
}

/* Whether unit u is not pipelined. */
static inline int rvnpu_timing_blocks(rvnpu_unit u)
{
    return u == RVNPU_U_DIV || u == RVNPU_U_FDIV || u == RVNPU_U_NPU || u == RVNPU_U_FNPU;
}

/* Issue d with latency lat on a unit that blocks or not: its issue cycle, and the stall
 * cycles before it; completion is issue + lat. */
static inline uint64_t rvnpu_timing_issue(rvnpu_state *s, const rvnpu_decoded *d, int taken,
                                          uint64_t lat, int blocking, uint64_t *stalls)
{
    uint64_t t = s->next_issue, want = t;
    for (int i = 0; i < 3; i++)
        if (d->src[i] != RVNPU_NOREG && d->src[i] != 0 && s->ready[d->src[i]] > want)
            want = s->ready[d->src[i]];
    *stalls = want - t;
    if (d->dst != RVNPU_NOREG)
        s->ready[d->dst] = want + lat;
    s->next_issue = (blocking ? want + lat : want + 1) + (taken ? s->lat_branch_taken : 0);
    return want;
}

static inline void rvnpu_timing_inline(rvnpu_state *s, const rvnpu_decoded *d, int taken,
                                       uint32_t elements, uint64_t *start, uint64_t *end,
                                       uint64_t *stalls)
{
    rvnpu_unit u = (rvnpu_unit)s->unit_of[d->op];
    uint64_t lat = rvnpu_timing_lat(s, u, elements);
    *start = rvnpu_timing_issue(s, d, taken, lat, rvnpu_timing_blocks(u), stalls);
    *end = *start + lat;
}

#endif
