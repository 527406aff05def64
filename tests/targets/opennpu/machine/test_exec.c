/* opennpu semantics, integer side (spec §3, §5.2-§5.5, §5.7, §5.10-§5.12): per-op vectors with
 * saturation boundaries at every width, the spec's examples, byte-planar view aliasing, LUT
 * segment layout at K = 8 and K = 64, loads/stores, and the MMA family. Expected values are
 * the spec's or derived by hand next to them. */
#include "onpu_test.h"

/* One lane-wise instruction at K = 4: sources in registers 1 and 2 of class scls, result in
 * register 3 of class dcls. */
typedef struct lcase {
    const char *name;
    uint32_t word;
    unsigned scls;
    uint32_t a[4], b[4];
    unsigned dcls;
    uint32_t want[4];
} lcase;

#define A(f3, c, sat) enc_std(OP_ARITH, f3, c, sat, 3, 1, 2)
#define L(f3, c) enc_std(OP_LOGIC, f3, c, 0, 3, 1, 2)

static const lcase lanes[] = {
    /* §5.2 VX: wrap vs sat at -128/127 */
    {"vadd vx", A(0, VX, 0), VX, {0x7F, 0x80, 0xFF, 0x10}, {1, 0xFF, 1, 0x20}, VX, {0x80, 0x7F, 0, 0x30}},
    {"vadd.sat vx", A(0, VX, 1), VX, {0x7F, 0x80, 0xFF, 0x10}, {1, 0xFF, 1, 0x20}, VX, {0x7F, 0x80, 0, 0x30}},
    {"vsub vx", A(1, VX, 0), VX, {0x80, 0x7F, 0, 5}, {1, 0xFF, 0x80, 7}, VX, {0x7F, 0x80, 0x80, 0xFE}},
    {"vsub.sat vx", A(1, VX, 1), VX, {0x80, 0x7F, 0, 5}, {1, 0xFF, 0x80, 7}, VX, {0x80, 0x7F, 0x7F, 0xFE}},
    /* 16*16 = 256, -16*16 = -256, -128*-128 = 16384, 7*-3 = -21 */
    {"vmul vx", A(2, VX, 0), VX, {0x10, 0xF0, 0x80, 7}, {0x10, 0x10, 0x80, 0xFD}, VX, {0, 0, 0, 0xEB}},
    {"vmul.sat vx", A(2, VX, 1), VX, {0x10, 0xF0, 0x80, 7}, {0x10, 0x10, 0x80, 0xFD}, VX, {0x7F, 0x80, 0x7F, 0xEB}},
    /* vneg/vabs of 0x80 without sat give 0x80 (§5.2) */
    {"vneg vx", A(3, VX, 0), VX, {0x80, 1, 0, 0x7F}, {0x55, 0x55, 0x55, 0x55}, VX, {0x80, 0xFF, 0, 0x81}},
    {"vneg.sat vx", A(3, VX, 1), VX, {0x80, 1, 0, 0x7F}, {0}, VX, {0x7F, 0xFF, 0, 0x81}},
    {"vabs vx", A(4, VX, 0), VX, {0x80, 0xFF, 0, 0x7F}, {0}, VX, {0x80, 1, 0, 0x7F}},
    {"vabs.sat vx", A(4, VX, 1), VX, {0x80, 0xFF, 0, 0x7F}, {0}, VX, {0x7F, 1, 0, 0x7F}},
    {"vmax vx", A(5, VX, 0), VX, {0x80, 0xFF, 5, 0x7F}, {0x7F, 1, 5, 0x80}, VX, {0x7F, 1, 5, 0x7F}},
    {"vmax.sat vx", A(5, VX, 1), VX, {0x80, 0xFF, 5, 0x7F}, {0x7F, 1, 5, 0x80}, VX, {0x7F, 1, 5, 0x7F}},
    {"vmin vx", A(6, VX, 1), VX, {0x80, 0xFF, 5, 0x7F}, {0x7F, 1, 5, 0x80}, VX, {0x80, 0xFF, 5, 0x80}},
    /* b - a: -128 - 1 = -129, 1 + 128 = 129, -1 - 127 = -128, 7 - 5 */
    {"vrsub vx", A(7, VX, 0), VX, {1, 0x80, 0x7F, 5}, {0x80, 1, 0xFF, 7}, VX, {0x7F, 0x81, 0x80, 2}},
    {"vrsub.sat vx", A(7, VX, 1), VX, {1, 0x80, 0x7F, 5}, {0x80, 1, 0xFF, 7}, VX, {0x80, 0x7F, 0x80, 2}},
    /* VE: boundaries at -32768/32767 */
    {"vadd ve", A(0, VE, 0), VE, {0x7FFF, 0x8000, 0x1234, 0xFFFF}, {1, 0xFFFF, 0x1111, 1}, VE, {0x8000, 0x7FFF, 0x2345, 0}},
    {"vadd.sat ve", A(0, VE, 1), VE, {0x7FFF, 0x8000, 0x1234, 0xFFFF}, {1, 0xFFFF, 0x1111, 1}, VE, {0x7FFF, 0x8000, 0x2345, 0}},
    /* 300*300 = 90000 = 0x15F90, -256*256 = -65536, 2*3, -32768*-1 = 32768 */
    {"vmul ve", A(2, VE, 0), VE, {300, 0xFF00, 2, 0x8000}, {300, 0x100, 3, 0xFFFF}, VE, {0x5F90, 0, 6, 0x8000}},
    {"vmul.sat ve", A(2, VE, 1), VE, {300, 0xFF00, 2, 0x8000}, {300, 0x100, 3, 0xFFFF}, VE, {0x7FFF, 0x8000, 6, 0x7FFF}},
    {"vneg.sat ve", A(3, VE, 1), VE, {0x8000, 1, 0, 0x7FFF}, {0}, VE, {0x7FFF, 0xFFFF, 0, 0x8001}},
    {"vsub.sat ve", A(1, VE, 1), VE, {0x8000, 0x7FFF, 0, 0}, {1, 0xFFFF, 0x8000, 0x7FFF}, VE, {0x8000, 0x7FFF, 0x7FFF, 0x8001}},
    /* VR: the §5.2 examples 0x7FFFFFFF + 1 and neg 0x80000000 */
    {"vadd vr", A(0, VR, 0), VR, {0x7FFFFFFF, 0x80000000, 5, 0xFFFFFFFF}, {1, 0xFFFFFFFF, 7, 1}, VR, {0x80000000, 0x7FFFFFFF, 12, 0}},
    {"vadd.sat vr", A(0, VR, 1), VR, {0x7FFFFFFF, 0x80000000, 5, 0xFFFFFFFF}, {1, 0xFFFFFFFF, 7, 1}, VR, {0x7FFFFFFF, 0x80000000, 12, 0}},
    {"vsub.sat vr", A(1, VR, 1), VR, {0x80000000, 0x7FFFFFFF, 3, 0}, {1, 0xFFFFFFFF, 5, 0x80000000}, VR, {0x80000000, 0x7FFFFFFF, 0xFFFFFFFE, 0x7FFFFFFF}},
    /* 2^16 * 2^16, -2^16 * 2^16, (2^31-1)^2 = 2^62 - 2^32 + 1 (low word 1), 3 * -2 */
    {"vmul vr", A(2, VR, 0), VR, {0x10000, 0xFFFF0000, 0x7FFFFFFF, 3}, {0x10000, 0x10000, 0x7FFFFFFF, 0xFFFFFFFE}, VR, {0, 0, 1, 0xFFFFFFFA}},
    {"vmul.sat vr", A(2, VR, 1), VR, {0x10000, 0xFFFF0000, 0x7FFFFFFF, 3}, {0x10000, 0x10000, 0x7FFFFFFF, 0xFFFFFFFE}, VR, {0x7FFFFFFF, 0x80000000, 0x7FFFFFFF, 0xFFFFFFFA}},
    {"vneg vr", A(3, VR, 0), VR, {0x80000000, 1, 0, 0x7FFFFFFF}, {0}, VR, {0x80000000, 0xFFFFFFFF, 0, 0x80000001}},
    {"vneg.sat vr", A(3, VR, 1), VR, {0x80000000, 1, 0, 0x7FFFFFFF}, {0}, VR, {0x7FFFFFFF, 0xFFFFFFFF, 0, 0x80000001}},
    {"vabs.sat vr", A(4, VR, 1), VR, {0x80000000, 0xFFFFFFFF, 0, 0x7FFFFFFF}, {0}, VR, {0x7FFFFFFF, 1, 0, 0x7FFFFFFF}},
    {"vabs vr", A(4, VR, 0), VR, {0x80000000, 0xFFFFFFFF, 0, 0x7FFFFFFF}, {0}, VR, {0x80000000, 1, 0, 0x7FFFFFFF}},
    {"vmax vr", A(5, VR, 0), VR, {0x80000000, 0xFFFFFFFF, 2, 0x7FFFFFFF}, {0x7FFFFFFF, 1, 2, 0}, VR, {0x7FFFFFFF, 1, 2, 0x7FFFFFFF}},
    {"vmin vr", A(6, VR, 0), VR, {0x80000000, 0xFFFFFFFF, 2, 0x7FFFFFFF}, {0x7FFFFFFF, 1, 2, 0}, VR, {0x80000000, 0xFFFFFFFF, 2, 0}},
    {"vrsub.sat vr", A(7, VR, 1), VR, {1, 0x80000000, 0, 0}, {0x80000000, 1, 0x7FFFFFFF, 0}, VR, {0x80000000, 0x7FFFFFFF, 0x7FFFFFFF, 0}},
    /* §5.3 shifts and rotates by y mod W; VX: 0x81 by 1, 4, 9 (= 1), 0 */
    {"vsll vx", L(0, VX), VX, {0x81, 0x81, 0x81, 0x81}, {1, 4, 9, 0}, VX, {0x02, 0x10, 0x02, 0x81}},
    {"vsrl vx", L(1, VX), VX, {0x81, 0x81, 0x81, 0x81}, {1, 4, 9, 0}, VX, {0x40, 0x08, 0x40, 0x81}},
    {"vsra vx", L(2, VX), VX, {0x81, 0x81, 0x81, 0x81}, {1, 4, 9, 0}, VX, {0xC0, 0xF8, 0xC0, 0x81}},
    {"vrol vx", L(3, VX), VX, {0x81, 0x81, 0x81, 0x81}, {1, 4, 9, 0}, VX, {0x03, 0x18, 0x03, 0x81}},
    {"vsll ve", L(0, VE), VE, {0x8001, 0x8001, 0x8001, 0x8001}, {1, 4, 17, 0}, VE, {0x0002, 0x0010, 0x0002, 0x8001}},
    {"vsrl ve", L(1, VE), VE, {0x8001, 0x8001, 0x8001, 0x8001}, {1, 4, 17, 0}, VE, {0x4000, 0x0800, 0x4000, 0x8001}},
    {"vsra ve", L(2, VE), VE, {0x8001, 0x8001, 0x8001, 0x8001}, {1, 4, 17, 0}, VE, {0xC000, 0xF800, 0xC000, 0x8001}},
    {"vrol ve", L(3, VE), VE, {0x8001, 0x8001, 0x8001, 0x8001}, {1, 4, 17, 0}, VE, {0x0003, 0x0018, 0x0003, 0x8001}},
    {"vsll vr", L(0, VR), VR, {0x80000001, 0x80000001, 0x80000001, 0x80000001}, {1, 4, 33, 31}, VR, {2, 0x10, 2, 0x80000000}},
    {"vsrl vr", L(1, VR), VR, {0x80000001, 0x80000001, 0x80000001, 0x80000001}, {1, 4, 33, 31}, VR, {0x40000000, 0x08000000, 0x40000000, 1}},
    {"vsra vr", L(2, VR), VR, {0x80000001, 0x80000001, 0x80000001, 0x80000001}, {1, 4, 33, 31}, VR, {0xC0000000, 0xF8000000, 0xC0000000, 0xFFFFFFFF}},
    {"vrol vr", L(3, VR), VR, {0x80000001, 0x80000001, 0x80000001, 0x80000001}, {1, 4, 33, 31}, VR, {3, 0x18, 3, 0xC0000000}},
    {"vxor vx", L(4, VX), VX, {0xF0, 0x0F, 0xAA, 0}, {0xFF, 0x0F, 0x55, 0}, VX, {0x0F, 0, 0xFF, 0}},
    {"vnot vx", L(5, VX), VX, {0xF0, 0x0F, 0xAA, 0}, {0xFF, 0x0F, 0x55, 0}, VX, {0x0F, 0xF0, 0x55, 0xFF}},
    {"vor vx", L(6, VX), VX, {0xF0, 0x0F, 0xAA, 0}, {0xFF, 0x0F, 0x55, 0}, VX, {0xFF, 0x0F, 0xFF, 0}},
    {"vand vx", L(7, VX), VX, {0xF0, 0x0F, 0xAA, 0}, {0xFF, 0x0F, 0x55, 0}, VX, {0xF0, 0x0F, 0, 0}},
    {"vxor ve", L(4, VE), VE, {0x1234, 0, 0xFFFF, 1}, {0xFFFF, 0, 0xFFFF, 2}, VE, {0xEDCB, 0, 0, 3}},
    {"vnot vr", L(5, VR), VR, {0, 0xFFFFFFFF, 0x12345678, 1}, {0}, VR, {0xFFFFFFFF, 0, 0xEDCBA987, 0xFFFFFFFE}},
    {"vand vr", L(7, VR), VR, {0xFFFF0000, 0x0F0F0F0F, 0, 1}, {0x00FFFF00, 0xFFFFFFFF, 5, 1}, VR, {0x00FF0000, 0x0F0F0F0F, 0, 1}},
    {"vor ve", L(6, VE), VE, {0xFF00, 0x0F0F, 0, 1}, {0x00FF, 0xF0F0, 0, 2}, VE, {0xFFFF, 0xFFFF, 0, 3}},
    /* §5.3: round, sat and dtype bits other than 11 are ignored */
    {"vrol vx f7=0x5C", enc_r(OP_LOGIC, 3, 0x5C, 3, 1, 2), VX, {0x81, 0x81, 0x81, 0x81}, {1, 4, 9, 0}, VX, {0x03, 0x18, 0x03, 0x81}},
    /* §5.7 vbcast.reg: lane 0 of rs1 everywhere; §5.11 vmov */
    {"vbcast.reg ve", enc_std(OP_BCAST, 0, VE, 0, 3, 1, 0), VE, {0xBEEF, 1, 2, 3}, {0}, VE, {0xBEEF, 0xBEEF, 0xBEEF, 0xBEEF}},
    {"vbcast.reg vr", enc_std(OP_BCAST, 0, VR, 0, 3, 1, 0), VR, {0x3D4CCCCD, 1, 2, 3}, {0}, VR, {0x3D4CCCCD, 0x3D4CCCCD, 0x3D4CCCCD, 0x3D4CCCCD}},
    {"vmov vr", enc_std(OP_MOV, 0, VR, 0, 3, 1, 0), VR, {0x11223344, 5, 6, 0xFFFFFFFF}, {0}, VR, {0x11223344, 5, 6, 0xFFFFFFFF}},
    {"vmov vx", enc_std(OP_MOV, 0, VX, 0, 3, 1, 0), VX, {1, 2, 3, 4}, {0}, VX, {1, 2, 3, 4}},
};

