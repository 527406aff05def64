/* opennpu tick model (spec §6.3): every program of the §6.4 tables with its issue ticks and
 * total, the quantize chain at K = 64, statistics (stalls, busy time, feeds, utilisation),
 * chunked runs, and the timeline tracks. The programs are the spec's text, assembled. */
#include "onpu_test.h"

static npk_machine *mk_asm(const char *spec, const char *src)
{
    npk_machine *m = mk(spec);
    if (npk_load_asm(m, src, "timing.s", stderr) != NPK_OK) {
        fprintf(stderr, "assembling for %s failed: %s\n%s", spec, npk_error(m), src);
        exit(2);
    }
    return m;
}

/* Run src and compare the issue ticks and the total with the spec's. */
static npk_machine *expect(const char *spec, const char *src, const uint64_t *issue, size_t n,
                           uint64_t ticks)
{
    npk_machine *m = mk_asm(spec, src);
    uint64_t got[256] = {0};
    npk_stop st;
    uint64_t total = run_ticks(m, &st, got, 256);
    NPK_REPORT(st.reason == NPK_STOP_EXIT, "%s: %s\n", src, st.message);
    NPK_REPORT(total == ticks, "ticks %llu, want %llu for:\n%s\n", (unsigned long long)total,
               (unsigned long long)ticks, src);
    for (size_t i = 0; i < n; i++)
        NPK_REPORT(got[i] == issue[i], "insn %zu issued at %llu, want %llu in:\n%s\n", i,
                   (unsigned long long)got[i], (unsigned long long)issue[i], src);
    npk_stats s;
    npk_stats_get(m, &s);
    NPK_CHECK_EQ_U64(s.insns, n);
    return m;
}

#define FEEDS8                                                                              \
    "mma vr0, vx0, vx8\n mma.keep vr0, vx1, vx9\n mma.keep vr0, vx2, vx10\n"                \
    "mma.keep vr0, vx3, vx11\n mma.keep vr0, vx4, vx12\n mma.keep vr0, vx5, vx13\n"         \
    "mma.keep vr0, vx6, vx14\n mma.last.keep vr0, vx7, vx15\n"

static const char quantize[] = FEEDS8 "vcvt_f32_s32 vr7, vr7\n vfma vr7, vr7, vr0, vr1\n"
                                      "vcvt_s8_f32.sat vx28, vr7\n";

static void worked_examples(void)
{
    static const uint64_t i01[] = {0, 1}, i0[] = {0}, i04[] = {0, 1, 2, 3, 4},
                          i05[] = {0, 1, 2, 3, 4, 5},
                          iq[] = {0, 1, 2, 3, 4, 5, 6, 7, 22, 23, 25};
    npk_destroy(expect("opennpu", "vbcast.imm vx1, 0\n vmax vx2, vx0, vx1\n", i01, 2, 2));
    npk_destroy(expect("opennpu", "vmin vx2, vx0, vx1\n vmax vx2, vx2, vx3\n", i01, 2, 2));
    npk_destroy(expect("opennpu", "vlut.a vx1, vx0\n", i0, 1, 1));
    npk_destroy(expect("opennpu",
                       "vsra vx1, vx0, vx10\n vlut.a vx2, vx1\n vadd vx3, vx2, vx11\n"
                       "vmul vx4, vx0, vx3\n vsra vx5, vx4, vx12\n", i04, 5, 5));
    npk_destroy(expect("opennpu",
                       "vrmax vr1, vx0\n vsub.sat vx2, vx0, vx4\n vlut.a vx3, vx2\n"
                       "vsum vr2, vx3\n vlut.b vx12, vx8\n vmul vx13, vx3, vx12\n", i05, 6, 6));
    /* Quantize, K = 8: 27 = 3K + 3; busy: MMA 7 feeds + the drain (7 .. 22), VALU 1 + 2 + 2 */
    npk_machine *m = expect("opennpu", quantize, iq, 11, 27);
    npk_stats s;
    npk_stats_get(m, &s);
    NPK_CHECK_EQ_U64(s.busy[2], 7 + 15);
    NPK_CHECK_EQ_U64(s.busy[1], 5);
    NPK_CHECK_EQ_U64(stat_extra(m, "mma_feeds"), 8);
    NPK_CHECK_EQ_U64(stat_extra(m, "mma_util_permille"), 8 * 1000 / 27);
    NPK_CHECK_EQ_U64(stat_extra(m, "stall_ticks"), (22 - 8) + 0 + (25 - 24));
    npk_destroy(m);

    /* the same at K = 64 (top): the last column at 3K - 2 = 190, total 3K + 3 = 195 */
    char src[8192];
    size_t len = 0;
    for (unsigned i = 0; i < 64; i++)
        len += (size_t)snprintf(src + len, sizeof src - len, "mma%s%s vr0, vx%u, vx%u\n",
                                i == 63 ? ".last" : "", i ? ".keep" : "", i % 16, 16 + i % 16);
    snprintf(src + len, sizeof src - len,
             "vcvt_f32_s32 vr7, vr7\n vfma vr7, vr7, vr0, vr1\n vcvt_s8_f32.sat vx28, vr7\n");
    uint64_t itop[67];
    for (unsigned i = 0; i < 64; i++)
        itop[i] = i;
    itop[64] = 190;
    itop[65] = 191;
    itop[66] = 193;
    npk_destroy(expect("opennpu:top", src, itop, 67, 195));
}

