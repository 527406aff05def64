/* Tests for the rvnpu NPU semantics (src/targets/rvnpu/npu.c): the spot values of spec §4-§7,
 * the rev2 vector-length limit, all-or-nothing faults, the debug register block, chunking
 * invariance, and a random differential comparison with the independent reference in npu_ref.c
 * (also of the host-FPU paths of src/num/hostfp.h against npu.c's software paths). */
#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "num/hostfp.h"
#include "targets/rvnpu/npu.h"
#include "targets/rvnpu/npu_quick.h"
#include "targets/rvnpu/npu_ref.h"
#include "test.h"

/* ---- a test bus: 4 KiB RAM, a 64-byte counted "device", optional hole and NPU registers --- */

#define RAM_BASE 0x80000000u
#define DEV_BASE 0x10000000u
#define REG_BASE 0x20000000u
enum { RAM_SIZE = 4096, DEV_SIZE = 64 };

typedef struct tbus {
    uint8_t ram[RAM_SIZE];
    uint8_t dev[DEV_SIZE];
    uint32_t hole_lo, hole_hi; /* unmapped even inside RAM (forces the slow path) */
    unsigned dev_loads, dev_stores, ram_calls;
    unsigned wrote_calls;      /* direct RAM writes reported (the bus's wrote callback) */
    uint32_t wrote_lo, wrote_hi; /* the union of the ranges reported */
    rvnpu_npu *regs; /* when set, the §9 register block is mapped at REG_BASE */
} tbus;

static int t_in(uint32_t a, uint32_t len, uint32_t base, uint32_t size)
{
    return a >= base && (uint64_t)a + len <= (uint64_t)base + size;
}

static int t_mapped(void *ctx, uint32_t a, uint32_t len)
{
    tbus *t = ctx;
    if ((uint64_t)a < t->hole_hi && (uint64_t)a + len > t->hole_lo)
        return 0;
    return t_in(a, len, RAM_BASE, RAM_SIZE) || t_in(a, len, DEV_BASE, DEV_SIZE) ||
           (t->regs && t_in(a, len, REG_BASE, 0x100));
}

static uint32_t t_load(void *ctx, uint32_t a, unsigned size)
{
    tbus *t = ctx;
    uint32_t v = 0;
    unsigned k;
    for (k = 0; k < size; k++) {
        uint32_t b = a + k;
        uint8_t byte;
        if (t_in(b, 1, RAM_BASE, RAM_SIZE)) {
            byte = t->ram[b - RAM_BASE];
            t->ram_calls++;
        } else if (t_in(b, 1, DEV_BASE, DEV_SIZE)) {
            byte = t->dev[b - DEV_BASE];
        } else {
            byte = rvnpu_npu_reg_read(t->regs, b - REG_BASE);
        }
        v |= (uint32_t)byte << (8 * k);
    }
    if (t_in(a, size, DEV_BASE, DEV_SIZE))
        t->dev_loads++;
    return v;
}

static void t_store(void *ctx, uint32_t a, uint32_t v, unsigned size)
{
    tbus *t = ctx;
    unsigned k;
    for (k = 0; k < size; k++) {
        uint32_t b = a + k;
        uint8_t byte = (uint8_t)(v >> (8 * k));
        if (t_in(b, 1, RAM_BASE, RAM_SIZE)) {
            t->ram[b - RAM_BASE] = byte;
            t->ram_calls++;
        } else if (t_in(b, 1, DEV_BASE, DEV_SIZE)) {
            t->dev[b - DEV_BASE] = byte;
        } else {
            rvnpu_npu_reg_write(t->regs, b - REG_BASE, byte);
        }
    }
    if (t_in(a, size, DEV_BASE, DEV_SIZE))
        t->dev_stores++;
}

/* After direct RAM writes: the range must lie in RAM; the union is kept for the tests. */
static void t_wrote(void *ctx, uint32_t a, uint32_t len)
{
    tbus *t = ctx;
    NPK_CHECK(len > 0 && t_in(a, len, RAM_BASE, RAM_SIZE));
    if (!t->wrote_calls++ || a < t->wrote_lo)
        t->wrote_lo = a;
    if (t->wrote_calls == 1 || a + len > t->wrote_hi)
        t->wrote_hi = a + len;
}

/* fast: expose RAM for the fast path (only allowed when there is no hole in it): loads read
 * it directly, and writes too when the bus reports them (wrote) */
static rvnpu_bus t_bus(tbus *t, int fast)
{
    rvnpu_bus b;
    memset(&b, 0, sizeof b);
    b.ctx = t;
    b.mapped = t_mapped;
    b.load = t_load;
    b.store = t_store;
    if (fast && t->hole_hi <= t->hole_lo) {
        b.ram = t->ram;
        b.ram_base = RAM_BASE;
        b.ram_size = RAM_SIZE;
        b.wrote = t_wrote;
    }
    return b;
}

/* ---- helpers ------------------------------------------------------------------------------ */

typedef struct insn_row {
    uint32_t match, mask;
} insn_row;

