"""The scenario space the differential comparisons sample (docs/differential.md).

A :class:`Sample` is one drawn scenario in neutral terms — topology, rates, delays,
buffer, loss and flows — that each backend renders its own way (:mod:`.scenario`
for tcplab and the kernel, ``tests/differential/ns2.py`` for ns-2), so the two sides
of a comparison cannot drift apart. :func:`draw` makes sample ``index`` of a seed
from its own random stream: sample 7 of seed 1 is the same whether 10 or 100 are
drawn, and a disagreement is reproduced from ``(space, seed, index)`` or from the
scenario file saved beside its results.

Every rule that shapes a sample (durations, the ns-2 packet budget) is applied here,
when it is drawn, never after a result has been seen.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace

#: The spaces. ``kernel``: reno/cubic/bbr with the ``linux`` profile, rates the
#: emulator of a 2-core machine carries. ``ns2-tcp``: ns-2's Agent/TCP (Reno,
#: Newreno, Sack1) against ``profile = "ns2"``. ``ns2-linux``: ns-2's Agent/TCP/Linux
#: (the 2.6.22 modules) against the project's mapping. ``ns2-sctp``: ns-2's Agent/SCTP
#: (RFC 4960 as the University of Delaware module has it) against tcplab's SCTP, bulk
#: associations where the others draw TCP flows. (The sctp study's own transfers are
#: compared in ``tests/ns2/sctp.py``.)
SPACES = ("kernel", "ns2-tcp", "ns2-linux", "ns2-sctp")

#: The latest a phase replica starts a flow after its drawn start (:meth:`Sample.replica`).
PHASE_JITTER_S = 0.010

#: Bottleneck rate range, bit/s, per space family or space (log-uniform). ns2-sctp stops
#: at 200 Mb/s: its message budget (below) leaves a 200 Mb/s sample its minimum duration.
RATE_RANGE = {"kernel": (2e6, 200e6), "ns2": (1e6, 10e9), "ns2-sctp": (1e6, 200e6)}
#: Base round-trip propagation delay range, seconds (log-uniform).
RTT_RANGE = (0.002, 0.300)
#: Bottleneck buffer in bandwidth-delay products of the base RTT (log-uniform).
BUFFER_RANGE_BDP = (0.1, 4.0)
#: Access links are this many times faster than the bottleneck (log-uniform).
ACCESS_RANGE = (1.0, 1000.0)
#: Random loss rate when there is random loss (log-uniform), and how often there is.
LOSS_RANGE = (1e-5, 0.05)
LOSS_PROBABILITY = 0.5
#: Gilbert–Elliott mean burst length in packets (when the loss is bursty).
BURST_RANGE = (2.0, 10.0)
#: Payload of every TCP segment and UDP datagram, bytes (MTU 1,500).
MSS = 1460
#: Payload of every SCTP DATA chunk, bytes: one chunk fills a 1,500-byte packet (20 B IP,
#: 12 B common header, 16 B chunk header).
SCTP_MESSAGE = 1452
#: Flow kinds that are bulk transfers (the others are UDP cross traffic).
BULK_KINDS = ("tcp", "sctp")
#: ns-2's heavy-loss corners (issue #29): this share of ns-2 samples is drawn there.
CORNER_SHARE = 0.3
#: At most this many packets cross an ns-2 sample's bottleneck (ns-2 runs about a
#: million packets a few seconds): the duration is cut to fit, never below MIN_DURATION_S.
NS2_PACKET_BUDGET = 3_000_000
#: Durations: this many base RTTs of the longest flow, within the bounds.
DURATION_RTTS = 150
DURATION_BOUNDS_S = {"kernel": (20.0, 60.0), "ns2": (20.0, 120.0)}
MIN_DURATION_S = 3.0
#: ns-2's SCTP stops delivering a stream past 65,536 messages (its 16-bit stream
#: sequence numbers wrap; tests/ns2/README.md): an ns2-sctp sample's duration is cut
#: so that its bottleneck carries at most this many full packets.
NS2_SCTP_MESSAGE_BUDGET = 60_000

KERNEL_CCS = ("reno", "cubic", "bbr")
NS2_AGENTS = ("Reno", "Newreno", "Sack1")
#: ns-2's TCP/Linux modules compared (tests/ns2/linux_cc.py's mapping).
NS2_LINUX_CCS = ("reno", "highspeed", "scalable", "bic", "cubic", "vegas")


@dataclass(frozen=True)
class Loss:
    """Random loss before the bottleneck queue: Bernoulli (``burst`` = 1) or
    Gilbert–Elliott with every packet lost in the bad state and mean bad-state
    length ``burst`` packets, so that the long-run loss rate is ``rate``."""

    rate: float
    burst: float = 1.0

    def table(self) -> dict:
        """The scenario file's loss table."""
        if self.burst <= 1.0:
            return {"type": "bernoulli", "rate": self.rate}
        bad_to_good = 1.0 / self.burst
        # Stationary bad-state share p/(p+r) = rate.
        good_to_bad = self.rate * bad_to_good / (1.0 - self.rate)
        return {"type": "gilbert_elliott", "p_good_to_bad": good_to_bad, "p_bad_to_good": bad_to_good,
                "loss_good": 0.0, "loss_bad": 1.0}