static void lane_cases(void)
{
    for (size_t c = 0; c < sizeof lanes / sizeof lanes[0]; c++) {
        const lcase *t = &lanes[c];
        npk_machine *m = mk_prog("opennpu:K=4,mem_size=64", &t->word, 1);
        for (unsigned k = 0; k < 4; k++) {
            set_lane(m, t->scls, 1, k, t->a[k]);
            set_lane(m, t->scls, 2, k, t->b[k]);
        }
        npk_stop st;
        NPK_CHECK(npk_run(m, 0, &st) == NPK_OK);
        NPK_REPORT(st.reason == NPK_STOP_EXIT, "%s: stopped: %s\n", t->name, st.message);
        for (unsigned k = 0; k < 4; k++) {
            uint32_t got = get_lane(m, t->dcls, 3, k);
            NPK_REPORT(got == t->want[k], "%s lane %u: got 0x%x, want 0x%x\n", t->name, k, got,
                       t->want[k]);
        }
        npk_destroy(m);
    }
}

/* §5.4: each reduction at each source width; result in every lane of VR[3]. */
static void reduce_cases(void)
{
    static const struct {
        unsigned cls;
        uint32_t in[4];
        uint32_t want[6]; /* vsum vrmax vrmin vrand vror vrxor */
    } t[] = {
        {VX, {0x7F, 0x7F, 0x03, 0xFE}, {0xFF, 0x7F, 0xFFFFFFFE, 2, 0xFFFFFFFF, 0xFFFFFFFD}},
        {VE, {0x8000, 0x7FFF, 1, 0x100}, {0x100, 0x7FFF, 0xFFFF8000, 0, 0xFFFFFFFF, 0xFFFFFEFE}},
        /* the sum wraps at 32 bits: 4 * (2^31 - 1) = 0x1FFFFFFFC */
        {VR, {0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF},
         {0xFFFFFFFC, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0}},
        {VR, {0x80000000, 1, 2, 3}, {0x80000006, 3, 0x80000000, 0, 0x80000003, 0x80000000}},
    };
    for (size_t c = 0; c < sizeof t / sizeof t[0]; c++) {
        for (unsigned f3 = 0; f3 < 6; f3++) {
            uint32_t w = enc_std(OP_REDUCE, f3, t[c].cls, 0, 3, 1, 0);
            npk_machine *m = mk_prog("opennpu:K=4,mem_size=64", &w, 1);
            for (unsigned k = 0; k < 4; k++)
                set_lane(m, t[c].cls, 1, k, t[c].in[k]);
            npk_stop st;
            npk_run(m, 0, &st);
            for (unsigned k = 0; k < 4; k++) {
                uint32_t got = get_lane(m, VR, 3, k);
                NPK_REPORT(got == t[c].want[f3], "reduce case %zu f3 %u lane %u: 0x%x want 0x%x\n",
                           c, f3, k, got, t[c].want[f3]);
            }
            /* §5.4 note: VX[4*rd] holds the low byte of r */
            NPK_CHECK_EQ_U64(get_lane(m, VX, 12, 2), t[c].want[f3] & 0xFF);
            /* the source is untouched */
            NPK_CHECK_EQ_U64(get_lane(m, t[c].cls, 1, 0), t[c].in[0]);
            npk_destroy(m);
        }
    }
}

