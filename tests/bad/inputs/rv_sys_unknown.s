# hostile guest syscall (tests/bad): a7=999 a0=1 a1=2 a2=3, then exit(a0)
    li a0, 1
    li a1, 2
    li a2, 3
    li a7, 999
    ecall
    li a7, 93
    ecall
