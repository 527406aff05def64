;; Softmax over n = 16 attention scores, the seed sequence made executable (spec §8.1, base
;; profile): GEMV with findemax -> EXP with sub_emax -> REDUCE_SUM -> SCALE with recip_scale.
;; The scores are q . k_i for a query q of K = 8 elements and 16 INT4 key rows (scale 0.25).
;; Run:  npukit run -t pccx examples/pccx/softmax.s --stats --dump l2:0x4800:32
;; (P = element 0x2400 = byte 0x4800: the 16 probabilities as BF16).
.target pccx
.equ K,    8
.equ N,    16
.equ Q_W,  0x40          ; q: L2 word address (element 0x200)
.equ SC_W, 0x300         ; scores s_i: L2 word 0x300 = element 0x1800
.equ S,    0x2000        ; scalar slot (the sum), e_i at S+1 .. S+N
.equ P,    0x2400        ; probabilities p_i

.l2 word=Q_W
.bf16 0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 1.0, -2.0

.weight KEYS, k=K, n=N
  .scale 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25
  .row 2, -4, 4, -7, -6, -5, 3, -7
  .row -2, -7, -6, 5, 5, -6, -1, -6
  .row 5, -7, -5, -1, -7, 4, -7, -1
  .row -7, -4, 1, 5, -4, -5, 1, -3
  .row -5, -2, 3, -5, -6, -7, -2, 7
  .row 5, 2, 6, 6, 3, 1, -1, -3
  .row -1, -6, 1, 7, 2, 6, 1, -6
  .row -5, 5, -3, 2, -4, 7, 5, -7
  .row -6, 2, 2, 3, 7, 6, -6, -6
  .row 0, 7, -6, -7, 1, 6, 1, 4
  .row 3, -8, 6, 3, -3, -5, 7, -7
  .row -2, 1, -4, -1, 4, 4, 7, -6
  .row -3, 6, 4, 0, -4, 5, 0, 5
  .row 3, 4, -1, -4, -6, -3, -4, -1
  .row -1, -8, 7, -3, 0, 1, -8, -4
  .row 5, 3, 2, -4, -7, 6, 4, 4
.endweight

    memset fmap, idx=4, a=1, b=K, c=1              ; input shape: 1 x K
    memset fmap, idx=5, a=1, b=N, c=1              ; output shape: 1 x N
.wpush KEYS
    gemv dst=SC_W, src=Q_W, size=5, shape=4, findemax, w_scale   ; s_i, E_MAX = max s_i
    exp src=8*SC_W, dst=S+1, len=N, sub_emax       ; e_i = exp(s_i - E_MAX)
    reduce_sum src=S+1, dst=S, len=N               ; sum of e_i at S
    scale src=S, dst=P, len=N+1, recip_scale       ; p_i = e_i / sum
