/* pccx timing model (docs/spec/pccx.md §11): the §11.6 worked example, the §11.3 phase table,
 * hazards, port B first-come-first-served, the command FIFO and engine queues, sync waits,
 * dropped instructions, status, sync budgets and the §11.5 statistics. Every expected value is
 * derived by hand from the spec in the comment next to it. Defaults (§11.1): t_push =
 * axi(2) = ceil(2 * 400 / 250) = 4, t_ddr = ceil(100 * 400 / 1000) = 40, decode_cycles 1, so
 * with back-to-back pushes a_i = 4i, d_i = 4i + 1 and an unobstructed start is d_i + 1. */
#include <stdlib.h>
#include <time.h>

#include "targets/pccx/timing.h"
#include "test.h"

/* ---- helpers ------------------------------------------------------------------------------ */

static pccx_tm *mk_with(const pccx_timing_t *p)
{
    const char *why = NULL;
    pccx_tm *t = pccx_tm_create(p, &why);
    if (!t) {
        fprintf(stderr, "pccx_tm_create failed: %s\n", why ? why : "?");
        exit(2);
    }
    return t;
}

static pccx_tm *mk(void)
{
    pccx_timing_t p;
    pccx_timing_default(&p);
    return mk_with(&p);
}

static pccx_range rg(uint64_t lo, uint64_t n)
{
    pccx_range r = {lo, lo + n};
    return r;
}

static pccx_fp f_memset(unsigned bank, unsigned idx)
{
    pccx_fp f;
    pccx_fp_init(&f, PCCX_FP_MEMSET);
    f.cc_wr = (int)(bank * 64 + idx);
    return f;
}

/* MEMCPY host -> L2: `words` L2 words to word dst from host byte `host`, length from fmap[shape] */
static pccx_fp f_h2l(uint64_t words, uint64_t dst, uint64_t host, int shape, int sync)
{
    pccx_fp f;
    pccx_fp_init(&f, PCCX_FP_MEMCPY_H2L);
    f.sync = sync;
    f.words = words;
    f.l2_wr = rg(8 * dst, 8 * words);
    f.host_rd = rg(host, 16 * words);
    f.cc_rd[0] = shape;
    return f;
}

static pccx_fp f_l2h(uint64_t words, uint64_t src, uint64_t host, int shape, int sync)
{
    pccx_fp f;
    pccx_fp_init(&f, PCCX_FP_MEMCPY_L2H);
    f.sync = sync;
    f.words = words;
    f.l2_rd[0] = rg(8 * src, 8 * words);
    f.host_wr = rg(host, 16 * words);
    f.cc_rd[0] = shape;
    return f;
}

static pccx_fp f_l2l(uint64_t words, uint64_t src, uint64_t dst)
{
    pccx_fp f;
    pccx_fp_init(&f, PCCX_FP_MEMCPY_L2L);
    f.sync = 0;
    f.words = words;
    f.l2_rd[0] = rg(8 * src, 8 * words);
    f.l2_wr = rg(8 * dst, 8 * words);
    f.cc_rd[0] = 1;
    return f;
}

/* GEMV (M = 1) or GEMM on an INT4 tensor; src / dst are word addresses */
static pccx_fp f_mm(pccx_fp_kind kind, uint64_t M, uint64_t K, uint64_t N, uint64_t src,
                    uint64_t dst, unsigned mask)
{
    pccx_fp f;
    pccx_fp_init(&f, kind);
    f.M = M;
    f.K = K;
    f.N = N;
    f.lane_mask = mask;
    f.l2_rd[0] = rg(8 * src, M * K);
    f.l2_wr = rg(8 * dst, M * N);
    return f;
}

static pccx_fp f_gemv(uint64_t K, uint64_t N, uint64_t src, uint64_t dst)
{
    return f_mm(PCCX_FP_GEMV, 1, K, N, src, dst, 0xF);
}

/* CVO with element addresses */
static pccx_fp f_cvo(unsigned func, uint64_t src, uint64_t n_in, uint64_t dst, uint64_t n_out,
                     int sync)
{
    pccx_fp f;
    pccx_fp_init(&f, PCCX_FP_CVO);
    f.func = func;
    f.sync = sync;
    f.cvo_src = src;
    f.n_in = n_in;
    f.cvo_dst = dst;
    f.n_out = n_out;
    f.l2_rd[0] = rg(src, n_in);
    f.l2_wr = rg(dst, n_out);
    return f;
}

static pccx_fp f_dropped(void)
{
    pccx_fp f;
    pccx_fp_init(&f, PCCX_FP_DROPPED);
    return f;
}

static void push(pccx_tm *t, pccx_fp f)
{
    NPK_CHECK(pccx_tm_push(t, &f) == 0);
}

/* a, d, s, c of instruction i (after the model has run past it) */
static void times_at(int line, pccx_tm *t, uint64_t i, uint64_t a, uint64_t d, uint64_t s,
                     uint64_t c)
{
    const pccx_tm_rec *r = pccx_tm_record(t, i);
    NPK_REPORT(r && r->done && r->a == a && r->d == d && r->s == s && r->c == c,
               "line %d: insn %llu: done %d a %llu d %llu s %llu c %llu, want a %llu d %llu "
               "s %llu c %llu\n",
               line, (unsigned long long)i, r ? r->done : -1, r ? (unsigned long long)r->a : 0,
               r ? (unsigned long long)r->d : 0, r ? (unsigned long long)r->s : 0,
               r ? (unsigned long long)r->c : 0, (unsigned long long)a, (unsigned long long)d,
               (unsigned long long)s, (unsigned long long)c);
}
#define TIMES(t, i, a, d, s, c) times_at(__LINE__, t, i, a, d, s, c)

/* port B bursts [r0, r1), [w0, w1) and the X phase of instruction i */
static void phases_at(int line, pccx_tm *t, uint64_t i, uint64_t r0, uint64_t r1, uint64_t x0,
                      uint64_t x1, uint64_t w0, uint64_t w1)
{
    const pccx_tm_rec *r = pccx_tm_record(t, i);
    NPK_REPORT(r && r->r0 == r0 && r->r1 == r1 && r->x0 == x0 && r->x1 == x1 && r->w0 == w0 &&
                   r->w1 == w1,
               "line %d: insn %llu: R [%llu, %llu) X [%llu, %llu) W [%llu, %llu), want R "
               "[%llu, %llu) X [%llu, %llu) W [%llu, %llu)\n",
               line, (unsigned long long)i, r ? (unsigned long long)r->r0 : 0,
               r ? (unsigned long long)r->r1 : 0, r ? (unsigned long long)r->x0 : 0,
               r ? (unsigned long long)r->x1 : 0, r ? (unsigned long long)r->w0 : 0,
               r ? (unsigned long long)r->w1 : 0, (unsigned long long)r0,
               (unsigned long long)r1, (unsigned long long)x0, (unsigned long long)x1,
               (unsigned long long)w0, (unsigned long long)w1);
}
#define PHASES(t, i, r0, r1, x0, x1, w0, w1) phases_at(__LINE__, t, i, r0, r1, x0, x1, w0, w1)

static uint64_t hazard_wait(pccx_tm *t, uint64_t i)
{
    return pccx_tm_record(t, i)->hazard_wait;
}

/* r, x, w and engine of the §11.3 table */
static void rxw_at(int line, const pccx_timing_t *p, pccx_fp f, int engine, uint64_t r,
                   uint64_t x, uint64_t w)
{
    int e = -2;
    uint64_t gr = 0, gx = 0, gw = 0;
    pccx_tm_phases(p, &f, &e, &gr, &gx, &gw);
    NPK_REPORT(e == engine && gr == r && gx == x && gw == w,
               "line %d: engine %d r %llu x %llu w %llu, want engine %d r %llu x %llu w %llu\n",
               line, e, (unsigned long long)gr, (unsigned long long)gx, (unsigned long long)gw,
               engine, (unsigned long long)r, (unsigned long long)x, (unsigned long long)w);
}
#define RXW(p, f, e, r, x, w) rxw_at(__LINE__, p, f, e, r, x, w)

/* ---- §11.1 parameters and the §11.3 table ------------------------------------------------- */

static void params(void)
{
    pccx_timing_t p;
    pccx_timing_default(&p);
    NPK_CHECK_EQ_U64(p.f_core_mhz, 400);
    NPK_CHECK_EQ_U64(p.f_axi_mhz, 250);
    NPK_CHECK_EQ_U64(p.cmd_fifo_depth, 8);
    NPK_CHECK_EQ_U64(p.decode_cycles, 1);
    NPK_CHECK_EQ_U64(p.engine_queue_depth, 8);
    NPK_CHECK_EQ_U64(p.host_push_axi_cycles, 2);
    NPK_CHECK_EQ_U64(p.l2_read_latency, 7);
    NPK_CHECK_EQ_U64(p.l2_port_words_per_cycle, 1);
    NPK_CHECK_EQ_U64(p.ddr_latency_ns, 100);
    NPK_CHECK_EQ_U64(p.mem_setup_cycles, 13);
    NPK_CHECK_EQ_U64(p.memset_cycles, 2);
    NPK_CHECK_EQ_U64(p.acp_bytes_per_axi_cycle, 16);
    NPK_CHECK_EQ_U64(p.hp_bytes_per_axi_cycle, 16);
    NPK_CHECK_EQ_U64(p.gemm_ports, 0x3);
    NPK_CHECK_EQ_U64(p.gemv_ports, 0xC);
    NPK_CHECK_EQ_U64(p.gemv_lanes, 4);
    NPK_CHECK_EQ_U64(p.gemv_lane_width, 32);
    NPK_CHECK_EQ_U64(p.gemv_latency, 8);
    NPK_CHECK_EQ_U64(p.gemm_rows, 32);
    NPK_CHECK_EQ_U64(p.gemm_cols, 32);
    NPK_CHECK_EQ_U64(p.gemm_macs_per_pe, 2);
    NPK_CHECK_EQ_U64(p.gemm_latency, 68);
    NPK_CHECK_EQ_U64(p.cvo_cores, 2);
    NPK_CHECK_EQ_U64(p.cvo_overhead, 8);
    static const uint32_t lat[PCCX_N_CVO_FUNCS] = {5, 2, 18, 16, 16, 8, 3, 9,
                                                   1, 3, 18, 4, 1, 11, 8};
    for (int f = 0; f < PCCX_N_CVO_FUNCS; f++)
        NPK_REPORT(p.cvo_lat[f] == lat[f], "cvo_lat[%d] = %u\n", f, p.cvo_lat[f]);
    NPK_CHECK_EQ_U64(p.cvo_lat_recip_scale, 12);

    /* axi(n) = ceil(8n / 5): axi(2) = 4 (t_push), axi(64) = ceil(102.4) = 103, axi(5) = 8 */
    NPK_CHECK_EQ_U64(pccx_tm_axi(&p, 2), 4);
    NPK_CHECK_EQ_U64(pccx_tm_axi(&p, 64), 103);
    NPK_CHECK_EQ_U64(pccx_tm_axi(&p, 5), 8);
    NPK_CHECK_EQ_U64(pccx_tm_axi(&p, 0), 0);
    NPK_CHECK_EQ_U64(pccx_tm_t_ddr(&p), 40);  /* ceil(100 * 400 / 1000) */
    pccx_timing_t q = p;
    q.f_core_mhz = 333;                        /* axi(10) = ceil(3330 / 250) = 14 */
    q.ddr_latency_ns = 7;                      /* t_ddr = ceil(2331 / 1000) = 3 */
    NPK_CHECK_EQ_U64(pccx_tm_axi(&q, 10), 14);
    NPK_CHECK_EQ_U64(pccx_tm_t_ddr(&q), 3);

    /* parameters that make no sense are refused, with a reason */
    const char *why = NULL;
    q = p;
    q.f_core_mhz = 0;
    NPK_CHECK(pccx_tm_create(&q, &why) == NULL && why != NULL);
    q = p;
    q.gemv_ports = 0;
    why = NULL;
    NPK_CHECK(pccx_tm_create(&q, &why) == NULL && why != NULL);
    q = p;
    q.cmd_fifo_depth = 0;
    NPK_CHECK(pccx_tm_create(&q, NULL) == NULL);
    q = p;
    q.l2_port_words_per_cycle = 0;
    NPK_CHECK(pccx_tm_create(&q, NULL) == NULL);
    pccx_tm *t = mk_with(&p);
    NPK_CHECK_EQ_U64(pccx_tm_params(t)->gemm_latency, 68);
    pccx_tm_destroy(t);
    pccx_tm_destroy(NULL);
}

