fadd.s f1, x2, f3
