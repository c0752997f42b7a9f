"""What the advisor needs to know about a scenario's path: whose flows the advice is
for, the links they cross, the bottleneck among them, the round-trip time and the
bandwidth-delay product, and what the flows are set to now.

Routes come from the engine (``_core.flow_routes``), so the advisor reasons about
exactly the links the simulator sends the flows over.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .. import _core
from ..scenario import Scenario
from ..scenario.units import amount_bytes

#: Bytes of IP and TCP headers between the MTU and the MSS (no options).
TCP_IP_HEADERS = 40


class AdviceInputError(ValueError):
    """The scenario cannot be advised on as asked (no flow of that name, no TCP or SCTP
    flow to change). Bad input: exit status 2."""


@dataclass(frozen=True)
class LinkDirection:
    """One direction of a link on the path, and the scenario field that sets it."""

    index: int
    src: str
    dst: str
    forward: bool
    bandwidth_bps: float
    delay_s: float
    mtu_bytes: int
    #: The scenario path of the link table (``link[3]``, ``topology.dumbbell.bottleneck``).
    origin: str
    #: The scenario path of this direction's queue table.
    queue_origin: str
    #: The queue as compiled: ``{"type": ..., "limit": {"value": ..., "unit": ...}}``.
    queue: dict
    loss: dict

    @property
    def channel(self) -> int:
        """The engine's channel index of this direction (routes list channels)."""
        return 2 * self.index + (0 if self.forward else 1)

    @property
    def name(self) -> str:
        """The link direction as results name it (``"a->b"``)."""
        return f"{self.src}->{self.dst}"

    @property
    def queue_limit_packets(self) -> float | None:
        """The queue's limit in packets of this link's MTU (None if it has none)."""
        limit = self.queue.get("limit")
        if not limit:
            return None
        return limit["value"] if limit["unit"] == "packets" else limit["value"] / self.mtu_bytes


@dataclass(frozen=True)
class PathSummary:
    """The path of the flows the advice is for."""

    scenario: Scenario
    #: Engine flow records of the flows the advice is for ("yours") and of the others.
    yours: tuple[dict, ...]
    others: tuple[dict, ...]
    #: Every link direction your flows' data crosses, in order (of the first flow).
    forward: tuple[LinkDirection, ...]
    #: Every link direction of your flows' forward and reverse routes (deduplicated).
    all_directions: tuple[LinkDirection, ...]
    bottleneck: LinkDirection
    #: Propagation round-trip time of the first of your flows, seconds.
    rtt_s: float

    @property
    def bdp_bytes(self) -> float:
        """Bandwidth-delay product of the bottleneck and the propagation RTT."""
        return self.bottleneck.bandwidth_bps * self.rtt_s / 8

    @property
    def bdp_packets(self) -> float:
        """The BDP in packets of the bottleneck's MTU."""
        return self.bdp_bytes / self.bottleneck.mtu_bytes

    @property
    def packet_bytes(self) -> int:
        """The size of your flows' full data packets: the bottleneck's MTU, or less where
        a TCP flow's MSS says so."""
        sizes = [f["transport"]["mss_bytes"] + TCP_IP_HEADERS for f in self.yours
                 if f["transport"]["type"] == "tcp" and f["transport"].get("mss_bytes")]
        return min([self.bottleneck.mtu_bytes, *sizes])

    @property
    def loaded_rtt_s(self) -> float:
        """The RTT with the bottleneck queue full (of your packets): propagation plus the
        queue's drain time."""
        limit = self.bottleneck.queue.get("limit")
        if not limit:
            return self.rtt_s
        return self.rtt_s + amount_bytes(limit, self.packet_bytes) * 8 / self.bottleneck.bandwidth_bps

    @property
    def loss_rate(self) -> float:
        """Random loss on the forward path (Bernoulli rates combined; others count 0)."""
        keep = 1.0
        for d in self.forward:
            if d.loss.get("type") == "bernoulli":
                keep *= 1 - d.loss["rate"]
        return 1 - keep

    @property
    def transports(self) -> set[str]:
        """The transports of your flows (``tcp``, ``sctp``, ``udp``)."""
        return {f["transport"]["type"] for f in self.yours}

    @property
    def random_elements(self) -> list[str]:
        """What in the scenario draws random numbers (random loss, RED, Poisson or
        on/off sources, send jitter): without any, every replication is the same run."""
        found = []
        for link in self.scenario.engine["links"]:
            for side in ("forward", "reverse"):
                d = link[side]
                if d["loss"]["type"] in ("bernoulli", "gilbert_elliott"):
                    found.append(f"{d['loss_origin']} ({d['loss']['type']} loss)")
                if d["queue"]["type"] == "red":
                    found.append(f"{d['queue_origin']} (RED)")
        for f in self.scenario.engine["flows"]:
            if f["app"]["type"] in ("poisson", "onoff"):
                found.append(f"{f['origin']} ({f['app']['type']} source)")
            if f["transport"].get("send_jitter_ns"):
                found.append(f"{f['origin']} (send jitter)")
        return sorted(set(found))

    @property
    def finite(self) -> bool:
        """True when all your flows send a fixed amount (their completion time is the measure)."""
        return all(f["app"]["type"] == "file" for f in self.yours)