static void phase_table(void)
{
    pccx_timing_t p;
    pccx_timing_default(&p);
    pccx_fp f;

    /* MEMSET: 0, memset_cycles = 2, 0 */
    RXW(&p, f_memset(0, 1), PCCX_ENG_MEMSET, 0, 2, 0);
    /* host -> L2, 64 words: 13 + 40 + axi(ceil(16 * 64 / 16) = 64) = 13 + 40 + 103 = 156 */
    RXW(&p, f_h2l(64, 0x10, 0, 1, 1), PCCX_ENG_MEM, 0, 156, 0);
    /* L2 -> host, 64 words: 13 + 7 + 103 + 40 = 163 */
    RXW(&p, f_l2h(64, 0, 0, 1, 1), PCCX_ENG_MEM, 0, 163, 0);
    /* L2 -> host, 1 word: 13 + 7 + axi(1) = 2 + 40 = 62 */
    RXW(&p, f_l2h(1, 0, 0, 1, 1), PCCX_ENG_MEM, 0, 62, 0);
    /* L2 -> L2, 64 words: r = 64 on port B, x = 13 + 7 = 20, writes on port A */
    RXW(&p, f_l2l(64, 0, 100), PCCX_ENG_MEM, 64, 20, 0);

    /* GEMV K = N = 2048, all lanes (L = 4), INT4: r = 2048 / 8 = 256;
     * T_mac = ceil(2048 * ceil(2048 / 32) / 4) = 2048 * 64 / 4 = 32768;
     * B = 2048 * 64 + ceil(2048 / 4) = 131072 + 512 = 131584 beats over HP2 + HP3 (P = 2):
     * T_w = 40 + axi(65792) = 40 + ceil(105267.2) = 105308 (weight bound);
     * x = 7 + 105308 + 8 = 105323; w = 256 */
    RXW(&p, f_gemv(2048, 2048, 0, 0x1000), PCCX_ENG_GEMV, 256, 105323, 256);
    /* one lane (mask 0x1), accm: T_mac = 2048 * 64 = 131072 > T_w (MAC bound);
     * x = 7 + 131072 + 8 = 131087; r = 256 + ceil(2048 / 8) = 512 */
    f = f_mm(PCCX_FP_GEMV, 1, 2048, 2048, 0, 0x1000, 0x1);
    f.accm = 1;
    RXW(&p, f, PCCX_ENG_GEMV, 512, 131087, 256);
    /* lanes 0 and 2 (mask 0x5, L = 2): T_mac = 65536 < T_w = 105308: x = 105323 again */
    RXW(&p, f_mm(PCCX_FP_GEMV, 1, 2048, 2048, 0, 0x1000, 0x5), PCCX_ENG_GEMV, 256, 105323,
        256);
    /* K = 33, N = 5, mask 0x3 (L = 2): r = ceil(33 / 8) = 5; T_mac = ceil(5 * 2 / 2) = 5;
     * B = 5 * 2 + ceil(5 / 4) = 12, T_w = 40 + axi(6) = 40 + ceil(9.6) = 50;
     * x = 7 + 50 + 8 = 65; w = ceil(5 / 8) = 1 */
    RXW(&p, f_mm(PCCX_FP_GEMV, 1, 33, 5, 0, 0x1000, 0x3), PCCX_ENG_GEMV, 5, 65, 1);
    /* BF16 view K = 256, N = 512: B = 512 * ceil(256 / 8) = 16384, T_w = 40 + axi(8192) =
     * 40 + ceil(13107.2) = 13148; T_mac = ceil(512 * 8 / 4) = 1024; x = 7 + 13148 + 8 = 13163;
     * r = 32, w = 64 */
    f = f_gemv(256, 512, 0, 0x1000);
    f.weight_view = 1;
    RXW(&p, f, PCCX_ENG_GEMV, 32, 13163, 64);

    /* GEMM M = 4, K = N = 2048: r = ceil(4 * 2048 / 8) = 1024;
     * T_mac = ceil(2048 / 32) * ceil(2048 / 64) * 4 = 64 * 32 * 4 = 8192;
     * T_w = 105308 (same B over HP0 + HP1); x = 7 + 105308 + 68 = 105383; w = 1024 */
    RXW(&p, f_mm(PCCX_FP_GEMM, 4, 2048, 2048, 0, 0x1000, 0), PCCX_ENG_GEMM, 1024, 105383, 1024);
    /* with accm r adds ceil(4 * 2048 / 8) = 1024 */
    f = f_mm(PCCX_FP_GEMM, 4, 2048, 2048, 0, 0x1000, 0);
    f.accm = 1;
    RXW(&p, f, PCCX_ENG_GEMM, 2048, 105383, 1024);
    /* M = 256, K = N = 64 (MAC bound): T_mac = 2 * 1 * 256 = 512; B = 64 * 2 + 16 = 144,
     * T_w = 40 + axi(72) = 40 + ceil(115.2) = 156; x = 7 + 512 + 68 = 587;
     * r = w = ceil(256 * 64 / 8) = 2048 */
    RXW(&p, f_mm(PCCX_FP_GEMM, 256, 64, 64, 0, 0x1000, 0), PCCX_ENG_GEMM, 2048, 587, 2048);

    /* CVO EXP src 0x1800, n 512 -> dst 0x2001 (the §8.1 softmax step 2):
     * r = span(6144, 512) = 831 - 768 + 1 = 64; x = 7 + 256 + 8 + 5 = 276;
     * w = span(8193, 512) = floor(8704 / 8) - floor(8193 / 8) + 1 = 1088 - 1024 + 1 = 65 */
    RXW(&p, f_cvo(PCCX_CVO_EXP, 0x1800, 512, 0x2001, 512, 1), PCCX_ENG_CVO, 64, 276, 65);
    /* REDUCE_SUM src 0x2001, n 512 -> one scalar at 0x2000, accm: r = span(8193, 512) +
     * span(8192, 1) = 65 + 1 = 66; x = 7 + 256 + 8 + 8 = 279; w = 1 */
    f = f_cvo(PCCX_CVO_REDUCE_SUM, 0x2001, 512, 0x2000, 1, 1);
    f.accm = 1;
    RXW(&p, f, PCCX_ENG_CVO, 66, 279, 1);
    /* SCALE with recip_scale src 0x2000, n 513 -> 512 at 0x2400: r = span(8192, 513) = 65;
     * x = 7 + ceil(513 / 2) + 8 + 12 = 7 + 257 + 8 + 12 = 284; w = span(9216, 512) = 64 */
    f = f_cvo(PCCX_CVO_SCALE, 0x2000, 513, 0x2400, 512, 1);
    f.recip_scale = 1;
    RXW(&p, f, PCCX_ENG_CVO, 65, 284, 64);
    /* the same without recip_scale: lat 3, x = 275 */
    RXW(&p, f_cvo(PCCX_CVO_SCALE, 0x2000, 513, 0x2400, 512, 1), PCCX_ENG_CVO, 65, 275, 64);
    /* SCALE with n = 1 writes nothing: r = span(5, 1) = 1, x = 7 + 1 + 8 + 3 = 19, w = 0 */
    RXW(&p, f_cvo(PCCX_CVO_SCALE, 5, 1, 40, 0, 1), PCCX_ENG_CVO, 1, 19, 0);
    /* VMUL (ext, func 9) src 3, dst 21, n 10 (unaligned): r = span(3, 10) + span(21, 10) =
     * (1 - 0 + 1) + (3 - 2 + 1) = 4; x = 7 + 5 + 8 + 3 = 23; w = span(21, 10) = 2 */
    RXW(&p, f_cvo(PCCX_CVO_VMUL, 3, 10, 21, 10, 0), PCCX_ENG_CVO, 4, 23, 2);
    /* GELU src 7, n 2 -> dst 15: r = span(7, 2) = 1 - 0 + 1 = 2; x = 7 + 1 + 8 + 18 = 34;
     * w = span(15, 2) = 2 - 1 + 1 = 2 */
    RXW(&p, f_cvo(PCCX_CVO_GELU, 7, 2, 15, 2, 0), PCCX_ENG_CVO, 2, 34, 2);
    /* REDUCE_SUMSQ (0xD) n 16 at 0 -> 100: r = 2, x = 7 + 8 + 8 + 11 = 34, w = 1 */
    RXW(&p, f_cvo(PCCX_CVO_REDUCE_SUMSQ, 0, 16, 100, 1, 0), PCCX_ENG_CVO, 2, 34, 1);
    /* dropped: no engine, nothing */
    RXW(&p, f_dropped(), -1, 0, 0, 0);

    /* a custom latency table entry is used */
    pccx_timing_t q = p;
    q.cvo_lat[PCCX_CVO_EXP] = 50;  /* x = 7 + 4 + 8 + 50 = 69 */
    RXW(&q, f_cvo(PCCX_CVO_EXP, 0, 8, 8, 8, 0), PCCX_ENG_CVO, 1, 69, 1);
    /* two L2 words per port-B cycle halve a burst's cycles but not its words: the record keeps
     * words (r = 64), the port is held ceil(64 / 2) = 32 cycles */
    q = p;
    q.l2_port_words_per_cycle = 2;
    pccx_tm *t = mk_with(&q);
    push(t, f_l2l(64, 0, 100));  /* a 0, d 1, s 2: R [2, 34), X 20: [34, 54), c 54 */
    NPK_CHECK_EQ_U64(pccx_tm_drain_time(t), 54);
    PHASES(t, 0, 2, 34, 34, 54, 54, 54);
    NPK_CHECK_EQ_U64(pccx_tm_record(t, 0)->r, 64);
    pccx_stats_t st;
    memset(&st, 0, sizeof st);
    pccx_tm_stats(t, &st);
    NPK_CHECK_EQ_U64(st.port_b_busy, 32);
    pccx_tm_destroy(t);
}

