.target pccx
.wview V, host=0x100, n=2, k=2, sn=2, sk=1
