"""The tcplab-vs-ns-2 differential suite: what is compared, and how each side is built.

Every case is one set of parameters (`Wired` or `Lan`) rendered twice — as arguments to
a Tcl script in this folder for ns-2.35, and as a tcplab scenario dict — so the two
sides cannot drift apart. `measure` runs both for each seed and returns the metrics the
issue's agreement targets are stated in (README.md in this folder: targets, cases, and
why each remaining difference exists).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: ns-2's RTT clock tick in these cases (common.tcl's match_tcplab_tcp sets tcpTick_
#: 0.0001; the ns2 profile's default is ns-2's own 10 ms).
NS2_TICK = "100us"

#: Agreement targets (issue #9, section 5): relative error of the seed-averaged values.
GOODPUT_TOLERANCE = 0.05
DROPS_TOLERANCE = 0.10


@dataclass(frozen=True)
class Red:
    """RED at the bottleneck, in ns-2.35's terms (0 / -1 = automatic, as ns-2.35)."""

    byte_mode: bool = False
    mean_packet_size: int = 500
    min_th: float = 0  # packets; 0 = automatic
    max_th: float = 0
    w_q: float = -1
    gentle: bool = True
    target_delay_s: float = 0.005


@dataclass(frozen=True)
class Wired:
    """N TCP senders on their own access links to router r, sharing r -> server."""

    flows: int = 10
    variant: str = "Reno"  # ns-2 agent: Reno, Newreno, Sack1
    payloads: tuple[int, ...] = (1000,)  # segment payload per flow, cycled (ns-2 packetSize_)
    window: int = 50  # receiver's window, packets (ns-2 window_)
    iw: int = 1
    rto: tuple[float, float, float] = (1.0, 0.2, 60.0)  # initial, min, max seconds
    fixed_rto: float | None = None
    limited_transmit: bool = True
    impatient: bool = True
    access_mbps: float = 10
    access_delay_ms: float = 0.5
    neck_mbps: float = 10
    neck_delay_ms: float = 0.5
    queue_limit: int = 50  # packets (RED in byte mode: × mean packet size, as ns-2)
    red: Red | None = None
    loss: float = 0.0  # random loss before the bottleneck queue
    duration_s: float = 30
    spacing_s: float = 0.0  # flow i starts at i × spacing

    def ns2_args(self, seed: int) -> list[str]:
        minrto, maxrto = (self.fixed_rto, self.fixed_rto) if self.fixed_rto else self.rto[1:]
        args = {
            "flows": self.flows, "variant": self.variant,
            "sizes": ",".join(map(str, self.payloads)), "window": self.window, "iw": self.iw,
            "minrto": minrto, "maxrto": maxrto, "rtoinit": self.fixed_rto or self.rto[0],
            "singledup": int(self.limited_transmit), "impatient": int(self.impatient),
            "access_bw": f"{self.access_mbps}Mb", "access_delay": f"{self.access_delay_ms}ms",
            "neck_bw": f"{self.neck_mbps}Mb", "neck_delay": f"{self.neck_delay_ms}ms",
            "qlim": self.queue_limit, "loss": self.loss, "duration": self.duration_s,
            "spacing": self.spacing_s, "seed": seed,
        }
        if self.red:
            r = self.red
            args |= {
                "queue": "RED", "red_bytes": int(r.byte_mode), "red_qbytes": int(r.byte_mode),
                "red_thresh": r.min_th, "red_maxthresh": r.max_th, "red_qweight": r.w_q,
                "red_pktsize": r.mean_packet_size, "red_gentle": int(r.gentle),
                "red_targetdelay": r.target_delay_s,
            }
        return [f"{k}={v}" for k, v in args.items()]

    def scenario(self, seed: int) -> dict:
        mtu = max(max(self.payloads) + 40, 1500)
        nodes = [{"name": "r", "kind": "router"}, {"name": "server"}]
        big = {"type": "droptail", "limit": "100000 packets"}
        forward: dict = {"queue": self._queue()}
        if self.loss:
            forward |= {"loss": {"type": "bernoulli", "rate": self.loss}, "loss_at": "before_queue"}
        links = [{
            "from": "r", "to": "server", "bandwidth": f"{self.neck_mbps}Mbps",
            "delay": f"{self.neck_delay_ms}ms", "mtu": mtu, "forward": forward,
            "reverse": {"queue": big},
        }]
        flows = []
        for i in range(self.flows):
            nodes.append({"name": f"c{i}"})
            links.append({
                "from": f"c{i}", "to": "r", "bandwidth": f"{self.access_mbps}Mbps",
                "delay": f"{self.access_delay_ms}ms", "mtu": mtu, "queue": big,
            })
            flows.append({
                "name": f"f{i}", "from": f"c{i}", "to": "server", "start": f"{i * self.spacing_s}s",
                "app": {"type": "bulk"}, "transport": self._tcp(self.payloads[i % len(self.payloads)]),
            })
        return {
            "simulation": {"duration": f"{self.duration_s}s", "seed": seed, "bin": "1s"},
            "node": nodes, "link": links, "flow": flows,
        }

    def _queue(self) -> dict:
        if not self.red:
            return {"type": "droptail", "limit": f"{self.queue_limit} packets"}
        r = self.red
        auto = lambda v: "auto" if v <= 0 else v  # noqa: E731
        limit = (f"{self.queue_limit * r.mean_packet_size}B" if r.byte_mode
                 else f"{self.queue_limit} packets")
        return {
            "type": "red", "limit": limit, "mode": "byte" if r.byte_mode else "packet",
            "mean_packet_size": f"{r.mean_packet_size}B", "min_th": auto(r.min_th),
            "max_th": auto(r.max_th), "w_q": auto(r.w_q), "gentle": r.gentle,
            "target_delay": f"{r.target_delay_s}s", "max_p": 0.1,
        }

    def _tcp(self, payload: int) -> dict:
        rto = ({"fixed": f"{self.fixed_rto}s", "initial": f"{self.fixed_rto}s", "min": f"{self.fixed_rto}s", "max": f"{self.fixed_rto}s"} if self.fixed_rto
               else {"initial": f"{self.rto[0]}s", "min": f"{self.rto[1]}s", "max": f"{self.rto[2]}s", "tick": NS2_TICK})
        return {
            "type": "tcp", "profile": "ns2",
            "cc": "reno" if self.variant == "Reno" else "newreno",
            "sack": self.variant == "Sack1", "mss": f"{payload}B",
            "initial_window": self.iw, "receive_buffer": f"{self.window} packets",
            "max_window": f"{self.window} segments", "rto": rto,
            "limited_transmit": self.limited_transmit,
            "newreno_timer": "impatient" if self.impatient else "slow_but_steady",
        }


