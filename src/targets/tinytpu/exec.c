/* tinytpu: one clock edge of the family-A RTL (shared/spec/tinytpu.md A12), stepped for every
 * cycle of the program, and the run loop with its observers (trace lines of B8, statistics,
 * timeline, VCD). Every Q8.8 rule is a call into src/num (A3). */
#include <stdlib.h>
#include <string.h>

#include "core/obs.h"
#include "num/num.h"
#include "targets/tinytpu/machine.h"

enum { OK = 0, STOPPED = 1 };

/* step_n() is instantiated for N = 2 with a constant N (the RTL's size), so it must inline. */
#if defined(__GNUC__)
#define TT_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define TT_ALWAYS_INLINE static inline
#endif
enum { SRC_HOST, SRC_VPU, SRC_GD };

static inline int16_t sv(uint16_t x)
{
    return (int16_t)(x < 0x8000u ? (int)x : (int)x - 65536);
}
static inline uint16_t uv(int16_t x)
{
    return (uint16_t)x;
}
static inline uint16_t qmul(uint16_t a, uint16_t b)
{
    return uv(npk_q88_mul_half_up(sv(a), sv(b)));
}
static inline uint16_t qadd(uint16_t a, uint16_t b)
{
    return uv(npk_q88_add_sat(sv(a), sv(b)));
}
static inline uint16_t qsub(uint16_t a, uint16_t b)
{
    return uv(npk_q88_sub_sat(sv(a), sv(b)));
}

/* ---- out-of-range accesses (C1) ------------------------------------------------------------ */

static int range_error(npk_machine *m, tt_state *s, npk_stop *stop, uint64_t k, int64_t addr,
                       int write, const char *source)
{
    (void)m;
    npk_stop_set(stop, NPK_STOP_FAULT, s->pc,
                 "tinytpu: cycle %llu: UB %s out of range: address %lld (%s), UB size %u",
                 (unsigned long long)k, write ? "write" : "read", (long long)addr, source,
                 s->ub_words);
    return STOPPED;
}

#if defined(__GNUC__)
#define TT_COLD __attribute__((cold, noinline))
#define TT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define TT_COLD
#define TT_UNLIKELY(x) (x)
#endif

static TT_COLD int read_error(npk_machine *m, tt_state *s, npk_stop *stop, uint64_t k,
                              int64_t a, unsigned chan, unsigned lane)
{
    char src[64];
    snprintf(src, sizeof src, "%s channel, lane %u", tt_channel_names[chan], lane);
    return range_error(m, s, stop, k, a, 0, src);
}

/* A memory read by a channel lane: checks the range first. */
#define UB_READ(chan, lane, a, dst)                                                             \
    do {                                                                                        \
        int64_t a_ = (a);                                                                       \
        if (TT_UNLIKELY(a_ < 0 || a_ >= (int64_t)ub_words))                                     \
            return read_error(m, s, stop, k, a_, chan, (unsigned)(lane));                       \
        (dst) = ub[a_];                                                                         \
        if (TT_UNLIKELY(obs && s->trace_reads)) {                                               \
            s->rd_ch[s->n_rd] = (uint8_t)(chan), s->rd_lane[s->n_rd] = (uint16_t)(lane);        \
            s->rd_addr[s->n_rd] = (int32_t)a_, s->rd_val[s->n_rd++] = s->ub[a_];                \
        }                                                                                       \
    } while (0)

/* A lane's read that happens only when `on` (0 or 1), without a branch on `on`: the address is
 * range-checked (C1) only for a real access, the value is 0 otherwise (an inactive lane writes
 * 0 to its register). */
#define UB_READ_IF(on, chan, lane, a, dst)                                                      \
    do {                                                                                        \
        int64_t a_ = (a);                                                                       \
        unsigned on_ = (on), in_ = a_ >= 0 && a_ < (int64_t)ub_words;                          \
        if (TT_UNLIKELY(on_ & !in_))                                                            \
            return read_error(m, s, stop, k, a_, chan, (unsigned)(lane));                       \
        uint16_t v_ = ub[in_ ? (size_t)a_ : 0];                                                 \
        (dst) = (uint16_t)(v_ & -(uint16_t)on_);                                                \
        if (TT_UNLIKELY(obs && s->trace_reads && on_)) {                                        \
            s->rd_ch[s->n_rd] = (uint8_t)(chan), s->rd_lane[s->n_rd] = (uint16_t)(lane);        \
            s->rd_addr[s->n_rd] = (int32_t)a_, s->rd_val[s->n_rd++] = v_;                       \
        }                                                                                       \
    } while (0)

static inline unsigned lane_on(const tt_chan *c, unsigned i)
{
    return (unsigned)(i <= c->t) & (unsigned)(c->t < (uint32_t)c->R + i) & (unsigned)(i < c->C);
}

