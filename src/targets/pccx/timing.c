/* pccx timing model (docs/spec/pccx.md §11): an online discrete-event simulation of the
 * front-end (command FIFO, in-order decode, engine queues, sync waits), the five engines with
 * their R / X / W phases, hazards and first-come-first-served port B. Instructions are pushed
 * at the host clock; events are processed in time order (not program order) and only as far as
 * a caller needs, so every event before the host clock is final. */
#include "targets/pccx/timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/snapshot.h"

#define TM_NONE UINT64_MAX
/* Records live in blocks of 1024 so that pointers to them stay valid while pushing. */
#define TM_BLOCK_BITS 10u
#define TM_BLOCK ((uint64_t)1 << TM_BLOCK_BITS)
/* Upper bound of cmd_fifo_depth / engine_queue_depth (a ring of start times per engine). */
#define TM_MAX_DEPTH (1u << 20)

/* Where an in-flight instruction is. Port B bursts are requested (RREQ, WREQ) and then held
 * (R, W); X is the fixed phase in between. */
enum { ST_PUSHED, ST_DECODED, ST_RREQ, ST_R, ST_X, ST_WREQ, ST_W, ST_DONE };

/* One instruction that has been pushed and has not completed. */
typedef struct tm_slot {
    pccx_fp fp;              /* resources for hazards, kind, shapes */
    uint64_t idx;            /* issue index */
    uint64_t eord;           /* ordinal among the instructions of its engine */
    uint64_t rlen, wlen;     /* port B cycles of the R and W bursts */
    uint64_t x;              /* duration of X */
    uint64_t req;            /* request time of the pending burst */
    uint64_t blocker;        /* last hazard predecessor seen incomplete, or TM_NONE */
    int haz_clear;           /* every hazard predecessor has completed (stays so) */
    uint64_t stall_queue, stall_sync;
    int engine;              /* PCCX_ENG_* or -1 */
    int sync;                /* a sync MEMCPY / CVO (§11.2) */
    int stage;
} tm_slot;

struct pccx_tm {
    pccx_timing_t p;
    uint64_t t_push, t_ddr;
    /* one record per pushed instruction */
    pccx_tm_rec **blocks;
    size_t nblocks, blocks_cap;
    uint64_t count;
    /* in-flight instructions in issue order; the last `nundec` are not decoded yet */
    tm_slot *live;
    size_t nlive, live_cap;
    uint64_t nundec;
    /* per engine: instructions pushed, started and completed; last completion; start times
     * of the last engine_queue_depth instructions (ring indexed by ordinal) */
    uint64_t pushed[PCCX_N_ENGINES], started[PCCX_N_ENGINES], ndone[PCCX_N_ENGINES];
    uint64_t last_c[PCCX_N_ENGINES];
    uint64_t *ring;
    /* clocks and front-end */
    uint64_t host, now;
    uint64_t last_d;
    int have_d;
    uint64_t sync_pending, sync_cmax;
    uint64_t port_free;      /* port B is free from this time */
    /* totals over completed instructions (§11.5) */
    pccx_stats_t tot;
};

