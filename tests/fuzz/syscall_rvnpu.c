/* Fuzz the rvnpu host syscalls (ECALL) with guest-controlled arguments and guest memory, with
 * file syscalls confined to fs_root = a fresh temp directory made once per process:
 *   TMP/root/     a.txt, d/b.txt, in -> a.txt, out -> ../outside, up -> ..   (fs_root)
 *   TMP/outside   a file the guest must never reach
 * Input: byte 0 = number of ECALLs - 1 (low 3 bits), then per ECALL 17 bytes: a selector (low
 * 3 bits: openat, close, lseek, read, write, exit, brk, or a7 = a3 for an unknown number; bits
 * 3..6: turn a0..a3 into an address near RAM) and a0..a3 little-endian; the rest is written
 * into RAM at offset 0x100 (path strings, write data). After every input the harness checks
 * that nothing outside fs_root changed, then rebuilds fs_root if it changed (when an open could
 * write). NPK_FUZZ_VERBOSE=1 in the environment prints every ECALL with its result. */
#define _XOPEN_SOURCE 700 /* mkdtemp, symlink, nftw */
#include <dirent.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

#define RAM_BASE 0x80000000u
#define RAM_SIZE 0x10000u
#define DATA_OFF 0x100u
#define OUTSIDE "secret: must stay unread and unchanged\n"
#define A_TXT "hello from a.txt\n"
#define B_TXT "bee\n"

static char tmp[64], root[96], outside[96], spec[160];

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static void rm_tree(const char *path)
{
    nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void put_file(const char *dir, const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        fuzz_fail("cannot write a fixture file", p);
}

static void make_root(void)
{
    char p[160];
    if (mkdir(root, 0755) != 0)
        fuzz_fail("cannot make fs_root", root);
    put_file(root, "a.txt", A_TXT);
    snprintf(p, sizeof p, "%s/d", root);
    if (mkdir(p, 0755) != 0)
        fuzz_fail("cannot make a fixture directory", p);
    put_file(p, "b.txt", B_TXT);
    snprintf(p, sizeof p, "%s/in", root);
    int bad = symlink("a.txt", p);
    snprintf(p, sizeof p, "%s/out", root);
    bad |= symlink("../outside", p);
    snprintf(p, sizeof p, "%s/up", root);
    bad |= symlink("..", p);
    if (bad)
        fuzz_fail("cannot make fixture symlinks", root);
}

static void cleanup(void)
{
    if (tmp[0])
        rm_tree(tmp);
}

static void setup_once(void)
{
    if (tmp[0])
        return;
    const char *t = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/npkfuzz.XXXXXX", t && strlen(t) < 40 ? t : "/tmp");
    if (!mkdtemp(tmp))
        fuzz_fail("mkdtemp failed", tmp);
    atexit(cleanup);
    snprintf(root, sizeof root, "%s/root", tmp);
    snprintf(outside, sizeof outside, "%s/outside", tmp);
    put_file(tmp, "outside", OUTSIDE);
    make_root();
    snprintf(spec, sizeof spec, "rvnpu:ram_size=64K,fs_root=%s", root);
}

/* The fixture text of file `name` in dir, exactly: the same bytes and nothing after them. */
static int file_is(const char *dir, const char *name, const char *text)
{
    char p[512], buf[64];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "r");
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f)
        fclose(f);
    return f && n == strlen(text) && memcmp(buf, text, n) == 0;
}

/* dir holds exactly the entries of `names` (NULL-terminated), nothing more. */
static int dir_is(const char *dir, const char *const *names)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t want = 0, seen = 0;
    while (names[want])
        want++;
    struct dirent *e;
    int ok = 1;
    while (ok && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        ok = 0;
        for (size_t i = 0; i < want; i++)
            if (!strcmp(e->d_name, names[i]))
                ok = 1;
        seen++;
    }
    closedir(d);
    return ok && seen == want;
}

/* fs_root is still as make_root left it. The syscalls can create files and change a file's
 * bytes (openat with O_CREAT/O_TRUNC, write), nothing else: no unlink, rename, mkdir, symlink
 * or chmod, and a guest cannot see times. So the same entries in root and root/d, and a.txt
 * and b.txt with their texts, are the initial state (the symlinks cannot have changed). */
