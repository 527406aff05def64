/* tinytpu machine state (docs/spec/tinytpu.md Part A): everything the RTL registers, stepped
 * once per clock edge by exec.c. machine.c holds configuration, loading, spaces and the target
 * registration. Names follow the spec (shadow, active, xout, psum, E, wp, gptr, ...). */
#ifndef NPK_TINYTPU_MACHINE_H
#define NPK_TINYTPU_MACHINE_H

#include <stdint.h>
#include <stdio.h>

#include "core/target.h"
#include "targets/tinytpu/tinytpu.h"

/* The fast loop for N >= 3 and the PE rows have AVX2 copies where the compiler can target them
 * (exec.c, x86-64). */
#if defined(__x86_64__) && defined(__GNUC__)
#define TT_HAVE_AVX2 1
#else
#define TT_HAVE_AVX2 0
#endif

/* The registers of a processing element (A4.1), one array of N x N per register: register f
 * of PE(k, j) at pe[f * N * N + k * N + j], so that a row of one register is contiguous (the
 * step updates a row as a vector). vout and swout hold 0 or 1. */
enum { TT_PE_SHADOW, TT_PE_ACTIVE, TT_PE_XOUT, TT_PE_PSUM, TT_PE_VOUT, TT_PE_WOUT, TT_PE_SWOUT,
       TT_PE_NF };
#define TT_PE(s, f, i) ((s)->pe[(size_t)(f) * (s)->N * (s)->N + (i)])

/* One read channel's sequencer (A7.2): ptr is signed 16-bit for the weight walk (A7.4). */
typedef struct tt_chan {
    int32_t ptr;
    uint16_t R, C, t;
    uint16_t skip;               /* weight channel: cols + 1 */
    uint8_t T;                   /* input and weight channels: transpose remembered */
} tt_chan;

/* Target counters (--stats extras). */
typedef enum tt_extra {
    TT_X_UB_WRITES,     /* words written to the UB (appends + GD write-backs) */
    TT_X_HOST_WRITES,   /* appends from the host */
    TT_X_VPU_WRITES,    /* appends from the VPU */
    TT_X_GD_WRITES,     /* GD write-backs */
    TT_X_MACS,          /* PE multiply-accumulates (valid input) */
    TT_X_READ_BEATS,    /* channel beats with at least one active lane */
    TT_X_ISSUES,        /* reads issued */
    TT_X_RESETS,        /* reset cycles */
    TT_N_EXTRAS
} tt_extra;

/* What a PE row may hold after its update (tt_state.pe_row): some vout, swout or wout
 * nonzero; TT_ROW_ALL when unknown (after E changes or a backdoor write). */
enum { TT_ROW_V = 1, TT_ROW_SW = 2, TT_ROW_W = 4, TT_ROW_ALL = 7 };

/* Units (busy cycles in --stats, tracks in --timeline). */
enum { TT_U_ARRAY, TT_U_VPU, TT_U_UB_READ, TT_U_UB_WRITE, TT_U_GD, TT_N_UNITS };

/* Timeline tracks (finer than the units): the array, the VPU output and its four stages, the
 * UB reads in all and per channel, the UB writes, the GD units. A track is busy in cycle k
 * (the slice [k-1, k)) when at edge k: array, some PE does a MAC; vpu, some lane's output is
 * valid; vpu.STAGE, the stage is enabled and registers a valid value in some lane; ub_read,
 * some channel beat reads; ub_read.CHANNEL, that channel's beat reads in some lane; ub_write,
 * some UB word is written; gd, some GD unit registers an update. Consecutive busy cycles make
 * one slice; a channel's slice is one read (re-issuing starts a new one). */
enum {
    TT_T_ARRAY, TT_T_VPU, TT_T_STAGE0, TT_T_UB_READ = TT_T_STAGE0 + 4, TT_T_CH0,
    TT_T_UB_WRITE = TT_T_CH0 + TT_N_CHANNELS, TT_T_GD, TT_N_TRACKS
};
extern const char *const tt_track_names[TT_N_TRACKS];

