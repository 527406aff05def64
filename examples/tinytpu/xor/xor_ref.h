/* Float reference (double precision) of the training step the tinytpu schedule compiler emits:
 * the same MLP, leaky ReLU on every layer, MSE loss derivative (2/B)(H - Y), the leaky-ReLU
 * derivative, and plain SGD with learning rate lr. Unlike the machine it rounds nothing, and it
 * updates each bias once with the gradient summed over the batch, as a normal float
 * implementation does. Used by xor_test.c (one step) and xor_train.c (the loss curve). */
#ifndef TT_XOR_REF_H
#define TT_XOR_REF_H

#include <stddef.h>

#define XR_MAXL 4u   /* layers */
#define XR_MAXD 8u   /* width */
#define XR_MAXB 64u  /* batch */

typedef struct xr_net {
    unsigned L, d[XR_MAXL + 1];
    double W[XR_MAXL][XR_MAXD][XR_MAXD]; /* W[l][out][in] */
    double b[XR_MAXL][XR_MAXD];
} xr_net;

typedef struct xr_result {
    double H[XR_MAXL + 1][XR_MAXB][XR_MAXD];  /* H[0] = X, H[l] = layer l's output */
    double dZ[XR_MAXL + 1][XR_MAXB][XR_MAXD]; /* dZ[l] = dL/dZ of layer l (1-based) */
    double loss;                              /* mean squared error before the update */
} xr_result;

/* One SGD step on batch X (B x d0), Y (B x dL): fills r and updates p. inv is the 2/B
 * constant (the machine's Q8.8 value, converted), alpha the leak. */
void xr_step(xr_net *p, unsigned B, const double *X, const double *Y, double alpha, double inv,
             double lr, xr_result *r);
/* Forward only: the mean squared error of p on the batch, the outputs in out (B x dL). */
double xr_loss(const xr_net *p, unsigned B, const double *X, const double *Y, double alpha,
               double *out);


/* A whole text file, NUL-terminated (malloc'd), or NULL. */
char *xr_read_text(const char *path);
/* Read and parse a network description (targets/tinytpu/compile.h). 0, or -1 with a message in
 * err (unreadable file, or the parser's file:line message); net must be freed with tt_net_free
 * either way. */
struct tt_net;
int xr_load_net(const char *path, struct tt_net *net, char *err, size_t err_size);

#endif
