/* npukit._core: the CPython binding of libnpukit (docs/python.md). It maps the C API one to
 * one (include/npukit/npukit.h); everything friendlier (NumPy arrays, typed access, the stop
 * object, pickling, sweeps, the riscv-npu compatibility layer) is pure Python in
 * python/npukit/. No state outside the objects: each Machine owns one npk_machine.
 *
 * Threads: run() and step() release the GIL, so machines run in parallel threads. A Machine
 * is used by one thread at a time: a call on a machine that another thread is running raises
 * RuntimeError instead of waiting.
 *
 * Memory views: space_buffer() exports a space's bytes read-only and zero-copy where the
 * target keeps them in one block (npk_space_data). While any such export is alive, calls
 * that could move those bytes (load, reset, restore) raise BufferError, as bytearray does
 * when it would resize under an export. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "npukit/npukit.h"
#include "core.h"

/* Instructions per slice of a run: between slices the GIL is taken to check Ctrl-C and the
 * commit callback's exceptions. */
#define RUN_SLICE (UINT64_C(1) << 22)


PyObject *NpkError; /* npukit.NpkError, the base of every error the library reports */


/* ---- helpers ------------------------------------------------------------------------- */

PyObject *raise_error(const char *msg, const char *status)
{
    /* str(e) is the message; e.status the status name ("malformed input", ...) */
    PyObject *e = PyObject_CallFunction(NpkError, "s", msg);
    if (!e)
        return NULL;
    PyObject *name = PyUnicode_FromString(status);
    if (!name || PyObject_SetAttrString(e, "status", name) < 0) {
        Py_XDECREF(name);
        Py_DECREF(e);
        return NULL;
    }
    Py_DECREF(name);
    PyErr_SetObject(NpkError, e);
    Py_DECREF(e);
    return NULL;
}

PyObject *raise_status(npk_status st, const char *msg)
{
    if (st == NPK_ERR_NOMEM)
        return PyErr_NoMemory();
    return raise_error(msg && *msg ? msg : npk_status_name(st), npk_status_name(st));
}

static PyObject *fail(MachineObject *self, npk_status st)
{
    return raise_status(st, npk_error(self->m));
}

/* The machine may be read or written now: it exists and no other thread runs it (the commit
 * callback, called by the running thread, may read it, as the C API allows). */
int usable(MachineObject *self)
{
    if (!self->m) {
        PyErr_SetString(PyExc_ValueError, "npukit: the machine is closed");
        return 0;
    }
    if (self->busy && self->busy != PyThread_get_thread_ident()) {
        PyErr_SetString(PyExc_RuntimeError,
                        "npukit: the machine is running in another thread (a Machine is used "
                        "by one thread at a time)");
        return 0;
    }
    return 1;
}

/* The machine may be run, stepped, reset or reloaded: not even the commit callback of a run
 * under way may do that (the C API forbids it). */
int idle(MachineObject *self)
{
    if (!usable(self))
        return 0;
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "npukit: the machine is running (the commit "
                        "callback may read the machine, not run, step, reset or load it)");
        return 0;
    }
    return 1;
}

/* ... and its memory may move: no NumPy array or memoryview looks at it. */
static int movable(MachineObject *self, const char *what)
{
    if (!idle(self))
        return 0;
    if (self->exports > 0) {
        PyErr_Format(PyExc_BufferError,
                     "npukit: cannot %s while %zd view(s) of the machine's memory exist "
                     "(delete the arrays from Machine.mem() first, or use Machine.read)",
                     what, self->exports);
        return 0;
    }
    return 1;
}

static void close_streams(MachineObject *self)
{
    if (self->out)
        fclose(self->out);
    if (self->err)
        fclose(self->err);
    self->out = self->err = NULL;
    free(self->out_buf);
    free(self->err_buf);
    self->out_buf = self->err_buf = NULL;
    self->out_len = self->err_len = self->out_taken = self->err_taken = 0;
}

/* ---- lifecycle ----------------------------------------------------------------------- */

static int Machine_init(MachineObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"spec", "config", NULL};
    const char *spec, *config = "";
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s|s", kwlist, &spec, &config))
        return -1;
    if (self->m) {
        PyErr_SetString(PyExc_RuntimeError, "npukit: Machine.__init__ called twice");
        return -1;
    }
    char err[512] = "";
    npk_status st = npk_create(&self->m, spec, config, err, sizeof err);
    if (st != NPK_OK) {
        self->m = NULL;
        raise_status(st, err);
        return -1;
    }
    return 0;
}