/* ---- §11.6 worked example ----------------------------------------------------------------- */

static void worked_example(void)
{
    pccx_tm *t = mk();
    push(t, f_memset(PCCX_BANK_FMAP, 1));  /* memset fmap, idx=1, a=1, b=512, c=1 */
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 4);
    /* memcpy.h2l dst=0x10, aux=0, shape=1 (sync): E = 512 elements = 64 words */
    push(t, f_h2l(64, 0x10, 0, 1, 1));
    NPK_CHECK_EQ_U64(pccx_tm_count(t), 2);
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 8);  /* a = 4, + t_push */
    NPK_CHECK(pccx_tm_sync(t, 0) == 0);
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 162);
    /* MEMSET a 0, d 1, s 2, c = 2 + 2 = 4 */
    TIMES(t, 0, 0, 1, 2, 4);
    NPK_CHECK_EQ_U64(pccx_tm_record(t, 0)->h, 0);
    NPK_CHECK_EQ_U64(pccx_tm_record(t, 0)->engine, PCCX_ENG_MEMSET);
    /* MEMCPY h 4, a 4, d 5, s = max(6, 4 (RAW fmap[1])) = 6, c = 6 + 156 = 162 */
    TIMES(t, 1, 4, 5, 6, 162);
    NPK_CHECK_EQ_U64(pccx_tm_record(t, 1)->h, 4);
    NPK_CHECK_EQ_U64(pccx_tm_record(t, 1)->engine, PCCX_ENG_MEM);
    NPK_CHECK_EQ_U64(hazard_wait(t, 1), 0);  /* the hazard (4) is below d + 1 = 6 */
    PHASES(t, 1, 6, 6, 6, 162, 162, 162);    /* no port-B bursts */
    NPK_CHECK_EQ_U64(pccx_tm_drain_time(t), 162);
    pccx_stats_t st;
    memset(&st, 0, sizeof st);
    pccx_tm_stats(t, &st);
    NPK_CHECK_EQ_U64(st.cycles, 162);
    NPK_CHECK(st.seconds > 404.9e-9 && st.seconds < 405.1e-9);  /* 162 / 400 MHz = 405 ns */
    NPK_CHECK_EQ_U64(st.engine_busy[PCCX_ENG_MEMSET], 2);
    NPK_CHECK_EQ_U64(st.engine_busy[PCCX_ENG_MEM], 156);
    NPK_CHECK_EQ_U64(st.acp_bytes, 1024);  /* 16 * 64 words */
    NPK_CHECK_EQ_U64(st.port_b_busy, 0);

    /* reset forgets everything; the same program gives the same times */
    pccx_tm_reset(t);
    NPK_CHECK_EQ_U64(pccx_tm_count(t), 0);
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 0);
    NPK_CHECK(pccx_tm_record(t, 0) == NULL);
    NPK_CHECK_EQ_U64(pccx_tm_status(t), 0);
    NPK_CHECK_EQ_U64(pccx_tm_drain_time(t), 0);
    push(t, f_memset(PCCX_BANK_FMAP, 1));
    push(t, f_h2l(64, 0x10, 0, 1, 1));
    NPK_CHECK_EQ_U64(pccx_tm_drain_time(t), 162);
    TIMES(t, 0, 0, 1, 2, 4);
    TIMES(t, 1, 4, 5, 6, 162);
    memset(&st, 0, sizeof st);
    pccx_tm_stats(t, &st);
    NPK_CHECK_EQ_U64(st.engine_busy[PCCX_ENG_MEM], 156);
    pccx_tm_destroy(t);
}

/* ---- §11.4 hazards ------------------------------------------------------------------------ */

static void hazards_l2(void)
{
    pccx_tm *t;

    /* RAW: i0 h2l 64 words to word 0 (elements [0, 512)): s 2, c 2 + 156 = 158.
     * i1 EXP reads [0, 8) on the CVO engine: a 4, d 5, s = max(6, 158) = 158 (hazard wait
     * 152); R span(0, 8) = 1 word [158, 159); X 7 + 4 + 8 + 5 = 24: [159, 183); W 1: [183, 184) */
    t = mk();
    push(t, f_h2l(64, 0, 0, 1, 0));
    push(t, f_cvo(PCCX_CVO_EXP, 0, 8, 1024, 8, 0));
    pccx_tm_drain_time(t);
    TIMES(t, 0, 0, 1, 2, 158);
    TIMES(t, 1, 4, 5, 158, 184);
    PHASES(t, 1, 158, 159, 159, 183, 183, 184);
    NPK_CHECK_EQ_U64(hazard_wait(t, 1), 152);
    pccx_tm_destroy(t);

    /* WAW: i1 reads [1024, 1032) and writes [100, 108) inside i0's [0, 512): s 158 as above */
    t = mk();
    push(t, f_h2l(64, 0, 0, 1, 0));
    push(t, f_cvo(PCCX_CVO_EXP, 1024, 8, 100, 8, 0));
    pccx_tm_drain_time(t);
    TIMES(t, 1, 4, 5, 158, 185);
    /* w = span(100, 8) = floor(107 / 8) - floor(100 / 8) + 1 = 13 - 12 + 1 = 2: W [183, 185) */
    PHASES(t, 1, 158, 159, 159, 183, 183, 185);
    pccx_tm_destroy(t);

    /* WAR: i0 EXP reads [0, 512), writes [2048, 2560): R 64 [2, 66), X 7 + 256 + 8 + 5 = 276
     * [66, 342), W 64 [342, 406), c 406. i1 h2l writes word 0 ([0, 8)): s = 406, x = 13 + 40
     * + axi(1) = 55, c 461, hazard wait 406 - 6 = 400 */
    t = mk();
    push(t, f_cvo(PCCX_CVO_EXP, 0, 512, 2048, 512, 0));
    push(t, f_h2l(1, 0, 0, 1, 0));
    pccx_tm_drain_time(t);
    TIMES(t, 0, 0, 1, 2, 406);
    PHASES(t, 0, 2, 66, 66, 342, 342, 406);
    TIMES(t, 1, 4, 5, 406, 461);
    NPK_CHECK_EQ_U64(hazard_wait(t, 1), 400);
    pccx_tm_destroy(t);

    /* disjoint ranges on different engines overlap in time: i1 h2l to word 1000 ([8000, 8008))
     * starts at d + 1 = 6 and completes at 6 + 55 = 61, long before i0 (406) */
    t = mk();
    push(t, f_cvo(PCCX_CVO_EXP, 0, 512, 2048, 512, 0));
    push(t, f_h2l(1, 1000, 0, 1, 0));
    pccx_tm_drain_time(t);
    TIMES(t, 0, 0, 1, 2, 406);
    TIMES(t, 1, 4, 5, 6, 61);
    NPK_CHECK_EQ_U64(hazard_wait(t, 1), 0);
    pccx_tm_destroy(t);

    /* read after read is no hazard: i1 l2h reads [0, 8) which i0 also reads: s 6, x = 13 + 7 +
     * 2 + 40 = 62, c 68 */
    t = mk();
    push(t, f_cvo(PCCX_CVO_EXP, 0, 512, 2048, 512, 0));
    push(t, f_l2h(1, 0, 0, 1, 0));
    pccx_tm_drain_time(t);
    TIMES(t, 1, 4, 5, 6, 68);
    pccx_tm_destroy(t);

    /* element ranges: i0 COPY [96, 103) -> [0, 7): R span(96, 7) = 1 [2, 3), X 7 + ceil(7 / 2)
     * + 8 + 1 = 20 [3, 23), W span(0, 7) = 1 [23, 24), c 24. i1 l2h of word 0 reads elements
     * [0, 8), which overlaps [0, 7): a 4, d 5, s 24 (hazard wait 18), c 24 + 62 = 86 */
    t = mk();
    push(t, f_cvo(PCCX_CVO_COPY, 96, 7, 0, 7, 0));
    push(t, f_l2h(1, 0, 0, 1, 0));
    pccx_tm_drain_time(t);
    TIMES(t, 0, 0, 1, 2, 24);
    PHASES(t, 0, 2, 3, 3, 23, 23, 24);
    TIMES(t, 1, 4, 5, 24, 86);
    NPK_CHECK_EQ_U64(hazard_wait(t, 1), 18);
    pccx_tm_destroy(t);
    /* i0 COPY [96, 103) -> [1, 8) and i1 reading word 1 = [8, 16): adjacent, no hazard:
     * s 6, c 68 */
    t = mk();
    push(t, f_cvo(PCCX_CVO_COPY, 96, 7, 1, 7, 0));
    push(t, f_l2h(1, 1, 0, 1, 0));
    pccx_tm_drain_time(t);
    TIMES(t, 0, 0, 1, 2, 24);
    TIMES(t, 1, 4, 5, 6, 68);
    NPK_CHECK_EQ_U64(hazard_wait(t, 1), 0);
    pccx_tm_destroy(t);
}