@dataclass(frozen=True)
class Lan:
    """N clients and a server on one shared half-duplex segment (ns-2 make-lan, 802.3)."""

    stations: int = 2  # clients; the server is one more station
    mbps: float = 10
    delay_ms: float = 0.1
    payload: int = 1000
    window: int = 50
    queue_limit: int = 50
    duration_s: float = 30

    def ns2_args(self, seed: int) -> list[str]:
        args = {
            "clients": self.stations, "bw": f"{self.mbps}Mb", "delay": self.delay_ms,
            "size": self.payload, "window": self.window, "qlim": self.queue_limit,
            "duration": self.duration_s, "seed": seed,
        }
        return [f"{k}={v}" for k, v in args.items()]

    def scenario(self, seed: int) -> dict:
        clients = [f"c{i}" for i in range(self.stations)]
        return {
            "simulation": {"duration": f"{self.duration_s}s", "seed": seed, "bin": "1s"},
            "node": [{"name": n} for n in [*clients, "server"]],
            "segment": [{
                "name": "lan", "stations": [*clients, "server"], "bandwidth": f"{self.mbps}Mbps",
                "delay": f"{self.delay_ms}ms", "framing": ETHERNET_802_3_NS2_FRAMING,
                "queue": {"type": "droptail", "limit": f"{self.queue_limit} packets"},
            }],
            "flow": [{
                "name": f"f{i}", "from": c, "to": "server", "app": {"type": "bulk"},
                "transport": {
                    "type": "tcp", "profile": "ns2", "cc": "reno", "mss": f"{self.payload}B",
                    "initial_window": 1, "receive_buffer": f"{self.window} packets",
                    "max_window": f"{self.window} segments",
                    "rto": {"initial": "1s", "min": "200ms", "max": "60s", "tick": NS2_TICK},
                },
            } for i, c in enumerate(clients)],
        }


