/* `npukit asm`: assemble a source file with a target's assembler and write the image. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "asm/asm.h"
#include "cli/cli.h"

static void help(void)
{
    printf("usage: npukit asm -t TARGET [options] SOURCE\n"
           "\n"
           "Assemble SOURCE (use - for standard input) and write the program image.\n"
           "\n"
           "options:\n"
           "  -t, --target NAME[:CONFIG]  target (may be omitted if a line near the top of\n"
           "                              SOURCE is '.target NAME')\n"
           "      --config KEY=VAL,...    target settings; some targets' register ranges\n"
           "                              depend on them (see 'npukit info -t NAME')\n"
           "  -o, --output FILE           output file (default: SOURCE with .bin, or .hex\n"
           "                              with --format=hex; '-' for standard output)\n"
           "  -f, --format bin|hex        bin: little-endian instruction words (default);\n"
           "                              hex: one word per line, most significant digit first\n"
           "  -l, --listing               print a listing to standard output: per source line\n"
           "                              its address (tinytpu: its cycles), the words it made\n"
           "                              and the line\n"
           "      --listing-output FILE   write the listing to FILE instead\n"
           "      --lanes N               the setting lanes=N (tinytpu: array size N)\n"
           "      --lr V                  the setting lr=V (tinytpu: learning rate before\n"
           "                              cycle 1, Q8.8: 0x00C0 or 0.75)\n"
           "  -h, --help                  this help\n"
           "\n"
           "Errors are reported as FILE:LINE:COL: error: MESSAGE with the line and a caret.\n"
           "\n"
           "A NUL byte in SOURCE is an error. The output must not be SOURCE itself: when the\n"
           "default output name would overwrite it (e.g. SOURCE is prog.bin), give -o.\n"
           "\n"
           "exit status: 0 success, 1 assembly errors, unreadable input or an output that\n"
           "cannot be written, 2 usage error (including an unknown target, a bad configuration\n"
           "or an output that would overwrite SOURCE)\n");
}

enum { O_TARGET = 1, O_CONFIG, O_OUTPUT, O_FORMAT, O_HELP, O_LISTING, O_LISTING_OUT, O_LANES,
       O_LR };

static const npk_opt_def defs[] = {
    {O_TARGET, 't', "target", OPT_VALUE},  {O_CONFIG, 0, "config", OPT_VALUE},
    {O_OUTPUT, 'o', "output", OPT_VALUE},  {O_FORMAT, 'f', "format", OPT_VALUE},
    {O_HELP, 'h', "help", OPT_FLAG},       {O_LISTING, 'l', "listing", OPT_FLAG},
    {O_LISTING_OUT, 0, "listing-output", OPT_VALUE},
    {O_LANES, 0, "lanes", OPT_VALUE},      {O_LR, 0, "lr", OPT_VALUE},
    {0, 0, NULL, OPT_FLAG},
};

int npk_cmd_asm(int argc, char **argv)
{
    const char *prog = "npukit asm", *target = NULL, *config = NULL, *output = NULL,
               *src = NULL, *listing = NULL, *v;
    int hex = 0, id, list = 0;
    char settings[1024] = "", joined[4096];
    npk_opt_state os = {argc, argv, 1, prog, 0};
    while ((id = npk_opt_next(&os, defs, &v)) != -1) {
        switch (id) {
        case -2: return NPK_EXIT_USAGE;
        case 0:
            if (src)
                return npk_usage_error(prog, "more than one source file ('%s', '%s')", src, v);
            src = v;
            break;
        case O_TARGET: target = v; break;
        case O_CONFIG: config = v; break;
        case O_OUTPUT: output = v; break;
        case O_FORMAT:
            if (strcmp(v, "bin") == 0)
                hex = 0;
            else if (strcmp(v, "hex") == 0)
                hex = 1;
            else
                return npk_usage_error(prog, "unknown format '%s' (bin, hex)", v);
            break;
        case O_HELP: help(); return NPK_EXIT_OK;
        case O_LISTING: list = 1; break;
        case O_LISTING_OUT: list = 1, listing = v; break;
        case O_LANES:
        case O_LR:
            if (npk_add_setting(prog, settings, sizeof settings, id == O_LANES ? "--lanes" : "--lr",
                                id == O_LANES ? "lanes" : "lr", v, 0))
                return NPK_EXIT_USAGE;
            break;
        }
    }
    if (!src)
        return npk_usage_error(prog, "no source file");
    config = npk_join_settings(joined, sizeof joined, config, settings);
    /* the listing goes to standard output unless told otherwise: not where the image goes */
    if (list && !listing && output && strcmp(output, "-") == 0)
        return npk_usage_error(prog, "the image (-o -) and the listing would both go to standard "
                                     "output; give --listing-output FILE");
    if (listing && strcmp(listing, "-") != 0) {
        if (output && strcmp(listing, output) == 0)
            return npk_usage_error(prog, "--listing-output %s is also the output file", listing);
        int rc = npk_check_output(prog, src, listing, 1, "--listing-output");
        if (rc)
            return rc;
    }
    uint8_t *text;
    size_t size;
    if (npk_read_file(src, &text, &size) != 0)
        return NPK_EXIT_INPUT;
    const char *name = strcmp(src, "-") == 0 ? "<stdin>" : src;
    /* npk_assemble takes a C string: without this a NUL byte would end the source there */
    if (npk_asm_check_nul((const char *)text, size, name, stderr) != 0) {
        free(text);
        return NPK_EXIT_INPUT;
    }
    if (!target)
        target = npk_guess_target(text, size);
    if (!target) {
        char why[160], list[256];
        npk_describe_no_target(text, size, name, why, sizeof why);
        free(text);
        npk_target_list(list, sizeof list);
        return npk_usage_error(prog, "%sno target: give -t/--target (known: %s)", why, list);
    }
    npk_machine *m = npk_cli_machine(prog, target, config);
    if (!m) {
        free(text);
        return NPK_EXIT_USAGE;
    }
    uint8_t *image = NULL;
    size_t n = 0;
    FILE *lf = NULL;
    if (list) {
        lf = !listing || strcmp(listing, "-") == 0 ? stdout : fopen(listing, "w");
        if (!lf) {
            fprintf(stderr, "%s: %s: cannot write: %s\n", prog, listing, strerror(errno));
            free(text);
            npk_destroy(m);
            return NPK_EXIT_INPUT;
        }
        npk_set_listing(m, lf);
    }
    npk_status st = npk_assemble(m, (const char *)text, name, stderr, &image, &n);
    free(text);
    /* standard output is checked when main closes it */
    if (lf && lf != stdout && npk_close_output(lf, listing) != 0 && st == NPK_OK) {
        npk_free(image);
        npk_destroy(m);
        return NPK_EXIT_INPUT;
    }
    if (st != NPK_OK) {
        if (npk_error(m)[0])
            fprintf(stderr, "%s: %s\n", prog, npk_error(m));
        npk_destroy(m);
        return NPK_EXIT_INPUT;
    }
    char *def = NULL;
    size_t wb = npk_insn_bytes(m);
    if (wb == 0 && hex) {
        npk_free(image);
        npk_destroy(m);
        return npk_usage_error(prog, "%s programs are text: the output is already one word per "
                                     "line (choose the word format with --config, see "
                                     "'npukit info -t %s')", target, target);
    }
    int given = output != NULL;
    if (!output) {
        if (strcmp(src, "-") == 0)
            output = "-";
        else
            output = def = npk_default_output(src, hex || wb == 0 ? ".hex" : ".bin");
    }
    int rc = npk_check_output(prog, src, output, given, "-o");
    FILE *f = rc || !output             ? NULL
              : strcmp(output, "-") == 0 ? stdout
                                         : fopen(output, hex ? "w" : "wb");
    if (rc) {
        /* refused: the input stays as it was */
    } else if (!f) {
        fprintf(stderr, "%s: %s: cannot write: %s\n", prog, output ? output : "(output)",
                output ? strerror(errno) : "out of memory");
        rc = NPK_EXIT_INPUT;
    } else {
        if (hex) {
            /* a trailing partial word is printed zero-padded, never dropped */
            for (size_t i = 0; i < n; i += wb) {
                for (size_t k = wb; k-- > 0;)
                    fprintf(f, "%02x", i + k < n ? image[i + k] : 0);
                fputc('\n', f);
            }
        } else {
            fwrite(image, 1, n, f);
        }
        /* standard output is checked when main closes it */
        if (f != stdout && npk_close_output(f, output) != 0)
            rc = NPK_EXIT_INPUT;
    }
    free(def);
    npk_free(image);
    npk_destroy(m);
    return rc;
}
