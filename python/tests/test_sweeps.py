"""Sweeps (npukit.sweep, npukit sweep): local pool, resume, spec errors, and a Dask cluster
started here (scheduler and two workers on 127.0.0.1), with one worker killed mid-sweep."""
import json
import os
import pathlib
import signal
import subprocess
import sys
import threading
import time

import pytest

import npukit
from npukit.sweeps import Spec, SpecError, main

HOST_FIELDS = ("host_seconds", "host")


def strip(rows):
    return [{k: v for k, v in r.items() if k not in HOST_FIELDS} for r in rows]


def rv_spec(src, **grid):
    return {"name": "rv", "target": "rvnpu", "program": str(src / "examples/rvnpu/hello.elf"),
            "grid": grid or {"lat_load": [2, 5], "lat_mul": [1, 3]},
            "plot": [{"x": "lat_load", "y": "cycles", "series": "lat_mul", "file": "rv.png"}]}


def test_local_sweep_values_and_outputs(src, tmp_path):
    rows = npukit.sweep(rv_spec(src), out=tmp_path / "r", progress=False, jobs=2)
    assert [(r["param.lat_load"], r["param.lat_mul"]) for r in rows] == \
        [(2, 1), (2, 3), (5, 1), (5, 3)]  # grid order: the last key varies fastest
    assert all(r["status"] == "ok" and r["exit_code"] == 0 for r in rows)
    # hello.elf retires the same instructions at every point; each of its loads takes
    # lat_load cycles, so 3 more cycles per load from lat_load 2 to 5; it multiplies nothing
    assert len({r["instructions"] for r in rows}) == 1
    loads = rows[0]["counter.loads"]
    assert loads > 0
    assert rows[2]["cycles"] - rows[0]["cycles"] == 3 * loads
    assert rows[1]["cycles"] == rows[0]["cycles"]
    # the guest output is the same everywhere: one digest
    assert len({r["output_sha256"] for r in rows}) == 1
    lines = (tmp_path / "r.jsonl").read_text().splitlines()
    assert sorted(json.loads(l)["id"] for l in lines) == sorted(r["id"] for r in rows)
    csv = (tmp_path / "r.csv").read_text().splitlines()
    assert len(csv) == 5 and csv[0].startswith("id,param.lat_load,param.lat_mul,status")
    png = (tmp_path / "rv.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 5000
    # one worker gives the same results as two
    again = npukit.sweep(rv_spec(src), out=tmp_path / "one", progress=False, jobs=1)
    assert strip(again) == strip(rows)


def test_resume_runs_nothing_finished(src, tmp_path):
    out = tmp_path / "r"
    first = npukit.sweep(rv_spec(src), out=out, progress=False, jobs=1)
    jsonl = out.with_suffix(".jsonl")
    lines = jsonl.read_text().splitlines()
    # as if interrupted while writing the third result: two whole lines, half a line
    jsonl.write_text("\n".join(lines[:2]) + "\n" + lines[2][:20])
    second = npukit.sweep(rv_spec(src), out=out, progress=False, jobs=1)
    assert strip(second) == strip(first)
    # the two finished points were not run again: their rows (host time included) are the
    # first run's, read back from the file
    kept = {json.loads(l)["id"]: json.loads(l) for l in lines[:2]}
    for r in second:
        if r["id"] in kept:
            assert r == kept[r["id"]]
    # the cut line is gone, the two missing points were appended once each
    ids = [json.loads(l)["id"] for l in jsonl.read_text().splitlines()]
    assert ids[:2] == list(kept) and len(ids) == 4
    assert sorted(ids[2:]) == sorted(r["id"] for r in second if r["id"] not in kept)


@pytest.mark.parametrize("spec,field", [
    ({"target": "toy"}, "program"),
    ({"program": "x.s"}, "target"),
    ({"target": "toy", "asm": "halt", "grid": {"mem": 5}}, "grid.mem"),
    ({"target": "toy", "asm": "halt", "colour": 1}, "unknown field 'colour'"),
    ({"target": "toy", "asm": "halt", "grid": {"lat_mul": [1]}}, "grid.lat_mul: toy: unknown setting"),
    ({"target": "toy", "asm": "halt", "config": {"mem": "3"}}, "config.mem"),
    ({"target": "toy", "asm": "halt", "prepare": {"command": "make"}}, "prepare.command"),
    ({"target": "toy", "asm": "halt", "inputs": [{"file": "x"}]}, "inputs[0]"),
    ({"target": "toy", "asm": "halt", "plot": {"x": "mem"}}, "plot[0]"),
    # 30^8 points: refused at once (it built points until memory ran out)
    ({"target": "toy", "asm": "halt", "grid": {f"k{i}": list(range(30)) for i in range(8)}},
     "grid: 30 x 30 x 30 x 30 x 30 x 30 x 30 x 30 values and 0 listed points make "
     "656,100,000,000 points, more than the 1,000,000 one sweep runs"),
])
def test_bad_spec_names_the_field(spec, field, tmp_path):
    with pytest.raises(SpecError, match=field.replace("[", r"\[").replace("]", r"\]")):
        npukit.sweep(spec, out=tmp_path / "r", progress=False)


def test_prepare_template_fills_parameters(tmp_path):
    # the template is a toy program whose exit status is the parameter: li r1, ${v}; exit r1
    (tmp_path / "prog.s.in").write_text("li r1, ${v}\nexit r1\n")
    spec = {"target": "toy", "params": ["v"], "grid": {"v": [3, 7]},
            "prepare": {"templates": [{"file": "prog.s.in", "to": "{out}.s"}],
                        "program": "{out}.s"}}
    s = Spec(spec, where="t.toml", base=tmp_path)
    rows = npukit.sweep(s, out=tmp_path / "t", progress=False, jobs=1)
    assert [(r["param.v"], r["exit_code"]) for r in rows] == [(3, 3), (7, 7)]
    bad = Spec({**spec, "params": ["w"], "grid": {"w": [1]}}, where="t.toml", base=tmp_path)
    (row,) = npukit.sweep(bad, out=tmp_path / "b", progress=False, jobs=1)
    assert row["status"] == "error" and "no parameter 'v'" in row["message"]


def test_command_points(src, tmp_path):
    # a host program that runs the machine itself: here `npukit run`, whose statistics JSON
    # the sweep reads; sum.s exits with 55 after 34 instructions (examples/toy/sum.s)
    build = os.environ.get("NPUKIT_BUILD_DIR")
    if not build or not pathlib.Path(build, "npukit").exists():
        pytest.skip("no build tree (NPUKIT_BUILD_DIR)")
    spec = {"target": "toy", "params": ["mem"], "grid": {"mem": ["64K", "128K"]},
            # env -u LD_PRELOAD: in the sanitizer build python3 runs with the shared ASan
            # runtime preloaded, which the (statically sanitized) npukit must not inherit
            "command": ["env", "-u", "LD_PRELOAD", "{build}/npukit", "run", "-t",
                        "toy:mem={mem}", "--stats=json",
                        "--stats-output", "{out}.json", str(src / "examples/toy/sum.s")],
            "stats": "{out}.json"}
    rows = npukit.sweep(spec, out=tmp_path / "c", progress=False, jobs=1)
    assert [(r["status"], r["exit_code"], r["instructions"]) for r in rows] == [("exit", 55, 34)] * 2
    assert [r["config"] for r in rows] == ["mem=65536", "mem=131072"]
    # a command that leaves no statistics is a point that could not run
    (row,) = npukit.sweep({**spec, "grid": {"mem": ["64K"]}, "stats": "{out}.none"},
                          out=tmp_path / "d", progress=False, jobs=1)
    assert row["status"] == "error" and "left no statistics" in row["message"]
    with pytest.raises(SpecError, match="stats"):
        npukit.sweep({k: v for k, v in spec.items() if k != "stats"}, out=tmp_path / "e",
                     progress=False)


def test_cli_exit_status_and_messages(src, tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('target = "toy"\nasm = "halt"\n[grid]\nmem = 3\n')
    assert main([str(bad)]) == 125
    assert "bad.toml: grid.mem: expected a non-empty list" in capsys.readouterr().err
    broken = tmp_path / "broken.toml"
    broken.write_text('target = "toy\n')
    assert main([str(broken)]) == 125
    assert "broken.toml:" in capsys.readouterr().err
    good = tmp_path / "good.toml"
    good.write_text(f'target = "toy"\nprogram = "{src}/examples/toy/sum.s"\n'
                    '[grid]\nmem = ["64K", "128K"]\n')
    assert main([str(good), "-o", str(tmp_path / "g"), "-q", "-j", "1"]) == 0
    rows = [json.loads(l) for l in (tmp_path / "g.jsonl").read_text().splitlines()]
    assert [r["exit_code"] for r in rows] == [55, 55]  # sum.s: 1 + ... + 10 (status != 0)
    assert [r["status"] for r in rows] == ["exit", "exit"]


# ---- Dask ------------------------------------------------------------------------------

def _start(cmd, log):
    return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


@pytest.fixture
def dask_cluster(tmp_path):
    """A scheduler and two single-threaded workers (no nanny, so a killed worker stays dead),
    all on 127.0.0.1, stopped at the end."""
    pytest.importorskip("distributed")
    sched_file = tmp_path / "scheduler.json"
    procs, logs = [], []

    def log(name):
        f = open(tmp_path / f"{name}.log", "w")
        logs.append(f)
        return f

    py = sys.executable
    procs.append(_start([py, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                         "--port", "0", "--dashboard-address", "127.0.0.1:0", "--no-show",
                         "--scheduler-file", str(sched_file)], log("scheduler")))
    deadline = time.monotonic() + 60
    while not sched_file.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert sched_file.exists(), (tmp_path / "scheduler.log").read_text()
    address = json.loads(sched_file.read_text())["address"]
    workers = []
    for i in range(2):
        workers.append(_start([py, "-m", "distributed.cli.dask_worker", address, "--host",
                               "127.0.0.1", "--nthreads", "1", "--no-nanny",
                               "--dashboard-address", "127.0.0.1:0", "--name", f"w{i}"],
                              log(f"worker{i}")))
    procs += workers
    from distributed import Client
    client = Client(address, timeout="30s")
    client.wait_for_workers(2, timeout=60)
    try:
        yield address, client, workers
    finally:
        client.close()
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(timeout=20)
        for f in logs:
            f.close()


# instructions per point of the slow sweep: 3 x 10^7 (about 0.15 s each), divided by the
# slowdown of a sanitizer build (NPK_TEST_SLOWDOWN, set by python/CMakeLists.txt there)
SLOW_INSNS = 30_000_000 // int(os.environ.get("NPK_TEST_SLOWDOWN", "1"))


def slow_spec():
    # 12 points of a toy loop stopped by the budget (status "budget"), different memories
    return {"name": "slow", "target": "toy", "max_insns": SLOW_INSNS,
            "asm": "loop: addi r1, r1, 1\n      jmp loop\n",
            "grid": {"mem": [65536 + 4 * i for i in range(12)]}}


def test_dask_equals_local_and_survives_a_lost_worker(src, tmp_path, dask_cluster):
    address, client, workers = dask_cluster
    # the same sweep on Dask and locally: the same results
    d = npukit.sweep(rv_spec(src), out=tmp_path / "d", dask=address, progress=False)
    local = npukit.sweep(rv_spec(src), out=tmp_path / "l", progress=False, jobs=1)
    assert strip(d) == strip(local)

    out = tmp_path / "s"
    result = {}
    t = threading.Thread(target=lambda: result.update(
        rows=npukit.sweep(slow_spec(), out=out, dask=client, progress=False)))
    t.start()
    jsonl = out.with_suffix(".jsonl")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and t.is_alive():
        if jsonl.exists() and len(jsonl.read_text().splitlines()) >= 2:
            break
        time.sleep(0.02)
    written = len(jsonl.read_text().splitlines()) if jsonl.exists() else 0
    assert t.is_alive() and 2 <= written < 12, written  # mid-sweep
    os.killpg(workers[0].pid, signal.SIGKILL)  # a worker lost mid-sweep
    workers[0].wait(timeout=20)
    t.join(timeout=300)
    assert not t.is_alive()
    rows = result["rows"]
    ids = [json.loads(l)["id"] for l in jsonl.read_text().splitlines()]
    assert len(ids) == 12 and sorted(ids) == sorted(set(ids))  # every point exactly once
    assert all(r["status"] == "budget" and r["instructions"] == SLOW_INSNS for r in rows)
    assert {r["host"] for r in rows} == {os.uname().nodename}
