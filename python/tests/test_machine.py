"""npukit.Machine on all five targets, with values derived by hand in the programs' comments
(tests/core/commit/*.s, examples/toy/sum.s, tests/debug/rvnpu.s)."""
import os
import pickle
import threading

import numpy as np
import pytest

import npukit


def test_targets():
    assert set(npukit.targets()) == {"toy", "rvnpu", "opennpu", "tinytpu", "pccx"}


def test_toy_sum_exit_and_stats(src):
    # sum.s: 1 + ... + 10 = 55 is the exit status; 3 li, 10 x (add, addi, bne), exit: 34
    m = npukit.Machine("toy")
    m.load(src / "examples/toy/sum.s")
    stop = m.run()
    assert (stop.reason, stop.exit_code) == ("exit", 55)
    st = m.stats()
    assert st["instructions"] == 34
    assert st["mnemonics"]["add"] == 10 and st["mnemonics"]["bne"] == 10


def test_budget_then_resume(src):
    m = npukit.Machine("toy")
    m.load(src / "examples/toy/sum.s")
    stop = m.run(5)  # li li li add addi: sum = 1, i = 2
    assert stop.reason == "budget"
    assert (m.regs["r1"], m.regs["r2"]) == (1, 2)
    assert m.run().exit_code == 55


def test_step_registers_and_symbols(src):
    m = npukit.Machine("toy")
    m.load(src / "tests/core/commit/toy.s")
    for _ in range(3):
        assert m.step().reason == "none"
    # r1 = 5, r2 = 0x40, r3 = 5 + 5; pc after three 4-byte instructions
    assert (m.regs["r1"], m.regs["R2"], m.regs["r3"], m.regs["pc"]) == (5, 0x40, 10, 12)
    assert m.symbol("skip") == 7 * 4  # the 8th instruction
    m.regs["r1"] = -1  # a negative value of the register's width
    assert m.regs["r1"] == 0xFFFFFFFF
    with pytest.raises(OverflowError):
        m.regs["r1"] = 1 << 32
    with pytest.raises(KeyError):
        m.regs["r99"]
    assert "pc" in m.regs and len(m.regs) == len(list(m.regs))


def test_commit_records(src):
    # toy.s derivation: 8 records; 1: r1 = 5; 4: mem[0x44] 4 bytes = 10; 6: beq, no effect
    m = npukit.Machine("toy")
    m.load(src / "tests/core/commit/toy.s")
    recs = []
    m.on_commit(recs.append)
    assert m.run().reason == "exit"
    assert [r.seq for r in recs] == list(range(1, 9))
    assert [(e.kind, e.name, e.value) for e in recs[0].effects] == [("reg", "r1", 5)]
    (st,) = recs[3].effects
    assert (st.kind, st.name, st.addr, st.size, st.data) == ("mem", "mem", 0x44, 4, b"\x0a\0\0\0")
    assert recs[5].effects == [] and recs[5].pc == 20
    assert [r.pc for r in recs] == [0, 4, 8, 12, 16, 20, 28, 32]  # li r5 at 24 skipped


def test_commit_callback_exception_stops_run(src):
    m = npukit.Machine("toy")
    m.load(src / "examples/toy/sum.s")

    def boom(rec):
        raise ValueError(f"stop at {rec.seq}")

    m.on_commit(boom)
    with pytest.raises(ValueError, match="stop at 1"):
        m.run()
    m.on_commit(None)


def test_callback_reads_but_cannot_run(src):
    m = npukit.Machine("toy")
    m.load(src / "tests/core/commit/toy.s")
    seen, errors = [], []

    def cb(rec):
        seen.append(m.regs["r1"])
        try:
            m.step()
        except RuntimeError as e:
            errors.append(str(e))

    m.on_commit(cb)
    m.run()
    assert seen[0] == 5 and len(errors) == 8 and "running" in errors[0]


def test_memory_view_zero_copy_and_guard(src):
    m = npukit.Machine("toy")
    m.load(src / "tests/core/commit/toy.s")
    view = m.mem("mem")
    assert not view.flags.writeable
    assert view[0x44] == 0
    m.run()
    assert list(view[0x44:0x48]) == [10, 0, 0, 0]  # the view follows the machine
    with pytest.raises(BufferError):
        m.load(src / "examples/toy/sum.s")
    del view
    m.load(src / "examples/toy/sum.s")  # no view left: allowed


