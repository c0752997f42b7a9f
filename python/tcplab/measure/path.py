"""``tcplab measure --path A B``: what the path from host A to host B is, measured, and
written as a scenario that ``tcplab run`` simulates and ``tcplab emu`` emulates.

Two rounds, each a short run of the agents:

1. probes from A to an echo server on B: round-trip times of small datagrams (their
   distribution and how many came back: the loss), the path MTU (datagrams with
   "don't fragment", RFC 1191), and trains of back-to-back MTU-sized datagrams whose
   spacing on arrival is the bottleneck's rate (packet-train dispersion; the first
   tenth of each train is left out, since a shaper's token bucket lets a burst through
   at the line rate);
2. one bulk TCP flow (the host's default algorithm) for a few seconds, its kernel's
   RTT sampled every 20 ms: the rise of the RTT under load, times the rate, is the
   bottleneck's buffer (a lower bound if the flow never filled it). The rise is read
   at the loaded RTT's 95th percentile, not its maximum: a host that is descheduled
   for a few milliseconds lengthens a single sample, while a full queue holds the RTT
   up for many (tbf with a 60,000-byte limit at 20 Mb/s, four runs on an idle machine:
   maxima 24.2-29.9 ms, 95th percentiles 23.8-23.9 ms, the full queue 24.2 ms).
"""

from __future__ import annotations

import statistics

from ..scenario import ScenarioError
from .hosts import HostSpec
from .remote import Agent, MeasureError, bundle

#: Port of the echo server on B (the flows' ports start at 5000).
ECHO_PORT = 4999
#: Round-trip probes: how many, how far apart.
RTT_PROBES, RTT_GAP_S = 100, 0.01
#: Packet trains: how many, how long, how far apart.
TRAINS, TRAIN_LENGTH, TRAIN_GAP_S = 12, 120, 0.25
#: Fraction of each train's first arrivals left out of its rate.
TRAIN_SKIP = 0.1
#: The loaded round: a bulk TCP flow this long, its RTT sampled this often.
LOAD_S, LOAD_BIN_NS = 4.0, 20_000_000
#: The percentile of the loaded RTT samples read as the full queue's RTT.
LOADED_RTT_PERCENTILE = 0.95


def _run(agents: dict[str, Agent], work: dict[str, dict], duration_ns: int, bin_ns: int) -> dict[str, dict]:
    code = bundle()
    for name, a in agents.items():
        a.send(code)
        a.send({**work.get(name, {}), "clock": {"bin_ns": bin_ns, "duration_ns": duration_ns}})
    for a in agents.values():
        a.receive()
    for a in agents.values():
        a.send({"start_in_ns": 300_000_000})
    return {name: a.receive(timeout_s=duration_ns / 1e9 + 30) for name, a in agents.items()}


def _fresh(hosts: dict[str, HostSpec], names: list[str]) -> dict[str, Agent]:
    return {n: Agent(hosts[n]) for n in names}


def _close(agents: dict[str, Agent]) -> None:
    for a in agents.values():
        a.close()


def train_rate_bps(arrivals: list) -> tuple[float | None, list[float]]:
    """The bottleneck rate from train arrivals ``(train, seq, sent_ns, arrived_ns,
    payload bytes)``: per train, the IP bytes after its first tenth over the time they
    took to arrive; the median over trains, and every train's value."""
    by_train: dict[int, list] = {}
    for train, _seq, _sent, arrived, size in arrivals:
        by_train.setdefault(train, []).append((arrived, size + 28))
    rates = []
    for packets in by_train.values():
        packets.sort()
        skip = max(1, int(len(packets) * TRAIN_SKIP))
        tail = packets[skip:]
        if len(tail) < 10:
            continue
        span = (tail[-1][0] - packets[skip - 1][0]) / 1e9
        if span > 0:
            rates.append(sum(size for _, size in tail) * 8 / span)
    return (statistics.median(rates) if rates else None), rates


