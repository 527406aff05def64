/* npukit._core.opennpu_gemm: the opennpu GEMM generator (include/npukit/opennpu.h) as a module
 * function returning a dict; python/npukit/opennpu.py wraps it. */
#include "core.h"

#include <stdlib.h>
#include <string.h>

#include "npukit/opennpu.h"

/* opennpu_gemm(M, N, Kd, K, L, base, A=None, B=None) -> dict: the plan's layout, the program
 * text, its counts and, when A and B (row-major int8 bytes, M*Kd and Kd*N of them) are given,
 * the packed data image of [base, end). */
PyObject *npk_py_opennpu_gemm(PyObject *mod, PyObject *args)
{
    (void)mod;
    uint32_t M, N, Kd, K, L;
    uint64_t base;
    Py_buffer a = {0}, b = {0};
    if (!PyArg_ParseTuple(args, "O&O&O&O&O&O&|y*y*", npk_py_u32, &M, npk_py_u32, &N, npk_py_u32,
                          &Kd, npk_py_u32, &K, npk_py_u32, &L, npk_py_u64, &base, &a, &b))
        return NULL;
    PyObject *r = NULL, *image = NULL;
    char *prog = NULL;
    npk_opennpu_gemm_plan p;
    npk_opennpu_gemm_counts n;
    char err[512] = "";
    npk_status st = npk_opennpu_gemm_plan_make(&p, M, N, Kd, K, L, base, err, sizeof err);
    if (st != NPK_OK) {
        raise_status(st, err);
        goto out;
    }
    if ((a.buf != NULL) != (b.buf != NULL) ||
        (a.buf && ((size_t)a.len != (size_t)M * Kd || (size_t)b.len != (size_t)Kd * N))) {
        PyErr_Format(PyExc_ValueError,
                     "npukit: a GEMM %ux%ux%u packs A of %u x %u and B of %u x %u int8 values",
                     M, N, Kd, M, Kd, Kd, N);
        goto out;
    }
    if (a.buf) {
        image = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(p.end - p.base));
        if (!image)
            goto out;
        npk_opennpu_gemm_pack(&p, a.buf, b.buf, (uint8_t *)PyBytes_AS_STRING(image));
    }
    Py_BEGIN_ALLOW_THREADS
    prog = npk_opennpu_gemm_program(&p, &n);
    Py_END_ALLOW_THREADS
    if (!prog) {
        PyErr_NoMemory();
        goto out;
    }
    r = Py_BuildValue(
        "{s:s,s:{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K},"
        "s:{s:K,s:K,s:K,s:K,s:K,s:K,s:K},s:O}",
        "program", prog, "plan", "M", p.M, "N", p.N, "Kd", p.Kd, "K", p.K, "L", p.L, "tiles_m",
        p.tiles_m, "tiles_n", p.tiles_n, "quads", p.quads, "base", (unsigned long long)p.base,
        "a_addr", (unsigned long long)p.a_addr, "a_panel", (unsigned long long)p.a_panel,
        "b_addr", (unsigned long long)p.b_addr, "b_panel", (unsigned long long)p.b_panel,
        "c_addr", (unsigned long long)p.c_addr, "ldc", (unsigned long long)p.ldc, "end",
        (unsigned long long)p.end, "counts", "insns", (unsigned long long)n.insns, "feeds",
        (unsigned long long)n.feeds, "loads", (unsigned long long)n.loads, "stores",
        (unsigned long long)n.stores, "setup", (unsigned long long)n.setup, "ticks",
        (unsigned long long)n.ticks, "bound", (unsigned long long)n.bound, "image",
        image ? image : Py_None);
out:
    free(prog);
    Py_XDECREF(image);
    if (a.buf)
        PyBuffer_Release(&a);
    if (b.buf)
        PyBuffer_Release(&b);
    return r;
}