def test_typed_write_read_hand_values():
    m = npukit.Machine("toy")
    m.load(asm="halt\n")
    # bf16: 1.5 = 0x3fc0, -2.25 = 0xc010; 1 + 2^-8 is halfway between 1 and 1 + 2^-7: even
    # -> 1.0 = 0x3f80
    m.write("mem", 0x100, [1.5, -2.25, 1.00390625], "bf16")
    assert m.read("mem", 0x100, 6, "u8").tolist() == [0xC0, 0x3F, 0x10, 0xC0, 0x80, 0x3F]
    assert m.read("mem", 0x100, 3, "bfloat16").tolist() == [1.5, -2.25, 1.0]
    # q8.8: 1.5 = 384 = 0x0180, -1/256 = -1 = 0xffff
    m.write("mem", 0x200, [1.5, -0.00390625], "q8.8")
    assert m.read("mem", 0x200, 4, "u8").tolist() == [0x80, 0x01, 0xFF, 0xFF]
    assert m.read("mem", 0x200, 2, "q8.8").tolist() == [1.5, -0.00390625]
    # e4m3: 1.0 = 0 0111 000 = 0x38, 448 = 0 1111 110 = 0x7e; e5m2: 1.0 = 0x3c, 57344 = 0x7b
    m.write("mem", 0x300, [1.0, 448.0], "e4m3")
    m.write("mem", 0x302, [1.0, 57344.0], "e5m2")
    assert m.read("mem", 0x300, 4, "u8").tolist() == [0x38, 0x7E, 0x3C, 0x7B]
    assert m.read("mem", 0x302, 2, "e5m2").tolist() == [1.0, 57344.0]
    # integers keep their NumPy type; f32 round trip is exact
    m.write("mem", 0x400, np.array([-2, 300], dtype=np.int16))
    assert m.read("mem", 0x400, 2, np.int16).tolist() == [-2, 300]
    m.write("mem", 0x410, [0.1], "f32")
    assert m.read("mem", 0x410, 1, "f32")[0] == np.float32(0.1)


@pytest.mark.parametrize("values,dtype,match", [
    ([500.0], "e4m3", "element 0"), ([1, 300], "i8", "element 1"), ([2.5], "i8", "not an integer"),
    ([float("nan")], "q8.8", "NaN"), ([200.0], "q8.8", "out of range")])
def test_typed_write_refuses(values, dtype, match):
    m = npukit.Machine("toy")
    m.load(asm="halt\n")
    m.write("mem", 0x100, [7], "u8")
    with pytest.raises(ValueError, match=match):
        m.write("mem", 0x100, values, dtype)
    assert m.read("mem", 0x100, 1)[0] == 7  # nothing written


def test_errors_carry_npukit_messages(src):
    with pytest.raises(npukit.NpkError, match="unknown target|no target"):
        npukit.Machine("nosuch")
    m = npukit.Machine("toy")
    with pytest.raises(npukit.NpkError, match=r"<asm>:2:\d+"):
        m.load(asm="halt\nfrobnicate r1\n")
    m.load(asm="halt\n")
    with pytest.raises(npukit.NpkError, match="outside mem"):
        m.read("mem", 1 << 40, 4)
    # a length no space holds is the range error, checked before the bytes are allocated
    # (it was a MemoryError with no message)
    with pytest.raises(npukit.NpkError, match=r"access of 4611686018427387904 bytes at 0x0 "
                       r"is outside mem") as e:
        m.read("mem", 0, 1 << 62)
    assert e.value.status == "out of range"
    size = m.spaces["mem"][0]
    assert len(m.read("mem", 0, size)) == size       # the whole space still reads
    with pytest.raises(ValueError, match="unknown element type"):
        m.read("mem", 0, 1, "f16")


def test_numbers_are_whole_and_in_range():
    # Addresses, counts, budgets and register values are integers of 0 .. 2**64-1: a number
    # out of that range is an OverflowError naming it (PyArg's K format wrapped 2**64 to
    # address 0 and read it; -1 became 2**64-1), a float or a string a TypeError (int()
    # truncated 16.5 to 16). NumPy's integers are integers.
    m = npukit.Machine("toy")
    m.load(asm="halt\n")
    m.write("mem", 0, [1, 2, 3, 4], "u8")
    with pytest.raises(OverflowError, match=r"18446744073709551616 is not in 0 \.\. 2\*\*64-1"):
        m.read("mem", 2**64, 4)
    with pytest.raises(OverflowError, match=r"-1 is not in"):
        m.read("mem", -1, 4)
    with pytest.raises(OverflowError, match=r"18446744073709551617 is not in"):
        m.write("mem", 2**64 + 1, b"\x09")
    assert list(m.read("mem", 0, 4)) == [1, 2, 3, 4]      # nothing written at 1
    with pytest.raises(TypeError, match="addr must be an integer, not float 16.5"):
        m.read("mem", 16.5, 4)
    with pytest.raises(TypeError, match="count must be an integer, not str"):
        m.read("mem", 0, "4")
    assert list(m.read("mem", np.int64(1), np.uint8(2))) == [2, 3]
    m.write("mem", np.uint64(3), b"\x07")
    assert m.read("mem", 3, 1)[0] == 7
    with pytest.raises(OverflowError, match="-1 is not in"):
        m.run(-1)
    with pytest.raises(TypeError, match="max_insns must be an integer"):
        m.run(2.5)
    with pytest.raises(TypeError, match="register r1 must be an integer, not float 1.5"):
        m.regs["r1"] = 1.5
    with pytest.raises(OverflowError, match="is not in 0 .. 2..32-1"):
        m.remove_watchpoint(2**32 + 1)
    with pytest.raises(OverflowError, match="-4 is not in"):
        m.add_breakpoint(-4)


