.target pccx
.weight W, k=0, n=2
.endweight
