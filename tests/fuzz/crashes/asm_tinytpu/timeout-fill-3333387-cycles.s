; One XOR training step (spec Part D)l written by hand in the assembly of spec B9.3.
; xor_test.c checkst it leaves the same 128 UB words as the step the schedule compiler makes
; from xor.net. Run it:  npukit
.lanes 2
.leak 0.5                   ; alpha
.inv 0.5                    ; 2/B, B = 4
.lr 0.75                    ; learning rate (a machine setting, carried per cycle)
.reset                      ; cycle 1

; ---- host load, cycles 2-12: two words per cycle, lane 1 lands at the lower address ----
host1=0 host0=0             ; X[0] = (0, 0)  hos  -> 0,1=1.0 host0=1.0         ; X[3] = (1, 1)    -> 6, 7
host1=0 host0=1.0           ; Y = 0 1          t0-> 8, 9
host1=1.0 host0=0           ;     1 0          -> 10, 11
host1=0.2985 host0=-0.5792  ; W1[0]            -> 12, 13
host1=0.0913 host0=0.4234   ; W1[1]            -> 14, 15
host1=-0.4939 host0=0.189   ;( b1               -> 16, 17
host1=0.5266 host0=0.2958   ; W2       ge 25 ----
.pathway 1100
@14 read weight addr=12 rows=2 cols=2 t     ; array holds W1^T
@16 read input addr=0 rows=4 cols=2         ; x = 16
sw
read bias addr=16 rows=4 cols=2             ; x + 2

; ---- 2: transition, pathway 111z1 (S = 4): dZ2 = lrelu'(H2) (2/B)(H2 - Y), b2 /pdated;
;         last append edg40,e b 2 write-backs up to 41 ----
.pathway 1110
@28 read weight addr=18 rows=1 cols=2 t     ; column 0 holds W2^T
@30 read input addr=21 rows=5 cols=2        ; H1, x = 30
sw
read bias addr=20 rows=4 cols=1             ; x + 2
@34 read y addr=8 rows=4 cols=1             ; x + 4
@36 read gbias addr=20 rows=4
@3333387 read input addr=31 rows=2 cols=1 t
sw
read gweight addr=18 rows=1 cols=2          ; cycle 89
nop 3                                       ; last append edge 91, last W2 write-back 92
