/* pccx semantics (spec §6, §7): MEMSET, MEMCPY, GEMV/GEMM and CVO, each checking everything
 * of §6 before any effect and reading all operands before writing (in-place operation is well
 * defined). Every BF16/binary32 rule is a src/num call. Each instruction also fills the
 * footprint the timing model schedules (§11). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/checked.h"
#include "num/num.h"
#include "targets/pccx/machine.h"

#define FAIL(code, ...) (snprintf(msg, msg_len, __VA_ARGS__), (code))

static npk_fenv rne(void)
{
    npk_fenv e;
    npk_fenv_init(&e, NPK_RM_RNE);
    return e;
}

/* RNE16 of §3.2: NaN -> 0x7FC0, else round to nearest even (src/num, canonical NaN). */
static uint16_t rne16(uint32_t f)
{
    npk_fenv e = rne();
    return npk_f32_to_bf16(f, &e);
}

static uint32_t widen(uint16_t h)
{
    return npk_bf16_to_f32(h);
}

static uint32_t canon32(uint32_t f)
{
    return npk_f32_is_nan(f) ? 0x7FC00000u : f;
}

/* X*Y*Z of a shape entry, saturated: entries written through the backdoor may hold any
 * 32-bit value, and a wrapped count would pass the range checks with a short copy. */
static uint64_t entry_count(const uint32_t xyz[3])
{
    uint64_t e;
    if (!npk_mul_u64_ok((uint64_t)xyz[0] * xyz[1], xyz[2], &e))
        return UINT64_MAX;
    return e;
}

static int ensure_scratch(pccx_t *c, size_t n)
{
    if (n <= c->scratch_cap)
        return 0;
    uint16_t *p = realloc(c->scratch, n * sizeof *p);
    if (!p)
        return -1;
    c->scratch = p;
    c->scratch_cap = n;
    return 0;
}

static int ensure_dscratch(pccx_t *c, size_t n)
{
    if (n <= c->dscratch_cap)
        return 0;
    double *p = realloc(c->dscratch, n * sizeof *p);
    if (!p)
        return -1;
    c->dscratch = p;
    c->dscratch_cap = n;
    return 0;
}

/* ---- MEMSET (§6.2) -------------------------------------------------------------------------- */

static int exec_memset(pccx_t *c, const pccx_insn_t *d, pccx_fp *fp)
{
    pccx_fp_init(fp, PCCX_FP_MEMSET);
    c->cc[d->bank][d->index][0] = d->a;
    c->cc[d->bank][d->index][1] = d->b;
    c->cc[d->bank][d->index][2] = d->c;
    fp->cc_wr = (int)(d->bank * PCCX_CC_ENTRIES + d->index);
    return PCCX_OK;
}

/* ---- MEMCPY (§6.3) -------------------------------------------------------------------------- */

