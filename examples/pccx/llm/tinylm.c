/* A tiny Gemma-shaped byte language model (models/pccx_tinylm) generating text on pccx: every
 * decoder layer and the INT4 LM head run as pccx instructions (KV caches in host DDR, read
 * through BF16 views); the host only looks up embeddings and picks the greedy next byte. A
 * binary64 host reference of the same quantised model runs on the same contexts: every
 * step's logits must be within tolerance and every greedy choice with a clear reference
 * margin must be the reference's; a free-running reference text is printed beside the NPU's.
 *
 *   tinylm [--check] [--prompt TEXT] [--tokens N] [--rope-device] [--timeline FILE]
 *          [--verbose] WEIGHTS.bin */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "llm_ref.h"
#include "tinylm_model.h"

/* Logits (README.md, "Tolerance"): max |NPU - reference| / RMS(reference logits) at every
 * step, both on the same context. About 55 dependent BF16 roundings (25 per layer as in
 * decoder_layer, the final RMSNorm, the head) of at most 2^-9 each. With the §8.3 recipe the
 * BF16 angles add their largest error in radians (llm_theta_err over the positions). */
#define LOGIT_TOL 0.10
/* A reference step is "clear" when its top-2 margin exceeds 2 * tol * RMS(logits): if every
 * logit is within tol * RMS, the NPU's greedy choice must then be the reference's. */

static void put_text(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n')
            fputs("\\n", stdout);
        else if (s[i] >= 32 && s[i] < 127)
            putchar(s[i]);
        else
            printf("\\x%02x", s[i]);
    }
}

static double now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC); /* C11; wall time only for the host-speed report */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


static char printable(uint8_t b)
{
    return b >= 32 && b < 127 ? (char)b : '?';
}

/* Everything main allocates after loading the model, freed in one place. */
typedef struct bufs {
    llm_ctx *c;
    uint8_t *text, *rtext, *ftok;
    float *lf;
    double *dl, *rl, *x;
    double *step[5];          /* per generated step: margins, logit RMS, forced ones, errors */
    uint64_t *cyc;
} bufs;

static int cleanup(bufs *b, pccx_t *px, tinylm_model *m, int status)
{
    pccx_deinit(px);
    free(b->c);
    free(b->text);
    free(b->rtext);
    free(b->ftok);
    free(b->lf);
    free(b->dl);
    free(b->rl);
    free(b->x);
    for (int i = 0; i < 5; i++)
        free(b->step[i]);
    free(b->cyc);
    tinylm_free(m);
    return status;
}

/* --help: to stdout, status 0; a bad command line: to stderr, status 2 */
static void usage(FILE *f, int status)
{
    fprintf(f, "usage: pccx_tinylm [--check] [--prompt TEXT] [--tokens N] [--rope-device] "
               "[--timeline FILE] [--verbose] WEIGHTS.bin\n"
               "The tiny byte-level language model (models/pccx_tinylm/tinylm.bin) generating "
               "text on pccx\n(examples/pccx/llm/README.md).\n");
    exit(status);
}

