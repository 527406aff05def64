/* ctest opennpu_mlp: the int8 Fashion-MNIST MLP (onpu_mlp.h) on the simulated opennpu, all
 * 10,000 test images (Debian dataset-fashion-mnist) in batches, against the host reference of
 * the same integer network (examples/rvnpu/mlp/mlp_ref.c, mlp_predict): every logit must be
 * equal. Prints the accuracy (the rvnpu firmware and the reference give 86.55 %) and the cost
 * per image. Exit 77 (skip) when the dataset is not installed.
 *   usage: onpu_mlp_test WEIGHTS [DATA_DIR [N_IMAGES [BATCH]]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_run.h"
#include "onpu_mlp.h"

int main(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: onpu_mlp_test WEIGHTS [DATA_DIR [N_IMAGES [BATCH]]]\n"
               "Run the int8 Fashion-MNIST MLP on opennpu over N_IMAGES test images (default "
               "10000) in\nbatches of BATCH (80) and compare every logit with the host "
               "reference.\n");
        return 0;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: onpu_mlp_test WEIGHTS [DATA_DIR [N_IMAGES [BATCH]]]\n");
        return 2;
    }
    const char *dir = argc > 2 ? argv[2] : MLP_DEFAULT_DATA_DIR;
    unsigned limit = argc > 3 ? (unsigned)atoi(argv[3]) : 10000;
    unsigned batch = argc > 4 ? (unsigned)atoi(argv[4]) : 80;
    char err[512];
    static mlp_model model;
    if (mlp_model_load(&model, argv[1], err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    mlp_dataset ds;
    int rc = mlp_dataset_load(&ds, dir, "t10k", err, sizeof err);
    if (rc) {
        printf("%s%s\n", rc > 0 ? "SKIP: " : "", err);
        return rc > 0 ? 77 : 1;
    }
    if (limit > ds.n)
        limit = (unsigned)ds.n;
    onpu_mlp_layout l;
    if (onpu_mlp_layout_make(&l, batch, 8, 32, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    npk_opennpu_gemm_counts cnt;
    char *prog = onpu_mlp_program(&l, model.shift1, &cnt);
    uint8_t *img = malloc(l.end), *x = malloc(l.x_size);
    size_t res_size = 4ull * MLP_N_OUT * l.batch_pad;
    uint8_t *res = malloc(res_size);
    npk_machine *m = onpu_gemm_machine("opennpu", l.end, err, sizeof err);
    if (!prog || !img || !x || !res || !m) {
        fprintf(stderr, "setup: %s\n", m ? "out of memory" : err);
        return 1;
    }
    onpu_mlp_pack_model(&l, &model, img);
    if (npk_load_asm(m, prog, "mlp.s", stderr) != NPK_OK ||
        npk_mem_write(m, "mem", 0, img, l.end) != NPK_OK) {
        fprintf(stderr, "load: %s\n", npk_error(m));
        return 1;
    }
    unsigned correct = 0, ref_correct = 0, mismatches = 0, stats_on = 1;
    uint64_t ticks = 0, insns = 0, feeds = 0;
    for (unsigned at = 0; at < limit; at += batch) {
        unsigned n = limit - at < batch ? limit - at : batch;
        onpu_mlp_pack_images(&l, ds.images + (size_t)MLP_N_IN * at, n, x);
        npk_stop stop;
        if (npk_reset(m) != NPK_OK || npk_mem_write(m, "mem", l.x_addr, x, l.x_size) != NPK_OK ||
            npk_stats_enable(m, stats_on) != NPK_OK || npk_run(m, 0, &stop) != NPK_OK ||
            stop.reason != NPK_STOP_EXIT ||
            npk_mem_read(m, "mem", l.logits_addr, res, res_size) != NPK_OK) {
            fprintf(stderr, "batch at %u: %s %s\n", at, npk_error(m), stop.message);
            return 1;
        }
        if (stats_on) { /* the first batch, observed: ticks */
            npk_stats st;
            npk_stats_get(m, &st);
            ticks = st.cycles, insns = st.insns;
            for (size_t i = 0; i < st.n_extra; i++)
                if (!strcmp(st.extra_name[i], "mma_feeds"))
                    feeds = st.extra[i];
            stats_on = 0;
        }
        for (unsigned i = 0; i < n; i++) {
            int32_t got[10], want[10];
            onpu_mlp_logits(&l, res, i, got);
            int pred_ref = mlp_predict(&model, ds.images + (size_t)MLP_N_IN * (at + i), want);
            if (pred_ref < 0) {
                fprintf(stderr, "image %u: the reference overflows 32 bits\n", at + i);
                return 1;
            }
            int best = 0;
            for (int o = 1; o < 10; o++)
                if (got[o] > got[best])
                    best = o;
            if (memcmp(got, want, sizeof got)) {
                if (mismatches++ < 5) {
                    printf("MISMATCH image %u: logits", at + i);
                    for (int o = 0; o < 10; o++)
                        printf(" %d/%d", got[o], want[o]);
                    printf("\n");
                }
            }
            correct += best == ds.labels[at + i];
            ref_correct += pred_ref == ds.labels[at + i];
        }
    }
    printf("opennpu MLP (K=8 L=32, batch %u): %u images, %u mismatching the host reference; "
           "accuracy %.2f %% (reference %.2f %%)\n",
           batch, limit, mismatches, 100.0 * correct / limit, 100.0 * ref_correct / limit);
    printf("per batch of %u: %llu instructions (%llu MMA feeds), %llu ticks, MMA utilisation "
           "%llu per mille; per image %.0f instructions, %.0f ticks\n",
           batch, (unsigned long long)insns, (unsigned long long)feeds,
           (unsigned long long)ticks, (unsigned long long)(ticks ? feeds * 1000 / ticks : 0),
           (double)insns / batch, (double)ticks / batch);
    npk_destroy(m);
    mlp_dataset_free(&ds);
    free(prog), free(img), free(x), free(res);
    return mismatches != 0 || correct != ref_correct;
}
