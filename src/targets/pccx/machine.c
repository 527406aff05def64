/* pccx machine: configuration (profile, mode, host DDR size and every timing parameter of
 * §11.1 as a setting), state and reset (§2), program loading (a §13 file carries its data,
 * tensors and queue order), the issue path shared by programs and the host API (§6.1, §9),
 * backdoor spaces, observers and the target's registration record. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/checked.h"
#include "targets/pccx/machine.h"

extern const npk_target npk_target_pccx;

static const char *const extras[PCCX_N_EXTRAS] = {
    "macs", "weights_streamed", "dropped", "port_b_busy", "acp_bytes", "hp0_bytes",
    "hp1_bytes", "hp2_bytes", "hp3_bytes", "stall_fifo_full", "stall_queue_full",
    "stall_sync_wait", "hazard_wait", "exact_sum_fallback_dots", "idle_memset", "idle_mem",
    "idle_gemv", "idle_gemm", "idle_cvo"};

static const char *const units[PCCX_N_UNITS] = {"memset", "mem", "gemv", "gemm", "cvo",
                                                "port_b", "front_end"};

/* "emax" was E_MAX's name before the registers took the spec's names */
static const char *const reg_aliases[] = {"emax", "E_MAX", NULL};

/* ---- timing parameters as settings ---------------------------------------------------------- */

typedef struct tparam {
    const char *key;
    size_t off;
    uint32_t min, max;
} tparam;

#define TP(name, lo, hi) {#name, offsetof(pccx_timing_t, name), lo, hi}
static const tparam tparams[] = {
    TP(f_core_mhz, 1, 100000), TP(f_axi_mhz, 1, 100000), TP(cmd_fifo_depth, 1, 65536),
    TP(decode_cycles, 1, 65536), TP(engine_queue_depth, 1, 65536),
    TP(host_push_axi_cycles, 0, 65536), TP(l2_read_latency, 0, 65536),
    TP(l2_port_words_per_cycle, 1, 64), TP(ddr_latency_ns, 0, 1000000),
    TP(mem_setup_cycles, 0, 65536), TP(memset_cycles, 0, 65536),
    TP(acp_bytes_per_axi_cycle, 1, 4096), TP(hp_bytes_per_axi_cycle, 1, 4096),
    TP(gemm_ports, 1, 15), TP(gemv_ports, 1, 15), TP(gemv_lanes, 1, 4),
    TP(gemv_lane_width, 1, 65536), TP(gemv_latency, 0, 65536), TP(gemm_rows, 1, 65536),
    TP(gemm_cols, 1, 65536), TP(gemm_macs_per_pe, 1, 64), TP(gemm_latency, 0, 65536),
    TP(cvo_cores, 1, 64), TP(cvo_overhead, 0, 65536), TP(cvo_lat_recip_scale, 0, 65536),
};
#undef TP

#define LEGAL_KEYS "ext=0|1 (or the word ext/base), mode=strict|hw-compat, host_ddr_bytes=16..4G " \
                   "(multiple of 16), the timing parameters of spec §11.1 (f_core_mhz, ...) and " \
                   "lat_<cvo function> (lat_exp, ...)"

static uint32_t *tparam_ptr(pccx_timing_t *t, size_t off)
{
    return (uint32_t *)(void *)((char *)t + off);
}

static npk_status parse_config(npk_machine *m, npk_config *cfg, pccx_t *c, int *ext_set,
                               int *mode_set, int *host_set)
{
    uint64_t v;
    npk_status st;
    c->ext = 0;
    c->hw_compat = 0;
    *ext_set = *mode_set = *host_set = 0;
    const char *preset = npk_config_take(cfg, "preset");
    if (preset) {
        if (strcasecmp(preset, "ext") == 0)
            c->ext = 1, *ext_set = 1;
        else if (strcasecmp(preset, "base") == 0)
            *ext_set = 1;
        else if (strcasecmp(preset, "hw-compat") == 0)
            c->hw_compat = 1, *mode_set = 1;
        else if (strcasecmp(preset, "strict") == 0)
            *mode_set = 1;
        else
            return npk_fail(m, NPK_ERR_ARG, "pccx: unknown setting '%s' (legal: %s)", preset,
                            LEGAL_KEYS);
    }
    const char *e = npk_config_take(cfg, "ext");
    if (e) {
        if (strcmp(e, "0") && strcmp(e, "1"))
            return npk_fail(m, NPK_ERR_ARG, "pccx: ext=%s is not legal (legal: 0 or 1)", e);
        c->ext = e[0] == '1';
        *ext_set = 1;
    }
    const char *mode = npk_config_take(cfg, "mode");
    if (mode) {
        if (strcasecmp(mode, "strict") == 0)
            c->hw_compat = 0;
        else if (strcasecmp(mode, "hw-compat") == 0 || strcasecmp(mode, "hw_compat") == 0)
            c->hw_compat = 1;
        else
            return npk_fail(m, NPK_ERR_ARG, "pccx: mode=%s is not legal (legal: strict, hw-compat)",
                            mode);
        *mode_set = 1;
    }
    for (size_t i = 0; i < cfg->n; i++) /* given explicitly: it overrides `.hostsize` */
        if (!strcasecmp(cfg->items[i].key, "host_ddr_bytes"))
            *host_set = 1;
    st = npk_config_size(m, cfg, "pccx", "host_ddr_bytes", PCCX_HOST_DEFAULT, 16, PCCX_HOST_MAX,
                         "bytes", &v);
    if (st != NPK_OK)
        return st;
    if (v % 16)
        return npk_fail(m, NPK_ERR_ARG,
                        "pccx: host_ddr_bytes=%llu is not a multiple of 16 (L2 words are 16 bytes)",
                        (unsigned long long)v);
    c->host_bytes = v;
    pccx_timing_default(&c->timing);
    for (size_t i = 0; i < sizeof tparams / sizeof tparams[0]; i++) {
        uint32_t *p = tparam_ptr(&c->timing, tparams[i].off);
        st = npk_config_u64(m, cfg, "pccx", tparams[i].key, *p, tparams[i].min, tparams[i].max, &v);
        if (st != NPK_OK)
            return st;
        *p = (uint32_t)v;
    }
    for (unsigned f = 0; f < PCCX_N_CVO_FUNCS; f++) {
        char key[40];
        snprintf(key, sizeof key, "lat_%s", pccx_cvos[f].mnemonic);
        st = npk_config_u64(m, cfg, "pccx", key, c->timing.cvo_lat[f], 0, 65536, &v);
        if (st != NPK_OK)
            return st;
        c->timing.cvo_lat[f] = (uint32_t)v;
    }
    return npk_config_check_unused(m, cfg, "pccx", LEGAL_KEYS);
}