static void hazards_other(void)
{
    pccx_tm *t;
    pccx_fp f;

    /* constant-cache WAR: i0 h2l reads fmap[2] (c 158); i1 MEMSET fmap[2] waits for it:
     * a 4, d 5, s = 158 (hazard wait 158 - 6 = 152), c 160. i2 MEMSET weight[2] (entry 66)
     * has no hazard but waits for the MEMSET engine: a 8, d 9, s = max(10, 160) = 160, c 162 */
    t = mk();
    push(t, f_h2l(64, 0, 0, 2, 0));
    push(t, f_memset(PCCX_BANK_FMAP, 2));
    push(t, f_memset(PCCX_BANK_WEIGHT, 2));
    pccx_tm_drain_time(t);
    TIMES(t, 1, 4, 5, 158, 160);
    NPK_CHECK_EQ_U64(hazard_wait(t, 1), 152);
    TIMES(t, 2, 8, 9, 160, 162);
    NPK_CHECK_EQ_U64(hazard_wait(t, 2), 0);
    pccx_tm_destroy(t);

    /* constant-cache RAW on a GEMV's size_ptr (cc_rd[1]) with a fast writer: i0 MEMSET
     * fmap[3] s 2, c 4; i1 GEMV K = N = 8 reading fmap[3]: a 4, d 5, s = max(6, 4) = 6;
     * R [6, 7), X 63 [7, 70), W [70, 71) */
    t = mk();
    push(t, f_memset(PCCX_BANK_FMAP, 3));
    f = f_gemv(8, 8, 0, 16);
    f.cc_rd[0] = 4;
    f.cc_rd[1] = 3;
    push(t, f);
    pccx_tm_drain_time(t);
    TIMES(t, 1, 4, 5, 6, 71);
    NPK_CHECK_EQ_U64(hazard_wait(t, 1), 0);
    pccx_tm_destroy(t);
    /* ... and a slow writer of that entry: i0 l2h reads fmap[3] (c 2 + 163 = 165), i1 MEMSET
     * fmap[3] (WAR: s 165, c 167), i2 GEMV reading fmap[3] through cc_rd[1] (RAW on i1):
     * a 8, d 9, s 167 (hazard wait 157); R [167, 168), X 63 [168, 231), W [231, 232) */
    t = mk();
    push(t, f_l2h(64, 0, 0, 3, 0));
    push(t, f_memset(PCCX_BANK_FMAP, 3));
    push(t, f);
    pccx_tm_drain_time(t);
    TIMES(t, 1, 4, 5, 165, 167);
    TIMES(t, 2, 8, 9, 167, 232);
    NPK_CHECK_EQ_U64(hazard_wait(t, 2), 157);
    PHASES(t, 2, 167, 168, 168, 231, 231, 232);
    pccx_tm_destroy(t);

    /* E_MAX RAW: i0 GEMV K = N = 8 findemax (word 0 -> word 16): r 1, x = 7 + max(2, 40 +
     * axi(5) = 48) + 8 = 63, w 1: R [2, 3), X [3, 66), W [66, 67), c 67. i1 EXP sub_emax on
     * other ranges waits for it: a 4, d 5, s 67 (hazard wait 61), R [67, 68), X [68, 92),
     * W [92, 93) */
    t = mk();
    f = f_gemv(8, 8, 0, 16);
    f.emax_wr = 1;
    push(t, f);
    pccx_fp e = f_cvo(PCCX_CVO_EXP, 1024, 8, 2048, 8, 0);
    e.emax_rd = 1;
    push(t, e);
    pccx_tm_drain_time(t);
    TIMES(t, 0, 0, 1, 2, 67);
    PHASES(t, 0, 2, 3, 3, 66, 66, 67);
    TIMES(t, 1, 4, 5, 67, 93);
    NPK_CHECK_EQ_U64(hazard_wait(t, 1), 61);
    pccx_tm_destroy(t);
    /* the same EXP without sub_emax does not wait: R [6, 7), X [7, 31), W [31, 32) */
    t = mk();
    push(t, f);
    push(t, f_cvo(PCCX_CVO_EXP, 1024, 8, 2048, 8, 0));
    pccx_tm_drain_time(t);
    TIMES(t, 1, 4, 5, 6, 32);
    TIMES(t, 0, 0, 1, 2, 67);
    pccx_tm_destroy(t);
    /* E_MAX WAR: i0 EXP sub_emax [0, 8) -> [1024, 1032): R [2, 3), X [3, 27), W [27, 28).
     * i1 GEMV findemax (word 100 -> word 200) waits: s 28 (hazard wait 28 - 6 = 22), R [28, 29),
     * X [29, 92), W [92, 93) */
    t = mk();
    e = f_cvo(PCCX_CVO_EXP, 0, 8, 1024, 8, 0);
    e.emax_rd = 1;
    push(t, e);
    f = f_gemv(8, 8, 100, 200);
    f.emax_wr = 1;
    push(t, f);
    pccx_tm_drain_time(t);
    TIMES(t, 0, 0, 1, 2, 28);
    TIMES(t, 1, 4, 5, 28, 93);
    NPK_CHECK_EQ_U64(hazard_wait(t, 1), 22);
    pccx_tm_destroy(t);

    /* host RAW: i0 l2h 64 words to host bytes [0, 1024): x 163, s 2, c 165. i1 GEMV on a BF16
     * view reading host bytes [0, 128) (K = N = 8): B = 8 * 1 = 8, T_w = 40 + axi(4) = 47,
     * x = 7 + 47 + 8 = 62; s 165 (hazard wait 159), R [165, 166), X [166, 228), W [228, 229) */
    t = mk();
    push(t, f_l2h(64, 0, 0, 1, 0));
    f = f_gemv(8, 8, 512, 1024);
    f.weight_view = 1;
    f.host_rd = rg(0, 128);
    push(t, f);
    pccx_tm_drain_time(t);
    TIMES(t, 0, 0, 1, 2, 165);
    TIMES(t, 1, 4, 5, 165, 229);
    NPK_CHECK_EQ_U64(hazard_wait(t, 1), 159);
    pccx_tm_destroy(t);
    /* host WAR: i0 that view GEMV alone: R [2, 3), X [3, 65), W [65, 66). i1 l2h of one word
     * to host bytes [64, 80): s 66 (hazard wait 60), x 62, c 128 */
    t = mk();
    push(t, f);
    push(t, f_l2h(1, 2000, 64, 1, 0));
    pccx_tm_drain_time(t);
    TIMES(t, 0, 0, 1, 2, 66);
    TIMES(t, 1, 4, 5, 66, 128);
    NPK_CHECK_EQ_U64(hazard_wait(t, 1), 60);
    pccx_tm_destroy(t);
    /* host bytes [128, 144) are disjoint: s 6, c 68 */
    t = mk();
    push(t, f);
    push(t, f_l2h(1, 2000, 128, 1, 0));
    pccx_tm_drain_time(t);
    TIMES(t, 1, 4, 5, 6, 68);
    pccx_tm_destroy(t);
}

/* ---- §11.3 port B ------------------------------------------------------------------------- */

static void port_b(void)
{
    pccx_tm *t;

    /* A later-pushed instruction that requests earlier is granted first. i0 GEMV K = N = 8:
     * R [2, 3), X [3, 66), W requested at 66. The host works 20 cycles (host clock 24), reads
     * the status (BUSY; everything up to 24 is final), then pushes i1, an L2 -> L2 copy of 64
     * words: a 24, d 25, s 26, R requested at 26 and granted [26, 90). i0's W, requested at
     * 66, waits for the port: W [90, 91), c 91. i1: X 20 [90, 110), c 110 */
    t = mk();
    push(t, f_gemv(8, 8, 0, 16));
    pccx_tm_host_advance(t, 20);
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 24);
    NPK_CHECK_EQ_U64(pccx_tm_status(t), PCCX_STATUS_BUSY);
    push(t, f_l2l(64, 1000, 2000));
    pccx_tm_drain_time(t);
    TIMES(t, 0, 0, 1, 2, 91);
    PHASES(t, 0, 2, 3, 3, 66, 90, 91);
    TIMES(t, 1, 24, 25, 26, 110);
    PHASES(t, 1, 26, 90, 90, 110, 110, 110);
    pccx_stats_t st;
    memset(&st, 0, sizeof st);
    pccx_tm_stats(t, &st);
    NPK_CHECK_EQ_U64(st.port_b_busy, 1 + 64 + 1);
    pccx_tm_destroy(t);

    /* the same with a sync that times out instead of the status read: sync(20) at host clock 4
     * returns -1 and leaves the host clock at 24 */
    t = mk();
    push(t, f_gemv(8, 8, 0, 16));
    NPK_CHECK(pccx_tm_sync(t, 20) == -1);
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 24);
    push(t, f_l2l(64, 1000, 2000));
    NPK_CHECK(pccx_tm_sync(t, 0) == 0);
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 110);
    PHASES(t, 0, 2, 3, 3, 66, 90, 91);
    PHASES(t, 1, 26, 90, 90, 110, 110, 110);
    pccx_tm_destroy(t);

    /* pushed before it is requested: i1 (L2 -> L2, 64 words) pushed with the host clock at 4,
     * so a 4, d 5, s 6, R [6, 70); i0 (EXP [0, 8) -> [1024, 1032)): R [2, 3), X [3, 27), its W
     * requested at 27 waits until 70: W [70, 71), c 71 */
    t = mk();
    push(t, f_cvo(PCCX_CVO_EXP, 0, 8, 1024, 8, 0));
    push(t, f_l2l(64, 1000, 2000));
    pccx_tm_drain_time(t);
    PHASES(t, 0, 2, 3, 3, 27, 70, 71);
    PHASES(t, 1, 6, 70, 70, 90, 90, 90);
    pccx_tm_destroy(t);

    /* Tie, earlier instruction's W first: i0 GEMV K = N = 8, W requested at 66. i1 h2l of 4
     * words to word 2000: s 6, x = 13 + 40 + axi(4) = 13 + 40 + 7 = 60, c 66. i2 EXP reads
     * [16000, 16008) (RAW on i1): a 8, d 9, s 66, R requested at 66 too. Program order: i0's
     * W [66, 67), then i2's R [67, 68), X [68, 92), W [92, 93) */
    t = mk();
    push(t, f_gemv(8, 8, 0, 16));
    push(t, f_h2l(4, 2000, 0, 1, 0));
    push(t, f_cvo(PCCX_CVO_EXP, 16000, 8, 20000, 8, 0));
    pccx_tm_drain_time(t);
    TIMES(t, 1, 4, 5, 6, 66);
    PHASES(t, 0, 2, 3, 3, 66, 66, 67);
    TIMES(t, 2, 8, 9, 66, 93);
    PHASES(t, 2, 67, 68, 68, 92, 92, 93);
    NPK_CHECK_EQ_U64(hazard_wait(t, 2), 56);  /* 66 - (9 + 1) */
    pccx_tm_destroy(t);

    /* Tie, earlier instruction's R first: i0 l2h of 7 words from word 2000: x = 13 + 7 +
     * axi(7) + 40 = 13 + 7 + 12 + 40 = 72, s 2, c 74. i1 EXP [8192, 8200) -> [16000, 16008)
     * (WAR on i0): s 74, R requested at 74. i2 GEMV K = N = 8: a 8, d 9, s 10, R [10, 11),
     * X [11, 74), W requested at 74. Program order: i1's R [74, 75), i2's W [75, 76), c 76;
     * i1: X [75, 99), W [99, 100) */
    t = mk();
    push(t, f_l2h(7, 2000, 0, 1, 0));
    push(t, f_cvo(PCCX_CVO_EXP, 8192, 8, 16000, 8, 0));
    push(t, f_gemv(8, 8, 0, 16));
    pccx_tm_drain_time(t);
    TIMES(t, 0, 0, 1, 2, 74);
    TIMES(t, 1, 4, 5, 74, 100);
    PHASES(t, 1, 74, 75, 75, 99, 99, 100);
    TIMES(t, 2, 8, 9, 10, 76);
    PHASES(t, 2, 10, 11, 11, 74, 75, 76);
    pccx_tm_destroy(t);
}

/* ---- §11.2 front-end ---------------------------------------------------------------------- */

