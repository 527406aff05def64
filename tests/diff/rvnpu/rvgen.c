/* rvnpu differential test: random RV32IMF program generator (see rvgen.h). Every instruction
 * word is built from a row of src/targets/rvnpu/isa.def: its operand kinds say which fields
 * to fill, its match supplies the opcode bits. There is no second opcode table here. */
#include "rvgen.h"

#include <stdlib.h>
#include <string.h>

/* ---- the ISA table, read from isa.def ----------------------------------------------------- */

typedef struct rvg_row {
    const char *mn;
    uint32_t match, mask;
    const char *format, *ops, *cls;
} rvg_row;

static const rvg_row rows[] = {
#define RVNPU_INSN(id, mnemonic, match, mask, format, operands, class, rev, count, elem, summary) \
    {mnemonic, match, mask, #format, operands, #class},
#include "targets/rvnpu/isa.def"
};
#define N_ROWS (sizeof rows / sizeof rows[0])

/* Operand kinds this generator can fill. Rows using any other kind are not used in bodies. */
enum { K_XD, K_XS1, K_XS2, K_FD, K_FS1, K_FS2, K_FS3, K_IMM12, K_SHAMT, K_UIMM20, K_MEM_I,
       K_MEM_S, K_RM, K_PCREL13, K_CSR, K_ZIMM, K_UNKNOWN };
static const char *const kind_names[] = {"xd", "xs1", "xs2", "fd", "fs1", "fs2", "fs3",
                                         "imm12", "shamt", "uimm20", "mem_i", "mem_s", "rm",
                                         "pcrel13", "csr", "zimm"};
#define MAX_OPS 6

typedef struct row_info {
    int nk;
    int kinds[MAX_OPS];
    int usable;   /* 1: body instruction, 2: forward branch */
} row_info;

static row_info info[N_ROWS];
static int body_rows[3][N_ROWS];   /* by class: 0 = I, 1 = M, 2 = F */
static size_t n_body[3];
static int branch_rows[N_ROWS];
static size_t n_branch;
static int inited;
static int r_add, r_fmv_x_w, r_lui, r_addi, r_fmv_w_x, r_sw, r_fsw, r_csrrw, r_csrrs, r_csrrwi, r_ecall;

/* Instruction bits a kind occupies; a row is only usable when these miss its mask. */
static uint32_t kind_bits(int k)
{
    switch (k) {
    case K_XD: case K_FD: return 0x1Fu << 7;
    case K_XS1: case K_FS1: case K_ZIMM: return 0x1Fu << 15;
    case K_XS2: case K_FS2: case K_SHAMT: return 0x1Fu << 20;
    case K_FS3: return 0x1Fu << 27;
    case K_RM: return 7u << 12;
    case K_IMM12: case K_CSR: return 0xFFFu << 20;
    case K_UIMM20: return 0xFFFFFu << 12;
    case K_MEM_I: return 0xFFFu << 20 | 0x1Fu << 15;
    case K_MEM_S: case K_PCREL13: return 0x7Fu << 25 | 0x1Fu << 7 | 0x1Fu << 15 |
                                          (k == K_PCREL13 ? 0x1Fu << 20 : 0);
    default: return 0;
    }
}

static int parse_ops(const char *s, int *kinds)
{
    int n = 0;
    while (*s) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        int k = K_UNKNOWN;
        for (int i = 0; i < K_UNKNOWN; i++)
            if (strlen(kind_names[i]) == len && strncmp(kind_names[i], s, len) == 0)
                k = i;
        if (n < MAX_OPS)
            kinds[n++] = k;
        else
            return -1;
        s += len;
        if (*s == ',')
            s++;
    }
    return n;
}

static int find_row(const char *mn)
{
    for (size_t i = 0; i < N_ROWS; i++)
        if (strcmp(rows[i].mn, mn) == 0)
            return (int)i;
    return -1;
}

static int has_kind(int row, int k)
{
    for (int i = 0; i < info[row].nk; i++)
        if (info[row].kinds[i] == k)
            return 1;
    return 0;
}