#: Bytes of wire time ns-2's Mac/802_3 adds to a data frame: the 14-byte Ethernet header
#: plus the 96-bit interframe space (mac/mac-802_3.h). ns-2 pads frames to 64 bytes
#: (its 40-byte ACKs take 64 + 12 bytes there, 66 here): README.md, case (e).
ETHERNET_802_3_NS2_FRAMING = 14 + 12


@dataclass(frozen=True)
class Case:
    """One comparison: a named parameter set, its seeds, and whether it runs in CI."""

    group: str  # a..e, as in the issue
    name: str
    params: Wired | Lan
    seeds: tuple[int, ...] = (1,)
    quick: bool = False  # part of the reduced set CI runs
    deterministic: bool = True  # no random loss and no RED: timeout counts must match
    #: Payload sizes reported separately (RED with mixed traffic): goodput per class.
    classes: tuple[int, ...] = ()
    #: Targets this case is known to miss ("goodput", "drops", "timeouts"), each
    #: explained in README.md; the CI test checks they still miss, so a fix shows up.
    known_gaps: frozenset[str] = frozenset()

    @property
    def script(self) -> Path:
        return HERE / ("lan.tcl" if isinstance(self.params, Lan) else "wired.tcl")


@dataclass
class Metrics:
    """What one run (or the mean over seeds) measured."""

    goodput_mbps: float
    drops: float
    timeouts: float
    retransmits: float
    class_goodput_mbps: dict[int, float] = field(default_factory=dict)


def ns2_binary() -> str | None:
    return shutil.which("ns")


def run_ns2(case: Case, seed: int, ns: str) -> Metrics:
    proc = subprocess.run(
        [ns, str(case.script), *case.params.ns2_args(seed)],
        capture_output=True, text=True, timeout=1800, cwd=HERE,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"ns-2 failed on {case.group} {case.name}: {proc.stderr.strip()[-500:]}")
    p = case.params
    payloads = p.payloads if isinstance(p, Wired) else (p.payload,)
    total = drops = timeouts = retx = 0.0
    per_class: dict[int, float] = {}
    for line in proc.stdout.splitlines():
        words = line.split() or [""]
        if words[0] == "flow":
            i, start, acked, rto, rexmit = int(words[1]), float(words[2]), int(words[3]), int(words[4]), int(words[5])
            payload = payloads[i % len(payloads)]
            # ack_ is the highest cumulatively acknowledged segment, numbered from 0.
            bps = (acked + 1) * payload * 8 / (p.duration_s - start)
            total += bps
            per_class[payload] = per_class.get(payload, 0.0) + bps
            timeouts += rto
            retx += rexmit
        elif words[0] == "drops":
            drops = float(words[1])
    return Metrics(total / 1e6, drops, timeouts, retx, {k: v / 1e6 for k, v in per_class.items()})


