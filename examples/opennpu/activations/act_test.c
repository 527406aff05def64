/* ctest driver of the opennpu activation kernels: runs the .s programs on the simulator
 * through the public API and compares every output bit-exactly with the host references of
 * act_ref.c, checks that each kernel approximates the real function, and checks the ticks of
 * the seed's core sequence (the lines between "# core-begin" and "# core-end") against the
 * table of spec §6.4.
 *
 *   onpu_act_test relu|clamp|tanh|gelu|softmax|quantize SRC_DIR
 *   onpu_act_test lutgen LUTGEN_EXE WORK_DIR    the onpu-lutgen tool: tables, errors
 *   onpu_act_test cli-data OUT_DIR              inputs and expected --dump text of the CLI tests
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "act_lut.h"
#include "act_ref.h"
#include "npukit/npukit.h"

/* ---- failures ------------------------------------------------------------------------------ */

typedef struct ctx {
    int failures;
    int reported;
} ctx;

static void fail(ctx *c, const char *fmt, ...)
{
    c->failures++;
    if (c->reported++ >= 20)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "onpu_act_test: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

/* ---- deterministic random numbers (xorshift64*) ------------------------------------------------ */

static uint64_t rnd_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static int rnd_int(uint64_t *s, int lo, int hi)   /* uniform in [lo, hi] */
{
    return lo + (int)(rnd_next(s) % (uint64_t)(hi - lo + 1));
}

/* ---- files and machines ------------------------------------------------------------------------ */

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (!s || fread(s, 1, (size_t)n, f) != (size_t)n)
        die("cannot read %s", path);
    s[n] = '\0';
    fclose(f);
    return s;
}

static npk_machine *new_machine(void)
{
    npk_machine *m = NULL;
    char err[256] = "";
    if (npk_create(&m, "opennpu:test", NULL, err, sizeof err) != NPK_OK)
        die("npk_create: %s", err);
    return m;
}

static npk_machine *load_program(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    npk_machine *m = new_machine();
    if (npk_load_file(m, path, stderr) != NPK_OK)
        die("loading %s: %s", path, npk_error(m));
    return m;
}

static void wmem(npk_machine *m, uint32_t addr, const void *p, size_t n)
{
    if (npk_mem_write(m, "mem", addr, p, n) != NPK_OK)
        die("mem write: %s", npk_error(m));
}

static void rmem(npk_machine *m, uint32_t addr, void *p, size_t n)
{
    if (npk_mem_read(m, "mem", addr, p, n) != NPK_OK)
        die("mem read: %s", npk_error(m));
}

/* Reset (registers, LUTs, P to zero; memory kept) and run to the end. */
static void run(npk_machine *m)
{
    npk_stop stop;
    if (npk_reset(m) != NPK_OK)
        die("reset: %s", npk_error(m));
    if (npk_run(m, 0, &stop) != NPK_OK || stop.reason != NPK_STOP_EXIT)
        die("run did not end normally: %s %s", npk_error(m), stop.message);
}

/* Run with the text trace on; issue tick of the word at position pc -> tick[pc]. Returns the
 * tick count of the run (statistics). */
static uint64_t run_traced(npk_machine *m, uint64_t *tick, size_t max_words)
{
    FILE *tr = tmpfile();
    if (!tr)
        die("tmpfile failed");
    npk_reset(m);
    npk_trace_text(m, tr);
    npk_stats_enable(m, 1);
    npk_stop stop;
    if (npk_run(m, 0, &stop) != NPK_OK || stop.reason != NPK_STOP_EXIT)
        die("traced run did not end normally: %s", stop.message);
    npk_trace_text(m, NULL);
    npk_stats st;
    if (npk_stats_get(m, &st) != NPK_OK)
        die("stats: %s", npk_error(m));
    uint64_t cycles = st.cycles;
    npk_stats_enable(m, 0);
    rewind(tr);
    char line[512];
    for (size_t i = 0; i < max_words; i++)
        tick[i] = UINT64_MAX;
    while (fgets(line, sizeof line, tr)) {
        unsigned long long t, addr;
        if (sscanf(line, "%llu %llx", &t, &addr) == 2 && addr / 4 < max_words)
            tick[addr / 4] = t;
    }
    fclose(tr);
    return cycles;
}

