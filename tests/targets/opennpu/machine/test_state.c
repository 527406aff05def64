/* opennpu architectural state by name (docs/state.md): the register list (vxN, veN, vrN of
 * spec §7.4 and the rows P[i] of §3.3) for two configurations, values written by name and used
 * by a program, the §5.12 GEMM example read back by name, and refused writes. */
#include <stdlib.h>
#include <string.h>

#include "npukit/npukit.h"
#include "test.h"
#include "state.h"

static npk_machine *load(const char *spec, const char *src)
{
    return state_load(spec, src, "state.s");
}

/* lane k (32 bits) of a 4-lane 128-bit register read as bytes */
static void lanes32(npk_machine *m, const char *name, int32_t out[4])
{
    uint8_t b[16] = {0};
    NPK_REPORT(npk_reg_read_bytes(m, name, b, 16) == NPK_OK, "read %s: %s\n", name,
               npk_error(m));
    for (int k = 0; k < 4; k++)
        out[k] = (int32_t)((uint32_t)b[4 * k] | (uint32_t)b[4 * k + 1] << 8 |
                           (uint32_t)b[4 * k + 2] << 16 | (uint32_t)b[4 * k + 3] << 24);
}

static void run_all(npk_machine *m)
{
    npk_stop stop;
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
}

static void check_names(const char *spec, unsigned L, unsigned K)
{
    npk_machine *m = load(spec, "nop\n");
    NPK_CHECK_EQ_U64(npk_reg_count(m), 1 + L + L / 2 + L / 4 + K);
    char want[32];
    size_t i = 0;
    NPK_CHECK_EQ_STR(npk_reg(m, i)->name, "pc");
    NPK_CHECK_EQ_U64(npk_reg(m, i++)->bits, 64);
    static const char *const cls[3] = {"vx", "ve", "vr"};
    for (unsigned c = 0; c < 3; c++)
        for (unsigned r = 0; r < L >> c; r++, i++) {
            snprintf(want, sizeof want, "%s%u", cls[c], r);
            NPK_CHECK_EQ_STR(npk_reg(m, i)->name, want);
            NPK_CHECK_EQ_U64(npk_reg(m, i)->bits, (8u << c) * K);
            NPK_CHECK_EQ_U64(npk_reg(m, i)->flags, 0);
        }
    for (unsigned r = 0; r < K; r++, i++) {
        snprintf(want, sizeof want, "P[%u]", r);
        NPK_CHECK_EQ_STR(npk_reg(m, i)->name, want);
        NPK_CHECK_EQ_U64(npk_reg(m, i)->bits, 32 * K);
    }
    /* the LUT banks and P as spaces too */
    int luta = 0, lutb = 0, acc = 0;
    for (size_t s = 0; s < npk_space_count(m); s++) {
        luta |= strcmp(npk_space(m, s)->name, "luta") == 0 && npk_space(m, s)->size == 256;
        lutb |= strcmp(npk_space(m, s)->name, "lutb") == 0 && npk_space(m, s)->size == 256;
        acc |= strcmp(npk_space(m, s)->name, "acc") == 0 && npk_space(m, s)->size == 4 * K * K;
    }
    NPK_CHECK(luta && lutb && acc);
    npk_destroy(m);
}

/* written by name, then used */
static void check_written(void)
{
    /* K = 4, L = 32: mma.last with rd = 0 drains column j of P to vr j (rows 0..15); the
     * rest works in rows 24..31 (vr6, vr7), which the drain leaves alone */
    npk_machine *m = load("opennpu:K=4,L=32", "mma.last.keep vr0, vx0, vx1\n"
                                             "vlut.a vx25, vx24\n"
                                             "vadd vr7, vr6, vr6\n");
    /* P[1] = [100, 200, -1, 0]; the feed adds 0 (vx0 = vx1 = 0) and keeps P */
    const uint8_t p1[16] = {100, 0, 0, 0, 200, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};
    NPK_CHECK(npk_reg_write_bytes(m, "P[1]", p1, 16) == NPK_OK);
    /* vr6 lanes [1, 2, 0x7FFFFFFF, -1] through the VE view: ve12 holds the low halves,
     * ve13 the high ones (§3.1) */
    NPK_CHECK(npk_reg_write(m, "ve12", 0xFFFFFFFF00020001u) == NPK_OK);
    NPK_CHECK(npk_reg_write(m, "ve13", 0xFFFF7FFF00000000u) == NPK_OK);
    int32_t v[4];
    lanes32(m, "vr6", v);
    NPK_CHECK(v[0] == 1 && v[1] == 2 && v[2] == 0x7FFFFFFF && v[3] == -1);
    /* vx24 is byte 0 of every lane of vr6 */
    NPK_CHECK_EQ_U64(rd(m, "vx24"), 0xFFFF0201u);
    /* vx24 lanes [5, 0, 5, 1] index LUT A, whose entries 0, 1, 5 are 0x33, 0x12, 0x77 */
    NPK_CHECK(npk_reg_write(m, "vx24", 0x01050005) == NPK_OK);
    const uint8_t lut01[2] = {0x33, 0x12}, lut5 = 0x77;
    NPK_CHECK(npk_mem_write(m, "luta", 0, lut01, 2) == NPK_OK);
    NPK_CHECK(npk_mem_write(m, "luta", 5, &lut5, 1) == NPK_OK);
    run_all(m);
    static const int32_t col1[4] = {100, 200, -1, 0};
    for (int j = 0; j < 4; j++) {
        char name[8];
        snprintf(name, sizeof name, "vr%d", j);
        lanes32(m, name, v);
        NPK_REPORT(v[1] == col1[j] && v[0] == 0 && v[2] == 0 && v[3] == 0,
                   "vr%d lanes %d %d %d %d\n", j, v[0], v[1], v[2], v[3]);
    }
    NPK_CHECK_EQ_U64(rd(m, "vx25"), 0x12773377u);
    /* vr6 now: byte 0 vx24 [05 00 05 01], byte 1 vx25 [77 33 77 12], byte 2 vx26 and byte 3
     * vx27 as the ve13 write left them ([00 00 FF FF], [00 00 7F FF]); vr7 is twice that,
     * wrapping */
    lanes32(m, "vr7", v);
    NPK_CHECK_EQ_U64((uint32_t)v[0], 0x00007705u * 2);
    NPK_CHECK_EQ_U64((uint32_t)v[1], 0x00003300u * 2);
    NPK_CHECK_EQ_U64((uint32_t)v[2], (uint32_t)(0x7FFF7705u * 2u));
    NPK_CHECK_EQ_U64((uint32_t)v[3], (uint32_t)(0xFFFF1201u * 2u));
    npk_destroy(m);
}

