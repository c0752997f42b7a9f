"""What each chart of a run shows, decided once for every renderer.

:func:`run_charts` turns a run's series into :class:`Chart` descriptions — lines,
percentile bands, bars, labels — which two renderers draw: :mod:`tcplab.plots`
(matplotlib: PNG, SVG, PDF files) and :mod:`tcplab.report` (interactive charts in the
self-contained HTML report). Neither renderer decides what to show, so the files and
the report always agree.

Beyond :data:`MANY_FLOWS` flows a per-flow chart stops drawing a line per flow (the
legend would not fit and the lines would be a smear): it shows the aggregate of all
flows, the median flow with its 10th–90th percentile band, and the flows with the
highest and lowest mean by name.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .series import Series

#: Beyond this many flows, per-flow charts show aggregate, median, band and extremes.
MANY_FLOWS = 10
#: Flows named at each end (highest and lowest mean) when there are many.
EXTREME_FLOWS = 2
#: Beyond this many flows the per-flow rate chart ranks the flows instead of a bar each.
MAX_BARS = 40
#: How many of the busiest queues / link directions the link charts show.
MAX_LINKS = 6
#: Most points per line: finer series are drawn over groups of consecutive bins (a
#: chart is ~900 pixels wide; a million points per line only costs memory and time).
MAX_POINTS = 2000


@dataclass
class Line:
    """One curve. ``pair`` names the line whose colour a companion line shares (a
    flow's ssthresh drawn dashed in its cwnd's colour)."""

    name: str
    x: np.ndarray
    y: np.ndarray
    dashed: bool = False
    step: bool = False
    pair: str | None = None
    #: "flow" (one entity), "aggregate", "median", "extreme" (a named highest/lowest).
    role: str = "flow"
    #: Half-widths of error bars (a 95% confidence interval), drawn at each point.
    err: np.ndarray | None = None
    #: The range the quantity can take (None: unbounded): error bars are drawn clipped to
    #: it, since a Student-t interval of a few runs can reach below zero where goodput cannot.
    bounds: tuple[float | None, float | None] = (None, None)
    #: Points marked (few points joined by lines: a sweep's grid).
    markers: bool = False
    #: False: points only, no line between them (categories on the x axis, which a
    #: line would present as a trend).
    joined: bool = True


def error_bar_ends(line: Line) -> tuple[np.ndarray, np.ndarray]:
    """The lower and upper ends of ``line``'s error bars (``line.err`` is set), clipped
    to ``line.bounds``."""
    assert line.err is not None
    low, high = line.y - line.err, line.y + line.err
    if line.bounds[0] is not None:
        low = np.maximum(low, line.bounds[0])
    if line.bounds[1] is not None:
        high = np.minimum(high, line.bounds[1])
    return low, high


@dataclass
class Band:
    """A shaded range between two curves, e.g. the 10th–90th percentile over flows."""

    name: str
    x: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


@dataclass
class Bars:
    """Grouped bars: one group per category, one bar per named value list."""

    categories: list[str]
    values: dict[str, np.ndarray]


@dataclass
class Panel:
    """One set of axes. Panels of one chart share the x axis."""

    ylabel: str
    lines: list[Line] = field(default_factory=list)
    bands: list[Band] = field(default_factory=list)
    bars: Bars | None = None
    ylim: tuple[float, float] | None = None
    #: Shown in place of the data when there is none worth drawing.
    note: str | None = None


@dataclass
class Chart:
    """One figure: a file of the static plots, an interactive chart of the report."""

    name: str
    title: str
    xlabel: str
    panels: list[Panel]
    #: A logarithmic x axis.
    xlog: bool = False
    #: Labels of x = 0, 1, 2… when the x values are categories (names, not numbers).
    xcategories: list[str] | None = None
    #: A line under the title saying how to read the figure (what error bars are).
    caption: str = ""


#: Cells of a series converted at a time when reducing it: bounds the transient
#: copies (a chart never holds a float copy of a whole series).
BLOCK_CELLS = 1 << 20


class _Coarsening:
    """Groups of ``k`` consecutive bins, so that at most :data:`MAX_POINTS` remain.
    Methods take an entity-major column (``rows`` × bins, any numeric dtype, as the
    engine hands it over) and return float32 rows × groups, working through blocks
    of at most :data:`BLOCK_CELLS` cells."""

    def __init__(self, bin_start_s: np.ndarray, bin_width_s: np.ndarray) -> None:
        self.bins = len(bin_start_s)
        self.bin_width_s = bin_width_s
        self.k = max(-(-self.bins // MAX_POINTS), 1)
        self.starts = np.arange(0, self.bins, self.k)
        self.ends = np.minimum(self.starts + self.k, self.bins) - 1
        self.time_s = bin_start_s[:: self.k]
        self.width_s = np.add.reduceat(bin_width_s, self.starts) if self.bins else np.zeros(0)

    def _blocks(self, rows: int):
        """(rows, groups, bins) slices of blocks in row-major order: whole groups, at
        most :data:`BLOCK_CELLS` cells each (one row of one group at least)."""
        per_row = max(min(rows, BLOCK_CELLS // max(self.bins, 1)), 1)
        groups = len(self.starts)
        per_block = max(BLOCK_CELLS // (per_row * self.k), 1)
        for r in range(0, rows, per_row):
            for g in range(0, groups, per_block):
                g_end = min(g + per_block, groups)
                yield slice(r, r + per_row), slice(g, g_end), slice(self.starts[g], self.ends[g_end - 1] + 1)

    def _reduce(self, column: np.ndarray, rows: int, reduce) -> np.ndarray:
        values = column.reshape(rows, self.bins)
        out = np.empty((rows, len(self.starts)), dtype=np.float32)
        for rs, gs, bs in self._blocks(rows):
            out[rs, gs] = reduce(values[rs, bs], gs, bs)
        return out

    def rate(self, column: np.ndarray, rows: int, scale: float) -> np.ndarray:
        """Per group: ``scale`` × the sum over its bins / its width (bytes → rates)."""
        return self._reduce(column, rows, lambda v, gs, bs: np.add.reduceat(
            v, self.starts[gs] - bs.start, axis=1, dtype=np.float64) * (scale / self.width_s[gs]))

    def last(self, column: np.ndarray, rows: int, scale: float = 1.0) -> np.ndarray:
        """Per group: the value of its last bin (end-of-bin samples), × ``scale``."""
        return self._reduce(column, rows, lambda v, gs, bs: v[:, self.ends[gs] - bs.start] * scale)

    def mean(self, column: np.ndarray, rows: int, scale: float = 1.0) -> np.ndarray:
        """Per group: the time-weighted mean of per-bin means, × ``scale``."""
        return self._reduce(column, rows, lambda v, gs, bs: np.add.reduceat(
            v * (self.bin_width_s[bs] * scale), self.starts[gs] - bs.start, axis=1) / self.width_s[gs])

    def cumulative_ratio(self, numerator: np.ndarray, denominator: np.ndarray, rows: int, scale: float) -> np.ndarray:
        """Per group: ``scale`` × (running total of ``numerator``) / (running total of
        ``denominator``) at its last bin; NaN while the denominator is 0."""
        num, den = numerator.reshape(rows, self.bins), denominator.reshape(rows, self.bins)
        out = np.empty((rows, len(self.starts)), dtype=np.float32)
        carried: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for rs, gs, bs in self._blocks(rows):
            top0, bottom0 = carried.get(rs.start, (0, 0))
            top = np.cumsum(num[rs, bs], axis=1, dtype=np.int64) + np.asarray(top0)[..., None]
            bottom = np.cumsum(den[rs, bs], axis=1, dtype=np.int64) + np.asarray(bottom0)[..., None]
            carried[rs.start] = (top[:, -1], bottom[:, -1])
            at = self.ends[gs] - bs.start
            with np.errstate(invalid="ignore", divide="ignore"):
                out[rs, gs] = np.where(bottom[:, at] > 0, top[:, at] * scale / np.maximum(bottom[:, at], 1), np.nan)
        return out


def _thinned(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """At most :data:`MAX_POINTS` evenly spaced points of a long curve (a CDF of
    many buckets), its last point kept."""
    if len(x) <= MAX_POINTS:
        return x, y
    keep = np.unique(np.linspace(0, len(x) - 1, MAX_POINTS).astype(int))
    return x[keep], y[keep]


def flow_panels(time_s: np.ndarray, values: np.ndarray, ids: list[str], ylabel: str, *,
                additive: bool, step: bool = False) -> list[Panel]:
    """Panels for one per-flow quantity (rows of ``values``: flows × points).

    Up to :data:`MANY_FLOWS` flows: a line each. Beyond: for an ``additive`` quantity
    (a rate, a window) a first panel with the sum over flows; then the median flow,
    the 10th–90th percentile band, and the :data:`EXTREME_FLOWS` flows with the
    highest and the lowest mean, by name."""
    if len(ids) <= MANY_FLOWS:
        lines = [Line(flow, time_s, row, step=step) for flow, row in zip(ids, values, strict=True)
                 if not np.all(np.isnan(row))]
        return [Panel(ylabel, lines=lines)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # bins where no flow has a value
        # A few columns (points) at a time: nanpercentile copies what it is given.
        columns = max(BLOCK_CELLS // max(len(ids), 1), 1)
        p10, p50, p90 = np.concatenate([np.nanpercentile(values[:, j:j + columns], [10, 50, 90], axis=0)
                                        for j in range(0, values.shape[1], columns)], axis=1)
        rows = max(BLOCK_CELLS // max(values.shape[1], 1), 1)
        means = np.concatenate([np.nanmean(values[r:r + rows], axis=1) for r in range(0, len(ids), rows)])
    panels = []
    if additive:
        total = np.nansum(values, axis=0)
        panels.append(Panel(f"{ylabel}, sum", lines=[Line(f"sum of {len(ids):,} flows", time_s, total, role="aggregate")]))
    ranked = [i for i in np.argsort(means, kind="stable") if not np.isnan(means[i])]
    k = min(EXTREME_FLOWS, len(ranked) // 2)
    distribution = Panel(
        f"{ylabel}, per flow" if additive else ylabel,
        bands=[Band(f"10th–90th percentile of {len(ids):,} flows", time_s, p10, p90)],
        lines=[Line("median flow", time_s, p50, role="median")],
    )
    for i in (ranked[-k:][::-1] if k else []):
        distribution.lines.append(Line(f"{ids[i]} (highest mean)", time_s, values[i], step=step, role="extreme"))
    for i in (ranked[:k] if k else []):
        distribution.lines.append(Line(f"{ids[i]} (lowest mean)", time_s, values[i], step=step, role="extreme"))
    panels.append(distribution)
    return panels


def legend_names(summary: dict, flow_ids: list[str]) -> list[str]:
    """Each flow as a legend names it: its id and what ran ("flow0: cubic (linux,
    SACK)"), so a figure says which algorithm each line is (#32 item 5)."""
    labels = {f["id"]: f.get("label") for f in summary.get("flows", [])}
    return [f"{i}: {labels[i]}" if labels.get(i) and labels[i] != i else i for i in flow_ids]


