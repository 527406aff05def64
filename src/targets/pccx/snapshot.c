/* pccx snapshots (docs/snapshot.md): the architectural state of spec §2 (E_MAX, the constant
 * cache, the weight queue with every tensor it can name, the window), the issue state (pc,
 * issued, the halted state and its error), the program with its window changes and the log of
 * issued words the observers drain, L2 and host DDR, and the whole timing model (timing.c:
 * every instruction record and the instructions in flight). */
#include <stdlib.h>
#include <string.h>

#include "core/snapshot.h"
#include "targets/pccx/machine.h"

#define NO_NAME 0xFFFFFFFFu

static void put_str(npk_snap_writer *w, const char *s)
{
    if (!s) {
        npk_snap_u32(w, NO_NAME);
        return;
    }
    size_t n = strlen(s);
    npk_snap_u32(w, (uint32_t)n);
    npk_snap_bytes(w, s, n);
}

npk_status pccx_snap_save(npk_machine *m, void *state, npk_snap_writer *w)
{
    pccx_t *c = state;
    (void)m;
    npk_snap_begin(w, "REGS");
    npk_snap_u64(w, c->pc);
    npk_snap_u32(w, c->emax);
    npk_snap_u64(w, c->window);
    npk_snap_u64(w, c->issued);
    npk_snap_u8(w, (uint8_t)(c->halted != 0));
    npk_snap_u32(w, (uint32_t)c->error.code);
    npk_snap_u64(w, c->error.index);
    npk_snap_u64(w, c->error.word);
    put_str(w, c->error.message);
    npk_snap_u32(w, c->reg_lo);
    npk_snap_u64(w, c->next_window);
    npk_snap_u64(w, c->emitted);
    npk_snap_u32(w, PCCX_N_MNEMONICS);
    for (size_t i = 0; i < PCCX_N_MNEMONICS; i++)
        npk_snap_u64(w, c->counts[i]);
    npk_snap_u64(w, c->macs);
    npk_snap_u64(w, c->weights);
    npk_snap_u64(w, c->exact_fallback);
    npk_snap_end(w);

    npk_snap_begin(w, "CC  ");
    for (unsigned b = 0; b < 2; b++)
        for (unsigned e = 0; e < PCCX_CC_ENTRIES; e++)
            for (unsigned k = 0; k < 3; k++)
                npk_snap_u32(w, c->cc[b][e][k]);
    npk_snap_end(w);

    npk_snap_begin(w, "WGHT");
    npk_snap_u64(w, c->n_tensors);
    for (size_t i = 0; i < c->n_tensors; i++) {
        const pccx_tensor *t = &c->tensors[i];
        npk_snap_u8(w, c->tensor_live[i]);
        if (!c->tensor_live[i])
            continue;
        npk_snap_u8(w, (uint8_t)t->view);
        npk_snap_u32(w, t->k);
        npk_snap_u32(w, t->n);
        put_str(w, t->name);
        if (t->view) {
            npk_snap_u64(w, t->base);
            npk_snap_u64(w, (uint64_t)t->sn);
            npk_snap_u64(w, (uint64_t)t->sk);
        } else {
            npk_snap_bytes(w, t->codes, (size_t)t->n * t->row_bytes);
            for (uint32_t r = 0; r < t->n; r++)
                npk_snap_u32(w, t->scale[r]);
        }
    }
    npk_snap_u64(w, c->q_len);
    for (size_t i = 0; i < c->q_len; i++)
        npk_snap_u32(w, c->queue[(c->q_head + i) % c->q_cap]);
    npk_snap_end(w);

    npk_snap_begin(w, "PROG");
    npk_snap_u64(w, c->n_prog);
    for (size_t i = 0; i < c->n_prog; i++)
        npk_snap_u64(w, c->prog[i]);
    npk_snap_u64(w, c->n_windows);
    for (size_t i = 0; i < c->n_windows; i++) {
        npk_snap_u64(w, c->windows[i].at);
        npk_snap_u64(w, c->windows[i].base);
    }
    npk_snap_u64(w, c->n_log);
    for (size_t i = 0; i < c->n_log; i++) {
        npk_snap_u64(w, c->log[i].word);
        npk_snap_u32(w, c->log[i].mnem);
    }
    npk_snap_end(w);

    npk_snap_mem(w, "l2", c->l2, PCCX_L2_BYTES);
    npk_snap_mem(w, "host", c->host, c->host_bytes);
    pccx_tm_save(c->tm, w);
    return NPK_OK;
}

