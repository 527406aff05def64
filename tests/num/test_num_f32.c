/* binary32 arithmetic against MPFR: results and all five flags in all five rounding modes, on
 * edge-case operand sets and 10^6 random biased ones per operation (argv[1] picks the
 * operation so ctest can run them in parallel; no argument runs all). */
#include <stdlib.h>
#include <string.h>

#include "num/num.h"
#include "oracle.h"
#include "test.h"

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_SQRT, OP_FMA, OP_FMS, OP_FNMSUB, OP_FNMADD, OP_N };
static const char *const op_name[OP_N] = {"add", "sub", "mul", "div", "sqrt",
                                          "fma", "fms", "fnmsub", "fnmadd"};
static unsigned long nfail_print;

static uint32_t lib(int op, uint32_t a, uint32_t b, uint32_t c, npk_fenv *e)
{
    switch (op) {
    case OP_ADD: return npk_f32_add(a, b, e);
    case OP_SUB: return npk_f32_sub(a, b, e);
    case OP_MUL: return npk_f32_mul(a, b, e);
    case OP_DIV: return npk_f32_div(a, b, e);
    case OP_SQRT: return npk_f32_sqrt(a, e);
    case OP_FMA: return npk_f32_fma(a, b, c, e);
    case OP_FMS: return npk_f32_fms(a, b, c, e);
    case OP_FNMSUB: return npk_f32_fnmsub(a, b, c, e);
    default: return npk_f32_fnmadd(a, b, c, e);
    }
}

static int is_inf(uint32_t x) { return (x & 0x7FFFFFFFu) == 0x7F800000u; }
static int is_zero(uint32_t x) { return (x & 0x7FFFFFFFu) == 0; }

static mpfr_t A, B, C, X, Z, Y;

/* The exact result of op in X (div and sqrt: rounded to odd at 80 bits). Returns 0 normally,
 * or 1 when X is an exact zero whose sign depends on the rounding mode. */
static void mpfr_op(int op, int rm)
{
    mpfr_rnd_t rnd = orc_mpfr_rnd(rm);
    int t;
    switch (op) {
    case OP_ADD: mpfr_add(X, A, B, rnd); break;
    case OP_SUB: mpfr_sub(X, A, B, rnd); break;
    case OP_MUL: mpfr_mul(X, A, B, rnd); break;
    case OP_DIV:
        t = mpfr_div(Z, A, B, MPFR_RNDZ);
        orc_mpfr_odd(X, Z, t);
        break;
    case OP_SQRT:
        t = mpfr_sqrt(Z, A, MPFR_RNDZ);
        orc_mpfr_odd(X, Z, t);
        break;
    default: /* the fma family: a*b + c with negations applied to the operands */
        mpfr_fma(X, A, B, C, rnd);
        break;
    }
}

/* The oracle's result and flags. */
static uint32_t oracle(int op, uint32_t a, uint32_t b, uint32_t c, int rm, unsigned *fl)
{
    int nin = op == OP_SQRT ? 1 : op >= OP_FMA ? 3 : 2;
    int anynan = orc_f32_isnan(a) || (nin > 1 && orc_f32_isnan(b)) || (nin > 2 && orc_f32_isnan(c));

    *fl = 0;
    if (orc_f32_issnan(a) || (nin > 1 && orc_f32_issnan(b)) || (nin > 2 && orc_f32_issnan(c)))
        *fl |= O_NV;
    if (anynan) {
        /* RISC-V: inf * 0 is invalid even when the addend is a quiet NaN */
        if (nin == 3 && !orc_f32_isnan(a) && !orc_f32_isnan(b) &&
            ((is_inf(a) && is_zero(b)) || (is_zero(a) && is_inf(b))))
            *fl |= O_NV;
        return 0x7FC00000u;
    }
    /* FMS etc. are fma with negated operands (RISC-V definition) */
    if (op == OP_FMS || op == OP_FNMADD)
        c ^= 0x80000000u;
    if (op == OP_FNMSUB || op == OP_FNMADD)
        a ^= 0x80000000u;
    mpfr_set_d(A, orc_f32_val(a), MPFR_RNDN);
    mpfr_set_d(B, orc_f32_val(b), MPFR_RNDN);
    mpfr_set_d(C, orc_f32_val(c), MPFR_RNDN);
    mpfr_clear_flags();
    mpfr_op(op, rm);
    if (mpfr_nan_p(X)) {
        *fl |= O_NV;
        return 0x7FC00000u;
    }
    if (mpfr_inf_p(X)) {
        if (mpfr_divby0_p())
            *fl |= O_DZ;
        return mpfr_signbit(X) ? 0xFF800000u : 0x7F800000u;
    }
    if (mpfr_zero_p(X))
        return mpfr_signbit(X) ? 0x80000000u : 0;
    return orc_mpfr_round(&ORC_F32, X, rm, 0, 0, fl);
}