def run_tcplab(case: Case, seed: int) -> Metrics:
    import tcplab

    result = tcplab.run(case.params.scenario(seed))
    flows = result.summary["flows"]
    p = case.params
    payloads = p.payloads if isinstance(p, Wired) else (p.payload,)
    total = timeouts = retx = 0.0
    per_class: dict[int, float] = {}
    for i, f in enumerate(flows):
        payload = payloads[i % len(payloads)]
        bps = f["delivered_bytes"] * 8 / (p.duration_s - f["start_s"])
        total += bps
        per_class[payload] = per_class.get(payload, 0.0) + bps
        timeouts += f["rto_count"]
        retx += f["retransmits"]
    if isinstance(p, Lan):
        # Queue drops at any station's interface (in ns-2 the LAN's interface queues).
        drops = sum(sum(l["drops"][k] for k in ("queue", "red")) for l in result.summary["links"]
                    if l["dst"] == "lan")
    else:
        neck = next(l for l in result.summary["links"] if l["id"] == "r->server")
        drops = neck["drops"]["queue"] + neck["drops"]["red"]
    return Metrics(total / 1e6, drops, timeouts, retx, {k: v / 1e6 for k, v in per_class.items()})


@dataclass
class Comparison:
    """A case's seed-averaged metrics from both tools, with the spread over seeds."""

    case: Case
    ours: Metrics
    theirs: Metrics
    ours_spread: float  # standard deviation of goodput over seeds, Mbit/s
    theirs_spread: float

    @staticmethod
    def _rel(a: float, b: float) -> float:
        return (a - b) / b if b else (0.0 if a == b else float("inf"))

    @property
    def goodput_error(self) -> float:
        return self._rel(self.ours.goodput_mbps, self.theirs.goodput_mbps)

    @property
    def drops_error(self) -> float:
        return self._rel(self.ours.drops, self.theirs.drops)

    def missed(self) -> dict[str, str]:
        """The agreement targets this case misses, by metric (empty when it agrees)."""
        out = {}
        if abs(self.goodput_error) > GOODPUT_TOLERANCE:
            out["goodput"] = f"goodput {self.goodput_error:+.1%} (target ±{GOODPUT_TOLERANCE:.0%})"
        if abs(self.drops_error) > DROPS_TOLERANCE:
            out["drops"] = f"drops {self.drops_error:+.1%} (target ±{DROPS_TOLERANCE:.0%})"
        if self.case.deterministic and self.ours.timeouts != self.theirs.timeouts:
            out["timeouts"] = f"timeouts {self.ours.timeouts:g} vs {self.theirs.timeouts:g} (target: equal)"
        return out

    def failures(self) -> list[str]:
        return list(self.missed().values())


def _mean(ms: list[Metrics]) -> Metrics:
    classes = sorted({k for m in ms for k in m.class_goodput_mbps})
    return Metrics(
        statistics.fmean(m.goodput_mbps for m in ms), statistics.fmean(m.drops for m in ms),
        statistics.fmean(m.timeouts for m in ms), statistics.fmean(m.retransmits for m in ms),
        {k: statistics.fmean(m.class_goodput_mbps.get(k, 0.0) for m in ms) for k in classes},
    )


def _spread(ms: list[Metrics]) -> float:
    return statistics.stdev(m.goodput_mbps for m in ms) if len(ms) > 1 else 0.0


def measure(case: Case, ns: str, jobs: int | None = None) -> Comparison:
    """Runs the case in both tools for every seed (ns-2 runs in parallel threads)."""
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        theirs_f = [pool.submit(run_ns2, case, s, ns) for s in case.seeds]
        ours = [run_tcplab(case, s) for s in case.seeds]
        theirs = [f.result() for f in theirs_f]
    return Comparison(case, _mean(ours), _mean(theirs), _spread(ours), _spread(theirs))


def _star(delay_ms: float, fixed_rto: float) -> Wired:
    """The LAN study's star (scenarios/lan-base.toml): 10 Reno clients, 10 Mbit/s,
    1,000-byte segments, 50-packet buffers; the one-way delay is split over the two hops."""
    return Wired(access_delay_ms=delay_ms / 2, neck_delay_ms=delay_ms / 2, fixed_rto=fixed_rto)


