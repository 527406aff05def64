#!/usr/bin/python3
"""Quantise the float Fashion-MNIST models to int8 ONNX models, in the two forms ONNX has.

  mlp.onnx   -> mlp_qdq.onnx       QDQ form: QuantizeLinear/DequantizeLinear pairs on the
                                   activations, int8 weight initializers behind
                                   DequantizeLinear, int32 biases behind DequantizeLinear
  lenet.onnx -> lenet_qlinear.onnx QOperator form: QuantizeLinear at the input, QLinearConv
                                   layers on int8 tensors (Relu and MaxPool on int8 between),
                                   DequantizeLinear at the output

Both symmetric with zero point 0: activations per tensor, scale = max|x| / 127 over the first
1,000 Fashion-MNIST training images (pixels / 255), measured by the float64 NumPy reference
(tests/model/ref/onnx_ref.py) on the float model; weights per output channel, scale =
max|w[o]| / 127 (1 for a zero row), codes rint(w / scale) in -127..127; biases int32,
rint(b / (x_scale * w_scale[o])), the accumulator's units (for the QDQ form the bias's
DequantizeLinear scale is float32(x_scale * w_scale[o])). Scales are float32, as ONNX stores
them.

The standard ONNX domain has no QLinearMatMul with a bias, so LeNet's dense layers are written
as 1x1 QLinearConv layers on a [N, C, 1, 1] tensor (a Reshape before the first). Writes the
models, their sidecars (NAME.npz, for the NumPy reference) and prints the reference's accuracy
on the 10,000 test images. Needs python3-onnx and python3-numpy only (no torch, no
onnxruntime); deterministic (no randomness at all). Run with /usr/bin/python3:

  /usr/bin/python3 models/onnx/quantize.py [--data-dir DIR] [--out-dir DIR] [--calib N]
"""

import argparse
import os
import time

import numpy as np

import common

onnx_ref = common.onnx_ref


def calibrate(npz, names, x):
    """max |value| of each named tensor over the images x (float64, shaped for the model)."""
    g = onnx_ref.load_sidecar(npz)
    out = onnx_ref.run(g, {g["inputs"][0]["name"]: x}, outputs=names)
    return {k: float(np.abs(v).max()) for k, v in out.items()}


def act_scale(max_abs):
    return np.float32(max_abs / 127.0 if max_abs > 0 else 1.0 / 127.0)


def weight_codes(w):
    """Per output channel (axis 0): float32 scales and int8 codes."""
    flat = w.reshape(w.shape[0], -1).astype(np.float64)
    mx = np.abs(flat).max(axis=1)
    s = np.where(mx > 0, mx / 127.0, 1.0).astype(np.float32)
    q = np.clip(np.rint(flat / s.astype(np.float64)[:, None]), -127, 127).astype(np.int8)
    return s, q.reshape(w.shape)


def bias_codes(b, x_scale, w_scale):
    acc = np.float64(x_scale) * w_scale.astype(np.float64)
    q = np.rint(b.astype(np.float64) / acc)
    if np.abs(q).max() >= 2 ** 31:
        common.fail("a bias does not fit int32 in the accumulator's units")
    return q.astype(np.int32)


class Graph:
    """Nodes and initializers of the model being written."""

    def __init__(self):
        from onnx import helper, numpy_helper
        self.helper, self.nh = helper, numpy_helper
        self.nodes, self.inits = [], []

    def const(self, name, arr):
        self.inits.append(self.nh.from_array(np.asarray(arr), name))
        return name

    def node(self, op, ins, out, name, **attrs):
        self.nodes.append(self.helper.make_node(op, ins, [out], name=name, **attrs))
        return out

    def qparams(self, name, scale):
        """A float32 scale and an int8 zero point 0 (per tensor)."""
        return [self.const(name + "_scale", np.float32(scale)),
                self.const(name + "_zp", np.int8(0))]

    def model(self, name, in_shape, out_shape):
        import onnx
        h = self.helper
        g = h.make_graph(self.nodes, name,
                         [h.make_tensor_value_info("input", onnx.TensorProto.FLOAT, in_shape)],
                         [h.make_tensor_value_info("output", onnx.TensorProto.FLOAT, out_shape)],
                         self.inits)
        m = h.make_model(g, producer_name="npukit models/onnx/quantize.py",
                         opset_imports=[h.make_opsetid("", common.OPSET)])
        m.ir_version = 8
        onnx.checker.check_model(m)
        return m


def inits_of(path):
    import onnx
    from onnx import numpy_helper
    m = onnx.load(path)
    return {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}


