/* The pccx host API (spec §12, include/npukit/pccx.h): a pccx_t is the state of an npk_machine
 * created for target "pccx", so everything here goes through the same issue path, timing model
 * and observers as a program run by `npukit run`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/checked.h"
#include "targets/pccx/machine.h"

extern const npk_target npk_target_pccx;

pccx_t *pccx_of(npk_machine *m)
{
    return npk_target_state(m, &npk_target_pccx);
}

npk_machine *pccx_machine(pccx_t *ctx)
{
    return ctx ? ctx->m : NULL;
}

int pccx_init(pccx_t **ctx, const pccx_config_t *cfg)
{
    if (!ctx)
        return PCCX_E_ARG;
    *ctx = NULL;
    char settings[2048];
    size_t len = 0;
    pccx_config_t def = {0};
    if (!cfg)
        cfg = &def;
    len += (size_t)snprintf(settings + len, sizeof settings - len, "ext=%d,mode=%s", cfg->ext ? 1 : 0,
                            cfg->hw_compat ? "hw-compat" : "strict");
    if (cfg->host_ddr_bytes)
        len += (size_t)snprintf(settings + len, sizeof settings - len, ",host_ddr_bytes=%llu",
                                (unsigned long long)cfg->host_ddr_bytes);
    if (cfg->timing) {
        const pccx_timing_t *t = cfg->timing;
        len += (size_t)snprintf(
            settings + len, sizeof settings - len,
            ",f_core_mhz=%u,f_axi_mhz=%u,cmd_fifo_depth=%u,decode_cycles=%u,"
            "engine_queue_depth=%u,host_push_axi_cycles=%u,l2_read_latency=%u,"
            "l2_port_words_per_cycle=%u,ddr_latency_ns=%u,mem_setup_cycles=%u,memset_cycles=%u,"
            "acp_bytes_per_axi_cycle=%u,hp_bytes_per_axi_cycle=%u,gemm_ports=%u,gemv_ports=%u,"
            "gemv_lanes=%u,gemv_lane_width=%u,gemv_latency=%u,gemm_rows=%u,gemm_cols=%u,"
            "gemm_macs_per_pe=%u,gemm_latency=%u,cvo_cores=%u,cvo_overhead=%u,"
            "cvo_lat_recip_scale=%u",
            t->f_core_mhz, t->f_axi_mhz, t->cmd_fifo_depth, t->decode_cycles,
            t->engine_queue_depth, t->host_push_axi_cycles, t->l2_read_latency,
            t->l2_port_words_per_cycle, t->ddr_latency_ns, t->mem_setup_cycles, t->memset_cycles,
            t->acp_bytes_per_axi_cycle, t->hp_bytes_per_axi_cycle, t->gemm_ports, t->gemv_ports,
            t->gemv_lanes, t->gemv_lane_width, t->gemv_latency, t->gemm_rows, t->gemm_cols,
            t->gemm_macs_per_pe, t->gemm_latency, t->cvo_cores, t->cvo_overhead,
            t->cvo_lat_recip_scale);
        for (unsigned f = 0; f < PCCX_N_CVO_FUNCS && len < sizeof settings; f++)
            len += (size_t)snprintf(settings + len, sizeof settings - len, ",lat_%s=%u",
                                    pccx_cvos[f].mnemonic, t->cvo_lat[f]);
    }
    if (len >= sizeof settings)
        return PCCX_E_ARG;
    npk_machine *m = NULL;
    char err[512];
    npk_status st = npk_create(&m, "pccx", settings, err, sizeof err);
    if (st != NPK_OK)
        return st == NPK_ERR_NOMEM ? PCCX_E_NOMEM : PCCX_E_ARG;
    pccx_t *c = pccx_of(m);
    c->owns_machine = 1;
    *ctx = c;
    return PCCX_OK;
}

void pccx_deinit(pccx_t *ctx)
{
    if (ctx && ctx->owns_machine)
        npk_destroy(ctx->m);
}

int pccx_reset(pccx_t *ctx)
{
    if (!ctx)
        return PCCX_E_ARG;
    pccx_state_reset(ctx);
    /* API tensors stay defined (their handles remain valid); the queue is empty (§2). */
    return PCCX_OK;
}