static int exec_memcpy(pccx_t *c, const pccx_insn_t *d, pccx_fp *fp, char *msg, size_t msg_len)
{
    pccx_route r = pccx_route_of(d);
    const uint32_t *xyz = c->cc[PCCX_BANK_FMAP][d->shape_ptr];
    uint64_t E = entry_count(xyz);
    if (E == 0)
        return FAIL(PCCX_E_SHAPE, "memcpy: shape entry fmap[%u] = (%u, %u, %u) has no elements",
                    d->shape_ptr, xyz[0], xyz[1], xyz[2]);
    uint64_t words = E / 8 + (E % 8 != 0); /* (E + 7) / 8 without wrap */
    if (r != PCCX_R_H2L && !npk_range_ok(d->src, words, PCCX_L2_WORDS))
        return FAIL(PCCX_E_L2_RANGE, "memcpy: source L2 words [0x%x, 0x%llx) leave L2 (%u words)",
                    d->src, (unsigned long long)(d->src + words), PCCX_L2_WORDS);
    if (r != PCCX_R_L2H && !npk_range_ok(d->dest, words, PCCX_L2_WORDS))
        return FAIL(PCCX_E_L2_RANGE,
                    "memcpy: destination L2 words [0x%x, 0x%llx) leave L2 (%u words)", d->dest,
                    (unsigned long long)(d->dest + words), PCCX_L2_WORDS);
    uint64_t hbase = c->window + 16 * (uint64_t)d->aux, hbytes = 16 * words;
    if (r != PCCX_R_L2L && !npk_range_ok(hbase, hbytes, c->host_bytes))
        return FAIL(PCCX_E_HOST_RANGE,
                    "memcpy: host bytes [0x%llx, 0x%llx) (window 0x%llx + 16 x aux 0x%x) leave "
                    "host DDR (%llu bytes)", (unsigned long long)hbase,
                    (unsigned long long)(hbase + hbytes), (unsigned long long)c->window, d->aux,
                    (unsigned long long)c->host_bytes);
    pccx_fp_init(fp, r == PCCX_R_H2L ? PCCX_FP_MEMCPY_H2L
                     : r == PCCX_R_L2H ? PCCX_FP_MEMCPY_L2H : PCCX_FP_MEMCPY_L2L);
    fp->sync = !d->async;
    fp->words = words;
    fp->cc_rd[0] = (int)d->shape_ptr;
    switch (r) {
    case PCCX_R_H2L:
        memcpy(c->l2 + 16 * (uint64_t)d->dest, c->host + hbase, hbytes);
        fp->host_rd = (pccx_range){hbase, hbase + hbytes};
        fp->l2_wr = (pccx_range){8 * (uint64_t)d->dest, 8 * ((uint64_t)d->dest + words)};
        break;
    case PCCX_R_L2H:
        memcpy(c->host + hbase, c->l2 + 16 * (uint64_t)d->src, hbytes);
        fp->l2_rd[0] = (pccx_range){8 * (uint64_t)d->src, 8 * ((uint64_t)d->src + words)};
        fp->host_wr = (pccx_range){hbase, hbase + hbytes};
        break;
    default: /* L2 -> L2: as if the source were read completely first */
        memmove(c->l2 + 16 * (uint64_t)d->dest, c->l2 + 16 * (uint64_t)d->src, hbytes);
        fp->l2_rd[0] = (pccx_range){8 * (uint64_t)d->src, 8 * ((uint64_t)d->src + words)};
        fp->l2_wr = (pccx_range){8 * (uint64_t)d->dest, 8 * ((uint64_t)d->dest + words)};
        break;
    }
    return PCCX_OK;
}

/* ---- GEMV / GEMM (§6.4) --------------------------------------------------------------------- */

/* One output element of an INT4 tensor: ExactSum over k of widen(a[k]) * W[n][k] (§3.3), on
 * src/num's binary64 fast path when the row allows it (windows 1: ad; 2: the high window at ad
 * and the low one at ad + K), else its exact accumulator (windows 0). */
static uint32_t dot_int4(pccx_t *c, const pccx_tensor *t, const uint16_t *a, const double *ad,
                         int windows, uint32_t n)
{
    const uint8_t *row = t->codes + (size_t)n * t->row_bytes;
    if (windows == 1)
        return npk_xdot_bf16_i4_fast(ad, row, t->k);
    if (windows == 2)
        return npk_xdot_bf16_i4_fast2(ad, ad + t->k, a, row, t->k);
    c->exact_fallback++;
    return npk_xdot_bf16_i4_exact(a, row, t->k);
}

/* Bounding host byte range of a BF16 view; -1 if it leaves host DDR. The strides are any
 * int64 (§7.3), so every step is checked: a product or sum that wraps cannot address host DDR
 * (at most 4 GiB), and an unchecked wrap would let dot_view read far outside it. */
