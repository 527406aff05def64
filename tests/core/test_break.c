/* Breakpoints and watchpoints (docs/breakpoints.md) on every target: a breakpoint stops
 * before its instruction with the right pc and retired count, and the run continues to the
 * same end as one without it; write and read watches stop after the instruction that made
 * the access, with its address, size and value; a range that an access overlaps in part is
 * hit, one just beside it is not. Expected values are derived by hand from the programs.
 * argv[1]: the source tree (examples/pccx/softmax.s, examples/rvnpu/hello.elf). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "core/machine.h"
#include "npukit/npukit.h"
#include "targets/tinytpu/machine/tt_prog.h"
#include "test.h"

static const char *src_dir = ".";

static npk_machine *make(const char *spec)
{
    npk_machine *m = NULL;
    char err[256];
    if (npk_create(&m, spec, NULL, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "create %s: %s\n", spec, err);
        exit(2);
    }
    npk_set_output(m, stdout, stdout);
    return m;
}

static npk_machine *make_asm(const char *spec, const char *src)
{
    npk_machine *m = make(spec);
    if (npk_load_asm(m, src, "break.s", stderr) != NPK_OK) {
        fprintf(stderr, "%s: %s\n", spec, npk_error(m));
        exit(2);
    }
    return m;
}

static npk_machine *make_file(const char *spec, const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", src_dir, rel);
    npk_machine *m = make(spec);
    if (npk_load_file(m, path, stderr) != NPK_OK) {
        fprintf(stderr, "%s: %s\n", path, npk_error(m));
        exit(2);
    }
    return m;
}

static uint64_t insns(npk_machine *m)
{
    npk_stats s;
    npk_stats_get(m, &s);
    return s.insns;
}

static uint64_t reg(npk_machine *m, const char *name)
{
    uint64_t v = 0xdeadbeef;
    NPK_CHECK(npk_reg_read(m, name, &v) == NPK_OK);
    return v;
}

/* Every register and the first 64 KiB of every space of two machines agree. */
static void check_same_state(npk_machine *a, npk_machine *b, const char *what)
{
    size_t nr = npk_reg_count(a);
    NPK_CHECK(nr > 0 && nr == npk_reg_count(b));
    uint8_t va[256], vb[256];
    for (size_t i = 0; i < nr; i++) {
        const npk_reg_info *r = npk_reg(a, i);
        size_t n = (r->bits + 7) / 8;
        if (n > sizeof va)
            continue;
        memset(va, 1, n);
        memset(vb, 2, n);
        npk_reg_read_bytes(a, r->name, va, n);
        npk_reg_read_bytes(b, r->name, vb, n);
        NPK_REPORT(memcmp(va, vb, n) == 0, "%s: register %s differs\n", what, r->name);
    }
    static uint8_t ma[1 << 16], mb[1 << 16];
    for (size_t i = 0; i < npk_space_count(a); i++) {
        const npk_space_info *si = npk_space(a, i);
        size_t n = si->size < sizeof ma ? (size_t)si->size : sizeof ma;
        if (!n)
            continue;
        NPK_CHECK(npk_mem_read(a, si->name, 0, ma, n) == NPK_OK);
        NPK_CHECK(npk_mem_read(b, si->name, 0, mb, n) == NPK_OK);
        NPK_REPORT(memcmp(ma, mb, n) == 0, "%s: space %s differs\n", what, si->name);
    }
}

/* Run to the end through breakpoint and watchpoint stops (at most 64: a stop that repeats
 * without progress fails instead of hanging), return the last stop. */
static npk_stop run_end(npk_machine *m)
{
    npk_stop st;
    int n = 0;
    do
        NPK_CHECK(npk_run(m, 0, &st) == NPK_OK);
    while ((st.reason == NPK_STOP_BREAKPOINT || st.reason == NPK_STOP_WATCHPOINT) && ++n < 64);
    NPK_CHECK(n < 64);
    return st;
}

/* One watch on a fresh machine, run once: the stop and the hit. */
typedef struct watch_case {
    const char *space;
    uint64_t addr, len;
    unsigned kind;
} watch_case;

static npk_stop run_watch(npk_machine *m, watch_case c, npk_watch_hit *hit)
{
    unsigned id = 0;
    NPK_CHECK(npk_watch_add(m, c.space, c.addr, c.len, c.kind, &id) == NPK_OK);
    NPK_CHECK(id > 0);
    npk_stop st;
    NPK_CHECK(npk_run(m, 0, &st) == NPK_OK);
    memset(hit, 0, sizeof *hit);
    if (st.reason == NPK_STOP_WATCHPOINT) {
        NPK_CHECK(npk_watch_last_hit(m, hit) == NPK_OK);
        NPK_CHECK_EQ_U64(hit->id, id);
        NPK_CHECK_EQ_U64(hit->kind & c.kind, hit->kind);
    } else {
        NPK_CHECK(npk_watch_last_hit(m, hit) == NPK_ERR_STATE);
    }
    return st;
}

static void check_hit(npk_stop st, const npk_watch_hit *h, uint64_t stop_pc, uint64_t pc,
                      unsigned kind, const char *space, uint64_t addr, uint64_t size,
                      uint64_t value, const char *what)
{
    NPK_REPORT(st.reason == NPK_STOP_WATCHPOINT, "%s: stop %d (%s), want a watchpoint\n", what,
               (int)st.reason, st.message);
    NPK_CHECK_EQ_U64(st.pc, stop_pc);
    NPK_CHECK_EQ_U64(h->pc, pc);
    NPK_CHECK_EQ_U64(h->kind, kind);
    NPK_CHECK_EQ_STR(h->space, space);
    NPK_CHECK_EQ_U64(h->addr, addr);
    NPK_CHECK_EQ_U64(h->size, size);
    NPK_CHECK_EQ_U64(h->value, value);
    NPK_CHECK_CONTAINS(st.message, "watchpoint");
}

/* ---- toy ------------------------------------------------------------------------------------ */