int pccx_clear_error(pccx_t *ctx)
{
    if (!ctx)
        return PCCX_E_ARG;
    ctx->halted = 0;
    memset(&ctx->error, 0, sizeof ctx->error);
    return PCCX_OK;
}

/* ---- issue ------------------------------------------------------------------------------------ */

int pccx_issue(pccx_t *ctx, uint64_t word)
{
    if (!ctx)
        return PCCX_E_ARG;
    int rc = pccx_issue_word(ctx, word);
    pccx_emit_observed(ctx);
    return rc;
}

#define ISSUE(encode_call)                  \
    do {                                    \
        uint64_t w_;                        \
        int rc_ = (encode_call);            \
        if (rc_ != PCCX_OK)                 \
            return rc_;                     \
        return pccx_issue(ctx, w_);         \
    } while (0)

int pccx_gemv(pccx_t *ctx, uint32_t dest, uint32_t src, unsigned flags, unsigned size_ptr,
              unsigned shape_ptr, unsigned lanes)
{
    ISSUE(pccx_enc_gemv(&w_, dest, src, flags, size_ptr, shape_ptr, lanes));
}

int pccx_gemm(pccx_t *ctx, uint32_t dest, uint32_t src, unsigned flags, unsigned size_ptr,
              unsigned shape_ptr, unsigned lanes)
{
    ISSUE(pccx_enc_gemm(&w_, dest, src, flags, size_ptr, shape_ptr, lanes));
}

int pccx_memcpy(pccx_t *ctx, unsigned from_host, unsigned to_host, uint32_t dest, uint32_t src,
                uint32_t aux, unsigned shape_ptr, unsigned async)
{
    ISSUE(pccx_enc_memcpy(&w_, from_host, to_host, dest, src, aux, shape_ptr, async));
}

int pccx_memset(pccx_t *ctx, unsigned bank, unsigned index, uint16_t a, uint16_t b, uint16_t c)
{
    ISSUE(pccx_enc_memset(&w_, bank, index, a, b, c));
}

int pccx_cvo(pccx_t *ctx, unsigned func, uint32_t src, uint32_t dst, uint32_t length,
             unsigned flags, unsigned async)
{
    ISSUE(pccx_enc_cvo(&w_, func, src, dst, length, flags, async));
}

/* Simulated microseconds to core cycles. */
static uint64_t us_to_cycles(const pccx_t *c, uint64_t us)
{
    return us * c->timing.f_core_mhz;
}

int pccx_sync(pccx_t *ctx, uint64_t timeout_us)
{
    if (!ctx)
        return PCCX_E_ARG;
    int rc = pccx_tm_sync(ctx->tm, timeout_us ? us_to_cycles(ctx, timeout_us) : 0);
    pccx_emit_observed(ctx);
    if (ctx->halted)
        return ctx->error.code;
    return rc == 0 ? PCCX_OK : PCCX_E_TIMEOUT;
}

/* ---- host DDR ----------------------------------------------------------------------------------- */


int pccx_host_write(pccx_t *ctx, uint64_t byte_off, const void *src, size_t n)
{
    if (!ctx || (!src && n))
        return PCCX_E_ARG;
    if (!npk_range_ok(byte_off, n, ctx->host_bytes))
        return PCCX_E_HOST_RANGE;
    if (n) {
        ctx->mem_zero = 0;
        memcpy(ctx->host + byte_off, src, n);
    }
    return PCCX_OK;
}

int pccx_host_read(pccx_t *ctx, uint64_t byte_off, void *dst, size_t n)
{
    if (!ctx || (!dst && n))
        return PCCX_E_ARG;
    if (!npk_range_ok(byte_off, n, ctx->host_bytes))
        return PCCX_E_HOST_RANGE;
    if (n)
        memcpy(dst, ctx->host + byte_off, n);
    return PCCX_OK;
}

