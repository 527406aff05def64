/* rvnpu NPU semantics (spec §2-§9): both NPU opcode spaces, executed on the state in
 * rvnpu_npu against the core's register files and a bus view of memory. Rounding, NaN and
 * saturation rules are calls into src/num; exp, erf and sqrt are the host's binary64 libm. */
#include "targets/rvnpu/npu.h"
#include "targets/rvnpu/npu_quick.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "num/num.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define RVNPU_DOT_X86 1 /* rvnpu_dot_i8's AVX2 kernel */
#include <immintrin.h>
#endif

/* ---- what isa.def says about each instruction ------------------------------------------- */

/* Tokens of isa.def's rev and count columns, turned into values by token pasting. */
enum { RVNPU_NPU_REV_BOTH, RVNPU_NPU_REV_SEED, RVNPU_NPU_REV_REV2 };
enum { RVNPU_NPU_CNT_NONE, RVNPU_NPU_CNT_RD, RVNPU_NPU_CNT_RS2 };
/* ... and of its class column: 1 for the FP NPU (custom-1) */
enum { RVNPU_NPU_FP_I = 0, RVNPU_NPU_FP_M = 0, RVNPU_NPU_FP_F = 0, RVNPU_NPU_FP_SYS = 0,
       RVNPU_NPU_FP_ZICSR = 0, RVNPU_NPU_FP_NPU = 0, RVNPU_NPU_FP_FNPU = 1 };

typedef struct rvnpu_npu_row {
    const char *mnemonic;
    unsigned char rev, count, elem, fp;
} rvnpu_npu_row;

