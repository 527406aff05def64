/* `npukit run`: load a program (assembly, raw image or ELF), run it with a budget, and report
 * how it ended, with optional statistics, trace and timeline. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/typed.h"
#include "core/config.h"

static void help(void)
{
    printf("usage: npukit run [-t TARGET] [options] PROGRAM\n"
           "       npukit run [-t TARGET] [options] --load-state FILE\n"
           "\n"
           "Run PROGRAM: an ELF executable, an assembly source (any text file), or a raw\n"
           "image of little-endian instruction words loaded at address 0. PROGRAM may be\n"
           "'-' (standard input) or a pipe; a FIFO gets 2 s for a writer to connect, and\n"
           "input files larger than 1 GiB, directories and devices are refused.\n"
           "\n"
           "options:\n"
           "  -t, --target NAME[:CONFIG]  target (may be omitted for an ELF whose machine\n"
           "                              names it, or a source with a '.target NAME' line\n"
           "                              near the top)\n"
           "      --config KEY=VAL,...    target settings (see 'npukit info -t NAME')\n"
           "      --max-insns N           stop with status 124 after N instructions\n"
           "                              (0 or absent: no limit)\n"
           "      --stats[=text|json]     statistics after the run: how it ended,\n"
           "                              instructions, cycles, mix, unit busy time,\n"
           "                              counters (text to standard error; json to\n"
           "                              standard output, alone)\n"
           "      --stats-output FILE     write the statistics to FILE instead\n"
           "      --trace[=FILE]          one line per retired instruction (cycle, pc, word,\n"
           "                              disassembly) to FILE (default standard error)\n"
           "      --timeline FILE         write a Chrome trace-event JSON timeline (one track\n"
           "                              per unit; open it in Perfetto or chrome://tracing)\n"
           "      --commit-log FILE       one record per instruction (pc, word, every register\n"
           "                              and memory write, traps) to FILE; toy, rvnpu,\n"
           "                              opennpu and pccx\n"
           "                              (format: docs/commit-log.md)\n"
           "      --commit-log-format F   text (the default) or jsonl (one JSON object per\n"
           "                              line; the default for a FILE ending in .jsonl)\n"
           "      --commit-log-digest N   print memory writes longer than N bytes as their\n"
           "                              address range and CRC-32 instead of the bytes\n"
           "                              (0, the default: every write's bytes)\n"
           "      --break ADDR|SYMBOL     stop with status 123 before the instruction at ADDR\n"
           "                              (the pc as stops show it; tinytpu: the cycle)\n"
           "      --watch [r:|w:|rw:]SPACE:ADDR[+LEN]\n"
           "      --watch [r:|w:|rw:]SYMBOL[+LEN]\n"
           "                              stop with status 123 after an instruction that\n"
           "                              reads (r), writes (w, the default) or accesses (rw)\n"
           "                              LEN bytes (default 1; a symbol: its size) at ADDR\n"
           "                              of memory SPACE or at SYMBOL (docs/breakpoints.md)\n"
           "      --load SPACE:ADDR[:TYPE]:FILE\n"
           "                              copy FILE into memory SPACE at ADDR before the\n"
           "                              run: its bytes, or with TYPE its numbers (text\n"
           "                              or .npy)\n"
           "      --write SYMBOL[:TYPE]:FILE\n"
           "                              the same over the program's symbol SYMBOL (input\n"
           "                              injection)\n"
           "      --dump SPACE:ADDR:COUNT[:TYPE]\n"
           "      --dump SYMBOL[:TYPE][:COUNT]\n"
           "                              print COUNT elements (bytes in hex without TYPE; a\n"
           "                              symbol: its size) of memory after the run\n"
           "      --dump-file FILE        write the dumps to FILE (FILE.npy: one --dump as a\n"
           "                              NumPy array) instead of standard output\n"
           "      --regs                  print the registers after the run (rvnpu f\n"
           "                              registers also as numbers)\n"
           "      --save-state FILE       write a snapshot of the whole machine to FILE when\n"
           "                              the run ends (exit, fault, --max-insns, --break or\n"
           "                              --watch)\n"
           "      --load-state FILE       start from a snapshot instead of a PROGRAM (the\n"
           "                              snapshot holds it); without -t, its target and\n"
           "                              configuration are the snapshot's\n"
           "      --gdb[=PORT]            instead of running, serve the loaded program to\n"
           "                              one GDB session as 'npukit gdb' does (rvnpu;\n"
           "                              default port 1234, 0: any free port; the port is\n"
           "                              printed on standard error); --load, --write,\n"
           "                              --load-state and the target options apply, the\n"
           "                              options that stop, trace or report a run do not\n"
           "      --gdb-bind ADDR         numeric address --gdb listens on (default\n"
           "                              127.0.0.1; anything else gets a warning: the\n"
           "                              protocol has no authentication)\n"
           "\n"
           "TYPE: i8, u8, i16, u16, i32, u32, f32, bf16, q8.8, e4m3 or e5m2, little-endian.\n"
           "A typed input file holds numbers (blanks, commas or newlines between them, '#'\n"
           "comments) or is a .npy array; a .npy without TYPE loads as its own dtype.\n"
           "--load, --write and --dump repeat (up to 16 each), --break and --watch up to\n"
           "64 each. FILE '-' is standard output\n"
           "(standard input for --load/--write); when the statistics, the timeline or the\n"
           "commit log go to standard output, they are alone there: the program's output, --regs and the\n"
           "dumps go to standard error.\n"
           "\n"
           "target options (shorthands for settings; a target without the setting rejects\n"
           "them, see 'npukit info -t NAME'):\n"
           "      --isa-rev REV           isa_rev=REV   (rvnpu: seed or rev2)\n"
           "      --ram-size SIZE         ram_size=SIZE (rvnpu: RAM size, default 4M)\n"
           "      --fs-root DIR           fs_root=DIR   (rvnpu: sandbox for file syscalls)\n"
           "      --uart-in FILE|-        uart_in=FILE  (rvnpu: UART receive source)\n"
           "      --no-syscalls           syscalls=off  (rvnpu: every ECALL traps)\n"
           "      --lanes N               lanes=N       (tinytpu: array size N, default 2)\n"
           "      --ub-words S            ub_words=S    (tinytpu: unified-buffer words)\n"
           "      --lr V                  lr=V          (tinytpu: learning rate before cycle\n"
           "                                            1, Q8.8: 0x00C0 or 0.75)\n"
           "      --reset-at K[,K...]     reset_at=K:.. (tinytpu: cycles K become reset\n"
           "                                            cycles)\n"
           "      --format F              format=F      (tinytpu: how PROGRAM is written:\n"
           "                                            auto, asm, w88, w94, w130, wfull,\n"
           "                                            port)\n"
           "  -h, --help                  this help\n"
           "\n"
           "Messages from npukit itself start with 'npukit:'. On a terminal, runs longer\n"
           "than 2 s show their progress on standard error.\n"
           "\n"
           "Every --load, --write and --dump is checked before the run (syntax, type, memory\n"
           "name, symbol, range, the numbers of its file), and no two outputs may name the\n"
           "same file.\n"
           "\n"
           "exit status:\n"
           "  the program's own exit status when it ends normally (0 for targets without\n"
           "  an exit call); 123 stopped at a --break or --watch; 124 instruction or\n"
           "  cycle budget exhausted; 125 the run could\n"
           "  not start (bad option, bad --load/--write/--dump, unreadable or invalid\n"
           "  file, bad configuration, an output file that would replace PROGRAM or another\n"
           "  output, a snapshot that does not fit the machine) or npukit could not write an\n"
           "  output (trace, commit log, statistics, timeline, dumps, snapshot, standard\n"
           "  output: this takes precedence over the program's status);\n"
           "  126 the program stopped on an unhandled fault.\n"
           "With --gdb: as 'npukit gdb' (see 'npukit gdb --help').\n");
}

enum {
    O_TARGET = 1, O_CONFIG, O_MAX, O_STATS, O_STATS_OUT, O_TRACE, O_TIMELINE, O_LOAD, O_DUMP,
    O_REGS, O_HELP, O_WRITE, O_ISA_REV, O_RAM_SIZE, O_FS_ROOT, O_UART_IN, O_NO_SYSCALLS,
    O_LANES, O_UB_WORDS, O_LR, O_RESET_AT, O_FORMAT, O_DUMP_FILE, O_SAVE_STATE, O_LOAD_STATE,
    O_COMMIT_LOG, O_COMMIT_FORMAT, O_COMMIT_DIGEST, O_BREAK, O_WATCH, O_GDB, O_GDB_BIND
};

static const npk_opt_def defs[] = {
    {O_TARGET, 't', "target", OPT_VALUE},
    {O_CONFIG, 0, "config", OPT_VALUE},
    {O_MAX, 0, "max-insns", OPT_VALUE},
    {O_STATS, 0, "stats", OPT_OPTIONAL},
    {O_STATS_OUT, 0, "stats-output", OPT_VALUE},
    {O_TRACE, 0, "trace", OPT_OPTIONAL},
    {O_TIMELINE, 0, "timeline", OPT_VALUE},
    {O_COMMIT_LOG, 0, "commit-log", OPT_VALUE},
    {O_COMMIT_FORMAT, 0, "commit-log-format", OPT_VALUE},
    {O_COMMIT_DIGEST, 0, "commit-log-digest", OPT_VALUE},
    {O_BREAK, 0, "break", OPT_VALUE},
    {O_WATCH, 0, "watch", OPT_VALUE},
    {O_LOAD, 0, "load", OPT_VALUE},
    {O_DUMP, 0, "dump", OPT_VALUE},
    {O_DUMP_FILE, 0, "dump-file", OPT_VALUE},
    {O_REGS, 0, "regs", OPT_FLAG},
    {O_SAVE_STATE, 0, "save-state", OPT_VALUE},
    {O_LOAD_STATE, 0, "load-state", OPT_VALUE},
    {O_WRITE, 0, "write", OPT_VALUE},
    {O_ISA_REV, 0, "isa-rev", OPT_VALUE},
    {O_RAM_SIZE, 0, "ram-size", OPT_VALUE},
    {O_FS_ROOT, 0, "fs-root", OPT_VALUE},
    {O_UART_IN, 0, "uart-in", OPT_VALUE},
    {O_NO_SYSCALLS, 0, "no-syscalls", OPT_FLAG},
    {O_LANES, 0, "lanes", OPT_VALUE},
    {O_UB_WORDS, 0, "ub-words", OPT_VALUE},
    {O_LR, 0, "lr", OPT_VALUE},
    {O_RESET_AT, 0, "reset-at", OPT_VALUE},
    {O_FORMAT, 0, "format", OPT_VALUE},
    {O_GDB, 0, "gdb", OPT_OPTIONAL},
    {O_GDB_BIND, 0, "gdb-bind", OPT_VALUE},
    {O_HELP, 'h', "help", OPT_FLAG},
    {0, 0, NULL, OPT_FLAG},
};

/* The options that watch, limit or report a run: a GDB session does that itself (--gdb
 * refuses them). */
