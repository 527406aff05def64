/* The plan of src/model (plan.h): small models with chosen weights, built with protobuf-c,
 * read back and grouped into layers; the layers and shapes checked, the float64 run and the
 * int8 calibration checked against values worked out by hand in the comments; the graphs the
 * plan refuses, each with the fragment of its message that names the node; and the .npy reader
 * and writer (npy.h). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>

#include "test.h"

#include "model/lower.h"
#include "model/npy.h"
#include "model/plan.h"
#include "onnx_build.h"

/* A float tensor with the given values. */
static Onnx__TensorProto *ftensor(const char *name, int rank, const int64_t *dims,
                                  const float *v)
{
    Onnx__TensorProto *t = tensor(name, F, rank, dims, NULL);
    memcpy(t->float_data, v, t->n_float_data * sizeof *v);
    return t;
}
#define VALS(...) ((const float[]){__VA_ARGS__})

static npk_plan *plan_of(const graph *g, npk_model **m, char *err, size_t n)
{
    *m = roundtrip(g, 0, err, n);
    if (!*m)
        return NULL;
    npk_plan *p = NULL;
    if (npk_plan_build(*m, &p, err, n) != 0)
        return NULL;
    return p;
}

static void near(double got, double want, double tol, const char *what)
{
    NPK_REPORT(fabs(got - want) <= tol, "%s: %.17g, want %.17g\n", what, got, want);
}

/* x [1,3] -> Gemm(transB) W1 [2,3] + b1 -> Relu -> MatMul W2 [2,2] -> Add b2 -> Softmax.
 * x = (1, 2, -1); W1 rows (1, 0, 2), (-1, 1, 1); b1 = (0.5, 2):
 *   h = (1 - 2 + 0.5, -1 + 2 - 1 + 2) = (-0.5, 2), ReLU (0, 2).
 * W2 = [[1, 2], [3, -1]] (K x N), b2 = (0.25, 0): z = (0*1 + 2*3 + 0.25, 0*2 + 2*-1) = (6.25, -2).
 * softmax: y0 = 1 / (1 + e^-8.25), y1 = e^-8.25 / (1 + e^-8.25). */
static graph mlp(void)
{
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(-1, 3));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(-1, 2));
    ADD_INIT(g, ftensor("W1", DIMS(2, 3), VALS(1, 0, 2, -1, 1, 1)));
    ADD_INIT(g, ftensor("b1", DIMS(2), VALS(0.5f, 2)));
    ADD_INIT(g, ftensor("W2", DIMS(2, 2), VALS(1, 2, 3, -1)));
    ADD_INIT(g, ftensor("b2", DIMS(2), VALS(0.25f, 0)));
    ADD_NODE(g, node("Gemm", "fc1", "x,W1,b1", "h", attr_i("transB", 1), NULL));
    ADD_NODE(g, node("Relu", "relu", "h", "r", NULL));
    ADD_NODE(g, node("MatMul", "mm", "r,W2", "z0", NULL));
    ADD_NODE(g, node("Add", "bias", "z0,b2", "z", NULL));
    ADD_NODE(g, node("Softmax", "sm", "z", "y", attr_i("axis", -1), NULL));
    return g;
}

static void test_mlp(void)
{
    graph g = mlp();
    npk_model *m;
    char err[512] = "";
    npk_plan *p = plan_of(&g, &m, err, sizeof err);
    NPK_REPORT(p != NULL, "mlp: %s\n", err);
    if (!p) {
        npk_model_free(m);
        return;
    }
    NPK_CHECK_EQ_U64(p->n_layers, 3);
    NPK_CHECK_EQ_U64(p->n_tensors, 4);
    NPK_CHECK(p->layers[0].kind == NPK_LAYER_DENSE && p->layers[0].act == NPK_ACT_RELU);
    NPK_CHECK(p->layers[1].kind == NPK_LAYER_DENSE && p->layers[1].act == NPK_ACT_NONE);
    NPK_CHECK(p->layers[2].kind == NPK_LAYER_SOFTMAX && p->layers[2].row == 2);
    NPK_CHECK_EQ_U64(p->layers[0].n_in, 3);
    NPK_CHECK_EQ_U64(p->layers[0].n_out, 2);
    NPK_CHECK_EQ_STR(p->layers[1].name, "mm");
    NPK_CHECK_EQ_U64(p->macs, 3 * 2 + 2 * 2);
    /* the MatMul's weights transposed to [out][in]: row 0 = (1, 3), row 1 = (2, -1) */
    NPK_CHECK(p->layers[1].w[0] == 1 && p->layers[1].w[1] == 3 && p->layers[1].w[2] == 2 &&
              p->layers[1].w[3] == -1);
    NPK_CHECK(p->layers[1].b && p->layers[1].b[0] == 0.25f);
    double x[3] = {1, 2, -1}, y[2];
    NPK_CHECK(npk_plan_run_f64(p, x, y, 0) == 0);
    near(y[0], 1.0 / (1.0 + exp(-8.25)), 1e-15, "mlp y0");
    near(y[1], exp(-8.25) / (1.0 + exp(-8.25)), 1e-15, "mlp y1");

    /* calibration on x alone: max |x| = 2, after the ReLU 2, the logits 6.25 */
    float xf[3] = {1, 2, -1};
    NPK_REPORT(npk_plan_calibrate(p, xf, 1, err, sizeof err) == 0, "calibrate: %s\n", err);
    near(p->tensors[0].scale, 2.0 / 127, 1e-18, "input scale");
    near(p->tensors[1].scale, 2.0 / 127, 1e-18, "hidden scale");
    near(p->tensors[2].scale, 6.25 / 127, 1e-18, "logit scale");
    const npk_layer *l0 = &p->layers[0], *l1 = &p->layers[1];
    /* layer 0 row 0: max |w| 2, scale 2/127, w / s = (63.5, 0, 127): 63.5 ties to even 64;
     * bias 0.5 / (2/127 * 2/127) = 2016.125 -> 2016. Row 1: scale 1/127, (-127, 127, 127);
     * bias 2 / (2/127 * 1/127) = 16129. */
    near(l0->wscale[0], 2.0 / 127, 1e-18, "wscale 0");
    NPK_CHECK(l0->wq[0] == 64 && l0->wq[1] == 0 && l0->wq[2] == 127);
    NPK_CHECK(l0->wq[3] == -127 && l0->wq[4] == 127 && l0->wq[5] == 127);
    NPK_CHECK(l0->bq[0] == 2016 && l0->bq[1] == 16129);
    /* layer 1 row 0 (1, 3): scale 3/127, (42.33 -> 42, 127); row 1 (2, -1): scale 2/127,
     * (127, -63.5 -> -64); bias 0.25 / (2/127 * 3/127) = 672.04 -> 672, 0. */
    NPK_CHECK(l1->wq[0] == 42 && l1->wq[1] == 127 && l1->wq[2] == 127 && l1->wq[3] == -64);
    NPK_CHECK(l1->bq[0] == 672 && l1->bq[1] == 0);
    NPK_CHECK(l0->wq && !p->layers[2].wq);
    npk_plan_free(p);
    npk_model_free(m);
}

