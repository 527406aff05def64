"""Design-space sweeps: a grid or list of (target configuration x program x inputs), each
point run to completion, the results as CSV and JSON lines, plots of chosen metrics
(docs/sweeps.md). Points run in parallel on this machine (a process pool, one worker per core)
or on a Dask distributed cluster; a sweep resumes from its results file.

    npukit sweep SPEC.toml [-o OUT] [--dask ADDRESS] [--jobs N]   (python3 -m npukit sweep)
    npukit.sweep("spec.toml", out="results")                                 (Python)

A point is a pure function of its parameters (run_point), so any scheduler can run it, a
point whose worker is lost runs again elsewhere, and its result is the same wherever it runs.
"""

import argparse
import csv
import hashlib
import itertools
import json
import math
import os
import pathlib
import shlex
import string
import subprocess
import sys
import tempfile
import time
import tomllib

__all__ = ["SpecError", "Spec", "load_spec", "run_point", "sweep", "main"]


class SpecError(ValueError):
    """A sweep specification that cannot be run: the message names the file and the field."""


# ---- the specification --------------------------------------------------------------------

# The most points one specification may make: a grid is the product of its lists, so a slip
# (eight axes of 30 values: 6.6 x 10^11 points) would otherwise build its points until memory
# runs out before anything is said.
MAX_POINTS = 1_000_000

_TOP = {"name", "target", "program", "asm", "config", "grid", "points", "params",
        "max_insns", "inputs", "prepare", "plot", "timeout", "command", "stats"}


