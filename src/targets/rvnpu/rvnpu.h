/* rvnpu: internal declarations of the CPU core shared by the target's files (isa tables,
 * decoder, execution, timing, CSRs, syscalls, machine). Every instruction fact comes from
 * isa.def; the NPU itself is npu.h. */
#ifndef NPK_RVNPU_H
#define NPK_RVNPU_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/target.h"
#include "targets/rvnpu/npu.h"
#include "targets/rvnpu/rvnpu_isa.h"

/* Memory map (spec §11.5). */
#define RVNPU_RAM_BASE 0x80000000u
#define RVNPU_UART_BASE 0x10000000u
#define RVNPU_UART_SIZE 8u
#define RVNPU_NPUREG_BASE 0x20000000u
#define RVNPU_NPUREG_SIZE 0x100u

/* Tokens of isa.def's format, class and rev columns. */
typedef enum rvnpu_fmt {
    RVNPU_FMT_R, RVNPU_FMT_R4, RVNPU_FMT_I, RVNPU_FMT_S, RVNPU_FMT_B, RVNPU_FMT_U, RVNPU_FMT_J,
    RVNPU_FMT_SYS
} rvnpu_fmt;
typedef enum rvnpu_class {
    RVNPU_CLASS_I, RVNPU_CLASS_M, RVNPU_CLASS_F, RVNPU_CLASS_ZICSR, RVNPU_CLASS_SYS,
    RVNPU_CLASS_NPU, RVNPU_CLASS_FNPU
} rvnpu_class;
typedef enum rvnpu_rev { RVNPU_REV_BOTH, RVNPU_REV_SEED, RVNPU_REV_REV2 } rvnpu_rev;

/* Operand kinds of isa.def's operand lists (names in rvnpu_kind_names). */
typedef enum rvnpu_kind {
    RVNPU_K_XD, RVNPU_K_XS1, RVNPU_K_XS2, RVNPU_K_FD, RVNPU_K_FS1, RVNPU_K_FS2, RVNPU_K_FS3,
    RVNPU_K_XCNT, RVNPU_K_VD, RVNPU_K_VS2, RVNPU_K_IMM12, RVNPU_K_SHAMT, RVNPU_K_UIMM20,
    RVNPU_K_PCREL13, RVNPU_K_PCREL21, RVNPU_K_CSR, RVNPU_K_ZIMM, RVNPU_K_MEM_I, RVNPU_K_MEM_S,
    RVNPU_K_RM, RVNPU_N_KINDS
} rvnpu_kind;

typedef struct rvnpu_insn_info {
    const char *mnemonic;
    uint32_t match, mask;
    rvnpu_fmt fmt;
    const char *operands;
    rvnpu_class cls;
    rvnpu_rev rev;
    unsigned elem;
    const char *summary;
} rvnpu_insn_info;

#define RVNPU_MAX_OPERANDS 6

extern const rvnpu_insn_info rvnpu_insns[RVNPU_N_OPS];
extern const char *const rvnpu_mnemonics[RVNPU_N_OPS];
extern const char *const rvnpu_kind_names[RVNPU_N_KINDS];
extern const char *const rvnpu_xnames[32];
extern const char *const rvnpu_fnames[32];
extern const char *const rvnpu_rm_names[8];

/* Operand kinds of row `op`; returns the count (-1: isa.def names an unknown kind). */
int rvnpu_operands(rvnpu_op op, rvnpu_kind *out);

/* Timing/statistics units. */
typedef enum rvnpu_unit {
    RVNPU_U_ALU, RVNPU_U_BRANCH, RVNPU_U_MUL, RVNPU_U_DIV, RVNPU_U_LSU, RVNPU_U_FPU,
    RVNPU_U_FDIV, RVNPU_U_NPU, RVNPU_U_FNPU, RVNPU_U_SYS, RVNPU_N_UNITS
} rvnpu_unit;
extern const char *const rvnpu_unit_names[RVNPU_N_UNITS];
rvnpu_unit rvnpu_unit_of(rvnpu_op op);

/* Counters reported with --stats (extras). */
typedef enum rvnpu_extra {
    RVNPU_X_RV32I, RVNPU_X_M, RVNPU_X_F, RVNPU_X_NPU, RVNPU_X_FNPU, RVNPU_X_NPU_ELEMS,
    RVNPU_X_LOADS, RVNPU_X_STORES, RVNPU_X_STALLS, RVNPU_X_TRAPS, RVNPU_N_EXTRAS
} rvnpu_extra;
extern const char *const rvnpu_extra_names[RVNPU_N_EXTRAS];

/* Immediate field of a word in format f (sign-extended where RISC-V says so). */
int32_t rvnpu_imm(uint32_t w, rvnpu_fmt f);

/* Granule of the code-page flags (RAM sizes are multiples of it). */
#define RVNPU_PAGE 4096u
/* code_pages flags: words on the page were decoded / the page holds the tohost word. A store
 * to a page with either flag takes the slow path. */
#define RVNPU_PAGE_CODE 1u
#define RVNPU_PAGE_WATCH 2u

/* A word decoded once and cached. */
#define RVNPU_NOREG 0xFFu
/* Instructions that write an x register decode rd = 0 as this scratch register (x[32]), so
 * no write needs an x0 test and x[0] stays 0. */
