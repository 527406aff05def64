/* Robustness of the assembler engine on hostile input (run it under -fsanitize=address,
 * undefined): random bytes and mutations of the example programs must never crash, leak or
 * hang, and whenever a mutated program assembles, the disassembly of its image must assemble
 * back to the same bytes. Also random expressions against an independent __int128 reference
 * evaluator. Deterministic (fixed seed) and bounded. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "asm/asm.h"
#include "kit.h"
#include "targets/toy/asm.h"
#include "test.h"

static uint64_t rng = 0x243F6A8885A308D3u;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static size_t pick(size_t n)
{
    return n ? (size_t)(rnd() % n) : 0;
}

/* ---- sources ------------------------------------------------------------------------------- */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

static const char *const extra_corpus[] = {
    ".equ A, B + 1\n.equ B, 2\nx: li r1, A\n.word x, ., end - x\nend:\n",
    ".include \"inc.s\"\nli r2, INC\n",
    "start: .ascii \"a\\tb\\x41\\101\", \"#;\"\n.asciz \"\"\n.align 4\nbeq r1, r2, start\n",
    ".byte 'a', '\\n', -1\n.half 1, 2\n.space 2, 7\n.org 0x20\n.f32 -0x1.8p-3, nan, 1e10\n",
    "add.sat r7, r6, r5 ; x\n st r1, -32768(r7)\n ld r2, (r3)\n lui r1, 65535\n",
};

/* An include reader: "inc.s" exists, "loop.s" includes itself, everything else is missing. */
static int fake_read(void *ctx, const char *path, char **text, size_t *len)
{
    (void)ctx;
    const char *t = NULL;
    if (strcmp(path, "inc.s") == 0)
        t = ".equ INC, 3\n";
    else if (strcmp(path, "loop.s") == 0)
        t = ".include \"loop.s\"\n";
    if (!t)
        return -1;
    size_t n = strlen(t);
    *text = malloc(n + 1);
    if (!*text)
        return -1;
    memcpy(*text, t, n + 1);
    *len = n;
    return 0;
}

/* Programs for the kit target (pccx/opennpu/tinytpu-like syntax). */
static const char *const kit_corpus[] = {
    ".target kit\n.equ Y_W, 0x80 ; c\ngemv dst=Y_W, src=0x40, size=2, shape=1, findemax\n"
    "gemv accm, shape=1, size=2, src=0x40, dst=Y_W, lanes=3\n.word 0xffffffffffffffff, -1\n",
    "vadd.sat.rtz vx1, vx2, vx3\nvadd vr7, vr0, vr1\nVADD.CEIL.SAT ve15, VE0, ve1\n"
    "vadd.last.keep vx0, vx0, vx0\n",
    ".host byte=4\n.bf16 2.0, -1.0, 0.25, nan, -inf, 0x1.ffp0\n.l2 word=2\n.u8 1, 255\n"
    ".h16 0x3F80\n.l2 elem=1\n.f32 0x1.8p1, 1e-3\n.p2align 3\n.zero 1\n",
    "sw\n@2 sw read weight addr=5 rows=2 cols=2 t host0=0x1234\nread gweight rows=1\n"
    ".w130 0x3ffffffffffffffffffffffffffffffff\n@7 host1=0xffff sw\n",
    ".weight W0, k=4, n=2\n  .row 3, -2, 4, 1\n  .row 7, 7, -8, 0\n.endweight\n",
};

static const char *const tokens[] = {
    ".equ ", ".include \"inc.s\"", ".include \"loop.s\"", ".include \"zz\"", "(", ")", "0x",
    "0b", "'", "\"", ",", "lbl:", ".", "$", "<<", ">>", "9999999999999999999999", "r7", "r8",
    "-", "~", ".org 0x100000", ".org 5", ".space 1000", ".align 4096", ".word", ".byte",
    ".f32", ".ascii", "\\", "#", ";", "\t", " ", "\n", "\r", "add.sat", ".sat", "beq r1, r2, ",
    "ld r1, ", "(r2)", "0x7fffffffffffffff", "0x8000000000000000", "*", "/", "%", "|", "&",
    "^", "+", "=", "@", "inf", "nan", "1e999", ".target toy", ".target x", "\xff", "\x80",
    "dst=", "findemax", ", ", "vx31", "ve16", ".rtz", ".weight W, k=2, n=1", ".endweight",
    ".row 1", "read input", "@99", "0x1.8p3", ".l2 elem=", "host1=", "0x3fffffffffffffffff",
};