int main(int argc, char **argv)
{
    int check = 0, verbose = 0, rope_host = 1;
    const char *prompt = "The meaning of life is ", *path = NULL, *timeline = NULL;
    uint32_t ntok = 40;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--check"))
            check = 1;
        else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
        else if (!strcmp(argv[i], "--rope-device"))
            rope_host = 0;
        else if (!strcmp(argv[i], "--prompt") && i + 1 < argc)
            prompt = argv[++i];
        else if (!strcmp(argv[i], "--tokens") && i + 1 < argc)
            ntok = (uint32_t)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--timeline") && i + 1 < argc)
            timeline = argv[++i];
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            usage(stdout, 0);
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else
            usage(stderr, 2);
    }
    if (!path)
        usage(stderr, 2);
    tinylm_model m;
    char err[160];
    if (tinylm_load(&m, path, err, sizeof err)) {
        fprintf(stderr, "tinylm: %s: %s\n", path, err);
        return 1;
    }
    const llm_dims *d = &m.d;
    const uint32_t D = d->dim, V = d->vocab, plen = (uint32_t)strlen(prompt);
    if (plen < 1 || ntok < 1 || plen + ntok - 1 > d->max_pos) {
        fprintf(stderr, "tinylm: prompt (%u bytes) + %u tokens exceed the context of %u\n",
                plen, ntok, d->max_pos);
        tinylm_free(&m);
        return 2;
    }
    const uint32_t total = plen + ntok;
    printf("pccx tinylm: %s: vocabulary %u (bytes), D=%u, %u layers, %u query heads + %u KV "
           "head(s) of %u, FFN %u, context %u; RoPE tables %s\n",
           path, V, D, d->n_layers, d->n_heads, d->n_kv_heads, d->head_dim, d->ffn, d->max_pos,
           rope_host ? "from the host" : "computed on the NPU (§8.3)");

    /* ---- the NPU run ---- */
    pccx_t *px = NULL;
    pccx_config_t cfg = {.ext = 1, .host_ddr_bytes = 4u << 20};
    bufs b = {0};
    b.c = malloc(sizeof *b.c);
    b.text = malloc(total);
    b.rtext = malloc(total);
    b.ftok = malloc(total);
    b.lf = malloc(sizeof(float) * V);
    b.dl = malloc(sizeof(double) * V * ntok);   /* NPU logits per step */
    b.rl = malloc(sizeof(double) * V);
    b.x = malloc(sizeof(double) * D);
    for (int i = 0; i < 5; i++)
        b.step[i] = malloc(sizeof(double) * ntok);
    b.cyc = malloc(sizeof(uint64_t) * total);
    int ok = b.c && b.text && b.rtext && b.ftok && b.lf && b.dl && b.rl && b.x && b.cyc;
    for (int i = 0; i < 5; i++)
        ok = ok && b.step[i];
    if (!ok || pccx_init(&px, &cfg) != PCCX_OK) {
        fprintf(stderr, "tinylm: out of memory\n");
        return cleanup(&b, px, &m, 1);
    }
    llm_ctx *c = b.c;
    uint8_t *text = b.text, *rtext = b.rtext, *ftok = b.ftok;
    double *dl = b.dl, *rl = b.rl, *x = b.x;
    double *margin = b.step[0], *lrms = b.step[1], *fmargin = b.step[2], *frms = b.step[3];
    double *ferr = b.step[4];
    uint64_t *cyc = b.cyc;
    if (timeline && npk_timeline_open(pccx_machine(px), timeline) != NPK_OK) {
        fprintf(stderr, "tinylm: cannot open timeline %s\n", timeline);
        return cleanup(&b, px, &m, 1);
    }
    if (tinylm_setup(&m, c, px, rope_host) != PCCX_OK) {
        fprintf(stderr, "tinylm: setup: %s (%s)\n", c->where, pccx_error_name(c->rc));
        return cleanup(&b, px, &m, 1);
    }
    memcpy(text, prompt, plen);
    pccx_stats_t gen0, gen1;
    pccx_stats(px, &gen0);
    double t0 = now();
    tinylm_generate(&m, c, text, plen, total, dl, cyc);
    double wall = now() - t0;
    if (c->rc != PCCX_OK) {
        pccx_error_t e;
        fprintf(stderr, "tinylm: %s (%s)\n", c->where, pccx_error_name(c->rc));
        if (pccx_last_error(px, &e) == PCCX_OK && e.code)
            fprintf(stderr, "  fault at instruction %llu: %s\n", (unsigned long long)e.index,
                    e.message);
        return cleanup(&b, px, &m, 1);
    }
    pccx_stats(px, &gen1);
    if (verbose) {
        printf("the last layer of the last token:\n");
        llm_report_phases(stdout, c);
    }
    printf("NPU:       \"");
    put_text(text, total);
    printf("\"\n");

    /* ---- the binary64 reference ----
     * 1. free-running: its own greedy text, for the first point where the two texts part;
     * 2. teacher-forced on the NPU's text: the same context at every step, so every step's
     *    logits are compared and every clear step's choice must be the reference's. */
    double th_err = 0;
    for (uint32_t pos = 0; !rope_host && pos + 1 < total; pos++)
        th_err = fmax(th_err, llm_theta_err(c, pos));
    const double tol = LOGIT_TOL + th_err;
    memcpy(rtext, prompt, plen);
    if (tinylm_ref_run(&m, rtext, plen, total, 0, NULL, rl, x, margin, lrms, NULL, NULL) ||
        tinylm_ref_run(&m, text, plen, total, 1, ftok, rl, x, fmargin, frms, dl, ferr)) {
        fprintf(stderr, "tinylm: out of memory\n");
        return cleanup(&b, px, &m, 1);
    }
    printf("reference: \"");
    put_text(rtext, total);
    printf("\"\n");
    uint32_t diverge = ntok;          /* first step whose free-running tokens differ */
    for (uint32_t s = 0; s < ntok && diverge == ntok; s++)
        if (rtext[plen + s] != text[plen + s])
            diverge = s;
    int fail = 0;
    uint32_t n_clear = 0, n_tie_flip = 0;
    double max_rel = 0, max_abs = 0;
    for (uint32_t s = 0; s < ntok; s++) {
        max_rel = fmax(max_rel, ferr[s] / frms[s]);
        max_abs = fmax(max_abs, ferr[s]);
        int is_clear = fmargin[s] >= 2 * tol * frms[s];
        int same = ftok[s] == text[plen + s];
        n_clear += is_clear;
        if (!same && is_clear) {
            printf("step %u: NPU chose 0x%02x, reference 0x%02x with a clear margin %.4f\n", s,
                   text[plen + s], ftok[s], fmargin[s]);
            fail = 1;
        }
        n_tie_flip += !same && !is_clear;
    }
    if (verbose) {
        printf("teacher-forced reference top-2 margins (* = near-tie, below 2 x %.2f x logit "
               "RMS; ! = NPU chose the runner-up):\n ", tol);
        for (uint32_t s = 0; s < ntok; s++)
            printf(" %.2f%s%s", fmargin[s], fmargin[s] < 2 * tol * frms[s] ? "*" : "",
                   ftok[s] != text[plen + s] ? "!" : "");
        printf("\n");
    }
    printf("logits, same context at every step: max |NPU - reference| = %.4f, max / RMS = %.4f "
           "(tolerance %.3f)\n", max_abs, max_rel, tol);
    if (max_rel > tol)
        fail = 1;
    printf("greedy choices: %u of %u steps clear, all of them the reference's; %u near-tie "
           "step(s) went to the runner-up\n", n_clear, ntok, n_tie_flip);
    if (diverge == ntok)
        printf("free-running texts: all %u tokens agree\n", ntok);
    else
        printf("free-running texts: agree on the first %u tokens; step %u differs (NPU '%c', "
               "reference '%c', reference top-2 margin %.4f, %s)\n", diverge, diverge,
               printable(text[plen + diverge]), printable(rtext[plen + diverge]),
               margin[diverge], margin[diverge] < 2 * tol * lrms[diverge] ? "a near-tie" : "CLEAR");
    if (diverge < ntok && margin[diverge] >= 2 * tol * lrms[diverge])
        fail = 1;

    /* ---- timing ---- */
    uint64_t gen_cycles = 0, pre_cycles = 0;
    for (uint32_t pos = 0; pos + 1 < total; pos++)
        *(pos + 1 >= plen ? &gen_cycles : &pre_cycles) += cyc[pos];
    double per_tok = (double)gen_cycles / ntok;
    printf("timing model: %.0f cycles per generated token (%u layers + LM head) = %.2f us at "
           "400 MHz -> %.0f tokens/s; prompt tokens %.0f cycles each (layers only)\n",
           per_tok, d->n_layers, per_tok / 400.0, 400e6 / per_tok,
           plen > 1 ? (double)pre_cycles / (plen - 1) : 0.0);
    printf("whole generation: %llu instructions, %llu cycles simulated (%.3f ms of NPU time); "
           "host wall time %.3f s for the %u positions (%.0f per second)\n",
           (unsigned long long)(gen1.insns - gen0.insns),
           (unsigned long long)(gen1.cycles - gen0.cycles),
           (double)(gen1.cycles - gen0.cycles) / 400e3, wall, total - 1, (total - 1) / wall);
    llm_report(stdout, &gen0, &gen1, 400);
    if (timeline) {
        npk_timeline_close(pccx_machine(px));
        printf("timeline written to %s (open in https://ui.perfetto.dev)\n", timeline);
    }

    if (fail)
        printf("FAILED\n");
    else
        printf("PASS\n");
    return cleanup(&b, px, &m, fail && check ? 1 : 0);
}
