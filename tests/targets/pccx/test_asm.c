/* pccx assembler (spec §13): the §4.9 encoding table, the §13.4 example, disassembly round
 * trips of random words, the §4.8 rules in both modes, operand and directive errors, data
 * directives and the §3.2 literal conversion. Expected words are built from the spec's bit
 * positions here, independently of isa.def. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num/num.h"
#include "targets/pccx/isa.h"
#include "targets/pccx/prog.h"
#include "spec_examples.h"
#include "test.h"

/* ---- helpers --------------------------------------------------------------------------------- */

typedef struct run {
    int rc;                 /* pccx_assemble's result */
    pccx_prog *p;
    char *diag;
} run;

static run assemble(const char *src, int ext, int hw)
{
    run r = {0, NULL, NULL};
    size_t dlen = 0;
    FILE *f = open_memstream(&r.diag, &dlen);
    r.rc = pccx_assemble(src, strlen(src), "t.s", ext, hw, f, NULL, &r.p);
    if (f)
        fclose(f);
    if (!r.diag)
        r.diag = calloc(1, 1);
    return r;
}

static void done(run *r)
{
    pccx_prog_free(r->p);
    free(r->diag);
    r->p = NULL;
    r->diag = NULL;
}

/* The single word of a one-instruction source, or a marker on failure. */
static uint64_t one_word(const char *src, int ext)
{
    run r = assemble(src, ext, -1);
    uint64_t w = r.rc == 0 && r.p && r.p->n_words == 1 ? r.p->words[0] : 0xBADBADBADBADBAD1ull;
    if (r.rc)
        fprintf(stderr, "assembling \"%s\":\n%s", src, r.diag);
    done(&r);
    return w;
}

/* Expect an error whose text contains `needle` (and a file:line:col position). */
static void expect_error(const char *src, int ext, int hw, const char *needle, const char *pos)
{
    run r = assemble(src, ext, hw);
    NPK_REPORT(r.rc > 0 && r.p == NULL, "no error for:\n%s\n(diag: %s)\n", src, r.diag);
    NPK_REPORT(strstr(r.diag, needle) != NULL, "error for:\n%s\nlacks \"%s\":\n%s\n", src, needle,
               r.diag);
    if (pos)
        NPK_REPORT(strstr(r.diag, pos) != NULL, "error for:\n%s\nlacks position \"%s\":\n%s\n",
                   src, pos, r.diag);
    done(&r);
}

/* ---- spec encodings (§4.2-§4.5) built by hand ------------------------------------------------ */

static uint64_t gemx(unsigned op, uint64_t dst, uint64_t src, unsigned flags, unsigned size,
                     unsigned shape, unsigned lanes)
{
    return (uint64_t)op << 60 | dst << 43 | src << 26 | (uint64_t)flags << 20 |
           (uint64_t)size << 14 | (uint64_t)shape << 8 | (uint64_t)lanes << 3;
}

static uint64_t memset_w(unsigned bank, unsigned idx, unsigned a, unsigned b, unsigned c)
{
    return (uint64_t)3 << 60 | (uint64_t)bank << 58 | (uint64_t)idx << 52 | (uint64_t)a << 36 |
           (uint64_t)b << 20 | (uint64_t)c << 4;
}

static uint64_t memcpy_w(unsigned from, unsigned to, uint64_t dst, uint64_t src, uint64_t aux,
                         unsigned shape, unsigned async)
{
    return (uint64_t)2 << 60 | (uint64_t)from << 59 | (uint64_t)to << 58 | dst << 41 |
           src << 24 | aux << 7 | (uint64_t)shape << 1 | async;
}

/* ---- §4.9 ------------------------------------------------------------------------------------ */

static void test_table(void)
{
    const pccx_spec_example *rows = pccx_spec_examples;
    for (size_t i = 0; i < PCCX_N_SPEC_EXAMPLES; i++) {
        uint64_t w = one_word(rows[i].text, rows[i].ext);
        NPK_REPORT(w == rows[i].word, "§4.9 \"%s\" = 0x%016llx, want 0x%016llx\n", rows[i].text,
                   (unsigned long long)w, (unsigned long long)rows[i].word);
        char text[160];
        pccx_disasm(rows[i].word, rows[i].ext, text, sizeof text);
        NPK_REPORT(strcmp(text, rows[i].text) == 0, "disasm 0x%016llx = \"%s\", want \"%s\"\n",
                   (unsigned long long)rows[i].word, text, rows[i].text);
        NPK_CHECK_EQ_U64(one_word(text, rows[i].ext), rows[i].word);
    }
    /* the same through the file's .profile instead of the override */
    NPK_CHECK_EQ_U64(one_word(".profile ext\nvmul src=0x3000, dst=0x3400, len=2048", -1),
                     0x4918000D00020000ull);
    /* case-insensitive mnemonics, keys and flag words; any operand order; expressions */
    NPK_CHECK_EQ_U64(one_word("GEMV FindEmax, Shape=4, SIZE=5, src=0x40, DST=0x300", 0),
                     0x0018000102014400ull);
    NPK_CHECK_EQ_U64(one_word("Memcpy.H2L aux=0x100*2, shape=(1+1)*2, dst=0x80/2", 0),
                     0x2800800000010008ull);
    NPK_CHECK_EQ_U64(one_word(".equ BASE, 0x2000\n.equ Len, 513\n"
                              "SCALE src=BASE, dst=BASE + 0x400, len=Len, RECIP_SCALE",
                              0),
                     0x4610000900008050ull);
    NPK_CHECK_EQ_U64(one_word("memset weight, idx=-(-4), a=1, b=0b100000000000, c=2048", 0),
                     0x3440001080008000ull);
    /* the raw forms */
    NPK_CHECK_EQ_U64(one_word("memcpy from=1, to=0, dst=0x40, src=0, aux=0x200, shape=4", 0),
                     0x2800800000010008ull);
    NPK_CHECK_EQ_U64(one_word("memset bank=1, idx=4, a=1, b=2048, c=2048", 0),
                     0x3440001080008000ull);
    NPK_CHECK_EQ_U64(one_word("cvo func=6, src=0x2000, dst=0x2400, len=513, recip_scale", 0),
                     0x4610000900008050ull);
    NPK_CHECK_EQ_U64(one_word("cvo func=9, src=0x3000, dst=0x3400, len=2048", 1),
                     0x4918000D00020000ull);
    /* .word takes any 64-bit value, unchecked (reserved opcode, KICK, reserved bits) */
    NPK_CHECK_EQ_U64(one_word(".word 0xFFFFFFFFFFFFFFFF", 0), 0xFFFFFFFFFFFFFFFFull);
    NPK_CHECK_EQ_U64(one_word(".word 0x8000000000000000", 0), 0x8000000000000000ull);
    NPK_CHECK_EQ_U64(one_word(".word -1", 0), 0xFFFFFFFFFFFFFFFFull);
    /* lanes: omitted is 0; bit 4 is accepted */
    NPK_CHECK_EQ_U64(one_word("gemv dst=1, src=2, size=3, shape=4, lanes=31", 0),
                     gemx(0, 1, 2, 0, 3, 4, 31));
    /* every opcode's largest field values */
    NPK_CHECK_EQ_U64(one_word("gemm dst=0x1ffff, src=0x1ffff, size=63, shape=63, lanes=31, "
                              "findemax, accm, w_scale",
                              0),
                     gemx(1, 0x1ffff, 0x1ffff, 0x38, 63, 63, 31));
    NPK_CHECK_EQ_U64(one_word("memset fmap, idx=63, a=65535, b=65535, c=65535", 0),
                     memset_w(0, 63, 65535, 65535, 65535));
    NPK_CHECK_EQ_U64(one_word("memcpy.l2h src=0x1ffff, aux=0x1ffff, shape=63, async", 0),
                     memcpy_w(0, 1, 0, 0x1ffff, 0x1ffff, 63, 1));
}

