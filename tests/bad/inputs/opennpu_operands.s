vadd vx0, vx0