@dataclass(frozen=True)
class Flow:
    """One flow. ``hops``: the bottleneck hops it crosses (a dumbbell has one, hop
    0; a parking lot two). ``rtt_s``: its round-trip propagation delay."""

    kind: str  # "tcp", "sctp" (bulk associations, space ns2-sctp), "udp_cbr", "udp_on_off"
    cc: str  # tcp: kernel or ns-2 TCP/Linux algorithm, or the ns-2 agent; "" otherwise
    rtt_s: float
    hops: tuple[int, ...]
    start_s: float = 0.0
    rate_bps: float = 0.0  # UDP: the source's rate while sending
    on_s: float = 0.0  # udp_on_off: constant on and off periods
    off_s: float = 0.0


@dataclass(frozen=True)
class Sample:
    """One drawn scenario (see the module doc)."""

    space: str
    seed: int
    index: int
    topology: str  # "dumbbell" or "parking_lot"
    neck_bps: float
    base_rtt_s: float
    buffer_packets: int
    access_factor: float
    flows: tuple[Flow, ...]
    duration_s: float
    sack: bool = True
    loss: Loss | None = None
    fixed_rto_s: float | None = None  # ns2-tcp corners
    corner: bool = False
    notes: tuple[str, ...] = field(default=())

    @property
    def name(self) -> str:
        """``<space>-s<seed>-<index>``: the sample's name and file stem."""
        return f"{self.space}-s{self.seed}-{self.index:03d}"

    @property
    def hops(self) -> int:
        """Bottleneck hops: two in a parking lot, one in a dumbbell."""
        return 2 if self.topology == "parking_lot" else 1

    @property
    def bdp_packets(self) -> float:
        """The bottleneck's bandwidth-delay product at the base RTT, in full packets."""
        return self.neck_bps * self.base_rtt_s / (8 * (MSS + 40))

    @property
    def random(self) -> bool:
        """Whether the scenario draws random numbers (random loss): its comparisons
        are means over several seeds."""
        return self.loss is not None

    def replica(self, seed: int) -> Sample:
        """The sample as run on replication ``seed`` against a deterministic reference.

        With random loss, seeds draw other losses and the sample is unchanged. Without
        it, both backends would replay one trajectory whatever the seed, and on a
        DropTail bottleneck a trajectory's split between flows hangs on phase (Floyd and
        Jacobson, "On traffic phase effects in packet-switched gateways", 1992): in
        ns2-linux-s1-025 a 1-ms later start of its Reno flow moves Reno's goodput in
        ns-2 from 22 to 30 Mb/s, because one recovery's burst then overflows the
        573-packet queue by five packets. So seed 1 is the drawn sample and seed k > 1
        starts each flow later by its own offset, uniform in [0, :data:`PHASE_JITTER_S`)
        to 0.1 ms and fixed by the sample's name and ``k``: up to a packet time at the
        slowest bottleneck drawn (1,500 bytes at 1 Mb/s take 12 ms), thousands at the
        fastest, and short against every duration. Both backends run the same replica."""
        if seed == 1 or self.random:
            return self
        rng = random.Random(f"{self.name}/phase/{seed}")
        flows = tuple(replace(f, start_s=round(f.start_s + rng.uniform(0.0, PHASE_JITTER_S), 4)) for f in self.flows)
        return replace(self, flows=flows)

    def describe(self) -> str:
        """A one-line description for reports."""
        parts = [self.topology.replace("_", " "), f"{_rate(self.neck_bps)}", f"RTT {self.base_rtt_s * 1e3:.3g} ms",
                 f"buffer {self.buffer_packets} pkt ({self.buffer_packets / max(self.bdp_packets, 1e-9):.2g} BDP)",
                 f"access ×{self.access_factor:.3g}"]
        if self.loss:
            parts.append(f"loss {self.loss.rate:.2g}" + (f" bursts of {self.loss.burst:.2g}" if self.loss.burst > 1 else ""))
        if self.fixed_rto_s:
            parts.append(f"fixed RTO {self.fixed_rto_s * 1e3:.0f} ms")
        if self.space == "kernel":
            parts.append("SACK" if self.sack else "no SACK")
        kinds: dict[str, int] = {}
        for f in self.flows:
            label = f.cc or f.kind
            kinds[label] = kinds.get(label, 0) + 1
        parts.append(", ".join(f"{n}× {k}" for k, n in kinds.items()))
        parts.append(f"{self.duration_s:g} s")
        return "; ".join(parts)