/* ---- §13.4 ----------------------------------------------------------------------------------- */

static const char example[] =
    ".target pccx\n"
    ".equ X_W, 0x40            ; input vector, L2 word address\n"
    ".equ Y_W, 0x80            ; output, L2 word address\n"
    ".host byte=0\n"
    ".bf16 2.0, -1.0, 0.25, 4.0\n"
    ".weight W0, k=4, n=2\n"
    "  .scale 0.5, 2.0\n"
    "  .row 3, -2, 4, 1\n"
    "  .row 7, 7, -8, 0\n"
    ".endweight\n"
    "    memset fmap, idx=1, a=1, b=4, c=1      ; input 1 x 4\n"
    "    memset fmap, idx=2, a=1, b=2, c=1      ; output 1 x 2\n"
    "    memcpy.h2l dst=X_W, aux=0, shape=1     ; 4 elements -> 1 L2 word\n"
    ".wpush W0\n"
    "    gemv dst=Y_W, src=X_W, size=2, shape=1, w_scale\n"
    "    ; L2 elements 0x400, 0x401 now hold 0x40D0 (6.5) and 0x4120 (10.0)\n";

static void test_example(void)
{
    run r = assemble(example, -1, -1);
    NPK_CHECK(r.rc == 0);
    NPK_CHECK_EQ_STR(r.diag, "");
    const pccx_prog *p = r.p;
    if (!p) {
        done(&r);
        return;
    }
    const uint64_t want[] = {memset_w(0, 1, 1, 4, 1), memset_w(0, 2, 1, 2, 1),
                             memcpy_w(1, 0, 0x40, 0, 0, 1, 0), gemx(0, 0x80, 0x40, 0x08, 2, 1, 0)};
    NPK_CHECK(p->n_words == 4);
    for (size_t i = 0; i < 4 && i < p->n_words; i++)
        NPK_CHECK_EQ_U64(p->words[i], want[i]);
    NPK_CHECK(p->ext == 0 && p->hw_compat == 0 && !p->has_profile && !p->has_mode);
    NPK_CHECK(p->host_bytes == 0);
    /* host bytes of 0x4000 0xBF80 0x3E80 0x4080, little-endian */
    static const uint8_t host[] = {0x00, 0x40, 0x80, 0xBF, 0x80, 0x3E, 0x80, 0x40};
    NPK_CHECK(p->n_host == 1 && p->n_l2 == 0);
    if (p->n_host == 1) {
        NPK_CHECK(p->host[0].addr == 0 && p->host[0].size == sizeof host);
        NPK_CHECK(p->host[0].size == sizeof host && memcmp(p->host[0].bytes, host, 8) == 0);
    }
    NPK_CHECK(p->n_tensors == 1);
    if (p->n_tensors == 1) {
        const pccx_tensor *t = &p->tensors[0];
        NPK_CHECK(!t->view && t->k == 4 && t->n == 2 && t->row_bytes == 2);
        NPK_CHECK_EQ_STR(t->name, "W0");
        static const uint8_t codes[] = {0xE3, 0x14, 0x77, 0x08};
        NPK_CHECK(memcmp(t->codes, codes, 4) == 0);
        NPK_CHECK_EQ_U64(t->scale[0], 0x3F000000u); /* 0.5 */
        NPK_CHECK_EQ_U64(t->scale[1], 0x40000000u); /* 2.0 */
        NPK_CHECK(pccx_tensor_code(t, 0, 1) == -2 && pccx_tensor_code(t, 1, 2) == -8);
    }
    NPK_CHECK(p->n_pushes == 1 && p->pushes[0] == 0);
    NPK_CHECK(p->n_windows == 0);
    done(&r);

    /* a listing does not change anything */
    FILE *lst = tmpfile();
    pccx_prog *q = NULL;
    NPK_CHECK(pccx_assemble(example, strlen(example), "t.s", -1, -1, NULL, lst, &q) == 0);
    NPK_CHECK(q && q->n_words == 4);
    if (lst) {
        NPK_CHECK(ftell(lst) > 0);
        fclose(lst);
    }
    pccx_prog_free(q);
    /* out == NULL is allowed (a check only) */
    NPK_CHECK(pccx_assemble(example, strlen(example), "t.s", -1, -1, NULL, NULL, NULL) == 0);
}

/* ---- the example of docs/pccx-asm.md (every directive) --------------------------------------- */

static const char doc_example[] =
    ".target pccx\n"
    ".profile ext\n"
    ".mode strict\n"
    ".equ X_W, 0x40                  ; input vector, L2 word address\n"
    ".equ Y_W, 0x80\n"
    ".hostsize 0x100000              ; 1 MiB of host DDR\n"
    ".host byte=0\n"
    ".bf16 2.0, -1.0, 0.25, 4.0      ; 00 40 80 BF 80 3E 80 40\n"
    ".host byte=0x1000\n"
    ".h16 0x3F80, 0x4000\n"
    ".f32 1.5\n"
    ".u8 1, 2, 3\n"
    ".zero 5\n"
    ".l2 word=0x100\n"
    ".bf16 1.0\n"
    ".l2 elem=0x808\n"
    ".h16 0x7FC0\n"
    ".weight W0, k=4, n=2\n"
    "  .scale 0.5\n"
    "  .scale 2.0\n"
    "  .row 3, -2, 4, 1\n"
    "  .row 7, 7, -8, 0\n"
    ".endweight\n"
    ".weight W1, k=3, n=1\n"
    "  .scale 1.0\n"
    "  .rowhex E304                  ; codes 3, -2, 4 (the last high nibble is unused)\n"
    ".endweight\n"
    ".wview KV, host=0x1000, n=2, k=2, sn=2, sk=1\n"
    "    memset fmap, idx=1, a=1, b=4, c=1\n"
    "    memset fmap, idx=2, a=1, b=2, c=1\n"
    "    memcpy.h2l dst=X_W, aux=0, shape=1\n"
    ".wpush W0\n"
    "    gemv dst=Y_W, src=X_W, size=2, shape=1, w_scale\n"
    ".window 0x1000\n"
    "    memcpy.l2h src=Y_W, aux=0, shape=2\n"
