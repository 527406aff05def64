#!/usr/bin/python3
"""Train the Fashion-MNIST MLP 784 -> 128 (ReLU) -> 10 in float32 and export it to ONNX.

The same network and training as models/mlp/train_mlp.py (Adam, lr 1e-3, batch 128, 5 epochs,
pixels scaled to [0, 1]), kept in float: writes mlp.onnx (input [N,784] -> logits [N,10], one
Gemm per layer), the sidecar mlp.npz for the NumPy reference, and the sample files (README.md).
Deterministic: fixed seeds, one CPU thread.
"""

import common


def build(torch):
    return torch.nn.Sequential(torch.nn.Linear(784, 128), torch.nn.ReLU(),
                               torch.nn.Linear(128, 10))


if __name__ == "__main__":
    common.classifier_main("mlp", "Train the Fashion-MNIST MLP (784-128-10, ReLU) in float32 "
                           "and export mlp.onnx with its sidecar and samples.",
                           build, [784], epochs=5)