static void Machine_dealloc(MachineObject *self)
{
    if (self->m) {
        npk_on_commit(self->m, NULL, NULL);
        npk_destroy(self->m);
    }
    close_streams(self);
    Py_CLEAR(self->on_commit);
    Py_CLEAR(self->cb_type);
    Py_CLEAR(self->cb_value);
    Py_CLEAR(self->cb_tb);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Machine_close(MachineObject *self, PyObject *unused)
{
    (void)unused;
    if (!self->m)
        Py_RETURN_NONE;
    if (!movable(self, "close the machine"))
        return NULL;
    npk_on_commit(self->m, NULL, NULL);
    npk_destroy(self->m);
    self->m = NULL;
    Py_RETURN_NONE;
}

static PyObject *Machine_reset(MachineObject *self, PyObject *unused)
{
    (void)unused;
    if (!movable(self, "reset"))
        return NULL;
    npk_status st = npk_reset(self->m);
    return st == NPK_OK ? Py_NewRef(Py_None) : fail(self, st);
}

static PyObject *Machine_get_target(MachineObject *self, void *c)
{
    (void)c;
    if (!usable(self))
        return NULL;
    return PyUnicode_FromString(npk_target_of(self->m));
}

static PyObject *Machine_get_config(MachineObject *self, void *c)
{
    (void)c;
    if (!usable(self))
        return NULL;
    return PyUnicode_FromString(npk_config_string(self->m));
}

static PyObject *Machine_get_insn_bytes(MachineObject *self, void *c)
{
    (void)c;
    if (!usable(self))
        return NULL;
    return PyLong_FromSize_t(npk_insn_bytes(self->m));
}

/* ---- guest output -------------------------------------------------------------------- */

/* mode: "capture" (memory, read with take_output) or "pass" (the process's stdout/stderr). */
static PyObject *Machine_set_output(MachineObject *self, PyObject *args)
{
    const char *mode;
    if (!PyArg_ParseTuple(args, "s", &mode) || !idle(self))
        return NULL;
    if (strcmp(mode, "pass") == 0) {
        npk_set_output(self->m, stdout, stderr);
        close_streams(self);
        self->capture = 0;
        Py_RETURN_NONE;
    }
    if (strcmp(mode, "capture") != 0) {
        PyErr_Format(PyExc_ValueError, "npukit: output must be 'capture' or 'pass', not '%s'",
                     mode);
        return NULL;
    }
    if (self->capture)
        Py_RETURN_NONE;
    self->out = open_memstream(&self->out_buf, &self->out_len);
    self->err = open_memstream(&self->err_buf, &self->err_len);
    if (!self->out || !self->err) {
        close_streams(self);
        return PyErr_NoMemory();
    }
    npk_set_output(self->m, self->out, self->err);
    self->capture = 1;
    Py_RETURN_NONE;
}

/* The captured output (stdout, stderr) written since the last call, as bytes. */
static PyObject *Machine_take_output(MachineObject *self, PyObject *unused)
{
    (void)unused;
    if (!usable(self))
        return NULL;
    if (!self->capture)
        return Py_BuildValue("(y#y#)", "", (Py_ssize_t)0, "", (Py_ssize_t)0);
    fflush(self->out);
    fflush(self->err);
    PyObject *r = Py_BuildValue("(y#y#)", self->out_buf + self->out_taken,
                                (Py_ssize_t)(self->out_len - self->out_taken),
                                self->err_buf + self->err_taken,
                                (Py_ssize_t)(self->err_len - self->err_taken));
    if (r) {
        self->out_taken = self->out_len;
        self->err_taken = self->err_len;
    }
    return r;
}

/* ---- loading ------------------------------------------------------------------------- */

/* Diagnostics of the assembler go to a memory stream; on failure they are the message. */
static PyObject *load_with_diag(MachineObject *self, int kind, const char *a, Py_buffer *b,
                                const char *name)
{
    char *diag = NULL;
    size_t dlen = 0;
    FILE *d = open_memstream(&diag, &dlen);
    if (!d)
        return PyErr_NoMemory();
    npk_status st;
    if (kind == 0)
        st = npk_load_file(self->m, a, d);
    else if (kind == 1)
        st = npk_load_bytes(self->m, b->buf, (size_t)b->len, name, d);
    else
        st = npk_load_asm(self->m, a, name, d);
    fclose(d);
    PyObject *r;
    if (st == NPK_OK) {
        r = PyUnicode_DecodeUTF8(diag, (Py_ssize_t)dlen, "replace"); /* warnings, if any */
    } else {
        /* the diagnostics name file:line:col; npk_error has the summary */
        const char *e = npk_error(self->m);
        size_t n = dlen + strlen(e) + 2;
        char *msg = malloc(n);
        if (!msg) {
            free(diag);
            return PyErr_NoMemory();
        }
        if (dlen && strstr(diag, e))
            snprintf(msg, n, "%.*s", (int)dlen, diag);
        else
            snprintf(msg, n, "%.*s%s", (int)dlen, diag, e);
        size_t len = strlen(msg);
        while (len && msg[len - 1] == '\n')
            msg[--len] = 0;
        r = raise_status(st, msg);
        free(msg);
    }
    free(diag);
    return r;
}

static PyObject *Machine_load_file(MachineObject *self, PyObject *args)
{
    PyObject *path;
    if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path))
        return NULL;
    PyObject *r = NULL;
    if (movable(self, "load a program"))
        r = load_with_diag(self, 0, PyBytes_AS_STRING(path), NULL, NULL);
    Py_DECREF(path);
    return r;
}

static PyObject *Machine_load_bytes(MachineObject *self, PyObject *args)
{
    Py_buffer b;
    const char *name = "<bytes>";
    if (!PyArg_ParseTuple(args, "y*|s", &b, &name))
        return NULL;
    PyObject *r = NULL;
    if (movable(self, "load a program"))
        r = load_with_diag(self, 1, NULL, &b, name);
    PyBuffer_Release(&b);
    return r;
}

static PyObject *Machine_load_asm(MachineObject *self, PyObject *args)
{
    const char *text, *name = "<asm>";
    if (!PyArg_ParseTuple(args, "s|s", &text, &name) || !movable(self, "load a program"))
        return NULL;
    return load_with_diag(self, 2, text, NULL, name);
}

static PyObject *Machine_load_raw(MachineObject *self, PyObject *args)
{
    Py_buffer b;
    uint64_t addr = 0;
    if (!PyArg_ParseTuple(args, "y*|O&", &b, npk_py_u64, &addr))
        return NULL;
    PyObject *r = NULL;
    if (movable(self, "load a program")) {
        npk_status st = npk_load_raw(self->m, b.buf, (size_t)b.len, addr);
        r = st == NPK_OK ? Py_NewRef(Py_None) : fail(self, st);
    }
    PyBuffer_Release(&b);
    return r;
}

