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
           "(as written by 'npukit asm'; - for standard input), or an ELF executable. An ELF\n"
           "with section headers shows its code sections (SHF_EXECINSTR) at their addresses,\n"
           "with a line 'ADDRESS <name>:' before the word at each symbol's address; one\n"
           "without them shows its code segments (PF_X).\n"
           "\n"
           "options:\n"
           "  -t, --target NAME[:CONFIG]  target (required for raw images; an ELF names it)\n"
           "      --config KEY=VAL,...    target settings (see 'npukit info -t NAME')\n"
           "      --base ADDR             address of the first word of a raw image (default 0);\n"
           "                              the image must end inside the target's address\n"
           "                              space (32-bit for toy, rvnpu and opennpu)\n"
           "  -D, --all-sections          ELF: every allocated section with contents (data\n"
           "                              too; every loadable segment without sections)\n"
           "  -s, --source                print only the instruction text (no addresses,\n"
           "                              words, headings or labels), so the output of a raw\n"
           "                              image assembles back to the same image\n"
           "  -o, --output FILE           write to FILE instead of standard output\n"
           "      --lanes N               the setting lanes=N (tinytpu: array size N)\n"
           "      --lr V                  the setting lr=V (tinytpu: learning rate before\n"
           "                              cycle 1, Q8.8: 0x00C0 or 0.75)\n"
           "      --format F              the setting format=F (tinytpu: how the file is\n"
           "                              written; default: its header or shape)\n"
           "  -h, --help                  this help\n"
           "\n"
           "Default lines are 'ADDRESS:  WORD  TEXT' (hex address and word). Words that are\n"
           "not legal instructions print as '.word 0x...' with the reason in a comment.\n"
           "A raw image whose size is not a whole number of words is an error, except for\n"
           "rvnpu, which loads it padded with zero bytes: its last bytes show as '.byte'.\n"
           "ELF e_flags that rvnpu cannot honour (compressed instructions, a double-float\n"
           "ABI) are warned about on standard error.\n"
           "\n"
           "exit status: 0 success, 1 unreadable or malformed image or an output that cannot\n"
           "be written, 2 usage error (including -o naming IMAGE itself)\n");
}

enum { O_TARGET = 1, O_CONFIG, O_BASE, O_SOURCE, O_ALL, O_OUTPUT, O_HELP, O_LANES, O_LR,
       O_FORMAT };

/* A stretch of bytes to disassemble: an ELF section or segment, or the raw image. */
typedef struct region {
    const char *kind, *name;
    uint64_t addr;
    const uint8_t *bytes;
    size_t size;
    unsigned index; /* ELF section index (0: not a section) */
} region;

/* Labels by section, then address; at one address global symbols before local ones, then in
 * symbol-table order (the pointers are into one array). */
static int label_order(const void *pa, const void *pb)
{
    const npk_elf_symbol *a = *(const npk_elf_symbol *const *)pa,
                         *b = *(const npk_elf_symbol *const *)pb;
    if (a->section != b->section)
        return a->section < b->section ? -1 : 1;
    if (a->value != b->value)
        return a->value < b->value ? -1 : 1;
    if (a->local != b->local)
        return a->local - b->local;
    return a < b ? -1 : a > b;
}

/* "ADDRESS <name>:" for each label of section `index` in [lo, hi), starting at labels[i];
 * returns the index of the first label not printed. */
static size_t print_labels(FILE *f, const npk_elf_symbol *const *labels, size_t n, size_t i,
                           unsigned index, uint64_t lo, uint64_t hi)
{
    for (; i < n && labels[i]->section == index && labels[i]->value < hi; i++)
        if (labels[i]->value >= lo)
            fprintf(f, "%8llx <%s>:\n", (unsigned long long)labels[i]->value, labels[i]->name);
    return i;
}

/* The library's ELF warnings, one "PROG: PATH: warning: ..." line each. */
static void print_warnings(const char *prog, const char *path, const char *text)
{
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(stderr, "%s: %s: warning: %.*s\n", prog, path, (int)len, p);
        p += len + (nl != NULL);
    }
}

static const npk_opt_def defs[] = {
    {O_TARGET, 't', "target", OPT_VALUE}, {O_CONFIG, 0, "config", OPT_VALUE},
    {O_BASE, 0, "base", OPT_VALUE},       {O_SOURCE, 's', "source", OPT_FLAG},
    {O_ALL, 'D', "all-sections", OPT_FLAG},
    {O_OUTPUT, 'o', "output", OPT_VALUE}, {O_HELP, 'h', "help", OPT_FLAG},
    {O_LANES, 0, "lanes", OPT_VALUE},     {O_LR, 0, "lr", OPT_VALUE},
    {O_FORMAT, 0, "format", OPT_VALUE},
    {0, 0, NULL, OPT_FLAG},
};

