/* The public model API (include/npukit/model.h), used as a program outside npukit would: only
 * the public header. The committed Fashion-MNIST MLP (models/onnx/mlp.onnx, 784-128-10) on its
 * 8 samples, on the host and on opennpu, against the float64 NumPy reference
 * (tests/model/ref/onnx_ref.py, run by api_ref.sh, which hands the samples and the reference's
 * outputs over as raw little-endian float32 and float64 files) within the tolerances of
 * docs/models.md ("Tolerances"); what the model is (shapes, layers, MACs and parameters worked
 * out below from the layer sizes); and the errors: unreadable and malformed files, a model the
 * plan refuses, an unknown target, an int8 target before calibration, wrong counts, NaN and
 * infinite inputs, calibration while a session is open, and closing the model before its
 * session.
 * usage: test_model_api MLP.onnx SAMPLES.f32 REF.f64 TRUNCATED.onnx NOT_A_CHAIN.onnx OUT_DIR */
#include <math.h>
#include <stdlib.h>

#include "npukit/model.h"
#include "test.h"

enum { NIN = 784, NOUT = 10, MAX_SAMPLES = 64 };

/* The raw values of a file (at most MAX_SAMPLES inputs' worth), *count of `elem` bytes each. */
static void *read_raw(const char *path, size_t elem, size_t *count)
{
    FILE *f = fopen(path, "rb");
    void *out = f ? malloc(MAX_SAMPLES * NIN * elem) : NULL;
    *count = out ? fread(out, elem, MAX_SAMPLES * NIN, f) : 0;
    if (f)
        fclose(f);
    return out;
}

/* What the MLP is: 784 -> Gemm 128 -> ReLU -> Gemm 10. */
static void check_info(npk_nn *m)
{
    npk_nn_info info;
    NPK_CHECK(npk_nn_info_get(m, &info) == NPK_OK);
    NPK_CHECK(info.plan_error == NULL);
    NPK_CHECK_EQ_U64(info.n_inputs, 1);
    NPK_CHECK_EQ_U64(info.n_outputs, 1);
    NPK_CHECK_EQ_U64(info.n_layers, 2);
    NPK_CHECK_EQ_U64(info.input_elems, NIN);
    NPK_CHECK_EQ_U64(info.output_elems, NOUT);
    NPK_CHECK(info.input_rank == 1 && info.input_dims[0] == NIN);
    NPK_CHECK(info.output_rank == 1 && info.output_dims[0] == NOUT);
    /* MACs 784 * 128 + 128 * 10 = 101632; parameters those weights plus 128 + 10 biases */
    NPK_CHECK_EQ_U64(info.macs, 101632);
    NPK_CHECK_EQ_U64(info.params, 101632 + 138);
    NPK_CHECK(!info.calibrated);
    npk_nn_tensor t;
    NPK_CHECK(npk_nn_input(m, 0, &t) == NPK_OK);
    NPK_CHECK_EQ_STR(t.dtype, "float32");
    NPK_CHECK(t.rank == 2 && t.dims[0] == 1 && t.dims[1] == NIN);
    NPK_CHECK(npk_nn_output(m, 0, &t) == NPK_OK);
    NPK_CHECK(t.rank == 2 && t.dims[1] == NOUT);
    NPK_CHECK(npk_nn_output(m, 1, &t) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_nn_error(m), "output 1 does not exist (the graph has 1)");
    npk_nn_layer l;
    NPK_CHECK(npk_nn_layer_get(m, 0, &l) == NPK_OK);
    NPK_CHECK_EQ_STR(l.kind, "dense");
    NPK_CHECK_EQ_STR(l.act, "relu");
    NPK_CHECK_EQ_STR(l.op, "Gemm");
    NPK_CHECK(l.n_in == NIN && l.n_out == 128 && l.in_dims[0] == NIN && l.out_dims[0] == 128);
    NPK_CHECK(l.in_scale == 0.0);
    /* a chain: the model's input (tensor 0) -> layer 0 -> tensor 1 -> layer 1 -> tensor 2 */
    NPK_CHECK(l.in_tensor == 0 && l.in2_tensor == -1 && l.out_tensor == 1);
    NPK_CHECK(npk_nn_layer_get(m, 1, &l) == NPK_OK);
    NPK_CHECK_EQ_STR(l.kind, "dense");
    NPK_CHECK_EQ_STR(l.act, "none");
    NPK_CHECK(l.n_in == 128 && l.n_out == NOUT);
    NPK_CHECK(l.in_tensor == 1 && l.in2_tensor == -1 && l.out_tensor == 2);
    NPK_CHECK(npk_nn_layer_get(m, 2, &l) == NPK_ERR_RANGE);
}

