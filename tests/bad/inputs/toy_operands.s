add r1, r2