/* ---- small helpers ------------------------------------------------------------------------ */

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static unsigned popcount(unsigned v)
{
    unsigned n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

static pccx_tm_rec *rec_at(const pccx_tm *t, uint64_t i)
{
    return &t->blocks[i >> TM_BLOCK_BITS][i & (TM_BLOCK - 1)];
}

/* Half-open ranges overlap (an empty range overlaps nothing). */
static int overlap(pccx_range a, pccx_range b)
{
    return a.lo < a.hi && b.lo < b.hi && a.lo < b.hi && b.lo < a.hi;
}

/* ---- parameters and phases (§11.1, §11.3) ------------------------------------------------- */

void pccx_timing_default(pccx_timing_t *t)
{
    static const uint32_t lat[PCCX_N_CVO_FUNCS] = {
        5, 2, 18, 16, 16, 8, 3, 9,  /* EXP SQRT GELU SIN COS REDUCE_SUM SCALE RECIP */
        1, 3, 18, 4, 1, 11, 8       /* ext: COPY VMUL TANH ADDS MAXS REDUCE_SUMSQ REDUCE_MAX */
    };
    memset(t, 0, sizeof *t);
    t->f_core_mhz = 400;
    t->f_axi_mhz = 250;
    t->cmd_fifo_depth = 8;
    t->decode_cycles = 1;
    t->engine_queue_depth = 8;
    t->host_push_axi_cycles = 2;
    t->l2_read_latency = 7;
    t->l2_port_words_per_cycle = 1;
    t->ddr_latency_ns = 100;
    t->mem_setup_cycles = 13;
    t->memset_cycles = 2;
    t->acp_bytes_per_axi_cycle = 16;
    t->hp_bytes_per_axi_cycle = 16;
    t->gemm_ports = 0x3;
    t->gemv_ports = 0xC;
    t->gemv_lanes = 4;
    t->gemv_lane_width = 32;
    t->gemv_latency = 8;
    t->gemm_rows = 32;
    t->gemm_cols = 32;
    t->gemm_macs_per_pe = 2;
    t->gemm_latency = 68;
    t->cvo_cores = 2;
    t->cvo_overhead = 8;
    memcpy(t->cvo_lat, lat, sizeof lat);
    t->cvo_lat_recip_scale = 12;
}

uint64_t pccx_tm_axi(const pccx_timing_t *p, uint64_t n)
{
    return ceil_div(n * p->f_core_mhz, p->f_axi_mhz);
}

uint64_t pccx_tm_t_ddr(const pccx_timing_t *p)
{
    return ceil_div((uint64_t)p->ddr_latency_ns * p->f_core_mhz, 1000);
}

/* §11.1 span(e, n): L2 words touched by elements [e, e + n). */
static uint64_t span(uint64_t e, uint64_t n)
{
    return n ? (e + n - 1) / 8 - e / 8 + 1 : 0;
}

/* The weight-port mask of an engine (GEMV or GEMM). */
static unsigned weight_ports(const pccx_timing_t *p, pccx_fp_kind k)
{
    return (k == PCCX_FP_GEMM ? p->gemm_ports : p->gemv_ports) & 0xFu;
}

/* §11.3 beats B of the weight tensor: INT4 rows padded to 32-code beats plus scale beats
 * (4 per beat); a BF16 view has 8 values per beat and no scales. */
static uint64_t weight_beats(const pccx_fp *fp)
{
    if (fp->weight_view)
        return fp->N * ceil_div(fp->K, 8);
    return fp->N * ceil_div(fp->K, 32) + ceil_div(fp->N, 4);
}

/* §11.3 T_w = t_ddr + axi(ceil(B / P)): each port moves one 16-byte beat per AXI cycle at the
 * default hp_bytes_per_axi_cycle = 16 (generalised as 16 B / (P * hp_bytes)). */
static uint64_t weight_time(const pccx_timing_t *p, const pccx_fp *fp)
{
    uint64_t per_cycle = (uint64_t)popcount(weight_ports(p, fp->kind)) * p->hp_bytes_per_axi_cycle;
    return pccx_tm_t_ddr(p) + pccx_tm_axi(p, ceil_div(16 * weight_beats(fp), per_cycle));
}

/* §4.7: the number of enabled GEMV lanes; lanes beyond gemv_lanes do not exist, and no lane
 * at all means every lane. */
static uint64_t gemv_lanes(const pccx_timing_t *p, unsigned mask)
{
    unsigned all = p->gemv_lanes >= 32 ? 0xFFFFFFFFu : (1u << p->gemv_lanes) - 1;
    unsigned n = popcount(mask & all);
    return n ? n : p->gemv_lanes;
}

static uint64_t cvo_latency(const pccx_timing_t *p, const pccx_fp *fp)
{
    if (fp->func == PCCX_CVO_SCALE && fp->recip_scale)
        return p->cvo_lat_recip_scale;
    return fp->func < PCCX_N_CVO_FUNCS ? p->cvo_lat[fp->func] : 0;
}

void pccx_tm_phases(const pccx_timing_t *p, const pccx_fp *fp, int *engine, uint64_t *r,
                    uint64_t *x, uint64_t *w)
{
    int e = -1;
    uint64_t rr = 0, xx = 0, ww = 0, l2 = p->l2_read_latency;
    uint64_t acp = 0, tmac;
    switch (fp->kind) {
    case PCCX_FP_DROPPED:
        break;
    case PCCX_FP_MEMSET:
        e = PCCX_ENG_MEMSET;
        xx = p->memset_cycles;
        break;
    case PCCX_FP_MEMCPY_H2L:
    case PCCX_FP_MEMCPY_L2H:
        /* host side over ACP (port A): no port B burst */
        e = PCCX_ENG_MEM;
        acp = pccx_tm_axi(p, ceil_div(16 * fp->words, p->acp_bytes_per_axi_cycle));
        xx = p->mem_setup_cycles + pccx_tm_t_ddr(p) + acp;
        if (fp->kind == PCCX_FP_MEMCPY_L2H)
            xx += l2;
        break;
    case PCCX_FP_MEMCPY_L2L:
        /* reads on port B, writes on port A */
        e = PCCX_ENG_MEM;
        rr = fp->words;
        xx = p->mem_setup_cycles + l2;
        break;
    case PCCX_FP_GEMV:
        e = PCCX_ENG_GEMV;
        rr = ceil_div(fp->K, 8) + (fp->accm ? ceil_div(fp->N, 8) : 0);
        tmac = ceil_div(fp->N * ceil_div(fp->K, p->gemv_lane_width),
                        gemv_lanes(p, fp->lane_mask));
        xx = l2 + max64(tmac, weight_time(p, fp)) + p->gemv_latency;
        ww = ceil_div(fp->N, 8);
        break;
    case PCCX_FP_GEMM:
        e = PCCX_ENG_GEMM;
        rr = ceil_div(fp->M * fp->K, 8) + (fp->accm ? ceil_div(fp->M * fp->N, 8) : 0);
        tmac = ceil_div(fp->K, p->gemm_rows) *
               ceil_div(fp->N, (uint64_t)p->gemm_cols * p->gemm_macs_per_pe) * fp->M;
        xx = l2 + max64(tmac, weight_time(p, fp)) + p->gemm_latency;
        ww = ceil_div(fp->M * fp->N, 8);
        break;
    case PCCX_FP_CVO:
        /* accm and VMUL also read the old destination */
        e = PCCX_ENG_CVO;
        rr = span(fp->cvo_src, fp->n_in);
        if (fp->accm || fp->func == PCCX_CVO_VMUL)
            rr += span(fp->cvo_dst, fp->n_out);
        xx = l2 + ceil_div(fp->n_in, p->cvo_cores) + p->cvo_overhead + cvo_latency(p, fp);
        ww = span(fp->cvo_dst, fp->n_out);
        break;
    }
    if (engine)
        *engine = e;
    if (r)
        *r = rr;
    if (x)
        *x = xx;
    if (w)
        *w = ww;
}

void pccx_fp_init(pccx_fp *fp, pccx_fp_kind kind)
{
    memset(fp, 0, sizeof *fp);
    fp->kind = kind;
    fp->cc_rd[0] = fp->cc_rd[1] = fp->cc_wr = -1;
}

/* ---- lifetime ----------------------------------------------------------------------------- */

static const char *check_params(const pccx_timing_t *p)
{
    if (!p->f_core_mhz || !p->f_axi_mhz)
        return "f_core_mhz and f_axi_mhz must be nonzero";
    if (!p->cmd_fifo_depth || p->cmd_fifo_depth > TM_MAX_DEPTH)
        return "cmd_fifo_depth must be 1..1048576";
    if (!p->engine_queue_depth || p->engine_queue_depth > TM_MAX_DEPTH)
        return "engine_queue_depth must be 1..1048576";
    if (!p->l2_port_words_per_cycle)
        return "l2_port_words_per_cycle must be nonzero";
    if (!p->acp_bytes_per_axi_cycle || !p->hp_bytes_per_axi_cycle)
        return "acp_bytes_per_axi_cycle and hp_bytes_per_axi_cycle must be nonzero";
    if (!(p->gemm_ports & 0xF) || (p->gemm_ports & ~0xFu) || !(p->gemv_ports & 0xF) ||
        (p->gemv_ports & ~0xFu))
        return "gemm_ports and gemv_ports must be nonempty masks of HP0..HP3 (0x1..0xF)";
    if (!p->gemv_lanes || !p->gemv_lane_width)
        return "gemv_lanes and gemv_lane_width must be nonzero";
    if (!p->gemm_rows || !p->gemm_cols || !p->gemm_macs_per_pe)
        return "gemm_rows, gemm_cols and gemm_macs_per_pe must be nonzero";
    if (!p->cvo_cores)
        return "cvo_cores must be nonzero";
    return NULL;
}

pccx_tm *pccx_tm_create(const pccx_timing_t *p, const char **why)
{
    const char *bad = check_params(p);
    if (bad) {
        if (why)
            *why = bad;
        return NULL;
    }
    pccx_tm *t = calloc(1, sizeof *t);
    if (t)
        t->ring = calloc((size_t)PCCX_N_ENGINES * p->engine_queue_depth, sizeof *t->ring);
    if (!t || !t->ring) {
        free(t);
        if (why)
            *why = "out of memory";
        return NULL;
    }
    t->p = *p;
    t->t_push = pccx_tm_axi(p, p->host_push_axi_cycles);
    t->t_ddr = pccx_tm_t_ddr(p);
    pccx_tm_reset(t);
    return t;
}

void pccx_tm_destroy(pccx_tm *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nblocks; i++)
        free(t->blocks[i]);
    free(t->blocks);
    free(t->live);
    free(t->ring);
    free(t);
}

