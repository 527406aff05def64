// Compiled into the verilated testbench: Verilator's prototypes of the package's imports
// (Vdpi_tb__Dpi.h) and npukit's own (npukit/dpi.h) in one C++ file, where any difference in a
// type is a "conflicting declaration" error. Nothing here runs.
#include "Vdpi_tb__Dpi.h"
#include <npukit/dpi.h>