/* ---- the core sequence and its ticks (spec §6.4) -------------------------------------------- */

#define MAX_WORDS 512

static size_t word_count(npk_machine *asm_m, const char *text)
{
    uint8_t *img = NULL;
    size_t n = 0;
    if (npk_assemble(asm_m, text, "prefix", stderr, &img, &n) != NPK_OK)
        die("assembling a prefix failed: %s", npk_error(asm_m));
    npk_free(img);
    return n / 4;
}

/* The core of `name`: its lines between "# core-begin" and "# core-end" markers, run alone
 * (issue ticks and tick count must be the spec's), and inside the full program `m` (with its
 * data loaded): the same issue ticks relative to the first core instruction. */
static void check_core(ctx *c, const char *dir, const char *name, npk_machine *m,
                       const unsigned *issue, size_t n_issue, unsigned ticks)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *src = read_text(path);
    size_t len = strlen(src);
    char *prefix = calloc(len + 1, 1), *core = calloc(len + 1, 1);
    size_t pcs[MAX_WORDS], n_pcs = 0, words = 0;
    int in_core = 0;
    npk_machine *asm_m = new_machine();
    for (char *p = src; *p;) {
        char *e = strchr(p, '\n');
        size_t ll = e ? (size_t)(e - p + 1) : strlen(p);
        strncat(prefix, p, ll);
        if (strncmp(p, "# core-begin", 12) == 0)
            in_core = 1;
        else if (strncmp(p, "# core-end", 10) == 0)
            in_core = 0;
        else {
            size_t w = word_count(asm_m, prefix);
            if (in_core) {
                strncat(core, p, ll);
                for (size_t k = words; k < w && n_pcs < MAX_WORDS; k++)
                    pcs[n_pcs++] = k;
            }
            words = w;
        }
        p += ll;
    }
    npk_destroy(asm_m);

    if (n_pcs != n_issue) {
        fail(c, "%s: the core has %zu instructions, spec §6.4 has %zu", name, n_pcs, n_issue);
        goto out;
    }
    /* Alone. */
    npk_machine *cm = new_machine();
    if (npk_load_asm(cm, core, "core", stderr) != NPK_OK)
        die("core of %s: %s", name, npk_error(cm));
    uint64_t tick[MAX_WORDS];
    uint64_t t_alone = run_traced(cm, tick, MAX_WORDS);
    npk_destroy(cm);
    printf("%s core alone: %llu ticks, issue", name, (unsigned long long)t_alone);
    for (size_t k = 0; k < n_issue; k++) {
        printf(" %llu", (unsigned long long)tick[k]);
        if (tick[k] != issue[k])
            fail(c, "%s core alone: instruction %zu issues at %llu, spec §6.4 says %u", name, k,
                 (unsigned long long)tick[k], issue[k]);
    }
    printf("\n");
    if (t_alone != ticks)
        fail(c, "%s core alone: %llu ticks, spec §6.4 says %u", name,
             (unsigned long long)t_alone, ticks);
    /* Inside the full program. */
    uint64_t t_full = run_traced(m, tick, MAX_WORDS);
    printf("%s whole program: %zu instructions, %llu ticks; core at pc %zu, issue", name, words,
           (unsigned long long)t_full, pcs[0]);
    for (size_t k = 0; k < n_issue; k++) {
        uint64_t rel = tick[pcs[k]] - tick[pcs[0]];
        printf(" +%llu", (unsigned long long)rel);
        if (rel != issue[k])
            fail(c, "%s in the program: core instruction %zu issues at +%llu, spec §6.4 says %u",
                 name, k, (unsigned long long)rel, issue[k]);
    }
    printf("\n");
out:
    free(prefix);
    free(core);
    free(src);
}

/* ---- elementwise kernels: all 256 inputs, 32 runs of K = 8 lanes --------------------------- */

typedef int8_t (*ref_fn)(const void *arg, int8_t x);

