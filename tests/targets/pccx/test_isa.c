/* pccx encoding (spec §4): the §4.9 table (encoders, decoder, canonical disassembly), encoder
 * fit checks (§12.3), every row of the §4.8 validity table in strict and hw-compat mode, and
 * field round trips over random words. */
#include <stdlib.h>

#include "targets/pccx/isa.h"
#include "spec_examples.h"
#include "test.h"

static const pccx_spec_example *const table = pccx_spec_examples;

static void test_table(void)
{
    uint64_t w[14];
    /* the same rows built with the public encoders (§12.2) */
    NPK_CHECK(pccx_enc_gemv(&w[0], 0x300, 0x40, PCCX_FLAG_FINDEMAX, 5, 4, 0) == PCCX_OK);
    NPK_CHECK(pccx_enc_gemm(&w[1], 0x1000, 0x800, PCCX_FLAG_ACCM | PCCX_FLAG_W_SCALE, 7, 6, 15) ==
              PCCX_OK);
    NPK_CHECK(pccx_enc_memcpy(&w[2], 1, 0, 0x40, 0, 0x200, 4, 0) == PCCX_OK);
    NPK_CHECK(pccx_enc_memcpy(&w[3], 0, 1, 0, 0x300, 0x400, 5, 1) == PCCX_OK);
    NPK_CHECK(pccx_enc_memcpy(&w[4], 0, 0, 0x2000, 0x300, 0, 5, 0) == PCCX_OK);
    NPK_CHECK(pccx_enc_memset(&w[5], PCCX_BANK_FMAP, 4, 1, 256, 1) == PCCX_OK);
    NPK_CHECK(pccx_enc_memset(&w[6], PCCX_BANK_FMAP, 5, 1, 512, 1) == PCCX_OK);
    NPK_CHECK(pccx_enc_memset(&w[7], PCCX_BANK_WEIGHT, 4, 1, 2048, 2048) == PCCX_OK);
    NPK_CHECK(pccx_enc_cvo(&w[8], PCCX_CVO_EXP, 0x1800, 0x2001, 512, PCCX_CVO_FLAG_SUB_EMAX, 0) ==
              PCCX_OK);
    NPK_CHECK(pccx_enc_cvo(&w[9], PCCX_CVO_REDUCE_SUM, 0x2001, 0x2000, 512, 0, 0) == PCCX_OK);
    NPK_CHECK(pccx_enc_cvo(&w[10], PCCX_CVO_SCALE, 0x2000, 0x2400, 513,
                           PCCX_CVO_FLAG_RECIP_SCALE, 0) == PCCX_OK);
    NPK_CHECK(pccx_enc_cvo(&w[11], PCCX_CVO_GELU, 0x4000, 0x4000, 16384, 0, 1) == PCCX_OK);
    NPK_CHECK(pccx_enc_cvo(&w[12], PCCX_CVO_VMUL, 0x3000, 0x3400, 2048, 0, 0) == PCCX_OK);
    NPK_CHECK(pccx_enc_cvo(&w[13], PCCX_CVO_COPY, 0x3400, 0x3800, 2048, PCCX_CVO_FLAG_ACCM, 0) ==
              PCCX_OK);
    for (size_t i = 0; i < PCCX_N_SPEC_EXAMPLES; i++) {
        char buf[160];
        NPK_CHECK_EQ_U64(w[i], table[i].word);
        pccx_disasm(table[i].word, table[i].ext, buf, sizeof buf);
        NPK_CHECK_EQ_STR(buf, table[i].text);
        pccx_insn_t d;
        NPK_CHECK(pccx_decode(table[i].word, table[i].ext, &d) == PCCX_OK);
    }
    /* decoded fields of two rows, by hand from the words */
    pccx_insn_t d;
    pccx_decode(0x108000200181C678ull, 0, &d);
    NPK_CHECK(d.opcode == PCCX_OP_GEMM && d.dest == 0x1000 && d.src == 0x800 &&
              d.flags == (PCCX_FLAG_ACCM | PCCX_FLAG_W_SCALE) && d.size_ptr == 7 &&
              d.shape_ptr == 6 && d.lanes == 15);
    pccx_decode(0x4610000900008050ull, 0, &d);
    NPK_CHECK(d.opcode == PCCX_OP_CVO && d.func == PCCX_CVO_SCALE && d.src == 0x2000 &&
              d.dst == 0x2400 && d.length == 513 && d.flags == PCCX_CVO_FLAG_RECIP_SCALE &&
              d.async == 0);
    /* the ext rows are illegal without ext: printed as .word */
    char buf[64];
    pccx_disasm(0x4918000D00020000ull, 0, buf, sizeof buf);
    NPK_CHECK_EQ_STR(buf, ".word 0x4918000d00020000");
    /* snprintf-like length when the buffer is short */
    NPK_CHECK(pccx_disasm(0x0018000102014400ull, 0, buf, 5) ==
              (int)strlen("gemv dst=0x300, src=0x40, size=5, shape=4, findemax"));
    NPK_CHECK_EQ_STR(buf, "gemv");
}

