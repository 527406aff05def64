.target pccx
.weight W, k=4, n=1
  .scale 1.0
  .rowhex 1234
.endweight
.wpush W
    gemv dst=0x100, src=0x40, size=2, shape=1
