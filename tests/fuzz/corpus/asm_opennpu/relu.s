# ReLU, the seed's activation sequence (spec §6.4): y = max(x, 0), lane by lane.
# Works for any signed int8 format (the seed's inputs are SQ1.6: value = x/64).
#
# Preset: test (K = 8). Data memory (addresses relative to the base in lane 0 of vr7 = 0):
#   0x200  IN   x, K int8 lanes
#   0x280  OUT  y, K int8 lanes (written)
#
# npukit run -t opennpu --load mem:0x200:x.bin --dump mem:0x280:8 relu.s
.equ IN,  0x200
.equ OUT, 0x280

vmovi ve14, 0            # lane 0 of vr7 = 0: the base address of every LD/ST
vmovi ve15, 0
ld.vx vx0, IN(vr7)       # vx0 = x

# core-begin: the seed's ReLU, 2 ticks
vbcast.imm vx1, 0        # vx1 = 0 in every lane
vmax vx2, vx0, vx1       # vx2 = max(x, 0)
# core-end

st.vx vx2, OUT(vr7)
