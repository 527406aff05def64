/* `npukit`: the command-line front end. Dispatches to one subcommand per file. */
#include <string.h>

#include "cli/cli.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
    {"asm", npk_cmd_asm, "assemble a source file into a program image"},
    {"disasm", npk_cmd_disasm, "disassemble a program image"},
    {"run", npk_cmd_run, "run a program (assembly, image or ELF) on a simulated machine"},
    {"debug", npk_cmd_debug, "debug a program: step, break, watch, inspect (line or batch)"},
    {"info", npk_cmd_info, "list targets, or describe one target and its configuration"},
    {"demo", npk_cmd_demo, "run the built-in showcase programs"},
    {"compile", npk_cmd_compile, "compile a tinytpu MLP training step, or an ONNX model for a target"},
    {"gdb", npk_cmd_gdb, "serve rvnpu firmware to GDB (remote serial protocol over TCP)"},
    {"sweep", npk_cmd_sweep, "run a design-space sweep (points in parallel, or on Dask)"},
    {"model-info", npk_cmd_model_info, "read an ONNX model: graph, shapes, MACs, layers, targets"},
    {"run-model", npk_cmd_run_model, "run an ONNX model on a target (or the float64 host run)"},
    {"train-model", npk_cmd_train_model, "train an ONNX MLP on tinytpu (Q8.8 SGD steps, checked)"},
};

const char *npk_cli_command(size_t i)
{
    return i < sizeof commands / sizeof commands[0] ? commands[i].name : NULL;
}

static void usage(FILE *f)
{
    char list[256];
    npk_target_list(list, sizeof list);
    fprintf(f,
            "npukit " NPK_VERSION_STRING
            " - assemblers, disassemblers and exact simulators for small NPU ISAs\n"
            "\n"
            "usage: npukit <command> [options] [file...]\n"
            "       npukit <command> --help\n"
            "       npukit --version (or -V)\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f,
            "\n"
            "targets: %s  ('npukit info' describes them)\n"
            "\n"
            "common options:\n"
            "  -t, --target NAME[:CONFIG]  target machine, optionally with settings\n"
            "      --config KEY=VAL,...    target settings (see 'npukit info -t NAME')\n"
            "  -o, --output FILE           output file\n"
            "  -h, --help                  help for the command\n"
            "\n"
            "run options (see 'npukit run --help'):\n"
            "      --max-insns N           instruction budget (exit 124 when it runs out)\n"
            "      --stats[=text|json]     statistics: instructions, cycles, mix, units\n"
            "      --trace[=FILE]          one line per retired instruction\n"
            "      --timeline FILE         Chrome trace-event timeline (Perfetto)\n"
            "\n"
            "exit status:\n"
            "  asm, disasm, info, demo, compile, model-info, run-model, train-model: 0 success, 1 errors in the input, 2 usage error\n"
            "  debug: 0 session ended, 1 a --batch command failed, 125 could not start\n"
            "  run: the program's own exit status when it ends normally (0 for targets\n"
            "       without an exit call), 124 instruction or cycle budget exhausted,\n"
            "       125 the run could not start or npukit could not write an output,\n"
            "       126 the program stopped on an unhandled fault\n"
            "  gdb: the firmware's exit status when it ended, 0 when the session ended with it\n"
            "       stopped, 125 could not start, 126 a fault after a detach\n"
            "  sweep: 0 every point ran, 1 points that could not run, 2 usage error,\n"
            "       125 a bad sweep specification or no Python package, 130 interrupted\n"
            "  an output that cannot be written (a full disk, standard output closed) is an\n"
            "  error: 'npukit: FILE: write error: REASON', status 1 (125 for run)\n",
            list);
}

static int dispatch(int argc, char **argv);

/* Everything written to standard output is checked once here, when it is flushed and
 * closed: a full disk or a closed pipe must not look like success. */
int main(int argc, char **argv)
{
    int rc = dispatch(argc, argv);
    if (npk_close_output(stdout, "standard output") != 0)
        rc = argc >= 2 && strcmp(argv[1], "run") == 0 ? NPK_EXIT_NOSTART : NPK_EXIT_INPUT;
    return rc;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return NPK_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        if (argc > 2 && strcmp(cmd, "help") == 0) {
            char *sub[] = {argv[2], "--help", NULL};
            for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
                if (strcmp(argv[2], commands[i].name) == 0)
                    return commands[i].fn(2, sub);
            fprintf(stderr, "npukit: unknown command '%s'\n", argv[2]);
            return NPK_EXIT_USAGE;
        }
        usage(stdout);
        return NPK_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("npukit %s\n", npk_version());
        return NPK_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "npukit: unknown command '%s' (commands: asm, disasm, run, debug, info, demo, compile, gdb, sweep, model-info, run-model, train-model; "
                    "see 'npukit --help')\n", cmd);
    return NPK_EXIT_USAGE;
}
