/* rvnpu file sandbox (spec §11.6): guest openat/read/write/close through real ECALLs against
 * a fresh host tree holding a root and an "outside" directory next to it. Every case checks
 * the exact results and that nothing outside the root was created, read or changed. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "npukit/npukit.h"
#include "test.h"

/* Linux numbers, as the guest sees them */
enum { ENOENT_ = 2, EFAULT_ = 14, EACCES_ = 13, ENOTDIR_ = 20, EISDIR_ = 21, ENAMETOOLONG_ = 36 };
enum { RD = 0, WR = 1, RDWR = 2, CREAT = 0x40, EXCL = 0x80, TRUNC = 0x200, APPEND = 0x400 };
/* what the guest does after a successful open */
enum { OP_WRITE = 1, OP_READ = 2, OP_KEEP = 4 };

static char base[512], root[600];

static const char *at(const char *rel)
{
    static char bufs[4][1200];
    static unsigned next;
    char *b = bufs[next++ % 4];
    snprintf(b, sizeof bufs[0], "%s/%s", base, rel);
    return b;
}

static void put(const char *rel, const char *text)
{
    FILE *f = fopen(at(rel), "w");
    NPK_CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The file's bytes as a string, "(none)" when it does not exist. */
static const char *get(const char *rel)
{
    static char buf[512];
    FILE *f = fopen(at(rel), "r");
    if (!f)
        return "(none)";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int exists(const char *rel)
{
    struct stat st;
    return lstat(at(rel), &st) == 0;
}

static void link_to(const char *target, const char *rel)
{
    NPK_CHECK(symlink(target, at(rel)) == 0);
}

/* Everything under `dir` but the root: names, types, link targets and file contents, in
 * order, so a before/after comparison sees any creation, change or removal. */
static void snap_dir(const char *dir, char **buf, size_t *len, size_t *cap)
{
    struct dirent **ents;
    int n = scandir(dir, &ents, NULL, alphasort);
    if (n < 0)
        return;
    for (int i = 0; i < n; i++) {
        char p[1200], line[2200] = "";
        const char *nm = ents[i]->d_name;
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, nm);
        if (strcmp(nm, ".") == 0 || strcmp(nm, "..") == 0 || strcmp(p, root) == 0 ||
            lstat(p, &st) != 0) {
            free(ents[i]);
            continue;
        }
        if (S_ISLNK(st.st_mode)) {
            char t[600];
            ssize_t k = readlink(p, t, sizeof t - 1);
            t[k < 0 ? 0 : k] = '\0';
            snprintf(line, sizeof line, "%s -> %s\n", p, t);
        } else if (S_ISREG(st.st_mode)) {
            char c[300] = "";
            FILE *f = fopen(p, "r");
            if (f) {
                c[fread(c, 1, sizeof c - 1, f)] = '\0';
                fclose(f);
            }
            snprintf(line, sizeof line, "%s [%lld] %s\n", p, (long long)st.st_size, c);
        } else {
            snprintf(line, sizeof line, "%s mode %o\n", p, (unsigned)st.st_mode);
        }
        size_t ll = strlen(line);
        if (*len + ll + 1 > *cap) {
            *cap = (*len + ll + 1) * 2;
            *buf = realloc(*buf, *cap);
        }
        memcpy(*buf + *len, line, ll + 1);
        *len += ll;
        if (S_ISDIR(st.st_mode))
            snap_dir(p, buf, len, cap);
        free(ents[i]);
    }
    free(ents);
}

static char *snapshot(void)
{
    size_t len = 0, cap = 256;
    char *buf = malloc(cap);
    buf[0] = '\0';
    snap_dir(base, &buf, &len, &cap);
    return buf;
}

/* Open host descriptors of this process (-1 if /proc is not there). */
static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

/* The guest: openat(AT_FDCWD, path, flags) -> s2; then per op write -> s3, read (256 bytes
 * at 0x80014000) -> s4, close -> s5. Parameters at 0x80010000: path address, flags, op,
 * write length; write data at 0x80015000. */
static const char guest_src[] =
    "    lui t0, 0x80010\n"
    "    lw a1, 0(t0)\n"
    "    lw a2, 4(t0)\n"
    "    lw s1, 8(t0)\n"
    "    addi s3, zero, 0\n"
    "    addi s4, zero, 0\n"
    "    addi s5, zero, 0\n"
    "    addi a0, zero, -100\n"
    "    addi a7, zero, 56\n"
    "    ecall\n"
    "    addi s2, a0, 0\n"
    "    blt s2, zero, done\n"
    "    andi t1, s1, 1\n"
    "    beq t1, zero, skip_write\n"
    "    addi a0, s2, 0\n"
    "    lui a1, 0x80015\n"
    "    lw a2, 12(t0)\n"
    "    addi a7, zero, 64\n"
    "    ecall\n"
    "    addi s3, a0, 0\n"
    "skip_write:\n"
    "    andi t1, s1, 2\n"
    "    beq t1, zero, skip_read\n"
    "    addi a0, s2, 0\n"
    "    lui a1, 0x80014\n"
    "    addi a2, zero, 256\n"
    "    addi a7, zero, 63\n"
    "    ecall\n"
    "    addi s4, a0, 0\n"
    "skip_read:\n"
    "    andi t1, s1, 4\n"
    "    bne t1, zero, done\n"
    "    addi a0, s2, 0\n"
    "    addi a7, zero, 57\n"
    "    ecall\n"
    "    addi s5, a0, 0\n"
    "done:\n"
    "    addi a0, zero, 0\n"
    "    addi a7, zero, 93\n"
    "    ecall\n";

typedef struct result {
    int32_t open, wrote, got, closed;
    char data[257];
} result;

static uint32_t reg(npk_machine *m, const char *name)
{
    uint64_t v = 0xBAD;
    npk_reg_read(m, name, &v);
    return (uint32_t)v;
}

/* Run the guest with `n` path bytes placed at RAM offset `off` (the path register points
 * there), then check that every host descriptor it used is closed again. */
static result run_raw(const void *path, size_t n, uint32_t off, uint32_t flags, unsigned op,
                      const char *wdata)
{
    result r = {-999, -999, -999, -999, ""};
    char cfg[700], err[256];
    int fds = count_fds();
    snprintf(cfg, sizeof cfg, "fs_root=%s", root);
    npk_machine *m;
    if (npk_create(&m, "rvnpu", cfg, err, sizeof err) != NPK_OK) {
        NPK_CHECK(!"npk_create");
        fprintf(stderr, "%s\n", err);
        return r;
    }
    int fds_machine = count_fds();
    uint32_t params[4] = {0x80000000u + off, flags, op, wdata ? (uint32_t)strlen(wdata) : 0};
    npk_stop stop;
    memset(&stop, 0, sizeof stop);
    NPK_CHECK(npk_load_asm(m, guest_src, "guest.s", stderr) == NPK_OK);
    NPK_CHECK(npk_mem_write(m, "ram", 0x10000, params, sizeof params) == NPK_OK);
    NPK_CHECK(npk_mem_write(m, "ram", off, path, n) == NPK_OK);
    if (wdata)
        NPK_CHECK(npk_mem_write(m, "ram", 0x15000, wdata, strlen(wdata)) == NPK_OK);
    NPK_CHECK(npk_run(m, 10000, &stop) == NPK_OK);
    NPK_CHECK(stop.reason == NPK_STOP_EXIT);
    r.open = (int32_t)reg(m, "s2");
    r.wrote = (int32_t)reg(m, "s3");
    r.got = (int32_t)reg(m, "s4");
    r.closed = (int32_t)reg(m, "s5");
    if (r.got > 0 && r.got <= 256)
        npk_mem_read(m, "ram", 0x14000, r.data, (size_t)r.got);
    /* the run has ended: guest files are closed even if the guest did not close them */
    if (fds >= 0)
        NPK_CHECK_EQ_U64(count_fds(), fds_machine);
    npk_destroy(m);
    if (fds >= 0)
        NPK_CHECK_EQ_U64(count_fds(), fds);
    return r;
}

static result run_path(const char *path, uint32_t flags, unsigned op, const char *wdata)
{
    return run_raw(path, strlen(path) + 1, 0x11000, flags, op, wdata);
}

/* A guest open that must be refused with `want` and leave the world outside the root as it
 * was (and create nothing named `no_new` inside it, if given). */
static void refused(const char *path, uint32_t flags, unsigned op, int want, const char *no_new)
{
    char *before = snapshot();
    result r = run_path(path, flags, op, "PWNED");
    NPK_REPORT(r.open == -want, "%s flags %#x: open = %d, want %d\n", path, (unsigned)flags,
               (int)r.open, -want);
    NPK_CHECK_EQ_U64(r.wrote, 0);
    NPK_CHECK_EQ_U64(r.got, 0);
    char *after = snapshot();
    NPK_REPORT(strcmp(before, after) == 0, "%s flags %#x: outside changed:\n%s---\n%s", path,
               (unsigned)flags, before, after);
    if (no_new)
        NPK_REPORT(!exists(no_new), "%s flags %#x: %s was created\n", path, (unsigned)flags,
                   no_new);
    free(before);
    free(after);
}

/* A guest read of a whole file that must succeed with fd 3 and these bytes. */
static void reads(const char *path, const char *want)
{
    char *before = snapshot();
    result r = run_path(path, RD, OP_READ, NULL);
    NPK_REPORT(r.open == 3 && r.got == (int32_t)strlen(want) && strcmp(r.data, want) == 0 &&
                   r.closed == 0,
               "%s: open %d read %d \"%s\" close %d, want 3 %d \"%s\" 0\n", path, (int)r.open,
               (int)r.got, r.data, (int)r.closed, (int)strlen(want), want);
    char *after = snapshot();
    NPK_CHECK_EQ_STR(after, before);
    free(before);
    free(after);
}

static void build_tree(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(base, sizeof base, "%s/rvnpu_sysXXXXXX", tmp && *tmp ? tmp : "/tmp");
    NPK_CHECK(mkdtemp(base) != NULL);
    snprintf(root, sizeof root, "%s/root", base);
    NPK_CHECK(mkdir(at("outside"), 0755) == 0);
    NPK_CHECK(mkdir(root, 0755) == 0);
    NPK_CHECK(mkdir(at("root/sub"), 0755) == 0);
    put("outside/secret.txt", "TOP SECRET");
    put("outside/shared.txt", "shared by a hard link");
    put("root/in.txt", "inside data");
    put("root/sub/deep.txt", "deep");
    char abs[1200];
    /* links out of the root: dangling and live, absolute and relative, files and directories */
    snprintf(abs, sizeof abs, "%s/outside/new_abs.txt", base);
    link_to(abs, "root/dang_abs");
    link_to("../outside/new_rel.txt", "root/dang_rel");
    link_to("../../outside/new_sub.txt", "root/sub/dang_up");
    snprintf(abs, sizeof abs, "%s/outside/secret.txt", base);
    link_to(abs, "root/abs_out");
    link_to("../outside/secret.txt", "root/rel_out");
    link_to("../../outside/secret.txt", "root/sub/esc");
    snprintf(abs, sizeof abs, "%s/outside", base);
    link_to(abs, "root/absdir");
    link_to("../outside", "root/linkdir");
    link_to("..", "root/dotdot");
    link_to("../root/made_via.txt", "root/out_and_back"); /* leaves the root on the way */
    link_to("/dev/null", "root/devnull");
    /* links that stay inside */
    link_to("in.txt", "root/good");
    link_to("../in.txt", "root/sub/up_in");
    link_to("sub", "root/indir");
    link_to(".", "root/dot");
    link_to("made.txt", "root/dang_in");
    link_to("sub/made_sub.txt", "root/dang_in_sub");
    link_to("fifo", "root/fifolink");
    /* loops, and a chain of 41 links: c0 -> c1 -> ... -> c40 -> in.txt */
    link_to("loop2", "root/loop1");
    link_to("loop1", "root/loop2");
    link_to("self", "root/self");
    for (int i = 0; i <= 40; i++) {
        char from[32], to[32];
        snprintf(from, sizeof from, "root/c%d", i);
        snprintf(to, sizeof to, i == 40 ? "in.txt" : "c%d", i + 1);
        link_to(to, from);
    }
    /* hard links made by the host user are inside by definition: trusted */
    NPK_CHECK(link(at("root/in.txt"), at("root/hard")) == 0);
    NPK_CHECK(link(at("outside/shared.txt"), at("root/hard_out")) == 0);
    NPK_CHECK(mkfifo(at("root/fifo"), 0644) == 0);
}

static void check_links_out(void)
{
    static const char *const dangling[] = {"dang_abs", "dang_rel", "sub/dang_up"};
    static const uint32_t create_flags[] = {WR | CREAT, WR | CREAT | TRUNC, WR | CREAT | EXCL,
                                            RDWR | CREAT, WR | CREAT | APPEND};
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < sizeof create_flags / sizeof create_flags[0]; j++) {
            refused(dangling[i], create_flags[j], OP_WRITE, EACCES_, NULL);
            NPK_CHECK(!exists("outside/new_abs.txt") && !exists("outside/new_rel.txt") &&
                      !exists("outside/new_sub.txt"));
            /* so that each case starts from a dangling link even when one has failed */
            unlink(at("outside/new_abs.txt"));
            unlink(at("outside/new_rel.txt"));
            unlink(at("outside/new_sub.txt"));
        }
    static const char *const live[] = {"abs_out", "rel_out", "sub/esc", "absdir/secret.txt",
                                       "linkdir/secret.txt", "dotdot/outside/secret.txt",
                                       "indir/esc", "indir/../rel_out"};
    static const uint32_t open_flags[] = {RD, WR, WR | TRUNC, RDWR | CREAT | TRUNC, WR | APPEND};
    for (size_t i = 0; i < sizeof live / sizeof live[0]; i++)
        for (size_t j = 0; j < sizeof open_flags / sizeof open_flags[0]; j++)
            refused(live[i], open_flags[j], OP_READ | OP_WRITE, EACCES_, NULL);
    NPK_CHECK_EQ_STR(get("outside/secret.txt"), "TOP SECRET");
    /* new files through a directory link out of the root */
    refused("linkdir/new.txt", WR | CREAT, OP_WRITE, EACCES_, "outside/new.txt");
    refused("absdir/new.txt", WR | CREAT | TRUNC, OP_WRITE, EACCES_, "outside/new.txt");
    /* out of the root and back in by its name: `..` went above the root on the way */
    refused("out_and_back", WR | CREAT, OP_WRITE, EACCES_, "root/made_via.txt");
    /* a device, only reachable by an absolute link */
    refused("devnull", RD, OP_READ, EACCES_, NULL);
    refused("devnull", WR, OP_WRITE, EACCES_, NULL);
}

