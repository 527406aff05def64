/* `npukit model-info`: read an ONNX model (src/model) and print its graph: inputs, outputs,
 * each node with its op, operand shapes and element types, parameters and MACs, and totals;
 * then the plan's layers (src/model/plan.h) and which targets' lowerings take it, or why not.
 * Without ONNX support in the build it says which packages are missing. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#ifdef NPK_HAVE_ONNX
#include "model/lower.h"
#include "model/model.h"
#include "model/plan.h"
#endif

static void help(void)
{
    printf("usage: npukit model-info [--no-targets] MODEL.onnx\n"
           "\n"
           "Read an ONNX model and print its graph in topological order: the inputs and\n"
           "outputs with element types and shapes, then each node with its operator, its\n"
           "operands (constants marked), its outputs, its parameters (elements of constant\n"
           "inputs) and its multiply-accumulates, and the totals. Shapes are inferred for the\n"
           "supported operators (docs/models.md); symbolic dimensions are taken as 1.\n"
           "Constant subgraphs (Constant, and Reshape, Flatten, Transpose or Identity of\n"
           "constants) are folded and shown as 'folded'.\n"
           "\n"
           "Then the plan: the layers the model is grouped into (run-model, compile and the\n"
           "lowerings work on layers), each with the tensors it reads and writes (t0 is the\n"
           "model's input) and their shapes without the batch; and for every target whether\n"
           "its lowering takes the plan (int8 targets after calibration: run-model and\n"
           "compile need --calib), or the layer it refuses and why. The targets decide by\n"
           "compiling the model: for a large model that takes seconds and several times the\n"
           "model's size in memory.\n"
           "\n"
           "options:\n"
           "      --no-targets            print the graph and the plan only\n"
           "  -h, --help                  this help\n"
           "\n"
           "exit status: 0 success, 1 the model cannot be read (malformed, unsupported\n"
           "operator, shape mismatch; the message names the node) or ONNX support is not\n"
           "built in, 2 usage error\n");
}

enum { O_HELP = 1, O_NO_TARGETS };

static const npk_opt_def defs[] = {
    {O_HELP, 'h', "help", OPT_FLAG},
    {O_NO_TARGETS, 0, "no-targets", OPT_FLAG},
    {0, 0, NULL, OPT_FLAG},
};

#ifdef NPK_HAVE_ONNX
static void print_shape(const npk_value *v)
{
    printf("%s [", npk_dtype_name(v->dtype));
    for (int i = 0; i < v->rank; i++)
        printf("%s%lld", i ? "," : "", (long long)v->dims[i]);
    printf("]");
}

static void print_values(const char *title, const npk_model *m, const int *idx, size_t n)
{
    printf("%s:\n", title);
    for (size_t i = 0; i < n; i++) {
        const npk_value *v = &m->values[idx[i]];
        printf("  %-20s ", v->name);
        print_shape(v);
        printf("%s\n", v->sym_batch ? "  (symbolic dimensions taken as 1)" : "");
    }
}

static void print_model(const char *path, const npk_model *m)
{
    printf("model: %s (producer '%s', IR version %lld, opset %lld)\n", path, m->producer,
           (long long)m->ir_version, (long long)m->opset);
    print_values("inputs", m, m->inputs, m->n_inputs);
    print_values("outputs", m, m->outputs, m->n_outputs);
    printf("nodes (topological order):\n");
    uint64_t params = 0, macs = 0;
    size_t folded = 0;
    for (size_t i = 0; i < m->n_nodes; i++) {
        const npk_node *n = &m->nodes[i];
        printf("  %3zu %-18s %-20s", i, npk_op_name(n->op), n->name[0] ? n->name : "-");
        if (n->folded) {
            printf(" folded");
            folded++;
        } else {
            printf(" params %-10llu MACs %llu", (unsigned long long)n->params,
                   (unsigned long long)n->macs);
            params += n->params;   /* no wrap: each at most 9 * 2^40, MACs checked per node */
            macs = macs + n->macs < macs ? UINT64_MAX : macs + n->macs;
        }
        printf("\n");
        for (int k = 0; k < n->n_in; k++) {
            if (n->in[k] < 0)
                continue;
            const npk_value *v = &m->values[n->in[k]];
            printf("        in  %-20s ", v->name);
            print_shape(v);
            printf("%s\n", v->data ? " const" : "");
        }
        for (int k = 0; k < n->n_out; k++) {
            if (n->out[k] < 0)
                continue;
            printf("        out %-20s ", m->values[n->out[k]].name);
            print_shape(&m->values[n->out[k]]);
            printf("\n");
        }
    }
    printf("total: %zu nodes (%zu folded), %llu parameters, %llu MACs\n", m->n_nodes, folded,
           (unsigned long long)params, (unsigned long long)macs);
}