/* ---- running ------------------------------------------------------------------------- */

static const char *reason_name(npk_stop_reason r)
{
    switch (r) {
    case NPK_STOP_NONE: return "none";
    case NPK_STOP_EXIT: return "exit";
    case NPK_STOP_BUDGET: return "budget";
    case NPK_STOP_FAULT: return "fault";
    case NPK_STOP_BREAKPOINT: return "breakpoint";
    case NPK_STOP_WATCHPOINT: return "watchpoint";
    }
    return "unknown";
}

static PyObject *stop_tuple(const npk_stop *s)
{
    unsigned nb = s->insn_bits / 8;
    unsigned char word[32];
    for (unsigned i = 0; i < nb && i < sizeof word; i++)
        word[i] = (unsigned char)(s->insn[i / 8] >> (8 * (i % 8)));
    return Py_BuildValue("(sLKsy#)", reason_name(s->reason), (long long)s->exit_code,
                         (unsigned long long)s->pc, s->message, word,
                         (Py_ssize_t)(nb < sizeof word ? nb : sizeof word));
}

/* The commit callback: called from the run with the GIL released. */
static void commit_cb(npk_machine *m, const npk_commit *c, void *ctx)
{
    (void)m;
    MachineObject *self = ctx;
    PyGILState_STATE g = PyGILState_Ensure();
    if (self->cb_type || !self->on_commit) {
        PyGILState_Release(g);
        return;
    }
    PyObject *effects = PyList_New((Py_ssize_t)c->n_effects);
    PyObject *rec = NULL;
    for (size_t i = 0; effects && i < c->n_effects; i++) {
        const npk_effect *e = &c->effects[i];
        const char *kind = e->kind == NPK_EFFECT_REG   ? "reg"
                           : e->kind == NPK_EFFECT_MEM ? "mem"
                                                       : "trap";
        PyObject *t = Py_BuildValue("(ssIKKKy#)", kind, e->name ? e->name : "", e->bits,
                                    (unsigned long long)e->addr, (unsigned long long)e->size,
                                    (unsigned long long)e->value,
                                    e->bytes ? (const char *)e->bytes : "",
                                    (Py_ssize_t)(e->bytes ? e->size : 0));
        if (!t) {
            Py_CLEAR(effects);
            break;
        }
        PyList_SET_ITEM(effects, (Py_ssize_t)i, t);
    }
    if (effects)
        rec = Py_BuildValue("(KKKy#iN)", (unsigned long long)c->seq,
                            (unsigned long long)c->cycle, (unsigned long long)c->pc,
                            c->word ? (const char *)c->word : "", (Py_ssize_t)c->word_bytes,
                            c->retired, effects);
    PyObject *r = rec ? PyObject_CallOneArg(self->on_commit, rec) : NULL;
    Py_XDECREF(rec);
    if (r) {
        Py_DECREF(r);
    } else {
        PyErr_Fetch(&self->cb_type, &self->cb_value, &self->cb_tb);
    }
    PyGILState_Release(g);
}

/* Raise the exception the commit callback raised (the run stopped at the end of its slice). */
static PyObject *raise_pending(MachineObject *self)
{
    PyErr_Restore(self->cb_type, self->cb_value, self->cb_tb);
    self->cb_type = self->cb_value = self->cb_tb = NULL;
    return NULL;
}

/* Run up to max_insns (0: until the program stops) in slices with the GIL released. */
static PyObject *Machine_run(MachineObject *self, PyObject *args)
{
    uint64_t max_insns = 0;
    if (!PyArg_ParseTuple(args, "|O&", npk_py_u64, &max_insns) || !idle(self))
        return NULL;
    npk_stop stop;
    memset(&stop, 0, sizeof stop);
    uint64_t left = max_insns;
    for (;;) {
        uint64_t slice = left == 0 || left > RUN_SLICE ? RUN_SLICE : left;
        npk_status st;
        self->busy = PyThread_get_thread_ident();
        Py_BEGIN_ALLOW_THREADS
        st = npk_run(self->m, slice, &stop);
        Py_END_ALLOW_THREADS
        self->busy = 0;
        if (st != NPK_OK)
            return fail(self, st);
        if (self->cb_type)
            return raise_pending(self);
        if (stop.reason != NPK_STOP_BUDGET)
            break;
        if (left) {
            left -= slice;
            if (left == 0)
                break;
        }
        if (PyErr_CheckSignals() != 0)
            return NULL;
    }
    return stop_tuple(&stop);
}

static PyObject *Machine_step(MachineObject *self, PyObject *unused)
{
    (void)unused;
    if (!idle(self))
        return NULL;
    npk_stop stop;
    memset(&stop, 0, sizeof stop);
    npk_status st;
    self->busy = PyThread_get_thread_ident();
    Py_BEGIN_ALLOW_THREADS
    st = npk_step(self->m, &stop);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (st != NPK_OK)
        return fail(self, st);
    if (self->cb_type)
        return raise_pending(self);
    return stop_tuple(&stop);
}

static PyObject *Machine_set_on_commit(MachineObject *self, PyObject *fn)
{
    if (!idle(self))
        return NULL;
    if (fn != Py_None && !PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "npukit: on_commit takes a callable or None");
        return NULL;
    }
    npk_status st = npk_on_commit(self->m, fn == Py_None ? NULL : commit_cb, self);
    if (st != NPK_OK)
        return fail(self, st);
    Py_XSETREF(self->on_commit, fn == Py_None ? NULL : Py_NewRef(fn));
    Py_RETURN_NONE;
}

