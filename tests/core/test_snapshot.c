/* Snapshots (docs/snapshot.md) on random programs for toy, rvnpu, opennpu, pccx and tinytpu (N
 * cycles there): run N instructions, save, run to the end; restore (into the same machine, a
 * fresh one, and one that ran another program, whose decode cache is stale) and run to the
 * end: the same registers, memory,
 * output, stop and statistics. Then the refusals: another target, configuration, npukit
 * version or format version, every truncation, every corrupted byte, bad contents under a
 * valid checksum - each a clear error, with the machine unchanged. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/snapshot.h"
#include "npukit/npukit.h"
#include "test.h"

static uint64_t rng_state;
static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)((rng_state >> 11) % n);
}

/* ---- random programs that terminate -------------------------------------------------------- */

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void add(text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void add(text *t, const char *fmt, ...)
{
    if (!t->s && !(t->s = calloc(t->cap = 256, 1)))
        abort();
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        t->cap = t->cap * 2 + (size_t)n + 256;
        t->s = realloc(t->s, t->cap);
        if (!t->s)
            abort();
    }
}

/* A body of `n` random lines with forward branches only, inside a counted loop: every
 * program ends. A generator writes one line into `line`; a '@' in it is a branch target,
 * replaced here by a label skip<j> on a later line j. */
typedef void (*line_fn)(char *line, size_t size);

static void body(text *t, unsigned n, line_fn gen)
{
    unsigned char *label_at = calloc(n + 1, 1);
    if (!label_at)
        abort();
    for (unsigned i = 0; i < n; i++) {
        if (label_at[i])
            add(t, "skip%u:\n", i);
        char line[128];
        gen(line, sizeof line);
        char *at = strchr(line, '@');
        if (at) {
            unsigned j = i + 1 + rnd(n - i);
            label_at[j] = 1;
            *at = '\0';
            add(t, "%sskip%u%s", line, j, at + 1);
        } else {
            add(t, "%s", line);
        }
    }
    if (label_at[n])
        add(t, "skip%u:\n", n);
    free(label_at);
}

/* toy: r7 holds the data base, r6 counts the loop, r5 stays 0; r0..r4 are random. */
static void toy_line(char *t, size_t size)
{
    unsigned d = rnd(5), a = rnd(6), b = rnd(6);
    switch (rnd(14)) {
    case 0: snprintf(t, size, "li r%u, %d\n", d, (int)rnd(65536) - 32768); break;
    case 1: snprintf(t, size, "lui r%u, %u\n", d, rnd(65536)); break;
    case 2: snprintf(t, size, "ori r%u, r%u, %u\n", d, a, rnd(65536)); break;
    case 3: snprintf(t, size, "add%s r%u, r%u, r%u\n", rnd(2) ? ".sat" : "", d, a, b); break;
    case 4: snprintf(t, size, "sub%s r%u, r%u, r%u\n", rnd(2) ? ".sat" : "", d, a, b); break;
    case 5: snprintf(t, size, "mul r%u, r%u, r%u\n", d, a, b); break;
    case 6: snprintf(t, size, "addi r%u, r%u, %d\n", d, a, (int)rnd(200) - 100); break;
    case 7: snprintf(t, size, "fadd r%u, r%u, r%u\n", d, a, b); break;
    case 8: snprintf(t, size, "fmul r%u, r%u, r%u\n", d, a, b); break;
    case 9: snprintf(t, size, "ld r%u, %u(r7)\n", d, 4 * rnd(64)); break;
    case 10: snprintf(t, size, "st r%u, %u(r7)\n", a, 4 * rnd(64)); break;
    case 11: snprintf(t, size, "putc r%u\n", a); break;
    case 12: snprintf(t, size, "%s r%u, r%u, @\n", rnd(2) ? "beq" : rnd(2) ? "bne" : "blt", a, b); break;
    default: snprintf(t, size, "nop\n"); break;
    }
}

static char *toy_program(void)
{
    text t = {NULL, 0, 0};
    for (unsigned r = 0; r < 5; r++)
        add(&t, "li r%u, %d\n", r, (int)rnd(65536) - 32768);
    add(&t, "li r5, 0\nli r7, data\nli r6, %u\nloop:\n", 2 + rnd(5));
    body(&t, 20 + rnd(40), toy_line);
    add(&t, "addi r6, r6, -1\nbne r6, r5, loop\nputc r0\nexit r1\n.align 4\ndata:\n"
            ".space 256\n");
    return t.s;
}

/* rvnpu: s0 data base, s1 loop counter, s2 the UART; t0..t6, a1..a6 and ft0..ft7 random. */
static const char *const rv_x[] = {"t0", "t1", "t2", "t3", "t4", "t5", "t6",
                                   "a1", "a2", "a3", "a4", "a5", "a6"};
#define RX rv_x[rnd(13)]

static void rv_line(char *t, size_t size)
{
    static const char *const rr[] = {"add", "sub", "xor", "or", "and", "sll", "srl", "sra",
                                      "slt", "sltu", "mul", "mulh", "mulhu", "div", "divu",
                                      "rem", "remu"};
    static const char *const ri[] = {"addi", "xori", "andi", "ori", "slti"};
    static const char *const fr[] = {"fadd.s", "fsub.s", "fmul.s", "fdiv.s", "fmin.s"};
    static const char *const br[] = {"beq", "bne", "blt", "bge", "bltu", "bgeu"};
    unsigned f = rnd(8), g = rnd(8), h = rnd(8);
    switch (rnd(24)) {
    case 0: case 1: case 2: snprintf(t, size, "%s %s, %s, %s\n", rr[rnd(17)], RX, RX, RX); break;
    case 3: case 4: snprintf(t, size, "%s %s, %s, %d\n", ri[rnd(5)], RX, RX, (int)rnd(4096) - 2048); break;
    case 5: snprintf(t, size, "srai %s, %s, %u\n", RX, RX, rnd(32)); break;
    case 6: snprintf(t, size, "lui %s, %u\n", RX, rnd(1u << 20)); break;
    case 7: snprintf(t, size, "lw %s, %u(s0)\n", RX, 4 * rnd(64)); break;
    case 8: snprintf(t, size, "%s %s, %u(s0)\n", rnd(2) ? "lh" : "lhu", RX, 2 * rnd(128)); break;
    case 9: snprintf(t, size, "%s %s, %u(s0)\n", rnd(2) ? "lb" : "lbu", RX, rnd(256)); break;
    case 10: snprintf(t, size, "sw %s, %u(s0)\n", RX, 4 * rnd(64)); break;
    case 11: snprintf(t, size, "%s %s, %u(s0)\n", rnd(2) ? "sh" : "sb", RX, 2 * rnd(128)); break;
    case 12: snprintf(t, size, "sb %s, 0(s2)\n", RX); break; /* UART output */
    case 13: snprintf(t, size, "%s ft%u, ft%u, ft%u\n", fr[rnd(5)], f, g, h); break;
    case 14: snprintf(t, size, "fmv.w.x ft%u, %s\n", f, RX); break;
    case 15: snprintf(t, size, "%s %s, ft%u\n", rnd(2) ? "fmv.x.w" : "fcvt.w.s", RX, f); break;
    case 16: snprintf(t, size, "%s ft%u, %u(s0)\n", rnd(2) ? "flw" : "fsw", f, 4 * rnd(64)); break;
    case 17: snprintf(t, size, "npu.macc %s, %s\n", RX, RX); break;
    case 18:
        if (rnd(2))
            snprintf(t, size, "npu.rstacc %s\n", RX);
        else
            snprintf(t, size, "csrr %s, fflags\n", RX);
        break;
    case 19: snprintf(t, size, "npu.fmacc ft%u, ft%u\n", f, g); break;
    case 20: snprintf(t, size, "%s v%u, %u(s0)\n", rnd(2) ? "npu.ldvec" : "npu.stvec", rnd(4), 4 * rnd(60));
        break;
    case 21: snprintf(t, size, "%s %s, %s\n", rnd(2) ? "npu.relu" : "npu.gelu", RX, RX); break;
    case 22: snprintf(t, size, "csrr %s, %s\n", RX, rnd(2) ? "minstret" : "mcycle"); break;
    default: snprintf(t, size, "%s %s, %s, @\n", br[rnd(6)], RX, RX); break;
    }
}

