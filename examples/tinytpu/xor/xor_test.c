/* The XOR training step (spec Part D) compiled by the schedule compiler and run on the
 * simulator: (1) every written UB word equals the compiler's Q8.8 prediction (rule 11) and the
 * memory map is Part D's; (2) the results agree with the float reference (xor_ref.c) within
 * TOL LSB; (3) the hand-written assembly xor_step.tt gives the same UB words as the compiled
 * step. Argument: the directory holding xor.net and xor_step.tt. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/npukit.h"
#include "targets/tinytpu/compile.h"
#include "targets/tinytpu/machine.h"
#include "test.h"
#include "xor_ref.h"

/* Tolerance against the float reference, in Q8.8 LSB (1/256). The machine rounds every
 * product half up (up to 0.5 LSB each, A3), has no wide accumulator, applies the bias updates
 * row by row (one rounding of mul(g, lr) per row instead of one for the sum) and feeds those
 * rounded values into the next layer; the differences measured on this step are at most 3 LSB
 * (see docs/tinytpu-compiler.md), so 4 LSB leaves a margin without hiding a real error (a
 * wrong pass changes results by tens of LSB). */
#define TOL 4

static double q(uint16_t v)
{
    return (int16_t)v / 256.0;
}

static int worst; /* largest difference seen, LSB */

static void near(const char *what, uint16_t got, double want)
{
    double d = fabs(q(got) - want) * 256.0;
    if (d > worst)
        worst = (int)ceil(d - 1e-9);
    NPK_REPORT(d <= TOL, "%s: machine %.5f (0x%04X), float %.5f: %.2f LSB > %d\n", what, q(got),
               got, want, d, TOL);
}

