"""The self-contained HTML report of a run (``report.html``): summary tables, every
chart of :mod:`tcplab.charts` drawn interactively, the scenario as run and the run's
provenance, in one file that works offline.

Everything is inlined: the stylesheet (report.css), the chart script (charts.js,
written for tcplab; no third-party library) and the data. Series travel as base64
of little-endian float64 (x) / float32 (y) arrays: a quarter of the size of JSON
numbers and no Python loop over values, so writing the report of a large run costs
a few milliseconds.
"""

from __future__ import annotations

import base64
import html
import json
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..charts import Chart, run_charts

if TYPE_CHECKING:
    from ..results import RunResult
    from ..series import Series

#: Beyond this many flows the flow table shows the lowest and highest goodputs.
TABLE_ROWS = 200


def _b64(values: np.ndarray, dtype: str) -> str:
    return base64.b64encode(np.ascontiguousarray(values, dtype=np.dtype(dtype).newbyteorder("<")).tobytes()).decode()


def chart_json(chart: Chart) -> dict:
    """``chart`` as the report's script reads it."""
    panels = []
    for p in chart.panels:
        panels.append({
            "ylabel": p.ylabel,
            "ylim": list(p.ylim) if p.ylim else None,
            "note": p.note,
            "lines": [{"name": ln.name, "x": _b64(ln.x, "f8"), "y": _b64(ln.y, "f4"), "dashed": ln.dashed,
                       "step": ln.step, "pair": ln.pair, "role": ln.role, "markers": ln.markers or ln.err is not None, "joined": ln.joined,
                       "err": None if ln.err is None else _b64(ln.err, "f4"), "bounds": list(ln.bounds)} for ln in p.lines],
            "bands": [{"name": b.name, "x": _b64(b.x, "f8"), "lower": _b64(b.lower, "f4"), "upper": _b64(b.upper, "f4")}
                      for b in p.bands],
            "bars": None if p.bars is None else {
                "categories": p.bars.categories,
                "values": {k: [float(x) for x in v] for k, v in p.bars.values.items()}},
        })
    title = chart.title + (f" — {chart.caption}" if chart.caption else "")
    return {"name": chart.name, "title": title, "xlabel": chart.xlabel, "panels": panels, "xlog": chart.xlog,
            "xcategories": chart.xcategories}


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _script_safe(text: str) -> str:
    """``text`` safe inside a <script> element (no "</script>" or "<!--" in it)."""
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


def _num(value, digits: int = 3) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def _scaled(value: float | None, factor: float) -> float | None:
    """``value`` times ``factor``; None (not measured: a real path's drops) stays None."""
    return None if value is None else value * factor


def table(headings: list[str], rows: list[list[str]], text_columns: int = 1) -> str:
    """A sortable table (click a heading); the first ``text_columns`` columns are
    left-aligned text, the rest right-aligned numbers."""
    e = html.escape
    head = "".join(f"<th class='text'>{e(h)}</th>" if i < text_columns else f"<th>{e(h)}</th>" for i, h in enumerate(headings))
    body = "".join("<tr>" + "".join(f"<td class='text'>{e(c)}</td>" if i < text_columns else f"<td>{e(c)}</td>"
                                    for i, c in enumerate(r)) + "</tr>" for r in rows)
    return f"<div class='scroll'><table class='sortable'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"


