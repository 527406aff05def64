/* `npukit info`: the targets npukit knows, or one target's configuration, memories,
 * registers, units and instruction set. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/machine.h"

static void help(void)
{
    printf("usage: npukit info [-t TARGET[:CONFIG]] [--config KEY=VAL,...]\n"
           "       npukit info --list commands|targets|settings|memories [-t TARGET]\n"
           "\n"
           "Without a target: list the targets. With one: show its settings and their legal\n"
           "values, the effective configuration, its memories (for --load/--dump), its\n"
           "registers, functional units and mnemonics.\n"
           "\n"
           "options:\n"
           "  -t, --target NAME[:CONFIG]  the target to describe\n"
           "      --config KEY=VAL,...    settings to apply first\n"
           "      --list commands|targets|settings|memories\n"
           "                              print names one per line, for scripts and the shell\n"
           "                              completion: the commands, the targets, or the\n"
           "                              settings (presets, then KEY=) or the memories of\n"
           "                              the target given with -t\n"
           "  -h, --help                  this help\n"
           "\n"
           "exit status: 0 success, 2 usage error (unknown target, bad configuration)\n");
}

enum { O_TARGET = 1, O_CONFIG, O_LIST, O_HELP };

static const npk_opt_def defs[] = {
    {O_TARGET, 't', "target", OPT_VALUE},
    {O_CONFIG, 0, "config", OPT_VALUE},
    {O_LIST, 0, "list", OPT_VALUE},
    {O_HELP, 'h', "help", OPT_FLAG},
    {0, 0, NULL, OPT_FLAG},
};

/* --list WHAT: bare names, one per line. */
static int list(const char *prog, const char *what, const char *target, const char *config)
{
    if (strcmp(what, "commands") == 0 || strcmp(what, "targets") == 0) {
        if (target || config)
            return npk_usage_error(prog, "--list %s takes no target or settings", what);
        for (size_t i = 0; what[0] == 'c' ? npk_cli_command(i) != NULL : i < npk_target_count();
             i++)
            printf("%s\n", what[0] == 'c' ? npk_cli_command(i) : npk_target_name(i));
        return NPK_EXIT_OK;
    }
    int settings = strcmp(what, "settings") == 0;
    if (!settings && strcmp(what, "memories") != 0)
        return npk_usage_error(prog, "--list %s: expected commands, targets, settings or "
                                     "memories", what);
    if (!target)
        return npk_usage_error(prog, "--list %s needs a target: give -t NAME", what);
    char err[1024];
    if (settings) {
        /* the keys do not depend on the settings given: the target's name is enough */
        char name[64], *names;
        size_t len = strcspn(target, ":");
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1),
                 target);
        if (npk_target_setting_names(name, &names, err, sizeof err) != NPK_OK) {
            fprintf(stderr, "%s: %s\n", prog, err);
            return NPK_EXIT_USAGE;
        }
        fputs(names, stdout);
        free(names);
        return NPK_EXIT_OK;
    }
    npk_machine *m;
    if (npk_create(&m, target, config, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return NPK_EXIT_USAGE;
    }
    for (size_t i = 0; i < npk_space_count(m); i++)
        printf("%s\n", npk_space(m, i)->name);
    npk_destroy(m);
    return NPK_EXIT_OK;
}

int npk_cmd_info(int argc, char **argv)
{
    const char *prog = "npukit info", *target = NULL, *config = NULL, *what = NULL, *v;
    int id;
    npk_opt_state os = {argc, argv, 1, prog, 0};
    while ((id = npk_opt_next(&os, defs, &v)) != -1) {
        switch (id) {
        case -2: return NPK_EXIT_USAGE;
        case 0:
            if (target)
                return npk_usage_error(prog, "unexpected argument '%s'", v);
            target = v;
            break;
        case O_TARGET: target = v; break;
        case O_CONFIG: config = v; break;
        case O_LIST: what = v; break;
        case O_HELP: help(); return NPK_EXIT_OK;
        }
    }
    if (what)
        return list(prog, what, target, config);
    if (!target) {
        printf("npukit " NPK_VERSION_STRING " targets:\n");
        for (size_t i = 0; i < npk_target_count(); i++)
            printf("  %-10s %s\n", npk_target_name(i), npk_target_summary(i));
        printf("\n'npukit info -t NAME' describes one target.\n");
        return NPK_EXIT_OK;
    }
    npk_machine *m;
    char err[1024];
    npk_status st = npk_create(&m, target, config, err, sizeof err);
    if (st != NPK_OK) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return NPK_EXIT_USAGE;
    }
    const char *name = npk_target_of(m);
    for (size_t i = 0; i < npk_target_count(); i++)
        if (strcmp(npk_target_name(i), name) == 0)
            printf("%s: %s\n", name, npk_target_summary(i));
    printf("\nsettings (--config or -t %s:KEY=VAL,...):\n%s", name,
           npk_target_config_help(name) ? npk_target_config_help(name) : "  (none)\n");
    printf("\neffective configuration: %s\n", npk_config_string(m));
    char insn[256];
    npk_insn_describe(m, insn, sizeof insn);
    printf("instruction word: %s\n", insn);
    printf("\nmemories (for --load/--dump SPACE:ADDR:...):\n");
    for (size_t i = 0; i < npk_space_count(m); i++) {
        const npk_space_info *s = npk_space(m, i);
        printf("  %-10s %10llu bytes  %s\n", s->name, (unsigned long long)s->size, s->summary);
    }
    /* NAME:BITS, read-only ones marked; rows of whole entries up to 96 columns */
    printf("\nregisters (NAME:BITS, * read-only; docs/state.md):");
    size_t col = 96;
    for (size_t i = 0; i < npk_reg_count(m); i++) {
        const npk_reg_info *r = npk_reg(m, i);
        char e[160];
        int len = snprintf(e, sizeof e, "%s:%u%s", r->name, r->bits,
                           r->flags & NPK_REG_READONLY ? "*" : "");
        if (col + 1 + (size_t)len > 96) {
            printf("\n ");
            col = 1;
        }
        printf(" %s", e);
        col += 1 + (size_t)len;
    }
    npk_stats stats;
    npk_stats_get(m, &stats);
    printf("\n\nunits:");
    for (size_t i = 0; i < stats.n_units; i++)
        printf(" %s", stats.unit[i]);
    printf("\n\ninstructions (%zu):", stats.n_mnemonics);
    for (size_t i = 0; i < stats.n_mnemonics; i++)
        printf("%s%s", i % 10 ? " " : "\n  ", stats.mnemonic[i]);
    printf("\n");
    npk_destroy(m);
    return NPK_EXIT_OK;
}