static int root_intact(void)
{
    static const char *const top[] = {"a.txt", "d", "in", "out", "up", NULL};
    static const char *const sub[] = {"b.txt", NULL};
    char d[160];
    snprintf(d, sizeof d, "%s/d", root);
    return dir_is(root, top) && dir_is(d, sub) && file_is(root, "a.txt", A_TXT) &&
           file_is(d, "b.txt", B_TXT);
}

/* Nothing outside root may have been touched: TMP holds exactly root and outside, and outside
 * still has its contents. Then root goes back to its initial state: rebuilt, unless
 * root_intact() finds it unchanged (most inputs that could write did not). */
static void check_and_restore(void)
{
    char buf[sizeof OUTSIDE + 8];
    FILE *f = fopen(outside, "r");
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f)
        fclose(f);
    if (n != strlen(OUTSIDE) || memcmp(buf, OUTSIDE, n) != 0)
        fuzz_fail("sandbox escape: a file outside fs_root changed", outside);
    DIR *d = opendir(tmp);
    if (!d)
        fuzz_fail("cannot list the temp directory", tmp);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "root") &&
            strcmp(e->d_name, "outside"))
            fuzz_fail("sandbox escape: a new entry beside fs_root", e->d_name);
    closedir(d);
    if (root_intact())
        return;
    rm_tree(root);
    make_root();
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint32_t numbers[] = {56, 57, 62, 63, 64, 93, 214};
    if (size < 1 || size > FUZZ_MAX_INPUT)
        return -1;
    static int verbose = -1;
    if (verbose < 0)
        verbose = getenv("NPK_FUZZ_VERBOSE") != NULL; /* print each ECALL and its result */
    fuzz_null();
    setup_once();
    npk_machine *m = fuzz_machine(spec);
    unsigned calls = (data[0] & 7u) + 1;
    int dirty = 0;
    size_t pos = 1;
    static uint8_t ram[RAM_SIZE];
    memset(ram, 0, sizeof ram);
    ram[0] = 0x73; /* ecall */
    size_t rec_end = pos + 17u * calls < size ? pos + 17u * calls : size;
    size_t extra = size - rec_end < RAM_SIZE - DATA_OFF ? size - rec_end : RAM_SIZE - DATA_OFF;
    memcpy(ram + DATA_OFF, data + rec_end, extra);
    if (npk_load_raw(m, ram, sizeof ram, 0) != NPK_OK)
        fuzz_fail("npk_load_raw of the ECALL image failed", npk_error(m));
    for (unsigned i = 0; i < calls && pos + 17 <= size; i++, pos += 17) {
        uint8_t sel = data[pos];
        uint32_t a[4];
        for (int k = 0; k < 4; k++) {
            a[k] = le32(data + pos + 1 + 4 * k);
            if (sel & (8u << k)) /* an address in RAM or just past its end */
                a[k] = RAM_BASE + a[k] % (RAM_SIZE + 64);
        }
        uint32_t a7 = (sel & 7u) < 7 ? numbers[sel & 7u] : a[3];
        /* only an open for writing, creating or truncating can change files (the syscall set
         * has no unlink, rename or mkdir) */
        if (a7 == 56 && (a[2] & 0x243u))
            dirty = 1;
        static const char *const names[] = {"a0", "a1", "a2", "a3"};
        for (int k = 0; k < 4; k++)
            npk_reg_write(m, names[k], a[k]);
        npk_reg_write(m, "a7", a7);
        npk_reg_write(m, "pc", RAM_BASE);
        npk_mem_write(m, "ram", 0, ram, 4); /* a read may have overwritten the ECALL */
        npk_stop stop;
        if (npk_step(m, &stop) != NPK_OK)
            fuzz_fail("npk_step failed", npk_error(m));
        fuzz_check_str(stop.message, sizeof stop.message, "npk_stop.message");
        if (verbose) {
            uint64_t r = 0;
            npk_reg_read(m, "a0", &r);
            fprintf(stderr, "ecall %u(0x%x, 0x%x, 0x%x, 0x%x) -> %d%s%s\n", a7, a[0], a[1], a[2],
                    a[3], (int32_t)r, stop.reason ? ": " : "", stop.reason ? stop.message : "");
        }
        if (stop.reason == NPK_STOP_EXIT || stop.reason == NPK_STOP_FAULT)
            break;
    }
    npk_destroy(m);
    if (dirty)
        check_and_restore();
    return 0;
}
