/* rvnpu: the threaded loop, written once and instantiated twice by exec.c: RVNPU_FL_NAME is
 * the function's name, RVNPU_FL_STATS 0 the fast loop (no observers), 1 the statistics loop
 * (npk_obs_stats_only: `npukit run --stats`). The statistics loop is the fast loop's handlers
 * with the timing model and the counts added to each handler's tail (ACCT, with the handler's
 * op a constant); the counts that follow from the op alone (instructions, busy cycles, class,
 * loads and stores) are summed per op and added up when the loop leaves. Whatever the fast
 * loop hands to slow_step(), the statistics loop hands to run_observed() for one instruction,
 * which counts it itself; NPU instructions always take that way there (their latency depends
 * on the element count). tests/targets/rvnpu/stats_lean.sh compares its statistics with the
 * observed loop's. */
/* The fast loop: no observers. Threaded dispatch (GNU C labels as values): every handler of
 * exec_ops.h ends in its own indirect jump to the next instruction's handler, found through
 * the decode cache entry's h (0: not decoded yet). Straight-line code walks the cache entries
 * in order (d + 1) and dispatches through `seq`, which knows the operand-forwarding variants
 * (see H_VAR); jumps, and re-entry after the slow path, dispatch through `jmp`, which maps
 * every variant to its plain handler. pc is derived from d when needed. Retired instructions
 * are counted down in a register and written back to s->retired only when the loop leaves or
 * calls out. Whatever a handler cannot finish (device or out-of-range access, a store to a
 * code or tohost page, a jump out of RAM or misaligned, a reserved rounding mode) and every
 * instruction not in exec_ops.h goes to slow_step(), which runs it again from the start
 * through exec_one(). */