class Spec:
    """A parsed sweep specification (see docs/sweeps.md for the fields)."""

    def __init__(self, data, where="<spec>", base=None):
        self.where = where
        self.base = pathlib.Path(base or ".").resolve()
        if not isinstance(data, dict):
            raise SpecError(f"{where}: expected a table of fields")
        for k in data:
            if k not in _TOP:
                raise SpecError(f"{where}: unknown field '{k}' (known: {', '.join(sorted(_TOP))})")
        self.name = self._str(data, "name", default=pathlib.Path(where).stem)
        self.target = self._str(data, "target")
        if self.target is None:
            raise SpecError(f"{where}: target: missing (one of toy, rvnpu, opennpu, tinytpu, pccx)")
        self.program = self._str(data, "program")
        self.asm = self._str(data, "asm")
        self.prepare = data.get("prepare")
        if self.prepare is not None:
            self._check_prepare(self.prepare)
        self.command = data.get("command")
        if self.command is not None and (not isinstance(self.command, list) or not all(
                isinstance(a, str) for a in self.command) or not self.command):
            raise SpecError(f"{where}: command: expected a list of strings (a host program "
                            "and its arguments, with {param} fields)")
        self.stats = self._str(data, "stats")
        if (self.command is None) != (self.stats is None):
            raise SpecError(f"{where}: stats: 'command' and 'stats' (the JSON statistics file "
                            "the command writes) go together")
        if sum(x is not None for x in (self.program, self.asm, self.command)) != 1 and \
                not (self.prepare and "program" in self.prepare):
            raise SpecError(f"{where}: program: give exactly one of 'program' (a file), 'asm' "
                            "(source text), prepare.program or 'command' (a host program "
                            "that runs the machine itself)")
        self.config = self._table(data, "config")
        self.grid = self._table(data, "grid")
        for k, v in self.grid.items():
            if not isinstance(v, list) or not v:
                raise SpecError(f"{where}: grid.{k}: expected a non-empty list of values")
        pts = data.get("points", [])
        if not isinstance(pts, list) or not all(isinstance(p, dict) for p in pts):
            raise SpecError(f"{where}: points: expected a list of tables")
        self.points = pts
        n = len(pts) + (math.prod(len(v) for v in self.grid.values()) if self.grid else 0)
        if n > MAX_POINTS:
            sizes = " x ".join(str(len(v)) for v in self.grid.values()) or "0"
            raise SpecError(f"{where}: grid: {sizes} values and {len(pts)} listed points make "
                            f"{n:,} points, more than the {MAX_POINTS:,} one sweep runs: split "
                            "it into several specifications")
        self.params = data.get("params", [])
        if not isinstance(self.params, list) or not all(isinstance(p, str) for p in self.params):
            raise SpecError(f"{where}: params: expected a list of names")
        self.max_insns = data.get("max_insns", 0)
        if not isinstance(self.max_insns, int) or self.max_insns < 0:
            raise SpecError(f"{where}: max_insns: expected a whole number >= 0")
        self.timeout = data.get("timeout", 0)
        if not isinstance(self.timeout, (int, float)) or self.timeout < 0:
            raise SpecError(f"{where}: timeout: expected seconds >= 0")
        self.inputs = data.get("inputs", [])
        for i, inp in enumerate(self.inputs if isinstance(self.inputs, list) else [None]):
            if not isinstance(inp, dict) or "file" not in inp or \
                    not ({"space", "symbol"} & set(inp)):
                raise SpecError(f"{where}: inputs[{i}]: expected a table with file and space "
                                "(+ addr) or symbol")
        self.plot = data.get("plot", [])
        if isinstance(self.plot, dict):
            self.plot = [self.plot]
        for i, p in enumerate(self.plot):
            if not isinstance(p, dict) or "x" not in p or "y" not in p or \
                    not isinstance(p.get("where", {}), dict):
                raise SpecError(f"{where}: plot[{i}]: expected a table with x and y (and "
                                "optionally series, where, file, title, logx, logy)")

    def _str(self, data, key, default=None):
        v = data.get(key, default)
        if v is not None and not isinstance(v, str):
            raise SpecError(f"{self.where}: {key}: expected a string")
        return v

    def _table(self, data, key):
        v = data.get(key, {})
        if not isinstance(v, dict):
            raise SpecError(f"{self.where}: {key}: expected a table")
        return v

    def _check_prepare(self, p):
        if not isinstance(p, dict) or not isinstance(p.get("command", []), list) or \
                not all(isinstance(a, str) for a in p.get("command", [])):
            raise SpecError(f"{self.where}: prepare.command: expected a list of strings "
                            "(the command and its arguments, with {param} fields)")
        for k in p:
            if k not in ("command", "program", "loads", "templates"):
                raise SpecError(f"{self.where}: prepare.{k}: unknown field (known: command, "
                                "program, loads, templates)")
        for i, t in enumerate(p.get("templates", [])):
            if not isinstance(t, dict) or set(t) != {"file", "to"}:
                raise SpecError(f"{self.where}: prepare.templates[{i}]: expected a table "
                                "{file = TEMPLATE, to = OUTPUT} (${name} in the template is "
                                "a parameter)")

    def expand(self):
        """The points: every combination of the grid, then the explicit list; each a dict of
        parameter values."""
        out = []
        if self.grid:
            keys = list(self.grid)
            for combo in itertools.product(*(self.grid[k] for k in keys)):
                out.append(dict(zip(keys, combo)))
        out += [dict(p) for p in self.points]
        return out or [{}]

    def check(self, jobs):
        """Every distinct machine configuration can be made (one machine each, here, before
        any point runs): a bad setting is a SpecError naming its field."""
        from . import _core

        if self.command:  # the host program makes its machine
            return
        seen = set()
        for job in jobs:
            key = json.dumps(job["config"], sort_keys=True)
            if key in seen:
                continue
            seen.add(key)
            cfg = ",".join(f"{k}={v}" for k, v in job["config"].items())
            try:
                _core.Machine(self.target, cfg).close()
            except _core.NpkError as e:
                msg = str(e)
                field = next((f"grid.{k}" for k in self.grid if f"'{k}'" in msg or
                              f"{k}=" in msg), None) or \
                    next((f"config.{k}" for k in self.config if f"'{k}'" in msg or
                          f"{k}=" in msg), "target")
                raise SpecError(f"{self.where}: {field}: {msg}") from None

    def job(self, params):
        """Everything a worker needs to run one point, as plain data (picklable, JSON-able)."""
        config = dict(self.config)
        for k, v in params.items():
            if k not in self.params:
                config[k] = v
        fields = {"build": os.environ.get("NPUKIT_BUILD_DIR", ""), "spec_dir": str(self.base),
                  **{k: v for k, v in params.items()}}
        def fill(text, field):
            try:
                return text.format(**fields, out="{out}")
            except (KeyError, IndexError, ValueError) as e:
                raise SpecError(f"{self.where}: {field}: cannot fill in {text!r}: "
                                f"no parameter {e}") from None

        job = {"target": self.target, "config": config, "params": params,
               "max_insns": self.max_insns, "timeout": self.timeout, "base": str(self.base),
               "program": fill(self.program, "program") if self.program else None,
               "asm": self.asm,
               "command": [fill(a, "command") for a in self.command] if self.command else None,
               "stats": fill(self.stats, "stats") if self.stats else None,
               "inputs": [{**inp, "file": fill(inp["file"], f"inputs[{i}].file")}
                          for i, inp in enumerate(self.inputs)],
               "prepare": None}
        if self.prepare:
            job["prepare"] = {
                "templates": [{"file": fill(t["file"], f"prepare.templates[{i}].file"),
                               "to": fill(t["to"], f"prepare.templates[{i}].to")}
                              for i, t in enumerate(self.prepare.get("templates", []))],
                "command": [fill(a, "prepare.command") for a in self.prepare.get("command", [])],
                "program": fill(self.prepare.get("program", ""), "prepare.program"),
                "loads": [fill(a, "prepare.loads") for a in self.prepare.get("loads", [])],
            }
        job["id"] = point_id(job)
        return job


