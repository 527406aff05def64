/* tinytpu registers by name (docs/state.md): every register of spec Part A, named as in the
 * spec and the B8 register dump. The list grows with N (7 registers per PE), so it is built
 * on first use, not when the machine is created. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets/tinytpu/regs.h"

/* What a register is: a kind, a field of it and an index (PE k*N+j, lane, column or
 * channel). */
enum { K_CYCLE, K_WP, K_GPTR, K_MODE, K_CS_FLAG, K_CS_VALUE, K_F, K_E, K_CH, K_LANE, K_PE };
/* F_{k-1} of A7.8, the fields the issue logic compares the next word with */
enum { F_START, F_SEL, F_TRANSPOSE, F_ADDR, F_ROWS, F_COLS, F_N };
enum { CH_PTR, CH_R, CH_C, CH_T, CH_TRANSPOSE, CH_SKIP };
enum { L_IN_D, L_IN_V, L_W_D, L_W_V, L_BIAS, L_Y, L_H, L_OLD, L_DONE, L_UPD, L_ST_D, L_ST_V,
       L_LASTH = L_ST_D + 8 };
enum { P_N = TT_PE_NF }; /* the PE registers, in the order of TT_PE_SHADOW ... TT_PE_SWOUT */

typedef struct tt_regref {
    uint8_t kind, field;
    uint32_t idx;
} tt_regref;

struct tt_regs {
    npk_reg_info *info;
    tt_regref *ref;
    char *names;
    size_t n, cap, used, size;
    size_t pe0;                  /* index of the first PE register (they come last) */
    uint64_t *before;            /* commit records: registers 0 .. pe0-1 before the edge */
    uint16_t *pe_before;         /* and the PEs (as s->pe) */
};

/* the first four are the list of a machine whose full list could not be allocated */
static const npk_reg_info base[4] = {{"cycle", 64, 0}, {"wp", 32, 0}, {"gptr", 16, 0},
                                     {"mode", 1, 0}};

