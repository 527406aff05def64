/* tinytpu schedule compiler (docs/spec/tinytpu.md Part E): an MLP training step (or several)
 * turned into a cycle-exact program, a memory map and the Q8.8 prediction of every UB word the
 * program writes. Library code: no exit, no globals; errors come back as messages.
 * The description format and the pass templates are documented in docs/tinytpu-compiler.md. */
#ifndef NPK_TINYTPU_COMPILE_H
#define NPK_TINYTPU_COMPILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "targets/tinytpu/tinytpu.h"

#define TT_NET_MAX_LAYERS 16u

/* Where the last layer's bias is updated (rule 6). */
typedef enum tt_bias_mode {
    TT_BIAS_AUTO,        /* in the transition pass; the identity pass when B >= 8 or tiled */
    TT_BIAS_TRANSITION,  /* in the transition pass (rejected when B >= 8) */
    TT_BIAS_IDENTITY     /* a pass-through pass over a host-loaded identity matrix */
} tt_bias_mode;

/* An MLP training job (the description file, or built in code). Matrices are row-major int16
 * Q8.8 patterns: X is B x d[0], Y is B x d[L], W[l] is d[l+1] x d[l] (out x in, torch layout),
 * b[l] has d[l+1] entries (layer l + 1 of the spec is index l here). With steps 0 the job is
 * an inference (forward passes only); then, with B = 1 (or any B with tile), widths above N are
 * tiled over passes (docs/tinytpu-compiler.md, "Inference and tiling"); training tiles them
 * with any batch ("Training with tiling"). */
typedef struct tt_net {
    unsigned N, ub_words;
    unsigned L;                          /* layers */
    unsigned d[TT_NET_MAX_LAYERS + 1];   /* widths d0 .. dL */
    unsigned B;                          /* batch */
    uint16_t alpha, lr, inv;
    int inv_set;                         /* inv given (else round(2/B * 256)) */
    unsigned steps;                      /* training steps; 0: inference only (the forward
                                            pass of `eval`, no Y loaded, no training) */
    int eval;                            /* append a forward pass after the last step */
    /* Inference only (steps 0): layer l's forward passes use layer_alpha[l] as the leaky-ReLU
     * factor when bit l of layer_alpha_set is set, else alpha. 0 is ReLU, 0x0100 (1.0) no
     * activation (mul(h, 1.0) = h exactly). */
    uint16_t layer_alpha[TT_NET_MAX_LAYERS];
    unsigned layer_alpha_set;
    tt_bias_mode bias_mode;
    /* Training with the tiled schedule (docs/tinytpu-compiler.md, "Training with tiling"): used
     * when a width exceeds N, and forced for any net by tile = 1. Every pass then works on
     * blocks of at most N batch rows x N features; contractions longer than N are summed over
     * passes through the VPU's loss stage. Per-layer α (layer_alpha) is allowed with it. */
    int tile;
    /* With tile, L = 1 and steps 1: the update alone. Y holds the given dZ_1 (B x d1, not
     * targets); the program updates b_1 (through the identity) and W_1 (weight gradients) from
     * it, with X as the layer's input. A training step too large for one program is split
     * into such programs (docs/models.md, "Training on tinytpu"). With tile and steps 0 (an
     * inference) any batch is tiled. */
    int update_only;
    tt_format format;                    /* output format: limits checked (B3/B4) */
    unsigned format_line;                /* the line of the `format` item (0: none, asm) */
    int16_t *X, *Y;
    int16_t *W[TT_NET_MAX_LAYERS], *b[TT_NET_MAX_LAYERS];
} tt_net;

/* Parse a description (docs/tinytpu-compiler.md). `name` is the file name for messages.
 * Returns 0, or -1 with "name:line: message" in err. net is initialised by the call; free it
 * with tt_net_free either way. */
int tt_net_parse(const char *src, const char *name, tt_net *net, char *err, size_t err_size);
/* tt_net_parse of the file at path (read with npk_file_read; its name in messages). */
int tt_net_read(const char *path, tt_net *net, char *err, size_t err_size);
void tt_net_free(tt_net *net);
/* Allocate the matrices for the shape already set in net (L, d, B); values 0. 0 or -1. */
int tt_net_alloc(tt_net *net);

/* Memory-map entry kinds. */
typedef enum tt_region_kind { TT_R_DATA, TT_R_PARAM, TT_R_RESULT, TT_R_JUNK, TT_R_HELPER }
    tt_region_kind;