static void stall_examples(void)
{
    static const uint64_t i02[] = {0, 2}, i012[] = {0, 1, 2}, i013[] = {0, 1, 3}, i03[] = {0, 3},
                          i8[] = {0, 1, 2, 3, 4, 5, 6, 7, 18, 20}, i06[] = {0, 1, 2, 3, 4, 5, 6};
    npk_machine *m = expect("opennpu", "vfma vr1, vr2, vr3, vr4\n vcvt_s8_f32.sat vx0, vr1\n",
                            i02, 2, 4);
    NPK_CHECK_EQ_U64(stat_extra(m, "stall_ticks"), 1);
    npk_destroy(m);
    npk_destroy(expect("opennpu",
                       "vfma vr1, vr2, vr3, vr4\n vadd vx0, vx8, vx9\n vadd vx1, vx8, vx9\n",
                       i012, 3, 3));
    npk_destroy(expect("opennpu", "vfma vr1, vr2, vr3, vr4\n vbcast.imm vx4, 1\n", i02, 2, 3));
    npk_destroy(expect("opennpu",
                       "vcvt_f32_s32 vr1, vr2\n vcvt_s32_f32 vr3, vr1\n vadd vr4, vr3, vr3\n",
                       i013, 3, 4));
    npk_destroy(expect("opennpu:mem_latency=3", "ld.vx vx0, 0(vr7)\n vadd vx1, vx0, vx0\n", i03,
                       2, 4));
    m = expect("opennpu", FEEDS8 "vadd vx0, vx12, vx12\n vadd vr5, vr3, vr3\n", i8, 10, 22);
    NPK_CHECK_EQ_U64(stat_extra(m, "stall_ticks"), (18 - 8) + (20 - 19));
    npk_destroy(m);
    npk_destroy(expect("opennpu", "mma vr0, vx0, vx1\n mma.reset\n mma.last vr0, vx2, vx3\n",
                       i012, 3, 24));
    npk_destroy(expect("opennpu:K=4",
                       "mma vr4, vx0, vx4\n nop\n nop\n nop\n nop\n nop\n"
                       "mma.last.keep vr4, vx1, vx5\n", i06, 7, 13));
}

