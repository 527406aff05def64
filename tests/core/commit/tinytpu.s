; Commit records of tinytpu at lanes=2 (docs/commit-log.md, "### tinytpu"), checked by
; tests/core/test_commit.c against tinytpu.expected. One record per clock edge: pc = k - 1 for
; cycle k, the word is the cycle's 130-bit full-port word (tinytpu spec B5: sw 0, start 1, T 2,
; hv[0] 3, hv[1] 4, cols 20:5, rows 36:21, addr 52:37, sel 61:53, hd[0] 77:62, hd[1] 93:78,
; pathway 97:94, inv 113:98, leak 129:114) as 17 bytes, shown most significant first; effects:
; the registers the edge changed, in the order of docs/state.md, then the UB writes (word a at
; byte 2a). Power-on is the reset state (tinytpu spec A11): every register and the UB are 0.
; Derivation by hand, from tinytpu spec A12 (one cycle, step by step):
;  1 host0=0x0200: append (A6.2), lane 1 nothing, lane 0 the host word at wp = 0; wp = 1.
;    Word: hv[0] = bit 3, hd[0] = 0x0200 << 62 = bit 71: bytes 8 = 0x80, 0 = 0x08.
;  2 host0=0x0180: ub[1] = 0x0180 (byte address 2), wp = 2. hd[0] = bits 69, 70: byte 8 = 0x60.
;  3 read weight addr=0 rows=1 cols=1: F_3 differs from F_2 (start 0), so the read issues
;    (A7.8): skip = cols + 1 = 2, T = 0: R = 1, C = 1, ptr = 0 + 1*1 - 1 = 0 (A7.4); the
;    column-size flag 1 with value cols = 1 (A7.9). Beat t = 0 at this edge (A7.2): lane 1
;    inactive (1 <= 0 fails), lane 0 reads mem[0] = 0x0200 (valid 1), ptr -= skip -> -2, then
;    ptr += skip + 1 -> 1; t = 1. E := mask(1) = 01 (A5.5). The PEs saw E = 00: all cleared,
;    nothing changes. Word: start bit 1, cols bit 5, rows bit 21, sel = 1 at bit 53.
;  4 read input addr=1 rows=1 cols=1: F_4 differs (sel), issues: ptr = 1, R = 1, C = 1 (A7.3);
;    the flag stays 1 (start = 1, A7.9), E rewritten with 01 (no change). Input beat t = 0:
;    lane 0 reads mem[1] = 0x0180 (valid 1), ptr = 2, t = 1. Weight channel: t + 1 < R + C
;    fails (2 < 2), so it clears ptr, R, C, t and its outputs (A7.2); npukit clears skip
;    with them (skip and transpose are reloaded by every issue, A7.3, so no rule sees the
;    difference). PE(0,0): accept = weight valid[0] = 1: shadow = wout = 0x0200 (A4.2); its
;    latch stays closed (A4.3: sw of W_4 is 0; W_5's switch opens it during cycle 5).
;    PE(1,0) accepts PE(0,0).wout during the cycle, 0: no change. Word: addr = 1 at bit 37.
;  5 sw: start 0 clears the flag (A7.9). PE(0,0): the latch is open (sw of W_5, A12 step 2),
;    so it multiplies by its shadow: valid input 0x0180 (lane-0 valid, A5.1):
;    psum = mul(0x0180, 0x0200) = floor((384 * 512 + 128) / 256) = 768 = 0x0300 (A3),
;    xout = 0x0180, vout = 1, swout = 1, wout = 0 (no accept); after the edge active = shadow
;    = 0x0200 (A12 step 6). PE(1,0) takes PE(0,0)'s registers from during the cycle (all 0):
;    no change; its latch opens (PE(0,0).swout is 1 after the edge) and copies shadow 0.
;    The input channel clears (2 < 2 fails): ptr 2 -> 0, R, C, t -> 0, data[0], valid[0] -> 0.
;  6 nop: PE(0,0) has no valid input: psum = 0, vout = 0, swout = 0 (xout and active hold).
;    PE(1,0): valid from PE(0,0).vout = 1, x = input lane 1 = 0, active 0:
;    psum = add(mul(0, 0), 0x0300) = 0x0300, vout = 1, swout = 1 (PE(0,0).swout), xout 0.
;  7 nop: the VPU output of lane 0 during the cycle is PE(1,0)'s (0x0300, valid): pathway 0000
;    passes it through (A9.2) and the append writes it at wp = 2 (byte address 4), wp = 3.
;    The DERIV stage registers the stream even with p0 = 0 (A9.3): Hsel = H register = 0
;    >= 0, so (0x0300, 1). The GD window is closed (channels 5 and 6 idle, A7.7): done and upd
;    stay 0. PE(1,0): no valid input: psum = 0, vout = 0, swout = 0.
;  8 nop: the stream has ended: DERIV registers (0, 0).
;  9 .reset: a reset cycle carries no word (C4.1, shown as -) and clears (A11) the UB (words 0,
;    1 and 2 were not zero: one write of 6 zero bytes at 0), wp, E and every PE register but
;    psum (PE(0,0) shadow, active, xout). npukit also zeroes the column-size value (the flag
;    is already 0; the value is used only after the next weight read sets it).
host0=0x0200
host0=0x0180
read weight addr=0 rows=1 cols=1
read input addr=1 rows=1 cols=1
sw
nop 3
.reset