/* §3.1: the example VR[1] lane k = 0xDDCCBBAA, and writes of one view change only its bytes. */
static void views(void)
{
    /* vbcast.reg vr1, vr2 with lane 0 of VR2 = 0xDDCCBBAA */
    uint32_t w[] = {enc_std(OP_BCAST, 0, VR, 0, 1, 2, 0), enc_std(OP_BCAST, 0, VE, 0, 3, 1, 0)};
    npk_machine *m = mk_prog("opennpu", w, 1);
    set_lane(m, VR, 2, 0, 0xDDCCBBAA);
    npk_stop st;
    npk_run(m, 0, &st);
    for (unsigned k = 0; k < 8; k++) {
        NPK_CHECK_EQ_U64(get_lane(m, VX, 4, k), 0xAA);
        NPK_CHECK_EQ_U64(get_lane(m, VX, 5, k), 0xBB);
        NPK_CHECK_EQ_U64(get_lane(m, VX, 6, k), 0xCC);
        NPK_CHECK_EQ_U64(get_lane(m, VX, 7, k), 0xDD);
        NPK_CHECK_EQ_U64(get_lane(m, VE, 2, k), 0xBBAA);
        NPK_CHECK_EQ_U64(get_lane(m, VE, 3, k), 0xDDCC);
        NPK_CHECK_EQ_U64(get_lane(m, VX, 3, k), 0);  /* neighbours untouched */
        NPK_CHECK_EQ_U64(get_lane(m, VX, 8, k), k == 0 ? 0xAA : 0);
    }
    /* the rf space is byte-planar: row r lane k at r*K + k */
    uint8_t row5[8];
    NPK_CHECK(npk_mem_read(m, "rf", 5 * 8, row5, 8) == NPK_OK);
    NPK_CHECK_EQ_U64(row5[7], 0xBB);
    npk_destroy(m);

    /* writing VE[3] (the high half of VR[1]) leaves the low half: vbcast.reg ve3, ve1 */
    m = mk_prog("opennpu", w + 1, 1);
    set_all(m, VR, 1, 0x11223344);
    set_lane(m, VE, 1, 0, 0xBEEF);   /* = rows 2,3 lane 0 */
    npk_run(m, 0, &st);
    for (unsigned k = 0; k < 8; k++)
        NPK_CHECK_EQ_U64(get_lane(m, VR, 1, k), 0xBEEF3344);
    npk_destroy(m);
}

