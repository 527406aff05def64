/* rvnpu semantics: the memory system of §11.5, traps of §11.4 and one small case per
 * instruction, written once and instantiated twice: the fast loop (no observers) and the
 * observed loop (timing, statistics, trace, timeline). NPU instructions go to npu.c. */
#include <string.h>

#include "num/num.h"
#include "targets/rvnpu/asm.h"
#include "targets/rvnpu/npu_quick.h"
#include "targets/rvnpu/rvnpu.h"
#include "targets/rvnpu/timing.h"

/* ---- memory system -------------------------------------------------------------------------- */

int rvnpu_mapped(rvnpu_state *s, uint32_t addr, uint32_t len)
{
    uint32_t off = addr - RVNPU_RAM_BASE;
    if (off < s->ram_size && len <= s->ram_size - off)
        return 1;
    uint64_t a = addr;
    if (a >= RVNPU_UART_BASE && a + len <= (uint64_t)RVNPU_UART_BASE + RVNPU_UART_SIZE)
        return 1;
    return a >= RVNPU_NPUREG_BASE && a + len <= (uint64_t)RVNPU_NPUREG_BASE + RVNPU_NPUREG_SIZE;
}

/* A stored-to RAM range: drop cached decodes of the words it touches (self-modifying code,
 * §11.1) and note a write to the tohost word (§11.8). */
void rvnpu_invalidate(rvnpu_state *s, uint32_t off, uint32_t len)
{
    if (!len)
        return;
    uint32_t last = off + len - 1;
    for (uint32_t pg = off / RVNPU_PAGE; pg <= last / RVNPU_PAGE; pg++) {
        if (!(s->code_pages[pg] & RVNPU_PAGE_CODE))
            continue; /* nothing decoded there: the common case for data */
        uint32_t lo = pg * RVNPU_PAGE > off ? pg * RVNPU_PAGE : off;
        uint32_t hi = (pg + 1) * RVNPU_PAGE - 1 < last ? (pg + 1) * RVNPU_PAGE - 1 : last;
        for (uint32_t i = lo >> 2; i <= hi >> 2; i++)
            s->dcache[i].h = 0;
    }
    if (s->has_tohost) {
        uint32_t t = s->tohost - RVNPU_RAM_BASE;
        if (off < t + 4 && t < off + len)
            s->tohost_hit = 1;
    }
}

static uint8_t uart_read(rvnpu_state *s, uint32_t off)
{
    if (off != 0 && off != 5)
        return 0;
    if (!s->uart_in)
        return off == 5 ? 0x20 : 0;
    if (s->uart_in == stdin)
        fflush(npk_guest_out(s->m)); /* the user sees the prompt before we wait */
    int c = getc(s->uart_in);
    if (off == 5) {
        if (c != EOF)
            ungetc(c, s->uart_in);
        return (uint8_t)(0x20 | (c != EOF));
    }
    return c == EOF ? 0 : (uint8_t)c;
}

static uint8_t dev_read8(rvnpu_state *s, uint32_t a)
{
    if (a - RVNPU_UART_BASE < RVNPU_UART_SIZE)
        return uart_read(s, a - RVNPU_UART_BASE);
    return rvnpu_npu_reg_read(&s->npu, a - RVNPU_NPUREG_BASE);
}

static void dev_write8(rvnpu_state *s, uint32_t a, uint8_t v)
{
    if (a - RVNPU_UART_BASE < RVNPU_UART_SIZE) {
        if (a == RVNPU_UART_BASE) {
            fputc(v, npk_guest_out(s->m));
            s->guest_wrote = 1;
        }
    } else {
        rvnpu_npu_reg_write(&s->npu, a - RVNPU_NPUREG_BASE, v);
    }
}

