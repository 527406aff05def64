/* Prints the toy ISA reference (Markdown) from isa.def; docs/toy-isa.md is its output, and a
 * test keeps the two identical. Run: toy_isadoc > docs/toy-isa.md */
#include <stdio.h>

int main(void)
{
    printf("# toy ISA reference\n\n"
           "Generated from `src/targets/toy/isa.def` by `toy_isadoc`; do not edit by hand.\n\n"
           "toy is npukit's reference target: a 32-bit machine with eight registers `r0`..`r7`\n"
           "and one byte-addressed memory that holds program and data (program at address\n"
           "0). Words are little-endian. A word is legal when its opcode is listed and every\n"
           "bit outside the fields its operands and options use is zero.\n\n"
           "The memory size is the `mem` setting: a multiple of 4 bytes from 16 bytes to a\n"
           "maximum of 16 MiB (default 64 KiB); a larger `mem` fails when the machine is\n"
           "created, naming the size.\n\n"
           "## Fields\n\n| field | bits |\n|---|---|\n");
#define TOY_FIELD(name, lsb, width) printf("| %s | [%d:%d] |\n", #name, (lsb) + (width)-1, lsb);
#include "targets/toy/isa.def"
    printf("\n## Operand kinds\n\n| operand | kind | field | second field |\n|---|---|---|---|\n");
#define TOY_OPERAND(name, kind, field, field2)                                                \
    printf("| `%s` | %s | %s | %s |\n", #name, #kind, #field, #field2);
#include "targets/toy/isa.def"
    printf("\n## Options\n\n| option | field |\n|---|---|\n");
#define TOY_OPTION(name, field) printf("| `.%s` | %s |\n", #name, #field);
#include "targets/toy/isa.def"
    printf("\n## Units (timing)\n\n| unit | latency (cycles) |\n|---|---|\n");
#define TOY_UNIT(id, name, latency) printf("| %s | %d |\n", name, latency);
#include "targets/toy/isa.def"
    printf("\n## Instructions\n\n| mnemonic | opcode | operands | options | unit | semantics |\n"
           "|---|---|---|---|---|---|\n");
#define TOY_INSN(id, mnemonic, opcode, operands, options, unit, summary)                      \
    printf("| `%s` | 0x%02X | %s | %s | %s | %s |\n", mnemonic, opcode,                      \
           operands[0] ? operands : "-", options[0] ? options : "-", #unit, summary);
#include "targets/toy/isa.def"
    printf("\nTiming: single issue, in order; an instruction issues one cycle after the\n"
           "previous one, later while a source register awaits a result; it completes after\n"
           "its unit's latency; a taken branch adds one bubble.\n");
    return 0;
}
