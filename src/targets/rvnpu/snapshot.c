/* rvnpu snapshots (docs/snapshot.md): the CPU (x, f, pc, CSRs, counters), the NPU (acc, facc,
 * vector registers), the program's bookkeeping (entry, brk, tohost), RAM and the timing
 * model. Guest files are host descriptors, which a snapshot cannot carry: saving with any
 * open is refused. Restoring drops every cached decode. */
#include <string.h>

#include "core/snapshot.h"
#include "targets/rvnpu/rvnpu.h"

npk_status rvnpu_snap_save(npk_machine *m, void *state, npk_snap_writer *w)
{
    rvnpu_state *s = state;
    char open[200] = "";
    size_t used = 0;
    for (int i = 0; i < RVNPU_MAX_FILES; i++) {
        if (s->host_fd[i] < 0 || used >= sizeof open - 8)
            continue;
        int k = snprintf(open + used, sizeof open - used, "%s%d", used ? ", " : "", i + 3);
        used += k > 0 ? (size_t)k : 0;
    }
    if (used)
        return npk_fail(m, NPK_ERR_STATE, "rvnpu: cannot save a snapshot while the guest has "
                        "files open (descriptors %s): host files are not part of a snapshot",
                        open);
    npk_snap_begin(w, "CPU ");
    for (int i = 0; i < 32; i++)
        npk_snap_u32(w, s->x[i]);
    for (int i = 0; i < 32; i++)
        npk_snap_u32(w, s->f[i]);
    npk_snap_u32(w, s->pc);
    const uint32_t csr[] = {s->fflags, s->frm, s->mie, s->mpie, s->fs, s->mtvec, s->mscratch,
                            s->mepc, s->mcause, s->mtval};
    for (size_t i = 0; i < sizeof csr / sizeof csr[0]; i++)
        npk_snap_u32(w, csr[i]);
    npk_snap_u64(w, s->retired);
    npk_snap_u64(w, s->cycle_base);
    npk_snap_u64(w, s->instret_base);
    npk_snap_end(w);

    npk_snap_begin(w, "NPU ");
    npk_snap_u64(w, s->npu.acc);
    npk_snap_u64(w, s->npu.facc);
    npk_snap_bytes(w, s->npu.vreg, sizeof s->npu.vreg);
    npk_snap_end(w);

    npk_snap_begin(w, "PROG");
    npk_snap_u32(w, s->entry);
    npk_snap_u32(w, s->brk0);
    npk_snap_u32(w, s->brk);
    npk_snap_u8(w, (uint8_t)(s->tohost_checked != 0));
    npk_snap_u8(w, (uint8_t)(s->has_tohost != 0));
    npk_snap_u8(w, (uint8_t)(s->tohost_hit != 0));
    npk_snap_u32(w, s->has_tohost ? s->tohost : 0);
    npk_snap_end(w);

    npk_snap_mem(w, "ram", s->ram, s->ram_size);

    npk_snap_begin(w, "TIME");
    npk_snap_u64(w, s->next_issue);
    for (size_t i = 0; i < 64; i++) /* the registers' (the rest stay 0) */
        npk_snap_u64(w, s->ready[i]);
    npk_snap_end(w);
    return NPK_OK;
}