def _percentile(values: list[float], fraction: float) -> float:
    """The sample at ``fraction`` of the way up the sorted ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def characterise(hosts: dict[str, HostSpec], a: str, b: str) -> dict:
    """Measures the path from ``a`` to ``b`` (two rounds; see the module's documentation)."""
    for name in (a, b):
        if name not in hosts:
            raise ScenarioError(f"host.{name}", "--path names a host the hosts file does not have")
    peer = hosts[b].address
    largest = 9000
    probes = [{"kind": "rtt", "peer": peer, "port": ECHO_PORT, "count": RTT_PROBES, "gap_s": RTT_GAP_S},
              {"kind": "mtu", "peer": peer, "port": ECHO_PORT, "largest": largest}]
    agents = _fresh(hosts, [a, b])
    try:
        first = _run(agents, {a: {"probes": probes}, b: {"echo": {"bind": "0.0.0.0", "port": ECHO_PORT}}},
                     duration_ns=int((RTT_PROBES * RTT_GAP_S + 3) * 1e9), bin_ns=1_000_000_000)
    finally:
        _close(agents)
    rtt, mtu = first[a]["probes"].get("rtt"), first[a]["probes"].get("mtu")
    if not rtt or not mtu:
        raise MeasureError(f"host {a!r}: the probes failed: {first[a]['probes'].get('error', 'no result')}")
    # Trains of MTU-sized datagrams, now that the MTU is known.
    trains = [{"kind": "trains", "peer": peer, "port": ECHO_PORT, "trains": TRAINS, "length": TRAIN_LENGTH,
               "size": mtu["mtu"], "gap_s": TRAIN_GAP_S}]
    agents = _fresh(hosts, [a, b])
    try:
        second = _run(agents, {a: {"probes": trains}, b: {"echo": {"bind": "0.0.0.0", "port": ECHO_PORT}}},
                      duration_ns=int((TRAINS * TRAIN_GAP_S + 2) * 1e9), bin_ns=1_000_000_000)
    finally:
        _close(agents)
    rate, train_rates = train_rate_bps(second[b]["probes"].get("arrivals", []))
    # The loaded round: a bulk TCP flow, its RTT every 20 ms.
    flow = {"index": 0, "transport": "tcp", "port": 5000, "start_ns": 0, "stop_ns": int(LOAD_S * 1e9),
            "app": {"type": "bulk"}, "tcp": {"kernel_cc": "cubic", "mss_bytes": None, "rcvbuf": 32 << 20,
                                             "window_clamp": None}}
    agents = _fresh(hosts, [a, b])
    try:
        third = _run(agents, {a: {"endpoints": [{"role": "sender", "flow": flow, "peer": peer, "seed": 1}]},
                              b: {"endpoints": [{"role": "receiver", "flow": flow, "bind": "0.0.0.0"}]}},
                     duration_ns=int(LOAD_S * 1e9), bin_ns=LOAD_BIN_NS)
    finally:
        _close(agents)
    sender = next(e for e in third[a]["endpoints"] if e["role"] == "TcpSender")
    loaded_rtts = [s["rtt"] / 1000 for s in sender.get("samples") or [] if s]
    min_rtt_ms = min(rtt["rtt_ms"]) if rtt["rtt_ms"] else None
    full_queue_rtt_ms = _percentile(loaded_rtts, LOADED_RTT_PERCENTILE) if loaded_rtts else None
    buffer_bytes = None
    if rate and full_queue_rtt_ms is not None and min_rtt_ms is not None:
        buffer_bytes = max(0.0, (full_queue_rtt_ms - min_rtt_ms) / 1000 * rate / 8)
    ordered = sorted(rtt["rtt_ms"])
    return {
        "from": a, "to": b,
        "rtt_ms": {"min": min_rtt_ms, "p50": statistics.median(ordered) if ordered else None,
                   "p95": _percentile(ordered, 0.95) if ordered else None,
                   "probes": rtt["sent"], "answered": rtt["received"]},
        "loss_rate": 1 - rtt["received"] / rtt["sent"],
        "mtu_bytes": mtu["mtu"], "mtu_confirmed": mtu["confirmed"],
        "rate_bps": rate, "train_rates_bps": train_rates,
        "loaded_rtt_ms_max": max(loaded_rtts) if loaded_rtts else None,
        "loaded_rtt_ms_p95": full_queue_rtt_ms,
        "buffer_bytes": buffer_bytes,
        "hosts": {a: first[a]["host"], b: first[b]["host"]},
    }


def path_scenario(path: dict) -> dict:
    """The measured path as a scenario: A, a router, B; the bottleneck (rate, buffer,
    MTU, random loss) on the router's link to B, the rest of the propagation delay split
    over both links, each way; one bulk TCP flow, as the hosts run it."""
    rate = path["rate_bps"]
    mtu = path["mtu_bytes"]
    one_way_ms = max((path["rtt_ms"]["min"] or 0.0) / 2, 0.0)
    # The minimum RTT includes each way's serialization of a small probe: negligible.
    packets = max(2, round((path["buffer_bytes"] or 0) / mtu)) if path["buffer_bytes"] is not None else 100
    loss = path["loss_rate"]
    bottleneck: dict = {"from": "router", "to": path["to"], "bandwidth": f"{rate / 1e6:.4g}Mbps",
                        "delay": f"{one_way_ms / 2 * 1000:.4g}us", "mtu": mtu,
                        "queue": {"type": "droptail", "limit": f"{packets} packets"}}
    if loss > 0:
        bottleneck["forward"] = {"loss": {"type": "bernoulli", "rate": round(loss, 6)}}
    return {
        "description": (f"The path {path['from']} -> {path['to']} as tcplab measure --path found it: "
                        f"{rate / 1e6:.4g} Mb/s by packet trains, minimum RTT {path['rtt_ms']['min']:.3g} ms, "
                        f"path MTU {mtu} B, a buffer of about {packets} packets from the RTT's rise under load, "
                        f"{loss * 100:.2g}% of {path['rtt_ms']['probes']} probes lost. The access link's rate is not "
                        "measurable from the ends: it is set ten times the bottleneck's."),
        "simulation": {"duration": "30s", "seed": 1, "bin": "100ms"},
        "node": [{"name": path["from"]}, {"name": "router", "kind": "router"}, {"name": path["to"]}],
        "link": [{"from": path["from"], "to": "router", "bandwidth": f"{rate * 10 / 1e6:.4g}Mbps",
                  "delay": f"{one_way_ms / 2 * 1000:.4g}us", "mtu": mtu},
                 bottleneck],
        "flow": [{"from": path["from"], "to": path["to"], "app": {"type": "bulk"},
                  "transport": {"type": "tcp", "profile": "linux", "cc": "cubic"}}],
    }
