/* GEMM program generator for opennpu (include/npukit/opennpu.h; docs/opennpu.md "GEMM").
 *
 * Per output tile (rows K*I.., columns K*J..) the program
 *   1. loads one B quad and one A quad (ld.vr, 4K bytes each = four feeds' operands) and
 *      feeds them (mma: a = row t of B's tile in lane p, b = column t of A's tile in lane q,
 *      so P[p][q] = C[K*I + q][K*J + p] and the drain puts C's row q into VR[q]);
 *   2. the last feed is mma.last (rd = vr0), which drains row q of the C tile into VR[q];
 *   3. stores the K rows with st.vr (C row-major).
 * Every load and store takes its address from lane 0 of a VR register plus a 12-bit offset,
 * so the generator keeps "base" registers whose value it knows and rebuilds one (vmovi/vmovh)
 * when an access falls outside its +-2 KiB window. When K = L/4 the drain rewrites the whole
 * register file: no base survives it, and to get a first base register the program parks
 * VR0 in LUT bank B (vsetlut.b), builds the base in lane 0 of VR0, stores all rows (row 0 with
 * the base in its lane 0), then reads the parked lane-0 value back through vlut.b with index
 * bytes 0..3 (ld.w of the panel's index word) and rewrites that one int32 with st.w. */
#include "npukit/opennpu.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

npk_status npk_opennpu_gemm_plan_make(npk_opennpu_gemm_plan *p, unsigned M, unsigned N,
                                      unsigned Kd, unsigned K, unsigned L, uint64_t base,
                                      char *err, size_t err_size)
{
    memset(p, 0, sizeof *p);
    if (M == 0 || N == 0 || Kd == 0) {
        snprintf(err, err_size, "GEMM shape %ux%ux%u: every dimension must be at least 1", M,
                 N, Kd);
        return NPK_ERR_ARG;
    }
    if (K < 4 || K > 64 || (K & (K - 1)) || L < 4 || L > 32 || L % 4) {
        snprintf(err, err_size, "K=%u, L=%u is not an opennpu configuration", K, L);
        return NPK_ERR_ARG;
    }
    if (K > L / 4) {
        snprintf(err, err_size,
                 "K=%u > L/4=%u: mma.last drains K columns into L/4 VR registers and only the "
                 "last L/4 survive, so a K x K tile cannot be read out (use K <= L/4)",
                 K, L / 4);
        return NPK_ERR_ARG;
    }
    if (Kd >= 131072) {
        snprintf(err, err_size, "Kd=%u: sums of Kd int8 products may overflow int32 (Kd < 131072)",
                 Kd);
        return NPK_ERR_ARG;
    }
    p->M = M, p->N = N, p->Kd = Kd, p->K = K, p->L = L;
    p->tiles_m = (M + K - 1) / K;
    p->tiles_n = (N + K - 1) / K;
    p->quads = (Kd + 3) / 4;
    p->base = base;
    p->a_panel = 4 + (uint64_t)p->quads * 4 * K;
    p->b_panel = (uint64_t)p->quads * 4 * K;
    p->a_addr = base;
    p->b_addr = p->a_addr + p->a_panel * p->tiles_m;
    p->c_addr = p->b_addr + p->b_panel * p->tiles_n;
    p->ldc = 4 * (uint64_t)N;
    p->end = p->c_addr + p->ldc * M + 4 * K;
    if (p->end > ((uint64_t)1 << 31)) {
        snprintf(err, err_size, "GEMM %ux%ux%u needs %llu bytes of data memory from %llu", M, N,
                 Kd, (unsigned long long)(p->end - base), (unsigned long long)base);
        return NPK_ERR_ARG;
    }
    return NPK_OK;
}

void npk_opennpu_gemm_pack_a(const npk_opennpu_gemm_plan *p, const int8_t *A, uint8_t *dst)
{
    unsigned K = p->K;
    for (unsigned I = 0; I < p->tiles_m; I++) {
        uint8_t *pa = dst + I * p->a_panel;
        memset(pa, 0, p->a_panel);
        for (unsigned b = 0; b < 4; b++)
            pa[b] = (uint8_t)b;
        for (unsigned u = 0; u < p->quads; u++)
            for (unsigned q = 0; q < K; q++)
                for (unsigned b = 0; b < 4; b++) {
                    unsigned row = K * I + q, t = 4 * u + b;
                    if (row < p->M && t < p->Kd)
                        pa[4 + (uint64_t)u * 4 * K + 4 * q + b] =
                            (uint8_t)A[(uint64_t)row * p->Kd + t];
                }
    }
}