static int not_with_gdb(int id)
{
    switch (id) {
    case O_MAX: case O_STATS: case O_STATS_OUT: case O_TRACE: case O_TIMELINE:
    case O_COMMIT_LOG: case O_COMMIT_FORMAT: case O_COMMIT_DIGEST: case O_BREAK: case O_WATCH:
    case O_DUMP: case O_DUMP_FILE: case O_REGS: case O_SAVE_STATE:
        return 1;
    default:
        return 0;
    }
}

#define MAX_LIST 16
#define MAX_BREAKS 64

typedef struct run_opts {
    const char *target, *config, *program, *trace, *timeline, *stats_out, *dump_file;
    const char *save_state, *load_state;
    const char *commit_log;
    int commit_fmt;        /* -1 unset, else an npk_commit_format */
    const char *commit_digest; /* --commit-log-digest N as given, or NULL */
    uint64_t digest_bytes;
    uint64_t max_insns;
    int stats;             /* 0 off, 1 text, 2 json */
    int trace_on, regs;
    const char *load[MAX_LIST], *dump[MAX_LIST], *write[MAX_LIST];
    int n_load, n_dump, n_write;
    const char *brk[MAX_BREAKS], *watch[MAX_BREAKS];
    int n_brk, n_watch;
    char settings[4096];   /* from the target-option shorthands */
    int gdb;               /* --gdb: serve a GDB session instead of running */
    unsigned gdb_port;
    const char *gdb_bind;
    const char *no_gdb;    /* the first option given that --gdb refuses */
} run_opts;

/* Append "key=value" to the shorthand settings. */
/* A shorthand OPTION VALUE becomes the setting KEY=VALUE; messages name the option as the
 * user wrote it (--ram-size), not the setting (ram_size). */
static int add_setting(run_opts *o, const char *option, const char *key, const char *value)
{
    return npk_add_setting("npukit run", o->settings, sizeof o->settings, option, key, value,
                           strcmp(key, "reset_at") == 0);
}