static void fifo_and_queue(void)
{
    /* 20 async h2l copies of 64 words (MEM engine, x 156 each, no hazards: disjoint L2 and host
     * ranges, shared reads of fmap[1]). The engine runs them back to back:
     *   s_k = 2 + 156k, c_k = 158 + 156k.
     * Engine queue (depth 8): q_k = s_{k-8}. Command FIFO (depth 8): a_k = max(h_k, d_{k-8} + 1).
     *   k <= 8:  a_k = h_k = 4k, d_k = 4k + 1 (d_8 = 33 >= q_8 = s_0 = 2).
     *   k = 9:   d_9 = max(37, 34, s_1 = 158) = 158: queue-full stall 158 - 37 = 121.
     *   k >= 10: d_k = s_{k-8} = 2 + 156(k - 8); the other terms are at most d_{k-1} + 1, so
     *            each adds 156 - 1 = 155 of queue-full stall (10 instructions: 1550).
     *   k <= 16: h_k = 4k >= d_{k-8} + 1, no FIFO stall.
     *   k = 17:  h 68, a = d_9 + 1 = 159 (stall 91), host clock 163;
     *   k = 18:  h 163, a = d_10 + 1 = 315 (stall 152), host clock 319;
     *   k = 19:  h 319, a = d_11 + 1 = 471 (stall 152), host clock 475.
     * Totals: FIFO 91 + 152 + 152 = 395, queue 121 + 1550 = 1671; the program ends at
     * c_19 = 158 + 156 * 19 = 3122; MEM busy 20 * 156 = 3120. */
    pccx_tm *t = mk();
    for (uint64_t k = 0; k < 20; k++)
        push(t, f_h2l(64, 1024 * k, 1024 * k, 1, 0));
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 475);
    /* at host clock 475: s_3 = 470 has started, c_2 = 470 is done -> BUSY */
    NPK_CHECK_EQ_U64(pccx_tm_status(t), PCCX_STATUS_BUSY);
    NPK_CHECK_EQ_U64(pccx_tm_drain_time(t), 3122);
    TIMES(t, 0, 0, 1, 2, 158);
    TIMES(t, 8, 32, 33, 2 + 156 * 8, 158 + 156 * 8);
    TIMES(t, 9, 36, 158, 2 + 156 * 9, 158 + 156 * 9);
    TIMES(t, 10, 40, 314, 2 + 156 * 10, 158 + 156 * 10);
    TIMES(t, 16, 64, 2 + 156 * 8, 2 + 156 * 16, 158 + 156 * 16);
    NPK_CHECK_EQ_U64(pccx_tm_record(t, 16)->h, 64);
    TIMES(t, 17, 159, 2 + 156 * 9, 2 + 156 * 17, 158 + 156 * 17);
    NPK_CHECK_EQ_U64(pccx_tm_record(t, 17)->h, 68);
    TIMES(t, 18, 315, 2 + 156 * 10, 2 + 156 * 18, 158 + 156 * 18);
    NPK_CHECK_EQ_U64(pccx_tm_record(t, 18)->h, 163);
    TIMES(t, 19, 471, 2 + 156 * 11, 2 + 156 * 19, 3122);
    NPK_CHECK_EQ_U64(pccx_tm_record(t, 19)->h, 319);
    pccx_stats_t st;
    memset(&st, 0, sizeof st);
    pccx_tm_stats(t, &st);
    NPK_CHECK_EQ_U64(st.stall_fifo_full, 395);
    NPK_CHECK_EQ_U64(st.stall_queue_full, 1671);
    NPK_CHECK_EQ_U64(st.stall_sync_wait, 0);
    NPK_CHECK_EQ_U64(st.hazard_wait, 0);
    NPK_CHECK_EQ_U64(st.cycles, 3122);
    NPK_CHECK_EQ_U64(st.engine_busy[PCCX_ENG_MEM], 3120);
    NPK_CHECK_EQ_U64(st.engine_insns[PCCX_ENG_MEM], 20);
    NPK_CHECK_EQ_U64(st.acp_bytes, 20 * 1024);
    pccx_tm_destroy(t);

    /* small depths: FIFO 2, queue 1. Three MEMSETs then a MEMCPY... all MEMSETs:
     * i0 a 0 d 1 s 2 c 4; i1 a 4, d = max(5, 2, q = s_0 = 2) = 5, s = max(6, 4) = 6, c 8;
     * i2 h 8, a = max(8, d_0 + 1 = 2) = 8, d 9, s 10, c 12. Host-bound, no stall. With a slow
     * engine instead (h2l x 156): i0 s 2 c 158; i1 a 4, d = max(5, 2, s_0 = 2) = 5, s 158, c 314;
     * i2 h 8, a = max(8, d_0 + 1) = 8, d = max(9, 6, s_1 = 158) = 158 (queue stall 149),
     * s 314, c 470; i3 h 12, a = max(12, d_1 + 1 = 6) = 12, d = max(13, 159, s_2 = 314) = 314
     * (queue stall 155); i4 h 16, a = max(16, d_2 + 1 = 159) = 159 (FIFO stall 143), d =
     * max(160, 315, s_3 = 470) = 470 (queue stall 155), host clock 163 */
    pccx_timing_t p;
    pccx_timing_default(&p);
    p.cmd_fifo_depth = 2;
    p.engine_queue_depth = 1;
    t = mk_with(&p);
    for (uint64_t k = 0; k < 5; k++)
        push(t, f_h2l(64, 1024 * k, 1024 * k, 1, 0));
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 163);
    NPK_CHECK_EQ_U64(pccx_tm_drain_time(t), 158 + 4 * 156);
    TIMES(t, 1, 4, 5, 158, 314);
    TIMES(t, 2, 8, 158, 314, 470);
    TIMES(t, 3, 12, 314, 470, 626);
    TIMES(t, 4, 159, 470, 626, 782);
    memset(&st, 0, sizeof st);
    pccx_tm_stats(t, &st);
    NPK_CHECK_EQ_U64(st.stall_fifo_full, 143);
    NPK_CHECK_EQ_U64(st.stall_queue_full, 149 + 155 + 155);
    pccx_tm_destroy(t);
}

static void sync_wait(void)
{
    pccx_tm *t;
    pccx_stats_t st;

    /* sync h2l (c 158): the following MEMSET decodes only at 158 (sync stall 158 - 5 = 153),
     * s 159, c 161 */
    t = mk();
    push(t, f_h2l(64, 0, 0, 1, 1));
    push(t, f_memset(PCCX_BANK_FMAP, 9));
    pccx_tm_drain_time(t);
    TIMES(t, 1, 4, 158, 159, 161);
    memset(&st, 0, sizeof st);
    pccx_tm_stats(t, &st);
    NPK_CHECK_EQ_U64(st.stall_sync_wait, 153);
    NPK_CHECK_EQ_U64(st.hazard_wait, 0);
    pccx_tm_destroy(t);

    /* async: no wait, MEMSET d 5, s 6, c 8 */
    t = mk();
    push(t, f_h2l(64, 0, 0, 1, 0));
    push(t, f_memset(PCCX_BANK_FMAP, 9));
    pccx_tm_drain_time(t);
    TIMES(t, 1, 4, 5, 6, 8);
    memset(&st, 0, sizeof st);
    pccx_tm_stats(t, &st);
    NPK_CHECK_EQ_U64(st.stall_sync_wait, 0);
    pccx_tm_destroy(t);

    /* sync CVO EXP [0, 8) -> [1024, 1032): R [2, 3), X [3, 27), W [27, 28), c 28; the MEMSET:
     * d = 28 (stall 23), s 29, c 31; a third instruction (MEMSET) d = max(9, 29, 28) = 29,
     * no sync stall of its own (the d_{i-1} term already covers it), s = max(30, 31) = 31 */
    t = mk();
    push(t, f_cvo(PCCX_CVO_EXP, 0, 8, 1024, 8, 1));
    push(t, f_memset(PCCX_BANK_FMAP, 9));
    push(t, f_memset(PCCX_BANK_FMAP, 10));
    pccx_tm_drain_time(t);
    TIMES(t, 0, 0, 1, 2, 28);
    TIMES(t, 1, 4, 28, 29, 31);
    TIMES(t, 2, 8, 29, 31, 33);
    memset(&st, 0, sizeof st);
    pccx_tm_stats(t, &st);
    NPK_CHECK_EQ_U64(st.stall_sync_wait, 23);
    pccx_tm_destroy(t);

    /* async CVO: the MEMSET goes on at d 5 */
    t = mk();
    push(t, f_cvo(PCCX_CVO_EXP, 0, 8, 1024, 8, 0));
    push(t, f_memset(PCCX_BANK_FMAP, 9));
    pccx_tm_drain_time(t);
    TIMES(t, 1, 4, 5, 6, 8);
    pccx_tm_destroy(t);

    /* the sync flag means nothing on GEMV / MEMSET (they never block the front-end) */
    t = mk();
    pccx_fp g = f_gemv(8, 8, 0, 16);
    g.sync = 1;
    push(t, g);
    push(t, f_memset(PCCX_BANK_FMAP, 9));
    pccx_tm_drain_time(t);
    TIMES(t, 1, 4, 5, 6, 8);
    pccx_tm_destroy(t);
}

static void dropped(void)
{
    pccx_tm *t;
    pccx_stats_t st;

    /* MEMSET, dropped, MEMSET: the dropped word gets a 4, d 5 and c = d = 5, no engine; the
     * next MEMSET a 8, d 9, s 10, c 12 */
    t = mk();
    push(t, f_memset(PCCX_BANK_FMAP, 1));
    push(t, f_dropped());
    push(t, f_memset(PCCX_BANK_FMAP, 2));
    NPK_CHECK_EQ_U64(pccx_tm_drain_time(t), 12);
    TIMES(t, 1, 4, 5, 5, 5);
    NPK_CHECK_EQ_U64(pccx_tm_record(t, 1)->engine, -1);
    TIMES(t, 2, 8, 9, 10, 12);
    memset(&st, 0, sizeof st);
    pccx_tm_stats(t, &st);
    NPK_CHECK_EQ_U64(st.dropped, 1);
    NPK_CHECK_EQ_U64(st.engine_insns[PCCX_ENG_MEMSET], 2);
    NPK_CHECK_EQ_U64(st.engine_busy[PCCX_ENG_MEMSET], 4);
    pccx_tm_destroy(t);

    /* a dropped word still waits in the front-end behind a sync h2l: d = c = 158; the next
     * MEMSET d 159, s 160, c 162 */
    t = mk();
    push(t, f_h2l(64, 0, 0, 1, 1));
    push(t, f_dropped());
    push(t, f_memset(PCCX_BANK_FMAP, 2));
    NPK_CHECK_EQ_U64(pccx_tm_drain_time(t), 162);
    TIMES(t, 1, 4, 158, 158, 158);
    TIMES(t, 2, 8, 159, 160, 162);
    pccx_tm_destroy(t);

    /* a program of one dropped word ends at its decode: 1 */
    t = mk();
    push(t, f_dropped());
    NPK_CHECK_EQ_U64(pccx_tm_drain_time(t), 1);
    NPK_CHECK_EQ_U64(pccx_tm_status(t), PCCX_STATUS_DONE);
    pccx_tm_destroy(t);
}

/* ---- §10 / §11.5 status, host clock, sync budgets ----------------------------------------- */

