/* Multi-step XOR training on the simulator: compile a description with many steps (one
 * program: the passes of every step back to back, parameters updated in place, each step's
 * results in fresh UB space, a final forward pass), run it, check it word for word against the
 * compiler's prediction, print the loss per step and assert that it falls.
 *
 * Where the numbers come from: the loss of step s is the mean squared error of the network's
 * output H_L in step s's forward/transition pass. The machine does not write H_L (the
 * transition pass turns it into dL/dZ_L, A9.3), so the per-step loss is that of the compiler's
 * Q8.8 model, which the self-check proves equal to the machine in every written word (the dZ_L
 * words are a function of exactly that H_L). The final loss and the predictions are read from
 * the machine itself: the evaluation pass appends H_L after the last step. The float reference
 * (xor_ref.c) trained from the same Q8.8 start is printed alongside. Argument: the .net file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/npukit.h"
#include "targets/tinytpu/compile.h"
#include "test.h"
#include "xor_ref.h"

int main(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: tt_xor_train [NET [-v]]\n"
               "Train XOR on tinytpu from the network description NET (default xor_train.net) "
               "and check\nthe learned outputs against the host reference (ctest "
               "tinytpu_xor_train); -v prints every epoch.\n");
        return 0;
    }
    const char *path = argc > 1 ? argv[1] : "xor_train.net";
    int verbose = argc > 2 && !strcmp(argv[2], "-v");
    char err[512];
    tt_net net;
    int rc = xr_load_net(path, &net, err, sizeof err);
    NPK_REPORT(rc == 0, "%s\n", err);
    if (rc)
        return npk_test_done();
    NPK_CHECK(net.eval && net.L == 2 && net.B <= XR_MAXB);
    tt_compiled c;
    rc = tt_compile(&net, &c, err, sizeof err);
    NPK_REPORT(rc == 0, "%s\n", err);
    if (rc)
        return npk_test_done();
    uint16_t *ub = calloc(net.ub_words, sizeof *ub);
    long bad = tt_compiled_check(&net, &c, ub, err, sizeof err);
    NPK_REPORT(bad == 0, "self-check: %ld mismatches: %s\n", bad, err);

    /* float reference from the same Q8.8 start */
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
    unsigned B = net.B, dL = net.d[net.L];
    double X[XR_MAXB * XR_MAXD], Y[XR_MAXB * XR_MAXD];
    for (unsigned i = 0; i < B * net.d[0]; i++)
        X[i] = net.X[i] / 256.0;
    for (unsigned i = 0; i < B * dL; i++)
        Y[i] = net.Y[i] / 256.0;
    static xr_result r;
    double alpha = (int16_t)net.alpha / 256.0, inv = (int16_t)c.inv / 256.0,
           lr = (int16_t)net.lr / 256.0;
    printf("XOR training: %u steps, %zu cycles (%zu per step), %u of %u UB words\n", net.steps,
           c.cycles, c.step_cycles, c.words, net.ub_words);
    printf("step  loss(machine, Q8.8)  loss(float reference)\n");
    for (unsigned s = 0; s < net.steps; s++) {
        xr_step(&p, B, X, Y, alpha, inv, lr, &r);
        if (verbose || s < 5 || (s + 1) % 10 == 0 || s + 1 == net.steps)
            printf("%4u  %.6f             %.6f\n", s + 1, c.loss[s], r.loss);
    }
    double fl = xr_loss(&p, B, X, Y, alpha, NULL);
    printf("after %u steps: machine loss %.6f (from the evaluation pass's H_L in the UB), float "
           "%.6f\n", net.steps, c.eval_loss, fl);

    /* the machine's own outputs after training */
    char name[16];
    snprintf(name, sizeof name, "H%u", net.L);
    const tt_region *h = tt_compiled_find(&c, name, (int)net.steps);
    NPK_REPORT(h != NULL, "no evaluation output %s\n", name);
    if (h) {
        double loss = 0;
        int correct = 0;
        for (unsigned s = 0; s < B; s++) {
            double out = (int16_t)ub[h->addr + s * dL] / 256.0, y = Y[s * dL];
            loss += (out - y) * (out - y);
            int cls = out > 0.5;
            correct += cls == (y > 0.5);
            printf("  x = (%g, %g)  y = %g  machine output %.4f -> %d\n", X[s * 2], X[s * 2 + 1],
                   y, out, cls);
        }
        loss /= B * dL;
        NPK_REPORT(fabs(loss - c.eval_loss) < 1e-12, "eval loss %f vs model %f\n", loss,
                   c.eval_loss);
        NPK_REPORT(loss < 0.5 * c.loss[0], "final loss %f not below half the first %f\n", loss,
                   c.loss[0]);
        NPK_REPORT(correct == (int)B, "only %d of %u classified correctly\n", correct, B);
        printf("loss %.6f -> %.6f; %d of %u correct\n", c.loss[0], loss, correct, B);
    }
    free(ub);
    tt_compiled_free(&c);
    tt_net_free(&net);
    return npk_test_done();
}
