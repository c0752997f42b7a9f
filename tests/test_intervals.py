"""Interval reports while a run goes on (issue "Results people look at and trust",
part 6): ``tcplab run --interval`` prints per flow and interval what was delivered,
and the intervals add up to the run's own totals."""

from __future__ import annotations

import json

import pytest

from conftest import BASE, run_cli

TWO_TCP_FLOWS = BASE[:BASE.index("[[flow]]")] + """
[[flow]]
count = 2
from = "left{i}"
to = "right{i}"
transport = { type = "tcp", cc = "cubic" }
app = { type = "bulk" }
"""


def _stream(write_scenario, tmp_path, *args) -> tuple[list[dict], dict]:
    path = write_scenario(TWO_TCP_FLOWS)
    p = run_cli("run", str(path), "--out", str(tmp_path / "o"), "--no-plots", "--json", *args)
    assert p.returncode == 0, p.stderr
    lines = [json.loads(line) for line in p.stdout.splitlines()]
    return lines[:-1], lines[-1]


@pytest.mark.parametrize("interval, edges", [("0.5s", [0, 0.5, 1.0, 1.5, 2.0]), ("0.8s", [0, 0.8, 1.6, 2.0])])
def test_intervals_tile_the_run_and_add_up_to_its_totals(write_scenario, tmp_path, interval, edges):
    reports, summary = _stream(write_scenario, tmp_path, "--interval", interval)
    for flow in summary["flows"]:
        mine = [r for r in reports if r["flow"] == flow["id"]]
        assert [r["start_s"] for r in mine] == pytest.approx(edges[:-1])
        assert [r["end_s"] for r in mine] == pytest.approx(edges[1:])
        assert sum(r["delivered_bytes"] for r in mine) == flow["delivered_bytes"]
        assert sum(r["received_bytes"] for r in mine) == flow["received_bytes"]
        assert sum(r["packets_sent"] for r in mine) == flow["packets_sent"]
        assert sum(r["retransmits"] for r in mine) == flow["retransmits"]
        for r in mine:  # each rate over its own interval, the last one shorter
            assert r["goodput_bps"] == pytest.approx(r["delivered_bytes"] * 8 / (r["end_s"] - r["start_s"]), rel=1e-12)
            assert r["cwnd_bytes"] > 0


def test_text_reports_have_one_header_and_a_line_per_flow_and_interval(write_scenario, tmp_path):
    path = write_scenario(TWO_TCP_FLOWS)
    p = run_cli("run", str(path), "--out", str(tmp_path / "o"), "--no-plots", "--interval", "1s")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].split()[:3] == ["flow", "interval", "s"]
    assert [line.split()[:2] for line in lines[1:5]] == [["flow0", "0.00-1.00"], ["flow1", "0.00-1.00"],
                                                         ["flow0", "1.00-2.00"], ["flow1", "1.00-2.00"]]
    assert sum(1 for line in lines if line.startswith("flow ")) == 1


@pytest.mark.parametrize("bad", ["0s", "-1s", "soon", "1e400s"])
def test_a_bad_interval_is_refused_with_one_message(write_scenario, tmp_path, bad):
    path = write_scenario(TWO_TCP_FLOWS)
    p = run_cli("run", str(path), "--out", str(tmp_path / "o"), "--interval", bad)
    assert p.returncode == 2, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "--interval" in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "o").exists()
