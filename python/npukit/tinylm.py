"""The tiny Gemma-shaped byte language model of models/pccx_tinylm, generating text on pccx
from Python: the host program of examples/pccx/llm (tinylm_model.c over pccx_llm.c) written
again over npukit.pccx. Every decoder layer and the INT4 LM head run as pccx instructions
(the recipes of pccx spec §8); the host looks up embeddings, writes the RoPE tables and picks
the greedy byte. The instruction stream is the C program's, instruction for
instruction, so text, instruction count and cycles equal `npukit demo pccx`'s.

    from npukit import tinylm
    lm = tinylm.load("models/pccx_tinylm/tinylm.bin")
    g = tinylm.generate(lm, b"The meaning of life is ", tokens=24)
    g.text, g.insns, g.cycles, g.cycles_per_token, g.engine_busy, g.hp_bytes
    tinylm.reference(lm, b"The meaning of life is ", 24).text   # binary64 NumPy model

`python3 -m npukit.tinylm WEIGHTS.bin` prints NPU against reference like the C demo.
"""

import math
import os
import sys
from dataclasses import dataclass, field

import numpy as np

from . import pccx as px
from .dtypes import decode, encode

MAGIC = b"PCXTLM01"
MAX_LAYERS = 8              # LLM_MAX_LAYERS of pccx_llm.h
L2_LIMIT = 16384            # CVO operands live in the first 16,384 L2 words (pccx spec §5.1)
HOST_LIMIT = 1 << 21        # one host window: a 17-bit aux in 16-byte units (pccx spec §5.3)
GELU_K = 0.79788456080286535588     # sqrt(2 / pi)


# ---- BF16 through npukit's own rounding (dtypes), as raw uint16 codes --------------------

def bf16(values):
    """Round to binary32, then to BF16 (llm_bf16 of pccx_llm.c); the uint16 codes."""
    return np.frombuffer(encode(np.asarray(values, np.float32), "bf16"), "<u2")


def f32(codes):
    """BF16 codes -> their float32 values."""
    return decode(np.asarray(codes, "<u2").tobytes(), "bf16")


# ---- the weight file (models/pccx_tinylm/README.md, "Weight file layout") -----------------

@dataclass
class Int4:
    """An INT4 matrix, one binary32 scale per output row (pccx spec §5.4): n rows of k codes."""
    codes: np.ndarray       # int8 [n, k], -8 .. 7
    scale: np.ndarray       # float32 [n]

    def matvec(self, x):
        """The binary64 product W x: whole-number sums, then the row scale (llm_ref.c)."""
        return (self.codes @ x) * self.scale.astype(np.float64)


@dataclass
class Layer:
    attn_norm: np.ndarray   # BF16 codes [dim]
    q: Int4
    k: Int4
    v: Int4
    o: Int4
    ffn_norm: np.ndarray
    gate: Int4
    up: Int4
    down: Int4