static int view_range(const pccx_t *c, const pccx_tensor *t, uint64_t *lo, uint64_t *hi)
{
    int64_t dn, dk, mn, mx, first, last;
    if (!npk_mul_i64_ok((int64_t)t->n - 1, t->sn, &dn) ||
        !npk_mul_i64_ok((int64_t)t->k - 1, t->sk, &dk) ||
        !npk_add_i64_ok(dn < 0 ? dn : 0, dk < 0 ? dk : 0, &mn) ||
        !npk_add_i64_ok(dn > 0 ? dn : 0, dk > 0 ? dk : 0, &mx) ||
        t->base > (uint64_t)INT64_MAX ||
        !npk_mul_i64_ok(mn, 2, &mn) || !npk_add_i64_ok((int64_t)t->base, mn, &first) ||
        !npk_mul_i64_ok(mx, 2, &mx) || !npk_add_i64_ok((int64_t)t->base, mx, &last) ||
        !npk_add_i64_ok(last, 2, &last))
        return -1;
    if (first < 0 || !npk_range_ok((uint64_t)first, (uint64_t)(last - first), c->host_bytes))
        return -1;
    *lo = (uint64_t)first;
    *hi = (uint64_t)last;
    return 0;
}

static uint32_t dot_view(const pccx_t *c, const pccx_tensor *t, const uint16_t *a, uint32_t n,
                         uint16_t *wrow)
{
    for (uint64_t k = 0; k < t->k; k++) {
        uint64_t at = (uint64_t)((int64_t)t->base + 2 * ((int64_t)n * t->sn + (int64_t)k * t->sk));
        wrow[k] = (uint16_t)(c->host[at] | (unsigned)c->host[at + 1] << 8);
    }
    return npk_xdot_bf16_bf16(a, wrow, t->k);
}

/* The §6.4 write-back of one output: the row scale (INT4 tensors with w_scale), accm onto the
 * old value at L2 element yrow + n, RNE16. */
static uint16_t gemx_out(const pccx_t *c, const pccx_tensor *t, uint32_t y, uint64_t yrow,
                         uint64_t n, int ws, int accm, npk_fenv *e)
{
    if (ws && !t->view)
        y = npk_f32_mul(y, t->scale[n], e);
    if (accm)
        y = npk_f32_add(widen(pccx_l2_get(c, yrow + n)), y, e);
    return rne16(y);
}

