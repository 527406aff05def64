/* The input reader (npk_file_read) and npk_load_bytes/npk_load_file: regular files by size,
 * the cap on files and pipes, FIFOs with and without a writer, refused kinds of file, and
 * loading from bytes that carry no NUL terminator. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/file.h"
#include "npukit/npukit.h"
#include "test.h"

static char dir[64];

static const char *at(const char *name)
{
    static char buf[2][128];
    static int k;
    k ^= 1;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void put(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    NPK_CHECK(f && fwrite(data, 1, n, f) == n);
    if (f)
        fclose(f);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A child that opens the FIFO for writing after `delay_ms`, writes n bytes of `fill`, exits. */
static pid_t writer(const char *fifo, int delay_ms, size_t n, char fill)
{
    pid_t p = fork();
    if (p == 0) {
        struct timespec d = {delay_ms / 1000, (long)(delay_ms % 1000) * 1000000};
        nanosleep(&d, NULL);
        FILE *f = fopen(fifo, "wb");
        for (size_t i = 0; f && i < n; i++)
            fputc(fill, f);
        _exit(f && fclose(f) == 0 ? 0 : 1);
    }
    return p;
}

static void reap(pid_t p)
{
    int st;
    if (p > 0)
        waitpid(p, &st, 0);
}

static void test_regular(void)
{
    uint8_t *d;
    size_t n;
    char err[256];
    put(at("ten"), "0123456789", 10);
    NPK_CHECK(npk_file_read(at("ten"), 10, &d, &n, err, sizeof err) == NPK_OK);
    NPK_CHECK_EQ_U64(n, 10);
    NPK_CHECK(d && memcmp(d, "0123456789", 11) == 0); /* with the NUL after the data */
    free(d);
    /* one byte over the cap: refused by its size, naming the cap and the size */
    NPK_CHECK(npk_file_read(at("ten"), 9, &d, &n, err, sizeof err) == NPK_ERR_RANGE);
    NPK_CHECK(d == NULL);
    NPK_CHECK_CONTAINS(err, "ten: larger than the 9 bytes input limit (10 bytes)");
    put(at("empty"), "", 0);
    NPK_CHECK(npk_file_read(at("empty"), 0, &d, &n, err, sizeof err) == NPK_OK);
    NPK_CHECK(n == 0 && d && d[0] == 0);
    free(d);
    /* a regular file whose size says 0 but that has content (procfs) is read to its end */
    NPK_CHECK(npk_file_read("/proc/self/status", 0, &d, &n, err, sizeof err) == NPK_OK);
    NPK_CHECK(n > 0 && d && strstr((const char *)d, "Name:") != NULL);
    free(d);
}

static void test_refused(void)
{
    uint8_t *d;
    size_t n;
    char err[256];
    NPK_CHECK(npk_file_read(dir, 0, &d, &n, err, sizeof err) == NPK_ERR_IO);
    NPK_CHECK_CONTAINS(err, ": Is a directory");
    NPK_CHECK(npk_file_read("/dev/zero", 0, &d, &n, err, sizeof err) == NPK_ERR_IO);
    NPK_CHECK_EQ_STR(err, "/dev/zero: not a regular file or pipe");
    NPK_CHECK(npk_file_read("/dev/null", 0, &d, &n, err, sizeof err) == NPK_ERR_IO);
    NPK_CHECK_EQ_STR(err, "/dev/null: not a regular file or pipe");
    NPK_CHECK(npk_file_read(at("missing"), 0, &d, &n, err, sizeof err) == NPK_ERR_IO);
    NPK_CHECK_CONTAINS(err, "missing: cannot open: No such file or directory");
}

static void test_fifo(void)
{
    uint8_t *d;
    size_t n;
    char err[256];
    const char *f = at("fifo");
    NPK_CHECK(mkfifo(f, 0600) == 0);
    /* no writer: a clean error after the wait, not a hang */
    double t0 = now();
    NPK_CHECK(npk_file_read(f, 0, &d, &n, err, sizeof err) == NPK_ERR_IO);
    double waited = now() - t0;
    NPK_CHECK(waited >= 1.9 && waited < 5);
    NPK_CHECK_CONTAINS(err, "fifo: a FIFO with no writer (waited 2 s)");
    /* a writer that comes within the wait is read to its end */
    pid_t p = writer(f, 300, 100000, 'x');
    NPK_CHECK(npk_file_read(f, 0, &d, &n, err, sizeof err) == NPK_OK);
    NPK_CHECK_EQ_U64(n, 100000);
    NPK_CHECK(d && d[0] == 'x' && d[99999] == 'x' && d[100000] == 0);
    free(d);
    reap(p);
    /* a pipe is capped like a file (it has no size to check first) */
    p = writer(f, 0, 100001, 'y');
    NPK_CHECK(npk_file_read(f, 100000, &d, &n, err, sizeof err) == NPK_ERR_RANGE);
    NPK_CHECK(d == NULL);
    NPK_CHECK_CONTAINS(err, "fifo: larger than the 100000 bytes input limit");
    reap(p); /* it dies of SIGPIPE if it was still writing when the reader gave up */
    /* the library loader uses the same reader */
    npk_machine *m;
    NPK_CHECK(npk_create(&m, "toy", NULL, NULL, 0) == NPK_OK);
    NPK_CHECK(npk_load_file(m, f, NULL) == NPK_ERR_IO);
    NPK_CHECK_CONTAINS(npk_error(m), "fifo: a FIFO with no writer (waited 2 s)");
    NPK_CHECK(npk_load_file(m, "/dev/zero", NULL) == NPK_ERR_IO);
    NPK_CHECK_EQ_STR(npk_error(m), "/dev/zero: not a regular file or pipe");
    npk_destroy(m);
}

static void test_load_bytes(void)
{
    npk_machine *m;
    npk_stop stop;
    NPK_CHECK(npk_create(&m, "toy", NULL, NULL, 0) == NPK_OK);
    /* assembly text in an exact-size buffer: no NUL after it (ASan sees any read past) */
    static const char src[] = "li r1, 7\nexit r1\n";
    size_t n = sizeof src - 1;
    char *text = malloc(n);
    NPK_CHECK(text != NULL);
    memcpy(text, src, n);
    NPK_CHECK(npk_load_bytes(m, text, n, "prog.s", NULL) == NPK_OK);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(stop.exit_code, 7);
    /* a raw image: li r1, 9 (0x10800009); exit r1 (0x08100000), little-endian words */
    static const uint8_t img[] = {0x09, 0x00, 0x80, 0x10, 0x00, 0x00, 0x10, 0x08};
    npk_destroy(m);
    NPK_CHECK(npk_create(&m, "toy", NULL, NULL, 0) == NPK_OK);
    NPK_CHECK(npk_load_bytes(m, img, sizeof img, "prog.bin", NULL) == NPK_OK);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
    NPK_CHECK_EQ_U64(stop.exit_code, 9);
    /* a stray NUL in text: refused with the name, not cut off there */
    memcpy(text, "li r1, 7\nex\0t r1\n", n);
    NPK_CHECK(npk_load_bytes(m, text, n, "prog.s", NULL) == NPK_ERR_FORMAT);
    NPK_CHECK_EQ_STR(npk_error(m), "prog.s: NUL byte in assembly source");
    free(text);
    npk_destroy(m);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s", "/tmp/npk_file.XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_regular();
    test_refused();
    test_fifo();
    test_load_bytes();
    remove(at("ten"));
    remove(at("empty"));
    remove(at("fifo"));
    rmdir(dir);
    return npk_test_done();
}
