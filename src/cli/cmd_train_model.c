/* `npukit train-model`: training steps of an ONNX MLP on tinytpu (docs/models.md, "Training
 * on tinytpu"). Each step is one program of the schedule compiler (src/targets/tinytpu/train.h)
 * run on the simulator and self-checked word for word; the trained weights can be written
 * back into a copy of the model (src/model/onnx_write.h). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#ifdef NPK_HAVE_ONNX
#include "model/npy.h"
#include "model/onnx_write.h"
#include "model/plan.h"
#include "targets/tinytpu/train.h"
#endif

static void train_help(void)
{
    printf("usage: npukit train-model -t tinytpu[:SETTINGS] --input X.npy (--labels L.npy |\n"
           "                          --expected Y.npy) [options] MODEL.onnx\n"
           "\n"
           "Train an ONNX MLP (Gemm, or MatMul with a bias Add; ReLU, LeakyRelu or no\n"
           "activation) on the simulated tinytpu: every step is one program of the tinytpu\n"
           "schedule compiler with the batch and the current Q8.8 weights in its host load (or\n"
           "several, for a two-layer net too large for the unified buffer), run on the\n"
           "simulator and checked word for word against the compiler's prediction. The\n"
           "loss is the machine's: mean squared error between the outputs and the targets\n"
           "(one-hot rows for --labels). Prints per step the loss, the cycles and instructions\n"
           "and the host time.\n"
           "\n"
           "options:\n"
           "  -t, --target T[:SETTINGS]   tinytpu, with lanes=N (default 16) and ub_words=S\n"
           "      --input FILE            inputs (.npy), one after another, as for run-model\n"
           "      --labels FILE           class labels (.npy, integers), one per input: the\n"
           "                              targets are one-hot rows (1 at the label, else 0)\n"
           "      --expected FILE         the wanted outputs (.npy, floats), one row per input\n"
           "      --scale X               multiply every input value by X (1/255 for pixels)\n"
           "      --lr X                  learning rate (default 0.0625; Q8.8, at least 1/256)\n"
           "      --steps N               training steps (default 1)\n"
           "      --batch N               inputs per step (default 8, at most the inputs); step\n"
           "                              s takes inputs s*N .. s*N+N-1, wrapping around\n"
           "      --limit N               use only the first N inputs\n"
           "      --output-model FILE     write the model with the trained weights (.onnx)\n"
           "  -h, --help                  this help\n"
           "\n"
           "exit status: 0 success, 1 the model, an input or the target cannot take the job\n"
           "(the message names the node, the operator and the reason) or an output cannot be\n"
           "written, 2 usage error\n");
}

enum { T_TARGET = 1, T_INPUT, T_LABELS, T_EXPECTED, T_SCALE, T_LR, T_STEPS, T_BATCH, T_LIMIT,
       T_OUT, T_HELP };

static const npk_opt_def train_defs[] = {
    {T_TARGET, 't', "target", OPT_VALUE},  {T_INPUT, 0, "input", OPT_VALUE},
    {T_LABELS, 0, "labels", OPT_VALUE},    {T_EXPECTED, 0, "expected", OPT_VALUE},
    {T_SCALE, 0, "scale", OPT_VALUE},      {T_LR, 0, "lr", OPT_VALUE},
    {T_STEPS, 0, "steps", OPT_VALUE},      {T_BATCH, 0, "batch", OPT_VALUE},
    {T_LIMIT, 0, "limit", OPT_VALUE},      {T_OUT, 0, "output-model", OPT_VALUE},
    {T_HELP, 'h', "help", OPT_FLAG},       {0, 0, NULL, OPT_FLAG},
};

static int count_arg(const char *prog, const char *opt, const char *v, unsigned long max,
                     unsigned long *out)
{
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    if (end == v || *end || n == 0 || v[0] == '-' || n > max)
        return npk_usage_error(prog, "%s takes a count from 1 to %lu, not '%s'", opt, max, v);
    *out = (unsigned long)n;
    return 0;
}

#ifdef NPK_HAVE_ONNX
static double now_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Inputs (count x nin) and targets (count x nout) from the files; 0 or -1 (said). */
static int read_data(const char *input, const char *labels, const char *expected, double scale,
                     size_t limit, size_t nin, size_t nout, npk_npy_f32 *x, float **y,
                     size_t *count)
{
    char err[1024];
    npk_npy_f32 t = {0};
    *y = NULL;
    if (npk_npy_read_f32(input, x, err, sizeof err) != 0) {
        fprintf(stderr, "npukit: %s\n", err);
        return -1;
    }
    if (x->count == 0 || x->count % nin) {
        fprintf(stderr, "npukit: %s: %zu values are not a whole number of inputs of %zu\n",
                input, x->count, nin);
        return -1;
    }
    *count = x->count / nin;
    if (limit && *count > limit)
        *count = limit;
    for (size_t i = 0; i < *count * nin; i++) {
        x->data[i] = (float)(x->data[i] * scale);
        if (!isfinite(x->data[i])) {
            fprintf(stderr, "npukit: %s: input %zu, element %zu is not a finite number\n",
                    input, i / nin, i % nin);
            return -1;
        }
    }
    const char *tp = labels ? labels : expected;
    if (npk_npy_read_f32(tp, &t, err, sizeof err) != 0) {
        fprintf(stderr, "npukit: %s\n", err);
        return -1;
    }
    int rc = -1;
    size_t per = labels ? 1 : nout;
    if (t.count < *count * per) {
        fprintf(stderr, "npukit: %s: %zu values for %zu inputs (%zu per input%s)\n", tp, t.count,
                *count, per, labels ? ": a class label" : ": the model's outputs");
        goto out;
    }
    *y = calloc(*count * nout, sizeof **y);
    if (!*y) {
        fprintf(stderr, "npukit: out of memory\n");
        goto out;
    }
    for (size_t k = 0; k < *count; k++) {
        if (!labels) {
            for (size_t j = 0; j < nout; j++) {
                float v = t.data[k * nout + j];
                if (!isfinite(v)) {
                    fprintf(stderr, "npukit: %s: row %zu, element %zu is not a finite number\n",
                            tp, k, j);
                    goto out;
                }
                (*y)[k * nout + j] = v;
            }
            continue;
        }
        float c = t.data[k];
        if (!(c >= 0) || c != floorf(c) || c >= (float)nout) {
            fprintf(stderr, "npukit: %s: label %zu is %g: a class from 0 to %zu (the model has "
                    "%zu outputs)\n", tp, k, (double)c, nout - 1, nout);
            goto out;
        }
        (*y)[k * nout + (size_t)c] = 1.0f;
    }
    rc = 0;
out:
    npk_npy_free_f32(&t);
    if (rc) {
        free(*y);
        *y = NULL;
    }
    return rc;
}