def mlp_qdq(src, npz, xcal):
    """784 -> Gemm 128 -> Relu -> Gemm 10, every Gemm on dequantised int8 tensors."""
    w = inits_of(src)
    mx = calibrate(npz, ["input", "/1/Relu_output_0"], xcal)
    s_in, s_h = act_scale(mx["input"]), act_scale(mx["/1/Relu_output_0"])
    g = Graph()
    cur = g.node("QuantizeLinear", ["input"] + g.qparams("input", s_in), "input_q", "input_q")
    cur = g.node("DequantizeLinear", [cur, "input_scale", "input_zp"], "input_dq", "input_dq")
    for i, (wn, bn, s_x, act) in enumerate((("0.weight", "0.bias", s_in, True),
                                            ("2.weight", "2.bias", s_h, False))):
        ws, wq = weight_codes(w[wn])
        bq = bias_codes(w[bn], s_x, ws)
        p = "fc%d" % i
        wdq = g.node("DequantizeLinear",
                     [g.const(p + "_wq", wq), g.const(p + "_wscale", ws),
                      g.const(p + "_wzp", np.zeros(ws.shape, np.int8))],
                     p + "_w", p + "_w_dq", axis=0)
        bs = (np.float64(s_x) * ws.astype(np.float64)).astype(np.float32)
        bdq = g.node("DequantizeLinear", [g.const(p + "_bq", bq), g.const(p + "_bscale", bs)],
                     p + "_b", p + "_b_dq", axis=0)
        out = p + "_y" if act else "output"
        cur = g.node("Gemm", [cur, wdq, bdq], out, p, transB=1)
        if act:
            cur = g.node("Relu", [cur], p + "_relu", p + "_relu")
            cur = g.node("QuantizeLinear", [cur] + g.qparams(p + "_relu", s_h), p + "_q", p + "_q")
            cur = g.node("DequantizeLinear", [cur, p + "_relu_scale", p + "_relu_zp"],
                         p + "_dq", p + "_dq")
    return g.model("mlp_qdq", ["N", 784], ["N", 10])


def lenet_qlinear(src, npz, xcal):
    """QLinearConv 5x5 pad 2, Relu, MaxPool; QLinearConv 5x5, Relu, MaxPool; Reshape to
    [N, 400, 1, 1]; three 1x1 QLinearConv (400 -> 120 -> 84 -> 10) with Relu between;
    DequantizeLinear and Reshape to [N, 10]."""
    w = inits_of(src)
    tensors = ["input", "/1/Relu_output_0", "/4/Relu_output_0", "/8/Relu_output_0",
               "/10/Relu_output_0", "output"]
    mx = calibrate(npz, tensors, xcal)
    scales = [act_scale(mx[t]) for t in tensors]
    g = Graph()
    cur = g.node("QuantizeLinear", ["input"] + g.qparams("t0", scales[0]), "t0_q", "input_q")
    layers = [("0", dict(pads=[2, 2, 2, 2]), True), ("3", {}, True), ("7", {}, False),
              ("9", {}, False), ("11", {}, False)]
    for i, (key, attrs, pool) in enumerate(layers):
        wt, b = w[key + ".weight"], w[key + ".bias"]
        if wt.ndim == 2:
            wt = wt.reshape(wt.shape[0], wt.shape[1], 1, 1)
        if i == 2:
            cur = g.node("Reshape", [cur, g.const("flat_shape", np.array([-1, 400, 1, 1],
                                                                         np.int64))],
                         "flat", "flatten")
        ws, wq = weight_codes(wt)
        p = "l%d" % (i + 1)
        ins = [cur, "t%d_scale" % i, "t%d_zp" % i, g.const(p + "_wq", wq),
               g.const(p + "_wscale", ws), g.const(p + "_wzp", np.zeros(ws.shape, np.int8))]
        ins += g.qparams("t%d" % (i + 1), scales[i + 1])
        ins.append(g.const(p + "_bq", bias_codes(b, scales[i], ws)))
        cur = g.node("QLinearConv", ins, p + "_y", p + "_conv",
                     kernel_shape=list(wt.shape[2:]), **attrs)
        if i < len(layers) - 1:
            cur = g.node("Relu", [cur], p + "_relu", p + "_relu")
        if pool:
            cur = g.node("MaxPool", [cur], p + "_pool", p + "_pool", kernel_shape=[2, 2],
                         strides=[2, 2])
    cur = g.node("DequantizeLinear", [cur, "t5_scale", "t5_zp"], "logits4", "output_dq")
    g.node("Reshape", [cur, g.const("out_shape", np.array([-1, 10], np.int64))], "output",
           "output_flat")
    return g.model("lenet_qlinear", ["N", 1, 28, 28], ["N", 10])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", default=onnx_ref.DATA_DIR)
    ap.add_argument("--out-dir", default=common.HERE)
    ap.add_argument("--calib", type=int, default=1000,
                    help="training images to calibrate on (default: %(default)s)")
    args = ap.parse_args()
    try:
        import onnx
    except ImportError:
        common.fail("the onnx module is missing (Debian package python3-onnx; run with "
                    "/usr/bin/python3)")
    t0 = time.time()
    try:
        xtr, _ = onnx_ref.load_fashion(args.data_dir, "train")
    except onnx_ref.RefError as e:
        common.fail(str(e))
    xcal = xtr[:args.calib].astype(np.float64) / 255.0
    paths = []
    for src, dst, make, shape in (("mlp", "mlp_qdq", mlp_qdq, [784]),
                                  ("lenet", "lenet_qlinear", lenet_qlinear, [1, 28, 28])):
        base = os.path.join(common.HERE, src)
        m = make(base + ".onnx", base + ".npz", xcal.reshape([-1] + shape))
        out = os.path.join(args.out_dir, dst)
        onnx.save(m, out + ".onnx")
        common.write_sidecar(out + ".onnx", out + ".npz")
        g = onnx_ref.load_sidecar(out + ".npz")
        t = time.time()
        correct, n = onnx_ref.accuracy(g, args.data_dir)
        fc, _ = onnx_ref.accuracy(onnx_ref.load_sidecar(base + ".npz"), args.data_dir)
        print("%s: float64 reference test accuracy %.2f %% (%d/%d; the float model %.2f %%) "
              "in %.1f s" % (dst, correct * 100.0 / n, correct, n, fc * 100.0 / n,
                             time.time() - t))
        paths += [out + ".onnx", out + ".npz"]
    common.report_files(paths, t0)


if __name__ == "__main__":
    main()
