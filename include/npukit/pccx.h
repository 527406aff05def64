/* npukit's pccx host API (docs/spec/pccx.md §12): the original uCA v1 driver's calls (init,
 * gemv, gemm, cvo, memcpy, memset, sync) with an explicit context, plus host DDR, weight
 * streams, the AXI-Lite register view and test back doors. A pccx_t is the pccx view of an
 * npk_machine created for target "pccx", so tracing, statistics and the timeline work the same
 * whichever API drove it. Every call returns PCCX_OK (0) or a negative PCCX_E_* code; the
 * library never exits. C linkage, C11. */
#ifndef NPUKIT_PCCX_H
#define NPUKIT_PCCX_H

#include <stddef.h>
#include <stdint.h>

#include "npukit/npukit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status codes (§9) ------------------------------------------------------------------ */
enum {
    PCCX_OK = 0,
    PCCX_E_ILLEGAL_OPCODE = -1,  /* opcode 0x5..0xF */
    PCCX_E_ILLEGAL_FUNC = -2,    /* CVO function reserved or not enabled (ext) */
    PCCX_E_RESERVED = -3,        /* a must-be-zero field is nonzero */
    PCCX_E_RESERVED_VALUE = -4,  /* MEMSET dest_cache 2 or 3 */
    PCCX_E_BAD_FLAGS = -5,       /* a flag not allowed with this function */
    PCCX_E_ROUTE = -6,           /* MEMCPY host -> host */
    PCCX_E_SHAPE = -7,           /* zero count or dimension, shape mismatch, GEMV M != 1 */
    PCCX_E_L2_RANGE = -8,        /* an L2 range leaves L2 */
    PCCX_E_HOST_RANGE = -9,      /* a host DDR range leaves host DDR */
    PCCX_E_WEIGHT_EMPTY = -10,   /* GEMV/GEMM with an empty weight queue */
    PCCX_E_WEIGHT_SHAPE = -11,   /* head tensor K or N differs from the instruction's */
    PCCX_E_HALTED = -12,         /* issue after a fault, before clear/reset */
    PCCX_E_TIMEOUT = -13,        /* pccx_sync time budget exhausted (not a fault) */
    PCCX_E_ARG = -14,            /* an argument does not fit its field or is invalid */
    PCCX_E_NOMEM = -15           /* allocation failure */
};
/* "PCCX_E_SHAPE", ... ("PCCX_OK" for 0, "?" for unknown codes). */
NPK_API const char *pccx_error_name(int code);

/* ---- ISA constants (§4, §12.1) ---------------------------------------------------------- */
enum { PCCX_OP_GEMV, PCCX_OP_GEMM, PCCX_OP_MEMCPY, PCCX_OP_MEMSET, PCCX_OP_CVO };
enum { PCCX_CVO_EXP, PCCX_CVO_SQRT, PCCX_CVO_GELU, PCCX_CVO_SIN, PCCX_CVO_COS,
       PCCX_CVO_REDUCE_SUM, PCCX_CVO_SCALE, PCCX_CVO_RECIP,
       PCCX_CVO_COPY, PCCX_CVO_VMUL, PCCX_CVO_TANH, PCCX_CVO_ADDS,
       PCCX_CVO_MAXS, PCCX_CVO_REDUCE_SUMSQ, PCCX_CVO_REDUCE_MAX };
enum { PCCX_BANK_FMAP = 0, PCCX_BANK_WEIGHT = 1 };

/* GEMV/GEMM flags: masks of the 6-bit flags FIELD (word bits 25..20) */
#define PCCX_FLAG_FINDEMAX        0x20
#define PCCX_FLAG_ACCM            0x10
#define PCCX_FLAG_W_SCALE         0x08
/* CVO flags: masks of the 5-bit flags FIELD (word bits 5..1) */
#define PCCX_CVO_FLAG_SUB_EMAX    0x10
#define PCCX_CVO_FLAG_RECIP_SCALE 0x08
#define PCCX_CVO_FLAG_ACCM        0x04
/* status bits (§10) */
#define PCCX_STATUS_BUSY  0x1
#define PCCX_STATUS_DONE  0x2
#define PCCX_STATUS_ERROR 0x4

