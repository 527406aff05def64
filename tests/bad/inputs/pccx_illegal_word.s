.target pccx
.word 0xffffffffffffffff
