.target pccx
.endweight
