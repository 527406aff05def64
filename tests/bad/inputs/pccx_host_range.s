.target pccx
.host byte=0x7fffffffffff
