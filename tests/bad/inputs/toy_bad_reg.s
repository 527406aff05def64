li r8, 1