/* ---- registers ----------------------------------------------------------------------- */

static PyObject *Machine_regs(MachineObject *self, PyObject *unused)
{
    (void)unused;
    if (!usable(self))
        return NULL;
    size_t n = npk_reg_count(self->m);
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        const npk_reg_info *r = npk_reg(self->m, i);
        PyObject *t = Py_BuildValue("(sIIi)", r->name, r->bits, r->flags,
                                    npk_reg_is_f32(self->m, i));
        if (!t) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, t);
    }
    return list;
}

/* The width of the register `name` (any case), 0 for no such register. */
static unsigned reg_bits(MachineObject *self, const char *name)
{
    for (size_t i = 0, n = npk_reg_count(self->m); i < n; i++)
        if (strcasecmp(npk_reg(self->m, i)->name, name) == 0)
            return npk_reg(self->m, i)->bits;
    return 0;
}

/* A register's value as an int (any width: wide ones from their little-endian bytes). */
static PyObject *Machine_reg_read(MachineObject *self, PyObject *args)
{
    const char *name;
    if (!PyArg_ParseTuple(args, "s", &name) || !usable(self))
        return NULL;
    unsigned bits = reg_bits(self, name);
    if (bits <= 64) {
        uint64_t v;
        npk_status st = npk_reg_read(self->m, name, &v);
        return st == NPK_OK ? PyLong_FromUnsignedLongLong(v) : fail(self, st);
    }
    size_t nb = (bits + 7) / 8;
    unsigned char *buf = malloc(nb);
    if (!buf)
        return PyErr_NoMemory();
    npk_status st = npk_reg_read_bytes(self->m, name, buf, nb);
    PyObject *r = st == NPK_OK ? _PyLong_FromByteArray(buf, nb, 1, 0) : fail(self, st);
    free(buf);
    return r;
}

static PyObject *Machine_reg_write(MachineObject *self, PyObject *args)
{
    const char *name;
    PyObject *value;
    if (!PyArg_ParseTuple(args, "sO!", &name, &PyLong_Type, &value) || !idle(self))
        return NULL;
    unsigned bits = reg_bits(self, name);
    if (bits == 0) { /* unknown: let the library say so */
        npk_status st = npk_reg_write(self->m, name, 0);
        return fail(self, st == NPK_OK ? NPK_ERR_ARG : st);
    }
    /* the value must fit the register: 0 .. 2^bits - 1, or a negative one of bits bits */
    PyObject *lim = PyLong_FromLong(1);
    PyObject *sh = lim ? PyLong_FromUnsignedLong(bits) : NULL;
    PyObject *top = sh ? PyNumber_Lshift(lim, sh) : NULL; /* 2^bits */
    PyObject *neg = top ? PyNumber_Negative(top) : NULL;
    int ok = neg && PyObject_RichCompareBool(value, top, Py_LT) == 1 &&
             PyObject_RichCompareBool(value, neg, Py_GE) == 1;
    PyObject *wrapped = ok ? PyNumber_Add(value, top) : NULL;   /* negative -> 2^bits + v */
    PyObject *u = wrapped ? PyNumber_Remainder(wrapped, top) : NULL;
    Py_XDECREF(lim), Py_XDECREF(sh), Py_XDECREF(neg), Py_XDECREF(wrapped);
    if (!ok) {
        Py_XDECREF(top);
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_OverflowError, "npukit: %R does not fit %s (%u bits)", value,
                         name, bits);
        return NULL;
    }
    Py_DECREF(top);
    if (!u)
        return NULL;
    size_t nb = (bits + 7) / 8;
    unsigned char *buf = calloc(nb < 8 ? 8 : nb, 1);
    if (!buf) {
        Py_DECREF(u);
        return PyErr_NoMemory();
    }
    int bad = _PyLong_AsByteArray((PyLongObject *)u, buf, nb < 8 ? 8 : nb, 1, 0);
    Py_DECREF(u);
    npk_status st = NPK_OK;
    if (bad == 0) {
        if (bits <= 64) {
            uint64_t v = 0;
            for (size_t i = 0; i < 8; i++)
                v |= (uint64_t)buf[i] << (8 * i);
            st = npk_reg_write(self->m, name, v);
        } else {
            st = npk_reg_write_bytes(self->m, name, buf, nb);
        }
    }
    free(buf);
    if (bad)
        return NULL;
    return st == NPK_OK ? Py_NewRef(Py_None) : fail(self, st);
}

/* ---- memory -------------------------------------------------------------------------- */

static PyObject *Machine_spaces(MachineObject *self, PyObject *unused)
{
    (void)unused;
    if (!usable(self))
        return NULL;
    size_t n = npk_space_count(self->m);
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        const npk_space_info *s = npk_space(self->m, i);
        PyObject *t = Py_BuildValue("(sKs)", s->name, (unsigned long long)s->size,
                                    s->summary ? s->summary : "");
        if (!t) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, t);
    }
    return list;
}

static int to_u64(PyObject *o, uint64_t *out, uint64_t max, const char *range)
{
    PyObject *i = PyNumber_Index(o);
    if (!i)
        return 0;
    unsigned long long v = PyLong_AsUnsignedLongLong(i);
    if ((v == (unsigned long long)-1 && PyErr_Occurred()) || v > max) {
        if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_OverflowError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_OverflowError, "npukit: %R is not in %s", i, range);
        }
        Py_DECREF(i);
        return 0;
    }
    Py_DECREF(i);
    *out = v;
    return 1;
}

