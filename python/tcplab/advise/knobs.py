"""The changes the advisor tries, question by question: each a :class:`Variant` with the
scenario fields it sets, the one-line change a user makes to the scenario, and the
setting that makes the same change on a real Linux host (sysctl, socket option,
``ip``/``tc``), with who can make it (the end host, the router, every hop).

Candidates are placed around the path's own scale (its bandwidth-delay product, its
round-trip time with the bottleneck queue full), so the same questions make sense on a
10 Mb/s LAN and on a 10 Gb/s ocean crossing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..scenario.expressions import format_number
from ..scenario.toml_writer import value_text
from ..scenario.units import amount_bytes
from .path import TCP_IP_HEADERS, PathSummary

#: The questions, in the order they are asked with ``--question all``.
QUESTIONS = ("cc", "recovery", "buffer", "mtu", "rto", "transport")

#: What each question asks, as the report's headings say it.
QUESTION_TITLES = {
    "cc": "Which congestion control?",
    "recovery": "Loss recovery: selective acknowledgements (SACK)?",
    "buffer": "How much buffering: the bottleneck's queue, the hosts' socket buffers?",
    "mtu": "Jumbo frames?",
    "rto": "The retransmission timer: a lower RTO floor, a fixed RTO?",
    "transport": "TCP or SCTP?",
}

#: Congestion controls tried, with the Linux module that provides each (None: not in
#: mainline Linux).
ALGORITHMS = {"reno": "reno", "cubic": "cubic", "highspeed": "highspeed", "scalable": "scalable", "bic": "bic",
              "vegas": "vegas", "bbr": "bbr", "fast": None}

#: Bottleneck queue sizes tried, in bandwidth-delay products.
QUEUE_BDPS = (0.25, 0.5, 1.0, 2.0, 4.0)
#: Socket buffer sizes tried, in bandwidth-delay products (with the queue full).
SOCKET_BDPS = (0.5, 1.0, 2.0, 4.0)
#: Fixed RTOs tried, in round-trip times with the bottleneck queue full.
FIXED_RTO_RTTS = (0.75, 1.0, 1.25, 1.5, 2.0, 3.0)
#: RTO floors tried (RFC 6298's 1 s, Linux's 200 ms, a LAN-sized 50 ms, 20 ms).
RTO_FLOORS_S = (1.0, 0.2, 0.05, 0.02)
#: A jumbo frame's MTU.
JUMBO_MTU = 9000
#: SCTP stream counts tried (the sctp study found 2 best under loss).
SCTP_STREAMS = (1, 2)
#: Candidates closer than this (relative) to the current setting are not tried again.
SAME_WITHIN = 0.1


@dataclass(frozen=True)
class Variant:
    """One change to try: which question it answers, a short name, the scenario
    fields it sets, the one-line change to the scenario file, the same change on a
    real host, and who can make it."""

    question: str
    name: str
    overrides: tuple[tuple[str, object], ...]
    scenario_change: str
    host_change: str
    owner: str


def variants(path: PathSummary, questions: list[str]) -> tuple[list[Variant], list[str]]:
    """The variants for ``questions`` on ``path``, and notes on the questions that
    do not apply (e.g. congestion control for a UDP flow)."""
    found: list[Variant] = []
    notes: list[str] = []
    for q in questions:
        made = _MAKERS[q](path)
        if isinstance(made, str):
            notes.append(f"{q}: {made}")
        else:
            found.extend(made)
    return found, notes


def _flows(path: PathSummary, kind: str | None = None) -> list[dict]:
    return [f for f in path.yours if kind is None or f["transport"]["type"] == kind]


def _field(flow: dict, key: str) -> str:
    """The scenario path of ``key`` in ``flow``'s transport. Flows are addressed by their
    origin (``flow[3]``: its index once counted tables are expanded, which is when
    ``--set`` applies), since a flow named by default has no ``name`` to select."""
    return f"{flow['origin']}.transport" + (f".{key}" if key else "")


def _each_flow(flows: list[dict], key: str, value: object) -> tuple[tuple[str, object], ...]:
    return tuple((_field(f, key), value) for f in flows)


#: Beyond this many fields the one-line change names the first and counts the rest.
SHOWN_FIELDS = 3


def _set_text(overrides: tuple[tuple[str, object], ...]) -> str:
    """The ``--set`` arguments that make ``overrides``; a change of one field on many
    flows names the first and says how many more get the same."""
    # Strings as they are typed after --set (cc=vegas), anything else as TOML.
    parts = [f"--set '{k}={v if isinstance(v, str) else value_text(v)}'" for k, v in overrides]
    if len(parts) > SHOWN_FIELDS:
        return f"{parts[0]} (and the same for {len(parts) - 1} more flows or links)"
    return " ".join(parts)


def _variant(question: str, name: str, overrides: tuple[tuple[str, object], ...], host: str, owner: str) -> Variant:
    return Variant(question, name, overrides, _set_text(overrides), host, owner)


# -------------------------------------------------------------------------- questions


def _cc(path: PathSummary) -> list[Variant] | str:
    tcp = _flows(path, "tcp")
    if not tcp:
        return "none of the flows is TCP"
    current = {f["transport"]["cc"]["algorithm"] for f in tcp}
    out = []
    for name, module in ALGORITHMS.items():
        if current == {name}:
            continue
        host = (f"sysctl -w net.ipv4.tcp_congestion_control={module} (modprobe tcp_{module} first if it is not "
                f"listed in net.ipv4.tcp_available_congestion_control), or setsockopt(TCP_CONGESTION, \"{module}\")"
                if module else f"{name} is not in mainline Linux (a patched kernel or a user-space stack)")
        out.append(_variant("cc", name, _each_flow(tcp, "cc", name), host, "the sending host"))
    return out


def _recovery(path: PathSummary) -> list[Variant] | str:
    """SACK (RFC 2018, RFC 6675) for the TCP flows that go without: without it a window
    that lost many segments is repaired one per round trip (docs/loss-recovery.md)."""
    tcp = _flows(path, "tcp")
    if not tcp:
        return "none of the flows is TCP"
    without = [f for f in tcp if not f["transport"]["sack"]]
    if not without:
        return "every TCP flow uses SACK already"
    host = ("sysctl -w net.ipv4.tcp_sack=1 on both hosts (Linux's default; both ends must offer it, "
            "and a middlebox that strips the option turns it off)")
    return [_variant("recovery", "SACK on", _each_flow(without, "sack", True), host, "both hosts")]


def _size_text(n_bytes: float) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n_bytes >= size:
            return f"{format_number(round(n_bytes / size, 1))}{unit}"
    return f"{int(n_bytes)}B"


def _near(a: float, b: float | None) -> bool:
    return b is not None and b > 0 and abs(a - b) / b < SAME_WITHIN


def _buffer(path: PathSummary) -> list[Variant] | str:
    out = []
    bn = path.bottleneck
    limit = bn.queue.get("limit")
    if limit:
        unit = limit["unit"]
        sizes: set[int] = set()
        for k in QUEUE_BDPS:
            packets = max(round(k * path.bdp_packets), 2)
            if _near(packets, bn.queue_limit_packets) or packets in sizes:
                continue
            sizes.add(packets)
            value = f"{packets} packets" if unit == "packets" else f"{packets * bn.mtu_bytes}B"
            kind = "pfifo" if unit == "packets" else "bfifo"
            amount = packets if unit == "packets" else packets * bn.mtu_bytes
            host = (f"on the router before {bn.dst}: tc qdisc replace dev <its interface> root {kind} limit {amount}"
                    if bn.queue["type"] == "droptail" else
                    f"on the router before {bn.dst}: tc qdisc change dev <its interface> root red limit "
                    f"{packets * bn.mtu_bytes} (RED's thresholds follow it)")
            out.append(_variant("buffer", f"queue {format_number(k)}×BDP ({packets} packets)",
                                ((f"{bn.queue_origin}.limit", value),), host,
                                f"the bottleneck router ({bn.name}): only if you run it"))
    ends = [f for f in path.yours if f["transport"]["type"] in ("tcp", "sctp")]
    mss = path.packet_bytes - TCP_IP_HEADERS
    window = path.bottleneck.bandwidth_bps * path.loaded_rtt_s / 8
    current = [amount_bytes(f["transport"]["receive_buffer"], mss) for f in ends]
    for k in SOCKET_BDPS:
        size = max(k * window, 16 * 1024)
        if all(_near(size, c) for c in current):
            continue
        text = _size_text(size)
        overrides: list[tuple[str, object]] = []
        for f in ends:
            overrides.append((_field(f, "receive_buffer"), text))
            if f["transport"]["type"] == "sctp":
                overrides.append((_field(f, "send_buffer"), text))
            elif f["transport"].get("max_window") is not None:
                # The profile caps the sender's window too (ns-2's window_): raise it with the buffer.
                overrides.append((_field(f, "max_window"), f"{max(1, math.ceil(size / mss))} segments"))
        host = (f"sysctl -w net.ipv4.tcp_rmem=\"4096 131072 {int(size)}\" net.ipv4.tcp_wmem=\"4096 16384 {int(size)}\" "
                f"(and net.core.rmem_max), or setsockopt(SO_RCVBUF/SO_SNDBUF, {int(size)})")
        out.append(_variant("buffer", f"socket buffers {format_number(k)}×BDP ({text})", tuple(overrides), host,
                            "both hosts"))
    return out or "the queue has no limit to change and no flow has a socket buffer"


def _mtu(path: PathSummary) -> list[Variant] | str:
    smallest = min(d.mtu_bytes for d in path.all_directions)
    target = JUMBO_MTU if smallest < JUMBO_MTU else 1500
    for d in path.all_directions:
        limit = d.queue.get("limit")
        if limit and limit["unit"] == "bytes" and limit["value"] < target:
            return (f"the queue of {d.name} holds {limit['value']:,} bytes, less than one {target}-byte frame: "
                    "jumbo frames need a bigger buffer there first")
    origins = sorted({d.origin for d in path.all_directions if d.mtu_bytes != target and (target == 1500 or d.mtu_bytes < target)})
    overrides: list[tuple[str, object]] = [(f"{o}.mtu", target) for o in origins]
    for f in path.yours:
        if f["transport"]["type"] == "tcp" and f["transport"].get("mss_bytes") is not None:
            overrides.append((_field(f, "mss"), f"{target - TCP_IP_HEADERS}B"))
    shared = [o for o in origins if o.startswith("topology.")]
    owner = "every hop of the path (hosts' NICs, switches, routers)" + (
        f"; {', '.join(shared)} sets every such link of the topology, other flows' too" if shared else "")
    name = f"jumbo frames (MTU {target})" if target == JUMBO_MTU else "standard frames (MTU 1500)"
    host = f"ip link set dev <interface> mtu {target} on every interface of the path (the path MTU is the smallest)"
    return [_variant("mtu", name, tuple(overrides), host, owner)]


def _round_nicely(seconds: float) -> float:
    """``seconds`` in round steps: 5 ms below 0.1 s, 25 ms (the lan study's grid) below
    1 s, 250 ms above."""
    step = 0.005 if seconds < 0.1 else 0.025 if seconds < 1 else 0.25
    return round(max(round(seconds / step), 1) * step, 9)


def _rto(path: PathSummary) -> list[Variant] | str:
    ends = [f for f in path.yours if f["transport"]["type"] in ("tcp", "sctp")]
    if not ends:
        return "no TCP or SCTP flow has a retransmission timer"
    out = []
    loaded = path.loaded_rtt_s
    fixed_now = {f["transport"]["rto"]["fixed_ns"] for f in ends}
    tried: set[float] = set()
    # A fixed RTO is a TCP setting (ns-2's); SCTP's timer has only its bounds.
    fixable = [f for f in ends if f["transport"]["type"] == "tcp"]
    for k in FIXED_RTO_RTTS if fixable else ():
        value = _round_nicely(k * loaded)
        if value in tried or fixed_now == {round(value * 1e9)}:
            continue
        tried.add(value)
        text = f"{format_number(round(value * 1000, 3))}ms"
        out.append(_variant("rto", f"fixed RTO {text}", _each_flow(fixable, "rto.fixed", text),
                            "no Linux setting: a fixed RTO is ns-2's (the lan study's server); the nearest is "
                            f"ip route change <destination> via <gateway> rto_min {text}", "the sending host"))
    floors_now = {f["transport"]["rto"]["min_ns"] for f in ends}
    for floor in RTO_FLOORS_S:
        # A floor only matters to the estimator: not where the timer is fixed already.
        if floors_now == {round(floor * 1e9)} or fixed_now != {None}:
            continue
        text = f"{format_number(floor * 1000)}ms"
        out.append(_variant("rto", f"RTO floor {text}", _each_flow(ends, "rto.min", text),
                            f"ip route change <destination> via <gateway> rto_min {text} (per route; Linux's floor is 200ms)",
                            "the sending host"))
    return out


def _transport(path: PathSummary) -> list[Variant] | str:
    out = []
    tcp = [f for f in _flows(path, "tcp") if f["app"]["type"] in ("bulk", "file")]
    for streams in SCTP_STREAMS:
        if not tcp:
            break
        overrides = []
        for f in tcp:
            table: dict[str, object] = {"type": "sctp", "streams": streams}
            if f["transport"].get("mss_bytes"):
                # The same payload per packet as the TCP flow's segments.
                table["message_size"] = f"{f['transport']['mss_bytes']}B"
            rb = f["transport"]["receive_buffer"]
            if rb is not None:
                table["receive_buffer"] = f"{rb['value']} {rb['unit']}" if rb["unit"] != "bytes" else _size_text(rb["value"])
            overrides.append((_field(f, ""), table))
        out.append(_variant("transport", f"SCTP, {streams} stream{'s' if streams > 1 else ''}", tuple(overrides),
                            f"socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP) with SCTP_INITMSG sinit_num_ostreams = {streams} "
                            "(lksctp; the application changes)", "the application on both hosts"))
    sctp = _flows(path, "sctp")
    if sctp:
        out.append(_variant("transport", "TCP (cubic, SACK)", tuple((_field(f, ""), {"type": "tcp", "cc": "cubic"})
                                                                     for f in sctp),
                            "socket(AF_INET, SOCK_STREAM, 0): the kernel's default TCP", "the application on both hosts"))
    return out or "no TCP or SCTP flow carrying a transfer"


_MAKERS = {"cc": _cc, "recovery": _recovery, "buffer": _buffer, "mtu": _mtu, "rto": _rto, "transport": _transport}
