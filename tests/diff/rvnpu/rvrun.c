/* rvnpu differential test: the two runners (see rvrun.h). qemu runs as a child with its
 * stdout on a pipe; npukit runs in-process with guest stdout captured in a memory stream. */
#define _POSIX_C_SOURCE 200809L
#include "rvrun.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int rvr_find_qemu(char *path, size_t n)
{
    const char *env = getenv("RVNPU_QEMU");
    if (env && *env) {
        if (access(env, X_OK) == 0) {
            snprintf(path, n, "%s", env);
            return 0;
        }
        fprintf(stderr, "rvnpu difftest: RVNPU_QEMU=%s is not executable\n", env);
        return -1;
    }
    const char *p = getenv("PATH");
    if (!p || !*p)
        p = "/usr/local/bin:/usr/bin:/bin";
    while (*p) {
        const char *e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        snprintf(path, n, "%.*s/qemu-riscv32", (int)len, p);
        if (len && access(path, X_OK) == 0)
            return 0;
        p += len;
        if (*p == ':')
            p++;
    }
    fprintf(stderr,
            "rvnpu difftest: FAIL: qemu-riscv32 not found on PATH; it is the reference this "
            "test compares against. Install the Debian package '%s' (apt-get install -y %s) "
            "or set RVNPU_QEMU to its path.\n",
            RVR_QEMU_PACKAGE, RVR_QEMU_PACKAGE);
    return -1;
}

int rvr_qemu(const char *qemu, const char *elf_path, uint8_t **out, size_t *nout, int *status)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addclose(&fa, fd[1]);
    char *argv[] = {(char *)qemu, (char *)elf_path, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, qemu, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    if (rc != 0) {
        close(fd[0]);
        fprintf(stderr, "rvnpu difftest: cannot run %s: %s\n", qemu, strerror(rc));
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *b = malloc(cap);
    for (;;) {
        if (b && len == cap) {
            uint8_t *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                b = NULL;
            } else {
                b = nb;
                cap *= 2;
            }
        }
        uint8_t sink[4096];
        ssize_t r = read(fd[0], b ? b + len : sink, b ? cap - len : sizeof sink);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    close(fd[0]);
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    if (!b)
        return -1;
    *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : 255;
    *out = b;
    *nout = len;
    return 0;
}

int rvr_npukit(npk_machine *m, const uint8_t *elf, size_t n, uint64_t budget, uint8_t **out,
               size_t *nout, npk_stop *stop, uint64_t *insns)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return -1;
    int ret = -1;
    memset(stop, 0, sizeof *stop);
    *insns = 0;
    if (npk_reset(m) != NPK_OK || npk_stats_enable(m, 1) != NPK_OK) {
        fprintf(stderr, "rvnpu difftest: npukit reset: %s\n", npk_error(m));
        goto done;
    }
    npk_set_output(m, f, stderr);
    if (npk_load_elf(m, elf, n, "difftest.elf") != NPK_OK) {
        fprintf(stderr, "rvnpu difftest: npukit load: %s\n", npk_error(m));
        goto done;
    }
    if (npk_run(m, budget, stop) != NPK_OK) {
        fprintf(stderr, "rvnpu difftest: npukit run: %s\n", npk_error(m));
        goto done;
    }
    npk_stats st;
    if (npk_stats_get(m, &st) == NPK_OK)
        *insns = st.insns;
    ret = 0;
done:
    npk_set_output(m, stdout, stderr);
    fclose(f);
    *out = (uint8_t *)buf;
    *nout = len;
    return ret;
}

int rvr_write_file(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(b, 1, n, f);
    int bad = fclose(f) != 0 || w != n;
    if (!bad)
        chmod(path, 0755);
    return bad ? -1 : 0;
}
