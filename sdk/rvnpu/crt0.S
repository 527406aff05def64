# rvnpu firmware start-up code (spec §12.2): set sp, call main(), exit with main's result.
# Placed in .text.init so the linker script puts _start first, at the RAM base (0x8000_0000).
# Deliberately minimal: no .bss zeroing or .data copy (the loader zero-fills and loads in place),
# no gp, no trap vector, frm untouched; five instructions run, as with the original's crt0.

    .section .text.init, "ax", @progbits
    .globl _start
    .type _start, @function
_start:
    # Absolute lui/addi pair: no gp exists, and the stack top is a link-time constant.
    lui   sp, %hi(_stack_top)
    addi  sp, sp, %lo(_stack_top)
    # jal rather than `call`: one instruction whatever the linker's relaxation support
    # (ld.lld 14 does not relax), keeping the start-up count at exactly five.
    jal   ra, main
    # main's return value is still in a0: exit(a0).
    li    a7, 93
    ecall
    # Not reached; stops a runaway hart if exit ever returned.
1:  j     1b
    .size _start, . - _start