def _rate(bps: float) -> str:
    return f"{bps / 1e9:.3g} Gb/s" if bps >= 1e9 else f"{bps / 1e6:.3g} Mb/s"


def _log_uniform(rng: random.Random, lo: float, hi: float) -> float:
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def draw(space: str, seed: int, index: int) -> Sample:
    """Sample ``index`` of ``seed`` in ``space`` (one of :data:`SPACES`)."""
    if space not in SPACES:
        raise ValueError(f"unknown space {space!r} (one of {', '.join(SPACES)})")
    rng = random.Random(f"tcplab-differential/{space}/{seed}/{index}")
    family = "kernel" if space == "kernel" else "ns2"
    corner = family == "ns2" and rng.random() < CORNER_SHARE
    topology = "parking_lot" if rng.random() < 0.3 else "dumbbell"
    neck = _log_uniform(rng, *RATE_RANGE.get(space, RATE_RANGE[family]))
    base_rtt = _log_uniform(rng, *RTT_RANGE)
    access = _log_uniform(rng, *ACCESS_RANGE)
    neck = round(neck, -3)  # whole kb/s: readable scenario files
    base_rtt = round(base_rtt, 4)

    bdp = neck * base_rtt / (8 * (MSS + 40))
    buffer_bdp = _log_uniform(rng, 0.05, 0.25) if corner and rng.random() < 0.5 else _log_uniform(rng, *BUFFER_RANGE_BDP)
    buffer_packets = max(2, round(buffer_bdp * bdp))

    loss = None
    if corner and rng.random() < 0.6:
        loss = Loss(round(_log_uniform(rng, 0.01, 0.05), 5))
    elif rng.random() < LOSS_PROBABILITY:
        rate = float(f"{_log_uniform(rng, *LOSS_RANGE):.2g}")
        bursty = space == "kernel" and rng.random() < 0.4
        loss = Loss(rate, round(_log_uniform(rng, *BURST_RANGE), 1) if bursty else 1.0)

    many = corner and space == "ns2-tcp" and topology == "dumbbell" and rng.random() < 0.25
    n_bulk = 100 if many else rng.randint(1, 4)
    ccs = _algorithms(rng, space, n_bulk)
    bulk_kind = "sctp" if space == "ns2-sctp" else "tcp"
    different_rtts = not many and rng.random() < 0.5
    hop_sets = [(0, 1), (0,), (1,)] if topology == "parking_lot" else [(0,)]
    flows = []
    for i in range(n_bulk):
        rtt = base_rtt if i == 0 or not different_rtts else round(min(RTT_RANGE[1], base_rtt * rng.uniform(1.0, 4.0)), 4)
        start = 0.0 if i == 0 else round(rng.uniform(0.0, 1.0), 3)
        flows.append(Flow(bulk_kind, ccs[i], rtt, hop_sets[i % len(hop_sets)], start))
    if not many and rng.random() < 0.4:
        # ns-2's on/off sources draw exponential periods: constant ones only in the kernel space.
        kind = rng.choice(("udp_cbr", "udp_on_off")) if space == "kernel" else "udp_cbr"
        share = rng.uniform(0.1, 0.5)
        on, off = (round(rng.uniform(0.1, 1.0), 2), round(rng.uniform(0.1, 1.0), 2)) if kind == "udp_on_off" else (0.0, 0.0)
        flows.append(Flow(kind, "", base_rtt, hop_sets[-1], round(rng.uniform(0.0, 1.0), 3), round(share * neck, -3), on, off))

    sack = rng.random() < 0.5 if space == "kernel" else True
    fixed_rto = round(rng.choice((0.025, 0.05, 0.1, 0.2)), 3) if corner and space == "ns2-tcp" and rng.random() < 0.4 else None

    longest = max(f.rtt_s for f in flows)
    lo, hi = DURATION_BOUNDS_S[family]
    duration = min(hi, max(lo, DURATION_RTTS * longest))
    notes: list[str] = []
    if family == "ns2":
        budget = NS2_PACKET_BUDGET * 8 * (MSS + 40) / neck
        if budget < duration:
            duration = max(MIN_DURATION_S, math.floor(budget * 10) / 10)
            notes.append("duration cut to ns-2's packet budget")
        messages = NS2_SCTP_MESSAGE_BUDGET * 8 * (MSS + 40) / neck  # full 1,500-byte packets
        if space == "ns2-sctp" and messages < duration:
            duration = max(MIN_DURATION_S, math.floor(messages * 10) / 10)
            notes.append("duration cut to ns-2's SCTP message budget")
    duration = round(duration, 1)
    return Sample(space, seed, index, topology, neck, base_rtt, buffer_packets, round(access, 2), tuple(flows),
                  duration, sack=sack, loss=loss, fixed_rto_s=fixed_rto, corner=corner, notes=tuple(notes))