int pccx_host_window(pccx_t *ctx, uint64_t base_bytes)
{
    if (!ctx || base_bytes % 16)
        return PCCX_E_ARG;
    if (base_bytes >= ctx->host_bytes)
        return PCCX_E_HOST_RANGE;
    ctx->window = base_bytes;
    return PCCX_OK;
}

/* ---- weight streams ------------------------------------------------------------------------------ */

int pccx_weight_int4(pccx_t *ctx, uint32_t k, uint32_t n, const uint8_t *codes,
                     size_t row_stride_bytes, const float *scale, pccx_weight_t *h)
{
    if (!ctx || !codes || !scale || !h || k < 1 || k > 65535 || n < 1 || n > 65535)
        return PCCX_E_ARG;
    size_t rb = (k + 1) / 2;
    uint64_t last_row, span;
    /* the caller's buffer spans (n-1) strides plus one row; a stride so large that this wraps
     * cannot describe a real buffer, and the copy below would step outside it */
    if (row_stride_bytes < rb || !npk_mul_u64_ok(n - 1, row_stride_bytes, &last_row) ||
        !npk_add_u64_ok(last_row, rb, &span) || (uint64_t)(size_t)span != span)
        return PCCX_E_ARG;
    pccx_tensor t = {0};
    t.k = k;
    t.n = n;
    t.row_bytes = rb;
    t.codes = malloc((size_t)n * rb);
    t.scale = malloc((size_t)n * sizeof *t.scale);
    if (!t.codes || !t.scale) {
        pccx_tensor_free(&t);
        return PCCX_E_NOMEM;
    }
    for (uint32_t r = 0; r < n; r++)
        memcpy(t.codes + (size_t)r * rb, codes + (size_t)r * row_stride_bytes, rb);
    memcpy(t.scale, scale, (size_t)n * sizeof *t.scale); /* binary32 patterns */
    int rc = pccx_tensor_add(ctx, &t, h);
    if (rc != PCCX_OK)
        pccx_tensor_free(&t);
    return rc;
}

int pccx_weight_view_bf16(pccx_t *ctx, uint64_t base_byte, uint32_t n, uint32_t k,
                          int64_t stride_n, int64_t stride_k, pccx_weight_t *h)
{
    if (!ctx || !h || k < 1 || k > 65535 || n < 1 || n > 65535 || base_byte % 2)
        return PCCX_E_ARG;
    if (!ctx->ext)
        return PCCX_E_ARG; /* views are an ext feature (§7.3) */
    pccx_tensor t = {0};
    t.view = 1;
    t.k = k;
    t.n = n;
    t.base = base_byte;
    t.sn = stride_n;
    t.sk = stride_k;
    return pccx_tensor_add(ctx, &t, h);
}

int pccx_weight_push(pccx_t *ctx, pccx_weight_t h)
{
    if (!ctx || !pccx_tensor_get(ctx, h))
        return PCCX_E_ARG;
    return pccx_queue_push(ctx, h);
}

int pccx_weight_free(pccx_t *ctx, pccx_weight_t h)
{
    if (!ctx || !pccx_tensor_get(ctx, h))
        return PCCX_E_ARG;
    for (size_t i = 0; i < ctx->q_len; i++)
        if (ctx->queue[(ctx->q_head + i) % ctx->q_cap] == h)
            return PCCX_E_ARG; /* still queued */
    pccx_tensor_free(&ctx->tensors[h - 1]);
    ctx->tensor_live[h - 1] = 0;
    return PCCX_OK;
}

size_t pccx_weight_pending(const pccx_t *ctx)
{
    return ctx ? ctx->q_len : 0;
}

/* ---- AXI-Lite register view (§10) -------------------------------------------------------------- */

int pccx_reg_write32(pccx_t *ctx, uint32_t off, uint32_t v)
{
    if (!ctx)
        return PCCX_E_ARG;
    switch (off) {
    case 0x000:
        ctx->reg_lo = v;
        return PCCX_OK;
    case 0x004:
        return pccx_issue(ctx, (uint64_t)v << 32 | ctx->reg_lo);
    default:
        return PCCX_OK; /* KICK at 0x008 and other offsets: accepted, no effect */
    }
}