static int exec_gemx(pccx_t *c, const pccx_insn_t *d, pccx_fp *fp, char *msg, size_t msg_len)
{
    const char *mn = pccx_ops[d->opcode].mnemonic;
    const uint32_t *in = c->cc[PCCX_BANK_FMAP][d->shape_ptr];
    const uint32_t *out = c->cc[PCCX_BANK_FMAP][d->size_ptr];
    uint64_t M = (uint64_t)in[0] * in[2], K = in[1], N = out[1];
    /* 1. shapes */
    if (M < 1 || K < 1 || N < 1 || (uint64_t)out[0] * out[2] != M ||
        (d->opcode == PCCX_OP_GEMV && M != 1))
        return FAIL(PCCX_E_SHAPE,
                    "%s: input shape fmap[%u] = (%u, %u, %u) gives M = %llu, K = %llu; output "
                    "shape fmap[%u] = (%u, %u, %u) gives N = %llu, X*Z = %llu%s", mn,
                    d->shape_ptr, in[0], in[1], in[2], (unsigned long long)M,
                    (unsigned long long)K, d->size_ptr, out[0], out[1], out[2],
                    (unsigned long long)N, (unsigned long long)out[0] * out[2],
                    d->opcode == PCCX_OP_GEMV ? " (GEMV needs M = 1, K, N >= 1 and X*Z = M)"
                                              : " (needs M, K, N >= 1 and X*Z = M)");
    /* 2. L2 ranges */
    uint64_t a0 = 8 * (uint64_t)d->src, y0 = 8 * (uint64_t)d->dest, MK, MN;
    if (!npk_mul_u64_ok(M, K, &MK) || !npk_range_ok(a0, MK, PCCX_L2_ELEMS))
        return FAIL(PCCX_E_L2_RANGE, "%s: input elements [0x%llx, 0x%llx) leave L2 (%u elements)",
                    mn, (unsigned long long)a0, (unsigned long long)(a0 + M * K), PCCX_L2_ELEMS);
    if (!npk_mul_u64_ok(M, N, &MN) || !npk_range_ok(y0, MN, PCCX_L2_ELEMS))
        return FAIL(PCCX_E_L2_RANGE,
                    "%s: output elements [0x%llx, 0x%llx) leave L2 (%u elements)", mn,
                    (unsigned long long)y0, (unsigned long long)(y0 + M * N), PCCX_L2_ELEMS);
    /* 3, 4. the weight queue */
    if (c->q_len == 0)
        return FAIL(PCCX_E_WEIGHT_EMPTY, "%s: the weight queue is empty", mn);
    pccx_weight_t h = c->queue[c->q_head];
    const pccx_tensor *t = pccx_tensor_get(c, h);
    if (t->k != K || t->n != N)
        return FAIL(PCCX_E_WEIGHT_SHAPE,
                    "%s: the weight tensor at the queue head (handle %u%s%s) is K = %u, N = %u; "
                    "the instruction needs K = %llu, N = %llu", mn, h, t->name ? ", " : "",
                    t->name ? t->name : "", t->k, t->n, (unsigned long long)K,
                    (unsigned long long)N);
    uint64_t vlo = 0, vhi = 0;
    if (t->view && view_range(c, t, &vlo, &vhi) != 0)
        return FAIL(PCCX_E_HOST_RANGE,
                    "%s: the BF16 view (base 0x%llx, n %u, k %u, sn %lld, sk %lld) reads outside "
                    "host DDR (%llu bytes)", mn, (unsigned long long)t->base, t->n, t->k,
                    (long long)t->sn, (long long)t->sk, (unsigned long long)c->host_bytes);
    if (ensure_scratch(c, (size_t)(M * N)) || ensure_dscratch(c, 2 * (size_t)K))
        return FAIL(PCCX_E_NOMEM, "%s: out of memory for %llu outputs", mn,
                    (unsigned long long)(M * N));
    /* Read everything, compute into scratch, then write (§6.1 rule 2). */
    int ws = (d->flags & PCCX_FLAG_W_SCALE) != 0, accm = (d->flags & PCCX_FLAG_ACCM) != 0;
    npk_fenv e = rne();
    uint16_t *arow = malloc(2 * (size_t)K * sizeof *arow); /* the activation row, a view row */
    if (!arow)
        return FAIL(PCCX_E_NOMEM, "%s: out of memory", mn);
    uint16_t *wrow = arow + K;
    for (uint64_t m = 0; m < M; m++) {
        uint64_t arow0 = a0 + m * K, n = 0;
        uint32_t yb[NPK_XDOT_ROWS];
        for (uint64_t k = 0; k < K; k++)
            arow[k] = pccx_l2_get(c, arow0 + k);
        /* On the fast path (the row in one binary64 window, or in two), blocks of weight rows
         * share each read of the prepared row. */
        double *ad = c->dscratch;
        int win = t->view ? 0 : npk_xdot_prepare(arow, K, ad) ? 1
                                : npk_xdot_prepare2(arow, K, ad, ad + K) ? 2 : 0;
        if (win) {
            for (; n + NPK_XDOT_ROWS <= N; n += NPK_XDOT_ROWS) {
                const uint8_t *w = t->codes + (size_t)n * t->row_bytes;
                if (win == 1)
                    npk_xdot_bf16_i4_fast_rows(ad, w, t->row_bytes, K, yb);
                else
                    npk_xdot_bf16_i4_fast2_rows(ad, ad + K, arow, w, t->row_bytes, K, yb);
                for (unsigned r = 0; r < NPK_XDOT_ROWS; r++)
                    c->scratch[m * N + n + r] = gemx_out(c, t, yb[r], y0 + m * N, n + r, ws,
                                                         accm, &e);
            }
            for (; n < N; n++) {
                uint32_t y = dot_int4(c, t, arow, ad, win, (uint32_t)n);
                c->scratch[m * N + n] = gemx_out(c, t, y, y0 + m * N, n, ws, accm, &e);
            }
        }
        for (; n < N; n++) {
            uint32_t y = t->view ? dot_view(c, t, arow, (uint32_t)n, wrow)
                                 : dot_int4(c, t, arow, c->dscratch, 0, (uint32_t)n);
            c->scratch[m * N + n] = gemx_out(c, t, y, y0 + m * N, n, ws, accm, &e);
        }
    }
    free(arow);
    uint32_t mx = 0;
    for (uint64_t i = 0; i < M * N; i++) {
        pccx_l2_set(c, y0 + i, c->scratch[i]);
        if (d->flags & PCCX_FLAG_FINDEMAX)
            mx = i ? npk_f32_maximum(mx, widen(c->scratch[i]), &e) : widen(c->scratch[i]);
    }
    if (d->flags & PCCX_FLAG_FINDEMAX)
        c->emax = canon32(mx);
    c->q_head = (c->q_head + 1) % c->q_cap;
    c->q_len--;
    c->macs += M * N * K;
    c->weights += N * K;

    pccx_fp_init(fp, d->opcode == PCCX_OP_GEMV ? PCCX_FP_GEMV : PCCX_FP_GEMM);
    fp->M = M;
    fp->K = K;
    fp->N = N;
    fp->lane_mask = d->lanes & 0xF; /* 0 = every lane (§4.7) */
    fp->accm = accm;
    fp->weight_view = t->view;
    fp->l2_rd[0] = (pccx_range){a0, a0 + M * K};
    if (accm)
        fp->l2_rd[1] = (pccx_range){y0, y0 + M * N};
    fp->l2_wr = (pccx_range){y0, y0 + M * N};
    if (t->view)
        fp->host_rd = (pccx_range){vlo, vhi};
    fp->cc_rd[0] = (int)d->shape_ptr;
    fp->cc_rd[1] = (int)d->size_ptr;
    fp->emax_wr = (d->flags & PCCX_FLAG_FINDEMAX) != 0;
    return PCCX_OK;
}