def _algorithms(rng: random.Random, space: str, n: int) -> list[str]:
    """Each bulk flow's algorithm (or ns-2 agent; SCTP's one, named by its kind, has
    none): half the samples give every flow the same one."""
    if space == "ns2-sctp":
        return [""] * n
    choices = {"kernel": KERNEL_CCS, "ns2-tcp": NS2_AGENTS, "ns2-linux": NS2_LINUX_CCS}[space]
    if space == "ns2-tcp" or rng.random() < 0.5:
        # ns-2's Agent/TCP variants differ only in recovery: one per sample.
        return [rng.choice(choices)] * n
    return [rng.choice(choices) for _ in range(n)]


def flow_classes(sample: Sample) -> list[list[int]]:
    """Indices of interchangeable flows (same kind, algorithm, hops, RTT and rate),
    in order of their first flow."""
    groups: dict[tuple, list[int]] = {}
    for i, f in enumerate(sample.flows):
        groups.setdefault((f.kind, f.cc, f.hops, f.rtt_s, f.rate_bps, f.on_s, f.off_s), []).append(i)
    return list(groups.values())


def draw_many(space: str, seed: int, count: int) -> list[Sample]:
    """Samples 0 … count − 1 of ``seed``."""
    return [draw(space, seed, i) for i in range(count)]
