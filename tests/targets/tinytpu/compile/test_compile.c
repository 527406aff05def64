/* tinytpu schedule compiler (spec Part E): the description parser's errors (file:line), the
 * rejections (width > N, UB too small, w88 fields, rule 6 misuse), the memory map, and
 * prediction == simulator on networks that exercise the vector view swap (width-1 layers,
 * rule 5), three layers, the identity-matrix bias update (rule 6, B >= 8), odd batches (a
 * 1-row tile), several steps, N = 3 and 4 (lanes = N), and batch tiling for N >= 3 (rule 7);
 * and the stream written in each text format and read back. */
#include <stdlib.h>
#include <string.h>

#include "targets/tinytpu/compile.h"
#include "test.h"

static char err[1024];

/* parse + compile; returns 0 or -1 (message in err) */
static int build(const char *src, tt_net *net, tt_compiled *c)
{
    memset(c, 0, sizeof *c);
    if (tt_net_parse(src, "t.net", net, err, sizeof err))
        return -1;
    return tt_compile(net, c, err, sizeof err);
}

static void expect_error(const char *src, const char *needle)
{
    tt_net net;
    tt_compiled c;
    int rc = build(src, &net, &c);
    NPK_REPORT(rc != 0, "accepted, expected an error containing '%s'\n", needle);
    if (rc)
        NPK_CHECK_CONTAINS(err, needle);
    tt_compiled_free(&c);
    tt_net_free(&net);
}

/* compile, run on the simulator, compare every word; returns the words used */
static unsigned expect_ok(const char *what, const char *src)
{
    tt_net net;
    tt_compiled c;
    unsigned words = 0;
    int rc = build(src, &net, &c);
    NPK_REPORT(rc == 0, "%s: %s\n", what, err);
    if (!rc) {
        long bad = tt_compiled_check(&net, &c, NULL, err, sizeof err);
        NPK_REPORT(bad == 0, "%s: self-check: %ld mismatches: %s\n", what, bad, err);
        NPK_CHECK(c.prog.n && c.prog.c[0].rst);
        for (size_t k = 0; k < c.prog.n; k++)
            if (c.prog.c[k].lr != net.lr) {
                NPK_REPORT(0, "%s: cycle %zu has lr %04X\n", what, k + 1, c.prog.c[k].lr);
                break;
            }
        words = c.words;
        printf("%-34s %6zu cycles, %5u words, self-check %s\n", what, c.cycles, c.words,
               bad == 0 ? "ok" : "FAILED");
    }
    tt_compiled_free(&c);
    tt_net_free(&net);
    return words;
}

#define XOR_HEAD "lanes 2\nlayers 2 2 1\nalpha 0.5\nlr 0.75\n"
#define XOR_DATA                                                                            \
    "x 0 0\nx 0 1\nx 1 0\nx 1 1\ny 0\ny 1\ny 1\ny 0\n"                                      \
    "w1 0.2985 -0.5792\nw1 0.0913 0.4234\nb1 -0.4939 0.189\nw2 0.5266 0.2958\nb2 0.6358\n"