def _direction(link: dict, index: int, forward: bool) -> LinkDirection:
    side = link["forward" if forward else "reverse"]
    src, dst = (link["from"], link["to"]) if forward else (link["to"], link["from"])
    return LinkDirection(index=index, src=src, dst=dst, forward=forward, bandwidth_bps=float(link["bandwidth_bps"]),
                         delay_s=link["delay_ns"] / 1e9, mtu_bytes=int(link["mtu_bytes"]), origin=link["origin"],
                         queue_origin=side["queue_origin"], queue=side["queue"], loss=side["loss"])


def summarise(scenario: Scenario, flow_names: list[str] | None = None) -> PathSummary:
    """The path of ``flow_names`` (default: every TCP and SCTP flow) in ``scenario``."""
    flows = scenario.engine["flows"]
    names = [f["name"] for f in flows]
    if flow_names:
        unknown = [n for n in flow_names if n not in names]
        if unknown:
            from ..scenario.errors import suggest

            raise AdviceInputError(f"--flow {unknown[0]}: no flow of that name{suggest(unknown[0], names)}; "
                                   f"flows: {', '.join(names[:20])}{' …' if len(names) > 20 else ''}")
        yours = [f for f in flows if f["name"] in flow_names]
    else:
        yours = [f for f in flows if f["transport"]["type"] in ("tcp", "sctp")]
        if not yours:
            raise AdviceInputError(f"{scenario.source}: no TCP or SCTP flow to advise on (name one with --flow)")
    try:
        routes = _core.flow_routes(scenario.engine_json())
    except _core.EngineConfigError as e:
        from ..engine_errors import scenario_error

        raise scenario_error(scenario, e) from None
    links = scenario.engine["links"]

    def direction(channel: int) -> LinkDirection:
        return _direction(links[channel // 2], channel // 2, channel % 2 == 0)

    index = {f["name"]: i for i, f in enumerate(flows)}
    first = routes[index[yours[0]["name"]]]
    forward = tuple(direction(c) for c in first[0])
    seen: dict[int, LinkDirection] = {}
    for f in yours:
        for route in routes[index[f["name"]]]:
            for c in route:
                seen.setdefault(c, direction(c))
    # The bottleneck: the link direction with the smallest share per flow crossing it
    # (ten clients converging on one server link make that link the bottleneck, not
    # their equally fast access links); the first of equals.
    crossing = Counter(c for route in routes for c in route[0])
    bottleneck = min(forward, key=lambda d: d.bandwidth_bps / crossing[d.channel])
    rtt = sum(d.delay_s for d in forward) + sum(direction(c).delay_s for c in first[1])
    mine = {f["name"] for f in yours}
    return PathSummary(scenario=scenario, yours=tuple(yours), others=tuple(f for f in flows if f["name"] not in mine),
                       forward=forward, all_directions=tuple(seen[c] for c in sorted(seen)), bottleneck=bottleneck,
                       rtt_s=rtt)


__all__ = ["AdviceInputError", "LinkDirection", "PathSummary", "summarise"]