/* The configuration string names every timing parameter that differs from its default, so
 * that it identifies the machine exactly (a snapshot restores only into the same one). */
static void describe(npk_machine *m, const pccx_t *c)
{
    char more[1024] = "";
    size_t len = 0;
    pccx_timing_t def;
    pccx_timing_default(&def);
    for (size_t i = 0; i < sizeof tparams / sizeof tparams[0]; i++) {
        uint32_t v = *tparam_ptr((pccx_timing_t *)&c->timing, tparams[i].off);
        if (v != *tparam_ptr(&def, tparams[i].off) && strcmp(tparams[i].key, "f_core_mhz") &&
            strcmp(tparams[i].key, "f_axi_mhz") && len < sizeof more)
            len += (size_t)snprintf(more + len, sizeof more - len, ",%s=%u", tparams[i].key, v);
    }
    for (unsigned f = 0; f < PCCX_N_CVO_FUNCS; f++)
        if (c->timing.cvo_lat[f] != def.cvo_lat[f] && len < sizeof more)
            len += (size_t)snprintf(more + len, sizeof more - len, ",lat_%s=%u",
                                    pccx_cvos[f].mnemonic, c->timing.cvo_lat[f]);
    npk_config_describe(m, "ext=%d,mode=%s,host_ddr_bytes=%llu,f_core_mhz=%u,f_axi_mhz=%u%s",
                        c->ext, c->hw_compat ? "hw-compat" : "strict",
                        (unsigned long long)c->host_bytes, c->timing.f_core_mhz,
                        c->timing.f_axi_mhz, more);
}

/* ---- state ---------------------------------------------------------------------------------- */

void pccx_tensors_clear(pccx_t *c)
{
    for (size_t i = 0; i < c->n_tensors; i++)
        pccx_tensor_free(&c->tensors[i]);
    free(c->tensors);
    free(c->tensor_live);
    c->tensors = NULL;
    c->tensor_live = NULL;
    c->n_tensors = c->cap_tensors = 0;
    c->q_head = c->q_len = 0;
}

/* Host DDR (up to 4 GiB) and L2 (1.8 MB) back to all zero. A memset makes every page resident
 * (4 GB and seconds for host DDR; 448 pages of L2 on every load, even for an empty program),
 * while a fresh calloc is untouched zero pages from the system, paid for only where a program
 * writes. Without a fresh block the old one is cleared in place, so a reset never fails. Blocks
 * nothing has written since they were allocated or cleared (mem_zero: the reset that every
 * load does right after npk_create) are kept as they are. */
static void clear_block(uint8_t **block, uint64_t bytes, npk_memspace *space)
{
    uint8_t *b = calloc((size_t)bytes, 1);
    if (!b) {
        memset(*block, 0, (size_t)bytes);
        return;
    }
    free(*block);
    *block = b;
    space->data = b;
}

void pccx_state_reset(pccx_t *c)
{
    if (!c->mem_zero) {
        clear_block(&c->l2, PCCX_L2_BYTES, &c->spaces[PCCX_SP_L2]);
        clear_block(&c->host, c->host_bytes, &c->spaces[PCCX_SP_HOST]);
        c->mem_zero = 1;
    }
    memset(c->cc, 0, sizeof c->cc);
    c->emax = 0;
    c->window = 0;
    c->q_head = c->q_len = 0;
    c->issued = 0;
    c->halted = 0;
    memset(&c->error, 0, sizeof c->error);
    memset(c->counts, 0, sizeof c->counts);
    c->macs = c->weights = c->exact_fallback = 0;
    c->pc = 0;
    c->next_window = 0;
    c->emitted = 0;
    free(c->log);
    c->log = NULL;
    c->n_log = c->cap_log = 0;
    pccx_tm_reset(c->tm);
}

static void pccx_destroy(void *state)
{
    pccx_t *c = state;
    if (!c)
        return;
    pccx_tensors_clear(c);
    free(c->queue);
    free(c->l2);
    free(c->host);
    free(c->prog);
    free(c->prog_bytes);
    free(c->windows);
    free(c->scratch);
    free(c->dscratch);
    free(c->log);
    pccx_prog_free(c->loaded);
    pccx_tm_destroy(c->tm);
    free(c);
}

static void set_reg(pccx_t *c, size_t i, unsigned bits, unsigned flags)
{
    c->reg_list[i] = (npk_reg_info){c->reg_names[i], bits, flags};
}

/* The names of spec §2 (E_MAX, the constant-cache entries' X, Y, Z), §10 (status) and §11
 * (the command FIFO, engine queues and engines); the derived ones are read-only. */
static void build_regs(pccx_t *c)
{
    static const char *const fixed[] = {"pc", "E_MAX", "status", "window", "issued",
                                        "host_clock", "weight_queue", "cmd_fifo"};
    static const unsigned bits[] = {64, 32, 64, 64, 64, 64, 32, 32};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        snprintf(c->reg_names[i], sizeof c->reg_names[i], "%s", fixed[i]);
        set_reg(c, i, bits[i], i == PCCX_REG_PC || i == PCCX_REG_EMAX || i == PCCX_REG_WINDOW
                                   ? 0 : NPK_REG_READONLY);
    }
    for (unsigned e = 0; e < PCCX_N_ENGINES; e++) {
        snprintf(c->reg_names[PCCX_REG_QUEUE + e], sizeof c->reg_names[0], "queue.%s",
                 pccx_engine_names[e]);
        set_reg(c, PCCX_REG_QUEUE + e, 32, NPK_REG_READONLY);
        snprintf(c->reg_names[PCCX_REG_BUSY + e], sizeof c->reg_names[0], "busy.%s",
                 pccx_engine_names[e]);
        set_reg(c, PCCX_REG_BUSY + e, 1, NPK_REG_READONLY);
    }
    for (unsigned b = 0; b < 2; b++)
        for (unsigned e = 0; e < PCCX_CC_ENTRIES; e++)
            for (unsigned k = 0; k < 3; k++) {
                size_t i = PCCX_REG_CC + (b * PCCX_CC_ENTRIES + e) * 3 + k;
                snprintf(c->reg_names[i], sizeof c->reg_names[i], "%s[%u].%c",
                         b ? "cc_weight" : "cc_fmap", e, "XYZ"[k]);
                set_reg(c, i, 17, 0);
            }
}