def point_id(job):
    """A point's identity: what it runs, not where (stable across runs and machines)."""
    key = {k: job[k] for k in ("target", "config", "params", "max_insns", "program", "asm",
                               "inputs", "prepare", "command")}
    return hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:16]


def load_spec(path):
    """Read a sweep specification from TOML (.toml) or JSON (.json)."""
    path = pathlib.Path(path)
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise SpecError(f"{path}: cannot read: {e.strerror}") from None
    try:
        if path.suffix == ".json":
            data = json.loads(raw)
        else:
            data = tomllib.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise SpecError(f"{path}: {e}") from None
    return Spec(data, where=str(path), base=path.parent)


# ---- one point ----------------------------------------------------------------------------

def _resolve(base, p):
    p = pathlib.Path(p)
    return p if p.is_absolute() else pathlib.Path(base) / p


def run_point(job):
    """Run one point and return its result row (a dict). Never raises: a failure is a row
    with status "error" and the message."""
    t0 = time.perf_counter()
    row = {"id": job["id"], **{f"param.{k}": v for k, v in job["params"].items()}}
    try:
        with tempfile.TemporaryDirectory(prefix="npukit-sweep-") as tmp:
            program, loads = job["program"], []
            out = os.path.join(tmp, "gen")
            if job["prepare"]:
                for t in job["prepare"]["templates"]:
                    text = _resolve(job["base"], t["file"]).read_text()
                    try:
                        text = string.Template(text).substitute(
                            {k: str(v) for k, v in job["params"].items()})
                    except (KeyError, ValueError) as e:
                        raise RuntimeError(f"template {t['file']}: no parameter {e}") from None
                    _resolve(job["base"], t["to"].replace("{out}", out)).write_text(text)
                cmd = [a.replace("{out}", out) for a in job["prepare"]["command"]]
                r = subprocess.run(cmd, cwd=job["base"], capture_output=True, text=True,
                                   timeout=job["timeout"] or None) if cmd else None
                if r is not None and r.returncode != 0:
                    raise RuntimeError(f"prepare command failed ({r.returncode}): "
                                       f"{shlex.join(cmd)}: {r.stderr.strip()[-400:]}")
                program = job["prepare"]["program"].replace("{out}", out) or program
                loads = [s.replace("{out}", out) for s in job["prepare"]["loads"]]
            if job["command"]:
                _run_command(job, out, row)
            else:
                _run_machine(job, program, loads, out, row)
    except Exception as e:  # a point that cannot run is a result too
        row.update(status="error", message=f"{type(e).__name__}: {e}")
    row["host_seconds"] = round(time.perf_counter() - t0, 4)
    row["host"] = os.uname().nodename
    return row


