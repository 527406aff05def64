;; RMSNorm in the base profile (spec §8.2): the squares q_i = x_i^2 are already in L2 (the base
;; ISA cannot square a vector), so the result is x_i / sqrt(sum x^2 + n eps) = the RMS-normalised
;; x divided by sqrt(n); sqrt(n) and gamma belong in the next GEMV's weights.
;; Run:  npukit run -t pccx examples/pccx/rmsnorm_base.s --dump l2:0x600:32   (Y = element 0x300)
.target pccx
.equ N, 16
.equ X, 0x101            ; x_0 .. x_15; element X-1 = 0x100 is the scalar slot
.equ Q, 0x180            ; q_i = x_i^2
.equ Y, 0x300            ; output
.equ C_W, 0x40           ; work word: lane 0 = n * eps before the sum
.equ PC_W, 0x41          ; pristine constants word: lane 0 = n * eps

.l2 elem=X
.bf16 -0.25, 0.375, 2.5, -0.25, 0.0, 0.5, -1.875, 0.125, 0.75, 1.75, -2.375, -1.125, -2.5, 1.875, 1.125, -2.75
.l2 elem=Q
.bf16 0.0625, 0.140625, 6.25, 0.0625, 0.0, 0.25, 3.515625, 0.015625, 0.5625, 3.0625, 5.640625, 1.265625, 6.25, 3.515625, 1.265625, 7.5625
.l2 word=PC_W
.bf16 1.6e-5             ; n * eps = 16 * 1e-6

    memset fmap, idx=1, a=1, b=8, c=1              ; one L2 word (8 elements)
    memcpy.l2l dst=C_W, src=PC_W, shape=1          ; restore lane 0 = n * eps
    reduce_sum src=Q, dst=8*C_W, len=N, accm       ; sum q + n eps
    sqrt src=8*C_W, dst=8*C_W, len=1
    recip src=8*C_W, dst=X-1, len=1                ; 1 / sqrt(sum q + n eps)
    scale src=X-1, dst=Y, len=N+1                  ; x_i / sqrt(sum x^2 + n eps)
