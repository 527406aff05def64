li r1, 0x7ff0
st r1, 0(r1)
