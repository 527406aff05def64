/* `npukit run`: load a program (assembly, raw image or ELF), run it with a budget, and report
 * how it ended, with optional statistics, trace and timeline. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/config.h"

static void help(void)
{
    printf("usage: npukit run [-t TARGET] [options] PROGRAM\n"
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
           "      --stats[=text|json]     print statistics to standard error after the run:\n"
           "                              instructions, cycles, mix, unit busy time, counters\n"
           "      --stats-output FILE     write the statistics to FILE instead\n"
           "      --trace[=FILE]          one line per retired instruction (cycle, pc, word,\n"
           "                              disassembly) to FILE (default standard error)\n"
           "      --timeline FILE         write a Chrome trace-event JSON timeline (one track\n"
           "                              per unit; open it in Perfetto or chrome://tracing)\n"
           "      --load SPACE:ADDR:FILE  copy FILE into memory SPACE at ADDR before the run\n"
           "      --dump SPACE:ADDR:LEN   print LEN bytes of SPACE at ADDR after the run\n"
           "      --regs                  print the registers after the run\n"
           "      --write SYMBOL:FILE     copy FILE over the program's symbol SYMBOL before\n"
           "                              the run (input injection; repeatable)\n"
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
           "Every --load and --dump is checked before the run (syntax, memory name, range).\n"
           "\n"
           "exit status:\n"
           "  the program's own exit status when it ends normally (0 for targets without\n"
           "  an exit call); 124 instruction or cycle budget exhausted; 125 the run could\n"
           "  not start (bad option, bad --load/--dump, unreadable or invalid file, bad\n"
           "  configuration, an output file that would replace PROGRAM) or npukit could not\n"
           "  write an output (trace, statistics, timeline, dumps, standard output: this\n"
           "  takes precedence over the program's status); 126 the program stopped on an\n"
           "  unhandled fault\n");
}

enum {
    O_TARGET = 1, O_CONFIG, O_MAX, O_STATS, O_STATS_OUT, O_TRACE, O_TIMELINE, O_LOAD, O_DUMP,
    O_REGS, O_HELP, O_WRITE, O_ISA_REV, O_RAM_SIZE, O_FS_ROOT, O_UART_IN, O_NO_SYSCALLS,
    O_LANES, O_UB_WORDS, O_LR, O_RESET_AT, O_FORMAT
};

static const npk_opt_def defs[] = {
    {O_TARGET, 't', "target", OPT_VALUE},
    {O_CONFIG, 0, "config", OPT_VALUE},
    {O_MAX, 0, "max-insns", OPT_VALUE},
    {O_STATS, 0, "stats", OPT_OPTIONAL},
    {O_STATS_OUT, 0, "stats-output", OPT_VALUE},
    {O_TRACE, 0, "trace", OPT_OPTIONAL},
    {O_TIMELINE, 0, "timeline", OPT_VALUE},
    {O_LOAD, 0, "load", OPT_VALUE},
    {O_DUMP, 0, "dump", OPT_VALUE},
    {O_REGS, 0, "regs", OPT_FLAG},
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
    {O_HELP, 'h', "help", OPT_FLAG},
    {0, 0, NULL, OPT_FLAG},
};

#define MAX_LIST 16

typedef struct run_opts {
    const char *target, *config, *program, *trace, *timeline, *stats_out;
    uint64_t max_insns;
    int stats;             /* 0 off, 1 text, 2 json */
    int trace_on, regs;
    const char *load[MAX_LIST], *dump[MAX_LIST], *write[MAX_LIST];
    int n_load, n_dump, n_write;
    char settings[4096];   /* from the target-option shorthands */
} run_opts;

/* Append "key=value" to the shorthand settings. */
/* A shorthand OPTION VALUE becomes the setting KEY=VALUE; messages name the option as the
 * user wrote it (--ram-size), not the setting (ram_size). */
static int add_setting(run_opts *o, const char *option, const char *key, const char *value)
{
    return npk_add_setting("npukit run", o->settings, sizeof o->settings, option, key, value,
                           strcmp(key, "reset_at") == 0);
}

