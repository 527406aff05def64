/* rvnpu machine: state, configuration (revision, RAM size, sandbox, UART input, syscalls,
 * timing latencies), reset to the initial state of §11.7, program loading (raw images, ELF
 * segments, --write pokes), backdoor access and the target's registration record. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/checked.h"
#include "targets/rvnpu/asm.h"
#include "targets/rvnpu/rvnpu.h"

#define RVNPU_RAM_DEFAULT (4u << 20)
/* RAM starts at 0x8000_0000 and must end inside the 32-bit address space (§11.5) */
#define RVNPU_RAM_MAX (2ull << 30)

/* Timing latency keys: which unit (or per-element cost) each sets, and its default. */
enum { LAT_NPU_ELEM = RVNPU_N_UNITS, LAT_FNPU_ELEM, LAT_TAKEN, N_LAT };
static const struct {
    const char *key;
    unsigned def;
} lat_keys[N_LAT] = {
    [RVNPU_U_ALU] = {"lat_alu", 1},      [RVNPU_U_BRANCH] = {"lat_branch", 1},
    [RVNPU_U_MUL] = {"lat_mul", 3},      [RVNPU_U_DIV] = {"lat_div", 34},
    [RVNPU_U_LSU] = {"lat_load", 2},     [RVNPU_U_FPU] = {"lat_fp", 4},
    [RVNPU_U_FDIV] = {"lat_fdiv", 20},   [RVNPU_U_NPU] = {"lat_npu", 2},
    [RVNPU_U_FNPU] = {"lat_fnpu", 4},    [RVNPU_U_SYS] = {"lat_sys", 1},
    [LAT_NPU_ELEM] = {"lat_npu_elem", 1}, [LAT_FNPU_ELEM] = {"lat_fnpu_elem", 1},
    [LAT_TAKEN] = {"lat_taken", 1},
};

/* Register list (docs/state.md): pc, the x registers by ABI name, the f registers, every CSR
 * of spec §11.3 by its name (mcycle and minstret as the whole 64-bit counters), then the NPU
 * state of §2: acc, facc and vreg[0..3] as v0..v3 (their assembly names, §10). */
/* fflags, frm and fcsr are as wide as what they hold; misa, mie and mip ignore writes (§11.3),
 * so the backdoor refuses them like the read-only ones rather than drop a value silently */
#define CSR_BITS(a) ((a) == 0x001 ? 5u : (a) == 0x002 ? 3u : (a) == 0x003 ? 8u \
                     : (a) == 0xB00 || (a) == 0xB02 ? 64u : 32u)
#define CSR_FLAGS(a, w) (!(w) || (a) == 0x301 || (a) == 0x304 || (a) == 0x344 ? NPK_REG_READONLY : 0u)
enum { REG_PC = 0, REG_X = 1, REG_F = 33, REG_CSR = 65 };
static const uint16_t csr_addr[] = {
#define RVNPU_CSR(name, addr, writable) addr,
#include "targets/rvnpu/isa.def"
};
#define N_CSRS (sizeof csr_addr / sizeof csr_addr[0])
enum { REG_ACC = REG_CSR + N_CSRS, REG_FACC, REG_VREG, N_REGS = REG_VREG + 4 };
static const npk_reg_info reg_table[N_REGS] = {
    {"pc", 32, 0},
#define RVNPU_XREG(num, abi) {abi, 32, (num) == 0 ? NPK_REG_READONLY : 0u},
#define RVNPU_FREG(num, abi) {abi, 32, 0},
#define RVNPU_CSR(name, addr, writable) {name, CSR_BITS(addr), CSR_FLAGS(addr, writable)},
#include "targets/rvnpu/isa.def"
    {"acc", 64, 0}, {"facc", 64, 0},
    {"v0", 32, 0}, {"v1", 32, 0}, {"v2", 32, 0}, {"v3", 32, 0},
};

