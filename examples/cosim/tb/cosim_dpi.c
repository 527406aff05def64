/* The C side of the co-simulation testbench (cosim_tb.sv), called through DPI-C: what the
 * testbench does for its core, as opposed to the golden model (npukit's rvnpu, which the
 * testbench drives itself through the DPI-C package npukit_dpi with +lockstep):
 *   - loads the program: an ELF through npukit's npk_elf_segments (the same checks as
 *     `npukit run`), or a raw image at the RAM base, into an image the testbench copies into
 *     its memory model;
 *   - answers the core's ECALLs: write(1|2), exit and brk, the rvnpu host syscalls of
 *     docs/spec/rvnpu.md section 11.6 that integer firmware uses (others stop the run);
 *   - counts retirements, names addresses by the ELF's symbols, reports halts, faults and
 *     the cycle budget, and ends the run with the example's exit statuses.
 * Plain C11 plus POSIX clock_gettime; the prototypes match the imports in cosim_tb.sv. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npukit/npukit.h"
#include "svdpi.h"

enum { ST_DIVERGED = 123, ST_BUDGET = 124, ST_USAGE = 125, ST_TRAP = 126 };

#define RAM_BASE 0x80000000u

/* Exported by cosim_tb.sv: one byte of the memory model (-1 outside RAM). */
extern int tb_mem_byte(int addr);

/* The DPI imports (their SV declarations are in cosim_tb.sv). */
int cosim_load(const char *path, int lockstep, int ram_bytes, int *entry);
int cosim_image_word(int index);
void cosim_ecall(long long cycle, int pc, int num, int a0, int a1, int a2, int a3, int *ret);
long long cosim_retire(void);
long long cosim_retired(void);
const char *cosim_where(int pc);
void cosim_exit(int status);
void cosim_halt(long long cycle, int cause, int pc, int insn, int tval);
void cosim_fault(long long cycle, int we, int addr, int pc);
void cosim_budget(long long cycles);
void cosim_usage(const char *message);
long long cosim_count(const char *text, const char *what);
void cosim_args(void);

/* The testbench's state: one simulation per process, so file-scope variables are its home
 * (this is the example's testbench, not the library). */
static struct {
    const char *path;
    uint8_t *image;          /* ram_bytes: the program as loaded */
    uint32_t ram_bytes;
    uint32_t brk;            /* the program break (spec 11.6) */
    npk_machine *m;          /* npukit's rvnpu: ELF checks, disassembly */
    int lockstep;            /* +lockstep: the testbench compares with npukit (cosim_tb.sv) */
    npk_elf_symbol *sym;     /* symbols of the ELF, for naming pcs in reports */
    size_t n_sym;
    npk_elf_section *sec;
    uint8_t *file;           /* the program file (symbols point into it) */
    uint64_t retired;
    struct timespec t0;
    char where[160];         /* cosim_where's answer */
} tb;

static void finish(int status)
{
    fflush(stdout);
    fflush(stderr);
    exit(status);
}

static double elapsed(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - tb.t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - tb.t0.tv_nsec);
}

static void summary(long long cycle)
{
    double s = elapsed();
    fprintf(stderr,
            "cosim: %" PRIu64 " instructions retired, %lld cycles, %.2f s (%.0f instructions/s, "
            "%.0f cycles/s)%s\n",
            tb.retired, cycle, s, s > 0 ? (double)tb.retired / s : 0.0,
            s > 0 ? (double)cycle / s : 0.0, tb.lockstep ? ", lock-step with npukit rvnpu: no mismatch" : "");
}

void cosim_usage(const char *message)
{
    fprintf(stderr, "cosim: %s\n", message);
    finish(ST_USAGE);
}

/* A plusarg's decimal count (at most 2^62), or a usage error naming it. */
long long cosim_count(const char *text, const char *what)
{
    long long v = 0;
    const char *p = text;
    do {
        if (*p < '0' || *p > '9' || v > (1LL << 62) / 10) {
            fprintf(stderr, "cosim: %s%s: not a count (decimal digits, at most 2^62)\n", what,
                    text);
            finish(ST_USAGE);
        }
        v = v * 10 + (*p - '0');
    } while (*++p);
    return v;
}

static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap)
            break;
        uint8_t *nb = cap < ((size_t)1 << 30) ? realloc(buf, cap * 2) : NULL;
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    *n = len;
    return buf;
}

static const char usage[] =
    "usage: cosim_rv32im +elf=FILE [+lockstep] [+max-cycles=N]\n"
    "Run an rvnpu program (ELF or raw image) on the example RV32IM core under Verilator.\n"
    "  +elf=FILE       the program (required)\n"
    "  +lockstep       compare every retirement with npukit's rvnpu; stop at the first mismatch\n"
    "  +max-cycles=N   stop after N clock cycles (0: no limit)\n"
    "  -h, --help      this text\n"
    "Exit status: the program's exit code; 123 the core diverged from npukit; 124 the cycle\n"
    "budget ran out; 125 bad arguments or program; 126 the core halted (trap, access outside\n"
    "RAM, syscall not offered). Verilator's own +verilator+... arguments are accepted too.\n";

