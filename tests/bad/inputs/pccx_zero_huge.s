.target pccx
.l2 word=0
.zero 0xffffffffffff
