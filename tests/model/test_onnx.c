/* The ONNX reader (src/model): small models built with protobuf-c's generated structs,
 * serialised to temporary files and read back; every inferred shape, type, parameter and MAC
 * count checked against values derived by hand in the comments; and the errors, each with the
 * fragment of its message that names the place. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"

#include "onnx_build.h"

static const npk_value *val(const npk_model *m, const char *name)
{
    for (size_t i = 0; m && i < m->n_values; i++)
        if (strcmp(m->values[i].name, name) == 0)
            return &m->values[i];
    return NULL;
}

static const npk_node *node_named(const npk_model *m, const char *name)
{
    for (size_t i = 0; m && i < m->n_nodes; i++)
        if (strcmp(m->nodes[i].name, name) == 0)
            return &m->nodes[i];
    return NULL;
}

/* value `name` has type t and exactly the dims given */
static void check_val(const npk_model *m, const char *name, npk_dtype t, size_t rank,
                      const int64_t *dims)
{
    const npk_value *v = val(m, name);
    bool ok = v && v->dtype == t && v->rank == (int)rank;
    for (size_t i = 0; ok && i < rank; i++)
        ok = v->dims[i] == dims[i];
    NPK_REPORT(ok, "value '%s': wrong type or shape (rank %d, dims[0] %lld)\n", name,
               v ? v->rank : -1, v && v->rank ? (long long)v->dims[0] : -1LL);
}

static void check_node(const npk_model *m, const char *name, npk_op op, uint64_t params,
                       uint64_t macs)
{
    const npk_node *n = node_named(m, name);
    NPK_REPORT(n && n->op == op && n->params == params && n->macs == macs,
               "node '%s': op %d params %llu macs %llu, want %d %llu %llu\n", name,
               n ? (int)n->op : -1, n ? (unsigned long long)n->params : 0ULL,
               n ? (unsigned long long)n->macs : 0ULL, (int)op, (unsigned long long)params,
               (unsigned long long)macs);
}


/* The MLP of the Fashion-MNIST examples as PyTorch exports it: Gemm with transB=1. */
static graph mlp(void)
{
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(-1, 784));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(-1, 10));
    ADD_INIT(g, tensor("W1", F, DIMS(128, 784), NULL));
    ADD_INIT(g, tensor("b1", F, DIMS(128), NULL));
    ADD_INIT(g, tensor("W2", F, DIMS(10, 128), NULL));
    ADD_INIT(g, tensor("b2", F, DIMS(10), NULL));
    /* listed out of order: the reader sorts them */
    ADD_NODE(g, node("Softmax", "sm", "h2", "y", attr_i("axis", 1), NULL));
    ADD_NODE(g, node("Gemm", "fc1", "x,W1,b1", "h1", attr_i("transB", 1), NULL));
    ADD_NODE(g, node("Gemm", "fc2", "r1,W2,b2", "h2", attr_i("transB", 1), NULL));
    ADD_NODE(g, node("Relu", "relu", "h1", "r1", NULL));
    return g;
}

static void test_mlp(void)
{
    char err[512];
    graph g = mlp();
    npk_model *m = roundtrip(&g, 0, err, sizeof err);
    NPK_CHECK(m != NULL);
    if (!m) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    NPK_CHECK_EQ_U64(m->opset, 17);
    NPK_CHECK_EQ_U64(m->n_inputs, 1);   /* initializers are not inputs */
    NPK_CHECK_EQ_U64(m->n_outputs, 1);
    NPK_CHECK_EQ_U64(m->n_nodes, 4);
    /* topological order: fc1, relu, fc2, sm */
    NPK_CHECK_EQ_STR(m->nodes[0].name, "fc1");
    NPK_CHECK_EQ_STR(m->nodes[1].name, "relu");
    NPK_CHECK_EQ_STR(m->nodes[2].name, "fc2");
    NPK_CHECK_EQ_STR(m->nodes[3].name, "sm");
    /* the symbolic batch is taken as 1 */
    NPK_CHECK(val(m, "x")->sym_batch);
    check_val(m, "x", F, DIMS(1, 784));
    check_val(m, "h1", F, DIMS(1, 128));   /* (1x784) (784x128)^T-ed */
    check_val(m, "r1", F, DIMS(1, 128));
    check_val(m, "h2", F, DIMS(1, 10));
    check_val(m, "y", F, DIMS(1, 10));
    /* fc1: 128*784 weights + 128 biases = 100480; 1*128*784 = 100352 MACs */
    check_node(m, "fc1", NPK_OP_GEMM, 100480, 100352);
    /* fc2: 10*128 + 10 = 1290; 1*10*128 = 1280 MACs */
    check_node(m, "fc2", NPK_OP_GEMM, 1290, 1280);
    check_node(m, "relu", NPK_OP_RELU, 0, 0);
    /* initializer data: element i is i/100, so W1[1][0] (index 784) is 7.84 */
    const npk_value *w1 = val(m, "W1");
    NPK_CHECK(w1 && w1->data && ((const float *)w1->data)[784] == 7.84f);
    npk_model_free(m);
}

