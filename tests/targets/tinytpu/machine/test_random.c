/* tinytpu random programs (fixed seeds; for the sanitizer build too): random reads on every
 * channel, host writes, switch bits, pathways, levels and reset cycles, at N = 2, 3 and 4
 * (and the vector PE rows against PE by PE at N = 4, 8, 16 and 32).
 * Invariants: no crash; the fast path with activity gating, the fast path without it
 * (gating=0) and the observed loop leave the same UB, wp and stop; runs cut into budget chunks
 * change nothing; the trace, with every register after every edge, is the same with and
 * without gating. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "tt_prog.h"

static uint64_t next(uint64_t *s)
{
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

#define UBW 160

static void random_program(pb *b, unsigned N, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15u + 7;
    b->lv.lr = (uint16_t)(next(&s) & 0x01FF);
    unsigned n = 60 + (unsigned)(next(&s) % 120);
    for (unsigned k = 0; k < n; k++) {
        uint64_t r = next(&s);
        if (r % 97 == 0) {
            pb_reset(b);
            continue;
        }
        if (r % 11 == 0)
            b->lv.pathway = (uint8_t)(next(&s) & 15);
        if (r % 13 == 0)
            b->lv.leak = (uint16_t)(next(&s) & 0xFFFF), b->lv.inv = (uint16_t)(next(&s) & 0x3FF);
        int host[TT_MAX_N];
        unsigned nh = 0;
        if (r % 3 == 0 && k < n / 2) { /* host words early (the UB fills up) */
            nh = N;
            for (unsigned i = 0; i < N; i++)
                host[i] = next(&s) % 3 ? (int)(next(&s) & 0x03FF) - 0x200 : INT32_MIN;
        }
        int sel = -1;
        unsigned addr = 0, rows = 0, cols = 0, T = 0;
        if (r % 4 == 1) {
            sel = (int)(next(&s) % 8); /* 7: no channel */
            addr = (unsigned)(next(&s) % (seed % 4 ? 40 : UBW + 8));
            rows = 1 + (unsigned)(next(&s) % 4);
            cols = 1 + (unsigned)(next(&s) % N);
            T = (unsigned)(next(&s) & 1);
        }
        int sw = next(&s) % 5 == 0;
        pb_cycle(b, sel, addr, rows, cols, (int)T, sw, host, nh);
    }
}

typedef struct result {
    npk_stop stop;
    uint8_t ub[2 * UBW];
    uint64_t wp, pc;
    char *trace;
} result;

/* mode 0 fast, 1 observed (trace), chunk > 0: fast in budget chunks; vector: 1 the PE rows
 * as vectors (N >= 3; the AVX2 copy where the host has it), 2 the same without AVX2 (the
 * baseline copy), 0 PE by PE */
static void run_v(pb *b, unsigned N, int gating, int vector, int observed, unsigned chunk,
                  result *r)
{
    char spec[160];
    snprintf(spec, sizeof spec,
             "tinytpu:lanes=%u,ub_words=%u,gating=%d,vector=%d,trace_reads=1,trace_regs=1", N,
             UBW, gating, vector != 0);
    npk_machine *m = pb_machine(b, spec);
    if (vector == 2)
        tt_state_of(m)->avx2 = 0;
    size_t len = 0;
    FILE *tr = NULL;
    r->trace = NULL;
    if (observed)
        tr = open_memstream(&r->trace, &len), npk_trace_text(m, tr);
    do
        NPK_CHECK(npk_run(m, chunk, &r->stop) == NPK_OK);
    while (r->stop.reason == NPK_STOP_BUDGET);
    if (tr)
        npk_trace_text(m, NULL), fclose(tr);
    npk_mem_read(m, "ub", 0, r->ub, sizeof r->ub);
    npk_reg_read(m, "wp", &r->wp);
    npk_reg_read(m, "cycle", &r->pc);
    npk_destroy(m);
}

