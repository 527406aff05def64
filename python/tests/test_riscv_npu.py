"""The riscv-npu compatibility layer: riscv_npu_script.py, written against the original's
API, runs unchanged but for its import. Expected values: hello.elf prints its two lines and
exits 0 (examples/rvnpu/hello.c, built with its symbols); the data round-trips; run(max_cycles=1) cannot finish."""
import subprocess
import sys
import pathlib


def test_script_written_for_riscv_npu_runs(firmware):
    script = pathlib.Path(__file__).with_name("riscv_npu_script.py")
    out = subprocess.run([sys.executable, str(script), str(firmware / "hello.elf")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "exit 0",
        "stdout b'hello from rvnpu firmware (write)\\nhello from rvnpu firmware (puts)\\n'",
        "cycles>0 True True",
        "main>=base True",
        "missing symbol: KeyError",
        "f32 [1.5, 2.5, 3.5, 4.5]",
        "i32 [10, -20, 30, -40]",
        "bytes deadbeef",
        "after reset f32 [1.5, 2.5] stdout b''",
        "again 0 True True",
        "timeout: Execution did not halt within 1 cycles",
        "no ELF: KeyError",
    ]