static int train(const char *path, const char *settings, const char *input, const char *labels,
                 const char *expected, double scale, double lr, unsigned long steps,
                 unsigned long batch, size_t limit, const char *out_model)
{
    char err[1024];
    npk_model *m = NULL;
    npk_plan *p = NULL;
    tt_trainer *tr = NULL;
    npk_npy_f32 x = {0};
    float *y = NULL, *xb = NULL, *yb = NULL, **w = NULL, **b = NULL;
    int rc = NPK_EXIT_INPUT;
    if (npk_model_read_file(path, &m, err, sizeof err) != 0) {
        fprintf(stderr, "npukit: %s\n", err);
        return NPK_EXIT_INPUT;
    }
    if (npk_plan_build(m, &p, err, sizeof err) != 0) {
        fprintf(stderr, "npukit: %s: %s\n", path, err);
        goto done;
    }
    size_t nin = p->tensors[0].elems, nout = p->tensors[p->n_tensors - 1].elems, count;
    if (read_data(input, labels, expected, scale, limit, nin, nout, &x, &y, &count) != 0)
        goto done;
    if (!batch)
        batch = count < 8 ? count : 8;
    if (tt_train_open(p, settings, lr, (unsigned)batch, &tr, err, sizeof err) != 0) {
        fprintf(stderr, "npukit: %s: tinytpu: %s\n", path, err);
        goto done;
    }
    xb = malloc(batch * nin * sizeof *xb);
    yb = malloc(batch * nout * sizeof *yb);
    if (!xb || !yb) {
        fprintf(stderr, "npukit: out of memory\n");
        goto done;
    }
    printf("model: %s, %zu layers; target: tinytpu%s%s; %zu inputs, batch %lu, lr %g (Q8.8), "
           "%u weights and biases saturated in Q8.8\n", path, p->n_layers, settings[0] ? ":" : "",
           settings, count, batch, tt_train_lr(tr), tt_train_saturated(tr));
    double first = 0, last = 0, total_host = 0;
    size_t total_cycles = 0;
    for (unsigned long s = 0; s < steps; s++) {
        size_t k0 = (size_t)(s * batch % count);
        for (size_t r = 0; r < batch; r++) {
            size_t k = (k0 + r) % count;
            memcpy(xb + r * nin, x.data + k * nin, nin * sizeof *xb);
            memcpy(yb + r * nout, y + k * nout, nout * sizeof *yb);
        }
        tt_train_stats st;
        double t0 = now_cpu();
        int final = s + 1 == steps;
        if (tt_train_step(tr, xb, yb, final, &st, err, sizeof err) != 0) {
            fprintf(stderr, "npukit: %s: step %lu: %s\n", path, s + 1, err);
            goto done;
        }
        double host = now_cpu() - t0;
        total_host += host, total_cycles += st.cycles;
        if (s == 0)
            first = st.loss;
        last = st.loss_after;
        unsigned np = tt_train_programs(tr);
        printf("step %lu: inputs %zu..%zu, loss %.6f, %zu cycles (reset + host load %zu), %zu "
               "instructions, %u UB words%s, host %.3f s\n", s + 1, k0, (k0 + batch - 1) % count,
               st.loss, st.cycles, st.load_cycles, st.cycles, st.words,
               np > 1 ? " (the largest of its programs)" : "", host);
        if (s == 0 && np > 1)
            printf("  the step does not fit one program: %u programs per step (layer 1 forward "
                   "and update in chunks of outputs, layer 2 with dZ1 in one)\n", np);
    }
    printf("loss: %.6f before the first step, %.6f after the last (its batch, run again on "
           "the machine); %zu cycles, %.3f s host in all\n", first, last, total_cycles,
           total_host);
    if (last > first) {
        /* MSE on large outputs (a trained classifier's logits) makes large gradients: with
         * too large a step every update overshoots. Say so rather than let the user keep a
         * worse model unknowingly (the weights are still written: the user asked for them). */
        double lr_used = tt_train_lr(tr), smaller = lr_used / 8 < 1.0 / 256 ? 1.0 / 256
                                                                          : lr_used / 8;
        if (lr_used > 1.0 / 256)
            fprintf(stderr, "npukit: warning: the loss rose (%.6f -> %.6f): the learning "
                    "rate %g is too large for this model and data; try a smaller one, such "
                    "as --lr %g\n", first, last, lr_used, smaller);
        else
            fprintf(stderr, "npukit: warning: the loss rose (%.6f -> %.6f) at the smallest "
                    "learning rate Q8.8 holds (1/256): the model may be trained already, or "
                    "the targets out of its reach\n", first, last);
    }
    if (out_model) {
        w = calloc(p->n_layers, sizeof *w);
        b = calloc(p->n_layers, sizeof *b);
        if (!w || !b) {
            fprintf(stderr, "npukit: out of memory\n");
            goto done;
        }
        for (size_t i = 0; i < p->n_layers; i++) {
            w[i] = malloc((size_t)p->layers[i].n_in * (size_t)p->layers[i].n_out * sizeof **w);
            b[i] = malloc((size_t)p->layers[i].n_out * sizeof **b);
            if (!w[i] || !b[i]) {
                fprintf(stderr, "npukit: out of memory\n");
                goto done;
            }
            tt_train_params(tr, i, w[i], b[i]);
        }
        if (npk_onnx_write_dense(path, out_model, p, w, b, err, sizeof err) != 0) {
            fprintf(stderr, "npukit: %s: %s\n", out_model, err);
            goto done;
        }
        printf("wrote %s: the model with the trained weights and biases (Q8.8 values)\n",
               out_model);
    }
    rc = NPK_EXIT_OK;
done:
    for (size_t i = 0; p && (w || b) && i < p->n_layers; i++) {
        if (w)
            free(w[i]);
        if (b)
            free(b[i]);
    }
    free(w);
    free(b);
    free(xb);
    free(yb);
    free(y);
    npk_npy_free_f32(&x);
    tt_train_close(tr);
    npk_plan_free(p);
    npk_model_free(m);
    return rc;
}
#endif