def test_pickle_and_snapshot_continue_identically(src):
    m = npukit.Machine("toy")
    m.load(src / "examples/toy/sum.s")
    m.run(7)
    twin = pickle.loads(pickle.dumps(m))
    assert twin.config == m.config and twin.regs["r1"] == m.regs["r1"]
    a, b = m.run(), twin.run()
    assert (a.exit_code, b.exit_code) == (55, 55)
    assert m.stats() == twin.stats()
    snap = m.snapshot()
    m.reset()
    m.restore(snap)
    assert m.regs["r1"] == 55


def test_rvnpu_output_and_registers(src):
    m = npukit.Machine("rvnpu")
    m.load(src / "examples/rvnpu/hello.elf")
    stop = m.run()
    assert (stop.reason, stop.exit_code) == ("exit", 0)
    assert m.output == "hello from rvnpu firmware (write)\nhello from rvnpu firmware (puts)\n"
    assert m.regs["a0"] == 0


def test_opennpu_register_file(src):
    # opennpu.s at K = 4, L = 8: VX1 = 3, VX2 = 5, VX3 = 3 + 5 = 8 in every lane; row r lane k
    # is byte r*K + k of rf; VE0 lane 0 = 0x0234: row 0 lane 0 = 0x34 = 52, row 1 lane 0 = 2,
    # lanes 1..3 = 0x0300: row 1 = 3
    m = npukit.Machine("opennpu", K=4, L=8)
    m.load(src / "tests/core/commit/opennpu.s")
    assert m.run().reason == "exit"
    rf = m.read("rf", 0, 16, "i8").tolist()
    assert rf == [52, 0, 0, 0, 2, 3, 3, 3, 5, 5, 5, 5, 8, 8, 8, 8]


def test_tinytpu_cycles_and_unified_buffer(src):
    # tinytpu.s: ub[0] = 2.0, ub[1] = 1.5 from the host, cycle 7 appends psum 0x0300 = 3.0 at
    # ub[2]; cycle 9 (.reset) clears the UB
    m = npukit.Machine("tinytpu")
    m.load(src / "tests/core/commit/tinytpu.s")
    assert m.run(7).reason == "budget"
    assert m.read("ub", 0, 3, "q8.8").tolist() == [2.0, 1.5, 3.0]
    stop = m.run()
    assert stop.reason == "exit" and m.read("ub", 0, 3, "q8.8").tolist() == [0, 0, 0]
    assert m.stats()["instructions"] == 9


def test_pccx_gemv_and_cvo(src):
    # pccx.s: GEMV 6.5, 10.0 at L2 bytes 0x800..; exp(-3.5) -> BF16 0x3CF7, exp(0) = 1.0
    m = npukit.Machine("pccx")
    m.load(src / "tests/core/commit/pccx.s")
    assert m.run().reason == "exit"
    got = m.read("l2", 0x800, 4, "bf16")
    assert got[:2].tolist() == [6.5, 10.0] and got[3] == 1.0
    assert m.read("l2", 0x804, 1, "u16")[0] == 0x3CF7


def test_threads_run_machines_in_parallel(src):
    # the sieve demo (5133 primes below 50000, examples/toy/demo.s) in two machines on two
    # threads gives what one machine alone gives
    prog = (src / "examples/toy/demo.s").read_text()
    ref = npukit.Machine("toy", mem="256K", stats=False)
    ref.load(asm=prog)
    want = ref.run()
    assert (want.reason, ref.output) == ("exit", "5133\n")
    results = [None, None]

    def work(i):
        m = npukit.Machine("toy", mem="256K", stats=False)
        m.load(asm=prog)
        results[i] = (m.run().exit_code, m.output)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=120)
    assert results == [(want.exit_code, ref.output)] * 2


def test_run_releases_the_gil():
    # While one thread runs a long loop, the main thread gets to run Python: it sees the
    # machine busy (RuntimeError), which it only can while the run is inside npk_run with the
    # GIL released (between slices the machine is not busy).
    m = npukit.Machine("toy", stats=False)
    m.load(asm="loop: addi r1, r1, 1\n      jmp loop\n")
    done = threading.Event()
    n = 100_000_000 // int(os.environ.get("NPK_TEST_SLOWDOWN", "1"))
    t = threading.Thread(target=lambda: (m.run(n), done.set()))
    t.start()
    busy_seen = 0
    while not done.wait(0.001):
        try:
            m.regs["r1"]
        except RuntimeError:
            busy_seen += 1
    t.join(timeout=120)
    assert busy_seen > 0
    assert m.regs["r1"] == n // 2  # half of the instructions are addi
