/* `npukit run-model` and `npukit compile MODEL.onnx`: an ONNX model (src/model) grouped into
 * a plan of layers (plan.h), calibrated for the int8 targets on a set of inputs, and lowered to
 * a target (lower.h). The pseudo-target `host` runs the plan in float64 on the host: the
 * reference every lowering is compared with. docs/models.md describes both commands. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#ifdef NPK_HAVE_ONNX
#include "model/lower.h"
#include "model/npy.h"
#include "model/plan.h"
#endif

static void run_help(void)
{
    printf("usage: npukit run-model -t TARGET[:SETTINGS] --input X.npy [options] MODEL.onnx\n"
           "\n"
           "Run an ONNX model on a simulated NPU: the model is grouped into layers, quantised\n"
           "where the target needs it (int8 scales calibrated on --calib), lowered to the\n"
           "target's program and run once per input. Prints what one inference costs on the\n"
           "target (cycles, instructions, MACs, utilisation) and how its outputs compare with\n"
           "the float64 run of the same model on the host (the 'host' target).\n"
           "\n"
           "options:\n"
           "  -t, --target T[:SETTINGS]   host (float64 reference), or a target with a lowering\n"
           "                              (`npukit run-model --list` names them)\n"
           "      --input FILE            inputs (.npy, float32/float64/int8/uint8): one input of\n"
           "                              the model's shape, or several of them one after another\n"
           "                              (a leading batch dimension)\n"
           "      --output FILE           write the outputs (.npy, float32, [count, outputs])\n"
           "      --calib FILE            calibration inputs (.npy, like --input) for the int8\n"
           "                              scales; needed by the int8 targets (ignored for a\n"
           "                              model with its own: QDQ or QLinear operators)\n"
           "      --scale X               multiply every input and calibration value by X (e.g.\n"
           "                              0.00392156862745098 = 1/255 for uint8 pixels)\n"
           "      --labels FILE           class labels (.npy, integers), one per input: prints\n"
           "                              the accuracy of the outputs' argmax\n"
           "      --limit N               use only the first N inputs\n"
           "      --list                  list the targets with a lowering and exit\n"
           "  -h, --help                  this help\n"
           "\n"
           "exit status: 0 success, 1 the model, an input or a target cannot take the job (the\n"
           "message names the node, the operator and the reason) or an output cannot be\n"
           "written, 2 usage error\n");
}

enum { R_TARGET = 1, R_INPUT, R_OUTPUT, R_CALIB, R_SCALE, R_LABELS, R_LIMIT, R_LIST, R_HELP };

static const npk_opt_def run_defs[] = {
    {R_TARGET, 't', "target", OPT_VALUE},  {R_INPUT, 0, "input", OPT_VALUE},
    {R_OUTPUT, 0, "output", OPT_VALUE},    {R_CALIB, 0, "calib", OPT_VALUE},
    {R_SCALE, 0, "scale", OPT_VALUE},      {R_LABELS, 0, "labels", OPT_VALUE},
    {R_LIMIT, 0, "limit", OPT_VALUE},      {R_LIST, 0, "list", OPT_FLAG},
    {R_HELP, 'h', "help", OPT_FLAG},       {0, 0, NULL, OPT_FLAG},
};

static void compile_help(void)
{
    printf("usage: npukit compile MODEL.onnx -t TARGET[:SETTINGS] -o OUT [--calib X.npy]\n"
           "\n"
           "Lower an ONNX model to a target: the program and data the target runs it with, in\n"
           "the target's own formats (what is written beside OUT and how to run it is printed).\n"
           "The int8 targets need --calib: inputs to calibrate the activation scales on\n"
           "(not for a model with its own int8 scales: QDQ or QLinear operators).\n"
           "\n"
           "options:\n"
           "  -t, --target T[:SETTINGS]   a target with a lowering (`npukit run-model --list`)\n"
           "  -o, --output FILE           what to write (required)\n"
           "      --calib FILE            calibration inputs (.npy)\n"
           "      --scale X               multiply every calibration value by X\n"
           "  -h, --help                  this help\n"
           "\n"
           "exit status: 0 success, 1 the model or the target cannot take it (the message names\n"
           "the node, the operator and the reason) or an output cannot be written, 2 usage\n"
           "error\n");
}

enum { C_TARGET = 1, C_OUTPUT, C_CALIB, C_SCALE, C_HELP };

static const npk_opt_def compile_defs[] = {
    {C_TARGET, 't', "target", OPT_VALUE}, {C_OUTPUT, 'o', "output", OPT_VALUE},
    {C_CALIB, 0, "calib", OPT_VALUE},     {C_SCALE, 0, "scale", OPT_VALUE},
    {C_HELP, 'h', "help", OPT_FLAG},      {0, 0, NULL, OPT_FLAG},
};

#ifdef NPK_HAVE_ONNX
/* The model, its plan, and the plan calibrated when a calibration file is given. */
typedef struct loaded {
    npk_model *m;
    npk_plan *p;
} loaded;

