#!/usr/bin/python3
"""Train npukit's tiny Gemma-shaped byte language model for the pccx target and export it
with INT4 per-row-scale weights (the exact codes and scales examples/pccx/llm/tinylm.c runs).

Model (README.md): bytes (vocabulary 256), dimension 64, 2 decoder layers, 2 query heads and
1 KV head of dimension 32 (grouped-query attention), RoPE with half-split pairs (base 10,000),
RMSNorm without the +1 offset (eps 1e-6), GELU-tanh gated feed-forward of 128, no biases,
untied LM head. Trained on Debian's fortunes with one CPU thread and fixed seeds; the last
--qat-steps steps are quantisation-aware (INT4 fake quantisation, straight-through).
File layout: README.md, "Weight file layout".
"""
import argparse
import math
import os
import struct
import sys
import time

VOCAB, DIM, LAYERS, HEADS, KV_HEADS, HEAD_DIM, FFN = 256, 64, 2, 2, 1, 32, 128
MAX_CTX = 64
ROPE_BASE = 10000.0
EPS = 1e-6
MAGIC = b"PCXTLM01"

FORTUNE_DIR = "/usr/share/games/fortunes"
# Plain-prose files of the fortunes / fortunes-min packages (BSD licence, see README), as in
# models/transformer/train.py.
DEFAULT_FILES = (
    "computers cookie debian definitions disclaimer drugs education ethnic food fortunes "
    "goedel humorists kids knghtbrd law linux linuxcookie literature love magic medicine "
    "men-women miscellaneous news paradoxum people perl pets platitudes politics pratchett "
    "riddles science songs-poems sports startrek tao wisdom work zippy").split()


def die(msg):
    print("train.py: error: " + msg, file=sys.stderr)
    sys.exit(1)


def load_corpus(directory, names):
    """(train_bytes, val_bytes): every tenth fortune of every file goes to validation."""
    train, val = bytearray(), bytearray()
    for name in names:
        path = os.path.join(directory, name)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            die("cannot read %s: %s (install the Debian packages fortunes and fortunes-min)"
                % (path, e.strerror))
        entries = [e.strip(b"\n") for e in data.split(b"\n%\n")]
        entries = [e for e in entries if e and e != b"%"]
        for i, e in enumerate(entries):
            (val if i % 10 == 9 else train).extend(e + b"\n\n")
    return bytes(train), bytes(val)


def bf16(torch, t):
    """Round float32 to bfloat16 (RNE) and back: the values the NPU holds in L2."""
    return t.to(torch.bfloat16).to(torch.float32)


def quant_int4(torch, w):
    """Per-output-row symmetric INT4: scale = max|row| / 7, codes in -8..7 (float32 scale)."""
    amax = w.abs().amax(dim=1, keepdim=True).clamp_min(1e-8)
    scale = (amax / 7.0).to(torch.float32)
    codes = torch.clamp(torch.round(w / scale), -8, 7)
    return codes, scale


