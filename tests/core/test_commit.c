/* Commit records (docs/commit-log.md): the text logs of small toy, rvnpu, opennpu, pccx and
 * tinytpu programs
 * against hand-derived records (in tests/core/commit each .s says how its records were derived
 * and its .expected holds them), the record struct through the callback, JSON lines, steps,
 * resets, and that unsetting every sink gives the fast loop back.
 * usage: test_commit DIR XOR (the commit/ directory, examples/tinytpu/xor/xor_step.tt) */
#define _XOPEN_SOURCE 700
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/json_check.h"
#include "core/machine.h"
#include "npukit/npukit.h"
#include "test.h"

static const char *dir = ".";

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 16);
    size_t n = buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

static npk_machine *machine(const char *target, const char *prog)
{
    npk_machine *m = NULL;
    char err[256], path[1024];
    if (npk_create(&m, target, NULL, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "create %s: %s\n", target, err);
        return NULL;
    }
    snprintf(path, sizeof path, "%s/%s", dir, prog);
    if (npk_load_file(m, path, stderr) != NPK_OK) {
        fprintf(stderr, "load %s: %s\n", path, npk_error(m));
        npk_destroy(m);
        return NULL;
    }
    return m;
}

/* The whole log of a run as a string (malloc'd). */
static char *run_log(npk_machine *m, npk_commit_format fmt, npk_stop *stop)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    NPK_CHECK(npk_commit_log(m, f, fmt) == NPK_OK);
    NPK_CHECK(npk_run(m, 0, stop) == NPK_OK);
    NPK_CHECK(npk_commit_log(m, NULL, fmt) == NPK_OK);
    fclose(f);
    return buf;
}

