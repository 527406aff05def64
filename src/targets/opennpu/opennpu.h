/* opennpu: internal declarations shared by the target's files (docs/spec/opennpu.md).
 * Every instruction fact comes from isa.def. Two parts:
 *   - the ISA front end (isa.c, decode.c, asm.c, isadoc.c): tables, decoding with the §4.5
 *     legality rules, assembler, disassembler;
 *   - the machine (machine.c, exec.c, timing.c): configuration, state, semantics (§5), traps
 *     (§6.2) and the tick model (§6.3).
 * The interface between them is onpu_decoded, onpu_decode() and the tables below. */
#ifndef NPK_OPENNPU_H
#define NPK_OPENNPU_H

#include <stddef.h>
#include <stdint.h>

#include "core/target.h"

typedef enum onpu_op {
#define ONPU_INSN(id, mnemonic, match, mask, format, operands, options, unit, latency, summary) \
    ONPU_OP_##id,
#include "targets/opennpu/isa.def"
    ONPU_N_OPS,
    ONPU_OP_ILLEGAL = ONPU_N_OPS
} onpu_op;

/* Tokens of isa.def's columns. */
typedef enum onpu_fmt { ONPU_FMT_N, ONPU_FMT_R, ONPU_FMT_RC, ONPU_FMT_I, ONPU_FMT_S } onpu_fmt;
typedef enum onpu_unit { ONPU_U_NONE, ONPU_U_VALU, ONPU_U_MMA, ONPU_U_MEM, ONPU_N_UNITS } onpu_unit;
/* latency column: 1 or 2 ticks, or one of these */
enum { ONPU_LAT_MEM = 0x100, ONPU_LAT_DRAIN = 0x101 };
#define ONPU_LAT_1 1
#define ONPU_LAT_2 2

/* Register classes (funct7.width codes): VX 8-bit lanes, VE 16, VR 32. */
typedef enum onpu_class { ONPU_VX = 0, ONPU_VE = 1, ONPU_VR = 2 } onpu_class;

typedef struct onpu_insn_info {
    const char *mnemonic;
    uint32_t match, mask;
    onpu_fmt fmt;
    const char *operands; /* isa.def operand kinds */
    const char *options;  /* isa.def option names */
    onpu_unit unit;
    unsigned latency;     /* 1, 2, ONPU_LAT_MEM or ONPU_LAT_DRAIN */
    const char *summary;
} onpu_insn_info;

extern const onpu_insn_info onpu_insns[ONPU_N_OPS];
extern const char *const onpu_mnemonics[ONPU_N_OPS];
extern const char *const onpu_unit_names[ONPU_N_UNITS];

/* VALU_CVT format codes (§5.6.1): name, lane bits, register class; codes 6 and 7 reserved. */
typedef struct onpu_cvt_fmt {
    const char *name;
    unsigned bits;
    onpu_class cls;
} onpu_cvt_fmt;
extern const onpu_cvt_fmt onpu_cvt_fmts[6];

/* LD/ST rows (isa.def ONPU_MEM): is_mem 0 for every other row. */
typedef struct onpu_mem_shape {
    uint8_t is_mem, store, vector;
} onpu_mem_shape;
extern const onpu_mem_shape onpu_mem_shapes[];

/* ---- configuration (§2) ---------------------------------------------------------------------- */

typedef struct onpu_cfg {
    unsigned L;             /* VX registers: multiple of 4, 4..32 */
    unsigned K;             /* lanes; power of two 4..64 */
    uint64_t mem_size;      /* data memory bytes, 1..2^32 */
    unsigned mem_latency;   /* LD/ST latency in ticks, 1..65535 */
} onpu_cfg;

/* Register count of a class: L, L/2, L/4. */
static inline unsigned onpu_nregs(const onpu_cfg *c, onpu_class cls)
{
    return c->L >> cls;
}

/* ---- decoding (§4) ---------------------------------------------------------------------------- */

/* A decoded word. Register fields are already masked to their class (§4.4) and checked against
 * the configuration; fields an instruction does not use are 0. */
typedef struct onpu_decoded {
    uint16_t op;            /* onpu_op, or ONPU_OP_ILLEGAL */
    uint8_t cls;            /* onpu_class of the "w" operands (R format); for VALU_CVT the
                               destination's class */
    uint8_t src_cls;        /* VALU_CVT: the source's class; REDUCE: the source class (= cls) */
    uint8_t rd, rs1, rs2, rs3;
    uint8_t round;          /* 0 RNE, 1 RTZ, 2 floor, 3 ceil (funct7.round, CVT round, or rnd) */
    uint8_t sat, keep, var; /* var: 0 E4M3, 1 E5M2 */
    uint8_t cvt_dst, cvt_src; /* VALU_CVT format codes */
    int32_t imm;            /* sext12(word[31:20]) for I format */
    uint8_t mma_rd;         /* `mma` only: its rd field masked to VR (§4.4). The feed ignores it
                               (rd is 0 above) but its text shows it (§7.4), so the canonical
                               encoding keeps it. */
} onpu_decoded;

