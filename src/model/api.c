/* The public model API (include/npukit/model.h) over the internal front end: the ONNX reader
 * (model.h), the plan (plan.h) and the lowerings (lower.h). Nothing here computes: every call
 * wraps the function the commands use (src/cli/cmd_run_model.c), adding the checks a library
 * caller needs (counts, finite inputs, sessions still open) and keeping the message on the
 * handle. Built into libnpukit always; without ONNX support every call fails saying so. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/model.h"

#define NO_ONNX "this npukit was built without ONNX support; install the Debian packages " \
                "libprotobuf-c-dev protobuf-c-compiler libonnx-dev and rebuild"

#ifdef NPK_HAVE_ONNX
#include "core/file.h"
#include "model/lower.h"
#include "model/plan.h"

struct npk_nn {
    npk_model *m;
    npk_plan *p;             /* NULL when the model cannot be grouped into layers */
    char *name;
    char *plan_error;
    size_t sessions;         /* open sessions: they read the plan */
    int closed;              /* npk_nn_close was called; freed with the last session */
    char err[1024];
};

struct npk_nn_session {
    npk_nn *nn;
    const npk_lower_target *t;   /* NULL: the host's float64 run */
    void *s;
    double *xd, *yd;
    char target[64];
    char err[2048];          /* a file name, the target and the lowering's message */
};

int npk_nn_supported(void)
{
    return 1;
}

size_t npk_nn_target_count(void)
{
    return 1 + npk_lower_count();
}

const char *npk_nn_target_name(size_t i)
{
    if (i == 0)
        return "host";
    const npk_lower_target *t = npk_lower_get(i - 1);
    return t ? t->name : NULL;
}

static npk_status fail(npk_nn *m, npk_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static npk_status fail(npk_nn *m, npk_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->err, sizeof m->err, fmt, ap);
    va_end(ap);
    return st;
}

static void nn_free(npk_nn *m)
{
    npk_plan_free(m->p);
    npk_model_free(m->m);
    free(m->name);
    free(m->plan_error);
    free(m);
}

/* Takes the model read from `name`; builds its plan. */
static npk_status nn_make(npk_nn **out, npk_model *model, const char *name, char *err,
                          size_t err_size)
{
    npk_nn *m = calloc(1, sizeof *m);
    if (m)
        m->name = strdup(name);
    if (!m || !m->name) {
        free(m);
        npk_model_free(model);
        snprintf(err, err_size, "out of memory");
        return NPK_ERR_NOMEM;
    }
    m->m = model;
    char perr[1024];
    if (npk_plan_build(model, &m->p, perr, sizeof perr) != 0) {
        m->p = NULL;
        size_t n = strlen(name) + strlen(perr) + 3;
        m->plan_error = malloc(n);
        if (!m->plan_error) {
            nn_free(m);
            snprintf(err, err_size, "out of memory");
            return NPK_ERR_NOMEM;
        }
        snprintf(m->plan_error, n, "%s: %s", name, perr);
    }
    *out = m;
    return NPK_OK;
}

npk_status npk_nn_open_buffer(npk_nn **out, const void *bytes, size_t size, const char *name,
                              char *err, size_t err_size)
{
    char dummy[8];
    if (!err || !err_size)
        err = dummy, err_size = sizeof dummy;
    if (!out) {
        snprintf(err, err_size, "npk_nn_open_buffer: no place for the model (out is NULL)");
        return NPK_ERR_ARG;
    }
    *out = NULL;
    if (!name)
        name = "<buffer>";
    if (!bytes && size) {
        snprintf(err, err_size, "%s: no bytes (NULL) for a size of %zu", name, size);
        return NPK_ERR_ARG;
    }
    npk_model *model;
    if (npk_model_read(bytes ? bytes : "", size, name, &model, err, err_size) != 0)
        return NPK_ERR_FORMAT;
    return nn_make(out, model, name, err, err_size);
}

npk_status npk_nn_open(npk_nn **out, const char *path, char *err, size_t err_size)
{
    char dummy[8];
    if (!err || !err_size)
        err = dummy, err_size = sizeof dummy;
    if (!out || !path) {
        snprintf(err, err_size, "npk_nn_open: %s is NULL", out ? "the path" : "out");
        if (out)
            *out = NULL;
        return NPK_ERR_ARG;
    }
    *out = NULL;
    uint8_t *data;
    size_t size;
    npk_status st = npk_file_read(path, 0, &data, &size, err, err_size);
    if (st != NPK_OK)
        return st;
    st = npk_nn_open_buffer(out, data, size, path, err, err_size);
    free(data);
    return st;
}