int npk_py_u64(PyObject *o, void *p)
{
    return to_u64(o, (uint64_t *)p, UINT64_MAX, "0 .. 2**64-1");
}

int npk_py_u32(PyObject *o, void *p)
{
    uint64_t v;
    if (!to_u64(o, &v, UINT32_MAX, "0 .. 2**32-1"))
        return 0;
    *(uint32_t *)p = (uint32_t)v;
    return 1;
}

int space_smaller_than(const npk_machine *m, const char *space, uint64_t n)
{
    for (size_t i = 0; i < npk_space_count(m); i++) {
        const npk_space_info *sp = npk_space(m, i);
        if (strcasecmp(sp->name, space) == 0)
            return sp->size < n;
    }
    return 0;
}

static PyObject *Machine_mem_read(MachineObject *self, PyObject *args)
{
    const char *space;
    uint64_t addr;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "sO&n", &space, npk_py_u64, &addr, &n) || !usable(self))
        return NULL;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "npukit: negative length");
        return NULL;
    }
    if (space_smaller_than(self->m, space, (uint64_t)n)) {
        char none; /* out of range: the library says so and copies nothing */
        npk_status st = npk_mem_read(self->m, space, addr, &none, (size_t)n);
        return fail(self, st != NPK_OK ? st : NPK_ERR_RANGE);
    }
    PyObject *b = PyBytes_FromStringAndSize(NULL, n);
    if (!b)
        return NULL;
    npk_status st = npk_mem_read(self->m, space, addr, PyBytes_AS_STRING(b), (size_t)n);
    if (st != NPK_OK) {
        Py_DECREF(b);
        return fail(self, st);
    }
    return b;
}

static PyObject *Machine_mem_write(MachineObject *self, PyObject *args)
{
    const char *space;
    uint64_t addr;
    Py_buffer b;
    if (!PyArg_ParseTuple(args, "sO&y*", &space, npk_py_u64, &addr, &b))
        return NULL;
    PyObject *r = NULL;
    if (idle(self)) {
        npk_status st = npk_mem_write(self->m, space, addr, b.buf, (size_t)b.len);
        r = st == NPK_OK ? Py_NewRef(Py_None) : fail(self, st);
    }
    PyBuffer_Release(&b);
    return r;
}

/* A read-only exporter of one space's bytes (npk_space_data), holding the machine. */
typedef struct {
    PyObject_HEAD
    MachineObject *machine;
    const void *data;
    Py_ssize_t size;
} SpaceBufferObject;

static int SpaceBuffer_getbuffer(SpaceBufferObject *self, Py_buffer *view, int flags)
{
    if (!self->machine->m) {
        PyErr_SetString(PyExc_ValueError, "npukit: the machine is closed");
        return -1;
    }
    if (PyBuffer_FillInfo(view, (PyObject *)self, (void *)self->data, self->size, 1, flags) != 0)
        return -1;
    self->machine->exports++;
    return 0;
}

static void SpaceBuffer_releasebuffer(SpaceBufferObject *self, Py_buffer *view)
{
    (void)view;
    self->machine->exports--;
}

static void SpaceBuffer_dealloc(SpaceBufferObject *self)
{
    Py_XDECREF(self->machine);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyBufferProcs SpaceBuffer_as_buffer = {
    (getbufferproc)SpaceBuffer_getbuffer,
    (releasebufferproc)SpaceBuffer_releasebuffer,
};

static PyTypeObject SpaceBufferType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "npukit._core.SpaceBuffer",
    .tp_basicsize = sizeof(SpaceBufferObject),
    .tp_dealloc = (destructor)SpaceBuffer_dealloc,
    .tp_as_buffer = &SpaceBuffer_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "read-only bytes of one memory space (zero-copy)",
};

/* A SpaceBuffer over the space, or None when the target does not keep it in one block. */
static PyObject *Machine_space_buffer(MachineObject *self, PyObject *args)
{
    const char *space;
    if (!PyArg_ParseTuple(args, "s", &space) || !usable(self))
        return NULL;
    uint64_t size = 0;
    const void *p = npk_space_data(self->m, space, &size);
    if (!p) {
        /* an unknown space is an error; a space kept otherwise is None (copy instead) */
        for (size_t i = 0, n = npk_space_count(self->m); i < n; i++)
            if (strcasecmp(npk_space(self->m, i)->name, space) == 0)
                Py_RETURN_NONE;
        return fail(self, NPK_ERR_ARG);
    }
    if (size > (uint64_t)PY_SSIZE_T_MAX)
        Py_RETURN_NONE;
    SpaceBufferObject *b = PyObject_New(SpaceBufferObject, &SpaceBufferType);
    if (!b)
        return NULL;
    b->machine = (MachineObject *)Py_NewRef(self);
    b->data = p;
    b->size = (Py_ssize_t)size;
    return (PyObject *)b;
}

/* ---- symbols ------------------------------------------------------------------------- */

static PyObject *Machine_symbol(MachineObject *self, PyObject *args)
{
    const char *name;
    if (!PyArg_ParseTuple(args, "s", &name) || !usable(self))
        return NULL;
    uint64_t v, size = 0;
    npk_status st = npk_symbol(self->m, name, &v);
    if (st != NPK_OK)
        return fail(self, st);
    if (npk_symbol_size(self->m, name, &size) != NPK_OK)
        size = 0;
    return Py_BuildValue("(KK)", (unsigned long long)v, (unsigned long long)size);
}