/* Read from isa.def so the vector-length limit cannot drift from the ISA description. */
static const rvnpu_npu_row rvnpu_npu_rows[RVNPU_N_OPS] = {
#define RVNPU_INSN(id, mnemonic, match, mask, format, operands, class, rev, count, elem, summary) \
    [RVNPU_OP_##id] = {mnemonic, RVNPU_NPU_REV_##rev, RVNPU_NPU_CNT_##count, elem,         \
                       RVNPU_NPU_FP_##class},
#include "targets/rvnpu/isa.def"
};

/* The NPU rows close isa.def (base-ISA rows come first), so the NPU ids are one range. */
static int rvnpu_is_npu_op(rvnpu_op op)
{
    return op >= RVNPU_OP_NPU_MACC && op <= RVNPU_OP_NPU_FRSTACC;
}

/* ---- binary64 helpers --------------------------------------------------------------------- */

/* RNE, canonical NaNs, flags discarded: the environment of every FP NPU operation (§6.1);
 * the guest's frm never reaches it. That is the domain where src/num/hostfp.h computes on the
 * host FPU with identical bits, so every FP NPU operation below takes it whenever the host
 * FPU is in its default state (npk_hostfp_ready) and src/num's software path otherwise. */
static npk_fenv rvnpu_fenv(void)
{
    npk_fenv e;
    npk_fenv_init(&e, NPK_RM_RNE);
    return e;
}

static uint32_t rvnpu_rne32(uint64_t d)
{
    npk_fenv e = rvnpu_fenv();
    if (npk_hostfp_ready())
        return npk_hostfp_f64_to_f32(d);
    return npk_f64bits_to_f32(d, &e);
}

/* (0.5 * x) * (1.0 + erf(x / sqrt(2.0))), in exactly that order (§5.1, §6.2). The division
 * and erf are host binary64; the multiplications and the addition are the host's too when it
 * is in its default state (the expression has no product followed by an addition, so there
 * is nothing to contract), else src/num's. x is finite, so the result is. */
static uint64_t rvnpu_gelu64(double x)
{
    npk_fenv e = rvnpu_fenv();
    double erfq = erf(x / sqrt(2.0));
    if (npk_hostfp_ready())
        return npk_hostfp_d_bits((0.5 * x) * (1.0 + erfq));
    uint64_t half_x = npk_f64_mul(npk_hostfp_d_bits(0.5), npk_hostfp_d_bits(x), &e);
    uint64_t one_plus = npk_f64_add(npk_hostfp_d_bits(1.0), npk_hostfp_d_bits(erfq), &e);
    return npk_f64_mul(half_x, one_plus, &e);
}

/* FRELU (§6.2): NaN passes through quieted, anything with the sign bit set becomes +0.0. */
static uint32_t rvnpu_frelu(uint32_t v)
{
    if (npk_f32_is_nan(v))
        return npk_f32_quiet(v);
    return (v & 0x80000000u) ? 0 : v;
}

/* FGELU (§6.2). */
static uint32_t rvnpu_fgelu(uint32_t v)
{
    if (npk_f32_is_nan(v))
        return npk_f32_quiet(v);
    if (v == 0x7F800000u)
        return v;
    if (v == 0xFF800000u)
        return 0;
    return rvnpu_rne32(rvnpu_gelu64(npk_hostfp_d(npk_f32_to_f64bits(v))));
}

/* FVEXP's element function (§6.2). */
static uint32_t rvnpu_fexp(uint32_t v)
{
    if (npk_f32_is_nan(v))
        return npk_f32_quiet(v);
    if (v == 0x7F800000u)
        return v;
    if (v == 0xFF800000u)
        return 0;
    return rvnpu_rne32(npk_hostfp_d_bits(exp(npk_hostfp_d(npk_f32_to_f64bits(v)))));
}

/* FVRSQRT / FRSQRT (§6.2): -0.0 gives +inf on purpose, unlike IEEE rSqrt. */
static uint32_t rvnpu_frsqrt(uint32_t v)
{
    if (npk_f32_is_nan(v))
        return 0x7FC00000u;
    if ((v & 0x7FFFFFFFu) == 0)
        return 0x7F800000u;
    if (v & 0x80000000u)
        return 0x7FC00000u;
    if (v == 0x7F800000u)
        return 0;
    return rvnpu_rne32(npk_hostfp_d_bits(1.0 / sqrt(npk_hostfp_d(npk_f32_to_f64bits(v)))));
}

/* EXPQ (§5.2): clamp in floating point, then rhe(exp * 2^16) and saturate to 0..0x7FFFFFFF. */
static uint32_t rvnpu_expq(uint32_t w)
{
    double xf = (double)(int32_t)w / 65536.0;
    int64_t r;
    if (xf < -20.0)
        xf = -20.0;
    if (xf > 20.0)
        xf = 20.0;
    r = npk_fixed_from_double(exp(xf), 16, 32, NPK_QR_HALF_EVEN);
    return (uint32_t)(r < 0 ? 0 : r);
}

/* RSQRTQ (§5.3): zero and negative inputs saturate. */
static uint32_t rvnpu_rsqrtq(uint32_t w)
{
    int64_t r;
    if ((int32_t)w <= 0)
        return 0x7FFFFFFFu;
    r = npk_fixed_from_double(1.0 / sqrt((double)(int32_t)w / 65536.0), 16, 32,
                              NPK_QR_HALF_EVEN);
    return (uint32_t)(r < 0 ? 0 : r);
}

/* facc always holds the canonical binary64 NaN when it is NaN (§2). src/num's canonical mode
 * already produces it; this keeps the invariant independent of that option. */
static uint64_t rvnpu_facc_canon(uint64_t d)
{
    if ((d & UINT64_C(0x7FF0000000000000)) == UINT64_C(0x7FF0000000000000) &&
        (d & UINT64_C(0x000FFFFFFFFFFFFF)))
        return NPK_F64_DEFAULT_NAN;
    return d;
}

/* facc + D(a) * D(b): the product is exact in binary64, only the sum rounds (§6.2). `host`:
 * npk_hostfp_ready() held when the instruction started. */
static uint64_t rvnpu_fmac(uint64_t facc, uint32_t a, uint32_t b, int host, npk_fenv *e)
{
    if (host)
        return npk_hostfp_f64_fmac(facc, a, b);
    uint64_t p = npk_f64_mul(npk_f32_to_f64bits(a), npk_f32_to_f64bits(b), e);
    return rvnpu_facc_canon(npk_f64_add(facc, p, e));
}

/* binary32 a op b in RNE with canonical NaNs (FVMUL, FVDIV, FVSUB.SC, FVADD, FVSUB). */
static uint32_t rvnpu_f32_op(npk_hostfp_op op, uint32_t a, uint32_t b, int host, npk_fenv *e)
{
    if (host)
        return npk_hostfp_f32_arith(op, a, b);
    switch (op) {
    case NPK_HOSTFP_ADD: return npk_f32_add(a, b, e);
    case NPK_HOSTFP_SUB: return npk_f32_sub(a, b, e);
    case NPK_HOSTFP_MUL: return npk_f32_mul(a, b, e);
    default: return npk_f32_div(a, b, e);
    }
}

/* ---- state -------------------------------------------------------------------------------- */

void rvnpu_npu_reset(rvnpu_npu *n)
{
    n->acc = 0;
    n->facc = 0;
    memset(n->vreg, 0, sizeof n->vreg);
}

static void build_gelu8(rvnpu_npu *n)
{
    for (int k = -128; k <= 127; k++) {
        double g = npk_hostfp_d(rvnpu_gelu64((double)k / 32.0));
        n->gelu8[(uint8_t)k] = (int8_t)npk_fixed_from_double(g, 5, 8, NPK_QR_HALF_EVEN);
    }
    n->gelu8_built = 1;
}

void rvnpu_npu_init_lazy(rvnpu_npu *n)
{
    memset(n, 0, sizeof *n);
    rvnpu_npu_reset(n);
}

void rvnpu_npu_init(rvnpu_npu *n)
{
    rvnpu_npu_init_lazy(n);
    build_gelu8(n);
}

/* ---- memory (§8) -------------------------------------------------------------------------- */

/* One array an instruction walks: element i at base + i*size (mod 2^32). */
typedef struct rvnpu_stream {
    uint32_t base;
    unsigned size; /* 1 or 4 */
    int write;
} rvnpu_stream;

/* Index of the first element of stream s (of n) whose access is unmapped, or n. Runs of
 * elements inside RAM are skipped arithmetically, so huge in-RAM counts cost nothing. */
static uint32_t rvnpu_first_fault(const rvnpu_bus *b, const rvnpu_stream *s, uint32_t n)
{
    uint32_t i = 0;
    while (i < n) {
        uint32_t a = (uint32_t)(s->base + (uint64_t)i * s->size);
        if (rvnpu_ram_span(b, a, s->size)) {
            uint64_t left = ((uint64_t)b->ram_base + b->ram_size - a) / s->size;
            i = left >= (uint64_t)(n - i) ? n : i + (uint32_t)left;
        } else if (!b->mapped(b->ctx, a, s->size)) {
            return i;
        } else {
            i++;
        }
    }
    return n;
}

/* All-or-nothing check (§8): the first faulting access in element order (stream order within
 * an element) becomes the trap; 0 when every access is mapped. */
static int rvnpu_check(const rvnpu_bus *b, const rvnpu_stream *s, int ns, uint32_t n,
                       rvnpu_npu_trap *trap)
{
    uint32_t best = n;
    int which = -1, k;
    /* Streams are in access order, so a later stream wins only with a strictly earlier
     * element; searching below `best` is enough. */
    for (k = 0; k < ns; k++) {
        uint32_t f = rvnpu_first_fault(b, &s[k], best);
        if (f < best) {
            best = f;
            which = k;
        }
    }
    if (which < 0)
        return 0;
    {
        uint32_t a = (uint32_t)(s[which].base + (uint64_t)best * s[which].size);
        trap->mcause = s[which].write ? 7 : 5;
        trap->mtval = a;
        snprintf(trap->detail, sizeof trap->detail,
                 "NPU %s access fault at 0x%08x (%u-byte element %u of %u); nothing was changed",
                 s[which].write ? "store" : "load", (unsigned)a, s[which].size, (unsigned)best,
                 (unsigned)n);
    }
    return 1;
}

/* The same for an array the instruction writes: only when the bus lets RAM be written
 * directly (no observer wants each store). */
static uint8_t *rvnpu_ram_span_w(const rvnpu_bus *b, uint32_t a, uint64_t bytes)
{
    return b->wrote ? rvnpu_ram_span(b, a, bytes) : NULL;
}

static uint32_t get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

/* npu_quick.h: int32 partial sums over blocks of 2^16 products (at most 2^16 * 2^14 = 2^30 in
 * magnitude), which the compiler turns into vector multiply-adds, added into an int64. */
static int64_t dot_i8_plain(const uint8_t *a, const uint8_t *b, uint32_t n)
{
    int64_t sum = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t end = n - i > 65536 ? i + 65536 : n;
        int32_t part = 0;
        for (; i < end; i++)
            part += (int32_t)(int8_t)a[i] * (int8_t)b[i];
        sum += part;
    }
    return sum;
}

