/* rvnpu "hello": the smallest useful firmware. Prints through the write syscall and puts, and
 * returns 0 (the exit status). Uses no NPU or device, so it also runs under qemu-riscv32. */
#include "syscalls.h"

int main(void)
{
    static const char line[] = "hello from rvnpu firmware (write)\n";
    write(1, line, sizeof line - 1);
    puts("hello from rvnpu firmware (puts)");
    return 0;
}
