lui sp, 0x80100
addi sp, sp, -16
jal ra, 0x800001e0
addi a7, zero, 93
ecall
jal zero, 0x80000014
addi a7, zero, 64
addi a3, zero, 0
ecall
jalr zero, 0(ra)
addi a7, zero, 63
addi a3, zero, 0
ecall
jalr zero, 0(ra)
addi a7, zero, 56
ecall
jalr zero, 0(ra)
addi a3, a2, 0
addi a2, a1, 0
addi a1, a0, 0
addi a7, zero, 56
addi a0, zero, -100
ecall
jalr zero, 0(ra)
addi a7, zero, 57
addi a1, zero, 0
addi a2, zero, 0
addi a3, zero, 0
ecall
jalr zero, 0(ra)
addi a7, zero, 62
addi a3, zero, 0
ecall
jalr zero, 0(ra)
addi a7, zero, 93
addi a1, zero, 0
addi a2, zero, 0
addi a3, zero, 0
ecall
jal zero, 0x8000009c
addi sp, sp, -16
addi a7, zero, 63
addi a1, sp, 15
addi a2, zero, 1
addi a3, zero, 0
addi a0, zero, 0
ecall
addi a1, a0, 0
addi a0, zero, -1
bge zero, a1, 0x800000cc
lbu a0, 15(sp)
addi sp, sp, 16
jalr zero, 0(ra)
addi sp, sp, -16
addi a4, a0, 0
sb a0, 15(sp)
addi a7, zero, 64
addi a1, sp, 15
addi a2, zero, 1
addi a0, zero, 1
addi a3, zero, 0
ecall
addi a0, a4, 0
addi sp, sp, 16
jalr zero, 0(ra)
addi a1, a0, 0
addi a0, zero, 0
add a2, a1, a0
lbu a2, 0(a2)
addi a0, a0, 1
bne a2, zero, 0x8000010c
addi a2, a0, -1
addi a7, zero, 64
addi a0, zero, 1
addi a3, zero, 0
ecall
lui a0, 0x80000
addi a1, a0, 526
addi a7, zero, 64
addi a2, zero, 1
addi a0, zero, 1
addi a3, zero, 0
ecall
addi a0, zero, 0
jalr zero, 0(ra)
addi a7, zero, 214
addi a1, zero, 0
addi a2, zero, 0
addi a3, zero, 0
ecall
jalr zero, 0(ra)
lui a6, 0x80000
lw a4, 528(a6)
addi a5, a0, 0
beq a4, zero, 0x80000184
bne a5, zero, 0x800001a8
jal zero, 0x800001d8
addi a7, zero, 214
addi a1, zero, 0
addi a2, zero, 0
addi a3, zero, 0
addi a0, zero, 0
ecall
addi a4, a0, 0
sw a0, 528(a6)
beq a5, zero, 0x800001d8
add a5, a4, a5
addi a7, zero, 214
addi a1, zero, 0
addi a2, zero, 0
addi a3, zero, 0
addi a0, a5, 0
ecall
addi a1, a0, 0
addi a0, zero, -1
bne a1, a5, 0x800001dc
lui a0, 0x80000
sw a5, 528(a0)
addi a0, a4, 0
jalr zero, 0(ra)
addi sp, sp, -16
sw ra, 12(sp)
lui a0, 0x80000
addi a0, a0, 520
auipc ra, 0x0
jalr ra, -236(ra)
sltu a0, zero, a0
lw ra, 12(sp)
addi sp, sp, 16
jalr zero, 0(ra)
.word 0x626f7270  # illegal: 16-bit encoding (no C extension)
.word 0x000a0065  # illegal: 16-bit encoding (no C extension)
