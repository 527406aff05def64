/* The machine API on the toy target with hand-encoded programs: run/step/budget, faults,
 * backdoor access with bounds, statistics (hand-computed), text trace and timeline JSON. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "json_check.h"
#include "npukit/npukit.h"
#include "test.h"

/* toy word layout: [31:26] opcode, [25:23] rd, [22:20] rs1, [19:17] rs2, [16] sat, [15:0] imm */
#define W(opc, rd, rs1, rs2, imm)                                                            \
    ((uint32_t)(opc) << 26 | (uint32_t)(rd) << 23 | (uint32_t)(rs1) << 20 |                  \
     (uint32_t)(rs2) << 17 | ((uint32_t)(imm)&0xffff))

/* sum = 5 + 4 + 3 + 2 + 1, then exit with it. */
static const uint32_t sum_prog[] = {
    W(0x04, 1, 0, 0, 5),  /* 0x00 li   r1, 5           = 0x10800005 */
    W(0x04, 2, 0, 0, 0),  /* 0x04 li   r2, 0           = 0x11000000 */
    W(0x08, 2, 2, 1, 0),  /* 0x08 add  r2, r2, r1      = 0x21220000 */
    W(0x0B, 1, 1, 0, -1), /* 0x0c addi r1, r1, -1      = 0x2c90ffff */
    W(0x19, 0, 1, 0, -2), /* 0x10 bne  r1, r0, 0x08    = 0x6410fffe */
    W(0x02, 0, 2, 0, 0),  /* 0x14 exit r2              = 0x08200000 */
};

static npk_machine *make(const char *spec)
{
    npk_machine *m;
    char err[256];
    if (npk_create(&m, spec, NULL, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "create %s: %s\n", spec, err);
        return NULL;
    }
    return m;
}

static uint64_t stat_of(const npk_stats *s, const char *name)
{
    for (size_t i = 0; i < s->n_mnemonics; i++)
        if (strcmp(s->mnemonic[i], name) == 0)
            return s->count[i];
    for (size_t i = 0; i < s->n_units; i++)
        if (strcmp(s->unit[i], name) == 0)
            return s->busy[i];
    for (size_t i = 0; i < s->n_extra; i++)
        if (strcmp(s->extra_name[i], name) == 0)
            return s->extra[i];
    return UINT64_MAX;
}

static void test_words(void)
{
    /* the encodings written next to sum_prog, computed by hand from the layout */
    NPK_CHECK_EQ_U64(sum_prog[0], 0x10800005);
    NPK_CHECK_EQ_U64(sum_prog[2], 0x21220000);
    NPK_CHECK_EQ_U64(sum_prog[3], 0x2c90ffff);
    NPK_CHECK_EQ_U64(sum_prog[4], 0x6410fffe);
    NPK_CHECK_EQ_U64(sum_prog[5], 0x08200000);
}