npk_status rvnpu_snap_restore(npk_machine *m, void *state, npk_snap_reader *r)
{
    rvnpu_state *s = state;
    (void)m;
    npk_snap_cursor c = {NULL, 0, 1};

    npk_status st = npk_snap_section_get(r, "CPU ", &c);
    if (st != NPK_OK)
        return st;
    uint32_t x[32], f[32], csr[10];
    for (int i = 0; i < 32; i++)
        x[i] = npk_snap_get_u32(&c);
    for (int i = 0; i < 32; i++)
        f[i] = npk_snap_get_u32(&c);
    uint32_t pc = npk_snap_get_u32(&c);
    for (int i = 0; i < 10; i++)
        csr[i] = npk_snap_get_u32(&c);
    uint64_t retired = npk_snap_get_u64(&c), cycle_base = npk_snap_get_u64(&c),
             instret_base = npk_snap_get_u64(&c);
    if ((st = npk_snap_section_done(r, "CPU ", &c)) != NPK_OK)
        return st;
    /* fflags, frm, mie, mpie, fs: the widths §11.3 gives them */
    if (x[0] != 0 || csr[0] > 0x1f || csr[1] > 7 || csr[2] > 1 || csr[3] > 1 || csr[4] > 3)
        return npk_snap_bad(r, "CPU ", "a register holds a value it cannot have (x0 0x%x, "
                            "fflags 0x%x, frm %u, mie %u, mpie %u, fs %u)", x[0], csr[0],
                            csr[1], csr[2], csr[3], csr[4]);

    if ((st = npk_snap_section_get(r, "NPU ", &c)) != NPK_OK)
        return st;
    uint64_t acc = npk_snap_get_u64(&c), facc = npk_snap_get_u64(&c);
    int8_t vreg[4][4];
    npk_snap_get_bytes(&c, vreg, sizeof vreg);
    if ((st = npk_snap_section_done(r, "NPU ", &c)) != NPK_OK)
        return st;

    if ((st = npk_snap_section_get(r, "PROG", &c)) != NPK_OK)
        return st;
    uint32_t entry = npk_snap_get_u32(&c), brk0 = npk_snap_get_u32(&c),
             brk = npk_snap_get_u32(&c);
    uint8_t checked = npk_snap_get_u8(&c), has = npk_snap_get_u8(&c),
            hit = npk_snap_get_u8(&c);
    uint32_t tohost = npk_snap_get_u32(&c);
    if ((st = npk_snap_section_done(r, "PROG", &c)) != NPK_OK)
        return st;
    if (checked > 1 || has > 1 || hit > 1 ||
        (has && (tohost < RVNPU_RAM_BASE || tohost - RVNPU_RAM_BASE > s->ram_size - 4)))
        return npk_snap_bad(r, "PROG", "bad tohost state (flags %u %u %u, address 0x%08x)",
                            checked, has, hit, tohost);

    if ((st = npk_snap_mem_restore(r, "ram", s->ram, s->ram_size, NULL, NULL)) != NPK_OK)
        return st;

    if ((st = npk_snap_section_get(r, "TIME", &c)) != NPK_OK)
        return st;
    uint64_t next_issue = npk_snap_get_u64(&c), ready[64];
    for (size_t i = 0; i < 64; i++)
        ready[i] = npk_snap_get_u64(&c);
    if ((st = npk_snap_section_done(r, "TIME", &c)) != NPK_OK)
        return st;
    if (!r->apply)
        return NPK_OK;

    rvnpu_files_close(s); /* the saved machine had none open */
    memcpy(s->x, x, sizeof x);
    s->x[RVNPU_X_SINK] = 0;
    memcpy(s->f, f, sizeof f);
    s->pc = pc;
    s->fflags = csr[0];
    s->frm = csr[1];
    s->mie = csr[2];
    s->mpie = csr[3];
    s->fs = csr[4];
    s->mtvec = csr[5];
    s->mscratch = csr[6];
    s->mepc = csr[7];
    s->mcause = csr[8];
    s->mtval = csr[9];
    s->retired = retired;
    s->cycle_base = cycle_base;
    s->instret_base = instret_base;
    s->npu.acc = acc;
    s->npu.facc = facc;
    memcpy(s->npu.vreg, vreg, sizeof vreg);
    s->entry = entry;
    s->brk0 = brk0;
    s->brk = brk;
    s->tohost_checked = checked;
    s->has_tohost = has;
    s->tohost_hit = hit;
    s->tohost = tohost;
    /* every cached decode goes (only pages marked as code hold any), then the tohost
     * page is watched again */
    uint32_t pages = s->ram_size / RVNPU_PAGE;
    for (uint32_t pg = 0; pg < pages; pg++) {
        if (s->code_pages[pg] & RVNPU_PAGE_CODE)
            memset(&s->dcache[(size_t)pg * (RVNPU_PAGE / 4)], 0,
                   (RVNPU_PAGE / 4) * sizeof *s->dcache);
        s->code_pages[pg] = 0;
    }
    if (has)
        s->code_pages[(tohost - RVNPU_RAM_BASE) / RVNPU_PAGE] |= RVNPU_PAGE_WATCH;
    s->ram_dirty = 1; /* the next program load starts from zeroed RAM */
    s->loading = 0;
    s->guest_wrote = 0;
    s->next_issue = next_issue;
    memcpy(s->ready, ready, sizeof ready);
    return NPK_OK;
}
