"""npukit.demos: each target's demo from Python gives the figures the command's C demo gives
(`npukit demo NAME`, src/cli/cmd_demo.c): two host programs, one in C over the C API and one in
Python over this package, driving the same machine programs."""
import io
import os
import pathlib
import re
import subprocess

import numpy as np
import pytest

from npukit import demos

BUILD = os.environ.get("NPUKIT_BUILD_DIR")


def cli_demo(name):
    """The output of the build's `npukit demo NAME` (without the sanitizer preload of the
    interpreter: the command carries its own runtime)."""
    exe = pathlib.Path(BUILD or "", "npukit")
    if not BUILD or not exe.exists():
        pytest.skip("no built npukit command (NPUKIT_BUILD_DIR)")
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    r = subprocess.run([str(exe), "demo", name], capture_output=True, text=True, env=env,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def number(pattern, text):
    m = re.search(pattern, text)
    assert m, (pattern, text)
    return int(m.group(1))


def run(name):
    out = io.StringIO()
    r = demos.run(name, out=out)
    return r, out.getvalue()


def test_toy_matches_the_command():
    r, text = run("toy")
    c = cli_demo("toy")
    assert r["output"] == "5133\n"              # primes below 50000 (the demo's own check)
    assert r["cycles"] == number(r"instructions retired in (\d+) cycles", c)
    assert r["instructions"] == number(r"(\d+) instructions retired", c)


def test_rvnpu_matches_the_command():
    try:
        demos.data_path("gemm_i8.elf")
    except demos.DemoError:
        pytest.skip("no rvnpu firmware built")
    r, text = run("rvnpu")
    c = cli_demo("rvnpu")
    assert r["output"] in c and r["output"].startswith("gemm checksum 0x")
    plain, npu = re.findall(r"(\d+) instructions retired in (\d+) cycles", c)[:2]
    assert (r["plain"]["instructions"], r["plain"]["cycles"]) == tuple(map(int, plain))
    assert (r["npu"]["instructions"], r["npu"]["cycles"]) == tuple(map(int, npu))
    assert r["npu"]["npu_instructions"] == number(r"NPU instructions: (\d+) of", c)


def test_opennpu_matches_the_command():
    r, text = run("opennpu")
    c = cli_demo("opennpu")
    # different random matrices (NumPy's here), the same program: ticks do not depend on data
    assert r["ticks"] == number(r"(\d+) ticks; no schedule", c)
    assert r["bound"] == number(r"takes fewer than (\d+)", c)
    assert r["mma_util_permille"] == number(r"utilisation (\d+) per mille", c)
    assert "all int32 results equal NumPy" in text


def test_tinytpu_matches_the_command():
    r, text = run("tinytpu")
    c = cli_demo("tinytpu")
    assert r["cycles"] == number(r"program: (\d+) cycles", c)
    q88 = [int(h, 16) for h in re.findall(r"computes -?[0-9.]+ \(Q8\.8 ([0-9A-F]{4})\)", c)]
    assert len(q88) == 4
    want = np.array([(v - 0x10000 if v & 0x8000 else v) / 256 for v in q88])
    assert np.array_equal(r["outputs"], want)
    assert r["right"] == 4


def test_pccx_matches_the_command():
    r, text = run("pccx")
    c = cli_demo("pccx")
    npu = re.search(r'NPU: +"(.*)"', c).group(1)
    assert r["text"].decode("ascii", "replace") == npu
    assert r["instructions"] == number(r"(\d+) instructions, \d+ cycles", c)
    assert r["cycles"] == number(r"\d+ instructions, (\d+) cycles", c)
    assert re.search(r'NPU: +".*"', text).group(0) == re.search(r'NPU: +".*"', c).group(0)


def test_unknown_demo_and_missing_file(monkeypatch, tmp_path):
    with pytest.raises(ValueError, match="no demo 'nope'"):
        demos.run("nope")
    assert demos.main(["nope"]) == 2
    monkeypatch.setenv("NPUKIT_DATA_DIR", str(tmp_path))
    (tmp_path / "demo.s").write_text("    li r1, 7\n    halt\n")   # found first, wrong program
    with pytest.raises(demos.DemoError, match="expected 5133"):
        demos.run("toy", out=None)