static void test_run_and_stats(void)
{
    npk_machine *m = make("toy");
    if (!m)
        return;
    npk_stop stop;
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_ERR_STATE); /* nothing loaded */
    NPK_CHECK_CONTAINS(npk_error(m), "nothing loaded");
    NPK_CHECK(npk_load_raw(m, sum_prog, sizeof sum_prog, 0) == NPK_OK);
    NPK_CHECK(npk_stats_enable(m, 1) == NPK_OK);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK);
    NPK_CHECK(stop.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(stop.exit_code, 15);
    npk_stats s;
    npk_stats_get(m, &s);
    /* 2 li + 5 x (add, addi, bne) + exit */
    NPK_CHECK_EQ_U64(s.insns, 18);
    NPK_CHECK_EQ_U64(stat_of(&s, "li"), 2);
    NPK_CHECK_EQ_U64(stat_of(&s, "add"), 5);
    NPK_CHECK_EQ_U64(stat_of(&s, "bne"), 5);
    NPK_CHECK_EQ_U64(stat_of(&s, "exit"), 1);
    NPK_CHECK_EQ_U64(stat_of(&s, "taken_branches"), 4);
    NPK_CHECK_EQ_U64(stat_of(&s, "stall_cycles"), 0);
    /* Timing by hand: li@0, li@1, then iteration k (k = 1..5) issues add, addi, bne at
     * 2+4(k-1) .. +2; a taken bne adds a bubble, so iterations are 4 cycles apart. The last
     * bne (not taken) issues at 20, exit at 21 and completes at 22. */
    NPK_CHECK_EQ_U64(s.cycles, 22);
    NPK_CHECK_EQ_U64(stat_of(&s, "alu"), 12); /* 12 one-cycle ALU ops */
    NPK_CHECK_EQ_U64(stat_of(&s, "ctl"), 6);  /* 5 bne + exit */
    uint64_t r2;
    NPK_CHECK(npk_reg_read(m, "r2", &r2) == NPK_OK && r2 == 15);
    NPK_CHECK(npk_reg_read(m, "R2", &r2) == NPK_OK && r2 == 15);
    NPK_CHECK(npk_reg_read(m, "x9", &r2) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_error(m), "no register 'x9'");
    NPK_CHECK(npk_reg_write(m, "r3", 0x100000000ull) == NPK_ERR_RANGE);

    /* The same program on the fast path gives the same architectural result. */
    npk_stats_enable(m, 0);
    NPK_CHECK(npk_load_raw(m, sum_prog, sizeof sum_prog, 0) == NPK_OK);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT &&
              stop.exit_code == 15);

    /* JSON statistics are valid JSON */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    npk_stats_json(m, f);
    fclose(f);
    NPK_CHECK(npk_json_check(buf, len) == 0);
    NPK_CHECK_CONTAINS(buf, "\"instructions\":18");
    free(buf);
    npk_destroy(m);
}

static void test_step_budget(void)
{
    npk_machine *m = make("toy");
    if (!m)
        return;
    npk_stop stop;
    npk_load_raw(m, sum_prog, sizeof sum_prog, 0);
    /* a step is not a budget stop: the program can go on (npukit.h) */
    NPK_CHECK(npk_step(m, &stop) == NPK_OK && stop.reason == NPK_STOP_NONE && stop.pc == 4);
    uint64_t pc, r1;
    npk_reg_read(m, "pc", &pc);
    npk_reg_read(m, "r1", &r1);
    NPK_CHECK_EQ_U64(pc, 4);
    NPK_CHECK_EQ_U64(r1, 5);
    NPK_CHECK(npk_run(m, 7, &stop) == NPK_OK && stop.reason == NPK_STOP_BUDGET);
    NPK_CHECK_CONTAINS(stop.message, "budget exhausted");
    /* step: li; run 7: li, add, addi, bne (taken, back to 0x08), add, addi, bne (taken) */
    NPK_CHECK_EQ_U64(stop.pc, 0x08);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.exit_code == 15);

    /* an endless loop: jmp . */
    uint32_t loop = W(0x1B, 0, 0, 0, 0);
    npk_load_raw(m, &loop, 4, 0);
    NPK_CHECK(npk_run(m, 1000, &stop) == NPK_OK && stop.reason == NPK_STOP_BUDGET);
    npk_destroy(m);
}