/* ---- restoring ------------------------------------------------------------------------------ */

/* What the sections hold, parsed and checked before anything is written. */
typedef struct snap_in {
    uint64_t pc, window, issued, error_index, error_word, next_window, emitted;
    uint32_t emax, error_code, reg_lo;
    uint8_t halted;
    char message[sizeof ((pccx_error_t *)0)->message];
    uint64_t counts[PCCX_N_MNEMONICS], macs, weights, exact_fallback;
    uint32_t cc[2][PCCX_CC_ENTRIES][3];
    pccx_tensor *tensors;
    uint8_t *live;
    size_t n_tensors;
    uint32_t *queue;
    size_t q_len;
    uint64_t *prog;
    uint8_t *prog_bytes;
    size_t n_prog;
    pccx_window_change *windows;
    size_t n_windows;
    pccx_log *log;
    size_t n_log;
} snap_in;

static void in_free(snap_in *in)
{
    for (size_t i = 0; in->tensors && i < in->n_tensors; i++)
        pccx_tensor_free(&in->tensors[i]);
    free(in->tensors);
    free(in->live);
    free(in->queue);
    free(in->prog);
    free(in->prog_bytes);
    free(in->windows);
    free(in->log);
}

/* A string of at most max bytes into a new allocation (*out NULL for NO_NAME); 0 if bad. */
static int get_str(npk_snap_cursor *cur, size_t max, char **out)
{
    uint32_t n = npk_snap_get_u32(cur);
    *out = NULL;
    if (n == NO_NAME)
        return !cur->bad;
    if (cur->bad || n > max || n > cur->left)
        return 0;
    char *s = malloc((size_t)n + 1);
    if (!s) {
        cur->bad = 1;
        return 0;
    }
    npk_snap_get_bytes(cur, s, n);
    s[n] = '\0';
    if (memchr(s, '\0', n)) {
        free(s);
        return 0;
    }
    *out = s;
    return 1;
}

static npk_status nomem(npk_machine *m)
{
    return npk_fail(m, NPK_ERR_NOMEM, "pccx: out of memory restoring a snapshot");
}

static npk_status read_regs(npk_snap_reader *r, snap_in *in)
{
    npk_snap_cursor cur = {NULL, 0, 1};
    npk_status st = npk_snap_section_get(r, "REGS", &cur);
    if (st != NPK_OK)
        return st;
    in->pc = npk_snap_get_u64(&cur);
    in->emax = npk_snap_get_u32(&cur);
    in->window = npk_snap_get_u64(&cur);
    in->issued = npk_snap_get_u64(&cur);
    in->halted = npk_snap_get_u8(&cur);
    in->error_code = npk_snap_get_u32(&cur);
    in->error_index = npk_snap_get_u64(&cur);
    in->error_word = npk_snap_get_u64(&cur);
    char *msg = NULL;
    if (!get_str(&cur, sizeof in->message - 1, &msg) || !msg) {
        free(msg);
        return npk_snap_bad(r, "REGS", "the error message is not a string of at most %zu bytes",
                            sizeof in->message - 1);
    }
    memcpy(in->message, msg, strlen(msg) + 1);
    free(msg);
    in->reg_lo = npk_snap_get_u32(&cur);
    in->next_window = npk_snap_get_u64(&cur);
    in->emitted = npk_snap_get_u64(&cur);
    uint32_t nm = npk_snap_get_u32(&cur);
    if (!cur.bad && nm != PCCX_N_MNEMONICS)
        return npk_snap_bad(r, "REGS", "%u instruction counts, not %u", nm,
                            (unsigned)PCCX_N_MNEMONICS);
    for (size_t i = 0; i < PCCX_N_MNEMONICS; i++)
        in->counts[i] = npk_snap_get_u64(&cur);
    in->macs = npk_snap_get_u64(&cur);
    in->weights = npk_snap_get_u64(&cur);
    in->exact_fallback = npk_snap_get_u64(&cur);
    if ((st = npk_snap_section_done(r, "REGS", &cur)) != NPK_OK)
        return st;
    if (in->halted > 1)
        return npk_snap_bad(r, "REGS", "halted flag %u is not 0 or 1", in->halted);
    return NPK_OK;
}

