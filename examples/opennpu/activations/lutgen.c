/* onpu-lutgen: write a 256-byte opennpu LUT image (spec §5.5) for a named activation function.
 * The table computation is act_lut.c (shared with the kernel tests). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "act_lut.h"

static int isatty_stdout(void)
{
    return isatty(STDOUT_FILENO);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: onpu-lutgen [options] FUNCTION\n"
            "\n"
            "Write the 256-byte lookup table of FUNCTION for the opennpu vlut banks: entry i is\n"
            "the output for the input byte i (what vlut indexes). Load it into data memory and\n"
            "copy it into a bank with ld.vr + vsetlut (8 segments of 32 bytes at K = 8), or\n"
            "directly with 'npukit run --load luta:0:FILE'.\n"
            "\n"
            "  entry i = saturate(round(f(x_i) * 2^OUT_FRAC))\n"
            "  x_i     = (int8)i / 2^IN_FRAC, or i / 2^IN_FRAC with --in-unsigned (i = 0 means 256)\n"
            "  round   = to nearest, ties away from zero; saturate to [-128, 127] or, with\n"
            "            --out-unsigned, [0, 255]\n"
            "\n"
            "functions (default formats; SQm.n signed, UQm.n unsigned, n fraction bits):\n");
    for (unsigned i = 0; i < ACT_LUT_COUNT; i++)
        fprintf(f, "  %-9s %s\n", act_lut_name((act_lut_fn)i), act_lut_summary((act_lut_fn)i));
    fprintf(f,
            "\n"
            "options:\n"
            "  -o, --output FILE     write the table to FILE ('-': standard output, the default\n"
            "                        when standard output is not a terminal)\n"
            "  -f, --format bin|hex|c|text\n"
            "                        bin: 256 raw bytes (default); hex: one entry per line as 2\n"
            "                        hex digits; c: a C initializer; text: index, input,\n"
            "                        entry, output value and exact value per line\n"
            "      --in-frac N       input fraction bits, 0..7\n"
            "      --out-frac N      output fraction bits, 0..16\n"
            "      --in-signed, --in-unsigned, --out-signed, --out-unsigned\n"
            "                        override the default signedness\n"
            "  -h, --help            this help\n"
            "\n"
            "exit status: 0 success, 1 the output could not be written, 2 bad usage\n");
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "onpu-lutgen: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'onpu-lutgen --help'.\n");
    return 2;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

int main(int argc, char **argv)
{
    const char *output = NULL, *format = "bin", *fname = NULL;
    int in_frac = -1, out_frac = -1, in_uns = -1, out_uns = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--in-signed") == 0) { in_uns = 0; continue; }
        if (strcmp(a, "--in-unsigned") == 0) { in_uns = 1; continue; }
        if (strcmp(a, "--out-signed") == 0) { out_uns = 0; continue; }
        if (strcmp(a, "--out-unsigned") == 0) { out_uns = 1; continue; }
        const char *opts[] = {"-o", "--output", "-f", "--format", "--in-frac", "--out-frac"};
        int which = -1;
        for (int k = 0; k < 6; k++) {
            size_t n = strlen(opts[k]);
            if (strcmp(a, opts[k]) == 0) {
                if (i + 1 >= argc)
                    return bad_usage("option %s needs a value", a);
                val = argv[++i];
                which = k / 2;
                break;
            }
            if (k % 2 == 1 && strncmp(a, opts[k], n) == 0 && a[n] == '=') {
                val = a + n + 1;
                which = k / 2;
                break;
            }
        }
        if (which == 0) {
            output = val;
        } else if (which == 1) {
            format = val;
        } else if (which == 2) {
            int *dst = strncmp(a, "--in", 4) == 0 ? &in_frac : &out_frac;
            int hi = dst == &in_frac ? 7 : 16;
            if (parse_int(val, 0, hi, dst) != 0)
                return bad_usage(dst == &in_frac ? "bad --in-frac '%s' (legal: 0..7)"
                                                 : "bad --out-frac '%s' (legal: 0..16)",
                                 val);
        } else if (a[0] == '-' && a[1] != '\0') {
            return bad_usage("unknown option '%s'", a);
        } else if (fname) {
            return bad_usage("more than one function given ('%s')", a);
        } else {
            fname = a;
        }
    }
    if (!fname)
        return bad_usage("%sno function given", "");
    act_lut_fn fn;
    if (act_lut_find(fname, &fn) != 0)
        return bad_usage("unknown function '%s' (see --help for the list)", fname);
    int fmt_id;
    if (strcmp(format, "bin") == 0)
        fmt_id = 0;
    else if (strcmp(format, "hex") == 0)
        fmt_id = 1;
    else if (strcmp(format, "c") == 0)
        fmt_id = 2;
    else if (strcmp(format, "text") == 0)
        fmt_id = 3;
    else
        return bad_usage("unknown format '%s' (bin, hex, c, text)", format);

    act_lut_format f = act_lut_default_format(fn);
    if (in_frac >= 0)
        f.in_frac = in_frac;
    if (out_frac >= 0)
        f.out_frac = out_frac;
    if (in_uns >= 0)
        f.in_unsigned = in_uns;
    if (out_uns >= 0)
        f.out_unsigned = out_uns;
    uint8_t t[256];
    if (act_lut_build(fn, &f, t) != 0)
        return bad_usage("function '%s' needs --in-unsigned (1/x of a signed byte would "
                         "divide by zero)",
                         fname);

    FILE *out = stdout;
    if (!output) {
        output = "-";
        if (fmt_id == 0 && isatty_stdout())
            return bad_usage("%sno output file given and standard output is a terminal "
                             "(use -o FILE or -o -)",
                             "");
    }
    if (strcmp(output, "-") != 0) {
        out = fopen(output, fmt_id == 0 ? "wb" : "w");
        if (!out) {
            fprintf(stderr, "onpu-lutgen: cannot open %s: %s\n", output, strerror(errno));
            return 1;
        }
    }
    if (fmt_id == 0) {
        fwrite(t, 1, sizeof t, out);
    } else if (fmt_id == 1) {
        for (unsigned i = 0; i < 256; i++)
            fprintf(out, "%02x\n", t[i]);
    } else if (fmt_id == 2) {
        fprintf(out, "/* onpu-lutgen %s: in %s%d fraction bits, out %s%d fraction bits */\n",
                fname, f.in_unsigned ? "unsigned, " : "signed, ", f.in_frac,
                f.out_unsigned ? "unsigned, " : "signed, ", f.out_frac);
        for (unsigned i = 0; i < 256; i++)
            fprintf(out, "0x%02x,%s", t[i], i % 16 == 15 ? "\n" : " ");
    } else {
        fprintf(out, "# index  input  entry  output  exact  (%s)\n", fname);
        for (unsigned i = 0; i < 256; i++) {
            double x = act_lut_input(&f, i);
            int e = f.out_unsigned ? t[i] : (int)(int8_t)t[i];
            fprintf(out, "%3u %+.6f %4d %+.6f %+.6f\n", i, x, e, e / (double)(1 << f.out_frac),
                    act_lut_eval(fn, x));
        }
    }
    int bad = ferror(out);
    if (out != stdout)
        bad |= fclose(out) != 0;
    else
        bad |= fflush(out) != 0;
    if (bad) {
        fprintf(stderr, "onpu-lutgen: error writing %s\n", output);
        return 1;
    }
    return 0;
}
