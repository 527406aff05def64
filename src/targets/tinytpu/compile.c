/* tinytpu schedule compiler (docs/spec/tinytpu.md Part E). One pass = a weight read at w, the
 * input read at x (x >= w + R_w), the switch at x + 1 and the side reads at the A13 offsets; the
 * next pass starts 2 idle cycles after the last GD write-back of the previous one (rule 4, the
 * simple safe rule). While it emits the cycles, the compiler plans the append-only memory and
 * computes, in the Q8.8 integer model of rule 9, every word the program writes. */
#include "targets/tinytpu/compile.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/npukit.h"
#include "num/num.h"
#include "targets/tinytpu/machine.h"

const char *const tt_region_kind_names[5] = {"data", "param", "result", "junk", "helper"};

/* ---- Q8.8 (A3): src/num's rules, on int values --------------------------------------------- */
int tt_q_mul(int a, int b)
{
    return npk_q88_mul((int16_t)a, (int16_t)b, NPK_QR_HALF_UP);
}
int tt_q_add(int a, int b)
{
    return npk_q88_add((int16_t)a, (int16_t)b);
}
int tt_q_sub(int a, int b)
{
    return npk_q88_sub((int16_t)a, (int16_t)b);
}

int tt_q_parse(const char *s, int16_t *out)
{
    uint16_t v;
    if (!s || tt_parse_q88_value(s, strlen(s), &v))
        return -1;
    *out = (int16_t)v;
    return 0;
}

/* ---- the description ------------------------------------------------------------------------ */
void tt_net_free(tt_net *net)
{
    free(net->X);
    free(net->Y);
    for (unsigned l = 0; l < TT_NET_MAX_LAYERS; l++)
        free(net->W[l]), free(net->b[l]);
    memset(net, 0, sizeof *net);
}

int tt_net_alloc(tt_net *net)
{
    if (net->L < 1 || net->L > TT_NET_MAX_LAYERS || net->B < 1)
        return -1;
    net->X = calloc((size_t)net->B * net->d[0], sizeof *net->X);
    net->Y = calloc((size_t)net->B * net->d[net->L], sizeof *net->Y);
    if (!net->X || !net->Y)
        return -1;
    for (unsigned l = 0; l < net->L; l++) {
        net->W[l] = calloc((size_t)net->d[l + 1] * net->d[l], sizeof *net->W[l]);
        net->b[l] = calloc(net->d[l + 1], sizeof *net->b[l]);
        if (!net->W[l] || !net->b[l])
            return -1;
    }
    return 0;
}

static void net_defaults(tt_net *net)
{
    memset(net, 0, sizeof *net);
    net->N = TT_DEFAULT_N;
    net->ub_words = TT_DEFAULT_UB;
    net->steps = 1;
    net->format = TT_FMT_ASM;
}

#define MAX_TOK 4096

/* Parse a description; see docs/tinytpu-compiler.md. */
int tt_net_parse(const char *src, const char *name, tt_net *net, char *err, size_t err_size)
{
    net_defaults(net);
    int rc = -1, have_alpha = 0, have_lr = 0, have_layers = 0;
    unsigned batch = 0, line_no = 0, alpha_line = 0, steps_line = 0, infer_line = 0, nx = 0, ny = 0, capx = 0, capy = 0;
    unsigned wrows[TT_NET_MAX_LAYERS] = {0}, have_b[TT_NET_MAX_LAYERS] = {0};
    int16_t *xs = NULL, *ys = NULL;
    char *tok[64];
    char buf[MAX_TOK];
    const char *p = src;
#define FAIL(...)                                                                          \
    do {                                                                                   \
        int k_ = snprintf(err, err_size, "%s:%u: ", name, line_no);                        \
        if (k_ >= 0 && (size_t)k_ < err_size)                                              \
            snprintf(err + k_, err_size - (size_t)k_, __VA_ARGS__);                        \
        goto out;                                                                          \
    } while (0)
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        line_no++;
        if (n >= sizeof buf)
            FAIL("line too long (more than %u characters)", MAX_TOK - 1);
        memcpy(buf, p, n);
        buf[n] = 0;
        p += n + (e ? 1 : 0);
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = 0;
        unsigned nt = 0;
        for (char *s = strtok(buf, " \t\r,"); s; s = strtok(NULL, " \t\r,")) {
            if (nt == 64)
                FAIL("too many values on one line (at most 63)");
            tok[nt++] = s;
        }
        if (!nt)
            continue;
        const char *kw = tok[0];
        unsigned nv = nt - 1;
        /* integer settings */
        if (!strcmp(kw, "lanes") || !strcmp(kw, "ub_words") || !strcmp(kw, "steps") ||
            !strcmp(kw, "batch")) {
            if (nv != 1)
                FAIL("'%s' takes one integer", kw);
            char *end;
            unsigned long v = strtoul(tok[1], &end, 0);
            if (*end || tok[1][0] == '-' || v > 1000000)
                FAIL("'%s': bad integer '%s'", kw, tok[1]);
            if (!strcmp(kw, "lanes")) {
                if (v < 2 || v > TT_MAX_N)
                    FAIL("lanes %lu out of range (2..%u)", v, TT_MAX_N);
                net->N = (unsigned)v;
            } else if (!strcmp(kw, "ub_words")) {
                if (v < 1 || v > TT_MAX_UB)
                    FAIL("ub_words %lu out of range (1..%u)", v, TT_MAX_UB);
                net->ub_words = (unsigned)v;
            } else if (!strcmp(kw, "steps")) {
                if (v < 1)
                    FAIL("steps must be at least 1 (an inference is 'inference yes')");
                net->steps = (unsigned)v;
                steps_line = line_no;
            } else {
                if (v < 1)
                    FAIL("batch must be at least 1");
                batch = (unsigned)v;
            }
        } else if (!strcmp(kw, "alpha") || !strcmp(kw, "lr") || !strcmp(kw, "inv")) {
            int16_t q;
            if (nv != 1)
                FAIL("'%s' takes one Q8.8 value", kw);
            if (tt_q_parse(tok[1], &q))
                FAIL("'%s': bad value '%s' (a decimal such as 0.75, or 0x00C0)", kw, tok[1]);
            if (kw[0] == 'a')
                net->alpha = (uint16_t)q, have_alpha = 1;
            else if (kw[0] == 'l')
                net->lr = (uint16_t)q, have_lr = 1;
            else
                net->inv = (uint16_t)q, net->inv_set = 1;
        } else if (!strcmp(kw, "layers")) {
            if (have_layers)
                FAIL("'layers' given twice");
            if (nv < 2 || nv > TT_NET_MAX_LAYERS + 1)
                FAIL("'layers' needs 2 to %u widths (d0 d1 ... dL)", TT_NET_MAX_LAYERS + 1);
            for (unsigned i = 0; i < nv; i++) {
                char *end;
                unsigned long v = strtoul(tok[1 + i], &end, 0);
                if (*end || tok[1 + i][0] == '-' || v < 1 || v > 65535)
                    FAIL("'layers': bad width '%s'", tok[1 + i]);
                net->d[i] = (unsigned)v;
            }
            net->L = nv - 1;
            have_layers = 1;
            /* every weight and bias has a UB word of its own in the host load (words_needed):
             * more of them than the largest UB holds can never compile, so refuse them before
             * allocating (a 22-byte file asked for 5.5 GB: 'layers 0xcccc 0xcccc 7') */
            unsigned long params = 0;
            for (unsigned l = 0; l < net->L; l++)
                params += (unsigned long)net->d[l + 1] * net->d[l] + net->d[l + 1];
            if (params > TT_MAX_UB)
                FAIL("'layers': %lu weights and biases, more than the %u words of the largest "
                     "unified buffer (C3; each has a word of its own)", params, TT_MAX_UB);
            for (unsigned l = 0; l < net->L; l++) {
                net->W[l] = calloc((size_t)net->d[l + 1] * net->d[l], sizeof *net->W[l]);
                net->b[l] = calloc(net->d[l + 1], sizeof *net->b[l]);
                if (!net->W[l] || !net->b[l])
                    FAIL("out of memory");
            }
        } else if (!strcmp(kw, "format")) {
            int f = nv == 1 ? tt_format_find(tok[1]) : -1;
            if (f < 0)
                FAIL("'format' takes one of asm, w88, w94, w130, wfull, port");
            net->format = (tt_format)f;
            net->format_line = line_no;
        } else if (!strcmp(kw, "bias_update")) {
            if (nv == 1 && !strcmp(tok[1], "auto"))
                net->bias_mode = TT_BIAS_AUTO;
            else if (nv == 1 && !strcmp(tok[1], "transition"))
                net->bias_mode = TT_BIAS_TRANSITION;
            else if (nv == 1 && !strcmp(tok[1], "identity"))
                net->bias_mode = TT_BIAS_IDENTITY;
            else
                FAIL("'bias_update' takes auto, transition or identity");
        } else if (!strcmp(kw, "inference")) {
            if (nv == 1 && !strcmp(tok[1], "yes"))
                infer_line = line_no;
            else if (nv == 1 && !strcmp(tok[1], "no"))
                infer_line = 0;
            else
                FAIL("'inference' takes yes or no");
        } else if (!strcmp(kw, "tile")) {
            if (nv == 1 && !strcmp(tok[1], "yes"))
                net->tile = 1;
            else if (nv == 1 && !strcmp(tok[1], "no"))
                net->tile = 0;
            else
                FAIL("'tile' takes yes or no");
        } else if (!strcmp(kw, "eval")) {
            if (nv == 1 && !strcmp(tok[1], "yes"))
                net->eval = 1;
            else if (nv == 1 && !strcmp(tok[1], "no"))
                net->eval = 0;
            else
                FAIL("'eval' takes yes or no");
        } else if (!strncmp(kw, "alpha", 5) && isdigit((unsigned char)kw[5])) {
            if (!have_layers)
                FAIL("'%s' before 'layers' (the widths must come first)", kw);
            char *end;
            unsigned long v = strtoul(kw + 5, &end, 10);
            int16_t q;
            if (*end || v < 1 || v > net->L)
                FAIL("unknown keyword '%s' (layers are 1 .. %u)", kw, net->L);
            if (nv != 1 || tt_q_parse(tok[1], &q))
                FAIL("'%s' takes one Q8.8 value (a decimal such as 0.75, or 0x00C0)", kw);
            net->layer_alpha[v - 1] = (uint16_t)q;
            net->layer_alpha_set |= 1u << (v - 1);
            alpha_line = line_no;
        } else if (!strcmp(kw, "x") || !strcmp(kw, "y") ||
                   ((kw[0] == 'w' || kw[0] == 'b') && isdigit((unsigned char)kw[1]))) {
            if (!have_layers)
                FAIL("'%s' before 'layers' (the widths must come first)", kw);
            unsigned want, l = 0;
            if (kw[0] == 'x')
                want = net->d[0];
            else if (kw[0] == 'y')
                want = net->d[net->L];
            else {
                char *end;
                unsigned long v = strtoul(kw + 1, &end, 10);
                if (*end || v < 1 || v > net->L)
                    FAIL("unknown keyword '%s' (layers are 1 .. %u)", kw, net->L);
                l = (unsigned)v - 1;
                want = kw[0] == 'w' ? net->d[l] : net->d[l + 1];
            }
            if (nv != want)
                FAIL("'%s' needs %u value%s per line, got %u", kw, want, want == 1 ? "" : "s",
                     nv);
            int16_t *dst;
            if (kw[0] == 'x' || kw[0] == 'y') {
                int16_t **arr = kw[0] == 'x' ? &xs : &ys;
                unsigned *cnt = kw[0] == 'x' ? &nx : &ny, *cap = kw[0] == 'x' ? &capx : &capy;
                if (*cnt == 65535)
                    FAIL("too many batch rows");
                if (*cnt == *cap) {
                    unsigned nc = *cap ? *cap * 2 : 16;
                    int16_t *na = realloc(*arr, (size_t)nc * want * sizeof *na);
                    if (!na)
                        FAIL("out of memory");
                    *arr = na, *cap = nc;
                }
                dst = *arr + (size_t)(*cnt)++ * want;
            } else if (kw[0] == 'w') {
                if (wrows[l] == net->d[l + 1])
                    FAIL("'%s': more than %u rows (W%u is %u x %u, out x in)", kw, net->d[l + 1],
                         l + 1, net->d[l + 1], net->d[l]);
                dst = net->W[l] + (size_t)wrows[l]++ * want;
            } else {
                if (have_b[l])
                    FAIL("'%s' given twice", kw);
                have_b[l] = 1;
                dst = net->b[l];
            }
            for (unsigned i = 0; i < nv; i++)
                if (tt_q_parse(tok[1 + i], &dst[i]))
                    FAIL("'%s': bad value '%s' (a decimal such as -0.4939, or 0xFF82)", kw,
                         tok[1 + i]);
        } else {
            FAIL("unknown keyword '%s'", kw);
        }
    }
    line_no++; /* messages about what is missing point just past the end */
    if (!have_layers)
        FAIL("no 'layers' line");
    if (infer_line && steps_line) {
        line_no = infer_line > steps_line ? infer_line : steps_line;
        FAIL("'inference yes' and 'steps' (line %u): an inference runs no training step",
             infer_line < steps_line ? infer_line : steps_line);
    }
    if (infer_line)
        net->steps = 0; /* inference: the forward passes only */
    if (net->steps) { /* training needs α, lr and the targets; inference none of them */
        if (!have_alpha)
            FAIL("no 'alpha' line");
        if (!have_lr)
            FAIL("no 'lr' line");
        if (net->layer_alpha_set && !net->tile) {
            line_no = alpha_line;
            FAIL("per-layer alpha is for inference only (steps 0) or the tiled training "
                 "schedule ('tile yes'): the untiled training uses one alpha in the forward and "
                 "the derivative stages");
        }
    }
    if (!nx)
        FAIL("no 'x' rows (the batch inputs)");
    if (ny != nx && (net->steps || ny))
        FAIL("%u 'x' rows but %u 'y' rows", nx, ny);
    if (batch && batch != nx)
        FAIL("'batch %u' but %u 'x' rows", batch, nx);
    for (unsigned l = 0; l < net->L; l++) {
        if (wrows[l] != net->d[l + 1])
            FAIL("W%u has %u of its %u rows ('w%u' lines)", l + 1, wrows[l], net->d[l + 1],
                 l + 1);
        if (!have_b[l])
            FAIL("no 'b%u' line", l + 1);
    }
    net->B = nx;
    net->X = xs, net->Y = ys;
    xs = ys = NULL;
    rc = 0;