void npk_nn_close(npk_nn *m)
{
    if (!m)
        return;
    m->closed = 1;
    if (m->sessions == 0)
        nn_free(m);
}

const char *npk_nn_error(const npk_nn *m)
{
    return m ? m->err : "no model (NULL)";
}

/* ---- what the model is ---- */

static void copy_dims(int rank, const int *dims, int *out_rank, int64_t *out)
{
    *out_rank = rank < NPK_NN_MAX_RANK ? rank : NPK_NN_MAX_RANK;
    for (int i = 0; i < *out_rank; i++)
        out[i] = dims[i];
}

npk_status npk_nn_info_get(npk_nn *m, npk_nn_info *info)
{
    if (!m || !info)
        return m ? fail(m, NPK_ERR_ARG, "npk_nn_info_get: info is NULL") : NPK_ERR_ARG;
    memset(info, 0, sizeof *info);
    const npk_model *g = m->m;
    info->name = m->name;
    info->producer = g->producer ? g->producer : "";
    info->ir_version = g->ir_version;
    info->opset = g->opset;
    info->n_inputs = g->n_inputs;
    info->n_outputs = g->n_outputs;
    info->n_nodes = g->n_nodes;
    for (size_t i = 0; i < g->n_nodes; i++) {
        info->params += g->nodes[i].params;
        info->macs += g->nodes[i].macs;
    }
    info->plan_error = m->plan_error;
    if (m->p) {
        const npk_plan *p = m->p;
        const npk_ptensor *in = &p->tensors[0], *o = &p->tensors[p->n_tensors - 1];
        info->n_layers = p->n_layers;
        info->input_elems = in->elems;
        info->output_elems = o->elems;
        copy_dims(in->rank, in->dims, &info->input_rank, info->input_dims);
        int64_t od[NPK_MODEL_MAX_RANK];   /* the model's own output shape (plan.h) */
        int orank = npk_plan_output_dims(p, od);
        info->output_rank = orank < NPK_NN_MAX_RANK ? orank : NPK_NN_MAX_RANK;
        memcpy(info->output_dims, od, (size_t)info->output_rank * sizeof *od);
        info->calibrated = p->calibrated;
    }
    return NPK_OK;
}

static npk_status graph_tensor(npk_nn *m, size_t i, npk_nn_tensor *t, int output)
{
    const char *what = output ? "output" : "input";
    size_t n = output ? m->m->n_outputs : m->m->n_inputs;
    if (!t)
        return fail(m, NPK_ERR_ARG, "npk_nn_%s: t is NULL", what);
    if (i >= n)
        return fail(m, NPK_ERR_RANGE, "%s: %s %zu does not exist (the graph has %zu)", m->name,
                    what, i, n);
    const npk_value *v = &m->m->values[(output ? m->m->outputs : m->m->inputs)[i]];
    memset(t, 0, sizeof *t);
    t->name = v->name;
    t->dtype = npk_dtype_name(v->dtype);
    t->rank = v->rank < NPK_NN_MAX_RANK ? v->rank : NPK_NN_MAX_RANK;
    for (int d = 0; d < t->rank; d++)
        t->dims[d] = v->dims[d];
    t->symbolic = v->sym_batch;
    return NPK_OK;
}

npk_status npk_nn_input(npk_nn *m, size_t i, npk_nn_tensor *t)
{
    return m ? graph_tensor(m, i, t, 0) : NPK_ERR_ARG;
}

npk_status npk_nn_output(npk_nn *m, size_t i, npk_nn_tensor *t)
{
    return m ? graph_tensor(m, i, t, 1) : NPK_ERR_ARG;
}

/* The plan, or the reason there is none. */
static npk_plan *plan_of(npk_nn *m)
{
    if (!m->p)
        fail(m, NPK_ERR_UNSUPPORTED, "%s", m->plan_error);
    return m->p;
}

