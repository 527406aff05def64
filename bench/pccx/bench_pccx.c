/* pccx functional-model speed: GEMV/GEMM of BF16 activations x INT4 weights with per-row scales
 * (w_scale) through the pccx host API, next to a native C loop computing the same outputs
 * (float activations, integer weights from the packed nibbles, binary64 sums, the scale in
 * binary32, RNE to BF16) in the same command; timed runs alternate, best of N by CPU time.
 * Activations span a few binades, as in an LLM, so the model takes its binary64 fast path and
 * the native binary64 sums are exact too: both outputs must be equal bit for bit.
 * Reported: multiply-accumulates per second of both and the ratio model / native.
 * Usage: bench_pccx [--runs N] [M K N ...] (default: 1 2048 2048, 1 2048 16384, 16 2048 2048;
 * M = 1 is a GEMV, M > 1 a GEMM) */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_machine.h"
#include "npukit/pccx.h"

/* Each timed sample repeats the operation until it has at least this many MACs, so that small
 * shapes are not dominated by clock resolution and scheduler noise. */
#define MIN_SAMPLE_MACS (32.0 * 1024 * 1024)

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rng_next(uint64_t *s) /* xorshift64 */
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static float bf16_to_float(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* RNE to BF16 by the §3.2 formula (no NaNs occur here). */
static uint16_t float_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

/* The native reference: what a C programmer writes for this layer. Exact here because every
 * partial sum fits binary64 (see the activation range in main). The sum starts at -0 so that
 * an all -0 product row gives -0, as ExactSum does. */
static void native_gemx(unsigned M, unsigned K, unsigned N, const uint16_t *a, const uint8_t *w,
                        const float *scale, float *af, uint16_t *y)
{
    size_t rb = (K + 1) / 2;
    for (unsigned m = 0; m < M; m++) {
        for (unsigned k = 0; k < K; k++)
            af[k] = bf16_to_float(a[(size_t)m * K + k]);
        for (unsigned n = 0; n < N; n++) {
            const uint8_t *row = w + (size_t)n * rb;
            double acc = -0.0;
            for (unsigned k = 0; k < K; k++) {
                unsigned b = row[k / 2];
                int q = (int)(((k & 1) ? b >> 4 : b & 15) ^ 8) - 8;
                acc += (double)af[k] * q;
            }
            y[(size_t)m * N + n] = float_to_bf16((float)acc * scale[n]);
        }
    }
}

int main(int argc, char **argv)
{
    unsigned runs = 7, shapes[16][3], ns = 0;
    int rc = npk_bench_shape_args(argc, argv, "bench_pccx", "M K N", &runs, shapes, 16, &ns);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (!ns) {
        unsigned def[3][3] = {{1, 2048, 2048}, {1, 2048, 16384}, {16, 2048, 2048}};
        memcpy(shapes, def, sizeof def);
        ns = 3;
    }
    if (runs < 1)
        runs = 1;
    npk_bench_machine();
    printf("pccx functional model (GEMV/GEMM, BF16 x INT4, w_scale) vs native C (binary64 sums); "
           "best of %u by CPU time\n", runs);
    printf("%-8s %-18s %12s %14s %8s\n", "op", "M x K x N", "model GMAC/s", "native GMAC/s",
           "ratio");
    int fail = 0;
    for (unsigned s = 0; s < ns; s++) {
        unsigned M = shapes[s][0], K = shapes[s][1], N = shapes[s][2];
        if (M < 1 || K < 1 || N < 1 || K > 65535 || N > 65535 || M > 65535 ||
            (uint64_t)M * K + (uint64_t)M * N + 16 > PCCX_L2_ELEMS) {
            fprintf(stderr, "bench_pccx: shape %u %u %u does not fit pccx (L2 %u elements)\n",
                    M, K, N, PCCX_L2_ELEMS);
            return 2;
        }
        size_t rb = (K + 1) / 2;
        uint16_t *a = malloc(sizeof *a * ((size_t)M * K + 8));
        uint8_t *w = malloc((size_t)N * rb);
        float *scale = malloc(sizeof *scale * N), *af = malloc(sizeof *af * K);
        uint16_t *ym = malloc(sizeof *ym * ((size_t)M * N + 8)), *yn = malloc(sizeof *yn * M * N);
        if (!a || !w || !scale || !af || !ym || !yn) {
            fprintf(stderr, "bench_pccx: out of memory\n");
            return 1;
        }
        uint64_t rng = 0x9E3779B97F4A7C15ull ^ ((uint64_t)s << 32);
        /* |a| in [2^-6, 2^4): a span of 10 binades + 8 significand bits + 12 product bits +
         * log2 K stays far below 53 bits, so both sides sum exactly in binary64. */
        for (size_t i = 0; i < (size_t)M * K; i++) {
            uint64_t r = rng_next(&rng);
            unsigned sign = (unsigned)(r >> 63), ex = 121 + (unsigned)(r >> 32) % 10;
            a[i] = (uint16_t)(sign << 15 | ex << 7 | (r & 0x7F));
        }
        for (size_t i = 0; i < (size_t)N * rb; i++)
            w[i] = (uint8_t)rng_next(&rng);
        for (unsigned n = 0; n < N; n++)
            scale[n] = (float)(1 + rng_next(&rng) % 1000) * (1.0f / 65536);

        pccx_t *c = NULL;
        pccx_weight_t h = 0;
        uint32_t ain = 0, yout = (uint32_t)(((uint64_t)M * K + 7) / 8); /* L2 words */
        memset(a + (size_t)M * K, 0, 8 * sizeof *a); /* the padding of the last L2 word */
        if (pccx_init(&c, NULL) != PCCX_OK ||
            pccx_weight_int4(c, K, N, w, rb, scale, &h) != PCCX_OK ||
            pccx_memset(c, PCCX_BANK_FMAP, 1, (uint16_t)M, (uint16_t)K, 1) != PCCX_OK ||
            pccx_memset(c, PCCX_BANK_FMAP, 2, (uint16_t)M, (uint16_t)N, 1) != PCCX_OK ||
            pccx_l2_write(c, ain, a, yout) != PCCX_OK) {
            fprintf(stderr, "bench_pccx: pccx setup failed\n");
            return 1;
        }
        double macs = (double)M * K * N;
        /* capped: every issued instruction keeps a timing record until the context ends */
        unsigned reps = macs >= MIN_SAMPLE_MACS ? 1 : (unsigned)(MIN_SAMPLE_MACS / macs + 0.5);
        if (reps > 1000)
            reps = 1000;
        double best_model = 1e30, best_nat = 1e30;
        for (unsigned r = 0; r < runs; r++) {
            double c0 = cpu_s();
            for (unsigned i = 0; i < reps; i++) {
                int rc = pccx_weight_push(c, h);
                if (rc == PCCX_OK)
                    rc = M == 1 ? pccx_gemv(c, yout, ain, PCCX_FLAG_W_SCALE, 2, 1, 0)
                                : pccx_gemm(c, yout, ain, PCCX_FLAG_W_SCALE, 2, 1, 0);
                if (rc != PCCX_OK) {
                    pccx_error_t e;
                    pccx_last_error(c, &e);
                    fprintf(stderr, "bench_pccx: %s: %s\n", pccx_error_name(rc), e.message);
                    return 1;
                }
            }
            double c1 = cpu_s();
            for (unsigned i = 0; i < reps; i++)
                native_gemx(M, K, N, a, w, scale, af, yn);
            double c2 = cpu_s();
            pccx_sync(c, 0); /* retire the timing records outside the timed region */
            if (c1 - c0 < best_model)
                best_model = c1 - c0;
            if (c2 - c1 < best_nat)
                best_nat = c2 - c1;
        }
        pccx_l2_read(c, yout, ym, (uint32_t)(((uint64_t)M * N + 7) / 8));
        int same = !memcmp(ym, yn, sizeof *yn * M * N);
        double gm = macs * reps / best_model * 1e-9, gn = macs * reps / best_nat * 1e-9;
        char shape[40];
        snprintf(shape, sizeof shape, "%u x %u x %u", M, K, N);
        printf("%-8s %-18s %12.3f %14.3f %8.2f  %s\n", M == 1 ? "GEMV" : "GEMM", shape, gm, gn,
               gm / gn, same ? "results equal" : "RESULTS DIFFER");
        fail |= !same;
        pccx_deinit(c);
        free(a), free(w), free(scale), free(af), free(ym), free(yn);
    }
    return fail;
}