static unsigned at(const tt_compiled *c, const char *name, int step)
{
    const tt_region *r = tt_compiled_find(c, name, step);
    NPK_REPORT(r != NULL, "no region %s\n", name);
    return r ? r->addr : 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: tt_xor_test [DIR]\n"
               "Compile DIR/xor.net (default .) for tinytpu, run one training step and check it "
               "against the\nhost reference, cycle by cycle (ctest tinytpu_xor_step).\n");
        return 0;
    }
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/xor.net", dir);
    tt_net net;
    int prc = xr_load_net(path, &net, err, sizeof err);
    NPK_REPORT(prc == 0, "%s\n", err);
    if (prc)
        return npk_test_done();
    tt_compiled c;
    int crc = tt_compile(&net, &c, err, sizeof err);
    NPK_REPORT(crc == 0, "%s\n", err);
    if (crc)
        return npk_test_done();

    /* (1) prediction == simulator, every written word and wp */
    uint16_t ub[128];
    long bad = tt_compiled_check(&net, &c, ub, err, sizeof err);
    NPK_REPORT(bad == 0, "self-check: %ld mismatches: %s\n", bad, err);
    /* Part D's layout (D2) */
    NPK_CHECK_EQ_U64(at(&c, "X", -1), 0);
    NPK_CHECK_EQ_U64(at(&c, "Y", -1), 8);
    NPK_CHECK_EQ_U64(at(&c, "W1", -1), 12);
    NPK_CHECK_EQ_U64(at(&c, "b1", -1), 16);
    NPK_CHECK_EQ_U64(at(&c, "W2", -1), 18);
    NPK_CHECK_EQ_U64(at(&c, "b2", -1), 20);
    NPK_CHECK_EQ_U64(at(&c, "H1", 0), 21);
    NPK_CHECK_EQ_U64(at(&c, "dZ2", 0), 29);
    NPK_CHECK_EQ_U64(at(&c, "dZ1", 0), 33);
    NPK_CHECK_EQ_U64(at(&c, "dW1 tile 0", 0), 41);
    NPK_CHECK_EQ_U64(c.words, 53);
    NPK_CHECK(c.prog.n > 0 && c.prog.c[0].rst == 1);

    /* (2) float reference from the same Q8.8 inputs */
    xr_net p;
    memset(&p, 0, sizeof p);
    p.L = net.L;
    for (unsigned l = 0; l <= net.L; l++)
        p.d[l] = net.d[l];
    for (unsigned l = 0; l < net.L; l++)
        for (unsigned k = 0; k < net.d[l + 1]; k++) {
            for (unsigned j = 0; j < net.d[l]; j++)
                p.W[l][k][j] = net.W[l][k * net.d[l] + j] / 256.0;
            p.b[l][k] = net.b[l][k] / 256.0;
        }
    double X[8], Y[4];
    for (unsigned i = 0; i < 8; i++)
        X[i] = net.X[i] / 256.0;
    for (unsigned i = 0; i < 4; i++)
        Y[i] = net.Y[i] / 256.0;
    static xr_result r;
    xr_step(&p, 4, X, Y, q(net.alpha), q(c.inv), q(net.lr), &r);
    char what[64];
    for (unsigned s = 0; s < 4; s++) {
        for (unsigned j = 0; j < 2; j++) {
            snprintf(what, sizeof what, "H1[%u][%u]", s, j);
            near(what, ub[21 + 2 * s + j], r.H[1][s][j]);
            snprintf(what, sizeof what, "dZ1[%u][%u]", s, j);
            near(what, ub[33 + 2 * s + j], r.dZ[1][s][j]);
        }
        snprintf(what, sizeof what, "dZ2[%u]", s);
        near(what, ub[29 + s], r.dZ[2][s][0]);
    }
    for (unsigned k = 0; k < 2; k++) {
        for (unsigned j = 0; j < 2; j++) {
            snprintf(what, sizeof what, "W1'[%u][%u]", k, j);
            near(what, ub[12 + 2 * k + j], p.W[0][k][j]);
        }
        snprintf(what, sizeof what, "b1'[%u]", k);
        near(what, ub[16 + k], p.b[0][k]);
        snprintf(what, sizeof what, "W2'[%u]", k);
        near(what, ub[18 + k], p.W[1][0][k]);
    }
    near("b2'", ub[20], p.b[1][0]);
    printf("XOR step: %zu cycles (reset + host load %zu, passes %zu), %u words; largest "
           "difference from the float reference %d LSB (tolerance %d)\n", c.cycles,
           c.load_cycles, c.step_cycles, c.words, worst, TOL);
    printf("updated W1 = %04X %04X / %04X %04X, b1 = %04X %04X, W2 = %04X %04X, b2 = %04X\n",
           ub[12], ub[13], ub[14], ub[15], ub[16], ub[17], ub[18], ub[19], ub[20]);
    printf("float       %.4f %.4f / %.4f %.4f, b1 = %.4f %.4f, W2 = %.4f %.4f, b2 = %.4f\n",
           p.W[0][0][0], p.W[0][0][1], p.W[0][1][0], p.W[0][1][1], p.b[0][0], p.b[0][1],
           p.W[1][0][0], p.W[1][0][1], p.b[1][0]);

    /* (3) the hand-written assembly gives the same UB words */
    snprintf(path, sizeof path, "%s/xor_step.tt", dir);
    char *src = xr_read_text(path);
    NPK_REPORT(src != NULL, "cannot read %s\n", path);
    if (src) {
        tt_program hp;
        tt_program_init(&hp, 2);
        int nerr = tt_assemble(src, path, TT_FMT_ASM, 2, net.lr, &hp, stderr);
        NPK_REPORT(nerr == 0, "%s: %d assembly errors\n", path, nerr);
        if (!nerr) {
            npk_machine *m = NULL;
            NPK_CHECK(npk_create(&m, "tinytpu:lanes=2,ub_words=128,lr=0x00C0", NULL, err,
                                 sizeof err) == NPK_OK);
            npk_stop stop;
            NPK_CHECK(tt_load_program(m, &hp) == NPK_OK);
            NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK);
            unsigned diff = 0;
            for (unsigned a = 0; a < 128; a++) {
                uint8_t b[2];
                NPK_CHECK(npk_mem_read(m, "ub", 2ull * a, b, 2) == NPK_OK);
                unsigned v = (unsigned)b[0] | (unsigned)b[1] << 8;
                if (v != ub[a] && diff++ < 5)
                    fprintf(stderr, "xor_step.tt: UB[%u] = %04X, compiled step %04X\n", a, v,
                            ub[a]);
            }
            NPK_REPORT(diff == 0, "xor_step.tt: %u UB words differ from the compiled step\n",
                       diff);
            uint64_t wp = 0;
            npk_reg_read(m, "wp", &wp);
            NPK_CHECK_EQ_U64(wp, 53);
            printf("xor_step.tt: %zu cycles, same 128 UB words as the compiled step: %s\n", hp.n,
                   diff ? "no" : "yes");
            npk_destroy(m);
        }
        tt_program_free(&hp);
        free(src);
    }
    tt_compiled_free(&c);
    tt_net_free(&net);
    return npk_test_done();
}