static void set_space(pccx_t *c, pccx_space i, const char *name, uint64_t size,
                      const char *summary, uint8_t *data)
{
    c->spaces[i] = (npk_memspace){{name, size, summary}, data};
}

static npk_status pccx_create(npk_machine *m, const npk_config *cfg_in, void **out)
{
    pccx_t *c = calloc(1, sizeof *c);
    if (!c)
        return npk_fail(m, NPK_ERR_NOMEM, "pccx: out of memory");
    npk_status st = parse_config(m, (npk_config *)cfg_in, c, &c->ext_set, &c->mode_set,
                                 &c->host_set);
    if (st != NPK_OK) {
        free(c);
        return st;
    }
    c->m = m;
    const char *why = NULL;
    c->l2 = calloc(PCCX_L2_BYTES, 1);
    c->host = calloc((size_t)c->host_bytes, 1);
    c->mem_zero = 1;
    c->tm = pccx_tm_create(&c->timing, &why);
    if (!c->l2 || !c->host || !c->tm) {
        pccx_destroy(c);
        if (why)
            return npk_fail(m, NPK_ERR_ARG, "pccx: timing parameters: %s", why);
        return npk_fail(m, NPK_ERR_NOMEM, "pccx: out of memory (host_ddr_bytes=%llu)",
                        (unsigned long long)c->host_bytes);
    }
    set_space(c, PCCX_SP_PROG, "prog", 0, "program words, 64-bit little-endian (word n at 8n)",
              NULL);
    set_space(c, PCCX_SP_L2, "l2", PCCX_L2_BYTES,
              "L2: 114,688 words x 16 bytes; BF16 element e at byte 2e", c->l2);
    set_space(c, PCCX_SP_HOST, "host", c->host_bytes, "host DDR (bytes)", c->host);
    set_space(c, PCCX_SP_CC_FMAP, "cc_fmap", PCCX_CC_ENTRIES * 12,
              "constant cache fmap bank: entry i = X, Y, Z as 32-bit LE at 12i", NULL);
    set_space(c, PCCX_SP_CC_WEIGHT, "cc_weight", PCCX_CC_ENTRIES * 12,
              "constant cache weight bank: entry i = X, Y, Z as 32-bit LE at 12i", NULL);
    set_space(c, PCCX_SP_WQ, "weight_queue", 0,
              "read-only: queued weight tensors from the head, 16 bytes each: handle, K, N, "
              "kind (0 INT4, 1 BF16 view) as 32-bit LE", NULL);
    build_regs(c);
    describe(m, c);
    *out = c;
    return NPK_OK;
}

/* ---- weight tensors -------------------------------------------------------------------------- */

int pccx_tensor_add(pccx_t *c, pccx_tensor *t, pccx_weight_t *h)
{
    if (c->n_tensors == c->cap_tensors) {
        size_t cap = c->cap_tensors ? 2 * c->cap_tensors : 16;
        pccx_tensor *nt = realloc(c->tensors, cap * sizeof *nt);
        if (!nt)
            return PCCX_E_NOMEM;
        c->tensors = nt;
        uint8_t *nl = realloc(c->tensor_live, cap);
        if (!nl)
            return PCCX_E_NOMEM;
        c->tensor_live = nl;
        c->cap_tensors = cap;
    }
    c->tensors[c->n_tensors] = *t;
    c->tensor_live[c->n_tensors] = 1;
    memset(t, 0, sizeof *t);
    *h = (pccx_weight_t)++c->n_tensors;
    return PCCX_OK;
}

const pccx_tensor *pccx_tensor_get(const pccx_t *c, pccx_weight_t h)
{
    if (h == 0 || h > c->n_tensors || !c->tensor_live[h - 1])
        return NULL;
    return &c->tensors[h - 1];
}

int pccx_queue_push(pccx_t *c, pccx_weight_t h)
{
    if (c->q_len == c->q_cap) {
        size_t cap = c->q_cap ? 2 * c->q_cap : 64;
        uint32_t *q = malloc(cap * sizeof *q);
        if (!q)
            return PCCX_E_NOMEM;
        for (size_t i = 0; i < c->q_len; i++)
            q[i] = c->queue[(c->q_head + i) % c->q_cap];
        free(c->queue);
        c->queue = q;
        c->q_cap = cap;
        c->q_head = 0;
    }
    c->queue[(c->q_head + c->q_len) % c->q_cap] = h;
    c->q_len++;
    return PCCX_OK;
}

/* ---- the issue path (§6.1, §9) ---------------------------------------------------------------- */

static int fault(pccx_t *c, int code, uint64_t w, const char *why)
{
    char text[96];
    pccx_disasm(w, c->ext, text, sizeof text);
    c->halted = 1;
    c->error.code = code;
    c->error.index = c->issued;
    c->error.word = w;
    snprintf(c->error.message, sizeof c->error.message,
             "%s at instruction %" PRIu64 " (word 0x%016" PRIx64 ": %s): %s",
             pccx_error_name(code), c->issued, w, text, why);
    return code;
}

static int log_word(pccx_t *c, uint64_t w, unsigned mnem)
{
    if (c->n_log == c->cap_log) {
        size_t cap = c->cap_log ? 2 * c->cap_log : 256;
        pccx_log *nl = realloc(c->log, cap * sizeof *nl);
        if (!nl)
            return -1;
        c->log = nl;
        c->cap_log = cap;
    }
    c->log[c->n_log].word = w;
    c->log[c->n_log].mnem = (uint16_t)mnem;
    c->n_log++;
    return 0;
}

/* ---- commit records (docs/commit-log.md "pccx") --------------------------------------------- */

/* The derived registers a record reports when its push changes them: status, cmd_fifo, then
 * queue.E and busy.E per engine, as the host would read them at its clock (spec §10, §11.5). */
typedef struct pccx_occ {
    uint64_t v[2 + 2 * PCCX_N_ENGINES];
} pccx_occ;

static const size_t occ_reg[2 + 2 * PCCX_N_ENGINES] = {
    PCCX_REG_STATUS, PCCX_REG_FIFO,
    PCCX_REG_QUEUE + 0, PCCX_REG_QUEUE + 1, PCCX_REG_QUEUE + 2, PCCX_REG_QUEUE + 3,
    PCCX_REG_QUEUE + 4, PCCX_REG_BUSY + 0, PCCX_REG_BUSY + 1, PCCX_REG_BUSY + 2,
    PCCX_REG_BUSY + 3, PCCX_REG_BUSY + 4};

/* Reading them runs the timing model up to the host clock only, which a later push cannot
 * change (it lands at or after that clock), so records never alter the timing. */
