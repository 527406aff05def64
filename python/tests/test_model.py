"""npukit.Model (include/npukit/model.h through npukit._core.Model): the committed Fashion-MNIST
MLP (models/onnx/mlp.onnx, 784-128-10) on the host and on every target with a lowering, and the
LeNet on opennpu, against the float64 NumPy reference tests/model/ref/onnx_ref.py, within the
tolerances docs/models.md ("Tolerances") gives for each target's arithmetic (the same as ctest
model_run_ref's); what the model is; batches and shapes; compile; and the errors (malformed
file, unknown target, wrong input shape, NaN input, a model the plan refuses, an int8 target
before calibration). Skipped when npukit was built without ONNX support (then Model must raise
a clear error)."""
import os
import sys

import numpy as np
import pytest

import npukit
from conftest import SRC

sys.path.insert(0, str(SRC / "tests/model/ref"))
import onnx_ref  # noqa: E402  (the NumPy reference; NumPy only)

ONNX = SRC / "models/onnx"
needs_onnx = pytest.mark.skipif(not npukit.model.supported(),
                                reason="npukit built without ONNX support")
HAVE_RVNPU_FW = bool(os.environ.get("NPK_RVNPU_FIRMWARE_DIR"))

# target, settings, atol, rtol: docs/models.md "Tolerances" (tests/model/CMakeLists.txt's
# _ref_targets). Host: the plan's float64 run written as float32.
MLP_TARGETS = [("host", "", 1e-6, 1e-6), ("opennpu", "", 1.0, 0), ("opennpu", "K=4", 1.0, 0),
               ("pccx", "", 3.5, 0), ("tinytpu", "", 0.25, 0),
               ("rvnpu", "", 1.0, 0), ("rvnpu", "precision=fp32,isa_rev=rev2", 1e-5, 1e-6)]


def reference(name):
    """The samples of models/onnx/NAME and the NumPy reference's float64 outputs for them."""
    x = np.load(ONNX / f"{name}_samples.npy")
    return x, onnx_ref.run(onnx_ref.load_sidecar(str(ONNX / f"{name}.npz")), x)


@pytest.fixture(scope="module")
def mlp():
    m = npukit.Model(ONNX / "mlp.onnx")
    x, _ = reference("mlp")
    m.calibrate(x)       # calibrated on its samples, as model_run_ref does
    yield m
    m.close()


def test_no_onnx_is_a_clear_error():
    if npukit.model.supported():
        assert npukit.model.targets()[0] == "host"
        assert {"opennpu", "pccx", "rvnpu", "tinytpu"} <= set(npukit.model.targets())
        return
    assert npukit.model.targets() == []
    with pytest.raises(npukit.NpkError, match="built without ONNX support.*libprotobuf-c-dev"):
        npukit.Model(ONNX / "mlp.onnx")


@needs_onnx
def test_what_the_mlp_is(mlp):
    assert [(t.name, t.dtype, t.shape) for t in mlp.inputs] == [("input", "float32", (1, 784))]
    assert mlp.inputs[0].symbolic            # the batch is symbolic in the file
    assert [(t.name, t.shape) for t in mlp.outputs] == [("output", (1, 10))]
    assert mlp.input_shape == (784,) and mlp.output_shape == (10,)
    # 784 x 128 + 128 x 10 multiply-accumulates; those weights and 128 + 10 biases
    assert mlp.macs == 784 * 128 + 128 * 10
    assert mlp.params == 784 * 128 + 128 * 10 + 138
    l0, l1 = mlp.layers
    assert (l0.kind, l0.act, l0.op, l0.n_in, l0.n_out) == ("dense", "relu", "Gemm", 784, 128)
    assert (l1.kind, l1.act, l1.n_in, l1.n_out) == ("dense", "none", 128, 10)
    assert l0.out_shape == l1.in_shape == (128,)
    assert mlp.calibrated
    # the input's scale: pixels in [0, 1], so at most 1/127 (max |x| / 127)
    assert 0 < l0.in_scale <= 1 / 127 + 1e-12
    assert mlp.info["opset"] == 17 and mlp.info["producer"] == "pytorch"


@needs_onnx
@pytest.mark.parametrize("target,settings,atol,rtol", MLP_TARGETS,
                         ids=[f"{t}:{s}" if s else t for t, s, _, _ in MLP_TARGETS])