static void run(pb *b, unsigned N, int gating, int observed, unsigned chunk, result *r)
{
    run_v(b, N, gating, 1, observed, chunk, r);
}

static int same(const result *a, const result *b)
{
    return a->stop.reason == b->stop.reason && strcmp(a->stop.message, b->stop.message) == 0 &&
           memcmp(a->ub, b->ub, sizeof a->ub) == 0 && a->wp == b->wp && a->pc == b->pc;
}

int main(void)
{
    unsigned faults = 0, ends = 0;
    for (uint64_t seed = 1; seed <= 600; seed++) {
        unsigned N = seed % 3 == 0 ? 3 : seed % 5 == 0 ? 4 : 2;
        pb b;
        pb_init(&b, N);
        random_program(&b, N, seed);
        result fast, slow, obs, obs_slow, chunked;
        run(&b, N, 1, 0, 0, &fast);
        run(&b, N, 0, 0, 0, &slow);
        run(&b, N, 1, 1, 0, &obs);
        run(&b, N, 0, 1, 0, &obs_slow);
        run(&b, N, 1, 0, 1 + (unsigned)(seed % 7), &chunked);
        NPK_REPORT(same(&fast, &slow), "seed %llu: gating changes the result\n",
                   (unsigned long long)seed);
        NPK_REPORT(same(&fast, &obs), "seed %llu: fast and observed differ\n",
                   (unsigned long long)seed);
        NPK_REPORT(same(&fast, &chunked), "seed %llu: budget chunks change the result\n",
                   (unsigned long long)seed);
        NPK_REPORT(obs.trace && obs_slow.trace && strcmp(obs.trace, obs_slow.trace) == 0,
                   "seed %llu: traces differ with gating\n", (unsigned long long)seed);
        faults += fast.stop.reason == NPK_STOP_FAULT;
        ends += fast.stop.reason == NPK_STOP_EXIT;
        free(obs.trace), free(obs_slow.trace);
        tt_program_free(&b.p);
    }
    printf("random programs: %u ran to the end, %u stopped on an out-of-range access\n", ends,
           faults);
    NPK_CHECK(ends > 100 && faults > 20); /* both kinds are exercised */

    /* The PE rows as vectors, skipping rows at rest (vector=1, gating=1: the default for
     * N >= 3), against PE by PE with nothing skipped (vector=0, gating=0): the same trace with
     * every register after every edge, and the fast path the same UB, wp and stop, at
     * N = 4, 8, 16 and 32. */
    static const unsigned sizes[] = {4, 8, 16, 32}, n_seeds[] = {80, 40, 12, 6};
    for (unsigned z = 0; z < 4; z++)
        for (uint64_t seed = 1; seed <= n_seeds[z]; seed++) {
            const unsigned N = sizes[z];
            pb b;
            pb_init(&b, N);
            random_program(&b, N, 1000 * (z + 1) + seed);
            result vec, ref, vec_fast, base_fast;
            run_v(&b, N, 1, 1, 1, 0, &vec);
            run_v(&b, N, 0, 0, 1, 0, &ref);
            run_v(&b, N, 1, 1, 0, 0, &vec_fast);
            run_v(&b, N, 1, 2, 0, 0, &base_fast);
            NPK_REPORT(same(&vec, &ref) && vec.trace && ref.trace &&
                           strcmp(vec.trace, ref.trace) == 0,
                       "N = %u, seed %llu: PE rows as vectors differ from PE by PE\n", N,
                       (unsigned long long)seed);
            NPK_REPORT(same(&vec_fast, &ref), "N = %u, seed %llu: fast vector path differs\n",
                       N, (unsigned long long)seed);
            NPK_REPORT(same(&base_fast, &ref),
                       "N = %u, seed %llu: fast vector path without AVX2 differs\n", N,
                       (unsigned long long)seed);
            free(vec.trace), free(ref.trace);
            tt_program_free(&b.p);
        }
    return npk_test_done();
}
