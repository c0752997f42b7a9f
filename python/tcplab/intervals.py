"""Interval reports while a run goes on (``tcplab run --interval``), as iperf3 prints
them: per flow and interval, what was delivered and at what rate, retransmissions,
and the sender's window and RTT at the interval's end."""

from __future__ import annotations

import json
import sys
from typing import TextIO

_HEADER = f"{'flow':<12} {'interval s':>15} {'transfer':>11} {'goodput':>13} {'retr':>6} {'cwnd':>10} {'RTT':>10}"


def _bytes(n: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.2f} {unit}"
    return f"{n:.0f} B"


def _rate(bps: float) -> str:
    for unit, scale in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if bps >= scale:
            return f"{bps / scale:.2f} {unit}"
    return f"{bps:.0f} b/s"


class IntervalReport:
    """An ``on_interval`` callback for :func:`tcplab.runner.simulate` that prints one
    line per flow per interval: text under a header, or with ``as_json`` one JSON
    object per line (counts are those of the interval; cwnd and RTT are at its end)."""

    def __init__(self, flows: list[dict], *, as_json: bool = False, stream: TextIO | None = None) -> None:
        self.ids = [f["name"] for f in flows]
        self.as_json = as_json
        self.stream = stream or sys.stdout
        self.before: list[dict] | None = None

    def __call__(self, start_ns: int, end_ns: int, snapshot: list[dict]) -> None:
        before = self.before or [{k: 0 for k in ("delivered_bytes", "received_bytes", "packets_sent", "packets_dropped",
                                                   "retransmits")} for _ in snapshot]
        seconds = max(end_ns - start_ns, 1) / 1e9
        lines = [] if self.before is not None or self.as_json else [_HEADER]
        for flow, now, then in zip(self.ids, snapshot, before, strict=True):
            # A count not observed (a measurement between real hosts: drops, IP bytes) stays None.
            delta: dict[str, int | None] = {k: None if now[k] is None else now[k] - (then[k] or 0)
                                            for k in ("received_bytes", "packets_sent", "packets_dropped")}
            delivered = now["delivered_bytes"] - then["delivered_bytes"]  # always observed
            delta["delivered_bytes"] = delivered
            retr = None if now["retransmits"] is None else now["retransmits"] - (then["retransmits"] or 0)
            if self.as_json:
                lines.append(json.dumps({
                    "flow": flow, "start_s": start_ns / 1e9, "end_s": end_ns / 1e9, **delta,
                    "goodput_bps": delivered * 8 / seconds,
                    "throughput_bps": None if delta["received_bytes"] is None else delta["received_bytes"] * 8 / seconds,
                    "retransmits": retr, "cwnd_bytes": now["cwnd_bytes"], "srtt_ms": now["srtt_ms"]}))
            else:
                span = f"{start_ns / 1e9:.2f}-{end_ns / 1e9:.2f}"
                cwnd = "-" if now["cwnd_bytes"] is None else _bytes(now["cwnd_bytes"])
                rtt = "-" if now["srtt_ms"] is None else f"{now['srtt_ms']:.1f} ms"
                lines.append(f"{flow[:12]:<12} {span:>15} {_bytes(delivered):>11} "
                             f"{_rate(delivered * 8 / seconds):>13} {'-' if retr is None else retr:>6} "
                             f"{cwnd:>10} {rtt:>10}")
        self.stream.write("\n".join(lines) + "\n")
        self.stream.flush()
        self.before = snapshot