def build_model(torch):
    nn = torch.nn
    F = torch.nn.functional

    class RMSNorm(nn.Module):
        def __init__(self):
            super().__init__()
            self.g = nn.Parameter(torch.ones(DIM))

        def forward(self, x):  # Gemma 3n style: no +1 offset on the gain
            return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + EPS) * self.g

    class QLinear(nn.Linear):
        """Bias-free linear layer that can fake-quantise its weight to INT4 per row."""
        quant = False

        def forward(self, x):
            w = self.weight
            if QLinear.quant:
                codes, scale = quant_int4(torch, w.detach())
                w = w + (codes * scale - w).detach()  # straight-through estimator
            return F.linear(x, w)

    half = HEAD_DIM // 2
    inv_freq = ROPE_BASE ** (-torch.arange(half, dtype=torch.float32) * 2.0 / HEAD_DIM)

    def rope(x, pos):  # x: (b, heads, t, HEAD_DIM); half-split pairs (i, i + HEAD_DIM/2)
        ang = pos[:, None].float() * inv_freq[None, :]
        c, s = torch.cos(ang), torch.sin(ang)
        x1, x2 = x[..., :half], x[..., half:]
        return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.n1 = RMSNorm()
            self.q = QLinear(DIM, HEADS * HEAD_DIM, bias=False)
            self.k = QLinear(DIM, KV_HEADS * HEAD_DIM, bias=False)
            self.v = QLinear(DIM, KV_HEADS * HEAD_DIM, bias=False)
            self.o = QLinear(HEADS * HEAD_DIM, DIM, bias=False)
            self.n2 = RMSNorm()
            self.gate = QLinear(DIM, FFN, bias=False)
            self.up = QLinear(DIM, FFN, bias=False)
            self.down = QLinear(FFN, DIM, bias=False)

        def forward(self, x, pos, mask):
            b, t, _ = x.shape
            h = self.n1(x)
            q = self.q(h).view(b, t, HEADS, HEAD_DIM).transpose(1, 2)
            k = self.k(h).view(b, t, KV_HEADS, HEAD_DIM).transpose(1, 2)
            v = self.v(h).view(b, t, KV_HEADS, HEAD_DIM).transpose(1, 2)
            q, k = rope(q, pos), rope(k, pos)
            rep = HEADS // KV_HEADS
            k = k.repeat_interleave(rep, dim=1)
            v = v.repeat_interleave(rep, dim=1)
            # 1/sqrt(head_dim) is folded into the exported Q scales (the NPU program scales
            # nothing, like Gemma 3n).
            s = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(HEAD_DIM))
            s = s.masked_fill(~mask[:t, :t], float("-inf"))
            a = torch.softmax(s, dim=-1) @ v
            x = x + self.o(a.transpose(1, 2).reshape(b, t, HEADS * HEAD_DIM))
            h = self.n2(x)
            return x + self.down(F.gelu(self.gate(h), approximate="tanh") * self.up(h))

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(VOCAB, DIM)
            self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])
            self.nf = RMSNorm()
            self.head = QLinear(DIM, VOCAB, bias=False)
            self.register_buffer("mask", torch.tril(torch.ones(MAX_CTX, MAX_CTX, dtype=torch.bool)))
            for m in self.modules():
                if isinstance(m, (nn.Linear, nn.Embedding)):
                    nn.init.normal_(m.weight, 0.0, 0.02)
            nn.init.normal_(self.tok.weight, 0.0, 1.0)  # unit-RMS residual stream at the input

        def forward(self, idx):
            t = idx.shape[1]
            pos = torch.arange(t)
            x = self.tok(idx)
            for blk in self.blocks:
                x = blk(x, pos, self.mask)
            return self.head(self.nf(x))

    return Model(), QLinear


