# hello.s: print a greeting with a putc loop.
# The string is stored one character per word because toy loads only whole words.

        li      r1, msg             # r1 walks the string
loop:   ld      r2, 0(r1)           # next character
        beq     r2, r0, done        # r0 is still 0: the terminator ends the loop
        putc    r2
        addi    r1, r1, 4
        jmp     loop
done:   halt

msg:    .word   'H', 'e', 'l', 'l', 'o', ',', ' ', 't', 'o', 'y', '!', '\n', 0