int npk_cmd_train_model(int argc, char **argv)
{
    const char *prog = "npukit train-model", *path = NULL, *target = NULL, *input = NULL,
               *labels = NULL, *expected = NULL, *out = NULL, *v;
    double scale = 1.0, lr = 0.0625;
    unsigned long steps = 1, batch = 0, limit = 0;
    int id;
    npk_opt_state os = {argc, argv, 1, prog, 0};
    while ((id = npk_opt_next(&os, train_defs, &v)) != -1) {
        char *end;
        switch (id) {
        case -2: return NPK_EXIT_USAGE;
        case 0:
            if (path)
                return npk_usage_error(prog, "more than one model ('%s', '%s')", path, v);
            path = v;
            break;
        case T_TARGET: target = v; break;
        case T_INPUT: input = v; break;
        case T_LABELS: labels = v; break;
        case T_EXPECTED: expected = v; break;
        case T_OUT: out = v; break;
        case T_SCALE:
        case T_LR: {
            double d = strtod(v, &end);
            if (end == v || *end || !(d > 0) || !isfinite(d))
                return npk_usage_error(prog, "%s takes a positive number, not '%s'",
                                       id == T_LR ? "--lr" : "--scale", v);
            *(id == T_LR ? &lr : &scale) = d;
            break;
        }
        case T_STEPS:
            if (count_arg(prog, "--steps", v, 1000000, &steps))
                return NPK_EXIT_USAGE;
            break;
        case T_BATCH:
            if (count_arg(prog, "--batch", v, 65535, &batch))
                return NPK_EXIT_USAGE;
            break;
        case T_LIMIT:
            if (count_arg(prog, "--limit", v, (unsigned long)-1 / 2, &limit))
                return NPK_EXIT_USAGE;
            break;
        case T_HELP: train_help(); return NPK_EXIT_OK;
        }
    }
    if (!path)
        return npk_usage_error(prog, "no model file given");
    if (!target)
        return npk_usage_error(prog, "no target: give -t tinytpu[:lanes=N,ub_words=S]");
    const char *colon = strchr(target, ':');
    size_t tl = colon ? (size_t)(colon - target) : strlen(target);
    if (tl != 7 || strncmp(target, "tinytpu", 7))
        return npk_usage_error(prog, "training runs on tinytpu only (the one target with "
                                     "gradient units), not '%.*s'", (int)tl, target);
    if (!input)
        return npk_usage_error(prog, "no --input file");
    if (!labels == !expected)
        return npk_usage_error(prog, "give the targets with --labels (class labels) or "
                                     "--expected (the wanted outputs), one of the two");
    const char *reads[] = {path, input, labels, expected};
    if (npk_check_output_of(prog, reads, 4, out, "--output-model") != 0)
        return NPK_EXIT_USAGE;
#ifdef NPK_HAVE_ONNX
    return train(path, colon ? colon + 1 : "", input, labels, expected, scale, lr, steps, batch,
                 (size_t)limit, out);
#else
    (void)scale, (void)lr, (void)steps, (void)batch, (void)limit;
    fprintf(stderr, "npukit: %s: this npukit was built without ONNX support; install the Debian "
                    "packages libprotobuf-c-dev protobuf-c-compiler libonnx-dev and rebuild\n",
            path);
    return NPK_EXIT_INPUT;
#endif
}
