"""``tcplab crosscheck``: one scenario in the simulator and over the Linux stack, side
by side — goodput, retransmissions, RTT, loss, the busiest queue, the cwnd sawtooth's
period — with both cwnd trajectories in one plot.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..results import RunResult

if TYPE_CHECKING:
    import pandas as pd

#: A cwnd sample this far below the previous one counts as a window reduction.
_REDUCTION = 0.85


def sawtooth_period_s(time_s: np.ndarray, cwnd: np.ndarray) -> float | None:
    """Mean time between the window's reductions, from the second on (the first ends
    slow start). A reduction is a sample below 85% of the one before; consecutive such
    samples are one reduction (Linux's PRR lowers the window over a round trip, which
    may span two samples). ``None`` with fewer than three reductions."""
    valid = ~np.isnan(cwnd)
    t, w = time_s[valid], cwnd[valid]
    if len(w) < 3:
        return None
    falling = np.r_[False, w[1:] < _REDUCTION * w[:-1]]
    starts = t[falling & ~np.r_[False, falling[:-1]]]
    if len(starts) < 3:
        return None
    return float(np.mean(np.diff(starts[1:])))


@dataclass
class Row:
    """One metric of one flow (or link) in both backends."""

    entity: str
    metric: str
    sim: float | None
    emu: float | None

    @property
    def difference(self) -> float | None:
        """emu relative to sim, in percent."""
        if self.sim is None or self.emu is None or self.sim == 0 or math.isnan(self.sim) or math.isnan(self.emu):
            return None
        return 100.0 * (self.emu - self.sim) / self.sim


def flow_cwnd(series: pd.DataFrame, flow: str) -> tuple[np.ndarray, np.ndarray]:
    """A flow's cwnd series (time s, bytes) from a run's flow series (``RunResult.
    flow_series``, which builds the table on every access: read it once per run)."""
    rows = series[series["flow"] == flow]
    return rows["time_s"].to_numpy(dtype=float), rows["cwnd_bytes"].to_numpy(dtype=float)


def rows(sim: RunResult, emu: RunResult) -> list[Row]:
    """The side-by-side figures of every flow, and of the link direction that queued
    most in the simulator."""
    out: list[Row] = []
    sim_series, emu_series = sim.flow_series, emu.flow_series
    for fs, fe in zip(sim.summary["flows"], emu.summary["flows"], strict=True):
        f = fs["id"]
        out += [Row(f, "goodput Mb/s", fs["goodput_bps"] / 1e6, fe["goodput_bps"] / 1e6),
                Row(f, "packets dropped", fs["packets_dropped"], fe["packets_dropped"]),
                Row(f, "loss %", 100 * fs["loss_rate"], 100 * fe["loss_rate"])]
        if fs["transport"] == "tcp":
            out += [Row(f, "retransmits", fs["retransmits"], fe["retransmits"]),
                    Row(f, "mean SRTT ms", fs["srtt_ms"], fe["srtt_ms"])]
            periods = [sawtooth_period_s(*flow_cwnd(series, f)) for series in (sim_series, emu_series)]
            out.append(Row(f, "cwnd sawtooth period s", *periods))
        else:
            out.append(Row(f, "mean one-way delay ms", fs["delay_ms"]["mean"], fe["delay_ms"]["mean"]))
    links = sim.summary["links"]
    if links:
        busiest = max(range(len(links)), key=lambda i: links[i]["queue_mean_packets"])
        ls, le = links[busiest], emu.summary["links"][busiest]
        out += [Row(ls["id"], "mean queue packets", ls["queue_mean_packets"], le["queue_mean_packets"]),
                Row(ls["id"], "drops", sum(ls["drops"].values()), sum(le["drops"].values()))]
    return out


def plot_cwnd(sim: RunResult, emu: RunResult, path: Path) -> Path | None:
    """Both backends' cwnd over time for every TCP flow, one panel per flow (PNG);
    ``None`` without TCP flows."""
    flows = [f["id"] for f in sim.summary["flows"] if f["transport"] == "tcp"]
    if not flows:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = flows[:6]
    series = {"simulator": sim.flow_series, "Linux (emulated)": emu.flow_series}
    fig, axes = plt.subplots(len(shown), 1, figsize=(8, 2.6 * len(shown) + 0.6), squeeze=False, sharex=True)
    for ax, flow in zip(axes[:, 0], shown, strict=True):
        for label, frame in series.items():
            t, w = flow_cwnd(frame, flow)
            ax.plot(t, w / 1e3, "-", lw=1.1, label=label)
        ax.set_ylabel("cwnd kB")
        ax.set_title(flow, fontsize=10, loc="left")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="upper right")
    axes[-1, 0].set_xlabel("time s")
    fig.suptitle(f"{sim.summary['scenario']}: congestion window, simulator vs Linux", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return path


def markdown(table: list[Row]) -> str:
    """The side-by-side as a Markdown table."""
    lines = ["| flow / link | metric | sim | emu | emu vs sim |", "|---|---|---|---|---|"]
    for r in table:
        lines.append(f"| {r.entity} | {r.metric} | {_cell(r.sim)} | {_cell(r.emu)} | "
                     f"{'-' if r.difference is None else f'{r.difference:+.1f}%'} |")
    return "\n".join(lines) + "\n"


def _cell(value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.3f}"
