"""PNG plots of a run: goodput over time, queue occupancy, delay CDF, congestion
window (TCP), cumulative loss."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

if TYPE_CHECKING:
    from .results import RunResult

#: Beyond this many lines a plot drops its legend.
MAX_LEGEND = 12
#: How many of the busiest queues the queue plot shows.
MAX_QUEUES = 6


def _finish(fig, ax, path: Path, n_lines: int) -> None:
    if 0 < n_lines <= MAX_LEGEND:
        ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_plots(result: "RunResult", out: Path) -> list[Path]:
    """Writes the run's plots into ``out``; returns their paths."""
    written = []
    series = result.flow_series
    bin_ms = result.summary["bin_s"] * 1e3

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for flow, df in series.groupby("flow", sort=False):
        ax.plot(df["time_s"], df["goodput_bps"] / 1e6, label=flow, lw=1)
    ax.set(xlabel="time (s)", ylabel="goodput (Mbit/s)", title=f"Goodput per flow ({bin_ms:g} ms bins)")
    _finish(fig, ax, out / "throughput.png", series["flow"].nunique())
    written.append(out / "throughput.png")

    links = result.links
    busiest = links[links["queue_max_packets"] > 0].nlargest(MAX_QUEUES, "queue_max_packets")["id"].tolist()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ls = result.link_series
    for link in busiest:
        df = ls[ls["link"] == link]
        ax.plot(df["time_s"], df["queue_mean_packets"], label=link, lw=1)
    ax.set(xlabel="time (s)", ylabel="queue (packets, bin mean)", title="Queue occupancy")
    if not busiest:
        ax.text(0.5, 0.5, "no packet ever waited in a queue", ha="center", va="center", transform=ax.transAxes)
    _finish(fig, ax, out / "queue.png", len(busiest))
    written.append(out / "queue.png")

    cdf = result.delay_cdf
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for flow, df in cdf.groupby("flow", sort=False):
        ax.step(df["delay_ms"], df["cdf"], where="post", label=flow, lw=1)
    ax.set(xlabel="one-way delay (ms)", ylabel="CDF", title="One-way delay distribution", ylim=(0, 1.02))
    _finish(fig, ax, out / "delay_cdf.png", cdf["flow"].nunique())
    written.append(out / "delay_cdf.png")

    windowed = series.dropna(subset=["cwnd_bytes"])
    if not windowed.empty:
        fig, ax = plt.subplots(figsize=(8, 4.5))
        for flow, df in windowed.groupby("flow", sort=False):
            ax.plot(df["time_s"], df["cwnd_bytes"] / 1e3, label=flow, lw=1)
        ax.set(xlabel="time (s)", ylabel="cwnd (kB, end of bin)", title="Congestion window")
        _finish(fig, ax, out / "cwnd.png", windowed["flow"].nunique())
        written.append(out / "cwnd.png")

    if series["dropped_packets"].sum() > 0:
        fig, ax = plt.subplots(figsize=(8, 4.5))
        for flow, df in series.groupby("flow", sort=False):
            ax.plot(df["time_s"], df["cum_loss_rate"] * 100, label=flow, lw=1)
        ax.set(xlabel="time (s)", ylabel="cumulative loss (%)", title="Cumulative packet loss rate")
        _finish(fig, ax, out / "loss.png", series["flow"].nunique())
        written.append(out / "loss.png")
    return written
