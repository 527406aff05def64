"""npukit.opennpu: the GEMM generator from Python (include/npukit/opennpu.h). Every C is
checked against NumPy's int64 product of the same matrices."""
import numpy as np
import pytest

import npukit
from npukit import opennpu


def rand(shape, seed):
    return np.random.default_rng(seed).integers(-128, 128, shape, dtype=np.int8)


@pytest.mark.parametrize("M,N,Kd,K,L", [
    (8, 8, 8, 8, 32),        # one tile, Kd a multiple of 4
    (13, 21, 7, 8, 32),      # edge tiles in both directions, Kd not a multiple of 4
    (1, 1, 1, 4, 16),        # the smallest GEMM, K = L/4: the parked-VR0 path
    (9, 5, 33, 4, 32),
])
def test_gemm_equals_numpy(M, N, Kd, K, L):
    A, B = rand((M, Kd), M), rand((Kd, N), N)
    r = opennpu.gemm(A, B, K=K, L=L)
    assert r.C.dtype == np.int32 and r.C.shape == (M, N)
    assert np.array_equal(r.C, A.astype(np.int64) @ B.astype(np.int64))
    # no single-issue schedule beats the bound (docs/opennpu.md "GEMM")
    assert r.bound <= r.ticks
    assert r.stats["counters"]["mma_feeds"] == r.plan.counts["feeds"]


def test_extreme_values_and_memory_latency():
    # -128 * -128 * 64 = 2^20 in every element: the largest products, summed
    A = np.full((8, 64), -128, np.int8)
    B = np.full((64, 8), -128, np.int8)
    r1 = opennpu.gemm(A, B)
    r4 = opennpu.gemm(A, B, mem_latency=4)
    assert (r1.C == 1 << 20).all() and (r4.C == 1 << 20).all()
    assert r4.ticks > r1.ticks            # loads and stores take longer, the program is the same
    assert r4.instructions == r1.instructions


def test_plan_layout_and_pack():
    p = opennpu.gemm_plan(16, 8, 12, K=8, L=32, base=256)
    lay = p.layout
    # docs: A panels (4-byte index word + ceil(Kd/4) quads of 4K bytes), B panels, C
    assert lay["quads"] == 3 and lay["a_panel"] == 4 + 3 * 32 and lay["b_panel"] == 3 * 32
    assert lay["a_addr"] == 256 and lay["b_addr"] == 256 + 2 * lay["a_panel"]
    assert lay["c_addr"] == lay["b_addr"] + lay["b_panel"] and lay["ldc"] == 32
    A, B = rand((16, 12), 1), rand((12, 8), 2)
    img = p.pack(A, B)
    assert len(img) == lay["end"] - lay["base"]
    assert img[0:4] == bytes([0, 1, 2, 3])            # the index word of panel 0
    # quad 0 of A's panel 0: A[q][b] at byte 4q + b
    assert img[4:8] == A[0, 0:4].tobytes() and img[8:12] == A[1, 0:4].tobytes()
    # the program runs from a machine the plan makes, at the plan's base
    m = p.machine()
    m.write("mem", lay["base"], img)
    assert m.run().exited
    assert np.array_equal(p.read_c(m), A.astype(np.int64) @ B)


def test_errors_name_the_problem():
    with pytest.raises(npukit.NpkError, match=r"K=16 > L/4=8") as e:
        opennpu.gemm_plan(8, 8, 8, K=16, L=32)
    assert e.value.status == "bad argument"
    with pytest.raises(npukit.NpkError, match="at least 1"):
        opennpu.gemm_plan(0, 8, 8)
    with pytest.raises(npukit.NpkError, match="not an opennpu configuration"):
        opennpu.gemm_plan(8, 8, 8, K=6)
    with pytest.raises(ValueError, match="not a matrix product"):
        opennpu.gemm(np.zeros((2, 3)), np.zeros((4, 2)))
    with pytest.raises(ValueError, match="not int8"):
        opennpu.gemm(np.full((2, 2), 200), np.zeros((2, 2)))
    # the binding itself checks the byte counts of A and B against the shape
    from npukit import _core
    with pytest.raises(ValueError, match=r"packs A of 2 x 2 and B of 2 x 2"):
        _core.opennpu_gemm(2, 2, 2, 8, 32, 0, b"\0" * 3, b"\0" * 4)
    with pytest.raises(ValueError, match=r"packs A"):
        _core.opennpu_gemm(2, 2, 2, 8, 32, 0, b"\0" * 4)
    p = opennpu.gemm_plan(2, 2, 2)
    with pytest.raises(ValueError, match=r"A is \(2, 3\)"):
        p.pack(np.zeros((2, 3)), np.zeros((2, 2)))
