;; GEMV with INT4 weights and per-row scales (spec §6.4): y = (W x) * scale, K = 64, N = 16,
;; then again with accm (y += W x * scale). Weights written as packed nibbles (.rowhex, §5.4:
;; byte j = column 2j in the low nibble, 2j+1 in the high nibble).
;; Run:  npukit run -t pccx examples/pccx/gemv_int4.s --stats --dump l2:0x1000:32   (Y = word 0x100)
.target pccx
.equ K, 64
.equ N, 16
.equ X_W, 0x40           ; x: 64 elements = 8 L2 words, loaded from host DDR
.equ Y_W, 0x100          ; y: 16 elements

.host byte=0
.bf16 1.6875, 1.8125, 1.5625, -1.6875, 0.375, -0.3125, 0.125, -1.5, -1.25, -0.25, -1.125, -0.1875, -1.875, -1.6875, 0.8125, -0.3125, 0.0625, 0.9375, -0.5625, -1.75, 1.125, 0.375, 0.625, 0.5, 1.875, -0.5625, 1.0625, -0.5, 0.3125, 0.625, -0.75, -1.6875
.bf16 -0.125, 0.875, 0.375, -0.1875, 0.5625, -1.25, -1.3125, -0.6875, 1.25, -1.1875, -1.5625, -1.625, -1.875, -0.875, 0.3125, 1.3125, -0.6875, -0.5, -0.875, -0.75, 1.125, 0.1875, -0.9375, -1.5625, 1.125, 0.8125, 1.3125, -1.0625, 0.1875, 1.6875, 0.375, 1.8125

.weight W, k=K, n=N
  .scale 0.0129, 0.0439, 0.0151, 0.0219, 0.0318, 0.0283, 0.0406, 0.0159, 0.0362, 0.0172, 0.0147, 0.038, 0.041, 0.0143, 0.0113, 0.018
  .rowhex 6d9945d88f9fa683749e0ae616aedb0f5b8d26d5a51f5591b1c852df2afb6780
  .rowhex 42c8e4d8565a701da09f4768155213204d5907a0e4c0b3b66098b07f590a3eac
  .rowhex 4d13dab98dcc7191b9823cdaee255ff3613c147934de2e559952d7352f19d634
  .rowhex 87d5e6a58644905934d0acb65ac7b1e83e01511782cfca1bb0aa790950e8caed
  .rowhex 970c485989cc3885a72691edb1dcbce5ed0acb5ba34eb2cf53e6fd92cbac9369
  .rowhex d9306e125ab74484ad98c22bc4150cd440c228a17793a5d08b3ff50ae0de7c52
  .rowhex 325f49b29abcbd153cbd23614e919d46c98763cf9ee01b8700775de5eb84b5d0
  .rowhex f0fe185edae59eae883d8925a70fc9b8e9abcf6a7097d92887f492d237ea2111
  .rowhex 5f9fa94254affd5eab96074afb294d09edc2dc734d985eefc386e76fa66b53a2
  .rowhex 2f1de23816efda99a3afeab4f2b23fc26f1cb072df05de44154d78ab8ad1587c
  .rowhex 423104e3c425f4bcc58354da68a08f1cb37fb0f775866e73aa5fac930bb83e7e
  .rowhex 22fc831f84f68d6b4c15a6f299b364eefc6d1b00978b0637f3934ea658956ad2
  .rowhex 1ca7881279378386f1a2a9ff0f046699bf2c21af22864cf35cd0caa5f1052952
  .rowhex f2810ef9d769cb8d1e6573452731a4093b30287c0602d15add71dc32453e9dbc
  .rowhex 09e66d66489dfd2b6b880c9071a5ca0bde32a1831d0c87f72b2b47132203cfee
  .rowhex a385eecbf635ba2ca1d24843c884ddd5f7965ad056f73411ba8bd47d02229faf
.endweight

    memset fmap, idx=1, a=1, b=K, c=1              ; x: 1 x K
    memset fmap, idx=2, a=1, b=N, c=1              ; y: 1 x N
    memcpy.h2l dst=X_W, aux=0, shape=1             ; host -> L2, 8 words
.wpush W
    gemv dst=Y_W, src=X_W, size=2, shape=1, w_scale
.wpush W
    gemv dst=Y_W, src=X_W, size=2, shape=1, w_scale, accm, lanes=3   ; two lanes: slower, same result