static char *mutate(const char *src, size_t *out_len)
{
    size_t len = strlen(src), cap = len * 2 + 512;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    memcpy(s, src, len);
    int k = 1 + (int)pick(8);
    for (int i = 0; i < k; i++) {
        size_t at = pick(len + 1);
        switch (pick(5)) {
        case 0: /* replace a byte */
            if (len) {
                static const char special[] = "\0\n\"'(),.#;:\\0x9-+r$@= \t\xff";
                s[pick(len)] = rnd() & 1 ? special[pick(sizeof special - 1)] : (char)rnd();
            }
            break;
        case 1: { /* insert a token */
            const char *t = tokens[pick(sizeof tokens / sizeof tokens[0])];
            size_t tl = strlen(t);
            if (len + tl < cap) {
                memmove(s + at + tl, s + at, len - at);
                memcpy(s + at, t, tl);
                len += tl;
            }
            break;
        }
        case 2: { /* delete a range */
            size_t n = pick(16);
            if (at + n > len)
                n = len - at;
            memmove(s + at, s + at + n, len - at - n);
            len -= n;
            break;
        }
        case 3: { /* duplicate a chunk */
            size_t n = pick(64);
            if (at + n > len)
                n = len - at;
            if (len + n < cap) {
                memmove(s + at + n, s + at, len - at);
                len += n;
            }
            break;
        }
        default: /* truncate */
            if (rnd() % 4 == 0)
                len = at;
            break;
        }
    }
    s[len] = '\0';
    *out_len = len;
    return s;
}

static unsigned long bad;

/* Disassemble every word of an assembled image at its address and assemble that text: the
 * bytes must come back (trailing bytes as .byte). */
static void check_image_roundtrip(const npk_asm_result *r)
{
    size_t n;
    const uint8_t *b = npk_asm_result_image(r, 0, &n, NULL, NULL);
    if (!b || n > 65536)
        return;
    size_t cap = n / 4 * 160 + n * 12 + 64, o = 0;
    char *src = malloc(cap);
    if (!src)
        return;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32_t w = (uint32_t)b[i] | (uint32_t)b[i + 1] << 8 | (uint32_t)b[i + 2] << 16 |
                     (uint32_t)b[i + 3] << 24;
        o += (size_t)toy_disasm(w, (uint32_t)i, src + o, cap - o);
        src[o++] = '\n';
    }
    for (; i < n; i++)
        o += (size_t)snprintf(src + o, cap - o, ".byte %u\n", b[i]);
    npk_asm_result *r2 = npk_asm_run(toy_asm_target(), NULL, src, o, "rt.s", NULL);
    size_t n2;
    const uint8_t *b2 = npk_asm_result_image(r2, 0, &n2, NULL, NULL);
    if (!r2 || npk_asm_result_errors(r2) || n2 != n || (n && memcmp(b, b2, n) != 0)) {
        if (bad++ < 5)
            fprintf(stderr, "image round trip failed:\n%.1000s\n%s\n", src,
                    r2 ? npk_asm_result_diag(r2) : "");
    }
    npk_asm_result_free(r2);
    free(src);
}

static void run_one(const char *src, size_t len, unsigned *ok)
{
    npk_asm_opts o = {0};
    o.read_file = fake_read;
    o.max_errors = 1 + (unsigned)pick(60);
    npk_asm_result *r = npk_asm_run(toy_asm_target(), NULL, src, len, "fuzz.s", &o);
    if (!r) {
        if (bad++ < 5)
            fprintf(stderr, "no result (out of memory?)\n");
        return;
    }
    const char *d = npk_asm_result_diag(r);
    if (npk_asm_result_errors(r) && !strstr(d, "error: ") && bad++ < 5)
        fprintf(stderr, "errors counted but none reported\n");
    if (npk_asm_result_errors(r) == 0) {
        ++*ok;
        check_image_roundtrip(r);
    }
    npk_asm_result_free(r);
}

static void run_kit(const char *src, size_t len, unsigned *ok)
{
    kit_state st;
    npk_asm_opts o = {0};
    o.read_file = fake_read;
    o.max_errors = 1 + (unsigned)pick(60);
    npk_asm_result *r = npk_asm_run(&kit_target, &st, src, len, "kit.s", &o);
    if (!r) {
        if (bad++ < 5)
            fprintf(stderr, "no result (out of memory?)\n");
        return;
    }
    if (npk_asm_result_errors(r) && !strstr(npk_asm_result_diag(r), "error: ") && bad++ < 5)
        fprintf(stderr, "errors counted but none reported\n");
    *ok += npk_asm_result_errors(r) == 0;
    npk_asm_result_free(r);
}

