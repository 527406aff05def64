"""npukit.pccx: the host API with NumPy, on the worked examples of docs/spec/pccx.md."""
import numpy as np
import pytest

import npukit
from npukit.pccx import FLAG_W_SCALE, FMAP, Pccx, disasm, pack_int4


def test_pack_int4_spec_example():
    # §5.4: K = 4, N = 2, rows (3, -2, 4, 1) and (7, 7, -8, 0) pack to E3 14 and 77 08
    assert pack_int4([[3, -2, 4, 1], [7, 7, -8, 0]]).tobytes() == bytes([0xE3, 0x14, 0x77, 0x08])
    # odd K: the high nibble of the last byte is 0
    assert pack_int4([[1, 2, -1]]).tobytes() == bytes([0x21, 0x0F])
    with pytest.raises(ValueError):
        pack_int4([[8]])


def test_gemv_worked_example():
    # §6.4: inputs 2.0, -1.0, 0.25, 4.0; row 0: 3*2 + (-2)(-1) + 4*0.25 + 1*4 = 13, times 0.5
    # = 6.5; row 1: 7*2 + 7*(-1) + (-8)(0.25) + 0 = 5, times 2.0 = 10.0. Input at L2 word 0x40
    # = element 0x200, output at word 0x80 = element 0x400; shapes in fmap[1] and fmap[2].
    p = Pccx()
    w = p.weight_int4([[3, -2, 4, 1], [7, 7, -8, 0]], scales=[0.5, 2.0])
    p.weight_push(w)
    assert p.weight_pending == 1
    p.write_l2(0x200, [2.0, -1.0, 0.25, 4.0])
    p.memset(FMAP, 1, 1, 4, 1)
    p.memset(FMAP, 2, 1, 2, 1)
    p.gemv(0x80, 0x40, FLAG_W_SCALE, 2, 1, 0)
    p.sync()
    assert p.read_l2(0x400, 2).tolist() == [6.5, 10.0]
    st = p.stats()
    assert st["insns"] == 3 and st["engine_insns"]["gemv"] == 1 and st["macs"] == 8
    assert p.weight_pending == 0
    assert p.cc_read(FMAP, 1) == (1, 4, 1)
    a, d, s, c, eng = p.insn_times(2)
    assert a <= d <= s <= c and eng == "gemv"
    # the Machine underneath sees the same run
    assert p.machine.stats()["instructions"] == 3


def test_errors_are_pccx_codes():
    p = Pccx()
    p.memset(FMAP, 1, 1, 4, 1)
    p.memset(FMAP, 2, 1, 2, 1)
    with pytest.raises(npukit.NpkError) as e:
        p.gemv(0x80, 0x40, FLAG_W_SCALE, 2, 1, 0)   # no weight pushed: §5.4
    assert e.value.status == "PCCX_E_WEIGHT_EMPTY"
    assert p.last_error()[0] == "PCCX_E_WEIGHT_EMPTY"
    with pytest.raises(npukit.NpkError) as e:
        p.gemv(0x80, 0x40, 0, 2, 1, 0)               # halted after the fault (§9)
    assert e.value.status == "PCCX_E_HALTED"
    p.clear_error()
    with pytest.raises(OverflowError):
        p.memset(FMAP, 1, 1 << 16, 1, 1)             # a 16-bit field: never truncated
    with pytest.raises(npukit.NpkError) as e:
        p.gemv(1 << 17, 0, 0, 2, 1, 0)               # §12.3: an address >= 2^17 is E_ARG
    assert e.value.status == "PCCX_E_ARG"
    with pytest.raises(TypeError):
        npukit.pccx.Pccx(npukit.Machine("toy"))
    with pytest.raises(npukit.NpkError) as e:
        p.read_host(0, 1 << 61, "u8")                # more than the host DDR: before allocating
    assert e.value.status == "PCCX_E_HOST_RANGE"


def test_host_bf16_round_trip_and_disasm():
    p = Pccx(ext=1)
    p.write_host(0x100, np.array([1.5, -2.25, 3.0], dtype=np.float32))
    assert p.read_host(0x100, 3).tolist() == [1.5, -2.25, 3.0]
    # BF16 1.5 = 0x3fc0 little-endian
    assert p.read_host(0x100, 2, "u8").tolist() == [0xC0, 0x3F]
    word = 0x0  # opcode 0 is GEMV (§4): all fields zero
    assert disasm(word).split()[0] == "gemv"


def test_cvo_codes_from_the_header():
    # pccx spec §2: 64 constant-cache entries a bank; §4.5 / §7.2: EXP is 0x0, COPY 0x8,
    # VMUL 0x9, REDUCE_SUMSQ 0xD, REDUCE_MAX 0xE
    from npukit import pccx
    assert pccx.CC_ENTRIES == 64
    assert (pccx.CVO_EXP, pccx.CVO_COPY, pccx.CVO_VMUL, pccx.CVO_REDUCE_SUMSQ,
            pccx.CVO_REDUCE_MAX) == (0x0, 0x8, 0x9, 0xD, 0xE)
