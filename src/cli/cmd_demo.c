/* `npukit demo`: run each target's built-in showcase (programs embedded from examples/ and
 * bench/ at build time) and show what ran, its output, and the statistics a user would want. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"

extern const char npk_demo_toy_src[];
#ifdef NPK_HAVE_RVNPU_DEMO
extern const char npk_demo_rvnpu_plain[], npk_demo_rvnpu_npu[];
extern const size_t npk_demo_rvnpu_plain_len, npk_demo_rvnpu_npu_len;
extern const char npk_demo_mlp_npu[], npk_demo_mlp_plain[], npk_demo_mlp_images[];
extern const size_t npk_demo_mlp_npu_len, npk_demo_mlp_plain_len, npk_demo_mlp_images_len;
extern const char npk_demo_tf_npu[], npk_demo_tf_plain[];
extern const size_t npk_demo_tf_npu_len, npk_demo_tf_plain_len;
#endif

#ifdef NPK_HAVE_OPENNPU_DEMO
#include "gemm_run.h"
#include "gemm_run.h"
#endif
#ifdef NPK_HAVE_OPENNPU_MLP_DEMO
#include "onpu_mlp.h"
extern const char npk_demo_onpu_weights[], npk_demo_onpu_images[];
extern const size_t npk_demo_onpu_weights_len, npk_demo_onpu_images_len;
#endif

#include "npukit/pccx.h"
#include "tinylm_model.h"
extern const char npk_demo_pccx_lm[];
extern const size_t npk_demo_pccx_lm_len;

#include "targets/tinytpu/compile.h"
#include "targets/tinytpu/machine.h"
extern const char npk_demo_tt_net[];
extern const size_t npk_demo_tt_net_len;

#if defined(NPK_HAVE_RVNPU_DEMO) || defined(NPK_HAVE_OPENNPU_MLP_DEMO)
/* Fashion-MNIST class names (the MLP demos). */
static const char *const fashion_class[10] = {"T-shirt/top", "Trouser", "Pullover", "Dress",
                                              "Coat",        "Sandal",  "Shirt",    "Sneaker",
                                              "Bag",         "Ankle boot"};
#endif

typedef struct demo {
    const char *target;     /* name shown and matched on the command line */
    const char *what;
    const char *file;       /* where the program's source lives in the repository */
    int (*run)(const struct demo *d, const char *tl_dir);
} demo;

/* --timeline DIR: the demo's showcase run (the NPU build where there are two, the first image
 * of a batch of runs) is recorded in DIR/NAME.json. Both return 0 or -1 after saying why;
 * both do nothing without DIR (or NAME). */
static int timeline_start(npk_machine *m, const char *dir, const char *name)
{
    if (!dir || !name)
        return 0;
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s.json", dir, name) >= sizeof path) {
        fprintf(stderr, "npukit demo: %s/%s.json: file name too long\n", dir, name);
        return -1;
    }
    if (npk_timeline_open(m, path) != NPK_OK) {
        fprintf(stderr, "npukit demo: %s\n", npk_error(m));
        return -1;
    }
    return 0;
}

static int timeline_end(npk_machine *m, const char *dir, const char *name)
{
    if (!dir || !name)
        return 0;
    if (npk_timeline_close(m) != NPK_OK) {
        fprintf(stderr, "npukit demo: %s\n", npk_error(m));
        return -1;
    }
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Top mnemonics by count, as "name pct%, ...". */
static void print_mix(const npk_stats *s, int top)
{
    printf("  mix:");
    int shown = 0;
    uint64_t prev = UINT64_MAX;
    while (shown < top) {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < s->n_mnemonics; i++)
            if (s->count[i] && s->count[i] < prev &&
                (best == SIZE_MAX || s->count[i] > s->count[best]))
                best = i;
        if (best == SIZE_MAX)
            break;
        for (size_t i = 0; i < s->n_mnemonics && shown < top; i++)
            if (s->count[i] == s->count[best]) {
                printf("%s %s %.1f%%", shown ? "," : "", s->mnemonic[i],
                       100.0 * (double)s->count[i] / (double)s->insns);
                shown++;
            }
        prev = s->count[best];
    }
    printf("\n");
}

static void print_stats(const npk_stats *s)
{
    printf("  %llu instructions retired in %llu cycles (CPI %.2f)\n",
           (unsigned long long)s->insns, (unsigned long long)s->cycles,
           s->insns ? (double)s->cycles / (double)s->insns : 0.0);
    print_mix(s, 6);
    printf("  unit busy:");
    for (size_t i = 0; i < s->n_units; i++)
        printf("%s %s %.0f%%", i ? "," : "", s->unit[i],
               s->cycles ? 100.0 * (double)s->busy[i] / (double)s->cycles : 0.0);
    printf("\n ");
    int shown = 0;
    for (size_t i = 0; i < s->n_extra; i++)
        if (s->extra[i])
            printf("%s %s %llu", shown++ ? "," : "", s->extra_name[i],
                   (unsigned long long)s->extra[i]);
    printf("\n");
}

/* A program loaded by `load`, run with statistics and its output captured in out[]. */
typedef npk_status (*loader)(npk_machine *m, const void *ctx);

/* Input injected into a program's symbol before its run. */
typedef struct sym_input {
    const char *name;
    const void *data;
    size_t size;
} sym_input;