static void test_fit(void)
{
    uint64_t w = 0;
    /* §12.3: never truncate */
    NPK_CHECK(pccx_enc_gemv(&w, 0x20000, 0, 0, 0, 0, 0) == PCCX_E_ARG);
    NPK_CHECK(pccx_enc_gemv(&w, 0, 0x20000, 0, 0, 0, 0) == PCCX_E_ARG);
    NPK_CHECK(pccx_enc_gemv(&w, 0, 0, 0x40, 0, 0, 0) == PCCX_E_ARG);
    NPK_CHECK(pccx_enc_gemv(&w, 0, 0, 0, 64, 0, 0) == PCCX_E_ARG);
    NPK_CHECK(pccx_enc_gemv(&w, 0, 0, 0, 0, 64, 0) == PCCX_E_ARG);
    NPK_CHECK(pccx_enc_gemm(&w, 0, 0, 0, 0, 0, 32) == PCCX_E_ARG);
    NPK_CHECK(pccx_enc_cvo(&w, PCCX_CVO_EXP, 0, 0, 1, 1u << 5, 0) == PCCX_E_ARG); /* §4.6 */
    NPK_CHECK(pccx_enc_cvo(&w, 16, 0, 0, 1, 0, 0) == PCCX_E_ARG);
    NPK_CHECK(pccx_enc_cvo(&w, PCCX_CVO_EXP, 0, 0, 65536, 0, 0) == PCCX_E_ARG);
    NPK_CHECK(pccx_enc_cvo(&w, PCCX_CVO_EXP, 0, 0, 1, 0, 2) == PCCX_E_ARG);
    NPK_CHECK(pccx_enc_memset(&w, 4, 0, 0, 0, 0) == PCCX_E_ARG);
    NPK_CHECK(pccx_enc_memset(&w, 0, 64, 0, 0, 0) == PCCX_E_ARG);
    NPK_CHECK(pccx_enc_memcpy(&w, 2, 0, 0, 0, 0, 0, 0) == PCCX_E_ARG);
    NPK_CHECK(pccx_enc_memcpy(&w, 0, 0, 0, 0, 0x20000, 0, 0) == PCCX_E_ARG);
    /* encoders do not apply the validity rules: reserved values can be built */
    NPK_CHECK(pccx_enc_memset(&w, 3, 0, 0, 0, 0) == PCCX_OK && w == 0x3C00000000000000ull);
    NPK_CHECK(pccx_enc_memcpy(&w, 1, 1, 0, 0, 0, 0, 0) == PCCX_OK && w == 0x2C00000000000000ull);
}

/* One §4.8 row: strict error, hw-compat outcome (0 = executes with bits ignored, 1 = dropped,
 * or the error), and the word the instruction executes as in hw-compat. */
static void row(uint64_t w, int ext, int strict_code, int hw_code, int hw_dropped,
                uint64_t hw_eff_word, const char *why_part)
{
    pccx_insn_t d, eff;
    int dropped;
    char why[200];
    pccx_unpack(w, &d);
    NPK_REPORT(pccx_validity(&d, ext) == strict_code, "word %016llx strict: %s, want %s\n",
               (unsigned long long)w, pccx_error_name(pccx_validity(&d, ext)),
               pccx_error_name(strict_code));
    int rc = pccx_effective(&d, ext, 0, &eff, &dropped, why, sizeof why);
    NPK_CHECK(rc == strict_code);
    NPK_REPORT(strstr(why, why_part) != NULL, "word %016llx: reason '%s' lacks '%s'\n",
               (unsigned long long)w, why, why_part);
    rc = pccx_effective(&d, ext, 1, &eff, &dropped, why, sizeof why);
    NPK_REPORT(rc == hw_code && dropped == hw_dropped, "word %016llx hw-compat: %s dropped %d\n",
               (unsigned long long)w, pccx_error_name(rc), dropped);
    if (rc == PCCX_OK && !dropped) {
        uint64_t ew = 0;
        eff.reserved_bits = 0;
        NPK_CHECK(pccx_encode(&eff, &ew, NULL) == PCCX_OK);
        NPK_REPORT(ew == hw_eff_word, "word %016llx executes as %016llx, want %016llx\n",
                   (unsigned long long)w, (unsigned long long)ew,
                   (unsigned long long)hw_eff_word);
    }
}