/* the numeric names of the x and f registers (rvnpu spec §10 takes both) */
static const char *const reg_aliases[] = {
#define RVNPU_XREG(num, abi) "x" #num, abi,
#define RVNPU_FREG(num, abi) "f" #num, abi,
#include "targets/rvnpu/isa.def"
    NULL};

/* ---- the NPU's view of the bus -------------------------------------------------------------- */

static int bus_mapped(void *ctx, uint32_t addr, uint32_t len)
{
    return rvnpu_mapped(ctx, addr, len);
}

static uint32_t bus_load(void *ctx, uint32_t addr, unsigned size)
{
    return rvnpu_load(ctx, addr, size);
}

static void bus_store(void *ctx, uint32_t addr, uint32_t value, unsigned size)
{
    rvnpu_store(ctx, addr, value, size);
}

static void bus_wrote(void *ctx, uint32_t addr, uint32_t len)
{
    rvnpu_invalidate(ctx, addr - RVNPU_RAM_BASE, len);
}

/* ---- state ------------------------------------------------------------------------------------ */

static npk_status rvnpu_reset(npk_machine *m, void *state)
{
    rvnpu_state *s = state;
    (void)m;
    memset(s->x, 0, sizeof s->x);
    memset(s->f, 0, sizeof s->f);
    s->x[2] = RVNPU_RAM_BASE + s->ram_size - 16;
    s->pc = s->entry;
    s->fflags = s->frm = s->mie = s->mpie = 0;
    s->fs = 1;
    s->mtvec = s->mscratch = s->mepc = s->mcause = s->mtval = 0;
    s->retired = s->cycle_base = s->instret_base = 0;
    rvnpu_npu_reset(&s->npu);
    s->brk = s->brk0;
    s->tohost_checked = 0;
    s->tohost_hit = 0;
    rvnpu_files_close(s);
    s->next_issue = 0;
    memset(s->ready, 0, sizeof s->ready);
    return NPK_OK;
}

static void rvnpu_destroy(void *state)
{
    rvnpu_state *s = state;
    if (!s)
        return;
    rvnpu_files_close(s);
    if (s->uart_own && s->uart_in)
        fclose(s->uart_in);
    rvnpu_sandbox_close(s);
    free(s->ram);
    free(s->dcache);
    free(s->code_pages);
    free(s);
}

static npk_status bad_value(npk_machine *m, const char *key, const char *v, const char *legal)
{
    return npk_fail(m, NPK_ERR_ARG, "rvnpu: %s=%s: expected %s", key, v, legal);
}

/* Fresh zeroed RAM and an empty decode cache. calloc'ed, so pages a program never touches
 * cost nothing even with ram_size=2G. */
static int alloc_ram(rvnpu_state *s)
{
    free(s->ram);
    free(s->dcache);
    free(s->code_pages);
    s->ram = calloc(s->ram_size, 1);
    s->dcache = calloc(s->ram_size / 4 + 1, sizeof *s->dcache);
    s->code_pages = calloc(s->ram_size / RVNPU_PAGE, 1);
    s->ram_dirty = 0;
    s->space = (npk_memspace){{"ram", s->ram_size, "RAM at 0x80000000 (offsets from the RAM "
                               "base)"},
                              s->ram};
    s->bus = (rvnpu_bus){s, bus_mapped, bus_load, bus_store, s->ram, RVNPU_RAM_BASE,
                         s->ram_size, bus_wrote};
    return s->ram && s->dcache && s->code_pages ? 0 : -1;
}

