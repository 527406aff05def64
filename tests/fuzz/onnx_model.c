/* Fuzz the ONNX reader (src/model, `npukit model-info`): read the bytes as a model; on success
 * check the IR's invariants (shapes within bounds and consistent with their element counts,
 * indices in range, nodes in topological order, constants as large as their shapes say) and
 * build its plan of layers (`npukit run-model`), running and calibrating it when cheap, and
 * open every target's lowering on it as `npukit model-info` does (one inference when cheaper
 * still); on failure check the message. */
#include "fuzz.h"
#include "model/lower.h"
#include "model/model.h"
#include "model/plan.h"

/* Every lowering, with its default and its alternative settings, opened on the plan (refused
 * with a message, or a session); when `infer`, one inference of x. */
static void check_lowerings(const npk_plan *p, const float *x, int infer)
{
    char err[1024];
    size_t nout = p->tensors[p->n_tensors - 1].elems;
    float *y = calloc(nout ? nout : 1, sizeof *y);
    for (size_t i = 0; y && i < npk_lower_count(); i++) {
        const npk_lower_target *t = npk_lower_get(i);
        const char *settings[2] = {"", t->alt_settings};
        for (int k = 0; k < 2 && settings[k]; k++) {
            void *s = NULL;
            if (t->open(p, settings[k], &s, err, sizeof err) != 0) {
                fuzz_check_str(err, sizeof err, "lowering open message");
                continue;
            }
            npk_lower_stats st;
            if (infer && t->infer(s, x, y, &st, err, sizeof err) != 0)
                fuzz_check_str(err, sizeof err, "lowering infer message");
            t->close(s);
        }
    }
    free(y);
}

static void check_model(const npk_model *m)
{
    for (size_t i = 0; i < m->n_values; i++) {
        const npk_value *v = &m->values[i];
        uint64_t elems = 1;
        if (v->rank < 0 || v->rank > NPK_MODEL_MAX_RANK)
            fuzz_fail("npk_model: rank out of range", v->name);
        for (int d = 0; d < v->rank; d++) {
            if (v->dims[d] < 0)
                fuzz_fail("npk_model: negative dimension", v->name);
            elems *= (uint64_t)v->dims[d];   /* each value is at most 2^40 elements */
        }
        if (elems != v->elems || elems > NPK_MODEL_MAX_ELEMS)
            fuzz_fail("npk_model: element count differs from the shape", v->name);
        if (v->data && v->elems) {
            /* the whole constant is readable (ASan checks the last byte) */
            volatile uint8_t last = ((const uint8_t *)v->data)[v->elems * npk_dtype_size(v->dtype) - 1];
            (void)last;
        }
        if (v->producer >= (int)m->n_nodes || v->producer < -1)
            fuzz_fail("npk_model: producer out of range", v->name);
    }
    for (size_t i = 0; i < m->n_nodes; i++) {
        const npk_node *n = &m->nodes[i];
        for (int k = 0; k < n->n_in; k++) {
            if (n->in[k] < -1 || n->in[k] >= (int)m->n_values)
                fuzz_fail("npk_model: input index out of range", n->name);
            if (n->in[k] >= 0 && m->values[n->in[k]].producer >= (int)i)
                fuzz_fail("npk_model: a node reads a value computed later", n->name);
        }
        for (int k = 0; k < n->n_out; k++)
            if (n->out[k] < -1 || n->out[k] >= (int)m->n_values ||
                (n->out[k] >= 0 && m->values[n->out[k]].producer != (int)i))
                fuzz_fail("npk_model: output not produced by its node", n->name);
        if (!npk_op_name(n->op) || strcmp(npk_op_name(n->op), "?") == 0)
            fuzz_fail("npk_model: unknown op", n->name);
    }
    for (size_t i = 0; i < m->n_inputs; i++)
        if (m->inputs[i] < 0 || m->inputs[i] >= (int)m->n_values)
            fuzz_fail("npk_model: graph input out of range", NULL);
    for (size_t i = 0; i < m->n_outputs; i++)
        if (m->outputs[i] < 0 || m->outputs[i] >= (int)m->n_values)
            fuzz_fail("npk_model: graph output out of range", NULL);
}

/* The plan of a model that read: built or refused with a message; when built and cheap to run
 * (at most 10^6 window steps), run in float64 and calibrated on an input of 0.5s. */
static void check_plan(const npk_model *m)
{
    char err[1024];
    npk_plan *p;
    if (npk_plan_build(m, &p, err, sizeof err) != 0) {
        fuzz_check_str(err, sizeof err, "npk_plan_build message");
        return;
    }
    uint64_t cost = 0;
    for (size_t i = 0; i < p->n_layers; i++) {
        const npk_layer *l = &p->layers[i];
        uint64_t per = (uint64_t)l->kh * (uint64_t)l->kw;
        if (l->kind == NPK_LAYER_CONV || l->kind == NPK_LAYER_DENSE ||
            l->kind == NPK_LAYER_MATMUL)
            per *= (uint64_t)l->n_in;
        cost += p->tensors[l->in].elems + per * p->tensors[l->out].elems;
    }
    if (cost <= 1000000) {
        size_t nin = p->tensors[0].elems, nout = p->tensors[p->n_tensors - 1].elems;
        double *x = calloc(nin ? nin : 1, sizeof *x), *y = calloc(nout ? nout : 1, sizeof *y);
        float *xf = calloc(nin ? nin : 1, sizeof *xf);
        if (x && y && xf) {
            for (size_t i = 0; i < nin; i++)
                xf[i] = 0.5f;
            if (npk_plan_run_f64(p, x, y, 0) != 0)
                fuzz_fail("npk_plan_run_f64 failed on a built plan", NULL);
            if (npk_plan_calibrate(p, xf, 1, err, sizeof err) != 0)
                fuzz_check_str(err, sizeof err, "npk_plan_calibrate message");
            check_lowerings(p, xf, cost <= 20000);
        }
        free(x);
        free(y);
        free(xf);
    }
    npk_plan_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return -1;
    char err[1024];
    npk_model *m;
    if (npk_model_read(data, size, "fuzz.onnx", &m, err, sizeof err) == 0) {
        check_model(m);
        check_plan(m);
        npk_model_free(m);
    } else {
        fuzz_check_str(err, sizeof err, "npk_model_read message");
        if (m)
            fuzz_fail("npk_model_read: a model returned with an error", err);
    }
    return 0;
}