static void occ_read(pccx_t *c, pccx_occ *o)
{
    uint64_t fifo, queued[PCCX_N_ENGINES], running[PCCX_N_ENGINES];
    pccx_tm_occupancy(c->tm, &fifo, queued, running);
    o->v[0] = pccx_tm_status(c->tm) | (c->halted ? PCCX_STATUS_ERROR : 0);
    o->v[1] = fifo;
    for (unsigned e = 0; e < PCCX_N_ENGINES; e++) {
        o->v[2 + e] = queued[e];
        o->v[2 + PCCX_N_ENGINES + e] = running[e];
    }
}

static void commit_reg(pccx_t *c, npk_commit_sink *cs, size_t i, uint64_t v)
{
    npk_commit_reg(cs, c->reg_list[i].name, c->reg_list[i].bits, v);
}

/* The record of the instruction just issued as number `idx` (its issue index is its pc): what
 * it wrote by definition (E_MAX, the constant-cache entry, the weight queue, the L2 / host
 * bytes of its footprint: spec §6 executes it completely at issue, §6.1), and the occupancy
 * registers its push changed. Issue cycle: a_i, when it entered the command FIFO (§11.2). */
static void commit(pccx_t *c, npk_commit_sink *cs, uint64_t idx, uint64_t w,
                   const pccx_insn_t *d, int dropped, const pccx_fp *fp, const pccx_occ *before)
{
    uint8_t wb[8];
    for (int i = 0; i < 8; i++)
        wb[i] = (uint8_t)(w >> (8 * i));
    npk_commit_begin(cs, idx, wb, 8);
    pccx_occ after;
    occ_read(c, &after);
    int gemx = !dropped && (d->opcode == PCCX_OP_GEMV || d->opcode == PCCX_OP_GEMM);
    if ((gemx && (d->flags & PCCX_FLAG_FINDEMAX)) ||
        (!dropped && d->opcode == PCCX_OP_CVO && d->func == PCCX_CVO_REDUCE_MAX))
        commit_reg(c, cs, PCCX_REG_EMAX, c->emax);
    /* registers in the order of the register list (npukit info -t pccx) */
    if (after.v[0] != before->v[0])
        commit_reg(c, cs, PCCX_REG_STATUS, after.v[0]);
    if (gemx)
        commit_reg(c, cs, PCCX_REG_WQ, c->q_len);
    for (size_t k = 1; k < sizeof occ_reg / sizeof occ_reg[0]; k++)
        if (after.v[k] != before->v[k])
            commit_reg(c, cs, occ_reg[k], after.v[k]);
    if (!dropped && d->opcode == PCCX_OP_MEMSET)
        for (unsigned k = 0; k < 3; k++)
            commit_reg(c, cs, PCCX_REG_CC + (d->bank * PCCX_CC_ENTRIES + d->index) * 3 + k,
                       c->cc[d->bank][d->index][k]);
    if (fp->l2_wr.hi > fp->l2_wr.lo) /* element ranges: 2 bytes each */
        npk_commit_mem(cs, "l2", 2 * fp->l2_wr.lo, c->l2 + 2 * fp->l2_wr.lo,
                       (size_t)(2 * (fp->l2_wr.hi - fp->l2_wr.lo)));
    if (fp->host_wr.hi > fp->host_wr.lo)
        npk_commit_mem(cs, "host", fp->host_wr.lo, c->host + fp->host_wr.lo,
                       (size_t)(fp->host_wr.hi - fp->host_wr.lo));
    npk_commit_end(c->m, cs, 1, pccx_tm_record(c->tm, idx)->a);
}

int pccx_issue_word(pccx_t *c, uint64_t w)
{
    return pccx_issue_word_fp(c, w, NULL);
}

int pccx_issue_word_fp(pccx_t *c, uint64_t w, pccx_fp *fp_out)
{
    if (c->halted)
        return PCCX_E_HALTED;
    npk_commit_sink *cs = npk_observers(c->m)->commit;
    pccx_occ before = {{0}};
    if (cs)
        occ_read(c, &before);
    pccx_insn_t d, eff;
    int dropped;
    char why[300];
    pccx_unpack(w, &d);
    int rc = pccx_effective(&d, c->ext, c->hw_compat, &eff, &dropped, why, sizeof why);
    if (rc != PCCX_OK)
        return fault(c, rc, w, why);
    pccx_fp fp;
    unsigned mnem = PCCX_N_MNEMONICS - 1;
    if (dropped) {
        pccx_fp_init(&fp, PCCX_FP_DROPPED);
    } else {
        rc = pccx_exec(c, &eff, &fp, why, sizeof why);
        if (rc != PCCX_OK)
            return fault(c, rc, w, why);
        mnem = pccx_mnemonic_id(&eff);
    }
    if (log_word(c, w, mnem) != 0 || pccx_tm_push(c->tm, &fp) != 0)
        return fault(c, PCCX_E_NOMEM, w, "out of memory for the timing record");
    if (cs)
        commit(c, cs, c->issued, w, &eff, dropped, &fp, &before);
    c->counts[mnem]++;
    c->issued++;
    if (fp_out)
        *fp_out = fp;
    return PCCX_OK;
}

/* ---- observers ------------------------------------------------------------------------------- */

static void set_extras(pccx_t *c)
{
    npk_obs *o = npk_observers(c->m);
    if (!o->extra)
        return;
    pccx_stats_t st;
    memset(&st, 0, sizeof st);
    pccx_tm_stats(c->tm, &st);
    uint64_t v[PCCX_N_EXTRAS] = {c->macs, c->weights, st.dropped, st.port_b_busy,
                                 st.acp_bytes, st.hp_bytes[0], st.hp_bytes[1], st.hp_bytes[2],
                                 st.hp_bytes[3], st.stall_fifo_full, st.stall_queue_full,
                                 st.stall_sync_wait, st.hazard_wait, c->exact_fallback,
                                 st.cycles - st.engine_busy[0], st.cycles - st.engine_busy[1],
                                 st.cycles - st.engine_busy[2], st.cycles - st.engine_busy[3],
                                 st.cycles - st.engine_busy[4]};
    memcpy(o->extra, v, sizeof v);
}