/* x [1,1,4,4] with x[i][j] = 4i + j -> Conv W [2,1,3,3] pads 1 (channel 0 all ones, channel 1 the
 * centre only, biases (0, -5)) -> Relu -> MaxPool 2x2 stride 2 -> Flatten -> Gemm [3,8].
 * Channel 0 sums the 3x3 neighbourhood; the maxima of its 2x2 blocks are at (1,1) 45,
 * (1,2) 54, (2,1) 81 and (2,2) 90 (sums of the nine x around them). Channel 1 is
 * ReLU(x - 5): block maxima 0, 2, 8, 10. Flattened (45, 54, 81, 90, 0, 2, 8, 10); Gemm rows e0,
 * e7 and (1, -1, 0, 0, 0, 0, 0, 1): (45, 10, 45 - 54 + 10 = 1). */
static graph cnn(void)
{
    graph g = {0};
    float x9[18] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0};
    float w3[24] = {0};
    w3[0] = 1;
    w3[8 + 7] = 1;
    w3[16] = 1;
    w3[17] = -1;
    w3[23] = 1;
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(1, 1, 4, 4));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(1, 3));
    ADD_INIT(g, ftensor("W", DIMS(2, 1, 3, 3), x9));
    ADD_INIT(g, ftensor("B", DIMS(2), VALS(0, -5)));
    ADD_INIT(g, ftensor("G", DIMS(3, 8), w3));
    ADD_NODE(g, node("Conv", "conv", "x,W,B", "c", attr_is("pads", 4, (int64_t[]){1, 1, 1, 1}),
                     attr_is("kernel_shape", 2, (int64_t[]){3, 3}), NULL));
    ADD_NODE(g, node("Relu", "relu", "c", "r", NULL));
    ADD_NODE(g, node("MaxPool", "pool", "r", "q", attr_is("kernel_shape", 2, (int64_t[]){2, 2}),
                     attr_is("strides", 2, (int64_t[]){2, 2}), NULL));
    ADD_NODE(g, node("Flatten", "flat", "q", "f", NULL));
    ADD_NODE(g, node("Gemm", "fc", "f,G", "y", attr_i("transB", 1), NULL));
    return g;
}

static void test_cnn(void)
{
    graph g = cnn();
    npk_model *m;
    char err[512] = "";
    npk_plan *p = plan_of(&g, &m, err, sizeof err);
    NPK_REPORT(p != NULL, "cnn: %s\n", err);
    if (!p) {
        npk_model_free(m);
        return;
    }
    NPK_CHECK_EQ_U64(p->n_layers, 3);
    NPK_CHECK(p->layers[0].kind == NPK_LAYER_CONV && p->layers[0].act == NPK_ACT_RELU);
    NPK_CHECK(p->layers[0].pt == 1 && p->layers[0].pr == 1 && p->layers[0].kh == 3);
    NPK_CHECK(p->layers[1].kind == NPK_LAYER_MAXPOOL && p->layers[1].sh == 2);
    NPK_CHECK(p->layers[2].kind == NPK_LAYER_DENSE && p->layers[2].n_in == 8);
    NPK_CHECK(p->tensors[1].rank == 3 && p->tensors[1].dims[0] == 2 && p->tensors[1].dims[2] == 4);
    NPK_CHECK(p->tensors[2].rank == 3 && p->tensors[2].dims[1] == 2 && p->tensors[2].elems == 8);
    NPK_CHECK_EQ_U64(p->macs, 2 * 16 * 9 + 8 * 3);
    double x[16], y[3];
    for (int i = 0; i < 16; i++)
        x[i] = i;
    NPK_CHECK(npk_plan_run_f64(p, x, y, 0) == 0);
    near(y[0], 45, 0, "cnn y0");
    near(y[1], 10, 0, "cnn y1");
    near(y[2], 1, 0, "cnn y2");
    npk_plan_free(p);
    npk_model_free(m);
}

/* AveragePool 3x3 stride 1 pads 1 over x [1,1,2,2] = (1, 2, 3, 4): every window holds all four
 * values of x: without count_include_pad their mean 2.5; with it (9 positions) 10/9. Then a
 * Sigmoid of its own (no layer to merge into): 1/(1+e^-2.5) and 1/(1+e^-10/9). */
static void test_avgpool(int include_pad)
{
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(1, 1, 2, 2));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(1, 1, 2, 2));
    ADD_NODE(g, node("AveragePool", "avg", "x", "a",
                     attr_is("kernel_shape", 2, (int64_t[]){3, 3}),
                     attr_is("pads", 4, (int64_t[]){1, 1, 1, 1}),
                     attr_i("count_include_pad", include_pad), NULL));
    ADD_NODE(g, node("Sigmoid", "sig", "a", "y", NULL));
    npk_model *m;
    char err[512] = "";
    npk_plan *p = plan_of(&g, &m, err, sizeof err);
    NPK_REPORT(p != NULL, "avgpool: %s\n", err);
    if (p) {
        NPK_CHECK_EQ_U64(p->n_layers, 2);
        NPK_CHECK(p->layers[1].kind == NPK_LAYER_ACT && p->layers[1].act == NPK_ACT_SIGMOID);
        double x[4] = {1, 2, 3, 4}, y[4], mean = include_pad ? 10.0 / 9 : 2.5;
        NPK_CHECK(npk_plan_run_f64(p, x, y, 0) == 0);
        for (int i = 0; i < 4; i++)
            near(y[i], 1.0 / (1.0 + exp(-mean)), 1e-15, "avgpool");
    }
    npk_plan_free(p);
    npk_model_free(m);
}

static void expect_plan_error(const graph *g, const char *want, const char *want2);

/* x [1,2] -> Gemm (identity weights) -> the erf form of GELU as PyTorch exports it: Div by
 * sqrt 2, Erf, Add 1, Mul by the Gemm's output, Mul 0.5 (`half` 0.5; another value breaks the
 * pattern). GELU(x) = x * Phi(x): Phi(1) = 0.8413447460685429, Phi(-2) = 0.0227501319481792,
 * so y = (0.8413447460685429, -0.0455002638963584). */
static graph gelu_graph(float half)
{
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(1, 2));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(1, 2));
    ADD_INIT(g, ftensor("W", DIMS(2, 2), VALS(1, 0, 0, 1)));
    ADD_INIT(g, ftensor("sqrt2", SCALAR, VALS(1.4142135381698608f)));
    ADD_INIT(g, ftensor("one", SCALAR, VALS(1)));
    ADD_INIT(g, ftensor("half", SCALAR, VALS(half)));
    ADD_NODE(g, node("Gemm", "fc", "x,W", "h", attr_i("transB", 1), NULL));
    ADD_NODE(g, node("Div", "div", "h,sqrt2", "d", NULL));
    ADD_NODE(g, node("Erf", "erf", "d", "e", NULL));
    ADD_NODE(g, node("Add", "add", "one,e", "a", NULL));
    ADD_NODE(g, node("Mul", "mul", "h,a", "m", NULL));
    ADD_NODE(g, node("Mul", "mul_1", "m,half", "y", NULL));
    return g;
}

static void test_gelu_pattern(void)
{
    graph g = gelu_graph(0.5f);
    npk_model *m;
    char err[512] = "";
    npk_plan *p = plan_of(&g, &m, err, sizeof err);
    NPK_REPORT(p != NULL, "gelu: %s\n", err);
    if (p) {
        NPK_CHECK_EQ_U64(p->n_layers, 1);
        NPK_CHECK(p->layers[0].kind == NPK_LAYER_DENSE && p->layers[0].act == NPK_ACT_GELU);
        double x[2] = {1, -2}, y[2];
        NPK_CHECK(npk_plan_run_f64(p, x, y, 0) == 0);
        near(y[0], 0.8413447460685429, 1e-15, "gelu(1)");
        near(y[1], -0.0455002638963584, 1e-15, "gelu(-2)");
    }
    npk_plan_free(p);
    npk_model_free(m);
    /* with 0.25 in place of 0.5 it is not GELU: the nodes are taken one by one, the Div by
     * sqrt 2 a scale layer, and Erf alone is no layer */
    graph h = gelu_graph(0.25f);
    expect_plan_error(&h, "node 2 'erf' (Erf)", "no lowering takes this operator");
}