;

static void test_doc_example(void)
{
    run r = assemble(doc_example, -1, -1);
    NPK_CHECK(r.rc == 0);
    NPK_CHECK_EQ_STR(r.diag, "");
    const pccx_prog *p = r.p;
    if (!p) {
        done(&r);
        return;
    }
    NPK_CHECK(p->ext == 1 && p->has_profile && p->has_mode && !p->hw_compat);
    NPK_CHECK(p->host_bytes == 0x100000);
    NPK_CHECK(p->n_words == 5);
    if (p->n_words == 5)
        NPK_CHECK_EQ_U64(p->words[4], memcpy_w(0, 1, 0, 0x80, 0, 2, 0));
    NPK_CHECK(p->n_windows == 1 && p->windows[0].at == 4 && p->windows[0].base == 0x1000);
    NPK_CHECK(p->n_host == 2 && p->n_l2 == 2);
    if (p->n_host == 2) {
        static const uint8_t h1[] = {0x80, 0x3F, 0x00, 0x40, 0x00, 0x00, 0xC0, 0x3F,
                                     1,    2,    3,    0,    0,    0,    0,    0};
        NPK_CHECK(p->host[1].addr == 0x1000 && p->host[1].size == 16 &&
                  memcmp(p->host[1].bytes, h1, 16) == 0);
    }
    if (p->n_l2 == 2)
        NPK_CHECK(p->l2[0].addr == 0x1000 && p->l2[0].size == 2 && p->l2[1].addr == 0x1010 &&
                  p->l2[1].bytes[0] == 0xC0 && p->l2[1].bytes[1] == 0x7F);
    NPK_CHECK(p->n_tensors == 3 && p->n_pushes == 1 && p->pushes[0] == 0);
    if (p->n_tensors == 3) {
        NPK_CHECK(p->tensors[1].k == 3 && p->tensors[1].codes[0] == 0xE3 &&
                  p->tensors[1].codes[1] == 0x04);
        NPK_CHECK(p->tensors[2].view && p->tensors[2].base == 0x1000);
    }
    done(&r);
}

/* ---- round trip of random words -------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* A random word, often legal: a valid opcode with the must-be-zero bits cleared (spec masks). */
static uint64_t random_word(uint64_t *s)
{
    uint64_t w = rng_next(s), k = rng_next(s);
    if ((k & 7) == 0)
        return w; /* anything, mostly a reserved opcode */
    unsigned op = (unsigned)(k >> 3) % 5;
    w = (w & ~((uint64_t)0xF << 60)) | (uint64_t)op << 60;
    if (k >> 8 & 3) { /* three quarters: clear the reserved bits */
        switch (op) {
        case 0: case 1: w &= ~(uint64_t)0x700007; break;
        case 3:
            w &= ~(uint64_t)0xF;
            if ((w >> 58 & 3) >= 2)
                w &= ~((uint64_t)2 << 58);
            break;
        case 4:
            w &= ~(uint64_t)0x6;
            if ((w >> 56 & 0xF) == 0xF)
                w &= ~((uint64_t)1 << 56);
            if ((w >> 4 & 1) && (w >> 56 & 0xF) != 6 && (k >> 10 & 1))
                w &= ~(uint64_t)0x10; /* recip_scale only with SCALE */
            break;
        case 2: {
            unsigned from = w >> 59 & 1, to = w >> 58 & 1;
            if (from && to)
                w &= ~((uint64_t)1 << 59);
            from = w >> 59 & 1;
            if (from)
                w &= ~((uint64_t)0x1FFFF << 24); /* h2l: src must be zero */
            else if (to)
                w &= ~((uint64_t)0x1FFFF << 41); /* l2h: dst */
            else
                w &= ~((uint64_t)0x1FFFF << 7);  /* l2l: aux */
            break;
        }
        }
    }
    return w;
}

/* Does the text hold a diagnostic with a line number ("t.s:12:")? */
static int line_diag(const char *d)
{
    for (const char *p = d; (p = strstr(p, "t.s:")) != NULL; p += 4)
        if (p[4] >= '0' && p[4] <= '9')
            return 1;
    return 0;
}

static void roundtrip(int ext, unsigned long count, uint64_t seed)
{
    enum { BATCH = 1000 };
    uint64_t s = seed, words[BATCH];
    unsigned long legal = 0, bad = 0;
    size_t cap = 64 * BATCH + 64;
    char *src = malloc(cap);
    if (!src) {
        NPK_CHECK(!"out of memory");
        return;
    }
    for (unsigned long done_n = 0; done_n < count; done_n += BATCH) {
        size_t o = (size_t)snprintf(src, cap, "%s", ext ? ".profile ext\n" : "");
        for (int i = 0; i < BATCH; i++) {
            words[i] = random_word(&s);
            char text[160];
            int n = pccx_disasm(words[i], ext, text, sizeof text);
            legal += text[0] != '.';
            if (n <= 0 || (size_t)n >= sizeof text || o + (size_t)n + 2 > cap) {
                bad++;
                continue;
            }
            memcpy(src + o, text, (size_t)n);
            o += (size_t)n;
            src[o++] = '\n';
        }
        src[o] = '\0';
        run r = assemble(src, -1, -1);
        NPK_REPORT(r.rc == 0 && r.p && r.p->n_words == BATCH, "round trip batch failed:\n%.2000s\n",
                   r.diag);
        /* the only diagnostic: the .wpush count differs from the gemv/gemm count */
        NPK_REPORT(!strstr(r.diag, "error") && !line_diag(r.diag),
                   "round trip diagnostics:\n%.2000s\n", r.diag);
        for (int i = 0; r.p && i < BATCH && (size_t)i < r.p->n_words; i++) {
            if (r.p->words[i] != words[i]) {
                char text[160];
                pccx_disasm(words[i], ext, text, sizeof text);
                NPK_REPORT(0, "0x%016llx -> \"%s\" -> 0x%016llx\n",
                           (unsigned long long)words[i], text,
                           (unsigned long long)r.p->words[i]);
                bad++;
            }
        }
        done(&r);
    }
    free(src);
    NPK_REPORT(bad == 0, "%lu round-trip failures\n", bad);
    /* the generator must exercise the instruction forms, not only .word */
    NPK_REPORT(legal > count / 2, "only %lu of %lu random words are legal\n", legal, count);
}

/* ---- §4.8 in both modes ---------------------------------------------------------------------- */

