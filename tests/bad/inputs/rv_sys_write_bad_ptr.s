# hostile guest syscall (tests/bad): a7=64 a0=1 a1=0x10 a2=4, then exit(a0)
    li a0, 1
    li a1, 0x10
    li a2, 4
    li a7, 64
    ecall
    li a7, 93
    ecall
