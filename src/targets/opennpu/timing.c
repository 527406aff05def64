/* opennpu tick model (spec §6.3): single issue in program order; an instruction waits until
 * every row it reads or writes has no write in flight (RAW + WAW on VX rows, so the VX/VE/VR
 * views alias correctly); latencies come from isa.def; mma.last lands its K columns by the
 * drain schedule D = max(T0 + 2K - 1, t_L + K). */
#include "targets/opennpu/machine.h"

/* The VX rows of register i of a class (§3.1). */
static uint32_t class_rows(onpu_class cls, unsigned i)
{
    switch (cls) {
    case ONPU_VX: return 1u << i;
    case ONPU_VE: return 3u << (2 * i);
    default: return 0xFu << (4 * i);
    }
}

static int is_store(unsigned op)
{
    return op >= ONPU_OP_ST_B && op <= ONPU_OP_ST_VR;
}

/* Rows written by an mma.last drain: VR[(rd + j) mod (L/4)] for j = 0 .. K-1. */
static uint32_t drain_rows(const onpu_cfg *c, unsigned rd)
{
    uint32_t rows = 0;
    unsigned nvr = onpu_nregs(c, ONPU_VR);
    for (unsigned j = 0; j < c->K && j < nvr; j++)
        rows |= class_rows(ONPU_VR, (rd + j) % nvr);
    return rows;
}

void onpu_rows(const onpu_cfg *c, const onpu_decoded *d, uint32_t *src, uint32_t *dst)
{
    onpu_kind k[ONPU_MAX_OPERANDS];
    int n = onpu_operands((onpu_op)d->op, k);
    uint32_t s = 0, w = 0;
    /* In ST rows the "destination" operand names the register that is stored (read). */
    uint32_t *rd_set = is_store(d->op) ? &s : &w;
    for (int i = 0; i < n; i++) {
        switch (k[i]) {
        case ONPU_K_WD: *rd_set |= class_rows((onpu_class)d->cls, d->rd); break;
        case ONPU_K_WS1: s |= class_rows((onpu_class)d->cls, d->rs1); break;
        case ONPU_K_WS2: s |= class_rows((onpu_class)d->cls, d->rs2); break;
        case ONPU_K_VXD: *rd_set |= class_rows(ONPU_VX, d->rd); break;
        case ONPU_K_VED: *rd_set |= class_rows(ONPU_VE, d->rd); break;
        case ONPU_K_VRD:
            /* mma ignores rd; mma.last writes its drain registers */
            if (d->op == ONPU_OP_MMA_LAST)
                w |= drain_rows(c, d->rd);
            else if (d->op != ONPU_OP_MMA)
                *rd_set |= class_rows(ONPU_VR, d->rd);
            break;
        case ONPU_K_VXS1: s |= class_rows(ONPU_VX, d->rs1); break;
        case ONPU_K_VXS2: s |= class_rows(ONPU_VX, d->rs2); break;
        case ONPU_K_VRS1:
        case ONPU_K_MEM: s |= class_rows(ONPU_VR, d->rs1); break;
        case ONPU_K_VRS2: s |= class_rows(ONPU_VR, d->rs2); break;
        case ONPU_K_VRS3: s |= class_rows(ONPU_VR, d->rs3); break;
        case ONPU_K_CVTD: w |= class_rows(onpu_cvt_fmts[d->cvt_dst].cls, d->rd); break;
        case ONPU_K_CVTS: s |= class_rows(onpu_cvt_fmts[d->cvt_src].cls, d->rs1); break;
        default: break; /* immediates and segments */
        }
    }
    *src = s;
    *dst = w;
}

void onpu_timing_reset(onpu_state *s)
{
    for (unsigned r = 0; r < ONPU_MAX_L; r++)
        s->ready[r] = 0;
    s->next_issue = 0;
    s->block_t0 = 0;
    s->block_open = 0;
    s->ticks = 0;
}

void onpu_timing(onpu_state *s, const onpu_slot *slot, uint64_t *issue, uint64_t *done,
                 uint64_t *stalls)
{
    const onpu_cfg *c = &s->cfg;
    unsigned op = slot->d.op;
    uint64_t t = s->next_issue, end;
    uint32_t rows = slot->src_rows | slot->dst_rows;
    for (unsigned r = 0; rows; r++, rows >>= 1)
        if ((rows & 1) && s->ready[r] > t)
            t = s->ready[r];
    *stalls = t - s->next_issue;
    s->next_issue = t + 1;

    if (op == ONPU_OP_MMA_RESET)
        s->block_open = 0;
    if ((op == ONPU_OP_MMA || op == ONPU_OP_MMA_LAST) && !s->block_open) {
        s->block_open = 1;
        s->block_t0 = t;
    }
    unsigned lat = onpu_insns[op].latency;
    if (lat == ONPU_LAT_DRAIN) {
        uint64_t K = c->K, d0 = s->block_t0 + 2 * K - 1;
        if (t + K > d0)
            d0 = t + K;
        unsigned nvr = onpu_nregs(c, ONPU_VR);
        /* increasing j: with wrap, the largest j that maps to a register wins */
        for (unsigned j = 0; j < c->K; j++) {
            unsigned base = 4 * ((slot->d.rd + j) % nvr);
            for (unsigned b = 0; b < 4; b++)
                s->ready[base + b] = d0 + j;
        }
        end = d0 + K - 1;
        s->block_open = 0;
    } else {
        end = t + (lat == ONPU_LAT_MEM ? c->mem_latency : lat);
        rows = slot->dst_rows;
        for (unsigned r = 0; rows; r++, rows >>= 1)
            if (rows & 1)
                s->ready[r] = end;
    }
    if (end > s->ticks)
        s->ticks = end;
    *issue = t;
    *done = end;
}
