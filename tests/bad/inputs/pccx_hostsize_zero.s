.target pccx
.hostsize 0
