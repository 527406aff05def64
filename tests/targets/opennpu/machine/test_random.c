/* opennpu random programs (fixed seeds; meant for the sanitizer build too): random legal and
 * illegal words over random register, LUT, accumulator and memory contents, in several
 * configurations. Invariants: no crash; the same program and state give the same final state
 * and ticks every time; the fast and the observed loop agree; a run that traps stops at the
 * first illegal word or faulting access with exactly the state (and ticks) of the instructions
 * before it, which a run of that prefix alone reproduces. */
#include "onpu_test.h"
#include "targets/opennpu/opennpu.h"

static uint64_t next(uint64_t *s)
{
    /* xorshift64* */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

#define NWORDS 40
#define MEMSZ 512

typedef struct world {
    char spec[128];
    unsigned L, K;
    int feeds;          /* feed-heavy: half the words are MMA feeds (runs of feeds are fused
                           in the fast loop at K = 8) */
    uint32_t prog[NWORDS];
    uint8_t rf[32 * 64], lut[2][256], acc[64 * 64 * 4], mem[MEMSZ];
} world;

static uint32_t random_word(uint64_t *s, const world *w)
{
    uint64_t r = next(s);
    if (r % 16 == 0)
        return (uint32_t)(r >> 32);            /* anything, mostly illegal */
    unsigned op = (unsigned)((r >> 8) % ONPU_N_OPS);
    if (w->feeds && next(s) % 2)
        op = next(s) % 4 ? ONPU_OP_MMA : ONPU_OP_MMA_LAST;
    while (op >= ONPU_OP_LD_B && op <= ONPU_OP_ST_VR && next(s) % 8 != 0)
        op = (unsigned)(next(s) % ONPU_N_OPS); /* fewer LD/ST: most bases are far out */
    uint32_t word = onpu_insns[op].match | ((uint32_t)(r >> 32) & ~onpu_insns[op].mask);
    if (onpu_insns[op].fmt == ONPU_FMT_R) {
        /* keep width and dtype legal most of the time */
        word &= ~0xC6000000u;
        word |= (uint32_t)(next(s) % 3) << 25 | (uint32_t)(next(s) % 3) << 30;
    }
    if (op <= ONPU_OP_ST_VR && op >= ONPU_OP_LD_B) {
        /* small offsets from VR0, whose lane 0 is kept small below */
        word = (word & 0x00007FFFu & ~0x000F8000u) | (uint32_t)(next(s) % 256) << 20;
    }
    if (op == ONPU_OP_VSETLUT_A || op == ONPU_OP_VSETLUT_B)
        word = (word & 0x000FFFFFu) | (uint32_t)(next(s) % (64 / w->K + 1)) << 20;
    return word;
}

static void make_world(world *w, uint64_t seed)
{
    static const unsigned Ks[] = {4, 8, 16, 32, 64};
    uint64_t s = seed * 0x9E3779B97F4A7C15u + 1;
    w->K = Ks[next(&s) % 5];
    w->feeds = seed % 4 == 3;
    if (w->feeds && seed % 8 == 3)
        w->K = 8;
    w->L = 4 * (unsigned)(1 + next(&s) % 8);
    snprintf(w->spec, sizeof w->spec, "opennpu:L=%u,K=%u,mem_size=%u,mem_latency=%u", w->L, w->K,
             MEMSZ, (unsigned)(1 + next(&s) % 4));
    /* a third of the programs all legal, a third with one illegal word somewhere, a third
     * with random words anywhere (memory faults come from the LD/ST in all of them) */
    onpu_cfg c = {w->L, w->K, MEMSZ, 1};
    onpu_decoded d;
    unsigned kind = (unsigned)(seed % 3), bad = (unsigned)(next(&s) % NWORDS);
    for (unsigned i = 0; i < NWORDS; i++) {
        int want_legal = kind == 0 || (kind == 1 && i != bad);
        do
            w->prog[i] = random_word(&s, w);
        while (kind != 2 && (onpu_decode(w->prog[i], &c, &d, NULL, 0) == 0) != want_legal);
    }
    for (size_t i = 0; i < sizeof w->rf; i++)
        w->rf[i] = (uint8_t)next(&s);
    for (unsigned k = 0; k < w->K; k++) /* VR0 lanes small: loads and stores often fit */
        for (unsigned b = 1; b < 4; b++)
            w->rf[b * w->K + k] = 0;
    for (size_t i = 0; i < sizeof w->lut; i++)
        w->lut[i / 256][i % 256] = (uint8_t)next(&s);
    for (size_t i = 0; i < sizeof w->acc; i++)
        w->acc[i] = (uint8_t)next(&s);
    for (size_t i = 0; i < sizeof w->mem; i++)
        w->mem[i] = (uint8_t)next(&s);
}

/* Everything a run leaves behind. */
typedef struct result {
    npk_stop stop;
    uint64_t ticks, insns, pc;
    uint8_t rf[32 * 64], lut[2][256], acc[64 * 64 * 4], mem[MEMSZ];
} result;

/* observed: 0 fast loop, 1 observed, n > 1 observed in chunks of n instructions, n < 0 fast
 * loop in chunks of -n instructions */
static void run_world(const world *w, size_t nwords, int observed, result *r)
{
    npk_machine *m = mk_prog(w->spec, w->prog, nwords);
    size_t rf = (size_t)w->L * w->K, acc = (size_t)w->K * w->K * 4;
    NPK_CHECK(npk_mem_write(m, "rf", 0, w->rf, rf) == NPK_OK);
    NPK_CHECK(npk_mem_write(m, "luta", 0, w->lut[0], 256) == NPK_OK);
    NPK_CHECK(npk_mem_write(m, "lutb", 0, w->lut[1], 256) == NPK_OK);
    NPK_CHECK(npk_mem_write(m, "acc", 0, w->acc, acc) == NPK_OK);
    NPK_CHECK(npk_mem_write(m, "mem", 0, w->mem, MEMSZ) == NPK_OK);
    memset(r, 0, sizeof *r);
    if (observed > 1) {
        npk_stats_enable(m, 1);
        do
            NPK_CHECK(npk_run(m, (uint64_t)observed, &r->stop) == NPK_OK);
        while (r->stop.reason == NPK_STOP_BUDGET);
        npk_stats s;
        npk_stats_get(m, &s);
        r->ticks = s.cycles;
        r->insns = s.insns;
    } else if (observed < 0) {
        do
            NPK_CHECK(npk_run(m, (uint64_t)-observed, &r->stop) == NPK_OK);
        while (r->stop.reason == NPK_STOP_BUDGET);
    } else if (observed) {
        r->ticks = run_ticks(m, &r->stop, NULL, 0);
        npk_stats s;
        npk_stats_get(m, &s);
        r->insns = s.insns;
    } else {
        NPK_CHECK(npk_run(m, 0, &r->stop) == NPK_OK);
    }
    npk_reg_read(m, "pc", &r->pc);
    npk_mem_read(m, "rf", 0, r->rf, rf);
    npk_mem_read(m, "luta", 0, r->lut[0], 256);
    npk_mem_read(m, "lutb", 0, r->lut[1], 256);
    npk_mem_read(m, "acc", 0, r->acc, acc);
    npk_mem_read(m, "mem", 0, r->mem, MEMSZ);
    npk_destroy(m);
}

static int same_state(const result *a, const result *b)
{
    return a->pc == b->pc && memcmp(a->rf, b->rf, sizeof a->rf) == 0 &&
           memcmp(a->lut, b->lut, sizeof a->lut) == 0 &&
           memcmp(a->acc, b->acc, sizeof a->acc) == 0 && memcmp(a->mem, b->mem, MEMSZ) == 0;
}

int main(void)
{
    static world w;
    static result fast, obs, again, chunked, prefix;
    unsigned traps = 0, illegal = 0, faults = 0, completed = 0;
    for (uint64_t seed = 1; seed <= 1500; seed++) {
        make_world(&w, seed);
        run_world(&w, NWORDS, 0, &fast);
        run_world(&w, NWORDS, 1, &obs);
        run_world(&w, NWORDS, 1, &again);
        /* determinism, and the fast loop agrees with the observed one */
        NPK_REPORT(same_state(&obs, &again) && obs.ticks == again.ticks &&
                       strcmp(obs.stop.message, again.stop.message) == 0,
                   "seed %llu: two observed runs differ\n", (unsigned long long)seed);
        NPK_REPORT(same_state(&fast, &obs) && fast.stop.reason == obs.stop.reason &&
                       strcmp(fast.stop.message, obs.stop.message) == 0,
                   "seed %llu: fast and observed runs differ\n", (unsigned long long)seed);
        /* runs cut into chunks by an instruction budget (as the CLI runs) change nothing */
        run_world(&w, NWORDS, 2 + (int)(seed % 5), &chunked);
        NPK_REPORT(same_state(&obs, &chunked) && obs.ticks == chunked.ticks &&
                       obs.insns == chunked.insns &&
                       strcmp(obs.stop.message, chunked.stop.message) == 0,
                   "seed %llu: chunked run differs\n", (unsigned long long)seed);
        run_world(&w, NWORDS, -(1 + (int)(seed % 4)), &chunked);
        NPK_REPORT(same_state(&fast, &chunked) && fast.stop.reason == chunked.stop.reason,
                   "seed %llu: fast run in chunks differs\n", (unsigned long long)seed);
        NPK_REPORT(obs.insns == obs.pc, "seed %llu: %llu retired, pc %llu\n",
                   (unsigned long long)seed, (unsigned long long)obs.insns,
                   (unsigned long long)obs.pc);
        if (obs.stop.reason == NPK_STOP_EXIT) {
            completed++;
            NPK_CHECK_EQ_U64(obs.pc, NWORDS);
            continue;
        }
        NPK_REPORT(obs.stop.reason == NPK_STOP_FAULT, "seed %llu: stop %d\n",
                   (unsigned long long)seed, (int)obs.stop.reason);
        traps++;
        /* every word before the trap is legal; the trapping one is illegal or an LD/ST */
        onpu_cfg c = {w.L, w.K, MEMSZ, 1};
        onpu_decoded d;
        for (uint64_t i = 0; i < obs.pc; i++)
            NPK_REPORT(onpu_decode(w.prog[i], &c, &d, NULL, 0) == 0,
                       "seed %llu: illegal word at %llu ran\n", (unsigned long long)seed,
                       (unsigned long long)i);
        int legal = onpu_decode(w.prog[obs.pc], &c, &d, NULL, 0) == 0;
        if (legal) {
            faults++;
            NPK_REPORT(d.op >= ONPU_OP_LD_B && d.op <= ONPU_OP_ST_VR &&
                           strstr(obs.stop.message, "memory fault") != NULL,
                       "seed %llu: legal word trapped: %s\n", (unsigned long long)seed,
                       obs.stop.message);
        } else {
            illegal++;
            NPK_CHECK_CONTAINS(obs.stop.message, "illegal instruction");
        }
        /* the trapping instruction had no effect: the prefix alone gives the same state */
        run_world(&w, (size_t)obs.pc, 1, &prefix);
        NPK_REPORT(prefix.stop.reason == NPK_STOP_EXIT && same_state(&prefix, &obs) &&
                       prefix.ticks == obs.ticks,
                   "seed %llu: trap at %llu changed state or ticks (%llu vs %llu)\n",
                   (unsigned long long)seed, (unsigned long long)obs.pc,
                   (unsigned long long)obs.ticks, (unsigned long long)prefix.ticks);
    }
    /* the generator exercises all three outcomes */
    printf("random programs: %u completed, %u illegal-word traps, %u memory faults\n", completed,
           illegal, faults);
    NPK_CHECK(completed > 100 && illegal > 100 && faults > 100);
    (void)traps;
    return npk_test_done();
}
