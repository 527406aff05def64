.org 0xffffffff
.word 1
