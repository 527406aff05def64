# Commit records of rvnpu (docs/commit-log.md), checked by tests/core/test_commit.c against
# rvnpu.expected. Derivation of each record, by hand from the spec (no run involved):
#  1 lui: x8 = 0x80001 << 12 = 0x80001000
#  2 x10 = 5
#  3 sw: bus[0x80001008] 4 bytes = 5
#  4 sb: bus[0x80001003] 1 byte = 0x05
#  5 addi a0, a0, 0: x10 written with the value it held: still reported (x10 = 5)
#  6 fcvt.s.w: f10 = 5.0f = 1.25 * 2^2 = 0x40a00000 (exact: no flags)
#  7 x11 = 3
#  8 f11 = 3.0f = 1.5 * 2^1 = 0x40400000
#  9 fdiv.s 5/3 = 1.1010...b: 23 fraction bits 0x555555, next bit 0, RNE rounds down:
#    f12 = 0x3fd55555; inexact: fflags NX (bit 0) = 1
# 10 csrrw a2, fflags, zero: x12 = old fflags 1; fflags written: 0
# 11 npu.macc: acc = 0 + 5 * 3 = 15 (64 bits)
# 12 npu.rstacc: x13 = acc_lo = 15; acc = 0
# 13 npu.ldvec v1: v1 bytes = M8[0x80001008..0b] = 05 00 00 00 -> 0x00000005
# 14 npu.stvec v1: four byte stores at 0x8000100c.. merge into one 4-byte write = 5
# 15 auipc: x5 = its pc 0x80000038
# 16 x5 = 0x80000038 + 20 = 0x8000004c (the handler: record 20)
# 17 csrw mtvec: mtvec = 0x8000004c (direct mode)
# 18 csrsi mstatus, 8: MIE = 1: mstatus = MIE (1 << 3) | MPP 3 << 11 | FS 1 << 13 = 0x3808
# 19 .word 0 at 0x80000048: illegal, does not retire: mepc = 0x80000048, mcause = 2,
#    mtval = the word 0; mstatus: MPIE = old MIE 1, MIE = 0: 0x3880; trap[2] = 0
# 20 x17 = 93 (exit)
# 21 x10 = 0
# 22 ecall exit(0): retires, writes nothing
_start:
        lui     s0, 0x80001
        addi    a0, zero, 5
        sw      a0, 8(s0)
        sb      a0, 3(s0)
        addi    a0, a0, 0
        fcvt.s.w fa0, a0
        addi    a1, zero, 3
        fcvt.s.w fa1, a1
        fdiv.s  fa2, fa0, fa1
        csrrw   a2, fflags, zero
        npu.macc a0, a1
        npu.rstacc a3
        npu.ldvec v1, 8(s0)
        npu.stvec v1, 12(s0)
        auipc   t0, 0
        addi    t0, t0, 20
        csrw    mtvec, t0
        csrsi   mstatus, 8
        .word   0
handler:
        addi    a7, zero, 93
        addi    a0, zero, 0
        ecall