void pccx_tm_reset(pccx_tm *t)
{
    /* allocations are kept for reuse */
    t->count = 0;
    t->nlive = 0;
    t->nundec = 0;
    memset(t->pushed, 0, sizeof t->pushed);
    memset(t->started, 0, sizeof t->started);
    memset(t->ndone, 0, sizeof t->ndone);
    memset(t->last_c, 0, sizeof t->last_c);
    t->host = t->now = 0;
    t->last_d = 0;
    t->have_d = 0;
    t->sync_pending = t->sync_cmax = 0;
    t->port_free = 0;
    memset(&t->tot, 0, sizeof t->tot);
}

const pccx_timing_t *pccx_tm_params(const pccx_tm *t)
{
    return &t->p;
}

/* ---- the event machinery ------------------------------------------------------------------ */

/* Resources of §11.4: L2 element ranges, host byte ranges, constant-cache entries, E_MAX. */
static int reads_what_writes(const pccx_fp *rd, const pccx_fp *wr)
{
    return overlap(rd->l2_rd[0], wr->l2_wr) || overlap(rd->l2_rd[1], wr->l2_wr) ||
           overlap(rd->host_rd, wr->host_wr) ||
           (wr->cc_wr >= 0 && (rd->cc_rd[0] == wr->cc_wr || rd->cc_rd[1] == wr->cc_wr)) ||
           (rd->emax_rd && wr->emax_wr);
}

static int writes_what_writes(const pccx_fp *a, const pccx_fp *b)
{
    return overlap(a->l2_wr, b->l2_wr) || overlap(a->host_wr, b->host_wr) ||
           (a->cc_wr >= 0 && a->cc_wr == b->cc_wr) || (a->emax_wr && b->emax_wr);
}

/* i conflicts with the earlier j (§11.4): i reads what j writes (RAW), i writes what j writes
 * (WAW) or i writes what j reads (WAR). */
static int conflicts(const pccx_fp *i, const pccx_fp *j)
{
    return reads_what_writes(i, j) || writes_what_writes(i, j) || reads_what_writes(j, i);
}

/* Does an earlier incomplete instruction conflict with live[pos]? The predecessor found is
 * remembered so that the scan is repeated only after it has completed. */
static int hazard_blocked(pccx_tm *t, size_t pos)
{
    tm_slot *s = &t->live[pos];
    if (s->haz_clear)
        return 0;
    if (s->blocker != TM_NONE && !rec_at(t, s->blocker)->done)
        return 1;
    for (size_t j = 0; j < pos; j++) {
        const tm_slot *o = &t->live[j];
        if (o->stage != ST_DONE && o->engine >= 0 && conflicts(&s->fp, &o->fp)) {
            s->blocker = o->idx;
            return 1;
        }
    }
    s->haz_clear = 1;  /* predecessors only complete; later pushes are successors */
    return 0;
}

/* §11.2 decode of the oldest undecoded instruction: d = max(a + 1, d_prev + decode_cycles,
 * q, y). Returns 0 while q (start of the instruction engine_queue_depth earlier on the same
 * engine) or y (completion of every earlier sync instruction) is still unknown. */
static int decode_time(const pccx_tm *t, const tm_slot *s, uint64_t *d, uint64_t *q,
                       uint64_t *y, uint64_t *base)
{
    uint64_t qd = t->p.engine_queue_depth, qv = 0;
    if (t->sync_pending)
        return 0;
    if (s->engine >= 0 && s->eord >= qd) {
        uint64_t k = s->eord - qd;
        if (t->started[s->engine] <= k)
            return 0;
        qv = t->ring[(size_t)s->engine * qd + k % qd];
    }
    *base = rec_at(t, s->idx)->a + 1;
    if (t->have_d)
        *base = max64(*base, t->last_d + t->p.decode_cycles);
    *q = qv;
    *y = t->sync_cmax;
    *d = max64(*base, max64(qv, *y));
    return 1;
}

/* §11.3 start: s = max(d + decode_cycles, c of the previous instruction on the engine, c of
 * every hazard predecessor). Returns 0 while not the engine's head or hazard-blocked; *base is
 * the time without the hazard term (the hazard term is the time the last one completes). */
static int start_ready(pccx_tm *t, size_t pos, uint64_t *base)
{
    tm_slot *s = &t->live[pos];
    if (s->stage != ST_DECODED || s->eord != t->ndone[s->engine] || hazard_blocked(t, pos))
        return 0;
    *base = max64(rec_at(t, s->idx)->d + t->p.decode_cycles, t->last_c[s->engine]);
    return 1;
}