/* ---- CVO (§6.5, §7) ------------------------------------------------------------------------- */

static uint32_t unary(unsigned func, uint32_t t, npk_fenv *e)
{
    switch (func) {
    case PCCX_CVO_EXP: return npk_f32_exp(t);
    case PCCX_CVO_SQRT: return npk_f32_sqrt(t, e);
    case PCCX_CVO_GELU: return npk_f32_gelu_tanh(t);
    case PCCX_CVO_SIN: return npk_f32_sin(t);
    case PCCX_CVO_COS: return npk_f32_cos(t);
    case PCCX_CVO_RECIP: return npk_f32_div(0x3F800000u, t, e);
    case PCCX_CVO_TANH: return npk_f32_tanh(t);
    default: return t; /* COPY */
    }
}

static int exec_cvo(pccx_t *c, const pccx_insn_t *d, pccx_fp *fp, char *msg, size_t msg_len)
{
    const pccx_cvo_info *ci = &pccx_cvos[d->func];
    uint64_t n = d->length, src = d->src, dst = d->dst;
    if (n < 1)
        return FAIL(PCCX_E_SHAPE, "%s: length 0 (a CVO processes 1..65,535 elements)",
                    ci->mnemonic);
    uint64_t n_out = ci->shape == PCCX_S_SCALAR ? n - 1 : ci->shape == PCCX_S_REDUCE ? 1 : n;
    if (!npk_range_ok(src, n, PCCX_L2_ELEMS))
        return FAIL(PCCX_E_L2_RANGE, "%s: input elements [0x%llx, 0x%llx) leave L2", ci->mnemonic,
                    (unsigned long long)src, (unsigned long long)(src + n));
    if (!npk_range_ok(dst, n_out, PCCX_L2_ELEMS))
        return FAIL(PCCX_E_L2_RANGE, "%s: output elements [0x%llx, 0x%llx) leave L2",
                    ci->mnemonic, (unsigned long long)dst, (unsigned long long)(dst + n_out));
    if (ensure_scratch(c, (size_t)(n_out ? n_out : 1)))
        return FAIL(PCCX_E_NOMEM, "%s: out of memory", ci->mnemonic);
    int sub = (d->flags & PCCX_CVO_FLAG_SUB_EMAX) != 0;
    int accm = (d->flags & PCCX_CVO_FLAG_ACCM) != 0;
    int recip = (d->flags & PCCX_CVO_FLAG_RECIP_SCALE) != 0;
    npk_fenv e = rne();
#define T(i) (sub ? npk_f32_sub(widen(pccx_l2_get(c, src + (i))), c->emax, &e) \
                  : widen(pccx_l2_get(c, src + (i))))
    uint32_t new_emax = 0;
    int sets_emax = 0;
    /* results r_j (binary32) into scratch as BF16 after the write-back rule */
