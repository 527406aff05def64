/* Prints the pccx ISA reference (Markdown) from isa.def; docs/pccx-isa.md is its output, and a
 * test keeps the two identical. Run: pccx_isadoc > docs/pccx-isa.md */
#include <stdio.h>

#include "targets/isadoc.h"

#include "targets/pccx/isa.h"

static const char *const print_names[] = {"hex address", "decimal", "flag words", "bank word",
                                          "route bit", "function", "flag word `async`",
                                          "reserved: must be zero"};
static const char *const shape_names[] = {"unary: n in, n out", "scalar-first: n in, n-1 out",
                                          "reduction: n in, 1 out",
                                          "binary (dst op src): n in, n out"};

static void fields(pccx_layout l)
{
    printf("| bits | field | assembly | printed as | meaning |\n|---|---|---|---|---|\n");
    for (int f = 0; f < PCCX_N_FIELDS; f++) {
        const pccx_field_info *fi = &pccx_fields[f];
        if (fi->layout != l)
            continue;
        if (fi->width == 1)
            printf("| [%u] ", fi->lsb);
        else
            printf("| [%u:%u] ", fi->lsb + fi->width - 1, fi->lsb);
        if (fi->print == PCCX_P_ASYNC)
            printf("| %u bit | `%s` | %s | ", fi->width, fi->key, print_names[fi->print]);
        else
            printf("| %u bit%s | %s%s%s | %s | ", fi->width, fi->width == 1 ? "" : "s",
                   fi->key[0] ? "`" : "", fi->key[0] ? fi->key : "-", fi->key[0] ? "=`" : "",
                   print_names[fi->print]);
        npk_isadoc_cell(fi->summary);
    }
    int any = 0;
    for (int i = 0; i < PCCX_N_FLAGS; i++)
        if (pccx_flags[i].layout == l) {
            if (!any)
                printf("\nFlags (masks of the flags FIELD, as the C API's constants):\n\n"
                       "| flag | field mask | word bit | meaning |\n|---|---|---|---|\n");
            any = 1;
            unsigned lsb = l == PCCX_L_CVO ? pccx_fields[PCCX_F_C_FLAGS].lsb
                                           : pccx_fields[PCCX_F_G_FLAGS].lsb;
            unsigned bit = 0;
            while (!((pccx_flags[i].mask >> bit) & 1))
                bit++;
            printf("| `%s` | 0x%02X | %u | ", pccx_flags[i].name, pccx_flags[i].mask, lsb + bit);
            npk_isadoc_cell(pccx_flags[i].summary);
        }
    printf("\n");
}

int main(void)
{
    printf("# pccx ISA reference\n\n"
           "Generated from `src/targets/pccx/isa.def` by `pccx_isadoc`; do not edit by hand.\n"
           "The contract is the pccx specification (`docs/spec/pccx.md`, §4); this page is the\n"
           "table the encoder, decoder, validity checks, assembler, disassembler and statistics\n"
           "are built from. Every instruction is 64 bits: opcode in [63:60], a 60-bit body.\n\n"
           "## Opcodes\n\n| opcode | mnemonic | body layout | engine | summary |\n"
           "|---|---|---|---|---|\n");
    for (int o = 0; o < PCCX_N_OPS; o++) {
        printf("| 0x%X | `%s` | %s | %s | ", pccx_ops[o].opcode, pccx_ops[o].mnemonic,
               pccx_layout_names[pccx_ops[o].layout], pccx_engine_names[pccx_ops[o].engine]);
        npk_isadoc_cell(pccx_ops[o].summary);
    }
    printf("| 0x5 .. 0xF | | | | reserved: illegal in strict mode, dropped in hw-compat |\n\n");
    for (int l = 0; l < PCCX_N_LAYOUTS; l++) {
        printf("## %s body\n\n", pccx_layout_names[l]);
        fields((pccx_layout)l);
        if (l == PCCX_L_MEMSET) {
            printf("Banks (the first operand: `memset fmap, ...`; raw form `bank=E`):\n\n"
                   "| value | word | meaning |\n|---|---|---|\n");
#define PCCX_BANK(id, value, name, summary) printf("| %d | `%s` | %s |\n", value, name, summary);
#include "targets/pccx/isa.def"
            printf("| 2, 3 | | reserved |\n\n");
        }
        if (l == PCCX_L_MEMCPY) {
            printf("Routes (`memcpy.<suffix>` in assembly):\n\n"
                   "| from | to | suffix | must be zero | meaning |\n|---|---|---|---|---|\n");
            for (int r = 0; r < PCCX_N_ROUTES; r++) {
                const pccx_route_info *ri = &pccx_routes[r];
                printf("| %u | %u | %s | %s | ", ri->from, ri->to, ri->suffix[0] ? ri->suffix : "-",
                       ri->zero_field >= 0 ? pccx_fields[ri->zero_field].key : "-");
                npk_isadoc_cell(ri->summary);
            }
            printf("\n");
        }
    }
    printf("## CVO functions\n\n| code | mnemonic | profile | operands | result |\n"
           "|---|---|---|---|---|\n");
    for (int f = 0; f < PCCX_N_CVO_FUNCS; f++) {
        const pccx_cvo_info *ci = &pccx_cvos[f];
        printf("| 0x%X | `%s` | %s | %s | ", ci->code, ci->mnemonic, ci->ext ? "ext" : "base",
               shape_names[ci->shape]);
        npk_isadoc_cell(ci->summary);
    }
    printf("| 0xF | | | | reserved in every profile |\n\n"
           "## Statistics names\n\n`npukit run --stats` counts instructions under these names:");
    for (int i = 0; i < PCCX_N_MNEMONICS; i++)
        printf("%s `%s`", i ? "," : "", pccx_mnemonic_names[i]);
    printf(".\n\n## Validity (§4.8)\n\n"
           "Checked when a word is decoded, before it has any effect. `strict` reports the first\n"
           "applicable row; `hw-compat` drops the instruction for the first three rows, executes\n"
           "it as if the offending bits were zero for the others, and keeps `E_ROUTE`.\n\n"
           "| condition | strict | hw-compat |\n|---|---|---|\n"
           "| opcode 0x5..0xF (also the KICK word 0x8000000000000000) | `E_ILLEGAL_OPCODE` | dropped |\n"
           "| CVO func 0xF, or 0x8..0xE without `ext` | `E_ILLEGAL_FUNC` | dropped |\n"
           "| MEMSET bank 2 or 3 | `E_RESERVED_VALUE` | dropped |\n"
           "| GEMV/GEMM bits [2:0] or [22:20] nonzero | `E_RESERVED` | bits ignored |\n"
           "| MEMSET bits [3:0] nonzero | `E_RESERVED` | bits ignored |\n"
           "| CVO bits [2:1] nonzero | `E_RESERVED` | bits ignored |\n"
           "| MEMCPY: the route's must-be-zero field nonzero | `E_RESERVED` | field ignored |\n"
           "| CVO `recip_scale` with a function other than `scale` | `E_BAD_FLAGS` | flag ignored |\n"
           "| `vmul` with `accm` (ext) | `E_BAD_FLAGS` | flag ignored |\n"
           "| MEMCPY host -> host | `E_ROUTE` | `E_ROUTE` |\n");
    return 0;
}