static void status_and_sync(void)
{
    pccx_tm *t = mk();
    NPK_CHECK_EQ_U64(pccx_tm_status(t), 0);  /* reset: neither BUSY nor DONE */
    /* h2l 64 words: a 0, d 1, s 2, c 158; host clock 4 */
    push(t, f_h2l(64, 0, 0, 1, 0));
    NPK_CHECK_EQ_U64(pccx_tm_status(t), PCCX_STATUS_BUSY);  /* at 4 */
    pccx_tm_host_advance(t, 153);
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 157);
    NPK_CHECK_EQ_U64(pccx_tm_status(t), PCCX_STATUS_BUSY);  /* 157 < c = 158 */
    pccx_tm_host_advance(t, 1);
    NPK_CHECK_EQ_U64(pccx_tm_status(t), PCCX_STATUS_DONE);  /* at 158: c > t fails */
    NPK_CHECK(pccx_tm_record(t, 0)->done);
    pccx_tm_host_advance(t, 100);
    NPK_CHECK_EQ_U64(pccx_tm_status(t), PCCX_STATUS_DONE);  /* sticky, at 258 */
    /* MEMSET pushed at 258: a 258, d 259, s 260, c 262, host clock 262 -> idle again, DONE */
    push(t, f_memset(PCCX_BANK_FMAP, 5));
    NPK_CHECK(!pccx_tm_record(t, 1)->done);  /* the model has not run past 258 yet */
    NPK_CHECK_EQ_U64(pccx_tm_status(t), PCCX_STATUS_DONE);
    TIMES(t, 1, 258, 259, 260, 262);
    NPK_CHECK_EQ_U64(pccx_tm_record(t, 1)->h, 258);
    /* the next push clears DONE: h2l at 262: a 262, d 263, s 264, c 420; host clock 266 */
    push(t, f_h2l(64, 0, 0, 1, 0));
    NPK_CHECK_EQ_U64(pccx_tm_status(t), PCCX_STATUS_BUSY);
    NPK_CHECK(!pccx_tm_record(t, 2)->done);

    /* sync with too small budgets: -1 and the host clock moves by the budget */
    NPK_CHECK(pccx_tm_sync(t, 100) == -1);
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 366);
    NPK_CHECK(pccx_tm_sync(t, 53) == -1);  /* 366 + 53 = 419 < 420 */
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 419);
    NPK_CHECK_EQ_U64(pccx_tm_status(t), PCCX_STATUS_BUSY);
    /* enough: completes at 420 <= 419 + 1, host clock 420 */
    NPK_CHECK(pccx_tm_sync(t, 1) == 0);
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 420);
    TIMES(t, 2, 262, 263, 264, 420);
    NPK_CHECK_EQ_U64(pccx_tm_status(t), PCCX_STATUS_DONE);
    /* nothing outstanding: sync returns at once without moving the clock */
    NPK_CHECK(pccx_tm_sync(t, 10) == 0);
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 420);
    NPK_CHECK(pccx_tm_sync(t, 0) == 0);
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 420);
    /* a generous budget: the clock goes to the completion, not to clock + budget.
     * h2l at 420: a 420, d 421, s 422, c 578 */
    push(t, f_h2l(64, 0, 0, 1, 0));
    NPK_CHECK(pccx_tm_sync(t, 1000) == 0);
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 578);
    /* host work before a push: the push happens at the advanced clock */
    pccx_tm_host_advance(t, 22);
    push(t, f_memset(PCCX_BANK_FMAP, 5));
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 604);
    /* drain runs the model to the end without moving the host clock */
    NPK_CHECK_EQ_U64(pccx_tm_drain_time(t), 604);
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 604);
    TIMES(t, 4, 600, 601, 602, 604);
    NPK_CHECK_EQ_U64(pccx_tm_record(t, 4)->h, 600);
    pccx_tm_destroy(t);
}

/* drain_time makes everything final up to the end without moving the host clock; a push
 * afterwards at an earlier host clock is decoded no earlier than that end (documented in
 * timing.h). h2l: c 158, host clock 4 after the drain; MEMSET pushed at 4: a 4, decode
 * max(5, 2) = 5 is before the drained end, so d 158, s 159, c 161. */
static void drain_then_push(void)
{
    pccx_tm *t = mk();
    push(t, f_h2l(64, 0, 0, 1, 0));
    NPK_CHECK_EQ_U64(pccx_tm_drain_time(t), 158);
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 4);
    push(t, f_memset(PCCX_BANK_FMAP, 7));
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 8);
    NPK_CHECK_EQ_U64(pccx_tm_drain_time(t), 161);
    TIMES(t, 1, 4, 158, 159, 161);
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 8);
    pccx_tm_destroy(t);
}

/* ---- §11.5 statistics --------------------------------------------------------------------- */

static void statistics(void)
{
    /* i0 MEMSET fmap[1]:                     a 0, d 1, s 2, c 4
     * i1 h2l sync 64 words -> word 0x40 ([512, 1024)), fmap[1]: a 4, d 5, s 6, c 162
     * i2 GEMV K 8, N 4, word 0x40 -> word 0x100 ([2048, 2052)), findemax: a 8,
     *    d = max(9, 6, y = 162) = 162 (sync stall 153); s = max(163, RAW on i1: 162) = 163;
     *    r 1, B = 4 * 1 + ceil(4 / 4) = 5, T_w = 40 + axi(ceil(5 / 2) = 3) = 40 + 5 = 45,
     *    x = 7 + 45 + 8 = 60, w 1: R [163, 164), X [164, 224), W [224, 225), c 225
     * i3 EXP sub_emax [2048, 2052) -> [2049, 2053): a 12, d = max(13, 163, y 162) = 163 (no
     *    sync stall: y is not beyond d_{i-1} + 1); s = max(164, RAW i2 225) = 225 (hazard 61);
     *    r = span(2048, 4) = 1, x = 7 + 2 + 8 + 5 = 22, w = span(2049, 4) = 1:
     *    R [225, 226), X [226, 248), W [248, 249), c 249
     * i4 l2h async 1 word from word 0x100 ([2048, 2056)) to host bytes [4096, 4112): a 16,
     *    d 164; s = max(165, c_prev MEM 162, RAW i2 225, RAW i3 249) = 249 (hazard 84);
     *    x = 13 + 7 + 2 + 40 = 62, c 311
     * Totals: cycles 311; busy MEMSET 2, MEM 156 + 62 = 218, GEMV 225 - 163 = 62, CVO 24;
     * port B 1 + 1 + 1 + 1 = 4; ACP 16 * (64 + 1) = 1040; HP: 5 beats over HP2, HP3 starting
     * with HP2: 3 and 2 beats = 48 and 32 bytes; stalls: FIFO 0, queue 0, sync 153; hazard
     * wait 61 + 84 = 145. */
    pccx_tm *t = mk();
    push(t, f_memset(PCCX_BANK_FMAP, 1));
    push(t, f_h2l(64, 0x40, 0, 1, 1));
    pccx_fp g = f_gemv(8, 4, 0x40, 0x100);
    g.emax_wr = 1;
    g.cc_rd[0] = 1;
    g.cc_rd[1] = 2;
    push(t, g);
    pccx_fp e = f_cvo(PCCX_CVO_EXP, 2048, 4, 2049, 4, 0);
    e.emax_rd = 1;
    push(t, e);
    push(t, f_l2h(1, 0x100, 4096, 1, 0));
    NPK_CHECK_EQ_U64(pccx_tm_host_clock(t), 20);

    /* statistics cover final records only: at host clock 20 only the MEMSET is done */
    pccx_stats_t st;
    memset(&st, 0, sizeof st);
    NPK_CHECK_EQ_U64(pccx_tm_status(t), PCCX_STATUS_BUSY);
    pccx_tm_stats(t, &st);
    NPK_CHECK_EQ_U64(st.cycles, 4);
    NPK_CHECK_EQ_U64(st.engine_insns[PCCX_ENG_MEMSET], 1);
    NPK_CHECK_EQ_U64(st.engine_insns[PCCX_ENG_MEM], 0);

    NPK_CHECK_EQ_U64(pccx_tm_drain_time(t), 311);
    TIMES(t, 0, 0, 1, 2, 4);
    TIMES(t, 1, 4, 5, 6, 162);
    TIMES(t, 2, 8, 162, 163, 225);
    PHASES(t, 2, 163, 164, 164, 224, 224, 225);
    TIMES(t, 3, 12, 163, 225, 249);
    PHASES(t, 3, 225, 226, 226, 248, 248, 249);
    TIMES(t, 4, 16, 164, 249, 311);
    NPK_CHECK_EQ_U64(hazard_wait(t, 3), 61);
    NPK_CHECK_EQ_U64(hazard_wait(t, 4), 84);
    NPK_CHECK_EQ_U64(pccx_tm_record(t, 2)->r, 1);
    NPK_CHECK_EQ_U64(pccx_tm_record(t, 2)->w, 1);

    memset(&st, 0, sizeof st);
    st.insns = 77;              /* the machine's fields are left alone */
    st.weights_streamed = 78;
    st.macs = 79;
    pccx_tm_stats(t, &st);
    NPK_CHECK_EQ_U64(st.insns, 77);
    NPK_CHECK_EQ_U64(st.weights_streamed, 78);
    NPK_CHECK_EQ_U64(st.macs, 79);
    NPK_CHECK_EQ_U64(st.cycles, 311);
    NPK_CHECK(st.seconds > 777.4e-9 && st.seconds < 777.6e-9);  /* 311 / 400 MHz = 777.5 ns */
    NPK_CHECK_EQ_U64(st.dropped, 0);
    NPK_CHECK_EQ_U64(st.engine_busy[PCCX_ENG_MEMSET], 2);
    NPK_CHECK_EQ_U64(st.engine_busy[PCCX_ENG_MEM], 218);
    NPK_CHECK_EQ_U64(st.engine_busy[PCCX_ENG_GEMV], 62);
    NPK_CHECK_EQ_U64(st.engine_busy[PCCX_ENG_GEMM], 0);
    NPK_CHECK_EQ_U64(st.engine_busy[PCCX_ENG_CVO], 24);
    NPK_CHECK_EQ_U64(st.engine_insns[PCCX_ENG_MEMSET], 1);
    NPK_CHECK_EQ_U64(st.engine_insns[PCCX_ENG_MEM], 2);
    NPK_CHECK_EQ_U64(st.engine_insns[PCCX_ENG_GEMV], 1);
    NPK_CHECK_EQ_U64(st.engine_insns[PCCX_ENG_GEMM], 0);
    NPK_CHECK_EQ_U64(st.engine_insns[PCCX_ENG_CVO], 1);
    NPK_CHECK_EQ_U64(st.port_b_busy, 4);
    NPK_CHECK_EQ_U64(st.acp_bytes, 1040);
    NPK_CHECK_EQ_U64(st.hp_bytes[0], 0);
    NPK_CHECK_EQ_U64(st.hp_bytes[1], 0);
    NPK_CHECK_EQ_U64(st.hp_bytes[2], 48);
    NPK_CHECK_EQ_U64(st.hp_bytes[3], 32);
    NPK_CHECK_EQ_U64(st.stall_fifo_full, 0);
    NPK_CHECK_EQ_U64(st.stall_queue_full, 0);
    NPK_CHECK_EQ_U64(st.stall_sync_wait, 153);
    NPK_CHECK_EQ_U64(st.hazard_wait, 145);
    pccx_tm_destroy(t);

    /* GEMM M 1, K 32, N 4 streams over HP0 + HP1: B = 4 + 1 = 5 beats, 3 on HP0 (48 bytes),
     * 2 on HP1 (32); r 4, x = 7 + max(1, 45) + 68 = 120, w 1: R [2, 6), X [6, 126),
     * W [126, 127); busy 125, port B 5 */
    t = mk();
    push(t, f_mm(PCCX_FP_GEMM, 1, 32, 4, 0, 100, 0));
    NPK_CHECK_EQ_U64(pccx_tm_drain_time(t), 127);
    PHASES(t, 0, 2, 6, 6, 126, 126, 127);
    memset(&st, 0, sizeof st);
    pccx_tm_stats(t, &st);
    NPK_CHECK_EQ_U64(st.hp_bytes[0], 48);
    NPK_CHECK_EQ_U64(st.hp_bytes[1], 32);
    NPK_CHECK_EQ_U64(st.hp_bytes[2], 0);
    NPK_CHECK_EQ_U64(st.engine_busy[PCCX_ENG_GEMM], 125);
    NPK_CHECK_EQ_U64(st.port_b_busy, 5);
    pccx_tm_destroy(t);

    /* a single weight port (gemv_ports 0x2 = HP1): B = 5 beats all on HP1 (80 bytes), T_w =
     * 40 + axi(5) = 48, x = 7 + 48 + 8 = 63 */
    pccx_timing_t p;
    pccx_timing_default(&p);
    p.gemv_ports = 0x2;
    RXW(&p, f_gemv(8, 4, 0, 16), PCCX_ENG_GEMV, 1, 63, 1);
    t = mk_with(&p);
    push(t, f_gemv(8, 4, 0, 16));
    pccx_tm_drain_time(t);
    memset(&st, 0, sizeof st);
    pccx_tm_stats(t, &st);
    NPK_CHECK_EQ_U64(st.hp_bytes[1], 80);
    NPK_CHECK_EQ_U64(st.hp_bytes[2] + st.hp_bytes[3], 0);
    pccx_tm_destroy(t);
}

