"""``tcplab advise --verify --hosts FILE``: the recommended change and the scenario as it
is, run on the real path through ``tcplab measure`` (alternately, so that the path's
drift over time falls on both alike), and whether the gain the simulator predicted
appeared there.

Only what a socket can be told is verifiable this way: a congestion control, socket
buffers. A router's queue, the path's MTU, the RTO (a route attribute) and SCTP are the
path's or the host's, not the measurement's: such a recommendation is said to be
unverifiable, and the best verifiable one is checked instead, if any.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..scenario import load
from .verdict import Assessment, Change, change

#: Scenario fields a measurement can set per socket (the last part of an override's path).
SOCKET_FIELDS = ("cc", "receive_buffer", "max_window", "send_buffer")


@dataclass(frozen=True)
class Verification:
    """The predicted and the measured change in your flows' goodput, and the verdict."""

    assessment: Assessment
    predicted: Change
    measured: Change | None
    current_bps: list[float]
    changed_bps: list[float]
    verdict: str


def verifiable(a: Assessment) -> bool:
    """Whether ``tcplab measure`` can make ``a``'s change: per-socket fields only."""
    return all(key.rsplit(".", 1)[-1] in SOCKET_FIELDS and ".transport." in key for key, _ in a.variant.overrides)


def pick(recommended: list[Assessment]) -> tuple[Assessment | None, str | None]:
    """The best recommendation that can be verified, and why the overall best was
    passed over (None if it was not)."""
    if not recommended:
        return None, None
    best = max(recommended, key=lambda a: a.gain.relative if a.gain else 0.0)
    if verifiable(best):
        return best, None
    why = (f"{best.variant.name} is not a socket setting ({best.variant.owner}): tcplab measure cannot make it")
    others = [a for a in recommended if verifiable(a)]
    return (max(others, key=lambda a: a.gain.relative if a.gain else 0.0) if others else None), why


def verify(scenario_source, sets: list[str], flows: list[str], a: Assessment, hosts, runs: int,
           measure: Callable, progress: Callable[[str], None] | None = None) -> Verification:
    """Measures the scenario as it is and with ``a``'s change ``runs`` times each,
    alternating; ``measure(scenario, hosts)`` is :func:`tcplab.measure.measure`."""
    current_bps: list[float] = []
    changed_bps: list[float] = []
    for r in range(runs):
        for label, overrides, into in (("as it is", [], current_bps), (a.variant.name, list(a.variant.overrides), changed_bps)):
            if progress is not None:
                progress(f"verifying on the hosts: run {r + 1} of {runs}, {label}")
            result = measure(load(scenario_source, [*sets, *overrides]), hosts)
            into.append(sum(f["goodput_bps"] for f in result.summary["flows"] if f["id"] in flows))
    measured = change(changed_bps, current_bps)
    predicted = a.gain
    assert predicted is not None
    if measured is None or measured.half_width is None:
        verdict = "cannot tell (too few runs for an interval)"
    elif measured.low > 0:
        verdict = ("the gain appeared" + ("" if measured.high >= predicted.low else ", smaller than predicted"))
    elif measured.high < 0:
        verdict = "the opposite appeared: the change lost goodput on the real path"
    else:
        verdict = "the gain did not appear (the measured interval includes no change)"
    return Verification(a, predicted, measured, current_bps, changed_bps, verdict)
