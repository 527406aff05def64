/* Independent reference for the rvnpu NPU: spec §4-§8 transcribed line by line with host
 * binary64 arithmetic (volatile temporaries, built with -ffp-contract=off), its own tables
 * and its own memory model. Deliberately naive: clarity over speed, nothing shared with npu.c. */
#include "targets/rvnpu/npu_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* §3.3 tables, typed in from the spec rather than read from isa.def. */
typedef struct ref_info {
    rvnpu_op op;
    int cnt_reg; /* 0 none, 1 rd, 2 rs2 */
    int elem;
    int rev;     /* 0 both, 1 seed only, 2 rev2 only */
} ref_info;

static const ref_info ref_table[] = {
    {RVNPU_OP_NPU_MACC, 0, 0, 0},     {RVNPU_OP_NPU_VMAC, 1, 1, 0},
    {RVNPU_OP_NPU_VEXP, 1, 4, 0},     {RVNPU_OP_NPU_VRSQRT, 0, 0, 0},
    {RVNPU_OP_NPU_VMUL, 1, 1, 0},     {RVNPU_OP_NPU_VREDUCE, 2, 4, 0},
    {RVNPU_OP_NPU_VMAX, 2, 4, 0},     {RVNPU_OP_NPU_RELU, 0, 0, 0},
    {RVNPU_OP_NPU_QMUL, 0, 0, 0},     {RVNPU_OP_NPU_CLAMP, 0, 0, 0},
    {RVNPU_OP_NPU_GELU, 0, 0, 0},     {RVNPU_OP_NPU_RSTACC, 0, 0, 0},
    {RVNPU_OP_NPU_LDVEC, 0, 0, 0},    {RVNPU_OP_NPU_STVEC, 0, 0, 0},
    {RVNPU_OP_NPU_FMACC, 0, 0, 0},    {RVNPU_OP_NPU_FVMAC, 1, 4, 0},
    {RVNPU_OP_NPU_FVEXP, 1, 4, 0},    {RVNPU_OP_NPU_FVRSQRT, 0, 0, 1},
    {RVNPU_OP_NPU_FRSQRT, 0, 0, 2},   {RVNPU_OP_NPU_FVMUL, 1, 4, 0},
    {RVNPU_OP_NPU_FVREDUCE, 2, 4, 0}, {RVNPU_OP_NPU_FVMAX, 2, 4, 0},
    {RVNPU_OP_NPU_FVADD, 1, 4, 2},    {RVNPU_OP_NPU_FVSUB, 1, 4, 2},
    {RVNPU_OP_NPU_FVRELU, 1, 4, 2},   {RVNPU_OP_NPU_FVGELU, 1, 4, 2},
    {RVNPU_OP_NPU_FVDIV, 1, 4, 2},    {RVNPU_OP_NPU_FVSUB_SC, 1, 4, 2},
    {RVNPU_OP_NPU_FRELU, 0, 0, 0},    {RVNPU_OP_NPU_FGELU, 0, 0, 0},
    {RVNPU_OP_NPU_FRSTACC, 0, 0, 0},
};

