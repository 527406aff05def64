/* The C side of the DPI-C package (include/npukit/dpi.h), called as a SystemVerilog testbench
 * calls it: handles, creation failures, loading with assembler diagnostics, steps and their
 * commit records (against the hand-derived records of tests/core/commit), the trap step that
 * makes two records, registers and memory by value, disassembly, snapshots in memory and in
 * files, and every misuse (NULL, mixed-up or destroyed-looking handles, bad sizes).
 * usage: test_dpi DIR (tests/core/commit, for rvnpu.s) */
#define _XOPEN_SOURCE 700
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npukit/dpi.h"
#include "test.h"

static const char *dir = ".";

static void check_handles(void)
{
    NPK_CHECK_EQ_STR(npk_dpi_version(), NPK_VERSION_STRING);
    /* no handle at all: every call fails or returns nothing, the message says why */
    NPK_CHECK(npk_dpi_valid(NULL) == 0);
    NPK_CHECK(npk_dpi_step(NULL) == NPK_ERR_ARG);
    NPK_CHECK(npk_dpi_load_file(NULL, "x") == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_dpi_error(NULL), "not a handle of npk_dpi_create");
    NPK_CHECK(npk_dpi_commit_count(NULL) == 0);
    NPK_CHECK_EQ_STR(npk_dpi_commit_disasm(NULL), "");
    NPK_CHECK(npk_dpi_effect_kind(NULL, 0) == 0);
    NPK_CHECK(npk_dpi_snapshot_save(NULL) == NULL);
    npk_dpi_destroy(NULL);
    npk_dpi_snapshot_free(NULL);

    /* a spec npukit refuses: a handle without a machine, which says why on every call */
    void *h = npk_dpi_create("nosuch", "");
    NPK_CHECK(h != NULL);
    NPK_CHECK(npk_dpi_valid(h) == 0);
    NPK_CHECK_CONTAINS(npk_dpi_error(h), "nosuch");
    NPK_CHECK(npk_dpi_step(h) == NPK_ERR_STATE);
    NPK_CHECK_CONTAINS(npk_dpi_error(h), "no machine (npk_dpi_create failed: ");
    NPK_CHECK_CONTAINS(npk_dpi_error(h), "nosuch");
    long long v = 7;
    NPK_CHECK(npk_dpi_reg_read(h, "pc", &v) == NPK_ERR_STATE && v == 0);
    npk_dpi_destroy(h);

    /* a bad setting is named */
    h = npk_dpi_create("rvnpu", "ram_size=banana");
    NPK_CHECK(npk_dpi_valid(h) == 0);
    NPK_CHECK_CONTAINS(npk_dpi_error(h), "ram_size");
    npk_dpi_destroy(h);
    h = npk_dpi_create(NULL, NULL);
    NPK_CHECK(h && !npk_dpi_valid(h));
    NPK_CHECK_EQ_STR(npk_dpi_error(h), "no spec string");
    npk_dpi_destroy(h);
}