/* pc: 0 li, 4 li, 8 st r2 -> mem[0x100], 12 ld mem[0x104], 16 ld mem[0x100], 20 addi, 24 st
 * r4 -> mem[0x108], 28 exit r4 (43) */
static const char toy_src[] = "        li   r1, 0x100\n"
                              "        li   r2, 42\n"
                              "        st   r2, 0(r1)\n"
                              "        ld   r3, 4(r1)\n"
                              "        ld   r4, 0(r1)\n"
                              "        addi r4, r4, 1\n"
                              "        st   r4, 8(r1)\n"
                              "        exit r4\n";

static void test_toy(void)
{
    npk_machine *plain = make_asm("toy", toy_src);
    npk_stats_enable(plain, 1);
    npk_stop end = run_end(plain);
    NPK_CHECK(end.reason == NPK_STOP_EXIT && end.exit_code == 43);
    NPK_CHECK_EQ_U64(insns(plain), 8);

    /* breakpoints at the second ld and at the exit: stop before each, then the same end */
    npk_machine *m = make_asm("toy", toy_src);
    npk_stats_enable(m, 1);
    NPK_CHECK(npk_break_add(m, 16) == NPK_OK);
    NPK_CHECK(npk_break_add(m, 28) == NPK_OK);
    NPK_CHECK(npk_break_add(m, 28) == NPK_OK); /* twice: one breakpoint */
    npk_stop st;
    NPK_CHECK(npk_run(m, 0, &st) == NPK_OK);
    NPK_CHECK(st.reason == NPK_STOP_BREAKPOINT);
    NPK_CHECK_EQ_U64(st.pc, 16);
    NPK_CHECK_EQ_U64(insns(m), 4);
    NPK_CHECK_EQ_U64(reg(m, "r4"), 0); /* the ld at 16 has not run */
    NPK_CHECK_EQ_U64(st.insn[0], 0x42100000); /* ld: opcode 0x10, rd 4, rs1 1 */
    NPK_CHECK_CONTAINS(st.message, "breakpoint at pc 0x00000010");
    NPK_CHECK_CONTAINS(st.message, "ld r4, 0(r1)");
    NPK_CHECK(npk_run(m, 0, &st) == NPK_OK); /* executes the ld, stops at the exit */
    NPK_CHECK(st.reason == NPK_STOP_BREAKPOINT);
    NPK_CHECK_EQ_U64(st.pc, 28);
    NPK_CHECK_EQ_U64(insns(m), 7);
    NPK_CHECK(npk_run(m, 0, &st) == NPK_OK);
    NPK_CHECK(st.reason == NPK_STOP_EXIT && st.exit_code == 43);
    NPK_CHECK_EQ_U64(insns(m), 8);
    check_same_state(plain, m, "toy breakpoints");

    /* a budget that ends before the breakpoint wins; the breakpoint then stops exactly */
    npk_reset(m);
    NPK_CHECK(npk_load_asm(m, toy_src, "break.s", stderr) == NPK_OK);
    NPK_CHECK(npk_run(m, 3, &st) == NPK_OK);
    NPK_CHECK(st.reason == NPK_STOP_BUDGET);
    NPK_CHECK_EQ_U64(st.pc, 12);
    NPK_CHECK(npk_run(m, 100, &st) == NPK_OK);
    NPK_CHECK(st.reason == NPK_STOP_BREAKPOINT);
    NPK_CHECK_EQ_U64(st.pc, 16);
    NPK_CHECK_EQ_U64(insns(m), 4);
    /* a step at a reported breakpoint executes it; a step onto one stops there */
    NPK_CHECK(npk_step(m, &st) == NPK_OK);
    NPK_CHECK(st.reason == NPK_STOP_NONE);
    NPK_CHECK_EQ_U64(st.pc, 20);
    NPK_CHECK_EQ_U64(reg(m, "r4"), 42);
    NPK_CHECK(npk_step(m, &st) == NPK_OK && st.reason == NPK_STOP_NONE);
    NPK_CHECK(npk_step(m, &st) == NPK_OK && st.reason == NPK_STOP_NONE && st.pc == 28);
    NPK_CHECK(npk_step(m, &st) == NPK_OK);
    NPK_CHECK(st.reason == NPK_STOP_BREAKPOINT && st.pc == 28);
    NPK_CHECK_EQ_U64(insns(m), 7);
    NPK_CHECK(npk_step(m, &st) == NPK_OK);
    NPK_CHECK(st.reason == NPK_STOP_EXIT && st.exit_code == 43);
    /* removing them brings the fast loop back (no observer left) */
    npk_stats_enable(m, 0);
    NPK_CHECK(npk_observers(m)->active);
    NPK_CHECK(npk_break_remove(m, 16) == NPK_OK);
    NPK_CHECK(npk_break_remove(m, 16) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_error(m), "no breakpoint at 0x10");
    npk_break_clear(m);
    NPK_CHECK(!npk_observers(m)->active && !npk_observers(m)->dbg);
    npk_destroy(m);

    /* watches: the st at 8 writes mem[0x100..0x103] = 42; the ld at 12 reads 0x104..0x107 */
    npk_watch_hit h;
    m = make_asm("toy", toy_src);
    npk_stats_enable(m, 1);
    st = run_watch(m, (watch_case){"mem", 0x100, 4, NPK_WATCH_WRITE}, &h);
    check_hit(st, &h, 12, 8, NPK_WATCH_WRITE, "mem", 0x100, 4, 42, "toy write");
    NPK_CHECK_EQ_U64(h.access_addr, 0x100);
    NPK_CHECK_EQ_U64(h.access_size, 4);
    NPK_CHECK_EQ_U64(insns(m), 3);
    NPK_CHECK_CONTAINS(st.message, "watchpoint 1 (write mem:0x100+4): write of 4 bytes at "
                                   "mem:0x100 = 0x0000002a by pc 0x00000008");
    /* nothing else writes the range: the next run ends the program */
    st = run_end(m);
    NPK_CHECK(st.reason == NPK_STOP_EXIT && st.exit_code == 43);
    check_same_state(plain, m, "toy after a write watch");
    npk_destroy(m);

    m = make_asm("toy", toy_src);
    st = run_watch(m, (watch_case){"mem", 0x104, 2, NPK_WATCH_READ}, &h);
    check_hit(st, &h, 16, 12, NPK_WATCH_READ, "mem", 0x104, 2, 0, "toy read");
    npk_destroy(m);
    /* a read watch is not hit by the write at 8, but by the read at 16 */
    m = make_asm("toy", toy_src);
    st = run_watch(m, (watch_case){"mem", 0x100, 1, NPK_WATCH_READ}, &h);
    check_hit(st, &h, 20, 16, NPK_WATCH_READ, "mem", 0x100, 1, 42, "toy read after write");
    npk_destroy(m);
    /* partial overlap: [0x10a, 0x110) meets the st at 24's [0x108, 0x10c) in 2 bytes */
    m = make_asm("toy", toy_src);
    st = run_watch(m, (watch_case){"mem", 0x10a, 6, NPK_WATCH_WRITE}, &h);
    check_hit(st, &h, 28, 24, NPK_WATCH_WRITE, "mem", 0x10a, 2, 0, "toy partial");
    NPK_CHECK_EQ_U64(h.access_addr, 0x108);
    npk_destroy(m);
    /* just outside: 0x10c.. and ..0x0ff are never written */
    m = make_asm("toy", toy_src);
    st = run_watch(m, (watch_case){"mem", 0x10c, 4, NPK_WATCH_WRITE}, &h);
    NPK_CHECK(st.reason == NPK_STOP_EXIT && st.exit_code == 43);
    npk_destroy(m);
    m = make_asm("toy", toy_src);
    st = run_watch(m, (watch_case){"mem", 0xfc, 4, NPK_WATCH_READ | NPK_WATCH_WRITE}, &h);
    NPK_CHECK(st.reason == NPK_STOP_EXIT && st.exit_code == 43);
    npk_destroy(m);

    /* bad arguments, each named */
    m = make_asm("toy", toy_src);
    NPK_CHECK(npk_break_add(m, 2) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_error(m), "breakpoint at 0x2: not a multiple of the 4-byte");
    NPK_CHECK(npk_break_add(m, UINT64_C(1) << 32) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_error(m), "outside the 32-bit address space");
    unsigned id = 99;
    NPK_CHECK(npk_watch_add(m, "ram", 0, 4, NPK_WATCH_WRITE, &id) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_error(m), "no memory space 'ram' (spaces: mem)");
    NPK_CHECK_EQ_U64(id, 0);
    NPK_CHECK(npk_watch_add(m, "mem", 0x10, 0, NPK_WATCH_WRITE, &id) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_error(m), "zero length");
    NPK_CHECK(npk_watch_add(m, "mem", 0xfffe, 4, NPK_WATCH_WRITE, &id) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "watch of 4 bytes at 0xfffe is outside mem (0x0 .. 0xffff)");
    NPK_CHECK(npk_watch_add(m, "mem", 0, 4, 0, &id) == NPK_ERR_ARG);
    NPK_CHECK(npk_watch_add(m, "mem", 0, 4, 4, &id) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_error(m), "watch kind 4");
    NPK_CHECK(npk_watch_remove(m, 7) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_error(m), "no watch 7");
    NPK_CHECK(!npk_observers(m)->dbg); /* nothing was set */
    NPK_CHECK(npk_watch_add(m, "MEM", 0, 4, NPK_WATCH_WRITE, &id) == NPK_OK);
    NPK_CHECK(npk_observers(m)->dbg != NULL);
    NPK_CHECK(npk_watch_remove(m, id) == NPK_OK);
    NPK_CHECK(!npk_observers(m)->dbg);
    npk_destroy(m);
    npk_destroy(plain);
}

