/* Conversions: between binary32, bf16, OCP FP8 (E4M3, E5M2) and binary64 through one generic
 * unpack -> round_pack path, binary32 <-> integers, and the environment's initialiser. The
 * format descriptors the rounding engine uses are defined here. */
#include "num/f32.h"
#include "num/narrow.h"
#include "num/round.h"

/*                          width p  emin   emax  maxenc        infenc        canonical NaN */
const npk__fmt npk__fmt_f32 = {32, 24, -126, 127, 0x7F7FFFFF, 0x7F800000, 0x7FC00000};
const npk__fmt npk__fmt_bf16 = {16, 8, -126, 127, 0x7F7F, 0x7F80, 0x7FC0};
/* E4M3: the top binade (exponent field 15) is ordinary except S.1111.111, the only NaN. */
const npk__fmt npk__fmt_e4m3 = {8, 4, -6, 8, 0x7E, 0, 0x7F};
/* E5M2: 0x7F is one of its three NaNs, chosen so both FP8 formats produce the same NaN byte. */
const npk__fmt npk__fmt_e5m2 = {8, 3, -14, 15, 0x7B, 0x7C, 0x7F};
const npk__fmt npk__fmt_f64 = {64, 53, -1022, 1023, UINT64_C(0x7FEFFFFFFFFFFFFF),
                               UINT64_C(0x7FF0000000000000), UINT64_C(0x7FF8000000000000)};

void npk_fenv_init(npk_fenv *e, npk_rm rm)
{
    e->rm = rm;
    e->flags = 0;
    e->opts = 0;
    e->dnan = 0x7FC00000u;
}

enum { C_ZERO, C_FINITE, C_INF, C_NAN };

typedef struct unpacked {
    int cls;
    unsigned sign;
    int exp;      /* value = sig * 2^exp */
    uint64_t sig; /* nonzero for C_FINITE */
} unpacked;

static inline uint64_t mag_mask(const npk__fmt *f)
{
    return f->width == 64 ? UINT64_MAX >> 1 : (UINT64_C(1) << (f->width - 1)) - 1;
}

static inline unpacked unpack(const npk__fmt *f, uint64_t x)
{
    unpacked u;
    uint64_t mag = x & mag_mask(f);
    uint64_t fracmask = (UINT64_C(1) << (f->p - 1)) - 1;
    int be = (int)(mag >> (f->p - 1));

    u.sign = (unsigned)(x >> (f->width - 1)) & 1;
    u.sig = 0;
    u.exp = 0;
    if (mag > (f->infenc ? f->infenc : f->maxenc)) {
        u.cls = C_NAN;
    } else if (f->infenc && mag == f->infenc) {
        u.cls = C_INF;
    } else if (mag == 0) {
        u.cls = C_ZERO;
    } else {
        u.cls = C_FINITE;
        u.sig = (mag & fracmask) | (be ? fracmask + 1 : 0);
        u.exp = (be ? be : 1) + f->emin - 1 - (f->p - 1);
    }
    return u;
}

static inline int is_fp8(const npk__fmt *f) { return f->width == 8; }

/* The NaN a conversion produces from NaN input x: IEEE formats keep sign and top payload
 * bits and set the quiet bit (in propagate mode); FP8 has a single NaN pattern per sign. */
static uint64_t nan_convert(const npk__fmt *to, const npk__fmt *from, uint64_t x, unsigned sign,
                            npk_fenv *e)
{
    uint64_t frac = 0;
    int fb = from->p - 1, tb = to->p - 1;

    if (!is_fp8(from)) {
        frac = x & ((UINT64_C(1) << fb) - 1);
        if (!(frac >> (fb - 1)))
            e->flags |= NPK_FLAG_NV; /* signalling */
    }
    if (!(e->opts & NPK_OPT_NAN_PROPAGATE))
        return to == &npk__fmt_f32 ? e->dnan : to->nanenc;
    if (is_fp8(to))
        return ((uint64_t)sign << 7) | to->nanenc;
    frac = fb >= tb ? frac >> (fb - tb) : frac << (tb - fb);
    return ((uint64_t)sign << (to->width - 1)) | to->infenc | frac | (UINT64_C(1) << (tb - 1));
}