/* toy (tests/core/commit/toy.s's first records, derived there by hand): li, li, add, st. */
static void check_toy(void)
{
    void *h = npk_dpi_create("toy", NULL);
    NPK_CHECK(npk_dpi_valid(h));
    NPK_CHECK_EQ_STR(npk_dpi_error(h), "");
    /* an assembler error: the library's message and the diagnostic with file:line:col */
    NPK_CHECK(npk_dpi_load_asm(h, "li r1, 5\nfrob r2\n", "bad.s") == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_dpi_error(h), "bad.s:2:");
    NPK_CHECK(npk_dpi_step(h) == NPK_ERR_STATE); /* nothing loaded */

    const char *src = "li r1, 5\nli r2, 0x40\nadd r3, r1, r1\nst r3, 4(r2)\nhalt\n";
    NPK_CHECK(npk_dpi_load_asm(h, src, "toy.s") == NPK_OK);
    NPK_CHECK(npk_dpi_commit_count(h) == 0); /* before any step */
    NPK_CHECK(npk_dpi_step(h) == NPK_OK);
    NPK_CHECK(npk_dpi_stop_reason(h) == NPK_STOP_NONE);
    NPK_CHECK(npk_dpi_stop_pc(h) == 4);
    NPK_CHECK(npk_dpi_commit_count(h) == 1);
    NPK_CHECK_EQ_U64(npk_dpi_commit_seq(h), 1);
    NPK_CHECK_EQ_U64(npk_dpi_commit_pc(h), 0);
    NPK_CHECK_EQ_U64(npk_dpi_commit_word(h), 0x10800005);
    NPK_CHECK(npk_dpi_commit_word_bytes(h) == 4);
    NPK_CHECK(npk_dpi_commit_retired(h) == 1);
    NPK_CHECK(npk_dpi_commit_effects(h) == 1);
    NPK_CHECK(npk_dpi_effect_kind(h, 0) == NPK_EFFECT_REG);
    NPK_CHECK_EQ_STR(npk_dpi_effect_name(h, 0), "r1");
    NPK_CHECK(npk_dpi_effect_bits(h, 0) == 32);
    NPK_CHECK_EQ_U64(npk_dpi_effect_value(h, 0), 5);
    NPK_CHECK(npk_dpi_effect_byte(h, 0, 0) == -1); /* a register has no bytes */
    NPK_CHECK_EQ_STR(npk_dpi_commit_disasm(h), "li r1, 5");
    NPK_CHECK_EQ_STR(npk_dpi_commit_text(h), "1 0x00000000 0x10800005 r1=0x00000005 ; li r1, 5");
    /* effect 1 does not exist */
    NPK_CHECK(npk_dpi_effect_kind(h, 1) == 0);
    NPK_CHECK_EQ_STR(npk_dpi_error(h), "npukit dpi: effect 1 of 1");
    NPK_CHECK(npk_dpi_effect_kind(h, -1) == 0);
    NPK_CHECK_EQ_STR(npk_dpi_effect_name(h, 5), "");
    NPK_CHECK(npk_dpi_commit_select(h, 1) == NPK_ERR_RANGE);
    NPK_CHECK_EQ_STR(npk_dpi_error(h), "npk_dpi_commit_select: record 1 of 1");
    NPK_CHECK(npk_dpi_effect_find(h, NPK_EFFECT_REG, "r1") == 0);
    NPK_CHECK(npk_dpi_effect_find(h, NPK_EFFECT_REG, "") == 0);
    NPK_CHECK(npk_dpi_effect_find(h, NPK_EFFECT_REG, "r2") == -1);
    NPK_CHECK(npk_dpi_effect_find(h, NPK_EFFECT_MEM, "") == -1);

    for (int i = 0; i < 3; i++)
        NPK_CHECK(npk_dpi_step(h) == NPK_OK);
    /* record 4: st r3, 4(r2): mem[0x44] = 10, 4 bytes */
    NPK_CHECK_EQ_U64(npk_dpi_commit_seq(h), 4);
    NPK_CHECK_EQ_U64(npk_dpi_commit_pc(h), 0xc);
    NPK_CHECK(npk_dpi_commit_effects(h) == 1);
    NPK_CHECK(npk_dpi_effect_find(h, NPK_EFFECT_MEM, "mem") == 0);
    NPK_CHECK(npk_dpi_effect_kind(h, 0) == NPK_EFFECT_MEM);
    NPK_CHECK_EQ_STR(npk_dpi_effect_name(h, 0), "mem");
    NPK_CHECK_EQ_U64(npk_dpi_effect_addr(h, 0), 0x44);
    NPK_CHECK_EQ_U64(npk_dpi_effect_size(h, 0), 4);
    NPK_CHECK_EQ_U64(npk_dpi_effect_value(h, 0), 10);
    NPK_CHECK(npk_dpi_effect_byte(h, 0, 0) == 10);
    NPK_CHECK(npk_dpi_effect_byte(h, 0, 3) == 0);
    NPK_CHECK(npk_dpi_effect_byte(h, 0, 4) == -1);
    NPK_CHECK(npk_dpi_effect_byte(h, 0, -1) == -1);
    NPK_CHECK_EQ_STR(npk_dpi_commit_text(h),
                     "4 0x0000000c 0x44260004 mem[0x00000044]=0x0000000a ; st r3, 4(r2)");
    /* the state agrees with the records */
    long long v = 0;
    NPK_CHECK(npk_dpi_reg_read(h, "r3", &v) == NPK_OK && v == 10);
    NPK_CHECK(npk_dpi_mem_read(h, "mem", 0x44, 4, &v) == NPK_OK && v == 10);
    NPK_CHECK(npk_dpi_mem_read(h, "mem", 0x44, 2, &v) == NPK_OK && v == 10);
    NPK_CHECK(npk_dpi_step(h) == NPK_OK); /* halt */
    NPK_CHECK(npk_dpi_stop_reason(h) == NPK_STOP_EXIT);
    NPK_CHECK(npk_dpi_exit_code(h) == 0);
    NPK_CHECK_EQ_U64(npk_dpi_commit_seq(h), 5);
    NPK_CHECK_EQ_STR(npk_dpi_commit_disasm(h), "halt");
    NPK_CHECK(npk_dpi_reset(h) == NPK_OK);
    NPK_CHECK(npk_dpi_commit_count(h) == 0);
    NPK_CHECK(npk_dpi_stop_reason(h) == NPK_STOP_NONE);
    npk_dpi_destroy(h);
}

