/* npk_step as an embedding's loop uses it: every step that leaves the program runnable says
 * NPK_STOP_NONE (with the next pc and no message), the last one the real stop, and the loop
 * ends in the same state and instruction count as one npk_run of the same program. Checked on
 * toy (hand-encoded words) and rvnpu (assembled), with the observers off and on, and on a
 * counting target without a step hook (the core's fallback through run). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "core/machine.h"
#include "npukit/npukit.h"
#include "test.h"

/* toy word layout: [31:26] opcode, [25:23] rd, [22:20] rs1, [19:17] rs2, [16] sat, [15:0] imm */
#define W(opc, rd, rs1, rs2, imm)                                                            \
    ((uint32_t)(opc) << 26 | (uint32_t)(rd) << 23 | (uint32_t)(rs1) << 20 |                  \
     (uint32_t)(rs2) << 17 | ((uint32_t)(imm)&0xffff))

/* sum = 5 + 4 + 3 + 2 + 1, then exit with it: 2 + 5 * 3 + 1 = 18 instructions */
static const uint32_t toy_sum[] = {
    W(0x04, 1, 0, 0, 5),  /* li   r1, 5 */
    W(0x04, 2, 0, 0, 0),  /* li   r2, 0 */
    W(0x08, 2, 2, 1, 0),  /* add  r2, r2, r1 */
    W(0x0B, 1, 1, 0, -1), /* addi r1, r1, -1 */
    W(0x19, 0, 1, 0, -2), /* bne  r1, r0, 0x08 */
    W(0x02, 0, 2, 0, 0),  /* exit r2 */
};

/* 55 from a loop, a breakpoint the program handles itself (the trap entry is not an
 * instruction: the step goes on into the handler), then exit(155). Retired: li, li, 10 x 3
 * loop, la (2), csrw, the handler's 4, addi, li, ecall = 42. */
static const char rv_src[] = "    li a0, 0\n"
                             "    li t0, 10\n"
                             "loop:\n"
                             "    add a0, a0, t0\n"
                             "    addi t0, t0, -1\n"
                             "    bnez t0, loop\n"
                             "    la t1, handler\n"
                             "    csrw mtvec, t1\n"
                             "    ebreak\n"
                             "    addi a0, a0, 100\n"
                             "    li a7, 93\n"
                             "    ecall\n"
                             "handler:\n"
                             "    csrr t2, mepc\n"
                             "    addi t2, t2, 4\n"
                             "    csrw mepc, t2\n"
                             "    mret\n";

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

static int load(npk_machine *m, const char *target)
{
    if (strcmp(target, "toy") == 0)
        return npk_load_raw(m, toy_sum, sizeof toy_sum, 0) == NPK_OK;
    return npk_load_asm(m, rv_src, "step.s", stderr) == NPK_OK;
}

/* Every register and the first 4 KiB of the first memory space of two machines agree. */
static void check_same_state(npk_machine *a, npk_machine *b, const char *what)
{
    size_t nr = npk_reg_count(a);
    NPK_CHECK(nr > 0 && nr == npk_reg_count(b));
    for (size_t i = 0; i < nr; i++) {
        uint64_t va = 1, vb = 2;
        const char *name = npk_reg(a, i)->name;
        npk_reg_read(a, name, &va);
        npk_reg_read(b, name, &vb);
        NPK_REPORT(va == vb, "%s: register %s: run 0x%llx, steps 0x%llx\n", what, name,
                   (unsigned long long)va, (unsigned long long)vb);
    }
    static uint8_t ma[4096], mb[4096];
    const npk_space_info *sp = npk_space(a, 0);
    size_t n = sp->size < sizeof ma ? (size_t)sp->size : sizeof ma;
    NPK_CHECK(npk_mem_read(a, sp->name, 0, ma, n) == NPK_OK);
    NPK_CHECK(npk_mem_read(b, sp->name, 0, mb, n) == NPK_OK);
    NPK_REPORT(memcmp(ma, mb, n) == 0, "%s: memory differs\n", what);
}

