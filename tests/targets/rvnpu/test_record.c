/* rvnpu's recording loop (src/targets/rvnpu/exec.c, run_record; docs/commit-log.md "Cost")
 * against the observed loop: the same programs run once by npk_step (one instruction per
 * call, always the observed loop with its snapshot-and-compare records) and once by npk_run
 * with a callback (the recording loop), in lock-step: each record of the run is compared
 * byte for byte with the stepped machine's next record, together with the machine as the
 * callback sees it. At the end: the stop, guest output, registers and memory must be the
 * same, and with statistics on, the statistics and a snapshot of each machine (timing state
 * included) as well.
 * Programs: tests/core/commit/rvnpu.s, a program written here for the recording loop's edges,
 * and SDK firmware (integer, F, NPU, rev2).
 * usage: test_record COMMIT_DIR [FIRMWARE_DIR] */
#define _XOPEN_SOURCE 700
#include <stdlib.h>
#include <string.h>

#include "npukit/npukit.h"
#include "test.h"

/* Every instruction kind of exec_ops.h, x0 destinations, FP flags that change and ones that
 * do not, and everything the fast loops hand to their slow path between them: CSRs, NPU
 * instructions, a reserved rounding mode, traps of each kind with a handler that skips the
 * instruction, MMIO, a store to a code page and the instruction it wrote, the last bytes of
 * RAM, syscalls. 300 iterations, so that runs in chunks split it anywhere. */
