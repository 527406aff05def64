"""The export step the scripts in this directory share: run `net` on `x` in PyTorch, export it
to NAME.onnx beside them (opset 17, input "x" and output "y" with a symbolic batch dimension N,
traced on x[:1]), save x as NAME_x.npy and PyTorch's outputs as NAME_torch.npy, and check that
the export holds the operators the test is about (each of `ops`, and `counts` {op: n} exactly
n times). Returns the path of the model."""
import os

import numpy as np
import torch


def export(net, x, name, ops, counts=None):
    here = os.path.dirname(os.path.abspath(__file__))
    with torch.no_grad():
        y = net(x).numpy()
    path = os.path.join(here, name + ".onnx")
    torch.onnx.export(net, x[:1], path, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "N"}, "y": {0: "N"}}, opset_version=17)
    np.save(os.path.join(here, name + "_x.npy"), x.numpy())
    np.save(os.path.join(here, name + "_torch.npy"), y)
    import onnx
    got = [n.op_type for n in onnx.load(path).graph.node]
    for op in ops:
        if op not in got:
            raise SystemExit("%s.py: the export has no %s (%s)" % (name, op, got))
    for op, n in (counts or {}).items():
        if got.count(op) != n:
            raise SystemExit("%s.py: the export has %d %s, not %d (%s)"
                             % (name, got.count(op), op, n, got))
    print("wrote %s: %s" % (path, " ".join(got)))
    return path
