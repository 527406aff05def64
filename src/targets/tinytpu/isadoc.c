/* Prints the tinytpu word-format reference (Markdown) from fields.def; docs/tinytpu-words.md is
 * its output, and a test keeps the two identical. Run: tinytpu_isadoc > docs/tinytpu-words.md */
#include <stdio.h>
#include <string.h>

#include "targets/isadoc.h"
#include "targets/tinytpu/tinytpu.h"

typedef struct field {
    const char *name;
    unsigned port, lanes, lsb[3], width[3];
    const char *meaning;
} field;

static const field fields[] = {
#define TT_FIELD(id, name, port, lanes, l88, w88, l94, w94, l130, w130, meaning)                   \
    {name, port, lanes, {l88, l94, l130}, {w88, w94, w130}, meaning},
#include "targets/tinytpu/fields.def"
};
#define N_FIELDS (sizeof fields / sizeof fields[0])

static const struct {
    const char *name;
    unsigned bits;
} formats[] = {
#define TT_FORMAT(id, name, bits) {name, bits},
#include "targets/tinytpu/fields.def"
};

static const struct {
    const char *name;
    unsigned digits;
} port[] = {
#define TT_PORT(name, field, digits) {name, digits},
#include "targets/tinytpu/fields.def"
};

static const struct {
    unsigned sel;
    const char *name, *feeds;
} chans[] = {
#define TT_CHAN(sel, name, feeds) {sel, name, feeds},
#include "targets/tinytpu/fields.def"
};

/* Is the port column `name` one per lane (a per-lane field of fields.def)? */
static int lanes(const char *name)
{
    for (size_t f = 0; f < N_FIELDS; f++)
        if (fields[f].lanes && strcmp(fields[f].name, name) == 0)
            return 1;
    return 0;
}

static void bits(unsigned lsb, unsigned width)
{
    if (width == 1)
        printf("%u", lsb);
    else
        printf("%u:%u", lsb + width - 1, lsb);
}

static void fixed_table(unsigned k)
{
    printf("### %s (%u bits, N = 2, %u hex digits per line)\n\n"
           "| bits | field | values | meaning |\n|---|---|---|---|\n",
           formats[k].name, formats[k].bits, (formats[k].bits + 3) / 4);
    for (size_t f = 0; f < N_FIELDS; f++) {
        for (unsigned l = 0; l < (fields[f].lanes ? 2u : 1u); l++) {
            printf("| ");
            bits(fields[f].lsb[k] + l * fields[f].width[k], fields[f].width[k]);
            if (fields[f].lanes)
                printf(" | %s[%u]", fields[f].name, l);
            else
                printf(" | %s", fields[f].name);
            printf(" | 0..%lu | ", (1ul << fields[f].width[k]) - 1);
            npk_isadoc_cell(fields[f].meaning);
        }
    }
    printf("\n");
}

/* Port width of a port-stream column (rst and lr are settings, not fields). */
static unsigned port_bits(const char *name)
{
    for (size_t f = 0; f < N_FIELDS; f++)
        if (strcmp(fields[f].name, name) == 0)
            return fields[f].port;
    return strcmp(name, "rst") == 0 ? 1 : 16;
}

/* "a + bN" */
static void lin(unsigned a, unsigned b)
{
    if (!b)
        printf("%u", a);
    else if (b == 1)
        printf("%u + N", a);
    else
        printf("%u + %uN", a, b);
}