/* ---- rvnpu ---------------------------------------------------------------------------------- */

/* At 0x80000000: la t0, buf (2), li t1, 0x11223344 (2), then 0x10 sw t1 -> buf+4,
 * 0x14 lw buf+8, 0x18 lbu buf+5 (0x33), 0x1c sb -> buf+12, 0x20 addi a0, 0x24 li a7, 0x28
 * ecall: exit(0x33); buf = 0x8000002c. */
static const char rv_src[] = "_start:\n"
                             "    la   t0, buf\n"
                             "    li   t1, 0x11223344\n"
                             "    sw   t1, 4(t0)\n"
                             "    lw   t2, 8(t0)\n"
                             "    lbu  t3, 5(t0)\n"
                             "    sb   t3, 12(t0)\n"
                             "    addi a0, t3, 0\n"
                             "    li   a7, 93\n"
                             "    ecall\n"
                             "buf:\n"
                             "    .word 1, 2, 3, 4\n";
#define RV 0x80000000u
#define BUF (RV + 0x2c)

static void count_rec(npk_machine *m, const npk_commit *c, void *ctx)
{
    (void)m, (void)c;
    ++*(size_t *)ctx;
}

static void test_rvnpu(void)
{
    npk_machine *plain = make_asm("rvnpu", rv_src);
    npk_stats_enable(plain, 1);
    npk_stop st = run_end(plain);
    NPK_CHECK(st.reason == NPK_STOP_EXIT && st.exit_code == 0x33);
    NPK_CHECK_EQ_U64(insns(plain), 11);

    npk_machine *m = make_asm("rvnpu", rv_src);
    npk_stats_enable(m, 1);
    NPK_CHECK(npk_break_add(m, RV + 0x10) == NPK_OK);
    NPK_CHECK(npk_run(m, 0, &st) == NPK_OK);
    NPK_CHECK(st.reason == NPK_STOP_BREAKPOINT);
    NPK_CHECK_EQ_U64(st.pc, RV + 0x10);
    NPK_CHECK_EQ_U64(insns(m), 4);
    NPK_CHECK_EQ_U64(reg(m, "t1"), 0x11223344);
    NPK_CHECK_EQ_U64(st.insn[0], 0x0062a223);
    NPK_CHECK_CONTAINS(st.message, "sw t1, 4(t0)");
    uint8_t b[4];
    NPK_CHECK(npk_mem_read(m, "ram", 0x30, b, 4) == NPK_OK && b[0] == 2); /* not stored yet */
    st = run_end(m);
    NPK_CHECK(st.reason == NPK_STOP_EXIT && st.exit_code == 0x33);
    NPK_CHECK_EQ_U64(insns(m), 11);
    check_same_state(plain, m, "rvnpu breakpoint");
    npk_destroy(m);

    /* with a commit callback too: rvnpu's recording loop serves callbacks alone, so a
     * breakpoint must send the run to the observed loop (it ran past it before) */
    m = make_asm("rvnpu", rv_src);
    size_t n_rec = 0;
    NPK_CHECK(npk_on_commit(m, count_rec, &n_rec) == NPK_OK);
    NPK_CHECK(npk_break_add(m, RV + 0x10) == NPK_OK);
    NPK_CHECK(npk_run(m, 0, &st) == NPK_OK);
    NPK_CHECK(st.reason == NPK_STOP_BREAKPOINT && st.pc == RV + 0x10);
    NPK_CHECK_EQ_U64(n_rec, 4);
    st = run_end(m);
    NPK_CHECK(st.reason == NPK_STOP_EXIT && n_rec == 11);
    npk_destroy(m);
    /* and a read watch (lw at 0x14 reads buf + 8): the recording loop sees no loads */
    m = make_asm("rvnpu", rv_src);
    n_rec = 0;
    unsigned wid = 0;
    NPK_CHECK(npk_on_commit(m, count_rec, &n_rec) == NPK_OK);
    NPK_CHECK(npk_watch_add(m, "bus", BUF + 8, 4, NPK_WATCH_READ, &wid) == NPK_OK);
    NPK_CHECK(npk_run(m, 0, &st) == NPK_OK);
    NPK_CHECK(st.reason == NPK_STOP_WATCHPOINT && st.pc == RV + 0x18);
    NPK_CHECK_EQ_U64(n_rec, 6);
    npk_destroy(m);

    npk_watch_hit h;
    m = make_asm("rvnpu", rv_src);
    npk_stats_enable(m, 1);
    st = run_watch(m, (watch_case){"bus", BUF + 4, 4, NPK_WATCH_WRITE}, &h);
    check_hit(st, &h, RV + 0x14, RV + 0x10, NPK_WATCH_WRITE, "bus", BUF + 4, 4, 0x11223344,
              "rvnpu sw");
    NPK_CHECK_EQ_U64(insns(m), 5);
    NPK_CHECK_CONTAINS(st.message, "sw t1, 4(t0)");
    st = run_end(m);
    NPK_CHECK(st.reason == NPK_STOP_EXIT && st.exit_code == 0x33);
    check_same_state(plain, m, "rvnpu write watch");
    npk_destroy(m);
    /* the same store seen through "ram" (offsets), in part: bytes 6, 7 of [6, 14) */
    m = make_asm("rvnpu", rv_src);
    st = run_watch(m, (watch_case){"ram", 0x2c + 6, 8, NPK_WATCH_WRITE}, &h);
    check_hit(st, &h, RV + 0x14, RV + 0x10, NPK_WATCH_WRITE, "ram", 0x2c + 6, 2, 0x1122,
              "rvnpu partial ram");
    NPK_CHECK_EQ_U64(h.access_addr, 0x2c + 4);
    npk_destroy(m);
    /* reads: lw buf+8 (3), then lbu buf+5 (0x33) */
    m = make_asm("rvnpu", rv_src);
    st = run_watch(m, (watch_case){"bus", BUF + 8, 4, NPK_WATCH_READ}, &h);
    check_hit(st, &h, RV + 0x18, RV + 0x14, NPK_WATCH_READ, "bus", BUF + 8, 4, 3, "rvnpu lw");
    npk_destroy(m);
    m = make_asm("rvnpu", rv_src);
    st = run_watch(m, (watch_case){"bus", BUF + 5, 1, NPK_WATCH_READ}, &h);
    check_hit(st, &h, RV + 0x1c, RV + 0x18, NPK_WATCH_READ, "bus", BUF + 5, 1, 0x33,
              "rvnpu lbu");
    npk_destroy(m);
    /* read or write: the sb at 0x1c */
    m = make_asm("rvnpu", rv_src);
    st = run_watch(m, (watch_case){"bus", BUF + 12, 4, NPK_WATCH_READ | NPK_WATCH_WRITE}, &h);
    check_hit(st, &h, RV + 0x20, RV + 0x1c, NPK_WATCH_WRITE, "bus", BUF + 12, 1, 0x33,
              "rvnpu sb");
    npk_destroy(m);
    /* just outside: nothing writes buf+8 .. buf+11 or buf+13 ..; buf+3 is never read */
    m = make_asm("rvnpu", rv_src);
    st = run_watch(m, (watch_case){"bus", BUF + 8, 4, NPK_WATCH_WRITE}, &h);
    NPK_CHECK(st.reason == NPK_STOP_EXIT && st.exit_code == 0x33);
    npk_destroy(m);
    m = make_asm("rvnpu", rv_src);
    st = run_watch(m, (watch_case){"bus", BUF + 13, 3, NPK_WATCH_WRITE}, &h);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    npk_destroy(m);
    m = make_asm("rvnpu", rv_src);
    st = run_watch(m, (watch_case){"bus", BUF, 4, NPK_WATCH_READ}, &h);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    npk_destroy(m);
    /* the bus is 2^32 bytes; the RAM 4 MiB */
    m = make_asm("rvnpu", rv_src);
    NPK_CHECK(npk_watch_add(m, "bus", 0xfffffffe, 4, NPK_WATCH_READ, NULL) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "outside bus (0x0 .. 0xffffffff)");
    NPK_CHECK(npk_watch_add(m, "ram", 0x400000, 1, NPK_WATCH_READ, NULL) == NPK_ERR_RANGE);
    NPK_CHECK(npk_break_add(m, RV + 2) == NPK_ERR_ARG);
    npk_destroy(m);
    npk_destroy(plain);
}

