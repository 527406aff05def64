"""The opennpu GEMM generator from Python (include/npukit/opennpu.h, docs/opennpu.md "GEMM"):
C = A * B with int8 A (M x Kd) and B (Kd x N) and int32 C as one straight-line program for
the K x K MMA array (opennpu spec §5.12), its packed data image and its tick bound.

    import numpy as np
    from npukit import opennpu
    A = np.random.default_rng(1).integers(-128, 128, (64, 48), dtype=np.int8)
    B = np.random.default_rng(2).integers(-128, 128, (48, 32), dtype=np.int8)
    r = opennpu.gemm(A, B)                 # K = 8 lanes, L = 32 registers
    assert (r.C == A.astype(np.int64) @ B).all()
    r.ticks, r.bound, r.stats["counters"]["mma_util_permille"]

For programs that combine a GEMM with other work, gemm_plan() gives the plan: its layout
(addresses of the A and B panels and of C), the assembly text and the packed image.
"""

import numpy as np

from . import _core
from .machine import Machine


class GemmPlan:
    """A GEMM made for one shape, machine (K lanes, L VX registers) and base address.

    program   the assembly source (text)
    layout    dict: M, N, Kd, K, L, tiles_m, tiles_n, quads, base, a_addr, a_panel, b_addr,
              b_panel, c_addr, ldc (C's row stride in bytes), end (one past the last byte)
    counts    dict: insns, feeds, loads, stores, setup, ticks (predicted at mem_latency 1),
              bound (no single-issue schedule takes fewer ticks)"""

    def __init__(self, M, N, Kd, K=8, L=32, base=0):
        d = _core.opennpu_gemm(M, N, Kd, K, L, base)
        self.program, self.layout, self.counts = d["program"], d["plan"], d["counts"]

    def pack(self, A, B):
        """The data image of [base, end) as bytes: A and B packed as the program loads them
        (int8 arrays of M x Kd and Kd x N; values outside -128 .. 127 are an error), C
        zeroed."""
        p = self.layout
        A, B = _int8(A, (p["M"], p["Kd"]), "A"), _int8(B, (p["Kd"], p["N"]), "B")
        return _core.opennpu_gemm(p["M"], p["N"], p["Kd"], p["K"], p["L"], p["base"],
                                  A.tobytes(), B.tobytes())["image"]

    def machine(self, **settings):
        """An opennpu Machine with this plan's K and L, data memory for the layout (the next
        power of two, at least 1 MiB, unless mem_size is given) and the program loaded."""
        p = self.layout
        size = 1 << 20
        while size < p["end"]:
            size *= 2
        settings = {"K": p["K"], "L": p["L"], "mem_size": size, **settings}
        m = Machine("opennpu", **settings)
        m.load(asm=self.program, name="gemm.s")
        return m

    def read_c(self, m):
        """C (M x N int32) from machine m's data memory."""
        p = self.layout
        return m.read("mem", p["c_addr"], p["M"] * p["N"], "int32").reshape(p["M"], p["N"])

    def __repr__(self):
        p = self.layout
        return (f"opennpu.GemmPlan({p['M']}x{p['N']}x{p['Kd']} on K={p['K']} L={p['L']}: "
                f"{self.counts['insns']} instructions, bound {self.counts['bound']} ticks)")


def gemm_plan(M, N, Kd, *, K=8, L=32, base=0):
    """The plan of C = A * B for A of M x Kd and B of Kd x N (see GemmPlan). A shape or
    machine the generator cannot serve raises npukit.NpkError with the reason."""
    return GemmPlan(M, N, Kd, K, L, base)


class GemmResult:
    """C (M x N int32), ticks, instructions, bound (the schedule's lower bound in ticks),
    stats (the machine's statistics dict) and plan (the GemmPlan)."""

    def __init__(self, C, stats, plan):
        self.C, self.stats, self.plan = C, stats, plan
        self.ticks, self.instructions = stats["cycles"], stats["instructions"]
        self.bound = plan.counts["bound"]

    def __repr__(self):
        return (f"opennpu.GemmResult({self.C.shape[0]}x{self.C.shape[1]}: {self.ticks} ticks, "
                f"bound {self.bound})")


def gemm(A, B, *, K=8, L=32, **settings):
    """Run C = A * B on an opennpu machine (K lanes, L VX registers, further settings such as
    mem_latency=4 passed on) and return a GemmResult."""
    A, B = np.asarray(A), np.asarray(B)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[0]:
        raise ValueError(f"npukit: A {A.shape} and B {B.shape} are not a matrix product")
    plan = gemm_plan(A.shape[0], B.shape[1], A.shape[1], K=K, L=L)
    m = plan.machine(**settings)
    m.write("mem", plan.layout["base"], plan.pack(A, B))
    stop = m.run()
    if not stop.exited:
        raise RuntimeError(f"npukit: the GEMM program stopped early: {stop.message}")
    return GemmResult(plan.read_c(m), m.stats(), plan)


def _int8(x, shape, name):
    a = np.asarray(x)
    if a.shape != shape:
        raise ValueError(f"npukit: {name} is {a.shape}, the plan needs {shape}")
    if a.dtype != np.int8:
        if a.size and (a.min() < -128 or a.max() > 127 or not np.all(a == np.round(a))):
            raise ValueError(f"npukit: {name} holds values that are not int8")
        a = a.astype(np.int8)
    return np.ascontiguousarray(a)