/* Step `target`'s program to its end; `observed`: with statistics on. */
static void step_vs_run(const char *target, int observed, uint64_t insns, int64_t code)
{
    char what[64];
    snprintf(what, sizeof what, "%s%s", target, observed ? " (statistics on)" : "");
    npk_machine *ran = make(target), *stepped = make(target);
    if (!ran || !stepped || !load(ran, target) || !load(stepped, target)) {
        NPK_REPORT(0, "%s: cannot set up\n", what);
        npk_destroy(ran);
        npk_destroy(stepped);
        return;
    }
    npk_stop stop;
    NPK_CHECK(npk_run(ran, 0, &stop) == NPK_OK);
    NPK_CHECK(stop.reason == NPK_STOP_EXIT && stop.exit_code == code);
    if (observed)
        npk_stats_enable(stepped, 1);

    uint64_t steps = 0, none = 0, bad_pc = 0, noisy = 0;
    memset(&stop, 0x5A, sizeof stop); /* every field of the record is set by each step */
    for (;;) {
        NPK_CHECK(npk_step(stepped, &stop) == NPK_OK);
        steps++;
        if (stop.reason != NPK_STOP_NONE || steps > 1000)
            break;
        none++;
        uint64_t pc = 0;
        npk_reg_read(stepped, "pc", &pc);
        bad_pc += stop.pc != pc || stop.insn_bits != 0 || stop.exit_code != 0;
        noisy += stop.message[0] != '\0';
    }
    NPK_REPORT(stop.reason == NPK_STOP_EXIT && stop.exit_code == code,
               "%s: last step: reason %d, exit code %lld, want EXIT %lld\n", what,
               (int)stop.reason, (long long)stop.exit_code, (long long)code);
    NPK_REPORT(steps == insns && none == insns - 1,
               "%s: %llu steps (%llu NONE), want %llu\n", what, (unsigned long long)steps,
               (unsigned long long)none, (unsigned long long)insns);
    NPK_REPORT(bad_pc == 0 && noisy == 0, "%s: %llu NONE stops with a wrong pc or fields, %llu "
               "with a message\n", what, (unsigned long long)bad_pc, (unsigned long long)noisy);
    check_same_state(ran, stepped, what);
    if (strcmp(target, "rvnpu") == 0) {
        uint64_t ret = 0;
        npk_reg_read(stepped, "minstret", &ret);
        NPK_CHECK_EQ_U64(ret, insns);
    }
    if (observed) {
        npk_stats s;
        npk_stats_get(stepped, &s);
        NPK_CHECK_EQ_U64(s.insns, insns);
    }
    npk_destroy(ran);
    npk_destroy(stepped);
}

/* A step that faults reports the fault, as npk_run would. */
static void step_fault(void)
{
    npk_machine *m = make("toy:mem=64");
    if (!m)
        return;
    uint32_t prog[] = {W(0x04, 1, 0, 0, 1), 0xfc000000u}; /* li r1, 1; an illegal word */
    npk_stop stop;
    NPK_CHECK(npk_load_raw(m, prog, sizeof prog, 0) == NPK_OK);
    NPK_CHECK(npk_step(m, &stop) == NPK_OK && stop.reason == NPK_STOP_NONE && stop.pc == 4);
    NPK_CHECK(npk_step(m, &stop) == NPK_OK && stop.reason == NPK_STOP_FAULT);
    NPK_CHECK_CONTAINS(stop.message, "illegal instruction");
    NPK_CHECK_EQ_U64(stop.pc, 4);
    npk_destroy(m);

    /* rvnpu: an unhandled breakpoint (mtvec = 0) */
    m = make("rvnpu");
    if (!m)
        return;
    NPK_CHECK(npk_load_asm(m, "nop\nebreak\n", "bp.s", stderr) == NPK_OK);
    NPK_CHECK(npk_step(m, &stop) == NPK_OK && stop.reason == NPK_STOP_NONE &&
              stop.pc == 0x80000004u && stop.message[0] == '\0');
    NPK_CHECK(npk_step(m, &stop) == NPK_OK && stop.reason == NPK_STOP_FAULT &&
              stop.pc == 0x80000004u);
    NPK_CHECK_CONTAINS(stop.message, "breakpoint (mcause 3)");
    npk_destroy(m);

    /* nothing loaded */
    m = make("rvnpu");
    if (!m)
        return;
    NPK_CHECK(npk_step(m, &stop) == NPK_ERR_STATE);
    NPK_CHECK_CONTAINS(npk_error(m), "nothing loaded");
    npk_destroy(m);
}