out:
    free(xs);
    free(ys);
    return rc;
#undef FAIL
}

/* ---- compiling ------------------------------------------------------------------------------ */
typedef struct rd {
    int sel;                  /* channel */
    unsigned addr, rows, cols;
    int T;
    unsigned off;             /* side reads: issue at x + off */
} rd;

typedef struct ctx {
    const tt_net *net;
    tt_compiled *c;
    char *err;
    size_t err_size;
    unsigned N;
    uint8_t pathway;          /* level of the cycles being emitted */
    uint16_t leak;            /* α of the cycles being emitted (net->alpha but in inference) */
    unsigned wp;              /* planned append pointer */
    size_t cap_map;
    uint16_t inv;             /* 2/B level of the cycles being emitted (c->inv but in sums) */
} ctx;

static int cfail(ctx *x, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int cfail(ctx *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->err, x->err_size, fmt, ap);
    va_end(ap);
    return -1;
}

static int emit(ctx *x, tt_cycle *cy, const tt_hostw *hw, unsigned nh)
{
    cy->pathway = x->pathway;
    cy->leak = x->leak;
    cy->inv = x->inv;
    cy->lr = x->net->lr;
    if (tt_program_add(&x->c->prog, cy, hw, nh))
        return cfail(x, "tinytpu compile: out of memory");
    return 0;
}

static int idle(ctx *x, unsigned n)
{
    while (n--) {
        tt_cycle cy = {0};
        if (emit(x, &cy, NULL, 0))
            return -1;
    }
    return 0;
}

/* Skew-order position of (r, c) in an R x C matrix (A8): the elements of the anti-diagonals
 * e < d = r + c come first, Σ_{e<d} (min(e, R−1) + 1 − max(0, e − C + 1)) in closed form, then
 * r's place on its own diagonal (rows max(0, d − C + 1) … in order). */
static unsigned skew_pos(unsigned R, unsigned C, unsigned r, unsigned c)
{
    unsigned long d = (unsigned long)r + c;
    unsigned long p = d <= R ? d * (d + 1) / 2 : (unsigned long)R * (R + 1) / 2 + (d - R) * R;
    if (d > C)
        p -= (d - C) * (d - C + 1) / 2;
    return (unsigned)(p + r - (d + 1 >= C ? d + 1 - C : 0));
}

/* Position of (r, c) in a rows x cols matrix stored as blocks of at most N x N: block (bt, ft)
 * (rows t0 = bt·N .. t0 + t - 1, columns f0 = ft·N .. f0 + f - 1) starts at t0·cols + f0·t and
 * holds its t x f elements in skew order (A8); block rows in order, the blocks of a block row
 * in order. This is the shape one read takes. With cols <= N it is the batch tiles of rule 7
 * (rows <= N: the skew order of A8; cols <= 2: row-major), so every layout of the machine's
 * results is this one; weights W (out x in) of a tiled layer are stored the same way, and a
 * 1 x C vector is row-major. */
static unsigned tile_pos(unsigned N, unsigned R, unsigned C, unsigned r, unsigned c)
{
    unsigned t0 = r / N * N, t = R - t0 < N ? R - t0 : N;
    unsigned f0 = c / N * N, f = C - f0 < N ? C - f0 : N;
    return t0 * C + f0 * t + skew_pos(t, f, r - t0, c - f0);
}

/* Address of block (bt, ft) of such a matrix, and its shape. */
static unsigned blk_addr(unsigned N, unsigned R, unsigned C, unsigned t0, unsigned f0,
                         unsigned *t, unsigned *f)
{
    *t = R - t0 < N ? R - t0 : N;
    *f = C - f0 < N ? C - f0 : N;
    return t0 * C + f0 * *t;
}

