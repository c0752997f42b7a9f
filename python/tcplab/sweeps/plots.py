"""Plots of a sweep: a metric against a swept parameter, one line per value of another,
with 95% confidence intervals as error bars."""

from __future__ import annotations

import re
from pathlib import Path

from .spec import PlotSpec, SweepSpec

#: How each metric is labelled and scaled on an axis.
METRIC_AXES = {
    "goodput_bps": ("aggregate goodput (Mbit/s)", 1e-6),
    "jain": ("Jain's fairness index", 1.0),
    "drops": ("packets dropped", 1.0),
    "retransmits": ("retransmissions", 1.0),
    "timeouts": ("retransmission timeouts", 1.0),
    "loss_rate": ("loss rate", 1.0),
    "srtt_ms": ("mean smoothed RTT (ms)", 1.0),
    "delay_ms_mean": ("mean one-way delay (ms)", 1.0),
    "events": ("events", 1.0),
    "wall_s": ("wall time per run (s)", 1.0),
}


def default_plots(spec: SweepSpec) -> tuple[PlotSpec, ...]:
    """The sweep's own plots, or: the first metric against the first numeric parameter,
    one line per value of the next parameter."""
    if spec.plots:
        return spec.plots
    numeric = [p.name for p in spec.parameters if all(isinstance(v, (int, float)) for v in p.values)]
    if not numeric:
        numeric = [spec.parameters[0].name]
    others = [p.name for p in spec.parameters if p.name != numeric[0]]
    return (PlotSpec(x=numeric[0], y=spec.metrics[0], lines=others[0] if others else None),)


def plot_metric(summary, spec: SweepSpec, plot: PlotSpec, out: Path, title: str | None = None) -> Path:
    """Draws one :class:`PlotSpec` from the per-point summary into a PNG in ``out``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    label, scale = METRIC_AXES[plot.y]
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    groups = [(None, summary)] if plot.lines is None else list(summary.groupby(plot.lines, sort=False))
    held = [p.name for p in spec.parameters if p.name not in (plot.x, plot.lines) and len(p.values) > 1]
    for value, df in groups:
        if held:  # parameters neither on the axis nor a line: show their first value only
            for name in held:
                df = df[df[name] == spec.parameter(name).values[0]]
        df = df.sort_values(plot.x) if _numeric(df[plot.x]) else df
        y = df[plot.y] * scale
        err = df[f"{plot.y}_ci"].fillna(0) * scale
        line_label = None if value is None else f"{plot.lines} = {value}"
        ax.errorbar(df[plot.x], y, yerr=err, marker="o", ms=3.5, lw=1.2, capsize=3, label=line_label)
    ax.set_xlabel(plot.x)
    ax.set_ylabel(label)
    if spec.parameter(plot.x).log_scale:
        ax.set_xscale("log")
    note = f" ({', '.join(f'{h} = {spec.parameter(h).values[0]}' for h in held)})" if held else ""
    ax.set_title((title or f"{label} vs {plot.x}") + note, fontsize="medium")
    if plot.lines is not None:
        ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{_slug(plot.y)}_vs_{_slug(plot.x)}{'_by_' + _slug(plot.lines) if plot.lines else ''}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _numeric(column) -> bool:
    return column.map(lambda v: isinstance(v, (int, float))).all()


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")
