"""Received throughput means what users think it means (issue "Results people look at
and trust", part 2): bytes arriving at the receiving host per bin, which the network's
capacity bounds, as opposed to goodput, which in-order delivery releases in bursts."""

from __future__ import annotations

import math

import pytest

import tcplab

BIN_S = 0.01
NECK_BPS = 100e6
PACKET_BYTES = 1500

LOSSY_LFN = f"""
[simulation]
duration = "30s"
seed = 3
bin = "{BIN_S * 1e3:g}ms"

[topology.dumbbell]
pairs = 1
access = {{ bandwidth = "1Gbps", delay = "1ms" }}
bottleneck = {{ bandwidth = "100Mbps", delay = "40ms", queue = {{ type = "droptail", limit = "200 packets" }}, loss = {{ type = "bernoulli", rate = 1e-5 }} }}

[[flow]]
from = "left0"
to = "right0"
transport = {{ type = "tcp", cc = "cubic", sack = true }}
app = {{ type = "bulk" }}
"""


def test_received_throughput_never_exceeds_the_bottleneck_while_goodput_bursts_above_it():
    result = tcplab.run(LOSSY_LFN)
    flow = result.summary["flows"][0]
    # Arrivals behind a 100 Mbit/s link are at least one 1,500-byte serialization
    # (120 µs) apart, so a 10 ms bin holds at most ceil(10 ms / 120 µs) = 84 of them.
    serialization_s = PACKET_BYTES * 8 / NECK_BPS
    bound_bps = math.ceil(BIN_S / serialization_s) * PACKET_BYTES * 8 / BIN_S
    print(f"received max {flow['throughput_max_bps'] / 1e6:.2f} Mbit/s (bound {bound_bps / 1e6:.2f}); "
          f"goodput max {flow['goodput_max_bps'] / 1e6:.2f}; mean received {flow['throughput_bps'] / 1e6:.2f}, "
          f"goodput {flow['goodput_bps'] / 1e6:.2f}; {flow['packets_dropped']} lost")
    assert flow["packets_dropped"] > 50
    assert flow["throughput_max_bps"] <= bound_bps
    assert flow["goodput_max_bps"] > 1.5 * NECK_BPS
    series = result.flow_series
    assert series["throughput_bps"].max() == pytest.approx(flow["throughput_max_bps"], rel=1e-12)
    assert series["received_bytes"].sum() == flow["received_bytes"]


def test_received_bytes_are_what_the_last_link_carried():
    """Everything the receiver's access link serialized arrives (it loses nothing),
    except what is still propagating on its 1 ms at the end: at most 1 ms at 1 Gbit/s."""
    result = tcplab.run(LOSSY_LFN)
    flow = result.summary["flows"][0]
    last_link = next(link for link in result.summary["links"] if link["src"] == "router_right" and link["dst"] == "right0")
    in_flight_bytes = 1e9 * 1e-3 / 8
    assert last_link["tx_bytes"] - in_flight_bytes <= flow["received_bytes"] <= last_link["tx_bytes"]
    # Headers and retransmissions: more than the payload delivered.
    assert flow["received_bytes"] > flow["delivered_bytes"]
