.target pccx
.profile ext
.host byte=0
.bf16 1.0, 2.0, 3.0, 4.0
.wview V, host=0, n=5, k=4, sn=0x4000000000000000, sk=1
    memset fmap, idx=1, a=1, b=4, c=1
    memset fmap, idx=2, a=1, b=5, c=1
    memcpy.h2l dst=0x40, aux=0, shape=1
.wpush V
    gemv dst=0x80, src=0x40, size=2, shape=1