static void check_dotdot(void)
{
    static const char *const paths[] = {"../x", "a/../../x", "a/b/../../..",
                                        "../outside/secret.txt", "sub/../../outside/secret.txt",
                                        "/../root/in.txt", "./sub/./../../root/in.txt"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        refused(paths[i], RD, OP_READ, EACCES_, NULL);
        refused(paths[i], WR | CREAT, OP_WRITE, EACCES_, NULL);
    }
    NPK_CHECK(!exists("x") && !exists("outside/x"));
    /* `..` that stays inside, leading '/', '.', repeated slashes */
    reads("sub/../in.txt", "inside data");
    reads("/in.txt", "inside data");
    reads("//./sub/.//deep.txt", "deep");
    reads("nosuch/../in.txt", "inside data"); /* the guest's `..` is textual (spec §11.6) */
}

static void check_links_in(void)
{
    reads("good", "inside data");
    reads("sub/up_in", "inside data");
    reads("indir/deep.txt", "deep");
    reads("indir/up_in", "inside data"); /* the link's `..` is taken from sub, not the root */
    reads("dot/dot/in.txt", "inside data");
    reads("c1", "inside data"); /* 40 links */
    reads("hard", "inside data");
    reads("hard_out", "shared by a hard link");
    /* a dangling link inside the root creates its target, as on Linux */
    result r = run_path("dang_in", WR | CREAT, OP_WRITE, "made");
    NPK_CHECK_EQ_U64(r.open, 3);
    NPK_CHECK_EQ_U64(r.wrote, 4);
    NPK_CHECK_EQ_U64(r.closed, 0);
    NPK_CHECK_EQ_STR(get("root/made.txt"), "made");
    /* the guest's O_EXCL is one of the ignored flag bits: an existing target is opened */
    r = run_path("dang_in", WR | CREAT | EXCL, OP_WRITE, "MA");
    NPK_CHECK_EQ_U64(r.open, 3);
    NPK_CHECK_EQ_STR(get("root/made.txt"), "MAde");
    r = run_path("dang_in_sub", RDWR | CREAT | EXCL, OP_WRITE, "sub!");
    NPK_CHECK_EQ_U64(r.open, 3);
    NPK_CHECK_EQ_STR(get("root/sub/made_sub.txt"), "sub!");
    r = run_path("indir/new_via.txt", WR | CREAT | TRUNC, OP_WRITE, "via");
    NPK_CHECK_EQ_U64(r.open, 3);
    NPK_CHECK_EQ_STR(get("root/sub/new_via.txt"), "via");
    /* O_TRUNC truncates only when writable */
    put("root/t.txt", "0123456789");
    r = run_path("t.txt", RD | TRUNC, OP_READ, NULL);
    NPK_CHECK_EQ_U64(r.got, 10);
    NPK_CHECK_EQ_STR(get("root/t.txt"), "0123456789");
    r = run_path("good/../t.txt", WR | TRUNC, OP_WRITE, "ab"); /* textual: "t.txt" */
    NPK_CHECK_EQ_U64(r.open, 3);
    NPK_CHECK_EQ_STR(get("root/t.txt"), "ab");
    r = run_path("t.txt", WR | APPEND, OP_WRITE, "cd");
    NPK_CHECK_EQ_STR(get("root/t.txt"), "abcd");
    /* loops end in an error, not a hang; so do 41 links */
    refused("loop1", RD, OP_READ, EACCES_, NULL);
    refused("self", WR | CREAT, OP_WRITE, EACCES_, NULL);
    refused("loop2/x", WR | CREAT, OP_WRITE, EACCES_, NULL);
    refused("c0", RD, OP_READ, EACCES_, NULL);
    NPK_CHECK_EQ_STR(get("root/in.txt"), "inside data");
}

