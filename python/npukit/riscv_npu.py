"""The riscv-npu library API on npukit's rvnpu target (docs/python.md, "Scripts written for
riscv-npu"): a script written against the original Python emulator's `Emulator` runs on
npukit by changing its import,

    from riscv_npu import Emulator, RunResult          # before
    from npukit.riscv_npu import Emulator, RunResult   # after

and gets npukit's speed and exactness. What the original offers, with its rules: RAM at
0x80000000 (default 4 MB); load_elf sets pc to the entry and sp to the top of RAM;
symbol(name) raises KeyError when there is no such symbol or no ELF; read/write of float32,
int32 and bytes at a symbol or an address; run(max_cycles) counts cycles (one per
instruction) since the last reset, returns RunResult(exit_code, cycles, stats) with stats the
count per mnemonic, and raises TimeoutError when the program has not ended by max_cycles;
reset() restarts the program from its entry with the CPU, FPU and NPU state cleared and the
output emptied, keeping RAM as it is; stdout is what the program wrote, as bytes.
"""

import operator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .machine import Machine

BASE = 0x80000000
DEFAULT_RAM_SIZE = 4 * 1024 * 1024


@dataclass
class RunResult:
    """How a run ended: the exit code, the cycles (instructions) since the last reset, and
    the count per mnemonic."""

    exit_code: int
    cycles: int
    stats: dict = field(default_factory=dict)


def _original_name(mnemonic):
    # the original names integer, M, CSR and NPU instructions in capitals ("ADDI",
    # "NPU.FMACC") and the F extension in lower case ("flw", "fadd.s")
    if mnemonic.startswith("f") and not mnemonic.startswith("fence"):
        return mnemonic
    return mnemonic.upper()


class Emulator:
    """riscv-npu's Emulator over an npukit rvnpu machine (`.machine` gives the npukit
    Machine, for everything else npukit offers)."""

    def __init__(self, ram_size: int = DEFAULT_RAM_SIZE) -> None:
        self._ram_size = ram_size
        self.machine = Machine("rvnpu", ram_size=ram_size)
        self._loaded = None  # the machine's state right after load_elf

    def load_elf(self, path) -> None:
        self.machine.load(Path(path))
        self.machine.clear_output()
        self._loaded = self.machine.snapshot()

    def symbol(self, name: str) -> int:
        if self._loaded is None:
            raise KeyError(name)
        try:
            return self.machine.symbol(name)
        except Exception:
            raise KeyError(name) from None

    def _offset(self, symbol_or_addr, nbytes):
        addr = self.symbol(symbol_or_addr) if isinstance(symbol_or_addr, str) else symbol_or_addr
        off = operator.index(addr) - BASE
        if off < 0 or off + nbytes > self._ram_size:
            raise MemoryError(f"address 0x{off + BASE:08x} (+{nbytes} bytes) is outside RAM "
                              f"0x{BASE:08x}..0x{BASE + self._ram_size - 1:08x}")
        return off

    def write_f32(self, symbol_or_addr, data) -> None:
        raw = np.asarray(data, dtype=np.float32).tobytes()
        self.machine.write("ram", self._offset(symbol_or_addr, len(raw)), raw)

    def read_f32(self, symbol_or_addr, n: int):
        return self.machine.read("ram", self._offset(symbol_or_addr, 4 * n), n, "f32")

    def write_i32(self, symbol_or_addr, data) -> None:
        raw = np.asarray(data, dtype=np.int32).tobytes()
        self.machine.write("ram", self._offset(symbol_or_addr, len(raw)), raw)

    def read_i32(self, symbol_or_addr, n: int):
        return self.machine.read("ram", self._offset(symbol_or_addr, 4 * n), n, "i32")

    def write_bytes(self, symbol_or_addr, data: bytes) -> None:
        self.machine.write("ram", self._offset(symbol_or_addr, len(data)), bytes(data))

    def read_bytes(self, symbol_or_addr, n: int) -> bytes:
        return self.machine.read("ram", self._offset(symbol_or_addr, n), n).tobytes()

    def run(self, max_cycles: int = 10_000_000) -> RunResult:
        done = self.machine.stats()["instructions"]
        stop = None
        if done < max_cycles:
            stop = self.machine.run(max_cycles - done)
        if stop is None or stop.reason != "exit":
            if stop is not None and stop.reason == "fault":
                raise RuntimeError(stop.message)
            raise TimeoutError(f"Execution did not halt within {max_cycles} cycles")
        st = self.machine.stats()
        return RunResult(exit_code=stop.exit_code, cycles=st["instructions"],
                         stats={_original_name(k): v for k, v in st["mnemonics"].items() if v})

    def reset(self) -> None:
        if self._loaded is None:
            self.machine.reset()
        else:
            ram = self.machine.read("ram", 0, self._ram_size).tobytes()
            self.machine.restore(self._loaded)
            self.machine.write("ram", 0, ram)
        self.machine.clear_output()

    @property
    def stdout(self) -> bytes:
        return self.machine.output_bytes
