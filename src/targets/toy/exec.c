/* toy semantics: one small case per instruction, written once and instantiated twice: the
 * fast loop (no observers) and the observed loop (timing, statistics, trace, timeline). */
#include <string.h>

#include "core/checked.h"
#include "num/num.h"
#include "targets/toy/asm.h"
#include "targets/toy/toy.h"

enum { GO_ON = 0, STOPPED = 1 };

static int32_t sat32(int64_t v)
{
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

/* The word at pc, if pc holds one: a budget can run out, or a fault happen, with pc past the
 * end of memory (a jump there), and then there is no word to show. */
static int word_at(const toy_state *s, uint32_t pc, uint32_t *w)
{
    if (!npk_range_ok(pc, 4, s->mem_size))
        return 0;
    memcpy(w, s->mem + pc, 4);
    return 1;
}

static void describe_word(toy_state *s, uint32_t pc, char *out, size_t n)
{
    uint32_t w;
    if (!word_at(s, pc, &w)) {
        snprintf(out, n, "pc 0x%08x (outside memory)", pc);
        return;
    }
    char text[128];
    toy_disasm(w, pc, text, sizeof text);
    snprintf(out, n, "pc 0x%08x, word 0x%08x (%s)", pc, w, text);
}

/* Stop on a fault at the current pc; `what` names the cause (with the address it involves). */
static int fault(toy_state *s, npk_stop *stop, const char *what)
{
    char where[200];
    describe_word(s, s->pc, where, sizeof where);
    npk_stop_set(stop, NPK_STOP_FAULT, s->pc, "%s at %s", what, where);
    uint32_t w;
    if (word_at(s, s->pc, &w)) {
        stop->insn[0] = w;
        stop->insn_bits = 32;
    }
    return STOPPED;
}

static int fault_addr(toy_state *s, npk_stop *stop, const char *what, uint32_t addr)
{
    char msg[96];
    snprintf(msg, sizeof msg, "%s 0x%08x", what, addr);
    return fault(s, stop, msg);
}

/* Fetch the decoded form of the word at pc, decoding on first use. */
static inline const toy_decoded *fetch(toy_state *s)
{
    uint32_t i = s->pc >> 2;
    if (!s->dvalid[i]) {
        uint32_t w;
        memcpy(&w, s->mem + s->pc, 4);
        toy_decode(w, &s->dcache[i], NULL, 0);
        s->dvalid[i] = 1;
    }
    return &s->dcache[i];
}

static inline int addr_ok(const toy_state *s, uint32_t a)
{
    return (a & 3) == 0 && npk_range_ok(a, 4, s->mem_size);
}

/* Execute one decoded instruction. *taken reports a taken branch (for timing). */
static inline int exec_one(npk_machine *m, toy_state *s, const toy_decoded *d, npk_stop *stop,
                           int *taken)
{
    uint32_t *r = s->r;
    uint32_t a = r[d->rs1], b = r[d->rs2], next = s->pc + 4;
    switch ((toy_op)d->op) {
    case TOY_NOP: break;
    case TOY_HALT:
        npk_stop_set(stop, NPK_STOP_EXIT, s->pc, "halt");
        stop->exit_code = 0;
        s->pc = next;
        return STOPPED;
    case TOY_EXIT:
        npk_stop_set(stop, NPK_STOP_EXIT, s->pc, "exit %u", a);
        stop->exit_code = a;
        s->pc = next;
        return STOPPED;
    case TOY_PUTC: fputc((int)(a & 0xff), npk_guest_out(m)); break;
    case TOY_LI: r[d->rd] = (uint32_t)d->imm; break;
    case TOY_LUI: r[d->rd] = (uint32_t)d->imm << 16; break;
    case TOY_ORI: r[d->rd] = a | (uint32_t)d->imm; break;
    case TOY_ADD:
        r[d->rd] = d->sat ? (uint32_t)sat32((int64_t)(int32_t)a + (int32_t)b) : a + b;
        break;
    case TOY_SUB:
        r[d->rd] = d->sat ? (uint32_t)sat32((int64_t)(int32_t)a - (int32_t)b) : a - b;
        break;
    case TOY_MUL: r[d->rd] = a * b; break;
    case TOY_ADDI: r[d->rd] = a + (uint32_t)d->imm; break;
    case TOY_FADD: {
        npk_fenv env;
        npk_fenv_init(&env, NPK_RM_RNE);
        r[d->rd] = npk_f32_add(a, b, &env);
        break;
    }
    case TOY_FMUL: {
        npk_fenv env;
        npk_fenv_init(&env, NPK_RM_RNE);
        r[d->rd] = npk_f32_mul(a, b, &env);
        break;
    }
    case TOY_LD: {
        uint32_t ea = a + (uint32_t)d->imm;
        if (!addr_ok(s, ea))
            return fault_addr(s, stop, "load from bad address", ea);
        memcpy(&r[d->rd], s->mem + ea, 4);
        break;
    }
    case TOY_ST: {
        uint32_t ea = a + (uint32_t)d->imm;
        if (!addr_ok(s, ea))
            return fault_addr(s, stop, "store to bad address", ea);
        memcpy(s->mem + ea, &b, 4);
        s->dvalid[ea >> 2] = 0; /* the word may be code */
        break;
    }
    case TOY_BEQ: *taken = a == b; break;
    case TOY_BNE: *taken = a != b; break;
    case TOY_BLT: *taken = (int32_t)a < (int32_t)b; break;
    case TOY_JMP: *taken = 1; break;
    case TOY_N_OPS: return fault(s, stop, "illegal instruction");
    }
    if (*taken)
        next = s->pc + (uint32_t)d->imm * 4u;
    s->pc = next;
    return GO_ON;
}

static inline int pc_ok(npk_machine *m, toy_state *s, npk_stop *stop)
{
    if (addr_ok(s, s->pc))
        return 1;
    npk_stop_set(stop, NPK_STOP_FAULT, s->pc, "instruction fetch from bad address 0x%08x "
                 "(memory is 0x0 .. 0x%x, word aligned)", s->pc, s->mem_size - 1);
    (void)m;
    return 0;
}

static int run_fast(npk_machine *m, toy_state *s, uint64_t max, uint64_t *done, npk_stop *stop)
{
    uint64_t n = 0;
    int r = GO_ON;
    while (!max || n < max) {
        if (!pc_ok(m, s, stop))
            break;
        const toy_decoded *d = fetch(s);
        int taken = 0;
        r = exec_one(m, s, d, stop, &taken);
        if (d->op != TOY_N_OPS && stop->reason != NPK_STOP_FAULT)
            n++;
        if (r == STOPPED)
            break;
    }
    *done = n;
    return r;
}

/* The commit record of a retired instruction (docs/commit-log.md): the register it writes,
 * then the word a store wrote. A fault retires nothing and makes no record. */
static void commit(npk_machine *m, npk_commit_sink *c, const toy_state *s, const toy_decoded *d,
                   uint32_t pc, const uint8_t *word, uint32_t st_addr, uint32_t st_value,
                   uint64_t cycle)
{
    static const char *const names[8] = {"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"};
    npk_commit_begin(c, pc, word, 4);
    if (d->uses & TOY_WRITES_RD)
        npk_commit_reg(c, names[d->rd & 7], 32, s->r[d->rd & 7]);
    if (d->op == TOY_ST)
        npk_commit_mem_value(c, "mem", st_addr, st_value, 4);
    npk_commit_end(m, c, 1, cycle);
}

static int run_observed(npk_machine *m, toy_state *s, uint64_t max, uint64_t *done,
                        npk_stop *stop)
{
    npk_obs *o = npk_observers(m);
    uint64_t n = 0;
    int r = GO_ON;
    while (!max || n < max) {
        if (o->dbg && npk_break_hit(m, s->pc)) {
            char where[200];
            describe_word(s, s->pc, where, sizeof where);
            npk_break_stop(m, stop, s->pc, where);
            uint32_t w;
            if (word_at(s, s->pc, &w)) {
                stop->insn[0] = w;
                stop->insn_bits = 32;
            }
            break;
        }
        if (!pc_ok(m, s, stop))
            break;
        const toy_decoded *d = fetch(s);
        uint32_t pc = s->pc, word;
        memcpy(&word, s->mem + pc, 4);
        /* what a store writes, read before it runs (it may overwrite its own operands' word) */
        uint32_t st_addr = s->r[d->rs1] + (uint32_t)d->imm, st_value = s->r[d->rs2];
        int taken = 0;
        r = exec_one(m, s, d, stop, &taken);
        if (stop->reason == NPK_STOP_FAULT)
            break;
        n++;
        npk_event ev = {.pc = pc, .mnemonic = d->op, .unit = toy_insns[d->op].unit};
        uint8_t bytes[4] = {(uint8_t)word, (uint8_t)(word >> 8), (uint8_t)(word >> 16),
                            (uint8_t)(word >> 24)};
        ev.word = bytes;
        uint64_t stalls = 0;
        toy_timing(s, d, taken, &ev.start, &ev.end, &stalls);
        o->extra[TOY_X_STALLS] += stalls;
        o->extra[TOY_X_LOADS] += d->op == TOY_LD;
        o->extra[TOY_X_STORES] += d->op == TOY_ST;
        o->extra[TOY_X_TAKEN] += (unsigned)taken;
        if (o->commit)
            commit(m, o->commit, s, d, pc, bytes, st_addr, st_value, ev.start);
        npk_obs_retire(m, &ev);
        if (r == STOPPED)
            break;
        if (o->dbg && (d->op == TOY_LD || d->op == TOY_ST)) {
            /* the effective address is st_addr's formula; LD and ST are the only accesses */
            npk_watch_access(m, 0, st_addr, 4, d->op == TOY_LD ? NPK_WATCH_READ : NPK_WATCH_WRITE,
                             s->mem + st_addr);
            if (o->dbg->pending) {
                char where[200];
                describe_word(s, pc, where, sizeof where);
                npk_watch_stop(m, stop, pc, s->pc, where);
                break;
            }
        }
    }
    *done = n;
    return r;
}

npk_status toy_run(npk_machine *m, void *state, uint64_t max_insns, npk_stop *stop)
{
    toy_state *s = state;
    uint64_t done = 0;
    int r = npk_obs_active(npk_observers(m)) ? run_observed(m, s, max_insns, &done, stop)
                                             : run_fast(m, s, max_insns, &done, stop);
    if (r == GO_ON && stop->reason == NPK_STOP_NONE && max_insns && done >= max_insns) {
        char where[200];
        describe_word(s, s->pc, where, sizeof where);
        npk_stop_set(stop, NPK_STOP_BUDGET, s->pc,
                     "instruction budget exhausted; next: %s", where);
    }
    return NPK_OK;
}

/* npk_step: one instruction through the same loops, without the budget message. */
npk_status toy_step(npk_machine *m, void *state, npk_stop *stop)
{
    toy_state *s = state;
    uint64_t done = 0;
    if (npk_obs_active(npk_observers(m)))
        run_observed(m, s, 1, &done, stop);
    else
        run_fast(m, s, 1, &done, stop);
    if (stop->reason == NPK_STOP_NONE)
        stop->pc = s->pc;
    return NPK_OK;
}