def _flows_section(summary: dict) -> str:
    flows = summary["flows"]
    shown = flows
    note = ""
    if len(flows) > TABLE_ROWS:
        ranked = sorted(flows, key=lambda f: f["goodput_bps"])
        half = TABLE_ROWS // 2
        shown = ranked[:half] + ranked[-half:]
        note = (f"<p>The {half} lowest and {half} highest goodputs of {len(flows):,} flows; every flow is in "
                "flows.csv.</p>")
    headings = ["flow", "path", "transport", "goodput Mb/s", "received Mb/s", "received max Mb/s", "sent pkts", "lost pkts",
                "loss %", "delay mean ms", "delay p99 ms", "jitter ms", "retx", "RTOs", "SRTT ms", "FCT s"]
    rows = []
    for f in shown:
        d = f["delay_ms"]
        rows.append([f["id"], f"{f['src']}→{f['dst']}", f.get("label", f["transport"]), _num(f["goodput_bps"] / 1e6),
                     _num(_scaled(f["throughput_bps"], 1e-6)), _num(_scaled(f["throughput_max_bps"], 1e-6)),
                     _num(f["packets_sent"], 0), _num(f["packets_dropped"], 0), _num(_scaled(f["loss_rate"], 100), 2),
                     _num(d["mean"]), _num(d["p99"]),
                     _num(f["jitter_ms"]), _num(f.get("retransmits"), 0), _num(f.get("rto_count"), 0),
                     _num(f.get("srtt_ms")), _num(f.get("fct_s"))])
    jain = summary["fairness"]["jain"]
    fairness = (f"<p>Jain's fairness index over {len(summary['fairness']['flows']):,} flow(s): "
                f"<b>{'–' if jain is None else f'{jain:.4f}'}</b></p>")
    return "<h2 id='flows'>Flows</h2>" + note + table(headings, rows, 3) + fairness


def _streams_section(summary: dict) -> str:
    """SCTP associations: the bundle sizes and the per-stream table (empty without)."""
    sctp = [f for f in summary["flows"] if (f.get("transport_details") or {}).get("streams") is not None][:TABLE_ROWS]
    if not sctp:
        return ""
    bundles = table(["flow", "packets", "wire kB (all headers)", *[f"{k} chunks" for k in range(7)]],
                    [[f["id"], f"{f['packets_sent']:,}", _num(None if f["wire_bytes_sent"] is None else f["wire_bytes_sent"] / 1e3, 1),
                      *[f"{c:,}" for c in f["transport_details"]["chunks_per_packet"]]] for f in sctp])
    headings = ["flow", "stream", "delivered kB", "messages", "delay min ms", "mean", "p50", "p95", "p99", "max",
                "blocked messages", "blocked s"]
    rows = []
    for f in sctp:
        for st in f["transport_details"]["streams"]:
            d = st["delay_ms"]
            rows.append([f["id"], str(st["stream"]), _num(st["delivered_bytes"] / 1e3, 1), f"{st['messages']:,}",
                         _num(d["min"]), _num(d["mean"]), _num(d["p50"]), _num(d["p95"]), _num(d["p99"]), _num(d["max"]),
                         f"{st['blocked_messages']:,}", _num(st["blocked_ms"] / 1e3)])
    return ("<h2 id='streams'>SCTP: bundling and streams</h2><p>Packets by the DATA chunks they carried:</p>" + bundles +
            "<p>Per stream: message delay from the sending application's write to delivery, and the messages "
            "(and time) spent complete but waiting behind a gap in their stream (head-of-line blocking); "
            "streams.csv has every row.</p>" + table(headings, rows, 2))


def _links_section(summary: dict) -> str:
    busy = [link for link in summary["links"] if link["tx_packets"] > 0 or sum(link["drops"].values()) > 0]
    busy.sort(key=lambda link: link["utilization"], reverse=True)
    note = ""
    if len(busy) > TABLE_ROWS:
        note = f"<p>The {TABLE_ROWS} busiest of {len(busy):,} link directions with traffic; all are in links.csv.</p>"
        busy = busy[:TABLE_ROWS]
    headings = ["link direction", "Mb/s", "delay ms", "MTU B", "utilisation %", "tx pkts", "queue drops", "RED drops",
                "random drops", "queue max pkts", "queue mean pkts", "queue max kB"]
    rows = [[link["id"], f"{link['bandwidth_bps'] / 1e6:g}", f"{link['delay_ms']:g}", f"{link['mtu_bytes']:,}",
             _num(100 * link["utilization"], 1), f"{link['tx_packets']:,}", f"{link['drops']['queue']:,}",
             f"{link['drops']['red']:,}", f"{link['drops']['random']:,}", f"{link['queue_max_packets']:,}",
             _num(link["queue_mean_packets"], 2), _num(link["queue_max_bytes"] / 1e3, 1)] for link in busy]
    return "<h2 id='links'>Link directions with traffic</h2>" + note + table(headings, rows)