/* Further cases of §6.3 derived by hand. */
static void more_ticks(void)
{
    static const uint64_t i0[] = {0}, i01[] = {0, 1};
    /* an empty program takes 0 ticks */
    npk_machine *m = mk_prog("opennpu", NULL, 0);
    npk_stop st;
    NPK_CHECK_EQ_U64(run_ticks(m, &st, NULL, 0), 0);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    npk_destroy(m);
    /* ST has no register result but completes after mem_latency */
    npk_destroy(expect("opennpu:mem_latency=5", "st.vx vx1, 0(vr0)\n", i0, 1, 5));
    /* a store of a register still being loaded waits (RAW on the stored register) */
    npk_destroy(expect("opennpu:mem_latency=5", "ld.w vr1, 0(vr0)\n st.b vx4, 8(vr0)\n nop\n",
                       (const uint64_t[]){0, 5, 6}, 3, 10));
    /* a VE write covering a VX row that is still being loaded waits (WAW across views) */
    npk_destroy(expect("opennpu:mem_latency=3", "ld.b vx1, 0(vr1)\n vmovi ve0, 1\n",
                       (const uint64_t[]){0, 3}, 2, 4));
    /* lane-0 writes count the whole register (vmovi then vmovh on the same VE) */
    npk_destroy(expect("opennpu", "vmovi ve4, 0xCD\n vmovh ve4, 0xCC\n", i01, 2, 2));
    /* vsetlut has no register result; a following vlut does not wait for it */
    npk_destroy(expect("opennpu", "vsetlut.a vr1, 0\n vlut.a vx0, vx1\n", i01, 2, 2));
    /* two one-feed blocks draining to the same registers: the second mma.last waits for the
     * first drain's last column (WAW on VR7 at 10), then D = max(10 + 7, 10 + 4) = 17 */
    npk_destroy(expect("opennpu:K=4",
                       "mma.last vr4, vx8, vx9\n mma.last vr4, vx10, vx11\n nop\n",
                       (const uint64_t[]){0, 10, 11}, 3, 17 + 3));
    /* a feed waits for a drain still in flight to its operand rows (VX1, VX2 in VR0, column 0
     * at D = 7); the run lasts until the first drain completes at 10 */
    npk_destroy(expect("opennpu:K=4", "mma.last vr0, vx8, vx9\n mma vr0, vx1, vx2\n",
                       (const uint64_t[]){0, 7}, 2, 10));
    /* more than K feeds in a block: D = t_L + K */
    npk_destroy(expect("opennpu:K=4",
                       "mma vr4, vx0, vx1\n mma vr4, vx0, vx1\n mma vr4, vx0, vx1\n"
                       "mma vr4, vx0, vx1\n mma vr4, vx0, vx1\n mma.last vr4, vx0, vx1\n",
                       (const uint64_t[]){0, 1, 2, 3, 4, 5}, 6, 5 + 4 + 3));
    /* independent 2-tick ops pipeline: completion of the last one decides */
    npk_destroy(expect("opennpu", "vfma vr1, vr2, vr3, vr4\n vfma vr5, vr2, vr3, vr4\n"
                       "vcvt_bf16_f32 ve14, vr2\n vcvt_f32_bf16 vr3, ve14\n",
                       (const uint64_t[]){0, 1, 2, 4}, 4, 5));
}

/* Chunked runs (as the CLI does them) give the same ticks and state as one run. */
static void chunked(void)
{
    npk_machine *a = mk_asm("opennpu", quantize);
    npk_stop st;
    npk_stats_enable(a, 1);
    unsigned chunks = 0;
    do {
        NPK_CHECK(npk_run(a, 3, &st) == NPK_OK);
        chunks++;
    } while (st.reason == NPK_STOP_BUDGET && chunks < 20);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(chunks, 4);
    npk_stats s;
    npk_stats_get(a, &s);
    NPK_CHECK_EQ_U64(s.cycles, 27);
    NPK_CHECK_EQ_U64(s.insns, 11);
    /* a finished program stays finished */
    NPK_CHECK(npk_run(a, 0, &st) == NPK_OK);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    npk_destroy(a);
}

/* --timeline: one track per unit; the mma.last event spans issue .. D + K - 1. */
static void timeline(void)
{
    const char *path = "opennpu_machine_timeline.json"; /* in the test's working directory */
    npk_machine *m = mk_asm("opennpu:K=4",
                            "mma vr4, vx0, vx4\n mma.last.keep vr4, vx1, vx5\n"
                            "ld.vx vx0, 0(vr0)\n vadd vx1, vx0, vx0\n");
    NPK_CHECK(npk_timeline_open(m, path) == NPK_OK);
    npk_stop st;
    npk_run(m, 0, &st);
    NPK_CHECK(npk_timeline_close(m) == NPK_OK);
    npk_destroy(m);
    FILE *f = fopen(path, "r");
    char buf[8192] = "";
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
    remove(path);
    NPK_CHECK_CONTAINS(buf, "\"valu\"");
    NPK_CHECK_CONTAINS(buf, "\"mma\"");
    NPK_CHECK_CONTAINS(buf, "\"mem\"");
    /* K = 4: T0 = 0, t_L = 1, D = max(7, 5) = 7, last column at D + K - 1 = 10: dur 9 */
    NPK_CHECK_CONTAINS(buf, "\"tid\":3,\"ts\":1,\"dur\":9,\"name\":\"mma.last\"");
    /* ld.vx on the MEM track (tid 4) at 2, 1 tick; vadd on VALU (tid 2) at 3 */
    NPK_CHECK_CONTAINS(buf, "\"tid\":4,\"ts\":2,\"dur\":1,\"name\":\"ld.vx\"");
    NPK_CHECK_CONTAINS(buf, "\"tid\":2,\"ts\":3,\"dur\":1,\"name\":\"vadd\"");
}

int main(void)
{
    worked_examples();
    stall_examples();
    more_ticks();
    chunked();
    timeline();
    return npk_test_done();
}
