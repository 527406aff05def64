# hostile guest syscall (tests/bad): a7=57 a0=77 a1=0 a2=0, then exit(a0)
    li a0, 77
    li a1, 0
    li a2, 0
    li a7, 57
    ecall
    li a7, 93
    ecall
