/* npukit._core.tinytpu_compile: the tinytpu schedule compiler (include/npukit/tinytpu.h) as a
 * module function returning a dict; python/npukit/tinytpu.py wraps it. */
#include "core.h"

#include "npukit/tinytpu.h"

PyObject *npk_py_tinytpu_compile(PyObject *mod, PyObject *args)
{
    (void)mod;
    const char *src, *name = "<net>", *format = NULL;
    if (!PyArg_ParseTuple(args, "s|sz", &src, &name, &format))
        return NULL;
    npk_tinytpu_compiled c;
    char err[1024] = "";
    npk_status st;
    Py_BEGIN_ALLOW_THREADS
    st = npk_tinytpu_compile(src, name, format, &c, err, sizeof err);
    Py_END_ALLOW_THREADS
    if (st != NPK_OK)
        return raise_status(st, err);
    PyObject *loss = PyList_New((Py_ssize_t)c.steps);
    for (unsigned i = 0; loss && i < c.steps; i++) {
        PyObject *v = PyFloat_FromDouble(c.loss[i]);
        if (!v) {
            Py_CLEAR(loss);
            break;
        }
        PyList_SET_ITEM(loss, (Py_ssize_t)i, v);
    }
    PyObject *r = loss ? Py_BuildValue(
        "{s:s#,s:s,s:s,s:K,s:K,s:K,s:I,s:N,s:O,s:y#}", "program", c.program,
        (Py_ssize_t)c.program_size, "settings", c.settings, "map", c.map, "cycles",
        (unsigned long long)c.cycles, "load_cycles", (unsigned long long)c.load_cycles,
        "step_cycles", (unsigned long long)c.step_cycles, "steps", c.steps, "loss", loss,
        "eval_loss", c.has_eval ? PyFloat_FromDouble(c.eval_loss) : Py_NewRef(Py_None), "ub",
        (const char *)c.ub, (Py_ssize_t)(2 * (size_t)c.words))
                       : NULL;
    npk_tinytpu_compiled_free(&c);
    return r;
}