static char *rv_program(void)
{
    text t = {NULL, 0, 0};
    for (unsigned r = 0; r < 13; r++)
        add(&t, "li %s, %d\n", rv_x[r], (int)rnd(1u << 30) - (1 << 29));
    add(&t, "la s0, data\nli s2, 0x10000000\nli s1, %u\nloop:\n", 2 + rnd(5));
    body(&t, 20 + rnd(50), rv_line);
    add(&t, "addi s1, s1, -1\nbnez s1, loop\nmv a0, t0\nli a7, 93\necall\n.align 4\ndata:\n"
            ".space 256\n");
    return t.s;
}

/* opennpu has no branches: a program runs from its first word to its end. Words from its
 * table with random operand bits (illegal ones, which would stop the program, are dropped:
 * npk_disasm marks them); first some registers in rows 4.. get values and are stored at
 * small addresses, with VR0 (rows 0..3, the base of every address) still zero. */
static const uint32_t onpu_ops[][2] = {
    {0x00000010, 0x707F}, {0x00001010, 0x707F}, {0x00002010, 0x707F}, {0x00003010, 0x707F},
    {0x00004010, 0x707F}, {0x00005010, 0x707F}, {0x00006010, 0x707F}, {0x00007010, 0x707F},
    {0x00000011, 0x707F}, {0x00001011, 0x707F}, {0x00002011, 0x707F}, {0x00003011, 0x707F},
    {0x00004011, 0x707F}, {0x00005011, 0x707F}, {0x00006011, 0x707F}, {0x00007011, 0x707F},
    {0x00000012, 0x707F}, {0x00001012, 0x707F}, {0x00002012, 0x707F}, {0x00000013, 0x707F},
    {0x00001013, 0x707F}, {0x00004013, 0x707F}, {0x00005013, 0x707F}, {0x00000003, 0x707F},
    {0x00001003, 0x707F}, {0x00002003, 0x707F}, {0x00001015, 0x707F}, {0x00001018, 0x707F},
    {0x04000014, 0x0E00707F}, {0x00002014, 0x0E00707F}, {0x04003014, 0x0E00707F},
    {0x00003014, 0x0E00707F}};

static npk_machine *onpu_checker;

static int onpu_legal(uint32_t w)
{
    uint8_t b[4] = {(uint8_t)w, (uint8_t)(w >> 8), (uint8_t)(w >> 16), (uint8_t)(w >> 24)};
    char text[160];
    return npk_disasm(onpu_checker, b, 0, text, sizeof text) == NPK_OK &&
           !strstr(text, "illegal") && !strstr(text, ".word");
}

static char *onpu_program(void)
{
    text t = {NULL, 0, 0};
    for (unsigned i = 0; i < 6; i++) /* vbcast.imm VX[4 + i], imm; st.vx VX[4 + i], off(vr0) */
        add(&t, ".word 0x%08x\n.word 0x%08x\n",
            0x00001015u | (4 + i) << 7 | rnd(256) << 20,
            0x00003002u | (4 + i) << 7 | (8 * rnd(200)) << 20);
    unsigned n = 30 + rnd(60);
    for (unsigned i = 0; i < n;) {
        unsigned k = rnd(sizeof onpu_ops / sizeof onpu_ops[0]);
        uint32_t w = onpu_ops[k][0] | (rnd(0xFFFFFFFFu) & ~onpu_ops[k][1]);
        if (!onpu_legal(w))
            continue;
        add(&t, ".word 0x%08x\n", w);
        i++;
    }
    for (unsigned i = 0; i < 4; i++) /* ld.vx VX[8 + i], off(vr0) */
        add(&t, ".word 0x%08x\n", 0x00003001u | (8 + i) << 7 | (8 * rnd(200)) << 20);
    return t.s;
}

/* pccx has no branches either: a program is pushed from its first word to its last. Two
 * INT4 tensors (A: K = 8, N = 16; B: K = 16, N = 8) and four shapes (fmap[1] 1 x 8, fmap[2]
 * 1 x 16, fmap[3] 2 x 8, fmap[4] 2 x 16) make GEMV, GEMM, CVO and MEMCPY instructions that
 * are legal at random L2 addresses (words 0..63) with random flags, sync and async, amid
 * MEMSETs of other entries and window changes; each GEMV/GEMM has its .wpush. With pccx_hw
 * (mode=hw-compat) reserved-opcode words, which hw-compat drops, are mixed in. */
static int pccx_hw;

static void pccx_line(text *t)
{
    static const char *const cvo[] = {"exp", "sqrt", "gelu", "sin", "cos", "reduce_sum",
                                      "scale", "recip"};
    static const char *const shapes[] = {"1", "2", "4"};
    unsigned d = rnd(56), sw = rnd(56), aux = rnd(200);
    const char *as = rnd(2) ? ", async" : "";
    switch (rnd(pccx_hw ? 13 : 12)) {
    case 0:
    case 1: {
        int a = rnd(2); /* A: 8 -> 16, B: 16 -> 8 */
        add(t, ".wpush %s\n    gemv dst=%u, src=%u, size=%s, shape=%s, lanes=%u%s%s%s\n",
            a ? "A" : "B", d, sw, a ? "2" : "1", a ? "1" : "2", rnd(16),
            rnd(2) ? ", findemax" : "", rnd(3) ? "" : ", accm", rnd(2) ? ", w_scale" : "");
        break;
    }
    case 2:
        add(t, ".wpush A\n    gemm dst=%u, src=%u, size=4, shape=3%s%s%s\n", d, sw,
            rnd(2) ? ", findemax" : "", rnd(3) ? "" : ", accm", rnd(2) ? ", w_scale" : "");
        break;
    case 3:
    case 4:
    case 5:
    case 6: {
        unsigned f = rnd(8);
        add(t, "    %s src=%u, dst=%u, len=%u%s%s%s%s\n", cvo[f], rnd(480), rnd(480),
            1 + rnd(24), rnd(3) ? "" : ", sub_emax", rnd(3) ? "" : ", accm",
            f == 6 && rnd(2) ? ", recip_scale" : "", as);
        break;
    }
    case 7: add(t, "    memcpy.h2l dst=%u, aux=%u, shape=%s%s\n", d, aux, shapes[rnd(3)], as); break;
    case 8: add(t, "    memcpy.l2h src=%u, aux=%u, shape=%s%s\n", sw, aux, shapes[rnd(3)], as); break;
    case 9: add(t, "    memcpy.l2l dst=%u, src=%u, shape=%s%s\n", d, sw, shapes[rnd(3)], as); break;
    case 10:
        add(t, "    memset %s, idx=%u, a=%u, b=%u, c=%u\n", rnd(2) ? "fmap" : "weight",
            8 + rnd(50), rnd(65536), rnd(65536), rnd(65536));
        break;
    case 11: add(t, ".window %u\n", 16 * rnd(1024)); break;
    default: add(t, "    .word 0x%016llx\n", (unsigned long long)(0x5 + rnd(11)) << 60); break;
    }
}