/* ---- A8: position of (r, c) of an R x C matrix in skew order -------------------------------- */

static int64_t skew_pos(int64_t R, int64_t C, int64_t r, int64_t c)
{
    int64_t d = r + c, pos = 0;
    for (int64_t e = 0; e < d; e++) {
        int64_t lo = e - C + 1 > 0 ? e - C + 1 : 0, hi = e < R - 1 ? e : R - 1;
        if (hi >= lo)
            pos += hi - lo + 1;
    }
    return pos + r - (d - C + 1 > 0 ? d - C + 1 : 0);
}

/* ---- A7.8: read issue ---------------------------------------------------------------------- */

static int issue(npk_machine *m, tt_state *s, const tt_cycle *w, uint64_t k, npk_stop *stop)
{
    unsigned sel = w->sel;
    if (sel >= TT_N_CHANNELS)
        return OK;
    if ((uint32_t)w->rows + w->cols >= 65536u) { /* C4.3 */
        npk_stop_set(stop, NPK_STOP_FAULT, s->pc,
                     "tinytpu: cycle %llu: read on the %s channel with rows + cols = %u: at least "
                     "65536 would wrap the RTL's 16-bit counters",
                     (unsigned long long)k, tt_channel_names[sel], (unsigned)w->rows + w->cols);
        return STOPPED;
    }
    (void)m;
    tt_chan *c = &s->ch[sel];
    memset(c, 0, sizeof *c);
    s->ch_dirty |= 1u << sel;
    c->addr = w->addr, c->rows = w->rows, c->cols = w->cols;
    switch (sel) {
    case TT_CH_INPUT:
        c->ptr = w->addr;
        c->T = w->T;
        c->R = w->T ? w->cols : w->rows;
        c->C = w->T ? w->rows : w->cols;
        break;
    case TT_CH_WEIGHT:
        c->T = w->T;
        c->skip = (uint16_t)(w->cols + 1);
        if (w->T) {
            c->R = w->cols, c->C = w->rows;
            c->ptr = (int16_t)(uint16_t)(w->addr + w->cols - 1);
        } else {
            c->R = w->rows, c->C = w->cols;
            c->ptr = (int16_t)(uint16_t)(w->addr + (uint16_t)(w->rows * w->cols) - w->cols);
        }
        s->cs_flag = 1;
        s->cs_val = w->T ? w->rows : w->cols;
        break;
    case TT_CH_GBIAS:
    case TT_CH_GWEIGHT:
        s->mode = sel == TT_CH_GWEIGHT;
        s->gptr = w->addr;
        /* fall through */
    default:
        c->ptr = w->addr;
        c->R = w->rows, c->C = w->cols;
        break;
    }
    s->ch_live = (s->ch_live & ~(1u << sel)) | (unsigned)(1u < (uint32_t)c->R + c->C) << sel;
    return OK;
}

static inline int lane_active(const tt_chan *c, unsigned i)
{
    return i <= c->t && c->t < (uint32_t)c->R + i && i < c->C;
}

/* 3. The VPU lanes during the cycle (A9.2) and the stage registers' next values (A9.3), for
 *    pathway p (a constant in each copy). Returns whether any lane's output is valid. */
