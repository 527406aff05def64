/* rvnpu firmware host-service wrappers (spec §12.4, §11.6): Linux RISC-V syscall numbers
 * issued with ECALL. Names, signatures and constants match the original's SDK so firmware
 * written for it builds unchanged. */
#ifndef RVNPU_SYSCALLS_H
#define RVNPU_SYSCALLS_H

#define SYS_openat 56
#define SYS_close  57
#define SYS_lseek  62
#define SYS_read   63
#define SYS_write  64
#define SYS_exit   93
#define SYS_brk    214

#define O_RDONLY 0
#define O_WRONLY 1
#define O_RDWR   2
#define O_CREAT  64
#define O_TRUNC  512
#define O_APPEND 1024
#define AT_FDCWD (-100)
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2

/* The raw ECALL: a7 = number, a0..a3 = arguments, result (or a negative errno) in a0.
 * The memory clobber makes buffers written before the call visible to the host and
 * buffers filled by it visible afterwards. */
static inline long rvnpu_syscall(long n, long a0, long a1, long a2, long a3)
{
    register long r_a7 __asm__("a7") = n;
    register long r_a0 __asm__("a0") = a0;
    register long r_a1 __asm__("a1") = a1;
    register long r_a2 __asm__("a2") = a2;
    register long r_a3 __asm__("a3") = a3;
    __asm__ volatile("ecall"
                     : "+r"(r_a0)
                     : "r"(r_a7), "r"(r_a1), "r"(r_a2), "r"(r_a3)
                     : "memory");
    return r_a0;
}

long write(int fd, const void *buf, long len);
long read(int fd, void *buf, long len);
int openat(int dirfd, const char *path, int flags, int mode);
int open(const char *path, int flags, int mode);
int close(int fd);
long lseek(int fd, long offset, int whence);
void _exit(int code) __attribute__((noreturn));
int getchar(void);
int putchar(int c);
long puts(const char *s);

/* npukit additions. brk is the raw syscall: it returns the (new or unchanged) break
 * address, not POSIX's 0/-1. sbrk returns the old break, or (void *)-1 if the host
 * refused to move it. */
long brk(void *addr);
void *sbrk(long increment);

#endif
