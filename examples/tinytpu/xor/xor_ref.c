/* Float reference of the compiled training step; see xor_ref.h. */
#include "xor_ref.h"
#include "targets/tinytpu/compile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double lrelu(double z, double alpha)
{
    return z >= 0 ? z : alpha * z;
}

static void forward(const xr_net *p, unsigned B, const double *X, double alpha, xr_result *r)
{
    for (unsigned s = 0; s < B; s++)
        for (unsigned k = 0; k < p->d[0]; k++)
            r->H[0][s][k] = X[s * p->d[0] + k];
    for (unsigned l = 0; l < p->L; l++)
        for (unsigned s = 0; s < B; s++)
            for (unsigned j = 0; j < p->d[l + 1]; j++) {
                double z = p->b[l][j];
                for (unsigned k = 0; k < p->d[l]; k++)
                    z += r->H[l][s][k] * p->W[l][j][k];
                r->H[l + 1][s][j] = lrelu(z, alpha);
            }
}

double xr_loss(const xr_net *p, unsigned B, const double *X, const double *Y, double alpha,
               double *out)
{
    static xr_result r; /* large; single-threaded tools only */
    forward(p, B, X, alpha, &r);
    unsigned L = p->L, dL = p->d[L];
    double loss = 0;
    for (unsigned s = 0; s < B; s++)
        for (unsigned j = 0; j < dL; j++) {
            double e = r.H[L][s][j] - Y[s * dL + j];
            loss += e * e;
            if (out)
                out[s * dL + j] = r.H[L][s][j];
        }
    return loss / (B * dL);
}

void xr_step(xr_net *p, unsigned B, const double *X, const double *Y, double alpha, double inv,
             double lr, xr_result *r)
{
    memset(r, 0, sizeof *r);
    forward(p, B, X, alpha, r);
    unsigned L = p->L, dL = p->d[L];
    for (unsigned s = 0; s < B; s++)
        for (unsigned j = 0; j < dL; j++) {
            double h = r->H[L][s][j], e = h - Y[s * dL + j];
            r->loss += e * e;
            /* dL/dH = (2/B)(H - Y); the derivative tests the sign of H (same as Z, alpha > 0) */
            r->dZ[L][s][j] = (h >= 0 ? 1.0 : alpha) * inv * e;
        }
    r->loss /= B * dL;
    for (unsigned l = L; l >= 2; l--) /* dZ[l-1] = (dZ[l] W_l) * lrelu'(H[l-1]) */
        for (unsigned s = 0; s < B; s++)
            for (unsigned j = 0; j < p->d[l - 1]; j++) {
                double g = 0;
                for (unsigned k = 0; k < p->d[l]; k++)
                    g += r->dZ[l][s][k] * p->W[l - 1][k][j];
                r->dZ[l - 1][s][j] = (r->H[l - 1][s][j] >= 0 ? 1.0 : alpha) * g;
            }
    for (unsigned l = 1; l <= L; l++) { /* W_l -= lr dZ_l^T H_{l-1}; b_l -= lr sum dZ_l */
        for (unsigned k = 0; k < p->d[l]; k++) {
            double gb = 0;
            for (unsigned s = 0; s < B; s++)
                gb += r->dZ[l][s][k];
            for (unsigned j = 0; j < p->d[l - 1]; j++) {
                double g = 0;
                for (unsigned s = 0; s < B; s++)
                    g += r->dZ[l][s][k] * r->H[l - 1][s][j];
                p->W[l - 1][k][j] -= lr * g;
            }
            p->b[l - 1][k] -= lr * gb;
        }
    }
}

char *xr_read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = 0;
    fclose(f);
    return s;
}

int xr_load_net(const char *path, struct tt_net *net, char *err, size_t err_size)
{
    char *src = xr_read_text(path);
    if (!src) {
        memset(net, 0, sizeof *net);
        snprintf(err, err_size, "cannot read %s", path);
        return -1;
    }
    int rc = tt_net_parse(src, path, net, err, err_size);
    free(src);
    return rc;
}
