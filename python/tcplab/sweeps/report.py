"""A sweep's report (``DIR/report.html``): the per-point table (mean ± 95% CI) and
the sweep's plots as interactive charts, in one self-contained file."""

from __future__ import annotations

import html
from pathlib import Path

from ..charts import Chart
from ..report import CHARTS_HELP, CHARTS_PLACE, page, table
from .plots import METRIC_AXES
from .spec import SweepSpec
from .stats import mean_ci_text


def write_sweep_report(spec: SweepSpec, summary, charts: list[Chart], out: Path) -> Path:
    """Writes ``out/report.html`` for the sweep ``spec`` with its per-point
    ``summary`` (:func:`tcplab.sweeps.finish`) and ``charts``; returns the path."""
    e = html.escape
    names = [p.name for p in spec.parameters]
    headings = [*names, "runs", "failed", *(METRIC_AXES[m][0] for m in spec.metrics)]
    rows = [[str(row[n]) for n in names] + [str(row["runs"]), str(row["failed"])]
            + [mean_ci_text(row[m], row[f"{m}_ci"], METRIC_AXES[m][1], missing="–") for m in spec.metrics]
            for _, row in summary.iterrows()]
    parameters = "".join(f"<dt>{e(p.name)}</dt><dd>{e(', '.join(str(v) for v in p.values))}</dd>" for p in spec.parameters)
    title = f"Sweep of {spec.scenario.get('name') or Path(spec.scenario_source).stem}"
    body = "".join([
        f"<h1>{e(title)}</h1>",
        f"<p class='run'>{len(spec.points())} points × {spec.replications} replication(s); scenario "
        f"{e(spec.scenario_source)}</p>",
        f"<h2>Parameters</h2><dl>{parameters}</dl>",
        f"<h2>Per point: mean ± 95% CI over {spec.replications} replication(s)</h2>", table(headings, rows, len(names)),
        "<h2>Charts</h2>", CHARTS_HELP, CHARTS_PLACE,
    ])
    path = out / "report.html"
    path.write_text(page(title, body, charts), encoding="utf-8")
    return path
