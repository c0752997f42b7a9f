"""ns-2's answer on the lan study's own points (#30 item 1): the switched star's sweeps
(receive buffer, fixed RTO, the default RTO algorithm, the one-client diagnostic) on
their full grids, run by ns-2.35's Agent/TCP/Reno with its own defaults where the study
reads the paper as ns-2.35's defaults (``profile = "ns2"``: initial window 2, tcpTick
10 ms, initial RTO 3 s, minrto 0.2 s) — the paper's own simulator on the paper's
experiment, not a copy of tcplab's choices.

Rendered with the differential suite's star (``cases.Wired``, ``wired.tcl``: ten Reno
clients on 10 Mbit/s access links, a 10 Mbit/s bottleneck with a DropTail queue of 50
packets waiting, the one-way delay split over the two hops), so the reference is the
topology that suite checks against tcplab. Two readings are ns-2's own:

- A fixed RTO is ``minrto_ = maxrto_ = rtxcur_init_``: the only RTO ns-2.35 holds
  fixed, and it does not back off (tcplab's ``rto.fixed`` doubles on each timeout up
  to the profile's 60 s ceiling).
- The half-duplex segment sweeps are not run: ns-2's 802.3 MAC (collisions, backoff)
  is not the model the study chose for it (tests/ns2/README.md, case e).

The model draws no random number (DropTail, no loss), so one run per point.
"""

from __future__ import annotations

import subprocess
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
REFERENCE = ("ns-2.35 Agent/TCP/Reno and TCPSink with ns-2.35's defaults (initial window 2, tcpTick 10 ms, "
             "initial RTO 3 s, minrto 0.2 s); fixed RTO as minrto_ = maxrto_ (no backoff); tests/ns2/study_lan.py")


def _star(delay_ms: float, window: int, flows: int = 10, fixed_rto: float | None = None) -> Wired:
    return Wired(flows=flows, window=window, iw=NS2_INITIAL_WINDOW, rto=NS2_RTO, fixed_rto=fixed_rto,
                 access_delay_ms=delay_ms / 2, neck_delay_ms=delay_ms / 2)


def points() -> list[tuple[str, dict, Wired]]:
    """(sweep, point parameters, ns-2 star) of every reference point."""
    out = []
    for d in DELAYS_MS:
        out += [("buffer_star", {"buffer": b, "delay_ms": d}, _star(d, b)) for b in BUFFERS]
        out += [("buffer_one_client", {"buffer": b, "delay_ms": d}, _star(d, b, flows=1)) for b in BUFFERS]
        out += [("rto_star", {"rto_s": r, "delay_ms": d}, _star(d, RTO_SWEEP_WINDOW, fixed_rto=r)) for r in FIXED_RTOS]
        out.append(("rto_default_star", {"delay_ms": d}, _star(d, RTO_SWEEP_WINDOW)))
    return out


def run(point: tuple[str, dict, Wired], seeds: int, ns: str) -> dict:
    """One point in ns-2 (``seeds`` is ignored: nothing here is random)."""
    sweep, params, star = point
    proc = subprocess.run([ns, str(HERE / "wired.tcl"), *star.ns2_args(1), f"tick={NS2_TICK_S}"],
                          capture_output=True, text=True, timeout=1800, cwd=HERE)
    if proc.returncode != 0:
        raise RuntimeError(f"ns-2 failed on {sweep} {params}: {proc.stderr.strip()[-500:]}")
    goodput = timeouts = retransmits = drops = 0.0
    srtts = []
    for line in proc.stdout.splitlines():
        words = line.split() or [""]
        if words[0] == "flow":
            start, acked = float(words[2]), int(words[3])
            # ack_ is the highest segment acknowledged cumulatively, numbered from 0.
            goodput += (acked + 1) * star.payloads[0] * 8 / (star.duration_s - start)
            timeouts += int(words[4])
            retransmits += int(words[5])
            srtts.append(float(words[6]) * 1e3)
        elif words[0] == "drops":
            drops = float(words[1])
    print(f"{sweep} {params}: {goodput / 1e6:.3f} Mb/s, {retransmits:.0f} retransmissions", flush=True)
    return {"sweep": sweep, "point": params,
            "runs": {"goodput_bps": [goodput], "srtt_ms": [sum(srtts) / len(srtts)], "retransmits": [retransmits],
                     "timeouts": [timeouts], "drops": [drops]}}
