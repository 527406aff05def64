/* tinytpu: one XOR training step (spec Part D) as a cycle-by-cycle program built here, against
 * an independent reference of what the step computes (spec E9 "Numerics", written in plain
 * integer arithmetic from A3 in tt_prog.h). Checks every produced word: H1, dL/dZ2, dL/dZ1 and
 * the updated W1, B1, W2, B2; the junk count; and that fast and observed runs agree. */
#include "tt_prog.h"

enum { A_X = 0, A_Y = 8, A_W1 = 12, A_B1 = 16, A_W2 = 18, A_B2 = 20, A_H1 = 21, A_DZ2 = 29,
       A_DZ1 = 33, A_JUNK = 41 };

/* D1 in Q8.8 */
static const int X[4][2] = {{0, 0}, {0, 0x100}, {0x100, 0}, {0x100, 0x100}};
static const int Y[4] = {0, 0x100, 0x100, 0};
static const int W1[2][2] = {{0x004C, 0xFF6C - 65536}, {0x0017, 0x006C}};
static const int B1[2] = {0xFF82 - 65536, 0x0030};
static const int W2[2] = {0x0087, 0x004C};
static const int B2 = 0x00A3;
#define ALPHA 0x0080
#define INV 0x0080
#define LR 0x00C0

typedef struct side { int sel; unsigned off, addr, rows, cols; } side;

/* One pass (E3): weight read at w, input read at x = w + 2, sw at x + 1, side reads at x + off.
 * Returns the edge of the pass's last UB append: x + N + S + 1 + (R_x - 1) + (C_out - 1). */
static unsigned pass(pb *b, unsigned pathway, unsigned S, unsigned waddr, unsigned wrows,
                     unsigned wcols, int wT, unsigned xaddr, unsigned xrows, unsigned xcols,
                     int xT, const side *sides, unsigned n_sides, unsigned R_x, unsigned C_out)
{
    b->lv.pathway = (uint8_t)pathway;
    unsigned w = pb_next(b), x = w + 2;
    pb_cycle(b, TT_CH_WEIGHT, waddr, wrows, wcols, wT, 0, NULL, 0);
    pb_idle(b, 1);
    pb_cycle(b, TT_CH_INPUT, xaddr, xrows, xcols, xT, 0, NULL, 0);
    unsigned last = x + 2 + S + 1 + (R_x - 1) + (C_out - 1);
    for (unsigned k = x + 1; k <= last + 1; k++) { /* through the last GD write-back */
        int sel = -1, sw = k == x + 1;
        const side *sd = NULL;
        for (unsigned i = 0; i < n_sides; i++)
            if (x + sides[i].off == k)
                sd = &sides[i], sel = sides[i].sel;
        pb_cycle(b, sel, sd ? sd->addr : 0, sd ? sd->rows : 0, sd ? sd->cols : 0, 0, sw, NULL,
                 0);
    }
    pb_idle(b, 1); /* the next pass starts >= 2 edges after the last append (E4) */
    return last;
}

static void build(pb *b)
{
    b->lv.leak = ALPHA, b->lv.inv = INV, b->lv.lr = LR;
    pb_reset(b);
    /* host load, two words per cycle, the higher lane at the lower address (D2) */
    int words[21], n = 0;
    for (int r = 0; r < 4; r++)
        words[n++] = X[r][0], words[n++] = X[r][1];
    for (int r = 0; r < 4; r++)
        words[n++] = Y[r];
    words[n++] = W1[0][0], words[n++] = W1[0][1], words[n++] = W1[1][0], words[n++] = W1[1][1];
    words[n++] = B1[0], words[n++] = B1[1], words[n++] = W2[0], words[n++] = W2[1];
    words[n++] = B2;
    for (int i = 0; i < n; i += 2) {
        int h[2] = {i + 1 < n ? words[i + 1] & 0xFFFF : INT32_MIN, words[i] & 0xFFFF};
        if (i + 1 >= n) /* a single word: lane 1 alone */
            h[0] = INT32_MIN;
        pb_cycle(b, -1, 0, 0, 0, 0, 0, h, 2);
    }
    pb_idle(b, 1);
    /* 1: H1 = lrelu(X W1^T + B1) */
    side s1[] = {{TT_CH_BIAS, 2, A_B1, 4, 2}};
    pass(b, 0xC, 2, A_W1, 2, 2, 1, A_X, 4, 2, 0, s1, 1, 4, 2);
    /* 2: transition: dZ2, B2 updated */
    side s2[] = {{TT_CH_BIAS, 2, A_B2, 4, 1}, {TT_CH_Y, 4, A_Y, 4, 1}, {TT_CH_GBIAS, 6, A_B2, 4, 1}};
    pass(b, 0xF, 4, A_W2, 1, 2, 1, A_H1, 4, 2, 0, s2, 3, 4, 1);
    /* 3: backward: dZ1, B1 updated */
    side s3[] = {{TT_CH_H, 2, A_H1, 4, 2}, {TT_CH_GBIAS, 3, A_B1, 4, 2}};
    pass(b, 0x1, 1, A_W2, 1, 2, 0, A_DZ2, 4, 1, 0, s3, 2, 4, 2);
    /* 4a, 4b: W1 -= lr dZ1_tile^T X_tile */
    for (unsigned t = 0; t < 2; t++) {
        side s4[] = {{TT_CH_GWEIGHT, 2, A_W1, 2, 2}};
        pass(b, 0x0, 0, A_X + 4 * t, 2, 2, 0, A_DZ1 + 4 * t, 2, 2, 1, s4, 1, 2, 2);
    }
    /* 5a, 5b: W2 -= lr dZ2_tile^T H1_tile */
    for (unsigned t = 0; t < 2; t++) {
        side s5[] = {{TT_CH_GWEIGHT, 2, A_W2, 1, 2}};
        pass(b, 0x0, 0, A_H1 + 4 * t, 2, 2, 0, A_DZ2 + 2 * t, 2, 1, 1, s5, 1, 1, 2);
    }
}

