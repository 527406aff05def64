/* npukit._core.Pccx: the pccx host API (include/npukit/pccx.h, docs/spec/pccx.md §12) over a
 * Machine of target pccx, one method per call. The context is the machine's own (pccx_of), so
 * statistics, timelines and memories are the Machine's. Numbers that do not fit their
 * parameter are an OverflowError (never truncated); a negative PCCX_E_* code is an NpkError
 * whose status is the code's name ("PCCX_E_SHAPE") and whose message is the recorded fault's
 * where there is one. The NumPy side (INT4 packing, BF16 tensors) is python/npukit/pccx.py. */
#include "core.h"

#include <string.h>

#include "npukit/pccx.h"

typedef struct {
    PyObject_HEAD
    MachineObject *machine;
} PccxObject;

/* The context, if the machine can be used now (idle: for calls that issue or change state). */
static pccx_t *ctx_of(PccxObject *self, int need_idle)
{
    if (!(need_idle ? idle(self->machine) : usable(self->machine)))
        return NULL;
    pccx_t *c = pccx_of(self->machine->m);
    if (!c)
        PyErr_SetString(PyExc_TypeError, "npukit: not a pccx machine");
    return c;
}

static PyObject *pccx_fail(pccx_t *c, int code)
{
    pccx_error_t e;
    memset(&e, 0, sizeof e);
    char msg[640];
    if (c && pccx_last_error(c, &e) == PCCX_OK && e.code == code && e.message[0])
        snprintf(msg, sizeof msg, "%s: %s", pccx_error_name(code), e.message);
    else
        snprintf(msg, sizeof msg, "%s", pccx_error_name(code));
    return raise_error(msg, pccx_error_name(code));
}

static PyObject *done(pccx_t *c, int code)
{
    return code < 0 ? pccx_fail(c, code) : Py_NewRef(Py_None);
}

/* Argument converters that refuse what does not fit (PyArg's I, H, K would wrap): core.h's
 * npk_py_u64 and npk_py_u32, and one for 16 bits. */
static int conv_u16(PyObject *o, void *p)
{
    uint64_t v;
    if (!npk_py_u64(o, &v))
        return 0;
    if (v > UINT16_MAX) {
        PyErr_Format(PyExc_OverflowError, "npukit: %llu does not fit 16 bits",
                     (unsigned long long)v);
        return 0;
    }
    *(uint16_t *)p = (uint16_t)v;
    return 1;
}

static int conv_i64(PyObject *o, void *p)
{
    long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred())
        return 0;
    *(int64_t *)p = v;
    return 1;
}

#define U32 npk_py_u32
#define U16 conv_u16
#define U64 npk_py_u64

static int Pccx_init(PccxObject *self, PyObject *args, PyObject *kw)
{
    (void)kw;
    PyObject *m;
    if (!PyArg_ParseTuple(args, "O!", &MachineType, &m))
        return -1;
    Py_XSETREF(self->machine, (MachineObject *)Py_NewRef(m));
    return ctx_of(self, 0) ? 0 : -1;
}

