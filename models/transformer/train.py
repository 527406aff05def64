#!/usr/bin/python3
"""Train npukit's FP32 character transformer (spec docs/spec/rvnpu.md section 13.3)
on the English text of Debian's fortunes packages and export its weights as a raw
little-endian float32 blob (layout in models/transformer/README.md).

Uses Debian's python3-torch on one CPU thread with fixed seeds, so a rerun with the same
arguments and the same package versions reproduces the same weights.
"""
import argparse
import math
import os
import struct
import sys
import time

VOCAB, DIM, HEADS, LAYERS, CTX, FF = 256, 64, 4, 2, 32, 256
HEAD_DIM = DIM // HEADS
N_PARAMS = 134848

FORTUNE_DIR = "/usr/share/games/fortunes"
# Plain-prose files of the fortunes / fortunes-min packages (BSD licence, see README).
# Left out: art and ascii-art (pictures), translate-me (mostly non-English).
DEFAULT_FILES = (
    "computers cookie debian definitions disclaimer drugs education ethnic food fortunes "
    "goedel humorists kids knghtbrd law linux linuxcookie literature love magic medicine "
    "men-women miscellaneous news paradoxum people perl pets platitudes politics pratchett "
    "riddles science songs-poems sports startrek tao wisdom work zippy").split()


def die(msg):
    print("train.py: error: " + msg, file=sys.stderr)
    sys.exit(1)


def load_corpus(directory, names):
    """Return (train_bytes, val_bytes): fortunes are split 9:1 by index (every tenth
    fortune of every file goes to validation), each fortune followed by a blank line."""
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


