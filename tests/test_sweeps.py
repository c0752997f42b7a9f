"""Many flows at once, sweeps, the catalog, resumption after SIGKILL, and bad sweeps.

Expectations are hand-derived: expansions written out by hand, grid sizes counted,
t quantiles from a printed table, and run results compared between independent
executions (1 vs 2 workers, killed-and-resumed vs uninterrupted).
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tcplab
from tcplab.sweeps.spec import read_sweep
from tcplab.sweeps.stats import t_quantile

from conftest import run_cli

STAR = """
[simulation]
duration = "{duration}"
seed = 3

[[node]]
name = "switch"
kind = "router"

[[node]]
name = "server"

[[node]]
count = 4
name = "c{{i}}"

[[link]]
from = "switch"
to = "server"
bandwidth = "{bottleneck}"
delay = "1ms"
queue = {{ type = "droptail", limit = "20 packets" }}

[[link]]
count = 4
from = "c{{i}}"
to = "switch"
bandwidth = "100Mbps"
delay = {{ each = ["1ms", "2ms", "3ms", "4ms"] }}

[[flow]]
count = 4
name = "bulk"
from = "c{{i}}"
to = "server"
start = "{{i*100}}ms"
app = {{ type = "bulk" }}
transport = {{ type = "tcp", cc = "reno" }}
"""

SWEEP = """
[sweep]
replications = {reps}
[sweep.parameters]
limit = {{ values = [10, 30], set = {{ "link[0].queue.limit" = "{{limit}} packets" }} }}
loss = {{ values = [0.0, 0.01], set = {{ "link[0].loss" = {{ type = "bernoulli", rate = "{{loss}}" }} }} }}
"""


def star(duration: str = "2s", bottleneck: str = "10Mbps") -> str:
    return STAR.format(duration=duration, bottleneck=bottleneck)


# ------------------------------------------------------------------- many flows at once


def test_count_expands_names_templates_and_per_index_lists():
    s = tcplab.load(star())
    flows = s.raw["flow"]
    assert [f["name"] for f in flows] == ["bulk0", "bulk1", "bulk2", "bulk3"]
    assert [f["from"] for f in flows] == ["c0", "c1", "c2", "c3"]
    assert [f["start"] for f in flows] == ["0ms", "100ms", "200ms", "300ms"]
    assert [l["delay"] for l in s.raw["link"][1:]] == ["1ms", "2ms", "3ms", "4ms"]
    assert [n["name"] for n in s.raw["node"]] == ["switch", "server", "c0", "c1", "c2", "c3"]
    # The engine sees 4 flows whose start times are 0, 0.1, 0.2, 0.3 s.
    assert [f["start_ns"] for f in s.engine["flows"]] == [0, 100_000_000, 200_000_000, 300_000_000]


def test_set_with_wildcards_slices_and_filters():
    s = tcplab.load(star(), ["flow[*].transport.sack=true", "flow[2:].start=1s", "link[from=c3].delay=9ms",
                             "flow[-1].app.type=bulk"])
    assert [f["transport"].get("sack") for f in s.raw["flow"]] == [True] * 4
    assert [f["start"] for f in s.raw["flow"]] == ["0ms", "100ms", "1s", "1s"]
    assert [l["delay"] for l in s.raw["link"]] == ["1ms", "1ms", "2ms", "3ms", "9ms"]


def test_count_override_applies_before_expansion():
    s = tcplab.load(star(), ["flow[0].count=2", "flow[*].transport.sack=true"])
    assert [f["name"] for f in s.raw["flow"]] == ["bulk0", "bulk1"]
    assert [f["transport"]["sack"] for f in s.raw["flow"]] == [True, True]
    # A per-index list must still match the count it is expanded with.
    with pytest.raises(tcplab.ScenarioError, match="expected a list of count = 2 values"):
        tcplab.load(star(), ["link[1].count=2"])


@pytest.mark.parametrize(("override", "message"), [
    ("flow[0].count=0", "flow[0].count: must be at least 1"),
    ("flow[name=nobody].start=1s", "selects none of the list's 4 items"),
    ("flow[9].start=1s", "index 9 out of range"),
])
def test_bad_counts_and_selectors_exit_2(write_scenario, override, message):
    path = write_scenario(star())
    r = run_cli("validate", str(path), "--set", override)
    assert r.returncode == 2
    assert message in r.stderr
    assert "Traceback" not in r.stderr


# ------------------------------------------------------------------------------ sweeps


def test_grid_ranges_zip_and_exclude(write_scenario):
    path = write_scenario(star() + """
