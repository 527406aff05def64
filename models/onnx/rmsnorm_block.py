#!/usr/bin/python3
"""Export a small RMSNorm block to ONNX: the RMSNorm pattern in both forms PyTorch exports.

Input and output [N,4,16] (sequence 4, dimension 16): h = x + W(RMSNorm1(x)), output
RMSNorm2(h), where RMSNorm1 is x * rsqrt(mean(x^2) + eps) * g (LLaMA's form: exported as Pow,
ReduceMean, Add, Sqrt, Div(1, .), Mul, Mul) and RMSNorm2 is x / sqrt(mean(x * x) + eps) * g
(exported as Mul(x, x), ReduceMean, Add, Sqrt, Div, Mul). torch 1.13 has no nn.RMSNorm, so the
formula is written out. Seeded weights, the gains perturbed so that they matter; not trained.
Writes rmsnorm_block.onnx, its sidecar rmsnorm_block.npz, a fixed input
rmsnorm_block_samples.npy (float32 [4,4,16], seeded normal) and PyTorch's output for it,
rmsnorm_block_torch.npy (a few KB in all). Deterministic: fixed seeds, one CPU thread.
Regenerate with /usr/bin/python3 models/onnx/rmsnorm_block.py.
"""

import common

SEQ, DIM = 4, 16


def build(torch):
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.g1 = nn.Parameter(1.0 + 0.2 * torch.randn(DIM))
            self.g2 = nn.Parameter(1.0 + 0.2 * torch.randn(DIM))
            self.fc = nn.Linear(DIM, DIM)

        def forward(self, x):
            n1 = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.g1
            h = x + self.fc(n1)
            return h / torch.sqrt((h * h).mean(-1, keepdim=True) + 1e-5) * self.g2

    return Block()


def main():
    common.block_main("rmsnorm_block", "Export a small RMSNorm block (d=16, sequence 4) with seeded weights "
                      "to rmsnorm_block.onnx with its sidecar and a checked sample.", build, (SEQ, DIM))


if __name__ == "__main__":
    main()
