/* tinytpu: one clock edge of the family-A RTL (docs/spec/tinytpu.md A12), stepped for every
 * cycle of the program, and the run loop with its observers (trace lines of B8, statistics,
 * timeline, VCD). Every Q8.8 rule is a call into src/num (A3). */
#include <stdlib.h>
#include <string.h>

#include "core/checked.h"
#include "core/obs.h"
#include "num/num.h"
#include "targets/tinytpu/machine.h"
#include "targets/tinytpu/regs.h"

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
/* The same operations in their lane forms (no branches, equal for every input: num_fixed),
 * for the loops over N lanes, which then become vector code; in the copy with N = 2 (two lanes,
 * no vectors: N a constant there) the forms above, which cost less alone. */
#if defined(__GNUC__)
#define TT_N2(N) (__builtin_constant_p(N) && (N) == 2)
#else
#define TT_N2(N) 0
#endif
#define LMUL(a, b) (TT_N2(N) ? qmul((a), (b)) : npk_q88_mul_half_up_lane((a), (b)))
#define LADD(a, b) (TT_N2(N) ? qadd((a), (b)) : npk_q88_add_sat_lane((a), (b)))
#define LSUB(a, b) (TT_N2(N) ? qsub((a), (b)) : npk_q88_sub_sat_lane((a), (b)))

/* ---- out-of-range accesses (C1) ------------------------------------------------------------ */