static npk_status rvnpu_create(npk_machine *m, const npk_config *cfg_in, void **out)
{
    npk_config *cfg = (npk_config *)cfg_in;
    rvnpu_state *s = calloc(1, sizeof *s);
    if (s) {
        for (unsigned op = 0; op <= RVNPU_N_OPS; op++) {
            s->unit_of[op] = (uint8_t)rvnpu_unit_of((rvnpu_op)op);
            s->is_store[op] = op < RVNPU_N_OPS && strstr(rvnpu_insns[op].operands, "mem_s");
        }
    }
    if (!s)
        return npk_fail(m, NPK_ERR_NOMEM, "rvnpu: out of memory");
    for (int i = 0; i < RVNPU_MAX_FILES; i++)
        s->host_fd[i] = -1;
    s->root_fd = -1;
    s->m = m;
    npk_status st = NPK_OK;
    const char *v;
    if ((v = npk_config_take(cfg, "isa_rev")) != NULL) {
        if (strcmp(v, "seed") == 0)
            s->rev2 = 0;
        else if (strcmp(v, "rev2") == 0)
            s->rev2 = 1;
        else
            st = bad_value(m, "isa_rev", v, "seed or rev2");
    }
    s->syscalls = 1;
    if (st == NPK_OK && (v = npk_config_take(cfg, "syscalls")) != NULL) {
        if (strcmp(v, "on") == 0)
            s->syscalls = 1;
        else if (strcmp(v, "off") == 0)
            s->syscalls = 0;
        else
            st = bad_value(m, "syscalls", v, "on or off");
    }
    uint64_t ram = 0;
    if (st == NPK_OK)
        st = npk_config_size(m, cfg, "rvnpu", "ram_size", RVNPU_RAM_DEFAULT, 4096, RVNPU_RAM_MAX,
                             "bytes", &ram);
    if (st == NPK_OK && ram % 4096)
        st = npk_fail(m, NPK_ERR_ARG,
                      "rvnpu: ram_size=%llu is not a multiple of 4K (legal: 4K .. 2G in 4K steps)",
                      (unsigned long long)ram);
    if (st == NPK_OK && (v = npk_config_take(cfg, "fs_root")) != NULL &&
        rvnpu_sandbox_open(s, v) != 0)
        st = npk_fail(m, NPK_ERR_ARG, "rvnpu: fs_root=%s: not an existing directory", v);
    if (st == NPK_OK && (v = npk_config_take(cfg, "uart_in")) != NULL) {
        if (strcmp(v, "-") == 0) {
            s->uart_in = stdin;
        } else {
            s->uart_in = fopen(v, "rb");
            s->uart_own = 1;
            if (!s->uart_in)
                st = npk_fail(m, NPK_ERR_ARG, "rvnpu: uart_in=%s: cannot open: %s (expected a "
                              "readable file or - for standard input)", v, strerror(errno));
        }
    }
    uint64_t lat[N_LAT];
    for (int i = 0; i < N_LAT && st == NPK_OK; i++)
        st = npk_config_u64(m, cfg, "rvnpu", lat_keys[i].key, lat_keys[i].def, 0, 1000000,
                            &lat[i]);
    if (st == NPK_OK)
        st = npk_config_check_unused(m, cfg, "rvnpu",
                                     "isa_rev=seed|rev2, ram_size=SIZE, fs_root=DIR, "
                                     "uart_in=FILE|-, syscalls=on|off, lat_alu, lat_branch, "
                                     "lat_mul, lat_div, lat_load, lat_fp, lat_fdiv, lat_npu, "
                                     "lat_fnpu, lat_sys, lat_npu_elem, lat_fnpu_elem, lat_taken");
    if (st != NPK_OK) {
        rvnpu_destroy(s);
        return st;
    }
    for (int i = 0; i < RVNPU_N_UNITS; i++)
        s->lat[i] = (unsigned)lat[i];
    s->lat_npu_elem = (unsigned)lat[LAT_NPU_ELEM];
    s->lat_fnpu_elem = (unsigned)lat[LAT_FNPU_ELEM];
    s->lat_branch_taken = (unsigned)lat[LAT_TAKEN];
    s->ram_size = (uint32_t)ram;
    if (alloc_ram(s) != 0) {
        rvnpu_destroy(s);
        return npk_fail(m, NPK_ERR_NOMEM, "rvnpu: out of memory for %llu bytes of RAM",
                        (unsigned long long)ram);
    }
    rvnpu_npu_init_lazy(&s->npu);
    s->entry = RVNPU_RAM_BASE;
    npk_config_describe(m, "isa_rev=%s,ram_size=%llu,syscalls=%s%s%s%s%s,lat_alu=%u,lat_branch=%u,"
                        "lat_mul=%u,lat_div=%u,lat_load=%u,lat_fp=%u,lat_fdiv=%u,lat_npu=%u,"
                        "lat_fnpu=%u,lat_sys=%u,lat_npu_elem=%u,lat_fnpu_elem=%u,lat_taken=%u",
                        s->rev2 ? "rev2" : "seed", (unsigned long long)ram,
                        s->syscalls ? "on" : "off", s->fs_root ? ",fs_root=" : "",
                        s->fs_root ? s->fs_root : "", s->uart_in ? ",uart_in=" : "",
                        s->uart_in ? (s->uart_own ? "FILE" : "-") : "", s->lat[0], s->lat[1],
                        s->lat[2], s->lat[3], s->lat[4], s->lat[5], s->lat[6], s->lat[7],
                        s->lat[8], s->lat[9], s->lat_npu_elem, s->lat_fnpu_elem,
                        s->lat_branch_taken);
    rvnpu_reset(m, s);
    *out = s;
    return NPK_OK;
}