/* tl_dir, tl_name: record this run's timeline there (timeline_start); NULL: none. */
static int run_observed(npk_machine *m, loader load, const void *ctx, char *out, size_t n,
                        npk_stop *stop, const sym_input *in, size_t n_in, const char *tl_dir,
                        const char *tl_name)
{
    FILE *cap = tmpfile();
    if (!cap) {
        fprintf(stderr, "npukit demo: cannot create a temporary file\n");
        return -1;
    }
    npk_set_output(m, cap, stderr);
    npk_stats_enable(m, 1);
    npk_status st = load(m, ctx);
    if (st == NPK_OK)
        st = npk_reset(m); /* statistics of this run only */
    for (size_t i = 0; i < n_in && st == NPK_OK; i++)
        st = npk_write_symbol(m, in[i].name, in[i].data, in[i].size);
    if (st == NPK_OK && timeline_start(m, tl_dir, tl_name) != 0) {
        fclose(cap);
        return -1;
    }
    if (st == NPK_OK)
        st = npk_run(m, 0, stop);
    if (st == NPK_OK && timeline_end(m, tl_dir, tl_name) != 0) {
        fclose(cap);
        return -1;
    }
    rewind(cap);
    size_t got = fread(out, 1, n - 1, cap);
    out[got] = '\0';
    fclose(cap);
    if (st != NPK_OK) {
        fprintf(stderr, "npukit demo: %s\n", npk_error(m));
        return -1;
    }
    if (stop->reason != NPK_STOP_EXIT) {
        fprintf(stderr, "npukit demo: %s\n", stop->message);
        return -1;
    }
    return 0;
}

/* Host speed: the same program (with the same inputs) again on the fast path (no observers,
 * output discarded), repeated until at least 0.2 s of running have been measured so that
 * short programs give a fair figure; at most 2 s in all, loading included. */
static void host_speed(npk_machine *m, loader load, const void *ctx, const sym_input *in,
                       size_t n_in, uint64_t insns)
{
    FILE *null = fopen("/dev/null", "w");
    npk_stats_enable(m, 0);
    npk_set_output(m, null, null);
    npk_stop stop;
    double spent = 0, start = now();
    uint64_t done = 0;
    while (spent < 0.2 && now() - start < 2.0 && load(m, ctx) == NPK_OK) {
        npk_status st = NPK_OK;
        for (size_t i = 0; i < n_in && st == NPK_OK; i++)
            st = npk_write_symbol(m, in[i].name, in[i].data, in[i].size);
        if (st != NPK_OK)
            break;
        double t0 = now();
        npk_run(m, 0, &stop);
        spent += now() - t0;
        done += insns;
    }
    if (spent > 0)
        printf("  host speed: %.0f MIPS on the fast path (%.3g instructions in %.2f s)\n",
               (double)done / spent / 1e6, (double)done, spent);
    if (null)
        fclose(null);
}

/* ---- toy: an assembly program --------------------------------------------------------------- */

static npk_status load_toy(npk_machine *m, const void *ctx)
{
    return npk_load_asm(m, (const char *)ctx, "examples/toy/demo.s", stderr);
}

static int demo_toy(const demo *d, const char *tl_dir)
{
    npk_machine *m = npk_cli_machine("npukit demo", "toy:mem=256K", NULL);
    if (!m)
        return 1;
    printf("   (%s, machine toy:%s)\n", d->file, npk_config_string(m));
    char out[256];
    npk_stop stop;
    int rc = 1;
    if (run_observed(m, load_toy, npk_demo_toy_src, out, sizeof out, &stop, NULL, 0, tl_dir,
                     "toy") == 0) {
        fputs(out, stdout);
        npk_stats s;
        npk_stats_get(m, &s);
        print_stats(&s);
        host_speed(m, load_toy, npk_demo_toy_src, NULL, 0, s.insns);
        if (strcmp(out, "5133\n") == 0) {
            printf("  output as expected (5133 primes below 50000)\n");
            rc = 0;
        } else {
            fprintf(stderr, "npukit demo: toy: unexpected output (expected 5133)\n");
        }
    }
    npk_destroy(m);
    return rc;
}

/* ---- rvnpu: the same int8 GEMM firmware, plain RV32IM and with the NPU ---------------------- */

#ifdef NPK_HAVE_RVNPU_DEMO
typedef struct elf_image {
    const char *bytes;
    size_t size;
    const char *name;
} elf_image;

static npk_status load_elf(npk_machine *m, const void *ctx)
{
    const elf_image *e = ctx;
    return npk_load_elf(m, e->bytes, e->size, e->name);
}

static uint64_t count_of(const npk_stats *s, const char *prefix)
{
    uint64_t n = 0;
    for (size_t i = 0; i < s->n_mnemonics; i++)
        if (strncmp(s->mnemonic[i], prefix, strlen(prefix)) == 0)
            n += s->count[i];
    return n;
}

