/* The table of lowerings (lower.h): each target's entry is defined in its
 * src/targets/<t>/lower.c and listed here once. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/lower.h"

extern const npk_lower_target npk_lower_pccx;
extern const npk_lower_target npk_lower_rvnpu;
extern const npk_lower_target npk_lower_tinytpu; /* src/targets/tinytpu/lower.c */
extern const npk_lower_target npk_lower_opennpu;

/* One line per target with a lowering. */
static const npk_lower_target *const targets[] = {
    &npk_lower_pccx,
    &npk_lower_rvnpu,
    &npk_lower_tinytpu,
    &npk_lower_opennpu,
    NULL,
};

size_t npk_lower_count(void)
{
    size_t n = 0;
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        n += targets[i] != NULL;
    return n;
}

const npk_lower_target *npk_lower_get(size_t i)
{
    for (size_t k = 0; k < sizeof targets / sizeof targets[0]; k++)
        if (targets[k] && i-- == 0)
            return targets[k];
    return NULL;
}

const npk_lower_target *npk_lower_find(const char *name)
{
    for (size_t k = 0; k < sizeof targets / sizeof targets[0]; k++)
        if (targets[k] && strcmp(targets[k]->name, name) == 0)
            return targets[k];
    return NULL;
}

int npk_lower_parse(const char *spec, const npk_lower_target **t, char *name, size_t name_size,
                    const char **settings, char *err, size_t err_size)
{
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    if (len >= name_size)
        len = name_size - 1;
    memcpy(name, spec, len);
    name[len] = 0;
    *settings = colon ? colon + 1 : "";
    *t = NULL;
    if (strcmp(name, "host") == 0)
        return 0;
    *t = npk_lower_find(name);
    if (*t)
        return 0;
    char list[256] = "host";
    for (size_t i = 0; i < npk_lower_count(); i++) {
        strncat(list, ", ", sizeof list - strlen(list) - 1);
        strncat(list, npk_lower_get(i)->name, sizeof list - strlen(list) - 1);
    }
    snprintf(err, err_size, "no lowering for target '%s' (targets: %s)", name, list);
    return -1;
}

int npk_lower_fail(char *err, size_t err_size, const npk_plan *p, size_t layer, const char *fmt,
                   ...)
{
    if (!err || !err_size)
        return -1;
    size_t n = 0;
    if (p && layer < p->n_layers) {
        const npk_layer *l = &p->layers[layer];
        int k = snprintf(err, err_size, "layer %zu (node %d '%s', %s): ", layer, l->node,
                         l->name ? l->name : "", l->op ? l->op : "?");
        n = k < 0 ? 0 : (size_t)k < err_size ? (size_t)k : err_size - 1;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, err_size - n, fmt, ap);
    va_end(ap);
    return -1;
}

int npk_lower_chain_only(const npk_plan *p, const char *target, const char *why, char *err,
                         size_t err_size)
{
    for (size_t i = 0; p && i < p->n_layers; i++) {
        const npk_layer *l = &p->layers[i];
        if (l->kind > NPK_LAYER_ACT)
            return npk_lower_fail(err, err_size, p, i, "%s lowers chains of dense, conv, pool, "
                                  "softmax and activation layers; a %s layer (of a sequence "
                                  "model: normalisation, attention, residual) is not lowered "
                                  "to it (%s)", target, npk_layer_kind_name(l->kind), why);
        if (l->kind == NPK_LAYER_DENSE && l->rows > 1)
            return npk_lower_fail(err, err_size, p, i, "%s lowers dense layers on one vector; "
                                  "this one applies to each of %d rows of a sequence (%s)",
                                  target, l->rows, why);
        if (l->in != (int)i || l->out != (int)i + 1)
            return npk_lower_fail(err, err_size, p, i, "%s lowers a chain of layers (each "
                                  "reading the one before); this layer reads tensor %d and "
                                  "writes %d", target, l->in, l->out);
    }
    return 0;
}
