# hostile guest syscall (tests/bad): a7=64 a0=1 a1=0x80000000 a2=0x7fffffff, then exit(a0)
    li a0, 1
    li a1, 0x80000000
    li a2, 0x7fffffff
    li a7, 64
    ecall
    li a7, 93
    ecall