/* Completion at `now`: the record becomes final and the totals of §11.5 take it in. */
static void complete(pccx_tm *t, tm_slot *s, uint64_t now)
{
    pccx_tm_rec *r = rec_at(t, s->idx);
    pccx_stats_t *st = &t->tot;
    r->c = now;
    r->done = 1;
    s->stage = ST_DONE;
    st->cycles = max64(st->cycles, now);
    st->stall_fifo_full += r->a - r->h;
    st->stall_queue_full += s->stall_queue;
    st->stall_sync_wait += s->stall_sync;
    if (s->engine < 0) {
        st->dropped++;
        return;
    }
    t->ndone[s->engine]++;
    t->last_c[s->engine] = now;
    st->engine_busy[s->engine] += r->c - r->s;
    st->engine_insns[s->engine]++;
    st->port_b_busy += s->rlen + s->wlen;
    st->hazard_wait += r->hazard_wait;
    if (s->fp.kind == PCCX_FP_MEMCPY_H2L || s->fp.kind == PCCX_FP_MEMCPY_L2H)
        st->acp_bytes += 16 * s->fp.words;
    if (s->fp.kind == PCCX_FP_GEMV || s->fp.kind == PCCX_FP_GEMM) {
        /* beats alternate over the engine's ports, starting with the lowest */
        unsigned ports = weight_ports(&t->p, s->fp.kind), np = popcount(ports), j = 0;
        uint64_t beats = weight_beats(&s->fp);
        for (unsigned port = 0; port < 4; port++) {
            if (!(ports & (1u << port)))
                continue;
            st->hp_bytes[port] += 16 * (beats / np + (j < beats % np));
            j++;
        }
    }
    if (s->sync) {
        t->sync_pending--;
        t->sync_cmax = max64(t->sync_cmax, now);
    }
}

/* §11.2 decode at `now`; a sync instruction holds back every later decode until it completes */
static void decode(pccx_tm *t, tm_slot *s, uint64_t now, uint64_t q, uint64_t y,
                   uint64_t base)
{
    pccx_tm_rec *r = rec_at(t, s->idx);
    r->d = now;
    t->last_d = now;
    t->have_d = 1;
    t->nundec--;
    /* each stall term counts only what it adds beyond all the other terms */
    s->stall_queue = q > max64(base, y) ? q - max64(base, y) : 0;
    s->stall_sync = y > max64(base, q) ? y - max64(base, q) : 0;
    if (s->engine < 0) {
        /* dropped: a and d only, c = d */
        r->s = r->r0 = r->r1 = r->x0 = r->x1 = r->w0 = r->w1 = now;
        complete(t, s, now);
        return;
    }
    s->stage = ST_DECODED;
    if (s->sync)
        t->sync_pending++;
}

/* §11.3 phases: R is requested at the start (none when r = 0), X follows R, W is requested at
 * the end of X (none when w = 0), and the instruction completes at the end of W or X. */
static void begin_x(tm_slot *s, pccx_tm_rec *r, uint64_t now)
{
    r->x0 = now;
    r->x1 = now + s->x;
    s->stage = ST_X;
}

static void start(pccx_tm *t, tm_slot *s, uint64_t now, uint64_t base)
{
    pccx_tm_rec *r = rec_at(t, s->idx);
    uint64_t qd = t->p.engine_queue_depth;
    r->s = now;
    r->hazard_wait = now > base ? now - base : 0;
    t->ring[(size_t)s->engine * qd + s->eord % qd] = now;
    t->started[s->engine]++;
    r->r0 = r->r1 = now;
    if (s->rlen) {
        s->req = now;
        s->stage = ST_RREQ;
    } else {
        begin_x(s, r, now);
    }
}

static void end_x(pccx_tm *t, tm_slot *s, uint64_t now)
{
    pccx_tm_rec *r = rec_at(t, s->idx);
    if (s->wlen) {
        s->req = now;
        s->stage = ST_WREQ;
    } else {
        r->w0 = r->w1 = now;
        complete(t, s, now);
    }
}

/* Port B (§11.3): when free, grant the pending burst with the earliest request time, ties in
 * program order (live[] is in program order). */
static int grant(pccx_tm *t, uint64_t now)
{
    tm_slot *best = NULL;
    if (t->port_free > now)
        return 0;
    for (size_t i = 0; i < t->nlive; i++) {
        tm_slot *s = &t->live[i];
        if ((s->stage == ST_RREQ || s->stage == ST_WREQ) && (!best || s->req < best->req))
            best = s;
    }
    if (!best)
        return 0;
    pccx_tm_rec *r = rec_at(t, best->idx);
    if (best->stage == ST_RREQ) {
        r->r0 = now;
        r->r1 = t->port_free = now + best->rlen;
        best->stage = ST_R;
    } else {
        r->w0 = now;
        r->w1 = t->port_free = now + best->wlen;
        best->stage = ST_W;
    }
    return 1;
}

/* The earliest time at or after `now` at which something can happen, TM_NONE if nothing. */
static uint64_t next_event(pccx_tm *t)
{
    uint64_t best = TM_NONE, first_undec = t->count - t->nundec;
    int pending = 0;
    for (size_t i = 0; i < t->nlive; i++) {
        tm_slot *s = &t->live[i];
        pccx_tm_rec *r = rec_at(t, s->idx);
        uint64_t ev = TM_NONE, q, y, base;
        switch (s->stage) {
        case ST_PUSHED:
            if (s->idx == first_undec && decode_time(t, s, &ev, &q, &y, &base) == 0)
                ev = TM_NONE;
            break;
        case ST_DECODED:
            if (!start_ready(t, i, &ev))
                ev = TM_NONE;
            break;
        case ST_RREQ:
        case ST_WREQ: pending = 1; break;
        case ST_R: ev = r->r1; break;
        case ST_X: ev = r->x1; break;
        case ST_W: ev = r->w1; break;
        default: break;
        }
        if (ev != TM_NONE && max64(ev, t->now) < best)
            best = max64(ev, t->now);
    }
    if (pending && max64(t->port_free, t->now) < best)
        best = max64(t->port_free, t->now);
    return best;
}

