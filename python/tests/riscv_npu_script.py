"""A script written against riscv-npu's Python library API (its Emulator and RunResult), as
its users write them. The only npukit-specific line is the import; test_riscv_npu.py runs it
on hello.elf and checks what it prints. Usage: riscv_npu_script.py HELLO_ELF"""
import sys

import numpy as np

from npukit.riscv_npu import Emulator, RunResult  # was: from riscv_npu import Emulator, RunResult

elf = sys.argv[1]

emu = Emulator()
emu.load_elf(elf)
result = emu.run()
assert isinstance(result, RunResult)
print("exit", result.exit_code)
print("stdout", emu.stdout)
print("cycles>0", result.cycles > 0, "ECALL" in result.stats)
print("main>=base", emu.symbol("main") >= 0x80000000)

try:
    emu.symbol("nonexistent_symbol_xyz_42")
except KeyError:
    print("missing symbol: KeyError")

# data at raw addresses
emu.write_f32(0x80010000, np.array([1.5, 2.5, 3.5, 4.5], dtype=np.float32))
print("f32", emu.read_f32(0x80010000, n=4).tolist())
emu.write_i32(0x80010010, np.array([10, -20, 30, -40], dtype=np.int32))
print("i32", emu.read_i32(0x80010010, n=4).tolist())
emu.write_bytes(0x80010020, b"\xde\xad\xbe\xef")
print("bytes", emu.read_bytes(0x80010020, n=4).hex())

# reset keeps RAM, clears the output, and the program runs again the same way
emu.reset()
print("after reset f32", emu.read_f32(0x80010000, n=2).tolist(), "stdout", emu.stdout)
again = emu.run()
print("again", again.exit_code, again.cycles == result.cycles, emu.stdout == b"".join(
    [b"hello from rvnpu firmware (write)\n", b"hello from rvnpu firmware (puts)\n"]))

fresh = Emulator()
fresh.load_elf(elf)
try:
    fresh.run(max_cycles=1)
except TimeoutError as e:
    print("timeout:", e)
try:
    Emulator().symbol("main")
except KeyError:
    print("no ELF: KeyError")