static void run_all_inputs(ctx *c, npk_machine *m, const char *what, ref_fn ref,
                           const void *arg, int8_t out[256])
{
    for (int v = 0; v < 256 / ACT_K; v++) {
        int8_t x[ACT_K], y[ACT_K];
        for (int k = 0; k < ACT_K; k++)
            x[k] = (int8_t)(uint8_t)(v * ACT_K + k);
        wmem(m, ACT_IN, x, ACT_K);
        run(m);
        rmem(m, ACT_OUT, y, ACT_K);
        for (int k = 0; k < ACT_K; k++) {
            int8_t want = ref(arg, x[k]);
            out[(uint8_t)x[k]] = y[k];
            if (y[k] != want)
                fail(c, "%s: x = %d: simulator %d, reference %d", what, x[k], y[k], want);
        }
    }
}

static int8_t ref_relu(const void *arg, int8_t x)
{
    (void)arg;
    return act_ref_relu(x);
}

static int8_t ref_clamp(const void *arg, int8_t x)
{
    const int8_t *b = arg;
    return act_ref_clamp(x, b[0], b[1]);
}

static int8_t ref_lut(const void *arg, int8_t x)
{
    return act_ref_lut(arg, x);
}

static int8_t ref_gelu(const void *arg, int8_t x)
{
    return act_ref_gelu(arg, x);
}

static void table(act_lut_fn fn, int out_frac, uint8_t t[256])
{
    act_lut_format f = act_lut_default_format(fn);
    if (out_frac >= 0)
        f.out_frac = out_frac;
    if (act_lut_build(fn, &f, t) != 0)
        die("act_lut_build failed");
}

static const unsigned issue_relu[] = {0, 1}, issue_tanh[] = {0}, issue_gelu[] = {0, 1, 2, 3, 4},
                      issue_softmax[] = {0, 1, 2, 3, 4, 5},
                      issue_quant[] = {0, 1, 2, 3, 4, 5, 6, 7, 22, 23, 25};
#define N_OF(a) (sizeof(a) / sizeof(a)[0])

static void test_relu(ctx *c, const char *dir)
{
    npk_machine *m = load_program(dir, "relu.s");
    int8_t out[256];
    run_all_inputs(c, m, "relu", ref_relu, NULL, out);
    for (int i = 0; i < 256; i++) {   /* the real function, independently */
        int x = (int8_t)(uint8_t)i;
        if (out[i] != (x < 0 ? 0 : x))
            fail(c, "relu(%d) = %d", x, out[i]);
    }
    check_core(c, dir, "relu.s", m, issue_relu, N_OF(issue_relu), 2);
    npk_destroy(m);
}

static void test_clamp(ctx *c, const char *dir)
{
    npk_machine *m = load_program(dir, "clamp.s");
    int8_t bounds[12][2] = {{-64, 64}, {0, 127}, {-128, 127}, {-128, -128}, {127, 127},
                            {10, -10} /* lo > hi: every lane lo */};
    uint64_t s = 0xC1A3F00Dull;
    for (int i = 6; i < 12; i++) {
        bounds[i][0] = (int8_t)rnd_int(&s, -128, 127);
        bounds[i][1] = (int8_t)rnd_int(&s, -128, 127);
    }
    for (int i = 0; i < 12; i++) {
        char what[64];
        snprintf(what, sizeof what, "clamp [%d, %d]", bounds[i][0], bounds[i][1]);
        wmem(m, ACT_CLAMP_LO, bounds[i], 2);
        int8_t out[256];
        run_all_inputs(c, m, what, ref_clamp, bounds[i], out);
        for (int j = 0; j < 256; j++) {
            int x = (int8_t)(uint8_t)j, lo = bounds[i][0], hi = bounds[i][1];
            int want = lo > hi ? lo : x < lo ? lo : x > hi ? hi : x;
            if (out[j] != want)
                fail(c, "%s of %d = %d, expected %d", what, x, out[j], want);
        }
    }
    wmem(m, ACT_CLAMP_LO, bounds[0], 2);
    check_core(c, dir, "clamp.s", m, issue_relu, N_OF(issue_relu), 2);
    npk_destroy(m);
}

