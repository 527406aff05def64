/* Firmware for the GDB stub tests (tests/debug/gdb_test.sh): a function to break on, a C
 * variable, an NPU instruction that sets acc, a global the test watches, and a loop that
 * spins until the debugger clears `spinning` (the Ctrl-C test). Exit status 42. */
#include <stdint.h>

#include "npu.h"
#include "syscalls.h"

volatile int32_t counter;
volatile int32_t watched;
volatile int spinning = 1;
static const int8_t vec[4] = {1, -2, 3, -4};

/* called with acc = 6 * 7 + 3 * 4 and v1 = vec: the test stops here and reads them */
__attribute__((noinline)) void npu_loaded(void) { __asm__ volatile("" ::: "memory"); }

__attribute__((noinline)) int32_t compute(int32_t a, int32_t b)
{
    int32_t local = a * b + 1;
    counter = local;
    NPU_RSTACC();
    NPU_MACC(a, b);
    NPU_MACC(3, 4);
    NPU_LDVEC(1, vec, 0);
    npu_loaded();
    return NPU_RSTACC();
}

__attribute__((noinline)) void touch(int32_t v) { watched = v; }

__attribute__((noinline)) void spin(void)
{
    uint32_t n = 0;
    while (spinning)
        n++;
    counter = (int32_t)n;
}

int main(void)
{
    int32_t r = compute(6, 7);
    touch(r);
    spin();
    return r == 54 ? 42 : 1;
}