/* §5.5: segment layout bank[s*4K + 4k + b] = byte b of lane k of VR[rs1], and lookups. */
static void lut_layout(const char *spec, unsigned K, unsigned seg, unsigned bank)
{
    uint32_t w = enc_i(OP_LUT, 4 + bank, 0, 1, (int)seg);
    npk_machine *m = mk_prog(spec, &w, 1);
    for (unsigned k = 0; k < K; k++)
        set_lane(m, VR, 1, k, 0x01000000u * (k & 0xF) + 0x10000u * 0xC0 + 0x100u * k + 0x55);
    npk_stop st;
    npk_run(m, 0, &st);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    uint8_t lut[256], other[256];
    npk_mem_read(m, bank ? "lutb" : "luta", 0, lut, 256);
    npk_mem_read(m, bank ? "luta" : "lutb", 0, other, 256);
    for (unsigned i = 0; i < 256; i++) {
        unsigned want = 0;
        if (i / (4 * K) == seg) {
            unsigned k = (i % (4 * K)) / 4, b = i % 4;
            want = b == 0 ? 0x55 : b == 1 ? k : b == 2 ? 0xC0 : (k & 0xF);
        }
        NPK_REPORT(lut[i] == want && other[i] == 0, "%s seg %u entry %u: 0x%x want 0x%x\n", spec,
                   seg, i, lut[i], want);
    }
    npk_destroy(m);
}

