frob vx0