/* LeNet-sized: Conv(pad 2) Relu MaxPool Conv AveragePool Flatten Gemm. */
static graph cnn(void)
{
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(1, 1, 28, 28));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(1, 10));
    ADD_INIT(g, tensor("W1", F, DIMS(6, 1, 5, 5), NULL));
    ADD_INIT(g, tensor("B1", F, DIMS(6), NULL));
    ADD_INIT(g, tensor("W2", F, DIMS(16, 6, 5, 5), NULL));
    ADD_INIT(g, tensor("W3", F, DIMS(10, 400), NULL));
    ADD_INIT(g, tensor("B3", F, DIMS(10), NULL));
    ADD_NODE(g, node("Conv", "c1", "x,W1,B1", "a1", attr_is("pads", 4, (int64_t[]){2, 2, 2, 2}),
                     attr_is("kernel_shape", 2, (int64_t[]){5, 5}), NULL));
    ADD_NODE(g, node("Relu", "r1", "a1", "a2", NULL));
    ADD_NODE(g, node("MaxPool", "p1", "a2", "a3", attr_is("kernel_shape", 2, (int64_t[]){2, 2}),
                     attr_is("strides", 2, (int64_t[]){2, 2}), NULL));
    ADD_NODE(g, node("Conv", "c2", "a3,W2", "a4", NULL));
    ADD_NODE(g, node("AveragePool", "p2", "a4", "a5",
                     attr_is("kernel_shape", 2, (int64_t[]){2, 2}),
                     attr_is("strides", 2, (int64_t[]){2, 2}), NULL));
    ADD_NODE(g, node("Flatten", "fl", "a5", "a6", NULL));
    ADD_NODE(g, node("Gemm", "fc", "a6,W3,B3", "y", attr_i("transB", 1), NULL));
    return g;
}

static void test_cnn(void)
{
    char err[512];
    graph g = cnn();
    npk_model *m = roundtrip(&g, 0, err, sizeof err);
    NPK_CHECK(m != NULL);
    if (!m) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    /* c1: (28 + 2 + 2 - 5)/1 + 1 = 28 */
    check_val(m, "a1", F, DIMS(1, 6, 28, 28));
    check_val(m, "a2", F, DIMS(1, 6, 28, 28));
    /* p1: (28 - 2)/2 + 1 = 14 */
    check_val(m, "a3", F, DIMS(1, 6, 14, 14));
    /* c2: 14 - 5 + 1 = 10 */
    check_val(m, "a4", F, DIMS(1, 16, 10, 10));
    check_val(m, "a5", F, DIMS(1, 16, 5, 5));
    /* flatten at axis 1: 16*5*5 = 400 */
    check_val(m, "a6", F, DIMS(1, 400));
    check_val(m, "y", F, DIMS(1, 10));
    /* c1: 6*1*5*5 + 6 = 156 params; 1*6*28*28 outputs * 1*5*5 = 117600 MACs */
    check_node(m, "c1", NPK_OP_CONV, 156, 117600);
    /* c2: 16*6*5*5 = 2400 params, no bias; 16*10*10 * 6*5*5 = 240000 MACs */
    check_node(m, "c2", NPK_OP_CONV, 2400, 240000);
    check_node(m, "p1", NPK_OP_MAX_POOL, 0, 0);
    check_node(m, "fc", NPK_OP_GEMM, 4010, 4000);
    npk_model_free(m);

    /* strides and ceil_mode on an 8x8 input, kernel 3, stride 2: floor (8-3)/2 + 1 = 3,
     * ceil: ceil(5/2) + 1 = 4 (the last window starts at 6, inside the input); a Conv with
     * stride 2 and SAME_UPPER: ceil(8/2) = 4; a 2x2 stride-2 VALID conv: (8-2)/2 + 1 = 4 */
    graph h = {0};
    h.ins[h.n_ins++] = vinfo("x", F, DIMS(1, 3, 8, 8));
    h.outs[h.n_outs++] = vinfo("f", F, DIMS(1, 3, 3, 3));
    ADD_INIT(h, tensor("W", F, DIMS(4, 3, 3, 3), NULL));
    ADD_INIT(h, tensor("W2", F, DIMS(2, 3, 2, 2), NULL));
    ADD_NODE(h, node("MaxPool", "floor", "x", "f", attr_is("kernel_shape", 2, (int64_t[]){3, 3}),
                     attr_is("strides", 2, (int64_t[]){2, 2}), NULL));
    ADD_NODE(h, node("MaxPool", "ceil", "x", "c", attr_is("kernel_shape", 2, (int64_t[]){3, 3}),
                     attr_is("strides", 2, (int64_t[]){2, 2}), attr_i("ceil_mode", 1), NULL));
    Onnx__AttributeProto *same = attr_i("group", 1);
    same->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
    same->name = str("auto_pad");
    same->has_s = 1;
    same->s.data = (uint8_t *)str("SAME_UPPER");
    same->s.len = 10;
    ADD_NODE(h, node("Conv", "same", "x,W", "s", attr_is("strides", 2, (int64_t[]){2, 2}), same,
                     NULL));
    ADD_NODE(h, node("Conv", "s2", "x,W2", "v", attr_is("strides", 2, (int64_t[]){2, 2}), NULL));
    m = roundtrip(&h, 0, err, sizeof err);
    NPK_CHECK(m != NULL);
    check_val(m, "f", F, DIMS(1, 3, 3, 3));
    check_val(m, "c", F, DIMS(1, 3, 4, 4));
    check_val(m, "s", F, DIMS(1, 4, 4, 4));
    check_val(m, "v", F, DIMS(1, 2, 4, 4));
    /* s2: 2*4*4 outputs * 3*2*2 = 384 MACs, 2*3*2*2 = 24 params */
    check_node(m, "s2", NPK_OP_CONV, 24, 384);
    npk_model_free(m);
}

/* MatMul with batch broadcasting, then Add and Mul broadcasts. */
static graph bcast(void)
{
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(2, 3, 4, 5));
    g.ins[g.n_ins++] = vinfo("a", F, DIMS(2, 1, 4, 5));
    g.ins[g.n_ins++] = vinfo("b", F, DIMS(3, 5, 7));
    g.outs[g.n_outs++] = vinfo("z", F, DIMS(2, 3, 4, 6));
    ADD_INIT(g, tensor("W", F, DIMS(5, 6), NULL));
    ADD_INIT(g, tensor("bias", F, DIMS(6), NULL));
    ADD_INIT(g, tensor("s", F, DIMS(3, 1, 6), NULL));
    ADD_NODE(g, node("MatMul", "mm", "x,W", "p", NULL));
    ADD_NODE(g, node("Add", "add", "p,bias", "q", NULL));
    ADD_NODE(g, node("Mul", "mul", "q,s", "z", NULL));
    ADD_NODE(g, node("MatMul", "bmm", "a,b", "ab", NULL));
    return g;
}