static void test_tanh(ctx *c, const char *dir)
{
    npk_machine *m = load_program(dir, "tanh.s");
    const int fracs[2] = {6, 7};   /* the default SQ1.6 table and a Q0.7 one */
    for (int f = 0; f < 2; f++) {
        uint8_t t[256];
        table(ACT_LUT_TANH, fracs[f], t);
        wmem(m, ACT_LUTA, t, 256);
        int8_t out[256];
        char what[32];
        snprintf(what, sizeof what, "tanh (out frac %d)", fracs[f]);
        run_all_inputs(c, m, what, ref_lut, t, out);
        double maxerr = 0, q = ldexp(1.0, fracs[f]);
        for (int i = 0; i < 256; i++) {
            double x = (int8_t)(uint8_t)i / 64.0, err = fabs(out[i] / q - tanh(x));
            if (err > maxerr)
                maxerr = err;
        }
        printf("%s: max |y - tanh(x)| = %.5f = %.3f LSB (bound 0.5 LSB)\n", what, maxerr,
               maxerr * q);
        if (maxerr > 0.5 / q + 1e-12)
            fail(c, "%s: error %.5f above half an LSB", what, maxerr);
    }
    check_core(c, dir, "tanh.s", m, issue_tanh, N_OF(issue_tanh), 1);
    npk_destroy(m);
}

static double gelu_exact(double x)
{
    return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
}

static void test_gelu(ctx *c, const char *dir)
{
    npk_machine *m = load_program(dir, "gelu.s");
    uint8_t t[256];
    table(ACT_LUT_ERF_GELU, -1, t);
    wmem(m, ACT_LUTA, t, 256);
    int8_t out[256];
    run_all_inputs(c, m, "gelu", ref_gelu, t, out);
    double maxerr = 0;
    for (int i = 0; i < 256; i++) {
        double x = (int8_t)(uint8_t)i / 64.0, err = fabs(out[i] / 64.0 - gelu_exact(x));
        if (err > maxerr)
            maxerr = err;
    }
    /* u is off by at most 1/2 (of 256 Phi), times |x| <= 128, over 256: 1/4 LSB; the floor of
     * the last vsra: less than 1 LSB. */
    printf("gelu: max |y - GELU(x)| = %.5f = %.3f LSB of SQ1.6 (bound 1.25 LSB)\n", maxerr,
           maxerr * 64);
    if (maxerr > 1.25 / 64)
        fail(c, "gelu: error %.5f above 1.25/64", maxerr);
    check_core(c, dir, "gelu.s", m, issue_gelu, N_OF(issue_gelu), 5);
    npk_destroy(m);
}

static void test_softmax(ctx *c, const char *dir)
{
    npk_machine *m = load_program(dir, "softmax.s");
    uint8_t te[256], tr[256];
    table(ACT_LUT_EXP, -1, te);
    table(ACT_LUT_RECIP, -1, tr);
    wmem(m, ACT_LUTA, te, 256);
    wmem(m, ACT_LUTB, tr, 256);
    uint64_t s = 0x50F7AAull;
    double maxerr = 0, maxerr_sat = 0;
    int n_close = 0;
    const int n = 4000;
    for (int v = 0; v < n + 12; v++) {
        int8_t x[ACT_K], y[ACT_K], want[ACT_K];
        if (v < n / 2) {              /* anything */
            for (int k = 0; k < ACT_K; k++)
                x[k] = (int8_t)rnd_int(&s, -128, 127);
        } else if (v < n) {           /* spread <= 2.0: no difference saturates */
            int lo = rnd_int(&s, -128, 127), hi = lo + rnd_int(&s, 0, 128);
            if (hi > 127)
                hi = 127;
            for (int k = 0; k < ACT_K; k++)
                x[k] = (int8_t)rnd_int(&s, lo, hi);
        } else {                      /* k lanes at the max, the others 2.0 or more below */
            int k0 = v - n;           /* 0 .. 11 */
            for (int k = 0; k < ACT_K; k++)
                x[k] = (int8_t)(k <= k0 % ACT_K ? 127 : k0 < ACT_K ? -1 : -128);
        }
        wmem(m, ACT_IN, x, ACT_K);
        run(m);
        rmem(m, ACT_OUT, y, ACT_K);
        act_ref_softmax(te, tr, x, want);
        int8_t mx = x[0];
        for (int k = 1; k < ACT_K; k++)
            mx = x[k] > mx ? x[k] : mx;
        double sum = 0, sum_sat = 0;
        for (int k = 0; k < ACT_K; k++) {
            double d = (x[k] - mx) / 64.0;
            sum += exp(d);
            sum_sat += exp(d < -2.0 ? -2.0 : d);
        }
        int spread_ok = 1;
        for (int k = 0; k < ACT_K; k++)
            if (mx - x[k] > 128)
                spread_ok = 0;
        for (int k = 0; k < ACT_K; k++) {
            if (y[k] != want[k])
                fail(c, "softmax vector %d lane %d: simulator %d, reference %d", v, k, y[k],
                     want[k]);
            double d = (x[k] - mx) / 64.0;
            double p = exp(d) / sum, p_sat = exp(d < -2.0 ? -2.0 : d) / sum_sat;
            double err_sat = fabs(y[k] / 64.0 - p_sat);
            if (err_sat > maxerr_sat)
                maxerr_sat = err_sat;
            if (spread_ok) {
                double err = fabs(y[k] / 64.0 - p);
                if (err > maxerr)
                    maxerr = err;
                n_close++;
            }
        }
    }
    printf("softmax: %d vectors bit-exact; max |y - softmax(x)| = %.5f = %.3f LSB over %d lanes "
           "with spread <= 2.0 (bound 2 LSB); against the saturated model %.3f LSB\n",
           n + 12, maxerr, maxerr * 64, n_close, maxerr_sat * 64);
    if (maxerr > 2.0 / 64)
        fail(c, "softmax: error %.5f above 2/64", maxerr);
    if (maxerr_sat > 2.0 / 64)
        fail(c, "softmax: error against the saturated model %.5f above 2/64", maxerr_sat);
    check_core(c, dir, "softmax.s", m, issue_softmax, N_OF(issue_softmax), 6);
    npk_destroy(m);
}

