# lane 0 of vr7 = 0x100000 (ve14 = low half, ve15 = high half): past a 16-byte memory
vmovi ve14, 0
vmovi ve15, 0x10
ld.vx vx0, 0(vr7)