static void test_validity(void)
{
    static const struct {
        const char *line;   /* the instruction (line 3 of the source) */
        int ext;
        const char *strict; /* text of the strict-mode error */
    } rows[] = {
        {"cvo func=15, src=0, dst=0, len=1", 1, "PCCX_E_ILLEGAL_FUNC"},
        {"cvo func=0xF, src=0, dst=0, len=1", 0, "PCCX_E_ILLEGAL_FUNC"},
        {"vmul src=0, dst=0, len=1", 0, "PCCX_E_ILLEGAL_FUNC"},
        {"reduce_max src=0, dst=0, len=1", 0, "needs the ext profile"},
        {"cvo func=8, src=0, dst=0, len=1", 0, "PCCX_E_ILLEGAL_FUNC"},
        {"memset bank=2, idx=0, a=0, b=0, c=0", 0, "PCCX_E_RESERVED_VALUE"},
        {"memset bank=3, idx=1, a=1, b=1, c=1", 0, "PCCX_E_RESERVED_VALUE"},
        {"memcpy from=1, to=0, dst=0x10, src=5, aux=0, shape=1", 0, "PCCX_E_RESERVED"},
        {"memcpy from=0, to=1, dst=1, src=0, aux=0, shape=1", 0, "field dst must be zero"},
        {"memcpy from=0, to=0, dst=1, src=2, aux=3, shape=1", 0, "field aux must be zero"},
        {"exp src=0, dst=0, len=1, recip_scale", 0, "PCCX_E_BAD_FLAGS"},
        {"copy src=0, dst=0, len=2, recip_scale", 1, "recip_scale"},
        {"vmul src=0, dst=0, len=1, accm", 1, "PCCX_E_BAD_FLAGS"},
    };
    char src[256];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *prof = rows[i].ext ? ".profile ext" : ".profile base";
        snprintf(src, sizeof src, "%s\n.mode strict\n    %s\n", prof, rows[i].line);
        expect_error(src, -1, -1, rows[i].strict, "t.s:3:5: error:");
        snprintf(src, sizeof src, "%s\n.mode hw-compat\n    %s\n", prof, rows[i].line);
        run r = assemble(src, -1, -1);
        NPK_REPORT(r.rc == 0 && r.p && r.p->n_words == 1 && r.p->hw_compat == 1,
                   "hw-compat rejects:\n%s\n%s\n", src, r.diag);
        NPK_REPORT(strstr(r.diag, "t.s:3:5: warning:") && !strstr(r.diag, "error"),
                   "hw-compat diagnostics for:\n%s\n%s\n", src, r.diag);
        done(&r);
        /* the command line overrides the file's .mode */
        snprintf(src, sizeof src, "%s\n.mode strict\n    %s\n", prof, rows[i].line);
        r = assemble(src, -1, 1);
        NPK_REPORT(r.rc == 0 && strstr(r.diag, "warning:"), "override to hw-compat:\n%s\n%s\n",
                   src, r.diag);
        NPK_CHECK(r.p && r.p->hw_compat == 1 && r.p->has_mode == 1);
        done(&r);
    }
    /* host -> host is E_ROUTE in every mode */
    expect_error(".mode strict\nmemcpy from=1, to=1, dst=0, src=0, aux=0, shape=1\n", -1, -1,
                 "PCCX_E_ROUTE", "t.s:2:1: error:");
    expect_error(".mode hw-compat\nmemcpy from=1, to=1, dst=0, src=0, aux=0, shape=1\n", -1, -1,
                 "PCCX_E_ROUTE", "t.s:2:1: error:");
    /* the ext mnemonic error says how to enable the profile */
    expect_error("tanh src=0, dst=0, len=1", -1, -1, ".profile ext", "t.s:1:1: error:");
    expect_error(".profile ext\ntanh src=0, dst=0, len=1", 0, -1, "needs the ext profile",
                 "t.s:2:1");
    /* rows that text cannot express are reachable through .word, which is never checked */
    static const char *const words[] = {
        ".word 0x0000000000000001", /* GEMV reserved [2:0] */
        ".word 0x1000000000100000", /* GEMM reserved [22:20] */
        ".word 0x3000000000000003", /* MEMSET reserved [3:0] */
        ".word 0x4000000000000002", /* CVO reserved [2:1] */
        ".word 0x5000000000000000", /* reserved opcode */
        ".word 0x8000000000000000", /* KICK */
        ".word 0x4F00000000000040", /* CVO func 0xF */
        ".word 0x2C00000000000002", /* MEMCPY host -> host */
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        run r = assemble(words[i], 0, 0);
        NPK_REPORT(r.rc == 0 && !line_diag(r.diag) && !strstr(r.diag, "error"), "%s: %s\n",
                   words[i], r.diag);
        done(&r);
    }
}

/* ---- operand errors -------------------------------------------------------------------------- */