static const char edge_prog[] =
    "_start:\n"
    "    la t0, handler\n"
    "    csrw mtvec, t0\n"
    "    la s0, data\n"
    "    li s1, 300\n"
    "    li a0, 1\n"
    "    fcvt.s.w fa0, a0\n"
    "    li a1, 3\n"
    "    fcvt.s.w fa1, a1\n"
    "    li a0, -7\n"
    "    fcvt.s.w fs0, a0\n"
    "loop:\n"
    "    lui t1, 0x12345\n"
    "    auipc t2, 0\n"
    "    addi t1, t1, -1\n"
    "    add t1, t1, s1\n"
    "    sw t1, 0(s0)\n"
    "    sh t1, 6(s0)\n"
    "    sb t1, 9(s0)\n"
    "    lb a2, 9(s0)\n"
    "    lh a3, 6(s0)\n"
    "    lbu a4, 9(s0)\n"
    "    lhu a5, 6(s0)\n"
    "    lw a6, 0(s0)\n"
    "    addi x0, a6, 1\n"
    "    lw x0, 0(s0)\n"
    "    add x0, a6, a6\n"
    "    mul t3, a6, s1\n"
    "    mulh t4, a6, a2\n"
    "    mulhsu t5, a2, s1\n"
    "    mulhu t6, a6, a6\n"
    "    div t3, a6, zero\n"
    "    rem t4, a6, s1\n"
    "    divu t5, a6, s1\n"
    "    remu t6, a6, zero\n"
    "    slt t3, a2, a3\n"
    "    sltu t4, a2, a3\n"
    "    sll t5, a6, s1\n"
    "    srl t6, a2, s1\n"
    "    sra t3, a2, s1\n"
    "    slti t4, a2, -5\n"
    "    sltiu t5, a2, 7\n"
    "    xori t6, a6, 0x55\n"
    "    ori t3, a6, -16\n"
    "    andi t4, a6, 0xf0\n"
    "    slli t5, a6, 7\n"
    "    srli t6, a2, 9\n"
    "    srai t3, a2, 3\n"
    "    sub t4, a6, a2\n"
    "    or t5, a6, a2\n"
    "    and t6, a6, a2\n"
    "    xor t3, a6, a2\n"
    "    fcvt.s.w fa3, s1\n"
    "    fdiv.s fa2, fa0, fa3\n" /* inexact: NX, reported */
    "    fdiv.s fa4, fa1, fa3\n" /* NX again: fflags unchanged, not reported */
    "    fsqrt.s fa5, fs0\n"     /* invalid: NV */
    "    fsqrt.s fa5, fa3\n"
    "    fmadd.s fa6, fa0, fa1, fa2\n"
    "    fmsub.s fa7, fa0, fa2, fa1\n"
    "    fnmsub.s fa6, fa1, fa2, fa0\n"
    "    fnmadd.s fa7, fa2, fa2, fa1\n"
    "    fadd.s fa6, fa2, fa4\n"
    "    fsub.s fa7, fa2, fa4\n"
    "    fmul.s fa6, fa2, fa4\n"
    "    fsgnj.s fa7, fa2, fs0\n"
    "    fsgnjn.s fa6, fa2, fs0\n"
    "    fsgnjx.s fa7, fs0, fs0\n"
    "    fmin.s fa6, fa2, fa5\n"
    "    fmax.s fa7, fa2, fa5\n"
    "    feq.s a2, fa2, fa4\n"
    "    flt.s a3, fa2, fa4\n"
    "    fle.s a4, fa4, fa2\n"
    "    fcvt.w.s a5, fa4\n"
    "    fcvt.wu.s a5, fs0\n"
    "    fcvt.s.wu fa6, a6\n"
    "    fmv.x.w a5, fa2\n"
    "    fmv.w.x fa7, a6\n"
    "    fclass.s a4, fa5\n"
    "    fsw fa2, 12(s0)\n"
    "    flw fa6, 12(s0)\n"
    "    csrw fflags, zero\n"
    "    fence\n"
    /* taken and untaken branches of every kind */
    "    beq a6, a6, b1\n"
    "    addi a7, a7, 1\n"
    "b1: bne a6, a6, b2\n"
    "    blt a2, a3, b2\n"
    "b2: bge a2, a3, b3\n"
    "    bltu a2, a6, b3\n"
    "b3: bgeu a2, a6, b4\n"
    "    addi a7, a7, 1\n"
    "b4: jal ra, subr\n"
    "    la t0, subr\n"
    "    jalr ra, 0(t0)\n"
    /* the slow path: NPU, MMIO, a reserved rm, traps, the last bytes of RAM, a code page */
    "    npu.macc a0, a1\n"
    "    npu.ldvec v1, 0(s0)\n"
    "    npu.stvec v1, 16(s0)\n"
    "    li t0, 0x10000005\n"
    "    lbu t1, 0(t0)\n"
    "    csrwi frm, 5\n"
    "    fadd.s fa6, fa0, fa1\n" /* dynamic rm = 5: illegal, the handler sets frm = 0 */
    "    lw t1, 0(zero)\n"       /* load access fault */
    "    sw t1, 0(zero)\n"       /* store access fault */
    "    la t0, subr\n"
    "    addi t0, t0, 2\n"
    "    jalr zero, 0(t0)\n"     /* misaligned target */
    "    ebreak\n"
    "    li t0, 0x803ffffe\n"
    "    sh s1, 0(t0)\n"
    "    lhu t1, 0(t0)\n"
    "    la t0, patch\n"
    "    lw t1, 4(t0)\n"         /* the word of `addi a7, a7, 3` */
    "    sw t1, 0(t0)\n"
    "    fence.i\n"
    "patch:\n"
    "    nop\n"
    "    addi a7, a7, 3\n"
    "    sw s1, 24(t0)\n"        /* a data word on the code page */
    "    addi s1, s1, -1\n"
    "    bnez s1, loop\n"
    "    li a0, 1\n"
    "    la a1, msg\n"
    "    li a2, 3\n"
    "    li a7, 64\n"
    "    ecall\n"                /* write(1, msg, 3) */
    "    li a7, 93\n"
    "    li a0, 0\n"
    "    ecall\n"
    "subr:\n"
    "    addi a7, a7, 2\n"
    "    ret\n"
    "handler:\n"
    "    csrr t0, mepc\n"
    "    addi t0, t0, 4\n"
    "    csrw mepc, t0\n"
    "    csrwi frm, 0\n"
    "    mret\n"
    "    .word 0, 0, 0, 0, 0, 0, 0, 0\n"
    "msg: .ascii \"ok\\n\"\n"
    "    .balign 4096\n"
    "data: .word 0, 0, 0, 0, 0, 0, 0, 0\n";

/* ---- records as bytes ------------------------------------------------------------------------ */

typedef struct bytes {
    unsigned char *p;
    size_t n, cap;
} bytes;