TT_ALWAYS_INLINE unsigned vpu_lanes(tt_state *s, const tt_pe *bottom, const unsigned N,
                                    const unsigned p, const uint16_t alpha, const uint16_t q)
{
    unsigned any_out = 0;
    unsigned nz = 0;
    for (unsigned i = 0; i < N; i++) {
        uint16_t d = bottom[i].psum;
        uint8_t v = bottom[i].vout;
        uint16_t x1d = p & TT_PW_BIAS ? s->st_d[0][i] : d;
        uint8_t x1v = p & TT_PW_BIAS ? s->st_v[0][i] : v;
        uint16_t x2d = p & TT_PW_LRELU ? s->st_d[1][i] : x1d;
        uint8_t x2v = p & TT_PW_LRELU ? s->st_v[1][i] : x1v;
        uint16_t x3d = p & TT_PW_LOSS ? s->st_d[2][i] : x2d;
        uint8_t x3v = p & TT_PW_LOSS ? s->st_v[2][i] : x2v;
        s->out_d[i] = p & TT_PW_DERIV ? s->st_d[3][i] : x3d;
        s->out_v[i] = p & TT_PW_DERIV ? s->st_v[3][i] : x3v;
        any_out |= s->out_v[i];
        uint16_t lrel_now = s->st_d[1][i];
        /* BIAS, LREL, LOSS, DERIV, lastH: each computed, then masked by its valid (valid
         * bits change from cycle to cycle, so no branches on them) */
        unsigned b_on = (unsigned)((p >> 3) & 1) & v;
        uint16_t bias = (uint16_t)(qadd(d, s->bias_r[i]) & -(uint16_t)b_on);
        unsigned l_on = (unsigned)((p >> 2) & 1) & x1v;
        uint16_t lrelu = (uint16_t)((sv(x1d) >= 0 ? x1d : qmul(x1d, alpha)) &
                                    -(uint16_t)l_on);
        uint16_t loss = qmul(qsub(p & TT_PW_LOSS ? x2d : 0, s->y_r[i]), q);
        uint8_t loss_v = p & TT_PW_LOSS ? x2v : 0;
        uint16_t hsel = p & TT_PW_LOSS ? s->lastH[i] : s->h_r[i];
        uint16_t deriv = (uint16_t)((sv(hsel) >= 0 ? x3d : qmul(x3d, alpha)) &
                                    -(uint16_t)x3v);
        uint16_t lasth = p & TT_PW_LOSS ? lrel_now : 0;
        s->st_d[0][i] = bias, s->st_v[0][i] = (uint8_t)b_on;
        s->st_d[1][i] = lrelu, s->st_v[1][i] = (uint8_t)l_on;
        s->st_d[2][i] = loss, s->st_v[2][i] = loss_v;
        s->st_d[3][i] = deriv, s->st_v[3][i] = x3v;
        s->lastH[i] = lasth;
        nz |= b_on | l_on | loss_v | x3v | bias | lrelu | loss | deriv | lasth;
    }
    s->vpu_quiet = !nz;
    return any_out;
}

/* ---- one edge ------------------------------------------------------------------------------- */

static void trace_edge(tt_state *s, FILE *f, uint64_t k, unsigned nw);

/* Step cycle k (1-based) with record w, for N lanes (a constant where the caller can make it
 * one, so that the lane loops unroll). Returns OK or STOPPED (stop set: an out-of-range access
 * (C1) or an over-long read; the UB keeps its contents from before the edge, registers may be
 * part-way through it, and the cycle does not count as done). The order is A12's; values computed from the state during the cycle are either
 * consumed before the register they come from is rewritten or kept in locals. obs: NULL in
 * the fast loop. */
