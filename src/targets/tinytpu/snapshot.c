/* tinytpu snapshots (docs/snapshot.md): the program (one record per cycle), the cycle index,
 * every register of spec Part A, the issue logic's F_{k-1} (A7.8) and the UB. The fast path's
 * activity masks are not saved: they are rebuilt after a restore, as after a backdoor write. */
#include <stdlib.h>
#include <string.h>

#include "core/snapshot.h"
#include "targets/tinytpu/machine.h"
#include "targets/tinytpu/regs.h"

/* Bytes of one cycle record in PROG: rst sw start T pathway (u8), sel addr rows cols inv leak
 * lr n_host (u16), line (u32). */
#define CYCLE_BYTES (5u + 8u * 2u + 4u)

static void put16(npk_snap_writer *w, uint16_t v)
{
    const uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    npk_snap_bytes(w, b, 2);
}

static uint16_t get16(npk_snap_cursor *c)
{
    uint8_t b[2] = {0, 0};
    npk_snap_get_bytes(c, b, 2);
    return (uint16_t)(b[0] | b[1] << 8);
}

npk_status tt_snap_save(npk_machine *m, void *state, npk_snap_writer *w)
{
    tt_state *s = state;
    const unsigned N = s->N;
    if (s->stream)
        return npk_fail(m, NPK_ERR_UNSUPPORTED,
                        "tinytpu: a streamed program (stream=1) is not kept in snapshots: load "
                        "it with stream=0 to save the machine's state");
    npk_snap_begin(w, "PROG");
    npk_snap_u64(w, s->prog.n);
    for (size_t k = 0; k < s->prog.n; k++) {
        const tt_cycle *c = &s->prog.c[k];
        const uint8_t b[5] = {c->rst, c->sw, c->start, c->T, c->pathway};
        npk_snap_bytes(w, b, 5);
        const uint16_t v[8] = {c->sel, c->addr, c->rows, c->cols, c->inv, c->leak, c->lr,
                               c->n_host};
        for (unsigned i = 0; i < 8; i++)
            put16(w, v[i]);
        npk_snap_u32(w, c->line);
    }
    npk_snap_u64(w, s->prog.n_hw);
    for (size_t h = 0; h < s->prog.n_hw; h++) {
        put16(w, s->prog.hw[h].lane);
        put16(w, s->prog.hw[h].value);
    }
    npk_snap_end(w);

    npk_snap_begin(w, "REGS");
    npk_snap_u64(w, s->pc);
    npk_snap_u32(w, s->wp);
    put16(w, s->gptr);
    npk_snap_u8(w, s->mode);
    npk_snap_u8(w, s->cs_flag);
    put16(w, s->cs_val);
    npk_snap_u64(w, s->prev_f);
    put16(w, s->prev_ft);
    npk_snap_end(w);

    npk_snap_begin(w, "CHAN");
    for (unsigned ci = 0; ci < TT_N_CHANNELS; ci++) {
        const tt_chan *c = &s->ch[ci];
        npk_snap_u32(w, (uint32_t)c->ptr);
        put16(w, c->R);
        put16(w, c->C);
        put16(w, c->t);
        put16(w, c->skip);
        npk_snap_u8(w, c->T);
    }
    npk_snap_end(w);

    npk_snap_begin(w, "LANE");
    for (unsigned i = 0; i < N; i++) {
        const uint8_t b[4] = {s->E[i], s->in_v[i], s->w_v[i], s->done[i]};
        npk_snap_bytes(w, b, 4);
        const uint16_t v[8] = {s->in_d[i], s->w_d[i], s->bias_r[i], s->y_r[i],
                               s->h_r[i],  s->old_r[i], s->upd[i], s->lastH[i]};
        for (unsigned k = 0; k < 8; k++)
            put16(w, v[k]);
        for (unsigned st = 0; st < 4; st++) {
            put16(w, s->st_d[st][i]);
            npk_snap_u8(w, s->st_v[st][i]);
        }
    }
    npk_snap_end(w);

    npk_snap_begin(w, "PES ");
    for (size_t p = 0; p < (size_t)N * N; p++) {
        static const unsigned f16[5] = {TT_PE_SHADOW, TT_PE_ACTIVE, TT_PE_XOUT, TT_PE_PSUM,
                                        TT_PE_WOUT};
        for (unsigned k = 0; k < 5; k++)
            put16(w, TT_PE(s, f16[k], p));
        npk_snap_u8(w, (uint8_t)TT_PE(s, TT_PE_VOUT, p));
        npk_snap_u8(w, (uint8_t)TT_PE(s, TT_PE_SWOUT, p));
    }
    npk_snap_end(w);

    /* the UB as its space shows it: word a at byte 2a, little-endian on every host */
    size_t nb = 2 * (size_t)s->ub_words;
    uint8_t *ub = malloc(nb);
    if (!ub) {
        w->nomem = 1;
        return NPK_OK; /* the writer reports it */
    }
    for (size_t a = 0; a < s->ub_words; a++)
        ub[2 * a] = (uint8_t)s->ub[a], ub[2 * a + 1] = (uint8_t)(s->ub[a] >> 8);
    npk_snap_mem(w, "ub", ub, nb);
    free(ub);
    return NPK_OK;
}

