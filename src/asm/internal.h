/* The assembler context and helpers shared by the engine's own files (not for targets). */
#ifndef NPK_ASM_INTERNAL_H
#define NPK_ASM_INTERNAL_H

#include <stdarg.h>

#include "asm/asm.h"

/* Growable text buffer; on allocation failure it sets oom and drops further text. */
typedef struct npk_sbuf {
    char *s;
    size_t len, cap;
    bool oom;
} npk_sbuf;

void npk_sbuf_add(npk_sbuf *b, const char *s, size_t n);
void npk_sbuf_printf(npk_sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void npk_sbuf_vprintf(npk_sbuf *b, const char *fmt, va_list ap);
void npk_sbuf_free(npk_sbuf *b);

typedef struct asm_file {
    char *path;                  /* as used for diagnostics and include resolution */
    char *key;                   /* normalised path: cache and recursion checks */
    char *text;
    size_t len;
} asm_file;

/* One level of the include stack: the line being processed. */
typedef struct asm_frame {
    size_t file;
    unsigned line;
    const char *line_start, *line_end;   /* the whole line */
    const char *stmt_start;              /* first non-blank of the line */
    struct asm_frame *parent;
} asm_frame;

enum { SYM_DEFINED = 0, SYM_PENDING = 1, SYM_POISONED = 2 };

typedef struct asm_sym {
    char *name;
    size_t len;
    int kind;
    int state;
    int64_t value;
    unsigned def_pass;           /* pass of the latest definition (0: never) */
    size_t def_file;
    unsigned def_line;
} asm_sym;

typedef struct asm_space {
    char *name;
    uint64_t base, limit;
    uint8_t *data, *written;
    size_t cap;                  /* bytes allocated from base */
    uint64_t cur, hi;            /* cursor and highest address reached (absolute) */
    bool overflowed;             /* output ran past the limit this pass (reported once) */
} asm_space;

struct npk_asm {
    const npk_asm_target *t;
    void *user;
    npk_asm_opts opts;
    const char *main_name;

    unsigned pass;
    bool oom, stopped;           /* stopped: out of memory, give up */

    asm_file *files;
    size_t n_files, cap_files;
    asm_frame *frame;
    unsigned depth;

    npk_name_index sym_index;    /* name -> position in syms */
    asm_sym **syms;              /* in creation order */
    size_t n_syms, cap_syms;

    asm_space *spaces;
    size_t n_spaces, cur_space;

    npk_sbuf diag, listing, scratch;
    unsigned errors, warnings;
    unsigned unresolved;         /* uses that a later pass may resolve */
    unsigned expr_depth;
    unsigned long statements;    /* statements (labels, directives, instructions) this pass */
};

/* Allocation with oom tracking. */
void *asm_alloc(npk_asm *a, size_t n);
void *asm_realloc(npk_asm *a, void *p, size_t n);
char *asm_strndup(npk_asm *a, const char *s, size_t n);

asm_sym *asm_sym_find(const npk_asm *a, const char *name, size_t len);
void asm_syms_free(npk_asm *a);
int asm_define_failed(npk_asm *a, const char *name, size_t len, int kind, bool pending,
                      const char *at);

/* Process one file of the include stack (driver.c). */
void asm_process_file(npk_asm *a, size_t file);
/* Load a file (cached by its normalised path); returns its index or -1 after reporting. */
long asm_load_file(npk_asm *a, const char *path, const char *at, size_t at_len);
/* Normalised join of the directory of `base` and `rel` (malloc'ed). */
char *asm_path_join(npk_asm *a, const char *base, const char *rel);

bool asm_is_ident_start(int ch);
bool asm_is_ident_char(int ch);

#endif