TT_ALWAYS_INLINE int step_n(npk_machine *m, tt_state *s, const tt_cycle *w, uint64_t k,
                         npk_stop *stop, npk_obs *obs, const unsigned N)
{
    if (w->rst) {
        tt_reset_state(s);
        if (obs)
            obs->extra[TT_X_RESETS]++;
        return OK;
    }
    const unsigned p = w->pathway;
    const uint16_t alpha = w->leak, q = w->inv, lr = w->lr;
    const uint16_t *const ub = s->ub;
    const uint32_t ub_words = s->ub_words;
    if (obs)
        s->n_rd = 0; /* trace_reads' R lines of this edge */

    /* 1. issue and the column-size flag */
    int issued = 0;
    if (w->start) {
        uint16_t *F = s->prevF;
        if (!F[0] || F[1] != w->sel || F[2] != w->T || F[3] != w->addr || F[4] != w->rows ||
            F[5] != w->cols) {
            if (issue(m, s, w, k, stop) == STOPPED)
                return STOPPED;
            issued = w->sel < TT_N_CHANNELS;
            F[0] = 1, F[1] = w->sel, F[2] = w->T, F[3] = w->addr, F[4] = w->rows, F[5] = w->cols;
        }
    } else {
        s->cs_flag = 0;
        s->prevF[0] = 0; /* F_k with start = 0 differs from any F with start = 1 */
    }
    const uint8_t cs_flag = s->cs_flag;

    /* 2. PE(0,0)'s latch is open while this word's switch bit is 1 */
    if (w->sw)
        s->pe[0].active = s->pe[0].shadow;

    /* 3. the VPU chain during the cycle (A9.2) and the stage registers' next values (A9.3),
     *    lane by lane (lanes are independent; out[] keeps the output for 4a and 4c) */
    const tt_pe *bottom = s->pe + (size_t)(N - 1) * N;
    int any_out = 0;
    int vpu_skip = 0;
    if (s->vpu_quiet && s->gating) {
        unsigned vpu_in = 0; /* anything entering: a bottom-row valid or psum, a Y register */
        for (unsigned i = 0; i < N; i++)
            vpu_in |= bottom[i].vout | bottom[i].psum | s->y_r[i];
        vpu_skip = !vpu_in; /* then LOSS stays 0 too */
    }
    if (vpu_skip) {
        for (unsigned i = 0; i < N; i++)
            s->out_v[i] = 0;
    } else {
        /* one copy of the lanes per pathway (a level, constant over a pass): the stages a
         * pathway bypasses cost nothing */
        switch (p & 15) {
#define TT_VPU_CASE(pw)                                                                          \
    case pw: any_out = vpu_lanes(s, bottom, N, pw, alpha, q); break;
            TT_VPU_CASE(0) TT_VPU_CASE(1) TT_VPU_CASE(2) TT_VPU_CASE(3) TT_VPU_CASE(4)
            TT_VPU_CASE(5) TT_VPU_CASE(6) TT_VPU_CASE(7) TT_VPU_CASE(8) TT_VPU_CASE(9)
            TT_VPU_CASE(10) TT_VPU_CASE(11) TT_VPU_CASE(12) TT_VPU_CASE(13) TT_VPU_CASE(14)
            default: any_out = vpu_lanes(s, bottom, N, 15, alpha, q); break;
#undef TT_VPU_CASE
        }
    }

    /* 4a. the UB write list: appends (lanes N-1 .. 0; the VPU wins a lane over the host),
     *     then GD write-backs from the GD registers during the cycle */
    unsigned nw = 0;
    uint32_t wp = s->wp;
    if (any_out || w->n_host) {
        const tt_hostw *hw = w->n_host ? s->prog.hw + w->host : NULL;
        for (unsigned i = N; i-- > 0;) {
            if (s->out_v[i]) {
                s->wr_addr[nw] = wp++, s->wr_val[nw] = s->out_d[i], s->wr_src[nw] = SRC_VPU;
                s->wr_lane[nw++] = (uint16_t)i;
                continue;
            }
            for (unsigned h = 0; h < w->n_host; h++)
                if (hw[h].lane == i) {
                    s->wr_addr[nw] = wp++, s->wr_val[nw] = hw[h].value;
                    s->wr_src[nw] = SRC_HOST, s->wr_lane[nw++] = (uint16_t)i;
                    break;
                }
        }
        for (unsigned i = 0; i < nw; i++)
            if (s->wr_addr[i] >= s->ub_words) {
                char src[64];
                snprintf(src, sizeof src, "%s append, lane %u",
                         s->wr_src[i] == SRC_VPU ? "VPU" : "host", s->wr_lane[i]);
                return range_error(m, s, stop, k, s->wr_addr[i], 1, src);
            }
    }
    uint16_t gptr = s->gptr;
    for (unsigned j = 0; j < N && s->gd_busy; j++) {
        unsigned i = s->mode ? N - 1 - j : j; /* weight mode: lanes N-1 .. 0 */
        if (!s->done[i])
            continue;
        uint32_t a = s->mode ? gptr++ : (uint16_t)(gptr + i);
        if (a >= s->ub_words) {
            char src[64];
            snprintf(src, sizeof src, "GD write-back, lane %u", i);
            return range_error(m, s, stop, k, a, 1, src);
        }
        s->wr_addr[nw] = a, s->wr_val[nw] = s->upd[i], s->wr_src[nw] = SRC_GD;
        s->wr_lane[nw++] = (uint16_t)i;
    }

    /* 4b comes after 4c and 4d: the channel beats rewrite the output registers that the GD
     *    units and the PEs read during the cycle. */
    unsigned beats = 0;
    tt_chan *ch = s->ch;
    /* which channels do a beat at this edge (kept as a mask: issue and every beat update it) */
    const unsigned act_bits = s->ch_live; /* bit c set iff t + 1 < R + C for channel c */
#define ACT(ci) (act_bits >> (ci) & 1)
#define RELIVE(ci, c)                                                                          \
    (s->ch_live = (s->ch_live & ~(1u << (ci))) |                                             \
                  (unsigned)((uint32_t)(c)->t + 1 < (uint32_t)(c)->R + (c)->C) << (ci))

    /* 4c. GD units (A10), from the values during the cycle (per lane, in place). With no VPU
     *     beat and nothing done they stay at rest (done = 0, upd = 0). */
    if (any_out || s->gd_busy) {
        const tt_chan *c5 = &s->ch[TT_CH_GBIAS], *c6 = &s->ch[TT_CH_GWEIGHT];
        unsigned window = c5->t < (uint16_t)(c5->R + c5->C) || c6->t < (uint16_t)(c6->R + c6->C);
        unsigned busy = 0;
        for (unsigned i = 0; i < N; i++) {
            uint8_t gv = (uint8_t)(window & s->out_v[i]);
            uint16_t a = (s->mode == 0 && s->done[i]) ? s->upd[i] : s->old_r[i];
            s->upd[i] = (uint16_t)(qsub(a, qmul(s->out_d[i], lr)) & -(uint16_t)gv);
            s->done[i] = gv;
            busy |= gv;
        }
        s->gd_busy = (uint8_t)busy;
    }

    /* 4d. the PEs (A4.2), using E, the input and weight registers during the cycle; written
     *     with masks rather than branches (valid bits change from cycle to cycle) */
    unsigned macs = 0;
    /* The array is at rest once its inputs (lane-0 input valid, weight valids, the switch) have
     * been idle for 2N edges: valid and switch bits leave it within 2N - 2 edges, weights within
     * N - 1, and a PE without a valid input zeroes its psum (disabled PEs are cleared at once).
     * Then an edge with idle inputs changes nothing. */
    unsigned idle_in = (s->in_v[0] | w->sw | s->w_any) == 0;
    s->pe_idle = idle_in ? s->pe_idle + (s->pe_idle <= 2 * N) : 0; /* this edge included */
    int pe_skip = s->gating && s->pe_idle > 2 * N;
    if (!pe_skip) {
        const tt_pe *pe = s->pe;
        tt_pe *nx = s->pe_next;
        /* column by column: E, the weight lane and its valid are per column */
        for (unsigned j = 0; j < N; j++) {
            if (!s->E[j]) { /* disabled (E changes rarely): cleared, psum kept */
                for (unsigned r = 0; r < N; r++) {
                    tt_pe *n = &nx[r * N + j];
                    n->xout = n->shadow = n->wout = 0;
                    n->vout = n->swout = 0;
                    n->active = 0;
                    n->psum = pe[r * N + j].psum;
                }
                continue;
            }
            const uint16_t wm = (uint16_t)-(uint16_t)s->w_v[j];
            for (unsigned r = 0; r < N; r++) {
                const tt_pe *c = &pe[r * N + j];
                tt_pe *n = &nx[r * N + j];
                const tt_pe *up = r ? &pe[(r - 1) * N + j] : NULL;
                const tt_pe *left = j ? &pe[r * N + j - 1] : NULL;
                uint8_t v = up ? up->vout : left ? left->vout : s->in_v[0];
                uint8_t sw = up ? up->swout : left ? left->swout : w->sw;
                uint16_t x = left ? left->xout : s->in_d[r];
                uint16_t win = up ? up->wout : s->w_d[j];
                uint16_t mac = qadd(qmul(x, c->active), up ? up->psum : 0);
                uint16_t shadow = (uint16_t)((win & wm) | (c->shadow & ~wm));
                n->vout = v, n->swout = sw;
                n->shadow = shadow;
                n->wout = win & wm;
                n->xout = v ? x : c->xout;
                n->psum = v ? mac : 0;
                /* 6. the latch after the edge (A4.3) is open when the switch source holds 1
                 *    now: PE(0,0) this word's bit, the others the neighbour's new swout
                 *    (PE(r-1, j) and PE(0, j-1) come earlier in this column-major walk) */
                int open = r ? nx[(r - 1) * N + j].swout : j ? nx[j - 1].swout : w->sw;
                n->active = open ? shadow : c->active;
                macs += v;
            }
        }
        s->pe = nx, s->pe_next = (tt_pe *)pe;
    }

    /* 4b. channel beats (in place: each channel's next state depends only on its own). A
     *     channel that did no beat clears its state and outputs; after that it is at rest
     *     until the next issue (ch_dirty). */
    /* channels 0..4 with state but no beat: state and outputs cleared, then at rest */
    if (s->ch_dirty & ~act_bits & 0x1Fu)
        for (unsigned rest = s->ch_dirty & ~act_bits & 0x1Fu, ci = 0; rest; ci++, rest >>= 1)
            if (rest & 1)
                memset(&ch[ci], 0, sizeof ch[ci]);
    /* input channel: lanes 0 -> N-1 if T, else N-1 -> 0; sequential */
    if (s->ch_dirty & 1u << TT_CH_INPUT) {
        tt_chan *c = &ch[TT_CH_INPUT];
        unsigned any = 0;
        if (ACT(TT_CH_INPUT)) {
            for (unsigned jj = 0; jj < N; jj++) {
                unsigned i = c->T ? jj : N - 1 - jj, on = lane_on(c, i);
                UB_READ_IF(on, TT_CH_INPUT, i, (uint16_t)c->ptr, s->in_d[i]);
                s->in_v[i] = (uint8_t)on, any |= on;
                c->ptr = (uint16_t)(c->ptr + on);
            }
            c->t++;
            RELIVE(TT_CH_INPUT, c);
        } else {
            for (unsigned i = 0; i < N; i++)
                s->in_d[i] = 0, s->in_v[i] = 0;
        }
        beats += any;
    }
    /* weight channel */
    if (s->ch_dirty & 1u << TT_CH_WEIGHT) {
        tt_chan *c = &ch[TT_CH_WEIGHT];
        unsigned any = 0;
        if (ACT(TT_CH_WEIGHT)) {
            if (N == 2) { /* the RTL's pointer walk (A7.4) */
                int32_t step_ = c->T ? (int32_t)c->skip : -(int32_t)c->skip;
                for (unsigned jj = 0; jj < N; jj++) {
                    unsigned i = c->T ? jj : N - 1 - jj, on = lane_on(c, i);
                    UB_READ_IF(on, TT_CH_WEIGHT, i, (int16_t)(uint16_t)c->ptr, s->w_d[i]);
                    s->w_v[i] = (uint8_t)on, any |= on;
                    c->ptr = (int16_t)(uint16_t)(c->ptr + (on ? step_ : 0));
                }
                c->ptr = (int16_t)(uint16_t)(c->T ? c->ptr - (c->skip + 1)
                                                  : c->ptr + (c->skip + 1));
            } else { /* C2.3: the intent on the skew-order layout */
                for (unsigned i = 0; i < N; i++) {
                    s->w_d[i] = 0, s->w_v[i] = 0;
                    if (!lane_active(c, i))
                        continue;
                    int64_t r = c->T ? i : (int64_t)c->rows - 1 - (c->t - i);
                    int64_t col = c->T ? (int64_t)c->cols - 1 - (c->t - i) : i;
                    UB_READ(TT_CH_WEIGHT, i, (int64_t)c->addr + skew_pos(c->rows, c->cols, r, col),
                            s->w_d[i]);
                    s->w_v[i] = 1, any = 1;
                }
            }
            c->t++;
            RELIVE(TT_CH_WEIGHT, c);
        } else {
            for (unsigned i = 0; i < N; i++)
                s->w_d[i] = 0, s->w_v[i] = 0;
        }
        beats += any;
        s->w_any = (uint8_t)any; /* some weight lane valid (any is 0 after a clear) */
    }
    /* bias channel: lane i repeats mem[ptr + i] */
    if (s->ch_dirty & 1u << TT_CH_BIAS) {
        tt_chan *c = &ch[TT_CH_BIAS];
        unsigned any = 0;
        if (ACT(TT_CH_BIAS)) {
            for (unsigned i = 0; i < N; i++) {
                unsigned on = lane_on(c, i);
                UB_READ_IF(on, TT_CH_BIAS, i, (uint16_t)(c->ptr + i), s->bias_r[i]);
                any |= on;
            }
            c->t++;
            RELIVE(TT_CH_BIAS, c);
        } else {
            for (unsigned i = 0; i < N; i++)
                s->bias_r[i] = 0;
        }
        beats += any;
    }
    /* Y and H channels: lanes N-1 .. 0, sequential */
    for (unsigned ci = TT_CH_Y; ci <= TT_CH_H; ci++) {
        if (!(s->ch_dirty & 1u << ci))
            continue;
        tt_chan *c = &ch[ci];
        uint16_t *dst = ci == TT_CH_Y ? s->y_r : s->h_r;
        unsigned any = 0;
        if (ACT(ci)) {
            for (unsigned i = N; i-- > 0;) {
                unsigned on = lane_on(c, i);
                UB_READ_IF(on, ci, i, (uint16_t)c->ptr, dst[i]);
                c->ptr = (uint16_t)(c->ptr + on);
                any |= on;
            }
            c->t++;
            RELIVE(ci, c);
        } else {
            for (unsigned i = 0; i < N; i++)
                dst[i] = 0;
        }
        beats += any;
    }
    s->ch_dirty &= act_bits | ~0x1Fu; /* channels 0..4 without a beat: at rest now */
    /* channels 5 and 6 share one sequencer (A7.6) */
    if (s->ch_dirty & (1u << TT_CH_GBIAS | 1u << TT_CH_GWEIGHT)) {
        tt_chan *g5 = &ch[TT_CH_GBIAS], *g6 = &ch[TT_CH_GWEIGHT];
        unsigned any = 0;
        int g6_runs = !ACT(TT_CH_GBIAS) && ACT(TT_CH_GWEIGHT);
        if (!ACT(TT_CH_GBIAS) && !g6_runs)
            for (unsigned i = 0; i < N; i++)
                s->old_r[i] = 0;
        if (ACT(TT_CH_GBIAS)) {
            for (unsigned i = 0; i < N; i++) {
                unsigned on = lane_on(g5, i);
                UB_READ_IF(on, TT_CH_GBIAS, i, (uint16_t)(g5->ptr + i), s->old_r[i]);
                any |= on;
            }
            g5->t++;
            RELIVE(TT_CH_GBIAS, g5);
        } else if (g6_runs) {
            for (unsigned i = N; i-- > 0;) {
                unsigned on = lane_on(g6, i);
                UB_READ_IF(on, TT_CH_GWEIGHT, i, (uint16_t)g6->ptr, s->old_r[i]);
                g6->ptr = (uint16_t)(g6->ptr + on);
                any |= on;
            }
            g6->t++;
            RELIVE(TT_CH_GWEIGHT, g6);
        } else {
            memset(g5, 0, sizeof *g5);
            memset(g6, 0, sizeof *g6);
            s->ch_dirty &= ~(1u << TT_CH_GBIAS | 1u << TT_CH_GWEIGHT);
        }
        beats += any;
    }
#undef ACT
#undef RELIVE

    /* 5. commit the UB writes in list order, wp, gptr, E, the PEs */
    for (unsigned i = 0; i < nw; i++) {
        if (obs && obs->trace)
            s->ub_before[i] = s->ub[s->wr_addr[i]];
        s->ub[s->wr_addr[i]] = s->wr_val[i];
    }
    s->wp = wp;
    if (obs)
        s->n_wr = nw; /* for the VCD's write port */
    if (s->mode)
        s->gptr = gptr;
    if (cs_flag) /* 4e. E from the flag during the cycle (A5.5) */
        for (unsigned j = 0; j < N; j++) {
            uint8_t e = j < s->cs_val;
            if (e != s->E[j])
                s->pe_idle = 0; /* newly enabled or disabled PEs change at the next edge */
            s->E[j] = e;
        }

    if (obs) {
        obs->extra[TT_X_UB_WRITES] += nw;
        obs->extra[TT_X_MACS] += macs;
        obs->extra[TT_X_READ_BEATS] += beats;
        obs->extra[TT_X_ISSUES] += issued;
        for (unsigned i = 0; i < nw; i++)
            obs->extra[s->wr_src[i] == SRC_HOST  ? TT_X_HOST_WRITES
                       : s->wr_src[i] == SRC_VPU ? TT_X_VPU_WRITES
                                                 : TT_X_GD_WRITES]++;
        obs->busy[TT_U_ARRAY] += macs != 0;
        obs->busy[TT_U_VPU] += any_out != 0;
        obs->busy[TT_U_UB_READ] += beats != 0;
        obs->busy[TT_U_UB_WRITE] += nw != 0;
        obs->busy[TT_U_GD] += s->gd_busy; /* a GD unit registered an update */
        if (obs->trace)
            trace_edge(s, obs->trace, k, nw);
    }
    return OK;
}