static void put(bytes *b, const void *data, size_t n)
{
    if (b->cap - b->n < n) {
        size_t cap = b->cap ? 2 * b->cap : 4096;
        while (cap - b->n < n)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        b->p = p, b->cap = cap;
    }
    memcpy(b->p + b->n, data, n);
    b->n += n;
}

static void put64(bytes *b, uint64_t v)
{
    put(b, &v, sizeof v);
}

/* Everything a record says, field by field (names as strings): two records are the same when
 * these bytes are. */
static void serialize(bytes *b, const npk_commit *c)
{
    put64(b, c->seq);
    put64(b, c->cycle);
    put64(b, c->pc);
    put64(b, c->word_bytes);
    put(b, c->word, c->word_bytes);
    put64(b, (uint64_t)c->retired);
    put64(b, c->n_effects);
    for (size_t i = 0; i < c->n_effects; i++) {
        const npk_effect *e = &c->effects[i];
        put64(b, (uint64_t)e->kind);
        put(b, e->name, strlen(e->name) + 1);
        put64(b, e->bits);
        put64(b, e->addr);
        put64(b, e->size);
        put64(b, e->value);
        put64(b, e->bytes != NULL);
        if (e->bytes)
            put(b, e->bytes, e->size);
    }
}

/* ---- the lock-step run ------------------------------------------------------------------------ */

typedef struct lockstep {
    const char *name;
    npk_machine *ref, *run;   /* stepped (observed loop), run (recording loop) */
    bytes queue;              /* the stepped machine's records not yet compared, serialized */
    size_t head;              /* where the next one starts in queue */
    size_t *ends;             /* end offset of each queued record */
    size_t n_ends, cap_ends, next_end;
    npk_stop ref_stop;
    int ref_done;
    uint64_t records, mismatches;
    bytes cur;                /* the run's record, serialized */
} lockstep;

static void on_ref(npk_machine *m, const npk_commit *c, void *ctx)
{
    (void)m;
    lockstep *t = ctx;
    serialize(&t->queue, c);
    if (t->n_ends == t->cap_ends) {
        t->cap_ends = t->cap_ends ? 2 * t->cap_ends : 16;
        t->ends = realloc(t->ends, t->cap_ends * sizeof *t->ends);
        if (!t->ends)
            exit(1);
    }
    t->ends[t->n_ends++] = t->queue.n;
}

static void show(const char *who, npk_machine *m, const npk_commit *c)
{
    fprintf(stderr, "  %s: cycle %llu: ", who, (unsigned long long)c->cycle);
    npk_commit_print(m, c, NPK_COMMIT_TEXT, stderr);
}

/* The stepped machine's record of the same position, stepping it when none is queued. */
static void on_run(npk_machine *m, const npk_commit *c, void *ctx)
{
    lockstep *t = ctx;
    t->records++;
    while (t->next_end == t->n_ends && !t->ref_done) {
        t->queue.n = t->head = 0;
        t->n_ends = t->next_end = 0;
        if (npk_step(t->ref, &t->ref_stop) != NPK_OK || t->ref_stop.reason != NPK_STOP_NONE)
            t->ref_done = 1;
    }
    t->cur.n = 0;
    serialize(&t->cur, c);
    int same = t->next_end < t->n_ends && t->ends[t->next_end] - t->head == t->cur.n &&
               memcmp(t->queue.p + t->head, t->cur.p, t->cur.n) == 0;
    if (!same && ++t->mismatches <= 5) {
        fprintf(stderr, "%s: record %llu differs from the observed loop's\n", t->name,
                (unsigned long long)c->seq);
        show("recording loop", m, c);
        if (t->next_end == t->n_ends)
            fprintf(stderr, "  observed loop: no record (it stopped)\n");
    }
    NPK_CHECK(same);
    if (t->next_end < t->n_ends)
        t->head = t->ends[t->next_end++];
    /* with no record of the step pending, both machines are at the same place, and the
     * running one is up to date inside its callback */
    if (t->next_end == t->n_ends) {
        static const char *const regs[] = {"pc", "minstret"};
        for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++) {
            uint64_t a = 0, b = 1;
            npk_reg_read(t->ref, regs[i], &a);
            npk_reg_read(m, regs[i], &b);
            NPK_REPORT(a == b, "%s: record %llu: %s = 0x%llx in the callback, 0x%llx stepped\n",
                       t->name, (unsigned long long)c->seq, regs[i], (unsigned long long)b,
                       (unsigned long long)a);
        }
    }
    /* a register effect is the register's value as the callback reads it */
    for (size_t i = 0; i < c->n_effects; i++) {
        uint64_t v = 0;
        if (c->effects[i].kind == NPK_EFFECT_REG && c->effects[i].name[0] == 'x' &&
            npk_reg_read(m, c->effects[i].name, &v) == NPK_OK)
            NPK_REPORT(v == c->effects[i].value, "%s: record %llu: %s\n", t->name,
                       (unsigned long long)c->seq, c->effects[i].name);
    }
}