def _stats_fields(row, st):
    """The result columns taken from npukit's statistics JSON (npk_stats_json)."""
    row["config"] = st.get("config", "")
    row["instructions"] = st["instructions"]
    row["cycles"] = st["cycles"]
    for unit, busy in st.get("unit_busy", {}).items():
        row[f"util.{unit}"] = round(busy / st["cycles"], 6) if st["cycles"] else 0.0
    for name, v in st.get("counters", {}).items():
        row[f"counter.{name}"] = v


def _run_machine(job, program, loads, out, row):
    from .machine import Machine  # in the worker

    m = Machine(job["target"], job["config"])
    if program:
        m.load(_resolve(job["base"], program))
    else:
        m.load(asm=job["asm"], name="<spec asm>")
    for s in loads:  # SPACE:ADDR:FILE
        space, addr, f = s.split(":", 2)
        m.write(space, int(addr, 0), _resolve(job["base"], f).read_bytes())
    for inp in job["inputs"]:
        data = _resolve(job["base"], inp["file"].replace("{out}", out)).read_bytes()
        if "symbol" in inp:
            m.write_symbol(inp["symbol"], data)
        else:
            m.write(inp["space"], int(inp.get("addr", 0)), data)
    stop = m.run(job["max_insns"] or None)
    row["status"] = "ok" if stop.reason == "exit" and stop.exit_code == 0 else stop.reason
    row["exit_code"] = stop.exit_code if stop.reason == "exit" else ""
    row["message"] = "" if stop.reason == "exit" else stop.message
    _stats_fields(row, m.stats())
    row["output_sha256"] = hashlib.sha256(m.output_bytes).hexdigest()[:16]
    m.close()


def _run_command(job, out, row):
    """A host program that runs the machine itself (through the C API) and writes npukit's
    statistics JSON to the stats file; its standard output is the point's output."""
    cmd = [a.replace("{out}", out) for a in job["command"]]
    r = subprocess.run(cmd, cwd=job["base"], capture_output=True,
                       timeout=job["timeout"] or None)
    row["status"] = "ok" if r.returncode == 0 else "exit"
    row["exit_code"] = r.returncode
    row["message"] = "" if r.returncode == 0 else \
        r.stderr.decode("utf-8", "replace").strip()[-400:]
    stats = _resolve(job["base"], job["stats"].replace("{out}", out))
    try:
        st = json.loads(stats.read_text())
    except (OSError, ValueError) as e:
        raise RuntimeError(f"{shlex.join(cmd)} (exit {r.returncode}) left no statistics in "
                           f"{stats}: {e}") from None
    _stats_fields(row, st)
    row["output_sha256"] = hashlib.sha256(r.stdout).hexdigest()[:16]


# ---- running many -------------------------------------------------------------------------

class _Progress:
    def __init__(self, total, done, stream):
        self.total, self.done, self.start, self.stream = total, done, time.monotonic(), stream
        self.tty = hasattr(stream, "isatty") and stream.isatty()
        self.first = done
        self.last_line = -1

    def step(self):
        self.done += 1
        ran = self.done - self.first
        left = self.total - self.done
        el = time.monotonic() - self.start
        eta = el / ran * left if ran else 0
        if self.tty:
            w = 30
            fill = int(w * self.done / self.total) if self.total else w
            self.stream.write(f"\r[{'#' * fill}{'.' * (w - fill)}] {self.done}/{self.total} "
                              f"points, ETA {int(eta) // 60}:{int(eta) % 60:02d}  ")
            if self.done == self.total:
                self.stream.write("\n")
        else:
            tenth = self.done * 10 // max(self.total, 1)
            if tenth != self.last_line or self.done == self.total:
                self.last_line = tenth
                self.stream.write(f"sweep: {self.done}/{self.total} points, "
                                  f"ETA {int(eta)} s\n")
        self.stream.flush()


