/* rvnpu's register description for the GDB stub: the standard RISC-V features gdb knows
 * (org.gnu.gdb.riscv.cpu and .fpu, numbered as gdb's own 32bit-cpu/32bit-fpu descriptions
 * number them) and an NPU feature with the accumulators and vector registers (rvnpu spec §2). */
#include <string.h>

#include "debug/gdb.h"

static const npk_gdb_feature features[] = {
    {"org.gnu.gdb.riscv.cpu", ""},
    {"org.gnu.gdb.riscv.fpu", ""},
    /* v0..v3 hold four int8 elements, element j in byte j (docs/state.md) */
    {"org.npukit.rvnpu.npu", "<vector id=\"v4i8\" type=\"int8\" count=\"4\"/>"},
};

#define X(n, t) {"x" #n, "x" #n, 32, t, 0}
#define F(n) {"f" #n, "f" #n, 32, "ieee_single", 1}
static const npk_gdb_reg regs[] = {
    X(0, "int"), X(1, "code_ptr"), X(2, "data_ptr"), X(3, "data_ptr"), X(4, "data_ptr"),
    X(5, "int"), X(6, "int"), X(7, "int"), X(8, "data_ptr"), X(9, "int"), X(10, "int"),
    X(11, "int"), X(12, "int"), X(13, "int"), X(14, "int"), X(15, "int"), X(16, "int"),
    X(17, "int"), X(18, "int"), X(19, "int"), X(20, "int"), X(21, "int"), X(22, "int"),
    X(23, "int"), X(24, "int"), X(25, "int"), X(26, "int"), X(27, "int"), X(28, "int"),
    X(29, "int"), X(30, "int"), X(31, "int"),
    {"pc", "pc", 32, "code_ptr", 0},
    F(0), F(1), F(2), F(3), F(4), F(5), F(6), F(7), F(8), F(9), F(10), F(11), F(12), F(13),
    F(14), F(15), F(16), F(17), F(18), F(19), F(20), F(21), F(22), F(23), F(24), F(25),
    F(26), F(27), F(28), F(29), F(30), F(31),
    {"fflags", "fflags", 32, "int", 1},
    {"frm", "frm", 32, "int", 1},
    {"fcsr", "fcsr", 32, "int", 1},
    {"acc", "acc", 64, "int64", 2},
    {"facc", "facc", 64, "ieee_double", 2},
    {"v0", "v0", 32, "v4i8", 2},
    {"v1", "v1", 32, "v4i8", 2},
    {"v2", "v2", 32, "v4i8", 2},
    {"v3", "v3", 32, "v4i8", 2},
};
#undef X
#undef F

static const npk_gdb_target rvnpu = {
    "rvnpu", "riscv:rv32", features, sizeof features / sizeof features[0],
    regs, sizeof regs / sizeof regs[0], "ram", 0x80000000u, "bus",
};

const npk_gdb_target *npk_gdb_target_for(const char *target)
{
    return target && strcmp(target, "rvnpu") == 0 ? &rvnpu : NULL;
}