def export(torch, model, path):
    """Blob layout: README.md, 'Weight file layout'."""
    out = bytearray(MAGIC)
    out += struct.pack("<8I2f", VOCAB, DIM, LAYERS, HEADS, KV_HEADS, HEAD_DIM, FFN, MAX_CTX,
                       ROPE_BASE, EPS)

    def put_bf16(t):
        bits = t.detach().to(torch.bfloat16).view(torch.int16).reshape(-1).tolist()
        out.extend(struct.pack("<%dh" % len(bits), *bits))

    def put_int4(w, extra_scale=1.0):
        codes, scale = quant_int4(torch, w.detach())
        scale = (scale.reshape(-1).double() * extra_scale).float()
        out.extend(struct.pack("<%df" % scale.numel(), *scale.tolist()))
        c = codes.to(torch.int64) & 15
        k = c.shape[1]
        if k % 2:
            c = torch.cat([c, torch.zeros(c.shape[0], 1, dtype=torch.int64)], dim=1)
        packed = (c[:, 0::2] | (c[:, 1::2] << 4)).reshape(-1).tolist()
        out.extend(bytes(packed))

    put_bf16(model.tok.weight)
    for b in model.blocks:
        put_bf16(b.n1.g)
        put_int4(b.q.weight, 1.0 / math.sqrt(HEAD_DIM))
        put_int4(b.k.weight)
        put_int4(b.v.weight)
        put_int4(b.o.weight)
        put_bf16(b.n2.g)
        put_int4(b.gate.weight)
        put_int4(b.up.weight)
        put_int4(b.down.weight)
    put_bf16(model.nf.g)
    put_int4(model.head.weight)
    with open(path, "wb") as f:
        f.write(out)
    return len(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output",
                    default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "tinylm.bin"),
                    help="weight file to write (default: %(default)s)")
    ap.add_argument("--data-dir", default=FORTUNE_DIR,
                    help="fortune files directory (default: %(default)s)")
    ap.add_argument("--steps", type=int, default=1500, help="optimiser steps (default: %(default)s)")
    ap.add_argument("--qat-steps", type=int, default=300,
                    help="last steps trained with INT4 fake quantisation (default: %(default)s)")
    ap.add_argument("--batch", type=int, default=16, help="windows per step (default: %(default)s)")
    ap.add_argument("--ctx", type=int, default=MAX_CTX, help="window length (default: %(default)s)")
    ap.add_argument("--lr", type=float, default=4e-3, help="peak learning rate (default: %(default)s)")
    ap.add_argument("--warmup", type=int, default=100, help="linear warm-up steps (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=1234, help="random seed (default: %(default)s)")
    ap.add_argument("--eval-every", type=int, default=300, help="validation interval (default: %(default)s)")
    ap.add_argument("--eval-windows", type=int, default=256,
                    help="validation windows per evaluation (default: %(default)s)")
    args = ap.parse_args()
    if min(args.steps, args.batch, args.eval_every, args.eval_windows) < 1 or args.qat_steps < 0:
        die("--steps, --batch, --eval-every and --eval-windows must be positive")
    if not 2 <= args.ctx <= MAX_CTX:
        die("--ctx must be in 2..%d" % MAX_CTX)

    try:
        import torch
    except ImportError:
        die("python3-torch is required (Debian package python3-torch)")
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)

    train_b, val_b = load_corpus(args.data_dir, DEFAULT_FILES)
    print("corpus: %d train bytes, %d validation bytes" % (len(train_b), len(val_b)), flush=True)
    train = torch.tensor(list(train_b), dtype=torch.long)
    val = torch.tensor(list(val_b), dtype=torch.long)

    model, qlinear = build_model(torch)
    print("parameters: %d" % sum(p.numel() for p in model.parameters()), flush=True)
    decay = [p for p in model.parameters() if p.dim() == 2]
    no_decay = [p for p in model.parameters() if p.dim() != 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}], lr=args.lr)

    def lr_at(step):
        if step < args.warmup:
            return args.lr * (step + 1) / args.warmup
        frac = (step - args.warmup) / max(1, args.steps - args.warmup)
        return args.lr * (0.05 + 0.95 * 0.5 * (1.0 + math.cos(math.pi * frac)))

    def batch(data, count, g):
        starts = torch.randint(0, len(data) - args.ctx - 1, (count,), generator=g)
        w = data[starts[:, None] + torch.arange(args.ctx + 1)[None, :]]
        return w[:, :-1], w[:, 1:]

    vx, vy = batch(val, args.eval_windows, torch.Generator().manual_seed(args.seed + 1))

    def evaluate():
        model.eval()
        with torch.no_grad():
            lg = model(vx)
            tot = torch.nn.functional.cross_entropy(lg.reshape(-1, VOCAB), vy.reshape(-1)).item()
        model.train()
        return tot

    t0 = time.time()
    model.train()
    for step in range(args.steps):
        qlinear.quant = step >= args.steps - args.qat_steps
        for grp in opt.param_groups:
            grp["lr"] = lr_at(step)
        x, y = batch(train, args.batch, gen)
        loss = torch.nn.functional.cross_entropy(model(x).reshape(-1, VOCAB), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if (step + 1) % args.eval_every == 0 or step + 1 == args.steps:
            print("step %5d  train loss %.4f  val loss %.4f%s  (%.0f s)"
                  % (step + 1, loss.item(), evaluate(), "  (INT4 QAT)" if qlinear.quant else "",
                     time.time() - t0), flush=True)

    qlinear.quant = True
    vl = evaluate()
    print("final validation loss with INT4 weights %.4f nats/byte (%.3f bits/byte), %.0f s"
          % (vl, vl / math.log(2), time.time() - t0), flush=True)
    try:
        n = export(torch, model, args.output)
    except OSError as e:
        die("cannot write %s: %s" % (args.output, e.strerror))
    print("wrote %s (%d bytes)" % (args.output, n))


if __name__ == "__main__":
    main()
