fsw fs0, 16(sp)
npu.qmul a1, a0, s1
npu.clamp a1, a0
npu.relu a1, a0
npu.gelu a1, a0
npu.rstacc a0
npu.macc s4, s5
npu.vmac a2, a0, a1
npu.vmul a2, a0, a1
npu.vexp a2, a0, a1
npu.vrsqrt a1, s1
npu.vreduce a1, s0, s5
npu.vmax a1, s0, s5
npu.ldvec v2, 0(a0)
npu.stvec v2, 4(a0)
flw fs0, 120(a0)
npu.frstacc ft1
npu.fmacc fs0, fs2
npu.fvmac a2, a0, a1
npu.frelu ft0, ft0
fmv.w.x ft0, zero
fsgnjn.s fs3, ft0, ft0
npu.fgelu ft0, fs1
npu.fvrsqrt ft0, a0
npu.fvreduce ft0, s0, s4
npu.fvmax ft0, s0, s3
npu.fvmul a2, a0, a1
npu.fvexp a2, a0, a1
.word 0x16b5062b  # illegal: npu.fvdiv exists only in the rev2 revision (selected: seed)
fmadd.s fa0, ft0, fs2, ft6, rmm
