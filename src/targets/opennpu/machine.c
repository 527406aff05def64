/* opennpu machine: configuration (spec §2), state and reset (§3), program loading, backdoor
 * spaces for --load/--dump (§9) and the target's registration record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/snapshot.h"
#include "targets/asm_image.h"
#include "targets/opennpu/machine.h"

static const char *const extras[ONPU_N_EXTRAS] = {
    "stall_ticks", "mma_feeds", "mma_util_permille", "mem_bytes_loaded", "mem_bytes_stored",
    "traps"};


#define LEGAL_KEYS "test, top, N=8, L=4..32 (multiple of 4), K=4..64 (power of two), " \
                   "mem_size=1..4G, mem_latency=1..65535"

static npk_status onpu_reset(npk_machine *m, void *state)
{
    onpu_state *s = state;
    (void)m;
    memset(s->rf, 0, sizeof s->rf);
    memset(s->lut, 0, sizeof s->lut);
    memset(s->P, 0, sizeof s->P);
    s->pc = 0;
    onpu_timing_reset(s);
    return NPK_OK;
}

static void onpu_destroy(void *state)
{
    onpu_state *s = state;
    if (!s)
        return;
    free(s->mem);
    free(s->image);
    free(s->slots);
    free(s);
}

/* §2: presets set L and K; explicit keys override them. */
static npk_status parse_config(npk_machine *m, npk_config *cfg, onpu_cfg *c)
{
    uint64_t n, l = 32, k = 8, size, lat;
    const char *preset = npk_config_take(cfg, "preset");
    if (preset) {
        if (strcasecmp(preset, "top") == 0)
            k = 64;
        else if (strcasecmp(preset, "test") != 0)
            return npk_fail(m, NPK_ERR_ARG, "opennpu: unknown preset or setting '%s' (legal: %s)",
                            preset, LEGAL_KEYS);
    }
    const char *nv = npk_config_take(cfg, "N");
    if (nv && (npk_parse_u64(nv, &n) != 0 || n != 8))
        return npk_fail(m, NPK_ERR_ARG,
                        "opennpu: N(bits)=%s is not supported: FP32 lanes are 4*N(bits) = 32 "
                        "bits wide, so N(bits) must be 8", nv);
    const char *lv = npk_config_take(cfg, "L");
    if (lv && (npk_parse_u64(lv, &l) != 0 || l < 4 || l > 32 || l % 4))
        return npk_fail(m, NPK_ERR_ARG,
                        "opennpu: L=%s is not legal (legal: a multiple of 4 from 4 to 32)", lv);
    const char *kv = npk_config_take(cfg, "K");
    if (kv && (npk_parse_u64(kv, &k) != 0 || k < 4 || k > 64 || (k & (k - 1))))
        return npk_fail(m, NPK_ERR_ARG,
                        "opennpu: K=%s is not legal (legal: a power of two from 4 to 64: "
                        "4, 8, 16, 32, 64)", kv);
    /* at most 2^32 bytes: effective addresses are 32-bit (§3.4) */
    npk_status st = npk_config_size(m, cfg, "opennpu", "mem_size", 1u << 20, 1,
                                    UINT64_C(1) << 32, "bytes", &size);
    if (st == NPK_OK)
        st = npk_config_u64(m, cfg, "opennpu", "mem_latency", 1, 1, 65535, &lat);
    if (st == NPK_OK)
        st = npk_config_check_unused(m, cfg, "opennpu", LEGAL_KEYS);
    if (st != NPK_OK)
        return st;
    c->L = (unsigned)l;
    c->K = (unsigned)k;
    c->mem_size = size;
    c->mem_latency = (unsigned)lat;
    return NPK_OK;
}

static void set_space(onpu_state *s, onpu_space i, const char *name, uint64_t size,
                      const char *summary, uint8_t *data)
{
    s->spaces[i] = (npk_memspace){{name, size, summary}, data};
}

/* Registers by the spec's assembly names (§7.4) and P's rows as P[i] (§3.3); each holds all
 * K lanes, lane k at bits k*W (W = 8, 16, 32). */