/* Start a new program: RAM zero again, every cached decode dropped. */
static npk_status begin_load(npk_machine *m, rvnpu_state *s)
{
    if (s->ram_dirty && alloc_ram(s) != 0)
        return npk_fail(m, NPK_ERR_NOMEM, "rvnpu: out of memory for %u bytes of RAM",
                        s->ram_size);
    s->ram_dirty = 1;
    s->brk0 = RVNPU_RAM_BASE;
    s->has_tohost = 0;
    return NPK_OK;
}

static npk_status rvnpu_load_raw(npk_machine *m, void *state, const uint8_t *bytes, size_t n,
                                 uint64_t addr)
{
    rvnpu_state *s = state;
    /* the core loads raw images at 0; addresses below the RAM base are offsets into RAM */
    uint64_t off = addr < RVNPU_RAM_BASE ? addr : addr - RVNPU_RAM_BASE;
    if (!npk_range_ok(off, n, s->ram_size))
        return npk_fail(m, NPK_ERR_RANGE,
                        "rvnpu: image of %zu bytes at RAM offset 0x%llx does not fit the %u-byte "
                        "RAM (set ram_size=SIZE)",
                        n, (unsigned long long)off, s->ram_size);
    npk_status st = begin_load(m, s);
    if (st != NPK_OK)
        return st;
    memcpy(s->ram + off, bytes, n);
    /* an image that ends mid-word (`objcopy -O binary` drops trailing zero bytes) is
     * completed with zero bytes: the load is as if they were there */
    size_t pad = (4 - (off + n) % 4) % 4;
    if (off + n + pad <= s->ram_size)
        memset(s->ram + off + n, 0, pad);
    s->brk0 = (uint32_t)(RVNPU_RAM_BASE + ((off + n + 15) & ~15ull));
    s->entry = RVNPU_RAM_BASE;
    s->loading = 0;
    return rvnpu_reset(m, s);
}

static npk_status rvnpu_load_segment(npk_machine *m, void *state, uint64_t addr,
                                     const uint8_t *bytes, size_t filesz, uint64_t memsz)
{
    rvnpu_state *s = state;
    if (!s->loading) {
        npk_status st = begin_load(m, s);
        if (st != NPK_OK)
            return st;
        s->loading = 1;
    }
    uint64_t off = addr - RVNPU_RAM_BASE;
    if (addr < RVNPU_RAM_BASE || !npk_range_ok(off, memsz, s->ram_size))
        return npk_fail(m, NPK_ERR_RANGE,
                        "rvnpu: ELF segment at 0x%llx (%llu bytes) lies outside RAM "
                        "(0x%08x .. 0x%08llx; set ram_size=SIZE)",
                        (unsigned long long)addr, (unsigned long long)memsz, RVNPU_RAM_BASE,
                        (unsigned long long)RVNPU_RAM_BASE + s->ram_size - 1);
    memcpy(s->ram + off, bytes, filesz);
    memset(s->ram + off + filesz, 0, (size_t)(memsz - filesz));
    uint64_t end = (addr + memsz + 15) & ~15ull;
    if (end > s->brk0)
        s->brk0 = (uint32_t)(end > RVNPU_RAM_BASE + (uint64_t)s->ram_size
                                 ? RVNPU_RAM_BASE + (uint64_t)s->ram_size
                                 : end);
    return NPK_OK;
}

