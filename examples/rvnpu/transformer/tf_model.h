/* npukit's FP32 character transformer (rvnpu spec §13.3): dimensions and the layout of the
 * weight blob models/transformer/weights.bin, shared by the firmware, the host reference and
 * the test driver. The blob is exactly the struct below: 134,848 little-endian binary32
 * values (539,392 bytes), no header, every matrix [out][in] row-major. Usable from C and
 * (TF_FILE_SIZE only) from assembler files. */
#ifndef TF_MODEL_H
#define TF_MODEL_H

#define TF_VOCAB 256
#define TF_DIM 64
#define TF_HEADS 4
#define TF_HEAD_DIM 16
#define TF_LAYERS 2
#define TF_CTX 32
#define TF_FF 256
#define TF_N_PARAMS 134848
#define TF_FILE_SIZE 539392 /* 4 * TF_N_PARAMS */

#ifndef __ASSEMBLER__

typedef struct tf_layer {
    float g1[TF_DIM];               /* RMSNorm before attention */
    float wq[TF_DIM][TF_DIM];
    float bq[TF_DIM];
    float wk[TF_DIM][TF_DIM];
    float bk[TF_DIM];
    float wv[TF_DIM][TF_DIM];
    float bv[TF_DIM];
    float wo[TF_DIM][TF_DIM];
    float bo[TF_DIM];
    float g2[TF_DIM];               /* RMSNorm before the feed-forward layer */
    float w1[TF_FF][TF_DIM];
    float b1[TF_FF];
    float w2[TF_DIM][TF_FF];
    float b2[TF_DIM];
} tf_layer;

typedef struct tf_weights {
    float tok[TF_VOCAB][TF_DIM];    /* token embedding */
    float pos[TF_CTX][TF_DIM];      /* learned positional embedding */
    tf_layer layer[TF_LAYERS];
    float gf[TF_DIM];               /* final RMSNorm */
    float wout[TF_VOCAB][TF_DIM];   /* output projection (not tied) */
    float bout[TF_VOCAB];
} tf_weights;

_Static_assert(sizeof(tf_layer) == 49856 * 4, "tf_layer must have no padding");
_Static_assert(sizeof(tf_weights) == TF_FILE_SIZE, "tf_weights must match the blob");

#endif
#endif