/* Decode w for configuration c. Returns 0 for a legal word. Otherwise -1, d->op =
 * ONPU_OP_ILLEGAL, and the first failing rule of §4.5 in why (if non-NULL), e.g.
 * "reserved opcode 0x7f", "reserved funct3 6 for LD", "illegal conversion s8 -> s16",
 * "reserved width 11", "register vr5 out of range (L/4 = 4)", "LUT segment 9 out of range
 * 0..7". The one place the legality rules live. */
int onpu_decode(uint32_t w, const onpu_cfg *c, onpu_decoded *d, char *why, size_t why_size);

/* Disassemble w for configuration c (§8) into out; returns the length written. Canonical legal
 * words print as instruction text; other legal words and illegal words as `.word 0x........`
 * with a comment. */
int onpu_disasm(uint32_t w, const onpu_cfg *c, char *out, size_t n);

/* Assemble source text for configuration c (§7). Errors and warnings go to diag as
 * file:line:col: messages; returns 0 on success with the words in *r (npk_asm_result from
 * src/asm: output space 0 is the program, little-endian words). */
struct npk_asm_result;
int onpu_assemble(const char *src, size_t len, const char *file, const onpu_cfg *c, FILE *diag,
                  struct npk_asm_result **r);
/* As onpu_assemble, with the engine's listing (address, words, line) written to `listing`. */
int onpu_assemble_list(const char *src, size_t len, const char *file, const onpu_cfg *c,
                       FILE *diag, FILE *listing, struct npk_asm_result **r);

/* ---- ISA front end: operand kinds and options of isa.def's rows (isa.c) ---------------------- */

/* isa.def's operand kinds, in this order (onpu_kind_names spells them as isa.def does). */
typedef enum onpu_kind {
    ONPU_K_WD, ONPU_K_WS1, ONPU_K_WS2, ONPU_K_VXD, ONPU_K_VXS1, ONPU_K_VXS2, ONPU_K_VED,
    ONPU_K_VRD, ONPU_K_VRS1, ONPU_K_VRS2, ONPU_K_VRS3, ONPU_K_CVTD, ONPU_K_CVTS, ONPU_K_MEM,
    ONPU_K_SEG, ONPU_K_IMM8, ONPU_K_IMM12, ONPU_N_KINDS
} onpu_kind;
#define ONPU_MAX_OPERANDS 4
extern const char *const onpu_kind_names[ONPU_N_KINDS];

/* Where an operand kind lives: its register field (0 rd [11:7], 1 rs1 [19:15], 2 rs2 [24:20],
 * 3 rs3 [31:27], -1 none), the register's class (ONPU_VX/VE/VR or one of ONPU_CLS_*), and
 * whether it is (or carries) the I-format immediate. */
enum { ONPU_CLS_WIDTH = -1, ONPU_CLS_CVT_DST = -2, ONPU_CLS_CVT_SRC = -3, ONPU_CLS_NONE = -4 };
typedef struct onpu_kind_info {
    int field;
    int cls;
    int imm;
} onpu_kind_info;
extern const onpu_kind_info onpu_kinds[ONPU_N_KINDS];
extern const unsigned onpu_field_lsb[4]; /* 7, 15, 20, 27 */

/* isa.def's option names as bits (onpu_option_names[i] is bit i). */
enum { ONPU_OPT_SAT = 1u, ONPU_OPT_KEEP = 2u, ONPU_OPT_ROUND = 4u, ONPU_OPT_VAR = 8u };
#define ONPU_N_OPTIONS 4
extern const char *const onpu_option_names[ONPU_N_OPTIONS];
/* Rounding mode names by code (§4.2): rne rtz floor ceil. */
extern const char *const onpu_round_names[4];
/* Register class prefixes by onpu_class: vx ve vr. */
extern const char *const onpu_class_names[3];

/* The register class of an operand of kind k in d, once d->cls and d->src_cls are set. */
static inline unsigned onpu_kind_class(onpu_kind k, const onpu_decoded *d)
{
    const int c = onpu_kinds[k].cls;
    return c == ONPU_CLS_WIDTH || c == ONPU_CLS_CVT_DST ? d->cls
           : c == ONPU_CLS_CVT_SRC                      ? d->src_cls
                                                        : (unsigned)c;
}

/* Register field f (0 rd, 1 rs1, 2 rs2, 3 rs3) of d. */
static inline uint8_t *onpu_reg(onpu_decoded *d, int f)
{
    return f == 0 ? &d->rd : f == 1 ? &d->rs1 : f == 2 ? &d->rs2 : &d->rs3;
}

/* The operand kinds of row op in assembly order; returns their count, or -1 if isa.def's list
 * is malformed (a test checks that no row's is). */
int onpu_operands(onpu_op op, onpu_kind out[ONPU_MAX_OPERANDS]);
/* The ONPU_OPT_* bits of row op's option list (0 if malformed). */
unsigned onpu_options(onpu_op op);

/* The canonical word (§4.6) of a decoded instruction: what the assembler emits for its
 * instruction text. A legal word w is canonical exactly when onpu_encode(decoded w) == w. */
uint32_t onpu_encode(const onpu_decoded *d);

#endif
