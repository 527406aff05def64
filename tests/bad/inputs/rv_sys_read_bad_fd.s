# hostile guest syscall (tests/bad): a7=63 a0=99 a1=0x80000000 a2=4, then exit(a0)
    li a0, 99
    li a1, 0x80000000
    li a2, 4
    li a7, 63
    ecall
    li a7, 93
    ecall
