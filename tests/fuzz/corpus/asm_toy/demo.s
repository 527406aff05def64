# toy demo: the sieve of Eratosthenes below N, run REPS times, then the prime count is
# printed in decimal. Exercises loads/stores, mul, branches, expressions and .equ.
# Expected output: 5133 (there are 5133 primes below 50000).

        .equ N, 50000
        .equ REPS, 8
        .equ FLAGS, 0x1000              # flag word of k at FLAGS + 4*k

        li   r0, 0                      # r0 stays 0
        li   r7, REPS
rep:
        # clear the flags
        li   r1, 0
        lui  r2, (4 * N) >> 16
        ori  r2, r2, (4 * N) & 0xffff   # r2 = 4N, the end offset
clear:  st   r0, FLAGS(r1)
        addi r1, r1, 4
        blt  r1, r2, clear

        # for i = 2 while i*i < N: if flag[i] == 0, mark i*i, i*i + i, ... below N
        lui  r6, N >> 16
        ori  r6, r6, N & 0xffff         # r6 = N
        li   r5, 1
        li   r1, 2                      # i
outer:  mul  r2, r1, r1                 # i*i
        blt  r2, r6, test
        jmp  counted
test:   add  r3, r1, r1
        add  r3, r3, r3                 # r3 = 4i
        ld   r4, FLAGS(r3)
        bne  r4, r0, next               # i is composite
        add  r4, r2, r2
        add  r4, r4, r4                 # r4 = 4 * i*i
        lui  r2, (4 * N) >> 16
        ori  r2, r2, (4 * N) & 0xffff
mark:   st   r5, FLAGS(r4)
        add  r4, r4, r3
        blt  r4, r2, mark
next:   addi r1, r1, 1
        jmp  outer

counted:
        li   r1, 8                      # offset of k = 2
        li   r3, 0                      # prime count
        lui  r2, (4 * N) >> 16
        ori  r2, r2, (4 * N) & 0xffff   # r2 = 4N
count:  ld   r4, FLAGS(r1)
        bne  r4, r0, skip
        addi r3, r3, 1
skip:   addi r1, r1, 4
        blt  r1, r2, count
        addi r7, r7, -1
        bne  r7, r0, rep

        # print r3 in decimal by repeated subtraction of 1000, 100, 10, 1
        li   r1, pow10
        li   r6, 4
digit:  ld   r2, 0(r1)
        li   r4, 48                     # '0'
dsub:   blt  r3, r2, emit
        sub  r3, r3, r2
        addi r4, r4, 1
        jmp  dsub
emit:   putc r4
        addi r1, r1, 4
        addi r6, r6, -1
        bne  r6, r0, digit
        li   r4, 10                     # '\n'
        putc r4
        halt

pow10:  .word 1000, 100, 10, 1