/* "SPACE:ADDR:REST" -> space (copied), addr, rest pointer; -2 when ADDR does not fit 64 bits. */
static int split3(const char *s, char *space, size_t n, uint64_t *addr, const char **rest)
{
    const char *c1 = strchr(s, ':');
    if (!c1 || (size_t)(c1 - s) >= n || c1 == s)
        return -1;
    const char *c2 = strchr(c1 + 1, ':');
    if (!c2)
        return -1;
    memcpy(space, s, (size_t)(c1 - s));
    space[c1 - s] = '\0';
    char num[32];
    size_t len = (size_t)(c2 - c1 - 1);
    if (len == 0 || len >= sizeof num)
        return -1;
    memcpy(num, c1 + 1, len);
    num[len] = '\0';
    int rc = npk_parse_u64(num, addr);
    if (rc != 0)
        return rc;
    *rest = c2 + 1;
    return **rest ? 0 : -1;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int parse(int argc, char **argv, run_opts *o)
{
    const char *prog = "npukit run", *v;
    int id, rc;
    npk_opt_state os = {argc, argv, 1, prog, 0};
    while ((id = npk_opt_next(&os, defs, &v)) != -1) {
        switch (id) {
        case -2: return -1;
        case 0:
            if (o->program) {
                npk_usage_error(prog, "more than one program ('%s', '%s')", o->program, v);
                return -1;
            }
            o->program = v;
            break;
        case O_TARGET: o->target = v; break;
        case O_CONFIG: o->config = v; break;
        case O_MAX:
            if ((rc = npk_parse_u64(v, &o->max_insns)) != 0) {
                npk_usage_error(prog, "--max-insns %s %s", v, npk_parse_u64_problem(rc));
                return -1;
            }
            break;
        case O_STATS:
            if (!v || strcmp(v, "text") == 0)
                o->stats = 1;
            else if (strcmp(v, "json") == 0)
                o->stats = 2;
            else {
                npk_usage_error(prog, "--stats=%s: expected text or json", v);
                return -1;
            }
            break;
        case O_STATS_OUT: o->stats_out = v; if (!o->stats) o->stats = 1; break;
        case O_TRACE: o->trace_on = 1; o->trace = v; break;
        case O_TIMELINE: o->timeline = v; break;
        case O_COMMIT_LOG: o->commit_log = v; break;
        case O_COMMIT_FORMAT:
            if (strcmp(v, "text") == 0)
                o->commit_fmt = NPK_COMMIT_TEXT;
            else if (strcmp(v, "jsonl") == 0)
                o->commit_fmt = NPK_COMMIT_JSONL;
            else {
                npk_usage_error(prog, "--commit-log-format %s: expected text or jsonl", v);
                return -1;
            }
            break;
        case O_COMMIT_DIGEST:
            if ((rc = npk_parse_u64(v, &o->digest_bytes)) != 0) {
                npk_usage_error(prog, "--commit-log-digest %s %s", v,
                                rc == -2 ? npk_parse_u64_problem(rc) : "is not a number of bytes");
                return -1;
            }
            o->commit_digest = v;
            break;
        case O_DUMP_FILE: o->dump_file = v; break;
        case O_BREAK:
        case O_WATCH: {
            int *n = id == O_BREAK ? &o->n_brk : &o->n_watch;
            if (*n == MAX_BREAKS) {
                npk_usage_error(prog, "at most %d --break and --watch options each", MAX_BREAKS);
                return -1;
            }
            (id == O_BREAK ? o->brk : o->watch)[(*n)++] = v;
            break;
        }
        case O_LOAD:
        case O_DUMP:
        case O_WRITE: {
            int *n = id == O_LOAD ? &o->n_load : id == O_DUMP ? &o->n_dump : &o->n_write;
            if (*n == MAX_LIST) {
                npk_usage_error(prog, "at most %d --load, --dump and --write options each",
                                MAX_LIST);
                return -1;
            }
            (id == O_LOAD ? o->load : id == O_DUMP ? o->dump : o->write)[(*n)++] = v;
            break;
        }
        case O_ISA_REV: if (add_setting(o, "--isa-rev", "isa_rev", v)) return -1; break;
        case O_RAM_SIZE: if (add_setting(o, "--ram-size", "ram_size", v)) return -1; break;
        case O_FS_ROOT: if (add_setting(o, "--fs-root", "fs_root", v)) return -1; break;
        case O_UART_IN: if (add_setting(o, "--uart-in", "uart_in", v)) return -1; break;
        case O_LANES: if (add_setting(o, "--lanes", "lanes", v)) return -1; break;
        case O_UB_WORDS: if (add_setting(o, "--ub-words", "ub_words", v)) return -1; break;
        case O_LR: if (add_setting(o, "--lr", "lr", v)) return -1; break;
        case O_RESET_AT: if (add_setting(o, "--reset-at", "reset_at", v)) return -1; break;
        case O_FORMAT: if (add_setting(o, "--format", "format", v)) return -1; break;
        case O_NO_SYSCALLS:
            if (add_setting(o, "--no-syscalls", "syscalls", "off"))
                return -1;
            break;
        case O_REGS: o->regs = 1; break;
        case O_SAVE_STATE: o->save_state = v; break;
        case O_LOAD_STATE: o->load_state = v; break;
        case O_GDB:
            o->gdb = 1;
            if (v && npk_gdb_port(prog, "--gdb", v, &o->gdb_port) != 0)
                return -1;
            break;
        case O_GDB_BIND: o->gdb_bind = v; break;
        case O_HELP: help(); return 1;
        }
        if (not_with_gdb(id) && !o->no_gdb)
            for (const npk_opt_def *d = defs; d->long_name; d++)
                if (d->id == id)
                    o->no_gdb = d->long_name;
    }
    if (o->gdb && o->no_gdb) {
        npk_usage_error(prog, "--gdb and --%s: under GDB, the debugger stops, steps and "
                        "inspects the program (breakpoints, 'monitor stats', 'info registers', "
                        "'x'); give one of them", o->no_gdb);
        return -1;
    }
    if (o->gdb_bind && !o->gdb) {
        npk_usage_error(prog, "--gdb-bind %s: no --gdb session to listen for", o->gdb_bind);
        return -1;
    }
    if (o->program && o->load_state) {
        npk_usage_error(prog, "a program (%s) and --load-state %s: the snapshot holds its "
                        "program; give one of them", o->program, o->load_state);
        return -1;
    }
    if (!o->program && !o->load_state) {
        npk_usage_error(prog, "no program to run (give PROGRAM or --load-state FILE)");
        return -1;
    }
    return 0;
}

/* A parsed --dump: a memory range (space set) or a symbol (sym set); count elements of type. */
typedef struct dump_req {
    char space[64], sym[256];
    uint64_t addr, count;
    npk_vtype type;
} dump_req;

/* Is [addr, addr+len) inside the machine's memory `space`? Says why not, naming the option.
 * With exists_only, only whether there is such a memory. */
static int check_range(npk_machine *m, const char *opt, const char *arg, const char *space,
                       uint64_t addr, uint64_t len, int exists_only)
{
    const npk_space_info *s = NULL;
    char names[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < npk_space_count(m); i++) {
        const npk_space_info *si = npk_space(m, i);
        if (strcmp(si->name, space) == 0)
            s = si;
        if (used < sizeof names)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                     si->name);
    }
    if (!s) {
        fprintf(stderr, "npukit: %s %s: %s has no memory '%s' (it has: %s)\n", opt, arg,
                npk_target_of(m), space, names);
        return -1;
    }
    /* compared without forming addr + len, which may wrap around 2^64 */
    if (!exists_only && (addr > s->size || len > s->size - addr)) {
        fprintf(stderr, "npukit: %s %s: 0x%llx + %llu bytes is outside %s (%llu bytes)\n", opt,
                arg, (unsigned long long)addr, (unsigned long long)len, space,
                (unsigned long long)s->size);
        return -1;
    }
    return 0;
}

