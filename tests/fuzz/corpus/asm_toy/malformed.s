# malformed.s: a deliberately broken toy program. test_toy.c assembles it and compares every
# diagnostic with malformed.expected (file:line:col, the line and the caret).

        .equ    SIZE, 8
        .equ    SIZE, 9                 # redefinition
start:  li      r1, SIZE * 10000        # 80000 does not fit
        addd    r1, r2, r3              # unknown mnemonic
        add.sat.rtz r1, r2, r3          # unknown option
        mul.sat r1, r2, r3              # option not allowed
        add     r1, r2                  # missing operand
        ld      r9, 4(r2)               # no register r9
        st      r1, 4(r2), r3           # too many operands
        beq     r1, r2, nowhere         # undefined label
        jmp     start + 2               # misaligned target
        li      r2, 0x7fffffffffffffff + 1
start:  nop                             # duplicate label
r3:     halt                            # a register name is not a label
        .bogus                          # unknown directive
        .word   1 / (SIZE - 8)          # division by zero
        .byte   300                     # does not fit a byte
        .f32    3.4e38, 1e40            # the second overflows (a warning)
        .ascii  "unterminated
        .align  6                       # not a power of two
        nop                             # unaligned: the data above ends at 0x3d
