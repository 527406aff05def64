/* Trained parameters written back into a copy of the ONNX file (onnx_write.h). */
#include "model/onnx_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "onnx.pb-c.h"

/* The float32 initializer named `name`, of `count` elements, or NULL with the reason. */
static Onnx__TensorProto *find_init(Onnx__GraphProto *g, const char *name, size_t count,
                                    const char *what, const npk_plan *p, int node, char *err,
                                    size_t err_size)
{
    const npk_node *n = &p->model->nodes[node];
    for (size_t i = 0; i < g->n_initializer; i++) {
        Onnx__TensorProto *t = g->initializer[i];
        if (!t->name || strcmp(t->name, name))
            continue;
        size_t elems = 1;
        for (size_t k = 0; k < t->n_dims; k++)
            elems *= (size_t)t->dims[k];
        if (t->data_type != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT || elems != count) {
            snprintf(err, err_size, "node %d '%s' (%s): its %s '%s' is not a float32 tensor of "
                     "%zu values (one per parameter), so the trained values cannot be written "
                     "into it", node, n->name, npk_op_name(n->op), what, name, count);
            return NULL;
        }
        if (!(t->has_raw_data && t->raw_data.len == 4 * count) && t->n_float_data != count) {
            snprintf(err, err_size, "node %d '%s' (%s): its %s '%s' keeps its data neither in "
                     "raw_data nor in float_data", node, n->name, npk_op_name(n->op), what, name);
            return NULL;
        }
        return t;
    }
    snprintf(err, err_size, "node %d '%s' (%s): its %s '%s' is not an initializer of the file "
             "(a constant computed by other nodes), so the trained values cannot be written "
             "back", node, n->name, npk_op_name(n->op), what, name);
    return NULL;
}

static void put_f32(Onnx__TensorProto *t, const float *v, size_t count)
{
    if (t->has_raw_data && t->raw_data.len == 4 * count) {
        for (size_t i = 0; i < count; i++) { /* little-endian, as onnx.proto says */
            uint32_t u;
            memcpy(&u, &v[i], 4);
            for (int k = 0; k < 4; k++)
                t->raw_data.data[4 * i + (size_t)k] = (uint8_t)(u >> (8 * k));
        }
    } else {
        memcpy(t->float_data, v, count * sizeof *v);
    }
}

static double attr_or(const npk_node *n, const char *name, double dflt)
{
    const npk_attr *a = npk_node_attr(n, name);
    if (!a)
        return dflt;
    return a->kind == NPK_ATTR_FLOAT ? (double)a->f : (double)a->i;
}

/* The value holding layer li's bias: Gemm's C, or the constant operand of the Add after it. */
static int bias_value(const npk_plan *p, const npk_layer *l)
{
    const npk_model *m = p->model;
    const npk_node *n = &m->nodes[l->node];
    if (n->op == NPK_OP_GEMM && n->n_in > 2 && n->in[2] >= 0)
        return n->in[2];
    for (size_t i = 0; i < m->n_nodes; i++) {
        const npk_node *a = &m->nodes[i];
        if (a->op != NPK_OP_ADD || a->n_in != 2)
            continue;
        for (int k = 0; k < 2; k++)
            if (a->in[k] == n->out[0] && a->in[1 - k] >= 0 && m->values[a->in[1 - k]].data)
                return a->in[1 - k];
    }
    return -1;
}

int npk_onnx_write_dense(const char *in_path, const char *out_path, const npk_plan *p,
                         float *const *w, float *const *b, char *err, size_t err_size)
{
    uint8_t *buf = NULL;
    size_t size = 0;
    if (npk_file_read(in_path, 0, &buf, &size, err, err_size) != NPK_OK)
        return -1;
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, size, buf);
    free(buf);
    int rc = -1;
    float *tmp = NULL;
    uint8_t *out = NULL;
    if (!mp || !mp->graph) {
        snprintf(err, err_size, "%s: not an ONNX model", in_path);
        goto done;
    }
    for (size_t li = 0; li < p->n_layers; li++) {
        const npk_layer *l = &p->layers[li];
        if (l->kind != NPK_LAYER_DENSE)
            continue;
        const npk_node *n = &p->model->nodes[l->node];
        const size_t nin = (size_t)l->n_in, nout = (size_t)l->n_out;
        int gemm = n->op == NPK_OP_GEMM;
        int trans_b = gemm && attr_or(n, "transB", 0) != 0;
        double alpha = gemm ? attr_or(n, "alpha", 1.0) : 1.0;
        double beta = gemm ? attr_or(n, "beta", 1.0) : 1.0;
        free(tmp);
        tmp = malloc((nin * nout + 1) * sizeof *tmp);
        if (!tmp) {
            snprintf(err, err_size, "out of memory");
            goto done;
        }
        Onnx__TensorProto *tw = find_init(mp->graph, p->model->values[n->in[1]].name,
                                          nin * nout, "weight", p, l->node, err, err_size);
        if (!tw)
            goto done;
        for (size_t o = 0; o < nout; o++)
            for (size_t i = 0; i < nin; i++)
                tmp[trans_b ? o * nin + i : i * nout + o] = (float)(w[li][o * nin + i] / alpha);
        put_f32(tw, tmp, nin * nout);
        int bv = bias_value(p, l);
        if (bv < 0) {
            for (size_t o = 0; o < nout; o++)
                if (b[li][o] != 0) {
                    snprintf(err, err_size, "node %d '%s' (%s) has no bias, but training gave "
                             "it one", l->node, n->name, npk_op_name(n->op));
                    goto done;
                }
            continue;
        }
        int via_c = gemm && n->n_in > 2 && n->in[2] == bv;
        Onnx__TensorProto *tb = find_init(mp->graph, p->model->values[bv].name, nout, "bias",
                                          p, l->node, err, err_size);
        if (!tb)
            goto done;
        for (size_t o = 0; o < nout; o++)
            tmp[o] = (float)(via_c ? b[li][o] / beta : b[li][o]);
        put_f32(tb, tmp, nout);
    }
    size_t n = onnx__model_proto__get_packed_size(mp);
    out = malloc(n ? n : 1);
    if (!out) {
        snprintf(err, err_size, "out of memory");
        goto done;
    }
    onnx__model_proto__pack(mp, out);
    FILE *f = fopen(out_path, "wb");
    if (!f || fwrite(out, 1, n, f) != n) {
        snprintf(err, err_size, "%s: cannot write", out_path);
        if (f)
            fclose(f);
        goto done;
    }
    if (fclose(f) != 0) {
        snprintf(err, err_size, "%s: cannot write", out_path);
        goto done;
    }
    rc = 0;
done:
    free(tmp);
    free(out);
    if (mp)
        onnx__model_proto__free_unpacked(mp, NULL);
    return rc;
}