[sweep]
replications = 2
exclude = ["a == 3 and b == 'y'"]
zip = [["c", "d"]]
[sweep.parameters]
a = { from = 1, to = 5, step = 2, set = { "simulation.duration" = "{a}s" } }
b = { cases = { x = {}, y = { "flow[*].transport.sack" = true } } }
c = { from = 1, to = 100, num = 3, scale = "log", set = {} }
d = { values = ["p", "q", "r"], set = {} }
e = { from = 0.1, to = 0.2, step = 0.025, set = {} }
""")
    spec = read_sweep(path)
    assert [p.values for p in spec.parameters] == [(1, 3, 5), ("x", "y"), (1.0, 10.0, 100.0), ("p", "q", "r"),
                                                   (0.1, 0.125, 0.15, 0.175, 0.2)]
    # 3 (a) x 2 (b) x 3 (c,d zipped) x 5 (e) = 90, minus a=3,b=y: 3 x 5 = 15 -> 75.
    points = spec.points()
    assert len(points) == 75
    assert {(p["c"], p["d"]) for p in points} == {(1.0, "p"), (10.0, "q"), (100.0, "r")}
    assert not any(p["a"] == 3 and p["b"] == "y" for p in points)


def test_t_quantiles_match_the_printed_table():
    # Student t, two-sided 95%: the standard table's values.
    for df, expected in [(1, 12.706), (2, 4.303), (4, 2.776), (9, 2.262), (29, 2.045), (120, 1.980)]:
        assert t_quantile(0.975, df) == pytest.approx(expected, abs=5e-4)


def _runs(root):
    con = tcplab.open_sweep(str(root))
    try:
        return con.execute("SELECT key, point, rep, seed, status, goodput_bps, drops, retransmits FROM runs ORDER BY key").fetchall()
    finally:
        con.close()


def test_sweep_is_identical_on_one_and_two_workers_and_resumes(write_scenario, tmp_path):
    path = write_scenario(star() + SWEEP.format(reps=2))
    one = run_cli("sweep", str(path), "--jobs", "1", "--out", str(tmp_path / "one"))
    assert one.returncode == 0, one.stderr
    two = run_cli("sweep", str(path), "--jobs", "2", "--out", str(tmp_path / "two"))
    assert two.returncode == 0, two.stderr
    a, b = _runs(tmp_path / "one"), _runs(tmp_path / "two")
    assert len(a) == 8 and a == b
    # Replications differ in seed, and with random loss in their results.
    assert len({r[3] for r in a}) == 8
    assert len({r[5] for r in a}) > 4
    # A rerun finds every run stored and runs nothing.
    again = run_cli("sweep", str(path), "--jobs", "2", "--out", str(tmp_path / "one"))
    assert again.returncode == 0
    assert "8 already stored, 0 run now" in again.stdout
    assert _runs(tmp_path / "one") == a
    # Per-point summary with a CI and a plot.
    assert (tmp_path / "one" / "summary.csv").exists()
    assert list((tmp_path / "one" / "plots").glob("*.png"))
    # The plot says what its bars are (#32 item 8), in the PNG's title and the report.
    assert "95% confidence interval" in (tmp_path / "one" / "report.html").read_text()


def test_python_api_returns_runs_and_a_connection(write_scenario, tmp_path):
    path = write_scenario(star() + SWEEP.format(reps=1))
    df = tcplab.sweep(str(path), out=str(tmp_path / "s"), jobs=2)
    assert len(df) == 4 and set(df["status"]) == {"ok"}
    assert {"limit", "loss", "seed", "goodput_bps", "jain", "tcplab_version"} <= set(df.columns)
    con = tcplab.open_sweep(str(tmp_path / "s"))
    (flows,) = con.execute("SELECT count(*) FROM flows JOIN runs USING (key)").fetchone()
    assert flows == 16


def test_query_command(small_sweep, tmp_path):
    (tmp_path / "s").symlink_to(small_sweep[1])
    r = run_cli("query", str(tmp_path / "s"), "SELECT count(*) AS n FROM runs", "--csv")
    assert r.returncode == 0 and r.stdout.splitlines() == ["n", "4"]
    bad = run_cli("query", str(tmp_path / "s"), "SELECT nope FROM runs")
    assert bad.returncode == 2 and "nope" in bad.stderr
    # Every value whole at 80 columns (#32 item 8): the 24-character run keys, not "2…".
    import os
    import subprocess
    import sys

    env = {**os.environ, "COLUMNS": "80"}
    wide = subprocess.run([sys.executable, "-m", "tcplab", "query", str(tmp_path / "s"), "SELECT * FROM runs"],
                          capture_output=True, text=True, env=env, timeout=120)
    keys = run_cli("query", str(tmp_path / "s"), "SELECT key FROM runs", "--csv").stdout.split()[1:]
    assert wide.returncode == 0 and "…" not in wide.stdout and all(k in wide.stdout for k in keys)
    assert all(len(line) <= 80 for line in wide.stdout.splitlines())
    # A DuckDB error in one line, not its "\n"-escaped pointer into the SQL.
    missing = run_cli("query", str(tmp_path / "s"), "SELECT * FROM nope")
    assert missing.returncode == 2 and "nope" in missing.stderr and "\\n" not in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1


@pytest.fixture(scope="module")
def small_sweep(tmp_path_factory) -> tuple[Path, Path]:
    """(spec, directory) of a finished 4-run sweep, for tests that only read it or copy it."""
    root = tmp_path_factory.mktemp("small-sweep")
    spec = root / "sweep.toml"
    spec.write_text(star() + SWEEP.format(reps=1))
    assert run_cli("sweep", str(spec), "--out", str(root / "s")).returncode == 0
    return spec, root / "s"


def test_a_copied_catalog_never_reads_the_original_directory(small_sweep, tmp_path):
    """#35: catalog.duckdb of a copied sweep read the original's batches (here it would
    have counted the original's 4 runs). The copy's stored views fail, saying so, while
    tcplab query on the copy reads the copy's batches."""
    import shutil

    import duckdb

    path, original = small_sweep
    shutil.copytree(original, tmp_path / "copy")
    copy = duckdb.connect(str(tmp_path / "copy" / "catalog.duckdb"), read_only=True)
    with pytest.raises(duckdb.Error, match="copied or moved"):
        copy.execute("SELECT count(*) FROM runs").fetchone()
    copy.close()
    r = run_cli("query", str(tmp_path / "copy"), "SELECT count(*) AS n FROM runs", "--csv")
    assert r.returncode == 0 and r.stdout.splitlines() == ["n", "4"]
    # Resuming the sweep in the copy (nothing left to run) rewrites its catalog.
    assert run_cli("sweep", str(path), "--out", str(tmp_path / "copy")).returncode == 0
    copy = duckdb.connect(str(tmp_path / "copy" / "catalog.duckdb"), read_only=True)
    assert copy.execute("SELECT count(*) FROM runs").fetchone() == (4,)
    copy.close()