/* Split `s` at its colons into at most `max` fields (copies in buf); returns the count, or
 * -1 when there are more fields or one is too long. */
static int fields(const char *s, char f[][256], int max)
{
    int k = 0;
    for (;;) {
        const char *c = strchr(s, ':');
        size_t len = c ? (size_t)(c - s) : strlen(s);
        if (k == max || len >= 256)
            return -1;
        memcpy(f[k], s, len);
        f[k++][len] = '\0';
        if (!c)
            return k;
        s = c + 1;
    }
}

static int is_type(const char *s, npk_vtype *t)
{
    return npk_vtype_parse(s, strlen(s), t) == 0;
}

/* A --dump argument: SPACE:ADDR:COUNT[:TYPE], SYMBOL[:TYPE][:COUNT]. Checked in full before
 * the run (memory, range, symbol, its size), so a typo cannot cost a long run's result. */
static int parse_dump(npk_machine *m, const char *arg, dump_req *d)
{
    char f[5][256];
    int k = fields(arg, f, 5);
    npk_vtype t = NPK_VT_BYTES;
    memset(d, 0, sizeof *d);
    uint64_t num;
    int sym_count = k == 2 && npk_parse_u64(f[1], &num) == 0; /* SYMBOL:COUNT */
    if (k >= 1 && f[0][0] &&
        (k == 1 || sym_count || ((k == 2 || k == 3) && is_type(f[1], &t)))) {
        /* SYMBOL[:TYPE][:COUNT] */
        snprintf(d->sym, sizeof d->sym, "%s", f[0]);
        d->type = t;
        size_t es = npk_vtype_size(t);
        uint64_t size;
        if (npk_symbol(m, d->sym, &d->addr) != NPK_OK ||
            npk_symbol_size(m, d->sym, &size) != NPK_OK) {
            fprintf(stderr, "npukit: --dump %s: %s\n", arg, npk_error(m));
            return -1;
        }
        if (k == 3 || sym_count) {
            const char *c = f[k - 1];
            int rc = npk_parse_u64(c, &d->count);
            if (rc != 0) {
                fprintf(stderr, "npukit: --dump %s: COUNT '%s' %s\n", arg, c,
                        npk_parse_u64_problem(rc));
                return -1;
            }
            if (size && (d->count > size / es)) {
                fprintf(stderr, "npukit: --dump %s: %llu x %s (%zu bytes each) do not fit "
                        "symbol '%s' (%llu bytes)\n", arg, (unsigned long long)d->count,
                        npk_vtype_name(t), es, d->sym, (unsigned long long)size);
                return -1;
            }
        } else if (size == 0) {
            fprintf(stderr, "npukit: --dump %s: symbol '%s' has no size (an assembly label); "
                    "give a type and a count: --dump %s:%s:COUNT\n", arg, d->sym, d->sym,
                    t == NPK_VT_BYTES ? "u8" : npk_vtype_name(t));
            return -1;
        } else if (size % es) {
            fprintf(stderr, "npukit: --dump %s: symbol '%s' is %llu bytes, not a whole number "
                    "of %s (%zu bytes)\n", arg, d->sym, (unsigned long long)size,
                    npk_vtype_name(t), es);
            return -1;
        } else {
            d->count = size / es;
        }
        if (d->count == 0) {
            fprintf(stderr, "npukit: --dump %s: COUNT is 0, nothing to dump\n", arg);
            return -1;
        }
        /* read it now: the range check is the target's (its program addresses, all below
         * 2^32 where symbols can be read) */
        uint8_t *probe = d->count <= (UINT64_C(1) << 32) / es ? malloc((size_t)d->count * es)
                                                                : NULL;
        if (!probe) {
            fprintf(stderr, "npukit: --dump %s: %llu x %s is more than the program's memory\n",
                    arg, (unsigned long long)d->count, npk_vtype_name(t));
            return -1;
        }
        npk_status st = npk_read_symbol(m, d->sym, probe, (size_t)d->count * es);
        free(probe);
        if (st != NPK_OK) {
            fprintf(stderr, "npukit: --dump %s: %s\n", arg, npk_error(m));
            return -1;
        }
        return 0;
    }
    if (k != 3 && k != 4) {
        fprintf(stderr, "npukit: --dump %s: expected SPACE:ADDR:COUNT[:TYPE] or "
                "SYMBOL[:TYPE][:COUNT]\n", arg);
        return -1;
    }
    if (k == 4 && !is_type(f[3], &t)) {
        fprintf(stderr, "npukit: --dump %s: unknown type '%s' (types: %s)\n", arg, f[3],
                npk_vtype_list());
        return -1;
    }
    d->type = t;
    int rc = f[0][0] && strlen(f[0]) < sizeof d->space ? npk_parse_u64(f[1], &d->addr) : -1;
    if (rc == -2) {
        fprintf(stderr, "npukit: --dump %s: ADDR '%s' %s\n", arg, f[1], npk_parse_u64_problem(rc));
        return -1;
    }
    if (rc != 0) {
        fprintf(stderr, "npukit: --dump %s: expected SPACE:ADDR:COUNT[:TYPE] (ADDR a number)\n",
                arg);
        return -1;
    }
    snprintf(d->space, sizeof d->space, "%s", f[0]);
    if ((rc = npk_parse_u64(f[2], &d->count)) != 0) {
        fprintf(stderr, "npukit: --dump %s: COUNT '%s' %s\n", arg, f[2], npk_parse_u64_problem(rc));
        return -1;
    }
    if (d->count == 0) {
        fprintf(stderr, "npukit: --dump %s: COUNT is 0, nothing to dump\n", arg);
        return -1;
    }
    size_t es = npk_vtype_size(t);
    uint64_t bytes = d->count > UINT64_MAX / es ? UINT64_MAX : d->count * es;
    return check_range(m, "--dump", arg, d->space, d->addr, bytes, 0);
}

/* The bytes an input FILE stands for, as `type` (typed.h); prints the error. */
static int read_input(const char *opt, const char *arg, const char *file, npk_vtype type,
                      uint8_t **out, size_t *n)
{
    uint8_t *raw;
    size_t size;
    if (npk_read_file(file, &raw, &size) != 0)
        return -1;
    char err[512];
    npk_vtype got;
    int rc = npk_typed_input(strcmp(file, "-") == 0 ? "<stdin>" : file, raw, size, type, out,
                             n, &got, err, sizeof err);
    free(raw);
    if (rc != 0)
        fprintf(stderr, "npukit: %s %s: %s\n", opt, arg, err);
    return rc;
}

/* "TYPE:FILE" -> type and file; anything else is a FILE of bytes (a file whose name starts
 * with a type and a colon is written ./NAME). */
static const char *type_prefix(const char *rest, npk_vtype *t)
{
    const char *c = strchr(rest, ':');
    *t = NPK_VT_BYTES;
    if (c && c[1] && npk_vtype_parse(rest, (size_t)(c - rest), t) == 0)
        return c + 1;
    *t = NPK_VT_BYTES;
    return rest;
}