/* Per-cycle kinds (the statistics' "mnemonics"). */
enum { TT_K_IDLE, TT_K_RESET, TT_K_READ, TT_K_HOST, TT_K_SW, TT_K_OTHER, TT_N_KINDS };

typedef struct tt_state {
    /* configuration */
    unsigned N, ub_words;
    uint16_t lr0;                /* learning-rate setting before cycle 1 (B6) */
    tt_format format;            /* how text programs are read: asm or a word/port format */
    int format_given;            /* 0: format=auto, the file's header or shape decides */
    uint32_t max_cycles;         /* longest program the text readers accept */
    tt_format words;             /* what `npukit asm` writes: a hex word format or port */
    uint64_t *reset_at;          /* cycles made reset cycles by the setting (sorted) */
    size_t n_reset_at;
    int all_writes;              /* trace every UB write, not just changes */
    int trace_reads;             /* trace channel reads ("R" lines) */
    int rec_reads;               /* gather channel reads (the trace's or read watches') */
    int trace_regs;              /* dump every register after each edge ("S" lines) */
    char *vcd_path;              /* write a VCD of the main signals (NULL: none) */

    /* the program, one record per cycle, and where the run is */
    tt_program prog;
    uint64_t pc;                 /* index of the next cycle's record = cycles done */
    /* a streamed program (setting stream=1, a word file loaded by path, machine.c): prog is a
     * window of it, cycles base .. base + prog.n - 1, refilled from the file as the run goes;
     * stream_len cycles in all. stream NULL: prog is the whole program and base is 0. */
    int stream_on;
    tt_word_stream *stream;
    uint64_t base, stream_len;

    /* architectural state (Part A) */
    uint16_t *ub;
    uint32_t wp;
    uint16_t *pe;                /* the PE registers (TT_PE): pe2 for N = 2, else allocated */
    uint16_t pe2[TT_PE_NF * 4];  /* the PEs of N = 2 (fixed offsets in the state for the step) */
    /* lane state, N of TT_MAX_N used (fixed arrays: no pointer chasing on the hot path) */
    uint8_t E[TT_MAX_N];
    tt_chan ch[TT_N_CHANNELS];
    uint16_t in_d[TT_MAX_N], w_d[TT_MAX_N];    /* channel 0 and 1 output registers */
    uint8_t in_v[TT_MAX_N], w_v[TT_MAX_N];
    uint16_t bias_r[TT_MAX_N], y_r[TT_MAX_N], h_r[TT_MAX_N], old_r[TT_MAX_N]; /* 2, 3, 4, 5/6 */
    uint8_t done[TT_MAX_N];                     /* GD units (A10) */
    uint16_t upd[TT_MAX_N];
    uint8_t mode;                               /* 0 bias, 1 weight (A6.3) */
    uint16_t gptr;
    uint16_t st_d[4][TT_MAX_N];                 /* VPU stages BIAS, LREL, LOSS, DERIV (A9.3) */
    uint8_t st_v[4][TT_MAX_N];
    uint16_t lastH[TT_MAX_N];
    uint64_t prev_f;             /* F_{k-1} (A7.8): sel, addr, rows, cols (exec.c packs them) */
    uint16_t prev_ft;            /* and its start and T: 0 if start was 0, else 1 | T << 1 */
    uint8_t cs_flag;             /* column-size flag and value (A7.9) */
    uint16_t cs_val;

    /* activity gating of the fast path (not architectural): a block whose state is at rest
     * and whose inputs are idle is skipped, since stepping it would change nothing */
    int gating;                  /* setting gating=0 steps everything (tests compare) */
    unsigned pe_idle;            /* edges since the array's inputs were last active (capped) */
    uint8_t vpu_quiet;           /* the VPU stages are at rest */
    uint8_t bottom_nz;           /* some bottom-row PE has vout or psum nonzero */
    int vector;                  /* N >= 3: PE rows as vectors (setting vector=0: PE by PE) */
    int avx2;                    /* the host has AVX2: the AVX2 copies (exec.c) */
    uint8_t pe_row[TT_MAX_N];    /* per row, TT_ROW_*: what it may hold (vector path) */
    uint8_t gd_busy;             /* some GD unit has done = 1 */
    uint8_t w_any;               /* some weight lane valid */
    unsigned ch_dirty;           /* bit c: channel c's state or outputs may be nonzero */
    unsigned ch_live;            /* bit c: channel c does a beat at the next edge (A7.2) */

    /* scratch for one step */
    uint16_t out_d[TT_MAX_N];
    uint8_t out_v[TT_MAX_N];
    uint32_t wr_addr[2 * TT_MAX_N];             /* UB writes of one edge, in order */
    uint16_t wr_val[2 * TT_MAX_N], wr_lane[2 * TT_MAX_N], ub_before[2 * TT_MAX_N];
    uint8_t wr_src[2 * TT_MAX_N];               /* 0 host, 1 VPU, 2 GD (traces, errors) */
    unsigned n_wr;                              /* writes of the last edge */
    /* channel reads of one edge, for "R" trace lines */
    unsigned n_rd;
    uint8_t rd_ch[TT_N_CHANNELS * TT_MAX_N];
    uint16_t rd_lane[TT_N_CHANNELS * TT_MAX_N], rd_val[TT_N_CHANNELS * TT_MAX_N];
    int32_t rd_addr[TT_N_CHANNELS * TT_MAX_N];
    /* timeline (observed runs with one): the tracks busy at the last edge and the read it
     * issued (channel + 1, 0: none), per track the open slice's start + 1 (0: none), per
     * channel the fields of its last read (the slice's name) */
    uint32_t tl_busy;
    unsigned tl_issue;
    uint64_t tl_since[TT_N_TRACKS];
    uint16_t tl_addr[TT_N_CHANNELS], tl_rows[TT_N_CHANNELS], tl_cols[TT_N_CHANNELS];
    uint8_t tl_T[TT_N_CHANNELS];
    FILE *vcd;                   /* open while a run writes the VCD */
    uint64_t vcd_cycle;          /* last cycle written to it */
    npk_memspace space;          /* "ub" */
    struct tt_regs *regs;        /* the register list, built on first use (regs.c) */
} tt_state;

