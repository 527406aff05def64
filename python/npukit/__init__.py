"""npukit from Python: simulated NPU machines with NumPy views of their memories.

    import npukit
    m = npukit.Machine("rvnpu")
    m.load("examples/rvnpu/hello.elf")
    stop = m.run()
    print(stop.reason, stop.exit_code, m.output)

    y, stats = npukit.Model("models/onnx/mlp.onnx").run(x, target="host")

docs/python.md is the guide. The binding (npukit._core) maps libnpukit's C API one to one;
this package adds the Python side: NumPy arrays, element types, stop objects, pickling.
"""

from ._core import NpkError, version as _version
from .machine import Machine, Stop, Commit, Effect, Registers, targets, config_help
from .dtypes import DTYPES, encode, decode
from .sweeps import sweep, load_spec, SpecError
from .model import Model

__version__ = _version
__all__ = ["Machine", "Stop", "Commit", "Effect", "Registers", "NpkError", "targets",
           "config_help", "DTYPES", "encode", "decode", "sweep", "load_spec", "SpecError",
           "Model", "__version__"]