static PyObject *Machine_write_symbol(MachineObject *self, PyObject *args)
{
    const char *name;
    Py_buffer b;
    if (!PyArg_ParseTuple(args, "sy*", &name, &b))
        return NULL;
    PyObject *r = NULL;
    if (idle(self)) {
        npk_status st = npk_write_symbol(self->m, name, b.buf, (size_t)b.len);
        r = st == NPK_OK ? Py_NewRef(Py_None) : fail(self, st);
    }
    PyBuffer_Release(&b);
    return r;
}

/* ---- statistics, timeline, disassembly ------------------------------------------------ */

static PyObject *Machine_stats_json(MachineObject *self, PyObject *unused)
{
    (void)unused;
    if (!usable(self))
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return PyErr_NoMemory();
    npk_status st = npk_stats_json(self->m, f);
    fclose(f);
    PyObject *r = st == NPK_OK ? PyUnicode_DecodeUTF8(buf, (Py_ssize_t)len, "strict")
                               : fail(self, st);
    free(buf);
    return r;
}

static PyObject *Machine_stats_enable(MachineObject *self, PyObject *args)
{
    int on;
    if (!PyArg_ParseTuple(args, "p", &on) || !idle(self))
        return NULL;
    npk_status st = npk_stats_enable(self->m, on);
    return st == NPK_OK ? Py_NewRef(Py_None) : fail(self, st);
}

static PyObject *Machine_timeline_open(MachineObject *self, PyObject *args)
{
    PyObject *path;
    if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path))
        return NULL;
    PyObject *r = NULL;
    if (idle(self)) {
        npk_status st = npk_timeline_open(self->m, PyBytes_AS_STRING(path));
        r = st == NPK_OK ? Py_NewRef(Py_None) : fail(self, st);
    }
    Py_DECREF(path);
    return r;
}

static PyObject *Machine_timeline_close(MachineObject *self, PyObject *unused)
{
    (void)unused;
    if (!idle(self))
        return NULL;
    npk_status st = npk_timeline_close(self->m);
    return st == NPK_OK ? Py_NewRef(Py_None) : fail(self, st);
}

static PyObject *Machine_disasm(MachineObject *self, PyObject *args)
{
    Py_buffer b;
    uint64_t pc = 0;
    if (!PyArg_ParseTuple(args, "y*|O&", &b, npk_py_u64, &pc))
        return NULL;
    PyObject *r = NULL;
    if (usable(self)) {
        if ((size_t)b.len < npk_insn_bytes(self->m)) {
            PyErr_Format(PyExc_ValueError, "npukit: an instruction of %s is %zu bytes, got %zd",
                         npk_target_of(self->m), npk_insn_bytes(self->m), b.len);
        } else {
            char text[256];
            npk_status st = npk_disasm(self->m, b.buf, pc, text, sizeof text);
            r = st == NPK_OK ? PyUnicode_FromString(text) : fail(self, st);
        }
    }
    PyBuffer_Release(&b);
    return r;
}

/* ---- snapshots, breakpoints, watchpoints ---------------------------------------------- */

static PyObject *Machine_snapshot(MachineObject *self, PyObject *unused)
{
    (void)unused;
    if (!usable(self))
        return NULL;
    uint8_t *data = NULL;
    size_t size = 0;
    npk_status st = npk_snapshot_save(self->m, &data, &size);
    if (st != NPK_OK)
        return fail(self, st);
    PyObject *r = PyBytes_FromStringAndSize((const char *)data, (Py_ssize_t)size);
    npk_free(data);
    return r;
}

static PyObject *Machine_restore(MachineObject *self, PyObject *args)
{
    Py_buffer b;
    const char *name = "snapshot";
    if (!PyArg_ParseTuple(args, "y*|s", &b, &name))
        return NULL;
    PyObject *r = NULL;
    if (movable(self, "restore a snapshot")) {
        npk_status st = npk_snapshot_restore(self->m, b.buf, (size_t)b.len, name);
        r = st == NPK_OK ? Py_NewRef(Py_None) : fail(self, st);
    }
    PyBuffer_Release(&b);
    return r;
}

static PyObject *Machine_break_add(MachineObject *self, PyObject *args)
{
    uint64_t pc;
    if (!PyArg_ParseTuple(args, "O&", npk_py_u64, &pc) || !idle(self))
        return NULL;
    npk_status st = npk_break_add(self->m, pc);
    return st == NPK_OK ? Py_NewRef(Py_None) : fail(self, st);
}

static PyObject *Machine_break_remove(MachineObject *self, PyObject *args)
{
    uint64_t pc;
    if (!PyArg_ParseTuple(args, "O&", npk_py_u64, &pc) || !idle(self))
        return NULL;
    npk_status st = npk_break_remove(self->m, pc);
    return st == NPK_OK ? Py_NewRef(Py_None) : fail(self, st);
}

static PyObject *Machine_watch_add(MachineObject *self, PyObject *args)
{
    const char *space, *mode = "w";
    uint64_t addr, len;
    if (!PyArg_ParseTuple(args, "sO&O&|s", &space, npk_py_u64, &addr, npk_py_u64, &len, &mode) ||
        !idle(self))
        return NULL;
    unsigned kind = 0;
    for (const char *p = mode; *p; p++) {
        if (*p == 'r')
            kind |= NPK_WATCH_READ;
        else if (*p == 'w')
            kind |= NPK_WATCH_WRITE;
        else {
            PyErr_Format(PyExc_ValueError, "npukit: watch mode is 'r', 'w' or 'rw', not '%s'",
                         mode);
            return NULL;
        }
    }
    unsigned id = 0;
    npk_status st = npk_watch_add(self->m, space, addr, len, kind, &id);
    return st == NPK_OK ? PyLong_FromUnsignedLong(id) : fail(self, st);
}

