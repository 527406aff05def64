/* One Gemma-shaped transformer decoder layer at small dimensions, run as pccx instructions
 * through the public API (pccx_llm.c) for a few consecutive decode steps, and checked against
 * a binary64 host reference (llm_ref.c) on the same INT4 weights and BF16 inputs.
 *
 *   decoder_layer [--check] [--seed N] [--past T] [--steps S] [--rope-host]
 *                 [--gemv-only] [--inject-fault] [--timeline FILE] [--trace] [--verbose]
 *
 * --gemv-only keeps every projection on the GEMV engine (by default K, V and FFN-up run as
 * one-row GEMMs on the GEMM engine, concurrently). --inject-fault changes one row scale of the
 * reference's FFN down matrix by 25 % after the NPU has its copy: the check must then fail (a
 * test of the checker). --trace prints every instruction of the decode steps as it retires
 * (cycle, word, disassembly); --timeline writes a Perfetto trace of the whole run.
 *
 * The KV cache (host DDR) starts with T seeded BF16 rows; each step appends its own K/V rows
 * with MEMCPY L2->host and attends over all of them through BF16 weight views. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm_ref.h"
#include "pccx_llm.h"

/* Tolerance (README.md, "Tolerance"): max |device - reference| over the output vector, divided
 * by the RMS of the reference output: 25 dependent BF16 roundings of at most 2^-9 each. With
 * the §8.3 recipe the RoPE angles add theta_err (radians, below) on top. */
#define LAYER_TOL 0.05
/* The K/V rows the device appended, against the reference's (max abs / RMS of the row). With
 * the §8.3 recipe the angles pos * omega are themselves BF16 values on the NPU, off by up to
 * half a BF16 ulp of pos * omega (theta_err below); rotating a pair by an angle error e moves
 * each element by at most e * |pair|, and |pair| stays below 4 RMS for these vectors, so that
 * mode gets KV_TOL + 4 * theta_err (llm_theta_err). */
#define KV_TOL 0.05

/* --help: to stdout, status 0; a bad command line: to stderr, status 2 */
static void usage(FILE *f, int status)
{
    fprintf(f, "usage: pccx_decoder_layer [--check] [--seed N] [--past T] [--steps S] "
               "[--rope-host] [--gemv-only] [--inject-fault] [--timeline FILE] [--trace] "
               "[--verbose]\n"
               "One Gemma-shaped decoder layer on pccx, decode steps over a KV cache, against "
               "its binary64 reference\n(examples/pccx/llm/README.md).\n");
    exit(status);
}

static double rms(const double *v, uint32_t n)
{
    double s = 0;
    for (uint32_t i = 0; i < n; i++)
        s += v[i] * v[i];
    return sqrt(s / n);
}

/* max |a - b| / rms(b) */
static double rel_err(const float *a, const double *b, uint32_t n)
{
    double m = 0;
    for (uint32_t i = 0; i < n; i++)
        m = fmax(m, fabs(a[i] - b[i]));
    return m / rms(b, n);
}