/* The register dump of B8 after edge k ("S" lines, names of spec Part A). */
static void trace_regs(const tt_state *s, FILE *f, uint64_t k)
{
    const unsigned N = s->N;
    unsigned long long K = (unsigned long long)k;
    fprintf(f, "S %llu wp=%u gptr=%04X mode=%s flag=%u/%u E=", K, s->wp, s->gptr,
            s->mode ? "weight" : "bias", s->cs_flag, s->cs_val);
    for (unsigned j = 0; j < N; j++)
        fputc('0' + (s->E[j] != 0), f);
    fputc('\n', f);
    for (unsigned c = 0; c < TT_N_CHANNELS; c++)
        fprintf(f, "S %llu ch %s ptr=%ld R=%u C=%u t=%u\n", K, tt_channel_names[c],
                (long)s->ch[c].ptr, s->ch[c].R, s->ch[c].C, s->ch[c].t);
    for (unsigned i = 0; i < N; i++)
        fprintf(f, "S %llu lane %u in=%04X/%u w=%04X/%u bias=%04X y=%04X h=%04X old=%04X "
                "done=%u upd=%04X BIAS=%04X/%u LREL=%04X/%u LOSS=%04X/%u DERIV=%04X/%u "
                "lastH=%04X\n", K, i, s->in_d[i], s->in_v[i], s->w_d[i], s->w_v[i], s->bias_r[i],
                s->y_r[i], s->h_r[i], s->old_r[i], s->done[i], s->upd[i], s->st_d[0][i],
                s->st_v[0][i], s->st_d[1][i], s->st_v[1][i], s->st_d[2][i], s->st_v[2][i],
                s->st_d[3][i], s->st_v[3][i], s->lastH[i]);
    for (unsigned r = 0; r < N; r++)
        for (unsigned j = 0; j < N; j++) {
            const tt_pe *p = &s->pe[r * N + j];
            fprintf(f, "S %llu pe %u,%u shadow=%04X active=%04X xout=%04X psum=%04X vout=%u "
                    "wout=%04X swout=%u\n", K, r, j, p->shadow, p->active, p->xout, p->psum,
                    p->vout, p->wout, p->swout);
        }
}