static void check_rvnpu(void)
{
    void *h = npk_dpi_create("rvnpu", "ram_size=1M");
    NPK_CHECK(npk_dpi_valid(h));
    char path[1024];
    snprintf(path, sizeof path, "%s/rvnpu.s", dir);
    NPK_CHECK(npk_dpi_load_file(h, "/nonexistent/fw.elf") == NPK_ERR_IO);
    NPK_CHECK_CONTAINS(npk_dpi_error(h), "/nonexistent/fw.elf");
    NPK_CHECK(npk_dpi_load_file(h, "") == NPK_ERR_ARG);
    NPK_CHECK(npk_dpi_load_file(h, path) == NPK_OK);
    NPK_CHECK(npk_dpi_set_output(h, "/nonexistent/out", "") == NPK_ERR_IO);
    NPK_CHECK_CONTAINS(npk_dpi_error(h), "/nonexistent/out: cannot open");
    NPK_CHECK(npk_dpi_set_output(h, "/dev/null", "/dev/null") == NPK_OK);
    long long v = 0;
    NPK_CHECK(npk_dpi_reg_read(h, "pc", &v) == NPK_OK && v == 0x80000000LL);
    NPK_CHECK(npk_dpi_symbol(h, "handler", &v) == NPK_OK && v == 0x8000004cLL);
    NPK_CHECK(npk_dpi_symbol(h, "nosuch", &v) != NPK_OK);
    NPK_CHECK_CONTAINS(npk_dpi_error(h), "nosuch");

    /* records 1 .. 5 of rvnpu.s (derived by hand there) */
    NPK_CHECK(npk_dpi_step(h) == NPK_OK);
    NPK_CHECK_EQ_U64(npk_dpi_commit_word(h), 0x80001437);
    NPK_CHECK_EQ_STR(npk_dpi_effect_name(h, 0), "x8");
    NPK_CHECK_EQ_U64(npk_dpi_effect_value(h, 0), 0x80001000);
    NPK_CHECK(npk_dpi_step(h) == NPK_OK && npk_dpi_step(h) == NPK_OK);
    /* 3: sw a0, 8(s0): bus[0x80001008] = 5 */
    NPK_CHECK(npk_dpi_effect_kind(h, 0) == NPK_EFFECT_MEM);
    NPK_CHECK_EQ_STR(npk_dpi_effect_name(h, 0), "bus");
    NPK_CHECK_EQ_U64(npk_dpi_effect_addr(h, 0), 0x80001008);
    NPK_CHECK_EQ_U64(npk_dpi_effect_size(h, 0), 4);
    NPK_CHECK_EQ_U64(npk_dpi_effect_value(h, 0), 5);
    NPK_CHECK(npk_dpi_step(h) == NPK_OK);
    /* 4: sb: one byte */
    NPK_CHECK_EQ_U64(npk_dpi_effect_addr(h, 0), 0x80001003);
    NPK_CHECK_EQ_U64(npk_dpi_effect_size(h, 0), 1);
    NPK_CHECK(npk_dpi_mem_read(h, "ram", 0x1000, 4, &v) == NPK_OK);
    NPK_CHECK_EQ_U64(v, 0x05000000);

    /* a snapshot after record 4; the machine runs on, then goes back */
    void *snap = npk_dpi_snapshot_save(h);
    NPK_CHECK(snap != NULL);
    char file[] = "/tmp/npukit-dpi-XXXXXX";
    int fd = mkstemp(file);
    NPK_CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    NPK_CHECK(npk_dpi_snapshot_save_file(h, file) == NPK_OK);

    for (int i = 5; i <= 18; i++)
        NPK_CHECK(npk_dpi_step(h) == NPK_OK);
    NPK_CHECK_EQ_U64(npk_dpi_commit_seq(h), 18);
    NPK_CHECK_EQ_U64(npk_dpi_effect_value(h, npk_dpi_effect_find(h, NPK_EFFECT_REG, "mstatus")),
                     0x3808);
    /* record 19 traps into the handler: this one step makes two records, the trap (not
     * retired) and the handler's first instruction (record 20, selected) */
    NPK_CHECK(npk_dpi_step(h) == NPK_OK);
    NPK_CHECK(npk_dpi_stop_reason(h) == NPK_STOP_NONE);
    NPK_CHECK(npk_dpi_commit_count(h) == 2);
    NPK_CHECK_EQ_U64(npk_dpi_commit_seq(h), 20);
    NPK_CHECK_EQ_U64(npk_dpi_commit_pc(h), 0x8000004c);
    NPK_CHECK(npk_dpi_commit_retired(h) == 1);
    NPK_CHECK_EQ_STR(npk_dpi_commit_text(h), "20 0x8000004c 0x05d00893 x17=0x0000005d ; addi a7, zero, 93");
    NPK_CHECK(npk_dpi_commit_select(h, 0) == NPK_OK);
    NPK_CHECK_EQ_U64(npk_dpi_commit_seq(h), 19);
    NPK_CHECK_EQ_U64(npk_dpi_commit_pc(h), 0x80000048);
    NPK_CHECK(npk_dpi_commit_retired(h) == 0);
    NPK_CHECK(npk_dpi_commit_effects(h) == 4); /* mstatus, mepc, mcause, trap (mtval stays 0) */
    int t = npk_dpi_effect_find(h, NPK_EFFECT_TRAP, "");
    NPK_CHECK(t == 3);
    NPK_CHECK_EQ_U64(npk_dpi_effect_value(h, t), 2);
    NPK_CHECK_EQ_U64(npk_dpi_effect_addr(h, t), 0);
    NPK_CHECK_EQ_STR(npk_dpi_effect_name(h, t), "illegal instruction");
    NPK_CHECK_EQ_U64(npk_dpi_effect_value(h, npk_dpi_effect_find(h, NPK_EFFECT_REG, "mepc")),
                     0x80000048);
    /* the rest: x10 = 0, then exit(0) */
    NPK_CHECK(npk_dpi_step(h) == NPK_OK && npk_dpi_step(h) == NPK_OK);
    NPK_CHECK(npk_dpi_stop_reason(h) == NPK_STOP_EXIT && npk_dpi_exit_code(h) == 0);
    NPK_CHECK_EQ_U64(npk_dpi_commit_seq(h), 22);
    NPK_CHECK_EQ_STR(npk_dpi_commit_disasm(h), "ecall");

    /* back to record 4: the next step is record 5 (addi a0, a0, 0: x10 = 5) */
    NPK_CHECK(npk_dpi_snapshot_restore(h, snap) == NPK_OK);
    NPK_CHECK(npk_dpi_commit_count(h) == 0);
    NPK_CHECK(npk_dpi_reg_read(h, "pc", &v) == NPK_OK && v == 0x80000010LL);
    NPK_CHECK(npk_dpi_step(h) == NPK_OK);
    NPK_CHECK_EQ_U64(npk_dpi_commit_pc(h), 0x80000010);
    NPK_CHECK_EQ_STR(npk_dpi_effect_name(h, 0), "x10");
    NPK_CHECK_EQ_U64(npk_dpi_effect_value(h, 0), 5);
    /* the same from the file, then a run to the end keeps the last record only */
    NPK_CHECK(npk_dpi_snapshot_restore_file(h, file) == NPK_OK);
    NPK_CHECK(npk_dpi_reg_read(h, "pc", &v) == NPK_OK && v == 0x80000010LL);
    NPK_CHECK(npk_dpi_run(h, 0) == NPK_OK);
    NPK_CHECK(npk_dpi_stop_reason(h) == NPK_STOP_EXIT);
    NPK_CHECK(npk_dpi_commit_count(h) == 1);
    NPK_CHECK_EQ_U64(npk_dpi_commit_pc(h), 0x80000054);
    NPK_CHECK(npk_dpi_run(h, -1) == NPK_ERR_ARG);
    NPK_CHECK(npk_dpi_snapshot_restore_file(h, "/nonexistent/snap") == NPK_ERR_IO);
    NPK_CHECK(npk_dpi_snapshot_save_file(h, "") == NPK_ERR_ARG);
    unlink(file);

    /* snapshots go to a machine of the same configuration only; handles are not mixed up */
    void *other = npk_dpi_create("rvnpu", "ram_size=2M");
    NPK_CHECK(npk_dpi_snapshot_restore(other, snap) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_dpi_error(other), "snapshot");
    NPK_CHECK(npk_dpi_snapshot_restore(other, other) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_dpi_error(other), "not a handle of npk_dpi_snapshot_save");
    NPK_CHECK(npk_dpi_snapshot_restore(other, NULL) == NPK_ERR_ARG);
    NPK_CHECK(npk_dpi_step(snap) == NPK_ERR_ARG); /* a snapshot is not a machine */
    npk_dpi_snapshot_free(other);                 /* nor a machine a snapshot: ignored */
    NPK_CHECK(npk_dpi_valid(other));
    npk_dpi_destroy(other);
    npk_dpi_snapshot_free(snap);

    /* registers and memory by value, with the sizes and ranges checked */
    NPK_CHECK(npk_dpi_reg_write(h, "a0", 0xfffffff8LL) == NPK_OK);
    NPK_CHECK(npk_dpi_reg_read(h, "x10", &v) == NPK_OK && v == 0xfffffff8LL);
    NPK_CHECK(npk_dpi_reg_write(h, "a0", -8) == NPK_ERR_RANGE); /* above the 32 bits */
    NPK_CHECK(npk_dpi_reg_read(h, "acc", &v) == NPK_OK);
    NPK_CHECK(npk_dpi_reg_write(h, "acc", -2) == NPK_OK);
    NPK_CHECK(npk_dpi_reg_read(h, "acc", &v) == NPK_OK && v == -2);
    NPK_CHECK(npk_dpi_reg_read(h, "x32", &v) != NPK_OK);
    NPK_CHECK_CONTAINS(npk_dpi_error(h), "x32");
    NPK_CHECK(npk_dpi_mem_write(h, "ram", 0x100, 2, -2) == NPK_OK);
    NPK_CHECK(npk_dpi_mem_read(h, "ram", 0x100, 2, &v) == NPK_OK && v == 0xfffe);
    NPK_CHECK(npk_dpi_mem_write(h, "ram", 0x100, 8, -1) == NPK_OK);
    NPK_CHECK(npk_dpi_mem_read(h, "ram", 0x100, 8, &v) == NPK_OK && v == -1);
    NPK_CHECK(npk_dpi_mem_write(h, "ram", 0x100, 1, 0x100) == NPK_ERR_RANGE);
    NPK_CHECK_EQ_STR(npk_dpi_error(h), "npk_dpi_mem_write: ram: value 256 does not fit 1 byte");
    NPK_CHECK(npk_dpi_mem_write(h, "ram", 0x100, 1, -129) == NPK_ERR_RANGE);
    NPK_CHECK(npk_dpi_mem_read(h, "ram", 0, 9, &v) == NPK_ERR_ARG);
    NPK_CHECK_EQ_STR(npk_dpi_error(h), "npk_dpi_mem_read: ram: size 9 (1 to 8 bytes)");
    NPK_CHECK(npk_dpi_mem_read(h, "ram", -4, 4, &v) == NPK_ERR_RANGE);
    NPK_CHECK(npk_dpi_mem_read(h, "ram", (1 << 20) - 2, 4, &v) == NPK_ERR_RANGE);
    NPK_CHECK(npk_dpi_mem_read(h, "nosuch", 0, 4, &v) != NPK_OK);
    NPK_CHECK_CONTAINS(npk_dpi_error(h), "nosuch");

    /* disassembly of the other side's word */
    NPK_CHECK_EQ_STR(npk_dpi_disasm(h, 0x80000000LL, 0x80001437), "lui s0, 0x80001");
    NPK_CHECK_EQ_STR(npk_dpi_disasm(h, 0x80000000LL, 0x40b55533), "sra a0, a0, a1");

    /* records off: steps make none */
    NPK_CHECK(npk_dpi_reset(h) == NPK_OK && npk_dpi_load_file(h, path) == NPK_OK);
    NPK_CHECK(npk_dpi_commit_enable(h, 0) == NPK_OK);
    NPK_CHECK(npk_dpi_step(h) == NPK_OK);
    NPK_CHECK(npk_dpi_commit_count(h) == 0);
    NPK_CHECK(npk_dpi_commit_pc(h) == 0 && npk_dpi_commit_effects(h) == 0);
    NPK_CHECK_EQ_STR(npk_dpi_commit_text(h), "");
    NPK_CHECK(npk_dpi_commit_enable(h, 1) == NPK_OK);
    NPK_CHECK(npk_dpi_step(h) == NPK_OK);
    NPK_CHECK(npk_dpi_commit_count(h) == 1);
    NPK_CHECK_EQ_U64(npk_dpi_commit_pc(h), 0x80000004);
    NPK_CHECK_EQ_U64(npk_dpi_commit_seq(h), 1); /* the first record delivered since the reset */
    npk_dpi_destroy(h);
}