static void test_parse_errors(void)
{
    expect_error("layers 2 2 1\nalpha 0.5\nlr zz\n", "t.net:3: 'lr': bad value 'zz'");
    expect_error("alpha 0.5\nx 0 0\n", "t.net:2: 'x' before 'layers'");
    /* widths whose weights and biases cannot fit the largest UB (65536 words, one each) are
     * refused before the matrices are allocated (the fuzzer's input asked for 5.5 GB):
     * 52428 x 52428 + 52428 = 2,748,747,612 and 7 x 52428 + 7 = 367,003 values */
    expect_error("layers 0xcccc 0xcccc 7\n", "t.net:1: 'layers': 2749114615 weights and biases, "
                 "more than the 65536 words of the largest unified buffer");
    /* 255 x 256 + 255 = 65535 and 1 x 255 + 1 = 256: 65791 > 65536 */
    expect_error("layers 256 255 1\n", "'layers': 65791 weights and biases");
    /* 255 x 256 + 256 = 65536: parsed (it fails later, only for want of data lines) */
    expect_error("layers 256 255\n", "no 'alpha' line");
    expect_error(XOR_HEAD "x 0 0 0\n", "t.net:5: 'x' needs 2 values per line, got 3");
    expect_error(XOR_HEAD "frobnicate 3\n", "t.net:5: unknown keyword 'frobnicate'");
    expect_error(XOR_HEAD "w3 1 2\n", "t.net:5: unknown keyword 'w3'");
    expect_error(XOR_HEAD "x 0 0\ny 1\nw1 1 1\nw1 1 1\nw1 1 1\n", "t.net:9: 'w1': more than 2");
    expect_error(XOR_HEAD "x 0 0\n", "t.net:6: 1 'x' rows but 0 'y' rows");
    expect_error("layers 2 1\nlr 0.5\nx 0 0\ny 0\nw1 0 0\nb1 0\n", "no 'alpha' line");
    expect_error(XOR_HEAD "x 0 0\ny 1\nw1 0 0\nb1 0 0\nw2 0 0\nb2 0\n",
                 "t.net:11: W1 has 1 of its 2 rows");
    expect_error(XOR_HEAD "steps 0\n", "t.net:5: steps must be at least 1");
    expect_error(XOR_HEAD "format w99\n", "t.net:5: 'format' takes one of");
    /* decimal conversion: ties to even, then saturation (A3) */
    int16_t v;
    NPK_CHECK(tt_q_parse("0.2985", &v) == 0 && v == 0x4C);
    NPK_CHECK(tt_q_parse("-0.5792", &v) == 0 && (uint16_t)v == 0xFF6C);
    NPK_CHECK(tt_q_parse("0.005859375", &v) == 0 && v == 2); /* 1.5 LSB -> 2 */
    NPK_CHECK(tt_q_parse("0.001953125", &v) == 0 && v == 0); /* 0.5 LSB -> 0 */
    NPK_CHECK(tt_q_parse("1000", &v) == 0 && v == 32767);
    NPK_CHECK(tt_q_parse("0xFF82", &v) == 0 && (uint16_t)v == 0xFF82);
    NPK_CHECK(tt_q_parse("1.2.3", &v) != 0);
}

static void test_rejections(void)
{
    /* rule 1: a width above N is trained with the tiled schedule now (test_tile.c checks its
     * values); an inference tiles only batch 1 (below, test_inference) */
    NPK_CHECK(expect_ok("3-2-1 on N = 2, tiled training",
                        "lanes 2\nlayers 3 2 1\nalpha 0.5\nlr 0.5\nx 0 0 0\ny 0\nw1 0 0 0\n"
                        "w1 0 0 0\nb1 0 0\nw2 0 0\nb2 0\n") > 0);
    /* rule 10 / capacity: 4 steps of XOR need 21 + 4 x 32 = 149 > 128 words */
    expect_error(XOR_HEAD "steps 4\n" XOR_DATA,
                 "needs 149 UB words (host load 21, 32 per step x 4 steps) but the UB has 128 "
                 "words; at most 3 steps fit");
    expect_error(XOR_HEAD "ub_words 52\n" XOR_DATA, "needs 53 UB words");
    expect_error(XOR_HEAD "ub_words 40000\n" XOR_DATA, "ub_words 40000 out of range (1..32768");
    /* B3: w88 addresses 0..3 */
    expect_error(XOR_HEAD "format w88\n" XOR_DATA, "cannot be written as w88");
    expect_error(XOR_HEAD "format w88\n" XOR_DATA, "addr 12");
    /* rule 6: the transition-pass bias update with B >= 8 */
    expect_error("lanes 2\nlayers 1 1\nalpha 0.5\nlr 0.5\nbias_update transition\n"
                 "x 0\nx 0\nx 0\nx 0\nx 0\nx 0\nx 0\nx 0\ny 0\ny 0\ny 0\ny 0\ny 0\ny 0\ny 0\ny 0\n"
                 "w1 0\nb1 0\n", "A13 hazard 4");
    /* rule 7 + rule 6: with batch tiles the transition pass must not update b_L */
    expect_error("lanes 3\nlayers 3 1\nalpha 0.5\nlr 0.5\nbias_update transition\n"
                 "x 0 0 0\nx 0 0 0\nx 0 0 0\nx 0 0 0\ny 0\ny 0\ny 0\ny 0\nw1 0 0 0\nb1 0\n",
                 "batch tiling");
    /* w94 etc. are N = 2 formats */
    expect_error("lanes 3\nformat w94\nlayers 1 1\nalpha 0.5\nlr 0.5\nx 0\ny 0\nw1 0\nb1 0\n",
                 "only for lanes = 2");
}

