#!/usr/bin/python3
"""Train the 784 -> 128 (ReLU) -> 10 Fashion-MNIST MLP and export it as int8 (rvnpu spec §13.2).

Training follows rvnpu spec §13.2: float model in PyTorch, Adam (lr 1e-3), batch 128, 5 epochs, pixels
scaled to [0, 1]. Then post-training symmetric per-layer quantisation with half-to-even
rounding (torch.round):

  s1 = 127 / max|W1|;  W1q = clamp(round(W1 * s1), -128, 127)
  A1 = 255 * s1 (firmware pixels are 0..255);  B1q = round(b1 * A1)
  hmax = largest layer-1 ReLU output over the first 5,000 training images (float model)
  SHIFT1 = clamp(round(log2(A1 / (120 / hmax))), 0, 31);  H = A1 / 2^SHIFT1
  s2 = 127 / max|W2|;  W2q likewise;  B2q = round(b2 * H * s2)
  B1' = B1q + 128 * sum_j W1q[i][j]   (the firmware feeds (int8)(p - 128) to VMAC)

The result is one little-endian binary file; its layout is documented in README.md and in
examples/rvnpu/mlp/mlp_format.h. Deterministic: fixed seeds, one CPU thread.
Not needed to build or test npukit; the exported file is shipped in the repository.
"""

import argparse
import gzip
import math
import os
import struct
import sys
import time

DATA_DIR = "/usr/share/datasets/fashion-mnist"
MAGIC = b"NPKMLP01"
N_IN, N_HID, N_OUT = 784, 128, 10


def fail(msg):
    print("train_mlp.py: error: " + msg, file=sys.stderr)
    sys.exit(1)


def read_idx(path, want_dims):
    """Read a gzip'd IDX file (magic 0x0000080N, big-endian sizes, unsigned bytes)."""
    try:
        with gzip.open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        fail("%s: cannot read: %s (Debian package dataset-fashion-mnist)" % (path, e))
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08 or raw[3] != want_dims:
        fail("%s: not an IDX file of unsigned bytes with %d dimensions" % (path, want_dims))
    dims = struct.unpack(">" + "I" * want_dims, raw[4:4 + 4 * want_dims])
    count = 1
    for d in dims:
        count *= d
    body = raw[4 + 4 * want_dims:]
    if len(body) != count:
        fail("%s: %d data bytes, header says %d" % (path, len(body), count))
    return dims, body


def load_set(data_dir, prefix):
    import numpy as np
    (n, rows, cols), img = read_idx(os.path.join(data_dir, prefix + "-images-idx3-ubyte.gz"), 3)
    (nl,), lab = read_idx(os.path.join(data_dir, prefix + "-labels-idx1-ubyte.gz"), 1)
    if rows * cols != N_IN or nl != n:
        fail("%s: %d images of %dx%d and %d labels; expected 28x28 and matching counts"
             % (prefix, n, rows, cols, nl))
    return (np.frombuffer(img, dtype=np.uint8).reshape(n, N_IN),
            np.frombuffer(lab, dtype=np.uint8).astype(np.int64))


def int_forward(x_u8, w1q, b1q, shift1, w2q, b2q):
    """The firmware's integer arithmetic (unsigned pixels, unadjusted B1q), in int64 numpy."""
    import numpy as np
    acc1 = x_u8.astype(np.int64) @ w1q.astype(np.int64).T + b1q.astype(np.int64)
    h = np.clip(acc1 >> shift1, -128, 127)
    h = np.maximum(h, 0)
    logits = h @ w2q.astype(np.int64).T + b2q.astype(np.int64)
    return np.argmax(logits, axis=1)  # first maximum, as the firmware


