;; RMSNorm y = x * (mean(x^2) + eps)^(-1/2) * gamma over n = 16 elements, the ext-profile
;; recipe of spec §8.2 (complete: squares, mean, eps, 1/sqrt, scale, gamma).
;; Run:  npukit run -t pccx examples/pccx/rmsnorm_ext.s --dump l2:0x600:32   (Y = element 0x300)
.target pccx
.profile ext
.equ N, 16
.equ C, 0x80             ; n at C, scratch C+1, eps at C+2, scratch C+3, C+4
.equ X, 0x101            ; x_0 .. x_15 (the element X-1 = 0x100 is the scalar slot)
.equ G, 0x200            ; gamma
.equ Y, 0x300            ; output

.l2 elem=C
.bf16 16.0, 0.0, 1e-6
.l2 elem=X
.bf16 -0.25, 0.375, 2.5, -0.25, 0.0, 0.5, -1.875, 0.125, 0.75, 1.75, -2.375, -1.125, -2.5, 1.875, 1.125, -2.75
.l2 elem=G
.bf16 1.5, 1.4375, 1.125, 1.125, 0.6875, 0.5, 1.0, 0.5625, 0.6875, 0.75, 0.5, 0.9375, 0.9375, 1.3125, 1.0, 1.125

    reduce_sumsq src=X, dst=C+1, len=N             ; sum of x^2 at C+1
    scale src=C, dst=C+3, len=2, recip_scale       ; mean = sum / n at C+3
    adds src=C+2, dst=C+4, len=2                   ; mean + eps at C+4
    sqrt src=C+4, dst=C+4, len=1
    recip src=C+4, dst=X-1, len=1                  ; r = 1/sqrt(mean + eps) just before x
    scale src=X-1, dst=Y, len=N+1                  ; x_i * r
    vmul src=G, dst=Y, len=N                       ; * gamma_i