static const insn_row rows[RVNPU_N_OPS] = {
#define RVNPU_INSN(id, mnemonic, match, mask, format, operands, class, rev, count, elem, summary) \
    [RVNPU_OP_##id] = {match, mask},
#include "targets/rvnpu/isa.def"
};

static uint32_t enc_r(rvnpu_op op, unsigned rd, unsigned rs1, unsigned rs2)
{
    return rows[op].match | rd << 7 | rs1 << 15 | rs2 << 20;
}

static uint32_t fb(float v)
{
    uint32_t b;
    memcpy(&b, &v, 4);
    return b;
}

static uint64_t db(double v)
{
    uint64_t b;
    memcpy(&b, &v, 8);
    return b;
}

static void put32(tbus *t, uint32_t a, uint32_t v)
{
    unsigned k;
    for (k = 0; k < 4; k++)
        t->ram[a - RAM_BASE + k] = (uint8_t)(v >> (8 * k));
}

static uint32_t get32(const tbus *t, uint32_t a)
{
    const uint8_t *p = t->ram + (a - RAM_BASE);
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A small machine: NPU state, registers, bus. */
typedef struct mach {
    rvnpu_npu npu;
    uint32_t x[32], f[32];
    tbus t;
    rvnpu_bus bus;
    rvnpu_npu_trap trap;
    uint32_t elements;
} mach;

static void m_init(mach *m)
{
    memset(m, 0, sizeof *m);
    rvnpu_npu_init(&m->npu);
    m->bus = t_bus(&m->t, 1);
}

static int m_exec(mach *m, rvnpu_op op, uint32_t w, int rev2)
{
    return rvnpu_npu_exec(&m->npu, op, w, m->x, m->f, rev2, &m->bus, &m->elements, &m->trap);
}

/* run a scalar op with x/f inputs in registers 5 and 6, result in register 7 */
static uint32_t run_x(mach *m, rvnpu_op op, uint32_t a, uint32_t b)
{
    m->x[5] = a;
    m->x[6] = b;
    NPK_CHECK(m_exec(m, op, enc_r(op, 7, 5, 6), 0) == 0);
    return m->x[7];
}

static uint32_t run_f(mach *m, rvnpu_op op, uint32_t a, int rev2)
{
    m->f[5] = a;
    NPK_CHECK(m_exec(m, op, enc_r(op, 7, 5, 6), rev2) == 0);
    return m->f[7];
}

/* ---- spot values (§4-§7) ------------------------------------------------------------------ */

static void test_spot_int(void)
{
    mach m;
    int k;
    m_init(&m);

    /* §4 QMUL */
    NPK_CHECK_EQ_U64(run_x(&m, RVNPU_OP_NPU_QMUL, (uint32_t)-3, 5), 0xFFFFFFFFu);
    NPK_CHECK_EQ_U64(run_x(&m, RVNPU_OP_NPU_QMUL, 127, 127), 63);
    NPK_CHECK_EQ_U64(run_x(&m, RVNPU_OP_NPU_QMUL, 0x7FFFFFFF, 0x7FFFFFFF), 0xFF000000u);
    /* RELU, CLAMP */
    NPK_CHECK_EQ_U64(run_x(&m, RVNPU_OP_NPU_RELU, (uint32_t)-7, 0), 0);
    NPK_CHECK_EQ_U64(run_x(&m, RVNPU_OP_NPU_RELU, 0x7FFFFFFF, 0), 0x7FFFFFFF);
    NPK_CHECK_EQ_U64(run_x(&m, RVNPU_OP_NPU_CLAMP, 300, 0), 127);
    NPK_CHECK_EQ_U64(run_x(&m, RVNPU_OP_NPU_CLAMP, (uint32_t)-300, 0), 0xFFFFFF80u);
    NPK_CHECK_EQ_U64(run_x(&m, RVNPU_OP_NPU_CLAMP, (uint32_t)-5, 0), 0xFFFFFFFBu);
    /* §5.1 GELU8 spot values; bits 31:8 ignored; whole table vs the reference */
    NPK_CHECK_EQ_U64(run_x(&m, RVNPU_OP_NPU_GELU, 32, 0), 27);
    NPK_CHECK_EQ_U64(run_x(&m, RVNPU_OP_NPU_GELU, (uint32_t)-32, 0), (uint32_t)-5);
    NPK_CHECK_EQ_U64(run_x(&m, RVNPU_OP_NPU_GELU, (uint32_t)-1, 0), 0);
    NPK_CHECK_EQ_U64(run_x(&m, RVNPU_OP_NPU_GELU, 0x12345620, 0), 27);
    for (k = -128; k <= 127; k++)
        NPK_CHECK_EQ_U64((uint8_t)m.npu.gelu8[(uint8_t)k], (uint8_t)npu_ref_gelu8(k));

    /* MACC then RSTACC: acc_lo only, acc cleared; wraps modulo 2^64 */
    m.npu.acc = 0;
    run_x(&m, RVNPU_OP_NPU_MACC, (uint32_t)-2, 3);
    NPK_CHECK_EQ_U64(m.npu.acc, (uint64_t)-6);
    m.npu.acc = UINT64_MAX;
    run_x(&m, RVNPU_OP_NPU_MACC, 1, 1);
    NPK_CHECK_EQ_U64(m.npu.acc, 0);
    m.npu.acc = UINT64_C(0x123456789ABCDEF0);
    NPK_CHECK_EQ_U64(run_x(&m, RVNPU_OP_NPU_RSTACC, 0, 0), 0x9ABCDEF0u);
    NPK_CHECK_EQ_U64(m.npu.acc, 0);
    m.npu.acc = 5; /* rd = x0: only clears */
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_RSTACC, enc_r(RVNPU_OP_NPU_RSTACC, 0, 0, 0), 0) == 0);
    NPK_CHECK(m.npu.acc == 0 && m.x[0] == 0);

    /* §5.2 EXPQ via VEXP, §5.3 RSQRTQ via VRSQRT */
    {
        static const uint32_t in[3] = {0x00000000, 0x00010000, 0x000B0000};
        static const uint32_t want[3] = {0x00010000, 0x0002B7E1, 0x7FFFFFFF};
        for (k = 0; k < 3; k++)
            put32(&m.t, RAM_BASE + 4 * (uint32_t)k, in[k]);
        m.x[10] = RAM_BASE;
        m.x[11] = RAM_BASE + 0x100;
        m.x[12] = 3;
        m.t.ram_calls = m.t.wrote_calls = 0;
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_VEXP, enc_r(RVNPU_OP_NPU_VEXP, 12, 10, 11), 0) == 0);
        NPK_CHECK_EQ_U64(m.elements, 3);
        /* with the RAM fast path, loads and stores skip the bus, and the 12 bytes written are
         * reported once (the core invalidates decoded code and watches tohost there) */
        NPK_CHECK(m.bus.ram != NULL);
        NPK_CHECK_EQ_U64(m.t.ram_calls, 0);
        NPK_CHECK_EQ_U64(m.t.wrote_calls, 1);
        NPK_CHECK_EQ_U64(m.t.wrote_lo, RAM_BASE + 0x100);
        NPK_CHECK_EQ_U64(m.t.wrote_hi, RAM_BASE + 0x100 + 12);
        /* without the callback (an observer wants every store) each byte reaches the bus */
        m.bus.wrote = NULL;
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_VEXP, enc_r(RVNPU_OP_NPU_VEXP, 12, 10, 11), 0) == 0);
        NPK_CHECK_EQ_U64(m.t.ram_calls, 12);
        NPK_CHECK_EQ_U64(m.t.wrote_calls, 1);
        m.bus.wrote = t_wrote;
        for (k = 0; k < 3; k++)
            NPK_CHECK_EQ_U64(get32(&m.t, RAM_BASE + 0x100 + 4 * (uint32_t)k), want[k]);
    }
    {
        static const uint32_t in[3] = {0x00010000, 0x00040000, 0x00000000};
        static const uint32_t want[3] = {0x00010000, 0x00008000, 0x7FFFFFFF};
        for (k = 0; k < 3; k++) {
            put32(&m.t, RAM_BASE, in[k]);
            m.x[10] = RAM_BASE;
            NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_VRSQRT, enc_r(RVNPU_OP_NPU_VRSQRT, 7, 10, 0), 0) == 0);
            NPK_CHECK_EQ_U64(m.x[7], want[k]);
        }
        put32(&m.t, RAM_BASE, 1); /* largest result, §5.3 */
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_VRSQRT, enc_r(RVNPU_OP_NPU_VRSQRT, 7, 10, 0), 0) == 0);
        NPK_CHECK_EQ_U64(m.x[7], 0x01000000);
        put32(&m.t, RAM_BASE, 0x80000000u);
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_VRSQRT, enc_r(RVNPU_OP_NPU_VRSQRT, 7, 10, 0), 0) == 0);
        NPK_CHECK_EQ_U64(m.x[7], 0x7FFFFFFF);
    }
    /* §4 VMUL with s = 98304 (1.5); acc_hi ignored, acc unchanged */
    {
        static const int8_t in[3] = {-1, -3, 100};
        static const int8_t want[3] = {-2, -5, 127};
        m.npu.acc = UINT64_C(0xDEADBEEF00018000);
        memcpy(m.t.ram, in, 3);
        m.x[10] = RAM_BASE;
        m.x[11] = RAM_BASE + 0x40;
        m.x[12] = 3;
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_VMUL, enc_r(RVNPU_OP_NPU_VMUL, 12, 10, 11), 0) == 0);
        for (k = 0; k < 3; k++)
            NPK_CHECK_EQ_U64((uint8_t)m.t.ram[0x40 + k], (uint8_t)want[k]);
        NPK_CHECK_EQ_U64(m.npu.acc, UINT64_C(0xDEADBEEF00018000));
    }
    /* VMAC with the §3.3 example word `npu.vmac a2, a0, a1` = 0x02B5060B */
    {
        static const int8_t a[4] = {1, -2, 127, -128}, b[4] = {3, 4, -128, -128};
        memcpy(m.t.ram, a, 4);
        memcpy(m.t.ram + 0x10, b, 4);
        m.npu.acc = 10;
        m.x[10] = RAM_BASE;
        m.x[11] = RAM_BASE + 0x10;
        m.x[12] = 4;
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_VMAC, 0x02B5060Bu, 0) == 0);
        NPK_CHECK_EQ_U64(m.npu.acc, (uint64_t)(10 + 3 - 8 - 127 * 128 + 128 * 128));
        NPK_CHECK_EQ_U64(m.x[12], 4); /* rd is an input, not written */
    }
    /* VREDUCE / VMAX: n = 0, in-place register use (`npu.vreduce a0, a0, a1`) */
    {
        put32(&m.t, RAM_BASE, 0x7FFFFFFF);
        put32(&m.t, RAM_BASE + 4, 2);
        put32(&m.t, RAM_BASE + 8, (uint32_t)-9);
        m.x[10] = RAM_BASE;
        m.x[11] = 3;
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_VREDUCE, enc_r(RVNPU_OP_NPU_VREDUCE, 10, 10, 11), 0) == 0);
        NPK_CHECK_EQ_U64(m.x[10], 0x7FFFFFFFu + 2u - 9u);
        m.x[10] = RAM_BASE;
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_VMAX, enc_r(RVNPU_OP_NPU_VMAX, 10, 10, 11), 0) == 0);
        NPK_CHECK_EQ_U64(m.x[10], 0x7FFFFFFF);
        m.x[10] = 0; /* address 0 is unmapped, but n = 0 touches nothing */
        m.x[11] = 0;
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_VMAX, enc_r(RVNPU_OP_NPU_VMAX, 7, 10, 11), 0) == 0);
        NPK_CHECK_EQ_U64(m.x[7], 0x80000000u);
        NPK_CHECK_EQ_U64(m.elements, 0);
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_VREDUCE, enc_r(RVNPU_OP_NPU_VREDUCE, 7, 10, 11), 0) == 0);
        NPK_CHECK_EQ_U64(m.x[7], 0);
    }
    /* LDVEC with `npu.ldvec v1, 8(a0)` = 0x0085608B, STVEC with a negative immediate */
    {
        static const int8_t v[4] = {-1, 2, -128, 127};
        memcpy(m.t.ram + 0x208, v, 4);
        m.x[10] = RAM_BASE + 0x200;
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_LDVEC, 0x0085608Bu, 0) == 0);
        NPK_CHECK(memcmp(m.npu.vreg[1], v, 4) == 0);
        NPK_CHECK_EQ_U64(m.elements, 4);
        /* npu.stvec v1 (rs2 = 5 -> vreg[1]), -4(a0): imm = 0xFFC */
        {
            uint32_t w = rows[RVNPU_OP_NPU_STVEC].match | (0x7Fu << 25) | (5u << 20) |
                         (10u << 15) | (0x1Cu << 7);
            NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_STVEC, w, 0) == 0);
            NPK_CHECK(memcmp(m.t.ram + 0x1FC, v, 4) == 0);
        }
    }
}

