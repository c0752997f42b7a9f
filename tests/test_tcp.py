"""TCP through the Python API and the bundled study base cases."""

from __future__ import annotations

import pytest

import tcplab
from conftest import SCENARIOS, TCP_BASE


def test_tcp_flow_reports_transport_counters_and_series():
    r = tcplab.run(TCP_BASE)
    f = r.summary["flows"][0]
    assert f["transport"] == "tcp"
    for key in ("retransmits", "fast_retransmits", "rto_count", "srtt_ms"):
        assert f[key] is not None
    assert f["fct_s"] is None  # bulk never completes
    # Goodput can never exceed the bottleneck's payload capacity (10 Mbit/s x 1460/1500).
    assert f["goodput_bps"] <= 10e6 * 1460 / 1500
    s = r.flow_series
    assert s["cwnd_bytes"].notna().any() and s["srtt_ms"].notna().any()
    # SRTT is at least the 28 ms of round-trip propagation.
    assert s["srtt_ms"].dropna().min() >= 28.0


def test_file_transfer_completion_time_matches_window_over_rtt():
    # 100 segments, window 20 < BDP (10 Mbit/s x 28 ms = 23 segments), ACK per segment.
    # Round 0's burst leaves the bottleneck 1.2 ms apart; from then on each ACK releases
    # one segment, so segment 20r + j is sent at t0 + r·RTT + j·1.2 ms and the last one
    # (r = 4, j = 19) arrives one way later. t0 is the SYN/SYN-ACK round trip.
    text = TCP_BASE.replace('{ type = "bulk" }', '{ type = "file", size = "146000B" }').replace(
        'cc = "newreno"', 'cc = "newreno", max_window = "20 segments", initial_window = 20, delayed_ack = false')
    f = tcplab.run(text).summary["flows"][0]

    def crossing(ip_bytes: int) -> float:  # serialization on the 100, 10, 100 Mbit/s hops
        return ip_bytes * 8 * (2 / 100e6 + 1 / 10e6)

    syn = 20 + 20 + 12  # IP + TCP + MSS, window-scale and SACK-permitted options
    t0 = 0.028 + 2 * crossing(syn)
    rtt = 0.028 + crossing(1500) + crossing(40)
    one_way = 0.014 + crossing(1500)
    expected = t0 + 4 * rtt + 19 * 1500 * 8 / 10e6 + one_way
    assert f["fct_s"] == pytest.approx(expected, abs=1e-6)
    assert f["delivered_bytes"] == 146000


@pytest.mark.parametrize("name", ["jumbo-base", "lan-base", "lan-halfduplex"])
def test_study_base_cases_run_and_conserve_packets(name):
    r = tcplab.run(SCENARIOS / f"{name}.toml")
    for f in r.summary["flows"]:
        assert f["packets_sent"] == f["packets_delivered"] + f["packets_dropped"] + f["packets_in_flight"]
        assert f["delivered_bytes"] > 0


def test_jumbo_base_case_uses_jumbo_segments_only_on_node7():
    r = tcplab.run(SCENARIOS / "jumbo-base.toml", overrides=["simulation.duration=2s"])
    flows = {f["id"]: f for f in r.summary["flows"]}
    # MSS from path MTU: 9180 - 40 = 9140 B for node 7, 1460 B for the others.
    assert flows["node7"]["sent_bytes"] % 9140 == 0
    assert flows["node8"]["sent_bytes"] % 1460 == 0
    assert flows["node7"]["fragments"] == 0


def test_lan_base_case_delivers_the_bottleneck_capacity():
    r = tcplab.run(SCENARIOS / "lan-base.toml")
    total = sum(f["goodput_bps"] for f in r.summary["flows"])
    # 10 Mbit/s of 1040-byte packets carrying 1000 B each, less start-up and recovery.
    assert 0.9 * 10e6 * 1000 / 1040 < total <= 10e6 * 1000 / 1040


