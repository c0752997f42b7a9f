"""``tcplab compare``: runs side by side (see :mod:`tcplab.compare`)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..output import OutputError, StoredResultsError, check_output_apart
from .app import app, escape, fail, out_console

if TYPE_CHECKING:
    from ..tables import BoxTable

#: Flows shown (those whose goodput changed most) and busiest link directions shown;
#: the CSV files in --out have every row.
MAX_FLOWS = 20
MAX_LINKS = 10


def _cell(value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if math.isinf(value):
        return "new" if value > 0 else "-"
    return f"{value:,.0f}" if float(value).is_integer() or abs(value) >= 1000 else f"{value:,.3f}"


def _tables(title: str, frame, labels: list[str], ids: list[str]) -> list[BoxTable]:
    from ..tables import Column, fitted_tables

    columns = [Column("id", numeric=False), Column("metric", numeric=False), *(Column(escape(label)) for label in labels),
               *(Column(escape(f"Δ% {label}")) for label in labels[1:])]
    rows = []
    for entity in ids:
        for _, row in frame[frame["id"] == entity].iterrows():
            if all(_cell(row[label]) == "-" for label in labels):
                continue  # a metric none of the runs has for this entity (e.g. UDP retransmits)
            rows.append([escape(entity), row["metric"], *(_cell(row[label]) for label in labels),
                         *(_cell(row[f"Δ% {label}"]) for label in labels[1:])])
    return fitted_tables(title, columns, rows, out_console.width)


@app.command()
def compare(
    runs: Annotated[list[Path], typer.Argument(help="Two or more results directories (from tcplab run).", show_default=False)],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write overlay plots and the full comparison tables (CSV) here.")] = None,
) -> None:
    """Compare runs side by side: what differs in their scenarios, then flows and links
    with their differences against the first run."""
    from ..compare import compare as compare_runs
    from ..compare import write_overlays

    if len(runs) < 2:
        fail("compare: give at least two results directories", 2)
    try:
        if out is not None:
            check_output_apart(out, runs)  # before anything is written
        c = compare_runs(runs)
        written = write_overlays(runs, out) if out is not None else None
    except (OutputError, StoredResultsError) as e:
        fail(str(e), 2)
    legend = ", ".join(f"{escape(label)} = {escape(str(path))}" for label, path in zip(c.runs, runs, strict=True))
    out_console.print(f"Runs: {legend}; differences are against {escape(c.runs[0])}.")
    if c.scenario_differences:
        from ..tables import Column, fitted_tables

        columns = [Column("key", numeric=False), *(Column(escape(label), numeric=False) for label in c.runs)]
        rows = [[escape(key), *(escape("-" if v is None else str(v)) for v in values)] for key, values in c.scenario_differences]
        out_console.print(*fitted_tables("Scenario differences", columns, rows, out_console.width))
    else:
        out_console.print("The scenarios as run are identical.")
    goodput = c.flows[c.flows["metric"] == "goodput Mb/s"]
    changes = {row["id"]: max((abs(row[f"Δ% {label}"]) for label in c.runs[1:]), default=0.0) for _, row in goodput.iterrows()}
    flow_ids = sorted(changes, key=lambda k: -(0.0 if math.isnan(changes[k]) else changes[k]))[:MAX_FLOWS]
    flow_ids = [k for k in changes if k in flow_ids]  # in scenario order
    title = "Flows" if len(changes) <= MAX_FLOWS else f"Flows: the {MAX_FLOWS} whose goodput changed most (of {len(changes)})"
    out_console.print(*_tables(title, c.flows, c.runs, flow_ids))
    util = c.links[c.links["metric"] == "utilisation %"]
    busiest = util.assign(top=util[c.runs].max(axis=1)).sort_values("top", ascending=False)
    link_ids = [k for k in busiest[busiest["top"] > 0]["id"]][:MAX_LINKS]
    if link_ids:
        out_console.print(*_tables(f"Busiest link directions (up to {MAX_LINKS})", c.links, c.runs, link_ids))
    if written is not None:
        out_console.print(f"Overlay plots and full tables in {escape(str(written))}")