static int do_loads(npk_machine *m, const run_opts *o)
{
    for (int i = 0; i < o->n_load; i++) {
        char space[64];
        uint64_t addr;
        const char *rest;
        int rc = split3(o->load[i], space, sizeof space, &addr, &rest);
        if (rc == -2) {
            fprintf(stderr, "npukit: --load %s: ADDR %s\n", o->load[i], npk_parse_u64_problem(rc));
            return -1;
        }
        if (rc != 0) {
            fprintf(stderr, "npukit: --load %s: expected SPACE:ADDR:FILE or SPACE:ADDR:TYPE:FILE\n",
                    o->load[i]);
            return -1;
        }
        if (check_range(m, "--load", o->load[i], space, addr, 0, 1) != 0)
            return -1;
        npk_vtype t;
        const char *file = type_prefix(rest, &t);
        uint8_t *data;
        size_t n;
        if (read_input("--load", o->load[i], file, t, &data, &n) != 0)
            return -1;
        if (check_range(m, "--load", o->load[i], space, addr, n, 0) != 0) {
            free(data);
            return -1;
        }
        npk_status st = npk_mem_write(m, space, addr, data, n);
        free(data);
        if (st != NPK_OK) {
            fprintf(stderr, "npukit: --load %s: %s\n", o->load[i], npk_error(m));
            return -1;
        }
    }
    return 0;
}

static int do_writes(npk_machine *m, const run_opts *o)
{
    for (int i = 0; i < o->n_write; i++) {
        const char *colon = strchr(o->write[i], ':');
        char sym[256];
        if (!colon || colon == o->write[i] || !colon[1] ||
            (size_t)(colon - o->write[i]) >= sizeof sym) {
            fprintf(stderr, "npukit: --write %s: expected SYMBOL:FILE or SYMBOL:TYPE:FILE\n",
                    o->write[i]);
            return -1;
        }
        memcpy(sym, o->write[i], (size_t)(colon - o->write[i]));
        sym[colon - o->write[i]] = '\0';
        npk_vtype t;
        const char *file = type_prefix(colon + 1, &t);
        uint8_t *data;
        size_t n;
        if (read_input("--write", o->write[i], file, t, &data, &n) != 0)
            return -1;
        npk_status st = npk_write_symbol(m, sym, data, n);
        free(data);
        if (st != NPK_OK) {
            fprintf(stderr, "npukit: --write %s: %s\n", o->write[i], npk_error(m));
            return -1;
        }
    }
    return 0;
}

/* A commit callback that does nothing: asks whether the target makes records. */
static void no_commit(npk_machine *m, const npk_commit *c, void *ctx)
{
    (void)m, (void)c, (void)ctx;
}

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

/* The dumps, already checked by parse_dump: text lines "NAME:ADDRESS: values" (NAME the
 * memory or the symbol; 16 bytes in hex or 8 typed values a line), or one .npy array. */
static int do_dumps(npk_machine *m, const run_opts *o, const dump_req *d, FILE *out, int npy)
{
    for (int i = 0; i < o->n_dump; i++) {
        size_t es = npk_vtype_size(d[i].type), total = (size_t)d[i].count * es;
        uint8_t *b = malloc(total);
        if (!b) {
            fprintf(stderr, "npukit: --dump %s: out of memory\n", o->dump[i]);
            return -1;
        }
        npk_status st = d[i].sym[0] ? npk_read_symbol(m, d[i].sym, b, total)
                                    : npk_mem_read(m, d[i].space, d[i].addr, b, total);
        if (st != NPK_OK) {
            fprintf(stderr, "npukit: --dump %s: %s\n", o->dump[i], npk_error(m));
            free(b);
            return -1;
        }
        if (npy) {
            npk_npy_write_header(out, npk_npy_descr(d[i].type), (size_t)d[i].count);
            for (size_t k = 0; k < total; k += es) {
                uint8_t e[8];
                fwrite(e, 1, npk_npy_element(d[i].type, b + k, e), out);
            }
            free(b);
            continue;
        }
        const char *name = d[i].sym[0] ? d[i].sym : d[i].space;
        size_t per_line = d[i].type == NPK_VT_BYTES ? 16 : 8;
        for (size_t k = 0; k < (size_t)d[i].count; k++) {
            if (k % per_line == 0)
                fprintf(out, "%s:%08llx:", name, (unsigned long long)(d[i].addr + k * es));
            if (d[i].type == NPK_VT_BYTES) {
                fprintf(out, " %02x", b[k]);
            } else {
                char v[64];
                npk_value_format(d[i].type, b + k * es, v, sizeof v);
                fprintf(out, " %s", v);
            }
            if (k % per_line == per_line - 1 || k + 1 == (size_t)d[i].count)
                fputc('\n', out);
        }
        free(b);
    }
    return 0;
}

/* Finish a stream the library wrote (statistics, trace): its status first, since the
 * library saw the failed write and its errno, then the close (standard output is checked
 * when main closes it). Returns 1 on a failure. */
static int finish_sink(npk_machine *m, npk_status st, FILE *f, const char *path)
{
    const char *name = f == stderr ? "standard error" : f == stdout ? "standard output" : path;
    if (st != NPK_OK) {
        fprintf(stderr, "npukit: %s: %s\n", name, npk_error(m));
        if (f != stderr && f != stdout)
            fclose(f);
        return 1;
    }
    return f != stderr && f != stdout && npk_close_output(f, name) != 0;
}

/* Four registers a line; a register wider than 64 bits on a line of its own, as one hex
 * number (most significant byte first). */
static void print_regs(npk_machine *m, FILE *out)
{
    size_t n = npk_reg_count(m), col = 0;
    for (size_t i = 0; i < n; i++) {
        const npk_reg_info *r = npk_reg(m, i);
        uint64_t v = 0;
        if (r->bits > 64) {
            uint8_t b[1024];
            size_t nb = (r->bits + 7) / 8;
            if (nb > sizeof b || npk_reg_read_bytes(m, r->name, b, nb) != NPK_OK)
                continue;
            fprintf(out, "%s%-6s 0x", col ? "\n" : "", r->name);
            for (size_t k = nb; k-- > 0;)
                fprintf(out, "%02x", b[k]);
            fprintf(out, "\n");
            col = 0;
            continue;
        }
        npk_reg_read(m, r->name, &v);
        int last = col == 3 || i + 1 == n;
        col = last ? 0 : col + 1;
        fprintf(out, "%-6s 0x%0*llx", r->name, (int)((r->bits + 3) / 4), (unsigned long long)v);
        if (npk_reg_is_f32(m, i)) {
            /* the binary32 value too, as --dump ...:f32 prints it */
            uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
                            (uint8_t)(v >> 24)};
            char num[64];
            npk_value_format(NPK_VT_F32, b, num, sizeof num);
            if (last)
                fprintf(out, " %s\n", num);
            else
                fprintf(out, " %-14s ", num);
        } else {
            fprintf(out, "%s", last ? "\n" : "   ");
        }
    }
}