def _measurement_section(summary: dict) -> str:
    """A measurement between real hosts: each host (how it was reached, kernel, clock,
    TCP sysctls), what could not be observed, and the warnings."""
    e = html.escape
    m = summary["measurement"]
    rows = []
    for name, h in m["hosts"].items():
        sysctls = h.get("sysctls") or {}
        rows.append([name, h["reached_by"], h["address"], h.get("kernel", "?"),
                     "synchronised" if (h.get("clock") or {}).get("synchronised") else "not synchronised",
                     sysctls.get("net.ipv4.tcp_congestion_control") or "?", sysctls.get("net.ipv4.tcp_rmem") or "?",
                     sysctls.get("net.ipv4.tcp_wmem") or "?"])
    hosts = table(["host", "reached by", "address", "kernel", "clock", "default cc", "tcp_rmem", "tcp_wmem"], rows, 8)
    notes = "".join(f"<li>{e(w)}</li>" for w in [*m["warnings"], *m["errors"]])
    return ("<h2 id='links'>Measurement</h2>" + hosts
            + f"<p>One-way delay: {e(m['one_way_delay'])}. Not observable: {e(m['not_observable'])}.</p>"
            + (f"<ul>{notes}</ul>" if notes else ""))


def _emulation_section(summary: dict) -> str:
    """An emulated run's self-calibration: the forwarder's timing and each flow's
    measured base delay against the configured one (empty for simulated runs)."""
    emu = summary.get("emulation")
    if not emu:
        return ""
    fw = emu["forwarder"]
    bounds, counts = fw["lateness_bounds_ms"], fw["lateness_histogram"]
    written = max(1, sum(counts))
    within = ", ".join(f"{100 * sum(counts[:i + 1]) / written:.1f}% within {b:g} ms" for i, b in enumerate(bounds[:4]))
    timing = (f"<p>The forwarder wrote {fw['written_packets']:,} packets at their model times + "
              f"{fw['lateness_mean_ms']:.3f} ms on average ({within}; the latest {fw['lateness_max_ms']:.2f} ms late); "
              f"{fw['unroutable']:,} unroutable, {fw['write_failures']:,} writes refused.</p>")
    rows = [[c["flow"], c["what"], _num(c["configured_ms"]), _num(c["measured_ms"]), _num(c["deviation_ms"])]
            for c in emu["calibration"][:TABLE_ROWS]]
    errors = "".join(f"<p><b>error:</b> {html.escape(m)}</p>" for m in emu.get("errors", []))
    measured = [r for r in emu.get("link_rates", []) if r["achieved_bps"] is not None]
    rates = ""
    if measured:
        rate_rows = [[r["link"], _num(r["configured_bps"] / 1e6, 3), _num(r["achieved_bps"] / 1e6, 3),
                      _num(r["deviation_pct"], 2), _num(r["busy_s"], 2), f"{r['intervals']:,}"]
                     for r in measured[:TABLE_ROWS]]
        # Read from the run (not imported from the emulator, which imports this module).
        min_busy = emu.get("link_rates_min_busy_s")
        listed = "" if min_busy is None else f" (links busy less than {min_busy:g} s in all are not listed)"
        rates = ("<p>Each link direction's rate while it was busy: its back-to-back packets' spacing in the model "
                 f"against the spacing at which the forwarder moved them on{listed}.</p>" +
                 table(["link", "configured Mb/s", "achieved Mb/s", "deviation %", "busy s", "intervals"], rate_rows, 1))
    kept = emu.get("timekeeping")  # absent in results written before it was judged
    verdict = "" if kept is None else (
        "<p><b>Kept time</b>: every figure below within the flag bounds (docs/emulation.md).</p>"
        if kept["verdict"] == "kept" else
        f"<p><b>{'Unreliable' if kept['verdict'] == 'unreliable' else 'Flagged'}</b>: the machine did not keep "
        "time (busy?): " + "; ".join(html.escape(p) for p in kept["problems"]) + "</p>")
    return ("<h2 id='emulation'>Emulation: self-calibration</h2>" + errors + verdict + timing +
            table(["flow", "measured", "configured ms", "measured ms", "deviation ms"], rows, 2) + rates)


