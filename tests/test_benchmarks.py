"""Smoke test of the benchmark files (not a timed test): the tcplab scenarios of B1-B3
load, agree with the parameters the harness hands to ns-2 and ns-3, and B1 runs for a
few simulated seconds through the harness's lean runner."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import tcplab
from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
import run as bench  # noqa: E402


def _ns(text: str) -> int:
    from tcplab.scenario.units import parse_duration_ns

    return parse_duration_ns(text, "")


@pytest.mark.parametrize("b", bench.BENCHES, ids=[b.toml for b in bench.BENCHES])
def test_tcplab_scenario_matches_the_parameters_given_to_ns2_and_ns3(b):
    engine = tcplab.load(REPO / "benchmarks" / "scenarios" / b.toml).engine
    assert engine["simulation"]["duration_ns"] == int(b.duration * 1e9)
    assert len(engine["flows"]) == b.flows
    neck = engine["links"][0]
    assert (neck["from"], neck["to"]) == ("router_left", "router_right")
    assert neck["forward"]["queue"]["limit"] == {"value": b.neck_queue, "unit": "packets"}
    assert neck["delay_ns"] == _ns(b.neck_delay)
    for i, f in enumerate(engine["flows"]):
        assert f["start_ns"] == round(i * b.spacing * 1e9)
        t = f["transport"]
        assert (t["cc"]["algorithm"], t["sack"], t["ack_every"], t["handshake"], t["initial_window_segments"]) == ("newreno", False, 1, False, b.iw)
    senders = [l for l in engine["links"] if l["from"].startswith("left")]
    for i, l in enumerate(senders):
        expected = f"{1 + i % b.delay_mod}ms" if b.delay_mod else b.access_delay
        assert l["delay_ns"] == _ns(expected)


def test_b1_runs_briefly_through_the_lean_runner():
    proc = subprocess.run([sys.executable, str(REPO / "benchmarks" / "tcplab_run.py"),
                           str(REPO / "benchmarks" / "scenarios" / "b1-dumbbell-10.toml"), "simulation.duration=3s"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(r["goodputs_bps"]) == 10
    # The bottleneck can carry at most 3 s x 100 Mbit/s of 1500-byte packets.
    assert 0 < r["bottleneck_packets"] <= 3 * 100e6 / 12000 + 1


def test_ns2_script_arguments_are_what_the_script_expects():
    args = bench.BENCHES[0].ns2_args()
    assert [str(a) for a in args] == ["10", "1Gb", "1ms", "100Mb", "20ms", "100", "60", "0.1", "2", "0"]