static void unload(loaded *l)
{
    npk_plan_free(l->p);
    npk_model_free(l->m);
}

/* Read a set of inputs for the plan: `count` inputs of its input's element count. */
static int read_inputs(const char *path, const npk_plan *p, double scale, size_t limit,
                       npk_npy_f32 *a, size_t *count)
{
    char err[1024];
    if (npk_npy_read_f32(path, a, err, sizeof err) != 0) {
        fprintf(stderr, "npukit: %s\n", err);
        return -1;
    }
    size_t per = p->tensors[0].elems;
    if (a->count == 0 || a->count % per != 0) {
        fprintf(stderr, "npukit: %s: %zu values are not a whole number of inputs of %zu (the "
                "model's input '%s')\n", path, a->count, per,
                p->model->values[p->model->inputs[0]].name);
        npk_npy_free_f32(a);
        return -1;
    }
    *count = a->count / per;
    if (limit && *count > limit)
        *count = limit;
    if (scale != 1.0)
        for (size_t i = 0; i < *count * per; i++)
            a->data[i] = (float)(a->data[i] * scale);
    for (size_t i = 0; i < *count * per; i++)
        if (!isfinite(a->data[i])) {
            fprintf(stderr, "npukit: %s: input %zu, element %zu is %s%s: the inputs must be "
                    "finite numbers\n", path, i / per, i % per,
                    isnan(a->data[i]) ? "NaN" : "infinite", scale != 1.0 ? " after --scale" : "");
            npk_npy_free_f32(a);
            return -1;
        }
    return 0;
}

static int load(const char *path, const char *calib, double scale, loaded *l)
{
    char err[1024];
    memset(l, 0, sizeof *l);
    if (npk_model_read_file(path, &l->m, err, sizeof err) != 0) {
        fprintf(stderr, "npukit: %s\n", err);
        return -1;
    }
    if (npk_plan_build(l->m, &l->p, err, sizeof err) != 0) {
        fprintf(stderr, "npukit: %s: %s\n", path, err);
        unload(l);
        return -1;
    }
    if (calib && l->p->qmodel)   /* docs/models.md, "int8 models" */
        fprintf(stderr, "npukit: %s: the model carries its own int8 scales: --calib %s is "
                "ignored\n", path, calib);
    else if (calib) {
        npk_npy_f32 c;
        size_t n;
        if (read_inputs(calib, l->p, scale, 0, &c, &n) != 0) {
            unload(l);
            return -1;
        }
        int rc = npk_plan_calibrate(l->p, c.data, n, err, sizeof err);
        npk_npy_free_f32(&c);
        if (rc != 0) {
            fprintf(stderr, "npukit: %s: %s\n", calib, err);
            unload(l);
            return -1;
        }
    }
    return 0;
}

