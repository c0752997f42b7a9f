"""Sweeps: grids of runs over a scenario's parameters, with replications, run in
parallel (local worker processes or a Dask cluster), resumable, with results in
Parquet and a DuckDB catalog. The format and the catalog are in docs/sweeps.md.

Modules, one job each: :mod:`.spec` reads a sweep and enumerates its points;
:mod:`.task` executes one run; :mod:`.store` keeps the sweep directory consistent;
:mod:`.orchestrate` schedules runs; :mod:`.catalog` and :mod:`.stats` turn the stored
runs into tables with confidence intervals; :mod:`.plots` draws them.
"""

from __future__ import annotations

from pathlib import Path

from .catalog import connect, point_summary, runs_frame
from .orchestrate import SweepInputError, SweepOutcome, run_sweep
from .plots import default_plots, plot_metric
from .spec import SweepSpec, point_id, read_sweep


def finish(spec: SweepSpec, root: Path) -> tuple[object, list[Path]]:
    """After a sweep: the per-point summary (mean ± 95% CI), written as
    ``DIR/summary.csv``, and the sweep's plots in ``DIR/plots``."""
    runs = runs_frame(root)
    names = [p.name for p in spec.parameters]
    order = [point_id(p) for p in spec.points()]
    summary = point_summary(runs, names, list(spec.metrics), order=order)
    if summary.empty:
        return summary, []
    summary.to_csv(root / "summary.csv", index=False)
    plots = []
    if (summary["runs"] > 0).any():
        for plot in default_plots(spec):
            metrics = list(dict.fromkeys([*spec.metrics, plot.y]))
            data = point_summary(runs, names, metrics, order=order) if plot.y not in spec.metrics else summary
            plots.append(plot_metric(data, spec, plot, root / "plots"))
    return summary, plots


__all__ = ["SweepInputError", "SweepOutcome", "SweepSpec", "connect", "finish", "point_summary", "read_sweep",
           "run_sweep", "runs_frame"]
