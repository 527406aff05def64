/* The word-space sweep (spec §8): for every word w of a set and the configurations test,
 * top and (L = 8, K = 4), the decoder behaves (legal exactly when an independent transcription
 * of §4.3-§4.5 says so, the row matches, registers in range) and assembling onpu_disasm(w)
 * gives back w. Assembly is batched: one source of many lines per assembler run.
 *   test_onpu_sweep           a strided subset (every 2^16-th word, a multiplicative stride,
 *                             every low-15-bit pattern - opcode, rd, funct3 - under 8 high
 *                             patterns (bits [31:15]), one per CVT source code, and 4096 random
 *                             words of each isa.def row plus the canonical word of each)
 *   test_onpu_sweep --full    all 2^32 words for each configuration (ctest label exhaustive),
 *                             split over one thread per CPU
 *   test_onpu_sweep --full C  only configuration C (0 test, 1 top, 2 L8K4) */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "test.h"

/* ---- an independent transcription of §4.3-§4.5 ---------------------------------------------- */

/* Register fields a (opcode, funct3) uses (§4.4), for rd, rs1, rs2, rs3: x VX, e VE, r VR,
 * w the class funct7.width selects, d/s the destination/source class of a conversion,
 * '-' ignored. NULL: reserved funct3. */
static const char *ref_use(unsigned opc, unsigned f3, bool *std_r)
{
    static const char *const ldst[8] = {"xr--", "er--", "rr--", "xr--", "er--", "rr--"};
    static const char *const mma[8] = {"-xx-", "rxx-", "----"};
    static const char *const lut[8] = {"xx--", "xx--", NULL, NULL, "-r--", "-r--"};
    static const char *const fp[8] = {"rrr-", "rrr-", "rrr-", "rr--", "rr--", "rrr-", "rrr-"};
    static const char *const mov[8] = {"ww--", "e---", "e---"};
    *std_r = false;
    switch (opc) {
    case 0x00: return "----";
    case 0x01: case 0x02: return ldst[f3];
    case 0x03: *std_r = f3 < 3; return mma[f3];
    case 0x10: *std_r = true; return f3 == 3 || f3 == 4 ? "ww--" : "www-";
    case 0x11: *std_r = true; return f3 == 5 ? "ww--" : "www-";
    case 0x12: *std_r = true; return f3 < 6 ? "rw--" : NULL;
    case 0x13: *std_r = f3 < 2; return lut[f3];
    case 0x14: return "ds--";
    case 0x15: *std_r = f3 == 0; return f3 == 0 ? "ww--" : f3 == 1 ? "x---" : NULL;
    case 0x16: *std_r = true; return fp[f3];
    case 0x17: return f3 < 4 ? "rrrr" : NULL;
    case 0x18: *std_r = f3 == 0; return mov[f3];
    default: return NULL;
    }
}

static bool ref_legal(uint32_t w, const onpu_cfg *c)
{
    /* §5.6.2: (dst, src) codes; class of a code: s8 x, s16 e, s32 r, f32 r, bf16 e, bf8 x */
    static const unsigned pairs[12][2] = {{0, 2}, {2, 0}, {3, 2}, {2, 3}, {3, 0}, {0, 3},
                                          {3, 4}, {4, 3}, {3, 5}, {5, 3}, {1, 2}, {2, 1}};
    static const char code_cls[6] = {'x', 'e', 'r', 'r', 'e', 'x'};
    const unsigned opc = w & 0x7F, f3 = w >> 12 & 7, width = w >> 25 & 3;
    bool std_r;
    const char *use = ref_use(opc, f3, &std_r);
    if (!use)
        return false;
    char dcls = 0, scls = 0;
    if (opc == 0x14) {
        const unsigned src = w >> 25 & 7;
        for (int i = 0; i < 12; i++)
            if (pairs[i][0] == f3 && pairs[i][1] == src)
                dcls = code_cls[f3], scls = code_cls[src];
        if (!dcls)
            return false;
    }
    if (std_r && (width == 3 || w >> 30 == 3))
        return false;
    const unsigned field[4] = {w >> 7 & 31, w >> 15 & 31, w >> 20 & 31, w >> 27};
    for (int i = 0; i < 4; i++) {
        char k = use[i] == 'w' ? "xer"[width] : use[i] == 'd' ? dcls : use[i] == 's' ? scls : use[i];
        if ((k == 'x' && field[i] >= c->L) || (k == 'e' && (field[i] & 15) >= c->L / 2) ||
            (k == 'r' && (field[i] & 7) >= c->L / 4))
            return false;
    }
    if (opc == 0x13 && f3 >= 4) {
        const int imm = (int)(w >> 20) - (w >> 31 ? 4096 : 0);
        if (imm < 0 || imm >= (int)(64 / c->K))
            return false;
    }
    return true;
}