static void test_map(void)
{
    tt_net net;
    tt_compiled c;
    int rc = build(XOR_HEAD "steps 3\n" XOR_DATA, &net, &c);
    NPK_REPORT(rc == 0, "%s\n", err);
    if (!rc) {
        /* three steps: parameters in place, results shifted by 32 words per step (Part D) */
        for (int s = 0; s < 3; s++) {
            const tt_region *h = tt_compiled_find(&c, "H1", s), *z2 = tt_compiled_find(&c, "dZ2", s),
                            *z1 = tt_compiled_find(&c, "dZ1", s);
            NPK_CHECK(h && h->addr == 21u + 32u * (unsigned)s && h->rows == 4 && h->cols == 2);
            NPK_CHECK(z2 && z2->addr == 29u + 32u * (unsigned)s && z2->cols == 1);
            NPK_CHECK(z1 && z1->addr == 33u + 32u * (unsigned)s);
        }
        const tt_region *w1 = tt_compiled_find(&c, "W1", -1);
        NPK_CHECK(w1 && w1->addr == 12 && w1->kind == TT_R_PARAM);
        NPK_CHECK(tt_compiled_find(&c, "dW2 tile 1", 2) != NULL);
        NPK_CHECK_EQ_U64(c.words, 21 + 3 * 32);
        NPK_CHECK_EQ_U64(c.cycles, c.load_cycles + 3 * c.step_cycles);
        long bad = tt_compiled_check(&net, &c, NULL, err, sizeof err);
        NPK_REPORT(bad == 0, "3 steps: %ld mismatches: %s\n", bad, err);
        /* the printed map names the junk range */
        char buf[4096] = {0};
        FILE *f = tmpfile();
        if (f) {
            tt_compiled_print_map(&net, &c, f);
            rewind(f);
            size_t n = fread(buf, 1, sizeof buf - 1, f);
            buf[n] = 0;
            fclose(f);
            NPK_CHECK_CONTAINS(buf, "# junk: 41-52 73-84 105-116 (36 words)");
            NPK_CHECK_CONTAINS(buf, "# words used: 117 of 128");
        }
        /* a broken prediction is caught by the self-check */
        c.pred[c.map[0].addr + 3] ^= 1;
        NPK_CHECK(tt_compiled_check(&net, &c, NULL, err, sizeof err) == 1);
        NPK_CHECK_CONTAINS(err, "UB word 3 (X)");
    }
    tt_compiled_free(&c);
    tt_net_free(&net);
}