static void test_spot_fp(void)
{
    mach m;
    int k;
    m_init(&m);

    /* §6.2 FRSTACC */
    m.npu.facc = db(1.0 + ldexp(1.0, -30));
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FRSTACC, 0, 0), 0x3F800000u);
    NPK_CHECK_EQ_U64(m.npu.facc, 0);
    m.npu.facc = db(1e300);
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FRSTACC, 0, 0), 0x7F800000u);
    m.npu.facc = UINT64_C(0x7FF8000000000000);
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FRSTACC, 0, 0), 0x7FC00000u);

    /* §6.1 pass-through NaNs: FRELU, FGELU */
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FRELU, 0x7F800001u, 0), 0x7FC00001u);
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FRELU, 0x7FC12345u, 0), 0x7FC12345u);
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FRELU, 0xFFC00000u, 0), 0xFFC00000u);
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FGELU, 0x7F800001u, 0), 0x7FC00001u);
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FGELU, 0xFFC00000u, 0), 0xFFC00000u);
    /* FRELU: -0 -> +0, -inf -> +0, +inf stays */
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FRELU, 0x80000000u, 0), 0);
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FRELU, 0xFF800000u, 0), 0);
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FRELU, 0x7F800000u, 0), 0x7F800000u);
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FRELU, fb(2.5f), 0), fb(2.5f));
    /* FGELU: -0 -> -0, large negative -> -0, 1.0 -> 0x3F57625F, +-inf */
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FGELU, 0x80000000u, 0), 0x80000000u);
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FGELU, fb(-100.0f), 0), 0x80000000u);
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FGELU, fb(1.0f), 0), 0x3F57625Fu);
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FGELU, 0x7F800000u, 0), 0x7F800000u);
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FGELU, 0xFF800000u, 0), 0);
    /* inputs where multiplying by a binary32 1/sqrt(2) (the original's fast path, §7.2)
     * instead of dividing by sqrt(2.0) changes the result (values from glibc's erf) */
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FGELU, 0xBA8004F7u, 0), 0xB9FFD6D9u);
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FGELU, 0x3A8014A0u, 0), 0x3A002E31u);
    /* FRSQRT (rev2): 4.0 -> 0.5, -0 -> +inf, +inf -> +0, negative/NaN -> canonical */
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FRSQRT, fb(4.0f), 1), fb(0.5f));
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FRSQRT, 0x80000000u, 1), 0x7F800000u);
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FRSQRT, 0, 1), 0x7F800000u);
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FRSQRT, 0x7F800000u, 1), 0);
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FRSQRT, 0xFF800000u, 1), 0x7FC00000u);
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FRSQRT, fb(-1.0f), 1), 0x7FC00000u);
    NPK_CHECK_EQ_U64(run_f(&m, RVNPU_OP_NPU_FRSQRT, 0xFFC12345u, 1), 0x7FC00000u);
    /* FVRSQRT (seed) reads memory at x[rs1]: 4.0 -> 0.5 */
    put32(&m.t, RAM_BASE, fb(4.0f));
    m.x[5] = RAM_BASE;
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVRSQRT, enc_r(RVNPU_OP_NPU_FVRSQRT, 7, 5, 0), 0) == 0);
    NPK_CHECK_EQ_U64(m.f[7], fb(0.5f));

    /* FMACC: product exact, only the sum rounds */
    m.npu.facc = 0;
    m.f[5] = fb(1.0f + 0x1p-23f);
    m.f[6] = fb(1.0f - 0x1p-24f);
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FMACC, enc_r(RVNPU_OP_NPU_FMACC, 0, 5, 6), 0) == 0);
    NPK_CHECK_EQ_U64(m.npu.facc, db((1.0 + 0x1p-23) * (1.0 - 0x1p-24)));
    m.f[5] = 0x7F800000u; /* inf * 0: canonical binary64 NaN */
    m.f[6] = 0;
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FMACC, enc_r(RVNPU_OP_NPU_FMACC, 0, 5, 6), 0) == 0);
    NPK_CHECK_EQ_U64(m.npu.facc, UINT64_C(0x7FF8000000000000));
    m.f[5] = 0xFFC12345u; /* a NaN operand also gives the canonical facc NaN */
    m.npu.facc = 0;
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FMACC, enc_r(RVNPU_OP_NPU_FMACC, 0, 5, 6), 0) == 0);
    NPK_CHECK_EQ_U64(m.npu.facc, UINT64_C(0x7FF8000000000000));

    /* FVREDUCE: 1e30f, 1e30f, -1e30f -> 1e30f; all -0 -> +0; n = 0 -> +0 */
    put32(&m.t, RAM_BASE, fb(1e30f));
    put32(&m.t, RAM_BASE + 4, fb(1e30f));
    put32(&m.t, RAM_BASE + 8, fb(-1e30f));
    m.x[10] = RAM_BASE;
    m.x[11] = 3;
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVREDUCE, enc_r(RVNPU_OP_NPU_FVREDUCE, 7, 10, 11), 0) == 0);
    NPK_CHECK_EQ_U64(m.f[7], fb(1e30f));
    for (k = 0; k < 3; k++)
        put32(&m.t, RAM_BASE + 4 * (uint32_t)k, 0x80000000u);
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVREDUCE, enc_r(RVNPU_OP_NPU_FVREDUCE, 7, 10, 11), 0) == 0);
    NPK_CHECK_EQ_U64(m.f[7], 0);
    m.x[11] = 0;
    m.f[7] = 1;
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVREDUCE, enc_r(RVNPU_OP_NPU_FVREDUCE, 7, 10, 11), 0) == 0);
    NPK_CHECK_EQ_U64(m.f[7], 0);

    /* FVMAX: n = 0 -> -inf; [-0, +0] -> -0; [+0, -0] -> +0; a NaN anywhere -> canonical */
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVMAX, enc_r(RVNPU_OP_NPU_FVMAX, 7, 10, 11), 0) == 0);
    NPK_CHECK_EQ_U64(m.f[7], 0xFF800000u);
    m.x[11] = 2;
    put32(&m.t, RAM_BASE, 0x80000000u);
    put32(&m.t, RAM_BASE + 4, 0);
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVMAX, enc_r(RVNPU_OP_NPU_FVMAX, 7, 10, 11), 0) == 0);
    NPK_CHECK_EQ_U64(m.f[7], 0x80000000u);
    put32(&m.t, RAM_BASE, 0);
    put32(&m.t, RAM_BASE + 4, 0x80000000u);
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVMAX, enc_r(RVNPU_OP_NPU_FVMAX, 7, 10, 11), 0) == 0);
    NPK_CHECK_EQ_U64(m.f[7], 0);
    put32(&m.t, RAM_BASE, fb(3.0f));
    put32(&m.t, RAM_BASE + 4, 0x7F800001u);
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVMAX, enc_r(RVNPU_OP_NPU_FVMAX, 7, 10, 11), 0) == 0);
    NPK_CHECK_EQ_U64(m.f[7], 0x7FC00000u);
    put32(&m.t, RAM_BASE, 0xFF800000u);
    put32(&m.t, RAM_BASE + 4, 0xFF800000u);
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVMAX, enc_r(RVNPU_OP_NPU_FVMAX, 7, 10, 11), 0) == 0);
    NPK_CHECK_EQ_U64(m.f[7], 0xFF800000u);

    /* FVEXP: pass-through NaN, +inf, -inf -> +0, overflow -> +inf, 0 -> 1 */
    {
        static const uint32_t in[6] = {0x7F800001u, 0x7F800000u, 0xFF800000u, 0x42C80000u /*100*/,
                                       0, 0xC2F00000u /*-120*/};
        static const uint32_t want[6] = {0x7FC00001u, 0x7F800000u, 0, 0x7F800000u, 0x3F800000u,
                                         0x00000000u};
        for (k = 0; k < 6; k++)
            put32(&m.t, RAM_BASE + 4 * (uint32_t)k, in[k]);
        m.x[10] = RAM_BASE;
        m.x[11] = RAM_BASE + 0x100;
        m.x[12] = 6;
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVEXP, enc_r(RVNPU_OP_NPU_FVEXP, 12, 10, 11), 0) == 0);
        for (k = 0; k < 5; k++)
            NPK_CHECK_EQ_U64(get32(&m.t, RAM_BASE + 0x100 + 4 * (uint32_t)k), want[k]);
        /* exp(-120) ~ 7.7e-53 underflows to +0 */
        NPK_CHECK_EQ_U64(get32(&m.t, RAM_BASE + 0x114), 0);
        put32(&m.t, RAM_BASE, fb(-100.0f)); /* exp(-100) = 3.7e-44: subnormal */
        m.x[12] = 1;
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVEXP, enc_r(RVNPU_OP_NPU_FVEXP, 12, 10, 11), 0) == 0);
        NPK_CHECK_EQ_U64(get32(&m.t, RAM_BASE + 0x100), fb((float)exp(-100.0)));
        NPK_CHECK(get32(&m.t, RAM_BASE + 0x100) != 0 && get32(&m.t, RAM_BASE + 0x100) < 0x00800000u);
    }

    /* FVMUL / FVDIV / FVSUB.SC use rne32(facc) and leave facc alone; §7.2 division rules */
    {
        m.npu.facc = db(2.0);
        put32(&m.t, RAM_BASE, fb(3.0f));
        m.x[10] = RAM_BASE;
        m.x[11] = RAM_BASE + 0x80;
        m.x[12] = 1;
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVMUL, enc_r(RVNPU_OP_NPU_FVMUL, 12, 10, 11), 0) == 0);
        NPK_CHECK_EQ_U64(get32(&m.t, RAM_BASE + 0x80), fb(6.0f));
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVDIV, enc_r(RVNPU_OP_NPU_FVDIV, 12, 10, 11), 1) == 0);
        NPK_CHECK_EQ_U64(get32(&m.t, RAM_BASE + 0x80), fb(1.5f));
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVSUB_SC, enc_r(RVNPU_OP_NPU_FVSUB_SC, 12, 10, 11), 1) == 0);
        NPK_CHECK_EQ_U64(get32(&m.t, RAM_BASE + 0x80), fb(1.0f));
        NPK_CHECK_EQ_U64(m.npu.facc, db(2.0));
        m.npu.facc = db(-0.0); /* x / -0 = -inf for positive x; 0 / -0 = NaN */
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVDIV, enc_r(RVNPU_OP_NPU_FVDIV, 12, 10, 11), 1) == 0);
        NPK_CHECK_EQ_U64(get32(&m.t, RAM_BASE + 0x80), 0xFF800000u);
        put32(&m.t, RAM_BASE, 0);
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVDIV, enc_r(RVNPU_OP_NPU_FVDIV, 12, 10, 11), 1) == 0);
        NPK_CHECK_EQ_U64(get32(&m.t, RAM_BASE + 0x80), 0x7FC00000u);
        m.npu.facc = db(1e300); /* scale overflows to +inf */
        put32(&m.t, RAM_BASE, fb(-2.0f));
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVMUL, enc_r(RVNPU_OP_NPU_FVMUL, 12, 10, 11), 0) == 0);
        NPK_CHECK_EQ_U64(get32(&m.t, RAM_BASE + 0x80), 0xFF800000u);
    }
    /* FVADD / FVSUB write over the second operand: a - b, not b - a */
    {
        put32(&m.t, RAM_BASE, fb(5.0f));
        put32(&m.t, RAM_BASE + 0x80, fb(2.0f));
        m.x[12] = 1;
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVSUB, enc_r(RVNPU_OP_NPU_FVSUB, 12, 10, 11), 1) == 0);
        NPK_CHECK_EQ_U64(get32(&m.t, RAM_BASE + 0x80), fb(3.0f));
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVADD, enc_r(RVNPU_OP_NPU_FVADD, 12, 10, 11), 1) == 0);
        NPK_CHECK_EQ_U64(get32(&m.t, RAM_BASE + 0x80), fb(8.0f));
        put32(&m.t, RAM_BASE, 0x7F800000u);
        put32(&m.t, RAM_BASE + 0x80, 0xFF800000u);
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVADD, enc_r(RVNPU_OP_NPU_FVADD, 12, 10, 11), 1) == 0);
        NPK_CHECK_EQ_U64(get32(&m.t, RAM_BASE + 0x80), 0x7FC00000u);
        put32(&m.t, RAM_BASE, 0xFFC12345u); /* arithmetic NaNs are canonical, not pass-through */
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVADD, enc_r(RVNPU_OP_NPU_FVADD, 12, 10, 11), 1) == 0);
        NPK_CHECK_EQ_U64(get32(&m.t, RAM_BASE + 0x80), 0x7FC00000u);
    }
}