/* PATH as its directory's real path and its last name; -1 if the directory is not there. */
static int canon(const char *path, char *out, size_t n)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX], real[PATH_MAX];
    size_t dl = slash ? (size_t)(slash - path) : 1;
    if (dl >= sizeof dir)
        return -1;
    if (slash)
        memcpy(dir, slash == path ? "/" : path, slash == path ? 1 : dl);
    else
        dir[0] = '.';
    dir[slash == path ? 1 : dl] = '\0';
    if (!realpath(dir, real))
        return -1;
    snprintf(out, n, "%s/%s", real, slash ? slash + 1 : path);
    return 0;
}

/* Two outputs must not name one file (or both standard output). */
static int same_output(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return 1;
    if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
        return 0;
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    /* files yet to be made: the same name in the same directory (x and ./x) */
    char ca[PATH_MAX + 256], cb[PATH_MAX + 256];
    return canon(a, ca, sizeof ca) == 0 && canon(b, cb, sizeof cb) == 0 && strcmp(ca, cb) == 0;
}

/* --break ADDR|SYMBOL: a number, else a symbol of the program. Returns 0 or says why. */
static int add_break(npk_machine *m, const char *arg)
{
    uint64_t pc;
    int rc = npk_parse_u64(arg, &pc);
    if (rc != 0 && npk_symbol(m, arg, &pc) != NPK_OK) {
        if (rc == -2)
            fprintf(stderr, "npukit: --break %s: the address %s\n", arg,
                    npk_parse_u64_problem(rc));
        else
            fprintf(stderr, "npukit: --break %s: not a number, and %s\n", arg, npk_error(m));
        return -1;
    }
    if (npk_break_add(m, pc) != NPK_OK) {
        fprintf(stderr, "npukit: --break %s: %s\n", arg, npk_error(m));
        return -1;
    }
    return 0;
}

/* --watch [r:|w:|rw:]SPACE:ADDR[+LEN] or [r:|w:|rw:]SYMBOL[+LEN]. Returns 0 or says why. */
static int add_watch(npk_machine *m, const char *arg)
{
    unsigned kind = NPK_WATCH_WRITE;
    const char *p = arg;
    if (strncmp(p, "rw:", 3) == 0)
        kind = NPK_WATCH_READ | NPK_WATCH_WRITE, p += 3;
    else if (strncmp(p, "r:", 2) == 0)
        kind = NPK_WATCH_READ, p += 2;
    else if (strncmp(p, "w:", 2) == 0)
        p += 2;
    char body[512];
    if (!*p || strlen(p) >= sizeof body) {
        fprintf(stderr, "npukit: --watch %s: expected [r:|w:|rw:]SPACE:ADDR[+LEN] or "
                "[r:|w:|rw:]SYMBOL[+LEN]\n", arg);
        return -1;
    }
    snprintf(body, sizeof body, "%s", p);
    uint64_t len = 0, addr = 0;
    char *plus = strrchr(body, '+');
    if (plus) {
        *plus = '\0';
        int rc = npk_parse_u64(plus + 1, &len);
        if (rc != 0) {
            fprintf(stderr, "npukit: --watch %s: LEN '%s' %s\n", arg, plus + 1,
                    npk_parse_u64_problem(rc));
            return -1;
        }
    }
    char *colon = strchr(body, ':');
    npk_status st;
    if (colon) {
        *colon = '\0';
        int rc = body[0] ? npk_parse_u64(colon + 1, &addr) : -1;
        if (rc == -2) {
            fprintf(stderr, "npukit: --watch %s: ADDR '%s' %s\n", arg, colon + 1,
                    npk_parse_u64_problem(rc));
            return -1;
        }
        if (rc != 0) {
            fprintf(stderr, "npukit: --watch %s: expected SPACE:ADDR with ADDR a number\n", arg);
            return -1;
        }
        st = npk_watch_add(m, body, addr, plus ? len : 1, kind, NULL);
    } else {
        uint64_t size = 0;
        if (npk_symbol(m, body, &addr) != NPK_OK) {
            fprintf(stderr, "npukit: --watch %s: %s\n", arg, npk_error(m));
            return -1;
        }
        if (!plus)
            len = npk_symbol_size(m, body, &size) == NPK_OK && size ? size : 1;
        st = npk_watch_add(m, NULL, addr, len, kind, NULL);
    }
    if (st != NPK_OK) {
        fprintf(stderr, "npukit: --watch %s: %s\n", arg, npk_error(m));
        return -1;
    }
    return 0;
}

/* How the run ended, as the last line of the text statistics (rvnpu spec §11.8: the reason
 * and the full exit value). */
static void print_stop(FILE *f, const npk_stop *s)
{
    switch (s->reason) {
    case NPK_STOP_EXIT:
        fprintf(f, "  stop          exit, exit value %lld (status %d)\n", (long long)s->exit_code,
                (int)(s->exit_code & 0xff));
        break;
    case NPK_STOP_BUDGET: fprintf(f, "  stop          budget: %s\n", s->message); break;
    case NPK_STOP_FAULT: fprintf(f, "  stop          fault: %s\n", s->message); break;
    case NPK_STOP_BREAKPOINT:
    case NPK_STOP_WATCHPOINT: fprintf(f, "  stop          %s\n", s->message); break;
    case NPK_STOP_NONE: fprintf(f, "  stop          none\n"); break;
    }
}

/* Run in chunks so that long runs can report progress; a chunk ending is not a stop. */
static npk_status run_with_progress(npk_machine *m, uint64_t budget, npk_stop *stop,
                                    uint64_t *retired)
{
    const uint64_t chunk = 1u << 24;
    int tty = isatty(STDERR_FILENO);
    double t0 = now();
    int shown = 0;
    *retired = 0;
    for (;;) {
        uint64_t want = chunk;
        if (budget && budget - *retired < want)
            want = budget - *retired;
        npk_status st = npk_run(m, want, stop);
        if (st != NPK_OK)
            return st;
        if (stop->reason != NPK_STOP_BUDGET) {
            *retired += want; /* upper bound; only used for progress */
            break;
        }
        *retired += want;
        if (budget && *retired >= budget)
            break;
        double dt = now() - t0;
        if (tty && dt > 2.0) {
            fprintf(stderr, "\rnpukit: %.3g instructions, %.1f s, %.0f MIPS   ",
                    (double)*retired, dt, (double)*retired / dt / 1e6);
            shown = 1;
        }
    }
    if (shown)
        fprintf(stderr, "\n");
    return NPK_OK;
}

/* --save-state: the snapshot into the file opened before the run (standard output is
 * checked when main closes it). Returns 0, or 1 after saying why. */