int main(int argc, char **argv)
{
    int check = 0, verbose = 0, rope_host = 0, trace = 0, gemv_only = 0, inject = 0;
    uint64_t seed = 2026;
    uint32_t past = 8, steps = 4;
    const char *timeline = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--check"))
            check = 1;
        else if (!strcmp(argv[i], "--rope-host"))
            rope_host = 1;
        else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
        else if (!strcmp(argv[i], "--trace"))
            trace = 1;
        else if (!strcmp(argv[i], "--gemv-only"))
            gemv_only = 1;
        else if (!strcmp(argv[i], "--inject-fault"))
            inject = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--past") && i + 1 < argc)
            past = (uint32_t)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc)
            steps = (uint32_t)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--timeline") && i + 1 < argc)
            timeline = argv[++i];
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            usage(stdout, 0);
        else
            usage(stderr, 2);
    }
    if (steps < 1 || past + steps > 256)
        usage(stderr, 2);

    /* D = 64, 2 query heads sharing 1 KV head of 32, gated FFN of 128 */
    llm_dims d = {.dim = 64, .n_heads = 2, .n_kv_heads = 1, .head_dim = 32, .ffn = 128,
                  .n_layers = 1, .max_pos = past + steps, .vocab = 0, .rope_base = 10000.0f,
                  .eps = 1e-6f};
    const uint32_t D = d.dim, hd = d.head_dim, KV = d.n_kv_heads;
    uint64_t rng = seed;

    /* seeded weights: amplitudes chosen so q.k scores have RMS ~1.5 and the residual branch
     * outputs are comparable to the residual stream */
    /* everything released at `out` is declared here, before the first goto */
    llm_layer_weights w = {0};
    pccx_t *px = NULL;
    llm_ctx *c = NULL;
    ref_cache rcache = {0};
    int status = 1, fails = 0;
    double worst = 0, worst_kv = 0;
    uint64_t cycles_sum = 0;
    uint16_t attn_norm[64], ffn_norm[64];
    for (uint32_t i = 0; i < D; i++) {
        attn_norm[i] = llm_bf16((float)(0.8 + 0.4 * llm_uniform(&rng)));
        ffn_norm[i] = llm_bf16((float)(0.8 + 0.4 * llm_uniform(&rng)));
    }
    w.attn_norm = attn_norm;
    w.ffn_norm = ffn_norm;
    int rc = 0;
    rc |= llm_int4_random(&w.q, D, d.n_heads * hd, 0.5, &rng);
    rc |= llm_int4_random(&w.k, D, KV * hd, 0.5, &rng);
    rc |= llm_int4_random(&w.v, D, KV * hd, 1.0, &rng);
    rc |= llm_int4_random(&w.o, d.n_heads * hd, D, 0.7, &rng);
    rc |= llm_int4_random(&w.gate, D, d.ffn, 1.0, &rng);
    rc |= llm_int4_random(&w.up, D, d.ffn, 1.0, &rng);
    rc |= llm_int4_random(&w.down, d.ffn, D, 0.7, &rng);
    pccx_config_t cfg = {.ext = 1, .host_ddr_bytes = 4u << 20};
    if (rc || !(c = malloc(sizeof *c)) || ref_cache_init(&rcache, &d)) {
        fprintf(stderr, "decoder_layer: out of memory\n");
        goto out;
    }
    if (pccx_init(&px, &cfg) != PCCX_OK) {
        fprintf(stderr, "decoder_layer: pccx_init failed\n");
        goto out;
    }
    if (timeline && npk_timeline_open(pccx_machine(px), timeline) != NPK_OK) {
        fprintf(stderr, "decoder_layer: cannot open timeline %s\n", timeline);
        goto out;
    }
    if (llm_setup(c, px, &d, &w, NULL, NULL) != PCCX_OK) {
        fprintf(stderr, "decoder_layer: setup: %s (%s)\n", c->where, pccx_error_name(c->rc));
        goto out;
    }
    c->rope_host = rope_host;
    c->dual_engine = !gemv_only;
    if (inject)  /* pccx_weight_int4 copied the tensors: only the reference sees this */
        w.down.scale[5] *= 1.25f;
    if (trace)
        npk_trace_text(pccx_machine(px), stdout);

    /* earlier positions: seeded BF16 K (RMS ~0.5, like the projections) and V (RMS ~1) rows,
     * the same values in the device cache and the reference's */
    uint16_t row[256];
    for (uint32_t t = 0; t < past; t++)
        for (uint32_t g = 0; g < KV; g++)
            for (int isv = 0; isv < 2; isv++) {
                double *dst = (isv ? rcache.v : rcache.k) + ((size_t)g * d.max_pos + t) * hd;
                for (uint32_t j = 0; j < hd; j++) {
                    row[j] = llm_bf16((float)((isv ? 1.7 : 0.87) * (2 * llm_uniform(&rng) - 1)));
                    dst[j] = llm_f32(row[j]);
                }
                llm_cache_put(c, 0, isv, g, t, row);
            }

    printf("pccx decoder layer: D=%u, %u query heads + %u KV head(s) of %u, FFN %u (GELU-tanh "
           "gated), INT4 weights; %u cached positions, %u decode step(s); RoPE tables %s\n",
           D, d.n_heads, KV, hd, d.ffn, past, steps,
           rope_host ? "from the host" : "computed on the NPU (§8.3)");
    for (uint32_t s = 0; s < steps; s++) {
        uint32_t pos = past + s;
        uint16_t x[64];
        double xr[64];
        for (uint32_t i = 0; i < D; i++) {
            x[i] = llm_bf16((float)(1.7 * (2 * llm_uniform(&rng) - 1)));
            xr[i] = llm_f32(x[i]);
        }
        pccx_stats_t st0, st1;
        pccx_stats(px, &st0);
        float out[64];
        llm_begin_token(c, x, pos);
        llm_emit_layer(c, 0, pos);
        if (llm_read_residual(c, out) != PCCX_OK) {
            fprintf(stderr, "decoder_layer: step %u: %s (%s)\n", s, c->where,
                    pccx_error_name(c->rc));
            pccx_error_t e;
            if (pccx_last_error(px, &e) == PCCX_OK && e.code)
                fprintf(stderr, "  fault at instruction %llu: %s\n",
                        (unsigned long long)e.index, e.message);
            goto out;
        }
        pccx_stats(px, &st1);
        ref_layer(&d, &w, &rcache, xr, pos);

        double err = rel_err(out, xr, D);
        /* the appended K/V rows, read back from host DDR */
        double ekv = 0;
        for (uint32_t g = 0; g < KV; g++)
            for (int isv = 0; isv < 2; isv++) {
                float dev[256];
                pccx_host_read(px, (isv ? c->layer[0].vcache : c->layer[0].kcache) +
                                       2ull * ((size_t)g * d.max_pos + pos) * hd, row, 2u * hd);
                for (uint32_t j = 0; j < hd; j++)
                    dev[j] = llm_f32(row[j]);
                ekv = fmax(ekv, rel_err(dev, (isv ? rcache.v : rcache.k) +
                                                 ((size_t)g * d.max_pos + pos) * hd, hd));
            }
        worst = fmax(worst, err);
        worst_kv = fmax(worst_kv, ekv);
        uint64_t cyc = st1.cycles - st0.cycles;
        cycles_sum += cyc;
        double te = rope_host ? 0.0 : llm_theta_err(c, pos);
        double tol = LAYER_TOL + te, kv_tol = KV_TOL + 4 * te;
        int ok = err <= tol && ekv <= kv_tol;
        fails += !ok;
        printf("step %u (position %u, attends over %u): output RMS %.4f, max |err| / RMS = %.5f "
               "(tolerance %.3f), K/V rows %.5f (tolerance %.3f), %llu cycles  %s\n",
               s, pos, pos + 1, rms(xr, D), err, tol, ekv, kv_tol, (unsigned long long)cyc,
               ok ? "ok" : "MISMATCH");
        if (verbose || s == 0) {
            llm_report(stdout, &st0, &st1, 400);
            llm_report_phases(stdout, c);
        }
        if (verbose) {
            printf("  out[0..7]:");
            for (int i = 0; i < 8; i++)
                printf(" %+.4f/%+.4f", out[i], xr[i]);
            printf("  (device/reference)\n");
        }
    }
    pccx_stats_t all;
    pccx_stats(px, &all);
    printf("worst max|err|/RMS %.5f, K/V rows %.5f; "
           "%.0f cycles per layer step on average = %.2f us at 400 MHz\n",
           worst, worst_kv, (double)cycles_sum / steps,
           (double)cycles_sum / steps / 400.0);
    printf("whole run (setup + %u steps): %llu instructions, %llu cycles\n", steps,
           (unsigned long long)all.insns, (unsigned long long)all.cycles);
    if (timeline) {
        npk_timeline_close(pccx_machine(px));
        printf("timeline written to %s (open in https://ui.perfetto.dev)\n", timeline);
    }

    if (fails)
        printf("FAILED: %d step(s) outside the tolerance\n", fails);
    else
        printf("PASS\n");
    status = fails && check ? 1 : 0;
out:
    ref_cache_free(&rcache);
    free(c);
    pccx_deinit(px);
    llm_int4_free(&w.q);
    llm_int4_free(&w.k);
    llm_int4_free(&w.v);
    llm_int4_free(&w.o);
    llm_int4_free(&w.gate);
    llm_int4_free(&w.up);
    llm_int4_free(&w.down);
    return status;
}