static void lut_cases(void)
{
    lut_layout("opennpu", 8, 0, 0);
    lut_layout("opennpu", 8, 7, 1);
    lut_layout("opennpu", 8, 3, 0);
    lut_layout("opennpu:top", 64, 0, 0);
    lut_layout("opennpu:top", 64, 0, 1);
    lut_layout("opennpu:K=4", 4, 15, 1);

    /* vlut.a vx2, vx1 and vlut.b vx3, vx1 with A[i] = 3i + 1, B[i] = 255 - i */
    uint32_t w[] = {enc_r(OP_LUT, 0, 0, 2, 1, 0), enc_r(OP_LUT, 1, 0, 3, 1, 0)};
    npk_machine *m = mk_prog("opennpu:K=4", w, 2);
    uint8_t a[256], b[256];
    for (unsigned i = 0; i < 256; i++) {
        a[i] = (uint8_t)(3 * i + 1);
        b[i] = (uint8_t)(255 - i);
    }
    npk_mem_write(m, "luta", 0, a, 256);
    npk_mem_write(m, "lutb", 0, b, 256);
    static const uint8_t in[4] = {0, 255, 128, 7};
    for (unsigned k = 0; k < 4; k++)
        set_lane(m, VX, 1, k, in[k]);
    npk_stop st;
    npk_run(m, 0, &st);
    for (unsigned k = 0; k < 4; k++) {
        NPK_CHECK_EQ_U64(get_lane(m, VX, 2, k), (uint8_t)(3 * in[k] + 1));
        NPK_CHECK_EQ_U64(get_lane(m, VX, 3, k), 255u - in[k]);
    }
    npk_destroy(m);

    /* §5.5 informative: a linear 256-byte table in memory loads with ld.vr + vsetlut per
     * segment, 2 ticks per segment (K = 8: 8 segments, 16 ticks) */
    uint32_t prog[16];
    for (unsigned s = 0; s < 8; s++) {
        prog[2 * s] = enc_i(OP_LD, 5, 1, 7, (int)(32 * s)); /* ld.vr vr1, 32s(vr7) */
        prog[2 * s + 1] = enc_i(OP_LUT, 4, 0, 1, (int)s);   /* vsetlut.a vr1, s */
    }
    m = mk_prog("opennpu:mem_size=4096", prog, 16);
    uint8_t table[256];
    for (unsigned i = 0; i < 256; i++)
        table[i] = (uint8_t)(i * 37 + 11);
    npk_mem_write(m, "mem", 0, table, 256);
    NPK_CHECK_EQ_U64(run_ticks(m, &st, NULL, 0), 16);
    npk_mem_read(m, "luta", 0, a, 256);
    NPK_CHECK(memcmp(a, table, 256) == 0);
    npk_destroy(m);
}

/* §5.7 vbcast.imm and §5.11 vmovi/vmovh, including the 0.05f example. */
static void imm_cases(void)
{
    static const struct { int imm; uint8_t want; } bc[] = {{42, 0x2A}, {-5, 0xFB}, {200, 0xC8},
                                                          {-56, 0xC8}, {255, 0xFF}, {-128, 0x80}};
    for (size_t i = 0; i < sizeof bc / sizeof bc[0]; i++) {
        uint32_t w = enc_i(OP_BCAST, 1, 9, 0, bc[i].imm);
        npk_machine *m = mk_prog("opennpu:K=4", &w, 1);
        npk_stop st;
        npk_run(m, 0, &st);
        for (unsigned k = 0; k < 4; k++)
            NPK_CHECK_EQ_U64(get_lane(m, VX, 9, k), bc[i].want);
        NPK_CHECK_EQ_U64(get_lane(m, VX, 8, 0), 0);
        npk_destroy(m);
    }
    /* vmovi ve4, 0xCD; vmovh ve4, 0xCC; vmovi ve5, 0x4C; vmovh ve5, 0x3D; vbcast.reg vr2, vr2 */
    uint32_t w[] = {enc_i(OP_MOV, 1, 4, 0, 0xCD), enc_i(OP_MOV, 2, 4, 0, 0xCC),
                    enc_i(OP_MOV, 1, 5, 0, 0x4C), enc_i(OP_MOV, 2, 5, 0, 0x3D),
                    enc_std(OP_BCAST, 0, VR, 0, 2, 2, 0)};
    npk_machine *m = mk_prog("opennpu", w, 5);
    npk_stop st;
    npk_run(m, 0, &st);
    for (unsigned k = 0; k < 8; k++)
        NPK_CHECK_EQ_U64(get_lane(m, VR, 2, k), 0x3D4CCCCD);
    npk_destroy(m);
    /* only lane 0 changes; vmovi sign-extends to 16 bits; vmovh keeps bits [7:0] */
    uint32_t w2[] = {enc_i(OP_MOV, 1, 1, 0, -1), enc_i(OP_MOV, 2, 2, 0, 0x1AB),
                     enc_i(OP_MOV, 1, 3, 0, 2047)};
    m = mk_prog("opennpu:K=4", w2, 3);
    set_all(m, VE, 1, 0x5555);
    set_all(m, VE, 2, 0x1234);
    npk_run(m, 0, &st);
    NPK_CHECK_EQ_U64(get_lane(m, VE, 1, 0), 0xFFFF);
    NPK_CHECK_EQ_U64(get_lane(m, VE, 1, 1), 0x5555);
    NPK_CHECK_EQ_U64(get_lane(m, VE, 2, 0), 0xAB34);
    NPK_CHECK_EQ_U64(get_lane(m, VE, 2, 3), 0x1234);
    NPK_CHECK_EQ_U64(get_lane(m, VE, 3, 0), 0x07FF);
    npk_destroy(m);
}