static int add_region(ctx *x, const char *name, tt_region_kind kind, int step, unsigned addr,
                      unsigned rows, unsigned cols)
{
    tt_compiled *c = x->c;
    if (c->n_map == x->cap_map) {
        size_t nc = x->cap_map ? 2 * x->cap_map : 32;
        tt_region *nm = realloc(c->map, nc * sizeof *nm);
        if (!nm)
            return cfail(x, "tinytpu compile: out of memory");
        c->map = nm, x->cap_map = nc;
    }
    tt_region *r = &c->map[c->n_map++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->kind = kind, r->step = step, r->addr = addr, r->rows = rows, r->cols = cols;
    return 0;
}

typedef unsigned (*pos_fn)(unsigned N, unsigned R, unsigned C, unsigned r, unsigned c);

/* Store matrix m (rows x cols, row-major) into the prediction at addr in the layout `pos`. */
static void put_in(ctx *x, pos_fn pos, unsigned addr, const int *m, unsigned rows, unsigned cols)
{
    for (unsigned r = 0; r < rows; r++)
        for (unsigned j = 0; j < cols; j++)
            x->c->pred[addr + pos(x->N, rows, cols, r, j)] = (uint16_t)(m[r * cols + j] & 0xFFFF);
}

/* ... in the layout of results (tile_pos) */
static void put(ctx *x, unsigned addr, const int *m, unsigned rows, unsigned cols)
{
    put_in(x, tile_pos, addr, m, rows, cols);
}

/* Append a VPU result (rows x cols) at wp: map entry + prediction. Returns its address. */
static int append(ctx *x, const char *name, tt_region_kind kind, int step, const int *m,
                  unsigned rows, unsigned cols, unsigned *addr)
{
    *addr = x->wp;
    if (add_region(x, name, kind, step, x->wp, rows, cols))
        return -1;
    put(x, x->wp, m, rows, cols);
    x->wp += rows * cols;
    return 0;
}

/* The weight-read shape rule of rule 5 (A7.4): a K x 1 vector read untransposed becomes a
 * transposed read of the 1 x K view, an r x 1 vector read transposed an untransposed read of
 * the 1 x r view. Same M, same column-size value; applied for every N (harmless for N >= 3). */
static rd weight_read(unsigned addr, unsigned rows, unsigned cols, int T)
{
    rd r = {TT_CH_WEIGHT, addr, rows, cols, T, 0};
    if (cols == 1 && rows >= 2)
        r.T = !T, r.rows = 1, r.cols = rows;
    return r;
}

/* One pass. Emits cycles w .. last + 2 where last is the edge of the last UB append; the GD
 * write-backs end at last + 1 and the next pass may start at last + 3 (rule 4). */
static int pass(ctx *x, uint8_t pathway, unsigned S, rd wt, rd in, unsigned R_x, unsigned C_out,
                const rd *sides, unsigned n_sides)
{
    unsigned N = x->N;
    /* never a broken weight-walk shape for N = 2 (rule 5) */
    if (N == 2 && ((!wt.T && wt.cols == 1 && wt.rows >= 2) ||
                   (wt.T && wt.rows >= 2 && wt.cols != 2)))
        return cfail(x, "tinytpu compile: internal error: broken weight-read shape %ux%u%s",
                     wt.rows, wt.cols, wt.T ? " t" : "");
    x->pathway = pathway;
    unsigned R_w = wt.T ? wt.cols : wt.rows;
    unsigned gap = R_w > 2 ? R_w : 2; /* x >= w + R_w; 2 as in the reference program */
    tt_cycle cy = {0};
    cy.start = 1, cy.sel = (uint16_t)wt.sel, cy.addr = (uint16_t)wt.addr;
    cy.rows = (uint16_t)wt.rows, cy.cols = (uint16_t)wt.cols, cy.T = (uint8_t)wt.T;
    if (emit(x, &cy, NULL, 0) || idle(x, gap - 1))
        return -1;
    size_t xc = x->c->prog.n + 1; /* cycle number of the input read */
    memset(&cy, 0, sizeof cy);
    cy.start = 1, cy.sel = (uint16_t)in.sel, cy.addr = (uint16_t)in.addr;
    cy.rows = (uint16_t)in.rows, cy.cols = (uint16_t)in.cols, cy.T = (uint8_t)in.T;
    if (emit(x, &cy, NULL, 0))
        return -1;
    size_t last = xc + N + S + 1 + (R_x - 1) + (C_out - 1);
    for (size_t k = xc + 1; k <= last + 2; k++) {
        memset(&cy, 0, sizeof cy);
        cy.sw = k == xc + 1;
        for (unsigned i = 0; i < n_sides; i++)
            if (xc + sides[i].off == k) {
                cy.start = 1, cy.sel = (uint16_t)sides[i].sel, cy.addr = (uint16_t)sides[i].addr;
                cy.rows = (uint16_t)sides[i].rows, cy.cols = (uint16_t)sides[i].cols;
            }
        if (emit(x, &cy, NULL, 0))
            return -1;
    }
    return 0;
}

/* Host load: the words of a sequence, up to N per cycle, the higher lane first (A6.2). */
static int host_load(ctx *x, const int *words, unsigned n)
{
    unsigned N = x->N;
    x->pathway = 0;
    for (unsigned i = 0; i < n; i += N) {
        unsigned m = n - i < N ? n - i : N;
        tt_hostw hw[TT_MAX_N];
        for (unsigned k = 0; k < m; k++) { /* word i + j on lane N - 1 - j; lanes ascending */
            unsigned lane = N - m + k, j = N - 1 - lane;
            hw[k].lane = (uint16_t)lane, hw[k].value = (uint16_t)(words[i + j] & 0xFFFF);
        }
        tt_cycle cy = {0};
        if (emit(x, &cy, hw, m))
            return -1;
    }
    x->wp += n;
    return 0;
}

static int lrelu(int z, int alpha)
{
    return z >= 0 ? z : tt_q_mul(z, alpha);
}

/* Input tiles of layer l: 1 when it fits the array, else ceil(d_l / N) (inference, B = 1). */
static unsigned in_tiles(const tt_net *n, unsigned l)
{
    return (n->d[l] + n->N - 1) / n->N;
}

/* A layer wider than the array (inference, batch 1): for each input tile i (of at most N
 * inputs), one forward pass per output tile o over the N x N weight block (o, i). The bias
 * vector of the pass is b's tile o for i = 0, and for i > 0 the previous input tile's result
 * of output tile o, so the VPU's bias stage adds the partial sums. Passes before the last
 * input tile run with α = 1.0 (h = z exactly); the last with the layer's α. Each round of
 * output tiles appends one 1 x d_out row (row-major: B = 1): the partial sums (junk) and, last,
 * H. Model: z = add(mul(x_k, w_k), z) over the tile's inputs in order, then add(z, bias). */
static int wide_layer(ctx *x, unsigned l, unsigned ain, unsigned aw, unsigned ab, const int *in,
                      const int *W, const int *b, int *h, int la, unsigned *ah)
{
    const unsigned N = x->N, din = x->net->d[l], dout = x->net->d[l + 1];
    const unsigned nti = in_tiles(x->net, l);
    unsigned prev = ab; /* where the bias vector of round i starts */
    char nm[32];
    for (unsigned i = 0; i < nti; i++) {
        unsigned i0 = i * N, ti = din - i0 < N ? din - i0 : N, last = i + 1 == nti;
        for (unsigned j = 0; j < dout; j++) {
            int z = 0;
            for (unsigned k = i0; k < i0 + ti; k++)
                z = tt_q_add(tt_q_mul(in[k], W[(size_t)j * din + k]), z);
            z = tt_q_add(z, i == 0 ? b[j] : h[j]);
            h[j] = last ? lrelu(z, la) : z;
        }
        x->leak = last ? (uint16_t)la : 0x0100;
        for (unsigned o0 = 0; o0 < dout; o0 += N) {
            unsigned to = dout - o0 < N ? dout - o0 : N;
            rd wt = weight_read(aw + o0 * din + i0 * to, to, ti, 1);
            rd in_rd = {TT_CH_INPUT, ain + i0, 1, ti, 0, 0};
            rd sides[] = {{TT_CH_BIAS, prev + o0, 1, to, 0, N}};
            if (pass(x, 0xC, 2, wt, in_rd, 1, to, sides, 1))
                return -1;
        }
        if (last)
            snprintf(nm, sizeof nm, "H%u", l + 1);
        else
            snprintf(nm, sizeof nm, "H%u partial %u", l + 1, i + 1);
        if (append(x, nm, last ? TT_R_RESULT : TT_R_JUNK, (int)x->net->steps, h, 1, dout, &prev))
            return -1;
    }
    *ah = prev;
    return 0;
}

/* ---- training with tiling (docs/tinytpu-compiler.md, "Training with tiling") --------------- */
#define Q_ONE 0x0100    /* 1.0 */
#define Q_NEG_ONE -256  /* -1.0 (0xFF00) */

static unsigned ntiles(unsigned d, unsigned N)
{
    return (d + N - 1) / N;
}

/* α of layer l: its own (layer_alpha) or the common one. */
static int lay_alpha(const tt_net *n, unsigned l)
{
    return n->layer_alpha_set >> l & 1 ? (int16_t)n->layer_alpha[l] : (int16_t)n->alpha;
}

/* A hidden ReLU layer (α = 0) keeps Z: H = max(Z, 0) is never negative, so the derivative
 * stage (which tests the sign of its H input, A9.3) is given Z instead of H. */
static int keep_z(const tt_net *n, unsigned l)
{
    return l + 1 < n->L && lay_alpha(n, l) == 0;
}

/* The tiled schedule's state: the Q8.8 model (act, dz, W, bv as in tt_compile; z: Z of each
 * layer, g: backward sums), the addresses, and the identity matrices I_k (k x k) it loads. */
typedef struct wide {
    int **act, **dz, **W, **bv;
    int *z[TT_NET_MAX_LAYERS];
    int *g, *blk;                          /* B x max width; N x N */
    unsigned *asum;                        /* block addresses of running sums */
    unsigned *az[TT_NET_MAX_LAYERS];       /* block addresses of a kept Z */
    unsigned aX, aY, *aW, *ab, *aH, *adz;
    unsigned aI[TT_MAX_N + 1];
    int step;
} wide;

/* A contraction in · M: in is B x K (the model's values; in the UB at ain, tile layout), the
 * result B x F. M is W (wr x wc, out x in, at aw in the tile layout): fwd, M = Wᵀ (block (j, k)
 * of W read transposed), else M = W (block (k, j) read untransposed). */
typedef struct ctr {
    const int *in;
    unsigned ain, K, F;
    const int *W;
    unsigned aw, wr, wc;
    int fwd;
} ctr;

static int ctr_m(const ctr *c, unsigned k, unsigned j)
{
    return c->fwd ? c->W[(size_t)j * c->wc + k] : c->W[(size_t)k * c->wc + j];
}

/* The running sums of output block (rows t0 .., columns j0 .., t x f) of a contraction over
 * n = ceil(K / N) input tiles. Pass k multiplies input tile k by its weight block; from the
 * second pass on, the loss stage (pathway 0010, A9.3) folds in the previous pass's block, read
 * through the Y channel at x + N, with the 2/B level at -1.0 (exact: mul(v, -1.0) = -v, A3):
 * s_1 = -(p_0 + bias), s_{k+1} = -(p_k - s_k), and the last pass, at +1.0, gives
 * A = p_{n-1} - s_{n-1}: the sum, with each step's saturation. The first pass adds the bias
 * (bias stage, at x + N) when `bias` is set. With n = 1, A = p_0 (+ bias). Every pass appends
 * its block (junk; the last one, A, as `last_kind`); out (t x f) receives A, *aout its address. */
static int chain(ctx *x, wide *w, const ctr *c, unsigned t0, unsigned j0, const int *bias,
                 unsigned abias, const char *name, tt_region_kind last_kind, unsigned *aout)
{
    const unsigned N = x->N, B = x->net->B, n = ntiles(c->K, N);
    unsigned t, f, prev = 0;
    blk_addr(N, B, c->F, t0, j0, &t, &f);
    int *out = w->blk;
    for (unsigned k = 0; k < n; k++) {
        unsigned k0 = k * N, tk, tt;
        const int first = k == 0, lastp = k + 1 == n, inv = lastp ? Q_ONE : Q_NEG_ONE;
        unsigned ia = blk_addr(N, B, c->K, t0, k0, &tt, &tk);
        for (unsigned r = 0; r < t; r++)
            for (unsigned j = 0; j < f; j++) {
                int p = 0;
                for (unsigned q = k0; q < k0 + tk; q++)
                    p = tt_q_add(tt_q_mul(c->in[(size_t)(t0 + r) * c->K + q], ctr_m(c, q, j0 + j)),
                                 p);
                if (first && bias)
                    p = tt_q_add(p, bias[j0 + j]);
                int *o = &out[r * f + j];
                *o = n == 1 ? p : tt_q_mul(tt_q_sub(p, first ? 0 : *o), inv);
            }
        unsigned wt_, wf_;
        rd wt = c->fwd ? weight_read(c->aw + blk_addr(N, c->wr, c->wc, j0, k0, &wt_, &wf_), f, tk, 1)
                       : weight_read(c->aw + blk_addr(N, c->wr, c->wc, k0, j0, &wt_, &wf_), tk, f, 0);
        rd in = {TT_CH_INPUT, c->ain + ia, t, tk, 0, 0};
        rd sides[1];
        unsigned ns = 0, S;
        uint8_t pw;
        if (first && bias) {
            sides[ns++] = (rd){TT_CH_BIAS, abias + j0, t, f, 0, N};
            pw = n == 1 ? 0x8 : 0xA, S = n == 1 ? 1 : 2;
        } else {
            if (!first)
                sides[ns++] = (rd){TT_CH_Y, prev, t, f, 0, N};
            pw = n == 1 ? 0x0 : 0x2, S = n == 1 ? 0 : 1;
        }
        x->inv = n == 1 ? x->c->inv : (uint16_t)inv;
        int rc = pass(x, pw, S, wt, in, t, f, sides, ns);
        x->inv = x->c->inv;
        if (rc)
            return -1;
        char nm[32];
        if (lastp)
            snprintf(nm, sizeof nm, "%s", name);
        else
            snprintf(nm, sizeof nm, "%s sum %u", name, k + 1);
        if (append(x, nm, lastp ? last_kind : TT_R_JUNK, w->step, out, t, f, &prev))
            return -1;
    }
    *aout = prev;
    return 0;
}

/* Copy block (t0, j0) of the B x F matrix m into w->blk (t x f, row-major) or back. */
static void blk_io(const ctx *x, wide *w, int *m, unsigned F, unsigned t0, unsigned j0, int put)
{
    unsigned t, f;
    blk_addr(x->N, x->net->B, F, t0, j0, &t, &f);
    for (unsigned r = 0; r < t; r++)
        for (unsigned j = 0; j < f; j++) {
            int *e = &m[(size_t)(t0 + r) * F + j0 + j];
            if (put)
                *e = w->blk[r * f + j];
            else
                w->blk[r * f + j] = *e;
        }
}

/* The forward passes of layer l: H_l (act[l + 1]) appended as one B x d_out matrix. With one
 * input tile and no kept Z, one pass (1100) per block; else the running sums of every block
 * (Z: A plus the bias), then per block an identity pass with the leaky ReLU only (0100). */
static int wide_forward(ctx *x, wide *w, unsigned l, int train)
{
    const tt_net *net = x->net;
    const unsigned N = x->N, B = net->B, din = net->d[l], dout = net->d[l + 1];
    const int la = lay_alpha(net, l), keep = train && keep_z(net, l);
    unsigned ain = l == 0 ? w->aX : w->aH[l], t, f;
    char nm[32];
    x->leak = (uint16_t)la;
    ctr c = {w->act[l], ain, din, dout, w->W[l], w->aW[l], dout, din, 1};
    if (ntiles(din, N) == 1 && !keep) {
        for (unsigned t0 = 0; t0 < B; t0 += N)
            for (unsigned o0 = 0; o0 < dout; o0 += N) {
                unsigned ia = blk_addr(N, B, din, t0, 0, &t, &f);
                blk_addr(N, B, dout, t0, o0, &t, &f);
                unsigned wt_, wf_;
                rd wt = weight_read(w->aW[l] + blk_addr(N, dout, din, o0, 0, &wt_, &wf_), f, din, 1);
                rd in = {TT_CH_INPUT, ain + ia, t, din, 0, 0};
                rd sides[] = {{TT_CH_BIAS, w->ab[l] + o0, t, f, 0, N}};
                if (pass(x, 0xC, 2, wt, in, t, f, sides, 1))
                    return -1;
            }
    } else {
        snprintf(nm, sizeof nm, "Z%u", l + 1);
        unsigned bi = 0;
        for (unsigned t0 = 0; t0 < B; t0 += N)
            for (unsigned o0 = 0; o0 < dout; o0 += N, bi++) {
                if (chain(x, w, &c, t0, o0, w->bv[l], w->ab[l], nm,
                          keep ? TT_R_RESULT : TT_R_JUNK, &w->asum[bi]))
                    return -1;
                blk_io(x, w, w->z[l], dout, t0, o0, 1);
                if (keep)
                    w->az[l][bi] = w->asum[bi];
            }
        bi = 0;
        for (unsigned t0 = 0; t0 < B; t0 += N)
            for (unsigned o0 = 0; o0 < dout; o0 += N, bi++) {
                blk_addr(N, B, dout, t0, o0, &t, &f);
                rd wt = weight_read(w->aI[f], f, f, 0);
                rd in = {TT_CH_INPUT, w->asum[bi], t, f, 0, 0};
                if (pass(x, 0x4, 1, wt, in, t, f, NULL, 0))
                    return -1;
            }
    }
    /* model: H = lrelu(Z), Z = the sums (the direct pass computes the same per element) */
    for (unsigned r = 0; r < B; r++)
        for (unsigned j = 0; j < dout; j++) {
            int z;
            if (ntiles(din, N) == 1 && !keep) {
                z = 0;
                for (unsigned k = 0; k < din; k++)
                    z = tt_q_add(tt_q_mul(w->act[l][(size_t)r * din + k],
                                          w->W[l][(size_t)j * din + k]), z);
                z = tt_q_add(z, w->bv[l][j]);
                w->z[l][(size_t)r * dout + j] = z;
            } else {
                z = w->z[l][(size_t)r * dout + j];
            }
            w->act[l + 1][(size_t)r * dout + j] = lrelu(z, la);
        }
    snprintf(nm, sizeof nm, "H%u", l + 1);
    x->leak = net->alpha;
    return append(x, nm, TT_R_RESULT, w->step, w->act[l + 1], B, dout, &w->aH[l + 1]);
}

/* One training step of the tiled schedule; returns the loss of the step's forward output. */
static int wide_step(ctx *x, wide *w, double *loss_out)
{
    const tt_net *net = x->net;
    const unsigned N = x->N, B = net->B, L = net->L, dL = net->d[L];
    const int lr = (int16_t)net->lr, inv = (int16_t)x->c->inv;
    unsigned t, f;
    char nm[32];
    if (net->update_only) { /* dZ_1 given (in Y's place): the updates alone */
        for (size_t i = 0; i < (size_t)B * dL; i++)
            w->dz[L - 1][i] = net->Y[i];
        w->adz[L - 1] = w->aY;
        *loss_out = 0;
    }
    for (unsigned l = 0; l + 1 < L && !net->update_only; l++)
        if (wide_forward(x, w, l, 1))
            return -1;
    /* ---- transition: dZ_L = lrelu'(H) (2/B)(H - Y), H = lrelu(Z_L) ---- */
    if (!net->update_only) {
        const unsigned l = L - 1, din = net->d[l];
        const int la = lay_alpha(net, l);
        unsigned ain = l == 0 ? w->aX : w->aH[l];
        x->leak = (uint16_t)la;
        double loss = 0;
        if (ntiles(din, N) == 1) {
            for (unsigned t0 = 0; t0 < B; t0 += N)
                for (unsigned o0 = 0; o0 < dL; o0 += N) {
                    unsigned ia = blk_addr(N, B, din, t0, 0, &t, &f);
                    unsigned ay = blk_addr(N, B, dL, t0, o0, &t, &f), wt_, wf_;
                    rd wt = weight_read(w->aW[l] + blk_addr(N, dL, din, o0, 0, &wt_, &wf_), f,
                                        din, 1);
                    rd in = {TT_CH_INPUT, ain + ia, t, din, 0, 0};
                    rd sides[] = {{TT_CH_BIAS, w->ab[l] + o0, t, f, 0, N},
                                  {TT_CH_Y, w->aY + ay, t, f, 0, N + 2}};
                    if (pass(x, 0xF, 4, wt, in, t, f, sides, 2))
                        return -1;
                }
            for (unsigned r = 0; r < B; r++)
                for (unsigned j = 0; j < dL; j++) {
                    int z = 0;
                    for (unsigned k = 0; k < din; k++)
                        z = tt_q_add(tt_q_mul(w->act[l][(size_t)r * din + k],
                                              w->W[l][(size_t)j * din + k]), z);
                    w->z[l][(size_t)r * dL + j] = tt_q_add(z, w->bv[l][j]);
                }
        } else {
            ctr c = {w->act[l], ain, din, dL, w->W[l], w->aW[l], dL, din, 1};
            snprintf(nm, sizeof nm, "Z%u", L);
            unsigned bi = 0;
            for (unsigned t0 = 0; t0 < B; t0 += N)
                for (unsigned o0 = 0; o0 < dL; o0 += N, bi++) {
                    if (chain(x, w, &c, t0, o0, w->bv[l], w->ab[l], nm, TT_R_JUNK, &w->asum[bi]))
                        return -1;
                    blk_io(x, w, w->z[l], dL, t0, o0, 1);
                }
            bi = 0;
            for (unsigned t0 = 0; t0 < B; t0 += N)
                for (unsigned o0 = 0; o0 < dL; o0 += N, bi++) {
                    unsigned ay = blk_addr(N, B, dL, t0, o0, &t, &f);
                    rd wt = weight_read(w->aI[f], f, f, 0);
                    rd in = {TT_CH_INPUT, w->asum[bi], t, f, 0, 0};
                    rd sides[] = {{TT_CH_Y, w->aY + ay, t, f, 0, N + 1}};
                    if (pass(x, 0x7, 3, wt, in, t, f, sides, 1))
                        return -1;
                }
        }
        for (unsigned r = 0; r < B; r++)
            for (unsigned j = 0; j < dL; j++) {
                size_t i = (size_t)r * dL + j;
                int h = lrelu(w->z[l][i], la), y = net->Y[i];
                double e = (h - y) / 256.0;
                loss += e * e;
                w->act[L][i] = h;
                int g = tt_q_mul(tt_q_sub(h, y), inv);
                w->dz[l][i] = h >= 0 ? g : tt_q_mul(g, la);
            }
        *loss_out = loss / ((double)B * dL);
        snprintf(nm, sizeof nm, "dZ%u", L);
        if (append(x, nm, TT_R_RESULT, w->step, w->dz[l], B, dL, &w->adz[l]))
            return -1;
    }
    /* ---- b_L through the identity (rule 6): pass-through, grad-bias at x + N ---- */
    for (unsigned t0 = 0; t0 < B; t0 += N)
        for (unsigned o0 = 0; o0 < dL; o0 += N) {
            unsigned a = blk_addr(N, B, dL, t0, o0, &t, &f);
            rd wt = weight_read(w->aI[f], f, f, 0);
            rd in = {TT_CH_INPUT, w->adz[L - 1] + a, t, f, 0, 0};
            rd sides[] = {{TT_CH_GBIAS, w->ab[L - 1] + o0, t, f, 0, N}};
            if (pass(x, 0x0, 0, wt, in, t, f, sides, 1))
                return -1;
        }
    {
        unsigned a;
        if (append(x, "dZ copy (b update)", TT_R_JUNK, w->step, w->dz[L - 1], B, dL, &a))
            return -1;
        for (unsigned r = 0; r < B; r++)
            for (unsigned j = 0; j < dL; j++)
                w->bv[L - 1][j] = tt_q_sub(w->bv[L - 1][j],
                                           tt_q_mul(w->dz[L - 1][(size_t)r * dL + j], lr));
    }
    /* ---- backward: dZ_l = (dZ_{l+1} W_{l+1}) ⊙ lrelu'(H_l or Z_l), b_l updated ---- */
    for (unsigned l = L - 1; l >= 1; l--) {
        const unsigned din = net->d[l], dout = net->d[l + 1];
        const int la = lay_alpha(net, l - 1), keep = keep_z(net, l - 1);
        const unsigned nbi = ntiles(din, N);
        x->leak = (uint16_t)la;
        ctr c = {w->dz[l], w->adz[l], dout, din, w->W[l], w->aW[l], dout, din, 0};
        int direct = ntiles(dout, N) == 1;
        if (!direct) {
            snprintf(nm, sizeof nm, "G%u", l);
            unsigned bi = 0;
            for (unsigned t0 = 0; t0 < B; t0 += N)
                for (unsigned j0 = 0; j0 < din; j0 += N, bi++) {
                    if (chain(x, w, &c, t0, j0, NULL, 0, nm, TT_R_JUNK, &w->asum[bi]))
                        return -1;
                    blk_io(x, w, w->g, din, t0, j0, 1);
                }
        }
        unsigned bi = 0;
        for (unsigned t0 = 0; t0 < B; t0 += N)
            for (unsigned j0 = 0; j0 < din; j0 += N, bi++) {
                unsigned a = blk_addr(N, B, din, t0, j0, &t, &f), wt_, wf_;
                unsigned ah = keep ? w->az[l - 1][t0 / N * nbi + j0 / N] : w->aH[l] + a;
                rd sides[] = {{TT_CH_H, ah, t, f, 0, N}, {TT_CH_GBIAS, w->ab[l - 1] + j0, t, f, 0, N + 1}};
                rd wt, in;
                if (direct) {
                    wt = weight_read(w->aW[l] + blk_addr(N, dout, din, 0, j0, &wt_, &wf_), dout, f, 0);
                    in = (rd){TT_CH_INPUT, w->adz[l] + blk_addr(N, B, dout, t0, 0, &wt_, &wf_), t, dout, 0, 0};
                } else {
                    wt = weight_read(w->aI[f], f, f, 0);
                    in = (rd){TT_CH_INPUT, w->asum[bi], t, f, 0, 0};
                }
                if (pass(x, 0x1, 1, wt, in, t, f, sides, 2))
                    return -1;
            }
        for (unsigned r = 0; r < B; r++)
            for (unsigned j = 0; j < din; j++) {
                size_t i = (size_t)r * din + j;
                int g;
                if (direct) {
                    g = 0;
                    for (unsigned k = 0; k < dout; k++)
                        g = tt_q_add(tt_q_mul(w->dz[l][(size_t)r * dout + k],
                                              w->W[l][(size_t)k * din + j]), g);
                } else {
                    g = w->g[i];
                }
                int s = keep ? w->z[l - 1][i] : w->act[l][i];
                w->dz[l - 1][i] = s >= 0 ? g : tt_q_mul(g, la);
            }
        snprintf(nm, sizeof nm, "dZ%u", l);
        if (append(x, nm, TT_R_RESULT, w->step, w->dz[l - 1], B, din, &w->adz[l - 1]))
            return -1;
        for (unsigned r = 0; r < B; r++)
            for (unsigned j = 0; j < din; j++)
                w->bv[l - 1][j] = tt_q_sub(w->bv[l - 1][j],
                                           tt_q_mul(w->dz[l - 1][(size_t)r * din + j], lr));
    }
    x->leak = net->alpha;
    /* ---- weight gradients (0000): per batch tile, per N x N block of W ---- */
    for (unsigned l = 0; l < L; l++) {
        const unsigned din = net->d[l], dout = net->d[l + 1];
        const unsigned ah = l == 0 ? w->aX : w->aH[l];
        for (unsigned t0 = 0, ti = 0; t0 < B; t0 += N, ti++) {
            for (unsigned o0 = 0; o0 < dout; o0 += N)
                for (unsigned i0 = 0; i0 < din; i0 += N) {
                    unsigned to, tin, tt;
                    unsigned awb = blk_addr(N, dout, din, o0, i0, &to, &tin);
                    unsigned ahb = blk_addr(N, B, din, t0, i0, &tt, &tin);
                    unsigned adb = blk_addr(N, B, dout, t0, o0, &tt, &to);
                    for (unsigned k = 0; k < to; k++)
                        for (unsigned j = 0; j < tin; j++) {
                            int g = 0;
                            for (unsigned r = t0; r < t0 + tt; r++)
                                g = tt_q_add(tt_q_mul(w->dz[l][(size_t)r * dout + o0 + k],
                                                      w->act[l][(size_t)r * din + i0 + j]), g);
                            w->blk[k * tin + j] = g;
                        }
                    rd wt = weight_read(ah + ahb, tt, tin, 0);
                    rd in = {TT_CH_INPUT, w->adz[l] + adb, tt, to, 1, 0};
                    rd sides[] = {{TT_CH_GWEIGHT, w->aW[l] + awb, to, tin, 0, N}};
                    if (pass(x, 0x0, 0, wt, in, to, tin, sides, 1))
                        return -1;
                    unsigned a;
                    snprintf(nm, sizeof nm, "dW%u tile %u", l + 1, ti);
                    if (append(x, nm, TT_R_JUNK, w->step, w->blk, to, tin, &a))
                        return -1;
                    for (unsigned k = 0; k < to; k++)
                        for (unsigned j = 0; j < tin; j++) {
                            int *e = &w->W[l][(size_t)(o0 + k) * din + i0 + j];
                            *e = tt_q_sub(*e, tt_q_mul(w->blk[k * tin + j], lr));
                        }
                }
        }
    }
    return 0;
}

/* Words the tiled schedule appends: per step and for the evaluation pass; host: the identities
 * it loads (need[k]: I_k is needed). */
static void wide_words(const tt_net *n, unsigned long *step, unsigned long *eval,
                       unsigned long *ident, unsigned char *need)
{
    const unsigned N = n->N, B = n->B, L = n->L;
    unsigned long s = 0, e = 0, h = 0;
    memset(need, 0, TT_MAX_N + 1);
#define NEED(d) (need[(d) < N ? (d) : N] = 1, need[(d) % N] = 1)
    for (unsigned l = 0; l < L && n->update_only; l++) { /* the updates alone (L = 1) */
        s += (unsigned long)ntiles(B, N) * n->d[l + 1] * n->d[l];
        s += (unsigned long)B * n->d[l + 1];
    }
    for (unsigned l = 0; l < L && !n->update_only; l++) {
        unsigned din = n->d[l], dout = n->d[l + 1], ni = ntiles(din, N);
        int keep = keep_z(n, l), sums = ni > 1 || (keep && l + 1 < L);
        s += (unsigned long)B * dout * (sums ? ni + 1 : 1);
        e += (unsigned long)B * dout * (ni > 1 ? ni + 1 : 1);
        s += (unsigned long)ntiles(B, N) * dout * din;
        if (sums || ni > 1)
            NEED(dout);
        if (l >= 1) {
            unsigned no = ntiles(dout, N);
            s += (unsigned long)B * din * (no > 1 ? no + 1 : 1);
            if (no > 1)
                NEED(din);
        }
    }
    if (n->steps)
        s += (unsigned long)B * n->d[L], NEED(n->d[L]); /* the dZ_L copy of the bias identity */
    if (n->update_only) /* counted above */
        s -= (unsigned long)B * n->d[L];
#undef NEED
    need[0] = 0;
    for (unsigned k = 1; k <= N; k++)
        if (need[k])
            h += (unsigned long)k * k;
    *step = s, *eval = n->eval || !n->steps ? e : 0, *ident = h;
}

/* Words the whole program appends (host load, steps, evaluation). */
static unsigned long words_needed(const tt_net *n, int ident, unsigned long *host,
                                  unsigned long *step, unsigned long *eval)
{
    unsigned L = n->L, B = n->B, tiles = (B + n->N - 1) / n->N;
    unsigned long h = (unsigned long)B * (n->d[0] + (n->steps ? n->d[L] : 0)), s = 0, e = 0;
    for (unsigned l = 0; l < L; l++) {
        h += (unsigned long)n->d[l + 1] * n->d[l] + n->d[l + 1];
        s += (unsigned long)B * n->d[l + 1];                        /* dZ */
        if (l + 1 < L)
            s += (unsigned long)B * n->d[l + 1];                    /* H */
        s += (unsigned long)tiles * n->d[l + 1] * n->d[l];          /* weight-gradient junk */
        e += (unsigned long)in_tiles(n, l) * B * n->d[l + 1];       /* H (and partial sums) */
    }
    if (ident)
        h += (unsigned long)n->d[L] * n->d[L], s += (unsigned long)B * n->d[L];
    *host = h, *step = s, *eval = n->eval || !n->steps ? e : 0;
    return h + s * n->steps + *eval;
}

void tt_compiled_free(tt_compiled *c)
{
    tt_program_free(&c->prog);
    free(c->map);
    free(c->pred);
    free(c->loss);
    memset(c, 0, sizeof *c);
}

int tt_compile(const tt_net *net, tt_compiled *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    ctx cx = {net, out, err, err_size, net->N, 0, net->alpha, 0, 0, 0};
    ctx *x = &cx;
    unsigned N = net->N, L = net->L, B = net->B;
    int rc = -1;
    int *act[TT_NET_MAX_LAYERS + 1] = {0}, *dz[TT_NET_MAX_LAYERS] = {0};
    int *W[TT_NET_MAX_LAYERS] = {0}, *bv[TT_NET_MAX_LAYERS] = {0};
    int *tmp = NULL, *host = NULL;
    wide wd;
    memset(&wd, 0, sizeof wd);
    unsigned aX, aY, aW[TT_NET_MAX_LAYERS], ab[TT_NET_MAX_LAYERS], aI = 0;
    unsigned aH[TT_NET_MAX_LAYERS + 1], adz[TT_NET_MAX_LAYERS];
    tt_program_init(&out->prog, N);

    /* ---- limits (rule 1) ---- */
    if (N < 2 || N > TT_MAX_N)
        return cfail(x, "lanes %u out of range (2..%u)", N, TT_MAX_N);
    if (L < 1 || L > TT_NET_MAX_LAYERS || B < 1)
        return cfail(x, "no layers or no batch");
    /* inference with B = 1 tiles wider layers: the partial sum of an input tile is the next
     * tile's bias vector (docs/tinytpu-compiler.md, "Inference and tiling") */
    const int infer = net->steps == 0;
    /* training with a width above N (or `tile`) uses the tiled schedule */
    int wide = net->tile;
    for (unsigned l = 0; l <= L; l++)
        if (net->d[l] > N && !infer)
            wide = 1;
        else if (net->d[l] > N && B != 1 && !wide)
            return cfail(x, "layer width d%u = %u exceeds the array size N = %u with batch %u: "
                            "only inference (steps 0) with batch 1 tiles wider layers (the bias "
                            "channel that adds its partial sums gives every batch row the same "
                            "vector), training with any batch; use lanes >= %u", l, net->d[l], N,
                         B, net->d[l]);
    if (net->update_only && (!net->tile || L != 1 || net->steps != 1 || net->eval))
        return cfail(x, "update_only needs tile, one layer, one step and no evaluation pass");
    unsigned char need_i[TT_MAX_N + 1];
    unsigned long wstep = 0, weval = 0, whost = 0;
    if (wide)
        wide_words(net, &wstep, &weval, &whost, need_i);
    /* rule 7: for N >= 3, a batch larger than N and a width >= 3 make every pass run per batch
     * tile, each tile's results a skew-order block of their own */
    int tiled = 0;
    if (N > 2 && B > N)
        for (unsigned l = 0; l <= L; l++)
            if (net->d[l] >= 3)
                tiled = 1;
    if (wide)
        tiled = 1;
    if (net->ub_words < 1 || net->ub_words > (N == 2 ? TT_MAX_UB_N2 : TT_MAX_UB))
        return cfail(x, "ub_words %u out of range (1..%u for lanes = %u, C3)", net->ub_words,
                     N == 2 ? TT_MAX_UB_N2 : TT_MAX_UB, N);
    if ((net->format == TT_FMT_W88 || net->format == TT_FMT_W94 || net->format == TT_FMT_W130) &&
        N != 2)
        return cfail(x, "format %s exists only for lanes = 2 (C2.4); use wfull, port or asm",
                     tt_format_names[net->format]);
    int ident = !infer && (net->bias_mode == TT_BIAS_IDENTITY ||
                           (net->bias_mode == TT_BIAS_AUTO && (B >= 8 || tiled)));
    if (net->bias_mode == TT_BIAS_TRANSITION && wide)
        return cfail(x, "bias_update transition with the tiled training schedule: later "
                        "blocks would read the bias the earlier blocks' transition passes "
                        "updated (rule 6); use bias_update auto or identity");
    if (net->bias_mode == TT_BIAS_TRANSITION && tiled)
        return cfail(x, "bias_update transition with batch tiling (N = %u, batch %u, a width >= "
                        "3): later tiles would read the bias the earlier tiles' transition "
                        "passes updated (rule 6); use bias_update auto or identity", N, B);
    if (net->bias_mode == TT_BIAS_TRANSITION && B >= 8)
        return cfail(x, "bias_update transition with batch %u: the bias channel's last rows "
                        "would read partly updated biases (A13 hazard 4, B >= 8); use "
                        "bias_update auto or identity (rule 6)", B);
    out->identity_bias = ident;
    out->lr = net->lr;
    if (net->inv_set) {
        out->inv = net->inv;
    } else {
        out->inv = (uint16_t)npk_q88_from_double(2.0 / B); /* A3: ties to even, saturated */
    }
    x->inv = out->inv;

    /* ---- capacity (rules 2, 10) ---- */
    unsigned long hw_, sw_, ew_;
    unsigned long need = words_needed(net, ident, &hw_, &sw_, &ew_);
    if (wide) { /* host: X, Y, W, b as before, the identities instead of I */
        hw_ += whost - (ident ? (unsigned long)net->d[L] * net->d[L] : 0);
        sw_ = wstep, ew_ = weval;
        need = hw_ + sw_ * net->steps + ew_;
    }
    if (need > net->ub_words) {
        unsigned long fit = net->ub_words > hw_ + ew_ ? (net->ub_words - hw_ - ew_) / sw_ : 0;
        if (infer)
            return cfail(x, "the inference needs %lu UB words (host load %lu, forward passes "
                            "%lu) but the UB has %u words", need, hw_, ew_, net->ub_words);
        return cfail(x, "the program needs %lu UB words (host load %lu, %lu per step x %u "
                        "step%s%s) but the UB has %u words; at most %lu step%s fit%s", need, hw_,
                     sw_, net->steps, net->steps == 1 ? "" : "s",
                     ew_ ? ", evaluation pass" : "", net->ub_words, fit, fit == 1 ? "" : "s",
                     fit == 1 ? "s" : "");
    }
    out->pred = calloc(net->ub_words, sizeof *out->pred);
    out->loss = calloc(net->steps ? net->steps : 1, sizeof *out->loss);
    if (!out->pred || !out->loss)
        goto oom;

    /* ---- working copies (the Q8.8 model of rule 9) ---- */
    for (unsigned l = 0; l <= L; l++)
        if (!(act[l] = calloc((size_t)B * net->d[l], sizeof(int))))
            goto oom;
    for (unsigned l = 0; l < L; l++) {
        size_t nw = (size_t)net->d[l + 1] * net->d[l];
        W[l] = calloc(nw, sizeof(int)), bv[l] = calloc(net->d[l + 1], sizeof(int));
        dz[l] = calloc((size_t)B * net->d[l + 1], sizeof(int));
        if (!W[l] || !bv[l] || !dz[l])
            goto oom;
        for (size_t i = 0; i < nw; i++)
            W[l][i] = net->W[l][i];
        for (unsigned j = 0; j < net->d[l + 1]; j++)
            bv[l][j] = net->b[l][j];
    }
    for (size_t i = 0; i < (size_t)B * net->d[0]; i++)
        act[0][i] = net->X[i];
    unsigned dmax = N;
    for (unsigned l = 0; l <= L; l++)
        dmax = net->d[l] > dmax ? net->d[l] : dmax;
    tmp = calloc((size_t)(B > dmax ? B : dmax) * dmax, sizeof(int));
    if (wide) {
        size_t nb = (size_t)ntiles(B, N) * ntiles(dmax, N);
        wd.g = calloc((size_t)B * dmax, sizeof(int));
        wd.blk = calloc((size_t)N * N, sizeof(int));
        wd.asum = calloc(nb, sizeof(unsigned));
        if (!wd.g || !wd.blk || !wd.asum)
            goto oom;
        for (unsigned l = 0; l < L; l++)
            if (!(wd.z[l] = calloc((size_t)B * net->d[l + 1], sizeof(int))) ||
                !(wd.az[l] = calloc(nb, sizeof(unsigned))))
                goto oom;
    }
    host = calloc(hw_ + 1, sizeof(int));
    if (!tmp || !host)
        goto oom;

    /* ---- reset + host load (rule 2): X, Y, then W_l, b_l per layer, then the identity ---- */
    {
        tt_cycle cy = {0};
        cy.rst = 1;
        if (emit(x, &cy, NULL, 0))
            goto fail;
        unsigned n = 0;
#define HOSTMAT(name, kind, m, R, C, aptr, pos)                                             \
    do {                                                                                    \
        *(aptr) = n;                                                                        \
        if (add_region(x, name, kind, -1, n, R, C))                                         \
            goto fail;                                                                      \
        for (unsigned r_ = 0; r_ < (R); r_++)                                               \
            for (unsigned c_ = 0; c_ < (C); c_++)                                           \
                host[n + pos(N, R, C, r_, c_)] = (m)[r_ * (C) + c_];                        \
        n += (R) * (C);                                                                     \
    } while (0)
        HOSTMAT("X", TT_R_DATA, act[0], B, net->d[0], &aX, tile_pos);
        aY = n;
        if (!infer) { /* widths <= N here: tmp holds max(B, N) x N */
            for (size_t i = 0; i < (size_t)B * net->d[L]; i++)
                tmp[i] = net->Y[i];
            HOSTMAT("Y", TT_R_DATA, tmp, B, net->d[L], &aY, tile_pos);
        }
        for (unsigned l = 0; l < L; l++) {
            char nm[16];
            snprintf(nm, sizeof nm, "W%u", l + 1);
            HOSTMAT(nm, TT_R_PARAM, W[l], net->d[l + 1], net->d[l], &aW[l], tile_pos);
            snprintf(nm, sizeof nm, "b%u", l + 1);
            HOSTMAT(nm, TT_R_PARAM, bv[l], 1, net->d[l + 1], &ab[l], tile_pos);
        }
        if (ident && !wide) {
            unsigned dL = net->d[L];
            for (unsigned i = 0; i < dL * dL; i++)
                tmp[i] = i % (dL + 1) == 0 ? 0x100 : 0;
            HOSTMAT("I", TT_R_HELPER, tmp, dL, dL, &aI, tile_pos);
        }
        for (unsigned k = 1; wide && k <= N; k++)
            if (need_i[k]) { /* the k x k identities of the tiled schedule */
                char nm[16];
                for (unsigned i = 0; i < k * k; i++)
                    tmp[i] = i % (k + 1) == 0 ? 0x100 : 0;
                snprintf(nm, sizeof nm, "I%u", k);
                HOSTMAT(nm, TT_R_HELPER, tmp, k, k, &wd.aI[k], tile_pos);
            }
#undef HOSTMAT
        for (unsigned i = 0; i < n; i++)
            out->pred[i] = (uint16_t)(host[i] & 0xFFFF);
        if (host_load(x, host, n) || idle(x, 1))
            goto fail;
        out->load_cycles = out->prog.n;
    }

    const int16_t *Y = net->Y;
    const int inv = (int16_t)out->inv, lr = (int16_t)net->lr, alpha = (int16_t)net->alpha;
    unsigned total_steps = net->steps + (net->eval || infer ? 1 : 0);
    const unsigned TR = tiled ? N : B; /* rows per pass (rule 7) */
    if (wide) {
        wd.act = act, wd.dz = dz, wd.W = W, wd.bv = bv;
        wd.aX = aX, wd.aY = aY, wd.aW = aW, wd.ab = ab, wd.aH = aH, wd.adz = adz;
        for (unsigned st = 0; st < total_steps; st++) {
            size_t c0 = out->prog.n;
            wd.step = (int)st;
            if (st < net->steps) {
                if (wide_step(x, &wd, &out->loss[st]))
                    goto fail;
            } else {
                for (unsigned l = 0; l < L; l++)
                    if (wide_forward(x, &wd, l, 0))
                        goto fail;
                double loss = 0;
                for (size_t i = 0; net->Y && i < (size_t)B * net->d[L]; i++) {
                    double e = (act[L][i] - net->Y[i]) / 256.0;
                    loss += e * e;
                }
                out->eval_loss = loss / ((double)B * net->d[L]);
            }
            if (st == 0)
                out->step_cycles = out->prog.n - c0;
        }
        total_steps = 0;
    }
    for (unsigned st = 0; st < total_steps; st++) {
        int evalp = st == net->steps;
        size_t c0 = out->prog.n;
        char nm[32];
        /* ---- forward passes (1100), and the transition pass (1111) of the last layer ---- */
        for (unsigned l = 0; l < L; l++) {
            unsigned din = net->d[l], dout = net->d[l + 1];
            int trans = l + 1 == L && !evalp;
            unsigned ain = l == 0 ? aX : aH[l];
            const int la = net->layer_alpha_set >> l & 1 ? (int16_t)net->layer_alpha[l] : alpha;
            x->leak = (uint16_t)la;
            if (din > N || dout > N) { /* inference, B = 1: tiled (wide) layer */
                if (wide_layer(x, l, ain, aW[l], ab[l], act[l], W[l], bv[l], act[l + 1], la,
                               &aH[l + 1]))
                    goto fail;
                x->leak = net->alpha;
                continue;
            }
            /* model: Z = act[l] W^T (row 0's product first) + b, lrelu */
            double loss = 0;
            for (unsigned r = 0; r < B; r++)
                for (unsigned j = 0; j < dout; j++) {
                    int z = 0;
                    for (unsigned k = 0; k < din; k++)
                        z = tt_q_add(tt_q_mul(act[l][r * din + k], W[l][j * din + k]), z);
                    int h = lrelu(tt_q_add(z, bv[l][j]), la);
                    act[l + 1][r * dout + j] = h;
                    if (trans || (evalp && l + 1 == L && Y)) {
                        int y = Y[r * dout + j];
                        double e = (h - y) / 256.0;
                        loss += e * e;
                        if (trans) {
                            int g = tt_q_mul(tt_q_sub(h, y), inv);
                            dz[l][r * dout + j] = h >= 0 ? g : tt_q_mul(g, alpha);
                        }
                    }
                }
            loss /= (double)B * dout;
            rd wt = weight_read(aW[l], dout, din, 1);
            if (!trans) {
                for (unsigned t0 = 0; t0 < B; t0 += TR) { /* one pass, or one per tile */
                    unsigned t = B - t0 < TR ? B - t0 : TR;
                    rd in = {TT_CH_INPUT, ain + t0 * din, t, din, 0, 0};
                    rd sides[] = {{TT_CH_BIAS, ab[l], t, dout, 0, N}};
                    if (pass(x, 0xC, 2, wt, in, t, dout, sides, 1))
                        goto fail;
                }
                snprintf(nm, sizeof nm, "H%u", l + 1);
                if (append(x, nm, TT_R_RESULT, (int)st, act[l + 1], B, dout, &aH[l + 1]))
                    goto fail;
                if (evalp && l + 1 == L)
                    out->eval_loss = loss;
                x->leak = net->alpha;
                continue;
            }
            out->loss[st] = loss;
            for (unsigned t0 = 0; t0 < B; t0 += TR) {
                unsigned t = B - t0 < TR ? B - t0 : TR;
                rd in = {TT_CH_INPUT, ain + t0 * din, t, din, 0, 0};
                rd sides[] = {{TT_CH_BIAS, ab[l], t, dout, 0, N},
                              {TT_CH_Y, aY + t0 * dout, t, dout, 0, N + 2},
                              {TT_CH_GBIAS, ab[l], t, dout, 0, N + 4}};
                if (pass(x, 0xF, 4, wt, in, t, dout, sides, ident ? 2 : 3))
                    goto fail;
            }
            snprintf(nm, sizeof nm, "dZ%u", l + 1);
            if (append(x, nm, TT_R_RESULT, (int)st, dz[l], B, dout, &adz[l]))
                goto fail;
            if (!ident) /* b_L updated in the pass, sequentially over the rows */
                for (unsigned r = 0; r < B; r++)
                    for (unsigned j = 0; j < dout; j++)
                        bv[l][j] = tt_q_sub(bv[l][j], tt_q_mul(dz[l][r * dout + j], lr));
        }
        if (evalp)
            break;
        /* ---- rule 6: b_L through the identity matrix, pass-through ---- */
        if (ident) {
            unsigned dL = net->d[L];
            rd wt = weight_read(aI, dL, dL, 0);
            for (unsigned t0 = 0; t0 < B; t0 += TR) {
                unsigned t = B - t0 < TR ? B - t0 : TR;
                rd in = {TT_CH_INPUT, adz[L - 1] + t0 * dL, t, dL, 0, 0};
                rd sides[] = {{TT_CH_GBIAS, ab[L - 1], t, dL, 0, N}};
                if (pass(x, 0x0, 0, wt, in, t, dL, sides, 1))
                    goto fail;
            }
            unsigned a;
            if (append(x, "dZ copy (b update)", TT_R_JUNK, (int)st, dz[L - 1], B, dL, &a))
                goto fail;
            for (unsigned r = 0; r < B; r++)
                for (unsigned j = 0; j < dL; j++)
                    bv[L - 1][j] = tt_q_sub(bv[L - 1][j], tt_q_mul(dz[L - 1][r * dL + j], lr));
        }
        /* ---- backward passes (0001): dZ_{l} from dZ_{l+1}, b_l updated ---- */
        for (unsigned l = L - 1; l >= 1; l--) {
            unsigned din = net->d[l], dout = net->d[l + 1];
            for (unsigned r = 0; r < B; r++)
                for (unsigned j = 0; j < din; j++) {
                    int g = 0;
                    for (unsigned k = 0; k < dout; k++)
                        g = tt_q_add(tt_q_mul(dz[l][r * dout + k], W[l][k * din + j]), g);
                    dz[l - 1][r * din + j] = act[l][r * din + j] >= 0 ? g : tt_q_mul(g, alpha);
                }
            rd wt = weight_read(aW[l], dout, din, 0);
            for (unsigned t0 = 0; t0 < B; t0 += TR) {
                unsigned t = B - t0 < TR ? B - t0 : TR;
                rd in = {TT_CH_INPUT, adz[l] + t0 * dout, t, dout, 0, 0};
                rd sides[] = {{TT_CH_H, aH[l] + t0 * din, t, din, 0, N},
                              {TT_CH_GBIAS, ab[l - 1], t, din, 0, N + 1}};
                if (pass(x, 0x1, 1, wt, in, t, din, sides, 2))
                    goto fail;
            }
            snprintf(nm, sizeof nm, "dZ%u", l);
            if (append(x, nm, TT_R_RESULT, (int)st, dz[l - 1], B, din, &adz[l - 1]))
                goto fail;
            for (unsigned r = 0; r < B; r++)
                for (unsigned j = 0; j < din; j++)
                    bv[l - 1][j] = tt_q_sub(bv[l - 1][j], tt_q_mul(dz[l - 1][r * din + j], lr));
        }
        /* ---- weight gradients (0000), batch tiles of at most N rows ---- */
        for (unsigned l = 0; l < L; l++) {
            unsigned din = net->d[l], dout = net->d[l + 1];
            unsigned ah = l == 0 ? aX : aH[l];
            for (unsigned t0 = 0, ti = 0; t0 < B; t0 += N, ti++) {
                unsigned t = B - t0 < N ? B - t0 : N;
                for (unsigned k = 0; k < dout; k++)
                    for (unsigned j = 0; j < din; j++) {
                        int g = 0;
                        for (unsigned r = t0; r < t0 + t; r++)
                            g = tt_q_add(tt_q_mul(dz[l][r * dout + k], act[l][r * din + j]), g);
                        tmp[k * din + j] = g;
                    }
                /* tile t0 is the skew-order block at base + t0 * width (tile_pos) */
                rd wt = weight_read(ah + t0 * din, t, din, 0);
                rd in = {TT_CH_INPUT, adz[l] + t0 * dout, t, dout, 1, 0};
                rd sides[] = {{TT_CH_GWEIGHT, aW[l], dout, din, 0, N}};
                if (pass(x, 0x0, 0, wt, in, dout, din, sides, 1))
                    goto fail;
                unsigned a;
                snprintf(nm, sizeof nm, "dW%u tile %u", l + 1, ti);
                if (append(x, nm, TT_R_JUNK, (int)st, tmp, dout, din, &a))
                    goto fail;
                for (unsigned i = 0; i < dout * din; i++)
                    W[l][i] = tt_q_sub(W[l][i], tt_q_mul(tmp[i], lr));
            }
        }
        if (st == 0)
            out->step_cycles = out->prog.n - c0;
    }
    /* final parameters into the prediction */
    for (unsigned l = 0; l < L; l++) {
        put_in(x, tile_pos, aW[l], W[l], net->d[l + 1], net->d[l]);
        put(x, ab[l], bv[l], 1, net->d[l + 1]);
    }
    out->words = x->wp;
    out->cycles = out->prog.n;
    if (x->wp != need) {
        cfail(x, "tinytpu compile: internal error: planned %u words, counted %lu", x->wp, need);
        goto fail;
    }
    /* ---- field limits of the output format (rule 1, B3/B4) ---- */
    if (net->format <= TT_FMT_WFULL) {
        for (size_t k = 0; k < out->prog.n; k++) {
            const tt_cycle *cy = &out->prog.c[k];
            if (cy->rst)
                continue;
            tt_packed pw;
            char e2[200];
            if (tt_encode(net->format, N, cy, out->prog.hw + cy->host, &pw, e2, sizeof e2)) {
                cfail(x, "cycle %zu cannot be written as %s: %s (a read of %s at address %u, "
                         "rows %u, cols %u); choose a wider format (w94, w130, wfull, port, asm)",
                      k + 1, tt_format_names[net->format], e2,
                      cy->sel < TT_N_CHANNELS ? tt_channel_names[cy->sel] : "?", cy->addr,
                      cy->rows, cy->cols);
                goto fail;
            }
        }
    }
    rc = 0;
    goto done;
oom:
    cfail(x, "tinytpu compile: out of memory");
fail:
done:
    for (unsigned l = 0; l <= L && l <= TT_NET_MAX_LAYERS; l++)
        free(act[l]);
    for (unsigned l = 0; l < L && l < TT_NET_MAX_LAYERS; l++)
        free(dz[l]), free(W[l]), free(bv[l]);
    free(tmp);
    free(host);
    for (unsigned l = 0; l < TT_NET_MAX_LAYERS; l++)
        free(wd.z[l]), free(wd.az[l]);
    free(wd.g), free(wd.blk), free(wd.asum);
    return rc;
}

const tt_region *tt_compiled_find(const tt_compiled *c, const char *name, int step)
{
    for (size_t i = 0; i < c->n_map; i++)
        if (c->map[i].step == step && !strcmp(c->map[i].name, name))
            return &c->map[i];
    return NULL;
}

int tt_compiled_matrix(const tt_net *net, const tt_compiled *c, const uint16_t *ub,
                       const char *name, int step, unsigned rows, unsigned cols, int16_t *out)
{
    const tt_region *r = tt_compiled_find(c, name, step);
    if (!r || r->rows != rows || r->cols != cols || r->addr + rows * cols > net->ub_words)
        return -1;
    for (unsigned i = 0; i < rows; i++)
        for (unsigned j = 0; j < cols; j++)
            out[(size_t)i * cols + j] = (int16_t)ub[r->addr + tile_pos(net->N, rows, cols, i, j)];
    return 0;
}

int tt_compiled_params(const tt_net *net, const tt_compiled *c, const uint16_t *ub, unsigned l,
                       int16_t *W, int16_t *b)
{
    char nm[16];
    if (l >= net->L)
        return -1;
    unsigned R = net->d[l + 1], C = net->d[l];
    snprintf(nm, sizeof nm, "W%u", l + 1);
    const tt_region *rw = tt_compiled_find(c, nm, -1);
    snprintf(nm, sizeof nm, "b%u", l + 1);
    const tt_region *rb = tt_compiled_find(c, nm, -1);
    if (!rw || !rb || rw->addr + R * C > net->ub_words || rb->addr + R > net->ub_words)
        return -1;
    for (unsigned r = 0; r < R; r++) {
        for (unsigned j = 0; j < C; j++)
            W[(size_t)r * C + j] = (int16_t)ub[rw->addr + tile_pos(net->N, R, C, r, j)];
        b[r] = (int16_t)ub[rb->addr + r];
    }
    return 0;
}

long tt_compiled_check(const tt_net *net, const tt_compiled *c, uint16_t *ub, char *err,
                       size_t err_size)
{
    char spec[128];
    snprintf(spec, sizeof spec, "tinytpu:lanes=%u,ub_words=%u,lr=0x%04X", net->N, net->ub_words,
             net->lr);
    npk_machine *m = NULL;
    if (npk_create(&m, spec, NULL, err, err_size) != NPK_OK)
        return -1;
    long bad = -1;
    npk_stop stop;
    if (tt_load_program(m, &c->prog) != NPK_OK || npk_run(m, 0, &stop) != NPK_OK) {
        snprintf(err, err_size, "simulator: %s", npk_error(m));
        goto out;
    }
    if (stop.reason != NPK_STOP_EXIT) {
        snprintf(err, err_size, "simulator stopped: %s", stop.message);
        goto out;
    }
    bad = 0;
    err[0] = 0;
    size_t used = 0;
    for (unsigned a = 0; a < net->ub_words; a++) {
        uint8_t b[2];
        if (npk_mem_read(m, "ub", 2ull * a, b, 2) != NPK_OK) {
            snprintf(err, err_size, "cannot read UB word %u", a);
            bad = -1;
            goto out;
        }
        uint16_t v = (uint16_t)(b[0] | b[1] << 8);
        if (ub)
            ub[a] = v;
        if (v != c->pred[a]) {
            if (!bad) {
                const char *rn = "unmapped";
                for (size_t i = 0; i < c->n_map; i++)
                    if (a >= c->map[i].addr && a < c->map[i].addr + c->map[i].rows * c->map[i].cols)
                        rn = c->map[i].name;
                int k = snprintf(err + used, err_size - used,
                                 "UB word %u (%s): simulator 0x%04X, predicted 0x%04X", a, rn, v,
                                 c->pred[a]);
                if (k > 0 && (size_t)k < err_size - used)
                    used += (size_t)k;
            }
            bad++;
        }
    }
    uint64_t wp = 0;
    npk_reg_read(m, "wp", &wp);
    if (wp != c->words) {
        if (!bad)
            snprintf(err, err_size, "wp = %llu after the run, planned %u",
                     (unsigned long long)wp, c->words);
        bad++;
    }
out:
    npk_destroy(m);
    return bad;
}

void tt_compiled_print_map(const tt_net *net, const tt_compiled *c, FILE *out)
{
    fprintf(out, "# memory map (UB words, skew order = row-major for <= 2 columns)\n");
    fprintf(out, "# %-6s %-6s %-5s %-20s %-6s %s\n", "addr", "end", "step", "name", "kind",
            "shape");
    for (size_t i = 0; i < c->n_map; i++) {
        const tt_region *r = &c->map[i];
        char st[16];
        if (r->step < 0)
            snprintf(st, sizeof st, "load");
        else if ((unsigned)r->step == net->steps)
            snprintf(st, sizeof st, "eval");
        else
            snprintf(st, sizeof st, "%d", r->step + 1);
        fprintf(out, "  %-6u %-6u %-5s %-20s %-6s %ux%u\n", r->addr,
                r->addr + r->rows * r->cols - 1, st, r->name, tt_region_kind_names[r->kind],
                r->rows, r->cols);
    }
    /* junk ranges, merged */
    fprintf(out, "# junk:");
    unsigned js = 0, je = 0, n = 0, have = 0;
    for (size_t i = 0; i <= c->n_map; i++) {
        const tt_region *r = i < c->n_map ? &c->map[i] : NULL;
        if (r && r->kind == TT_R_JUNK && have && r->addr == je) {
            je += r->rows * r->cols;
            continue;
        }
        if (have)
            fprintf(out, " %u-%u", js, je - 1), n += je - js, have = 0;
        if (r && r->kind == TT_R_JUNK)
            js = r->addr, je = r->addr + r->rows * r->cols, have = 1;
    }
    fprintf(out, "%s (%u words)\n", n ? "" : " none", n);
    fprintf(out, "# words used: %u of %u\n", c->words, net->ub_words);
}

int tt_write_stream(const tt_net *net, const tt_compiled *c, const char *name, FILE *out,
                    char *err, size_t err_size)
{
    fprintf(out, "%s compiled from %s: %zu cycles, lanes=%u ub_words=%u lr=0x%04X; cycle 1 is a "
                 "reset cycle\n", net->format == TT_FMT_ASM ? ";" : "#", name, c->cycles, net->N,
            net->ub_words, net->lr);
    return tt_write_program(&c->prog, net->format, out, err, err_size);
}

void tt_run_settings(const tt_net *net, char *buf, size_t n)
{
    snprintf(buf, n, "lanes=%u,ub_words=%u,lr=0x%04X%s%s", net->N, net->ub_words, net->lr,
             net->format == TT_FMT_ASM ? "" : ",format=",
             net->format == TT_FMT_ASM ? "" : tt_format_names[net->format]);
}
