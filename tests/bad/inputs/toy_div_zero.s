li r1, 1/0