void npk_opennpu_gemm_pack_b(const npk_opennpu_gemm_plan *p, const int8_t *B, uint8_t *dst)
{
    unsigned K = p->K;
    memset(dst, 0, p->b_panel * p->tiles_n);
    for (unsigned J = 0; J < p->tiles_n; J++) {
        uint8_t *pb = dst + J * p->b_panel;
        for (unsigned u = 0; u < p->quads; u++)
            for (unsigned q = 0; q < K; q++)
                for (unsigned b = 0; b < 4; b++) {
                    unsigned col = K * J + q, t = 4 * u + b;
                    if (col < p->N && t < p->Kd)
                        pb[(uint64_t)u * 4 * K + 4 * q + b] = (uint8_t)B[(uint64_t)t * p->N + col];
                }
    }
}

void npk_opennpu_gemm_pack(const npk_opennpu_gemm_plan *p, const int8_t *A, const int8_t *B,
                           uint8_t *mem)
{
    memset(mem, 0, p->end - p->base);
    npk_opennpu_gemm_pack_a(p, A, mem + (p->a_addr - p->base));
    npk_opennpu_gemm_pack_b(p, B, mem + (p->b_addr - p->base));
}

void npk_opennpu_gemm_unpack_c(const npk_opennpu_gemm_plan *p, const uint8_t *mem, int32_t *C)
{
    const uint8_t *c = mem + (p->c_addr - p->base);
    for (uint64_t i = 0; i < (uint64_t)p->M * p->N; i++) {
        uint32_t u = (uint32_t)c[4 * i] | (uint32_t)c[4 * i + 1] << 8 |
                     (uint32_t)c[4 * i + 2] << 16 | (uint32_t)c[4 * i + 3] << 24;
        C[i] = u < 0x80000000u ? (int32_t)u : (int32_t)(u - 0x80000000u) - 0x7FFFFFFF - 1;
    }
}

/* ---- the generator ------------------------------------------------------------------------- */

enum { MAX_VR = 8 };

struct npk_opennpu_gen {
    char *buf;
    size_t len, cap;
    int oom;
    const npk_opennpu_gemm_plan *p;    /* the GEMM being generated */
    unsigned K, R;                 /* VR registers (L/4) */
    /* What the generator knows about lane 0 of each VE register (for vmovi/vmovh reuse) and
     * which VR registers hold a base address. */
    int ve_known[2 * MAX_VR];
    uint16_t ve_val[2 * MAX_VR];
    int is_base[MAX_VR];
    uint64_t base_val[MAX_VR];
    uint64_t base_use[MAX_VR];  /* last use, for eviction */
    int busy[MAX_VR];           /* holds data that must not be overwritten */
    uint64_t clock;
    npk_opennpu_gemm_counts n;
};
typedef struct npk_opennpu_gen gen;

/* Append formatted text, growing the buffer as needed (any length; out of memory sticks). */
static void vemit(gen *g, const char *fmt, va_list args)
{
    if (g->oom)
        return;
    for (;;) {
        va_list ap;
        va_copy(ap, args);
        int k = vsnprintf(g->buf ? g->buf + g->len : NULL, g->cap - g->len, fmt, ap);
        va_end(ap);
        if (k < 0) {
            g->oom = 1;
            return;
        }
        if ((size_t)k < g->cap - g->len) {
            g->len += (size_t)k;
            return;
        }
        size_t cap = g->cap ? 2 * g->cap : 1 << 16;
        while (cap - g->len <= (size_t)k)
            cap *= 2;
        char *b = realloc(g->buf, cap);
        if (!b) {
            g->oom = 1;
            return;
        }
        g->buf = b, g->cap = cap;
    }
}

static void emit(gen *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vemit(g, fmt, ap);
    va_end(ap);
}

/* An instruction (counted); the text ends without newline. */
#define INSN(g, ...) (emit(g, __VA_ARGS__), emit(g, "\n"), (g)->n.insns++)

/* Everything about VR register r's lane-0 contents is unknown from now on. */
static void forget(gen *g, unsigned r)
{
    g->ve_known[2 * r] = g->ve_known[2 * r + 1] = 0;
    g->is_base[r] = 0;
}

/* Set lane 0 of VE[v] to x, with one vmovi when x is a sign-extended 12-bit value, else
 * vmovi (low byte) + vmovh (high byte). */
static void set_ve0(gen *g, unsigned v, uint16_t x)
{
    if (g->ve_known[v] && g->ve_val[v] == x)
        return;
    if (x <= 2047 || x >= 0xF800) {
        INSN(g, "vmovi ve%u, %d", v, x <= 2047 ? (int)x : (int)x - 65536);
        g->n.setup++;
    } else {
        INSN(g, "vmovi ve%u, %u", v, x & 0xFFu);
        INSN(g, "vmovh ve%u, %u", v, x >> 8);
        g->n.setup += 2;
    }
    g->ve_known[v] = 1, g->ve_val[v] = x;
}

