/* Training steps of a plan's MLP on tinytpu (docs/models.md, "Training on tinytpu"): each step
 * is one program of the schedule compiler (tiled training, docs/tinytpu-compiler.md) with the
 * batch and the current Q8.8 parameters in its host load, run on a fresh simulator and
 * self-checked word for word; the trained parameters are read back from the simulated UB. A
 * two-layer step too large for the UB runs as several programs (forward and update of layer 1
 * in chunks, layer 2 with dZ1 in one), the host copying words between them. No global state. */
#ifndef NPK_TINYTPU_TRAIN_H
#define NPK_TINYTPU_TRAIN_H

#include <stddef.h>

#include "model/plan.h"

typedef struct tt_train_stats {
    double loss;         /* mean over the batch and the outputs of (H - Y)^2, H the step's
                            forward output (the compiler's Q8.8 model, equal to the machine) */
    double loss_after;   /* the same after the update (when the step had an evaluation pass) */
    size_t cycles;       /* control words = cycles of the program, reset and host load included */
    size_t load_cycles;  /* reset + host load */
    unsigned words;      /* UB words the program writes */
} tt_train_stats;

typedef struct tt_trainer tt_trainer;

/* A trainer for plan p (dense layers; ReLU (hidden layers only), LeakyRelu or no activation)
 * with settings "lanes=N,ub_words=S", learning rate lr and batch B. 0, or -1 with the reason
 * (naming the layer) in err. */
int tt_train_open(const npk_plan *p, const char *settings, double lr, unsigned batch,
                  tt_trainer **out, char *err, size_t err_size);
/* One step on B inputs x (B x n_in floats) with targets y (B x n_out floats); with eval, the
 * program also runs the forward pass after the update (loss_after). 0, or -1 with err. */
int tt_train_step(tt_trainer *t, const float *x, const float *y, int eval, tt_train_stats *st,
                  char *err, size_t err_size);
/* The current parameters of plan layer i as floats (q / 256): w [n_out][n_in], b [n_out]. */
void tt_train_params(const tt_trainer *t, size_t i, float *w, float *b);
/* Weights and biases that saturated in the Q8.8 conversion at open; the Q8.8 learning rate. */
unsigned tt_train_saturated(const tt_trainer *t);
double tt_train_lr(const tt_trainer *t);
/* Programs per step: 1, or for a step split over several (known after the first step). */
unsigned tt_train_programs(const tt_trainer *t);
void tt_train_close(tt_trainer *t);

#endif