static int demo_rvnpu(const demo *d, const char *tl_dir)
{
    static const elf_image plain = {npk_demo_rvnpu_plain, 0, "gemm_i8 (plain)"};
    static const elf_image npu = {npk_demo_rvnpu_npu, 0, "gemm_i8 (NPU)"};
    elf_image p = plain, q = npu;
    p.size = npk_demo_rvnpu_plain_len;
    q.size = npk_demo_rvnpu_npu_len;
    printf("   (%s, machine rvnpu, firmware built with the SDK in sdk/rvnpu)\n", d->file);
    npk_machine *m = npk_cli_machine("npukit demo", "rvnpu", NULL);
    if (!m)
        return 1;
    char out_p[256], out_q[256];
    npk_stop stop;
    npk_stats s;
    int rc = 1;
    uint64_t insns_plain = 0, cycles_plain = 0;
    printf("  plain RV32IM build:\n  ");
    if (run_observed(m, load_elf, &p, out_p, sizeof out_p, &stop, NULL, 0, NULL, NULL) != 0)
        goto out;
    fputs(out_p, stdout);
    npk_stats_get(m, &s);
    insns_plain = s.insns;
    cycles_plain = s.cycles;
    print_stats(&s);
    npk_destroy(m);
    m = npk_cli_machine("npukit demo", "rvnpu", NULL);
    if (!m)
        return 1;
    printf("  NPU build (npu.vmac per output element):\n  ");
    if (run_observed(m, load_elf, &q, out_q, sizeof out_q, &stop, NULL, 0, tl_dir, "rvnpu") != 0)
        goto out;
    fputs(out_q, stdout);
    npk_stats_get(m, &s);
    print_stats(&s);
    printf("  NPU instructions: %llu of %llu retired\n",
           (unsigned long long)count_of(&s, "npu."), (unsigned long long)s.insns);
    if (s.insns && s.cycles)
        printf("  NPU vs plain: %.1fx fewer instructions, %.1fx fewer cycles\n",
               (double)insns_plain / (double)s.insns, (double)cycles_plain / (double)s.cycles);
    host_speed(m, load_elf, &p, NULL, 0, insns_plain);
    if (strcmp(out_p, out_q) == 0 && strncmp(out_p, "gemm checksum 0x", 16) == 0) {
        printf("  outputs identical\n");
        rc = 0;
    } else {
        fprintf(stderr, "npukit demo: rvnpu: the two builds printed different results\n");
    }
out:
    npk_destroy(m);
    return rc;
}

/* ---- rvnpu-mlp: the int8 Fashion-MNIST MLP on built-in test images ------------------------- */

enum { MLP_PIXELS = 784 };


/* One inference: load the firmware afresh, write test_image, run with statistics. Returns the
 * predicted class (0..9) or -1, with the run's instruction and cycle counts. */
static int mlp_infer(npk_machine *m, const elf_image *fw, const unsigned char *pixels,
                     uint64_t *insns, uint64_t *cycles, uint64_t *npu, const char *tl_dir)
{
    char out[64];
    npk_stop stop;
    const sym_input in = {"test_image", pixels, MLP_PIXELS};
    if (run_observed(m, load_elf, fw, out, sizeof out, &stop, &in, 1, tl_dir, "rvnpu-mlp") != 0)
        return -1;
    npk_stats s;
    npk_stats_get(m, &s);
    *insns = s.insns;
    *cycles = s.cycles;
    *npu = count_of(&s, "npu.");
    char *end;
    long c = strtol(out, &end, 10);
    if (end == out || *end != '\n' || c < 0 || c > 9) {
        fprintf(stderr, "npukit demo: %s printed '%s', not a class 0..9\n", fw->name, out);
        return -1;
    }
    return (int)c;
}

/* A 28x28 image as 14 lines of 28 characters (2x2 pixels -> one of " .:-=+*#%@"). */
static void show_image(const unsigned char *px)
{
    static const char ramp[] = " .:-=+*#%@";
    for (int y = 0; y < 28; y += 2) {
        printf("    ");
        for (int x = 0; x < 28; x++) {
            unsigned v = (unsigned)px[y * 28 + x] + px[(y + 1) * 28 + x];
            putchar(ramp[v * 9 / 510]);
        }
        printf("\n");
    }
}

static int demo_mlp(const demo *d, const char *tl_dir)
{
    const elf_image npu = {npk_demo_mlp_npu, npk_demo_mlp_npu_len, "mlp.elf"};
    const elf_image plain = {npk_demo_mlp_plain, npk_demo_mlp_plain_len, "mlp_plain.elf"};
    const unsigned char *images = (const unsigned char *)npk_demo_mlp_images;
    size_t n = npk_demo_mlp_images_len / (1 + MLP_PIXELS);
    printf("   (%s; weights models/mlp/mlp_weights.bin; %zu Fashion-MNIST test images built in)\n",
           d->file, n);
    npk_machine *m = npk_cli_machine("npukit demo", "rvnpu", NULL);
    if (!m)
        return 1;
    int rc = 1, correct = 0, agree = 0;
    uint64_t sum_i = 0, sum_c = 0, sum_pi = 0, sum_pc = 0, npu_ops = 0, i2_first = 0;
    printf("  test image 0 (label %s):\n", fashion_class[images[0] % 10]);
    show_image(images + 1);
    for (size_t k = 0; k < n; k++) {
        const unsigned char *rec = images + k * (1 + MLP_PIXELS);
        uint64_t i1, c1, n1, i2, c2, n2;
        int p = mlp_infer(m, &npu, rec + 1, &i1, &c1, &n1, k == 0 ? tl_dir : NULL);
        int q = mlp_infer(m, &plain, rec + 1, &i2, &c2, &n2, NULL);
        if (p < 0 || q < 0)
            goto out;
        if (k == 0)
            i2_first = i2;
        correct += p == rec[0];
        agree += p == q;
        sum_i += i1;
        sum_c += c1;
        sum_pi += i2;
        sum_pc += c2;
        npu_ops += n1;
        printf("  image %2zu: predicted %-11s  label %-11s  %s  running accuracy %d/%zu\n", k,
               fashion_class[p], fashion_class[rec[0] % 10], p == rec[0] ? "right" : "WRONG",
               correct, k + 1);
    }
    printf("  per inference, NPU build:   %8.0f instructions (%.0f npu.*), %9.0f cycles\n",
           (double)sum_i / (double)n, (double)npu_ops / (double)n, (double)sum_c / (double)n);
    printf("  per inference, plain RV32IM: %7.0f instructions, %18.0f cycles\n",
           (double)sum_pi / (double)n, (double)sum_pc / (double)n);
    printf("  NPU vs plain: %.0fx fewer instructions, %.1fx fewer cycles; the two builds agree "
           "on %d of %zu images\n",
           (double)sum_pi / (double)sum_i, (double)sum_pc / (double)sum_c, agree, n);
    printf("  (all 10,000 test images: 86.55%% accurate, ctest rvnpu_mlp)\n");
    const sym_input img0 = {"test_image", images + 1, MLP_PIXELS};
    host_speed(m, load_elf, &plain, &img0, 1, i2_first);
    rc = agree == (int)n ? 0 : 1;
    if (rc)
        fprintf(stderr, "npukit demo: rvnpu-mlp: the NPU and plain builds disagree\n");
out:
    npk_destroy(m);
    return rc;
}