def main():
    ap = argparse.ArgumentParser(
        description="Train the Fashion-MNIST MLP (784-128-10) and export int8 weights for "
                    "the rvnpu MLP firmware (spec §13.2).")
    ap.add_argument("--data-dir", default=DATA_DIR,
                    help="directory with the gzip'd IDX files (default: %(default)s, "
                         "Debian package dataset-fashion-mnist)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "mlp_weights.bin"),
                    help="output file (default: %(default)s)")
    ap.add_argument("--epochs", type=int, default=5, help="training epochs (default: 5)")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    args = ap.parse_args()
    if args.epochs < 1:
        fail("--epochs must be at least 1")

    import numpy as np
    try:
        import torch
    except ImportError:
        fail("PyTorch is missing (Debian package python3-torch; run with /usr/bin/python3)")

    t0 = time.time()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    if hasattr(torch, "use_deterministic_algorithms"):
        torch.use_deterministic_algorithms(True)

    xtr, ytr = load_set(args.data_dir, "train")
    xte, yte = load_set(args.data_dir, "t10k")
    xtr_f = torch.from_numpy(xtr.astype(np.float32) / 255.0)
    ytr_t = torch.from_numpy(ytr)
    xte_f = torch.from_numpy(xte.astype(np.float32) / 255.0)

    l1 = torch.nn.Linear(N_IN, N_HID)
    l2 = torch.nn.Linear(N_HID, N_OUT)
    model = torch.nn.Sequential(l1, torch.nn.ReLU(), l2)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    lossf = torch.nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(args.seed)
    n = xtr_f.shape[0]
    for epoch in range(args.epochs):
        perm = torch.randperm(n, generator=gen)
        total = 0.0
        for i in range(0, n, 128):
            idx = perm[i:i + 128]
            opt.zero_grad()
            loss = lossf(model(xtr_f[idx]), ytr_t[idx])
            loss.backward()
            opt.step()
            total += loss.item() * idx.shape[0]
        print("epoch %d: loss %.4f" % (epoch + 1, total / n))

    with torch.no_grad():
        float_pred = model(xte_f).argmax(dim=1).numpy()
        float_acc = float((float_pred == yte).mean())

        w1, b1 = l1.weight.detach().double(), l1.bias.detach().double()
        w2, b2 = l2.weight.detach().double(), l2.bias.detach().double()
        s1 = 127.0 / w1.abs().max().item()
        w1q = torch.clamp(torch.round(w1 * s1), -128, 127).to(torch.int64)
        a1 = 255.0 * s1
        b1q = torch.round(b1 * a1).to(torch.int64)
        hmax = torch.relu(l1(xtr_f[:5000])).max().item()
        shift1 = int(min(max(round(math.log2(a1 / (120.0 / hmax))), 0), 31))
        h_scale = a1 / (1 << shift1)
        s2 = 127.0 / w2.abs().max().item()
        w2q = torch.clamp(torch.round(w2 * s2), -128, 127).to(torch.int64)
        b2q = torch.round(b2 * h_scale * s2).to(torch.int64)
        b1adj = b1q + 128 * w1q.sum(dim=1)

    w1q, b1q, b1adj = w1q.numpy(), b1q.numpy(), b1adj.numpy()
    w2q, b2q = w2q.numpy(), b2q.numpy()
    for name, v in (("B1q", b1q), ("B1'", b1adj), ("B2q", b2q)):
        if v.min() < -2**31 or v.max() >= 2**31:
            fail("%s does not fit in int32" % name)
    int_pred = int_forward(xte, w1q, b1q, shift1, w2q, b2q)
    int_acc = float((int_pred == yte).mean())

    blob = bytearray(MAGIC)
    blob += struct.pack("<5i", N_IN, N_HID, N_OUT, shift1, 0)
    blob += b1adj.astype("<i4").tobytes()
    blob += b1q.astype("<i4").tobytes()
    blob += b2q.astype("<i4").tobytes()
    blob += w1q.astype(np.int8).tobytes()
    blob += w2q.astype(np.int8).tobytes()
    try:
        with open(args.out, "wb") as f:
            f.write(blob)
    except OSError as e:
        fail("%s: cannot write: %s" % (args.out, e))

    print("s1 %.6g  A1 %.6g  hmax %.6g  SHIFT1 %d  H %.6g  s2 %.6g" %
          (s1, a1, hmax, shift1, h_scale, s2))
    print("test accuracy: float %.2f %%, int8 (numpy model of the firmware) %.2f %% "
          "(%d/10000), first 1000: %.2f %%" %
          (100 * float_acc, 100 * int_acc, int((int_pred == yte).sum()),
           100 * float((int_pred[:1000] == yte[:1000]).mean())))
    print("wrote %s (%d bytes) in %.1f s" % (args.out, len(blob), time.time() - t0))


if __name__ == "__main__":
    main()
