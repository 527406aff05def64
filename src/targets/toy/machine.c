/* toy machine: state, configuration, reset, loading, backdoor access and the target's
 * registration record. */
#include <stdlib.h>
#include <string.h>

#include "core/checked.h"
#include "core/snapshot.h"
#include "targets/toy/asm.h"
#include "targets/toy/toy.h"

static const char *const extras[TOY_N_EXTRAS] = {"loads", "stores", "taken_branches",
                                                 "stall_cycles"};

static const npk_reg_info regs[] = {{"pc", 32, 0}, {"r0", 32, 0}, {"r1", 32, 0}, {"r2", 32, 0}, {"r3", 32, 0},
                                    {"r4", 32, 0}, {"r5", 32, 0}, {"r6", 32, 0}, {"r7", 32, 0}};

#define TOY_MEM_DEFAULT (64u * 1024u)
#define TOY_MEM_MAX (16u * 1024u * 1024u)

static npk_status toy_reset(npk_machine *m, void *state)
{
    toy_state *s = state;
    (void)m;
    memset(s->r, 0, sizeof s->r);
    s->pc = 0;
    s->next_issue = 0;
    memset(s->ready, 0, sizeof s->ready);
    return NPK_OK;
}

static void toy_destroy(void *state)
{
    toy_state *s = state;
    if (!s)
        return;
    free(s->mem);
    free(s->dcache);
    free(s->dvalid);
    free(s);
}

static npk_status toy_create(npk_machine *m, const npk_config *cfg_in, void **out)
{
    npk_config *cfg = (npk_config *)cfg_in;
    uint64_t mem;
    npk_status st = npk_config_size(m, cfg, "toy", "mem", TOY_MEM_DEFAULT, 16, TOY_MEM_MAX,
                                    "bytes", &mem);
    if (st != NPK_OK)
        return st;
    if (mem % 4)
        return npk_fail(m, NPK_ERR_ARG, "toy: mem=%llu is not a multiple of 4 bytes",
                        (unsigned long long)mem);
    st = npk_config_check_unused(m, cfg, "toy", "mem=SIZE");
    if (st != NPK_OK)
        return st;
    toy_state *s = calloc(1, sizeof *s);
    if (!s)
        return npk_fail(m, NPK_ERR_NOMEM, "toy: out of memory");
    s->mem_size = (uint32_t)mem;
    s->mem = calloc(mem, 1);
    s->dcache = calloc(mem / 4, sizeof *s->dcache);
    s->dvalid = calloc(mem / 4, 1);
    if (!s->mem || !s->dcache || !s->dvalid) {
        toy_destroy(s);
        return npk_fail(m, NPK_ERR_NOMEM, "toy: out of memory for %llu bytes",
                        (unsigned long long)mem);
    }
    s->space = (npk_memspace){{"mem", mem, "unified program and data memory"}, s->mem};
    npk_config_describe(m, "mem=%llu", (unsigned long long)mem);
    toy_reset(m, s);
    *out = s;
    return NPK_OK;
}

static npk_status toy_load_raw(npk_machine *m, void *state, const uint8_t *bytes, size_t n,
                               uint64_t addr)
{
    toy_state *s = state;
    if (!npk_range_ok(addr, n, s->mem_size))
        return npk_fail(m, NPK_ERR_RANGE,
                        "toy: image of %zu bytes at 0x%llx does not fit the %u-byte memory "
                        "(set mem=SIZE)",
                        n, (unsigned long long)addr, s->mem_size);
    memcpy(s->mem + addr, bytes, n);
    memset(s->dvalid, 0, s->mem_size / 4);
    return toy_reset(m, s);
}

static npk_status toy_space_write(npk_machine *m, void *state, size_t space, uint64_t addr,
                                  const void *buf, size_t n)
{
    toy_state *s = state;
    (void)m;
    (void)space;
    memcpy(s->mem + addr, buf, n);
    memset(s->dvalid + addr / 4, 0, (n + (addr & 3) + 3) / 4);
    return NPK_OK;
}

static npk_status toy_poke(npk_machine *m, void *state, uint64_t addr, const uint8_t *bytes,
                           size_t n)
{
    toy_state *s = state;
    if (!npk_range_ok(addr, n, s->mem_size))
        return npk_fail(m, NPK_ERR_RANGE, "toy: %zu bytes at 0x%llx do not fit the %u-byte memory",
                        n, (unsigned long long)addr, s->mem_size);
    return toy_space_write(m, s, 0, addr, bytes, n);
}

static npk_status toy_peek(npk_machine *m, void *state, uint64_t addr, uint8_t *bytes, size_t n)
{
    toy_state *s = state;
    if (!npk_range_ok(addr, n, s->mem_size))
        return npk_fail(m, NPK_ERR_RANGE, "toy: %zu bytes at 0x%llx do not fit the %u-byte memory",
                        n, (unsigned long long)addr, s->mem_size);
    memcpy(bytes, s->mem + addr, n);
    return NPK_OK;
}

