/* The layer table the rvnpu model firmware (model_fw.c) interprets, written by the rvnpu
 * lowering (src/targets/rvnpu/lower.c; docs/models.md, "Lowering to rvnpu"). Shared by the
 * firmware (RV32, freestanding) and the host, so only <stdint.h> and fixed-width fields.
 * Everything is little-endian 32-bit words; addresses are absolute guest addresses. */
#ifndef NPK_RVNPU_MODEL_FW_H
#define NPK_RVNPU_MODEL_FW_H

#include <stdint.h>

/* The blob starts here: right above the firmware's 1 MiB region (sdk/rvnpu/link.ld). */
#define RVM_BASE 0x80100000u
#define RVM_MAGIC 0x4D4E5652u /* "RVNM" */
#define RVM_VERSION 1u

enum {
    RVM_OP_QUANT = 1, /* float src[c] -> int8 dst: clamp(rne(src * scale), -127, 127) */
    RVM_OP_DENSE,     /* dst[o] = f(sum_i src[i] * wts[o][i] + bias[o]), o < m, i < c */
    RVM_OP_CONV,      /* the plan's CONV on src (c, h, w) -> dst (m, oh, ow) via im2col rows */
    RVM_OP_MAXPOOL,   /* per channel c, window kh x kw, stride sh x sw, pads pt/pl */
    RVM_OP_AVGPOOL,
    RVM_OP_ACT,       /* elementwise on c elements */
    RVM_OP_DEQUANT,   /* float dst[k][j] = (float)src[k][j] * scales[k], k < c, j < h */
    RVM_OP_SOFTMAX,   /* float rows: c rows of h elements */
    /* float only (RVM_F_FP32), the sequence layers of the plan: */
    RVM_OP_NORM,      /* c rows of h: (x - mean) / sqrt(var + eps) * wts[i] + bias[i] (wts,
                       * bias 0: none; eps the float bits in fparam); RVM_F_RMS: no mean */
    RVM_OP_MATMUL,    /* batch products of src [rows][c] by src2 [c][m]; scratch c * m floats */
    RVM_OP_TRANSPOSE, /* src viewed as (c, h, w), dst's axis a is src's axis perm[a] (perm: 4
                       * bits per axis) */
    RVM_OP_ADD,       /* dst[i] = src[i] + src2[i], i < c */
    RVM_OP_SCALE      /* dst[i] = src[i] * fparam, i < c */
};

enum {
    RVM_F_FP32 = 1,      /* float tensors and weights (the FP NPU) */
    RVM_F_OUT32 = 2,     /* int8 DENSE/CONV: keep the int32 accumulator (+ bias, ReLU) */
    RVM_F_PAD_COUNT = 4, /* AVGPOOL: padded positions count in the divisor */
    RVM_F_FACT = 8,      /* int8 DENSE/CONV/ACT: the activation in float, between the
                          * dequantisation (mult: float scales; ACT: fscale_in) and the
                          * quantisation by fscale_out */
    RVM_F_RMS = 16       /* NORM: RMSNorm (no mean subtracted) */
};

enum { RVM_ACT_NONE, RVM_ACT_RELU, RVM_ACT_LEAKY, RVM_ACT_GELU, RVM_ACT_TANH, RVM_ACT_SIGMOID };

typedef struct rvm_header {
    uint32_t magic, version;
    uint32_t n_ops, ops;     /* the op table's address */
    uint32_t chunk;          /* the most elements one VMAC/FVMAC may take (0: no limit) */
    uint32_t input, n_in;    /* model_input: float[n_in] */
    uint32_t output, n_out;  /* model_output: float[n_out] */
    uint32_t reserved[7];
} rvm_header;                /* 64 bytes */

typedef struct rvm_op {
    uint32_t kind, flags, act, src, dst;
    uint32_t c, h, w, m, oh, ow;
    uint32_t kh, kw, sh, sw, pt, pl;
    /* DENSE/CONV: wts int8[m][k] (float with RVM_F_FP32), bias int32[m] (float), and for int8
     * results the requantisation mult int32[m], shift int32[m]; scratch: the im2col row.
     * RVM_F_FACT: mult = float scales[m] (s_in * wscale). DEQUANT: mult = float scales[c],
     * then the activation `act`. */
    uint32_t wts, bias, mult, shift, scratch;
    uint32_t fparam;         /* float bits: QUANT 1/scale, ACT LeakyRelu alpha */
    uint32_t fscale_in, fscale_out; /* float bits, RVM_F_FACT: s_in (ACT), 1/s_out */
    uint32_t src2;           /* MATMUL, ADD: the second operand */
    uint32_t rows;           /* DENSE: rows of c inputs (a sequence; 0 or 1: one); MATMUL */
    uint32_t batch;          /* MATMUL: products (heads; 0 or 1: one) */
    uint32_t perm;           /* TRANSPOSE */
    uint32_t reserved[3];
} rvm_op;                    /* 128 bytes */

#endif