def build_model(torch, dropout):
    nn = torch.nn
    F = torch.nn.functional

    class RMSNorm(nn.Module):
        def __init__(self):
            super().__init__()
            self.g = nn.Parameter(torch.ones(DIM))

        def forward(self, x):
            return x * self.g / torch.sqrt((x * x).mean(-1, keepdim=True) + 1e-5)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.n1 = RMSNorm()
            self.q = nn.Linear(DIM, DIM)
            self.k = nn.Linear(DIM, DIM)
            self.v = nn.Linear(DIM, DIM)
            self.o = nn.Linear(DIM, DIM)
            self.n2 = RMSNorm()
            self.f1 = nn.Linear(DIM, FF)
            self.f2 = nn.Linear(FF, DIM)
            self.drop = nn.Dropout(dropout)
            self.register_buffer("mask", torch.tril(torch.ones(CTX, CTX, dtype=torch.bool)))

        def forward(self, x):
            b, t, _ = x.shape
            h = self.n1(x)
            q = self.q(h).view(b, t, HEADS, HEAD_DIM).transpose(1, 2)
            k = self.k(h).view(b, t, HEADS, HEAD_DIM).transpose(1, 2)
            v = self.v(h).view(b, t, HEADS, HEAD_DIM).transpose(1, 2)
            s = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(HEAD_DIM))
            s = s.masked_fill(~self.mask[:t, :t], float("-inf"))
            a = self.drop(torch.softmax(s, dim=-1)) @ v
            a = a.transpose(1, 2).reshape(b, t, DIM)
            x = x + self.drop(self.o(a))
            h = self.f2(F.gelu(self.f1(self.n2(x))))  # exact erf GELU
            return x + self.drop(h)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(VOCAB, DIM)
            self.pos = nn.Embedding(CTX, DIM)
            self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])
            self.nf = RMSNorm()
            self.out = nn.Linear(DIM, VOCAB)
            self.drop = nn.Dropout(dropout)
            for m in self.modules():
                if isinstance(m, (nn.Linear, nn.Embedding)):
                    nn.init.normal_(m.weight, 0.0, 0.02)
                    if isinstance(m, nn.Linear):
                        nn.init.zeros_(m.bias)

        def forward(self, idx):
            t = idx.shape[1]
            x = self.drop(self.tok(idx) + self.pos(torch.arange(t)))
            for blk in self.blocks:
                x = blk(x)
            return self.out(self.nf(x))

        def export_tensors(self):
            """The blob's tensors in file order (README: Weight blob layout)."""
            ts = [self.tok.weight, self.pos.weight]
            for b in self.blocks:
                ts += [b.n1.g, b.q.weight, b.q.bias, b.k.weight, b.k.bias, b.v.weight, b.v.bias,
                       b.o.weight, b.o.bias, b.n2.g, b.f1.weight, b.f1.bias, b.f2.weight, b.f2.bias]
            ts += [self.nf.g, self.out.weight, self.out.bias]
            return ts

    return Model()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output",
                    default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights.bin"),
                    help="weight blob to write (default: %(default)s)")
    ap.add_argument("--data-dir", default=FORTUNE_DIR,
                    help="fortune files directory (default: %(default)s)")
    ap.add_argument("--steps", type=int, default=3000, help="optimiser steps (default: %(default)s)")
    ap.add_argument("--batch", type=int, default=64, help="windows per step (default: %(default)s)")
    ap.add_argument("--lr", type=float, default=2e-3, help="peak learning rate (default: %(default)s)")
    ap.add_argument("--warmup", type=int, default=200, help="linear warm-up steps (default: %(default)s)")
    ap.add_argument("--weight-decay", type=float, default=0.1, help="AdamW weight decay (default: %(default)s)")
    ap.add_argument("--dropout", type=float, default=0.0, help="dropout (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=1234, help="random seed (default: %(default)s)")
    ap.add_argument("--eval-every", type=int, default=500, help="validation interval (default: %(default)s)")
    ap.add_argument("--eval-windows", type=int, default=1024,
                    help="validation windows per evaluation (default: %(default)s)")
    args = ap.parse_args()
    if args.steps < 1 or args.batch < 1 or args.eval_every < 1 or args.eval_windows < 1:
        die("--steps, --batch, --eval-every and --eval-windows must be positive")
    if not (args.lr > 0 and 0 <= args.dropout < 1 and args.weight_decay >= 0 and args.warmup >= 0):
        die("bad --lr/--dropout/--weight-decay/--warmup value")

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

    model = build_model(torch, args.dropout)
    n = sum(p.numel() for p in model.parameters())
    if n != N_PARAMS:
        die("internal: model has %d parameters, expected %d" % (n, N_PARAMS))

    decay = [p for p in model.parameters() if p.dim() == 2]
    no_decay = [p for p in model.parameters() if p.dim() != 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=args.lr)

    def lr_at(step):
        if step < args.warmup:
            return args.lr * (step + 1) / args.warmup
        frac = (step - args.warmup) / max(1, args.steps - args.warmup)
        return args.lr * 0.5 * (1.0 + math.cos(math.pi * frac))

    def batch(data, count, g):
        starts = torch.randint(0, len(data) - CTX - 1, (count,), generator=g)
        offs = torch.arange(CTX + 1)
        w = data[starts[:, None] + offs[None, :]]
        return w[:, :-1], w[:, 1:]

    # A fixed validation set: the same windows at every evaluation.
    vx, vy = batch(val, args.eval_windows, torch.Generator().manual_seed(args.seed + 1))

    def evaluate():
        model.eval()
        with torch.no_grad():
            tot = 0.0
            for i in range(0, args.eval_windows, 512):
                lg = model(vx[i:i + 512])
                tot += torch.nn.functional.cross_entropy(
                    lg.reshape(-1, VOCAB), vy[i:i + 512].reshape(-1), reduction="sum").item()
        model.train()
        return tot / (args.eval_windows * CTX)

    t0 = time.time()
    model.train()
    for step in range(args.steps):
        for grp in opt.param_groups:
            grp["lr"] = lr_at(step)
        x, y = batch(train, args.batch, gen)
        loss = torch.nn.functional.cross_entropy(model(x).reshape(-1, VOCAB), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if (step + 1) % args.eval_every == 0 or step + 1 == args.steps:
            print("step %6d  train loss %.4f  val loss %.4f  (%.0f s)"
                  % (step + 1, loss.item(), evaluate(), time.time() - t0), flush=True)

    vl = evaluate()
    print("final validation loss %.4f nats/byte (%.3f bits/byte), %.0f s"
          % (vl, vl / math.log(2), time.time() - t0), flush=True)

    flat = torch.cat([t.detach().reshape(-1) for t in model.export_tensors()]).tolist()
    if len(flat) != N_PARAMS:
        die("internal: exported %d floats" % len(flat))
    try:
        with open(args.output, "wb") as f:
            f.write(struct.pack("<%df" % len(flat), *flat))
    except OSError as e:
        die("cannot write %s: %s" % (args.output, e.strerror))
    print("wrote %s (%d bytes)" % (args.output, 4 * len(flat)))


if __name__ == "__main__":
    main()