static void expect_plan_error(const graph *g, const char *want, const char *want2)
{
    npk_model *m;
    char err[512] = "";
    npk_plan *p = plan_of(g, &m, err, sizeof err);
    NPK_REPORT(m != NULL, "the model itself should read: %s\n", err);
    NPK_REPORT(p == NULL, "expected a plan error containing \"%s\"\n", want);
    NPK_CHECK_CONTAINS(err, want);
    NPK_CHECK_CONTAINS(err, want2);
    npk_plan_free(p);
    npk_model_free(m);
}

/* An explicit zero Pad (pads begin N,C,H,W then end) merged into the layer after it. x [1,1,2,2]
 * = (1, 2, 3, 4) padded by one row on top and one column on the left:
 *     0 0 0
 *     0 1 2
 *     0 3 4
 * AveragePool 2x2 stride 1: the padded zeros count (they are values): (0+0+0+1)/4 = 0.25,
 * (0+0+1+2)/4 = 0.75, (0+1+0+3)/4 = 1, (1+2+3+4)/4 = 2.5 (skipping them would give 1, 1.5, 2,
 * 2.5). Conv 2x2 of ones with pads [0,0,1,1] of its own on top: every side padded by one, sums
 * of the 2x2 windows of the 4x4 [[0,0,0,0],[0,1,2,0],[0,3,4,0],[0,0,0,0]]:
 * 1 3 2 / 4 10 6 / 3 7 4. */
static graph pad_graph(const char *op, const int64_t *pads)
{
    graph g = {0};
    bool conv = strcmp(op, "Conv") == 0;
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(1, 1, 2, 2));
    int64_t ch = 1 + pads[1] + pads[5], side = conv ? 3 : 2;
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(1, ch, side, side));
    ADD_INIT(g, tensor("pads", NPK_DT_INT64, DIMS(8), pads));
    ADD_INIT(g, ftensor("W", DIMS(1, 1, 2, 2), VALS(1, 1, 1, 1)));
    ADD_NODE(g, node("Pad", "pad", "x,pads", "xp", attr_s("mode", "constant"), NULL));
    if (conv)
        ADD_NODE(g, node("Conv", "conv", "xp,W", "y", attr_is("pads", 4, (int64_t[]){0, 0, 1, 1}),
                         NULL));
    else
        ADD_NODE(g, node(op, "pool", "xp", "y", attr_is("kernel_shape", 2, (int64_t[]){2, 2}),
                         NULL));
    return g;
}

static void test_pad(void)
{
    static const int64_t tl[8] = {0, 0, 1, 1, 0, 0, 0, 0};
    static const double want_avg[4] = {0.25, 0.75, 1, 2.5},
                        want_conv[9] = {1, 3, 2, 4, 10, 6, 3, 7, 4};
    for (int conv = 0; conv < 2; conv++) {
        graph g = pad_graph(conv ? "Conv" : "AveragePool", tl);
        npk_model *m;
        char err[512] = "";
        npk_plan *p = plan_of(&g, &m, err, sizeof err);
        NPK_REPORT(p != NULL, "pad: %s\n", err);
        if (p) {
            const npk_layer *l = &p->layers[0];
            NPK_CHECK_EQ_U64(p->n_layers, 1);
            NPK_CHECK(l->kind == (conv ? NPK_LAYER_CONV : NPK_LAYER_AVGPOOL));
            NPK_CHECK(l->pt == 1 && l->pl == 1 && l->pb == conv && l->pr == conv);
            NPK_CHECK(conv || l->count_include_pad == 1);
            double x[4] = {1, 2, 3, 4}, y[9];
            NPK_CHECK(npk_plan_run_f64(p, x, y, 0) == 0);
            for (int i = 0; i < (conv ? 9 : 4); i++)
                near(y[i], conv ? want_conv[i] : want_avg[i], 1e-15, conv ? "pad conv" : "pad avg");
        }
        npk_plan_free(p);
        npk_model_free(m);
    }
    /* the pads as int32: the same layer */
    graph g = pad_graph("AveragePool", tl);
    Onnx__TensorProto *t32 = tensor("pads", NPK_DT_INT32, DIMS(8), NULL);
    for (int i = 0; i < 8; i++)
        t32->int32_data[i] = (int32_t)tl[i];
    g.inits[0] = t32;
    npk_model *m;
    char err[512] = "";
    npk_plan *p = plan_of(&g, &m, err, sizeof err);
    NPK_REPORT(p != NULL, "pad int32: %s\n", err);
    NPK_CHECK(p && p->layers[0].pt == 1 && p->layers[0].pl == 1 && p->layers[0].pb == 0 &&
              p->layers[0].pr == 0 && p->layers[0].count_include_pad == 1);
    npk_plan_free(p);
    npk_model_free(m);
    g = pad_graph("MaxPool", tl);
    expect_plan_error(&g, "node 0 'pad' (Pad)", "followed by MaxPool node 1 'pool': not merged");
    g = pad_graph("AveragePool", (const int64_t[]){0, 1, 1, 1, 0, 0, 0, 0});
    expect_plan_error(&g, "node 0 'pad' (Pad)", "pads the batch or channel axis");
    /* a Pad whose result is the graph's output: nothing to merge it into */
    g = (graph){0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(1, 1, 2, 2));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(1, 1, 3, 3));
    ADD_INIT(g, tensor("pads", NPK_DT_INT64, DIMS(8), tl));
    ADD_NODE(g, node("Pad", "pad", "x,pads", "y", NULL));
    expect_plan_error(&g, "node 0 'pad' (Pad)", "is not read by one Conv or AveragePool alone");
}

