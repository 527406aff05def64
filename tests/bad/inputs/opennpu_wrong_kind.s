ld.w vx0, 0(vr7)