static void check_special_files(void)
{
    /* A regression here would block in the host open: bounded, so ctest cannot hang. */
    alarm(10);
    refused("fifo", RD, OP_READ, EACCES_, NULL);
    refused("fifo", WR, OP_WRITE, EACCES_, NULL);
    refused("fifo", WR | CREAT, OP_WRITE, EACCES_, NULL);
    refused("fifo", RDWR | CREAT | TRUNC, OP_WRITE, EACCES_, NULL);
    refused("fifolink", RD, OP_READ, EACCES_, NULL);
    alarm(0);
    /* a socket file: bound here, never listened on */
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(at("root/sock")) < sizeof sa.sun_path) {
        strcpy(sa.sun_path, at("root/sock"));
        int sk = socket(AF_UNIX, SOCK_STREAM, 0);
        NPK_CHECK(sk >= 0 && bind(sk, (struct sockaddr *)&sa, sizeof sa) == 0);
        refused("sock", RD, OP_READ, EACCES_, NULL);
        refused("sock", WR | CREAT, OP_WRITE, EACCES_, NULL);
        close(sk);
        unlink(at("root/sock"));
    }
    /* directories, also through links */
    refused("sub", RD, OP_READ, EISDIR_, NULL);
    refused("indir", RD, OP_READ, EISDIR_, NULL);
    refused("/", RD, OP_READ, EISDIR_, NULL);
    refused("dot", WR | CREAT, OP_WRITE, EISDIR_, NULL);
    refused("sub/..", RD, OP_READ, EISDIR_, NULL);
    /* the ordinary errors */
    refused("missing.txt", RD, OP_READ, ENOENT_, NULL);
    refused("nodir/new.txt", WR | CREAT, OP_WRITE, ENOENT_, "root/nodir");
    refused("in.txt/x", RD, OP_READ, ENOTDIR_, NULL);
}