/* Every output within atol + rtol |ref|; returns the largest difference. */
static double run_all(npk_nn *m, const char *target, const float *x, const double *ref,
                      size_t n, double atol, double rtol, npk_nn_stats *last)
{
    npk_nn_session *s;
    npk_status st = npk_nn_session_open(m, target, &s);
    NPK_REPORT(st == NPK_OK, "%s: session: %s\n", target, npk_nn_error(m));
    if (st != NPK_OK)
        return INFINITY;
    double worst = 0.0;
    size_t agree = 0;
    for (size_t k = 0; k < n; k++) {
        float y[NOUT];
        st = npk_nn_infer(s, x + k * NIN, NIN, y, NOUT, last);
        NPK_REPORT(st == NPK_OK, "%s: input %zu: %s\n", target, k, npk_nn_session_error(s));
        size_t a = 0, b = 0;
        for (size_t i = 0; i < NOUT; i++) {
            double r = ref[k * NOUT + i], d = fabs((double)y[i] - r);
            worst = d > worst ? d : worst;
            NPK_REPORT(d <= atol + rtol * fabs(r), "%s: input %zu output %zu: %.9g, the "
                       "reference %.9g\n", target, k, i, (double)y[i], r);
            a = y[i] > y[a] ? i : a;
            b = r > ref[k * NOUT + b] ? i : b;
        }
        agree += a == b;
    }
    printf("%s: %zu inputs, max |difference| from the NumPy reference %.3g, argmax agrees "
           "%zu of %zu\n", target, n, worst, agree, n);
    npk_nn_session_close(s);
    return worst;
}