void pccx_emit_observed(pccx_t *c)
{
    npk_obs *o = npk_observers(c->m);
    if (!npk_obs_active(o))
        return;
    for (; c->emitted < c->n_log; c->emitted++) {
        const pccx_tm_rec *r = pccx_tm_record(c->tm, c->emitted);
        if (!r || !r->done)
            break;
        uint8_t wb[8];
        for (int i = 0; i < 8; i++)
            wb[i] = (uint8_t)(c->log[c->emitted].word >> (8 * i));
        npk_event ev = {8 * c->emitted, wb, c->log[c->emitted].mnem,
                        r->engine >= 0 ? (unsigned)r->engine : PCCX_U_FRONT, r->s, r->c};
        if (r->engine < 0)
            ev.start = ev.end = r->d;
        npk_obs_retire(c->m, &ev);
        if (r->r1 > r->r0)
            npk_obs_span(c->m, PCCX_U_PORT_B, "read", r->r0, r->r1);
        if (r->w1 > r->w0)
            npk_obs_span(c->m, PCCX_U_PORT_B, "write", r->w0, r->w1);
    }
    set_extras(c);
}

/* ---- loading ----------------------------------------------------------------------------------- */

static void clear_program(pccx_t *c)
{
    free(c->prog);
    free(c->prog_bytes);
    free(c->windows);
    c->prog = NULL;
    c->prog_bytes = NULL;
    c->windows = NULL;
    c->n_prog = c->n_windows = 0;
    c->spaces[PCCX_SP_PROG].data = NULL;
    c->spaces[PCCX_SP_PROG].info.size = 0;
}

static npk_status set_words(npk_machine *m, pccx_t *c, const uint64_t *w, size_t n)
{
    clear_program(c);
    c->prog = malloc((n ? n : 1) * sizeof *c->prog);
    c->prog_bytes = malloc(n ? 8 * n : 1);
    if (!c->prog || !c->prog_bytes)
        return npk_fail(m, NPK_ERR_NOMEM, "pccx: out of memory for a %zu-instruction program", n);
    for (size_t i = 0; i < n; i++) {
        c->prog[i] = w[i];
        for (int b = 0; b < 8; b++)
            c->prog_bytes[8 * i + b] = (uint8_t)(w[i] >> (8 * b));
    }
    c->n_prog = n;
    c->spaces[PCCX_SP_PROG].data = c->prog_bytes;
    c->spaces[PCCX_SP_PROG].info.size = 8 * n;
    return NPK_OK;
}

/* Put a program's initial state in place (§13.3: data, tensors, queue; windows at their
 * instruction). The machine has just been reset. */
static npk_status apply_program(npk_machine *m, pccx_t *c, const pccx_prog *p)
{
    c->mem_zero = 0;
    for (size_t i = 0; i < p->n_l2; i++) {
        if (!npk_range_ok(p->l2[i].addr, p->l2[i].size, PCCX_L2_BYTES))
            return npk_fail(m, NPK_ERR_RANGE, "pccx: L2 data at byte 0x%llx (%zu bytes) leaves L2",
                            (unsigned long long)p->l2[i].addr, p->l2[i].size);
        memcpy(c->l2 + p->l2[i].addr, p->l2[i].bytes, p->l2[i].size);
    }
    for (size_t i = 0; i < p->n_host; i++) {
        if (!npk_range_ok(p->host[i].addr, p->host[i].size, c->host_bytes))
            return npk_fail(m, NPK_ERR_RANGE,
                            "pccx: host data at byte 0x%llx (%zu bytes) leaves host DDR (%llu "
                            "bytes)", (unsigned long long)p->host[i].addr, p->host[i].size,
                            (unsigned long long)c->host_bytes);
        memcpy(c->host + p->host[i].addr, p->host[i].bytes, p->host[i].size);
    }
    pccx_tensors_clear(c);
    for (size_t i = 0; i < p->n_tensors; i++) {
        pccx_tensor t = p->tensors[i];
        pccx_weight_t h;
        /* the machine owns a copy; the program keeps its own for a later reset */
        t.codes = NULL;
        t.scale = NULL;
        t.name = NULL;
        if (!p->tensors[i].view) {
            size_t nb = (size_t)t.n * t.row_bytes;
            t.codes = malloc(nb ? nb : 1);
            t.scale = malloc((size_t)t.n * sizeof *t.scale);
            if (t.codes)
                memcpy(t.codes, p->tensors[i].codes, nb);
            if (t.scale)
                memcpy(t.scale, p->tensors[i].scale, (size_t)t.n * sizeof *t.scale);
        }
        if (p->tensors[i].name) {
            size_t len = strlen(p->tensors[i].name) + 1;
            t.name = malloc(len);
            if (t.name)
                memcpy(t.name, p->tensors[i].name, len);
        }
        if ((!p->tensors[i].view && (!t.codes || !t.scale)) || pccx_tensor_add(c, &t, &h)) {
            pccx_tensor_free(&t);
            return npk_fail(m, NPK_ERR_NOMEM, "pccx: out of memory for weight tensors");
        }
    }
    for (size_t i = 0; i < p->n_pushes; i++)
        if (pccx_queue_push(c, (pccx_weight_t)(p->pushes[i] + 1)) != PCCX_OK)
            return npk_fail(m, NPK_ERR_NOMEM, "pccx: out of memory for the weight queue");
    return NPK_OK;
}

static npk_status pccx_reset_hook(npk_machine *m, void *state)
{
    pccx_t *c = state;
    pccx_state_reset(c);
    if (c->loaded) {
        pccx_tensors_clear(c);
        return apply_program(m, c, c->loaded);
    }
    return NPK_OK;
}

static npk_status pccx_load_raw(npk_machine *m, void *state, const uint8_t *bytes, size_t n,
                                uint64_t addr)
{
    pccx_t *c = state;
    if (addr != 0)
        return npk_fail(m, NPK_ERR_RANGE, "pccx: a program image loads at 0, not at 0x%llx",
                        (unsigned long long)addr);
    if (n % 8)
        return npk_fail(m, NPK_ERR_FORMAT,
                        "pccx: program image of %zu bytes is not a whole number of 64-bit words",
                        n);
    uint64_t *w = malloc(n ? n : 1);
    if (!w)
        return npk_fail(m, NPK_ERR_NOMEM, "pccx: out of memory");
    for (size_t i = 0; i < n / 8; i++) {
        w[i] = 0;
        for (int b = 0; b < 8; b++)
            w[i] |= (uint64_t)bytes[8 * i + b] << (8 * b);
    }
    npk_status st = set_words(m, c, w, n / 8);
    free(w);
    pccx_prog_free(c->loaded);
    c->loaded = NULL;
    pccx_state_reset(c);
    pccx_tensors_clear(c);
    return st;
}

/* Assemble a §13 source with the settings given on the command line overriding the file's
 * `.profile` / `.mode`. */