static npk_machine *make(const char *name, const char *rev, const char *src, const char *path,
                         FILE *out, FILE *err)
{
    npk_machine *m = NULL;
    char msg[256];
    if (npk_create(&m, "rvnpu", rev, msg, sizeof msg) != NPK_OK) {
        fprintf(stderr, "%s: create: %s\n", name, msg);
        return NULL;
    }
    npk_set_output(m, out, err);
    npk_status st = src ? npk_load_asm(m, src, name, stderr) : npk_load_file(m, path, stderr);
    if (st != NPK_OK) {
        fprintf(stderr, "%s: load: %s\n", name, npk_error(m));
        npk_destroy(m);
        return NULL;
    }
    return m;
}

static int same_stats(npk_machine *a, npk_machine *b)
{
    npk_stats x, y;
    npk_stats_get(a, &x);
    npk_stats_get(b, &y);
    return x.insns == y.insns && x.cycles == y.cycles && x.n_mnemonics == y.n_mnemonics &&
           memcmp(x.count, y.count, x.n_mnemonics * sizeof *x.count) == 0 &&
           memcmp(x.busy, y.busy, x.n_units * sizeof *x.busy) == 0 &&
           memcmp(x.extra, y.extra, x.n_extra * sizeof *x.extra) == 0;
}

/* Every register and every byte of every space. */
static int same_state(npk_machine *a, npk_machine *b)
{
    for (size_t i = 0; i < npk_reg_count(a); i++) {
        const npk_reg_info *r = npk_reg(a, i);
        uint8_t va[64], vb[64];
        size_t n = (r->bits + 7) / 8;
        if (n > sizeof va || npk_reg_read_bytes(a, r->name, va, n) != NPK_OK ||
            npk_reg_read_bytes(b, r->name, vb, n) != NPK_OK || memcmp(va, vb, n) != 0) {
            fprintf(stderr, "register %s differs\n", r->name);
            return 0;
        }
    }
    for (size_t i = 0; i < npk_space_count(a); i++) {
        const npk_space_info *sp = npk_space(a, i);
        uint8_t *ma = malloc(sp->size), *mb = malloc(sp->size);
        int same = ma && mb && npk_mem_read(a, sp->name, 0, ma, sp->size) == NPK_OK &&
                   npk_mem_read(b, sp->name, 0, mb, sp->size) == NPK_OK &&
                   memcmp(ma, mb, sp->size) == 0;
        free(ma);
        free(mb);
        if (!same) {
            fprintf(stderr, "space %s differs\n", sp->name);
            return 0;
        }
    }
    return 1;
}

/* One program both ways. chunk 0: one npk_run to the end; else runs of chunk, chunk / 3 + 1,
 * ... instructions (budgets below 256 as well), with statistics on in both machines. Returns
 * the number of records. */