static void test_broadcast(void)
{
    char err[512];
    graph g = bcast();
    npk_model *m = roundtrip(&g, 0, err, sizeof err);
    NPK_CHECK(m != NULL);
    if (!m) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    /* [2,3,4,5] x [5,6] -> [2,3,4,6]; 2*3*4*6*5 = 720 MACs, 30 params */
    check_val(m, "p", F, DIMS(2, 3, 4, 6));
    check_node(m, "mm", NPK_OP_MATMUL, 30, 720);
    /* + [6] -> [2,3,4,6]; * [3,1,6] -> [2,3,4,6] */
    check_val(m, "q", F, DIMS(2, 3, 4, 6));
    check_val(m, "z", F, DIMS(2, 3, 4, 6));
    check_node(m, "mul", NPK_OP_MUL, 18, 0);
    /* batch [2,1] with [3] -> [2,3]; [4,5] x [5,7] -> [4,7]; 6*4*7*5 = 840 MACs */
    check_val(m, "ab", F, DIMS(2, 3, 4, 7));
    check_node(m, "bmm", NPK_OP_MATMUL, 0, 840);
    npk_model_free(m);
}

/* An int8 model: QuantizeLinear, QLinearMatMul, DequantizeLinear. */
static graph qlin(void)
{
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(4, 16));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(4, 8));
    ADD_INIT(g, tensor("xs", F, SCALAR, NULL));
    ADD_INIT(g, tensor("xz", NPK_DT_UINT8, SCALAR, NULL));
    ADD_INIT(g, tensor("w", NPK_DT_INT8, DIMS(16, 8), NULL));
    ADD_INIT(g, tensor("ws", F, SCALAR, NULL));
    ADD_INIT(g, tensor("wz", NPK_DT_INT8, SCALAR, NULL));
    ADD_INIT(g, tensor("ys", F, SCALAR, NULL));
    ADD_INIT(g, tensor("yz", NPK_DT_INT8, SCALAR, NULL));
    ADD_NODE(g, node("QuantizeLinear", "q", "x,xs,xz", "xq", NULL));
    ADD_NODE(g, node("QLinearMatMul", "qmm", "xq,xs,xz,w,ws,wz,ys,yz", "yq", NULL));
    ADD_NODE(g, node("DequantizeLinear", "dq", "yq,ys,yz", "y", NULL));
    return g;
}

static void test_qlinear(void)
{
    char err[512];
    graph g = qlin();
    npk_model *m = roundtrip(&g, 0, err, sizeof err);
    NPK_CHECK(m != NULL);
    if (!m) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    /* the quantised input takes its zero point's type, uint8 */
    check_val(m, "xq", NPK_DT_UINT8, DIMS(4, 16));
    /* [4,16] x [16,8] -> [4,8] in y_zero_point's type int8; 4*8*16 = 512 MACs; constants
     * 1 + 1 + 128 + 1 + 1 + 1 + 1 = 134 */
    check_val(m, "yq", NPK_DT_INT8, DIMS(4, 8));
    check_node(m, "qmm", NPK_OP_QLINEAR_MATMUL, 134, 512);
    check_val(m, "y", F, DIMS(4, 8));
    npk_model_free(m);
}

/* Constant folding: a Constant shape for Reshape, a Transpose of an initializer. */
static graph folding(void)
{
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(2, 3, 4));
    g.ins[g.n_ins++] = vinfo("u", F, DIMS(4, 3));
    g.outs[g.n_outs++] = vinfo("r", F, DIMS(2, 12));
    g.outs[g.n_outs++] = vinfo("uw", F, DIMS(4, 2));
    ADD_INIT(g, tensor("W", F, DIMS(2, 3), NULL));
    ADD_NODE(g, node("Constant", "shape", "", "s",
                     attr_t("value", tensor("sv", NPK_DT_INT64, DIMS(2), (int64_t[]){0, -1})),
                     NULL));
    ADD_NODE(g, node("Reshape", "rs", "x,s", "r", NULL));
    ADD_NODE(g, node("Transpose", "tr", "W", "Wt", NULL));
    ADD_NODE(g, node("MatMul", "mm", "u,Wt", "uw", NULL));
    return g;
}

static void test_fold(void)
{
    char err[512];
    graph g = folding();
    npk_model *m = roundtrip(&g, 0, err, sizeof err);
    NPK_CHECK(m != NULL);
    if (!m) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    /* 0 copies dimension 0 (2), -1 takes the rest: 24 / 2 = 12 */
    check_val(m, "r", F, DIMS(2, 12));
    NPK_CHECK(node_named(m, "shape")->folded);
    NPK_CHECK(!node_named(m, "rs")->folded);
    check_node(m, "rs", NPK_OP_RESHAPE, 0, 0);
    /* W = [[0, .01, .02], [.03, .04, .05]] transposed: [[0, .03], [.01, .04], [.02, .05]] */
    const npk_value *wt = val(m, "Wt");
    check_val(m, "Wt", F, DIMS(3, 2));
    NPK_CHECK(node_named(m, "tr")->folded);
    const float want[6] = {0.00f, 0.03f, 0.01f, 0.04f, 0.02f, 0.05f};
    NPK_CHECK(wt && wt->data && memcmp(wt->data, want, sizeof want) == 0);
    /* [4,3] x [3,2] -> [4,2], the folded transpose counted as 6 parameters */
    check_node(m, "mm", NPK_OP_MATMUL, 6, 24);
    npk_model_free(m);
}

