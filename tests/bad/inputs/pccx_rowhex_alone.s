.target pccx
  .rowhex 1234
