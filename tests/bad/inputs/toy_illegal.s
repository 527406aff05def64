li r1, 1
.word 0xfc000000
