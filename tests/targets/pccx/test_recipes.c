/* The example programs of examples/pccx (softmax and RMSNorm as spec §8 lays them out, GEMV and
 * GEMM with INT4 weights and per-row scales) assembled and run through the public npk API,
 * each compared with a host reference written here from the spec's definitions: bit for bit
 * against the defined rounding chain (exact sum -> binary32 -> BF16 at every stored value), and
 * against the real-valued result within a BF16 tolerance. Usage: pccx_recipes EXAMPLES_DIR */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "npukit/npukit.h"
#include "targets/pccx/prog.h"
#include "pccx_ref.h"
#include "test.h"

static const char *dir;

static char *slurp(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n)
        n = 0;
    s[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return s;
}

typedef struct ex {
    npk_machine *m;
    pccx_prog *p;      /* the assembler's view: tensors */
} ex;

/* Assemble and load `name`; the caller reads inputs, then calls finish() to run. */
static int load(ex *e, const char *name)
{
    size_t len;
    char *src = slurp(name, &len);
    char err[256];
    NPK_CHECK(src != NULL);
    if (!src)
        return -1;
    NPK_CHECK(npk_create(&e->m, "pccx", NULL, err, sizeof err) == NPK_OK);
    NPK_CHECK(npk_load_asm(e->m, src, name, stderr) == NPK_OK);
    NPK_CHECK(pccx_assemble(src, len, name, -1, -1, stderr, NULL, &e->p) == 0);
    free(src);
    return e->p ? 0 : -1;
}

static void run(ex *e)
{
    npk_stop st;
    NPK_CHECK(npk_run(e->m, 0, &st) == NPK_OK);
    NPK_REPORT(st.reason == NPK_STOP_EXIT, "run stopped: %s\n", st.message);
}

static void done(ex *e)
{
    npk_destroy(e->m);
    pccx_prog_free(e->p);
}

static uint16_t elem(ex *e, const char *space, uint64_t i)
{
    uint8_t b[2] = {0, 0};
    npk_mem_read(e->m, space, 2 * i, b, 2);
    return (uint16_t)(b[0] | b[1] << 8);
}

static float scalef(const pccx_tensor *t, uint32_t n)
{
    float f;
    memcpy(&f, &t->scale[n], sizeof f);
    return f;
}

/* Exact dot product of BF16 values with INT4 codes (small values here: binary64 is exact). */
static double dot(const pccx_tensor *t, uint32_t n, const float *a)
{
    double s = 0;
    for (uint32_t k = 0; k < t->k; k++)
        s += (double)a[k] * pccx_tensor_code(t, n, k);
    return s;
}

static void test_gemv(void)
{
    ex e;
    if (load(&e, "gemv_int4.s"))
        return;
    float x[64];
    for (int k = 0; k < 64; k++)
        x[k] = ref_bf(elem(&e, "host", (uint64_t)k));
    run(&e);
    const pccx_tensor *t = &e.p->tensors[0];
    double maxerr = 0;
    for (uint32_t n = 0; n < 16; n++) {
        float p = (float)dot(t, n, x) * scalef(t, n);       /* RNE32(RNE32(S) x scale) */
        uint16_t y1 = ref_rne16f(p);                            /* first GEMV */
        uint16_t y2 = ref_rne16f(ref_bf(y1) + p);                   /* second, accm */
        uint16_t got = elem(&e, "l2", 8 * 0x100 + n);
        NPK_REPORT(got == y2, "gemv y[%u] = 0x%04x, want 0x%04x\n", n, got, y2);
        double truth = 2.0 * dot(t, n, x) * (double)scalef(t, n);
        maxerr = fmax(maxerr, fabs(ref_bf(got) - truth) / fmax(fabs(truth), 1e-3));
    }
    /* two BF16 roundings (y1, y2) of relative error at most 2^-8 each */
    NPK_REPORT(maxerr <= 2.0 / 256, "gemv relative error %g\n", maxerr);
    done(&e);
}

static void test_gemm(void)
{
    ex e;
    if (load(&e, "gemm_int4.s"))
        return;
    float a[4][32];
    for (int m = 0; m < 4; m++)
        for (int k = 0; k < 32; k++)
            a[m][k] = ref_bf(elem(&e, "l2", 8 * 0x80 + 32 * (uint64_t)m + (uint64_t)k));
    run(&e);
    const pccx_tensor *t = &e.p->tensors[0];
    float mx = -INFINITY;
    for (int m = 0; m < 4; m++)
        for (uint32_t n = 0; n < 8; n++) {
            uint16_t want = ref_rne16f((float)dot(t, n, a[m]) * scalef(t, n));
            uint16_t got = elem(&e, "l2", 8 * 0x200 + 8 * (uint64_t)m + n);
            NPK_REPORT(got == want, "gemm Y[%d][%u] = 0x%04x, want 0x%04x\n", m, n, got, want);
            mx = fmaxf(mx, ref_bf(want));
        }
    uint64_t emax = 0;
    npk_reg_read(e.m, "emax", &emax);
    uint32_t mb;
    memcpy(&mb, &mx, sizeof mb);
    NPK_CHECK_EQ_U64(emax, mb);
    done(&e);
}