static void skip(npk_snap_cursor *c, size_t n)
{
    uint8_t t[16];
    npk_snap_get_bytes(c, t, n);
}

/* A flag byte must be 0 or 1; sets *bad (the first field that is not) otherwise. */
static uint8_t flag(npk_snap_cursor *c, const char **bad, const char *what)
{
    uint8_t v = npk_snap_get_u8(c);
    if (v > 1 && !*bad)
        *bad = what;
    return v;
}

/* PROG into a new program *p (both passes: the dry run frees it, the applying one puts it in).
 * NPK_ERR_NOMEM leaves nothing allocated. */
static npk_status read_prog(npk_machine *m, npk_snap_reader *r, const tt_state *s,
                            tt_program *p)
{
    npk_snap_cursor c = {NULL, 0, 1};
    npk_status st = npk_snap_section_get(r, "PROG", &c);
    if (st != NPK_OK)
        return st;
    uint64_t n = npk_snap_get_u64(&c);
    if (c.bad || n > c.left / CYCLE_BYTES)
        return npk_snap_bad(r, "PROG", "%llu cycles do not fit the section",
                            (unsigned long long)n);
    tt_program_init(p, s->N);
    p->c = malloc((n ? (size_t)n : 1) * sizeof *p->c);
    if (!p->c)
        return npk_fail(m, NPK_ERR_NOMEM, "tinytpu: out of memory for a %llu-cycle program",
                        (unsigned long long)n);
    p->cap = (size_t)n;
    uint64_t hosts = 0;
    for (uint64_t k = 0; k < n; k++) {
        tt_cycle *cy = &p->c[k];
        memset(cy, 0, sizeof *cy);
        const char *bad = NULL;
        cy->rst = flag(&c, &bad, "rst");
        cy->sw = flag(&c, &bad, "sw");
        cy->start = flag(&c, &bad, "start");
        cy->T = flag(&c, &bad, "T");
        cy->pathway = npk_snap_get_u8(&c);
        cy->sel = get16(&c), cy->addr = get16(&c), cy->rows = get16(&c), cy->cols = get16(&c);
        cy->inv = get16(&c), cy->leak = get16(&c), cy->lr = get16(&c), cy->n_host = get16(&c);
        cy->line = npk_snap_get_u32(&c);
        if (!bad)
            bad = cy->pathway > 15 ? "pathway" : cy->sel > 511 ? "sel"
                  : cy->n_host > s->N ? "the host-write count" : NULL;
        if (bad) {
            tt_program_free(p);
            return npk_snap_bad(r, "PROG", "cycle %llu: %s is out of range",
                                (unsigned long long)k + 1, bad);
        }
        cy->host = (uint32_t)hosts;
        hosts += cy->n_host;
    }
    p->n = (size_t)n;
    uint64_t n_hw = npk_snap_get_u64(&c);
    if (c.bad || n_hw != hosts || c.left != 4 * n_hw) {
        tt_program_free(p);
        return npk_snap_bad(r, "PROG", "the host writes do not match the cycles' counts");
    }
    p->hw = malloc((n_hw ? (size_t)n_hw : 1) * sizeof *p->hw);
    if (!p->hw) {
        tt_program_free(p);
        return npk_fail(m, NPK_ERR_NOMEM, "tinytpu: out of memory for a %llu-cycle program",
                        (unsigned long long)n);
    }
    p->cap_hw = p->n_hw = (size_t)n_hw;
    for (size_t h = 0; h < n_hw; h++)
        p->hw[h].lane = get16(&c), p->hw[h].value = get16(&c);
    /* each cycle's host writes name lanes below N, each once */
    uint8_t seen[TT_MAX_N];
    for (size_t k = 0; k < p->n; k++) {
        const tt_cycle *cy = &p->c[k];
        for (unsigned i = 0; i < cy->n_host; i++)
            seen[p->hw[cy->host + i].lane % TT_MAX_N] = 0;
        for (unsigned i = 0; i < cy->n_host; i++) {
            unsigned lane = p->hw[cy->host + i].lane;
            if (lane >= s->N || seen[lane]) {
                tt_program_free(p);
                return npk_snap_bad(r, "PROG", "cycle %zu: a host write to lane %u (%s)", k + 1,
                                    lane, lane >= s->N ? "no such lane" : "twice");
            }
            seen[lane] = 1;
        }
    }
    if ((st = npk_snap_section_done(r, "PROG", &c)) != NPK_OK)
        tt_program_free(p);
    return st;
}

