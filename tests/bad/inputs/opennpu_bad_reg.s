vadd vx32, vx0, vx1
