# lane 0 of vr7 = 0x100000: past a 16-byte memory
vmovi ve14, 0
vmovi ve15, 0x10
st.vx vx0, 0(vr7)