/* RAM bytes as a little-endian value. On a little-endian host memcpy is one load. */
static inline uint32_t ram_get(const uint8_t *p, unsigned len)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (len == 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    if (len == 2) {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
#endif
    uint32_t v = 0;
    for (unsigned i = 0; i < len; i++)
        v |= (uint32_t)p[i] << (8 * i);
    return v;
}

static inline void ram_put(uint8_t *p, uint32_t v, unsigned len)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (len == 4) {
        memcpy(p, &v, 4);
        return;
    }
    if (len == 2) {
        uint16_t h = (uint16_t)v;
        memcpy(p, &h, 2);
        return;
    }
#endif
    for (unsigned i = 0; i < len; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Only for accesses rvnpu_mapped accepted. Little-endian at any alignment. */
uint32_t rvnpu_load(rvnpu_state *s, uint32_t addr, unsigned len)
{
    uint32_t off = addr - RVNPU_RAM_BASE, v = 0;
    if (off < s->ram_size)
        return ram_get(s->ram + off, len);
    for (unsigned i = 0; i < len; i++)
        v |= (uint32_t)dev_read8(s, addr + i) << (8 * i);
    return v;
}

void rvnpu_store(rvnpu_state *s, uint32_t addr, uint32_t v, unsigned len)
{
    uint32_t off = addr - RVNPU_RAM_BASE;
    if (off < s->ram_size) {
        ram_put(s->ram + off, v, len);
        rvnpu_invalidate(s, off, len);
        return;
    }
    for (unsigned i = 0; i < len; i++)
        dev_write8(s, addr + i, (uint8_t)(v >> (8 * i)));
}

/* ---- traps and diagnostics -------------------------------------------------------------------- */

enum { RETIRED = 0, RETIRED_STOP = 1, TRAPPED = 2, FAULTED = 3 };

static const char *cause_name(uint32_t c)
{
    switch (c) {
    case 0: return "instruction address misaligned";
    case 1: return "instruction access fault";
    case 2: return "illegal instruction";
    case 3: return "breakpoint";
    case 5: return "load access fault";
    case 7: return "store access fault";
    case 11: return "environment call from M-mode";
    default: return "exception";
    }
}

static int fetch_word(rvnpu_state *s, uint32_t pc, uint32_t *w)
{
    uint32_t off = pc - RVNPU_RAM_BASE;
    if (off >= s->ram_size || s->ram_size - off < 4 || (pc & 3))
        return -1;
    *w = rvnpu_load(s, pc, 4);
    return 0;
}

/* "pc 0x..., word 0x... (disassembly)" for the instruction at pc. */
static void describe(rvnpu_state *s, uint32_t pc, char *out, size_t n)
{
    uint32_t w;
    if (fetch_word(s, pc, &w) != 0) {
        snprintf(out, n, "pc 0x%08x (no instruction: not an aligned RAM address)", pc);
        return;
    }
    char text[160];
    rvnpu_disasm(w, pc, s->rev2, text, sizeof text);
    snprintf(out, n, "pc 0x%08x, word 0x%08x (%s)", pc, w, text);
}

/* Raise exception `cause` for the instruction at s->pc. With a trap vector, enter it (the
 * instruction does not retire); without one, stop with the §11.8 diagnostic. */
static int trap(rvnpu_state *s, npk_stop *stop, uint32_t cause, uint32_t tval, const char *extra)
{
    uint32_t vec = s->mtvec & ~3u, voff = vec - RVNPU_RAM_BASE;
    if (vec && voff < s->ram_size && s->ram_size - voff >= 4 && s->pc != vec) {
        s->mepc = s->pc;
        s->mcause = cause;
        s->mtval = tval;
        s->mpie = s->mie;
        s->mie = 0;
        s->pc = vec;
        return TRAPPED;
    }
    /* No vector, one that could never fetch, or a trap at the vector itself: entering it would
     * trap again forever. */
    char where[256], vtext[96];
    describe(s, s->pc, where, sizeof where);
    if (vec && s->pc == vec)
        snprintf(vtext, sizeof vtext, "the trap vector (mtvec = 0x%08x) itself trapped", vec);
    else if (vec)
        snprintf(vtext, sizeof vtext, "trap vector mtvec = 0x%08x is outside RAM", vec);
    else
        snprintf(vtext, sizeof vtext, "no trap vector (mtvec = 0)");
    npk_stop_set(stop, NPK_STOP_FAULT, s->pc,
                 "%s (mcause %u) at %s; mtval 0x%08x; %llu instructions retired%s%s; %s",
                 cause_name(cause), cause, where, tval, (unsigned long long)s->retired,
                 extra ? "; " : "", extra ? extra : "", vtext);
    uint32_t w;
    if (fetch_word(s, s->pc, &w) == 0) {
        stop->insn[0] = w;
        stop->insn_bits = 32;
    }
    s->mepc = s->pc;
    s->mcause = cause;
    s->mtval = tval;
    return FAULTED;
}

/* ---- the instructions --------------------------------------------------------------------------- */

#if defined(__GNUC__)
#define RVNPU_HOT static inline __attribute__((always_inline))
#define RVNPU_COLD static __attribute__((noinline))
#else
#define RVNPU_HOT static inline
#define RVNPU_COLD static
#endif

/* The fast loop's handler index h of a cache entry: 1 + op for the plain handler, H_SLOW for
 * an entry it must always hand to exec_one() (a pc-relative jump whose target is misaligned
 * or outside RAM), plus H_VAR times a variant: 1 when the previous word writes this
 * instruction's rs1 (rd != x0), 2 when it writes rs2. Reached in sequence from that previous
 * instruction, a variant takes the operand from the host register that still holds the
 * result instead of reloading it from x[] (a store-to-load round trip on the critical path);
 * reached any other way, it runs the plain handler. */
#define H_SLOW (RVNPU_OP_ILLEGAL + 2)
#define H_VAR (H_SLOW + 1)
#define H_COUNT (3 * H_VAR)

/* Fill decode-cache entry i (RAM word i) from the word in RAM. */
static void decode_into(rvnpu_state *s, rvnpu_decoded *d, uint32_t i)
{
    rvnpu_decode(ram_get(s->ram + 4 * (size_t)i, 4), s->rev2, d, NULL, 0);
    unsigned h = d->op + 1u;
    s->code_pages[i / (RVNPU_PAGE / 4)] |= RVNPU_PAGE_CODE;
    /* pc-relative targets are known now: the fast loop's JAL and branches need no checks */
    if (d->op == RVNPU_OP_JAL || (d->op < RVNPU_N_OPS && rvnpu_insns[d->op].fmt == RVNPU_FMT_B)) {
        int64_t t = (int64_t)i + (d->imm >> 2);
        if ((d->imm & 3) || t < 0 || t >= (int64_t)(s->ram_size / 4))
            h = H_SLOW;
    }
    if (h != H_SLOW && i > 0) {
        rvnpu_decoded p;
        rvnpu_decode(ram_get(s->ram + 4 * (size_t)(i - 1), 4), s->rev2, &p, NULL, 0);
        if (p.dst < 32) /* writes x[p.rd], p.rd != 0 */
            h += p.rd == d->rs1 ? H_VAR : p.rd == d->rs2 ? 2 * H_VAR : 0;
    }
    d->h = (uint16_t)h;
    /* the next entry's variant was chosen from this word's earlier contents: choose again */
    d[1].h = 0;
}

/* The decoded form of the word at pc, decoding on first use; NULL when pc cannot be fetched. */
RVNPU_HOT const rvnpu_decoded *fetch(rvnpu_state *s)
{
    uint32_t off = s->pc - RVNPU_RAM_BASE;
    if (off >= s->ram_size || (off & 3))
        return NULL;
    rvnpu_decoded *d = &s->dcache[off >> 2];
    if (!d->h)
        decode_into(s, d, off >> 2);
    return d;
}

/* Rounding mode of an F instruction: its rm field, or frm for DYN; -1 when reserved. */
static inline int fp_rm(const rvnpu_state *s, const rvnpu_decoded *d)
{
    unsigned rm = d->rm == 7 ? s->frm : d->rm;
    return rm <= 4 ? (int)rm : -1;
}

static int illegal_word(rvnpu_state *s, npk_stop *stop)
{
    uint32_t w = rvnpu_load(s, s->pc, 4);
    return trap(s, stop, 2, w, NULL);
}

#define X(r) s->x[r]

static int do_ecall(rvnpu_state *s, npk_stop *stop)
{
    int64_t code = 0;
    int r = s->syscalls ? rvnpu_syscall(s, &code) : -1;
    if (r == 0)
        return RETIRED;
    if (r == 1) {
        npk_stop_set(stop, NPK_STOP_EXIT, s->pc, "exit(%lld)", (long long)code);
        stop->exit_code = code;
        return RETIRED_STOP;
    }
    char extra[200];
    snprintf(extra, sizeof extra, "syscall %u (a7) with a0=0x%08x a1=0x%08x a2=0x%08x a3=0x%08x%s",
             X(17), X(10), X(11), X(12), X(13),
             s->syscalls ? " is not a known host syscall" : "; host syscalls are off");
    return trap(s, stop, 11, 0, extra);
}

/* Operand macros shared by both includes of exec_ops.h. */
#define A s->x[d->rs1]
#define B s->x[d->rs2]
#define IMM d->imm
#define F1 s->f[d->rs1]
#define F2 s->f[d->rs2]
#define F3 s->f[d->rs3]
#define WX(v) (s->x[d->rd] = (v))
#define WF(v) (s->f[d->rd] = (v))
#define FP_FLAGS(e) (s->fflags |= (e).flags & 0x1F)
#define EXTEND(v, n, ext)                                                                      \
    ((ext) == 's' ? ((n) == 1 ? (uint32_t)(int32_t)(int8_t)(v)                                 \
                              : (n) == 2 ? (uint32_t)(int32_t)(int16_t)(v) : (v))              \
                  : (v))

/* Execute one decoded instruction at s->pc: everything the fast loop does not finish itself.
 * *taken reports a taken branch or jump and *elements the NPU elements processed (for timing
 * and statistics). */
RVNPU_HOT int exec_one(rvnpu_state *s, const rvnpu_decoded *d, npk_stop *stop, int *taken,
                       uint32_t *elements)
{
    uint32_t pc = s->pc, next = pc + 4;
    switch ((rvnpu_op)d->op) {
#define PC pc
#define JCHECK(t)                                                                             \
    if ((t)&3)                                                                                \
    return trap(s, stop, 0, (t), NULL)
#define JUMP(t) (next = (t), *taken = 1)
#define JREL_CHECK(o) JCHECK(pc + (uint32_t)(o))
#define JUMP_REL(o)                                                                           \
    do {                                                                                      \
        uint32_t t_ = pc + (uint32_t)(o);                                                     \
        JCHECK(t_);                                                                           \
        JUMP(t_);                                                                             \
    } while (0)
#define FP_RM(rm)                                                                             \
    if (((rm) = fp_rm(s, d)) < 0)                                                             \
    return illegal_word(s, stop)
#define LOAD(v, n, ext)                                                                       \
    do {                                                                                      \
        uint32_t ea_ = A + (uint32_t)IMM, off_ = ea_ - RVNPU_RAM_BASE;                        \
        if (off_ < s->ram_size && (n) <= s->ram_size - off_) {                                \
            (v) = ram_get(s->ram + off_, (n));                                                \
        } else {                                                                              \
            if (!rvnpu_mapped(s, ea_, (n)))                                                   \
                return trap(s, stop, 5, ea_, NULL);                                           \
            (v) = rvnpu_load(s, ea_, (n));                                                    \
        }                                                                                     \
        (v) = EXTEND((v), (n), (ext));                                                        \
    } while (0)
#define STORE(n, v)                                                                           \
    do {                                                                                      \
        uint32_t ea_ = A + (uint32_t)IMM, off_ = ea_ - RVNPU_RAM_BASE, v_ = (v);              \
        if (off_ < s->ram_size && (n) <= s->ram_size - off_) {                                \
            ram_put(s->ram + off_, v_, (n));                                                  \
            /* only code pages and the tohost word need the slow bookkeeping */               \
            if (s->code_pages[off_ / RVNPU_PAGE] | s->code_pages[(off_ + (n)-1) / RVNPU_PAGE]) \
                rvnpu_invalidate(s, off_, (n));                                               \
        } else {                                                                              \
            if (!rvnpu_mapped(s, ea_, (n)))                                                   \
                return trap(s, stop, 7, ea_, NULL);                                           \
            rvnpu_store(s, ea_, v_, (n));                                                     \
        }                                                                                     \
    } while (0)
#define RVOP(name, ...)                                                                       \
    case RVNPU_OP_##name: {                                                                   \
        __VA_ARGS__                                                                           \
    } break;
#include "targets/rvnpu/exec_ops.h"
#undef RVOP
#undef PC
#undef JCHECK
#undef JUMP
#undef JREL_CHECK
#undef JUMP_REL
#undef FP_RM
#undef LOAD
#undef STORE

    case RVNPU_OP_ECALL: {
        int r = do_ecall(s, stop);
        if (r != RETIRED && r != RETIRED_STOP)
            return r;
        s->pc = next;
        return r;
    }
    case RVNPU_OP_EBREAK: return trap(s, stop, 3, pc, NULL);
    case RVNPU_OP_MRET:
        next = s->mepc;
        s->mie = s->mpie;
        s->mpie = 1;
        *taken = 1;
        break;
    case RVNPU_OP_CSRRW:
    case RVNPU_OP_CSRRS:
    case RVNPU_OP_CSRRC:
    case RVNPU_OP_CSRRWI:
    case RVNPU_OP_CSRRSI:
    case RVNPU_OP_CSRRCI: {
        unsigned csr = (uint32_t)d->imm & 0xFFF, f3 = rvnpu_insns[d->op].match >> 12 & 7;
        uint32_t src = f3 >= 5 ? d->rs1 : A, old = rvnpu_csr_read(s, csr);
        if ((f3 & 3) == 1)
            rvnpu_csr_write(s, csr, src);
        else if (d->rs1 != 0)
            rvnpu_csr_write(s, csr, (f3 & 3) == 2 ? old | src : old & ~src);
        WX(old);
        break;
    }
    case RVNPU_OP_ILLEGAL: return illegal_word(s, stop);
    default: {
        /* NPU instructions */
        rvnpu_npu_trap t;
        uint32_t w = rvnpu_load(s, pc, 4);
        if (rvnpu_npu_exec(&s->npu, (rvnpu_op)d->op, w, s->x, s->f, s->rev2, &s->bus, elements,
                           &t)) {
            s->x[0] = 0;
            return trap(s, stop, t.mcause, t.mtval, t.detail[0] ? t.detail : NULL);
        }
        s->x[0] = 0;
        break;
    }
    }
    s->pc = next;
    return RETIRED;
}

/* After a retired instruction: did it make the tohost word non-zero (§11.8)? */
static int check_tohost(npk_machine *m, rvnpu_state *s, npk_stop *stop, uint32_t pc)
{
    s->tohost_hit = 0;
    uint32_t v = rvnpu_load(s, s->tohost, 4);
    if (v == 0)
        return 0;
    if (v == 1) {
        npk_stop_set(stop, NPK_STOP_EXIT, pc, "tohost: PASS");
        stop->exit_code = 0;
        fprintf(npk_guest_err(m), "npukit: tohost: PASS\n");
    } else {
        npk_stop_set(stop, NPK_STOP_EXIT, pc, "tohost: FAIL test %u (tohost = 0x%08x)", v >> 1, v);
        stop->exit_code = 1;
        fprintf(npk_guest_err(m), "npukit: tohost: FAIL test %u\n", v >> 1);
    }
    return 1;
}

RVNPU_HOT int step(npk_machine *m, rvnpu_state *s, npk_stop *stop, const rvnpu_decoded **dp,
                       int *taken, uint32_t *elements)
{
    const rvnpu_decoded *d = fetch(s);
    *dp = d;
    if (!d)
        return trap(s, stop, (s->pc & 3) ? 0 : 1, s->pc, NULL);
    uint32_t pc = s->pc;
    int r = exec_one(s, d, stop, taken, elements);
    if (r <= RETIRED_STOP) {
        s->retired++;
        if (s->tohost_hit && r == RETIRED && check_tohost(m, s, stop, pc))
            r = RETIRED_STOP;
    }
    return r;
}

/* One instruction the fast loop hands over (anything but the common case), out of line so
 * the threaded loop keeps its registers. */
RVNPU_COLD int slow_step(npk_machine *m, rvnpu_state *s, npk_stop *stop)
{
    const rvnpu_decoded *d;
    int taken = 0;
    uint32_t el = 0;
    return step(m, s, stop, &d, &taken, &el);
}

/* One-instruction-at-a-time loop through exec_one(): the fast loop's fallback. */
static int run_steps(npk_machine *m, rvnpu_state *s, uint64_t max, uint64_t *done, npk_stop *stop)
{
    uint64_t n = 0;
    while (!max || n < max) {
        int r = slow_step(m, s, stop);
        if (r <= RETIRED_STOP)
            n++;
        if (r == RETIRED_STOP || r == FAULTED) {
            *done = n;
            return 1;
        }
    }
    *done = n;
    return 0;
}

#if defined(__GNUC__)
#define RVNPU_FL_NAME run_fast
#define RVNPU_FL_STATS 0
#include "targets/rvnpu/fast_loop.h"
#else
/* Without labels as values: the same semantics through exec_one()'s switch. */
static int run_fast(npk_machine *m, rvnpu_state *s, uint64_t max, uint64_t *done, npk_stop *stop)
{
    return run_steps(m, s, max, done, stop);
}
#endif

/* ---- commit records (docs/commit-log.md) ---------------------------------------------------- */

/* The CSRs a record reports when they change (or when a CSR instruction writes them), in
 * this order; fcsr only when written as fcsr. */
static const struct {
    const char *name;
    uint16_t addr;
} commit_csrs[] = {
    {"fflags", 0x001}, {"frm", 0x002},      {"fcsr", 0x003},   {"mstatus", 0x300},
    {"mtvec", 0x305},  {"mscratch", 0x340}, {"mepc", 0x341},   {"mcause", 0x342},
    {"mtval", 0x343},
};
#define N_COMMIT_CSRS (sizeof commit_csrs / sizeof commit_csrs[0])
static const char *const vreg_names[4] = {"v0", "v1", "v2", "v3"};
static const char *const xreg_names[32] = {
    "x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",  "x8",  "x9",  "x10",
    "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20", "x21",
    "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "x30", "x31"};
static const char *const freg_names[32] = {
    "f0",  "f1",  "f2",  "f3",  "f4",  "f5",  "f6",  "f7",  "f8",  "f9",  "f10",
    "f11", "f12", "f13", "f14", "f15", "f16", "f17", "f18", "f19", "f20", "f21",
    "f22", "f23", "f24", "f25", "f26", "f27", "f28", "f29", "f30", "f31"};

/* The state an instruction may change, taken before it runs: a record reports what differs
 * afterwards, plus what the instruction writes by definition (its destination register,
 * a written CSR, the NPU accumulator it updates) even when the value stays the same. */
typedef struct commit_pre {
    uint32_t x[32], f[32], csr_raw[10], vreg[4];
    uint64_t acc, facc;
    uint32_t st_addr, st_value;
    unsigned st_len;       /* a scalar store's width, 0 for none */
} commit_pre;

static uint32_t vreg_word(const rvnpu_npu *n, unsigned k)
{
    return (uint32_t)(uint8_t)n->vreg[k][0] | (uint32_t)(uint8_t)n->vreg[k][1] << 8 |
           (uint32_t)(uint8_t)n->vreg[k][2] << 16 | (uint32_t)(uint8_t)n->vreg[k][3] << 24;
}

/* The state behind the CSRs of commit_csrs, raw: comparing it is cheaper than reading them. */
static void csr_raw(const rvnpu_state *s, uint32_t r[10])
{
    r[0] = s->fflags, r[1] = s->frm, r[2] = s->mie, r[3] = s->mpie, r[4] = s->fs;
    r[5] = s->mtvec, r[6] = s->mscratch, r[7] = s->mepc, r[8] = s->mcause, r[9] = s->mtval;
}

/* A CSR of commit_csrs from that raw state, as rvnpu_csr_read gives it (csr.c). */
static uint32_t csr_of_raw(unsigned addr, const uint32_t r[10])
{
    switch (addr) {
    case 0x001: return r[0];
    case 0x002: return r[1];
    case 0x003: return r[1] << 5 | r[0];
    case 0x300: return r[2] << 3 | r[3] << 7 | 3u << 11 | r[4] << 13 | (r[4] == 3 ? 1u << 31 : 0);
    case 0x305: return r[5];
    case 0x340: return r[6];
    case 0x341: return r[7];
    case 0x342: return r[8];
    default: return r[9];
    }
}

static void commit_before(rvnpu_state *s, commit_pre *p)
{
    memcpy(p->x, s->x, sizeof p->x);
    memcpy(p->f, s->f, sizeof p->f);
    csr_raw(s, p->csr_raw);
    for (unsigned k = 0; k < 4; k++)
        p->vreg[k] = vreg_word(&s->npu, k);
    p->acc = s->npu.acc;
    p->facc = s->npu.facc;
    p->st_len = 0;
    uint32_t off = s->pc - RVNPU_RAM_BASE;
    if (off >= s->ram_size || (off & 3))
        return;
    const rvnpu_decoded *d = fetch(s);
    switch ((rvnpu_op)d->op) {
    case RVNPU_OP_SB: p->st_len = 1; break;
    case RVNPU_OP_SH: p->st_len = 2; break;
    case RVNPU_OP_SW: case RVNPU_OP_FSW: p->st_len = 4; break;
    default: return;
    }
    p->st_addr = s->x[d->rs1] + (uint32_t)d->imm;
    p->st_value = d->op == RVNPU_OP_FSW ? s->f[d->rs2] : s->x[d->rs2];
}

/* ---- watchpoints (docs/breakpoints.md) ------------------------------------------------------- */

/* The data access of a scalar load or store, and the registers of a read or write syscall,
 * taken before the instruction runs (it may overwrite its own base register). */
typedef struct watch_pre {
    uint32_t addr, value;
    unsigned len;          /* scalar access width, 0 for none */
    int store;
    int ecall;
    uint32_t a0, a1, a2, a7;
} watch_pre;

static void watch_before(rvnpu_state *s, watch_pre *p)
{
    p->len = 0;
    p->ecall = 0;
    uint32_t off = s->pc - RVNPU_RAM_BASE;
    if (off >= s->ram_size || (off & 3))
        return;
    const rvnpu_decoded *d = fetch(s);
    p->store = 0;
    switch ((rvnpu_op)d->op) {
    case RVNPU_OP_LB: case RVNPU_OP_LBU: p->len = 1; break;
    case RVNPU_OP_LH: case RVNPU_OP_LHU: p->len = 2; break;
    case RVNPU_OP_LW: case RVNPU_OP_FLW: p->len = 4; break;
    case RVNPU_OP_SB: p->len = 1, p->store = 1; break;
    case RVNPU_OP_SH: p->len = 2, p->store = 1; break;
    case RVNPU_OP_SW: case RVNPU_OP_FSW: p->len = 4, p->store = 1; break;
    case RVNPU_OP_ECALL:
        p->ecall = 1;
        p->a0 = s->x[10], p->a1 = s->x[11], p->a2 = s->x[12], p->a7 = s->x[17];
        return;
    default: return;
    }
    p->addr = s->x[d->rs1] + (uint32_t)d->imm;
    p->value = d->op == RVNPU_OP_FSW ? s->f[d->rs2] : s->x[d->rs2];
}

/* An access on the bus: a watch on "bus" sees it at its address, one on "ram" (space 0) at
 * its offset when it lies in RAM. */
static void watch_bus(npk_machine *m, rvnpu_state *s, uint32_t addr, const uint8_t *bytes,
                      uint32_t len, unsigned kind)
{
    npk_watch_access(m, NPK_SPACE_BUS, addr, len, kind, bytes);
    uint32_t off = addr - RVNPU_RAM_BASE;
    if (off < s->ram_size && len <= s->ram_size - off)
        npk_watch_access(m, 0, off, len, kind, bytes);
}

static void watch_value(npk_machine *m, rvnpu_state *s, uint32_t addr, uint32_t v, unsigned len,
                        unsigned kind)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    watch_bus(m, s, addr, b, len, kind);
}

/* The accesses of the retired instruction d: its scalar load or store, or the buffer of a
 * read or write syscall (the NPU's go through the bus hooks as they happen). */
static void watch_after(npk_machine *m, rvnpu_state *s, const watch_pre *p,
                        const rvnpu_decoded *d)
{
    if (p->len && p->store) {
        watch_value(m, s, p->addr, p->value, p->len, NPK_WATCH_WRITE);
    } else if (p->len) {
        /* the value loaded: its low bytes are in rd whatever the extension, except for x0 */
        uint32_t off = p->addr - RVNPU_RAM_BASE, v;
        if (d->op == RVNPU_OP_FLW)
            v = s->f[d->rd];
        else if (d->rd)
            v = s->x[d->rd];
        else
            v = off < s->ram_size && p->len <= s->ram_size - off ? rvnpu_load(s, p->addr, p->len)
                                                                  : 0;
        watch_value(m, s, p->addr, v, p->len, NPK_WATCH_READ);
    } else if (p->ecall && (p->a7 == 63 || p->a7 == 64) && (int32_t)s->x[10] > 0) {
        /* read filled, write sent, a0 bytes at a1, all inside RAM (syscalls.c checked) */
        uint32_t off = p->a1 - RVNPU_RAM_BASE, n = s->x[10];
        if (off < s->ram_size && n <= s->ram_size - off)
            watch_bus(m, s, p->a1, s->ram + off, n,
                      p->a7 == 63 ? NPK_WATCH_WRITE : NPK_WATCH_READ);
    }
}

/* The NPU's loads while read watches are set (the bus then has no RAM fast path, so every
 * element comes here). */
static uint32_t watch_bus_load(void *ctx, uint32_t addr, unsigned size)
{
    rvnpu_state *s = ctx;
    uint32_t v = rvnpu_load(s, addr, size);
    watch_value(s->m, s, addr, v, size, NPK_WATCH_READ);
    return v;
}

/* The NPU's stores while records are made or writes watched: each element is a memory effect
 * (adjacent ones merge into one) and a watched access, then the ordinary store. */
static void commit_bus_store(void *ctx, uint32_t addr, uint32_t value, unsigned size)
{
    rvnpu_state *s = ctx;
    npk_obs *o = npk_observers(s->m);
    npk_commit_sink *c = o->commit;
    if (c)
        npk_commit_mem_value(c, "bus", addr, value, size);
    if (npk_watch_wants(o->dbg, NPK_WATCH_WRITE))
        watch_value(s->m, s, addr, value, size, NPK_WATCH_WRITE);
    rvnpu_store(s, addr, value, size);
}

static void commit_after(npk_machine *m, rvnpu_state *s, npk_commit_sink *c, commit_pre *p,
                         const rvnpu_decoded *d, uint32_t word, int retired, uint64_t cycle)
{
    unsigned dst = retired && d ? d->dst : RVNPU_NOREG;
    /* which registers changed, as bit masks, plus dst; usually dst is all that changed, which
     * two memcmp calls tell once dst's old value is taken as its new one */
    uint32_t xm = 0, fm = 0;
    if (dst < 32) {
        xm = 1u << dst;
        p->x[dst] = s->x[dst];
    } else if (dst < 64) {
        fm = 1u << (dst - 32);
        p->f[dst - 32] = s->f[dst - 32];
    }
    if (memcmp(s->x, p->x, sizeof p->x) != 0)
        for (unsigned i = 0; i < 32; i++)
            xm |= (uint32_t)(s->x[i] != p->x[i]) << i;
    if (memcmp(s->f, p->f, sizeof p->f) != 0)
        for (unsigned i = 0; i < 32; i++)
            fm |= (uint32_t)(s->f[i] != p->f[i]) << i;
    xm &= ~1u;
    for (unsigned i = 0; xm; i++, xm >>= 1)
        if (xm & 1)
            npk_commit_reg(c, xreg_names[i], 32, s->x[i]);
    for (unsigned i = 0; fm; i++, fm >>= 1)
        if (fm & 1)
            npk_commit_reg(c, freg_names[i], 32, s->f[i]);
    /* the CSR a CSR instruction writes: csrrw[i] always, the others with a non-zero rs1/zimm */
    int csr_w = -1;
    rvnpu_op op = d ? (rvnpu_op)d->op : RVNPU_OP_ILLEGAL;
    if (retired && (op == RVNPU_OP_CSRRW || op == RVNPU_OP_CSRRWI ||
                    ((op == RVNPU_OP_CSRRS || op == RVNPU_OP_CSRRC || op == RVNPU_OP_CSRRSI ||
                      op == RVNPU_OP_CSRRCI) && (word >> 15 & 31) != 0)))
        csr_w = (int)(word >> 20);
    int listed = 0;
    uint32_t raw[10];
    csr_raw(s, raw);
    /* the common case, no CSR written or changed, compares ten words */
    for (size_t i = 0; (csr_w >= 0 || memcmp(raw, p->csr_raw, sizeof raw) != 0) &&
                       i < N_COMMIT_CSRS; i++) {
        unsigned a = commit_csrs[i].addr;
        uint32_t v = csr_of_raw(a, raw);
        int written = csr_w == (int)a;
        listed |= written;
        if (a == 0x003 ? written
                       : written || (v != csr_of_raw(a, p->csr_raw) &&
                                     !(csr_w == 0x003 && a <= 0x002)))
            npk_commit_reg(c, commit_csrs[i].name, 32, v);
    }
    if (csr_w >= 0 && !listed) { /* counters, misa, mie, mip: reported by their own name */
        const rvnpu_csr_info *ci = rvnpu_csr_find((unsigned)csr_w);
        if (ci)
            npk_commit_reg(c, ci->name, 32, rvnpu_csr_read(s, (unsigned)csr_w));
    }
    int acc_w = retired && (op == RVNPU_OP_NPU_MACC || op == RVNPU_OP_NPU_VMAC ||
                            op == RVNPU_OP_NPU_RSTACC);
    int facc_w = retired && (op == RVNPU_OP_NPU_FMACC || op == RVNPU_OP_NPU_FVMAC ||
                             op == RVNPU_OP_NPU_FRSTACC);
    if (acc_w || s->npu.acc != p->acc)
        npk_commit_reg(c, "acc", 64, s->npu.acc);
    if (facc_w || s->npu.facc != p->facc)
        npk_commit_reg(c, "facc", 64, s->npu.facc);
    for (unsigned k = 0; k < 4; k++) {
        uint32_t v = vreg_word(&s->npu, k);
        if ((retired && op == RVNPU_OP_NPU_LDVEC && (d->rd & 3) == k) || v != p->vreg[k])
            npk_commit_reg(c, vreg_names[k], 32, v);
    }
    if (retired && p->st_len)
        npk_commit_mem_value(c, "bus", p->st_addr, p->st_value, p->st_len);
    /* the one host syscall that writes guest memory: read(fd, buf, n) filled a0 bytes at buf,
     * all inside RAM (rvnpu spec §11.6; syscalls.c checked the range) */
    if (retired && op == RVNPU_OP_ECALL && p->x[17] == 63 && (int32_t)s->x[10] > 0 &&
        p->x[11] - RVNPU_RAM_BASE < s->ram_size &&
        s->x[10] <= s->ram_size - (p->x[11] - RVNPU_RAM_BASE))
        npk_commit_mem(c, "bus", p->x[11], s->ram + (p->x[11] - RVNPU_RAM_BASE), s->x[10]);
    if (!retired)
        npk_commit_trap(c, cause_name(s->mcause), s->mcause, s->mtval);
    npk_commit_end(m, c, retired, cycle);
}

/* The statistics counter of an instruction's class (NPU classes count elements as well). */
static rvnpu_extra class_extra(rvnpu_class cls)
{
    switch (cls) {
    case RVNPU_CLASS_M: return RVNPU_X_M;
    case RVNPU_CLASS_F: return RVNPU_X_F;
    case RVNPU_CLASS_NPU: return RVNPU_X_NPU;
    case RVNPU_CLASS_FNPU: return RVNPU_X_FNPU;
    default: return RVNPU_X_RV32I;
    }
}

static int run_observed(npk_machine *m, rvnpu_state *s, uint64_t max, uint64_t *done,
                        npk_stop *stop)
{
    npk_obs *o = npk_observers(m);
    npk_commit_sink *cs = o->commit;
    npk_dbg *dbg = o->dbg;
    rvnpu_bus bus = s->bus;
    if (cs || npk_watch_wants(dbg, NPK_WATCH_WRITE)) {
        s->bus.store = commit_bus_store;
        s->bus.wrote = NULL; /* every NPU store through the bus, where it is seen */
    }
    if (npk_watch_wants(dbg, NPK_WATCH_READ)) {
        s->bus.load = watch_bus_load;
        s->bus.ram = NULL; /* every NPU load through the bus, where it is seen */
    }
    /* statistics alone (the common --stats run): no instruction bytes needed, the retire
     * bookkeeping inline */
    const int lean = !cs && !dbg && !o->trace && !o->timeline;
    uint64_t n = 0;
    while (!max || n < max) {
        const rvnpu_decoded *d;
        int taken = 0;
        uint32_t el = 0, pc = s->pc, word = 0;
        if (dbg && npk_break_hit(m, pc)) {
            char where[256];
            describe(s, pc, where, sizeof where);
            npk_break_stop(m, stop, pc, where);
            if (fetch_word(s, pc, &word) == 0) {
                stop->insn[0] = word;
                stop->insn_bits = 32;
            }
            break;
        }
        watch_pre wp = {0};
        if (dbg && dbg->kinds)
            watch_before(s, &wp);
        int fetched = !lean && fetch_word(s, pc, &word) == 0;
        uint8_t bytes[4] = {(uint8_t)word, (uint8_t)(word >> 8), (uint8_t)(word >> 16),
                            (uint8_t)(word >> 24)};
        commit_pre pre;
        if (cs) {
            commit_before(s, &pre);
            npk_commit_begin(cs, pc, fetched ? bytes : NULL, 4);
        }
        int r = step(m, s, stop, &d, &taken, &el);
        if (r == TRAPPED || r == FAULTED) {
            if (dbg)
                npk_watch_drop(m); /* nothing of a trapped instruction happened */
            o->extra[RVNPU_X_TRAPS]++;
            if (cs)
                commit_after(m, s, cs, &pre, d, word, 0, o->cycles);
            if (r == FAULTED)
                break;
            continue;
        }
        n++;
        rvnpu_op op = (rvnpu_op)d->op;
        npk_event ev = {.pc = pc, .mnemonic = op, .unit = s->unit_of[op]};
        ev.word = bytes;
        uint64_t stalls = 0;
        rvnpu_timing_inline(s, d, taken, el, &ev.start, &ev.end, &stalls);
        o->extra[RVNPU_X_STALLS] += stalls;
        rvnpu_class cls = rvnpu_insns[op].cls;
        o->extra[class_extra(cls)]++;
        if (cls == RVNPU_CLASS_NPU || cls == RVNPU_CLASS_FNPU)
            o->extra[RVNPU_X_NPU_ELEMS] += el;
        if (ev.unit == RVNPU_U_LSU) {
            if (s->is_store[op])
                o->extra[RVNPU_X_STORES]++;
            else
                o->extra[RVNPU_X_LOADS]++;
        }
        if (cs)
            commit_after(m, s, cs, &pre, d, word, 1, ev.start);
        if (lean)
            npk_obs_retire_stats(o, op, ev.unit, ev.start, ev.end);
        else
            npk_obs_retire(m, &ev);
        if (r == RETIRED_STOP) {
            if (dbg)
                npk_watch_drop(m); /* the program ended: that is the stop */
            break;
        }
        if (dbg && dbg->kinds) {
            watch_after(m, s, &wp, d);
            if (dbg->pending) {
                char where[256];
                describe(s, pc, where, sizeof where);
                npk_watch_stop(m, stop, pc, s->pc, where);
                break;
            }
        }
    }
    s->bus = bus;
    *done = n;
    return stop->reason != NPK_STOP_NONE;
}

#if defined(__GNUC__)
#define RVNPU_FL_NAME run_stats
#define RVNPU_FL_STATS 1
#include "targets/rvnpu/fast_loop.h"
#else
static int run_stats(npk_machine *m, rvnpu_state *s, uint64_t max, uint64_t *done,
                     npk_stop *stop)
{
    return run_observed(m, s, max, done, stop);
}
#endif

#if defined(__GNUC__)
/* The recording loop (docs/commit-log.md, "Cost"): the threaded loop once more, for a run
 * whose only per-instruction observer is the commit record (npk_obs_records_only). Each
 * handler of exec_ops.h notes its effects as it makes them - WX/WF the destination register,
 * FP_FLAGS whether fflags changed, STORE the address, width and value - and one shared tail
 * runs the timing model (a record carries the issue cycle), keeps the timing state as
 * run_observed() does and the statistics too when they are on (npk_stats_enable; off, they
 * stay as they were, as on the fast path), fills the record in place and calls the sinks
 * directly. Whatever the fast loop hands to its slow path (CSRs, NPU instructions, traps,
 * syscalls, devices, stores to code or tohost pages, reserved rounding modes) goes to
 * run_observed() for one instruction, with its snapshot-and-compare record. The machine is
 * up to date at every callback (pc, x[], minstret), and the next instruction is found from
 * s->pc afterwards, so no operand-forwarding variants. tests/targets/rvnpu/test_record.c
 * checks the records against the observed loop's, byte for byte. (Statistics alone have
 * a loop of their own, run_stats: fast_loop.h.) */
#if !defined(__clang__)
/* the branches of the shared tail join at labels: -falign-labels=64 (CMakeLists.txt, for
 * the fast loop's handlers) would pad them with executed no-ops */
__attribute__((optimize("align-labels=1")))
#endif
static int run_record(npk_machine *m, rvnpu_state *s, uint64_t max, uint64_t *done,
                      npk_stop *stop)
{
    npk_obs *const o = npk_observers(m);
    npk_commit_sink *const c = o->commit;
    if ((max && max < 256) || npk_commit_reserve(c, 2, 4) != 0)
        return run_observed(m, s, max, done, stop);
    const void *jmp[H_COUNT];
    for (unsigned i = 0; i < H_COUNT; i++)
        jmp[i] = &&slow;
    jmp[0] = &&undecoded;
#define RVOP(name, ...)                                                                       \
    jmp[1 + RVNPU_OP_##name] = jmp[1 + RVNPU_OP_##name + H_VAR] =                             \
        jmp[1 + RVNPU_OP_##name + 2 * H_VAR] = &&rec_##name;
#include "targets/rvnpu/exec_ops.h"
#undef RVOP
    /* per op, once: its latency and unit for the timing model, its statistics counters
     * (mem: loads or stores, RVNPU_N_EXTRAS for neither) */
    struct {
        uint64_t lat;
        uint8_t unit, blocks, cls, mem;
    } info[RVNPU_N_OPS];
    for (unsigned i = 0; i < RVNPU_N_OPS; i++) {
        rvnpu_unit u = (rvnpu_unit)s->unit_of[i];
        info[i].lat = rvnpu_timing_lat(s, u, 0);
        info[i].unit = (uint8_t)u;
        info[i].blocks = (uint8_t)rvnpu_timing_blocks(u);
        info[i].cls = (uint8_t)class_extra(rvnpu_insns[i].cls);
        info[i].mem = u != RVNPU_U_LSU ? RVNPU_N_EXTRAS
                      : s->is_store[i] ? RVNPU_X_STORES
                                       : RVNPU_X_LOADS;
    }

    rvnpu_decoded *const dc = s->dcache;
    uint8_t *const ram = s->ram;
    const uint8_t *const cp = s->code_pages;
    const uint32_t ram_size = s->ram_size, nwords = ram_size / 4, ram_lim = ram_size - 4;
    const uint64_t lim = max ? max : UINT64_MAX;
    uint64_t left = lim; /* retired in this call: lim - left */
    uint64_t *const extra = o->extra, *const count = o->count, *const busy = o->busy;
    uint32_t *const x = s->x;
    const rvnpu_decoded *d, *nd;
    /* what the handler did: the register it wrote (its name, NULL for none and for x0's
     * scratch register) and the value, whether fflags changed, the store (size 0: none), and
     * whether it jumped */
    const char *xn[33] = {NULL}, *wn = NULL;
    memcpy(xn + 1, xreg_names + 1, 31 * sizeof *xn);
    unsigned fl = 0, sn = 0;
    uint32_t wv = 0, sa = 0, sv = 0, npc; /* npc: the next pc, nd its cache entry */
    int taken = 0, stopped = 0;
    /* what slot 0 of c->eff holds (the slow path changes it): a register or a memory effect
     * of the recording loop's, so that the next one writes only what differs, or neither */
    enum { E0_NONE, E0_REG, E0_MEM } e0 = E0_NONE;

#undef A
#undef B
#undef WX
#undef WF
#undef FP_FLAGS
#define A x[d->rs1]
#define B x[d->rs2]
#define WX(v) (x[d->rd] = wv = (v), wn = xn[d->rd])
#define WF(v) (s->f[d->rd] = wv = (v), wn = freg_names[d->rd])
#define FP_FLAGS(e)                                                                           \
    do {                                                                                      \
        uint32_t f_ = s->fflags | ((e).flags & 0x1F);                                         \
        fl = f_ != s->fflags;                                                                 \
        s->fflags = f_;                                                                       \
    } while (0)
#define PC (RVNPU_RAM_BASE + 4 * (uint32_t)(d - dc))
#define JCHECK(t)                                                                             \
    if (((t)&3) | ((t)-RVNPU_RAM_BASE >= ram_size))                                           \
    goto slow
#define JUMP(t)                                                                               \
    do {                                                                                      \
        npc = (t);                                                                            \
        nd = dc + ((npc - RVNPU_RAM_BASE) >> 2);                                              \
        taken = 1;                                                                            \
        goto commit;                                                                          \
    } while (0)
#define JREL_CHECK(o) ((void)0)
#define JUMP_REL(o) JUMP(PC + (uint32_t)(o))
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
        sv = (v);                                                                             \
        ram_put(ram + off_, sv, (n));                                                         \
        sa = off_ + RVNPU_RAM_BASE;                                                           \
        sn = (n);                                                                             \
    } while (0)

    c->rec.word = c->word, c->rec.word_bytes = 4, c->rec.retired = 1;
    c->rec.effects = c->eff;
    goto moved;

#define RVOP(name, ...)                                                                       \
    rec_##name : {__VA_ARGS__} nd = d + 1;                                                    \
    npc = PC + 4;                                                                             \
    goto commit;
#include "targets/rvnpu/exec_ops.h"
#undef RVOP

commit: {
    /* what run_observed() does for a retired instruction, in its order */
    rvnpu_op op = (rvnpu_op)d->op;
    uint64_t stalls, start = rvnpu_timing_issue(s, d, taken, info[op].lat, info[op].blocks,
                                                &stalls),
                     end = start + info[op].lat;
    if (o->stats) { /* (the observed loop counts whether or not anyone asked) */
        extra[RVNPU_X_STALLS] += stalls;
        extra[info[op].cls]++;
        if (info[op].mem < RVNPU_N_EXTRAS)
            extra[info[op].mem]++;
    }
    s->retired++;
    uint32_t pc = PC;
    s->pc = npc;
    /* the record commit_after() would make: the register, fflags, the store (the fields
     * every such record shares are set on entry and after the slow path) */
    npk_effect *e = c->eff;
    size_t n = 0;
    c->rec.pc = pc;
    memcpy(c->word, ram + (pc - RVNPU_RAM_BASE), 4);
    if (wn) {
        if (e0 != E0_REG)
            e[0] = (npk_effect){NPK_EFFECT_REG, NULL, 32, 0, 0, 0, NULL}, e0 = E0_REG;
        e[0].name = wn;
        e[0].value = wv;
        n = 1;
    } else if (sn) {
        ram_put(c->bytes, sv, 4); /* the first sn bytes are the store's */
        if (e0 != E0_MEM)
            e[0] = (npk_effect){NPK_EFFECT_MEM, "bus", 0, 0, 0, 0, c->bytes}, e0 = E0_MEM;
        e[0].addr = sa;
        e[0].size = sn;
        e[0].value = sn == 4 ? sv : sv & ((1u << (8 * sn)) - 1);
        n = 1;
    }
    if (fl) {
        e[n] = (npk_effect){NPK_EFFECT_REG, commit_csrs[0].name, 32, 0, 0, s->fflags, NULL};
        e0 = n ? e0 : E0_NONE;
        n++;
    }
    c->rec.seq = ++c->seq;
    c->rec.cycle = start;
    c->rec.n_effects = n;
    if (c->log)
        npk_commit_print(m, &c->rec, c->fmt, c->log);
    if (c->fn) { /* as npk_commit_deliver: the callback may unset itself */
        c->delivering = 1;
        c->fn(m, &c->rec, c->ctx);
        c->delivering = 0;
    }
    /* npk_obs_retire() without trace and timeline; the latest cycle always, for the cycle
     * of a trap's record */
    if (end > o->cycles)
        o->cycles = end;
    if (o->stats) {
        o->insns++;
        count[op]++;
        busy[info[op].unit] += info[op].lat;
    }
    wn = NULL, fl = sn = 0, taken = 0;
    if (--left == 0)
        goto out;
    if (__builtin_expect(s->pc != npc, 0)) /* the callback wrote pc */
        goto moved;
    d = nd;
    goto *jmp[d->h];
}

undecoded:
    if ((uint32_t)(d - dc) >= nwords) { /* ran off the end of RAM */
        s->pc = PC;
        goto slow_pc;
    }
    decode_into(s, (rvnpu_decoded *)d, (uint32_t)(d - dc));
    goto *jmp[d->h];

slow:
    s->pc = PC;
slow_pc : {
    uint64_t k = 0;
    wn = NULL, fl = sn = 0, taken = 0;
    e0 = E0_NONE;
    stopped = run_observed(m, s, 1, &k, stop);
    left -= k;
    if (stopped || left == 0)
        goto out;
    c->rec.word = c->word, c->rec.word_bytes = 4, c->rec.retired = 1;
    c->rec.effects = c->eff; /* it may have grown */
}
moved : {
    uint32_t off = s->pc - RVNPU_RAM_BASE;
    if (off >= ram_size || (off & 3))
        goto slow_pc; /* the fetch traps */
    d = dc + (off >> 2);
    goto *jmp[d->h];
}

out:
    *done = lim - left;
    return stopped;
#undef PC
#undef JCHECK
#undef JUMP
#undef JREL_CHECK
#undef JUMP_REL
#undef FP_RM
#undef LOAD
#undef STORE
#undef A
#undef B
#undef WX
#undef WF
#undef FP_FLAGS
}
#else
/* Without labels as values: the observed loop makes the records. */
static int run_record(npk_machine *m, rvnpu_state *s, uint64_t max, uint64_t *done,
                      npk_stop *stop)
{
    return run_observed(m, s, max, done, stop);
}
#endif

/* Before the first instruction of a program: find the tohost word (§11.8). */
static void watch_tohost(npk_machine *m, rvnpu_state *s)
{
    uint64_t v = 0; /* tohost stays 0 without the symbol: snapshots are deterministic */
    s->tohost_checked = 1;
    s->has_tohost = npk_symbol(m, "tohost", &v) == NPK_OK && rvnpu_mapped(s, (uint32_t)v, 4) &&
                    (uint32_t)v - RVNPU_RAM_BASE < s->ram_size;
    s->tohost = (uint32_t)v;
    s->tohost_hit = 0;
    if (s->has_tohost) /* stores to its page take the slow path, which watches it */
        s->code_pages[(s->tohost - RVNPU_RAM_BASE) / RVNPU_PAGE] |= RVNPU_PAGE_WATCH;
}

/* The end of a run or step that stopped the program: guest files closed, output flushed. */
static void finish(npk_machine *m, rvnpu_state *s, const npk_stop *stop)
{
    if (stop->reason == NPK_STOP_EXIT || stop->reason == NPK_STOP_FAULT)
        rvnpu_files_close(s);
    fflush(npk_guest_out(m));
    fflush(npk_guest_err(m));
    s->guest_wrote = 0;
}

/* npk_step: the observed loop or exec_one() for one retirement, and none of a run's end
 * work (budget message, flushes) unless the program stopped or wrote output. */
npk_status rvnpu_step(npk_machine *m, void *state, npk_stop *stop)
{
    rvnpu_state *s = state;
    if (!s->tohost_checked)
        watch_tohost(m, s);
    uint64_t done;
    int stopped = npk_obs_active(npk_observers(m)) ? run_observed(m, s, 1, &done, stop)
                                                   : run_steps(m, s, 1, &done, stop);
    if (stopped || stop->reason != NPK_STOP_NONE) {
        finish(m, s, stop);
        return NPK_OK;
    }
    stop->pc = s->pc;
    if (s->guest_wrote) {
        fflush(npk_guest_out(m));
        fflush(npk_guest_err(m));
        s->guest_wrote = 0;
    }
    return NPK_OK;
}

npk_status rvnpu_run(npk_machine *m, void *state, uint64_t max_insns, npk_stop *stop)
{
    rvnpu_state *s = state;
    if (!s->tohost_checked)
        watch_tohost(m, s);
    uint64_t done = 0;
    npk_obs *o = npk_observers(m);
    int stopped = !npk_obs_active(o)        ? run_fast(m, s, max_insns, &done, stop)
                  : npk_obs_stats_only(o)   ? run_stats(m, s, max_insns, &done, stop)
                  : npk_obs_records_only(o) ? run_record(m, s, max_insns, &done, stop)
                                            : run_observed(m, s, max_insns, &done, stop);
    if (!stopped && stop->reason == NPK_STOP_NONE && max_insns && done >= max_insns) {
        char where[256];
        describe(s, s->pc, where, sizeof where);
        npk_stop_set(stop, NPK_STOP_BUDGET, s->pc,
                     "instruction budget reached after %llu instructions; next: %s",
                     (unsigned long long)s->retired, where);
    }
    finish(m, s, stop);
    return NPK_OK;
}