/* Trace lines of edge k (B8): V for the VPU beats appended at this edge (valid during cycle k,
 * so "V k-1"), then W for each written address, ascending, with its final value, when it
 * changed (or always with all_writes). */
static void trace_edge(tt_state *s, FILE *f, uint64_t k, unsigned nw)
{
    for (unsigned i = 0; i < s->N; i++)
        if (s->out_v[i])
            fprintf(f, "V %llu %u %04X\n", (unsigned long long)(k - 1), i, s->out_d[i]);
    uint32_t prev = 0;
    int first = 1;
    for (;;) {
        uint32_t best = UINT32_MAX;
        for (unsigned a = 0; a < nw; a++)
            if ((first || s->wr_addr[a] > prev) && s->wr_addr[a] < best)
                best = s->wr_addr[a];
        if (best == UINT32_MAX)
            break;
        uint16_t old = 0;
        for (unsigned b = 0; b < nw; b++)
            if (s->wr_addr[b] == best) {
                old = s->ub_before[b];
                break;
            }
        if (s->all_writes || s->ub[best] != old)
            fprintf(f, "W %llu %u %04X\n", (unsigned long long)k, best, s->ub[best]);
        prev = best, first = 0;
    }
    for (unsigned i = 0; i < s->n_rd; i++)
        fprintf(f, "R %llu %s %u %ld %04X\n", (unsigned long long)k, tt_channel_names[s->rd_ch[i]],
                s->rd_lane[i], (long)s->rd_addr[i], s->rd_val[i]);
    if (s->trace_regs)
        trace_regs(s, f, k);
}