static void check_errors(npk_nn *m, const float *x, const char *truncated,
                         const char *not_chain)
{
    char err[1024] = "";
    npk_nn *bad = (npk_nn *)&err;
    NPK_CHECK(npk_nn_open(&bad, "/nonexistent/model.onnx", err, sizeof err) == NPK_ERR_IO);
    NPK_CHECK(bad == NULL);
    NPK_CHECK_CONTAINS(err, "/nonexistent/model.onnx");
    NPK_CHECK(npk_nn_open(&bad, truncated, err, sizeof err) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(err, "not an ONNX model: the protobuf data is malformed or truncated");
    NPK_CHECK(npk_nn_open_buffer(&bad, "\x0a\xff\xff", 3, "junk", err, sizeof err) ==
              NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(err, "junk: not an ONNX model");

    /* a model that reads but is not a chain of layers: opens, says why, refuses the rest */
    NPK_CHECK(npk_nn_open(&bad, not_chain, err, sizeof err) == NPK_OK);
    if (bad) {
        npk_nn_info info;
        NPK_CHECK(npk_nn_info_get(bad, &info) == NPK_OK);
        NPK_CHECK_EQ_U64(info.n_inputs, 3);
        NPK_CHECK_CONTAINS(info.plan_error, "one input and one output (this one has 3 and 1)");
        npk_nn_session *s = (npk_nn_session *)&err;
        NPK_CHECK(npk_nn_session_open(bad, "host", &s) == NPK_ERR_UNSUPPORTED);
        NPK_CHECK(s == NULL);
        NPK_CHECK_CONTAINS(npk_nn_error(bad), "this one has 3 and 1");
        NPK_CHECK(npk_nn_calibrate(bad, x, 1) == NPK_ERR_UNSUPPORTED);
        npk_nn_close(bad);
    }

    npk_nn_session *s;
    NPK_CHECK(npk_nn_session_open(m, "nosuch:K=4", &s) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_nn_error(m), "no lowering for target 'nosuch' (targets: host, ");
    NPK_CHECK(npk_nn_compile(m, "host", "/dev/null", NULL) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_nn_error(m), "'host' runs models but has nothing to compile");
    NPK_CHECK(npk_nn_calibrate(m, x, 0) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_nn_error(m), "at least one input");

    float xb[2 * NIN];
    memcpy(xb, x, sizeof xb);
    xb[NIN + 5] = NAN;
    NPK_CHECK(npk_nn_calibrate(m, xb, 2) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_nn_error(m), "calibration input 1, element 5 is NaN");

    NPK_CHECK(npk_nn_session_open(m, "host", &s) == NPK_OK);
    float y[NOUT];
    NPK_CHECK(npk_nn_infer(s, x, NIN - 1, y, NOUT, NULL) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_nn_session_error(s), "takes 784 input values and gives 10 outputs; "
                                                "given 783");
    NPK_CHECK(npk_nn_infer(s, xb + NIN, NIN, y, NOUT, NULL) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_nn_session_error(s), "input element 5 is NaN");
    xb[NIN + 5] = -INFINITY;
    NPK_CHECK(npk_nn_infer(s, xb + NIN, NIN, y, NOUT, NULL) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_nn_session_error(s), "input element 5 is infinite");
    NPK_CHECK(npk_nn_calibrate(m, x, 1) == NPK_ERR_STATE);
    NPK_CHECK_CONTAINS(npk_nn_error(m), "while 1 session of the model is open");
    npk_nn_session_close(s);
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: test_model_api MLP.onnx SAMPLES.f32 REF.f64 TRUNCATED.onnx "
                        "NOT_A_CHAIN.onnx OUT_DIR\n");
        return 2;
    }
    NPK_CHECK(npk_nn_supported() == 1);
    NPK_CHECK(npk_nn_target_count() >= 5);
    NPK_CHECK_EQ_STR(npk_nn_target_name(0), "host");
    int has_opennpu = 0;
    for (size_t i = 0; i < npk_nn_target_count(); i++)
        has_opennpu |= strcmp(npk_nn_target_name(i), "opennpu") == 0;
    NPK_CHECK(has_opennpu);
    NPK_CHECK(npk_nn_target_name(npk_nn_target_count()) == NULL);

    size_t nx = 0, nref = 0;
    float *x = read_raw(argv[2], sizeof(float), &nx);
    double *ref = read_raw(argv[3], sizeof(double), &nref);
    size_t n = nx / NIN;
    if (!x || !ref || n == 0 || nx % NIN || nref != n * NOUT) {
        fprintf(stderr, "FAIL: %s and %s: %zu inputs and %zu reference values\n", argv[2],
                argv[3], nx, nref);
        return 1;
    }
    npk_nn *m;
    char err[1024];
    if (npk_nn_open(&m, argv[1], err, sizeof err) != NPK_OK) {
        fprintf(stderr, "FAIL: %s\n", err);
        return 1;
    }
    check_info(m);
    check_errors(m, x, argv[4], argv[5]);

    /* the host: the plan's float64 run written as float32 */
    run_all(m, "host", x, ref, n, 1e-6, 1e-6, NULL);

    /* opennpu, int8: calibrated on the same samples, atol 1.0 (docs/models.md) */
    npk_nn_session *s;
    NPK_CHECK(npk_nn_session_open(m, "opennpu", &s) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_nn_error(m), "opennpu: int8 needs a calibrated plan");
    NPK_CHECK(npk_nn_calibrate(m, x, n) == NPK_OK);
    npk_nn_info info;
    NPK_CHECK(npk_nn_info_get(m, &info) == NPK_OK && info.calibrated);
    npk_nn_layer l;
    NPK_CHECK(npk_nn_layer_get(m, 0, &l) == NPK_OK);
    NPK_CHECK(l.in_scale > 0.0 && l.in_scale <= 1.0 / 127 + 1e-12); /* pixels in [0, 1] */
    npk_nn_stats st;
    run_all(m, "opennpu", x, ref, n, 1.0, 0.0, &st);
    printf("opennpu: %llu cycles, %llu instructions, %llu MACs, utilisation %.3f\n",
           (unsigned long long)st.cycles, (unsigned long long)st.instructions,
           (unsigned long long)st.macs, st.utilisation);
    NPK_CHECK_EQ_U64(st.macs, 101632);
    NPK_CHECK(st.cycles > 0 && st.instructions > 0);
    /* utilisation is MACs / (cycles * K^2), K = 8 by default */
    NPK_CHECK(fabs(st.utilisation - 101632.0 / ((double)st.cycles * 64.0)) < 1e-9);

    /* compile: the program and a note saying how to run it */
    char out[1024], *note = NULL;
    snprintf(out, sizeof out, "%s/mlp_api.s", argv[6]);
    NPK_REPORT(npk_nn_compile(m, "opennpu:K=4", out, &note) == NPK_OK, "compile: %s\n",
               npk_nn_error(m));
    NPK_CHECK(note && strstr(note, "npukit run -t opennpu"));
    npk_free(note);
    FILE *f = fopen(out, "r");
    NPK_CHECK(f != NULL);
    if (f)
        fclose(f);

    /* a session outlives the model handle closed before it */
    NPK_CHECK(npk_nn_session_open(m, "host", &s) == NPK_OK);
    npk_nn_close(m);
    float y[NOUT];
    NPK_CHECK(npk_nn_infer(s, x, NIN, y, NOUT, NULL) == NPK_OK);
    NPK_CHECK(fabs(y[0] - ref[0]) <= 1e-6 + 1e-6 * fabs(ref[0]));
    npk_nn_session_close(s);
    free(x);
    free(ref);
    return npk_test_done();
}