int rvg_init(FILE *diag)
{
    if (inited)
        return 0;
    /* Instructions that leave straight-line code or the process; never in a body. */
    static const char *const never[] = {"jalr", "jal", "ecall", "ebreak", "mret", "wfi"};
    n_body[0] = n_body[1] = n_body[2] = n_branch = 0;
    for (size_t i = 0; i < N_ROWS; i++) {
        row_info *ri = &info[i];
        ri->nk = parse_ops(rows[i].ops, ri->kinds);
        ri->usable = 0;
        if (ri->nk < 0)
            continue;
        uint32_t bits = 0;
        int unknown = 0, branch = 0;
        for (int k = 0; k < ri->nk; k++) {
            if (ri->kinds[k] >= K_PCREL13)
                unknown = 1;
            if (ri->kinds[k] == K_PCREL13)
                branch = 1;
            bits |= kind_bits(ri->kinds[k]);
        }
        if (bits & rows[i].mask) {
            if (diag)
                fprintf(diag, "rvgen: row %s: operand fields overlap its mask, not used\n",
                        rows[i].mn);
            continue;
        }
        int skip = 0;
        for (size_t j = 0; j < sizeof never / sizeof never[0]; j++)
            if (strcmp(rows[i].mn, never[j]) == 0)
                skip = 1;
        if (skip)
            continue;
        int cls = strcmp(rows[i].cls, "I") == 0 ? 0 : strcmp(rows[i].cls, "M") == 0 ? 1
                  : strcmp(rows[i].cls, "F") == 0 ? 2 : -1;
        if (cls < 0)
            continue;
        if (branch && cls == 0 && ri->nk == 3 && ri->kinds[0] == K_XS1 &&
            ri->kinds[1] == K_XS2) {
            ri->usable = 2;
            branch_rows[n_branch++] = (int)i;
        } else if (!unknown) {
            ri->usable = 1;
            body_rows[cls][n_body[cls]++] = (int)i;
        }
    }
    /* rows the fixed prologue, epilogue and helper sequences are built from */
    static const struct { const char *mn; int *row; } fixed[] = {
        {"add", &r_add},     {"fmv.x.w", &r_fmv_x_w}, {"lui", &r_lui},     {"addi", &r_addi},
        {"fmv.w.x", &r_fmv_w_x}, {"sw", &r_sw},       {"fsw", &r_fsw},     {"csrrw", &r_csrrw},
        {"csrrs", &r_csrrs}, {"csrrwi", &r_csrrwi},   {"ecall", &r_ecall},
    };
    int missing = 0;
    for (size_t j = 0; j < sizeof fixed / sizeof fixed[0]; j++) {
        *fixed[j].row = find_row(fixed[j].mn);
        if (*fixed[j].row < 0) {
            missing = 1;
            if (diag)
                fprintf(diag, "rvgen: isa.def has no row \"%s\"\n", fixed[j].mn);
        }
    }
    if (missing || n_body[0] < 10 || n_body[1] < 8 || n_body[2] < 20) {
        if (diag)
            fprintf(diag,
                    "rvgen: src/targets/rvnpu/isa.def lacks the base RV32IMF rows this test "
                    "needs (found %zu I, %zu M, %zu F body rows)\n",
                    n_body[0], n_body[1], n_body[2]);
        return -1;
    }
    inited = 1;
    return 0;
}

/* ---- encoding ------------------------------------------------------------------------------ */

static uint32_t enc_row(int row, const rvg_fields *fl)
{
    uint32_t w = rows[row].match;
    uint32_t imm = (uint32_t)fl->imm;
    for (int k = 0; k < info[row].nk; k++) {
        switch (info[row].kinds[k]) {
        case K_XD: case K_FD: w |= (fl->rd & 31u) << 7; break;
        case K_XS1: case K_FS1: w |= (fl->rs1 & 31u) << 15; break;
        case K_XS2: case K_FS2: w |= (fl->rs2 & 31u) << 20; break;
        case K_FS3: w |= (fl->rs3 & 31u) << 27; break;
        case K_RM: w |= (fl->rm & 7u) << 12; break;
        case K_IMM12: w |= (imm & 0xFFFu) << 20; break;
        case K_SHAMT: w |= (imm & 31u) << 20; break;
        case K_UIMM20: w |= (imm & 0xFFFFFu) << 12; break;
        case K_CSR: w |= (fl->csr & 0xFFFu) << 20; break;
        case K_ZIMM: w |= (imm & 31u) << 15; break;
        case K_MEM_I: w |= (fl->rs1 & 31u) << 15 | (imm & 0xFFFu) << 20; break;
        case K_MEM_S:
            w |= (fl->rs1 & 31u) << 15 | (imm & 31u) << 7 | ((imm >> 5) & 0x7Fu) << 25;
            break;
        case K_PCREL13:
            w |= ((imm >> 12) & 1u) << 31 | ((imm >> 5) & 0x3Fu) << 25 | ((imm >> 1) & 0xFu) << 8 |
                 ((imm >> 11) & 1u) << 7;
            break;
        default: break;
        }
    }
    return w;
}

