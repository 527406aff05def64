/* Shared by the opennpu machine tests: a small word encoder (spec §4 formats, checked against
 * the §7.4 example words), machines built through the public API, register/LUT/memory access
 * through the backdoor spaces, and runs that report ticks and per-instruction issue ticks. */
#ifndef ONPU_TEST_H
#define ONPU_TEST_H

#include <stdlib.h>

#include "npukit/npukit.h"
#include "test.h"

/* ---- encoder (§4.1, §4.2) -------------------------------------------------------------------- */

enum { VX = 0, VE = 1, VR = 2 };
enum { RNE = 0, RTZ = 1, FLOOR = 2, CEIL = 3 };
enum { OP_NOP = 0x00, OP_LD = 0x01, OP_ST = 0x02, OP_MMA = 0x03, OP_ARITH = 0x10,
       OP_LOGIC = 0x11, OP_REDUCE = 0x12, OP_LUT = 0x13, OP_CVT = 0x14, OP_BCAST = 0x15,
       OP_FP = 0x16, OP_FMA = 0x17, OP_MOV = 0x18 };
/* CVT format codes (§5.6.1) */
enum { F_S8 = 0, F_S16 = 1, F_S32 = 2, F_F32 = 3, F_BF16 = 4, F_BF8 = 5 };

/* Macros, so that tables of words are constant expressions. */
#define enc_r(opc, f3, f7, rd, rs1, rs2)                                                     \
    ((uint32_t)(f7) << 25 | (uint32_t)(rs2) << 20 | (uint32_t)(rs1) << 15 |                 \
     (uint32_t)(f3) << 12 | (uint32_t)(rd) << 7 | (uint32_t)(opc))
#define enc_i(opc, f3, rd, rs1, imm)                                                         \
    (((uint32_t)(imm) & 0xFFFu) << 20 | (uint32_t)(rs1) << 15 | (uint32_t)(f3) << 12 |       \
     (uint32_t)(rd) << 7 | (uint32_t)(opc))
#define enc_s(f3, rd, rs1, rs2, rs3, rnd)                                                    \
    ((uint32_t)(rs3) << 27 | (uint32_t)(rnd) << 25 | (uint32_t)(rs2) << 20 |                 \
     (uint32_t)(rs1) << 15 | (uint32_t)(f3) << 12 | (uint32_t)(rd) << 7 | (uint32_t)OP_FMA)
/* Standard attribute layout: width | sat << 4 (round and dtype 0). */
#define enc_std(opc, f3, cls, sat, rd, rs1, rs2) enc_r(opc, f3, (cls) | (sat) << 4, rd, rs1, rs2)
#define enc_fp(f3, rnd, rd, rs1, rs2) enc_r(OP_FP, f3, 0x22 | (rnd) << 2, rd, rs1, rs2)
#define enc_cvt(dst, src, sat, rnd, var, rd, rs1)                                            \
    enc_r(OP_CVT, dst, (src) | (sat) << 3 | (rnd) << 4 | (var) << 6, rd, rs1, 0)
#define enc_mma(f3, keep, rd, rs1, rs2)                                                      \
    enc_r(OP_MMA, f3, (f3) == 2 ? 0x02 : 0x02 | (keep) << 4, rd, rs1, rs2)

/* ---- machines ----------------------------------------------------------------------------- */

static inline npk_machine *mk(const char *spec)
{
    npk_machine *m = NULL;
    char err[256] = "";
    if (npk_create(&m, spec, NULL, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "npk_create(%s): %s\n", spec, err);
        exit(2);
    }
    return m;
}

/* Create and load a program of raw words (little-endian image). */
static inline npk_machine *mk_prog(const char *spec, const uint32_t *w, size_t n)
{
    npk_machine *m = mk(spec);
    uint8_t *img = malloc(4 * n + 1);
    for (size_t i = 0; i < n; i++)
        for (unsigned b = 0; b < 4; b++)
            img[4 * i + b] = (uint8_t)(w[i] >> (8 * b));
    npk_status st = npk_load_raw(m, img, 4 * n, 0);
    free(img);
    if (st != NPK_OK) {
        fprintf(stderr, "load: %s\n", npk_error(m));
        exit(2);
    }
    return m;
}

static inline unsigned cfg_k(npk_machine *m)
{
    const char *c = strstr(npk_config_string(m), "K=");
    return c ? (unsigned)atoi(c + 2) : 0;
}

/* Lane k of register i of a class through the view spaces (rf = VX, ve, vr). */
static inline void set_lane(npk_machine *m, unsigned cls, unsigned i, unsigned k, uint32_t v)
{
    static const char *const space[3] = {"rf", "ve", "vr"};
    unsigned bytes = 1u << cls;
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    NPK_CHECK(npk_mem_write(m, space[cls], ((uint64_t)i * cfg_k(m) + k) * bytes, b, bytes) ==
              NPK_OK);
}

static inline uint32_t get_lane(npk_machine *m, unsigned cls, unsigned i, unsigned k)
{
    static const char *const space[3] = {"rf", "ve", "vr"};
    unsigned bytes = 1u << cls;
    uint8_t b[4] = {0};
    NPK_CHECK(npk_mem_read(m, space[cls], ((uint64_t)i * cfg_k(m) + k) * bytes, b, bytes) ==
              NPK_OK);
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static inline void set_all(npk_machine *m, unsigned cls, unsigned i, uint32_t v)
{
    for (unsigned k = 0; k < cfg_k(m); k++)
        set_lane(m, cls, i, k, v);
}

/* Run to the end or a trap with statistics on; returns the tick count (§6.3). Issue ticks of
 * the retired instructions go to issue[0..] when non-NULL (from the text trace). */
static inline uint64_t run_ticks(npk_machine *m, npk_stop *stop, uint64_t *issue, size_t max)
{
    FILE *tr = issue ? tmpfile() : NULL;
    if (tr)
        npk_trace_text(m, tr);
    npk_stats_enable(m, 1);
    NPK_CHECK(npk_run(m, 0, stop) == NPK_OK);
    if (tr) {
        npk_trace_text(m, NULL);
        rewind(tr);
        char line[512];
        size_t n = 0;
        while (fgets(line, sizeof line, tr) && n < max)
            issue[n++] = strtoull(line, NULL, 10);
        fclose(tr);
    }
    npk_stats st;
    NPK_CHECK(npk_stats_get(m, &st) == NPK_OK);
    return st.cycles;
}

static inline uint64_t stat_extra(npk_machine *m, const char *name)
{
    npk_stats st;
    npk_stats_get(m, &st);
    for (size_t i = 0; i < st.n_extra; i++)
        if (strcmp(st.extra_name[i], name) == 0)
            return st.extra[i];
    NPK_REPORT(0, "no statistic %s\n", name);
    return 0;
}

#endif
