/* pccx bounds near 2^63 and 2^64 (issue 13): BF16 views whose stride arithmetic wraps int64,
 * host DDR and L2 ranges through the host API, INT4 row strides that wrap size_t, and the
 * constant-cache backdoor keeping no rejected value. Every case must fail with its error code,
 * never read or write outside the simulator's memories. */
#include <stdint.h>
#include <string.h>

#include "npukit/npukit.h"
#include "npukit/pccx.h"
#include "test.h"

#define HOST (UINT64_C(1) << 20)

static pccx_t *ctx_new(void)
{
    pccx_config_t cfg = {0};
    cfg.ext = 1;
    cfg.host_ddr_bytes = HOST;
    pccx_t *c = NULL;
    NPK_CHECK(pccx_init(&c, &cfg) == PCCX_OK && c);
    return c;
}

/* GEMV of the L2 row at word 0x40 through a k x n BF16 view at the queue head; the first
 * output element (L2 word 0x80) goes to *y0 before the fault, if any, is cleared. */
static uint16_t y0;

static int gemv_view(pccx_t *c, uint64_t base, uint32_t n, uint32_t k, int64_t sn, int64_t sk)
{
    pccx_weight_t h = 0;
    int rc = pccx_weight_view_bf16(c, base, n, k, sn, sk, &h);
    if (rc != PCCX_OK)
        return rc;
    NPK_CHECK(pccx_memset(c, PCCX_BANK_FMAP, 1, 1, (uint16_t)k, 1) == PCCX_OK);
    NPK_CHECK(pccx_memset(c, PCCX_BANK_FMAP, 2, 1, (uint16_t)n, 1) == PCCX_OK);
    NPK_CHECK(pccx_weight_push(c, h) == PCCX_OK);
    rc = pccx_gemv(c, 0x80, 0x40, 0, 2, 1, 0);
    uint8_t out[16];
    NPK_CHECK(pccx_l2_read(c, 0x80, out, 1) == PCCX_OK);
    y0 = (uint16_t)(out[0] | out[1] << 8);
    pccx_clear_error(c);
    pccx_reset(c);
    return rc;
}

/* The reproducer of issue 13 defect 3, as a program: used to read host memory 2^63 bytes out
 * (SIGSEGV); now the GEMV faults with E_HOST_RANGE. */
static void test_wview_program(void)
{
    static const char src[] =
        ".target pccx\n"
        ".profile ext\n"
        ".wview V, host=0x100, n=2, k=2, sn=0x4000000000000000, sk=0x4000000000000000\n"
        "    memset fmap, idx=1, a=1, b=2, c=1\n"
        "    memset fmap, idx=2, a=1, b=2, c=1\n"
        ".wpush V\n"
        "    gemv dst=0x80, src=0x40, size=2, shape=1\n";
    npk_machine *m = NULL;
    char err[256];
    NPK_CHECK(npk_create(&m, "pccx", NULL, err, sizeof err) == NPK_OK);
    if (!m)
        return;
    NPK_CHECK(npk_load_asm(m, src, "wrap.s", NULL) == NPK_OK);
    npk_stop stop;
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK);
    NPK_CHECK(stop.reason == NPK_STOP_FAULT);
    NPK_CHECK_CONTAINS(stop.message, "PCCX_E_HOST_RANGE");
    NPK_CHECK_CONTAINS(stop.message, "the BF16 view (base 0x100, n 2, k 2, sn 4611686018427387904, "
                                     "sk 4611686018427387904) reads outside host DDR");
    npk_destroy(m);
}

static void test_view_ranges(void)
{
    pccx_t *c = ctx_new();
    if (!c)
        return;
    const int64_t big = INT64_C(1) << 62;
    /* (n-1)*sn + (k-1)*sk = 2^63: the old int64 sum wrapped negative and passed the check */
    NPK_CHECK_EQ_U64(gemv_view(c, 0x100, 2, 2, big, big), (uint64_t)(int64_t)PCCX_E_HOST_RANGE);
    /* 2 * (n-1)*sn = -2^64 wrapped to 0: a read 2^63 bytes below the base */
    NPK_CHECK_EQ_U64(gemv_view(c, 0x100, 3, 1, -big, 0), (uint64_t)(int64_t)PCCX_E_HOST_RANGE);
    /* a product that alone overflows int64 */
    NPK_CHECK_EQ_U64(gemv_view(c, 0x100, 2, 65535, 0, INT64_MAX),
                     (uint64_t)(int64_t)PCCX_E_HOST_RANGE);
    NPK_CHECK_EQ_U64(gemv_view(c, 0x100, 2, 2, INT64_MIN, 1), (uint64_t)(int64_t)PCCX_E_HOST_RANGE);
    /* a base above INT64_MAX */
    NPK_CHECK_EQ_U64(gemv_view(c, (UINT64_C(1) << 63) + 0x100, 2, 2, 1, 1),
                     (uint64_t)(int64_t)PCCX_E_HOST_RANGE);
    /* the edges still work: the last 4 bytes of host DDR, read backwards with sk = -1 */
    const uint16_t w[2] = {0x3F80, 0x4000}; /* 1.0, 2.0 */
    NPK_CHECK(pccx_host_write(c, HOST - 4, w, sizeof w) == PCCX_OK);
    const uint16_t a[2] = {0x4040, 0x3F80}; /* 3.0, 1.0 */
    uint8_t l2word[16] = {0};
    memcpy(l2word, a, sizeof a);
    NPK_CHECK(pccx_l2_write(c, 0x40, l2word, 1) == PCCX_OK);
    NPK_CHECK_EQ_U64(gemv_view(c, HOST - 2, 1, 2, 0, -1), PCCX_OK);
    /* y = 3.0 * W[0][0] + 1.0 * W[0][1] = 3 * 2.0 + 1 * 1.0 = 7.0 (0x40E0) */
    NPK_CHECK_EQ_U64(y0, 0x40E0);
    /* one byte more at the end leaves host DDR */
    NPK_CHECK_EQ_U64(gemv_view(c, HOST - 2, 1, 2, 0, 1), (uint64_t)(int64_t)PCCX_E_HOST_RANGE);
    pccx_deinit(c);
}

