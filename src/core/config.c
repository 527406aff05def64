/* Configuration strings: "key=value" lists with typed, range-checked lookup. Every rejection
 * names the target, the key, the value and what would have been legal. */
#define _POSIX_C_SOURCE 200809L
#include "core/config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/target.h"

static char *dup_range(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static npk_status add_item(npk_config *c, const char *key, const char *value, char *err,
                           size_t err_size)
{
    for (size_t i = 0; i < c->n; i++) {
        if (strcasecmp(c->items[i].key, key) == 0) {
            char *v = strdup(value);
            if (!v)
                return NPK_ERR_NOMEM;
            free(c->items[i].value);
            c->items[i].value = v;
            return NPK_OK;
        }
    }
    npk_config_item *items = realloc(c->items, (c->n + 1) * sizeof *items);
    if (!items)
        return NPK_ERR_NOMEM;
    c->items = items;
    char *k = strdup(key), *v = strdup(value);
    if (!k || !v) {
        free(k);
        free(v);
        if (err && err_size)
            snprintf(err, err_size, "out of memory");
        return NPK_ERR_NOMEM;
    }
    c->items[c->n++] = (npk_config_item){k, v, 0};
    return NPK_OK;
}

static npk_status parse_list(npk_config *c, const char *s, char *err, size_t err_size)
{
    if (!s)
        return NPK_OK;
    while (*s) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        char *tok = dup_range(s, len);
        if (!tok)
            return NPK_ERR_NOMEM;
        char *t = trim(tok);
        npk_status st = NPK_OK;
        if (*t) {
            char *eq = strchr(t, '=');
            if (eq) {
                *eq = '\0';
                char *k = trim(t), *v = trim(eq + 1);
                if (!*k || !*v) {
                    if (err && err_size)
                        snprintf(err, err_size, "malformed setting '%.*s': expected key=value",
                                 (int)len, s);
                    st = NPK_ERR_ARG;
                } else {
                    st = add_item(c, k, v, err, err_size);
                }
            } else {
                st = add_item(c, "preset", t, err, err_size);
            }
        }
        free(tok);
        if (st != NPK_OK)
            return st;
        s += len;
        if (*s == ',')
            s++;
    }
    return NPK_OK;
}

npk_status npk_config_parse(npk_config *c, const char *a, const char *b, char *err,
                            size_t err_size)
{
    memset(c, 0, sizeof *c);
    npk_status st = parse_list(c, a, err, err_size);
    if (st == NPK_OK)
        st = parse_list(c, b, err, err_size);
    if (st != NPK_OK)
        npk_config_free(c);
    return st;
}

void npk_config_free(npk_config *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->items[i].key);
        free(c->items[i].value);
    }
    free(c->items);
    c->items = NULL;
    c->n = 0;
    for (size_t i = 0; i < c->n_taken; i++)
        free(c->taken[i]);
    free(c->taken);
    c->taken = NULL;
    c->n_taken = 0;
}

static void record_key(npk_config *c, const char *key)
{
    for (size_t i = 0; i < c->n_taken; i++)
        if (strcasecmp(c->taken[i], key) == 0)
            return;
    char **t = realloc(c->taken, (c->n_taken + 1) * sizeof *t);
    char *k = t ? strdup(key) : NULL;
    if (t)
        c->taken = t;
    if (!k) {
        c->record_failed = 1;
        return;
    }
    c->taken[c->n_taken++] = k;
}

const char *npk_config_take(npk_config *c, const char *key)
{
    if (c->record)
        record_key(c, key);
    for (size_t i = 0; i < c->n; i++) {
        if (strcasecmp(c->items[i].key, key) == 0) {
            c->items[i].used = 1;
            return c->items[i].value;
        }
    }
    return NULL;
}

