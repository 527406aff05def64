li r1, data
ld r2, 0(r1)
exit r2
data: .word 7
