# rvnpu program of tests/debug/rvnpu.dbg: a call, NPU instructions, a store, UART output and
# an exit status. Addresses (4 bytes each, from the RAM base 0x80000000) and what each does:
_start: addi    a0, zero, 3         # 0x80000000  a0 = 3
        addi    a1, zero, -2        # 0x80000004  a1 = -2 = 0xfffffffe
        jal     ra, square          # 0x80000008  call: a0 = 9; ra = 0x8000000c
        npu.macc a0, a1             # 0x8000000c  acc = 0 + 9 * -2 = -18
        npu.macc a0, a0             # 0x80000010  acc = -18 + 81 = 63
        lui     s0, 0x80001         # 0x80000014  s0 = 0x80001000 (RAM offset 0x1000)
        sw      a1, 0(s0)           # 0x80000018  bytes fe ff ff ff at 0x80001000
        npu.ldvec v1, 0(s0)         # 0x8000001c  v1 = (-2, -1, -1, -1)
        npu.rstacc a2               # 0x80000020  a2 = 63, acc = 0
        lui     t0, 0x10000         # 0x80000024  the UART at 0x10000000
        addi    t1, zero, 111       # 0x80000028  'o'
        sb      t1, 0(t0)           # 0x8000002c
        addi    t1, zero, 107       # 0x80000030  'k'
        sb      t1, 0(t0)           # 0x80000034
        addi    t1, zero, 10        # 0x80000038  '\n'
        sb      t1, 0(t0)           # 0x8000003c
        addi    a7, zero, 93        # 0x80000040  exit
        addi    a0, a2, 0           # 0x80000044  status 63
        ecall                       # 0x80000048
square: mul     a0, a0, a0          # 0x8000004c
        ret                         # 0x80000050