/* The text log equals the hand-derived records, line for line. */
static void check_golden(const char *target, const char *prog, const char *expected,
                         int exit_code)
{
    npk_machine *m = machine(target, prog);
    NPK_CHECK(m != NULL);
    if (!m)
        return;
    npk_stop stop;
    char *log = run_log(m, NPK_COMMIT_TEXT, &stop);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, expected);
    char *want = slurp(path);
    NPK_CHECK(want != NULL);
    NPK_CHECK(stop.reason == NPK_STOP_EXIT && stop.exit_code == exit_code);
    if (log && want && strcmp(log, want) != 0) {
        /* the first differing line, for the log */
        const char *a = log, *b = want;
        while (*a && *a == *b)
            a++, b++;
        while (a > log && a[-1] != '\n')
            a--, b--;
        fprintf(stderr, "%s: log differs from %s:\n got: %.*s\nwant: %.*s\n", target, expected,
                (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
    }
    NPK_CHECK(log && want && strcmp(log, want) == 0);
    free(log);
    free(want);
    npk_destroy(m);
}

/* ---- the record struct through the callback ------------------------------------------------ */

#define MAX_REC 64
typedef struct saved {
    uint64_t seq, pc, cycle;
    uint8_t word[20];
    unsigned word_bytes;
    int retired;
    size_t n;
    npk_effect e[8];
    char names[8][32];
    uint8_t bytes[8][8];
} saved;

typedef struct collect {
    size_t n, calls;
    saved r[MAX_REC];
} collect;

/* A callback copies what it keeps: the record is valid only during the call. */
static void keep(npk_machine *m, const npk_commit *c, void *ctx)
{
    (void)m;
    collect *k = ctx;
    k->calls++;
    if (k->n == MAX_REC)
        return;
    saved *s = &k->r[k->n++];
    s->seq = c->seq, s->pc = c->pc, s->cycle = c->cycle, s->retired = c->retired;
    s->word_bytes = c->word_bytes;
    memcpy(s->word, c->word, c->word_bytes < 20 ? c->word_bytes : 20);
    s->n = c->n_effects;
    for (size_t i = 0; i < c->n_effects && i < 8; i++) {
        s->e[i] = c->effects[i];
        snprintf(s->names[i], sizeof s->names[i], "%s", c->effects[i].name);
        if (c->effects[i].bytes)
            memcpy(s->bytes[i], c->effects[i].bytes,
                   c->effects[i].size < 8 ? c->effects[i].size : 8);
    }
}

static void check_callback_rvnpu(void)
{
    npk_machine *m = machine("rvnpu", "rvnpu.s");
    NPK_CHECK(m != NULL);
    if (!m)
        return;
    static collect k;
    memset(&k, 0, sizeof k);
    NPK_CHECK(npk_on_commit(m, keep, &k) == NPK_OK);
    npk_stop stop;
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK);
    NPK_CHECK_EQ_U64(k.n, 22);
    for (size_t i = 0; i < k.n; i++) {
        NPK_REPORT(k.r[i].seq == i + 1, "record %zu: seq %llu\n", i, (unsigned long long)k.r[i].seq);
        NPK_REPORT(i == 0 || k.r[i].cycle >= k.r[i - 1].cycle, "record %zu: cycle went back\n", i);
    }
    /* 1: lui s0, 0x80001, word 0x80001437 in memory order */
    NPK_CHECK_EQ_U64(k.r[0].pc, 0x80000000u);
    NPK_CHECK(k.r[0].word_bytes == 4 && k.r[0].word[0] == 0x37 && k.r[0].word[1] == 0x14 &&
              k.r[0].word[2] == 0x00 && k.r[0].word[3] == 0x80);
    NPK_CHECK(k.r[0].n == 1 && k.r[0].e[0].kind == NPK_EFFECT_REG && k.r[0].e[0].bits == 32);
    NPK_CHECK_EQ_STR(k.r[0].names[0], "x8");
    NPK_CHECK_EQ_U64(k.r[0].e[0].value, 0x80001000u);
    /* 3: sw a0, 8(s0): bus[0x80001008] = 5, bytes 05 00 00 00 */
    NPK_CHECK(k.r[2].n == 1 && k.r[2].e[0].kind == NPK_EFFECT_MEM);
    NPK_CHECK_EQ_STR(k.r[2].names[0], "bus");
    NPK_CHECK_EQ_U64(k.r[2].e[0].addr, 0x80001008u);
    NPK_CHECK_EQ_U64(k.r[2].e[0].size, 4);
    NPK_CHECK_EQ_U64(k.r[2].e[0].value, 5);
    NPK_CHECK(k.r[2].bytes[0][0] == 5 && k.r[2].bytes[0][1] == 0 && k.r[2].bytes[0][3] == 0);
    /* 9: fdiv.s: f12 then fflags, registers in the documented order */
    NPK_CHECK(k.r[8].n == 2);
    NPK_CHECK_EQ_STR(k.r[8].names[0], "f12");
    NPK_CHECK_EQ_U64(k.r[8].e[0].value, 0x3fd55555u);
    NPK_CHECK_EQ_STR(k.r[8].names[1], "fflags");
    NPK_CHECK_EQ_U64(k.r[8].e[1].value, 1);
    /* 11: npu.macc: acc = 15, 64 bits */
    NPK_CHECK_EQ_STR(k.r[10].names[0], "acc");
    NPK_CHECK(k.r[10].e[0].bits == 64 && k.r[10].e[0].value == 15);
    /* 14: npu.stvec: four byte stores merged into one 4-byte write */
    NPK_CHECK(k.r[13].n == 1 && k.r[13].e[0].kind == NPK_EFFECT_MEM);
    NPK_CHECK_EQ_U64(k.r[13].e[0].addr, 0x8000100cu);
    NPK_CHECK_EQ_U64(k.r[13].e[0].size, 4);
    /* 19: the illegal word traps: not retired; mstatus, mepc, mcause, then the trap */
    NPK_CHECK(k.r[18].retired == 0 && k.r[18].n == 4);
    NPK_CHECK_EQ_STR(k.r[18].names[0], "mstatus");
    NPK_CHECK_EQ_U64(k.r[18].e[0].value, 0x3880);
    NPK_CHECK_EQ_STR(k.r[18].names[1], "mepc");
    NPK_CHECK_EQ_U64(k.r[18].e[1].value, 0x80000048u);
    NPK_CHECK(k.r[18].e[3].kind == NPK_EFFECT_TRAP && k.r[18].e[3].value == 2 &&
              k.r[18].e[3].addr == 0);
    NPK_CHECK_EQ_STR(k.r[18].names[3], "illegal instruction");
    /* every other record retired */
    int all = 1;
    for (size_t i = 0; i < k.n; i++)
        all &= k.r[i].retired == (i != 18);
    NPK_CHECK(all);
    NPK_CHECK(stop.reason == NPK_STOP_EXIT && stop.exit_code == 0);
    npk_destroy(m);
}

