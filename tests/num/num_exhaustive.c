/* Exhaustive: every one of the 2^32 binary32 inputs converted to bf16, E4M3 and E5M2 in all
 * five rounding modes, saturating and not, results and flags compared with the table oracle
 * (oracle.c: nearest-neighbour selection over the format's value table in host doubles, which
 * the default test num_narrow cross-checks against MPFR). Positive inputs are walked in
 * increasing order so the table position only moves forward. Runs on every core (pthreads).
 * Usage: num_exhaustive [threads] [first last]  (a partial range of positive patterns). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "num/num.h"
#include "oracle.h"
#include "test.h"

static const orc_fmt *const fmts[3] = {&ORC_BF16, &ORC_E4M3, &ORC_E5M2};
static orc_tab tabs[3];

typedef struct job {
    uint32_t first, last; /* positive patterns, inclusive */
    unsigned long pass, fail;
} job;

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long printed;

static uint32_t lib(int fi, uint32_t x, int sat, npk_fenv *e)
{
    switch (fi) {
    case 0: return npk_f32_to_bf16_sat(x, sat, e);
    case 1: return npk_f32_to_e4m3(x, sat, e);
    default: return npk_f32_to_e5m2(x, sat, e);
    }
}

static void fail(job *j, int fi, int rm, int sat, uint32_t x, uint32_t got, unsigned gfl,
                 uint32_t want, unsigned wfl)
{
    j->fail++;
    pthread_mutex_lock(&print_lock);
    if (printed++ < 40)
        fprintf(stderr, "%s %s sat=%d of %08X: %X/%02X, want %X/%02X\n", orc_rm_name[rm],
                fmts[fi]->name, sat, x, got, gfl, want, wfl);
    pthread_mutex_unlock(&print_lock);
}

/* Expected results of finite or infinite x (not NaN) for both saturation modes. */
static void expect(int fi, uint32_t x, double v, int idx, int rm, uint32_t want[2], unsigned wfl[2])
{
    const orc_fmt *f = fmts[fi];
    uint32_t sign = (x >> 31) << (f->width - 1);
    if (isinf(v)) {
        want[0] = f->has_inf ? sign | f->inf_enc : sign | 0x7F;
        wfl[0] = f->has_inf ? 0 : O_NV;
        want[1] = sign | f->max_enc;
        wfl[1] = O_NX;
        return;
    }
    wfl[0] = 0;
    want[0] = orc_tab_round(&tabs[fi], v, idx, rm, 0, &wfl[0]);
    wfl[1] = wfl[0];
    /* saturation changes only the overflow result */
    want[1] = (wfl[0] & O_OF) ? sign | f->max_enc : want[0];
}

static void *worker(void *arg)
{
    job *j = arg;
    int idx[3], fi, rm, sat, s;
    uint32_t p;
    for (fi = 0; fi < 3; fi++)
        idx[fi] = orc_tab_find(&tabs[fi], j->first < 0x7F800000u ? orc_f32_val(j->first) : 0);
    for (p = j->first;; p++) {
        double av = orc_f32_val(p);
        if (p < 0x7F800000u)
            for (fi = 0; fi < 3; fi++)
                while (idx[fi] + 1 < tabs[fi].n && tabs[fi].val[idx[fi] + 1] <= av)
                    idx[fi]++;
        for (s = 0; s < 2; s++) {
            uint32_t x = p | (uint32_t)s << 31;
            double v = s ? -av : av;
            for (fi = 0; fi < 3; fi++) {
                if (p > 0x7F800000u) { /* NaN: canonical and propagated */
                    unsigned wfl = (p & 0x400000u) ? 0 : O_NV;
                    for (sat = 0; sat < 2; sat++) {
                        npk_fenv e;
                        uint32_t got, want;
                        npk_fenv_init(&e, NPK_RM_RNE);
                        got = lib(fi, x, sat, &e);
                        if (got == fmts[fi]->nan_enc && e.flags == wfl)
                            j->pass++;
                        else
                            fail(j, fi, 0, sat, x, got, e.flags, fmts[fi]->nan_enc, wfl);
                        npk_fenv_init(&e, NPK_RM_RNE);
                        e.opts = NPK_OPT_NAN_PROPAGATE;
                        got = lib(fi, x, sat, &e);
                        want = fi == 0 ? (x >> 16) | 0x0040 : 0x7Fu | (x >> 31) << 7;
                        if (got == want && e.flags == wfl)
                            j->pass++;
                        else
                            fail(j, fi, 0, sat, x, got, e.flags, want, wfl);
                    }
                    continue;
                }
                for (rm = 0; rm < 5; rm++) {
                    uint32_t want[2];
                    unsigned wfl[2];
                    expect(fi, x, v, idx[fi], rm, want, wfl);
                    for (sat = 0; sat < 2; sat++) {
                        npk_fenv e;
                        uint32_t got;
                        npk_fenv_init(&e, (npk_rm)rm);
                        got = lib(fi, x, sat, &e);
                        if (got == want[sat] && e.flags == wfl[sat])
                            j->pass++;
                        else
                            fail(j, fi, rm, sat, x, got, e.flags, want[sat], wfl[sat]);
                    }
                }
            }
        }
        if (p == j->last)
            break;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    long nthreads = sysconf(_SC_NPROCESSORS_ONLN);
    uint32_t first = 0, last = 0x7FFFFFFFu, span;
    long nchunks = 256, c, i;
    job *jobs;
    struct timespec t0, t1;
    unsigned long pass = 0, failn = 0;

    if (argc > 1)
        nthreads = atol(argv[1]);
    if (argc > 3) {
        first = (uint32_t)strtoul(argv[2], NULL, 0) & 0x7FFFFFFFu;
        last = (uint32_t)strtoul(argv[3], NULL, 0) & 0x7FFFFFFFu;
    }
    if (nthreads < 1)
        nthreads = 1;
    if (nthreads > 64)
        nthreads = 64;
    for (i = 0; i < 3; i++)
        orc_tab_build(&tabs[i], fmts[i]);
    span = last - first;
    if ((uint32_t)nchunks > span)
        nchunks = 1;
    jobs = calloc((size_t)nchunks, sizeof *jobs);
    for (c = 0; c < nchunks; c++) {
        jobs[c].first = first + (uint32_t)((uint64_t)span * (uint64_t)c / (uint64_t)nchunks) + (c ? 1 : 0);
        jobs[c].last = first + (uint32_t)((uint64_t)span * (uint64_t)(c + 1) / (uint64_t)nchunks);
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* chunks in waves of nthreads, progress after each wave */
    for (c = 0; c < nchunks; c += nthreads) {
        pthread_t th[64];
        long k, n = nchunks - c < nthreads ? nchunks - c : nthreads;
        double el;
        for (k = 0; k < n; k++)
            pthread_create(&th[k], NULL, worker, &jobs[c + k]);
        for (k = 0; k < n; k++)
            pthread_join(th[k], NULL);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        el = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        printf("patterns up to %08X done, %.0f s elapsed, about %.0f s to go\n", jobs[c + n - 1].last,
               el, el * (double)(nchunks - c - n) / (double)(c + n));
        fflush(stdout);
    }
    for (c = 0; c < nchunks; c++) {
        pass += jobs[c].pass;
        failn += jobs[c].fail;
    }
    printf("binary32 -> bf16/e4m3/e5m2, inputs %08X..%08X with both signs, 5 modes x 2 saturations\n",
           first, last);
    npk_test_pass = pass;
    npk_test_fail = failn;
    for (i = 0; i < 3; i++)
        orc_tab_free(&tabs[i]);
    free(jobs);
    return npk_test_done();
}