static uint64_t lockstep_run(const char *name, const char *rev, const char *src,
                             const char *path, uint64_t chunk, int64_t exit_code)
{
    char *out[2] = {NULL, NULL}, *err[2] = {NULL, NULL};
    size_t out_n[2], err_n[2];
    FILE *fo[2], *fe[2];
    for (int i = 0; i < 2; i++) {
        fo[i] = open_memstream(&out[i], &out_n[i]);
        fe[i] = open_memstream(&err[i], &err_n[i]);
    }
    lockstep t;
    memset(&t, 0, sizeof t);
    t.name = name;
    t.ref = make(name, rev, src, path, fo[0], fe[0]);
    t.run = make(name, rev, src, path, fo[1], fe[1]);
    NPK_CHECK(t.ref && t.run);
    if (!t.ref || !t.run)
        return 0;
    NPK_CHECK(npk_on_commit(t.ref, on_ref, &t) == NPK_OK);
    NPK_CHECK(npk_on_commit(t.run, on_run, &t) == NPK_OK);
    if (chunk) {
        NPK_CHECK(npk_stats_enable(t.ref, 1) == NPK_OK);
        NPK_CHECK(npk_stats_enable(t.run, 1) == NPK_OK);
    }
    npk_stop stop;
    uint64_t budget = chunk;
    do {
        NPK_CHECK(npk_run(t.run, budget, &stop) == NPK_OK);
        if (chunk)
            budget = budget > 3 ? budget / 3 + 1 : chunk;
    } while (chunk && stop.reason == NPK_STOP_BUDGET);
    NPK_REPORT(stop.reason == NPK_STOP_EXIT && stop.exit_code == exit_code,
               "%s: stop %d, exit %lld: %s\n", name, (int)stop.reason,
               (long long)stop.exit_code, stop.message);
    /* the stepped machine has nothing left: it stopped at the same record */
    while (!t.ref_done && t.next_end == t.n_ends) {
        t.queue.n = t.head = 0;
        t.n_ends = t.next_end = 0;
        if (npk_step(t.ref, &t.ref_stop) != NPK_OK || t.ref_stop.reason != NPK_STOP_NONE)
            t.ref_done = 1;
    }
    NPK_REPORT(t.ref_done && t.next_end == t.n_ends, "%s: the observed loop has more records\n",
               name);
    NPK_CHECK(t.ref_stop.reason == stop.reason && t.ref_stop.exit_code == stop.exit_code &&
              t.ref_stop.pc == stop.pc && strcmp(t.ref_stop.message, stop.message) == 0);
    NPK_CHECK_EQ_U64(t.mismatches, 0);
    NPK_REPORT(same_state(t.ref, t.run), "%s: registers or memory differ\n", name);
    npk_stats st[2];
    npk_stats_get(t.ref, &st[0]);
    npk_stats_get(t.run, &st[1]);
    if (chunk) {
        /* statistics on: everything else as well (timing-model state, statistics) */
        NPK_REPORT(same_stats(t.ref, t.run), "%s: statistics differ\n", name);
        uint8_t *snap[2] = {NULL, NULL};
        size_t snap_n[2] = {0, 0};
        NPK_CHECK(npk_snapshot_save(t.ref, &snap[0], &snap_n[0]) == NPK_OK);
        NPK_CHECK(npk_snapshot_save(t.run, &snap[1], &snap_n[1]) == NPK_OK);
        NPK_REPORT(snap[0] && snap[1] && snap_n[0] == snap_n[1] &&
                       memcmp(snap[0], snap[1], snap_n[0]) == 0,
                   "%s: the machines' snapshots differ\n", name);
        npk_free(snap[0]);
        npk_free(snap[1]);
    } else {
        /* statistics off: the recording loop leaves them as they were, except the latest
         * cycle, which a trap's record carries; the observed loop counts anyway, so the
         * running machine counted only what its slow path ran: fewer */
        NPK_CHECK_EQ_U64(st[1].cycles, st[0].cycles);
        NPK_REPORT(st[1].insns < st[0].insns, "%s: %llu of %llu instructions counted: the "
                   "recording loop did not run\n", name, (unsigned long long)st[1].insns,
                   (unsigned long long)st[0].insns);
    }
    uint64_t records = t.records;
    npk_destroy(t.ref);
    npk_destroy(t.run);
    for (int i = 0; i < 2; i++) {
        fclose(fo[i]);
        fclose(fe[i]);
    }
    NPK_REPORT(out_n[0] == out_n[1] && memcmp(out[0], out[1], out_n[0]) == 0 &&
                   err_n[0] == err_n[1] && memcmp(err[0], err[1], err_n[0]) == 0,
               "%s: guest output differs\n", name);
    for (int i = 0; i < 2; i++) {
        free(out[i]);
        free(err[i]);
    }
    free(t.queue.p);
    free(t.cur.p);
    free(t.ends);
    return records;
}

