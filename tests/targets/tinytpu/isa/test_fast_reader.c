/* The word files' fast reader (words.c) against the assembler engine it stands in for: on clean
 * texts (random programs written as port streams and hex words) and on the same texts with
 * random edits (blanks of every kind, comments, commas, stray characters, lines split, joined,
 * cut short), both must give the same result: the same error count, the same diagnostics text
 * and the same program, source lines included. Plus every input of the words fuzz corpus. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "test.h"

#ifndef WORDS_CORPUS
#define WORDS_CORPUS ""
#endif

static unsigned long compared, rejected;
static const char *const scanners[] = {"the host's", "portable", "SSE2", "AVX2"};

typedef struct outcome {
    int e;
    tt_program p;
    char *diag;
} outcome;

/* how: 0 the engine, 1 the fast reader, 2 - 4 the fast reader with its portable, SSE2 and AVX2
 * line scanner (the best the host has up to that one) */
static void read_with(const char *src, tt_format fmt, unsigned N, uint16_t lr0, uint32_t max,
                      int how, outcome *o)
{
    size_t len = 0;
    o->diag = NULL;
    FILE *f = open_memstream(&o->diag, &len);
    tt_program_init(&o->p, N);
    o->e = how == 1   ? tt_read_words_max(src, "t.words", fmt, N, lr0, max, &o->p, f)
           : how >= 2 ? tt_read_words_scan(src, "t.words", fmt, N, lr0, max, how - 2, &o->p, f)
                      : tt_read_words_engine(src, "t.words", fmt, N, lr0, max, &o->p, f);
    fclose(f);
}

static bool same_lines(const tt_program *a, const tt_program *b)
{
    for (size_t k = 0; k < a->n && k < b->n; k++)
        if (a->c[k].line != b->c[k].line)
            return false;
    return true;
}

/* The fast reader (with the host's line scanner, then with each one) and the engine on src:
 * equal outcomes. */
static void compare(const char *src, tt_format fmt, unsigned N, uint16_t lr0, uint32_t max,
                    const char *what, unsigned seed)
{
    outcome e;
    read_with(src, fmt, N, lr0, max, 0, &e);
    for (int how = 1; how <= 4; how++) {
        outcome f;
        read_with(src, fmt, N, lr0, max, how, &f);
        bool ok = f.e == e.e && strcmp(f.diag, e.diag) == 0 && tt_program_equal(&f.p, &e.p) &&
                  same_lines(&f.p, &e.p);
        NPK_REPORT(ok,
                   "%s seed %u (%s, N = %u): fast reader (%s scanner) %d errors, %zu cycles; "
                   "engine %d errors, %zu cycles\n--- text:\n%s--- fast:\n%s--- engine:\n%s\n",
                   what, seed, tt_format_names[fmt], N, scanners[how - 1], f.e,
                   f.p.n, e.e, e.p.n, src, f.diag, e.diag);
        tt_program_free(&f.p);
        free(f.diag);
    }
    compared++;
    rejected += e.e != 0;
    tt_program_free(&e.p);
    free(e.diag);
}

/* One to three random edits of t (in place; room for 3 more bytes). */
static void mutate(rng *r, char *t)
{
    static const char chars[] = " \t\r\f\v#,gx:.;-\n0Ff1A2378";
    unsigned edits = 1 + rng_below(r, 3);
    for (unsigned i = 0; i < edits; i++) {
        size_t n = strlen(t), at = rng_below(r, (unsigned)n + 1);
        char c = chars[rng_below(r, sizeof chars - 1)];
        switch (rng_below(r, 4)) {
        case 0: /* replace */
            if (at < n)
                t[at] = c;
            break;
        case 1: /* insert */
            memmove(t + at + 1, t + at, n - at + 1);
            t[at] = c;
            break;
        case 2: /* delete */
            if (at < n)
                memmove(t + at, t + at + 1, n - at);
            break;
        default: /* cut short */
            t[at] = '\0';
            break;
        }
    }
}

static void random_texts(void)
{
    static const unsigned lanes[] = {2, 3, 5};
    for (unsigned seed = 1; seed <= 120; seed++) {
        rng r = {UINT64_C(0x2545F4914F6CDD1D) * seed};
        const unsigned N = lanes[seed % 3];
        const size_t n = 1 + rng_below(&r, 12);
        for (tt_format f = TT_FMT_W88; f <= TT_FMT_PORT; f++) {
            if (f != TT_FMT_PORT && !tt_format_bits(f, N))
                continue;
            tt_program p;
            gen_opts o = {f == TT_FMT_PORT ? TT_FMT_ASM : f, 1, 1, 1};
            gen_program(&r, N, n, &o, &p);
            char err[256];
            char *t = tt_write_text(&p, f, err, sizeof err);
            tt_program_free(&p);
            NPK_REPORT(t != NULL, "seed %u: writing %s: %s\n", seed, tt_format_names[f], err);
            if (!t)
                continue;
            /* clean, with and without an lr setting, and one cycle short of the limit */
            compare(t, f, N, 0, 0, "clean", seed);
            compare(t, f, N, 0x40, 0, "clean lr=0x40", seed);
            compare(t, f, N, 0, (uint32_t)(n > 1 ? n - 1 : 1), "max_cycles", seed);
            if (n > 2) /* the limit reached before the last line (in the port line scanner) */
                compare(t, f, N, 0, (uint32_t)(n - 2), "max_cycles n - 2", seed);
            size_t len = strlen(t);
            char *m = malloc(len + 64);
            if (m && n > 1) { /* the last word past the limit, a comment after it */
                snprintf(m, len + 64, "%s# the end of the program, a comment line\n", t);
                compare(m, f, N, 0, (uint32_t)(n - 1), "max_cycles, then a comment", seed);
            }
            for (unsigned k = 0; m && k < 40; k++) {
                memcpy(m, t, len + 1);
                mutate(&r, m);
                compare(m, f, N, (uint16_t)(k % 3 ? 0 : 0x40), 0, "edited", seed);
            }
            free(m);
            free(t);
        }
    }
}

/* The words fuzz corpus: byte 0 picks the format and N as the harness does. */
static void corpus(void)
{
    static const struct {
        tt_format f;
        unsigned N;
    } specs[] = {{TT_FMT_W88, 2},   {TT_FMT_W94, 2},   {TT_FMT_W130, 2}, {TT_FMT_WFULL, 2},
                 {TT_FMT_PORT, 2},  {TT_FMT_WFULL, 4}, {TT_FMT_PORT, 3}};
    DIR *d = opendir(WORDS_CORPUS);
    NPK_REPORT(d != NULL, "cannot open the corpus '%s'\n", WORDS_CORPUS);
    if (!d)
        return;
    unsigned files = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        if (de->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", WORDS_CORPUS, de->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        static char buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        if (n < 1)
            continue;
        buf[n] = '\0';
        unsigned s = (unsigned)((unsigned char)buf[0] & 0x7F) % (sizeof specs / sizeof specs[0]);
        /* the text ends at a NUL as tt_read_words sees it (npk_load_asm takes a C string) */
        compare(buf + 1, specs[s].f, specs[s].N, 0, 4u << 20, de->d_name, 0);
        files++;
    }
    closedir(d);
    NPK_CHECK(files >= 30);
}

int main(void)
{
    random_texts();
    corpus();
    /* hand-checked: the engine rejects some of the edited texts and accepts the rest */
    NPK_CHECK(compared > 10000);
    NPK_CHECK(rejected > compared / 10 && rejected < compared);
    printf("fast reader against the engine: %lu texts, %lu rejected\n", compared, rejected);
    return npk_test_done();
}
