li r1, '\q'
