.align 0xffffffffffffffff