def test_lan_halfduplex_shares_one_medium_between_data_and_acks():
    r = tcplab.run(SCENARIOS / "lan-halfduplex.toml")
    total = sum(f["goodput_bps"] for f in r.summary["flows"])
    # Data (1040 B per 1000 B of payload) and the server's ACKs (40 B each, one per
    # segment unless the server's queue drops it) take turns on one 10 Mbit/s medium:
    # at most 1000 / 1080 of it is payload, and more than the star's 0.9 share of a
    # full-duplex link would need the ACKs to vanish.
    assert 0.85 * 10e6 * 1000 / 1080 < total <= 10e6 * 1000 / 1040
    acks_sent = next(l for l in r.summary["links"] if l["id"] == "server->lan")["tx_packets"]
    data_sent = sum(l["tx_packets"] for l in r.summary["links"] if l["dst"] == "lan" and l["src"] != "server")
    busy = (data_sent * 1040 + acks_sent * 40) * 8 / 30
    assert busy <= 10e6 * 1.0001  # one transmission at a time


def test_rate_limited_application_sets_the_pace_below_capacity():
    # A "disk" producing 4 Mbit/s behind a 10 Mbit/s bottleneck: TCP delivers what the
    # application writes, no more (the LFN study's end-host bottleneck).
    text = TCP_BASE.replace('{ type = "bulk" }', '{ type = "rate_limited", rate = "4Mbps" }')
    r = tcplab.run(text, overrides=["simulation.duration=10s"])
    f = r.summary["flows"][0]
    assert f["goodput_bps"] == pytest.approx(4e6, rel=0.02)
    assert f["packets_dropped"] == 0
    # cwnd stops growing once the application, not the window, limits the sender.
    cwnd = r.flow_series["cwnd_bytes"].dropna()
    assert cwnd.max() < 100 * 1460


#: One CUBIC flow whose own 20 Mb/s access link is its bottleneck (the core is 100 Mb/s):
#: where a Linux host's standing queue would form in its own qdisc.
HOST_BOTTLENECK = """
[simulation]
duration = "20s"
seed = 1
bin = "100ms"

[topology.dumbbell]
pairs = 1
access = { bandwidth = "20Mbps", delay = "1ms" }
bottleneck = { bandwidth = "100Mbps", delay = "20ms", queue = { type = "droptail", limit = "100 packets" } }

[[flow]]
from = "left0"
to = "right0"
app = { type = "bulk" }
transport = { type = "tcp", cc = "cubic", profile = "linux", small_queues = SMALL_QUEUES }
"""


@pytest.mark.parametrize("small_queues", [True, False])
def test_tcp_small_queues_keep_a_host_that_is_its_own_bottleneck_nearly_empty(small_queues: bool):
    """TCP Small Queues (the `linux` profile's `small_queues`): Linux lets at most
    max(2 packets, 1/1024 s of the pacing rate) of a flow wait in its host's first link.
    Here the pacing rate is about 1.2 × 20 Mb/s (cwnd grows only while it is full, so it
    stays near the path's 44 ms × 20 Mb/s), 1/1024 s of which is 2,930 bytes: under two
    1,500-byte packets, so the host holds two and the one sent at the limit, and the
    link stays busy because the engine wakes the sender at each of its packets'
    transmit completions. Without them the host's 1,000-packet queue fills, drops, and
    every RTT sample waits in it."""
    text = HOST_BOTTLENECK.replace("SMALL_QUEUES", str(small_queues).lower())
    r = tcplab.run(text)
    host = r.links.set_index("id").loc["left0->router_left"]
    flow = r.flows.iloc[0]
    assert host.utilization >= 0.99
    if small_queues:
        assert host.queue_max_packets <= 3 and host.drops_queue == 0 and flow.retransmits == 0
        assert flow.srtt_ms < 44 + 5, flow.srtt_ms  # 2 × (1 + 20 + 1) ms and a few packets' serialization
    else:
        assert host.queue_max_packets == 1000 and host.drops_queue > 0
        assert flow.srtt_ms > 200, flow.srtt_ms


def test_tcp_small_queues_hold_each_flow_of_a_host_apart():
    """TSQ's limit is per socket (`sk_wmem_alloc`): two flows from one host each keep
    their own two packets plus the one sent at the limit in its 20 Mb/s link, at most 6
    together, the link busy and nothing dropped there."""
    second = '\n[[flow]]\nfrom = "left0"\nto = "right0"\nstart = "1s"\napp = { type = "bulk" }\n' \
             'transport = { type = "tcp", cc = "cubic", profile = "linux" }\n'
    r = tcplab.run(HOST_BOTTLENECK.replace("SMALL_QUEUES", "true") + second)
    host = r.links.set_index("id").loc["left0->router_left"]
    assert 3 < host.queue_max_packets <= 6 and host.drops_queue == 0 and host.utilization >= 0.99
    assert (r.flows.retransmits == 0).all()