@dataclass
class Model:
    vocab: int
    dim: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    ffn: int
    max_pos: int
    rope_base: float        # binary32 values, as stored
    eps: float
    emb: np.ndarray         # BF16 codes [vocab, dim]
    layers: list
    final_norm: np.ndarray  # BF16 codes [dim]
    head: Int4

    @property
    def n_layers(self):
        return len(self.layers)

    @property
    def omega(self):
        """The RoPE frequencies: BF16 values of base^(-2j/head_dim), the model's definition."""
        hd = self.head_dim
        return f32(bf16([math.pow(self.rope_base, -2.0 * j / hd) for j in range(hd // 2)]))


def _int4_bytes(k, n):
    return 4 * n + n * ((k + 1) // 2)


def _file_size(h):
    """Bytes of a weight file with header fields h."""
    d, f = h["dim"], h["ffn"]
    qd, kd = h["n_heads"] * h["head_dim"], h["n_kv_heads"] * h["head_dim"]
    layer = (2 * d + _int4_bytes(d, qd) + 2 * _int4_bytes(d, kd) + _int4_bytes(qd, d)    # attention
             + 2 * d + 2 * _int4_bytes(d, f) + _int4_bytes(f, d))                        # FFN
    return 48 + 2 * h["vocab"] * d + h["n_layers"] * layer + 2 * d + _int4_bytes(d, h["vocab"])


def load(source):
    """Parse a PCXTLM01 weight file (a path, or its bytes) into a Model. A file that is not
    one, has an unsupported header or the wrong length raises ValueError saying which."""
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as f:
            buf = f.read()
    else:
        buf = bytes(source)
    if buf[:8] != MAGIC:
        raise ValueError("npukit: tinylm: not a PCXTLM01 weight file")
    if len(buf) < 48:
        raise ValueError(f"npukit: tinylm: truncated weight file: {len(buf)} bytes, the "
                         "header alone is 48")
    names = ("vocab", "dim", "n_layers", "n_heads", "n_kv_heads", "head_dim", "ffn", "max_pos")
    h = dict(zip(names, (int(v) for v in np.frombuffer(buf, "<u4", 8, 8))))
    rope_base, eps = (float(v) for v in np.frombuffer(buf, "<f4", 2, 40))
    limits = {"vocab": (256, 256), "dim": (1, 1024), "n_layers": (1, MAX_LAYERS),
              "n_heads": (1, 0xFFFFFFFF), "n_kv_heads": (1, 0xFFFFFFFF), "head_dim": (1, 256),
              "ffn": (1, 4096), "max_pos": (1, 1024)}
    for name, (lo, hi) in limits.items():
        if not lo <= h[name] <= hi:
            raise ValueError(f"npukit: tinylm: unsupported header: {name} {h[name]} "
                             f"(supported {lo} .. {hi})")
    if h["n_heads"] % h["n_kv_heads"]:
        raise ValueError(f"npukit: tinylm: unsupported header: {h['n_kv_heads']} KV heads do "
                         f"not divide {h['n_heads']} query heads")
    need = _file_size(h)
    if len(buf) != need:
        raise ValueError(f"npukit: tinylm: {'truncated' if len(buf) < need else 'oversized'} "
                         f"weight file: {len(buf)} bytes, its header's shapes need {need}")

    at = 48

    def bf16s(n):
        nonlocal at
        at += 2 * n
        return np.frombuffer(buf, "<u2", n, at - 2 * n)

    def int4(k, n):         # n scales, then n rows of ceil(k/2) bytes, low nibble first
        nonlocal at
        scale = np.frombuffer(buf, "<f4", n, at)
        rb = (k + 1) // 2
        b = np.frombuffer(buf, np.uint8, n * rb, at + 4 * n).reshape(n, rb)
        at += 4 * n + n * rb
        nib = np.stack([b & 15, b >> 4], axis=2).reshape(n, 2 * rb)[:, :k].astype(np.int8)
        return Int4(np.where(nib >= 8, nib - 16, nib).astype(np.int8), scale)

    d, qd, kd, f = h["dim"], h["n_heads"] * h["head_dim"], h["n_kv_heads"] * h["head_dim"], h["ffn"]
    emb = bf16s(h["vocab"] * d).reshape(h["vocab"], d)
    layers = [Layer(bf16s(d), int4(d, qd), int4(d, kd), int4(d, kd), int4(qd, d), bf16s(d),
                    int4(d, f), int4(d, f), int4(f, d)) for _ in range(h["n_layers"])]
    final_norm = bf16s(d)
    head = int4(d, h["vocab"])
    del h["n_layers"]                   # len(layers)
    return Model(rope_base=rope_base, eps=eps, emb=emb, layers=layers, final_norm=final_norm,
                 head=head, **h)


# ---- the device program (pccx_llm.c) ------------------------------------------------------

class _Program:
    """The L2 / host-DDR layout of a model on one Pccx and the emitters of its instruction
    sequences; the fmap shape entries are a cache, least recently used one rewritten."""

    def __init__(self, m, p, rope_host):
        self.m, self.p, self.rope_host = m, p, rope_host
        self.shp = [None] * px.CC_ENTRIES        # (x, y, z) of each fmap entry
        self.shp_used = [0] * px.CC_ENTRIES
        self.shp_clock, self.shp_pin = 0, -1
        self.l2_next, self.host_next = 16, 0
        D, H, KV, hd, F, T = m.dim, m.n_heads, m.n_kv_heads, m.head_dim, m.ffn, m.max_pos
        if hd % 16 or D % 8 or F % 8:
            raise ValueError("npukit: tinylm: head_dim must be a multiple of 16, dim and ffn "
                             "of 8")
        NH, G = H + KV, H // KV                   # heads RoPE rotates: q and k
        # L2 (element addresses)
        self.x = self.l2_alloc(D, slot_before=True)   # RMSNorm writes its scalar at x-1
        self.hn = self.l2_alloc(D)
        self.nconst = self.l2_alloc(5)
        self.qkv = self.l2_alloc((H + 2 * KV) * hd)
        self.rope_in = self.l2_alloc(1 + NH * hd)
        self.theta, self.cc, self.ss, self.sgn, self.rot = (self.l2_alloc(NH * hd)
                                                             for _ in range(5))
        self.scores = self.l2_alloc(G * T)
        self.expo = self.l2_alloc(G * (T + 1))
        self.probs = self.l2_alloc(G * T)
        self.attn = self.l2_alloc(H * hd)
        self.gate, self.up = self.l2_alloc(F), self.l2_alloc(F)
        self.logits = self.l2_alloc(m.vocab)
        self.final_norm = self.l2_alloc(D)
        self.norms = [(self.l2_alloc(D), self.l2_alloc(D)) for _ in m.layers]
        # host DDR: staging, then the KV caches [kv_head][max_pos][head_dim] BF16
        self.host_in = self.host_alloc(2 * max(D, F))
        self.host_rope = self.host_alloc(4 * (1 + NH * hd))
        self.host_out = self.host_alloc(2 * max(m.vocab, D, F))
        self.cache = [(self.host_alloc(2 * KV * T * hd), self.host_alloc(2 * KV * T * hd))
                      for _ in m.layers]
        p.host_window(0)
        # RMSNorm constants (pccx spec §8.2 ext): n, scratch, eps, scratch, scratch; n exact
        if f32(bf16(D))[0] != D:
            raise ValueError(f"npukit: tinylm: dim {D} is not exact in BF16")
        self.upload(self.nconst, bf16([D, 0, m.eps, 0, 0]))
        # RoPE sign table: per head [-1 x hd/2 | +1 x hd/2], so SIN(theta) * sgn = [-s | s]
        self.upload(self.sgn, bf16(np.tile(np.repeat([-1.0, 1.0], hd // 2), NH)))
        self.omega = m.omega
        self.w = []
        for lw, (an, fn) in zip(m.layers, self.norms):
            self.upload(an, lw.attn_norm)
            self.upload(fn, lw.ffn_norm)
            self.w.append({n: self.tensor(getattr(lw, n))
                           for n in ("q", "k", "v", "o", "gate", "up", "down")})
        self.upload(self.final_norm, m.final_norm)
        self.head = self.tensor(m.head)
        p.sync()

    def free(self):
        """Unregister the weight tensors (the Pccx may be used again)."""
        for w in self.w:
            for h in w.values():
                self.p.weight_free(h)
        self.p.weight_free(self.head)

    # allocators
    def l2_alloc(self, elems, slot_before=False):
        self.l2_next += slot_before
        at = self.l2_next
        self.l2_next += (elems + 7) // 8
        if self.l2_next > L2_LIMIT:
            raise ValueError(f"npukit: tinylm: the L2 layout needs more than {L2_LIMIT} words")
        return 8 * at

    def host_alloc(self, nbytes):
        at = self.host_next
        self.host_next += (nbytes + 15) & ~15
        if self.host_next > HOST_LIMIT:
            raise ValueError("npukit: tinylm: the host layout needs more than one 2 MiB window")
        return at

    def shape(self, x, y, z):
        """The fmap entry holding (x, y, z), written with MEMSET on first use."""
        key = (x, y, z)
        if key in self.shp:
            i = self.shp.index(key)
        else:
            i = min((j for j in range(px.CC_ENTRIES) if j != self.shp_pin),
                    key=self.shp_used.__getitem__)
            self.p.memset(px.FMAP, i, x, y, z)
            self.shp[i] = key
        self.shp_clock += 1
        self.shp_used[i] = self.shp_clock
        self.shp_pin = i
        return i

    # instruction helpers
    def load(self, l2, host, n):            # host DDR -> L2 (word-aligned element address)
        self.shp_pin = -1
        self.p.memcpy(1, 0, l2 // 8, 0, host // 16, self.shape(1, n, 1), 1)

    def store(self, host, l2, n):           # L2 -> host DDR
        self.shp_pin = -1
        self.p.memcpy(0, 1, 0, l2 // 8, host // 16, self.shape(1, n, 1), 1)

    def upload(self, l2, codes):            # setup: a fresh host region, then MEMCPY
        h = self.host_alloc(2 * len(codes))
        self.p.write_host(h, codes, "u16")
        self.load(l2, h, len(codes))

    def tensor(self, w):
        return self.p.weight_int4(w.codes, w.scale)

    def cvo(self, func, src, dst, n, flags=0):
        self.p.cvo(func, src, dst, n, flags, 1)

    def matmul(self, m, dst, src, k, n, w, flags):
        """GEMV (m == 1) or GEMM (m rows; m == 0: a one-row GEMM): dst = src x W^T."""
        self.shp_pin = -1
        i = self.shape(max(m, 1), k, 1)
        o = self.shape(max(m, 1), n, 1)
        self.p.weight_push(w)
        (self.p.gemv if m == 1 else self.p.gemm)(dst // 8, src // 8, flags, o, i, 0)

    # recipes (pccx spec §8)
    def rmsnorm(self, x, gamma, y):
        """pccx spec §8.2 ext: y = x / sqrt(mean(x^2) + eps) * gamma; x-1 must be free."""
        n, C = self.m.dim, self.nconst
        self.cvo(px.CVO_REDUCE_SUMSQ, x, C + 1, n)
        self.cvo(px.CVO_SCALE, C, C + 3, 2, px.CVO_FLAG_RECIP_SCALE)    # / n
        self.cvo(px.CVO_ADDS, C + 2, C + 4, 2)                          # + eps
        self.cvo(px.CVO_SQRT, C + 4, C + 4, 1)
        self.cvo(px.CVO_RECIP, C + 4, x - 1, 1)                         # r before x
        self.cvo(px.CVO_SCALE, x - 1, y, n + 1)                         # x * r
        self.cvo(px.CVO_VMUL, gamma, y, n)                              # * gamma

    def rope(self, at, n_heads):
        """pccx spec §8.3: x (.) [c|c] + [x2|x1] (.) [-s|s] per head, in place."""
        hd = self.m.head_dim
        h, n = hd // 2, n_heads * hd
        for i in range(n_heads):                                        # R = [x2 | x1]
            self.cvo(px.CVO_COPY, at + i * hd + h, self.rot + i * hd, h)
            self.cvo(px.CVO_COPY, at + i * hd, self.rot + i * hd + h, h)
        self.cvo(px.CVO_VMUL, self.cc, at, n)
        self.cvo(px.CVO_VMUL, self.ss, self.rot, n)
        self.cvo(px.CVO_COPY, self.rot, at, n, px.CVO_FLAG_ACCM)

    def begin_token(self, x_codes, pos):
        """The embedding row into the residual stream, and the cos/sin tables for pos."""
        m = self.m
        hd, n = m.head_dim, (m.n_heads + m.n_kv_heads) * m.head_dim
        if pos >= m.max_pos:
            raise ValueError(f"npukit: tinylm: position {pos} beyond the KV cache "
                             f"({m.max_pos})")
        self.p.write_host(self.host_in, x_codes, "u16")
        self.load(self.x, self.host_in, m.dim)
        om = np.tile(self.omega, 2 * n // hd)                # per head (omega_j) twice
        if self.rope_host:   # cos, +-sin of pos * omega in binary64, rounded once to BF16
            th = [pos * float(w) for w in om]
            sgn = np.tile(np.repeat([-1.0, 1.0], hd // 2), n // hd)
            self.p.write_host(self.host_rope, np.concatenate(
                [bf16([math.cos(t) for t in th]), bf16(sgn * [math.sin(t) for t in th])]), "u16")
            self.load(self.cc, self.host_rope, n)
            self.load(self.ss, self.host_rope + 2 * n, n)
            return
        # pccx spec §8.3 on the NPU: theta = pos * omega, then COS, SIN and the sign table
        self.p.write_host(self.host_rope, np.concatenate([bf16([pos]), bf16(om)]), "u16")
        self.load(self.rope_in, self.host_rope, n + 1)
        self.cvo(px.CVO_SCALE, self.rope_in, self.theta, n + 1)
        self.cvo(px.CVO_COS, self.theta, self.cc, n)
        self.cvo(px.CVO_SIN, self.theta, self.ss, n)
        self.cvo(px.CVO_VMUL, self.sgn, self.ss, n)

    def attention(self, layer, g, pos):
        """Softmax attention of KV head g's query heads over cache rows 0..pos (pccx spec
        §7.3 views, pccx spec §8.1 softmax)."""
        m, p = self.m, self.p
        hd, T, G, n = m.head_dim, m.max_pos, m.n_heads // m.n_kv_heads, pos + 1
        kc, vc = (base + 2 * g * T * hd for base in self.cache[layer])
        view = p.weight_view_bf16(kc, n, hd, hd, 1)         # scores = q . K[t]
        self.matmul(G, self.scores, self.qkv + g * G * hd, hd, n, view, px.FLAG_FINDEMAX)
        p.weight_free(view)
        for r in range(G):              # e = exp(s - E_MAX), sum, p = e / sum
            S = self.expo + r * (T + 1)
            self.cvo(px.CVO_EXP, self.scores + r * n, S + 1, n, px.CVO_FLAG_SUB_EMAX)
            self.cvo(px.CVO_REDUCE_SUM, S + 1, S, n)
            self.cvo(px.CVO_SCALE, S, self.probs + r * n, n + 1, px.CVO_FLAG_RECIP_SCALE)
        view = p.weight_view_bf16(vc, hd, n, 1, hd)         # out = p V: the transposed view
        self.matmul(G, self.attn + g * G * hd, self.probs, n, hd, view, 0)
        p.weight_free(view)

    def layer(self, l, pos):
        """One decoder layer on the residual stream, appending K/V rows at pos."""
        m, w = self.m, self.w[l]
        D, H, KV, hd, F, T = m.dim, m.n_heads, m.n_kv_heads, m.head_dim, m.ffn, m.max_pos
        q = self.qkv
        k, v = q + H * hd, q + (H + KV) * hd
        WS = px.FLAG_W_SCALE
        self.rmsnorm(self.x, self.norms[l][0], self.hn)
        # K, V and FFN-up as one-row GEMMs on the GEMM engine, concurrent with the GEMV one
        self.matmul(1, q, self.hn, D, H * hd, w["q"], WS)
        self.matmul(0, k, self.hn, D, KV * hd, w["k"], WS)
        self.matmul(0, v, self.hn, D, KV * hd, w["v"], WS)
        self.rope(q, H + KV)                                # q and k heads together
        for g in range(KV):
            self.store(self.cache[l][0] + 2 * (g * T + pos) * hd, k + g * hd, hd)
            self.store(self.cache[l][1] + 2 * (g * T + pos) * hd, v + g * hd, hd)
        for g in range(KV):
            self.attention(l, g, pos)
        self.matmul(1, self.x, self.attn, H * hd, D, w["o"], WS | px.FLAG_ACCM)
        # gated FFN: x += down(gelu(gate(h)) (.) up(h))
        self.rmsnorm(self.x, self.norms[l][1], self.hn)
        self.matmul(1, self.gate, self.hn, D, F, w["gate"], WS)
        self.matmul(0, self.up, self.hn, D, F, w["up"], WS)
        self.cvo(px.CVO_GELU, self.gate, self.gate, F)
        self.cvo(px.CVO_VMUL, self.gate, self.up, F)
        self.matmul(1, self.x, self.up, F, D, w["down"], WS | px.FLAG_ACCM)

    def logits_of_head(self):
        """Final RMSNorm and the INT4 LM head; waits and reads the logits back."""
        m = self.m
        self.rmsnorm(self.x, self.final_norm, self.hn)
        self.matmul(1, self.logits, self.hn, m.dim, m.vocab, self.head, px.FLAG_W_SCALE)
        self.store(self.host_out, self.logits, m.vocab)
        self.p.sync()
        return self.p.read_host(self.host_out, m.vocab).astype(np.float64)


# ---- generation -----------------------------------------------------------------------------

ENGINES = ("memset", "mem", "gemv", "gemm", "cvo")


@dataclass
class Generation:
    """What generate() returns; the counts cover the generation (not the setup)."""
    text: bytes                 # prompt + generated bytes
    prompt_len: int
    position_cycles: list       # cycles of each position 0 .. len(text) - 2
    logits: np.ndarray          # [tokens, vocab]: the NPU's logits of each generated byte
    insns: int                  # pccx instructions issued
    cycles: int                 # simulated cycles
    engine_busy: dict           # engine name -> busy cycles / cycles
    hp_bytes: tuple             # bytes over HP0 .. HP3 (GEMM engine on HP0/1, GEMV on HP2/3)
    stats: dict = field(repr=False)     # Pccx.stats() at the end

    @property
    def generated(self):
        return self.text[self.prompt_len:]

    @property
    def cycles_per_token(self):
        """Cycles of the positions that predicted a byte (layers + LM head), per byte."""
        return sum(self.position_cycles[self.prompt_len - 1:]) / len(self.generated)


def _check_lengths(model, prompt, tokens):
    prompt = bytes(prompt)
    if not prompt or tokens < 1 or len(prompt) + tokens - 1 > model.max_pos:
        raise ValueError(f"npukit: tinylm: prompt ({len(prompt)} bytes) + {tokens} tokens "
                         f"exceed the context of {model.max_pos}")
    return prompt


def generate(model, prompt=b"The meaning of life is ", tokens=24, pccx=None, rope_host=True):
    """Greedy generation on pccx: every position of prompt + tokens runs through the layers
    as instructions, and from the prompt's last byte on the LM head's argmax is the next byte.
    pccx: a Pccx with the ext profile (default Pccx(ext=1, host_ddr_bytes=4 << 20), the C
    demo's); rope_host=False builds the cos/sin tables on the NPU (pccx spec §8.3) instead."""
    prompt = _check_lengths(model, prompt, tokens)
    p = pccx if pccx is not None else px.Pccx(ext=1, host_ddr_bytes=4 << 20)
    prog = _Program(model, p, rope_host)
    text = bytearray(prompt)
    cyc, logits = [], []
    s0 = p.stats()
    for pos in range(len(prompt) + tokens - 1):
        before = p.stats()["cycles"]
        prog.begin_token(model.emb[text[pos]], pos)
        for l in range(len(model.layers)):
            prog.layer(l, pos)
        if pos + 1 >= len(prompt):          # a prediction is needed from here on
            logits.append(prog.logits_of_head())
            text.append(int(np.argmax(logits[-1])))
        else:
            p.sync()
        cyc.append(p.stats()["cycles"] - before)
    s1 = p.stats()
    prog.free()
    cycles = s1["cycles"] - s0["cycles"]
    return Generation(
        text=bytes(text), prompt_len=len(prompt), position_cycles=cyc,
        logits=np.array(logits), insns=s1["insns"] - s0["insns"], cycles=cycles,
        engine_busy={e: (s1["engine_busy"][e] - s0["engine_busy"][e]) / cycles
                     for e in ENGINES},
        hp_bytes=tuple(b - a for a, b in zip(s0["hp_bytes"], s1["hp_bytes"])), stats=s1)


# ---- the binary64 reference (llm_ref.c) ---------------------------------------------------

@dataclass
class Reference:
    text: bytes                 # prompt + the reference's greedy bytes
    logits: np.ndarray          # [tokens, vocab]
    margins: np.ndarray         # [tokens]: top-2 margin of each choice (small = near-tie)


def _rmsnorm(x, gamma, eps):
    return x * (1.0 / math.sqrt(np.dot(x, x) / len(x) + eps)) * f32(gamma)


def _rope(heads, pos, omega):
    """Half-split pairs (j, j + hd/2) of each row of heads, rotated by pos * omega_j."""
    th = [pos * float(w) for w in omega]
    c, s = np.array([math.cos(t) for t in th]), np.array([math.sin(t) for t in th])
    x1, x2 = heads[:, :len(th)], heads[:, len(th):]
    return np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], axis=1)


def reference(model, prompt=b"The meaning of life is ", tokens=24):
    """The same quantised model in binary64 NumPy (no BF16 rounding anywhere), generating
    greedily from its own choices."""
    prompt = _check_lengths(model, prompt, tokens)
    m, omega = model, model.omega
    H, KV, hd = m.n_heads, m.n_kv_heads, m.head_dim
    kcache = np.zeros((len(m.layers), KV, m.max_pos, hd))
    vcache = np.zeros_like(kcache)
    text, logits = bytearray(prompt), []
    for pos in range(len(prompt) + tokens - 1):
        x = f32(m.emb[text[pos]]).astype(np.float64)
        for l, w in enumerate(m.layers):
            h = _rmsnorm(x, w.attn_norm, m.eps)
            q = _rope(w.q.matvec(h).reshape(H, hd), pos, omega)
            kcache[l, :, pos] = _rope(w.k.matvec(h).reshape(KV, hd), pos, omega)
            vcache[l, :, pos] = w.v.matvec(h).reshape(KV, hd)
            att = np.empty((H, hd))
            for i in range(H):          # no 1/sqrt(hd): it is folded into the Q scales
                g = i // (H // KV)
                s = kcache[l, g, :pos + 1] @ q[i]
                e = np.exp(s - s.max())
                att[i] = (e / e.sum()) @ vcache[l, g, :pos + 1]
            x = x + w.o.matvec(att.reshape(-1))
            h = _rmsnorm(x, w.ffn_norm, m.eps)
            g = w.gate.matvec(h)
            gelu = 0.5 * g * (1.0 + np.tanh(GELU_K * (g + 0.044715 * g * g * g)))
            x = x + w.down.matvec(w.up.matvec(h) * gelu)
        if pos + 1 < len(prompt):
            continue
        logits.append(m.head.matvec(_rmsnorm(x, m.final_norm, m.eps)))
        text.append(int(np.argmax(logits[-1])))
    lg = np.array(logits)
    top2 = np.sort(lg, axis=1)[:, -2:]
    return Reference(bytes(text), lg, top2[:, 1] - top2[:, 0])


# ---- python3 -m npukit.tinylm WEIGHTS.bin ---------------------------------------------------

def _show(b):
    return "".join(chr(c) if 32 <= c < 127 else "?" for c in b)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0].startswith("-"):
        print("usage: python3 -m npukit.tinylm WEIGHTS.bin", file=sys.stderr)
        return 2
    lm = load(argv[0])
    g = generate(lm)
    r = reference(lm)
    same = next((i for i, (a, b) in enumerate(zip(g.generated, r.text[g.prompt_len:]))
                 if a != b), len(g.generated))
    print(f'NPU:       "{_show(g.text)}"')
    print(f'reference: "{_show(r.text)}"   (binary64 NumPy model of the same INT4 weights)')
    print(f"{same} of {len(g.generated)} generated bytes equal the reference's greedy choice")
    per = g.cycles_per_token
    print(f"timing model: {per:.0f} cycles per generated token = {per / 400:.1f} us at 400 MHz")
    print(f"{g.insns} instructions, {g.cycles} cycles; engine busy: "
          + " ".join(f"{e} {100 * f:.0f}%" for e, f in g.engine_busy.items()))
    print("INT4 weights streamed over HP0-HP3: " + " / ".join(map(str, g.hp_bytes)) + " bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