/* One run to the end; unless the program is long, also the runs in chunks. */
static void both_ways(const char *name, const char *rev, const char *src, const char *path,
                      int64_t exit_code, uint64_t min_records)
{
    uint64_t n = lockstep_run(name, rev, src, path, 0, exit_code);
    NPK_REPORT(n >= min_records, "%s: %llu records, expected at least %llu\n", name,
               (unsigned long long)n, (unsigned long long)min_records);
    if (n < 100000)
        NPK_CHECK_EQ_U64(lockstep_run(name, rev, src, path, 20011, exit_code), n);
}

/* A callback that writes the machine (not something the API promises, but the loop must not
 * run on stale state): at each `addi s1, s1, -1` of edge.s it adds 2 to a7 and skips the
 * `bnez` after every 7th, which ends the loop early. Stepped and run, the machines agree. */
typedef struct writer {
    uint64_t records, hits;
} writer;

static void on_write(npk_machine *m, const npk_commit *c, void *ctx)
{
    writer *w = ctx;
    w->records++;
    if (c->word_bytes == 4 && c->word[0] == 0x93 && c->word[1] == 0x84 && c->word[2] == 0xf4 &&
        c->word[3] == 0xff) { /* addi s1, s1, -1 = 0xfff48493 */
        uint64_t a7 = 0;
        npk_reg_read(m, "a7", &a7);
        npk_reg_write(m, "a7", (a7 + 2) & 0xffffffffu);
        if (++w->hits % 7 == 0)
            npk_reg_write(m, "pc", c->pc + 8);
    }
}

static void check_callback_writes(void)
{
    writer w[2] = {{0, 0}, {0, 0}};
    npk_machine *m[2];
    npk_stop stop[2];
    FILE *null = fopen("/dev/null", "w");
    NPK_CHECK(null != NULL);
    for (int i = 0; i < 2; i++) {
        m[i] = null ? make("edge.s", NULL, edge_prog, NULL, null, stderr) : NULL;
        NPK_CHECK(m[i] != NULL);
        if (!m[i])
            return;
        NPK_CHECK(npk_on_commit(m[i], on_write, &w[i]) == NPK_OK);
    }
    do
        NPK_CHECK(npk_step(m[0], &stop[0]) == NPK_OK);
    while (stop[0].reason == NPK_STOP_NONE);
    NPK_CHECK(npk_run(m[1], 0, &stop[1]) == NPK_OK);
    NPK_CHECK(stop[0].reason == NPK_STOP_EXIT && stop[1].reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(w[1].records, w[0].records);
    NPK_CHECK_EQ_U64(w[0].hits, 7); /* 300 iterations cut short at the 7th */
    NPK_CHECK_EQ_U64(w[1].hits, w[0].hits);
    NPK_CHECK(same_state(m[0], m[1]));
    uint64_t a7 = 0;
    NPK_CHECK(npk_reg_read(m[1], "a7", &a7) == NPK_OK && a7 == 93);
    for (int i = 0; i < 2; i++)
        npk_destroy(m[i]);
    fclose(null);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_record COMMIT_DIR [FIRMWARE_DIR]\n");
        return 125;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/rvnpu.s", argv[1]);
    both_ways("commit/rvnpu.s", NULL, NULL, path, 0, 22);
    /* 300 iterations of about 150 instructions */
    both_ways("edge.s", NULL, edge_prog, NULL, 0, 40000);
    check_callback_writes();
    if (argc > 2) {
        static const struct {
            const char *elf, *rev;
            uint64_t min_records;
        } fw[] = {
            {"hello", NULL, 150},          {"fpu_test", NULL, 20000},
            {"npu_tour", NULL, 7000},      {"npu_tour_rev2", "isa_rev=rev2", 8000},
            {"demo_gemm", NULL, 290000},   {"demo_gemm_npu", NULL, 28000},
            {"mlp_plain", NULL, 800000},   {"mlp", NULL, 3700},
        };
        for (size_t i = 0; i < sizeof fw / sizeof fw[0]; i++) {
            snprintf(path, sizeof path, "%s/%s.elf", argv[2], fw[i].elf);
            both_ways(fw[i].elf, fw[i].rev, NULL, path, 0, fw[i].min_records);
        }
    }
    return npk_test_done();
}
