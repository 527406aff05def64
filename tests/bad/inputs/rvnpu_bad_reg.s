addi x32, x0, 1
