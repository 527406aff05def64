/* opennpu semantics (spec §5) and traps (§6.2): one case per instruction family, written once
 * and run by two loops, the fast loop (no observers) and the observed loop (tick model,
 * statistics, trace, timeline). Every number-format rule is a call into src/num. */
#include <string.h>

#include "core/checked.h"
#include "num/num.h"
#include "targets/opennpu/machine.h"

enum { GO_ON = 0, STOPPED = 1 };

/* The handlers select families by ranges of isa.def's row order. */
_Static_assert(ONPU_OP_VRSUB - ONPU_OP_VADD == 7 && ONPU_OP_VAND - ONPU_OP_VSLL == 7,
               "ARITH and LOGIC rows are contiguous");
_Static_assert(ONPU_OP_VCVT_S32_S16 - ONPU_OP_VCVT_S8_S32 == 11 &&
                   ONPU_OP_VNFMS - ONPU_OP_VFADD == 10 && ONPU_OP_VLUT_B == ONPU_OP_VLUT_A + 1 &&
                   ONPU_OP_VSETLUT_B == ONPU_OP_VSETLUT_A + 1,
               "CVT, FP + FMA and LUT rows are contiguous");

static uint32_t word_at(const onpu_state *s, uint64_t pc)
{
    const uint8_t *b = s->image + 4 * pc;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint32_t width_mask(unsigned bits)
{
    return bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
}

/* s_W(x): the low W bits of x as a two's-complement number. */
static int64_t sx(uint32_t x, unsigned bits)
{
    return npk_wrap_int((int64_t)x, bits);
}

/* ---- traps ---------------------------------------------------------------------------------- */

static void stop_word(npk_stop *stop, uint32_t w)
{
    stop->insn[0] = w;
    stop->insn_bits = 32;
}

static int trap_illegal(onpu_state *s, npk_stop *stop)
{
    uint32_t w = word_at(s, s->pc);
    onpu_decoded d;
    char why[160] = "";
    onpu_decode(w, &s->cfg, &d, why, sizeof why);
    npk_stop_set(stop, NPK_STOP_FAULT, 4 * s->pc,
                 "illegal instruction at pc %llu (byte 0x%llx): word 0x%08x: %s",
                 (unsigned long long)s->pc, (unsigned long long)(4 * s->pc), w, why);
    stop_word(stop, w);
    return STOPPED;
}

static int trap_memory(onpu_state *s, npk_stop *stop, int64_t ea, unsigned n)
{
    uint32_t w = word_at(s, s->pc);
    char text[160];
    onpu_disasm(w, &s->cfg, text, sizeof text);
    npk_stop_set(stop, NPK_STOP_FAULT, 4 * s->pc,
                 "memory fault at pc %llu (byte 0x%llx): word 0x%08x (%s): EA = %lld, n = %u "
                 "bytes, mem_size = %llu",
                 (unsigned long long)s->pc, (unsigned long long)(4 * s->pc), w, text,
                 (long long)ea, n, (unsigned long long)s->cfg.mem_size);
    stop_word(stop, w);
    return STOPPED;
}

/* ---- families ------------------------------------------------------------------------------- */

/* §5.2: exact result, then wrap_W or sat_W (vmax/vmin ignore sat). */
static uint32_t arith(unsigned op, int64_t a, int64_t b, unsigned bits, int sat)
{
    int64_t r;
    switch (op) {
    case ONPU_OP_VADD: r = a + b; break;
    case ONPU_OP_VSUB: r = a - b; break;
    case ONPU_OP_VMUL: r = a * b; break;
    case ONPU_OP_VNEG: r = -a; break;
    case ONPU_OP_VABS: r = a < 0 ? -a : a; break;
    case ONPU_OP_VMAX: r = a > b ? a : b; sat = 0; break;
    case ONPU_OP_VMIN: r = a < b ? a : b; sat = 0; break;
    default: r = b - a; break; /* vrsub */
    }
    return (uint32_t)(sat ? npk_sat_int(r, bits) : npk_wrap_int(r, bits)) & width_mask(bits);
}

/* §5.3: raw W-bit lanes, shift amount y mod W. */
static uint32_t logic(unsigned op, uint32_t x, uint32_t y, unsigned bits)
{
    uint32_t m = width_mask(bits);
    unsigned sh = y & (bits - 1);
    switch (op) {
    case ONPU_OP_VSLL: return (x << sh) & m;
    case ONPU_OP_VSRL: return x >> sh;
    case ONPU_OP_VSRA: return (uint32_t)npk_shr_round(sx(x, bits), sh, NPK_QR_FLOOR) & m;
    case ONPU_OP_VROL: return sh ? ((x << sh) | (x >> (bits - sh))) & m : x;
    case ONPU_OP_VXOR: return x ^ y;
    case ONPU_OP_VNOT: return ~x & m;
    case ONPU_OP_VOR: return x | y;
    default: return x & y; /* vand */
    }
}

/* §5.4: all K lanes sign-extended to 32 bits and combined. */
static uint32_t reduce(unsigned op, const uint32_t *a, unsigned K, unsigned bits)
{
    int64_t sum = 0, mx = INT64_MIN, mn = INT64_MAX;
    uint32_t and_ = 0xFFFFFFFFu, or_ = 0, xor_ = 0;
    for (unsigned k = 0; k < K; k++) {
        int64_t v = sx(a[k], bits);
        sum += v;
        mx = v > mx ? v : mx;
        mn = v < mn ? v : mn;
        and_ &= (uint32_t)v;
        or_ |= (uint32_t)v;
        xor_ ^= (uint32_t)v;
    }
    switch (op) {
    case ONPU_OP_VSUM: return (uint32_t)npk_wrap_int(sum, 32);
    case ONPU_OP_VRMAX: return (uint32_t)mx;
    case ONPU_OP_VRMIN: return (uint32_t)mn;
    case ONPU_OP_VRAND: return and_;
    case ONPU_OP_VROR: return or_;
    default: return xor_; /* vrxor */
    }
}

/* §5.6: one lane of a conversion. VALU_CVT takes subnormals at their value and keeps NaN
 * payloads (§5.6.6), so the environment has no tier-2 options. */
static uint32_t convert(const onpu_decoded *d, uint32_t v)
{
    npk_fenv e;
    npk_fenv_init(&e, (npk_rm)d->round);
    e.opts = NPK_OPT_NAN_PROPAGATE;
    npk_cvt_mode to_int = d->sat ? NPK_CVT_SAT_NAN0 : NPK_CVT_WRAP;
    switch (d->op) {
    case ONPU_OP_VCVT_S8_S32:
        return (uint32_t)(d->sat ? npk_sat_int(sx(v, 32), 8) : npk_wrap_int(sx(v, 32), 8)) & 0xFF;
    case ONPU_OP_VCVT_S16_S32:
        return (uint32_t)(d->sat ? npk_sat_int(sx(v, 32), 16) : npk_wrap_int(sx(v, 32), 16)) &
               0xFFFF;
    case ONPU_OP_VCVT_S32_S8: return (uint32_t)sx(v, 8);
    case ONPU_OP_VCVT_S32_S16: return (uint32_t)sx(v, 16);
    case ONPU_OP_VCVT_F32_S32: return npk_i32_to_f32((int32_t)sx(v, 32), &e);
    case ONPU_OP_VCVT_F32_S8: return npk_i32_to_f32((int32_t)sx(v, 8), &e);
    case ONPU_OP_VCVT_S32_F32: return (uint32_t)npk_f32_to_int(v, 32, to_int, &e);
    case ONPU_OP_VCVT_S8_F32: return (uint32_t)npk_f32_to_int(v, 8, to_int, &e) & 0xFF;
    case ONPU_OP_VCVT_F32_BF16: return npk_bf16_to_f32((uint16_t)v);
    case ONPU_OP_VCVT_BF16_F32: return npk_f32_to_bf16_sat(v, d->sat, &e);
    case ONPU_OP_VCVT_F32_BF8:
        return d->var ? npk_e5m2_to_f32((uint8_t)v) : npk_e4m3_to_f32((uint8_t)v);
    default: /* vcvt_bf8_f32 */
        return d->var ? npk_f32_to_e5m2(v, d->sat, &e) : npk_f32_to_e4m3(v, d->sat, &e);
    }
}

/* §5.8/§5.9 tier-2 FP: sanitised inputs, one rounding with the selected mode, flush below
 * 2^-126 after rounding with an unbounded exponent (FTZ), saturation to +-max. */
static uint32_t fp(const onpu_decoded *d, uint32_t a, uint32_t b, uint32_t c)
{
    npk_fenv e;
    npk_fenv_init(&e, (npk_rm)d->round);
    e.opts = NPK_OPT_FTZ | NPK_OPT_SATURATE;
    if (d->op == ONPU_OP_VFNEG)
        return a ^ 0x80000000u;
    if (d->op == ONPU_OP_VFABS)
        return a & 0x7FFFFFFFu;
    a = npk_f32_zero_nonnormal(a);
    b = npk_f32_zero_nonnormal(b);
    c = npk_f32_zero_nonnormal(c);
    switch (d->op) {
    case ONPU_OP_VFADD: return npk_f32_add(a, b, &e);
    case ONPU_OP_VFSUB: return npk_f32_sub(a, b, &e);
    case ONPU_OP_VFMUL: return npk_f32_mul(a, b, &e);
    case ONPU_OP_VFMAX: return npk_f32_max(a, b, &e);
    case ONPU_OP_VFMIN: return npk_f32_min(a, b, &e);
    case ONPU_OP_VFMA: return npk_f32_fma(a, b, c, &e);
    case ONPU_OP_VFMS: return npk_f32_fms(a, b, c, &e);
    case ONPU_OP_VNFMA: return npk_f32_fnmsub(a, b, c, &e);
    default: return npk_f32_fnmadd(a, b, c, &e); /* vnfms */
    }
}

/* Bytes an LD/ST moves (§5.10): 1, 2, 4, K, 2K or 4K, from isa.def's ONPU_MEM shape and the
 * class of rd (decoded from the row's operand kind). */
static unsigned mem_bytes(const onpu_decoded *d, unsigned K)
{
    return (onpu_mem_shapes[d->op].vector ? K : 1) << d->cls;
}

/* Move a vector register (bytes rows of K lanes at rows) to or from lane-contiguous memory;
 * inlined with constants for the common shape. */
static inline void vec_move(uint8_t *rows, uint8_t *p, unsigned K, unsigned bytes, int store)
{
    for (unsigned b = 0; b < bytes; b++) {
        uint8_t *row = rows + b * K;
        if (store)
            for (unsigned i = 0; i < K; i++)
                p[i * bytes + b] = row[i];
        else
            for (unsigned i = 0; i < K; i++)
                row[i] = p[i * bytes + b];
    }
}

static int load_store(onpu_state *s, const onpu_decoded *d, npk_stop *stop)
{
    unsigned K = s->cfg.K, cls = d->cls, bytes = 1u << cls, n = mem_bytes(d, K);
    int store = onpu_mem_shapes[d->op].store;
    int64_t ea = (int64_t)onpu_lane_get(s, ONPU_VR, d->rs1, 0) + d->imm;
    if (ea < 0 || !npk_range_ok((uint64_t)ea, n, s->cfg.mem_size))
        return trap_memory(s, stop, ea, n);
    uint8_t *p = s->mem + ea;
    if (!onpu_mem_shapes[d->op].vector) {
        if (store) {
            uint32_t v = onpu_lane_get(s, cls, d->rd, 0);
            for (unsigned b = 0; b < bytes; b++)
                p[b] = (uint8_t)(v >> (8 * b));
        } else {
            uint32_t v = 0;
            for (unsigned b = 0; b < bytes; b++)
                v |= (uint32_t)p[b] << (8 * b);
            onpu_lane_set(s, cls, d->rd, 0, v);
        }
        return GO_ON;
    }
    /* Vector forms: byte b of lane i is row (rd << cls) + b, lane i of the byte-planar file,
     * and memory byte i * bytes + b (lane-contiguous, §5.10). */
    uint8_t *rows = s->rf + (d->rd << cls) * K;
    if (K == 8 && cls == ONPU_VR)
        vec_move(rows, p, 8, 4, store);
    else
        vec_move(rows, p, K, bytes, store);
    return GO_ON;
}

/* §5.12: P[i][j] = (keep ? P[i][j] : 0) + a_i * b_j, wrapping at 32 bits. Inlined with a
 * constant K for each legal K, so that the compiler unrolls and vectorises the K x K update. */
static inline void mma_feed_k(uint32_t *restrict P, const uint8_t *ra, const uint8_t *rb,
                              unsigned K, int keep)
{
    /* An int8 x int8 product fits int16 (|p| <= 16384), so the multiplies are 16-bit (one
     * SSE2 pmullw per 8 products), then sign-extended and added at 32 bits. */
    int16_t b[ONPU_MAX_K], prod[ONPU_MAX_K];
    for (unsigned j = 0; j < K; j++)
        b[j] = (int8_t)rb[j];
    for (unsigned i = 0; i < K; i++) {
        int16_t a = (int8_t)ra[i];
        uint32_t *row = P + i * K;
        for (unsigned j = 0; j < K; j++)
            prod[j] = (int16_t)(a * b[j]);
        if (keep)
            for (unsigned j = 0; j < K; j++)
                row[j] += (uint32_t)(int32_t)prod[j];
        else
            for (unsigned j = 0; j < K; j++)
                row[j] = (uint32_t)(int32_t)prod[j];
    }
}

#if defined(__SSE2__) && !defined(NPK_NO_SIMD)
#include <emmintrin.h>
/* K = 8 (the test preset) with SSE2: pmaddwd multiplies int16 pairs and adds each pair into an
 * int32 lane, so with pairs (a_i(t), a_i(t+1)) and (b_j(t), b_j(t+1)) one instruction gives
 * four P[i][j] updates of two feeds at once (|sum| <= 2 * 16384 fits int32). A single feed is
 * the pair with a zero second feed. */
static inline __m128i sext8x8(const uint8_t *p)
{
    __m128i x = _mm_loadl_epi64((const __m128i *)(const void *)p);
    return _mm_srai_epi16(_mm_unpacklo_epi8(x, x), 8);
}

static void mma_feed2_8(uint32_t *P, const uint8_t *a0, const uint8_t *b0, const uint8_t *a1,
                        const uint8_t *b1, int keep)
{
    __m128i vb0 = sext8x8(b0), vb1 = b1 ? sext8x8(b1) : _mm_setzero_si128();
    __m128i va0 = sext8x8(a0), va1 = a1 ? sext8x8(a1) : _mm_setzero_si128();
    __m128i ylo = _mm_unpacklo_epi16(vb0, vb1), yhi = _mm_unpackhi_epi16(vb0, vb1);
    __m128i alo = _mm_unpacklo_epi16(va0, va1), ahi = _mm_unpackhi_epi16(va0, va1);
    __m128i *row = (__m128i *)(void *)P;
#define ONPU_ROW(i, A, lane)                                                                     \
    do {                                                                                         \
        __m128i x = _mm_shuffle_epi32(A, (lane) * 0x55);                                         \
        __m128i lo = _mm_madd_epi16(x, ylo), hi = _mm_madd_epi16(x, yhi);                        \
        if (keep) {                                                                              \
            lo = _mm_add_epi32(lo, _mm_loadu_si128(row + 2 * (i)));                              \
            hi = _mm_add_epi32(hi, _mm_loadu_si128(row + 2 * (i) + 1));                          \
        }                                                                                        \
        _mm_storeu_si128(row + 2 * (i), lo);                                                     \
        _mm_storeu_si128(row + 2 * (i) + 1, hi);                                                 \
    } while (0)
    ONPU_ROW(0, alo, 0); ONPU_ROW(1, alo, 1); ONPU_ROW(2, alo, 2); ONPU_ROW(3, alo, 3);
    ONPU_ROW(4, ahi, 0); ONPU_ROW(5, ahi, 1); ONPU_ROW(6, ahi, 2); ONPU_ROW(7, ahi, 3);
#undef ONPU_ROW
}
#define ONPU_FEED_8(P, ra, rb, keep) mma_feed2_8(P, ra, rb, NULL, NULL, keep)
#define ONPU_HAVE_FEED2_8 1
#else
#define ONPU_FEED_8(P, ra, rb, keep) mma_feed_k(P, ra, rb, 8, keep)
#endif

static void mma_feed(onpu_state *s, const onpu_decoded *d)
{
    unsigned K = s->cfg.K;
    const uint8_t *ra = s->rf + d->rs1 * K, *rb = s->rf + d->rs2 * K;
    switch (K) {
    case 4: mma_feed_k(s->P, ra, rb, 4, d->keep); break;
    case 8: ONPU_FEED_8(s->P, ra, rb, d->keep); break;
    case 16: mma_feed_k(s->P, ra, rb, 16, d->keep); break;
    case 32: mma_feed_k(s->P, ra, rb, 32, d->keep); break;
    default: mma_feed_k(s->P, ra, rb, 64, d->keep); break;
    }
}

static void mma_drain(onpu_state *s, const onpu_decoded *d)
{
    unsigned K = s->cfg.K, nvr = onpu_nregs(&s->cfg, ONPU_VR);
    for (unsigned j = 0; j < K; j++)
        for (unsigned i = 0; i < K; i++)
            onpu_lane_set(s, ONPU_VR, (d->rd + j) % nvr, i, s->P[i * K + j]);
}

/* Lane-wise families: every source lane is read before any destination byte is written. */
static void lanewise(onpu_state *s, const onpu_decoded *d)
{
    unsigned K = s->cfg.K, op = d->op, cls = d->cls, src;
    uint32_t a[ONPU_MAX_K], b[ONPU_MAX_K], c[ONPU_MAX_K], r[ONPU_MAX_K];
    int is_cvt = op >= ONPU_OP_VCVT_S8_S32 && op <= ONPU_OP_VCVT_S32_S16;
    /* funct7.width selects the class only where §4.4 says "w"; FP and FMA are always VR
     * (their width field is ignored or absent), vlut always VX. */
    if (is_cvt) {
        cls = onpu_cvt_fmts[d->cvt_dst].cls;
        src = onpu_cvt_fmts[d->cvt_src].cls;
    } else if (op >= ONPU_OP_VFADD && op <= ONPU_OP_VNFMS) {
        cls = src = ONPU_VR;
    } else if (op == ONPU_OP_VLUT_A || op == ONPU_OP_VLUT_B) {
        cls = src = ONPU_VX;
    } else {
        src = cls;
    }
    unsigned bits = 8u << cls;
    for (unsigned k = 0; k < K; k++) {
        a[k] = onpu_lane_get(s, src, d->rs1, k);
        b[k] = onpu_lane_get(s, src, d->rs2, k);
        c[k] = onpu_lane_get(s, src, d->rs3, k);
    }
    for (unsigned k = 0; k < K; k++) {
        if (op >= ONPU_OP_VADD && op <= ONPU_OP_VRSUB)
            r[k] = arith(op, sx(a[k], bits), sx(b[k], bits), bits, d->sat);
        else if (op >= ONPU_OP_VSLL && op <= ONPU_OP_VAND)
            r[k] = logic(op, a[k], b[k], bits);
        else if (is_cvt)
            r[k] = convert(d, a[k]);
        else if (op >= ONPU_OP_VFADD && op <= ONPU_OP_VNFMS)
            r[k] = fp(d, a[k], b[k], c[k]);
        else if (op == ONPU_OP_VLUT_A || op == ONPU_OP_VLUT_B)
            r[k] = s->lut[op - ONPU_OP_VLUT_A][a[k] & 0xFF];
        else if (op == ONPU_OP_VBCAST_REG)
            r[k] = a[0];
        else /* vmov */
            r[k] = a[k];
    }
    for (unsigned k = 0; k < K; k++)
        onpu_lane_set(s, cls, d->rd, k, r[k]);
}

/* Execute the legal word in slot (or trap). Effects happen only when GO_ON is returned. */
static inline int exec_one(onpu_state *s, const onpu_slot *slot, npk_stop *stop)
{
    const onpu_decoded *d = &slot->d;
    unsigned K = s->cfg.K;
    if (!slot->legal)
        return trap_illegal(s, stop);
    switch ((onpu_op)d->op) {
    case ONPU_OP_NOP: break;
    case ONPU_OP_LD_B: case ONPU_OP_LD_H: case ONPU_OP_LD_W:
    case ONPU_OP_LD_VX: case ONPU_OP_LD_VE: case ONPU_OP_LD_VR:
        return load_store(s, d, stop);
    case ONPU_OP_ST_B: case ONPU_OP_ST_H: case ONPU_OP_ST_W:
    case ONPU_OP_ST_VX: case ONPU_OP_ST_VE: case ONPU_OP_ST_VR:
        return load_store(s, d, stop);
    case ONPU_OP_MMA: mma_feed(s, d); break;
    case ONPU_OP_MMA_LAST:
        mma_feed(s, d);
        mma_drain(s, d);
        break;
    case ONPU_OP_MMA_RESET: memset(s->P, 0, sizeof s->P); break;
    case ONPU_OP_VSUM: case ONPU_OP_VRMAX: case ONPU_OP_VRMIN:
    case ONPU_OP_VRAND: case ONPU_OP_VROR: case ONPU_OP_VRXOR: {
        uint32_t a[ONPU_MAX_K];
        for (unsigned k = 0; k < K; k++)
            a[k] = onpu_lane_get(s, d->cls, d->rs1, k);
        uint32_t r = reduce(d->op, a, K, 8u << d->cls);
        for (unsigned k = 0; k < K; k++)
            onpu_lane_set(s, ONPU_VR, d->rd, k, r);
        break;
    }
    case ONPU_OP_VSETLUT_A: case ONPU_OP_VSETLUT_B: {
        uint8_t *bank = s->lut[d->op - ONPU_OP_VSETLUT_A] + (unsigned)d->imm * 4 * K;
        for (unsigned k = 0; k < K; k++)
            for (unsigned b = 0; b < 4; b++)
                bank[4 * k + b] = s->rf[(4 * d->rs1 + b) * K + k];
        break;
    }
    case ONPU_OP_VBCAST_IMM:
        memset(s->rf + d->rd * K, d->imm & 0xFF, K);
        break;
    case ONPU_OP_VMOVI:
        onpu_lane_set(s, ONPU_VE, d->rd, 0, (uint32_t)npk_wrap_int(d->imm, 16));
        break;
    case ONPU_OP_VMOVH:
        s->rf[(2 * d->rd + 1) * K] = (uint8_t)d->imm;
        break;
    default: lanewise(s, d); break;
    }
    return GO_ON;
}

/* ---- the two loops -------------------------------------------------------------------------- */

static void commit(npk_machine *m, onpu_state *s, npk_commit_sink *c, const onpu_slot *slot,
                   uint64_t pc, const uint8_t *rf_before, uint64_t cycle);

static void retire(npk_machine *m, onpu_state *s, const onpu_slot *slot, uint64_t pc,
                   npk_commit_sink *cs, const uint8_t *rf_before)
{
    npk_obs *o = npk_observers(m);
    const onpu_decoded *d = &slot->d;
    uint64_t issue, done, stalls;
    onpu_timing(s, slot, &issue, &done, &stalls);
    o->extra[ONPU_X_STALLS] += stalls;
    if (d->op == ONPU_OP_MMA || d->op == ONPU_OP_MMA_LAST)
        o->extra[ONPU_X_FEEDS]++;
    if (onpu_mem_shapes[d->op].is_mem)
        o->extra[onpu_mem_shapes[d->op].store ? ONPU_X_STORED : ONPU_X_LOADED] +=
            mem_bytes(d, s->cfg.K);
    npk_event ev = {.pc = 4 * pc, .word = s->image + 4 * pc, .mnemonic = d->op,
                    .unit = onpu_insns[d->op].unit, .start = issue, .end = done};
    if (cs)
        commit(m, s, cs, slot, pc, rf_before, issue);
    npk_obs_retire(m, &ev);
}

/* The commit record of the retired word at pc (docs/commit-log.md): every register-file row
 * the instruction writes (its destination rows, D_n of §6.3, and any row whose bytes changed)
 * as writes to space "rf", the data memory a store wrote ("mem"), the LUT bytes vsetlut wrote
 * ("luta"/"lutb") and the whole accumulator after an MMA instruction ("acc"), in the
 * byte layouts of those spaces. `rf_before` is the register file before the word ran. */
static void commit(npk_machine *m, onpu_state *s, npk_commit_sink *c, const onpu_slot *slot,
                   uint64_t pc, const uint8_t *rf_before, uint64_t cycle)
{
    const onpu_decoded *d = &slot->d;
    unsigned K = s->cfg.K, L = s->cfg.L;
    npk_commit_begin(c, 4 * pc, s->image + 4 * pc, 4);
    if (onpu_mem_shapes[d->op].is_mem && onpu_mem_shapes[d->op].store) {
        uint64_t ea = (uint64_t)((int64_t)onpu_lane_get(s, ONPU_VR, d->rs1, 0) + d->imm);
        npk_commit_mem(c, "mem", ea, s->mem + ea, mem_bytes(d, K));
    }
    uint32_t rows = slot->dst_rows;
    for (unsigned r = 0; r < L; r++)
        if (memcmp(s->rf + r * K, rf_before + r * K, K) != 0)
            rows |= 1u << r;
    for (unsigned r = 0; r < L; r++)
        if (rows >> r & 1) /* adjacent rows merge into one write */
            npk_commit_mem(c, "rf", (uint64_t)r * K, s->rf + r * K, K);
    if (d->op == ONPU_OP_VSETLUT_A || d->op == ONPU_OP_VSETLUT_B) {
        unsigned off = (unsigned)d->imm * 4 * K;
        npk_commit_mem(c, d->op == ONPU_OP_VSETLUT_A ? "luta" : "lutb", off,
                       s->lut[d->op - ONPU_OP_VSETLUT_A] + off, 4 * K);
    }
    if (d->op == ONPU_OP_MMA || d->op == ONPU_OP_MMA_LAST || d->op == ONPU_OP_MMA_RESET)
        for (unsigned i = 0; i < K * K; i++) /* P[i][j] at (i*K + j)*4, little-endian */
            npk_commit_mem_value(c, "acc", 4 * (uint64_t)i, s->P[i], 4);
    npk_commit_end(m, c, 1, cycle);
}

/* ---- breakpoints and watchpoints (docs/breakpoints.md) ------------------------------------- */

/* "pc N (byte 0x...): word 0x... (disassembly)" for stop messages. */
static void describe(const onpu_state *s, uint64_t pc, char *out, size_t n)
{
    uint32_t w = word_at(s, pc);
    char text[160];
    onpu_disasm(w, &s->cfg, text, sizeof text);
    snprintf(out, n, "pc %llu (byte 0x%llx): word 0x%08x (%s)", (unsigned long long)pc,
             (unsigned long long)(4 * pc), w, text);
}

/* Register-file rows as accesses of "rf" (row r = bytes r*K .. r*K + K-1) and, where a watch
 * wants them, of the "ve" and "vr" views (one byte per lane: the views interleave rows). */
static void watch_rows(npk_machine *m, const onpu_state *s, uint32_t rows, unsigned kind)
{
    npk_dbg *d = npk_observers(m)->dbg;
    unsigned K = s->cfg.K;
    for (unsigned r = 0; r < s->cfg.L; r++) {
        if (!(rows >> r & 1))
            continue;
        npk_watch_access(m, ONPU_SP_RF, (uint64_t)r * K, K, kind, s->rf + r * K);
        for (unsigned cls = ONPU_VE; cls <= ONPU_VR; cls++) {
            size_t sp = cls == ONPU_VE ? ONPU_SP_VE : ONPU_SP_VR;
            if (!npk_watch_on(d, sp, kind))
                continue;
            unsigned bytes = 1u << cls, reg = r >> cls, b = r & (bytes - 1);
            for (unsigned k = 0; k < K; k++)
                npk_watch_access(m, sp, ((uint64_t)reg * K + k) * bytes + b, 1, kind,
                                 s->rf + r * K + k);
        }
    }
}

/* All of P as accesses of "acc" (P[i][j] at (i*K + j)*4, little-endian). */
static void watch_acc(npk_machine *m, const onpu_state *s, unsigned kind)
{
    if (!npk_watch_on(npk_observers(m)->dbg, ONPU_SP_ACC, kind))
        return;
    for (unsigned i = 0; i < s->cfg.K * s->cfg.K; i++) {
        uint8_t b[4] = {(uint8_t)s->P[i], (uint8_t)(s->P[i] >> 8), (uint8_t)(s->P[i] >> 16),
                        (uint8_t)(s->P[i] >> 24)};
        npk_watch_access(m, ONPU_SP_ACC, 4 * (uint64_t)i, 4, kind, b);
    }
}

static int64_t mem_ea(const onpu_state *s, const onpu_decoded *d)
{
    return (int64_t)onpu_lane_get(s, ONPU_VR, d->rs1, 0) + d->imm;
}

/* What the legal word in slot reads, before it runs: its source rows (S_n of §6.3), the
 * data memory of a load, the LUT entries of a lookup, P of a keep feed. */
static void watch_reads(npk_machine *m, const onpu_state *s, const onpu_slot *slot)
{
    const onpu_decoded *d = &slot->d;
    unsigned K = s->cfg.K;
    watch_rows(m, s, slot->src_rows, NPK_WATCH_READ);
    if (onpu_mem_shapes[d->op].is_mem && !onpu_mem_shapes[d->op].store) {
        int64_t ea = mem_ea(s, d);
        unsigned n = mem_bytes(d, K);
        if (ea >= 0 && npk_range_ok((uint64_t)ea, n, s->cfg.mem_size))
            npk_watch_access(m, ONPU_SP_MEM, (uint64_t)ea, n, NPK_WATCH_READ, s->mem + ea);
    }
    if (d->op == ONPU_OP_VLUT_A || d->op == ONPU_OP_VLUT_B) {
        unsigned bank = d->op - ONPU_OP_VLUT_A;
        for (unsigned k = 0; k < K; k++) {
            unsigned i = onpu_lane_get(s, ONPU_VX, d->rs1, k) & 0xFF;
            npk_watch_access(m, ONPU_SP_LUTA + bank, i, 1, NPK_WATCH_READ, &s->lut[bank][i]);
        }
    }
    if ((d->op == ONPU_OP_MMA || d->op == ONPU_OP_MMA_LAST) && d->keep)
        watch_acc(m, s, NPK_WATCH_READ);
}

/* What the word in slot wrote (and the drain of mma.last read), after it ran: the rows it
 * names as destinations (D_n) and any row whose bytes changed, the data memory of a store,
 * the LUT bytes of vsetlut, P after an MMA instruction. */
static void watch_writes(npk_machine *m, const onpu_state *s, const onpu_slot *slot,
                         const uint8_t *rf_before)
{
    const onpu_decoded *d = &slot->d;
    unsigned K = s->cfg.K;
    if (d->op == ONPU_OP_MMA_LAST)
        watch_acc(m, s, NPK_WATCH_READ);
    if (onpu_mem_shapes[d->op].is_mem && onpu_mem_shapes[d->op].store) {
        int64_t ea = mem_ea(s, d);
        npk_watch_access(m, ONPU_SP_MEM, (uint64_t)ea, mem_bytes(d, K), NPK_WATCH_WRITE,
                         s->mem + ea);
    }
    uint32_t rows = slot->dst_rows;
    for (unsigned r = 0; r < s->cfg.L; r++)
        if (memcmp(s->rf + r * K, rf_before + r * K, K) != 0)
            rows |= 1u << r;
    watch_rows(m, s, rows, NPK_WATCH_WRITE);
    if (d->op == ONPU_OP_VSETLUT_A || d->op == ONPU_OP_VSETLUT_B) {
        unsigned bank = d->op - ONPU_OP_VSETLUT_A, off = (unsigned)d->imm * 4 * K;
        npk_watch_access(m, ONPU_SP_LUTA + bank, off, 4 * K, NPK_WATCH_WRITE,
                         s->lut[bank] + off);
    }
    if (d->op == ONPU_OP_MMA || d->op == ONPU_OP_MMA_LAST || d->op == ONPU_OP_MMA_RESET)
        watch_acc(m, s, NPK_WATCH_WRITE);
}

static inline uint64_t run_loop(npk_machine *m, onpu_state *s, uint64_t max, npk_stop *stop,
                                int observed)
{
    npk_dbg *dbg = observed ? npk_observers(m)->dbg : NULL;
    uint64_t n = 0;
    while (s->pc < s->n_words && (!max || n < max)) {
        const onpu_slot *slot = &s->slots[s->pc];
#ifdef ONPU_HAVE_FEED2_8
        /* Fast loop, K = 8: a feed followed by a keep feed (mma.keep or mma.last.keep) runs as
         * one two-feed update. Feeds write no register, so reading both operand pairs first is
         * exact; both count against the budget. */
        if (!observed && slot->d.op == ONPU_OP_MMA && s->cfg.K == 8 && slot->legal &&
            s->pc + 1 < s->n_words && (!max || n + 2 <= max)) {
            const onpu_slot *nx = slot + 1;
            if (nx->legal && nx->d.keep &&
                (nx->d.op == ONPU_OP_MMA || nx->d.op == ONPU_OP_MMA_LAST)) {
                mma_feed2_8(s->P, s->rf + 8 * slot->d.rs1, s->rf + 8 * slot->d.rs2,
                            s->rf + 8 * nx->d.rs1, s->rf + 8 * nx->d.rs2, slot->d.keep);
                if (nx->d.op == ONPU_OP_MMA_LAST)
                    mma_drain(s, &nx->d);
                s->pc += 2;
                n += 2;
                continue;
            }
        }
#endif
        if (observed && dbg && npk_break_hit(m, 4 * s->pc)) {
            char where[256];
            describe(s, s->pc, where, sizeof where);
            npk_break_stop(m, stop, 4 * s->pc, where);
            stop_word(stop, word_at(s, s->pc));
            return n;
        }
        npk_commit_sink *cs = observed ? npk_observers(m)->commit : NULL;
        int watch = observed && dbg && dbg->kinds && slot->legal;
        uint8_t rf_before[ONPU_MAX_L * ONPU_MAX_K];
        if (cs || watch)
            memcpy(rf_before, s->rf, (size_t)s->cfg.L * s->cfg.K);
        if (watch)
            watch_reads(m, s, slot);
        if (exec_one(s, slot, stop) == STOPPED) {
            if (observed)
                npk_observers(m)->extra[ONPU_X_TRAPS]++;
            if (observed && dbg)
                npk_watch_drop(m); /* a trapped word changed nothing */
            return n;
        }
        if (observed)
            retire(m, s, slot, s->pc, cs, rf_before);
        if (watch)
            watch_writes(m, s, slot, rf_before);
        s->pc++;
        n++;
        if (watch && dbg->pending) {
            char where[256];
            describe(s, s->pc - 1, where, sizeof where);
            npk_watch_stop(m, stop, 4 * (s->pc - 1), 4 * s->pc, where);
            return n;
        }
    }
    return n;
}

npk_status onpu_run(npk_machine *m, void *state, uint64_t max_insns, npk_stop *stop)
{
    onpu_state *s = state;
    npk_obs *o = npk_observers(m);
    int observed = npk_obs_active(o);
    if (observed)
        run_loop(m, s, max_insns, stop, 1);
    else
        run_loop(m, s, max_insns, stop, 0);
    if (observed && o->cycles)
        o->extra[ONPU_X_UTIL] = o->extra[ONPU_X_FEEDS] * 1000 / o->cycles;
    if (stop->reason != NPK_STOP_NONE) /* a fault, a breakpoint or a watchpoint */
        return NPK_OK;
    if (s->pc >= s->n_words) {
        npk_stop_set(stop, NPK_STOP_EXIT, 4 * s->pc, "end of program after %llu words",
                     (unsigned long long)s->n_words);
        stop->exit_code = 0;
    } else {
        uint32_t w = word_at(s, s->pc);
        char text[160];
        onpu_disasm(w, &s->cfg, text, sizeof text);
        npk_stop_set(stop, NPK_STOP_BUDGET, 4 * s->pc,
                     "instruction budget exhausted; next: pc %llu, word 0x%08x (%s)",
                     (unsigned long long)s->pc, w, text);
    }
    return NPK_OK;
}
