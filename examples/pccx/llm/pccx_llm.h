/* pccx_llm: a small library that builds Gemma-shaped decoder layers out of pccx instructions
 * issued through the public host API (include/npukit/pccx.h): an L2 / host-DDR layout
 * allocator, a cache of fmap shape entries, and emitters for the recipes of spec §8 (RMSNorm,
 * half-split RoPE, softmax attention over a KV cache held in host DDR as BF16 views, gated
 * FFN, residual adds). Also the host-side helpers both example programs share: BF16
 * conversion, INT4 packing and a seeded generator. No global state: everything lives in an
 * llm_ctx. */
#ifndef PCCX_LLM_H
#define PCCX_LLM_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "npukit/pccx.h"

/* ---- host-side helpers -------------------------------------------------------------------- */
uint16_t llm_bf16(float f);           /* RNE16 of spec §3.2 (NaN -> 0x7FC0) */
float llm_f32(uint16_t h);            /* widen */
/* splitmix64: deterministic weights and inputs from a seed */
uint64_t llm_rand(uint64_t *state);
double llm_uniform(uint64_t *state);  /* [0, 1) */

/* An INT4 matrix with per-output-row binary32 scales (spec §5.4): n rows of k codes, packed
 * ceil(k/2) bytes per row (low nibble = even column). */
typedef struct llm_int4 {
    uint32_t k, n;
    uint8_t *codes;
    float *scale;
} llm_int4;
int llm_int4_code(const llm_int4 *w, uint32_t row, uint32_t col); /* -8..7 */
/* Allocate and fill with seeded codes in -8..7 and scales amp/7/sqrt(k)*(0.75..1.25). */
int llm_int4_random(llm_int4 *w, uint32_t k, uint32_t n, double amp, uint64_t *rng);
void llm_int4_free(llm_int4 *w);

/* ---- model shape and weights -------------------------------------------------------------- */
typedef struct llm_dims {
    uint32_t dim;          /* D, residual width */
    uint32_t n_heads;      /* query heads */
    uint32_t n_kv_heads;   /* KV heads (divides n_heads) */
    uint32_t head_dim;     /* even, multiple of 8 */
    uint32_t ffn;          /* gated FFN width */
    uint32_t n_layers;
    uint32_t max_pos;      /* KV cache positions per layer */
    uint32_t vocab;        /* LM head rows (0: no head) */
    float rope_base;
    float eps;
} llm_dims;

typedef struct llm_layer_weights {
    const uint16_t *attn_norm;     /* BF16 gains [dim] (no +1 offset) */
    llm_int4 q, k, v, o;           /* q: dim -> H*hd (1/sqrt(hd) folded in or not), o: H*hd -> dim */
    const uint16_t *ffn_norm;      /* BF16 gains [dim] */
    llm_int4 gate, up, down;       /* dim -> ffn, dim -> ffn, ffn -> dim */
} llm_layer_weights;

/* ---- the program builder ------------------------------------------------------------------ */
typedef struct llm_layer_dev {     /* per-layer device resources */
    uint32_t attn_norm, ffn_norm;  /* L2 element addresses of the gains */
    pccx_weight_t q, k, v, o, gate, up, down;
    uint64_t kcache, vcache;       /* host byte offsets: [kv_head][max_pos][head_dim] BF16 */
} llm_layer_dev;

#define LLM_MAX_LAYERS 8

/* Phases of one layer, for the timing breakdown (llm_ctx.phase_at). */
enum { LLM_PH_NORM1, LLM_PH_QKV, LLM_PH_ROPE, LLM_PH_APPEND, LLM_PH_ATTN, LLM_PH_OPROJ,
       LLM_PH_NORM2, LLM_PH_FFN, LLM_N_PHASES };
extern const char *const llm_phase_name[LLM_N_PHASES];