static int RVNPU_FL_NAME(npk_machine *m, rvnpu_state *s, uint64_t max, uint64_t *done,
                         npk_stop *stop)
{
    if (max && max < 256) /* not worth setting up the tables */
#if RVNPU_FL_STATS
        return run_observed(m, s, max, done, stop);
#else
        return run_steps(m, s, max, done, stop);
#endif
    const void *seq[H_COUNT], *jmp[H_COUNT];
    for (unsigned i = 0; i < H_COUNT; i++)
        seq[i] = jmp[i] = &&slow;
    seq[0] = jmp[0] = &&undecoded;
#define RVOP(name, ...)                                                                       \
    jmp[1 + RVNPU_OP_##name] = jmp[1 + RVNPU_OP_##name + H_VAR] =                             \
        jmp[1 + RVNPU_OP_##name + 2 * H_VAR] = seq[1 + RVNPU_OP_##name] = &&op_##name;        \
    seq[1 + RVNPU_OP_##name + H_VAR] = &&op1_##name;                                          \
    seq[1 + RVNPU_OP_##name + 2 * H_VAR] = &&op2_##name;
#include "targets/rvnpu/exec_ops.h"
#undef RVOP
#if !RVNPU_FL_STATS
    /* NPU instructions: rvnpu_npu_exec() (their one definition) called from here, without the
     * slow path's fetch and dispatch; a trap (nothing changed) goes to slow_step() */
    for (unsigned op = 0; op < RVNPU_N_OPS; op++)
        if (rvnpu_insns[op].cls == RVNPU_CLASS_NPU || rvnpu_insns[op].cls == RVNPU_CLASS_FNPU)
            for (unsigned v = 0; v < 3; v++)
                seq[1 + op + v * H_VAR] = jmp[1 + op + v * H_VAR] = &&npu;
    /* ... and the ones rvnpu_npu_quick() finishes, each with its own handler (the op a
     * constant there, so the compiler keeps just that case) */
#define NPUQ_TABLE(name)                                                                      \
    for (unsigned v = 0; v < 3; v++)                                                          \
        seq[1 + RVNPU_OP_##name + v * H_VAR] = jmp[1 + RVNPU_OP_##name + v * H_VAR] =         \
            &&npuq_##name;
    RVNPU_NPU_QUICK_OPS(NPUQ_TABLE)
#undef NPUQ_TABLE
#endif

    rvnpu_decoded *const dc = s->dcache;
    uint8_t *const ram = s->ram;
    const uint8_t *const cp = s->code_pages;
    /* one bound for every access width: the last 3 bytes of RAM go the slow way */
    const uint32_t ram_size = s->ram_size, nwords = ram_size / 4, ram_lim = ram_size - 4;
    const uint64_t ret0 = s->retired, lim = max ? max : UINT64_MAX;
    uint64_t left = lim; /* retired in this call: lim - left */
    uint32_t *const x = s->x;
    uint32_t last = 0; /* the value the last handler wrote to x[] */
    const rvnpu_decoded *d;
    int r, stopped = 0;
#if RVNPU_FL_STATS
    /* the timing model's state (timing.h) in registers: the next issue cycle, the latest
     * completion, the stall cycles; s->ready's slots past 63 stay 0, so a missing source
     * (RVNPU_NOREG) reads 0 and a missing destination writes that slot, which is cleared
     * again; x0 is never a destination, so its slot stays 0 too */
    npk_obs *const o = npk_observers(m);
    uint64_t *const rdy = s->ready;
    const uint64_t bt = s->lat_branch_taken;
    uint64_t ni = s->next_issue, cyc = o->cycles, stl = 0;
    rdy[0] = rdy[RVNPU_NOREG] = 0;
    /* per op: its latency, how far it moves the next issue (not pipelined: its latency), and
     * how many retired here */
    struct {
        uint64_t lat, adv;
    } tl[RVNPU_N_OPS];
    uint64_t cnt[RVNPU_N_OPS];
    for (unsigned i = 0; i < RVNPU_N_OPS; i++) {
        rvnpu_unit u = (rvnpu_unit)s->unit_of[i];
        tl[i].lat = rvnpu_timing_lat(s, u, 0);
        tl[i].adv = rvnpu_timing_blocks(u) ? tl[i].lat : 1;
        cnt[i] = 0;
    }
/* the instruction at d, op k, retired (taken: it jumped): rvnpu_timing_issue() with the
 * stall test a predicted branch, so that the next issue cycle does not wait for the loads */
#define ACCT(k, taken)                                                                        \
    do {                                                                                      \
        uint64_t m0_ = rdy[d->src[0]], m1_ = rdy[d->src[1]], m2_ = rdy[d->src[2]];            \
        m0_ = m0_ > m1_ ? m0_ : m1_;                                                          \
        m0_ = m0_ > m2_ ? m0_ : m2_;                                                          \
        if (__builtin_expect(m0_ > ni, 0)) {                                                  \
            stl += m0_ - ni;                                                                  \
            ni = m0_;                                                                         \
        }                                                                                     \
        uint64_t e_ = ni + tl[k].lat;                                                         \
        rdy[d->dst] = e_;                                                                     \
        rdy[RVNPU_NOREG] = 0;                                                                 \
        cyc = cyc > e_ ? cyc : e_;                                                            \
        ni += tl[k].adv + ((taken) ? bt : 0);                                                 \
        cnt[k]++;                                                                             \
    } while (0)
#else
#define ACCT(k, taken) ((void)0)
#endif

#undef A
#undef B
#undef WX
#define A x[d->rs1]
#define B x[d->rs2]
#define WX(v) (x[d->rd] = last = (v))
#define PC (RVNPU_RAM_BASE + 4 * (uint32_t)(d - dc))
#define DISPATCH(table)                                                                       \
    do {                                                                                      \
        if (__builtin_expect(--left == 0, 0))                                                 \
            goto out_pc;                                                                      \
        goto *table[d->h];                                                                    \
    } while (0)
#define JCHECK(t)                                                                             \
    if (((t)&3) | ((t)-RVNPU_RAM_BASE >= ram_size))                                           \
    goto slow
#define JUMP(t)                                                                               \
    do {                                                                                      \
        ACCT(K_, 1);                                                                          \
        d = dc + (((t)-RVNPU_RAM_BASE) >> 2);                                                 \
        DISPATCH(jmp);                                                                        \
    } while (0)
/* relative targets: checked at decode (decode_into), a word index here */
#define JREL_CHECK(o) ((void)0)
/* o is a multiple of 4 (else decode_into made the entry H_SLOW): o / 4 entries ahead is
 * o * (sizeof *d / 4) bytes, one scaled add */
#define JUMP_REL(o)                                                                           \
    do {                                                                                      \
        ACCT(K_, 1);                                                                          \
        d = (const rvnpu_decoded *)((const char *)d +                                         \
                                    (ptrdiff_t)(o) * (ptrdiff_t)(sizeof *d / 4));             \
        DISPATCH(jmp);                                                                        \
    } while (0)
#define FP_RM(rm)                                                                             \
    if (((rm) = fp_rm(s, d)) < 0)                                                             \
    goto slow
#define LOAD(v, n, ext)                                                                       \
    do {                                                                                      \
        uint32_t off_ = A + (uint32_t)IMM - RVNPU_RAM_BASE;                                   \
        if (off_ > ram_lim)                                                                   \
            goto slow;                                                                        \
        (v) = EXTEND(ram_get(ram + off_, (n)), (n), (ext));                                   \
    } while (0)
#define STORE(n, v)                                                                           \
    do {                                                                                      \
        uint32_t off_ = A + (uint32_t)IMM - RVNPU_RAM_BASE;                                   \
        if (off_ > ram_lim || (cp[off_ / RVNPU_PAGE] | cp[(off_ + (n)-1) / RVNPU_PAGE]))      \
            goto slow;                                                                        \
        ram_put(ram + off_, (v), (n));                                                        \
    } while (0)

    {
        uint32_t off = s->pc - RVNPU_RAM_BASE;
        if (off >= ram_size || (off & 3))
            goto slow_pc;
        d = dc + (off >> 2);
        goto *jmp[d->h];
    }

    /* a handler: label lab, op k (for the statistics), the semantics, then the next entry in
     * sequence */
#define FL_HANDLER(lab, k, ...)                                                               \
    lab : {                                                                                   \
        enum { K_ = k };                                                                      \
        {__VA_ARGS__}                                                                         \
        ACCT(K_, 0);                                                                          \
        d++;                                                                                  \
        DISPATCH(seq);                                                                        \
    }

    /* the plain handlers */
#define RVOP(name, ...)                                                                       \
    FL_HANDLER(op_##name, RVNPU_OP_##name, __VA_ARGS__)
#include "targets/rvnpu/exec_ops.h"
#undef RVOP
#undef A
#undef B

    /* variant 1: rs1 is the previous instruction's result */
#define A last
#define B x[d->rs2]
#define RVOP(name, ...)                                                                       \
    FL_HANDLER(op1_##name, RVNPU_OP_##name, __VA_ARGS__)
#include "targets/rvnpu/exec_ops.h"
#undef RVOP
#undef A
#undef B

    /* variant 2: rs2 is */
#define A x[d->rs1]
#define B last
#define RVOP(name, ...)                                                                       \
    FL_HANDLER(op2_##name, RVNPU_OP_##name, __VA_ARGS__)
#include "targets/rvnpu/exec_ops.h"
#undef RVOP
#undef A
#undef B

#if !RVNPU_FL_STATS
npu : {
    uint32_t pc_ = PC, el_, w_ = ram_get(ram + (pc_ - RVNPU_RAM_BASE), 4);
    rvnpu_npu_trap t_;
    if (!rvnpu_npu_quick(&s->npu, (rvnpu_op)d->op, w_, x, s->rev2, &s->bus, &el_) &&
        rvnpu_npu_exec(&s->npu, (rvnpu_op)d->op, w_, x, s->f, s->rev2, &s->bus, &el_, &t_))
        goto slow;
    x[0] = 0;
    last = x[d->rd]; /* the next word's variant may take rd from `last` (decode_into) */
    d++;
    if (__builtin_expect(s->tohost_hit, 0)) { /* it stored to the tohost word (§11.8) */
        left--;
        s->pc = PC;
        s->retired = ret0 + (lim - left);
        if (check_tohost(m, s, stop, pc_)) {
            stopped = 1;
            goto out;
        }
        if (left == 0)
            goto out;
        goto *jmp[d->h];
    }
    DISPATCH(seq);
}

#define NPUQ_HANDLER(name)                                                                    \
    npuq_##name : {                                                                           \
        uint32_t el_, w_ = ram_get(ram + (PC - RVNPU_RAM_BASE), 4);                           \
        if (!rvnpu_npu_quick(&s->npu, RVNPU_OP_##name, w_, x, s->rev2, &s->bus, &el_))       \
            goto npu;                                                                         \
        last = x[d->rd];                                                                      \
        d++;                                                                                  \
        DISPATCH(seq);                                                                        \
    }
    RVNPU_NPU_QUICK_OPS(NPUQ_HANDLER)
#undef NPUQ_HANDLER
#endif

undecoded:
    if ((uint32_t)(d - dc) >= nwords) { /* ran off the end of RAM */
        s->pc = PC;
        goto slow_pc;
    }
    decode_into(s, (rvnpu_decoded *)d, (uint32_t)(d - dc));
    goto *jmp[d->h]; /* arrived in sequence or not: `last` may not be this one's operand */

slow:
    s->pc = PC;
slow_pc:
    s->retired = ret0 + (lim - left);
#if RVNPU_FL_STATS
    s->next_issue = ni;
    o->cycles = cyc > o->cycles ? cyc : o->cycles;
    {
        uint64_t k_ = 0;
        r = run_observed(m, s, 1, &k_, stop);
    }
    ni = s->next_issue;
    cyc = o->cycles;
    left = lim - (s->retired - ret0);
    if (r) {
        stopped = 1;
        goto out;
    }
#else
    r = slow_step(m, s, stop);
    left = lim - (s->retired - ret0);
    if (r == RETIRED_STOP || r == FAULTED) {
        stopped = 1;
        goto out;
    }
#endif
    if (left == 0)
        goto out;
    {
        uint32_t off = s->pc - RVNPU_RAM_BASE;
        if (off >= ram_size || (off & 3))
            goto slow_pc; /* the fetch traps */
        d = dc + (off >> 2);
        goto *jmp[d->h];
    }

out_pc:
    s->pc = PC;
out:
    s->retired = ret0 + (lim - left);
    *done = lim - left;
#if RVNPU_FL_STATS
    s->next_issue = ni;
    o->cycles = cyc > o->cycles ? cyc : o->cycles;
    o->extra[RVNPU_X_STALLS] += stl;
    for (unsigned i = 0; i < RVNPU_N_OPS; i++) {
        if (!cnt[i])
            continue;
        rvnpu_unit u = (rvnpu_unit)s->unit_of[i];
        o->insns += cnt[i];
        o->count[i] += cnt[i];
        o->busy[u] += cnt[i] * tl[i].lat;
        o->extra[class_extra(rvnpu_insns[i].cls)] += cnt[i];
        if (u == RVNPU_U_LSU)
            o->extra[s->is_store[i] ? RVNPU_X_STORES : RVNPU_X_LOADS] += cnt[i];
    }
#endif
    return stopped;
#undef ACCT
#undef FL_HANDLER
#undef PC
#undef DISPATCH
#undef JCHECK
#undef JUMP
#undef JREL_CHECK
#undef JUMP_REL
#undef FP_RM
#undef LOAD
#undef STORE
#undef WX
#define A s->x[d->rs1]
#define B s->x[d->rs2]
#define WX(v) (s->x[d->rd] = (v))
}
#undef RVNPU_FL_NAME
#undef RVNPU_FL_STATS