static void add_reg(onpu_state *s, const char *prefix, unsigned i, const char *suffix,
                    unsigned bits)
{
    char *name = s->reg_names[s->n_regs];
    snprintf(name, sizeof s->reg_names[0], "%s%u%s", prefix, i, suffix);
    s->reg_list[s->n_regs++] = (npk_reg_info){name, bits, 0};
}

static void build_regs(onpu_state *s)
{
    unsigned K = s->cfg.K, L = s->cfg.L;
    s->reg_list[0] = (npk_reg_info){"pc", 64, 0};
    s->n_regs = 1;
    for (unsigned i = 0; i < L; i++)
        add_reg(s, "vx", i, "", 8 * K);
    for (unsigned i = 0; i < L / 2; i++)
        add_reg(s, "ve", i, "", 16 * K);
    for (unsigned i = 0; i < L / 4; i++)
        add_reg(s, "vr", i, "", 32 * K);
    for (unsigned i = 0; i < K; i++)
        add_reg(s, "P[", i, "]", 32 * K);
}

static npk_status onpu_create(npk_machine *m, const npk_config *cfg_in, void **out)
{
    onpu_cfg c;
    npk_status st = parse_config(m, (npk_config *)cfg_in, &c);
    if (st != NPK_OK)
        return st;
    onpu_state *s = calloc(1, sizeof *s);
    if (!s)
        return npk_fail(m, NPK_ERR_NOMEM, "opennpu: out of memory");
    s->cfg = c;
    s->mem = calloc((size_t)c.mem_size, 1);
    if (!s->mem) {
        onpu_destroy(s);
        return npk_fail(m, NPK_ERR_NOMEM, "opennpu: out of memory for mem_size=%llu",
                        (unsigned long long)c.mem_size);
    }
    uint64_t K = c.K, L = c.L;
    set_space(s, ONPU_SP_PROG, "prog", 0, "program words, little-endian (word n at 4n)", NULL);
    set_space(s, ONPU_SP_MEM, "mem", c.mem_size, "data memory", s->mem);
    set_space(s, ONPU_SP_RF, "rf", L * K,
              "register file, byte-planar: row r lane k at r*K+k (= VX[r] lane k)", s->rf);
    set_space(s, ONPU_SP_VE, "ve", L * K, "VE view: VE[i] lane k, 16-bit LE at (i*K+k)*2",
              NULL);
    set_space(s, ONPU_SP_VR, "vr", L * K, "VR view: VR[i] lane k, 32-bit LE at (i*K+k)*4",
              NULL);
    set_space(s, ONPU_SP_LUTA, "luta", 256, "LUT bank A", s->lut[0]);
    set_space(s, ONPU_SP_LUTB, "lutb", 256, "LUT bank B", s->lut[1]);
    set_space(s, ONPU_SP_ACC, "acc", K * K * 4,
              "MMA accumulator P: P[i][j] as 32-bit LE at (i*K+j)*4", NULL);
    npk_config_describe(m, "N=8,L=%u,K=%u,mem_size=%llu,mem_latency=%u", c.L, c.K,
                        (unsigned long long)c.mem_size, c.mem_latency);
    build_regs(s);
    onpu_reset(m, s);
    *out = s;
    return NPK_OK;
}

void onpu_slot_fill(const onpu_state *s, uint32_t w, onpu_slot *slot)
{
    memset(slot, 0, sizeof *slot);
    slot->legal = onpu_decode(w, &s->cfg, &slot->d, NULL, 0) == 0;
    if (slot->legal)
        onpu_rows(&s->cfg, &slot->d, &slot->src_rows, &slot->dst_rows);
}