static void test_operand_errors(void)
{
    /* values that do not fit their field, never truncated */
    expect_error("gemv dst=0x20000, src=0, size=0, shape=0", 0, -1, "dst 131072 out of range",
                 "t.s:1:10: error:");
    expect_error("memset fmap, idx=64, a=0, b=0, c=0", 0, -1, "idx 64 out of range",
                 "t.s:1:18: error:");
    expect_error("gemm dst=0, src=0, size=0, shape=0, lanes=32", 0, -1, "lanes 32 out of range",
                 "t.s:1:43");
    expect_error("exp src=0, dst=0, len=65536", 0, -1, "len 65536 out of range", "t.s:1:23");
    expect_error("exp src=0x20000, dst=0, len=1", 0, -1, "src 131072", "t.s:1:9");
    expect_error("memset weight, idx=0, a=65536, b=0, c=0", 0, -1, "a 65536", NULL);
    expect_error("memset bank=4, idx=0, a=0, b=0, c=0", 0, -1, "bank 4", NULL);
    expect_error("memcpy.h2l dst=0, aux=0x20000, shape=0", 0, -1, "aux 131072", NULL);
    expect_error("memcpy from=2, to=0, dst=0, src=0, aux=0, shape=0", 0, -1, "from 2", NULL);
    expect_error("cvo func=16, src=0, dst=0, len=1", 0, -1, "func 16", NULL);
    expect_error("gemv dst=-1, src=0, size=0, shape=0", 0, -1, "dst -1 out of range", NULL);
    expect_error("gemv dst=0, src=0, size=64, shape=0", 0, -1, "size 64", NULL);
    /* missing, duplicate, unknown operands */
    expect_error("gemv dst=0, src=0, size=0", 0, -1, "missing operand 'shape'", "t.s:1:1: error:");
    expect_error("memcpy.l2l dst=0, shape=0", 0, -1, "missing operand 'src'", NULL);
    expect_error("memcpy from=1, to=0, dst=0, aux=0, shape=0", 0, -1, "missing operand 'src'",
                 NULL);
    expect_error("gemv dst=0, dst=1, src=0, size=0, shape=0", 0, -1, "'dst' given twice",
                 "t.s:1:13");
    expect_error("gemv accm, dst=0, src=0, size=0, shape=0, accm", 0, -1, "'accm' given twice",
                 NULL);
    expect_error("gemv dst=0, src=0, size=0, shape=0, foo=1", 0, -1, "unknown operand 'foo'",
                 "t.s:1:37");
    expect_error("memcpy.h2l dst=0, src=0, aux=0, shape=0", 0, -1, "unknown operand 'src'",
                 NULL);
    expect_error("memcpy.l2h dst=0, src=0, aux=0, shape=0", 0, -1, "unknown operand 'dst'",
                 NULL);
    expect_error("memcpy.l2l dst=0, src=0, aux=0, shape=0", 0, -1, "unknown operand 'aux'",
                 NULL);
    expect_error("exp func=1, src=0, dst=0, len=1", 0, -1, "unknown operand 'func'", NULL);
    expect_error("gemv dst=0, src=0, size=0, shape=0, sub_emax", 0, -1,
                 "unknown operand 'sub_emax'", NULL);
    expect_error("exp src=0, dst=0, len=1, w_scale", 0, -1, "unknown operand 'w_scale'", NULL);
    expect_error("gemv dst=0, src=0, size=0, shape=0, async", 0, -1, "unknown operand 'async'",
                 NULL);
    expect_error("gemv dst, src=0, size=0, shape=0", 0, -1, "needs a value", NULL);
    expect_error("gemv dst=0, src=0, size=0, shape=0, accm=1", 0, -1, "takes no value", NULL);
    expect_error("gemv dst=0 src=0, size=0, shape=0", 0, -1, "expected ','", NULL);
    /* memset banks */
    expect_error("memset idx=0, a=0, b=0, c=0", 0, -1, "needs a bank", "t.s:1:1");
    expect_error("memset fmap, weight, idx=0, a=0, b=0, c=0", 0, -1, "takes one bank", "t.s:1:14");
    expect_error("memset fmap, bank=0, idx=0, a=0, b=0, c=0", 0, -1, "takes one bank", NULL);
    /* mnemonics */
    expect_error("    gemx dst=0", 0, -1, "unknown mnemonic 'gemx'", "t.s:1:5: error:");
    expect_error("memcpy.h2h dst=0, aux=0, shape=0", 0, -1, "unknown memcpy route '.h2h'", NULL);
    expect_error("memcpy. dst=0", 0, -1, "unknown", NULL);
    expect_error("42", 0, -1, "expected a mnemonic", NULL);
    expect_error("loop: gemv dst=0, src=0, size=0, shape=0", 0, -1, "labels are not allowed",
                 NULL);
    /* expressions */
    expect_error("gemv dst=7/2, src=0, size=0, shape=0", 0, -1, "7 / 2 is not exact", "t.s:1:11");
    expect_error(".equ X, 10 / 4", 0, -1, "not exact", NULL);
    expect_error("gemv dst=UNDEF, src=0, size=0, shape=0", 0, -1, "undefined symbol 'UNDEF'",
                 NULL);
    expect_error(".equ a1, 1\ngemv dst=A1, src=0, size=0, shape=0", 0, -1, "undefined symbol 'A1'",
                 NULL);
    expect_error(".equ X, 1\n.equ X, 2", 0, -1, "redefinition", NULL);
    /* forward references to .equ work */
    NPK_CHECK_EQ_U64(one_word("gemv dst=D*2, src=0, size=0, shape=0\n.equ D, 0x180", 0),
                     gemx(0, 0x300, 0, 0, 0, 0, 0));
    /* every error on a line-by-line basis: all are reported, words keep their positions */
    run r = assemble("gemv dst=0x20000, src=0, size=0, shape=0\nfoo\nexp src=0, dst=0, len=0x10000",
                     0, -1);
    NPK_CHECK(r.rc == 3);
    NPK_CHECK_CONTAINS(r.diag, "t.s:1:");
    NPK_CHECK_CONTAINS(r.diag, "t.s:2:");
    NPK_CHECK_CONTAINS(r.diag, "t.s:3:");
    done(&r);
}

/* ---- directives ------------------------------------------------------------------------------ */