/* ---- the run loop --------------------------------------------------------------------------- */

static int kind_of(const tt_cycle *c)
{
    if (c->rst)
        return TT_K_RESET;
    if (c->start)
        return TT_K_READ;
    if (c->n_host)
        return TT_K_HOST;
    if (c->sw)
        return TT_K_SW;
    return TT_K_IDLE;
}

/* The fast loop for N lanes: no observers, the edge inlined (N = 2 gets its own copy). */
static int fast_loop_2(npk_machine *m, tt_state *s, uint64_t max, npk_stop *stop,
                                   uint64_t *done)
{
    while (s->pc < s->prog.n && (!max || *done < max)) {
        if (step_n(m, s, &s->prog.c[s->pc], s->pc + 1, stop, NULL, 2) == STOPPED)
            return STOPPED;
        s->pc++, ++*done;
    }
    return OK;
}

static int fast_loop_any(npk_machine *m, tt_state *s, uint64_t max, npk_stop *stop,
                         uint64_t *done)
{
    while (s->pc < s->prog.n && (!max || *done < max)) {
        if (step_n(m, s, &s->prog.c[s->pc], s->pc + 1, stop, NULL, s->N) == STOPPED)
            return STOPPED;
        s->pc++, ++*done;
    }
    return OK;
}