/* A transformer block's operators: LayerNormalization, MatMul, the Gelu pattern PyTorch exports
 * with Erf, the RMSNorm pattern (Pow, ReduceMean, Add, Sqrt, Div, Mul), a Transpose of an
 * activation, Softmax, and the one-input activations. */
static void test_transformer_ops(void)
{
    char err[512];
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(1, 8, 16));
    g.outs[g.n_outs++] = vinfo("p", F, DIMS(1, 8, 8));
    ADD_INIT(g, tensor("scale", F, DIMS(16), NULL));
    ADD_INIT(g, tensor("bias", F, DIMS(16), NULL));
    ADD_INIT(g, tensor("W", F, DIMS(16, 32), NULL));
    ADD_INIT(g, tensor("k", F, SCALAR, NULL));   /* a scalar constant: sqrt(2), 1, 0.5, eps, 2 */
    ADD_NODE(g, node("LayerNormalization", "ln", "x,scale,bias", "n,mean", attr_i("axis", -1),
                     NULL));
    ADD_NODE(g, node("MatMul", "up", "n,W", "h", NULL));
    ADD_NODE(g, node("Div", "g_div", "h,k", "g1", NULL));
    ADD_NODE(g, node("Erf", "g_erf", "g1", "g2", NULL));
    ADD_NODE(g, node("Add", "g_add", "g2,k", "g3", NULL));
    ADD_NODE(g, node("Mul", "g_mul", "h,g3", "g4", NULL));
    ADD_NODE(g, node("Gelu", "gelu", "h", "g5", NULL));
    ADD_NODE(g, node("Pow", "r_pow", "x,k", "r1", NULL));
    ADD_NODE(g, node("ReduceMean", "r_mean", "r1", "r2", attr_is("axes", 1, (int64_t[]){-1}),
                     NULL));
    ADD_NODE(g, node("Add", "r_eps", "r2,k", "r3", NULL));
    ADD_NODE(g, node("Sqrt", "r_sqrt", "r3", "r4", NULL));
    ADD_NODE(g, node("Div", "r_div", "x,r4", "r5", NULL));
    ADD_NODE(g, node("Mul", "r_w", "r5,scale", "r6", NULL));
    ADD_NODE(g, node("Transpose", "t", "r6", "rt", attr_is("perm", 3, (int64_t[]){0, 2, 1}),
                     NULL));
    ADD_NODE(g, node("MatMul", "qk", "r6,rt", "s", NULL));
    ADD_NODE(g, node("Softmax", "sm", "s", "p", attr_i("axis", -1), NULL));
    npk_model *m = roundtrip(&g, 0, err, sizeof err);
    NPK_CHECK(m != NULL);
    if (!m) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    /* LayerNormalization: Y is X's shape; Mean keeps the dimensions before axis 2, the rest 1 */
    check_val(m, "n", F, DIMS(1, 8, 16));
    check_val(m, "mean", F, DIMS(1, 8, 1));
    /* ln: 16 + 16 params; up: [1,8,16] x [16,32] -> [1,8,32], 8*32*16 = 4096 MACs */
    check_node(m, "ln", NPK_OP_LAYER_NORM, 32, 0);
    check_node(m, "up", NPK_OP_MATMUL, 512, 4096);
    /* the Gelu pattern and Gelu keep [1,8,32] (a scalar broadcasts) */
    check_val(m, "g1", F, DIMS(1, 8, 32));
    check_val(m, "g4", F, DIMS(1, 8, 32));
    check_val(m, "g5", F, DIMS(1, 8, 32));
    /* RMSNorm: the mean over the last axis keeps it as 1: [1,8,1]; x / [1,8,1] -> [1,8,16] */
    check_val(m, "r2", F, DIMS(1, 8, 1));
    check_val(m, "r4", F, DIMS(1, 8, 1));
    check_val(m, "r6", F, DIMS(1, 8, 16));
    /* [1,8,16] transposed (0,2,1) -> [1,16,8]; [1,8,16] x [1,16,8] -> [1,8,8], 8*8*16 MACs */
    check_val(m, "rt", F, DIMS(1, 16, 8));
    NPK_CHECK(!node_named(m, "t")->folded);
    check_node(m, "qk", NPK_OP_MATMUL, 0, 1024);
    check_val(m, "p", F, DIMS(1, 8, 8));
    npk_model_free(m);
}

/* Read g expecting failure with `want` in the message. */
static void expect_error(const graph *g, long keep, const char *want);

/* PyTorch's export of x.view(x.size(0), -1): Shape, Gather of entry 0, Unsqueeze, Concat with
 * [-1], then Reshape; all folded at load time (static shapes, the symbolic batch taken as 1).
 * Beside it Shape with start, Squeeze of a constant, and a Gather of an activation (shape
 * only). */
static graph shape_chain(void)
{
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(-1, 2, 3));
    g.outs[g.n_outs++] = vinfo("r", F, DIMS(1, 6));
    g.outs[g.n_outs++] = vinfo("gx", F, DIMS(1, 2, 3));
    ADD_INIT(g, tensor("i0", NPK_DT_INT64, SCALAR, (int64_t[]){0}));
    ADD_INIT(g, tensor("ax0", NPK_DT_INT64, DIMS(1), (int64_t[]){0}));
    ADD_INIT(g, tensor("m1", NPK_DT_INT64, DIMS(1), (int64_t[]){-1}));
    ADD_INIT(g, tensor("cols", NPK_DT_INT64, DIMS(2), (int64_t[]){1, 0}));
    ADD_INIT(g, tensor("u13", NPK_DT_INT64, DIMS(1, 3), (int64_t[]){7, 8, 9}));
    ADD_NODE(g, node("Shape", "sh", "x", "s", NULL));
    ADD_NODE(g, node("Gather", "ga", "s,i0", "b", attr_i("axis", 0), NULL));
    ADD_NODE(g, node("Unsqueeze", "un", "b,ax0", "b1", NULL));
    ADD_NODE(g, node("Concat", "cat", "b1,m1", "shp", attr_i("axis", 0), NULL));
    ADD_NODE(g, node("Reshape", "rs", "x,shp", "r", NULL));
    ADD_NODE(g, node("Shape", "sh1", "x", "s1", attr_i("start", -2), NULL));
    ADD_NODE(g, node("Squeeze", "sq", "u13,ax0", "u3", NULL));
    ADD_NODE(g, node("Gather", "gx", "x,cols", "gx", attr_i("axis", 1), NULL));
    return g;
}

