/* Shared helpers of the tinytpu front-end tests: assembling text with the diagnostics captured,
 * writing a program to a string, and random programs. */
#ifndef NPK_TEST_TT_HELPERS_H
#define NPK_TEST_TT_HELPERS_H

#include <stddef.h>
#include <stdint.h>

#include "targets/tinytpu/tinytpu.h"

/* Assemble src (named "t.s") in format fmt for N lanes (lr0 = 0, check format `check`) into p
 * (initialised here). Returns the error count; *diag (malloc'ed, may be empty) gets the
 * diagnostics. */
int tt_asm_text(const char *src, tt_format fmt, unsigned N, tt_format check, tt_program *p,
                char **diag);

/* tt_write_program into a malloc'ed string (NULL on failure, message in err). */
char *tt_write_text(const tt_program *p, tt_format fmt, char *err, size_t err_size);

/* A small deterministic generator (xorshift64*). */
typedef struct rng {
    uint64_t s;
} rng;
uint64_t rng_next(rng *r);
unsigned rng_below(rng *r, unsigned n);

/* What a random program may contain. */
typedef struct gen_opts {
    tt_format fit;      /* every cycle fits this packed format (TT_FMT_ASM: any port value) */
    int resets;         /* reset cycles (with zero non-level fields) */
    int lr_changes;     /* lr varies; otherwise it is 0 everywhere */
    int raw_fields;     /* start = 0 cycles with read fields (need a raw word in assembly) */
} gen_opts;

/* A random program of n cycles for N lanes (p initialised here). Idle runs, level changes and
 * repeated reads are frequent. */
void gen_program(rng *r, unsigned N, size_t n, const gen_opts *o, tt_program *p);

#endif