/* ---- quantize ------------------------------------------------------------------------------ */

typedef struct qcase {
    int8_t a[ACT_K * ACT_K], b[ACT_K * ACT_K];
    float scale[ACT_K], bias[ACT_K];
} qcase;

static void put_f32(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(u >> (8 * i));
}

/* The data image of quantize.s (ACT_Q_IMAGE bytes at address 0). */
static void q_image(const qcase *q, uint8_t img[ACT_Q_IMAGE])
{
    memset(img, 0, ACT_Q_IMAGE);
    for (int t = 0; t < ACT_K; t++)
        for (int i = 0; i < ACT_K; i++) {
            img[ACT_Q_AT + ACT_K * t + i] = (uint8_t)q->a[i * ACT_K + t];   /* column t of A */
            img[ACT_Q_B + ACT_K * t + i] = (uint8_t)q->b[t * ACT_K + i];    /* row t of B */
        }
    for (int i = 0; i < ACT_K; i++) {
        put_f32(img + ACT_Q_SCALE + 4 * i, q->scale[i]);
        put_f32(img + ACT_Q_BIAS + 4 * i, q->bias[i]);
    }
}

/* Random case kind 0: full-range matrices, scales 2^-12 .. 2^-4 with 10 random mantissa bits,
 * biases -32 .. 32 in steps of 1/128 (all normal floats, or 0), many outputs saturate. Kind 1:
 * rounding ties: B = 16 everywhere, scale 1/32, bias 0 or +-0.5, so C*s + z is often exactly
 * halfway. Kind 2: scales 2^-11 .. 2^-8 and biases -8 .. 8, few outputs saturate. */
static void q_random(uint64_t *s, int kind, qcase *q)
{
    for (int i = 0; i < ACT_K * ACT_K; i++) {
        q->a[i] = (int8_t)rnd_int(s, -128, 127);
        q->b[i] = kind == 1 ? 16 : (int8_t)rnd_int(s, -128, 127);
    }
    for (int i = 0; i < ACT_K; i++) {
        if (kind == 1) {
            q->scale[i] = 1.0f / 32;
            q->bias[i] = (float)rnd_int(s, -1, 1) * 0.5f;
        } else if (kind == 2) {
            q->scale[i] = ldexpf(1.0f + (float)rnd_int(s, 0, 1023) / 1024.0f, -rnd_int(s, 9, 11));
            q->bias[i] = (float)rnd_int(s, -1024, 1024) / 128.0f;
        } else {
            q->scale[i] = ldexpf(1.0f + (float)rnd_int(s, 0, 1023) / 1024.0f, -rnd_int(s, 5, 12));
            q->bias[i] = (float)rnd_int(s, -4096, 4096) / 128.0f;
        }
    }
}

