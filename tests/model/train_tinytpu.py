#!/usr/bin/python3
"""ctest model_train_tinytpu: `npukit train-model` on two small ONNX MLPs written here with
python3-onnx's helper, on lanes=2 and lanes=4 (widths above the array: the tiled schedule).

Checked: the trained weights and biases that --output-model writes back into the model equal,
bit for bit, this file's own Q8.8 model of the update (spec docs/spec/tinytpu.md A3 and Part E
rule 9, written here in Python integers, independent of the C code); every step's printed loss
equals the model's; the loss after the last step is below the first step's.

The model of one step (docs/tinytpu-compiler.md, "Training with tiling"): products rounded half
up and saturated, sums of at most N products from 0 (row 0's first), longer sums folded tile by
tile as s = -(p0 + b), s = -(p - s), last p - s; leaky ReLU mul(z, alpha) below 0; loss stage
mul(h - y, 2/B), output derivative by the sign of H; b_L, then each hidden b row by row
b = b - mul(g, lr); hidden derivative by the sign of H (of Z for ReLU, alpha 0); weights once per
batch tile of N rows W = W - mul(sum_r dz h, lr).

usage: train_tinytpu.py NPUKIT [SOURCE_DIR]   (with SOURCE_DIR: also models/onnx/mlp.onnx)
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

try:
    import onnx
    from onnx import helper, numpy_helper, TensorProto
except ImportError:
    print("SKIP: the onnx Python module (Debian python3-onnx) is not installed")
    sys.exit(77)


def sat(v):
    return max(-32768, min(32767, v))


def q(v):
    return sat(int(round(float(v) * 256)))  # ties to even, as A3 says for host conversions


def qa(a):
    return np.clip(np.round(np.asarray(a, np.float64) * 256), -32768, 32767).astype(np.int64)


def vmul(a, b):
    return np.clip((np.asarray(a, np.int64) * b + 128) >> 8, -32768, 32767)  # >>: floor


def vadd(a, b):
    return np.clip(np.asarray(a, np.int64) + b, -32768, 32767)


def vsub(a, b):
    return np.clip(np.asarray(a, np.int64) - b, -32768, 32767)


def tsum(N, A, M, bias=None):
    """A (R x K) times M (K x F): each sum over a tile of N products from 0 (row 0's product
    first), the first plus the bias, the tiles folded as s = -(p0), s = -(p - s), last p - s"""
    R, K = A.shape
    starts = list(range(0, K, N))
    s = np.zeros((R, M.shape[1]), np.int64)
    for i, k0 in enumerate(starts):
        p = np.zeros_like(s)
        for k in range(k0, min(K, k0 + N)):
            p = vadd(vmul(A[:, k:k + 1], M[k:k + 1, :]), p)
        if i == 0 and bias is not None:
            p = vadd(p, bias[None, :])
        if len(starts) == 1:
            return p
        if i + 1 == len(starts):
            return vsub(p, s)
        s = vmul(vsub(p, s), -256)
    return s


def host_train(N, W, b, alphas, X, Y, B, lr, steps):
    """W[l] (out x in), b[l] int64 arrays of Q8.8 values (replaced by the trained ones); X, Y
    arrays of rows; returns the losses of the steps"""
    L = len(W)
    inv = q(2.0 / B)
    losses = []
    for s in range(steps):
        rows = [(s * B + r) % len(X) for r in range(B)]
        h, z = [X[rows]], []
        for l in range(L):
            zl = tsum(N, h[l], W[l].T, b[l])
            z.append(zl)
            h.append(np.where(zl >= 0, zl, vmul(zl, alphas[l])))
        y = Y[rows]
        losses.append(float(np.mean(((h[L] - y) / 256.0) ** 2)))
        g = vmul(vsub(h[L], y), inv)
        dz = [None] * L
        dz[L - 1] = np.where(h[L] >= 0, g, vmul(g, alphas[L - 1]))
        for r in range(B):
            b[L - 1] = vsub(b[L - 1], vmul(dz[L - 1][r], lr))
        for l in range(L - 1, 0, -1):
            a = alphas[l - 1]
            g = tsum(N, dz[l], W[l])
            sg = z[l - 1] if a == 0 else h[l]
            dz[l - 1] = np.where(sg >= 0, g, vmul(g, a))
            for r in range(B):
                b[l - 1] = vsub(b[l - 1], vmul(dz[l - 1][r], lr))
        for l in range(L):
            for t0 in range(0, B, N):
                g = np.zeros_like(W[l])
                for r in range(t0, min(B, t0 + N)):
                    g = vadd(vmul(dz[l][r][:, None], h[l][r][None, :]), g)
                W[l] = vsub(W[l], vmul(g, lr))
    return losses


def grid(rng, shape, lim):
    """values in multiples of 1/128 (exact in Q8.8, also after Gemm's alpha 0.5)"""
    return (rng.integers(-lim, lim + 1, shape) / 128).astype(np.float32)


def model_a(rng, d):
    """Gemm transB=1 + Relu, MatMul + Add (no activation): returns file, plan W, b, alphas"""
    W1, b1 = grid(rng, (5, 3), 96), grid(rng, 5, 32)
    W2, b2 = grid(rng, (5, 2), 96), grid(rng, 2, 32)  # MatMul B: [in][out]
    nodes = [helper.make_node("Gemm", ["x", "W1", "b1"], ["h"], name="fc1", transB=1),
             helper.make_node("Relu", ["h"], ["r"], name="relu1"),
             helper.make_node("MatMul", ["r", "W2"], ["m"], name="fc2"),
             helper.make_node("Add", ["m", "b2"], ["y"], name="bias2")]
    inits = [(W1, "W1"), (b1, "b1"), (W2, "W2"), (b2, "b2")]
    path = save(d, "a.onnx", nodes, inits, 3, 2)
    return path, [W1, W2.T], [b1, b2], [0, 256]


def model_b(rng, d):
    """Gemm transB=0 alpha 0.5 beta 2 + LeakyRelu 0.25, Gemm transB=1 (no activation)"""
    B1, C1 = grid(rng, (4, 3), 96), grid(rng, 3, 16)  # [in][out]
    W2, b2 = grid(rng, (3, 3), 96), grid(rng, 3, 32)
    nodes = [helper.make_node("Gemm", ["x", "B1", "C1"], ["h"], name="fc1", alpha=0.5, beta=2.0),
             helper.make_node("LeakyRelu", ["h"], ["r"], name="leaky", alpha=0.25),
             helper.make_node("Gemm", ["r", "W2", "b2"], ["y"], name="fc2", transB=1)]
    inits = [(B1, "B1"), (C1, "C1"), (W2, "W2"), (b2, "b2")]
    path = save(d, "b.onnx", nodes, inits, 4, 3)
    return path, [0.5 * B1.T, W2], [2 * C1, b2], [64, 256]


def model_c(rng, d):
    """20-6-3, Gemm + Relu, Gemm: a wide first layer, for the step split over programs"""
    W1, b1 = grid(rng, (6, 20), 48), grid(rng, 6, 32)
    W2, b2 = grid(rng, (3, 6), 96), grid(rng, 3, 32)
    nodes = [helper.make_node("Gemm", ["x", "W1", "b1"], ["h"], name="fc1", transB=1),
             helper.make_node("Relu", ["h"], ["r"], name="relu1"),
             helper.make_node("Gemm", ["r", "W2", "b2"], ["y"], name="fc2", transB=1)]
    inits = [(W1, "W1"), (b1, "b1"), (W2, "W2"), (b2, "b2")]
    path = save(d, "c.onnx", nodes, inits, 20, 3)
    return path, [W1, W2], [b1, b2], [0, 256]


def save(d, name, nodes, inits, nin, nout):
    g = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                         [1, nin])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, nout])],
                          [numpy_helper.from_array(a, n) for a, n in inits])
    path = os.path.join(d, name)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def written(path, which):
    """the trained parameters in the plan's layout ([out][in]) from the written model"""
    t = {i.name: numpy_helper.to_array(i).astype(np.float64)
         for i in onnx.load(path).graph.initializer}
    if which == "a":
        return [t["W1"], t["W2"].T], [t["b1"], t["b2"]]
    if which == "c":
        return [t["W1"], t["W2"]], [t["b1"], t["b2"]]
    return [0.5 * t["B1"].T, t["W2"]], [2 * t["C1"], t["b2"]]


failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what)


def main():
    npk = sys.argv[1]
    rng = np.random.default_rng(19)
    with tempfile.TemporaryDirectory() as d:
        # (model c: the UB sizes make the step too large for one program: split over 3 and 5)
        for which, make, B, steps, lr in (("a", model_a, 3, 4, 0.25), ("b", model_b, 5, 4, 0.125),
                                          ("c", model_c, 5, 3, 0.0625)):
            path, W, b, alphas = make(rng, d)
            nin, nout = W[0].shape[1], W[-1].shape[0]
            X = grid(rng, (6, nin), 256)
            xs = os.path.join(d, which + "_x.npy")
            np.save(xs, X)
            if which != "b":
                Yf = grid(rng, (6, nout), 128)
                tfile = os.path.join(d, which + "_y.npy")
                np.save(tfile, Yf)
                targs = ["--expected", tfile]
            else:
                lab = np.array([0, 2, 1, 1, 0, 2], dtype=np.int64)
                tfile = os.path.join(d, "b_lab.npy")
                np.save(tfile, lab)
                targs = ["--labels", tfile]
                Yf = np.eye(nout, dtype=np.float32)[lab]
            for N in (2, 4):
                out = os.path.join(d, "%s_trained_%d.onnx" % (which, N))
                tgt = "tinytpu:lanes=%d" % N
                if which == "c":
                    tgt += ",ub_words=%d" % (800 if N == 2 else 450)
                cmd = [npk, "train-model", path, "-t", tgt, "--input", xs,
                       "--batch", str(B), "--steps", str(steps), "--lr", str(lr),
                       "--output-model", out] + targs
                r = subprocess.run(cmd, capture_output=True, text=True)
                print(r.stdout, end="")
                what = "model %s on lanes=%d" % (which, N)
                check(r.returncode == 0, "%s: exit %d: %s" % (what, r.returncode, r.stderr))
                if r.returncode:
                    continue
                Wq, bq = [qa(w) for w in W], [qa(bb) for bb in b]
                losses = host_train(N, Wq, bq, alphas, qa(X), qa(Yf), B, q(lr), steps)
                got = [float(v) for v in re.findall(r"loss ([0-9.]+),", r.stdout)]
                check(len(got) == steps and all(abs(g - h) < 5e-7 for g, h in zip(got, losses)),
                      "%s: losses %s, host model %s" % (what, got, losses))
                m = re.search(r"loss: ([0-9.]+) before the first step, ([0-9.]+) after", r.stdout)
                check(m and float(m.group(2)) < float(m.group(1)),
                      "%s: the loss did not fall" % what)
                if which == "c":
                    check("does not fit one program: %d programs" % (3 if N == 2 else 5)
                          in r.stdout, "%s: not split as expected" % what)
                tw, tb = written(out, which)
                bad = 0
                for l in range(len(W)):
                    bad += int(np.sum(np.round(tw[l] * 256).astype(int) != np.array(Wq[l])))
                    bad += int(np.sum(np.round(tb[l] * 256).astype(int) != np.array(bq[l])))
                    bad += int(np.sum(tw[l] * 256 != np.round(tw[l] * 256)))
                check(bad == 0, "%s: %d trained parameters differ from the host model" %
                      (what, bad))
                print("%s: %d steps, losses %s, parameters = host model: %s" %
                      (what, steps, " ".join("%.6f" % v for v in losses), bad == 0))
        # the Fashion-MNIST MLP (when the tree has it): 784-128-10, its step split over 9
        # programs on lanes=16; 2 steps on the 8 committed samples
        mdir = os.path.join(sys.argv[2], "models", "onnx") if len(sys.argv) > 2 else ""
        if mdir and os.path.exists(os.path.join(mdir, "mlp.onnx")):
            out = os.path.join(d, "mlp_trained.onnx")
            r = subprocess.run([npk, "train-model", os.path.join(mdir, "mlp.onnx"), "-t",
                                "tinytpu", "--input", os.path.join(mdir, "mlp_samples.npy"),
                                "--labels", os.path.join(mdir, "mlp_labels.npy"), "--batch", "8",
                                "--steps", "2", "--lr", "0.00390625", "--output-model", out],
                               capture_output=True, text=True)
            print(r.stdout, end="")
            check(r.returncode == 0 and "9 programs per step" in r.stdout,
                  "mlp.onnx: exit %d, %s" % (r.returncode, r.stderr))
            if r.returncode == 0:
                t = {i.name: numpy_helper.to_array(i).astype(np.float64)
                     for i in onnx.load(os.path.join(mdir, "mlp.onnx")).graph.initializer}
                Wq, bq = [qa(t["0.weight"]), qa(t["2.weight"])], [qa(t["0.bias"]), qa(t["2.bias"])]
                X = qa(np.load(os.path.join(mdir, "mlp_samples.npy")).reshape(-1, 784))
                Y = qa(np.eye(10)[np.load(os.path.join(mdir, "mlp_labels.npy")).astype(int)])
                losses = host_train(16, Wq, bq, [0, 256], X, Y, 8, q(1 / 256), 2)
                got = [float(v) for v in re.findall(r"loss ([0-9.]+),", r.stdout)]
                check(len(got) == 2 and all(abs(g - h) < 5e-6 * max(1, h)
                                            for g, h in zip(got, losses)),
                      "mlp.onnx: losses %s, host model %s" % (got, losses))
                m = re.search(r"loss: ([0-9.]+) before the first step, ([0-9.]+) after", r.stdout)
                check(m and float(m.group(2)) < float(m.group(1)), "mlp.onnx: the loss did not fall")
                check("warning" not in r.stderr, "mlp.onnx, lr 1/256: a warning: %s" % r.stderr)
                # the default lr (1/16) on this trained classifier: MSE on logits of magnitude
                # ~30 overshoots, the loss of the (same) batch rises and the command says so
                r2 = subprocess.run([npk, "train-model", os.path.join(mdir, "mlp.onnx"), "-t",
                                     "tinytpu", "--input", os.path.join(mdir, "mlp_samples.npy"),
                                     "--labels", os.path.join(mdir, "mlp_labels.npy"),
                                     "--steps", "2"], capture_output=True, text=True)
                m2 = re.search(r"loss: ([0-9.]+) before the first step, ([0-9.]+) after",
                               r2.stdout)
                check(r2.returncode == 0 and m2 and float(m2.group(2)) > float(m2.group(1)) and
                      ("warning: the loss rose (%s -> %s)" % (m2.group(1), m2.group(2)))
                      in r2.stderr and "--lr 0.0078125" in r2.stderr,
                      "mlp.onnx, default lr: exit %d, %s / %s" % (r2.returncode, r2.stdout,
                                                                  r2.stderr))
                w = {i.name: numpy_helper.to_array(i).astype(np.float64)
                     for i in onnx.load(out).graph.initializer}
                bad = sum(int(np.sum(qa(w[k]) != v)) for k, v in
                          (("0.weight", Wq[0]), ("2.weight", Wq[1]), ("0.bias", bq[0]),
                           ("2.bias", bq[1])))
                check(bad == 0, "mlp.onnx: %d trained parameters differ from the host model" % bad)
                print("mlp.onnx on lanes=16, split: 2 steps, losses %s, parameters = host model: %s"
                      % (" ".join("%.6f" % v for v in losses), bad == 0))
        else:
            print("(models/onnx/mlp.onnx not in the tree: the Fashion-MNIST case is skipped)")
        # refusals: another target (usage, 2); ReLU on the output layer (1, naming the node)
        path, _, _, _ = model_a(rng, d)
        xs = os.path.join(d, "a_x.npy")
        r = subprocess.run([npk, "train-model", path, "-t", "opennpu", "--input", xs,
                            "--expected", xs], capture_output=True, text=True)
        check(r.returncode == 2 and "training runs on tinytpu only" in r.stderr,
              "-t opennpu: exit %d: %s" % (r.returncode, r.stderr))
        nodes = [helper.make_node("Gemm", ["x", "W", "b"], ["h"], name="out", transB=1),
                 helper.make_node("Relu", ["h"], ["y"], name="relu_out")]
        relu = save(d, "relu_out.onnx", nodes, [(grid(rng, (2, 3), 64), "W"),
                                                (grid(rng, 2, 16), "b")], 3, 2)
        np.save(os.path.join(d, "r_y.npy"), grid(rng, (6, 2), 128))
        r = subprocess.run([npk, "train-model", relu, "-t", "tinytpu", "--input", xs,
                            "--expected", os.path.join(d, "r_y.npy")], capture_output=True,
                           text=True)
        check(r.returncode == 1 and "(node 0 'out', Gemm)" in r.stderr and
              "the output layer's relu" in r.stderr,
              "output ReLU: exit %d: %s" % (r.returncode, r.stderr))
    print("FAILED %d" % failures if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
