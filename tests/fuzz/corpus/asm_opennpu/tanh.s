# Tanh through LUT bank A, the seed's activation sequence (spec §6.4): y = T[x], one vlut.
# With the default table (onpu-lutgen tanh) x and y are SQ1.6 (value = byte/64):
# T[i] = sat8(round(64 * tanh((int8)i / 64))), round = to nearest, ties away from zero.
# Any other 256-byte table works the same way (onpu-lutgen tanh --out-frac 7 gives a Q0.7
# result, value = y/128).
#
# Preset: test (K = 8). Data memory (addresses relative to the base in lane 0 of vr7 = 0):
#   0x000  LUT  the 256-byte table, copied into bank A (8 segments of 4K = 32 bytes, §5.5)
#   0x200  IN   x, K int8 lanes
#   0x280  OUT  y, K int8 lanes (written)
#
# onpu-lutgen tanh -o tanh.lut
# npukit run -t opennpu --load mem:0:tanh.lut --load mem:0x200:x.bin --dump mem:0x280:8 tanh.s
.equ LUT, 0x000
.equ IN,  0x200
.equ OUT, 0x280

vmovi ve14, 0            # lane 0 of vr7 = 0: the base address of every LD/ST
vmovi ve15, 0
# Bank A <- mem[LUT .. LUT+255]: segment s = bytes 32s .. 32s+31 (ld.vr is lane-contiguous,
# vsetlut takes byte b of lane k of vr6 as entry 32s + 4k + b).
ld.vr vr6, LUT + 32*0(vr7)
vsetlut.a vr6, 0
ld.vr vr6, LUT + 32*1(vr7)
vsetlut.a vr6, 1
ld.vr vr6, LUT + 32*2(vr7)
vsetlut.a vr6, 2
ld.vr vr6, LUT + 32*3(vr7)
vsetlut.a vr6, 3
ld.vr vr6, LUT + 32*4(vr7)
vsetlut.a vr6, 4
ld.vr vr6, LUT + 32*5(vr7)
vsetlut.a vr6, 5
ld.vr vr6, LUT + 32*6(vr7)
vsetlut.a vr6, 6
ld.vr vr6, LUT + 32*7(vr7)
vsetlut.a vr6, 7
ld.vx vx0, IN(vr7)       # vx0 = x

# core-begin: the seed's Tanh, 1 tick
vlut.a vx1, vx0          # vx1 = T[x]
# core-end

st.vx vx1, OUT(vr7)
