.target pccx
.weight W, k=4, n=1
  .scale 1.0
  .rowhex 1234
.endweight
.weight W, k=4, n=1
  .scale 1.0
  .rowhex 1234
.endweight
