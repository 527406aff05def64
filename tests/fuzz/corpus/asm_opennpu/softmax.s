# Softmax over the K lanes, the seed's activation sequence vrmax -> vsub -> vlut (exp, bank A)
# -> vsum -> vlut (recip, bank B) -> vmul (spec §6.4, 6 ticks).
#
# x is SQ1.6 (value = byte/64); y = softmax(x) in SQ1.6 too (0 .. 64 = 0.0 .. 1.0).
# Tables (onpu-lutgen):
#   exp,   bank A: E[i] = round(32 * exp((int8)i / 64))     UQ3.5, 1.0 -> 32 (indices -128..0
#                  are used: 4 .. 32)
#   recip, bank B: R[i] = min(255, round(16384 / S)), S = i, or 256 for i = 0
# and, lane by lane (m = max over the lanes):
#   d = sat8(x - m)                -128 .. 0: differences below -2.0 count as -2.0
#   e = E[d]                       4 .. 32
#   S = sum of the K values e      60 .. 256 (K = 8); its low byte indexes R, 0 meaning 256
#   r = R[S mod 256]               ~ 2^14 / S
#   y = floor(e * r / 256)         ~ 64 * e / S
#
# The sum cannot leave 60 .. 256, so the clamp of the sum to 1..127 that the seed's flow adds
# is not needed (only S = 256, all lanes equal, wraps, to index 0, which R maps to 1/256).
# vmul keeps only the low W bits of a product (spec §5.2, D-4), so the multiply runs on VE
# lanes: ve6 = {vx12 = e, vx13 = 0} and ve7 = {vx14 = r, vx15 = 0} are e and r zero-extended,
# e * r <= 8160 fits, and the high byte of ve8 = e * r, vx17, is floor(e * r / 256): the
# byte-planar register file (§3.1) does the division by 256 for free.
# Accuracy: |y/64 - softmax(x/64)| < 2/64 whenever max(x) - min(x) <= 128 (spread <= 2.0).
#
# Preset: test (K = 8). Data memory (addresses relative to the base in lane 0 of vr7 = 0):
#   0x000  LUTA  the exp table, copied into bank A
#   0x100  LUTB  the recip table, copied into bank B
#   0x200  IN    x, K int8 lanes (SQ1.6)
#   0x280  OUT   y, K int8 lanes (SQ1.6, written)
#
# onpu-lutgen exp -o exp.lut && onpu-lutgen recip -o recip.lut
# npukit run -t opennpu --load mem:0:exp.lut --load mem:0x100:recip.lut --load mem:0x200:x.bin --dump mem:0x280:8 softmax.s
.equ LUTA, 0x000
.equ LUTB, 0x100
.equ IN,   0x200
.equ OUT,  0x280

vmovi ve14, 0            # lane 0 of vr7 = 0: the base address of every LD/ST
vmovi ve15, 0
ld.vr vr6, LUTA + 32*0(vr7)
vsetlut.a vr6, 0
ld.vr vr6, LUTA + 32*1(vr7)
vsetlut.a vr6, 1
ld.vr vr6, LUTA + 32*2(vr7)
vsetlut.a vr6, 2
ld.vr vr6, LUTA + 32*3(vr7)
vsetlut.a vr6, 3
ld.vr vr6, LUTA + 32*4(vr7)
vsetlut.a vr6, 4
ld.vr vr6, LUTA + 32*5(vr7)
vsetlut.a vr6, 5
ld.vr vr6, LUTA + 32*6(vr7)
vsetlut.a vr6, 6
ld.vr vr6, LUTA + 32*7(vr7)
vsetlut.a vr6, 7
ld.vr vr6, LUTB + 32*0(vr7)
vsetlut.b vr6, 0
ld.vr vr6, LUTB + 32*1(vr7)
vsetlut.b vr6, 1
ld.vr vr6, LUTB + 32*2(vr7)
vsetlut.b vr6, 2
ld.vr vr6, LUTB + 32*3(vr7)
vsetlut.b vr6, 3
ld.vr vr6, LUTB + 32*4(vr7)
vsetlut.b vr6, 4
ld.vr vr6, LUTB + 32*5(vr7)
vsetlut.b vr6, 5
ld.vr vr6, LUTB + 32*6(vr7)
vsetlut.b vr6, 6
ld.vr vr6, LUTB + 32*7(vr7)
vsetlut.b vr6, 7
vbcast.imm vx13, 0       # high byte of ve6: e zero-extended
vbcast.imm vx15, 0       # high byte of ve7: r zero-extended
ld.vx vx0, IN(vr7)       # vx0 = x

# core-begin: the seed's Softmax, 6 ticks
vrmax vr1, vx0           # vr1 = max in every lane; vx4 = its low byte = the int8 max (§5.4)
vsub.sat vx2, vx0, vx4   # d = sat8(x - max)
vlut.a vx12, vx2         # e = E[d]
vsum vr2, vx12           # vr2 = S; vx8 = S mod 256
vlut.b vx14, vx8         # r = R[S mod 256]
vmul ve8, ve6, ve7       # ve8 = e * r; vx17 = floor(e * r / 256) = y
# core-end

st.vx vx17, OUT(vr7)