/* tinytpu: one record per clock edge (docs/commit-log.md). host1=0x0001 at N = 2 appends
 * 0x0001 at wp = 0 (tinytpu spec A6.2), so the edge's record has wp = 1 and a 2-byte ub write
 * at byte 0. The full-port word (tinytpu spec B5) is 17 bytes (96 + 17 * 2 bits): sw 0,
 * start 1, T 2, hv[0..1] 3..4, cols 5..20, rows 21..36, addr 37..52, sel 53..61, hd[0] 62..77,
 * hd[1] 78..93, ...; host1=0x0001 sets hv[1] (bit 4: byte 0 = 0x10) and hd[1] bit 0 (bit 78:
 * byte 9 = 0x40), so npk_dpi_commit_word (the low 8 bytes) is 0x10. Programs are text: no
 * disassembly of a bare word. */
static void check_tinytpu(void)
{
    void *h = npk_dpi_create("tinytpu", NULL);
    NPK_CHECK(npk_dpi_valid(h));
    NPK_CHECK(npk_dpi_load_asm(h, "host1=0x0001\n", "t.s") == NPK_OK);
    NPK_CHECK(npk_dpi_commit_enable(h, 1) == NPK_OK);
    NPK_CHECK(npk_dpi_step(h) == NPK_OK);
    NPK_CHECK(npk_dpi_commit_count(h) == 1);
    NPK_CHECK_EQ_U64(npk_dpi_commit_pc(h), 0);
    NPK_CHECK(npk_dpi_commit_word_bytes(h) == 17);
    int only = 1;
    for (int i = 0; i < 17; i++)
        only &= npk_dpi_commit_word_byte(h, i) == (i == 0 ? 0x10 : i == 9 ? 0x40 : 0);
    NPK_CHECK(only);
    NPK_CHECK(npk_dpi_commit_word_byte(h, 17) == -1 && npk_dpi_commit_word_byte(h, -1) == -1);
    NPK_CHECK_EQ_U64((uint64_t)npk_dpi_commit_word(h), 0x10);
    NPK_CHECK(npk_dpi_commit_effects(h) == 2);
    NPK_CHECK_EQ_STR(npk_dpi_effect_name(h, 0), "wp");
    NPK_CHECK_EQ_U64(npk_dpi_effect_value(h, 0), 1);
    NPK_CHECK(npk_dpi_effect_kind(h, 1) == NPK_EFFECT_MEM);
    NPK_CHECK_EQ_STR(npk_dpi_effect_name(h, 1), "ub");
    NPK_CHECK(npk_dpi_effect_addr(h, 1) == 0 && npk_dpi_effect_size(h, 1) == 2 &&
              npk_dpi_effect_value(h, 1) == 1);
    NPK_CHECK_EQ_STR(npk_dpi_disasm(h, 0, 0), "");
    NPK_CHECK_CONTAINS(npk_dpi_error(h), "no instruction words");
    npk_dpi_destroy(h);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    check_handles();
    check_toy();
    check_rvnpu();
    check_tinytpu();
    return npk_test_done();
}