static void Pccx_dealloc(PccxObject *self)
{
    Py_XDECREF(self->machine);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* gemv/gemm(dest, src, flags, size_ptr, shape_ptr, lanes) */
static PyObject *matvec(PccxObject *self, PyObject *args, int gemm)
{
    uint32_t dest, src, flags, size_ptr, shape_ptr, lanes;
    if (!PyArg_ParseTuple(args, "O&O&O&O&O&O&", U32, &dest, U32, &src, U32, &flags, U32,
                          &size_ptr, U32, &shape_ptr, U32, &lanes))
        return NULL;
    pccx_t *c = ctx_of(self, 1);
    if (!c)
        return NULL;
    return done(c, (gemm ? pccx_gemm : pccx_gemv)(c, dest, src, flags, size_ptr, shape_ptr,
                                                  lanes));
}

static PyObject *Pccx_gemv(PccxObject *self, PyObject *args) { return matvec(self, args, 0); }
static PyObject *Pccx_gemm(PccxObject *self, PyObject *args) { return matvec(self, args, 1); }

static PyObject *Pccx_memcpy(PccxObject *self, PyObject *args)
{
    uint32_t from_host, to_host, dest, src, aux, shape_ptr, async;
    if (!PyArg_ParseTuple(args, "O&O&O&O&O&O&O&", U32, &from_host, U32, &to_host, U32, &dest,
                          U32, &src, U32, &aux, U32, &shape_ptr, U32, &async))
        return NULL;
    pccx_t *c = ctx_of(self, 1);
    return c ? done(c, pccx_memcpy(c, from_host, to_host, dest, src, aux, shape_ptr, async))
             : NULL;
}

static PyObject *Pccx_memset(PccxObject *self, PyObject *args)
{
    uint32_t bank, index;
    uint16_t a, b, cc;
    if (!PyArg_ParseTuple(args, "O&O&O&O&O&", U32, &bank, U32, &index, U16, &a, U16, &b, U16,
                          &cc))
        return NULL;
    pccx_t *c = ctx_of(self, 1);
    return c ? done(c, pccx_memset(c, bank, index, a, b, cc)) : NULL;
}

static PyObject *Pccx_cvo(PccxObject *self, PyObject *args)
{
    uint32_t func, src, dst, length, flags, async;
    if (!PyArg_ParseTuple(args, "O&O&O&O&O&O&", U32, &func, U32, &src, U32, &dst, U32, &length,
                          U32, &flags, U32, &async))
        return NULL;
    pccx_t *c = ctx_of(self, 1);
    return c ? done(c, pccx_cvo(c, func, src, dst, length, flags, async)) : NULL;
}

static PyObject *Pccx_issue(PccxObject *self, PyObject *args)
{
    uint64_t w;
    if (!PyArg_ParseTuple(args, "O&", U64, &w))
        return NULL;
    pccx_t *c = ctx_of(self, 1);
    return c ? done(c, pccx_issue(c, w)) : NULL;
}

/* sync(timeout_us=0): the GIL is released while the timing model catches up */
static PyObject *Pccx_sync(PccxObject *self, PyObject *args)
{
    uint64_t timeout = 0;
    if (!PyArg_ParseTuple(args, "|O&", U64, &timeout))
        return NULL;
    pccx_t *c = ctx_of(self, 1);
    if (!c)
        return NULL;
    int r;
    self->machine->busy = PyThread_get_thread_ident();
    Py_BEGIN_ALLOW_THREADS
    r = pccx_sync(c, timeout);
    Py_END_ALLOW_THREADS
    self->machine->busy = 0;
    return done(c, r);
}

static PyObject *Pccx_reset(PccxObject *self, PyObject *unused)
{
    (void)unused;
    pccx_t *c = ctx_of(self, 1);
    return c ? done(c, pccx_reset(c)) : NULL;
}

static PyObject *Pccx_clear_error(PccxObject *self, PyObject *unused)
{
    (void)unused;
    pccx_t *c = ctx_of(self, 1);
    return c ? done(c, pccx_clear_error(c)) : NULL;
}

static PyObject *Pccx_host_write(PccxObject *self, PyObject *args)
{
    uint64_t off;
    Py_buffer b;
    if (!PyArg_ParseTuple(args, "O&y*", U64, &off, &b))
        return NULL;
    pccx_t *c = ctx_of(self, 1);
    PyObject *r = c ? done(c, pccx_host_write(c, off, b.buf, (size_t)b.len)) : NULL;
    PyBuffer_Release(&b);
    return r;
}

static PyObject *Pccx_host_read(PccxObject *self, PyObject *args)
{
    uint64_t off;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "O&n", U64, &off, &n))
        return NULL;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "npukit: negative length");
        return NULL;
    }
    pccx_t *c = ctx_of(self, 0);
    if (!c)
        return NULL;
    if (space_smaller_than(self->machine->m, "host", (uint64_t)n)) {
        char none; /* out of range: pccx_host_read says so and copies nothing */
        int r = pccx_host_read(c, off, &none, (size_t)n);
        return pccx_fail(c, r < 0 ? r : PCCX_E_HOST_RANGE);
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, n);
    if (!out)
        return NULL;
    int r = pccx_host_read(c, off, PyBytes_AS_STRING(out), (size_t)n);
    if (r < 0) {
        Py_DECREF(out);
        return pccx_fail(c, r);
    }
    return out;
}

