/* toy timing: single-issue in-order pipeline. An instruction issues one cycle after the
 * previous one, later if a source register is not ready (a stall); it completes after its
 * unit's latency from isa.def; a taken branch costs one bubble. Which registers an
 * instruction reads and writes comes from its operand list in isa.def (via decode). */
#include "targets/toy/toy.h"

void toy_timing(toy_state *s, const toy_decoded *d, int taken, uint64_t *start, uint64_t *end,
                uint64_t *stalls)
{
    uint64_t t = s->next_issue, want = t;
    if ((d->uses & TOY_READS_RS1) && s->ready[d->rs1] > want)
        want = s->ready[d->rs1];
    if ((d->uses & TOY_READS_RS2) && s->ready[d->rs2] > want)
        want = s->ready[d->rs2];
    *stalls = want - t;
    *start = want;
    *end = want + toy_unit_latency[toy_insns[d->op].unit];
    if (d->uses & TOY_WRITES_RD)
        s->ready[d->rd] = *end;
    s->next_issue = want + 1 + (taken ? 1u : 0u);
}