static void test_networks(void)
{
    expect_ok("XOR 2-2-1 (Part D)", XOR_HEAD XOR_DATA);
    expect_ok("2-2-2, batch 4", "layers 2 2 2\nalpha 0.25\nlr 0.5\n"
              "x 0.5 -1.0\nx 0.25 0.75\nx -0.5 0.125\nx 1.0 1.0\n"
              "y 1.0 0\ny 0 1.0\ny 0.5 0.5\ny -1.0 0.25\n"
              "w1 0.3 -0.7\nw1 0.9 0.1\nb1 0.05 -0.2\nw2 -0.4 0.6\nw2 0.8 -0.3\nb2 0.1 0.2\n");
    /* width-1 input and hidden layers: the vector view swap of rule 5 in every pass kind */
    expect_ok("1-2-1, batch 3 (odd tile)", "layers 1 2 1\nalpha 0.5\nlr 0.5\n"
              "x 0.5\nx -1.0\nx 2.0\ny 1.0\ny 0\ny -0.5\n"
              "w1 0.7\nw1 -0.3\nb1 0.1 0.2\nw2 0.6 -0.9\nb2 -0.1\n");
    expect_ok("2-1-2", "layers 2 1 2\nalpha 0.5\nlr 0.5\n"
              "x 0.5 1.0\nx -1.0 0.25\ny 1.0 0\ny 0 1.0\n"
              "w1 0.7 -0.4\nb1 0.1\nw2 0.6\nw2 -0.9\nb2 -0.1 0.3\n");
    expect_ok("2-2-2-1, three layers, 2 steps", "layers 2 2 2 1\nalpha 0.125\nlr 0.25\nsteps 2\nub_words 256\n"
              "x 0 0\nx 0 1.0\nx 1.0 0\nx 1.0 1.0\ny 0\ny 1.0\ny 1.0\ny 0\n"
              "w1 0.5 -0.5\nw1 0.25 0.75\nb1 0.1 -0.1\nw2 0.3 0.6\nw2 -0.7 0.2\nb2 0 0.05\n"
              "w3 0.4 -0.8\nb3 0.2\n");
    /* rule 6: B = 8, the last bias through the identity matrix */
    expect_ok("2-2-1, batch 8, identity bias", "layers 2 2 1\nalpha 0.5\nlr 0.25\n"
              "x 0 0\nx 0 1.0\nx 1.0 0\nx 1.0 1.0\nx 0.5 0.5\nx -0.5 0.5\nx 0.5 -0.5\nx 0.25 0\n"
              "y 0\ny 1.0\ny 1.0\ny 0\ny 0.5\ny 0.25\ny 0.75\ny 0.1\n"
              "w1 0.3 -0.6\nw1 0.1 0.4\nb1 -0.5 0.2\nw2 0.5 0.3\nb2 0.6\n");
    expect_ok("1-1-1, batch 1", "layers 1 1 1\nalpha 0.5\nlr 0.5\nx 0.75\ny 1.0\n"
              "w1 -0.6\nb1 0.1\nw2 0.9\nb2 -0.2\nsteps 2\n");
    /* saturation everywhere: products, sums, loss and updates (A3) */
    expect_ok("2-2-1, saturating values", "layers 2 2 1\nalpha 0.5\nlr 2.0\n"
              "x 100.0 -120.0\nx 127.0 127.0\nx -128 0.5\ny 127.0\ny -128\ny 0\n"
              "w1 100.0 -100.0\nw1 -127.5 50.0\nb1 120.0 -120.0\nw2 64.0 -90.0\nb2 100.0\n");
    expect_ok("XOR, identity bias forced", XOR_HEAD "bias_update identity\n" XOR_DATA);
    expect_ok("XOR, eval pass, w130", XOR_HEAD "eval yes\nformat w130\n" XOR_DATA);
    /* N = 3 and N = 4 (lanes = N, the per-lane weight rule of C2.3, skew order) */
    expect_ok("N=3: 3-3-2, batch 3", "lanes 3\nlayers 3 3 2\nalpha 0.5\nlr 0.5\nformat wfull\n"
              "x 0.5 -1.0 0.25\nx 0.25 0.75 -0.5\nx -0.5 0.125 1.0\n"
              "y 1.0 0\ny 0 1.0\ny 0.5 0.5\n"
              "w1 0.3 -0.7 0.2\nw1 0.9 0.1 -0.4\nw1 -0.2 0.5 0.6\nb1 0.05 -0.2 0.1\n"
              "w2 -0.4 0.6 0.3\nw2 0.8 -0.3 0.1\nb2 0.1 0.2\n");
    expect_ok("N=4: 4-3-1, batch 4", "lanes 4\nlayers 4 3 1\nalpha 0.25\nlr 0.5\n"
              "x 0.5 -1.0 0.25 1.0\nx 0.25 0.75 -0.5 0\nx -0.5 0.125 1.0 0.5\nx 1.0 1.0 0 -1.0\n"
              "y 1.0\ny 0\ny 0.5\ny -0.25\n"
              "w1 0.3 -0.7 0.2 0.1\nw1 0.9 0.1 -0.4 0.3\nw1 -0.2 0.5 0.6 -0.6\nb1 0.05 -0.2 0.1\n"
              "w2 -0.4 0.6 0.3\nb2 0.1\n");
    /* rule 7: batch tiles for N >= 3 with widths >= 3 (every pass per tile, identity bias) */
    expect_ok("N=3: 3-3-2, batch 7 (rule 7)", "lanes 3\nlayers 3 3 2\nalpha 0.5\nlr 0.25\nub_words 256\n"
              "x 0.5 -1.0 0.25\nx 0.25 0.75 -0.5\nx -0.5 0.125 1.0\nx 1.0 0 0.5\n"
              "x -0.25 0.5 0.5\nx 0.75 -0.75 0\nx 0.1 0.2 0.3\n"
              "y 1.0 0\ny 0 1.0\ny 0.5 0.5\ny 0.25 0\ny 0 0.25\ny -0.5 1.0\ny 0.3 0.3\n"
              "w1 0.3 -0.7 0.2\nw1 0.9 0.1 -0.4\nw1 -0.2 0.5 0.6\nb1 0.05 -0.2 0.1\n"
              "w2 -0.4 0.6 0.3\nw2 0.8 -0.3 0.1\nb2 0.1 0.2\n");
    expect_ok("N=4: 4-3-3-1, batch 10, 2 steps", "lanes 4\nlayers 4 3 3 1\nalpha 0.25\n"
              "lr 0.125\nsteps 2\nub_words 512\n"
              "x 0.5 -1.0 0.25 1.0\nx 0.25 0.75 -0.5 0\nx -0.5 0.125 1.0 0.5\nx 1.0 1.0 0 -1.0\n"
              "x 0.1 0.2 0.3 0.4\nx -0.1 -0.2 0.3 0.4\nx 0 0 0 1.0\nx 1.0 0 0 0\n"
              "x 0.5 0.5 0.5 0.5\nx -0.5 0.5 -0.5 0.5\n"
              "y 1.0\ny 0\ny 0.5\ny -0.25\ny 0.1\ny 0.2\ny 0.3\ny 0.4\ny 0.5\ny 0.6\n"
              "w1 0.3 -0.7 0.2 0.1\nw1 0.9 0.1 -0.4 0.3\nw1 -0.2 0.5 0.6 -0.6\nb1 0.05 -0.2 0.1\n"
              "w2 0.3 -0.7 0.2\nw2 0.9 0.1 -0.4\nw2 -0.2 0.5 0.6\nb2 0.05 -0.2 0.1\n"
              "w3 -0.4 0.6 0.3\nb3 0.1\n");
    expect_ok("N=4: 2-2-1, batch 9 (tiles 4,4,1)", "lanes 4\nlayers 2 2 1\nalpha 0.5\nlr 0.25\n"
              "x 0 0\nx 0 1.0\nx 1.0 0\nx 1.0 1.0\nx 0.5 0.5\nx -0.5 0.5\nx 0.5 -0.5\nx 0.25 0\n"
              "x 0.75 0.75\ny 0\ny 1.0\ny 1.0\ny 0\ny 0.5\ny 0.25\ny 0.75\ny 0.1\ny 0.3\n"
              "w1 0.3 -0.6\nw1 0.1 0.4\nb1 -0.5 0.2\nw2 0.5 0.3\nb2 0.6\n");
}

