/* `npukit debug`: the full-screen debugger on a terminal (src/debug/tui.c), the line mode (a
 * prompt on standard input; a dumb terminal or a pipe will do) and the batch mode (--batch
 * FILE: the commands of FILE, for tests). The commands and views are src/debug/debugger.c's;
 * this file loads the program, picks the mode and reads lines. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "debug/debugger.h"
#include "debug/tui.h"

static void help(void)
{
    printf("usage: npukit debug [-t TARGET] [options] PROGRAM\n"
           "       npukit debug [-t TARGET] [options] --load-state FILE\n"
           "\n"
           "Debug PROGRAM (an ELF executable, an assembly source or a raw image, as for\n"
           "'npukit run') on a simulated machine: full screen on a terminal (panels for\n"
           "registers, NPU state, disassembly, memory, output, statistics; keys s, n, c,\n"
           "r, R, q; ':' or typing for a command), else a command prompt on standard\n"
           "input, or with --batch the commands of a file. Type 'help' for the\n"
           "commands (docs/debugging.md): step, next, continue, until, reverse-step,\n"
           "reverse-continue, break, watch, delete, info break, regs, print, set, x, npu,\n"
           "disasm, where, stats, output, save, load, quit.\n"
           "\n"
           "options:\n"
           "  -t, --target NAME[:CONFIG]  target (may be omitted as for 'npukit run')\n"
           "      --config KEY=VAL,...    target settings (see 'npukit info -t NAME')\n"
           "      --load-state FILE       start from a snapshot instead of a PROGRAM\n"
           "      --batch FILE            run the commands of FILE ('-': standard input)\n"
           "                              without a prompt, echoing each as '(npk) LINE'\n"
           "      --line                  the prompt even on a terminal (no full screen)\n"
           "      --tui                   full screen (the default when standard input and\n"
           "                              output are a terminal and TERM is not 'dumb')\n"
           "  -h, --help                  this help\n"
           "\n"
           "The program's output is captured and shown after each command that ran it\n"
           "('output' shows all of it).\n"
           "\n"
           "exit status:\n"
           "  0 the session ended (quit or end of input); 1 a command of a --batch file\n"
           "  failed (the message names FILE:LINE; the rest of the file is not run);\n"
           "  125 the session could not start (bad option, file, target or settings)\n");
}

enum { O_TARGET = 1, O_CONFIG, O_BATCH, O_LOAD_STATE, O_LINE, O_TUI, O_HELP };

static const npk_opt_def defs[] = {
    {O_TARGET, 't', "target", OPT_VALUE},
    {O_CONFIG, 0, "config", OPT_VALUE},
    {O_BATCH, 0, "batch", OPT_VALUE},
    {O_LOAD_STATE, 0, "load-state", OPT_VALUE},
    {O_LINE, 0, "line", OPT_FLAG},
    {O_TUI, 0, "tui", OPT_FLAG},
    {O_HELP, 'h', "help", OPT_FLAG},
    {0, 0, NULL, OPT_FLAG},
};

static volatile int interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* The commands of `in`, one a line. Batch: echo each, stop at the first error with
 * "NAME:LINE: error: ..." and return 1. Interactive: a prompt, errors reported and skipped. */
static int session(npk_debugger *d, FILE *in, const char *name, int batch)
{
    char line[4096];
    unsigned long lineno = 0;
    for (;;) {
        if (!batch) {
            fputs("(npk) ", stdout);
            fflush(stdout);
        }
        if (!fgets(line, sizeof line, in))
            break;
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            fprintf(stderr, "%s:%lu: error: line longer than %zu characters\n", name, lineno,
                    sizeof line - 2);
            if (batch)
                return NPK_EXIT_INPUT;
            int ch;
            while ((ch = fgetc(in)) != EOF && ch != '\n')
                ;
            continue;
        }
        line[strcspn(line, "\r\n")] = '\0';
        if (batch) {
            const char *p = line + strspn(line, " \t");
            if (*p && *p != '#')
                printf("(npk) %s\n", p);
        }
        char err[1024] = "";
        int rc = npk_debugger_exec(d, line, stdout, err, sizeof err);
        fflush(stdout);
        if (rc == 1)
            break;
        if (rc < 0) {
            if (batch) {
                fprintf(stderr, "%s:%lu: error: %s\n", name, lineno, err);
                return NPK_EXIT_INPUT;
            }
            fprintf(stderr, "error: %s\n", err);
        }
    }
    if (!batch)
        fputc('\n', stdout);
    return NPK_EXIT_OK;
}