#define RVNPU_X_SINK 32u
typedef struct rvnpu_decoded {
    uint8_t op;        /* rvnpu_op or RVNPU_OP_ILLEGAL */
    uint8_t rm;
    uint16_t h;        /* decode cache: 0 = empty (so a calloc'ed cache costs no pages), else
                          the fast loop's handler index (exec.c) */
    uint8_t rd, rs1, rs2, rs3;
    uint8_t src[3], dst; /* timing: register numbers, f registers + 32, RVNPU_NOREG */
    int32_t imm;
} rvnpu_decoded;
_Static_assert(sizeof(rvnpu_decoded) % 4 == 0, "exec.c's JUMP_REL scales byte offsets");

/* Decode `w` for the revision (rev2 = 0: seed). Returns 0 for a legal word; else -1 with the
 * reason in why (if non-NULL) and d->op = RVNPU_OP_ILLEGAL. The one place the §3.2/§11.1
 * legality rules live (except DYN with frm 5..7, which depends on state). */
int rvnpu_decode(uint32_t w, int rev2, rvnpu_decoded *d, char *why, size_t why_size);

/* CSRs (csr.c): the table of §11.3. */
typedef struct rvnpu_csr_info {
    const char *name;
    uint16_t addr;
    uint8_t writable;
} rvnpu_csr_info;
extern const rvnpu_csr_info rvnpu_csrs[];
extern const size_t rvnpu_n_csrs;
const rvnpu_csr_info *rvnpu_csr_find(unsigned addr);

enum { RVNPU_MAX_FILES = 64 };

typedef struct rvnpu_state {
    uint32_t x[33], f[32], pc;       /* x[32]: RVNPU_X_SINK */
    /* CSR state */
    uint32_t fflags, frm, mie, mpie, fs, mtvec, mscratch, mepc, mcause, mtval;
    uint64_t retired;                /* retired since reset (also `time`) */
    uint64_t cycle_base, instret_base; /* mcycle = retired + cycle_base (mod 2^64) */
    rvnpu_npu npu;
    uint8_t *ram;
    uint32_t ram_size;
    rvnpu_decoded *dcache;           /* one per RAM word, plus one that stays empty (the fast
                                        loop runs into it when execution falls off the end) */
    uint8_t *code_pages;             /* per 4 KiB RAM page: RVNPU_PAGE_* flags, so stores to
                                        pure data pages skip the decode cache */
    npk_memspace space;
    npk_machine *m;
    rvnpu_bus bus;                   /* the memory system as the NPU sees it */
    /* configuration */
    int rev2, syscalls;
    char *fs_root;                   /* canonical (realpath) or NULL: file access disabled */
    int root_fd;                     /* the root's descriptor, every guest path is walked
                                        from it; -1 without fs_root */
    FILE *uart_in;
    int uart_own;
    unsigned lat[RVNPU_N_UNITS];
    unsigned lat_npu_elem, lat_fnpu_elem, lat_branch_taken;
    /* program */
    uint32_t entry, brk0, brk;
    int loading, ram_dirty;
    int tohost_checked, has_tohost, tohost_hit;
    uint32_t tohost;
    int host_fd[RVNPU_MAX_FILES];    /* guest fd 3+i -> host fd, -1 free */
    int guest_wrote;                 /* the UART or write(1|2) wrote since the last flush */
    /* timing model state (observed runs only): ready[0..63] the registers' (f registers at
     * 32 + n); the rest stay 0 (exec.c's statistics loop reads RVNPU_NOREG's slot) */
    uint64_t next_issue, ready[256];
    /* per op, computed once at creation for the observed loop: timing unit, and whether a
     * memory access writes (stores) */
    uint8_t unit_of[RVNPU_N_OPS + 1], is_store[RVNPU_N_OPS + 1];
} rvnpu_state;

/* Memory system (exec.c): whole-access region check, loads and stores as the guest sees them
 * (devices byte-wise, stores invalidate cached decodes and watch tohost). */
int rvnpu_mapped(rvnpu_state *s, uint32_t addr, uint32_t len);
uint32_t rvnpu_load(rvnpu_state *s, uint32_t addr, unsigned len);
void rvnpu_store(rvnpu_state *s, uint32_t addr, uint32_t v, unsigned len);
void rvnpu_invalidate(rvnpu_state *s, uint32_t off, uint32_t len);

/* CSR access (csr.c); the legality was checked at decode. */
uint32_t rvnpu_csr_read(rvnpu_state *s, unsigned addr);
void rvnpu_csr_write(rvnpu_state *s, unsigned addr, uint32_t v);

/* Host syscalls (syscalls.c). Returns 0: handled (a0 set), 1: exit (code in *exit_code),
 * -1: unknown number (the caller raises mcause 11). */
int rvnpu_syscall(rvnpu_state *s, int64_t *exit_code);
void rvnpu_files_close(rvnpu_state *s);
/* The sandbox root (fs_root and root_fd): 0, or -1 with errno when `dir` cannot be opened as
 * a directory. Closing is safe without one. */
int rvnpu_sandbox_open(rvnpu_state *s, const char *dir);
void rvnpu_sandbox_close(rvnpu_state *s);

/* Timing (timing.c; the model is timing.h): issue/completion cycles of one retired
 * instruction. */
void rvnpu_timing(rvnpu_state *s, const rvnpu_decoded *d, int taken, uint32_t elements,
                  uint64_t *start, uint64_t *end, uint64_t *stalls);

/* Snapshot hooks (snapshot.c). */
struct npk_snap_writer;
struct npk_snap_reader;
npk_status rvnpu_snap_save(npk_machine *m, void *state, struct npk_snap_writer *w);
npk_status rvnpu_snap_restore(npk_machine *m, void *state, struct npk_snap_reader *r);

npk_status rvnpu_run(npk_machine *m, void *state, uint64_t max_insns, npk_stop *stop);
npk_status rvnpu_step(npk_machine *m, void *state, npk_stop *stop);

#endif
