"""ONNX models on the host and on the simulated NPUs (include/npukit/model.h, docs/models.md):
what `npukit model-info`, `npukit run-model` and `npukit compile MODEL.onnx` do, with NumPy.

    import numpy as np, npukit
    m = npukit.Model("models/onnx/mlp.onnx")
    m.inputs, m.outputs, m.layers           # what the model is
    x = np.load("models/onnx/mlp_samples.npy")
    m.calibrate(x)                           # int8 scales, for opennpu and rvnpu int8
    y, stats = m.run(x, target="opennpu")    # y: (8, 10); stats["cycles"]: one per input
    m.compile("rvnpu", "mlp.elf")            # the target's program; returns how to run it

Errors are npukit.NpkError carrying the C message: the file, and for a model at fault the node
(index, name, operator) and the reason, with the sizes.
"""

from collections import namedtuple

import numpy as np

from . import _core

Tensor = namedtuple("Tensor", "name dtype shape symbolic")
Tensor.__doc__ = """A graph input or output as the file declares it: name, dtype (a NumPy
dtype name, "bfloat16" for bfloat16), shape (a tuple; a symbolic dimension taken as 1) and
symbolic (whether some dimension was symbolic)."""

Layer = namedtuple("Layer", "kind act alpha node node_name op n_in n_out kernel strides "
                            "in_shape out_shape in_scale out_scale in_tensors out_tensor")
Layer.__doc__ = """One layer of the plan (docs/models.md, "The plan"): kind ("dense",
"conv", "maxpool", "avgpool", "softmax", "act"), act (the activation at its end, "none",
"relu", ...; alpha for LeakyRelu), the IR node it starts at (node, node_name, op), n_in and
n_out (features or channels), kernel and strides ((0, 0) where they do not apply), in_shape
and out_shape (without the batch), the int8 scales of those tensors once calibrated (else
0), and how the layers connect: in_tensors (one plan tensor, or two for an add or a matmul of
two activations) and out_tensor; tensor 0 is the model's input, every other tensor is written
by exactly one layer."""


def targets():
    """The names a model runs on: "host" (the float64 reference) and the targets with a
    lowering. Empty when npukit was built without ONNX support."""
    return _core.model_targets()


def supported():
    """Whether this npukit was built with ONNX support (else Model raises NpkError)."""
    return _core.model_supported()


def _spec(target, settings):
    if not isinstance(target, str) or not target:
        raise TypeError("npukit: target must be a non-empty str, e.g. 'opennpu'")
    if isinstance(settings, dict):
        settings = ",".join(f"{k}={v}" for k, v in settings.items())
    settings = str(settings or "")
    if settings and ":" in target:
        raise ValueError(f"npukit: settings given twice: in target {target!r} and as "
                         f"settings={settings!r}")
    return f"{target}:{settings}" if settings else target


