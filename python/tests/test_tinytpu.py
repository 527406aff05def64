"""npukit.tinytpu.compile (the schedule compiler through include/npukit/tinytpu.h) on
examples/tinytpu/xor/xor_train.net: XOR, 100 training steps and an evaluation pass."""
import pathlib

import numpy as np
import pytest

import npukit
from npukit import tinytpu


def test_xor_compiles_runs_and_learns(src):
    c = tinytpu.compile(pathlib.Path(src / "examples/tinytpu/xor/xor_train.net"))
    assert c.settings == "lanes=2,ub_words=4096,lr=0x0040"   # lanes 2, ub_words 4096, lr 0.25
    assert c.steps == 100 and len(c.loss) == 100
    assert c.cycles == c.load_cycles + 100 * c.step_cycles + 27  # + the evaluation pass
    m = c.machine()
    stop = m.run()
    assert stop.reason == "exit" and m.stats()["instructions"] == c.cycles
    out = c.read(m, "H2", step="eval").ravel()
    y = c.read(m, "Y").ravel()
    assert y.tolist() == [0, 1, 1, 0]
    assert ((out > 0.5) == (y > 0.5)).all()        # the machine learned XOR
    # the machine's outputs give exactly the loss the compiler's Q8.8 model predicts
    assert np.mean((out.astype(np.float64) - y) ** 2) == pytest.approx(c.eval_loss, abs=1e-12)
    assert c.loss[-1] < c.loss[0]


def test_compile_errors(src):
    with pytest.raises(npukit.NpkError, match=r"<net>:3: unknown keyword 'frobnicate'"):
        tinytpu.compile("lanes 2\nlayers 2 2 1\nfrobnicate 3\n")
    xor = pathlib.Path(src / "examples/tinytpu/xor/xor_train.net")
    with pytest.raises(npukit.NpkError, match="unknown format 'w99'"):
        tinytpu.compile(xor, format="w99")
    # w88 addresses only UB words 0..3: XOR's 3233 words do not fit that format
    with pytest.raises(npukit.NpkError, match="xor_train.net"):
        tinytpu.compile(xor, format="w88")