int npk_cmd_disasm(int argc, char **argv)
{
    const char *prog = "npukit disasm", *target = NULL, *config = NULL, *output = NULL,
               *path = NULL, *v;
    uint64_t base = 0;
    int source_only = 0, all = 0, id, num_rc;
    char settings[1024] = "", joined[4096];
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
            if ((num_rc = npk_parse_u64(v, &base)) != 0)
                return npk_usage_error(prog, "--base %s %s", v, npk_parse_u64_problem(num_rc));
            break;
        case O_SOURCE: source_only = 1; break;
        case O_ALL: all = 1; break;
        case O_OUTPUT: output = v; break;
        case O_HELP: help(); return NPK_EXIT_OK;
        case O_LANES:
        case O_LR:
        case O_FORMAT:
            if (npk_add_setting(prog, settings, sizeof settings,
                                id == O_LANES ? "--lanes" : id == O_LR ? "--lr" : "--format",
                                id == O_LANES ? "lanes" : id == O_LR ? "lr" : "format", v, 0))
                return NPK_EXIT_USAGE;
            break;
        }
    }
    if (!path)
        return npk_usage_error(prog, "no input file");
    config = npk_join_settings(joined, sizeof joined, config, settings);
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
    /* what to show: the whole raw image, or an ELF's code sections (its code segments when
     * it has no section headers) */
    npk_elf_segment seg[NPK_ELF_MAX_SEGMENTS];
    region reg[NPK_ELF_MAX_SEGMENTS];
    region *regs = reg;
    size_t n_reg = 0;
    npk_elf_section *sec = NULL;
    npk_elf_symbol *sym = NULL;
    size_t n_sec = 0, n_sym = 0;
    const npk_elf_symbol **labels = NULL;
    size_t n_labels = 0;
    int elf = size >= 4 && memcmp(data, "\x7f" "ELF", 4) == 0;
    if (elf) {
        uint64_t entry;
        size_t n_seg = 0;
        char warn[1024];
        if (npk_elf_segments(m, data, size, path, seg, NPK_ELF_MAX_SEGMENTS, &n_seg, &entry) !=
                NPK_OK ||
            npk_elf_sections(m, data, size, path, &sec, &n_sec, &sym, &n_sym) != NPK_OK ||
            npk_elf_warnings(m, data, size, path, warn, sizeof warn) != NPK_OK) {
            fprintf(stderr, "%s: %s\n", prog, npk_error(m));
            rc = NPK_EXIT_INPUT;
        } else {
            print_warnings(prog, path, warn);
            if (n_sec)
                regs = malloc(n_sec * sizeof *regs);
            if (!regs || (n_sym && !(labels = malloc(n_sym * sizeof *labels)))) {
                fprintf(stderr, "%s: %s: out of memory\n", prog, path);
                rc = NPK_EXIT_INPUT;
            }
        }
        for (size_t k = 0; rc == NPK_EXIT_OK && k < n_sec; k++)
            if (sec[k].bytes && (all ? sec[k].alloc : sec[k].exec))
                regs[n_reg++] = (region){"section", sec[k].name, sec[k].addr, sec[k].bytes,
                                         (size_t)sec[k].size, sec[k].index};
        for (size_t k = 0; rc == NPK_EXIT_OK && !n_sec && k < n_seg; k++)
            if (seg[k].filesz && (all || seg[k].exec))
                regs[n_reg++] = (region){"segment", "", seg[k].vaddr, seg[k].bytes,
                                         seg[k].filesz, 0};
        /* labels: symbols defined in a section, by address (globals first), without the
         * psABI's mapping symbols ($x, $d) */
        for (size_t k = 0; rc == NPK_EXIT_OK && k < n_sym; k++)
            if (sym[k].section > 0 && sym[k].section < n_sec && sym[k].name[0] != '$')
                labels[n_labels++] = &sym[k];
        if (n_labels)
            qsort(labels, n_labels, sizeof *labels, label_order);
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
        reg[n_reg++] = (region){"image", "", base, data, size, 0};
        /* a target that loads such an image padded (rvnpu) shows its last bytes as .byte */
        if (size % wb && !npk_raw_pads(m)) {
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
    size_t next_label = 0;
    for (size_t k = 0; rc == NPK_EXIT_OK && k < n_reg; k++) {
        const region *r = &regs[k];
        if (elf && !source_only) {
            fprintf(f, "%s; %s%s%s at 0x%llx, %zu bytes\n", k ? "\n" : "", r->kind,
                    r->name[0] ? " " : "", r->name, (unsigned long long)r->addr, r->size);
        }
        /* the labels of this section, from its start */
        size_t lab = 0;
        while (lab < n_labels && (labels[lab]->section != r->index || !r->index ||
                                  labels[lab]->value < r->addr))
            lab++;
        next_label = lab;
        for (size_t i = 0; i < r->size; i += wb) {
            char text[256];
            uint64_t pc = r->addr + i;
            const uint8_t *w = r->bytes + i;
            size_t len = r->size - i < wb ? r->size - i : wb;
            if (!source_only)
                next_label = print_labels(f, labels, n_labels, next_label, r->index, pc,
                                          pc + len);
            if (len < wb) { /* a section, segment or padded image may end mid-word */
                if (!source_only)
                    fprintf(f, "%8llx:  ", (unsigned long long)pc);
                fprintf(f, ".byte");
                for (size_t b = 0; b < len; b++)
                    fprintf(f, "%s0x%02x", b ? ", " : " ", w[b]);
                fprintf(f, "\n");
                break;
            }
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
    }
    if (regs != reg)
        free(regs);
    free(labels);
    npk_free(sec);
    npk_free(sym);
    if (f != stdout && f && npk_close_output(f, output) != 0)
        rc = NPK_EXIT_INPUT;
    free(data);
    npk_destroy(m);
    return rc;
}