/* "T:SETTINGS" into the lowering and its settings; NULL target for "host". */
static int find_target(const char *prog, const char *spec, const npk_lower_target **t,
                       char *name, size_t n, const char **settings)
{
    char err[512];
    if (npk_lower_parse(spec, t, name, n, settings, err, sizeof err) != 0)
        return npk_usage_error(prog, "%s", err);
    return 0;
}

static double now_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static size_t argmax(const float *y, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (y[i] > y[best])
            best = i;
    return best;
}

static size_t argmax_d(const double *y, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (y[i] > y[best])
            best = i;
    return best;
}

/* Run every input on the target (or the host), compare each output with the float64 plan. */
static int run_all(const char *model_path, const char *tname, const npk_lower_target *t,
                   const char *settings, loaded *l, const float *xs, size_t count,
                   const npk_npy_f32 *labels, const char *out_path)
{
    npk_plan *p = l->p;
    size_t nin = p->tensors[0].elems, nout = p->tensors[p->n_tensors - 1].elems;
    char err[1024];
    void *session = NULL;
    if (t && t->open(p, settings, &session, err, sizeof err) != 0) {
        fprintf(stderr, "npukit: %s: %s: %s\n", model_path, tname, err);
        return NPK_EXIT_INPUT;
    }
    float *ys = malloc(count * nout * sizeof *ys);
    double *xd = malloc(nin * sizeof *xd), *yd = malloc(nout * sizeof *yd);
    int rc = NPK_EXIT_OK;
    if (!ys || !xd || !yd) {
        fprintf(stderr, "npukit: out of memory\n");
        rc = NPK_EXIT_INPUT;
        goto done;
    }
    npk_lower_stats total = {0};
    double t_target = 0.0, max_diff = 0.0, max_ref = 0.0;
    size_t agree = 0, correct = 0, correct_ref = 0;
    time_t last = time(NULL);
    for (size_t k = 0; k < count; k++) {
        const float *x = xs + k * nin;
        float *y = ys + k * nout;
        for (size_t i = 0; i < nin; i++)
            xd[i] = x[i];
        double t0 = now_cpu();
        if (npk_plan_run_f64(p, xd, yd, 0) != 0) {
            fprintf(stderr, "npukit: out of memory\n");
            rc = NPK_EXIT_INPUT;
            goto done;
        }
        if (t) {
            t0 = now_cpu();   /* the target's time, without the reference run */
            npk_lower_stats st = {0};
            if (t->infer(session, x, y, &st, err, sizeof err) != 0) {
                fprintf(stderr, "npukit: %s: %s: input %zu: %s\n", model_path, tname, k, err);
                rc = NPK_EXIT_INPUT;
                goto done;
            }
            npk_plan_q_output(p, y);   /* the output's own QuantizeLinear, if any */
            total.cycles += st.cycles;
            total.instructions += st.instructions;
            total.macs += st.macs;
            total.utilisation += st.utilisation;
        } else {
            for (size_t i = 0; i < nout; i++)
                y[i] = (float)yd[i];
        }
        t_target += now_cpu() - t0;
        for (size_t i = 0; i < nout; i++) {
            double d = fabs((double)y[i] - yd[i]);
            max_diff = d > max_diff || isnan(d) ? d : max_diff;
            max_ref = fabs(yd[i]) > max_ref ? fabs(yd[i]) : max_ref;
        }
        size_t a = argmax(y, nout), ar = argmax_d(yd, nout);
        agree += a == ar;
        if (labels) {
            correct += (float)a == labels->data[k];
            correct_ref += (float)ar == labels->data[k];
        }
        if (count >= 100 && time(NULL) - last >= 2) {
            last = time(NULL);
            fprintf(stderr, "npukit: %s: %zu of %zu inputs\n", tname, k + 1, count);
        }
    }
    printf("model: %s, %zu layers, %llu MACs per inference\n", model_path, p->n_layers,
           (unsigned long long)p->macs);
    printf("target: %s%s%s, %zu input%s\n", tname, settings[0] ? ":" : "", settings, count,
           count == 1 ? "" : "s");
    if (t) {
        double n = (double)count;
        printf("per inference: %.0f cycles, %.0f instructions, %.0f MACs, utilisation %.1f %%\n",
               (double)total.cycles / n, (double)total.instructions / n,
               (double)total.macs / n, 100.0 * total.utilisation / n);
    }
    printf("host CPU time: %.3f ms per inference\n", 1e3 * t_target / (double)count);
    printf("against the float64 host run: max |difference| %.6g (largest |output| %.6g), "
           "argmax equal %zu of %zu\n", max_diff, max_ref, agree, count);
    if (labels)
        printf("accuracy: %.2f %% (%zu of %zu); float64 host run %.2f %%\n",
               100.0 * (double)correct / (double)count, correct, count,
               100.0 * (double)correct_ref / (double)count);
    if (out_path) {
        /* [count, the model's own output shape] (plan.h) */
        int64_t dims[NPK_MODEL_MAX_RANK] = {(int64_t)count};
        int rank = npk_plan_output_dims(p, dims + 1) + 1;
        if (npk_npy_write_f32(out_path, ys, rank, dims, err, sizeof err) != 0) {
            fprintf(stderr, "npukit: %s\n", err);
            rc = NPK_EXIT_INPUT;
        }
    }
done:
    if (t && session)
        t->close(session);
    free(ys);
    free(xd);
    free(yd);
    return rc;
}
#endif

