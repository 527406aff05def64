/* `npukit disasm`: print a program image as assembly, one instruction per line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/checked.h"
#include "core/config.h"

static void help(void)
{
    printf("usage: npukit disasm -t TARGET [options] IMAGE\n"
           "\n"
           "Disassemble IMAGE: a raw program image of little-endian instruction words\n"
           "(as written by 'npukit asm'; - for standard input), or an ELF executable, whose\n"
           "code segments (PF_X) are shown at their addresses.\n"
           "\n"
           "options:\n"
           "  -t, --target NAME[:CONFIG]  target (required for raw images; an ELF names it)\n"
           "      --config KEY=VAL,...    target settings (see 'npukit info -t NAME')\n"
           "      --base ADDR             address of the first word of a raw image (default 0);\n"
           "                              the image must end inside the target's address\n"
           "                              space (32-bit for toy, rvnpu and opennpu)\n"
           "  -s, --source                print only the instruction text, so the output\n"
           "                              assembles back to the same image\n"
           "  -o, --output FILE           write to FILE instead of standard output\n"
           "  -h, --help                  this help\n"
           "\n"
           "Default lines are 'ADDRESS:  WORD  TEXT' (hex address and word). Words that are\n"
           "not legal instructions print as '.word 0x...' with the reason in a comment.\n"
           "An image whose size is not a whole number of words is an error.\n"
           "\n"
           "exit status: 0 success, 1 unreadable or malformed image or an output that cannot\n"
           "be written, 2 usage error (including -o naming IMAGE itself)\n");
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
        char why[160], list[256];
        npk_describe_no_target(data, size, path, why, sizeof why);
        free(data);
        npk_target_list(list, sizeof list);
        return npk_usage_error(prog, "%sno target: give -t/--target (known: %s)", why, list);
    }
    npk_machine *m = npk_cli_machine(prog, target, config);
    if (!m) {
        free(data);
        return NPK_EXIT_USAGE;
    }
    size_t wb = npk_insn_bytes(m);
    int rc = npk_check_output(prog, path, output, 1, "-o");
    if (rc) {
        free(data);
        npk_destroy(m);
        return rc;
    }
    if (wb == 0) { /* a text-stream target: the whole file at once */
        FILE *tf = !output || strcmp(output, "-") == 0 ? stdout : fopen(output, "w");
        if (!tf) {
            fprintf(stderr, "%s: %s: cannot write: %s\n", prog, output, strerror(errno));
            rc = NPK_EXIT_INPUT;
        } else if (npk_disasm_text(m, data, size, path, tf) != NPK_OK) {
            fprintf(stderr, "%s: %s\n", prog, npk_error(m));
            rc = NPK_EXIT_INPUT;
        }
        /* standard output is checked when main closes it */
        if (tf && tf != stdout && npk_close_output(tf, output) != 0)
            rc = NPK_EXIT_INPUT;
        free(data);
        npk_destroy(m);
        return rc;
    }
    /* what to show: the whole raw image, or each code segment of an ELF */
    npk_elf_segment seg[NPK_ELF_MAX_SEGMENTS];
    size_t n_seg = 1;
    int elf = size >= 4 && memcmp(data, "\x7f" "ELF", 4) == 0;
    if (elf) {
        uint64_t entry;
        if (npk_elf_segments(m, data, size, path, seg, NPK_ELF_MAX_SEGMENTS, &n_seg, &entry) !=
            NPK_OK) {
            fprintf(stderr, "%s: %s\n", prog, npk_error(m));
            rc = NPK_EXIT_INPUT;
            n_seg = 0;
        }
    } else {
        /* every byte of the image needs an address the target can hold: past the end the
         * addresses shown would be ones no program can have (an empty image: --base itself) */
        unsigned bits = npk_addr_bits(m);
        if (!npk_range_in_bits(base, size ? size : 1, bits)) {
            free(data);
            npk_destroy(m);
            return npk_usage_error(prog, "--base 0x%llx: the %zu-byte image runs past the end "
                                   "of the target's %u-bit address space (0x0 .. 0x%llx)",
                                   (unsigned long long)base, size, bits,
                                   (unsigned long long)(bits < 64 ? (UINT64_C(1) << bits) - 1
                                                                  : UINT64_MAX));
        }
        seg[0] = (npk_elf_segment){base, data, size, size, 1};
        if (size % wb) {
            fprintf(stderr, "%s: %s: %zu bytes is not a whole number of %zu-byte words "
                            "(%zu trailing bytes)\n", prog, path, size, wb, size % wb);
            rc = NPK_EXIT_INPUT;
        }
    }
    FILE *f = stdout;
    if (rc == NPK_EXIT_OK && output && strcmp(output, "-") != 0) {
        f = fopen(output, "w");
        if (!f) {
            fprintf(stderr, "%s: %s: cannot write: %s\n", prog, output, strerror(errno));
            rc = NPK_EXIT_INPUT;
        }
    }
    for (size_t k = 0; rc == NPK_EXIT_OK && k < n_seg; k++) {
        if (!seg[k].exec)
            continue;
        if (elf && !source_only)
            fprintf(f, "%s; segment at 0x%llx, %zu bytes\n", k ? "\n" : "",
                    (unsigned long long)seg[k].vaddr, seg[k].filesz);
        for (size_t i = 0; i + wb <= seg[k].filesz; i += wb) {
            char text[256];
            uint64_t pc = seg[k].vaddr + i;
            const uint8_t *w = seg[k].bytes + i;
            if (npk_disasm(m, w, pc, text, sizeof text) != NPK_OK) {
                fprintf(stderr, "%s: %s\n", prog, npk_error(m));
                rc = NPK_EXIT_INPUT;
                break;
            }
            if (source_only) {
                fprintf(f, "%s\n", text);
            } else {
                fprintf(f, "%8llx:  ", (unsigned long long)pc);
                for (size_t b = wb; b-- > 0;)
                    fprintf(f, "%02x", w[b]);
                fprintf(f, "  %s\n", text);
            }
        }
        size_t tail = seg[k].filesz % wb; /* an ELF segment may end mid-word: show it */
        if (rc == NPK_EXIT_OK && tail) {
            size_t at = seg[k].filesz - tail;
            if (!source_only)
                fprintf(f, "%8llx:  ", (unsigned long long)(seg[k].vaddr + at));
            fprintf(f, ".byte");
            for (size_t b = 0; b < tail; b++)
                fprintf(f, "%s0x%02x", b ? ", " : " ", seg[k].bytes[at + b]);
            fprintf(f, "\n");
        }
    }
    if (f != stdout && f && npk_close_output(f, output) != 0)
        rc = NPK_EXIT_INPUT;
    free(data);
    npk_destroy(m);
    return rc;
}