def test_the_catalog_reads_its_own_sweep(small_sweep):
    import duckdb

    con = duckdb.connect(str(small_sweep[1] / "catalog.duckdb"), read_only=True)
    assert con.execute("SELECT count(*) FROM runs").fetchone() == (4,)
    con.close()


def test_failed_point_is_recorded_and_others_run(write_scenario, tmp_path):
    path = write_scenario(star() + """
[sweep]
[sweep.parameters]
start = { values = ["0s", "5s"], set = { "flow[0].start" = "{start}" } }
""")
    r = run_cli("sweep", str(path), "--out", str(tmp_path / "s"))
    assert r.returncode == 1  # some runs failed
    rows = tcplab.open_sweep(str(tmp_path / "s")).execute("SELECT start, status, message FROM runs ORDER BY start").fetchall()
    assert rows[0][:2] == ("0s", "ok")
    assert rows[1][1] == "failed" and "before the end of the simulation" in rows[1][2]


def test_sigkill_mid_sweep_then_rerun_has_every_run_exactly_once(write_scenario, tmp_path):
    # 80 runs, about 6 s on two idle workers (30 s each): long enough to be killed between two batch commits (2 s apart).
    path = write_scenario(star("30s", "200Mbps") + SWEEP.format(reps=20))
    out = tmp_path / "s"
    cmd = [sys.executable, "-m", "tcplab", "sweep", str(path), "--jobs", "2", "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # Kill once at least one batch is committed but before the sweep ends.
    deadline = time.time() + 120
    while time.time() < deadline and not list(out.glob("batches/batch=*/runs.parquet")):
        time.sleep(0.05)
    time.sleep(0.3)
    assert proc.poll() is None, "the sweep ended before it could be killed; make it longer"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    stored_before = sum(pq.read_table(p).num_rows for p in out.glob("batches/batch=*/runs.parquet"))
    assert 0 < stored_before < 80
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert f"{stored_before} already stored, {80 - stored_before} run now" in r.stdout
    keys = [k for p in out.glob("batches/batch=*/runs.parquet") for k in pq.read_table(p).column("key").to_pylist()]
    assert len(keys) == 80 and len(set(keys)) == 80
    # Same results as an uninterrupted sweep.
    clean = run_cli("sweep", str(path), "--jobs", "2", "--out", str(tmp_path / "clean"))
    assert clean.returncode == 0
    assert _runs(out) == _runs(tmp_path / "clean")


# ---------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("sweep", "message"), [
    ('nope = { values = [1], set = { "flow[*].transport.sackk" = true } }', "unknown key 'sackk' (did you mean 'sack'?)"),
    ('x = { values = [] , set = {} }', "sweep.parameters.x.values: expected a non-empty list"),
    ('x = { from = 1, to = 5, step = 0 }', "sweep.parameters.x.step: must not be 0"),
    ('x = { from = 5, to = 1, step = 1 }', "points the wrong way"),
    ('x = { from = 0, to = 1, num = 3, scale = "log" }', "needs from and to above 0"),
    # Found by the fuzzer (#35): each was an internal error after the runs.
    ('d = { values = [false, 5], set = { "simulation.seed" = "{d}" } }',
     "sweep.parameters.d.values: expected values of one kind — all numbers, all strings or all true/false — "
     "got a number, true/false"),
    ('d = { values = [1, 18446744073709551616], set = { "simulation.seed" = "{d}" } }',
     "sweep.parameters.d.values: 1.84e+19 is beyond a 64-bit integer"),
])
def test_bad_sweeps_exit_2_and_write_nothing(write_scenario, tmp_path, sweep, message):
    path = write_scenario(star() + f"\n[sweep]\n[sweep.parameters]\n{sweep}\n")
    r = run_cli("sweep", str(path), "--out", str(tmp_path / "s"))
    assert r.returncode == 2, r.stdout + r.stderr
    assert message in r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize(("sweep_file", "message"), [
    ('scenario = "dir"\n[sweep]\n[sweep.parameters]\n"simulation.seed" = [1, 2]\n',
     "scenario: 'dir' is not a scenario file (it names a directory)"),
    ('scenario = "base.toml"\nsweep = 3\n', "sweep: expected a table ([sweep] with [sweep.parameters]), got 3"),
    ('scenario = "base.toml"\n[sweep]\n[sweep.parameters]\nseed = [1, 2]\n',
     "sweep.parameters.seed: a parameter may not be called 'seed' (a column of the runs table)"),
])
def test_a_bad_sweep_file_is_named_in_one_line(write_scenario, tmp_path, sweep_file, message):
    """Found by the fuzzer's sweep-file cases (#35): a sweep file whose scenario is a
    directory named the directory, `sweep = 3` was an internal error, and a reserved
    parameter name was reported without the file. Each names the sweep file and the
    key, in one line, exit 2, nothing written."""
    write_scenario(star(), "base.toml")
    (tmp_path / "dir").mkdir()
    path = write_scenario(sweep_file, "sweep.toml")
    r = run_cli("sweep", str(path), "--out", str(tmp_path / "s"))
    assert r.returncode == 2, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: {message}"), r.stderr
    assert not (tmp_path / "s").exists()