#ifndef NPK_HAVE_ONNX
static int no_onnx(const char *path)
{
    fprintf(stderr, "npukit: %s: this npukit was built without ONNX support; install the Debian "
                    "packages libprotobuf-c-dev protobuf-c-compiler libonnx-dev and rebuild\n",
            path ? path : "model");
    return NPK_EXIT_INPUT;
}
#endif

static int parse_scale(const char *prog, const char *v, double *scale)
{
    char *end;
    *scale = strtod(v, &end);
    if (end == v || *end || !(*scale > 0) || !isfinite(*scale))
        return npk_usage_error(prog, "--scale takes a positive number, not '%s'", v);
    return 0;
}

int npk_cmd_run_model(int argc, char **argv)
{
    const char *prog = "npukit run-model", *path = NULL, *target = NULL, *input = NULL,
               *output = NULL, *calib = NULL, *labels = NULL, *v;
    double scale = 1.0;
    size_t limit = 0;
    int id, list = 0;
    npk_opt_state os = {argc, argv, 1, prog, 0};
    while ((id = npk_opt_next(&os, run_defs, &v)) != -1) {
        switch (id) {
        case -2: return NPK_EXIT_USAGE;
        case 0:
            if (path)
                return npk_usage_error(prog, "unexpected argument '%s'", v);
            path = v;
            break;
        case R_TARGET: target = v; break;
        case R_INPUT: input = v; break;
        case R_OUTPUT: output = v; break;
        case R_CALIB: calib = v; break;
        case R_LABELS: labels = v; break;
        case R_SCALE:
            if (parse_scale(prog, v, &scale))
                return NPK_EXIT_USAGE;
            break;
        case R_LIMIT: {
            char *end;
            unsigned long long n = strtoull(v, &end, 10);
            if (end == v || *end || n == 0 || v[0] == '-')
                return npk_usage_error(prog, "--limit takes a positive count, not '%s'", v);
            limit = (size_t)n;
            break;
        }
        case R_LIST: list = 1; break;
        case R_HELP: run_help(); return NPK_EXIT_OK;
        }
    }
#ifdef NPK_HAVE_ONNX
    if (list) {
        printf("host\n");
        for (size_t i = 0; i < npk_lower_count(); i++)
            printf("%s\n", npk_lower_get(i)->name);
        return NPK_EXIT_OK;
    }
    if (!path)
        return npk_usage_error(prog, "no model file given");
    if (!target)
        return npk_usage_error(prog, "no target: give -t host or a target with a lowering");
    if (!input)
        return npk_usage_error(prog, "no --input file");
    const char *reads[] = {path, input, calib, labels};
    if (npk_check_output_of(prog, reads, 4, output, "--output") != 0)
        return NPK_EXIT_USAGE;
    const npk_lower_target *t;
    char tname[64];
    const char *settings;
    if (find_target(prog, target, &t, tname, sizeof tname, &settings) != 0)
        return NPK_EXIT_USAGE;
    loaded l;
    if (load(path, calib, scale, &l) != 0)
        return NPK_EXIT_INPUT;
    npk_npy_f32 x = {0}, lab = {0};
    size_t count;
    int rc = NPK_EXIT_INPUT;
    if (read_inputs(input, l.p, scale, limit, &x, &count) != 0)
        goto done;
    if (labels) {
        char err[1024];
        if (npk_npy_read_f32(labels, &lab, err, sizeof err) != 0) {
            fprintf(stderr, "npukit: %s\n", err);
            goto done;
        }
        if (lab.count < count) {
            fprintf(stderr, "npukit: %s: %zu labels for %zu inputs\n", labels, lab.count, count);
            goto done;
        }
    }
    rc = run_all(path, tname, t, settings, &l, x.data, count, labels ? &lab : NULL, output);
done:
    npk_npy_free_f32(&x);
    npk_npy_free_f32(&lab);
    unload(&l);
    return rc;
#else
    (void)target, (void)input, (void)output, (void)calib, (void)labels, (void)limit, (void)list;
    return no_onnx(path);
#endif
}

