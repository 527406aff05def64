"""Shared parts of the ONNX export scripts (mlp.py, lenet.py, transformer_block.py).

Training (deterministic: fixed seeds, one CPU thread), export with torch.onnx (opset 17), the
sidecar NAME.npz that the NumPy reference (tests/model/ref/onnx_ref.py) reads without the onnx
module, the check of the reference against PyTorch, and the committed sample files. Needs
Debian's python3-torch, python3-onnx and python3-numpy (run with /usr/bin/python3); nothing
at `make test` time imports this file.
"""

import argparse
import hashlib
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "model", "ref"))
import onnx_ref  # noqa: E402  (the reference: IDX reader, sidecar runner)

OPSET = 17
SIDECAR_FORMAT = onnx_ref.SIDECAR_FORMAT


def fail(msg):
    print("%s: error: %s" % (os.path.basename(sys.argv[0]), msg), file=sys.stderr)
    sys.exit(1)


def arg_parser(description, epochs):
    """The options every export script takes."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--data-dir", default=onnx_ref.DATA_DIR,
                    help="directory with the gzip'd IDX files (default: %(default)s, "
                         "Debian package dataset-fashion-mnist)")
    ap.add_argument("--out-dir", default=HERE,
                    help="where the .onnx, sidecar and sample files go (default: %(default)s)")
    ap.add_argument("--epochs", type=int, default=epochs,
                    help="training epochs (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    return ap


def setup_torch(seed):
    """Import torch and make it deterministic: one thread, fixed seed."""
    try:
        import torch
    except ImportError:
        fail("PyTorch is missing (Debian package python3-torch; run with /usr/bin/python3)")
    try:
        import onnx  # noqa: F401
    except ImportError:
        fail("the onnx module is missing (Debian package python3-onnx; run with /usr/bin/python3)")
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    if hasattr(torch, "use_deterministic_algorithms"):
        torch.use_deterministic_algorithms(True)
    return torch


def load_data(data_dir, shape):
    """Fashion-MNIST as float32 tensors, pixels scaled to [0, 1] and reshaped to [n] + shape."""
    import numpy as np
    import torch
    out = []
    for prefix in ("train", "t10k"):
        try:
            x, y = onnx_ref.load_fashion(data_dir, prefix)
        except onnx_ref.RefError as e:
            fail(str(e))
        xf = (x.astype(np.float32) / np.float32(255.0)).reshape([x.shape[0]] + list(shape))
        out += [torch.from_numpy(xf), torch.from_numpy(y.astype(np.int64))]
    return out


def train(torch, model, xtr, ytr, epochs, seed, lr=1e-3, batch=128):
    """Adam, cross-entropy, the training set shuffled each epoch by a seeded generator."""
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    lossf = torch.nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(seed)
    n = xtr.shape[0]
    for epoch in range(epochs):
        t = time.time()
        perm = torch.randperm(n, generator=gen)
        total = 0.0
        for i in range(0, n, batch):
            idx = perm[i:i + batch]
            opt.zero_grad()
            loss = lossf(model(xtr[idx]), ytr[idx])
            loss.backward()
            opt.step()
            total += loss.item() * idx.shape[0]
        print("epoch %d: loss %.4f (%.1f s)" % (epoch + 1, total / n, time.time() - t))


def accuracy(torch, model, x, y):
    with torch.no_grad():
        pred = torch.cat([model(x[i:i + 1000]).argmax(dim=1) for i in range(0, x.shape[0], 1000)])
    return int((pred == y).sum())


def export(torch, model, example, path, dynamic=True):
    """torch.onnx.export at opset 17, the batch dimension symbolic ('N') when dynamic; checked
    by onnx.checker."""
    import onnx
    model.eval()
    torch.onnx.export(model, example, path, opset_version=OPSET, do_constant_folding=True,
                      input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": {0: "N"}, "output": {0: "N"}} if dynamic else None)
    onnx.checker.check_model(onnx.load(path))


def _np_dtype(elem_type):
    import onnx
    return str(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[elem_type])


def _value_info(vi):
    t = vi.type.tensor_type
    dims = [d.dim_param if d.HasField("dim_param") else int(d.dim_value) for d in t.shape.dim]
    return {"name": vi.name, "dtype": _np_dtype(t.elem_type), "shape": dims}


def write_sidecar(onnx_path, npz_path):
    """NAME.npz: the initializers and tensor attributes as arrays, and `graph`, a JSON string of
    the opset, graph inputs/outputs and the nodes (op, name, inputs, outputs, attributes) in the
    file's (topological) order. Format documented in README.md."""
    import numpy as np
    import onnx
    from onnx import numpy_helper
    m = onnx.load(onnx_path)
    opset = [o.version for o in m.opset_import if o.domain in ("", "ai.onnx")]
    arrays = {}
    inits = []
    for t in m.graph.initializer:
        key = "i%d" % len(inits)
        arrays[key] = numpy_helper.to_array(t)
        inits.append({"name": t.name, "key": key})
    nodes = []
    for n in m.graph.node:
        if n.domain not in ("", "ai.onnx"):
            fail("%s: node '%s' of domain '%s'" % (onnx_path, n.name, n.domain))
        attrs = {}
        for a in n.attribute:
            v = onnx.helper.get_attribute_value(a)
            if a.type == onnx.AttributeProto.TENSOR:
                key = "a%d" % sum(k.startswith("a") for k in arrays)
                arrays[key] = numpy_helper.to_array(v)
                v = {"tensor": key}
            elif a.type == onnx.AttributeProto.STRING:
                v = v.decode()
            elif a.type in (onnx.AttributeProto.FLOATS, onnx.AttributeProto.INTS):
                v = list(v)
            elif a.type not in (onnx.AttributeProto.FLOAT, onnx.AttributeProto.INT):
                fail("%s: node '%s': attribute '%s' of a type the sidecar does not hold"
                     % (onnx_path, n.name, a.name))
            attrs[a.name] = v
        nodes.append({"op": n.op_type, "name": n.name, "inputs": list(n.input),
                      "outputs": list(n.output), "attrs": attrs})
    init_names = {i["name"] for i in inits}
    graph = {"format": SIDECAR_FORMAT, "opset": opset[0] if opset else 1,
             "producer": "%s %s" % (m.producer_name, m.producer_version),
             "inputs": [_value_info(v) for v in m.graph.input if v.name not in init_names],
             "outputs": [_value_info(v) for v in m.graph.output],
             "initializers": inits, "nodes": nodes}
    arrays["graph"] = np.array(json.dumps(graph, sort_keys=True))
    np.savez_compressed(npz_path, **arrays)