static void test_errors(void)
{
    /* a product of two activations (the residual Add(Relu(x), x) is taken: test_dag) */
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(1, 4));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(1, 4));
    ADD_NODE(g, node("Relu", "r", "x", "a", NULL));
    ADD_NODE(g, node("Mul", "res", "a,x", "y", NULL));
    expect_plan_error(&g, "node 1 'res' (Mul): reads 'x' beside 'a'", "Add and MatMul only");
    /* a Transpose that moves the batch axis */
    graph t = {0};
    t.ins[t.n_ins++] = vinfo("x", F, DIMS(1, 1, 2, 3));
    t.outs[t.n_outs++] = vinfo("y", F, DIMS(1, 1, 2, 3));
    ADD_NODE(t, node("Transpose", "tr", "x", "y", attr_is("perm", 4, (int64_t[]){1, 0, 2, 3}),
                     NULL));
    expect_plan_error(&t, "node 0 'tr' (Transpose)", "moves the batch axis");
    /* softmax over the batch axis */
    graph s = {0};
    s.ins[s.n_ins++] = vinfo("x", F, DIMS(1, 4));
    s.outs[s.n_outs++] = vinfo("y", F, DIMS(1, 4));
    ADD_NODE(s, node("Softmax", "sm", "x", "y", attr_i("axis", 0), NULL));
    expect_plan_error(&s, "'sm' (Softmax)", "the plan takes the last axis");
    /* a grouped convolution */
    graph c = {0};
    c.ins[c.n_ins++] = vinfo("x", F, DIMS(1, 2, 3, 3));
    c.outs[c.n_outs++] = vinfo("y", F, DIMS(1, 2, 3, 3));
    ADD_INIT(c, tensor("W", F, DIMS(2, 1, 1, 1), NULL));
    ADD_NODE(c, node("Conv", "dw", "x,W", "y", attr_i("group", 2), NULL));
    expect_plan_error(&c, "'dw' (Conv)", "group 2 is not lowered");
    /* a batch of 2 */
    graph b = {0};
    b.ins[b.n_ins++] = vinfo("x", F, DIMS(2, 4));
    b.outs[b.n_outs++] = vinfo("y", F, DIMS(2, 4));
    ADD_NODE(b, node("Relu", "r", "x", "y", NULL));
    expect_plan_error(&b, "'x' has batch 2", "batch 1");
    /* a weight that is an activation: MatMul of x by itself */
    graph w = {0};
    w.ins[w.n_ins++] = vinfo("x", F, DIMS(1, 1));
    w.outs[w.n_outs++] = vinfo("y", F, DIMS(1, 1));
    ADD_NODE(w, node("MatMul", "xx", "x,x", "y", NULL));
    expect_plan_error(&w, "'xx' (MatMul)", "is not a constant");
    /* a NaN among the weights (the fuzzer's first find: quantising it converted NaN to int8) */
    graph nw = {0};
    nw.ins[nw.n_ins++] = vinfo("x", F, DIMS(1, 2));
    nw.outs[nw.n_outs++] = vinfo("y", F, DIMS(1, 1));
    ADD_INIT(nw, ftensor("W", DIMS(1, 2), VALS(1, NAN)));
    ADD_NODE(nw, node("Gemm", "fc", "x,W", "y", attr_i("transB", 1), NULL));
    expect_plan_error(&nw, "'fc' (Gemm): its weight 'W' has NaN at element 1", "must be finite");
}

/* A DAG on a 2-token sequence x [1, 2, 2] = ((1, 3), (4, 4)):
 *   h = LayerNormalization(x; gamma (2, 1), beta (0, 1), epsilon 3) over the last axis:
 *       row (1, 3): mean 2, biased variance 1, 1 / sqrt(1 + 3) = 1/2: (-0.5, 0.5) -> (-1, 1.5);
 *       row (4, 4): mean 4, variance 0: (0, 0) -> (0, 1).
 *   d = MatMul(h, W = [[1, 2], [0, 1]]) + (0.5, -1): row 0 (-1 + 0.5, -2 + 1.5 - 1) =
 *       (-0.5, -1.5); row 1 (0.5, 1 - 1) = (0.5, 0).
 *   r = x + d (the residual): ((0.5, 1.5), (4.5, 4)).
 *   t = Transpose(r, perm (0, 2, 1)) = ((0.5, 4.5), (1.5, 4)).
 *   g = MatMul(r, t) (two activations): the Gram matrix of r's rows: 0.25 + 2.25 = 2.5,
 *       0.5 * 4.5 + 1.5 * 4 = 8.25, 20.25 + 16 = 36.25: ((2.5, 8.25), (8.25, 36.25)).
 *   y = g / 0.5 = ((5, 16.5), (16.5, 72.5)).
 * x is read by the LayerNorm and the Add, r by the Transpose and the MatMul. */
static graph dag_graph(void)
{
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(1, 2, 2));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(1, 2, 2));
    ADD_INIT(g, ftensor("gamma", DIMS(2), VALS(2, 1)));
    ADD_INIT(g, ftensor("beta", DIMS(2), VALS(0, 1)));
    ADD_INIT(g, ftensor("W", DIMS(2, 2), VALS(1, 2, 0, 1)));
    ADD_INIT(g, ftensor("bW", DIMS(2), VALS(0.5f, -1)));
    ADD_INIT(g, ftensor("half", SCALAR, VALS(0.5f)));
    ADD_NODE(g, node("LayerNormalization", "ln", "x,gamma,beta", "h", attr_i("axis", -1),
                     attr_f("epsilon", 3), NULL));
    ADD_NODE(g, node("MatMul", "fc", "h,W", "d0", NULL));
    ADD_NODE(g, node("Add", "fc_b", "bW,d0", "d", NULL));
    ADD_NODE(g, node("Add", "res", "x,d", "r", NULL));
    ADD_NODE(g, node("Transpose", "tr", "r", "t", attr_is("perm", 3, (int64_t[]){0, 2, 1}),
                     NULL));
    ADD_NODE(g, node("MatMul", "gram", "r,t", "g0", NULL));
    ADD_NODE(g, node("Div", "scale", "g0,half", "y", NULL));
    return g;
}

static void test_dag(void)
{
    graph g = dag_graph();
    npk_model *m;
    char err[512] = "";
    npk_plan *p = plan_of(&g, &m, err, sizeof err);
    NPK_REPORT(p != NULL, "dag: %s\n", err);
    if (!p) {
        npk_model_free(m);
        return;
    }
    static const npk_layer_kind kinds[6] = {NPK_LAYER_LAYERNORM, NPK_LAYER_DENSE, NPK_LAYER_ADD,
                                            NPK_LAYER_TRANSPOSE, NPK_LAYER_MATMUL,
                                            NPK_LAYER_SCALE};
    /* tensors: 0 x, 1 h, 2 d, 3 r, 4 t, 5 g0, 6 y */
    static const int ins[6] = {0, 1, 0, 3, 3, 5}, in2s[6] = {-1, -1, 2, -1, 4, -1};
    NPK_CHECK_EQ_U64(p->n_layers, 6);
    NPK_CHECK_EQ_U64(p->n_tensors, 7);
    for (size_t i = 0; i < 6 && i < p->n_layers; i++) {
        const npk_layer *l = &p->layers[i];
        NPK_REPORT(l->kind == kinds[i] && l->in == ins[i] && l->in2 == in2s[i] &&
                   l->out == (int)i + 1, "layer %zu: %s in %d in2 %d out %d\n", i,
                   npk_layer_kind_name(l->kind), l->in, l->in2, l->out);
    }
    NPK_CHECK(p->tensors[0].rank == 2 && p->tensors[0].dims[0] == 2 && p->tensors[0].dims[1] == 2);
    NPK_CHECK(p->layers[0].row == 2 && p->layers[0].eps == 3.0 && p->layers[0].w[0] == 2 &&
              p->layers[0].b[1] == 1);
    NPK_CHECK(p->layers[1].rows == 2 && p->layers[1].n_in == 2 && p->layers[1].n_out == 2 &&
              p->layers[1].b && p->layers[1].b[1] == -1);
    NPK_CHECK(p->layers[3].trank == 2 && p->layers[3].perm[0] == 1 && p->layers[3].perm[1] == 0);
    NPK_CHECK(p->layers[4].batch == 1 && p->layers[4].rows == 2 && p->layers[4].n_in == 2 &&
              p->layers[4].n_out == 2);
    NPK_CHECK(p->layers[5].factor == 2.0);
    NPK_CHECK_EQ_U64(p->macs, 2 * 2 * 2 + 2 * 2 * 2);
    double x[4] = {1, 3, 4, 4}, y[4];
    static const double want[4] = {5, 16.5, 16.5, 72.5};
    NPK_CHECK(npk_plan_run_f64(p, x, y, 0) == 0);
    for (int i = 0; i < 4; i++)
        near(y[i], want[i], 1e-12, "dag y");
    /* a chain lowering refuses it, naming the first layer of a sequence kind */
    const npk_lower_target *t = npk_lower_find("opennpu");
    NPK_CHECK(t && t->compile(p, "", "/nonexistent/x", NULL, err, sizeof err) != 0);
    NPK_CHECK_CONTAINS(err, "layer 0 (node 0 'ln', LayerNormalization): opennpu lowers chains");
    npk_plan_free(p);
    npk_model_free(m);
}

