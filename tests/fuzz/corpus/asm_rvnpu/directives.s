# assembler directives, expressions, pseudo-instructions and NPU/FP instructions
.equ N, 4
.equ BUF, 0x80001000
_start:
    li t0, BUF
    li t1, N
    la a0, msg
    fmv.w.x ft0, zero
loop:
    lw t2, 0(t0)
    npu.macc t2, t2
    addi t0, t0, 4
    addi t1, t1, -1
    bnez t1, loop
    csrrs a1, fcsr, zero
    fadd.s ft1, ft0, ft0
    li a7, 64
    li a0, 1
    la a1, msg
    li a2, 6
    ecall
    li a7, 93
    li a0, 0
    ecall
msg: .asciz "hello\n"
.align 2
tab: .word 1, 2, 3, N * 2, loop - _start
.half 0xffff
.byte 'a', 10