def _read_done(jsonl):
    """The finished points of an earlier run, by id. A line an interruption cut short (or
    any line that is not a result) is dropped from the file, and its point runs again."""
    done, good, cut = {}, [], False
    if jsonl.exists():
        with open(jsonl) as f:
            for line in f:
                try:
                    row = json.loads(line) if line.endswith("\n") else None
                except ValueError:
                    row = None
                if not isinstance(row, dict) or "id" not in row:
                    cut = cut or bool(line.strip())
                    continue
                if row["id"] not in done:
                    done[row["id"]] = row
                    good.append(line)
        if cut:
            tmp = jsonl.with_suffix(".jsonl.tmp")
            tmp.write_text("".join(good))
            tmp.replace(jsonl)
    return done


def _write_csv(path, rows):
    cols = []
    for r in rows:
        for k in r:
            if k not in cols:
                cols.append(k)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, restval="")
        w.writeheader()
        w.writerows(rows)


def _plots(spec, rows, out):
    if not spec.plot:
        return []
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    made = []
    for i, p in enumerate(spec.plot):
        x, y, series = p["x"], p["y"], p.get("series")

        def col(name):
            return name if name in rows[0] else f"param.{name}"

        fig, ax = plt.subplots(figsize=(6, 4))
        groups = {}
        where = p.get("where", {})
        for r in rows:
            if r.get("status") == "error" or any(r.get(col(k)) != v for k, v in where.items()):
                continue
            groups.setdefault(r.get(col(series)) if series else None, []).append(r)
        if not groups:
            plt.close(fig)
            continue
        def order(v):  # numbers in numeric order, then the rest as text
            return (0, v, "") if isinstance(v, (int, float)) else (1, 0, str(v))

        for g, rs in sorted(groups.items(), key=lambda kv: order(kv[0])):
            rs = sorted(rs, key=lambda r: r[col(x)])
            ax.plot([r[col(x)] for r in rs], [r[col(y)] for r in rs], marker="o",
                    label=f"{series}={g}" if series else None)
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        ax.set_title(p.get("title", f"{spec.name}: {y} over {x}"))
        if p.get("logx"):
            ax.set_xscale("log", base=2)
        if p.get("logy"):
            ax.set_yscale("log")
        if series:
            ax.legend()
        ax.grid(True, alpha=0.3)
        name = p.get("file", f"{out.name}-{i}.svg")
        path = out.parent / name
        fig.tight_layout()
        # no creation date in the file: the same results make the same plot
        fig.savefig(path, metadata={"Date": None} if path.suffix == ".svg" else None)
        plt.close(fig)
        made.append(path)
    return made


def sweep(spec, out=None, *, dask=None, jobs=None, progress=None, resume=True):
    """Run every point of spec (a Spec, a path, or a dict) not already in the results, and
    return all result rows in point order. out: the results' path without suffix (OUT.jsonl,
    OUT.csv, plots beside them; default: the spec's name in the current directory). dask: a
    scheduler address or a distributed.Client; None runs a local process pool of jobs
    workers (default: one per core). progress: a stream for the progress bar (default
    stderr; False for none)."""
    if not isinstance(spec, Spec):
        spec = load_spec(spec) if isinstance(spec, (str, os.PathLike)) else Spec(spec)
    out = pathlib.Path(out or spec.name)
    jsonl = out.with_suffix(".jsonl")
    jobs_all = [spec.job(p) for p in spec.expand()]
    ids = [j["id"] for j in jobs_all]
    if len(set(ids)) != len(ids):
        raise SpecError(f"{spec.where}: two points run the same thing (repeated grid values "
                        "or points)")
    spec.check(jobs_all)
    done = _read_done(jsonl) if resume else {}
    if not resume and jsonl.exists():
        jsonl.unlink()
    todo = [j for j in jobs_all if j["id"] not in done]
    prog = None
    if progress is not False and todo:
        prog = _Progress(len(jobs_all), len(jobs_all) - len(todo),
                         progress if progress not in (None, True) else sys.stderr)
    jsonl.parent.mkdir(parents=True, exist_ok=True)
    with open(jsonl, "a") as f:
        def record(row):
            if row["id"] in done:  # a point that ran twice (a lost worker): keep the first
                return
            done[row["id"]] = row
            f.write(json.dumps(row) + "\n")
            f.flush()
            if prog:
                prog.step()

        if todo:
            if dask is not None:
                _run_dask(dask, todo, record)
            else:
                _run_local(todo, record, jobs)
    rows = [done[i] for i in ids]
    _write_csv(out.with_suffix(".csv"), rows)
    _plots(spec, rows, out)
    return rows