static char *pccx_program(void)
{
    text t = {NULL, 0, 0};
    for (unsigned blk = 0; blk < 2; blk++) {
        add(&t, ".host byte=%u\n.bf16 ", 4096 * blk);
        for (unsigned i = 0; i < 64; i++)
            add(&t, "%s%d.%d", i ? ", " : "", (int)rnd(7) - 3, (int)rnd(10));
        add(&t, "\n");
    }
    static const unsigned kn[2][2] = {{8, 16}, {16, 8}};
    for (unsigned w = 0; w < 2; w++) {
        add(&t, ".weight %c, k=%u, n=%u\n  .scale ", "AB"[w], kn[w][0], kn[w][1]);
        for (unsigned r = 0; r < kn[w][1]; r++)
            add(&t, "%s%u.%u", r ? ", " : "", rnd(3), rnd(100));
        add(&t, "\n");
        for (unsigned r = 0; r < kn[w][1]; r++) {
            add(&t, "  .row ");
            for (unsigned k = 0; k < kn[w][0]; k++)
                add(&t, "%s%d", k ? ", " : "", (int)rnd(16) - 8);
            add(&t, "\n");
        }
        add(&t, ".endweight\n");
    }
    add(&t, "    memset fmap, idx=1, a=1, b=8, c=1\n"
            "    memset fmap, idx=2, a=1, b=16, c=1\n"
            "    memset fmap, idx=3, a=2, b=8, c=1\n"
            "    memset fmap, idx=4, a=2, b=16, c=1\n"
            "    memcpy.h2l dst=0, aux=0, shape=4\n"
            "    memcpy.h2l dst=4, aux=256, shape=4, async\n");
    for (unsigned i = 0, n = 20 + rnd(60); i < n; i++)
        pccx_line(&t);
    return t.s;
}

/* tinytpu (lanes tt_lanes): random reads on every channel (sel 7 too), some held for several
 * words (issued once, tinytpu spec A7.8), host writes, switch bits, pathways, levels, learning
 * rates and reset cycles. Programs end; an out-of-range access (tinytpu spec C1) ends one
 * early. */
static unsigned tt_lanes = 2;

static char *tt_program(void)
{
    static const char *const chan[8] = {"input", "weight", "bias", "y", "h", "gbias", "gweight",
                                        "sel=7"};
    text t = {NULL, 0, 0};
    const unsigned N = tt_lanes;
    add(&t, ".lr 0x%04X\n", rnd(0x200));
    unsigned n = 60 + rnd(120);
    char held[96] = ""; /* the previous cycle's read clause */
    for (unsigned k = 0; k < n; k++) {
        uint32_t r = rnd(1000);
        if (r % 97 == 0) {
            add(&t, ".reset\n");
            held[0] = '\0';
            continue;
        }
        if (r % 11 == 0)
            add(&t, ".pathway %u%u%u%u\n", rnd(2), rnd(2), rnd(2), rnd(2));
        if (r % 13 == 0)
            add(&t, ".leak 0x%04X\n.inv 0x%04X\n", rnd(0x10000), rnd(0x400));
        if (r % 29 == 0)
            add(&t, ".lr 0x%04X\n", rnd(0x200));
        int any = 0;
        if (rnd(5) == 0)
            add(&t, "sw "), any = 1;
        if (held[0] && rnd(2)) {
            add(&t, "%s ", held), any = 1;
        } else if (r % 4 == 1) {
            snprintf(held, sizeof held, "read %s addr=%u rows=%u cols=%u%s", chan[rnd(8)],
                     rnd(40), 1 + rnd(4), 1 + rnd(N), rnd(2) ? " t" : "");
            add(&t, "%s ", held), any = 1;
        } else {
            held[0] = '\0';
        }
        if (r % 3 == 0 && k < n / 2)
            for (unsigned i = 0; i < N; i++)
                if (rnd(3))
                    add(&t, "host%u=0x%04X ", i, (rnd(0x400) - 0x200) & 0xFFFFu), any = 1;
        add(&t, "%s\n", any ? "" : "nop");
    }
    return t.s;
}

/* The XOR training step (examples/tinytpu/xor/xor_step.tt, a path given to the test): every
 * pathway, the GD units in both modes and the N = 2 weight walk, where random programs seldom
 * leave state in lastH or mid-walk. */
static const char *xor_path;

