"""The docs/python.md walkthrough (examples/python/walkthrough.py) runs and its numbers hold:
the pccx MLP's BF16 outputs within 0.02 of the float64 model (BF16 keeps 8 significant bits:
relative error 2^-9 per rounding, a few roundings per output), 6 instructions (3 MEMSETs,
2 GEMVs, 1 CVO), GEMV the busiest engine, and both plots written."""
import re
import subprocess
import sys


def test_walkthrough(src, tmp_path):
    out = subprocess.run([sys.executable, str(src / "examples/python/walkthrough.py"),
                          str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    diff = float(re.search(r"max \|diff\| ([0-9.]+)", out.stdout).group(1))
    assert diff < 0.02
    assert "instructions 6," in out.stdout
    busy = eval(re.search(r"busy: (\{.*\})", out.stdout).group(1))
    assert max(busy, key=busy.get) == "gemv"
    for f in ("pccx_mlp_util.png", "pccx_mlp_timeline.png"):
        assert (tmp_path / f).read_bytes().startswith(b"\x89PNG")