static PyObject *Machine_watch_remove(MachineObject *self, PyObject *args)
{
    uint32_t id;
    if (!PyArg_ParseTuple(args, "O&", npk_py_u32, &id) || !idle(self))
        return NULL;
    npk_status st = npk_watch_remove(self->m, id);
    return st == NPK_OK ? Py_NewRef(Py_None) : fail(self, st);
}

static PyMethodDef Machine_methods[] = {
    {"close", (PyCFunction)Machine_close, METH_NOARGS, "destroy the machine now"},
    {"reset", (PyCFunction)Machine_reset, METH_NOARGS, "npk_reset"},
    {"set_output", (PyCFunction)Machine_set_output, METH_VARARGS, "'capture' or 'pass'"},
    {"take_output", (PyCFunction)Machine_take_output, METH_NOARGS,
     "(stdout, stderr) bytes captured since the last call"},
    {"load_file", (PyCFunction)Machine_load_file, METH_VARARGS, "npk_load_file"},
    {"load_bytes", (PyCFunction)Machine_load_bytes, METH_VARARGS, "npk_load_bytes"},
    {"load_asm", (PyCFunction)Machine_load_asm, METH_VARARGS, "npk_load_asm"},
    {"load_raw", (PyCFunction)Machine_load_raw, METH_VARARGS, "npk_load_raw"},
    {"run", (PyCFunction)Machine_run, METH_VARARGS,
     "run(max_insns=0) -> (reason, exit_code, pc, message, insn_bytes)"},
    {"step", (PyCFunction)Machine_step, METH_NOARGS, "step() -> stop tuple"},
    {"set_on_commit", (PyCFunction)Machine_set_on_commit, METH_O,
     "call fn(record) for every commit record, or None"},
    {"regs", (PyCFunction)Machine_regs, METH_NOARGS, "[(name, bits, flags, is_f32)]"},
    {"reg_read", (PyCFunction)Machine_reg_read, METH_VARARGS, "reg_read(name) -> int"},
    {"reg_write", (PyCFunction)Machine_reg_write, METH_VARARGS, "reg_write(name, int)"},
    {"spaces", (PyCFunction)Machine_spaces, METH_NOARGS, "[(name, size, summary)]"},
    {"mem_read", (PyCFunction)Machine_mem_read, METH_VARARGS, "mem_read(space, addr, n)"},
    {"mem_write", (PyCFunction)Machine_mem_write, METH_VARARGS, "mem_write(space, addr, b)"},
    {"space_buffer", (PyCFunction)Machine_space_buffer, METH_VARARGS,
     "read-only zero-copy buffer of a space, or None"},
    {"symbol", (PyCFunction)Machine_symbol, METH_VARARGS, "symbol(name) -> (value, size)"},
    {"write_symbol", (PyCFunction)Machine_write_symbol, METH_VARARGS, "npk_write_symbol"},
    {"stats_json", (PyCFunction)Machine_stats_json, METH_NOARGS, "npk_stats_json"},
    {"stats_enable", (PyCFunction)Machine_stats_enable, METH_VARARGS, "npk_stats_enable"},
    {"timeline_open", (PyCFunction)Machine_timeline_open, METH_VARARGS, "npk_timeline_open"},
    {"timeline_close", (PyCFunction)Machine_timeline_close, METH_NOARGS, "npk_timeline_close"},
    {"disasm", (PyCFunction)Machine_disasm, METH_VARARGS, "disasm(word_bytes, pc=0)"},
    {"snapshot", (PyCFunction)Machine_snapshot, METH_NOARGS, "npk_snapshot_save"},
    {"restore", (PyCFunction)Machine_restore, METH_VARARGS, "npk_snapshot_restore"},
    {"break_add", (PyCFunction)Machine_break_add, METH_VARARGS, "npk_break_add"},
    {"break_remove", (PyCFunction)Machine_break_remove, METH_VARARGS, "npk_break_remove"},
    {"watch_add", (PyCFunction)Machine_watch_add, METH_VARARGS,
     "watch_add(space, addr, len, mode='w') -> id"},
    {"watch_remove", (PyCFunction)Machine_watch_remove, METH_VARARGS, "npk_watch_remove"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Machine_getset[] = {
    {"target", (getter)Machine_get_target, NULL, "target name", NULL},
    {"config", (getter)Machine_get_config, NULL, "effective configuration string", NULL},
    {"insn_bytes", (getter)Machine_get_insn_bytes, NULL, "bytes per instruction word", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject MachineType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "npukit._core.Machine",
    .tp_basicsize = sizeof(MachineObject),
    .tp_dealloc = (destructor)Machine_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Machine(spec, config='') - one simulated machine (npk_create)",
    .tp_methods = Machine_methods,
    .tp_getset = Machine_getset,
    .tp_init = (initproc)Machine_init,
    .tp_new = PyType_GenericNew,
};

/* ---- module functions ------------------------------------------------------------------ */

static PyObject *mod_targets(PyObject *mod, PyObject *unused)
{
    (void)mod, (void)unused;
    size_t n = npk_target_count();
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        PyObject *t = Py_BuildValue("(ss)", npk_target_name(i), npk_target_summary(i));
        if (!t) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, t);
    }
    return list;
}

static PyObject *mod_config_help(PyObject *mod, PyObject *args)
{
    (void)mod;
    const char *target;
    if (!PyArg_ParseTuple(args, "s", &target))
        return NULL;
    const char *h = npk_target_config_help(target);
    if (!h)
        Py_RETURN_NONE;
    return PyUnicode_FromString(h);
}

/* elems_to_f64(type, bytes) -> bytes of float64; elems_from_f64(type, float64 bytes) -> bytes */
static PyObject *mod_elems_to_f64(PyObject *mod, PyObject *args)
{
    (void)mod;
    const char *type;
    Py_buffer b;
    if (!PyArg_ParseTuple(args, "sy*", &type, &b))
        return NULL;
    size_t es = npk_elem_size(type);
    char err[256] = "";
    PyObject *r = NULL;
    if (es == 0 || b.len % (Py_ssize_t)es) {
        if (es == 0) {
            double dummy;
            npk_elems_to_f64(type, b.buf, 0, &dummy, err, sizeof err);
            raise_status(NPK_ERR_ARG, err);
        } else {
            PyErr_Format(PyExc_ValueError, "npukit: %zd bytes are not whole %s elements", b.len,
                         type);
        }
    } else {
        size_t count = (size_t)b.len / es;
        r = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(count * sizeof(double)));
        if (r && npk_elems_to_f64(type, b.buf, count, (double *)(void *)PyBytes_AS_STRING(r),
                                  err, sizeof err) != NPK_OK) {
            Py_CLEAR(r);
            raise_status(NPK_ERR_ARG, err);
        }
    }
    PyBuffer_Release(&b);
    return r;
}

