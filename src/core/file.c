/* The one reader of input files (see file.h). It never blocks for ever on a FIFO nobody
 * writes to, never reads an endless device, and never holds more than the cap. */
#define _POSIX_C_SOURCE 200809L
#include "core/file.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static npk_status fail(npk_status st, char *err, size_t n, const char *fmt, ...)
{
    if (err && n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, n, fmt, ap);
        va_end(ap);
    }
    return st;
}

/* "1 GiB", "64 KiB" or "1000 bytes": the cap as people write it */
static void cap_text(size_t cap, char *buf, size_t n)
{
    static const char *unit[] = {"bytes", "KiB", "MiB", "GiB"};
    int u = 0;
    while (u < 3 && cap >= 1024 && cap % 1024 == 0) {
        cap /= 1024;
        u++;
    }
    snprintf(buf, n, "%zu %s", cap, unit[u]);
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until a FIFO has data or its writer hung up. Opened O_NONBLOCK, a FIFO that never had
 * a writer reports neither, so poll times out; one that had a writer reports POLLHUP. */
static int fifo_wait(int fd)
{
    long long end = now_ms() + NPK_FIFO_WAIT_MS;
    for (;;) {
        long long left = end - now_ms();
        if (left <= 0)
            return 1;
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, (int)left);
        if (r > 0)
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
    }
}

/* Read fd to its end into a buffer grown from `hint` bytes; more than cap is an error. */
static npk_status read_all(int fd, const char *path, size_t cap, size_t hint, uint8_t **data,
                           size_t *size, char *err, size_t n_err)
{
    size_t room = hint < cap ? hint : cap, n = 0;
    uint8_t *buf = malloc(room + 2);     /* +1: a byte to see EOF (or growth) by, +1: NUL */
    if (!buf)
        return fail(NPK_ERR_NOMEM, err, n_err, "%s: out of memory reading the file", path);
    for (;;) {
        if (n == room + 1) {
            /* the extra byte was filled: the file is longer than room */
            if (room >= cap) {
                free(buf);
                char c[32];
                cap_text(cap, c, sizeof c);
                return fail(NPK_ERR_RANGE, err, n_err, "%s: larger than the %s input limit",
                            path, c);
            }
            size_t nr = room < (1 << 15) ? 1 << 16 : room * 2;   /* room <= cap: no wrap */
            nr = nr < cap ? nr : cap;
            uint8_t *nb = realloc(buf, nr + 2);
            if (!nb) {
                free(buf);
                return fail(NPK_ERR_NOMEM, err, n_err, "%s: out of memory reading the file",
                            path);
            }
            buf = nb;
            room = nr;
        }
        ssize_t got = read(fd, buf + n, room + 1 - n);
        if (got == 0)
            break;
        if (got < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            free(buf);
            return fail(NPK_ERR_IO, err, n_err, "%s: %s", path,
                        e == EISDIR ? strerror(e) : "read error");
        }
        n += (size_t)got;
    }
    buf[n] = '\0';
    *data = buf;
    *size = n;
    return NPK_OK;
}

npk_status npk_file_read(const char *path, size_t cap, uint8_t **data, size_t *size,
                         char *err, size_t err_size)
{
    *data = NULL;
    *size = 0;
    if (err && err_size)
        err[0] = '\0';
    if (cap == 0 || cap > NPK_INPUT_MAX)
        cap = NPK_INPUT_MAX;
    if (strcmp(path, "-") == 0)
        return read_all(STDIN_FILENO, "<stdin>", cap, 1 << 16, data, size, err, err_size);

    /* Devices and sockets are refused before they are opened: opening one can have effects
     * of its own (a tape rewinds, a terminal becomes ours), and reading one may never end. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) &&
        !S_ISDIR(st.st_mode))
        return fail(NPK_ERR_IO, err, err_size, "%s: not a regular file or pipe", path);
    /* O_NONBLOCK: opening a FIFO that has no writer would otherwise block right here */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return fail(NPK_ERR_IO, err, err_size, "%s: cannot open: %s", path, strerror(errno));
    npk_status rc;
    size_t hint = 1 << 16;
    if (fstat(fd, &st) != 0) {
        rc = fail(NPK_ERR_IO, err, err_size, "%s: %s", path, strerror(errno));
        goto out;
    }
    if (S_ISDIR(st.st_mode)) {
        rc = fail(NPK_ERR_IO, err, err_size, "%s: %s", path, strerror(EISDIR));
        goto out;
    }
    if (S_ISREG(st.st_mode)) {
        /* by its size: one allocation, and a file over the cap is refused unread */
        if ((uintmax_t)st.st_size > cap) {
            char c[32];
            cap_text(cap, c, sizeof c);
            rc = fail(NPK_ERR_RANGE, err, err_size,
                      "%s: larger than the %s input limit (%jd bytes)", path, c,
                      (intmax_t)st.st_size);
            goto out;
        }
        hint = (size_t)st.st_size;
    } else if (S_ISFIFO(st.st_mode)) {
        int w = fifo_wait(fd);
        if (w != 0) {
            rc = w > 0 ? fail(NPK_ERR_IO, err, err_size, "%s: a FIFO with no writer (waited %d s)",
                              path, NPK_FIFO_WAIT_MS / 1000)
                       : fail(NPK_ERR_IO, err, err_size, "%s: %s", path, strerror(errno));
            goto out;
        }
    } else {
        rc = fail(NPK_ERR_IO, err, err_size, "%s: not a regular file or pipe", path);
        goto out;
    }
    /* blocking again: a writer that is slow after its first bytes is waited for */
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        rc = fail(NPK_ERR_IO, err, err_size, "%s: %s", path, strerror(errno));
        goto out;
    }
    rc = read_all(fd, path, cap, hint, data, size, err, err_size);
out:
    close(fd);
    return rc;
}