static void check_path_limits(void)
{
    /* 4096 bytes with the NUL: the longest path (2044 "./", then "/in.txt") */
    char p[4200];
    size_t n = 0;
    for (int i = 0; i < 2044; i++, n += 2)
        memcpy(p + n, "./", 2);
    memcpy(p + n, "/in.txt", 8);
    n += 8;
    NPK_CHECK_EQ_U64(n, 4096);
    result r = run_raw(p, n, 0x11000, RD, OP_READ, NULL);
    NPK_CHECK_EQ_U64(r.open, 3);
    NPK_CHECK_EQ_U64(r.got, 11);
    /* one more byte: too long */
    memmove(p + 1, p, n);
    p[0] = '/';
    r = run_raw(p, n + 1, 0x11000, RD, OP_READ, NULL);
    NPK_CHECK_EQ_U64(r.open, -ENAMETOOLONG_);
    memset(p, 'a', 4200);
    r = run_raw(p, 4200, 0x11000, WR | CREAT, OP_WRITE, "x");
    NPK_CHECK_EQ_U64(r.open, -ENAMETOOLONG_);
    /* unterminated at the end of RAM (4 MiB) */
    r = run_raw("in.txtin", 8, (4u << 20) - 8, RD, OP_READ, NULL);
    NPK_CHECK_EQ_U64(r.open, -EFAULT_);
}

int main(void)
{
    build_tree();
    char *start = snapshot();
    check_links_out();
    check_dotdot();
    check_links_in();
    check_special_files();
    check_path_limits();
    char *end = snapshot();
    NPK_CHECK_EQ_STR(end, start);
    free(start);
    free(end);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    NPK_CHECK(system(cmd) == 0);
    return npk_test_done();
}
