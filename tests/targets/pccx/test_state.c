/* pccx architectural state by name (docs/state.md): the register list against spec §2, §10
 * and §11 (E_MAX, the constant-cache entries, status, weight queue, command FIFO, engine
 * queues and engines), values written by name and used (the §13.4 example with its shapes
 * written into the constant cache, E_MAX under sub_emax), occupancies stepped instruction by
 * instruction with the §11 default timing worked out by hand, and refused writes. */
#include <stdlib.h>
#include <string.h>

#include "npukit/npukit.h"
#include "test.h"
#include "state.h"

static npk_machine *load(const char *src)
{
    return state_load("pccx", src, "state.s");
}

static uint16_t l2(npk_machine *m, uint64_t e)
{
    uint8_t b[2] = {0xEE, 0xEE};
    npk_mem_read(m, "l2", 2 * e, b, 2);
    return (uint16_t)(b[0] | b[1] << 8);
}

static void check_names(void)
{
    static const struct {
        const char *name;
        unsigned bits;
        int ro;
    } want[] = {
        {"pc", 64, 0}, {"E_MAX", 32, 0}, {"status", 64, 1}, {"window", 64, 0},
        {"issued", 64, 1}, {"host_clock", 64, 1}, {"weight_queue", 32, 1},
        {"cmd_fifo", 32, 1}, {"queue.memset", 32, 1}, {"queue.mem", 32, 1},
        {"queue.gemv", 32, 1}, {"queue.gemm", 32, 1}, {"queue.cvo", 32, 1},
        {"busy.memset", 1, 1}, {"busy.cvo", 1, 1}, {"cc_fmap[0].X", 17, 0},
        {"cc_fmap[63].Z", 17, 0}, {"cc_weight[0].Y", 17, 0}, {"cc_weight[63].Z", 17, 0},
    };
    npk_machine *m = load("memset fmap, idx=0, a=1, b=1, c=1\n");
    /* 8 + 2 x 5 + 2 banks x 64 entries x 3 */
    NPK_CHECK_EQ_U64(npk_reg_count(m), 8 + 10 + 384);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const npk_reg_info *r = find(m, want[i].name);
        NPK_REPORT(r && r->bits == want[i].bits &&
                       !!(r->flags & NPK_REG_READONLY) == want[i].ro,
                   "%s\n", want[i].name);
    }
    /* the former name of E_MAX still works */
    wr(m, "emax", 0x3F800000);
    NPK_CHECK_EQ_U64(rd(m, "E_MAX"), 0x3F800000);
    NPK_CHECK_EQ_U64(rd(m, "emax"), 0x3F800000);
    npk_destroy(m);
}

/* The §13.4 example with its two memsets replaced by constant-cache writes by name: the GEMV
 * reads fmap[1] (input 1 x 4) and fmap[2] (output 1 x 2) and writes 6.5 (0x40D0) and 10.0
 * (0x4120) at elements 0x400, 0x401; findemax puts 10.0 (0x41200000) in E_MAX. Then E_MAX is
 * written as 6.5 and EXP with sub_emax of element 0x400 gives exp(0) = 1.0 (0x3F80). */
static void check_written(void)
{
    npk_machine *m = load(".equ X_W, 0x40\n"
                          ".equ Y_W, 0x80\n"
                          ".host byte=0\n"
                          ".bf16 2.0, -1.0, 0.25, 4.0\n"
                          ".weight W0, k=4, n=2\n"
                          "  .scale 0.5, 2.0\n"
                          "  .row 3, -2, 4, 1\n"
                          "  .row 7, 7, -8, 0\n"
                          ".endweight\n"
                          "    memcpy.h2l dst=X_W, aux=0, shape=1\n"
                          ".wpush W0\n"
                          "    gemv dst=Y_W, src=X_W, size=2, shape=1, w_scale, findemax\n"
                          "    exp src=0x400, dst=0x500, len=1, sub_emax\n");
    wr(m, "cc_fmap[1].X", 1);
    wr(m, "cc_fmap[1].Y", 4);
    wr(m, "cc_fmap[1].Z", 1);
    wr(m, "cc_fmap[2].X", 1);
    wr(m, "cc_fmap[2].Y", 2);
    wr(m, "cc_fmap[2].Z", 1);
    NPK_CHECK_EQ_U64(rd(m, "weight_queue"), 1);   /* .wpush applied before the first one */
    npk_stop stop;
    NPK_CHECK(npk_step(m, &stop) == NPK_OK && stop.reason == NPK_STOP_NONE);   /* memcpy */
    NPK_CHECK(npk_step(m, &stop) == NPK_OK && stop.reason == NPK_STOP_NONE);   /* gemv */
    NPK_CHECK_EQ_U64(l2(m, 0x400), 0x40D0);
    NPK_CHECK_EQ_U64(l2(m, 0x401), 0x4120);
    NPK_CHECK_EQ_U64(rd(m, "E_MAX"), 0x41200000);
    NPK_CHECK_EQ_U64(rd(m, "weight_queue"), 0);   /* the GEMV took W0 */
    wr(m, "E_MAX", 0x40D00000);                   /* 6.5 */
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(l2(m, 0x500), 0x3F80);
    NPK_CHECK_EQ_U64(rd(m, "issued"), 3);
    npk_destroy(m);
}