def test_mlp_against_the_numpy_reference(mlp, target, settings, atol, rtol):
    if target == "rvnpu" and not HAVE_RVNPU_FW:
        pytest.skip("no rvnpu firmware toolchain: the rvnpu lowering has no model firmware")
    x, ref = reference("mlp")
    y, stats = mlp.run(x, target, settings)
    assert y.shape == (8, 10) and y.dtype == np.float32
    diff = np.abs(y.astype(np.float64) - ref)
    assert (diff <= atol + rtol * np.abs(ref)).all(), \
        f"{target}:{settings}: max |difference| {diff.max():.6g}"
    assert (y.argmax(axis=1) == ref.argmax(axis=1)).all()
    for k in ("cycles", "instructions", "macs", "utilisation"):
        assert stats[k].shape == (8,)
    if target == "host":
        assert not stats["cycles"].any()
    else:
        assert (stats["cycles"] > 0).all() and (stats["instructions"] > 0).all()
        assert ((stats["utilisation"] > 0) & (stats["utilisation"] <= 1)).all()


@needs_onnx
def test_opennpu_stats_are_the_models(mlp):
    x, _ = reference("mlp")
    _, st = mlp.run(x[0], "opennpu")
    # opennpu counts the model's MACs; utilisation = MACs / (cycles x K^2), K = 8
    assert st["macs"] == 784 * 128 + 128 * 10
    assert st["utilisation"] == pytest.approx(st["macs"] / (st["cycles"] * 64), rel=1e-12)


@needs_onnx
def test_lenet_on_opennpu():
    m = npukit.Model(ONNX / "lenet.onnx")
    x, ref = reference("lenet")
    assert m.input_shape == (1, 28, 28)
    assert [l.kind for l in m.layers][:2] == ["conv", "maxpool"]
    m.calibrate(x)
    y, st = m.run(x, "opennpu")
    assert y.shape == (8, 10)
    assert np.abs(y - ref).max() <= 1.0       # opennpu int8: atol 1.0
    assert (y.argmax(axis=1) == ref.argmax(axis=1)).all()
    assert (st["macs"] == 416520).all()       # the model's MACs (docs/models.md)


@needs_onnx
def test_output_shape_is_the_models():
    # lenet_qlinear's last layers are QLinearConvs over 5x5 and 1x1 maps, their tensor
    # [10, 1, 1]; the graph's output is Reshape'd to [N, 10], and that is what run returns
    m = npukit.Model(ONNX / "lenet_qlinear.onnx")
    assert [(t.name, t.shape) for t in m.outputs] == [("output", (1, 10))]
    assert m.layers[-1].out_shape == (10, 1, 1)
    assert m.output_shape == (10,)
    x = np.load(ONNX / "lenet_samples.npy")
    y, _ = m.run(x[:3])
    assert y.shape == (3, 10)
    y1, _ = m.run(x[0])
    assert y1.shape == (10,)


@needs_onnx
def test_batches_and_shapes(mlp):
    x, _ = reference("mlp")
    y, _ = mlp.run(x, "host")
    y0, st0 = mlp.run(x[0], "host")           # one input: no batch dimension
    assert y0.shape == (10,) and isinstance(st0["cycles"], int)
    assert np.array_equal(y0, y[0])
    y1, _ = mlp.run(x[:1], "host")            # the declared shape (1, 784)
    assert y1.shape == (1, 10) and np.array_equal(y1[0], y[0])
    y24, st = mlp.run(x.reshape(2, 4, 784), "host")
    assert y24.shape == (2, 4, 10) and st["cycles"].shape == (2, 4)
    assert np.array_equal(y24.reshape(8, 10), y)
    # float64 and integer inputs are converted to float32 (the model's input type)
    assert np.array_equal(mlp.run(x.astype(np.float64), "host")[0], y)
    assert mlp.run(np.zeros(784, np.uint8), "host")[0].shape == (10,)
    # from the file's bytes: the same model
    m2 = npukit.Model((ONNX / "mlp.onnx").read_bytes(), name="mlp-bytes")
    assert m2.name == "mlp-bytes" and np.array_equal(m2.run(x, "host")[0], y)


@needs_onnx
def test_recalibration_reopens_the_sessions():
    m = npukit.Model(ONNX / "mlp.onnx")
    x, ref = reference("mlp")
    m.calibrate(x[:1])
    y1, _ = m.run(x[:1], "opennpu")
    m.calibrate(x)                            # the cached opennpu session is closed first
    y8, _ = m.run(x, "opennpu")
    assert np.abs(y8 - ref).max() <= 1.0
    assert not np.array_equal(m.layers[0].out_scale, 0)
    assert y1.shape == (1, 10)