/* ---- rvnpu-transformer: the FP32 character model continuing a prompt ------------------------ */

#define TF_PROMPT "Death is nature's way of"

/* The demo's inputs: the prompt, its length, and 0 = generate until the context is full. */
typedef struct tf_inputs {
    unsigned char tokens[32], n_tokens[4], n_generate[4];
    sym_input in[3];
} tf_inputs;

static void tf_inputs_init(tf_inputs *t)
{
    memset(t, 0, sizeof *t);
    memcpy(t->tokens, TF_PROMPT, sizeof TF_PROMPT - 1);
    t->n_tokens[0] = (unsigned char)(sizeof TF_PROMPT - 1);
    t->in[0] = (sym_input){"test_tokens", t->tokens, sizeof t->tokens};
    t->in[1] = (sym_input){"test_n_tokens", t->n_tokens, 4};
    t->in[2] = (sym_input){"test_n_generate", t->n_generate, 4};
}

/* Run one build on the prompt: its output (prompt, "\n> ", generated bytes, "\n") in out. */
static int tf_generate(npk_machine *m, const elf_image *fw, const tf_inputs *t, char *out,
                       size_t n, npk_stats *s, const char *tl_dir)
{
    npk_stop stop;
    if (run_observed(m, load_elf, fw, out, n, &stop, t->in, 3, tl_dir, "rvnpu-transformer") != 0)
        return -1;
    return npk_stats_get(m, s) == NPK_OK ? 0 : -1;
}

static int demo_transformer(const demo *d, const char *tl_dir)
{
    const elf_image npu = {npk_demo_tf_npu, npk_demo_tf_npu_len, "transformer.elf"};
    const elf_image plain = {npk_demo_tf_plain, npk_demo_tf_plain_len, "transformer_plain.elf"};
    printf("   (%s; 134,848 float32 weights in models/transformer/weights.bin, trained on "
           "Debian's fortunes)\n", d->file);
    npk_machine *m = npk_cli_machine("npukit demo", "rvnpu", NULL);
    if (!m)
        return 1;
    char out_n[256], out_p[256];
    npk_stats s;
    tf_inputs t;
    tf_inputs_init(&t);
    int rc = 1;
    if (tf_generate(m, &npu, &t, out_n, sizeof out_n, &s, tl_dir) != 0)
        goto out;
    printf("  prompt and greedy continuation (NPU build):\n    %s", out_n);
    uint64_t insns = s.insns, cycles = s.cycles, fnpu = count_of(&s, "npu.");
    print_stats(&s);
    printf("  FP NPU instructions: %llu of %llu retired\n", (unsigned long long)fnpu,
           (unsigned long long)insns);
    if (tf_generate(m, &plain, &t, out_p, sizeof out_p, &s, NULL) != 0)
        goto out;
    printf("  plain RV32IMF build (-DNO_NPU): %llu instructions, %llu cycles; same text: %s\n",
           (unsigned long long)s.insns, (unsigned long long)s.cycles,
           strcmp(out_n, out_p) == 0 ? "yes" : "no");
    printf("  NPU vs plain: %.1fx fewer instructions, %.1fx fewer cycles\n",
           (double)s.insns / (double)insns, (double)s.cycles / (double)cycles);
    host_speed(m, load_elf, &npu, t.in, 3, insns);
    rc = strncmp(out_n, TF_PROMPT "\n> ", sizeof TF_PROMPT + 2) == 0 ? 0 : 1;
    if (rc)
        fprintf(stderr, "npukit demo: rvnpu-transformer: unexpected output\n");
out:
    npk_destroy(m);
    return rc;
}
#endif


#ifdef NPK_HAVE_OPENNPU_DEMO
/* ---- opennpu: a tiled int8 GEMM on the MMA array -------------------------------------------- */

#define ONPU_DEMO_DIM 128