/* ---- the reference (E9) ---- */
static int lrelu(int z)
{
    return z >= 0 ? z : ref_mul(z, ALPHA);
}

int main(void)
{
    int h1[4][2], dz2[4], dz1[4][2], w1[2][2], b1[2], w2[2], b2 = B2;
    memcpy(w1, W1, sizeof w1), memcpy(b1, B1, sizeof b1), memcpy(w2, W2, sizeof w2);
    for (int r = 0; r < 4; r++)
        for (int j = 0; j < 2; j++) /* out_j = add(mul(x1, M[1][j]), add(mul(x0, M[0][j]), 0)) */
            h1[r][j] = lrelu(ref_add(ref_add(ref_mul(X[r][1], W1[j][1]),
                                             ref_add(ref_mul(X[r][0], W1[j][0]), 0)), B1[j]));
    for (int r = 0; r < 4; r++) {
        int z = ref_add(ref_mul(h1[r][1], W2[1]), ref_add(ref_mul(h1[r][0], W2[0]), 0));
        int h2 = lrelu(ref_add(z, B2));
        int l = ref_mul(ref_sub(h2, Y[r]), INV);
        dz2[r] = h2 >= 0 ? l : ref_mul(l, ALPHA);
        b2 = ref_sub(b2, ref_mul(dz2[r], LR)); /* sequential over the rows */
    }
    for (int r = 0; r < 4; r++)
        for (int j = 0; j < 2; j++) {
            /* row 1 of the array holds 0 and lane 1 carries 0 */
            int g = ref_add(ref_mul(0, 0), ref_add(ref_mul(dz2[r], W2[j]), 0));
            dz1[r][j] = h1[r][j] >= 0 ? g : ref_mul(g, ALPHA);
            b1[j] = ref_sub(b1[j], ref_mul(dz1[r][j], LR));
        }
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < 2; j++) {
                int g = ref_add(ref_mul(dz1[2 * t + 1][k], X[2 * t + 1][j]),
                                ref_add(ref_mul(dz1[2 * t][k], X[2 * t][j]), 0));
                w1[k][j] = ref_sub(w1[k][j], ref_mul(g, LR));
            }
    for (int t = 0; t < 2; t++)
        for (int j = 0; j < 2; j++) {
            int g = ref_add(ref_mul(dz2[2 * t + 1], h1[2 * t + 1][j]),
                            ref_add(ref_mul(dz2[2 * t], h1[2 * t][j]), 0));
            w2[j] = ref_sub(w2[j], ref_mul(g, LR));
        }

    pb b;
    pb_init(&b, 2);
    build(&b);
    for (int observed = 0; observed < 2; observed++) {
        npk_machine *m = pb_machine(&b, "tinytpu");
        FILE *tr = observed ? tmpfile() : NULL;
        if (tr)
            npk_trace_text(m, tr);
        npk_stop stop;
        NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK);
        NPK_REPORT(stop.reason == NPK_STOP_EXIT, "stop: %s\n", stop.message);
#define EXPECT(addr, want) NPK_CHECK_EQ_U64(ub_word(m, addr), (unsigned)(want) & 0xFFFF)
        for (int r = 0; r < 4; r++) {
            for (int j = 0; j < 2; j++) {
                EXPECT(A_H1 + 2 * r + j, h1[r][j]);
                EXPECT(A_DZ1 + 2 * r + j, dz1[r][j]);
            }
            EXPECT(A_DZ2 + r, dz2[r]);
        }
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < 2; j++)
                EXPECT(A_W1 + 2 * k + j, w1[k][j]);
        EXPECT(A_B1, b1[0]);
        EXPECT(A_B1 + 1, b1[1]);
        EXPECT(A_W2, w2[0]);
        EXPECT(A_W2 + 1, w2[1]);
        EXPECT(A_B2, b2);
        uint64_t wp = 0;
        npk_reg_read(m, "wp", &wp);
        NPK_CHECK_EQ_U64(wp, A_JUNK + 4 + 4 + 2 + 2); /* 12 words of weight-gradient junk */
        if (tr)
            fclose(tr);
        npk_destroy(m);
    }
    printf("XOR step: %zu cycles; H1[3] = %04X %04X, dZ2 = %04X %04X %04X %04X, B2 %04X -> "
           "%04X\n", b.p.n, h1[3][0] & 0xFFFF, h1[3][1] & 0xFFFF, dz2[0] & 0xFFFF,
           dz2[1] & 0xFFFF, dz2[2] & 0xFFFF, dz2[3] & 0xFFFF, B2, b2 & 0xFFFF);
    tt_program_free(&b.p);
    return npk_test_done();
}