/* ---- scale -------------------------------------------------------------------------------- */

static void long_program(void)
{
    /* 100,000 async EXPs [0, 8) -> [1024, 1032) on the CVO engine, each R 1 + X 24 + W 1 = 26
     * cycles, back to back (the engine is slower than the host's 4 cycles per push; the queue
     * and FIFO keep the front-end behind s_{k-8} < c_{k-1}): s_k = 2 + 26k, c_k = 28 + 26k;
     * the last completes at 28 + 26 * 99999 = 2600002. */
    pccx_tm *t = mk();
    const pccx_tm_rec *first = NULL;
    clock_t t0 = clock();
    for (uint64_t k = 0; k < 100000; k++) {
        push(t, f_cvo(PCCX_CVO_EXP, 0, 8, 1024, 8, 0));
        if (k == 0)
            first = pccx_tm_record(t, 0);
    }
    NPK_CHECK_EQ_U64(pccx_tm_drain_time(t), 2600002);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    printf("100000 pushes + drain: %.3f s\n", secs);
    NPK_CHECK(first == pccx_tm_record(t, 0));  /* records do not move */
    TIMES(t, 0, 0, 1, 2, 28);
    NPK_CHECK_EQ_U64(pccx_tm_record(t, 99999)->s, 2 + 26 * 99999);
    NPK_CHECK(pccx_tm_record(t, 100000) == NULL);
    pccx_stats_t st;
    memset(&st, 0, sizeof st);
    pccx_tm_stats(t, &st);
    NPK_CHECK_EQ_U64(st.engine_insns[PCCX_ENG_CVO], 100000);
    NPK_CHECK_EQ_U64(st.engine_busy[PCCX_ENG_CVO], 2600000);
    NPK_CHECK_EQ_U64(st.port_b_busy, 200000);
    NPK_CHECK_EQ_U64(st.hazard_wait, 0);  /* the WAW/RAW chain is on one engine */
    NPK_CHECK(st.stall_queue_full > 0 && st.stall_fifo_full > 0);
    pccx_tm_destroy(t);

    /* a mixed stream on all engines (status reads in between): every record ends final and
     * in order on each engine */
    t = mk();
    for (uint64_t k = 0; k < 20000; k++) {
        switch (k % 5) {
        case 0: push(t, f_memset(PCCX_BANK_FMAP, (unsigned)(k / 5 % 64))); break;
        case 1: push(t, f_h2l(4, 1000 + k % 64, 16 * k, (int)(k / 5 % 64), k % 7 == 0)); break;
        case 2: push(t, f_gemv(64, 16, 1000 + k % 64, 3000)); break;
        case 3: push(t, f_cvo(PCCX_CVO_EXP, 24000, 64, 8 * (1000 + k % 64), 64, 0)); break;
        default: push(t, f_mm(PCCX_FP_GEMM, 2, 64, 16, 5000, 6000, 0)); break;
        }
        if (k % 97 == 0)
            (void)pccx_tm_status(t);
    }
    uint64_t end = pccx_tm_drain_time(t), prev_c[PCCX_N_ENGINES] = {0}, maxc = 0;
    int ok = 1;
    for (uint64_t k = 0; k < 20000; k++) {
        const pccx_tm_rec *r = pccx_tm_record(t, k);
        ok &= r->done && r->a >= r->h && r->d > r->a && r->s > r->d && r->c >= r->s;
        ok &= r->s >= prev_c[r->engine];
        prev_c[r->engine] = r->c;
        maxc = r->c > maxc ? r->c : maxc;
    }
    NPK_CHECK(ok);
    NPK_CHECK_EQ_U64(end, maxc);
    pccx_tm_destroy(t);
}

/* ---- differential check: a cycle-stepped reference ----------------------------------------
 * An independent, deliberately naive model of §11.2-§11.4: the whole host script is known, time
 * advances one cycle at a time, hazards are checked against every earlier instruction, and a
 * host action happens at the first cycle at which its condition holds. Random programs on
 * random (small) parameters, with status reads, host work and sync budgets in between, must
 * give the event-driven model's records, host clocks, status words and sync results. */

enum { H_PUSH, H_ADVANCE, H_STATUS, H_SYNC };
typedef struct {
    int op;
    pccx_fp fp;
    uint64_t n;      /* ADVANCE cycles, SYNC budget */
    uint64_t host;   /* host clock after the action */
    int result;      /* STATUS word, SYNC return */
} host_act;

enum { P_NONE, P_RREQ, P_R, P_X, P_WREQ, P_W, P_DONE };
typedef struct {
    pccx_fp fp;
    int engine, sync, phase;
    uint64_t rlen, x, wlen, req;
    uint64_t a, d, s, c, r0, r1, x0, x1, w0, w1;
    int has_d, has_s;
} ref_insn;

static uint64_t rnd(uint64_t *st, uint64_t n)
{
    *st = *st * 6364136223846793005ull + 1442695040888963407ull;
    return (*st >> 33) % n;
}

static int ref_ovl(pccx_range a, pccx_range b)
{
    return a.hi > a.lo && b.hi > b.lo && a.lo < b.hi && b.lo < a.hi;
}

/* RAW, WAW or WAR between the later x and the earlier y (§11.4) */
static int ref_conflict(const pccx_fp *x, const pccx_fp *y)
{
    const pccx_fp *rd[2] = {x, y}, *wr[2] = {y, x};
    for (int k = 0; k < 2; k++) { /* k = 0: x reads y's writes; k = 1: y reads x's writes */
        const pccx_fp *r = rd[k], *w = wr[k];
        if (ref_ovl(r->l2_rd[0], w->l2_wr) || ref_ovl(r->l2_rd[1], w->l2_wr) ||
            ref_ovl(r->host_rd, w->host_wr) || (r->emax_rd && w->emax_wr))
            return 1;
        if (w->cc_wr >= 0 && (r->cc_rd[0] == w->cc_wr || r->cc_rd[1] == w->cc_wr))
            return 1;
    }
    return ref_ovl(x->l2_wr, y->l2_wr) || ref_ovl(x->host_wr, y->host_wr) ||
           (x->cc_wr >= 0 && x->cc_wr == y->cc_wr) || (x->emax_wr && y->emax_wr);
}

static int ref_can_decode(const pccx_timing_t *p, const ref_insn *in, uint64_t i, uint64_t t)
{
    if (t < in[i].a + 1 || (i > 0 && t < in[i - 1].d + p->decode_cycles))
        return 0;
    uint64_t same = 0;
    for (uint64_t j = i; j-- > 0;) {
        if (in[j].sync && in[j].phase != P_DONE)
            return 0; /* y: an earlier sync instruction has not completed */
        if (in[i].engine >= 0 && in[j].engine == in[i].engine &&
            ++same == p->engine_queue_depth && !in[j].has_s)
            return 0; /* q: no queue space */
    }
    return 1;
}

static int ref_can_start(const pccx_timing_t *p, const ref_insn *in, uint64_t i, uint64_t t)
{
    if (t < in[i].d + p->decode_cycles)
        return 0;
    for (uint64_t j = 0; j < i; j++)
        if (in[j].engine >= 0 && in[j].phase != P_DONE &&
            (in[j].engine == in[i].engine || ref_conflict(&in[i].fp, &in[j].fp)))
            return 0;
    return 1;
}

static void ref_complete(ref_insn *x, uint64_t t)
{
    x->c = t;
    x->phase = P_DONE;
}

static void ref_begin_x(ref_insn *x, uint64_t t)
{
    x->x0 = t;
    x->x1 = t + x->x;
    x->phase = P_X;
}

/* Runs the script; fills in[] and each action's host clock and result. 0 on success. */
static int ref_run(const pccx_timing_t *p, host_act *acts, size_t nacts, ref_insn *in)
{
    uint64_t host = 0, n = 0, port_free = 0, t_push = pccx_tm_axi(p, p->host_push_axi_cycles);
    size_t k = 0;
    for (uint64_t t = 0; t < 10000000; t++) {
        int changed;
        do { /* everything at cycle t, zero-length steps included */
            changed = 0;
            uint64_t i = 0;
            while (i < n && in[i].has_d)
                i++;
            if (i < n && ref_can_decode(p, in, i, t)) {
                in[i].d = t;
                in[i].has_d = 1;
                changed = 1;
                if (in[i].engine < 0) {
                    in[i].s = in[i].r0 = in[i].r1 = in[i].x0 = in[i].x1 = in[i].w0 = t;
                    in[i].w1 = t;
                    ref_complete(&in[i], t);
                }
            }
            for (i = 0; i < n; i++) {
                ref_insn *x = &in[i];
                if (x->has_d && !x->has_s && x->engine >= 0 && ref_can_start(p, in, i, t)) {
                    x->s = x->r0 = x->r1 = t;
                    x->has_s = 1;
                    if (x->rlen) {
                        x->phase = P_RREQ;
                        x->req = t;
                    } else {
                        ref_begin_x(x, t);
                    }
                    changed = 1;
                } else if (x->phase == P_R && x->r1 == t) {
                    ref_begin_x(x, t);
                    changed = 1;
                } else if (x->phase == P_X && x->x1 == t) {
                    if (x->wlen) {
                        x->phase = P_WREQ;
                        x->req = t;
                    } else {
                        x->w0 = x->w1 = t;
                        ref_complete(x, t);
                    }
                    changed = 1;
                } else if (x->phase == P_W && x->w1 == t) {
                    ref_complete(x, t);
                    changed = 1;
                }
            }
        } while (changed);
        if (port_free <= t) { /* FCFS by request time, ties in program order */
            ref_insn *best = NULL;
            for (uint64_t i = 0; i < n; i++)
                if ((in[i].phase == P_RREQ || in[i].phase == P_WREQ) &&
                    (!best || in[i].req < best->req))
                    best = &in[i];
            if (best && best->phase == P_RREQ) {
                best->r0 = t;
                best->r1 = port_free = t + best->rlen;
                best->phase = P_R;
            } else if (best) {
                best->w0 = t;
                best->w1 = port_free = t + best->wlen;
                best->phase = P_W;
            }
        }
        /* the host acts at the first cycle >= its clock at which it can */
        uint64_t maxc = 0, busy = 0;
        for (uint64_t i = 0; i < n; i++) {
            busy |= in[i].phase != P_DONE;
            maxc = in[i].phase == P_DONE && in[i].c > maxc ? in[i].c : maxc;
        }
        while (k < nacts && host <= t) {
            host_act *h = &acts[k];
            if (h->op == H_PUSH) {
                uint64_t depth = p->cmd_fifo_depth;
                if (n >= depth && !(in[n - depth].has_d && in[n - depth].d + 1 <= t))
                    break;
                ref_insn *x = &in[n++];
                memset(x, 0, sizeof *x);
                x->fp = h->fp;
                uint64_t r, w;
                pccx_tm_phases(p, &h->fp, &x->engine, &r, &x->x, &w);
                x->rlen = (r + p->l2_port_words_per_cycle - 1) / p->l2_port_words_per_cycle;
                x->wlen = (w + p->l2_port_words_per_cycle - 1) / p->l2_port_words_per_cycle;
                x->sync = h->fp.sync && (h->fp.kind == PCCX_FP_CVO ||
                                         h->fp.kind == PCCX_FP_MEMCPY_H2L ||
                                         h->fp.kind == PCCX_FP_MEMCPY_L2H ||
                                         h->fp.kind == PCCX_FP_MEMCPY_L2L);
                x->a = t;
                host = t + t_push;
                busy = 1;
            } else if (h->op == H_ADVANCE) {
                host += h->n;
            } else if (h->op == H_STATUS) {
                h->result = busy ? PCCX_STATUS_BUSY : n ? PCCX_STATUS_DONE : 0;
            } else if (!busy) {
                host = host > maxc ? host : maxc;
                h->result = 0;
            } else if (h->n && host + h->n <= t) {
                host += h->n;
                h->result = -1;
            } else {
                break;
            }
            h->host = host;
            k++;
        }
        if (k == nacts && !busy)
            return 0;
    }
    return -1;
}