static void check_ints(const npk_model *m, const char *name, size_t n, const int64_t *want)
{
    const npk_value *v = val(m, name);
    NPK_REPORT(v && v->data && v->elems == n && memcmp(v->data, want, n * 8) == 0,
               "value '%s': not the constant expected\n", name);
}

static void test_shape_chain(void)
{
    char err[512];
    graph g = shape_chain();
    npk_model *m = roundtrip(&g, 0, err, sizeof err);
    NPK_CHECK(m != NULL);
    if (!m) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    /* x is [N, 2, 3] with N taken as 1: Shape [1, 2, 3]; entry 0 is the scalar 1; unsqueezed
     * [1]; with [-1] appended [1, -1]; x reshaped to [1, 6] */
    check_val(m, "s", NPK_DT_INT64, DIMS(3));
    check_ints(m, "s", 3, (int64_t[]){1, 2, 3});
    check_val(m, "b", NPK_DT_INT64, SCALAR);
    check_ints(m, "b", 1, (int64_t[]){1});
    check_ints(m, "b1", 1, (int64_t[]){1});
    check_ints(m, "shp", 2, (int64_t[]){1, -1});
    check_val(m, "r", F, DIMS(1, 6));
    NPK_CHECK(node_named(m, "sh")->folded && node_named(m, "ga")->folded &&
              node_named(m, "un")->folded && node_named(m, "cat")->folded);
    NPK_CHECK(!node_named(m, "rs")->folded);
    /* start -2 of rank 3: dimensions 1..2 */
    check_ints(m, "s1", 2, (int64_t[]){2, 3});
    /* [[7, 8, 9]] squeezed on axis 0: [7, 8, 9] */
    check_val(m, "u3", NPK_DT_INT64, DIMS(3));
    check_ints(m, "u3", 3, (int64_t[]){7, 8, 9});
    /* x [1, 2, 3] gathered along axis 1 by [1, 0]: [1, 2, 3], not a constant */
    check_val(m, "gx", F, DIMS(1, 2, 3));
    NPK_CHECK(!node_named(m, "gx")->folded && val(m, "gx")->data == NULL);
    npk_model_free(m);

    /* an index out of range, a Concat without its axis, a Squeeze of a dimension of 3 */
    g = shape_chain();
    g.inits[0] = tensor("i0", NPK_DT_INT64, SCALAR, (int64_t[]){3});
    expect_error(&g, 0, "(Gather): index 3 (element 0 of 'i0') is out of range for dimension 3");
    g = shape_chain();
    g.nodes[3] = node("Concat", "cat", "b1,m1", "shp", NULL);
    expect_error(&g, 0, "(Concat): has no axis attribute");
    g = shape_chain();
    g.nodes[6] = node("Squeeze", "sq", "u13,cols", "u3", NULL);
    expect_error(&g, 0, "(Squeeze): cannot squeeze axis 1 of size 3");

}

/* PyTorch 1.13's export of nn.ZeroPad2d(1) (pads [1, 1, 1, 1] of W then H): the ONNX pads
 * computed by ConstantOfShape, Concat, Reshape, Slice (reversed), Transpose, Reshape and Cast,
 * all folded, then Pad of x [1, 1, 2, 3]. Beside it a Slice of step 2 and a Cast of floats. */
static graph pad_chain(void)
{
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(1, 1, 2, 3));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(1, 1, 4, 5));
    ADD_INIT(g, tensor("n4", NPK_DT_INT64, DIMS(1), (int64_t[]){4}));
    ADD_INIT(g, tensor("p1", NPK_DT_INT64, DIMS(4), (int64_t[]){1, 1, 1, 1}));
    ADD_INIT(g, tensor("m12", NPK_DT_INT64, DIMS(2), (int64_t[]){-1, 2}));
    ADD_INIT(g, tensor("z", NPK_DT_INT64, DIMS(1), (int64_t[]){0}));
    ADD_INIT(g, tensor("m1", NPK_DT_INT64, DIMS(1), (int64_t[]){-1}));
    ADD_INIT(g, tensor("lo", NPK_DT_INT64, DIMS(1), (int64_t[]){INT64_MIN + 1}));
    ADD_INIT(g, tensor("v0", F, SCALAR, NULL));   /* element 0 is 0 / 100 */
    ADD_INIT(g, tensor("u5", NPK_DT_INT64, DIMS(5), (int64_t[]){10, 11, 12, 13, 14}));
    ADD_INIT(g, tensor("two", NPK_DT_INT64, DIMS(1), (int64_t[]){2}));
    ADD_INIT(g, tensor("f4", F, DIMS(4), NULL));  /* 0, 0.01, 0.02, 0.03 */
    ADD_NODE(g, node("ConstantOfShape", "cos", "n4", "zeros",
                     attr_t("value", tensor("v", NPK_DT_INT64, DIMS(1), (int64_t[]){0})), NULL));
    ADD_NODE(g, node("Concat", "cat", "p1,zeros", "p8", attr_i("axis", 0), NULL));
    ADD_NODE(g, node("Reshape", "rs", "p8,m12", "p42", NULL));
    ADD_NODE(g, node("Slice", "sl", "p42,m1,lo,z,m1", "rev", NULL));
    ADD_NODE(g, node("Transpose", "tr", "rev", "p24", attr_is("perm", 2, (int64_t[]){1, 0}),
                     NULL));
    ADD_NODE(g, node("Reshape", "rs1", "p24,m1", "pads", NULL));
    ADD_NODE(g, node("Cast", "cast", "pads", "pads64", attr_i("to", NPK_DT_INT64), NULL));
    ADD_NODE(g, node("Pad", "pad", "x,pads64,v0", "y", attr_s("mode", "constant"), NULL));
    ADD_NODE(g, node("Slice", "sl2", "u5,z,n4,z,two", "odd", NULL));
    ADD_NODE(g, node("Slice", "sl3", "u5,m1,lo,z,m1", "back", NULL));
    ADD_NODE(g, node("Cast", "castf", "f4", "f4b", attr_i("to", NPK_DT_BOOL), NULL));
    return g;
}

