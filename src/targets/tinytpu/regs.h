/* tinytpu registers by name (regs.c, docs/state.md): the list, built on first use, and
 * reads and writes by list index. */
#ifndef NPK_TINYTPU_REGS_H
#define NPK_TINYTPU_REGS_H

#include "targets/tinytpu/machine.h"

size_t tt_regs_list(tt_state *s, const npk_reg_info **list);
void tt_regs_free(struct tt_regs *r);
npk_status tt_regs_read(npk_machine *m, tt_state *s, size_t i, uint64_t *v);
npk_status tt_regs_write(npk_machine *m, tt_state *s, size_t i, uint64_t v);

#endif
