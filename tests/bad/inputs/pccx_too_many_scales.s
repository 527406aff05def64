.target pccx
.weight W, k=4, n=2
  .scale 1, 2, 3