static npk_status read_cc(npk_snap_reader *r, snap_in *in)
{
    npk_snap_cursor cur = {NULL, 0, 1};
    npk_status st = npk_snap_section_get(r, "CC  ", &cur);
    if (st != NPK_OK)
        return st;
    for (unsigned b = 0; b < 2; b++)
        for (unsigned e = 0; e < PCCX_CC_ENTRIES; e++)
            for (unsigned k = 0; k < 3; k++)
                in->cc[b][e][k] = npk_snap_get_u32(&cur);
    if ((st = npk_snap_section_done(r, "CC  ", &cur)) != NPK_OK)
        return st;
    for (unsigned b = 0; b < 2; b++)
        for (unsigned e = 0; e < PCCX_CC_ENTRIES; e++)
            for (unsigned k = 0; k < 3; k++)
                if (in->cc[b][e][k] > 0x1FFFF)
                    return npk_snap_bad(r, "CC  ", "%s[%u].%c = 0x%x does not fit 17 bits "
                                        "(pccx spec §5.2)", b ? "cc_weight" : "cc_fmap", e,
                                        "XYZ"[k], in->cc[b][e][k]);
    return NPK_OK;
}

static npk_status read_weights(npk_snap_reader *r, snap_in *in)
{
    npk_snap_cursor cur = {NULL, 0, 1};
    npk_status st = npk_snap_section_get(r, "WGHT", &cur);
    if (st != NPK_OK)
        return st;
    uint64_t n = npk_snap_get_u64(&cur);
    if (cur.bad || n > cur.left || n >= UINT32_MAX)
        return npk_snap_bad(r, "WGHT", "%llu tensors do not fit the section",
                            (unsigned long long)n);
    in->tensors = calloc(n ? (size_t)n : 1, sizeof *in->tensors);
    in->live = calloc(n ? (size_t)n : 1, 1);
    if (!in->tensors || !in->live)
        return nomem(r->m);
    in->n_tensors = (size_t)n;
    for (size_t i = 0; i < in->n_tensors; i++) {
        pccx_tensor *t = &in->tensors[i];
        in->live[i] = npk_snap_get_u8(&cur);
        if (in->live[i] > 1)
            return npk_snap_bad(r, "WGHT", "tensor %zu: live flag %u", i + 1, in->live[i]);
        if (!in->live[i])
            continue;
        uint8_t view = npk_snap_get_u8(&cur);
        t->view = view;
        t->k = npk_snap_get_u32(&cur);
        t->n = npk_snap_get_u32(&cur);
        if (!get_str(&cur, 4096, &t->name))
            return npk_snap_bad(r, "WGHT", "tensor %zu: its name is not a string of at most "
                                "4096 bytes", i + 1);
        if (cur.bad || view > 1 || t->k < 1 || t->k > 65535 || t->n < 1 || t->n > 65535)
            return npk_snap_bad(r, "WGHT", "tensor %zu: kind %u, K %u, N %u (pccx spec §5.4: "
                                "K and N are 1..65,535)", i + 1, view, t->k, t->n);
        if (view) {
            t->base = npk_snap_get_u64(&cur);
            t->sn = (int64_t)npk_snap_get_u64(&cur);
            t->sk = (int64_t)npk_snap_get_u64(&cur);
            continue;
        }
        t->row_bytes = (t->k + 1) / 2;
        size_t nb = (size_t)t->n * t->row_bytes;
        if (nb + 4 * (size_t)t->n > cur.left)
            return npk_snap_bad(r, "WGHT", "tensor %zu: its codes and scales are cut short",
                                i + 1);
        t->codes = malloc(nb);
        t->scale = malloc((size_t)t->n * sizeof *t->scale);
        if (!t->codes || !t->scale)
            return nomem(r->m);
        npk_snap_get_bytes(&cur, t->codes, nb);
        for (uint32_t k = 0; k < t->n; k++)
            t->scale[k] = npk_snap_get_u32(&cur);
    }
    uint64_t q = npk_snap_get_u64(&cur);
    if (cur.bad || q > cur.left / 4)
        return npk_snap_bad(r, "WGHT", "a queue of %llu tensors does not fit the section",
                            (unsigned long long)q);
    in->queue = malloc((q ? (size_t)q : 1) * sizeof *in->queue);
    if (!in->queue)
        return nomem(r->m);
    in->q_len = (size_t)q;
    for (size_t i = 0; i < in->q_len; i++) {
        uint32_t h = npk_snap_get_u32(&cur);
        if (h == 0 || h > in->n_tensors || !in->live[h - 1])
            return npk_snap_bad(r, "WGHT", "queue entry %zu names tensor %u, which does not "
                                "exist", i, h);
        in->queue[i] = h;
    }
    return npk_snap_section_done(r, "WGHT", &cur);
}

