/* opennpu configuration (spec §2: presets, validation messages), backdoor spaces (§9), traps
 * (§6.2: no effect, what is reported, ticks of the completed instructions), the end of the
 * program and the instruction budget. */
#include "onpu_test.h"

static void bad_config(const char *spec, const char *want)
{
    npk_machine *m = NULL;
    char err[512] = "";
    NPK_CHECK(npk_create(&m, spec, NULL, err, sizeof err) == NPK_ERR_ARG);
    NPK_CHECK(m == NULL);
    NPK_CHECK_CONTAINS(err, want);
}

static void config_cases(void)
{
    bad_config("opennpu:N=16", "opennpu: N(bits)=16 is not supported: FP32 lanes are 4*N(bits) "
                               "= 32 bits wide, so N(bits) must be 8");
    bad_config("opennpu:N=4", "N(bits)=4 is not supported");
    bad_config("opennpu:L=6", "L=6 is not legal (legal: a multiple of 4 from 4 to 32)");
    bad_config("opennpu:L=36", "L=36");
    bad_config("opennpu:L=0", "L=0");
    bad_config("opennpu:K=3", "K=3 is not legal (legal: a power of two from 4 to 64");
    bad_config("opennpu:K=128", "K=128");
    bad_config("opennpu:K=2", "K=2");
    bad_config("opennpu:K=48", "K=48");
    bad_config("opennpu:mem_size=0", "mem_size=0 is out of range (legal: 1 .. 4294967296)");
    bad_config("opennpu:mem_size=4294967297", "mem_size");
    bad_config("opennpu:mem_latency=0", "mem_latency=0 is out of range (legal: 1 .. 65535)");
    bad_config("opennpu:mem_latency=65536", "mem_latency=65536");
    bad_config("opennpu:mem_latency=x", "mem_latency=x is not a number");
    bad_config("opennpu:huge", "unknown preset or setting 'huge'");
    bad_config("opennpu:Q=1", "unknown setting 'Q'");

    static const struct { const char *spec, *want; } ok[] = {
        {"opennpu", "N=8,L=32,K=8,mem_size=1048576,mem_latency=1"},
        {"opennpu:test", "N=8,L=32,K=8,mem_size=1048576,mem_latency=1"},
        {"opennpu:top", "N=8,L=32,K=64,mem_size=1048576,mem_latency=1"},
        {"opennpu:top,mem_size=4K,mem_latency=7", "N=8,L=32,K=64,mem_size=4096,mem_latency=7"},
        {"opennpu:N=8,L=4,K=4,mem_size=1", "N=8,L=4,K=4,mem_size=1,mem_latency=1"},
        {"opennpu:l=16,k=64", "N=8,L=16,K=64,mem_size=1048576,mem_latency=1"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        npk_machine *m = mk(ok[i].spec);
        NPK_CHECK_EQ_STR(npk_config_string(m), ok[i].want);
        npk_destroy(m);
    }
    /* space sizes follow the configuration: rf L*K, acc K*K*4, LUTs 256 */
    npk_machine *m = mk("opennpu:top");
    static const struct { const char *name; uint64_t size; } sp[] = {
        {"rf", 2048}, {"ve", 2048}, {"vr", 2048}, {"luta", 256}, {"lutb", 256},
        {"acc", 64 * 64 * 4}, {"mem", 1048576}, {"prog", 0}};
    for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++) {
        int found = 0;
        for (size_t j = 0; j < npk_space_count(m); j++)
            if (strcmp(npk_space(m, j)->name, sp[i].name) == 0) {
                found = 1;
                NPK_CHECK_EQ_U64(npk_space(m, j)->size, sp[i].size);
            }
        NPK_REPORT(found, "no space %s\n", sp[i].name);
    }
    uint8_t b = 0;
    NPK_CHECK(npk_mem_write(m, "rf", 2048, &b, 1) == NPK_ERR_RANGE);
    NPK_CHECK(npk_mem_read(m, "acc", 16384, &b, 1) == NPK_ERR_RANGE);
    npk_destroy(m);
}

