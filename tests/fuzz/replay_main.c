/* Replay driver: runs a harness's LLVMFuzzerTestOneInput on every file of the given
 * directories (or files), so the harnesses build with gcc, without libFuzzer, and ctest
 * replays every corpus and crash input. Files whose names start with "open-" are crash inputs
 * of bugs still open; they are skipped unless --all is given (tests/fuzz/README.md).
 * Exit status: 0 when every input ran, 1 on unreadable input or a usage error. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/file.h" /* the project's one input reader */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t ran, skipped;
static int all;

static int replay_file(const char *path)
{
    uint8_t *buf = NULL;
    size_t n = 0;
    char err[512];
    if (npk_file_read(path, 0, &buf, &n, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "replay: %s\n", err);
        return 1;
    }
    /* an exact-size copy, so that ASan sees a read past the end of the input */
    uint8_t *in = malloc(n ? n : 1);
    if (!in) {
        free(buf);
        return 1;
    }
    memcpy(in, buf, n);
    free(buf);
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
    LLVMFuzzerTestOneInput(in, n);
    free(in);
    ran++;
    return 0;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_path(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "replay: %s: no such file or directory\n", path);
        return 1;
    }
    if (!S_ISDIR(sb.st_mode))
        return replay_file(path);
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "replay: %s: cannot list\n", path);
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
            continue;
        if (!all && strncmp(e->d_name, "open-", 5) == 0) {
            skipped++;
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn) {
                rc = 1;
                break;
            }
            names = nn;
        }
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        if (!(names[n] = malloc(len))) {
            rc = 1;
            break;
        }
        snprintf(names[n++], len, "%s/%s", path, e->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, name_cmp); /* a stable order for reproducible runs */
    for (size_t i = 0; i < n; i++) {
        if (rc == 0)
            rc = replay_path(names[i]);
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    int rc = 0, paths = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--all") == 0) {
            all = 1;
            continue;
        }
        paths++;
        rc |= replay_path(argv[i]);
    }
    if (!paths) {
        fprintf(stderr, "usage: %s [--all] DIR_OR_FILE...\n"
                        "Run the harness on every input; --all includes open-* crash inputs.\n",
                argv[0]);
        return 1;
    }
    printf("replayed %zu input%s", ran, ran == 1 ? "" : "s");
    if (skipped)
        printf(", skipped %zu open crash input%s (--all runs them)", skipped,
               skipped == 1 ? "" : "s");
    printf("\n");
    return rc;
}
