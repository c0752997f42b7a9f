"""Plots of a sweep: a metric against a swept parameter, one line per value of another,
with 95% confidence intervals as error bars."""

from __future__ import annotations

import re

from ..charts import Chart, Line, Panel
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
#: The range each metric can take where it is not [0, ∞): its confidence intervals are
#: drawn clipped to it.
METRIC_RANGE = {"jain": (0.0, 1.0), "loss_rate": (0.0, 1.0)}


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


def metric_chart(summary, spec: SweepSpec, plot: PlotSpec, title: str | None = None) -> Chart:
    """One :class:`PlotSpec` of the per-point summary as a chart (see
    :mod:`tcplab.charts`): metric against parameter, a line per value of
    ``plot.lines``, 95% confidence intervals as error bars. Parameters neither on the
    axis nor a line are held at their first value (the title says so)."""
    label, scale = METRIC_AXES[plot.y]
    low, high = METRIC_RANGE.get(plot.y, (0.0, None))
    bounds = (low * scale, None if high is None else high * scale)
    groups = [(None, summary)] if plot.lines is None else list(summary.groupby(plot.lines, sort=False))
    held = [p.name for p in spec.parameters if p.name not in (plot.x, plot.lines) and len(p.values) > 1]
    numeric = _numeric(summary[plot.x])
    categories = None if numeric else [str(v) for v in spec.parameter(plot.x).values]
    lines = []
    for value, df in groups:
        for name in held:
            df = df[df[name] == spec.parameter(name).values[0]]
        if categories is None:
            df = df.sort_values(plot.x)
            x = df[plot.x].to_numpy(dtype=float)
        else:
            df = df.assign(_at=[categories.index(str(v)) for v in df[plot.x]]).sort_values("_at")
            x = df["_at"].to_numpy(dtype=float)
        lines.append(Line("all points" if value is None else f"{plot.lines} = {value}", x,
                          df[plot.y].to_numpy(dtype=float) * scale,
                          err=df[f"{plot.y}_ci"].fillna(0).to_numpy(dtype=float) * scale, markers=True,
                          bounds=bounds))
    note = f" ({', '.join(f'{h} = {spec.parameter(h).values[0]}' for h in held)})" if held else ""
    # Say what the bars are: a reader cannot tell a 95% interval from a standard error.
    caption = (f"mean of {spec.replications} runs per point; bars: 95% confidence interval"
               if spec.replications > 1 else "one run per point (no interval)")
    name = f"{_slug(plot.y)}_vs_{_slug(plot.x)}{'_by_' + _slug(plot.lines) if plot.lines else ''}"
    return Chart(name, (title or f"{label} vs {plot.x}") + note, plot.x, [Panel(label, lines=lines)],
                 xlog=spec.parameter(plot.x).log_scale and numeric and all(bool((ln.x > 0).all()) for ln in lines),
                 xcategories=categories, caption=caption)


def _numeric(column) -> bool:
    return column.map(lambda v: isinstance(v, (int, float))).all()


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")
