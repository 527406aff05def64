/* Breakpoints and watchpoints: the public calls that set them, and the checks a target's
 * observed loop makes per instruction (docs/breakpoints.md). Nothing here runs while none is
 * set: the target then takes its fast loop. */
#include "core/breakpoint.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/checked.h"
#include "core/machine.h"

/* ---- the set ------------------------------------------------------------------------------ */

/* obs.dbg on while anything is set: the observed loop runs and checks */
static void update(npk_machine *m)
{
    npk_dbg *d = &m->dbg;
    d->kinds = 0;
    for (size_t i = 0; i < d->n_w; i++)
        d->kinds |= d->w[i].kind;
    m->obs.dbg = d->n_bp || d->n_w ? d : NULL;
    npk_obs_update_active(&m->obs);
}

void npk_dbg_free(npk_dbg *d)
{
    free(d->bp);
    free(d->w);
    memset(d, 0, sizeof *d);
}

void npk_dbg_reset(npk_machine *m)
{
    npk_dbg *d = &m->dbg;
    d->armed = d->resume = d->pending = d->have_hit = 0;
}

void npk_dbg_run_begin(npk_machine *m)
{
    npk_dbg *d = &m->dbg;
    d->resume = d->armed;
    d->armed = 0;
    d->pending = 0;
    d->have_hit = 0;
}

void npk_dbg_run_end(npk_machine *m, const npk_stop *stop)
{
    npk_dbg *d = &m->dbg;
    d->resume = 0;
    d->pending = 0;
    if (stop->reason != NPK_STOP_BREAKPOINT)
        d->armed = 0;
}