/* ---- revisions and the rev2 vector-length limit (§1.2, §7.3) -------------------------------- */

static void test_rev2_limit(void)
{
    mach m, before;
    m_init(&m);
    m.x[10] = RAM_BASE;
    m.x[11] = RAM_BASE + 0x400;

    /* 64 four-byte elements pass, 65 trap; 256 bytes pass, 257 trap */
    m.x[12] = 64;
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVMAC, enc_r(RVNPU_OP_NPU_FVMAC, 12, 10, 11), 1) == 0);
    NPK_CHECK_EQ_U64(m.elements, 64);
    m.x[12] = 256;
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_VMAC, enc_r(RVNPU_OP_NPU_VMAC, 12, 10, 11), 1) == 0);
    m.x[12] = 65;
    m.npu.facc = db(1.5);
    before = m;
    {
        uint32_t w = enc_r(RVNPU_OP_NPU_FVMAC, 12, 10, 11);
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVMAC, w, 1) == 1);
        NPK_CHECK_EQ_U64(m.trap.mcause, 2);
        NPK_CHECK_EQ_U64(m.trap.mtval, w);
        NPK_CHECK_CONTAINS(m.trap.detail, "vector-length");
        NPK_CHECK_CONTAINS(m.trap.detail, "n=65");
        NPK_CHECK_CONTAINS(m.trap.detail, "element size 4");
        NPK_CHECK_CONTAINS(m.trap.detail, "260 bytes");
        NPK_CHECK_CONTAINS(m.trap.detail, "256-byte limit");
        NPK_CHECK_CONTAINS(m.trap.detail, "rev2");
        NPK_CHECK_CONTAINS(m.trap.detail, "seed");
        NPK_CHECK(memcmp(&before.npu, &m.npu, sizeof m.npu) == 0);
        NPK_CHECK(memcmp(before.x, m.x, sizeof m.x) == 0);
        NPK_CHECK(memcmp(before.t.ram, m.t.ram, sizeof m.t.ram) == 0);
    }
    m.x[12] = 257;
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_VMUL, enc_r(RVNPU_OP_NPU_VMUL, 12, 10, 11), 1) == 1);
    NPK_CHECK_CONTAINS(m.trap.detail, "257 bytes");
    m.x[12] = 256;
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_VMUL, enc_r(RVNPU_OP_NPU_VMUL, 12, 10, 11), 1) == 0);
    /* the count of the reductions is rs2; the product must not overflow 32 bits */
    m.x[11] = 0x40000001u; /* 4 * n wraps to 4 in 32 bits */
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_VREDUCE, enc_r(RVNPU_OP_NPU_VREDUCE, 7, 10, 11), 1) == 1);
    NPK_CHECK_CONTAINS(m.trap.detail, "4294967300 bytes");
    m.x[11] = 0xFFFFFFFFu;
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVMAX, enc_r(RVNPU_OP_NPU_FVMAX, 7, 10, 11), 1) == 1);
    NPK_CHECK_EQ_U64(m.trap.mcause, 2);
    /* the limit is checked before memory: an unmapped array still gives mcause 2 */
    m.x[10] = 0;
    m.x[12] = 65;
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVEXP, enc_r(RVNPU_OP_NPU_FVEXP, 12, 10, 11), 1) == 1);
    NPK_CHECK_EQ_U64(m.trap.mcause, 2);
    m.x[12] = 64; /* within the limit the same array faults on its first read */
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVEXP, enc_r(RVNPU_OP_NPU_FVEXP, 12, 10, 11), 1) == 1);
    NPK_CHECK_EQ_U64(m.trap.mcause, 5);
    NPK_CHECK_EQ_U64(m.trap.mtval, 0);
    /* seed has no limit */
    m.x[10] = RAM_BASE;
    m.x[11] = RAM_BASE + 0x400;
    m.x[12] = 65;
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVMAC, enc_r(RVNPU_OP_NPU_FVMAC, 12, 10, 11), 0) == 0);
    m.x[12] = 1000;
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_VMAC, enc_r(RVNPU_OP_NPU_VMAC, 12, 10, 11), 0) == 0);
    NPK_CHECK_EQ_U64(m.elements, 1000);
    /* not limited: MACC, VRSQRT, LDVEC, STVEC, FMACC, FRSQRT and scalars, whatever rd holds */
    m.x[12] = 0xFFFFFFFFu;
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_MACC, enc_r(RVNPU_OP_NPU_MACC, 12, 10, 11), 1) == 0);
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FMACC, enc_r(RVNPU_OP_NPU_FMACC, 12, 10, 11), 1) == 0);
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_VRSQRT, enc_r(RVNPU_OP_NPU_VRSQRT, 12, 10, 12), 1) == 0);

    /* revision-specific instructions */
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVADD, enc_r(RVNPU_OP_NPU_FVADD, 12, 10, 11), 0) == 1);
    NPK_CHECK_EQ_U64(m.trap.mcause, 2);
    NPK_CHECK_CONTAINS(m.trap.detail, "rev2");
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FVRSQRT, enc_r(RVNPU_OP_NPU_FVRSQRT, 1, 10, 0), 1) == 1);
    NPK_CHECK_EQ_U64(m.trap.mcause, 2);
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_FRSQRT, enc_r(RVNPU_OP_NPU_FRSQRT, 1, 10, 0), 0) == 1);
    NPK_CHECK(m_exec(&m, RVNPU_OP_ILLEGAL, 0, 0) == 1);
}