def test_directory_of_another_scenario_is_refused_and_kept(write_scenario, tmp_path):
    first = write_scenario(star() + SWEEP.format(reps=1), "a.toml")
    assert run_cli("sweep", str(first), "--out", str(tmp_path / "s")).returncode == 0
    before = sorted(p.name for p in (tmp_path / "s" / "batches").iterdir())
    other = write_scenario(star().replace("seed = 3", "seed = 4") + SWEEP.format(reps=1), "b.toml")
    r = run_cli("sweep", str(other), "--out", str(tmp_path / "s"))
    assert r.returncode == 2
    assert "holds a sweep of a different scenario" in r.stderr and "another --out" in r.stderr
    assert sorted(p.name for p in (tmp_path / "s" / "batches").iterdir()) == before


def test_dask_address_that_does_not_answer_fails_fast(write_scenario, tmp_path):
    path = write_scenario(star() + SWEEP.format(reps=1))
    started = time.time()
    r = run_cli("sweep", str(path), "--dask", "tcp://127.0.0.1:9", "--out", str(tmp_path / "s"))
    assert r.returncode == 2
    assert "no Dask scheduler answered" in r.stderr
    assert time.time() - started < 20
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("table", [
    "[sweep]\nreplications = 1000000000000\n[sweep.parameters]\nlimit = [\"10 packets\", \"20 packets\"]\n",
    "[sweep]\n[sweep.parameters]\na = { from = 1, to = 1000000, step = 1, set = { \"simulation.seed\" = \"{a}\" } }\n"
    "b = { from = 1, to = 10000, step = 1, set = { \"simulation.seed\" = \"{b}\" } }\n",
])
def test_a_sweep_too_large_to_plan_is_refused_at_once(write_scenario, tmp_path, table):
    """10^12 replications planned for ever and 10^10 points ran out of memory (#35 item
    3): counted from the axes before any point is built, refused with exit 2, nothing
    written."""
    path = write_scenario(star() + table.replace('limit = ', '"link[0].queue.limit" = '))
    r = run_cli("sweep", str(path), "--out", str(tmp_path / "s"))
    assert r.returncode == 2 and "at most 1,000,000" in r.stderr, r.stderr
    assert "--yes" in " ".join(r.stderr.split())  # the way past it is named
    assert not (tmp_path / "s").exists()


def test_yes_plans_beyond_the_limit(write_scenario):
    """`tcplab sweep --yes` lifts the 1,000,000-run limit (#35: "unless told --yes"):
    1,200,000 runs are refused by default and parsed with the limit lifted."""
    from tcplab.scenario.errors import ScenarioError

    path = write_scenario(star() + "[sweep]\nreplications = 600000\n[sweep.parameters]\n"
                          "limit = { values = [10, 20], set = { \"link[0].queue.limit\" = \"{limit} packets\" } }\n")
    with pytest.raises(ScenarioError, match="1,200,000 runs"):
        read_sweep(path)
    spec = read_sweep(path, max_runs=None)
    assert spec.replications == 600000 and len(spec.points()) == 2


def test_a_sweep_whose_every_point_the_engine_rejects_writes_nothing(write_scenario, tmp_path):
    """Points that read well but that the engine refuses (a zero bandwidth) ran as 100
    failed runs, wrote the directory and exited 1 (#35 item 5); the docs promise exit 2
    and nothing written: every point is validated by the engine before any run."""
    path = write_scenario(star() + "[sweep]\nreplications = 3\n[sweep.parameters]\n"
                                   '"link[0].bandwidth" = ["0Mbps", "0bps"]\n')
    r = run_cli("sweep", str(path), "--out", str(tmp_path / "s"))
    assert r.returncode == 2 and "must be greater than 0" in r.stderr, r.stderr
    assert not (tmp_path / "s").exists()


