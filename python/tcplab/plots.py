"""Static plot files of a run (PNG at print resolution, SVG or PDF), drawn with
matplotlib from the charts :mod:`tcplab.charts` describes — the same charts the HTML
report shows interactively. Drawn on request (``tcplab run --plots``): matplotlib
is the slowest part of a run's output."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib
import numpy as np

from .charts import Chart, Panel, error_bar_ends, run_charts

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

if TYPE_CHECKING:
    from .results import RunResult

#: Plot file formats (``--plot-format``); PNG is drawn at print resolution.
FORMATS = ("png", "svg", "pdf")
#: Dots per inch of PNG plots: 1,600 × 900 pixels for the 8 × 4.5 inch figures.
PNG_DPI = 200
#: Beyond this many entries a panel drops its legend.
MAX_LEGEND = 12


def _draw_panel(ax, panel: Panel) -> None:
    colours: dict[str, str] = {}
    for band in panel.bands:
        ax.fill_between(band.x, band.lower, band.upper, alpha=0.3, lw=0, label=band.name)
    for line in panel.lines:
        style = {"lw": 0.8 if line.dashed else (1.4 if line.role in ("aggregate", "median") else 1.0),
                 "ls": "none" if not line.joined else "--" if line.dashed else "-"}
        if line.pair in colours:
            style["color"] = colours[line.pair]
        label = None if line.pair else line.name  # a companion line shares its pair's entry
        if line.err is not None:
            low, high = error_bar_ends(line)
            yerr = np.vstack([np.maximum(line.y - low, 0), np.maximum(high - line.y, 0)])
            drawn = ax.errorbar(line.x, line.y, yerr=yerr, marker="o", ms=3.5, capsize=3, label=label, **style).lines[0]
        elif line.step:
            (drawn,) = ax.step(line.x, line.y, where="post", label=label, **style)
        elif line.role == "reference":  # a paper's values: hollow diamonds over the line they belong to
            (drawn,) = ax.plot(line.x, line.y, label=label, marker="D", ms=6, mfc="none", mew=1.3, zorder=3, **style)
        else:
            (drawn,) = ax.plot(line.x, line.y, label=label, marker="o" if line.markers else None, ms=3.5, **style)
        colours[line.name] = drawn.get_color()
    if panel.bars is not None:
        bars = panel.bars
        x = np.arange(len(bars.categories))
        width = 0.8 / max(len(bars.values), 1)
        for j, (name, values) in enumerate(bars.values.items()):
            ax.bar(x + (j - (len(bars.values) - 1) / 2) * width, values, width, label=name)
        many = len(bars.categories) > 8
        ax.set_xticks(x, bars.categories, rotation=45 if many else 0, ha="right" if many else "center", fontsize="small")
    if panel.note:
        ax.text(0.5, 0.5, panel.note, ha="center", va="center", transform=ax.transAxes)
    ax.set_ylabel(panel.ylabel)
    if panel.ylim is not None:
        ax.set_ylim(*panel.ylim)
    entries = len(panel.bands) + sum(1 for line in panel.lines if not line.pair) + (len(panel.bars.values) if panel.bars else 0)
    if 0 < entries <= MAX_LEGEND:
        ax.legend(fontsize="small")
    ax.grid(alpha=0.3)


def fitted_title(fig, *parts: str) -> str:
    """``parts`` (a title, a caption) as one title wrapped to ``fig``'s width, about 12
    characters of the medium font per inch: a long caption or a square figure's title
    otherwise runs past the edges."""
    width = int(fig.get_figwidth() * 12)
    return "\n".join(textwrap.fill(part, width) for part in parts if part)


def draw(chart: Chart, path: Path, dpi: int = PNG_DPI) -> None:
    """Writes ``chart`` to ``path`` (its suffix chooses the format; ``dpi`` for PNG)."""
    panels = len(chart.panels)
    fig, axes = plt.subplots(panels, 1, figsize=(8, 4.5 if panels == 1 else 2.0 + 2.25 * panels), sharex=True, squeeze=False)
    for ax, panel in zip(axes[:, 0], chart.panels, strict=True):
        _draw_panel(ax, panel)
    axes[0, 0].set_title(fitted_title(fig, chart.title, chart.caption), fontsize="medium")
    axes[-1, 0].set_xlabel(chart.xlabel)
    if chart.xlog:
        axes[-1, 0].set_xscale("log")
    if chart.xcategories is not None:
        axes[-1, 0].set_xticks(range(len(chart.xcategories)), chart.xcategories)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi if path.suffix == ".png" else None)
    plt.close(fig)


def write_plots(result: RunResult, out: Path, throughput: str = "received", fmt: str = "png") -> list[Path]:
    """Writes the run's plots into ``out`` as ``fmt`` files (see :data:`FORMATS`);
    returns their paths. ``throughput.<fmt>`` shows the received throughput per flow,
    or with ``throughput="goodput"`` the goodput (the other is in the report)."""
    if fmt not in FORMATS:
        raise ValueError(f"plot format: expected one of {', '.join(FORMATS)}, got {fmt!r}")
    written = []
    for chart in run_charts(result.summary, result._series(), throughput):
        if chart.name in ("goodput", "received"):
            continue
        path = out / f"{chart.name}.{fmt}"
        draw(chart, path)
        written.append(path)
    return written