class Model:
    """An ONNX model, opened from a path (str or os.PathLike) or from its bytes.

    Attributes: name, inputs and outputs (lists of Tensor), layers (list of Layer; NpkError when
    the model cannot be grouped into layers: plan_error says why), input_shape and output_shape
    (one inference's, without the batch dimension), macs and params (of the whole graph),
    calibrated, info (a dict of all of these and the file's producer, opset and IR version).
    """

    def __init__(self, source, *, name=None):
        self._m = _core.Model(source, name)
        self._sessions = {}
        info = self._m.info()
        self.name = info["name"]
        self.inputs = [Tensor(**t) for t in self._m.inputs()]
        self.outputs = [Tensor(**t) for t in self._m.outputs()]
        self.plan_error = info["plan_error"]
        self.input_shape = info["input_shape"]
        self.output_shape = info["output_shape"]
        self.macs = info["macs"]
        self.params = info["params"]

    @property
    def info(self):
        """npk_nn_info as a dict."""
        return self._m.info()

    @property
    def layers(self):
        """The plan's layers (list of Layer)."""
        return [Layer(**d) for d in self._m.layers()]

    @property
    def calibrated(self):
        return self._m.info()["calibrated"]

    def _batch(self, x, what):
        """x as C-contiguous float32 of shape (count, *input_shape), the leading shape."""
        x = np.asarray(x)
        if x.dtype.kind not in "fiub":
            raise TypeError(f"npukit: {what} must be numbers, not {x.dtype}")
        if self.plan_error:
            raise _core.NpkError(self.plan_error)
        shape = tuple(self.input_shape)
        r = len(shape)
        if x.ndim < r or tuple(x.shape[x.ndim - r:]) != shape:
            raise ValueError(f"npukit: {self.name}: {what} of shape {tuple(x.shape)} does not end "
                             f"with the model's input shape {shape} (input "
                             f"{self.inputs[0].name!r} declared {self.inputs[0].shape}; the "
                             f"leading dimensions are the batch)")
        lead = tuple(x.shape[:x.ndim - r])
        count = int(np.prod(lead, dtype=np.int64))
        return np.ascontiguousarray(x, dtype=np.float32).reshape((count,) + shape), lead

    def calibrate(self, x):
        """Calibrate the int8 scales on the inputs x (shape (..., *input_shape); float32, other
        numbers converted) and quantise the weights: what opennpu and rvnpu int8 need before
        run() or compile(). Every value must be finite. Sessions open on the model are closed
        first (their programs hold the previous scales)."""
        xs, _ = self._batch(x, "calibration inputs")
        if xs.shape[0] == 0:
            raise ValueError(f"npukit: {self.name}: calibration needs at least one input")
        self.close_sessions()
        self._m.calibrate(xs, xs.shape[0])

    def session(self, target="host", settings=""):
        """The session of this model on target ("host", or a target with a lowering, with its
        settings as "K=4" or {"K": 4}), opened once and kept (close_sessions() drops them)."""
        spec = _spec(target, settings)
        s = self._sessions.get(spec)
        if s is None or s.closed:
            s = self._sessions[spec] = self._m.session(spec)
        return s

    def run(self, x, target="host", settings=""):
        """Run x (one input of input_shape, or a batch: shape (..., *input_shape)) on target.
        Returns (y, stats): y float32 of shape (..., *output_shape); stats a dict of what each
        inference cost on the simulator, "cycles", "instructions", "macs" (int) and
        "utilisation" (0..1), numbers for one input and NumPy arrays over the batch otherwise
        (all 0 on the host). A NaN or infinite input is an NpkError naming it."""
        xs, lead = self._batch(x, "input")
        s = self.session(target, settings)
        y, st = s.run(xs, xs.shape[0])
        y = np.frombuffer(y, np.float32).reshape(lead + tuple(self.output_shape)).copy()
        cols = list(zip(*st)) if st else [(), (), (), ()]
        names = ("cycles", "instructions", "macs", "utilisation")
        if lead == ():
            stats = {k: c[0] for k, c in zip(names, cols)}
        else:
            stats = {k: np.array(c, dtype=np.float64 if k == "utilisation" else np.uint64)
                     .reshape(lead) for k, c in zip(names, cols)}
        return y, stats

    def compile(self, target, path, settings=""):
        """Lower the model to target and write its program to path (os.PathLike or str; more
        files may be written beside it). Returns the note saying what was written and how to
        run it with `npukit run`. The int8 targets need calibrate() first."""
        return self._m.compile(_spec(target, settings), path)

    def close_sessions(self):
        for s in self._sessions.values():
            s.close()
        self._sessions.clear()

    def close(self):
        """Release the model and its sessions (also done when it is garbage-collected)."""
        self.close_sessions()
        self._m.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return (f"npukit.Model({self.name!r}: {len(self.inputs)} input(s), "
                f"{len(self.outputs)} output(s), {self.macs} MACs"
                + (f", plan refused: {self.plan_error}" if self.plan_error else "") + ")")
