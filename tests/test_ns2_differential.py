"""Differential check against ns-2 (Debian package `ns2`) on benchmark B1 of
../shared/DESIGN.md: 10 NewReno flows, 100 Mbit/s / 20 ms / 100-packet DropTail.

Both tools are configured to model the same thing (benchmarks/README.md, "Matching the
tools"): no handshake, ACK per segment, 1500-byte packets, IW 2, min RTO 200 ms,
non-limiting receive window. Aggregate goodput must agree within ±5% and Jain's index
within ±0.05. ns-2 is installed by this test if it is missing and the machine allows it
(root + apt-get); otherwise the test is skipped with the reason printed.
"""

from __future__ import annotations

import subprocess


import tcplab
from conftest import REPO
from debian import ensure

B1 = REPO / "benchmarks" / "scenarios" / "b1-dumbbell-10.toml"
NS2_SCRIPT = REPO / "benchmarks" / "ns2" / "dumbbell.tcl"


def ensure_ns2() -> str:
    """Path of the `ns` binary, installing Debian's ns2 (pinned) if possible; skips otherwise."""
    return ensure("ns", "ns2")


def jain(xs: list[float]) -> float:
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def run_ns2_b1(ns: str, duration: float) -> list[float]:
    proc = subprocess.run(
        [ns, str(NS2_SCRIPT), "10", "1Gb", "1ms", "100Mb", "20ms", "100", str(duration), "0.1", "2"],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    goodputs = []
    for line in proc.stdout.splitlines():
        if line.startswith("flow "):
            _, _, start, acked = line.split()
            # ack_ is the highest cumulatively acknowledged segment number, from 0.
            goodputs.append((int(acked) + 1) * 1460 * 8 / (duration - float(start)))
    assert len(goodputs) == 10, proc.stdout
    return goodputs


def test_b1_agrees_with_ns2():
    ns = ensure_ns2()
    ours = tcplab.run(B1)
    ours_goodput = [f["goodput_bps"] for f in ours.summary["flows"]]
    theirs = run_ns2_b1(ns, 60.0)
    agg_ours, agg_theirs = sum(ours_goodput), sum(theirs)
    print(f"\nB1 aggregate goodput: ns-2 {agg_theirs / 1e6:.2f} Mbit/s, tcplab {agg_ours / 1e6:.2f} Mbit/s "
          f"({100 * (agg_ours / agg_theirs - 1):+.2f}%); Jain: ns-2 {jain(theirs):.4f}, tcplab {jain(ours_goodput):.4f}")
    assert abs(agg_ours / agg_theirs - 1) <= 0.05
    assert abs(jain(ours_goodput) - jain(theirs)) <= 0.05
    # Both keep the bottleneck busy: the payload share of 100 Mbit/s bounds both.
    assert agg_ours <= 100e6 * 1460 / 1500 and agg_theirs <= 100e6 * 1460 / 1500
