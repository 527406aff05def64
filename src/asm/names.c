/* The name index: open addressing with linear probing over a power-of-two table kept at most
 * half full, so a probe sequence stays short and an assembly with a million labels stays
 * linear in time. */
#include <stdlib.h>
#include <string.h>

#include "asm/asm.h"

uint64_t npk_name_hash(const char *s, size_t len)
{
    /* FNV-1a, then a 64-bit finaliser: FNV alone leaves the low bits (the slot index) weak
     * for names that differ only in their last characters, such as l1, l2, l3 */
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3u;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    return h;
}

/* The slot holding the name, or the empty slot where it would go. */
static npk_name_slot *probe(const npk_name_index *x, const char *s, size_t len, uint64_t h)
{
    size_t mask = x->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        npk_name_slot *e = &x->slot[i];
        if (!e->name || (e->hash == h && e->len == len && memcmp(e->name, s, len) == 0))
            return e;
    }
}

bool npk_name_find(const npk_name_index *x, const char *s, size_t len, size_t *value)
{
    if (!x->n)
        return false;
    const npk_name_slot *e = probe(x, s, len, npk_name_hash(s, len));
    if (!e->name)
        return false;
    *value = e->value;
    return true;
}

static int grow(npk_name_index *x)
{
    size_t cap = x->cap ? x->cap * 2 : 64;
    if (cap < x->cap || cap > SIZE_MAX / sizeof(npk_name_slot))
        return -1;
    npk_name_slot *old = x->slot;
    size_t old_cap = x->cap;
    x->slot = calloc(cap, sizeof *x->slot);
    if (!x->slot) {
        x->slot = old;
        return -1;
    }
    x->cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].name)
            *probe(x, old[i].name, old[i].len, old[i].hash) = old[i];
    free(old);
    return 0;
}

int npk_name_put(npk_name_index *x, const char *s, size_t len, size_t value)
{
    /* grow first, so a full table never has to be probed for a free slot */
    if (2 * (x->n + 1) >= x->cap && grow(x) != 0)
        return -1;
    uint64_t h = npk_name_hash(s, len);
    npk_name_slot *e = probe(x, s, len, h);
    if (!e->name)
        x->n++;
    *e = (npk_name_slot){s, len, h, value};
    return 0;
}

void npk_name_clear(npk_name_index *x)
{
    if (x->slot)
        memset(x->slot, 0, x->cap * sizeof *x->slot);
    x->n = 0;
}

void npk_name_free(npk_name_index *x)
{
    free(x->slot);
    x->slot = NULL;
    x->cap = x->n = 0;
}