/* the GEMM example of spec §5.12 (N8 L32 K4), read back by name */
static void check_gemm(void)
{
    npk_machine *m = load("opennpu:K=4,L=32", "mma           vr4, vx0, vx4\n"
                                             "mma.keep      vr4, vx1, vx5\n"
                                             "mma.keep      vr4, vx2, vx6\n"
                                             "mma.last.keep vr4, vx3, vx7\n");
    /* A = [[1,2,3,4],[5,6,7,8],[-1,-2,-3,-4],[10,20,30,40]]: vx t = column t (lane i =
     * A[i][t]); B rows [[1,0,0,0],[0,1,0,0],[0,0,1,0],[5,5,5,5]]: vx 4+t = row t */
    NPK_CHECK(npk_reg_write(m, "vx0", 0x0AFF0501) == NPK_OK);
    NPK_CHECK(npk_reg_write(m, "vx1", 0x14FE0602) == NPK_OK);
    NPK_CHECK(npk_reg_write(m, "vx2", 0x1EFD0703) == NPK_OK);
    NPK_CHECK(npk_reg_write(m, "vx3", 0x28FC0804) == NPK_OK);
    NPK_CHECK(npk_reg_write(m, "vx4", 0x00000001) == NPK_OK);
    NPK_CHECK(npk_reg_write(m, "vx5", 0x00000100) == NPK_OK);
    NPK_CHECK(npk_reg_write(m, "vx6", 0x00010000) == NPK_OK);
    NPK_CHECK(npk_reg_write(m, "vx7", 0x05050505) == NPK_OK);
    run_all(m);
    static const int32_t want[4][4] = {
        {21, 45, -21, 210}, {22, 46, -22, 220}, {23, 47, -23, 230}, {20, 40, -20, 200}};
    int32_t v[4];
    for (int j = 0; j < 4; j++) {
        char name[8];
        snprintf(name, sizeof name, "vr%d", 4 + j);
        lanes32(m, name, v);
        NPK_REPORT(memcmp(v, want[j], sizeof v) == 0, "%s: %d %d %d %d\n", name, v[0], v[1],
                   v[2], v[3]);
        /* P[j] is row j of C: lane i = C[j][i] = column i's lane j */
        snprintf(name, sizeof name, "P[%d]", j);
        lanes32(m, name, v);
        NPK_REPORT(v[0] == want[0][j] && v[1] == want[1][j] && v[2] == want[2][j] &&
                       v[3] == want[3][j],
                   "%s: %d %d %d %d\n", name, v[0], v[1], v[2], v[3]);
    }
    /* vr4's low bytes are vx16: lanes [21, 45, -21 = 0xEB, 210 = 0xD2] */
    NPK_CHECK_EQ_U64(rd(m, "vx16"), 0xD2EB2D15u);
    NPK_CHECK_EQ_U64(rd(m, "pc"), 4);
    npk_destroy(m);
}

static void check_refused(void)
{
    npk_machine *m = load("opennpu:K=4,L=8", "nop\n");
    NPK_CHECK(npk_reg_write(m, "vx0", 0x100000000u) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "opennpu: vx0 is 32 bits wide; 0x100000000 does not fit");
    uint64_t v;
    NPK_CHECK(npk_reg_read(m, "vr0", &v) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "vr0 is 128 bits wide; read it with npk_reg_read_bytes");
    NPK_CHECK(npk_reg_write(m, "P[0]", 1) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "write it with npk_reg_write_bytes");
    uint8_t b[16] = {0};
    NPK_CHECK(npk_reg_read_bytes(m, "P[3]", b, 8) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_error(m), "P[3] is 128 bits wide: 16 bytes, not 8");
    NPK_CHECK(npk_reg_read_bytes(m, "P[4]", b, 16) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(npk_error(m), "no register 'P[4]'");
    NPK_CHECK(npk_reg_read(m, "vx8", &v) == NPK_ERR_ARG);   /* L = 8: vx0..vx7 */
    NPK_CHECK(npk_reg_write(m, "pc", 2) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "past the end of the 1-word program");
    npk_destroy(m);
}

int main(void)
{
    check_names("opennpu", 32, 8);
    check_names("opennpu:K=64,L=4", 4, 64);
    check_written();
    check_gemm();
    check_refused();
    return npk_test_done();
}