static inline uint64_t convert(const npk__fmt *to, const npk__fmt *from, uint64_t x, int sat,
                               npk_fenv *e)
{
    unpacked u;
    uint64_t sgn;

    if ((e->opts & NPK_OPT_DAZ) && !((x & mag_mask(from)) >> (from->p - 1)))
        x &= ~mag_mask(from); /* subnormal source: a zero of the same sign */
    u = unpack(from, x);
    sgn = (uint64_t)u.sign << (to->width - 1);
    sat |= (e->opts & NPK_OPT_SATURATE) != 0;
    switch (u.cls) {
    case C_NAN: return nan_convert(to, from, x, u.sign, e);
    case C_ZERO: return sgn;
    case C_INF:
        if (sat) {
            e->flags |= NPK_FLAG_NX;
            return sgn | to->maxenc;
        }
        if (!to->infenc) {
            e->flags |= NPK_FLAG_NV;
            return sgn | to->nanenc;
        }
        return sgn | to->infenc;
    default: return npk__round_pack(to, u.sign, u.exp, u.sig, sat, e);
    }
}

static const npk__fmt *desc(npk_fmt f)
{
    switch (f) {
    case NPK_FMT_BF16: return &npk__fmt_bf16;
    case NPK_FMT_E4M3: return &npk__fmt_e4m3;
    case NPK_FMT_E5M2: return &npk__fmt_e5m2;
    case NPK_FMT_F64: return &npk__fmt_f64;
    default: return &npk__fmt_f32;
    }
}

/* Exact widening needs no caller environment: nothing rounds, and NaNs keep their sign. */
static inline uint32_t widen_f32(const npk__fmt *from, uint64_t x)
{
    npk_fenv e;
    npk_fenv_init(&e, NPK_RM_RNE);
    e.opts = NPK_OPT_NAN_PROPAGATE;
    return (uint32_t)convert(&npk__fmt_f32, from, x, 0, &e);
}

uint64_t npk_fmt_convert(npk_fmt to, npk_fmt from, uint64_t x, int saturate, npk_fenv *e)
{
    const npk__fmt *f = desc(from);
    if (f->width < 64)
        x &= (UINT64_C(1) << f->width) - 1;
    return convert(desc(to), f, x, saturate, e);
}

uint64_t npk_fmt_to_f64bits(npk_fmt from, uint64_t x)
{
    npk_fenv e;
    npk_fenv_init(&e, NPK_RM_RNE);
    e.opts = NPK_OPT_NAN_PROPAGATE;
    return npk_fmt_convert(NPK_FMT_F64, from, x, 0, &e);
}

unsigned npk_fmt_width(npk_fmt f) { return (unsigned)desc(f)->width; }
uint64_t npk_fmt_max(npk_fmt f) { return desc(f)->maxenc; }
int npk_fmt_is_nan(npk_fmt f, uint64_t x) { return unpack(desc(f), x).cls == C_NAN; }
int npk_fmt_is_inf(npk_fmt f, uint64_t x) { return unpack(desc(f), x).cls == C_INF; }

uint16_t npk_f32_to_bf16(uint32_t a, npk_fenv *e)
{
    return (uint16_t)convert(&npk__fmt_bf16, &npk__fmt_f32, a, 0, e);
}
uint16_t npk_f32_to_bf16_sat(uint32_t a, int saturate, npk_fenv *e)
{
    return (uint16_t)convert(&npk__fmt_bf16, &npk__fmt_f32, a, saturate, e);
}
uint32_t npk_bf16_to_f32(uint16_t h) { return (uint32_t)h << 16; }

uint8_t npk_f32_to_e4m3(uint32_t a, int saturate, npk_fenv *e)
{
    return (uint8_t)convert(&npk__fmt_e4m3, &npk__fmt_f32, a, saturate, e);
}
uint8_t npk_f32_to_e5m2(uint32_t a, int saturate, npk_fenv *e)
{
    return (uint8_t)convert(&npk__fmt_e5m2, &npk__fmt_f32, a, saturate, e);
}
uint32_t npk_e4m3_to_f32(uint8_t b) { return widen_f32(&npk__fmt_e4m3, b); }
uint32_t npk_e5m2_to_f32(uint8_t b) { return widen_f32(&npk__fmt_e5m2, b); }

