li r1, 5
frob r1