/* Index of the first breakpoint >= pc. */
static size_t bp_find(const npk_dbg *d, uint64_t pc)
{
    size_t lo = 0, hi = d->n_bp;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->bp[mid] < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static unsigned addr_bits(const npk_machine *m)
{
    return m->target->addr_bits ? m->target->addr_bits : 64;
}

npk_status npk_break_add(npk_machine *m, uint64_t pc)
{
    const npk_target *t = m->target;
    m->error[0] = '\0';
    unsigned bits = addr_bits(m);
    if (bits < 64 && pc >> bits)
        return npk_fail(m, NPK_ERR_ARG, "%s: breakpoint at 0x%" PRIx64 ": outside the %u-bit "
                        "address space", t->name, pc, bits);
    if (t->insn_bytes > 1 && pc % t->insn_bytes)
        return npk_fail(m, NPK_ERR_ARG, "%s: breakpoint at 0x%" PRIx64 ": not a multiple of the "
                        "%u-byte instruction size", t->name, pc, t->insn_bytes);
    npk_dbg *d = &m->dbg;
    size_t i = bp_find(d, pc);
    if (i < d->n_bp && d->bp[i] == pc)
        return NPK_OK;
    if (d->n_bp == d->cap_bp) {
        size_t cap = d->cap_bp ? 2 * d->cap_bp : 16;
        uint64_t *nb = realloc(d->bp, cap * sizeof *nb);
        if (!nb)
            return npk_fail(m, NPK_ERR_NOMEM, "out of memory for breakpoints");
        d->bp = nb;
        d->cap_bp = cap;
    }
    memmove(d->bp + i + 1, d->bp + i, (d->n_bp - i) * sizeof *d->bp);
    d->bp[i] = pc;
    d->n_bp++;
    update(m);
    return NPK_OK;
}

npk_status npk_break_remove(npk_machine *m, uint64_t pc)
{
    npk_dbg *d = &m->dbg;
    m->error[0] = '\0';
    size_t i = bp_find(d, pc);
    if (i == d->n_bp || d->bp[i] != pc)
        return npk_fail(m, NPK_ERR_ARG, "%s: no breakpoint at 0x%" PRIx64, m->target->name, pc);
    memmove(d->bp + i, d->bp + i + 1, (d->n_bp - i - 1) * sizeof *d->bp);
    d->n_bp--;
    update(m);
    return NPK_OK;
}

void npk_break_clear(npk_machine *m)
{
    m->dbg.n_bp = 0;
    update(m);
}

/* The spaces a watch may name, for messages: "mem, rf, ... (or bus)". */
static void space_list(npk_machine *m, char *out, size_t n)
{
    size_t used = 0, k = npk_space_count(m);
    out[0] = '\0';
    for (size_t i = 0; i <= k && used < n; i++) {
        const char *name = i < k ? npk_space(m, i)->name : m->target->bus_space;
        if (!name)
            break;
        int w = snprintf(out + used, n - used, "%s%s", used ? ", " : "", name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static const char *space_name(npk_machine *m, size_t space)
{
    if (space == NPK_SPACE_BUS)
        return m->target->bus_space;
    const npk_space_info *si = npk_space(m, space);
    return si ? si->name : "?";
}

npk_status npk_watch_add(npk_machine *m, const char *space, uint64_t addr, uint64_t len,
                         unsigned kind, unsigned *id)
{
    const npk_target *t = m->target;
    m->error[0] = '\0';
    if (id)
        *id = 0;
    if (!kind || (kind & ~(NPK_WATCH_READ | NPK_WATCH_WRITE)))
        return npk_fail(m, NPK_ERR_ARG, "%s: watch kind %u: expected NPK_WATCH_READ, "
                        "NPK_WATCH_WRITE or both", t->name, kind);
    if (!space) {
        space = t->symbol_space;
        if (!space)
            return npk_fail(m, NPK_ERR_ARG, "%s: watch without a space: this target's "
                            "symbols are not data addresses; name a space", t->name);
    }
    size_t idx = 0, k = npk_space_count(m);
    uint64_t size = 0;
    for (idx = 0; idx < k; idx++)
        if (strcasecmp(npk_space(m, idx)->name, space) == 0)
            break;
    if (idx < k) {
        size = npk_space(m, idx)->size;
    } else if (t->bus_space && strcasecmp(t->bus_space, space) == 0) {
        idx = NPK_SPACE_BUS;
        unsigned bits = addr_bits(m);
        size = bits < 64 ? UINT64_C(1) << bits : UINT64_MAX;
    } else {
        char list[256];
        space_list(m, list, sizeof list);
        return npk_fail(m, NPK_ERR_ARG, "%s: watch: no memory space '%s' (spaces: %s)", t->name,
                        space, list);
    }
    const char *name = space_name(m, idx);
    if (len == 0)
        return npk_fail(m, NPK_ERR_ARG, "%s: watch on %s at 0x%" PRIx64 ": zero length",
                        t->name, name, addr);
    if (!npk_range_ok(addr, len, size)) {
        char bounds[64] = "empty";
        if (size)
            snprintf(bounds, sizeof bounds, "0x0 .. 0x%" PRIx64, size - 1);
        return npk_fail(m, NPK_ERR_RANGE, "%s: watch of %" PRIu64 " bytes at 0x%" PRIx64
                        " is outside %s (%s)", t->name, len, addr, name, bounds);
    }
    npk_dbg *d = &m->dbg;
    if (d->n_w == d->cap_w) {
        size_t cap = d->cap_w ? 2 * d->cap_w : 8;
        npk_watch *nw = realloc(d->w, cap * sizeof *nw);
        if (!nw)
            return npk_fail(m, NPK_ERR_NOMEM, "out of memory for watches");
        d->w = nw;
        d->cap_w = cap;
    }
    d->w[d->n_w++] = (npk_watch){++d->next_id, kind, idx, addr, len};
    if (id)
        *id = d->next_id;
    update(m);
    return NPK_OK;
}

npk_status npk_watch_remove(npk_machine *m, unsigned id)
{
    npk_dbg *d = &m->dbg;
    m->error[0] = '\0';
    for (size_t i = 0; i < d->n_w; i++)
        if (d->w[i].id == id) {
            memmove(d->w + i, d->w + i + 1, (d->n_w - i - 1) * sizeof *d->w);
            d->n_w--;
            update(m);
            return NPK_OK;
        }
    return npk_fail(m, NPK_ERR_ARG, "%s: no watch %u", m->target->name, id);
}

void npk_watch_clear(npk_machine *m)
{
    m->dbg.n_w = 0;
    update(m);
}

npk_status npk_watch_last_hit(npk_machine *m, npk_watch_hit *hit)
{
    if (!m->dbg.have_hit)
        return npk_fail(m, NPK_ERR_STATE, "%s: the last run or step did not stop at a "
                        "watchpoint", m->target->name);
    *hit = m->dbg.hit;
    return NPK_OK;
}

/* ---- the checks of the observed loops -------------------------------------------------------- */

int npk_break_hit(npk_machine *m, uint64_t pc)
{
    npk_dbg *d = &m->dbg;
    if (d->resume) {
        d->resume = 0;
        if (pc == d->skip_pc)
            return 0;
    }
    if (!d->n_bp)
        return 0;
    size_t i = bp_find(d, pc);
    return i < d->n_bp && d->bp[i] == pc;
}

void npk_break_stop(npk_machine *m, npk_stop *stop, uint64_t pc, const char *where)
{
    npk_dbg *d = &m->dbg;
    if (where)
        npk_stop_set(stop, NPK_STOP_BREAKPOINT, pc, "breakpoint at %s", where);
    else
        npk_stop_set(stop, NPK_STOP_BREAKPOINT, pc, "breakpoint at 0x%" PRIx64, pc);
    d->armed = 1;
    d->skip_pc = pc;
}

int npk_watch_on(const npk_dbg *d, size_t space, unsigned kind)
{
    if (!d)
        return 0;
    for (size_t i = 0; i < d->n_w; i++)
        if (d->w[i].space == space && (d->w[i].kind & kind))
            return 1;
    return 0;
}

void npk_watch_access(npk_machine *m, size_t space, uint64_t addr, uint64_t n, unsigned kind,
                      const uint8_t *bytes)
{
    npk_dbg *d = &m->dbg;
    if (d->pending || !n)
        return;
    uint64_t end = n > UINT64_MAX - addr ? UINT64_MAX : addr + n;
    for (size_t i = 0; i < d->n_w; i++) {
        const npk_watch *w = &d->w[i];
        uint64_t wend = w->addr + w->len; /* inside its space: no wrap */
        if (w->space != space || !(w->kind & kind) || end <= w->addr || wend <= addr)
            continue;
        uint64_t lo = addr > w->addr ? addr : w->addr, hi = end < wend ? end : wend;
        npk_watch_hit *h = &d->hit;
        memset(h, 0, sizeof *h);
        h->id = w->id;
        h->kind = kind;
        h->space = space_name(m, space);
        h->addr = lo;
        h->size = hi - lo;
        h->access_addr = addr;
        h->access_size = n;
        d->value_known = bytes != NULL;
        if (bytes)
            for (uint64_t k = h->size < 8 ? h->size : 8; k-- > 0;)
                h->value = h->value << 8 | bytes[lo - addr + k];
        d->pending = 1;
        return;
    }
}

void npk_watch_drop(npk_machine *m)
{
    m->dbg.pending = 0;
}

/* The hit's bytes from its space (a space, never the bus: bus accesses carry their bytes). */
static void read_value(npk_machine *m, npk_watch_hit *h, size_t space)
{
    uint8_t b[8] = {0};
    size_t n = h->size < 8 ? (size_t)h->size : 8;
    npk_memspace *list;
    size_t k = m->target->spaces ? m->target->spaces(m->state, &list) : 0;
    if (space >= k)
        return;
    if (list[space].data)
        memcpy(b, list[space].data + h->addr, n);
    else if (!m->target->space_read ||
             m->target->space_read(m, m->state, space, h->addr, b, n) != NPK_OK)
        return;
    h->value = 0;
    for (size_t i = n; i-- > 0;)
        h->value = h->value << 8 | b[i];
}

int npk_watch_stop(npk_machine *m, npk_stop *stop, uint64_t pc, uint64_t next_pc,
                   const char *where)
{
    npk_dbg *d = &m->dbg;
    if (!d->pending)
        return 0;
    d->pending = 0;
    npk_watch_hit *h = &d->hit;
    h->pc = pc;
    if (!d->value_known) {
        for (size_t i = 0; i < d->n_w; i++)
            if (d->w[i].id == h->id) {
                read_value(m, h, d->w[i].space);
                break;
            }
    }
    d->have_hit = 1;
    const npk_watch *w = NULL;
    for (size_t i = 0; i < d->n_w; i++)
        if (d->w[i].id == h->id)
            w = &d->w[i];
    static const char *const kinds[4] = {"", "read", "write", "access"};
    char value[40];
    if (h->size <= 8)
        snprintf(value, sizeof value, " = 0x%0*" PRIx64, (int)(2 * h->size), h->value);
    else
        snprintf(value, sizeof value, ", first 8 = 0x%016" PRIx64, h->value);
    npk_stop_set(stop, NPK_STOP_WATCHPOINT, next_pc,
                 "watchpoint %u (%s %s:0x%" PRIx64 "+%" PRIu64 "): %s of %" PRIu64
                 " byte%s at %s:0x%" PRIx64 "%s by %s", h->id, kinds[w ? w->kind & 3 : 0],
                 h->space, w ? w->addr : 0, w ? w->len : 0, kinds[h->kind & 3], h->size,
                 h->size == 1 ? "" : "s", h->space, h->addr, value,
                 where ? where : "the instruction");
    return 1;
}