#define OUT(j, r)                                                                        \
    do {                                                                                 \
        uint32_t r_ = (r);                                                               \
        if (accm)                                                                        \
            r_ = npk_f32_add(widen(pccx_l2_get(c, dst + (j))), r_, &e);                  \
        c->scratch[j] = rne16(r_);                                                       \
    } while (0)
    switch (ci->shape) {
    case PCCX_S_UNARY:
        for (uint64_t j = 0; j < n; j++)
            OUT(j, unary(d->func, T(j), &e));
        break;
    case PCCX_S_BINARY: /* VMUL: dst_j x t_j */
        for (uint64_t j = 0; j < n; j++)
            OUT(j, npk_f32_mul(widen(pccx_l2_get(c, dst + j)), T(j), &e));
        break;
    case PCCX_S_SCALAR: {
        uint32_t s = T(0);
        for (uint64_t j = 0; j + 1 < n; j++) {
            uint32_t v = T(j + 1), r;
            if (d->func == PCCX_CVO_SCALE)
                r = recip ? npk_f32_div(v, s, &e) : npk_f32_mul(v, s, &e);
            else if (d->func == PCCX_CVO_ADDS)
                r = npk_f32_add(v, s, &e);
            else
                r = npk_f32_maximum(v, s, &e);
            OUT(j, r);
        }
        break;
    }
    case PCCX_S_REDUCE: {
        uint32_t r;
        if (d->func == PCCX_CVO_REDUCE_MAX) {
            r = T(0);
            for (uint64_t i = 1; i < n; i++)
                r = npk_f32_maximum(r, T(i), &e);
            r = canon32(r);
            new_emax = r;
            sets_emax = 1;
        } else {
            npk_xsum xs;
            npk_xsum_init(&xs);
            for (uint64_t i = 0; i < n; i++) {
                uint32_t t = T(i);
                if (d->func == PCCX_CVO_REDUCE_SUMSQ)
                    npk_xsum_add_f32_mul(&xs, t, t);
                else
                    npk_xsum_add_f32(&xs, t);
            }
            r = npk_xsum_to_f32(&xs, &e);
        }
        OUT(0, r);
        break;
    }
    }
#undef T
#undef OUT
    for (uint64_t j = 0; j < n_out; j++)
        pccx_l2_set(c, dst + j, c->scratch[j]);
    if (sets_emax)
        c->emax = new_emax;

    pccx_fp_init(fp, PCCX_FP_CVO);
    fp->sync = !d->async;
    fp->func = d->func;
    fp->recip_scale = recip;
    fp->accm = accm;
    fp->cvo_src = src;
    fp->n_in = n;
    fp->cvo_dst = dst;
    fp->n_out = n_out;
    fp->l2_rd[0] = (pccx_range){src, src + n};
    if (accm || ci->shape == PCCX_S_BINARY)
        fp->l2_rd[1] = (pccx_range){dst, dst + n_out};
    fp->l2_wr = (pccx_range){dst, dst + n_out};
    fp->emax_rd = sub;
    fp->emax_wr = sets_emax;
    return PCCX_OK;
}

int pccx_exec(pccx_t *c, const pccx_insn_t *d, pccx_fp *fp, char *msg, size_t msg_len)
{
    c->mem_zero = 0; /* any instruction may write L2 or host DDR */
    msg[0] = 0;
    switch (d->opcode) {
    case PCCX_OP_MEMSET: return exec_memset(c, d, fp);
    case PCCX_OP_MEMCPY: return exec_memcpy(c, d, fp, msg, msg_len);
    case PCCX_OP_GEMV:
    case PCCX_OP_GEMM: return exec_gemx(c, d, fp, msg, msg_len);
    case PCCX_OP_CVO: return exec_cvo(c, d, fp, msg, msg_len);
    default: return FAIL(PCCX_E_ILLEGAL_OPCODE, "reserved opcode 0x%X", d->opcode);
    }
}
