#!/usr/bin/python3
"""The Fashion-MNIST measurements of docs/models.md ("Training on tinytpu"): a 784-128-10 MLP
(Gemm + Relu, Gemm) trained from a random start with `npukit train-model` on tinytpu (Q8.8),
and the same SGD in float64 here (same start, batches, loss gradient (2/B)(H - Y) with one-hot
targets, learning rate); prints both accuracies on the 10,000 test images. The start is uniform
in +-1/sqrt(fan_in), rounded to Q8.8, biases 0, seed 0. Needs python3-onnx, python3-numpy and
the Debian package dataset-fashion-mnist (/usr/share/datasets/fashion-mnist). Not a ctest (a
minute and more of CPU per 100 steps).

usage: train_fashion_mnist.py NPUKIT LR STEPS BATCH [WORKDIR]
  e.g. train_fashion_mnist.py build/npukit 0.0625 128 16 /tmp/fm   (one pass over 2048 images)
"""
import gzip
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

npk, lr, steps, B = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
d = sys.argv[5] if len(sys.argv) > 5 else "."
os.makedirs(d, exist_ok=True)
D = "/usr/share/datasets/fashion-mnist/"


def idx(name, off, shape):
    return np.frombuffer(gzip.open(D + name).read(), np.uint8, offset=off).reshape(shape)


n_train = steps * B
X = idx("train-images-idx3-ubyte.gz", 16, (-1, 784))[:n_train] / 255.0
lab = idx("train-labels-idx1-ubyte.gz", 8, (-1,))[:n_train].astype(np.int64)
Xt = idx("t10k-images-idx3-ubyte.gz", 16, (-1, 784)) / 255.0
yt = idx("t10k-labels-idx1-ubyte.gz", 8, (-1,))
np.save(os.path.join(d, "x.npy"), X.astype(np.float32))
np.save(os.path.join(d, "labels.npy"), lab)

rng = np.random.default_rng(0)
W1 = (np.round(rng.uniform(-1, 1, (128, 784)) / np.sqrt(784) * 256) / 256).astype(np.float32)
W2 = (np.round(rng.uniform(-1, 1, (10, 128)) / np.sqrt(128) * 256) / 256).astype(np.float32)
b1, b2 = np.zeros(128, np.float32), np.zeros(10, np.float32)
nodes = [helper.make_node("Gemm", ["x", "W1", "b1"], ["h"], transB=1),
         helper.make_node("Relu", ["h"], ["r"]),
         helper.make_node("Gemm", ["r", "W2", "b2"], ["y"], transB=1)]
g = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                     [1, 784])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
                      [numpy_helper.from_array(a, n)
                       for a, n in [(W1, "W1"), (b1, "b1"), (W2, "W2"), (b2, "b2")]])
start, trained = os.path.join(d, "start.onnx"), os.path.join(d, "trained.onnx")
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), start)
r = subprocess.run([npk, "train-model", start, "-t", "tinytpu", "--input",
                    os.path.join(d, "x.npy"), "--labels", os.path.join(d, "labels.npy"),
                    "--batch", str(B), "--steps", str(steps), "--lr", str(lr),
                    "--output-model", trained], capture_output=True, text=True)
for line in r.stdout.splitlines():
    if line.startswith(("step 1:", "loss", "  the step")):
        print(line)
if r.returncode:
    sys.exit(r.stderr)


def acc(w1, c1, w2, c2):
    h = np.maximum(Xt @ w1.T + c1, 0)
    return 100 * np.mean(np.argmax(h @ w2.T + c2, 1) == yt)


t = {i.name: numpy_helper.to_array(i).astype(np.float64)
     for i in onnx.load(trained).graph.initializer}
print("start: %.2f %%; tinytpu (Q8.8): %.2f %%" % (acc(W1, b1, W2, b2),
                                                   acc(t["W1"], t["b1"], t["W2"], t["b2"])))
Y = np.eye(10)[lab]
w1, c1, w2, c2 = [a.astype(np.float64) for a in (W1, b1, W2, b2)]
for s in range(steps):
    x, y = X[s * B:(s + 1) * B], Y[s * B:(s + 1) * B]
    z1 = x @ w1.T + c1
    h1 = np.maximum(z1, 0)
    d2 = (2.0 / B) * (h1 @ w2.T + c2 - y)
    d1 = (d2 @ w2) * (z1 > 0)
    w2 -= lr * d2.T @ h1
    c2 -= lr * d2.sum(0)
    w1 -= lr * d1.T @ x
    c1 -= lr * d1.sum(0)
print("float64 SGD, the same schedule: %.2f %%" % acc(w1, c1, w2, c2))