static void make_base(gen *g, unsigned r, uint64_t value)
{
    set_ve0(g, 2 * r, (uint16_t)value);
    set_ve0(g, 2 * r + 1, (uint16_t)(value >> 16));
    g->is_base[r] = 1, g->base_val[r] = value, g->base_use[r] = ++g->clock;
}

/* A register that is not busy and not in `avoid` (a bit mask), preferring one that holds no
 * base, else the least recently used base. Callers keep at most R - 2 registers busy or
 * avoided, so there is always one. */
static unsigned pick_reg(gen *g, unsigned avoid)
{
    int pick = -1;
    for (unsigned r = 0; r < g->R && pick < 0; r++)
        if (!g->busy[r] && !(avoid >> r & 1) && !g->is_base[r])
            pick = (int)r;
    if (pick < 0)
        for (unsigned r = 0; r < g->R; r++)
            if (!g->busy[r] && !(avoid >> r & 1) &&
                (pick < 0 || g->base_use[r] < g->base_use[pick]))
                pick = (int)r;
    forget(g, (unsigned)pick);
    return (unsigned)pick;
}

/* A base register whose window [value - 2048, value + 2047] holds addr: an existing one, or a
 * new one (value addr + 2048, so the window runs forward from addr). */
static unsigned base_for(gen *g, uint64_t addr, unsigned avoid)
{
    for (unsigned r = 0; r < g->R; r++)
        if (g->is_base[r] && addr + 2048 >= g->base_val[r] && addr <= g->base_val[r] + 2047) {
            g->base_use[r] = ++g->clock;
            return r;
        }
    unsigned r = pick_reg(g, avoid);
    make_base(g, r, addr + 2048);
    return r;
}

/* One tile: loads and feeds; the last feed drains row q of the C tile into VR[q]. */
static void tile_feeds(gen *g, unsigned I, unsigned J)
{
    const npk_opennpu_gemm_plan *p = g->p;
    unsigned K = p->K;
    /* operand registers: two that are neither busy nor the bases of this tile's panels */
    uint64_t a0 = p->a_addr + I * p->a_panel + 4, b0 = p->b_addr + J * p->b_panel;
    emit(g, "# tile rows %u..%u, columns %u..%u\n", K * I, K * I + K - 1, K * J, K * J + K - 1);
    for (unsigned u = 0; u < p->quads; u++) {
        unsigned rb = base_for(g, b0 + (uint64_t)u * 4 * K, 0);
        unsigned ra = base_for(g, a0 + (uint64_t)u * 4 * K, 1u << rb);
        unsigned ob = pick_reg(g, 1u << rb | 1u << ra);
        unsigned oa = pick_reg(g, 1u << rb | 1u << ra | 1u << ob);
        INSN(g, "ld.vr vr%u, %lld(vr%u)", ob,
             (long long)(b0 + (uint64_t)u * 4 * K) - (long long)g->base_val[rb], rb);
        INSN(g, "ld.vr vr%u, %lld(vr%u)", oa,
             (long long)(a0 + (uint64_t)u * 4 * K) - (long long)g->base_val[ra], ra);
        g->n.loads += 2;
        for (unsigned b = 0; b < 4 && 4 * u + b < p->Kd; b++) {
            unsigned t = 4 * u + b;
            int last = t == p->Kd - 1;
            INSN(g, "mma%s%s vr0, vx%u, vx%u", last ? ".last" : "", t ? ".keep" : "",
                 4 * ob + b, 4 * oa + b);
            g->n.feeds++;
        }
    }
    /* the drain writes VR[0 .. K-1] */
    for (unsigned r = 0; r < K; r++)
        forget(g, r);
}

/* Store the K rows of the tile now in VR[0 .. K-1]; I_next is a tile row whose A panel holds
 * an index word (for the parked value). */
static void tile_stores(gen *g, unsigned I, unsigned J)
{
    const npk_opennpu_gemm_plan *p = g->p;
    unsigned K = p->K, rows = p->M - K * I < K ? p->M - K * I : K;
    uint64_t row0 = p->c_addr + (uint64_t)K * I * p->ldc + 4ull * K * J;
    int park = K == g->R; /* no register survives the drain */
    for (unsigned r = 0; r < K; r++)
        g->busy[r] = r < rows;
    if (park) {
        INSN(g, "vsetlut.b vr0, 0      # park row 0 (VR0) in LUT bank B: lane 0 becomes a base");
        g->n.setup++;
        g->busy[0] = 0;
    }
    for (unsigned q = 0; q < rows; q++) {
        uint64_t a = row0 + q * p->ldc;
        if (park && q == 0) {
            make_base(g, 0, a + 2048);
            g->busy[0] = 1;
        }
        unsigned b = base_for(g, a, 0);
        INSN(g, "st.vr vr%u, %lld(vr%u)", q, (long long)a - (long long)g->base_val[b], b);
        g->n.stores++;
        g->busy[q] = 0;
    }
    if (park) {
        /* read the parked lane-0 int32 back: index bytes 0..3 in lane 0 of VX[4x .. 4x+3] */
        uint64_t idx = p->a_addr + (uint64_t)I * p->a_panel;
        unsigned c = base_for(g, row0, 0);
        unsigned bi = base_for(g, idx, 1u << c);
        unsigned x = pick_reg(g, 1u << c | 1u << bi);
        INSN(g, "ld.w vr%u, %lld(vr%u)", x, (long long)idx - (long long)g->base_val[bi], bi);
        for (unsigned b = 0; b < 4; b++)
            INSN(g, "vlut.b vx%u, vx%u", 4 * x + b, 4 * x + b);
        INSN(g, "st.w vr%u, %lld(vr%u)   # C[%u][%u]", x,
             (long long)row0 - (long long)g->base_val[c], c, K * I, K * J);
        g->n.loads++;
        g->n.stores++;
        g->n.setup += 7;
    }
}