extern const char *const tt_region_kind_names[5]; /* data param result junk helper */

typedef struct tt_region {
    char name[32];       /* "X", "Y", "W1", "b1", "H1", "dZ2", "dW1 tile 0", "I" */
    tt_region_kind kind;
    int step;            /* training step (0-based); -1 for host-loaded data and parameters,
                            `steps` for the final evaluation pass */
    unsigned addr, rows, cols;   /* rows x cols words at addr: blocks of N rows (batch tiles),
                                    each in skew order (A8); row-major when cols <= 2 */
} tt_region;

typedef struct tt_compiled {
    tt_program prog;     /* one record per cycle; cycle 1 is a reset cycle; lr on every cycle */
    tt_region *map;
    size_t n_map;
    unsigned words;      /* UB words the program writes: 0 .. words - 1 */
    uint16_t *pred;      /* predicted final UB contents (ub_words entries; 0 beyond `words`) */
    size_t cycles;       /* = prog.n */
    size_t step_cycles;  /* cycles of one training step (the first; all are equal) */
    size_t load_cycles;  /* reset + host load */
    uint16_t lr, inv;    /* settings used (inv: the 2/B level) */
    int identity_bias;   /* rule 6 chosen */
    double *loss;        /* per step: mean squared error of the Q8.8 model's forward output H_L
                            (the machine computes the same H_L; it is not written to the UB) */
    double eval_loss;    /* the same for the evaluation pass (when net->eval) */
} tt_compiled;

/* Compile net. Returns 0, or -1 with a message in err (limits, UB capacity, word-format field
 * limits). out is initialised by the call; free it with tt_compiled_free either way. */
int tt_compile(const tt_net *net, tt_compiled *out, char *err, size_t err_size);
void tt_compiled_free(tt_compiled *c);

/* Run c's program on a fresh simulator (lanes, ub_words and lr from net) and compare every word
 * 0 .. words - 1 (and wp) with the prediction. Returns the number of mismatching words (0 = the
 * self-check of rule 11 passed), or -1 when the run itself failed; details in err. If ub is not
 * NULL it receives the simulated UB (ub_words entries). */
long tt_compiled_check(const tt_net *net, const tt_compiled *c, uint16_t *ub, char *err,
                       size_t err_size);

/* The stream file: a header comment line naming `name`, the cycles and the settings, then the
 * program in net->format. 0, or -1 with the reason in err. */
int tt_write_stream(const tt_net *net, const tt_compiled *c, const char *name, FILE *out,
                    char *err, size_t err_size);
/* The settings to run the stream with: "lanes=N,ub_words=W,lr=0xLLLL[,format=F]". */
void tt_run_settings(const tt_net *net, char *buf, size_t n);

/* Print the memory map (one line per region), the junk ranges and the totals. */
void tt_compiled_print_map(const tt_net *net, const tt_compiled *c, FILE *out);

/* The parameters of layer l (0-based: W_{l+1}, b_{l+1}) as the UB image ub (ub_words words,
 * e.g. from tt_compiled_check) holds them: W row-major d[l+1] x d[l] (out x in), b d[l+1].
 * Decodes the memory map's layout. 0, or -1 when the map has no such parameters. */
int tt_compiled_params(const tt_net *net, const tt_compiled *c, const uint16_t *ub, unsigned l,
                       int16_t *W, int16_t *b);

/* The matrix of the region `name` of step `step` (rows x cols, in the map's layout) from the
 * UB image ub, row-major into out. 0, or -1 when there is no such region of that shape. */
int tt_compiled_matrix(const tt_net *net, const tt_compiled *c, const uint16_t *ub,
                       const char *name, int step, unsigned rows, unsigned cols, int16_t *out);

/* The region named `name` of step `step` (-1 for host-loaded ones), or NULL. */
const tt_region *tt_compiled_find(const tt_compiled *c, const char *name, int step);

/* Q8.8 arithmetic of spec A3 (shared with tools and tests). */
int tt_q_mul(int a, int b);
int tt_q_add(int a, int b);
int tt_q_sub(int a, int b);
/* Decimal (or 0x raw bits) to Q8.8 with A3 rounding: ties to even, then saturate. 0 or -1. */
int tt_q_parse(const char *s, int16_t *out);

#endif