/* N x N networks N-N-N with values from a fixed LCG, half of them negative (so the hidden
 * layer's leaky ReLU and its derivative see both signs) and some beyond +-1 (so products and
 * updates saturate): at N = 8, 16 and 32 the simulator's lane loops run as vector code, where
 * N = 3 and 4 above run their scalar remainders. Each runs on the simulator's fast path
 * (tt_compiled_check) against the compiler's scalar prediction. */
static void test_wide(void)
{
    static const unsigned sizes[] = {8, 16, 32};
    for (unsigned si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const unsigned N = sizes[si];
        size_t cap = (size_t)(3 * N + 4) * N * 12 + 256, n = 0;
        char *src = malloc(cap), what[48];
        NPK_CHECK(src != NULL);
        if (!src)
            return;
        uint64_t x = 0x9E3779B97F4A7C15u ^ N;
        n += (size_t)snprintf(src + n, cap - n,
                              "lanes %u\nub_words %u\nlayers %u %u %u\nalpha 0.125\n"
                              "lr 0.0625\nsteps 2\n", N, N >= 32 ? 65536u : 32768u, N, N, N);
        static const char *const kind[] = {"x", "y", "w1", "b1", "w2", "b2"};
        for (unsigned k = 0; k < 6; k++)
            for (unsigned r = 0; r < (k == 3 || k == 5 ? 1 : N); r++) {
                n += (size_t)snprintf(src + n, cap - n, "%s", kind[k]);
                for (unsigned c = 0; c < N; c++) {
                    x = x * 6364136223846793005u + 1442695040888963407u;
                    int range = k < 2 ? 384 : 160; /* in 1/128: x, y up to +-3, weights +-1.25 */
                    int v = (int)((x >> 33) % (unsigned)(2 * range + 1)) - range;
                    n += (size_t)snprintf(src + n, cap - n, " %g", v / 128.0);
                }
                n += (size_t)snprintf(src + n, cap - n, "\n");
            }
        snprintf(what, sizeof what, "N=%u: %u-%u-%u, batch %u, 2 steps", N, N, N, N, N);
        expect_ok(what, src);
        free(src);
    }
}

