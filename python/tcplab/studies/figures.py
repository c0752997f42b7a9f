"""A study's ``[[figure]]``: one metric of one sweep against a parameter, drawn the way
a reader of the paper checks it (#30 item 3):

* the paper's values overlaid wherever the study publishes them (its ``[[published]]``
  entries of the same sweep and column at the figure's points), as hollow markers in
  the colour of the line they belong to; on a figure of Jain's index, the paper's
  throughput ratios of two flows (``measure_ratio`` checks), converted exactly;
* other sweeps beside it in the same axes (``others = [{ sweep, label }]``: SCTP and
  TCP in one chart), each line named by its sweep's label;
* the x axis in words with its unit (``xlabel``, else read off the parameter's name:
  ``rtt_ms`` → "rtt (ms)"), its values scaled if asked (``xscale = 100``: a loss
  fraction in %); a log axis where the grid is log-spaced (``xlog``, else the sweep's
  own choice).
"""

from __future__ import annotations

import numpy as np

from ..charts import Chart, Line
from ..sweeps.plots import METRIC_AXES, metric_chart
from ..sweeps.spec import PlotSpec

#: Units a parameter's name may end in, as the axis shows them.
_UNITS = {"ms": "ms", "s": "s", "us": "µs", "mb": "MB", "kb": "kB", "kib": "KiB", "mib": "MiB", "mbps": "Mbit/s",
          "gbps": "Gbit/s", "pct": "%", "packets": "packets", "bytes": "bytes"}


def axis_label(parameter: str) -> str:
    """"rtt_ms" → "rtt (ms)", "receive_buffer_mib" → "receive buffer (MiB)"; a name
    without a unit suffix is shown as it is, with spaces."""
    head, _, tail = parameter.rpartition("_")
    if head and tail.lower() in _UNITS:
        return f"{head.replace('_', ' ')} ({_UNITS[tail.lower()]})"
    return parameter.replace("_", " ")


def study_chart(fig: dict, summaries: dict, specs: dict, published: list[dict], index: int,
                checks: list[dict] | None = None) -> Chart | None:
    """The chart of one ``[[figure]]`` entry, or None when its sweep did not run;
    ``checks`` (the study's conclusions' checks) add the paper's optimum positions."""
    summary = summaries.get(fig["sweep"])
    if summary is None or summary.empty:
        return None
    plot = PlotSpec(x=fig["x"], y=fig["y"], lines=fig.get("lines"))
    # `exclude`: points left out of the figure (e.g. a loss-free line whose scale
    # would flatten the others), as parameter -> values.
    for name, values in fig.get("exclude", {}).items():
        summary = summary[~summary[name].isin(values)]
    spec = specs[fig["sweep"]]
    chart = metric_chart(summary, spec, plot, title=fig["title"])
    chart.name = f"fig{index + 1:02d}_{chart.name}"
    chart.xlabel = fig.get("xlabel", axis_label(fig["x"]))
    if "xlog" in fig:
        chart.xlog = bool(fig["xlog"])
    panel = chart.panels[0]
    if "label" in fig:
        for line in panel.lines:
            line.name = f"{fig['label']}, {line.name}" if line.name != "all points" else fig["label"]
    for other in fig.get("others", []):
        if other["sweep"] not in summaries or summaries[other["sweep"]].empty:
            continue
        extra = metric_chart(summaries[other["sweep"]], specs[other["sweep"]], plot)
        for line in extra.panels[0].lines:
            line.name = f"{other['label']}, {line.name}" if line.name != "all points" else other["label"]
            line.dashed = True
            panel.lines.append(line)
    references = paper_lines(fig, published, panel.lines, chart.xcategories)
    ratios = paper_ratios_as_jain(fig, checks or [], panel.lines) if chart.xcategories is None else []
    optima = optimum_markers(fig, checks or [], panel.lines) if chart.xcategories is None else []
    panel.lines.extend(references + ratios + optima)
    if "xscale" in fig and chart.xcategories is None:  # e.g. a loss fraction shown in %
        for line in panel.lines:
            line.x = line.x * float(fig["xscale"])
    if references:
        chart.caption += "; hollow diamonds: the paper's values"
    if ratios:
        chart.caption += "; hollow diamonds: the paper's throughput ratios as Jain's index, (1 + r)² / 2(1 + r²)"
    if optima:
        chart.caption += "; hollow diamonds on a line: where the paper puts that line's optimum"
    return chart


def _same_group(line_name: str, by: str, group: str) -> bool:
    """Whether the figure's line ``by = value`` is the check's group ``group`` (numbers
    compared as numbers: the line says 10.0 where the study file says "10")."""
    prefix = f"{by} = "
    if not line_name.startswith(prefix):
        return False
    value = line_name[len(prefix):]
    try:
        return float(value) == float(group)
    except ValueError:
        return value == group