npk_opennpu_gen *npk_opennpu_gen_new(unsigned K, unsigned L)
{
    gen *g = calloc(1, sizeof *g);
    if (g)
        g->K = K, g->R = L / 4 > MAX_VR ? MAX_VR : L / 4;
    return g;
}

void npk_opennpu_gen_free(npk_opennpu_gen *g)
{
    if (g)
        free(g->buf);
    free(g);
}

void npk_opennpu_gen_text(npk_opennpu_gen *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vemit(g, fmt, ap);
    va_end(ap);
}

void npk_opennpu_gen_insn(npk_opennpu_gen *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vemit(g, fmt, ap);
    va_end(ap);
    INSN(g, "%s", "");
}

unsigned npk_opennpu_gen_base(npk_opennpu_gen *g, uint64_t addr, unsigned avoid,
                              long long *offset)
{
    unsigned r = base_for(g, addr, avoid);
    *offset = (long long)addr - (long long)g->base_val[r];
    return r;
}

unsigned npk_opennpu_gen_reg(npk_opennpu_gen *g, unsigned avoid)
{
    return pick_reg(g, avoid);
}

void npk_opennpu_gen_busy(npk_opennpu_gen *g, unsigned vr, int busy)
{
    g->busy[vr] = busy;
}

void npk_opennpu_gen_clobber(npk_opennpu_gen *g, unsigned vr)
{
    forget(g, vr);
}

void npk_opennpu_gen_gemm(npk_opennpu_gen *g, const npk_opennpu_gemm_plan *p)
{
    g->p = p;
    emit(g,
         "# GEMM C = A * B, A %ux%u, B %ux%u, int8 -> int32, on K=%u L=%u (npukit GEMM "
         "generator)\n"
         "# A panels at %llu (%llu bytes each), B panels at %llu (%llu bytes each),\n"
         "# C at %llu, row stride %llu bytes, %llu bytes of slack after it\n",
         p->M, p->Kd, p->Kd, p->N, p->K, p->L, (unsigned long long)p->a_addr,
         (unsigned long long)p->a_panel, (unsigned long long)p->b_addr,
         (unsigned long long)p->b_panel, (unsigned long long)p->c_addr,
         (unsigned long long)p->ldc, 4ull * p->K);
    uint64_t tiles = 0, rows_stored = 0;
    /* Tile rows in increasing order; within one, tile columns in decreasing order, so that the
     * overhang of a right-edge tile is rewritten by the tiles stored after it. */
    for (unsigned I = 0; I < p->tiles_m; I++)
        for (unsigned Jr = p->tiles_n; Jr-- > 0;) {
            tile_feeds(g, I, Jr);
            tile_stores(g, I, Jr);
            tiles++;
            rows_stored += p->M - p->K * I < p->K ? p->M - p->K * I : p->K;
        }
    g->n.bound += (uint64_t)p->Kd * tiles + tiles * ((p->Kd + 1) / 2) + rows_stored +
                  (p->K == g->R ? tiles * (p->K - 1) : 0);
    g->p = NULL;
}

char *npk_opennpu_gen_finish(npk_opennpu_gen *g, npk_opennpu_gemm_counts *counts)
{
    char *text = g->oom ? NULL : g->buf;
    if (counts)
        *counts = g->n;
    if (g->oom)
        free(g->buf);
    g->buf = NULL;
    npk_opennpu_gen_free(g);
    return text;
}

char *npk_opennpu_gemm_program(const npk_opennpu_gemm_plan *p, npk_opennpu_gemm_counts *counts)
{
    gen *g = npk_opennpu_gen_new(p->K, p->L);
    if (!g)
        return NULL;
    npk_opennpu_gen_gemm(g, p);
    return npk_opennpu_gen_finish(g, counts);
}