static PyObject *mod_elems_from_f64(PyObject *mod, PyObject *args)
{
    (void)mod;
    const char *type;
    Py_buffer b;
    if (!PyArg_ParseTuple(args, "sy*", &type, &b))
        return NULL;
    size_t es = npk_elem_size(type);
    char err[256] = "";
    PyObject *r = NULL;
    if (b.len % (Py_ssize_t)sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "npukit: the input is not whole float64 values");
    } else {
        size_t count = (size_t)b.len / sizeof(double), bad = 0;
        r = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(count * (es ? es : 1)));
        npk_status st = NPK_OK;
        if (r) {
            double *tmp = malloc(count ? count * sizeof *tmp : 1); /* alignment */
            if (!tmp) {
                Py_CLEAR(r);
                PyErr_NoMemory();
            } else {
                memcpy(tmp, b.buf, count * sizeof *tmp);
                st = npk_elems_from_f64(type, tmp, count, PyBytes_AS_STRING(r), &bad, err,
                                        sizeof err);
                free(tmp);
            }
        }
        if (r && st != NPK_OK) {
            Py_CLEAR(r);
            if (st == NPK_ERR_RANGE)
                PyErr_Format(PyExc_ValueError, "npukit: %s", err);
            else
                raise_status(st, err);
        }
    }
    PyBuffer_Release(&b);
    return r;
}

static PyObject *mod_snapshot_info(PyObject *mod, PyObject *args)
{
    (void)mod;
    Py_buffer b;
    const char *name = "snapshot";
    if (!PyArg_ParseTuple(args, "y*|s", &b, &name))
        return NULL;
    char target[64], config[1024], err[512] = "";
    npk_status st = npk_snapshot_info(b.buf, (size_t)b.len, name, target, sizeof target, config,
                                      sizeof config, err, sizeof err);
    PyBuffer_Release(&b);
    if (st != NPK_OK)
        return raise_status(st, err);
    return Py_BuildValue("(ss)", target, config);
}

static PyMethodDef module_methods[] = {
    {"targets", mod_targets, METH_NOARGS, "[(name, summary)] of every target"},
    {"config_help", mod_config_help, METH_VARARGS, "a target's configuration keys"},
    {"elems_to_f64", mod_elems_to_f64, METH_VARARGS, "npk_elems_to_f64"},
    {"elems_from_f64", mod_elems_from_f64, METH_VARARGS, "npk_elems_from_f64"},
    {"snapshot_info", mod_snapshot_info, METH_VARARGS, "(target, config) of a snapshot"},
    {"pccx_disasm", npk_py_pccx_disasm, METH_VARARGS, "pccx_disasm(word, ext=True) -> text"},
    {"opennpu_gemm", npk_py_opennpu_gemm, METH_VARARGS,
     "opennpu_gemm(M, N, Kd, K, L, base, A=None, B=None) -> dict"},
    {"tinytpu_compile", npk_py_tinytpu_compile, METH_VARARGS,
     "tinytpu_compile(src, name='<net>', format=None) -> dict"},
    {"model_targets", npk_py_model_targets, METH_NOARGS, "[name] of the model targets"},
    {"model_supported", npk_py_model_supported, METH_NOARGS, "ONNX support built in"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "npukit._core",
    "The C binding of libnpukit; use the npukit package instead.", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void)
{
    if (PyType_Ready(&MachineType) < 0 || PyType_Ready(&SpaceBufferType) < 0 ||
        PyType_Ready(&PccxType) < 0 || PyType_Ready(&ModelType) < 0 ||
        PyType_Ready(&ModelSessionType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    NpkError = PyErr_NewExceptionWithDoc(
        "npukit.NpkError", "An error npukit reported: str(e) is its message, e.status the "
        "status name ('malformed input', 'out of range', ...).",
        PyExc_RuntimeError, NULL);
    if (!NpkError || PyModule_AddObjectRef(m, "NpkError", NpkError) < 0 ||
        PyModule_AddObjectRef(m, "Machine", (PyObject *)&MachineType) < 0 ||
        PyModule_AddObjectRef(m, "Pccx", (PyObject *)&PccxType) < 0 ||
        PyModule_AddObjectRef(m, "Model", (PyObject *)&ModelType) < 0 ||
        PyModule_AddStringConstant(m, "version", npk_version()) < 0 ||
        npk_py_pccx_constants(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
