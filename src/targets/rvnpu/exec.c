/* rvnpu semantics: the memory system of §11.5, traps of §11.4 and one small case per
 * instruction, written once and instantiated twice: the fast loop (no observers) and the
 * observed loop (timing, statistics, trace, timeline). NPU instructions go to npu.c. */
#include <string.h>

#include "num/num.h"
#include "targets/rvnpu/asm.h"
#include "targets/rvnpu/rvnpu.h"

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
        if (!s->code_pages[pg])
            continue; /* nothing decoded there: the common case for data */
        uint32_t lo = pg * RVNPU_PAGE > off ? pg * RVNPU_PAGE : off;
        uint32_t hi = (pg + 1) * RVNPU_PAGE - 1 < last ? (pg + 1) * RVNPU_PAGE - 1 : last;
        for (uint32_t i = lo >> 2; i <= hi >> 2; i++)
            s->dcache[i].cached = 0;
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
        if (a == RVNPU_UART_BASE)
            fputc(v, npk_guest_out(s->m));
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
    if (s->mtvec & ~3u) {
        s->mepc = s->pc;
        s->mcause = cause;
        s->mtval = tval;
        s->mpie = s->mie;
        s->mie = 0;
        s->pc = s->mtvec & ~3u;
        return TRAPPED;
    }
    char where[256];
    describe(s, s->pc, where, sizeof where);
    npk_stop_set(stop, NPK_STOP_FAULT, s->pc,
                 "%s (mcause %u) at %s; mtval 0x%08x; %llu instructions retired%s%s; no trap "
                 "vector (mtvec = 0)",
                 cause_name(cause), cause, where, tval, (unsigned long long)s->retired,
                 extra ? "; " : "", extra ? extra : "");
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

/* The decoded form of the word at pc, decoding on first use; NULL when pc cannot be fetched. */
#if defined(__GNUC__)
#define RVNPU_HOT static inline __attribute__((always_inline))
#else
#define RVNPU_HOT static inline
#endif

