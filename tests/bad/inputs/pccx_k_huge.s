.target pccx
.weight W, k=99999999999, n=2
.endweight