/* Unset sinks: no more calls, and the machine is back on its fast loop (observers off). */
static void check_unset(void)
{
    npk_machine *m = machine("toy", "toy.s");
    NPK_CHECK(m != NULL);
    if (!m)
        return;
    static collect k;
    memset(&k, 0, sizeof k);
    NPK_CHECK(!npk_obs_active(&m->obs));
    NPK_CHECK(npk_on_commit(m, keep, &k) == NPK_OK);
    NPK_CHECK(npk_obs_active(&m->obs));
    npk_stop stop;
    /* steps: one record each, numbered on */
    NPK_CHECK(npk_step(m, &stop) == NPK_OK);
    NPK_CHECK(npk_step(m, &stop) == NPK_OK);
    NPK_CHECK_EQ_U64(k.calls, 2);
    NPK_CHECK(k.r[1].seq == 2 && k.r[1].pc == 4);
    NPK_CHECK(npk_on_commit(m, NULL, NULL) == NPK_OK);
    NPK_CHECK(!npk_obs_active(&m->obs));
    NPK_CHECK(m->obs.commit == NULL);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK);
    NPK_CHECK_EQ_U64(k.calls, 2);
    NPK_CHECK(stop.reason == NPK_STOP_EXIT);

    /* with the log and the callback together, both see every record; a reset starts the
     * numbering again */
    NPK_CHECK(npk_reset(m) == NPK_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    NPK_CHECK(f != NULL);
    if (!f) {
        npk_destroy(m);
        return;
    }
    k.n = k.calls = 0;
    NPK_CHECK(npk_commit_log(m, f, NPK_COMMIT_JSONL) == NPK_OK);
    NPK_CHECK(npk_on_commit(m, keep, &k) == NPK_OK);
    uint64_t pc;
    NPK_CHECK(npk_reg_read(m, "pc", &pc) == NPK_OK && pc == 0);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK);
    NPK_CHECK(npk_commit_log(m, NULL, NPK_COMMIT_JSONL) == NPK_OK);
    NPK_CHECK(npk_obs_active(&m->obs)); /* the callback is still on */
    NPK_CHECK(npk_on_commit(m, NULL, NULL) == NPK_OK);
    NPK_CHECK(!npk_obs_active(&m->obs));
    fclose(f);
    NPK_CHECK_EQ_U64(k.calls, 8);
    NPK_CHECK(k.r[0].seq == 1 && k.r[7].seq == 8);
    /* JSON lines: 8 lines, each one valid JSON value; the store's record in full */
    size_t lines = 0;
    for (char *p = buf, *nl; p && (nl = strchr(p, '\n')); p = nl + 1) {
        lines++;
        NPK_REPORT(npk_json_check(p, (size_t)(nl - p)) == 0, "line %zu is not JSON: %.*s\n",
                   lines, (int)(nl - p), p);
    }
    NPK_CHECK_EQ_U64(lines, 8);
    NPK_CHECK_CONTAINS(buf, "{\"seq\":4,\"cycle\":3,\"pc\":\"0x0000000c\",\"word\":\"0x44260004\","
                            "\"disasm\":\"st r3, 4(r2)\",\"retired\":true,\"effects\":[{\"mem\":"
                            "\"mem\",\"addr\":\"0x00000044\",\"size\":4,\"value\":\"0x0000000a\","
                            "\"bytes\":\"0a000000\"}]}\n");
    NPK_CHECK_CONTAINS(buf, "\"effects\":[{\"reg\":\"r4\",\"value\":\"0x0000000a\"}]}");
    free(buf);
    npk_destroy(m);
}

/* The observed loop with records gives the same results as the fast loop. */
static void check_same_results(void)
{
    npk_machine *a = machine("rvnpu", "rvnpu.s"), *b = machine("rvnpu", "rvnpu.s");
    NPK_CHECK(a && b);
    if (a && b) {
        static collect k;
        memset(&k, 0, sizeof k);
        NPK_CHECK(npk_on_commit(a, keep, &k) == NPK_OK);
        npk_stop sa, sb;
        NPK_CHECK(npk_run(a, 0, &sa) == NPK_OK && npk_run(b, 0, &sb) == NPK_OK);
        NPK_CHECK(sa.reason == sb.reason && sa.exit_code == sb.exit_code && sa.pc == sb.pc);
        int same = 1;
        for (size_t i = 0; i < npk_reg_count(a); i++) {
            uint64_t va = 0, vb = 1;
            npk_reg_read(a, npk_reg(a, i)->name, &va);
            npk_reg_read(b, npk_reg(b, i)->name, &vb);
            NPK_REPORT(va == vb, "%s differs: 0x%llx vs 0x%llx\n", npk_reg(a, i)->name,
                       (unsigned long long)va, (unsigned long long)vb);
            same &= va == vb;
        }
        NPK_CHECK(same);
        uint8_t ma[16], mb[16];
        NPK_CHECK(npk_mem_read(a, "ram", 0x1000, ma, 16) == NPK_OK &&
                  npk_mem_read(b, "ram", 0x1000, mb, 16) == NPK_OK && memcmp(ma, mb, 16) == 0);
        /* 21 retired + one trap record */
        uint64_t ret;
        NPK_CHECK(npk_reg_read(a, "minstret", &ret) == NPK_OK);
        NPK_CHECK_EQ_U64(ret, 21);
    }
    npk_destroy(a);
    npk_destroy(b);
}

/* A host syscall's writes: openat's a0, and read's bytes as one memory write of a0 bytes at
 * the buffer (the file holds "abcd": a0 = 4, bytes 61 62 63 64 = 0x64636261). */
