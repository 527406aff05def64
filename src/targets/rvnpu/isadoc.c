/* Prints the rvnpu ISA reference (Markdown) from isa.def and the CSR table; docs/rvnpu-isa.md
 * is its output, and a test keeps the two identical. Run: rvnpu_isadoc > docs/rvnpu-isa.md */
#include <stdio.h>

#include "targets/isadoc.h"

#include "targets/rvnpu/rvnpu.h"

static const char *const class_names[] = {"RV32I", "M", "F", "Zicsr", "priv", "NPU", "FNPU"};
static const char *const fmt_names[] = {"R", "R4", "I", "S", "B", "U", "J", "SYS"};
static const char *const rev_names[] = {"both", "seed", "rev2"};


int main(void)
{
    printf("# rvnpu ISA reference\n\n"
           "Generated from `src/targets/rvnpu/isa.def` by `rvnpu_isadoc`; do not "
           "edit by hand.\nThe target itself is described in [rvnpu.md](rvnpu.md), the NPU "
           "semantics in\n[rvnpu-npu.md](rvnpu-npu.md) and the contract in the rvnpu "
           "specification.\n\n"
           "A word is an instruction when `(word & mask) == match` for a row of the selected\n"
           "revision; the first such row wins. Operands are listed in assembly order; `rm` is an\n"
           "optional trailing rounding mode (default `dyn`). Count: the register read as the NPU\n"
           "element count; elem: bytes per element for the rev2 256-byte limit.\n\n"
           "## Instructions\n\n"
           "| mnemonic | match | mask | format | operands | class | rev | count | elem | "
           "semantics |\n|---|---|---|---|---|---|---|---|---|---|\n");
#define RVNPU_INSN(id, mnemonic, match, mask, format, operands, class, rev, count, elem,      \
                   summary)                                                                  \
    printf("| `%s` | 0x%08X | 0x%08X | %s | %s | %s | %s | %s | %s | ", mnemonic,             \
           (unsigned)(match), (unsigned)(mask), fmt_names[RVNPU_FMT_##format],                 \
           (operands)[0] ? operands : "-", class_names[RVNPU_CLASS_##class],                   \
           rev_names[RVNPU_REV_##rev], #count, (elem) ? #elem : "-");                          \
    npk_isadoc_cell(summary);
#include "targets/rvnpu/isa.def"
    printf("\n## CSRs\n\n| name | number | access |\n|---|---|---|\n");
    for (size_t i = 0; i < rvnpu_n_csrs; i++)
        printf("| `%s` | 0x%03X | %s |\n", rvnpu_csrs[i].name, rvnpu_csrs[i].addr,
               rvnpu_csrs[i].writable ? "RW" : "RO");
    return 0;
}
