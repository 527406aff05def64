/* `npukit sweep`: design-space sweeps (docs/sweeps.md). The sweep engine is the Python
 * package's (npukit.sweeps: process pool, Dask, plots), so this command finds the package
 * that belongs to this npukit and runs `PYTHON -m npukit sweep ARGS...` in its place:
 *   the build tree   <dir of npukit>/python            (build/npukit, build/python/npukit)
 *   installed        <dir of npukit>/../NPK_PYTHON_INSTALL_DIR
 * NPUKIT_PYTHON overrides the interpreter (default: the one the package was built for). In
 * the build tree NPUKIT_BUILD_DIR (unless set) names it, for {build} in a spec. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

#ifndef NPK_SWEEP_PYTHON
#define NPK_SWEEP_PYTHON ""
#endif
#ifndef NPK_SWEEP_PYDIR
#define NPK_SWEEP_PYDIR ""
#endif
/* A sanitizer build (make test's second pass): the package's extension carries ASan, the
 * interpreter does not, so the interpreter gets the shared ASan runtime preloaded, with leak
 * checking off (CPython keeps objects alive at exit by design). */
#ifndef NPK_SWEEP_PRELOAD
#define NPK_SWEEP_PRELOAD ""
#endif

static int has_package(const char *dir)
{
    char p[PATH_MAX];
    struct stat st;
    return snprintf(p, sizeof p, "%s/npukit/sweeps.py", dir) < (int)sizeof p &&
           stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int npk_cmd_sweep(int argc, char **argv)
{
    const char *python = getenv("NPUKIT_PYTHON");
    if (!python || !*python)
        python = NPK_SWEEP_PYTHON;
    char exe[PATH_MAX], dir[PATH_MAX] = "";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = 0;
        char cand[PATH_MAX];
        if (snprintf(cand, sizeof cand, "%s/python", exe) < (int)sizeof cand &&
            has_package(cand)) {
            snprintf(dir, sizeof dir, "%s", cand);
            /* the build tree: its tools ({build} in a spec's prepare command) are here */
            setenv("NPUKIT_BUILD_DIR", exe, 0);
        }
        else if (*NPK_SWEEP_PYDIR &&
                 snprintf(cand, sizeof cand, "%s/../%s", exe, NPK_SWEEP_PYDIR) < (int)sizeof cand &&
                 has_package(cand))
            snprintf(dir, sizeof dir, "%s", cand);
    }
    if (!*python || !*dir) {
        fprintf(stderr, "npukit sweep: this npukit was built without its Python package "
                        "(install python3-dev and rebuild; docs/sweeps.md)\n");
        return 125;
    }
    const char *old = getenv("PYTHONPATH");
    size_t len = strlen(dir) + (old && *old ? strlen(old) + 1 : 0) + 1;
    char *path = malloc(len);
    if (!path) {
        fprintf(stderr, "npukit sweep: out of memory\n");
        return 125;
    }
    snprintf(path, len, "%s%s%s", dir, old && *old ? ":" : "", old && *old ? old : "");
    setenv("PYTHONPATH", path, 1);
    free(path);
    if (*NPK_SWEEP_PRELOAD) {
        setenv("LD_PRELOAD", NPK_SWEEP_PRELOAD, 1);
        setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
    }
    /* python -m npukit sweep ARGS...: argv[0] is "sweep" */
    char **args = calloc((size_t)argc + 4, sizeof *args);
    if (!args) {
        fprintf(stderr, "npukit sweep: out of memory\n");
        return 125;
    }
    args[0] = (char *)python;
    args[1] = "-m";
    args[2] = "npukit";
    for (int i = 0; i < argc; i++)
        args[3 + i] = argv[i];
    fflush(stdout);
    execv(python, args);
    fprintf(stderr, "npukit sweep: cannot run %s: %s\n", python, strerror(errno));
    free(args);
    return 125;
}