static int save_state(npk_machine *m, FILE *f, const char *path)
{
    uint8_t *snap = NULL;
    size_t n = 0;
    if (npk_snapshot_save(m, &snap, &n) != NPK_OK) {
        fprintf(stderr, "npukit: %s: no snapshot written: %s\n", path, npk_error(m));
        if (f != stdout)
            fclose(f);
        return 1;
    }
    int bad = fwrite(snap, 1, n, f) != n;
    npk_free(snap);
    if (f != stdout)
        return npk_close_output(f, path) != 0 || bad;
    if (bad) /* main checks standard output again when it closes it */
        fprintf(stderr, "npukit: standard output: write error: %s\n", strerror(errno));
    return bad;
}

int npk_cmd_run(int argc, char **argv)
{
    run_opts o;
    memset(&o, 0, sizeof o);
    o.commit_fmt = -1;
    o.gdb_port = 1234;
    int p = parse(argc, argv, &o);
    if (p != 0)
        return p > 0 ? NPK_EXIT_OK : NPK_EXIT_NOSTART;

    /* read once: the target guess and the load share these bytes (a pipe has no second
     * reading). With -t and a named file, the machine is created first and asked to read the
     * file itself (npk_load_path: tinytpu with stream=1 streams word files in constant
     * memory); the bytes are read only if it declines, as every other machine does. */
    uint8_t *data = NULL;
    size_t size = 0;
    const char *input = o.load_state ? o.load_state : o.program;
    const int by_path = o.target && !o.load_state && strcmp(input, "-") != 0;
    if (!by_path && npk_read_file(input, &data, &size) != 0)
        return NPK_EXIT_NOSTART;
    /* a snapshot names its machine: without -t, its target and configuration */
    char snap_target[64], snap_config[1024];
    if (o.load_state && !o.target) {
        char err[512];
        if (npk_snapshot_info(data, size, o.load_state, snap_target, sizeof snap_target,
                              snap_config, sizeof snap_config, err, sizeof err) != NPK_OK) {
            fprintf(stderr, "npukit: %s\n", err);
            free(data);
            return NPK_EXIT_NOSTART;
        }
    }
    const char *target = o.target              ? o.target
                         : o.load_state ? snap_target
                                        : npk_guess_target(data, size);
    char why[160] = "";
    if (!target)
        npk_describe_no_target(data, size, o.program, why, sizeof why);
    if (!target) {
        free(data);
        char list[256];
        npk_target_list(list, sizeof list);
        fprintf(stderr, "npukit run: %sno target: give -t/--target (known: %s)\n", why, list);
        return NPK_EXIT_NOSTART;
    }
    const struct npk_gdb_target *gt = NULL;
    if (o.gdb && !(gt = npk_gdb_cli_target("npukit run: --gdb", target))) {
        free(data);
        return NPK_EXIT_NOSTART;
    }
    /* --config first, then the shorthands (a later setting of a key wins) */
    char config[8192];
    snprintf(config, sizeof config, "%s%s%s", o.config ? o.config : "",
             o.config && o.settings[0] ? "," : "", o.settings);
    /* with a snapshot's configuration first, the user's settings still win */
    char full[sizeof config + sizeof snap_config + 2];
    const char *cfg = config;
    if (o.load_state && !o.target && snap_config[0]) {
        snprintf(full, sizeof full, "%s%s%s", snap_config, config[0] ? "," : "", config);
        cfg = full;
    }
    npk_machine *m = npk_cli_machine("npukit run", target, cfg[0] ? cfg : NULL);
    if (!m) {
        free(data);
        return NPK_EXIT_NOSTART;
    }

    int rc = NPK_EXIT_NOSTART;
    FILE *trace = NULL, *stats_f = NULL, *dump_f = NULL, *state_f = NULL, *commit_f = NULL;
    dump_req dumps[MAX_LIST];
    /* where each output goes: "-" is standard output everywhere; the JSON statistics go there
     * by default */
    const char *stats_to = o.stats_out ? o.stats_out : o.stats == 2 ? "-" : NULL;
    const char *outs[6][2] = {{"--trace", o.trace_on ? o.trace : NULL},
                              {"--stats-output", stats_to},
                              {"--timeline", o.timeline},
                              {"--dump-file", o.dump_file},
                              {"--save-state", o.save_state},
                              {"--commit-log", o.commit_log}};
    /* the files npukit writes must not replace the program (or snapshot) it runs, nor each
     * other */
    for (int i = 0; i < 6; i++) {
        if (npk_check_output("npukit run", input, outs[i][1], 1, outs[i][0]) != 0)
            goto out;
        for (int j = 0; j < i; j++)
            if (outs[i][1] && outs[j][1] && same_output(outs[i][1], outs[j][1])) {
                if (strcmp(outs[i][1], "-") == 0)
                    npk_usage_error("npukit run", "%s and %s both write standard output%s",
                                    outs[j][0], outs[i][0],
                                    (i == 1 || j == 1) && !o.stats_out
                                        ? " (--stats=json does by default)"
                                        : "");
                else
                    npk_usage_error("npukit run", "%s and %s both name %s", outs[j][0],
                                    outs[i][0], outs[i][1]);
                goto out;
            }
    }
    /* the statistics (JSON by default, any with --stats-output -) or the timeline on
     * standard output are that output alone: the program's own output, --regs and the dumps
     * move to standard error */
    int stdout_owned = (stats_to && strcmp(stats_to, "-") == 0) ||
                       (o.timeline && strcmp(o.timeline, "-") == 0) ||
                       (o.save_state && strcmp(o.save_state, "-") == 0) ||
                       (o.commit_log && strcmp(o.commit_log, "-") == 0);
    /* the commit log's format: --commit-log-format, else by the name (.jsonl), else text */
    npk_commit_format commit_fmt =
        o.commit_fmt >= 0 ? (npk_commit_format)o.commit_fmt
        : o.commit_log && ends_with(o.commit_log, ".jsonl") ? NPK_COMMIT_JSONL
                                                            : NPK_COMMIT_TEXT;
    if (o.commit_fmt >= 0 && !o.commit_log) {
        npk_usage_error("npukit run", "--commit-log-format: no --commit-log to write");
        goto out;
    }
    if (o.commit_digest && !o.commit_log) {
        npk_usage_error("npukit run", "--commit-log-digest: no --commit-log to write");
        goto out;
    }
    int npy = o.dump_file && ends_with(o.dump_file, ".npy");
    if (o.dump_file && o.n_dump == 0) {
        npk_usage_error("npukit run", "--dump-file %s: no --dump to write", o.dump_file);
        goto out;
    }
    if (npy && o.n_dump != 1) {
        npk_usage_error("npukit run", "--dump-file %s: a .npy file holds one array: give one "
                        "--dump (there are %d)", o.dump_file, o.n_dump);
        goto out;
    }
    if (stdout_owned)
        npk_set_output(m, stderr, stderr);
    const char *in_name = strcmp(input, "-") == 0 ? "<stdin>" : input;
    npk_status loaded = by_path ? npk_load_path(m, input, stderr) : NPK_ERR_UNSUPPORTED;
    if (loaded == NPK_ERR_UNSUPPORTED && by_path && npk_read_file(input, &data, &size) != 0)
        goto out;
    if (loaded == NPK_ERR_UNSUPPORTED)
        loaded = o.load_state ? npk_snapshot_restore(m, data, size, in_name)
                              : npk_load_bytes(m, data, size, in_name, stderr);
    free(data);
    data = NULL;
    if (loaded != NPK_OK) {
        if (npk_error(m)[0])
            fprintf(stderr, "npukit: %s\n", npk_error(m));
        goto out;
    }
    for (int i = 0; i < o.n_dump; i++)
        if (parse_dump(m, o.dump[i], &dumps[i]) != 0)
            goto out;
    if (do_loads(m, &o) != 0 || do_writes(m, &o) != 0)
        goto out;
    for (int i = 0; i < o.n_brk; i++)
        if (add_break(m, o.brk[i]) != 0)
            goto out;
    for (int i = 0; i < o.n_watch; i++)
        if (add_watch(m, o.watch[i]) != 0)
            goto out;
    if (o.gdb) {
        rc = npk_gdb_cli_serve("npukit run", m, gt, o.gdb_bind ? o.gdb_bind : "127.0.0.1",
                               o.gdb_port);
        goto out;
    }
    if (o.trace_on) {
        trace = !o.trace ? stderr : strcmp(o.trace, "-") == 0 ? stdout : fopen(o.trace, "w");
        if (!trace) {
            fprintf(stderr, "npukit: %s: cannot write the trace: %s\n", o.trace,
                    strerror(errno));
            goto out;
        }
        npk_trace_text(m, trace);
    }
    if (o.commit_log) {
        /* an unsupported target is refused before the file is created */
        if (npk_on_commit(m, no_commit, NULL) != NPK_OK) {
            fprintf(stderr, "npukit: --commit-log: %s\n", npk_error(m));
            goto out;
        }
        npk_on_commit(m, NULL, NULL);
        commit_f = strcmp(o.commit_log, "-") == 0 ? stdout : fopen(o.commit_log, "w");
        if (!commit_f) {
            fprintf(stderr, "npukit: %s: cannot write the commit log: %s\n", o.commit_log,
                    strerror(errno));
            goto out;
        }
        if (npk_commit_log(m, commit_f, commit_fmt) != NPK_OK ||
            npk_commit_log_digest(m, o.digest_bytes) != NPK_OK) {
            fprintf(stderr, "npukit: --commit-log: %s\n", npk_error(m));
            goto out;
        }
    }
    if (o.timeline && npk_timeline_open(m, o.timeline) != NPK_OK) {
        fprintf(stderr, "npukit: %s\n", npk_error(m));
        goto out;
    }
    if (o.stats) {
        stats_f = !stats_to ? stderr : strcmp(stats_to, "-") == 0 ? stdout : fopen(stats_to, "w");
        if (!stats_f) {
            fprintf(stderr, "npukit: %s: cannot write the statistics: %s\n", stats_to,
                    strerror(errno));
            goto out;
        }
        npk_stats_enable(m, 1);
    }
    if (o.save_state) {
        state_f = strcmp(o.save_state, "-") == 0 ? stdout : fopen(o.save_state, "wb");
        if (!state_f) {
            fprintf(stderr, "npukit: %s: cannot write the snapshot: %s\n", o.save_state,
                    strerror(errno));
            goto out;
        }
    }
    if (o.n_dump) {
        /* text dumps share standard output with --regs unless it is owned */
        dump_f = o.dump_file && strcmp(o.dump_file, "-") != 0
                     ? fopen(o.dump_file, npy ? "wb" : "w")
                     : stdout_owned ? stderr : stdout;
        if (!dump_f) {
            fprintf(stderr, "npukit: %s: cannot write the dumps: %s\n", o.dump_file,
                    strerror(errno));
            goto out;
        }
    }

    npk_stop stop;
    uint64_t retired;
    if (run_with_progress(m, o.max_insns, &stop, &retired) != NPK_OK) {
        fprintf(stderr, "npukit: %s\n", npk_error(m));
        goto out;
    }
    fflush(stdout);
    switch (stop.reason) {
    case NPK_STOP_EXIT:
        rc = (int)(stop.exit_code & 0xff);
        if (o.stats)
            fprintf(stderr, "npukit: program exited with status %lld\n",
                    (long long)stop.exit_code);
        break;
    case NPK_STOP_BUDGET:
        rc = NPK_EXIT_BUDGET;
        fprintf(stderr, "npukit: stopped after --max-insns=%llu instructions: %s\n",
                (unsigned long long)o.max_insns, stop.message);
        break;
    case NPK_STOP_FAULT:
        rc = NPK_EXIT_FAULT;
        fprintf(stderr, "npukit: %s\n", stop.message);
        break;
    case NPK_STOP_BREAKPOINT:
    case NPK_STOP_WATCHPOINT:
        rc = NPK_EXIT_BREAK;
        fprintf(stderr, "npukit: stopped at %s\n", stop.message);
        break;
    case NPK_STOP_NONE:
        rc = NPK_EXIT_OK;
        break;
    }
    if (o.regs)
        print_regs(m, stdout_owned ? stderr : stdout);
    /* from here on a failed output is status 125: the results are incomplete (standard
     * output, with the registers and dumps, is checked when main closes it) */
    int werr = 0;
    if (dump_f) {
        werr = do_dumps(m, &o, dumps, dump_f, npy) != 0;
        if (dump_f != stdout && dump_f != stderr && npk_close_output(dump_f, o.dump_file) != 0)
            werr = 1;
        dump_f = NULL;
    }
    if (o.timeline && npk_timeline_close(m) != NPK_OK) {
        fprintf(stderr, "npukit: %s\n", npk_error(m));
        werr = 1;
    }
    if (state_f) {
        werr |= save_state(m, state_f, o.save_state);
        state_f = NULL;
    }
    if (stats_f) {
        npk_status st = o.stats == 2 ? npk_stats_json_stop(m, &stop, stats_f)
                                     : npk_stats_print(m, stats_f);
        if (o.stats == 1 && st == NPK_OK)
            print_stop(stats_f, &stop);
        werr |= finish_sink(m, st, stats_f, stats_to);
        stats_f = NULL;
    }
    if (trace) {
        werr |= finish_sink(m, npk_trace_text(m, NULL), trace, o.trace);
        trace = NULL;
    }
    if (commit_f) {
        werr |= finish_sink(m, npk_commit_log(m, NULL, commit_fmt), commit_f, o.commit_log);
        commit_f = NULL;
    }
    if (werr)
        rc = NPK_EXIT_NOSTART;
out:
    free(data);
    if (trace && trace != stderr && trace != stdout)
        fclose(trace);
    if (commit_f && commit_f != stdout)
        fclose(commit_f);
    if (stats_f && stats_f != stderr && stats_f != stdout)
        fclose(stats_f);
    if (dump_f && dump_f != stderr && dump_f != stdout)
        fclose(dump_f);
    if (state_f && state_f != stdout)
        fclose(state_f);
    npk_destroy(m);
    return rc;
}
