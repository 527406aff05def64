#!/usr/bin/python3
"""Check the NumPy reference against PyTorch operator by operator, through ONNX export.

For each case a small PyTorch module (one operator or one exported pattern, with the attribute
variants the models do not exercise: Conv's strides, pads, dilations and groups, the pools'
ceil_mode and count_include_pad, Softmax's axis, LayerNormalization over two axes, the tanh
GELU, ...) is exported at opset 17 to a temporary directory, its sidecar written, and the
float64 reference run on a seeded input and compared with PyTorch's float32 output. With
--npukit, `npukit model-info` reads each exported file too, so the table also says what
PyTorch emits that the ONNX reader does not take. Prints one line per case; exits 1 when the
reference and PyTorch disagree beyond the tolerance on a case both can run.
Needs python3-torch, python3-onnx, python3-numpy; not part of `make test`.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import warnings

import common

REL_TOL = 1e-5


def cases(torch):
    nn = torch.nn
    F = nn.functional

    class Fn(nn.Module):
        def __init__(self, f, *params):
            super().__init__()
            self.f = f
            self.p = nn.ParameterList([nn.Parameter(p) for p in params])

        def forward(self, x):
            return self.f(x, *self.p)

    r = torch.randn
    return [
        ("Gemm (Linear)", nn.Linear(7, 5), [3, 7]),
        ("MatMul broadcast batch", Fn(lambda x, w: x @ w, r(5, 6)), [2, 3, 4, 5]),
        ("Conv stride 2 pad 1", nn.Conv2d(3, 4, 3, stride=2, padding=1), [2, 3, 9, 9]),
        ("Conv dilation 2 group 2 pads (1,2)",
         nn.Conv2d(4, 6, 3, dilation=2, groups=2, padding=(1, 2)), [1, 4, 10, 11]),
        ("Conv depthwise", nn.Conv2d(3, 3, 3, groups=3, bias=False), [1, 3, 6, 6]),
        ("Conv padding='same' (even kernel)", nn.Conv2d(2, 2, 4, padding="same"), [1, 2, 7, 7]),
        ("MaxPool 3 stride 2 pad 1 ceil", nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True),
         [1, 2, 10, 10]),
        ("MaxPool dilation 2", nn.MaxPool2d(2, stride=1, dilation=2), [1, 2, 6, 7]),
        ("AveragePool ceil, pads counted",
         nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=True),
         [1, 2, 10, 10]),
        ("AveragePool ceil, pads not counted",
         nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
         [1, 2, 10, 10]),
        ("AveragePool 2x2", nn.AvgPool2d(2), [1, 3, 8, 8]),
        ("Softmax axis 1", Fn(lambda x: torch.softmax(x, dim=1)), [2, 3, 4]),
        ("LayerNormalization over 2 axes", nn.LayerNorm([4, 5]), [2, 3, 4, 5]),
        ("Gelu erf pattern", nn.GELU(), [3, 7]),
        ("Gelu tanh pattern", nn.GELU(approximate="tanh"), [3, 7]),
        ("LeakyRelu 0.2", nn.LeakyReLU(0.2), [3, 7]),
        ("Sigmoid", nn.Sigmoid(), [3, 7]),
        ("Tanh", nn.Tanh(), [3, 7]),
        ("Sqrt", Fn(lambda x: torch.sqrt(x * x + 1)), [3, 7]),
        ("Transpose (permute)", Fn(lambda x: x.permute(0, 2, 3, 1) * 2), [1, 2, 3, 4]),
        ("RMSNorm pattern (Div by Sqrt)",
         Fn(lambda x, w: x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w, r(8)),
         [2, 8]),
        ("RMSNorm with rsqrt", Fn(lambda x, w: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True)
                                                               + 1e-6) * w, r(8)), [2, 8]),
        ("Flatten (nn.Flatten)", nn.Sequential(nn.Flatten(), nn.Linear(12, 2)), [2, 3, 4]),
        ("view(-1) with a dynamic batch", Fn(lambda x: x.view(x.shape[0], -1) + 1), [2, 3, 4]),
        ("Conv + BatchNorm (eval)", nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3)),
         [1, 2, 6, 6]),
    ]


def direct_cases(torch):
    """(name, reference op, inputs, attrs, PyTorch's result) for what the exporter cannot carry
    (torch.onnx writes a count_include_pad AvgPool2d as Pad + AveragePool) or ONNX operators
    PyTorch has no export for: compared without ONNX."""
    import numpy as np
    F = torch.nn.functional
    x = torch.randn(2, 3, 10, 9)
    out = []
    for k, s, p in ((3, 2, 1), (2, 2, 1), (3, 3, 0)):
        for inc in (1, 0):
            attrs = {"kernel_shape": [k, k], "strides": [s, s], "pads": [p] * 4,
                     "ceil_mode": 1, "count_include_pad": inc}
            out.append(("AveragePool k%d s%d p%d ceil include_pad=%d" % (k, s, p, inc),
                        "AveragePool", [x.numpy()], attrs,
                        F.avg_pool2d(x, k, s, p, ceil_mode=True,
                                     count_include_pad=bool(inc)).numpy()))
    # scales that are powers of two: x / scale is exact in float32 and float64, so the ties
    # (x * 4 = n + 0.5) are decided by the rounding rule alone
    q = torch.round(torch.randn(4, 3, 5) * 40) / 8
    out.append(("QuantizeLinear uint8 (ties to even)", "QuantizeLinear",
                [q.numpy(), np.float32(0.25), np.uint8(100)], {},
                torch.quantize_per_tensor(q, 0.25, 100, torch.quint8).int_repr().numpy()))
    sc = torch.tensor([0.125, 0.5, 1.0], dtype=torch.float64)
    zp = torch.tensor([0, -3, 5])
    out.append(("QuantizeLinear int8 per axis 1", "QuantizeLinear",
                [q.numpy(), sc.numpy().astype(np.float32), zp.numpy().astype(np.int8)],
                {"axis": 1},
                torch.quantize_per_channel(q, sc, zp, 1, torch.qint8).int_repr().numpy()))
    qt = torch.quantize_per_channel(q, sc, zp, 1, torch.qint8)
    out.append(("DequantizeLinear int8 per axis 1", "DequantizeLinear",
                [qt.int_repr().numpy(), sc.numpy().astype(np.float32),
                 zp.numpy().astype(np.int8)], {"axis": 1}, qt.dequantize().numpy()))
    out += quantised_cases(torch)
    return out


def quantised_cases(torch):
    """QLinearConv and QLinearMatMul against PyTorch's quantised conv2d and linear (uint8
    activations, int8 weights per output channel, int32 bias), integers compared."""
    import numpy as np
    from torch.ao.nn.quantized import functional as qF
    engines = torch.backends.quantized.supported_engines
    torch.backends.quantized.engine = "fbgemm" if "fbgemm" in engines else "onednn"
    xs, xz, ys, yz = 4 / 255, 3, 0.05, 120
    ws = torch.tensor([0.01, 0.02, 0.015, 0.03], dtype=torch.float64)
    qx = torch.quantize_per_tensor(torch.rand(2, 3, 8, 8) * 4, xs, xz, torch.quint8)
    qw = torch.quantize_per_channel(torch.randn(4, 3, 3, 3), ws, torch.zeros(4, dtype=torch.long),
                                    0, torch.qint8)
    bq = torch.round(torch.randn(4) / (xs * ws)).to(torch.int32)
    fb = (bq.double() * xs * ws).float()  # PyTorch takes a float bias and quantises it again
    scales = [np.float32(xs), np.uint8(xz)]
    y = qF.conv2d(qx, qw, fb, stride=2, padding=1, scale=ys, zero_point=yz)
    conv = ("QLinearConv per channel, stride 2 pad 1", "QLinearConv",
            [qx.int_repr().numpy()] + scales +
            [qw.int_repr().numpy(), ws.numpy().astype(np.float32), np.zeros(4, np.int8),
             np.float32(ys), np.uint8(yz), bq.numpy()],
            {"strides": [2, 2], "pads": [1, 1, 1, 1]}, y.int_repr().numpy())
    qa = torch.quantize_per_tensor(torch.rand(5, 27) * 4, xs, xz, torch.quint8)
    qlw = torch.quantize_per_channel(torch.randn(4, 27), ws, torch.zeros(4, dtype=torch.long), 0,
                                     torch.qint8)
    y = qF.linear(qa, qlw, None, scale=ys, zero_point=yz)
    mm = ("QLinearMatMul per column", "QLinearMatMul",
          [qa.int_repr().numpy()] + scales +
          [qlw.int_repr().numpy().T, ws.numpy().astype(np.float32), np.zeros(4, np.int8),
           np.float32(ys), np.uint8(yz)], {}, y.int_repr().numpy())
    return [conv, mm]


def main():
    ap = argparse.ArgumentParser(description="Compare the NumPy reference with PyTorch on small "
                                             "exported models, one operator or pattern each.")
    ap.add_argument("--npukit", help="an npukit binary: also run `npukit model-info` on each")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    args = ap.parse_args()
    torch = common.setup_torch(args.seed)
    warnings.filterwarnings("ignore")  # the exporter's advice on every case
    import numpy as np
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, module, shape) in enumerate(cases(torch)):
            module.eval()
            if isinstance(module, torch.nn.Sequential) and isinstance(module[-1],
                                                                      torch.nn.BatchNorm2d):
                with torch.no_grad():  # statistics that are not the identity
                    module[-1].running_mean.uniform_(-1, 1)
                    module[-1].running_var.uniform_(0.5, 2)
            x = torch.randn(*shape)
            with torch.no_grad():
                want = module(x).numpy()
            path = os.path.join(tmp, "case%d.onnx" % i)
            try:
                common.export(torch, module, x, path, dynamic=name.endswith("dynamic batch"))
            except Exception as e:  # the exporter's own refusals (torch.onnx.errors and others)
                print("%-40s torch.onnx cannot export it: %s" % (name, str(e).split(". ")[0]))
                continue
            common.write_sidecar(path, path[:-5] + ".npz")
            g = common.onnx_ref.load_sidecar(path[:-5] + ".npz")
            ops = " ".join(n["op"] for n in g["nodes"] if n["op"] != "Constant")
            try:
                got = common.onnx_ref.run(g, x.numpy())
                rel = np.abs(got - want).max() / max(np.abs(want).max(), 1e-30)
                ref = "max diff %.1e of max |y|" % rel
                if rel > REL_TOL:
                    ref += " FAIL"
                    bad += 1
            except common.onnx_ref.RefError as e:
                ref = "reference: %s" % e
            line = "%-40s %-28s %s" % (name, ref, ops)
            if args.npukit:
                p = subprocess.run([args.npukit, "model-info", path], capture_output=True,
                                   text=True)
                msg = p.stderr.strip().replace(path, "FILE")
                line += "\n    model-info: %s" % ("ok" if p.returncode == 0 else msg)
            print(line)
    for name, op, ins, attrs, want in direct_cases(torch):
        got = common.onnx_ref.run_op(op, ins, attrs)[0]
        rel = np.abs(got.astype(np.float64) - want).max() / max(np.abs(want).max(), 1e-30)
        print("%-40s max diff %.1e of max |y|%s  (%s without ONNX)"
              % (name, rel, " FAIL" if rel > REL_TOL else "", op))
        bad += rel > REL_TOL
    print("%d cases disagree beyond %g" % (bad, REL_TOL))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
