/* spec_refs: every citation of a target specification in the tree must name a section that
 * docs/spec/<target>.md has. Run by ctest over the repository (and over fixtures that must
 * fail); the citation forms and how a citation finds its target are in docs/spec/README.md. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { NTARGET = 4, MAXLABEL = 40 };
static const char *const target_name[NTARGET] = {"rvnpu", "opennpu", "tinytpu", "pccx"};

/* The section labels of one spec: "11.7", "A9.3", "A.1", "Part B", "Appendix X". */
typedef struct {
    char (*label)[MAXLABEL];
    size_t n, cap;
} labels;

typedef struct {
    labels spec[NTARGET];
    const char *const *exclude; /* paths relative to the root that are not walked */
    size_t nexclude;
    int list;                   /* --list: print every citation with the target it cites */
    size_t files, cites, errors;
} checker;

static void error_at(checker *ck, const char *path, size_t line, size_t col, const char *fmt,
                     ...)
{
    va_list ap;
    fprintf(stderr, "%s:%zu:%zu: ", path, line, col);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    ck->errors++;
}

static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_upper(int c) { return c >= 'A' && c <= 'Z'; }
static int is_alnum(int c) { return is_digit(c) || is_upper(c) || (c >= 'a' && c <= 'z'); }

/* A section label at s: [A-Z] | [A-Z]?.?DIGITS(.DIGITS)*; a trailing '.' (end of sentence)
 * is not part of it. Returns its length, 0 when s holds none. */
static size_t scan_label(const char *s)
{
    size_t i = 0;
    if (is_upper((unsigned char)s[0])) {
        i = 1;
        if (s[1] == '.' && is_digit((unsigned char)s[2]))
            i = 2;
        if (!is_digit((unsigned char)s[i]))
            return is_alnum((unsigned char)s[1]) ? 0 : 1;
    }
    if (!is_digit((unsigned char)s[i]))
        return 0;
    while (is_digit((unsigned char)s[i]))
        i++;
    while (s[i] == '.' && is_digit((unsigned char)s[i + 1])) {
        i++;
        while (is_digit((unsigned char)s[i]))
            i++;
    }
    return is_alnum((unsigned char)s[i]) || s[i] == '_' ? 0 : i;
}

static int add_label(labels *l, const char *s, size_t n)
{
    if (n == 0 || n >= MAXLABEL)
        return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        void *p = realloc(l->label, cap * sizeof *l->label);
        if (!p)
            return -1;
        l->label = p;
        l->cap = cap;
    }
    memcpy(l->label[l->n], s, n);
    l->label[l->n][n] = '\0';
    l->n++;
    return 0;
}

static int has_label(const labels *l, const char *s, size_t n)
{
    for (size_t i = 0; i < l->n; i++)
        if (strlen(l->label[i]) == n && memcmp(l->label[i], s, n) == 0)
            return 1;
    return 0;
}