def run_charts(summary: dict, series: Series, throughput: str = "received") -> list[Chart]:
    """Every chart of a run, in the order a reader wants them. ``throughput`` picks
    what the ``throughput`` chart shows: ``"received"`` (IP bytes arriving at the
    receiving host) or ``"goodput"`` (in-order payload handed to the application);
    the other one is the ``goodput`` (or ``received``) chart."""
    if throughput not in ("received", "goodput"):
        raise ValueError(f"throughput: expected 'received' or 'goodput', got {throughput!r}")
    charts: list[Chart] = []
    n = len(series.flow_ids)
    names = legend_names(summary, series.flow_ids)
    group = _Coarsening(series.bin_start_s, series.bin_width_s)
    time_s = group.time_s
    bin_ms = summary["bin_s"] * 1e3 * group.k

    quantities = {"received": ("received_bytes", "received throughput"), "goodput": ("delivered_bytes", "goodput")}
    # A measurement between real hosts sees what the application received, not the IP
    # bytes that arrived (tcplab measure: throughput_bps null): goodput alone.
    ip_measured = all(f["throughput_bps"] is not None for f in summary["flows"])
    shown = (throughput, "goodput" if throughput == "received" else "received") if ip_measured else ("goodput",)
    for name in shown:
        column, what = quantities[name]
        rate = group.rate(series.flow[column], n, 8e-6)
        charts.append(Chart("throughput" if name == shown[0] else name,
                            f"{what.capitalize()} per flow ({bin_ms:g} ms bins)", "time (s)",
                            flow_panels(time_s, rate, names, f"{what} (Mbit/s)", additive=True)))

    cwnd = group.last(series.flow["cwnd_bytes"], n, 1e-3) if n else np.zeros((0, len(time_s)))
    windowed = [i for i in range(n) if not np.all(np.isnan(cwnd[i]))]
    if windowed:
        ids = [names[i] for i in windowed]
        panels = flow_panels(time_s, cwnd[windowed], ids, "cwnd (kB, end of bin)", additive=True)
        title = "Congestion window"
        if len(windowed) <= MANY_FLOWS:  # ssthresh dashed, in each flow's colour
            ssthresh = group.last(series.flow["ssthresh_bytes"], n, 1e-3)
            panels[0].lines += [Line(f"{series.flow_ids[i]} ssthresh", time_s, ssthresh[i], dashed=True, pair=names[i])
                                for i in windowed if not np.all(np.isnan(ssthresh[i]))]
            title = "Congestion window (solid) and slow-start threshold (dashed)"
        charts.append(Chart("cwnd", title, "time (s)", panels))
        srtt = group.last(series.flow["srtt_ms"], n)
        charts.append(Chart("rtt", "Round-trip time (sender's SRTT)", "time (s)",
                            flow_panels(time_s, srtt[windowed], ids, "smoothed RTT (ms, end of bin)", additive=False)))

    if summary["links"]:  # none for a measurement between real hosts: not observable
        charts += _link_charts(summary, series, group, bin_ms)
    charts.append(_flow_rates(summary, ip_measured))
    if ip_measured:
        charts.append(_throughput_cdf(summary, series))
    charts.append(_delay_cdf(series, names))

    if ip_measured and any(f["packets_dropped"] > 0 for f in summary["flows"]):
        cum_loss = group.cumulative_ratio(series.flow["dropped_packets"], series.flow["sent_packets"], n, 100.0)
        charts.append(Chart("loss", "Cumulative packet loss rate", "time (s)",
                            flow_panels(time_s, cum_loss, names, "cumulative loss (%)", additive=False)))
    return charts