static npk_status assemble(npk_machine *m, const pccx_t *c, const char *source,
                           const char *name, FILE *diag, pccx_prog **p)
{
    int errors = pccx_assemble(source, strlen(source), name, c->ext_set ? c->ext : -1,
                               c->mode_set ? c->hw_compat : -1, diag, npk_listing_out(m), p);
    if (errors < 0)
        return npk_fail(m, NPK_ERR_NOMEM, "pccx: out of memory assembling %s", name);
    if (errors > 0 || !*p)
        return npk_fail(m, NPK_ERR_FORMAT, "%s: %d error%s", name, errors, errors == 1 ? "" : "s");
    return NPK_OK;
}

static npk_status pccx_load_asm(npk_machine *m, void *state, const char *source,
                                const char *name, FILE *diag)
{
    pccx_t *c = state;
    pccx_prog *p = NULL;
    npk_status st0 = assemble(m, c, source, name, diag, &p);
    if (st0 != NPK_OK)
        return st0;
    if (p->has_profile && !c->ext_set)
        c->ext = p->ext;
    if (p->has_mode && !c->mode_set)
        c->hw_compat = p->hw_compat;
    if (p->host_bytes && !c->host_set && p->host_bytes != c->host_bytes) {
        uint8_t *h = calloc((size_t)p->host_bytes, 1);
        if (!h) {
            pccx_prog_free(p);
            return npk_fail(m, NPK_ERR_NOMEM, "pccx: out of memory for .hostsize %llu",
                            (unsigned long long)p->host_bytes);
        }
        free(c->host);
        c->host = h;
        c->host_bytes = p->host_bytes;
        c->spaces[PCCX_SP_HOST].data = h;
        c->spaces[PCCX_SP_HOST].info.size = p->host_bytes;
    }
    describe(m, c);
    npk_status st = set_words(m, c, p->words, p->n_words);
    if (st == NPK_OK && p->n_windows) {
        c->windows = malloc(p->n_windows * sizeof *c->windows);
        if (!c->windows)
            st = npk_fail(m, NPK_ERR_NOMEM, "pccx: out of memory");
        else
            memcpy(c->windows, p->windows, p->n_windows * sizeof *c->windows);
        c->n_windows = p->n_windows;
    }
    pccx_prog_free(c->loaded);
    c->loaded = p;
    if (st == NPK_OK) {
        pccx_state_reset(c);
        st = apply_program(m, c, p);
    }
    return st;
}

static npk_status pccx_assemble_hook(npk_machine *m, void *state, const char *source,
                                     const char *name, FILE *diag, uint8_t **image, size_t *size)
{
    pccx_t *c = state;
    pccx_prog *p = NULL;
    *image = NULL;
    *size = 0;
    npk_status st = assemble(m, c, source, name, diag, &p);
    if (st != NPK_OK)
        return st;
    uint8_t *img = malloc(p->n_words ? 8 * p->n_words : 1);
    if (!img) {
        pccx_prog_free(p);
        return npk_fail(m, NPK_ERR_NOMEM, "pccx: out of memory");
    }
    for (size_t i = 0; i < p->n_words; i++)
        for (int b = 0; b < 8; b++)
            img[8 * i + b] = (uint8_t)(p->words[i] >> (8 * b));
    *image = img;
    *size = 8 * p->n_words;
    pccx_prog_free(p);
    return NPK_OK;
}

/* ---- running a loaded program ------------------------------------------------------------------ */

/* "instruction N (byte 0x...): word 0x... (disassembly)" for stop messages. */
static void describe_insn(pccx_t *c, uint64_t i, char *out, size_t n)
{
    char text[160];
    pccx_disasm(c->prog[i], c->ext, text, sizeof text);
    snprintf(out, n, "instruction %" PRIu64 " (byte 0x%" PRIx64 "): word 0x%016" PRIx64 " (%s)",
             i, 8 * i, c->prog[i], text);
}

/* An L2 element range as bytes of "l2" (element e at byte 2e). */
static void watch_l2(npk_machine *m, pccx_t *c, pccx_range r, unsigned kind)
{
    if (r.hi > r.lo)
        npk_watch_access(m, PCCX_SP_L2, 2 * r.lo, 2 * (r.hi - r.lo), kind, c->l2 + 2 * r.lo);
}

static void watch_host(npk_machine *m, pccx_t *c, pccx_range r, unsigned kind)
{
    if (r.hi > r.lo)
        npk_watch_access(m, PCCX_SP_HOST, r.lo, r.hi - r.lo, kind, c->host + r.lo);
}

/* A constant-cache entry (bank * 64 + index, -1: none) as its 12 bytes of cc_fmap or
 * cc_weight. */
static void watch_cc(npk_machine *m, int e, unsigned kind)
{
    if (e >= 0)
        npk_watch_access(m, e < (int)PCCX_CC_ENTRIES ? PCCX_SP_CC_FMAP : PCCX_SP_CC_WEIGHT,
                         12 * (uint64_t)(e % PCCX_CC_ENTRIES), 12, kind, NULL);
}

/* The accesses of an issued instruction: its footprint (the ranges the timing model's hazards
 * use, §11.4), reads first. Values are the memory's after the instruction. */
static void watch_fp(npk_machine *m, pccx_t *c, const pccx_fp *fp)
{
    watch_l2(m, c, fp->l2_rd[0], NPK_WATCH_READ);
    watch_l2(m, c, fp->l2_rd[1], NPK_WATCH_READ);
    watch_host(m, c, fp->host_rd, NPK_WATCH_READ);
    watch_cc(m, fp->cc_rd[0], NPK_WATCH_READ);
    watch_cc(m, fp->cc_rd[1], NPK_WATCH_READ);
    watch_l2(m, c, fp->l2_wr, NPK_WATCH_WRITE);
    watch_host(m, c, fp->host_wr, NPK_WATCH_WRITE);
    watch_cc(m, fp->cc_wr, NPK_WATCH_WRITE);
}