/* ---- the sweep ------------------------------------------------------------------------------ */

#define BATCH 65536
#define LINE 256

/* One sweeper: its own batch and counters, so that several run in parallel threads (the
 * library has no global state; the counters of test.h are merged at the end). */
typedef struct sweep {
    const onpu_cfg *cfg;
    const char *name;
    uint32_t words[BATCH];
    size_t n;
    char *text; /* BATCH lines */
    size_t len;
    unsigned long legal, canonical, total, pass, fail;
    uint64_t first, end; /* word range of a full sweep */
} sweep;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void check(sweep *s, bool ok, const char *fmt, ...)
{
    if (ok) {
        s->pass++;
        return;
    }
    if (s->fail++ < 20) {
        va_list ap;
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
    }
}

static void check_decode(sweep *s, uint32_t w)
{
    onpu_decoded d;
    char why[160];
    memset(&d, 0xA5, sizeof d);
    why[0] = '\0';
    const int rc = onpu_decode(w, s->cfg, &d, why, sizeof why);
    const bool ref = ref_legal(w, s->cfg);
    if (rc == 0) {
        const onpu_insn_info *in = d.op < ONPU_N_OPS ? &onpu_insns[d.op] : NULL;
        const unsigned vr = s->cfg->L / 4;
        check(s,
              ref && in && (w & in->mask) == in->match && d.rd < s->cfg->L &&
                  d.rs1 < s->cfg->L && d.rs2 < s->cfg->L && d.rs3 < vr && d.mma_rd < 8 &&
                  d.cls < 3 && d.src_cls < 3 && d.round < 4 && d.sat < 2 && d.keep < 2 &&
                  d.var < 2 && why[0] == '\0',
              "%s: 0x%08x decoded as legal (op %u), reference says %s\n", s->name, w, d.op,
              ref ? "legal" : "illegal");
        s->legal++;
    } else {
        check(s, rc == -1 && !ref && d.op == ONPU_OP_ILLEGAL && why[0] != '\0',
              "%s: 0x%08x: rc %d op %u why \"%s\", reference says %s\n", s->name, w, rc, d.op,
              why, ref ? "legal" : "illegal");
    }
}

/* Assemble the batch and compare; on a failure, find the failing lines one by one. */
static void flush(sweep *s)
{
    if (!s->n)
        return;
    s->text[s->len] = '\0';
    uint32_t *out;
    size_t n;
    char *diag;
    int errors = asm_src(s->text, s->cfg, &out, &n, &diag);
    bool ok = errors == 0 && n == s->n;
    for (size_t i = 0; ok && i < n; i++)
        ok = out[i] == s->words[i];
    check(s, ok, "%s: batch of %zu words from 0x%08x: %d errors, %zu words\n", s->name, s->n,
          s->words[0], errors, n);
    if (!ok) {
        char line[LINE];
        unsigned shown = 0;
        for (size_t i = 0; i < s->n && shown < 10; i++) {
            onpu_disasm(s->words[i], s->cfg, line, sizeof line);
            uint32_t back = asm_one(line, s->cfg);
            if (back != s->words[i]) {
                fprintf(stderr, "  0x%08x -> \"%s\" -> 0x%08x\n", s->words[i], line, back);
                shown++;
            }
        }
    }
    free(out);
    free(diag);
    s->n = 0;
    s->len = 0;
}

static void visit(sweep *s, uint32_t w)
{
    check_decode(s, w);
    char *line = s->text + s->len;
    int k = onpu_disasm(w, s->cfg, line, LINE);
    check(s, k > 0 && k < LINE - 1, "%s: 0x%08x: disassembly length %d\n", s->name, w, k);
    if (k <= 0 || k >= LINE - 1)
        k = snprintf(line, LINE, ".word 0x%08x", (unsigned)w);
    s->canonical += line[0] != '.';
    line[k] = '\n';
    s->len += (size_t)k + 1;
    s->words[s->n++] = w;
    s->total++;
    if (s->n == BATCH)
        flush(s);
}