static char *tt_xor(void)
{
    FILE *f = xor_path ? fopen(xor_path, "rb") : NULL;
    char *buf = malloc(1 << 16);
    size_t n = f && buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
    if (f)
        fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

/* ---- machine state as a value ------------------------------------------------------------- */

#define MAX_REGS 512 /* pccx has 402 */
typedef struct state {
    uint64_t reg[MAX_REGS];
    size_t n_reg;
    uint8_t *mem;
    size_t mem_size;
    uint64_t stats[512];
    size_t n_stats;
} state;

static void capture(npk_machine *m, state *s)
{
    memset(s, 0, sizeof *s);
    s->n_reg = npk_reg_count(m);
    for (size_t i = 0; i < s->n_reg && i < MAX_REGS; i++)
        npk_reg_read(m, npk_reg(m, i)->name, &s->reg[i]);
    /* every memory space, one after the other */
    for (size_t i = 0; i < npk_space_count(m); i++)
        s->mem_size += (size_t)npk_space(m, i)->size;
    s->mem = malloc(s->mem_size ? s->mem_size : 1);
    for (size_t i = 0, off = 0; s->mem && i < npk_space_count(m); i++) {
        const npk_space_info *sp = npk_space(m, i);
        if (npk_mem_read(m, sp->name, 0, s->mem + off, (size_t)sp->size) != NPK_OK)
            memset(s->mem + off, 0, (size_t)sp->size);
        off += (size_t)sp->size;
    }
    npk_stats st;
    npk_stats_get(m, &st);
    s->stats[s->n_stats++] = st.insns;
    s->stats[s->n_stats++] = st.cycles;
    for (size_t i = 0; i < st.n_mnemonics && s->n_stats < 512; i++)
        s->stats[s->n_stats++] = st.count[i];
    for (size_t i = 0; i < st.n_units && s->n_stats < 512; i++)
        s->stats[s->n_stats++] = st.busy[i];
    for (size_t i = 0; i < st.n_extra && s->n_stats < 512; i++)
        s->stats[s->n_stats++] = st.extra[i];
}

static int same(const state *a, const state *b, const char *what)
{
    int ok = 1;
    for (size_t i = 0; i < a->n_reg && i < MAX_REGS; i++)
        if (a->reg[i] != b->reg[i]) {
            NPK_REPORT(0, "%s: register %zu: 0x%llx, want 0x%llx\n", what, i,
                       (unsigned long long)b->reg[i], (unsigned long long)a->reg[i]);
            ok = 0;
            break;
        }
    if (a->mem_size != b->mem_size || !a->mem || !b->mem ||
        memcmp(a->mem, b->mem, a->mem_size) != 0) {
        NPK_REPORT(0, "%s: memory differs\n", what);
        ok = 0;
    }
    if (a->n_stats != b->n_stats || memcmp(a->stats, b->stats, a->n_stats * 8) != 0) {
        NPK_REPORT(0, "%s: statistics differ (instructions %llu vs %llu, cycles %llu vs "
                   "%llu)\n", what, (unsigned long long)b->stats[0],
                   (unsigned long long)a->stats[0], (unsigned long long)b->stats[1],
                   (unsigned long long)a->stats[1]);
        ok = 0;
    }
    if (ok)
        npk_test_pass++;
    return ok;
}

static void release(state *s)
{
    free(s->mem);
    s->mem = NULL;
}

/* ---- the property ------------------------------------------------------------------------- */

typedef struct outcome {
    state st;
    npk_stop stop;
    char *out;       /* guest output of this run */
    size_t out_len;
} outcome;

static npk_machine *make(const char *spec)
{
    npk_machine *m;
    char err[256];
    if (npk_create(&m, spec, NULL, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "create %s: %s\n", spec, err);
        return NULL;
    }
    return m;
}

/* Run m to its end with its output captured. */
static void finish(npk_machine *m, outcome *o)
{
    o->out = NULL;
    o->out_len = 0;
    FILE *f = open_memstream(&o->out, &o->out_len);
    npk_set_output(m, f, f);
    npk_run(m, 0, &o->stop);
    fclose(f);
    npk_set_output(m, NULL, NULL);
    capture(m, &o->st);
}

static int same_outcome(const outcome *a, const outcome *b, const char *what)
{
    int ok = same(&a->st, &b->st, what);
    NPK_REPORT(a->stop.reason == b->stop.reason && a->stop.exit_code == b->stop.exit_code &&
               a->stop.pc == b->stop.pc && strcmp(a->stop.message, b->stop.message) == 0,
               "%s: stop '%s', want '%s'\n", what, b->stop.message, a->stop.message);
    NPK_REPORT(a->out_len == b->out_len && memcmp(a->out, b->out, a->out_len) == 0,
               "%s: output of %zu bytes, want %zu\n", what, b->out_len, a->out_len);
    return ok;
}

static void drop(outcome *o)
{
    release(&o->st);
    free(o->out);
}

static int load_src(npk_machine *m, const char *src)
{
    return npk_load_asm(m, src, "random.s", stderr) == NPK_OK;
}

/* One random program: the save point is uniform over its length (0: before the first). */
static void property(const char *spec, char *(*gen)(void), int observed, unsigned seed)
{
    char what[128];
    char *src = gen(), *other = gen();
    npk_machine *a = make(spec), *fresh = make(spec), *stale = make(spec);
    if (!a || !fresh || !stale || !load_src(a, src) || !load_src(stale, other)) {
        NPK_REPORT(0, "%s seed %u: cannot set up\n", spec, seed);
        goto out;
    }
    /* the program's length */
    npk_machine *probe = make(spec);
    npk_stop stop;
    npk_stats st;
    if (!probe || !load_src(probe, src))
        goto out;
    FILE *sink = fopen("/dev/null", "w");
    npk_stats_enable(probe, 1);
    npk_set_output(probe, sink, sink);
    npk_run(probe, 0, &stop);
    npk_stats_get(probe, &st);
    uint64_t total = st.insns, at = rnd((uint32_t)total); /* 0: before the first */
    npk_destroy(probe);
    /* toy and rvnpu programs exit; an opennpu one may also stop on a memory fault */
    npk_stop_reason end = stop.reason;
    if (getenv("NPK_SNAP_DEBUG"))
        fprintf(stderr, "%s seed %u: %llu instructions, %s\n", spec, seed,
                (unsigned long long)st.insns, stop.message);
    NPK_REPORT(end == NPK_STOP_EXIT ||
                   (end == NPK_STOP_FAULT &&
                    (!strncmp(spec, "opennpu", 7) || !strncmp(spec, "pccx", 4) ||
                     !strncmp(spec, "tinytpu", 7))),
               "%s seed %u: the program does not end: %s\n", spec, seed, stop.message);

    if (observed) {
        npk_stats_enable(a, 1);
        npk_stats_enable(fresh, 1);
        npk_stats_enable(stale, 1);
    }
    npk_set_output(a, sink, sink);
    if (at)
        npk_run(a, at, &stop);
    npk_set_output(a, NULL, NULL);
    uint8_t *snap = NULL;
    size_t n = 0;
    NPK_CHECK(npk_snapshot_save(a, &snap, &n) == NPK_OK);
    /* the same state saved twice, from two machines: the same bytes */
    npk_machine *twin = make(spec);
    uint8_t *snap2 = NULL;
    size_t n2 = 0;
    if (twin && load_src(twin, src)) {
        if (observed)
            npk_stats_enable(twin, 1);
        npk_set_output(twin, sink, sink);
        if (at)
            npk_run(twin, at, &stop);
        NPK_CHECK(npk_snapshot_save(twin, &snap2, &n2) == NPK_OK);
        NPK_REPORT(n2 == n && snap && snap2 && memcmp(snap, snap2, n) == 0,
                   "%s seed %u: two snapshots of one state differ\n", spec, seed);
    }
    npk_free(snap2);
    npk_destroy(twin);
    state saved; /* registers, memory and statistics at the save */
    capture(a, &saved);
    outcome want, got;
    finish(a, &want);
    NPK_REPORT(want.stop.reason == end, "%s seed %u: another end than the probe's: %s\n",
               spec, seed, want.stop.message);

    snprintf(what, sizeof what, "%s seed %u at %llu/%llu%s, restored into the same machine",
             spec, seed, (unsigned long long)at, (unsigned long long)total,
             observed ? " (stats on)" : "");
    NPK_REPORT(npk_snapshot_restore(a, snap, n, NULL) == NPK_OK, "%s: %s\n", what, npk_error(a));
    finish(a, &got);
    same_outcome(&want, &got, what);
    drop(&got);

    snprintf(what, sizeof what, "%s seed %u at %llu/%llu%s, restored into a fresh machine",
             spec, seed, (unsigned long long)at, (unsigned long long)total,
             observed ? " (stats on)" : "");
    NPK_REPORT(npk_snapshot_restore(fresh, snap, n, NULL) == NPK_OK, "%s: %s\n", what,
               npk_error(fresh));
    state restored; /* at once: every register as it was saved, not only the end */
    capture(fresh, &restored);
    same(&saved, &restored, what);
    release(&saved);
    release(&restored);
    finish(fresh, &got);
    same_outcome(&want, &got, what);
    drop(&got);

    /* a machine that ran another program holds decodes of other words at the same pcs */
    snprintf(what, sizeof what, "%s seed %u at %llu/%llu%s, restored over another program",
             spec, seed, (unsigned long long)at, (unsigned long long)total,
             observed ? " (stats on)" : "");
    npk_set_output(stale, sink, sink);
    npk_run(stale, 0, &stop);
    NPK_REPORT(npk_snapshot_restore(stale, snap, n, NULL) == NPK_OK, "%s: %s\n", what,
               npk_error(stale));
    finish(stale, &got);
    same_outcome(&want, &got, what);
    drop(&got);
    drop(&want);
    fclose(sink);
    npk_free(snap);
out:
    npk_destroy(a);
    npk_destroy(fresh);
    npk_destroy(stale);
    free(src);
    free(other);
}

/* The XOR step saved after every one of its cycles and restored into a fresh machine: at once
 * the same registers and UB, and at the end the same as the whole run. */
static void tt_every_cycle(void)
{
    char *src = tt_xor();
    npk_machine *whole = make("tinytpu:lr=0.75");
    npk_stop stop;
    if (!src || !whole || !load_src(whole, src)) {
        NPK_REPORT(0, "tinytpu every cycle: cannot set up\n");
        free(src);
        npk_destroy(whole);
        return;
    }
    npk_stats_enable(whole, 1);
    npk_run(whole, 0, &stop);
    state end;
    capture(whole, &end);
    uint64_t n = 0;
    npk_reg_read(whole, "cycle", &n);
    NPK_CHECK(n > 50);
    for (uint64_t k = 0; k <= n; k++) {
        npk_machine *a = make("tinytpu:lr=0.75"), *b = make("tinytpu:lr=0.75");
        if (!a || !b || !load_src(a, src)) {
            NPK_REPORT(0, "tinytpu every cycle: cannot set up\n");
            npk_destroy(a);
            npk_destroy(b);
            break;
        }
        npk_stats_enable(a, 1);
        npk_stats_enable(b, 1);
        if (k)
            npk_run(a, k, &stop);
        uint8_t *snap = NULL;
        size_t len = 0;
        NPK_CHECK(npk_snapshot_save(a, &snap, &len) == NPK_OK);
        NPK_CHECK(npk_snapshot_restore(b, snap, len, NULL) == NPK_OK);
        npk_free(snap);
        char what[96];
        snprintf(what, sizeof what, "tinytpu XOR step saved after cycle %llu",
                 (unsigned long long)k);
        state sa, sb;
        capture(a, &sa);
        capture(b, &sb);
        same(&sa, &sb, what);
        release(&sa);
        release(&sb);
        npk_run(b, 0, &stop);
        NPK_REPORT(stop.reason == NPK_STOP_EXIT, "%s: %s\n", what, stop.message);
        capture(b, &sb);
        snprintf(what, sizeof what, "tinytpu XOR step resumed after cycle %llu",
                 (unsigned long long)k);
        same(&end, &sb, what);
        release(&sb);
        npk_destroy(a);
        npk_destroy(b);
    }
    release(&end);
    npk_destroy(whole);
    free(src);
}

/* ---- refusals ----------------------------------------------------------------------------- */

/* The END section's checksum over everything before it, after an edit. */
static void recrc(uint8_t *b, size_t n)
{
    uint32_t c = npk_crc32(0, b, n - 4);
    for (int i = 0; i < 4; i++)
        b[n - 4 + (size_t)i] = (uint8_t)(c >> (8 * i));
}

static size_t find_tag(const uint8_t *b, size_t n, const char *tag)
{
    for (size_t i = 16; i + 4 <= n; i++)
        if (memcmp(b + i, tag, 4) == 0)
            return i;
    return 0;
}

/* Restoring `bad` into m fails with `status` and a message containing `msg`, and leaves m
 * exactly as it was. */
static void refused(npk_machine *m, const uint8_t *bad, size_t n, npk_status status,
                    const char *msg, const char *what)
{
    state before, after;
    capture(m, &before);
    npk_status st = npk_snapshot_restore(m, bad, n, NULL);
    NPK_REPORT(st == status, "%s: status %s, want %s (%s)\n", what, npk_status_name(st),
               npk_status_name(status), npk_error(m));
    if (msg)
        NPK_CHECK_CONTAINS(npk_error(m), msg);
    capture(m, &after);
    char w[160];
    snprintf(w, sizeof w, "%s: machine changed", what);
    same(&before, &after, w);
    release(&before);
    release(&after);
}

static void refusals_toy(void)
{
    rng_state = 99;
    char *src = toy_program(), *other = toy_program();
    npk_machine *a = make("toy:mem=4K"), *victim = make("toy:mem=4K"), *rv = make("rvnpu"),
                *big = make("toy:mem=8K");
    FILE *sink = fopen("/dev/null", "w");
    npk_stop stop;
    if (!a || !victim || !rv || !big || !load_src(a, src) || !load_src(victim, other)) {
        NPK_REPORT(0, "refusals: cannot set up\n");
        goto out;
    }
    npk_set_output(a, sink, sink);
    npk_set_output(victim, sink, sink);
    npk_stats_enable(a, 1);
    npk_run(a, 10, &stop);
    npk_run(victim, 0, &stop); /* a state unlike the snapshot's */
    uint8_t *snap = NULL;
    size_t n = 0;
    NPK_CHECK(npk_snapshot_save(a, &snap, &n) == NPK_OK);
    if (!snap)
        goto out;
    /* header: magic, format version, flags; INFO: length-prefixed version, target, config */
    NPK_CHECK(n > 100 && memcmp(snap, "NPKSNAP", 8) == 0 && snap[8] == 1);
    NPK_CHECK(memcmp(snap + 16, "INFO", 4) == 0 && memcmp(snap + 32, "0.1.0", 5) == 0);
    NPK_CHECK(memcmp(snap + n - 16, "END ", 4) == 0);

    refused(rv, snap, n, NPK_ERR_ARG, "a snapshot of target toy, not of rvnpu", "other target");
    refused(big, snap, n, NPK_ERR_ARG, "configuration 'mem=4096'; this machine's is 'mem=8192'",
            "other configuration");

    uint8_t *bad = malloc(n);
    if (!bad)
        goto out;
    memcpy(bad, snap, n);
    memcpy(bad + 32, "9.9.9", 5);
    recrc(bad, n);
    refused(victim, bad, n, NPK_ERR_FORMAT, "made by npukit 9.9.9; this is npukit 0.1.0",
            "other npukit version");

    memcpy(bad, snap, n);
    bad[8] = 2;
    refused(victim, bad, n, NPK_ERR_FORMAT, "snapshot format version 2", "other format");

    memcpy(bad, snap, n);
    memcpy(bad, "NPKSNAQ", 7);
    refused(victim, bad, n, NPK_ERR_FORMAT, "not an npukit snapshot", "no magic");

    /* the TIME section is last: REGS and MEM before it check out, yet nothing may be written */
    size_t time_at = n - 16 - 12 - 72;
    NPK_CHECK(memcmp(snap + time_at, "TIME", 4) == 0);
    memcpy(bad, snap, n);
    memcpy(bad + time_at, "TIMX", 4);
    recrc(bad, n);
    refused(victim, bad, n, NPK_ERR_FORMAT, "no section 'TIME'", "TIME renamed");

    /* a memory run past the end of memory, under a valid checksum */
    size_t mem_at = find_tag(snap, n, "MEM ");
    NPK_CHECK(mem_at != 0);
    memcpy(bad, snap, n);
    /* MEM payload: name length 3, "mem", size, then the first run's offset */
    bad[mem_at + 12 + 4 + 3 + 8 + 1] = 0x10;
    recrc(bad, n);
    refused(victim, bad, n, NPK_ERR_FORMAT, "outside its 4096 bytes", "MEM run out of range");

    /* a section no toy snapshot has, found only after the target's sections checked out */
    uint8_t *extra = malloc(n + 12);
    if (extra) {
        memcpy(extra, snap, n - 16);
        memcpy(extra + n - 16, "XTRA\0\0\0\0\0\0\0\0", 12);
        memcpy(extra + n - 4, snap + n - 16, 16);
        recrc(extra, n + 12);
        refused(victim, extra, n + 12, NPK_ERR_FORMAT, "unexpected section 'XTRA' in a toy "
                "snapshot", "extra section");
        free(extra);
    }

    /* every truncation and every single corrupted byte */
    state before, after;
    capture(victim, &before);
    unsigned long wrong = 0;
    for (size_t len = 0; len < n; len++)
        wrong += npk_snapshot_restore(victim, snap, len, NULL) != NPK_ERR_FORMAT;
    NPK_REPORT(wrong == 0, "%lu truncations were not refused\n", wrong);
    NPK_CHECK(npk_snapshot_restore(victim, snap, n - 1, NULL) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(victim), "truncated");
    wrong = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(bad, snap, n);
        bad[i] ^= (uint8_t)(1u << (i % 8));
        wrong += npk_snapshot_restore(victim, bad, n, NULL) == NPK_OK;
    }
    NPK_REPORT(wrong == 0, "%lu corrupted snapshots were restored\n", wrong);
    memcpy(bad, snap, n);
    bad[n / 2] ^= 0x40;
    NPK_CHECK(npk_snapshot_restore(victim, bad, n, NULL) != NPK_OK);
    capture(victim, &after);
    same(&before, &after, "after every truncation and corruption: machine changed");
    release(&before);
    release(&after);

    /* a name in messages; what a snapshot is of, without a machine */
    NPK_CHECK(npk_snapshot_restore(victim, snap, n - 1, "half.npks") == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(npk_error(victim), "half.npks: truncated");
    char tname[16], tconf[64], terr[256];
    NPK_CHECK(npk_snapshot_info(snap, n, NULL, tname, sizeof tname, tconf, sizeof tconf, terr,
                                sizeof terr) == NPK_OK);
    NPK_CHECK_EQ_STR(tname, "toy");
    NPK_CHECK_EQ_STR(tconf, "mem=4096");
    NPK_CHECK(npk_snapshot_info(snap, n - 1, "x.npks", tname, sizeof tname, tconf,
                                sizeof tconf, terr, sizeof terr) == NPK_ERR_FORMAT);
    NPK_CHECK_CONTAINS(terr, "x.npks: truncated");
    NPK_CHECK(npk_snapshot_info(snap, n, NULL, tname, 3, tconf, sizeof tconf, terr,
                                sizeof terr) == NPK_ERR_RANGE);

    /* and the good one still restores */
    NPK_CHECK(npk_snapshot_restore(victim, snap, n, NULL) == NPK_OK);
    uint64_t pc_a = 1, pc_v = 2;
    npk_reg_read(a, "pc", &pc_a);
    npk_reg_read(victim, "pc", &pc_v);
    NPK_CHECK_EQ_U64(pc_v, pc_a);
    free(bad);
    npk_free(snap);
out:
    fclose(sink);
    npk_destroy(a);
    npk_destroy(victim);
    npk_destroy(rv);
    npk_destroy(big);
    free(src);
    free(other);
}

/* rvnpu: a register value the architecture cannot hold; guest files open; files. */
static void refusals_rvnpu(void)
{
    rng_state = 7;
    char *src = rv_program();
    npk_machine *a = make("rvnpu:ram_size=64K"), *victim = make("rvnpu:ram_size=64K");
    FILE *sink = fopen("/dev/null", "w");
    npk_stop stop;
    uint8_t *snap = NULL, *bad = NULL;
    size_t n = 0;
    if (!a || !victim || !load_src(a, src) || !load_src(victim, src))
        goto out;
    npk_set_output(a, sink, sink);
    npk_set_output(victim, sink, sink);
    npk_run(a, 30, &stop);
    NPK_CHECK(npk_snapshot_save(a, &snap, &n) == NPK_OK);
    if (!snap || !(bad = malloc(n)))
        goto out;
    size_t cpu = find_tag(snap, n, "CPU ");
    NPK_CHECK(cpu != 0);
    memcpy(bad, snap, n);
    bad[cpu + 12] = 1; /* x0 */
    recrc(bad, n);
    refused(victim, bad, n, NPK_ERR_FORMAT, "section 'CPU ': a register holds a value it "
            "cannot have (x0 0x1", "rvnpu x0");
    memcpy(bad, snap, n);
    bad[cpu + 12 + 4 * 64 + 4 + 4] = 8; /* frm */
    recrc(bad, n);
    refused(victim, bad, n, NPK_ERR_FORMAT, "frm 8", "rvnpu frm");

    /* files: save to a path, restore from it */
    char dir[] = "/tmp/npk_snapXXXXXX";
    if (!mkdtemp(dir))
        goto out;
    char path[64];
    snprintf(path, sizeof path, "%s/s.npks", dir);
    NPK_CHECK(npk_snapshot_save_file(a, path) == NPK_OK);
    NPK_CHECK(npk_snapshot_restore_file(victim, path) == NPK_OK);
    uint64_t r1 = 1, r2 = 2;
    npk_reg_read(a, "pc", &r1);
    npk_reg_read(victim, "pc", &r2);
    NPK_CHECK(r1 == r2 && r1 > 0x80000000u);
    NPK_CHECK(npk_snapshot_save_file(a, "/nonexistent-dir/s.npks") == NPK_ERR_IO);
    NPK_CHECK_CONTAINS(npk_error(a), "/nonexistent-dir/s.npks: cannot write snapshot");
    NPK_CHECK(npk_snapshot_restore_file(victim, "/nonexistent-dir/s.npks") == NPK_ERR_IO);
    NPK_CHECK_CONTAINS(npk_error(victim), "/nonexistent-dir/s.npks");
    unlink(path);

    /* a guest file open: refused, naming the descriptor */
    snprintf(path, sizeof path, "%s/in.txt", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("hello", f);
        fclose(f);
    }
    char spec[128];
    snprintf(spec, sizeof spec, "rvnpu:fs_root=%s", dir);
    npk_machine *fm = make(spec);
    if (fm && load_src(fm, "li a0, -100\nla a1, name\nli a2, 0\nli a7, 56\necall\n"
                           "spin: j spin\nname: .asciz \"in.txt\"\n")) {
        npk_run(fm, 10, &stop);
        uint64_t fd = 0;
        npk_reg_read(fm, "a0", &fd);
        NPK_CHECK_EQ_U64(fd, 3);
        uint8_t *p = NULL;
        size_t pn = 0;
        NPK_CHECK(npk_snapshot_save(fm, &p, &pn) == NPK_ERR_STATE && p == NULL);
        NPK_CHECK_CONTAINS(npk_error(fm), "guest has files open (descriptors 3)");
    }
    npk_destroy(fm);
    unlink(path);
    rmdir(dir);
out:
    free(bad);
    npk_free(snap);
    fclose(sink);
    npk_destroy(a);
    npk_destroy(victim);
    free(src);
}

/* The little-endian u64 at b + off. */
static uint64_t le64(const uint8_t *b, size_t off)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[off + (size_t)i];
    return v;
}