static void check_syscall_read(void)
{
    char tmpl[] = "/tmp/npk_commit_XXXXXX", path[64], cfg[96];
    if (!mkdtemp(tmpl)) {
        NPK_CHECK(!"mkdtemp");
        return;
    }
    snprintf(path, sizeof path, "%s/in.txt", tmpl);
    FILE *f = fopen(path, "w");
    NPK_CHECK(f && fputs("abcd", f) >= 0 && fclose(f) == 0);
    snprintf(cfg, sizeof cfg, "fs_root=%s", tmpl);
    npk_machine *m = NULL;
    char err[256];
    NPK_CHECK(npk_create(&m, "rvnpu", cfg, err, sizeof err) == NPK_OK);
    static const char prog[] = "        la      a1, path\n"
                               "        addi    a0, zero, -100\n"
                               "        addi    a2, zero, 0\n"
                               "        addi    a7, zero, 56\n"
                               "        ecall\n"          /* openat: a0 = 3 */
                               "        la      a1, buf\n"
                               "        addi    a2, zero, 8\n"
                               "        addi    a7, zero, 63\n"
                               "        ecall\n"          /* read(3, buf, 8): a0 = 4 */
                               "        addi    a7, zero, 93\n"
                               "        ecall\n"
                               "path:   .asciz \"in.txt\"\n"
                               "        .balign 4\n"
                               "buf:    .word 0, 0\n";
    NPK_CHECK(m && npk_load_asm(m, prog, "read.s", stderr) == NPK_OK);
    static collect k;
    memset(&k, 0, sizeof k);
    uint64_t buf = 0;
    NPK_CHECK(m && npk_symbol(m, "buf", &buf) == NPK_OK);
    NPK_CHECK(m && npk_on_commit(m, keep, &k) == NPK_OK);
    npk_stop stop;
    NPK_CHECK(m && npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
    /* records: la is auipc + addi, so the ecalls are records 6, 11 and 13 */
    NPK_CHECK(k.n == 13);
    if (k.n == 13) {
        NPK_CHECK(k.r[5].n == 1 && k.r[5].e[0].kind == NPK_EFFECT_REG);
        NPK_CHECK_EQ_STR(k.r[5].names[0], "x10");
        NPK_CHECK_EQ_U64(k.r[5].e[0].value, 3);
        NPK_CHECK(k.r[10].n == 2 && k.r[10].e[1].kind == NPK_EFFECT_MEM);
        NPK_CHECK_EQ_U64(k.r[10].e[0].value, 4);
        NPK_CHECK_EQ_U64(k.r[10].e[1].addr, buf);
        NPK_CHECK_EQ_U64(k.r[10].e[1].size, 4);
        NPK_CHECK_EQ_U64(k.r[10].e[1].value, 0x64636261u);
        NPK_CHECK(k.r[12].n == 0);
    }
    npk_destroy(m);
    remove(path);
    rmdir(tmpl);
}

/* pccx through the callback: pc is the issue index, cycle the push cycle a_i (0, 4, ..., 24 as
 * derived in commit/pccx.s), and the records leave results and timing as they were. A word
 * hw-compat drops still has its record (it occupies the FIFO, pccx spec §4.8); a faulting one
 * has none. */
static void check_pccx(void)
{
    npk_machine *m = machine("pccx", "pccx.s"), *b = machine("pccx", "pccx.s");
    NPK_CHECK(m && b);
    if (!m || !b) {
        npk_destroy(m);
        npk_destroy(b);
        return;
    }
    static collect k;
    memset(&k, 0, sizeof k);
    NPK_CHECK(npk_on_commit(m, keep, &k) == NPK_OK);
    NPK_CHECK(npk_stats_enable(m, 1) == NPK_OK && npk_stats_enable(b, 1) == NPK_OK);
    npk_stop sa, sb;
    NPK_CHECK(npk_run(m, 0, &sa) == NPK_OK && npk_run(b, 0, &sb) == NPK_OK);
    NPK_CHECK(sa.reason == NPK_STOP_EXIT && sb.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(k.n, 7);
    for (size_t i = 0; i < k.n; i++) {
        NPK_REPORT(k.r[i].pc == i && k.r[i].cycle == 4 * i && k.r[i].word_bytes == 8 &&
                   k.r[i].retired, "record %zu: pc %llu cycle %llu\n", i,
                   (unsigned long long)k.r[i].pc, (unsigned long long)k.r[i].cycle);
    }
    /* 4: gemv: E_MAX, weight_queue, queue.gemv, then the 4 bytes at l2 0x800 */
    NPK_CHECK(k.r[3].n == 4);
    NPK_CHECK_EQ_STR(k.r[3].names[0], "E_MAX");
    NPK_CHECK(k.r[3].e[0].bits == 32 && k.r[3].e[0].value == 0x41200000u);
    NPK_CHECK_EQ_STR(k.r[3].names[1], "weight_queue");
    NPK_CHECK_EQ_U64(k.r[3].e[1].value, 0);
    NPK_CHECK_EQ_STR(k.r[3].names[2], "queue.gemv");
    NPK_CHECK_EQ_U64(k.r[3].e[2].value, 1);
    NPK_CHECK(k.r[3].e[3].kind == NPK_EFFECT_MEM && k.r[3].e[3].addr == 0x800 &&
              k.r[3].e[3].size == 4 && k.r[3].e[3].value == 0x412040d0u);
    NPK_CHECK_EQ_STR(k.r[3].names[3], "l2");
    /* 7: memcpy.l2h: 16 bytes of host DDR at 0x100 (no value: not 1, 2, 4 or 8 bytes) */
    NPK_CHECK(k.r[6].n == 2 && k.r[6].e[1].kind == NPK_EFFECT_MEM &&
              k.r[6].e[1].addr == 0x100 && k.r[6].e[1].size == 16 && k.r[6].e[1].value == 0);
    NPK_CHECK_EQ_STR(k.r[6].names[1], "host");
    NPK_CHECK(k.r[6].bytes[1][0] == 0xd0 && k.r[6].bytes[1][7] == 0x3f);
    /* the same state and statistics as without records */
    static const char *const regs[] = {"E_MAX", "host_clock", "status", "issued", "pc"};
    for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++) {
        uint64_t va = 1, vb = 2;
        NPK_CHECK(npk_reg_read(m, regs[i], &va) == NPK_OK &&
                  npk_reg_read(b, regs[i], &vb) == NPK_OK);
        NPK_REPORT(va == vb, "%s: 0x%llx with records, 0x%llx without\n", regs[i],
                   (unsigned long long)va, (unsigned long long)vb);
    }
    npk_stats s1, s2;
    NPK_CHECK(npk_stats_get(m, &s1) == NPK_OK && npk_stats_get(b, &s2) == NPK_OK);
    NPK_CHECK(s1.cycles == s2.cycles && s1.cycles > 0 && s1.n_units == s2.n_units);
    for (size_t u = 0; u < s1.n_units && u < s2.n_units; u++)
        NPK_REPORT(s1.busy[u] == s2.busy[u], "unit %s: busy %llu vs %llu\n", s1.unit[u],
                   (unsigned long long)s1.busy[u], (unsigned long long)s2.busy[u]);
    npk_destroy(m);
    npk_destroy(b);

    /* hw-compat: the reserved opcode 0x5 is dropped: a record with no effects of its own
     * (the memset before it has completed by then: status stays DONE); then a fault (GEMV
     * with an empty weight queue, pccx spec §9): no record, the run stops */
    char err[256];
    m = NULL;
    NPK_CHECK(npk_create(&m, "pccx", "mode=hw-compat", err, sizeof err) == NPK_OK);
    static const char prog[] = "    memset fmap, idx=1, a=1, b=8, c=1\n"
                               "    .word 0x5000000000000000\n"
                               "    gemv dst=0x10, src=0, size=1, shape=1\n";
    NPK_CHECK(m && npk_load_asm(m, prog, "drop.s", stderr) == NPK_OK);
    memset(&k, 0, sizeof k);
    NPK_CHECK(m && npk_on_commit(m, keep, &k) == NPK_OK);
    NPK_CHECK(m && npk_run(m, 0, &sa) == NPK_OK && sa.reason == NPK_STOP_FAULT);
    NPK_CHECK_EQ_U64(k.n, 2);
    NPK_CHECK(k.r[1].pc == 1 && k.r[1].n == 0 && k.r[1].retired && k.r[1].word[7] == 0x50);
    npk_destroy(m);
}

/* npk_commit_log_digest: writes longer than the threshold print as a range and the CRC-32 of
 * their bytes. The CRCs are of the bytes derived in commit/pccx.s and toy.s, computed with an
 * independent implementation (Python's zlib.crc32 of bytes.fromhex(...)):
 *   004080bf803e80400000000000000000 (pccx record 3)  0x071cc73b
 *   d0402041f73c803f0000000000000000 (pccx record 7)  0x1a73fd0c
 *   0a000000 (toy record 4, st of 10)                  0x4ef93f78 */
static void check_digest(void)
{
    npk_machine *m = machine("pccx", "pccx.s");
    NPK_CHECK(m != NULL);
    if (!m)
        return;
    npk_stop stop;
    NPK_CHECK(npk_commit_log_digest(m, 8) == NPK_OK);
    char *log = run_log(m, NPK_COMMIT_TEXT, &stop);
    NPK_CHECK_CONTAINS(log, "\n3 0x0000000000000002 0x2800800000000003 status=0x0000000000000001 "
                            "busy.mem=0x1 l2[0x00000400..0x00000410]=crc32:071cc73b ; memcpy.h2l");
    NPK_CHECK_CONTAINS(log, " cmd_fifo=0x00000002 host[0x00000100..0x00000110]=crc32:1a73fd0c ; ");
    /* 4 bytes <= 8: still the value */
    NPK_CHECK_CONTAINS(log, " l2[0x00000800]=0x412040d0 ; gemv");
    free(log);
    NPK_CHECK(npk_reset(m) == NPK_OK);
    log = run_log(m, NPK_COMMIT_JSONL, &stop);
    NPK_CHECK_CONTAINS(log, "{\"mem\":\"l2\",\"addr\":\"0x00000400\",\"size\":16,"
                            "\"crc32\":\"0x071cc73b\"}]}\n");
    NPK_CHECK_CONTAINS(log, "{\"mem\":\"l2\",\"addr\":\"0x00000800\",\"size\":4,"
                            "\"value\":\"0x412040d0\",\"bytes\":\"d0402041\"}");
    free(log);
    /* the records keep their bytes */
    static collect k;
    memset(&k, 0, sizeof k);
    NPK_CHECK(npk_reset(m) == NPK_OK && npk_on_commit(m, keep, &k) == NPK_OK);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && k.n == 7);
    NPK_CHECK(k.r[2].e[2].size == 16 && k.r[2].bytes[2][1] == 0x40 && k.r[2].bytes[2][3] == 0xbf);
    /* 0 turns it off */
    NPK_CHECK(npk_on_commit(m, NULL, NULL) == NPK_OK && npk_reset(m) == NPK_OK);
    NPK_CHECK(npk_commit_log_digest(m, 0) == NPK_OK);
    log = run_log(m, NPK_COMMIT_TEXT, &stop);
    NPK_CHECK_CONTAINS(log, " l2[0x00000400]=bytes:004080bf803e80400000000000000000 ; ");
    free(log);
    npk_destroy(m);

    /* any target: toy's 4-byte store with a threshold of 3 (and not with 4) */
    m = machine("toy", "toy.s");
    NPK_CHECK(m && npk_commit_log_digest(m, 3) == NPK_OK);
    if (!m)
        return;
    log = run_log(m, NPK_COMMIT_TEXT, &stop);
    NPK_CHECK_CONTAINS(log, "\n4 0x0000000c 0x44260004 mem[0x00000044..0x00000048]=crc32:4ef93f78"
                            " ; st r3, 4(r2)\n");
    free(log);
    NPK_CHECK(npk_reset(m) == NPK_OK && npk_commit_log_digest(m, 4) == NPK_OK);
    log = run_log(m, NPK_COMMIT_TEXT, &stop);
    NPK_CHECK_CONTAINS(log, "\n4 0x0000000c 0x44260004 mem[0x00000044]=0x0000000a ; st r3");
    free(log);
    npk_destroy(m);
}