static PyObject *Pccx_host_window(PccxObject *self, PyObject *args)
{
    uint64_t base;
    if (!PyArg_ParseTuple(args, "O&", U64, &base))
        return NULL;
    pccx_t *c = ctx_of(self, 1);
    return c ? done(c, pccx_host_window(c, base)) : NULL;
}

/* weight_int4(k, n, codes, row_stride_bytes, scales) -> handle; scales: n float32 values */
static PyObject *Pccx_weight_int4(PccxObject *self, PyObject *args)
{
    uint32_t k, n;
    uint64_t stride;
    Py_buffer codes, scales;
    if (!PyArg_ParseTuple(args, "O&O&y*O&y*", U32, &k, U32, &n, &codes, U64, &stride, &scales))
        return NULL;
    PyObject *r = NULL;
    pccx_t *c = ctx_of(self, 1);
    if (c) {
        /* the buffers must hold what the call reads: n rows of stride bytes (the last one
         * ceil(k/2)), n scales */
        uint64_t need = n ? (uint64_t)(n - 1) * stride + (k + 1) / 2 : 0;
        if ((uint64_t)codes.len < need || (uint64_t)scales.len < (uint64_t)n * sizeof(float)) {
            PyErr_Format(PyExc_ValueError, "npukit: weight_int4 k=%u n=%u stride=%llu needs %llu "
                         "code bytes and %u scales, got %zd bytes and %zd scale bytes", k, n,
                         (unsigned long long)stride, (unsigned long long)need, n, codes.len,
                         scales.len);
        } else {
            float *sc = PyMem_Malloc(n ? n * sizeof *sc : 1); /* alignment */
            if (!sc) {
                PyErr_NoMemory();
            } else {
                memcpy(sc, scales.buf, n * sizeof *sc);
                pccx_weight_t h = 0;
                int e = pccx_weight_int4(c, k, n, codes.buf, (size_t)stride, sc, &h);
                PyMem_Free(sc);
                r = e < 0 ? pccx_fail(c, e) : PyLong_FromUnsignedLong(h);
            }
        }
    }
    PyBuffer_Release(&codes);
    PyBuffer_Release(&scales);
    return r;
}

static PyObject *Pccx_weight_view_bf16(PccxObject *self, PyObject *args)
{
    uint64_t base;
    uint32_t n, k;
    int64_t sn, sk;
    if (!PyArg_ParseTuple(args, "O&O&O&O&O&", U64, &base, U32, &n, U32, &k, conv_i64, &sn,
                          conv_i64, &sk))
        return NULL;
    pccx_t *c = ctx_of(self, 1);
    if (!c)
        return NULL;
    pccx_weight_t h = 0;
    int e = pccx_weight_view_bf16(c, base, n, k, sn, sk, &h);
    return e < 0 ? pccx_fail(c, e) : PyLong_FromUnsignedLong(h);
}

static PyObject *weight_op(PccxObject *self, PyObject *args, int push)
{
    uint32_t h;
    if (!PyArg_ParseTuple(args, "O&", U32, &h))
        return NULL;
    pccx_t *c = ctx_of(self, 1);
    return c ? done(c, push ? pccx_weight_push(c, h) : pccx_weight_free(c, h)) : NULL;
}

static PyObject *Pccx_weight_push(PccxObject *self, PyObject *a) { return weight_op(self, a, 1); }
static PyObject *Pccx_weight_free(PccxObject *self, PyObject *a) { return weight_op(self, a, 0); }

static PyObject *Pccx_weight_pending(PccxObject *self, PyObject *unused)
{
    (void)unused;
    pccx_t *c = ctx_of(self, 0);
    return c ? PyLong_FromSize_t(pccx_weight_pending(c)) : NULL;
}

static PyObject *Pccx_reg_write(PccxObject *self, PyObject *args)
{
    uint32_t off;
    uint64_t v;
    int wide = 0;
    if (!PyArg_ParseTuple(args, "O&O&|p", U32, &off, U64, &v, &wide))
        return NULL;
    if (!wide && v > UINT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "npukit: a 32-bit register write takes 32 bits "
                        "(wide=True for 64)");
        return NULL;
    }
    pccx_t *c = ctx_of(self, 1);
    if (!c)
        return NULL;
    return done(c, wide ? pccx_reg_write64(c, off, v) : pccx_reg_write32(c, off, (uint32_t)v));
}

