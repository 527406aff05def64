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
import os

import numpy as np
import torch


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
    here = os.path.dirname(os.path.abspath(__file__))
    net = Net().eval()
    x = torch.randn(2, 1, 6, 6)
    with torch.no_grad():
        y = net(x).numpy()
    path = os.path.join(here, "view_flatten.onnx")
    torch.onnx.export(net, x[:1], path, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "N"}, "y": {0: "N"}}, opset_version=17)
    np.save(os.path.join(here, "view_flatten_x.npy"), x.numpy())
    np.save(os.path.join(here, "view_flatten_torch.npy"), y)
    import onnx
    ops = [n.op_type for n in onnx.load(path).graph.node]
    for op in ("Shape", "Gather", "Unsqueeze", "Concat", "Reshape"):
        if op not in ops:
            raise SystemExit("view_flatten.py: the export has no %s (%s)" % (op, ops))
    print("wrote %s: %s" % (path, " ".join(ops)))


if __name__ == "__main__":
    main()