def _lfn(impatient: bool, loss: float) -> Wired:
    """One NewReno flow, 100 Mbit/s, 100 ms RTT, a queue of half a BDP: a slow-start
    overshoot loses hundreds of segments in one window, then random loss."""
    return Wired(flows=1, variant="Newreno", payloads=(1460,), window=100000, iw=2,
                 access_mbps=1000, access_delay_ms=1, neck_mbps=100, neck_delay_ms=48,
                 queue_limit=416, loss=loss, impatient=impatient, duration_s=60)


def _small_windows(limited_transmit: bool, window: int) -> Wired:
    """Four NewReno flows with small windows and 2% random loss: without Limited
    Transmit a loss in a window of < 4 segments can only end in a timeout."""
    return Wired(flows=4, variant="Newreno", payloads=(1460,), window=window, iw=2,
                 access_mbps=100, access_delay_ms=1, neck_mbps=10, neck_delay_ms=20,
                 queue_limit=100, loss=0.02, limited_transmit=limited_transmit, duration_s=60)


def _red_mixed(byte_mode: bool) -> Wired:
    """Two 1,500-byte and two 9,180-byte NewReno flows through RED at 100 Mbit/s."""
    return Wired(flows=4, variant="Newreno", payloads=(1460, 9140), window=100000, iw=2,
                 access_mbps=1000, access_delay_ms=1, neck_mbps=100, neck_delay_ms=10,
                 queue_limit=200, red=Red(byte_mode=byte_mode, mean_packet_size=1500),
                 duration_s=30)


SEEDS = (1, 2, 3, 4, 5)

#: Known gaps (README.md, "Where the two differ"): timeouts in the fixed-RTO star,
#: the lossy NewReno runs, the 802.3 MAC.
STAR_GAPS = frozenset({"timeouts"})
#: Fixed-RTO star points whose drops also differ by more than 10% (README item 1: they
#: follow the timeout counts).
STAR_DROPS_GAPS = frozenset({(0.5, 1), (0.05, 10)})
AGGRESSIVE_RTO_GAPS = frozenset({"goodput", "drops", "timeouts"})

CASES: list[Case] = [
    *[Case("a", f"fixed RTO {rto:g} s, one-way {d:g} ms", _star(d, rto),
           quick=(rto, d) in {(0.05, 1), (0.1, 10)},
           known_gaps=AGGRESSIVE_RTO_GAPS if rto == 0.025 else
           STAR_GAPS | ({"drops"} if (rto, d) in STAR_DROPS_GAPS else set()))
      for d in (1, 10) for rto in (0.025, 0.05, 0.075, 0.1, 0.2, 0.5)],
    *[Case("b", f"RED {mode} mode, 1500/9180 B", _red_mixed(mode == "byte"), SEEDS,
           quick=True, deterministic=False, classes=(1460, 9140)) for mode in ("packet", "byte")],
    Case("c", "NewReno impatient, loss 0", _lfn(True, 0.0), quick=True),
    Case("c", "NewReno slow-but-steady, loss 0", _lfn(False, 0.0), quick=True),
    *[Case("c", f"NewReno {timer}, loss 0.0001", _lfn(timer == "impatient", 1e-4), SEEDS,
           deterministic=False,
           known_gaps=frozenset({"drops", "goodput"}))
      for timer in ("impatient", "slow-but-steady")],
    *[Case("d", f"Limited Transmit {'on' if lt else 'off'}, window {w}", _small_windows(lt, w), SEEDS,
           quick=(w == 4), deterministic=False) for w in (4, 8) for lt in (True, False)],
    *[Case("e", f"shared segment, {n} stations + server", Lan(stations=n), SEEDS, quick=(n == 2),
           deterministic=False, known_gaps=frozenset({"goodput", "drops"})) for n in (2, 10)],
]


def select(quick: bool) -> list[Case]:
    return [c for c in CASES if c.quick or not quick]


def with_seeds(case: Case, seeds: tuple[int, ...]) -> Case:
    return replace(case, seeds=seeds)