static npk_status rvnpu_set_entry(npk_machine *m, void *state, uint64_t pc)
{
    rvnpu_state *s = state;
    s->loading = 0;
    if (pc < RVNPU_RAM_BASE || pc - RVNPU_RAM_BASE >= s->ram_size || (pc & 3))
        return npk_fail(m, NPK_ERR_FORMAT,
                        "rvnpu: ELF entry point 0x%llx is not a 4-byte aligned RAM address "
                        "(RAM 0x%08x .. 0x%08llx)",
                        (unsigned long long)pc, RVNPU_RAM_BASE,
                        (unsigned long long)RVNPU_RAM_BASE + s->ram_size - 1);
    s->entry = (uint32_t)pc;
    return rvnpu_reset(m, s);
}

/* RISC-V e_flags (psABI): EF_RISCV_RVC, and the float ABI in bits 2:1. The loader does not
 * enforce them (§11.7), but code built for them is not code this core runs as meant. */
enum { EF_RISCV_RVC = 0x1, EF_RISCV_FLOAT_ABI = 0x6, EF_RISCV_FLOAT_ABI_DOUBLE = 0x4,
       EF_RISCV_FLOAT_ABI_QUAD = 0x6 };

static void rvnpu_elf_flags_warnings(uint32_t flags, char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    if (flags & EF_RISCV_RVC) {
        int w = snprintf(out, n, "e_flags 0x%x: EF_RISCV_RVC: the code may use compressed "
                         "(16-bit) instructions, which rvnpu does not have (spec §11.1: they are "
                         "illegal instructions); build with -march=rv32imf\n", flags);
        used = w > 0 && (size_t)w < n ? (size_t)w : n - 1;
    }
    unsigned abi = flags & EF_RISCV_FLOAT_ABI;
    if (abi == EF_RISCV_FLOAT_ABI_DOUBLE || abi == EF_RISCV_FLOAT_ABI_QUAD)
        snprintf(out + used, n - used, "e_flags 0x%x: %s-float ABI (ilp32%c): the code expects "
                 "%s-precision floating-point registers, and rvnpu has only F (single "
                 "precision); build with -mabi=ilp32f or ilp32\n", flags,
                 abi == EF_RISCV_FLOAT_ABI_DOUBLE ? "double" : "quad",
                 abi == EF_RISCV_FLOAT_ABI_DOUBLE ? 'd' : 'q',
                 abi == EF_RISCV_FLOAT_ABI_DOUBLE ? "double" : "quad");
}

static npk_status rvnpu_poke(npk_machine *m, void *state, uint64_t addr, const uint8_t *bytes,
                             size_t n)
{
    rvnpu_state *s = state;
    uint64_t off = addr - RVNPU_RAM_BASE;
    if (addr < RVNPU_RAM_BASE || !npk_range_ok(off, n, s->ram_size))
        return npk_fail(m, NPK_ERR_RANGE,
                        "rvnpu: %zu bytes at 0x%llx do not fit in RAM (0x%08x .. 0x%08llx)", n,
                        (unsigned long long)addr, RVNPU_RAM_BASE,
                        (unsigned long long)RVNPU_RAM_BASE + s->ram_size - 1);
    memcpy(s->ram + off, bytes, n);
    rvnpu_invalidate(s, (uint32_t)off, (uint32_t)n);
    s->tohost_hit = 0;
    return NPK_OK;
}