/* ---- tinytpu: one record per clock edge ---------------------------------------------------- */

/* The callback rebuilds each record's text line from the struct alone (its own formatting,
 * npk_disasm for the disassembly), so the struct carries everything the log shows. */
typedef struct tt_lines {
    FILE *f;
    int bad;
} tt_lines;

static void tt_line(npk_machine *m, const npk_commit *c, void *ctx)
{
    tt_lines *t = ctx;
    if (c->cycle != c->seq || c->pc != c->seq - 1 || !c->retired ||
        (c->word_bytes != 0 && c->word_bytes != 17))
        t->bad = 1;
    fprintf(t->f, "%llu 0x%016llx ", (unsigned long long)c->seq, (unsigned long long)c->pc);
    if (c->word_bytes) {
        fputs("0x", t->f);
        for (unsigned i = c->word_bytes; i-- > 0;)
            fprintf(t->f, "%02x", c->word[i]);
    } else {
        fputs("-", t->f);
    }
    for (size_t i = 0; i < c->n_effects; i++) {
        const npk_effect *e = &c->effects[i];
        if (e->kind == NPK_EFFECT_REG) {
            fprintf(t->f, " %s=0x%0*llx", e->name, (int)(e->bits + 3) / 4,
                    (unsigned long long)e->value);
        } else if (e->kind == NPK_EFFECT_MEM && e->size == 2 && strcmp(e->name, "ub") == 0) {
            fprintf(t->f, " ub[0x%08llx]=0x%02x%02x", (unsigned long long)e->addr, e->bytes[1],
                    e->bytes[0]);
            t->bad |= e->value != (unsigned)(e->bytes[1] << 8 | e->bytes[0]);
        } else if (e->kind == NPK_EFFECT_MEM && strcmp(e->name, "ub") == 0) {
            fprintf(t->f, " ub[0x%08llx]=bytes:", (unsigned long long)e->addr);
            for (uint64_t b = 0; b < e->size; b++)
                fprintf(t->f, "%02x", e->bytes[b]);
        } else {
            t->bad = 1;
        }
    }
    char text[200] = "(no instruction)";
    if (c->word_bytes && npk_disasm(m, c->word, c->pc, text, sizeof text) != NPK_OK)
        t->bad = 1;
    fprintf(t->f, " ; %s\n", text);
}

