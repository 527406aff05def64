/* Oracles for the src/num tests, written independently of the code under test: format values
 * from the textbook formula, rounding by MPFR (integer rounding at the quantum, the definition
 * in opennpu §5.6.4) and a fast nearest-neighbour rounding over a table of a narrow format's
 * values in host doubles. Plus a deterministic random generator. */
#ifndef NPK_TEST_NUM_ORACLE_H
#define NPK_TEST_NUM_ORACLE_H

#include <stdint.h>

#include <mpfr.h>

/* Flag bits as RISC-V fflags defines them (checked against the library's in the tests). */
enum { O_NX = 1, O_UF = 2, O_OF = 4, O_DZ = 8, O_NV = 16 };
/* Rounding modes in RISC-V frm order. */
enum { O_RNE = 0, O_RTZ = 1, O_RDN = 2, O_RUP = 3, O_RMM = 4 };
extern const char *const orc_rm_name[5];

typedef struct orc_fmt {
    const char *name;
    int width, p, emin, emax; /* p counts the hidden bit */
    double maxval;            /* largest finite value */
    int has_inf;
    uint32_t inf_enc;  /* positive infinity (if any) */
    uint32_t nan_enc;  /* canonical NaN result (positive) */
    uint32_t max_enc;  /* encoding of maxval (checked against orc_encode in num_narrow) */
} orc_fmt;

extern const orc_fmt ORC_F32, ORC_BF16, ORC_E4M3, ORC_E5M2;

/* Value of an encoding by the formula (-1)^s (1 + m/2^M) 2^(e - bias), or m/2^M 2^(1 - bias)
 * for e = 0; *cls is 0 finite, 1 infinity, 2 NaN (NaN returns 0). */
double orc_decode(const orc_fmt *f, uint32_t enc, int *cls);
/* Encoding of a finite value that the format represents exactly (sign of zero from x). */
uint32_t orc_encode(const orc_fmt *f, double x);

/* The nonnegative finite values of a format in increasing order with their encodings. */
typedef struct orc_tab {
    const orc_fmt *f;
    int n;
    double *val;
    uint32_t *enc;
    double vtop; /* the first value past maxval with an unbounded exponent (E4M3: 480) */
} orc_tab;
void orc_tab_build(orc_tab *t, const orc_fmt *f);
void orc_tab_free(orc_tab *t);
/* Largest i with val[i] <= ax (ax >= 0 finite). */
int orc_tab_find(const orc_tab *t, double ax);
/* Round finite x (a binary32 value, so every difference below is exact in double) to the
 * table's format; idx must be orc_tab_find(t, |x|). Returns the encoding, ORs flags. */
uint32_t orc_tab_round(const orc_tab *t, double x, int idx, int rm, int sat, unsigned *flags);

/* MPFR oracle: round nonzero finite x (exact, or rounded to odd with at least p + 2 bits) to
 * format f with an unbounded exponent for tininess/overflow detection and gradual underflow
 * for the result. ftz: flush results that are tiny after rounding; sat: overflow gives max. */
uint32_t orc_mpfr_round(const orc_fmt *f, mpfr_srcptr x, int rm, int sat, int ftz,
                        unsigned *flags);
/* Make x (computed with RNDZ, ternary t) a round-to-odd stand-in: if inexact, add half an ulp
 * of its precision in magnitude (into y, which needs one more bit of precision). */
void orc_mpfr_odd(mpfr_ptr y, mpfr_srcptr x, int ternary);
mpfr_rnd_t orc_mpfr_rnd(int rm);

/* splitmix64 */
typedef struct orc_rng { uint64_t s; } orc_rng;
uint64_t orc_next(orc_rng *r);
/* A binary32 operand biased to interesting places: specials, boundaries, sparse and dense
 * significands, subnormals, extremes. */
uint32_t orc_f32_interesting(orc_rng *r);
/* The edge-case list for binary32 operands. */
extern const uint32_t orc_f32_edges[];
extern const int orc_f32_nedges;

static inline double orc_f32_val(uint32_t bits)
{
    union { uint32_t u; float f; } c;
    c.u = bits;
    return (double)c.f;
}
static inline uint32_t orc_f32_bits(float f)
{
    union { uint32_t u; float f; } c;
    c.f = f;
    return c.u;
}
static inline int orc_f32_isnan(uint32_t x) { return (x & 0x7FFFFFFFu) > 0x7F800000u; }
static inline int orc_f32_issnan(uint32_t x) { return orc_f32_isnan(x) && !(x & 0x400000u); }

#endif