static npk_status rvnpu_peek(npk_machine *m, void *state, uint64_t addr, uint8_t *bytes,
                             size_t n)
{
    rvnpu_state *s = state;
    uint64_t off = addr - RVNPU_RAM_BASE;
    if (addr < RVNPU_RAM_BASE || !npk_range_ok(off, n, s->ram_size))
        return npk_fail(m, NPK_ERR_RANGE,
                        "rvnpu: %zu bytes at 0x%llx do not fit in RAM (0x%08x .. 0x%08llx)", n,
                        (unsigned long long)addr, RVNPU_RAM_BASE,
                        (unsigned long long)RVNPU_RAM_BASE + s->ram_size - 1);
    memcpy(bytes, s->ram + off, n);
    return NPK_OK;
}

static npk_status rvnpu_space_write(npk_machine *m, void *state, size_t space, uint64_t addr,
                                    const void *buf, size_t n)
{
    (void)space;
    return rvnpu_poke(m, state, RVNPU_RAM_BASE + addr, buf, n);
}

static npk_status rvnpu_disasm_hook(npk_machine *m, void *state, const uint8_t *b, uint64_t pc,
                                    char *out, size_t n)
{
    rvnpu_state *s = state;
    (void)m;
    uint32_t w = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                 (uint32_t)b[3] << 24;
    rvnpu_disasm(w, (uint32_t)pc, s->rev2, out, n);
    return NPK_OK;
}

static size_t rvnpu_spaces(void *state, npk_memspace **list)
{
    rvnpu_state *s = state;
    *list = &s->space;
    return 1;
}

static size_t rvnpu_regs(void *state, const npk_reg_info **list)
{
    (void)state;
    *list = reg_table;
    return N_REGS;
}

static npk_status rvnpu_reg_read(npk_machine *m, void *state, size_t i, uint64_t *v)
{
    rvnpu_state *s = state;
    (void)m;
    if (i == REG_PC) {
        *v = s->pc;
    } else if (i < REG_F) {
        *v = s->x[i - REG_X];
    } else if (i < REG_CSR) {
        *v = s->f[i - REG_F];
    } else if (i == REG_ACC) {
        *v = s->npu.acc;
    } else if (i == REG_FACC) {
        *v = s->npu.facc;
    } else if (i >= REG_VREG) {
        const int8_t *e = s->npu.vreg[i - REG_VREG];
        *v = (uint32_t)(uint8_t)e[0] | (uint32_t)(uint8_t)e[1] << 8 |
             (uint32_t)(uint8_t)e[2] << 16 | (uint32_t)(uint8_t)e[3] << 24;
    } else {
        unsigned a = csr_addr[i - REG_CSR];
        if (a == 0xB00)
            *v = s->retired + s->cycle_base;
        else if (a == 0xB02)
            *v = s->retired + s->instret_base;
        else
            *v = rvnpu_csr_read(s, a);
    }
    return NPK_OK;
}

