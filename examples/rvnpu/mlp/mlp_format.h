/* Layout of models/mlp/mlp_weights.bin, the int8 Fashion-MNIST MLP (784 -> 128 ReLU -> 10) of
 * rvnpu spec §13.2, as written by models/mlp/train_mlp.py. All fields little-endian; every
 * int32 field is 4-byte aligned within the file. Shared by the firmware (mlp.c, mlp_weights.S,
 * which must stay preprocessor-only for the assembler) and the host reference (mlp_ref.c).
 *
 *   offset  size     field
 *        0       8   magic "NPKMLP01"
 *        8       4   int32 n_in  = 784
 *       12       4   int32 n_hid = 128
 *       16       4   int32 n_out = 10
 *       20       4   int32 SHIFT1 (0..31)
 *       24       4   int32 reserved, 0
 *       28     512   int32 B1'[128] = B1q[i] + 128 * sum_j W1q[i][j] (for pixels fed as p - 128)
 *      540     512   int32 B1q[128] (unadjusted layer-1 bias, scale A1 = 255 * s1)
 *     1052      40   int32 B2q[10]
 *     1092  100352   int8  W1q[128][784], row-major [output][input]
 *   101444    1280   int8  W2q[10][128], row-major [output][input]
 *   102724           end of file
 */
#ifndef MLP_FORMAT_H
#define MLP_FORMAT_H

#define MLP_N_IN 784
#define MLP_N_HID 128
#define MLP_N_OUT 10

#define MLP_OFF_HEADER 8      /* n_in, n_hid, n_out, shift1, reserved */
#define MLP_OFF_B1ADJ 28
#define MLP_OFF_B1Q 540
#define MLP_OFF_B2 1052
#define MLP_OFF_W1 1092
#define MLP_OFF_W2 101444
#define MLP_FILE_SIZE 102724

#define MLP_MAGIC "NPKMLP01"
#define MLP_MAGIC_LEN 8

#endif