/* The residual the chain plan refused: y = Relu(x) + x; x = (-2, 3): (-2, 6). */
static void test_residual(void)
{
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(1, 2));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(1, 2));
    ADD_NODE(g, node("Relu", "r", "x", "a", NULL));
    ADD_NODE(g, node("Add", "res", "a,x", "y", NULL));
    npk_model *m;
    char err[512] = "";
    npk_plan *p = plan_of(&g, &m, err, sizeof err);
    NPK_REPORT(p != NULL, "residual: %s\n", err);
    if (p) {
        NPK_CHECK(p->n_layers == 2 && p->layers[1].kind == NPK_LAYER_ADD &&
                  p->layers[1].in == 1 && p->layers[1].in2 == 0);
        double x[2] = {-2, 3}, y[2];
        NPK_CHECK(npk_plan_run_f64(p, x, y, 0) == 0 && y[0] == -2 && y[1] == 6);
    }
    npk_plan_free(p);
    npk_model_free(m);
}

/* RMSNorm as PyTorch exports it (models/onnx/rmsnorm_block.py's note), forms 0 to 2:
 *   x * (1 / Sqrt(ReduceMean(Pow(x, 2)) + eps)) * g,   x / Sqrt(ReduceMean(x * x) + eps) * g,
 *   and Reciprocal(Sqrt(...)) * x * g (rsqrt as the dynamo exporter writes it)
 * x [1, 1, 2] = (1, 7), eps 11, g = (3, 6): mean(x^2) = (1 + 49) / 2 = 25, sqrt(25 + 11) = 6,
 * (1/6, 7/6) * g = (0.5, 7). */
static graph rms_graph(int form)
{
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(1, 1, 2));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(1, 1, 2));
    ADD_INIT(g, ftensor("two", SCALAR, VALS(2)));
    ADD_INIT(g, ftensor("one", SCALAR, VALS(1)));
    ADD_INIT(g, ftensor("eps", SCALAR, VALS(11)));
    ADD_INIT(g, ftensor("g", DIMS(2), VALS(3, 6)));
    int div_form = form == 1;
    if (div_form)
        ADD_NODE(g, node("Mul", "sq", "x,x", "s", NULL));
    else
        ADD_NODE(g, node("Pow", "sq", "x,two", "s", NULL));
    ADD_NODE(g, node("ReduceMean", "mean", "s", "ms", attr_is("axes", 1, (int64_t[]){-1}),
                     attr_i("keepdims", 1), NULL));
    ADD_NODE(g, node("Add", "add_eps", "ms,eps", "a", NULL));
    ADD_NODE(g, node("Sqrt", "sqrt", "a", "q", NULL));
    if (div_form) {
        ADD_NODE(g, node("Div", "div", "x,q", "n", NULL));
    } else if (form == 2) {
        ADD_NODE(g, node("Reciprocal", "rsqrt", "q", "rq", NULL));
        ADD_NODE(g, node("Mul", "mul_x", "rq,x", "n", NULL));
    } else {
        ADD_NODE(g, node("Div", "rsqrt", "one,q", "rq", NULL));
        ADD_NODE(g, node("Mul", "mul_x", "x,rq", "n", NULL));
    }
    ADD_NODE(g, node("Mul", "gain", "n,g", "y", NULL));
    return g;
}

static void test_rmsnorm(void)
{
    for (int form = 0; form < 3; form++) {
        graph g = rms_graph(form);
        npk_model *m;
        char err[512] = "";
        npk_plan *p = plan_of(&g, &m, err, sizeof err);
        NPK_REPORT(p != NULL, "rmsnorm %d: %s\n", form, err);
        if (!p) {
            npk_model_free(m);
            continue;
        }
        NPK_CHECK(p->n_layers == 1 && p->layers[0].kind == NPK_LAYER_RMSNORM &&
                  p->layers[0].eps == 11 && p->layers[0].w && p->layers[0].w[1] == 6 &&
                  !p->layers[0].b);
        NPK_CHECK_EQ_STR(p->layers[0].name, "sq");
        double x[2] = {1, 7}, y[2];
        NPK_CHECK(npk_plan_run_f64(p, x, y, 0) == 0);
        near(y[0], 0.5, 1e-15, "rms y0");
        near(y[1], 7, 1e-15, "rms y1");
        npk_plan_free(p);
        npk_model_free(m);
    }
    /* the mean over another axis is not RMSNorm: Pow alone is no layer */
    graph h = rms_graph(0);
    h.nodes[1] = node("ReduceMean", "mean", "s", "ms", attr_is("axes", 1, (int64_t[]){1}),
                      attr_i("keepdims", 1), NULL);
    expect_plan_error(&h, "node 0 'sq' (Pow)", "no lowering takes this operator");
}

/* An integer tensor (int8, uint8 or int32; ONNX keeps them in int32_data) with the values. */
static Onnx__TensorProto *itensor(const char *name, int dtype, int rank, const int64_t *dims,
                                  const int32_t *v)
{
    static const int64_t unused[1];   /* tensor() reads it for int64 only */
    Onnx__TensorProto *t = tensor(name, dtype, rank, dims, unused);
    memcpy(t->int32_data, v, t->n_int32_data * sizeof *v);
    return t;
}
#define IVALS(...) ((const int32_t[]){__VA_ARGS__})

/* A QDQ dense layer (the form of models/onnx/mlp_qdq.onnx), worked by hand:
 * x [1,3] -> QuantizeLinear(0.5, int8 0) -> DequantizeLinear -> Gemm(transB) with
 * W = DequantizeLinear(Wq [[2,-4,1],[-3,0,5]], scales (0.25, 0.5) along axis 0) and
 * b = DequantizeLinear(bq (3, -2) int32, scales (0.125, 0.25)) -> Relu -> QuantizeLinear(0.25)
 * -> DequantizeLinear -> y [1,2].
 * x = (1.3, -0.7, 2.25): x / 0.5 = 2.6, -1.4, 4.5 -> codes (3, -1, 4) (4.5 ties to even).
 * Accumulators: 3*2 + 1*4 + 4*1 = 14, + 3 = 17, times 0.5 * 0.25: 2.125; 3*-3 + 4*5 = 11,
 * - 2 = 9, times 0.5 * 0.5: 2.25. Relu keeps both; / 0.25: 8.5 -> 8 (ties to even), 9:
 * y = (2, 2.25).
 * x = (100, 0, 0): 200 saturates to 127; 127 * 2 + 3 = 257 -> 32.125, / 0.25 = 128.5 -> 128,
 * saturated to 127: 31.75; 127 * -3 - 2 = -383 -> -95.75, Relu 0: y = (31.75, 0). */
