"""Figures drawn from the time series of one run of a study's sweep (replication 0 of
the point a ``[[series_figure]]`` names): per-bin throughput, throughput scatter,
delay PDF, cumulative loss, queue over time. With ``by``, ``flow_throughput`` and
``queue`` draw one line per value of that parameter (the first flow or the link);
``log_y = true`` puts the y axis on a log scale and ``y_min`` sets its lower end
(in the plotted unit), so a start-up transient does not squash the rest."""

from __future__ import annotations

import re
from pathlib import Path

from ..sweeps.catalog import connect

_KINDS = ("flow_throughput", "scatter", "delay_pdf", "cumulative_loss", "queue")


def _run_keys(con, where: dict, by: str | None) -> list[tuple[object, str]]:
    cond = " AND ".join([f'"{k}" = ?' for k in where] + ["status = 'ok'", "rep = 0"])
    cols = f'"{by}", key' if by else "NULL, key"
    return con.execute(f"SELECT {cols} FROM runs WHERE {cond} ORDER BY 1", list(where.values())).fetchall()


def draw_series_figure(fig: dict, out: Path, index: int) -> Path | None:
    """Draws one series figure into ``out/figures``; None if its run or series is missing."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..plots import fitted_title

    if fig.get("kind") not in _KINDS:
        raise ValueError(f"series_figure {fig.get('title')!r}: unknown kind {fig.get('kind')!r}; expected one of: {', '.join(_KINDS)}")
    root = out / "sweeps" / fig["sweep"]
    if not (root / "sweep.json").exists():
        return None
    con = connect(root)
    try:
        tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        if "flow_series" not in tables:
            return None
        runs = _run_keys(con, fig.get("where", {}), fig.get("by"))
        if not runs:
            return None
        key = runs[0][1]
        flows = fig.get("flows", [])
        kind = fig["kind"]
        f, ax = plt.subplots(figsize=(8, 4.5) if kind != "scatter" else (5.5, 5.5))
        if kind in ("flow_throughput", "cumulative_loss", "scatter"):
            df = con.execute("SELECT flow, time_s, goodput_bps, sent_packets, dropped_packets FROM flow_series "
                             "WHERE key = ? ORDER BY flow, time_s", [key]).df()
            series = {name: g for name, g in df.groupby("flow")}
            if kind == "flow_throughput" and fig.get("by"):
                # One flow across the sweep's values of `by`: one line per value.
                for value, run_key in _first_per_value(runs):
                    g = con.execute("SELECT time_s, goodput_bps FROM flow_series WHERE key = ? AND flow = ? "
                                    "ORDER BY time_s", [run_key, flows[0]]).df()
                    ax.plot(g["time_s"], g["goodput_bps"] / 1e6, lw=0.9, label=f"{fig['by']} = {value}")
                ax.set_xlabel("time (s)")
                ax.set_ylabel(f"{flows[0]} throughput per bin (Mbit/s)")
            elif kind == "flow_throughput":
                for name in flows:
                    g = series[name]
                    ax.plot(g["time_s"], g["goodput_bps"] / 1e6, lw=0.9, label=name)
                ax.set_xlabel("time (s)")
                ax.set_ylabel("throughput per bin (Mbit/s)")
            elif kind == "cumulative_loss":
                for name in flows:
                    g = series[name]
                    sent = g["sent_packets"].cumsum()
                    ax.plot(g["time_s"], 100 * g["dropped_packets"].cumsum() / sent.where(sent > 0), lw=1.2, label=name)
                ax.set_xlabel("time (s)")
                ax.set_ylabel("cumulative loss rate (%)")
            else:
                a, b = (series[n]["goodput_bps"].to_numpy() / 1e6 for n in flows[:2])
                ax.scatter(a, b, s=6, alpha=0.5)
                ax.set_xlabel(f"{flows[0]} throughput per bin (Mbit/s)")
                ax.set_ylabel(f"{flows[1]} throughput per bin (Mbit/s)")
        elif kind == "delay_pdf":
            df = con.execute("SELECT flow, delay_ms, packets FROM delay_hist WHERE key = ? ORDER BY flow, delay_ms", [key]).df()
            for name in flows:
                g = df[df["flow"] == name]
                if g.empty:
                    continue
                upper = g["delay_ms"].to_numpy()
                lower = [0.0, *upper[:-1]]
                width = upper - lower
                density = g["packets"].to_numpy() / g["packets"].sum() / width
                ax.step(upper, density, where="pre", lw=1.2, label=name)
            ax.set_xlabel("one-way delay (ms)")
            ax.set_ylabel("probability density (1/ms)")
        else:  # queue
            for value, run_key in runs[:1] if not fig.get("by") else _first_per_value(runs):
                df = con.execute("SELECT time_s, queue_max_bytes FROM link_series WHERE key = ? AND link = ? ORDER BY time_s",
                                 [run_key, fig["link"]]).df()
                ax.plot(df["time_s"], df["queue_max_bytes"] / 1e3, lw=0.9, label=f"{fig.get('by')} = {value}" if fig.get("by") else None)
            ax.set_xlabel("time (s)")
            ax.set_ylabel(f"{fig['link']} queue, max per bin (kB)")
        if fig.get("log_y"):
            ax.set_yscale("log")
        if "y_min" in fig:
            ax.set_ylim(bottom=fig["y_min"])
        ax.set_title(fitted_title(f, fig["title"]), fontsize="medium")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize="small")
        ax.grid(alpha=0.3)
        f.tight_layout()
        target = out / "figures" / f"series{index + 1:02d}_{re.sub(r'[^a-z0-9]+', '_', kind)}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        f.savefig(target, dpi=110)
        plt.close(f)
        return target
    finally:
        con.close()


def _first_per_value(runs: list) -> list:
    seen, out = set(), []
    for value, key in runs:
        if value not in seen:
            seen.add(value)
            out.append((value, key))
    return out
