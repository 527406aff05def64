/* Helpers of the tinytpu front-end tests (see helpers.h). */
#define _POSIX_C_SOURCE 200809L
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tt_asm_text(const char *src, tt_format fmt, unsigned N, tt_format check, tt_program *p,
                char **diag)
{
    size_t len = 0;
    *diag = NULL;
    FILE *f = open_memstream(diag, &len);
    tt_program_init(p, N);
    int e = tt_assemble_for(src, "t.s", fmt, N, 0, check, p, f);
    fclose(f);
    return e;
}

char *tt_write_text(const tt_program *p, tt_format fmt, char *err, size_t err_size)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int rc = tt_write_program(p, fmt, f, err, err_size);
    fclose(f);
    if (rc) {
        free(buf);
        return NULL;
    }
    return buf;
}

uint64_t rng_next(rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * UINT64_C(2685821657736338717);
}

unsigned rng_below(rng *r, unsigned n)
{
    return n ? (unsigned)(rng_next(r) >> 33) % n : 0;
}

/* A value below 2^bits, often 0, small or the maximum. */
static uint16_t rnd_field(rng *r, unsigned bits)
{
    uint32_t max = bits >= 16 ? 0xFFFF : (1u << bits) - 1;
    switch (rng_below(r, 5)) {
    case 0: return 0;
    case 1: return (uint16_t)max;
    case 2: return (uint16_t)(rng_below(r, 4) & max);
    default: return (uint16_t)(rng_next(r) & max);
    }
}

void gen_program(rng *r, unsigned N, size_t n, const gen_opts *o, tt_program *p)
{
    tt_program_init(p, N);
    unsigned wsel = 9, waddr = 16, wrows = 16, wcols = 16;
    if (o->fit <= TT_FMT_WFULL) {
        unsigned lsb;
        tt_field_pos(o->fit, N, TT_F_SEL, 0, &lsb, &wsel);
        tt_field_pos(o->fit, N, TT_F_ADDR, 0, &lsb, &waddr);
        tt_field_pos(o->fit, N, TT_F_ROWS, 0, &lsb, &wrows);
        tt_field_pos(o->fit, N, TT_F_COLS, 0, &lsb, &wcols);
    }
    tt_cycle lv;
    memset(&lv, 0, sizeof lv);
    tt_cycle prev = lv;
    for (size_t k = 0; k < n; k++) {
        if (rng_below(r, 8) == 0)
            lv.pathway = (uint8_t)rng_below(r, 16);
        if (rng_below(r, 10) == 0)
            lv.leak = rnd_field(r, 16);
        if (rng_below(r, 10) == 0)
            lv.inv = rnd_field(r, 16);
        if (o->lr_changes && rng_below(r, 12) == 0)
            lv.lr = rnd_field(r, 16);
        tt_cycle c;
        memset(&c, 0, sizeof c);
        c.pathway = lv.pathway;
        c.leak = lv.leak;
        c.inv = lv.inv;
        c.lr = lv.lr;
        tt_hostw hw[TT_MAX_N];
        unsigned nh = 0;
        unsigned kind = rng_below(r, 16);
        if (o->resets && kind == 0) {
            c.rst = 1;
        } else if (kind < 7) {
            /* idle: runs come from repeated idle kinds */
        } else if (kind == 7 && prev.start) {
            c.start = 1, c.sel = prev.sel, c.addr = prev.addr, c.rows = prev.rows;
            c.cols = prev.cols, c.T = prev.T; /* a held read (issues once) */
        } else if (kind == 8 && o->raw_fields) {
            c.addr = rnd_field(r, waddr), c.rows = rnd_field(r, wrows), c.T = 1;
        } else {
            c.sw = (uint8_t)rng_below(r, 2);
            if (rng_below(r, 2)) {
                c.start = 1;
                c.sel = rng_below(r, 4) ? (uint16_t)rng_below(r, 7) : rnd_field(r, wsel);
                c.addr = rnd_field(r, waddr);
                c.rows = rnd_field(r, wrows);
                c.cols = rnd_field(r, wcols);
                c.T = (uint8_t)rng_below(r, 2);
            }
            /* host writes on distinct lanes; the order is kept by assembly (not by words) */
            for (unsigned l = 0; l < N; l++)
                if (rng_below(r, N + 1) < 2)
                    hw[nh++] = (tt_hostw){(uint16_t)l, rnd_field(r, 16)};
        }
        tt_program_add(p, &c, hw, nh);
        prev = c;
    }
}