npk_status npk_nn_layer_get(npk_nn *m, size_t i, npk_nn_layer *l)
{
    if (!m || !l)
        return m ? fail(m, NPK_ERR_ARG, "npk_nn_layer_get: l is NULL") : NPK_ERR_ARG;
    const npk_plan *p = plan_of(m);
    if (!p)
        return NPK_ERR_UNSUPPORTED;
    if (i >= p->n_layers)
        return fail(m, NPK_ERR_RANGE, "%s: layer %zu does not exist (the plan has %zu)", m->name,
                    i, p->n_layers);
    const npk_layer *y = &p->layers[i];
    const npk_ptensor *in = &p->tensors[y->in], *out = &p->tensors[y->out];
    memset(l, 0, sizeof *l);
    l->kind = npk_layer_kind_name(y->kind);
    l->act = npk_act_name(y->act);
    l->alpha = y->alpha;
    l->node = y->node;
    l->node_name = y->name ? y->name : "";
    l->op = y->op ? y->op : "";
    l->n_in = y->n_in;
    l->n_out = y->n_out;
    if (y->kind == NPK_LAYER_CONV || y->kind == NPK_LAYER_MAXPOOL ||
        y->kind == NPK_LAYER_AVGPOOL) {
        l->kh = y->kh, l->kw = y->kw, l->sh = y->sh, l->sw = y->sw;
    }
    copy_dims(in->rank, in->dims, &l->in_rank, l->in_dims);
    copy_dims(out->rank, out->dims, &l->out_rank, l->out_dims);
    if (p->calibrated) {
        l->in_scale = in->scale;
        l->out_scale = out->scale;
    }
    l->in_tensor = y->in;
    l->in2_tensor = y->in2;
    l->out_tensor = y->out;
    return NPK_OK;
}

/* ---- calibrating and compiling ---- */

/* 0 when all n values are finite; else the index of the first that is not, + 1. */
static size_t first_not_finite(const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return i + 1;
    return 0;
}

npk_status npk_nn_calibrate(npk_nn *m, const float *inputs, size_t count)
{
    if (!m)
        return NPK_ERR_ARG;
    npk_plan *p = plan_of(m);
    if (!p)
        return NPK_ERR_UNSUPPORTED;
    if (m->sessions)
        return fail(m, NPK_ERR_STATE, "%s: calibration while %zu session%s of the model %s open: "
                    "close %s first (%s programs hold the current scales)", m->name, m->sessions,
                    m->sessions == 1 ? "" : "s", m->sessions == 1 ? "is" : "are",
                    m->sessions == 1 ? "it" : "them", m->sessions == 1 ? "its" : "their");
    if (!count)
        return fail(m, NPK_ERR_ARG, "%s: calibration needs at least one input", m->name);
    if (!inputs)
        return fail(m, NPK_ERR_ARG, "%s: calibration inputs are NULL", m->name);
    size_t per = p->tensors[0].elems;
    if (per && count > SIZE_MAX / per)
        return fail(m, NPK_ERR_ARG, "%s: %zu calibration inputs of %zu values overflow the "
                    "address space", m->name, count, per);
    size_t bad = first_not_finite(inputs, count * per);
    if (bad--)
        return fail(m, NPK_ERR_ARG, "%s: calibration input %zu, element %zu is %s: the inputs "
                    "must be finite numbers", m->name, bad / per, bad % per,
                    isnan(inputs[bad]) ? "NaN" : "infinite");
    char err[1024];
    if (p->qmodel)   /* its own int8 scales (docs/models.md, "int8 models"): kept */
        return fail(m, NPK_ERR_ARG, "%s: the model carries its own int8 scales (QDQ or QLinear "
                    "operators): it is not calibrated", m->name);
    /* a calibration that fails half-way leaves weights freed: the plan is not calibrated then */
    p->calibrated = 0;
    if (npk_plan_calibrate(p, inputs, count, err, sizeof err) != 0)
        return fail(m, strstr(err, "out of memory") ? NPK_ERR_NOMEM : NPK_ERR_ARG, "%s: %s",
                    m->name, err);
    return NPK_OK;
}

/* The lowering `spec` names ("T[:SETTINGS]"); *t NULL for the host. */
static npk_status find_target(npk_nn *m, const char *spec, const npk_lower_target **t,
                              char *name, size_t n, const char **settings)
{
    if (!spec)
        return fail(m, NPK_ERR_ARG, "%s: no target (NULL)", m->name);
    char err[512];
    if (npk_lower_parse(spec, t, name, n, settings, err, sizeof err) != 0)
        return fail(m, NPK_ERR_ARG, "%s: %s", m->name, err);
    return NPK_OK;
}