/* The lines of a commit log from the first whose pc field is `from` on, without their
 * sequence numbers (a restored machine numbers its records from 1). */
static char *log_tail(const char *log, const char *from)
{
    const char *p = log, *hit = strstr(log, from);
    while (p && *p && strchr(p, '\n') && strchr(p, '\n') < hit) /* the line of the hit */
        p = strchr(p, '\n') + 1;
    if (!hit)
        p = NULL;
    text t = {NULL, 0, 0};
    add(&t, "%s", "");
    for (; p && *p;) {
        const char *nl = strchr(p, '\n'), *sp = strchr(p, ' ');
        if (!nl || !sp)
            break;
        add(&t, "%.*s\n", (int)(nl - sp - 1), sp + 1);
        p = nl + 1;
    }
    return t.s;
}

/* pccx: contents a machine cannot have, each refused with the machine unchanged; another
 * timing configuration; a machine halted by a fault; the commit log after a restore. */
static void refusals_pccx(void)
{
    static const char src[] =
        ".host byte=0\n.bf16 1.0, 2.0, 3.0, 4.0\n"
        ".weight A, k=4, n=2\n  .scale 1, 1\n  .row 1, 1, 1, 1\n  .row 1, -1, 1, -1\n"
        ".endweight\n"
        "    memset fmap, idx=1, a=1, b=4, c=1\n"
        "    memset fmap, idx=2, a=1, b=2, c=1\n"
        "    memcpy.h2l dst=0, aux=0, shape=1, async\n"
        ".wpush A\n    gemv dst=4, src=0, size=2, shape=1, findemax\n"
        ".wpush A\n    gemv dst=5, src=0, size=2, shape=1, accm\n"
        "    exp src=32, dst=48, len=2, sub_emax\n"
        "    gemv dst=6, src=0, size=2, shape=1\n"; /* no tensor left: a fault */
    const char *spec = "pccx:host_ddr_bytes=64K";
    npk_machine *a = make(spec), *victim = make(spec), *fifo4 = make(
        "pccx:host_ddr_bytes=64K,cmd_fifo_depth=4");
    npk_stop stop;
    uint8_t *snap = NULL, *bad = NULL;
    size_t n = 0;
    char *full = NULL, *part = NULL, *want = NULL, *got = NULL;
    size_t len = 0;
    if (!a || !victim || !fifo4 || !load_src(a, src) || !load_src(victim, src))
        goto out;
    /* the whole run's commit log, for later */
    FILE *f = open_memstream(&full, &len);
    NPK_CHECK(f && npk_commit_log(victim, f, NPK_COMMIT_TEXT) == NPK_OK);
    npk_run(victim, 0, &stop);
    npk_commit_log(victim, NULL, NPK_COMMIT_TEXT);
    fclose(f);
    NPK_CHECK(stop.reason == NPK_STOP_FAULT);
    NPK_CHECK(npk_reset(victim) == NPK_OK);

    npk_run(a, 4, &stop); /* the second GEMV waits for the first (accm: RAW), all in flight */
    NPK_CHECK(npk_snapshot_save(a, &snap, &n) == NPK_OK);
    if (!snap || !(bad = malloc(n)))
        goto out;
    size_t cc = find_tag(snap, n, "CC  "), wq = find_tag(snap, n, "WGHT"),
           tm = find_tag(snap, n, "TIME");
    NPK_CHECK(cc && wq && tm);
    memcpy(bad, snap, n);
    bad[cc + 12 + 2] = 2; /* cc_fmap[0].X = 0x20000 */
    recrc(bad, n);
    refused(victim, bad, n, NPK_ERR_FORMAT, "section 'CC  ': cc_fmap[0].X = 0x20000 does not "
            "fit 17 bits", "pccx constant cache");
    memcpy(bad, snap, n);
    bad[wq + 12 + le64(snap, wq + 4) - 4] = 99; /* the last queued handle */
    recrc(bad, n);
    refused(victim, bad, n, NPK_ERR_FORMAT, "queue entry 0 names tensor 99", "pccx queue");
    memcpy(bad, snap, n);
    bad[tm + 12 + 8 + 11 * 8] = 7; /* instruction 0's engine */
    recrc(bad, n);
    refused(victim, bad, n, NPK_ERR_FORMAT, "section 'TIME': instruction 0: engine 7",
            "pccx timing record");
    memcpy(bad, snap, n);
    bad[tm + 12] = 5; /* 5 timing records, 4 issued */
    recrc(bad, n);
    refused(victim, bad, n, NPK_ERR_FORMAT, "4 instructions issued, but 5 timing records",
            "pccx record count");
    /* the configuration names every timing parameter that is not the default */
    refused(fifo4, snap, n, NPK_ERR_ARG, ",cmd_fifo_depth=4'", "pccx timing configuration");

    /* restored into a fresh machine, the log goes on as the whole run's did: from issue
     * index 4 on the same records (the occupancies included), ending with the same fault */
    npk_machine *fresh = make(spec);
    NPK_CHECK(fresh && npk_snapshot_restore(fresh, snap, n, NULL) == NPK_OK);
    f = open_memstream(&part, &len);
    NPK_CHECK(f && fresh && npk_commit_log(fresh, f, NPK_COMMIT_TEXT) == NPK_OK);
    npk_stop s2;
    npk_run(fresh, 0, &s2);
    npk_commit_log(fresh, NULL, NPK_COMMIT_TEXT);
    fclose(f);
    want = log_tail(full, " 0x0000000000000004 ");
    got = log_tail(part, " 0x0000000000000004 ");
    NPK_CHECK(want && got && strlen(want) > 20 && strcmp(want, got) == 0);
    if (want && got && strcmp(want, got))
        fprintf(stderr, "log after the restore:\n%swant:\n%s", got, want);
    NPK_CHECK(s2.reason == NPK_STOP_FAULT && strstr(s2.message, "PCCX_E_WEIGHT_EMPTY"));
    /* halted: saved and restored as such, and it stays halted */
    uint8_t *h = NULL;
    size_t hn = 0;
    NPK_CHECK(fresh && npk_snapshot_save(fresh, &h, &hn) == NPK_OK);
    NPK_CHECK(h && npk_snapshot_restore(victim, h, hn, NULL) == NPK_OK);
    uint64_t status = 0;
    NPK_CHECK(npk_reg_read(victim, "status", &status) == NPK_OK && (status & 4));
    npk_run(victim, 0, &stop);
    NPK_CHECK(stop.reason == NPK_STOP_FAULT &&
              strstr(stop.message, "the machine is halted after a fault"));
    /* a reset after a restore has no assembled program to return to: all zero, no words */
    NPK_CHECK(npk_reset(victim) == NPK_OK);
    uint64_t wq_len = 1, prog_size = 1;
    NPK_CHECK(npk_reg_read(victim, "weight_queue", &wq_len) == NPK_OK && wq_len == 0);
    for (size_t i = 0; i < npk_space_count(victim); i++)
        if (!strcmp(npk_space(victim, i)->name, "prog"))
            prog_size = npk_space(victim, i)->size;
    NPK_CHECK_EQ_U64(prog_size, 7 * 8); /* the words stay: pushed from pc 0 again */
    npk_free(h);
    npk_destroy(fresh);
out:
    free(full);
    free(part);
    free(want);
    free(got);
    free(bad);
    npk_free(snap);
    npk_destroy(a);
    npk_destroy(victim);
    npk_destroy(fifo4);
}