/* the stream written in each text format and read back runs to the predicted UB */
static void test_formats(void)
{
    static const tt_format fmts[] = {TT_FMT_ASM, TT_FMT_PORT, TT_FMT_W94, TT_FMT_W130,
                                     TT_FMT_WFULL};
    tt_net net;
    tt_compiled c;
    int rc = build(XOR_HEAD "steps 2\n" XOR_DATA, &net, &c);
    NPK_REPORT(rc == 0, "%s\n", err);
    for (size_t i = 0; !rc && i < sizeof fmts / sizeof fmts[0]; i++) {
        FILE *f = tmpfile();
        if (!f)
            continue;
        NPK_REPORT(tt_write_program(&c.prog, fmts[i], f, err, sizeof err) == 0, "%s: %s\n",
                   tt_format_names[fmts[i]], err);
        long n = ftell(f);
        rewind(f);
        char *text = calloc((size_t)n + 1, 1);
        if (text && fread(text, 1, (size_t)n, f) == (size_t)n) {
            tt_compiled back;
            memset(&back, 0, sizeof back);
            tt_program_init(&back.prog, 2);
            int nerr = tt_assemble(text, "stream", fmts[i], 2, net.lr, &back.prog, stderr);
            NPK_REPORT(nerr == 0, "%s: read back: %d errors\n", tt_format_names[fmts[i]], nerr);
            back.pred = c.pred, back.words = c.words;
            if (!nerr) {
                long bad = tt_compiled_check(&net, &back, NULL, err, sizeof err);
                NPK_REPORT(bad == 0, "%s: %ld mismatches: %s\n", tt_format_names[fmts[i]], bad,
                           err);
                if (fmts[i] == TT_FMT_ASM || fmts[i] == TT_FMT_PORT)
                    NPK_CHECK(tt_program_equal(&c.prog, &back.prog));
            }
            tt_program_free(&back.prog);
        }
        free(text);
        fclose(f);
    }
    tt_compiled_free(&c);
    tt_net_free(&net);
}