static void test_pad_chain(void)
{
    char err[512];
    graph g = pad_chain();
    npk_model *m = roundtrip(&g, 0, err, sizeof err);
    NPK_CHECK(m != NULL);
    if (!m) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    /* [1,1,1,1] ++ [0,0,0,0] as rows [[1,1],[1,1],[0,0],[0,0]], reversed
     * [[0,0],[0,0],[1,1],[1,1]], transposed [[0,0,1,1],[0,0,1,1]]: begins N,C,H,W 0,0,1,1 and
     * ends 0,0,1,1 */
    check_val(m, "zeros", NPK_DT_INT64, DIMS(4));
    check_ints(m, "zeros", 4, (int64_t[]){0, 0, 0, 0});
    check_val(m, "rev", NPK_DT_INT64, DIMS(4, 2));
    check_ints(m, "rev", 8, (int64_t[]){0, 0, 0, 0, 1, 1, 1, 1});
    check_val(m, "pads64", NPK_DT_INT64, DIMS(8));
    check_ints(m, "pads64", 8, (int64_t[]){0, 0, 1, 1, 0, 0, 1, 1});
    NPK_CHECK(node_named(m, "cos")->folded && node_named(m, "sl")->folded &&
              node_named(m, "cast")->folded);
    /* x [1,1,2,3] padded by one on H and W: [1,1,4,5], not folded, no parameters */
    check_val(m, "y", F, DIMS(1, 1, 4, 5));
    NPK_CHECK(!node_named(m, "pad")->folded && node_named(m, "pad")->params == 0);
    /* elements 0 and 2 of [10..14] (end 4, step 2); all five from the last down */
    check_ints(m, "odd", 2, (int64_t[]){10, 12});
    check_ints(m, "back", 5, (int64_t[]){14, 13, 12, 11, 10});
    /* 0 -> false, 0.01.. -> true */
    const npk_value *b = val(m, "f4b");
    NPK_CHECK(b && b->dtype == NPK_DT_BOOL && b->data &&
              memcmp(b->data, (uint8_t[]){0, 1, 1, 1}, 4) == 0);
    npk_model_free(m);

    g = pad_chain();
    g.nodes[7] = node("Pad", "pad", "x,pads64,v0", "y", attr_s("mode", "reflect"), NULL);
    expect_error(&g, 0, "'pad' (Pad): mode 'reflect' is not read (mode constant is)");
    g = pad_chain();
    g.inits[6] = tensor("v0", NPK_DT_INT64, SCALAR, (int64_t[]){1});
    expect_error(&g, 0, "(Pad): pads with the value 1 from 'v0' (only 0 is read)");
    g = pad_chain();
    g.nodes[7] = node("Pad", "pad", "x,p1", "y", NULL);
    expect_error(&g, 0, "(Pad): has 4 pads for an input of rank 4 (8)");
    g = pad_chain();
    g.nodes[7] = node("Pad", "pad", "x,m12", "y", NULL);
    expect_error(&g, 0, "(Pad): has 2 pads for an input of rank 4 (8)");
    g = pad_chain();
    g.nodes[8] = node("Slice", "sl2", "u5,z,n4,z,z", "odd", NULL);
    expect_error(&g, 0, "'sl2' (Slice): step 0 is 0");
    g = pad_chain();
    g.nodes[0] = node("ConstantOfShape", "cos", "m1", "zeros", NULL);
    expect_error(&g, 0, "(ConstantOfShape): dimension 0 of the shape 'm1' is -1");
    g = pad_chain();
    g.nodes[10] = node("Cast", "castf", "lo", "f4b", attr_i("to", NPK_DT_INT32), NULL);
    expect_error(&g, 0, "(Cast): element 0 of 'lo' (-9223372036854775807) does not fit int32");
    g = pad_chain();
    g.nodes[10] = node("Cast", "castf", "f4", "f4b", attr_i("to", NPK_DT_FLOAT16), NULL);
    expect_error(&g, 0, "(Cast): casts float32 to element type 10");
}

static void expect_error(const graph *g, long keep, const char *want)
{
    char err[512] = "";
    npk_model *m = roundtrip(g, keep, err, sizeof err);
    NPK_REPORT(m == NULL, "expected an error containing \"%s\", the model was read\n", want);
    NPK_CHECK_CONTAINS(err, want);
    NPK_CHECK_CONTAINS(err, "npk_onnx_");   /* the file is named */
    npk_model_free(m);
}

/* An operator outside the list (node 1). */
static graph bad_op(void)
{
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(2, 3));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(2, 3));
    ADD_NODE(g, node("Relu", "ok", "x", "h", NULL));
    ADD_NODE(g, node("Einsum", "attn0", "h", "y", NULL));
    return g;
}