static int demo_opennpu(const demo *d, const char *tl_dir)
{
    const unsigned M = ONPU_DEMO_DIM, N = ONPU_DEMO_DIM, Kd = ONPU_DEMO_DIM;
    char err[512];
    npk_opennpu_gemm_plan p;
    if (npk_opennpu_gemm_plan_make(&p, M, N, Kd, 8, 32, 0, err, sizeof err)) {
        fprintf(stderr, "npukit demo: %s\n", err);
        return 1;
    }
    int8_t *A = malloc((size_t)M * Kd), *B = malloc((size_t)Kd * N);
    int32_t *C = malloc(sizeof *C * M * N), *R = malloc(sizeof *R * M * N);
    uint8_t *img = malloc(p.end), *work = malloc(p.end);
    npk_opennpu_gemm_counts cnt;
    char *prog = NULL;
    npk_machine *m = NULL;
    int rc = 1;
    if (!A || !B || !C || !R || !img || !work)
        goto out;
    onpu_gemm_random(M, N, Kd, A, B, 0x2545F4914F6CDD1Dull);
    npk_opennpu_gemm_pack(&p, A, B, img);
    prog = npk_opennpu_gemm_program(&p, &cnt);
    m = npk_cli_machine("npukit demo", "opennpu:mem_size=1M", NULL);
    if (!prog || !m)
        goto out;
    printf("   (%s: %llu instructions for %u tiles of 8x8; A, B random int8)\n", d->file,
           (unsigned long long)cnt.insns, p.tiles_m * p.tiles_n);
    memcpy(work, img, p.end);
    onpu_gemm_result res;
    if (timeline_start(m, tl_dir, "opennpu") != 0)
        goto out;
    if (onpu_gemm_run(m, &p, prog, work, 1, &res, err, sizeof err)) {
        fprintf(stderr, "npukit demo: %s\n", err);
        goto out;
    }
    if (timeline_end(m, tl_dir, "opennpu") != 0)
        goto out;
    npk_opennpu_gemm_unpack_c(&p, work, C);
    onpu_gemm_ref(M, N, Kd, A, B, R);
    size_t bad = 0;
    for (size_t i = 0; i < (size_t)M * N; i++)
        bad += C[i] != R[i];
    printf("  C = A * B: %s (C[0][0] = %d, C[%u][%u] = %d)\n",
           bad ? "results DIFFER from the host reference" : "all int32 results equal the host "
                                                            "reference",
           C[0], M - 1, N - 1, C[(size_t)M * N - 1]);
    printf("  %llu ticks; no schedule the single-issue ISA allows takes fewer than %llu "
           "(1.5 Kd + 2K - 1 per tile,\n  docs/opennpu.md \"GEMM\"): %.1f %% above that bound\n",
           (unsigned long long)res.ticks, (unsigned long long)cnt.bound,
           100.0 * ((double)res.ticks / (double)cnt.bound - 1));
    npk_stats st;
    if (npk_stats_get(m, &st) == NPK_OK)
        print_stats(&st);
    /* per mille, rounded down, like the mma_util_permille statistic */
    printf("  MMA array utilisation %llu per mille: a new operand pair on %llu of %llu ticks\n",
           (unsigned long long)(res.ticks ? res.feeds * 1000 / res.ticks : 0),
           (unsigned long long)res.feeds, (unsigned long long)res.ticks);
    /* host speed of the fast loop (no observers), at least 0.2 s of runs */
    npk_stats_enable(m, 0);
    double spent = 0, start = now();
    unsigned runs = 0;
    while (spent < 0.2 && now() - start < 2.0) {
        npk_stop stop;
        npk_reset(m);
        npk_mem_write(m, "mem", 0, img, p.end);
        double t0 = now();
        npk_run(m, 0, &stop);
        spent += now() - t0;
        runs++;
    }
    printf("  host speed: %.0f MIPS, %.2f G multiply-accumulates/s on the fast path (bench/opennpu "
           "compares with native C)\n",
           (double)res.insns * runs / spent / 1e6, (double)M * N * Kd * runs / spent / 1e9);
    rc = bad ? 1 : 0;
out:
    if (m)
        npk_destroy(m);
    free(prog), free(A), free(B), free(C), free(R), free(img), free(work);
    return rc;
}
#endif

#ifdef NPK_HAVE_OPENNPU_MLP_DEMO
/* ---- opennpu-mlp: the Fashion-MNIST MLP as one program per batch ----------------------------- */