/* §6.2: an illegal word stops the run at its pc; earlier instructions took effect. */
static void illegal_traps(void)
{
    uint32_t w[] = {enc_i(OP_BCAST, 1, 1, 0, 7), enc_std(OP_ARITH, 0, VX, 0, 2, 1, 1),
                    0x0000007F, enc_i(OP_BCAST, 1, 3, 0, 9)};
    npk_machine *m = mk_prog("opennpu:K=4", w, 4);
    npk_stop st;
    uint64_t ticks = run_ticks(m, &st, NULL, 0);
    NPK_CHECK(st.reason == NPK_STOP_FAULT);
    NPK_CHECK_CONTAINS(st.message, "illegal instruction at pc 2");
    NPK_CHECK_CONTAINS(st.message, "word 0x0000007f");
    NPK_CHECK_CONTAINS(st.message, "reserved opcode");
    NPK_CHECK_EQ_U64(st.insn[0], 0x7F);
    NPK_CHECK_EQ_U64(st.pc, 8);
    NPK_CHECK_EQ_U64(ticks, 2);
    npk_stats s;
    npk_stats_get(m, &s);
    NPK_CHECK_EQ_U64(s.insns, 2);
    NPK_CHECK_EQ_U64(stat_extra(m, "traps"), 1);
    NPK_CHECK_EQ_U64(get_lane(m, VX, 2, 3), 14);
    NPK_CHECK_EQ_U64(get_lane(m, VX, 3, 0), 0);
    uint64_t pc = 0;
    NPK_CHECK(npk_reg_read(m, "pc", &pc) == NPK_OK);
    NPK_CHECK_EQ_U64(pc, 2);
    /* running again stops at the same word */
    npk_run(m, 0, &st);
    NPK_CHECK(st.reason == NPK_STOP_FAULT);
    NPK_CHECK_CONTAINS(st.message, "pc 2");
    npk_destroy(m);

    /* the reasons come from the decoder (§4.5), and the configuration matters: vr4 at L = 16
     * (rule 5), segment 2 at K = 32 (rule 6), width 11 (rule 4), reserved funct3 (rule 2) */
    static const struct { const char *spec; uint32_t word; const char *why; } ill[] = {
        {"opennpu:L=16", enc_std(OP_ARITH, 0, VR, 0, 4, 0, 0), "range"},
        {"opennpu:K=32", enc_i(OP_LUT, 4, 0, 1, 2), "segment"},
        {"opennpu:top", enc_i(OP_LUT, 5, 0, 1, 1), "segment"},
        {"opennpu", enc_i(OP_LUT, 4, 0, 1, -1), "segment"},
        {"opennpu", enc_r(OP_ARITH, 0, 3, 0, 0, 0), "width"},
        {"opennpu", enc_r(OP_LOGIC, 0, 0x60, 0, 0, 0), "dtype"},
        {"opennpu", enc_r(OP_LD, 6, 0, 0, 0, 0), "funct3"},
        {"opennpu", enc_cvt(F_S16, F_S8, 0, 0, 0, 0, 0), "conversion"},
        {"opennpu", 0x00000020, "opcode"},
    };
    for (size_t i = 0; i < sizeof ill / sizeof ill[0]; i++) {
        m = mk_prog(ill[i].spec, &ill[i].word, 1);
        npk_run(m, 0, &st);
        NPK_REPORT(st.reason == NPK_STOP_FAULT, "%s 0x%08x did not trap\n", ill[i].spec,
                   ill[i].word);
        NPK_CHECK_CONTAINS(st.message, ill[i].why);
        NPK_CHECK_CONTAINS(st.message, "pc 0");
        npk_destroy(m);
    }
    /* the same words are legal where the configuration allows them */
    uint32_t ok[] = {enc_std(OP_ARITH, 0, VR, 0, 4, 0, 0), enc_i(OP_LUT, 4, 0, 1, 1),
                     0x00000000 | 0xFFFFFF80u /* nop ignores bits [31:7] */};
    m = mk_prog("opennpu:K=16", ok, 3);
    npk_run(m, 0, &st);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    npk_destroy(m);
}

