"""The pccx host API from Python (include/npukit/pccx.h, docs/spec/pccx.md §12), with NumPy
for tensors: INT4 weight tensors packed by the spec's rule (§5.4), BF16 data in host DDR and
L2 through npukit's own rounding.

    from npukit.pccx import Pccx
    p = Pccx(ext=1)                                   # a pccx Machine and its host API
    w = p.weight_int4([[3, -2, 4, 1], [7, 7, -8, 0]], scales=[0.5, 2.0])
    p.weight_push(w)
    p.write_l2(0x200, [2.0, -1.0, 0.25, 4.0])         # BF16 elements at element 0x200
    p.memset(FMAP, 1, 1, 4, 1); p.memset(FMAP, 2, 1, 2, 1)
    p.gemv(0x80, 0x40, FLAG_W_SCALE, 2, 1, 0); p.sync()
    p.read_l2(0x400, 2)                               # array([ 6.5, 10. ], dtype=float32)

Every call maps one pccx_* call; a failing one raises npukit.NpkError with the PCCX_E_* name
as its status. `Pccx.machine` is the npukit.Machine underneath (stats(), timeline(), mem()).
"""

import numpy as np

from . import _core
from .dtypes import decode, encode
from .machine import Machine

# flags, banks and status bits of pccx.h (the C header is their one definition)
FLAG_FINDEMAX = _core.PCCX_FLAG_FINDEMAX
FLAG_ACCM = _core.PCCX_FLAG_ACCM
FLAG_W_SCALE = _core.PCCX_FLAG_W_SCALE
CVO_FLAG_SUB_EMAX = _core.PCCX_CVO_FLAG_SUB_EMAX
CVO_FLAG_RECIP_SCALE = _core.PCCX_CVO_FLAG_RECIP_SCALE
CVO_FLAG_ACCM = _core.PCCX_CVO_FLAG_ACCM
FMAP, WEIGHT = _core.PCCX_BANK_FMAP, _core.PCCX_BANK_WEIGHT   # MEMSET banks (dest_cache)
STATUS_BUSY, STATUS_DONE, STATUS_ERROR = (_core.PCCX_STATUS_BUSY, _core.PCCX_STATUS_DONE,
                                          _core.PCCX_STATUS_ERROR)
CC_ENTRIES = _core.PCCX_CC_ENTRIES                            # entries per MEMSET bank
# CVO function codes (§4.5, §7.2): CVO_EXP, CVO_SQRT, ..., CVO_REDUCE_MAX
globals().update({n[5:]: getattr(_core, n) for n in dir(_core) if n.startswith("PCCX_CVO_")
                  and not n.startswith("PCCX_CVO_FLAG_")})

def pack_int4(codes):
    """An N x K array of INT4 values (-8 .. 7) -> the §5.4 byte layout: row by row,
    ceil(K/2) bytes a row, column 2j in the low nibble of byte j, 2j+1 in the high one."""
    w = np.asarray(codes)
    if w.ndim != 2:
        raise ValueError("npukit: INT4 weights are an N x K array")
    if w.size and (w.min() < -8 or w.max() > 7 or not np.all(w == np.round(w))):
        raise ValueError("npukit: INT4 weights are whole numbers in -8 .. 7")
    n, k = w.shape
    nib = (w.astype(np.int64) & 0xF).astype(np.uint8)
    if k % 2:
        nib = np.concatenate([nib, np.zeros((n, 1), np.uint8)], axis=1)
    return (nib[:, 0::2] | (nib[:, 1::2] << 4)).astype(np.uint8)


