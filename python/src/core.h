/* Shared by the files of the extension npukit._core (python/src): the Machine object and the
 * error and state checks every binding uses. Names are global only within the module (the
 * extension is built with hidden visibility; only PyInit__core is exported). */
#ifndef NPK_PY_CORE_H
#define NPK_PY_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "npukit/npukit.h"

typedef struct {
    PyObject_HEAD
    npk_machine *m;
    unsigned long busy; /* the thread running the machine with the GIL released, or 0 */
    Py_ssize_t exports;
    int capture;       /* guest output goes to the memory streams below */
    FILE *out, *err;
    char *out_buf, *err_buf;
    size_t out_len, err_len, out_taken, err_taken;
    PyObject *on_commit;
    /* the exception the commit callback raised, pending (type, value, traceback) */
    PyObject *cb_type, *cb_value, *cb_tb;
} MachineObject;

extern PyTypeObject MachineType;
/* npukit.NpkError */
extern PyObject *NpkError;
/* Raise NpkError(msg) with e.status = status; returns NULL. */
PyObject *raise_error(const char *msg, const char *status);
/* The same with the name of an npk_status (NPK_ERR_NOMEM: MemoryError). */
PyObject *raise_status(npk_status st, const char *msg);
/* The machine exists and no other thread runs it (else an exception is set, 0). */
int usable(MachineObject *self);
/* ... and no run is under way at all (the commit callback may not run it). */
int idle(MachineObject *self);
/* The machine has a memory space `space` (case as npk_mem_read takes it) smaller than n bytes:
 * a read of n bytes from it cannot be in range, whatever the address. Readers ask before they
 * allocate n bytes, so a huge n is the library's range error, not a MemoryError. */
int space_smaller_than(const npk_machine *m, const char *space, uint64_t n);
/* "O&" converters for whole-number arguments (anything with __index__, numpy's integers too)
 * into uint64_t / uint32_t: a negative or too large number is an OverflowError naming it.
 * PyArg's own K and I formats would wrap it silently (2**64 to address 0). */
int npk_py_u64(PyObject *o, void *p);
int npk_py_u32(PyObject *o, void *p);

/* pccx.c: the pccx host API over a pccx machine (npukit._core.Pccx) */
extern PyTypeObject PccxType;
PyObject *npk_py_pccx_disasm(PyObject *mod, PyObject *args);
/* pccx.h's flag, bank and status constants as module attributes PCCX_* */
int npk_py_pccx_constants(PyObject *mod);
/* opennpu.c: the GEMM generator */
PyObject *npk_py_opennpu_gemm(PyObject *mod, PyObject *args);
/* model.c: the model API (include/npukit/model.h) */
extern PyTypeObject ModelType, ModelSessionType;
PyObject *npk_py_model_targets(PyObject *mod, PyObject *noargs);
PyObject *npk_py_model_supported(PyObject *mod, PyObject *noargs);
/* tinytpu.c: the schedule compiler */
PyObject *npk_py_tinytpu_compile(PyObject *mod, PyObject *args);

#endif