static npk_status toy_disasm_hook(npk_machine *m, void *state, const uint8_t *b, uint64_t pc,
                                  char *out, size_t n)
{
    (void)m;
    (void)state;
    uint32_t w = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                 (uint32_t)b[3] << 24;
    toy_disasm(w, (uint32_t)pc, out, n);
    return NPK_OK;
}

static size_t toy_spaces(void *state, npk_memspace **list)
{
    toy_state *s = state;
    *list = &s->space;
    return 1;
}

static size_t toy_regs(void *state, const npk_reg_info **list)
{
    (void)state;
    *list = regs;
    return sizeof regs / sizeof regs[0];
}

static npk_status toy_reg_read(npk_machine *m, void *state, size_t i, uint64_t *v)
{
    toy_state *s = state;
    (void)m;
    *v = i == 0 ? s->pc : s->r[i - 1];
    return NPK_OK;
}

static npk_status toy_reg_write(npk_machine *m, void *state, size_t i, uint64_t v)
{
    toy_state *s = state;
    if (v > UINT32_MAX)
        return npk_fail(m, NPK_ERR_RANGE, "toy: %s is 32 bits wide; 0x%llx does not fit",
                        regs[i].name, (unsigned long long)v);
    if (i == 0)
        s->pc = (uint32_t)v;
    else
        s->r[i - 1] = (uint32_t)v;
    return NPK_OK;
}

static npk_status toy_assemble_hook(npk_machine *m, void *state, const char *source,
                                    const char *name, FILE *diag, uint8_t **image,
                                    size_t *size)
{
    (void)state;
    return toy_assemble_image(m, source, name, diag, image, size);
}

/* Snapshot sections (docs/snapshot.md): REGS pc, r0..r7; MEM "mem"; TIME the timing model. */
static npk_status toy_snap_save(npk_machine *m, void *state, npk_snap_writer *w)
{
    toy_state *s = state;
    (void)m;
    npk_snap_begin(w, "REGS");
    npk_snap_u32(w, s->pc);
    for (int i = 0; i < 8; i++)
        npk_snap_u32(w, s->r[i]);
    npk_snap_end(w);
    npk_snap_mem(w, "mem", s->mem, s->mem_size);
    npk_snap_begin(w, "TIME");
    npk_snap_u64(w, s->next_issue);
    for (int i = 0; i < 8; i++)
        npk_snap_u64(w, s->ready[i]);
    npk_snap_end(w);
    return NPK_OK;
}

static npk_status toy_snap_restore(npk_machine *m, void *state, npk_snap_reader *r)
{
    toy_state *s = state;
    (void)m;
    npk_snap_cursor c = {NULL, 0, 1};
    npk_status st = npk_snap_section_get(r, "REGS", &c);
    if (st != NPK_OK)
        return st;
    uint32_t pc = npk_snap_get_u32(&c), x[8];
    for (int i = 0; i < 8; i++)
        x[i] = npk_snap_get_u32(&c);
    if ((st = npk_snap_section_done(r, "REGS", &c)) != NPK_OK)
        return st;
    if ((st = npk_snap_mem_restore(r, "mem", s->mem, s->mem_size, NULL, NULL)) != NPK_OK)
        return st;
    if ((st = npk_snap_section_get(r, "TIME", &c)) != NPK_OK)
        return st;
    uint64_t next = npk_snap_get_u64(&c), ready[8];
    for (int i = 0; i < 8; i++)
        ready[i] = npk_snap_get_u64(&c);
    if ((st = npk_snap_section_done(r, "TIME", &c)) != NPK_OK)
        return st;
    if (r->apply) {
        s->pc = pc;
        memcpy(s->r, x, sizeof s->r);
        s->next_issue = next;
        memcpy(s->ready, ready, sizeof s->ready);
        memset(s->dvalid, 0, s->mem_size / 4); /* memory changed under every cached decode */
    }
    return NPK_OK;
}

const npk_target npk_target_toy = {
    .name = "toy",
    .summary = "a tiny 32-bit register machine: the reference target for npukit's engines",
    .config_help = "  mem=SIZE   unified memory in bytes, a multiple of 4, 16 .. 16M "
                   "(default 64K)\n",
    .insn_bytes = 4,
    .elf_machine = 0,
    .addr_bits = 32, /* the pc is 32 bits */
    .symbol_space = "mem",
    .create = toy_create,
    .destroy = toy_destroy,
    .reset = toy_reset,
    .load_raw = toy_load_raw,
    .assemble = toy_assemble_hook,
    .run = toy_run,
    .step = toy_step,
    .disasm = toy_disasm_hook,
    .spaces = toy_spaces,
    .space_write = toy_space_write,
    .poke = toy_poke,
    .peek = toy_peek,
    .regs = toy_regs,
    .reg_read = toy_reg_read,
    .reg_write = toy_reg_write,
    .mnemonics = toy_mnemonics,
    .n_mnemonics = TOY_N_OPS,
    .units = toy_unit_names,
    .n_units = TOY_N_UNITS,
    .extras = extras,
    .n_extras = TOY_N_EXTRAS,
    .snap_save = toy_snap_save,
    .snap_restore = toy_snap_restore,
    .commit_records = 1,
};
