/* Helpers shared by the state-by-name tests of every target (tests/targets/<t>/.../test_state.c):
 * a machine with a program loaded, and register reads, writes and lookups by name that report
 * through test.h. Static inline functions: include it once, after test.h. */
#ifndef NPK_TESTS_STATE_H
#define NPK_TESTS_STATE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/npukit.h"
#include "test.h"

/* A machine of `spec` with the assembly `src` (named `name` in diagnostics) loaded; a test
 * that cannot even start stops here. */
static inline npk_machine *state_load(const char *spec, const char *src, const char *name)
{
    npk_machine *m = NULL;
    char err[256];
    if (npk_create(&m, spec, NULL, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "create: %s\n", err);
        exit(1);
    }
    if (npk_load_asm(m, src, name, stderr) != NPK_OK) {
        fprintf(stderr, "load: %s\n", npk_error(m));
        exit(1);
    }
    return m;
}

/* Register `name` by name; a failed read says why and gives a value no check expects. */
static inline uint64_t rd(npk_machine *m, const char *name)
{
    uint64_t v = 0xDEADBEEFDEADBEEFu;
    if (npk_reg_read(m, name, &v) != NPK_OK)
        fprintf(stderr, "read %s: %s\n", name, npk_error(m));
    return v;
}

static inline void wr(npk_machine *m, const char *name, uint64_t v)
{
    NPK_REPORT(npk_reg_write(m, name, v) == NPK_OK, "write %s: %s\n", name, npk_error(m));
}

/* The listed register of exactly this name (NULL: not listed). */
static inline const npk_reg_info *find(npk_machine *m, const char *name)
{
    for (size_t i = 0; i < npk_reg_count(m); i++)
        if (strcmp(npk_reg(m, i)->name, name) == 0)
            return npk_reg(m, i);
    return NULL;
}

#endif