npk_status npk_nn_compile(npk_nn *m, const char *target, const char *out_path, char **note)
{
    if (note)
        *note = NULL;
    if (!m)
        return NPK_ERR_ARG;
    const npk_lower_target *t;
    char tname[64];
    const char *settings;
    npk_status st = find_target(m, target, &t, tname, sizeof tname, &settings);
    if (st != NPK_OK)
        return st;
    if (!t)
        return fail(m, NPK_ERR_ARG, "%s: 'host' runs models but has nothing to compile",
                    m->name);
    if (!out_path)
        return fail(m, NPK_ERR_ARG, "%s: no output path (NULL)", m->name);
    const npk_plan *p = plan_of(m);
    if (!p)
        return NPK_ERR_UNSUPPORTED;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return fail(m, NPK_ERR_NOMEM, "out of memory");
    char err[1024];
    int rc = t->compile(p, settings, out_path, f, err, sizeof err);
    fclose(f);
    if (rc != 0) {
        free(text);
        return fail(m, NPK_ERR_ARG, "%s: %s: %s", m->name, tname, err);
    }
    if (note)
        *note = text;
    else
        free(text);
    return NPK_OK;
}

/* ---- running ---- */

npk_status npk_nn_session_open(npk_nn *m, const char *target, npk_nn_session **out)
{
    if (out)
        *out = NULL;
    if (!m)
        return NPK_ERR_ARG;
    if (!out)
        return fail(m, NPK_ERR_ARG, "npk_nn_session_open: out is NULL");
    npk_nn_session *s = calloc(1, sizeof *s);
    if (!s)
        return fail(m, NPK_ERR_NOMEM, "out of memory");
    const char *settings;
    npk_status st = find_target(m, target, &s->t, s->target, sizeof s->target, &settings);
    npk_plan *p = st == NPK_OK ? plan_of(m) : NULL;
    if (st == NPK_OK && !p)
        st = NPK_ERR_UNSUPPORTED;
    if (st == NPK_OK && !s->t) {
        s->xd = malloc(p->tensors[0].elems * sizeof *s->xd);
        s->yd = malloc(p->tensors[p->n_tensors - 1].elems * sizeof *s->yd);
        if (!s->xd || !s->yd)
            st = fail(m, NPK_ERR_NOMEM, "out of memory");
    }
    char err[1024];
    if (st == NPK_OK && s->t && s->t->open(p, settings, &s->s, err, sizeof err) != 0)
        st = fail(m, NPK_ERR_ARG, "%s: %s: %s", m->name, s->target, err);
    if (st != NPK_OK) {
        free(s->xd);
        free(s->yd);
        free(s);
        return st;
    }
    s->nn = m;
    m->sessions++;
    *out = s;
    return NPK_OK;
}

void npk_nn_session_close(npk_nn_session *s)
{
    if (!s)
        return;
    if (s->t && s->s)
        s->t->close(s->s);
    npk_nn *m = s->nn;
    free(s->xd);
    free(s->yd);
    free(s);
    if (--m->sessions == 0 && m->closed)
        nn_free(m);
}

const char *npk_nn_session_error(const npk_nn_session *s)
{
    return s ? s->err : "no session (NULL)";
}