static npk_status read_prog(npk_snap_reader *r, const pccx_t *c, snap_in *in)
{
    npk_snap_cursor cur = {NULL, 0, 1};
    npk_status st = npk_snap_section_get(r, "PROG", &cur);
    if (st != NPK_OK)
        return st;
    uint64_t n = npk_snap_get_u64(&cur);
    if (cur.bad || n > cur.left / 8)
        return npk_snap_bad(r, "PROG", "%llu words do not fit the section",
                            (unsigned long long)n);
    in->prog = malloc((n ? (size_t)n : 1) * sizeof *in->prog);
    in->prog_bytes = malloc(n ? 8 * (size_t)n : 1);
    if (!in->prog || !in->prog_bytes)
        return nomem(r->m);
    in->n_prog = (size_t)n;
    for (size_t i = 0; i < in->n_prog; i++) {
        in->prog[i] = npk_snap_get_u64(&cur);
        for (int b = 0; b < 8; b++)
            in->prog_bytes[8 * i + (size_t)b] = (uint8_t)(in->prog[i] >> (8 * b));
    }
    n = npk_snap_get_u64(&cur);
    if (cur.bad || n > cur.left / 16)
        return npk_snap_bad(r, "PROG", "%llu window changes do not fit the section",
                            (unsigned long long)n);
    in->windows = malloc((n ? (size_t)n : 1) * sizeof *in->windows);
    if (!in->windows)
        return nomem(r->m);
    in->n_windows = (size_t)n;
    for (size_t i = 0; i < in->n_windows; i++) {
        in->windows[i].at = npk_snap_get_u64(&cur);
        in->windows[i].base = npk_snap_get_u64(&cur);
        if (in->windows[i].base % 16 || in->windows[i].base >= c->host_bytes)
            return npk_snap_bad(r, "PROG", "window change %zu: base 0x%llx is not a multiple "
                                "of 16 inside host DDR (pccx spec §5.3)", i,
                                (unsigned long long)in->windows[i].base);
    }
    n = npk_snap_get_u64(&cur);
    if (cur.bad || n > cur.left / 12)
        return npk_snap_bad(r, "PROG", "%llu issued words do not fit the section",
                            (unsigned long long)n);
    in->log = malloc((n ? (size_t)n : 1) * sizeof *in->log);
    if (!in->log)
        return nomem(r->m);
    in->n_log = (size_t)n;
    for (size_t i = 0; i < in->n_log; i++) {
        in->log[i].word = npk_snap_get_u64(&cur);
        uint32_t mn = npk_snap_get_u32(&cur);
        if (mn >= PCCX_N_MNEMONICS)
            return npk_snap_bad(r, "PROG", "issued word %zu: mnemonic %u", i, mn);
        in->log[i].mnem = (uint16_t)mn;
    }
    return npk_snap_section_done(r, "PROG", &cur);
}