npk_status pccx_run(npk_machine *m, void *state, uint64_t max_insns, npk_stop *stop)
{
    pccx_t *c = state;
    uint64_t done = 0;
    npk_dbg *dbg = npk_observers(m)->dbg;
    while (c->pc < c->n_prog) {
        if (max_insns && done == max_insns) {
            pccx_emit_observed(c);
            npk_stop_set(stop, NPK_STOP_BUDGET, 8 * c->pc, "budget of %llu instructions used",
                         (unsigned long long)max_insns);
            return NPK_OK;
        }
        if (dbg && npk_break_hit(m, 8 * c->pc)) {
            char where[300];
            pccx_emit_observed(c);
            describe_insn(c, c->pc, where, sizeof where);
            npk_break_stop(m, stop, 8 * c->pc, where);
            stop->insn[0] = c->prog[c->pc];
            stop->insn_bits = 64;
            return NPK_OK;
        }
        while (c->next_window < c->n_windows && c->windows[c->next_window].at <= c->pc)
            c->window = c->windows[c->next_window++].base;
        uint64_t w = c->prog[c->pc];
        pccx_fp fp;
        int watch = dbg && dbg->kinds;
        int rc = pccx_issue_word_fp(c, w, watch ? &fp : NULL);
        if (rc != PCCX_OK) {
            pccx_tm_drain_time(c->tm);
            pccx_emit_observed(c);
            npk_stop_set(stop, NPK_STOP_FAULT, 8 * c->pc, "pc %llu: %s",
                         (unsigned long long)c->pc,
                         rc == PCCX_E_HALTED ? "the machine is halted after a fault"
                                             : c->error.message);
            stop->insn[0] = w;
            stop->insn_bits = 64;
            return NPK_OK;
        }
        c->pc++;
        done++;
        if (watch) {
            watch_fp(m, c, &fp);
            if (dbg->pending) {
                char where[300];
                pccx_emit_observed(c);
                describe_insn(c, c->pc - 1, where, sizeof where);
                npk_watch_stop(m, stop, 8 * (c->pc - 1), 8 * c->pc, where);
                return NPK_OK;
            }
        }
    }
    uint64_t end = pccx_tm_drain_time(c->tm);
    pccx_tm_sync(c->tm, 0);
    pccx_emit_observed(c);
    npk_stop_set(stop, NPK_STOP_EXIT, 8 * c->pc,
                 "end of program after %llu instructions, %llu cycles (%.3f us at %u MHz)",
                 (unsigned long long)c->issued, (unsigned long long)end,
                 (double)end / c->timing.f_core_mhz, c->timing.f_core_mhz);
    stop->exit_code = 0;
    return NPK_OK;
}

/* ---- backdoors ------------------------------------------------------------------------------------ */

static npk_status pccx_space_read(npk_machine *m, void *state, size_t space, uint64_t addr,
                                  void *buf, size_t n)
{
    pccx_t *c = state;
    uint8_t *out = buf;
    if (space == PCCX_SP_WQ) {
        for (size_t i = 0; i < n; i++) {
            uint64_t a = addr + i, j = a / PCCX_WQ_ENTRY;
            pccx_weight_t h = c->queue[(c->q_head + j) % c->q_cap];
            const pccx_tensor *t = pccx_tensor_get(c, h);
            uint32_t f[4] = {h, t ? t->k : 0, t ? t->n : 0, t ? (uint32_t)t->view : 0};
            out[i] = (uint8_t)(f[a % PCCX_WQ_ENTRY / 4] >> (8 * (a % 4)));
        }
        return NPK_OK;
    }
    if (space != PCCX_SP_CC_FMAP && space != PCCX_SP_CC_WEIGHT)
        return npk_fail(m, NPK_ERR_UNSUPPORTED, "pccx: space %zu has no reader", space);
    int bank = space == PCCX_SP_CC_WEIGHT;
    for (size_t i = 0; i < n; i++) {
        uint64_t a = addr + i;
        uint32_t v = c->cc[bank][a / 12][(a % 12) / 4];
        out[i] = (uint8_t)(v >> (8 * (a % 4)));
    }
    return NPK_OK;
}

static npk_status pccx_space_write(npk_machine *m, void *state, size_t space, uint64_t addr,
                                   const void *buf, size_t n)
{
    pccx_t *c = state;
    const uint8_t *in = buf;
    if (space == PCCX_SP_PROG) {
        memcpy(c->prog_bytes + addr, in, n);
        for (uint64_t w = addr / 8; w < (addr + n + 7) / 8; w++) {
            c->prog[w] = 0;
            for (int b = 0; b < 8; b++)
                c->prog[w] |= (uint64_t)c->prog_bytes[8 * w + b] << (8 * b);
        }
        return NPK_OK;
    }
    if (space == PCCX_SP_WQ)
        return npk_fail(m, NPK_ERR_UNSUPPORTED,
                        "pccx: weight_queue is read-only: tensors are queued by .wpush or "
                        "pccx_weight_push and dequeued by GEMV/GEMM (spec §5.4)");
    if (space != PCCX_SP_CC_FMAP && space != PCCX_SP_CC_WEIGHT) {
        c->mem_zero = 0;
        memcpy(c->spaces[space].data + addr, in, n);
        return NPK_OK;
    }
    int bank = space == PCCX_SP_CC_WEIGHT;
    for (size_t i = 0; i < n; i++) {
        uint64_t a = addr + i;
        uint32_t *v = &c->cc[bank][a / 12][(a % 12) / 4];
        unsigned sh = 8 * (unsigned)(a % 4);
        uint32_t nv = (*v & ~(0xFFu << sh)) | (uint32_t)in[i] << sh;
        /* checked before storing: a rejected value must not stay behind, since shape
         * arithmetic (X*Z*K) relies on every entry being at most 17 bits */
        if (nv > 0x1FFFF)
            return npk_fail(m, NPK_ERR_RANGE,
                            "pccx: constant-cache values are 17 bits (entry %llu got 0x%x)",
                            (unsigned long long)(a / 12), nv);
        *v = nv;
    }
    return NPK_OK;
}

static size_t pccx_spaces(void *state, npk_memspace **list)
{
    pccx_t *c = state;
    c->spaces[PCCX_SP_WQ].info.size = (uint64_t)PCCX_WQ_ENTRY * c->q_len;
    *list = c->spaces;
    return PCCX_N_SPACES;
}

static npk_status pccx_reg_read_hook(npk_machine *m, void *state, size_t i, uint64_t *v)
{
    pccx_t *c = state;
    (void)m;
    if (i >= PCCX_REG_CC) {
        size_t k = i - PCCX_REG_CC;
        *v = c->cc[k / (3 * PCCX_CC_ENTRIES)][k / 3 % PCCX_CC_ENTRIES][k % 3];
        return NPK_OK;
    }
    if (i >= PCCX_REG_FIFO) {
        uint64_t fifo, queued[PCCX_N_ENGINES], running[PCCX_N_ENGINES];
        pccx_tm_occupancy(c->tm, &fifo, queued, running);
        *v = i == PCCX_REG_FIFO ? fifo
             : i < PCCX_REG_BUSY ? queued[i - PCCX_REG_QUEUE] : running[i - PCCX_REG_BUSY];
        return NPK_OK;
    }
    switch (i) {
    case PCCX_REG_PC: *v = c->pc; break;
    case PCCX_REG_EMAX: *v = c->emax; break;
    case PCCX_REG_STATUS:
        *v = pccx_tm_status(c->tm) | (c->halted ? PCCX_STATUS_ERROR : 0);
        break;
    case PCCX_REG_WINDOW: *v = c->window; break;
    case PCCX_REG_ISSUED: *v = c->issued; break;
    case PCCX_REG_WQ: *v = c->q_len; break;
    default: *v = pccx_tm_host_clock(c->tm); break;
    }
    return NPK_OK;
}

