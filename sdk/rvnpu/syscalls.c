/* rvnpu firmware syscall wrappers (spec §12.4): ordinary functions over the ECALL helper in
 * syscalls.h. Built with the firmware, never for the host. No C library exists, so these are
 * the whole of the firmware's I/O. */
#include "syscalls.h"

long write(int fd, const void *buf, long len)
{
    return rvnpu_syscall(SYS_write, fd, (long)buf, len, 0);
}

long read(int fd, void *buf, long len)
{
    return rvnpu_syscall(SYS_read, fd, (long)buf, len, 0);
}

int openat(int dirfd, const char *path, int flags, int mode)
{
    return (int)rvnpu_syscall(SYS_openat, dirfd, (long)path, flags, mode);
}

int open(const char *path, int flags, int mode)
{
    return openat(AT_FDCWD, path, flags, mode);
}

int close(int fd)
{
    return (int)rvnpu_syscall(SYS_close, fd, 0, 0, 0);
}

long lseek(int fd, long offset, int whence)
{
    return rvnpu_syscall(SYS_lseek, fd, offset, whence, 0);
}

void _exit(int code)
{
    rvnpu_syscall(SYS_exit, code, 0, 0, 0);
    for (;;) {
        /* exit never returns; spin rather than fall into whatever follows */
    }
}

int getchar(void)
{
    unsigned char c;
    if (read(0, &c, 1) <= 0)
        return -1;
    return c;
}

int putchar(int c)
{
    unsigned char b = (unsigned char)c;
    write(1, &b, 1);
    return c;
}

long puts(const char *s)
{
    long n = 0;
    while (s[n] != '\0')
        n++;
    /* Two writes, as the original did: the host sees the same syscall sequence. */
    write(1, s, n);
    write(1, "\n", 1);
    return 0;
}

long brk(void *addr)
{
    return rvnpu_syscall(SYS_brk, (long)addr, 0, 0, 0);
}

void *sbrk(long increment)
{
    static unsigned long cur;
    if (cur == 0)
        cur = (unsigned long)brk((void *)0);
    unsigned long old = cur;
    if (increment != 0) {
        unsigned long want = old + (unsigned long)increment;
        if ((unsigned long)brk((void *)want) != want)
            return (void *)-1;
        cur = want;
    }
    return (void *)old;
}
