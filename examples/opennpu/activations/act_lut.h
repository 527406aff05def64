/* 256-entry activation tables for the opennpu `vlut` banks (spec §5.5): the computation shared
 * by the onpu-lutgen tool and the kernel tests. No global state, no exit.
 *
 * Every table maps an index byte i (the raw VX lane that `vlut` looks up) to one byte:
 *
 *   x     = input value of index i:  signed input   (int8_t)i / 2^in_frac
 *                                    unsigned input i / 2^in_frac, where index 0 means 256
 *                                                   (a sum that wrapped; see the softmax kernel)
 *   v     = f(x) * 2^out_frac                         (computed in double)
 *   entry = v rounded to the nearest integer, ties away from zero (C round()),
 *           then saturated to [-128, 127] (signed output) or [0, 255] (unsigned output)
 *
 * Functions and their default formats (SQm.n = signed, n fraction bits; UQm.n = unsigned):
 *
 *   tanh      tanh(x)          in SQ1.6   out SQ1.6
 *   sigmoid   1/(1+exp(-x))    in SQ1.6   out UQ0.8
 *   exp       exp(x)           in SQ1.6   out UQ3.5  (1.0 -> 32; for the softmax kernel)
 *   recip     1/x              in UQ8.0   out UQ.14  (entry = round(16384/S), index 0 = 256)
 *   erf       erf(x)           in SQ1.6   out SQ0.7
 *   erf-gelu  erf(x/sqrt(2))   in SQ1.6   out SQ0.7  (for the GELU kernel)
 */
#ifndef ONPU_ACT_LUT_H
#define ONPU_ACT_LUT_H

#include <stdint.h>

typedef enum act_lut_fn {
    ACT_LUT_TANH,
    ACT_LUT_SIGMOID,
    ACT_LUT_EXP,
    ACT_LUT_RECIP,
    ACT_LUT_ERF,
    ACT_LUT_ERF_GELU,
    ACT_LUT_COUNT
} act_lut_fn;

typedef struct act_lut_format {
    int in_frac;      /* fraction bits of the input, 0 .. 7 */
    int in_unsigned;  /* 1: index read as unsigned (0 means 256); 0: as int8 */
    int out_frac;     /* fraction bits of the output, 0 .. 16 */
    int out_unsigned; /* 1: entries saturate to [0, 255]; 0: to [-128, 127] */
} act_lut_format;

/* Name ("tanh", ...) of a function, NULL for an unknown value. */
const char *act_lut_name(act_lut_fn fn);
/* One-line description of a function and its default format. */
const char *act_lut_summary(act_lut_fn fn);
/* Function by name; 0 on success, -1 if unknown. */
int act_lut_find(const char *name, act_lut_fn *fn);
/* The default format of a function (the one the kernels use). */
act_lut_format act_lut_default_format(act_lut_fn fn);
/* Input value of index i under a format. */
double act_lut_input(const act_lut_format *f, unsigned i);
/* The exact function value f(x) (before scaling and rounding). */
double act_lut_eval(act_lut_fn fn, double x);
/* Fill table[0..255]. Returns 0, or -1 for a bad function or format (fields out of range). */
int act_lut_build(act_lut_fn fn, const act_lut_format *f, uint8_t table[256]);

#endif
