#!/usr/bin/python3
"""Write the Fashion-MNIST MLP (models/onnx/mlp.onnx, 784-128-10) cut to its first H hidden
units (784-H-10: rows 0..H-1 of the first Gemm, columns 0..H-1 of the second) as an ONNX file.
The whole MLP does not fit one tinytpu training program (its first weight matrix alone is
100,352 UB words, the UB at most 65,536); this sub-network does for H <= 16 and is what
docs/models.md ("Training on tinytpu") measures `npukit train-model` on:

    tests/model/mlp_subnet.py models/onnx/mlp.onnx 16 /tmp/mlp16.onnx
    npukit train-model /tmp/mlp16.onnx -t tinytpu --input models/onnx/mlp_samples.npy \
        --labels models/onnx/mlp_labels.npy --batch 8 --steps 5 --lr 0.0625

usage: mlp_subnet.py MLP.onnx H OUT.onnx  (needs python3-onnx)
"""
import sys

import onnx
from onnx import numpy_helper

src, h, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
m = onnx.load(src)
t = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
cut = {"0.weight": t["0.weight"][:h], "0.bias": t["0.bias"][:h],
       "2.weight": t["2.weight"][:, :h], "2.bias": t["2.bias"]}
del m.graph.initializer[:]
m.graph.initializer.extend(numpy_helper.from_array(v.copy(), k) for k, v in cut.items())
onnx.save(m, out)
