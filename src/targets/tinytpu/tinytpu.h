/* tinytpu: the program model shared by the word formats, the assembler/disassembler, the
 * machine and the schedule compiler (docs/spec/tinytpu.md Part B). A program is one record
 * per clock cycle: the logical fields of B2 (never a packed word), the learning-rate level in
 * force (B6) and whether the cycle is a reset cycle. Packed words exist only at the edges:
 * hex word files (w88, w94, w130, wfull) and the port stream. */
#ifndef NPK_TINYTPU_H
#define NPK_TINYTPU_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TT_MAX_N 256u            /* array size N: 2 .. TT_MAX_N (spec C2.1) */
#define TT_DEFAULT_N 2u
#define TT_DEFAULT_UB 128u       /* unified-buffer words (C3) */
#define TT_MAX_UB 65536u         /* the most unified-buffer words, N >= 3 (C3) */
#define TT_MAX_UB_N2 32768u      /* ... and for N = 2 (the weight walk's pointer is signed) */

/* Read channels (A7.1); sel 7 .. 511 select none. */
enum { TT_CH_INPUT, TT_CH_WEIGHT, TT_CH_BIAS, TT_CH_Y, TT_CH_H, TT_CH_GBIAS, TT_CH_GWEIGHT,
       TT_N_CHANNELS };
extern const char *const tt_channel_names[TT_N_CHANNELS]; /* input weight bias y h gbias gweight */

/* Pathway bits (A9.1). */
enum { TT_PW_DERIV = 1, TT_PW_LOSS = 2, TT_PW_LRELU = 4, TT_PW_BIAS = 8 };

/* Host writes of one cycle: lane and value, in a program-wide array (most cycles have none). */
typedef struct tt_hostw {
    uint16_t lane, value;
} tt_hostw;

/* One clock cycle (B2 + B6). Field widths are the port widths: sel 9 bits, addr/rows/cols 16,
 * pathway 4; narrower word formats zero-extend. */
typedef struct tt_cycle {
    uint8_t rst;                 /* reset cycle (A11): every other field is ignored */
    uint8_t sw, start, T;
    uint8_t pathway;
    uint16_t sel, addr, rows, cols;
    uint16_t inv, leak;          /* levels (Q8.8) */
    uint16_t lr;                 /* learning-rate level in force (machine setting, B6) */
    uint16_t n_host;             /* host writes this cycle: hw[host .. host + n_host - 1] */
    uint32_t host;
    uint32_t line;               /* source line (assembly), 0 if none: for diagnostics */
} tt_cycle;

typedef struct tt_program {
    unsigned N;                  /* lanes the program was made for */
    size_t n, cap;               /* cycles */
    tt_cycle *c;
    size_t n_hw, cap_hw;
    tt_hostw *hw;
} tt_program;

void tt_program_init(tt_program *p, unsigned N);
void tt_program_free(tt_program *p);
/* Append a cycle (and its host writes, n_host of them). Returns 0, or -1 when out of memory.
 * c->host is set by the call. */
int tt_program_add(tt_program *p, const tt_cycle *c, const tt_hostw *hw, unsigned n_host);

/* ---- word formats (B3 .. B7) ---------------------------------------------------------------
 * Every packed format is described by fields.def; encoders, decoders, the field limits the
 * assembler checks and the generated docs come from it. */
typedef enum tt_format {
    TT_FMT_W88, TT_FMT_W94, TT_FMT_W130, TT_FMT_WFULL, /* hex word files (B7.1) */
    TT_FMT_PORT,                                        /* port stream (B7.2) */
    TT_FMT_ASM,                                         /* assembly (B7.3) */
    TT_N_FORMATS
} tt_format;
extern const char *const tt_format_names[TT_N_FORMATS]; /* w88 w94 w130 wfull port asm */

/* Bits of a packed word of this format for N lanes (w88/w94/w130 need N = 2). */
unsigned tt_format_bits(tt_format f, unsigned N);