/* NPU instructions access memory element by element through the bus: 0x14 npu.vmac reads
 * a[0..3] = 1..4 at 0x8000002c and b[0..3] = 5..8 at 0x80000030 (acc = 70), 0x18 npu.ldvec
 * v1 <- a, 0x1c npu.stvec v1 -> b+4..b+7; exit(70). */
static const char rv_npu_src[] = "_start:\n"
                                 "    la   t0, a\n"
                                 "    la   t1, b\n"
                                 "    li   t2, 4\n"
                                 "    npu.vmac t2, t0, t1\n"
                                 "    npu.ldvec v1, 0(t0)\n"
                                 "    npu.stvec v1, 4(t1)\n"
                                 "    npu.rstacc a0\n"
                                 "    li   a7, 93\n"
                                 "    ecall\n"
                                 "a:  .byte 1, 2, 3, 4\n"
                                 "b:  .byte 5, 6, 7, 8\n"
                                 "    .byte 0, 0, 0, 0\n";

static void test_rvnpu_npu(void)
{
    npk_machine *plain = make_asm("rvnpu", rv_npu_src);
    npk_stop st = run_end(plain);
    NPK_CHECK(st.reason == NPK_STOP_EXIT && st.exit_code == 70);
    npk_watch_hit h;
    npk_machine *m = make_asm("rvnpu", rv_npu_src);
    st = run_watch(m, (watch_case){"bus", RV + 0x32, 1, NPK_WATCH_READ}, &h);
    check_hit(st, &h, RV + 0x18, RV + 0x14, NPK_WATCH_READ, "bus", RV + 0x32, 1, 7,
              "rvnpu vmac read");
    NPK_CHECK_EQ_U64(h.access_size, 1); /* one element */
    st = run_end(m);
    NPK_CHECK(st.reason == NPK_STOP_EXIT && st.exit_code == 70);
    check_same_state(plain, m, "rvnpu NPU read watch");
    npk_destroy(m);
    m = make_asm("rvnpu", rv_npu_src); /* a[1] via "ram": read first by the vmac */
    st = run_watch(m, (watch_case){"ram", 0x2d, 1, NPK_WATCH_READ}, &h);
    check_hit(st, &h, RV + 0x18, RV + 0x14, NPK_WATCH_READ, "ram", 0x2d, 1, 2,
              "rvnpu vmac read ram");
    npk_destroy(m);
    m = make_asm("rvnpu", rv_npu_src); /* stvec writes b+5 = a[1] */
    st = run_watch(m, (watch_case){"bus", RV + 0x35, 1, NPK_WATCH_WRITE}, &h);
    check_hit(st, &h, RV + 0x20, RV + 0x1c, NPK_WATCH_WRITE, "bus", RV + 0x35, 1, 2,
              "rvnpu stvec write");
    st = run_end(m);
    NPK_CHECK(st.reason == NPK_STOP_EXIT && st.exit_code == 70);
    check_same_state(plain, m, "rvnpu NPU write watch");
    npk_destroy(m);
    m = make_asm("rvnpu", rv_npu_src); /* just past what stvec writes */
    st = run_watch(m, (watch_case){"bus", RV + 0x38, 4, NPK_WATCH_WRITE}, &h);
    NPK_CHECK(st.reason == NPK_STOP_EXIT && st.exit_code == 70);
    npk_destroy(m);
    npk_destroy(plain);
}

