"""Packet captures (issue "Results people look at and trust", part 5): libpcap files
that Debian's tshark reads without complaint, and whose analysis agrees with tcplab's
own summary of the same run."""

from __future__ import annotations

import json
import subprocess

import pytest

from conftest import run_cli
from debian import ensure

# A SACK CUBIC flow that loses packets at a small bottleneck queue and to random
# loss, with the handshake and timestamps, plus a UDP flow beside it. The access queues
# never drop, so every packet a sender sends crosses its own link.
LOSSY = """
[simulation]
duration = "3s"
seed = 5

[topology.dumbbell]
pairs = 2
access = { bandwidth = "1Gbps", delay = "1ms", queue = { type = "droptail", limit = "10000 packets" } }
bottleneck = { bandwidth = "50Mbps", delay = "20ms", queue = { type = "droptail", limit = "60 packets" }, loss = { type = "bernoulli", rate = 1e-3 } }

[[flow]]
from = "left0"
to = "right0"
transport = { type = "tcp", cc = "cubic", sack = true, timestamps = true, handshake = true }
app = { type = "bulk" }

[[flow]]
from = "left1"
to = "right1"
transport = "udp"
app = { type = "cbr", rate = "5Mbps", packet_size = "1000B" }
"""


def _tshark(tshark: str, path, *args: str) -> str:
    p = subprocess.run([tshark, "-r", str(path), *args], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.fixture(scope="module")
def captured(tmp_path_factory):
    tshark = ensure("tshark", "tshark")
    out = tmp_path_factory.mktemp("pcap") / "run"
    scenario = out.parent / "lossy.toml"
    scenario.write_text(LOSSY)
    p = run_cli("run", str(scenario), "--out", str(out), "--no-plots", "--pcap", "flow0", "--pcap", "all")
    assert p.returncode == 0, p.stderr
    return tshark, out, json.loads((out / "summary.json").read_text())


def test_the_hosts_file_maps_capture_addresses_to_node_names(captured):
    """`tshark -H pcap/hosts` shows the flow between the scenario's node names (#32
    item 5): each flow's capture carries its sender's and receiver's names both ways."""
    tshark, out, summary = captured
    pairs = set()
    for line in _tshark(tshark, out / "pcap" / "flow0.pcap", "-H", str(out / "pcap" / "hosts"), "-N", "n",
                        "-T", "fields", "-e", "ip.src_host", "-e", "ip.dst_host").splitlines():
        pairs.add(tuple(line.split("\t")))
    flow = summary["flows"][0]
    assert pairs == {(flow["src"], flow["dst"]), (flow["dst"], flow["src"])}


def test_every_capture_parses_without_malformed_packets(captured):
    tshark, out, summary = captured
    files = sorted((out / "pcap").glob("*.pcap"))
    assert len(files) == 1 + len(summary["links"])
    for path in files:
        bad = _tshark(tshark, path, "-Y", "_ws.malformed || _ws.expert.severity == error")
        assert bad == "", f"{path.name}: {bad[:500]}"


def test_each_link_capture_holds_what_the_link_carried(captured):
    """Frames and bytes of each link direction's file equal the link's tx_packets and
    tx_bytes (IP bytes), counted by tshark."""
    tshark, out, summary = captured
    for link in summary["links"]:
        name = link["id"].replace("->", "-to-") + ".pcap"
        lengths = _tshark(tshark, out / "pcap" / name, "-T", "fields", "-e", "frame.len").split()
        assert (len(lengths), sum(map(int, lengths))) == (link["tx_packets"], link["tx_bytes"]), link["id"]


def test_tshark_sees_the_flows_conversation_and_its_retransmissions(captured):
    """On the TCP sender's own link (both directions): one conversation whose frames
    are the data packets sent and the ACKs received, and as many segments below the
    highest sequence number already sent as the sender retransmitted. (tshark calls a
    retransmission that follows new data closely "out of order" rather than
    "retransmission"; on the sender's own link nothing is reordered, so together they
    are exactly the retransmissions.)"""
    tshark, out, summary = captured
    flow = summary["flows"][0]
    path = out / "pcap" / "flow0.pcap"
    conv = _tshark(tshark, path, "-q", "-z", "conv,tcp")
    assert sum(1 for line in conv.splitlines() if "<->" in line) == 1
    frames = _tshark(tshark, path, "-T", "fields", "-e", "ip.src").split()
    sender = frames[0]
    data = sum(1 for ip in frames if ip == sender)
    acks = len(frames) - data
    first_hop = next(link for link in summary["links"] if link["src"] == "left0")
    back = next(link for link in summary["links"] if link["dst"] == "left0")
    assert data == flow["packets_sent"] == first_hop["tx_packets"]
    assert acks == back["tx_packets"]
    retransmitted = _tshark(tshark, path, "-Y", "tcp.analysis.retransmission || tcp.analysis.out_of_order",
                            "-T", "fields", "-e", "frame.number").split()
    print(f"tshark: {len(retransmitted)} retransmitted segments; tcplab: {flow['retransmits']}")
    assert flow["retransmits"] > 10
    assert len(retransmitted) == flow["retransmits"]
    sack_acks = _tshark(tshark, path, "-Y", "tcp.options.sack_le", "-T", "fields", "-e", "frame.number").split()
    assert sack_acks, "SACK blocks are written into the ACKs"


def test_an_unknown_capture_selector_is_refused_and_leaves_nothing(tmp_path):
    scenario = tmp_path / "lossy.toml"
    scenario.write_text(LOSSY)
    p = run_cli("run", str(scenario), "--out", str(tmp_path / "out"), "--pcap", "flow9")
    assert p.returncode == 2, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "--pcap" in p.stderr and "did you mean" in p.stderr
    assert sorted(f.name for f in tmp_path.iterdir()) == ["lossy.toml"]


# 8,972-byte UDP payloads (9,000-byte datagrams) every 7.1776 ms for 1 s — 140
# datagrams, sent at k · 7.1776 ms, k = 0…139 — from a jumbo-frame link onto a
# 1,500-byte one, where RFC 791 cuts each into 7 fragments (6 × 1,480 + 100 bytes).
JUMBO_UDP = """
[simulation]
duration = "1s"

[[node]]
name = "a"
[[node]]
name = "r"
kind = "router"
[[node]]
name = "b"

[[link]]
from = "a"
to = "r"
bandwidth = "1Gbps"
delay = "1ms"
mtu = 9000

[[link]]
from = "r"
to = "b"
bandwidth = "1Gbps"
delay = "1ms"
mtu = 1500

[[flow]]
from = "a"
to = "b"
transport = "udp"
app = { type = "cbr", rate = "10Mbps", packet_size = "8972B" }
"""


def test_fragments_are_captured_and_wireshark_reassembles_them(tmp_path):
    """Every datagram appears on the 1,500-byte link as its 7 fragments (MF set on 6),
    and tshark reassembles each into one 8,980-byte UDP datagram: 140 of them."""
    tshark = ensure("tshark", "tshark")
    scenario = tmp_path / "jumbo.toml"
    scenario.write_text(JUMBO_UDP)
    out = tmp_path / "run"
    p = run_cli("run", str(scenario), "--out", str(out), "--no-report", "--pcap", "r->b")
    assert p.returncode == 0, p.stderr
    path = out / "pcap" / "r-to-b.pcap"
    assert _tshark(tshark, path, "-Y", "_ws.malformed || _ws.expert.severity == error").strip() == ""
    frames = _tshark(tshark, path, "-T", "fields", "-e", "frame.len").split()
    more = _tshark(tshark, path, "-Y", "ip.flags.mf == 1", "-T", "fields", "-e", "frame.number").split()
    datagrams = _tshark(tshark, path, "-Y", "udp", "-T", "fields", "-e", "udp.length").split()
    assert len(frames) == 140 * 7
    assert len(more) == 140 * 6
    assert datagrams == ["8980"] * 140


SCTP = """
[simulation]
duration = "20s"
seed = 3

[topology.dumbbell]
pairs = 1
access = { bandwidth = "100Mbps", delay = "1ms" }
bottleneck = { bandwidth = "10Mbps", delay = "20ms", queue = { type = "droptail", limit = "100 packets" }, loss = { type = "bernoulli", rate = 0.02 } }

[[flow]]
from = "left0"
to = "right0"
transport = { type = "sctp", streams = 2, message_size = "256B" }
app = { type = "file", size = "200kB" }
"""


def test_tshark_decodes_sctp_bundles_and_sacks(tmp_path):
    """An SCTP association's capture as Wireshark reads it: INIT, INIT-ACK,
    COOKIE-ECHO, COOKIE-ACK once each; as many DATA chunks as tcplab sent (five
    256-byte chunks bundled per full packet), SACKs with gap blocks, nothing malformed."""
    tshark = ensure("tshark", "tshark")
    scenario = tmp_path / "sctp.toml"
    scenario.write_text(SCTP)
    out = tmp_path / "run"
    p = run_cli("run", str(scenario), "--out", str(out), "--no-plots", "--pcap", "flow0")
    assert p.returncode == 0, p.stderr
    flow = json.loads((out / "summary.json").read_text())["flows"][0]
    path = next((out / "pcap").glob("*.pcap"))
    assert _tshark(tshark, path, "-Y", "_ws.malformed || _ws.expert.severity == error") == ""
    chunk_types = _tshark(tshark, path, "-T", "fields", "-e", "sctp.chunk_type").split()
    types = [int(t) for line in chunk_types for t in line.split(",")]
    assert [types.count(t) for t in (1, 2, 10, 11)] == [1, 1, 1, 1]
    assert types.count(0) == flow["transport_details"]["data_chunks"]
    per_packet = [len(line.split(",")) for line in _tshark(tshark, path, "-Y", "sctp.data_tsn", "-T", "fields",
                                                                 "-e", "sctp.data_tsn").splitlines()]
    assert per_packet.count(5) >= 100
    gaps = _tshark(tshark, path, "-Y", "sctp.sack_number_of_gap_blocks > 0", "-T", "fields", "-e", "frame.number")
    assert flow["retransmits"] > 0 and gaps.split()
