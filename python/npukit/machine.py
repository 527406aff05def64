"""npukit.Machine: one simulated machine, over npukit._core (docs/python.md)."""

import json
import operator
import os
from collections.abc import MutableMapping

import numpy as np

from . import _core
from .dtypes import canonical, decode, encode, DTYPES


def targets():
    """{name: summary} of every target."""
    return dict(_core.targets())


def config_help(target):
    """The configuration keys and presets of a target, as text (or None)."""
    return _core.config_help(target)


class Stop:
    """How a run or step ended: reason ("exit", "budget", "fault", "breakpoint",
    "watchpoint" or "none" after a step that completed), exit_code (for "exit"), pc,
    message, and insn (the bytes of the instruction at pc, when known)."""

    __slots__ = ("reason", "exit_code", "pc", "message", "insn")

    def __init__(self, reason, exit_code, pc, message, insn):
        self.reason, self.exit_code, self.pc = reason, exit_code, pc
        self.message, self.insn = message, insn

    @property
    def exited(self):
        return self.reason == "exit"

    def __repr__(self):
        extra = f", exit_code={self.exit_code}" if self.reason == "exit" else ""
        msg = f", message={self.message!r}" if self.message else ""
        return f"Stop(reason={self.reason!r}{extra}, pc={self.pc:#x}{msg})"


class Effect:
    """One effect of a committed instruction: kind "reg" (name, bits, value), "mem" (name =
    the space, addr, size, data: the bytes written) or "trap" (name = the cause, value =
    the cause code, addr = the trap value)."""

    __slots__ = ("kind", "name", "bits", "addr", "size", "value", "data")

    def __init__(self, kind, name, bits, addr, size, value, data):
        self.kind, self.name, self.bits, self.addr = kind, name, bits, addr
        self.size, self.value, self.data = size, value, data

    def __repr__(self):
        if self.kind == "reg":
            return f"Effect(reg {self.name}={self.value:#x})"
        if self.kind == "mem":
            return f"Effect(mem {self.name}[{self.addr:#x}] <- {self.data.hex()})"
        return f"Effect(trap {self.name!r} cause={self.value} tval={self.addr:#x})"


class Commit:
    """The record of one committed instruction (docs/commit-log.md): seq, cycle, pc, word
    (its bytes), retired, effects (a list of Effect)."""

    __slots__ = ("seq", "cycle", "pc", "word", "retired", "effects")

    def __init__(self, seq, cycle, pc, word, retired, effects):
        self.seq, self.cycle, self.pc, self.word = seq, cycle, pc, word
        self.retired = bool(retired)
        self.effects = [Effect(*e) for e in effects]

    def __repr__(self):
        return (f"Commit(seq={self.seq}, cycle={self.cycle}, pc={self.pc:#x}, "
                f"word={self.word.hex()}, effects={self.effects})")


def _whole(x, what):
    """x as an int if it is a whole number type (int, NumPy integer, anything with
    __index__); a float or a string is a TypeError, never rounded or parsed."""
    try:
        return operator.index(x)
    except TypeError:
        raise TypeError(f"npukit: {what} must be an integer, not {type(x).__name__} "
                        f"{x!r}") from None


class Registers(MutableMapping):
    """The machine's registers by name (case-insensitive), as ints of their width; f32
    registers also as floats with .float(name). Writing checks that the value fits."""

    def __init__(self, core):
        self._core = core
        self._info = {r[0].lower(): r for r in core.regs()}

    def __getitem__(self, name):
        self._find(name)
        return self._core.reg_read(name)

    def __setitem__(self, name, value):
        self._find(name)
        self._core.reg_write(name, _whole(value, f"the value of register {name}"))

    def __delitem__(self, name):
        raise TypeError("npukit: registers cannot be deleted")

    def __iter__(self):
        return iter(r[0] for r in self._info.values())

    def __len__(self):
        return len(self._info)

    def __contains__(self, name):
        return isinstance(name, str) and name.lower() in self._info

    def _find(self, name):
        if not isinstance(name, str) or name.lower() not in self._info:
            raise KeyError(name)
        return self._info[name.lower()]

    def bits(self, name):
        return self._find(name)[1]

    def float(self, name):
        """A 32-bit register's bits as the binary32 value they encode."""
        r = self._find(name)
        if r[1] != 32:
            raise ValueError(f"npukit: {r[0]} is {r[1]} bits, not a binary32 register")
        return float(np.array([self._core.reg_read(name)], dtype="<u4").view("<f4")[0])

    def __repr__(self):
        return "Registers({" + ", ".join(f"{n!r}: {self[n]:#x}" for n in self) + "})"