static void test_weights(void)
{
    /* .rowhex, odd K, several tensors and a view, pushes in textual order */
    run r = assemble(".profile ext\n"
                     ".weight A, k=3, n=2\n"
                     ".scale 1.0\n"
                     ".scale -0.5\n"
                     ".rowhex E304\n"
                     ".rowhex 7 7 F 8\n"
                     ".endweight\n"
                     ".weight B, k=1, n=1\n"
                     ".row -1\n"
                     ".scale 0x1p-3\n"
                     ".endweight\n"
                     ".wview KV, host=0x1000, n=8, k=64, sn=64, sk=1\n"
                     ".wview KT, host=0x1000, n=64, k=8, sk=64, sn=-1\n"
                     ".wpush B\n.wpush A\n.wpush KV\n.wpush A\n",
                     -1, -1);
    NPK_CHECK(r.rc == 0 && r.p);
    NPK_CHECK_CONTAINS(r.diag, "4 .wpush directives but 0 gemv/gemm instructions");
    if (r.p && r.p->n_tensors == 4) {
        const pccx_tensor *a = &r.p->tensors[0], *b = &r.p->tensors[1], *kv = &r.p->tensors[2],
                          *kt = &r.p->tensors[3];
        NPK_CHECK(a->k == 3 && a->n == 2 && a->row_bytes == 2);
        NPK_CHECK(a->codes[0] == 0xE3 && a->codes[1] == 0x04 && a->codes[2] == 0x77 &&
                  a->codes[3] == 0xF8);
        NPK_CHECK(pccx_tensor_code(a, 0, 0) == 3 && pccx_tensor_code(a, 0, 1) == -2 &&
                  pccx_tensor_code(a, 0, 2) == 4 && pccx_tensor_code(a, 1, 2) == -8);
        NPK_CHECK_EQ_U64(a->scale[0], 0x3F800000u);
        NPK_CHECK_EQ_U64(a->scale[1], 0xBF000000u);
        NPK_CHECK(b->k == 1 && b->n == 1 && b->row_bytes == 1 && b->codes[0] == 0x0F);
        NPK_CHECK_EQ_U64(b->scale[0], 0x3E000000u);
        NPK_CHECK(kv->view && kv->base == 0x1000 && kv->n == 8 && kv->k == 64 && kv->sn == 64 &&
                  kv->sk == 1 && !kv->codes && !kv->scale);
        NPK_CHECK_EQ_STR(kv->name, "KV");
        NPK_CHECK(kt->view && kt->n == 64 && kt->k == 8 && kt->sn == -1 && kt->sk == 64);
    } else {
        NPK_CHECK(!"four tensors");
    }
    NPK_CHECK(r.p && r.p->n_pushes == 4 && r.p->pushes[0] == 1 && r.p->pushes[1] == 0 &&
              r.p->pushes[2] == 2 && r.p->pushes[3] == 0);
    done(&r);

    /* push count warning the other way round */
    r = assemble("gemv dst=0, src=0, size=0, shape=0\n", 0, -1);
    NPK_CHECK(r.rc == 0);
    NPK_CHECK_CONTAINS(r.diag, "warning: 0 .wpush directives but 1 gemv/gemm instruction");
    done(&r);
    /* .word GEMV/GEMM words count too */
    r = assemble(".weight A, k=1, n=1\n.scale 1\n.row 0\n.endweight\n.wpush A\n"
                 ".word 0x1000000000000000\n",
                 0, -1);
    NPK_CHECK(r.rc == 0 && r.diag[0] == '\0');
    done(&r);

    const char *hdr = ".weight W, k=4, n=2\n";
    char src[512];
#define BAD_WEIGHT(body, needle, pos)                                                         \
    do {                                                                                      \
        snprintf(src, sizeof src, "%s%s", hdr, body);                                         \
        expect_error(src, 0, -1, needle, pos);                                                \
    } while (0)
    BAD_WEIGHT(".scale 1, 1\n.row 1, 2, 3\n.row 1, 2, 3, 4\n.endweight\n",
               "row has 3 codes, expected k=4", "t.s:3:");
    BAD_WEIGHT(".scale 1, 1\n.row 1, 2, 3, 4, 5, 6\n.row 1, 2, 3, 4\n.endweight\n",
               "row has 6 codes, expected k=4", "t.s:3:18");
    BAD_WEIGHT(".scale 1, 1\n.row 8, 0, 0, 0\n.row 1, 2, 3, 4\n.endweight\n",
               "INT4 code 8 out of range (-8..7)", "t.s:3:6");
    BAD_WEIGHT(".scale 1, 1\n.row 0, -9, 0, 0\n.row 1, 2, 3, 4\n.endweight\n",
               "INT4 code -9 out of range", NULL);
    BAD_WEIGHT(".scale 1, 1\n.row 1, 2, 3, 4\n.endweight\n", "has 1 rows, expected n=2",
               "t.s:4:1");
    BAD_WEIGHT(".scale 1, 1\n.row 1, 2, 3, 4\n.row 1, 2, 3, 4\n.row 1, 2, 3, 4\n.endweight\n",
               "too many rows", "t.s:5:1");
    BAD_WEIGHT(".scale 1\n.row 1, 2, 3, 4\n.row 1, 2, 3, 4\n.endweight\n",
               "has 1 scales, expected n=2", NULL);
    BAD_WEIGHT(".scale 1, 2\n.scale 3\n.row 1, 2, 3, 4\n.row 1, 2, 3, 4\n.endweight\n",
               "too many scales", "t.s:3:8");
    BAD_WEIGHT(".scale 1, 1\n.row 1, 2, 3, 4\n.rowhex 0000\n.endweight\n", "mixes .row and .rowhex",
               NULL);
    BAD_WEIGHT(".scale 1, 1\n.rowhex E31\n.rowhex 0000\n.endweight\n", "has 3 hex digits", NULL);
    BAD_WEIGHT(".scale 1, 1\n.rowhex E3140\n.rowhex 0000\n.endweight\n", "has 5 hex digits",
               NULL);
    BAD_WEIGHT(".scale 1, 1\n.rowhex 0xE314\n.rowhex 0000\n.endweight\n", "without 0x", NULL);
    BAD_WEIGHT(".scale 1, 1\n.rowhex E3G4\n.rowhex 0000\n.endweight\n", "not a hexadecimal digit",
               NULL);
    BAD_WEIGHT(".scale 1, x\n.row 1, 2, 3, 4\n.row 1, 2, 3, 4\n.endweight\n",
               "invalid floating-point number", NULL);
    /* missing .endweight: the error names the line of .weight */
    BAD_WEIGHT(".scale 1, 1\n.row 1, 2, 3, 4\n.row 1, 2, 3, 4\n",
               ".weight W at t.s:1 has no .endweight", NULL);
    /* statements inside a block */
    BAD_WEIGHT(".scale 1, 1\ngemv dst=0, src=0, size=0, shape=0\n.endweight\n",
               "instruction inside .weight W (started at line 1", "t.s:3:1");
    BAD_WEIGHT(".scale 1, 1\n.wpush W\n.endweight\n", ".wpush inside .weight W", NULL);
    BAD_WEIGHT(".weight V, k=1, n=1\n", ".weight inside .weight W", NULL);
    /* header errors */
    expect_error(".weight W, k=0, n=1\n.endweight\n", 0, -1, "k 0 out of range (1..65535)", NULL);
    expect_error(".weight W, k=1, n=65536\n.endweight\n", 0, -1, "n 65536 out of range", NULL);
    expect_error(".weight W, n=1\n.endweight\n", 0, -1, "missing operand 'k'", NULL);
    expect_error(".weight W, k=1, n=1, m=2\n.endweight\n", 0, -1, "unknown operand 'm'", NULL);
    expect_error(".weight , k=1, n=1\n", 0, -1, "expected a tensor name", NULL);
    expect_error(".weight W, k=1, n=1\n.scale 1\n.row 1\n.endweight\n"
                 ".weight W, k=1, n=1\n.scale 1\n.row 1\n.endweight\n",
                 0, -1, "weight tensor 'W' is already defined", "t.s:5:9");
    /* a rejected header skips its body quietly: exactly one error */
    run q = assemble(".weight W, k=0, n=1\n.scale 1\n.row 1\n.endweight\n", 0, -1);
    NPK_CHECK(q.rc == 1);
    done(&q);
    /* outside a block */
    expect_error(".row 1, 2", 0, -1, "'.row' outside a .weight block", "t.s:1:1");
    expect_error(".endweight", 0, -1, "outside a .weight block", NULL);
    expect_error(".scale 1.0", 0, -1, "outside a .weight block", NULL);
    /* pushes and views */
    expect_error(".wpush NOPE", 0, -1, "no .weight or .wview named 'NOPE'", "t.s:1:8");
    expect_error(".wpush W\n.weight W, k=1, n=1\n.scale 1\n.row 1\n.endweight\n", 0, -1,
                 "named 'W' before this line", NULL);
    expect_error(".wview V, host=0, n=1, k=1, sn=1, sk=1", -1, -1, "needs the ext profile",
                 "t.s:1:1");
    expect_error(".wview V, host=0, n=1, k=1, sn=1, sk=1", 0, -1, "needs the ext profile", NULL);
    expect_error(".wview V, host=1, n=1, k=1, sn=1, sk=1", 1, -1, "must be even", NULL);
    expect_error(".wview V, host=0, n=0, k=1, sn=1, sk=1", 1, -1, "n 0 out of range", NULL);
    expect_error(".wview V, host=0, n=1, k=1, sn=1", 1, -1, "missing operand 'sk'", NULL);
    expect_error(".profile ext\n.wview V, host=0, n=1, k=1, sn=1, sk=1\n"
                 ".wview V, host=0, n=1, k=1, sn=1, sk=1",
                 -1, -1, "already defined", NULL);
    expect_error(".wview V, host=0, n=1, k=1, sn=1, sk=1\n.profile ext", -1, -1, "needs the ext",
                 NULL);
#undef BAD_WEIGHT
}