/* The registers, as read from REGS, CHAN, LANE and PES (checked before anything is put in). */
typedef struct regs_in {
    uint64_t pc, prev_f;
    uint32_t wp;
    uint16_t gptr, cs_val, prev_ft;
    uint8_t mode, cs_flag;
} regs_in;

static npk_status read_regs(npk_snap_reader *r, const tt_state *s, uint64_t n_cycles,
                            regs_in *g)
{
    npk_snap_cursor c = {NULL, 0, 1};
    npk_status st = npk_snap_section_get(r, "REGS", &c);
    if (st != NPK_OK)
        return st;
    const char *bad = NULL;
    g->pc = npk_snap_get_u64(&c);
    g->wp = npk_snap_get_u32(&c);
    g->gptr = get16(&c);
    g->mode = flag(&c, &bad, "mode");
    g->cs_flag = flag(&c, &bad, "cs_flag");
    g->cs_val = get16(&c);
    g->prev_f = npk_snap_get_u64(&c);
    g->prev_ft = get16(&c);
    if ((st = npk_snap_section_done(r, "REGS", &c)) != NPK_OK)
        return st;
    if (bad || g->prev_ft > 3 || (g->prev_f >> 9 & 0x7F) != 0)
        return npk_snap_bad(r, "REGS", "%s holds a value it cannot have",
                            bad ? bad : "F_{k-1}");
    if (g->pc > n_cycles)
        return npk_snap_bad(r, "REGS", "cycle %llu is past the end of the %llu-cycle program",
                            (unsigned long long)g->pc, (unsigned long long)n_cycles);
    (void)s;
    return NPK_OK;
}