static int demo_opennpu_mlp(const demo *d, const char *tl_dir)
{
    char err[512];
    static mlp_model model;
    if (mlp_model_parse(&model, (const uint8_t *)npk_demo_onpu_weights, npk_demo_onpu_weights_len,
                        "models/mlp/mlp_weights.bin", err, sizeof err)) {
        fprintf(stderr, "npukit demo: %s\n", err);
        return 1;
    }
    const unsigned char *rec = (const unsigned char *)npk_demo_onpu_images;
    unsigned n = (unsigned)(npk_demo_onpu_images_len / (1 + MLP_N_IN));
    onpu_mlp_layout l;
    if (onpu_mlp_layout_make(&l, n, 8, 32, err, sizeof err)) {
        fprintf(stderr, "npukit demo: %s\n", err);
        return 1;
    }
    uint8_t *pixels = malloc((size_t)n * MLP_N_IN), *img = malloc(l.end);
    size_t res_size = 4ull * MLP_N_OUT * l.batch_pad;
    uint8_t *res = malloc(res_size);
    npk_opennpu_gemm_counts cnt;
    char *prog = onpu_mlp_program(&l, model.shift1, &cnt);
    npk_machine *m = npk_cli_machine("npukit demo", "opennpu:mem_size=1M", NULL);
    int rc = 1;
    if (!pixels || !img || !res || !prog || !m)
        goto out;
    for (unsigned i = 0; i < n; i++)
        memcpy(pixels + (size_t)MLP_N_IN * i, rec + (size_t)(1 + MLP_N_IN) * i + 1, MLP_N_IN);
    onpu_mlp_pack_model(&l, &model, img);
    onpu_mlp_pack_images(&l, pixels, n, img + l.x_addr);
    printf("   (%s: one program for a batch of %u images, %llu instructions; weights "
           "models/mlp/mlp_weights.bin)\n",
           d->file, n, (unsigned long long)cnt.insns);
    npk_stop stop;
    npk_stats st;
    stop.message[0] = '\0';
    if (npk_load_asm(m, prog, "mlp.s", stderr) != NPK_OK ||
        npk_mem_write(m, "mem", 0, img, l.end) != NPK_OK || npk_stats_enable(m, 1) != NPK_OK ||
        timeline_start(m, tl_dir, "opennpu-mlp") != 0 || npk_run(m, 0, &stop) != NPK_OK ||
        timeline_end(m, tl_dir, "opennpu-mlp") != 0 || stop.reason != NPK_STOP_EXIT ||
        npk_mem_read(m, "mem", l.logits_addr, res, res_size) != NPK_OK ||
        npk_stats_get(m, &st) != NPK_OK) {
        fprintf(stderr, "npukit demo: %s %s\n", npk_error(m), stop.message);
        goto out;
    }
    unsigned correct = 0, same = 0;
    for (unsigned i = 0; i < n; i++) {
        int32_t got[10], want[10];
        onpu_mlp_logits(&l, res, i, got);
        mlp_predict(&model, pixels + (size_t)MLP_N_IN * i, want);
        int best = 0;
        for (int o = 1; o < 10; o++)
            if (got[o] > got[best])
                best = o;
        unsigned label = rec[(size_t)(1 + MLP_N_IN) * i] % 10;
        correct += (unsigned)best == label;
        same += !memcmp(got, want, sizeof got);
        printf("  image %2u: predicted %-11s  label %-11s  %s\n", i, fashion_class[best],
               fashion_class[label], (unsigned)best == label ? "right" : "WRONG");
    }
    printf("  %u of %u right; logits identical to the host reference for %u of %u images\n",
           correct, n, same, n);
    print_stats(&st);
    printf("  per image: %.0f instructions, %.0f ticks (all 10,000 test images: 86.55 %%, "
           "ctest opennpu_mlp)\n",
           (double)st.insns / n, (double)st.cycles / n);
    rc = same == n ? 0 : 1;
out:
    if (m)
        npk_destroy(m);
    free(pixels), free(img), free(res), free(prog);
    return rc;
}
#endif

/* ---- tinytpu: XOR trained on the cycle-exact systolic array -------------------------------- */

static int demo_tinytpu(const demo *d, const char *tl_dir)
{
    char err[512];
    char *src = malloc(npk_demo_tt_net_len + 1);
    if (!src)
        return 1;
    memcpy(src, npk_demo_tt_net, npk_demo_tt_net_len);
    src[npk_demo_tt_net_len] = 0;
    tt_net net;
    tt_compiled c;
    int rc = 1;
    npk_machine *m = NULL;
    memset(&c, 0, sizeof c);
    if (tt_net_parse(src, "xor_train.net", &net, err, sizeof err) ||
        tt_compile(&net, &c, err, sizeof err)) {
        fprintf(stderr, "npukit demo: %s\n", err);
        goto out;
    }
    printf("   (%s; the schedule compiler's program for %u SGD steps of a %u-%u-%u network, "
           "batch %u)\n", d->file, net.steps, net.d[0], net.d[1], net.d[2], net.B);
    printf("  program: %zu cycles = %zu reset + host load, %zu per training step, then a forward "
           "pass; %u UB words\n", c.cycles, c.load_cycles, c.step_cycles, c.words);
    char spec[96];
    snprintf(spec, sizeof spec, "tinytpu:lanes=%u,ub_words=%u,lr=0x%04X", net.N, net.ub_words,
             c.lr);
    m = npk_cli_machine("npukit demo", spec, NULL);
    npk_stop stop;
    npk_stats st;
    stop.message[0] = '\0';
    if (!m || tt_load_program(m, &c.prog) != NPK_OK || npk_stats_enable(m, 1) != NPK_OK ||
        timeline_start(m, tl_dir, "tinytpu") != 0 || npk_run(m, 0, &stop) != NPK_OK ||
        timeline_end(m, tl_dir, "tinytpu") != 0 || stop.reason != NPK_STOP_EXIT ||
        npk_stats_get(m, &st) != NPK_OK) {
        fprintf(stderr, "npukit demo: %s %s\n", m ? npk_error(m) : "", stop.message);
        goto out;
    }
    size_t bad = 0;
    uint16_t *ub = calloc(c.words ? c.words : 1, sizeof *ub);
    for (unsigned a = 0; ub && a < c.words; a++) {
        uint8_t b[2];
        npk_mem_read(m, "ub", 2ull * a, b, 2);
        ub[a] = (uint16_t)(b[0] | b[1] << 8);
        bad += ub[a] != c.pred[a];
    }
    printf("  loss (mean squared error):");
    for (unsigned s = 0; s < net.steps; s += net.steps / 5 ? net.steps / 5 : 1)
        printf(" step %u %.3f,", s + 1, c.loss[s]);
    printf(" after %u %.3f\n", net.steps, c.eval_loss);
    char name[16];
    snprintf(name, sizeof name, "H%u", net.L);
    const tt_region *h = tt_compiled_find(&c, name, (int)net.steps);
    unsigned right = 0;
    for (unsigned b = 0; h && ub && b < net.B; b++) {
        double out = (int16_t)ub[h->addr + b * net.d[net.L]] / 256.0;
        double y = net.Y[b * net.d[net.L]] / 256.0;
        right += (out > 0.5) == (y > 0.5);
        printf("  x = (%g, %g): the machine computes %.3f (Q8.8 %04X), target %g\n",
               net.X[b * net.d[0]] / 256.0, net.X[b * net.d[0] + 1] / 256.0, out,
               ub[h->addr + b * net.d[net.L]], y);
    }
    printf("  %u of %u XOR cases right; %s\n", right, net.B,
           bad ? "UB DIFFERS from the compiler's prediction"
               : "every UB word the program writes equals the compiler's Q8.8 prediction");
    print_stats(&st);
    /* host speed of the fast path */
    npk_stats_enable(m, 0);
    double spent = 0, start = now();
    unsigned runs = 0;
    while (spent < 0.2 && now() - start < 2.0) {
        npk_reset(m);
        double t0 = now();
        npk_run(m, 0, &stop);
        spent += now() - t0;
        runs++;
    }
    printf("  host speed: %.1f M simulated cycles/s on the fast path (bench/tinytpu)\n",
           (double)c.cycles * runs / spent / 1e6);
    free(ub);
    rc = bad || right != net.B;
out:
    if (m)
        npk_destroy(m);
    tt_compiled_free(&c);
    tt_net_free(&net);
    free(src);
    return rc;
}


