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
lui a0, 0x80001
addi a1, a0, 104
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
lui a6, 0x80001
lw a4, 776(a6)
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
sw a0, 776(a6)
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
lui a0, 0x80001
sw a5, 776(a0)
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
addi sp, sp, -48
sw ra, 44(sp)
sw s0, 40(sp)
sw s1, 36(sp)
sw s2, 32(sp)
sw s3, 28(sp)
sw s4, 24(sp)
sw s5, 20(sp)
fsw fs0, 16(sp)
fsw fs1, 12(sp)
fsw fs2, 8(sp)
fsw fs3, 4(sp)
addi a0, zero, -3
addi s1, zero, 5
npu.qmul a1, a0, s1
lui a0, 0x80001
addi a0, a0, 426
addi a2, zero, -1
auipc ra, 0x1
jalr ra, -2020(ra)
addi a0, zero, 127
npu.qmul a1, a0, a0
lui a0, 0x80001
addi a0, a0, 23
addi a2, zero, 63
auipc ra, 0x1
jalr ra, -2048(ra)
lui a0, 0x80000
addi s0, a0, -1
npu.qmul a1, s0, s0
lui a0, 0x80001
addi a0, a0, 231
lui a2, 0xff000
auipc ra, 0x0
jalr ra, 2016(ra)
addi a0, zero, 300
npu.clamp a1, a0
lui a0, 0x80001
addi a0, a0, -70
addi a2, zero, 127
auipc ra, 0x0
jalr ra, 1988(ra)
addi a0, zero, -300
npu.clamp a1, a0
lui a0, 0x80001
addi a0, a0, 43
addi a2, zero, -128
auipc ra, 0x0
jalr ra, 1960(ra)
addi a0, zero, -5
npu.relu a1, a0
lui a0, 0x80001
addi a0, a0, 77
addi a2, zero, 0
auipc ra, 0x0
jalr ra, 1932(ra)
addi a0, zero, 7
npu.relu a1, a0
lui a0, 0x80001
addi a0, a0, -53
addi a2, zero, 7
auipc ra, 0x0
jalr ra, 1904(ra)
addi a0, zero, 32
npu.gelu a1, a0
lui a0, 0x80001
addi a0, a0, -179
addi a2, zero, 27
auipc ra, 0x0
jalr ra, 1876(ra)
addi a0, zero, -32
npu.gelu a1, a0
lui a0, 0x80001
addi a0, a0, 62
addi a2, zero, -5
auipc ra, 0x0
jalr ra, 1848(ra)
addi a0, zero, 288
npu.gelu a1, a0
lui a0, 0x80001
addi a0, a0, -371
addi a2, zero, 27
auipc ra, 0x0
jalr ra, 1820(ra)
npu.rstacc a0
addi s4, zero, 3
addi s5, zero, 4
npu.macc s4, s5
addi a0, zero, -2
npu.macc a0, s1
npu.rstacc a1
lui a0, 0x80001
addi a0, a0, -130
addi a2, zero, 2
addi s3, zero, 2
auipc ra, 0x0
jalr ra, 1768(ra)
npu.rstacc a1
lui a0, 0x80001
addi a0, a0, -336
addi a2, zero, 0
auipc ra, 0x0
jalr ra, 1744(ra)
lui a0, 0x80001
addi s1, a0, 604
lui a0, 0x80001
addi s2, a0, 612
addi a2, zero, 8
addi a0, s1, 0
addi a1, s2, 0
npu.vmac a2, a0, a1
npu.rstacc a1
lui a0, 0x80001
addi a0, a0, -317
addi a2, zero, -40
auipc ra, 0x0
jalr ra, 1688(ra)
addi a2, zero, 4
addi a0, s1, 0
addi a1, s2, 0
npu.vmac a2, a0, a1
addi a0, s1, 4
addi a1, s2, 4
addi a2, zero, 4
npu.vmac a2, a0, a1
npu.rstacc a1
lui a0, 0x80001
addi a0, a0, 106
addi a2, zero, -40
auipc ra, 0x0
jalr ra, 1632(ra)
lui a0, 0x18
addi a1, zero, 1
npu.macc a0, a1
lui a0, 0x80001
addi a0, a0, 620
lui a3, 0x80001
addi s1, a3, 784
addi a2, zero, 4
addi a1, s1, 0
npu.vmul a2, a0, a1
lb a1, 784(a3)
lui a0, 0x80001
addi a0, a0, 123
addi a2, zero, -2
auipc ra, 0x0
jalr ra, 1568(ra)
lb a1, 1(s1)
lui a0, 0x80001
addi a0, a0, 269
addi a2, zero, -5
auipc ra, 0x0
jalr ra, 1544(ra)
lb a1, 2(s1)
lui a0, 0x80001
addi a0, a0, -106
addi a2, zero, 127
auipc ra, 0x0
jalr ra, 1520(ra)
lb a1, 3(s1)
lui a0, 0x80001
addi a0, a0, -481
addi a2, zero, 3
auipc ra, 0x0
jalr ra, 1496(ra)
npu.rstacc a1
lui a0, 0x80001
addi a0, a0, 340
lui a2, 0x18
auipc ra, 0x0
jalr ra, 1472(ra)
lui a3, 0x80001
addi s1, a3, 692
addi a2, zero, 3
addi a0, s1, 0
addi a1, s1, 0
npu.vexp a2, a0, a1
lw a1, 692(a3)
lui a0, 0x80001
addi a0, a0, 90
lui a2, 0x10
auipc ra, 0x0
jalr ra, 1424(ra)
lw a1, 4(s1)
lui a0, 0x80001
addi a0, a0, -41
lui a2, 0x2b
addi a2, a2, 2017
auipc ra, 0x0
jalr ra, 1396(ra)
lw a1, 8(s1)
lui a0, 0x80001
addi a0, a0, -588
addi a2, s0, 0
auipc ra, 0x0
jalr ra, 1372(ra)
lui a0, 0x80001
addi s1, a0, 704
npu.vrsqrt a1, s1
lui a0, 0x80001
addi a0, a0, 451
lui a2, 0x10
auipc ra, 0x0
jalr ra, 1340(ra)
addi a0, s1, 4
npu.vrsqrt a1, a0
lui a0, 0x80001
addi a0, a0, -406
lui a2, 0x8
auipc ra, 0x0
jalr ra, 1312(ra)
addi a0, s1, 8
npu.vrsqrt a1, a0
lui a0, 0x80001
addi a0, a0, -299
addi a2, s0, 0
auipc ra, 0x0
jalr ra, 1284(ra)
lui a0, 0x80001
addi s0, a0, 716
npu.vreduce a1, s0, s5
lui a0, 0x80001
addi a0, a0, -27
addi a2, zero, 12
auipc ra, 0x0
jalr ra, 1252(ra)
npu.vreduce a1, s0, zero
lui a0, 0x80001
addi a0, a0, -252
addi a2, zero, 0
auipc ra, 0x0
jalr ra, 1228(ra)
npu.vmax a1, s0, s5
lui a0, 0x80001
addi a0, a0, 511
addi a2, zero, 7
auipc ra, 0x0
jalr ra, 1204(ra)
npu.vmax a1, s0, zero
lui a0, 0x80001
addi a0, a0, -515
lui a2, 0x80000
auipc ra, 0x0
jalr ra, 1180(ra)
lui a0, 0x80001
addi a0, a0, 624
npu.ldvec v2, 0(a0)
npu.stvec v2, 4(a0)
lbu a1, 5(a0)
lbu a2, 4(a0)
lbu a3, 6(a0)
slli a1, a1, 8
lb a0, 7(a0)
or a1, a1, a2
slli a2, a3, 16
or a1, a1, a2
slli a0, a0, 24
or a1, a1, a0
lui a0, 0x80001
addi a0, a0, -165
lui a2, 0xfc040
addi a2, a2, -511
auipc ra, 0x0
jalr ra, 1100(ra)
lui a0, 0x80001
flw fs0, 580(a0)
lui a0, 0x80001
flw fs2, 584(a0)
lui a0, 0x80001
flw fs1, 588(a0)
lui a0, 0x80001
flw ft0, 592(a0)
npu.frstacc ft1
npu.fmacc fs0, fs2
npu.fmacc fs1, ft0
npu.frstacc ft0
fmv.x.w a1, ft0
lui a0, 0x80001
addi a0, a0, -279
lui a2, 0x40d00
auipc ra, 0x0
jalr ra, 1028(ra)
npu.frstacc ft0
fmv.x.w a1, ft0
lui a0, 0x80001
addi a0, a0, -230
addi a2, zero, 0
auipc ra, 0x0
jalr ra, 1000(ra)
lui a0, 0x80001
addi a0, a0, 732
lui a1, 0x80001
addi a1, a1, 748
addi a2, zero, 4
npu.fvmac a2, a0, a1
npu.frstacc ft0
fmv.x.w a1, ft0
lui a0, 0x80001
addi a0, a0, 356
lui a2, 0x41300
auipc ra, 0x0
jalr ra, 948(ra)
lui a0, 0x80001
flw ft0, 596(a0)
npu.frelu ft0, ft0
fmv.x.w a1, ft0
lui a0, 0x80001
addi a0, a0, -548
addi a2, zero, 0
auipc ra, 0x0
jalr ra, 912(ra)
fmv.w.x ft0, zero
fsgnjn.s fs3, ft0, ft0
npu.frelu ft0, fs3
fmv.x.w a1, ft0
lui a0, 0x80001
addi a0, a0, -209
addi a2, zero, 0
auipc ra, 0x0
jalr ra, 876(ra)
npu.frelu ft0, fs2
fmv.x.w a1, ft0
lui a0, 0x80001
addi a0, a0, 327
lui a2, 0x40400
auipc ra, 0x0
jalr ra, 848(ra)
npu.fgelu ft0, fs1
fmv.x.w a1, ft0
lui a0, 0x80001
addi a0, a0, 415
lui a2, 0x3f576
addi s0, a2, 607
addi a2, s0, 0
auipc ra, 0x0
jalr ra, 812(ra)
npu.fgelu ft0, fs3
fmv.x.w a1, ft0
lui a0, 0x80001
addi a0, a0, -194
lui a2, 0x80000
auipc ra, 0x0
jalr ra, 784(ra)
lui a0, 0x80001
flw ft0, 600(a0)
npu.fvrsqrt ft0, zero
fmv.x.w a1, ft0
lui a0, 0x80001
addi a0, a0, 367
lui a2, 0x3f000
auipc ra, 0x0
jalr ra, 748(ra)
lui a0, 0x80001
addi s1, a0, 764
npu.fvreduce ft0, s1, s4
fmv.x.w a1, ft0
lui a0, 0x80001
addi a0, a0, 150
lui a2, 0x7149f
addi a2, a2, 714
auipc ra, 0x0
jalr ra, 708(ra)
npu.fvreduce ft0, s1, zero
fmv.x.w a1, ft0