class Pccx:
    """Pccx(machine=None, **settings): the host API over a pccx Machine (made here from the
    settings, e.g. Pccx(ext=1, hp_bytes_per_axi_cycle=32), when none is given)."""

    def __init__(self, machine=None, **settings):
        if machine is None:
            machine = Machine("pccx", **settings)
        elif settings:
            raise TypeError("npukit: give a machine or settings, not both")
        self.machine = machine
        self._c = _core.Pccx(machine._core)

    # instruction issue (§12.2): the arguments are the fields of §4
    def gemv(self, dest, src, flags, size_ptr, shape_ptr, lanes):
        self._c.gemv(dest, src, flags, size_ptr, shape_ptr, lanes)

    def gemm(self, dest, src, flags, size_ptr, shape_ptr, lanes):
        self._c.gemm(dest, src, flags, size_ptr, shape_ptr, lanes)

    def memcpy(self, from_host, to_host, dest, src, aux, shape_ptr, async_=0):
        self._c.memcpy(from_host, to_host, dest, src, aux, shape_ptr, async_)

    def memset(self, bank, index, a, b, c):
        self._c.memset(bank, index, a, b, c)

    def cvo(self, func, src, dst, length, flags=0, async_=0):
        self._c.cvo(func, src, dst, length, flags, async_)

    def issue(self, word):
        self._c.issue(word)

    def sync(self, timeout_us=0):
        """Wait (in simulated time) until every issued instruction has completed; the GIL is
        released meanwhile."""
        self._c.sync(timeout_us)

    def reset(self):
        self._c.reset()

    def clear_error(self):
        self._c.clear_error()

    # weights
    def weight_int4(self, codes, scales):
        """An INT4 weight tensor from an N x K array of values -8 .. 7 and N per-row scales;
        returns its handle (push it with weight_push)."""
        packed = pack_int4(codes)
        n, k = np.asarray(codes).shape
        sc = np.ascontiguousarray(scales, dtype="<f4")
        if sc.shape != (n,):
            raise ValueError(f"npukit: {n} rows need {n} scales, got shape {sc.shape}")
        return self._c.weight_int4(k, n, packed.tobytes(), packed.shape[1], sc.tobytes())

    def weight_view_bf16(self, base, n, k, stride_n, stride_k):
        return self._c.weight_view_bf16(base, n, k, stride_n, stride_k)

    def weight_push(self, handle):
        self._c.weight_push(handle)

    def weight_free(self, handle):
        self._c.weight_free(handle)

    @property
    def weight_pending(self):
        return self._c.weight_pending()

    # data
    def write_host(self, offset, values, dtype="bf16"):
        """Write numbers to host DDR at byte offset as dtype (default BF16)."""
        self._c.host_write(offset, encode(values, dtype))

    def read_host(self, offset, count, dtype="bf16"):
        from .dtypes import DTYPES, canonical
        name = canonical(dtype)
        return decode(self._c.host_read(offset, count * DTYPES[name][0]), name)

    def write_l2(self, element, values):
        """Write BF16 values at L2 element index `element` (8 elements a 128-bit word)."""
        self.machine.write("l2", 2 * element, values, "bf16")

    def read_l2(self, element, count):
        """count BF16 elements from L2 element index `element`, as float32."""
        return self.machine.read("l2", 2 * element, count, "bf16")

    def host_window(self, base):
        self._c.host_window(base)

    # registers and back doors
    def reg_write(self, offset, value, wide=False):
        self._c.reg_write(offset, value, wide)

    def reg_read(self, offset):
        return self._c.reg_read(offset)

    def cc_read(self, bank, index):
        return self._c.cc_read(bank, index)

    @property
    def emax(self):
        return self._c.emax()

    @emax.setter
    def emax(self, v):
        self._c.emax(v)

    def host_advance(self, ns):
        self._c.host_advance(ns)

    def stats(self):
        """The reports of §11.5 as a dict (cycles, seconds, per-engine busy/insns/idle,
        bytes per HP port, stalls, MACs, ...)."""
        return self._c.stats()

    def last_error(self):
        """(code name, issue index, word, message) of the recorded fault, or None."""
        return self._c.last_error()

    def insn_times(self, index):
        """(pushed, decoded, started, completed, engine) cycles of instruction `index`."""
        return self._c.insn_times(index)


def disasm(word, ext=True):
    """The §13 text of one 64-bit pccx instruction word."""
    return _core.pccx_disasm(word, ext)
