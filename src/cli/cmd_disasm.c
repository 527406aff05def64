/* `npukit disasm`: print a program image as assembly, one instruction per line. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/config.h"

static void help(void)
{
    printf("usage: npukit disasm -t TARGET [options] IMAGE\n"
           "\n"
           "Disassemble IMAGE, a raw program image of little-endian instruction words\n"
           "(as written by 'npukit asm'; - for standard input).\n"
           "\n"
           "options:\n"
           "  -t, --target NAME[:CONFIG]  target (required for raw images)\n"
           "      --config KEY=VAL,...    target settings (see 'npukit info -t NAME')\n"
           "      --base ADDR             address of the first word (default 0)\n"
           "  -s, --source                print only the instruction text, so the output\n"
           "                              assembles back to the same image\n"
           "  -o, --output FILE           write to FILE instead of standard output\n"
           "  -h, --help                  this help\n"
           "\n"
           "Default lines are 'ADDRESS:  WORD  TEXT' (hex address and word). Words that are\n"
           "not legal instructions print as '.word 0x...' with the reason in a comment.\n"
           "An image whose size is not a whole number of words is an error.\n"
           "\n"
           "exit status: 0 success, 1 unreadable or malformed image, 2 usage error\n");
}

enum { O_TARGET = 1, O_CONFIG, O_BASE, O_SOURCE, O_OUTPUT, O_HELP };

static const npk_opt_def defs[] = {
    {O_TARGET, 't', "target", OPT_VALUE}, {O_CONFIG, 0, "config", OPT_VALUE},
    {O_BASE, 0, "base", OPT_VALUE},       {O_SOURCE, 's', "source", OPT_FLAG},
    {O_OUTPUT, 'o', "output", OPT_VALUE}, {O_HELP, 'h', "help", OPT_FLAG},
    {0, 0, NULL, OPT_FLAG},
};

int npk_cmd_disasm(int argc, char **argv)
{
    const char *prog = "npukit disasm", *target = NULL, *config = NULL, *output = NULL,
               *path = NULL, *v;
    uint64_t base = 0;
    int source_only = 0, id;
    npk_opt_state os = {argc, argv, 1, prog, 0};
    while ((id = npk_opt_next(&os, defs, &v)) != -1) {
        switch (id) {
        case -2: return NPK_EXIT_USAGE;
        case 0:
            if (path)
                return npk_usage_error(prog, "more than one input file ('%s', '%s')", path, v);
            path = v;
            break;
        case O_TARGET: target = v; break;
        case O_CONFIG: config = v; break;
        case O_BASE:
            if (npk_parse_u64(v, &base) != 0)
                return npk_usage_error(prog, "--base %s is not a number", v);
            break;
        case O_SOURCE: source_only = 1; break;
        case O_OUTPUT: output = v; break;
        case O_HELP: help(); return NPK_EXIT_OK;
        }
    }
    if (!path)
        return npk_usage_error(prog, "no input file");
    uint8_t *data;
    size_t size;
    if (npk_read_file(path, &data, &size) != 0)
        return NPK_EXIT_INPUT;
    if (!target)
        target = npk_guess_target(data, size);
    if (!target) {
        free(data);
        char list[256];
        npk_target_list(list, sizeof list);
        return npk_usage_error(prog, "no target: give -t/--target (known: %s)", list);
    }
    npk_machine *m = npk_cli_machine(prog, target, config);
    if (!m) {
        free(data);
        return NPK_EXIT_USAGE;
    }
    size_t wb = npk_insn_bytes(m);
    int rc = NPK_EXIT_OK;
    if (size % wb) {
        fprintf(stderr, "%s: %s: %zu bytes is not a whole number of %zu-byte words "
                        "(%zu trailing bytes)\n", prog, path, size, wb, size % wb);
        rc = NPK_EXIT_INPUT;
    }
    FILE *f = stdout;
    if (rc == NPK_EXIT_OK && output && strcmp(output, "-") != 0) {
        f = fopen(output, "w");
        if (!f) {
            fprintf(stderr, "%s: %s: cannot write\n", prog, output);
            rc = NPK_EXIT_INPUT;
        }
    }
    for (size_t i = 0; rc == NPK_EXIT_OK && i < size; i += wb) {
        char text[256];
        uint64_t pc = base + i;
        if (npk_disasm(m, data + i, pc, text, sizeof text) != NPK_OK) {
            fprintf(stderr, "%s: %s\n", prog, npk_error(m));
            rc = NPK_EXIT_INPUT;
            break;
        }
        if (source_only) {
            fprintf(f, "%s\n", text);
        } else {
            fprintf(f, "%8llx:  ", (unsigned long long)pc);
            for (size_t k = wb; k-- > 0;)
                fprintf(f, "%02x", data[i + k]);
            fprintf(f, "  %s\n", text);
        }
    }
    if (f != stdout && f && fclose(f) != 0 && rc == NPK_EXIT_OK) {
        fprintf(stderr, "%s: %s: write error\n", prog, output);
        rc = NPK_EXIT_INPUT;
    }
    free(data);
    npk_destroy(m);
    return rc;
}