static uint32_t image_word(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* A raw image is the whole program: word n at byte 4n (§3.5). */
static npk_status onpu_load_raw(npk_machine *m, void *state, const uint8_t *bytes, size_t n,
                                uint64_t addr)
{
    onpu_state *s = state;
    if (addr != 0)
        return npk_fail(m, NPK_ERR_RANGE,
                        "opennpu: a program image loads at position 0, not at 0x%llx",
                        (unsigned long long)addr);
    if (n % 4)
        return npk_fail(m, NPK_ERR_FORMAT,
                        "opennpu: program image of %zu bytes is not a whole number of words", n);
    size_t words = n / 4;
    uint8_t *image = malloc(n ? n : 1);
    onpu_slot *slots = malloc((words ? words : 1) * sizeof *slots);
    if (!image || !slots) {
        free(image);
        free(slots);
        return npk_fail(m, NPK_ERR_NOMEM, "opennpu: out of memory for a %zu-word program",
                        words);
    }
    if (n)
        memcpy(image, bytes, n);
    for (size_t i = 0; i < words; i++)
        onpu_slot_fill(s, image_word(image + 4 * i), &slots[i]);
    free(s->image);
    free(s->slots);
    s->image = image;
    s->slots = slots;
    s->n_words = words;
    s->spaces[ONPU_SP_PROG].data = image;
    s->spaces[ONPU_SP_PROG].info.size = n;
    return onpu_reset(m, s);
}

/* Where byte `addr` of a view space lives in the byte-planar register file. */
static uint8_t *view_byte(onpu_state *s, unsigned cls, uint64_t addr)
{
    unsigned K = s->cfg.K, bytes = 1u << cls;
    uint64_t lane = addr / bytes;
    unsigned b = (unsigned)(addr % bytes), reg = (unsigned)(lane / K), k = (unsigned)(lane % K);
    return &s->rf[((reg << cls) + b) * K + k];
}

/* P[i][j] as little-endian bytes, whatever the host's byte order. */
static uint8_t acc_byte(const onpu_state *s, uint64_t addr)
{
    return (uint8_t)(s->P[addr / 4] >> (8 * (addr % 4)));
}

static void acc_set_byte(onpu_state *s, uint64_t addr, uint8_t v)
{
    uint32_t *p = &s->P[addr / 4];
    unsigned sh = 8 * (unsigned)(addr % 4);
    *p = (*p & ~(0xFFu << sh)) | (uint32_t)v << sh;
}

static npk_status onpu_space_read(npk_machine *m, void *state, size_t space, uint64_t addr,
                                  void *buf, size_t n)
{
    onpu_state *s = state;
    uint8_t *out = buf;
    for (size_t i = 0; i < n; i++) {
        if (space == ONPU_SP_ACC)
            out[i] = acc_byte(s, addr + i);
        else if (space == ONPU_SP_VE || space == ONPU_SP_VR)
            out[i] = *view_byte(s, space == ONPU_SP_VE ? ONPU_VE : ONPU_VR, addr + i);
        else
            return npk_fail(m, NPK_ERR_UNSUPPORTED, "opennpu: space %zu has no reader", space);
    }
    return NPK_OK;
}

static npk_status onpu_space_write(npk_machine *m, void *state, size_t space, uint64_t addr,
                                   const void *buf, size_t n)
{
    onpu_state *s = state;
    const uint8_t *in = buf;
    (void)m;
    switch ((onpu_space)space) {
    case ONPU_SP_ACC:
        for (size_t i = 0; i < n; i++)
            acc_set_byte(s, addr + i, in[i]);
        break;
    case ONPU_SP_VE:
    case ONPU_SP_VR:
        for (size_t i = 0; i < n; i++)
            *view_byte(s, space == ONPU_SP_VE ? ONPU_VE : ONPU_VR, addr + i) = in[i];
        break;
    case ONPU_SP_PROG:
        memcpy(s->image + addr, in, n);
        for (uint64_t w = addr / 4; w < (addr + n + 3) / 4; w++)
            onpu_slot_fill(s, image_word(s->image + 4 * w), &s->slots[w]);
        break;
    default:
        memcpy(s->spaces[space].data + addr, in, n);
        break;
    }
    return NPK_OK;
}

static size_t onpu_spaces(void *state, npk_memspace **list)
{
    onpu_state *s = state;
    *list = s->spaces;
    return ONPU_N_SPACES;
}

static size_t onpu_regs(void *state, const npk_reg_info **list)
{
    onpu_state *s = state;
    *list = s->reg_list;
    return s->n_regs;
}

/* Register i (> 0) as bytes: its class (0 VX, 1 VE, 2 VR, 3 a row of P) and number. */
static void reg_class(const onpu_state *s, size_t i, unsigned *cls, unsigned *num)
{
    unsigned L = s->cfg.L;
    i -= 1;
    if (i < L)
        *cls = 0, *num = (unsigned)i;
    else if ((i -= L) < L / 2)
        *cls = 1, *num = (unsigned)i;
    else if ((i -= L / 2) < L / 4)
        *cls = 2, *num = (unsigned)i;
    else
        *cls = 3, *num = (unsigned)(i - L / 4);
}

static npk_status onpu_reg_read_bytes(npk_machine *m, void *state, size_t i, uint8_t *buf)
{
    onpu_state *s = state;
    unsigned cls, num, K = s->cfg.K;
    (void)m;
    reg_class(s, i, &cls, &num);
    for (unsigned k = 0; k < K; k++) {
        uint32_t v = cls == 3 ? s->P[num * K + k] : onpu_lane_get(s, cls, num, k);
        unsigned w = cls == 3 ? 4 : 1u << cls;
        for (unsigned b = 0; b < w; b++)
            buf[k * w + b] = (uint8_t)(v >> 8 * b);
    }
    return NPK_OK;
}

static npk_status onpu_reg_write_bytes(npk_machine *m, void *state, size_t i, const uint8_t *buf)
{
    onpu_state *s = state;
    unsigned cls, num, K = s->cfg.K;
    (void)m;
    reg_class(s, i, &cls, &num);
    for (unsigned k = 0; k < K; k++) {
        unsigned w = cls == 3 ? 4 : 1u << cls;
        uint32_t v = 0;
        for (unsigned b = 0; b < w; b++)
            v |= (uint32_t)buf[k * w + b] << 8 * b;
        if (cls == 3)
            s->P[num * K + k] = v;
        else
            onpu_lane_set(s, cls, num, k, v);
    }
    return NPK_OK;
}

static npk_status onpu_reg_read(npk_machine *m, void *state, size_t i, uint64_t *v)
{
    onpu_state *s = state;
    if (i == 0) {
        *v = s->pc;
        return NPK_OK;
    }
    uint8_t b[8];
    onpu_reg_read_bytes(m, state, i, b);
    *v = 0;
    for (unsigned k = 0; k < (s->reg_list[i].bits + 7) / 8; k++)
        *v |= (uint64_t)b[k] << 8 * k;
    return NPK_OK;
}

static npk_status onpu_reg_write(npk_machine *m, void *state, size_t i, uint64_t v)
{
    onpu_state *s = state;
    if (i > 0) {
        uint8_t b[8];
        for (unsigned k = 0; k < 8; k++)
            b[k] = (uint8_t)(v >> 8 * k);
        return onpu_reg_write_bytes(m, state, i, b);
    }
    if (v > s->n_words)
        return npk_fail(m, NPK_ERR_RANGE, "opennpu: pc %llu is past the end of the %llu-word "
                        "program", (unsigned long long)v, (unsigned long long)s->n_words);
    s->pc = v;
    return NPK_OK;
}

static npk_status onpu_disasm_hook(npk_machine *m, void *state, const uint8_t *b, uint64_t pc,
                                   char *out, size_t n)
{
    onpu_state *s = state;
    (void)m;
    (void)pc;
    onpu_disasm(image_word(b), &s->cfg, out, n);
    return NPK_OK;
}

static npk_status onpu_assemble_hook(npk_machine *m, void *state, const char *source,
                                     const char *name, FILE *diag, uint8_t **image, size_t *size)
{
    onpu_state *s = state;
    *image = NULL;
    *size = 0;
    if (!source)
        return npk_fail(m, NPK_ERR_ARG, "opennpu: no assembly source");
    npk_asm_result *r = NULL;
    int errors = onpu_assemble_list(source, strlen(source), name, &s->cfg, diag,
                                    npk_listing_out(m), &r);
    return npk_target_asm_image(m, errors, r, name, 4, image, size);
}

/* Snapshot sections (docs/snapshot.md): REGS pc; ARCH the register file, both LUT banks and
 * P (whole arrays, as big as the largest configuration); PROG the program words (the decoded
 * slots are rebuilt from them); MEM "mem"; TIME the tick model. */
static npk_status onpu_snap_save(npk_machine *m, void *state, npk_snap_writer *w)
{
    onpu_state *s = state;
    (void)m;
    npk_snap_begin(w, "REGS");
    npk_snap_u64(w, s->pc);
    npk_snap_end(w);
    npk_snap_begin(w, "ARCH");
    npk_snap_bytes(w, s->rf, sizeof s->rf);
    npk_snap_bytes(w, s->lut, sizeof s->lut);
    for (size_t i = 0; i < ONPU_MAX_K * ONPU_MAX_K; i++)
        npk_snap_u32(w, s->P[i]);
    npk_snap_end(w);
    npk_snap_begin(w, "PROG");
    npk_snap_u64(w, s->n_words);
    if (s->n_words)
        npk_snap_bytes(w, s->image, (size_t)(4 * s->n_words));
    npk_snap_end(w);
    npk_snap_mem(w, "mem", s->mem, s->cfg.mem_size);
    npk_snap_begin(w, "TIME");
    for (unsigned r = 0; r < ONPU_MAX_L; r++)
        npk_snap_u64(w, s->ready[r]);
    npk_snap_u64(w, s->next_issue);
    npk_snap_u64(w, s->block_t0);
    npk_snap_u8(w, (uint8_t)(s->block_open != 0));
    npk_snap_u64(w, s->ticks);
    npk_snap_end(w);
    return NPK_OK;
}

static npk_status onpu_snap_restore(npk_machine *m, void *state, npk_snap_reader *r)
{
    onpu_state *s = state;
    npk_snap_cursor c = {NULL, 0, 1}, arch = {NULL, 0, 1}, prog = {NULL, 0, 1};
    npk_status st = npk_snap_section_get(r, "REGS", &c);
    if (st != NPK_OK)
        return st;
    uint64_t pc = npk_snap_get_u64(&c);
    if ((st = npk_snap_section_done(r, "REGS", &c)) != NPK_OK)
        return st;
    if ((st = npk_snap_section_get(r, "ARCH", &arch)) != NPK_OK)
        return st;
    if (arch.left != sizeof s->rf + sizeof s->lut + sizeof s->P)
        return npk_snap_bad(r, "ARCH", "%llu bytes, not %zu", (unsigned long long)arch.left,
                            sizeof s->rf + sizeof s->lut + sizeof s->P);
    if ((st = npk_snap_section_get(r, "PROG", &prog)) != NPK_OK)
        return st;
    uint64_t words = npk_snap_get_u64(&prog);
    if (prog.bad || prog.left / 4 != words || prog.left % 4)
        return npk_snap_bad(r, "PROG", "the word count does not match the section's length");
    if (pc > words)
        return npk_snap_bad(r, "REGS", "pc %llu is past the end of the %llu-word program",
                            (unsigned long long)pc, (unsigned long long)words);
    /* the memory is checked now, written after the allocation below */
    if (!r->apply &&
        (st = npk_snap_mem_restore(r, "mem", s->mem, s->cfg.mem_size, NULL, NULL)) != NPK_OK)
        return st;
    if ((st = npk_snap_section_get(r, "TIME", &c)) != NPK_OK)
        return st;
    uint64_t ready[ONPU_MAX_L];
    for (unsigned i = 0; i < ONPU_MAX_L; i++)
        ready[i] = npk_snap_get_u64(&c);
    uint64_t next = npk_snap_get_u64(&c), t0 = npk_snap_get_u64(&c);
    uint8_t open = npk_snap_get_u8(&c);
    uint64_t ticks = npk_snap_get_u64(&c);
    if ((st = npk_snap_section_done(r, "TIME", &c)) != NPK_OK)
        return st;
    if (open > 1)
        return npk_snap_bad(r, "TIME", "block flag %u is not 0 or 1", open);
    if (!r->apply)
        return NPK_OK;

    /* the one allocation, before anything is written */
    size_t n = (size_t)(4 * words);
    uint8_t *image = malloc(n ? n : 1);
    onpu_slot *slots = malloc((words ? (size_t)words : 1) * sizeof *slots);
    if (!image || !slots) {
        free(image);
        free(slots);
        return npk_fail(m, NPK_ERR_NOMEM, "opennpu: out of memory for a %llu-word program",
                        (unsigned long long)words);
    }
    npk_snap_mem_restore(r, "mem", s->mem, s->cfg.mem_size, NULL, NULL); /* checked */
    npk_snap_get_bytes(&prog, image, n);
    for (size_t i = 0; i < words; i++)
        onpu_slot_fill(s, image_word(image + 4 * i), &slots[i]);
    free(s->image);
    free(s->slots);
    s->image = image;
    s->slots = slots;
    s->n_words = words;
    s->spaces[ONPU_SP_PROG].data = image;
    s->spaces[ONPU_SP_PROG].info.size = n;
    s->pc = pc;
    npk_snap_get_bytes(&arch, s->rf, sizeof s->rf);
    npk_snap_get_bytes(&arch, s->lut, sizeof s->lut);
    for (size_t i = 0; i < ONPU_MAX_K * ONPU_MAX_K; i++)
        s->P[i] = npk_snap_get_u32(&arch);
    memcpy(s->ready, ready, sizeof ready);
    s->next_issue = next;
    s->block_t0 = t0;
    s->block_open = open;
    s->ticks = ticks;
    return NPK_OK;
}

const npk_target npk_target_opennpu = {
    .name = "opennpu",
    .summary = "32-bit vector/matrix NPU (byte-planar VX/VE/VR register file, K x K int8 MMA, "
               "LUTs, FP32 tier-2)",
    .config_help =
        "  test          preset (default): N=8, L=32, K=8 (256-byte register file)\n"
        "  top           preset: N=8, L=32, K=64 (2 KiB register file)\n"
        "  N=8           base lane width in bits; only 8 (FP32 lanes are 4*N(bits) wide)\n"
        "  L=4..32       VX registers, a multiple of 4 (default 32)\n"
        "  K=4..64       lanes per register and MMA side, a power of two (default 8)\n"
        "  mem_size=N    data memory bytes, 1 .. 4G (default 1M)\n"
        "  mem_latency=N LD/ST latency in ticks, 1 .. 65535 (default 1)\n",
    .presets = "test top",
    .insn_bytes = 4,
    .elf_machine = 0,
    .addr_bits = 32, /* §3.4: addresses are 32-bit */
    .create = onpu_create,
    .destroy = onpu_destroy,
    .reset = onpu_reset,
    .load_raw = onpu_load_raw,
    .assemble = onpu_assemble_hook,
    .run = onpu_run,
    .disasm = onpu_disasm_hook,
    .spaces = onpu_spaces,
    .space_read = onpu_space_read,
    .space_write = onpu_space_write,
    .regs = onpu_regs,
    .reg_read = onpu_reg_read,
    .reg_write = onpu_reg_write,
    .reg_read_bytes = onpu_reg_read_bytes,
    .reg_write_bytes = onpu_reg_write_bytes,
    .mnemonics = onpu_mnemonics,
    .n_mnemonics = ONPU_N_OPS,
    .units = onpu_unit_names,
    .n_units = ONPU_N_UNITS,
    .extras = extras,
    .n_extras = ONPU_N_EXTRAS,
    .snap_save = onpu_snap_save,
    .snap_restore = onpu_snap_restore,
    .commit_records = 1,
};
