/* npukit._core.Model and npukit._core.ModelSession: the model API (include/npukit/model.h) one
 * call per method; python/npukit/model.py is the NumPy side (shapes, batches, statistics).
 * Opening, calibrating, compiling and running release the GIL. A model and its sessions are
 * used by one thread at a time: a call while another thread is inside one of them raises
 * RuntimeError instead of waiting. Errors are NpkError with the C message. */
#include "core.h"

#include <stdlib.h>

#include "npukit/model.h"

typedef struct {
    PyObject_HEAD
    npk_nn *nn;
    unsigned long busy;    /* the thread inside a call with the GIL released, or 0 */
} ModelObject;

typedef struct {
    PyObject_HEAD
    ModelObject *model;
    npk_nn_session *s;
    PyObject *target;
    size_t nin, nout;      /* values of one input and one output */
} SessionObject;

/* No other thread is inside a call of the model or of one of its sessions. */
static int model_idle(ModelObject *self)
{
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "npukit: the model is in use in another thread (a "
                        "Model and its sessions are used by one thread at a time)");
        return 0;
    }
    return 1;
}

static int model_usable(ModelObject *self)
{
    if (!self->nn) {
        PyErr_SetString(PyExc_ValueError, "npukit: the model is closed");
        return 0;
    }
    return model_idle(self);
}

/* A list of n items made by item(ctx, i); NULL with the exception of the first that fails. */
static PyObject *list_of(size_t n, PyObject *(*item)(void *ctx, size_t i), void *ctx)
{
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        PyObject *v = item(ctx, i);
        if (!v) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, v);
    }
    return list;
}

/* (buffer, count) arguments: count at least 0. */
static int batch_args(PyObject *args, PyObject **o, Py_ssize_t *count)
{
    if (!PyArg_ParseTuple(args, "On", o, count))
        return 0;
    if (*count < 0) {
        PyErr_Format(PyExc_ValueError, "npukit: a count of %zd inputs", *count);
        return 0;
    }
    return 1;
}

static PyObject *model_fail(ModelObject *self, npk_status st)
{
    return raise_status(st, npk_nn_error(self->nn));
}

/* The model is usable and *i its npk_nn_info (else an exception is set, 0). */
static int info_of(ModelObject *self, npk_nn_info *i)
{
    if (!model_usable(self))
        return 0;
    npk_status st = npk_nn_info_get(self->nn, i);
    if (st != NPK_OK) {
        model_fail(self, st);
        return 0;
    }
    return 1;
}

static int Model_init(ModelObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"source", "name", NULL};
    PyObject *src;
    const char *name = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|z", kwlist, &src, &name))
        return -1;
    if (self->nn) {
        PyErr_SetString(PyExc_RuntimeError, "npukit: the model is already open");
        return -1;
    }
    char err[2048] = "";
    npk_status st;
    npk_nn *nn = NULL;
    if (PyObject_CheckBuffer(src)) {
        Py_buffer b;
        if (PyObject_GetBuffer(src, &b, PyBUF_SIMPLE) < 0)
            return -1;
        Py_BEGIN_ALLOW_THREADS
        st = npk_nn_open_buffer(&nn, b.buf, (size_t)b.len, name, err, sizeof err);
        Py_END_ALLOW_THREADS
        PyBuffer_Release(&b);
    } else {
        PyObject *path;
        if (!PyUnicode_FSConverter(src, &path))
            return -1;
        Py_BEGIN_ALLOW_THREADS
        st = npk_nn_open(&nn, PyBytes_AS_STRING(path), err, sizeof err);
        Py_END_ALLOW_THREADS
        Py_DECREF(path);
    }
    if (st != NPK_OK) {
        raise_status(st, err);
        return -1;
    }
    self->nn = nn;
    return 0;
}

static PyObject *Model_close(ModelObject *self, PyObject *noargs)
{
    (void)noargs;
    if (self->nn && !model_usable(self))
        return NULL;
    npk_nn_close(self->nn);   /* open sessions keep what they need (model.h) */
    self->nn = NULL;
    Py_RETURN_NONE;
}