npk_status tt_run(npk_machine *m, void *state, uint64_t max, npk_stop *stop)
{
    tt_state *s = state;
    npk_obs *o = npk_observers(m);
    npk_obs *obs = npk_obs_active(o) || s->vcd_path ? o : NULL;
    if (s->vcd_path && !s->vcd && tt_vcd_open(m, s) != NPK_OK)
        return NPK_ERR_IO;
    uint64_t done = 0;
    if (!obs) {
        if (s->N == 2)
            fast_loop_2(m, s, max, stop, &done);
        else
            fast_loop_any(m, s, max, stop, &done);
    } else {
        while (s->pc < s->prog.n && (!max || done < max)) {
            const tt_cycle *c = &s->prog.c[s->pc];
            uint64_t k = s->pc + 1;
            if (step_n(m, s, c, k, stop, obs, s->N) == STOPPED)
                break;
            o->insns++;
            o->cycles = k;
            o->count[kind_of(c)]++;
            if (s->vcd)
                tt_vcd_edge(s, k, c);
            s->pc++;
            done++;
        }
    }
    if (stop->reason == NPK_STOP_FAULT) {
        if (o->trace)
            fprintf(o->trace, "# stopped: %s\n", stop->message);
        tt_vcd_close(s);
        return NPK_OK;
    }
    if (s->pc >= s->prog.n) {
        npk_stop_set(stop, NPK_STOP_EXIT, s->pc, "end of program after %llu cycles",
                     (unsigned long long)s->prog.n);
        stop->exit_code = 0;
        if (o->trace) /* B8: the final contents */
            for (unsigned a = 0; a < s->ub_words; a++)
                fprintf(o->trace, "UB %u %04X\n", a, s->ub[a]);
        tt_vcd_close(s);
    } else {
        npk_stop_set(stop, NPK_STOP_BUDGET, s->pc, "cycle budget exhausted after cycle %llu",
                     (unsigned long long)s->pc);
    }
    return NPK_OK;
}
