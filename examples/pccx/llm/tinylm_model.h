/* The tiny Gemma-shaped byte language model of models/pccx_tinylm: its weight file, greedy
 * generation on pccx (every layer and the INT4 LM head as pccx instructions through the host
 * API) and the binary64 host reference of the same quantised model. Shared by the tinylm
 * program (examples/pccx/llm/tinylm.c) and `npukit demo pccx`. */
#ifndef PCCX_TINYLM_MODEL_H
#define PCCX_TINYLM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "pccx_llm.h"

typedef struct tinylm_model {
    llm_dims d;
    uint16_t *emb;                 /* [vocab][dim] BF16 */
    llm_layer_weights layer[LLM_MAX_LAYERS];
    uint16_t *norms;               /* 2 per layer + final, [dim] each */
    llm_int4 head;
} tinylm_model;

/* Parse a PCXTLM01 weight image (layout: models/pccx_tinylm/README.md). 0, or -1 with a
 * message in err. */
int tinylm_parse(tinylm_model *m, const uint8_t *buf, size_t len, char *err, size_t err_len);
int tinylm_load(tinylm_model *m, const char *path, char *err, size_t err_len);
void tinylm_free(tinylm_model *m);

/* Greedy generation on pccx: text[0..plen) is the prompt; positions 0..total-2 run through
 * every layer (RoPE tables from the host when rope_host), and from position plen-1 on the LM
 * head's argmax fills text[pos+1]. logits (optional): ntok x vocab values, the NPU's logits per
 * generated step; cyc (optional): cycles of each position. `c` must have been set up with
 * llm_setup for this model on `px`. Returns PCCX_OK or the error (c->where says where). */
int tinylm_generate(const tinylm_model *m, llm_ctx *c, uint8_t *text, uint32_t plen,
                    uint32_t total, double *logits, uint64_t *cyc);
/* llm_setup for this model on an ext-profile context. */
int tinylm_setup(const tinylm_model *m, llm_ctx *c, pccx_t *px, int rope_host);

/* Index of the largest of v[0..n) and (optional) its margin over the runner-up. */
uint32_t tinylm_argmax(const double *v, uint32_t n, double *margin);

/* The binary64 reference over positions 0..total-2 of `text` (prompt of plen bytes). Step s
 * predicts byte plen+s: its top-2 margin, logit RMS and, with dev (NPU logits per step), the
 * max |NPU - reference|. forced = 0: text[plen+s] is set to the reference's greedy choice;
 * forced = 1: text is left alone and the choice goes to tok[s]. rl: vocab doubles, x: dim
 * doubles of scratch. */
int tinylm_ref_run(const tinylm_model *m, uint8_t *text, uint32_t plen, uint32_t total,
                   int forced, uint8_t *tok, double *rl, double *x, double *margin,
                   double *lrms, const double *dev, double *err);

#endif