static void Model_dealloc(ModelObject *self)
{
    npk_nn_close(self->nn);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *dims_tuple(int rank, const int64_t *dims)
{
    PyObject *t = PyTuple_New(rank);
    for (int i = 0; t && i < rank; i++) {
        PyObject *v = PyLong_FromLongLong(dims[i]);
        if (!v) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

static PyObject *Model_info(ModelObject *self, PyObject *noargs)
{
    (void)noargs;
    npk_nn_info i;
    if (!info_of(self, &i))
        return NULL;
    return Py_BuildValue(
        "{s:s,s:s,s:L,s:L,s:n,s:n,s:n,s:K,s:K,s:z,s:n,s:n,s:n,s:N,s:N,s:O}", "name", i.name,
        "producer", i.producer, "ir_version", (long long)i.ir_version, "opset",
        (long long)i.opset, "n_inputs", (Py_ssize_t)i.n_inputs, "n_outputs",
        (Py_ssize_t)i.n_outputs, "n_nodes", (Py_ssize_t)i.n_nodes, "params",
        (unsigned long long)i.params, "macs", (unsigned long long)i.macs, "plan_error",
        i.plan_error, "n_layers", (Py_ssize_t)i.n_layers, "input_elems",
        (Py_ssize_t)i.input_elems, "output_elems", (Py_ssize_t)i.output_elems, "input_shape",
        dims_tuple(i.input_rank, i.input_dims), "output_shape",
        dims_tuple(i.output_rank, i.output_dims), "calibrated",
        i.calibrated ? Py_True : Py_False);
}

/* The graph's inputs (outputs) as a list of dicts. */
typedef struct {
    ModelObject *self;
    int outputs;
} tensor_ctx;

static PyObject *tensor_item(void *ctx, size_t k)
{
    tensor_ctx *c = ctx;
    npk_nn_tensor t;
    npk_status st = c->outputs ? npk_nn_output(c->self->nn, k, &t)
                               : npk_nn_input(c->self->nn, k, &t);
    if (st != NPK_OK)
        return model_fail(c->self, st);
    return Py_BuildValue("{s:s,s:s,s:N,s:O}", "name", t.name, "dtype", t.dtype, "shape",
                         dims_tuple(t.rank, t.dims), "symbolic",
                         t.symbolic ? Py_True : Py_False);
}

static PyObject *tensors(ModelObject *self, int outputs)
{
    npk_nn_info info;
    if (!info_of(self, &info))
        return NULL;
    tensor_ctx c = {self, outputs};
    return list_of(outputs ? info.n_outputs : info.n_inputs, tensor_item, &c);
}

static PyObject *Model_inputs(ModelObject *self, PyObject *noargs)
{
    (void)noargs;
    return tensors(self, 0);
}

static PyObject *Model_outputs(ModelObject *self, PyObject *noargs)
{
    (void)noargs;
    return tensors(self, 1);
}

static PyObject *layer_item(void *ctx, size_t k)
{
    ModelObject *self = ctx;
    npk_nn_layer l;
    npk_status st = npk_nn_layer_get(self->nn, k, &l);
    if (st != NPK_OK)
        return model_fail(self, st);
    return Py_BuildValue(
        "{s:s,s:s,s:d,s:i,s:s,s:s,s:i,s:i,s:(ii),s:(ii),s:N,s:N,s:d,s:d,s:N,s:i}", "kind", l.kind,
        "act",
        l.act, "alpha", l.alpha, "node", l.node, "node_name", l.node_name, "op", l.op, "n_in",
        l.n_in, "n_out", l.n_out, "kernel", l.kh, l.kw, "strides", l.sh, l.sw, "in_shape",
        dims_tuple(l.in_rank, l.in_dims), "out_shape", dims_tuple(l.out_rank, l.out_dims),
        "in_scale", l.in_scale, "out_scale", l.out_scale, "in_tensors",
        l.in2_tensor < 0 ? Py_BuildValue("(i)", l.in_tensor)
                         : Py_BuildValue("(ii)", l.in_tensor, l.in2_tensor),
        "out_tensor", l.out_tensor);
}

static PyObject *Model_layers(ModelObject *self, PyObject *noargs)
{
    (void)noargs;
    npk_nn_info info;
    if (!info_of(self, &info))
        return NULL;
    if (info.plan_error)
        return raise_status(NPK_ERR_UNSUPPORTED, info.plan_error);
    return list_of(info.n_layers, layer_item, self);
}

/* A C-contiguous float32 buffer of count inputs of `per` values. */
static int float_buffer(PyObject *o, Py_buffer *b, size_t count, size_t per, int writable)
{
    if (PyObject_GetBuffer(o, b, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return 0;
    if (count && per > PY_SSIZE_T_MAX / 4 / count) {
        PyErr_SetString(PyExc_OverflowError, "npukit: too many values");
        PyBuffer_Release(b);
        return 0;
    }
    if ((size_t)b->len != count * per * sizeof(float)) {
        PyErr_Format(PyExc_ValueError, "npukit: a buffer of %zd bytes for %zu values of "
                     "float32 (%zu x %zu)", b->len, count * per, count, per);
        PyBuffer_Release(b);
        return 0;
    }
    return 1;
}

static PyObject *Model_calibrate(ModelObject *self, PyObject *args)
{
    PyObject *o;
    Py_ssize_t count;
    npk_nn_info info;
    if (!batch_args(args, &o, &count) || !info_of(self, &info))
        return NULL;
    Py_buffer b;
    npk_status st;
    if (!float_buffer(o, &b, (size_t)count, info.input_elems, 0))
        return NULL;
    self->busy = PyThread_get_thread_ident();
    Py_BEGIN_ALLOW_THREADS
    st = npk_nn_calibrate(self->nn, b.buf, (size_t)count);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    PyBuffer_Release(&b);
    if (st != NPK_OK)
        return model_fail(self, st);
    Py_RETURN_NONE;
}

static PyObject *Model_compile(ModelObject *self, PyObject *args)
{
    const char *target;
    PyObject *path;
    if (!PyArg_ParseTuple(args, "sO&", &target, PyUnicode_FSConverter, &path))
        return NULL;
    if (!model_usable(self)) {
        Py_DECREF(path);
        return NULL;
    }
    char *note = NULL;
    npk_status st;
    self->busy = PyThread_get_thread_ident();
    Py_BEGIN_ALLOW_THREADS
    st = npk_nn_compile(self->nn, target, PyBytes_AS_STRING(path), &note);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    Py_DECREF(path);
    if (st != NPK_OK)
        return model_fail(self, st);
    PyObject *r = PyUnicode_DecodeUTF8(note ? note : "", note ? (Py_ssize_t)strlen(note) : 0,
                                       "replace");
    npk_free(note);
    return r;
}

static PyObject *Model_session(ModelObject *self, PyObject *args);

static PyMethodDef Model_methods[] = {
    {"info", (PyCFunction)Model_info, METH_NOARGS, "info() -> dict (npk_nn_info)"},
    {"inputs", (PyCFunction)Model_inputs, METH_NOARGS, "inputs() -> [dict] of graph inputs"},
    {"outputs", (PyCFunction)Model_outputs, METH_NOARGS, "outputs() -> [dict] of graph outputs"},
    {"layers", (PyCFunction)Model_layers, METH_NOARGS, "layers() -> [dict] of the plan"},
    {"calibrate", (PyCFunction)Model_calibrate, METH_VARARGS,
     "calibrate(float32 buffer, count) -> None"},
    {"compile", (PyCFunction)Model_compile, METH_VARARGS, "compile(target, path) -> note"},
    {"session", (PyCFunction)Model_session, METH_VARARGS, "session(target) -> ModelSession"},
    {"close", (PyCFunction)Model_close, METH_NOARGS, "close() -> None"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject ModelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "npukit._core.Model",
    .tp_basicsize = sizeof(ModelObject),
    .tp_dealloc = (destructor)Model_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Model(path_or_bytes, name=None) - an ONNX model (npk_nn); use npukit.Model",
    .tp_methods = Model_methods,
    .tp_init = (initproc)Model_init,
    .tp_new = PyType_GenericNew,
};

/* ---- sessions ---- */

static PyObject *Model_session(ModelObject *self, PyObject *args)
{
    PyObject *target;
    if (!PyArg_ParseTuple(args, "U", &target))
        return NULL;
    const char *t = PyUnicode_AsUTF8(target);
    npk_nn_info info;
    if (!t || !info_of(self, &info))
        return NULL;
    npk_nn_session *s = NULL;
    npk_status st;
    self->busy = PyThread_get_thread_ident();
    Py_BEGIN_ALLOW_THREADS
    st = npk_nn_session_open(self->nn, t, &s);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (st != NPK_OK)
        return model_fail(self, st);
    SessionObject *so = PyObject_New(SessionObject, &ModelSessionType);
    if (!so) {
        npk_nn_session_close(s);
        return NULL;
    }
    so->model = (ModelObject *)Py_NewRef(self);
    so->s = s;
    so->target = Py_NewRef(target);
    so->nin = info.input_elems;
    so->nout = info.output_elems;
    return (PyObject *)so;
}

static int session_usable(SessionObject *self)
{
    if (!self->s) {
        PyErr_SetString(PyExc_ValueError, "npukit: the session is closed");
        return 0;
    }
    return model_idle(self->model);
}

static PyObject *stats_item(void *ctx, size_t i)
{
    const npk_nn_stats *st = (const npk_nn_stats *)ctx + i;
    return Py_BuildValue("(KKKd)", (unsigned long long)st->cycles,
                         (unsigned long long)st->instructions, (unsigned long long)st->macs,
                         st->utilisation);
}

/* run(x, count) -> (y bytes, [(cycles, instructions, macs, utilisation)] per input) */
static PyObject *Session_run(SessionObject *self, PyObject *args)
{
    PyObject *o;
    Py_ssize_t count;
    if (!batch_args(args, &o, &count) || !session_usable(self))
        return NULL;
    Py_buffer b;
    size_t nin = self->nin, nout = self->nout;
    if (!float_buffer(o, &b, (size_t)count, nin, 0))
        return NULL;
    npk_status st;
    PyObject *y = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(count * nout * sizeof(float)));
    npk_nn_stats *stats = PyMem_RawMalloc(((size_t)count ? (size_t)count : 1) * sizeof *stats);
    if (!y || !stats) {
        PyBuffer_Release(&b);
        Py_XDECREF(y);
        PyMem_RawFree(stats);
        return PyErr_NoMemory();
    }
    float *yp = (float *)PyBytes_AS_STRING(y);
    const float *xp = b.buf;
    Py_ssize_t k = 0;
    self->model->busy = PyThread_get_thread_ident();
    Py_BEGIN_ALLOW_THREADS
    for (st = NPK_OK; k < count; k++) {
        st = npk_nn_infer(self->s, xp + (size_t)k * nin, nin, yp + (size_t)k * nout, nout,
                          &stats[k]);
        if (st != NPK_OK)
            break;
    }
    Py_END_ALLOW_THREADS
    self->model->busy = 0;
    PyBuffer_Release(&b);
    if (st != NPK_OK) {
        char msg[2200];
        snprintf(msg, sizeof msg, "input %zd: %s", k, npk_nn_session_error(self->s));
        Py_DECREF(y);
        PyMem_RawFree(stats);
        return raise_status(st, msg);
    }
    PyObject *list = list_of((size_t)count, stats_item, stats);
    PyMem_RawFree(stats);
    if (!list) {
        Py_DECREF(y);
        return NULL;
    }
    return Py_BuildValue("(NN)", y, list);
}

static PyObject *Session_close(SessionObject *self, PyObject *noargs)
{
    (void)noargs;
    if (self->s && !model_idle(self->model))
        return NULL;
    npk_nn_session_close(self->s);
    self->s = NULL;
    Py_RETURN_NONE;
}

static void Session_dealloc(SessionObject *self)
{
    npk_nn_session_close(self->s);
    Py_XDECREF(self->target);
    Py_XDECREF(self->model);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Session_get_target(SessionObject *self, void *closure)
{
    (void)closure;
    return Py_NewRef(self->target);
}

static PyObject *Session_get_closed(SessionObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(self->s == NULL);
}

static PyMethodDef Session_methods[] = {
    {"run", (PyCFunction)Session_run, METH_VARARGS,
     "run(float32 buffer, count) -> (float32 bytes, [(cycles, instructions, macs, "
     "utilisation)])"},
    {"close", (PyCFunction)Session_close, METH_NOARGS, "close() -> None"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Session_getset[] = {
    {"target", (getter)Session_get_target, NULL, "the target spec", NULL},
    {"closed", (getter)Session_get_closed, NULL, "whether close() was called", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject ModelSessionType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "npukit._core.ModelSession",
    .tp_basicsize = sizeof(SessionObject),
    .tp_dealloc = (destructor)Session_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "a model prepared for one target (npk_nn_session); from Model.session()",
    .tp_methods = Session_methods,
    .tp_getset = Session_getset,
};

/* ---- module functions ---- */

static PyObject *target_item(void *ctx, size_t i)
{
    (void)ctx;
    return PyUnicode_FromString(npk_nn_target_name(i));
}

PyObject *npk_py_model_targets(PyObject *mod, PyObject *noargs)
{
    (void)mod, (void)noargs;
    return list_of(npk_nn_target_count(), target_item, NULL);
}

PyObject *npk_py_model_supported(PyObject *mod, PyObject *noargs)
{
    (void)mod, (void)noargs;
    return PyBool_FromLong(npk_nn_supported());
}