static void test_quantize(ctx *c, const char *dir)
{
    npk_machine *m = load_program(dir, "quantize.s");
    uint64_t s = 0x9A27ull;
    const int n = 300;
    int n_sat = 0, n_ties = 0, n_off = 0;
    for (int v = 0; v < n; v++) {
        qcase q;
        q_random(&s, v % 10 == 9 ? 1 : v % 10 == 8 ? 2 : 0, &q);
        uint8_t img[ACT_Q_IMAGE];
        q_image(&q, img);
        wmem(m, 0, img, sizeof img);
        run(m);
        int8_t yt[ACT_K * ACT_K], want[ACT_K * ACT_K];
        rmem(m, ACT_Q_OUT, yt, sizeof yt);
        act_ref_quantize(q.a, q.b, q.scale, q.bias, want);
        for (int i = 0; i < ACT_K; i++)
            for (int j = 0; j < ACT_K; j++) {
                int got = yt[j * ACT_K + i], w = want[i * ACT_K + j];
                if (got != w)
                    fail(c, "quantize case %d: Y[%d][%d]: simulator %d, reference %d", v, i, j,
                         got, w);
                /* Against exact arithmetic in double: at most 1 apart (the FP32 rounding of
                 * the fma can move a value across a .5 boundary). */
                int64_t cc = 0;
                for (int t = 0; t < ACT_K; t++)
                    cc += (int64_t)q.a[i * ACT_K + t] * q.b[t * ACT_K + j];
                double exact = (double)cc * q.scale[i] + q.bias[i];
                double r = nearbyint(exact);
                if (r < -128 || r > 127)
                    n_sat++;
                if (exact == floor(exact) + 0.5)
                    n_ties++;
                r = r < -128 ? -128 : r > 127 ? 127 : r;
                if (fabs(got - r) > 1)
                    fail(c, "quantize case %d: Y[%d][%d] = %d, exact %.4f", v, i, j, got, exact);
                n_off += got != (int)r;
            }
    }
    printf("quantize: %d cases of %dx%d bit-exact (%d saturated outputs, %d exact ties); %d "
           "outputs differ by 1 from rounding the exact value in double\n",
           n, ACT_K, ACT_K, n_sat, n_ties, n_off);
    if (n_sat == 0 || n_ties == 0)
        fail(c, "quantize: the cases do not cover saturation and ties");
    check_core(c, dir, "quantize.s", m, issue_quant, N_OF(issue_quant), 27);
    npk_destroy(m);
}

/* ---- the onpu-lutgen tool -------------------------------------------------------------------- */

static int sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    printf("$ %s  -> %d\n", cmd, st);
    return st;
}

