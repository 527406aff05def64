#!/usr/bin/python3
"""Export a tiny CNN with PyTorch's padding layers that the exporter writes as an explicit Pad:
nn.ZeroPad2d(1) (a constant subgraph computing the pads -- ConstantOfShape, Concat, Reshape,
Slice, Transpose, Reshape, Cast -- then Pad, all folded by the reader) before a Conv, and
nn.AvgPool2d(3, stride=1, padding=1) (count_include_pad=True, PyTorch's default: a Pad then an
unpadded AveragePool). The plan merges each Pad into the layer after it (docs/models.md, "The
plan"). Writes pad_pool.onnx, eight inputs pad_pool_x.npy (float32 [8,1,6,6], seeded normal) and
PyTorch's output for it, pad_pool_torch.npy, beside this script; the ctest model_torch_pad runs
the model with `npukit run-model` on host and opennpu and compares. Regenerate (python3-torch,
python3-onnx):
    /usr/bin/python3 tests/model/data/pad_pool.py
Deterministic: seed 0, one CPU thread, opset 17, a symbolic batch dimension.
"""
import torch

from export import export


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    net = torch.nn.Sequential(
        torch.nn.ZeroPad2d(1), torch.nn.Conv2d(1, 2, 3), torch.nn.ReLU(),
        torch.nn.AvgPool2d(3, stride=1, padding=1), torch.nn.Flatten(),
        torch.nn.Linear(2 * 6 * 6, 3)).eval()
    x = torch.randn(8, 1, 6, 6)
    export(net, x, "pad_pool", ("ConstantOfShape", "Slice", "Cast", "Pad", "AveragePool"),
           {"Pad": 2})


if __name__ == "__main__":
    main()
