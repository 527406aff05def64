#!/usr/bin/python3
"""Export a tiny CNN whose flatten is PyTorch's `x.view(x.size(0), -1)`, the form most CNN code
uses: the exporter writes it as Shape, Gather, Unsqueeze, Concat and Reshape, which the ONNX
reader folds at load time (docs/models.md, "Constant folding"). Writes view_flatten.onnx, one
input view_flatten_x.npy (float32 [2,1,6,6], seeded normal) and PyTorch's output for it,
view_flatten_torch.npy, beside this script; the ctest model_torch_view runs the model with
`npukit run-model -t host` and compares. Regenerate (python3-torch, python3-onnx):
    python3 tests/model/data/view_flatten.py
Deterministic: seed 0, one CPU thread, opset 17, a symbolic batch dimension.
"""
import torch

from export import export


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 2, 3)
        self.fc = torch.nn.Linear(2 * 4 * 4, 3)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        x = x.view(x.size(0), -1)
        return self.fc(x)


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    net = Net().eval()
    x = torch.randn(2, 1, 6, 6)
    export(net, x, "view_flatten", ("Shape", "Gather", "Unsqueeze", "Concat", "Reshape"))


if __name__ == "__main__":
    main()