int npk_cmd_debug(int argc, char **argv)
{
    const char *prog = "npukit debug", *v, *program = NULL, *target = NULL, *config = NULL,
               *batch = NULL, *load_state = NULL;
    int id, line = 0, tui = 0;
    npk_opt_state os = {argc, argv, 1, prog, 0};
    while ((id = npk_opt_next(&os, defs, &v)) != -1) {
        switch (id) {
        case -2: return NPK_EXIT_NOSTART;
        case 0:
            if (program) {
                npk_usage_error(prog, "more than one program ('%s', '%s')", program, v);
                return NPK_EXIT_NOSTART;
            }
            program = v;
            break;
        case O_TARGET: target = v; break;
        case O_CONFIG: config = v; break;
        case O_BATCH: batch = v; break;
        case O_LOAD_STATE: load_state = v; break;
        case O_LINE: line = 1; break;
        case O_TUI: tui = 1; break;
        case O_HELP: help(); return NPK_EXIT_OK;
        }
    }
    if (program && load_state) {
        npk_usage_error(prog, "a program (%s) and --load-state %s: give one of them", program,
                        load_state);
        return NPK_EXIT_NOSTART;
    }
    if (!program && !load_state) {
        npk_usage_error(prog, "no program to debug (give PROGRAM or --load-state FILE)");
        return NPK_EXIT_NOSTART;
    }
    if (tui + line + (batch != NULL) > 1) {
        npk_usage_error(prog, "give one of --tui, --line and --batch");
        return NPK_EXIT_NOSTART;
    }
    const char *term = getenv("TERM");
    int tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
    if (tui && !tty) {
        npk_usage_error(prog, "--tui needs a terminal on standard input and output");
        return NPK_EXIT_NOSTART;
    }
    if (tui && !npk_tui_available()) {
        fprintf(stderr, "npukit debug: --tui: this npukit was built without ncurses, so it has "
                        "no full-screen UI (install libncurses-dev and rebuild; --line works)\n");
        return NPK_EXIT_NOSTART;
    }
    if (!tui && !line && !batch && tty && npk_tui_available() && term && term[0] &&
        strcmp(term, "dumb") != 0)
        tui = 1;
    if (batch && program && strcmp(batch, "-") == 0 && strcmp(program, "-") == 0) {
        npk_usage_error(prog, "the program and --batch cannot both be standard input");
        return NPK_EXIT_NOSTART;
    }
    FILE *in = stdin;
    if (batch && strcmp(batch, "-") != 0) {
        in = fopen(batch, "r");
        if (!in) {
            fprintf(stderr, "npukit: %s: cannot read the batch file\n", batch);
            return NPK_EXIT_NOSTART;
        }
    }
    const char *input = load_state ? load_state : program;
    uint8_t *data = NULL;
    size_t size = 0;
    npk_machine *m = NULL;
    npk_debugger *d = NULL;
    int rc = NPK_EXIT_NOSTART;
    if (npk_read_file(input, &data, &size) != 0)
        goto out;
    char snap_target[64] = "", snap_config[1024] = "";
    if (load_state && !target) {
        char err[512];
        if (npk_snapshot_info(data, size, load_state, snap_target, sizeof snap_target,
                              snap_config, sizeof snap_config, err, sizeof err) != NPK_OK) {
            fprintf(stderr, "npukit: %s\n", err);
            goto out;
        }
        target = snap_target;
        if (!config && snap_config[0])
            config = snap_config;
    }
    if (!target)
        target = npk_guess_target(data, size);
    if (!target) {
        char why[160] = "", list[256];
        npk_describe_no_target(data, size, program, why, sizeof why);
        npk_target_list(list, sizeof list);
        fprintf(stderr, "npukit debug: %sno target: give -t/--target (known: %s)\n", why, list);
        goto out;
    }
    m = npk_cli_machine(prog, target, config);
    if (!m)
        goto out;
    const char *in_name = strcmp(input, "-") == 0 ? "<stdin>" : input;
    npk_status st = load_state ? npk_snapshot_restore(m, data, size, in_name)
                               : npk_load_bytes(m, data, size, in_name, stderr);
    if (st != NPK_OK) {
        if (npk_error(m)[0])
            fprintf(stderr, "npukit: %s\n", npk_error(m));
        goto out;
    }
    char err[512];
    d = npk_debugger_new(m, err, sizeof err);
    if (!d) {
        fprintf(stderr, "npukit: %s\n", err);
        goto out;
    }
    npk_debugger_echo_output(d, stdout);
    npk_debugger_set_interrupt(d, &interrupted);
    if (!batch) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_sigint;
        sigaction(SIGINT, &sa, NULL);
    }
    if (tui) {
        if (npk_tui_run(d, m, in_name, &interrupted, err, sizeof err) != 0) {
            fprintf(stderr, "npukit debug: %s\n", err);
            goto out;
        }
        rc = NPK_EXIT_OK;
        goto out;
    }
    if (!batch) {
        printf("npukit debug: %s on %s; 'help' lists the commands\n", in_name,
               npk_target_of(m));
        npk_debugger_view_where(d, stdout);
    }
    rc = session(d, in, batch ? (strcmp(batch, "-") == 0 ? "<stdin>" : batch) : "<stdin>",
                 batch != NULL);
out:
    npk_debugger_free(d);
    npk_destroy(m);
    free(data);
    if (in != stdin)
        fclose(in);
    return rc;
}
