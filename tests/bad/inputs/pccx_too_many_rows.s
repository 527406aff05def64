.target pccx
.weight W, k=4, n=2
  .scale 1.0, 1.0
  .rowhex 1234
  .rowhex 1234
  .rowhex 1234
.endweight