static graph qdq_dense(void)
{
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(1, 3));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(1, 2));
    ADD_INIT(g, ftensor("sx", SCALAR, VALS(0.5f)));
    ADD_INIT(g, itensor("z", NPK_DT_INT8, SCALAR, IVALS(0)));
    ADD_INIT(g, ftensor("sy", SCALAR, VALS(0.25f)));
    ADD_INIT(g, itensor("Wq", NPK_DT_INT8, DIMS(2, 3), IVALS(2, -4, 1, -3, 0, 5)));
    ADD_INIT(g, ftensor("ws", DIMS(2), VALS(0.25f, 0.5f)));
    ADD_INIT(g, itensor("wz", NPK_DT_INT8, DIMS(2), IVALS(0, 0)));
    ADD_INIT(g, itensor("bq", NPK_DT_INT32, DIMS(2), IVALS(3, -2)));
    ADD_INIT(g, ftensor("bs", DIMS(2), VALS(0.125f, 0.25f)));
    ADD_NODE(g, node("QuantizeLinear", "qx", "x,sx,z", "xq", NULL));
    ADD_NODE(g, node("DequantizeLinear", "dqx", "xq,sx,z", "xd", NULL));
    ADD_NODE(g, node("DequantizeLinear", "dqw", "Wq,ws,wz", "W", attr_i("axis", 0), NULL));
    ADD_NODE(g, node("DequantizeLinear", "dqb", "bq,bs", "b", attr_i("axis", 0), NULL));
    ADD_NODE(g, node("Gemm", "fc", "xd,W,b", "h", attr_i("transB", 1), NULL));
    ADD_NODE(g, node("Relu", "relu", "h", "r", NULL));
    ADD_NODE(g, node("QuantizeLinear", "qy", "r,sy,z", "yq", NULL));
    ADD_NODE(g, node("DequantizeLinear", "dqy", "yq,sy,z", "y", NULL));
    return g;
}

static void test_qdq_dense(void)
{
    graph g = qdq_dense();
    npk_model *m;
    char err[512] = "";
    npk_plan *p = plan_of(&g, &m, err, sizeof err);
    NPK_REPORT(p != NULL, "qdq dense: %s\n", err);
    if (!p) {
        npk_model_free(m);
        return;
    }
    NPK_CHECK_EQ_U64(p->n_layers, 1);
    const npk_layer *l = &p->layers[0];
    NPK_CHECK(l->kind == NPK_LAYER_DENSE && l->act == NPK_ACT_RELU && l->q);
    /* the model's scales and codes, no calibration */
    NPK_CHECK(p->qmodel == 1 && p->calibrated == 1);
    NPK_CHECK(p->tensors[0].quant && p->tensors[0].scale == 0.5 && p->tensors[0].zp == 0);
    NPK_CHECK(p->tensors[1].quant && p->tensors[1].scale == 0.25);
    NPK_CHECK(l->wq[0] == 2 && l->wq[1] == -4 && l->wq[2] == 1 && l->wq[3] == -3 &&
              l->wq[4] == 0 && l->wq[5] == 5);
    NPK_CHECK(l->wscale[0] == 0.25 && l->wscale[1] == 0.5);
    NPK_CHECK(l->bq[0] == 3 && l->bq[1] == -2);
    double x[3] = {1.3, -0.7, 2.25}, y[2];
    NPK_CHECK(npk_plan_run_f64(p, x, y, 0) == 0);
    near(y[0], 2.0, 0, "qdq y0");
    near(y[1], 2.25, 0, "qdq y1");
    double xs[3] = {100, 0, 0};
    NPK_CHECK(npk_plan_run_f64(p, xs, y, 0) == 0);
    near(y[0], 31.75, 0, "qdq saturated y0");
    near(y[1], 0, 0, "qdq relu y1");
    /* a target's outputs get the output's QuantizeLinear: 2.1 / 0.25 = 8.4 -> 2, 9.2 -> 2.25 */
    float yt[2] = {2.1f, 2.3f};
    npk_plan_q_output(p, yt);
    NPK_CHECK(yt[0] == 2.0f && yt[1] == 2.25f);
    float xf[3] = {1, 2, 3};
    NPK_CHECK(npk_plan_calibrate(p, xf, 1, err, sizeof err) != 0);
    NPK_CHECK_CONTAINS(err, "carries its own int8 scales");
    NPK_CHECK(npk_plan_q_symmetric(p, err, sizeof err) == 0);
    npk_plan_free(p);
    npk_model_free(m);
}

/* QLinearMatMul (a dense layer without bias): x [1,2] -> QuantizeLinear(0.5, zero point zx)
 * -> QLinearMatMul(B int8 [[1,2,3],[4,-5,6]] (K x N), per-column scales (1, 0.5, 0.25), y scale
 * 1, y zero point zy) -> DequantizeLinear -> y [1,3].
 * x = (1, -1.5): codes (2, -3) + zx. Accumulators of (q - zx): 2 - 12 = -10, 4 + 15 = 19,
 * 6 - 18 = -12; times 0.5 * (1, 0.5, 0.25): -5, 4.75 -> 5, -1.5 -> -2 (ties to even);
 * dequantised (q - zy) * 1: y = (-5, 5, -2) whatever the zero points. */
static graph qlinear_matmul(int zx, int zy)
{
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(1, 2));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(1, 3));
    ADD_INIT(g, ftensor("sx", SCALAR, VALS(0.5f)));
    ADD_INIT(g, itensor("zx", NPK_DT_INT8, SCALAR, IVALS(zx)));
    ADD_INIT(g, itensor("B", NPK_DT_INT8, DIMS(2, 3), IVALS(1, 2, 3, 4, -5, 6)));
    ADD_INIT(g, ftensor("bs", DIMS(3), VALS(1, 0.5f, 0.25f)));
    ADD_INIT(g, itensor("bz", NPK_DT_INT8, DIMS(3), IVALS(0, 0, 0)));
    ADD_INIT(g, ftensor("sy", SCALAR, VALS(1)));
    ADD_INIT(g, itensor("zy", NPK_DT_INT8, SCALAR, IVALS(zy)));
    ADD_NODE(g, node("QuantizeLinear", "qx", "x,sx,zx", "xq", NULL));
    ADD_NODE(g, node("QLinearMatMul", "qmm", "xq,sx,zx,B,bs,bz,sy,zy", "yq", NULL));
    ADD_NODE(g, node("DequantizeLinear", "dqy", "yq,sy,zy", "y", NULL));
    return g;
}

static void test_qlinear_matmul(int zx, int zy)
{
    graph g = qlinear_matmul(zx, zy);
    npk_model *m;
    char err[512] = "";
    npk_plan *p = plan_of(&g, &m, err, sizeof err);
    NPK_REPORT(p != NULL, "qlinear matmul: %s\n", err);
    if (!p) {
        npk_model_free(m);
        return;
    }
    NPK_CHECK_EQ_U64(p->n_layers, 1);
    NPK_CHECK(p->layers[0].kind == NPK_LAYER_DENSE && p->layers[0].q && !p->layers[0].b);
    /* [K, N] codes transposed to [out][in]: (1, 4), (2, -5), (3, 6) */
    NPK_CHECK(p->layers[0].wq[0] == 1 && p->layers[0].wq[1] == 4 && p->layers[0].wq[4] == 3);
    NPK_CHECK(p->layers[0].wscale[2] == 0.25);
    double x[2] = {1, -1.5}, y[3];
    NPK_CHECK(npk_plan_run_f64(p, x, y, 0) == 0);
    near(y[0], -5, 0, "qlinear y0");
    near(y[1], 5, 0, "qlinear y1");
    near(y[2], -2, 0, "qlinear y2");
    /* the int8 lowerings take zero point 0 only */
    int sym = npk_plan_q_symmetric(p, err, sizeof err);
    NPK_CHECK(sym == (zx || zy ? -1 : 0));
    if (zx)
        NPK_CHECK_EQ_STR(err, "layer 0 (node 1 'qmm', QLinearMatMul): tensor 0 is quantised to "
                              "int8 with zero point 1: the int8 lowerings take symmetric int8 "
                              "tensors (zero point 0)");
    npk_plan_free(p);
    npk_model_free(m);
}