static void check(int op, uint32_t a, uint32_t b, uint32_t c)
{
    int rm;
    for (rm = 0; rm < 5; rm++) {
        npk_fenv e;
        unsigned wfl;
        uint32_t want = oracle(op, a, b, c, rm, &wfl), got;
        npk_fenv_init(&e, (npk_rm)rm);
        got = lib(op, a, b, c, &e);
        if (got == want && e.flags == wfl) {
            npk_test_pass++;
            continue;
        }
        npk_test_fail++;
        if (nfail_print++ < 30)
            fprintf(stderr, "%s %s(%08X, %08X, %08X) = %08X flags %02X, want %08X flags %02X\n",
                    orc_rm_name[rm], op_name[op], a, b, c, got, e.flags, want, wfl);
    }
}

/* Operands for op, biased so results land near ties, cancellations and range limits. */
static void gen(int op, orc_rng *r, uint32_t *a, uint32_t *b, uint32_t *c)
{
    uint64_t v = orc_next(r);
    unsigned how = (unsigned)(v & 7), d = (unsigned)(v >> 8) & 0xFF;
    uint32_t ea, eb;

    *a = orc_f32_interesting(r);
    *b = orc_f32_interesting(r);
    *c = orc_f32_interesting(r);
    ea = (*a >> 23) & 0xFF;
    switch (op) {
    case OP_ADD:
    case OP_SUB:
        if (how < 3) { /* close exponents: cancellation and alignment */
            eb = ea + (d % 7) - 3;
            if (eb <= 254)
                *b = (*b & 0x807FFFFFu) | (eb << 23);
        } else if (how < 5) { /* near -a: massive cancellation */
            *b = (*a ^ (op == OP_ADD ? 0x80000000u : 0)) + (d % 9) - 4;
        }
        break;
    case OP_MUL:
    case OP_DIV:
        if (how < 3) { /* result exponent near the subnormal or overflow threshold */
            int target = (how == 0 ? 1 : how == 1 ? 254 : -20) + (int)(d % 9) - 4;
            int e = op == OP_MUL ? target - (int)ea + 127 : (int)ea - target + 127;
            if (e >= 0 && e <= 254)
                *b = (*b & 0x807FFFFFu) | ((uint32_t)e << 23);
        }
        break;
    case OP_SQRT:
        if (how < 6)
            *a &= 0x7FFFFFFFu;
        break;
    default:
        if (how < 3) { /* c near -(a*b): cancellation beyond the product's precision */
            double p = orc_f32_val(*a) * orc_f32_val(*b); /* exact in double */
            float pf = (float)p;
            uint32_t pb = orc_f32_bits(pf);
            if (!orc_f32_isnan(pb) && !is_inf(pb)) {
                *c = (pb ^ 0x80000000u) + (d % 5) - 2;
                if (op == OP_FMS || op == OP_FNMADD)
                    *c ^= 0x80000000u;
            }
        } else if (how < 5) { /* c's exponent near the product's */
            int e = (int)ea + (int)((*b >> 23) & 0xFF) - 127 + (int)(d % 61) - 30;
            if (e >= 0 && e <= 254)
                *c = (*c & 0x807FFFFFu) | ((uint32_t)e << 23);
        }
        break;
    }
}