#ifdef RVNPU_DOT_X86
/* the sum of the eight int32 lanes of v, in int64 (no lane sum can wrap) */
__attribute__((target("avx2"))) static int64_t sum_i32x8(__m256i v)
{
    __m256i w = _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(v)),
                                 _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1)));
    __m128i h = _mm_add_epi64(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
    return _mm_cvtsi128_si64(h) + _mm_extract_epi64(h, 1);
}

/* 16 int8 from p, sign-extended to 16 int16 */
__attribute__((target("avx2"))) static __m256i load_i8x16(const uint8_t *p)
{
    return _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)p));
}

/* AVX2: the int8 pairs sign-extended to int16, vpmaddwd multiplies 16 pairs and adds adjacent
 * products into 8 int32 lanes, two independent chains of lanes over 32 pairs a step. Exact:
 * a product is at most 2^14 in magnitude, a vpmaddwd lane at most 2^15, and a chain's lane adds
 * at most 4096 of those per block (2^27) before the block's lanes are summed in int64. */
__attribute__((target("avx2"))) static int64_t dot_i8_avx2(const uint8_t *a, const uint8_t *b,
                                                           uint32_t n)
{
    int64_t sum = 0;
    uint32_t i = 0;
    while (n - i >= 32) {
        uint32_t left = (n - i) & ~31u, end = i + (left > 4096 * 32 ? 4096 * 32 : left);
        __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
        for (; i < end; i += 32) {
            s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(load_i8x16(a + i), load_i8x16(b + i)));
            s1 = _mm256_add_epi32(
                s1, _mm256_madd_epi16(load_i8x16(a + i + 16), load_i8x16(b + i + 16)));
        }
        sum += sum_i32x8(s0) + sum_i32x8(s1);
    }
    if (n - i >= 16) {
        sum += sum_i32x8(_mm256_madd_epi16(load_i8x16(a + i), load_i8x16(b + i)));
        i += 16;
    }
    return sum + dot_i8_plain(a + i, b + i, n - i);
}
#endif