/* tinytpu: another lane count is another configuration; contents a tinytpu cannot hold,
 * under a valid checksum, in the first section (PROG), in REGS and in the last target section
 * (PES, after everything else checked out): each refused, the machine unchanged. */
static void refusals_tinytpu(void)
{
    rng_state = 77;
    tt_lanes = 2;
    char *src = tt_program(), *other = tt_program();
    npk_machine *a = make("tinytpu:ub_words=1024"), *victim = make("tinytpu:ub_words=1024"),
                *wide = make("tinytpu:lanes=3,ub_words=1024");
    npk_stop stop;
    uint8_t *snap = NULL, *bad = NULL;
    size_t n = 0;
    if (!a || !victim || !wide || !load_src(a, src) || !load_src(victim, other)) {
        NPK_REPORT(0, "tinytpu refusals: cannot set up\n");
        goto out;
    }
    npk_run(a, 30, &stop);
    npk_run(victim, 0, &stop);
    NPK_CHECK(npk_snapshot_save(a, &snap, &n) == NPK_OK);
    if (!snap || !(bad = malloc(n)))
        goto out;
    refused(wide, snap, n, NPK_ERR_ARG, "a snapshot of tinytpu with configuration 'lanes=2,",
            "tinytpu: other lanes");
    size_t prog = find_tag(snap, n, "PROG"), regs = find_tag(snap, n, "REGS"),
           pes = find_tag(snap, n, "PES ");
    NPK_CHECK(prog && regs && pes && prog < regs && regs < pes);
    /* PROG payload: u64 cycles, then cycle 1: rst sw start T pathway */
    memcpy(bad, snap, n);
    bad[prog + 12 + 8 + 4] = 16;
    recrc(bad, n);
    refused(victim, bad, n, NPK_ERR_FORMAT, "section 'PROG': cycle 1: pathway is out of range",
            "tinytpu: pathway 16");
    /* REGS payload: u64 cycle */
    memcpy(bad, snap, n);
    bad[regs + 12 + 7] = 0x7F;
    recrc(bad, n);
    refused(victim, bad, n, NPK_ERR_FORMAT, "is past the end of the", "tinytpu: cycle");
    /* PES payload: PE(0,0) shadow active xout psum wout (u16), then vout */
    memcpy(bad, snap, n);
    bad[pes + 12 + 10] = 2;
    recrc(bad, n);
    refused(victim, bad, n, NPK_ERR_FORMAT,
            "section 'PES ': a PE's vout holds a value it cannot have", "tinytpu: vout 2");
    /* the good one goes in: the victim now runs on as a would */
    NPK_CHECK(npk_snapshot_restore(victim, snap, n, NULL) == NPK_OK);
    outcome want, got;
    finish(a, &want);
    finish(victim, &got);
    same_outcome(&want, &got, "tinytpu: restored over another program");
    drop(&want);
    drop(&got);
out:
    free(bad);
    npk_free(snap);
    npk_destroy(a);
    npk_destroy(victim);
    npk_destroy(wide);
    free(src);
    free(other);
}