int rvg_encode(const char *mnemonic, const rvg_fields *fl, uint32_t *w)
{
    int r = rvg_row_index(mnemonic);
    if (r < 0 || info[r].nk < 0)
        return -1;
    *w = enc_row(r, fl);
    return 0;
}

int rvg_row_index(const char *mnemonic)
{
    rvg_init(NULL);   /* parses every row even when the table is incomplete */
    return find_row(mnemonic);
}

/* ---- randomness and interesting values ---------------------------------------------------- */

uint64_t rvg_mix(uint64_t seed, uint64_t k)
{
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * (k + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

typedef struct rng { uint64_t s; } rng;

static uint32_t rnd(rng *r)
{
    r->s += 0x9E3779B97F4A7C15ull;
    uint64_t z = r->s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}

static uint32_t below(rng *r, uint32_t n) { return (uint32_t)(((uint64_t)rnd(r) * n) >> 32); }

static uint32_t int_value(rng *r)
{
    static const uint32_t special[] = {0, 1, 0xFFFFFFFFu, 2, 0x80000000u, 0x7FFFFFFFu,
                                       0x80000001u, 0xFFFF, 0x8000, 0xFFFF8000u, 0x7FF, 0x800,
                                       0xFFFFF800u, 0x01000001u, 0x00FFFFFFu, 0xFFFFFFFEu};
    switch (below(r, 6)) {
    case 0: case 1: return special[below(r, sizeof special / sizeof special[0])];
    case 2: return (uint32_t)((int32_t)below(r, 33) - 16);
    case 3: return 1u << below(r, 32);
    case 4: return (1u << below(r, 32)) + (uint32_t)((int32_t)below(r, 5) - 2);
    default: return rnd(r);
    }
}

static uint32_t float_value(rng *r)
{
    static const uint32_t special[] = {
        0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u,  /* zeros, infinities */
        0x7FC00000u, 0xFFC00000u, 0x7FC12345u,               /* quiet NaNs */
        0x7F800001u, 0xFF812345u, 0x7FBFFFFFu,               /* signalling NaNs */
        0x00000001u, 0x80000001u, 0x007FFFFFu, 0x807FFFFFu,  /* subnormals */
        0x00800000u, 0x80800000u, 0x7F7FFFFFu, 0xFF7FFFFFu,  /* min normal, max finite */
        0x7F000000u, 0x3F800000u, 0xBF800000u, 0x3F000000u, 0xBF000000u, 0x40000000u,
        0x3FC00000u, 0x40200000u, 0xC0200000u, 0x3F7FFFFFu, 0x3EFFFFFFu, 0x34000000u,
        0x4F000000u, 0xCF000000u, 0x4EFFFFFFu, 0x4F800000u, 0x4F7FFFFFu, 0xCF000001u,
        0x4B000000u, 0x4B7FFFFFu, 0x00400000u, 0x1F800000u, 0x5F800000u};
    uint32_t sign = rnd(r) & 0x80000000u, exp, man;
    switch (below(r, 5)) {
    case 0: case 1: return special[below(r, sizeof special / sizeof special[0])];
    case 2:   /* ordinary magnitudes, so arithmetic results stay ordinary and round */
        exp = 127 + below(r, 21) - 10;
        man = below(r, 2) ? rnd(r) & 0x7FFFFF : (rnd(r) & 0x7FFFFF & ~0xFFFu) | below(r, 2);
        return sign | exp << 23 | man;
    case 3: {  /* edges of the exponent range: subnormal results, overflow */
        static const uint32_t edge[] = {0, 1, 2, 23, 24, 25, 103, 150, 151, 230, 252, 253, 254};
        exp = edge[below(r, sizeof edge / sizeof edge[0])];
        return sign | exp << 23 | (rnd(r) & 0x7FFFFF);
    }
    default: return rnd(r);
    }
}

static int32_t imm12_value(rng *r)
{
    static const int32_t special[] = {0, 1, -1, 2047, -2048, 2, -2, 0x7FF, 0x555, -0x556};
    switch (below(r, 3)) {
    case 0: return special[below(r, sizeof special / sizeof special[0])];
    case 1: return (int32_t)below(r, 33) - 16;
    default: return (int32_t)below(r, 4096) - 2048;
    }
}

static uint8_t rm_value(rng *r)
{
    /* dyn (7) uses frm from the prologue's fcsr; 5 and 6 are illegal and not generated */
    static const uint8_t rms[] = {0, 1, 2, 3, 4, 7, 7, 7};
    return rms[below(r, sizeof rms)];
}

static uint8_t dest_x(rng *r)
{
    for (;;) {
        uint8_t d = (uint8_t)below(r, 32);
        if (d != RVG_PIN && d != RVG_ACC && (d != 0 || below(r, 8) == 0))
            return d;
    }
}

/* ---- programs ------------------------------------------------------------------------------ */

static void random_state(rvg_state *s, rng *r)
{
    for (int i = 0; i < 32; i++) {
        s->x[i] = i ? int_value(r) : 0;
        s->f[i] = float_value(r);
    }
    s->fcsr = below(r, 5) << 5 | below(r, 32);
    for (size_t i = 0; i < RVG_SCRATCH_BYTES; i += 4) {
        uint32_t v = below(r, 2) ? float_value(r) : int_value(r);
        for (int b = 0; b < 4; b++)
            s->scratch[i + (size_t)b] = (uint8_t)(v >> (8 * b));
    }
}

static void random_item(rvg_item *it, rng *r, const rvg_opts *o)
{
    memset(it, 0, sizeof *it);
    uint32_t pick = below(r, 100);
    if (pick < 5) {
        it->kind = RVG_K_LI_X;
        it->rd = dest_x(r);
        it->value = int_value(r);
        return;
    }
    if (pick < 12 && !o->no_f) {
        it->kind = RVG_K_LI_F;
        it->rd = (uint8_t)below(r, 32);
        it->rs1 = dest_x(r);   /* integer register the value passes through */
        it->value = float_value(r);
        return;
    }
    if (pick < 16 && !o->no_f) {
        it->kind = RVG_K_FLAGS;
        it->rd = dest_x(r);
        it->observe = 1;
        return;
    }
    if (pick < 17 && !o->no_f) {
        it->kind = RVG_K_FRM;
        it->rd = dest_x(r);
        it->imm = (int32_t)below(r, 5);
        return;
    }
    if (pick < 20 && o->branches && n_branch) {
        it->kind = RVG_K_BRANCH;
        it->row = branch_rows[below(r, (uint32_t)n_branch)];
        it->rs1 = (uint8_t)below(r, 32);
        it->rs2 = below(r, 4) ? (uint8_t)below(r, 32) : it->rs1;
        it->imm = 1 + (int32_t)below(r, 3);
        return;
    }
    int cls;
    uint32_t c = below(r, 100);
    cls = c < 40 ? 0 : c < 55 ? 1 : 2;
    if (cls == 1 && o->no_m)
        cls = 0;
    if (cls == 2 && o->no_f)
        cls = 0;
    it->kind = RVG_K_INSN;
    it->row = body_rows[cls][below(r, (uint32_t)n_body[cls])];
    if (cls == 1 && below(r, 6) == 0) {
        it->kind = RVG_K_MEDGE;
        it->rd = dest_x(r);
        do
            it->rs1 = dest_x(r);
        while (it->rs1 == 0);
        do
            it->rs2 = dest_x(r);
        while (it->rs2 == 0 || it->rs2 == it->rs1);
        if (below(r, 2)) {
            it->value = 0x80000000u;
            it->value2 = 0xFFFFFFFFu;
        } else {
            it->value = int_value(r);
            it->value2 = 0;
        }
        it->observe = 1;
        return;
    }
    it->rd = (uint8_t)below(r, 32);
    it->rs1 = (uint8_t)below(r, 32);
    it->rs2 = (uint8_t)below(r, 32);
    it->rs3 = (uint8_t)below(r, 32);
    it->rm = rm_value(r);
    /* the same register twice is a classic source of simulator bugs */
    if (below(r, 8) == 0)
        it->rs2 = it->rs1;
    if (has_kind(it->row, K_XD))
        it->rd = dest_x(r);
    if (has_kind(it->row, K_MEM_I) || has_kind(it->row, K_MEM_S)) {
        it->rs1 = RVG_PIN;
        /* anywhere in the 512-byte scratch buffer, misaligned half the time */
        it->imm = (int32_t)below(r, RVG_SCRATCH_BYTES - 3) - (int32_t)(RVG_SCRATCH_BYTES / 2);
        if (below(r, 2))
            it->imm &= ~3;
    } else if (has_kind(it->row, K_SHAMT)) {
        static const int32_t sh[] = {0, 1, 31, 16};
        it->imm = below(r, 2) ? sh[below(r, 4)] : (int32_t)below(r, 32);
    } else if (has_kind(it->row, K_UIMM20)) {
        static const int32_t u[] = {0, 0x80000, 0xFFFFF, 1, 0x7FFFF};
        it->imm = below(r, 3) ? (int32_t)(rnd(r) & 0xFFFFF) : u[below(r, 5)];
    } else if (has_kind(it->row, K_IMM12)) {
        it->imm = imm12_value(r);
    }
    if ((has_kind(it->row, K_XD) || has_kind(it->row, K_FD)) && below(r, 2)) {
        it->observe = 1;
        it->obs_tmp = dest_x(r);
    }
}

/* The destination an observed item adds into x26: 1 = integer rd, 2 = FP rd. */
static int observed_kind(const rvg_item *it)
{
    if (!it->observe)
        return 0;
    if (it->kind == RVG_K_INSN && has_kind(it->row, K_FD))
        return 2;
    return 1;
}

int rvg_random(rvg_prog *p, uint64_t seed, size_t n, const rvg_opts *o)
{
    static const rvg_opts defaults = {1, 0, 0};
    if (rvg_init(stderr) != 0)
        return -1;
    if (!o)
        o = &defaults;
    rng r = {seed};
    memset(p, 0, sizeof *p);
    random_state(&p->init, &r);
    p->items = calloc(n ? n : 1, sizeof *p->items);
    if (!p->items)
        return -1;
    p->n_items = n;
    for (size_t i = 0; i < n; i++)
        random_item(&p->items[i], &r, o);
    return 0;
}

void rvg_free(rvg_prog *p)
{
    free(p->items);
    p->items = NULL;
    p->n_items = 0;
}

/* ---- code emission ------------------------------------------------------------------------- */

#define PROLOGUE_WORDS (3 + 32 * 3 + 31 * 2)
#define EPILOGUE_WORDS (31 + 32 + 2 + 1 + 2 + 1 + 1 + 1 + 3)

static size_t item_words(const rvg_item *it)
{
    size_t main = it->kind == RVG_K_LI_X || it->kind == RVG_K_FLAGS ? 2
                  : it->kind == RVG_K_LI_F                       ? 3
                  : it->kind == RVG_K_MEDGE                      ? 5
                                                                 : 1;
    return main + (size_t)observed_kind(it);
}

uint32_t rvg_scratch_addr(size_t n_words)
{
    return RVG_BASE + (((uint32_t)n_words * 4 + 15) & ~15u) + RVG_DUMP_BYTES;
}

/* lui/addi pair that puts v into rd */
static void li_words(unsigned rd, uint32_t v, uint32_t *w)
{
    rvg_fields f = {0};
    f.rd = rd;
    f.imm = (int32_t)(((v + 0x800u) >> 12) & 0xFFFFFu);
    w[0] = enc_row(r_lui, &f);
    f.rs1 = rd;
    f.imm = (int32_t)(v & 0xFFFu) - (int32_t)((v & 0x800u) << 1);
    w[1] = enc_row(r_addi, &f);
}

/* Words of item i without its observation. */
static size_t item_encode_main(const rvg_item *it, size_t skip_words, uint32_t *w)
{
    rvg_fields f = {it->rd, it->rs1, it->rs2, it->rs3, it->rm, 0, it->imm};
    switch (it->kind) {
    case RVG_K_LI_X:
        li_words(it->rd, it->value, w);
        return 2;
    case RVG_K_LI_F:
        li_words(it->rs1, it->value, w);
        f.rd = it->rd;
        w[2] = enc_row(r_fmv_w_x, &f);
        return 3;
    case RVG_K_BRANCH:
        f.imm = (int32_t)(4 * (skip_words + 1));
        w[0] = enc_row(it->row, &f);
        return 1;
    case RVG_K_FLAGS:
        memset(&f, 0, sizeof f);
        f.rd = it->rd;
        f.csr = 0x001;   /* fflags */
        w[0] = enc_row(r_csrrs, &f);
        f.rd = 0;
        w[1] = enc_row(r_csrrwi, &f);
        return 2;
    case RVG_K_MEDGE:
        li_words(it->rs1, it->value, w);
        li_words(it->rs2, it->value2, w + 2);
        w[4] = enc_row(it->row, &f);
        return 5;
    case RVG_K_FRM:
        memset(&f, 0, sizeof f);
        f.rd = it->rd;
        f.csr = 0x002;   /* frm */
        f.imm = it->imm;
        w[0] = enc_row(r_csrrwi, &f);
        return 1;
    default:
        w[0] = enc_row(it->row, &f);
        return 1;
    }
}

/* Words of item i; `skip_words` is the distance in words a branch jumps over. */
static size_t item_encode(const rvg_item *it, size_t skip_words, uint32_t *w)
{
    size_t n = item_encode_main(it, skip_words, w);
    rvg_fields f = {0};
    f.rd = RVG_ACC;
    f.rs1 = RVG_ACC;
    switch (observed_kind(it)) {
    case 1:
        f.rs2 = it->rd;
        w[n++] = enc_row(r_add, &f);
        break;
    case 2: {
        rvg_fields m = {0};
        m.rd = it->obs_tmp;
        m.rs1 = it->rd;
        w[n++] = enc_row(r_fmv_x_w, &m);
        f.rs2 = it->obs_tmp;
        w[n++] = enc_row(r_add, &f);
        break;
    }
    default: break;
    }
    return n;
}

static void put32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
    b[2] = (uint8_t)(v >> 16);
    b[3] = (uint8_t)(v >> 24);
}
static void put16(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
}

#define ELF_CODE_OFF 0x1000u

int rvg_elf(const rvg_prog *p, size_t n_items, uint8_t **elf, size_t *size, size_t *n_words_out)
{
    if (!inited || n_items > p->n_items)
        return -1;
    size_t *start = malloc((n_items + 1) * sizeof *start);
    if (!start)
        return -1;
    size_t nw = PROLOGUE_WORDS;
    for (size_t i = 0; i < n_items; i++) {
        start[i] = nw;
        nw += item_words(&p->items[i]);
    }
    start[n_items] = nw;
    nw += EPILOGUE_WORDS;

    uint32_t scratch = rvg_scratch_addr(nw), dump = scratch - RVG_DUMP_BYTES;
    uint32_t pin = scratch + RVG_SCRATCH_BYTES / 2;
    size_t image = (scratch - RVG_BASE) + RVG_SCRATCH_BYTES;
    size_t total = ELF_CODE_OFF + image;
    uint8_t *b = calloc(total, 1);
    uint32_t *w = malloc(nw * sizeof *w);
    if (!b || !w) {
        free(b);
        free(w);
        free(start);
        return -1;
    }
    size_t k = 0;
    rvg_fields f;

    /* prologue: fcsr, f0..f31 through x1, then x1..x31 */
    li_words(1, p->init.fcsr, w + k);
    k += 2;
    memset(&f, 0, sizeof f);
    f.csr = 0x003;
    f.rs1 = 1;
    w[k++] = enc_row(r_csrrw, &f);
    for (unsigned i = 0; i < 32; i++) {
        li_words(1, p->init.f[i], w + k);
        k += 2;
        memset(&f, 0, sizeof f);
        f.rd = i;
        f.rs1 = 1;
        w[k++] = enc_row(r_fmv_w_x, &f);
    }
    for (unsigned i = 1; i < 32; i++) {
        li_words(i, i == RVG_PIN ? pin : p->init.x[i], w + k);
        k += 2;
    }

    for (size_t i = 0; i < n_items; i++) {
        const rvg_item *it = &p->items[i];
        size_t skip = 0;
        if (it->kind == RVG_K_BRANCH) {
            size_t tgt = i + 1 + (size_t)it->imm;
            if (tgt > n_items)
                tgt = n_items;   /* into the epilogue when the program was cut short */
            skip = start[tgt] - start[i] - 1;
        }
        k += item_encode(it, skip, w + k);
    }

    /* epilogue: dump registers through the pinned pointer, then write and exit */
    int32_t dump_off = -(int32_t)(RVG_DUMP_BYTES + RVG_SCRATCH_BYTES / 2);
    for (unsigned i = 1; i < 32; i++) {
        memset(&f, 0, sizeof f);
        f.rs1 = RVG_PIN;
        f.rs2 = i;
        f.imm = dump_off + 4 * (int32_t)(i - 1);
        w[k++] = enc_row(r_sw, &f);
    }
    for (unsigned i = 0; i < 32; i++) {
        memset(&f, 0, sizeof f);
        f.rs1 = RVG_PIN;
        f.rs2 = i;
        f.imm = dump_off + 4 * (int32_t)(31 + i);
        w[k++] = enc_row(r_fsw, &f);
    }
    memset(&f, 0, sizeof f);
    f.rd = 1;
    f.csr = 0x003;
    w[k++] = enc_row(r_csrrs, &f);   /* frcsr x1 */
    memset(&f, 0, sizeof f);
    f.rs1 = RVG_PIN;
    f.rs2 = 1;
    f.imm = dump_off + 4 * 63;
    w[k++] = enc_row(r_sw, &f);
    memset(&f, 0, sizeof f);
    f.rd = 10;
    f.imm = 1;
    w[k++] = enc_row(r_addi, &f);    /* a0 = 1 (stdout) */
    li_words(11, dump, w + k);       /* a1 = dump */
    k += 2;
    f.rd = 12;
    f.imm = (int32_t)RVG_OUT_BYTES;
    w[k++] = enc_row(r_addi, &f);    /* a2 = length */
    f.rd = 17;
    f.imm = 64;
    w[k++] = enc_row(r_addi, &f);    /* a7 = write */
    memset(&f, 0, sizeof f);
    w[k++] = enc_row(r_ecall, &f);
    f.rd = 10;
    f.imm = 0;
    w[k++] = enc_row(r_addi, &f);    /* a0 = 0 */
    f.rd = 17;
    f.imm = 93;
    w[k++] = enc_row(r_addi, &f);    /* a7 = exit */
    memset(&f, 0, sizeof f);
    w[k++] = enc_row(r_ecall, &f);
    if (k != nw) {
        fprintf(stderr, "rvgen: internal error: emitted %zu words, planned %zu\n", k, nw);
        free(b);
        free(w);
        free(start);
        return -1;
    }

    /* ELF header and the one program header */
    static const uint8_t ident[16] = {0x7F, 'E', 'L', 'F', 1, 1, 1, 0};
    memcpy(b, ident, 16);
    put16(b + 16, 2);            /* ET_EXEC */
    put16(b + 18, 243);          /* EM_RISCV */
    put32(b + 20, 1);
    put32(b + 24, RVG_BASE);     /* entry */
    put32(b + 28, 52);           /* phoff */
    put32(b + 32, 0);            /* no section headers */
    put32(b + 36, 0x2);          /* EF_RISCV_FLOAT_ABI_SINGLE */
    put16(b + 40, 52);
    put16(b + 42, 32);
    put16(b + 44, 1);
    put16(b + 46, 40);
    uint8_t *ph = b + 52;
    put32(ph + 0, 1);            /* PT_LOAD */
    put32(ph + 4, ELF_CODE_OFF);
    put32(ph + 8, RVG_BASE);
    put32(ph + 12, RVG_BASE);
    put32(ph + 16, (uint32_t)image);
    put32(ph + 20, (uint32_t)image);
    put32(ph + 24, 7);           /* RWX: stores go to the same segment */
    put32(ph + 28, 0x1000);
    uint8_t *img = b + ELF_CODE_OFF;
    for (size_t i = 0; i < nw; i++)
        put32(img + 4 * i, w[i]);
    memcpy(img + (scratch - RVG_BASE), p->init.scratch, RVG_SCRATCH_BYTES);
    free(w);
    free(start);
    *elf = b;
    *size = total;
    if (n_words_out)
        *n_words_out = nw;
    return 0;
}

/* ---- listings and diffs -------------------------------------------------------------------- */

static const char *rm_name(unsigned rm)
{
    static const char *const n[8] = {"rne", "rtz", "rdn", "rup", "rmm", "rm5", "rm6", "dyn"};
    return n[rm & 7];
}

/* One table instruction in assembly syntax, operands in the row's order. */
static void list_insn(const rvg_item *it, FILE *f)
{
    const rvg_row *r = &rows[it->row];
    fprintf(f, "%s", r->mn);
    for (int k = 0; k < info[it->row].nk; k++) {
        fputs(k ? ", " : " ", f);
        switch (info[it->row].kinds[k]) {
        case K_XD: fprintf(f, "x%u", it->rd); break;
        case K_FD: fprintf(f, "f%u", it->rd); break;
        case K_XS1: fprintf(f, "x%u", it->rs1); break;
        case K_FS1: fprintf(f, "f%u", it->rs1); break;
        case K_XS2: fprintf(f, "x%u", it->rs2); break;
        case K_FS2: fprintf(f, "f%u", it->rs2); break;
        case K_FS3: fprintf(f, "f%u", it->rs3); break;
        case K_RM: fprintf(f, "%s", rm_name(it->rm)); break;
        case K_IMM12: case K_SHAMT: fprintf(f, "%d", (int)it->imm); break;
        case K_UIMM20: fprintf(f, "0x%x", (unsigned)it->imm); break;
        case K_MEM_I: case K_MEM_S: fprintf(f, "%d(x%u)", (int)it->imm, it->rs1); break;
        case K_PCREL13: fprintf(f, "+%d items", (int)it->imm); break;
        default: fputs("?", f); break;
        }
    }
}

void rvg_list_item(const rvg_prog *p, size_t i, FILE *f)
{
    const rvg_item *it = &p->items[i];
    uint32_t w[8];
    size_t skip = 0;
    if (it->kind == RVG_K_BRANCH)
        for (size_t j = i + 1; j <= i + (size_t)it->imm && j < p->n_items; j++)
            skip += item_words(&p->items[j]);
    size_t n = item_encode(it, skip, w);
    fprintf(f, "  [%5zu] ", i);
    for (size_t j = 0; j < (n > 3 ? n : 3); j++) {   /* three columns line most items up */
        if (j < n)
            fprintf(f, "%08x ", (unsigned)w[j]);
        else
            fprintf(f, "         ");
    }
    switch (it->kind) {
    case RVG_K_LI_X:
        fprintf(f, "li x%u, 0x%08x", it->rd, (unsigned)it->value);
        break;
    case RVG_K_LI_F:
        fprintf(f, "li x%u, 0x%08x; fmv.w.x f%u, x%u", it->rs1, (unsigned)it->value, it->rd,
                it->rs1);
        break;
    case RVG_K_FLAGS:
        fprintf(f, "frflags x%u; fsflagsi 0", it->rd);
        break;
    case RVG_K_MEDGE:
        fprintf(f, "li x%u, 0x%08x; li x%u, 0x%08x; %s x%u, x%u, x%u", it->rs1,
                (unsigned)it->value, it->rs2, (unsigned)it->value2, rows[it->row].mn, it->rd,
                it->rs1, it->rs2);
        break;
    case RVG_K_FRM:
        fprintf(f, "csrrwi x%u, frm, %s", it->rd, rm_name((unsigned)it->imm));
        break;
    default:
        list_insn(it, f);
        break;
    }
    if (observed_kind(it) == 1)
        fprintf(f, "; add x%d, x%d, x%u", RVG_ACC, RVG_ACC, it->rd);
    else if (observed_kind(it) == 2)
        fprintf(f, "; fmv.x.w x%u, f%u; add x%d, x%d, x%u", it->obs_tmp, it->rd, RVG_ACC,
                RVG_ACC, it->obs_tmp);
    fputc('\n', f);
}

static void word_name(size_t k, char *buf, size_t n)
{
    if (k < 31)
        snprintf(buf, n, "x%zu", k + 1);
    else if (k < 63)
        snprintf(buf, n, "f%zu", k - 31);
    else
        snprintf(buf, n, "fcsr");
}

size_t rvg_diff(const uint8_t *want, size_t nwant, const uint8_t *got, size_t ngot, FILE *f,
                const char *want_name, const char *got_name)
{
    size_t ndiff = 0;
    if (nwant != ngot) {
        fprintf(f, "    output length: %s %zu bytes, %s %zu bytes (expected %u)\n", want_name,
                nwant, got_name, ngot, RVG_OUT_BYTES);
        ndiff++;
    }
    size_t n = nwant < ngot ? nwant : ngot;
    for (size_t k = 0; k < RVG_DUMP_WORDS && 4 * k + 4 <= n; k++) {
        uint32_t a = rvg_dump_word(want, k), b = rvg_dump_word(got, k);
        if (a != b) {
            char name[8];
            word_name(k, name, sizeof name);
            fprintf(f, "    %-5s %s 0x%08x  %s 0x%08x\n", name, want_name, (unsigned)a,
                    got_name, (unsigned)b);
            ndiff++;
        }
    }
    for (size_t i = RVG_DUMP_BYTES; i < n; i++)
        if (want[i] != got[i]) {
            size_t off = i - RVG_DUMP_BYTES;
            if (ndiff < 80)
                fprintf(f, "    scratch[%zu] (%d(x%d)) %s 0x%02x  %s 0x%02x\n", off,
                        (int)off - (int)(RVG_SCRATCH_BYTES / 2), RVG_PIN, want_name, want[i],
                        got_name, got[i]);
            ndiff++;
        }
    return ndiff;
}
