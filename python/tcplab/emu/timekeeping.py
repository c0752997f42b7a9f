"""Whether an emulated run kept time: its self-calibration (each flow's measured base
delay, each link's achieved rate, the forwarder's lateness) judged against bounds.

Under load the machine, not the emulation, gets measured: the forwarder writes packets
late, and a host's replies to a late batch are dated on time, so a flow's measured
minimum RTT can come out *below* the configured one (#35: 1.8–12 ms under 40.1 ms with a
CPU hog beside the run). A run is

- ``kept``: every figure within the *flag* bounds (a link's rate: only a shortfall
  counts, see :func:`_misses`) (an idle machine here: deviations of
  hundredths of a millisecond and of a percent, lateness 0.045 ms on average —
  docs/emulation.md, "Accuracy");
- ``flagged``: some figure beyond them; the results stand, with the reasons in
  summary.json (``emulation.timekeeping``), the report and a warning on the console;
- ``unreliable``: some figure beyond the *refuse* bounds; ``tcplab emu`` still writes
  the results (nothing is lost) but exits 1, and an emulated sweep records the run as
  failed with the reasons.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Bounds:
    """The deviations tolerated: a base delay by max(absolute, relative), a link's rate
    shortfall in percent, the forwarder's mean lateness in ms."""

    delay_ms: float
    delay_fraction: float
    rate_pct: float
    lateness_mean_ms: float


#: Beyond these a run is flagged: ~20× what an idle machine shows, so that a flag
#: means the machine was busy, not noise.
FLAG = Bounds(delay_ms=1.0, delay_fraction=0.05, rate_pct=2.0, lateness_mean_ms=0.2)
#: Beyond these a run is unreliable: errors that change a TCP flow's answer (a fifth
#: of its RTT, a tenth of a link's rate).
REFUSE = Bounds(delay_ms=5.0, delay_fraction=0.20, rate_pct=10.0, lateness_mean_ms=2.0)


def _misses(calibration: list[dict], link_rates: list[dict], forwarder: dict, bounds: Bounds) -> list[str]:
    """What exceeds ``bounds``, one sentence each."""
    found = []
    for c in calibration:
        if c["deviation_ms"] is None:
            continue
        allowed = max(bounds.delay_ms, bounds.delay_fraction * c["configured_ms"])
        if abs(c["deviation_ms"]) > allowed:
            found.append(f"flow {c['flow']}: measured base delay {c['measured_ms']:.2f} ms against "
                         f"{c['configured_ms']:.2f} ms configured ({c['deviation_ms']:+.2f} ms; "
                         f"±{allowed:.2f} ms allowed)")
    for r in link_rates:
        # Only a rate below the link's counts: the forwarder never moves a packet on
        # before it is due, so a higher "achieved" rate is the first packet of each busy
        # period handed over late and the rest on time (a 1-Gb/s access link carrying
        # bursts measured +96% on an idle machine), not a faster link.
        if r["deviation_pct"] is not None and -r["deviation_pct"] > bounds.rate_pct:
            found.append(f"link {r['link']}: {r['achieved_bps'] / 1e6:.3f} Mb/s achieved against "
                         f"{r['configured_bps'] / 1e6:.3f} configured ({r['deviation_pct']:+.1f}%; "
                         f"{bounds.rate_pct:g}% below allowed)")
    if forwarder["lateness_mean_ms"] > bounds.lateness_mean_ms:
        found.append(f"the forwarder wrote packets {forwarder['lateness_mean_ms']:.2f} ms late on average "
                     f"({bounds.lateness_mean_ms:g} ms allowed)")
    return found


def judge(calibration: list[dict], link_rates: list[dict], forwarder: dict) -> dict:
    """``{"verdict": "kept" | "flagged" | "unreliable", "problems": [...], "flag": {...},
    "refuse": {...}}`` for a run's self-calibration (see the module's documentation)."""
    unreliable = _misses(calibration, link_rates, forwarder, REFUSE)
    flagged = _misses(calibration, link_rates, forwarder, FLAG)
    verdict = "unreliable" if unreliable else "flagged" if flagged else "kept"
    return {"verdict": verdict, "problems": unreliable or flagged, "flag": asdict(FLAG), "refuse": asdict(REFUSE)}


#: How :func:`describe` begins for a run whose timekeeping was unreliable (a stored
#: emulated run fails with this message).
UNRELIABLE = "the emulator could not keep time: the results are unreliable"


def describe(timekeeping: dict) -> str | None:
    """One line for the console, or None when the run kept time."""
    if timekeeping["verdict"] == "kept":
        return None
    head = UNRELIABLE if timekeeping["verdict"] == "unreliable" else "the emulator kept time only roughly"
    return f"{head} (a busy machine?): {'; '.join(timekeeping['problems'])}"
