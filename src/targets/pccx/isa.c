/* pccx: isa.def as tables; encoder, decoder, the §4.8 validity rules and the canonical §13.2
 * disassembly, plus the public pure calls pccx_enc_*, pccx_decode and pccx_disasm. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "targets/pccx/isa.h"

const pccx_op_info pccx_ops[PCCX_N_OPS] = {
#define PCCX_OP(id, opcode, mnemonic, layout, engine, summary) \
    [opcode] = {mnemonic, opcode, PCCX_L_##layout, PCCX_ENG_##engine, summary},
#include "targets/pccx/isa.def"
};

const pccx_field_info pccx_fields[PCCX_N_FIELDS] = {
#define PCCX_FIELD(layout, id, key, lsb, width, member, print, summary) \
    [PCCX_F_##id] = {PCCX_L_##layout, key, lsb, width, PCCX_P_##print, summary},
#include "targets/pccx/isa.def"
};

const pccx_flag_info pccx_flags[PCCX_N_FLAGS] = {
#define PCCX_FLAG(layout, name, mask, constant, summary) {PCCX_L_##layout, name, mask, summary},
#include "targets/pccx/isa.def"
};

#define PCCX_S_BASE 0
#define PCCX_S_EXT 1
const pccx_cvo_info pccx_cvos[PCCX_N_CVO_FUNCS] = {
#define PCCX_CVO(id, code, mnemonic, profile, shape, summary) \
    [code] = {mnemonic, code, PCCX_S_##profile, PCCX_S_##shape, summary},
#include "targets/pccx/isa.def"
};

#define PCCX_F_NONE_ PCCX_F_NONE
const pccx_route_info pccx_routes[PCCX_N_ROUTES] = {
#define PCCX_ROUTE(id, from, to, suffix, zero_field, summary) \
    [PCCX_R_##id] = {from, to, suffix, PCCX_F_##zero_field, summary},
#include "targets/pccx/isa.def"
};

const char *const pccx_bank_names[PCCX_N_BANKS] = {
#define PCCX_BANK(id, value, name, summary) [value] = name,
#include "targets/pccx/isa.def"
};

/* The public header's constants (spec §12.1) restate facts of isa.def; these checks keep the
 * two from drifting apart. */
