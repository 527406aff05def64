.target pccx
    memcpy.h2l dst=0x40, aux=0, shape=1, frob=3
