; fp.s: binary32 arithmetic on constants from data directives.
; (1.5 + 2.25) * 4.0 must be exactly 15.0 (0x41700000); prints "ok" or "bad".

        ld      r1, a(r0)
        ld      r2, b(r0)
        fadd    r3, r1, r2          ; 3.75
        ld      r2, four(r0)
        fmul    r3, r3, r2          ; 15.0
        ld      r4, want(r0)
        li      r5, 'o'
        li      r6, 'k'
        beq     r3, r4, print
        li      r5, 'b'             ; "ba" then a second 'd' below
        li      r6, 'a'
        putc    r5
        putc    r6
        li      r5, 'd'
        putc    r5
        jmp     newline
print:  putc    r5
        putc    r6
newline:
        li      r5, '\n'
        putc    r5
        halt

        .align  4
a:      .f32    1.5
b:      .f32    2.25
four:   .f32    4.0
want:   .word   0x41700000          ; 15.0 as raw bits
