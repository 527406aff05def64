/* `npukit compile`: the tinytpu schedule compiler (src/targets/tinytpu/compile.c, spec Part E):
 * an MLP description in, a cycle-exact control stream out, plus the memory map, the cycle count
 * and the machine settings to run it with; --check runs it on the simulator (rule 11). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "asm/asm.h"
#include "cli/cli.h"
#include "targets/tinytpu/compile.h"


static void help(void)
{
    printf("usage: npukit compile -t tinytpu [options] NET_FILE\n"
           "       npukit compile MODEL.onnx -t TARGET -o OUT [--calib X.npy] [--scale X]\n"
           "       (an ONNX model for a target: `npukit compile MODEL.onnx --help`, docs/models.md)\n"
           "\n"
           "Compile an MLP training job (layer widths, leaky-ReLU alpha, learning rate, batch,\n"
           "initial parameters, steps; see docs/tinytpu-compiler.md) into a tinytpu control\n"
           "stream: one word per clock cycle, starting with a reset cycle. Prints the memory\n"
           "map, the cycle count and the machine settings to run the stream with.\n"
           "\n"
           "options:\n"
           "  -t, --target tinytpu        the only target with a compiler\n"
           "  -o, --output FILE           the stream (default: NET_FILE with .tt for asm, .hex\n"
           "                              for word formats, .port for the port stream; '-' for\n"
           "                              standard output, the summary then goes to stderr)\n"
           "  -f, --format F              asm, w94, w130, wfull, port or w88 (default: what\n"
           "                              the -o extension says, else the file's 'format' line,\n"
           "                              else asm); the compiler rejects reads the format\n"
           "                              cannot encode (w88: addresses 0-3)\n"
           "      --map FILE              write the memory map to FILE instead of the summary\n"
           "                              ('-': standard output, the summary to standard error)\n"
           "      --check                 run the stream on the simulator and compare every\n"
           "                              written UB word with the compiler's prediction\n"
           "  -h, --help                  this help\n"
           "\n"
           "The -o extension names the format: .tt assembly, .port the port stream, .hex hex\n"
           "words (w130, wfull for lanes >= 3, or the width -f or the file gives), .w88 .w94\n"
           "  .w130 .wfull those words. It overrides the file's 'format' line (with a note);\n"
           "an -f that contradicts it is a usage error. Other names (and '-') take the\n"
           "format from -f, the file, or asm.\n"
           "\n"
           "exit status: 0 success, 1 errors in the description, a network that does not fit\n"
           "(widths, UB size, word format), a failed check or an output that cannot be\n"
           "written, 2 usage error (including an output or --map that would overwrite\n"
           "NET_FILE: with the asm format the default output of net.tt is net.tt itself)\n");
}

enum { O_TARGET = 1, O_OUTPUT, O_FORMAT, O_MAP, O_CHECK, O_HELP };

/* What the output file's extension says about the format: -1 nothing (another extension, none,
 * standard output); a format; or FAMILY_HEX for `.hex` (hex words of any width). */
enum { FAMILY_HEX = TT_N_FORMATS };
static int ext_format(const char *path, const char **ext)
{
    static const struct {
        const char *ext;
        int fmt;
    } map[] = {{".tt", TT_FMT_ASM},    {".port", TT_FMT_PORT},   {".hex", FAMILY_HEX},
               {".w88", TT_FMT_W88},   {".w94", TT_FMT_W94},     {".w130", TT_FMT_W130},
               {".wfull", TT_FMT_WFULL}};
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    *ext = NULL;
    if (!dot || (slash && dot < slash))
        return -1;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(dot, map[i].ext) == 0) {
            *ext = map[i].ext;
            return map[i].fmt;
        }
    return -1;
}

static int fits_ext(int fmt, int want)
{
    return want < 0 || fmt == want || (want == FAMILY_HEX && fmt <= TT_FMT_WFULL);
}

static const char *kind_of(int fmt)
{
    return fmt == TT_FMT_ASM ? "assembly" : fmt == TT_FMT_PORT ? "a port stream" : "hex words";
}

static const npk_opt_def defs[] = {
    {O_TARGET, 't', "target", OPT_VALUE}, {O_OUTPUT, 'o', "output", OPT_VALUE},
    {O_FORMAT, 'f', "format", OPT_VALUE}, {O_MAP, 0, "map", OPT_VALUE},
    {O_CHECK, 0, "check", OPT_FLAG},      {O_HELP, 'h', "help", OPT_FLAG},
    {0, 0, NULL, OPT_FLAG},
};