static npk_status restore(npk_machine *m, pccx_t *c, npk_snap_reader *r, snap_in *in)
{
    npk_status st;
    if ((st = read_regs(r, in)) != NPK_OK || (st = read_cc(r, in)) != NPK_OK ||
        (st = read_weights(r, in)) != NPK_OK || (st = read_prog(r, c, in)) != NPK_OK)
        return st;
    npk_snap_cursor tc = {NULL, 0, 1};
    if ((st = npk_snap_section_get(r, "TIME", &tc)) != NPK_OK)
        return st;
    npk_snap_cursor peek = tc;
    uint64_t count = npk_snap_get_u64(&peek);
    if (in->issued != count || in->n_log != count || in->emitted > count)
        return npk_snap_bad(r, "REGS", "%llu instructions issued, but %llu timing records and "
                            "%zu issued words (%llu reported to observers)",
                            (unsigned long long)in->issued, (unsigned long long)count,
                            in->n_log, (unsigned long long)in->emitted);
    if (in->pc > in->n_prog || in->next_window > in->n_windows)
        return npk_snap_bad(r, "REGS", "pc %llu of a %zu-word program, window change %llu of "
                            "%zu", (unsigned long long)in->pc, in->n_prog,
                            (unsigned long long)in->next_window, in->n_windows);
    if (in->window % 16 || in->window >= c->host_bytes)
        return npk_snap_bad(r, "REGS", "window base 0x%llx is not a multiple of 16 inside host "
                            "DDR (pccx spec §5.3)", (unsigned long long)in->window);
    if (!r->apply) {
        if ((st = npk_snap_mem_restore(r, "l2", c->l2, PCCX_L2_BYTES, NULL, NULL)) != NPK_OK ||
            (st = npk_snap_mem_restore(r, "host", c->host, c->host_bytes, NULL, NULL)) != NPK_OK)
            return st;
    }
    /* the weight queue as a ring of its own size, allocated before the timing model (the
     * first thing written, after its own allocations) */
    size_t qcap = in->q_len > 64 ? in->q_len : 64;
    uint32_t *queue = r->apply ? malloc(qcap * sizeof *queue) : NULL;
    if (r->apply && !queue)
        return nomem(m);
    char why[200] = "";
    int rc = pccx_tm_load(c->tm, &tc, r->apply, why, sizeof why);
    if (rc == 0 && !r->apply)
        return npk_snap_section_done(r, "TIME", &tc);
    if (rc != 0) {
        free(queue);
        return rc == -2 ? nomem(m) : npk_snap_bad(r, "TIME", "%s", why);
    }
    /* applying: the dry run has checked everything, the section's length included */
    npk_snap_section_done(r, "TIME", &tc);
    memcpy(queue, in->queue, in->q_len * sizeof *queue);
    npk_snap_mem_restore(r, "l2", c->l2, PCCX_L2_BYTES, NULL, NULL);       /* checked */
    npk_snap_mem_restore(r, "host", c->host, c->host_bytes, NULL, NULL);   /* checked */
    c->mem_zero = 0;
    c->pc = in->pc;
    c->emax = in->emax;
    c->window = in->window;
    c->issued = in->issued;
    c->halted = in->halted;
    c->error.code = (int)in->error_code;
    c->error.index = in->error_index;
    c->error.word = in->error_word;
    memcpy(c->error.message, in->message, sizeof c->error.message);
    c->reg_lo = in->reg_lo;
    c->next_window = in->next_window;
    c->emitted = in->emitted;
    memcpy(c->counts, in->counts, sizeof c->counts);
    c->macs = in->macs;
    c->weights = in->weights;
    c->exact_fallback = in->exact_fallback;
    memcpy(c->cc, in->cc, sizeof c->cc);
    pccx_tensors_clear(c);
    c->tensors = in->tensors;
    c->tensor_live = in->live;
    c->n_tensors = c->cap_tensors = in->n_tensors;
    in->tensors = NULL;
    in->live = NULL;
    free(c->queue);
    c->queue = queue;
    c->q_cap = qcap;
    c->q_head = 0;
    c->q_len = in->q_len;
    free(c->prog);
    free(c->prog_bytes);
    c->prog = in->prog;
    c->prog_bytes = in->prog_bytes;
    c->n_prog = in->n_prog;
    c->spaces[PCCX_SP_PROG].data = c->prog_bytes;
    c->spaces[PCCX_SP_PROG].info.size = 8 * (uint64_t)c->n_prog;
    in->prog = NULL;
    in->prog_bytes = NULL;
    free(c->windows);
    c->windows = in->windows;
    c->n_windows = in->n_windows;
    in->windows = NULL;
    free(c->log);
    c->log = in->log;
    c->n_log = c->cap_log = in->n_log;
    in->log = NULL;
    /* the restored machine has no assembled program of its own to return to */
    pccx_prog_free(c->loaded);
    c->loaded = NULL;
    return NPK_OK;
}

npk_status pccx_snap_restore(npk_machine *m, void *state, npk_snap_reader *r)
{
    snap_in *in = calloc(1, sizeof *in);
    if (!in)
        return nomem(m);
    npk_status st = restore(m, state, r, in);
    in_free(in);
    free(in);
    return st;
}