int pccx_reg_write64(pccx_t *ctx, uint32_t off, uint64_t v)
{
    if (!ctx)
        return PCCX_E_ARG;
    if (off == 0x000)
        return pccx_issue(ctx, v);
    return PCCX_OK;
}

uint64_t pccx_reg_read(pccx_t *ctx, uint32_t off)
{
    (void)off; /* every read offset returns the status word */
    if (!ctx)
        return 0;
    return pccx_tm_status(ctx->tm) | (ctx->halted ? PCCX_STATUS_ERROR : 0);
}

/* ---- inspection and back doors ------------------------------------------------------------------ */

int pccx_l2_read(pccx_t *ctx, uint32_t word, void *dst, uint32_t nwords)
{
    if (!ctx || (!dst && nwords))
        return PCCX_E_ARG;
    if (!npk_range_ok(word, nwords, PCCX_L2_WORDS))
        return PCCX_E_L2_RANGE;
    memcpy(dst, ctx->l2 + 16 * (uint64_t)word, 16 * (size_t)nwords);
    return PCCX_OK;
}

int pccx_l2_write(pccx_t *ctx, uint32_t word, const void *src, uint32_t nwords)
{
    if (!ctx || (!src && nwords))
        return PCCX_E_ARG;
    if (!npk_range_ok(word, nwords, PCCX_L2_WORDS))
        return PCCX_E_L2_RANGE;
    ctx->mem_zero = 0;
    memcpy(ctx->l2 + 16 * (uint64_t)word, src, 16 * (size_t)nwords);
    return PCCX_OK;
}

int pccx_cc_read(pccx_t *ctx, unsigned bank, unsigned index, uint32_t xyz[3])
{
    if (!ctx || bank > 1 || index >= PCCX_CC_ENTRIES || !xyz)
        return PCCX_E_ARG;
    memcpy(xyz, ctx->cc[bank][index], 3 * sizeof xyz[0]);
    return PCCX_OK;
}

float pccx_emax_get(const pccx_t *ctx)
{
    float f = 0;
    if (ctx)
        memcpy(&f, &ctx->emax, sizeof f);
    return f;
}

int pccx_emax_set(pccx_t *ctx, float v)
{
    if (!ctx)
        return PCCX_E_ARG;
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    ctx->emax = isnan(v) ? 0x7FC00000u : b;
    return PCCX_OK;
}

int pccx_host_advance(pccx_t *ctx, uint64_t ns)
{
    if (!ctx)
        return PCCX_E_ARG;
    /* ceil(ns * f_core / 1000) core cycles */
    pccx_tm_host_advance(ctx->tm, (ns * ctx->timing.f_core_mhz + 999) / 1000);
    return PCCX_OK;
}

int pccx_stats(const pccx_t *ctx, pccx_stats_t *out)
{
    if (!ctx || !out)
        return PCCX_E_ARG;
    memset(out, 0, sizeof *out);
    pccx_tm_stats(ctx->tm, out);
    for (int e = 0; e < PCCX_N_ENGINES; e++)
        out->engine_idle[e] = out->cycles - out->engine_busy[e];
    out->insns = ctx->issued;
    out->macs = ctx->macs;
    out->weights_streamed = ctx->weights;
    return PCCX_OK;
}

int pccx_last_error(const pccx_t *ctx, pccx_error_t *out)
{
    if (!ctx || !out)
        return PCCX_E_ARG;
    *out = ctx->error;
    return PCCX_OK;
}

int pccx_insn_times(const pccx_t *ctx, uint64_t index, pccx_times_t *out)
{
    if (!ctx || !out)
        return PCCX_E_ARG;
    const pccx_tm_rec *r = pccx_tm_record(ctx->tm, index);
    if (!r)
        return PCCX_E_ARG;
    out->a = r->a;
    out->d = r->d;
    out->s = r->s;
    out->c = r->c;
    out->engine = r->engine;
    return PCCX_OK;
}