/* ---- all-or-nothing faults (§8) ----------------------------------------------------------- */

static void check_fault(mach *m, rvnpu_op op, uint32_t w, int rev2, uint32_t cause, uint32_t tval)
{
    mach before = *m;
    m->t.dev_loads = m->t.dev_stores = 0;
    NPK_CHECK(m_exec(m, op, w, rev2) == 1);
    NPK_CHECK_EQ_U64(m->trap.mcause, cause);
    NPK_CHECK_EQ_U64(m->trap.mtval, tval);
    NPK_CHECK(memcmp(&before.npu, &m->npu, sizeof m->npu) == 0);
    NPK_CHECK(memcmp(before.x, m->x, sizeof m->x) == 0);
    NPK_CHECK(memcmp(before.f, m->f, sizeof m->f) == 0);
    NPK_CHECK(memcmp(before.t.ram, m->t.ram, sizeof m->t.ram) == 0);
    NPK_CHECK(memcmp(before.t.dev, m->t.dev, sizeof m->t.dev) == 0);
    NPK_CHECK(m->t.dev_loads == 0 && m->t.dev_stores == 0);
}

static void test_faults(void)
{
    mach m;
    int fast;
    for (fast = 0; fast < 2; fast++) {
        uint32_t end = RAM_BASE + RAM_SIZE;
        m_init(&m);
        m.bus = t_bus(&m.t, fast);
        m.npu.acc = 77;
        m.npu.facc = db(3.25);
        m.npu.vreg[2][1] = 9;
        m.f[3] = 0x12345678;

        /* a source array running off the end of RAM: first read past the end */
        m.x[10] = end - 8;
        m.x[11] = RAM_BASE;
        m.x[12] = 4;
        check_fault(&m, RVNPU_OP_NPU_VEXP, enc_r(RVNPU_OP_NPU_VEXP, 12, 10, 11), 0, 5, end);
        /* straddling access: element 1 at end-2 spans the boundary */
        m.x[10] = end - 6;
        check_fault(&m, RVNPU_OP_NPU_FVEXP, enc_r(RVNPU_OP_NPU_FVEXP, 12, 10, 11), 0, 5, end - 2);
        /* destination faulting first: write fault, nothing written before it */
        m.x[10] = RAM_BASE;
        m.x[11] = end - 4;
        check_fault(&m, RVNPU_OP_NPU_VEXP, enc_r(RVNPU_OP_NPU_VEXP, 12, 10, 11), 0, 7, end);
        /* same element: the read comes first */
        m.x[10] = end - 4;
        check_fault(&m, RVNPU_OP_NPU_FVMUL, enc_r(RVNPU_OP_NPU_FVMUL, 12, 10, 11), 0, 5, end);
        /* FVADD: rs2 read (element 2) faults before the rs1 read of element 3 */
        m.x[10] = end - 12;
        m.x[11] = end - 8;
        check_fault(&m, RVNPU_OP_NPU_FVADD, enc_r(RVNPU_OP_NPU_FVADD, 12, 10, 11), 1, 5, end);
        /* VMAC: the rs1 byte array faults at the same index as rs2: rs1's address */
        m.x[10] = 0x00001000;
        m.x[11] = 0x00002000;
        check_fault(&m, RVNPU_OP_NPU_VMAC, enc_r(RVNPU_OP_NPU_VMAC, 12, 10, 11), 0, 5, 0x1000);
        /* device array: the device is never touched when a later element faults */
        m.x[10] = DEV_BASE + DEV_SIZE - 8;
        m.x[11] = RAM_BASE;
        check_fault(&m, RVNPU_OP_NPU_FVMAC, enc_r(RVNPU_OP_NPU_FVMAC, 12, 10, 11), 0,
                    5, DEV_BASE + DEV_SIZE);
        m.x[11] = 7; /* reductions: count in rs2 */
        check_fault(&m, RVNPU_OP_NPU_VREDUCE, enc_r(RVNPU_OP_NPU_VREDUCE, 12, 10, 11), 0,
                    5, DEV_BASE + DEV_SIZE);
        /* a huge seed count over RAM faults at the end of RAM (no element is processed) */
        m.x[10] = RAM_BASE + 0x10;
        m.x[11] = 0xFFFFFFFFu;
        check_fault(&m, RVNPU_OP_NPU_FVREDUCE, enc_r(RVNPU_OP_NPU_FVREDUCE, 12, 10, 11), 0,
                    5, end);
        /* wrap around 2^32: element addresses are mod 2^32 */
        m.x[10] = 0xFFFFFFFCu;
        m.x[11] = 2;
        check_fault(&m, RVNPU_OP_NPU_VMAX, enc_r(RVNPU_OP_NPU_VMAX, 12, 10, 11), 0,
                    5, 0xFFFFFFFCu);
        /* single-access instructions */
        m.x[10] = end - 2;
        check_fault(&m, RVNPU_OP_NPU_VRSQRT, enc_r(RVNPU_OP_NPU_VRSQRT, 12, 10, 0), 0, 5, end - 2);
        check_fault(&m, RVNPU_OP_NPU_FVRSQRT, enc_r(RVNPU_OP_NPU_FVRSQRT, 3, 10, 0), 0, 5, end - 2);
        check_fault(&m, RVNPU_OP_NPU_LDVEC, rows[RVNPU_OP_NPU_LDVEC].match | 2u << 7 | 10u << 15,
                    0, 5, end);
        check_fault(&m, RVNPU_OP_NPU_STVEC, rows[RVNPU_OP_NPU_STVEC].match | 2u << 20 | 10u << 15,
                    0, 7, end);
        /* x0 as a base reads as 0 */
        m.x[12] = 1;
        check_fault(&m, RVNPU_OP_NPU_FVEXP, enc_r(RVNPU_OP_NPU_FVEXP, 12, 0, 11), 0, 5, 0);
    }
    /* a hole inside RAM (slow path): first faulting access in order */
    m_init(&m);
    m.t.hole_lo = RAM_BASE + 0x108;
    m.t.hole_hi = RAM_BASE + 0x109;
    m.bus = t_bus(&m.t, 1);
    NPK_CHECK(m.bus.ram == NULL);
    m.x[10] = RAM_BASE + 0x100; /* rs1 element 2 covers the hole */
    m.x[11] = RAM_BASE + 0x0FC; /* rs2 element 3 covers it */
    m.x[12] = 8;
    check_fault(&m, RVNPU_OP_NPU_FVSUB, enc_r(RVNPU_OP_NPU_FVSUB, 12, 10, 11), 1, 5, RAM_BASE + 0x108);
    m.x[11] = RAM_BASE + 0x104; /* now rs2 element 1 hits it first; its read precedes its write */
    check_fault(&m, RVNPU_OP_NPU_FVSUB, enc_r(RVNPU_OP_NPU_FVSUB, 12, 10, 11), 1, 5, RAM_BASE + 0x108);
    m.x[10] = RAM_BASE + 0x200;
    check_fault(&m, RVNPU_OP_NPU_FVRELU, enc_r(RVNPU_OP_NPU_FVRELU, 12, 10, 11), 1, 7, RAM_BASE + 0x108);
}

/* ---- the debug register block (§9) and NPU arrays over it ---------------------------------- */