static PyObject *Pccx_reg_read(PccxObject *self, PyObject *args)
{
    uint32_t off;
    if (!PyArg_ParseTuple(args, "O&", U32, &off))
        return NULL;
    pccx_t *c = ctx_of(self, 1);
    return c ? PyLong_FromUnsignedLongLong(pccx_reg_read(c, off)) : NULL;
}

static PyObject *Pccx_cc_read(PccxObject *self, PyObject *args)
{
    uint32_t bank, index;
    if (!PyArg_ParseTuple(args, "O&O&", U32, &bank, U32, &index))
        return NULL;
    pccx_t *c = ctx_of(self, 0);
    if (!c)
        return NULL;
    uint32_t xyz[3];
    int e = pccx_cc_read(c, bank, index, xyz);
    return e < 0 ? pccx_fail(c, e) : Py_BuildValue("(III)", xyz[0], xyz[1], xyz[2]);
}

static PyObject *Pccx_emax(PccxObject *self, PyObject *args)
{
    PyObject *v = NULL;
    if (!PyArg_ParseTuple(args, "|O", &v))
        return NULL;
    pccx_t *c = ctx_of(self, v != NULL);
    if (!c)
        return NULL;
    if (!v)
        return PyFloat_FromDouble(pccx_emax_get(c));
    double d = PyFloat_AsDouble(v);
    if (d == -1.0 && PyErr_Occurred())
        return NULL;
    return done(c, pccx_emax_set(c, (float)d));
}

static PyObject *Pccx_host_advance(PccxObject *self, PyObject *args)
{
    uint64_t ns;
    if (!PyArg_ParseTuple(args, "O&", U64, &ns))
        return NULL;
    pccx_t *c = ctx_of(self, 1);
    return c ? done(c, pccx_host_advance(c, ns)) : NULL;
}

static const char *const engine_names[PCCX_N_ENGINES] = {"memset", "mem", "gemv", "gemm", "cvo"};

static PyObject *per_engine(const uint64_t *v)
{
    PyObject *d = PyDict_New();
    for (int i = 0; d && i < PCCX_N_ENGINES; i++) {
        PyObject *x = PyLong_FromUnsignedLongLong(v[i]);
        if (!x || PyDict_SetItemString(d, engine_names[i], x) < 0) {
            Py_XDECREF(x);
            Py_CLEAR(d);
            break;
        }
        Py_DECREF(x);
    }
    return d;
}

/* The §11.5 reports as a dict. */
static PyObject *Pccx_stats(PccxObject *self, PyObject *unused)
{
    (void)unused;
    pccx_t *c = ctx_of(self, 0);
    if (!c)
        return NULL;
    pccx_stats_t s;
    int e = pccx_stats(c, &s);
    if (e < 0)
        return pccx_fail(c, e);
    return Py_BuildValue(
        "{s:K,s:K,s:K,s:d,s:N,s:N,s:N,s:K,s:K,s:(KKKK),s:K,s:K,s:K,s:K,s:K,s:K}", "insns",
        (unsigned long long)s.insns, "dropped", (unsigned long long)s.dropped, "cycles",
        (unsigned long long)s.cycles, "seconds", s.seconds, "engine_busy",
        per_engine(s.engine_busy), "engine_insns", per_engine(s.engine_insns), "engine_idle",
        per_engine(s.engine_idle), "port_b_busy", (unsigned long long)s.port_b_busy,
        "acp_bytes", (unsigned long long)s.acp_bytes, "hp_bytes",
        (unsigned long long)s.hp_bytes[0], (unsigned long long)s.hp_bytes[1],
        (unsigned long long)s.hp_bytes[2], (unsigned long long)s.hp_bytes[3], "stall_fifo_full",
        (unsigned long long)s.stall_fifo_full, "stall_queue_full",
        (unsigned long long)s.stall_queue_full, "stall_sync_wait",
        (unsigned long long)s.stall_sync_wait, "hazard_wait", (unsigned long long)s.hazard_wait,
        "weights_streamed", (unsigned long long)s.weights_streamed, "macs",
        (unsigned long long)s.macs);
}

