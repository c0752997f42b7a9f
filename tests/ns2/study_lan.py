"""ns-2's answer on the lan study's own points (#30 item 1): every sweep on its full
grid — the switched star's (receive buffer, fixed RTO, the default RTO algorithm, the
one-client diagnostic) and the half-duplex segment's — run by ns-2.35's Agent/TCP/Reno
with its own defaults where the study reads the paper as ns-2.35's defaults (``profile =
"ns2"``: initial window 2, tcpTick 10 ms, initial RTO 3 s, minrto 0.2 s): the paper's own
simulator on the paper's experiment, not a copy of tcplab's choices.

The star is the differential suite's (``cases.Wired``, ``wired.tcl``: ten Reno clients on
10 Mbit/s access links, a 10 Mbit/s bottleneck with a DropTail queue of 50 packets
waiting, the one-way delay split over the two hops); the segment is its case (e)
(``lan.tcl``: ns-2's make-lan with the 802.3 MAC, the station-to-station delay). Two
readings are ns-2's own:

- A fixed RTO is ``minrto_ = maxrto_ = rtxcur_init_``: the only RTO ns-2.35 holds
  fixed, and it does not back off (tcplab's ``rto.fixed`` doubles on each timeout up
  to the profile's 60 s ceiling).
- The segment is ns-2's 802.3 MAC, with collisions and binary exponential backoff, where
  the study chose a collision-free segment (tests/ns2/README.md, case e): ns-2's grade
  there says what the paper's simulator gives, not how close tcplab's model is.

The star draws no random number (DropTail, no loss): one run per point. The 802.3
backoff does: ``--seeds`` runs per segment point.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from cases import Wired

HERE = Path(__file__).resolve().parent
#: ns-2.35's Agent/TCP defaults the study's ``profile = "ns2"`` reads: initial, min, max RTO.
NS2_RTO = (3.0, 0.2, 60.0)
NS2_TICK_S = 0.01
NS2_INITIAL_WINDOW = 2
#: The window during the RTO sweeps (study.toml: "50 packets in the RTO sweep").
RTO_SWEEP_WINDOW = 50
DELAYS_MS = (0.1, 1, 10, 20)
BUFFERS = tuple(range(10, 141, 10))
FIXED_RTOS = tuple(round(0.025 * k, 3) for k in range(1, 41))
PAYLOAD = 1000
DURATION_S = 30.0
REFERENCE = ("ns-2.35 Agent/TCP/Reno and TCPSink with ns-2.35's defaults (initial window 2, tcpTick 10 ms, "
             "initial RTO 3 s, minrto 0.2 s); fixed RTO as minrto_ = maxrto_ (no backoff); the segment by make-lan "
             "and Mac/802_3; tests/ns2/study_lan.py")


@dataclass(frozen=True)
class NsRun:
    """One ns-2 script and its arguments (the seed apart)."""

    script: str
    args: tuple[str, ...]
    #: Whether the run draws random numbers (the 802.3 backoff): then it runs on each seed.
    random: bool = False


def _star(delay_ms: float, window: int, flows: int = 10, fixed_rto: float | None = None) -> NsRun:
    star = Wired(flows=flows, window=window, iw=NS2_INITIAL_WINDOW, rto=NS2_RTO, fixed_rto=fixed_rto,
                 access_delay_ms=delay_ms / 2, neck_delay_ms=delay_ms / 2, duration_s=DURATION_S)
    args = [a for a in star.ns2_args(1) if not a.startswith("seed=")]
    return NsRun("wired.tcl", (*args, f"tick={NS2_TICK_S}"))


def _segment(delay_ms: float, window: int, fixed_rto: float | None = None) -> NsRun:
    initial, low, high = (fixed_rto,) * 3 if fixed_rto else NS2_RTO
    return NsRun("lan.tcl", ("clients=10", f"delay={delay_ms}", f"size={PAYLOAD}", f"window={window}",
                             f"iw={NS2_INITIAL_WINDOW}", f"rtoinit={initial}", f"minrto={low}", f"maxrto={high}",
                             f"tick={NS2_TICK_S}", f"duration={DURATION_S}"), random=True)


def points() -> list[tuple[str, dict, NsRun]]:
    """(sweep, point parameters, ns-2 run) of every reference point."""
    out = []
    for d in DELAYS_MS:
        out += [("buffer_star", {"buffer": b, "delay_ms": d}, _star(d, b)) for b in BUFFERS]
        out += [("buffer_one_client", {"buffer": b, "delay_ms": d}, _star(d, b, flows=1)) for b in BUFFERS]
        out += [("rto_star", {"rto_s": r, "delay_ms": d}, _star(d, RTO_SWEEP_WINDOW, fixed_rto=r)) for r in FIXED_RTOS]
        out.append(("rto_default_star", {"delay_ms": d}, _star(d, RTO_SWEEP_WINDOW)))
        out += [("buffer_segment", {"buffer": b, "delay_ms": d}, _segment(d, b)) for b in BUFFERS]
        out += [("rto_segment", {"rto_s": r, "delay_ms": d}, _segment(d, RTO_SWEEP_WINDOW, fixed_rto=r))
                for r in FIXED_RTOS]
        out.append(("rto_default_segment", {"delay_ms": d}, _segment(d, RTO_SWEEP_WINDOW)))
    return out


def run(point: tuple[str, dict, NsRun], seeds: int, ns: str) -> dict:
    """One point in ns-2: on seeds 1 … ``seeds`` if it draws random numbers, else once."""
    sweep, params, ns_run = point
    runs: dict[str, list[float]] = {"goodput_bps": [], "srtt_ms": [], "retransmits": [], "timeouts": [], "drops": []}
    for seed in range(1, (seeds if ns_run.random else 1) + 1):
        for metric, value in _run_once(ns_run, seed, ns, f"{sweep} {params}").items():
            runs[metric].append(value)
    mean = sum(runs["goodput_bps"]) / len(runs["goodput_bps"])
    print(f"{sweep} {params}: {mean / 1e6:.3f} Mb/s", flush=True)
    return {"sweep": sweep, "point": params, "runs": runs}


def _run_once(ns_run: NsRun, seed: int, ns: str, what: str) -> dict[str, float]:
    proc = subprocess.run([ns, str(HERE / ns_run.script), *ns_run.args, f"seed={seed}"],
                          capture_output=True, text=True, timeout=1800, cwd=HERE)
    if proc.returncode != 0:
        raise RuntimeError(f"ns-2 failed on {what}: {proc.stderr.strip()[-500:]}")
    goodput = timeouts = retransmits = drops = 0.0
    srtts = []
    for line in proc.stdout.splitlines():
        words = line.split() or [""]
        if words[0] == "flow":
            start, acked = float(words[2]), int(words[3])
            # ack_ is the highest segment acknowledged cumulatively, numbered from 0.
            goodput += (acked + 1) * PAYLOAD * 8 / (DURATION_S - start)
            timeouts += int(words[4])
            retransmits += int(words[5])
            srtts.append(float(words[6]) * 1e3)
        elif words[0] == "drops":
            drops = float(words[1])
    return {"goodput_bps": goodput, "srtt_ms": sum(srtts) / len(srtts), "retransmits": retransmits,
            "timeouts": timeouts, "drops": drops}