static void test_regs(void)
{
    mach m;
    uint32_t k;
    m_init(&m);
    m.npu.acc = UINT64_C(0x0807060504030201);
    m.npu.facc = UINT64_C(0x1817161514131211);
    for (k = 0; k < 16; k++)
        m.npu.vreg[k / 4][k % 4] = (int8_t)(0xF0 + k);
    for (k = 0; k < 8; k++) {
        NPK_CHECK_EQ_U64(rvnpu_npu_reg_read(&m.npu, k), k + 1);
        NPK_CHECK_EQ_U64(rvnpu_npu_reg_read(&m.npu, 0x18 + k), 0x11 + k);
    }
    for (k = 0; k < 16; k++)
        NPK_CHECK_EQ_U64(rvnpu_npu_reg_read(&m.npu, 8 + k), 0xF0 + k);
    NPK_CHECK_EQ_U64(rvnpu_npu_reg_read(&m.npu, 0x20), 0);
    NPK_CHECK_EQ_U64(rvnpu_npu_reg_read(&m.npu, 0xFF), 0);
    rvnpu_npu_reg_write(&m.npu, 0x01, 0xFF); /* ignored */
    rvnpu_npu_reg_write(&m.npu, 0x19, 0xFF);
    rvnpu_npu_reg_write(&m.npu, 0x08, 0xFF);
    NPK_CHECK_EQ_U64(m.npu.acc, UINT64_C(0x0807060504030201));
    NPK_CHECK_EQ_U64(m.npu.facc, UINT64_C(0x1817161514131211));
    NPK_CHECK_EQ_U64((uint8_t)m.npu.vreg[0][0], 0xF0);
    rvnpu_npu_reg_write(&m.npu, 0x00, 0x55);
    NPK_CHECK_EQ_U64(m.npu.acc, 0);
    rvnpu_npu_reg_write(&m.npu, 0x18, 0x55);
    NPK_CHECK_EQ_U64(m.npu.facc, 0);

    /* NPU instructions see the block through the bus, in element order */
    m.t.regs = &m.npu;
    m.npu.acc = UINT64_C(0x0000000300000004);
    m.x[10] = REG_BASE;
    m.x[11] = 2;
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_VREDUCE, enc_r(RVNPU_OP_NPU_VREDUCE, 7, 10, 11), 0) == 0);
    NPK_CHECK_EQ_U64(m.x[7], 7);
    /* VMAC over acc's own bytes sees each update: acc=2 -> 2+2*2=6 -> +0 ... */
    m.npu.acc = 2;
    m.x[11] = REG_BASE; /* B = A = the acc bytes */
    m.x[12] = 2;
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_VMAC, enc_r(RVNPU_OP_NPU_VMAC, 12, 10, 11), 0) == 0);
    NPK_CHECK_EQ_U64(m.npu.acc, 6); /* byte 0 (2*2) then byte 1 of 6 (0) */
    /* STVEC into offset 0 clears acc; the stored bytes themselves are ignored */
    m.npu.acc = 99;
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_STVEC,
                     rows[RVNPU_OP_NPU_STVEC].match | 1u << 20 | 10u << 15, 0) == 0);
    NPK_CHECK_EQ_U64(m.npu.acc, 0);
    /* LDVEC from the vreg bytes */
    m.x[10] = REG_BASE + 0x0C;
    NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_LDVEC, rows[RVNPU_OP_NPU_LDVEC].match | 3u << 7 | 10u << 15,
                     0) == 0);
    NPK_CHECK(memcmp(m.npu.vreg[3], m.npu.vreg[1], 4) == 0);
    /* ... element by element: v1 from offset 0x09 reads vreg[0][1..3], then vreg[1][0],
     * which element 0 of this very instruction has just written */
    {
        static const int8_t v0[4] = {1, 2, 3, 4}, v1[4] = {5, 6, 7, 8}, want[4] = {2, 3, 4, 2};
        memcpy(m.npu.vreg[0], v0, 4);
        memcpy(m.npu.vreg[1], v1, 4);
        m.x[10] = REG_BASE + 0x09;
        NPK_CHECK(m_exec(&m, RVNPU_OP_NPU_LDVEC,
                         rows[RVNPU_OP_NPU_LDVEC].match | 1u << 7 | 10u << 15, 0) == 0);
        NPK_CHECK(memcmp(m.npu.vreg[1], want, 4) == 0);
    }
    /* reset keeps the GELU table */
    rvnpu_npu_reset(&m.npu);
    NPK_CHECK(m.npu.acc == 0 && m.npu.facc == 0 && m.npu.vreg[1][1] == 0);
    NPK_CHECK_EQ_U64(m.npu.gelu8[32], 27);
}

/* ---- random inputs ----------------------------------------------------------------------- */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rnd(rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}

static uint32_t rnd_below(rng *r, uint32_t n) { return (uint32_t)(rnd(r) % n); }

static uint32_t rnd_f32(rng *r)
{
    static const uint32_t special[] = {
        0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001,
        0x7FA00000, 0xFFBFFFFF, 0x7FC12345, 0x00000001, 0x807FFFFF, 0x00800000, 0x80800000,
        0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x42B17217, 0x42B17218, 0x42B20000,
        0xC2CE0000, 0xC2AE0000, 0xC2B00000, 0x40800000, 0x3F000000, 0x34000000, 0x5F000000};
    switch (rnd_below(r, 8)) {
    case 0: return special[rnd_below(r, sizeof special / sizeof special[0])];
    case 1: case 2: return (uint32_t)rnd(r);
    default: { /* moderate values, where the functions are interesting */
        float v = (float)((double)(int32_t)(uint32_t)rnd(r) / 2147483648.0 * 12.0);
        return fb(v);
    }
    }
}

static uint64_t rnd_facc(rng *r)
{
    switch (rnd_below(r, 10)) {
    case 0: return 0;
    case 1: return UINT64_C(0x8000000000000000);
    case 2: return UINT64_C(0x7FF8000000000000);
    case 3: return rnd_below(r, 2) ? UINT64_C(0x7FF0000000000000) : UINT64_C(0xFFF0000000000000);
    case 4: return db(rnd_below(r, 2) ? 1e300 : -3.5e38);
    case 5: { /* a random binary64, never a non-canonical NaN */
        uint64_t d = rnd(r);
        if ((d & UINT64_C(0x7FF0000000000000)) == UINT64_C(0x7FF0000000000000))
            d &= ~UINT64_C(0x4000000000000000);
        return d;
    }
    case 6: return db(1.0 + ldexp((double)rnd_below(r, 1000), -40));
    default: return db((double)(int32_t)(uint32_t)rnd(r) / 65536.0 / 1024.0);
    }
}

/* Pick a base address: mostly a small window (so arrays overlap), sometimes anywhere in RAM
 * (so some run off its end), the device, or anywhere at all (unmapped). */
static uint32_t rnd_addr(rng *r)
{
    switch (rnd_below(r, 20)) {
    case 0: return DEV_BASE + rnd_below(r, DEV_SIZE);
    case 1: return (uint32_t)rnd(r);
    case 2: case 3: case 4: return RAM_BASE + rnd_below(r, RAM_SIZE);
    default: return RAM_BASE + 0x100 + rnd_below(r, 0x80);
    }
}

static uint32_t rnd_count(rng *r)
{
    switch (rnd_below(r, 24)) {
    case 0: return 0;
    case 1: return 0xFFFFFFFFu;
    case 2: return 63 + rnd_below(r, 4);
    case 3: return 254 + rnd_below(r, 5);
    case 4: return rnd_below(r, 1200);
    default: return rnd_below(r, 24);
    }
}

/* One random instruction on the same random machine in npu.c and in the reference. */
static unsigned long diff_fail, diff_outcome[8], soft_runs; /* [0] completed, [cause] traps */

/* The FP operations whose software path in npu.c uses src/num only (no libm): run again from
 * `before` with the host FPU rounding upward, where npk_hostfp_ready() is 0 and npu.c takes
 * its software paths, they must end exactly as the host-FPU run `m` did (ret). */
static void check_soft_path(const mach *before, const mach *m, rvnpu_op op, uint32_t w, int rev2,
                            int ret)
{
    static mach soft;
    int sret, ok;
    if (op != RVNPU_OP_NPU_FMACC && op != RVNPU_OP_NPU_FVMAC && op != RVNPU_OP_NPU_FVREDUCE &&
        op != RVNPU_OP_NPU_FRSTACC && op != RVNPU_OP_NPU_FVMUL && op != RVNPU_OP_NPU_FVDIV &&
        op != RVNPU_OP_NPU_FVSUB_SC && op != RVNPU_OP_NPU_FVADD && op != RVNPU_OP_NPU_FVSUB &&
        op != RVNPU_OP_NPU_FVMAX)
        return;
    soft = *before;
    soft.bus.ctx = &soft.t;
    if (soft.bus.ram)
        soft.bus.ram = soft.t.ram;
    if (soft.t.regs)
        soft.t.regs = &soft.npu;
    if (fesetround(FE_UPWARD) != 0)
        return;
    NPK_CHECK(npk_hostfp_ready() == 0);
    sret = m_exec(&soft, op, w, rev2);
    fesetround(FE_TONEAREST);
    soft_runs++;
    ok = sret == ret && soft.npu.acc == m->npu.acc && soft.npu.facc == m->npu.facc &&
         memcmp(soft.x, m->x, sizeof soft.x) == 0 && memcmp(soft.f, m->f, sizeof soft.f) == 0 &&
         memcmp(soft.t.ram, m->t.ram, RAM_SIZE) == 0 &&
         memcmp(soft.t.dev, m->t.dev, DEV_SIZE) == 0 && soft.t.dev_loads == m->t.dev_loads &&
         soft.t.dev_stores == m->t.dev_stores;
    NPK_REPORT(ok, "  host FPU and software paths differ: op %d w=0x%08x rev2=%d facc %llx/%llx\n",
               (int)op, (unsigned)w, rev2, (unsigned long long)m->npu.facc,
               (unsigned long long)soft.npu.facc);
}