static void test_validity(void)
{
    /* opcode 0x5..0xF, including the KICK word */
    row(0x8000000000000000ull, 0, PCCX_E_ILLEGAL_OPCODE, PCCX_OK, 1, 0, "opcode 0x8");
    row(0x5000000000000000ull, 1, PCCX_E_ILLEGAL_OPCODE, PCCX_OK, 1, 0, "opcode 0x5");
    /* CVO func 0xF; ext functions without ext; allowed with ext */
    row(0x4F00000000000040ull, 1, PCCX_E_ILLEGAL_FUNC, PCCX_OK, 1, 0, "0xF");
    row(0x4A00000000000040ull, 0, PCCX_E_ILLEGAL_FUNC, PCCX_OK, 1, 0, "ext");
    row(0x4A00000000000040ull, 1, PCCX_OK, PCCX_OK, 0, 0x4A00000000000040ull, "");
    /* MEMSET dest_cache 2 and 3 */
    row(0x3800000000000000ull, 0, PCCX_E_RESERVED_VALUE, PCCX_OK, 1, 0, "dest_cache 2");
    /* GEMV bits [2:0] and [22:20]; GEMM too */
    row(0x0000000000000005ull, 0, PCCX_E_RESERVED, PCCX_OK, 0, 0, "0x5");
    row(0x1000000000100000ull | 0x0000000002000000ull, 0, PCCX_E_RESERVED, PCCX_OK, 0,
        0x0000000002000000ull | 0x1000000000000000ull, "0x100000");
    /* MEMSET bits [3:0] */
    row(0x3000000000000003ull, 0, PCCX_E_RESERVED, PCCX_OK, 0, 0x3000000000000000ull, "0x3");
    /* CVO bits [2:1] (async, bit 0, is legal) */
    row(0x4000000000000047ull, 0, PCCX_E_RESERVED, PCCX_OK, 0, 0x4000000000000041ull, "0x6");
    /* MEMCPY: the route's must-be-zero field (h2l: src; l2h: dst; l2l: aux) */
    row(0x2800000001000000ull, 0, PCCX_E_RESERVED, PCCX_OK, 0, 0x2800000000000000ull, "src");
    row(0x2400020000000000ull, 0, PCCX_E_RESERVED, PCCX_OK, 0, 0x2400000000000000ull, "dst");
    row(0x2000000000000080ull, 0, PCCX_E_RESERVED, PCCX_OK, 0, 0x2000000000000000ull, "aux");
    /* recip_scale with a function other than SCALE; allowed with SCALE */
    row(0x4000000000000050ull, 0, PCCX_E_BAD_FLAGS, PCCX_OK, 0, 0x4000000000000040ull,
        "recip_scale");
    row(0x4600000000000050ull, 0, PCCX_OK, PCCX_OK, 0, 0x4600000000000050ull, "");
    /* ext VMUL with accm */
    row(0x4900000000000048ull, 1, PCCX_E_BAD_FLAGS, PCCX_OK, 0, 0x4900000000000040ull, "vmul");
    /* host -> host: E_ROUTE in every mode */
    row(0x2C00000000000000ull, 0, PCCX_E_ROUTE, PCCX_E_ROUTE, 0, 0, "host -> host");
    /* several rows: strict reports the first in table order; hw-compat drops */
    row(0x3800000000000003ull, 0, PCCX_E_RESERVED_VALUE, PCCX_OK, 1, 0, "dest_cache");
    /* hw-compat applies every "ignored" row at once: reserved bits and recip_scale */
    row(0x4000000000000056ull, 0, PCCX_E_RESERVED, PCCX_OK, 0, 0x4000000000000040ull, "0x6");
    /* parallel_lane bit 4 is never invalid */
    row(0x0000000000000080ull, 0, PCCX_OK, PCCX_OK, 0, 0x0000000000000080ull, "");
}

static void test_roundtrip(void)
{
    uint64_t s = 0x9E3779B97F4A7C15ull;
    unsigned ok = 0, legal = 0;
    for (int i = 0; i < 200000; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        uint64_t w = (s & 0x0FFFFFFFFFFFFFFFull) | (uint64_t)(i % 5) << 60;
        pccx_insn_t d;
        uint64_t back = 0;
        pccx_unpack(w, &d);
        if (pccx_encode(&d, &back, NULL) == PCCX_OK && back == w)
            ok++;
        if (pccx_validity(&d, 1) == PCCX_OK)
            legal++;
    }
    NPK_CHECK_EQ_U64(ok, 200000);
    NPK_CHECK(legal > 1000); /* the sample reaches legal words of several kinds */
}

static void test_names(void)
{
    pccx_insn_t d;
    pccx_unpack(0x204000030000000Aull, &d);
    NPK_CHECK_EQ_STR(pccx_mnemonic_names[pccx_mnemonic_id(&d)], "memcpy.l2l");
    pccx_unpack(0x240000030002000Bull, &d);
    NPK_CHECK_EQ_STR(pccx_mnemonic_names[pccx_mnemonic_id(&d)], "memcpy.l2h");
    pccx_unpack(0x4E00000000000040ull, &d);
    NPK_CHECK_EQ_STR(pccx_mnemonic_names[pccx_mnemonic_id(&d)], "reduce_max");
    NPK_CHECK_EQ_STR(pccx_mnemonic_names[PCCX_N_MNEMONICS - 1], "dropped");
    NPK_CHECK_EQ_STR(pccx_error_name(PCCX_E_WEIGHT_SHAPE), "PCCX_E_WEIGHT_SHAPE");
    NPK_CHECK_EQ_STR(pccx_error_name(-99), "?");
}

int main(void)
{
    test_table();
    test_fit();
    test_validity();
    test_roundtrip();
    test_names();
    return npk_test_done();
}
