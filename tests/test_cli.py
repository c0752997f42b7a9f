"""The `tcplab` command end to end: outputs, overrides, determinism, atomic writes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pandas as pd
import pytest

from conftest import BASE, SCENARIOS, run_cli

FLOW_KEYS = {"id", "src", "dst", "transport", "sent_bytes", "delivered_bytes", "goodput_bps", "goodput_max_bps", "received_bytes",
             "throughput_bps", "throughput_max_bps", "goodput_tail_bps",
             "packets_sent", "packets_delivered", "packets_dropped", "loss_rate", "delay_ms", "jitter_ms"}
LINK_KEYS = {"id", "src", "dst", "bandwidth_bps", "tx_packets", "tx_bytes", "utilization", "drops", "queue_max_bytes",
             "queue_mean_bytes", "queue_max_packets", "queue_mean_packets"}


def test_default_scenario_writes_summary_parquet_and_report(tmp_path):
    out = tmp_path / "res"
    proc = run_cli("run", str(SCENARIOS / "default.toml"), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "Flows" in proc.stdout and "Jain" in proc.stdout
    # The demo says what it shows (#32 item 8): the scenario's description, then the table
    # whose loss columns bear it out (one flow loses everything dropped, the other nothing).
    assert "phase effect" in proc.stdout.split("Flows")[0]
    losses = sorted(f["loss_rate"] for f in json.loads((out / "summary.json").read_text())["flows"])
    assert losses[0] == 0 and losses[1] > 0.3
    for name in ["summary.json", "flow_series.parquet", "link_series.parquet", "delay_cdf.parquet", "flows.csv",
                 "links.csv", "scenario.toml", "report.html"]:
        assert (out / name).stat().st_size > 0, name
    assert not list(out.glob("*.png"))  # plot files only on request (--plots)
    s = json.loads((out / "summary.json").read_text())
    for key in ["tcplab_version", "seed", "duration_s", "events", "wall_time_s", "flows", "links", "fairness"]:
        assert key in s
    assert s["seed"] == 7 and s["duration_s"] == 10.0
    assert FLOW_KEYS <= set(s["flows"][0])
    assert {"min", "mean", "p50", "p95", "p99", "max"} == set(s["flows"][0]["delay_ms"])
    assert LINK_KEYS <= set(s["links"][0])
    assert {"queue", "red", "random"} == set(s["links"][0]["drops"])
    assert "jain" in s["fairness"]
    series = pd.read_parquet(out / "flow_series.parquet")
    assert len(series) == 2 * 200  # two flows x (10 s / 50 ms)
    # The per-bin series add up to the summary totals.
    for f in s["flows"]:
        assert series[series.flow == f["id"]]["delivered_bytes"].sum() == f["delivered_bytes"]


def test_json_flag_prints_the_summary(tmp_path):
    proc = run_cli("run", str(SCENARIOS / "default.toml"), "--out", str(tmp_path / "r"), "--json", "--no-report")
    assert proc.returncode == 0, proc.stderr
    s = json.loads(proc.stdout)
    assert len(s["flows"]) == 2
    assert not (tmp_path / "r" / "report.html").exists()


def test_set_overrides_the_bottleneck_bandwidth(write_scenario, tmp_path):
    path = write_scenario(BASE)
    proc = run_cli("run", str(path), "--out", str(tmp_path / "a"), "--json", "--no-plots",
                   "--set", "topology.dumbbell.bottleneck.bandwidth=3Mbps")
    assert proc.returncode == 0, proc.stderr
    s = json.loads(proc.stdout)
    neck = next(l for l in s["links"] if l["id"] == "router_left->router_right")
    assert neck["bandwidth_bps"] == 3_000_000
    # 6 Mbps offered into 3 Mbps: the flow gets the link's payload share, 3 Mbps * 1000/1028.
    f = s["flows"][0]
    assert abs(f["goodput_bps"] - 3e6 * 1000 / 1028) / 3e6 < 0.02


def test_set_indexes_lists_and_seed_overrides(write_scenario, tmp_path):
    path = write_scenario(BASE)
    proc = run_cli("run", str(path), "--out", str(tmp_path / "a"), "--json", "--no-plots",
                   "--set", "flow[0].app.rate=2Mbps", "--seed", "99")
    s = json.loads(proc.stdout)
    assert s["seed"] == 99
    assert abs(s["flows"][0]["goodput_bps"] - 2e6) / 2e6 < 0.01


def _without_wall_clock(text: str) -> str:
    s = json.loads(text)
    s.pop("wall_time_s")
    s["provenance"].pop("started_at")
    return json.dumps(s, sort_keys=True)


def test_same_seed_gives_byte_identical_summary_apart_from_wall_time(tmp_path):
    scenario = str(SCENARIOS / "default.toml")
    overrides = ["--set", 'flow[1].app={type="poisson", rate="6Mbps", packet_size="1000B"}']
    a = run_cli("run", scenario, "--out", str(tmp_path / "a"), "--no-plots", *overrides)
    b = run_cli("run", scenario, "--out", str(tmp_path / "b"), "--no-plots", *overrides)
    assert a.returncode == 0 and b.returncode == 0
    ta, tb = (tmp_path / "a" / "summary.json").read_text(), (tmp_path / "b" / "summary.json").read_text()
    assert _without_wall_clock(ta) == _without_wall_clock(tb)
    la = [l for l in ta.splitlines() if "wall_time_s" not in l and "started_at" not in l]
    lb = [l for l in tb.splitlines() if "wall_time_s" not in l and "started_at" not in l]
    assert la == lb  # byte-identical line by line
    c = run_cli("run", scenario, "--out", str(tmp_path / "c"), "--no-plots", "--seed", "8", *overrides)
    assert _without_wall_clock((tmp_path / "c" / "summary.json").read_text()) != _without_wall_clock(ta)


def test_rerun_replaces_previous_results_and_failed_run_keeps_them(write_scenario, tmp_path):
    out = tmp_path / "res"
    good = write_scenario(BASE, "good.toml")
    assert run_cli("run", str(good), "--out", str(out), "--no-plots").returncode == 0
    before = (out / "summary.json").read_text()
    bad = write_scenario(BASE.replace('"10Mbps"', '"0Mbps"'), "bad.toml")
    assert run_cli("run", str(bad), "--out", str(out)).returncode == 2
    assert (out / "summary.json").read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temp dirs left
    proc = run_cli("run", str(good), "--out", str(out), "--set", "flow[0].app.rate=1Mbps", "--no-plots")
    assert proc.returncode == 0
    assert (out / "summary.json").read_text() != before


def test_refuses_to_replace_a_directory_that_is_not_results(write_scenario, tmp_path):
    precious = tmp_path / "thesis"
    precious.mkdir()
    (precious / "chapter1.tex").write_text("...")
    proc = run_cli("run", str(write_scenario(BASE)), "--out", str(precious))
    assert proc.returncode == 2 and "refusing" in proc.stderr
    assert (precious / "chapter1.tex").read_text() == "..."


def test_validate_reports_a_valid_scenario():
    proc = run_cli("validate", str(SCENARIOS / "default.toml"))
    assert proc.returncode == 0 and "valid" in proc.stdout


COMMANDS = ["run", "validate", "report", "compare", "sweep", "query", "reproduce", "advise", "measure", "emu",
            "crosscheck", "examples", "schema"]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_reads_whole_at_80_columns(command):
    """Every command's help at 80 columns: nothing cut ("…"), no Python object where a
    value should be named, and text in square brackets kept (Rich reads it as markup
    unless escaped: "A scenario with a  table")."""
    env = {**os.environ, "COLUMNS": "80"}
    proc = subprocess.run([sys.executable, "-m", "tcplab", command, "--help"], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0 and "Usage" in proc.stdout, proc.stderr
    assert "…" not in proc.stdout and "<function" not in proc.stdout, proc.stdout
    assert all(len(line) <= 80 for line in proc.stdout.splitlines())
    if command == "sweep":
        assert "[sweep]" in proc.stdout


def test_help_lists_every_command():
    proc = run_cli("--help")
    assert proc.returncode == 0 and all(c in proc.stdout for c in COMMANDS)


def test_names_that_look_like_terminal_markup_are_printed_as_written(tmp_path):
    """Rich reads "[/]" and "[bold]" as markup; user names must not be (they crashed the
    summary after the results were written)."""
    p = tmp_path / "odd.toml"
    p.write_text("""
