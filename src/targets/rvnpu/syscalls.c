/* rvnpu host syscalls (spec §11.6): a small Linux-numbered set offered to ECALL, with guest
 * files confined to a sandbox directory (--fs-root). Errors are negative Linux errno values;
 * a guest buffer outside RAM gives -EFAULT instead of a fault. POSIX only. */
#define _XOPEN_SOURCE 700 /* POSIX 2008 with XSI: realpath */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "targets/rvnpu/rvnpu.h"

/* Linux errno numbers as the guest sees them (the host's may differ). */
enum {
    L_EPERM = 1, L_ENOENT = 2, L_EIO = 5, L_EBADF = 9, L_EACCES = 13, L_EFAULT = 14,
    L_EEXIST = 17, L_ENOTDIR = 20, L_EISDIR = 21, L_EINVAL = 22, L_EMFILE = 24, L_ENOSPC = 28,
    L_ESPIPE = 29, L_ENAMETOOLONG = 36, L_ELOOP = 40, L_EOVERFLOW = 75
};

static int32_t host_err(int e)
{
    switch (e) {
    case EPERM: return -L_EPERM;
    case ENOENT: return -L_ENOENT;
    case EACCES: return -L_EACCES;
    case EEXIST: return -L_EEXIST;
    case ENOTDIR: return -L_ENOTDIR;
    case EISDIR: return -L_EISDIR;
    case EINVAL: return -L_EINVAL;
    case ENOSPC: return -L_ENOSPC;
    case ELOOP: return -L_EACCES; /* a symlink where none may be followed: outside the sandbox */
    case ENAMETOOLONG: return -L_ENAMETOOLONG;
    default: return -L_EIO;
    }
}

/* Is [addr, addr+len) a RAM range? Returns its offset or -1. */
static int64_t ram_range(const rvnpu_state *s, uint32_t addr, uint32_t len)
{
    uint32_t off = addr - RVNPU_RAM_BASE;
    if (len == 0)
        return off < s->ram_size ? off : 0;
    if (off < s->ram_size && len <= s->ram_size - off)
        return off;
    return -1;
}

void rvnpu_files_close(rvnpu_state *s)
{
    for (int i = 0; i < RVNPU_MAX_FILES; i++) {
        if (s->host_fd[i] >= 0)
            close(s->host_fd[i]);
        s->host_fd[i] = -1;
    }
}

static int host_fd(const rvnpu_state *s, uint32_t fd)
{
    return fd >= 3 && fd < 3 + RVNPU_MAX_FILES ? s->host_fd[fd - 3] : -1;
}

/* Is `path` (canonical) the root or below it? */
static int inside_root(const char *root, const char *path)
{
    size_t n = strlen(root);
    return strncmp(root, path, n) == 0 && (path[n] == '\0' || path[n] == '/' || n == 1);
}

/* Resolve a guest path inside fs_root: leading '/' ignored, '.' skipped, '..' never above the
 * root; after following symlinks the file (or, for a new one, its directory) must be inside
 * the root. Writes the host path; returns 0 or a negative Linux errno. */
static int32_t sandbox_path(const rvnpu_state *s, const char *guest, int creating, char *out,
                            size_t n)
{
    size_t rl = strlen(s->fs_root), len = rl;
    if (rl + 2 > n)
        return -L_ENAMETOOLONG;
    memcpy(out, s->fs_root, rl + 1);
    size_t depth_at[2048];
    unsigned depth = 0;
    for (const char *p = guest; *p;) {
        while (*p == '/')
            p++;
        const char *e = p;
        while (*e && *e != '/')
            e++;
        size_t cl = (size_t)(e - p);
        if (cl == 0 || (cl == 1 && p[0] == '.')) {
            /* nothing */
        } else if (cl == 2 && p[0] == '.' && p[1] == '.') {
            if (depth == 0)
                return -L_EACCES;
            len = depth_at[--depth];
            out[len] = '\0';
        } else {
            if (len + 1 + cl + 1 > n || depth == sizeof depth_at / sizeof depth_at[0])
                return -L_ENAMETOOLONG;
            depth_at[depth++] = len;
            out[len++] = '/';
            memcpy(out + len, p, cl);
            len += cl;
            out[len] = '\0';
        }
        p = e;
    }
    char *real = realpath(out, NULL);
    if (real) {
        int ok = inside_root(s->fs_root, real);
        free(real);
        return ok ? 0 : -L_EACCES;
    }
    if (errno != ENOENT || !creating || depth == 0)
        return host_err(errno);
    /* a new file: its directory must exist inside the root, and the name must not be a
     * dangling symlink (O_NOFOLLOW at open refuses that) */
    char dir[PATH_MAX];
    size_t dl = depth_at[depth - 1];
    if (dl >= sizeof dir)
        return -L_ENAMETOOLONG;
    memcpy(dir, out, dl);
    dir[dl] = '\0';
    real = realpath(dir, NULL);
    if (!real)
        return host_err(errno);
    int ok = inside_root(s->fs_root, real);
    free(real);
    return ok ? 0 : -L_EACCES;
}