/* A packed word: bit b is bit (b % 64) of w[b / 64]. 96 + 17 * 256 bits at most. */
#define TT_WORD_U64 70u
typedef struct tt_packed {
    uint64_t w[TT_WORD_U64];
} tt_packed;

/* Encode cycle c (host writes hw) as a packed word of format f for N lanes. Fails (returns -1,
 * message in err naming the field, its value and the format's limit) when a field does not fit,
 * for example addr 37 in w88. Reset cycles and lr are not encodable in words (B6): the caller
 * carries them as settings. */
int tt_encode(tt_format f, unsigned N, const tt_cycle *c, const tt_hostw *hw, tt_packed *out,
              char *err, size_t err_size);
/* Decode a packed word into a cycle (rst 0, lr 0, line 0) and its host writes (hw must hold N
 * entries; *n_host receives the count). */
void tt_decode(tt_format f, unsigned N, const tt_packed *in, tt_cycle *c, tt_hostw *hw,
               unsigned *n_host);

/* The logical fields of a word, in word order (fields.def). */
enum {
#define TT_FIELD(id, name, port, lanes, l88, w88, l94, w94, l130, w130, meaning) TT_F_##id,
#include "targets/tinytpu/fields.def"
    TT_N_FIELDS
};
typedef struct tt_field_info {
    const char *name;
    unsigned port;               /* width at the port */
    unsigned lanes;              /* 1: one field per lane */
    unsigned lsb[3], width[3];   /* in w88, w94, w130 (lane 0) */
    const char *meaning;
} tt_field_info;
extern const tt_field_info tt_fields[TT_N_FIELDS];
/* Position of field f (lane `lane`) in packed format fmt for N lanes: 0, or -1 when the format
 * does not exist for N (w88/w94/w130 need N = 2) or has no such lane. */
int tt_field_pos(tt_format fmt, unsigned N, unsigned f, unsigned lane, unsigned *lsb,
                 unsigned *width);
/* Read a hex word file (fmt TT_FMT_W88 .. TT_FMT_WFULL) or a port stream (TT_FMT_PORT) into p;
 * tt_assemble does this for those formats. Hex words get lr = lr0 and no reset cycles, except
 * where the file declares them (the comments tt_write_words writes, docs/tinytpu-words.md):
 * `# cycle K: lr 0xHHHH` sets lr from cycle K on, `# cycle K: reset cycle` makes cycle K a reset
 * cycle, and a `# tinytpu FMT words ..., N = n` header must match fmt and N. */
int tt_read_words(const char *src, const char *name, tt_format fmt, unsigned N, uint16_t lr0,
                  tt_program *p, FILE *diag);
/* What format a program text is in, for readers that were not told (spec B7.1 leaves it to the
 * CLI; npukit looks): the header `# tinytpu FMT words` that tt_write_words writes (returns 1,
 * *line = its line), else the first line that is not blank or a comment: exactly as many hex
 * digits as a w88, w94 or wfull word for N lanes (w130 = wfull for N = 2), or 12 + 2N hex fields
 * (the port stream) (returns 2, *line = that line); otherwise assembly (returns 0, TT_FMT_ASM).
 * No assembly line looks like either. */
int tt_detect_format(const char *src, unsigned N, tt_format *fmt, unsigned *line);
/* As tt_read_words, at most max_cycles cycles (0: TT_DEFAULT_MAX_CYCLES); a longer file is one
 * error, at the first cycle too many. */
int tt_read_words_max(const char *src, const char *name, tt_format fmt, unsigned N, uint16_t lr0,
                      uint32_t max_cycles, tt_program *p, FILE *diag);
/* tt_read_words_max reads a clean text (every line a word, a comment or a declaration that
 * applies) with a fast scanner of its own, and any other text with the assembler engine, which
 * reports the errors. This one always uses the engine: for the tests that compare the two. */