def _spec(target, config, kw):
    parts = []
    if isinstance(config, dict):
        kw = {**config, **kw}
    elif config:
        parts.append(str(config))
    parts += [f"{k}={v}" for k, v in kw.items()]
    return target, ",".join(parts)


class Machine:
    """Machine(target, config=None, *, output="capture", stats=True, **settings)

    target is a target name, optionally with a preset ("pccx:kv260"); config a string
    "key=value,..." or a dict, and further settings may be keywords (Machine("rvnpu",
    ram="1M")). output="capture" keeps the guest's output (read .output / .errors),
    "pass" writes it to the process's stdout and stderr. stats=False runs the fast loop
    without statistics."""

    def __init__(self, target, config=None, *, output="capture", stats=True, **settings):
        spec, cfg = _spec(target, config, settings)
        self._core = _core.Machine(spec, cfg)
        self._output_mode = output
        self._core.set_output(output)
        self._out = bytearray()
        self._err = bytearray()
        self._stats = bool(stats)
        self._core.stats_enable(self._stats)
        self._on_commit = None
        self.regs = Registers(self._core)

    # -- identity -------------------------------------------------------------------------
    @property
    def target(self):
        return self._core.target

    @property
    def config(self):
        return self._core.config

    def __repr__(self):
        return f"npukit.Machine({self.target!r}, {self.config!r})"

    def close(self):
        self._core.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    # -- loading --------------------------------------------------------------------------
    def load(self, program=None, *, asm=None, name=None):
        """Load a program: a path (str or os.PathLike: ELF, assembly source or image, as
        `npukit run` takes), bytes (the same contents), or asm="source text". Returns the
        loader's warnings as text ("" when none)."""
        if asm is not None:
            if program is not None:
                raise TypeError("npukit: load() takes a program or asm=, not both")
            r = self._core.load_asm(asm, name or "<asm>")
        elif isinstance(program, (bytes, bytearray, memoryview)):
            r = self._core.load_bytes(program, name or "<bytes>")
        elif isinstance(program, (str, os.PathLike)):
            r = self._core.load_file(os.fspath(program))
        else:
            raise TypeError("npukit: load() takes a path, bytes or asm=\"...\"")
        self.regs = Registers(self._core)
        return r

    # -- running --------------------------------------------------------------------------
    def _collect(self):
        out, err = self._core.take_output()
        self._out += out
        self._err += err

    def run(self, max_insns=None):
        """Run until the program stops, or until max_insns instructions (tinytpu: cycles)
        have retired; returns a Stop. The GIL is released while it runs; Ctrl-C stops it
        (KeyboardInterrupt, the machine stays usable)."""
        try:
            return Stop(*self._core.run(_whole(max_insns or 0, "max_insns")))
        finally:
            self._collect()

    def step(self):
        """Run one instruction (tinytpu: one cycle); returns a Stop (reason "none" when it
        completed)."""
        try:
            return Stop(*self._core.step())
        finally:
            self._collect()

    def reset(self):
        self._core.reset()

    @property
    def output(self):
        """Everything the guest wrote to its standard output so far (with output="capture")."""
        return self._out.decode("utf-8", "replace")

    @property
    def output_bytes(self):
        return bytes(self._out)

    @property
    def errors(self):
        """What the guest wrote to its standard error so far."""
        return self._err.decode("utf-8", "replace")

    def clear_output(self):
        self._out.clear()
        self._err.clear()

    # -- memory ---------------------------------------------------------------------------
    @property
    def spaces(self):
        """{name: (size in bytes, summary)} of the target's memory spaces."""
        return {n: (size, summary) for n, size, summary in self._core.spaces()}

    def mem(self, space=None):
        """The bytes of a space as a read-only uint8 NumPy array: zero-copy where the target
        keeps the space in one block (it follows the machine as it runs), else a copy.
        While zero-copy arrays exist the machine refuses load/reset/restore (BufferError).
        Write with write()."""
        space = space or self._core.spaces()[0][0]
        buf = self._core.space_buffer(space)
        if buf is None:
            size = self.spaces[space][0] if space in self.spaces else None
            if size is None:  # case-insensitive match
                size = {k.lower(): v for k, v in self.spaces.items()}[space.lower()][0]
            a = np.frombuffer(self._core.mem_read(space, 0, size), dtype=np.uint8)
        else:
            a = np.frombuffer(buf, dtype=np.uint8)
        a.flags.writeable = False
        return a

    def read(self, space, addr, count, dtype="u8"):
        """count elements of dtype (i8 u8 i16 u16 i32 u32 f32 bf16 q8.8 e4m3 e5m2, or a NumPy
        integer/float32 dtype) at byte address addr of space, as a NumPy array (the narrow
        float types as exact float32)."""
        name = canonical(dtype)
        raw = self._core.mem_read(space, _whole(addr, "addr"),
                                  _whole(count, "count") * DTYPES[name][0])
        return decode(raw, name)

    def write(self, space, addr, values, dtype=None):
        """Write numbers as dtype at byte address addr of space (dtype None: a NumPy array's
        own dtype, else u8 for bytes). Values the type cannot hold are a ValueError and
        nothing is written."""
        if dtype is None:
            if isinstance(values, (bytes, bytearray, memoryview)):
                self._core.mem_write(space, _whole(addr, "addr"), bytes(values))
                return
            dtype = np.asarray(values).dtype
        self._core.mem_write(space, _whole(addr, "addr"), encode(values, dtype))

    # -- symbols --------------------------------------------------------------------------
    def symbol(self, name):
        """The address of a symbol (ELF symbol or assembly label)."""
        return self._core.symbol(name)[0]

    def symbol_size(self, name):
        return self._core.symbol(name)[1]

    def _symbol_space(self):
        return self._core.spaces()[0][0]

    def read_symbol(self, name, dtype="u8", count=None, space=None):
        """The data at a symbol as a NumPy array of dtype (count elements, default: the
        symbol's size)."""
        name_t = canonical(dtype)
        addr, size = self._core.symbol(name)
        if count is None:
            count = size // DTYPES[name_t][0]
        return self.read(space or self._symbol_space(), addr, count, name_t)

    def write_symbol(self, name, values, dtype=None):
        """Write values at a symbol; more bytes than the symbol's size is an error."""
        if dtype is None and isinstance(values, (bytes, bytearray, memoryview)):
            data = bytes(values)
        else:
            data = encode(values, dtype if dtype is not None else np.asarray(values).dtype)
        self._core.write_symbol(name, data)

    # -- statistics and timeline ---------------------------------------------------------
    def stats(self):
        """The statistics so far as a dict (the JSON of `npukit run --stats-json`)."""
        return json.loads(self._core.stats_json())

    def timeline(self, path):
        """Write a Chrome trace-event timeline of the following runs to path (None: close
        it)."""
        if path is None:
            self._core.timeline_close()
        else:
            self._core.timeline_open(os.fspath(path))

    def disasm(self, word, pc=0):
        """The disassembly of one instruction word (bytes, or an int of the word's width)."""
        if isinstance(word, int):
            word = word.to_bytes(self._core.insn_bytes, "little")
        return self._core.disasm(bytes(word), _whole(pc, "pc"))

    # -- commit records, snapshots, breakpoints ------------------------------------------
    def on_commit(self, fn):
        """Call fn(Commit) for every committed instruction of the following runs (None: stop).
        An exception in fn stops the run at the end of its slice (at most 2^22
        instructions later) and is raised from run()."""
        if fn is None:
            self._core.set_on_commit(None)
        else:
            self._core.set_on_commit(lambda rec: fn(Commit(*rec)))
        self._on_commit = fn

    def snapshot(self):
        """The whole machine as bytes (docs/snapshot.md)."""
        return self._core.snapshot()

    def restore(self, data):
        """Restore a snapshot of a machine of the same target and configuration."""
        self._core.restore(bytes(data))

    @classmethod
    def from_snapshot(cls, data, *, output="capture", stats=True):
        """A new machine in the state a snapshot holds."""
        target, config = _core.snapshot_info(bytes(data))
        m = cls(target, config, output=output, stats=stats)
        m.restore(data)
        return m

    def __reduce__(self):
        return (_unpickle, (self.snapshot(), self._output_mode, self._stats,
                            bytes(self._out), bytes(self._err)))

    def add_breakpoint(self, pc):
        self._core.break_add(_whole(pc, "pc"))

    def remove_breakpoint(self, pc):
        self._core.break_remove(_whole(pc, "pc"))

    def add_watchpoint(self, space, addr, length, mode="w"):
        """Stop after an instruction that reads ("r"), writes ("w") or either ("rw") a byte
        of [addr, addr+length) of space; returns its id."""
        return self._core.watch_add(space, _whole(addr, "addr"), _whole(length, "length"), mode)

    def remove_watchpoint(self, wid):
        self._core.watch_remove(_whole(wid, "the watchpoint id"))


def _unpickle(snap, output, stats, out, err):
    m = Machine.from_snapshot(snap, output=output, stats=stats)
    m._out += out
    m._err += err
    return m