static void test_faults(void)
{
    npk_machine *m = make("toy:mem=64");
    if (!m)
        return;
    npk_stop stop;
    uint32_t illegal[] = {W(0x04, 1, 0, 0, 1), 0xfc000000u};
    npk_load_raw(m, illegal, sizeof illegal, 0);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_FAULT);
    NPK_CHECK_CONTAINS(stop.message, "illegal instruction");
    NPK_CHECK_CONTAINS(stop.message, "pc 0x00000004");
    NPK_CHECK_CONTAINS(stop.message, "0xfc000000");
    NPK_CHECK_CONTAINS(stop.message, "illegal: reserved opcode 0x3f");
    NPK_CHECK_EQ_U64(stop.pc, 4);
    NPK_CHECK_EQ_U64(stop.insn[0], 0xfc000000u);

    /* unused field bits set: add with a nonzero imm field */
    uint32_t bad_field = W(0x08, 1, 2, 3, 1);
    npk_load_raw(m, &bad_field, 4, 0);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_FAULT);
    NPK_CHECK_CONTAINS(stop.message, "add with nonzero bits in unused fields (0x00000001)");

    uint32_t bad_load[] = {W(0x10, 1, 0, 0, 100)}; /* ld r1, 100(r0): memory is 64 bytes */
    npk_load_raw(m, bad_load, sizeof bad_load, 0);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_FAULT);
    NPK_CHECK_CONTAINS(stop.message, "load from bad address 0x00000064");

    uint32_t run_off[] = {W(0x1B, 0, 0, 0, 100)}; /* jmp far outside memory */
    npk_load_raw(m, run_off, sizeof run_off, 0);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_FAULT);
    NPK_CHECK_CONTAINS(stop.message, "instruction fetch from bad address 0x00000190");

    /* images and backdoor accesses are bounds-checked */
    uint8_t big[128] = {0};
    NPK_CHECK(npk_load_raw(m, big, sizeof big, 0) == NPK_ERR_RANGE);
    NPK_CHECK(npk_load_raw(m, big, 6, 0) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(m), "not a whole number of 4-byte words");
    uint8_t b[8];
    NPK_CHECK(npk_mem_read(m, "mem", 60, b, 4) == NPK_OK);
    NPK_CHECK(npk_mem_read(m, "mem", 61, b, 4) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "outside mem (0x0 .. 0x3f)");
    NPK_CHECK(npk_mem_read(m, "mem", UINT64_MAX, b, 2) == NPK_ERR_RANGE);
    /* addr + n near 2^64: every form of wrap is a range error, never an access */
    NPK_CHECK(npk_mem_write(m, "mem", UINT64_MAX, b, 1) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "access of 1 bytes at 0xffffffffffffffff is outside mem");
    NPK_CHECK(npk_mem_write(m, "mem", UINT64_MAX - 3, b, 8) == NPK_ERR_RANGE);
    NPK_CHECK(npk_mem_read(m, "mem", 8, b, SIZE_MAX) == NPK_ERR_RANGE);
    NPK_CHECK(npk_mem_read(m, "mem", 64, b, 0) == NPK_OK); /* empty, at the end */
    NPK_CHECK(npk_mem_read(m, "mem", 65, b, 0) == NPK_ERR_RANGE);
    NPK_CHECK(npk_load_raw(m, big, 8, UINT64_MAX - 3) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "toy: raw image of 8 bytes at 0xfffffffffffffffc wraps past "
                                     "the end of the address space");
    NPK_CHECK(npk_mem_write(m, "nosuch", 0, b, 1) == NPK_ERR_ARG);
    NPK_CHECK(npk_load_elf(m, "\x7f" "ELF", 4, "x.elf") == NPK_ERR_UNSUPPORTED);
    NPK_CHECK_CONTAINS(npk_error(m), "ELF files are not supported");
    npk_destroy(m);
}