/* Everything that happens at time `now`: phase ends, decodes and starts until nothing more
 * changes (zero-length steps chain), then one port B grant (a burst lasts >= 1 cycle, so a
 * grant never enables anything else at `now`). Returns whether anything happened. */
static int process(pccx_tm *t, uint64_t now)
{
    int changed, any = 0;
    t->now = now;
    do {
        changed = 0;
        for (size_t i = 0; i < t->nlive; i++) {
            tm_slot *s = &t->live[i];
            pccx_tm_rec *r = rec_at(t, s->idx);
            uint64_t d, q, y, base;
            switch (s->stage) {
            case ST_PUSHED:
                if (s->idx == t->count - t->nundec && decode_time(t, s, &d, &q, &y, &base) &&
                    d <= now) {
                    decode(t, s, now, q, y, base);
                    changed = 1;
                }
                break;
            case ST_DECODED:
                if (start_ready(t, i, &base) && base <= now) {
                    start(t, s, now, base);
                    changed = 1;
                }
                break;
            case ST_R:
                if (r->r1 <= now) {
                    begin_x(s, r, now);
                    changed = 1;
                }
                break;
            case ST_X:
                if (r->x1 <= now) {
                    end_x(t, s, now);
                    changed = 1;
                }
                break;
            case ST_W:
                if (r->w1 <= now) {
                    complete(t, s, now);
                    changed = 1;
                }
                break;
            default: break;
            }
        }
        any |= changed;
    } while (changed);
    any |= grant(t, now);
    /* drop completed instructions, keeping issue order */
    size_t n = 0;
    for (size_t i = 0; i < t->nlive; i++)
        if (t->live[i].stage != ST_DONE)
            t->live[n++] = t->live[i];
    t->nlive = n;
    return any;
}

/* One step: process the next event time if it is <= limit. Returns 0 when there is none. */
static int step(pccx_tm *t, uint64_t limit)
{
    uint64_t ev = next_event(t);
    if (ev == TM_NONE || ev > limit)
        return 0;
    /* an event that changes nothing would be a model bug; stop rather than spin */
    return process(t, ev);
}

/* Make every event at times <= limit final. */
static void run_until(pccx_tm *t, uint64_t limit)
{
    while (step(t, limit))
        ;
}

/* ---- the interface ------------------------------------------------------------------------ */

static int reserve(pccx_tm *t)
{
    if (t->count == (uint64_t)t->nblocks * TM_BLOCK) {
        if (t->nblocks == t->blocks_cap) {
            size_t cap = t->blocks_cap ? 2 * t->blocks_cap : 16;
            pccx_tm_rec **b = realloc(t->blocks, cap * sizeof *b);
            if (!b)
                return -1;
            t->blocks = b;
            t->blocks_cap = cap;
        }
        t->blocks[t->nblocks] = malloc(TM_BLOCK * sizeof **t->blocks);
        if (!t->blocks[t->nblocks])
            return -1;
        t->nblocks++;
    }
    if (t->nlive == t->live_cap) {
        size_t cap = t->live_cap ? 2 * t->live_cap : 32;
        tm_slot *l = realloc(t->live, cap * sizeof *l);
        if (!l)
            return -1;
        t->live = l;
        t->live_cap = cap;
    }
    return 0;
}

int pccx_tm_push(pccx_tm *t, const pccx_fp *fp)
{
    uint64_t i = t->count, depth = t->p.cmd_fifo_depth, a = t->host, r, w;
    if (reserve(t))
        return -1;
    /* §11.2 FIFO rule: a_i = max(h_i, d_{i-depth} + 1); run until that entry is decoded */
    if (i >= depth) {
        while (i - depth >= t->count - t->nundec && step(t, TM_NONE))
            ;
        a = max64(a, rec_at(t, i - depth)->d + 1);
    }
    tm_slot *s = &t->live[t->nlive++];
    memset(s, 0, sizeof *s);
    s->fp = *fp;
    s->idx = i;
    s->blocker = TM_NONE;
    s->stage = ST_PUSHED;
    pccx_tm_phases(&t->p, fp, &s->engine, &r, &s->x, &w);
    s->rlen = ceil_div(r, t->p.l2_port_words_per_cycle);
    s->wlen = ceil_div(w, t->p.l2_port_words_per_cycle);
    s->sync = fp->sync && s->engine >= 0 &&
              (fp->kind == PCCX_FP_CVO || fp->kind == PCCX_FP_MEMCPY_H2L ||
               fp->kind == PCCX_FP_MEMCPY_L2H || fp->kind == PCCX_FP_MEMCPY_L2L);
    if (s->engine >= 0)
        s->eord = t->pushed[s->engine]++;
    pccx_tm_rec *rc = rec_at(t, i);
    memset(rc, 0, sizeof *rc);
    rc->h = t->host;
    rc->a = a;
    rc->engine = s->engine;
    rc->r = (unsigned)r;
    rc->w = (unsigned)w;
    t->count++;
    t->nundec++;
    t->host = sat_add(a, t->t_push);
    return 0;
}

uint64_t pccx_tm_count(const pccx_tm *t)
{
    return t->count;
}

uint64_t pccx_tm_host_clock(const pccx_tm *t)
{
    return t->host;
}

void pccx_tm_host_advance(pccx_tm *t, uint64_t cycles)
{
    t->host = sat_add(t->host, cycles);
}

uint64_t pccx_tm_drain_time(pccx_tm *t)
{
    run_until(t, TM_NONE);
    return t->tot.cycles;
}

int pccx_tm_sync(pccx_tm *t, uint64_t budget)
{
    /* only events up to the deadline become final: on a timeout the host may push again */
    uint64_t deadline = budget ? sat_add(t->host, budget) : TM_NONE;
    run_until(t, deadline);
    if (t->nlive) {
        t->host = deadline;
        return -1;
    }
    t->host = max64(t->host, t->tot.cycles);
    return 0;
}