static float bits_f(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static uint32_t f_bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static double bits_d(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }
static uint64_t d_bits(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }

/* rne32 with the "other results" NaN rule: the host's double -> float conversion is RNE. */
static uint32_t rne32(double d)
{
    volatile float f;
    if (isnan(d))
        return 0x7FC00000u;
    f = (float)d;
    return f_bits(f);
}

static int is_nan32(uint32_t v) { return (v & 0x7F800000u) == 0x7F800000u && (v & 0x7FFFFFu); }

static double gelu_d(double x)
{
    volatile double h = 0.5 * x;
    volatile double q = x / sqrt(2.0);
    volatile double e = erf(q);
    volatile double o = 1.0 + e;
    volatile double g = h * o;
    return g;
}

/* round half even to an integer-valued double, then clamp, all in double */
static double rhe(double d) { return nearbyint(d); }

int npu_ref_gelu8(int k)
{
    double r = rhe(gelu_d(k / 32.0) * 32.0);
    if (r < -128) r = -128;
    if (r > 127) r = 127;
    return (int)r;
}

uint32_t npu_ref_expq(uint32_t w)
{
    double xf = (int32_t)w / 65536.0, r;
    if (xf < -20.0) xf = -20.0;
    if (xf > 20.0) xf = 20.0;
    r = rhe(exp(xf) * 65536.0);
    if (r < 0) r = 0;
    if (r > 2147483647.0) r = 2147483647.0;
    return (uint32_t)r;
}

uint32_t npu_ref_rsqrtq(uint32_t w)
{
    volatile double v, s, q, r;
    if ((int32_t)w <= 0)
        return 0x7FFFFFFFu;
    v = (int32_t)w / 65536.0;
    s = sqrt(v);
    q = 1.0 / s;
    r = rhe(q * 65536.0);
    if (r < 0) r = 0;
    if (r > 2147483647.0) r = 2147483647.0;
    return (uint32_t)r;
}

static uint32_t frelu(uint32_t v)
{
    if (is_nan32(v)) return v | 0x00400000u;
    if (v & 0x80000000u) return 0;
    return v;
}

static uint32_t fgelu(uint32_t v)
{
    if (is_nan32(v)) return v | 0x00400000u;
    if (v == 0x7F800000u) return v;
    if (v == 0xFF800000u) return 0;
    return rne32(gelu_d((double)bits_f(v)));
}

static uint32_t fexp(uint32_t v)
{
    if (is_nan32(v)) return v | 0x00400000u;
    if (isinf(bits_f(v))) return v == 0x7F800000u ? v : 0;
    return rne32(exp((double)bits_f(v)));
}

static uint32_t frsqrt(uint32_t v)
{
    float x = bits_f(v);
    volatile double s, q;
    if (isnan(x)) return 0x7FC00000u;
    if (x == 0) return 0x7F800000u;
    if (x < 0) return 0x7FC00000u;
    if (isinf(x)) return 0;
    s = sqrt((double)x);
    q = 1.0 / s;
    return rne32(q);
}

static uint64_t facc_add_prod(uint64_t facc, uint32_t a, uint32_t b)
{
    volatile double p = (double)bits_f(a) * (double)bits_f(b);
    volatile double t = bits_d(facc) + p;
    if (isnan(t)) return UINT64_C(0x7FF8000000000000);
    return d_bits(t);
}

/* binary32 arithmetic through binary64: exact for + - * / (double rounding is innocuous). */
static uint32_t f32op(char o, uint32_t a, uint32_t b)
{
    volatile double x = bits_f(a), y = bits_f(b), r;
    switch (o) {
    case '+': r = x + y; break;
    case '-': r = x - y; break;
    case '*': r = x * y; break;
    default: r = x / y; break;
    }
    return rne32(r);
}

/* ---- memory with rollback ---- */

typedef struct ref_ctx {
    npu_ref_mem *m;
    int faulted;
    uint32_t mcause, mtval;
} ref_ctx;

static uint8_t *where(npu_ref_mem *m, uint32_t a, unsigned size)
{
    uint64_t lo = a, hi = (uint64_t)a + size;
    if (lo < m->hole_hi && hi > m->hole_lo)
        return NULL;
    if (m->ram && lo >= m->ram_base && hi <= (uint64_t)m->ram_base + m->ram_size)
        return m->ram + (a - m->ram_base);
    if (m->dev && lo >= m->dev_base && hi <= (uint64_t)m->dev_base + m->dev_size)
        return m->dev + (a - m->dev_base);
    return NULL;
}

static uint32_t rd(ref_ctx *c, uint32_t a, unsigned size)
{
    uint8_t *p;
    uint32_t v = 0;
    unsigned k;
    if (c->faulted) return 0;
    p = where(c->m, a, size);
    if (!p) {
        c->faulted = 1;
        c->mcause = 5;
        c->mtval = a;
        return 0;
    }
    for (k = 0; k < size; k++)
        v |= (uint32_t)p[k] << (8 * k);
    return v;
}

static void wr(ref_ctx *c, uint32_t a, uint32_t v, unsigned size)
{
    uint8_t *p;
    unsigned k;
    if (c->faulted) return;
    p = where(c->m, a, size);
    if (!p) {
        c->faulted = 1;
        c->mcause = 7;
        c->mtval = a;
        return;
    }
    for (k = 0; k < size; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}

int npu_ref_exec(npu_ref_state *s, npu_ref_mem *m, rvnpu_op op, uint32_t w, int rev2,
                 uint32_t *mcause, uint32_t *mtval)
{
    const ref_info *info = NULL;
    unsigned rdn = (w >> 7) & 31, r1 = (w >> 15) & 31, r2 = (w >> 20) & 31;
    uint32_t X1, X2, XD, F1, F2, n = 0, i;
    npu_ref_state save = *s;
    uint8_t *ram_save = NULL, *dev_save = NULL;
    ref_ctx c = {m, 0, 0, 0};
    size_t k;

    s->x[0] = 0;
    X1 = s->x[r1];
    X2 = s->x[r2];
    XD = s->x[rdn];
    F1 = s->f[r1];
    F2 = s->f[r2];
    for (k = 0; k < sizeof ref_table / sizeof ref_table[0]; k++)
        if (ref_table[k].op == op)
            info = &ref_table[k];
    if (!info || (info->rev == 1 && rev2) || (info->rev == 2 && !rev2)) {
        *mcause = 2;
        *mtval = w;
        return 1;
    }
    if (info->cnt_reg == 1) n = XD;
    if (info->cnt_reg == 2) n = X2;
    if (rev2 && info->elem && (double)n * info->elem > 256.0) {
        *mcause = 2;
        *mtval = w;
        return 1;
    }
    if (m->ram) {
        ram_save = malloc(m->ram_size);
        memcpy(ram_save, m->ram, m->ram_size);
    }
    if (m->dev) {
        dev_save = malloc(m->dev_size);
        memcpy(dev_save, m->dev, m->dev_size);
    }

    switch (op) {
    case RVNPU_OP_NPU_MACC:
        s->acc += (uint64_t)((int64_t)(int32_t)X1 * (int64_t)(int32_t)X2);
        break;
    case RVNPU_OP_NPU_VMAC:
        for (i = 0; i < n && !c.faulted; i++) {
            int a = (int8_t)rd(&c, X1 + i, 1);
            int b = (int8_t)rd(&c, X2 + i, 1);
            s->acc += (uint64_t)(int64_t)(a * b);
        }
        break;
    case RVNPU_OP_NPU_VEXP:
        for (i = 0; i < n && !c.faulted; i++) {
            uint32_t v = rd(&c, X1 + 4 * i, 4);
            wr(&c, X2 + 4 * i, npu_ref_expq(v), 4);
        }
        break;
    case RVNPU_OP_NPU_VRSQRT:
        s->x[rdn] = npu_ref_rsqrtq(rd(&c, X1, 4));
        break;
    case RVNPU_OP_NPU_VMUL: {
        int64_t sc = (int32_t)(uint32_t)s->acc;
        for (i = 0; i < n && !c.faulted; i++) {
            int64_t v = (int8_t)rd(&c, X1 + i, 1);
            int64_t p = v * sc;
            /* floor division by 65536 written out with the remainder */
            int64_t q = p / 65536;
            if (p % 65536 != 0 && p < 0) q -= 1;
            if (q < -128) q = -128;
            if (q > 127) q = 127;
            wr(&c, X2 + i, (uint32_t)(q & 0xFF), 1);
        }
        break;
    }
    case RVNPU_OP_NPU_VREDUCE: {
        uint32_t sum = 0;
        for (i = 0; i < n && !c.faulted; i++)
            sum += rd(&c, X1 + 4 * i, 4);
        s->x[rdn] = sum;
        break;
    }
    case RVNPU_OP_NPU_VMAX: {
        int32_t mx = 0;
        for (i = 0; i < n && !c.faulted; i++) {
            int32_t v = (int32_t)rd(&c, X1 + 4 * i, 4);
            if (i == 0 || v > mx) mx = v;
        }
        s->x[rdn] = n ? (uint32_t)mx : 0x80000000u;
        break;
    }
    case RVNPU_OP_NPU_RELU:
        s->x[rdn] = (int32_t)X1 >= 0 ? X1 : 0;
        break;
    case RVNPU_OP_NPU_QMUL: {
        int64_t p = (int64_t)(int32_t)X1 * (int64_t)(int32_t)X2;
        int64_t q = p / 256;
        if (p % 256 != 0 && p < 0) q -= 1;
        s->x[rdn] = (uint32_t)(uint64_t)q;
        break;
    }
    case RVNPU_OP_NPU_CLAMP: {
        int32_t v = (int32_t)X1;
        s->x[rdn] = (uint32_t)(v < -128 ? -128 : v > 127 ? 127 : v);
        break;
    }
    case RVNPU_OP_NPU_GELU:
        s->x[rdn] = (uint32_t)npu_ref_gelu8((int8_t)(X1 & 0xFF));
        break;
    case RVNPU_OP_NPU_RSTACC:
        s->x[rdn] = (uint32_t)s->acc;
        s->acc = 0;
        break;
    case RVNPU_OP_NPU_LDVEC: {
        int32_t imm = (int32_t)(w >> 20);
        uint32_t a;
        if (imm >= 2048) imm -= 4096;
        a = X1 + (uint32_t)imm;
        for (i = 0; i < 4; i++)
            s->vreg[rdn % 4][i] = (int8_t)rd(&c, a + i, 1);
        break;
    }
    case RVNPU_OP_NPU_STVEC: {
        int32_t imm = (int32_t)(((w >> 25) << 5) | ((w >> 7) & 31));
        uint32_t a;
        if (imm >= 2048) imm -= 4096;
        a = X1 + (uint32_t)imm;
        for (i = 0; i < 4; i++)
            wr(&c, a + i, (uint8_t)s->vreg[r2 % 4][i], 1);
        break;
    }
    case RVNPU_OP_NPU_FMACC:
        s->facc = facc_add_prod(s->facc, F1, F2);
        break;
    case RVNPU_OP_NPU_FVMAC:
        for (i = 0; i < n && !c.faulted; i++) {
            uint32_t a = rd(&c, X1 + 4 * i, 4);
            uint32_t b = rd(&c, X2 + 4 * i, 4);
            s->facc = facc_add_prod(s->facc, a, b);
        }
        break;
    case RVNPU_OP_NPU_FVEXP:
        for (i = 0; i < n && !c.faulted; i++) {
            uint32_t v = rd(&c, X1 + 4 * i, 4);
            wr(&c, X2 + 4 * i, fexp(v), 4);
        }
        break;
    case RVNPU_OP_NPU_FVRSQRT:
        s->f[rdn] = frsqrt(rd(&c, X1, 4));
        break;
    case RVNPU_OP_NPU_FRSQRT:
        s->f[rdn] = frsqrt(F1);
        break;
    case RVNPU_OP_NPU_FVMUL: case RVNPU_OP_NPU_FVDIV: case RVNPU_OP_NPU_FVSUB_SC: {
        uint32_t sc = rne32(bits_d(s->facc));
        char o = op == RVNPU_OP_NPU_FVMUL ? '*' : op == RVNPU_OP_NPU_FVDIV ? '/' : '-';
        for (i = 0; i < n && !c.faulted; i++) {
            uint32_t v = rd(&c, X1 + 4 * i, 4);
            wr(&c, X2 + 4 * i, f32op(o, v, sc), 4);
        }
        break;
    }
    case RVNPU_OP_NPU_FVREDUCE: {
        volatile double t = 0.0;
        for (i = 0; i < n && !c.faulted; i++)
            t = t + (double)bits_f(rd(&c, X1 + 4 * i, 4));
        s->f[rdn] = rne32(t);
        break;
    }
    case RVNPU_OP_NPU_FVMAX: {
        int any_nan = 0, have = 0;
        uint32_t best = 0;
        for (i = 0; i < n && !c.faulted; i++) {
            uint32_t v = rd(&c, X1 + 4 * i, 4);
            if (is_nan32(v)) {
                any_nan = 1;
            } else if (!have || bits_f(v) > bits_f(best)) {
                best = v;
                have = 1;
            }
        }
        s->f[rdn] = n == 0 ? 0xFF800000u : any_nan ? 0x7FC00000u : best;
        break;
    }
    case RVNPU_OP_NPU_FVADD: case RVNPU_OP_NPU_FVSUB:
        for (i = 0; i < n && !c.faulted; i++) {
            uint32_t a = rd(&c, X1 + 4 * i, 4);
            uint32_t b = rd(&c, X2 + 4 * i, 4);
            wr(&c, X2 + 4 * i, f32op(op == RVNPU_OP_NPU_FVADD ? '+' : '-', a, b), 4);
        }
        break;
    case RVNPU_OP_NPU_FVRELU: case RVNPU_OP_NPU_FVGELU:
        for (i = 0; i < n && !c.faulted; i++) {
            uint32_t v = rd(&c, X1 + 4 * i, 4);
            wr(&c, X2 + 4 * i, op == RVNPU_OP_NPU_FVRELU ? frelu(v) : fgelu(v), 4);
        }
        break;
    case RVNPU_OP_NPU_FRELU:
        s->f[rdn] = frelu(F1);
        break;
    case RVNPU_OP_NPU_FGELU:
        s->f[rdn] = fgelu(F1);
        break;
    case RVNPU_OP_NPU_FRSTACC:
        s->f[rdn] = rne32(bits_d(s->facc));
        s->facc = 0;
        break;
    default:
        break;
    }
    s->x[0] = 0;
    if (c.faulted) {
        *s = save;
        if (ram_save) memcpy(m->ram, ram_save, m->ram_size);
        if (dev_save) memcpy(m->dev, dev_save, m->dev_size);
        *mcause = c.mcause;
        *mtval = c.mtval;
    }
    free(ram_save);
    free(dev_save);
    return c.faulted;
}