int rvnpu_dot_i8_has(rvnpu_dot_kernel k)
{
    switch (k) {
    case RVNPU_DOT_PLAIN:
        return 1;
#ifdef RVNPU_DOT_X86
    case RVNPU_DOT_AVX2:
        return __builtin_cpu_supports("avx2") != 0;
#endif
    default:
        return 0;
    }
}

int64_t rvnpu_dot_i8_with(rvnpu_dot_kernel k, const uint8_t *a, const uint8_t *b, uint32_t n)
{
#ifdef RVNPU_DOT_X86
    if (k == RVNPU_DOT_AVX2)
        return dot_i8_avx2(a, b, n);
#endif
    (void)k;
    return dot_i8_plain(a, b, n);
}

int64_t rvnpu_dot_i8(const uint8_t *a, const uint8_t *b, uint32_t n)
{
#ifdef RVNPU_DOT_X86
    if (n >= 16 && __builtin_cpu_supports("avx2"))
        return dot_i8_avx2(a, b, n);
#endif
    return dot_i8_plain(a, b, n);
}

static uint32_t rvnpu_ld(const rvnpu_bus *b, uint32_t a, unsigned size)
{
    const uint8_t *p = rvnpu_ram_span(b, a, size);
    if (p)
        return size == 1 ? p[0] : get_le32(p);
    return b->load(b->ctx, a, size);
}

/* Stores always go through the bus, even to RAM: the core must see them (it drops cached
 * decodes of overwritten code and watches the tohost word), and one call per element is cheap
 * next to the loads the fast path saves. */