static void check_callback_tinytpu(void)
{
    npk_machine *m = machine("tinytpu", "tinytpu.s");
    NPK_CHECK(m != NULL);
    if (!m)
        return;
    char *buf = NULL, path[1024];
    size_t len = 0;
    tt_lines t = {open_memstream(&buf, &len), 0};
    NPK_CHECK(t.f != NULL);
    if (!t.f) {
        npk_destroy(m);
        return;
    }
    NPK_CHECK(npk_on_commit(m, tt_line, &t) == NPK_OK);
    npk_stop stop;
    /* a step, then the rest: the records run on */
    NPK_CHECK(npk_step(m, &stop) == NPK_OK);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
    fclose(t.f);
    NPK_CHECK(!t.bad);
    snprintf(path, sizeof path, "%s/tinytpu.expected", dir);
    char *want = slurp(path);
    NPK_CHECK(buf && want && strcmp(buf, want) == 0);
    if (buf && want && strcmp(buf, want) != 0)
        fprintf(stderr, "tinytpu callback lines:\n%s", buf);
    free(buf);
    free(want);
    npk_destroy(m);

    /* N = 3: the full-port word (tinytpu spec B5) is 96 + 17 * 3 = 147 bits, 19 bytes: sw 0,
     * start 1, T 2, hv[0..2] 3..5, cols 6..21, rows 22..37, addr 38..53, sel 54..62, hd[0]
     * 63..78, hd[1] 79..94, ...; host1=0x0001 sets bit 4 (byte 0 = 0x10) and bit 79 (byte 9 =
     * 0x80), and appends 0x0001 at wp = 0 */
    npk_machine *m3 = NULL;
    char err[256];
    NPK_CHECK(npk_create(&m3, "tinytpu", "lanes=3", err, sizeof err) == NPK_OK);
    if (!m3)
        return;
    NPK_CHECK(npk_load_asm(m3, "host1=0x0001\n", "n3.s", stderr) == NPK_OK);
    static collect k;
    memset(&k, 0, sizeof k);
    NPK_CHECK(npk_on_commit(m3, keep, &k) == NPK_OK);
    NPK_CHECK(npk_run(m3, 0, &stop) == NPK_OK);
    NPK_CHECK_EQ_U64(k.n, 1);
    NPK_CHECK_EQ_U64(k.r[0].word_bytes, 19);
    int only = 1;
    for (unsigned i = 0; i < 19; i++)
        only &= k.r[0].word[i] == (i == 0 ? 0x10 : i == 9 ? 0x80 : 0);
    NPK_CHECK(only);
    NPK_CHECK(k.r[0].n == 2 && k.r[0].e[1].kind == NPK_EFFECT_MEM && k.r[0].e[1].size == 2 &&
              k.r[0].e[1].value == 1);
    NPK_CHECK_EQ_STR(k.r[0].names[0], "wp");
    npk_destroy(m3);
}