static void test_q_errors(void)
{
    /* a weight zero point other than 0 */
    graph g = qlinear_matmul(0, 0);
    g.inits[4] = itensor("bz", NPK_DT_INT8, DIMS(3), IVALS(0, 2, 0));
    expect_plan_error(&g, "node 1 'qmm' (QLinearMatMul): weight 'B' has zero point 2 at 1",
                      "symmetric int8 weights");
    /* a DequantizeLinear that dequantises with another scale than the QuantizeLinear's */
    graph d = qdq_dense();
    d.nodes[1] = node("DequantizeLinear", "dqx", "xq,sy,z", "xd", NULL);
    expect_plan_error(&d, "'dqx' (DequantizeLinear): dequantises 'xq' with scale 0.25",
                      "quantised with 0.5");
    /* the DequantizeLinear of a weight with a negative scale: not folded, so not a constant */
    graph n = qdq_dense();
    n.inits[4] = ftensor("ws", DIMS(2), VALS(0.25f, -0.5f));
    expect_plan_error(&n, "(DequantizeLinear): dequantises the constant 'Wq' but was not folded",
                      "positive, finite scales (scale 'ws')");
    /* int8 weights behind a float input (weight-only quantisation) */
    graph w = qdq_dense();
    w.nodes[0] = node("Identity", "qx", "x", "xq0", NULL);
    w.nodes[1] = node("Identity", "dqx", "xq0", "xd", NULL);
    expect_plan_error(&w, "node 4 'fc' (Gemm): its weights are int8", "weight-only");
}

/* The lowering table's message format. */
static void test_lower_fail(void)
{
    graph g = mlp();
    npk_model *m;
    char err[512] = "";
    npk_plan *p = plan_of(&g, &m, err, sizeof err);
    if (p) {
        npk_lower_fail(err, sizeof err, p, 1, "needs %d more", 3);
        NPK_CHECK_EQ_STR(err, "layer 1 (node 2 'mm', MatMul): needs 3 more");
    }
    NPK_CHECK(npk_lower_find("no-such-target") == NULL);
    npk_plan_free(p);
    npk_model_free(m);
}

static const char *tmp_file(const char *tag)
{
    static char path[256];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/npk_plan_%s_%ld.npy", dir && *dir ? dir : "/tmp", tag,
             (long)getpid());
    return path;
}

/* A .npy file from a header dict and `n` data bytes. */
static const char *raw_npy(const char *tag, int version, const char *dict, const void *data,
                           size_t n)
{
    const char *path = tmp_file(tag);
    FILE *f = fopen(path, "wb");
    size_t hl = strlen(dict) + 1;
    fwrite("\x93NUMPY", 1, 6, f);
    fputc(version, f);
    fputc(0, f);
    fputc((int)(hl & 255), f);
    fputc((int)(hl >> 8), f);
    if (version > 1) {
        fputc(0, f);
        fputc(0, f);
    }
    fwrite(dict, 1, hl - 1, f);
    fputc('\n', f);
    fwrite(data, 1, n, f);
    fclose(f);
    return path;
}

static void expect_npy_error(const char *path, const char *want)
{
    npk_npy_f32 a;
    char err[512] = "";
    NPK_REPORT(npk_npy_read_f32(path, &a, err, sizeof err) != 0, "%s: read, want \"%s\"\n", path,
               want);
    NPK_CHECK_CONTAINS(err, want);
    NPK_CHECK(a.data == NULL);
    unlink(path);
}

static void test_npy(void)
{
    /* written and read back: the shape and the values */
    float v[6] = {1.5f, -2, 0, 3.25f, 1e-30f, -7};
    int64_t dims[2] = {2, 3};
    char err[512] = "";
    const char *path = tmp_file("rw");
    NPK_REPORT(npk_npy_write_f32(path, v, 2, dims, err, sizeof err) == 0, "write: %s\n", err);
    npk_npy_f32 a;
    NPK_REPORT(npk_npy_read_f32(path, &a, err, sizeof err) == 0, "read: %s\n", err);
    NPK_CHECK(a.rank == 2 && a.dims[0] == 2 && a.dims[1] == 3 && a.count == 6);
    NPK_CHECK_EQ_STR(a.dtype, "<f4");
    NPK_CHECK(a.data && memcmp(a.data, v, sizeof v) == 0);
    npk_npy_free_f32(&a);
    /* the header as NumPy writes it: a multiple of 64 bytes with the magic and length */
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    NPK_CHECK_EQ_U64((uint64_t)ftell(f), 128 + 24);
    fclose(f);
    unlink(path);
    /* uint8, int64 (version 2 header) and a one-dimensional shape */
    uint8_t u[3] = {0, 128, 255};
    path = raw_npy("u8", 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", u, 3);
    NPK_CHECK(npk_npy_read_f32(path, &a, err, sizeof err) == 0 && a.rank == 1 && a.count == 3 &&
              a.data[1] == 128 && a.data[2] == 255);
    npk_npy_free_f32(&a);
    unlink(path);
    int64_t l[2] = {9, -3};
    path = raw_npy("i8", 2, "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", l, 16);
    NPK_CHECK(npk_npy_read_f32(path, &a, err, sizeof err) == 0 && a.data[0] == 9 && a.data[1] == -3);
    npk_npy_free_f32(&a);
    unlink(path);
    /* the errors */
    expect_npy_error(raw_npy("fo", 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
                             v, 16), "Fortran (column) order");
    expect_npy_error(raw_npy("be", 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }",
                             v, 4), "dtype '>f4' is big-endian");
    expect_npy_error(raw_npy("tr", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                             v, 4), "shape promises 2 elements of 4 bytes, but the file holds 4 bytes");
    expect_npy_error(raw_npy("tl", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
                             v, 8), "shape promises 1 elements of 4 bytes, but the file holds 8 bytes");
    expect_npy_error(raw_npy("hg", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': "
                             "(100000, 100000, 100000), }", v, 4), "shape promises 1000000000000000 elements");
    expect_npy_error(raw_npy("ns", 1, "{'descr': '<f4', 'fortran_order': False}", v, 4),
                     "is not a dict with 'descr', 'fortran_order' and 'shape'");
    expect_npy_error(raw_npy("v9", 9, "{}", v, 4), "format version 9.0 is not 1.0, 2.0 or 3.0");
    path = tmp_file("mg");
    f = fopen(path, "wb");
    fputs("not numpy", f);
    fclose(f);
    expect_npy_error(path, "no \\x93NUMPY magic");
    expect_npy_error("/nonexistent/x.npy", "cannot open");
}

/* --write DIR: the MLP above as DIR/mlp.onnx and its input x = (1, 2, -1) twice as DIR/x.npy
 * [2, 3], for the command-line test (run_model.sh); and the DAG of test_dag as DIR/dag.onnx
 * with its input ((1, 3), (4, 4)) as DIR/dag_x.npy [1, 2, 2] (rvnpu_cli.sh). */