uint32_t pccx_tm_status(pccx_tm *t)
{
    /* §11.5: BUSY iff something is undecoded or has c > host clock; DONE (sticky) iff the
     * machine went idle after the last push */
    run_until(t, t->host);
    if (t->nlive)
        return PCCX_STATUS_BUSY;
    return t->count ? PCCX_STATUS_DONE : 0;
}

void pccx_tm_occupancy(pccx_tm *t, uint64_t *fifo, uint64_t queued[PCCX_N_ENGINES],
                       uint64_t running[PCCX_N_ENGINES])
{
    run_until(t, t->host);
    *fifo = 0;
    memset(queued, 0, PCCX_N_ENGINES * sizeof *queued);
    memset(running, 0, PCCX_N_ENGINES * sizeof *running);
    for (size_t i = 0; i < t->nlive; i++) {
        const tm_slot *sl = &t->live[i];
        if (sl->stage == ST_PUSHED)
            ++*fifo;
        else if (sl->engine < 0 || sl->stage == ST_DONE)
            continue;
        else if (sl->stage == ST_DECODED)
            queued[sl->engine]++;
        else
            running[sl->engine]++;
    }
}

const pccx_tm_rec *pccx_tm_record(const pccx_tm *t, uint64_t i)
{
    return i < t->count ? rec_at(t, i) : NULL;
}

void pccx_tm_stats(const pccx_tm *t, pccx_stats_t *out)
{
    const pccx_stats_t *s = &t->tot;
    out->dropped = s->dropped;
    out->cycles = s->cycles;
    out->seconds = (double)s->cycles / ((double)t->p.f_core_mhz * 1e6);
    memcpy(out->engine_busy, s->engine_busy, sizeof out->engine_busy);
    memcpy(out->engine_insns, s->engine_insns, sizeof out->engine_insns);
    out->port_b_busy = s->port_b_busy;
    out->acp_bytes = s->acp_bytes;
    memcpy(out->hp_bytes, s->hp_bytes, sizeof out->hp_bytes);
    out->stall_fifo_full = s->stall_fifo_full;
    out->stall_queue_full = s->stall_queue_full;
    out->stall_sync_wait = s->stall_sync_wait;
    out->hazard_wait = s->hazard_wait;
}

/* ---- snapshots (docs/snapshot.md, section TIME) ------------------------------------------ */

static void put_range(npk_snap_writer *w, pccx_range r)
{
    npk_snap_u64(w, r.lo);
    npk_snap_u64(w, r.hi);
}

static void put_fp(npk_snap_writer *w, const pccx_fp *f)
{
    npk_snap_u32(w, (uint32_t)f->kind);
    npk_snap_u8(w, (uint8_t)(f->sync != 0));
    npk_snap_u64(w, f->words);
    npk_snap_u64(w, f->M);
    npk_snap_u64(w, f->K);
    npk_snap_u64(w, f->N);
    npk_snap_u32(w, f->lane_mask);
    npk_snap_u8(w, (uint8_t)(f->accm != 0));
    npk_snap_u8(w, (uint8_t)(f->weight_view != 0));
    npk_snap_u32(w, f->func);
    npk_snap_u8(w, (uint8_t)(f->recip_scale != 0));
    npk_snap_u64(w, f->cvo_src);
    npk_snap_u64(w, f->n_in);
    npk_snap_u64(w, f->cvo_dst);
    npk_snap_u64(w, f->n_out);
    put_range(w, f->l2_rd[0]);
    put_range(w, f->l2_rd[1]);
    put_range(w, f->l2_wr);
    put_range(w, f->host_rd);
    put_range(w, f->host_wr);
    npk_snap_u32(w, (uint32_t)f->cc_rd[0]);
    npk_snap_u32(w, (uint32_t)f->cc_rd[1]);
    npk_snap_u32(w, (uint32_t)f->cc_wr);
    npk_snap_u8(w, (uint8_t)(f->emax_rd != 0));
    npk_snap_u8(w, (uint8_t)(f->emax_wr != 0));
}

static pccx_range get_range(npk_snap_cursor *c)
{
    pccx_range r;
    r.lo = npk_snap_get_u64(c);
    r.hi = npk_snap_get_u64(c);
    return r;
}

static int get_fp(npk_snap_cursor *c, pccx_fp *f)
{
    memset(f, 0, sizeof *f);
    uint32_t kind = npk_snap_get_u32(c);
    f->kind = kind <= PCCX_FP_CVO ? (pccx_fp_kind)kind : PCCX_FP_DROPPED;
    f->sync = npk_snap_get_u8(c);
    f->words = npk_snap_get_u64(c);
    f->M = npk_snap_get_u64(c);
    f->K = npk_snap_get_u64(c);
    f->N = npk_snap_get_u64(c);
    f->lane_mask = npk_snap_get_u32(c);
    f->accm = npk_snap_get_u8(c);
    f->weight_view = npk_snap_get_u8(c);
    f->func = npk_snap_get_u32(c);
    f->recip_scale = npk_snap_get_u8(c);
    f->cvo_src = npk_snap_get_u64(c);
    f->n_in = npk_snap_get_u64(c);
    f->cvo_dst = npk_snap_get_u64(c);
    f->n_out = npk_snap_get_u64(c);
    f->l2_rd[0] = get_range(c);
    f->l2_rd[1] = get_range(c);
    f->l2_wr = get_range(c);
    f->host_rd = get_range(c);
    f->host_wr = get_range(c);
    int32_t cc[3];
    for (int i = 0; i < 3; i++)
        cc[i] = (int32_t)npk_snap_get_u32(c);
    f->cc_rd[0] = cc[0];
    f->cc_rd[1] = cc[1];
    f->cc_wr = cc[2];
    f->emax_rd = npk_snap_get_u8(c);
    f->emax_wr = npk_snap_get_u8(c);
    for (int i = 0; i < 3; i++)
        if (cc[i] < -1 || cc[i] >= (int32_t)(2 * PCCX_CC_ENTRIES))
            return 0;
    return kind <= PCCX_FP_CVO && f->sync <= 1 && f->accm <= 1 && f->weight_view <= 1 &&
           f->recip_scale <= 1 && f->emax_rd <= 1 && f->emax_wr <= 1;
}