static void test_lutgen(ctx *c, const char *exe, const char *work)
{
    if (sh("mkdir -p '%s'", work) != 0)
        die("cannot create %s", work);
    /* Every function at its default format, plus two overridden formats: the file must be
     * the table of act_lut_build, and every entry within half an LSB of the real function
     * unless saturated. */
    struct {
        const char *args;
        act_lut_fn fn;
        int out_frac;
    } runs[] = {
        {"tanh", ACT_LUT_TANH, -1},       {"sigmoid", ACT_LUT_SIGMOID, -1},
        {"exp", ACT_LUT_EXP, -1},         {"recip", ACT_LUT_RECIP, -1},
        {"erf", ACT_LUT_ERF, -1},         {"erf-gelu", ACT_LUT_ERF_GELU, -1},
        {"--out-frac 7 tanh", ACT_LUT_TANH, 7}, {"--out-frac=4 exp", ACT_LUT_EXP, 4},
    };
    for (size_t r = 0; r < N_OF(runs); r++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/t%zu.lut", work, r);
        if (sh("'%s' %s -o '%s'", exe, runs[r].args, path) != 0) {
            fail(c, "lutgen %s failed", runs[r].args);
            continue;
        }
        uint8_t got[257], want[256];
        FILE *f = fopen(path, "rb");
        size_t n = f ? fread(got, 1, sizeof got, f) : 0;
        if (f)
            fclose(f);
        if (n != 256) {
            fail(c, "lutgen %s: %zu bytes, expected 256", runs[r].args, n);
            continue;
        }
        act_lut_format fm = act_lut_default_format(runs[r].fn);
        if (runs[r].out_frac >= 0)
            fm.out_frac = runs[r].out_frac;
        act_lut_build(runs[r].fn, &fm, want);
        if (memcmp(got, want, 256) != 0)
            fail(c, "lutgen %s: file differs from act_lut_build", runs[r].args);
        double q = ldexp(1.0, fm.out_frac), lo = fm.out_unsigned ? 0 : -128,
               hi = fm.out_unsigned ? 255 : 127, worst = 0;
        for (unsigned i = 0; i < 256; i++) {
            double v = act_lut_eval(runs[r].fn, act_lut_input(&fm, i)) * q;
            double e = fm.out_unsigned ? got[i] : (int8_t)got[i];
            double ideal = v < lo ? lo : v > hi ? hi : v;
            if (fabs(e - ideal) > 0.5 + 1e-9)
                fail(c, "lutgen %s: entry %u = %g, exact %g", runs[r].args, i, e, v);
            if (fabs(e - ideal) > worst)
                worst = fabs(e - ideal);
        }
        printf("  %s: max |entry - exact| = %.4f LSB (saturated entries at the bound)\n",
               runs[r].args, worst);
    }
    /* Spot values a reader can check by hand. */
    uint8_t t[256];
    table(ACT_LUT_TANH, -1, t);
    if (t[64] != 49 || t[0] != 0 || t[0xC0] != (uint8_t)-49)   /* 64 tanh(1) = 48.74 */
        fail(c, "tanh table: T[64] = %d, T[-64] = %d", t[64], (int8_t)t[0xC0]);
    table(ACT_LUT_EXP, -1, t);
    if (t[0] != 32 || t[0x80] != 4 || t[0xC0] != 12)   /* 32 e^0, 32 e^-2 = 4.33, 32 e^-1 = 11.8 */
        fail(c, "exp table: E[0] = %d, E[-128] = %d, E[-64] = %d", t[0], t[0x80], t[0xC0]);
    table(ACT_LUT_RECIP, -1, t);
    if (t[0] != 64 || t[128] != 128 || t[100] != 164 || t[60] != 255)
        fail(c, "recip table: R[0] = %d, R[128] = %d, R[100] = %d, R[60] = %d", t[0], t[128],
             t[100], t[60]);
    /* Bad usage: non-zero status, and no output file. */
    const char *bad[] = {"", "nosuchfn", "tanh --in-frac 8", "tanh --out-frac x",
                         "tanh --bogus", "tanh exp", "recip --in-signed", "tanh -f pdf"};
    for (size_t i = 0; i < N_OF(bad); i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/bad%zu.lut", work, i);
        remove(path);
        if (sh("'%s' %s -o '%s' 2>/dev/null", exe, bad[i], path) == 0)
            fail(c, "lutgen %s: exit status 0 on bad usage", bad[i]);
        FILE *f = fopen(path, "rb");
        if (f) {
            fclose(f);
            fail(c, "lutgen %s: wrote an output file on bad usage", bad[i]);
        }
    }
    if (sh("'%s' tanh -o 2>/dev/null", exe) == 0)
        fail(c, "lutgen tanh -o: exit status 0 without the option's value");
    if (sh("'%s' --help > '%s/help.txt'", exe, work) != 0)
        fail(c, "lutgen --help: non-zero status");
    if (sh("'%s' -f text erf-gelu -o - > '%s/erf.txt'", exe, work) != 0)
        fail(c, "lutgen -f text: non-zero status");
}

/* ---- data of the CLI tests ------------------------------------------------------------------ */

static void write_file(const char *dir, const char *name, const void *p, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0)
        die("cannot write %s", path);
}

/* The text `npukit run --dump mem:ADDR:LEN` prints for these bytes. */
static void write_expect(const char *dir, const char *name, uint32_t addr, const void *p,
                         size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot write %s", path);
    const uint8_t *b = p;
    for (size_t a = 0; a < n; a += 16) {
        fprintf(f, "mem:%08lx:", (unsigned long)(addr + a));
        for (size_t k = a; k < n && k < a + 16; k++)
            fprintf(f, " %02x", b[k]);
        fprintf(f, "\n");
    }
    if (fclose(f) != 0)
        die("cannot write %s", path);
}