@needs_onnx
def test_compile(mlp, tmp_path):
    note = mlp.compile("opennpu", tmp_path / "mlp.s", settings={"K": 4})
    assert (tmp_path / "mlp.s").stat().st_size > 0 and (tmp_path / "mlp.img").exists()
    assert "opennpu (K=4" in note and "npukit run -t opennpu" in note
    if HAVE_RVNPU_FW:
        note = mlp.compile("rvnpu", tmp_path / "out.elf")
        assert (tmp_path / "out.elf").read_bytes()[:4] == b"\x7fELF"
        assert "npukit run" in note
    with pytest.raises(npukit.NpkError, match="'host' runs models but has nothing to compile"):
        mlp.compile("host", tmp_path / "x")


@needs_onnx
def test_errors(mlp, tmp_path):
    x, _ = reference("mlp")
    with pytest.raises(npukit.NpkError,
                       match="onnx_truncated.onnx: not an ONNX model: the protobuf data is "
                             "malformed or truncated"):
        npukit.Model(SRC / "tests/bad/inputs/onnx_truncated.onnx")
    with pytest.raises(npukit.NpkError, match="junk: not an ONNX model") as e:
        npukit.Model(b"\x0a\xff\xff", name="junk")
    assert e.value.status == "malformed input"
    with pytest.raises(npukit.NpkError, match="nope.onnx"):
        npukit.Model(tmp_path / "nope.onnx")
    with pytest.raises(npukit.NpkError,
                       match="no lowering for target 'nosuch' \\(targets: host, "):
        mlp.run(x, "nosuch")
    with pytest.raises(ValueError, match=r"input of shape \(8, 780\) does not end with the "
                                         r"model's input shape \(784,\)"):
        mlp.run(x[:, :780], "host")
    bad = x.copy()
    bad[3, 100] = np.nan
    with pytest.raises(npukit.NpkError, match="input 3: .*input element 100 is NaN"):
        mlp.run(bad, "opennpu")
    with pytest.raises(npukit.NpkError, match="calibration input 3, element 100 is NaN"):
        npukit.Model(ONNX / "mlp.onnx").calibrate(bad)
    with pytest.raises(TypeError, match="must be numbers"):
        mlp.run(np.array(["a"] * 784), "host")
    # an int8 target before calibration
    with pytest.raises(npukit.NpkError, match="opennpu: int8 needs a calibrated plan"):
        npukit.Model(ONNX / "mlp.onnx").run(x, "opennpu")
    # a model that reads but is not a chain of layers: what it is, and why it cannot run
    m = npukit.Model(SRC / "tests/fuzz/corpus/onnx_model/seed_broadcast.onnx")
    assert len(m.inputs) == 3 and "(this one has 3 and 1)" in m.plan_error
    with pytest.raises(npukit.NpkError, match="one input and one output"):
        m.layers
    with pytest.raises(npukit.NpkError, match="one input and one output"):
        m.run(np.zeros(4), "host")
    m.close()
    with pytest.raises(ValueError, match="the model is closed"):
        m.info


@needs_onnx
def test_layers_connect_as_the_graph():
    # models/onnx/transformer_block.py: x -> LayerNorm -> Q, K, V -> heads -> Q K^T / sqrt(dh)
    # -> softmax -> (.) V -> merge heads -> O, + x; -> LayerNorm -> FF1 (GELU) -> FF2, + that
    m = npukit.Model(ONNX / "transformer_block.onnx")
    layers = m.layers
    writer = {l.out_tensor: i for i, l in enumerate(layers)}
    assert len(writer) == len(layers) and 0 not in writer      # one writer per tensor
    for i, l in enumerate(layers):                             # topological, input = tensor 0
        assert all(t == 0 or writer[t] < i for t in l.in_tensors)
    src = [tuple(-1 if t == 0 else writer[t] for t in l.in_tensors) for l in layers]
    kinds = [l.kind for l in layers]
    assert kinds.count("matmul") == 2 and kinds.count("add") == 2
    qk, av = [i for i, k in enumerate(kinds) if k == "matmul"]
    add1, add2 = [i for i, k in enumerate(kinds) if k == "add"]
    # Q K^T: both operands are head splits (transposes) of dense layers reading LayerNorm 1
    for s in src[qk]:
        assert kinds[s] == "transpose" and kinds[src[s][0]] == "dense"
        assert src[src[s][0]] == (0,) and kinds[0] == "layernorm"
    assert src[av][0] == qk + 2 and kinds[qk + 2] == "softmax"   # softmax(scale(Q K^T)) . V
    assert src[add1] == (-1, add1 - 1) and layers[add1 - 1].op == "MatMul"   # x + O(...)
    assert src[add2] == (add1, add2 - 1)                         # h + FF2(...)
    assert layers[add2].out_shape == m.output_shape == (8, 32)
    # a chain: the MLP
    mlp = npukit.Model(ONNX / "mlp.onnx")
    assert [(l.in_tensors, l.out_tensor) for l in mlp.layers] == [((0,), 1), ((1,), 2)]
