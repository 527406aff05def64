# Commit records of toy (docs/commit-log.md), checked by tests/core/test_commit.c against
# toy.expected. Derivation by hand:
#  1 r1 = 5
#  2 r2 = 0x40
#  3 r3 = 5 + 5 = 10
#  4 st: mem[0x40 + 4 = 0x44] 4 bytes = 10
#  5 ld: r4 = mem[0x44] = 10
#  6 beq r3, r4 (equal): taken, writes nothing
#    (li r5, 1 is skipped: no record)
#  7 addi r4, r4, 0: r4 written with the value it held: still reported (10)
#  8 halt: retires, writes nothing
        li      r1, 5
        li      r2, 0x40
        add     r3, r1, r1
        st      r3, 4(r2)
        ld      r4, 4(r2)
        beq     r3, r4, skip
        li      r5, 1
skip:   addi    r4, r4, 0
        halt
