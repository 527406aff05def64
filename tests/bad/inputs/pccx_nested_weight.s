.target pccx
.weight W, k=4, n=2
.weight V, k=4, n=2
