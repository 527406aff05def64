# sum.s: add 1 + 2 + ... + N in a loop and exit with the sum as status (55 for N = 10).

        .equ    N, 10

        li      r1, 0               # sum
        li      r2, 1               # i
        li      r3, N + 1           # loop bound
loop:   add     r1, r1, r2          # sum += i
        addi    r2, r2, 1           # i += 1
        bne     r2, r3, loop
        exit    r1                  # status = sum & 0xff
