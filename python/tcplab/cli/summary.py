"""The human-readable summary of a run (``tcplab run``, ``emu``, ``measure``): flows,
busy links, fairness; beyond :data:`COMPACT_ROWS` flows, their distribution."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .app import escape

if TYPE_CHECKING:
    from rich.console import Console

    from ..results import RunResult
    from ..tables import BoxTable


def _mbps(bps: float | None) -> str:
    return "-" if bps is None else f"{bps / 1e6:.3f}"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _percent(fraction: float | None) -> str:
    """A fraction as a percentage, or "-" where it was not observable (a measured path's drops)."""
    return "-" if fraction is None else f"{100 * fraction:.2f}"


def _count(value: int | None) -> str:
    """A count, or "-" where the run has none (e.g. an emulated run's timeouts)."""
    return "-" if value is None else f"{value:,}"


#: Beyond this many flows (or busy link directions) the summary shows a distribution
#: and the extremes instead of one row each; flows.csv / links.csv have every row.
COMPACT_ROWS = 40
#: Rows shown at each end (lowest, highest goodput) of a compact flow table.
COMPACT_EXTREMES = 5


def _flow_table(title: str, flows: list[dict], width: int) -> list[BoxTable]:
    from ..tables import Column, fitted_tables

    columns = [Column("flow", numeric=False), Column("path", numeric=False), Column("transport", numeric=False),
               Column("goodput Mb/s"), Column("rx max Mb/s"), Column("sent pkts"), Column("lost pkts"), Column("loss %"),
               Column("delay mean ms"), Column("p99 ms"), Column("jitter ms")]
    rows = []
    for f in flows:
        d = f["delay_ms"]
        rows.append([escape(f["id"]), escape(f"{f['src']}→{f['dst']}"), escape(f.get("label", f["transport"])),
                     _mbps(f["goodput_bps"]),
                     _mbps(f["throughput_max_bps"]), _count(f["packets_sent"]), _count(f["packets_dropped"]),
                     _percent(f["loss_rate"]), _ms(d["mean"]), _ms(d["p99"]), _ms(f['jitter_ms'])])
    return fitted_tables(title, columns, rows, width)


def _distribution_table(flows: list[dict], width: int) -> list[BoxTable]:
    """One row per metric, its spread over the flows (percentiles of the per-flow values)."""
    import numpy as np

    from ..tables import Column, fitted_tables

    metrics = [
        ("goodput Mb/s", [f["goodput_bps"] / 1e6 for f in flows]),
        ("loss %", [100 * f["loss_rate"] for f in flows]),
        ("delay mean ms", [f["delay_ms"]["mean"] for f in flows]),
        ("delay p99 ms", [f["delay_ms"]["p99"] for f in flows]),
        ("jitter ms", [f["jitter_ms"] for f in flows]),
        ("retransmits", [f.get("retransmits") for f in flows]),
        ("completion s", [f.get("fct_s") for f in flows]),
    ]
    columns = [Column("metric", numeric=False), *(Column(h) for h in ["flows", "min", "p10", "median", "mean", "p90", "max"])]
    rows = []
    for name, values in metrics:
        v = np.array([x for x in values if x is not None], dtype=float)
        if v.size == 0:
            continue
        p10, p50, p90 = np.percentile(v, [10, 50, 90])
        digits = 1 if name == "retransmits" else 3  # a count: its percentiles need one decimal
        rows.append([name, f"{v.size:,}", *(f"{x:,.{digits}f}" for x in (v.min(), p10, p50, v.mean(), p90, v.max()))])
    return fitted_tables(f"Flows: distribution over {len(flows):,} flows", columns, rows, width)


def print_summary(result: RunResult, console: Console) -> None:
    """The human-readable summary: flows, busy links, fairness. Beyond
    :data:`COMPACT_ROWS` flows it shows their distribution and the extremes."""
    s = result.summary
    if s.get("backend") == "measure":
        hosts = ", ".join(f"{name} ({h['reached_by']})" for name, h in s["measurement"]["hosts"].items())
        console.print(f"[bold]{escape(s['scenario'])}[/]: {s['duration_s']:g} s measured between real hosts: {escape(hosts)}")
    else:
        console.print(f"[bold]{escape(s['scenario'])}[/]: {s['duration_s']:g} s simulated, seed {s['seed']}, "
                      f"{s['events']:,} events in {s['wall_time_s']:.2f} s wall time")
    description = (s.get("scenario_as_run") or {}).get("description")
    if isinstance(description, str) and description.strip():
        console.print(escape(" ".join(description.split())))  # what the scenario shows, in its own words
    flows = s["flows"]
    compact = len(flows) > COMPACT_ROWS
    width = console.width
    if compact:
        console.print(*_distribution_table(flows, width))
        ranked = sorted(flows, key=lambda f: f["goodput_bps"])
        k = COMPACT_EXTREMES
        console.print(*_flow_table(f"Flows: the {k} lowest and {k} highest goodputs", ranked[:k] + ranked[-k:], width))
    else:
        console.print(*_flow_table("Flows", flows, width))
    from ..tables import Column, fitted_tables

    tcp = [f for f in flows if f.get("retransmits") is not None]
    if tcp and not compact:
        columns = [Column("flow", numeric=False), *(Column(h) for h in ["retransmits", "fast retx", "timeouts", "mean SRTT ms", "completion s"])]
        rows = [[escape(f["id"]), _count(f["retransmits"]), _count(f["fast_retransmits"]), _count(f["rto_count"]),
                 _ms(f["srtt_ms"]), "-" if f["fct_s"] is None else f"{f['fct_s']:.3f}"] for f in tcp]
        console.print(*fitted_tables("Reliable transport", columns, rows, width))
    # None for a measurement between real hosts (its links are not observable).
    busy = [link for link in s["links"] if link["tx_packets"] > 0 or sum(link["drops"].values()) > 0]
    shown = busy if len(busy) <= COMPACT_ROWS else sorted(busy, key=lambda link: link["utilization"], reverse=True)[:COMPACT_EXTREMES * 2]
    title = "Link directions with traffic" if shown is busy else f"The {len(shown)} busiest of {len(busy):,} link directions with traffic"
    columns = [Column("link", numeric=False),
               *(Column(h) for h in ["Mb/s", "util %", "tx pkts", "drops q/red/rand", "queue max pkts", "queue mean pkts"])]
    rows = []
    for link in shown:
        dr = link["drops"]
        rows.append([escape(link["id"]), f"{link['bandwidth_bps'] / 1e6:g}", f"{100 * link['utilization']:.1f}", f"{link['tx_packets']:,}",
                     f"{dr['queue']}/{dr['red']}/{dr['random']}", f"{link['queue_max_packets']:,}", f"{link['queue_mean_packets']:.2f}"])
    if busy:
        console.print(*fitted_tables(title, columns, rows, width))
    jain = s["fairness"]["jain"]
    console.print(f"Jain's fairness index over {len(s['fairness']['flows']):,} flow(s): "
                  + ("-" if jain is None else f"[bold]{jain:.4f}[/]"))
    if compact or shown is not busy:
        console.print("Every flow and link direction: flows.csv and links.csv in the results directory.")