int tt_read_words_engine(const char *src, const char *name, tt_format fmt, unsigned N,
                         uint16_t lr0, uint32_t max_cycles, tt_program *p, FILE *diag);
/* As tt_read_words_max with a given scanner of port lines in the fast reader: 0 its portable C
 * copy, 1 SSE2, 2 AVX2 (N = 2); the best the host has up to that one. For the tests that
 * compare them (tt_read_words_max takes the best). */
int tt_read_words_scan(const char *src, const char *name, tt_format fmt, unsigned N,
                       uint16_t lr0, uint32_t max_cycles, int scanner, tt_program *p,
                       FILE *diag);
/* A word file read as a stream (the machine's stream=1): the fast reader over a buffer of
 * buf_size bytes, one buffer's whole lines at a time. Open takes the file descriptor (closed by
 * tt_word_stream_close); NULL for a format that is not a word format for N, or out of memory.
 * tt_word_stream_read empties p and reads the next cycles into it: their count, 0 at the end
 * of the file, -1 at a line the fast reader leaves to the engine (an error, a line longer than
 * the buffer, bytes other than text: tt_read_words says what it is) or a read error; cycle
 * records keep their file line. tt_word_stream_rewind goes back to the start (0, or -1). */
typedef struct tt_word_stream tt_word_stream;
tt_word_stream *tt_word_stream_open(int fd, tt_format fmt, unsigned N, uint16_t lr0,
                                    uint32_t max_cycles, size_t buf_size);
long tt_word_stream_read(tt_word_stream *ws, tt_program *p);
/* Read the rest of the file checking it and counting its cycles, keeping none (then rewind):
 * 0 with the count, or -1 as tt_word_stream_read. */
int tt_word_stream_count(tt_word_stream *ws, uint64_t *n);
int tt_word_stream_rewind(tt_word_stream *ws);
void tt_word_stream_close(tt_word_stream *ws);
/* Cycle k of p as one word of format f (hex digits of a packed format, or the port stream's
 * fields; `reset` for a reset cycle in a packed format), left-aligned in `width` columns, no
 * newline. tt_cycle_text_width: the width of one word of f for N lanes. */
void tt_cycle_text(const tt_program *p, size_t k, tt_format f, int width, FILE *out);
size_t tt_cycle_text_width(tt_format f, unsigned N);
/* Write p as a hex word file or port stream (tt_write_program does this for those formats). */
int tt_write_words(const tt_program *p, tt_format fmt, FILE *out, char *err, size_t err_size);

/* ---- assembler, disassembler, text formats (asm.c, words.c; docs/tinytpu-words.md) ----------
 * Assembly (B7.3) is format-independent: a field that a packed format cannot hold is caught when
 * that format is written (tt_write_program / tt_encode name the cycle and its source line), or
 * already at assembly time, with file:line:col, when the source says `.format w88|w94|w130|wfull`
 * or the caller passes a check format to tt_assemble_for. Q8.8 values in assembly are `0x...`
 * (raw bits, at most 0xFFFF) or decimals with a point (`0.75`, `-1.5`, A3 conversion); a bare
 * integer other than 0 is an error (it could mean either). Disassembly assumes lr0 = 0. */

/* Assemble `src` (file name `name` for diagnostics) in format fmt (TT_FMT_ASM, a hex format, or
 * TT_FMT_PORT) for N lanes into p (initialised by the caller with tt_program_init(p, N); cycles
 * are appended). lr0 is the learning-rate setting before cycle 1 (B6). Diagnostics go to diag
 * (may be NULL) as "file:line:col: error: message" + source line + caret; returns the number of
 * errors (0 = ok; p then holds the program, otherwise p is left empty). */
int tt_assemble(const char *src, const char *name, tt_format fmt, unsigned N, uint16_t lr0,
                tt_program *p, FILE *diag);