/* Load a program built in memory (the schedule compiler, tests): a copy of p, then the reset_at
 * setting and a reset, as loading a file does. */
npk_status tt_load_program(npk_machine *m, const tt_program *p);
/* The machine's state (for tools that build programs in memory); NULL if m is not tinytpu. */
tt_state *tt_state_of(npk_machine *m);

/* Bytes of the word a commit record carries for a cycle: the full-port word (B5) for N lanes. */
unsigned tt_word_bytes(unsigned N);

/* The program's length in cycles (streamed or not). */
static inline uint64_t tt_prog_len(const tt_state *s)
{
    return s->stream ? s->stream_len : s->prog.n;
}
/* A streamed program: make the window hold cycle k (< tt_prog_len). 0, or -1 when the file no
 * longer reads as it did at the load, with the reason in msg. */
int tt_window(tt_state *s, uint64_t k, char *msg, size_t n);
/* The program is no longer streamed (another one replaces it): the file closed, base 0. */
void tt_stream_drop(tt_state *s);

/* Snapshots (snapshot.c, docs/snapshot.md). */
struct npk_snap_writer;
struct npk_snap_reader;
npk_status tt_snap_save(npk_machine *m, void *state, struct npk_snap_writer *w);
npk_status tt_snap_restore(npk_machine *m, void *state, struct npk_snap_reader *r);

/* Run up to max cycles (0 = to the end); observed = traces/statistics on. */
npk_status tt_run(npk_machine *m, void *state, uint64_t max, npk_stop *stop);
void tt_reset_state(tt_state *s);      /* A11 (the UB included) */

/* VCD of the main signals (vcd.c), written by the observed loop when vcd_path is set. */
npk_status tt_vcd_open(npk_machine *m, tt_state *s);
void tt_vcd_edge(tt_state *s, uint64_t k, const tt_cycle *c);
void tt_vcd_close(tt_state *s);

#endif
