addi a0, a0, 4096
