; Commit records of pccx (docs/commit-log.md "pccx"), checked by tests/core/test_commit.c
; against pccx.expected. One record per issued (pushed) instruction; its pc is the issue index.
; Derived by hand from docs/spec/pccx.md with the default timing parameters (§11.1):
; t_push = axi(2) = ceil(2 * 400 / 250) = 4, t_ddr = 40, decode_cycles 1. Occupancies
; (status, cmd_fifo, queue.E, busy.E) are reported when the push changes them: "before" is the
; host clock h_i at the push, "after" is a_i + t_push (§11.2, §11.5).
;
; Data: host bytes 0..7 = BF16 2.0, -1.0, 0.25, 4.0 = 0x4000 0xBF80 0x3E80 0x4080 (§3.1,
; little-endian). W0 is the tensor of §5.4 (K = 4, N = 2, scales 0.5 and 2.0).
;
;  1 memset (§6.2): fmap[1] = (1, 4, 1), reported as the three registers. Timing (§11.6):
;    a = 0, d = 1, s = 2, c = 4; after, at host clock 4, it has completed: status goes from 0
;    to DONE (bit 1, §10) = 0x2.
;  2 memset fmap[2] = (1, 2, 1): a = 4, d = 5, s = 6, c = 8; at host clock 8 it has completed:
;    status stays DONE, no occupancy changes.
;  3 memcpy.h2l, async (§6.3): E = 1 * 4 * 1 = 4, 1 L2 word: host bytes 0..15 to L2 word 0x40,
;    bytes 0x400..0x40f = 00 40 80 bf 80 3e 80 40 and eight zero bytes. Timing (§11.3):
;    a = 8, d = 9, s = 10, x = 13 + 40 + axi(1) = 55, c = 65. At host clock 12 the MEM engine
;    executes it: status BUSY (0x1), busy.mem = 1.
;  4 gemv (§6.4), the worked example of §6.4: sums 13 and 5, times the scales 0.5 and 2.0 =
;    6.5 (0x40D0) and 10.0 (0x4120) at elements 8 * 0x80 = 0x400, 0x401 = bytes 0x800..0x803:
;    d0 40 20 41 = 0x412040d0. findemax: E_MAX = max(6.5, 10.0) = 10.0 = 0x41200000 (§6.6).
;    The queue held W0: weight_queue = 0 (§5.4). Timing: a = 12, d = 13 (the memcpy is async,
;    §11.2); its start waits for the memcpy (RAW on L2 elements 0x200..0x203, §11.4): at host
;    clock 16 it is decoded and waiting, queue.gemv = 1.
;  5 exp, sub_emax, sync (§6.5): t = 6.5 - 10.0 = -3.5 and 10.0 - 10.0 = 0; exp(-3.5) =
;    0.0301973834... = 1.9326325... * 2^-6: BF16 exponent 121, fraction 0.9326325 * 128 =
;    119.38 -> 119 (0x77): 0x3CF7; exp(0) = 1.0 = 0x3F80; at elements 0x402, 0x403 = bytes
;    0x804..0x807: f7 3c 80 3f = 0x3f803cf7. Timing: a = 16, d = 17 (no sync decoded before
;    it); it waits for the gemv (RAW on elements 0x400, 0x401 and on E_MAX): at host clock 20
;    queue.cvo = 1.
;  6 memset weight[3] = (1, 2, 3). Timing: a = 20; the exp before it is sync, so it is not
;    decoded before the exp completes (§11.2): at host clock 24 it is in the command FIFO,
;    cmd_fifo = 1.
;  7 memcpy.l2h, async: fmap[2] gives E = 2, 1 word: L2 word 0x80 (elements 0x400..0x407 =
;    0x40D0 0x4120 0x3CF7 0x3F80 and four zeros) to host byte 0 + 16 * 0x10 = 0x100 (§5.3):
;    d0 40 20 41 f7 3c 80 3f and eight zero bytes. a = 24; behind the memset in the FIFO: at
;    host clock 28 cmd_fifo = 2.
.target pccx
.host byte=0
.bf16 2.0, -1.0, 0.25, 4.0
.weight W0, k=4, n=2
  .scale 0.5, 2.0
  .row 3, -2, 4, 1
  .row 7, 7, -8, 0
.endweight
    memset fmap, idx=1, a=1, b=4, c=1
    memset fmap, idx=2, a=1, b=2, c=1
    memcpy.h2l dst=0x40, aux=0, shape=1, async
.wpush W0
    gemv dst=0x80, src=0x40, size=2, shape=1, w_scale, findemax
    exp src=0x400, dst=0x402, len=2, sub_emax
    memset weight, idx=3, a=1, b=2, c=3
    memcpy.l2h src=0x80, aux=0x10, shape=2, async