/* The observed loop with records gives what the fast loop gives, on the XOR training step:
 * every register and the whole UB. */
static void check_same_results_tinytpu(const char *xor_path)
{
    npk_machine *a = NULL, *b = NULL;
    char err[256];
    NPK_CHECK(npk_create(&a, "tinytpu", NULL, err, sizeof err) == NPK_OK);
    NPK_CHECK(npk_create(&b, "tinytpu", NULL, err, sizeof err) == NPK_OK);
    if (!a || !b || npk_load_file(a, xor_path, stderr) != NPK_OK ||
        npk_load_file(b, xor_path, stderr) != NPK_OK) {
        NPK_CHECK(!"load the XOR step");
        npk_destroy(a);
        npk_destroy(b);
        return;
    }
    static collect k;
    memset(&k, 0, sizeof k);
    NPK_CHECK(npk_on_commit(a, keep, &k) == NPK_OK);
    npk_stop sa, sb;
    NPK_CHECK(npk_run(a, 0, &sa) == NPK_OK && npk_run(b, 0, &sb) == NPK_OK);
    NPK_CHECK(sa.reason == NPK_STOP_EXIT && sb.reason == NPK_STOP_EXIT && sa.pc == sb.pc);
    uint64_t cycles = 0;
    NPK_CHECK(npk_reg_read(a, "cycle", &cycles) == NPK_OK && cycles > 50);
    NPK_CHECK_EQ_U64(k.calls, cycles);
    int same = 1;
    for (size_t i = 0; i < npk_reg_count(a); i++) {
        uint64_t va = 0, vb = 1;
        npk_reg_read(a, npk_reg(a, i)->name, &va);
        npk_reg_read(b, npk_reg(b, i)->name, &vb);
        same &= va == vb;
    }
    NPK_CHECK(same);
    uint8_t ua[256], ub[256];
    NPK_CHECK(npk_mem_read(a, "ub", 0, ua, sizeof ua) == NPK_OK &&
              npk_mem_read(b, "ub", 0, ub, sizeof ub) == NPK_OK && memcmp(ua, ub, 256) == 0);
    npk_destroy(a);
    npk_destroy(b);
}