/* §5.10 loads and stores: lane-0 forms, lane-contiguous memory, byte-planar registers. */
static void ldst_cases(void)
{
    uint8_t mem[256];
    for (unsigned i = 0; i < 256; i++)
        mem[i] = (uint8_t)i;
    /* ld.vr vr1, 16(vr7): mem[16 + 4i + b] -> lane i of VX[4 + b] */
    uint32_t w = enc_i(OP_LD, 5, 1, 7, 16);
    npk_machine *m = mk_prog("opennpu:mem_size=256", &w, 1);
    npk_mem_write(m, "mem", 0, mem, 256);
    npk_stop st;
    npk_run(m, 0, &st);
    for (unsigned i = 0; i < 8; i++)
        for (unsigned b = 0; b < 4; b++)
            NPK_CHECK_EQ_U64(get_lane(m, VX, 4 + b, i), 16 + 4 * i + b);
    npk_destroy(m);

    /* base lane 0 of VR2 = 100; ld.b vx3, -4(vr2) (96); ld.h ve3, 1(vr2) (101..102);
     * ld.w vr3, 7(vr2) (107..110): lane 0 only, other lanes keep 0xEE */
    uint32_t w2[] = {enc_i(OP_LD, 0, 1, 2, -4), enc_i(OP_LD, 1, 1, 2, 1),
                     enc_i(OP_LD, 2, 3, 2, 7), enc_i(OP_LD, 3, 16, 2, 0),
                     enc_i(OP_LD, 4, 9, 2, 0)};
    m = mk_prog("opennpu:K=4,mem_size=256", w2, 5);
    npk_mem_write(m, "mem", 0, mem, 256);
    set_lane(m, VR, 2, 0, 100);
    set_lane(m, VR, 2, 1, 0xFFFFFFFF); /* only lane 0 is the base */
    set_all(m, VX, 1, 0xEE);
    set_all(m, VE, 1, 0xEEEE);
    set_all(m, VR, 3, 0xEEEEEEEE);
    npk_run(m, 0, &st);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(get_lane(m, VX, 1, 0), 96);
    NPK_CHECK_EQ_U64(get_lane(m, VX, 1, 1), 0xEE);
    NPK_CHECK_EQ_U64(get_lane(m, VE, 1, 0), 102 << 8 | 101);
    NPK_CHECK_EQ_U64(get_lane(m, VE, 1, 3), 0xEEEE);
    NPK_CHECK_EQ_U64(get_lane(m, VR, 3, 0), 0x6E6D6C6Bu);
    NPK_CHECK_EQ_U64(get_lane(m, VR, 3, 2), 0xEEEEEEEE);
    for (unsigned i = 0; i < 4; i++) {
        NPK_CHECK_EQ_U64(get_lane(m, VX, 16, i), 100 + i);                 /* ld.vx */
        NPK_CHECK_EQ_U64(get_lane(m, VE, 9, i), (101 + 2 * i) << 8 | (100 + 2 * i)); /* ld.ve */
    }
    NPK_CHECK_EQ_U64(stat_extra(m, "mem_bytes_loaded"), 0); /* the fast loop counts nothing */
    npk_destroy(m);

    /* stores: st.b/h/w lane 0, st.vx/ve/vr all lanes; ST's rd is the stored register */
    uint32_t w3[] = {enc_i(OP_ST, 0, 5, 0, 0), enc_i(OP_ST, 1, 3, 0, 2), enc_i(OP_ST, 2, 2, 0, 4),
                     enc_i(OP_ST, 3, 5, 0, 8), enc_i(OP_ST, 4, 3, 0, 12),
                     enc_i(OP_ST, 5, 2, 0, 20)};
    m = mk_prog("opennpu:K=4,mem_size=36", w3, 6);
    for (unsigned k = 0; k < 4; k++) {
        set_lane(m, VX, 5, k, 0xA0 + k);
        set_lane(m, VE, 3, k, 0xB0B0 + k);
        set_lane(m, VR, 2, k, 0xC0C0C0C0 + k);
    }
    NPK_CHECK_EQ_U64(run_ticks(m, &st, NULL, 0), 6);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    uint8_t out[36];
    npk_mem_read(m, "mem", 0, out, 36);
    static const uint8_t want[36] = {
        0xA0, 0,    0xB0, 0xB0, 0xC0, 0xC0, 0xC0, 0xC0, 0xA0, 0xA1, 0xA2, 0xA3,
        0xB0, 0xB0, 0xB1, 0xB0, 0xB2, 0xB0, 0xB3, 0xB0, 0xC0, 0xC0, 0xC0, 0xC0,
        0xC1, 0xC0, 0xC0, 0xC0, 0xC2, 0xC0, 0xC0, 0xC0, 0xC3, 0xC0, 0xC0, 0xC0};
    for (unsigned i = 0; i < 36; i++)
        NPK_REPORT(out[i] == want[i], "st mem[%u] = 0x%x want 0x%x\n", i, out[i], want[i]);
    NPK_CHECK_EQ_U64(stat_extra(m, "mem_bytes_stored"), 1 + 2 + 4 + 4 + 8 + 16);
    npk_destroy(m);

    /* the last byte of memory is reachable; EA is not wrapped at 32 bits */
    uint32_t w4[] = {enc_i(OP_LD, 3, 1, 0, 32), enc_i(OP_LD, 0, 2, 1, 2047)};
    m = mk_prog("opennpu:mem_size=40", w4, 2);
    mem[39] = 0x77;
    npk_mem_write(m, "mem", 0, mem, 40);
    set_lane(m, VR, 1, 0, 0xFFFFFFFF);
    npk_run(m, 0, &st);
    NPK_CHECK_EQ_U64(get_lane(m, VX, 1, 7), 0x77);
    /* EA = 0xFFFFFFFF + 2047 exactly, not wrapped to 2046 */
    NPK_CHECK(st.reason == NPK_STOP_FAULT);
    NPK_CHECK_CONTAINS(st.message, "EA = 4294969342");
    npk_destroy(m);
}

