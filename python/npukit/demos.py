"""Each target's `npukit demo` program, run from Python: the same programs and checks as the
command's demos (src/cli/cmd_demo.c), driven through this package instead of the C API.

    import npukit.demos
    r = npukit.demos.run("opennpu")        # prints the report; r: the figures as a dict
    npukit.demos.run("pccx", out=None)      # quiet

or `python3 -m npukit demo [NAME...]`. Names: toy, rvnpu, opennpu, tinytpu, pccx. A demo
whose results are not the expected ones raises DemoError. The programs' files (the toy sieve,
the rvnpu GEMM firmware, the tinytpu XOR description, the pccx language model's weights) are
in the package's data/ directory, put there by the build and by `make install`; NPUKIT_DATA_DIR
names another directory holding them.
"""

import os
import sys

import numpy as np

from .machine import Machine

DEMOS = {
    "toy": "sieve of Eratosthenes below 50000, 8 times, then the prime count",
    "rvnpu": "int8 GEMM 32x32x32, plain RV32IM C against the NPU's vector MAC",
    "opennpu": "int8 GEMM 128x128x128 tiled onto the 8x8 MMA array, ticks against the bound",
    "tinytpu": "XOR trained on the 2x2 systolic array: compiled schedule, cycle-exact run",
    "pccx": "a tiny Gemma-shaped language model generating text on the LLM NPU",
}


class DemoError(RuntimeError):
    """A demo's results are not the expected ones (or its files are missing)."""


def data_path(name):
    """The path of a demo file: NPUKIT_DATA_DIR/name, else the package's data/name."""
    for d in (os.environ.get("NPUKIT_DATA_DIR"), os.path.join(os.path.dirname(__file__), "data")):
        if d and os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    raise DemoError(f"npukit: demo file {name} not found in the package's data/ directory (the "
                    "build and `make install` put it there; pip installs over a build tree do "
                    "not: set NPUKIT_DATA_DIR to a directory holding it)")


def _say(out, *lines):
    if out is not None:
        for line in lines:
            print(line, file=out)


def _stats_lines(s):
    """The instruction count, cycles and top of the mix, as the command prints them."""
    insns, cycles = s["instructions"], s["cycles"]
    mix = sorted(s["mnemonics"].items(), key=lambda kv: -kv[1])[:6]
    cpi = f" (CPI {cycles / insns:.2f})" if insns else ""
    return [f"  {insns} instructions retired in {cycles} cycles{cpi}",
            "  mix: " + ", ".join(f"{k} {100.0 * v / insns:.1f}%" for k, v in mix if insns)]


def toy(out=sys.stdout):
    m = Machine("toy", mem="256K")
    m.load(data_path("demo.s"))
    stop = m.run()
    s = m.stats()
    _say(out, m.output.rstrip("\n"), *_stats_lines(s))
    if not stop.exited or m.output != "5133\n":
        raise DemoError(f"toy: unexpected output {m.output!r} ({stop}); expected 5133")
    _say(out, "  output as expected (5133 primes below 50000)")
    return {"output": m.output, "instructions": s["instructions"], "cycles": s["cycles"]}


def rvnpu(out=sys.stdout):
    runs = {}
    for build, elf in (("plain", "gemm_i8.elf"), ("npu", "gemm_i8_npu.elf")):
        m = Machine("rvnpu")
        m.load(data_path(elf))
        stop = m.run()
        s = m.stats()
        if not stop.exited or stop.exit_code != 0:
            raise DemoError(f"rvnpu: the {build} build stopped: {stop}")
        runs[build] = (m.output, s)
        _say(out, "  plain RV32IM build:" if build == "plain" else
             "  NPU build (npu.vmac per output element):", "  " + m.output.rstrip("\n"),
             *_stats_lines(s))
    (po, ps), (no, ns) = runs["plain"], runs["npu"]
    npu = sum(v for k, v in ns["mnemonics"].items() if k.startswith("npu."))
    _say(out, f"  NPU instructions: {npu} of {ns['instructions']} retired",
         f"  NPU vs plain: {ps['instructions'] / ns['instructions']:.1f}x fewer instructions, "
         f"{ps['cycles'] / ns['cycles']:.1f}x fewer cycles")
    if po != no or not po.startswith("gemm checksum 0x"):
        raise DemoError(f"rvnpu: the two builds printed different results: {po!r}, {no!r}")
    _say(out, "  outputs identical")
    return {"output": po, "plain": {"instructions": ps["instructions"], "cycles": ps["cycles"]},
            "npu": {"instructions": ns["instructions"], "cycles": ns["cycles"],
                    "npu_instructions": npu}}


def opennpu(out=sys.stdout, dim=128):
    from . import opennpu as onpu
    rng = np.random.default_rng(0x2545F4914F6CDD1D)
    A = rng.integers(-128, 128, (dim, dim), dtype=np.int8)
    B = rng.integers(-128, 128, (dim, dim), dtype=np.int8)
    r = onpu.gemm(A, B)
    ref = A.astype(np.int64) @ B.astype(np.int64)
    ok = bool((r.C == ref).all())
    c = r.stats["counters"]
    _say(out, f"  {r.instructions} instructions for {r.plan.layout['tiles_m'] * r.plan.layout['tiles_n']}"
              f" tiles of 8x8; A, B random int8 (NumPy)",
         f"  C = A * B: {'all int32 results equal NumPy' if ok else 'results DIFFER from NumPy'}"
         f" (C[0][0] = {r.C[0, 0]}, C[{dim - 1}][{dim - 1}] = {r.C[-1, -1]})",
         f"  {r.ticks} ticks; no schedule the single-issue ISA allows takes fewer than {r.bound}: "
         f"{100.0 * (r.ticks / r.bound - 1):.1f} % above that bound",
         f"  MMA array utilisation {c['mma_util_permille']} per mille: a new operand pair on "
         f"{c['mma_feeds']} of {r.ticks} ticks")
    if not ok:
        raise DemoError("opennpu: C differs from NumPy's A @ B")
    return {"instructions": r.instructions, "ticks": r.ticks, "bound": r.bound,
            "mma_util_permille": c["mma_util_permille"]}