RVNPU_HOT const rvnpu_decoded *fetch(rvnpu_state *s)
{
    uint32_t off = s->pc - RVNPU_RAM_BASE;
    if (off >= s->ram_size || (off & 3))
        return NULL;
    rvnpu_decoded *d = &s->dcache[off >> 2];
    if (!d->cached) {
        rvnpu_decode(rvnpu_load(s, s->pc, 4), s->rev2, d, NULL, 0);
        d->cached = 1;
        s->code_pages[off / RVNPU_PAGE] = 1;
    }
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
#define SET_X(r, v) (s->x[r] = (v), s->x[0] = 0)

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

/* Execute one decoded instruction at s->pc. *taken reports a taken branch or jump and
 * *elements the NPU elements processed (for timing and statistics). */
RVNPU_HOT int exec_one(rvnpu_state *s, const rvnpu_decoded *d, npk_stop *stop, int *taken,
                           uint32_t *elements)
{
    uint32_t a = X(d->rs1), b = X(d->rs2), pc = s->pc, next = pc + 4;
    uint32_t ea = a + (uint32_t)d->imm;
    npk_fenv env;
    int rm;
    switch ((rvnpu_op)d->op) {
    case RVNPU_OP_LUI: SET_X(d->rd, (uint32_t)d->imm); break;
    case RVNPU_OP_AUIPC: SET_X(d->rd, pc + (uint32_t)d->imm); break;
    case RVNPU_OP_JAL:
    case RVNPU_OP_JALR: {
        uint32_t t = d->op == RVNPU_OP_JAL ? pc + (uint32_t)d->imm : ea & ~1u;
        if (t & 3)
            return trap(s, stop, 0, t, NULL);
        SET_X(d->rd, next);
        next = t;
        *taken = 1;
        break;
    }
    case RVNPU_OP_BEQ: *taken = a == b; goto branch;
    case RVNPU_OP_BNE: *taken = a != b; goto branch;
    case RVNPU_OP_BLT: *taken = (int32_t)a < (int32_t)b; goto branch;
    case RVNPU_OP_BGE: *taken = (int32_t)a >= (int32_t)b; goto branch;
    case RVNPU_OP_BLTU: *taken = a < b; goto branch;
    case RVNPU_OP_BGEU: *taken = a >= b; goto branch;
    branch:
        if (*taken) {
            next = pc + (uint32_t)d->imm;
            if (next & 3)
                return trap(s, stop, 0, next, NULL);
        }
        break;
    case RVNPU_OP_LB:
    case RVNPU_OP_LH:
    case RVNPU_OP_LW:
    case RVNPU_OP_LBU:
    case RVNPU_OP_LHU:
    case RVNPU_OP_FLW: {
        unsigned n = 1u << (rvnpu_insns[d->op].match >> 12 & 3); /* funct3 1:0 = log2 size */
        uint32_t off = ea - RVNPU_RAM_BASE, v;
        if (off < s->ram_size && n <= s->ram_size - off) {
            v = ram_get(s->ram + off, n); /* the common case, without calls */
        } else {
            if (!rvnpu_mapped(s, ea, n))
                return trap(s, stop, 5, ea, NULL);
            v = rvnpu_load(s, ea, n);
        }
        switch ((rvnpu_op)d->op) {
        case RVNPU_OP_LB: v = (uint32_t)(int32_t)(int8_t)v; break;
        case RVNPU_OP_LH: v = (uint32_t)(int32_t)(int16_t)v; break;
        case RVNPU_OP_FLW: s->f[d->rd] = v; goto loaded;
        default: break;
        }
        SET_X(d->rd, v);
    loaded:
        break;
    }
    case RVNPU_OP_SB:
    case RVNPU_OP_SH:
    case RVNPU_OP_SW:
    case RVNPU_OP_FSW: {
        unsigned n = 1u << (rvnpu_insns[d->op].match >> 12 & 3);
        uint32_t off = ea - RVNPU_RAM_BASE, v = d->op == RVNPU_OP_FSW ? s->f[d->rs2] : b;
        if (off < s->ram_size && n <= s->ram_size - off) {
            ram_put(s->ram + off, v, n);
            /* only code pages and the tohost word need the slow bookkeeping */
            if (s->has_tohost || s->code_pages[off / RVNPU_PAGE] ||
                s->code_pages[(off + n - 1) / RVNPU_PAGE])
                rvnpu_invalidate(s, off, n);
        } else {
            if (!rvnpu_mapped(s, ea, n))
                return trap(s, stop, 7, ea, NULL);
            rvnpu_store(s, ea, v, n);
        }
        break;
    }
    case RVNPU_OP_ADDI: SET_X(d->rd, ea); break;
    case RVNPU_OP_SLTI: SET_X(d->rd, (int32_t)a < d->imm); break;
    case RVNPU_OP_SLTIU: SET_X(d->rd, a < (uint32_t)d->imm); break;
    case RVNPU_OP_XORI: SET_X(d->rd, a ^ (uint32_t)d->imm); break;
    case RVNPU_OP_ORI: SET_X(d->rd, a | (uint32_t)d->imm); break;
    case RVNPU_OP_ANDI: SET_X(d->rd, a & (uint32_t)d->imm); break;
    case RVNPU_OP_SLLI: SET_X(d->rd, a << (d->rs2)); break;
    case RVNPU_OP_SRLI: SET_X(d->rd, a >> (d->rs2)); break;
    case RVNPU_OP_SRAI: SET_X(d->rd, (uint32_t)((int32_t)a >> d->rs2)); break;
    case RVNPU_OP_ADD: SET_X(d->rd, a + b); break;
    case RVNPU_OP_SUB: SET_X(d->rd, a - b); break;
    case RVNPU_OP_SLL: SET_X(d->rd, a << (b & 31)); break;
    case RVNPU_OP_SLT: SET_X(d->rd, (int32_t)a < (int32_t)b); break;
    case RVNPU_OP_SLTU: SET_X(d->rd, a < b); break;
    case RVNPU_OP_XOR: SET_X(d->rd, a ^ b); break;
    case RVNPU_OP_SRL: SET_X(d->rd, a >> (b & 31)); break;
    case RVNPU_OP_SRA: SET_X(d->rd, (uint32_t)((int32_t)a >> (b & 31))); break;
    case RVNPU_OP_OR: SET_X(d->rd, a | b); break;
    case RVNPU_OP_AND: SET_X(d->rd, a & b); break;
    case RVNPU_OP_FENCE:
    case RVNPU_OP_FENCE_I:
    case RVNPU_OP_WFI: break;
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
    case RVNPU_OP_MUL: SET_X(d->rd, a * b); break;
    case RVNPU_OP_MULH:
        SET_X(d->rd, (uint32_t)((uint64_t)((int64_t)(int32_t)a * (int32_t)b) >> 32));
        break;
    case RVNPU_OP_MULHSU:
        SET_X(d->rd, (uint32_t)((uint64_t)((int64_t)(int32_t)a * (int64_t)b) >> 32));
        break;
    case RVNPU_OP_MULHU: SET_X(d->rd, (uint32_t)((uint64_t)a * b >> 32)); break;
    case RVNPU_OP_DIV:
        SET_X(d->rd, b == 0 ? 0xFFFFFFFFu
                     : (a == 0x80000000u && b == 0xFFFFFFFFu) ? a
                                                             : (uint32_t)((int32_t)a / (int32_t)b));
        break;
    case RVNPU_OP_DIVU: SET_X(d->rd, b == 0 ? 0xFFFFFFFFu : a / b); break;
    case RVNPU_OP_REM:
        SET_X(d->rd, b == 0 ? a
                     : (a == 0x80000000u && b == 0xFFFFFFFFu) ? 0
                                                             : (uint32_t)((int32_t)a % (int32_t)b));
        break;
    case RVNPU_OP_REMU: SET_X(d->rd, b == 0 ? a : a % b); break;

    /* F: every rounding, flag and NaN rule is src/num's. */
#define FP_BEGIN                                                                              \
    if ((rm = fp_rm(s, d)) < 0)                                                               \
        return illegal_word(s, stop);                                                         \
    npk_fenv_init(&env, (npk_rm)rm)
#define FP_END s->fflags |= env.flags & 0x1F
#define F1 s->f[d->rs1]
#define F2 s->f[d->rs2]
#define F3 s->f[d->rs3]
    case RVNPU_OP_FMADD_S: FP_BEGIN; s->f[d->rd] = npk_f32_fma(F1, F2, F3, &env); FP_END; break;
    case RVNPU_OP_FMSUB_S: FP_BEGIN; s->f[d->rd] = npk_f32_fms(F1, F2, F3, &env); FP_END; break;
    case RVNPU_OP_FNMSUB_S: FP_BEGIN; s->f[d->rd] = npk_f32_fnmsub(F1, F2, F3, &env); FP_END; break;
    case RVNPU_OP_FNMADD_S: FP_BEGIN; s->f[d->rd] = npk_f32_fnmadd(F1, F2, F3, &env); FP_END; break;
    case RVNPU_OP_FADD_S: FP_BEGIN; s->f[d->rd] = npk_f32_add(F1, F2, &env); FP_END; break;
    case RVNPU_OP_FSUB_S: FP_BEGIN; s->f[d->rd] = npk_f32_sub(F1, F2, &env); FP_END; break;
    case RVNPU_OP_FMUL_S: FP_BEGIN; s->f[d->rd] = npk_f32_mul(F1, F2, &env); FP_END; break;
    case RVNPU_OP_FDIV_S: FP_BEGIN; s->f[d->rd] = npk_f32_div(F1, F2, &env); FP_END; break;
    case RVNPU_OP_FSQRT_S: FP_BEGIN; s->f[d->rd] = npk_f32_sqrt(F1, &env); FP_END; break;
    case RVNPU_OP_FSGNJ_S: s->f[d->rd] = (F1 & 0x7FFFFFFFu) | (F2 & 0x80000000u); break;
    case RVNPU_OP_FSGNJN_S: s->f[d->rd] = (F1 & 0x7FFFFFFFu) | (~F2 & 0x80000000u); break;
    case RVNPU_OP_FSGNJX_S: s->f[d->rd] = F1 ^ (F2 & 0x80000000u); break;
    case RVNPU_OP_FMIN_S:
        npk_fenv_init(&env, NPK_RM_RNE);
        s->f[d->rd] = npk_f32_min(F1, F2, &env);
        FP_END;
        break;
    case RVNPU_OP_FMAX_S:
        npk_fenv_init(&env, NPK_RM_RNE);
        s->f[d->rd] = npk_f32_max(F1, F2, &env);
        FP_END;
        break;
    case RVNPU_OP_FCVT_W_S: {
        FP_BEGIN;
        uint32_t v = (uint32_t)npk_f32_to_i32(F1, NPK_CVT_SAT, &env);
        FP_END;
        SET_X(d->rd, v);
        break;
    }
    case RVNPU_OP_FCVT_WU_S: {
        FP_BEGIN;
        uint32_t v = npk_f32_to_u32(F1, NPK_CVT_SAT, &env);
        FP_END;
        SET_X(d->rd, v);
        break;
    }
    case RVNPU_OP_FMV_X_W: SET_X(d->rd, F1); break;
    case RVNPU_OP_FEQ_S:
    case RVNPU_OP_FLT_S:
    case RVNPU_OP_FLE_S: {
        npk_fenv_init(&env, NPK_RM_RNE);
        int r = d->op == RVNPU_OP_FEQ_S   ? npk_f32_eq(F1, F2, &env)
                : d->op == RVNPU_OP_FLT_S ? npk_f32_lt(F1, F2, &env)
                                          : npk_f32_le(F1, F2, &env);
        FP_END;
        SET_X(d->rd, (uint32_t)r);
        break;
    }
    case RVNPU_OP_FCLASS_S: SET_X(d->rd, npk_f32_classify(F1)); break;
    case RVNPU_OP_FCVT_S_W: FP_BEGIN; s->f[d->rd] = npk_i32_to_f32((int32_t)a, &env); FP_END; break;
    case RVNPU_OP_FCVT_S_WU: FP_BEGIN; s->f[d->rd] = npk_u32_to_f32(a, &env); FP_END; break;
    case RVNPU_OP_FMV_W_X: s->f[d->rd] = a; break;
#undef FP_BEGIN
#undef FP_END
#undef F1
#undef F2
#undef F3

    case RVNPU_OP_CSRRW:
    case RVNPU_OP_CSRRS:
    case RVNPU_OP_CSRRC:
    case RVNPU_OP_CSRRWI:
    case RVNPU_OP_CSRRSI:
    case RVNPU_OP_CSRRCI: {
        unsigned csr = (uint32_t)d->imm & 0xFFF, f3 = rvnpu_insns[d->op].match >> 12 & 7;
        uint32_t src = f3 >= 5 ? d->rs1 : a, old = rvnpu_csr_read(s, csr);
        if ((f3 & 3) == 1)
            rvnpu_csr_write(s, csr, src);
        else if (d->rs1 != 0)
            rvnpu_csr_write(s, csr, (f3 & 3) == 2 ? old | src : old & ~src);
        SET_X(d->rd, old);
        break;
    }
    case RVNPU_OP_ILLEGAL: return illegal_word(s, stop);
    default: {
        /* NPU instructions */
        rvnpu_npu_trap t;
        uint32_t w = rvnpu_load(s, pc, 4);
        s->x[0] = 0;
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

static int run_fast(npk_machine *m, rvnpu_state *s, uint64_t max, uint64_t *done, npk_stop *stop)
{
    uint64_t n = 0;
    while (!max || n < max) {
        const rvnpu_decoded *d;
        int taken = 0;
        uint32_t el = 0;
        int r = step(m, s, stop, &d, &taken, &el);
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

static int run_observed(npk_machine *m, rvnpu_state *s, uint64_t max, uint64_t *done,
                        npk_stop *stop)
{
    npk_obs *o = npk_observers(m);
    uint64_t n = 0;
    while (!max || n < max) {
        const rvnpu_decoded *d;
        int taken = 0;
        uint32_t el = 0, pc = s->pc, word = 0;
        fetch_word(s, pc, &word);
        int r = step(m, s, stop, &d, &taken, &el);
        if (r == TRAPPED || r == FAULTED) {
            o->extra[RVNPU_X_TRAPS]++;
            if (r == FAULTED)
                break;
            continue;
        }
        n++;
        rvnpu_op op = (rvnpu_op)d->op;
        npk_event ev = {.pc = pc, .mnemonic = op, .unit = s->unit_of[op]};
        uint8_t bytes[4] = {(uint8_t)word, (uint8_t)(word >> 8), (uint8_t)(word >> 16),
                            (uint8_t)(word >> 24)};
        ev.word = bytes;
        uint64_t stalls = 0;
        rvnpu_timing(s, d, taken, el, &ev.start, &ev.end, &stalls);
        o->extra[RVNPU_X_STALLS] += stalls;
        switch (rvnpu_insns[op].cls) {
        case RVNPU_CLASS_M: o->extra[RVNPU_X_M]++; break;
        case RVNPU_CLASS_F: o->extra[RVNPU_X_F]++; break;
        case RVNPU_CLASS_NPU: o->extra[RVNPU_X_NPU]++; o->extra[RVNPU_X_NPU_ELEMS] += el; break;
        case RVNPU_CLASS_FNPU: o->extra[RVNPU_X_FNPU]++; o->extra[RVNPU_X_NPU_ELEMS] += el; break;
        default: o->extra[RVNPU_X_RV32I]++; break;
        }
        if (ev.unit == RVNPU_U_LSU) {
            if (s->is_store[op])
                o->extra[RVNPU_X_STORES]++;
            else
                o->extra[RVNPU_X_LOADS]++;
        }
        npk_obs_retire(m, &ev);
        if (r == RETIRED_STOP)
            break;
    }
    *done = n;
    return stop->reason != NPK_STOP_NONE;
}

npk_status rvnpu_run(npk_machine *m, void *state, uint64_t max_insns, npk_stop *stop)
{
    rvnpu_state *s = state;
    if (!s->tohost_checked) {
        uint64_t v;
        s->tohost_checked = 1;
        s->has_tohost = npk_symbol(m, "tohost", &v) == NPK_OK && rvnpu_mapped(s, (uint32_t)v, 4) &&
                        (uint32_t)v - RVNPU_RAM_BASE < s->ram_size;
        s->tohost = (uint32_t)v;
        s->tohost_hit = 0;
    }
    uint64_t done = 0;
    int stopped = npk_obs_active(npk_observers(m)) ? run_observed(m, s, max_insns, &done, stop)
                                                   : run_fast(m, s, max_insns, &done, stop);
    if (!stopped && stop->reason == NPK_STOP_NONE && max_insns && done >= max_insns) {
        char where[256];
        describe(s, s->pc, where, sizeof where);
        npk_stop_set(stop, NPK_STOP_BUDGET, s->pc,
                     "instruction budget reached after %llu instructions; next: %s",
                     (unsigned long long)s->retired, where);
    }
    if (stop->reason == NPK_STOP_EXIT || stop->reason == NPK_STOP_FAULT)
        rvnpu_files_close(s);
    fflush(npk_guest_out(m));
    fflush(npk_guest_err(m));
    return NPK_OK;
}