/* "Part B ...", "Appendix A (informative) ..." -> the two words; else 0. */
static size_t scan_named(const char *s)
{
    const char *w = strncmp(s, "Part ", 5) == 0       ? s + 5
                    : strncmp(s, "Appendix ", 9) == 0 ? s + 9
                                                      : NULL;
    if (!w || !is_upper((unsigned char)w[0]) || is_alnum((unsigned char)w[1]))
        return 0;
    return (size_t)(w + 1 - s);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *p = realloc(buf, 2 * cap + 1);
        if (!p) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = p;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Sections of a spec: the labels of its headings (outside fenced code) and of paragraphs that
 * open with a bold label ("**C2.1** ..." or "**E9. Numerics.**"). */
static int load_spec(labels *l, const char *path)
{
    size_t len;
    char *text = read_file(path, &len);
    if (!text)
        return -1;
    int fenced = 0;
    for (char *line = text; line && *line;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (strncmp(line, "```", 3) == 0)
            fenced = !fenced;
        else if (!fenced) {
            const char *s = NULL;
            if (line[0] == '#') {
                s = line;
                while (*s == '#')
                    s++;
                s = *s == ' ' ? s + 1 : NULL;
            } else if (strncmp(line, "**", 2) == 0)
                s = line + 2;
            if (s) {
                size_t n = scan_named(s);
                if (!n)
                    n = scan_label(s);
                if (line[0] == '*' && n < 2) /* a bold label has a number: "**C2.1**" */
                    n = 0;
                if (add_label(l, s, n) != 0) {
                    free(text);
                    return -1;
                }
            }
        }
        line = next;
    }
    free(text);
    return 0;
}

/* The target a name at s (length n, delimited by non-alphanumerics) is, or -1. */
static int target_at(const char *s, size_t n)
{
    for (int t = 0; t < NTARGET; t++)
        if (strlen(target_name[t]) == n && memcmp(s, target_name[t], n) == 0)
            return t;
    return -1;
}

/* The last target named in [b, e) as a whole word ("pccx", "tinytpu.md", "asm_pccx"). */
static int last_target(const char *b, const char *e)
{
    int found = -1;
    for (const char *p = b; p < e;) {
        if (!is_alnum((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *w = p;
        while (p < e && is_alnum((unsigned char)*p))
            p++;
        int t = target_at(w, (size_t)(p - w));
        if (t >= 0)
            found = t;
    }
    return found;
}

static const char *skip_gap_back(const char *text, const char *p)
{
    while (p > text && strchr(" \t\n*#/;`(", p[-1]))
        p--;
    return p;
}

static int ends_with(const char *text, const char *p, const char *s)
{
    size_t n = strlen(s);
    return (size_t)(p - text) >= n && memcmp(p - n, s, n) == 0;
}

/* The target named right before a citation, possibly across a line break inside a comment:
 * "rvnpu spec\n * §13.2", "rvnpu's spec §11.7", "opennpu.md` §4", "pccx §3.2"; else -1. */
static int adjacent_target(const char *text, const char *at)
{
    const char *p = skip_gap_back(text, at);
    if (ends_with(text, p, "spec") && (p - 4 == text || !is_alnum((unsigned char)p[-5])))
        p = skip_gap_back(text, p - 4);
    if (ends_with(text, p, "'s"))
        p -= 2;
    else if (ends_with(text, p, "\xE2\x80\x99s"))
        p -= 4;
    else if (ends_with(text, p, ".md"))
        p -= 3;
    const char *e = p;
    while (p > text && is_alnum((unsigned char)p[-1]))
        p--;
    return target_at(p, (size_t)(e - p));
}

/* The target a file belongs to by its path: the one target named by a path component or a
 * word of one (src/targets/pccx/, docs/tinytpu-words.md, sdk/rvnpu/, models/pccx_tinylm/);
 * -1 when none or several are named. */
static int path_target(const char *rel)
{
    int found = -1;
    for (const char *p = rel; *p;) {
        if (!is_alnum((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *w = p;
        while (*p && is_alnum((unsigned char)*p))
            p++;
        int t = target_at(w, (size_t)(p - w));
        if (t >= 0) {
            if (found >= 0 && found != t)
                return -1;
            found = t;
        }
    }
    return found;
}

typedef struct {
    checker *ck;
    const char *rel;   /* path for messages */
    const char *text;  /* whole file */
    int file_target;
    int bare_letters;  /* a tinytpu file outside docs/spec: bare letter labels are citations */
} source;

static void line_col(const source *src, const char *at, size_t *line, size_t *col)
{
    *line = 1;
    const char *bol = src->text;
    for (const char *p = src->text; p < at; p++)
        if (*p == '\n') {
            ++*line;
            bol = p + 1;
        }
    *col = (size_t)(at - bol) + 1;
}

static const char *line_start(const source *src, const char *at)
{
    while (at > src->text && at[-1] != '\n')
        at--;
    return at;
}

/* Check one cited label (at, n) against the spec of target t; t < 0: no target was found. */
static void check_label(const source *src, const char *cite, const char *at, size_t n, int t)
{
    size_t line, col;
    src->ck->cites++;
    if (t < 0) {
        line_col(src, cite, &line, &col);
        error_at(src->ck, src->rel, line, col,
                 "'%.*s' does not say whose spec it cites: name the target right before it "
                 "(\"opennpu spec \xC2\xA7" "5.8\", \"tinytpu spec B7.3\") or put the file in "
                 "that target's folder",
                 (int)(at + n - cite), cite);
        return;
    }
    line_col(src, at, &line, &col);
    if (src->ck->list)
        printf("%s:%zu:%zu: %s %.*s\n", src->rel, line, col, target_name[t], (int)n, at);
    if (!has_label(&src->ck->spec[t], at, n)) {
        error_at(src->ck, src->rel, line, col, "%s spec has no section %.*s (docs/spec/%s.md)",
                 target_name[t], (int)n, at, target_name[t]);
    }
}

/* Length of a range dash at s ("-", en dash, em dash), else 0. */
static size_t dash(const char *s)
{
    if (*s == '-')
        return 1;
    if ((unsigned char)s[0] == 0xE2 && (unsigned char)s[1] == 0x80 &&
        ((unsigned char)s[2] == 0x93 || (unsigned char)s[2] == 0x94))
        return 3;
    return 0;
}

static int is_section_sign(const char *s)
{
    return (unsigned char)s[0] == 0xC2 && (unsigned char)s[1] == 0xA7;
}

/* "§X", "§X-Y", "§X–§Y": returns the end of what it consumed. */
static const char *check_section_sign(const source *src, const char *p)
{
    const char *cite = p;
    int t = adjacent_target(src->text, p);
    if (t < 0)
        t = last_target(line_start(src, p), p);
    if (t < 0)
        t = src->file_target;
    p += 2;
    while (*p == ' ')
        p++;
    size_t n = scan_label(p);
    if (!n) {
        size_t line, col;
        line_col(src, cite, &line, &col);
        error_at(src->ck, src->rel, line, col,
                 "'\xC2\xA7' is not followed by a section number (write '<target> spec "
                 "\xC2\xA7N.M'; other documents' sections are not written with '\xC2\xA7')");
        return p;
    }
    check_label(src, cite, p, n, t);
    p += n;
    size_t d = t < 0 ? 0 : dash(p); /* one message for an unattributed range */
    if (d) {
        const char *q = p + d;
        if (is_section_sign(q))
            q += 2;
        size_t m = scan_label(q);
        if (m) {
            check_label(src, cite, q, m, t);
            p = q + m;
        }
    }
    return p;
}

/* A letter label of tinytpu's parts A..E ("B7.3", "A11") or "Part D" at s; 0 when none. */
static size_t letter_label(const char *s)
{
    size_t n = scan_named(s);
    if (n && strncmp(s, "Part ", 5) == 0)
        return n;
    if (s[0] < 'A' || s[0] > 'E' || !is_digit((unsigned char)s[1]))
        return 0;
    return scan_label(s);
}

/* After "spec " or "<target>.md ": letter labels and lists of them ("B2-B5, B7.2", "A7.3/A7.4").
 * Numbered labels are only cited with '§'. */
static const char *check_letter_forms(const source *src, const char *cite, const char *p, int t)
{
    size_t n = letter_label(p);
    while (n) {
        check_label(src, cite, p, n, t);
        p += n;
        const char *q = p;
        size_t d = dash(q);
        if (d)
            q += d;
        else if (q[0] == ',' && q[1] == ' ')
            q += 2;
        else if (q[0] == '/')
            q += 1;
        else if (strncmp(q, " and ", 5) == 0 || strncmp(q, " or ", 4) == 0)
            q += q[1] == 'a' ? 5 : 4;
        else
            break;
        n = letter_label(q);
        if (n)
            p = q;
    }
    return p;
}

static void check_source(const source *src)
{
    const char *p = src->text;
    while (*p) {
        if (is_section_sign(p) && p > src->text && p[-1] == '`' && p[2] == '`') {
            p += 3; /* `§` in backticks mentions the sign itself */
            continue;
        }
        if (is_section_sign(p)) {
            p = check_section_sign(src, p);
            continue;
        }
        if (strncmp(p, "shared/spec", 11) == 0) {
            size_t line, col;
            line_col(src, p, &line, &col);
            error_at(src->ck, src->rel, line, col,
                     "'shared/spec' is not part of the repository: cite docs/spec/<target>.md");
            p += 11;
            continue;
        }
        /* "spec B7.3", "spec Part D", "tinytpu.md A12", "tinytpu.md` Part B" */
        if (p > src->text && is_alnum((unsigned char)p[-1])) {
            p++;
            continue;
        }
        const char *w = p;
        /* In tinytpu's files a bare "A7.8" or "(C2.3)" (parts A..E) cites the tinytpu spec. */
        if (src->bare_letters && letter_label(w) && strncmp(w, "Part ", 5) != 0 &&
            (w == src->text || !(strchr("_.#-", w[-1]) || (unsigned char)w[-1] >= 0x80))) {
            p = check_letter_forms(src, w, w, src->file_target);
            continue;
        }
        while (is_alnum((unsigned char)*p))
            p++;
        if (p == w) {
            p++;
            continue;
        }
        int t = -2;
        if ((size_t)(p - w) == 4 && strncmp(w, "spec", 4) == 0) {
            t = adjacent_target(src->text, w);
            if (t < 0)
                t = last_target(line_start(src, w), w);
            if (t < 0)
                t = src->file_target;
        } else if (strncmp(p, ".md", 3) == 0 && !is_alnum((unsigned char)p[3])) {
            t = target_at(w, (size_t)(p - w));
            if (t >= 0)
                p += 3;
            else
                t = -2;
        }
        if (t == -2)
            continue;
        const char *q = p;
        if (*q == '`')
            q++;
        if (*q != ' ')
            continue;
        while (*q == ' ')
            q++;
        if (letter_label(q))
            p = check_letter_forms(src, w, q, t);
    }
}

/* Text files only: no NUL byte and valid UTF-8 (fuzz inputs and weights are skipped). */
static int is_text(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        size_t k = c == 0 ? 9 : c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2
                 : (c & 0xF8) == 0xF0 ? 3 : 9;
        if (k == 9 || n - i <= k)
            return 0;
        for (size_t j = 1; j <= k; j++)
            if (((unsigned char)s[i + j] & 0xC0) != 0x80)
                return 0;
        i += k + 1;
    }
    return 1;
}

static int excluded(const checker *ck, const char *rel)
{
    for (size_t i = 0; i < ck->nexclude; i++)
        if (strcmp(rel, ck->exclude[i]) == 0)
            return 1;
    return 0;
}

static void check_file(checker *ck, const char *path, const char *rel)
{
    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
        fprintf(stderr, "spec_refs: cannot read %s: %s\n", path, strerror(errno));
        ck->errors++;
        return;
    }
    if (is_text(text, len)) {
        source src = {ck, rel, text, path_target(rel), 0};
        src.bare_letters = src.file_target == 2 && strncmp(rel, "docs/spec/", 10) != 0;
        ck->files++;
        check_source(&src);
    }
    free(text);
}

/* Walk dir (rel: its path below the root, "" for the root) in name order, so messages come
 * in a stable order. .git and the root's build* directories are not walked. */
static void walk(checker *ck, const char *dir, const char *rel)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "spec_refs: cannot open %s: %s\n", dir, strerror(errno));
        ck->errors++;
        return;
    }
    size_t n = 0, cap = 0;
    char **names = NULL;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            strcmp(e->d_name, ".git") == 0 || (!*rel && strncmp(e->d_name, "build", 5) == 0))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 32;
            char **p = realloc(names, cap * sizeof *names);
            if (!p)
                break;
            names = p;
        }
        names[n] = malloc(strlen(e->d_name) + 1);
        if (!names[n])
            break;
        strcpy(names[n++], e->d_name);
    }
    closedir(d);
    for (size_t i = 1; i < n; i++) /* insertion sort: directories are small */
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    for (size_t i = 0; i < n; i++) {
        size_t lp = strlen(dir) + strlen(names[i]) + 2, lr = strlen(rel) + strlen(names[i]) + 2;
        char *path = malloc(lp), *sub = malloc(lr);
        struct stat st;
        if (path && sub) {
            snprintf(path, lp, "%s/%s", dir, names[i]);
            snprintf(sub, lr, "%s%s%s", rel, *rel ? "/" : "", names[i]);
            if (!excluded(ck, sub) && lstat(path, &st) == 0) {
                if (S_ISDIR(st.st_mode))
                    walk(ck, path, sub);
                else if (S_ISREG(st.st_mode))
                    check_file(ck, path, sub);
            }
        }
        free(path);
        free(sub);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    static const char *excl[64];
    checker ck = {0};
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--list") == 0)
            ck.list = 1;
        else if (strcmp(argv[i], "--exclude") == 0 && i + 1 < argc &&
                 ck.nexclude < sizeof excl / sizeof excl[0])
            excl[ck.nexclude++] = argv[++i];
        else
            break;
    }
    if (argc - i != 2) {
        fprintf(stderr, "usage: spec_refs [--list] [--exclude PATH]... SPECDIR ROOT\n"
                        "Checks that every citation of a target spec in the files under ROOT "
                        "names a section of\nSPECDIR/<target>.md. PATH is relative to ROOT.\n");
        return 125;
    }
    ck.exclude = excl;
    for (int t = 0; t < NTARGET; t++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.md", argv[i], target_name[t]);
        if (load_spec(&ck.spec[t], path) != 0 || ck.spec[t].n == 0) {
            fprintf(stderr, "spec_refs: cannot read the sections of %s\n", path);
            return 2;
        }
    }
    walk(&ck, argv[i + 1], "");
    printf("spec_refs: %zu citations in %zu files, %zu error%s\n", ck.cites, ck.files,
           ck.errors, ck.errors == 1 ? "" : "s");
    for (int t = 0; t < NTARGET; t++)
        free(ck.spec[t].label);
    return ck.errors ? 1 : 0;
}
