"""Memory and time are estimated before a run (issue "Robustness", part 4): a run that
cannot fit is refused with exit 2 naming the knob, a long one is announced, the
estimate bounds what a run really takes, and many flows are summarised compactly."""

from __future__ import annotations

import csv
import json
import os
import re
import resource
import subprocess
import sys
import tempfile

import pytest

import tcplab
from tcplab import _core
from tcplab.runner import simulate
from conftest import SCENARIOS, run_cli

SERIES_HEAVY = """
[simulation]
duration = "60s"
seed = 1
bin = "1ms"

[topology.dumbbell]
pairs = 10
access = { bandwidth = "100Mbps", delay = "1ms" }
bottleneck = { bandwidth = "10Mbps", delay = "10ms" }

[[flow]]
count = 10
from = "left{i}"
to = "right{i}"
transport = { type = "tcp", cc = "cubic" }
app = { type = "bulk" }
"""
# 60,000 bins × (10 flows + 2 × 21 link directions), by hand:
SERIES_HEAVY_CELLS = 60_000 * (10 + 42)

MANY_FLOWS = """
[simulation]
duration = "1s"
seed = 1
bin = "50ms"

[topology.dumbbell]
pairs = {n}
access = {{ bandwidth = "1Gbps", delay = "1ms" }}
bottleneck = {{ bandwidth = "1Gbps", delay = "10ms", queue = {{ type = "droptail", limit = "1000 packets" }} }}

[[flow]]
count = {n}
from = "left{{i}}"
to = "right{{i}}"
start = "{{i % 100}}ms"
transport = {{ type = "tcp", cc = "cubic" }}
app = {{ type = "bulk" }}
"""


def _run_limited(args: list[str], address_space: int | None = None) -> tuple[subprocess.CompletedProcess, int]:
    """Runs tcplab in a child (optionally under ``ulimit -v``); returns it and that
    child's own peak RSS in bytes (from wait4, not the running maximum over every child
    this test process ever had)."""

    def limit() -> None:
        if address_space is not None:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen([sys.executable, "-m", "tcplab", *args], stdout=out, stderr=err, text=True, preexec_fn=limit)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        done = subprocess.CompletedProcess(p.args, p.returncode, out.read(), err.read())
    return done, usage.ru_maxrss * 1024


def test_a_run_that_cannot_fit_is_refused_before_it_starts_naming_the_bin(tmp_path):
    path = tmp_path / "heavy.toml"
    path.write_text(SERIES_HEAVY.replace('bin = "1ms"', 'bin = "0.1ms"'))
    out = tmp_path / "out"
    p, _ = _run_limited(["run", str(path), "--out", str(out)], address_space=900 * 2**20)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr
    assert "simulation.bin" in lines[0] and f"{10 * SERIES_HEAVY_CELLS:,} time-series cells" in lines[0]
    assert "use a wider bin" in lines[0]
    assert not out.exists()


def test_the_memory_estimate_bounds_a_series_heavy_run(tmp_path):
    """Peak memory above the interpreter's own stays within the engine's estimate."""
    path = tmp_path / "heavy.toml"
    path.write_text(SERIES_HEAVY)
    small = tmp_path / "small.toml"
    small.write_text(SERIES_HEAVY.replace('bin = "1ms"', 'bin = "10s"'))
    base, base_rss = _run_limited(["run", str(small), "--out", str(tmp_path / "o1"), "--no-plots"])
    heavy, heavy_rss = _run_limited(["run", str(path), "--out", str(tmp_path / "o2"), "--no-plots"])
    assert base.returncode == heavy.returncode == 0, heavy.stderr
    cost = json.loads(_core.estimate(tcplab.load(str(path)).engine_json()))
    assert cost["series_cells"] == SERIES_HEAVY_CELLS
    added = heavy_rss - base_rss
    print(f"series-heavy run: {added / 1e6:.0f} MB above the baseline for {SERIES_HEAVY_CELLS:,} cells "
          f"= {added / SERIES_HEAVY_CELLS:.1f} B/cell; estimate {cost['memory_bytes'] / 1e6:.0f} MB")
    assert added <= cost["memory_bytes"]