/* A Gemm whose K differs: x [1,784], W [100,10]. */
static graph bad_gemm(void)
{
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(1, 784));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(1, 10));
    ADD_INIT(g, tensor("W", F, DIMS(100, 10), NULL));
    ADD_NODE(g, node("Gemm", "fc", "x,W", "y", NULL));
    return g;
}

/* An absurd input: 2^31 * 2^31 * 2^31 elements. */
static graph bad_huge(void)
{
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(INT64_C(1) << 31, INT64_C(1) << 31, INT64_C(1) << 31));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(1));
    ADD_NODE(g, node("Relu", "r", "x", "y", NULL));
    return g;
}

/* A ModelProto whose graph holds a node whose attribute holds a graph ... `levels` times (each
 * level graph -> node -> attribute: 3 messages), written from the inside out at the end of
 * buf; returns its start. */
static const uint8_t *nested(uint8_t *buf, size_t size, int levels, size_t *len)
{
    uint8_t *p = buf + size;
    static const uint8_t tags[3] = {0x32, 0x2a, 0x0a};   /* Attribute.g, Node.attribute, Graph.node */
    for (int l = 0; l < 3 * levels + 1; l++) {
        size_t n = (size_t)(buf + size - p);
        uint8_t tag = l == 3 * levels ? 0x3a : tags[l % 3];   /* Model.graph outermost */
        if (n >= 128) {
            *--p = (uint8_t)(n >> 7);
            *--p = (uint8_t)(0x80 | (n & 0x7f));
        } else {
            *--p = (uint8_t)n;
        }
        *--p = tag;
    }
    *len = (size_t)(buf + size - p);
    return p;
}

/* QLinearConv, and a per-channel DequantizeLinear of a weight (axis 0). */
static void test_qconv(void)
{
    char err[512];
    graph g = {0};
    g.ins[g.n_ins++] = vinfo("x", NPK_DT_UINT8, DIMS(1, 3, 8, 8));
    g.outs[g.n_outs++] = vinfo("y", NPK_DT_UINT8, DIMS(1, 4, 6, 6));
    ADD_INIT(g, tensor("xs", F, SCALAR, NULL));
    ADD_INIT(g, tensor("xz", NPK_DT_UINT8, SCALAR, NULL));
    ADD_INIT(g, tensor("w", NPK_DT_INT8, DIMS(4, 3, 3, 3), NULL));
    ADD_INIT(g, tensor("ws", F, DIMS(4), NULL));
    ADD_INIT(g, tensor("wz", NPK_DT_INT8, DIMS(4), NULL));
    ADD_INIT(g, tensor("ys", F, SCALAR, NULL));
    ADD_INIT(g, tensor("yz", NPK_DT_UINT8, SCALAR, NULL));
    ADD_INIT(g, tensor("b", NPK_DT_INT32, DIMS(4), NULL));
    ADD_INIT(g, tensor("w2", NPK_DT_INT8, DIMS(4, 3), NULL));
    ADD_NODE(g, node("QLinearConv", "qc", "x,xs,xz,w,ws,wz,ys,yz,b", "y", NULL));
    ADD_NODE(g, node("DequantizeLinear", "dq", "w2,ws,wz", "w2f", attr_i("axis", 0), NULL));
    npk_model *m = roundtrip(&g, 0, err, sizeof err);
    NPK_CHECK(m != NULL);
    /* 8 - 3 + 1 = 6; uint8 as y_zero_point; 4*6*6 outputs * 3*3*3 = 3888 MACs; constants
     * 1 + 1 + 108 + 4 + 4 + 1 + 1 + 4 = 124 */
    check_val(m, "y", NPK_DT_UINT8, DIMS(1, 4, 6, 6));
    check_node(m, "qc", NPK_OP_QLINEAR_CONV, 124, 3888);
    check_val(m, "w2f", F, DIMS(4, 3));
    npk_model_free(m);

    /* the same DequantizeLinear along axis 1 (length 3): a scale of 4 does not fit */
    g = (graph){0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(1));
    g.outs[g.n_outs++] = vinfo("w2f", F, DIMS(4, 3));
    ADD_INIT(g, tensor("ws", F, DIMS(4), NULL));
    ADD_INIT(g, tensor("w2", NPK_DT_INT8, DIMS(4, 3), NULL));
    ADD_NODE(g, node("DequantizeLinear", "dq", "w2,ws", "w2f", NULL));
    expect_error(&g, 0, "node 0 'dq' (DequantizeLinear): scale 'ws' must be a scalar or 1-D of "
                        "length 3 (axis 1)");
}

