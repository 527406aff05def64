/* Option parsing and small helpers shared by the subcommands. A tiny parser of our own keeps
 * the CLI portable C11 and its messages consistent. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "core/file.h"

int npk_usage_error(const char *prog, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see '%s --help')\n", prog);
    return NPK_EXIT_USAGE;
}

int npk_opt_next(npk_opt_state *s, const npk_opt_def *defs, const char **value)
{
    *value = NULL;
    if (s->i >= s->argc)
        return -1;
    const char *a = s->argv[s->i++];
    if (s->only_positional || a[0] != '-' || a[1] == '\0') {
        *value = a;
        return 0;
    }
    if (strcmp(a, "--") == 0) {
        s->only_positional = 1;
        return npk_opt_next(s, defs, value);
    }
    if (a[1] == '-') {
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        for (const npk_opt_def *d = defs; d->long_name || d->short_name; d++) {
            if (!d->long_name || strlen(d->long_name) != len || strncmp(d->long_name, name, len))
                continue;
            if (d->kind == OPT_FLAG) {
                if (eq) {
                    npk_usage_error(s->prog, "option --%s takes no value", d->long_name);
                    return -2;
                }
            } else if (d->kind == OPT_OPTIONAL) {
                *value = eq ? eq + 1 : NULL;
            } else if (eq) {
                *value = eq + 1;
            } else if (s->i < s->argc) {
                *value = s->argv[s->i++];
            } else {
                npk_usage_error(s->prog, "option --%s needs a value", d->long_name);
                return -2;
            }
            return d->id;
        }
        npk_usage_error(s->prog, "unknown option '--%.*s'", (int)len, name);
        return -2;
    }
    for (const npk_opt_def *d = defs; d->long_name || d->short_name; d++) {
        if (d->short_name != a[1])
            continue;
        if (d->kind == OPT_FLAG) {
            if (a[2]) {
                npk_usage_error(s->prog, "option -%c takes no value", a[1]);
                return -2;
            }
        } else if (a[2]) {
            *value = a + 2;
        } else if (d->kind == OPT_VALUE) {
            if (s->i >= s->argc) {
                npk_usage_error(s->prog, "option -%c needs a value", a[1]);
                return -2;
            }
            *value = s->argv[s->i++];
        }
        return d->id;
    }
    npk_usage_error(s->prog, "unknown option '%s'", a);
    return -2;
}

int npk_read_file(const char *path, uint8_t **data, size_t *size)
{
    char err[1200];
    if (npk_file_read(path, NPK_INPUT_MAX, data, size, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "npukit: %s\n", err);
        return -1;
    }
    return 0;
}

void npk_target_list(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < npk_target_count() && used < n; i++) {
        int w = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", npk_target_name(i));
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* The first `.target` line near the top of an assembly source: where its NAME starts (after
 * the blanks), the end of the scanned text and the line number; NULL if there is none. */
static const char *target_line(const uint8_t *data, size_t size, const char **end_out,
                               unsigned *line)
{
    const char *p = (const char *)data, *end = p + (size < 4096 ? size : 4096);
    *end_out = end;
    for (*line = 1; p < end; ++*line) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (end - p > 8 && strncmp(p, ".target", 7) == 0 && (p[7] == ' ' || p[7] == '\t')) {
            p += 8;
            while (p < end && (*p == ' ' || *p == '\t'))
                p++;
            return p;
        }
        while (p < end && *p != '\n')
            p++;
        p++;
    }
    return NULL;
}

const char *npk_guess_target(const uint8_t *data, size_t size)
{
    if (size >= 20 && memcmp(data, "\x7f" "ELF", 4) == 0) {
        unsigned em = (unsigned)data[18] | (unsigned)data[19] << 8;
        return em == 243 ? "rvnpu" : NULL;
    }
    /* `.target NAME` on a line of its own near the top of an assembly source */
    const char *end;
    unsigned line;
    const char *p = target_line(data, size, &end, &line);
    if (!p)
        return NULL;
    for (size_t i = 0; i < npk_target_count(); i++) {
        const char *t = npk_target_name(i);
        size_t len = strlen(t);
        if ((size_t)(end - p) >= len && strncmp(p, t, len) == 0 &&
            (p + len == end || !((p[len] >= 'a' && p[len] <= 'z') ||
                                 (p[len] >= '0' && p[len] <= '9') || p[len] == '_')))
            return t;
    }
    return NULL;
}