static int write_files(const char *dir)
{
    char path[512], err[512];
    graph g = mlp();
    snprintf(path, sizeof path, "%s/mlp.onnx", dir);
    write_model(&g, 0, path);
    pool_free();
    float x[6] = {1, 2, -1, 1, 2, -1};
    int64_t dims[2] = {2, 3};
    snprintf(path, sizeof path, "%s/x.npy", dir);
    if (npk_npy_write_f32(path, x, 2, dims, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    /* the int8 models of test_qdq_dense and test_qlinear_matmul (zero points 1 and 3) */
    g = qdq_dense();
    snprintf(path, sizeof path, "%s/qdq.onnx", dir);
    write_model(&g, 0, path);
    pool_free();
    g = qlinear_matmul(1, 3);
    snprintf(path, sizeof path, "%s/qmm_zp.onnx", dir);
    write_model(&g, 0, path);
    pool_free();
    /* a weight's DequantizeLinear with a negative scale (test_q_errors): not a constant */
    g = qdq_dense();
    g.inits[4] = ftensor("ws", DIMS(2), VALS(0.25f, -0.5f));
    snprintf(path, sizeof path, "%s/qdq_neg_scale.onnx", dir);
    write_model(&g, 0, path);
    pool_free();
    float xq[2] = {1, -1.5f};
    int64_t dq[2] = {1, 2};
    snprintf(path, sizeof path, "%s/xq.npy", dir);
    if (npk_npy_write_f32(path, xq, 2, dq, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    graph d = dag_graph();
    snprintf(path, sizeof path, "%s/dag.onnx", dir);
    write_model(&d, 0, path);
    pool_free();
    float xd[4] = {1, 3, 4, 4};
    int64_t dd[3] = {1, 2, 2};
    snprintf(path, sizeof path, "%s/dag_x.npy", dir);
    if (npk_npy_write_f32(path, xd, 3, dd, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    return 0;
}

/* --check-dag FILE: FILE holds the DAG's output for dag_x.npy, worked out at test_dag:
 * (5, 16.5, 16.5, 72.5), within 1e-5 relative (a float32 run). */
static int check_dag(const char *path)
{
    npk_npy_f32 y;
    char err[512];
    static const float want[4] = {5, 16.5f, 16.5f, 72.5f};
    NPK_REPORT(npk_npy_read_f32(path, &y, err, sizeof err) == 0, "%s\n", err);
    if (!y.data)
        return npk_test_done();
    NPK_CHECK_EQ_U64(y.count, 4);
    for (size_t i = 0; i < 4 && y.count == 4; i++)
        near(y.data[i], want[i], 1e-5 * want[i], "dag output");
    npk_npy_free_f32(&y);
    return npk_test_done();
}

/* --check FILE: FILE holds the outputs of the MLP for that input (worked out at test_mlp):
 * [2, 2] float32, each row (1 / (1 + e^-8.25), e^-8.25 / (1 + e^-8.25)) rounded to float32. */
static int check_output(const char *path)
{
    npk_npy_f32 y;
    char err[512];
    NPK_REPORT(npk_npy_read_f32(path, &y, err, sizeof err) == 0, "%s\n", err);
    if (!y.data)
        return npk_test_done();
    NPK_CHECK(y.rank == 2 && y.dims[0] == 2 && y.dims[1] == 2 && strcmp(y.dtype, "<f4") == 0);
    for (int r = 0; r < 2 && y.count == 4; r++) {
        NPK_CHECK(y.data[2 * r] == (float)(1.0 / (1.0 + exp(-8.25))));
        NPK_CHECK(y.data[2 * r + 1] == (float)(exp(-8.25) / (1.0 + exp(-8.25))));
    }
    npk_npy_free_f32(&y);
    return npk_test_done();
}

/* --f64 MODEL.onnx X.npy REF.npy TOL: the plan's float64 run of every input of X against REF,
 * the float64 NumPy reference's outputs (onnx_ref.py --output: '<f8', C order, one output after
 * the other); fails when an element differs by more than TOL. Prints the layers' kinds. */
static int check_f64(const char *model, const char *xpath, const char *refpath, double tol)
{
    char err[512] = "";
    npk_model *m = NULL;
    npk_plan *p = NULL;
    npk_npy_f32 x = {0};
    NPK_REPORT(npk_model_read_file(model, &m, err, sizeof err) == 0, "%s\n", err);
    NPK_REPORT(m && npk_plan_build(m, &p, err, sizeof err) == 0, "%s\n", err);
    NPK_REPORT(npk_npy_read_f32(xpath, &x, err, sizeof err) == 0, "%s\n", err);
    FILE *f = fopen(refpath, "rb");
    unsigned char head[10];
    char dict[512] = "";
    size_t hl = 0;
    if (f && fread(head, 1, 10, f) == 10 && memcmp(head, "\x93NUMPY\x01", 7) == 0) {
        hl = (size_t)head[8] | (size_t)head[9] << 8;
        if (hl >= sizeof dict || fread(dict, 1, hl, f) != hl)
            hl = 0;
    }
    NPK_REPORT(hl && strstr(dict, "'descr': '<f8'") && strstr(dict, "'fortran_order': False"),
               "%s: not a float64 .npy (version 1, C order)\n", refpath);
    if (!p || !x.data || !hl) {
        if (f)
            fclose(f);
        npk_npy_free_f32(&x);
        npk_plan_free(p);
        npk_model_free(m);
        return npk_test_done();
    }
    for (size_t i = 0; i < p->n_layers; i++)
        printf("%s%s", i ? " " : "layers: ", npk_layer_kind_name(p->layers[i].kind));
    size_t nin = p->tensors[0].elems, nout = p->tensors[p->n_tensors - 1].elems;
    size_t count = x.count / nin;
    double *xi = malloc(nin * sizeof *xi), *y = malloc(nout * sizeof *y),
           *ref = malloc(nout * sizeof *ref);
    double worst = 0.0;
    for (size_t k = 0; k < count && xi && y && ref; k++) {
        for (size_t i = 0; i < nin; i++)
            xi[i] = x.data[k * nin + i];
        NPK_CHECK(npk_plan_run_f64(p, xi, y, 0) == 0);
        NPK_CHECK(fread(ref, sizeof *ref, nout, f) == nout);
        for (size_t i = 0; i < nout; i++)
            worst = fabs(y[i] - ref[i]) > worst ? fabs(y[i] - ref[i]) : worst;
    }
    printf("\n%s: %zu inputs, max |float64 plan - NumPy reference| %.3g (tolerance %g)\n", model,
           count, worst, tol);
    NPK_REPORT(count > 0 && worst <= tol, "outside the tolerance\n");
    free(xi);
    free(y);
    free(ref);
    fclose(f);
    npk_npy_free_f32(&x);
    npk_plan_free(p);
    npk_model_free(m);
    return npk_test_done();
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0)
        return write_files(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--check") == 0)
        return check_output(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--check-dag") == 0)
        return check_dag(argv[2]);
    if (argc == 6 && strcmp(argv[1], "--f64") == 0)
        return check_f64(argv[2], argv[3], argv[4], atof(argv[5]));
    test_mlp();
    test_cnn();
    test_avgpool(0);
    test_avgpool(1);
    test_pad();
    test_gelu_pattern();
    test_errors();
    test_dag();
    test_residual();
    test_rmsnorm();
    test_qdq_dense();
    test_qlinear_matmul(0, 0);
    test_qlinear_matmul(1, 3);
    test_q_errors();
    test_lower_fail();
    test_npy();
    return npk_test_done();
}