/* SDK firmware: hello.elf writes its first line with the write syscall (a read of the string
 * by the ecall), then puts the second. */
static void test_rvnpu_elf(void)
{
    static const char line[] = "hello from rvnpu firmware (write)\n";
    FILE *out = tmpfile();
    npk_machine *plain = make_file("rvnpu", "examples/rvnpu/hello.elf");
    npk_set_output(plain, out, out);
    npk_stats_enable(plain, 1);
    npk_stop st = run_end(plain);
    NPK_CHECK(st.reason == NPK_STOP_EXIT && st.exit_code == 0);
    uint64_t total = insns(plain);
    /* where the string is: search the RAM image */
    static uint8_t ram[1 << 16];
    NPK_CHECK(npk_mem_read(plain, "ram", 0, ram, sizeof ram) == NPK_OK);
    uint64_t at = 0;
    for (size_t i = 0; i + sizeof line - 1 <= sizeof ram; i++)
        if (memcmp(ram + i, line, sizeof line - 1) == 0) {
            at = i;
            break;
        }
    NPK_CHECK(at != 0);

    /* a read watch over the string's last 4 bytes and 4 beyond: met by write(1, line, 34) */
    npk_machine *m = make_file("rvnpu", "examples/rvnpu/hello.elf");
    npk_set_output(m, out, out);
    npk_stats_enable(m, 1);
    npk_watch_hit h;
    st = run_watch(m, (watch_case){"bus", RV + at + 30, 8, NPK_WATCH_READ}, &h);
    NPK_CHECK(st.reason == NPK_STOP_WATCHPOINT);
    NPK_CHECK_EQ_U64(h.access_addr, RV + at);
    NPK_CHECK_EQ_U64(h.access_size, sizeof line - 1);
    NPK_CHECK_EQ_U64(h.addr, RV + at + 30);
    NPK_CHECK_EQ_U64(h.size, 4);
    NPK_CHECK_EQ_U64(h.value, 0x0a296574); /* "te)\n" */
    NPK_CHECK_EQ_U64(st.pc, h.pc + 4);
    uint32_t w = 0;
    NPK_CHECK(npk_mem_read(m, "bus", h.pc, &w, 4) == NPK_ERR_ARG); /* "bus" is no npk_space */
    NPK_CHECK(npk_mem_read(m, "ram", h.pc - RV, &w, 4) == NPK_OK);
    NPK_CHECK_EQ_U64(w, 0x00000073); /* ecall */
    NPK_CHECK_EQ_U64(reg(m, "a7"), 64);
    NPK_CHECK_EQ_U64(reg(m, "a0"), sizeof line - 1);
    uint64_t at_write = insns(m), ecall = h.pc;
    st = run_end(m);
    NPK_CHECK(st.reason == NPK_STOP_EXIT && st.exit_code == 0);
    NPK_CHECK_EQ_U64(insns(m), total);
    check_same_state(plain, m, "hello.elf read watch");
    npk_destroy(m);

    /* a breakpoint at that ecall stops one instruction earlier, before the line is written */
    FILE *out2 = tmpfile();
    m = make_file("rvnpu", "examples/rvnpu/hello.elf");
    npk_set_output(m, out2, out2);
    npk_stats_enable(m, 1);
    NPK_CHECK(npk_break_add(m, ecall) == NPK_OK);
    NPK_CHECK(npk_run(m, 0, &st) == NPK_OK);
    NPK_CHECK(st.reason == NPK_STOP_BREAKPOINT);
    NPK_CHECK_EQ_U64(st.pc, ecall);
    NPK_CHECK_EQ_U64(insns(m), at_write - 1);
    fflush(out2);
    NPK_CHECK_EQ_U64(ftell(out2), 0);
    st = run_end(m);
    NPK_CHECK(st.reason == NPK_STOP_EXIT && st.exit_code == 0);
    NPK_CHECK_EQ_U64(insns(m), total);
    check_same_state(plain, m, "hello.elf breakpoint");
    /* the same output as the plain run (twice in `out`: plain and watched) */
    char a[256] = {0}, c[256] = {0};
    rewind(out);
    rewind(out2);
    size_t na = fread(a, 1, sizeof a - 1, out), nc = fread(c, 1, sizeof c - 1, out2);
    NPK_CHECK(na == 2 * nc && nc > sizeof line && memcmp(a, c, nc) == 0);
    NPK_CHECK(memcmp(c, line, sizeof line - 1) == 0);
    npk_destroy(m);
    npk_destroy(plain);
    fclose(out);
    fclose(out2);
}