static pccx_fp random_fp(uint64_t *st)
{
    pccx_fp f;
    pccx_fp_kind kinds[] = {PCCX_FP_MEMSET, PCCX_FP_MEMCPY_H2L, PCCX_FP_MEMCPY_L2H,
                            PCCX_FP_MEMCPY_L2L, PCCX_FP_GEMV, PCCX_FP_GEMM, PCCX_FP_CVO,
                            PCCX_FP_CVO, PCCX_FP_DROPPED};
    pccx_fp_init(&f, kinds[rnd(st, 9)]);
    f.sync = rnd(st, 3) == 0;
    f.words = 1 + rnd(st, 8);
    f.M = f.kind == PCCX_FP_GEMM ? 1 + rnd(st, 4) : 1;
    f.K = 1 + rnd(st, 64);
    f.N = 1 + rnd(st, 64);
    f.lane_mask = 1 + (unsigned)rnd(st, 15);
    f.accm = rnd(st, 4) == 0;
    f.weight_view = rnd(st, 4) == 0;
    f.func = (unsigned)rnd(st, PCCX_N_CVO_FUNCS);
    f.recip_scale = f.func == PCCX_CVO_SCALE && rnd(st, 2);
    f.cvo_src = rnd(st, 200);
    f.n_in = 1 + rnd(st, 40);
    f.cvo_dst = rnd(st, 200);
    f.n_out = rnd(st, 41);
    /* small address spaces so that hazards are frequent */
    for (int j = 0; j < 2; j++)
        if (rnd(st, 2))
            f.l2_rd[j] = rg(rnd(st, 240), 1 + rnd(st, 16));
    if (rnd(st, 3))
        f.l2_wr = rg(rnd(st, 240), 1 + rnd(st, 16));
    if (rnd(st, 3) == 0)
        f.host_rd = rg(rnd(st, 500), 1 + rnd(st, 40));
    if (rnd(st, 3) == 0)
        f.host_wr = rg(rnd(st, 500), 1 + rnd(st, 40));
    if (rnd(st, 3) == 0)
        f.cc_rd[0] = (int)rnd(st, 4);
    if (rnd(st, 4) == 0)
        f.cc_rd[1] = (int)rnd(st, 4);
    if (f.kind == PCCX_FP_MEMSET || rnd(st, 8) == 0)
        f.cc_wr = (int)rnd(st, 4);
    f.emax_rd = rnd(st, 5) == 0;
    f.emax_wr = rnd(st, 5) == 0;
    return f;
}

static void differential(void)
{
    uint64_t st = 12345;
    unsigned programs = 300, bad = 0, cover[6] = {0};
    host_act acts[80];
    ref_insn in[80];
    for (unsigned prog = 0; prog < programs; prog++) {
        pccx_timing_t p;
        pccx_timing_default(&p);
        if (prog % 3) { /* small and zero parameters (zero-length phases chain at one time) */
            p.cmd_fifo_depth = 1 + (uint32_t)rnd(&st, 4);
            p.engine_queue_depth = 1 + (uint32_t)rnd(&st, 3);
            p.decode_cycles = (uint32_t)rnd(&st, 3);
            p.host_push_axi_cycles = (uint32_t)rnd(&st, 3);
            p.l2_port_words_per_cycle = 1 + (uint32_t)rnd(&st, 2);
            p.l2_read_latency = (uint32_t)rnd(&st, 8);
            p.mem_setup_cycles = (uint32_t)rnd(&st, 14);
            p.memset_cycles = (uint32_t)rnd(&st, 3);
            p.ddr_latency_ns = (uint32_t)rnd(&st, 101);
            p.cvo_overhead = (uint32_t)rnd(&st, 9);
            p.gemv_latency = (uint32_t)rnd(&st, 9);
            p.gemm_latency = (uint32_t)rnd(&st, 70);
            for (int f = 0; f < PCCX_N_CVO_FUNCS; f++)
                p.cvo_lat[f] = (uint32_t)rnd(&st, 6);
        }
        size_t nacts = 0;
        uint64_t npush = 0;
        while (nacts < 80 && npush < 40) {
            host_act *h = &acts[nacts++];
            memset(h, 0, sizeof *h);
            uint64_t r = rnd(&st, 20);
            h->op = r < 15 ? H_PUSH : r < 17 ? H_ADVANCE : r < 19 ? H_STATUS : H_SYNC;
            if (h->op == H_PUSH) {
                h->fp = random_fp(&st);
                npush++;
            }
            h->n = h->op == H_ADVANCE ? rnd(&st, 60) : h->op == H_SYNC ? rnd(&st, 150) : 0;
        }
        if (ref_run(&p, acts, nacts, in) != 0) {
            NPK_REPORT(0, "program %u: the reference did not finish\n", prog);
            continue;
        }
        pccx_tm *t = mk_with(&p);
        int ok = 1;
        for (size_t k = 0; k < nacts && ok; k++) {
            const host_act *h = &acts[k];
            int res = 0;
            switch (h->op) {
            case H_PUSH: ok &= pccx_tm_push(t, &h->fp) == 0; break;
            case H_ADVANCE: pccx_tm_host_advance(t, h->n); break;
            case H_STATUS: res = (int)pccx_tm_status(t); break;
            default: res = pccx_tm_sync(t, h->n); break;
            }
            if (res != h->result || pccx_tm_host_clock(t) != h->host) {
                NPK_REPORT(0, "program %u action %zu (op %d): result %d host %llu, want %d %llu\n",
                           prog, k, h->op, res, (unsigned long long)pccx_tm_host_clock(t),
                           h->result, (unsigned long long)h->host);
                ok = 0;
            }
        }
        uint64_t end = pccx_tm_drain_time(t), maxc = 0;
        for (uint64_t i = 0; ok && i < npush; i++) {
            const pccx_tm_rec *r = pccx_tm_record(t, i);
            const ref_insn *x = &in[i];
            maxc = x->c > maxc ? x->c : maxc;
            if (!r->done || r->a != x->a || r->d != x->d || r->s != x->s || r->c != x->c ||
                r->r0 != x->r0 || r->r1 != x->r1 || r->x0 != x->x0 || r->x1 != x->x1 ||
                r->w0 != x->w0 || r->w1 != x->w1 || r->engine != x->engine) {
                NPK_REPORT(0, "program %u insn %llu: a %llu d %llu s %llu c %llu R [%llu, %llu) "
                           "X [%llu, %llu) W [%llu, %llu); reference a %llu d %llu s %llu c "
                           "%llu R [%llu, %llu) X [%llu, %llu) W [%llu, %llu)\n",
                           prog, (unsigned long long)i, (unsigned long long)r->a,
                           (unsigned long long)r->d, (unsigned long long)r->s,
                           (unsigned long long)r->c, (unsigned long long)r->r0,
                           (unsigned long long)r->r1, (unsigned long long)r->x0,
                           (unsigned long long)r->x1, (unsigned long long)r->w0,
                           (unsigned long long)r->w1, (unsigned long long)x->a,
                           (unsigned long long)x->d, (unsigned long long)x->s,
                           (unsigned long long)x->c, (unsigned long long)x->r0,
                           (unsigned long long)x->r1, (unsigned long long)x->x0,
                           (unsigned long long)x->x1, (unsigned long long)x->w0,
                           (unsigned long long)x->w1);
                ok = 0;
            }
        }
        if (ok && end != maxc) {
            NPK_REPORT(0, "program %u: drain %llu, want %llu\n", prog, (unsigned long long)end,
                       (unsigned long long)maxc);
            ok = 0;
        }
        bad += !ok;
        pccx_stats_t ps;
        memset(&ps, 0, sizeof ps);
        pccx_tm_stats(t, &ps);
        cover[0] += ps.stall_fifo_full > 0;
        cover[1] += ps.stall_queue_full > 0;
        cover[2] += ps.stall_sync_wait > 0;
        cover[3] += ps.hazard_wait > 0;
        for (uint64_t i = 0; i < npush; i++) {
            const pccx_tm_rec *r = pccx_tm_record(t, i);
            cover[4] += (r->r1 > r->r0 && r->r0 > r->s) || (r->w1 > r->w0 && r->w0 > r->x1);
        }
        for (size_t k = 0; k < nacts; k++)
            cover[5] += acts[k].op == H_SYNC && acts[k].result == -1;
        pccx_tm_destroy(t);
    }
    /* how often each situation arose (programs with FIFO / queue / sync stalls, with hazard
     * waits; bursts that waited for port B; sync timeouts) */
    printf("differential: %u programs; FIFO %u, queue %u, sync %u, hazard %u; port B waits %u; "
           "sync timeouts %u\n", programs, cover[0], cover[1], cover[2], cover[3], cover[4],
           cover[5]);
    NPK_REPORT(bad == 0, "%u of %u random programs differ from the reference\n", bad, programs);
}

int main(void)
{
    params();
    phase_table();
    worked_example();
    hazards_l2();
    hazards_other();
    port_b();
    fifo_and_queue();
    sync_wait();
    dropped();
    status_and_sync();
    drain_then_push();
    statistics();
    long_program();
    differential();
    return npk_test_done();
}
