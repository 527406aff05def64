/* Activation table computation; see act_lut.h for the formats and rounding rule. */
#include "act_lut.h"

#include <math.h>
#include <string.h>

static const struct {
    const char *name;
    const char *summary;
    act_lut_format fmt;
} fns[ACT_LUT_COUNT] = {
    [ACT_LUT_TANH] = {"tanh", "tanh(x); in SQ1.6, out SQ1.6 (the tanh kernel)", {6, 0, 6, 0}},
    [ACT_LUT_SIGMOID] = {"sigmoid", "1/(1+exp(-x)); in SQ1.6, out UQ0.8", {6, 0, 8, 1}},
    [ACT_LUT_EXP] = {"exp", "exp(x); in SQ1.6, out UQ3.5, 1.0 -> 32 (softmax, bank A)",
                     {6, 0, 5, 1}},
    [ACT_LUT_RECIP] = {"recip",
                       "1/S, S = index (0 means 256); out UQ.14, round(16384/S)\n"
                       "            saturated to 255 (softmax, bank B)",
                       {0, 1, 14, 1}},
    [ACT_LUT_ERF] = {"erf", "erf(x); in SQ1.6, out SQ0.7", {6, 0, 7, 0}},
    [ACT_LUT_ERF_GELU] = {"erf-gelu", "erf(x/sqrt(2)); in SQ1.6, out SQ0.7 (the GELU kernel)",
                          {6, 0, 7, 0}},
};

const char *act_lut_name(act_lut_fn fn)
{
    return (unsigned)fn < ACT_LUT_COUNT ? fns[fn].name : NULL;
}

const char *act_lut_summary(act_lut_fn fn)
{
    return (unsigned)fn < ACT_LUT_COUNT ? fns[fn].summary : NULL;
}

int act_lut_find(const char *name, act_lut_fn *fn)
{
    for (unsigned i = 0; i < ACT_LUT_COUNT; i++)
        if (strcmp(name, fns[i].name) == 0) {
            *fn = (act_lut_fn)i;
            return 0;
        }
    return -1;
}

act_lut_format act_lut_default_format(act_lut_fn fn)
{
    act_lut_format none = {0, 0, 0, 0};
    return (unsigned)fn < ACT_LUT_COUNT ? fns[fn].fmt : none;
}

double act_lut_input(const act_lut_format *f, unsigned i)
{
    i &= 0xFFu;
    double v;
    if (f->in_unsigned)
        v = i == 0 ? 256.0 : (double)i;
    else
        v = (double)(i < 128 ? (int)i : (int)i - 256);
    return ldexp(v, -f->in_frac);
}

double act_lut_eval(act_lut_fn fn, double x)
{
    switch (fn) {
    case ACT_LUT_TANH: return tanh(x);
    case ACT_LUT_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case ACT_LUT_EXP: return exp(x);
    case ACT_LUT_RECIP: return 1.0 / x;   /* x is never 0: index 0 means 256 */
    case ACT_LUT_ERF: return erf(x);
    case ACT_LUT_ERF_GELU: return erf(x / sqrt(2.0));
    default: return 0.0;
    }
}

int act_lut_build(act_lut_fn fn, const act_lut_format *f, uint8_t table[256])
{
    if ((unsigned)fn >= ACT_LUT_COUNT || f->in_frac < 0 || f->in_frac > 7 || f->out_frac < 0 ||
        f->out_frac > 16)
        return -1;
    if (fn == ACT_LUT_RECIP && !f->in_unsigned)
        return -1;   /* 1/x needs a nonzero input: only the unsigned reading has none */
    const double lo = f->out_unsigned ? 0.0 : -128.0, hi = f->out_unsigned ? 255.0 : 127.0;
    for (unsigned i = 0; i < 256; i++) {
        double v = round(ldexp(act_lut_eval(fn, act_lut_input(f, i)), f->out_frac));
        if (v < lo)
            v = lo;
        if (v > hi)
            v = hi;
        table[i] = (uint8_t)(int)v;   /* two's complement byte of the entry */
    }
    return 0;
}
