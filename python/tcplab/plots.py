"""Plots of a run (PNG at print resolution, SVG or PDF): received throughput (or
goodput) over time, queue occupancy in packets and as delay, link utilisation,
per-flow rates, the per-bin throughput CDF, the delay CDF, congestion window with
ssthresh and RTT (TCP), cumulative loss. Per-flow plots draw one line per flow up to
:data:`MAX_FLOW_LINES` flows, and the flows' median and spread beyond."""

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


#: Plot file formats (``--plot-format``); PNG is drawn at print resolution.
FORMATS = ("png", "svg", "pdf")
#: Dots per inch of PNG plots: 1,600 × 900 pixels for the 8 × 4.5 inch figures.
PNG_DPI = 200


def _finish(fig, ax, path: Path, n_lines: int) -> None:
    if 0 < n_lines <= MAX_LEGEND:
        ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=PNG_DPI if path.suffix == ".png" else None)
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


def write_plots(result: RunResult, out: Path, throughput: str = "received", fmt: str = "png") -> list[Path]:
    """Writes the run's plots into ``out`` as ``fmt`` files (see :data:`FORMATS`);
    returns their paths. throughput shows the received throughput per flow, or with
    ``throughput="goodput"`` the goodput."""
    if fmt not in FORMATS:
        raise ValueError(f"plot format: expected one of {', '.join(FORMATS)}, got {fmt!r}")
    written: list[Path] = []

    def save(fig, ax, name: str, lines: int) -> None:
        path = out / f"{name}.{fmt}"
        _finish(fig, ax, path, lines)
        written.append(path)

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
    save(fig, ax, "throughput", lines)

    links = result.summary["links"]
    busiest = sorted((i for i, link in enumerate(links) if link["queue_max_packets"] > 0),
                     key=lambda i: links[i]["queue_max_packets"], reverse=True)[:MAX_QUEUES]
    # Queue in packets above, and below as the time a byte arriving then waits
    # (mean bytes queued × 8 / link rate).
    fig, (ax, ax_ms) = plt.subplots(2, 1, figsize=(8, 6.5), sharex=True)
    per_link = (lambda column: series.link[column].reshape(len(links), bins).astype(float)) if links else (
        lambda column: np.zeros((0, bins)))
    queue, queue_bytes = per_link("queue_mean_packets"), per_link("queue_mean_bytes")
    for i in busiest:
        ax.plot(time_s, group.mean(queue[i][None, :])[0], label=links[i]["id"], lw=1)
        rate = links[i]["bandwidth_bps"]
        if rate > 0:
            ax_ms.plot(time_s, group.mean(queue_bytes[i][None, :])[0] * 8e3 / rate, lw=1)
    ax.set(ylabel="queue (packets, bin mean)", title="Queue occupancy")
    ax_ms.set(xlabel="time (s)", ylabel="queueing delay (ms)")
    ax_ms.grid(alpha=0.3)
    if not busiest:
        ax.text(0.5, 0.5, "no packet ever waited in a queue", ha="center", va="center", transform=ax.transAxes)
    save(fig, ax, "queue", len(busiest))

    # Utilisation of the busiest link directions.
    carrying = sorted((i for i, link in enumerate(links) if link["bandwidth_bps"] > 0 and link["tx_packets"] > 0),
                      key=lambda i: links[i]["utilization"], reverse=True)[:MAX_QUEUES]
    if carrying:
        fig, ax = plt.subplots(figsize=(8, 4.5))
        tx = per_link("tx_bytes")
        for i in carrying:
            ax.plot(time_s, group.sum(tx[i][None, :])[0] * 8.0 / group.width_s / links[i]["bandwidth_bps"] * 100,
                    label=links[i]["id"], lw=1)
        ax.set(xlabel="time (s)", ylabel="utilisation (%)", title=f"Link utilisation, busiest directions ({bin_ms:g} ms bins)")
        save(fig, ax, "utilization", len(carrying))

    # Per-flow totals: goodput and received throughput side by side.
    flows = result.summary["flows"]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    goodputs = np.array([f["goodput_bps"] for f in flows]) / 1e6
    throughputs = np.array([f["throughput_bps"] for f in flows]) / 1e6
    if n <= MAX_FLOW_LINES:
        x = np.arange(n)
        ax.bar(x - 0.2, goodputs, 0.4, label="goodput")
        ax.bar(x + 0.2, throughputs, 0.4, label="received throughput")
        ax.set_xticks(x, series.flow_ids, rotation=45 if n > 8 else 0, ha="right" if n > 8 else "center", fontsize="small")
        ax.set(ylabel="Mbit/s", title="Per-flow goodput and received throughput (whole run)")
    else:
        order = np.argsort(goodputs)
        ax.plot(np.arange(1, n + 1), goodputs[order], lw=1.2, label="goodput")
        ax.plot(np.arange(1, n + 1), np.sort(throughputs), lw=1.2, label="received throughput")
        ax.set(xlabel=f"flows, ranked (of {n:,})", ylabel="Mbit/s", title="Per-flow goodput and received throughput, ranked")
    save(fig, ax, "flow_rates", 2)

    # Distribution of per-bin received throughput over every flow and bin.
    received = (per_flow("received_bytes") * 8.0 / series.bin_width_s)[:, :].ravel() / 1e6
    fig, ax = plt.subplots(figsize=(8, 4.5))
    values = np.sort(received)
    ax.step(values, np.arange(1, len(values) + 1) / max(len(values), 1), where="post", lw=1.2)
    ax.set(xlabel="received throughput in a bin (Mbit/s)", ylabel="CDF over flows and bins", ylim=(0, 1.02),
           title=f"Per-bin received throughput of {n:,} flow(s) ({result.summary['bin_s'] * 1e3:g} ms bins)")
    save(fig, ax, "throughput_cdf", 0)

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
    save(fig, ax, "delay_cdf", lines)

    cwnd = group.last(per_flow("cwnd_bytes"))
    if not np.all(np.isnan(cwnd)):
        windowed = [i for i in range(n) if not np.all(np.isnan(cwnd[i]))]
        fig, ax = plt.subplots(figsize=(8, 4.5))
        lines = _per_flow(ax, time_s, cwnd[windowed], [series.flow_ids[i] for i in windowed], 1e-3)
        if len(windowed) <= MAX_LEGEND:  # ssthresh dashed, in each flow's colour
            ssthresh = group.last(per_flow("ssthresh_bytes"))
            for line, i in zip(ax.get_lines(), windowed, strict=False):
                ax.plot(time_s, ssthresh[i] * 1e-3, lw=0.8, ls="--", color=line.get_color())
            title = "Congestion window (solid) and slow-start threshold (dashed)"
        else:
            title = "Congestion window"
        ax.set(xlabel="time (s)", ylabel="kB, end of bin", title=title)
        save(fig, ax, "cwnd", lines)

        srtt = group.last(per_flow("srtt_ms"))
        fig, ax = plt.subplots(figsize=(8, 4.5))
        lines = _per_flow(ax, time_s, srtt[windowed], [series.flow_ids[i] for i in windowed], 1.0)
        ax.set(xlabel="time (s)", ylabel="smoothed RTT (ms, end of bin)", title="Round-trip time (sender's SRTT)")
        save(fig, ax, "rtt", lines)

    dropped = per_flow("dropped_packets")
    if dropped.sum() > 0:
        cum_sent = np.cumsum(per_flow("sent_packets"), axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            cum_loss = group.last(np.where(cum_sent > 0, np.cumsum(dropped, axis=1) / np.maximum(cum_sent, 1), np.nan))
        fig, ax = plt.subplots(figsize=(8, 4.5))
        lines = _per_flow(ax, time_s, cum_loss, series.flow_ids, 100)
        ax.set(xlabel="time (s)", ylabel="cumulative loss (%)", title="Cumulative packet loss rate")
        save(fig, ax, "loss", lines)
    return written