static void test_host_and_l2(void)
{
    pccx_t *c = ctx_new();
    if (!c)
        return;
    uint8_t b[32] = {0};
    NPK_CHECK(pccx_host_write(c, UINT64_MAX, b, 2) == PCCX_E_HOST_RANGE);
    NPK_CHECK(pccx_host_read(c, UINT64_MAX - 7, b, 16) == PCCX_E_HOST_RANGE);
    NPK_CHECK(pccx_host_read(c, 16, b, SIZE_MAX) == PCCX_E_HOST_RANGE);
    NPK_CHECK(pccx_host_read(c, HOST - 1, b, 2) == PCCX_E_HOST_RANGE);
    NPK_CHECK(pccx_host_read(c, HOST - 1, b, 1) == PCCX_OK);
    NPK_CHECK(pccx_host_write(c, HOST, b, 0) == PCCX_OK); /* empty, at the end */
    NPK_CHECK(pccx_host_write(c, HOST + 1, b, 0) == PCCX_E_HOST_RANGE);
    NPK_CHECK(pccx_l2_read(c, UINT32_MAX, b, 2) == PCCX_E_L2_RANGE);
    NPK_CHECK(pccx_l2_write(c, 114688 - 1, b, 2) == PCCX_E_L2_RANGE);
    NPK_CHECK(pccx_l2_write(c, 114688 - 2, b, 2) == PCCX_OK);
    /* MEMCPY: the host window near the end of host DDR, 16 x aux past it */
    NPK_CHECK(pccx_host_window(c, HOST - 16) == PCCX_OK);
    NPK_CHECK(pccx_memset(c, PCCX_BANK_FMAP, 3, 1, 8, 1) == PCCX_OK); /* 8 elements: 1 word */
    NPK_CHECK(pccx_memcpy(c, 1, 0, 0x10, 0, 0, 3, 0) == PCCX_OK);
    NPK_CHECK(pccx_memcpy(c, 1, 0, 0x10, 0, 1, 3, 0) == PCCX_E_HOST_RANGE);
    pccx_clear_error(c);
    NPK_CHECK(pccx_memcpy(c, 0, 0, 114687, 0, 0, 3, 0) == PCCX_OK); /* L2 -> L2, last word */
    NPK_CHECK(pccx_memcpy(c, 0, 0, 0, 114687, 0, 3, 0) == PCCX_OK);
    NPK_CHECK(pccx_memset(c, PCCX_BANK_FMAP, 4, 1, 16, 1) == PCCX_OK); /* 2 words */
    NPK_CHECK(pccx_memcpy(c, 0, 0, 114687, 0, 0, 4, 0) == PCCX_E_L2_RANGE);
    pccx_deinit(c);
}

/* INT4 rows are copied from the caller's buffer at (n-1) strides: a stride that wraps size_t
 * used to step the copy outside the buffer. */
static void test_int4_stride(void)
{
    pccx_t *c = ctx_new();
    if (!c)
        return;
    uint8_t codes[4] = {0x21, 0x43, 0x65, 0x87};
    float scale[3] = {1, 1, 1};
    pccx_weight_t h = 0;
    NPK_CHECK(pccx_weight_int4(c, 2, 3, codes, SIZE_MAX / 2 + 1, scale, &h) == PCCX_E_ARG);
    NPK_CHECK(pccx_weight_int4(c, 2, 2, codes, SIZE_MAX, scale, &h) == PCCX_E_ARG);
    NPK_CHECK(pccx_weight_int4(c, 2, 1, codes, SIZE_MAX, scale, &h) == PCCX_OK); /* one row */
    NPK_CHECK(pccx_weight_int4(c, 2, 3, codes, 1, scale, &h) == PCCX_OK);
    pccx_deinit(c);
}

/* A constant-cache value rejected by the backdoor must not stay behind: shape products rely
 * on every entry being at most 17 bits. */
static void test_cc_backdoor(void)
{
    npk_machine *m = NULL;
    char err[256];
    NPK_CHECK(npk_create(&m, "pccx", NULL, err, sizeof err) == NPK_OK);
    if (!m)
        return;
    pccx_t *c = pccx_of(m);
    const uint8_t big[4] = {0xFF, 0xFF, 0xFF, 0xFF};
    NPK_CHECK(npk_mem_write(m, "cc_fmap", 12, big, 4) == NPK_ERR_RANGE);
    NPK_CHECK_CONTAINS(npk_error(m), "constant-cache values are 17 bits (entry 1 got 0xffffff)");
    uint32_t xyz[3];
    NPK_CHECK(pccx_cc_read(c, PCCX_BANK_FMAP, 1, xyz) == PCCX_OK);
    NPK_CHECK_EQ_U64(xyz[0], 0xFFFF); /* the two bytes before the bad one */
    NPK_CHECK(npk_mem_write(m, "cc_fmap", 12, "\x01\x00\x01\x00", 4) == NPK_OK);
    NPK_CHECK(pccx_cc_read(c, PCCX_BANK_FMAP, 1, xyz) == PCCX_OK);
    NPK_CHECK_EQ_U64(xyz[0], 0x10001);
    npk_destroy(m);
}

int main(void)
{
    test_wview_program();
    test_view_ranges();
    test_host_and_l2();
    test_int4_stride();
    test_cc_backdoor();
    return npk_test_done();
}