/* Occupancy with the default timing (§11.1: t_push 4, decode_cycles 1, t_ddr 40,
 * mem_setup 13, axi(1) = 2, so one-word host -> L2 MEMCPY takes x = 55):
 *   i0 async memcpy pushed at 0, host clock 4; d0 = 1, s0 = 2, c0 = 57.
 *   i1 async memcpy pushed at 4, host 8; d1 = 5; waits for the MEM engine until 57.
 *   i2 sync memcpy pushed at 8, host 12; d2 = 9; starts at c1 = 112.
 *   i3 memset pushed at 12, host 16; not decoded before c2 = 167 (sync wait, §11.2): d3 =
 *      167, s3 = 168, c3 = 170 (memset_cycles 2).
 *   i4 memset pushed at 16, host 20; d4 = 168, s4 = c3 = 170, c4 = 172.
 * The end of the program waits for everything: host clock 172, status DONE. The shape the
 * memcpys use, fmap[1] (8 elements = 1 word), is written by name before the run. */
static void check_occupancy(void)
{
    npk_machine *m = load(".host byte=0\n"
                          ".zero 64\n"
                          "memcpy.h2l dst=0, aux=0, shape=1, async\n"
                          "memcpy.h2l dst=1, aux=0, shape=1, async\n"
                          "memcpy.h2l dst=2, aux=0, shape=1\n"
                          "memset fmap, idx=3, a=1, b=1, c=1\n"
                          "memset fmap, idx=4, a=2, b=1, c=1\n");
    wr(m, "cc_fmap[1].X", 8);
    wr(m, "cc_fmap[1].Y", 1);
    wr(m, "cc_fmap[1].Z", 1);
    NPK_CHECK_EQ_U64(rd(m, "status"), 0);
    npk_stop stop;
    NPK_CHECK(npk_step(m, &stop) == NPK_OK && stop.reason == NPK_STOP_NONE);
    NPK_CHECK_EQ_U64(rd(m, "host_clock"), 4);
    NPK_CHECK_EQ_U64(rd(m, "busy.mem"), 1);
    NPK_CHECK_EQ_U64(rd(m, "queue.mem"), 0);
    NPK_CHECK_EQ_U64(rd(m, "cmd_fifo"), 0);
    NPK_CHECK_EQ_U64(rd(m, "status"), 1);   /* BUSY */
    NPK_CHECK(npk_step(m, &stop) == NPK_OK && stop.reason == NPK_STOP_NONE);
    NPK_CHECK_EQ_U64(rd(m, "host_clock"), 8);
    NPK_CHECK_EQ_U64(rd(m, "queue.mem"), 1);
    NPK_CHECK_EQ_U64(rd(m, "busy.mem"), 1);
    NPK_CHECK(npk_step(m, &stop) == NPK_OK && stop.reason == NPK_STOP_NONE);
    NPK_CHECK_EQ_U64(rd(m, "queue.mem"), 2);
    NPK_CHECK_EQ_U64(rd(m, "cmd_fifo"), 0);
    NPK_CHECK(npk_step(m, &stop) == NPK_OK && stop.reason == NPK_STOP_NONE);
    NPK_CHECK_EQ_U64(rd(m, "host_clock"), 16);
    NPK_CHECK_EQ_U64(rd(m, "cmd_fifo"), 1);
    NPK_CHECK_EQ_U64(rd(m, "queue.mem"), 2);
    NPK_CHECK_EQ_U64(rd(m, "queue.memset"), 0);
    NPK_CHECK_EQ_U64(rd(m, "busy.memset"), 0);
    NPK_CHECK_EQ_U64(rd(m, "cc_fmap[3].X"), 1);   /* functional effect at issue */
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(rd(m, "host_clock"), 172);
    NPK_CHECK_EQ_U64(rd(m, "status"), 2);   /* DONE */
    NPK_CHECK_EQ_U64(rd(m, "queue.mem") + rd(m, "busy.mem") + rd(m, "cmd_fifo"), 0);
    NPK_CHECK_EQ_U64(rd(m, "cc_fmap[4].X"), 2);
    npk_destroy(m);
}

