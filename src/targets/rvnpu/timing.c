/* rvnpu timing: a single-issue in-order pipeline for --stats and the timeline; it never
 * changes what the program sees (the architectural counters count instructions, §1.1).
 * An instruction issues one cycle after the previous one, later while a source register awaits
 * a result (RAW and load-use interlocks); it completes after its unit's latency. Division,
 * square root and NPU instructions are not pipelined (the next instruction issues when they
 * complete); NPU vector instructions cost a per-element latency times the element count; a
 * taken branch or jump adds a bubble. Which registers are read and written comes from
 * isa.def's operand lists through the decoder. */
#include "targets/rvnpu/rvnpu.h"

void rvnpu_timing(rvnpu_state *s, const rvnpu_decoded *d, int taken, uint32_t elements,
                  uint64_t *start, uint64_t *end, uint64_t *stalls)
{
    uint64_t t = s->next_issue, want = t;
    for (int i = 0; i < 3; i++)
        if (d->src[i] != RVNPU_NOREG && d->src[i] != 0 && s->ready[d->src[i]] > want)
            want = s->ready[d->src[i]];
    rvnpu_unit u = (rvnpu_unit)s->unit_of[d->op];
    uint64_t lat = s->lat[u];
    if (u == RVNPU_U_NPU && elements > 1)
        lat += (uint64_t)s->lat_npu_elem * elements;
    if (u == RVNPU_U_FNPU && elements > 1)
        lat += (uint64_t)s->lat_fnpu_elem * elements;
    if (lat == 0)
        lat = 1;
    *stalls = want - t;
    *start = want;
    *end = want + lat;
    if (d->dst != RVNPU_NOREG)
        s->ready[d->dst] = *end;
    int blocking = u == RVNPU_U_DIV || u == RVNPU_U_FDIV || u == RVNPU_U_NPU || u == RVNPU_U_FNPU;
    s->next_issue = blocking ? *end : want + 1;
    if (taken)
        s->next_issue += s->lat_branch_taken;
}
