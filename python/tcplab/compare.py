"""Side-by-side comparison of results directories (``tcplab compare A B ...``).

Each run is read from its directory (summary.json and the Parquet series). The
comparison is per flow and per link direction, matched by id; the first run is the
reference every other run's difference is taken against. It also says what differs
between the scenarios as run, which is usually the first question.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .output import OutputError, write_directory
from .results import RunResult
from .series import StoredResultsError

#: (label, summary field, scale) of the per-flow metrics compared.
FLOW_METRICS = [
    ("goodput Mb/s", "goodput_bps", 1e-6),
    ("throughput Mb/s", "throughput_bps", 1e-6),
    ("loss %", "loss_rate", 100.0),
    ("retransmits", "retransmits", 1.0),
    ("mean SRTT ms", "srtt_ms", 1.0),
    ("completion s", "fct_s", 1.0),
]
#: (label, summary field, scale) of the per-link-direction metrics compared.
LINK_METRICS = [
    ("utilisation %", "utilization", 100.0),
    ("drops", "drops_total", 1.0),
    ("mean queue pkts", "queue_mean_packets", 1.0),
]


@dataclass
class Comparison:
    """Runs side by side: ``flows`` and ``links`` have one row per entity and metric
    with one column per run (labelled by its directory) and ``Δ% <run>`` columns
    against the first run; ``scenario_differences`` lists the scenario keys whose
    values differ, with each run's value."""

    runs: list[str]
    flows: pd.DataFrame
    links: pd.DataFrame
    scenario_differences: list[tuple[str, list[object]]]


def load_runs(directories: Sequence[str | Path]) -> list[RunResult]:
    """Each directory's results; an OutputError names the first that is not one (or,
    for tcplab's own results that are damaged or of another kind, says what is wrong)."""
    runs = []
    for d in directories:
        try:
            runs.append(RunResult.from_directory(d))
        except StoredResultsError as e:  # tcplab's own, damaged or of another kind: it names the file
            raise OutputError(str(e)) from None
        except (OSError, ValueError) as e:
            raise OutputError(f"{d}: not a tcplab results directory ({e})") from None
    return runs


def compare(directories: Sequence[str | Path]) -> Comparison:
    """Compares the runs stored in ``directories`` (at least two)."""
    runs = load_runs(directories)
    labels = _labels(directories)
    flows = _side_by_side([r.summary["flows"] for r in runs], labels, FLOW_METRICS)
    link_rows = [[{**link, "drops_total": sum(link["drops"].values())} for link in r.summary["links"]] for r in runs]
    links = _side_by_side(link_rows, labels, LINK_METRICS)
    return Comparison(labels, flows, links, _scenario_differences([r.summary.get("scenario_as_run", {}) for r in runs]))


def _labels(directories: Sequence[str | Path]) -> list[str]:
    """Short distinct names for the runs: directory names, or paths where those clash."""
    names = [Path(d).name or str(d) for d in directories]
    return names if len(set(names)) == len(names) else [str(d) for d in directories]


def _side_by_side(entities_per_run: list[list[dict]], labels: list[str], metrics: list) -> pd.DataFrame:
    ids: list[str] = []
    for entities in entities_per_run:
        ids += [e["id"] for e in entities if e["id"] not in ids]
    by_id = [{e["id"]: e for e in entities} for entities in entities_per_run]
    rows = []
    for entity in ids:
        for label, key, scale in metrics:
            values = [_scaled(run.get(entity, {}).get(key), scale) for run in by_id]
            row = {"id": entity, "metric": label, **dict(zip(labels, values, strict=True))}
            for other, value in zip(labels[1:], values[1:], strict=True):
                row[f"Δ% {other}"] = _change(values[0], value)
            rows.append(row)
    return pd.DataFrame(rows)


def _scaled(value, scale: float) -> float:
    return np.nan if value is None else value * scale


def _change(reference: float, value: float) -> float:
    if np.isnan(reference) or np.isnan(value):
        return np.nan
    if reference == 0:
        return 0.0 if value == 0 else np.inf
    return 100.0 * (value - reference) / abs(reference)


def _flatten(value: object, prefix: str = "") -> dict[str, object]:
    if isinstance(value, dict):
        out: dict[str, object] = {}
        for k, v in value.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else k))
        return out
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        out = {}
        for i, v in enumerate(value):
            out.update(_flatten(v, f"{prefix}[{i}]"))
        return out
    return {prefix: value}


def _scenario_differences(scenarios: list[dict]) -> list[tuple[str, list[object]]]:
    flat = [_flatten({k: v for k, v in s.items() if k != "name"}) for s in scenarios]
    keys: list[str] = []
    for f in flat:
        keys += [k for k in f if k not in keys]
    return [(k, [f.get(k) for f in flat]) for k in keys if len({repr(f.get(k)) for f in flat}) > 1]


def write_overlays(directories: Sequence[str | Path], out: str | Path) -> Path:
    """Overlay plots of the runs into ``out`` (a results-style directory): received
    throughput over time (each run's total, and each flow's when there are few), and
    the queue of each run's busiest link direction."""
    runs = load_runs(directories)
    labels = _labels(directories)

    def fill(d: Path) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(8, 4.5))
        for label, run in zip(labels, runs, strict=True):
            series = run.flow_series
            total = series.groupby("time_s", sort=True)["throughput_bps"].sum()
            ax.plot(total.index, total.to_numpy() / 1e6, lw=1.2, label=f"{label}: all flows")
        ax.set(xlabel="time (s)", ylabel="received throughput (Mbit/s)", title="Received throughput, all flows")
        _save(fig, ax, d / "throughput.png")

        fig, ax = plt.subplots(figsize=(8, 4.5))
        for label, run in zip(labels, runs, strict=True):
            links = run.summary["links"]
            if not links:
                continue
            busiest = max(links, key=lambda link: link["queue_mean_packets"])["id"]
            series = run.link_series
            q = series[series["link"] == busiest]
            ax.plot(q["time_s"], q["queue_mean_packets"], lw=1, label=f"{label}: {busiest}")
        ax.set(xlabel="time (s)", ylabel="queue (packets, bin mean)", title="Queue of each run's busiest link direction")
        _save(fig, ax, d / "queue.png")

        c = compare(directories)
        c.flows.to_csv(d / "flows.csv", index=False)
        c.links.to_csv(d / "links.csv", index=False)

    return write_directory(Path(out), fill, "comparison")


def _save(fig, ax, path: Path) -> None:
    import matplotlib.pyplot as plt

    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
