"""Sweeps: grids of runs over a scenario's parameters, with replications, run in
parallel (local worker processes or a Dask cluster), resumable, with results in
Parquet and a DuckDB catalog. The format and the catalog are in docs/sweeps.md.

Modules, one job each: :mod:`.spec` reads a sweep and enumerates its points;
:mod:`.task` executes one run; :mod:`.store` keeps the sweep directory consistent;
:mod:`.orchestrate` schedules runs; :mod:`.catalog` and :mod:`.stats` turn the stored
runs into tables with confidence intervals; :mod:`.plots` draws them; :mod:`.report`
writes the HTML report.
"""

from __future__ import annotations

from pathlib import Path

from .catalog import connect, point_summary, runs_frame
from .orchestrate import SweepInputError, SweepOutcome, run_sweep
from .plots import default_plots, metric_chart
from .report import write_sweep_report
from .spec import SweepSpec, point_id, read_sweep


def finish(spec: SweepSpec, root: Path) -> tuple[object, list[Path]]:
    """After a sweep: the per-point summary (mean ± 95% CI), written as
    ``DIR/summary.csv``, the sweep's plots in ``DIR/plots`` and its report in
    ``DIR/report.html``; returns the summary and the files written."""
    runs = runs_frame(root)
    names = [p.name for p in spec.parameters]
    order = [point_id(p) for p in spec.points()]
    summary = point_summary(runs, names, list(spec.metrics), order=order)
    if summary.empty:
        return summary, []
    summary.to_csv(root / "summary.csv", index=False)
    plots, charts = [], []
    if (summary["runs"] > 0).any():
        from ..plots import draw

        (root / "plots").mkdir(parents=True, exist_ok=True)
        for plot in default_plots(spec):
            metrics = list(dict.fromkeys([*spec.metrics, plot.y]))
            data = point_summary(runs, names, metrics, order=order) if plot.y not in spec.metrics else summary
            chart = metric_chart(data, spec, plot)
            draw(chart, root / "plots" / f"{chart.name}.png", dpi=110)
            plots.append(root / "plots" / f"{chart.name}.png")
            charts.append(chart)
    plots.append(write_sweep_report(spec, summary, charts, root))
    return summary, plots


__all__ = ["SweepInputError", "SweepOutcome", "SweepSpec", "connect", "finish", "point_summary", "read_sweep",
           "run_sweep", "runs_frame"]
