.target pccx
.profile ext
.mode strict
.equ X_W, 0x40                  ; input vector, L2 word address
.equ Y_W, 0x80
.hostsize 0x100000              ; 1 MiB of host DDR
.host byte=0
.bf16 2.0, -1.0, 0.25, 4.0      ; 00 40 80 BF 80 3E 80 40
.host byte=0x1000
.h16 0x3F80, 0x4000
.f32 1.5
.u8 1, 2, 3
.zero 5
.l2 word=0x100
.bf16 1.0
.l2 elem=0x808
.h16 0x7FC0
.weight W0, k=4, n=2
  .scale 0.5
  .scale 2.0
  .row 3, -2, 4, 1
  .row 7, 7, -8, 0
.endweight
.weight W1, k=3, n=1
  .scale 1.0
  .rowhex E304                  ; codes 3, -2, 4 (the last high nibble is unused)
.endweight
.wview KV, host=0x1000, n=2, k=2, sn=2, sk=1
    memset fmap, idx=1, a=1, b=4, c=1
    memset fmap, idx=2, a=1, b=2, c=1
    memcpy.h2l dst=X_W, aux=0, shape=1
.wpush W0
    gemv dst=Y_W, src=X_W, size=2, shape=1, w_scale
.window 0x1000
    memcpy.l2h src=Y_W, aux=0, shape=2
.wpush KV
    memset fmap, idx=3, a=1, b=2, c=1
    gemv dst=0xC0, src=X_W, size=3, shape=3