void npk_describe_no_target(const uint8_t *data, size_t size, const char *path, char *out,
                            size_t n)
{
    out[0] = '\0';
    if (size >= 4 && memcmp(data, "\x7f" "ELF", 4) == 0) {
        if (size < 20) {
            snprintf(out, n, "%s: truncated ELF (%zu bytes); ", path, size);
            return;
        }
        unsigned em = (unsigned)data[18] | (unsigned)data[19] << 8;
        snprintf(out, n, "%s: ELF for machine %u (%s), which no npukit target runs; ", path, em,
                 npk_elf_machine_name(em));
        return;
    }
    const char *end;
    unsigned line;
    const char *p = target_line(data, size, &end, &line);
    if (!p)
        return;
    /* the name as written, up to a blank or a comment; printable ASCII only, and short,
     * since it is quoted inside a one-line message */
    size_t len = 0;
    while (p + len < end && p[len] > ' ' && p[len] < 0x7f && p[len] != ';' && p[len] != '#')
        len++;
    if (len == 0)
        snprintf(out, n, "%s:%u: '.target' names no target; ", path, line);
    else
        snprintf(out, n, "%s:%u: unknown target '%.*s%s' in '.target'; ", path, line,
                 (int)(len > 32 ? 32 : len), p, len > 32 ? "..." : "");
}

int npk_add_setting(const char *prog, char *settings, size_t n, const char *option,
                    const char *key, const char *value, int list)
{
    if (!list && strchr(value, ',')) {
        npk_usage_error(prog, "%s value '%s' must not contain a comma", option, value);
        return -1;
    }
    size_t used = strlen(settings);
    int w = snprintf(settings + used, n - used, "%s%s=%s", used ? "," : "", key, value);
    if (w < 0 || (size_t)w >= n - used) {
        settings[used] = '\0';
        npk_usage_error(prog, "too many target settings (at %s)", option);
        return -1;
    }
    for (char *c = settings + used + (used ? 1 : 0) + strlen(key) + 1; *c; c++)
        if (*c == ',')
            *c = ':';
    return 0;
}

const char *npk_join_settings(char *buf, size_t n, const char *config, const char *settings)
{
    config = config ? config : "";
    settings = settings ? settings : "";
    snprintf(buf, n, "%s%s%s", config, config[0] && settings[0] ? "," : "", settings);
    return buf[0] ? buf : NULL;
}

npk_machine *npk_cli_machine(const char *prog, const char *target, const char *config)
{
    npk_machine *m;
    char err[1024];
    if (npk_create(&m, target, config, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return NULL;
    }
    return m;
}

char *npk_default_output(const char *src, const char *ext)
{
    size_t n = strlen(src);
    const char *slash = strrchr(src, '/'), *dot = strrchr(src, '.');
    if (dot && (!slash || dot > slash))
        n = (size_t)(dot - src);
    char *out = malloc(n + strlen(ext) + 1);
    if (out) {
        memcpy(out, src, n);
        strcpy(out + n, ext);
    }
    return out;
}

int npk_check_output(const char *prog, const char *input, const char *output, int given,
                     const char *option)
{
    if (!input || !output || strcmp(input, "-") == 0 || strcmp(output, "-") == 0)
        return 0;
    struct stat si, so;
    int same = strcmp(input, output) == 0 ||
               (stat(input, &si) == 0 && stat(output, &so) == 0 && si.st_dev == so.st_dev &&
                si.st_ino == so.st_ino);
    if (!same)
        return 0;
    if (given)
        fprintf(stderr, "%s: %s %s would overwrite the input %s; give another output file\n",
                prog, option, output, input);
    else
        fprintf(stderr, "%s: the default output %s would overwrite the input %s; give %s "
                        "FILE\n", prog, output, input, option);
    return NPK_EXIT_USAGE;
}

int npk_check_output_of(const char *prog, const char *const *inputs, size_t n,
                        const char *output, const char *option)
{
    for (size_t i = 0; i < n; i++)
        if (npk_check_output(prog, inputs[i], output, 1, option) != 0)
            return NPK_EXIT_USAGE;
    return 0;
}

int npk_close_output(FILE *f, const char *name)
{
    /* ferror catches a failed write in the middle of the output (errno may be gone by
     * then: EIO stands in), fflush the buffered tail, fclose a deferred error */
    int bad = ferror(f) != 0, e = 0;
    errno = 0;
    if (fflush(f) != 0) {
        bad = 1;
        e = errno;
    }
    if (f != stderr) {
        errno = 0;
        if (fclose(f) != 0) {
            bad = 1;
            e = e ? e : errno;
        }
    }
    if (!bad)
        return 0;
    fprintf(stderr, "npukit: %s: write error: %s\n", name, strerror(e ? e : EIO));
    return -1;
}