/* ---- opennpu -------------------------------------------------------------------------------- */

/* K = 4: rf row r = bytes 4r .. 4r+3; VR1 (rows 4..7) is 0, so the st.vx and ld.vx address
 * 16 and 18. Byte pcs: 0 vx1 = 3s, 4 vx2 = 5s, 8 vx3 = 8s (reads rows 1, 2), 12 st.vx vx3 ->
 * mem[16..19], 16 ld.vx vx4 <- mem[18..21] (08 08 00 00), 20 vx5 = vx4 + vx4. */
static const char onpu_src[] = "        vbcast.imm vx1, 3\n"
                               "        vbcast.imm vx2, 5\n"
                               "        vadd    vx3, vx1, vx2\n"
                               "        st.vx   vx3, 16(vr1)\n"
                               "        ld.vx   vx4, 18(vr1)\n"
                               "        vadd    vx5, vx4, vx4\n";
#define ONPU "opennpu:K=4,L=8"

static void test_opennpu(void)
{
    npk_machine *plain = make_asm(ONPU, onpu_src);
    npk_stats_enable(plain, 1);
    npk_stop st = run_end(plain);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(insns(plain), 6);

    npk_machine *m = make_asm(ONPU, onpu_src);
    npk_stats_enable(m, 1);
    NPK_CHECK(npk_break_add(m, 8) == NPK_OK);
    NPK_CHECK(npk_break_add(m, 6) == NPK_ERR_ARG);
    NPK_CHECK(npk_run(m, 0, &st) == NPK_OK);
    NPK_CHECK(st.reason == NPK_STOP_BREAKPOINT);
    NPK_CHECK_EQ_U64(st.pc, 8);
    NPK_CHECK_EQ_U64(insns(m), 2);
    NPK_CHECK_EQ_U64(reg(m, "vx3"), 0);
    NPK_CHECK_EQ_U64(reg(m, "vx2"), 0x05050505);
    NPK_CHECK_CONTAINS(st.message, "vadd vx3, vx1, vx2");
    st = run_end(m);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(insns(m), 6);
    check_same_state(plain, m, "opennpu breakpoint");
    npk_destroy(m);

    npk_watch_hit h;
    m = make_asm(ONPU, onpu_src);
    npk_stats_enable(m, 1);
    st = run_watch(m, (watch_case){"mem", 16, 4, NPK_WATCH_WRITE}, &h);
    check_hit(st, &h, 16, 12, NPK_WATCH_WRITE, "mem", 16, 4, 0x08080808, "opennpu st");
    NPK_CHECK_EQ_U64(insns(m), 4);
    st = run_end(m);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    check_same_state(plain, m, "opennpu write watch");
    npk_destroy(m);
    m = make_asm(ONPU, onpu_src); /* partial: [19, 24) meets [16, 20) in byte 19 */
    st = run_watch(m, (watch_case){"mem", 19, 5, NPK_WATCH_WRITE}, &h);
    check_hit(st, &h, 16, 12, NPK_WATCH_WRITE, "mem", 19, 1, 0x08, "opennpu partial");
    npk_destroy(m);
    m = make_asm(ONPU, onpu_src); /* just outside: nothing writes 20.. */
    st = run_watch(m, (watch_case){"mem", 20, 4, NPK_WATCH_WRITE}, &h);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    npk_destroy(m);
    m = make_asm(ONPU, onpu_src); /* ld.vx reads [18, 22): bytes 20, 21 are 0 */
    st = run_watch(m, (watch_case){"mem", 20, 4, NPK_WATCH_READ}, &h);
    check_hit(st, &h, 20, 16, NPK_WATCH_READ, "mem", 20, 2, 0, "opennpu ld");
    NPK_CHECK_EQ_U64(h.access_addr, 18);
    NPK_CHECK_EQ_U64(h.access_size, 4);
    npk_destroy(m);
    m = make_asm(ONPU, onpu_src); /* nothing reads mem below 18 */
    st = run_watch(m, (watch_case){"mem", 14, 4, NPK_WATCH_READ}, &h);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    npk_destroy(m);
    /* the register file: row 3 written by the vadd at 8; row 1 first read there */
    m = make_asm(ONPU, onpu_src);
    st = run_watch(m, (watch_case){"rf", 12, 4, NPK_WATCH_WRITE}, &h);
    check_hit(st, &h, 12, 8, NPK_WATCH_WRITE, "rf", 12, 4, 0x08080808, "opennpu rf write");
    npk_destroy(m);
    m = make_asm(ONPU, onpu_src);
    st = run_watch(m, (watch_case){"rf", 4, 1, NPK_WATCH_READ}, &h);
    check_hit(st, &h, 12, 8, NPK_WATCH_READ, "rf", 4, 1, 0x03, "opennpu rf read");
    npk_destroy(m);
    /* the VR view: VR0 lane 0 is rows 0..3 lane 0 at vr bytes 0..3; byte 3 = row 3 */
    m = make_asm(ONPU, onpu_src);
    st = run_watch(m, (watch_case){"vr", 3, 1, NPK_WATCH_WRITE}, &h);
    check_hit(st, &h, 12, 8, NPK_WATCH_WRITE, "vr", 3, 1, 0x08, "opennpu vr view");
    npk_destroy(m);
    npk_destroy(plain);
}

