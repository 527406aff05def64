#!/usr/bin/python3
"""Train and export one pre-norm transformer block to ONNX.

Input and output [N,8,32] (sequence 8, dimension 32): x + Wo(attention(LayerNorm1(x))), then
+ W2(GELU(W1(LayerNorm2(.)))) with 2 heads of 16, attention by MatMul, scaled by 1/4 and a
Softmax over the keys, exact (erf) GELU, feed-forward 64, biases on every linear layer.

The task (a small one attention solves, so that the weights are trained and mean something):
add the mean of the sequence's 8 input vectors to every position,
y[n, t, :] = x[n, t, :] + mean_s x[n, s, :], for inputs drawn from a seeded standard normal.
The block starts from PyTorch's seeded initialisation (LayerNorm gains and biases perturbed,
seeded), is trained with Adam (lr 3e-3, batches of 64 fresh sequences, --epochs of 100
batches, MSE), and the script prints the relative error sum((f(x) - y)^2) / sum((x - y)^2)
on 1,000 held-out sequences before and after: 1 for a block that returns its input, 0 for
the exact answer. Writes
transformer_block.onnx, the sidecar transformer_block.npz, a fixed input
transformer_block_samples.npy (float32 [4,8,32], seeded normal) and PyTorch's output for it,
transformer_block_torch.npy. Deterministic: fixed seeds, one CPU thread.
Regenerate (python3-torch, python3-onnx): /usr/bin/python3 models/onnx/transformer_block.py
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


def mean_task(torch, n, gen):
    """n sequences from a seeded normal and their targets: each position plus the mean."""
    x = torch.randn(n, SEQ, DIM, generator=gen)
    return x, x + x.mean(dim=1, keepdim=True)


def rel_error(torch, model, x, y):
    """Squared error relative to that of returning the input."""
    with torch.no_grad():
        return float(((model(x) - y) ** 2).sum() / ((x - y) ** 2).sum())


def train(torch, model, epochs, seed):
    """Adam on fresh batches of the mean task; prints the held-out relative error."""
    gen = torch.Generator().manual_seed(seed + 1)
    xv, yv = mean_task(torch, 1000, torch.Generator().manual_seed(seed + 2))
    print("relative error on 1,000 held-out sequences, untrained: %.4f" %
          rel_error(torch, model, xv, yv))
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    for epoch in range(epochs):
        total = 0.0
        for _ in range(100):
            x, y = mean_task(torch, 64, gen)
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
            total += loss.item()
        print("epoch %d: training MSE %.5f, held-out relative error %.4f" %
              (epoch + 1, total / 100, rel_error(torch, model, xv, yv)))
    model.eval()
    return rel_error(torch, model, xv, yv)


def main():
    common.block_main("transformer_block", "Train one transformer block (d=32, 2 heads, "
                      "sequence 8) on the sequence-mean task and export it to "
                      "transformer_block.onnx with its sidecar and a checked sample.", build,
                      (SEQ, DIM), train=train, epochs=10)


if __name__ == "__main__":
    main()