static void diff_one(rng *r, rvnpu_op op, npu_ref_mem *rm, npu_ref_state *rs, mach *m)
{
    uint32_t w = rows[op].match | ((uint32_t)rnd(r) & ~rows[op].mask);
    unsigned rd = (w >> 7) & 31, rs1 = (w >> 15) & 31, rs2 = (w >> 20) & 31, k;
    int rev2 = (int)rnd_below(r, 2), ret, rret;
    uint32_t rcause = 0, rtval = 0;
    mach before;

    if (op == RVNPU_OP_NPU_FVRSQRT)
        rev2 = 0;
    if (op >= RVNPU_OP_NPU_FVADD && op <= RVNPU_OP_NPU_FVSUB_SC)
        rev2 = rnd_below(r, 16) != 0;
    if (op == RVNPU_OP_NPU_FRSQRT)
        rev2 = 1;

    /* state */
    m->npu.acc = rnd(r);
    if (rnd_below(r, 4) == 0) /* a VMUL scale of modest size, so fewer results saturate */
        m->npu.acc = (uint64_t)(int64_t)((int32_t)rnd_below(r, 1u << 18) - (1 << 17));
    m->npu.facc = rnd_facc(r);
    for (k = 0; k < 16; k++)
        m->npu.vreg[k / 4][k % 4] = (int8_t)rnd(r);
    for (k = 0; k < 32; k++) {
        m->x[k] = (uint32_t)rnd(r);
        m->f[k] = rnd_f32(r);
    }
    m->x[rd] = rnd_count(r);
    m->x[rs1] = rnd_addr(r);
    if (op == RVNPU_OP_NPU_VREDUCE || op == RVNPU_OP_NPU_VMAX || op == RVNPU_OP_NPU_FVREDUCE ||
        op == RVNPU_OP_NPU_FVMAX)
        m->x[rs2] = rnd_count(r);
    else if (op == RVNPU_OP_NPU_MACC || op == RVNPU_OP_NPU_QMUL || rnd_below(r, 10) == 0)
        m->x[rs2] = (uint32_t)rnd(r);
    else
        m->x[rs2] = rnd_addr(r);
    if (rnd_below(r, 3) == 0)
        m->x[rs1] = (uint32_t)(int32_t)(int8_t)rnd(r); /* small values for the scalar ops */
    m->x[0] = 0;

    /* memory: floats, Q16.16 values around the EXPQ range, or random bytes */
    for (k = 0; k < RAM_SIZE; k += 4) {
        uint32_t v;
        switch (rnd_below(r, 3)) {
        case 0: v = rnd_f32(r); break;
        case 1: v = (uint32_t)(int32_t)((int32_t)rnd_below(r, 50u << 16) - (25 << 16)); break;
        default: v = (uint32_t)rnd(r); break;
        }
        put32(&m->t, RAM_BASE + k, v);
    }
    for (k = 0; k < DEV_SIZE; k++)
        m->t.dev[k] = (uint8_t)rnd(r);
    m->t.hole_lo = m->t.hole_hi = 0;
    if (rnd_below(r, 8) == 0) {
        m->t.hole_lo = RAM_BASE + 0x100 + rnd_below(r, 0x100);
        m->t.hole_hi = m->t.hole_lo + 1 + rnd_below(r, 8);
    }
    m->bus = t_bus(&m->t, (int)rnd_below(r, 2));
    m->t.dev_loads = m->t.dev_stores = 0;

    /* the same machine for the reference */
    rs->acc = m->npu.acc;
    rs->facc = m->npu.facc;
    memcpy(rs->vreg, m->npu.vreg, sizeof rs->vreg);
    memcpy(rs->x, m->x, sizeof rs->x);
    memcpy(rs->f, m->f, sizeof rs->f);
    memcpy(rm->ram, m->t.ram, RAM_SIZE);
    memcpy(rm->dev, m->t.dev, DEV_SIZE);
    rm->hole_lo = m->t.hole_lo;
    rm->hole_hi = m->t.hole_hi;

    m->t.wrote_calls = 0;
    before = *m;
    ret = m_exec(m, op, w, rev2);
    check_soft_path(&before, m, op, w, rev2, ret);
    rret = npu_ref_exec(rs, rm, op, w, rev2, &rcause, &rtval);
    diff_outcome[ret ? (m->trap.mcause & 7) : 0]++;
    /* RAM written directly must be reported: every changed byte inside the range (the core
     * drops decoded code and notes tohost there) */
    if (m->t.wrote_calls)
        for (k = 0; k < RAM_SIZE; k++)
            if (m->t.ram[k] != before.t.ram[k] &&
                (RAM_BASE + k < m->t.wrote_lo || RAM_BASE + k >= m->t.wrote_hi)) {
                NPK_CHECK(!"a RAM byte written directly outside the reported range");
                break;
            }

    {
        int ok = ret == rret && m->npu.acc == rs->acc && m->npu.facc == rs->facc &&
                 memcmp(m->npu.vreg, rs->vreg, sizeof rs->vreg) == 0 &&
                 memcmp(m->x, rs->x, sizeof rs->x) == 0 &&
                 memcmp(m->f, rs->f, sizeof rs->f) == 0 &&
                 memcmp(m->t.ram, rm->ram, RAM_SIZE) == 0 &&
                 memcmp(m->t.dev, rm->dev, DEV_SIZE) == 0 && m->x[0] == 0;
        if (ret && ok)
            ok = m->trap.mcause == rcause && m->trap.mtval == rtval &&
                 memcmp(&before.npu, &m->npu, sizeof m->npu) == 0 &&
                 m->t.dev_loads == 0 && m->t.dev_stores == 0;
        NPK_CHECK(ok);
        if (!ok && diff_fail++ < 10) {
            fprintf(stderr,
                    "  differs: op %d w=0x%08x rev2=%d ret %d/%d cause %u/%u tval 0x%x/0x%x "
                    "acc %llx/%llx facc %llx/%llx\n",
                    (int)op, (unsigned)w, rev2, ret, rret, (unsigned)m->trap.mcause,
                    (unsigned)rcause, (unsigned)m->trap.mtval, (unsigned)rtval,
                    (unsigned long long)m->npu.acc, (unsigned long long)rs->acc,
                    (unsigned long long)m->npu.facc, (unsigned long long)rs->facc);
            for (k = 0; k < 32; k++)
                if (m->x[k] != rs->x[k] || m->f[k] != rs->f[k])
                    fprintf(stderr, "    reg %u: x %08x/%08x f %08x/%08x\n", k,
                            (unsigned)m->x[k], (unsigned)rs->x[k], (unsigned)m->f[k],
                            (unsigned)rs->f[k]);
            for (k = 0; k < RAM_SIZE; k++)
                if (m->t.ram[k] != rm->ram[k]) {
                    fprintf(stderr, "    ram +0x%x: %02x/%02x\n", k, m->t.ram[k], rm->ram[k]);
                    break;
                }
        }
    }
}

static void test_differential(int iters)
{
    static uint8_t ref_ram[RAM_SIZE], ref_dev[DEV_SIZE];
    npu_ref_mem rm = {ref_ram, RAM_BASE, RAM_SIZE, ref_dev, DEV_BASE, DEV_SIZE, 0, 0};
    npu_ref_state rs;
    mach *m = malloc(sizeof *m);
    rng r = {UINT64_C(0x9E3779B97F4A7C15)};
    int op, i;
    if (!m)
        return;
    m_init(m);
    for (op = RVNPU_OP_NPU_MACC; op <= RVNPU_OP_NPU_FRSTACC; op++)
        for (i = 0; i < iters; i++)
            diff_one(&r, (rvnpu_op)op, &rm, &rs, m);
    printf("differential: %lu completed, %lu illegal, %lu load faults, %lu store faults; %lu "
           "also on the software path\n",
           diff_outcome[0], diff_outcome[2], diff_outcome[5], diff_outcome[7], soft_runs);
    free(m);
}

/* Bulk comparison of the element functions with long seed vectors. */
static void test_bulk(void)
{
    mach *m = malloc(sizeof *m);
    rng r = {UINT64_C(0x0123456789ABCDEF)};
    int round, k, bad = 0;
    if (!m)
        return;
    m_init(m);
    for (round = 0; round < 60; round++) {
        for (k = 0; k < 512; k++) {
            uint32_t v = round % 2 ? (uint32_t)rnd(&r)
                                   : (uint32_t)((int32_t)rnd_below(&r, 44u << 16) - (22 << 16));
            put32(&m->t, RAM_BASE + 4 * (uint32_t)k, v);
        }
        m->x[10] = RAM_BASE;
        m->x[11] = RAM_BASE + 2048;
        m->x[12] = 512;
        NPK_CHECK(m_exec(m, RVNPU_OP_NPU_VEXP, enc_r(RVNPU_OP_NPU_VEXP, 12, 10, 11), 0) == 0);
        for (k = 0; k < 512; k++) {
            uint32_t in = get32(&m->t, RAM_BASE + 4 * (uint32_t)k);
            if (get32(&m->t, RAM_BASE + 2048 + 4 * (uint32_t)k) != npu_ref_expq(in))
                bad++;
        }
        for (k = 0; k < 512; k++) {
            m->x[10] = RAM_BASE + 4 * (uint32_t)k;
            NPK_CHECK(m_exec(m, RVNPU_OP_NPU_VRSQRT, enc_r(RVNPU_OP_NPU_VRSQRT, 7, 10, 0), 0) == 0);
            if (m->x[7] != npu_ref_rsqrtq(get32(&m->t, RAM_BASE + 4 * (uint32_t)k)))
                bad++;
        }
    }
    NPK_CHECK_EQ_U64(bad, 0);

    /* EXPQ exhaustively over every input whose value is not clamped (|x| <= 21), and RSQRTQ
     * for every input below 2^20 plus a stride over the rest */
    {
        int32_t v = -(21 << 16);
        bad = 0;
        while (v <= (21 << 16)) {
            uint32_t cnt = 0;
            for (k = 0; k < 256 && v <= (21 << 16); k++, v++, cnt++)
                put32(&m->t, RAM_BASE + 4 * (uint32_t)k, (uint32_t)v);
            m->x[10] = RAM_BASE;
            m->x[11] = RAM_BASE + 2048;
            m->x[12] = cnt;
            if (m_exec(m, RVNPU_OP_NPU_VEXP, enc_r(RVNPU_OP_NPU_VEXP, 12, 10, 11), 0) != 0)
                bad++;
            for (k = 0; k < (int)cnt; k++)
                if (get32(&m->t, RAM_BASE + 2048 + 4 * (uint32_t)k) !=
                    npu_ref_expq(get32(&m->t, RAM_BASE + 4 * (uint32_t)k)))
                    bad++;
        }
        NPK_CHECK_EQ_U64(bad, 0);
    }
    {
        uint64_t w;
        bad = 0;
        m->x[10] = RAM_BASE;
        for (w = 0; w <= 0x7FFFFFFFu; w += w < (1u << 20) ? 1 : 4093) {
            put32(&m->t, RAM_BASE, (uint32_t)w);
            if (m_exec(m, RVNPU_OP_NPU_VRSQRT, enc_r(RVNPU_OP_NPU_VRSQRT, 7, 10, 0), 1) != 0 ||
                m->x[7] != npu_ref_rsqrtq((uint32_t)w))
                bad++;
        }
        NPK_CHECK_EQ_U64(bad, 0);
    }
    free(m);
}

