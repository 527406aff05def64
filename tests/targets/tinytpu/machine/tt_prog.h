/* Shared by the tinytpu machine tests: programs built cycle by cycle in C (no assembler), a
 * machine loaded with one, and an independent Q8.8 reference written from spec A3 (plain
 * integer arithmetic, not src/num). */
#ifndef TT_PROG_H
#define TT_PROG_H

#include <stdlib.h>
#include <string.h>

#include "npukit/npukit.h"
#include "targets/tinytpu/machine.h"
#include "test.h"

/* ---- reference arithmetic (A3) ---- */
static inline int ref_sat(long v)
{
    return v > 32767 ? 32767 : v < -32768 ? -32768 : (int)v;
}
static inline int ref_mul(int a, int b)
{
    long p = (long)a * b + 128; /* floor((a*b + 128) / 256) */
    long q = p >= 0 ? p / 256 : -((-p + 255) / 256);
    return ref_sat(q);
}
static inline int ref_add(int a, int b)
{
    return ref_sat((long)a + b);
}
static inline int ref_sub(int a, int b)
{
    return ref_sat((long)a - b);
}
static inline int s16v(unsigned x)
{
    return x & 0x8000 ? (int)x - 65536 : (int)x;
}

/* ---- building programs ---- */
typedef struct pb {
    tt_program p;
    tt_cycle lv;        /* current levels: pathway, leak, inv, lr */
} pb;

static inline void pb_init(pb *b, unsigned N)
{
    memset(b, 0, sizeof *b);
    tt_program_init(&b->p, N);
}

/* cycle number of the next cycle added (1-based) */
static inline unsigned pb_next(const pb *b)
{
    return (unsigned)b->p.n + 1;
}

static inline void pb_add(pb *b, const tt_cycle *c, const tt_hostw *hw, unsigned nh)
{
    tt_cycle x = *c;
    x.pathway = b->lv.pathway, x.leak = b->lv.leak, x.inv = b->lv.inv, x.lr = b->lv.lr;
    NPK_CHECK(tt_program_add(&b->p, &x, hw, nh) == 0);
}

static inline void pb_idle(pb *b, unsigned n)
{
    tt_cycle c = {0};
    while (n--)
        pb_add(b, &c, NULL, 0);
}

/* idle cycles until the next cycle is cycle k */
static inline void pb_until(pb *b, unsigned k)
{
    NPK_CHECK(pb_next(b) <= k);
    while (pb_next(b) < k)
        pb_idle(b, 1);
}

static inline void pb_reset(pb *b)
{
    tt_cycle c = {0};
    c.rst = 1;
    pb_add(b, &c, NULL, 0);
}

/* one cycle: optional read (sel < 0: none), switch, host writes of lanes 0 .. nh-1 */
static inline void pb_cycle(pb *b, int sel, unsigned addr, unsigned rows, unsigned cols, int T,
                            int sw, const int *host, unsigned nh)
{
    tt_cycle c = {0};
    tt_hostw hw[TT_MAX_N] = {{0, 0}};
    if (sel >= 0) {
        c.start = 1, c.sel = (uint16_t)sel, c.addr = (uint16_t)addr;
        c.rows = (uint16_t)rows, c.cols = (uint16_t)cols, c.T = (uint8_t)T;
    }
    c.sw = (uint8_t)sw;
    unsigned n = 0;
    for (unsigned i = 0; i < nh; i++)
        if (host[i] != INT32_MIN)
            hw[n].lane = (uint16_t)i, hw[n++].value = (uint16_t)host[i];
    pb_add(b, &c, hw, n);
}

/* a machine running program b (the builder keeps its program) */
static inline npk_machine *pb_machine(pb *b, const char *spec)
{
    npk_machine *m = NULL;
    char err[256];
    if (npk_create(&m, spec, NULL, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "%s\n", err);
        exit(2);
    }
    if (tt_load_program(m, &b->p) != NPK_OK) {
        fprintf(stderr, "%s\n", npk_error(m));
        exit(2);
    }
    return m;
}

static inline unsigned ub_word(npk_machine *m, unsigned a)
{
    uint8_t b[2];
    NPK_CHECK(npk_mem_read(m, "ub", 2ull * a, b, 2) == NPK_OK);
    return (unsigned)b[0] | (unsigned)b[1] << 8;
}

#endif
