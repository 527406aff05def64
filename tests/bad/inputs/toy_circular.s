.equ a, b
.equ b, a
li r1, a