typedef struct llm_ctx {
    pccx_t *px;
    llm_dims d;
    int rc;                        /* first failing API code (sticky) */
    int rope_host;                 /* 0: cos/sin computed on the NPU from pos * omega (§8.3);
                                      1: host-computed BF16 cos/sin rows loaded by MEMCPY */
    int dual_engine;               /* 1 (llm_setup's default): K, V and FFN-up projections as
                                      M = 1 GEMMs, concurrent with the GEMV engine */
    char where[96];                /* what was being emitted when rc was set */
    /* allocators */
    uint32_t l2_next;              /* next free L2 word */
    uint64_t host_next;            /* next free host DDR byte (16-aligned) */
    /* fmap shape cache: one entry per (X, Y, Z) in use, least recently used replaced */
    uint32_t shp[PCCX_CC_ENTRIES][3];
    uint64_t shp_used[PCCX_CC_ENTRIES];
    uint64_t shp_clock;
    int shp_pin;                   /* entry the current instruction already uses */
    /* L2 buffers (element addresses; "w" suffix = word-aligned for GEMV/MEMCPY) */
    uint32_t x;                    /* residual stream [dim], slot x-1 free for RMSNorm */
    uint32_t hn;                   /* normed activations [max(dim, ...)] */
    uint32_t nconst;               /* RMSNorm constants: n, s, eps, s, s */
    uint32_t qkv;                  /* [q heads | k heads | v heads] */
    uint32_t rope_in;              /* [pos | omega table replicated] (host-loaded per token) */
    uint32_t theta, cc, ss, sgn, rot;
    uint32_t scores, expo, probs;  /* attention scratch */
    uint32_t attn;                 /* attention output [H*hd] */
    uint32_t gate, up;             /* FFN */
    uint32_t logits;
    uint32_t final_norm;           /* BF16 gains of the final norm */
    /* host DDR regions */
    uint64_t host_in;              /* embedding row + RoPE block staging */
    uint64_t host_rope;
    uint64_t host_out;             /* residual / logits read-back */
    pccx_weight_t head;            /* LM head tensor */
    llm_layer_dev layer[LLM_MAX_LAYERS];
    float omega[256];              /* RoPE frequencies, BF16 values */
    /* issue index of the first instruction of each phase of the last llm_emit_layer call
     * (phase_at[LLM_N_PHASES] = one past its last instruction) */
    uint64_t phase_at[LLM_N_PHASES + 1];
} llm_ctx;

/* Create the device layout for `d` on an ext-profile context and upload the per-layer
 * constants (norm gains, RMSNorm constants, sign table) with MEMCPY host->L2; INT4 weights are
 * registered as tensors. `final_norm`/`head` may be NULL when d->vocab == 0. Returns PCCX_OK or
 * the first error (message in ctx->where). */
int llm_setup(llm_ctx *c, pccx_t *px, const llm_dims *d, const llm_layer_weights *layers,
              const uint16_t *final_norm, const llm_int4 *head);

/* Write a BF16 KV row directly into the host-DDR cache (test data for earlier positions). */
int llm_cache_put(llm_ctx *c, uint32_t layer, int is_v, uint32_t kv_head, uint32_t pos,
                  const uint16_t *row);

/* One decode step, issued as instructions (nothing is waited for):
 *   llm_begin_token: MEMCPY the BF16 input vector (host) into the residual stream and the RoPE
 *                    block for `pos`, and build the cos/sin tables;
 *   llm_emit_layer:  one decoder layer on the residual stream, appending K/V rows at `pos`;
 *   llm_emit_head:   final RMSNorm + INT4 LM-head GEMV, logits copied to host DDR;
 *   llm_read_*:      pccx_sync, then read results back (BF16 -> float). */
int llm_begin_token(llm_ctx *c, const uint16_t *x_bf16, uint32_t pos);
int llm_emit_layer(llm_ctx *c, uint32_t layer, uint32_t pos);
int llm_emit_head(llm_ctx *c);
int llm_read_residual(llm_ctx *c, float *out);   /* copies x to host DDR and reads it */
int llm_read_logits(llm_ctx *c, float *out);

/* The individual recipes (element addresses; see README.md for the sequences). */
int llm_emit_rmsnorm(llm_ctx *c, uint32_t x, uint32_t gamma, uint32_t y);
int llm_emit_rope(llm_ctx *c, uint32_t heads_at, uint32_t n_heads);
/* Softmax attention of the query heads of KV head g (in ctx->qkv) over cache rows 0..pos of
 * `layer`, written to ctx->attn (§7.3 views, §8.1 softmax). */
int llm_emit_attention(llm_ctx *c, uint32_t layer, uint32_t g, uint32_t pos);
/* x += down(gelu(gate(h)) (.) up(h)) with the layer's FFN tensors (§8.4). */
int llm_emit_ffn(llm_ctx *c, uint32_t layer, uint32_t h, uint32_t x);
int llm_emit_gemv(llm_ctx *c, uint32_t dst, uint32_t src, uint32_t k, uint32_t n,
                  pccx_weight_t w, unsigned flags);

const char *llm_engine_name(int engine);
/* Largest |BF16(pos * omega_j) - pos * omega_j| (radians) over the frequencies: the angle
 * error of the §8.3 recipe, whose SCALE stores theta in L2 as BF16. */
double llm_theta_err(const llm_ctx *c, uint32_t pos);
/* Cycles, per-engine busy time and instruction counts, port and stall counters between two
 * pccx_stats snapshots. */
void llm_report(FILE *f, const pccx_stats_t *before, const pccx_stats_t *after, uint32_t f_mhz);
/* After pccx_sync: when each phase of the last emitted layer started and completed (cycles
 * relative to the layer's first start), from pccx_insn_times. */
void llm_report_phases(FILE *f, const llm_ctx *c);

#endif