/* (code name, index, word, message) of the recorded fault, or None */
static PyObject *Pccx_last_error(PccxObject *self, PyObject *unused)
{
    (void)unused;
    pccx_t *c = ctx_of(self, 0);
    if (!c)
        return NULL;
    pccx_error_t e;
    if (pccx_last_error(c, &e) < 0 || e.code == PCCX_OK)
        Py_RETURN_NONE;
    return Py_BuildValue("(sKKs)", pccx_error_name(e.code), (unsigned long long)e.index,
                         (unsigned long long)e.word, e.message);
}

/* (a, d, s, c, engine name or None) of instruction `index` */
static PyObject *Pccx_insn_times(PccxObject *self, PyObject *args)
{
    uint64_t index;
    if (!PyArg_ParseTuple(args, "O&", U64, &index))
        return NULL;
    pccx_t *c = ctx_of(self, 0);
    if (!c)
        return NULL;
    pccx_times_t t;
    int e = pccx_insn_times(c, index, &t);
    if (e < 0)
        return pccx_fail(c, e);
    return Py_BuildValue("(KKKKs)", (unsigned long long)t.a, (unsigned long long)t.d,
                         (unsigned long long)t.s, (unsigned long long)t.c,
                         t.engine >= 0 && t.engine < PCCX_N_ENGINES ? engine_names[t.engine]
                                                                     : NULL);
}