static void test_errors(void)
{
    /* a truncated file: the MLP cut inside W1's data */
    graph g = mlp();
    expect_error(&g, 2000, "malformed or truncated");

    /* random bytes (a fixed LCG): whatever they parse as, never a model */
    {
        uint8_t buf[1000];
        uint32_t s = 12345;
        for (size_t i = 0; i < sizeof buf; i++) {
            s = s * 1103515245u + 12345u;
            buf[i] = (uint8_t)(s >> 16);
        }
        char err[512] = "";
        npk_model *m = NULL;
        NPK_CHECK(npk_model_read(buf, sizeof buf, "random.onnx", &m, err, sizeof err) == -1);
        NPK_CHECK(m == NULL);
        NPK_CHECK_CONTAINS(err, "random.onnx: ");
        /* and an empty file: no graph */
        NPK_CHECK(npk_model_read(buf, 0, "empty.onnx", &m, err, sizeof err) == -1);
        NPK_CHECK_CONTAINS(err, "empty.onnx: not an ONNX model: no graph");
    }

    /* nesting: 100 levels of graph -> node -> attribute -> graph are refused before protobuf-c
     * recurses into them; 5 levels (16 messages deep) get past that check to the next error */
    {
        static uint8_t buf[4096];
        size_t len;
        char err[512] = "";
        npk_model *m = NULL;
        const uint8_t *p = nested(buf, sizeof buf, 100, &len);
        NPK_CHECK(npk_model_read(p, len, "deep.onnx", &m, err, sizeof err) == -1);
        NPK_CHECK_CONTAINS(err, "deep.onnx: not a usable ONNX model: messages nested more than 32 deep");
        p = nested(buf, sizeof buf, 5, &len);
        NPK_CHECK(npk_model_read(p, len, "deep5.onnx", &m, err, sizeof err) == -1);
        NPK_CHECK_CONTAINS(err, "deep5.onnx: not an ONNX model: no opset_import");
    }

    g = bad_op();
    expect_error(&g, 0, "node 1 'attn0' (Einsum): operator not supported");

    g = bad_gemm();
    expect_error(&g, 0, "node 0 'fc' (Gemm): inner dimensions differ: A gives K=784, B gives K=100");

    /* an Add of [2,3] and [4] */
    g = (graph){0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(2, 3));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(2, 3));
    ADD_INIT(g, tensor("b", F, DIMS(4), NULL));
    ADD_NODE(g, node("Add", "plus", "x,b", "y", NULL));
    expect_error(&g, 0, "node 0 'plus' (Add): shapes [2,3] ('x') and [4] ('b') do not broadcast");

    /* a Conv whose channels do not match */
    g = (graph){0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(1, 3, 8, 8));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(1, 4, 6, 6));
    ADD_INIT(g, tensor("W", F, DIMS(4, 2, 3, 3), NULL));
    ADD_NODE(g, node("Conv", "conv", "x,W", "y", NULL));
    expect_error(&g, 0, "node 0 'conv' (Conv): channels do not match: X has 3");

    /* Reshape into the wrong element count: 6 elements into [4] */
    g = (graph){0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(2, 3));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(4));
    ADD_INIT(g, tensor("s", NPK_DT_INT64, DIMS(1), (int64_t[]){4}));
    ADD_NODE(g, node("Reshape", "rs", "x,s", "y", NULL));
    expect_error(&g, 0, "node 0 'rs' (Reshape): cannot reshape 'x' [2,3] (6 elements) into 4");

    g = bad_huge();
    expect_error(&g, 0, "'x' is too large: more than 2^40 elements");

    /* a 0 does not excuse the rest: [0, 2^31, 2^31] has no elements but is still refused */
    g = (graph){0};
    g.ins[g.n_ins++] = vinfo("z", F, DIMS(0, INT64_C(1) << 31, INT64_C(1) << 31));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(1));
    ADD_NODE(g, node("Flatten", "f", "z", "y", NULL));
    expect_error(&g, 0, "'z' is too large: more than 2^40 elements");

    /* a MatMul of inputs of 2^40 elements each, [2^20, 2^20, 1] x [1, 2^40]: its MACs,
     * 2^20 * 2^20 * 2^40 * 1 = 2^80, do not fit 64 bits */
    g = (graph){0};
    g.ins[g.n_ins++] = vinfo("a", F, DIMS(INT64_C(1) << 20, INT64_C(1) << 20, 1));
    g.ins[g.n_ins++] = vinfo("b", F, DIMS(1, INT64_C(1) << 40));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(1));
    ADD_NODE(g, node("MatMul", "big", "a,b", "y", NULL));
    expect_error(&g, 0, "node 0 'big' (MatMul): its MAC count overflows 64 bits");

    /* a graph output declared [1,10] that computes [1,12] */
    g = (graph){0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(1, 12));
    g.outs[g.n_outs++] = vinfo("x2", F, DIMS(1, 10));
    ADD_NODE(g, node("Relu", "r", "x", "x2", NULL));
    expect_error(&g, 0, "graph output 'x2' is declared with another shape than the 2-D one");

    /* a cycle, and an input defined nowhere */
    g = (graph){0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(2));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(2));
    ADD_NODE(g, node("Add", "p", "x,q", "p_out", NULL));
    ADD_NODE(g, node("Relu", "q", "p_out", "q", NULL));
    ADD_NODE(g, node("Relu", "last", "p_out", "y", NULL));
    expect_error(&g, 0, "node 0 'p' (Add): the graph has a cycle through it");
    g = (graph){0};
    g.ins[g.n_ins++] = vinfo("x", F, DIMS(2));
    g.outs[g.n_outs++] = vinfo("y", F, DIMS(2));
    ADD_NODE(g, node("Add", "p", "x,ghost", "y", NULL));
    expect_error(&g, 0, "node 0 'p' (Add): input 'ghost' is defined nowhere");
}

/* --write DIR: the files committed as examples/models/lenet.onnx, tests/bad/inputs/onnx_* and
 * tests/fuzz/corpus/onnx_model/seed_* (test model_onnx_files checks that they are what this
 * writes). */
static int write_files(const char *dir)
{
    static const struct {
        const char *name;
        graph (*build)(void);
        long keep;
    } files[] = {
        {"lenet.onnx", cnn, 0},
        {"onnx_truncated.onnx", mlp, 2000},
        {"onnx_unsupported_op.onnx", bad_op, 0},
        {"onnx_shape_mismatch.onnx", bad_gemm, 0},
        {"onnx_huge_dims.onnx", bad_huge, 0},
        {"seed_broadcast.onnx", bcast, 0},
        {"seed_qlinear.onnx", qlin, 0},
        {"seed_folding.onnx", folding, 0},
    };
    char path[512];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        graph g = files[i].build();
        snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        write_model(&g, files[i].keep, path);
        pool_free();
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0)
        return write_files(argv[2]);
    test_mlp();
    test_cnn();
    test_broadcast();
    test_qlinear();
    test_fold();
    test_shape_chain();
    test_pad_chain();
    test_transformer_ops();
    test_qconv();
    test_errors();
    return npk_test_done();
}
