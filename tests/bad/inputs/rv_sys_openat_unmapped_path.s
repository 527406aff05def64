# hostile guest syscall (tests/bad): a7=56 a0=-100 a1=0x10 a2=0, then exit(a0)
    li a0, -100
    li a1, 0x10
    li a2, 0
    li a7, 56
    ecall
    li a7, 93
    ecall
