# Commit records of opennpu at K = 4, L = 8 (docs/commit-log.md), checked by
# tests/core/test_commit.c against opennpu.expected. Register-file rows are K = 4 bytes, VX r
# is row r, VE r rows 2r and 2r + 1, VR r rows 4r .. 4r + 3 (opennpu spec §3.1); a write of
# 1, 2, 4 or 8 bytes shows as its bytes read little-endian. Derivation by hand:
#  1 vx1 = 3 in every lane: rf row 1 (bytes 4..7) = 03 03 03 03
#  2 vx2 = 5: row 2 (bytes 8..11) = 05 05 05 05
#  3 vx3 = 3 + 5 = 8 per lane: row 3 (bytes 12..15) = 08 08 08 08
#  4 vmovi ve0, 0x234: VE0 lane 0 = 0x0234: row 0 lane 0 = 0x34, row 1 lane 0 = 0x02; both
#    rows of VE0 are written: bytes 0..7 = 34 00 00 00 02 03 03 03
#  5 st.vx vx3 at VR1 lane 0 (rows 4..7 lane 0: 0) + 16: mem[16..19] = 08 08 08 08
#  6 mma.reset: P = 0, all K * K * 4 = 64 bytes of space acc
#  7 mma vr0, vx1, vx2: P[i][j] = vx1[i] * vx2[j]; vx1 = (2, 3, 3, 3) since step 4,
#    vx2 = 5s: row i = 0 is 10 (0x0a), rows 1..3 are 15 (0x0f); P[i][j] at (i*4 + j)*4
        vbcast.imm vx1, 3
        vbcast.imm vx2, 5
        vadd    vx3, vx1, vx2
        vmovi   ve0, 0x234
        st.vx   vx3, 16(vr1)
        mma.reset
        mma     vr0, vx1, vx2