/* The command line as a whole, which SystemVerilog sees only as plusargs: --help and -h
 * print the usage; anything that is not one of our plusargs (or Verilator's) is refused, so
 * that a mistyped +lockstp does not silently run without the comparison. Read from Linux's
 * /proc/self/cmdline; where that does not exist, only the plusargs are looked at. */
void cosim_args(void)
{
    size_t n = 0;
    uint8_t *cmd = read_file("/proc/self/cmdline", &n);
    if (!cmd)
        return;
    const char *end = (const char *)cmd + n;
    const char *a = (const char *)cmd;
    a += strnlen(a, (size_t)(end - a)) + 1; /* argv[0] */
    for (; a < end; a += strnlen(a, (size_t)(end - a)) + 1) {
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            finish(0);
        }
        if (strncmp(a, "+elf=", 5) == 0 || strcmp(a, "+lockstep") == 0 ||
            strncmp(a, "+max-cycles=", 12) == 0 || strncmp(a, "+verilator+", 11) == 0)
            continue;
        fprintf(stderr, "cosim: unknown argument '%s' (try --help)\n", a);
        finish(ST_USAGE);
    }
    free(cmd);
}

int cosim_load(const char *path, int lockstep, int ram_bytes, int *entry)
{
    clock_gettime(CLOCK_MONOTONIC, &tb.t0);
    tb.path = path;
    tb.ram_bytes = (uint32_t)ram_bytes;
    tb.image = calloc(tb.ram_bytes, 1);
    size_t n = 0;
    tb.file = read_file(path, &n);
    if (!tb.image || !tb.file) {
        fprintf(stderr, "cosim: %s: cannot read the program\n", path);
        finish(ST_USAGE);
    }
    /* A machine of the target the core implements, for its ELF checks and as the reference. */
    char err[256], cfg[64];
    snprintf(cfg, sizeof cfg, "ram_size=%" PRIu32, tb.ram_bytes);
    npk_machine *m = NULL;
    if (npk_create(&m, "rvnpu", cfg, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "cosim: cannot create an rvnpu machine: %s\n", err);
        finish(ST_USAGE);
    }
    uint64_t end = 0;
    if (n >= 4 && memcmp(tb.file, "\x7f" "ELF", 4) == 0) {
        npk_elf_segment seg[NPK_ELF_MAX_SEGMENTS];
        size_t nseg = 0;
        uint64_t e = 0;
        if (npk_elf_segments(m, tb.file, n, path, seg, NPK_ELF_MAX_SEGMENTS, &nseg, &e) != NPK_OK) {
            fprintf(stderr, "cosim: %s\n", npk_error(m));
            finish(ST_USAGE);
        }
        /* npk_elf_segments checked that every segment lies in RAM. */
        for (size_t i = 0; i < nseg; i++) {
            memcpy(tb.image + (seg[i].vaddr - RAM_BASE), seg[i].bytes, seg[i].filesz);
            if (seg[i].vaddr + seg[i].memsz > end)
                end = seg[i].vaddr + seg[i].memsz;
        }
        *entry = (int)(uint32_t)e;
        size_t nsec = 0;
        if (npk_elf_sections(m, tb.file, n, path, &tb.sec, &nsec, &tb.sym, &tb.n_sym) != NPK_OK)
            tb.n_sym = 0;
    } else {
        if (n > tb.ram_bytes) {
            fprintf(stderr, "cosim: %s: %zu bytes do not fit the %" PRIu32 "-byte RAM\n", path, n,
                    tb.ram_bytes);
            finish(ST_USAGE);
        }
        memcpy(tb.image, tb.file, n);
        end = RAM_BASE + n;
        *entry = (int)RAM_BASE;
    }
    tb.brk = (uint32_t)((end + 15) & ~(uint64_t)15);
    tb.lockstep = lockstep != 0;
    tb.m = m;
    return 0;
}