static void test_mutations(void)
{
    static const char *const files[] = {"examples/toy/hello.s", "examples/toy/sum.s",
                                        "examples/toy/fp.s", "examples/toy/demo.s",
                                        "tests/asm/malformed.s"};
    const char *corpus[16];
    char *owned[16];
    size_t nc = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", NPK_SOURCE_DIR, files[i]);
        owned[i] = slurp(path);
        if (owned[i])
            corpus[nc++] = owned[i];
    }
    NPK_CHECK(nc == sizeof files / sizeof files[0]);
    for (size_t i = 0; i < sizeof extra_corpus / sizeof extra_corpus[0]; i++)
        corpus[nc++] = extra_corpus[i];
    unsigned ok = 0, kit_ok = 0, runs = 0;
    for (int it = 0; it < 20000; it++) {
        size_t len;
        char *m = mutate(corpus[pick(nc)], &len);
        if (!m)
            continue;
        run_one(m, len, &ok);
        runs++;
        free(m);
    }
    for (int it = 0; it < 10000; it++) {
        size_t len;
        char *m = mutate(kit_corpus[pick(sizeof kit_corpus / sizeof kit_corpus[0])], &len);
        if (!m)
            continue;
        run_kit(m, len, &kit_ok);
        runs++;
        free(m);
    }
    /* random bytes */
    for (int it = 0; it < 5000; it++) {
        char buf[256];
        size_t len = pick(sizeof buf);
        for (size_t i = 0; i < len; i++)
            buf[i] = rnd() % 3 ? (char)(' ' + pick(95)) : (char)rnd();
        if (it & 1)
            run_one(buf, len, &ok);
        else
            run_kit(buf, len, &kit_ok);
        runs++;
    }
    printf("fuzz: %u runs, %u toy and %u kit mutants assembled cleanly\n", runs, ok, kit_ok);
    NPK_CHECK_EQ_U64(runs, 35000);
    NPK_CHECK(ok > 1000);  /* plenty of mutants still assemble and were round-tripped */
    NPK_CHECK(kit_ok > 200);
    NPK_CHECK_EQ_U64(bad, 0);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        free(owned[i]);
}

/* ---- expressions against a reference ---------------------------------------------------------- */

typedef __int128 i128;

typedef struct rval {
    i128 v;
    int err;  /* 1: the expression is an error */
    int big;  /* the literal 2^63, only legal under a unary minus */
} rval;

static int fits(i128 v)
{
    return v >= (i128)INT64_MIN && v <= (i128)INT64_MAX;
}

static const char *const binops[] = {"|", "^", "&", "<<", ">>", "+", "-", "*", "/", "%"};
static const int binlevel[] = {1, 2, 3, 4, 4, 5, 5, 6, 6, 6};

static rval ref_bin(int op, rval a, rval b)
{
    rval r = {0, a.err || b.err || a.big || b.big, 0};
    if (r.err)
        return r;
    i128 x = a.v, y = b.v;
    switch (op) {
    case 0: r.v = (int64_t)x | (int64_t)y; break;
    case 1: r.v = (int64_t)x ^ (int64_t)y; break;
    case 2: r.v = (int64_t)x & (int64_t)y; break;
    case 3:
        if (y < 0 || y > 63)
            r.err = 1;
        else
            r.v = x * ((i128)1 << (int)y);
        break;
    case 4:
        if (y < 0 || y > 63) {
            r.err = 1;
        } else {
            i128 p = (i128)1 << (int)y;
            r.v = x >= 0 ? x / p : -((-x + p - 1) / p);
        }
        break;
    case 5: r.v = x + y; break;
    case 6: r.v = x - y; break;
    case 7: r.v = x * y; break;
    case 8:
        if (y == 0)
            r.err = 1;
        else
            r.v = x / y;
        break;
    default:
        if (y == 0)
            r.err = 1;
        else
            r.v = x % y;
        break;
    }
    if (!r.err && !fits(r.v))
        r.err = 1;
    return r;
}

static const char *const lits[] = {"0", "1", "2", "3", "7", "63", "64", "65", "100", "0x7f",
                                   "0b101", "'A'", "4294967296", "3037000499", "3037000500",
                                   "0x7fffffffffffffff", "0x8000000000000000", "0x4000000000000000",
                                   "9223372036854775807"};
static const i128 litv[] = {0, 1, 2, 3, 7, 63, 64, 65, 100, 0x7f, 5, 65, 4294967296,
                            3037000499, 3037000500, INT64_MAX, (i128)1 << 63, (i128)1 << 62,
                            INT64_MAX};

/* Random expression text into buf (at *o); returns its reference value and precedence level
 * (7 = unary or primary). */
