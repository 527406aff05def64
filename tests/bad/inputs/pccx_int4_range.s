.target pccx
.weight W, k=4, n=1
  .scale 1.0
  .row 1, 2, 3, 99
.endweight