def check_reference(name, npz_path, x, torch_out, rel_tol):
    """Run the float64 reference on x and print its largest differences from PyTorch."""
    import numpy as np
    g = onnx_ref.load_sidecar(npz_path)
    ref = onnx_ref.run(g, x)
    diff = np.abs(ref - torch_out.astype(np.float64))
    scale = max(np.abs(torch_out).max(), 1e-30)
    worst_rel = diff.max() / scale
    print("%s: reference vs torch on %s: max abs diff %.3g, relative to max |torch| %.3g "
          "(tolerance %g)" % (name, "x".join(map(str, x.shape)), diff.max(), worst_rel, rel_tol))
    if worst_rel > rel_tol:
        fail("the NumPy reference and PyTorch disagree beyond the tolerance")
    return diff.max()


def classifier_main(name, description, build, shape, epochs, n_samples=8):
    """Train, export and check a Fashion-MNIST classifier; write NAME.onnx, NAME.npz and the
    samples: the first n_samples test images (NAME_samples.npy, float32 [n] + shape, pixels
    in [0, 1]), their labels (NAME_labels.npy, uint8) and PyTorch's logits (NAME_torch.npy)."""
    import numpy as np
    args = arg_parser(description, epochs).parse_args()
    if args.epochs < 1:
        fail("--epochs must be at least 1")
    torch = setup_torch(args.seed)
    t0 = time.time()
    xtr, ytr, xte, yte = load_data(args.data_dir, shape)
    model = build(torch)
    model.train()
    train(torch, model, xtr, ytr, args.epochs, args.seed)
    t_train = time.time() - t0
    model.eval()
    correct = accuracy(torch, model, xte, yte)
    print("float32 test accuracy (torch): %.2f %% (%d/10000); training took %.1f s"
          % (correct / 100.0, correct, t_train))
    out = os.path.join(args.out_dir, name)
    export(torch, model, xte[:1], out + ".onnx")
    write_sidecar(out + ".onnx", out + ".npz")
    x = xte[:n_samples]
    with torch.no_grad():
        logits = model(x).numpy()
    np.save(out + "_samples.npy", x.numpy())
    np.save(out + "_labels.npy", yte[:n_samples].numpy().astype(np.uint8))
    np.save(out + "_torch.npy", logits)
    check_reference(name, out + ".npz", x.numpy(), logits, 1e-5)
    t = time.time()
    ref_correct, _ = onnx_ref.accuracy(onnx_ref.load_sidecar(out + ".npz"), args.data_dir)
    print("float64 reference test accuracy: %.2f %% (%d/10000) in %.1f s"
          % (ref_correct / 100.0, ref_correct, time.time() - t))
    report_files([out + s for s in (".onnx", ".npz", "_samples.npy", "_labels.npy",
                                    "_torch.npy")], t0)


def block_main(name, description, build, shape, n_samples=4, train=None, epochs=0):
    """Export a block: NAME.onnx, NAME.npz, a seeded normal input NAME_samples.npy (float32
    [n_samples] + shape) and PyTorch's output NAME_torch.npy, the reference checked against it.
    With `train` (train(torch, model, epochs, seed)) the block is trained first for --epochs
    (default `epochs`); without, its weights are the seeded ones and --epochs must be 0."""
    import numpy as np
    args = arg_parser(description, epochs).parse_args()
    if train is None and args.epochs != 0:
        fail("the block is not trained: --epochs must be 0")
    if train is not None and args.epochs < 1:
        fail("--epochs must be at least 1")
    torch = setup_torch(args.seed)
    t0 = time.time()
    model = build(torch)
    if train is not None:
        train(torch, model, args.epochs, args.seed)
        print("training took %.1f s" % (time.time() - t0))
    model.eval()
    x = torch.randn(n_samples, *shape)
    with torch.no_grad():
        y = model(x).numpy()
    out = os.path.join(args.out_dir, name)
    export(torch, model, x[:1], out + ".onnx")
    write_sidecar(out + ".onnx", out + ".npz")
    np.save(out + "_samples.npy", x.numpy())
    np.save(out + "_torch.npy", y)
    check_reference(name, out + ".npz", x.numpy(), y, 1e-5)
    report_files([out + s for s in (".onnx", ".npz", "_samples.npy", "_torch.npy")], t0)


def report_files(paths, t0):
    for p in paths:
        with open(p, "rb") as f:
            data = f.read()
        print("wrote %s (%d bytes) sha256 %s" % (os.path.relpath(p, ROOT), len(data),
                                                hashlib.sha256(data).hexdigest()))
    print("done in %.1f s" % (time.time() - t0))
