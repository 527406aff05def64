/* Shared pieces of the `npukit` command: exit codes, option parsing, file helpers. Each
 * subcommand lives in its own cmd_*.c file. */
#ifndef NPK_CLI_H
#define NPK_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "npukit/npukit.h"

/* Exit codes, the same for every target. */
enum {
    NPK_EXIT_OK = 0,
    NPK_EXIT_INPUT = 1,      /* asm/disasm/info: errors in the input */
    NPK_EXIT_USAGE = 2,      /* asm/disasm/info: bad command line */
    NPK_EXIT_BREAK = 123,    /* run: stopped at a --break breakpoint or a --watch watchpoint */
    NPK_EXIT_BUDGET = 124,   /* run: instruction or cycle budget ran out */
    NPK_EXIT_NOSTART = 125,  /* run: could not start (bad option, file, configuration), or
                                npukit could not write one of its outputs */
    NPK_EXIT_FAULT = 126     /* run: unhandled fault */
};

/* Option description for npk_opt_next. */
typedef enum { OPT_FLAG, OPT_VALUE, OPT_OPTIONAL } npk_opt_kind;

typedef struct npk_opt_def {
    int id;
    char short_name;        /* 0 if none */
    const char *long_name;  /* without the leading dashes */
    npk_opt_kind kind;
} npk_opt_def;

typedef struct npk_opt_state {
    int argc;
    char **argv;
    int i;                  /* next argument */
    const char *prog;       /* "npukit run", for messages */
    int only_positional;    /* seen "--" */
} npk_opt_state;

/* Returns an option id, 0 for a positional argument (in *value), -1 at the end, -2 on a usage
 * error (already printed). *value is the option's argument or NULL. */
int npk_opt_next(npk_opt_state *s, const npk_opt_def *defs, const char **value);

/* Print "npukit CMD: message" plus a hint to use --help, and return NPK_EXIT_USAGE. */
int npk_usage_error(const char *prog, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Read a whole input file (NUL-terminated) with npk_file_read, the reader the library uses
 * too. Returns 0 or prints "npukit: path: reason". */
int npk_read_file(const char *path, uint8_t **data, size_t *size);
/* `src` with its extension replaced by `ext` (malloc'd; NULL when out of memory). */
char *npk_default_output(const char *src, const char *ext);

/* Refuse to write `output` when it is the input file `input`: the same name, or the same
 * file under another name (./x, a link; compared by device and inode). `given` says whether
 * the name came from -o (else it is the default derived from the input). "-" (standard
 * input/output) never clashes. Returns 0, or NPK_EXIT_USAGE after saying why. */
int npk_check_output(const char *prog, const char *input, const char *output, int given,
                     const char *option);
/* The same for a command that reads several files (a model and its data files): `output`,
 * named by `option`, must be none of the n inputs (NULL ones are not given). */
int npk_check_output_of(const char *prog, const char *const *inputs, size_t n,
                        const char *output, const char *option);
/* Finish an output: flush it, check its error indicator and close it (standard output
 * too, at the end of main). Returns 0, or -1 after "npukit: NAME: write error: REASON". */
int npk_close_output(FILE *f, const char *name);

/* Choose a target when -t was not given: an ELF's machine, or a `.target NAME` line in an
 * assembly source. Returns NULL when it cannot tell. */
const char *npk_guess_target(const uint8_t *data, size_t size);

/* Why npk_guess_target found no target, as a prefix for the "no target" message: an ELF
 * file ("FILE: ELF for machine 62 (x86-64), which no npukit target runs; ", or "FILE:
 * truncated ELF ..."), or a `.target` line naming no target ("FILE:3: unknown target 'x' in
 * '.target'; "). Otherwise `out` is left empty. */
void npk_describe_no_target(const uint8_t *data, size_t size, const char *path, char *out,
                            size_t n);

/* A target option that is a shorthand for a setting (`--ram-size 8M` is ram_size=8M): append
 * "key=value" to `settings` (n bytes, settings separated by commas). A comma in value is a
 * usage error, except with `list`, where commas separate items and become ':' (`--reset-at
 * 1,40` is reset_at=1:40). Returns 0, or -1 after printing the usage error (naming `option`,
 * as the user wrote it). */
int npk_add_setting(const char *prog, char *settings, size_t n, const char *option,
                    const char *key, const char *value, int list);
/* "config,settings" (either may be empty or NULL) in buf; NULL when both are empty. */
const char *npk_join_settings(char *buf, size_t n, const char *config, const char *settings);

/* Create the machine for -t/--config, printing the error on failure. */
npk_machine *npk_cli_machine(const char *prog, const char *target, const char *config);

/* The name of the i-th subcommand (main.c's table), NULL past the last. */
const char *npk_cli_command(size_t i);

/* List of known targets as "a, b, c". */
void npk_target_list(char *buf, size_t n);

/* Shared by `npukit gdb` and `npukit run --gdb` (src/cli/cmd_gdb.c). A port number (0 to
 * 65535) given with option `opt`: 0, or -1 after the usage error. */
int npk_gdb_port(const char *prog, const char *opt, const char *v, unsigned *port);
struct npk_gdb_target;
/* The GDB register description of target "NAME[:CONFIG]", or NULL after saying that the
 * target has none (and that `npukit debug` debugs it). */
const struct npk_gdb_target *npk_gdb_cli_target(const char *prog, const char *target);
/* Listen on bind_addr:port (a warning when it is not a loopback address), serve one GDB
 * session on the loaded machine m, and after a detach run it to its end. Returns the exit
 * status (npukit-gdb(1)). */
int npk_gdb_cli_serve(const char *prog, npk_machine *m, const struct npk_gdb_target *gt,
                      const char *bind_addr, unsigned port);

int npk_cmd_asm(int argc, char **argv);
int npk_cmd_disasm(int argc, char **argv);
int npk_cmd_run(int argc, char **argv);
int npk_cmd_debug(int argc, char **argv);
int npk_cmd_info(int argc, char **argv);
int npk_cmd_demo(int argc, char **argv);
int npk_cmd_compile(int argc, char **argv);
int npk_cmd_gdb(int argc, char **argv);
int npk_cmd_sweep(int argc, char **argv);
int npk_cmd_model_info(int argc, char **argv);
int npk_cmd_run_model(int argc, char **argv);
int npk_cmd_train_model(int argc, char **argv);
/* `npukit compile MODEL.onnx ...` (npk_cmd_compile hands .onnx models to it). */
int npk_cmd_compile_model(int argc, char **argv);

#endif