uint8_t npk_bf16_to_e4m3(uint16_t h, int saturate, npk_fenv *e)
{
    return (uint8_t)convert(&npk__fmt_e4m3, &npk__fmt_bf16, h, saturate, e);
}
uint8_t npk_bf16_to_e5m2(uint16_t h, int saturate, npk_fenv *e)
{
    return (uint8_t)convert(&npk__fmt_e5m2, &npk__fmt_bf16, h, saturate, e);
}
uint16_t npk_e4m3_to_bf16(uint8_t b) { return (uint16_t)(npk_e4m3_to_f32(b) >> 16); }
uint16_t npk_e5m2_to_bf16(uint8_t b) { return (uint16_t)(npk_e5m2_to_f32(b) >> 16); }
uint8_t npk_e4m3_to_e5m2(uint8_t b, int saturate, npk_fenv *e)
{
    return (uint8_t)convert(&npk__fmt_e5m2, &npk__fmt_e4m3, b, saturate, e);
}
uint8_t npk_e5m2_to_e4m3(uint8_t b, int saturate, npk_fenv *e)
{
    return (uint8_t)convert(&npk__fmt_e4m3, &npk__fmt_e5m2, b, saturate, e);
}

uint32_t npk_f64bits_to_f32(uint64_t d, npk_fenv *e)
{
    return (uint32_t)convert(&npk__fmt_f32, &npk__fmt_f64, d, 0, e);
}

/* Exact, and a bit move for NaNs: the signalling state is kept, nothing is raised. */
uint64_t npk_f32_to_f64bits(uint32_t a)
{
    uint64_t sgn = (uint64_t)(a >> 31) << 63;
    uint32_t be = a >> 23 & 0xFF;
    if (be == 0xFF)
        return sgn | UINT64_C(0x7FF0000000000000) | ((uint64_t)(a & 0x7FFFFF) << 29);
    if (be != 0) /* normal: rebias the exponent (127 -> 1023), widen the fraction */
        return sgn | (uint64_t)(be + 1023 - 127) << 52 | (uint64_t)(a & 0x7FFFFF) << 29;
    return npk_fmt_to_f64bits(NPK_FMT_F32, a); /* zero and subnormals */
}

/* ---- binary32 <-> integers ---- */

/* |a| (finite) rounded to an integer by rm for sign `sign`. Returns the magnitude modulo 2^64;
 * *big is set when it is 2^63 or more. */
static uint64_t round_to_int(uint32_t a, npk_rm rm, int *big, int *inexact)
{
    unsigned sign = a >> 31;
    uint64_t m = (a & 0x7FFFFF) | ((a & 0x7F800000u) ? 0x800000u : 0);
    int be = (int)((a >> 23) & 0xFF), ex = (be ? be : 1) - 150, sh, halfcmp;
    uint64_t kept;

    *big = 0;
    *inexact = 0;
    if (m == 0)
        return 0;
    if (ex >= 0) {
        *big = ex > 39; /* m < 2^24 */
        return ex >= 64 ? 0 : m << ex;
    }
    sh = -ex;
    *inexact = 1;
    if (sh >= 64) {
        kept = 0;
        halfcmp = -1;
    } else {
        uint64_t rem = m & ((UINT64_C(1) << sh) - 1), half = UINT64_C(1) << (sh - 1);
        kept = m >> sh;
        *inexact = rem != 0;
        halfcmp = (rem > half) - (rem < half);
    }
    return kept + (uint64_t)npk__round_up(rm, sign, kept, halfcmp, *inexact);
}

static inline uint32_t daz32(uint32_t a, const npk_fenv *e)
{
    return ((e->opts & NPK_OPT_DAZ) && !(a & 0x7F800000u)) ? a & 0x80000000u : a;
}

