; a BF16 weight view over host DDR feeding a GEMV, then a GEMM over a tensor (ext)
.target pccx
.profile ext
.hostsize 0x10000
.host byte=0
.bf16 1.0, 2.0, -1.0, 0.5, 0.25, -2.0, 3.0, 1.5
.host byte=0x100
.bf16 0.5, 1.0, 1.5, 2.0, -0.5, -1.0, -1.5, -2.0
.wview V, host=0x100, n=2, k=4, sn=4, sk=1
.wview T, host=0x100, n=2, k=4, sn=1, sk=2
.weight G, k=4, n=2
  .scale 1.0, 0.5
  .row 1, 2, 3, 4
  .row -1, -2, -3, -4
.endweight
    memset fmap, idx=1, a=1, b=4, c=1
    memset fmap, idx=2, a=1, b=2, c=1
    memset fmap, idx=3, a=2, b=4, c=1
    memset fmap, idx=4, a=2, b=2, c=1
    memcpy.h2l dst=0x40, aux=0, shape=1
.wpush V
    gemv dst=0x80, src=0x40, size=2, shape=1
.wpush G
    gemm dst=0x90, src=0x40, size=4, shape=3
    exp dst=0xA0, src=0x80, len=2
.wpush T
    gemv dst=0xB0, src=0x40, size=2, shape=1
    memcpy.l2h src=0x80, aux=0x200, shape=2