static void cli_data(const char *dir)
{
    mkdir(dir, 0777);   /* may exist already; a failure shows up when writing */
    const int8_t x[ACT_K] = {-128, -65, -64, -1, 0, 1, 64, 127};
    const int8_t bounds[2] = {-64, 64};
    const int8_t xs[ACT_K] = {20, -20, 64, 0, -64, 32, 63, -100};
    int8_t y[ACT_K];
    uint8_t t[256], t2[256];
    write_file(dir, "x.bin", x, ACT_K);
    write_file(dir, "bounds.bin", bounds, 2);
    write_file(dir, "softmax_x.bin", xs, ACT_K);
    for (int k = 0; k < ACT_K; k++)
        y[k] = act_ref_relu(x[k]);
    write_expect(dir, "relu.expect", ACT_OUT, y, ACT_K);
    for (int k = 0; k < ACT_K; k++)
        y[k] = act_ref_clamp(x[k], bounds[0], bounds[1]);
    write_expect(dir, "clamp.expect", ACT_OUT, y, ACT_K);
    table(ACT_LUT_TANH, -1, t);
    for (int k = 0; k < ACT_K; k++)
        y[k] = act_ref_lut(t, x[k]);
    write_expect(dir, "tanh.expect", ACT_OUT, y, ACT_K);
    table(ACT_LUT_ERF_GELU, -1, t);
    for (int k = 0; k < ACT_K; k++)
        y[k] = act_ref_gelu(t, x[k]);
    write_expect(dir, "gelu.expect", ACT_OUT, y, ACT_K);
    table(ACT_LUT_EXP, -1, t);
    table(ACT_LUT_RECIP, -1, t2);
    act_ref_softmax(t, t2, xs, y);
    write_expect(dir, "softmax.expect", ACT_OUT, y, ACT_K);
    qcase q;
    uint64_t s = 0xC11ull;
    q_random(&s, 2, &q);
    uint8_t img[ACT_Q_IMAGE];
    q_image(&q, img);
    write_file(dir, "quant.bin", img, sizeof img);
    int8_t yq[ACT_K * ACT_K], yt[ACT_K * ACT_K];
    act_ref_quantize(q.a, q.b, q.scale, q.bias, yq);
    for (int i = 0; i < ACT_K; i++)
        for (int j = 0; j < ACT_K; j++)
            yt[j * ACT_K + i] = yq[i * ACT_K + j];   /* stored column by column */
    write_expect(dir, "quantize.expect", ACT_Q_OUT, yt, sizeof yt);
}

/* ---- main ---------------------------------------------------------------------------------- */

static const char usage_text[] =
    "usage: onpu_act_test relu|clamp|tanh|gelu|softmax|quantize SRC_DIR\n"
    "       onpu_act_test lutgen LUTGEN_EXE WORK_DIR\n"
    "       onpu_act_test cli-data OUT_DIR\n";

int main(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("%sRun an activation kernel against its host reference, the LUT generator, or "
               "write the\ninput data of the command-line checks (examples/opennpu/"
               "activations/README.md).\n",
               usage_text);
        return 0;
    }
    ctx c = {0, 0};
    if (argc == 3 && strcmp(argv[1], "cli-data") == 0) {
        cli_data(argv[2]);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "lutgen") == 0)
        test_lutgen(&c, argv[2], argv[3]);
    else if (argc == 3 && strcmp(argv[1], "relu") == 0)
        test_relu(&c, argv[2]);
    else if (argc == 3 && strcmp(argv[1], "clamp") == 0)
        test_clamp(&c, argv[2]);
    else if (argc == 3 && strcmp(argv[1], "tanh") == 0)
        test_tanh(&c, argv[2]);
    else if (argc == 3 && strcmp(argv[1], "gelu") == 0)
        test_gelu(&c, argv[2]);
    else if (argc == 3 && strcmp(argv[1], "softmax") == 0)
        test_softmax(&c, argv[2]);
    else if (argc == 3 && strcmp(argv[1], "quantize") == 0)
        test_quantize(&c, argv[2]);
    else {
        fputs(usage_text, stderr);
        return 2;
    }
    if (c.failures) {
        fprintf(stderr, "%d failure(s)\n", c.failures);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