/* Bytes of one record and one in-flight slot in the section (for the count checks). */
#define REC_BYTES (11 * 8 + 4 + 4 + 4 + 8 + 1)
#define FP_BYTES (4 + 1 + 4 * 8 + 4 + 1 + 1 + 4 + 1 + 4 * 8 + 10 * 8 + 3 * 4 + 2)
#define SLOT_BYTES (FP_BYTES + 2 * 8 + 5 * 8 + 8 + 1 + 2 * 8 + 4 + 1 + 4)

void pccx_tm_save(const pccx_tm *t, npk_snap_writer *w)
{
    const pccx_stats_t *s = &t->tot;
    npk_snap_begin(w, "TIME");
    npk_snap_u64(w, t->count);
    for (uint64_t i = 0; i < t->count; i++) {
        const pccx_tm_rec *r = rec_at(t, i);
        const uint64_t v[11] = {r->h, r->a, r->d, r->s, r->c, r->r0, r->r1, r->w0, r->w1,
                                r->x0, r->x1};
        for (int k = 0; k < 11; k++)
            npk_snap_u64(w, v[k]);
        npk_snap_u32(w, (uint32_t)r->engine);
        npk_snap_u32(w, r->r);
        npk_snap_u32(w, r->w);
        npk_snap_u64(w, r->hazard_wait);
        npk_snap_u8(w, (uint8_t)(r->done != 0));
    }
    npk_snap_u64(w, t->nlive);
    npk_snap_u64(w, t->nundec);
    for (size_t i = 0; i < t->nlive; i++) {
        const tm_slot *sl = &t->live[i];
        put_fp(w, &sl->fp);
        npk_snap_u64(w, sl->idx);
        npk_snap_u64(w, sl->eord);
        npk_snap_u64(w, sl->rlen);
        npk_snap_u64(w, sl->wlen);
        npk_snap_u64(w, sl->x);
        npk_snap_u64(w, sl->req);
        npk_snap_u64(w, sl->blocker);
        npk_snap_u8(w, (uint8_t)(sl->haz_clear != 0));
        npk_snap_u64(w, sl->stall_queue);
        npk_snap_u64(w, sl->stall_sync);
        npk_snap_u32(w, (uint32_t)sl->engine);
        npk_snap_u8(w, (uint8_t)(sl->sync != 0));
        npk_snap_u32(w, (uint32_t)sl->stage);
    }
    for (int e = 0; e < PCCX_N_ENGINES; e++) {
        npk_snap_u64(w, t->pushed[e]);
        npk_snap_u64(w, t->started[e]);
        npk_snap_u64(w, t->ndone[e]);
        npk_snap_u64(w, t->last_c[e]);
    }
    for (size_t i = 0; i < (size_t)PCCX_N_ENGINES * t->p.engine_queue_depth; i++)
        npk_snap_u64(w, t->ring[i]);
    const uint64_t clk[7] = {t->host, t->now, t->last_d, (uint64_t)(t->have_d != 0),
                             t->sync_pending, t->sync_cmax, t->port_free};
    for (int k = 0; k < 7; k++)
        npk_snap_u64(w, clk[k]);
    npk_snap_u64(w, s->cycles);
    npk_snap_u64(w, s->dropped);
    for (int e = 0; e < PCCX_N_ENGINES; e++) {
        npk_snap_u64(w, s->engine_busy[e]);
        npk_snap_u64(w, s->engine_insns[e]);
    }
    npk_snap_u64(w, s->port_b_busy);
    npk_snap_u64(w, s->acp_bytes);
    for (int p = 0; p < 4; p++)
        npk_snap_u64(w, s->hp_bytes[p]);
    npk_snap_u64(w, s->stall_fifo_full);
    npk_snap_u64(w, s->stall_queue_full);
    npk_snap_u64(w, s->stall_sync_wait);
    npk_snap_u64(w, s->hazard_wait);
    npk_snap_end(w);
}

#define BAD(...) (snprintf(why, why_len, __VA_ARGS__), -1)