def _link_charts(summary: dict, series: Series, group: _Coarsening, bin_ms: float) -> list[Chart]:
    """Queue occupancy (packets, kB and as queueing delay) of the busiest queues and
    utilisation of the busiest link directions."""
    links = summary["links"]
    bins, time_s = series.bins, group.time_s

    def per_link(column: str, i: int) -> np.ndarray:
        """Link direction ``i``'s bins of ``column`` (one row)."""
        return series.link[column][i * bins:(i + 1) * bins]

    # Busiest by time-averaged occupancy: a bottleneck that is full all run long
    # matters more than a sender's queue that held one burst.
    busiest = sorted((i for i, link in enumerate(links) if link["queue_max_packets"] > 0),
                     key=lambda i: (links[i]["queue_mean_packets"], links[i]["queue_max_packets"]), reverse=True)[:MAX_LINKS]
    packets, queued = Panel("queue (packets, bin mean)"), Panel("queue (kB, bin mean)")
    delay = Panel("queueing delay (ms)")
    if busiest:
        for i in busiest:
            name = links[i]["id"]
            queue_bytes = group.mean(per_link("queue_mean_bytes", i), 1)[0]
            packets.lines.append(Line(name, time_s, group.mean(per_link("queue_mean_packets", i), 1)[0]))
            queued.lines.append(Line(name, time_s, queue_bytes * 1e-3))
            # The time a byte arriving then waits: mean bytes queued × 8 / link rate.
            if links[i]["bandwidth_bps"] > 0:
                delay.lines.append(Line(name, time_s, queue_bytes * 8e3 / links[i]["bandwidth_bps"]))
    else:
        packets.note = "no packet ever waited in a queue"
    charts = [Chart("queue", "Queue occupancy, busiest queues", "time (s)",
                    [packets, queued, delay] if busiest else [packets])]

    carrying = sorted((i for i, link in enumerate(links) if link["bandwidth_bps"] > 0 and link["tx_packets"] > 0),
                      key=lambda i: links[i]["utilization"], reverse=True)[:MAX_LINKS]
    if carrying:
        lines = [Line(links[i]["id"], time_s, group.rate(per_link("tx_bytes", i), 1, 800.0 / links[i]["bandwidth_bps"])[0])
                 for i in carrying]
        charts.append(Chart("utilization", f"Link utilisation, busiest directions ({bin_ms:g} ms bins)", "time (s)",
                            [Panel("utilisation (%)", lines=lines)]))
    return charts


