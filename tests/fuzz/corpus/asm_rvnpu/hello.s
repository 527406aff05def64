lui sp, 0x80100
addi sp, sp, -16
jal ra, 0x800002d4
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
addi a1, a0, 821
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
lw a4, 860(a6)
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
sw a0, 860(a6)
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
sw a5, 860(a0)
addi a0, a4, 0
jalr zero, 0(ra)
beq a2, zero, 0x80000204
addi a3, a0, 0
lb a4, 0(a1)
addi a2, a2, -1
addi a1, a1, 1
addi a5, a3, 1
sb a4, 0(a3)
addi a3, a5, 0
bne a2, zero, 0x800001e8
jalr zero, 0(ra)
bgeu a0, a1, 0x80000234
beq a2, zero, 0x8000025c
addi a3, a0, 0
lb a4, 0(a1)
addi a2, a2, -1
addi a1, a1, 1
addi a5, a3, 1
sb a4, 0(a3)
addi a3, a5, 0
bne a2, zero, 0x80000214
jal zero, 0x8000025c
beq a2, zero, 0x8000025c
addi a3, a0, -1
addi a1, a1, -1
add a4, a1, a2
lb a4, 0(a4)
addi a5, a2, -1
add a2, a3, a2
sb a4, 0(a2)
addi a2, a5, 0
bne a5, zero, 0x80000240
jalr zero, 0(ra)
beq a2, zero, 0x8000027c
addi a3, a0, 0
addi a2, a2, -1
addi a4, a3, 1
sb a1, 0(a3)
addi a3, a4, 0
bne a2, zero, 0x80000268
jalr zero, 0(ra)
beq a2, zero, 0x800002a0
lbu a3, 0(a0)
lbu a4, 0(a1)
bne a3, a4, 0x800002a8
addi a2, a2, -1
addi a1, a1, 1
addi a0, a0, 1
bne a2, zero, 0x80000284
addi a0, zero, 0
jalr zero, 0(ra)
addi a0, zero, -1
bltu a3, a4, 0x800002b4
addi a0, zero, 1
jalr zero, 0(ra)
addi a1, zero, 0
add a2, a0, a1
lbu a2, 0(a2)
addi a1, a1, 1
bne a2, zero, 0x800002bc
addi a0, a1, -1
jalr zero, 0(ra)
addi sp, sp, -16
sw ra, 12(sp)
lui a0, 0x80000
addi a1, a0, 823
addi a0, zero, 1
addi a2, zero, 34
auipc ra, 0x0
jalr ra, -724(ra)
lui a0, 0x80000
addi a0, a0, 788
auipc ra, 0x0
jalr ra, -504(ra)
addi a0, zero, 0
lw ra, 12(sp)
addi sp, sp, 16
jalr zero, 0(ra)
.word 0x6c6c6568  # illegal: 16-bit encoding (no C extension)
jal zero, 0x80062a3e
jal s10, 0x80006a3e
.word 0x75706e76  # illegal: 16-bit encoding (no C extension)
.word 0x72696620  # illegal: 16-bit encoding (no C extension)
.word 0x7261776d  # illegal: 16-bit encoding (no C extension)
.word 0x70282065  # illegal: 16-bit encoding (no C extension)
.word 0x29737475  # illegal: 16-bit encoding (no C extension)
.word 0x68000a00  # illegal: 16-bit encoding (no C extension)
.word 0x6f6c6c65  # illegal: 16-bit encoding (no C extension)
.word 0x6f726620  # illegal: 16-bit encoding (no C extension)
.word 0x7672206d  # illegal: 16-bit encoding (no C extension)
.word 0x2075706e  # illegal: 16-bit encoding (no C extension)
.word 0x6d726966  # illegal: 16-bit encoding (no C extension)
.word 0x65726177  # illegal: unknown encoding (opcode 0x77, funct3 6, funct7 0x32)
.word 0x72772820  # illegal: 16-bit encoding (no C extension)
.word 0x29657469  # illegal: 16-bit encoding (no C extension)
.byte 0x0a, 0x00
