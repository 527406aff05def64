/* The target registry: a constant table built from src/targets/targets.def, so adding a target
 * is one line there. No state changes at run time. */
#include <string.h>
#include <strings.h>

#include "core/machine.h"

#define NPK_TARGET(sym) extern const npk_target sym;
#include "targets/targets.def"
#undef NPK_TARGET

static const npk_target *const registry[] = {
#define NPK_TARGET(sym) &sym,
#include "targets/targets.def"
#undef NPK_TARGET
};

#define N_TARGETS (sizeof registry / sizeof registry[0])

size_t npk_target_count(void)
{
    return N_TARGETS;
}

const char *npk_target_name(size_t i)
{
    return i < N_TARGETS ? registry[i]->name : NULL;
}

const char *npk_target_summary(size_t i)
{
    return i < N_TARGETS ? registry[i]->summary : NULL;
}

const npk_target *npk_target_find(const char *name)
{
    for (size_t i = 0; i < N_TARGETS; i++)
        if (strcasecmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

const char *npk_target_config_help(const char *target)
{
    const npk_target *t = target ? npk_target_find(target) : NULL;
    return t ? t->config_help : NULL;
}