/* CRC-32 check value of "123456789" (the standard IEEE test vector). */
static void crc(void)
{
    NPK_CHECK_EQ_U64(npk_crc32(0, (const uint8_t *)"123456789", 9), 0xcbf43926u);
    NPK_CHECK_EQ_U64(npk_crc32(npk_crc32(0, (const uint8_t *)"1234", 4),
                               (const uint8_t *)"56789", 5), 0xcbf43926u);
}

int main(int argc, char **argv)
{
    xor_path = argc > 1 ? argv[1] : NULL;
    NPK_CHECK(xor_path != NULL); /* usage: test_snapshot XOR_STEP */
    crc();
    for (unsigned seed = 1; seed <= 24; seed++) {
        rng_state = 0x9E3779B97F4A7C15ull * seed;
        property("toy:mem=4K", toy_program, seed & 1, seed);
        property("rvnpu:ram_size=64K", rv_program, seed & 1, seed);
    }
    /* rev2 and the default 4 MiB RAM (sparse memory sections) */
    rng_state = 12345;
    property("rvnpu:isa_rev=rev2", rv_program, 1, 100);
    onpu_checker = make("opennpu");
    for (unsigned seed = 1; seed <= 12 && onpu_checker; seed++) {
        rng_state = 0x2545F4914F6CDD1Dull * seed;
        property(seed & 2 ? "opennpu:top" : "opennpu:mem_size=64K", onpu_program, seed & 1,
                 seed);
    }
    npk_destroy(onpu_checker);
    for (unsigned seed = 1; seed <= 12; seed++) {
        rng_state = 0xD1B54A32D192ED03ull * seed;
        pccx_hw = seed % 4 == 3;
        property(pccx_hw ? "pccx:mode=hw-compat,host_ddr_bytes=64K" : "pccx:host_ddr_bytes=64K",
                 pccx_program, seed & 1, seed);
    }
    pccx_hw = 0;
    /* tinytpu at N = 2 (the RTL's walk), 3 (the per-lane weight rule of tinytpu spec C2.3) and 4 */
    for (unsigned seed = 1; seed <= 18; seed++) {
        rng_state = 0x9E3779B97F4A7C15ull * (seed + 1000);
        tt_lanes = 2 + seed % 3;
        char spec[64];
        snprintf(spec, sizeof spec, "tinytpu:lanes=%u,ub_words=1024", tt_lanes);
        property(spec, tt_program, seed & 1, seed);
    }
    for (unsigned seed = 1; seed <= 24 && xor_path; seed++) {
        rng_state = 0x2545F4914F6CDD1Dull * (seed + 2000);
        property("tinytpu:lr=0.75", tt_xor, seed & 1, seed);
    }
    tt_every_cycle();
    refusals_toy();
    refusals_rvnpu();
    refusals_pccx();
    refusals_tinytpu();
    return npk_test_done();
}
