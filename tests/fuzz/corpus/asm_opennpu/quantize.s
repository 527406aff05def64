# Quantisation pipeline, the seed's mma.last -> vcvt_f32_s32 -> vfma -> vcvt_s8_f32 chain
# (spec §6.4): an int8 K x K matrix product on the MMA array, then every int32 result
# scaled, offset and narrowed back to int8:
#
#   C[i][j] = sum over t of A[i][t] * B[t][j]                     (int32, exact)
#   Y[i][j] = sat8(rne(fma((float)C[i][j], SCALE[i], BIAS[i])))   (FP32, one rounding in fma)
#
# SCALE and BIAS are per row i of C (per lane): per output channel when A holds the weights
# (rows = channels) and B the activations; write the same value K times for per-tensor
# quantisation. vcvt_f32_s32 is exact here (|C| <= K * 128 * 128 = 2^17 < 2^24); vfma rounds
# once to nearest-even; vcvt_s8_f32.sat rounds to nearest-even and saturates to -128..127.
#
# Register pressure: at K = 8 the drain of mma.last writes all eight VR registers (§5.12),
# the whole register file. So pass 1 rebuilds a base address, SCALE and BIAS in vr2, vr0
# and vr1 (sacrificing columns 0..2) and quantises columns 7..3; pass 2 drains the
# accumulator again (mma.last.keep with a zero operand pair leaves P unchanged) with the
# columns rotated so that 0..2 land in vr5..vr7, and quantises them. P is the spill space.
#
# Preset: test (K = 8). Data memory (addresses relative to the bases in lane 0 of vr7 / vr2,
# both 0):
#   0x000  AT     A column by column: column t (lane i = A[i][t]) at AT + 8t, K*K int8
#                 (that is A transposed, row-major)
#   0x040  B      B row by row: row t (lane j = B[t][j]) at B + 8t, K*K int8
#   0x080  SCALE  K f32 (little-endian), SCALE[i] for row i
#   0x0a0  BIAS   K f32, BIAS[i] for row i (a zero point, in output units)
#   0x100  OUT    Y column by column: column j (lane i = Y[i][j]) at OUT + 8j, K*K int8
#                 (Y transposed, row-major; written)
#
# npukit run -t opennpu --load mem:0:quant.bin --dump mem:0x100:64 quantize.s
.equ AT,    0x000
.equ B,     0x040
.equ SCALE, 0x080
.equ BIAS,  0x0a0
.equ OUT,   0x100

vmovi ve14, 0            # lane 0 of vr7 = 0: the base address of the loads below
vmovi ve15, 0
ld.vx vx0, AT + 8*0(vr7)        # column 0 of A
ld.vx vx1, AT + 8*1(vr7)        # column 1 of A
ld.vx vx2, AT + 8*2(vr7)        # column 2 of A
ld.vx vx3, AT + 8*3(vr7)        # column 3 of A
ld.vx vx4, AT + 8*4(vr7)        # column 4 of A
ld.vx vx5, AT + 8*5(vr7)        # column 5 of A
ld.vx vx6, AT + 8*6(vr7)        # column 6 of A
ld.vx vx7, AT + 8*7(vr7)        # column 7 of A
ld.vx vx8, B + 8*0(vr7)      # row 0 of B
ld.vx vx9, B + 8*1(vr7)      # row 1 of B
ld.vx vx10, B + 8*2(vr7)      # row 2 of B
ld.vx vx11, B + 8*3(vr7)      # row 3 of B
ld.vx vx12, B + 8*4(vr7)      # row 4 of B
ld.vx vx13, B + 8*5(vr7)      # row 5 of B
ld.vx vx14, B + 8*6(vr7)      # row 6 of B
ld.vx vx15, B + 8*7(vr7)      # row 7 of B

# core-begin: the seed's quantize chain (K feeds, the last one drains), spec §6.4
mma vr0, vx0, vx8
mma.keep vr0, vx1, vx9
mma.keep vr0, vx2, vx10
mma.keep vr0, vx3, vx11
mma.keep vr0, vx4, vx12
mma.keep vr0, vx5, vx13
mma.keep vr0, vx6, vx14
mma.last.keep vr0, vx7, vx15   # vr(j) = column j of C, lane i = C[i][j]
# core-end

# Pass 1: operands in vr0..vr2 (each waits for its own drain column, §6.3).
vmovi ve4, 0             # lane 0 of vr2 = 0: base address
vmovi ve5, 0
ld.vr vr0, SCALE(vr2)    # vr0 = SCALE
ld.vr vr1, BIAS(vr2)     # vr1 = BIAS

# core-begin: column 7 exactly as spec §6.4 (issue 22, 23, 25 after the first feed; 27 ticks)
vcvt_f32_s32 vr7, vr7
vfma vr7, vr7, vr0, vr1
vcvt_s8_f32.sat vx28, vr7
# core-end
st.vx vx28, OUT + 8*7(vr2)
# Columns 6..3, interleaved so that the 2-tick fma and f32 -> s8 latencies overlap.
vcvt_f32_s32 vr6, vr6
vcvt_f32_s32 vr5, vr5
vcvt_f32_s32 vr4, vr4
vcvt_f32_s32 vr3, vr3
vfma vr6, vr6, vr0, vr1
vfma vr5, vr5, vr0, vr1
vfma vr4, vr4, vr0, vr1
vfma vr3, vr3, vr0, vr1
vcvt_s8_f32.sat vx24, vr6
vcvt_s8_f32.sat vx20, vr5
vcvt_s8_f32.sat vx16, vr4
vcvt_s8_f32.sat vx12, vr3
st.vx vx24, OUT + 8*6(vr2)
st.vx vx20, OUT + 8*5(vr2)
st.vx vx16, OUT + 8*4(vr2)
st.vx vx12, OUT + 8*3(vr2)

# Pass 2: drain again, column j to vr((5 + j) mod 8): columns 0, 1, 2 -> vr5, vr6, vr7.
vbcast.imm vx12, 0       # a zero operand: the feed adds 0 to P
mma.last.keep vr5, vx12, vx12
vmovi ve4, 0             # base, SCALE and BIAS again (the drain overwrote them)
vmovi ve5, 0
ld.vr vr0, SCALE(vr2)
ld.vr vr1, BIAS(vr2)
vcvt_f32_s32 vr5, vr5      # column 0
vcvt_f32_s32 vr6, vr6      # column 1
vcvt_f32_s32 vr7, vr7      # column 2
vfma vr5, vr5, vr0, vr1
vfma vr6, vr6, vr0, vr1
vfma vr7, vr7, vr0, vr1
vcvt_s8_f32.sat vx20, vr5
vcvt_s8_f32.sat vx24, vr6
vcvt_s8_f32.sat vx28, vr7
st.vx vx20, OUT + 8*0(vr2)
st.vx vx24, OUT + 8*1(vr2)
st.vx vx28, OUT + 8*2(vr2)
