/* Host reference for the pccx_llm decoder layers: the same model in plain binary64 C (no BF16
 * rounding anywhere), on the same dequantised INT4 weights and BF16 inputs. Independent of the
 * simulator and of the instruction sequences in pccx_llm.c. */
#ifndef LLM_REF_H
#define LLM_REF_H

#include "pccx_llm.h"

/* Per-layer KV cache in binary64: [kv_head][max_pos][head_dim]. */
typedef struct ref_cache {
    double *k, *v;
} ref_cache;

int ref_cache_init(ref_cache *rc, const llm_dims *d);
void ref_cache_free(ref_cache *rc);

/* One decoder layer on x[dim] (in place) at position pos; appends k/v rows at pos. */
void ref_layer(const llm_dims *d, const llm_layer_weights *w, ref_cache *cache, double *x,
               uint32_t pos);
/* Final RMSNorm + LM head: logits[vocab]. */
void ref_head(const llm_dims *d, const uint16_t *final_norm, const llm_int4 *head,
              const double *x, double *logits);

#endif