/* Printable form of generated bytes. */
static void put_bytes(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        putchar(s[i] >= 32 && s[i] < 127 ? s[i] : '?');
}

static int demo_pccx(const demo *d, const char *tl_dir)
{
    static const char prompt[] = "The meaning of life is ";
    const uint32_t plen = sizeof prompt - 1, ntok = 24, total = plen + ntok;
    tinylm_model lm;
    char err[160];
    if (tinylm_parse(&lm, (const uint8_t *)npk_demo_pccx_lm, npk_demo_pccx_lm_len, err,
                     sizeof err)) {
        fprintf(stderr, "npukit demo: tinylm weights: %s\n", err);
        return 1;
    }
    const llm_dims *dm = &lm.d;
    printf("   (%s; models/pccx_tinylm: a %u-layer Gemma-shaped byte model, D=%u, %u query + %u "
           "KV heads of %u, FFN %u, INT4 weights with per-row scales)\n", d->file, dm->n_layers,
           dm->dim, dm->n_heads, dm->n_kv_heads, dm->head_dim, dm->ffn);
    printf("  every layer (RMSNorm, QKV GEMVs, RoPE, attention over a KV cache in host DDR with "
           "the pccx spec §8.1 softmax, FFN with GELU) and the LM head run as pccx instructions; "
           "the host looks up embeddings and picks the greedy byte\n");
    pccx_t *px = NULL;
    pccx_config_t cfg = {.ext = 1, .host_ddr_bytes = 4u << 20};
    llm_ctx *c = malloc(sizeof *c);
    uint8_t text[64 + 32], ref[64 + 32];
    uint64_t cyc[64 + 32];
    double *rl = malloc(sizeof(double) * dm->vocab), *x = malloc(sizeof(double) * dm->dim);
    double margin[32], lrms[32];
    int rc = 1;
    if (!c || !rl || !x || pccx_init(&px, &cfg) != PCCX_OK ||
        tinylm_setup(&lm, c, px, 1) != PCCX_OK) {
        fprintf(stderr, "npukit demo: pccx setup failed\n");
        goto out;
    }
    npk_stats_enable(pccx_machine(px), 1);
    memcpy(text, prompt, plen);
    memcpy(ref, prompt, plen);
    pccx_stats_t s0, s1;
    pccx_stats(px, &s0);
    if (timeline_start(pccx_machine(px), tl_dir, "pccx") != 0)
        goto out;
    double t0 = now();
    if (tinylm_generate(&lm, c, text, plen, total, NULL, cyc) != PCCX_OK) {
        pccx_error_t e;
        pccx_last_error(px, &e);
        fprintf(stderr, "npukit demo: %s: %s\n", c->where, e.message);
        goto out;
    }
    double wall = now() - t0;
    if (timeline_end(pccx_machine(px), tl_dir, "pccx") != 0)
        goto out;
    pccx_stats(px, &s1);
    tinylm_ref_run(&lm, ref, plen, total, 0, NULL, rl, x, margin, lrms, NULL, NULL);
    printf("  NPU:       \"");
    put_bytes(text, total);
    printf("\"\n  reference: \"");
    put_bytes(ref, total);
    uint32_t same = 0;
    while (same < ntok && text[plen + same] == ref[plen + same])
        same++;
    printf("\"   (binary64 host model of the same INT4 weights)\n");
    printf("  %u of %u generated bytes equal the reference's greedy choice%s\n", same, ntok,
           same == ntok ? "" : " before a near-tie");
    uint64_t gen = 0;
    for (uint32_t p = plen - 1; p + 1 < total; p++)
        gen += cyc[p];
    double per = (double)gen / ntok;
    printf("  timing model: %.0f cycles per generated token = %.1f us at 400 MHz -> %.0f "
           "tokens/s (a Gemma 3N E4B decode step: docs/pccx-performance.md)\n",
           per, per / 400.0, 400e6 / per);
    uint64_t cycles = s1.cycles - s0.cycles;
    printf("  %llu instructions, %llu cycles; engine busy:",
           (unsigned long long)(s1.insns - s0.insns), (unsigned long long)cycles);
    static const char *const eng[PCCX_N_ENGINES] = {"memset", "mem", "gemv", "gemm", "cvo"};
    for (int i = 0; i < PCCX_N_ENGINES; i++)
        printf(" %s %.0f%%", eng[i],
               100.0 * (double)(s1.engine_busy[i] - s0.engine_busy[i]) / (double)cycles);
    printf("\n  INT4 weights streamed over HP0-HP3: %llu / %llu / %llu / %llu bytes (GEMM engine "
           "on HP0/1, GEMV on HP2/3)\n",
           (unsigned long long)(s1.hp_bytes[0] - s0.hp_bytes[0]),
           (unsigned long long)(s1.hp_bytes[1] - s0.hp_bytes[1]),
           (unsigned long long)(s1.hp_bytes[2] - s0.hp_bytes[2]),
           (unsigned long long)(s1.hp_bytes[3] - s0.hp_bytes[3]));
    printf("  host speed: %.0f positions/s (%.1f M simulated cycles/s), functional and timing "
           "model together\n", (total - 1) / wall, (double)cycles / wall / 1e6);
    rc = same < 8; /* the first bytes have clear margins (examples/pccx/llm: pccx_tinylm) */
out:
    pccx_deinit(px);
    free(c);
    free(rl);
    free(x);
    tinylm_free(&lm);
    return rc;
}

