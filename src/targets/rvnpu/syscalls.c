/* rvnpu host syscalls (spec §11.6): a small Linux-numbered set offered to ECALL, with guest
 * files confined to a sandbox directory (--fs-root). Errors are negative Linux errno values;
 * a guest buffer outside RAM gives -EFAULT instead of a fault. POSIX, plus O_PATH on Linux. */
#define _GNU_SOURCE /* O_PATH; the rest is POSIX 2008 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "targets/rvnpu/rvnpu.h"

#ifndef O_PATH
#define O_PATH 0 /* elsewhere: a read-only directory descriptor serves the walk as well */
#endif

/* Linux errno numbers as the guest sees them (the host's may differ). */
enum {
    L_EPERM = 1, L_ENOENT = 2, L_EIO = 5, L_EBADF = 9, L_EACCES = 13, L_EFAULT = 14,
    L_EEXIST = 17, L_ENOTDIR = 20, L_EISDIR = 21, L_EINVAL = 22, L_EMFILE = 24, L_ENOSPC = 28,
    L_ESPIPE = 29, L_ENAMETOOLONG = 36, L_EOVERFLOW = 75
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
    /* the walk never asks the host to follow a link, so a host ELOOP means one appeared
     * where the walk saw none; ENXIO/ENODEV come only from special files: all refused */
    case ELOOP: case ENXIO: case ENODEV: return -L_EACCES;
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

/* ---- the file sandbox -------------------------------------------------------------------- */

enum { SANDBOX_PATH = 4096, SANDBOX_LINKS = 40, SANDBOX_RETRIES = 4, WALK_LINK = -1000 };

int rvnpu_sandbox_open(rvnpu_state *s, const char *dir)
{
    s->fs_root = realpath(dir, NULL); /* canonical, for the configuration's description */
    if (!s->fs_root)
        return -1;
    /* The sandbox is this directory object from now on: renaming or replacing the path
     * later does not move it. */
    s->root_fd = open(s->fs_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    return s->root_fd >= 0 ? 0 : -1;
}

void rvnpu_sandbox_close(rvnpu_state *s)
{
    if (s->root_fd >= 0)
        close(s->root_fd);
    s->root_fd = -1;
    free(s->fs_root);
    s->fs_root = NULL;
}

/* The spec's rules on the guest's own text: leading '/' ignored, '.' skipped, '..' drops the
 * previous component and may not go above the root. Out holds at least strlen(guest) + 1. */
static int32_t normalize(const char *guest, char *out)
{
    size_t len = 0;
    for (const char *p = guest; *p;) {
        while (*p == '/')
            p++;
        const char *e = p;
        while (*e && *e != '/')
            e++;
        size_t cl = (size_t)(e - p);
        if (cl == 2 && p[0] == '.' && p[1] == '.') {
            if (len == 0)
                return -L_EACCES;
            while (len > 0 && out[len - 1] != '/')
                len--;
            if (len > 0)
                len--;
        } else if (cl > 0 && !(cl == 1 && p[0] == '.')) {
            if (len > 0)
                out[len++] = '/';
            memcpy(out + len, p, cl);
            len += cl;
        }
        p = e;
    }
    out[len] = '\0';
    return 0;
}

/* Where a walk stands: a descriptor of a directory at or below the root, and the names that
 * lead to it from the root (each NUL-terminated), so that `..` can go back up. */
typedef struct walk {
    int root, dir;
    unsigned depth;
    size_t used;
    char names[SANDBOX_PATH];
} walk;

static void walk_set(walk *w, int fd)
{
    if (w->dir != w->root)
        close(w->dir);
    w->dir = fd;
}

/* Step into the subdirectory `name`. O_NOFOLLOW|O_DIRECTORY: the host neither follows a link
 * nor accepts anything else, so a failure (errno set) tells the caller to look closer. */
static int walk_down(walk *w, const char *name, size_t len)
{
    if (w->used + len + 1 > sizeof w->names) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = openat(w->dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    memmove(w->names + w->used, name, len + 1); /* walk_up passes names from here */
    w->used += len + 1;
    w->depth++;
    walk_set(w, fd);
    return 0;
}

/* `..`: drop the last name and descend again from the root along the names already checked,
 * rather than asking the host for "..", which would follow a directory that was moved out of
 * the root meanwhile. Above the root: -EACCES. */
static int32_t walk_up(walk *w)
{
    if (w->depth == 0)
        return -L_EACCES;
    size_t end = w->used - 1;
    while (end > 0 && w->names[end - 1] != '\0')
        end--;
    w->used = 0;
    w->depth = 0;
    walk_set(w, w->root);
    for (size_t off = 0; off < end;) {
        size_t len = strlen(w->names + off);
        if (walk_down(w, w->names + off, len) != 0)
            return host_err(errno);
        off += len + 1;
    }
    return 0;
}

/* The link `name` in the walk's directory: put its target in front of what is left to walk
 * (*rest, which points into path), so the target's components pass the same checks. */
static int32_t splice_link(const walk *w, const char *name, char *path, const char **rest,
                           unsigned *links)
{
    char target[SANDBOX_PATH];
    if (++*links > SANDBOX_LINKS)
        return -L_EACCES; /* a loop, or a chain too long to be resolved inside the root */
    ssize_t n = readlinkat(w->dir, name, target, sizeof target);
    if (n < 0)
        return host_err(errno);
    if ((size_t)n == sizeof target)
        return -L_ENAMETOOLONG;
    if (n == 0)
        return -L_ENOENT;
    if (target[0] == '/')
        return -L_EACCES; /* a host path: it names nothing the guest may see */
    size_t rl = strlen(*rest);
    if ((size_t)n + 1 + rl + 1 > SANDBOX_PATH)
        return -L_ENAMETOOLONG;
    memmove(path + n + 1, *rest, rl + 1);
    memcpy(path, target, (size_t)n);
    path[n] = '/';
    *rest = path;
    return 0;
}

/* The last component, in directory `dir`. Only a regular file may be opened: a FIFO would
 * block the simulator, and devices and sockets are no business of the guest's. The type is
 * looked at without following anything, the open adds O_NOFOLLOW and O_NONBLOCK (so a FIFO
 * swapped in meanwhile cannot block either) and the descriptor is checked again. A new file
 * is created with O_EXCL, so a name that appeared meanwhile is looked at again rather than
 * written through. Returns a host fd, a negative Linux errno, or WALK_LINK for a link. */
static int32_t open_final(int dir, const char *name, int hf)
{
    for (int tries = 0;; tries++) {
        struct stat st;
        int fd;
        if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno != ENOENT || !(hf & O_CREAT))
                return host_err(errno);
            fd = openat(dir, name, (hf & ~O_TRUNC) | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
                        0644);
        } else if (S_ISLNK(st.st_mode)) {
            return WALK_LINK;
        } else if (S_ISDIR(st.st_mode)) {
            return -L_EISDIR;
        } else if (!S_ISREG(st.st_mode)) {
            return -L_EACCES;
        } else {
            fd = openat(dir, name, (hf & ~O_CREAT) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        }
        if (fd < 0) {
            int e = errno;
            if ((e == EEXIST || e == ELOOP || e == ENOENT) && tries < SANDBOX_RETRIES)
                continue; /* the name changed between the look and the open */
            return host_err(e);
        }
        int fl;
        if (fstat(fd, &st) != 0) {
            int e = errno;
            close(fd);
            return host_err(e);
        }
        if (!S_ISREG(st.st_mode)) {
            close(fd);
            return S_ISDIR(st.st_mode) ? -L_EISDIR : -L_EACCES;
        }
        if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
            int e = errno;
            close(fd);
            return host_err(e);
        }
        return fd;
    }
}

/* Open a guest path below the root with host flags hf (spec §11.6). After the guest text is
 * normalised, the path is walked one component at a time from the root's descriptor; the
 * host is never asked to resolve more than one name, and never to follow a link: a relative
 * link's target is spliced into the rest of the path and walked under the same rules (its
 * `..` may not go above the root either), an absolute one is refused. Whatever is opened was
 * therefore reached from the root by names alone; what the host user put inside the root
 * (hard links, mount points) is trusted. Returns a host fd or a negative Linux errno. */
static int32_t sandbox_open(const rvnpu_state *s, const char *guest, int hf)
{
    char path[SANDBOX_PATH], name[SANDBOX_PATH];
    if (strlen(guest) >= sizeof path)
        return -L_ENAMETOOLONG;
    int32_t r = normalize(guest, path);
    if (r < 0)
        return r;
    walk w;
    w.root = w.dir = s->root_fd;
    w.depth = 0;
    w.used = 0;
    unsigned links = 0;
    const char *rest = path;
    for (;;) {
        while (*rest == '/')
            rest++;
        if (!*rest) {
            r = -L_EISDIR; /* the path ends at a directory: the root, or a link's "." or ".." */
            break;
        }
        const char *e = rest;
        while (*e && *e != '/')
            e++;
        size_t len = (size_t)(e - rest);
        memcpy(name, rest, len);
        name[len] = '\0';
        rest = e;
        while (*e == '/')
            e++;
        if (strcmp(name, ".") == 0)
            continue;
        if (strcmp(name, "..") == 0) {
            if ((r = walk_up(&w)) < 0)
                break;
            continue;
        }
        if (*e) { /* a directory on the way */
            if (walk_down(&w, name, len) == 0)
                continue;
            int err = errno;
            struct stat st;
            if ((err == ENOTDIR || err == ELOOP) &&
                fstatat(w.dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
                if ((r = splice_link(&w, name, path, &rest, &links)) < 0)
                    break;
                continue;
            }
            r = host_err(err);
            break;
        }
        r = open_final(w.dir, name, hf);
        if (r != WALK_LINK)
            break;
        if ((r = splice_link(&w, name, path, &rest, &links)) < 0)
            break;
    }
    walk_set(&w, w.root);
    return r;
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
    if (s->root_fd < 0)
        return -L_EACCES;
    unsigned acc = flags & 3;
    if (acc == 3)
        return -L_EINVAL;
    int slot = 0;
    while (slot < RVNPU_MAX_FILES && s->host_fd[slot] >= 0)
        slot++;
    if (slot == RVNPU_MAX_FILES)
        return -L_EMFILE;
    int hf = acc == 0 ? O_RDONLY : acc == 1 ? O_WRONLY : O_RDWR;
    if (flags & 0x40)
        hf |= O_CREAT;
    if ((flags & 0x200) && acc != 0)
        hf |= O_TRUNC;
    if (flags & 0x400)
        hf |= O_APPEND;
    int32_t fd = sandbox_open(s, guest, hf);
    if (fd < 0)
        return fd;
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
        s->guest_wrote = 1;
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
