.target pccx
.weight W, k=4, n=2
  .rowhex 1234
