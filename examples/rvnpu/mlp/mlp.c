/* Int8 Fashion-MNIST MLP (784 -> 128 ReLU -> 10) on rvnpu, as rvnpu spec §13.2 describes.
 *
 * Input: `test_image`, 784 bytes (28x28 pixels 0..255, row by row), written before the run
 * (`npukit run --write test_image:FILE`). Output: the predicted class 0..9 in decimal and
 * "\n", in one write(1, ...); exit status 0 (2 if the linked weights have the wrong shape).
 *
 * Layer 1, per neuron i: RSTACC (clear), VMAC(x, W1[i], 784) with x[j] = (int8)(p[j] - 128),
 * RSTACC (read), + B1'[i], arithmetic shift right by SHIFT1, CLAMP, RELU -> int8 hidden.
 * Layer 2, per output o: RSTACC (clear), VMAC(hidden, W2[o], 128), RSTACC + B2[o] -> logit.
 * Prediction: the first maximum logit.
 *
 * Builds:
 *   default       one VMAC of 784 per layer-1 row (seed revision)
 *   NPU_REV2      VMACs of at most 256 bytes (256, 256, 256, 16), as rev2 requires (§7.3)
 *   NO_NPU        no custom instructions: the same integer arithmetic in plain C (RV32IM),
 *                 with a software accumulator whose low 32 bits are what RSTACC returns */
#include <stdint.h>

#include "mlp_format.h"
#include "syscalls.h"

#ifndef NO_NPU
#include "npu.h"
#endif

/* The input, in .bss. Word-aligned so the pixel conversion can work four bytes at a time. */
uint8_t test_image[MLP_N_IN] __attribute__((aligned(4)));

/* From mlp_weights.S (models/mlp/mlp_weights.bin). */
extern const int32_t mlp_header[5]; /* n_in, n_hid, n_out, SHIFT1, reserved */
extern const int32_t mlp_b1adj[MLP_N_HID];
extern const int32_t mlp_b2[MLP_N_OUT];
extern const int8_t mlp_w1[MLP_N_HID * MLP_N_IN];
extern const int8_t mlp_w2[MLP_N_OUT * MLP_N_HID];

static int8_t x_signed[MLP_N_IN] __attribute__((aligned(4)));
static int8_t hidden[MLP_N_HID] __attribute__((aligned(4)));

#ifdef NO_NPU
/* Plain-C stand-ins with the NPU's integer results (spec §4). The accumulator is kept modulo
 * 2^32: RSTACC returns acc bits 31:0 only, and those do not depend on the higher bits. */
static uint32_t soft_acc;

static inline int32_t as_int32(uint32_t v)
{
    return v < 0x80000000u ? (int32_t)v : (int32_t)(v - 0x80000000u) - 0x7FFFFFFF - 1;
}

static inline void mlp_vmac(const int8_t *a, const int8_t *b, int n)
{
    uint32_t acc = soft_acc;
    for (int i = 0; i < n; i++)
        acc += (uint32_t)((int32_t)a[i] * (int32_t)b[i]);
    soft_acc = acc;
}

static inline int32_t mlp_rstacc(void)
{
    int32_t r = as_int32(soft_acc);
    soft_acc = 0;
    return r;
}

static inline int32_t mlp_clamp(int32_t v)
{
    return v < -128 ? -128 : v > 127 ? 127 : v;
}

static inline int32_t mlp_relu(int32_t v)
{
    return v < 0 ? 0 : v;
}
#else
#define mlp_rstacc NPU_RSTACC
#define mlp_clamp NPU_CLAMP
#define mlp_relu NPU_RELU
#ifdef NPU_REV2
/* rev2 traps on vectors above 256 bytes; chunked VMACs accumulate to the same result. */
static inline void mlp_vmac(const int8_t *a, const int8_t *b, int n)
{
    while (n > 256) {
        NPU_VMAC(a, b, 256);
        a += 256;
        b += 256;
        n -= 256;
    }
    NPU_VMAC(a, b, n);
}
#else
#define mlp_vmac NPU_VMAC
#endif
#endif

static uint32_t load32(const uint8_t *p)
{
    uint32_t v;
    __builtin_memcpy(&v, p, 4);
    return v;
}

static void store32(int8_t *p, uint32_t v)
{
    __builtin_memcpy(p, &v, 4);
}

int main(void)
{
    if (mlp_header[0] != MLP_N_IN || mlp_header[1] != MLP_N_HID || mlp_header[2] != MLP_N_OUT ||
        mlp_header[3] < 0 || mlp_header[3] > 31) {
        static const char msg[] = "mlp: the linked weights do not have the 784-128-10 shape\n";
        write(2, msg, sizeof msg - 1);
        return 2;
    }
    const int shift1 = mlp_header[3];

    /* (int8)(p - 128) flips the top bit of every byte: four pixels per XOR. */
    for (int j = 0; j < MLP_N_IN; j += 4)
        store32(x_signed + j, load32(test_image + j) ^ 0x80808080u);

    for (int i = 0; i < MLP_N_HID; i++) {
        (void)mlp_rstacc();
        mlp_vmac(x_signed, mlp_w1 + i * MLP_N_IN, MLP_N_IN);
        uint32_t sum = (uint32_t)mlp_rstacc() + (uint32_t)mlp_b1adj[i];
        /* arithmetic shift right of the 32-bit sum (clang and gcc emit sra for >> on int32) */
        int32_t v = (int32_t)sum >> shift1;
        hidden[i] = (int8_t)mlp_relu(mlp_clamp(v));
    }

    int best = 0;
    int32_t best_logit = 0;
    for (int o = 0; o < MLP_N_OUT; o++) {
        (void)mlp_rstacc();
        mlp_vmac(hidden, mlp_w2 + o * MLP_N_HID, MLP_N_HID);
        int32_t logit = (int32_t)((uint32_t)mlp_rstacc() + (uint32_t)mlp_b2[o]);
        if (o == 0 || logit > best_logit) {
            best = o;
            best_logit = logit;
        }
    }

    char out[4];
    int n = 0;
    if (best >= 10)
        out[n++] = (char)('0' + best / 10);
    out[n++] = (char)('0' + best % 10);
    out[n++] = '\n';
    return write(1, out, n) == n ? 0 : 1;
}
