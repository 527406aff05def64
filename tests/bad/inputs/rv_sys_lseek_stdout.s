# hostile guest syscall (tests/bad): a7=62 a0=1 a1=0 a2=0, then exit(a0)
    li a0, 1
    li a1, 0
    li a2, 0
    li a7, 62
    ecall
    li a7, 93
    ecall