static const uint32_t fma_edges[] = {0x00000000, 0x00000001, 0x007FFFFF, 0x00800000, 0x3F800000,
                                     0x3F800001, 0x3F7FFFFF, 0x40000000, 0x3F000000, 0x7F7FFFFF,
                                     0x7F800000, 0x7FC00000, 0x7F800001, 0x33800000, 0x1F800000,
                                     0x5F800000, 0x4B800000, 0x34000000, 0x00400000, 0x7F000000,
                                     0x0C000000, 0x3FFFFFFF};

static void run(int op, long nrandom)
{
    int i, j, k, n = orc_f32_nedges * 2;
    orc_rng r = {UINT64_C(0x5EED0000) + (uint64_t)op};
    unsigned long pass0 = npk_test_pass, fail0 = npk_test_fail;
    uint32_t *edge = malloc(sizeof(uint32_t) * (size_t)n);
    long t;

    for (i = 0; i < orc_f32_nedges; i++) {
        edge[2 * i] = orc_f32_edges[i];
        edge[2 * i + 1] = orc_f32_edges[i] ^ 0x80000000u;
    }
    if (op == OP_SQRT) {
        for (i = 0; i < n; i++)
            check(op, edge[i], 0, 0);
    } else if (op < OP_FMA) {
        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++)
                check(op, edge[i], edge[j], 0);
    } else {
        int m = (int)(sizeof fma_edges / sizeof fma_edges[0]) * 2;
        for (i = 0; i < m; i++)
            for (j = 0; j < m; j++)
                for (k = 0; k < m; k++)
                    check(op, fma_edges[i / 2] ^ (i & 1 ? 0x80000000u : 0),
                          fma_edges[j / 2] ^ (j & 1 ? 0x80000000u : 0),
                          fma_edges[k / 2] ^ (k & 1 ? 0x80000000u : 0));
    }
    for (t = 0; t < nrandom; t++) {
        uint32_t a, b, c;
        gen(op, &r, &a, &b, &c);
        check(op, a, b, c);
    }
    printf("%-7s %lu checks (%ld random operand sets x 5 modes + edges), %lu failed\n",
           op_name[op], (npk_test_pass - pass0) + (npk_test_fail - fail0), nrandom,
           npk_test_fail - fail0);
    free(edge);
}

int main(int argc, char **argv)
{
    int op, any = 0;
    long n = 1000000;

    NPK_CHECK((int)NPK_FLAG_NX == (int)O_NX && (int)NPK_FLAG_UF == (int)O_UF &&
              (int)NPK_FLAG_OF == (int)O_OF && (int)NPK_FLAG_DZ == (int)O_DZ &&
              (int)NPK_FLAG_NV == (int)O_NV);
    mpfr_inits2(24, A, B, C, (mpfr_ptr)0);
    mpfr_init2(X, 600);
    mpfr_init2(Z, 80);
    mpfr_init2(Y, 81);
    if (getenv("NPK_NUM_RANDOM"))
        n = atol(getenv("NPK_NUM_RANDOM"));
    for (op = 0; op < OP_N; op++) {
        /* the negated fma forms share the fma datapath: fewer random sets for them */
        long nr = op > OP_FMA ? n / 10 : n;
        if (argc < 2 || strcmp(argv[1], op_name[op]) == 0 ||
            (strcmp(argv[1], "fmavariants") == 0 && op > OP_FMA)) {
            run(op, nr);
            any = 1;
        }
    }
    NPK_CHECK(any);
    mpfr_clears(A, B, C, X, Z, Y, (mpfr_ptr)0);
    mpfr_free_cache();
    return npk_test_done();
}