#define PCCX_L2_WORDS 114688u                 /* 128-bit L2 words */
#define PCCX_L2_ELEMS (PCCX_L2_WORDS * 8u)    /* BF16 elements */
#define PCCX_CC_ENTRIES 64u

/* ---- timing parameters (§11.1; pccx_timing_default fills the defaults) ------------------- */
#define PCCX_N_CVO_FUNCS 15
struct pccx_timing {
    uint32_t f_core_mhz;              /* 400 */
    uint32_t f_axi_mhz;               /* 250 */
    uint32_t cmd_fifo_depth;          /* 8 */
    uint32_t decode_cycles;           /* 1 */
    uint32_t engine_queue_depth;      /* 8 */
    uint32_t host_push_axi_cycles;    /* 2 */
    uint32_t l2_read_latency;         /* 7 */
    uint32_t l2_port_words_per_cycle; /* 1 */
    uint32_t ddr_latency_ns;          /* 100 */
    uint32_t mem_setup_cycles;        /* 13 */
    uint32_t memset_cycles;           /* 2 */
    uint32_t acp_bytes_per_axi_cycle; /* 16 */
    uint32_t hp_bytes_per_axi_cycle;  /* 16 */
    uint32_t gemm_ports;              /* bit p = HP port p: 0x3 = {HP0, HP1} */
    uint32_t gemv_ports;              /* 0xC = {HP2, HP3} */
    uint32_t gemv_lanes;              /* 4 */
    uint32_t gemv_lane_width;         /* 32 */
    uint32_t gemv_latency;            /* 8 */
    uint32_t gemm_rows;               /* 32 */
    uint32_t gemm_cols;               /* 32 */
    uint32_t gemm_macs_per_pe;        /* 2 */
    uint32_t gemm_latency;            /* 68 */
    uint32_t cvo_cores;               /* 2 */
    uint32_t cvo_overhead;            /* 8 */
    uint32_t cvo_lat[PCCX_N_CVO_FUNCS]; /* lat_f per function code */
    uint32_t cvo_lat_recip_scale;     /* SCALE with recip_scale: 12 */
};
typedef struct pccx_timing pccx_timing_t;
NPK_API void pccx_timing_default(pccx_timing_t *t);

/* ---- types -------------------------------------------------------------------------------- */
typedef struct pccx pccx_t;              /* opaque context */
typedef uint32_t pccx_weight_t;          /* weight tensor / view handle, 0 = none */

typedef struct {                         /* every field 0 = default */
    int ext;                             /* 1 = enable the ext profile */
    int hw_compat;                       /* 1 = hw-compat mode, 0 = strict */
    uint64_t host_ddr_bytes;             /* default 64 MiB, max 4 GiB */
    const pccx_timing_t *timing;         /* NULL = defaults of §11.1 */
} pccx_config_t;

/* One decoded instruction: opcode, every field of §4 (unused ones zero) and the strict-mode
 * validity code (PCCX_OK or the first applicable error of §4.8). */
typedef struct pccx_insn {
    unsigned opcode;                     /* word bits 63..60 */
    uint64_t word;
    /* GEMV/GEMM */
    uint32_t dest, src;                  /* also MEMCPY dest_addr/src_addr, CVO src/dst */
    unsigned flags;                      /* GEMV/GEMM 6-bit field, CVO 5-bit field */
    unsigned size_ptr, shape_ptr, lanes;
    /* MEMCPY */
    unsigned from_device, to_device;
    uint32_t aux;
    unsigned async;                      /* MEMCPY, CVO */
    /* MEMSET */
    unsigned bank, index;
    uint32_t a, b, c;                    /* 16-bit fields */
    /* CVO */
    unsigned func;
    uint32_t dst, length;
    uint64_t reserved_bits;              /* the must-be-zero bits that are set */
    int validity;                        /* strict-mode result */
} pccx_insn_t;