int main(void)
{
    printf("# tinytpu control words and text formats\n\n"
           "Generated from `src/targets/tinytpu/fields.def` by `tinytpu_isadoc`; do not edit by\n"
           "hand. The contract is `docs/spec/tinytpu.md` Part B; this page is the table the\n"
           "encoder, decoder, assembler, disassembler and port-stream code are built from, plus\n"
           "the front end's decisions where the specification leaves a choice.\n\n"
           "## Logical fields (B2)\n\n| field | port bits | per lane | meaning |\n"
           "|---|---|---|---|\n");
    for (size_t f = 0; f < N_FIELDS; f++) {
        printf("| %s | %u | %s | ", fields[f].name, fields[f].port, fields[f].lanes ? "yes" : "no");
        npk_isadoc_cell(fields[f].meaning);
    }
    printf("| lr | 16 | no | learning rate (Q8.8): a machine setting, in no word (B6) |\n"
           "| rst | 1 | no | reset cycle: a machine setting, in no word (B6) |\n\n"
           "A value wider than a format's field is an error (never truncated): the assembler\n"
           "reports it at the field (with `.format` or a check format), the writers name the\n"
           "cycle and its source line.\n\n"
           "## Packed words (B3-B5)\n\n");
    for (unsigned k = 0; k < sizeof formats / sizeof formats[0]; k++)
        fixed_table(k);
    printf("### wfull (96 + 17N bits, any N; ceil((96 + 17N)/4) hex digits per line)\n\n"
           "The fields in the order above at their port widths; lane i of a per-lane field at\n"
           "lsb + i * width. For N = 2 this is exactly the 130-bit word.\n\n"
           "| lsb | width | field |\n|---|---|---|\n");
    unsigned a = 0, b = 0;
    for (size_t f = 0; f < N_FIELDS; f++) {
        printf("| ");
        lin(a, b);
        if (fields[f].lanes) {
            printf(" | %u each | %s[0..N-1] |\n", fields[f].port, fields[f].name);
            b += fields[f].port;
        } else {
            printf(" | %u | %s |\n", fields[f].port, fields[f].name);
            a += fields[f].port;
        }
    }
    printf("\nTotal: ");
    lin(a, b);
    printf(" bits.\n\n## Read channels (A7.1)\n\n| sel | `read` name | feeds |\n|---|---|---|\n");
    for (size_t i = 0; i < sizeof chans / sizeof chans[0]; i++) {
        printf("| %u | %s | ", chans[i].sel, chans[i].name);
        npk_isadoc_cell(chans[i].feeds);
    }
    printf("| 7..511 | `read sel=<n>` | nothing (issues nothing, C4.4) |\n\n"
           "## Port stream (B7.2)\n\nOne line per cycle, hexadecimal fields separated by blanks, "
           "`#` comments:\n\n`");
    for (size_t i = 0; i < sizeof port / sizeof port[0]; i++)
        printf(i ? " %s%s" : "%s%s", port[i].name, lanes(port[i].name) ? "[0..N-1]" : "");
    printf("`\n\n12 + 2N fields:\n\n| column | port bits | digits written |\n|---|---|---|\n");
    for (size_t i = 0; i < sizeof port / sizeof port[0]; i++)
        printf("| %s%s | %u | %u |\n", port[i].name, lanes(port[i].name) ? "[i]" : "",
               port_bits(port[i].name), port[i].digits);
    printf("\nThe writer starts with a `#` header line naming the columns; the reader accepts "
           "any number\n"
           "of digits whose value fits the port width. A line with rst = 1 is a reset cycle; its\n"
           "other fields are kept in the program (the machine ignores them), so a stream\n"
           "survives reading and writing unchanged. hd[i] of a lane with hv[i] = 0 is not kept\n"
           "(the program stores host writes only).\n\n"
           "## Hex word files (B7.1)\n\n"
           "One word per line, exactly ceil(bits/4) hex digits (either case), most significant\n"
           "first; bits above the word width must be 0. Blank lines and `#` comments are ignored,\n"
           "except three kinds of whole-line comment that npukit writes and reads back\n"
           "(**decision**: words carry no lr and no reset, B6, so a file that did not say them\n"
           "would run with other settings than it was written for):\n\n"
           "| line | meaning |\n|---|---|\n"
           "| `# tinytpu FMT words (BITS bits), N = n: ...` | the header: the format and lanes. "
           "A reader told another format (`format=`), or a machine with other lanes, stops with "
           "one error at this line |\n"
           "| `# cycle K: lr 0xHHHH ...` | lr is 0xHHHH from cycle K on, as `.lr` would say (the lr "
           "setting applies before the first one; one at cycle 1 that replaces a non-zero "
           "setting is a warning) |\n"
           "| `# cycle K: reset cycle ...` | cycle K is a reset cycle (as `--reset-at K`); its word "
           "holds the cycle's fields, which the machine ignores |\n\n"
           "A `# cycle K` line stands right before the word of cycle K (otherwise it is an error\n"
           "naming both cycles). The writer puts the header first, a `# cycle K: lr` line before\n"
           "each cycle whose lr differs from the cycle before (from 0), and a `# cycle K: reset\n"
           "cycle (--reset-at K)` line before each reset cycle, so every program reads back\n"
           "unchanged. A file without these lines (another tool's) is read as B7.1 says: lr and\n"
           "resets come from the settings.\n\n"
           "**Format detection** (`format=auto`, the default for `npukit run` and `disasm`): the\n"
           "header names the format; without one, the first line that is not blank or a comment\n"
           "decides: exactly 22 (w88), 24 (w94) or ceil((96 + 17N)/4) (w130 for N = 2, wfull)\n"
           "hex digits, or 12 + 2N hex fields (port stream). Anything else is assembly (no\n"
           "assembly line has either shape). `npukit compile` names files by format: `.tt`\n"
           "assembly, `.hex` hex words, `.w88 .w94 .w130 .wfull`, `.port`.\n\n"
           "## Assembly (B7.3): decisions\n\n"
           "- **Q8.8 values** (`.leak .inv .lr`, `host<i>=`): `0x` + up to 4 hex digits = raw\n"
           "  bits; a decimal with a point (`0.75`, `-1.5`, `.5`, `2.`) is converted exactly\n"
           "  (decimal arithmetic, not via binary floating point): round to nearest, ties to\n"
           "  even, then saturate to 0x8000..0x7FFF. A bare integer other than `0` is an error\n"
           "  (`1` could mean 0x0001 or 1.0); the message offers both spellings.\n"
           "- **Format limits at assembly time**: `.format w88|w94|w130|wfull` (before the first\n"
           "  cycle) or the API's check format (`tt_assemble_for`) makes every read field and raw\n"
           "  word that the format cannot hold an error at its file:line:col. Without it, the\n"
           "  check happens when a format is written (`tt_write_program`: \"cycle k (line L):\n"
           "  addr 37 does not fit w88 (0..3)\").\n"
           "- **`@k`** must be above the last cycle so far. The idle fill carries the levels of\n"
           "  the cycle before it (initially all 0 and lr = the setting); level directives\n"
           "  written between take effect at cycle k. `@k` alone is an idle cycle at k. `nop`\n"
           "  cannot take `@`.\n"
           "- **`.reset`** is a cycle; it records the directive levels in force (the disassembler\n"
           "  restores them before it). Raw words (`.w88 .w94 .w130 .wfull`) take their levels\n"
           "  from the word and lr from the directives; they do not change the directives.\n"
           "- **Clauses**: `sw`, one `read`, `host<i>=<value>` (each lane once, kept in the\n"
           "  written order), any order; keywords are case-insensitive. A `read` sets start = 1;\n"
           "  identical consecutive reads issue once (A7.8).\n"
           "- **Listing** (`npukit asm --listing`, `tt_listing`, `npk_set_listing`): per source\n"
           "  line its cycles (`12`; `7-8` for `nop 2`; `5-8 idle, 9*` for an `@9` line after\n"
           "  cycle 4; `*` marks a cycle whose read issues), the word of its last cycle in the\n"
           "  `words` format (`reset` for a reset cycle), the line number and the line.\n"
           "- **Disassembly** prints `.lanes N`, level directives where a level changes (with the\n"
           "  decimal value as a comment), one cycle line per word, `@k` after idle runs whose\n"
           "  levels equal the previous cycle's, `nop n` for idle runs before a reset, a raw word\n"
           "  or the end, and `.wfull` for a word no line can say (start = 0 with read fields\n"
           "  set). It assumes lr = 0 before cycle 1 (an `.lr` appears when cycle 1 differs).\n"
           "- **Limits**: a program file (assembly, hex words, port stream) has at most\n"
           "  `max_cycles` cycles (default %u, at most %u; 32 bytes of memory per cycle); the\n"
           "  first cycle too many is one error and the rest of the file is not read. N is\n"
           "  2..256.\n",
           TT_DEFAULT_MAX_CYCLES, TT_MAX_CYCLES_LIMIT);
    return 0;
}