/* inference (steps 0): per-layer alpha, no Y, and layers wider than N tiled over passes with the
 * partial sum of an input tile fed back as the next tile's bias vector */
static void expect_words(const char *what, const char *src, const unsigned *addr,
                         const uint16_t *want, unsigned n, unsigned words)
{
    tt_net net;
    tt_compiled c;
    int rc = build(src, &net, &c);
    NPK_REPORT(rc == 0, "%s: %s\n", what, err);
    if (!rc) {
        uint16_t ub[128];
        NPK_CHECK(net.ub_words <= 128);
        long bad = net.ub_words <= 128 ? tt_compiled_check(&net, &c, ub, err, sizeof err) : -1;
        NPK_REPORT(bad == 0, "%s: self-check: %ld mismatches: %s\n", what, bad, err);
        NPK_CHECK_EQ_U64(c.words, words);
        for (unsigned i = 0; i < n && bad == 0; i++)
            NPK_REPORT(ub[addr[i]] == want[i], "%s: UB word %u = 0x%04X, expected 0x%04X\n",
                       what, addr[i], ub[addr[i]], want[i]);
    }
    tt_compiled_free(&c);
    tt_net_free(&net);
}

static void gen_infer(unsigned N, const unsigned *d, unsigned L, unsigned B, unsigned seed)
{
    size_t cap = 1u << 16, n = 0;
    char *src = malloc(cap), what[64];
    NPK_CHECK(src != NULL);
    if (!src)
        return;
    uint64_t x = 0x9E3779B97F4A7C15u ^ seed;
    n += (size_t)snprintf(src + n, cap - n, "inference yes\nlanes %u\nub_words 4096\nlayers", N);
    for (unsigned l = 0; l <= L; l++)
        n += (size_t)snprintf(src + n, cap - n, " %u", d[l]);
    n += (size_t)snprintf(src + n, cap - n, "\nalpha 0.125\nalpha%u 1\n", L); /* last: none */
    if (L > 1)
        n += (size_t)snprintf(src + n, cap - n, "alpha1 0\n");               /* first: ReLU */
    for (unsigned l = 0; l <= 2 * L; l++) { /* x rows, then w<l> rows and b<l> per layer */
        unsigned rows = l == 0 ? B : l % 2 ? d[(l + 1) / 2] : 1, cols = l == 0 ? d[0] :
                        l % 2 ? d[(l - 1) / 2] : d[l / 2];
        for (unsigned r = 0; r < rows; r++) {
            n += (size_t)(l == 0 ? snprintf(src + n, cap - n, "x")
                                 : snprintf(src + n, cap - n, "%c%u", l % 2 ? 'w' : 'b',
                                            (l + 1) / 2));
            for (unsigned c = 0; c < cols; c++) {
                x = x * 6364136223846793005u + 1442695040888963407u;
                int range = l == 0 ? 256 : 96; /* in 1/128: x up to +-2, weights +-0.75 */
                int v = (int)((x >> 33) % (unsigned)(2 * range + 1)) - range;
                n += (size_t)snprintf(src + n, cap - n, " %g", v / 128.0);
            }
            n += (size_t)snprintf(src + n, cap - n, "\n");
        }
    }
    int k = snprintf(what, sizeof what, "inference N=%u: %u", N, d[0]);
    for (unsigned l = 1; l <= L && k > 0 && (size_t)k < sizeof what; l++)
        k += snprintf(what + k, sizeof what - (size_t)k, "-%u", d[l]);
    if (k > 0 && (size_t)k < sizeof what)
        snprintf(what + k, sizeof what - (size_t)k, ", batch %u", B);
    NPK_CHECK(expect_ok(what, src) > 0);
    free(src);
}