def tinytpu(out=sys.stdout):
    from . import tinytpu as tt
    import pathlib
    c = tt.compile(pathlib.Path(data_path("xor_train.net")), name="xor_train.net")
    m = c.machine()
    stop = m.run()
    if not stop.exited:
        raise DemoError(f"tinytpu: the program stopped early: {stop}")
    ub = m.read("ub", 0, len(c.ub), "i16")
    bad = int((ub != c.ub).sum())
    h = c.read(m, "H2", step="eval")[:, 0]                   # the evaluation pass's outputs
    x = c.read(m, "X")                                          # host-loaded inputs and targets
    y = c.read(m, "Y")[:, 0]
    right = int(((h > 0.5) == (y > 0.5)).sum())
    _say(out, f"  program: {c.cycles} cycles = {c.load_cycles} reset + host load, "
              f"{c.step_cycles} per training step, then a forward pass; {len(c.ub)} UB words",
         "  loss (mean squared error): " + ", ".join(
             f"step {i + 1} {c.loss[i]:.3f}" for i in range(0, c.steps, max(c.steps // 5, 1)))
         + f", after {c.steps} {c.eval_loss:.3f}")
    for b in range(len(h)):
        _say(out, f"  x = ({x[b, 0]:g}, {x[b, 1]:g}): the machine computes {h[b]:.3f}, "
                  f"target {y[b]:g}")
    _say(out, f"  {right} of {len(h)} XOR cases right; " +
         ("every UB word the program writes equals the compiler's Q8.8 prediction" if not bad
          else f"{bad} UB words DIFFER from the compiler's prediction"),
         *_stats_lines(m.stats()))
    if bad or right != len(h):
        raise DemoError(f"tinytpu: {bad} UB words differ, {right} of {len(h)} cases right")
    return {"cycles": c.cycles, "outputs": h, "right": right, "eval_loss": c.eval_loss}


def pccx(out=sys.stdout, tokens=24):
    from . import tinylm
    prompt = b"The meaning of life is "
    model = tinylm.load(data_path("tinylm.bin"))
    g = tinylm.generate(model, prompt, tokens)
    ref = tinylm.reference(model, prompt, tokens).text
    same = 0
    while same < tokens and g.text[len(prompt) + same] == ref[len(prompt) + same]:
        same += 1
    show = lambda t: "".join(chr(b) if 32 <= b < 127 else "?" for b in t)
    busy = " ".join(f"{k} {100 * v:.0f}%" for k, v in g.engine_busy.items())
    _say(out, f"  NPU:       \"{show(g.text)}\"",
         f"  reference: \"{show(ref)}\"   (binary64 NumPy model of the same INT4 weights)",
         f"  {same} of {tokens} generated bytes equal the reference's greedy choice",
         f"  timing model: {g.cycles_per_token:.0f} cycles per generated token",
         f"  {g.insns} instructions, {g.cycles} cycles; engine busy: {busy}",
         "  INT4 weights streamed over HP0-HP3: " + " / ".join(map(str, g.hp_bytes)) + " bytes")
    if same < 8:       # the first bytes have clear margins (examples/pccx/llm: pccx_tinylm)
        raise DemoError(f"pccx: only {same} generated bytes equal the reference's")
    return {"text": bytes(g.text), "reference": bytes(ref), "same": same,
            "instructions": g.insns, "cycles": g.cycles}


_RUN = {"toy": toy, "rvnpu": rvnpu, "opennpu": opennpu, "tinytpu": tinytpu, "pccx": pccx}


def run(name, out=sys.stdout):
    """Run one demo by name, printing its report to out (None: quiet); returns its figures."""
    if name not in _RUN:
        raise ValueError(f"npukit: no demo {name!r} (demos: {', '.join(DEMOS)})")
    _say(out, f"== {name}: {DEMOS[name]}")
    return _RUN[name](out)


def main(argv=None):
    """python3 -m npukit demo [NAME...]: every demo, or the named ones; status 1 when one
    fails, 2 for an unknown name."""
    names = list(argv if argv is not None else sys.argv[1:]) or list(DEMOS)
    if names[0] in ("-h", "--help"):
        print("usage: python3 -m npukit demo [NAME...]\n\nRun each target's demo program from "
              "Python (npukit.demos).\n\ndemos:")
        for k, v in DEMOS.items():
            print(f"  {k:<9} {v}")
        return 0
    unknown = [n for n in names if n not in DEMOS]
    if unknown:
        print(f"npukit demo: no demo {unknown[0]!r} (demos: {', '.join(DEMOS)})",
              file=sys.stderr)
        return 2
    failed = 0
    for n in names:
        try:
            run(n)
        except DemoError as e:
            print(f"npukit demo: {e}", file=sys.stderr)
            failed += 1
        print()
    print(f"npukit demo: {len(names) - failed} of {len(names)} demos ran as expected")
    return 1 if failed else 0