[simulation]
duration = "1s"
[[node]]
name = "a[/]"
[[node]]
name = "b[bold]"
[[link]]
from = "a[/]"
to = "b[bold]"
bandwidth = "10Mbps"
delay = "1ms"
[[flow]]
name = "x[/]y"
from = "a[/]"
to = "b[bold]"
app = { type = "bulk" }
transport = "tcp"
""")
    r = run_cli("run", str(p), "--out", str(tmp_path / "res"), "--no-plots")
    assert r.returncode == 0, r.stderr
    assert "x[/]y" in r.stdout and "a[/]->b[bold]" in r.stdout


def test_tables_fit_80_columns_without_cutting_a_number(tmp_path):
    """On an 80-column terminal a wide table is split (the id repeated), not squeezed:
    no line is longer, nothing is elided, and every flow's goodput is printed whole."""
    import os

    env = {**os.environ, "COLUMNS": "80"}
    p = subprocess.run([sys.executable, "-m", "tcplab", "run", str(SCENARIOS / "lan-base.toml"), "--out", str(tmp_path / "o"),
                        "--no-plots"], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "…" not in p.stdout
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    for flow in summary["flows"]:
        row = next(line for line in lines if re.match(rf"│ {re.escape(flow['id'])} +│ ", line) and "→" in line)
        assert f"{flow['goodput_bps'] / 1e6:.3f}" in row


def test_every_plot_is_written_in_the_chosen_format(tmp_path):
    """TCP over a lossy link gives every plot: throughput, queue (packets and delay),
    utilisation, per-flow rates, throughput CDF, delay CDF, cwnd/ssthresh, RTT, loss.
    PNG at 1,600 × 900 pixels; SVG and PDF as vector files."""
    import struct

    scenario = tmp_path / "s.toml"
    scenario.write_text((SCENARIOS / "lan-base.toml").read_text())
    names = {"throughput", "queue", "utilization", "flow_rates", "throughput_cdf", "delay_cdf", "cwnd", "rtt", "loss"}
    for fmt, magic in (("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF")):
        out = tmp_path / fmt
        p = run_cli("run", str(scenario), "--out", str(out), "--set", "simulation.duration=2s", "--plot-format", fmt)
        assert p.returncode == 0, p.stderr
        assert {f.stem for f in out.glob(f"*.{fmt}")} == names
        for name in names:
            assert (out / f"{name}.{fmt}").read_bytes().startswith(magic)
    width, height = struct.unpack(">II", (tmp_path / "png" / "rtt.png").read_bytes()[16:24])
    assert (width, height) == (1600, 900)
    p = run_cli("run", str(scenario), "--out", str(tmp_path / "x"), "--plot-format", "gif")
    assert p.returncode == 2 and "--plot-format" in p.stderr


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_a_reader_that_stops_early_does_not_cost_the_run(tmp_path, json_flag):
    """`tcplab run … | head -1`: the reader closes the pipe after one line; the command
    still writes its results and exits 0 (it used to exit 1 and write nothing)."""
    import shlex

    out = tmp_path / "out"
    command = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "tcplab", "run", str(SCENARIOS / "default.toml"),
                                                   "--out", str(out), "--no-report", *json_flag])
    p = subprocess.run(["bash", "-c", f"set -o pipefail; {command} | head -c 20 > /dev/null"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    assert (out / "summary.json").exists() and (out / "flows.csv").exists()


def test_validate_reports_on_one_line_when_piped_to_a_narrow_reader(write_scenario):
    # Scripts read this line (tests/test_budget.py does); a long path once wrapped it
    # where $COLUMNS was small, splitting "estimated" from its count.
    path = write_scenario(BASE, "a-scenario-with-a-name-long-enough-to-pass-the-width-of-any-terminal.toml")
    env = {**os.environ, "COLUMNS": "40"}
    p = subprocess.run([sys.executable, "-m", "tcplab", "validate", str(path)], capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert len(p.stdout.splitlines()) == 1 and re.search(r"estimated [\d,]+ events", p.stdout), p.stdout
