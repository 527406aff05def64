li r1, 3
ld r2, 0(r1)