static void run_subset(sweep *s)
{
    for (uint32_t i = 0; i < 1u << 16; i++) {
        visit(s, i << 16);         /* every 2^16-th word */
        visit(s, i * 0x9E3779B1u); /* a multiplicative stride over all bits */
    }
    /* every opcode/rd/funct3 pattern under high parts (bits [31:15]) that vary rs1, rs2 and
     * the attribute bits, one per CVT source code (bits [27:25] = bits [12:10] of the high
     * part) */
    static const uint32_t hi[8] = {0x00000, 0x00041, 0x0001F, 0x003E0,
                                   0x1FFFF, 0x0C63D, 0x00062, 0x18083};
    for (uint32_t lo = 0; lo < 1u << 15; lo++)
        for (uint32_t src = 0; src < 8; src++)
            visit(s, lo | ((hi[src] & ~(7u << 10)) | src << 10) << 15);
    /* every row with random other bits, and the canonical word of each legal one (so that
     * every row's text is assembled with nonzero operands) */
    uint32_t x = 0x2545F491u;
    for (unsigned op = 0; op < ONPU_N_OPS; op++)
        for (int i = 0; i < 4096; i++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5; /* xorshift32 */
            const uint32_t w = onpu_insns[op].match | (x & ~onpu_insns[op].mask);
            onpu_decoded d;
            visit(s, w);
            if (onpu_decode(w, s->cfg, &d, NULL, 0) == 0)
                visit(s, onpu_encode(&d));
        }
    flush(s);
}

static void *run_range(void *arg)
{
    sweep *s = arg;
    const time_t t0 = time(NULL);
    for (uint64_t w = s->first; w < s->end; w++) {
        visit(s, (uint32_t)w);
        if ((w & 0x0FFFFFFF) == 0x0FFFFFFF)
            fprintf(stderr, "%s: up to 0x%08x in %lds\n", s->name, (unsigned)w,
                    (long)(time(NULL) - t0));
    }
    flush(s);
    return NULL;
}

int main(int argc, char **argv)
{
    const bool full = argc > 1 && strcmp(argv[1], "--full") == 0;
    const int only = argc > 2 ? atoi(argv[2]) : -1;
    const onpu_cfg cfgs[3] = {cfg_make(32, 8), cfg_make(32, 64), cfg_make(8, 4)};
    static const char *const names[3] = {"test", "top", "L8K4"};
    long ncpu = full ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
    const unsigned nt = ncpu < 1 ? 1 : ncpu > 16 ? 16 : (unsigned)ncpu;
    sweep *s = calloc(nt, sizeof *s);
    char *text = malloc((size_t)nt * (BATCH * LINE + 1));
    pthread_t th[16];
    if (!s || !text) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int i = 0; i < 3; i++) {
        if (only >= 0 && only != i)
            continue;
        const time_t t0 = time(NULL);
        for (unsigned t = 0; t < nt; t++) {
            memset(&s[t], 0, sizeof s[t]);
            s[t].cfg = &cfgs[i];
            s[t].name = names[i];
            s[t].text = text + (size_t)t * (BATCH * LINE + 1);
            s[t].first = ((uint64_t)1 << 32) * t / nt;
            s[t].end = ((uint64_t)1 << 32) * (t + 1) / nt;
        }
        if (!full) {
            run_subset(&s[0]);
        } else {
            unsigned started = 0;
            for (; started < nt; started++)
                if (pthread_create(&th[started], NULL, run_range, &s[started]) != 0)
                    break;
            for (unsigned t = started; t < nt; t++)
                run_range(&s[t]); /* no thread: do it here */
            for (unsigned t = 0; t < started; t++)
                pthread_join(th[t], NULL);
        }
        unsigned long total = 0, legal = 0, canonical = 0;
        for (unsigned t = 0; t < nt; t++) {
            total += s[t].total;
            legal += s[t].legal;
            canonical += s[t].canonical;
            npk_test_pass += s[t].pass;
            npk_test_fail += s[t].fail;
        }
        printf("%s: %lu words, %lu legal, %lu canonical, %lds\n", names[i], total, legal,
               canonical, (long)(time(NULL) - t0));
        NPK_CHECK(legal > 0 && canonical > 0 && canonical <= legal);
        if (full)
            NPK_CHECK_EQ_U64(total, (uint64_t)1 << 32);
    }
    free(text);
    free(s);
    return npk_test_done();
}