def _flow_rates(summary: dict, ip_measured: bool) -> Chart:
    """Whole-run goodput and received throughput per flow: bars, or ranked curves
    beyond :data:`MAX_BARS` flows."""
    flows = summary["flows"]
    goodputs = np.array([f["goodput_bps"] for f in flows], dtype=float) / 1e6
    values = {"goodput": goodputs}
    if ip_measured:  # not between real hosts: they see no IP-level received bytes
        values["received throughput"] = np.array([f["throughput_bps"] for f in flows], dtype=float) / 1e6
    what = " and ".join(values)
    if len(flows) <= MAX_BARS:
        bars = Bars([f["id"] for f in flows], values)
        return Chart("flow_rates", f"Per-flow {what} (whole run)", "flow", [Panel("Mbit/s", bars=bars)])
    rank = np.arange(1, len(flows) + 1, dtype=float)
    lines = [Line(name, rank, np.sort(v)) for name, v in values.items()]
    return Chart("flow_rates", f"Per-flow {what}, ranked", f"flows, ranked (of {len(flows):,})",
                 [Panel("Mbit/s", lines=lines)])


def _throughput_cdf(summary: dict, series: Series) -> Chart:
    """Distribution of per-bin received throughput over every flow and bin (at most
    :data:`MAX_POINTS` points: quantiles of the sorted values). Sorted as the
    engine's integer byte counts (2–4 bytes a cell, not a float copy); the last bin,
    which may be shorter, is converted at its own width."""
    n, bins = len(series.flow_ids), series.bins
    received = series.flow["received_bytes"].reshape(n, bins)
    width = series.bin_width_s
    full = np.sort(received[:, :-1], axis=None)  # every full-width bin, in bytes
    full_rate = 8e-6 / width[0] if bins > 1 else 0.0
    last = np.sort(received[:, -1] * (8e-6 / width[-1])) if bins else np.zeros(0)  # Mbit/s
    total = len(full) + len(last)
    # The merged order of both, evaluated only at the quantiles drawn: where each
    # last-bin value falls among the full bins.
    at = np.unique(np.linspace(0, total - 1, min(total, MAX_POINTS)).astype(np.int64)) if total else np.zeros(0, np.int64)
    last_at = np.searchsorted(full, last / full_rate if full_rate else last, side="right") + np.arange(len(last))
    before = np.searchsorted(last_at, at)  # last-bin values ranked before each drawn position
    is_last = (before < len(last_at)) & (last_at[np.minimum(before, max(len(last_at) - 1, 0))] == at) if len(last) else np.zeros(len(at), bool)
    values = np.where(is_last, last[np.minimum(before, max(len(last) - 1, 0))] if len(last) else 0.0,
                      full[np.clip(at - before, 0, max(len(full) - 1, 0))] * full_rate if len(full) else 0.0)
    fraction = (at + 1) / max(total, 1)
    return Chart("throughput_cdf", f"Per-bin received throughput of {n:,} flow(s) ({summary['bin_s'] * 1e3:g} ms bins)",
                 "received throughput in a bin (Mbit/s)",
                 [Panel("CDF over flows and bins", lines=[Line("all flows and bins", values, fraction, step=True)], ylim=(0, 1.02))])


def _delay_cdf(series: Series, names: list[str]) -> Chart:
    """One-way delay distribution: per flow, or beyond :data:`MANY_FLOWS` flows that
    of every packet of every flow."""
    d = series.delay
    index = d["flow_index"].astype(np.intp)
    packets = d["packets"].astype(float)
    lines = []
    if len(series.flow_ids) <= MANY_FLOWS:
        for i, flow in enumerate(names):
            mine = index == i
            total = packets[mine].sum()
            if total > 0:
                lines.append(Line(flow, *_thinned(d["delay_ms"][mine], np.cumsum(packets[mine]) / total), step=True))
    elif packets.sum() > 0:
        order = np.argsort(d["delay_ms"], kind="stable")
        x, y = _thinned(d["delay_ms"][order], np.cumsum(packets[order]) / packets.sum())
        lines.append(Line(f"all packets of {len(series.flow_ids):,} flows", x, y, step=True, role="aggregate"))
    panel = Panel("CDF", lines=lines, ylim=(0, 1.02), note=None if lines else "no packet was delivered")
    return Chart("delay_cdf", "One-way delay distribution", "one-way delay (ms)", [panel])