static rval gen(char *buf, size_t cap, size_t *o, int depth, int *level)
{
    int kind = depth > 5 ? 0 : (int)pick(depth == 0 ? 4 : 6);
    rval r;
    if (kind == 0 || kind == 4) { /* literal */
        size_t i = pick(sizeof lits / sizeof lits[0]);
        *o += (size_t)snprintf(buf + *o, cap - *o, "%s", lits[i]);
        r.v = litv[i];
        r.err = 0;
        r.big = r.v > INT64_MAX;
        *level = 7;
        return r;
    }
    if (kind == 5) { /* unary */
        static const char ops[] = "-~+";
        char op = ops[pick(3)];
        *o += (size_t)snprintf(buf + *o, cap - *o, "%c", op);
        size_t mark = *o;
        int cl;
        rval a = gen(buf, cap, o, depth + 1, &cl);
        if (cl < 7) { /* wrap a binary child in parentheses */
            memmove(buf + mark + 1, buf + mark, *o - mark);
            buf[mark] = '(';
            (*o)++;
            *o += (size_t)snprintf(buf + *o, cap - *o, ")");
        }
        *level = 7;
        r = a;
        if (a.err)
            return r;
        if (op == '+')
            return r;
        if (a.big) {
            r.big = 0;
            r.err = op != '-';
            r.v = INT64_MIN;
            return r;
        }
        r.v = op == '-' ? -a.v : ~(int64_t)a.v;
        r.err = !fits(r.v);
        return r;
    }
    int op = (int)pick(10), L = binlevel[op];
    size_t mark = *o;
    int ll, rl;
    rval a = gen(buf, cap, o, depth + 1, &ll);
    if (ll < L || pick(8) == 0) {
        memmove(buf + mark + 1, buf + mark, *o - mark);
        buf[mark] = '(';
        (*o)++;
        *o += (size_t)snprintf(buf + *o, cap - *o, ")");
    }
    *o += (size_t)snprintf(buf + *o, cap - *o, "%s%s%s", pick(2) ? " " : "", binops[op],
                           pick(2) ? " " : "");
    mark = *o;
    rval b = gen(buf, cap, o, depth + 1, &rl);
    if (rl <= L || pick(8) == 0) {
        memmove(buf + mark + 1, buf + mark, *o - mark);
        buf[mark] = '(';
        (*o)++;
        *o += (size_t)snprintf(buf + *o, cap - *o, ")");
    }
    *level = L;
    return ref_bin(op, a, b);
}

static void test_expr_reference(void)
{
    enum { N = 4000 };
    size_t cap = (size_t)N * 4096, o = 0; /* a line stays below ~2000 characters */
    char *src = malloc(cap);
    rval *want = malloc(N * sizeof *want);
    if (!src || !want) {
        free(src);
        free(want);
        return;
    }
    for (int i = 0; i < N; i++) {
        o += (size_t)snprintf(src + o, cap - o, ".equ v%d, ", i);
        int lvl;
        want[i] = gen(src, cap, &o, 0, &lvl);
        if (want[i].big)
            want[i].err = 1; /* a lone 2^63 does not fit */
        src[o++] = '\n';
    }
    src[o] = '\0';
    npk_asm_opts opts = {0};
    opts.max_errors = 1000000;
    npk_asm_result *r = npk_asm_run(toy_asm_target(), NULL, src, o, "expr.s", &opts);
    unsigned long mismatches = 0, errors = 0;
    for (int i = 0; i < N; i++) {
        char name[16];
        snprintf(name, sizeof name, "v%d", i);
        int64_t v;
        bool have = npk_asm_result_lookup(r, name, &v);
        errors += want[i].err;
        if (have == (bool)want[i].err || (have && (i128)v != want[i].v)) {
            if (mismatches++ < 5) {
                const char *line = src;
                for (int k = 0; k < i; k++)
                    line = strchr(line, '\n') + 1;
                fprintf(stderr, "expression %.*s: reference %s %lld, assembler %s %lld\n",
                        (int)(strchr(line, '\n') - line), line, want[i].err ? "error" : "value",
                        (long long)want[i].v, have ? "value" : "error", (long long)v);
            }
        }
    }
    NPK_CHECK_EQ_U64(mismatches, 0);
    NPK_CHECK(errors > N / 20 && errors < N - N / 20); /* both outcomes are exercised */
    NPK_CHECK_EQ_U64(npk_asm_result_errors(r), errors);
    npk_asm_result_free(r);
    free(src);
    free(want);
}

int main(void)
{
    test_mutations();
    test_expr_reference();
    return npk_test_done();
}