/* §5.12: the K = 4 GEMM example, keep semantics, running sums, reset, wrap, drain wrap. */
static void mma_cases(void)
{
    static const int8_t A[4][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}, {-1, -2, -3, -4}, {10, 20, 30, 40}};
    static const int8_t B[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {5, 5, 5, 5}};
    uint32_t w[] = {enc_mma(0, 0, 4, 0, 4), enc_mma(0, 1, 4, 1, 5), enc_mma(0, 1, 4, 2, 6),
                    enc_mma(1, 1, 4, 3, 7)};
    npk_machine *m = mk_prog("opennpu:K=4,L=32", w, 4);
    for (unsigned t = 0; t < 4; t++)
        for (unsigned i = 0; i < 4; i++) {
            set_lane(m, VX, t, i, (uint8_t)A[i][t]);     /* column t of A */
            set_lane(m, VX, 4 + t, i, (uint8_t)B[t][i]); /* row t of B */
        }
    npk_stop st;
    NPK_CHECK_EQ_U64(run_ticks(m, &st, NULL, 0), 10); /* 3K - 2 */
    static const int32_t want[4][4] = {{21, 45, -21, 210}, {22, 46, -22, 220},
                                       {23, 47, -23, 230}, {20, 40, -20, 200}};
    for (unsigned j = 0; j < 4; j++)
        for (unsigned i = 0; i < 4; i++)
            NPK_CHECK_EQ_U64(get_lane(m, VR, 4 + j, i), (uint32_t)want[j][i]);
    /* P is kept: acc space, row-major little-endian int32 */
    uint8_t acc[64];
    npk_mem_read(m, "acc", 0, acc, 64);
    NPK_CHECK_EQ_U64(acc[4 * (2 * 4 + 3)] | acc[4 * (2 * 4 + 3) + 1] << 8, 0xFFEC); /* P[2][3] = -20 */
    NPK_CHECK_EQ_U64(acc[4 * 3 + 0], 20);
    NPK_CHECK_EQ_U64(stat_extra(m, "mma_feeds"), 4);
    NPK_CHECK_EQ_U64(stat_extra(m, "mma_util_permille"), 400); /* 4 feeds / 10 ticks */
    npk_destroy(m);

    /* keep = 0 on a later feed discards; keep = 1 on a block's first feed continues (running
     * sum); mma.reset clears P. Stepping one instruction at a time shows P after each.
     * a = VX28 = {1,2,3,4}, b = VX29 = {-1,1,-1,1} (VR7, never drained here). */
    uint32_t w2[] = {enc_mma(1, 0, 0, 28, 28),  /* P = a a^T, drained to VR0..3 */
                     enc_mma(0, 1, 0, 28, 29),  /* new block, keep: P = a a^T + a b^T */
                     enc_mma(0, 0, 0, 29, 29),  /* keep = 0: P = b b^T */
                     enc_mma(2, 0, 0, 0, 0),    /* P = 0 */
                     enc_mma(0, 1, 0, 29, 28),  /* P = 0 + b a^T */
                     enc_mma(1, 1, 0, 28, 28)}; /* P = b a^T + a a^T, drained to VR0..3 */
    m = mk_prog("opennpu:K=4", w2, 6);
    static const int32_t a[4] = {1, 2, 3, 4}, b[4] = {-1, 1, -1, 1};
    for (unsigned k = 0; k < 4; k++) {
        set_lane(m, VX, 28, k, (uint8_t)a[k]);
        set_lane(m, VX, 29, k, (uint8_t)b[k]);
    }
    for (unsigned step = 0; step < 6; step++) {
        NPK_CHECK(npk_run(m, 1, &st) == NPK_OK);
        NPK_CHECK(st.reason == (step == 5 ? NPK_STOP_EXIT : NPK_STOP_BUDGET));
        npk_mem_read(m, "acc", 0, acc, 64);
        for (unsigned i = 0; i < 4; i++)
            for (unsigned j = 0; j < 4; j++) {
                int32_t want_p = step == 0 ? a[i] * a[j] : step == 1 ? a[i] * a[j] + a[i] * b[j]
                               : step == 2 ? b[i] * b[j] : step == 3 ? 0
                               : step == 4 ? b[i] * a[j] : b[i] * a[j] + a[i] * a[j];
                const uint8_t *p = acc + 4 * (4 * i + j);
                uint32_t got = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                               (uint32_t)p[3] << 24;
                NPK_REPORT(got == (uint32_t)want_p, "mma step %u P[%u][%u] = 0x%x want 0x%x\n",
                           step, i, j, got, (uint32_t)want_p);
                if (step == 0 || step == 5)
                    NPK_CHECK_EQ_U64(get_lane(m, VR, j, i), (uint32_t)want_p);
            }
    }
    npk_destroy(m);

    /* int32 wrap of the accumulator: P[0][0] = 0x7FFFFFFF, keep feed of 1*1 */
    uint32_t w3 = enc_mma(0, 1, 0, 1, 1);
    m = mk_prog("opennpu:K=4", &w3, 1);
    uint8_t p00[4] = {0xFF, 0xFF, 0xFF, 0x7F};
    npk_mem_write(m, "acc", 0, p00, 4);
    set_all(m, VX, 1, 1);
    npk_run(m, 0, &st);
    npk_mem_read(m, "acc", 0, acc, 8);
    NPK_CHECK_EQ_U64(acc[3], 0x80);
    NPK_CHECK_EQ_U64(acc[0], 0);
    NPK_CHECK_EQ_U64(acc[4], 1); /* P[0][1] = 0 + 1 */
    npk_destroy(m);

    /* drain wrap, K = 8 > L/4 = 4: VR[(1 + j) mod 4] ends up holding column j + 4 */
    uint32_t w4 = enc_mma(1, 0, 1, 8, 9);
    m = mk_prog("opennpu:K=8,L=16", &w4, 1);
    for (unsigned k = 0; k < 8; k++) {
        set_lane(m, VX, 8, k, (uint8_t)(k == 7 ? -128 : (int)k + 1)); /* a_i */
        set_lane(m, VX, 9, k, (uint8_t)(k == 7 ? -128 : (int)(10 * k))); /* b_j */
    }
    npk_run(m, 0, &st);
    for (unsigned r = 0; r < 4; r++) {
        unsigned j = (r + 3) % 4 + 4; /* VR1 <- col 4, VR2 <- 5, VR3 <- 6, VR0 <- 7 */
        int32_t bj = j == 7 ? -128 : (int32_t)(10 * j);
        for (unsigned i = 0; i < 8; i++)
            NPK_CHECK_EQ_U64(get_lane(m, VR, r, i),
                             (uint32_t)((i == 7 ? -128 : (int32_t)i + 1) * bj)); /* -128 * -128 = 16384 */
    }
    npk_destroy(m);
}

