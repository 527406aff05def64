/* mlp_ref: the host reference of the rvnpu MLP firmware (spec §13.2) as a command.
 * Evaluates the int8 network on Fashion-MNIST, predicts one raw image, or extracts a test image
 * as the 784-byte file that `npukit run --write test_image:FILE` takes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlp_ref.h"

#ifndef MLP_DEFAULT_WEIGHTS
#define MLP_DEFAULT_WEIGHTS "models/mlp/mlp_weights.bin"
#endif

static const char *const class_names[10] = {"T-shirt/top", "Trouser", "Pullover", "Dress",
                                            "Coat",        "Sandal",  "Shirt",    "Sneaker",
                                            "Bag",         "Ankle boot"};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mlp_ref [options]\n"
            "Host reference of the int8 Fashion-MNIST MLP firmware (examples/rvnpu/mlp): the\n"
            "same integer arithmetic, computed on the host.\n"
            "\n"
            "  (no action)          evaluate the test set: accuracy over the first N images\n"
            "  --image FILE         predict one raw image (784 bytes, pixels 0..255 row by row);\n"
            "                       prints the class digit and a newline, as the firmware does\n"
            "  --extract K OUT      write test image K (0-based) to OUT as 784 raw bytes and\n"
            "                       print its label and the reference prediction\n"
            "options:\n"
            "  --weights FILE       weights (default %s)\n"
            "  --data-dir DIR       gzip'd IDX files (default %s,\n"
            "                       Debian package dataset-fashion-mnist)\n"
            "  -n N                 evaluate only the first N test images\n"
            "  -v, --verbose        with evaluation: one line per image (index label prediction)\n"
            "  -h, --help           this text\n"
            "exit status: 0 ok, 1 error, 2 usage error\n",
            MLP_DEFAULT_WEIGHTS, MLP_DEFAULT_DATA_DIR);
}

static int parse_count(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-')
        return -1;
    *out = (size_t)v;
    return 0;
}

int main(int argc, char **argv)
{
    const char *weights = MLP_DEFAULT_WEIGHTS, *data_dir = MLP_DEFAULT_DATA_DIR;
    const char *image_file = NULL, *extract_out = NULL;
    size_t limit = 0, extract_k = 0;
    int have_limit = 0, verbose = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--weights") && more) {
            weights = argv[++i];
        } else if (!strcmp(a, "--data-dir") && more) {
            data_dir = argv[++i];
        } else if (!strcmp(a, "--image") && more) {
            image_file = argv[++i];
        } else if (!strcmp(a, "--extract") && i + 2 < argc) {
            if (parse_count(argv[i + 1], &extract_k) != 0) {
                fprintf(stderr, "mlp_ref: --extract %s: expected an image index\n", argv[i + 1]);
                return 2;
            }
            extract_out = argv[i + 2];
            i += 2;
        } else if (!strcmp(a, "-n") && more) {
            if (parse_count(argv[++i], &limit) != 0) {
                fprintf(stderr, "mlp_ref: -n %s: expected a count\n", argv[i]);
                return 2;
            }
            have_limit = 1;
        } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            verbose = 1;
        } else {
            fprintf(stderr, "mlp_ref: %s: %s (try --help)\n", a,
                    a[0] == '-' && !more ? "missing value or unknown option" : "unknown argument");
            return 2;
        }
    }
    if (image_file && extract_out) {
        fprintf(stderr, "mlp_ref: --image and --extract exclude each other\n");
        return 2;
    }

    static mlp_model model;
    char err[4352];
    if (mlp_model_load(&model, weights, err, sizeof err) != 0) {
        fprintf(stderr, "mlp_ref: %s\n", err);
        return 1;
    }

    if (image_file) {
        FILE *f = fopen(image_file, "rb");
        if (!f) {
            fprintf(stderr, "mlp_ref: %s: cannot open: %s\n", image_file, strerror(errno));
            return 1;
        }
        uint8_t img[MLP_N_IN + 1];
        size_t n = fread(img, 1, sizeof img, f);
        fclose(f);
        if (n != MLP_N_IN) {
            fprintf(stderr, "mlp_ref: %s: %s%zu bytes, expected %d (28x28 pixels)\n", image_file,
                    n > MLP_N_IN ? "more than " : "", n > MLP_N_IN ? (size_t)MLP_N_IN : n,
                    MLP_N_IN);
            return 1;
        }
        int p = mlp_predict(&model, img, NULL);
        if (p < 0) {
            fprintf(stderr, "mlp_ref: %s: an intermediate value leaves int32\n", image_file);
            return 1;
        }
        printf("%d\n", p);
        return 0;
    }

    mlp_dataset ds;
    int r = mlp_dataset_load(&ds, data_dir, "t10k", err, sizeof err);
    if (r != 0) {
        fprintf(stderr, "mlp_ref: %s%s\n", err,
                r > 0 ? " (install the Debian package dataset-fashion-mnist)" : "");
        return 1;
    }
    int status = 0;
    if (extract_out) {
        if (extract_k >= ds.n) {
            fprintf(stderr, "mlp_ref: --extract %zu: the test set has %zu images\n", extract_k,
                    ds.n);
            status = 2;
        } else {
            FILE *f = fopen(extract_out, "wb");
            const uint8_t *img = ds.images + extract_k * MLP_N_IN;
            if (!f || fwrite(img, 1, MLP_N_IN, f) != MLP_N_IN || fclose(f) != 0) {
                fprintf(stderr, "mlp_ref: %s: cannot write: %s\n", extract_out, strerror(errno));
                status = 1;
            } else {
                int p = mlp_predict(&model, img, NULL);
                int lab = ds.labels[extract_k];
                printf("test image %zu -> %s: label %d (%s), reference prediction %d (%s)\n",
                       extract_k, extract_out, lab, class_names[lab], p,
                       p >= 0 ? class_names[p] : "?");
            }
        }
    } else {
        size_t n = have_limit && limit < ds.n ? limit : ds.n, correct = 0;
        for (size_t k = 0; k < n; k++) {
            int p = mlp_predict(&model, ds.images + k * MLP_N_IN, NULL);
            if (p < 0) {
                fprintf(stderr, "mlp_ref: test image %zu: an intermediate value leaves int32\n",
                        k);
                status = 1;
                break;
            }
            correct += (unsigned)p == ds.labels[k];
            if (verbose)
                printf("%zu %d %d\n", k, ds.labels[k], p);
        }
        if (status == 0)
            printf("mlp_ref: %zu/%zu correct, accuracy %.2f %%\n", correct, n,
                   n ? 100.0 * (double)correct / (double)n : 0.0);
    }
    mlp_dataset_free(&ds);
    return status;
}
