.target pccx
.profile ext
.wview KVIEW, host=0x100, n=2, k=2, sn=0x4000000000000000, sk=0x4000000000000000
    memset fmap, idx=1, a=1, b=2, c=1
    memset fmap, idx=2, a=1, b=2, c=1
.wpush KVIEW
    gemv dst=0x100, src=0x40, size=2, shape=1