/* "SPACE:ADDR:REST" -> space (copied), addr, rest pointer. */
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
    if (npk_parse_u64(num, addr) != 0)
        return -1;
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
    int id;
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
            if (npk_parse_u64(v, &o->max_insns) != 0) {
                npk_usage_error(prog, "--max-insns %s is not a number", v);
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
        case O_HELP: help(); return 1;
        }
    }
    if (!o->program) {
        npk_usage_error(prog, "no program to run");
        return -1;
    }
    return 0;
}

/* A parsed --dump. */
typedef struct dump_req {
    char space[64];
    uint64_t addr, len;
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

/* Every --dump is checked before the run, so a typo cannot cost a long run's result. */
static int parse_dumps(npk_machine *m, const run_opts *o, dump_req *d)
{
    for (int i = 0; i < o->n_dump; i++) {
        const char *rest;
        if (split3(o->dump[i], d[i].space, sizeof d[i].space, &d[i].addr, &rest) != 0 ||
            npk_parse_u64(rest, &d[i].len) != 0) {
            fprintf(stderr, "npukit: --dump %s: expected SPACE:ADDR:LEN\n", o->dump[i]);
            return -1;
        }
        if (d[i].len == 0) {
            fprintf(stderr, "npukit: --dump %s: LEN is 0, nothing to dump\n", o->dump[i]);
            return -1;
        }
        if (check_range(m, "--dump", o->dump[i], d[i].space, d[i].addr, d[i].len, 0) != 0)
            return -1;
    }
    return 0;
}

static int do_loads(npk_machine *m, const run_opts *o)
{
    for (int i = 0; i < o->n_load; i++) {
        char space[64];
        uint64_t addr;
        const char *file;
        if (split3(o->load[i], space, sizeof space, &addr, &file) != 0) {
            fprintf(stderr, "npukit: --load %s: expected SPACE:ADDR:FILE\n", o->load[i]);
            return -1;
        }
        if (check_range(m, "--load", o->load[i], space, addr, 0, 1) != 0)
            return -1;
        uint8_t *data;
        size_t n;
        if (npk_read_file(file, &data, &n) != 0)
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
            fprintf(stderr, "npukit: --write %s: expected SYMBOL:FILE\n", o->write[i]);
            return -1;
        }
        memcpy(sym, o->write[i], (size_t)(colon - o->write[i]));
        sym[colon - o->write[i]] = '\0';
        uint8_t *data;
        size_t n;
        if (npk_read_file(colon + 1, &data, &n) != 0)
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

/* The dumps, already checked by parse_dumps (addr + len does not wrap). */
static int do_dumps(npk_machine *m, const run_opts *o, const dump_req *d)
{
    for (int i = 0; i < o->n_dump; i++) {
        uint64_t end = d[i].addr + d[i].len;
        for (uint64_t a = d[i].addr; a < end; a += 16) {
            uint8_t b[16];
            size_t n = (size_t)(end - a < 16 ? end - a : 16);
            if (npk_mem_read(m, d[i].space, a, b, n) != NPK_OK) {
                fprintf(stderr, "npukit: --dump %s: %s\n", o->dump[i], npk_error(m));
                return -1;
            }
            printf("%s:%08llx:", d[i].space, (unsigned long long)a);
            for (size_t k = 0; k < n; k++)
                printf(" %02x", b[k]);
            printf("\n");
        }
    }
    return 0;
}

/* Finish a stream the library wrote (statistics, trace): its status first, since the
 * library saw the failed write and its errno, then the close. Returns 1 on a failure. */
static int finish_sink(npk_machine *m, npk_status st, FILE *f, const char *path)
{
    const char *name = f == stderr ? "standard error" : path;
    if (st != NPK_OK) {
        fprintf(stderr, "npukit: %s: %s\n", name, npk_error(m));
        if (f != stderr)
            fclose(f);
        return 1;
    }
    return f != stderr && npk_close_output(f, name) != 0;
}

static void print_regs(npk_machine *m)
{
    size_t n = npk_reg_count(m);
    for (size_t i = 0; i < n; i++) {
        const npk_reg_info *r = npk_reg(m, i);
        uint64_t v = 0;
        npk_reg_read(m, r->name, &v);
        printf("%-6s 0x%0*llx%s", r->name, (int)((r->bits + 3) / 4), (unsigned long long)v,
               (i % 4 == 3 || i + 1 == n) ? "\n" : "   ");
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

int npk_cmd_run(int argc, char **argv)
{
    run_opts o;
    memset(&o, 0, sizeof o);
    int p = parse(argc, argv, &o);
    if (p != 0)
        return p > 0 ? NPK_EXIT_OK : NPK_EXIT_NOSTART;

    /* read once: the target guess and the load share these bytes (a pipe has no second
     * reading) */
    uint8_t *data;
    size_t size;
    if (npk_read_file(o.program, &data, &size) != 0)
        return NPK_EXIT_NOSTART;
    const char *target = o.target ? o.target : npk_guess_target(data, size);
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
    /* --config first, then the shorthands (a later setting of a key wins) */
    char config[8192];
    snprintf(config, sizeof config, "%s%s%s", o.config ? o.config : "",
             o.config && o.settings[0] ? "," : "", o.settings);
    npk_machine *m = npk_cli_machine("npukit run", target, config[0] ? config : NULL);
    if (!m) {
        free(data);
        return NPK_EXIT_NOSTART;
    }

    int rc = NPK_EXIT_NOSTART;
    FILE *trace = NULL, *stats_f = NULL;
    dump_req dumps[MAX_LIST];
    /* the files npukit writes must not replace the program it runs */
    const char *outs[3][2] = {{"--trace", o.trace}, {"--stats-output", o.stats_out},
                              {"--timeline", o.timeline}};
    for (int i = 0; i < 3; i++)
        if (npk_check_output("npukit run", o.program, outs[i][1], 1, outs[i][0]) != 0)
            goto out;
    npk_status loaded = npk_load_bytes(m, data, size,
                                       strcmp(o.program, "-") == 0 ? "<stdin>" : o.program,
                                       stderr);
    free(data);
    data = NULL;
    if (loaded != NPK_OK) {
        if (npk_error(m)[0])
            fprintf(stderr, "npukit: %s\n", npk_error(m));
        goto out;
    }
    if (parse_dumps(m, &o, dumps) != 0 || do_loads(m, &o) != 0 || do_writes(m, &o) != 0)
        goto out;
    if (o.trace_on) {
        trace = o.trace ? fopen(o.trace, "w") : stderr;
        if (!trace) {
            fprintf(stderr, "npukit: %s: cannot write the trace\n", o.trace);
            goto out;
        }
        npk_trace_text(m, trace);
    }
    if (o.timeline && npk_timeline_open(m, o.timeline) != NPK_OK) {
        fprintf(stderr, "npukit: %s\n", npk_error(m));
        goto out;
    }
    if (o.stats) {
        stats_f = o.stats_out ? fopen(o.stats_out, "w") : stderr;
        if (!stats_f) {
            fprintf(stderr, "npukit: %s: cannot write the statistics\n", o.stats_out);
            goto out;
        }
        npk_stats_enable(m, 1);
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
    case NPK_STOP_NONE:
        rc = NPK_EXIT_OK;
        break;
    }
    if (o.regs)
        print_regs(m);
    /* from here on a failed output is status 125: the results are incomplete (standard
     * output, with the registers and dumps, is checked when main closes it) */
    int werr = do_dumps(m, &o, dumps) != 0;
    if (o.timeline && npk_timeline_close(m) != NPK_OK) {
        fprintf(stderr, "npukit: %s\n", npk_error(m));
        werr = 1;
    }
    if (stats_f) {
        npk_status st = o.stats == 2 ? npk_stats_json(m, stats_f) : npk_stats_print(m, stats_f);
        werr |= finish_sink(m, st, stats_f, o.stats_out);
        stats_f = NULL;
    }
    if (trace) {
        werr |= finish_sink(m, npk_trace_text(m, NULL), trace, o.trace);
        trace = NULL;
    }
    if (werr)
        rc = NPK_EXIT_NOSTART;
out:
    free(data);
    if (trace && trace != stderr)
        fclose(trace);
    if (stats_f && stats_f != stderr)
        fclose(stats_f);
    npk_destroy(m);
    return rc;
}