typedef struct pccx_error {
    int code;                            /* PCCX_E_* (PCCX_OK: no fault recorded) */
    uint64_t index;                      /* the faulting instruction's issue index */
    uint64_t word;                       /* its 64-bit word */
    char message[512];                   /* human-readable cause */
} pccx_error_t;

/* Engines of the timing model (timeline tracks, statistics). */
enum { PCCX_ENG_MEMSET, PCCX_ENG_MEM, PCCX_ENG_GEMV, PCCX_ENG_GEMM, PCCX_ENG_CVO,
       PCCX_N_ENGINES };

/* Reports of §11.5. */
typedef struct pccx_stats {
    uint64_t insns;                      /* instructions pushed */
    uint64_t dropped;                    /* hw-compat: dropped at decode */
    uint64_t cycles;                     /* completion of the last instruction (core cycles) */
    double seconds;                      /* cycles / f_core */
    uint64_t engine_busy[PCCX_N_ENGINES];   /* cycles from start to completion, summed */
    uint64_t engine_insns[PCCX_N_ENGINES];
    uint64_t engine_idle[PCCX_N_ENGINES];   /* cycles - engine_busy */
    uint64_t port_b_busy;                /* cycles port B was granted */
    uint64_t acp_bytes;                  /* host <-> L2 bytes */
    uint64_t hp_bytes[4];                /* weight bytes per HP port */
    uint64_t stall_fifo_full;            /* host push waits for a command FIFO entry */
    uint64_t stall_queue_full;           /* decode waits for engine queue space */
    uint64_t stall_sync_wait;            /* decode waits for a sync instruction */
    uint64_t hazard_wait;                /* start delayed by hazard predecessors */
    uint64_t weights_streamed;           /* weight elements of executed GEMV/GEMM */
    uint64_t macs;                       /* M * N * K summed over GEMV/GEMM */
} pccx_stats_t;

/* Times of one instruction (core cycles): pushed (a), decoded (d), started (s), completed (c). */
typedef struct pccx_times {
    uint64_t a, d, s, c;
    int engine;                          /* PCCX_ENG_* or -1 (dropped) */
} pccx_times_t;

/* ---- calls (§12.2) ------------------------------------------------------------------------ */
/* lifetime */
NPK_API int  pccx_init(pccx_t **ctx, const pccx_config_t *cfg);    /* cfg may be NULL */
NPK_API void pccx_deinit(pccx_t *ctx);
NPK_API int  pccx_reset(pccx_t *ctx);          /* back to the reset state, config kept */
NPK_API int  pccx_clear_error(pccx_t *ctx);    /* leave the halted state, keep all data */
/* The machine behind a context (for npk_* calls: stats, timeline, memories). */
NPK_API npk_machine *pccx_machine(pccx_t *ctx);
/* The pccx context of a machine created for target "pccx" (owned by the machine), or NULL. */
NPK_API pccx_t *pccx_of(npk_machine *m);

/* instruction issue: encode one instruction and push it (program order) */
NPK_API int pccx_gemv  (pccx_t *ctx, uint32_t dest, uint32_t src, unsigned flags,
                        unsigned size_ptr, unsigned shape_ptr, unsigned lanes);
NPK_API int pccx_gemm  (pccx_t *ctx, uint32_t dest, uint32_t src, unsigned flags,
                        unsigned size_ptr, unsigned shape_ptr, unsigned lanes);
NPK_API int pccx_memcpy(pccx_t *ctx, unsigned from_host, unsigned to_host, uint32_t dest,
                        uint32_t src, uint32_t aux, unsigned shape_ptr, unsigned async);
NPK_API int pccx_memset(pccx_t *ctx, unsigned bank, unsigned index,
                        uint16_t a, uint16_t b, uint16_t c);
NPK_API int pccx_cvo   (pccx_t *ctx, unsigned func, uint32_t src, uint32_t dst,
                        uint32_t length, unsigned flags, unsigned async);
NPK_API int pccx_issue (pccx_t *ctx, uint64_t word);               /* raw word */
NPK_API int pccx_sync  (pccx_t *ctx, uint64_t timeout_us);         /* simulated µs, 0 = no limit */