/* ---- pccx ----------------------------------------------------------------------------------- */

/* examples/pccx/softmax.s: byte pcs 0 memset fmap[4] = (1, 8, 1), 8 memset fmap[5],
 * 16 gemv, 24 exp -> L2 elements 0x2001..0x2010 (bytes 0x4002..0x4021), 32 reduce_sum
 * 0x2001.. -> 0x2000 (bytes 0x4000, 0x4001), 40 scale reads 0x2000..0x2010 -> 0x2400.. */
static void test_pccx(void)
{
    npk_machine *plain = make_file("pccx", "examples/pccx/softmax.s");
    npk_stop st = run_end(plain);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(reg(plain, "issued"), 6);

    npk_machine *m = make_file("pccx", "examples/pccx/softmax.s");
    NPK_CHECK(npk_break_add(m, 24) == NPK_OK);
    NPK_CHECK(npk_break_add(m, 20) == NPK_ERR_ARG);
    NPK_CHECK(npk_run(m, 0, &st) == NPK_OK);
    NPK_CHECK(st.reason == NPK_STOP_BREAKPOINT);
    NPK_CHECK_EQ_U64(st.pc, 24);
    NPK_CHECK_EQ_U64(reg(m, "issued"), 3);
    NPK_CHECK_EQ_U64(st.insn_bits, 64);
    NPK_CHECK_CONTAINS(st.message, "instruction 3 (byte 0x18)");
    NPK_CHECK_CONTAINS(st.message, "exp src=0x1800");
    st = run_end(m);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(reg(m, "issued"), 6);
    check_same_state(plain, m, "pccx breakpoint");
    npk_destroy(m);

    npk_watch_hit h;
    uint8_t sum[2];
    NPK_CHECK(npk_mem_read(plain, "l2", 0x4000, sum, 2) == NPK_OK);
    m = make_file("pccx", "examples/pccx/softmax.s");
    st = run_watch(m, (watch_case){"l2", 0x4000, 2, NPK_WATCH_WRITE}, &h);
    check_hit(st, &h, 40, 32, NPK_WATCH_WRITE, "l2", 0x4000, 2, sum[0] | sum[1] << 8,
              "pccx reduce_sum");
    NPK_CHECK(h.value != 0);
    NPK_CHECK_EQ_U64(reg(m, "issued"), 5);
    st = run_end(m);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    check_same_state(plain, m, "pccx write watch");
    npk_destroy(m);
    m = make_file("pccx", "examples/pccx/softmax.s"); /* read by the scale at 40 */
    st = run_watch(m, (watch_case){"l2", 0x4000, 2, NPK_WATCH_READ}, &h);
    check_hit(st, &h, 48, 40, NPK_WATCH_READ, "l2", 0x4000, 2, sum[0] | sum[1] << 8,
              "pccx scale");
    NPK_CHECK_EQ_U64(h.access_addr, 0x4000);
    NPK_CHECK_EQ_U64(h.access_size, 34);
    npk_destroy(m);
    m = make_file("pccx", "examples/pccx/softmax.s"); /* partial: [0x4020, 0x4030) */
    st = run_watch(m, (watch_case){"l2", 0x4020, 16, NPK_WATCH_WRITE}, &h);
    NPK_CHECK(st.reason == NPK_STOP_WATCHPOINT);
    NPK_CHECK_EQ_U64(st.pc, 32);
    NPK_CHECK_EQ_U64(h.pc, 24);
    NPK_CHECK_EQ_U64(h.addr, 0x4020);
    NPK_CHECK_EQ_U64(h.size, 2);
    NPK_CHECK_EQ_U64(h.access_addr, 0x4002);
    NPK_CHECK_EQ_U64(h.access_size, 32);
    npk_destroy(m);
    m = make_file("pccx", "examples/pccx/softmax.s"); /* just outside: 0x4022.. */
    st = run_watch(m, (watch_case){"l2", 0x4022, 14, NPK_WATCH_WRITE}, &h);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    npk_destroy(m);
    /* the constant cache: memset fmap, idx=4 writes entry 4 = bytes 48..59, X = 1 */
    m = make_file("pccx", "examples/pccx/softmax.s");
    st = run_watch(m, (watch_case){"cc_fmap", 48, 4, NPK_WATCH_WRITE}, &h);
    check_hit(st, &h, 8, 0, NPK_WATCH_WRITE, "cc_fmap", 48, 4, 1, "pccx memset");
    npk_destroy(m);
    npk_destroy(plain);
}

/* ---- tinytpu -------------------------------------------------------------------------------- */

/* The hand program of tests/targets/tinytpu/machine/test_hand.c (N = 2): host writes UB[0],
 * UB[1] at edge 1, UB[2], UB[3] at 2, UB[4], UB[5] at 3; the weight read issued in cycle 4
 * reads UB[2], UB[3], UB[0], UB[1]; the input read of cycle 6 reads UB[4], UB[5]; the VPU
 * appends UB[6] = 0180 at edge 9 and UB[7] = 0200 at edge 10. The "pc" is the cycle index
 * (cycle k = record k-1 = edge k); the UB word a is "ub" bytes 2a, 2a+1. */