#define PCCX_OP(id, opcode, mnemonic, layout, engine, summary) \
    _Static_assert(PCCX_OP_##id == (opcode), "pccx.h PCCX_OP_" #id " disagrees with isa.def");
#include "targets/pccx/isa.def"
#define PCCX_CVO(id, code, mnemonic, profile, shape, summary) \
    _Static_assert(PCCX_CVO_##id == (code), "pccx.h PCCX_CVO_" #id " disagrees with isa.def");
#include "targets/pccx/isa.def"
#define PCCX_BANK(id, value, name, summary) \
    _Static_assert(PCCX_BANK_##id == (value), "pccx.h PCCX_BANK_" #id " disagrees with isa.def");
#include "targets/pccx/isa.def"
#define PCCX_FLAG(layout, name, mask, constant, summary) \
    _Static_assert((constant) == (mask), "pccx.h " #constant " disagrees with isa.def");
#include "targets/pccx/isa.def"
_Static_assert(PCCX_N_CVO_FUNCS == 15, "pccx.h PCCX_N_CVO_FUNCS: CVO codes 0x0..0xE");

const char *const pccx_layout_names[PCCX_N_LAYOUTS] = {"GEMV/GEMM", "MEMCPY", "MEMSET", "CVO"};
const char *const pccx_engine_names[PCCX_N_ENGINES] = {"memset", "mem", "gemv", "gemm", "cvo"};

const char *const pccx_mnemonic_names[PCCX_N_MNEMONICS] = {
    "gemv", "gemm", "memcpy.h2l", "memcpy.l2h", "memcpy.l2l", "memset",
#define PCCX_CVO(id, code, mnemonic, profile, shape, summary) mnemonic,
#include "targets/pccx/isa.def"
    "dropped"};

const char *pccx_cvo_name(unsigned func)
{
    return func < PCCX_N_CVO_FUNCS ? pccx_cvos[func].mnemonic : "?";
}

unsigned pccx_mnemonic_id(const pccx_insn_t *d)
{
    switch (d->opcode) {
    case PCCX_OP_GEMV: return 0;
    case PCCX_OP_GEMM: return 1;
    case PCCX_OP_MEMCPY: return 2 + (unsigned)pccx_route_of(d) % 3;
    case PCCX_OP_MEMSET: return 5;
    case PCCX_OP_CVO: return 6 + (d->func < PCCX_N_CVO_FUNCS ? d->func : 0);
    default: return PCCX_N_MNEMONICS - 1;
    }
}

/* Reserved fields live in reserved_bits at their word positions; the others in their member. */
#define PCCX_MASK(lsb, width) ((((uint64_t)1 << (width)) - 1) << (lsb))
#define PCCX_IS_RES_HEX 0
#define PCCX_IS_RES_DEC 0
#define PCCX_IS_RES_FLAGS 0
#define PCCX_IS_RES_BANK 0
#define PCCX_IS_RES_ROUTE 0
#define PCCX_IS_RES_FUNC 0
#define PCCX_IS_RES_ASYNC 0
#define PCCX_IS_RES_RES 1

uint64_t pccx_field_get(const pccx_insn_t *d, pccx_field_id f)
{
    switch (f) {
#define PCCX_FIELD(layout, id, key, lsb, width, member, print, summary)                  \
    case PCCX_F_##id:                                                                  \
        return PCCX_IS_RES_##print ? ((uint64_t)d->member & PCCX_MASK(lsb, width)) >> (lsb) \
                                   : (uint64_t)d->member;
#include "targets/pccx/isa.def"
    default: return 0;
    }
}

void pccx_field_set(pccx_insn_t *d, pccx_field_id f, uint64_t v)
{
    switch (f) {
#define PCCX_FIELD(layout, id, key, lsb, width, member, print, summary)                      \
    case PCCX_F_##id:                                                                      \
        if (PCCX_IS_RES_##print)                                                           \
            d->member = (d->member & ~PCCX_MASK(lsb, width)) | ((v << (lsb)) & PCCX_MASK(lsb, width)); \
        else                                                                               \
            d->member = (uint32_t)v;                                                       \
        break;
#include "targets/pccx/isa.def"
    default: break;
    }
}

/* Field ids of a layout, in table order. */
static size_t layout_fields(pccx_layout l, pccx_field_id *out)
{
    size_t n = 0;
    for (int f = 0; f < PCCX_N_FIELDS; f++)
        if (pccx_fields[f].layout == l)
            out[n++] = (pccx_field_id)f;
    return n;
}

void pccx_unpack(uint64_t w, pccx_insn_t *d)
{
    pccx_field_id ids[PCCX_N_FIELDS];
    memset(d, 0, sizeof *d);
    d->word = w;
    d->opcode = (unsigned)(w >> 60);
    if (d->opcode >= PCCX_N_OPS)
        return;
    size_t n = layout_fields(pccx_ops[d->opcode].layout, ids);
    for (size_t i = 0; i < n; i++) {
        const pccx_field_info *fi = &pccx_fields[ids[i]];
        uint64_t v = (w >> fi->lsb) & (((uint64_t)1 << fi->width) - 1);
        pccx_field_set(d, ids[i], v);
    }
}

int pccx_encode(const pccx_insn_t *d, uint64_t *w, const char **why)
{
    if (d->opcode > 15) {
        if (why)
            *why = "opcode";
        return PCCX_E_ARG;
    }
    uint64_t word = (uint64_t)d->opcode << 60;
    if (d->opcode < PCCX_N_OPS) {
        pccx_layout layout = pccx_ops[d->opcode].layout;
        for (int f = 0; f < PCCX_N_FIELDS; f++) {
            const pccx_field_info *fi = &pccx_fields[f];
            if (fi->layout != layout)
                continue;
            uint64_t v = pccx_field_get(d, (pccx_field_id)f);
            if (fi->print != PCCX_P_RES && v >> fi->width) {
                if (why)
                    *why = fi->key[0] ? fi->key : "flags";
                return PCCX_E_ARG;
            }
            word |= v << fi->lsb;
        }
    }
    *w = word;
    return PCCX_OK;
}

pccx_route pccx_route_of(const pccx_insn_t *d)
{
    return (pccx_route)(d->from_device ? (d->to_device ? PCCX_R_H2H : PCCX_R_H2L)
                                       : (d->to_device ? PCCX_R_L2H : PCCX_R_L2L));
}

/* The flags-field bits no PCCX_FLAG row names (reserved), for a layout. */
static unsigned reserved_flag_bits(pccx_layout l, unsigned width)
{
    unsigned named = 0;
    for (int i = 0; i < PCCX_N_FLAGS; i++)
        if (pccx_flags[i].layout == l)
            named |= pccx_flags[i].mask;
    return ((1u << width) - 1) & ~named;
}

static uint64_t flags_reserved_word_bits(const pccx_insn_t *d, pccx_field_id f)
{
    const pccx_field_info *fi = &pccx_fields[f];
    return (uint64_t)(d->flags & reserved_flag_bits(fi->layout, fi->width)) << fi->lsb;
}

uint64_t pccx_reserved_bits(const pccx_insn_t *d)
{
    switch (d->opcode) {
    case PCCX_OP_GEMV:
    case PCCX_OP_GEMM:
        return d->reserved_bits | flags_reserved_word_bits(d, PCCX_F_G_FLAGS);
    case PCCX_OP_MEMSET:
        return d->reserved_bits;
    case PCCX_OP_CVO:
        return flags_reserved_word_bits(d, PCCX_F_C_FLAGS);
    case PCCX_OP_MEMCPY: {
        int zf = pccx_routes[pccx_route_of(d)].zero_field;
        if (zf == PCCX_F_NONE)
            return 0;
        const pccx_field_info *fi = &pccx_fields[zf];
        return pccx_field_get(d, (pccx_field_id)zf) << fi->lsb;
    }
    default:
        return 0;
    }
}

static void say(char *why, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void say(char *why, size_t n, const char *fmt, ...)
{
    if (!why || !n || why[0])
        return; /* keep the first reason */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
}

int pccx_effective(const pccx_insn_t *d, int ext, int hw_compat, pccx_insn_t *eff,
                   int *dropped, char *why, size_t why_len)
{
    pccx_insn_t e = *d;
    int err = PCCX_OK;
    if (why && why_len)
        why[0] = 0;
    *dropped = 0;
    /* §4.8, rows in table order. */
#define PCCX_ROW(cond, code, drop_in_hw, fix, ...)                          \
    do {                                                                    \
        if (cond) {                                                         \
            say(why, why_len, __VA_ARGS__);                                 \
            if (!hw_compat) {                                               \
                if (err == PCCX_OK)                                         \
                    err = (code);                                           \
            } else if (drop_in_hw) {                                        \
                *dropped = 1;                                               \
            } else {                                                        \
                fix;                                                        \
            }                                                               \
        }                                                                   \
    } while (0)
    PCCX_ROW(d->opcode >= PCCX_N_OPS, PCCX_E_ILLEGAL_OPCODE, 1, (void)0,
             "reserved opcode 0x%X", d->opcode);
    PCCX_ROW(d->opcode == PCCX_OP_CVO && (d->func == 0xF || (!ext && pccx_cvos[d->func].ext)),
             PCCX_E_ILLEGAL_FUNC, 1, (void)0,
             d->func == 0xF ? "reserved CVO function 0x%X"
                            : "CVO function 0x%X needs the ext profile", d->func);
    PCCX_ROW(d->opcode == PCCX_OP_MEMSET && d->bank >= 2, PCCX_E_RESERVED_VALUE, 1, (void)0,
             "reserved MEMSET dest_cache %u", d->bank);
    if (d->opcode < PCCX_N_OPS && d->opcode != PCCX_OP_MEMCPY) {
        uint64_t rb = pccx_reserved_bits(d);
        unsigned fl = d->opcode == PCCX_OP_CVO
                          ? reserved_flag_bits(PCCX_L_CVO, pccx_fields[PCCX_F_C_FLAGS].width)
                          : reserved_flag_bits(PCCX_L_GEMX, pccx_fields[PCCX_F_G_FLAGS].width);
        PCCX_ROW(rb != 0, PCCX_E_RESERVED, 0,
                 (e.reserved_bits = 0, e.flags &= ~fl),
                 "reserved bits set (word mask 0x%llx)", (unsigned long long)rb);
    }
    if (d->opcode == PCCX_OP_MEMCPY && pccx_route_of(d) != PCCX_R_H2H) {
        int zf = pccx_routes[pccx_route_of(d)].zero_field;
        PCCX_ROW(pccx_field_get(d, (pccx_field_id)zf) != 0, PCCX_E_RESERVED, 0,
                 pccx_field_set(&e, (pccx_field_id)zf, 0),
                 "memcpy.%s: field %s must be zero (is 0x%llx)",
                 pccx_routes[pccx_route_of(d)].suffix, pccx_fields[zf].key,
                 (unsigned long long)pccx_field_get(d, (pccx_field_id)zf));
    }
    PCCX_ROW(d->opcode == PCCX_OP_CVO && (d->flags & PCCX_CVO_FLAG_RECIP_SCALE) &&
                 d->func != PCCX_CVO_SCALE,
             PCCX_E_BAD_FLAGS, 0, e.flags &= ~(unsigned)PCCX_CVO_FLAG_RECIP_SCALE,
             "recip_scale is allowed only with scale");
    PCCX_ROW(d->opcode == PCCX_OP_CVO && d->func == PCCX_CVO_VMUL && ext &&
                 (d->flags & PCCX_CVO_FLAG_ACCM),
             PCCX_E_BAD_FLAGS, 0, e.flags &= ~(unsigned)PCCX_CVO_FLAG_ACCM,
             "vmul does not allow accm");
#undef PCCX_ROW
    if (d->opcode == PCCX_OP_MEMCPY && pccx_route_of(d) == PCCX_R_H2H) {
        if (err == PCCX_OK || hw_compat)
            err = PCCX_E_ROUTE;
        if (why && why_len && (hw_compat || !why[0]))
            snprintf(why, why_len, "memcpy host -> host is not a route");
    }
    if (eff)
        *eff = e;
    return err;
}

int pccx_validity(const pccx_insn_t *d, int ext)
{
    int dropped;
    return pccx_effective(d, ext, 0, NULL, &dropped, NULL, 0);
}

/* ---- disassembly (§13.2) ---------------------------------------------------------------- */

typedef struct dis {
    char *buf;
    size_t n, len;
    int ops;
} dis;

static void put(dis *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(dis *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(s->len < s->n ? s->buf + s->len : NULL, s->len < s->n ? s->n - s->len : 0,
                      fmt, ap);
    va_end(ap);
    if (k > 0)
        s->len += (size_t)k;
}

static void sep(dis *s)
{
    put(s, s->ops++ ? ", " : " ");
}

static void kv(dis *s, const pccx_insn_t *d, pccx_field_id f)
{
    const pccx_field_info *fi = &pccx_fields[f];
    uint64_t v = pccx_field_get(d, f);
    sep(s);
    if (fi->print == PCCX_P_HEX)
        put(s, "%s=0x%llx", fi->key, (unsigned long long)v);
    else
        put(s, "%s=%llu", fi->key, (unsigned long long)v);
}

static void flag_words(dis *s, pccx_layout l, unsigned flags)
{
    for (int i = 0; i < PCCX_N_FLAGS; i++)
        if (pccx_flags[i].layout == l && (flags & pccx_flags[i].mask)) {
            sep(s);
            put(s, "%s", pccx_flags[i].name);
        }
}

int pccx_disasm(uint64_t w, int ext, char *buf, size_t len)
{
    pccx_insn_t d;
    dis s = {buf, len, 0, 0};
    if (buf && len)
        buf[0] = 0;
    pccx_decode(w, ext, &d);
    if (d.validity != PCCX_OK) {
        put(&s, ".word 0x%016llx", (unsigned long long)w);
        return (int)s.len;
    }
    switch (d.opcode) {
    case PCCX_OP_GEMV:
    case PCCX_OP_GEMM:
        put(&s, "%s", pccx_ops[d.opcode].mnemonic);
        kv(&s, &d, PCCX_F_G_DEST);
        kv(&s, &d, PCCX_F_G_SRC);
        kv(&s, &d, PCCX_F_G_SIZE);
        kv(&s, &d, PCCX_F_G_SHAPE);
        if (d.lanes)
            kv(&s, &d, PCCX_F_G_LANES);
        flag_words(&s, PCCX_L_GEMX, d.flags);
        break;
    case PCCX_OP_MEMCPY: {
        pccx_route r = pccx_route_of(&d);
        put(&s, "memcpy.%s", pccx_routes[r].suffix);
        if (r != PCCX_R_L2H)
            kv(&s, &d, PCCX_F_M_DEST);
        if (r != PCCX_R_H2L)
            kv(&s, &d, PCCX_F_M_SRC);
        if (r != PCCX_R_L2L)
            kv(&s, &d, PCCX_F_M_AUX);
        kv(&s, &d, PCCX_F_M_SHAPE);
        if (d.async) {
            sep(&s);
            put(&s, "async");
        }
        break;
    }
    case PCCX_OP_MEMSET:
        put(&s, "memset %s", pccx_bank_names[d.bank]);
        s.ops = 1;
        kv(&s, &d, PCCX_F_S_IDX);
        kv(&s, &d, PCCX_F_S_A);
        kv(&s, &d, PCCX_F_S_B);
        kv(&s, &d, PCCX_F_S_C);
        break;
    case PCCX_OP_CVO:
        put(&s, "%s", pccx_cvos[d.func].mnemonic);
        kv(&s, &d, PCCX_F_C_SRC);
        kv(&s, &d, PCCX_F_C_DST);
        kv(&s, &d, PCCX_F_C_LEN);
        flag_words(&s, PCCX_L_CVO, d.flags);
        if (d.async) {
            sep(&s);
            put(&s, "async");
        }
        break;
    default:
        break;
    }
    return (int)s.len;
}

/* ---- public pure calls (§12.2) ------------------------------------------------------------ */

int pccx_decode(uint64_t w, int ext, pccx_insn_t *out)
{
    pccx_unpack(w, out);
    out->validity = pccx_validity(out, ext);
    return out->validity;
}

static int enc(uint64_t *w, const pccx_insn_t *d)
{
    if (!w)
        return PCCX_E_ARG;
    return pccx_encode(d, w, NULL);
}

static int enc_gemx(uint64_t *w, unsigned op, uint32_t dest, uint32_t src, unsigned flags,
                    unsigned size_ptr, unsigned shape_ptr, unsigned lanes)
{
    pccx_insn_t d = {0};
    d.opcode = op;
    d.dest = dest;
    d.src = src;
    d.flags = flags;
    d.size_ptr = size_ptr;
    d.shape_ptr = shape_ptr;
    d.lanes = lanes;
    return enc(w, &d);
}

int pccx_enc_gemv(uint64_t *w, uint32_t dest, uint32_t src, unsigned flags, unsigned size_ptr,
                  unsigned shape_ptr, unsigned lanes)
{
    return enc_gemx(w, PCCX_OP_GEMV, dest, src, flags, size_ptr, shape_ptr, lanes);
}

int pccx_enc_gemm(uint64_t *w, uint32_t dest, uint32_t src, unsigned flags, unsigned size_ptr,
                  unsigned shape_ptr, unsigned lanes)
{
    return enc_gemx(w, PCCX_OP_GEMM, dest, src, flags, size_ptr, shape_ptr, lanes);
}

int pccx_enc_memcpy(uint64_t *w, unsigned from_host, unsigned to_host, uint32_t dest,
                    uint32_t src, uint32_t aux, unsigned shape_ptr, unsigned async)
{
    pccx_insn_t d = {0};
    d.opcode = PCCX_OP_MEMCPY;
    d.from_device = from_host;
    d.to_device = to_host;
    d.dest = dest;
    d.src = src;
    d.aux = aux;
    d.shape_ptr = shape_ptr;
    d.async = async;
    return enc(w, &d);
}

int pccx_enc_memset(uint64_t *w, unsigned bank, unsigned index, uint16_t a, uint16_t b,
                    uint16_t c)
{
    pccx_insn_t d = {0};
    d.opcode = PCCX_OP_MEMSET;
    d.bank = bank;
    d.index = index;
    d.a = a;
    d.b = b;
    d.c = c;
    return enc(w, &d);
}

int pccx_enc_cvo(uint64_t *w, unsigned func, uint32_t src, uint32_t dst, uint32_t length,
                 unsigned flags, unsigned async)
{
    pccx_insn_t d = {0};
    d.opcode = PCCX_OP_CVO;
    d.func = func;
    d.src = src;
    d.dst = dst;
    d.length = length;
    d.flags = flags;
    d.async = async;
    return enc(w, &d);
}

const char *pccx_error_name(int code)
{
    static const char *const names[] = {
        "PCCX_OK", "PCCX_E_ILLEGAL_OPCODE", "PCCX_E_ILLEGAL_FUNC", "PCCX_E_RESERVED",
        "PCCX_E_RESERVED_VALUE", "PCCX_E_BAD_FLAGS", "PCCX_E_ROUTE", "PCCX_E_SHAPE",
        "PCCX_E_L2_RANGE", "PCCX_E_HOST_RANGE", "PCCX_E_WEIGHT_EMPTY", "PCCX_E_WEIGHT_SHAPE",
        "PCCX_E_HALTED", "PCCX_E_TIMEOUT", "PCCX_E_ARG", "PCCX_E_NOMEM"};
    if (code > 0 || -code >= (int)(sizeof names / sizeof names[0]))
        return "?";
    return names[-code];
}