static void test_data(void)
{
    /* targets, cursors, all data directives, little-endian */
    run r = assemble(".l2 elem=3\n"
                     ".h16 0x3F80, 0xffff\n"
                     ".l2 word=2\n"
                     ".f32 1.5\n"
                     ".u8 1, 255\n"
                     ".zero 3\n"
                     ".host byte=0x100\n"
                     ".u8 0xAB\n"
                     ".hostsize 0x200\n",
                     0, -1);
    NPK_CHECK(r.rc == 0 && r.diag[0] == '\0');
    if (r.p) {
        NPK_CHECK(r.p->host_bytes == 0x200);
        NPK_CHECK(r.p->n_l2 == 2 && r.p->n_host == 1);
        if (r.p->n_l2 == 2) {
            static const uint8_t b0[] = {0x80, 0x3F, 0xFF, 0xFF};
            static const uint8_t b1[] = {0x00, 0x00, 0xC0, 0x3F, 0x01, 0xFF, 0, 0, 0};
            NPK_CHECK(r.p->l2[0].addr == 6 && r.p->l2[0].size == 4 &&
                      memcmp(r.p->l2[0].bytes, b0, 4) == 0);
            NPK_CHECK(r.p->l2[1].addr == 32 && r.p->l2[1].size == 9 &&
                      memcmp(r.p->l2[1].bytes, b1, 9) == 0);
        }
        if (r.p->n_host == 1)
            NPK_CHECK(r.p->host[0].addr == 0x100 && r.p->host[0].size == 1 &&
                      r.p->host[0].bytes[0] == 0xAB);
    }
    done(&r);
    /* data directives anywhere (they are initial state); a cursor set at the end of the last
     * block continues it */
    r = assemble(".host byte=16\nmemset fmap, idx=0, a=1, b=1, c=1\n.u8 1\n.host byte=17\n.u8 2\n",
                 0, -1);
    NPK_CHECK(r.rc == 0 && r.p && r.p->n_words == 1 && r.p->n_host == 1);
    if (r.p && r.p->n_host == 1)
        NPK_CHECK(r.p->host[0].addr == 16 && r.p->host[0].size == 2 &&
                  r.p->host[0].bytes[1] == 2);
    done(&r);
    /* blocks come out sorted by address */
    r = assemble(".host byte=64\n.u8 1\n.host byte=0\n.u8 2\n", 0, -1);
    NPK_CHECK(r.rc == 0 && r.p && r.p->n_host == 2 && r.p->host[0].addr == 0 &&
              r.p->host[1].addr == 64);
    done(&r);

    expect_error(".u8 1", 0, -1, "has no data target", "t.s:1:1");
    expect_error(".zero 4", 0, -1, "has no data target", NULL);
    expect_error(".host byte=0\n.u8 256", 0, -1, "value 256 out of range (0..255)", "t.s:2:5");
    expect_error(".host byte=0\n.u8 -1", 0, -1, "value -1 out of range", NULL);
    expect_error(".host byte=0\n.h16 0x10000", 0, -1, "value 65536 out of range (0..65535)", NULL);
    expect_error(".host byte=0\n.u8 1,", 0, -1, "expected an expression", NULL);
    expect_error(".host byte=0\n.bf16", 0, -1, "needs at least one value", NULL);
    expect_error(".host byte=0\n.u8 1\n.host byte=0\n.u8 2\n", 0, -1,
                 "host DDR data from t.s:4 overlaps data from t.s:2", NULL);
    expect_error(".l2 word=0\n.zero 32\n.l2 elem=15\n.h16 1\n", 0, -1,
                 "L2 data from t.s:4 overlaps", NULL);
    /* L2 limit: 1,835,008 bytes */
    expect_error(".l2 word=114687\n.zero 17\n", 0, -1, "does not fit L2 (1835008 bytes)",
                 "t.s:2:7");
    r = assemble(".l2 word=114687\n.zero 16\n", 0, -1);
    NPK_CHECK(r.rc == 0);
    done(&r);
    expect_error(".l2 word=114689\n", 0, -1, "word 114689 out of range", NULL);
    expect_error(".l2 elem=917505\n", 0, -1, "elem 917505 out of range", NULL);
    expect_error(".l2 word=1, elem=2\n", 0, -1, "takes one of word=E or elem=E", NULL);
    expect_error(".l2\n", 0, -1, "takes one of word=E or elem=E", NULL);
    expect_error(".host\n", 0, -1, "missing operand 'byte'", NULL);
    /* host limits: .hostsize before, .hostsize after, the 64 MiB default */
    expect_error(".hostsize 16\n.host byte=0\n.zero 17\n", 0, -1, "(16 bytes, .hostsize)",
                 "t.s:3:7");
    expect_error(".host byte=0\n.zero 17\n.hostsize 16\n", 0, -1,
                 "host DDR data from t.s:2 (0x0..0x10) does not fit host DDR of 16 bytes", NULL);
    expect_error(".host byte=0x4000000\n.u8 1\n", 0, -1, "(the default; see .hostsize)", NULL);
    r = assemble(".hostsize 0x8000000\n.host byte=0x4000000\n.u8 1\n", 0, -1);
    NPK_CHECK(r.rc == 0 && r.p && r.p->host_bytes == 0x8000000);
    done(&r);
    expect_error(".hostsize 0\n", 0, -1, "host DDR size 0 out of range", NULL);
    expect_error(".hostsize 0x100000001\n", 0, -1, "out of range", NULL);
    expect_error(".hostsize 64\n.hostsize 64\n", 0, -1, "'.hostsize' given twice", NULL);

    /* .window */
    r = assemble(".window 0x100\nmemset fmap, idx=0, a=1, b=1, c=1\n.window 32\n.window 48\n"
                 "memcpy.h2l dst=0, aux=0, shape=0\n.window 0\n",
                 0, -1);
    NPK_CHECK(r.rc == 0 && r.p && r.p->n_windows == 3);
    if (r.p && r.p->n_windows == 3) {
        NPK_CHECK(r.p->windows[0].at == 0 && r.p->windows[0].base == 0x100);
        NPK_CHECK(r.p->windows[1].at == 1 && r.p->windows[1].base == 48);
        NPK_CHECK(r.p->windows[2].at == 2 && r.p->windows[2].base == 0);
    }
    done(&r);
    expect_error(".window 8", 0, -1, "window base 8 is not a multiple of 16", "t.s:1:9");
    expect_error(".window -16", 0, -1, "out of range", NULL);

    /* profile, mode, target */
    r = assemble(".target pccx\n.profile EXT\n.MODE HW-Compat\n", -1, -1);
    NPK_CHECK(r.rc == 0 && r.p && r.p->ext == 1 && r.p->hw_compat == 1 && r.p->has_profile &&
              r.p->has_mode);
    done(&r);
    r = assemble(".profile ext\n.mode hw-compat\n", 0, 0);
    NPK_CHECK(r.rc == 0 && r.p && r.p->ext == 0 && r.p->hw_compat == 0 && r.p->has_profile);
    done(&r);
    r = assemble("", 1, 1);
    NPK_CHECK(r.rc == 0 && r.p && r.p->ext == 1 && r.p->hw_compat == 1 && !r.p->has_profile &&
              r.p->n_words == 0);
    done(&r);
    expect_error(".profile turbo", -1, -1, "takes base or ext", "t.s:1:10");
    expect_error(".mode lax", -1, -1, "takes strict or hw-compat", NULL);
    expect_error(".profile ext\n.profile ext", -1, -1, "given twice", NULL);
    expect_error("memset fmap, idx=0, a=1, b=1, c=1\n.profile ext", -1, -1,
                 "must come before the first instruction", "t.s:2:1");
    expect_error(".word 0\n.mode strict", -1, -1, "must come before the first instruction", NULL);
    expect_error(".equ X, 1\n.target pccx", -1, -1, "must come before everything else", NULL);
    expect_error(".target tinytpu", -1, -1, "not 'pccx'", NULL);
    expect_error(".frobnicate 1", -1, -1, "unknown directive '.frobnicate'", NULL);
}