int npk_cmd_compile(int argc, char **argv)
{
    const char *prog = "npukit compile", *target = NULL, *output = NULL, *src = NULL,
               *map = NULL, *v;
    int fmt = -1, check = 0, id;
    for (int i = 1; i < argc; i++) {
        size_t n = strlen(argv[i]);
        if (argv[i][0] != '-' && n > 5 && strcmp(argv[i] + n - 5, ".onnx") == 0)
            return npk_cmd_compile_model(argc, argv);
    }
    npk_opt_state os = {argc, argv, 1, prog, 0};
    while ((id = npk_opt_next(&os, defs, &v)) != -1) {
        switch (id) {
        case -2: return NPK_EXIT_USAGE;
        case 0:
            if (src)
                return npk_usage_error(prog, "more than one description ('%s', '%s')", src, v);
            src = v;
            break;
        case O_TARGET: target = v; break;
        case O_OUTPUT: output = v; break;
        case O_FORMAT:
            fmt = tt_format_find(v);
            if (fmt < 0)
                return npk_usage_error(prog, "unknown format '%s' (asm, w88, w94, w130, wfull, "
                                             "port)", v);
            break;
        case O_MAP: map = v; break;
        case O_CHECK: check = 1; break;
        case O_HELP: help(); return NPK_EXIT_OK;
        }
    }
    if (!target)
        return npk_usage_error(prog, "no target: give -t tinytpu");
    if (strcmp(target, "tinytpu") != 0)
        return npk_usage_error(prog, "no compiler for target '%s' (only tinytpu)", target);
    if (!src)
        return npk_usage_error(prog, "no description file");
    uint8_t *text;
    size_t size;
    if (npk_read_file(src, &text, &size) != 0)
        return NPK_EXIT_INPUT;
    const char *name = strcmp(src, "-") == 0 ? "<stdin>" : src;
    /* the parser takes a C string: a NUL byte would end the description there, silently */
    if (npk_asm_check_nul((const char *)text, size, name, stderr) != 0) {
        free(text);
        return NPK_EXIT_INPUT;
    }
    char err[1024];
    tt_net net;
    tt_compiled c;
    memset(&c, 0, sizeof c);
    int rc = NPK_EXIT_INPUT;
    FILE *f = NULL, *info = stdout;
    char *def = NULL;
    if (tt_net_parse((const char *)text, name, &net, err, sizeof err)) {
        fprintf(stderr, "%s: error: %s\n", prog, err);
        goto out;
    }
    /* the format: -f, else the -o extension, else the file's `format` line, else asm; an -f
     * that the extension contradicts is an error (a .tt file of hex words is what `npukit
     * run` would then misread) */
    const char *ext = NULL;
    int want = output && strcmp(output, "-") != 0 ? ext_format(output, &ext) : -1;
    if (fmt >= 0 && !fits_ext(fmt, want)) {
        rc = npk_usage_error(prog, "-f %s writes %s, but -o %s says %s (%s); give -o a name "
                             "that ends in the format's extension, or leave -f out",
                             tt_format_names[fmt], kind_of(fmt), output,
                             want == FAMILY_HEX ? "hex words" : tt_format_names[want], ext);
        goto out;
    }
    char note[512] = "";
    if (fmt < 0 && net.format_line && !fits_ext((int)net.format, want))
        snprintf(note, sizeof note, "note: -o %s (%s) overrides 'format %s' of %s:%u\n", output,
                 ext, tt_format_names[net.format], name, net.format_line);
    if (fmt >= 0)
        net.format = (tt_format)fmt;
    else if (want == FAMILY_HEX && net.format > TT_FMT_WFULL)
        net.format = net.N == 2 ? TT_FMT_W130 : TT_FMT_WFULL;
    else if (want >= 0 && want != FAMILY_HEX)
        net.format = (tt_format)want;
    if (tt_compile(&net, &c, err, sizeof err)) {
        fprintf(stderr, "%s: %s: error: %s\n", prog, name, err);
        goto out;
    }
    int given = output != NULL;
    if (!output) {
        if (strcmp(src, "-") == 0)
            output = "-";
        else
            output = def = npk_default_output(src, net.format == TT_FMT_ASM    ? ".tt"
                                               : net.format == TT_FMT_PORT ? ".port"
                                                                           : ".hex");
    }
    if (!output) {
        fprintf(stderr, "%s: out of memory\n", prog);
        goto out;
    }
    /* compiling net.tt to the asm format would replace net.tt by default */
    if ((rc = npk_check_output(prog, src, output, given, "-o")) != 0 ||
        (map && (rc = npk_check_output(prog, src, map, 1, "--map")) != 0))
        goto out;
    if (map && strcmp(map, output) == 0) {
        rc = strcmp(map, "-") == 0
                 ? npk_usage_error(prog, "--map - and the output both name standard output")
                 : npk_usage_error(prog, "--map %s is also the output file", map);
        goto out;
    }
    rc = NPK_EXIT_INPUT;
    /* standard output carries one thing alone: the stream (-o -) or the map (--map -); the
     * summary then goes to standard error */
    if (strcmp(output, "-") == 0 || (map && strcmp(map, "-") == 0))
        info = stderr;
    if (strcmp(output, "-") == 0)
        f = stdout;
    else
        f = fopen(output, "w");
    if (!f) {
        fprintf(stderr, "%s: %s: cannot write: %s\n", prog, output, strerror(errno));
        goto out;
    }
    if (tt_write_stream(&net, &c, name, f, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", prog, err);
        goto out;
    }
    /* standard output is checked when main closes it */
    if (f != stdout && npk_close_output(f, output) != 0) {
        f = NULL;
        goto out;
    }
    f = NULL;
    fputs(note, info);
    if (net.steps)
        fprintf(info, "%s: %s -> %s (%s): %zu cycles (reset + host load %zu, %zu per step x "
                      "%u)%s\n", prog, name, output, tt_format_names[net.format], c.cycles,
                c.load_cycles, c.step_cycles, net.steps, net.eval ? " + evaluation pass" : "");
    else
        fprintf(info, "%s: %s -> %s (%s): %zu cycles (reset + host load %zu, inference: forward "
                      "passes %zu)\n", prog, name, output, tt_format_names[net.format], c.cycles,
                c.load_cycles, c.cycles - c.load_cycles);
    char settings[128];
    tt_run_settings(&net, settings, sizeof settings);
    fprintf(info, "run with: npukit run -t tinytpu:%s %s\n", settings, output);
    fprintf(info, "settings: lr=0x%04X (in no word, B6), 2/B=0x%04X, alpha=0x%04X; the stream "
                  "starts with a reset cycle (equivalent to power-on)%s\n", net.lr, c.inv,
            net.alpha, c.identity_bias ? "; last bias updated through the identity (rule 6)"
                                       : "");
    if (map && strcmp(map, "-") == 0) {
        tt_compiled_print_map(&net, &c, stdout); /* checked when main closes it */
    } else if (map) {
        FILE *mf = fopen(map, "w");
        if (!mf) {
            fprintf(stderr, "%s: %s: cannot write: %s\n", prog, map, strerror(errno));
            goto out;
        }
        tt_compiled_print_map(&net, &c, mf);
        if (npk_close_output(mf, map) != 0)
            goto out;
    } else {
        tt_compiled_print_map(&net, &c, info);
    }
    for (unsigned s = 0; s < net.steps && s < 8; s++)
        fprintf(info, "step %u: loss %.6f (Q8.8 model)\n", s + 1, c.loss[s]);
    if (net.steps > 8)
        fprintf(info, "step %u: loss %.6f (Q8.8 model)\n", net.steps, c.loss[net.steps - 1]);
    if (check) {
        long bad = tt_compiled_check(&net, &c, NULL, err, sizeof err);
        if (bad < 0) {
            fprintf(stderr, "%s: self-check: %s\n", prog, err);
            goto out;
        }
        if (bad > 0) {
            fprintf(stderr, "%s: self-check FAILED: %ld words differ; first: %s\n", prog, bad,
                    err);
            goto out;
        }
        fprintf(info, "self-check: %u words match the simulator (and wp = %u)\n", c.words,
                c.words);
    }
    rc = NPK_EXIT_OK;
out:
    if (f && f != stdout)
        fclose(f);
    free(def);
    free(text);
    tt_compiled_free(&c);
    tt_net_free(&net);
    return rc;
}