static void rvnpu_st(const rvnpu_bus *b, uint32_t a, uint32_t v, unsigned size)
{
    b->store(b->ctx, a, v, size);
}

/* ---- execution ---------------------------------------------------------------------------- */

/* An illegal-instruction trap (mcause 2, mtval = the word); the caller wrote the detail. */
static int rvnpu_illegal(rvnpu_npu_trap *trap, uint32_t w)
{
    trap->mcause = 2;
    trap->mtval = w;
    return 1;
}

static int rvnpu_not_npu(rvnpu_npu_trap *trap, uint32_t w)
{
    snprintf(trap->detail, sizeof trap->detail, "not an NPU instruction");
    return rvnpu_illegal(trap, w);
}

int rvnpu_npu_exec(rvnpu_npu *n, rvnpu_op op, uint32_t w, uint32_t x[32], uint32_t f[32],
                   int rev2, const rvnpu_bus *bus, uint32_t *elements, rvnpu_npu_trap *trap)
{
    unsigned rd = (w >> 7) & 31, rs1 = (w >> 15) & 31, rs2 = (w >> 20) & 31;
    /* Every source register is read here, before any destination is written (§3.3). */
    uint32_t xd = rd ? x[rd] : 0, x1 = rs1 ? x[rs1] : 0, x2 = rs2 ? x[rs2] : 0;
    uint32_t f1 = f[rs1], f2 = f[rs2];
    const rvnpu_npu_row *row;
    rvnpu_stream s[3];
    int ns = 0;
    uint32_t cnt = 0, i;
    npk_fenv e = {NPK_RM_RNE, 0, 0, 0}; /* set below for FP operations only */

    if (!rvnpu_is_npu_op(op))
        return rvnpu_not_npu(trap, w);
    if (rvnpu_npu_rows[op].fp)
        e = rvnpu_fenv();
    row = &rvnpu_npu_rows[op];
    if (row->rev == RVNPU_NPU_REV_SEED && rev2) {
        snprintf(trap->detail, sizeof trap->detail,
                 "%s exists only in the seed NPU revision (running rev2)", row->mnemonic);
        return rvnpu_illegal(trap, w);
    }
    if (row->rev == RVNPU_NPU_REV_REV2 && !rev2) {
        snprintf(trap->detail, sizeof trap->detail,
                 "%s exists only in the rev2 NPU revision (running seed; see --isa-rev)",
                 row->mnemonic);
        return rvnpu_illegal(trap, w);
    }
    if (rvnpu_npu_quick(n, op, w, x, rev2, bus, elements))
        return 0;
    if (row->count == RVNPU_NPU_CNT_RD)
        cnt = xd;
    else if (row->count == RVNPU_NPU_CNT_RS2)
        cnt = x2;

    /* §7.3: the rev2 limit comes before any memory check or state change. */
    if (rev2 && row->elem) {
        uint64_t bytes = (uint64_t)cnt * row->elem;
        if (bytes > 256) {
            snprintf(trap->detail, sizeof trap->detail,
                     "NPU vector-length fault in %s: n=%u, element size %u, %llu bytes > "
                     "256-byte limit (rev2; the seed revision has no limit)",
                     row->mnemonic, (unsigned)cnt, (unsigned)row->elem,
                     (unsigned long long)bytes);
            return rvnpu_illegal(trap, w);
        }
    }

    /* The arrays each instruction touches, in the per-element access order of §8. */
    switch (op) {
    case RVNPU_OP_NPU_VMAC:
        s[0] = (rvnpu_stream){x1, 1, 0};
        s[1] = (rvnpu_stream){x2, 1, 0};
        ns = 2;
        break;
    case RVNPU_OP_NPU_FVMAC:
        s[0] = (rvnpu_stream){x1, 4, 0};
        s[1] = (rvnpu_stream){x2, 4, 0};
        ns = 2;
        break;
    case RVNPU_OP_NPU_VMUL:
        s[0] = (rvnpu_stream){x1, 1, 0};
        s[1] = (rvnpu_stream){x2, 1, 1};
        ns = 2;
        break;
    case RVNPU_OP_NPU_VEXP: case RVNPU_OP_NPU_FVEXP: case RVNPU_OP_NPU_FVMUL:
    case RVNPU_OP_NPU_FVRELU: case RVNPU_OP_NPU_FVGELU: case RVNPU_OP_NPU_FVDIV:
    case RVNPU_OP_NPU_FVSUB_SC:
        s[0] = (rvnpu_stream){x1, 4, 0};
        s[1] = (rvnpu_stream){x2, 4, 1};
        ns = 2;
        break;
    case RVNPU_OP_NPU_FVADD: case RVNPU_OP_NPU_FVSUB:
        s[0] = (rvnpu_stream){x1, 4, 0};
        s[1] = (rvnpu_stream){x2, 4, 0};
        s[2] = (rvnpu_stream){x2, 4, 1};
        ns = 3;
        break;
    case RVNPU_OP_NPU_VREDUCE: case RVNPU_OP_NPU_VMAX:
    case RVNPU_OP_NPU_FVREDUCE: case RVNPU_OP_NPU_FVMAX:
        s[0] = (rvnpu_stream){x1, 4, 0};
        ns = 1;
        break;
    case RVNPU_OP_NPU_VRSQRT: case RVNPU_OP_NPU_FVRSQRT:
        s[0] = (rvnpu_stream){x1, 4, 0};
        ns = 1;
        cnt = 1;
        break;
    case RVNPU_OP_NPU_LDVEC: {
        uint32_t imm = ((w >> 20) ^ 0x800u) - 0x800u; /* sign-extended I-immediate */
        s[0] = (rvnpu_stream){x1 + imm, 1, 0};
        ns = 1;
        cnt = 4;
        break;
    }
    case RVNPU_OP_NPU_STVEC: {
        uint32_t imm = ((((w >> 25) << 5) | ((w >> 7) & 31)) ^ 0x800u) - 0x800u;
        s[0] = (rvnpu_stream){x1 + imm, 1, 1};
        ns = 1;
        cnt = 4;
        break;
    }
    default:
        break;
    }
    if (ns && cnt && rvnpu_check(bus, s, ns, cnt, trap))
        return 1;

    *elements = ns ? cnt : 1;
    switch (op) {
    case RVNPU_OP_NPU_VMAC: /* arrays not wholly in RAM (else rvnpu_npu_quick) */
        for (i = 0; i < cnt; i++) {
            int8_t a = (int8_t)rvnpu_ld(bus, x1 + i, 1);
            int8_t b = (int8_t)rvnpu_ld(bus, x2 + i, 1);
            n->acc += (uint64_t)(int64_t)(a * b);
        }
        break;
    case RVNPU_OP_NPU_VEXP: {
        const uint8_t *pa = rvnpu_ram_span(bus, x1, 4 * (uint64_t)cnt);
        uint8_t *pd = rvnpu_ram_span_w(bus, x2, 4 * (uint64_t)cnt);
        if (pa && pd) { /* in element order through the same RAM: overlaps behave as below */
            for (i = 0; i < cnt; i++)
                put_le32(pd + 4 * i, rvnpu_expq(get_le32(pa + 4 * i)));
            if (cnt)
                bus->wrote(bus->ctx, x2, 4 * cnt);
            break;
        }
        for (i = 0; i < cnt; i++)
            rvnpu_st(bus, x2 + 4 * i, rvnpu_expq(rvnpu_ld(bus, x1 + 4 * i, 4)), 4);
        break;
    }
    case RVNPU_OP_NPU_VRSQRT:
        if (rd)
            x[rd] = rvnpu_rsqrtq(rvnpu_ld(bus, x1, 4));
        else
            (void)rvnpu_ld(bus, x1, 4); /* the read still happens (device side effects) */
        break;
    case RVNPU_OP_NPU_VMUL: {
        int64_t sc = (int32_t)(uint32_t)n->acc;
        const uint8_t *pa = rvnpu_ram_span(bus, x1, cnt);
        uint8_t *pd = rvnpu_ram_span_w(bus, x2, cnt);
        if (pa && pd) {
            for (i = 0; i < cnt; i++) {
                int64_t r = npk_sat_int(npk_shr_round((int8_t)pa[i] * sc, 16, NPK_QR_FLOOR), 8);
                pd[i] = (uint8_t)(int8_t)r;
            }
            if (cnt)
                bus->wrote(bus->ctx, x2, cnt);
            break;
        }
        for (i = 0; i < cnt; i++) {
            int64_t v = (int8_t)rvnpu_ld(bus, x1 + i, 1);
            int64_t r = npk_sat_int(npk_shr_round(v * sc, 16, NPK_QR_FLOOR), 8);
            rvnpu_st(bus, x2 + i, (uint32_t)(uint8_t)(int8_t)r, 1);
        }
        break;
    }
    case RVNPU_OP_NPU_VREDUCE: {
        uint32_t sum = 0;
        const uint8_t *pa = rvnpu_ram_span(bus, x1, 4 * (uint64_t)cnt);
        for (i = 0; i < cnt; i++)
            sum += pa ? get_le32(pa + 4 * i) : rvnpu_ld(bus, x1 + 4 * i, 4);
        if (rd)
            x[rd] = sum;
        break;
    }
    case RVNPU_OP_NPU_VMAX: {
        int32_t m = INT32_MIN;
        const uint8_t *pa = rvnpu_ram_span(bus, x1, 4 * (uint64_t)cnt);
        for (i = 0; i < cnt; i++) {
            int32_t v = (int32_t)(pa ? get_le32(pa + 4 * i) : rvnpu_ld(bus, x1 + 4 * i, 4));
            if (v > m)
                m = v;
        }
        if (rd)
            x[rd] = (uint32_t)m;
        break;
    }
    case RVNPU_OP_NPU_GELU:
        if (!n->gelu8_built)
            build_gelu8(n);
        if (rd)
            x[rd] = (uint32_t)(int32_t)n->gelu8[x1 & 0xFF];
        break;
    case RVNPU_OP_NPU_LDVEC:
        /* Element by element: a load from the register block's vreg bytes may read an
         * element this instruction has just written. */
        for (i = 0; i < 4; i++)
            n->vreg[rd & 3][i] = (int8_t)rvnpu_ld(bus, s[0].base + i, 1);
        break;
    case RVNPU_OP_NPU_STVEC:
        for (i = 0; i < 4; i++)
            rvnpu_st(bus, s[0].base + i, (uint8_t)n->vreg[rs2 & 3][i], 1);
        break;

    case RVNPU_OP_NPU_FMACC:
        n->facc = rvnpu_fmac(n->facc, f1, f2, npk_hostfp_ready(), &e);
        break;
    case RVNPU_OP_NPU_FVMAC: {
        int host = npk_hostfp_ready();
        const uint8_t *pa = rvnpu_ram_span(bus, x1, 4 * (uint64_t)cnt), *pb = rvnpu_ram_span(bus, x2, 4 * (uint64_t)cnt);
        if (host && pa && pb) {
            n->facc = npk_hostfp_f64_dot_f32(n->facc, pa, pb, cnt);
            break;
        }
        for (i = 0; i < cnt; i++) {
            uint32_t a = rvnpu_ld(bus, x1 + 4 * i, 4);
            uint32_t b = rvnpu_ld(bus, x2 + 4 * i, 4);
            n->facc = rvnpu_fmac(n->facc, a, b, host, &e);
        }
        break;
    }
    case RVNPU_OP_NPU_FVEXP:
        for (i = 0; i < cnt; i++)
            rvnpu_st(bus, x2 + 4 * i, rvnpu_fexp(rvnpu_ld(bus, x1 + 4 * i, 4)), 4);
        break;
    case RVNPU_OP_NPU_FVRSQRT:
        f[rd] = rvnpu_frsqrt(rvnpu_ld(bus, x1, 4));
        break;
    case RVNPU_OP_NPU_FRSQRT:
        f[rd] = rvnpu_frsqrt(f1);
        break;
    case RVNPU_OP_NPU_FVMUL: case RVNPU_OP_NPU_FVDIV: case RVNPU_OP_NPU_FVSUB_SC: {
        uint32_t sc = rvnpu_rne32(n->facc); /* once, before the loop (§6.2, §7.2) */
        npk_hostfp_op fop = op == RVNPU_OP_NPU_FVMUL   ? NPK_HOSTFP_MUL
                            : op == RVNPU_OP_NPU_FVDIV ? NPK_HOSTFP_DIV
                                                       : NPK_HOSTFP_SUB;
        int host = npk_hostfp_ready();
        for (i = 0; i < cnt; i++) {
            uint32_t v = rvnpu_ld(bus, x1 + 4 * i, 4);
            rvnpu_st(bus, x2 + 4 * i, rvnpu_f32_op(fop, v, sc, host, &e), 4);
        }
        break;
    }
    case RVNPU_OP_NPU_FVREDUCE: {
        uint64_t t = 0;
        const uint8_t *pa = rvnpu_ram_span(bus, x1, 4 * (uint64_t)cnt);
        if (npk_hostfp_ready() && pa)
            t = npk_hostfp_f64_sum_f32(t, pa, cnt);
        else
            for (i = 0; i < cnt; i++)
                t = npk_f64_add(t, npk_f32_to_f64bits(rvnpu_ld(bus, x1 + 4 * i, 4)), &e);
        f[rd] = rvnpu_rne32(t);
        break;
    }
    case RVNPU_OP_NPU_FVMAX: {
        uint32_t best = 0xFF800000u;
        int nan = 0;
        for (i = 0; i < cnt; i++) {
            uint32_t v = rvnpu_ld(bus, x1 + 4 * i, 4);
            if (npk_f32_is_nan(v))
                nan = 1;
            else if (npk_f32_lt(best, v, &e))
                best = v; /* strictly greater only: the first of equal maxima wins */
        }
        f[rd] = nan ? 0x7FC00000u : best;
        break;
    }
    case RVNPU_OP_NPU_FVADD: case RVNPU_OP_NPU_FVSUB: {
        npk_hostfp_op fop = op == RVNPU_OP_NPU_FVADD ? NPK_HOSTFP_ADD : NPK_HOSTFP_SUB;
        int host = npk_hostfp_ready();
        for (i = 0; i < cnt; i++) {
            uint32_t a = rvnpu_ld(bus, x1 + 4 * i, 4);
            uint32_t b = rvnpu_ld(bus, x2 + 4 * i, 4);
            rvnpu_st(bus, x2 + 4 * i, rvnpu_f32_op(fop, a, b, host, &e), 4);
        }
        break;
    }
    case RVNPU_OP_NPU_FVRELU:
        for (i = 0; i < cnt; i++)
            rvnpu_st(bus, x2 + 4 * i, rvnpu_frelu(rvnpu_ld(bus, x1 + 4 * i, 4)), 4);
        break;
    case RVNPU_OP_NPU_FVGELU:
        for (i = 0; i < cnt; i++)
            rvnpu_st(bus, x2 + 4 * i, rvnpu_fgelu(rvnpu_ld(bus, x1 + 4 * i, 4)), 4);
        break;
    case RVNPU_OP_NPU_FRELU:
        f[rd] = rvnpu_frelu(f1);
        break;
    case RVNPU_OP_NPU_FGELU:
        f[rd] = rvnpu_fgelu(f1);
        break;
    case RVNPU_OP_NPU_FRSTACC:
        f[rd] = rvnpu_rne32(n->facc);
        n->facc = 0;
        break;
    default:
        return rvnpu_not_npu(trap, w);
    }
    return 0;
}

/* ---- debug register block (§9) ------------------------------------------------------------ */

uint8_t rvnpu_npu_reg_read(const rvnpu_npu *n, uint32_t off)
{
    if (off < 0x08)
        return (uint8_t)(n->acc >> (8 * off));
    if (off < 0x18)
        return (uint8_t)n->vreg[(off - 0x08) / 4][(off - 0x08) % 4];
    if (off < 0x20)
        return (uint8_t)(n->facc >> (8 * (off - 0x18)));
    return 0;
}

void rvnpu_npu_reg_write(rvnpu_npu *n, uint32_t off, uint8_t value)
{
    (void)value; /* the value written is irrelevant (§9) */
    if (off == 0x00)
        n->acc = 0;
    else if (off == 0x18)
        n->facc = 0;
}