/* A callback may unset itself (npk_on_commit(m, NULL, NULL)) inside the callback: the loop
 * that delivers the record still holds the sink, which must stay alive until the run ends (it
 * was freed under the loop: a use after free under ASan, on every target), and the next run
 * is the fast loop again. The run itself finishes as without records. */
typedef struct quitter {
    size_t calls, after;
} quitter;

static void quit_after(npk_machine *m, const npk_commit *c, void *ctx)
{
    (void)c;
    quitter *q = ctx;
    if (++q->calls == q->after)
        NPK_CHECK(npk_on_commit(m, NULL, NULL) == NPK_OK);
}

static void check_unset_in_callback(void)
{
    static const char *const cases[][2] = {{"toy", "toy.s"},
                                           {"rvnpu", "rvnpu.s"},
                                           {"opennpu:K=4,L=8", "opennpu.s"},
                                           {"pccx", "pccx.s"},
                                           {"tinytpu", "tinytpu.s"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        npk_machine *m = machine(cases[i][0], cases[i][1]), *b = machine(cases[i][0], cases[i][1]);
        NPK_CHECK(m && b);
        if (!m || !b) {
            npk_destroy(m);
            npk_destroy(b);
            continue;
        }
        quitter q = {0, 3};
        npk_stop sa, sb;
        NPK_CHECK(npk_on_commit(m, quit_after, &q) == NPK_OK);
        NPK_CHECK(npk_run(m, 0, &sa) == NPK_OK && npk_run(b, 0, &sb) == NPK_OK);
        NPK_REPORT(q.calls == 3, "%s: %zu records after the callback unset itself\n",
                   cases[i][0], q.calls);
        NPK_CHECK(sa.reason == sb.reason && sa.pc == sb.pc && sa.exit_code == sb.exit_code);
        /* the sink is gone once the next run starts: no observer left */
        NPK_CHECK(npk_reset(m) == NPK_OK && npk_run(m, 0, &sa) == NPK_OK);
        NPK_REPORT(!npk_obs_active(&m->obs), "%s: observers still on\n", cases[i][0]);
        NPK_CHECK(q.calls == 3);
        npk_destroy(m);
        npk_destroy(b);
    }
}

/* Every target produces records now, so the NPK_ERR_UNSUPPORTED path of sink_of has no target
 * to test it with; unsetting sinks that were never set is fine, a bad format is refused. */
static void check_errors(void)
{
    npk_machine *m = NULL;
    char err[256];
    NPK_CHECK(npk_create(&m, "toy", NULL, err, sizeof err) == NPK_OK);
    if (!m)
        return;
    NPK_CHECK(npk_on_commit(m, NULL, NULL) == NPK_OK); /* unsetting nothing is fine */
    NPK_CHECK(npk_commit_log(m, NULL, NPK_COMMIT_TEXT) == NPK_OK);
    NPK_CHECK(!npk_obs_active(&m->obs));
    NPK_CHECK(npk_commit_log(m, stderr, (npk_commit_format)7) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_error(m), "commit log format 7");
    NPK_CHECK(!npk_obs_active(&m->obs));
    npk_destroy(m);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    check_golden("toy", "toy.s", "toy.expected", 0);
    check_golden("rvnpu", "rvnpu.s", "rvnpu.expected", 0);
    check_golden("opennpu:K=4,L=8", "opennpu.s", "opennpu.expected", 0);
    check_golden("pccx", "pccx.s", "pccx.expected", 0);
    check_golden("tinytpu", "tinytpu.s", "tinytpu.expected", 0);
    check_callback_rvnpu();
    check_unset();
    check_same_results();
    check_syscall_read();
    check_pccx();
    check_digest();
    check_callback_tinytpu();
    NPK_CHECK(argc > 2); /* usage: test_commit DIR XOR_STEP */
    if (argc > 2)
        check_same_results_tinytpu(argv[2]);
    check_unset_in_callback();
    check_errors();
    return npk_test_done();
}