/* pure encoders / decoder (no context) */
NPK_API int pccx_enc_gemv  (uint64_t *w, uint32_t dest, uint32_t src, unsigned flags,
                            unsigned size_ptr, unsigned shape_ptr, unsigned lanes);
NPK_API int pccx_enc_gemm  (uint64_t *w, uint32_t dest, uint32_t src, unsigned flags,
                            unsigned size_ptr, unsigned shape_ptr, unsigned lanes);
NPK_API int pccx_enc_memcpy(uint64_t *w, unsigned from_host, unsigned to_host, uint32_t dest,
                            uint32_t src, uint32_t aux, unsigned shape_ptr, unsigned async);
NPK_API int pccx_enc_memset(uint64_t *w, unsigned bank, unsigned index,
                            uint16_t a, uint16_t b, uint16_t c);
NPK_API int pccx_enc_cvo   (uint64_t *w, unsigned func, uint32_t src, uint32_t dst,
                            uint32_t length, unsigned flags, unsigned async);
/* Fields and strict validity (returns out->validity). */
NPK_API int pccx_decode    (uint64_t w, int ext, pccx_insn_t *out);
/* Canonical §13 text; returns the full length (snprintf-like) or a negative code. */
NPK_API int pccx_disasm    (uint64_t w, int ext, char *buf, size_t len);

/* host DDR (owned by the API); an access past its end is PCCX_E_HOST_RANGE and copies nothing */
NPK_API int pccx_host_write (pccx_t *ctx, uint64_t byte_off, const void *src, size_t n);
NPK_API int pccx_host_read  (pccx_t *ctx, uint64_t byte_off, void *dst, size_t n);
NPK_API int pccx_host_window(pccx_t *ctx, uint64_t base_bytes);    /* multiple of 16 */

/* weight streams */
NPK_API int pccx_weight_int4(pccx_t *ctx, uint32_t k, uint32_t n, const uint8_t *codes,
                             size_t row_stride_bytes, const float *scale, pccx_weight_t *h);
NPK_API int pccx_weight_view_bf16(pccx_t *ctx, uint64_t base_byte, uint32_t n, uint32_t k,
                             int64_t stride_n, int64_t stride_k, pccx_weight_t *h); /* ext */
NPK_API int pccx_weight_push(pccx_t *ctx, pccx_weight_t h);        /* append to the queue */
NPK_API int pccx_weight_free(pccx_t *ctx, pccx_weight_t h);        /* error if still queued */
NPK_API size_t pccx_weight_pending(const pccx_t *ctx);

/* register-level access (§10) */
NPK_API int      pccx_reg_write32(pccx_t *ctx, uint32_t off, uint32_t v);
NPK_API int      pccx_reg_write64(pccx_t *ctx, uint32_t off, uint64_t v);
NPK_API uint64_t pccx_reg_read   (pccx_t *ctx, uint32_t off);

/* inspection and test back doors (untimed) */
NPK_API int   pccx_l2_read (pccx_t *ctx, uint32_t word, void *dst, uint32_t nwords);
NPK_API int   pccx_l2_write(pccx_t *ctx, uint32_t word, const void *src, uint32_t nwords);
NPK_API int   pccx_cc_read (pccx_t *ctx, unsigned bank, unsigned index, uint32_t xyz[3]);
NPK_API float pccx_emax_get(const pccx_t *ctx);
NPK_API int   pccx_emax_set(pccx_t *ctx, float v);
NPK_API int   pccx_host_advance(pccx_t *ctx, uint64_t ns);
NPK_API int   pccx_stats   (const pccx_t *ctx, pccx_stats_t *out);  /* §11.5 reports */
NPK_API int   pccx_last_error(const pccx_t *ctx, pccx_error_t *out); /* code, index, word */
/* Times of instruction `index` (issue order); final after pccx_sync. */
NPK_API int   pccx_insn_times(const pccx_t *ctx, uint64_t index, pccx_times_t *out);

#ifdef __cplusplus
}
#endif
#endif
