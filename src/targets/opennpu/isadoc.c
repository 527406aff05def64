/* Prints the opennpu ISA reference (Markdown) from isa.def; docs/opennpu-isa.md is its output,
 * and a test keeps the two identical. Run: onpu_isadoc > docs/opennpu-isa.md */
#include <stdio.h>

#include "targets/isadoc.h"

#include "targets/opennpu/opennpu.h"

static const char *const fmt_names[] = {"N", "R", "RC", "I", "S"};

static const uint8_t canon_f7[ONPU_N_OPS] = {
#define ONPU_CANON_F7(id, funct7) [ONPU_OP_##id] = funct7,
#include "targets/opennpu/isa.def"
};


static void latency(unsigned lat)
{
    if (lat == ONPU_LAT_MEM)
        printf("mem_latency");
    else if (lat == ONPU_LAT_DRAIN)
        printf("drain");
    else
        printf("%u", lat);
}

int main(void)
{
    printf("# opennpu ISA reference\n\n"
           "Generated from `src/targets/opennpu/isa.def` by `onpu_isadoc`; do not edit by hand.\n"
           "The contract is the opennpu specification (`docs/spec/opennpu.md`); this page is\n"
           "the table the decoder, assembler, disassembler and machine are built from, plus the\n"
           "front end's decisions where the specification leaves a choice.\n\n"
           "## Word formats\n\n"
           "| format | [31:27] | [26:25] | [24:20] | [19:15] | [14:12] | [11:7] | [6:0] |\n"
           "|---|---|---|---|---|---|---|---|\n"
           "| R, RC | funct7[6:2] | funct7[1:0] | rs2 | rs1 | funct3 | rd | opcode |\n"
           "| I | imm[11:7] | imm[6:5] | imm[4:0] | rs1 | funct3 | rd | opcode |\n"
           "| S | rs3 | rnd | rs2 | rs1 | funct3 | rd | opcode |\n\n"
           "- R (standard attribute layout): funct7 = dtype[6:5] sat[4] round[3:2] width[1:0];\n"
           "  width 00 VX, 01 VE, 10 VR; round 00 rne, 01 rtz, 10 floor, 11 ceil; dtype 00 INT,\n"
           "  01 FP, 10 BF. width = 11 or dtype = 11 is illegal on every R row.\n"
           "- RC (VALU_CVT): funct7 = var[6] round[5:4] sat[3] src[2:0]; funct3 is the\n"
           "  destination format.\n"
           "- I: imm = sext12(word[31:20]). S: rs3 = word[31:27], rnd = word[26:25]. Neither has a\n"
           "  funct7, so width/dtype are never checked on them.\n"
           "- N (nop): bits [31:7] are ignored.\n\n"
           "Register fields are masked per class: VX uses [4:0], VE [3:0], VR [2:0]; the index\n"
           "must then be below L, L/2 or L/4.\n\n"
           "## Conversion format codes\n\n| code | format | lane bits | class |\n|---|---|---|---|\n");
#define ONPU_CVT_FMT(code, name, bits, cls)                                                    \
    printf("| %d | %s | %d | %s |\n", code, name, bits, #cls);
#include "targets/opennpu/isa.def"
    printf("| 6, 7 | reserved | | |\n\n"
           "## Instructions\n\n"
           "A word is the row's instruction when `(word & mask) == match`; no two rows overlap.\n"
           "Operand kinds: `wd ws1 ws2` a register of the class funct7.width selects (all of one\n"
           "class), `vxd vxs1 ...` fixed classes in rd/rs1/rs2/rs3, `cvtd cvts` the classes of\n"
           "the conversion's formats, `mem` = `off(vrN)` (imm, base in rs1), `seg` a LUT segment\n"
           "0 .. 64/K-1, `imm8` -128..255, `imm12` -2048..2047. canonical funct7: the fixed bits\n"
           "the assembler emits (width, round, sat, keep and var come from the text).\n\n"
           "| mnemonic | match | mask | format | operands | options | canonical funct7 | unit | "
           "latency | semantics |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (unsigned op = 0; op < ONPU_N_OPS; op++) {
        const onpu_insn_info *in = &onpu_insns[op];
        printf("| `%s` | 0x%08X | 0x%08X | %s | %s | %s | ", in->mnemonic, (unsigned)in->match,
               (unsigned)in->mask, fmt_names[in->fmt], in->operands[0] ? in->operands : "-",
               in->options[0] ? in->options : "-");
        if (in->fmt == ONPU_FMT_R)
            printf("0x%02X", canon_f7[op]);
        else
            printf("-");
        printf(" | %s | ", onpu_unit_names[in->unit]);
        latency(in->latency);
        printf(" | ");
        npk_isadoc_cell(in->summary);
    }
    printf(
        "\nOptions: `sat` (.sat), `keep` (.keep), `round` (.rne .rtz .floor .ceil, at most one;\n"
        ".rne is the default), `var` (.e4m3 .e5m2, at most one; .e4m3 is the default). The\n"
        "disassembler prints them in the order variant, .sat, .keep, rounding, and only when\n"
        "their bit is set.\n\n"
        "## Legality (spec §4.5), in order, with the decoder's reasons\n\n"
        "1. reserved opcode: `reserved opcode 0x7f`\n"
        "2. reserved funct3: `reserved funct3 110 for LD`\n"
        "3. illegal conversion (source -> destination): `illegal conversion s8 -> s16`,\n"
        "   `illegal conversion f32 -> reserved format 110`\n"
        "4. reserved attribute on an R row: `reserved width 11`, `reserved dtype 11` (width is\n"
        "   checked first)\n"
        "5. register out of range, in operand order: `register vr5 out of range (L/4 = 4)`\n"
        "6. LUT segment out of range: `LUT segment 9 out of range 0..7`\n\n"
        "## Front-end decisions\n\n"
        "Places where the specification leaves a choice to the implementation, and how the\n"
        "assembler, disassembler and decoder settle them.\n\n"
        "- **The rd of `mma`.** §4.4 says a feed ignores rd (never checked, no effect) while\n"
        "  §7.4 makes `vrD` part of its text and §4.6 encodes it. The decoder therefore leaves\n"
        "  `rd` at 0 and never range-checks it, and keeps the VR-masked field in\n"
        "  `onpu_decoded.mma_rd` (rd & 7) for the text. A feed word is canonical only when its rd\n"
        "  field equals that index and the index is below L/4; otherwise (e.g. rd field 10, or\n"
        "  rd field 5 at L = 16) it disassembles as `.word` with a comment. `mma.last` uses rd\n"
        "  (drain base) and checks it (rule 5).\n"
        "- **Immediates the assembler refuses.** `vbcast.imm` and `vmovh` accept -128..255\n"
        "  (§7.4), the field holds -2048..2047. A legal word with an immediate outside the\n"
        "  operand range prints as `.word` (\"non-canonical: immediate 300 outside -128..255\").\n"
        "- **Canonical check.** `onpu_encode` builds the word the assembler emits for a decoded\n"
        "  instruction (the assembler itself uses it); a legal word is canonical when it equals\n"
        "  `onpu_encode` of its decoding and its text is assemblable (the two cases above). The\n"
        "  comment of a non-canonical word lists the fields that differ, e.g.\n"
        "  `.word 0x00208016  # vfadd vr0, vr1, vr2 (non-canonical: funct7 0x00, canonical 0x22)`.\n"
        "- **Decoded fields.** `cls` is funct7.width for rows with `w` operands (and REDUCE),\n"
        "  the destination class for VALU_CVT, and 0 for every other row (FP, MMA, LUT, LD/ST,\n"
        "  I forms). `round`/`sat`/`keep`/`var` are filled only for rows whose option list has\n"
        "  them (`var` only for the two bf8 conversions), so e.g. the round bits of `vadd` decode\n"
        "  as 0 and make the word non-canonical.\n"
        "- **Directives.** Only `.equ` and `.word` (§7.3); any other directive is an error.\n"
        "- **`.equ` names.** Register names (`vx`/`ve`/`vr` followed by any decimal number),\n"
        "  option words (`sat keep rne rtz floor ceil e4m3 e5m2`) and mnemonics are refused in any\n"
        "  letter case, since those words are case-insensitive in the language; so are names\n"
        "  with a dot (§7.3's name pattern has none). Names must be defined before use.\n"
        "- **Explicit defaults.** `.rne` and `.e4m3` may be written; they encode 0 and the\n"
        "  disassembler omits them.\n"
        "- **Diagnostics.** Errors and the K > L/4 warning carry a column\n"
        "  (`t.s:2:1: warning: mma.last drains 64 columns into 8 vr registers ...`), the source\n"
        "  line and a caret (the shared engine's format).\n");
    return 0;
}
