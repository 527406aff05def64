"""The docs/python.md walkthrough: a small MLP on pccx through the host API, with its
utilisation and its timeline plotted, and the same statistics from the Machine underneath.

    PYTHONPATH=build/python python3 examples/python/walkthrough.py [OUT_DIR]

Writes OUT_DIR/pccx_mlp_util.png, OUT_DIR/pccx_mlp_timeline.png and OUT_DIR/pccx_mlp.json
(default OUT_DIR: the current directory) and prints the outputs and the statistics.
"""
import os
import sys

import numpy as np

import npukit
import npukit.plot
from npukit.pccx import FLAG_W_SCALE, FMAP, Pccx

out = sys.argv[1] if len(sys.argv) > 1 else "."
rng = np.random.default_rng(1)

# a 256-256-64 MLP: INT4 weights with per-row scales, GELU after the hidden layer
sizes = [256, 256, 64]
p = Pccx(ext=1)
p.machine.timeline(os.path.join(out, "pccx_mlp.json"))
x = rng.uniform(-1, 1, sizes[0]).astype(np.float32)
p.write_l2(0, x)                                        # input at L2 element 0 (word 0)
for i, n in enumerate(sizes):                           # fmap[i + 1] = shape 1 x n
    p.memset(FMAP, i + 1, 1, n, 1)
words = [0, 0x100, 0x200]                               # L2 word of each layer's vector
ref = p.read_l2(0, sizes[0]).astype(np.float64)          # the input as BF16 holds it
for layer in range(2):
    k, n = sizes[layer], sizes[layer + 1]
    w = rng.integers(-8, 8, size=(n, k))
    scales = np.full(n, 1 / 64, dtype=np.float32)
    p.weight_push(p.weight_int4(w, scales))
    p.gemv(words[layer + 1], words[layer], FLAG_W_SCALE, layer + 2, layer + 1, 0)
    ref = (w @ ref) / 64
    if layer == 0:                                      # GELU in place (CVO 0x2)
        p.cvo(0x2, 8 * words[1], 8 * words[1], n)
        ref = 0.5 * ref * (1 + np.tanh(np.sqrt(2 / np.pi) * (ref + 0.044715 * ref ** 3)))
p.sync()
p.machine.timeline(None)

y = p.read_l2(8 * words[2], sizes[2])
st = p.machine.stats()
print(f"outputs (BF16) {np.round(y[:6], 3)} ...")
print(f"float64 model  {np.round(ref[:6], 3)} ...  max |diff| {np.max(np.abs(y - ref)):.3f}")
print(f"instructions {st['instructions']}, cycles {st['cycles']:,}")
print("busy:", {u: round(b / st["cycles"], 3) for u, b in st["unit_busy"].items() if b})

npukit.plot.utilisation(st, title="pccx MLP 256-256-64: unit utilisation").savefig(
    os.path.join(out, "pccx_mlp_util.png"))
npukit.plot.timeline(os.path.join(out, "pccx_mlp.json"),
                     title="pccx MLP 256-256-64: engines over cycles").savefig(
    os.path.join(out, "pccx_mlp_timeline.png"))
