/* tinytpu registers by name (regs.c, docs/state.md): the list, built on first use, and
 * reads and writes by list index. */
#ifndef NPK_TINYTPU_REGS_H
#define NPK_TINYTPU_REGS_H

#include "core/commit.h"
#include "targets/tinytpu/machine.h"

size_t tt_regs_list(tt_state *s, const npk_reg_info **list);
void tt_regs_free(struct tt_regs *r);
npk_status tt_regs_read(npk_machine *m, tt_state *s, size_t i, uint64_t *v);
npk_status tt_regs_write(npk_machine *m, tt_state *s, size_t i, uint64_t v);
/* After state was put in from outside (a backdoor write, a snapshot): mark every block of the
 * fast path's activity gating as possibly active and recompute which channels beat at the
 * next edge, so that the next edge steps everything and settles the masks. */
void tt_ungate(tt_state *s);

/* Commit records (docs/commit-log.md): tt_commit_save keeps the registers before an edge
 * (returns -1 when out of memory: the record then lacks its registers); tt_commit_regs adds
 * every register the edge changed to the record, in list order (without cycle and F.*). */
int tt_commit_save(npk_machine *m, tt_state *s);
void tt_commit_regs(npk_machine *m, tt_state *s, npk_commit_sink *c);

#endif
