/* npukit's shared assembler/disassembler engine. A target describes its syntax (comment
 * characters, directives, flags) and parses its own statements with the toolkit below (lexer,
 * exact int64 expressions, registers, immediates, memory operands, pc-relative targets,
 * key=value lists, mnemonic options, wide words); the engine runs the passes, keeps symbols
 * and output images, handles .include, and reports gcc-style diagnostics.
 * All state lives in an npk_asm context: no globals, no exit/abort. */
#ifndef NPK_ASM_ASM_H
#define NPK_ASM_ASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "num/fenv.h" /* npk_fmt: float literal formats */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct npk_asm npk_asm;               /* one assembly run */
typedef struct npk_asm_result npk_asm_result; /* what a run produced */

/* ==== wide instruction words ================================================================ */

/* Words are arrays of little-endian 64-bit chunks (bit i is w[i / 64] >> (i % 64)), so one API
 * serves 32-, 64-, 88-, 130-bit words and beyond. npk_bits is a convenient 256-bit holder. */
#define NPK_BITS_MAX 256
typedef struct npk_bits {
    uint64_t w[NPK_BITS_MAX / 64];
} npk_bits;

/* The value of a hexadecimal digit character, or -1. */
int npk_hex_digit(int ch);
/* Insert the low `width` (1..64) bits of v at bit `lsb`; bits of v above width are ignored.
 * Returns -1 (and changes nothing) if the field does not lie inside nw chunks. */
int npk_bits_put(uint64_t *w, size_t nw, unsigned lsb, unsigned width, uint64_t v);
/* Extract `width` (1..64) bits at `lsb` (0 outside nw chunks). */
uint64_t npk_bits_get(const uint64_t *w, size_t nw, unsigned lsb, unsigned width);
/* Does v fit `width` bits as unsigned / as two's complement signed? */
bool npk_fits_u(uint64_t v, unsigned width);
bool npk_fits_s(int64_t v, unsigned width);
/* Sign-extend the low `width` bits of v. */
int64_t npk_sext(uint64_t v, unsigned width);
/* Little-endian byte image of the low nbytes of a word, and back. */
void npk_bits_to_bytes(const uint64_t *w, size_t nw, uint8_t *out, size_t nbytes);
void npk_bits_from_bytes(uint64_t *w, size_t nw, const uint8_t *in, size_t nbytes);
/* Exactly ceil(nbits/4) lower-case hex digits, most significant first (snprintf-like
 * return value: the length the full text needs). */
int npk_bits_hex(const uint64_t *w, size_t nw, unsigned nbits, char *out, size_t n);

/* ==== cursor and lexer ====================================================================== */

/* A cursor over the current statement (comments already removed). Positions handed to
 * diagnostics are pointers into the statement's line. */
typedef struct npk_cur {
    const char *p, *end;
} npk_cur;

void npk_cur_ws(npk_cur *c);                     /* skip blanks */
bool npk_cur_eol(npk_cur *c);                    /* skip blanks; nothing left? */
bool npk_cur_peek(npk_cur *c, char ch);          /* skip blanks; next char is ch? */
bool npk_cur_accept(npk_cur *c, char ch);        /* skip blanks; consume ch if next */
/* Identifier [A-Za-z_.][A-Za-z0-9_.]* (dots allowed: npu.vmac, mma.last); returns its length
 * (0: none, cursor unchanged) and its start in *s. */
size_t npk_cur_ident(npk_cur *c, const char **s);
/* A run of characters up to a blank or comma (e.g. `1100` for .pathway); length, start. */
size_t npk_cur_word(npk_cur *c, const char **s);
/* Consume identifier `kw` (case-insensitive, whole identifier) if it is next. */
bool npk_cur_keyword(npk_cur *c, const char *kw);
/* Case-insensitive comparison of s[0..n) with a NUL-terminated literal. */
bool npk_eq_nocase(const char *s, size_t n, const char *lit);

/* ==== diagnostics =========================================================================== */