/* Splitting a dot product over several VMAC/FVMAC (or MACC/FMACC first) changes nothing. */
static void test_chunking(void)
{
    mach *m = malloc(sizeof *m);
    rng r = {UINT64_C(0xDEADBEEFCAFEF00D)};
    int round;
    if (!m)
        return;
    m_init(m);
    for (round = 0; round < 200; round++) {
        uint32_t n = 1 + rnd_below(&r, 500), done, k;
        uint64_t start_acc = rnd(&r), start_facc = rnd_facc(&r), whole_acc, whole_facc;
        for (k = 0; k < 512; k++) {
            uint32_t v = rnd_below(&r, 16) ? fb((float)((double)(int32_t)(uint32_t)rnd(&r) /
                                                        2147483648.0))
                                           : rnd_f32(&r);
            put32(&m->t, RAM_BASE + 4 * k, v);
            put32(&m->t, RAM_BASE + 2048 + 4 * k, (uint32_t)rnd(&r) & 0xBFFFFFFFu);
        }
        m->x[10] = RAM_BASE;
        m->x[11] = RAM_BASE + 2048;
        m->x[12] = n;
        m->npu.acc = start_acc;
        m->npu.facc = start_facc;
        NPK_CHECK(m_exec(m, RVNPU_OP_NPU_FVMAC, enc_r(RVNPU_OP_NPU_FVMAC, 12, 10, 11), 0) == 0);
        NPK_CHECK(m_exec(m, RVNPU_OP_NPU_VMAC, enc_r(RVNPU_OP_NPU_VMAC, 12, 10, 11), 0) == 0);
        whole_acc = m->npu.acc;
        whole_facc = m->npu.facc;

        m->npu.acc = start_acc;
        m->npu.facc = start_facc;
        done = 0;
        if (rnd_below(&r, 2)) { /* first element by FMACC */
            m->f[5] = get32(&m->t, RAM_BASE);
            m->f[6] = get32(&m->t, RAM_BASE + 2048);
            NPK_CHECK(m_exec(m, RVNPU_OP_NPU_FMACC, enc_r(RVNPU_OP_NPU_FMACC, 0, 5, 6), 1) == 0);
            done = 1;
        }
        while (done < n) {
            uint32_t c = rnd_below(&r, 65);
            if (c > n - done)
                c = n - done;
            m->x[10] = RAM_BASE + 4 * done;
            m->x[11] = RAM_BASE + 2048 + 4 * done;
            m->x[12] = c;
            NPK_CHECK(m_exec(m, RVNPU_OP_NPU_FVMAC, enc_r(RVNPU_OP_NPU_FVMAC, 12, 10, 11), 1) == 0);
            done += c;
        }
        /* VMAC over the same bytes in byte chunks (n bytes), MACC for one element */
        done = 0;
        if (rnd_below(&r, 2)) {
            m->x[5] = (uint32_t)(int32_t)(int8_t)m->t.ram[0];
            m->x[6] = (uint32_t)(int32_t)(int8_t)m->t.ram[2048];
            NPK_CHECK(m_exec(m, RVNPU_OP_NPU_MACC, enc_r(RVNPU_OP_NPU_MACC, 0, 5, 6), 1) == 0);
            done = 1;
        }
        while (done < n) {
            uint32_t c = rnd_below(&r, 257);
            if (c > n - done)
                c = n - done;
            m->x[10] = RAM_BASE + done;
            m->x[11] = RAM_BASE + 2048 + done;
            m->x[12] = c;
            NPK_CHECK(m_exec(m, RVNPU_OP_NPU_VMAC, enc_r(RVNPU_OP_NPU_VMAC, 12, 10, 11), 1) == 0);
            done += c;
        }
        NPK_CHECK_EQ_U64(m->npu.facc, whole_facc);
        NPK_CHECK_EQ_U64(m->npu.acc, whole_acc);
    }
    free(m);
}

/* rvnpu_dot_i8 (npu_quick.h: VMAC's in-RAM path) and each of its kernels this host has (the
 * plain loop always, the AVX2 one on x86-64 hosts with AVX2) against the element loop: every
 * length 0 .. 300 (the vector steps of 16 and 32 pairs and their tails) on random bytes at
 * every start offset 0 .. 3 of each array; lengths around the int32 blocks of the AVX2 kernel
 * (4096 steps of 32 pairs = 131,072) and the plain loop (65,536) on random bytes; and
 * 300,000 products of -128 * -128 = 16384 each: 4,915,200,000, more than an int32 or a
 * uint32 holds (2^32 = 4,294,967,296), with every int32 lane at its largest; and 2^21 + 32
 * of them (2^35 + 2^19 = 34,360,262,656), where one AVX2 lane without the blocks would add
 * 65,537 vpmaddwd results of 2^15 (more than 2^31) and wrap. */
static int64_t dot_ref(const uint8_t *a, const uint8_t *b, uint32_t n)
{
    int64_t want = 0;
    for (uint32_t i = 0; i < n; i++)
        want += (int8_t)a[i] * (int8_t)b[i];
    return want;
}

static void check_dot(const uint8_t *a, const uint8_t *b, uint32_t n, int64_t want)
{
    NPK_CHECK_EQ_U64((uint64_t)rvnpu_dot_i8(a, b, n), (uint64_t)want);
    for (int k = RVNPU_DOT_PLAIN; k < RVNPU_DOT_KERNELS; k++)
        if (rvnpu_dot_i8_has((rvnpu_dot_kernel)k))
            NPK_CHECK_EQ_U64((uint64_t)rvnpu_dot_i8_with((rvnpu_dot_kernel)k, a, b, n),
                             (uint64_t)want);
}

static void test_dot(void)
{
    static uint8_t a[(1u << 21) + 32], b[(1u << 21) + 32];
    static const uint32_t blocks[] = {65535, 65536, 65537, 131071, 131072, 131073,
                                      131072 + 16, 131072 + 47, 262144 + 33, 300000};
    rng r = {77};
    NPK_CHECK(rvnpu_dot_i8_has(RVNPU_DOT_PLAIN));
    for (uint32_t i = 0; i < 300000; i++)
        a[i] = (uint8_t)rnd(&r), b[i] = (uint8_t)rnd(&r);
    for (uint32_t off = 0; off < 4; off++)
        for (uint32_t n = 0; n <= 300; n++)
            check_dot(a + off, b + 3 - off, n, dot_ref(a + off, b + 3 - off, n));
    for (size_t k = 0; k < sizeof blocks / sizeof *blocks; k++)
        check_dot(a, b, blocks[k], dot_ref(a, b, blocks[k]));
    memset(a, 0x80, sizeof a);
    memset(b, 0x80, sizeof b);
    check_dot(a, b, 300000, INT64_C(4915200000));
    check_dot(a, b, 131072, INT64_C(2147483648)); /* 2^17 * 2^14 = 2^31: one past INT32_MAX */
    check_dot(a, b, (1u << 21) + 32, INT64_C(34360262656));
    memset(b, 0x7f, sizeof b); /* -128 * 127 = -16256 each */
    check_dot(a, b, 300000, INT64_C(-4876800000));
    /* 127 * -128 each: 2^21 + 32 of them = -34,091,823,104 */
    check_dot(b, a, (1u << 21) + 32, INT64_C(-34091823104));
}

int main(void)
{
    test_dot();
    test_spot_int();
    test_spot_fp();
    test_rev2_limit();
    test_faults();
    test_regs();
    test_chunking();
    test_bulk();
    test_differential(3000);
    return npk_test_done();
}
