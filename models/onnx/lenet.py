#!/usr/bin/python3
"""Train a LeNet-sized CNN on Fashion-MNIST in float32 and export it to ONNX.

Input [N,1,28,28] (pixels scaled to [0, 1]): Conv 1->6 5x5 pad 2, ReLU, MaxPool 2x2;
Conv 6->16 5x5, ReLU, MaxPool 2x2; Flatten (400); Gemm 400->120, ReLU; 120->84, ReLU; 84->10.
Adam (lr 1e-3), batch 128, 10 epochs. Writes lenet.onnx, the sidecar lenet.npz for the NumPy
reference, and the sample files (README.md). Deterministic: fixed seeds, one CPU thread.
"""

import common


def build(torch):
    nn = torch.nn
    return nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                         nn.Linear(84, 10))


if __name__ == "__main__":
    common.classifier_main("lenet", "Train a LeNet-sized CNN on Fashion-MNIST in float32 and "
                           "export lenet.onnx with its sidecar and samples.",
                           build, [1, 28, 28], epochs=10)
