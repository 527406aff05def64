/* npk_tinytpu_compile (include/npukit/tinytpu.h): the schedule compiler of compile.c behind
 * the public API, producing what `npukit compile -t tinytpu` writes (the stream, the settings
 * to run it with, the memory map) as strings. */
#define _POSIX_C_SOURCE 200809L
#include "npukit/tinytpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "targets/tinytpu/compile.h"

int tt_net_read(const char *path, tt_net *net, char *err, size_t err_size)
{
    uint8_t *src = NULL;
    size_t n;
    memset(net, 0, sizeof *net);
    if (npk_file_read(path, 0, &src, &n, err, err_size) != NPK_OK)
        return -1;
    int rc = tt_net_parse((const char *)src, path, net, err, err_size);
    free(src);
    return rc;
}

void npk_tinytpu_compiled_free(npk_tinytpu_compiled *c)
{
    if (!c)
        return;
    free(c->program);
    free(c->settings);
    free(c->map);
    free(c->loss);
    free(c->ub);
    memset(c, 0, sizeof *c);
}

npk_status npk_tinytpu_compile(const char *src, const char *name, const char *format,
                               npk_tinytpu_compiled *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    if (!src) {
        snprintf(err, err_size, "tinytpu compile: no description");
        return NPK_ERR_ARG;
    }
    if (!name)
        name = "<net>";
    tt_net net;
    tt_compiled c;
    memset(&c, 0, sizeof c);
    npk_status st = NPK_OK;
    char e[1024];
    if (tt_net_parse(src, name, &net, e, sizeof e)) {
        snprintf(err, err_size, "%s", e);
        tt_net_free(&net);
        return NPK_ERR_FORMAT;
    }
    if (format) {
        int f = tt_format_find(format);
        if (f < 0) {
            snprintf(err, err_size, "tinytpu compile: unknown format '%s' (asm, w88, w94, w130, "
                     "wfull, port)", format);
            tt_net_free(&net);
            return NPK_ERR_ARG;
        }
        net.format = (tt_format)f;
    }
    if (tt_compile(&net, &c, e, sizeof e)) {
        snprintf(err, err_size, "%s: %s", name, e);
        st = NPK_ERR_ARG;
        goto done;
    }
    FILE *f = open_memstream(&out->program, &out->program_size);
    if (!f) {
        st = NPK_ERR_NOMEM;
        goto done;
    }
    int bad = tt_write_stream(&net, &c, name, f, e, sizeof e);
    if (fclose(f) != 0 || bad) {
        snprintf(err, err_size, "%s: %s", name, bad ? e : "out of memory");
        st = bad ? NPK_ERR_ARG : NPK_ERR_NOMEM;
        goto done;
    }
    size_t map_size;
    f = open_memstream(&out->map, &map_size);
    if (!f) {
        st = NPK_ERR_NOMEM;
        goto done;
    }
    tt_compiled_print_map(&net, &c, f);
    char settings[128];
    tt_run_settings(&net, settings, sizeof settings);
    out->settings = strdup(settings);
    out->loss = malloc((net.steps ? net.steps : 1) * sizeof *out->loss);
    out->ub = malloc((c.words ? c.words : 1) * sizeof *out->ub);
    if (fclose(f) != 0 || !out->settings || !out->loss || !out->ub) {
        st = NPK_ERR_NOMEM;
        goto done;
    }
    memcpy(out->loss, c.loss, net.steps * sizeof *out->loss);
    if (c.words)
        memcpy(out->ub, c.pred, c.words * sizeof *out->ub);
    out->words = c.words;
    out->cycles = c.cycles;
    out->load_cycles = c.load_cycles;
    out->step_cycles = c.step_cycles;
    out->steps = net.steps;
    out->has_eval = net.eval;
    out->eval_loss = c.eval_loss;
done:
    if (st == NPK_ERR_NOMEM)
        snprintf(err, err_size, "%s: out of memory", name);
    if (st != NPK_OK)
        npk_tinytpu_compiled_free(out);
    tt_compiled_free(&c);
    tt_net_free(&net);
    return st;
}