/* §6.2: a memory fault has no effect at all and reports EA, n and mem_size. */
static void memory_traps(void)
{
    /* ld.vr vr1, -1(vr2) with VR2 lane 0 = 0: EA = -1 */
    uint32_t w[] = {enc_i(OP_BCAST, 1, 4, 0, 5), enc_i(OP_LD, 5, 1, 2, -1)};
    npk_machine *m = mk_prog("opennpu:mem_size=64", w, 2);
    set_all(m, VR, 1, 0x12345678);
    npk_stop st;
    uint64_t ticks = run_ticks(m, &st, NULL, 0);
    NPK_CHECK(st.reason == NPK_STOP_FAULT);
    NPK_CHECK_CONTAINS(st.message, "memory fault at pc 1");
    NPK_CHECK_CONTAINS(st.message, "0xfff15081");
    NPK_CHECK_CONTAINS(st.message, "EA = -1, n = 32 bytes, mem_size = 64");
    NPK_CHECK_EQ_U64(ticks, 1);
    /* VX4 (byte 0 of VR1) holds the vbcast, the rest of VR1 is untouched */
    for (unsigned k = 0; k < 8; k++)
        NPK_CHECK_EQ_U64(get_lane(m, VR, 1, k), 0x12345605);
    npk_destroy(m);

    /* partly outside: st.vr at 40 with K = 8 (n = 32, 72 > 64); memory keeps its bytes */
    uint32_t s1 = enc_i(OP_ST, 5, 1, 0, 40);
    m = mk_prog("opennpu:mem_size=64", &s1, 1);
    set_all(m, VR, 1, 0xFFFFFFFF);
    uint8_t mem[64];
    memset(mem, 0xA5, sizeof mem);
    npk_mem_write(m, "mem", 0, mem, 64);
    npk_run(m, 0, &st);
    NPK_CHECK_CONTAINS(st.message, "EA = 40, n = 32 bytes, mem_size = 64");
    npk_mem_read(m, "mem", 0, mem, 64);
    for (unsigned i = 0; i < 64; i++)
        NPK_REPORT(mem[i] == 0xA5, "faulting store wrote mem[%u]\n", i);
    npk_destroy(m);

    /* exactly at the end is fine, one byte more faults: st.w at 60 and 61 */
    uint32_t s2[] = {enc_i(OP_ST, 2, 1, 0, 60), enc_i(OP_ST, 2, 1, 0, 61)};
    m = mk_prog("opennpu:mem_size=64", s2, 2);
    set_all(m, VR, 1, 0x04030201);
    npk_run(m, 0, &st);
    NPK_CHECK_CONTAINS(st.message, "memory fault at pc 1");
    NPK_CHECK_CONTAINS(st.message, "EA = 61, n = 4 bytes");
    npk_mem_read(m, "mem", 60, mem, 4);
    NPK_CHECK_EQ_U64(mem[3], 4);
    npk_destroy(m);
}

/* The end of the program is exit status 0; a budget stops in the middle and resumes. */
static void budget(void)
{
    uint32_t w[5];
    for (unsigned i = 0; i < 5; i++)
        w[i] = enc_i(OP_BCAST, 1, i, 0, (int)i + 1);
    npk_machine *m = mk_prog("opennpu:K=4", w, 5);
    npk_stop st;
    NPK_CHECK(npk_run(m, 2, &st) == NPK_OK);
    NPK_CHECK(st.reason == NPK_STOP_BUDGET);
    NPK_CHECK_CONTAINS(st.message, "pc 2");
    NPK_CHECK_EQ_U64(get_lane(m, VX, 1, 0), 2);
    NPK_CHECK_EQ_U64(get_lane(m, VX, 2, 0), 0);
    NPK_CHECK(npk_run(m, 3, &st) == NPK_OK);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(st.exit_code, 0);
    NPK_CHECK_EQ_U64(get_lane(m, VX, 4, 3), 5);
    /* reset clears the register file and restarts at word 0 */
    NPK_CHECK(npk_reset(m) == NPK_OK);
    NPK_CHECK_EQ_U64(get_lane(m, VX, 4, 3), 0);
    npk_run(m, 1, &st);
    NPK_CHECK_EQ_U64(get_lane(m, VX, 0, 0), 1);
    npk_destroy(m);

    /* a program image that is not whole words is refused; an empty one ends at once */
    m = mk("opennpu");
    uint8_t three[3] = {0};
    NPK_CHECK(npk_load_raw(m, three, 3, 0) != NPK_OK);
    NPK_CHECK(npk_load_raw(m, three, 0, 0) == NPK_OK);
    npk_run(m, 0, &st);
    NPK_CHECK(st.reason == NPK_STOP_EXIT);
    npk_destroy(m);

    /* the program space reads back the words and can be patched before the run */
    uint32_t nop2[2] = {0, 0};
    m = mk_prog("opennpu", nop2, 2);
    uint8_t ill[4] = {0x7F, 0, 0, 0};
    NPK_CHECK(npk_mem_write(m, "prog", 4, ill, 4) == NPK_OK);
    npk_run(m, 0, &st);
    NPK_CHECK(st.reason == NPK_STOP_FAULT);
    NPK_CHECK_CONTAINS(st.message, "pc 1");
    npk_destroy(m);
}

int main(void)
{
    config_cases();
    illegal_traps();
    memory_traps();
    budget();
    return npk_test_done();
}