npk_status tt_snap_restore(npk_machine *m, void *state, npk_snap_reader *r)
{
    tt_state *s = state;
    const unsigned N = s->N;
    tt_program prog;
    npk_status st = read_prog(m, r, s, &prog);
    if (st != NPK_OK)
        return st;
    regs_in g;
    npk_snap_cursor ch = {NULL, 0, 1}, ln = {NULL, 0, 1}, pe = {NULL, 0, 1};
    const char *bad = NULL;
    if ((st = read_regs(r, s, prog.n, &g)) != NPK_OK)
        goto fail;
    /* CHAN, LANE, PES: their lengths, then every flag (their values are read again below) */
    if ((st = npk_snap_section_get(r, "CHAN", &ch)) != NPK_OK ||
        (st = npk_snap_section_get(r, "LANE", &ln)) != NPK_OK ||
        (st = npk_snap_section_get(r, "PES ", &pe)) != NPK_OK)
        goto fail;
    static const char *const tags[3] = {"CHAN", "LANE", "PES "};
    const uint64_t want[3] = {TT_N_CHANNELS * 13u, (uint64_t)N * 32u, (uint64_t)N * N * 12u};
    const npk_snap_cursor *cur[3] = {&ch, &ln, &pe};
    for (unsigned i = 0; i < 3; i++)
        if (cur[i]->left != want[i]) {
            st = npk_snap_bad(r, tags[i], "%llu bytes, not %llu for lanes=%u",
                              (unsigned long long)cur[i]->left, (unsigned long long)want[i], N);
            goto fail;
        }
    {
        npk_snap_cursor c = ch;
        for (unsigned ci = 0; ci < TT_N_CHANNELS && !bad; ci++) {
            int32_t ptr = (int32_t)npk_snap_get_u32(&c);
            skip(&c, 8); /* R, C, t, skip */
            flag(&c, &bad, "a channel's transpose");
            if (!bad && (ci == TT_CH_WEIGHT ? ptr < -32768 || ptr > 32767
                                            : ptr < 0 || ptr > 65535))
                bad = "a channel's ptr";
        }
        if (bad) {
            st = npk_snap_bad(r, "CHAN", "%s holds a value it cannot have", bad);
            goto fail;
        }
        c = ln;
        for (unsigned i = 0; i < N && !bad; i++) {
            for (unsigned k = 0; k < 4; k++)
                flag(&c, &bad, "a lane's E, valid or done bit");
            skip(&c, 16);
            for (unsigned k = 0; k < 4; k++) {
                skip(&c, 2);
                flag(&c, &bad, "a VPU stage's valid bit");
            }
        }
        if (bad) {
            st = npk_snap_bad(r, "LANE", "%s holds a value it cannot have", bad);
            goto fail;
        }
        c = pe;
        for (size_t p = 0; p < (size_t)N * N && !bad; p++) {
            skip(&c, 10);
            flag(&c, &bad, "a PE's vout");
            flag(&c, &bad, "a PE's swout");
        }
        if (bad) {
            st = npk_snap_bad(r, "PES ", "%s holds a value it cannot have", bad);
            goto fail;
        }
    }
    /* the UB: checked now, written through a buffer (little-endian bytes) below */
    size_t nb = 2 * (size_t)s->ub_words;
    if (!r->apply && (st = npk_snap_mem_restore(r, "ub", NULL, nb, NULL, NULL)) != NPK_OK)
        goto fail;
    if (!r->apply) {
        tt_program_free(&prog);
        return NPK_OK;
    }

    /* the applying pass: the one allocation left, then nothing can fail */
    uint8_t *ub = malloc(nb);
    if (!ub) {
        st = npk_fail(m, NPK_ERR_NOMEM, "tinytpu: out of memory");
        goto fail;
    }
    for (size_t a = 0; a < s->ub_words; a++)
        ub[2 * a] = (uint8_t)s->ub[a], ub[2 * a + 1] = (uint8_t)(s->ub[a] >> 8);
    npk_snap_mem_restore(r, "ub", ub, nb, NULL, NULL); /* checked */
    for (size_t a = 0; a < s->ub_words; a++)
        s->ub[a] = (uint16_t)(ub[2 * a] | ub[2 * a + 1] << 8);
    free(ub);
    tt_stream_drop(s);
    tt_program_free(&s->prog);
    s->prog = prog;
    s->pc = g.pc, s->wp = g.wp, s->gptr = g.gptr, s->mode = g.mode;
    s->cs_flag = g.cs_flag, s->cs_val = g.cs_val, s->prev_f = g.prev_f, s->prev_ft = g.prev_ft;
    for (unsigned ci = 0; ci < TT_N_CHANNELS; ci++) {
        tt_chan *c = &s->ch[ci];
        c->ptr = (int32_t)npk_snap_get_u32(&ch);
        c->R = get16(&ch), c->C = get16(&ch), c->t = get16(&ch), c->skip = get16(&ch);
        c->T = npk_snap_get_u8(&ch);
    }
    for (unsigned i = 0; i < N; i++) {
        s->E[i] = npk_snap_get_u8(&ln), s->in_v[i] = npk_snap_get_u8(&ln);
        s->w_v[i] = npk_snap_get_u8(&ln), s->done[i] = npk_snap_get_u8(&ln);
        s->in_d[i] = get16(&ln), s->w_d[i] = get16(&ln), s->bias_r[i] = get16(&ln);
        s->y_r[i] = get16(&ln), s->h_r[i] = get16(&ln), s->old_r[i] = get16(&ln);
        s->upd[i] = get16(&ln), s->lastH[i] = get16(&ln);
        for (unsigned k = 0; k < 4; k++)
            s->st_d[k][i] = get16(&ln), s->st_v[k][i] = npk_snap_get_u8(&ln);
    }
    for (size_t p = 0; p < (size_t)N * N; p++) {
        TT_PE(s, TT_PE_SHADOW, p) = get16(&pe), TT_PE(s, TT_PE_ACTIVE, p) = get16(&pe);
        TT_PE(s, TT_PE_XOUT, p) = get16(&pe), TT_PE(s, TT_PE_PSUM, p) = get16(&pe);
        TT_PE(s, TT_PE_WOUT, p) = get16(&pe);
        TT_PE(s, TT_PE_VOUT, p) = npk_snap_get_u8(&pe);
        TT_PE(s, TT_PE_SWOUT, p) = npk_snap_get_u8(&pe);
    }
    /* not architectural: the fast path's gating (rebuilt at the next edge) and the run's
     * timeline slices */
    tt_ungate(s);
    s->tl_busy = 0, s->tl_issue = 0;
    memset(s->tl_since, 0, sizeof s->tl_since);
    return NPK_OK;
fail:
    tt_program_free(&prog);
    return st;
}
