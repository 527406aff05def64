# Clamp, the seed's activation sequence (spec §6.4): y = max(min(x, HI), LO), lane by lane.
# With LO = -64 and HI = 64 on SQ1.6 inputs (value = x/64) this is hardtanh, clamp to
# [-1.0, 1.0]. Any int8 format works. If LO > HI every lane becomes LO.
#
# Preset: test (K = 8). Data memory (addresses relative to the base in lane 0 of vr7 = 0):
#   0x200  IN   x, K int8 lanes
#   0x280  OUT  y, K int8 lanes (written)
#   0x300  LO   lower bound, one int8
#   0x301  HI   upper bound, one int8
#
# npukit run -t opennpu --load mem:0x200:x.bin --load mem:0x300:bounds.bin --dump mem:0x280:8 clamp.s
.equ IN,  0x200
.equ OUT, 0x280
.equ LO,  0x300
.equ HI,  0x301

vmovi ve14, 0            # lane 0 of vr7 = 0: the base address of every LD/ST
vmovi ve15, 0
ld.b vx1, HI(vr7)        # lane 0 of vx1 = HI ...
vbcast.reg vx1, vx1      # ... in every lane
ld.b vx3, LO(vr7)        # vx3 = LO in every lane
vbcast.reg vx3, vx3
ld.vx vx0, IN(vr7)       # vx0 = x

# core-begin: the seed's Clamp, 2 ticks
vmin vx2, vx0, vx1       # min(x, HI)
vmax vx2, vx2, vx3       # max(min(x, HI), LO)
# core-end

st.vx vx2, OUT(vr7)