/* As tt_assemble, and every cycle must also fit the packed format `check` (TT_FMT_W88 ..
 * TT_FMT_WFULL; TT_FMT_ASM or TT_FMT_PORT: no check), reported at the field's file:line:col. */
int tt_assemble_for(const char *src, const char *name, tt_format fmt, unsigned N, uint16_t lr0,
                    tt_format check, tt_program *p, FILE *diag);
/* Every option of a text reader. */
typedef struct tt_asm_opts {
    tt_format check;       /* as tt_assemble_for (TT_FMT_ASM: no check) */
    uint32_t max_cycles;   /* longest program (0: TT_DEFAULT_MAX_CYCLES), reported once */
    FILE *listing;         /* assembly only: tt_listing's listing of this run, or NULL */
    tt_format list_words;  /* the word the listing shows per cycle (a packed format or port) */
} tt_asm_opts;
int tt_assemble_opts(const char *src, const char *name, tt_format fmt, unsigned N, uint16_t lr0,
                     const tt_asm_opts *o, tt_program *p, FILE *diag);
/* Write program p in format fmt to out (assembly text, hex words or port stream). Returns 0, or
 * -1 with a message in err (a field that does not fit the format names the cycle and its source
 * line). Hex formats: a reset cycle is written as an all-zero word preceded by a `# cycle k:
 * reset` comment (it needs --reset-at k), and changes of lr are noted the same way. */
int tt_write_program(const tt_program *p, tt_format fmt, FILE *out, char *err, size_t err_size);
/* Print the assembly listing (spec B7.3): each source line with its cycle number(s) (`12`,
 * `5-11`; `*` marks a cycle whose read issues, A7.8; `5-8 idle, 9*` for an @9 line after cycle
 * 4), the word of its (last) cycle in format `words` (a packed format or port; `reset` for a
 * reset cycle) and the line. Returns the number of errors, like tt_assemble. */
int tt_listing(const char *src, const char *name, unsigned N, uint16_t lr0, tt_format words,
               FILE *out, FILE *diag);
/* Q8.8 from text: "0x00C0" raw bits or a decimal with a point ("0.75", "-1.5", ".5"), exact A3
 * rounding (ties to even) then saturation; "0" is also accepted. Returns 0, or -1 (not a Q8.8
 * value; a bare integer other than 0 is refused). */
int tt_parse_q88(const char *s, size_t len, uint16_t *out);
/* The same conversion where a bare integer is a value (settings such as lr=1, the compiler's
 * description files): "3" is 3.0. */
int tt_parse_q88_value(const char *s, size_t len, uint16_t *out);
/* One cycle as one line (the disassembly in commit records, docs/commit-log.md): its clauses
 * as assembly writes them, or `nop`, then ` ; pathway=PPPP leak=0x.... inv=0x....` and, for a
 * word with start = 0 whose read fields are not all zero, those fields. hw: its c->n_host
 * host writes. snprintf-like: writes at most n bytes, returns the full length. */
int tt_cycle_line(const tt_cycle *c, const tt_hostw *hw, char *out, size_t n);
/* Does cycle cur issue a read (A7.8)? prev is the cycle before it, or NULL before cycle 1; reset
 * cycles count as F = 0 (and never issue). */
int tt_read_issues(const tt_cycle *prev, const tt_cycle *cur);
/* Programs equal cycle by cycle (every field except `line`, host writes in order). */
int tt_program_equal(const tt_program *a, const tt_program *b);
/* The format named `name` (w88 w94 w130 wfull port asm), or -1. */
int tt_format_find(const char *name);
/* Longest program the text readers accept by default (cycles): `nop 4000000000` is one error,
 * not 128 GB of cycle records (32 bytes each, plus host writes). The machine's max_cycles
 * setting (1 .. TT_MAX_CYCLES_LIMIT) changes it; the compiler's programs are bounded by the UB. */
#define TT_DEFAULT_MAX_CYCLES (1u << 24)
#define TT_MAX_CYCLES_LIMIT (1u << 30)

#endif