int32_t npk_f32_to_int(uint32_t a, unsigned width, npk_cvt_mode sat, npk_fenv *e)
{
    unsigned sign = a >> 31;
    int64_t maxv, minv;
    uint64_t mag, w;
    int big, inexact;

    width = width < 1 ? 1 : width > 32 ? 32 : width;
    maxv = (INT64_C(1) << (width - 1)) - 1;
    minv = -maxv - 1;
    a = daz32(a, e);
    if ((a & 0x7FFFFFFFu) > 0x7F800000u) {
        e->flags |= NPK_FLAG_NV;
        return sat == NPK_CVT_SAT ? (int32_t)maxv : 0;
    }
    if ((a & 0x7FFFFFFFu) == 0x7F800000u) {
        e->flags |= NPK_FLAG_NV;
        return sat == NPK_CVT_WRAP ? 0 : (int32_t)(sign ? minv : maxv);
    }
    mag = round_to_int(a, e->rm, &big, &inexact);
    if (!big && mag <= (uint64_t)maxv + sign) {
        if (inexact)
            e->flags |= NPK_FLAG_NX;
        return (int32_t)(sign ? -(int64_t)mag : (int64_t)mag);
    }
    e->flags |= NPK_FLAG_NV;
    if (sat != NPK_CVT_WRAP)
        return (int32_t)(sign ? minv : maxv);
    /* n modulo 2^W, sign-extended from bit W-1. */
    w = (sign ? 0 - mag : mag) & ((UINT64_C(1) << width) - 1);
    return (int32_t)((int64_t)w - (int64_t)((w >> (width - 1)) << width));
}

uint32_t npk_f32_to_uint(uint32_t a, unsigned width, npk_cvt_mode sat, npk_fenv *e)
{
    unsigned sign = a >> 31;
    uint64_t maxv, mag;
    int big, inexact;

    width = width < 1 ? 1 : width > 32 ? 32 : width;
    maxv = (UINT64_C(1) << width) - 1;
    a = daz32(a, e);
    if ((a & 0x7FFFFFFFu) > 0x7F800000u) {
        e->flags |= NPK_FLAG_NV;
        return sat == NPK_CVT_SAT ? (uint32_t)maxv : 0;
    }
    if ((a & 0x7FFFFFFFu) == 0x7F800000u) {
        e->flags |= NPK_FLAG_NV;
        return (sat == NPK_CVT_WRAP || sign) ? 0 : (uint32_t)maxv;
    }
    mag = round_to_int(a, e->rm, &big, &inexact);
    if (!big && (sign ? mag == 0 : mag <= maxv)) {
        if (inexact)
            e->flags |= NPK_FLAG_NX;
        return (uint32_t)mag;
    }
    e->flags |= NPK_FLAG_NV;
    if (sat != NPK_CVT_WRAP)
        return sign ? 0 : (uint32_t)maxv;
    return (uint32_t)((sign ? 0 - mag : mag) & maxv);
}

int8_t npk_f32_to_i8(uint32_t a, npk_cvt_mode sat, npk_fenv *e)
{
    return (int8_t)npk_f32_to_int(a, 8, sat, e);
}
int16_t npk_f32_to_i16(uint32_t a, npk_cvt_mode sat, npk_fenv *e)
{
    return (int16_t)npk_f32_to_int(a, 16, sat, e);
}
int32_t npk_f32_to_i32(uint32_t a, npk_cvt_mode sat, npk_fenv *e)
{
    return npk_f32_to_int(a, 32, sat, e);
}
uint8_t npk_f32_to_u8(uint32_t a, npk_cvt_mode sat, npk_fenv *e)
{
    return (uint8_t)npk_f32_to_uint(a, 8, sat, e);
}
uint16_t npk_f32_to_u16(uint32_t a, npk_cvt_mode sat, npk_fenv *e)
{
    return (uint16_t)npk_f32_to_uint(a, 16, sat, e);
}
uint32_t npk_f32_to_u32(uint32_t a, npk_cvt_mode sat, npk_fenv *e)
{
    return npk_f32_to_uint(a, 32, sat, e);
}

uint32_t npk_u64_to_f32(uint64_t v, npk_fenv *e)
{
    if (v == 0)
        return 0;
    return (uint32_t)npk__round_pack(&npk__fmt_f32, 0, 0, v, 0, e);
}
uint32_t npk_i64_to_f32(int64_t v, npk_fenv *e)
{
    uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    if (v == 0)
        return 0;
    return (uint32_t)npk__round_pack(&npk__fmt_f32, v < 0, 0, mag, 0, e);
}
uint32_t npk_i32_to_f32(int32_t v, npk_fenv *e) { return npk_i64_to_f32(v, e); }
uint32_t npk_u32_to_f32(uint32_t v, npk_fenv *e) { return npk_u64_to_f32(v, e); }