int cosim_image_word(int index)
{
    uint32_t off = (uint32_t)index * 4;
    if (off + 4 > tb.ram_bytes)
        return 0;
    const uint8_t *p = tb.image + off;
    return (int)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* " <name+0x1c>" for the symbol containing addr (else the nearest one below it), or "". */
static const char *where(uint32_t addr, char *buf, size_t n)
{
    const npk_elf_symbol *best = NULL;
    int best_in = 0;
    for (size_t i = 0; i < tb.n_sym; i++) {
        const npk_elf_symbol *s = &tb.sym[i];
        if (s->value > addr || s->name[0] == '\0' || s->name[0] == '$' || s->name[0] == '.')
            continue;
        int in = s->size && addr < s->value + s->size;
        if (!best || in > best_in || (in == best_in && s->value > best->value)) {
            best = s;
            best_in = in;
        }
    }
    if (!best)
        buf[0] = '\0';
    else
        snprintf(buf, n, " <%s+0x%" PRIx64 ">", best->name, addr - best->value);
    return buf;
}

static void disasm(uint32_t pc, uint32_t insn, char *out, size_t n)
{
    uint8_t b[4] = {(uint8_t)insn, (uint8_t)(insn >> 8), (uint8_t)(insn >> 16), (uint8_t)(insn >> 24)};
    if (!tb.m || npk_disasm(tb.m, b, pc, out, n) != NPK_OK)
        snprintf(out, n, "?");
}

void cosim_halt(long long cycle, int cause, int pc, int insn, int tval)
{
    static const char *const names[] = {
        "instruction address misaligned", "instruction access fault", "illegal instruction",
        "breakpoint", "misaligned load (this core has no misaligned access)",
        "load access fault", "misaligned store (this core has no misaligned access)",
        "store access fault"};
    char d[128] = "", w[160];
    disasm((uint32_t)pc, (uint32_t)insn, d, sizeof d);
    fprintf(stderr,
            "cosim: the core halted at cycle %lld: %s (cause %d), pc 0x%08" PRIx32 "%s, word "
            "0x%08" PRIx32 " %s, tval 0x%08" PRIx32 ", after %" PRIu64 " retired instructions\n",
            cycle, cause >= 0 && cause < 8 ? names[cause] : "trap", cause, (uint32_t)pc,
            where((uint32_t)pc, w, sizeof w), (uint32_t)insn, d, (uint32_t)tval, tb.retired);
    finish(ST_TRAP);
}

void cosim_fault(long long cycle, int we, int addr, int pc)
{
    char w[160];
    fprintf(stderr,
            "cosim: memory access outside RAM at cycle %lld: %s 0x%08" PRIx32 " (pc 0x%08" PRIx32
            "%s), after %" PRIu64 " retired instructions\n",
            cycle, we ? "store to the word at" : "load or fetch of the word at", (uint32_t)addr, (uint32_t)pc,
            where((uint32_t)pc, w, sizeof w), tb.retired);
    finish(ST_TRAP);
}

void cosim_budget(long long cycles)
{
    fprintf(stderr, "cosim: cycle budget of %lld cycles reached after %" PRIu64
            " retired instructions\n", cycles, tb.retired);
    finish(ST_BUDGET);
}

/* ---- retirements, for the testbench's lock-step (cosim_tb.sv) ----------------------------- */

long long cosim_retire(void)
{
    return (long long)++tb.retired;
}

long long cosim_retired(void)
{
    return (long long)tb.retired;
}

const char *cosim_where(int pc)
{
    return where((uint32_t)pc, tb.where, sizeof tb.where);
}

void cosim_exit(int status)
{
    finish(status);
}

/* ---- host syscalls -------------------------------------------------------------------------- */

enum { SYS_write = 64, SYS_exit = 93, SYS_brk = 214, L_EBADF = 9, L_EFAULT = 14 };

void cosim_ecall(long long cycle, int pc, int num, int a0, int a1, int a2, int a3, int *ret)
{
    (void)a3;
    switch (num) {
    case SYS_write: {
        FILE *f = a0 == 1 ? stdout : a0 == 2 ? stderr : NULL;
        if (!f) {
            *ret = -L_EBADF;
            return;
        }
        uint32_t buf = (uint32_t)a1, len = (uint32_t)a2;
        for (uint32_t i = 0; i < len; i++)
            if (tb_mem_byte((int)(buf + i)) < 0) {
                *ret = -L_EFAULT;
                return;
            }
        for (uint32_t i = 0; i < len; i++)
            fputc(tb_mem_byte((int)(buf + i)), f);
        *ret = a2;
        return;
    }
    case SYS_brk: {
        uint32_t want = (uint32_t)a0;
        if (want >= tb.brk && want - RAM_BASE <= tb.ram_bytes)
            tb.brk = want;
        *ret = (int)tb.brk;
        return;
    }
    case SYS_exit:
        /* (with +lockstep the testbench has checked that npukit exits here too) */
        tb.retired++; /* the exit ECALL counts, as in npukit (spec 11.9) */
        fflush(stdout);
        summary(cycle);
        finish(a0 & 0xff);
        return;
    default: {
        char d[128] = "";
        disasm((uint32_t)pc, 0x00000073u, d, sizeof d);
        fprintf(stderr,
                "cosim: the testbench does not offer syscall %d (a0..a3 = 0x%08" PRIx32
                " 0x%08" PRIx32 " 0x%08" PRIx32 " 0x%08" PRIx32 ") at pc 0x%08" PRIx32
                ", cycle %lld\n",
                num, (uint32_t)a0, (uint32_t)a1, (uint32_t)a2, (uint32_t)a3, (uint32_t)pc,
                cycle);
        finish(ST_TRAP);
    }
    }
}