/* ---- literals (§3.2) ------------------------------------------------------------------------- */

static uint32_t bf16_of(const char *lit)
{
    char src[128];
    snprintf(src, sizeof src, ".host byte=0\n.bf16 %s\n", lit);
    run r = assemble(src, 0, -1);
    uint32_t v = 0xDEAD0000u;
    if (r.rc == 0 && r.p && r.p->n_host == 1 && r.p->host[0].size == 2)
        v = (uint32_t)r.p->host[0].bytes[0] | (uint32_t)r.p->host[0].bytes[1] << 8;
    else
        fprintf(stderr, ".bf16 %s:\n%s", lit, r.diag);
    done(&r);
    return v;
}

static uint32_t f32_of(const char *lit)
{
    char src[128];
    snprintf(src, sizeof src, ".host byte=0\n.f32 %s\n", lit);
    run r = assemble(src, 0, -1);
    uint32_t v = 0xDEADBEEFu;
    if (r.rc == 0 && r.p && r.p->n_host == 1 && r.p->host[0].size == 4)
        memcpy(&v, r.p->host[0].bytes, 4); /* little-endian hosts only; checked below */
    done(&r);
    return v;
}

static void test_literals(void)
{
    /* 1.0039062500001 lies just above the BF16 halfway point 1.00390625 (between 0x3F80 and
     * 0x3F81); binary32 rounds it to exactly that halfway point, and RNE16 then ties to even.
     * Rounding binary64 directly to BF16 would give 0x3F81. */
    const char *dr = "1.0039062500001";
    double v = strtod(dr, NULL);
    uint64_t d;
    memcpy(&d, &v, sizeof d);
    npk_fenv e;
    npk_fenv_init(&e, NPK_RM_RNE);
    NPK_CHECK_EQ_U64(npk_fmt_convert(NPK_FMT_BF16, NPK_FMT_F64, d, 0, &e), 0x3F81);
    npk_fenv_init(&e, NPK_RM_RNE);
    NPK_CHECK_EQ_U64(npk_f64bits_to_f32(d, &e), 0x3F808000u);
    NPK_CHECK_EQ_U64(bf16_of(dr), 0x3F80);
    NPK_CHECK_EQ_U64(bf16_of("-1.0039062500001"), 0xBF80);
    /* the same at an odd lower neighbour: the tie goes up to even */
    NPK_CHECK_EQ_U64(bf16_of("1.0117187500001"), 0x3F82); /* halfway 0x3F81..0x3F82 */
    NPK_CHECK_EQ_U64(bf16_of("1.01171875"), 0x3F82);
    NPK_CHECK_EQ_U64(bf16_of("1.00390635"), 0x3F81); /* beyond binary32's half ulp */
    /* specials */
    NPK_CHECK_EQ_U64(bf16_of("nan"), 0x7FC0);
    NPK_CHECK_EQ_U64(bf16_of("-nan"), 0x7FC0);
    NPK_CHECK_EQ_U64(bf16_of("NaN"), 0x7FC0);
    NPK_CHECK_EQ_U64(bf16_of("inf"), 0x7F80);
    NPK_CHECK_EQ_U64(bf16_of("-inf"), 0xFF80);
    NPK_CHECK_EQ_U64(bf16_of("-0.0"), 0x8000);
    NPK_CHECK_EQ_U64(bf16_of("0"), 0x0000);
    NPK_CHECK_EQ_U64(bf16_of("2.0"), 0x4000);
    NPK_CHECK_EQ_U64(bf16_of("-1"), 0xBF80);
    NPK_CHECK_EQ_U64(bf16_of("0x1.02p0"), 0x3F81);
    NPK_CHECK_EQ_U64(bf16_of("1e-40"), 0x0001); /* binary32 subnormal 0x000116C2 -> BF16 */
    NPK_CHECK_EQ_U64(bf16_of("3.4e38"), 0x7F80); /* finite binary32, overflows BF16 */
    NPK_CHECK_EQ_U64(bf16_of("3.38e38"), 0x7F7E);
    /* .f32 and .scale use binary32 RNE */
    const uint32_t one = 1;
    uint8_t little;
    memcpy(&little, &one, 1);
    if (little) {
        NPK_CHECK_EQ_U64(f32_of("nan"), 0x7FC00000u);
        NPK_CHECK_EQ_U64(f32_of("-0.0"), 0x80000000u);
        NPK_CHECK_EQ_U64(f32_of("-inf"), 0xFF800000u);
        NPK_CHECK_EQ_U64(f32_of("0.1"), 0x3DCCCCCDu);
        NPK_CHECK_EQ_U64(f32_of("1.0039062500001"), 0x3F808000u);
        NPK_CHECK_EQ_U64(f32_of("0x1.fffffep127"), 0x7F7FFFFFu);
    }
    /* overflow and underflow are warnings */
    run r = assemble(".host byte=0\n.bf16 1e39\n.f32 1e-50\n", 0, -1);
    NPK_CHECK(r.rc == 0);
    NPK_CHECK_CONTAINS(r.diag, "t.s:2:7: warning: '1e39' overflows bf16 and becomes infinity");
    NPK_CHECK_CONTAINS(r.diag, "t.s:3:6: warning: '1e-50' underflows f32 to zero");
    done(&r);
    expect_error(".host byte=0\n.bf16 1.0.0", 0, -1, "invalid floating-point number", "t.s:2:7");
    expect_error(".host byte=0\n.bf16 X", 0, -1, "invalid floating-point number", NULL);
    /* a bad element is replaced by zeros, the others still land */
    r = assemble(".host byte=0\n.bf16 1.0, bad, 2.0\n", 0, -1);
    NPK_CHECK(r.rc == 1);
    done(&r);
}

int main(void)
{
    test_table();
    test_example();
    test_doc_example();
    roundtrip(1, 200000, 0x9E3779B97F4A7C15ull);
    roundtrip(0, 20000, 0x0123456789ABCDEFull);
    test_validity();
    test_operand_errors();
    test_weights();
    test_data();
    test_literals();
    return npk_test_done();
}
