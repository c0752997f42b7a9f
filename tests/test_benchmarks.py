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


def test_htsim_is_given_each_benchmark_it_can_express():
    """htsim's dumbbell driver takes B1's and B2's parameters; B3's per-flow access
    delays are beyond it (no row rather than a different scenario)."""
    b1, b2, b3 = bench.BENCHES
    assert [str(a) for a in b1.htsim_args()] == ["-flows", "10", "-access_bw", "1Gbps", "-access_delay", "1ms",
                                                  "-neck_bw", "100Mbps", "-neck_delay", "20ms", "-queue", "100",
                                                  "-duration", "60", "-gap", "0.1", "-iw", "2"]
    assert b2.htsim_args() is not None and b3.htsim_args() is None


def test_htsim_cost_per_packet_is_read_from_its_closing_lines():
    out = "flow 0 0 1500 1 0 0\ndrops 7\ndepartures 2000\nevents 9000\nsetup_wall_s 0.01\nrun_wall_s 0.5\nrun_cpu_s 0.4\n"
    assert bench._htsim_ns_per_packet(out) == (pytest.approx(250_000.0), 2000)
    assert bench._htsim_ns_per_packet("flow 0 0 1500 1 0 0\n") is None


def test_the_fat_tree_workload_follows_the_web_search_cdf():
    """Sizes at the CDF's own points are its sizes; between them linear; the mean by
    hand: sum over segments of probability x midpoint = 1,711,550 bytes."""
    import fat_tree

    assert [fat_tree.web_search_size(p) for _, p in fat_tree.WEB_SEARCH_CDF[1:]] == [x for x, _ in fat_tree.WEB_SEARCH_CDF[1:]]
    assert fat_tree.web_search_size(0.5335) == 80_000 + 6_000  # a twentieth of the way from 80 kB to 200 kB
    assert fat_tree.web_search_mean() == pytest.approx(1_711_550)
    doc = fat_tree.scenario(4, 200, 0.1, 0.05, seed=2)
    assert len(doc["flow"]) == 200 and all(f["from"] != f["to"] for f in doc["flow"])
    starts = [_ns(f["start"]) for f in doc["flow"]]
    assert starts == sorted(starts) and starts[-1] < 0.1e9
    assert tcplab.load(doc).engine["routing"] == {"multipath": "ecmp"}


def test_the_fat_tree_ns2_script_has_every_flow():
    import fat_tree

    doc = fat_tree.scenario(4, 30, 0.1, 0.05, seed=2)
    script = fat_tree.ns2_script(doc, 4)
    assert script.count("new Agent/TCP/Sack1") == 30 and script.count("new Simulator") == 1
    assert script.count("$ns duplex-link") == 1  # one `link` procedure...
    assert script.count("\nlink ") == 3 * 4**3 // 4  # ...called once per link of the tree


def test_the_sweep_overhead_benchmark_measures_the_lan_studys_rto_sweep():
    """The sweep it times is the LAN study's own (40 RTOs x 4 delays), and a small
    version of it runs end to end (not timed here: benchmarks say how fast)."""
    import sweep_overhead

    spec = sweep_overhead._lan_rto_sweep()
    assert len(spec.points()) == 160 and spec.replications == 1
    assert len(sweep_overhead._subset(spec, 4).points()) == 16
    proc = subprocess.run([sys.executable, str(REPO / "benchmarks" / "sweep_overhead.py"),
                           "--values", "3", "--small", "1", "--repeats", "1"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    assert (r["runs"], r["small_runs"]) == (12, 4)
    assert r["engine_ms_per_run"] > 0 and r["full_sweep_cpu_s"] > 0
