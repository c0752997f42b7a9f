"""A results directory says what produced it and can be reproduced and compared
(issue "Results people look at and trust", part 4)."""

from __future__ import annotations

import json
import subprocess
import tomllib

import pytest

import tcplab
from conftest import REPO, SCENARIOS, run_cli
from tcplab.scenario import toml_writer

DEFAULT = SCENARIOS / "default.toml"


def _summary(directory) -> dict:
    return json.loads((directory / "summary.json").read_text())


def test_a_run_records_its_provenance_and_its_scenario_as_run(tmp_path):
    out = tmp_path / "a"
    p = run_cli("run", str(DEFAULT), "--out", str(out), "--no-plots", "--set", "simulation.duration=1.5s", "--seed", "11")
    assert p.returncode == 0, p.stderr
    s = _summary(out)
    prov = s["provenance"]
    assert prov["source"] == str(DEFAULT)
    assert prov["overrides"] == ["simulation.duration=1.5s", "simulation.seed=11"]
    assert prov["tcplab_version"] == tcplab.__version__ and prov["python"] and prov["platform"]
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True)
    if head.returncode == 0:  # a checkout (CI's fresh clone is one)
        assert prov["git_commit"].removesuffix("-dirty") == head.stdout.strip()
    as_run = s["scenario_as_run"]
    assert as_run["simulation"]["duration"] == "1.5s" and as_run["simulation"]["seed"] == 11
    assert as_run["name"] == "default" == s["scenario"]
    assert tomllib.loads((out / "scenario.toml").read_text()) == as_run


def test_running_the_stored_scenario_reproduces_the_run(tmp_path):
    """Everything but the provenance and the wall time is identical: summary fields,
    and the Parquet and CSV files byte for byte."""
    first, second = tmp_path / "first", tmp_path / "second"
    p = run_cli("run", str(DEFAULT), "--out", str(first), "--no-plots", "--set", "topology.dumbbell.bottleneck.bandwidth=8Mbps")
    assert p.returncode == 0, p.stderr
    p = run_cli("run", str(first / "scenario.toml"), "--out", str(second), "--no-plots")
    assert p.returncode == 0, p.stderr
    a, b = _summary(first), _summary(second)
    for s in (a, b):
        del s["provenance"], s["wall_time_s"]
    assert a == b
    for name in ("flow_series.parquet", "link_series.parquet", "delay_cdf.parquet", "flows.csv", "links.csv", "scenario.toml"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


@pytest.mark.parametrize("doc", [
    {"name": 'quote " and \\ back', "simulation": {"duration": "2s", "ratio": 1e-05, "big": 10**15, "on": True}},
    {"odd key.with dot": "ünïcode\nnew line\ttab", "x": {"inf": float("inf"), "list": [1, 2.5, "s", [3]]}},
    {"flow": [{"from": "a", "app": {"type": "cbr", "nested": {"deep": [{"k": 1}]}}}, {"from": "b"}], "empty": {}},
])
def test_the_toml_writer_round_trips(doc):
    assert tomllib.loads(toml_writer.dumps(doc)) == doc


def test_load_of_a_results_directory_gives_the_run_back(tmp_path):
    result = tcplab.run(DEFAULT, overrides=["simulation.duration=1s"])
    result.save(tmp_path / "r", plots=False)
    loaded = tcplab.load(tmp_path / "r")
    assert isinstance(loaded, tcplab.RunResult)
    assert loaded.summary["flows"] == json.loads(json.dumps(result.summary["flows"]))
    assert loaded.flow_series["delivered_bytes"].tolist() == result.flow_series["delivered_bytes"].tolist()
    assert loaded.link_series.shape == result.link_series.shape
    # A scenario path still loads a scenario.
    assert isinstance(tcplab.load(str(DEFAULT)), tcplab.Scenario)


def test_compare_names_the_scenario_difference_and_the_change(tmp_path):
    a, b = tmp_path / "slow", tmp_path / "fast"
    for out, bandwidth in ((a, "10Mbps"), (b, "20Mbps")):
        p = run_cli("run", str(DEFAULT), "--out", str(out), "--no-plots", "--set", f"topology.dumbbell.bottleneck.bandwidth={bandwidth}")
        assert p.returncode == 0, p.stderr
    p = run_cli("compare", str(a), str(b), "--out", str(tmp_path / "cmp"))
    assert p.returncode == 0, p.stderr
    assert "topology.dumbbell.bottleneck.bandwidth" in p.stdout and "10Mbps" in p.stdout and "20Mbps" in p.stdout
    # The change in flow1's goodput, worked from the two summaries.
    before = next(f for f in _summary(a)["flows"] if f["id"] == "flow1")["goodput_bps"]
    after = next(f for f in _summary(b)["flows"] if f["id"] == "flow1")["goodput_bps"]
    row = next(line for line in p.stdout.splitlines() if "flow1" in line and "goodput" in line)
    assert f"{100 * (after - before) / before:,.3f}" in row
    assert {"throughput.png", "queue.png", "flows.csv", "links.csv"} <= {f.name for f in (tmp_path / "cmp").iterdir()}
    # The comparison's marker says what it holds (#35): given back as a run's results it
    # is named as a comparison, not as "not a tcplab results directory".
    assert json.loads((tmp_path / "cmp" / ".tcplab-results").read_text())["kind"] == "comparison"
    assert json.loads((a / ".tcplab-results").read_text())["kind"] == "run"
    for args in (["report", str(tmp_path / "cmp")], ["compare", str(tmp_path / "cmp"), str(a), "--out", str(tmp_path / "c2")]):
        p = run_cli(*args)
        assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert "holds the output of tcplab compare, not one run's results" in p.stderr


def test_compare_refuses_a_directory_without_results(tmp_path):
    (tmp_path / "empty").mkdir()
    p = run_cli("compare", str(tmp_path / "empty"), str(tmp_path / "empty"))
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1 and "not a tcplab results directory" in p.stderr


def test_a_result_renders_compactly_in_a_notebook():
    result = tcplab.run(DEFAULT, overrides=["simulation.duration=1s"])
    page = result._repr_html_()
    assert page.startswith("<p><b>default</b>: 1 s simulated")
    for flow in result.summary["flows"]:
        assert f"<td>{flow['id']}</td>" in page and f"{flow['goodput_bps'] / 1e6:.3f}" in page