static void test_inference(void)
{
    /* N = 2, 3 inputs: tiles (1, 2) and (3). Round 1: mul(1, 0.5) + mul(2, 0.25) = 1.0, + b 0.5
     * = 1.5 (0x0180, the partial sum, alpha 1.0); round 2: mul(3, 1) + 1.5 = 4.5 (0x0480), ReLU.
     * Layout: X 0-2, W1 3-5 (blocks 1x2 at 3, 1x1 at 5), b1 6, partial 7, H1 8. */
    static const unsigned a1[] = {7, 8};
    static const uint16_t v1[] = {0x0180, 0x0480};
    expect_words("inference 3-1 on N = 2", "inference yes\nlanes 2\nlayers 3 1\nalpha1 0\n"
                 "x 1 2 3\nw1 0.5 0.25 1\nb1 0.5\n", a1, v1, 2, 9);
    /* b1 -5: partial 1.0 - 5 = -4 (0xFC00), then -4 + 3 = -1, leaky 0.5: -0.5 (0xFF80) */
    static const uint16_t v2[] = {0xFC00, 0xFF80};
    expect_words("inference 3-1, leaky", "inference yes\nlanes 2\nlayers 3 1\nalpha1 0.5\n"
                 "x 1 2 3\nw1 0.5 0.25 1\nb1 -5\n", a1, v2, 2, 9);
    /* 3 outputs on N = 2: output tiles (rows 0-1) and (row 2), no activation (alpha 1.0):
     * H = 2 * (0.5, -1, 0.25) + (0, 0, 1) = (1, -2, 1.5). X 0, W1 1-3, b1 4-6, H1 7-9. */
    static const unsigned a3[] = {1, 2, 3, 7, 8, 9};
    static const uint16_t v3[] = {0x0080, 0xFF00, 0x0040, 0x0100, 0xFE00, 0x0180};
    expect_words("inference 1-3 on N = 2", "inference yes\nlanes 2\nlayers 1 3\nalpha1 1\n"
                 "x 2\nw1 0.5\nw1 -1\nw1 0.25\nb1 0 0 1\n", a3, v3, 6, 10);
    /* prediction == simulator, tiled and not, widths not multiples of N */
    static const unsigned s1[] = {5, 3, 1}, s2[] = {3, 5, 2}, s3[] = {10, 7, 3}, s4[] = {4, 9, 6},
                          s5[] = {19, 9, 12}, s6[] = {8, 8, 8}, s7[] = {40, 17, 5, 3}, s8[] = {1, 6, 2};
    gen_infer(2, s1, 2, 1, 1);
    gen_infer(2, s2, 2, 1, 2);
    gen_infer(4, s3, 2, 1, 3);
    gen_infer(4, s4, 2, 1, 4);
    gen_infer(8, s5, 2, 1, 5);
    gen_infer(8, s6, 2, 3, 6);  /* fits: a batch of 3 in one pass per layer */
    gen_infer(4, s8, 2, 1, 7);
    gen_infer(8, s7, 3, 1, 8);
    gen_infer(3, s3, 2, 1, 9);
    /* rejections */
    expect_error("inference yes\nlanes 2\nlayers 3 1\nx 0 0 0\nx 0 0 0\nw1 0 0 0\nb1 0\n",
                 "only inference (steps 0) with batch 1 tiles wider layers");
    expect_error(XOR_HEAD "alpha2 0\n" XOR_DATA, "t.net:5: per-layer alpha is for inference only");
    expect_error("inference yes\nsteps 2\nlayers 1 1\nx 0\nw1 0\nb1 0\n",
                 "t.net:2: 'inference yes' and 'steps' (line 1)");
    expect_error("inference yes\nlanes 2\nub_words 8\nlayers 3 1\nx 1 2 3\nw1 0.5 0.25 1\n"
                 "b1 0.5\n", "the inference needs 9 UB words (host load 7, forward passes 2) but "
                 "the UB has 8 words");
}

int main(void)
{
    test_formats();
    test_parse_errors();
    test_rejections();
    test_map();
    test_networks();
    test_wide();
    test_inference();
    return npk_test_done();
}
