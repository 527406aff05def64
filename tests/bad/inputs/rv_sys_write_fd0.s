# hostile guest syscall (tests/bad): a7=64 a0=0 a1=0x80000000 a2=4, then exit(a0)
    li a0, 0
    li a1, 0x80000000
    li a2, 4
    li a7, 64
    ecall
    li a7, 93
    ecall