def _provenance_section(summary: dict) -> str:
    from ..scenario import toml_writer

    e = html.escape
    prov = summary.get("provenance") or {}
    items = {"scenario file": prov.get("source"), "overrides": " ".join(prov.get("overrides") or []) or "none",
             "seed": summary["seed"], "tcplab": summary.get("tcplab_version"), "git commit": prov.get("git_commit"),
             "python": prov.get("python"), "platform": prov.get("platform"), "cores": prov.get("cpu_count"),
             "started": prov.get("started_at"), "wall time": f"{summary['wall_time_s']:.2f} s"}
    listing = "".join(f"<dt>{e(k)}</dt><dd>{e(str(v))}</dd>" for k, v in items.items() if v is not None)
    scenario = summary.get("scenario_as_run")
    toml = f"<h2 id='scenario'>Scenario as run</h2><pre>{e(toml_writer.dumps(scenario))}</pre>" if scenario else ""
    return toml + f"<h2 id='provenance'>Provenance</h2><dl>{listing}</dl>"


#: Where a page puts its interactive charts: ``page`` fills the element of this id.
CHARTS_PLACE = "<div id='charts'></div>"
#: How to use the charts, said above them.
CHARTS_HELP = ("<p class='run'>Drag across a chart to zoom in, double-click to zoom out; click a legend entry to hide or "
               "show it; hover for values.</p>")


def page(title: str, body: str, charts: list[Chart], style: str = "") -> str:
    """A self-contained HTML document: ``body`` (HTML, with :data:`CHARTS_PLACE` where
    the charts go) and the ``charts`` drawn there interactively; ``style`` is CSS
    added to the report's own. Used by the run, sweep and study reports."""
    data = json.dumps([chart_json(c) for c in charts], allow_nan=False)
    return "".join([
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{html.escape(title)} · tcplab</title><style>{_asset('report.css')}{style}</style></head><body>",
        body,
        f"<script type='application/json' id='tcplab-charts'>{_script_safe(data)}</script>",
        f"<script>{_script_safe(_asset('charts.js'))}</script>",
        "</body></html>\n",
    ])


def report_html(summary: dict, series: Series, throughput: str = "received") -> str:
    """The report of the run ``summary`` / ``series`` as one HTML document.
    ``throughput`` picks which of received throughput and goodput comes first."""
    e = html.escape
    if summary.get("backend") == "emu":
        run = (f"{summary['duration_s']:g} s emulated over the Linux stack, {len(summary['flows']):,} flows, "
               f"{summary['events']:,} packets forwarded")
    elif summary.get("backend") == "measure":
        run = (f"{summary['duration_s']:g} s measured between real hosts ("
               + ", ".join(summary["measurement"]["hosts"]) + f"), {len(summary['flows']):,} flows")
    else:
        run = (f"{summary['duration_s']:g} s simulated, seed {summary['seed']}, {len(summary['flows']):,} flows, "
               f"{summary['events']:,} events in {summary['wall_time_s']:.2f} s")
    body = "".join([
        f"<h1>{e(summary['scenario'])}</h1><p class='run'>{e(run)}</p>",
        "<nav><a href='#flows'>Flows</a><a href='#links'>Links</a><a href='#charts'>Charts</a>"
        "<a href='#scenario'>Scenario</a><a href='#provenance'>Provenance</a></nav>",
        _flows_section(summary), _streams_section(summary),
        _measurement_section(summary) if summary.get("backend") == "measure" else _links_section(summary),
        _emulation_section(summary),
        "<h2 id='charts-title'>Charts</h2>", CHARTS_HELP, CHARTS_PLACE,
        _provenance_section(summary),
    ])
    return page(summary["scenario"], body, run_charts(summary, series, throughput))


def write_report(result: RunResult, path: str | Path, throughput: str = "received") -> Path:
    """Writes ``result``'s report to ``path`` (a file) and returns it."""
    path = Path(path)
    path.write_text(report_html(result.summary, result._series(), throughput), encoding="utf-8")
    return path
