#!/usr/bin/python3
"""Export one pre-norm transformer block to ONNX, for shape and lowering coverage.

Input and output [N,8,32] (sequence 8, dimension 32): x + Wo(attention(LayerNorm1(x))), then
+ W2(GELU(W1(LayerNorm2(.)))) with 2 heads of 16, attention by MatMul, scaled by 1/4 and a
Softmax over the keys, exact (erf) GELU, feed-forward 64, biases on every linear layer. The
weights are PyTorch's seeded initialisation, the LayerNorm gains and biases perturbed (seeded)
so that they matter; nothing is trained (accuracy means nothing here). Writes
transformer_block.onnx, the sidecar transformer_block.npz, a fixed input
transformer_block_samples.npy (float32 [4,8,32], seeded normal) and PyTorch's output for it,
transformer_block_torch.npy. Deterministic: fixed seeds, one CPU thread.
"""

import common

SEQ, DIM, HEADS, FF = 8, 32, 2, 64


def build(torch):
    nn = torch.nn
    dh = DIM // HEADS

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(DIM), nn.LayerNorm(DIM)
            self.q, self.k, self.v = nn.Linear(DIM, DIM), nn.Linear(DIM, DIM), nn.Linear(DIM, DIM)
            self.o = nn.Linear(DIM, DIM)
            self.ff1, self.ff2 = nn.Linear(DIM, FF), nn.Linear(FF, DIM)

        def heads(self, t):  # [N,S,D] -> [N,H,S,dh]; literal sizes keep Reshape's shape constant
            return t.reshape(-1, SEQ, HEADS, dh).transpose(1, 2)

        def forward(self, x):
            h = self.ln1(x)
            q, k, v = self.heads(self.q(h)), self.heads(self.k(h)), self.heads(self.v(h))
            att = torch.softmax(torch.matmul(q, k.transpose(2, 3)) / (dh ** 0.5), dim=-1)
            a = torch.matmul(att, v).transpose(1, 2).reshape(-1, SEQ, DIM)
            x = x + self.o(a)
            return x + self.ff2(nn.functional.gelu(self.ff1(self.ln2(x))))

    m = Block()
    with torch.no_grad():
        for ln in (m.ln1, m.ln2):
            ln.weight.add_(0.2 * torch.randn(DIM))
            ln.bias.add_(0.1 * torch.randn(DIM))
    return m


def main():
    common.block_main("transformer_block", "Export one transformer block (d=32, 2 heads, sequence 8) with seeded "
                      "weights to transformer_block.onnx with its sidecar and a checked sample.", build, (SEQ, DIM))


if __name__ == "__main__":
    main()
