/* pccx: the tables of isa.def as data, and the word-level services built on them: field access,
 * encoding with fit checks, decoding, the §4.8 validity rules in both modes, canonical
 * disassembly and statistics names. Shared by the assembler, the machine and the docs. */
#ifndef NPK_PCCX_ISA_H
#define NPK_PCCX_ISA_H

#include <stddef.h>
#include <stdint.h>

#include "npukit/pccx.h"

typedef enum pccx_layout { PCCX_L_GEMX, PCCX_L_MEMCPY, PCCX_L_MEMSET, PCCX_L_CVO,
                           PCCX_N_LAYOUTS } pccx_layout;

typedef enum pccx_field_id {
#define PCCX_FIELD(layout, id, key, lsb, width, member, print, summary) PCCX_F_##id,
#include "targets/pccx/isa.def"
    PCCX_N_FIELDS,
    PCCX_F_NONE = -1
} pccx_field_id;

typedef enum pccx_print { PCCX_P_HEX, PCCX_P_DEC, PCCX_P_FLAGS, PCCX_P_BANK, PCCX_P_ROUTE,
                          PCCX_P_FUNC, PCCX_P_ASYNC, PCCX_P_RES } pccx_print;

typedef enum pccx_shape { PCCX_S_UNARY, PCCX_S_SCALAR, PCCX_S_REDUCE, PCCX_S_BINARY } pccx_shape;

typedef enum pccx_route { PCCX_R_H2L, PCCX_R_L2H, PCCX_R_L2L, PCCX_R_H2H, PCCX_N_ROUTES } pccx_route;

typedef struct pccx_op_info {
    const char *mnemonic;
    unsigned opcode;
    pccx_layout layout;
    int engine;
    const char *summary;
} pccx_op_info;

typedef struct pccx_field_info {
    pccx_layout layout;
    const char *key;
    unsigned lsb, width;
    pccx_print print;
    const char *summary;
} pccx_field_info;

typedef struct pccx_flag_info {
    pccx_layout layout;
    const char *name;
    unsigned mask;
    const char *summary;
} pccx_flag_info;

typedef struct pccx_cvo_info {
    const char *mnemonic;
    unsigned code;
    int ext;
    pccx_shape shape;
    const char *summary;
} pccx_cvo_info;

typedef struct pccx_route_info {
    unsigned from, to;
    const char *suffix;
    int zero_field;          /* pccx_field_id or PCCX_F_NONE */
    const char *summary;
} pccx_route_info;

#define PCCX_N_OPS 5
#define PCCX_N_FLAGS 6
extern const pccx_op_info pccx_ops[PCCX_N_OPS];          /* by opcode */
extern const pccx_field_info pccx_fields[PCCX_N_FIELDS];
extern const pccx_flag_info pccx_flags[PCCX_N_FLAGS];
extern const pccx_cvo_info pccx_cvos[PCCX_N_CVO_FUNCS];  /* by code */
extern const pccx_route_info pccx_routes[PCCX_N_ROUTES];
extern const char *const pccx_layout_names[PCCX_N_LAYOUTS];
#define PCCX_N_BANKS 2
extern const char *const pccx_bank_names[PCCX_N_BANKS];       /* by dest_cache value */
extern const char *const pccx_engine_names[PCCX_N_ENGINES];

/* Statistics names: gemv, gemm, memcpy.h2l, memcpy.l2h, memcpy.l2l, memset, the 15 CVO
 * functions, then "dropped" (hw-compat). */
#define PCCX_N_MNEMONICS (2 + 3 + 1 + PCCX_N_CVO_FUNCS + 1)
extern const char *const pccx_mnemonic_names[PCCX_N_MNEMONICS];
/* Index into pccx_mnemonic_names of a decoded legal instruction. */
unsigned pccx_mnemonic_id(const pccx_insn_t *d);

/* Field value in / out of a decoded instruction (reserved fields: the reserved_bits member). */
uint64_t pccx_field_get(const pccx_insn_t *d, pccx_field_id f);
void pccx_field_set(pccx_insn_t *d, pccx_field_id f, uint64_t v);

/* Every field of the opcode's layout from word w (no checks); opcode 5..15: opcode only. */
void pccx_unpack(uint64_t w, pccx_insn_t *d);
/* Word from d->opcode and the fields of its layout. A value that does not fit its field is
 * PCCX_E_ARG and *why (if non-NULL) names the field. Reserved fields are taken from
 * d->reserved_bits (word positions) so that tests can build any word. */
int pccx_encode(const pccx_insn_t *d, uint64_t *w, const char **why);
/* The route of a MEMCPY. */
pccx_route pccx_route_of(const pccx_insn_t *d);
/* Must-be-zero bits of w that are set (route-dependent for MEMCPY; not the flags). */
uint64_t pccx_reserved_bits(const pccx_insn_t *d);

/* §4.8 in strict mode: PCCX_OK or the first applicable error. */
int pccx_validity(const pccx_insn_t *d, int ext);
/* §4.8 as the machine applies it. strict: as pccx_validity, *eff = *d. hw-compat: *dropped
 * set when a "dropped" row applies; otherwise every "ignored" row is applied to *eff (the bits
 * read as zero) and only E_ROUTE is an error. *why (if non-NULL) describes the first
 * applicable row ("reserved opcode 0x7", "reserved bits 0x5 set", ...). */
int pccx_effective(const pccx_insn_t *d, int ext, int hw_compat, pccx_insn_t *eff,
                   int *dropped, char *why, size_t why_len);

/* Names of the bits in a flags field value ("findemax, accm"), for messages. */
const char *pccx_cvo_name(unsigned func);     /* "exp", ..., "?" */

#endif