/* The core has refused the read-only registers and values wider than the register. */
static npk_status pccx_reg_write_hook(npk_machine *m, void *state, size_t i, uint64_t v)
{
    pccx_t *c = state;
    if (i >= PCCX_REG_CC) {
        size_t k = i - PCCX_REG_CC;
        c->cc[k / (3 * PCCX_CC_ENTRIES)][k / 3 % PCCX_CC_ENTRIES][k % 3] = (uint32_t)v;
        return NPK_OK;
    }
    switch (i) {
    case PCCX_REG_PC:
        if (v > c->n_prog)
            return npk_fail(m, NPK_ERR_RANGE, "pccx: pc %llu is past the end of the %zu-word "
                            "program", (unsigned long long)v, c->n_prog);
        c->pc = v;
        return NPK_OK;
    case PCCX_REG_EMAX:
        c->emax = (uint32_t)v;
        return NPK_OK;
    default: /* PCCX_REG_WINDOW */
        if (v % 16 || v >= c->host_bytes)
            return npk_fail(m, NPK_ERR_RANGE, "pccx: window base 0x%llx must be a multiple of 16 "
                            "inside host DDR", (unsigned long long)v);
        c->window = v;
        return NPK_OK;
    }
}

static size_t pccx_regs_hook(void *state, const npk_reg_info **list)
{
    pccx_t *c = state;
    *list = c->reg_list;
    return PCCX_N_REGS;
}

static npk_status pccx_disasm_hook(npk_machine *m, void *state, const uint8_t *b, uint64_t pc,
                                   char *out, size_t n)
{
    pccx_t *c = state;
    uint64_t w = 0;
    (void)m;
    (void)pc;
    for (int i = 0; i < 8; i++)
        w |= (uint64_t)b[i] << (8 * i);
    int len = pccx_disasm(w, c->ext, out, n);
    pccx_insn_t d, eff;
    if (len < 0 || pccx_decode(w, c->ext, &d) == PCCX_OK)
        return NPK_OK;
    /* §13.2 prints a word that fails the strict rules as `.word`; like the other targets,
     * say why after it in a comment (the text still assembles to the word) */
    int dropped;
    char why[300];
    int rc = pccx_effective(&d, c->ext, c->hw_compat, &eff, &dropped, why, sizeof why);
    const char *mode = !c->hw_compat || rc != PCCX_OK ? ""
                       : dropped                      ? " (hw-compat drops it)"
                                                      : " (hw-compat runs it, the bits read as zero)";
    if ((size_t)len < n)
        snprintf(out + len, n - (size_t)len, "  ; illegal: %s%s", why[0] ? why : "invalid",
                 mode);
    return NPK_OK;
}

/* The engines run concurrently, so cycles per instruction says nothing; the cycle count is
 * the time to the last completion, which the core clock turns into time. */
static int pccx_cycles_note(void *state, const npk_stats *s, char *out, size_t n)
{
    const pccx_t *c = state;
    return snprintf(out, n,
                    "%.3f us at %u MHz, to the last completion; the engines run "
                    "concurrently: see their busy cycles",
                    (double)s->cycles / c->timing.f_core_mhz, c->timing.f_core_mhz);
}

const npk_target npk_target_pccx = {
    .name = "pccx",
    .summary = "64-bit VLIW LLM-inference NPU (GEMV/GEMM with INT4 weights, CVO, MEMCPY, "
               "MEMSET; concurrent-engine timing)",
    .config_help =
        "  base | ext        profile (default base; ext adds CVO 0x8-0xE and BF16 views)\n"
        "  ext=0|1           the same as a setting\n"
        "  mode=strict|hw-compat  decode checking (default strict)\n"
        "  host_ddr_bytes=N  host DDR size, 16 .. 4G, multiple of 16 (default 64M)\n"
        "  f_core_mhz=400, f_axi_mhz=250, cmd_fifo_depth=8, decode_cycles=1,\n"
        "  engine_queue_depth=8, host_push_axi_cycles=2, l2_read_latency=7,\n"
        "  l2_port_words_per_cycle=1, ddr_latency_ns=100, mem_setup_cycles=13,\n"
        "  memset_cycles=2, acp_bytes_per_axi_cycle=16, hp_bytes_per_axi_cycle=16,\n"
        "  gemm_ports=0x3, gemv_ports=0xC, gemv_lanes=4, gemv_lane_width=32, gemv_latency=8,\n"
        "  gemm_rows=32, gemm_cols=32, gemm_macs_per_pe=2, gemm_latency=68, cvo_cores=2,\n"
        "  cvo_overhead=8, cvo_lat_recip_scale=12, lat_<cvo function> (lat_exp=5, ...)\n"
        "                    timing parameters of spec §11.1 (defaults shown)\n",
    .presets = "base ext strict hw-compat",
    .insn_bytes = 8,
    .elf_machine = 0,
    .addr_bits = 64, /* program words are pushed, not fetched: no narrower space */
    .create = pccx_create,
    .destroy = pccx_destroy,
    .reset = pccx_reset_hook,
    .load_raw = pccx_load_raw,
    .assemble = pccx_assemble_hook,
    .load_asm = pccx_load_asm,
    .run = pccx_run,
    .disasm = pccx_disasm_hook,
    .spaces = pccx_spaces,
    .space_read = pccx_space_read,
    .space_write = pccx_space_write,
    .regs = pccx_regs_hook,
    .reg_read = pccx_reg_read_hook,
    .reg_write = pccx_reg_write_hook,
    .reg_aliases = reg_aliases,
    .mnemonics = pccx_mnemonic_names,
    .n_mnemonics = PCCX_N_MNEMONICS,
    .units = units,
    .n_units = PCCX_N_UNITS,
    .extras = extras,
    .n_extras = PCCX_N_EXTRAS,
    .cycles_note = pccx_cycles_note,
    .commit_records = 1,
    .snap_save = pccx_snap_save,
    .snap_restore = pccx_snap_restore,
};