/* A guest write during a step reaches the output stream by the end of that step. */
static void step_output(void)
{
    npk_machine *m = make("rvnpu");
    if (!m)
        return;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    npk_set_output(m, out, NULL);
    NPK_CHECK(npk_load_asm(m, "li t0, 0x10000000\nli t1, 65\nsb t1, 0(t0)\nnop\n", "u.s",
                           stderr) == NPK_OK);
    npk_stop stop;
    for (int i = 0; i < 4; i++) /* lui, addi (li t0), addi (li t1), sb */
        NPK_CHECK(npk_step(m, &stop) == NPK_OK && stop.reason == NPK_STOP_NONE);
    NPK_CHECK(len == 1 && buf && buf[0] == 'A'); /* open_memstream: size as of the last flush */
    npk_destroy(m);
    fclose(out);
    free(buf);
}

/* A target without a step hook: a program of 5 instructions that counts them, exits after
 * the fifth, and stops for a budget like the real targets. */
typedef struct counter {
    uint64_t done;
} counter;

static npk_status counter_create(npk_machine *m, const npk_config *c, void **st)
{
    (void)m;
    (void)c;
    *st = calloc(1, sizeof(counter));
    return *st ? NPK_OK : NPK_ERR_NOMEM;
}

static npk_status counter_load(npk_machine *m, void *st, const uint8_t *b, size_t n,
                               uint64_t addr)
{
    (void)m, (void)b, (void)n, (void)addr;
    ((counter *)st)->done = 0;
    return NPK_OK;
}

static npk_status counter_run(npk_machine *m, void *st, uint64_t max, npk_stop *stop)
{
    counter *c = st;
    (void)m;
    for (uint64_t n = 0; !max || n < max; n++)
        if (++c->done == 5) {
            npk_stop_set(stop, NPK_STOP_EXIT, 4 * c->done, "exit after %llu",
                         (unsigned long long)c->done);
            stop->exit_code = 42;
            return NPK_OK;
        }
    npk_stop_set(stop, NPK_STOP_BUDGET, 4 * c->done, "budget: next 0x%llx",
                 (unsigned long long)(4 * c->done));
    stop->insn_bits = 32;
    return NPK_OK;
}

static void step_fallback(void)
{
    static const npk_target t = {.name = "counter", .summary = "npk_step fallback",
                                 .insn_bytes = 4, .create = counter_create,
                                 .destroy = free, .load_raw = counter_load,
                                 .run = counter_run};
    npk_machine *m;
    char err[128];
    if (npk_create_for(&m, &t, NULL, NULL, err, sizeof err) != NPK_OK) {
        NPK_REPORT(0, "counter target: %s\n", err);
        return;
    }
    NPK_CHECK(npk_load_raw(m, "\0\0\0\0", 4, 0) == NPK_OK);
    npk_stop stop;
    for (unsigned i = 1; i < 5; i++) {
        NPK_CHECK(npk_step(m, &stop) == NPK_OK);
        NPK_REPORT(stop.reason == NPK_STOP_NONE && stop.message[0] == '\0' &&
                       stop.insn_bits == 0 && stop.pc == 4 * i,
                   "fallback step %u: reason %d, pc 0x%llx, message '%s'\n", i,
                   (int)stop.reason, (unsigned long long)stop.pc, stop.message);
    }
    NPK_CHECK(npk_step(m, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT &&
              stop.exit_code == 42);
    npk_destroy(m);
}

int main(void)
{
    step_fallback();
    step_vs_run("toy", 0, 18, 15);
    step_vs_run("toy", 1, 18, 15);
    step_vs_run("rvnpu", 0, 42, 155);
    step_vs_run("rvnpu", 1, 42, 155);
    step_fault();
    step_output();
    return npk_test_done();
}