/* Report `file:line:col: error: message`, the source line and a caret under `at` (a pointer
 * into the current statement; NULL or outside it: the statement start), underlining `len`
 * characters (0: one). Errors return -1 so a parser can `return npk_asm_error(...)`. */
int npk_asm_error(npk_asm *a, const char *at, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
void npk_asm_warning(npk_asm *a, const char *at, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
unsigned npk_asm_errors(const npk_asm *a);       /* errors so far in this pass */

/* Expect the character ch next (error "expected 'ch'" otherwise). */
int npk_asm_expect(npk_asm *a, npk_cur *c, char ch);
/* Error "unexpected ..." unless the statement is finished. */
int npk_asm_end(npk_asm *a, npk_cur *c);

/* ==== expressions =========================================================================== */

/* Flags for npk_asm_expr_full. */
enum {
    NPK_EXPR_NO_FORWARD = 1u, /* every symbol must already be defined (layout directives) */
    NPK_EXPR_U64 = 2u         /* a lone literal 2^63 .. 2^64-1 is accepted (bits in value) */
};

typedef struct npk_expr {
    int64_t value;
    bool u64;         /* value holds the bits of an unsigned literal >= 2^63 */
    const char *at;   /* source span of the expression, for range diagnostics */
    size_t len;
} npk_expr;

/* Exact int64 expression: literals 42 0x2A 0b101 'c', symbols, `.`/`$` (current address,
 * when the target enables them), operators | ^ & << >> + - * / % unary - ~ +, parentheses.
 * Overflow, division by zero and shift counts outside 0..63 are errors. Returns 0 or -1. */
int npk_asm_expr(npk_asm *a, npk_cur *c, int64_t *v);
int npk_asm_expr_full(npk_asm *a, npk_cur *c, unsigned flags, npk_expr *e);
/* Range check of a parsed expression ("<what> <v> out of range (lo..hi)"). */
int npk_asm_check_range(npk_asm *a, const npk_expr *e, int64_t lo, int64_t hi,
                        const char *what);
/* Expression in lo..hi. */
int npk_asm_imm(npk_asm *a, npk_cur *c, int64_t lo, int64_t hi, const char *what,
                int64_t *v);

/* ==== floats, strings, wide hex ============================================================== */

/* Float literal: optional sign, then anything strtod accepts (decimal, exponent, hex-float,
 * integers), `inf`, `infinity`, `nan` (case-insensitive). *text and *len give the literal as
 * written (with its sign) so a target can convert it directly to a narrow format. */
int npk_asm_float(npk_asm *a, npk_cur *c, double *v, const char **text, size_t *len);
/* Float literal converted to `fmt` (an npk_fmt of src/num): by the target's float_bits hook
 * if it has one, else by src/num with round-to-nearest-even (a warning when a finite literal
 * overflows to infinity or a nonzero one becomes zero). */
int npk_asm_float_bits(npk_asm *a, npk_cur *c, npk_fmt fmt, uint64_t *bits);
/* "..." with escapes \n \t \r \0 \\ \" \' \a \b \f \v \xHH \ooo. *s points into the context's
 * scratch buffer, valid until the next call. */
int npk_asm_string(npk_asm *a, npk_cur *c, const char **s, size_t *len);
/* Hex digits (optional 0x) into a word of at most nbits bits (error if wider). */
int npk_asm_hexbits(npk_asm *a, npk_cur *c, uint64_t *w, size_t nw, unsigned nbits);

/* ==== operands =============================================================================== */

typedef struct npk_regalias {
    const char *name;
    unsigned num;
} npk_regalias;

/* A register class: `prefix` + decimal number 0..count-1 (case-insensitive, no leading zeros),
 * and/or aliases (ABI names). `names`, if given, are the canonical names used by the
 * disassembler (else prefix + number). */
typedef struct npk_regset {
    const char *prefix;
    unsigned count;
    const char *const *names;
    const npk_regalias *aliases;
    size_t n_aliases;
    const char *what;            /* "register", "vector register", ... for messages */
} npk_regset;

/* Match a whole identifier against a register class: 1 = register (num set; *range_err set
 * when the number exists syntactically but is >= count), 0 = not one. */
int npk_regset_match(const npk_regset *rs, const char *s, size_t n, unsigned *num,
                     bool *range_err);
/* Canonical name of register `num` into buf; returns buf. */
const char *npk_regset_name(const npk_regset *rs, unsigned num, char *buf, size_t n);

int npk_asm_reg(npk_asm *a, npk_cur *c, const npk_regset *rs, unsigned *num);
/* A register of any of nsets classes; *set = which one. */
int npk_asm_reg_any(npk_asm *a, npk_cur *c, const npk_regset *const *sets, size_t nsets,
                    size_t *set, unsigned *num);
/* Memory operand `expr(reg)` or `(reg)`; offset in lo..hi. */
int npk_asm_mem(npk_asm *a, npk_cur *c, const npk_regset *rs, int64_t lo, int64_t hi,
                int64_t *off, unsigned *reg);
/* PC-relative target: an expression giving an address; (target - pc) must be a multiple of
 * `align`; *enc = (target - pc) / scale must lie in lo..hi. */
int npk_asm_pcrel(npk_asm *a, npk_cur *c, uint64_t pc, unsigned align, unsigned scale,
                  int64_t lo, int64_t hi, int64_t *enc);

/* Mnemonic with dot-separated options (`vcvt_s8_f32.sat.rtz`): the longest dot-prefix that
 * is a known mnemonic wins; each remaining word must be an option, at most once, and at most
 * one option per nonzero group. */
#define NPK_ASM_MAX_OPTS 64
typedef struct npk_asm_opt {
    const char *name;            /* without the dot */
    unsigned group;              /* 0: independent; equal nonzero groups exclude each other */
} npk_asm_opt;

typedef struct npk_mnem {
    int index;                   /* into the mnemonic table */
    const char *at;              /* the whole word as written */
    size_t len, base_len;        /* whole word, mnemonic part */
    uint64_t opts;               /* bit i: option i given */
    const char *opt_at[NPK_ASM_MAX_OPTS];
    size_t opt_len[NPK_ASM_MAX_OPTS];
} npk_mnem;

int npk_asm_mnemonic(npk_asm *a, npk_cur *c, const char *const *names, size_t n,
                     const npk_asm_opt *opts, size_t nopts, npk_mnem *m);
/* Error for each given option not in `allowed` ("option '.x' is not allowed on 'y'"). */
int npk_asm_opts_allowed(npk_asm *a, const npk_mnem *m, uint64_t allowed,
                         const npk_asm_opt *opts, size_t nopts);

/* key=value operands and bare flag words, in any order. */
enum {
    NPK_KV_REQUIRED = 1u,        /* must be given (exactly once, like every key) */
    NPK_KV_FLAG = 2u             /* a bare word without value; present = 1 */
};
enum {
    NPK_KV_COMMAS = 0u,          /* items separated by commas */
    NPK_KV_BLANKS = 1u,          /* items separated by blanks */
    NPK_KV_STOP = 2u             /* stop (no error) at a word that is not a known key */
};
#define NPK_KV_MAX 64
typedef struct npk_kvspec {
    const char *key;
    unsigned flags;
    int64_t lo, hi;              /* value range (ignored for flags) */
} npk_kvspec;
typedef struct npk_kvres {
    uint64_t present;            /* bit i: spec[i] given */
    int64_t val[NPK_KV_MAX];     /* 0 when absent, 1 for a given flag */
    const char *at[NPK_KV_MAX];
} npk_kvres;
/* `mnem_at` locates "missing operand" errors (NULL: end of statement). */
int npk_asm_kvlist(npk_asm *a, npk_cur *c, const npk_kvspec *spec, size_t n, unsigned mode,
                   const char *mnem_at, npk_kvres *out);

/* ==== name index ============================================================================== */

/* An open-addressing hash index from names to positions in the caller's own table (symbol
 * tables of the engine, of a machine, of a target's tensors): lookups cost O(1) however many
 * names there are. The index keeps pointers to the names, so the caller keeps each name alive
 * and unchanged while it is in the index. Zero-initialise it; no globals. */
typedef struct npk_name_slot {
    const char *name;            /* NULL: empty */
    size_t len;
    uint64_t hash;
    size_t value;
} npk_name_slot;
typedef struct npk_name_index {
    npk_name_slot *slot;
    size_t cap, n;               /* cap: 0 or a power of two, always > 2 * n */
} npk_name_index;

uint64_t npk_name_hash(const char *s, size_t len);
/* The value stored for s[0..len), or false. */
bool npk_name_find(const npk_name_index *x, const char *s, size_t len, size_t *value);
/* Store value for the name (replacing the value of an equal name). -1: out of memory (the
 * index is unchanged). */
int npk_name_put(npk_name_index *x, const char *s, size_t len, size_t value);
/* Forget every name (the memory is kept for reuse), or release it all. */
void npk_name_clear(npk_name_index *x);
void npk_name_free(npk_name_index *x);

/* ==== symbols, output spaces ================================================================= */

enum { NPK_SYM_LABEL = 1, NPK_SYM_EQU = 2 };

/* Define a symbol (error on redefinition or a reserved name). `at` locates diagnostics. */
int npk_asm_define(npk_asm *a, const char *name, size_t len, int64_t value, int kind,
                   const char *at);
/* Value of a symbol defined so far (this or an earlier pass); false if it has none. */
bool npk_asm_symbol(const npk_asm *a, const char *name, size_t len, int64_t *value);

/* Output spaces: byte-addressed images (program memory, host DDR, L2, ...). Each has its own
 * cursor; labels and data directives use the current space. Space 0 is current at the start
 * of every pass. */
typedef struct npk_asm_space_def {
    const char *name;
    uint64_t base;               /* lowest address */
    uint64_t limit;              /* size limit in bytes (0: 16 MiB); output past it is one
                                    error, however many statements lie beyond */
} npk_asm_space_def;

int npk_asm_space_find(const npk_asm *a, const char *name);
int npk_asm_space_select(npk_asm *a, int space);   /* returns the previous space */
int npk_asm_space_current(const npk_asm *a);
uint64_t npk_asm_pc(const npk_asm *a);             /* cursor of the current space */
int npk_asm_set_pc(npk_asm *a, uint64_t addr);     /* .org; must lie in the space */
/* Emit at the cursor of the current space and advance it. Writing a byte twice in one pass
 * is an error (overlapping output). */
int npk_asm_emit(npk_asm *a, const void *bytes, size_t n);
int npk_asm_emit_le(npk_asm *a, uint64_t v, unsigned nbytes);
int npk_asm_emit_bits(npk_asm *a, const uint64_t *w, size_t nw, unsigned nbytes);
int npk_asm_emit_fill(npk_asm *a, uint8_t byte, uint64_t n);

/* ==== targets ================================================================================ */

typedef struct npk_asm_dir npk_asm_dir;
typedef int (*npk_asm_dir_fn)(npk_asm *a, npk_cur *c, const npk_asm_dir *d);
struct npk_asm_dir {
    const char *name;            /* with the dot, matched case-insensitively */
    npk_asm_dir_fn fn;
    int arg;                     /* handler parameter (byte width, format, ...) */
};

/* Generic directive handlers a target can list under any name. */
int npk_asm_dir_equ(npk_asm *a, npk_cur *c, const npk_asm_dir *d);     /* NAME, expr */
int npk_asm_dir_include(npk_asm *a, npk_cur *c, const npk_asm_dir *d); /* "file" */
int npk_asm_dir_int(npk_asm *a, npk_cur *c, const npk_asm_dir *d);     /* arg = 1,2,4,8 */
int npk_asm_dir_space(npk_asm *a, npk_cur *c, const npk_asm_dir *d);   /* N [, fill] */
int npk_asm_dir_align(npk_asm *a, npk_cur *c, const npk_asm_dir *d);   /* arg NPK_ALIGN_* */
int npk_asm_dir_org(npk_asm *a, npk_cur *c, const npk_asm_dir *d);     /* address */
int npk_asm_dir_ascii(npk_asm *a, npk_cur *c, const npk_asm_dir *d);   /* arg 1: add NUL */
int npk_asm_dir_float(npk_asm *a, npk_cur *c, const npk_asm_dir *d);   /* arg = npk_fmt */
/* `.target NAME`: NAME must be this target; only as the first statement. */
int npk_asm_dir_target(npk_asm *a, npk_cur *c, const npk_asm_dir *d);
enum { NPK_ALIGN_BYTES = 0, NPK_ALIGN_POW2 = 1 };

/* Target flags. */
enum {
    NPK_ASM_LABELS = 1u,         /* `name:` defines a label (else it is an error) */
    NPK_ASM_NO_FORWARD = 2u,     /* symbols must be defined before use */
    NPK_ASM_PC_DOT = 4u,         /* `.` in an expression is the current address */
    NPK_ASM_PC_DOLLAR = 8u,      /* `$` likewise */
    NPK_ASM_EXACT_DIV = 16u      /* `/` must divide exactly */
};

typedef struct npk_asm_target {
    const char *name;            /* used in messages */
    const char *comment_chars;   /* each starts a comment to end of line, e.g. "#;" */
    unsigned flags;
    const npk_asm_dir *dirs;     /* the directives this target accepts */
    size_t n_dirs;
    const npk_asm_space_def *spaces; /* NULL: one space "mem" at 0 */
    size_t n_spaces;
    unsigned list_word_bytes;    /* grouping of bytes in listings (0: 4) */
    /* A statement that is not a label or directive. Parse from c, emit, return 0 or -1
     * (after reporting). On success the engine checks that nothing is left on the line. */
    int (*statement)(npk_asm *a, npk_cur *c);
    /* Why `name` cannot be a symbol ("a register name", "a mnemonic"), or NULL. */
    const char *(*reserved)(npk_asm *a, const char *name, size_t len);
    /* Convert a float literal (text as written, and strtod's value) to format fmt; NULL:
     * src/num's conversion with round-to-nearest-even. */
    int (*float_bits)(npk_asm *a, const char *text, size_t len, double value, npk_fmt fmt,
                      uint64_t *bits);
    int (*begin_pass)(npk_asm *a);   /* reset per-pass target state */
    int (*end_pass)(npk_asm *a);     /* checks at end of input (unclosed blocks, counts) */
} npk_asm_target;

void *npk_asm_user(const npk_asm *a);              /* the `user` given to npk_asm_run */
const npk_asm_target *npk_asm_target_of(const npk_asm *a);
unsigned npk_asm_pass(const npk_asm *a);           /* 1, 2, ...; the last one counts */
/* Where the current statement is ("file", line), e.g. to name an unclosed block later; the
 * file name is valid during the run only (copy it). */
const char *npk_asm_file(const npk_asm *a);
unsigned npk_asm_line(const npk_asm *a);

/* ==== running ================================================================================ */

typedef struct npk_asm_opts {
    FILE *diag;                  /* diagnostics (NULL: kept only in the result) */
    FILE *listing;               /* address, bytes and source of every line, or NULL */
    unsigned max_errors;         /* show at most this many errors (0: 50); all are counted */
    unsigned max_include_depth;  /* 0: 16 */
    /* The size limit of output space 0 in bytes, replacing the target's (0: the target's),
     * for a target whose program space follows a setting (rvnpu's ram_size); space0_hint,
     * if set, is added to the message when the output outgrows it ("set ram_size=SIZE"). */
    uint64_t space0_limit;
    const char *space0_hint;
    /* Read a whole file (for .include and npk_asm_run_file); NULL: npk_file_read, the reader
     * of every npukit input (FIFOs waited for 2 s, devices refused). Return 0 and a
     * malloc'ed buffer, or -1. */
    int (*read_file)(void *ctx, const char *path, char **text, size_t *len);
    void *read_ctx;
} npk_asm_opts;

/* A NUL byte cannot be part of assembly source. The engine rejects one inside the `len`
 * bytes it is given (the main text and every .include); text handed on as a C string (the
 * public npk_load_asm/npk_assemble) would end at it silently, so whoever reads a source file
 * and knows its size checks it with this first. Returns 0, or -1 after writing
 * "name:line:col: error: NUL byte in source", the line and a caret to diag (if non-NULL). */
int npk_asm_check_nul(const char *text, size_t len, const char *name, FILE *diag);

/* Assemble `len` bytes of source named `name` (diagnostics, .include base). Returns NULL
 * only when out of memory; check npk_asm_result_errors. */
/* For a target's assemble call: 0 with *out = r when the run had no errors; otherwise frees
 * r and returns its error count, or 1 (after saying so on diag) when r is NULL, i.e. the
 * run ran out of memory. `name` is used in that message. */
int npk_asm_result_check(npk_asm_result *r, const char *name, FILE *diag,
                         npk_asm_result **out);
npk_asm_result *npk_asm_run(const npk_asm_target *t, void *user, const char *source,
                            size_t len, const char *name, const npk_asm_opts *opts);
npk_asm_result *npk_asm_run_file(const npk_asm_target *t, void *user, const char *path,
                                 const npk_asm_opts *opts);

unsigned npk_asm_result_errors(const npk_asm_result *r);
unsigned npk_asm_result_warnings(const npk_asm_result *r);
const char *npk_asm_result_diag(const npk_asm_result *r);   /* all diagnostics as text */
size_t npk_asm_result_spaces(const npk_asm_result *r);
/* Image of space i: bytes from `base` up to the highest address reached. */
const uint8_t *npk_asm_result_image(const npk_asm_result *r, size_t i, size_t *size,
                                    uint64_t *base, const char **name);
size_t npk_asm_result_symbols(const npk_asm_result *r);
const char *npk_asm_result_symbol(const npk_asm_result *r, size_t i, int64_t *value,
                                  int *kind);
bool npk_asm_result_lookup(const npk_asm_result *r, const char *name, int64_t *value);
/* The first label (in definition order) whose value is addr, or NULL. */
const char *npk_asm_result_label_at(const npk_asm_result *r, int64_t addr);
void npk_asm_result_free(npk_asm_result *r);

/* ==== disassembly ============================================================================ */

/* A bounded text builder with snprintf semantics (the full length is always counted). */
typedef struct npk_dis {
    char *buf;
    size_t n, len;
    unsigned operands;           /* operands written so far */
} npk_dis;

void npk_dis_init(npk_dis *d, char *buf, size_t n);
void npk_dis_printf(npk_dis *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void npk_dis_puts(npk_dis *d, const char *s);
void npk_dis_opt(npk_dis *d, const char *opt);          /* ".opt" */
void npk_dis_sep(npk_dis *d);                           /* " " before the first operand,
                                                           ", " before the others */
void npk_dis_reg(npk_dis *d, const npk_regset *rs, unsigned num);
void npk_dis_int(npk_dis *d, int64_t v);                /* signed decimal */
void npk_dis_hex(npk_dis *d, int64_t v);                /* 0x.., -0x.. if negative */
void npk_dis_mem(npk_dis *d, const npk_regset *rs, int64_t off, unsigned reg);
void npk_dis_kv(npk_dis *d, const char *key, int64_t v, bool hex);
/* A code address: the name of a label of `syms` at that address if there is one (for
 * listings of an assembled program), else npk_dis_hex. syms may be NULL. */
void npk_dis_addr(npk_dis *d, int64_t addr, const npk_asm_result *syms);
/* `.word 0x<ceil(nbits/4) digits>` then, if why is non-NULL, two blanks, the comment
 * character, a blank and `why` (e.g. "  # illegal: unknown opcode"). */
void npk_dis_word(npk_dis *d, const uint64_t *w, size_t nw, unsigned nbits, char comment,
                  const char *why);
int npk_dis_done(const npk_dis *d);                     /* full length */

#ifdef __cplusplus
}
#endif
#endif