int main(void)
{
    /* the encoder against the §7.4 example words */
    NPK_CHECK_EQ_U64(enc_std(OP_ARITH, 0, VX, 0, 0, 1, 2), 0x00208010);
    NPK_CHECK_EQ_U64(enc_std(OP_ARITH, 0, VE, 1, 4, 5, 6), 0x22628210);
    NPK_CHECK_EQ_U64(enc_std(OP_ARITH, 2, VR, 1, 4, 4, 5), 0x24522210);
    NPK_CHECK_EQ_U64(enc_std(OP_LOGIC, 2, VR, 0, 3, 0, 1), 0x04102191);
    NPK_CHECK_EQ_U64(enc_std(OP_REDUCE, 1, VX, 0, 3, 0, 0), 0x00001192);
    NPK_CHECK_EQ_U64(enc_r(OP_LUT, 1, 0, 7, 6, 0), 0x00031393);
    NPK_CHECK_EQ_U64(enc_i(OP_LUT, 4, 0, 3, 2), 0x0021C013);
    NPK_CHECK_EQ_U64(enc_cvt(F_S8, F_F32, 1, RNE, 0, 31, 2), 0x16010F94);
    NPK_CHECK_EQ_U64(enc_cvt(F_F32, F_BF8, 0, RNE, 1, 0, 1), 0x8A00B014);
    NPK_CHECK_EQ_U64(enc_i(OP_BCAST, 1, 3, 0, 42), 0x02A01195);
    NPK_CHECK_EQ_U64(enc_fp(0, RNE, 0, 1, 2), 0x44208016);
    NPK_CHECK_EQ_U64(enc_s(1, 0, 1, 2, 3, RTZ), 0x1A209017);
    NPK_CHECK_EQ_U64(enc_i(OP_MOV, 1, 1, 0, 5), 0x00501098);
    NPK_CHECK_EQ_U64(enc_mma(0, 1, 2, 0, 8), 0x24800103);
    NPK_CHECK_EQ_U64(enc_mma(1, 0, 2, 0, 8), 0x04801103);
    NPK_CHECK_EQ_U64(enc_mma(2, 0, 0, 0, 0), 0x04002003);
    NPK_CHECK_EQ_U64(enc_i(OP_LD, 5, 1, 2, -1), 0xFFF15081);
    NPK_CHECK_EQ_U64(enc_i(OP_ST, 3, 3, 0, 5), 0x00503182);

    lane_cases();
    reduce_cases();
    views();
    lut_cases();
    imm_cases();
    ldst_cases();
    mma_cases();
    return npk_test_done();
}
