# hostile guest syscall (tests/bad): openat(AT_FDCWD, path, flags 0), then exit(a0)
    li a0, -100
    la a1, path
    li a2, 0
    li a7, 56
    ecall
    li a7, 93
    ecall
path: .asciz "../../../../etc/passwd"