def optimum_markers(fig: dict, checks: list[dict], lines: list[Line]) -> list[Line]:
    """Where the paper puts each line's optimum (an ``optimum`` check on the figure's
    sweep, x and y): a marker at the paper's x on tcplab's line, so that the two optima
    can be compared along the axis (the paper gives the position, not the value)."""
    markers = []
    for check in checks:
        if (check.get("kind") != "optimum" or check.get("sweep") != fig["sweep"] or check.get("x") != fig["x"]
                or check.get("y") != fig["y"]):
            continue
        by = check.get("by")
        for group, expected in check.get("expect", {}).items():
            line = next((ln for ln in lines if ln.role == "flow" and (by is None or _same_group(ln.name, by, group))), None)
            if line is None or len(line.x) == 0:
                continue
            at = [float(v) for v in (expected if isinstance(expected, list) else [expected])
                  if line.x.min() <= float(v) <= line.x.max()]  # only on the line's drawn range
            if at:
                markers.append(Line(f"paper's optimum, {line.name}", np.array(at), np.interp(at, line.x, line.y),
                                    markers=True, joined=False, pair=line.name, role="reference"))
    return markers


def paper_lines(fig: dict, published: list[dict], lines: list[Line], categories: list[str] | None) -> list[Line]:
    """The paper's values at the figure's points, one reference line (markers only) per
    line of the figure they belong to."""
    x, y, by = fig["x"], fig["y"], fig.get("lines")
    _, scale = METRIC_AXES.get(y, (y, 1.0))
    # Only where the figure has points: a quick run's axis is not stretched to cells it did not run.
    drawn = {float(v) for ln in lines for v in ln.x}
    groups: dict[str, list[tuple[float, float]]] = {}
    for item in published:
        where = item.get("where", {})
        if (item.get("sweep") != fig["sweep"] or item.get("column") != y or item.get("table", "runs") != "runs"
                or x not in where or not isinstance(item.get("value"), (int, float))):
            continue
        name = "all points" if by is None else f"{by} = {where.get(by)}"
        at = where[x]
        if categories is not None:
            if str(at) not in categories:
                continue
            at = categories.index(str(at))
        if float(at) not in drawn:
            continue
        groups.setdefault(name, []).append((float(at), float(item["value"]) / item.get("scale", 1.0) * scale))
    references = []
    for name, points in groups.items():
        pair = next((ln.name for ln in lines if ln.name == name or ln.name.endswith(f", {name}")), None)
        points.sort()
        references.append(Line(f"paper, {name}", np.array([p[0] for p in points]), np.array([p[1] for p in points]),
                               markers=True, joined=False, pair=pair, role="reference"))
    return references


def jain_of_ratio(ratio: float) -> float:
    """Jain's index of two flows whose throughputs stand in ``ratio``: (x + y)² / 2(x² +
    y²) with x = r·y, i.e. (1 + r)² / 2(1 + r²)."""
    return (1 + ratio) ** 2 / (2 * (1 + ratio * ratio))


def paper_ratios_as_jain(fig: dict, checks: list[dict], lines: list[Line]) -> list[Line]:
    """On a figure of Jain's index, the paper's published throughput ratio of two flows
    at each point (a ``measure_ratio`` check of the figure's sweep between two flows'
    goodput at the same point), as the Jain's index it implies: the highspeed study's
    Table 3 publishes short-RTT / long-RTT ratios, the figure shows fairness."""
    if fig["y"] != "jain":
        return []
    x, by = fig["x"], fig.get("lines")
    groups: dict[str, list[tuple[float, float]]] = {}
    for check in checks:
        a, b = check.get("a", {}), check.get("b", {})
        where = a.get("where", {})
        if (check.get("kind") != "measure_ratio" or check.get("sweep") != fig["sweep"]
                or not isinstance(check.get("published"), (int, float)) or b.get("where") != where or x not in where
                or {a.get("table"), b.get("table")} != {"flows"} or {a.get("column"), b.get("column")} != {"goodput_bps"}):
            continue
        line = next((ln for ln in lines if ln.role == "flow" and (by is None or _same_group(ln.name, by, str(where.get(by))))),
                    None)
        if line is not None and float(where[x]) in {float(v) for v in line.x}:
            groups.setdefault(line.name, []).append((float(where[x]), jain_of_ratio(float(check["published"]))))
    return [Line(f"paper, {name}", np.array([p[0] for p in sorted(points)]), np.array([p[1] for p in sorted(points)]),
                 markers=True, joined=False, pair=name, role="reference") for name, points in groups.items()]
