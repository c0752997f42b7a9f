"""PNG plots of a run: received throughput (or goodput) over time, queue occupancy,
delay CDF, congestion window (TCP), cumulative loss. Per-flow plots draw one line per
flow up to :data:`MAX_FLOW_LINES` flows, and the flows' median and spread beyond."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

if TYPE_CHECKING:
    from .results import RunResult

#: Beyond this many lines a plot drops its legend.
MAX_LEGEND = 12
#: Beyond this many flows a per-flow plot shows their median and spread instead.
MAX_FLOW_LINES = 40
#: Most points per line: finer series are drawn over groups of consecutive bins (a
#: plot is ~900 pixels wide; a million points per line only costs memory and time).
MAX_POINTS = 2000


class _Coarsening:
    """Groups of ``k`` consecutive bins, so that at most :data:`MAX_POINTS` remain."""

    def __init__(self, bin_start_s: np.ndarray, bin_width_s: np.ndarray) -> None:
        self.bins = len(bin_start_s)
        self.bin_width_s = bin_width_s
        self.k = max(-(-self.bins // MAX_POINTS), 1)
        self.time_s = bin_start_s[:: self.k]
        self.width_s = self.sum(bin_width_s[None, :])[0]

    def sum(self, values: np.ndarray) -> np.ndarray:
        """Per group: the sum over its bins (rows are entities)."""
        if self.k == 1:
            return values
        starts = np.arange(0, self.bins, self.k)
        return np.add.reduceat(values, starts, axis=1)

    def last(self, values: np.ndarray) -> np.ndarray:
        """Per group: the value of its last bin (end-of-bin samples)."""
        if self.k == 1:
            return values
        ends = np.minimum(np.arange(0, self.bins, self.k) + self.k, self.bins) - 1
        return values[:, ends]

    def mean(self, values: np.ndarray) -> np.ndarray:
        """Per group: the time-weighted mean of per-bin means."""
        if self.k == 1:
            return values
        return self.sum(values * self.bin_width_s) / self.width_s
#: How many of the busiest queues the queue plot shows.
MAX_QUEUES = 6


def _finish(fig, ax, path: Path, n_lines: int) -> None:
    if 0 < n_lines <= MAX_LEGEND:
        ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _per_flow(ax, time_s, values, ids, scale: float, *, step: bool = False) -> int:
    """Plots one line per flow (rows of ``values``, flows × bins) — or, beyond
    :data:`MAX_FLOW_LINES` flows, their median and 10th–90th percentile band per bin.
    Returns the number of legend entries."""
    values = values * scale
    if len(ids) <= MAX_FLOW_LINES:
        for flow, row in zip(ids, values, strict=True):
            if not np.all(np.isnan(row)):
                (ax.step if step else ax.plot)(time_s, row, label=flow, lw=1, **({"where": "post"} if step else {}))
        return len(ids)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # bins where no flow has a value
        p10, p50, p90 = np.nanpercentile(values, [10, 50, 90], axis=0)
    ax.fill_between(time_s, p10, p90, alpha=0.3, lw=0, label=f"10th–90th percentile of {len(ids):,} flows")
    ax.plot(time_s, p50, lw=1.2, label="median flow")
    return 2


def write_plots(result: RunResult, out: Path, throughput: str = "received") -> list[Path]:
    """Writes the run's plots into ``out``; returns their paths. throughput.png shows
    the received throughput per flow, or with ``throughput="goodput"`` the goodput."""
    written = []
    series = result._series()
    n, bins = len(series.flow_ids), series.bins
    group = _Coarsening(series.bin_start_s, series.bin_width_s)
    time_s = group.time_s
    bin_ms = result.summary["bin_s"] * 1e3 * group.k

    def per_flow(column: str) -> np.ndarray:
        return series.flow[column].reshape(n, bins).astype(float)

    fig, ax = plt.subplots(figsize=(8, 4.5))
    if throughput == "goodput":
        column, what = "delivered_bytes", "goodput"
    else:
        column, what = "received_bytes", "received throughput"
    rate = group.sum(per_flow(column)) * 8.0 / group.width_s
    lines = _per_flow(ax, time_s, rate, series.flow_ids, 1e-6)
    ax.set(xlabel="time (s)", ylabel=f"{what} (Mbit/s)", title=f"{what.capitalize()} per flow ({bin_ms:g} ms bins)")
    _finish(fig, ax, out / "throughput.png", lines)
    written.append(out / "throughput.png")

    links = result.summary["links"]
    busiest = sorted((i for i, link in enumerate(links) if link["queue_max_packets"] > 0),
                     key=lambda i: links[i]["queue_max_packets"], reverse=True)[:MAX_QUEUES]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    queue = series.link["queue_mean_packets"].reshape(len(links), bins) if links else np.zeros((0, bins))
    for i in busiest:
        ax.plot(time_s, group.mean(queue[i][None, :])[0], label=links[i]["id"], lw=1)
    ax.set(xlabel="time (s)", ylabel="queue (packets, bin mean)", title="Queue occupancy")
    if not busiest:
        ax.text(0.5, 0.5, "no packet ever waited in a queue", ha="center", va="center", transform=ax.transAxes)
    _finish(fig, ax, out / "queue.png", len(busiest))
    written.append(out / "queue.png")

    cdf = result.delay_cdf
    fig, ax = plt.subplots(figsize=(8, 4.5))
    if cdf["flow"].nunique() <= MAX_FLOW_LINES:
        for flow, df in cdf.groupby("flow", sort=False):
            ax.step(df["delay_ms"], df["cdf"], where="post", label=flow, lw=1)
        lines = cdf["flow"].nunique()
    else:
        # Every packet of every flow: one distribution.
        d = series.delay
        order = np.argsort(d["delay_ms"], kind="stable")
        counts = d["packets"][order].astype(float)
        ax.step(d["delay_ms"][order], np.cumsum(counts) / counts.sum(), where="post",
                label=f"all packets of {cdf['flow'].nunique():,} flows", lw=1)
        lines = 1
    ax.set(xlabel="one-way delay (ms)", ylabel="CDF", title="One-way delay distribution", ylim=(0, 1.02))
    _finish(fig, ax, out / "delay_cdf.png", lines)
    written.append(out / "delay_cdf.png")

    cwnd = group.last(per_flow("cwnd_bytes"))
    if not np.all(np.isnan(cwnd)):
        windowed = [i for i in range(n) if not np.all(np.isnan(cwnd[i]))]
        fig, ax = plt.subplots(figsize=(8, 4.5))
        lines = _per_flow(ax, time_s, cwnd[windowed], [series.flow_ids[i] for i in windowed], 1e-3)
        ax.set(xlabel="time (s)", ylabel="cwnd (kB, end of bin)", title="Congestion window")
        _finish(fig, ax, out / "cwnd.png", lines)
        written.append(out / "cwnd.png")

    dropped = per_flow("dropped_packets")
    if dropped.sum() > 0:
        cum_sent = np.cumsum(per_flow("sent_packets"), axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            cum_loss = group.last(np.where(cum_sent > 0, np.cumsum(dropped, axis=1) / np.maximum(cum_sent, 1), np.nan))
        fig, ax = plt.subplots(figsize=(8, 4.5))
        lines = _per_flow(ax, time_s, cum_loss, series.flow_ids, 100)
        ax.set(xlabel="time (s)", ylabel="cumulative loss (%)", title="Cumulative packet loss rate")
        _finish(fig, ax, out / "loss.png", lines)
        written.append(out / "loss.png")
    return written