/* Self-modifying code: a store over an already executed (cached) word takes effect. */
static void test_decode_cache(void)
{
    npk_machine *m = make("toy");
    if (!m)
        return;
    uint32_t prog[] = {
        W(0x04, 1, 0, 0, 7),      /* 0x00 li r1, 7 */
        W(0x1A, 0, 2, 3, 3),      /* 0x04 blt r2, r3, 0x10 (second pass: exit) */
        W(0x10, 4, 0, 0, 0x20),   /* 0x08 ld r4, 0x20(r0): "exit r1" word */
        W(0x11, 0, 0, 4, 0x0),    /* 0x0c st r4, 0(r0): overwrite word 0 */
        W(0x04, 3, 0, 0, 1),      /* 0x10 li r3, 1 */
        W(0x1B, 0, 0, 0, -5),     /* 0x14 jmp 0x00 */
        0, 0,
        W(0x02, 0, 1, 0, 0),      /* 0x20 exit r1 (data) */
    };
    npk_load_raw(m, prog, sizeof prog, 0);
    npk_stop stop;
    NPK_CHECK(npk_run(m, 100, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(stop.exit_code, 7);
    NPK_CHECK_EQ_U64(stop.pc, 0);
    npk_destroy(m);
}

static void test_trace_timeline(void)
{
    npk_machine *m = make("toy");
    if (!m)
        return;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    npk_load_raw(m, sum_prog, sizeof sum_prog, 0);
    npk_trace_text(m, f);
    char path[] = "/tmp/npk_timeline_XXXXXX";
    int fd = mkstemp(path);
    NPK_CHECK(fd >= 0);
    if (fd >= 0)
        fclose(fdopen(fd, "w"));
    NPK_CHECK(npk_timeline_open(m, path) == NPK_OK);
    npk_stop stop;
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.exit_code == 15);
    NPK_CHECK(npk_timeline_close(m) == NPK_OK);
    npk_trace_text(m, NULL);
    fclose(f);
    /* first line: cycle 0, pc 0, word, disassembly */
    NPK_CHECK_CONTAINS(buf, "         0  00000000:  10800005  li r1, 5\n");
    NPK_CHECK_CONTAINS(buf, "        21  00000014:  08200000  exit r2\n");
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += buf[i] == '\n';
    NPK_CHECK_EQ_U64(lines, 18);
    free(buf);

    FILE *t = fopen(path, "rb");
    char tl[65536];
    size_t n = t ? fread(tl, 1, sizeof tl - 1, t) : 0;
    if (t)
        fclose(t);
    tl[n] = '\0';
    NPK_CHECK(n > 0 && npk_json_check(tl, n) == 0);
    NPK_CHECK_CONTAINS(tl, "\"traceEvents\"");
    NPK_CHECK_CONTAINS(tl, "\"name\":\"thread_name\",\"args\":{\"name\":\"alu\"}");
    NPK_CHECK_CONTAINS(tl, "\"ts\":21,\"dur\":1,\"name\":\"exit\"");
    size_t events = 0;
    for (const char *p = tl; (p = strstr(p, "\"ph\":\"X\"")); p++)
        events++;
    NPK_CHECK_EQ_U64(events, 18);
    remove(path);
    NPK_CHECK(npk_timeline_open(m, "/nonexistent-dir/x.json") == NPK_ERR_IO);
    npk_destroy(m);
}

/* Program addresses have the target's width: the last word that fits ends at 2^bits - 1, one
 * byte further is a range error, never an address the program cannot have (issue 13). */
static void test_addr_bits(void)
{
    static const struct {
        const char *target;
        unsigned bits;
        uint64_t last_word; /* address of the last whole word below 2^bits */
    } t[] = {{"toy", 32, 0xfffffffc},
             {"rvnpu", 32, 0xfffffffc},
             {"opennpu", 32, 0xfffffffc},
             {"pccx", 64, UINT64_C(0xfffffffffffffff8)}};
    const uint8_t word[8] = {0x13}; /* rvnpu: addi zero, zero, 0; a legal word or .word */
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        npk_machine *m = make(t[i].target);
        NPK_CHECK(m != NULL);
        if (!m)
            continue;
        char text[128];
        NPK_CHECK_EQ_U64(npk_addr_bits(m), t[i].bits);
        NPK_CHECK(npk_disasm(m, word, t[i].last_word, text, sizeof text) == NPK_OK);
        NPK_CHECK(npk_disasm(m, word, t[i].last_word + 1, text, sizeof text) == NPK_ERR_RANGE);
        NPK_CHECK_CONTAINS(npk_error(m), "runs past the end of the");
        NPK_CHECK(npk_disasm(m, word, UINT64_MAX, text, sizeof text) == NPK_ERR_RANGE);
        npk_destroy(m);
    }
    npk_machine *m = make("rvnpu");
    if (m) {
        char text[128];
        NPK_CHECK(npk_disasm(m, word, UINT64_C(0x100000000), text, sizeof text) ==
                  NPK_ERR_RANGE);
        NPK_CHECK_EQ_STR(npk_error(m), "rvnpu: a 4-byte word at 0x100000000 runs past the end "
                                       "of the 32-bit address space");
        npk_destroy(m);
    }
}

int main(void)
{
    test_words();
    test_run_and_stats();
    test_step_budget();
    test_faults();
    test_decode_cache();
    test_trace_timeline();
    test_addr_bits();
    return npk_test_done();
}