static int32_t sys_openat(rvnpu_state *s, uint32_t dirfd, uint32_t path, uint32_t flags)
{
    if (dirfd != (uint32_t)-100)
        return -L_EBADF;
    char guest[4097];
    uint32_t i = 0;
    for (;; i++) {
        if (i == sizeof guest - 1)
            return -L_ENAMETOOLONG;
        if (ram_range(s, path + i, 1) < 0)
            return -L_EFAULT;
        guest[i] = (char)s->ram[path + i - RVNPU_RAM_BASE];
        if (!guest[i])
            break;
    }
    if (!s->fs_root)
        return -L_EACCES;
    unsigned acc = flags & 3;
    if (acc == 3)
        return -L_EINVAL;
    int slot = 0;
    while (slot < RVNPU_MAX_FILES && s->host_fd[slot] >= 0)
        slot++;
    if (slot == RVNPU_MAX_FILES)
        return -L_EMFILE;
    char host[PATH_MAX];
    int32_t r = sandbox_path(s, guest, (flags & 0x40) != 0, host, sizeof host);
    if (r < 0)
        return r;
    int hf = acc == 0 ? O_RDONLY : acc == 1 ? O_WRONLY : O_RDWR;
    if (flags & 0x40)
        hf |= O_CREAT;
    if ((flags & 0x200) && acc != 0)
        hf |= O_TRUNC;
    if (flags & 0x400)
        hf |= O_APPEND;
    int fd = open(host, hf | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno == ELOOP) {
        /* the last component is a symlink that realpath found inside the root */
        fd = open(host, hf | O_CLOEXEC, 0644);
    }
    if (fd < 0)
        return host_err(errno);
    struct stat st;
    if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        close(fd);
        return -L_EISDIR;
    }
    s->host_fd[slot] = fd;
    return 3 + slot;
}

static int32_t sys_read(rvnpu_state *s, uint32_t fd, uint32_t buf, uint32_t len)
{
    int64_t off = ram_range(s, buf, len);
    int hf = host_fd(s, fd);
    if (fd != 0 && hf < 0)
        return -L_EBADF;
    if (off < 0)
        return -L_EFAULT;
    uint8_t *p = s->ram + off;
    size_t got = 0;
    if (fd == 0) {
        fflush(npk_guest_out(s->m));
        got = fread(p, 1, len, stdin);
    } else {
        while (got < len) {
            ssize_t r = read(hf, p + got, len - got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0) {
                if (got == 0) {
                    int e = errno;
                    return host_err(e);
                }
                break;
            }
            if (r == 0)
                break;
            got += (size_t)r;
        }
    }
    rvnpu_invalidate(s, (uint32_t)off, (uint32_t)got);
    return (int32_t)got;
}

static int32_t sys_write(rvnpu_state *s, uint32_t fd, uint32_t buf, uint32_t len)
{
    int64_t off = ram_range(s, buf, len);
    int hf = host_fd(s, fd);
    if (fd != 1 && fd != 2 && hf < 0)
        return -L_EBADF;
    if (off < 0)
        return -L_EFAULT;
    const uint8_t *p = s->ram + off;
    if (fd == 1 || fd == 2) {
        FILE *f = fd == 1 ? npk_guest_out(s->m) : npk_guest_err(s->m);
        if (fd == 2)
            fflush(npk_guest_out(s->m)); /* keep program order on a shared terminal */
        return fwrite(p, 1, len, f) == len ? (int32_t)len : -L_EIO;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t r = write(hf, p + done, len - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return host_err(errno);
        done += (size_t)r;
    }
    return (int32_t)len;
}

static int32_t sys_lseek(rvnpu_state *s, uint32_t fd, uint32_t offset, uint32_t whence)
{
    if (fd <= 2)
        return -L_ESPIPE;
    int hf = host_fd(s, fd);
    if (hf < 0)
        return -L_EBADF;
    if (whence > 2)
        return -L_EINVAL;
    off_t r = lseek(hf, (off_t)(int32_t)offset,
                    whence == 0 ? SEEK_SET : whence == 1 ? SEEK_CUR : SEEK_END);
    if (r < 0)
        return host_err(errno);
    if (r > INT32_MAX)
        return -L_EOVERFLOW;
    return (int32_t)r;
}

int rvnpu_syscall(rvnpu_state *s, int64_t *exit_code)
{
    uint32_t *x = s->x, a0 = x[10], a1 = x[11], a2 = x[12], a3 = x[13];
    int32_t r;
    (void)a3;
    switch (x[17]) {
    case 56: r = sys_openat(s, a0, a1, a2); break;
    case 57: {
        int hf = host_fd(s, a0);
        if (a0 <= 2)
            r = 0;
        else if (hf < 0)
            r = -L_EBADF;
        else {
            close(hf);
            s->host_fd[a0 - 3] = -1;
            r = 0;
        }
        break;
    }
    case 62: r = sys_lseek(s, a0, a1, a2); break;
    case 63: r = sys_read(s, a0, a1, a2); break;
    case 64: r = sys_write(s, a0, a1, a2); break;
    case 93: *exit_code = (int32_t)a0; return 1;
    case 214:
        if (a0 != 0 && a0 >= s->brk && a0 - RVNPU_RAM_BASE <= s->ram_size &&
            a0 >= RVNPU_RAM_BASE)
            s->brk = a0;
        r = (int32_t)s->brk;
        break;
    default: return -1;
    }
    x[10] = (uint32_t)r;
    return 0;
}
