/* Machine configuration strings ("K=8,L=32", "top,mem_size=64K"): parsing, typed lookup with
 * range checks, and detection of keys no target consumed. */
#ifndef NPK_CORE_CONFIG_H
#define NPK_CORE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "npukit/npukit.h"

typedef struct npk_config_item {
    char *key;    /* a bare word (no '=') is stored with key "preset" and value = the word */
    char *value;
    int used;
} npk_config_item;

typedef struct npk_config {
    npk_config_item *items;
    size_t n;
    /* When `record` is set, every key looked up (npk_config_take and the typed lookups built
     * on it) is remembered in `taken`, so the keys a target accepts can be listed by creating
     * it once (npk_target_setting_names); `record_failed` says a key was lost (no memory). */
    int record, record_failed;
    char **taken;
    size_t n_taken;
} npk_config;

/* Parse one or two comma-separated lists (either may be NULL or empty). A later setting of a
 * key overrides an earlier one. */
npk_status npk_config_parse(npk_config *c, const char *a, const char *b, char *err,
                            size_t err_size);
void npk_config_free(npk_config *c);

/* Value of `key` (case-insensitive), marking it used; NULL when absent. */
const char *npk_config_take(npk_config *c, const char *key);

/* Unsigned integer setting: decimal, 0x hex, 0b binary, optional K/M/G/T suffix (powers of
 * 1024). Absent -> `def`. Outside [min,max] or malformed -> NPK_ERR_ARG with a message naming
 * target, key, value and the legal range. */
npk_status npk_config_u64(npk_machine *m, npk_config *c, const char *target, const char *key,
                          uint64_t def, uint64_t min, uint64_t max, uint64_t *out);

/* A memory-size setting (`unit` is "bytes" or "words"): as npk_config_u64, except that a value
 * above `max` - including one too large for 64 bits - fails naming the setting, its size and
 * the maximum ("rvnpu: ram_size=1T (1099511627776 bytes) is larger than the 2 GiB maximum"),
 * so a target can refuse an absurd size before it allocates anything. */
npk_status npk_config_size(npk_machine *m, npk_config *c, const char *target, const char *key,
                           uint64_t def, uint64_t min, uint64_t max, const char *unit,
                           uint64_t *out);

/* Parse a size/number string as above (T, powers of 1024, too); returns 0 on success, -2 when
 * the number is well formed but does not fit 64 bits, -1 when it is malformed. */
int npk_parse_u64(const char *s, uint64_t *out);

/* What was wrong with a number npk_parse_u64 refused (its return value rc): "is too large (more
 * than 18446744073709551615)" for -2, else "is not a number"; for "'%s' %s" messages. */
const char *npk_parse_u64_problem(int rc);

/* Fail with a message if any key was not consumed; `legal` lists the accepted keys. */
npk_status npk_config_check_unused(npk_machine *m, const npk_config *c, const char *target,
                                   const char *legal);

#endif