/* The core has refused read-only registers and values wider than the register. */
static npk_status rvnpu_reg_write(npk_machine *m, void *state, size_t i, uint64_t v)
{
    rvnpu_state *s = state;
    uint32_t w = (uint32_t)v;
    if (i == REG_PC) {
        s->pc = w;
    } else if (i < REG_F) {
        s->x[i - REG_X] = w;
        s->x[0] = 0;
    } else if (i < REG_CSR) {
        s->f[i - REG_F] = w;
    } else if (i == REG_ACC) {
        s->npu.acc = v;
    } else if (i == REG_FACC) {
        if ((v & 0x7FF0000000000000u) == 0x7FF0000000000000u && (v << 12) &&
            v != 0x7FF8000000000000u)
            return npk_fail(m, NPK_ERR_RANGE, "rvnpu: facc 0x%016llx is a NaN other than the "
                            "canonical 0x7ff8000000000000, the only NaN facc holds (spec §2)",
                            (unsigned long long)v);
        s->npu.facc = v;
    } else if (i >= REG_VREG) {
        for (unsigned j = 0; j < 4; j++)
            s->npu.vreg[i - REG_VREG][j] = (int8_t)(uint8_t)(w >> 8 * j);
    } else {
        /* the counters take the value for what a read sees now (a CSR instruction's write is
         * what the next instruction sees, §11.3, which rvnpu_csr_write implements) */
        unsigned a = csr_addr[i - REG_CSR];
        uint64_t *base = a == 0xB00 || a == 0xB80 ? &s->cycle_base
                         : a == 0xB02 || a == 0xB82 ? &s->instret_base : NULL;
        if (a == 0xB00 || a == 0xB02)
            *base = v - s->retired;
        else if (base)
            *base = (((s->retired + *base) & 0xFFFFFFFFu) | (uint64_t)w << 32) - s->retired;
        else
            rvnpu_csr_write(s, a, w);
    }
    return NPK_OK;
}

static npk_status rvnpu_assemble_hook(npk_machine *m, void *state, const char *source,
                                      const char *name, FILE *diag, uint8_t **image,
                                      size_t *size)
{
    const rvnpu_state *s = state;
    return rvnpu_assemble_image(m, source, name, s->ram_size, diag, s->rev2, image, size);
}

const npk_target npk_target_rvnpu = {
    .name = "rvnpu",
    .summary = "RV32IMF machine-mode core with integer and FP NPU instructions (paladin8 "
               "riscv-npu, seed and rev2)",
    .config_help =
        "  isa_rev=seed|rev2   NPU revision (default seed)\n"
        "  ram_size=SIZE       RAM at 0x80000000, a multiple of 4K up to 2G (default 4M)\n"
        "  fs_root=DIR         enable sandboxed file syscalls inside DIR (default: none)\n"
        "  uart_in=FILE|-      UART receive bytes from FILE or standard input\n"
        "  syscalls=on|off     host syscalls for ECALL (off: every ECALL traps)\n"
        "  lat_alu, lat_branch, lat_mul, lat_div, lat_load, lat_fp, lat_fdiv, lat_npu,\n"
        "  lat_fnpu, lat_sys   timing-model latencies in cycles (stats only)\n"
        "  lat_npu_elem, lat_fnpu_elem  extra cycles per NPU vector element; lat_taken\n"
        "                      bubble after a taken branch or jump\n",
    .insn_bytes = 4,
    .raw_pads = 1,
    .elf_machine = 243,
    .addr_bits = 32, /* RV32 */
    .bus_space = "bus",
    .symbol_space = "bus",
    .create = rvnpu_create,
    .destroy = rvnpu_destroy,
    .reset = rvnpu_reset,
    .load_raw = rvnpu_load_raw,
    .load_elf_segment = rvnpu_load_segment,
    .set_entry = rvnpu_set_entry,
    .elf_flags_warnings = rvnpu_elf_flags_warnings,
    .poke = rvnpu_poke,
    .peek = rvnpu_peek,
    .assemble = rvnpu_assemble_hook,
    .run = rvnpu_run,
    .step = rvnpu_step,
    .disasm = rvnpu_disasm_hook,
    .spaces = rvnpu_spaces,
    .space_write = rvnpu_space_write,
    .regs = rvnpu_regs,
    .f32_reg_first = REG_F,
    .f32_reg_count = 32,
    .reg_read = rvnpu_reg_read,
    .reg_write = rvnpu_reg_write,
    .reg_aliases = reg_aliases,
    .mnemonics = rvnpu_mnemonics,
    .n_mnemonics = RVNPU_N_OPS,
    .units = rvnpu_unit_names,
    .n_units = RVNPU_N_UNITS,
    .extras = rvnpu_extra_names,
    .n_extras = RVNPU_N_EXTRAS,
    .snap_save = rvnpu_snap_save,
    .snap_restore = rvnpu_snap_restore,
    .commit_records = 1,
};