static PyMethodDef Pccx_methods[] = {
    {"gemv", (PyCFunction)Pccx_gemv, METH_VARARGS, "gemv(dest, src, flags, size_ptr, shape_ptr, lanes)"},
    {"gemm", (PyCFunction)Pccx_gemm, METH_VARARGS, "gemm(dest, src, flags, size_ptr, shape_ptr, lanes)"},
    {"memcpy", (PyCFunction)Pccx_memcpy, METH_VARARGS,
     "memcpy(from_host, to_host, dest, src, aux, shape_ptr, async_)"},
    {"memset", (PyCFunction)Pccx_memset, METH_VARARGS, "memset(bank, index, a, b, c)"},
    {"cvo", (PyCFunction)Pccx_cvo, METH_VARARGS, "cvo(func, src, dst, length, flags, async_)"},
    {"issue", (PyCFunction)Pccx_issue, METH_VARARGS, "issue(word)"},
    {"sync", (PyCFunction)Pccx_sync, METH_VARARGS, "sync(timeout_us=0)"},
    {"reset", (PyCFunction)Pccx_reset, METH_NOARGS, "pccx_reset"},
    {"clear_error", (PyCFunction)Pccx_clear_error, METH_NOARGS, "pccx_clear_error"},
    {"host_write", (PyCFunction)Pccx_host_write, METH_VARARGS, "host_write(offset, bytes)"},
    {"host_read", (PyCFunction)Pccx_host_read, METH_VARARGS, "host_read(offset, n) -> bytes"},
    {"host_window", (PyCFunction)Pccx_host_window, METH_VARARGS, "host_window(base)"},
    {"weight_int4", (PyCFunction)Pccx_weight_int4, METH_VARARGS,
     "weight_int4(k, n, codes, row_stride, scales_f32) -> handle"},
    {"weight_view_bf16", (PyCFunction)Pccx_weight_view_bf16, METH_VARARGS,
     "weight_view_bf16(base, n, k, stride_n, stride_k) -> handle"},
    {"weight_push", (PyCFunction)Pccx_weight_push, METH_VARARGS, "weight_push(handle)"},
    {"weight_free", (PyCFunction)Pccx_weight_free, METH_VARARGS, "weight_free(handle)"},
    {"weight_pending", (PyCFunction)Pccx_weight_pending, METH_NOARGS, "queued tensors"},
    {"reg_write", (PyCFunction)Pccx_reg_write, METH_VARARGS, "reg_write(off, v, wide=False)"},
    {"reg_read", (PyCFunction)Pccx_reg_read, METH_VARARGS, "reg_read(off)"},
    {"cc_read", (PyCFunction)Pccx_cc_read, METH_VARARGS, "cc_read(bank, index) -> (x, y, z)"},
    {"emax", (PyCFunction)Pccx_emax, METH_VARARGS, "emax() -> float; emax(v) sets it"},
    {"host_advance", (PyCFunction)Pccx_host_advance, METH_VARARGS, "host_advance(ns)"},
    {"stats", (PyCFunction)Pccx_stats, METH_NOARGS, "the §11.5 reports"},
    {"last_error", (PyCFunction)Pccx_last_error, METH_NOARGS, "(code, index, word, message)"},
    {"insn_times", (PyCFunction)Pccx_insn_times, METH_VARARGS, "(a, d, s, c, engine)"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject PccxType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "npukit._core.Pccx",
    .tp_basicsize = sizeof(PccxObject),
    .tp_dealloc = (destructor)Pccx_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Pccx(machine) - the pccx host API over a pccx Machine",
    .tp_methods = Pccx_methods,
    .tp_init = (initproc)Pccx_init,
    .tp_new = PyType_GenericNew,
};

/* ---- pure encoders and the disassembler (no machine) ----------------------------------- */

PyObject *npk_py_pccx_disasm(PyObject *mod, PyObject *args)
{
    (void)mod;
    uint64_t w;
    int ext = 1;
    if (!PyArg_ParseTuple(args, "O&|p", U64, &w, &ext))
        return NULL;
    char buf[256];
    int n = pccx_disasm(w, ext, buf, sizeof buf);
    if (n < 0)
        return pccx_fail(NULL, n);
    return PyUnicode_FromString(buf);
}

/* The constants of pccx.h, so that Python does not write them again. */
int npk_py_pccx_constants(PyObject *mod)
{
    static const struct {
        const char *name;
        long value;
    } c[] = {
        {"PCCX_FLAG_FINDEMAX", PCCX_FLAG_FINDEMAX},
        {"PCCX_FLAG_ACCM", PCCX_FLAG_ACCM},
        {"PCCX_FLAG_W_SCALE", PCCX_FLAG_W_SCALE},
        {"PCCX_CVO_FLAG_SUB_EMAX", PCCX_CVO_FLAG_SUB_EMAX},
        {"PCCX_CVO_FLAG_RECIP_SCALE", PCCX_CVO_FLAG_RECIP_SCALE},
        {"PCCX_CVO_FLAG_ACCM", PCCX_CVO_FLAG_ACCM},
        {"PCCX_STATUS_BUSY", PCCX_STATUS_BUSY},
        {"PCCX_STATUS_DONE", PCCX_STATUS_DONE},
        {"PCCX_STATUS_ERROR", PCCX_STATUS_ERROR},
        {"PCCX_BANK_FMAP", PCCX_BANK_FMAP},
        {"PCCX_BANK_WEIGHT", PCCX_BANK_WEIGHT},
        {"PCCX_CC_ENTRIES", PCCX_CC_ENTRIES},
        {"PCCX_CVO_EXP", PCCX_CVO_EXP},
        {"PCCX_CVO_SQRT", PCCX_CVO_SQRT},
        {"PCCX_CVO_GELU", PCCX_CVO_GELU},
        {"PCCX_CVO_SIN", PCCX_CVO_SIN},
        {"PCCX_CVO_COS", PCCX_CVO_COS},
        {"PCCX_CVO_REDUCE_SUM", PCCX_CVO_REDUCE_SUM},
        {"PCCX_CVO_SCALE", PCCX_CVO_SCALE},
        {"PCCX_CVO_RECIP", PCCX_CVO_RECIP},
        {"PCCX_CVO_COPY", PCCX_CVO_COPY},
        {"PCCX_CVO_VMUL", PCCX_CVO_VMUL},
        {"PCCX_CVO_TANH", PCCX_CVO_TANH},
        {"PCCX_CVO_ADDS", PCCX_CVO_ADDS},
        {"PCCX_CVO_MAXS", PCCX_CVO_MAXS},
        {"PCCX_CVO_REDUCE_SUMSQ", PCCX_CVO_REDUCE_SUMSQ},
        {"PCCX_CVO_REDUCE_MAX", PCCX_CVO_REDUCE_MAX},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        if (PyModule_AddIntConstant(mod, c[i].name, c[i].value) < 0)
            return -1;
    return 0;
}