int npk_cmd_compile_model(int argc, char **argv)
{
    const char *prog = "npukit compile", *path = NULL, *target = NULL, *output = NULL,
               *calib = NULL, *v;
    double scale = 1.0;
    int id;
    npk_opt_state os = {argc, argv, 1, prog, 0};
    while ((id = npk_opt_next(&os, compile_defs, &v)) != -1) {
        switch (id) {
        case -2: return NPK_EXIT_USAGE;
        case 0:
            if (path)
                return npk_usage_error(prog, "more than one model ('%s', '%s')", path, v);
            path = v;
            break;
        case C_TARGET: target = v; break;
        case C_OUTPUT: output = v; break;
        case C_CALIB: calib = v; break;
        case C_SCALE:
            if (parse_scale(prog, v, &scale))
                return NPK_EXIT_USAGE;
            break;
        case C_HELP: compile_help(); return NPK_EXIT_OK;
        }
    }
    if (!path)
        return npk_usage_error(prog, "no model file given");
    if (!target)
        return npk_usage_error(prog, "no target: give -t TARGET (`npukit run-model --list`)");
    if (!output)
        return npk_usage_error(prog, "no output: give -o FILE");
    const char *reads[] = {path, calib};
    if (npk_check_output_of(prog, reads, 2, output, "-o") != 0)
        return NPK_EXIT_USAGE;
#ifdef NPK_HAVE_ONNX
    const npk_lower_target *t;
    char tname[64];
    const char *settings;
    if (find_target(prog, target, &t, tname, sizeof tname, &settings) != 0)
        return NPK_EXIT_USAGE;
    if (!t)
        return npk_usage_error(prog, "'host' runs models (npukit run-model) but has nothing to "
                                     "compile");
    loaded l;
    if (load(path, calib, scale, &l) != 0)
        return NPK_EXIT_INPUT;
    char err[1024];
    int rc = NPK_EXIT_OK;
    if (t->compile(l.p, settings, output, stdout, err, sizeof err) != 0) {
        fprintf(stderr, "npukit: %s: %s: %s\n", path, tname, err);
        rc = NPK_EXIT_INPUT;
    }
    unload(&l);
    return rc;
#else
    (void)calib, (void)scale;
    return no_onnx(path);
#endif
}
