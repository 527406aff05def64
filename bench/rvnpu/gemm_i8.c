/* bench/rvnpu int8 GEMM firmware: C[M][N] = A[M][K] * B^T[N][K] with int32 results, the inner
 * loop either plain RV32IM C or the NPU's VMAC (build with -DUSE_NPU). Prints a checksum of C
 * so that both variants and both simulators can be compared. */
#include <stdint.h>

#include "syscalls.h"
#ifdef USE_NPU
#include "npu.h"
#endif

/* Data the loop writes lives on its own 4 KiB pages, away from the code: the SDK links code and
 * data into one RWX segment, and qemu-user (the bench's reference) retranslates a code page on
 * every store into it, which made qemu ~10x slower on the compute firmware. */
#define DATA_PAGE __attribute__((aligned(4096)))

#ifndef DIM
#define DIM 64
#endif
#ifndef REPEAT
#define REPEAT 4
#endif

static int8_t a[DIM][DIM] DATA_PAGE, bt[DIM][DIM] DATA_PAGE;
static int32_t c[DIM][DIM] DATA_PAGE;

static void fill(void)
{
    uint32_t s = 12345;
    for (int i = 0; i < DIM; i++)
        for (int k = 0; k < DIM; k++) {
            s = s * 1103515245u + 12345u;
            a[i][k] = (int8_t)(s >> 24);
            s = s * 1103515245u + 12345u;
            bt[i][k] = (int8_t)(s >> 24);
        }
}

static void gemm(void)
{
    for (int i = 0; i < DIM; i++)
        for (int j = 0; j < DIM; j++) {
#ifdef USE_NPU
            (void)NPU_RSTACC();
            NPU_VMAC(a[i], bt[j], DIM);
            c[i][j] = NPU_RSTACC();
#else
            int32_t s = 0;
            for (int k = 0; k < DIM; k++)
                s += (int32_t)a[i][k] * bt[j][k];
            c[i][j] = s;
#endif
        }
}

int main(void)
{
    fill();
    for (int r = 0; r < REPEAT; r++)
        gemm();
    uint32_t h = 2166136261u;
    for (int i = 0; i < DIM; i++)
        for (int j = 0; j < DIM; j++)
            h = (h ^ (uint32_t)c[i][j]) * 16777619u;
    char line[] = "gemm checksum 0x00000000\n";
    for (int i = 0; i < 8; i++)
        line[16 + i] = "0123456789abcdef"[(h >> (28 - 4 * i)) & 0xf];
    write(1, line, sizeof line - 1);
    return 0;
}