static void test_softmax(void)
{
    ex e;
    if (load(&e, "softmax.s"))
        return;
    float q[8];
    for (int k = 0; k < 8; k++)
        q[k] = ref_bf(elem(&e, "l2", 8 * 0x40 + (uint64_t)k));
    run(&e);
    const pccx_tensor *t = &e.p->tensors[0];
    float s[16], mx = -INFINITY, ev[16];
    for (uint32_t n = 0; n < 16; n++) {
        s[n] = ref_bf(ref_rne16f((float)dot(t, n, q) * scalef(t, n)));
        mx = fmaxf(mx, s[n]);
    }
    double sum = 0, truth_sum = 0;
    for (int i = 0; i < 16; i++) {
        ev[i] = ref_bf(ref_rne16f((float)exp((double)(s[i] - mx))));   /* s - max is exact here */
        NPK_REPORT(elem(&e, "l2", 0x2001 + (uint64_t)i) == ref_rne16f(ev[i]), "e[%d]\n", i);
        sum += ev[i];                                             /* exact */
        truth_sum += exp((double)s[i] - mx);
    }
    float sb = ref_bf(ref_rne16f((float)sum));
    NPK_CHECK_EQ_U64(elem(&e, "l2", 0x2000), ref_rne16f((float)sum));
    double psum = 0;
    for (int i = 0; i < 16; i++) {
        uint16_t want = ref_rne16f(ev[i] / sb);
        uint16_t got = elem(&e, "l2", 0x2400 + (uint64_t)i);
        NPK_REPORT(got == want, "p[%d] = 0x%04x, want 0x%04x\n", i, got, want);
        double truth = exp((double)s[i] - mx) / truth_sum;
        /* e, the sum and p are each rounded to BF16 (relative error at most 2^-8) */
        NPK_REPORT(fabs(ref_bf(got) - truth) <= 3.0 / 256 * truth + 1e-30,
                   "p[%d] = %g, real softmax %g\n", i, ref_bf(got), truth);
        psum += ref_bf(got);
    }
    NPK_REPORT(fabs(psum - 1.0) < 16.0 / 256, "probabilities sum to %g\n", psum);
    done(&e);
}

static void test_rmsnorm(void)
{
    ex e;
    if (load(&e, "rmsnorm_ext.s"))
        return;
    float x[16], g[16];
    for (int i = 0; i < 16; i++) {
        x[i] = ref_bf(elem(&e, "l2", 0x101 + (uint64_t)i));
        g[i] = ref_bf(elem(&e, "l2", 0x200 + (uint64_t)i));
    }
    float eps = ref_bf(elem(&e, "l2", 0x82));
    run(&e);
    double ss = 0, truth_ms = 0;
    for (int i = 0; i < 16; i++)
        ss += (double)x[i] * x[i], truth_ms += (double)x[i] * x[i] / 16;
    float sumsq = ref_bf(ref_rne16f((float)ss));
    float mean = ref_bf(ref_rne16f(sumsq / 16.0f));
    float me = ref_bf(ref_rne16f(mean + eps));
    float sq = ref_bf(ref_rne16f(sqrtf(me)));
    float r = ref_bf(ref_rne16f(1.0f / sq));
    double maxerr = 0;
    for (int i = 0; i < 16; i++) {
        uint16_t want = ref_rne16f(ref_bf(ref_rne16f(x[i] * r)) * g[i]);
        uint16_t got = elem(&e, "l2", 0x300 + (uint64_t)i);
        NPK_REPORT(got == want, "rmsnorm ext y[%d] = 0x%04x, want 0x%04x\n", i, got, want);
        double truth = x[i] / sqrt(truth_ms + 1e-6) * g[i];
        maxerr = fmax(maxerr, fabs(ref_bf(got) - truth));
    }
    /* seven BF16 roundings on the way (sum, mean, +eps, sqrt, recip, x r, x gamma) */
    NPK_REPORT(maxerr <= 7.0 / 256 * 3.0, "rmsnorm ext error %g\n", maxerr); /* |y| < 3 */
    done(&e);

    if (load(&e, "rmsnorm_base.s"))
        return;
    float qv[16];
    for (int i = 0; i < 16; i++) {
        x[i] = ref_bf(elem(&e, "l2", 0x101 + (uint64_t)i));
        qv[i] = ref_bf(elem(&e, "l2", 0x180 + (uint64_t)i));
    }
    float neps = ref_bf(elem(&e, "l2", 8 * 0x41));
    run(&e);
    ss = neps;
    for (int i = 0; i < 16; i++)
        ss += qv[i];
    /* REDUCE_SUM accm: RNE32(old + RNE32(sum q)); the sum q here is exact in binary32 */
    float acc = ref_bf(ref_rne16f(neps + (float)(ss - neps)));
    sq = ref_bf(ref_rne16f(sqrtf(acc)));
    r = ref_bf(ref_rne16f(1.0f / sq));
    for (int i = 0; i < 16; i++) {
        uint16_t want = ref_rne16f(x[i] * r);
        uint16_t got = elem(&e, "l2", 0x300 + (uint64_t)i);
        NPK_REPORT(got == want, "rmsnorm base y[%d] = 0x%04x, want 0x%04x\n", i, got, want);
        double truth = x[i] / sqrt(ss);
        /* sum, sqrt, recip, x r: four BF16 roundings of relative error at most 2^-8 */
        NPK_REPORT(fabs(ref_bf(got) - truth) <= 4.0 / 256 * fabs(truth) + 1e-6,
                   "rmsnorm base y[%d] = %g, real %g\n", i, ref_bf(got), truth);
    }
    /* the work word's lane 0 was restored before and consumed by the sum */
    NPK_CHECK_EQ_U64(elem(&e, "l2", 8 * 0x40), ref_rne16f(sq));
    done(&e);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: pccx_recipes EXAMPLES_DIR\n");
        return 2;
    }
    dir = argv[1];
    test_gemv();
    test_gemm();
    test_softmax();
    test_rmsnorm();
    return npk_test_done();
}