/* "[8,32]" into buf */
static const char *tensor_shape(const npk_ptensor *t, char *buf, size_t size)
{
    size_t k = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < t->rank && k < size; i++)
        k += (size_t)snprintf(buf + k, size - k, "%s%d", i ? "," : "", t->dims[i]);
    if (k < size)
        snprintf(buf + k, size - k, "]");
    return buf;
}

/* Whether target t with `settings` takes the plan: 0, or -1 with the reason in err. */
static int lowers(const npk_lower_target *t, const char *settings, const npk_plan *p, char *err,
                  size_t err_size)
{
    void *s = NULL;
    if (t->open(p, settings, &s, err, err_size) != 0)
        return -1;
    t->close(s);
    return 0;
}

static void print_plan(const npk_model *m, int targets)
{
    npk_plan *p;
    char err[1024], a[64], b[64];
    if (npk_plan_build(m, &p, err, sizeof err) != 0) {
        printf("plan: none, so no target can run it: %s\n", err);
        return;
    }
    printf("plan: %zu layers; t0 is the model's input, every other tensor is written by one "
           "layer\n", p->n_layers);
    for (size_t i = 0; i < p->n_layers; i++) {
        const npk_layer *l = &p->layers[i];
        char io[48];
        if (l->in2 >= 0)
            snprintf(io, sizeof io, "t%d, t%d -> t%d", l->in, l->in2, l->out);
        else
            snprintf(io, sizeof io, "t%d -> t%d", l->in, l->out);
        printf("  %3zu %-9s %-5s %-24s %-18s %s -> %s\n", i, npk_layer_kind_name(l->kind),
               l->act == NPK_ACT_NONE ? "" : npk_act_name(l->act),
               l->name && l->name[0] ? l->name : "-", io,
               tensor_shape(&p->tensors[l->in], a, sizeof a),
               tensor_shape(&p->tensors[l->out], b, sizeof b));
    }
    if (!targets) {
        npk_plan_free(p);
        return;
    }
    /* each lowering as run-model would open it; an int8 refusal for want of scales is tried
     * again on a copy of the plan calibrated on one input of zeros (the structure is what
     * counts here: run-model and compile calibrate on the user's --calib inputs) */
    npk_plan *cal = NULL;
    int cal_tried = p->calibrated;
    printf("targets (run-model -t, compile -t):\n  %-22s yes (the float64 reference run)\n",
           "host");
    for (size_t i = 0; i < npk_lower_count(); i++) {
        const npk_lower_target *t = npk_lower_get(i);
        const char *variants[2] = {"", t->alt_settings};
        for (int v = 0; v < 2 && variants[v]; v++) {
            char name[64];
            snprintf(name, sizeof name, "%s%s%s", t->name, variants[v][0] ? ":" : "",
                     variants[v]);
            if (lowers(t, variants[v], p, err, sizeof err) == 0) {
                printf("  %-22s yes\n", name);
                continue;
            }
            if (!cal_tried) {
                cal_tried = 1;
                float *zero = calloc(p->tensors[0].elems, sizeof *zero);
                char e2[256];
                if (zero && npk_plan_build(m, &cal, e2, sizeof e2) == 0 &&
                    npk_plan_calibrate(cal, zero, 1, e2, sizeof e2) != 0) {
                    npk_plan_free(cal);
                    cal = NULL;
                }
                free(zero);
            }
            char err2[1024];
            if (cal && lowers(t, variants[v], cal, err2, sizeof err2) == 0)
                printf("  %-22s yes, int8 with calibration inputs (--calib X.npy)\n", name);
            else
                printf("  %-22s no: %s\n", name, cal ? err2 : err);
        }
    }
    npk_plan_free(cal);
    npk_plan_free(p);
}
#endif

int npk_cmd_model_info(int argc, char **argv)
{
    const char *prog = "npukit model-info", *path = NULL, *v;
    int id, targets = 1;
    npk_opt_state os = {argc, argv, 1, prog, 0};
    while ((id = npk_opt_next(&os, defs, &v)) != -1) {
        switch (id) {
        case -2: return NPK_EXIT_USAGE;
        case 0:
            if (path)
                return npk_usage_error(prog, "unexpected argument '%s'", v);
            path = v;
            break;
        case O_HELP: help(); return NPK_EXIT_OK;
        case O_NO_TARGETS: targets = 0; break;
        }
    }
    if (!path)
        return npk_usage_error(prog, "no model file given");
#ifdef NPK_HAVE_ONNX
    npk_model *m;
    char err[1024];
    if (npk_model_read_file(path, &m, err, sizeof err) != 0) {
        fprintf(stderr, "npukit: %s\n", err);
        return NPK_EXIT_INPUT;
    }
    print_model(path, m);
    print_plan(m, targets);
    npk_model_free(m);
    return NPK_EXIT_OK;
#else
    fprintf(stderr, "npukit: %s: this npukit was built without ONNX support; install the Debian "
                    "packages libprotobuf-c-dev protobuf-c-compiler libonnx-dev and rebuild\n",
            path);
    return NPK_EXIT_INPUT;
#endif
}