npk_status npk_nn_infer(npk_nn_session *s, const float *x, size_t nx, float *y, size_t ny,
                        npk_nn_stats *stats)
{
    if (!s)
        return NPK_ERR_ARG;
    npk_nn *m = s->nn;
    npk_plan *p = m->p;
    size_t nin = p->tensors[0].elems, nout = p->tensors[p->n_tensors - 1].elems;
    if (stats)
        memset(stats, 0, sizeof *stats);
    s->err[0] = 0;
    if (!x || !y || nx != nin || ny != nout) {
        snprintf(s->err, sizeof s->err, "%s: %s: the model takes %zu input values and gives "
                 "%zu outputs; given %zu%s and room for %zu%s", m->name, s->target, nin, nout,
                 nx, x ? "" : " (NULL)", ny, y ? "" : " (NULL)");
        return NPK_ERR_ARG;
    }
    size_t bad = first_not_finite(x, nx);
    if (bad--) {
        snprintf(s->err, sizeof s->err, "%s: %s: input element %zu is %s: the inputs must be "
                 "finite numbers", m->name, s->target, bad, isnan(x[bad]) ? "NaN" : "infinite");
        return NPK_ERR_ARG;
    }
    if (!s->t) {
        for (size_t i = 0; i < nin; i++)
            s->xd[i] = x[i];
        if (npk_plan_run_f64(p, s->xd, s->yd, 0) != 0) {
            snprintf(s->err, sizeof s->err, "out of memory");
            return NPK_ERR_NOMEM;
        }
        for (size_t i = 0; i < nout; i++)
            y[i] = (float)s->yd[i];
        return NPK_OK;
    }
    npk_lower_stats st = {0};
    char err[1024];
    if (s->t->infer(s->s, x, y, &st, err, sizeof err) != 0) {
        snprintf(s->err, sizeof s->err, "%s: %s: %s", m->name, s->target, err);
        return NPK_ERR_ARG;
    }
    npk_plan_q_output(p, y);   /* the output's own QuantizeLinear, if any (as run-model) */
    if (stats) {
        stats->cycles = st.cycles;
        stats->instructions = st.instructions;
        stats->macs = st.macs;
        stats->utilisation = st.utilisation;
    }
    return NPK_OK;
}

#else /* no ONNX support: every call says so */

int npk_nn_supported(void)
{
    return 0;
}

size_t npk_nn_target_count(void)
{
    return 0;
}

const char *npk_nn_target_name(size_t i)
{
    (void)i;
    return NULL;
}

npk_status npk_nn_open(npk_nn **out, const char *path, char *err, size_t err_size)
{
    if (out)
        *out = NULL;
    if (err && err_size)
        snprintf(err, err_size, "%s: %s", path ? path : "model", NO_ONNX);
    return NPK_ERR_UNSUPPORTED;
}

npk_status npk_nn_open_buffer(npk_nn **out, const void *bytes, size_t size, const char *name,
                              char *err, size_t err_size)
{
    (void)bytes, (void)size;
    return npk_nn_open(out, name ? name : "<buffer>", err, err_size);
}

/* No model can exist: the calls on one are unreachable with a valid handle. */
void npk_nn_close(npk_nn *m)
{
    (void)m;
}

const char *npk_nn_error(const npk_nn *m)
{
    (void)m;
    return NO_ONNX;
}

npk_status npk_nn_info_get(npk_nn *m, npk_nn_info *info)
{
    (void)m, (void)info;
    return NPK_ERR_UNSUPPORTED;
}

npk_status npk_nn_input(npk_nn *m, size_t i, npk_nn_tensor *t)
{
    (void)m, (void)i, (void)t;
    return NPK_ERR_UNSUPPORTED;
}

npk_status npk_nn_output(npk_nn *m, size_t i, npk_nn_tensor *t)
{
    (void)m, (void)i, (void)t;
    return NPK_ERR_UNSUPPORTED;
}

npk_status npk_nn_layer_get(npk_nn *m, size_t i, npk_nn_layer *l)
{
    (void)m, (void)i, (void)l;
    return NPK_ERR_UNSUPPORTED;
}

npk_status npk_nn_calibrate(npk_nn *m, const float *inputs, size_t count)
{
    (void)m, (void)inputs, (void)count;
    return NPK_ERR_UNSUPPORTED;
}

npk_status npk_nn_compile(npk_nn *m, const char *target, const char *out_path, char **note)
{
    (void)m, (void)target, (void)out_path;
    if (note)
        *note = NULL;
    return NPK_ERR_UNSUPPORTED;
}

npk_status npk_nn_session_open(npk_nn *m, const char *target, npk_nn_session **out)
{
    (void)m, (void)target;
    if (out)
        *out = NULL;
    return NPK_ERR_UNSUPPORTED;
}

void npk_nn_session_close(npk_nn_session *s)
{
    (void)s;
}

const char *npk_nn_session_error(const npk_nn_session *s)
{
    (void)s;
    return NO_ONNX;
}

npk_status npk_nn_infer(npk_nn_session *s, const float *x, size_t nx, float *y, size_t ny,
                        npk_nn_stats *stats)
{
    (void)s, (void)x, (void)nx, (void)y, (void)ny, (void)stats;
    return NPK_ERR_UNSUPPORTED;
}
#endif