static int range_error(npk_machine *m, tt_state *s, npk_stop *stop, uint64_t k, int64_t addr,
                       int write, const char *source)
{
    (void)m;
    npk_stop_set(stop, NPK_STOP_FAULT, k - 1,
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
        if (TT_UNLIKELY(obs && s->rec_reads)) {                                               \
            s->rd_ch[s->n_rd] = (uint8_t)(chan), s->rd_lane[s->n_rd] = (uint16_t)(lane);        \
            s->rd_addr[s->n_rd] = (int32_t)a_, s->rd_val[s->n_rd++] = s->ub[a_];                \
        }                                                                                       \
    } while (0)

/* A lane's read that happens only when `on` (0 or 1), without a branch on `on`: the address
 * of a real access, 0 otherwise, is range-checked (C1) with one unsigned compare (a negative
 * address is huge), and the value is 0 for an inactive lane (it writes 0 to its register). */
#define UB_READ_IF(on, chan, lane, a, dst)                                                      \
    do {                                                                                        \
        unsigned on_ = (on);                                                                    \
        uint64_t a_ = (uint64_t)(int64_t)(a) & -(uint64_t)on_;                                  \
        if (TT_UNLIKELY(a_ >= ub_words))                                                        \
            return read_error(m, s, stop, k, (int64_t)a_, chan, (unsigned)(lane));              \
        uint16_t v_ = ub[a_];                                                                   \
        (dst) = (uint16_t)(v_ & -(uint16_t)on_);                                                \
        if (TT_UNLIKELY(obs && s->rec_reads && on_)) {                                        \
            s->rd_ch[s->n_rd] = (uint8_t)(chan), s->rd_lane[s->n_rd] = (uint16_t)(lane);        \
            s->rd_addr[s->n_rd] = (int32_t)a_, s->rd_val[s->n_rd++] = v_;                       \
        }                                                                                       \
    } while (0)

/* ---- A8: position of (r, c) of an R x C matrix in skew order -------------------------------- */

/* Pairs (r, c) of naturals with r + c < n: n (n + 1) / 2, 0 for n <= 0. */
static inline int64_t tri(int64_t n)
{
    return n > 0 ? n * (n + 1) / 2 : 0;
}

/* The elements of diagonals 0 .. d - 1 (r + c < d inside R x C: the triangle less the parts
 * with r >= R or c >= C, plus what both removed), then r's place on diagonal d. */
static int64_t skew_pos(int64_t R, int64_t C, int64_t r, int64_t c)
{
    int64_t d = r + c;
    return tri(d) - tri(d - R) - tri(d - C) + tri(d - R - C) + r - (d - C + 1 > 0 ? d - C + 1 : 0);
}

/* The fields of F_k (A7.8) besides start and T, in one word (compilers load it at once). */
static inline uint64_t read_fields(const tt_cycle *w)
{
    return (uint64_t)w->sel | (uint64_t)w->addr << 16 | (uint64_t)w->rows << 32 |
           (uint64_t)w->cols << 48;
}

/* ---- A7.8: read issue ---------------------------------------------------------------------- */

TT_ALWAYS_INLINE int issue(npk_machine *m, tt_state *s, const tt_cycle *w, uint64_t k,
                           npk_stop *stop)
{
    unsigned sel = w->sel;
    if (sel >= TT_N_CHANNELS)
        return OK;
    if ((uint32_t)w->rows + w->cols >= 65536u) { /* C4.3 */
        npk_stop_set(stop, NPK_STOP_FAULT, k - 1,
                     "tinytpu: cycle %llu: read on the %s channel with rows + cols = %u: at least "
                     "65536 would wrap the RTL's 16-bit counters",
                     (unsigned long long)k, tt_channel_names[sel], (unsigned)w->rows + w->cols);
        return STOPPED;
    }
    (void)m;
    /* the new sequencer state, built in a local and stored at once */
    const uint16_t addr = w->addr, rows = w->rows, cols = w->cols, T = w->T;
    tt_chan c = {.ptr = addr, .R = rows, .C = cols};
    switch (sel) {
    case TT_CH_INPUT:
        c.T = (uint8_t)T;
        if (T)
            c.R = cols, c.C = rows;
        break;
    case TT_CH_WEIGHT:
        c.T = (uint8_t)T;
        c.skip = (uint16_t)(cols + 1);
        if (T) {
            c.R = cols, c.C = rows;
            c.ptr = (int16_t)(uint16_t)(addr + cols - 1);
        } else {
            c.ptr = (int16_t)(uint16_t)(addr + (uint16_t)(rows * cols) - cols);
        }
        s->cs_flag = 1;
        s->cs_val = T ? rows : cols;
        break;
    case TT_CH_GBIAS:
    case TT_CH_GWEIGHT:
        s->mode = sel == TT_CH_GWEIGHT;
        s->gptr = addr;
        break;
    default:
        break;
    }
    s->ch[sel] = c;
    s->ch_dirty |= 1u << sel;
    s->ch_live = (s->ch_live & ~(1u << sel)) | (unsigned)(1u < (uint32_t)c.R + c.C) << sel;
    return OK;
}

static inline int lane_active(const tt_chan *c, unsigned i)
{
    return i <= c->t && c->t < (uint32_t)c->R + i && i < c->C;
}

/* 3. The VPU lanes during the cycle (A9.2) and the stage registers' next values (A9.3), for
 *    pathway p (a constant in each copy). Returns whether any lane's output is valid. */
TT_ALWAYS_INLINE unsigned vpu_lanes(tt_state *s, const uint16_t *b_psum,
                                    const uint16_t *b_vout, const unsigned N, const unsigned p,
                                    const tt_cycle *w)
{
    unsigned any_out = 0;
    unsigned nz = 0;
    const uint16_t alpha = w->leak, q = w->inv;
    for (unsigned i = 0; i < N; i++) {
        uint16_t d = b_psum[i];
        uint8_t v = (uint8_t)b_vout[i];
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
        uint16_t bias = (uint16_t)(LADD(d, s->bias_r[i]) & -(uint16_t)b_on);
        unsigned l_on = (unsigned)((p >> 2) & 1) & x1v;
        /* the leaky ReLUs as masks, not `x < 0 ? x * alpha : x`: gcc 12 -O3 vectorises that
         * select around the lane multiply wrongly (the product's sign flips; tinytpu_compile's
         * N = 16 and 32 networks catch it) */
        uint16_t neg1 = (uint16_t)-(uint16_t)(x1d >> 15);
        uint16_t lrelu = (uint16_t)(((LMUL(x1d, alpha) & neg1) | (x1d & ~neg1)) &
                                    -(uint16_t)l_on);
        uint16_t loss = LMUL(LSUB(p & TT_PW_LOSS ? x2d : 0, s->y_r[i]), q);
        uint8_t loss_v = p & TT_PW_LOSS ? x2v : 0;
        uint16_t hsel = p & TT_PW_LOSS ? s->lastH[i] : s->h_r[i];
        uint16_t neg3 = (uint16_t)-(uint16_t)(hsel >> 15);
        uint16_t deriv = (uint16_t)(((LMUL(x3d, alpha) & neg3) | (x3d & ~neg3)) &
                                    -(uint16_t)x3v);
        uint16_t lasth = p & TT_PW_LOSS ? lrel_now : 0;
        s->st_d[0][i] = bias, s->st_v[0][i] = (uint8_t)b_on;
        s->st_d[1][i] = lrelu, s->st_v[1][i] = (uint8_t)l_on;
        s->st_d[2][i] = loss, s->st_v[2][i] = loss_v;
        s->st_d[3][i] = deriv, s->st_v[3][i] = x3v;
        s->lastH[i] = lasth;
        nz |= b_on | l_on | loss_v | x3v | loss | lasth; /* bias, lrelu, deriv: 0 if invalid */
    }
    s->vpu_quiet = !nz;
    return any_out;
}

/* The switch PE(r, j) takes in during the cycle (its swout after the edge), from the PEs as
 * they were during the cycle: from the PE above, in row 0 from the left, PE(0,0) this word's
 * bit. */
TT_ALWAYS_INLINE unsigned sw_in(const uint16_t *swout, const tt_cycle *w, unsigned r,
                                unsigned j, const unsigned N)
{
    return r ? swout[(r - 1) * N + j] : j ? swout[j - 1] : w->sw;
}

/* Channels 0..4 in `mask` did no beat: their state and output registers are cleared (they are
 * at rest until the next issue). */
TT_ALWAYS_INLINE void rest_channels(tt_state *s, unsigned mask, const unsigned N)
{
    for (unsigned ci = 0; ci < 5; ci++)
        if (mask >> ci & 1)
            memset(&s->ch[ci], 0, sizeof s->ch[ci]);
    for (unsigned i = 0; i < N; i++) {
        if (mask & 1u << TT_CH_INPUT)
            s->in_d[i] = 0, s->in_v[i] = 0;
        if (mask & 1u << TT_CH_WEIGHT)
            s->w_d[i] = 0, s->w_v[i] = 0;
        if (mask & 1u << TT_CH_BIAS)
            s->bias_r[i] = 0;
        if (mask & 1u << TT_CH_Y)
            s->y_r[i] = 0;
        if (mask & 1u << TT_CH_H)
            s->h_r[i] = 0;
    }
    if (mask & 1u << TT_CH_WEIGHT)
        s->w_any = 0;
}

/* A host word for lane i in this cycle's host writes (rare: host loads). */
static TT_COLD int host_word(const tt_hostw *hw, unsigned n, unsigned i, uint16_t *v,
                             uint8_t *src)
{
    for (unsigned h = 0; h < n; h++)
        if (hw[h].lane == i) {
            *v = hw[h].value, *src = SRC_HOST;
            return 1;
        }
    return 0;
}

/* The first of the nw appends at or past the end of the UB (C1). */
static TT_COLD int append_error(tt_state *s, npk_stop *stop, uint64_t k, unsigned nw)
{
    for (unsigned i = 0; i < nw; i++)
        if (s->wr_addr[i] >= s->ub_words) {
            char src[64];
            snprintf(src, sizeof src, "%s append, lane %u",
                     s->wr_src[i] == SRC_VPU ? "VPU" : "host", s->wr_lane[i]);
            return range_error(NULL, s, stop, k, s->wr_addr[i], 1, src);
        }
    return OK;
}

static TT_COLD int gd_error(tt_state *s, npk_stop *stop, uint64_t k, uint32_t a, unsigned i)
{
    char src[64];
    snprintf(src, sizeof src, "GD write-back, lane %u", i);
    return range_error(NULL, s, stop, k, a, 1, src);
}

/* ---- the PEs as row vectors (N >= 3) -------------------------------------------------------- */

/* One row of PEs at an edge (A4.2, A4.3), column by column with no dependence between columns,
 * so that the compiler updates the row as vectors: the row's registers (sh .. so, in place) and
 * its inputs during the cycle, per column: valid, switch, x, weight and psum from above (or the
 * west for row 0), the latch-open condition after the edge, and the masks (0 or FFFF) of the
 * column's weight valid (acc) and enable. A disabled column is cleared but keeps psum. plain (a
 * constant in each copy): every column enabled, no weight valid and no latch open, so shadow
 * and active do not change and are not read (wout becomes 0 from the weight masks). No
 * statement of the loop is a plain copy, in plain too (enable masks FFFF): the compiler would
 * make it a memcpy call, and the vector registers live across the call spill (1.9 -> 2.2 G PE
 * updates/s at N = 16 without). Returns the TT_ROW_* flags of the new registers. */
TT_ALWAYS_INLINE unsigned pe_row(unsigned N, const int plain, uint16_t *restrict sh,
                                 uint16_t *restrict ac, const uint16_t *xo,
                                 uint16_t *restrict xn, uint16_t *restrict ps,
                                 uint16_t *restrict vo, uint16_t *restrict wo,
                                 uint16_t *restrict so, const uint16_t *restrict vin,
                                 const uint16_t *restrict swin, const uint16_t x0,
                                 const uint16_t *restrict win,
                                 const uint16_t *restrict psin, const uint16_t *restrict open,
                                 const uint16_t *restrict wm, const uint16_t *restrict em)
{
    uint16_t any_vs = 0, any_w = 0;
    for (unsigned j = 0; j < N; j++) {
        const uint16_t e = em[j], vm = (uint16_t)-vin[j]; /* e: FFFF in plain, read anyway */
        const uint16_t west = (xo - 1)[j]; /* xo[-1] is inside the PE arrays */
        const uint16_t a = ac[j], x = j ? west : x0;
        const uint16_t mac = npk_q88_add_sat_lane(npk_q88_mul_half_up_lane(x, a), psin[j]);
        vo[j] = vin[j] & e;
        so[j] = swin[j] & e;
        xn[j] = (uint16_t)((x & vm) | (xo[j] & ~vm)); /* xout before the enable mask */
        ps[j] = (uint16_t)((mac & vm & e) | (ps[j] & ~e));
        wo[j] = win[j] & wm[j] & e; /* plain: 0 (no weight valid) */
        if (!plain) {
            const uint16_t om = (uint16_t)-open[j];
            const uint16_t shadow = (uint16_t)((win[j] & wm[j]) | (sh[j] & ~wm[j]));
            ac[j] = (uint16_t)(((shadow & om) | (a & ~om)) & e);
            sh[j] = shadow & e;
            any_w |= wo[j];
        }
        any_vs |= (uint16_t)(vo[j] | so[j] << 1); /* vout and swout are 0 or 1 */
    }
    return (any_vs & 1 ? TT_ROW_V : 0u) | (any_vs & 2 ? TT_ROW_SW : 0u) |
           (any_w ? TT_ROW_W : 0u);
}

/* A row that holds no valid or switch bit, takes none in and whose latch stays closed: only
 * shadow and wout can change (a weight beat, or wout falling back to 0 after one); vout,
 * swout and psum are 0 and stay 0 (an enabled PE's psum is nonzero only with vout), xout and
 * active hold, and a disabled column stays cleared. Returns TT_ROW_W if some wout is nonzero. */
TT_ALWAYS_INLINE unsigned pe_row_weights(unsigned N, uint16_t *restrict sh, uint16_t *restrict wo,
                                         const uint16_t *restrict win,
                                         const uint16_t *restrict wm,
                                         const uint16_t *restrict em)
{
    uint16_t any_w = 0;
    for (unsigned j = 0; j < N; j++) {
        sh[j] = (uint16_t)(((win[j] & wm[j]) | (sh[j] & ~wm[j])) & em[j]);
        wo[j] = win[j] & wm[j] & em[j];
        any_w |= wo[j];
    }
    return any_w ? TT_ROW_W : 0u;
}

/* 4d for N >= 3: the rows from the bottom up (row r reads rows r - 1 and r - 2 as they were
 * during the cycle, and its own xout to the west, stored only after the row). A row whose
 * flags and those of the two rows above (for rows 0 and 1: the array's inputs) are all 0 is
 * skipped: idle inputs and a closed latch change nothing in it, as long as E and the weights do
 * not change (then every row steps). A row whose latch stays closed (no switch two rows up) in
 * an array with every column enabled and no weight beat takes the plain copy of pe_row; one
 * with no valid or switch bit in or out only pe_row_weights.
 * Returns whether the bottom row has vout or psum nonzero (s->bottom_nz, kept if the row is
 * skipped). */
TT_ALWAYS_INLINE unsigned pe_rows_n(tt_state *s, const tt_cycle *w, unsigned N, unsigned *macs)
{
    uint16_t *const pe = s->pe;
    const size_t nn = (size_t)N * N;
    uint16_t *const sh_ = pe + TT_PE_SHADOW * nn, *const ac_ = pe + TT_PE_ACTIVE * nn,
                   *const xo_ = pe + TT_PE_XOUT * nn, *const ps_ = pe + TT_PE_PSUM * nn,
                   *const vo_ = pe + TT_PE_VOUT * nn, *const wo_ = pe + TT_PE_WOUT * nn,
                   *const so_ = pe + TT_PE_SWOUT * nn;
    uint16_t wm[TT_MAX_N], em[TT_MAX_N], xn[TT_MAX_N], vin0[TT_MAX_N], swin0[TT_MAX_N],
        open0[TT_MAX_N];
    static const uint16_t zero[TT_MAX_N];
    const unsigned all = s->w_any || !s->gating; /* a weight beat loads every row's shadow */
    const uint8_t top = (uint8_t)((s->in_v[0] ? TT_ROW_V : 0u) | (w->sw ? TT_ROW_SW : 0u));
    unsigned e_all = 1;
    for (unsigned j = 0; j < N; j++) {
        wm[j] = (uint16_t)-(uint16_t)s->w_v[j], em[j] = (uint16_t)-(uint16_t)s->E[j];
        e_all &= s->E[j];
    }
    const unsigned plain_ok = e_all && !s->w_any;
    /* row 0's inputs from the west, from row 0 during the cycle (row 1's latch uses swin0) */
    const uint16_t *const vo_w = pe + TT_PE_VOUT * nn - 1, *const so_w = pe + TT_PE_SWOUT * nn - 1;
    const uint16_t in_v0 = s->in_v[0], sw = (uint16_t)w->sw;
    for (unsigned j = 0; j < N; j++) { /* loads first, then selects: one vector loop */
        const uint16_t v = vo_w[j], sv_ = so_w[j];
        vin0[j] = j ? v : in_v0, swin0[j] = j ? sv_ : sw;
    }
    uint8_t *const flags = s->pe_row;
    unsigned bottom_nz = s->bottom_nz;
    for (unsigned r = N; r-- > 0;) {
        /* the rows above (r - 1: inputs; r - 2: the latch), for rows 0 and 1 row 0 and top */
        const uint8_t f1 = r >= 1 ? flags[r - 1] : top, f2 = r >= 2 ? flags[r - 2] : top | flags[0];
        if (!(all | flags[r] | f1 | f2))
            continue;
        const size_t o = (size_t)r * N;
        if (!((flags[r] | f1) & (TT_ROW_V | TT_ROW_SW)) && !(f2 & TT_ROW_SW)) {
            flags[r] = (uint8_t)pe_row_weights(N, sh_ + o, wo_ + o, r ? wo_ + o - N : s->w_d,
                                               wm, em);
            continue; /* the bottom row's vout and psum did not change */
        }
        const int plain = plain_ok && !(f2 & TT_ROW_SW);
        if (r) {
#define ROW_R(pl)                                                                                \
    pe_row(N, pl, sh_ + o, ac_ + o, xo_ + o, xn, ps_ + o, vo_ + o, wo_ + o, so_ + o, vo_ + o - N,  \
           so_ + o - N, s->in_d[r], wo_ + o - N, ps_ + o - N,                                   \
           r >= 2 ? so_ + o - 2 * N : swin0, wm, em)
            flags[r] = (uint8_t)(plain ? ROW_R(1) : ROW_R(0));
#undef ROW_R
        } else if (plain) {
            flags[0] = (uint8_t)pe_row(N, 1, sh_, ac_, xo_, xn, ps_, vo_, wo_, so_, vin0, swin0,
                                       s->in_d[0], s->w_d, zero, NULL, wm, em);
        } else {
            /* row 0's latch: PE(0,0) this word's bit, PE(0,j) the new swout to its west
             * (0 if that column is disabled); PE(0,0) multiplies by its shadow while sw is 1 */
            open0[0] = w->sw;
            for (unsigned j = 1; j < N; j++)
                open0[j] = s->E[j - 1] & swin0[j - 1];
            if (w->sw)
                ac_[0] = sh_[0];
            flags[0] = (uint8_t)pe_row(N, 0, sh_, ac_, xo_, xn, ps_, vo_, wo_, so_, vin0, swin0,
                                       s->in_d[0], s->w_d, zero, open0, wm, em);
        }
        for (unsigned j = 0; j < N; j++) /* xout, once the row has read its west (masked: */
            xo_[o + j] = xn[j] & em[j];  /* not a plain copy, which becomes a slow rep movs) */
        if (macs)
            for (unsigned j = 0; j < N; j++)
                *macs += vo_[o + j];
        if (r == N - 1) {
            uint16_t nz = 0;
            for (unsigned j = 0; j < N; j++)
                nz |= vo_[o + j] | ps_[o + j];
            bottom_nz = nz != 0;
        }
    }
    return bottom_nz;
}

/* pe_rows_n with a constant N for the sizes of the benchmark (vector loops without control),
 * else for any N. */
TT_ALWAYS_INLINE unsigned pe_rows_sized(tt_state *s, const tt_cycle *w, unsigned N,
                                        unsigned *macs)
{
    switch (N) {
    case 16: return pe_rows_n(s, w, 16, macs);
    case 32: return pe_rows_n(s, w, 32, macs);
    default: return pe_rows_n(s, w, N, macs);
    }
}

#if TT_HAVE_AVX2
__attribute__((target("avx2"))) static unsigned pe_rows_avx2(tt_state *s, const tt_cycle *w,
                                                             unsigned N, unsigned *macs)
{
    return pe_rows_sized(s, w, N, macs);
}
#endif

/* 4d for N >= 3: pe_rows_n for the host's baseline vectors, or the AVX2 copy (16 lanes of 16
 * bits per vector) when the host has AVX2 (s->avx2, set when the machine is created). */
static unsigned pe_rows(tt_state *s, const tt_cycle *w, unsigned N, unsigned *macs)
{
#if TT_HAVE_AVX2
    if (s->avx2)
        return pe_rows_avx2(s, w, N, macs);
#endif
    return pe_rows_sized(s, w, N, macs);
}

/* ---- one edge ------------------------------------------------------------------------------- */

static void trace_edge(tt_state *s, FILE *f, uint64_t k, unsigned nw);

/* The lanes a beat at counter t of an R x C read reads (A7.2: lane i when i <= t < R + i and
 * i < C), of N: lo .. lo + n - 1, one contiguous range (n = 0: none). */
TT_ALWAYS_INLINE unsigned beat_lanes(uint32_t t, uint32_t R, uint32_t C, unsigned N,
                                     unsigned *lo)
{
    uint32_t l = t + 1 > R ? t + 1 - R : 0, end = t + 1;
    end = end < C ? end : C;
    end = end < N ? end : N;
    *lo = l;
    return end > l ? end - l : 0;
}

/* The fast loop's form of a beat (obs NULL) whose n reads, at UB addresses a0 .. a0 + n - 1,
 * all lie in the UB (the per-lane path handles the rest, and reports the same first lane out
 * of range): the register lanes lo .. lo + n - 1 take the words in lane order (up: lane lo
 * reads a0) or reversed (down: lane lo + n - 1 reads a0), every other lane 0; v (if not NULL)
 * the lanes' valid bits. */
TT_ALWAYS_INLINE void beat_window(uint16_t *restrict dst, uint8_t *restrict v,
                                  const uint16_t *restrict src, unsigned lo, unsigned n,
                                  int up, const unsigned N)
{
    for (unsigned i = 0; i < N; i++)
        dst[i] = 0;
    if (up)
        for (unsigned j = 0; j < n; j++)
            dst[lo + j] = src[j];
    else
        for (unsigned j = 0; j < n; j++)
            dst[lo + n - 1 - j] = src[j];
    if (v)
        for (unsigned i = 0; i < N; i++)
            v[i] = (uint8_t)(i - lo < n);
}

/* Step cycle k (1-based) with record w, for N lanes (a constant where the caller can make it
 * one, so that the lane loops unroll). Returns OK or STOPPED (stop set: an out-of-range access
 * (C1) or an over-long read; the UB keeps its contents from before the edge, registers may be
 * part-way through it, and the cycle does not count as done). The order is A12's; values
 * computed from the state during the cycle are either consumed before the register they come
 * from is rewritten or kept in locals (the PEs and the channels are updated in place, in an
 * order that reads every value before it is rewritten). obs: NULL in the fast loop. ub and
 * ub_words are s->ub and s->ub_words, passed in so that the fast loop loads them once. */
TT_ALWAYS_INLINE int step_n(npk_machine *m, tt_state *s, const tt_cycle *w, uint64_t k,
                            npk_stop *stop, npk_obs *obs, const unsigned N, uint16_t *const ub,
                            const uint32_t ub_words)
{
    if (w->rst) {
        tt_reset_state(s);
        if (obs) {
            obs->extra[TT_X_RESETS]++;
            s->tl_busy = 0, s->tl_issue = 0; /* a reset cycle does no work */
        }
        return OK;
    }
    const unsigned p = w->pathway;
    /* the PE registers (TT_PE); for N = 2 the arrays inside the state (fixed offsets) */
    uint16_t *const pe = N == 2 ? s->pe2 : s->pe;
    const size_t nn = (size_t)N * N;
    if (obs)
        s->n_rd = 0; /* trace_reads' R lines of this edge */

    /* 1. issue and the column-size flag: a read issues when F_k (start = 1) differs from
     *    F_{k-1}, kept as the packed fields and start | T << 1 */
    int issued = 0;
    if (w->start) {
        const uint64_t f = read_fields(w);
        const uint16_t ft = (uint16_t)(1u | (unsigned)w->T << 1);
        if (f != s->prev_f || ft != s->prev_ft) {
            if (issue(m, s, w, k, stop) == STOPPED)
                return STOPPED;
            issued = w->sel < TT_N_CHANNELS;
            s->prev_f = f, s->prev_ft = ft;
        }
    } else {
        s->cs_flag = 0;
        s->prev_ft = 0; /* F_k with start = 0 differs from any F with start = 1 */
    }
    const uint8_t cs_flag = s->cs_flag;

    /* 3. the VPU chain during the cycle (A9.2) and the stage registers' next values (A9.3),
     *    lane by lane (lanes are independent; out[] keeps the output for 4a and 4c) */
    const uint16_t *b_psum = pe + TT_PE_PSUM * nn + (size_t)(N - 1) * N,
                   *b_vout = pe + TT_PE_VOUT * nn + (size_t)(N - 1) * N;
    int any_out = 0;
    int vpu_skip = 0;
    if (s->vpu_quiet && s->gating) /* at rest: is anything entering? a bottom-row valid or
                                       * psum, or a Y register (nonzero only while the Y
                                       * channel has state) */
        vpu_skip = !s->bottom_nz && !(s->ch_dirty & 1u << TT_CH_Y); /* then LOSS stays 0 too */
    if (vpu_skip) {
        for (unsigned i = 0; i < N; i++)
            s->out_v[i] = 0;
    } else {
        /* one copy of the lanes per pathway (a level, constant over a pass): the stages a
         * pathway bypasses cost nothing */
        switch (p & 15) {
#define TT_VPU_CASE(pw)                                                                          \
    case pw: any_out = vpu_lanes(s, b_psum, b_vout, N, pw, w); break;
            TT_VPU_CASE(0) TT_VPU_CASE(1) TT_VPU_CASE(2) TT_VPU_CASE(3) TT_VPU_CASE(4)
            TT_VPU_CASE(5) TT_VPU_CASE(6) TT_VPU_CASE(7) TT_VPU_CASE(8) TT_VPU_CASE(9)
            TT_VPU_CASE(10) TT_VPU_CASE(11) TT_VPU_CASE(12) TT_VPU_CASE(13) TT_VPU_CASE(14)
            default: any_out = vpu_lanes(s, b_psum, b_vout, N, 15, w); break;
#undef TT_VPU_CASE
        }
    }

    /* 4a. the UB write list: appends (lanes N-1 .. 0; the VPU wins a lane over the host),
     *     then GD write-backs from the GD registers during the cycle */
    unsigned nw = 0, n_app = 0, n_gptr = 0; /* appends; weight-mode write-backs (gptr steps) */
    if (any_out | w->n_host) {
        uint32_t wp = s->wp;
        const tt_hostw *hw = w->n_host ? s->prog.hw + w->host : NULL;
        for (unsigned i = N; i-- > 0;) {
            uint16_t v = s->out_d[i];
            uint8_t src = SRC_VPU;
            if (!s->out_v[i] && !(w->n_host && host_word(hw, w->n_host, i, &v, &src)))
                continue;
            s->wr_addr[nw] = wp++, s->wr_val[nw] = v, s->wr_src[nw] = src;
            s->wr_lane[nw++] = (uint16_t)i;
        }
        /* the appends have consecutive addresses s->wp .. wp - 1 */
        if (TT_UNLIKELY(!npk_range_ok(s->wp, nw, ub_words)))
            return append_error(s, stop, k, nw);
        n_app = nw;
    }
    if (s->gd_busy) {
        uint16_t gptr = s->gptr;
        for (unsigned j = 0; j < N; j++) {
            unsigned i = s->mode ? N - 1 - j : j; /* weight mode: lanes N-1 .. 0 */
            if (!s->done[i])
                continue;
            uint32_t a = s->mode ? gptr++ : (uint16_t)(gptr + i);
            if (TT_UNLIKELY(a >= ub_words))
                return gd_error(s, stop, k, a, i);
            s->wr_addr[nw] = a, s->wr_val[nw] = s->upd[i], s->wr_src[nw] = SRC_GD;
            s->wr_lane[nw++] = (uint16_t)i;
        }
        n_gptr = (uint16_t)(gptr - s->gptr);
    }

    /* 4b comes after 4c and 4d: the channel beats rewrite the output registers that the GD
     *    units and the PEs read during the cycle. */
    unsigned beats = 0, chan_beats = 0; /* chan_beats (observed only): bit c, channel c read */
    tt_chan *ch = s->ch;
    /* which channels do a beat at this edge (kept as a mask: issue and every beat update it) */
    const unsigned act_bits = s->ch_live; /* bit c set iff t + 1 < R + C for channel c */
#define ACT(ci) (act_bits >> (ci) & 1)

    /* 4c. GD units (A10), from the values during the cycle (per lane, in place). With no VPU
     *     beat and nothing done they stay at rest (done = 0, upd = 0). */
    if (any_out || s->gd_busy) {
        const tt_chan *c5 = &s->ch[TT_CH_GBIAS], *c6 = &s->ch[TT_CH_GWEIGHT];
        unsigned window = c5->t < (uint16_t)(c5->R + c5->C) || c6->t < (uint16_t)(c6->R + c6->C);
        unsigned busy = 0;
        for (unsigned i = 0; i < N; i++) {
            uint8_t gv = (uint8_t)(window & s->out_v[i]);
            uint16_t a = (s->mode == 0 && s->done[i]) ? s->upd[i] : s->old_r[i];
            s->upd[i] = (uint16_t)(LSUB(a, LMUL(s->out_d[i], w->lr)) & -(uint16_t)gv);
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
    unsigned pe_idle = s->pe_idle; /* this edge included, capped at 2N + 1 */
    if (s->in_v[0] | w->sw | s->w_any)
        s->pe_idle = pe_idle = 0;
    else if (pe_idle <= 2 * N)
        s->pe_idle = ++pe_idle;
    if (N != 2 && s->vector && (pe_idle <= 2 * N || !s->gating)) {
        s->bottom_nz = (uint8_t)pe_rows(s, w, N, obs ? &macs : NULL);
    } else if (pe_idle <= 2 * N || !s->gating) { /* PE by PE (N = 2, or vector=0) */
        unsigned bottom_nz = 0; /* for the VPU's rest test */
        /* In place, from the bottom-right PE to the top-left one, column by column (E, the
         * weight lane and its valid are per column): PE(r, j) reads itself, the PE above and
         * the PE to its left as they were during the cycle, and those come later. */
        uint16_t *const sh_ = pe + TT_PE_SHADOW * nn, *const ac_ = pe + TT_PE_ACTIVE * nn,
                       *const xo_ = pe + TT_PE_XOUT * nn, *const ps_ = pe + TT_PE_PSUM * nn,
                       *const vo_ = pe + TT_PE_VOUT * nn, *const wo_ = pe + TT_PE_WOUT * nn,
                       *const so_ = pe + TT_PE_SWOUT * nn;
        for (unsigned j = N; j-- > 0;) {
            if (!s->E[j]) { /* disabled (E changes rarely): cleared, psum kept */
                for (unsigned r = 0; r < N; r++) {
                    const size_t c = (size_t)r * N + j;
                    xo_[c] = sh_[c] = wo_[c] = 0;
                    vo_[c] = so_[c] = 0;
                    ac_[c] = 0;
                }
                bottom_nz |= ps_[(size_t)(N - 1) * N + j];
                continue;
            }
            const uint16_t wm = (uint16_t)-(uint16_t)s->w_v[j];
            for (unsigned r = N; r-- > 0;) {
                const size_t c = (size_t)r * N + j, up = c - N, left = c - 1;
                uint16_t v = r ? vo_[up] : j ? vo_[left] : s->in_v[0];
                uint16_t sw = r ? so_[up] : j ? so_[left] : w->sw;
                uint16_t x = j ? xo_[left] : s->in_d[r];
                uint16_t win = r ? wo_[up] : s->w_d[j];
                /* 2. PE(0,0)'s latch is open while this word's switch bit is 1: it
                 *    multiplies by its shadow (the array steps whenever sw is 1) */
                uint16_t active = r == 0 && j == 0 && w->sw ? sh_[c] : ac_[c];
                uint16_t prod = qmul(x, active);
                uint16_t mac = r ? qadd(prod, ps_[up]) : prod; /* + 0: already saturated */
                uint16_t shadow = (uint16_t)((win & wm) | (sh_[c] & ~wm));
                /* 6. the latch after the edge (A4.3) is open when the switch source holds 1
                 *    now: PE(0,0) this word's bit, the others the new swout of the PE above
                 *    (row 0: to the left), which is the switch that PE takes in during the
                 *    cycle, or 0 if its column is disabled */
                unsigned open = r ? sw_in(so_, w, r - 1, j, N)
                                : j ? s->E[j - 1] && sw_in(so_, w, 0, j - 1, N) : w->sw;
                vo_[c] = v, so_[c] = sw;
                wo_[c] = win & wm;
                xo_[c] = v ? x : xo_[c];
                ps_[c] = v ? mac : 0;
                if (r == N - 1)
                    bottom_nz |= v | ps_[c];
                ac_[c] = open ? shadow : active;
                sh_[c] = shadow;
                macs += v;
            }
        }
        s->bottom_nz = bottom_nz != 0;
    }

    /* 4b. channel beats (in place: each channel's next state depends only on its own). A
     *     channel that did no beat clears its state and outputs; after that it is at rest
     *     until the next issue (ch_dirty). The masks are kept in locals and stored once. */
    unsigned dirty = s->ch_dirty, live = act_bits;
    /* channels 0..4 with state but no beat: state and outputs cleared, then at rest */
    if (dirty & ~act_bits & 0x1Fu)
        rest_channels(s, dirty & ~act_bits & 0x1Fu, N);
    /* A beat of channel ci at counter t (c->t during the cycle): lane i reads when
     * i <= t < R + i and i < C (A7.2); the channel does another beat at the next edge iff
     * t + 2 < R + C. */
#define BEAT_BEGIN(ci)                                                                         \
    tt_chan *c = &ch[ci];                                                                      \
    const uint32_t t = c->t, R = c->R, C = c->C;                                               \
    unsigned any = 0
#define LANE_ON(i) ((unsigned)((uint32_t)(t - (i)) < R) & (unsigned)((i) < C))
#define BEAT_END(ci)                                                                           \
    c->t = (uint16_t)(t + 1);                                                                  \
    live = (live & ~(1u << (ci))) | (unsigned)(t + 2 < R + C) << (ci);                        \
    if (obs)                                                                                   \
        chan_beats |= (unsigned)(any != 0) << (ci);                                            \
    beats += any
    /* input channel: lanes 0 -> N-1 if T, else N-1 -> 0; sequential (a copy per order, so
     * that the lane numbers are constants) */
    if (ACT(TT_CH_INPUT)) {
        BEAT_BEGIN(TT_CH_INPUT);
        uint16_t ptr = (uint16_t)c->ptr;
        unsigned lo, n = beat_lanes(t, R, C, N, &lo);
        if (!obs && (uint32_t)ptr + n <= ub_words) { /* T: lanes up from lo, else down */
            beat_window(s->in_d, s->in_v, ub + ptr, lo, n, c->T, N);
            ptr = (uint16_t)(ptr + n);
            any = n != 0;
        } else {
#define IN_LANE(i)                                                                             \
    do {                                                                                       \
        unsigned on = LANE_ON(i);                                                              \
        UB_READ_IF(on, TT_CH_INPUT, i, ptr, s->in_d[i]);                                       \
        s->in_v[i] = (uint8_t)on, any |= on;                                                   \
        ptr = (uint16_t)(ptr + on);                                                            \
    } while (0)
            if (c->T)
                for (unsigned i = 0; i < N; i++)
                    IN_LANE(i);
            else
                for (unsigned i = N; i-- > 0;)
                    IN_LANE(i);
#undef IN_LANE
        }
        c->ptr = ptr;
        BEAT_END(TT_CH_INPUT);
    }
    /* weight channel */
    if (ACT(TT_CH_WEIGHT)) {
        BEAT_BEGIN(TT_CH_WEIGHT);
        if (N == 2) { /* the RTL's pointer walk (A7.4): T lanes 0, 1 stepping +skip, then
                       * back by skip + 1; else lanes 1, 0 stepping -skip, then on by skip + 1 */
            int32_t ptr = c->ptr;
            const int32_t skip = c->skip;
#define W_LANE(i, step)                                                                        \
    do {                                                                                       \
        unsigned on = LANE_ON(i);                                                              \
        UB_READ_IF(on, TT_CH_WEIGHT, i, (int16_t)(uint16_t)ptr, s->w_d[i]);                   \
        s->w_v[i] = (uint8_t)on, any |= on;                                                    \
        ptr = (int16_t)(uint16_t)(ptr + (on ? (step) : 0));                                    \
    } while (0)
            if (c->T) {
                W_LANE(0, skip);
                W_LANE(1, skip);
                ptr = (int16_t)(uint16_t)(ptr - (skip + 1));
            } else {
                W_LANE(1, -skip);
                W_LANE(0, -skip);
                ptr = (int16_t)(uint16_t)(ptr + (skip + 1));
            }
#undef W_LANE
            c->ptr = ptr;
        } else { /* C2.3: the intent on the skew-order layout. The issue's rows, cols and
                  * addr come back from the sequencer, which holds all of the read's state:
                  * T swaps R and C, and ptr = addr + cols - 1 (T) or addr + rows*cols - cols
                  * modulo 2^16, and stays there (A7.4) */
            const uint16_t rows = c->T ? c->C : c->R, cols = c->T ? c->R : c->C;
            const uint16_t addr = (uint16_t)(c->T ? (uint32_t)(uint16_t)c->ptr - cols + 1u
                                                  : (uint32_t)(uint16_t)c->ptr -
                                                        (uint16_t)((uint32_t)rows * cols) + cols);
            for (unsigned i = 0; i < N; i++) {
                s->w_d[i] = 0, s->w_v[i] = 0;
                if (!lane_active(c, i))
                    continue;
                int64_t r = c->T ? i : (int64_t)rows - 1 - (c->t - i);
                int64_t col = c->T ? (int64_t)cols - 1 - (c->t - i) : i;
                UB_READ(TT_CH_WEIGHT, i, (int64_t)addr + skew_pos(rows, cols, r, col),
                        s->w_d[i]);
                s->w_v[i] = 1, any = 1;
            }
        }
        s->w_any = (uint8_t)any; /* some weight lane valid */
        BEAT_END(TT_CH_WEIGHT);
    }
    /* bias channel: lane i repeats mem[ptr + i] */
    if (ACT(TT_CH_BIAS)) {
        BEAT_BEGIN(TT_CH_BIAS);
        const uint16_t base = (uint16_t)c->ptr;
        unsigned lo, n = beat_lanes(t, R, C, N, &lo);
        if (!obs && (uint32_t)base + lo + n <= ub_words) {
            beat_window(s->bias_r, NULL, ub + base + lo, lo, n, 1, N);
            any = n != 0;
        } else
            for (unsigned i = 0; i < N; i++) {
                unsigned on = LANE_ON(i);
                UB_READ_IF(on, TT_CH_BIAS, i, (uint16_t)(base + i), s->bias_r[i]);
                any |= on;
            }
        BEAT_END(TT_CH_BIAS);
    }
    /* Y and H channels: lanes N-1 .. 0, sequential */
    for (unsigned ci = TT_CH_Y; ci <= TT_CH_H && (act_bits & (1u << TT_CH_Y | 1u << TT_CH_H));
         ci++) {
        if (!ACT(ci))
            continue;
        BEAT_BEGIN(ci);
        uint16_t *dst = ci == TT_CH_Y ? s->y_r : s->h_r;
        uint16_t ptr = (uint16_t)c->ptr;
        unsigned lo, n = beat_lanes(t, R, C, N, &lo);
        if (!obs && (uint32_t)ptr + n <= ub_words) {
            beat_window(dst, NULL, ub + ptr, lo, n, 0, N);
            ptr = (uint16_t)(ptr + n);
            any = n != 0;
        } else
            for (unsigned i = N; i-- > 0;) {
                unsigned on = LANE_ON(i);
                UB_READ_IF(on, ci, i, ptr, dst[i]);
                ptr = (uint16_t)(ptr + on);
                any |= on;
            }
        c->ptr = ptr;
        BEAT_END(ci);
    }
    dirty &= act_bits | ~0x1Fu; /* channels 0..4 without a beat: at rest now */
    /* channels 5 and 6 share one sequencer (A7.6): gbias beats while active, else gweight */
    if (dirty & (1u << TT_CH_GBIAS | 1u << TT_CH_GWEIGHT)) {
        if (ACT(TT_CH_GBIAS)) {
            BEAT_BEGIN(TT_CH_GBIAS);
            const uint16_t base = (uint16_t)c->ptr;
            unsigned lo, n = beat_lanes(t, R, C, N, &lo);
            if (!obs && (uint32_t)base + lo + n <= ub_words) {
                beat_window(s->old_r, NULL, ub + base + lo, lo, n, 1, N);
                any = n != 0;
            } else
                for (unsigned i = 0; i < N; i++) {
                    unsigned on = LANE_ON(i);
                    UB_READ_IF(on, TT_CH_GBIAS, i, (uint16_t)(base + i), s->old_r[i]);
                    any |= on;
                }
            BEAT_END(TT_CH_GBIAS);
        } else if (ACT(TT_CH_GWEIGHT)) {
            BEAT_BEGIN(TT_CH_GWEIGHT);
            uint16_t ptr = (uint16_t)c->ptr;
            unsigned lo, n = beat_lanes(t, R, C, N, &lo);
            if (!obs && (uint32_t)ptr + n <= ub_words) {
                beat_window(s->old_r, NULL, ub + ptr, lo, n, 0, N);
                ptr = (uint16_t)(ptr + n);
                any = n != 0;
            } else
                for (unsigned i = N; i-- > 0;) {
                    unsigned on = LANE_ON(i);
                    UB_READ_IF(on, TT_CH_GWEIGHT, i, ptr, s->old_r[i]);
                    ptr = (uint16_t)(ptr + on);
                    any |= on;
                }
            c->ptr = ptr;
            BEAT_END(TT_CH_GWEIGHT);
        } else {
            for (unsigned i = 0; i < N; i++)
                s->old_r[i] = 0;
            memset(&ch[TT_CH_GBIAS], 0, sizeof ch[TT_CH_GBIAS]);
            memset(&ch[TT_CH_GWEIGHT], 0, sizeof ch[TT_CH_GWEIGHT]);
            dirty &= ~(1u << TT_CH_GBIAS | 1u << TT_CH_GWEIGHT);
        }
    }
    s->ch_dirty = dirty, s->ch_live = live;
#undef BEAT_BEGIN
#undef LANE_ON
#undef BEAT_END
#undef ACT

    /* 5. commit the UB writes in list order (at most 2N: a bound that unrolls), wp, gptr and E
     *    (the PEs and channels were updated in place) */
    for (unsigned i = 0; i < 2 * N && i < nw; i++) {
        if (obs && obs->trace)
            s->ub_before[i] = ub[s->wr_addr[i]];
        ub[s->wr_addr[i]] = s->wr_val[i];
    }
    s->wp += n_app;
    s->gptr = (uint16_t)(s->gptr + n_gptr);
    if (obs)
        s->n_wr = nw; /* for the VCD's write port */
    if (cs_flag) /* 4e. E from the flag during the cycle (A5.5) */
        for (unsigned j = 0; j < N; j++) {
            uint8_t e = j < s->cs_val;
            if (e != s->E[j]) /* newly enabled or disabled PEs change at the next edge */
                s->pe_idle = 0, memset(s->pe_row, TT_ROW_ALL, sizeof s->pe_row);
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
        if (obs->timeline) {
            uint32_t busy = (uint32_t)(macs != 0) << TT_T_ARRAY |
                            (uint32_t)(any_out != 0) << TT_T_VPU |
                            (uint32_t)(beats != 0) << TT_T_UB_READ |
                            (uint32_t)chan_beats << TT_T_CH0 |
                            (uint32_t)(nw != 0) << TT_T_UB_WRITE |
                            (uint32_t)(s->gd_busy != 0) << TT_T_GD;
            for (unsigned st = 0; st < 4; st++) {
                /* DERIV registers the stream even when bypassed (A9.3): busy only if enabled */
                unsigned v = 0;
                for (unsigned i = 0; i < N; i++)
                    v |= s->st_v[st][i];
                if (st == 3 && !(p & TT_PW_DERIV))
                    v = 0;
                busy |= (uint32_t)(v != 0) << (TT_T_STAGE0 + st);
            }
            s->tl_busy = busy;
            s->tl_issue = issued ? w->sel + 1u : 0;
        }
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
            const size_t i = (size_t)r * N + j;
            fprintf(f, "S %llu pe %u,%u shadow=%04X active=%04X xout=%04X psum=%04X vout=%u "
                    "wout=%04X swout=%u\n", K, r, j, TT_PE(s, TT_PE_SHADOW, i),
                    TT_PE(s, TT_PE_ACTIVE, i), TT_PE(s, TT_PE_XOUT, i), TT_PE(s, TT_PE_PSUM, i),
                    TT_PE(s, TT_PE_VOUT, i), TT_PE(s, TT_PE_WOUT, i), TT_PE(s, TT_PE_SWOUT, i));
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
    for (unsigned i = 0; s->trace_reads && i < s->n_rd; i++)
        fprintf(f, "R %llu %s %u %ld %04X\n", (unsigned long long)k, tt_channel_names[s->rd_ch[i]],
                s->rd_lane[i], (long)s->rd_addr[i], s->rd_val[i]);
    if (s->trace_regs)
        trace_regs(s, f, k);
}

/* ---- the timeline --------------------------------------------------------------------------- */

/* The name of track tr's slices: a channel's read as its assembly shows it. */
static const char *track_slice_name(const tt_state *s, unsigned tr, char *buf, size_t n)
{
    static const char *const names[TT_N_TRACKS] = {
        [TT_T_ARRAY] = "mac",          [TT_T_VPU] = "output",         [TT_T_STAGE0] = "bias",
        [TT_T_STAGE0 + 1] = "lrelu",   [TT_T_STAGE0 + 2] = "loss",    [TT_T_STAGE0 + 3] = "deriv",
        [TT_T_UB_READ] = "read",       [TT_T_UB_WRITE] = "write",     [TT_T_GD] = "update"};
    if (tr < TT_T_CH0 || tr >= TT_T_CH0 + TT_N_CHANNELS)
        return names[tr];
    unsigned c = tr - TT_T_CH0;
    snprintf(buf, n, "%s addr=%u rows=%u cols=%u%s", tt_channel_names[c], s->tl_addr[c],
             s->tl_rows[c], s->tl_cols[c], s->tl_T[c] ? " t" : "");
    return buf;
}

/* Close track tr's open slice at time `end`. */
static void track_close(npk_machine *m, tt_state *s, unsigned tr, uint64_t end)
{
    if (!s->tl_since[tr])
        return;
    char buf[96];
    npk_obs_slice(m, tr, track_slice_name(s, tr, buf, sizeof buf), s->tl_since[tr] - 1, end);
    s->tl_since[tr] = 0;
}

/* After edge k (cycle k is [k-1, k)): open the slices of the tracks busy in cycle k, close
 * those of the idle ones; a read issued in cycle k closes its channel's slice first. */
static void timeline_edge(npk_machine *m, tt_state *s, const tt_cycle *c, uint64_t k)
{
    if (s->tl_issue) {
        unsigned ch = s->tl_issue - 1;
        track_close(m, s, TT_T_CH0 + ch, k - 1);
        s->tl_addr[ch] = c->addr, s->tl_rows[ch] = c->rows, s->tl_cols[ch] = c->cols;
        s->tl_T[ch] = (uint8_t)c->T;
    }
    for (unsigned tr = 0; tr < TT_N_TRACKS; tr++) {
        if (s->tl_busy >> tr & 1) {
            if (!s->tl_since[tr])
                s->tl_since[tr] = k; /* start k - 1, plus one */
        } else {
            track_close(m, s, tr, k - 1);
        }
    }
}

/* ---- the run loop --------------------------------------------------------------------------- */

/* The UB accesses of edge k as accesses of "ub" (word a at bytes 2a, 2a+1): the channel reads,
 * then the writes in list order (docs/breakpoints.md). 1 when one met a watch (stop set). */
static int watch_edge(npk_machine *m, tt_state *s, npk_stop *stop, uint64_t k)
{
    for (unsigned i = 0; i < s->n_rd; i++) {
        uint8_t b[2] = {(uint8_t)s->rd_val[i], (uint8_t)(s->rd_val[i] >> 8)};
        npk_watch_access(m, 0, 2 * (uint64_t)s->rd_addr[i], 2, NPK_WATCH_READ, b);
    }
    for (unsigned i = 0; i < s->n_wr; i++) {
        uint8_t b[2] = {(uint8_t)s->wr_val[i], (uint8_t)(s->wr_val[i] >> 8)};
        npk_watch_access(m, 0, 2 * (uint64_t)s->wr_addr[i], 2, NPK_WATCH_WRITE, b);
    }
    if (!npk_observers(m)->dbg->pending)
        return 0;
    char where[96];
    snprintf(where, sizeof where, "cycle %llu (edge %llu)", (unsigned long long)(k - 1),
             (unsigned long long)k);
    return npk_watch_stop(m, stop, k - 1, k, where);
}

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

/* ---- commit records (docs/commit-log.md) ---------------------------------------------------- */

/* Begun before edge k (cycle c): pc k - 1, the cycle's full-port word (B5); a reset cycle has
 * no word (C4.1), and its memory effects are the UB words it clears, those not zero before. */
static void commit_begin(npk_machine *m, tt_state *s, npk_commit_sink *cs, const tt_cycle *c,
                         uint64_t k)
{
    uint8_t word[NPK_COMMIT_WORD_MAX];
    unsigned nb = 0;
    if (!c->rst) {
        tt_packed w;
        tt_encode(TT_FMT_WFULL, s->N, c, c->n_host ? s->prog.hw + c->host : NULL, &w, NULL, 0);
        nb = tt_word_bytes(s->N);
        for (unsigned i = 0; i < nb; i++)
            word[i] = (uint8_t)(w.w[i / 8] >> 8 * (i % 8));
    }
    npk_commit_begin(cs, k - 1, nb ? word : NULL, nb);
    if (tt_commit_save(m, s))
        cs->lost = 1;
    if (c->rst) {
        static const uint8_t zero[2];
        for (uint32_t a = 0; a < s->ub_words; a++)
            if (s->ub[a])
                npk_commit_mem(cs, "ub", 2 * (uint64_t)a, zero, 2);
    }
}

/* After edge k: the registers it changed, then its UB writes in A6.2 / A6.3 order. */
static void commit_end(npk_machine *m, tt_state *s, npk_commit_sink *cs, const tt_cycle *c,
                       uint64_t k)
{
    tt_commit_regs(m, s, cs);
    if (!c->rst)
        for (unsigned i = 0; i < s->n_wr; i++)
            npk_commit_mem_value(cs, "ub", 2 * (uint64_t)s->wr_addr[i], s->wr_val[i], 2);
    npk_commit_end(m, cs, 1, k);
}

/* A streamed program: the window holding cycle pc, or a fault stop when the file cannot give
 * it (it changed after the load). */
static int window(tt_state *s, uint64_t pc, npk_stop *stop)
{
    char msg[160];
    if (!s->stream || tt_window(s, pc, msg, sizeof msg) == 0)
        return OK;
    npk_stop_set(stop, NPK_STOP_FAULT, pc, "%s", msg);
    return STOPPED;
}

/* The fast loop for N lanes: no observers, the edge inlined (N = 2 gets its own copy). The
 * cycle index lives in a local; s->pc is written back when the loop ends or stops (the step
 * reports its cycle k to the error messages itself). A streamed program runs window by window
 * (a program in memory is one window). */
TT_ALWAYS_INLINE int fast_loop_n(npk_machine *m, tt_state *s, uint64_t max, npk_stop *stop,
                                 const unsigned N)
{
    uint64_t pc = s->pc, end = tt_prog_len(s);
    if (max && end - pc > max)
        end = pc + max;
    uint16_t *const ub = s->ub; /* the UB and its size never change during a run */
    const uint32_t ub_words = s->ub_words;
    int rc = OK;
    while (pc < end && rc == OK && (rc = window(s, pc, stop)) == OK) {
        const uint64_t base = s->base, wend = base + s->prog.n < end ? base + s->prog.n : end;
        const tt_cycle *c = s->prog.c;
        for (; pc < wend; pc++)
            if (step_n(m, s, &c[pc - base], pc + 1, stop, NULL, N, ub, ub_words) == STOPPED) {
                rc = STOPPED;
                break;
            }
    }
    s->pc = pc;
    return rc;
}

static int fast_loop_2(npk_machine *m, tt_state *s, uint64_t max, npk_stop *stop)
{
    return fast_loop_n(m, s, max, stop, 2);
}

#if TT_HAVE_AVX2
__attribute__((target("avx2"))) static int fast_loop_avx2(npk_machine *m, tt_state *s,
                                                          uint64_t max, npk_stop *stop)
{
    return fast_loop_n(m, s, max, stop, s->N);
}
#endif

/* N >= 3: the fast loop in an AVX2 copy when the host has it (s->avx2) and the PE rows are
 * vectors, so that the lane loops outside the array (VPU, GD, channel beats) use 16 lanes per
 * vector too (the PE-by-PE loop of vector=0 is slower in that copy: 0.34 -> 0.29 G PE
 * updates/s at N = 32, so it keeps the baseline one). */
static int fast_loop_any(npk_machine *m, tt_state *s, uint64_t max, npk_stop *stop)
{
#if TT_HAVE_AVX2
    if (s->avx2 && s->vector)
        return fast_loop_avx2(m, s, max, stop);
#endif
    return fast_loop_n(m, s, max, stop, s->N);
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
            fast_loop_2(m, s, max, stop);
        else
            fast_loop_any(m, s, max, stop);
    } else {
        npk_commit_sink *cs = o->commit;
        npk_dbg *dbg = o->dbg;
        /* channel reads are gathered for the trace's R lines or for read watches */
        s->rec_reads = s->trace_reads || npk_watch_wants(dbg, NPK_WATCH_READ);
        while (s->pc < tt_prog_len(s) && (!max || done < max)) {
            if (window(s, s->pc, stop) == STOPPED)
                break;
            const tt_cycle *c = &s->prog.c[s->pc - s->base];
            uint64_t k = s->pc + 1;
            if (dbg && npk_break_hit(m, s->pc)) {
                char where[96];
                snprintf(where, sizeof where, "cycle %llu (edge %llu)",
                         (unsigned long long)s->pc, (unsigned long long)k);
                npk_break_stop(m, stop, s->pc, where);
                break;
            }
            if (cs)
                commit_begin(m, s, cs, c, k);
            if (step_n(m, s, c, k, stop, obs, s->N, s->ub, s->ub_words) == STOPPED)
                break;
            o->insns++;
            o->cycles = k;
            o->count[kind_of(c)]++;
            if (o->timeline)
                timeline_edge(m, s, c, k);
            if (s->vcd)
                tt_vcd_edge(s, k, c);
            s->pc++;
            done++;
            if (cs)
                commit_end(m, s, cs, c, k);
            if (dbg && dbg->kinds && !c->rst && watch_edge(m, s, stop, k))
                break;
        }
    }
    if (obs && o->timeline) /* the slices still open end with the run */
        for (unsigned tr = 0; tr < TT_N_TRACKS; tr++)
            track_close(m, s, tr, s->pc);
    if (stop->reason == NPK_STOP_BREAKPOINT || stop->reason == NPK_STOP_WATCHPOINT)
        return NPK_OK;
    if (stop->reason == NPK_STOP_FAULT) {
        if (o->trace)
            fprintf(o->trace, "# stopped: %s\n", stop->message);
        tt_vcd_close(s);
        return NPK_OK;
    }
    if (s->pc >= tt_prog_len(s)) {
        npk_stop_set(stop, NPK_STOP_EXIT, s->pc, "end of program after %llu cycles",
                     (unsigned long long)tt_prog_len(s));
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