@pytest.mark.parametrize("name", ["default.toml", "jumbo-base.toml", "lan-base.toml"])
def test_the_event_estimate_is_within_a_factor_of_three(name):
    scenario = tcplab.load(str(SCENARIOS / name))
    cost = json.loads(_core.estimate(scenario.engine_json()))
    engine, _ = simulate(scenario, series=False)
    ratio = cost["events"] / engine["events"]
    print(f"{name}: estimated {cost['events']:,.0f} events, ran {engine['events']:,} ({ratio:.2f}×)")
    assert 1 / 3 <= ratio <= 3


def test_a_run_of_days_is_announced_with_its_event_count(write_scenario):
    # 100 Tbit/s of 1000-byte datagrams for 1000 s: 1e14 × 1000 / (1028 × 8) ≈ 1.22e13
    # packets, each at least one event.
    path = write_scenario("""
[simulation]
duration = "1000s"
[topology.dumbbell]
pairs = 1
access = { bandwidth = "100Mbps", delay = "2ms" }
bottleneck = { bandwidth = "10Mbps", delay = "10ms" }
[[flow]]
from = "left0"
to = "right0"
transport = "udp"
app = { type = "cbr", rate = "100Tbps", packet_size = "1000B" }
""")
    p = run_cli("validate", str(path))
    assert p.returncode == 0, p.stderr
    events = int(re.search(r"estimated ([\d,]+) events", p.stdout).group(1).replace(",", ""))
    assert events >= 1e14 * 1000 / (1028 * 8)
    assert "days" in p.stdout


def test_a_long_run_is_announced_and_proceeds_when_not_interactive(tmp_path):
    env = {**os.environ, "TCPLAB_WARN_AFTER_S": "0"}
    p = subprocess.run([sys.executable, "-m", "tcplab", "run", str(SCENARIOS / "default.toml"), "--out", str(tmp_path / "o"),
                        "--no-plots"], capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stderr.startswith("warning:") and "of wall time" in p.stderr
    assert (tmp_path / "o" / "summary.json").exists()


def test_many_flows_get_a_compact_summary_and_full_tables_in_files(tmp_path):
    n = 60
    path = tmp_path / "many.toml"
    path.write_text(MANY_FLOWS.format(n=n))
    p = run_cli("run", str(path), "--out", str(tmp_path / "o"), "--no-plots")
    assert p.returncode == 0, p.stderr
    assert f"distribution over {n} flows" in p.stdout and "the 5 lowest and 5 highest goodputs" in p.stdout
    with open(tmp_path / "o" / "flows.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == n
    lowest = min(rows, key=lambda r: float(r["goodput_bps"]))
    assert re.search(rf"│ {lowest['id']} +│", p.stdout)
    # Ten flows shown, not every flow (a narrow terminal may split the table: the same
    # ten ids again).
    assert len({m.group(1) for line in p.stdout.splitlines() if (m := re.match(r"│ (flow\d+) ", line))}) == 10


def test_an_admitted_run_is_capped_at_its_estimate_plus_margin():
    """#35 item 4: while a run goes its address space is capped (estimate x CAP_FACTOR +
    CAP_SLACK_BYTES over what is mapped): an allocation far beyond the estimate fails
    inside the cap instead of taking the machine, and succeeds again after it."""
    script = """
import tcplab.budget as b
cost = b.Estimate(events=1, wall_s=0, memory_bytes=1e6, series_bytes=0, series_cells=0, network_bytes=1e6,
                  packets_bytes=0, largest_queue=None)
with b.memory_cap(cost):
    try:
        bytearray(b.CAP_SLACK_BYTES + (1 << 30))
        print("allocated inside")
    except MemoryError:
        print("refused inside")
big = bytearray(b.CAP_SLACK_BYTES + (1 << 30))
print("allocated after", len(big) > 0)
"""
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[:2] == ["refused inside", "allocated after True"]


def test_a_run_needs_headroom_beyond_its_estimate():
    """Admitted only within MEMORY_HEADROOM of what is available: at 97% it is refused
    (#35 item 4), saying the estimate and the margin."""
    import tcplab.budget as b

    scenario = tcplab.load(str(SCENARIOS / "default.toml"))
    cost = b.estimate(scenario)
    available = b.available_memory()
    big = b.Estimate(**{**cost.__dict__, "memory_bytes": 0.97 * available, "series_bytes": 0.97 * available})
    with pytest.raises(tcplab.ScenarioError, match="is available \\(a run may take 80% of it"):
        b.check_memory(scenario, big)
    b.check_memory(scenario, b.Estimate(**{**cost.__dict__, "memory_bytes": 0.5 * available}))
