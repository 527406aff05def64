"""The tinytpu schedule compiler from Python (include/npukit/tinytpu.h, docs/tinytpu-compiler.md):
an MLP training job described in text -> a cycle-exact control stream, the settings to run it
with and its memory map.

    from npukit import tinytpu
    c = tinytpu.compile(pathlib.Path("examples/tinytpu/xor/xor_train.net"))
    m = c.machine()                      # a tinytpu Machine with the stream loaded
    m.run()
    c.read(m, "H2", step="eval")         # the evaluation pass's outputs, as a B x d array
"""

import os
import re

import numpy as np

from . import _core
from .machine import Machine


class Compiled:
    """A compiled stream: program (text), settings (for Machine("tinytpu", settings)), map
    (text), cycles, load_cycles, step_cycles, steps, loss (per step, the Q8.8 model's mean
    squared error), eval_loss (None without an evaluation pass) and ub (the compiler's
    prediction of the UB words the program writes, Q8.8 as int16: an exact run leaves
    exactly these in UB words 0 .. len(ub) - 1)."""

    def __init__(self, d, name):
        self.__dict__.update(d)
        self.name = name
        self.loss = np.array(d["loss"])
        self.ub = np.frombuffer(d["ub"], np.int16).copy()

    def machine(self, **settings):
        """A tinytpu Machine with these settings (plus any given) and the stream loaded."""
        m = Machine("tinytpu", self.settings, **settings)
        m.load(self.program.encode(), name=self.name)
        return m

    def region(self, name, step=-1):
        """(address, rows, cols) in UB words of a memory-map region: step -1 (or "load") for
        host-loaded data, a step number, or "eval"."""
        want = "load" if step in (-1, "load") else str(step)
        for line in self.map.splitlines():
            f = line.split()
            if len(f) >= 6 and not line.startswith("#") and f[2] == want and \
                    " ".join(f[3:-2]) == name:
                rows, cols = map(int, f[-1].split("x"))
                return int(f[0]), rows, cols
        raise KeyError(f"npukit: no region {name!r} of step {step} in the memory map")

    def read(self, m, name, step=-1):
        """A region's Q8.8 words from machine m's unified buffer as a rows x cols array (the
        map's row-major layout, which holds for up to two columns; wider regions are in skew
        order, tinytpu spec A8, and are returned as stored)."""
        addr, rows, cols = self.region(name, step)
        return m.read("ub", 2 * addr, rows * cols, "q8.8").reshape(rows, cols)

    def __repr__(self):
        return f"tinytpu.Compiled({self.name!r}: {self.cycles} cycles, {self.settings})"


def compile(source, *, format=None, name=None):
    """Compile a description: a path (os.PathLike) or the text itself. format: "asm" (default
    unless the description says otherwise), "w88", "w94", "w130", "wfull" or "port". Errors
    are npukit.NpkError with "name:line: message"."""
    if isinstance(source, os.PathLike):
        with open(source) as f:
            text = f.read()
        name = name or os.fspath(source)
    else:
        text = str(source)
        name = name or "<net>"
    return Compiled(_core.tinytpu_compile(text, name, format), name)