int npk_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s)
        return -1;
    unsigned base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    } else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
        base = 2;
        s += 2;
    }
    if (!*s)
        return -1;
    uint64_t v = 0;
    int digits = 0, overflow = 0; /* keep scanning an overflowing number: malformed wins */
    for (; *s; s++) {
        int d;
        if (*s >= '0' && *s <= '9')
            d = *s - '0';
        else if (base == 16 && isxdigit((unsigned char)*s))
            d = tolower((unsigned char)*s) - 'a' + 10;
        else
            break;
        if ((unsigned)d >= base)
            return -1;
        if (v > (UINT64_MAX - (uint64_t)d) / base)
            overflow = 1;
        else
            v = v * base + (uint64_t)d;
        digits++;
    }
    if (!digits)
        return -1;
    unsigned shift = 0;
    if (*s) {
        switch (toupper((unsigned char)*s)) {
        case 'K': shift = 10; break;
        case 'M': shift = 20; break;
        case 'G': shift = 30; break;
        case 'T': shift = 40; break;
        default: return -1;
        }
        s++;
        if (*s == 'i' || *s == 'I')
            s++;
        if ((*s == 'b' || *s == 'B'))
            s++;
        if (*s)
            return -1;
        if (v > (UINT64_MAX >> shift))
            overflow = 1;
        v <<= shift;
    }
    if (overflow)
        return -2;
    *out = v;
    return 0;
}

const char *npk_parse_u64_problem(int rc)
{
    return rc == -2 ? "is too large (more than 18446744073709551615)" : "is not a number";
}

npk_status npk_config_u64(npk_machine *m, npk_config *c, const char *target, const char *key,
                          uint64_t def, uint64_t min, uint64_t max, uint64_t *out)
{
    const char *v = npk_config_take(c, key);
    if (!v) {
        *out = def;
        return NPK_OK;
    }
    uint64_t x;
    if (npk_parse_u64(v, &x) != 0)
        return npk_fail(m, NPK_ERR_ARG, "%s: %s=%s is not a number (legal: %llu .. %llu)",
                        target, key, v, (unsigned long long)min, (unsigned long long)max);
    if (x < min || x > max)
        return npk_fail(m, NPK_ERR_ARG, "%s: %s=%s is out of range (legal: %llu .. %llu)",
                        target, key, v, (unsigned long long)min, (unsigned long long)max);
    *out = x;
    return NPK_OK;
}

/* "2 GiB" for a whole number of binary units, else "2049-byte" / "32768-word". */
static void size_name(char *buf, size_t n, uint64_t v, const char *unit)
{
    static const char *const bin[] = {"TiB", "GiB", "MiB", "KiB"};
    if (strcmp(unit, "bytes") == 0) {
        for (int i = 0; i < 4; i++) {
            unsigned shift = 40 - 10 * (unsigned)i;
            if (v >= (UINT64_C(1) << shift) && v % (UINT64_C(1) << shift) == 0) {
                snprintf(buf, n, "%llu %s", (unsigned long long)(v >> shift), bin[i]);
                return;
            }
        }
        snprintf(buf, n, "%llu-byte", (unsigned long long)v);
        return;
    }
    size_t len = strlen(unit); /* singular, as in "32768-word" */
    snprintf(buf, n, "%llu-%.*s", (unsigned long long)v, (int)(len > 1 ? len - 1 : len), unit);
}

npk_status npk_config_size(npk_machine *m, npk_config *c, const char *target, const char *key,
                           uint64_t def, uint64_t min, uint64_t max, const char *unit,
                           uint64_t *out)
{
    const char *v = npk_config_take(c, key);
    if (!v) {
        *out = def;
        return NPK_OK;
    }
    uint64_t x = 0;
    int rc = npk_parse_u64(v, &x);
    char lim[48];
    size_name(lim, sizeof lim, max, unit);
    if (rc == -2)
        return npk_fail(m, NPK_ERR_ARG,
                        "%s: %s=%s (more than %llu %s) is larger than the %s maximum", target,
                        key, v, (unsigned long long)UINT64_MAX, unit, lim);
    if (rc == 0 && x > max)
        return npk_fail(m, NPK_ERR_ARG, "%s: %s=%s (%llu %s) is larger than the %s maximum",
                        target, key, v, (unsigned long long)x, unit, lim);
    /* malformed or too small: the general message, with the legal range */
    return npk_config_u64(m, c, target, key, def, min, max, out);
}

npk_status npk_config_check_unused(npk_machine *m, const npk_config *c, const char *target,
                                   const char *legal)
{
    for (size_t i = 0; i < c->n; i++) {
        if (c->items[i].used)
            continue;
        if (strcmp(c->items[i].key, "preset") == 0)
            return npk_fail(m, NPK_ERR_ARG, "%s: unknown preset or setting '%s' (legal: %s)",
                            target, c->items[i].value, legal);
        return npk_fail(m, NPK_ERR_ARG, "%s: unknown setting '%s' (legal: %s)", target,
                        c->items[i].key, legal);
    }
    return NPK_OK;
}