int pccx_tm_load(pccx_tm *t, npk_snap_cursor *c, int apply, char *why, size_t why_len)
{
    uint64_t count = npk_snap_get_u64(c);
    if (c->bad || count > c->left / REC_BYTES)
        return BAD("%llu instruction records do not fit the section", (unsigned long long)count);
    pccx_tm_rec *recs = malloc((count ? (size_t)count : 1) * sizeof *recs);
    tm_slot *live = NULL;
    uint64_t *ring = NULL;
    size_t nring = (size_t)PCCX_N_ENGINES * t->p.engine_queue_depth;
    int rc = -2;
    if (!recs)
        goto out;
    for (uint64_t i = 0; i < count; i++) {
        pccx_tm_rec *r = &recs[i];
        memset(r, 0, sizeof *r);
        uint64_t *v[11] = {&r->h, &r->a, &r->d, &r->s, &r->c, &r->r0, &r->r1, &r->w0, &r->w1,
                           &r->x0, &r->x1};
        for (int k = 0; k < 11; k++)
            *v[k] = npk_snap_get_u64(c);
        r->engine = (int32_t)npk_snap_get_u32(c);
        r->r = npk_snap_get_u32(c);
        r->w = npk_snap_get_u32(c);
        r->hazard_wait = npk_snap_get_u64(c);
        r->done = npk_snap_get_u8(c);
        if (r->engine < -1 || r->engine >= PCCX_N_ENGINES || r->done > 1) {
            rc = BAD("instruction %llu: engine %d, done %d", (unsigned long long)i, r->engine,
                     r->done);
            goto out;
        }
    }
    uint64_t nlive = npk_snap_get_u64(c), nundec = npk_snap_get_u64(c);
    if (c->bad || nlive > count || nundec > nlive || nlive > c->left / SLOT_BYTES) {
        rc = BAD("%llu instructions in flight (%llu not decoded) of %llu",
                 (unsigned long long)nlive, (unsigned long long)nundec,
                 (unsigned long long)count);
        goto out;
    }
    size_t cap = nlive > 32 ? (size_t)nlive : 32;
    live = malloc(cap * sizeof *live);
    ring = malloc(nring * sizeof *ring);
    if (!live || !ring) {
        rc = -2;
        goto out;
    }
    for (uint64_t j = 0; j < nlive; j++) {
        tm_slot *sl = &live[j];
        memset(sl, 0, sizeof *sl);
        int fp_ok = get_fp(c, &sl->fp);
        sl->idx = npk_snap_get_u64(c);
        sl->eord = npk_snap_get_u64(c);
        sl->rlen = npk_snap_get_u64(c);
        sl->wlen = npk_snap_get_u64(c);
        sl->x = npk_snap_get_u64(c);
        sl->req = npk_snap_get_u64(c);
        sl->blocker = npk_snap_get_u64(c);
        sl->haz_clear = npk_snap_get_u8(c);
        sl->stall_queue = npk_snap_get_u64(c);
        sl->stall_sync = npk_snap_get_u64(c);
        sl->engine = (int32_t)npk_snap_get_u32(c);
        sl->sync = npk_snap_get_u8(c);
        uint32_t stage = npk_snap_get_u32(c);
        sl->stage = stage <= ST_DONE ? (int)stage : ST_DONE;
        int undecoded = j >= nlive - nundec;
        if (c->bad)
            break;
        if (!fp_ok || sl->idx >= count || (j && sl->idx <= live[j - 1].idx) ||
            stage > ST_DONE || sl->engine < -1 || sl->engine >= PCCX_N_ENGINES ||
            sl->engine != recs[sl->idx].engine ||
            (sl->blocker != TM_NONE && sl->blocker >= sl->idx) || sl->haz_clear > 1 ||
            sl->sync > 1 || (stage == ST_PUSHED) != undecoded ||
            (undecoded && sl->idx != count - nlive + j)) {
            rc = BAD("in-flight instruction %llu (issue index %llu, stage %u) is inconsistent",
                     (unsigned long long)j, (unsigned long long)sl->idx, stage);
            goto out;
        }
    }
    uint64_t pushed[PCCX_N_ENGINES], started[PCCX_N_ENGINES], ndone[PCCX_N_ENGINES],
        last_c[PCCX_N_ENGINES];
    for (int e = 0; e < PCCX_N_ENGINES; e++) {
        pushed[e] = npk_snap_get_u64(c);
        started[e] = npk_snap_get_u64(c);
        ndone[e] = npk_snap_get_u64(c);
        last_c[e] = npk_snap_get_u64(c);
        if (!c->bad && (ndone[e] > started[e] || started[e] > pushed[e] || pushed[e] > count)) {
            rc = BAD("engine %d: %llu pushed, %llu started, %llu done", e,
                     (unsigned long long)pushed[e], (unsigned long long)started[e],
                     (unsigned long long)ndone[e]);
            goto out;
        }
    }
    for (size_t i = 0; i < nring; i++)
        ring[i] = npk_snap_get_u64(c);
    uint64_t clk[7];
    for (int k = 0; k < 7; k++)
        clk[k] = npk_snap_get_u64(c);
    pccx_stats_t tot;
    memset(&tot, 0, sizeof tot);
    tot.cycles = npk_snap_get_u64(c);
    tot.dropped = npk_snap_get_u64(c);
    for (int e = 0; e < PCCX_N_ENGINES; e++) {
        tot.engine_busy[e] = npk_snap_get_u64(c);
        tot.engine_insns[e] = npk_snap_get_u64(c);
    }
    tot.port_b_busy = npk_snap_get_u64(c);
    tot.acp_bytes = npk_snap_get_u64(c);
    for (int p = 0; p < 4; p++)
        tot.hp_bytes[p] = npk_snap_get_u64(c);
    tot.stall_fifo_full = npk_snap_get_u64(c);
    tot.stall_queue_full = npk_snap_get_u64(c);
    tot.stall_sync_wait = npk_snap_get_u64(c);
    tot.hazard_wait = npk_snap_get_u64(c);
    if (c->bad) {
        rc = BAD("the section is cut short");
        goto out;
    }
    if (clk[3] > 1 || clk[4] > nlive) {
        rc = BAD("front-end state out of range (have_d %llu, %llu sync waits)",
                 (unsigned long long)clk[3], (unsigned long long)clk[4]);
        goto out;
    }
    rc = 0;
    if (!apply)
        goto out;
    /* the new record blocks, before anything is written */
    size_t nb = (size_t)((count + TM_BLOCK - 1) / TM_BLOCK), bcap = nb > 16 ? nb : 16;
    pccx_tm_rec **blocks = calloc(bcap, sizeof *blocks);
    for (size_t b = 0; blocks && b < nb; b++)
        if (!(blocks[b] = malloc(TM_BLOCK * sizeof **blocks))) {
            for (size_t k = 0; k < b; k++)
                free(blocks[k]);
            free(blocks);
            blocks = NULL;
        }
    if (!blocks) {
        rc = -2;
        goto out;
    }
    for (uint64_t i = 0; i < count; i++)
        blocks[i >> TM_BLOCK_BITS][i & (TM_BLOCK - 1)] = recs[i];
    for (size_t b = 0; b < t->nblocks; b++)
        free(t->blocks[b]);
    free(t->blocks);
    t->blocks = blocks;
    t->nblocks = nb;
    t->blocks_cap = bcap;
    t->count = count;
    free(t->live);
    t->live = live;
    live = NULL;
    t->nlive = (size_t)nlive;
    t->live_cap = cap;
    t->nundec = nundec;
    memcpy(t->pushed, pushed, sizeof pushed);
    memcpy(t->started, started, sizeof started);
    memcpy(t->ndone, ndone, sizeof ndone);
    memcpy(t->last_c, last_c, sizeof last_c);
    memcpy(t->ring, ring, nring * sizeof *ring);
    t->host = clk[0];
    t->now = clk[1];
    t->last_d = clk[2];
    t->have_d = (int)clk[3];
    t->sync_pending = clk[4];
    t->sync_cmax = clk[5];
    t->port_free = clk[6];
    t->tot = tot;
out:
    free(recs);
    free(live);
    free(ring);
    return rc;
}