static npk_machine *tt_hand(pb *b)
{
    npk_machine *m = pb_machine(b, "tinytpu");
    npk_stats_enable(m, 1);
    return m;
}

static void test_tinytpu(void)
{
    pb b;
    pb_init(&b, 2);
    int h1[2] = {0x0200, 0x0100}, h2[2] = {0x0000, 0x0080}, h3[2] = {0x0100, 0x0100};
    pb_cycle(&b, -1, 0, 0, 0, 0, 0, h1, 2);
    pb_cycle(&b, -1, 0, 0, 0, 0, 0, h2, 2);
    pb_cycle(&b, -1, 0, 0, 0, 0, 0, h3, 2);
    pb_cycle(&b, TT_CH_WEIGHT, 0, 2, 2, 0, 0, NULL, 0);
    pb_idle(&b, 1);
    pb_cycle(&b, TT_CH_INPUT, 4, 1, 2, 0, 0, NULL, 0);
    pb_cycle(&b, -1, 0, 0, 0, 0, 1, NULL, 0);
    pb_idle(&b, 3);
    npk_machine *plain = tt_hand(&b);
    npk_stop st = run_end(plain);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(insns(plain), 10);

    npk_machine *m = tt_hand(&b);
    NPK_CHECK(npk_break_add(m, 3) == NPK_OK); /* before edge 4 */
    NPK_CHECK(npk_run(m, 0, &st) == NPK_OK);
    NPK_CHECK(st.reason == NPK_STOP_BREAKPOINT);
    NPK_CHECK_EQ_U64(st.pc, 3);
    NPK_CHECK_EQ_U64(insns(m), 3);
    NPK_CHECK_EQ_U64(ub_word(m, 5), 0x0100);
    NPK_CHECK_CONTAINS(st.message, "cycle 3 (edge 4)");
    st = run_end(m);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(insns(m), 10);
    check_same_state(plain, m, "tinytpu breakpoint");
    npk_destroy(m);

    npk_watch_hit h;
    m = tt_hand(&b); /* UB[6] written at edge 9 (record 8) */
    st = run_watch(m, (watch_case){"ub", 12, 2, NPK_WATCH_WRITE}, &h);
    check_hit(st, &h, 9, 8, NPK_WATCH_WRITE, "ub", 12, 2, 0x0180, "tinytpu vpu write");
    NPK_CHECK_EQ_U64(insns(m), 9);
    st = run_end(m);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    check_same_state(plain, m, "tinytpu write watch");
    npk_destroy(m);
    m = tt_hand(&b); /* partial: bytes [13, 16) meet UB[6]'s high byte */
    st = run_watch(m, (watch_case){"ub", 13, 3, NPK_WATCH_WRITE}, &h);
    check_hit(st, &h, 9, 8, NPK_WATCH_WRITE, "ub", 13, 1, 0x01, "tinytpu partial");
    npk_destroy(m);
    m = tt_hand(&b); /* just outside: UB[8].. are never written */
    st = run_watch(m, (watch_case){"ub", 16, 16, NPK_WATCH_WRITE}, &h);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    npk_destroy(m);
    m = tt_hand(&b); /* host writes of edge 2: UB[2] (lane 0 first) */
    st = run_watch(m, (watch_case){"ub", 4, 4, NPK_WATCH_WRITE}, &h);
    check_hit(st, &h, 2, 1, NPK_WATCH_WRITE, "ub", 4, 2, 0x0080, "tinytpu host write");
    npk_destroy(m);
    /* reads: a read beats from its issue cycle on; UB[4] only by the input read of cycle 6
     * (its beat 0, lane 0, at edge 6), UB[0] by the weight read's beat 1 (edge 5) */
    m = tt_hand(&b);
    st = run_watch(m, (watch_case){"ub", 8, 2, NPK_WATCH_READ}, &h);
    check_hit(st, &h, 6, 5, NPK_WATCH_READ, "ub", 8, 2, 0x0100, "tinytpu input read");
    npk_destroy(m);
    m = tt_hand(&b);
    st = run_watch(m, (watch_case){"ub", 0, 2, NPK_WATCH_READ}, &h);
    check_hit(st, &h, 5, 4, NPK_WATCH_READ, "ub", 0, 2, 0x0100, "tinytpu weight read");
    npk_destroy(m);
    m = tt_hand(&b);
    st = run_watch(m, (watch_case){"ub", 12, 4, NPK_WATCH_READ}, &h);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    npk_destroy(m);
    /* read watches gather the channel reads, but the trace shows them only with trace_reads:
     * the trace with a (never hit) read watch is the trace without one */
    char trace[2][8192];
    for (int w = 0; w < 2; w++) {
        m = tt_hand(&b);
        FILE *tr = tmpfile();
        npk_trace_text(m, tr);
        if (w)
            NPK_CHECK(npk_watch_add(m, "ub", 12, 4, NPK_WATCH_READ, NULL) == NPK_OK);
        st = run_end(m);
        NPK_CHECK(st.reason == NPK_STOP_EXIT);
        npk_trace_text(m, NULL);
        rewind(tr);
        size_t n = fread(trace[w], 1, sizeof trace[w] - 1, tr);
        trace[w][n] = '\0';
        fclose(tr);
        npk_destroy(m);
    }
    NPK_CHECK(strstr(trace[0], "W 9 6 0180\n") != NULL);
    NPK_CHECK(strstr(trace[1], "\nR ") == NULL);
    NPK_CHECK_EQ_STR(trace[1], trace[0]);
    npk_destroy(plain);
    tt_program_free(&b.p);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        src_dir = argv[1];
    test_toy();
    test_rvnpu();
    test_rvnpu_npu();
    test_rvnpu_elf();
    test_opennpu();
    test_pccx();
    test_tinytpu();
    return npk_test_done();
}