def test_two_sweeps_on_one_directory_the_second_is_refused(write_scenario, tmp_path):
    """Two sweeps on one --out both exited 0 and stored every run twice, so the summary
    averaged twice the replications asked for (#35 item 1). The second is refused while
    the first runs (exit 2); the first stores each run once."""
    import subprocess
    import sys
    import time as clock

    path = write_scenario(star(duration="60s", bottleneck="1Gbps") + SWEEP.format(reps=4))  # seconds
    out = tmp_path / "s"
    first = subprocess.Popen([sys.executable, "-m", "tcplab", "sweep", str(path), "--out", str(out), "--jobs", "1"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = clock.monotonic() + 120
    while not (out / ".lock").exists() and first.poll() is None and clock.monotonic() < deadline:
        clock.sleep(0.05)
    second = run_cli("sweep", str(path), "--out", str(out), "--jobs", "1")
    assert first.wait(timeout=600) == 0, first.stderr.read()
    assert second.returncode == 2 and "another tcplab sweep is writing here" in second.stderr, second.stderr
    assert len(_runs(out)) == 16  # 4 points x 4 replications, each once
    again = run_cli("sweep", str(path), "--out", str(out), "--jobs", "1")  # the lock went with the first
    assert again.returncode == 0 and "16 already stored, 0 run now" in again.stdout


def test_query_only_reads_the_sweep(small_sweep, tmp_path):
    """`tcplab query` runs reading statements over the sweep's own files and nothing
    else (#35 item 6): no COPY out, no other file, no ATTACH, no INSTALL, no lifting
    of the settings, no changes to the views."""
    root = small_sweep[1]
    outside = tmp_path / "out.csv"
    refused = {
        f"COPY (SELECT * FROM runs) TO '{outside}'": "COPY",
        f"COPY (SELECT * FROM runs) TO '{root / 'batches' / 'x.csv'}'": "COPY",
        "SELECT * FROM read_csv('/etc/passwd')": "/etc/passwd",
        f"ATTACH '{tmp_path / 'other.duckdb'}'": "ATTACH",
        "INSTALL httpfs": "LOAD",
        "SET enable_external_access = true": "SET",
        "DROP VIEW runs": "DROP",
        "CREATE TABLE t AS SELECT * FROM runs": "CREATE",
        "SELECT 1; COPY (SELECT 1) TO 'x.csv'": "COPY",
    }
    for sql, said in refused.items():
        r = run_cli("query", str(root), sql)
        assert r.returncode == 2 and said in r.stderr and len(r.stderr.strip().splitlines()) == 1, (sql, r.stderr)
    assert not outside.exists() and not (root / "batches" / "x.csv").exists()
    assert not (tmp_path / "other.duckdb").exists()
    ok = run_cli("query", str(root), "WITH r AS (SELECT * FROM runs) SELECT count(*) AS n FROM r", "--csv")
    assert ok.returncode == 0 and ok.stdout.splitlines() == ["n", "4"]


# ------------------------------------------------------------------- batch integrity


def _swept(write_scenario, tmp_path):
    """A finished sweep of 8 runs (4 points x 2 replications) and its runs by key."""
    path = write_scenario(star() + SWEEP.format(reps=2))
    root = tmp_path / "s"
    assert run_cli("sweep", str(path), "--out", str(root)).returncode == 0
    import pyarrow.parquet as pq

    before = {}
    for batch in root.glob("batches/batch=*"):
        for row in pq.read_table(batch / "runs.parquet", columns=["key", "goodput_bps"]).to_pylist():
            before[row["key"]] = row["goodput_bps"]
    return path, root, before


def _runs_now(root):
    import pyarrow.parquet as pq

    rows = [r for b in root.glob("batches/batch=*") for r in pq.read_table(b / "runs.parquet", columns=["key", "goodput_bps"]).to_pylist()]
    return {r["key"]: r["goodput_bps"] for r in rows}, len(rows)


@pytest.mark.parametrize("damage, said", [
    ("flip", "does not match its checksum"),
    ("truncate", "truncated or altered"),
    ("drop_runs", "runs.parquet is missing"),
    ("extra", "was not written with the batch"),
])
def test_a_damaged_batch_is_named_on_read_and_rerun_on_resume(write_scenario, tmp_path, damage, said):
    """#35 item 1: a flipped bit, a truncated or missing file, a stray file in a batch:
    `query` stops naming the batch and the problem (exit 2), and the next `sweep` moves
    the batch to DIR/damaged/ and runs its runs again — to the same results, since a run
    is a function of its scenario and seed."""
    path, root, before = _swept(write_scenario, tmp_path)
    batch = sorted(root.glob("batches/batch=*"))[0]
    manifest = json.loads((batch / "manifest.json").read_text())
    assert set(manifest["files"]) >= {"runs.parquet", "flows.parquet"}
    victim = batch / "flows.parquet"
    data = bytearray(victim.read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 0x04
        victim.write_bytes(bytes(data))
    elif damage == "truncate":
        victim.write_bytes(bytes(data[: len(data) // 2]))
    elif damage == "drop_runs":
        (batch / "runs.parquet").unlink()
    else:
        (batch / "notes.parquet").write_bytes(b"mine")
    bad = run_cli("query", str(root), "SELECT count(*) FROM runs")
    assert bad.returncode == 2 and batch.name in bad.stderr and said in bad.stderr, bad.stderr
    again = run_cli("sweep", str(path), "--out", str(root))
    assert again.returncode == 0, again.stderr
    assert "damaged" in again.stderr and batch.name in "".join(again.stderr.split())  # the terminal wraps it
    assert (root / "damaged" / batch.name).is_dir() and not batch.exists()
    after, rows = _runs_now(root)
    assert after == before and rows == len(before) == 8
    assert run_cli("query", str(root), "SELECT count(*) FROM runs").returncode == 0


def test_a_run_stored_twice_is_an_error_never_averaged(write_scenario, tmp_path):
    """A batch copied by hand: `query` and `sweep` both stop, naming the two batches;
    nothing is averaged over the copy."""
    import shutil

    path, root, _ = _swept(write_scenario, tmp_path)
    batch = sorted(root.glob("batches/batch=*"))[0]
    copy = batch.with_name(batch.name + "-copy")
    shutil.copytree(batch, copy)
    for args in (["query", str(root), "SELECT avg(goodput_bps) FROM runs"], ["sweep", str(path), "--out", str(root)]):
        result = run_cli(*args)
        flat = "".join(result.stderr.split())  # as one line, however the terminal wrapped it
        assert result.returncode == 2, result.stderr
        assert batch.name in flat and copy.name in flat and "stored" in result.stderr


def test_a_points_runs_share_one_compilation_with_their_own_seeds(write_scenario, tmp_path):
    """A worker compiles a point once and gives each replication its seed (#31 item 4:
    the sweep's per-run overhead): exactly the scenario a fresh compile with that seed
    gives, for every run of the plan."""
    from tcplab.scenario import load
    from tcplab.sweeps.orchestrate import plan
    from tcplab.sweeps.task import _load

    spec = read_sweep(write_scenario(star() + SWEEP.format(reps=3)))
    runs = plan(spec)
    assert len({r.task.point_key for r in runs}) == 4 and len(runs) == 12
    for r in runs:
        (cached, inherited), fresh = _load(r.task), load(r.task.scenario, list(r.task.overrides), r.task.seed)
        assert cached.engine == fresh.engine and cached.raw == fresh.raw
        assert list(cached.overrides) == list(fresh.overrides)
        assert inherited is None  # not planned in this process


def test_run_keys_are_the_hash_of_each_runs_identity(write_scenario):
    """A run's key is the SHA-256 of its identity's canonical JSON — scenario, seed,
    version, engine build, and the backend off the simulator — and its point's key the
    same without the seed; planning serializes the scenario once per point to build
    them, which must give exactly these texts (stored sweeps are found by them)."""
    import hashlib

    from tcplab import __version__
    from tcplab.provenance import engine_build
    from tcplab.sweeps.orchestrate import plan
    from tcplab.sweeps.spec import canonical_json

    def digest(identity: dict) -> str:
        return hashlib.sha256(canonical_json(identity).encode()).hexdigest()[:24]

    spec = read_sweep(write_scenario(star() + SWEEP.format(reps=2)))
    for backend in ("sim", "emu"):
        for r in plan(spec, backend):
            shared = {"scenario": r.compiled.scenario.raw, "tcplab": __version__, "engine": engine_build()}
            identity = {**shared, "seed": r.task.seed, **({"backend": backend} if backend != "sim" else {})}
            assert (r.task.key, r.task.point_key) == (digest(identity), digest(shared))


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                     max_leaves=12)


@given(st.dictionaries(st.text(max_size=6), _JSON, max_size=5))
def test_an_object_of_canonical_members_is_the_objects_canonical_json(members):
    from tcplab.sweeps.spec import canonical_json, canonical_object

    assert canonical_object({k: canonical_json(v) for k, v in members.items()}) == canonical_json(members)


def test_workers_take_the_points_planning_compiled(write_scenario):
    """Forked workers inherit the plan's compiled points (#31 item 4) and take each
    run's scenario and cost from them: the scenario a fresh compile with the run's
    seed gives, and the engine's estimate of it."""
    from tcplab.budget import estimate
    from tcplab.scenario import load
    from tcplab.sweeps.orchestrate import plan
    from tcplab.sweeps.task import _INHERITED, _load, execute, inherited_by_workers

    spec = read_sweep(write_scenario(star() + SWEEP.format(reps=2)))
    runs = plan(spec)
    assert all(r.compiled is not None for r in runs)
    with inherited_by_workers({r.task.point_key: r.compiled for r in runs}):
        for r in runs:
            (scenario, point), fresh = _load(r.task), load(r.task.scenario, list(r.task.overrides), r.task.seed)
            assert scenario.engine == fresh.engine and scenario.raw == fresh.raw
            assert list(scenario.overrides) == list(fresh.overrides)
            assert point.cost == estimate(fresh)
            # The point's configuration but for the seed, which the run gives apart.
            shared = json.loads(point.config_json)
            assert shared["simulation"]["seed"] == 3  # the scenario's own
            assert {**shared, "simulation": {**shared["simulation"], "seed": r.task.seed}} == fresh.engine
        handed = [execute(r.task) for r in runs]
    assert not _INHERITED  # the block ends, the hand-off with it
    compiled_again = [execute(r.task) for r in runs]

    def outcome(result: dict) -> dict:
        return {k: v for k, v in result["run"].items() if k not in ("wall_s", "engine_s")}

    assert [outcome(r) for r in handed] == [outcome(r) for r in compiled_again]
    # Each run's own seed is what ran: the replications of a lossy point differ.
    lossy = [outcome(h) for h, r in zip(handed, runs, strict=True) if r.point["loss"] > 0]
    assert len({(o["goodput_bps"], o["drops"]) for o in lossy}) == len(lossy) == 4


def test_a_rebuilt_engine_does_not_find_the_old_engines_runs(write_scenario, monkeypatch):
    """A stored run belongs to the engine build that made it: the same scenario, seed
    and version under another build are new runs (the lfn study's jumbo runs, stored
    before an autotuning fix, were otherwise reused as the fixed engine's)."""
    from tcplab.sweeps import orchestrate
    from tcplab.sweeps.orchestrate import plan

    spec = read_sweep(write_scenario(star() + SWEEP.format(reps=2)))
    before = [(r.task.key, r.task.seed) for r in plan(spec)]
    assert before == [(r.task.key, r.task.seed) for r in plan(spec)]  # deterministic
    monkeypatch.setattr(orchestrate, "engine_build", lambda: "another-build")
    after = [(r.task.key, r.task.seed) for r in plan(spec)]
    assert [s for _, s in after] == [s for _, s in before]  # same seeds...
    assert not {k for k, _ in after} & {k for k, _ in before}  # ...but none of the old keys


def test_query_without_a_statement_or_with_a_huge_value_is_handled(small_sweep):
    """Found by the output fuzzer (#35): an empty query was an internal error, and a
    100-MB value exhausted memory drawing the table."""
    sweep = small_sweep[1]
    for sql in ("", ";", "/* nothing */"):
        r = run_cli("query", str(sweep), sql)
        assert r.returncode == 2 and "no SQL statement given" in r.stderr, (sql, r.stderr)
    r = run_cli("query", str(sweep), "SELECT repeat('x', 5000) AS long")
    flat = "".join(ch for ch in r.stdout if ch not in "│ \n")  # the cell wraps inside its box
    assert r.returncode == 0 and "5,000characters;--csvprintsitwhole)" in flat and flat.count("x") == 2000
    whole = run_cli("query", str(sweep), "SELECT repeat('x', 5000) AS long", "--csv")
    assert whole.stdout.splitlines() == ["long", "x" * 5000]


def test_a_csv_too_large_for_memory_is_one_clear_error(small_sweep, monkeypatch):
    """Found by the fuzzer (#35): `query … "SELECT repeat('x', 100000000)" --csv` under
    an address-space limit ran out of memory writing the CSV — an internal error. It is
    one exit-2 message saying what to select instead (memory exhaustion stood in for by
    a to_csv that raises)."""
    import pandas as pd
    from typer.testing import CliRunner

    from tcplab.cli.app import app
    from tcplab.cli.sweep_cmd import query  # noqa: F401  (registers the command)

    def out_of_memory(*_args, **_kwargs):
        raise MemoryError

    monkeypatch.setattr(pd.DataFrame, "to_csv", out_of_memory)
    result = CliRunner().invoke(app, ["query", str(small_sweep[1]), "SELECT 1 AS n", "--csv"])
    assert result.exit_code == 2
    assert "the result is too large to write as CSV" in result.output


def test_a_sweep_of_many_short_runs_is_announced_before_it_is_planned(tmp_path):
    # The fuzzer's case 1181 (make fuzz, 2026-11-27), shrunk: 2 x 105,393 points of
    # 0.1-0.4 s runs. Planning alone validates every run (minutes); the sweep said
    # nothing until then, and running them takes hours.
    (tmp_path / "base.toml").write_text(star("1s"))
    (tmp_path / "sweep.toml").write_text(
        'scenario = "base.toml"\n[sweep.parameters]\n'
        'variant = { cases = { one = { "simulation.seed" = 1 }, two = { "simulation.seed" = 2 } } }\n'
        'r = { from = 0.1, to = 0.4, num = 105393, scale = "log", unit = "s", set = { "simulation.duration" = "{r}s" } }\n')
    env = {**os.environ, "TCPLAB_WARN_AFTER_S": "5"}
    proc = subprocess.Popen([sys.executable, "-m", "tcplab", "sweep", "sweep.toml", "--out", "out", "--jobs", "1"],
                            cwd=tmp_path, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    try:
        assert proc.stderr is not None
        # The first thing it says, before planning starts (which alone takes minutes).
        said, _, _ = select.select([proc.stderr], [], [], 60)
        line = proc.stderr.readline() if said else "(nothing within 60 s)"
    finally:
        proc.kill()
        proc.wait()
    assert line.startswith("warning:") and "210,786 runs" in line and "of wall time" in line, line


def test_runs_outside_the_current_plan_are_kept_but_never_counted(write_scenario, tmp_path, monkeypatch):
    """#35: a directory re-run after an engine rebuild held both builds' runs, and the
    summary averaged six "replications" where three were asked (the highspeed study's
    confidence intervals shrank by ~2.6x); a sweep re-run with fewer replications kept
    counting the old ones. The views and summaries count exactly the runs the latest
    command planned; the others stay stored and come back when planned again."""
    from tcplab.sweeps import orchestrate, run_sweep, runs_frame
    from tcplab.sweeps.catalog import connect

    three = read_sweep(write_scenario(star("1s") + SWEEP.format(reps=3), "three.toml"))
    root = tmp_path / "s"
    first = run_sweep(three, root, jobs=1)
    assert (first.ran, first.outside_plan) == (12, 0)
    old_rows = runs_frame(root)

    monkeypatch.setattr(orchestrate, "engine_build", lambda: "a-rebuilt-engine")
    rebuilt = run_sweep(three, root, jobs=1)
    assert (rebuilt.ran, rebuilt.skipped, rebuilt.outside_plan) == (12, 0, 12)
    runs = runs_frame(root)
    assert len(runs) == 12 and not set(runs["key"]) & set(old_rows["key"])  # only the new build's
    assert sorted(runs.groupby("point").size()) == [3] * 4
    stored = sum(pq.read_metadata(b / "runs.parquet").num_rows for b in root.glob("batches/batch=*"))
    assert stored == 24  # nothing was deleted

    two = read_sweep(write_scenario(star("1s") + SWEEP.format(reps=2), "two.toml"))
    fewer = run_sweep(two, root, jobs=1)
    assert (fewer.ran, fewer.skipped, fewer.outside_plan) == (0, 8, 16)
    con = connect(root)
    try:
        assert con.execute("SELECT count(*), max(rep) FROM runs").fetchone() == (8, 1)
        assert con.execute("SELECT count(DISTINCT key) FROM flows").fetchone() == (8,)
        assert con.execute("SELECT count(*) FROM plan").fetchone() == (8,)
    finally:
        con.close()

    monkeypatch.undo()  # the engine this process really has: its runs are stored already
    back = run_sweep(three, root, jobs=1)
    assert (back.ran, back.skipped) == (0, 12)
    assert runs_frame(root).sort_values("key")["goodput_bps"].tolist() == old_rows.sort_values("key")["goodput_bps"].tolist()


def test_points_that_resolve_to_the_same_run_each_keep_their_own(write_scenario, tmp_path):
    """Found by `reproduce lfn --explore`: a case that sets a field another parameter
    sets too (the dedicated lightpath's loss 0 under every reading of the shared path's
    loss), with a seed that ignores that parameter, resolves several points to one
    scenario and seed. They were planned under one key and stored three times, and the
    catalog refused the sweep (SweepIntegrityError). Each point now has its own run,
    with the same results."""
    import dataclasses

    from tcplab.sweeps import run_sweep, runs_frame

    sweep = """
[sweep]
replications = 1
[sweep.parameters]
reading = { values = [0.0, 0.01], set = { "link[0].loss" = { type = "bernoulli", rate = "{reading}" } } }
path = { cases = { shared = {}, dedicated = { "link[0].loss" = { type = "bernoulli", rate = 0 } } } }
"""
    spec = dataclasses.replace(read_sweep(write_scenario(star("1s") + sweep, "same.toml")), seed_ignores=("reading",))
    outcome = run_sweep(spec, tmp_path / "s", jobs=1)
    assert outcome.ran == 4
    runs = runs_frame(tmp_path / "s")
    assert len(runs) == 4 and runs["key"].nunique() == 4
    dedicated = runs[runs["path"] == "dedicated"].sort_values("reading")
    assert dedicated["goodput_bps"].nunique() == 1  # one scenario, one seed: one result
    shared = runs[runs["path"] == "shared"].sort_values("reading")
    assert shared["goodput_bps"].nunique() == 2  # the loss reading applies here


def test_confidence_intervals_are_drawn_within_what_the_metric_can_take(write_scenario):
    """A Student-t interval of a few runs can reach below zero (the highspeed study's
    diagnostic: goodput 150 ± 200 Mbit/s at the largest queue) or above a Jain's index
    of 1; the bars stop at 0 and at 1, in the PNG and in the report's JSON alike."""
    import numpy as np
    import pandas as pd
    from tcplab.charts import error_bar_ends
    from tcplab.report import chart_json
    from tcplab.sweeps.plots import metric_chart
    from tcplab.sweeps.spec import PlotSpec

    spec = read_sweep(write_scenario(star() + SWEEP.format(reps=3)))
    summary = pd.DataFrame({"limit": [10, 30], "loss": [0.0, 0.0], "goodput_bps": [1.5e8, 9e8],
                            "goodput_bps_ci": [2e8, 1e7], "jain": [0.98, 0.5], "jain_ci": [0.05, 0.05]})
    goodput = metric_chart(summary, spec, PlotSpec(x="limit", y="goodput_bps", lines=None)).panels[0].lines[0]
    low, high = error_bar_ends(goodput)
    assert np.allclose(low, [0.0, 890.0]) and np.allclose(high, [350.0, 910.0])
    jain = metric_chart(summary, spec, PlotSpec(x="limit", y="jain", lines=None)).panels[0].lines[0]
    low, high = error_bar_ends(jain)
    assert np.allclose(low, [0.93, 0.45]) and np.allclose(high, [1.0, 0.55])
    chart = json.loads(json.dumps(chart_json(metric_chart(summary, spec, PlotSpec(x="limit", y="jain", lines=None)))))
    assert chart["panels"][0]["lines"][0]["bounds"] == [0.0, 1.0]