def _run_local(todo, record, jobs):
    import concurrent.futures as cf
    import multiprocessing as mp

    n = jobs or os.cpu_count() or 1
    if n == 1:
        for j in todo:
            record(run_point(j))
        return
    with cf.ProcessPoolExecutor(max_workers=n, mp_context=mp.get_context("forkserver")) as ex:
        futs = [ex.submit(run_point, j) for j in todo]
        for fut in cf.as_completed(futs):
            record(fut.result())


def _run_dask(dask, todo, record):
    from distributed import Client, as_completed

    client = dask if isinstance(dask, Client) else Client(dask, timeout="30s")
    try:
        # pure: the same point gets the same key, so a resubmitted point is one task
        futs = client.map(run_point, todo, key=[f"npukit-point-{j['id']}" for j in todo],
                          pure=False, retries=2)
        for fut in as_completed(futs):
            record(fut.result())
    finally:
        if client is not dask:
            client.close()


# ---- command line -------------------------------------------------------------------------

class _Help(argparse.RawDescriptionHelpFormatter):
    """Options as npukit's other commands show them: "-o, --out OUT"."""

    def _format_action_invocation(self, action):
        if not action.option_strings or action.nargs == 0:
            return super()._format_action_invocation(action)
        arg = self._format_args(action, self._get_default_metavar_for_optional(action))
        return ", ".join(action.option_strings) + " " + arg


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="npukit sweep", formatter_class=_Help,
        description="Run every point of a sweep specification (TOML or JSON) and write the\n"
                    "results as OUT.jsonl and OUT.csv, plus the plots the spec asks for\n"
                    "(docs/sweeps.md). Finished points in OUT.jsonl are not run again.",
        epilog="exit status:\n"
               "  0 every point ran (whatever its program's status), 1 points that could not\n"
               "  run (their message is in the results), 2 usage error, 125 a bad sweep\n"
               "  specification, 130 interrupted (run it again to resume)")
    ap.add_argument("spec", help="the sweep specification (.toml or .json)")
    ap.add_argument("-o", "--out", help="results path without suffix (default: the spec's name)")
    ap.add_argument("-j", "--jobs", type=int, help="local worker processes (default: one per core)")
    ap.add_argument("--dask", metavar="ADDRESS", help="run on the Dask scheduler at ADDRESS "
                    "(tcp://HOST:PORT) instead of locally")
    ap.add_argument("--fresh", action="store_true", help="ignore earlier results (start over)")
    ap.add_argument("--list", action="store_true", help="print the points and exit")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    a = ap.parse_args(argv)
    if a.jobs is not None and a.jobs < 1:
        ap.error("--jobs must be at least 1")
    try:
        spec = load_spec(a.spec)
        if a.list:
            for p in spec.expand():
                j = spec.job(p)
                print(j["id"], json.dumps(p, sort_keys=True))
            return 0
        rows = sweep(spec, a.out, dask=a.dask, jobs=a.jobs, progress=False if a.quiet else None,
                     resume=not a.fresh)
    except SpecError as e:
        print(f"npukit sweep: {e}", file=sys.stderr)
        return 125
    except KeyboardInterrupt:
        print("npukit sweep: interrupted; run it again to resume", file=sys.stderr)
        return 130
    out = pathlib.Path(a.out or spec.name)
    bad = [r for r in rows if r.get("status") == "error"]
    print(f"npukit sweep: {len(rows)} points, {len(bad)} failed to run; results in "
          f"{out.with_suffix('.csv')} and {out.with_suffix('.jsonl')}")
    for r in bad[:5]:
        print(f"  {r['id']}: {r.get('message', '')}", file=sys.stderr)
    return 1 if bad else 0