static const demo demos[] = {
    {"toy", "sieve of Eratosthenes below 50000, 8 times, then the prime count",
     "examples/toy/demo.s", demo_toy},
#ifdef NPK_HAVE_RVNPU_DEMO
    {"rvnpu", "int8 GEMM 32x32x32, plain RV32IM C against the NPU's vector MAC",
     "bench/rvnpu/gemm_i8.c", demo_rvnpu},
    {"rvnpu-mlp", "int8 MLP 784-128-10 classifying Fashion-MNIST images, NPU against plain",
     "examples/rvnpu/mlp/mlp.c", demo_mlp},
    {"rvnpu-transformer", "FP32 character transformer continuing a prompt, FP NPU against plain",
     "examples/rvnpu/transformer/transformer.c", demo_transformer},
#endif
#ifdef NPK_HAVE_OPENNPU_DEMO
    {"opennpu", "int8 GEMM 128x128x128 tiled onto the 8x8 MMA array, ticks against the bound",
     "src/targets/opennpu/gemm.c", demo_opennpu},
#endif
    {"tinytpu", "XOR trained on the 2x2 systolic array: compiled schedule, cycle-exact run",
     "examples/tinytpu/xor/xor_train.net", demo_tinytpu},
    {"pccx", "a tiny Gemma-shaped language model generating text on the LLM NPU",
     "examples/pccx/llm/tinylm.c", demo_pccx},
#ifdef NPK_HAVE_OPENNPU_MLP_DEMO
    {"opennpu-mlp", "int8 MLP 784-128-10 on the MMA array, 12 Fashion-MNIST images in one batch",
     "examples/opennpu/mlp/onpu_mlp.c", demo_opennpu_mlp},
#endif
};

#define N_DEMOS (sizeof demos / sizeof demos[0])

static void help(void)
{
    printf("usage: npukit demo [TARGET...]\n"
           "\n"
           "Run the built-in showcase program of each target (or of the named targets):\n"
           "the program's own output, then retired instructions, cycles, the instruction\n"
           "mix, unit utilisation and the simulator's host speed.\n"
           "\n"
           "demos:\n");
    for (size_t i = 0; i < N_DEMOS; i++)
        printf("  %-8s %s (%s)\n", demos[i].target, demos[i].what, demos[i].file);
    printf("\noptions:\n"
           "  --timeline DIR  write the Chrome trace-event timeline (Perfetto) of each demo's\n"
           "                  showcase run to DIR/DEMO.json (the NPU build where a demo runs\n"
           "                  two builds, the first image where it runs several; DIR must\n"
           "                  exist); the host speed runs stay unobserved\n"
           "  -h, --help      this help\n\nexit status: 0 every demo ran as "
           "expected, 1 a demo failed, 2 usage error\n");
}

int npk_cmd_demo(int argc, char **argv)
{
    int failed = 0, ran = 0, names = 0;
    const char *tl_dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            help();
            return NPK_EXIT_OK;
        }
        if (strncmp(argv[i], "--timeline=", 11) == 0 || strcmp(argv[i], "--timeline") == 0) {
            int at = i;
            const char *v = argv[i][10] == '=' ? argv[i] + 11 : i + 1 < argc ? argv[++i] : NULL;
            if (!v || !*v)
                return npk_usage_error("npukit demo", "option --timeline needs a directory");
            tl_dir = v;
            argv[at] = argv[i] = NULL; /* not demo names */
            continue;
        }
        if (argv[i][0] == '-')
            return npk_usage_error("npukit demo", "unknown option '%s'", argv[i]);
        size_t k;
        for (k = 0; k < N_DEMOS; k++)
            if (strcmp(argv[i], demos[k].target) == 0)
                break;
        if (k == N_DEMOS)
            return npk_usage_error("npukit demo", "no demo for '%s'", argv[i]);
        names++;
    }
    for (size_t k = 0; k < N_DEMOS; k++) {
        int wanted = names == 0;
        for (int i = 1; i < argc; i++)
            wanted |= argv[i] && strcmp(argv[i], demos[k].target) == 0;
        if (!wanted)
            continue;
        printf("== %s: %s\n", demos[k].target, demos[k].what);
        fflush(stdout);
        failed += demos[k].run(&demos[k], tl_dir) != 0;
        printf("\n");
        ran++;
    }
    printf("npukit demo: %d of %d demos ran as expected\n", ran - failed, ran);
    return failed ? NPK_EXIT_INPUT : NPK_EXIT_OK;
}