static void check_refused(void)
{
    npk_machine *m = load("memset fmap, idx=0, a=1, b=1, c=1\n");
    static const char *const ro[] = {"status", "issued", "host_clock", "weight_queue",
                                     "cmd_fifo", "queue.gemv", "busy.cvo"};
    for (size_t i = 0; i < sizeof ro / sizeof ro[0]; i++) {
        NPK_REPORT(npk_reg_write(m, ro[i], 0) == NPK_ERR_UNSUPPORTED, "write %s\n", ro[i]);
        char want[64];
        snprintf(want, sizeof want, "pccx: %s is read-only", ro[i]);
        NPK_CHECK_CONTAINS(npk_error(m), want);
    }
    NPK_CHECK(npk_reg_write(m, "cc_fmap[0].X", 0x20000) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "cc_fmap[0].X is 17 bits wide; 0x20000 does not fit");
    NPK_CHECK(npk_reg_write(m, "E_MAX", 0x100000000u) == NPK_ERR_RANGE);
    NPK_CHECK(npk_reg_write(m, "window", 8) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "multiple of 16");
    NPK_CHECK(npk_reg_write(m, "cc_fmap[64].X", 1) == NPK_ERR_ARG);
    npk_destroy(m);
}

/* The space weight_queue: the queued tensors from the head (spec §5.4), 16 bytes each:
 * handle, K, N, kind. Handles number the .weight definitions from 1 (W0 = 1, W1 = 2). The
 * queue is W0, W1, W0 (.wpush order); the first GEMV dequeues W0, leaving W1, W0. */
static void check_weight_queue(void)
{
    npk_machine *m = load(".weight W0, k=4, n=2\n"
                          "  .scale 1, 1\n"
                          "  .row 1, 1, 1, 1\n"
                          "  .row 1, 1, 1, 1\n"
                          ".endweight\n"
                          ".weight W1, k=8, n=3\n"
                          "  .scale 1, 1, 1\n"
                          "  .rowhex 11111111\n"
                          "  .rowhex 11111111\n"
                          "  .rowhex 11111111\n"
                          ".endweight\n"
                          "memset fmap, idx=1, a=1, b=4, c=1\n"
                          "memset fmap, idx=2, a=1, b=2, c=1\n"
                          ".wpush W0\n"
                          "gemv dst=0x10, src=0, size=2, shape=1\n"
                          ".wpush W1\n"
                          ".wpush W0\n");
    const npk_space_info *sp = NULL;
    for (size_t i = 0; i < npk_space_count(m); i++)
        if (strcmp(npk_space(m, i)->name, "weight_queue") == 0)
            sp = npk_space(m, i);
    NPK_CHECK(sp != NULL);
    NPK_CHECK(sp && sp->size == 48);
    uint32_t q[12];
    memset(q, 0xEE, sizeof q);
    NPK_CHECK(npk_mem_read(m, "weight_queue", 0, q, 48) == NPK_OK); /* little-endian host */
    static const uint32_t want[12] = {1, 4, 2, 0, 2, 8, 3, 0, 1, 4, 2, 0};
    NPK_CHECK(memcmp(q, want, sizeof want) == 0);
    /* a read inside an entry, and one past the end */
    uint8_t b[3];
    NPK_CHECK(npk_mem_read(m, "weight_queue", 20, b, 3) == NPK_OK && b[0] == 8 && b[1] == 0 &&
              b[2] == 0);
    NPK_CHECK(npk_mem_read(m, "weight_queue", 40, q, 16) == NPK_ERR_RANGE);
    npk_stop stop;
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(rd(m, "weight_queue"), 2);
    for (size_t i = 0; i < npk_space_count(m); i++) /* the size as of now */
        if (strcmp(npk_space(m, i)->name, "weight_queue") == 0)
            NPK_CHECK_EQ_U64(npk_space(m, i)->size, 32);
    memset(q, 0xEE, sizeof q);
    NPK_CHECK(npk_mem_read(m, "weight_queue", 0, q, 32) == NPK_OK);
    NPK_CHECK(memcmp(q, want + 4, 32) == 0);
    /* read-only, unchanged */
    NPK_CHECK(npk_mem_write(m, "weight_queue", 0, want, 4) == NPK_ERR_UNSUPPORTED);
    NPK_CHECK_CONTAINS(npk_error(m), "pccx: weight_queue is read-only");
    NPK_CHECK(npk_mem_read(m, "weight_queue", 0, q, 4) == NPK_OK && q[0] == 2);
    npk_destroy(m);
}

int main(void)
{
    check_names();
    check_written();
    check_occupancy();
    check_refused();
    check_weight_queue();
    return npk_test_done();
}