static int add(struct tt_regs *r, unsigned bits, unsigned kind, unsigned field, uint32_t idx,
               const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

static int add(struct tt_regs *r, unsigned bits, unsigned kind, unsigned field, uint32_t idx,
               const char *fmt, ...)
{
    if (r->n == r->cap)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(r->names + r->used, r->size - r->used, fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= r->size - r->used)
        return -1;
    r->ref[r->n] = (tt_regref){(uint8_t)kind, (uint8_t)field, idx};
    r->info[r->n].bits = bits;
    r->info[r->n].flags = 0;
    r->info[r->n++].name = r->names + r->used; /* the buffer never moves */
    r->used += (size_t)len + 1;
    return 0;
}

static const char *const stage_names[4] = {"BIAS", "LREL", "LOSS", "DERIV"};
static const char *const pe_fields[P_N] = {"shadow", "active", "xout", "psum",
                                           "vout",   "wout",   "swout"};
static const unsigned pe_bits[P_N] = {16, 16, 16, 16, 1, 16, 1};

static int build(struct tt_regs *r, unsigned N)
{
    int e = 0;
    e |= add(r, 64, K_CYCLE, 0, 0, "cycle");
    e |= add(r, 32, K_WP, 0, 0, "wp");
    e |= add(r, 16, K_GPTR, 0, 0, "gptr");
    e |= add(r, 1, K_MODE, 0, 0, "mode");
    e |= add(r, 1, K_CS_FLAG, 0, 0, "cs_flag");
    e |= add(r, 16, K_CS_VALUE, 0, 0, "cs_value");
    static const char *const f_names[F_N] = {"start", "sel", "transpose", "addr", "rows", "cols"};
    static const unsigned f_bits[F_N] = {1, 9, 1, 16, 16, 16};
    for (unsigned f = 0; f < F_N; f++)
        e |= add(r, f_bits[f], K_F, f, 0, "F.%s", f_names[f]);
    for (unsigned j = 0; j < N; j++)
        e |= add(r, 1, K_E, 0, j, "E[%u]", j);
    for (unsigned c = 0; c < TT_N_CHANNELS; c++) {
        const char *ch = tt_channel_names[c];
        e |= add(r, 16, K_CH, CH_PTR, c, "%s.ptr", ch);
        e |= add(r, 16, K_CH, CH_R, c, "%s.R", ch);
        e |= add(r, 16, K_CH, CH_C, c, "%s.C", ch);
        e |= add(r, 16, K_CH, CH_T, c, "%s.t", ch);
        if (c == TT_CH_INPUT || c == TT_CH_WEIGHT)
            e |= add(r, 1, K_CH, CH_TRANSPOSE, c, "%s.transpose", ch);
        if (c == TT_CH_WEIGHT)
            e |= add(r, 16, K_CH, CH_SKIP, c, "%s.skip", ch);
    }
    for (unsigned i = 0; i < N; i++) {
        e |= add(r, 16, K_LANE, L_IN_D, i, "input.data[%u]", i);
        e |= add(r, 1, K_LANE, L_IN_V, i, "input.valid[%u]", i);
        e |= add(r, 16, K_LANE, L_W_D, i, "weight.data[%u]", i);
        e |= add(r, 1, K_LANE, L_W_V, i, "weight.valid[%u]", i);
        e |= add(r, 16, K_LANE, L_BIAS, i, "bias.data[%u]", i);
        e |= add(r, 16, K_LANE, L_Y, i, "y.data[%u]", i);
        e |= add(r, 16, K_LANE, L_H, i, "h.data[%u]", i);
        e |= add(r, 16, K_LANE, L_OLD, i, "old[%u]", i);
        e |= add(r, 1, K_LANE, L_DONE, i, "gd.done[%u]", i);
        e |= add(r, 16, K_LANE, L_UPD, i, "gd.upd[%u]", i);
        for (unsigned st = 0; st < 4; st++) {
            e |= add(r, 16, K_LANE, L_ST_D + 2 * st, i, "vpu.%s.data[%u]", stage_names[st], i);
            e |= add(r, 1, K_LANE, L_ST_V + 2 * st, i, "vpu.%s.valid[%u]", stage_names[st], i);
        }
        e |= add(r, 16, K_LANE, L_LASTH, i, "vpu.lastH[%u]", i);
    }
    r->pe0 = r->n;
    for (unsigned k = 0; k < N; k++)
        for (unsigned j = 0; j < N; j++)
            for (unsigned f = 0; f < P_N; f++)
                e |= add(r, pe_bits[f], K_PE, f, k * N + j, "pe[%u][%u].%s", k, j,
                         pe_fields[f]);
    return e;
}

size_t tt_regs_list(tt_state *s, const npk_reg_info **list)
{
    if (!s->regs) {
        const size_t N = s->N;
        struct tt_regs *r = calloc(1, sizeof *r);
        if (r) {
            r->cap = 6 + F_N + N + 7 * 6 + N * 23 + N * N * P_N;
            r->size = r->cap * 32;
            r->info = calloc(r->cap, sizeof *r->info);
            r->ref = calloc(r->cap, sizeof *r->ref);
            r->names = malloc(r->size);
        }
        if (!r || !r->info || !r->ref || !r->names || build(r, s->N) != 0) {
            tt_regs_free(r);
            *list = base;
            return sizeof base / sizeof base[0];
        }
        s->regs = r;
    }
    *list = s->regs->info;
    return s->regs->n;
}

void tt_regs_free(struct tt_regs *r)
{
    if (!r)
        return;
    free(r->info);
    free(r->ref);
    free(r->names);
    free(r->before);
    free(r->pe_before);
    free(r);
}

/* The fallback list's indexes equal the full list's first four. */
static tt_regref ref_of(const tt_state *s, size_t i)
{
    static const tt_regref first[4] = {{K_CYCLE, 0, 0}, {K_WP, 0, 0}, {K_GPTR, 0, 0},
                                       {K_MODE, 0, 0}};
    return s->regs ? s->regs->ref[i] : first[i];
}

static uint16_t *lane16(tt_state *s, unsigned f, unsigned i)
{
    switch (f) {
    case L_IN_D: return &s->in_d[i];
    case L_W_D: return &s->w_d[i];
    case L_BIAS: return &s->bias_r[i];
    case L_Y: return &s->y_r[i];
    case L_H: return &s->h_r[i];
    case L_OLD: return &s->old_r[i];
    case L_UPD: return &s->upd[i];
    case L_LASTH: return &s->lastH[i];
    default: return &s->st_d[(f - L_ST_D) / 2][i];
    }
}

static uint8_t *lane8(tt_state *s, unsigned f, unsigned i)
{
    switch (f) {
    case L_IN_V: return &s->in_v[i];
    case L_W_V: return &s->w_v[i];
    case L_DONE: return &s->done[i];
    default: return &s->st_v[(f - L_ST_V) / 2][i];
    }
}

static int lane_is8(unsigned f)
{
    return f == L_IN_V || f == L_W_V || f == L_DONE ||
           (f >= L_ST_D && f < L_LASTH && (f - L_ST_D) % 2 == 1);
}

/* F_{k-1} as exec.c keeps it: prev_f packs sel, addr, rows, cols (16 bits each); prev_ft is
 * start | T << 1 (exec.c zeroes it after a word with start = 0 and leaves prev_f: no rule
 * reads the other fields then, A7.8). */
static uint64_t f_read(const tt_state *s, unsigned f)
{
    switch (f) {
    case F_START: return s->prev_ft & 1u;
    case F_TRANSPOSE: return s->prev_ft >> 1 & 1u;
    case F_SEL: return s->prev_f & 0xFFFFu;
    case F_ADDR: return s->prev_f >> 16 & 0xFFFFu;
    case F_ROWS: return s->prev_f >> 32 & 0xFFFFu;
    default: return s->prev_f >> 48 & 0xFFFFu;
    }
}

static void f_write(tt_state *s, unsigned f, uint64_t v)
{
    static const unsigned shift[F_N] = {0, 0, 0, 16, 32, 48};
    if (f == F_START)
        s->prev_ft = (uint16_t)((s->prev_ft & ~1u) | (unsigned)v);
    else if (f == F_TRANSPOSE)
        s->prev_ft = (uint16_t)((s->prev_ft & 1u) | (unsigned)v << 1);
    else
        s->prev_f = (s->prev_f & ~(UINT64_C(0xFFFF) << shift[f])) | v << shift[f];
}

npk_status tt_regs_read(npk_machine *m, tt_state *s, size_t i, uint64_t *v)
{
    (void)m;
    tt_regref r = ref_of(s, i);
    switch (r.kind) {
    case K_CYCLE: *v = s->pc; break;
    case K_WP: *v = s->wp; break;
    case K_GPTR: *v = s->gptr; break;
    case K_MODE: *v = s->mode; break;
    case K_CS_FLAG: *v = s->cs_flag; break;
    case K_CS_VALUE: *v = s->cs_val; break;
    case K_F: *v = f_read(s, r.field); break;
    case K_E: *v = s->E[r.idx] != 0; break;
    case K_CH: {
        const tt_chan *c = &s->ch[r.idx];
        *v = r.field == CH_PTR ? (uint16_t)c->ptr : r.field == CH_R ? c->R
             : r.field == CH_C ? c->C : r.field == CH_T ? c->t
             : r.field == CH_TRANSPOSE ? c->T : c->skip;
        break;
    }
    case K_LANE:
        *v = lane_is8(r.field) ? *lane8(s, r.field, r.idx) : *lane16(s, r.field, r.idx);
        break;
    default: {
        *v = TT_PE(s, r.field, r.idx);
        break;
    }
    }
    return NPK_OK;
}

/* After a backdoor write the fast path's activity gating (not architectural) may be stale:
 * mark every block as possibly active, and recompute which channels beat at the next edge
 * (A7.2: t + 1 < R + C), so the next edge steps everything once and settles the masks. */
void tt_ungate(tt_state *s)
{
    s->pe_idle = 0;
    memset(s->pe_row, TT_ROW_ALL, sizeof s->pe_row);
    s->vpu_quiet = 0;
    s->bottom_nz = 1;
    s->gd_busy = 1;
    s->w_any = 1;
    s->ch_dirty = (1u << TT_N_CHANNELS) - 1;
    s->ch_live = 0;
    for (unsigned c = 0; c < TT_N_CHANNELS; c++)
        s->ch_live |= (unsigned)((uint32_t)s->ch[c].t + 1 < (uint32_t)s->ch[c].R + s->ch[c].C)
                      << c;
}

npk_status tt_regs_write(npk_machine *m, tt_state *s, size_t i, uint64_t v)
{
    tt_regref r = ref_of(s, i);
    switch (r.kind) {
    case K_CYCLE:
        if (v > tt_prog_len(s))
            return npk_fail(m, NPK_ERR_RANGE, "tinytpu: cycle %llu is past the end of the "
                            "%llu-cycle program", (unsigned long long)v,
                            (unsigned long long)tt_prog_len(s));
        s->pc = v;
        return NPK_OK;
    case K_WP: s->wp = (uint32_t)v; break;
    case K_GPTR: s->gptr = (uint16_t)v; break;
    case K_MODE: s->mode = (uint8_t)v; break;
    case K_CS_FLAG: s->cs_flag = (uint8_t)v; break;
    case K_CS_VALUE: s->cs_val = (uint16_t)v; break;
    case K_F: f_write(s, r.field, v); break;
    case K_E: s->E[r.idx] = (uint8_t)v; break;
    case K_CH: {
        tt_chan *c = &s->ch[r.idx];
        if (r.field == CH_PTR) /* the weight walk's pointer is signed (A7.4) */
            c->ptr = r.idx == TT_CH_WEIGHT ? (int16_t)(uint16_t)v : (int32_t)v;
        else if (r.field == CH_R)
            c->R = (uint16_t)v;
        else if (r.field == CH_C)
            c->C = (uint16_t)v;
        else if (r.field == CH_T)
            c->t = (uint16_t)v;
        else if (r.field == CH_TRANSPOSE)
            c->T = (uint8_t)v;
        else
            c->skip = (uint16_t)v;
        break;
    }
    case K_LANE:
        if (lane_is8(r.field))
            *lane8(s, r.field, r.idx) = (uint8_t)v;
        else
            *lane16(s, r.field, r.idx) = (uint16_t)v;
        break;
    default: {
        TT_PE(s, r.field, r.idx) = pe_bits[r.field] == 1 ? (uint8_t)v : (uint16_t)v;
        break;
    }
    }
    tt_ungate(s);
    return NPK_OK;
}

/* ---- commit records (docs/commit-log.md): the registers an edge changed ------------------- */

int tt_commit_save(npk_machine *m, tt_state *s)
{
    const npk_reg_info *list;
    tt_regs_list(s, &list);
    struct tt_regs *r = s->regs;
    if (!r)
        return -1;
    if (!r->before) {
        r->before = malloc((r->pe0 ? r->pe0 : 1) * sizeof *r->before);
        r->pe_before = malloc(P_N * (size_t)s->N * s->N * sizeof *r->pe_before);
        if (!r->before || !r->pe_before) {
            free(r->before);
            free(r->pe_before);
            r->before = NULL, r->pe_before = NULL;
            return -1;
        }
    }
    for (size_t i = 0; i < r->pe0; i++)
        tt_regs_read(m, s, i, &r->before[i]);
    memcpy(r->pe_before, s->pe, P_N * (size_t)s->N * s->N * sizeof *s->pe);
    return 0;
}

void tt_commit_regs(npk_machine *m, tt_state *s, npk_commit_sink *c)
{
    struct tt_regs *r = s->regs;
    if (!r || !r->before)
        return;
    for (size_t i = 0; i < r->pe0; i++) {
        /* cycle is the record's own position and F mirrors the previous record's word */
        if (r->ref[i].kind == K_CYCLE || r->ref[i].kind == K_F)
            continue;
        uint64_t v;
        tt_regs_read(m, s, i, &v);
        if (v != r->before[i])
            npk_commit_reg(c, r->info[i].name, r->info[i].bits, v);
    }
    const size_t nn = (size_t)s->N * s->N;
    for (size_t p = 0; p < nn; p++)
        for (unsigned f = 0; f < P_N; f++)
            if (r->pe_before[f * nn + p] != s->pe[f * nn + p]) {
                size_t i = r->pe0 + p * P_N + f;
                npk_commit_reg(c, r->info[i].name, r->info[i].bits, s->pe[f * nn + p]);
            }
}
